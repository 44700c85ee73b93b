/* cp_longrun.c - a long run under a capture policy (docs/analysis.md,
 * "Long runs"): the aggregates of kind 12 (struct cp_rec_agg) of every
 * rank joined by (interval, communicator, signature), and the detail
 * windows as time spans; then, after the fit, the view an->long_run.
 *
 * A rank's aggregate says how many calls of one signature it made in an
 * interval and their summed duration.  For a blocking collective every
 * member leaves at about the same time, so a rank's mean duration is the
 * instance's end minus its arrival: the least rank mean is the instance's
 * own time (the last arrival waited least), the largest minus the least is
 * the mean arrival skew, and the rank of the least mean arrived last.
 * The join keeps per (interval, communicator, signature) only the sums
 * and the least and largest rank means, so its memory grows with the
 * intervals, communicators and signatures, never with the calls or the
 * ranks.  It is bounded (LR_CELLS_MAX cells): past it, neighbouring
 * intervals merge two into one (the interval doubles, as often as needed;
 * long_run.merged says how often), the least and largest rank means of
 * two merged cells taken as their call-weighted means.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_model.h"

/* cells at most (the table has twice as many slots): 48 bytes each
 * (tests/analyze/longrun_bound.c builds this file with a small one) */
#ifndef LR_CELLS_MAX
#define LR_CELLS_MAX (1u << 19)
#endif
/* signatures at most; those past it count as their communicator's
 * "other" signature (calls and durations only) */
#define LR_SIGS_MAX 8192u
/* detail windows kept as time spans */
#define LR_WINDOWS_MAX 4096u
#define LR_SIG_OTHER_OP 0xffu

struct lr_sig {
    uint32_t comm, nranks;
    uint8_t op, dtype, redop;
    uint64_t count;
};

struct lr_cell {
    int64_t k;      /* interval index >> shift; -1 empty */
    uint32_t sig;   /* index into sigs */
    uint32_t ranks; /* aggregates joined */
    uint64_t calls;
    double sum_ns;
    double min_mean, max_mean; /* ns */
    int32_t min_file;
};

struct lr_window {
    uint32_t index;
    int used;
    int64_t start, end;
    uint64_t instances;
};

struct an_longrun {
    int have_policy, differ;
    uint32_t first, window, every, interval_ms;
    /* instances outside the rule's windows (a trigger's) that some
     * members' logs lack: the trigger fired on some ranks only */
    uint64_t triggered_partial;
    unsigned shift;
    uint64_t records, left_out, folded;
    /* signatures */
    struct lr_sig *sigs;
    uint32_t nsigs, capsigs;
    uint32_t *sig_hash; /* index + 1, 0 empty; 2 x LR_SIGS_MAX slots */
    /* cells */
    struct lr_cell *cells;
    size_t cap, ncells; /* cap a power of two */
    int full;           /* memory ran out: the rest left out */
    /* detail windows (open addressing by index) */
    struct lr_window *win;
    uint32_t nwin;
    uint64_t win_left_out;
    /* the same per communicator, for the findings' tests per window */
    struct an_wcells cells_w;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

struct an_longrun *an_longrun_create(void)
{
    struct an_longrun *lr = calloc(1, sizeof *lr);

