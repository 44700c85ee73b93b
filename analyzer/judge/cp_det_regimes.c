/* cp_det_regimes.c - the regimes of the calls: latency_bound (with what fusing the
 * data-parallel gradient all-reduces into buckets would save),
 * algorithm_choice (NCCL's algorithm against the model's), and
 * model_unavailable (a link class the calls cannot judge).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"
#include "cp_units.h"

#define LATENCY_INFO 0.10

#define LATENCY_WARNING 0.25

#define LATENCY_CRITICAL 0.50

#define MIN_BUCKET (25.0 * 1048576) /* PyTorch DDP's default bucket_cap_mb */

#define GAIN_RUN 0.01  /* advice only when it saves 1 % of the run ... */

#define GAIN_STEP 1e-3 /* ... and 1 ms per step */

static int compare_lat_time(const void *a, const void *b)
{
    const struct an_eval *x = *(const struct an_eval *const *)a;
    const struct an_eval *y = *(const struct an_eval *const *)b;
    return x->lat.time > y->lat.time ? -1 : x->lat.time < y->lat.time;
}

/* Calls that DDP's gradient buckets fuse: all-reduces on a data-parallel
 * communicator, i.e. the world or members that are not one block of
 * consecutive ranks (tensor-parallel groups are such blocks in Megatron's
 * and PyTorch's layouts; their all-reduces carry activations that the next
 * layer waits for and cannot be put off into a bucket). */
static int data_parallel_allreduce(const struct cp_analysis *an,
                                   const struct an_eval *x)
{
    const struct cp_analysis_comm *c = &an->comms[x->comm];
    int world = an->world_size > 0 ? an->world_size
                                           : (int)an->nranks;
    int lo = INT32_MAX, hi = -1;
    unsigned i;

    if (x->coll != CP_COLL_ALLREDUCE || c->nranks < 2 || c->missing)
        return 0;
    if ((int)c->nranks >= world)
        return 1;
    for (i = 0; i < c->nranks; i++) {
        if (c->ranks[i] < 0)
            return 0; /* members unknown: not advised */
        lo = c->ranks[i] < lo ? c->ranks[i] : lo;
        hi = c->ranks[i] > hi ? c->ranks[i] : hi;
    }
    return hi - lo + 1 != (int)c->nranks;
}

/* Whether communicators a and b have no rank in common (members known). */
static int disjoint_comms(const struct cp_analysis *an, unsigned a, unsigned b)
{
    const struct cp_analysis_comm *ca = &an->comms[a], *cb = &an->comms[b];
    unsigned i, k;

    if (a == b)
        return 0;
    for (i = 0; i < ca->nranks; i++) {
        if (ca->ranks[i] < 0)
            return 0;
        for (k = 0; k < cb->nranks; k++)
            if (cb->ranks[k] < 0 || cb->ranks[k] == ca->ranks[i])
                return 0;
    }
    return 1;
}

/* What latency_bound gathered of the data-parallel gradient all-reduces,
 * for the finding. */
struct lat_fusion {
    const struct an_eval **lat; /* slowest first */
    size_t nlat;
    uint64_t calls;
    double n_half, bucket, saving, steps;
    double discount; /* straggler delay taken off their time (seconds) */
    json_t *sizes; /* the first five, for the evidence */
};

/* One entry of latency_bound's evidence.sizes, appended to sizes. */
static int append_lat_size(const struct cp_analysis *an,
                           const struct an_eval *x, json_t *sizes)
{
    json_t *o = json_object();

    if (!o || json_array_append_new(sizes, o) < 0)
        return -1;
    if (set(o, "op", json_string(det_coll_name(x->coll))) < 0 ||
        set(o, "comm", hex_id(an->comms[x->comm].id)) < 0 ||
        set(o, "link", json_string(cp_link_class_name(x->link))) < 0 ||
        set(o, "calls", json_integer((json_int_t)x->lat.calls)) < 0 ||
        set(o, "time_s", jnum(x->lat.time)) < 0 ||
        set(o, "min_bytes", jnum(x->lat.n_min)) < 0 ||
        set(o, "max_bytes", jnum(x->lat.n_max)) < 0 ||
        set(o, "n_half_bytes",
            jnum(x->sec_per_byte > 0 ? x->latency_s / x->sec_per_byte : NAN)) <
            0)
        return -1;
    return 0;
}

/* replicas of one data-parallel group (the same calls on communicators of
 * disjoint ranks: one per tensor- or pipeline-parallel position) run side
 * by side: the run's time they share is saved once, by the one that gains
 * most.  Files lat[i] into its group, its gain moved to the group's first. */
