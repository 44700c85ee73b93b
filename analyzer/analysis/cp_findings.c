/* cp_findings.c - what is wrong, with its evidence.
 *
 * The kinds, their titles, rules and severities are the table of
 * core/cp_kinds.c (docs/analysis.md, "Findings", lists the same); each
 * detector below emits one or two of them, low_busbw with
 * evidence.tcp_fallback when an order of magnitude below on the network,
 * straggler and slow_link with the slow-link analysis of cp_links.c;
 * slow_link also from the NCCL profiler plugin's proxy steps
 * (evidence.method proxy_steps, cp_ncclview.c).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"
#include "cp_links.h"
#include "cp_ncclview.h"
#include "cp_stats.h"
#include "cp_units.h"

#define LATENCY_INFO 0.10
#define LATENCY_WARNING 0.25
#define LATENCY_CRITICAL 0.50
#define BUSBW_LOW 0.5      /* measured / model busbw */
#define BUSBW_TCP 0.15     /* an order of magnitude below */
/* the same of the fast calls (per size bucket the 10 % quantile) against
 * a model: a slow network holds them down too */
#define BUSBW_FAST 0.7
/* measured / busbw at the NICs' port rate: far below (the CPU NCCL's
 * healthy runs reach 0.3-0.9 of it on a loaded machine, copies and pacing
 * included; a ring with one link at a quarter 0.2-0.25) */
#define BUSBW_FAR_BELOW 0.27
/* a latency per step no fabric reaches (InfiniBand and RoCE: a few us,
 * TCP tens): without a model, the calls judged against the port rate are
 * those whose wire time is at least their latency term at it */
#define ALPHA_MAX 100e-6
#define MIN_BUCKET (25.0 * 1048576) /* PyTorch DDP's default bucket_cap_mb */
#define GAIN_RUN 0.01  /* advice only when it saves 1 % of the run ... */
#define GAIN_STEP 1e-3 /* ... and 1 ms per step */

__attribute__((format(printf, 8, 9))) static int
add_finding(struct cp_analysis *an, enum cp_kind kind,
            enum cp_severity sev,
            const int *ranks, size_t nranks, const unsigned *nodes,
            size_t nnodes, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return an_add_finding(an, kind, sev, ranks, nranks, nodes, nnodes, msg);
}


static json_t *last_evidence(struct cp_analysis *an)
{
    return an->findings[an->nfindings - 1].evidence;
}

/* The slow_link finding that names nodes a and b (with method, one whose
 * evidence.method is that), or NULL. */
static const struct cp_analysis_finding *
named_pair(const struct cp_analysis *an, unsigned a, unsigned b,
           const char *method)
{
    size_t i;

    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        const char *m;
        if (f->kind != CP_KIND_SLOW_LINK ||
            f->nnodes != 2 ||
            !((f->nodes[0] == a && f->nodes[1] == b) ||
              (f->nodes[0] == b && f->nodes[1] == a)))
            continue;
        m = json_string_value(json_object_get(f->evidence, "method"));
        if (!method || (m && strcmp(m, method) == 0))
            return f;
    }
    return NULL;
}

/* What the probe measured of pair p (probe_state, its bandwidth and
 * efficiency, the probe's file) into a slow_link's evidence e. */
static int probe_figures(json_t *e, const struct cp_analysis_pair *p,
                         const char *file)
{
    return set(e, "probe_state",
               json_string(p->probe_slow ? "slow" : "ok")) < 0 ||
                   set(e, "probe_bandwidth_Bps",
                       jnum(p->probe_bandwidth_Bps)) < 0 ||
                   set(e, "probe_efficiency", jnum(p->probe_efficiency)) < 0 ||
                   set(e, "probe_file", json_string(file)) < 0
               ? -1
               : 0;
}

/* Ranks and nodes of a set of communicators (marks[i] set). */
struct who {
    int *ranks;
    size_t nranks;
    unsigned *nodes;
    size_t nnodes;
};

/* The first index in an->ranks (sorted by global rank, unknown ones
 * last) of global rank g >= 0, or where it would be. */