    if (!lr)
        return NULL;
    lr->sig_hash = calloc(2 * LR_SIGS_MAX, sizeof *lr->sig_hash);
    lr->win = calloc(2 * LR_WINDOWS_MAX, sizeof *lr->win);
    if (!lr->sig_hash || !lr->win) {
        an_longrun_free(lr);
        return NULL;
    }
    return lr;
}

void an_longrun_free(struct an_longrun *lr)
{
    if (!lr)
        return;
    free(lr->sigs);
    free(lr->sig_hash);
    free(lr->cells);
    free(lr->win);
    an_wcells_free(&lr->cells_w);
    free(lr);
}

void an_longrun_policy(struct an_longrun *lr, const struct cp_log_header *h)
{
    if (!lr->have_policy) {
        lr->have_policy = 1;
        lr->first = h->policy_first;
        lr->window = h->policy_window;
        lr->every = h->policy_every;
        lr->interval_ms = h->policy_interval_ms;
    } else if (lr->first != h->policy_first ||
               lr->window != h->policy_window ||
               lr->every != h->policy_every ||
               lr->interval_ms != h->policy_interval_ms) {
        lr->differ = 1;
    }
}

int an_longrun_rule_keeps(struct an_longrun *lr, uint32_t seq)
{
    if (!lr->have_policy || lr->differ ||
        cp_policy_keeps(lr->first, lr->window, lr->every, seq))
        return 1;
    lr->triggered_partial++;
    return 0;
}

void an_longrun_left_out(struct an_longrun *lr)
{
    lr->left_out++;
}

/* The signature's index; UINT32_MAX when memory ran out. */
static uint32_t sig_of(struct an_longrun *lr, const struct lr_sig *s)
{
    uint64_t h = mix(s->comm * 0x9e3779b97f4a7c15ULL ^ s->count ^
                     ((uint64_t)s->op << 56) ^ ((uint64_t)s->dtype << 48) ^
                     ((uint64_t)s->redop << 40));
    uint32_t mask = 2 * LR_SIGS_MAX - 1, i = (uint32_t)h & mask;
    struct lr_sig other;

    for (;; i = (i + 1) & mask) {
        uint32_t v = lr->sig_hash[i];
        const struct lr_sig *o;
        if (!v)
            break;
        o = &lr->sigs[v - 1];
        if (o->comm == s->comm && o->op == s->op && o->dtype == s->dtype &&
            o->redop == s->redop && o->count == s->count)
            return v - 1;
    }
    if (lr->nsigs >= LR_SIGS_MAX - 1 && s->op != LR_SIG_OTHER_OP) {
        /* past the bound: the communicator's "other" signature */
        memset(&other, 0, sizeof other);
        other.comm = s->comm;
        other.nranks = s->nranks;
        other.op = LR_SIG_OTHER_OP;
        return sig_of(lr, &other);
    }
    if (lr->nsigs >= LR_SIGS_MAX)
        return UINT32_MAX;
    if (lr->nsigs == lr->capsigs) {
        uint32_t cap = lr->capsigs ? 2 * lr->capsigs : 64;
        struct lr_sig *bigger = realloc(lr->sigs, cap * sizeof *bigger);
        if (!bigger)
            return UINT32_MAX;
        lr->sigs = bigger;
        lr->capsigs = cap;
    }
    lr->sigs[lr->nsigs] = *s;
    lr->sig_hash[i] = ++lr->nsigs;
    return lr->nsigs - 1;
}

static size_t cell_slot(const struct an_longrun *lr, int64_t k, uint32_t sig)
{
    size_t mask = lr->cap - 1;
    size_t i = (size_t)mix((uint64_t)k * 0x9e3779b97f4a7c15ULL ^ sig) & mask;

    while (lr->cells[i].k >= 0 &&
           !(lr->cells[i].k == k && lr->cells[i].sig == sig))
        i = (i + 1) & mask;
    return i;
}

/* Two cells of one key joined: sums added, the extreme rank means taken
 * as call-weighted means (merged intervals). */
static void cell_merge(struct lr_cell *d, const struct lr_cell *s)
{
    double a = (double)d->calls, b = (double)s->calls;

    if (a + b > 0) {
        d->min_mean = (d->min_mean * a + s->min_mean * b) / (a + b);
        d->max_mean = (d->max_mean * a + s->max_mean * b) / (a + b);
    }
    if (b > a)
        d->min_file = s->min_file;
    if (s->ranks > d->ranks)
        d->ranks = s->ranks;
    d->calls += s->calls;
    d->sum_ns += s->sum_ns;
}

/* Rehash into a table of cap slots, keys shifted right by `by`. */
static int rehash(struct an_longrun *lr, size_t cap, unsigned by)
{
    struct lr_cell *old = lr->cells;
    size_t oldcap = lr->cap, i;

    lr->cells = malloc(cap * sizeof *lr->cells);
    if (!lr->cells) {
        lr->cells = old;
        return -1;
    }
    for (i = 0; i < cap; i++)
        lr->cells[i].k = -1;
    lr->cap = cap;
    lr->ncells = 0;
    for (i = 0; i < oldcap; i++) {
        struct lr_cell c = old[i];
        size_t at;
        if (c.k < 0)
            continue;
        c.k >>= by;
        at = cell_slot(lr, c.k, c.sig);
        if (lr->cells[at].k < 0) {
            lr->cells[at] = c;
            lr->ncells++;
        } else {
            cell_merge(&lr->cells[at], &c);
        }
    }
    free(old);
    return 0;
}

/* Room for one more cell: a larger table, or past the bound intervals
 * merged two into one (as often as it takes to free some). */
static int make_room(struct an_longrun *lr)
{
    if (lr->cap && 2 * (lr->ncells + 1) <= lr->cap)
        return 0;
    if (lr->cap < 2 * (size_t)LR_CELLS_MAX)
        return rehash(lr,
                      lr->cap ? 2 * lr->cap
                      : 2 * (size_t)LR_CELLS_MAX < 1024 ? 2 * (size_t)LR_CELLS_MAX
                                                       : 1024,
                      0);
    while (2 * (lr->ncells + 1) > lr->cap && lr->shift < 62) {
        if (rehash(lr, lr->cap, 1) < 0)
            return -1;
        lr->shift++;
    }
    return 2 * (lr->ncells + 1) <= lr->cap ? 0 : -1;
}

void an_longrun_add(struct an_longrun *lr, int32_t file, uint32_t comm,
                    uint32_t nranks, const struct cp_rec_agg *r)
{
    uint64_t interval_ns = (uint64_t)(lr->interval_ms ? lr->interval_ms
                                                      : r->interval_ms) *
                           1000000u;
    struct lr_sig s;
    uint32_t sig;
    int64_t k;
    size_t at;
    double mean;
    struct lr_cell *c;

    if (lr->full || interval_ns == 0) {
        lr->left_out++;
        return;
    }
    memset(&s, 0, sizeof s);
    s.comm = comm;
    s.nranks = nranks;
    s.op = r->op;
    s.dtype = r->dtype;
    s.redop = r->redop;
    s.count = r->count;
    sig = sig_of(lr, &s);
    if (sig == UINT32_MAX || make_room(lr) < 0) {
        lr->full = 1;
        lr->left_out++;
        return;
    }
    k = (int64_t)(r->first_ns / interval_ns) >> lr->shift;
    at = cell_slot(lr, k, sig);
    c = &lr->cells[at];
    mean = (double)r->sum_ns / (double)r->calls;
    if (c->k < 0) {
        memset(c, 0, sizeof *c);
        c->k = k;
        c->sig = sig;
        c->min_mean = c->max_mean = mean;
        c->min_file = file;
        lr->ncells++;
    } else {
        if (mean < c->min_mean) {
            c->min_mean = mean;
            c->min_file = file;
        }
        if (mean > c->max_mean)
            c->max_mean = mean;
    }
    c->ranks++;
    c->calls += r->calls;
    c->sum_ns += (double)r->sum_ns;
    lr->records++;
    lr->folded += r->calls;
}

void an_longrun_instance(struct an_longrun *lr, const struct an_lr_inst *x)
{
    uint32_t index, mask = 2 * LR_WINDOWS_MAX - 1, i, seq = x->seq;
    int64_t start = x->start, end = x->end;
    struct lr_window *w;

    if (seq < lr->first)
        index = 0;
    else if (lr->every && seq % lr->every < lr->window)
        index = 1 + seq / lr->every;
    else
        /* kept outside the rule's windows, on every member: a trigger's
         * window, or the last calls of a killed run's rings (every 0, no
         * window after the first: one period, every seq from first on) */
        index = CP_ANALYSIS_LR_OUTSIDE | (lr->every ? 1 + seq / lr->every : 1);
    for (i = (uint32_t)mix(index) & mask;
         lr->win[i].used && lr->win[i].index != index; i = (i + 1) & mask)
        ;
    w = &lr->win[i];
    if (!w->used) {
        if (lr->nwin >= LR_WINDOWS_MAX) {
            lr->win_left_out++;
            return;
        }
        w->used = 1;
        w->index = index;
        w->start = start;
        w->end = end;
        lr->nwin++;
    }
    if (start < w->start)
        w->start = start;
    if (end > w->end)
        w->end = end;
    w->instances++;
    an_wcells_add(&lr->cells_w, index, x);
}

/* ---- the view -------------------------------------------------------- */

static int cell_cmp(const void *a, const void *b)
{
    const struct lr_cell *x = a, *y = b;

    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return (x->sig > y->sig) - (x->sig < y->sig);
}

static int window_cmp(const void *a, const void *b)
{
    const struct cp_analysis_lr_window *x = a, *y = b;

    if (x->start_s != y->start_s)
        return (x->start_s > y->start_s) - (x->start_s < y->start_s);
    return (x->index > y->index) - (x->index < y->index);
}

/* What one communicator's signatures of one interval add up to. */
struct lr_acc {
    double own, fn, bw_own, modeled, lat, skew_sum, skew_inst;
    double best_own;
    int32_t best_file;
};

static void add_sig(const struct cp_analysis *an, const struct lr_sig *s,
                    const struct lr_cell *c, struct cp_analysis_lr_comm *o,
                    struct lr_acc *a)
{
    unsigned op = s->op & 0x7fu;
    int grouped = (s->op & 0x80u) != 0 && s->op != LR_SIG_OTHER_OP;
    unsigned ranks = c->ranks < s->nranks ? c->ranks : s->nranks;
    enum cp_coll coll;
    double inst, n, own, L, W;
    unsigned link;
    int latency = 0;