static void group_replica(const struct cp_analysis *an,
                          const struct an_eval *const *lat, size_t i,
                          double *gain, size_t *replica_of)
{
    const struct an_eval *x = lat[i];
    size_t j;

    for (j = 0; j < i; j++)
        if (lat[j]->coll == x->coll && lat[j]->lat.calls == x->lat.calls &&
            an->comms[lat[j]->comm].nranks == an->comms[x->comm].nranks &&
            fabs(lat[j]->lat.bytes - x->lat.bytes) <=
                1e-9 * fmax(1, x->lat.bytes) &&
            disjoint_comms(an, lat[j]->comm, x->comm))
            break;
    if (j < i) {
        /* j leads the group: keep the group's largest there */
        size_t lead = j;
        while (replica_of[lead] != lead)
            lead = replica_of[lead];
        replica_of[i] = lead;
        gain[lead] = fmax(gain[lead], gain[i]);
        gain[i] = 0;
    } else {
        replica_of[i] = i;
    }
}

/* f->saving: what fusing into f->bucket buckets saves, replicas counted
 * once; the first five sizes into f->sizes. */
static int fusion_saving(const struct cp_analysis *an, struct lat_fusion *f)
{
    double *gain = NULL;       /* per lat[i]: its saving */
    size_t *replica_of = NULL; /* per lat[i]: its group's first */
    size_t i;
    int rc = -1;

    gain = calloc(f->nlat, sizeof *gain);
    replica_of = malloc(f->nlat * sizeof *replica_of);
    if (!gain || !replica_of)
        goto out;
    for (i = 0; i < f->nlat; i++) {
        const struct an_eval *x = f->lat[i];
        double k = (double)x->lat.calls / f->steps,
               bytes = x->lat.bytes / f->steps;
        double m = fmax(1, ceil(bytes / f->bucket));
        double small = k * x->latency_s + bytes * x->sec_per_byte;
        double fused = m * x->latency_s + bytes * x->sec_per_byte;
        /* a member late inside each call adds its delay to every one,
         * which is not latency and which no bucket saves: taken off
         * first (3d, a rank 20 ms late inside its calls: 1.6 s of its
         * data-parallel ring's 1.64 s in 1-16 KiB all-reduces, and a
         * warning to fuse them) */
        double late =
            fmin((double)x->lat.calls * det_comm_member_delay(an, x->comm),
                 x->lat.time);
        f->discount += late;
        if (m < k && small > 0)
            gain[i] = (x->lat.time - late) * (1 - fused / small);
        group_replica(an, f->lat, i, gain, replica_of);
        if (i < 5 && append_lat_size(an, x, f->sizes) < 0)
            goto out;
    }
    f->saving = 0;
    for (i = 0; i < f->nlat; i++)
        f->saving += gain[i];
    rc = 0;
out:
    free(gain);
    free(replica_of);
    return rc;
}

/* The latency_bound finding of f, on the ranks of the marked
 * communicators. */
