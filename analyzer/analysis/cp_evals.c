/* cp_evals.c - the model against the calls: the fit of alpha and beta per
 * class of communicator, the rows (one per communicator, collective and
 * size bucket) with their model times, and the references each is
 * judged against.  docs/analysis.md, "The model" and "The fit".
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_evals.h"
#include "cp_fit.h"
#include "cp_stats.h"
/* a fit on fewer size groups, or of worse quality, is weak; so is one on
 * fewer than FIT_MIN_POINTS groups of FIT_GROUP_CALLS calls or more unless
 * it has FIT_MANY_POINTS groups in all: a group of one call is one sample
 * (often a communicator's first call, which sets up its connections), and
 * a few of them can bend a line that many would hold */
#define FIT_MIN_POINTS 4
#define FIT_GROUP_CALLS 2
#define FIT_MANY_POINTS 8
#define FIT_MIN_R2 0.5
#define FIT_MAX_RESIDUAL 0.25
/* calls this many times faster than the model: the model is wrong there */
#define EFFICIENCY_MAX 2.0

static unsigned slot_ranks(const struct an_comm *c, unsigned slot)
{
    return an_slot_coll(slot) == CP_COLL_SENDRECV ? 2 : c->nranks;
}

static enum cp_link_class slot_link(const struct cp_analysis *an, size_t ci,
                                    unsigned slot)
{
    return (enum cp_link_class)an_slot_link(slot, an->comms[ci].link);
}

double cp_analysis_model_time(const struct cp_analysis *an,
                              enum cp_link_class link, enum cp_coll coll,
                              unsigned p, double n)
{
    const struct cp_analysis_link *m;
    struct cp_model_params params;

    if (link >= CP_LINK_COUNT || coll >= CP_COLL_COUNT || !(n >= 0))
        return NAN;
    m = &an->model[link];
    if (coll == CP_COLL_SENDRECV)
        p = 2;
    if (m->source == CP_SOURCE_NONE || p < 2)
        return NAN;
    memset(&params, 0, sizeof params);
    params.alpha = m->alpha_s;
    params.beta = 1 / m->bandwidth_Bps;
    return cp_model_time(coll, cp_model_coll_facts(coll)->nccl_algo, p, n,
                         &params);
}

/* Calls inside groups ran in an interval shared with the group's other
 * calls: their own time is unknown, so a bucket made mostly of them counts
 * in the time accounting but not in bandwidth judgments (as in the fit);
 * the same for a bucket of which over 5 % of the instances are
 * incomplete. */
static int judged(const struct an_bucket *b)
{
    /* nor do instances with members missing: their own time is that of
     * the members present, not the collective's */
    return b->grouped * 10 <= b->count && b->incomplete * 20 <= b->count;
}

/* One link class's model m: the fit of its npts points pts, its
 * weakness, and the model used (the profile's pl, else the fit). */
static void fit_class(struct cp_analysis_link *m,
                      const struct cp_profile_link *pl,
                      struct cp_fit_point *pts, size_t npts)
{
    struct cp_fit_result fr;
    size_t i;
    unsigned groups;

