/* cp_aggregate.c - the aggregates of the stream: the nodes' clock offsets,
 * the communicators, the steps, the summary, the timeline, the missing
 * ranks and the slowest calls.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_aggregate.h"
#include "cp_stats.h"
#include "cp_steps.h"

static int compare_top(const void *a, const void *b)
{
    const struct an_top_entry *x = a, *y = b;
    return x->key > y->key ? -1 : x->key < y->key;
}

/* The heaps of the stream as lists, largest first. */
int an_build_slowest(struct cp_analysis *an, int64_t origin,
                     struct an_top *top, struct cp_analysis_instance **out,
                     size_t *nout)
{
    size_t i;

    *nout = 0;
    if (!top || top->n == 0)
        return 0;
    qsort(top->e, top->n, sizeof top->e[0], compare_top);
    *out = calloc(top->n, sizeof **out);
    if (!*out)
        return -1;
    for (i = 0; i < top->n; i++) {
        const struct an_top_entry *e = &top->e[i];
        const struct an_inst *in = &e->in;
        struct cp_analysis_instance *o = &(*out)[i];
        const struct cp_analysis_comm *c = &an->comms[e->comm];
        o->comm = e->comm;
        o->coll = an_slot_coll(in->coll);
        o->copy_engine = an_slot_copy_engine(in->coll);
        o->seq = in->seq;
        o->bytes = in->n;
        o->members = in->members;
        o->start_s = (double)(in->first_start - origin) * 1e-9;
        o->own_s = in->max_end > in->last_start
                       ? (double)(in->max_end - in->last_start) * 1e-9
                       : 0;
        o->model_s = cp_analysis_model_time(
            an, (enum cp_link_class)an_slot_link(in->coll, c->link), o->coll,
            c->nranks, o->bytes);
        o->skew_s = (double)(in->last_start - in->first_start) * 1e-9;
        o->last_rank = -1;
        if (in->last_file >= 0 && (size_t)in->last_file < an->nranks) {
            o->last_rank = an->ranks[in->last_file].rank;
            o->last_node = an->ranks[in->last_file].node;
        }
        o->late_s = (double)(in->last_start - in->second_start) * 1e-9;
        o->algo = AN_INFO_ALGO(in->info);
        o->proto = AN_INFO_PROTO(in->info);
    }
    *nout = top->n;
    return 0;
}

void an_describe_window(struct cp_analysis *an,
                        const struct cp_analysis_opts *opts)
{
    struct cp_analysis_window_info *w = &an->window;
    int64_t origin = opts->window_origin_ns != INT64_MIN
                         ? opts->window_origin_ns
                         : an->summary.start_ns;

    w->active = opts->window_from_ns != INT64_MIN ||
                opts->window_to_ns != INT64_MAX;
    snprintf(w->by, sizeof w->by, "%s",
             !w->active ? "the whole run"
             : opts->window_by ? opts->window_by : "--from/--to");
    w->from_s = opts->window_from_ns == INT64_MIN
                    ? NAN
                    : (double)(opts->window_from_ns - origin) * 1e-9;
    w->to_s = opts->window_to_ns == INT64_MAX
                  ? NAN
                  : (double)(opts->window_to_ns - origin) * 1e-9;
    w->calls_left_out = an->summary.outside_calls;
    w->logs_from_sync_point = an->summary.logs_seeked;
}

/* Causal bounds of every node's offset against node 0 from the pairs'
 * [lo, hi]: a system of difference constraints, solved by relaxing the
 * edges until nothing changes (Bellman-Ford; a change after nnodes rounds
 * means the constraints contradict each other: drift or damage).  Returns
 * 0, or -1 when contradictory. */