static int latency_finding(struct cp_analysis *an, const struct lat_fusion *f,
                           const unsigned char *marks)
{
    struct cp_analysis_summary *sm = &an->summary;
    struct det_who w = {0};
    json_t *e;
    double share = sm->latency_bound_share, saving = f->saving;
    double steps = f->steps, pct;
    enum cp_severity sev;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        b4[CP_UNITS_BUFSIZE], b5[CP_UNITS_BUFSIZE], what[160] = "";
    int rc = -1;

    pct = sm->comm_time_s > 0 ? saving / sm->comm_time_s : 0;
    sev = share >= LATENCY_CRITICAL && pct >= 0.25 ? CP_SEVERITY_CRITICAL
          : share >= LATENCY_WARNING || pct >= 0.10 ? CP_SEVERITY_WARNING
                                                    : CP_SEVERITY_INFO;
    snprintf(what, sizeof what, "%s %s-%s", det_coll_name(f->lat[0]->coll),
             cp_units_format_size(f->lat[0]->lat.n_min, b1, sizeof b1),
             cp_units_format_size(f->lat[0]->lat.n_max, b2, sizeof b2));
    if (f->nlat > 1)
        snprintf(what + strlen(what), sizeof what - strlen(what),
                 " and %zu more", f->nlat - 1);
    if (det_who_of_comms(an, marks, &w) < 0)
        goto out;
    if (det_add_finding(
            an, CP_KIND_LATENCY_BOUND, sev, w.ranks, w.nranks, w.nodes,
            w.nnodes,
            "%.0f%% of the communication time (%s of %s) is in "
            "latency-bound calls; %llu of them are data-parallel "
            "gradient all-reduces (%s): fusing them into %s buckets "
            "would save about %s per %s (%.0f%% of the communication "
            "time).",
            100 * share,
            cp_units_format_time(sm->latency_bound_s, b3, sizeof b3),
            cp_units_format_time(sm->comm_time_s, b4, sizeof b4),
            (unsigned long long)f->calls, what,
            cp_units_format_size(f->bucket, b1, sizeof b1),
            cp_units_format_time(saving / steps, b5, sizeof b5),
            sm->steps > 1 ? "step" : "run", 100 * pct) < 0)
        goto out;
    e = det_last_evidence(an);
    if (set(e, "share", jnum(share)) < 0 ||
        set(e, "latency_bound_s", jnum(sm->latency_bound_s)) < 0 ||
        set(e, "comm_time_s", jnum(sm->comm_time_s)) < 0 ||
        set(e, "calls", json_integer((json_int_t)f->calls)) < 0 ||
        set(e, "n_half_bytes", jnum(f->n_half)) < 0 ||
        set(e, "bucket_bytes", jnum(f->bucket)) < 0 ||
        set(e, "default_bucket_bytes", jnum(MIN_BUCKET)) < 0 ||
        set(e, "steps", sm->steps ? json_integer(sm->steps) : json_null()) < 0 ||
        set(e, "steps_method", json_string(sm->steps_method)) < 0 ||
        set(e, "saving_per_step_s", jnum(saving / steps)) < 0 ||
        set(e, "saving_s", jnum(saving)) < 0 ||
        set(e, "saving_share", jnum(pct)) < 0 ||
        set(e, "saving_run_share",
            jnum(sm->span_s > 0 ? saving / sm->span_s : NAN)) < 0 ||
        set(e, "straggler_discount_s", jnum(f->discount)) < 0 ||
        json_object_set(e, "sizes", f->sizes) < 0)
        goto out;
    rc = 0;
out:
    det_who_free(&w);
    return rc;
}

int det_latency_bound(struct cp_analysis *an, const struct detect_input *in)
{
    const struct an_eval *ev = in->ev;
    size_t nev = in->nev;
    struct cp_analysis_summary *sm = &an->summary;
    struct lat_fusion f = {0};
    unsigned char *marks = NULL;
    size_t i;
    int rc = -1;

    if (!(sm->latency_bound_share >= LATENCY_INFO))
        return 0;
    f.bucket = sm->bucket_bytes;
    f.steps = sm->steps ? sm->steps : 1;
    f.lat = malloc((nev ? nev : 1) * sizeof *f.lat);
    marks = calloc(an->ncomms + 1, 1);
    f.sizes = json_array();
    if (!f.lat || !marks || !f.sizes)
        goto out;
    for (i = 0; i < nev; i++)
        if (ev[i].have_model && !ev[i].weak && ev[i].lat.calls > 0 &&
            data_parallel_allreduce(an, &ev[i])) {
            f.lat[f.nlat++] = &ev[i];
            marks[ev[i].comm] = 1;
            f.calls += ev[i].lat.calls;
            if (ev[i].sec_per_byte > 0)
                f.n_half =
                    fmax(f.n_half, ev[i].latency_s / ev[i].sec_per_byte);
        }
    if (f.nlat == 0) {
        rc = 0;
        goto out;
    }
    qsort(f.lat, f.nlat, sizeof *f.lat, compare_lat_time);
    if (!(f.bucket > 0)) {
        /* DDP's 25 MiB, or 10 n_1/2 (latency under 10 % of the time) when
         * that is larger, in whole MiB */
        f.bucket = fmax(MIN_BUCKET, ceil(10 * f.n_half / 1048576) * 1048576);
    }
    if (fusion_saving(an, &f) < 0)
        goto out;
    /* nothing worth a change: no finding */
    if (!(f.saving >= GAIN_RUN * sm->span_s &&
          f.saving / f.steps >= GAIN_STEP)) {
        rc = 0;
        goto out;
    }
    sm->bucket_bytes = f.bucket;
    if (latency_finding(an, &f, marks) < 0)
        goto out;
    rc = 0;
out:
    json_decref(f.sizes);
    free(f.lat);
    free(marks);
    return rc;
}