    if (ranks == 0)
        ranks = 1;
    if (ranks > o->ranks)
        o->ranks = ranks;
    o->calls += c->calls;
    o->nccl_s += c->sum_ns * 1e-9;
    if (s->op == LR_SIG_OTHER_OP || cp_op_is_p2p(op)) {
        o->instances += (double)c->calls / 2;
        return;
    }
    inst = (double)c->calls / ranks;
    o->instances += inst;
    if (grouped || cp_model_coll_from_op(op, &coll) < 0)
        return;
    own = c->min_mean * 1e-9 * inst;
    a->own += own;
    if (ranks >= 2) {
        a->skew_sum += (c->max_mean - c->min_mean) * 1e-9 * inst;
        a->skew_inst += inst;
        if (own > a->best_own) {
            a->best_own = own;
            a->best_file = c->min_file;
        }
    }
    n = cp_model_bytes_from_count(coll, s->count, cp_dtype_size(s->dtype),
                                  s->nranks);
    if (!(n >= 0))
        return;
    link = s->comm < an->ncomms ? an->comms[s->comm].link : CP_LINK_INTER;
    if (an_key_model(an, link, coll, s->nranks, &L, &W)) {
        latency = n * W < L;
        a->modeled += own;
        if (latency)
            a->lat += own;
    }
    if (!latency && own > 0) {
        double f = cp_model_busbw_factor(coll, s->nranks);
        if (isfinite(f)) {
            a->fn += f * n * inst;
            a->bw_own += own;
        }
    }
}

static void finish_comm(const struct cp_analysis *an, const struct an_state *st,
                        struct cp_analysis_lr_comm *o, const struct lr_acc *a)
{
    o->own_s = a->own;
    o->busbw_Bps = a->bw_own > 0 && a->fn > 0 ? a->fn / a->bw_own : NAN;
    o->skew_s = a->skew_inst > 0 ? a->skew_sum / a->skew_inst : NAN;
    o->latency_share = a->modeled > 0 ? a->lat / a->modeled : NAN;
    o->last_rank = -1;
    if (a->best_file >= 0 && (size_t)a->best_file < st->nfiles) {
        unsigned r = st->files[a->best_file].rank;
        if (r < an->nranks)
            o->last_rank = an->ranks[r].rank;
    }
}

/* An interval of the view, merges included, in ns. */
static double interval_ns_of(const struct an_longrun *lr)
{
    return (double)lr->interval_ms * 1e6 * (double)((uint64_t)1 << lr->shift);
}

/* The policy and the counts of the long run's view. */
static void build_header(struct cp_analysis *an, const struct an_longrun *lr)
{
    struct cp_analysis_long_run *out = &an->long_run;

    out->present = 1;
    out->first = lr->first;
    out->window = lr->window;
    out->every = lr->every;
    out->interval_ms = lr->interval_ms;
    out->policies_differ = lr->differ;
    out->merged = lr->shift;
    out->interval_s = interval_ns_of(lr) * 1e-9;
    out->records = lr->records;
    out->records_left_out = lr->left_out;
    out->folded_calls = lr->folded;
    out->kept_calls = an->summary.calls;
    out->triggered_partial = lr->triggered_partial;
    out->windows_left_out = lr->win_left_out;
}

/* The detail windows as time spans since origin, by start.  0 or -1. */
static int build_windows(const struct an_longrun *lr, int64_t origin,
                         struct cp_analysis_long_run *out)
{
    size_t i;