static int offset_bounds(size_t nnodes, const struct an_state *st,
                         double *low, double *high)
{
    size_t i, round;
    int changed = 1;

    for (i = 0; i < nnodes; i++) {
        low[i] = i == 0 ? 0 : -INFINITY;
        high[i] = i == 0 ? 0 : INFINITY;
    }
    for (round = 0; changed && round <= nnodes; round++) {
        changed = 0;
        for (i = 0; i < st->npairs; i++) {
            const struct an_offset_pair *p = &st->pairs[i];
            double lo = p->lo_ns == INT64_MIN ? -INFINITY
                                              : (double)p->lo_ns * 1e-9;
            double hi = p->hi_ns == INT64_MAX ? INFINITY
                                              : (double)p->hi_ns * 1e-9;
            /* offset(x) - offset(r) in [lo, hi] */
            if (high[p->r] + hi < high[p->x]) {
                high[p->x] = high[p->r] + hi;
                changed = 1;
            }
            if (high[p->x] - lo < high[p->r]) {
                high[p->r] = high[p->x] - lo;
                changed = 1;
            }
            if (low[p->r] + lo > low[p->x]) {
                low[p->x] = low[p->r] + lo;
                changed = 1;
            }
            if (low[p->x] - hi > low[p->r]) {
                low[p->r] = low[p->x] - hi;
                changed = 1;
            }
        }
    }
    if (changed)
        return -1;
    for (i = 0; i < nnodes; i++)
        if (low[i] > high[i])
            return -1;
    return 0;
}

/* Per-node offsets from the prefix pass's samples: the median of each
 * (node, reference) pair, chained from node 0 outwards, kept within what
 * causality allows; applied only where that excludes a shared clock. */
void an_solve_offsets(struct cp_analysis *an, struct an_state *st,
                      double *offsets)
{
    size_t i;
    int changed = 1, consistent;
    double *low = NULL, *high = NULL;

    for (i = 0; i < an->nnodes; i++) {
        offsets[i] = 0;
        an->nodes[i].offset_known = i == 0;
    }
    an->offset_reference = 0;
    an->offset_instances = st->offset_instances;
    for (i = 0; i < st->npairs; i++)
        cp_stats_sort(st->pairs[i].v, st->pairs[i].n);
    while (changed) {
        changed = 0;
        for (i = 0; i < st->npairs; i++) {
            struct an_offset_pair *p = &st->pairs[i];
            double med;
            if (p->n == 0)
                continue;
            med = cp_stats_median_sorted(p->v, p->n) * 1e-9;
            if (!(fabs(med) < 86400)) /* more than a day: damage */
                continue;
            if (an->nodes[p->r].offset_known && !an->nodes[p->x].offset_known) {
                offsets[p->x] = offsets[p->r] + med;
                an->nodes[p->x].offset_known = 1;
                an->nodes[p->x].offset_samples = p->n;
                changed = 1;
            } else if (an->nodes[p->x].offset_known &&
                       !an->nodes[p->r].offset_known) {
                offsets[p->r] = offsets[p->x] - med;
                an->nodes[p->r].offset_known = 1;
                an->nodes[p->r].offset_samples = p->n;
                changed = 1;
            }
        }
    }
    low = malloc(an->nnodes * sizeof *low);
    high = malloc(an->nnodes * sizeof *high);
    consistent = low && high && offset_bounds(an->nnodes, st, low, high) == 0;
    for (i = 0; i < an->nnodes; i++) {
        struct cp_analysis_node *n = &an->nodes[i];
        if (!(fabs(offsets[i]) < 86400) || !consistent ||
            !isfinite(low[i]) || !isfinite(high[i]) ||
            !(fabs(low[i]) < 86400 && fabs(high[i]) < 86400)) {
            /* chained too far, contradictory or unbounded: unknown */
            offsets[i] = 0;
            n->offset_known = i == 0;
            n->offset_low_s = n->offset_high_s = 0;
            n->offset_significant = 0;
            n->offset_s = n->offset_estimate_s = 0;
            continue;
        }
        /* a median outside what causality allows is biased (a loaded
         * node's calls end late): the middle of the bounds, not the edge
         * it crossed (16 of 420 jobs with a planted offset in seven sets
         * of the accuracy matrix: mean error 0.70 ms at the edge, 0.18 ms
         * in the middle, nearer in 14 of the 16) */
        if (offsets[i] < low[i] || offsets[i] > high[i])
            offsets[i] = 0.5 * (low[i] + high[i]);
        n->offset_known = 1;
        n->offset_estimate_s = offsets[i];
        n->offset_low_s = low[i];
        n->offset_high_s = high[i];
        /* a shared clock (offset 0) is possible: nothing to correct */
        n->offset_significant = low[i] > 0 || high[i] < 0;
        if (!n->offset_significant)
            offsets[i] = 0;
        n->offset_s = offsets[i];
    }
    free(low);
    free(high);
}