/* NCCL's ring/tree choice against the model (algorithm_choice).  Per
 * communicator and direction (ring where tree is cheaper, or tree where
 * ring is), the size rows that qualify are summed into one finding. */
#define CHOICE_MIN_CALLS 8

#define CHOICE_DOMINANT 0.9

#define CHOICE_RATIO 0.5

struct choice_acc {
    uint64_t calls, rows;
    double time_s, saving_s, n_min, n_max;
    double chosen_model_s, other_model_s, measured_s; /* of the largest row */
    double row_calls;
    double alpha_s, bandwidth_Bps; /* the model of that row */
};

/* Size row r of communicator c into acc[dir] when NCCL ran one algorithm
 * for it (dir 0: ring, 1: tree) where the model finds the other clearly
 * cheaper. */
static void choice_row(const struct cp_analysis *an,
                       const struct cp_analysis_comm *c,
                       const struct cp_analysis_row *r, struct choice_acc *acc)
{
    const struct cp_coll_facts *facts = cp_model_coll_facts(r->coll);
    const struct cp_analysis_link *m;
    struct cp_model_params params;
    uint64_t known = 0, ring, tree;
    double n, t_ring, t_tree, t_chosen, t_other, measured;
    unsigned k;
    int dir;

    if (!facts || !facts->nccl_tree || c->nranks < 3 || r->calls == 0)
        return;
    for (k = 1; k < CP_ANALYSIS_ALGOS; k++)
        known += r->algo_calls[k];
    ring = r->algo_calls[1];
    tree = r->algo_calls[2];
    if (known < CHOICE_MIN_CALLS)
        return;
    if ((double)ring >= CHOICE_DOMINANT * (double)known)
        dir = 0;
    else if ((double)tree >= CHOICE_DOMINANT * (double)known)
        dir = 1;
    else
        return;
    m = &an->model[r->link];
    if (m->source == CP_SOURCE_NONE ||
        (m->source == CP_SOURCE_FIT && m->fit_weak) || !(m->alpha_s > 0) ||
        !(m->bandwidth_Bps > 0))
        return;
    memset(&params, 0, sizeof params);
    params.alpha = m->alpha_s;
    params.beta = 1 / m->bandwidth_Bps;
    n = r->bytes / (double)r->calls;
    t_ring = cp_model_time(r->coll, facts->nccl_algo, c->nranks, n, &params);
    t_tree = cp_model_time(r->coll, CP_ALGO_DOUBLE_BINARY_TREE, c->nranks, n,
                           &params);
    t_chosen = dir == 0 ? t_ring : t_tree;
    t_other = dir == 0 ? t_tree : t_ring;
    measured = r->p50_s;
    /* clearly cheaper by the model, and the calls did not already run as
     * fast as the other algorithm would */
    if (!(t_other > 0) || !(t_chosen > 0) ||
        t_other > CHOICE_RATIO * t_chosen || !(measured > t_other))
        return;
    acc += dir;
    if (acc->rows == 0 || n < acc->n_min)
        acc->n_min = n;
    if (n > acc->n_max)
        acc->n_max = n;
    acc->rows++;
    acc->calls += r->calls;
    acc->time_s += r->time_s;
    /* the model gives the fraction, the measurement the scale */
    acc->saving_s += r->time_s * (1 - t_other / t_chosen);
    if ((double)r->calls > acc->row_calls) {
        acc->row_calls = (double)r->calls;
        acc->chosen_model_s = t_chosen;
        acc->other_model_s = t_other;
        acc->measured_s = measured;
        acc->alpha_s = m->alpha_s;
        acc->bandwidth_Bps = m->bandwidth_Bps;
    }
}

/* The algorithm_choice finding of communicator c, direction dir, from
 * its rows summed in a. */