    if (!lr->nwin)
        return 0;
    out->windows = calloc(lr->nwin, sizeof *out->windows);
    if (!out->windows)
        return -1;
    for (i = 0; i < 2 * LR_WINDOWS_MAX; i++) {
        const struct lr_window *w = &lr->win[i];
        struct cp_analysis_lr_window *o;
        if (!w->used)
            continue;
        o = &out->windows[out->nwindows++];
        o->index = w->index;
        o->start_s = (double)(w->start - origin) * 1e-9;
        o->end_s = (double)(w->end - origin) * 1e-9;
        o->instances = w->instances;
    }
    qsort(out->windows, out->nwindows, sizeof *out->windows, window_cmp);
    return 0;
}

/* Instances per step of the detail, NaN when not known or not trusted. */
static double instances_per_step(const struct cp_analysis *an,
                                 const struct an_longrun *lr)
{
    double per_step = NAN;

    if (an->summary.steps > 0 &&
        an->summary.instances + an->summary.p2p_pairs > 0)
        per_step = (double)(an->summary.instances + an->summary.p2p_pairs) /
                   (double)an->summary.steps;
    /* the steps come from the kept calls' period (cp_steps): trusted only
     * when the first window holds three steps or more (windows shorter
     * than a step make the pieces look like a period of their own) */
    if (!(per_step > 0) || 3 * per_step > (double)lr->first)
        per_step = NAN;
    return per_step;
}

/* One interval's communicators from its cells [i, j) (sorted by
 * signature): appended to out->lr_comms from *nc on. */
static void build_interval(const struct cp_analysis *an,
                           const struct an_state *st,
                           const struct lr_cell *cells, size_t i, size_t j,
                           struct cp_analysis_lr_interval *iv,
                           struct cp_analysis_long_run *out, size_t *nc)
{
    const struct an_longrun *lr = st->longrun;
    size_t a, b;