static int compare_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

int an_build_comms(struct cp_analysis *an, struct an_state *st)
{
    size_t i;
    unsigned r;

    an->comms = calloc(st->ncomms ? st->ncomms : 1, sizeof *an->comms);
    if (!an->comms)
        return -1;
    for (i = 0; i < st->ncomms; i++) {
        struct an_comm *c = st->comms[i];
        struct cp_analysis_comm *pc = &an->comms[i];
        unsigned n = 0, k;

        pc->id = c->id;
        pc->nranks = c->nranks;
        memcpy(pc->name, c->name, sizeof pc->name);
        for (r = 0; pc->name[r]; r++)
            if ((unsigned char)pc->name[r] < 0x20 ||
                (unsigned char)pc->name[r] > 0x7e)
                pc->name[r] = '?';
        pc->instances = c->instances;
        pc->incomplete = c->incomplete;
        pc->p2p = c->p2p;
        pc->time_s = c->time;
        pc->skew_p50_s = pc->skew_p90_s = pc->skew_p99_s = pc->skew_max_s =
            NAN;
        if (c->skew.count) {
            pc->skew_p50_s = cp_sketch_quantile(&c->skew, 0.5);
            pc->skew_p90_s = cp_sketch_quantile(&c->skew, 0.9);
            pc->skew_p99_s = cp_sketch_quantile(&c->skew, 0.99);
            pc->skew_max_s = cp_sketch_quantile(&c->skew, 1.0);
        }
        pc->ranks = malloc(c->nranks * sizeof *pc->ranks);
        pc->nodes = malloc(c->nranks * sizeof *pc->nodes);
        an->ncomms++;
        if (!pc->ranks || !pc->nodes)
            return -1;
        for (r = 0; r < c->nranks; r++) {
            int32_t f = c->member_file[r];
            pc->ranks[r] = f < 0 ? -1 : an->ranks[f].rank;
            pc->missing += f < 0;
            if (f >= 0)
                pc->nodes[n++] = an->ranks[f].node;
        }
        qsort(pc->nodes, n, sizeof *pc->nodes, compare_unsigned);
        for (r = k = 0; r < n; r++)
            if (k == 0 || pc->nodes[k - 1] != pc->nodes[r])
                pc->nodes[k++] = pc->nodes[r];
        pc->nnodes = k;
        pc->link = k > 1 ? CP_LINK_INTER : CP_LINK_INTRA;
    }
    return 0;
}

/* The training steps in the run: the period of the calls of the lowest
 * rank (cp_steps: communicator, operation, count and type in the order the
 * rank made them), or unknown (0): then nothing is said per step. */
/* The order in which the steps' rank is picked: the global ranks from
 * the lowest, then those without one, in input order. */
static int pick_order(const void *a, const void *b, void *arg)
{
    const struct cp_analysis *an = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    long rx = an->ranks[x].rank, ry = an->ranks[y].rank;

    if ((rx < 0) != (ry < 0))
        return rx < 0 ? 1 : -1;
    if (rx >= 0 && rx != ry)
        return rx < ry ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The steps found in the log of rank (index into an->ranks), total its
 * successful calls: an->summary.steps, steps_method and steps_at set when
 * a pattern repeats, else left as they are. */
static void steps_of_rank(struct cp_analysis *an, size_t rank, uint64_t total)
{
    const struct cp_analysis_rank *pick = &an->ranks[rank];
    struct cp_steps_result res;
    struct cp_error err;

    if (cp_steps_from_log(an->inputs[pick->input].path,
                          an->inputs[pick->input].log, total, &res,
                          &err) < 0 ||
        res.steps == 0)
        return;
    an->summary.steps = res.steps;
    an->steps_at.rank = (long)rank;
    an->steps_at.first = res.first;
    an->steps_at.period = res.period;
    snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
             "a pattern of %zu calls repeats on rank %d%s", res.period,
             pick->rank, res.by_pauses ? " (steps marked by pauses)" : "");
}