static int choice_finding(struct cp_analysis *an,
                          const struct cp_analysis_comm *c, int dir,
                          const struct choice_acc *a)
{
    const char *chosen = dir == 0 ? "Ring" : "Tree";
    const char *other = dir == 0 ? "Tree" : "Ring";
    double share = an->summary.comm_time_s > 0
                       ? a->saving_s / an->summary.comm_time_s
                       : 0;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        b4[CP_UNITS_BUFSIZE], b5[CP_UNITS_BUFSIZE], b6[CP_UNITS_BUFSIZE],
        cname[24];
    json_t *e;

    if (c->name[0])
        snprintf(cname, sizeof cname, "%s", c->name);
    else
        snprintf(cname, sizeof cname, "%016" PRIx64, c->id);
    if (det_add_finding(
            an, CP_KIND_ALGORITHM_CHOICE,
            share >= 0.10 ? CP_SEVERITY_WARNING : CP_SEVERITY_INFO, NULL, 0,
            c->nodes, c->nnodes,
            "NCCL ran %s for %" PRIu64 " all-reduces of %s to %s on "
            "communicator %s (%u ranks), where by the model with the "
            "job's alpha and beta %s is clearly cheaper: at the most "
            "frequent size the model gives %s for %s against %s for "
            "%s, and the calls took %s (median); %s would save about "
            "%s (%.0f%% of the communication time); evidence: the "
            "NCCL profiler plugin's algorithm records.",
            chosen, a->calls, cp_units_format_size(a->n_min, b1, sizeof b1),
            cp_units_format_size(a->n_max, b2, sizeof b2), cname, c->nranks,
            other, cp_units_format_time(a->other_model_s, b3, sizeof b3), other,
            cp_units_format_time(a->chosen_model_s, b4, sizeof b4), chosen,
            cp_units_format_time(a->measured_s, b5, sizeof b5), other,
            cp_units_format_time(a->saving_s, b6, sizeof b6), 100 * share) < 0)
        return -1;
    e = det_last_evidence(an);
    if (set(e, "method", json_string("nccl_profiler_algorithms")) < 0 ||
        set(e, "comm", json_string(cname)) < 0 ||
        set(e, "comm_nranks", jnum((double)c->nranks)) < 0 ||
        set(e, "algorithm", json_string(chosen)) < 0 ||
        set(e, "cheaper_algorithm", json_string(other)) < 0 ||
        set(e, "calls", jnum((double)a->calls)) < 0 ||
        set(e, "bytes_min", jnum(a->n_min)) < 0 ||
        set(e, "bytes_max", jnum(a->n_max)) < 0 ||
        set(e, "model_chosen_s", jnum(a->chosen_model_s)) < 0 ||
        set(e, "model_cheaper_s", jnum(a->other_model_s)) < 0 ||
        set(e, "measured_p50_s", jnum(a->measured_s)) < 0 ||
        set(e, "time_s", jnum(a->time_s)) < 0 ||
        set(e, "saving_s", jnum(a->saving_s)) < 0 ||
        set(e, "saving_share", jnum(share)) < 0 ||
        set(e, "alpha_s", jnum(a->alpha_s)) < 0 ||
        set(e, "bandwidth_Bps", jnum(a->bandwidth_Bps)) < 0)
        return -1;
    return 0;
}

int det_algorithm_choice(struct cp_analysis *an, const struct detect_input *in)
{
    size_t ci, i;

    for (ci = 0; ci < an->ncomms; ci++) {
        const struct cp_analysis_comm *c = &an->comms[ci];
        struct choice_acc acc[2]; /* 0: ran ring, tree cheaper; 1: reverse */
        int dir;

        memset(acc, 0, sizeof acc);
        for (i = 0; i < an->nrows; i++)
            if (an->rows[i].comm == ci)
                choice_row(an, c, &an->rows[i], acc);
        for (dir = 0; dir < 2; dir++)
            if (acc[dir].rows > 0 && choice_finding(an, c, dir, &acc[dir]) < 0)
                return -1;
    }
    return 0;
}

int det_model_unavailable(struct cp_analysis *an, const struct detect_input *in)
{
    const struct an_eval *ev = in->ev;
    size_t nev = in->nev;
    unsigned k;
    size_t i;

    for (k = 0; k < CP_LINK_COUNT; k++) {
        uint64_t calls = 0;
        for (i = 0; i < nev; i++)
            if (ev[i].link == k)
                calls += ev[i].lat.calls + ev[i].bw.calls;
        if (calls == 0 || an->model[k].source != CP_SOURCE_NONE)
            continue;
        if (det_add_finding(
                an, CP_KIND_MODEL_UNAVAILABLE, CP_SEVERITY_INFO, NULL, 0, NULL,
                0,
                "No %s-node model: %s; give its alpha and bandwidth "
                "in a profile (--profile) to judge these %llu calls.",
                k == CP_LINK_INTER ? "inter" : "intra",
                an->model[k].fit_why[0] ? an->model[k].fit_why
                                        : "the fit failed",
                (unsigned long long)calls) < 0)
            return -1;
        if (set(det_last_evidence(an), "link",
                json_string(cp_link_class_name(k))) < 0 ||
            set(det_last_evidence(an), "calls",
                json_integer((json_int_t)calls)) < 0)
            return -1;
    }
    return 0;
}