    iv->first = *nc;
    /* per communicator: each of the interval's cells of it */
    for (a = i; a < j; a++) {
        uint32_t comm = lr->sigs[cells[a].sig].comm;
        struct cp_analysis_lr_comm *o;
        struct lr_acc acc;
        int seen = 0;
        for (b = iv->first; b < *nc; b++)
            if (out->lr_comms[b].comm == comm)
                seen = 1;
        if (seen)
            continue;
        o = &out->lr_comms[(*nc)++];
        memset(&acc, 0, sizeof acc);
        acc.best_file = -1;
        o->comm = comm;
        for (b = a; b < j; b++)
            if (lr->sigs[cells[b].sig].comm == comm)
                add_sig(an, &lr->sigs[cells[b].sig], &cells[b], o, &acc);
        finish_comm(an, st, o, &acc);
        iv->nccl_s += o->nccl_s;
        iv->own_s += o->own_s;
    }
    iv->n = *nc - iv->first;
}

/* The intervals, from the join's cells.  0 or -1 (memory). */
static int build_intervals(struct cp_analysis *an, const struct an_state *st,
                           int64_t origin)
{
    const struct an_longrun *lr = st->longrun;
    struct cp_analysis_long_run *out = &an->long_run;
    double interval_ns = interval_ns_of(lr);
    double per_step = instances_per_step(an, lr);
    struct lr_cell *cells;
    size_t n = 0, i, j, k, ni = 0, nc = 0;

    if (!lr->ncells)
        return 0;
    cells = malloc(lr->ncells * sizeof *cells);
    if (!cells)
        return -1;
    for (i = 0; i < lr->cap; i++)
        if (lr->cells[i].k >= 0)
            cells[n++] = lr->cells[i];
    /* by interval, then signature: the signatures of a communicator are
     * together when sorted by (interval, communicator) below */
    qsort(cells, n, sizeof *cells, cell_cmp);
    for (i = 0; i < n; i = j) {
        for (j = i; j < n && cells[j].k == cells[i].k; j++)
            ;
        ni++;
    }
    out->intervals = calloc(ni, sizeof *out->intervals);
    out->lr_comms = calloc(n, sizeof *out->lr_comms); /* at most one a cell */
    if (!out->intervals || !out->lr_comms) {
        free(cells);
        return -1;
    }
    for (i = 0; i < n; i = j) {
        struct cp_analysis_lr_interval *iv = &out->intervals[out->nintervals++];
        double inst = 0;
        for (j = i; j < n && cells[j].k == cells[i].k; j++)
            ;
        iv->start_s = ((double)cells[i].k * interval_ns - (double)origin) * 1e-9;
        iv->end_s = iv->start_s + interval_ns * 1e-9;
        build_interval(an, st, cells, i, j, iv, out, &nc);
        for (k = iv->first; k < nc; k++)
            inst += out->lr_comms[k].instances;
        iv->steps = per_step > 0 ? inst / per_step : NAN;
    }
    out->nlr_comms = nc;
    free(cells);
    return 0;
}

int an_longrun_build(struct cp_analysis *an, const struct an_state *st)
{
    const struct an_longrun *lr = st->longrun;
    /* the timeline's axis: summary.start_ns (the run's first start) */
    int64_t origin = an->summary.start_ns;

    if (!lr || !lr->have_policy)
        return 0;
    build_header(an, lr);
    if (build_windows(lr, origin, &an->long_run) < 0 ||
        an_wcells_build(&lr->cells_w, origin, &an->long_run) < 0 ||
        build_intervals(an, st, origin) < 0)
        return -1;
    return 0;
}

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* The shift that leaves at most max intervals of the cells' keys (sorted,
 * distinct: n of them). */