int an_steps_pick(struct cp_analysis *an,
                  uint64_t (*successful)(const struct cp_analysis *an,
                                         size_t rank))
{
    size_t *order = malloc((an->nranks ? an->nranks : 1) * sizeof *order);
    size_t i;

    if (!order)
        return -1;
    an->summary.steps = 0;
    snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
             "unknown: no sequence of calls repeats (give --steps)");
    for (i = 0; i < an->nranks; i++)
        order[i] = i;
    qsort_r(order, an->nranks, sizeof *order, pick_order, an);
    for (i = 0; i < an->nranks; i++) {
        uint64_t ok = successful(an, order[i]);
        if (ok >= 4) {
            steps_of_rank(an, order[i], ok);
            break;
        }
    }
    free(order);
    return 0;
}

/* A rank's successful calls as the main pass counted them. */
static uint64_t counted(const struct cp_analysis *an, size_t rank)
{
    return an->ranks[rank].calls - an->ranks[rank].failed;
}

int an_estimate_steps(struct cp_analysis *an, unsigned given)
{
    if (given) {
        an->summary.steps = given;
        snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
                 "--steps");
        return 0;
    }
    return an_steps_pick(an, counted);
}

/* Each rank's time in NCCL calls as a share of the run: the median and
 * the worst rank. */
static void rank_shares(struct cp_analysis *an)
{
    struct cp_analysis_summary *sm = &an->summary;
    double *v = NULL;
    size_t i, n = 0;

    sm->rank_share_median = sm->rank_share_max = NAN;
    sm->rank_share_max_rank = -1;
    if (!(sm->span_s > 0) || an->nranks == 0)
        return;
    v = malloc(an->nranks * sizeof *v);
    if (!v)
        return;
    for (i = 0; i < an->nranks; i++) {
        double s = fmin(1, an->ranks[i].time_s / sm->span_s);
        v[n++] = s;
        if (!(s <= sm->rank_share_max)) {
            sm->rank_share_max = s;
            sm->rank_share_max_rank = an->ranks[i].rank;
        }
    }
    cp_stats_sort(v, n);
    sm->rank_share_median = cp_stats_median_sorted(v, n);
    free(v);
}

void an_finish_summary(struct cp_analysis *an, struct an_state *st,
                       const struct an_eval *ev, size_t nev)
{
    struct cp_analysis_summary *sm = &an->summary;
    unsigned timers[5] = {0, 0, 0, 0, 0}, k;
    int have_model = 0;
    size_t i;

    sm->records = st->records;
    for (i = 0; i < an->nranks; i++)
        sm->calls += an->ranks[i].calls;
    sm->failed_calls = st->failed;
    sm->instances = st->instances;
    sm->incomplete_instances = st->incomplete;
    sm->p2p_pairs = st->p2p_pairs;
    sm->unmatched_p2p = st->unmatched;
    sm->late_records = st->late;
    sm->unjoinable_calls = st->unjoinable;
    an->nccl.gpu_timed = st->gpu_timed;
    an->nccl.captures_left_out = st->captures_left_out;
    sm->comm_time_s = st->comm_time;
    sm->skew_time_s = st->skew_time;
    sm->wait_time_s = st->wait_time;
    sm->rank_time_s = st->rank_time;
    sm->span_s = st->t_last > st->t_first
                     ? (double)(st->t_last - st->t_first) * 1e-9
                     : 0;
    sm->busy_s = fmin(an_busy_total_s(&st->busy), sm->span_s);
    rank_shares(an);
    sm->start_ns = st->t_last >= st->t_first ? st->t_first : 0;
    sm->outside_calls = st->outside;
    sm->logs_seeked = st->seeked;
    for (i = 0; i < nev; i++) {
        have_model |= ev[i].have_model;
        sm->latency_bound_s += ev[i].lat.time;
    }
    sm->latency_bound_share =
        have_model && sm->comm_time_s > 0
            ? fmin(1, sm->latency_bound_s / sm->comm_time_s)
            : NAN;
    for (i = 0; i < an->nranks; i++) {
        k = an->inputs[an->ranks[i].input].timer;
        if (k < 5)
            timers[k]++;
    }
    for (k = 1; k < 5; k++)
        if (timers[k] > timers[sm->timer])
            sm->timer = k;
    for (i = 0; i < an->ninputs; i++)
        sm->inputs_skipped += an->inputs[i].status == CP_INPUT_SKIPPED ||
                              an->inputs[i].status == CP_INPUT_UNREADABLE;
}