    cp_fit_line(pts, npts, &fr);
    m->fit_ok = fr.ok;
    m->fit_alpha_s = fr.alpha;
    m->fit_bandwidth_Bps = fr.ok ? 1 / fr.beta : NAN;
    m->fit_median_rel_residual = fr.median_rel_residual;
    m->fit_r2 = fr.r2;
    m->fit_points = fr.points;
    m->fit_points_used = fr.points_used;
    m->fit_calls_used = fr.calls_used;
    m->fit_weak = 0;
    m->fit_weak_why[0] = '\0';
    for (i = 0, groups = 0; i < npts; i++)
        groups += pts[i].used && pts[i].calls >= FIT_GROUP_CALLS;
    if (fr.ok && fr.points_used < FIT_MIN_POINTS) {
        m->fit_weak = 1;
        snprintf(m->fit_weak_why, sizeof m->fit_weak_why,
                 "%u size groups used (at least %d make a firm fit)",
                 fr.points_used, FIT_MIN_POINTS);
    } else if (fr.ok && groups < FIT_MIN_POINTS &&
               fr.points_used < FIT_MANY_POINTS) {
        m->fit_weak = 1;
        snprintf(m->fit_weak_why, sizeof m->fit_weak_why,
                 "%u size groups used, %u of them of %d calls or more "
                 "(a firm fit needs %d such, or %d groups in all)",
                 fr.points_used, groups, FIT_GROUP_CALLS, FIT_MIN_POINTS,
                 FIT_MANY_POINTS);
    } else if (fr.ok && !(fr.r2 >= FIT_MIN_R2 &&
                          fr.median_rel_residual <= FIT_MAX_RESIDUAL)) {
        m->fit_weak = 1;
        snprintf(m->fit_weak_why, sizeof m->fit_weak_why,
                 "poor quality: r2 %.2f, median residual %.0f%%", fr.r2,
                 100 * fr.median_rel_residual);
    }
    snprintf(m->fit_why, sizeof m->fit_why, "%s",
             fr.ok ? "" : (npts ? fr.why : "no calls of this class"));
    m->source = CP_SOURCE_NONE;
    m->alpha_s = m->bandwidth_Bps = NAN;
    if (pl && (pl->have_alpha || pl->have_bandwidth)) {
        m->source = CP_SOURCE_PROFILE;
        m->alpha_s = pl->have_alpha ? pl->alpha_s
                                    : (fr.ok ? m->fit_alpha_s : 0);
        m->bandwidth_Bps = pl->have_bandwidth ? pl->bandwidth_Bps
                                              : m->fit_bandwidth_Bps;
        if (!(m->bandwidth_Bps > 0))
            m->source = CP_SOURCE_NONE;
    } else if (fr.ok) {
        m->source = CP_SOURCE_FIT;
        m->alpha_s = m->fit_alpha_s;
        m->bandwidth_Bps = m->fit_bandwidth_Bps;
    }
    m->expected_Bps = NAN;
    m->expected_source = CP_SOURCE_NONE;
    if (pl && pl->have_bandwidth) {
        m->expected_Bps = pl->bandwidth_Bps;
        m->expected_source = CP_SOURCE_PROFILE;
    }
    if (m->source == CP_SOURCE_NONE)
        m->alpha_s = m->bandwidth_Bps = NAN;
}

int an_fit_classes(struct cp_analysis *an, struct an_state *st,
                   const struct cp_profile *profile)
{
    struct cp_fit_point *pts[CP_LINK_COUNT] = {NULL, NULL};
    size_t npts[CP_LINK_COUNT] = {0, 0}, cap[CP_LINK_COUNT] = {0, 0};
    size_t ci;
    unsigned s, k;
    int rc = -1;

    for (ci = 0; ci < st->ncomms; ci++) {
        struct an_comm *c = st->comms[ci];
        for (s = 0; s < AN_SLOTS; s++) {
            struct an_slot_table *t = c->slots[s];
            enum cp_link_class link = slot_link(an, ci, s);
            double A, B;
            if (!t || cp_model_nccl_steps(an_slot_coll(s), slot_ranks(c, s), &A,
                                          &B) < 0)
                continue;
            for (k = 0; k < AN_NBUCKETS; k++) {
                struct an_bucket *b = t->b[k];
                struct cp_fit_point *p;
                if (!b || b->count == 0 || !judged(b))
                    continue;
                if (npts[link] == cap[link]) {
                    size_t nc = cap[link] ? cap[link] * 2 : 64;
                    struct cp_fit_point *bigger =
                        realloc(pts[link], nc * sizeof *bigger);
                    if (!bigger)
                        goto out;
                    pts[link] = bigger;
                    cap[link] = nc;
                }
                p = &pts[link][npts[link]++];
                p->x = B * (b->bytes / (double)b->count) / A;
                p->y = cp_sketch_quantile(&b->t, 0.5) / A;
                p->weight = sqrt((double)b->count);
                p->calls = b->count;
            }
        }
    }
    for (k = 0; k < CP_LINK_COUNT; k++)
        fit_class(&an->model[k], profile ? &profile->link[k] : NULL, pts[k],
                  npts[k]);
    rc = 0;
out:
    free(pts[0]);
    free(pts[1]);
    return rc;
}