static unsigned coarse_shift(const int64_t *keys, size_t n, size_t max)
{
    unsigned by;

    for (by = 1; by < 62; by++) {
        size_t i, distinct = 0;
        for (i = 0; i < n; i++)
            distinct += i == 0 || (keys[i] >> by) != (keys[i - 1] >> by);
        if (distinct <= max)
            break;
    }
    return by;
}

/* The index of the interval of iv[0 .. n) (by start) that holds time t. */
static long holding(const struct cp_analysis_lr_interval *iv, size_t n,
                    double t)
{
    size_t lo = 0, hi = n;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (iv[mid].start_s <= t)
            lo = mid;
        else
            hi = mid;
    }
    return (long)lo;
}

/* A finding's interval index key (first_interval, last_interval) of the
 * intervals before (starts old[]) moved to the one now holding it. */
static void move_index(json_t *ev, const char *key, const double *old,
                       size_t nold, const struct cp_analysis_long_run *lr)
{
    json_t *v = json_object_get(ev, key);
    json_int_t i;

    if (!json_is_integer(v))
        return;
    i = json_integer_value(v);
    if (i < 0 || (size_t)i >= nold)
        return;
    /* the merged intervals are unions of the old: a microsecond into
     * the old one, clear of the starts' rounding */
    json_integer_set(v, holding(lr->intervals, lr->nintervals, old[i] + 1e-6));
}

int an_longrun_coarsen(struct cp_analysis *an, struct an_state *st,
                       size_t max)
{
    struct an_longrun *lr = st->longrun;
    struct cp_analysis_long_run *out = &an->long_run;
    int64_t *keys = NULL;
    double *old = NULL;
    size_t i, n = 0, nold = out->nintervals;
    int rc = -1;

    if (!lr || !lr->have_policy || nold <= max)
        return 0;
    keys = malloc(lr->ncells * sizeof *keys);
    old = malloc(nold * sizeof *old);
    if (!keys || !old)
        goto out;
    for (i = 0; i < lr->cap; i++)
        if (lr->cells[i].k >= 0)
            keys[n++] = lr->cells[i].k;
    qsort(keys, n, sizeof *keys, compare_i64);
    for (i = 0; i < nold; i++)
        old[i] = out->intervals[i].start_s;
    {
        unsigned by = coarse_shift(keys, n, max);
        if (rehash(lr, lr->cap, by) < 0)
            goto out;
        lr->shift += by;
    }
    free(out->intervals);
    free(out->lr_comms);
    out->intervals = NULL;
    out->lr_comms = NULL;
    out->nintervals = out->nlr_comms = 0;
    build_header(an, lr);
    if (build_intervals(an, st, an->summary.start_ns) < 0)
        goto out;
    for (i = 0; i < an->nfindings; i++) {
        json_t *ev = an->findings[i].evidence;
        if (!json_is_object(ev))
            continue;
        move_index(ev, "first_interval", old, nold, out);
        move_index(ev, "last_interval", old, nold, out);
    }
    rc = 0;
out:
    free(keys);
    free(old);
    return rc;
}