/* The windows of the main pass, widened to the whole span (the first
 * arrival may precede every own interval) and clipped to it. */
int an_build_timeline(struct cp_analysis *an, struct an_state *st)
{
    struct an_timeline *tl = st->timeline;
    struct cp_analysis_timeline *out = &an->timeline;
    int64_t w;
    size_t i, n;
    unsigned k;

    if (!tl || !tl->started || st->t_first > st->t_last)
        return 0;
    an_timeline_cover(tl, st->t_first, st->t_last);
    w = (int64_t)1 << tl->shift;
    n = (size_t)(((uint64_t)st->t_last - (uint64_t)tl->origin) >> tl->shift) + 1;
    if (n > 1 && (((uint64_t)st->t_last - (uint64_t)tl->origin) & (uint64_t)(w - 1)) == 0) {
        /* the run ends on a boundary: the last window would have no width;
         * what ended there goes to the one before */
        struct an_window *last = &tl->w[n - 1], *prev = &tl->w[n - 2];
        prev->time += last->time;
        for (k = 0; k < CP_COLL_COUNT; k++)
            prev->op_time[k] += last->op_time[k];
        prev->calls += last->calls;
        prev->bytes += last->bytes;
        prev->wait += last->wait;
        an_wdetail_merge(&tl->d[n - 2], &tl->d[n - 1]);
        n--;
    }
    out->windows = calloc(n, sizeof *out->windows);
    if (!out->windows)
        return -1;
    out->nwindows = n;
    out->window_s = (double)w * 1e-9;
    for (i = 0; i < n; i++) {
        struct cp_analysis_window *o = &out->windows[i];
        const struct an_window *in = &tl->w[i];
        int64_t s = tl->origin + (int64_t)i * w, e = s + w;
        if (s < st->t_first)
            s = st->t_first;
        if (e > st->t_last)
            e = st->t_last;
        o->start_s = (double)(s - st->t_first) * 1e-9;
        o->end_s = (double)(e - st->t_first) * 1e-9;
        o->comm_time_s = in->time;
        for (k = 0; k < CP_COLL_COUNT; k++)
            o->op_time_s[k] = in->op_time[k];
        o->calls = in->calls;
        o->bytes = in->bytes;
        o->wait_time_s = in->wait;
    }
    return 0;
}

int an_find_missing_ranks(struct cp_analysis *an)
{
    unsigned char *seen = NULL;
    size_t i;
    int w, rc = -1;

    w = an->world_size;
    if (w <= 0 || w > (1 << 24))
        return 0;
    seen = calloc((size_t)w, 1);
    if (!seen)
        goto out;
    for (i = 0; i < an->nranks; i++)
        if (an->ranks[i].rank >= 0 && an->ranks[i].rank < w)
            seen[an->ranks[i].rank] = 1;
    for (i = 0; i < (size_t)w; i++)
        if (!seen[i]) {
            int *bigger = realloc(an->summary.missing_ranks,
                                  (an->summary.nmissing + 1) * sizeof *bigger);
            if (!bigger)
                goto out;
            an->summary.missing_ranks = bigger;
            an->summary.missing_ranks[an->summary.nmissing++] = (int)i;
        }
    rc = 0;
out:
    free(seen);
    return rc;
}