static size_t first_of_rank(const struct cp_analysis *an, int g)
{
    size_t lo = 0, hi = an->nranks;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int m = an->ranks[mid].rank;
        if (m >= 0 && m < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int who_of_comms(const struct cp_analysis *an, const unsigned char *marks,
                        struct who *w)
{
    unsigned char *rank_seen = calloc(an->nranks + 1, 1);
    unsigned char *node_seen = calloc(an->nnodes + 1, 1);
    size_t i, r;
    int rc = -1;

    memset(w, 0, sizeof *w);
    w->ranks = malloc((an->nranks + 1) * sizeof *w->ranks);
    w->nodes = malloc((an->nnodes + 1) * sizeof *w->nodes);
    if (!rank_seen || !node_seen || !w->ranks || !w->nodes)
        goto out;
    for (i = 0; i < an->ncomms; i++) {
        const struct cp_analysis_comm *c = &an->comms[i];
        if (!marks[i])
            continue;
        for (r = 0; r < c->nnodes; r++)
            node_seen[c->nodes[r]] = 1;
        for (r = 0; r < c->nranks; r++) {
            size_t k;
            if (c->ranks[r] < 0)
                continue;
            for (k = first_of_rank(an, c->ranks[r]);
                 k < an->nranks && an->ranks[k].rank == c->ranks[r]; k++)
                rank_seen[k] = 1;
        }
    }
    for (i = 0; i < an->nranks; i++)
        if (rank_seen[i])
            w->ranks[w->nranks++] = an->ranks[i].rank;
    for (i = 0; i < an->nnodes; i++)
        if (node_seen[i])
            w->nodes[w->nnodes++] = (unsigned)i;
    rc = 0;
out:
    free(rank_seen);
    free(node_seen);
    return rc;
}

static void who_free(struct who *w)
{
    free(w->ranks);
    free(w->nodes);
}

static int compare_lat_time(const void *a, const void *b)
{
    const struct an_eval *x = *(const struct an_eval *const *)a;
    const struct an_eval *y = *(const struct an_eval *const *)b;
    return x->lat.time > y->lat.time ? -1 : x->lat.time < y->lat.time;
}

static const char *coll_name(enum cp_coll c)
{
    const char *n = cp_model_coll_name(c);
    return n ? n : "unknown";
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

static double comm_member_delay(const struct cp_analysis *an, size_t ci);

/* One entry of latency_bound's evidence.sizes, appended to sizes. */
static int append_lat_size(const struct cp_analysis *an,
                           const struct an_eval *x, json_t *sizes)
{
    json_t *o = json_object();

    if (!o || json_array_append_new(sizes, o) < 0)
        return -1;
    if (set(o, "op", json_string(coll_name(x->coll))) < 0 ||
        set(o, "comm", hex_id(an->comms[x->comm].id)) < 0 ||
        set(o, "link", json_string(cp_link_class_name(x->link))) < 0 ||
        set(o, "calls", json_integer((json_int_t)x->lat.calls)) < 0 ||
        set(o, "time_s", jnum(x->lat.time)) < 0 ||
        set(o, "min_bytes", jnum(x->lat.n_min)) < 0 ||
        set(o, "max_bytes", jnum(x->lat.n_max)) < 0 ||
        set(o, "n_half_bytes",
            jnum(x->sec_per_byte > 0 ? x->latency_s / x->sec_per_byte
                                     : NAN)) < 0)
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
        double late = fmin((double)x->lat.calls *
                               comm_member_delay(an, x->comm),
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
    struct who w = {0};
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
    snprintf(what, sizeof what, "%s %s-%s", coll_name(f->lat[0]->coll),
             cp_units_format_size(f->lat[0]->lat.n_min, b1, sizeof b1),
             cp_units_format_size(f->lat[0]->lat.n_max, b2, sizeof b2));
    if (f->nlat > 1)
        snprintf(what + strlen(what), sizeof what - strlen(what),
                 " and %zu more", f->nlat - 1);
    if (who_of_comms(an, marks, &w) < 0)
        goto out;
    if (add_finding(an, CP_KIND_LATENCY_BOUND, sev, w.ranks, w.nranks,
                    w.nodes, w.nnodes,
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
    e = last_evidence(an);
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
    who_free(&w);
    return rc;
}

/* What a detector is given besides the analysis: the model's evaluation
 * of every (communicator, slot), and one byte per node pair that the
 * slow-link detectors set for each pair a finding names. */
struct detect_input {
    const struct an_eval *ev;
    size_t nev;
    unsigned char *reported;
};

/* The latency-bound share, and the advice to fuse data-parallel gradient
 * all-reduces into buckets: only when it gains at least GAIN_RUN of the
 * run and GAIN_STEP per step (per run when the steps are unknown), and
 * only by a model that is not a weak fit (the saving is the model's). */
static int latency_bound(struct cp_analysis *an, const struct detect_input *in)
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

/* Whether the link analysis found a rank that delays its calls. */
static int in_call_straggler(const struct cp_analysis *an)
{
    size_t i;

    for (i = 0; i < an->nranks; i++)
        if (an->ranks[i].straggler)
            return 1;
    return 0;
}

/* The in-call delay that a member of communicator ci adds to each of its
 * calls: the largest of its members named stragglers by the link analysis,
 * or the delay its calls show of one member they cannot tell (0: none). */
static double comm_member_delay(const struct cp_analysis *an, size_t ci)
{
    const struct cp_analysis_comm *c = &an->comms[ci];
    double d = c->tied_delay_s > 0 ? c->tied_delay_s : 0;
    size_t i, q;

    for (i = 0; i < an->nranks; i++) {
        if (!an->ranks[i].straggler || !(an->ranks[i].delay_s > d))
            continue;
        for (q = 0; q < c->nranks; q++)
            if (c->ranks[q] == an->ranks[i].rank) {
                d = an->ranks[i].delay_s;
                break;
            }
    }
    return d;
}

/* What low_busbw weighs of one communicator's calls on one link class. */
struct busbw_judge {
    double fn, t, fast, mt, mt_ref, mt_wire; /* sums over the calls */
    double discount; /* seconds of a straggling member's delay taken off t
                      * and fast (0: none) */
    uint64_t calls;
    /* the NICs' rate: an absolute the fit cannot move */
    int ports;
    double busbw, model, ratio, link_Bps;
    int tcp;
    int unfitted; /* no model of the class: held against the wire alone */
};

/* j's sums over the evaluations of communicator ci on link class k. */
static void busbw_sums(const struct an_eval *ev, size_t nev, size_t ci,
                       unsigned k, const struct cp_analysis_link *m,
                       struct busbw_judge *j)
{
    size_t i;

    for (i = 0; i < nev; i++)
        if (ev[i].comm == ci && ev[i].link == k && ev[i].have_model) {
            j->fn += ev[i].bw.fn;
            j->t += ev[i].bw.duration;
            j->fast += ev[i].bw.fast_duration;
            j->mt += ev[i].bw.model_time;
            j->calls += ev[i].bw.judged_calls;
            /* at the NICs' rate: the wire time alone, and with the fitted
             * latency (which a busy host inflates) */
            if (j->ports) {
                double wire = ev[i].bw.judged_bytes * ev[i].sec_per_byte *
                              m->bandwidth_Bps / m->expected_Bps;
                j->mt_wire += wire;
                j->mt_ref +=
                    wire + (double)ev[i].bw.judged_calls * ev[i].latency_s;
            }
        }
}

/* j's sums over the evaluations of communicator ci on link class k held
 * against the NICs' port rate whatever the class's model (there may be
 * none: one size of call, no fit, no profile; or a fit to the same slow
 * calls that makes them latency-bound with an alpha of milliseconds): the
 * collectives whose every call's wire time at that rate is at least its
 * latency term at ALPHA_MAX per step (which no fabric's latency reaches),
 * so that, on a network that gives its rate, they take at most twice
 * their wire time; held against the wire alone (j->unfitted). */
static void busbw_sums_unfitted(const struct cp_analysis *an,
                                const struct an_eval *ev, size_t nev,
                                size_t ci, unsigned k, double rate_Bps,
                                struct busbw_judge *j)
{
    size_t i;

    for (i = 0; i < 2 * nev; i++) {
        struct cp_model_params params;
        struct cp_model_terms terms;
        const struct an_eval *e = &ev[i / 2];
        const struct an_group_stats *g = i % 2 ? &e->bw : &e->lat;
        if (e->comm != ci || e->link != k ||
            e->coll == CP_COLL_SENDRECV || g->judged_calls == 0)
            continue;
        memset(&params, 0, sizeof params);
        params.alpha = ALPHA_MAX;
        params.beta = 1 / rate_Bps;
        if (cp_model_terms(e->coll, cp_model_coll_facts(e->coll)->nccl_algo,
                           an->comms[ci].nranks, &params, &terms,
                           NULL) != 0 ||
            !(g->n_min * terms.sec_per_byte >= terms.latency_s))
            continue;
        j->fn += g->fn;
        j->t += g->duration;
        j->fast += g->fast_duration;
        j->mt_wire += g->judged_bytes * terms.sec_per_byte;
        j->calls += g->judged_calls;
    }
    j->mt = j->mt_ref = j->mt_wire;
    j->unfitted = 1;
}

/* Whether the link analysis named the pair of nodes a and b slow. */
static int pair_named_slow(const struct cp_analysis *an, unsigned a,
                           unsigned b)
{
    size_t i;

    for (i = 0; i < an->topology.npairs; i++) {
        const struct cp_analysis_pair *p = &an->topology.pairs[i];
        if ((p->a == a && p->b == b) || (p->a == b && p->b == a))
            return p->state == CP_PAIR_SLOW;
    }
    return 0;
}

/* Whether j's calls (communicator ci, link class k) make a low_busbw
 * finding; fills j's busbw, model, ratio, link_Bps and tcp. */
static int busbw_is_low(const struct cp_analysis *an, size_t ci, unsigned k,
                        struct busbw_judge *j)
{
    const struct cp_analysis_link *m = &an->model[k];
    const struct cp_analysis_comm *c = &an->comms[ci];

    j->link_Bps = m->bandwidth_Bps;
    if (j->calls < 3 || !(j->t > 0) || !(j->mt > 0) ||
        j->t < 0.01 * an->summary.comm_time_s)
        return 0;
    /* a member late inside its calls adds its delay to each of them: the
     * straggler explains that much before the network is judged (a
     * straggler of 10 ms made a healthy pair's 256 KiB all-reduces look
     * like 24 MB/s on a 200 MB/s network) */
    j->discount = (double)j->calls * comm_member_delay(an, ci);
    if (j->discount > 0) {
        if (!(j->fast > j->discount) || !(j->t > j->discount))
            return 0; /* the delay is all of their time */
        j->t -= j->discount;
        j->fast -= j->discount;
    }
    j->busbw = j->fn / j->t;
    j->model = j->fn / j->mt;
    j->ports = j->ports && j->mt_ref > 0 && j->mt_wire > 0 && j->fast > 0;
    if (j->ports) {
        /* against the NICs' rate, an absolute the whole job is held to:
         * far below it on average and in the fast calls (a busy host or a
         * member late inside its calls slows some calls by several times,
         * a slow network every one), with the fitted latency; or an order
         * of magnitude below the wire alone in the fast calls (TCP
         * fallback, however inflated the fit's latency) */
        double wire_ratio = j->mt_wire / j->fast;
        j->model = j->fn / j->mt_ref;
        j->link_Bps = m->expected_Bps;
        if (wire_ratio < BUSBW_TCP) {
            j->busbw = j->fn / j->fast;
            j->model = j->fn / j->mt_wire;
        } else if (j->unfitted || !(j->mt_ref / j->fast < BUSBW_FAR_BELOW)) {
            /* without a model only an order of magnitude speaks (a
             * healthy network gives 0.3-0.9 of the rate) */
            return 0;
        }
    }
    j->ratio = j->busbw / j->model;
    if (!(j->ratio < (j->ports ? BUSBW_FAR_BELOW : BUSBW_LOW)))
        return 0;
    /* against a model, the fast calls too: a slow network slows every
     * call, a busy host (8 ranks on 2 shared cores: 256 KiB all-reduces
     * of 1.5 to 12 ms on a 200 MB/s network whose wire takes 1.3) some of
     * them; calls that reached the model's rate at times leave the mean
     * to the host */
    if (!j->ports && !(j->fn / j->fast < BUSBW_FAST * j->model))
        return 0;
    /* a rank delaying its calls slows every busbw it touches, and its
     * waits spread through the job: against the ports only an order of
     * magnitude still speaks of the network then */
    if (j->ports && in_call_straggler(an) && !(j->ratio < BUSBW_TCP))
        return 0;
    j->tcp = j->ratio < BUSBW_TCP && k == CP_LINK_INTER;
    /* a slow link, a straggler or a slow ring with candidates has its own
     * finding; a whole network an order of magnitude below its rate is
     * still this one's */
    if (c->explained && !j->tcp)
        return 0;
    /* nor is a pair's: a communicator of two nodes whose link is named
     * slow has that finding (pp, n1-n3 at 1/9: a critical slow_link, and
     * each of the pair's two communicators a critical TCP fallback) */
    if (c->explained && c->nnodes == 2 &&
        pair_named_slow(an, c->nodes[0], c->nodes[1]))
        return 0;
    /* against a fit, a communicator that the link analysis held against
     * the same calls elsewhere in the job has been judged there (slow_link,
     * slow_link_candidates, or not slow: the fit of one line through every
     * call is the weaker reference); a profile is the site's word and is
     * always held against */
    if (m->source == CP_SOURCE_FIT && !j->ports && c->peers_ok != 0)
        return 0;
    return 1;
}

/* Append a sentence to f's message.  -1: out of memory. */
static int append_message(struct cp_analysis_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A whole network an order of magnitude below its rate (j->tcp) is one
 * cause: the slow_link_candidates warning of the same communicator's
 * ring, which says one of its links is slow, is the same figure seen
 * link by link (moe with the fabric at 1/10, two busy loops: a critical
 * low_busbw and a warning "its allreduce of 1 MiB take 12x the time at
 * the reference" on the same 8 calls).  A ring cannot tell one slow link
 * from all of them (ddp's one ring over a link at 1/8 looks the same), so
 * the finding keeps the candidates: the warning is merged into the
 * low_busbw finding e (evidence "ring", and a sentence that asks for the
 * probe), and *merged says so.  0 or -1. */
static int merge_ring(struct cp_analysis *an, size_t ci, json_t *e,
                      int *merged)
{
    char id[17];
    size_t i;

    *merged = 0;
    snprintf(id, sizeof id, "%016llx", (unsigned long long)an->comms[ci].id);
    for (i = 0; i < an->nfindings; i++) {
        struct cp_analysis_finding *f = &an->findings[i];
        const char *c = json_string_value(json_object_get(f->evidence, "comm"));
        if (f->kind != CP_KIND_SLOW_LINK_CANDIDATES ||
            f->severity == CP_SEVERITY_INFO || !c || strcmp(c, id) != 0)
            continue;
        if (json_object_set(e, "ring", f->evidence) < 0)
            return -1;
        an_drop_finding(an, i);
        *merged = 1;
        return 0;
    }
    return 0;
}

/* The low_busbw finding of j (communicator ci, link class k); marks: one
 * byte per communicator, scratch. */
static int busbw_finding(struct cp_analysis *an, unsigned char *marks,
                         size_t ci, unsigned k, const struct busbw_judge *j)
{
    const struct cp_analysis_link *m = &an->model[k];
    const struct cp_analysis_comm *c = &an->comms[ci];
    struct who w = {0};
    json_t *e;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE];
    int rc = -1;

    memset(marks, 0, an->ncomms);
    marks[ci] = 1;
    if (who_of_comms(an, marks, &w) < 0)
        goto out;
    if (add_finding(
            an, CP_KIND_LOW_BUSBW,
            /* a weak fit is no ground for a warning */
            m->source == CP_SOURCE_FIT && m->fit_weak && !j->ports
                ? CP_SEVERITY_INFO
            : j->ratio < BUSBW_TCP ? CP_SEVERITY_CRITICAL
                                   : CP_SEVERITY_WARNING,
            w.ranks, w.nranks, w.nodes, w.nnodes,
            "%s bandwidth-bound calls on communicator %016llx (%u ranks, "
            "%u nodes) reach a busbw of %s%s, %.0f%% of the %s the model "
            "expects at their sizes (link %s, from the %s)%s.",
            k == CP_LINK_INTER ? "Inter-node" : "Intra-node",
            (unsigned long long)c->id, c->nranks, c->nnodes,
            cp_units_format_bandwidth(j->busbw, b1, sizeof b1),
            j->ports && j->busbw != j->fn / j->t ? " in their fastest calls"
                                                 : "",
            100 * j->ratio,
            cp_units_format_bandwidth(j->model, b2, sizeof b2),
            cp_units_format_bandwidth(j->link_Bps, b3, sizeof b3),
            j->ports ? "NICs' port rate" : cp_link_source_name(m->source),
            j->tcp ? ": TCP fallback suspected (an order of magnitude below "
                     "the network's rate)"
            : j->ratio < BUSBW_TCP ? ": an order of magnitude below the link"
                                   : "") < 0)
        goto out;
    e = last_evidence(an);
    if (j->tcp) {
        int merged;
        if (merge_ring(an, ci, e, &merged) < 0)
            goto out;
        if (merged && append_message(
                          &an->findings[an->nfindings - 1],
                          " Its ring's calls alone cannot tell this from "
                          "one slow link among its %zu (evidence: ring); "
                          "'%s' measures each pair.",
                          json_array_size(json_object_get(
                              json_object_get(e, "ring"), "candidates")),
                          json_string_value(json_object_get(
                              json_object_get(e, "ring"), "probe"))
                              ?: "collprof probe") < 0)
            goto out;
    }
    if (set(e, "comm", hex_id(c->id)) < 0 ||
        set(e, "link", json_string(cp_link_class_name(k))) < 0 ||
        set(e, "calls", json_integer((json_int_t)j->calls)) < 0 ||
        set(e, "time_s", jnum(j->t)) < 0 ||
        set(e, "busbw_Bps", jnum(j->busbw)) < 0 ||
        set(e, "model_busbw_Bps", jnum(j->model)) < 0 ||
        set(e, "ratio", jnum(j->ratio)) < 0 ||
        set(e, "mean_busbw_Bps", jnum(j->fn / j->t)) < 0 ||
        set(e, "fast_calls",
            json_boolean(j->ports && j->busbw != j->fn / j->t)) < 0 ||
        set(e, "link_bandwidth_Bps", jnum(m->bandwidth_Bps)) < 0 ||
        set(e, "expected_Bps", jnum(m->expected_Bps)) < 0 ||
        set(e, "source",
            json_string(cp_link_source_name(
                j->ports ? CP_SOURCE_PORTS : m->source))) < 0 ||
        set(e, "tcp_fallback", json_boolean(j->tcp)) < 0 ||
        set(e, "straggler_discount_s", jnum(j->discount)) < 0)
        goto out;
    rc = 0;
out:
    who_free(&w);
    return rc;
}

static const char *pair_text(const struct cp_analysis *an,
                             const struct cp_analysis_pair *p, char *buf,
                             size_t len);
static json_t *endpoint_ports(const struct cp_analysis *an, unsigned a,
                              unsigned b);

/* The low busbw of communicators that one link explains, per node pair. */
struct busbw_link {
    double fn, t, mt; /* sums: f n, the time busbw holds (fn / busbw), the
                       * model's (fn / model busbw) */
    uint64_t calls;
    unsigned comms;
    int ports;    /* all held against the NICs' port rate */
    json_t *list; /* the communicators' figures */
};

/* The node pair (index into an->topology.pairs) whose link alone explains
 * j's low busbw (communicator ci, link class k), or -1: a communicator
 * between two nodes only, all its members seen, a warning short of TCP
 * fallback, the pair not cleared by the link analysis (nor by the probe)
 * and each of its two nodes with another link that ran at full speed in
 * the job's calls (a host or NIC of its own would slow that one too). */
static long busbw_one_link(const struct cp_analysis *an, size_t ci, unsigned k,
                           const struct busbw_judge *j)
{
    const struct cp_analysis_topology *topo = &an->topology;
    const struct cp_analysis_comm *c = &an->comms[ci];
    const struct cp_analysis_link *m = &an->model[k];
    int ok_a = 0, ok_b = 0;
    long pi = -1;
    size_t i;

    if (k != CP_LINK_INTER || j->tcp || c->nnodes != 2 || c->missing ||
        (m->source == CP_SOURCE_FIT && m->fit_weak && !j->ports))
        return -1;
    for (i = 0; i < topo->npairs; i++) {
        const struct cp_analysis_pair *p = &topo->pairs[i];
        int mine = p->a == c->nodes[0] && p->b == c->nodes[1];
        if (mine) {
            pi = (long)i;
            continue;
        }
        if (p->state != CP_PAIR_OK)
            continue;
        ok_a |= p->a == c->nodes[0] || p->b == c->nodes[0];
        ok_b |= p->a == c->nodes[1] || p->b == c->nodes[1];
    }
    if (pi < 0 || !ok_a || !ok_b || topo->pairs[pi].state == CP_PAIR_OK ||
        topo->pairs[pi].state == CP_PAIR_SLOW ||
        (topo->pairs[pi].probed && !topo->pairs[pi].probe_slow))
        return -1;
    return pi;
}

static int busbw_link_add(struct cp_analysis *an, struct busbw_link *l,
                          size_t ci, const struct busbw_judge *j)
{
    json_t *o = json_object();

    if (!o || !l->list) {
        json_decref(o);
        return -1;
    }
    l->fn += j->fn;
    l->t += j->fn / j->busbw;
    l->mt += j->fn / j->model;
    l->calls += j->calls;
    l->comms++;
    an->comms[ci].explained = 1;
    if (set(o, "comm", hex_id(an->comms[ci].id)) < 0 ||
        set(o, "calls", json_integer((json_int_t)j->calls)) < 0 ||
        set(o, "busbw_Bps", jnum(j->busbw)) < 0 ||
        set(o, "model_busbw_Bps", jnum(j->model)) < 0 ||
        set(o, "ratio", jnum(j->ratio)) < 0 ||
        set(o, "straggler_discount_s", jnum(j->discount)) < 0 ||
        json_array_append_new(l->list, o) < 0)
        return -1;
    return 0;
}

/* The slow_link of pair pi whose communicators' busbw l holds
 * (evidence.method "busbw"). */
static int busbw_link_finding(struct cp_analysis *an, size_t pi,
                              struct busbw_link *l)
{
    int ports = l->ports;
    const struct cp_analysis_pair *p = &an->topology.pairs[pi];
    const struct cp_analysis_link *m = &an->model[CP_LINK_INTER];
    unsigned nodes[2] = {p->a, p->b}, cleared = 0;
    double busbw = l->fn / l->t, model = l->fn / l->mt, ratio = l->mt / l->t;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        name[160];
    json_t *e, *list = l->list;
    size_t i;

    l->list = NULL;
    for (i = 0; i < an->topology.npairs; i++) {
        const struct cp_analysis_pair *q = &an->topology.pairs[i];
        cleared += i != pi && q->state == CP_PAIR_OK &&
                   (q->a == p->a || q->b == p->a || q->a == p->b ||
                    q->b == p->b);
    }
    if (add_finding(
            an, CP_KIND_SLOW_LINK,
            ratio <= 0.25 ? CP_SEVERITY_CRITICAL : CP_SEVERITY_WARNING, NULL,
            0, nodes, 2,
            "The link between nodes %s and %s is slow: the %u "
            "communicator%s that cross it and no other link (%llu "
            "bandwidth-bound call%s) reach a busbw of %s, %.0f%% of the %s "
            "the model expects at their sizes (link %s, from the %s), while "
            "%u other link%s of these nodes ran at full speed.",
            an->nodes[p->a].name, an->nodes[p->b].name, l->comms,
            l->comms == 1 ? "" : "s", (unsigned long long)l->calls,
            l->calls == 1 ? "" : "s",
            cp_units_format_bandwidth(busbw, b1, sizeof b1), 100 * ratio,
            cp_units_format_bandwidth(model, b2, sizeof b2),
            cp_units_format_bandwidth(
                ports ? m->expected_Bps : m->bandwidth_Bps, b3, sizeof b3),
            ports ? "NICs' port rate" : cp_link_source_name(m->source),
            cleared, cleared == 1 ? "" : "s") < 0) {
        json_decref(list);
        return -1;
    }
    e = last_evidence(an);
    if (set(e, "link", json_string(pair_text(an, p, name, sizeof name))) < 0 ||
        set(e, "method", json_string("busbw")) < 0 ||
        set(e, "bandwidth_Bps", jnum(busbw)) < 0 ||
        set(e, "peer_bandwidth_Bps", jnum(model)) < 0 ||
        set(e, "efficiency", jnum(ratio)) < 0 ||
        set(e, "slowdown", jnum(1 / ratio)) < 0 ||
        set(e, "source",
            json_string(cp_link_source_name(ports ? CP_SOURCE_PORTS
                                                  : m->source))) < 0 ||
        set(e, "comms", list) < 0 ||
        set(e, "cleared_pairs", json_integer(cleared)) < 0 ||
        set(e, "slow_calls", json_integer((json_int_t)l->calls)) < 0 ||
        set(e, "weak", json_false()) < 0 ||
        set(e, "ports", endpoint_ports(an, p->a, p->b)) < 0)
        return -1;
    return 0;
}

/* Bandwidth-bound calls per (communicator, link class) against the model;
 * the communicators whose low busbw one link explains make one slow_link
 * of that link instead (busbw_one_link). */
static int low_busbw(struct cp_analysis *an, const struct detect_input *in)
{
    const struct an_eval *ev = in->ev;
    size_t nev = in->nev;
    unsigned char *marks = NULL;
    struct busbw_link *links = NULL;
    size_t ci, pi, np = an->topology.npairs;
    unsigned k;
    int rc = -1;

    marks = calloc(an->ncomms + 1, 1);
    links = calloc(np ? np : 1, sizeof *links);
    if (!marks || !links)
        goto out;
    for (ci = 0; ci < an->ncomms; ci++) {
        for (k = 0; k < CP_LINK_COUNT; k++) {
            const struct cp_analysis_link *m = &an->model[k];
            struct busbw_judge j = {0};

            j.ports = m->expected_source == CP_SOURCE_PORTS &&
                      m->expected_Bps > 0;
            int low = 0;

            if (m->source != CP_SOURCE_NONE || !j.ports) {
                busbw_sums(ev, nev, ci, k, m, &j);
                low = busbw_is_low(an, ci, k, &j);
            }
            if (!low && j.ports) {
                /* an order of magnitude below the port rate, whatever
                 * the model says of the calls */
                memset(&j, 0, sizeof j);
                j.ports = 1;
                busbw_sums_unfitted(an, ev, nev, ci, k, m->expected_Bps, &j);
                low = busbw_is_low(an, ci, k, &j);
            }
            if (low && (pi = (size_t)busbw_one_link(an, ci, k, &j)) !=
                           (size_t)-1) {
                if (!links[pi].list && !(links[pi].list = json_array()))
                    goto out;
                if (busbw_link_add(an, &links[pi], ci, &j) < 0)
                    goto out;
                links[pi].ports = links[pi].comms == 1 ? j.ports
                                  : links[pi].ports && j.ports;
                continue;
            }
            if (low && busbw_finding(an, marks, ci, k, &j) < 0)
                goto out;
        }
    }
    for (pi = 0; pi < np; pi++)
        if (links[pi].comms &&
            busbw_link_finding(an, pi, &links[pi]) < 0)
            goto out;
    rc = 0;
out:
    for (pi = 0; links && pi < np; pi++)
        json_decref(links[pi].list);
    free(links);
    free(marks);
    return rc;
}

/* The ranks of a communicator seen, for a finding. */
static int comm_ranks(const struct cp_analysis *an, unsigned ci, struct who *w)
{
    unsigned char *marks = calloc(an->ncomms + 1, 1);
    int rc;

    if (!marks)
        return -1;
    marks[ci] = 1;
    rc = who_of_comms(an, marks, w);
    free(marks);
    return rc;
}

/* The collective instances of the communicators global rank g is in
 * (*mine), and its fair share of last arrivals among them (*fair: each
 * communicator's instances over its ranks). */
static void collective_share(const struct cp_analysis *an, int g,
                             double *mine, double *fair)
{
    size_t ci, q;

    for (ci = 0; ci < an->ncomms; ci++) {
        const struct cp_analysis_comm *c = &an->comms[ci];
        for (q = 0; q < c->nranks; q++)
            if (c->ranks[q] == g && c->nranks >= 2) {
                *mine += (double)c->instances;
                *fair += (double)c->instances / (double)c->nranks;
                break;
            }
    }
}

/* How much less time rank index i spent in NCCL than the median of the
 * others (what they waited for it; its lateness counts only its lead over
 * the rank before it at each call, which the others' own jitter eats:
 * fsdp's rank 3 ms late at each of 63 calls led by 46 ms in all while the
 * others spent 290 ms more in their calls); NaN when unknown. */
static double others_waited(const struct cp_analysis *an, size_t i)
{
    double *v = malloc((an->nranks ? an->nranks : 1) * sizeof *v), d = NAN;
    size_t k, n = 0;

    if (!v)
        return NAN;
    for (k = 0; k < an->nranks; k++)
        if (k != i && isfinite(an->ranks[k].time_s))
            v[n++] = an->ranks[k].time_s;
    if (n)
        d = cp_stats_median(v, n) - an->ranks[i].time_s;
    free(v);
    return d;
}

/* Communicators delayed inside their calls by a member the calls cannot
 * point at (cp_links.c: every member's bound the same, their other
 * communicators no help): one of them is a straggler, which the verdict
 * says without naming one (info: a guess is no warning). */
static int tied_stragglers(struct cp_analysis *an)
{
    size_t ci, q;
    char b1[CP_UNITS_BUFSIZE];

    for (ci = 0; ci < an->ncomms; ci++) {
        const struct cp_analysis_comm *c = &an->comms[ci];
        struct who w = {0};
        int named = 0, rc;
        if (!(c->tied_delay_s > 0))
            continue;
        for (q = 0; q < c->nranks; q++) {
            size_t i;
            if (c->ranks[q] < 0)
                continue;
            for (i = first_of_rank(an, c->ranks[q]);
                 i < an->nranks && an->ranks[i].rank == c->ranks[q]; i++)
                named |= an->ranks[i].straggler;
        }
        if (named)
            continue;
        if (comm_ranks(an, (unsigned)ci, &w) < 0)
            return -1;
        rc = add_finding(
            an, CP_KIND_STRAGGLER, CP_SEVERITY_INFO, w.ranks, w.nranks,
            w.nodes, w.nnodes,
            "Every collective of communicator %016llx (%u ranks) takes "
            "%s longer than the same calls elsewhere in the job, whatever "
            "its size: one of its ranks starts its part late (its GPU or "
            "host, not the network), but neither these calls nor its ranks' "
            "other communicators tell which.",
            (unsigned long long)c->id, c->nranks,
            cp_units_format_time(c->tied_delay_s, b1, sizeof b1));
        who_free(&w);
        if (rc < 0 ||
            set(last_evidence(an), "kind", json_string("in_call_unresolved")) <
                0 ||
            set(last_evidence(an), "comm", hex_id(c->id)) < 0 ||
            set(last_evidence(an), "in_call_delay_s", jnum(c->tied_delay_s)) <
                0)
            return -1;
    }
    return 0;
}

/* The node whose clock correction is known least well: the widest bounds
 * of a significant offset (*width), or SIZE_MAX when no clock was
 * corrected.  The arrivals of ranks on it are known to within that width:
 * a lead under it may be the correction's error, not the rank (fsdp with
 * n3's clock 7.6 ms behind, corrected by 6.65 ms, bounds 1.83 ms wide, two
 * busy loops: rank 3 led by 1.33 ms on average as judged, by 0.51 ms in
 * the logs with the true offset taken off). */
static size_t widest_correction(const struct cp_analysis *an, double *width)
{
    size_t i, node = SIZE_MAX;

    *width = 0;
    for (i = 0; i < an->nnodes; i++) {
        const struct cp_analysis_node *nd = &an->nodes[i];
        double w = nd->offset_high_s - nd->offset_low_s;
        if (nd->offset_significant && w > *width) {
            *width = w;
            node = i;
        }
    }
    return node;
}

/* The rank that arrives last at most collectives (its lateness is
 * excluded from the own times already), or SIZE_MAX; *total: the
 * lateness of all ranks. */
static size_t last_arriver(const struct cp_analysis *an, double *total)
{
    const struct cp_analysis_summary *sm = &an->summary;
    size_t i, worst = SIZE_MAX;

    *total = 0;
    for (i = 0; i < an->nranks; i++) {
        *total += an->ranks[i].late_s;
        if (worst == SIZE_MAX || an->ranks[i].late_s > an->ranks[worst].late_s)
            worst = i;
    }
    /* with ranks missing, the rank seen last may be waiting for one that
     * left no log: arrivals are not judged */
    if (worst != SIZE_MAX && an->nranks >= 2 && sm->nmissing == 0) {
        const struct cp_analysis_rank *r = &an->ranks[worst];
        double mine = 0, fair = 0;
        collective_share(an, r->rank, &mine, &fair);
        /* last at twice its fair share of its collectives (1/n of each
         * communicator's of n ranks that it is in): a rank descheduled
         * now and then on a busy host is last at a few calls by a lot
         * (10 of 87 by 23 ms on average), a straggler at most of them;
         * at 10 of them at least, or at 3/4 of them when it is in few
         * (pp's stages make 3 collectives a step) */
        /* and it holds most of the lateness, which costs 5 % of the
         * calls' time; or a third of it while the others spent 10 % more
         * time in NCCL than it did (waiting for it: its lead over the
         * rank before it at each call is eaten by the others' jitter) */
        if (!((double)r->last_arrivals >= 2.0 * fair) ||
            !(r->last_arrivals >= 10 ||
              (r->last_arrivals >= 6 &&
               (double)r->last_arrivals >= 0.75 * mine)) ||
            !((r->late_s >= 0.5 * *total &&
               r->late_s >= 0.05 * (sm->comm_time_s + sm->skew_time_s)) ||
              (r->late_s >= *total / 3 &&
               others_waited(an, worst) >=
                   0.10 * (sm->comm_time_s + sm->skew_time_s))))
            worst = SIZE_MAX;
    } else {
        worst = SIZE_MAX;
    }
    return worst;
}

/* The finding of *worst, the rank last at most collectives, whose
 * lateness is total's largest part; *worst becomes SIZE_MAX when the
 * clocks' correction cannot tell its lead and its in-call delay names it
 * instead. */
static int arrival_finding(struct cp_analysis *an, size_t *worst,
                           double total)
{
    const struct cp_analysis_summary *sm = &an->summary;
    const struct cp_analysis_rank *r = &an->ranks[*worst];
    double mean_late, clock_err = 0;
    size_t err_node;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        tail[256];
    int unsure;
    json_t *e;

    mean_late = r->late_s / (double)r->last_arrivals;
    err_node = widest_correction(an, &clock_err);
    unsure = err_node != SIZE_MAX && !(mean_late >= clock_err);
    /* a delay inside its calls is timed on the rank's own clock: the
     * in-call finding names it whatever the correction's error */
    if (unsure && r->straggler) {
        *worst = SIZE_MAX;
        return 0;
    }
    if (unsure)
        snprintf(tail, sizeof tail,
                 ", but node %s's clock was corrected by an offset known "
                 "only to within %s, more than that lead: the arrivals "
                 "cannot say whether it is the rank or the correction.",
                 an->nodes[err_node].name,
                 cp_units_format_time(clock_err, b3, sizeof b3));
    if (add_finding(an, CP_KIND_STRAGGLER,
                    unsure ? CP_SEVERITY_INFO
                    : r->late_s >= sm->comm_time_s ? CP_SEVERITY_CRITICAL
                                                   : CP_SEVERITY_WARNING,
                    &r->rank, 1, &r->node, 1,
                    "Rank %d (node %s) %sarrived last at %llu collectives, "
                    "on average %s after the rank before it (%s in all)%s",
                    r->rank, an->nodes[r->node].name,
                    unsure ? "may be late: it " : "",
                    (unsigned long long)r->last_arrivals,
                    cp_units_format_time(mean_late, b1, sizeof b1),
                    cp_units_format_time(r->late_s, b2, sizeof b2),
                    unsure ? tail
                           : ": the others waited for it, which points at "
                             "its compute or input, not at the network.") <
        0)
        return -1;
    e = last_evidence(an);
    if (err_node != SIZE_MAX &&
        set(e, "clock_error_s", jnum(clock_err)) < 0)
        return -1;
    if (set(e, "kind", json_string("arrival")) < 0 ||
        set(e, "last_arrivals",
            json_integer((json_int_t)r->last_arrivals)) < 0 ||
        set(e, "last_share",
            jnum(sm->instances ? (double)r->last_arrivals /
                                     (double)sm->instances
                               : NAN)) < 0 ||
        set(e, "late_s", jnum(r->late_s)) < 0 ||
        set(e, "mean_late_s", jnum(mean_late)) < 0 ||
        set(e, "lateness_share", jnum(total > 0 ? r->late_s / total : NAN)) < 0 ||
        set(e, "wait_time_s", jnum(sm->wait_time_s)) < 0 ||
        set(e, "in_call_delay_s",
            jnum(r->straggler ? r->delay_s : NAN)) < 0 ||
        set(e, "cost_s",
            jnum(total > 0 ? sm->wait_time_s * r->late_s / total +
                                 (r->straggler ? r->delay_cost_s : 0)
                           : NAN)) < 0)
        return -1;
    return 0;
}

/* The finding of rank r, named by the link analysis for a delay inside
 * its calls. */
static int in_call_finding(struct cp_analysis *an,
                           const struct cp_analysis_rank *r)
{
    const struct cp_analysis_summary *sm = &an->summary;
    unsigned comms = 0, intra = 0;
    size_t ci, k;
    enum cp_severity sev;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE];
    json_t *e;

    for (ci = 0; ci < an->ncomms; ci++)
        for (k = 0; k < an->comms[ci].nranks; k++)
            if (an->comms[ci].ranks[k] == r->rank) {
                comms++;
                intra += an->comms[ci].link == CP_LINK_INTRA;
                break;
            }
    sev = r->delay_cost_s >= sm->comm_time_s ? CP_SEVERITY_CRITICAL
                                             : CP_SEVERITY_WARNING;
    if (r->tie_units > 0 && r->tie_comm >= 0 &&
        (size_t)r->tie_comm < an->ncomms) {
        const struct cp_analysis_comm *tc = &an->comms[r->tie_comm];
        if (add_finding(an, CP_KIND_STRAGGLER, sev,
                        &r->rank, 1, &r->node, 1,
                        "Rank %d (node %s) delays its collectives by %s: "
                        "every call of communicator %016llx (%u ranks) "
                        "takes that much longer than the same calls "
                        "elsewhere in the job, whatever its size, and of "
                        "its members only rank %d's other communicators "
                        "show it (at %u of their call sizes: it hides "
                        "where the rank enters a call that much ahead of "
                        "the others); the others waited %s for it in "
                        "all; that points at its GPU or host, not at the "
                        "network.",
                        r->rank, an->nodes[r->node].name,
                        cp_units_format_time(r->delay_s, b1, sizeof b1),
                        (unsigned long long)tc->id, tc->nranks, r->rank,
                        r->tie_units,
                        cp_units_format_time(r->delay_cost_s, b2,
                                             sizeof b2)) < 0 ||
            set(last_evidence(an), "tied_comm", hex_id(tc->id)) < 0 ||
            set(last_evidence(an), "shown_units",
                json_integer((json_int_t)r->tie_units)) < 0)
            return -1;
    } else if (add_finding(an, CP_KIND_STRAGGLER, sev,
                    &r->rank, 1, &r->node, 1,
                    "Rank %d (node %s) delays every collective it is in "
                    "by %s: its calls start on time but take that much "
                    "longer than the same calls elsewhere in the job, "
                    "whatever their size, on its %u communicators "
                    "(%u inside its node), and the others waited %s for "
                    "it in all; that points at its GPU or host, not at "
                    "the network.",
                    r->rank, an->nodes[r->node].name,
                    cp_units_format_time(r->delay_s, b1, sizeof b1),
                    comms, intra,
                    cp_units_format_time(r->delay_cost_s, b2,
                                         sizeof b2)) < 0)
        return -1;
    e = last_evidence(an);
    if (set(e, "kind", json_string("in_call")) < 0 ||
        set(e, "last_arrivals",
            json_integer((json_int_t)r->last_arrivals)) < 0 ||
        set(e, "late_s", jnum(r->late_s)) < 0 ||
        set(e, "mean_late_s", jnum(r->delay_s)) < 0 ||
        set(e, "in_call_delay_s", jnum(r->delay_s)) < 0 ||
        set(e, "cost_s", jnum(r->delay_cost_s)) < 0 ||
        set(e, "observations", json_integer(r->delay_units)) < 0 ||
        set(e, "threshold_s", jnum(an->topology.straggler_delay_s)) < 0)
        return -1;
    return 0;
}

/* A rank that arrives last at most collectives, and ranks whose
 * collectives all take longer by the same amount (cp_links.c: their calls
 * start on time but their part of the work starts late). */
static int straggler(struct cp_analysis *an, const struct detect_input *in)
{
    double total;
    size_t i, worst = last_arriver(an, &total);

    if (worst != SIZE_MAX && arrival_finding(an, &worst, total) < 0)
        return -1;
    for (i = 0; i < an->nranks; i++)
        if (an->ranks[i].straggler && i != worst &&
            in_call_finding(an, &an->ranks[i]) < 0)
            return -1;
    if (worst != SIZE_MAX)
        an->ranks[worst].straggler = 1;
    return tied_stragglers(an);
}

static const char *pair_text(const struct cp_analysis *an,
                             const struct cp_analysis_pair *p, char *buf,
                             size_t len)
{
    snprintf(buf, len, "%s-%s", an->nodes[p->a].name, an->nodes[p->b].name);
    return buf;
}

static json_t *pair_json(const struct cp_analysis *an,
                         const struct cp_analysis_pair *p)
{
    json_t *a = json_array();

    if (!a || json_array_append_new(a, json_string(an->nodes[p->a].name)) < 0 ||
        json_array_append_new(a, json_string(an->nodes[p->b].name)) < 0) {
        json_decref(a);
        return NULL;
    }
    return a;
}

static int unit_has_pair(const struct cp_analysis_unit *u, unsigned pi)
{
    size_t k;

    for (k = 0; k < u->npairs; k++)
        if (u->pairs[k] == pi)
            return 1;
    return 0;
}

static json_t *unit_json(const struct cp_analysis *an,
                         const struct cp_analysis_unit *u)
{
    json_t *o = json_object();

    if (!o || set(o, "comm", hex_id(an->comms[u->comm].id)) < 0 ||
        set(o, "op", json_string(coll_name(u->coll))) < 0 ||
        set(o, "bytes", jnum(u->bytes)) < 0 ||
        set(o, "calls", json_integer((json_int_t)u->calls)) < 0 ||
        set(o, "time_s", jnum(u->time_s)) < 0 ||
        set(o, "peer_time_s", jnum(u->peer_time_s)) < 0 ||
        set(o, "slowdown", jnum(u->slowdown)) < 0 ||
        /* a send and a receive between the two in one group each */
        (u->exchange && set(o, "exchange", json_true()) < 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Ports whose rate is below their peers', that are not active, or whose
 * error counters rose during the step. */
static int degraded_ports(struct cp_analysis *an, const struct detect_input *in)
{
    size_t i;

    for (i = 0; i < an->ports.nports; i++) {
        const struct cp_analysis_port *p = &an->ports.ports[i];
        json_t *e;
        int down = p->state[0] && strcmp(p->state, "ACTIVE") != 0;
        if (!p->why[0])
            continue;
        if (add_finding(an, CP_KIND_DEGRADED_PORT,
                        down || json_object_get(p->rose, "link_downed")
                            ? CP_SEVERITY_CRITICAL
                            : CP_SEVERITY_WARNING,
                        NULL, 0, &p->node, 1,
                        "Port %s/%u of node %s is degraded: %s.", p->device,
                        p->port, an->nodes[p->node].name, p->why) < 0)
            return -1;
        e = last_evidence(an);
        if (set(e, "node", json_string(an->nodes[p->node].name)) < 0 ||
            set(e, "device", json_string(p->device)) < 0 ||
            set(e, "port", json_integer(p->port)) < 0 ||
            set(e, "rate_Gbps", jnum(p->rate_Gbps)) < 0 ||
            set(e, "peer_rate_Gbps", jnum(p->peer_rate_Gbps)) < 0 ||
            set(e, "state", json_string(p->state)) < 0 ||
            set(e, "counters", json_deep_copy(p->rose)) < 0 ||
            set(e, "why", json_string(p->why)) < 0)
            return -1;
    }
    return 0;
}

/* Degraded ports of nodes a or b, for a slow link's evidence. */
static json_t *endpoint_ports(const struct cp_analysis *an, unsigned a,
                              unsigned b)
{
    json_t *arr = json_array();
    size_t i;

    for (i = 0; arr && i < an->ports.nports; i++) {
        const struct cp_analysis_port *p = &an->ports.ports[i];
        json_t *o;
        if (!p->why[0] || (p->node != a && p->node != b))
            continue;
        o = json_object();
        if (!o || json_array_append_new(arr, o) < 0 ||
            set(o, "node", json_string(an->nodes[p->node].name)) < 0 ||
            set(o, "device", json_string(p->device)) < 0 ||
            set(o, "port", json_integer(p->port)) < 0 ||
            set(o, "why", json_string(p->why)) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

/* What crosses pair pi: its communicators and point-to-point streams
 * (*comms, *p2p), the other pairs their units cross that ran fast
 * (*cleared), and up to 8 of its units; NULL when out of memory. */
static json_t *pair_units(const struct cp_analysis *an, size_t pi,
                          unsigned *comms, unsigned *p2p, unsigned *cleared)
{
    const struct cp_analysis_topology *topo = &an->topology;
    unsigned char *seen = calloc(an->ncomms + 1, 1);
    json_t *units = json_array();
    size_t i, k;

    *comms = *p2p = *cleared = 0;
    for (i = 0; seen && units && i < topo->nunits; i++) {
        const struct cp_analysis_unit *u = &topo->units[i];
        if (!isfinite(u->slowdown) || !unit_has_pair(u, (unsigned)pi))
            continue;
        if (u->coll == CP_COLL_SENDRECV)
            (*p2p)++;
        else if (!seen[u->comm]++)
            (*comms)++;
        for (k = 0; k < u->npairs; k++)
            *cleared += topo->pairs[u->pairs[k]].state == CP_PAIR_OK;
        if (json_array_size(units) < 8 &&
            json_array_append_new(units, unit_json(an, u)) < 0)
            break;
    }
    if (!seen || (units && i < topo->nunits)) {
        json_decref(units);
        units = NULL;
    }
    free(seen);
    return units;
}

/* One finding per node pair named slow. */
static int slow_links(struct cp_analysis *an, const struct detect_input *in)
{
    const struct cp_analysis_topology *topo = &an->topology;
    size_t pi;

    for (pi = 0; pi < topo->npairs; pi++) {
        const struct cp_analysis_pair *p = &topo->pairs[pi];
        unsigned nodes[2] = {p->a, p->b}, comms, p2p, cleared;
        json_t *e, *units;
        char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], name[160],
            what[128], tail[200];
        int rc, weak;

        if (p->state != CP_PAIR_SLOW || p->source != CP_PAIR_FROM_CALLS)
            continue; /* the probe's: probe_links */
        units = pair_units(an, pi, &comms, &p2p, &cleared);
        if (!units)
            return -1;
        if (comms && p2p)
            snprintf(what, sizeof what,
                     "%u communicator%s and %u point-to-point stream%s",
                     comms, comms == 1 ? "" : "s", p2p, p2p == 1 ? "" : "s");
        else if (comms)
            snprintf(what, sizeof what, "%u communicator%s", comms,
                     comms == 1 ? "" : "s");
        else
            snprintf(what, sizeof what, "%u point-to-point stream%s", p2p,
                     p2p == 1 ? "" : "s");
        weak = p->slow_calls < CP_LINKS_MIN_SLOW_CALLS;
        snprintf(tail, sizeof tail,
                 weak ? "; but only %llu calls show it, too few to tell a "
                        "slow link from a busy host: run 'srun -N %zu "
                        "--ntasks-per-node=1 collprof probe -o DIR' to "
                        "measure the pair."
                      : ".",
                 (unsigned long long)p->slow_calls, an->nnodes);
        rc = add_finding(
            an, CP_KIND_SLOW_LINK,
            weak                      ? CP_SEVERITY_INFO
            : p->efficiency <= 0.25 ? CP_SEVERITY_CRITICAL
                                    : CP_SEVERITY_WARNING,
            NULL, 0, nodes, 2,
            "The link between nodes %s and %s %s: the %s that cross "
            "it (%llu call%s) take %.1fx the time of the same calls "
            "elsewhere in the job (about %s against %s on the other "
            "links), and every other link they cross ran at full speed in "
            "other calls%s",
            an->nodes[p->a].name, an->nodes[p->b].name,
            weak ? "may be slow" : "is slow", what,
            (unsigned long long)p->slow_calls, p->slow_calls == 1 ? "" : "s",
            p->slowdown,
            isfinite(p->bandwidth_Bps)
                ? cp_units_format_bandwidth(p->bandwidth_Bps, b1, sizeof b1)
                : "?",
            isfinite(topo->reference_Bps)
                ? cp_units_format_bandwidth(topo->reference_Bps, b2, sizeof b2)
                : "?",
            tail);
        if (rc < 0) {
            json_decref(units);
            return -1;
        }
        e = last_evidence(an);
        if (set(e, "link", json_string(pair_text(an, p, name, sizeof name))) < 0 ||
            set(e, "method", json_string("calls")) < 0 ||
            set(e, "bandwidth_Bps", jnum(p->bandwidth_Bps)) < 0 ||
            set(e, "peer_bandwidth_Bps", jnum(topo->reference_Bps)) < 0 ||
            set(e, "efficiency", jnum(p->efficiency)) < 0 ||
            set(e, "slowdown", jnum(p->slowdown)) < 0 ||
            set(e, "units", units) < 0 ||
            set(e, "cleared_pairs", json_integer(cleared)) < 0 ||
            set(e, "slow_calls", json_integer((json_int_t)p->slow_calls)) < 0 ||
            set(e, "weak", json_boolean(weak)) < 0 ||
            set(e, "ports", endpoint_ports(an, p->a, p->b)) < 0)
            return -1;
        /* the probe measured it too: agreeing or not, say what it saw */
        if (p->probed && probe_figures(e, p, topo->probe.file) < 0)
            return -1;
    }
    return 0;
}

/* "a median of 24.3 MB/s over the probed pairs" or "the profile's ...". */
static const char *probe_reference_text(const struct cp_analysis_probe *pr,
                                        char *buf, size_t len)
{
    char b1[CP_UNITS_BUFSIZE];

    cp_units_format_bandwidth(pr->reference_Bps, b1, sizeof b1);
    if (strcmp(pr->reference_source, "profile") == 0)
        snprintf(buf, len, "the profile's %s", b1);
    else
        snprintf(buf, len, "a median of %s over the probed pairs", b1);
    return buf;
}

/* What the job's calls said of a probed pair: a pair state, or "none"
 * when nothing bandwidth-bound crossed it. */
static const char *calls_verdict(const struct cp_analysis_pair *p)
{
    enum cp_pair_state st =
        p->source == CP_PAIR_FROM_CALLS ? p->state : p->calls_state;

    return p->units == 0 ? "none" : cp_pair_state_name(st);
}

/* The probe's figures of pair p into e (the keys of probe.json's
 * slow_link evidence). */
static int probe_pair_evidence(const struct cp_analysis *an, json_t *e,
                               const struct cp_analysis_pair *p)
{
    const struct cp_analysis_probe *pr = &an->topology.probe;
    char name[160];

    if (set(e, "link", json_string(pair_text(an, p, name, sizeof name))) < 0 ||
        set(e, "method", json_string("probe")) < 0 ||
        set(e, "bandwidth_Bps", jnum(p->probe_bandwidth_Bps)) < 0 ||
        set(e, "peer_bandwidth_Bps", jnum(pr->reference_Bps)) < 0 ||
        set(e, "reference_source", json_string(pr->reference_source)) < 0 ||
        set(e, "efficiency", jnum(p->probe_efficiency)) < 0 ||
        set(e, "slowdown", jnum(p->probe_efficiency > 0
                                    ? 1 / p->probe_efficiency
                                    : NAN)) < 0 ||
        set(e, "latency_s", jnum(p->probe_latency_s)) < 0 ||
        set(e, "peer_latency_s", jnum(pr->median_latency_s)) < 0 ||
        set(e, "probe_file", json_string(pr->file)) < 0)
        return -1;
    return 0;
}

static enum cp_severity probe_severity(const struct cp_analysis_pair *p)
{
    return p->probe_efficiency <= 0.25 ? CP_SEVERITY_CRITICAL
                                       : CP_SEVERITY_WARNING;
}

/* The slow communicator c whose unit u a slow_link resolves, with the
 * calls' candidates, into o (comm, op, bytes, comm_slowdown,
 * candidates). */
static int resolution(json_t *o, const struct cp_analysis_comm *c,
                      const struct cp_analysis_unit *u, json_t *cands)
{
    return set(o, "comm", hex_id(c->id)) < 0 ||
                   set(o, "op", json_string(coll_name(u->coll))) < 0 ||
                   set(o, "bytes", jnum(u->bytes)) < 0 ||
                   set(o, "comm_slowdown", jnum(u->slowdown)) < 0 ||
                   json_object_set(o, "candidates", cands) < 0
               ? -1
               : 0;
}

/* A slow candidate of communicator c's slow unit u, named by the probe:
 * the slow_link_candidates finding resolved. */
static int resolved_link(struct cp_analysis *an,
                         const struct cp_analysis_comm *c,
                         const struct cp_analysis_unit *u,
                         const struct cp_analysis_pair *p, json_t *cands,
                         unsigned ncand)
{
    const struct cp_analysis_probe *pr = &an->topology.probe;
    unsigned nodes[2] = {p->a, p->b};
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], ref[96];
    json_t *e;

    if (add_finding(
            an, CP_KIND_SLOW_LINK, probe_severity(p), NULL, 0, nodes, 2,
            "The link between nodes %s and %s is slow: communicator %016llx "
            "(%u ranks on %u nodes) ran its %s of %s at %.1fx the %s, and of "
            "its %u candidate links collprof probe (%s) measured this one "
            "slow: %s against %s (%.0f%%).",
            an->nodes[p->a].name, an->nodes[p->b].name,
            (unsigned long long)c->id, c->nranks, c->nnodes,
            coll_name(u->coll), cp_units_format_size(u->bytes, b1, sizeof b1),
            u->slowdown,
            u->baseline == CP_BASELINE_PEERS
                ? "time of the same calls elsewhere in the job"
                : "model's time",
            ncand, pr->file,
            cp_units_format_bandwidth(p->probe_bandwidth_Bps, b2, sizeof b2),
            probe_reference_text(pr, ref, sizeof ref),
            100 * p->probe_efficiency) < 0)
        return -1;
    e = last_evidence(an);
    if (probe_pair_evidence(an, e, p) < 0 ||
        set(e, "resolves", json_string(cp_kind_name(CP_KIND_SLOW_LINK_CANDIDATES))) < 0 ||
        resolution(e, c, u, cands) < 0 ||
        set(e, "ports", endpoint_ports(an, p->a, p->b)) < 0)
        return -1;
    return 0;
}

/* Pairs the probe measured slow that no finding names yet: a candidate
 * list of no slow communicator holds them, the calls cleared them, or
 * nothing of the job crossed them.  One the proxy steps named gets the
 * probe's figures in that finding instead. */
static int probe_links(struct cp_analysis *an, const struct detect_input *in)
{
    const unsigned char *reported = in->reported;
    const struct cp_analysis_topology *topo = &an->topology;
    const struct cp_analysis_probe *pr = &topo->probe;
    size_t pi;

    for (pi = 0; pi < topo->npairs; pi++) {
        const struct cp_analysis_pair *p = &topo->pairs[pi];
        unsigned nodes[2] = {p->a, p->b};
        char b1[CP_UNITS_BUFSIZE], ref[96];
        const char *calls = calls_verdict(p);
        const struct cp_analysis_finding *f;
        json_t *e;

        if (!p->probed || !p->probe_slow || reported[pi] ||
            (p->source == CP_PAIR_FROM_CALLS && p->state == CP_PAIR_SLOW))
            continue;
        if ((f = named_pair(an, p->a, p->b, "proxy_steps")) != NULL) {
            /* the job's proxy steps named it: the probe agrees */
            if (probe_figures(f->evidence, p, pr->file) < 0)
                return -1;
            continue;
        }
        if (add_finding(
                an, CP_KIND_SLOW_LINK, probe_severity(p), NULL, 0, nodes, 2,
                "The link between nodes %s and %s is slow: collprof probe "
                "(%s) measured %s against %s (%.0f%%)%s.",
                an->nodes[p->a].name, an->nodes[p->b].name, pr->file,
                cp_units_format_bandwidth(p->probe_bandwidth_Bps, b1,
                                          sizeof b1),
                probe_reference_text(pr, ref, sizeof ref),
                100 * p->probe_efficiency,
                strcmp(calls, "none") == 0
                    ? "; nothing bandwidth-bound of the job crossed it"
                : strcmp(calls, "ok") == 0
                    ? "; the job's own calls across it ran at full speed"
                    : "") < 0)
            return -1;
        e = last_evidence(an);
        if (probe_pair_evidence(an, e, p) < 0 ||
            set(e, "calls_state", json_string(calls)) < 0 ||
            set(e, "ports", endpoint_ports(an, p->a, p->b)) < 0)
            return -1;
    }
    return 0;
}

/* Links the plugin's proxy steps measured slow: the job's own evidence,
 * per direction, where a ring over every node leaves the calls unable to
 * tell which link is slow.  Runs before the candidates, which such a link
 * resolves (resolve_by_proxy), and before the probe's links. */
static int proxy_links(struct cp_analysis *an, const struct detect_input *in)
{
    const struct cp_analysis_nccl *v = &an->nccl;
    size_t i;

    for (i = 0; i < v->nlinks; i++) {
        const struct cp_analysis_net_link *l = &v->links[i];
        unsigned nodes[2] = {l->from, l->to};
        char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
            b4[CP_UNITS_BUFSIZE];
        double eff = l->step_bandwidth_Bps / l->median_Bps;
        json_t *e;

        if (!l->slow || named_pair(an, l->from, l->to, NULL))
            continue;
        if (add_finding(
                an, CP_KIND_SLOW_LINK,
                eff <= 0.25 ? CP_SEVERITY_CRITICAL : CP_SEVERITY_WARNING,
                NULL, 0, nodes, 2,
                "The link between nodes %s and %s is slow: NCCL's proxy sent "
                "%s from %s to %s, its fastest steps of %s at %s, against a "
                "median of %s over the job's %u inter-node links with steps "
                "of that size (%.0f%%); evidence: the job's own proxy steps "
                "(NCCL profiler plugin), no probe needed.",
                an->nodes[l->from].name, an->nodes[l->to].name,
                cp_units_format_size((double)l->bytes, b1, sizeof b1),
                an->nodes[l->from].name, an->nodes[l->to].name,
                cp_units_format_size(l->step_bytes, b4, sizeof b4),
                cp_units_format_bandwidth(l->step_bandwidth_Bps, b2,
                                          sizeof b2),
                cp_units_format_bandwidth(l->median_Bps, b3, sizeof b3),
                l->judged_with, 100 * eff) < 0)
            return -1;
        e = last_evidence(an);
        if (set(e, "method", json_string("proxy_steps")) < 0 ||
            set(e, "from", json_string(an->nodes[l->from].name)) < 0 ||
            set(e, "to", json_string(an->nodes[l->to].name)) < 0 ||
            set(e, "bandwidth_Bps", jnum(l->step_bandwidth_Bps)) < 0 ||
            set(e, "job_bandwidth_Bps", jnum(l->bandwidth_Bps)) < 0 ||
            set(e, "median_link_Bps", jnum(l->median_Bps)) < 0 ||
            set(e, "step_bytes", jnum(l->step_bytes)) < 0 ||
            set(e, "efficiency", jnum(eff)) < 0 ||
            set(e, "bytes", jnum((double)l->bytes)) < 0 ||
            set(e, "busy_s", jnum(l->busy_s)) < 0 ||
            set(e, "proxy_ops", jnum((double)l->ops)) < 0 ||
            set(e, "links_judged", jnum((double)l->judged_with)) < 0)
            return -1;
    }
    return 0;
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
    if (add_finding(
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
            other, cp_units_format_time(a->other_model_s, b3, sizeof b3),
            other, cp_units_format_time(a->chosen_model_s, b4, sizeof b4),
            chosen, cp_units_format_time(a->measured_s, b5, sizeof b5), other,
            cp_units_format_time(a->saving_s, b6, sizeof b6),
            100 * share) < 0)
        return -1;
    e = last_evidence(an);
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

static int algorithm_choice(struct cp_analysis *an, const struct detect_input *in)
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

/* The candidate links of one communicator's slowest unresolved unit. */
struct cand_set {
    json_t *cands;             /* pair_json of each */
    unsigned *nodes, nn;       /* their endpoints, each once */
    unsigned char *node_seen;  /* per node of the job */
    char list[512];            /* their names, for the message */
    unsigned ncand, nprobed, nslow;
    unsigned nproxy;           /* named slow by the plugin's proxy steps */
};

/* What a unit's slowdown is held against, for a message. */
static const char *baseline_phrase(enum cp_baseline b)
{
    return b == CP_BASELINE_PEERS ? "time of the same calls elsewhere in the "
                                    "job"
           : b == CP_BASELINE_REFERENCE ? "time at the reference bandwidth"
                                        : "model's time";
}

/* The command that measures every node pair of a communicator's nnodes. */
static void probe_command(char *buf, size_t len, unsigned nnodes)
{
    snprintf(buf, len, "srun -N %u --ntasks-per-node=1 collprof probe -o DIR",
             nnodes);
}

/* The unit of communicator ci with verdict v (unresolved, or maybe)
 * that lost the most time (calls times time), or NULL; *slow_calls: the
 * calls of all of them. */
static const struct cp_analysis_unit *
slowest_unresolved(const struct cp_analysis_topology *topo, size_t ci,
                   enum cp_unit_verdict v, uint64_t *slow_calls)
{
    const struct cp_analysis_unit *best = NULL;
    size_t i;

    *slow_calls = 0;
    for (i = 0; i < topo->nunits; i++) {
        const struct cp_analysis_unit *u = &topo->units[i];
        if (u->comm != ci || u->verdict != v)
            continue;
        *slow_calls += u->calls;
        if (!best || u->time_s * (double)u->calls >
                         best->time_s * (double)best->calls)
            best = u;
    }
    return best;
}

/* best's candidates into cs (its arrays allocated by the caller). */
static int gather_candidates(const struct cp_analysis *an,
                             const struct cp_analysis_unit *best,
                             struct cand_set *cs)
{
    const struct cp_analysis_topology *topo = &an->topology;
    size_t k;

    for (k = 0; k < best->npairs; k++) {
        const struct cp_analysis_pair *p = &topo->pairs[best->pairs[k]];
        char name[160];
        /* the calls' candidates: what they did not clear (the probe may
         * have measured them since) */
        if (p->state == CP_PAIR_OK && p->source == CP_PAIR_FROM_CALLS)
            continue;
        cs->ncand++;
        cs->nprobed += p->probed;
        cs->nslow += p->source == CP_PAIR_FROM_PROBE &&
                     p->state == CP_PAIR_SLOW;
        cs->nproxy += named_pair(an, p->a, p->b, "proxy_steps") != NULL;
        if (json_array_append_new(cs->cands, pair_json(an, p)) < 0)
            return -1;
        if (strlen(cs->list) < 400)
            snprintf(cs->list + strlen(cs->list),
                     sizeof cs->list - strlen(cs->list), "%s%s",
                     cs->ncand > 1 ? ", " : "",
                     pair_text(an, p, name, sizeof name));
        if (!cs->node_seen[p->a]++)
            cs->nodes[cs->nn++] = p->a;
        if (!cs->node_seen[p->b]++)
            cs->nodes[cs->nn++] = p->b;
    }
    return 0;
}

/* The probe found candidates of best slow: each one not reported yet is
 * named as a slow_link (marked in reported). */
static int resolve_candidates(struct cp_analysis *an,
                              const struct cp_analysis_comm *c,
                              const struct cp_analysis_unit *best,
                              const struct cand_set *cs,
                              unsigned char *reported)
{
    const struct cp_analysis_topology *topo = &an->topology;
    size_t k;

    for (k = 0; k < best->npairs; k++) {
        const struct cp_analysis_pair *p = &topo->pairs[best->pairs[k]];
        if (p->source != CP_PAIR_FROM_PROBE || p->state != CP_PAIR_SLOW ||
            reported[best->pairs[k]])
            continue;
        reported[best->pairs[k]] = 1;
        if (resolved_link(an, c, best, p, cs->cands, cs->ncand) < 0)
            return -1;
    }
    return 0;
}

static int append_message(struct cp_analysis_finding *f, const char *fmt, ...)
{
    char more[512], *m;
    size_t have = f->message ? strlen(f->message) : 0;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(more, sizeof more, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    m = realloc(f->message, have + strlen(more) + 1);
    if (!m)
        return -1;
    memcpy(m + have, more, strlen(more) + 1);
    f->message = m;
    return 0;
}

/* The plugin's proxy steps named candidates of communicator c's unit best
 * slow (proxy_links ran first): each such slow_link says it resolves the
 * communicator's slow_link_candidates (evidence.resolved), which is then
 * not emitted. */
static int resolve_by_proxy(struct cp_analysis *an,
                            const struct cp_analysis_comm *c,
                            const struct cp_analysis_unit *best,
                            const struct cand_set *cs)
{
    const struct cp_analysis_topology *topo = &an->topology;
    size_t k;

    for (k = 0; k < best->npairs; k++) {
        const struct cp_analysis_pair *p = &topo->pairs[best->pairs[k]];
        const struct cp_analysis_finding *f =
            named_pair(an, p->a, p->b, "proxy_steps");
        json_t *list, *o;
        if (!f)
            continue;
        list = json_object_get(f->evidence, "resolved");
        if (!list) {
            char b1[CP_UNITS_BUFSIZE];
            if (set(f->evidence, "resolves",
                    json_string(cp_kind_name(CP_KIND_SLOW_LINK_CANDIDATES))) < 0 ||
                set(f->evidence, "resolved", json_array()) < 0 ||
                append_message(
                    (struct cp_analysis_finding *)f,
                    " It explains communicator %016llx's %s of %s at %.1fx, "
                    "whose %u candidate links the calls could not tell "
                    "apart.",
                    (unsigned long long)c->id, coll_name(best->coll),
                    cp_units_format_size(best->bytes, b1, sizeof b1),
                    best->slowdown, cs->ncand) < 0)
                return -1;
            list = json_object_get(f->evidence, "resolved");
        }
        o = json_object();
        if (!o || json_array_append_new(list, o) < 0 ||
            resolution(o, c, best, cs->cands) < 0)
            return -1;
    }
    return 0;
}

/* The slow_link_candidates finding of communicator ci, whose slowest
 * unresolved unit is best (maybe: its slowest CP_UNIT_MAYBE, a unit the
 * calls cannot be sure of, always a hint). */
static int candidates_finding(struct cp_analysis *an, size_t ci,
                              const struct cp_analysis_unit *best,
                              uint64_t slow_calls, const struct cand_set *cs,
                              int maybe)
{
    const struct cp_analysis_topology *topo = &an->topology;
    const struct cp_analysis_comm *c = &an->comms[ci];
    struct who w = {0};
    json_t *e;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        probe[160], probed_text[600] = "", which[96];
    unsigned ncand = cs->ncand, nprobed = cs->nprobed;
    double f, busbw, peer;
    int weak, rc = -1;

    if (nprobed == ncand)
        snprintf(probed_text, sizeof probed_text,
                 "; collprof probe (%.400s) measured all of them and "
                 "found none slow, so the slowdown is not one link's",
                 topo->probe.file);
    else if (nprobed > 0)
        snprintf(probed_text, sizeof probed_text,
                 "; collprof probe (%.400s) measured %u of them and "
                 "found none slow",
                 topo->probe.file, nprobed);
    f = cp_model_busbw_factor(best->coll, best->coll == CP_COLL_SENDRECV
                                              ? 2
                                              : c->nranks);
    busbw = f * best->bytes / (best->time_s - best->delay_s);
    peer = f * best->bytes / best->peer_time_s;
    probe_command(probe, sizeof probe, c->nnodes);
    if (comm_ranks(an, (unsigned)ci, &w) < 0)
        goto out;
    /* as for slow_link: a few calls on a busy host differ by more than a
     * slow link adds */
    weak = maybe || slow_calls < CP_LINKS_MIN_SLOW_CALLS;
    if (ncand == 1)
        snprintf(which, sizeof which, "and its one link is the candidate");
    else
        snprintf(which, sizeof which,
                 "but its calls cannot tell which of its %u candidate links "
                 "is", ncand);
    if (add_finding(
            an, CP_KIND_SLOW_LINK_CANDIDATES,
            weak ? CP_SEVERITY_INFO : CP_SEVERITY_WARNING, w.ranks,
            w.nranks, cs->nodes, cs->nn,
            "Communicator %016llx (%u ranks on %u nodes) %s: its %s "
            "of %s take %.1fx the %s (busbw %s against %s) in %llu call%s%s, "
            "%s (%s)%s%s%s%s",
            (unsigned long long)c->id, c->nranks, c->nnodes,
            weak ? "may be slow" : "is slow", coll_name(best->coll),
            cp_units_format_size(best->bytes, b1, sizeof b1), best->slowdown,
            baseline_phrase(best->baseline),
            cp_units_format_bandwidth(busbw, b2, sizeof b2),
            cp_units_format_bandwidth(peer, b3, sizeof b3),
            (unsigned long long)slow_calls, slow_calls == 1 ? "" : "s",
            maybe && best->contradicted
                ? ", though other calls over the same links ran under the "
                  "slow threshold (the calls disagree)"
            : maybe && best->coll == CP_COLL_ALLTOALL
                ? ", more than healthy ones take but too little to be sure "
                  "(one slow pair slows only its share of an all-to-all, "
                  "and a busy host inflates the model's latency)"
            : maybe ? ", though the model's latency, which a busy host "
                      "inflates, may be most of that time"
            : weak  ? ", too few to be sure"
                    : "",
            which, cs->list,
            probed_text, nprobed == ncand ? "" : "; run '",
            nprobed == ncand ? "" : probe,
            nprobed == ncand ? "." : "' to measure every node pair.") < 0)
        goto out;
    e = last_evidence(an);
    if (set(e, "comm", hex_id(c->id)) < 0 ||
        set(e, "op", json_string(coll_name(best->coll))) < 0 ||
        set(e, "bytes", jnum(best->bytes)) < 0 ||
        set(e, "slowdown", jnum(best->slowdown)) < 0 ||
        set(e, "baseline", json_string(cp_baseline_name(best->baseline))) < 0 ||
        set(e, "busbw_Bps", jnum(busbw)) < 0 ||
        set(e, "peer_busbw_Bps", jnum(peer)) < 0 ||
        json_object_set(e, "candidates", cs->cands) < 0 ||
        set(e, "slow_calls", json_integer((json_int_t)slow_calls)) < 0 ||
        set(e, "weak", json_boolean(weak)) < 0 ||
        (maybe && set(e, "maybe", json_true()) < 0) ||
        (best->contradicted && set(e, "contradicted", json_true()) < 0) ||
        set(e, "probe", json_string(probe)) < 0)
        goto out;
    if (topo->probe.file &&
        (set(e, "probe_file", json_string(topo->probe.file)) < 0 ||
         set(e, "probed_candidates", json_integer(nprobed)) < 0))
        goto out;
    rc = 0;
out:
    who_free(&w);
    return rc;
}

/* Whether a straggler finding at warning or above names a member of
 * communicator ci: its late arrivals or in-call delay are why the
 * communicator's calls ran slow, not a link. */
static int comm_straggler(const struct cp_analysis *an, size_t ci)
{
    const struct cp_analysis_comm *c = &an->comms[ci];
    size_t i, k, q;

    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        if (f->kind != CP_KIND_STRAGGLER ||
            f->severity < CP_SEVERITY_WARNING)
            continue;
        for (k = 0; k < f->nranks; k++)
            for (q = 0; q < c->nranks; q++)
                if (c->ranks[q] == f->ranks[k])
                    return 1;
    }
    return 0;
}

/* Communicator ci's slow_link_candidates finding, or the slow_links the
 * probe resolved its candidates into; with maybe, those of its unit the
 * calls cannot be sure of (CP_UNIT_MAYBE), when it has no unresolved
 * unit and no named straggler. */
static int comm_candidates(struct cp_analysis *an, size_t ci,
                           unsigned char *reported, int maybe)
{
    const struct cp_analysis_unit *best;
    struct cand_set cs = {0};
    uint64_t slow_calls;
    int rc = -1;

    if (maybe && (slowest_unresolved(&an->topology, ci, CP_UNIT_UNRESOLVED,
                                     &slow_calls) ||
                  comm_straggler(an, ci)))
        return 0;
    best = slowest_unresolved(&an->topology, ci,
                              maybe ? CP_UNIT_MAYBE : CP_UNIT_UNRESOLVED,
                              &slow_calls);
    if (!best)
        return 0;
    cs.nodes = malloc((2 * best->npairs + 1) * sizeof *cs.nodes);
    cs.node_seen = calloc(an->nnodes + 1, 1);
    cs.cands = json_array();
    if (!cs.nodes || !cs.node_seen || !cs.cands ||
        gather_candidates(an, best, &cs) < 0)
        goto out;
    if (cs.nproxy > 0) {
        /* resolved by the job's own proxy steps */
        if (resolve_by_proxy(an, &an->comms[ci], best, &cs) < 0)
            goto out;
    } else if (cs.nslow > 0) {
        /* resolved: each candidate the probe found slow is named */
        if (resolve_candidates(an, &an->comms[ci], best, &cs, reported) < 0)
            goto out;
    } else if (cs.ncand > 0 &&
               candidates_finding(an, ci, best, slow_calls, &cs, maybe) < 0) {
        goto out;
    }
    rc = 0;
out:
    free(cs.nodes);
    free(cs.node_seen);
    json_decref(cs.cands);
    return rc;
}

/* One finding per communicator whose slow calls keep several candidates;
 * a candidate the probe measured slow turns it into that pair's slow_link
 * (marked in reported, indexed like topology.pairs).  maybe: the hints of
 * units the calls cannot be sure of (CP_UNIT_MAYBE), after the
 * stragglers. */
static int slow_link_candidates(struct cp_analysis *an,
                                unsigned char *reported, int maybe)
{
    size_t ci;

    for (ci = 0; ci < an->ncomms; ci++)
        if (comm_candidates(an, ci, reported, maybe) < 0)
            return -1;
    return 0;
}

/* Most pairs listed by name in a links_unjudged message (all are in its
 * evidence, up to UNJUDGED_EVIDENCE_PAIRS). */
#define UNJUDGED_NAMED_PAIRS 8
#define UNJUDGED_EVIDENCE_PAIRS 256

/* Node pairs that no judged unit of the job clears or blames and that
 * an all-to-all of communicator ci crosses, judged as a whole
 * (CP_UNIT_CLEARS): each node's pairs share its NIC, so one pair at half
 * speed slows only its share of the traffic, 1.07-1.5x at moe's
 * all-to-all, where healthy ones reach 1.27x on a busy host
 * (docs/analysis.md, "Slow links").  The calls cannot judge those pairs:
 * one info per communicator says so and asks for the probe (seen: pairs
 * already listed, indexed like topology.pairs).  A communicator with a
 * slow or nearly slow unit has its candidates' finding instead. */
static int comm_unjudged(struct cp_analysis *an, size_t ci,
                         unsigned char *seen)
{
    const struct cp_analysis_topology *topo = &an->topology;
    const struct cp_analysis_comm *c = &an->comms[ci];
    const struct cp_analysis_unit *best = NULL;
    unsigned *nodes = NULL, nn = 0, npairs = 0;
    unsigned char *node_seen = NULL;
    json_t *pairs = NULL, *e;
    struct who w = {0};
    char list[600] = "", name[160], b1[CP_UNITS_BUFSIZE], probe[160];
    uint64_t ignored;
    size_t i, k;
    int rc = -1;

    if (slowest_unresolved(topo, ci, CP_UNIT_UNRESOLVED, &ignored) ||
        slowest_unresolved(topo, ci, CP_UNIT_MAYBE, &ignored))
        return 0;
    for (i = 0; i < topo->nunits; i++) {
        const struct cp_analysis_unit *u = &topo->units[i];
        if (u->comm == ci && u->coll == CP_COLL_ALLTOALL &&
            u->verdict == CP_UNIT_CLEARS &&
            (!best || u->time_s * (double)u->calls >
                          best->time_s * (double)best->calls))
            best = u;
    }
    if (!best)
        return 0;
    nodes = malloc((2 * best->npairs + 1) * sizeof *nodes);
    node_seen = calloc(an->nnodes + 1, 1);
    pairs = json_array();
    if (!nodes || !node_seen || !pairs)
        goto out;
    for (k = 0; k < best->npairs; k++) {
        const struct cp_analysis_pair *p = &topo->pairs[best->pairs[k]];
        if (p->state != CP_PAIR_UNCLEAR || p->source != CP_PAIR_FROM_CALLS ||
            seen[best->pairs[k]])
            continue;
        seen[best->pairs[k]] = 1;
        npairs++;
        if (npairs <= UNJUDGED_EVIDENCE_PAIRS &&
            json_array_append_new(pairs, pair_json(an, p)) < 0)
            goto out;
        if (npairs <= UNJUDGED_NAMED_PAIRS)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     npairs > 1 ? ", " : "", pair_text(an, p, name, sizeof name));
        if (!node_seen[p->a]++)
            nodes[nn++] = p->a;
        if (!node_seen[p->b]++)
            nodes[nn++] = p->b;
    }
    if (npairs == 0) {
        rc = 0;
        goto out;
    }
    if (npairs > UNJUDGED_NAMED_PAIRS)
        snprintf(list + strlen(list), sizeof list - strlen(list),
                 " and %u more", npairs - UNJUDGED_NAMED_PAIRS);
    probe_command(probe, sizeof probe, c->nnodes);
    if (comm_ranks(an, (unsigned)ci, &w) < 0 ||
        add_finding(
            an, CP_KIND_LINKS_UNJUDGED, CP_SEVERITY_INFO, w.ranks, w.nranks,
            nodes, nn,
            "The calls cannot judge %u node pair%s of communicator %016llx "
            "(%u ranks on %u nodes): %s.  Of its bandwidth-bound calls "
            "only its %s of %s (%llu calls, %.2fx the %s) cross%s %s, and a "
            "pair at half speed slows only its share of an all-to-all, too "
            "little to tell from a healthy one.  Run '%s' to measure every "
            "node pair, or record with the NCCL profiler plugin, whose "
            "proxy steps time each link.",
            npairs, npairs == 1 ? "" : "s", (unsigned long long)c->id,
            c->nranks, c->nnodes, list, coll_name(best->coll),
            cp_units_format_size(best->bytes, b1, sizeof b1),
            (unsigned long long)best->calls, best->slowdown,
            baseline_phrase(best->baseline),
            best->calls == 1 ? "es" : "", npairs == 1 ? "it" : "them",
            probe) < 0)
        goto out;
    e = last_evidence(an);
    if (set(e, "comm", hex_id(c->id)) < 0 ||
        set(e, "op", json_string(coll_name(best->coll))) < 0 ||
        set(e, "bytes", jnum(best->bytes)) < 0 ||
        set(e, "calls", json_integer((json_int_t)best->calls)) < 0 ||
        set(e, "slowdown", jnum(best->slowdown)) < 0 ||
        set(e, "baseline", json_string(cp_baseline_name(best->baseline))) < 0 ||
        json_object_set(e, "pairs", pairs) < 0 ||
        set(e, "pairs_total", json_integer((json_int_t)npairs)) < 0 ||
        set(e, "weak", json_true()) < 0 ||
        set(e, "probe", json_string(probe)) < 0)
        goto out;
    rc = 0;
out:
    who_free(&w);
    free(nodes);
    free(node_seen);
    json_decref(pairs);
    return rc;
}

static int unjudged_links(struct cp_analysis *an, const struct detect_input *in)
{
    unsigned char *seen = calloc(an->topology.npairs + 1, 1);
    size_t ci;
    int rc = 0;

    if (!seen)
        return -1;
    for (ci = 0; ci < an->ncomms && rc == 0; ci++)
        rc = comm_unjudged(an, ci, seen);
    free(seen);
    return rc;
}

static int inputs_findings(struct cp_analysis *an, const struct detect_input *in)
{
    const struct cp_analysis_summary *sm = &an->summary;
    json_t *e;
    size_t i;

    if (sm->nmissing > 0) {
        char list[256] = "";
        for (i = 0; i < sm->nmissing && strlen(list) < 200; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d",
                     i ? ", " : "", sm->missing_ranks[i]);
        if (i < sm->nmissing)
            snprintf(list + strlen(list), sizeof list - strlen(list), " ...");
        if (add_finding(an, CP_KIND_MISSING_RANKS, CP_SEVERITY_WARNING,
                        sm->missing_ranks, sm->nmissing, NULL, 0,
                        "%zu of %d ranks left no log (rank%s %s): %llu of "
                        "%llu collective instances are incomplete and their "
                        "times rest on the ranks present.",
                        sm->nmissing, an->world_size,
                        sm->nmissing > 1 ? "s" : "", list,
                        (unsigned long long)sm->incomplete_instances,
                        (unsigned long long)sm->instances) < 0)
            return -1;
        e = last_evidence(an);
        if (set(e, "missing", json_integer((json_int_t)sm->nmissing)) < 0 ||
            set(e, "world_size", json_integer(an->world_size)) < 0 ||
            set(e, "incomplete_instances",
                json_integer((json_int_t)sm->incomplete_instances)) < 0)
            return -1;
    } else if (sm->incomplete_instances > 0) {
        if (add_finding(an, CP_KIND_INCOMPLETE_INSTANCES, CP_SEVERITY_INFO,
                        NULL, 0, NULL, 0,
                        "%llu of %llu collective instances missed members "
                        "(records lost or a process killed).",
                        (unsigned long long)sm->incomplete_instances,
                        (unsigned long long)sm->instances) < 0)
            return -1;
        e = last_evidence(an);
        if (set(e, "incomplete_instances",
                json_integer((json_int_t)sm->incomplete_instances)) < 0 ||
            set(e, "instances", json_integer((json_int_t)sm->instances)) < 0)
            return -1;
    }
    if (sm->failed_calls > 0) {
        int *ranks = malloc(an->nranks * sizeof *ranks);
        size_t n = 0;
        int rc;
        if (!ranks)
            return -1;
        for (i = 0; i < an->nranks; i++)
            if (an->ranks[i].failed)
                ranks[n++] = an->ranks[i].rank;
        rc = add_finding(an, CP_KIND_FAILED_CALLS, CP_SEVERITY_WARNING, ranks,
                         n, NULL, 0,
                         "%llu NCCL calls returned an error on %zu rank%s; "
                         "they are counted but not analyzed.",
                         (unsigned long long)sm->failed_calls, n,
                         n == 1 ? "" : "s");
        free(ranks);
        if (rc < 0)
            return -1;
        if (set(last_evidence(an), "failed_calls",
                json_integer((json_int_t)sm->failed_calls)) < 0)
            return -1;
    }
    return 0;
}

/* The node whose clock is furthest off, when causality rules out a shared
 * clock: the estimate with the interval it must lie in. */
static int clock_offset(struct cp_analysis *an, const struct detect_input *in)
{
    size_t i, worst = SIZE_MAX;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        b4[CP_UNITS_BUFSIZE];
    const struct cp_analysis_node *w;
    double bound, near, far;
    json_t *e;

    for (i = 1; i < an->nnodes; i++)
        if (an->nodes[i].offset_significant &&
            (worst == SIZE_MAX ||
             fabs(an->nodes[i].offset_s) > fabs(an->nodes[worst].offset_s)))
            worst = i;
    if (an->nnodes < 2 || worst == SIZE_MAX)
        return 0;
    w = &an->nodes[worst];
    bound = fmax(w->offset_s - w->offset_low_s, w->offset_high_s - w->offset_s);
    near = fmin(fabs(w->offset_low_s), fabs(w->offset_high_s));
    far = fmax(fabs(w->offset_low_s), fabs(w->offset_high_s));
    cp_units_format_time(fabs(w->offset_s), b1, sizeof b1);
    cp_units_format_time(bound, b2, sizeof b2);
    cp_units_format_time(near, b3, sizeof b3);
    cp_units_format_time(far, b4, sizeof b4);
    if (add_finding(an, CP_KIND_CLOCK_OFFSET, CP_SEVERITY_INFO, NULL, 0,
                    (unsigned[]){(unsigned)worst}, 1,
                    "The clock of node %s is %s %s node %s's (+/- %s: "
                    "between %s and %s by the order of the calls); all "
                    "times were corrected before the skew analysis.",
                    w->name, b1, w->offset_s > 0 ? "ahead of" : "behind",
                    an->nodes[an->offset_reference].name, b2, b3, b4) < 0)
        return -1;
    e = last_evidence(an);
    if (set(e, "offset_s", jnum(w->offset_s)) < 0 ||
        set(e, "bound_s", jnum(bound)) < 0 ||
        set(e, "low_s", jnum(w->offset_low_s)) < 0 ||
        set(e, "high_s", jnum(w->offset_high_s)) < 0 ||
        set(e, "instances", json_integer((json_int_t)an->offset_instances)) < 0)
        return -1;
    return 0;
}

static int model_unavailable(struct cp_analysis *an, const struct detect_input *in)
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
        if (add_finding(an, CP_KIND_MODEL_UNAVAILABLE, CP_SEVERITY_INFO,
                        NULL, 0, NULL, 0,
                        "No %s-node model: %s; give its alpha and bandwidth "
                        "in a profile (--profile) to judge these %llu calls.",
                        k == CP_LINK_INTER ? "inter" : "intra",
                        an->model[k].fit_why[0] ? an->model[k].fit_why
                                                : "the fit failed",
                        (unsigned long long)calls) < 0)
            return -1;
        if (set(last_evidence(an), "link", json_string(cp_link_class_name(k))) < 0 ||
            set(last_evidence(an), "calls", json_integer((json_int_t)calls)) < 0)
            return -1;
    }
    return 0;
}

/* ---- the detectors: one table, run in its order ----------------------- */

/* slow_link_candidates in two passes: the warnings before the probe's
 * links and low_busbw, the hints (infos) after every named link. */
static int candidates_warned(struct cp_analysis *an, const struct detect_input *in)
{
    return slow_link_candidates(an, in->reported, 0);
}

static int candidates_hinted(struct cp_analysis *an, const struct detect_input *in)
{
    return slow_link_candidates(an, in->reported, 1);
}

/* In this order: the slow links named by the calls, the proxies and the
 * probe come before the candidates that would list them, and low_busbw
 * after every finding that explains a communicator (it does not repeat
 * them); findings of one severity keep this order in report.json.  The
 * hang pass (cp_hang.c) and the slowdown pass (cp_slowdown.c) run apart,
 * on the hang state and the windows. */
static const struct detector {
    const char *name; /* for a reader of the code and a debugger */
    int (*detect)(struct cp_analysis *an, const struct detect_input *in);
} detectors[] = {
    {"latency_bound", latency_bound},
    {"slow_link (calls)", slow_links},
    {"slow_link (proxy steps)", proxy_links},
    {"slow_link_candidates (warnings)", candidates_warned},
    {"slow_link (probe)", probe_links},
    {"algorithm_choice", algorithm_choice},
    {"degraded_port", degraded_ports},
    {"low_busbw", low_busbw},
    {"straggler", straggler},
    {"slow_link_candidates (hints)", candidates_hinted},
    {"links_unjudged", unjudged_links},
    {"missing_ranks, incomplete_instances, failed_calls", inputs_findings},
    {"clock_offset", clock_offset},
    {"model_unavailable", model_unavailable},
};

int an_findings(struct cp_analysis *an, const struct an_eval *ev, size_t nev)
{
    struct detect_input in = {ev, nev, NULL};
    size_t i;
    int rc = -1;

    in.reported = calloc(an->topology.npairs + 1, 1);
    if (in.reported)
        for (i = 0, rc = 0;
             rc == 0 && i < sizeof detectors / sizeof *detectors; i++)
            rc = detectors[i].detect(an, &in) < 0 ? -1 : 0;
    free(in.reported);
    if (rc < 0)
        return -1;
    /* most severe first, in the order above within a severity (a stable
     * insertion sort: there are a handful) */
    for (i = 1; i < an->nfindings; i++) {
        struct cp_analysis_finding f = an->findings[i];
        size_t j = i;
        while (j > 0 && an->findings[j - 1].severity < f.severity) {
            an->findings[j] = an->findings[j - 1];
            j--;
        }
        an->findings[j] = f;
    }
    return 0;
}