static void group_add(struct an_group_stats *g, const struct an_bucket *b,
                      double L, double W, double f)
{
    if (g->calls == 0 || b->n_min < g->n_min)
        g->n_min = b->n_min;
    if (g->calls == 0 || b->n_max > g->n_max)
        g->n_max = b->n_max;
    g->calls += b->count;
    g->bytes += b->bytes;
    g->time += b->time;
    if (!judged(b))
        return;
    g->judged_calls += b->count;
    g->duration += b->duration;
    g->fast_duration += (double)b->count * cp_sketch_quantile(&b->t, 0.1);
    g->model_time += (double)b->count * L + b->bytes * W;
    g->fn += f * b->bytes;
    g->judged_bytes += b->bytes;
}

/* The model terms of (comm ci, slot s) into ev, zeroed first. */
static void init_eval(const struct cp_analysis *an, struct an_comm *c,
                      size_t ci, unsigned s, struct an_eval *ev)
{
    struct cp_model_terms terms;
    const struct cp_analysis_link *m;
    unsigned p = slot_ranks(c, s);
    struct cp_model_params params;

    memset(ev, 0, sizeof *ev);
    ev->comm = (unsigned)ci;
    ev->slot = s;
    ev->coll = an_slot_coll(s);
    ev->link = slot_link(an, ci, s);
    ev->factor = cp_model_busbw_factor(ev->coll, p);
    m = &an->model[ev->link];
    memset(&params, 0, sizeof params);
    params.alpha = m->alpha_s;
    params.beta = 1 / m->bandwidth_Bps;
    ev->have_model = m->source != CP_SOURCE_NONE &&
                     cp_model_terms(
                         ev->coll,
                         cp_model_coll_facts(ev->coll)->nccl_algo, p,
                         &params, &terms, NULL) == 0 &&
                     (p > 1 || ev->coll == CP_COLL_SENDRECV);
    ev->weak = ev->have_model && m->source == CP_SOURCE_FIT &&
               m->fit_weak;
    ev->latency_s = ev->have_model ? terms.latency_s : NAN;
    ev->sec_per_byte = ev->have_model ? terms.sec_per_byte : NAN;
}

/* A new row of an->rows, zeroed (the array grows by doubling; *caprows is
 * its capacity).  NULL: out of memory. */
static struct cp_analysis_row *new_row(struct cp_analysis *an, size_t *caprows)
{
    struct cp_analysis_row *row;

    if (an->nrows == *caprows) {
        size_t nc = *caprows ? *caprows * 2 : 64;
        struct cp_analysis_row *bigger = realloc(an->rows, nc * sizeof *bigger);
        if (!bigger)
            return NULL;
        an->rows = bigger;
        *caprows = nc;
    }
    row = &an->rows[an->nrows++];
    memset(row, 0, sizeof *row);
    return row;
}

/* Bucket b's counts into row, and into ev's latency or bandwidth group;
 * its durations into *duration and, when latency-bound, *lat_time. */
static void add_bucket(struct an_state *st, struct an_eval *ev,
                       struct cp_analysis_row *row, struct an_bucket *b,
                       struct cp_sketch *merged, double *duration,
                       double *lat_time)
{
    unsigned a;
    int latency;

    row->calls += b->count;
    row->incomplete += b->incomplete;
    row->grouped += b->grouped;
    for (a = 0; a < CP_ANALYSIS_ALGOS; a++)
        row->algo_calls[a] += b->algo[a];
    for (a = 0; a < CP_ANALYSIS_PROTOS; a++)
        row->proto_calls[a] += b->proto[a];
    row->bytes += b->bytes;
    row->time_s += b->time;
    *duration += b->duration;
    row->skew_s += b->skew;
    if (cp_sketch_merge(merged, &b->t) < 0)
        st->oom = 1;
    latency = an_bucket_latency_bound(ev, b);
    if (latency)
        *lat_time += b->time;
    group_add(latency ? &ev->lat : &ev->bw, b,
              ev->have_model ? ev->latency_s : 0,
              ev->have_model ? ev->sec_per_byte : 0,
              ev->factor);
}

/* A row's quantiles, bandwidths and, with a model, its efficiency and
 * regime, from its merged sketch and summed durations. */
static void finish_row(struct cp_analysis_row *row, const struct an_eval *ev,
                       const struct cp_sketch *merged, double duration,
                       double lat_time)
{
    row->p50_s = cp_sketch_quantile(merged, 0.5);
    row->p99_s = cp_sketch_quantile(merged, 0.99);
    row->algbw_Bps = cp_model_algbw(row->bytes, duration);
    row->busbw_Bps = row->algbw_Bps * ev->factor;
    if (ev->have_model) {
        row->model_time_s = (double)row->calls * ev->latency_s +
                            row->bytes * ev->sec_per_byte;
        row->efficiency = duration > 0
                              ? row->model_time_s / duration
                              : NAN;
        row->model_mismatch = row->efficiency > EFFICIENCY_MAX;
        if (row->model_mismatch)
            row->efficiency = NAN;
        row->latency_share =
            row->time_s > 0 ? lat_time / row->time_s
                            : (lat_time > 0);
        row->regime = row->latency_share > 0.5
                          ? CP_REGIME_LATENCY
                          : CP_REGIME_BANDWIDTH;
    } else {
        row->model_time_s = row->efficiency = NAN;
        row->latency_share = NAN;
        row->regime = CP_REGIME_NONE;
    }
}

/* The row row_idx of table t (bucket 0 alone, then AN_SUB sub-buckets per
 * row), when one of its buckets has calls.  -1: out of memory. */
static int build_row(struct cp_analysis *an, struct an_state *st,
                     struct an_eval *ev, const struct an_slot_table *t,
                     size_t ci, unsigned row_idx, size_t *caprows)
{
    unsigned first = row_idx == 0 ? 0 : 1 + (row_idx - 1) * AN_SUB;
    unsigned last = row_idx == 0 ? 0 : first + AN_SUB - 1;
    struct cp_analysis_row *row = NULL;
    struct cp_sketch merged;
    double lat_time = 0, duration = 0;
    unsigned k;
    int rc = -1;

    cp_sketch_init(&merged);
    for (k = first; k <= last; k++) {
        struct an_bucket *b = t->b[k];
        if (!b || b->count == 0)
            continue;
        if (!row) {
            row = new_row(an, caprows);
            if (!row)
                goto out;
            row->comm = (unsigned)ci;
            row->coll = ev->coll;
            row->link = ev->link;
            row->copy_engine = an_slot_copy_engine(ev->slot);
            row->bucket_lo = row_idx == 0 ? 0 : ldexp(1, (int)row_idx - 1);
        }
        add_bucket(st, ev, row, b, &merged, &duration, &lat_time);
    }
    if (row)
        finish_row(row, ev, &merged, duration, lat_time);
    rc = 0;
out:
    cp_sketch_clear(&merged);
    return rc;
}

/* One row per power-of-two size of every (comm, slot); evals per (comm,
 * slot) split by regime. */
int an_build_rows(struct cp_analysis *an, struct an_state *st,
                  struct an_eval **evals_out, size_t *nevals_out)
{
    struct an_eval *evals = NULL;
    size_t nevals = 0, capevals = 0, caprows = 0, ci;
    unsigned s, row_idx;
    int rc = -1;

    for (ci = 0; ci < st->ncomms; ci++) {
        struct an_comm *c = st->comms[ci];
        for (s = 0; s < AN_SLOTS; s++) {
            struct an_slot_table *t = c->slots[s];
            struct an_eval *ev;

            if (!t || t->count == 0)
                continue;
            if (nevals == capevals) {
                size_t nc = capevals ? capevals * 2 : 32;
                struct an_eval *bigger = realloc(evals, nc * sizeof *bigger);
                if (!bigger)
                    goto out;
                evals = bigger;
                capevals = nc;
            }
            ev = &evals[nevals++];
            init_eval(an, c, ci, s, ev);
            for (row_idx = 0; row_idx <= 64; row_idx++)
                if (build_row(an, st, ev, t, ci, row_idx, &caprows) < 0)
                    goto out;
        }
    }
    rc = 0;
out:
    if (rc < 0) {
        free(evals);
        evals = NULL;
        nevals = 0;
    }
    *evals_out = evals;
    *nevals_out = nevals;
    return rc;
}

void an_class_bandwidths(struct cp_analysis *an, const struct an_eval *ev,
                         size_t nev)
{
    double fn[CP_LINK_COUNT] = {0, 0}, t[CP_LINK_COUNT] = {0, 0},
           mt[CP_LINK_COUNT] = {0, 0};
    uint64_t calls[CP_LINK_COUNT] = {0, 0};
    size_t i;
    unsigned k;

    for (i = 0; i < nev; i++) {
        if (!ev[i].have_model)
            continue;
        fn[ev[i].link] += ev[i].bw.fn;
        t[ev[i].link] += ev[i].bw.duration;
        mt[ev[i].link] += ev[i].bw.model_time;
        calls[ev[i].link] += ev[i].bw.judged_calls;
    }
    for (k = 0; k < CP_LINK_COUNT; k++) {
        an->model[k].bw_calls = calls[k];
        an->model[k].busbw_Bps = t[k] > 0 ? fn[k] / t[k] : NAN;
        an->model[k].model_busbw_Bps = mt[k] > 0 ? fn[k] / mt[k] : NAN;
    }
}

/* The port rate a node's NICs promise: per node its fastest ACTIVE port,
 * the median over the job's nodes with one; bytes/s, NaN none. */
static double port_reference(const struct cp_analysis *an)
{
    double *best = NULL, *v = NULL, ref = NAN;
    size_t i, n = 0;

    best = calloc(an->nnodes ? an->nnodes : 1, sizeof *best);
    v = malloc((an->nnodes ? an->nnodes : 1) * sizeof *v);
    if (!best || !v)
        goto out;
    for (i = 0; i < an->ports.nports; i++) {
        const struct cp_analysis_port *p = &an->ports.ports[i];
        if (p->node < an->nnodes && strcmp(p->state, "ACTIVE") == 0 &&
            p->rate_Gbps > best[p->node])
            best[p->node] = p->rate_Gbps;
    }
    for (i = 0; i < an->nnodes; i++)
        if (best[i] > 0)
            v[n++] = best[i];
    if (n) {
        cp_stats_sort(v, n);
        ref = cp_stats_median_sorted(v, n) * 1e9 / 8;
    }
out:
    free(best);
    free(v);
    return ref;
}

/* The absolute reference of each class (the profile, else for the
 * network the NICs' port rate from the snapshots; the fit of the same
 * calls is never one: it cannot call them slow), and the busbw it
 * predicts for the class's bandwidth-bound calls. */
void an_set_references(struct cp_analysis *an, const struct an_eval *ev,
                       size_t nev)
{
    double fn[CP_LINK_COUNT] = {0, 0}, mt[CP_LINK_COUNT] = {0, 0};
    size_t i;
    unsigned k;

    if (an->model[CP_LINK_INTER].expected_source == CP_SOURCE_NONE) {
        double ports = port_reference(an);
        if (ports > 0) {
            an->model[CP_LINK_INTER].expected_Bps = ports;
            an->model[CP_LINK_INTER].expected_source = CP_SOURCE_PORTS;
        }
    }
    for (i = 0; i < nev; i++) {
        const struct cp_analysis_link *m = &an->model[ev[i].link];
        if (!ev[i].have_model || !(m->expected_Bps > 0))
            continue;
        fn[ev[i].link] += ev[i].bw.fn;
        mt[ev[i].link] += (double)ev[i].bw.judged_calls * ev[i].latency_s +
                          ev[i].bw.judged_bytes * ev[i].sec_per_byte *
                              m->bandwidth_Bps / m->expected_Bps;
    }
    for (k = 0; k < CP_LINK_COUNT; k++)
        an->model[k].reference_busbw_Bps = mt[k] > 0 ? fn[k] / mt[k] : NAN;
}
