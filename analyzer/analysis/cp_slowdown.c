/* cp_slowdown.c - the windows of the run after the fit: each window's
 * busbw, latency-bound share and slowness, and the slowdown finding when a
 * part of the run is much slower than the rest (docs/analysis.md,
 * "Timeline" and "Slowdowns").
 *
 * The stream keeps, per window, the calls that began in it (last arrival) by
 * (communicator, collective, ranks, power-of-two size row) (an_wdetail).
 * A window's slowness compares like with like: for each such key, its
 * typical time per call is the median, over the windows after the
 * warm-up, of the key's mean own time per judged call in a window; the
 * window's slowness is its judged calls' own time over the same calls at
 * their keys' typical times.  A slowdown is a run of consecutive windows
 * (a part) whose calls took at least three times, in all, what the same calls
 * took in the rest of the run, and whose windows' slowness ranks above the
 * rest's (a Mann-Whitney rank test: one slow window among noisy ones is
 * not a slowdown).  It needs no model, so a weak fit cannot make or hide
 * one.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"
#include "cp_units.h"

#define SLOW_FACTOR 3.0      /* the part against the rest */
#define SLOW_MIN_WINDOWS 3   /* a key needs this many windows for a base */
/* sure: this many windows with compared calls in the part, and as many
 * in the rest; this many compared calls in each; the part's windows
 * slower than the rest's at this rank-test z; a share of the whole
 * communication time lost */
#define SURE_WINDOWS 3
#define SURE_CALLS 30
#define SURE_Z 3.5
#define MIN_EXCESS_SHARE 0.02
/* not sure (info): fewer windows or calls, or a weaker test, then a
 * larger factor */
#define UNSURE_WINDOWS 3
#define UNSURE_CALLS 20
#define UNSURE_Z 3.0
#define UNSURE_FACTOR 4.0
#define COMM_SLOWED 1.5    /* a communicator slowed down in the part */
#define MAX_PARTS 3        /* slowdowns reported, apart from each other */
#define MAX_COMMS 8        /* listed in the evidence */
#define MAX_LAST_RANKS 3

/* The compared calls of one key in one window. */
struct entry {
    uint32_t comm, p;
    uint8_t slot, link, row;
    unsigned win;
    double jcalls, jown, mean, base;
};

static int key_cmp(const struct entry *x, const struct entry *y)
{
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    if (x->comm == AN_WKEY_ANY && x->link != y->link)
        return x->link < y->link ? -1 : 1;
    return 0;
}

/* By key, then warm-up windows last (they are not in the base), then by
 * mean. */
static int entry_cmp(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = key_cmp(x, y);

    if (c)
        return c;
    return x->mean < y->mean ? -1 : x->mean > y->mean;
}

static enum cp_coll key_coll(unsigned slot)
{
    return an_slot_coll(slot);
}

static unsigned key_link(const struct cp_analysis *an, const struct an_wkey *k)
{
    if (k->slot == AN_SLOT_P2P_INTRA || k->slot == CP_COLL_SENDRECV ||
        an_slot_copy_engine(k->slot))
        return an_slot_link(k->slot, CP_LINK_INTER);
    if (k->comm != AN_WKEY_ANY && k->comm < an->ncomms)
        return an->comms[k->comm].link;
    return k->link < CP_LINK_COUNT ? k->link : CP_LINK_INTER;
}

int an_key_model(const struct cp_analysis *an, unsigned link,
                     enum cp_coll coll, unsigned p, double *L, double *W)
{
    const struct cp_analysis_link *m = &an->model[link];
    struct cp_model_params params;
    struct cp_model_terms terms;

    if (m->source == CP_SOURCE_NONE || (p < 2 && coll != CP_COLL_SENDRECV))
        return 0;
    memset(&params, 0, sizeof params);
    params.alpha = m->alpha_s;
    params.beta = 1 / m->bandwidth_Bps;
    if (cp_model_terms(coll, cp_model_coll_facts(coll)->nccl_algo,
                       coll == CP_COLL_SENDRECV ? 2 : p, &params, &terms,
                       NULL) < 0)
        return 0;
    *L = terms.latency_s;
    *W = terms.sec_per_byte;
    return 1;
}

/* busbw and latency-bound share of one window. */
static void window_rates(const struct cp_analysis *an,
                         const struct an_wdetail *d,
                         struct cp_analysis_window *w)
{
    double fn = 0, own = 0, lat = 0, modeled = 0;
    unsigned i;

    for (i = 0; i < d->nkeys; i++) {
        const struct an_wkey *k = &d->k[i];
        enum cp_coll coll = key_coll(k->slot);
        unsigned link = key_link(an, k);
        double L, W;
        int latency = 0;

        if (an_key_model(an, link, coll, k->p, &L, &W)) {
            latency = k->calls && k->bytes / (double)k->calls * W < L;
            modeled += k->time;
            if (latency)
                lat += k->time;
        }
        if (!latency && k->jcalls) {
            fn += cp_model_busbw_factor(coll, coll == CP_COLL_SENDRECV
                                                  ? 2
                                                  : k->p) *
                  k->jbytes;
            own += k->jown;
        }
    }
    w->busbw_Bps = own > 0 && fn > 0 ? fn / own : NAN;
    w->latency_share = modeled > 0 ? lat / modeled : NAN;
}

/* The part of the run found slow: windows [first, last]; of its windows
 * with compared calls, and of those of the rest: */
struct part {
    size_t first, last;
    unsigned windows, rest_windows;
    double own, typical, calls;          /* the part's */
    double rest_own, rest_typical, rest_calls;
    double pace;   /* the rest's: the median of its windows' slowness */
    double factor; /* (own / typical) / pace */
    double z;      /* the rank test */
    int sure;
};

/* What the part lost against the rest's pace. */
static double part_excess(const struct part *p)
{
    return p->own - p->typical * p->pace;
}

struct comm_share {
    uint32_t comm;
    double own, typical, calls, rest_own, rest_typical;
};

static double comm_factor(const struct comm_share *c)
{
    return c->typical > 0 && c->rest_own > 0 && c->rest_typical > 0
               ? (c->own / c->typical) / (c->rest_own / c->rest_typical)
               : NAN;
}

/* What it lost in the part against its own pace in the rest (against the
 * typical times when it has no calls in the rest). */
static double comm_excess(const struct comm_share *c)
{
    double pace = c->rest_own > 0 && c->rest_typical > 0
                      ? c->rest_own / c->rest_typical
                      : 1;
    return c->own - c->typical * pace;
}

static int compare_comm_excess(const void *a, const void *b)
{
    double ex = comm_excess(a), ey = comm_excess(b);
    return ex > ey ? -1 : ex < ey;
}

struct late_rank {
    size_t file;
    double late;
    uint64_t count;
};

static int compare_late(const void *a, const void *b)
{
    const struct late_rank *x = a, *y = b;
    return x->late > y->late ? -1 : x->late < y->late;
}

/* A communicator as the job named it, else its id. */
static const char *comm_label(const struct cp_analysis *an, uint32_t ci,
                              char *buf, size_t size)
{
    if (ci == AN_WKEY_ANY || ci >= an->ncomms)
        snprintf(buf, size, "other communicators");
    else if (an->comms[ci].name[0])
        snprintf(buf, size, "%s", an->comms[ci].name);
    else
        snprintf(buf, size, "%016llx", (unsigned long long)an->comms[ci].id);
    return buf;
}

static int add_finding(struct cp_analysis *an, enum cp_kind kind,
                       enum cp_severity sev, const int *ranks,
                       size_t nranks, const unsigned *nodes, size_t nnodes,
                       const char *msg)
{
    return an_add_finding(an, kind, sev, ranks, nranks, nodes, nnodes, msg);
}

/* Move the finding just added up to its place: most severe first, after
 * the findings of its severity that came before. */
static void place_last_finding(struct cp_analysis *an)
{
    size_t j = an->nfindings - 1;
    struct cp_analysis_finding f = an->findings[j];

    while (j > 0 && an->findings[j - 1].severity < f.severity) {
        an->findings[j] = an->findings[j - 1];
        j--;
    }
    an->findings[j] = f;
}

static int add_finding_text(struct cp_analysis *an, const struct part *pt,
                            const struct cp_analysis_timeline *tl,
                            const char *comms_text, const char *ranks_text,
                            double late_total, const int *ranks,
                            size_t nranks, const unsigned *nodes,
                            size_t nnodes)
{
    char msg[1024], unsure[120] = "";

    if (!pt->sure)
        snprintf(unsure, sizeof unsure,
                 " (not sure: %u window%s, %.0f calls compared, rank test "
                 "z %.1f)",
                 pt->windows, pt->windows == 1 ? "" : "s", pt->calls, pt->z);
    snprintf(msg, sizeof msg,
             "from %.3f s to %.3f s (windows %zu-%zu of %zu) the collectives "
             "took %.1fx their usual time (the rest of the run's median "
             "window), %.3g s lost%s%s%s%s%s%s",
             tl->windows[pt->first].start_s, tl->windows[pt->last].end_s,
             pt->first, pt->last, tl->nwindows, pt->factor, part_excess(pt),
             unsure, comms_text[0] ? "; slowed: " : "", comms_text,
             ranks_text[0] ? "; last to arrive in it: " : "", ranks_text,
             ranks_text[0] || late_total <= 0 ? "" : "; no rank was last "
                                                     "in most of it");
    return add_finding(an, CP_KIND_SLOWDOWN,
                       pt->sure ? CP_SEVERITY_WARNING : CP_SEVERITY_INFO,
                       ranks, nranks, nodes, nnodes, msg);
}

/* The communicators with calls in part pt, their own time against
 * typical in it and outside it, most excess first, into cs (ne entries);
 * how many. */
static size_t part_comms(const struct cp_analysis *an, const struct entry *e,
                         size_t ne, const struct part *pt,
                         struct comm_share *cs)
{
    const struct cp_analysis_timeline *tl = &an->timeline;
    size_t ncs = 0, i, j;

    for (i = 0; i < ne; i++) {
        int in = e[i].win >= pt->first && e[i].win <= pt->last;
        if (!(e[i].base > 0) || tl->windows[e[i].win].warmup)
            continue;
        for (j = 0; j < ncs && cs[j].comm != e[i].comm; j++)
            ;
        if (j == ncs)
            cs[ncs++].comm = e[i].comm;
        if (in) {
            cs[j].own += e[i].jown;
            cs[j].typical += e[i].jcalls * e[i].base;
            cs[j].calls += e[i].jcalls;
        } else {
            cs[j].rest_own += e[i].jown;
            cs[j].rest_typical += e[i].jcalls * e[i].base;
        }
    }
    for (i = j = 0; i < ncs; i++) /* those with calls in the part */
        if (cs[i].calls > 0)
            cs[j++] = cs[i];
    ncs = j;
    qsort(cs, ncs, sizeof *cs, compare_comm_excess);
    return ncs;
}

/* The ranks that arrived last in part pt, latest first, into lr (one per
 * rank); the totals over all of them. */
static void part_late_ranks(const struct cp_analysis *an,
                            const struct an_timeline *stl,
                            const struct part *pt, struct late_rank *lr,
                            double *late_total, uint64_t *count_total)
{
    size_t i, j;

    for (i = 0; i < an->nranks; i++)
        lr[i].file = i;
    for (i = pt->first; i <= pt->last; i++) {
        const struct an_wdetail *d = &stl->d[i];
        for (j = 0; j < AN_WINDOW_LATE; j++)
            if (d->late[j].count && d->late[j].file >= 0 &&
                (size_t)d->late[j].file < an->nranks) {
                lr[d->late[j].file].late += d->late[j].late;
                lr[d->late[j].file].count += d->late[j].count;
                *late_total += d->late[j].late;
                *count_total += d->late[j].count;
            }
    }
    qsort(lr, an->nranks, sizeof *lr, compare_late);
}

/* The last-arriving ranks a slowdown names: those of lr with more than a
 * tenth of the lateness, at most MAX_LAST_RANKS. */
struct last_ranks {
    size_t n; /* of lr */
    int ranks[MAX_LAST_RANKS];
    unsigned nodes[MAX_LAST_RANKS];
    size_t nranks, nnodes;
    char text[300];
};

static void name_last_ranks(const struct cp_analysis *an,
                            const struct late_rank *lr, double late_total,
                            struct last_ranks *lst)
{
    size_t j;

    for (lst->n = 0; lst->n < an->nranks && lst->n < MAX_LAST_RANKS &&
                     lr[lst->n].count && lr[lst->n].late > 0.1 * late_total;
         lst->n++) {
        const struct cp_analysis_rank *r = &an->ranks[lr[lst->n].file];
        size_t len = strlen(lst->text);
        snprintf(lst->text + len, sizeof lst->text - len,
                 "%s%d (%s, last in %llu, %.3g s late)", lst->n ? ", " : "",
                 r->rank, an->nodes[r->node].name,
                 (unsigned long long)lr[lst->n].count, lr[lst->n].late);
        lst->ranks[lst->nranks++] = r->rank;
        for (j = 0; j < lst->nnodes && lst->nodes[j] != r->node; j++)
            ;
        if (j == lst->nnodes)
            lst->nodes[lst->nnodes++] = r->node;
    }
}

/* evidence.comms: the first MAX_COMMS of cs; NULL when out of memory. */
static json_t *comms_json(const struct cp_analysis *an,
                          const struct comm_share *cs, size_t ncs)
{
    json_t *jc = json_array();
    size_t i;

    if (!jc)
        return NULL;
    for (i = 0; i < ncs && i < MAX_COMMS; i++) {
        const struct comm_share *c = &cs[i];
        json_t *o = json_object();
        if (!o || json_array_append_new(jc, o) < 0)
            goto fail;
        if (c->comm == AN_WKEY_ANY || c->comm >= an->ncomms) {
            if (set(o, "comm", json_null()) < 0 ||
                set(o, "comm_name", json_string("")) < 0)
                goto fail;
        } else if (set(o, "comm", hex_id(an->comms[c->comm].id)) < 0 ||
                   set(o, "comm_name",
                       json_string(an->comms[c->comm].name)) < 0) {
            goto fail;
        }
        if (set(o, "calls", json_integer((json_int_t)c->calls)) < 0 ||
            set(o, "own_s", jnum(c->own)) < 0 ||
            set(o, "lost_s", jnum(comm_excess(c))) < 0 ||
            set(o, "factor", jnum(comm_factor(c))) < 0 ||
            set(o, "slowed", json_boolean(comm_factor(c) >= COMM_SLOWED)) <
                0)
            goto fail;
    }
    return jc;
fail:
    json_decref(jc);
    return NULL;
}

/* evidence.last_ranks: the first n of lr; NULL when out of memory. */
static json_t *last_ranks_json(const struct cp_analysis *an,
                               const struct late_rank *lr, size_t n)
{
    json_t *jr = json_array();
    size_t i;

    if (!jr)
        return NULL;
    for (i = 0; i < n; i++) {
        const struct cp_analysis_rank *r = &an->ranks[lr[i].file];
        json_t *o = json_object();
        if (!o || json_array_append_new(jr, o) < 0 ||
            set(o, "rank", json_integer(r->rank)) < 0 ||
            set(o, "node", json_string(an->nodes[r->node].name)) < 0 ||
            set(o, "last_arrivals", json_integer((json_int_t)lr[i].count)) <
                0 ||
            set(o, "late_s", jnum(lr[i].late)) < 0) {
            json_decref(jr);
            return NULL;
        }
    }
    return jr;
}

static int slowdown_finding(struct cp_analysis *an, const struct an_state *st,
                            const struct entry *e, size_t ne,
                            const struct part *pt, double warmup_end_s)
{
    const struct cp_analysis_timeline *tl = &an->timeline;
    struct comm_share *cs = NULL;
    struct late_rank *lr = NULL;
    struct last_ranks lst = {0};
    size_t ncs, i, j;
    double late_total = 0;
    uint64_t count_total = 0;
    char comms_text[400] = "", label[40];
    json_t *ev, *jc = NULL, *jr = NULL;
    int rc = -1;

    /* the communicators in the part: their own time against typical */
    cs = calloc(ne ? ne : 1, sizeof *cs);
    lr = calloc(an->nranks ? an->nranks : 1, sizeof *lr);
    if (!cs || !lr)
        goto out;
    ncs = part_comms(an, e, ne, pt, cs);
    /* the ranks that arrived last in it */
    part_late_ranks(an, st->timeline, pt, lr, &late_total, &count_total);
    name_last_ranks(an, lr, late_total, &lst);
    for (i = j = 0; i < ncs && j < 3; i++) {
        size_t len = strlen(comms_text);
        double f = comm_factor(&cs[i]);
        if (!(f >= COMM_SLOWED))
            continue;
        snprintf(comms_text + len, sizeof comms_text - len, "%s%s %.1fx",
                 j++ ? ", " : "",
                 comm_label(an, cs[i].comm, label, sizeof label), f);
    }
    if (add_finding_text(an, pt, tl, comms_text, lst.text, late_total,
                         lst.ranks, lst.nranks, lst.nodes, lst.nnodes) < 0)
        goto out;
    ev = an->findings[an->nfindings - 1].evidence;
    jc = comms_json(an, cs, ncs);
    jr = last_ranks_json(an, lr, lst.n);
    if (!jc || !jr)
        goto out;
    if (set(ev, "from_s", jnum(tl->windows[pt->first].start_s)) < 0 ||
        set(ev, "to_s", jnum(tl->windows[pt->last].end_s)) < 0 ||
        set(ev, "first_window", json_integer((json_int_t)pt->first)) < 0 ||
        set(ev, "last_window", json_integer((json_int_t)pt->last)) < 0 ||
        set(ev, "windows", json_integer(pt->windows)) < 0 ||
        set(ev, "factor", jnum(pt->factor)) < 0 ||
        set(ev, "calls", json_integer((json_int_t)pt->calls)) < 0 ||
        set(ev, "own_s", jnum(pt->own)) < 0 ||
        set(ev, "lost_s", jnum(part_excess(pt))) < 0 ||
        set(ev, "rest_windows", json_integer(pt->rest_windows)) < 0 ||
        set(ev, "rest_calls", json_integer((json_int_t)pt->rest_calls)) < 0 ||
        set(ev, "z", jnum(pt->z)) < 0 ||
        set(ev, "sure", json_boolean(pt->sure)) < 0 ||
        set(ev, "warmup_end_s", jnum(warmup_end_s)) < 0 ||
        set(ev, "last_arrivals", json_integer((json_int_t)count_total)) < 0 ||
        set(ev, "late_s", jnum(late_total)) < 0 ||
        json_object_set(ev, "comms", jc) < 0 ||
        json_object_set(ev, "last_ranks", jr) < 0)
        goto out;
    place_last_finding(an);
    rc = 0;
out:
    json_decref(jc);
    json_decref(jr);
    free(cs);
    free(lr);
    return rc;
}

struct ranked {
    size_t win;
    double slowness, rank;
};

static int compare_slowness(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return x->slowness < y->slowness ? -1 : x->slowness > y->slowness;
}

static int compare_win(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return x->win < y->win ? -1 : x->win > y->win;
}

/* The part of most weight among those slower than the rest by SLOW_FACTOR
 * with at least UNSURE_WINDOWS windows and UNSURE_CALLS calls on each side
 * and a rank test of UNSURE_Z; sure by the SURE_ limits (sure beats not
 * sure).  A part's weight is its own time beyond SLOW_FACTOR times the
 * run's pace (the median window's slowness) at its typical times: windows
 * less slow than that weigh against it, so the part keeps to the windows
 * that slowed down instead of taking in its neighbours.  best->factor is 0
 * when none.  -1: out of memory. */
/* The median slowness of the windows outside positions [a, b] (time
 * order), from the m values sorted with their positions + 1. */
static double rest_median(const double *sorted, const size_t *pos, size_t m,
                          size_t a, size_t b)
{
    size_t n = m - (b - a + 1), want = (n - 1) / 2, k = 0, i;
    double lo = NAN;

    if (n == 0)
        return NAN;
    for (i = 0; i < m; i++) {
        if (pos[i] - 1 >= a && pos[i] - 1 <= b)
            continue;
        if (k == want)
            lo = sorted[i];
        if (k == n / 2)
            return (lo + sorted[i]) / 2;
        k++;
    }
    return lo;
}

/* The compared windows in time order, as find_part sees them: prefix
 * sums of their own time, typical time, calls and slowness rank (entry
 * i: the sum over the first i), their slowness sorted and where each
 * sorted value sits in time (for rest_median), their count and median. */
struct sums {
    const double *own, *typ, *calls, *rank;
    const double *sorted;
    const size_t *sorted_pos;
    size_t m;
    double pace;
};

/* Whether windows a..b (time order) make a slow part against the rest:
 * *pt its figures, *weight how much time it lost beyond the slow factor
 * (the best part is the surest, then the heaviest). */
static int judge_part(const struct ranked *r, const struct sums *p, size_t a,
                      size_t b, struct part *pt, double *weight)
{
    size_t m = p->m;
    double n1 = (double)(b - a + 1), n2 = (double)m - n1, u;

    memset(pt, 0, sizeof *pt);
    pt->windows = (unsigned)n1;
    pt->rest_windows = (unsigned)n2;
    pt->own = p->own[b + 1] - p->own[a];
    pt->typical = p->typ[b + 1] - p->typ[a];
    pt->calls = p->calls[b + 1] - p->calls[a];
    pt->rest_own = p->own[m] - pt->own;
    pt->rest_typical = p->typ[m] - pt->typical;
    pt->rest_calls = p->calls[m] - pt->calls;
    *weight = pt->own - SLOW_FACTOR * p->pace * pt->typical;
    if (!(*weight > 0) || n1 < UNSURE_WINDOWS || n2 < UNSURE_WINDOWS ||
        pt->calls < UNSURE_CALLS || pt->rest_calls < UNSURE_CALLS ||
        !(pt->typical > 0))
        return 0;
    /* against the rest's median window, not the rest's sum: another slow
     * part in the rest must not hide this one */
    pt->pace = rest_median(p->sorted, p->sorted_pos, m, a, b);
    if (!(pt->pace > 0))
        return 0;
    pt->factor = (pt->own / pt->typical) / pt->pace;
    if (!(pt->factor >= SLOW_FACTOR))
        return 0;
    u = p->rank[b + 1] - p->rank[a] - n1 * (n1 + 1) / 2;
    pt->z = (u - n1 * n2 / 2) / sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
    if (!(pt->z >= UNSURE_Z))
        return 0;
    pt->sure = n1 >= SURE_WINDOWS && n2 >= SURE_WINDOWS &&
               pt->calls >= SURE_CALLS && pt->rest_calls >= SURE_CALLS &&
               pt->z >= SURE_Z;
    if (!pt->sure && pt->factor < UNSURE_FACTOR)
        return 0;
    pt->first = r[a].win;
    pt->last = r[b].win;
    return 1;
}

static int find_part(const struct cp_analysis_timeline *tl, const double *own,
                     const double *typical, const double *calls,
                     const unsigned char *taken, struct part *best)
{
    struct ranked *r = NULL;
    double *sorted = NULL; /* slowness in increasing order ... */
    size_t *sorted_pos = NULL; /* ... and each one's position in r */
    double *p_own = NULL, *p_typ = NULL, *p_calls = NULL, *p_rank = NULL;
    size_t m = 0, i, a, b;
    double pace, best_weight = 0;
    struct sums sums;
    int rc = -1;

    memset(best, 0, sizeof *best);
    r = calloc(tl->nwindows, sizeof *r);
    p_own = calloc(tl->nwindows + 1, sizeof *p_own);
    p_typ = calloc(tl->nwindows + 1, sizeof *p_typ);
    p_calls = calloc(tl->nwindows + 1, sizeof *p_calls);
    p_rank = calloc(tl->nwindows + 1, sizeof *p_rank);
    sorted = calloc(tl->nwindows + 1, sizeof *sorted);
    sorted_pos = calloc(tl->nwindows + 1, sizeof *sorted_pos);
    if (!r || !p_own || !p_typ || !p_calls || !p_rank || !sorted ||
        !sorted_pos)
        goto out;
    /* the compared windows after the warm-up, ranked by slowness (ties
     * take their mean rank), then back in time order */
    for (i = 0; i < tl->nwindows; i++)
        if (!tl->windows[i].warmup && isfinite(tl->windows[i].slowness))
            r[m++] = (struct ranked){.win = i,
                                     .slowness = tl->windows[i].slowness};
    qsort(r, m, sizeof *r, compare_slowness);
    pace = m ? (m % 2 ? r[m / 2].slowness
                      : (r[m / 2 - 1].slowness + r[m / 2].slowness) / 2)
             : 1;
    for (a = 0; a < m; a = b) {
        for (b = a; b < m && r[b].slowness == r[a].slowness; b++)
            ;
        for (i = a; i < b; i++)
            r[i].rank = (double)(a + 1 + b) / 2;
    }
    for (i = 0; i < m; i++)
        sorted[i] = r[i].slowness;
    qsort(r, m, sizeof *r, compare_win);
    for (i = 0; i < m; i++) { /* where each sorted value sits in time */
        size_t lo = 0, hi = m;
        while (lo < hi) { /* the first sorted entry >= this slowness */
            size_t mid = (lo + hi) / 2;
            if (sorted[mid] < r[i].slowness)
                lo = mid + 1;
            else
                hi = mid;
        }
        while (sorted_pos[lo] != 0) /* ties: the next free one */
            lo++;
        sorted_pos[lo] = i + 1;
    }
    for (i = 0; i < m; i++) {
        p_own[i + 1] = p_own[i] + own[r[i].win];
        p_typ[i + 1] = p_typ[i] + typical[r[i].win];
        p_calls[i + 1] = p_calls[i] + calls[r[i].win];
        p_rank[i + 1] = p_rank[i] + r[i].rank;
    }
    sums = (struct sums){p_own, p_typ, p_calls, p_rank, sorted, sorted_pos,
                         m, pace};
    for (a = 0; a < m; a++)
        for (b = a; b < m && !taken[r[b].win]; b++) {
            struct part pt;
            double weight;
            if (!judge_part(r, &sums, a, b, &pt, &weight))
                continue;
            if (best->factor == 0 || pt.sure > best->sure ||
                (pt.sure == best->sure && weight > best_weight)) {
                *best = pt;
                best_weight = weight;
            }
        }
    rc = 0;
out:
    free(r);
    free(sorted);
    free(sorted_pos);
    free(p_own);
    free(p_typ);
    free(p_calls);
    free(p_rank);
    return rc;
}

int an_timeline_details(struct cp_analysis *an, const struct an_state *st,
                        int64_t warmup_end_ns)
{
    struct cp_analysis_timeline *tl = &an->timeline;
    const struct an_timeline *stl = st->timeline;
    struct entry *e = NULL;
    double *own = NULL, *typical = NULL, *calls = NULL, warmup_end_s;
    size_t ne = 0, cap = 0, i, j, g;
    struct part best;
    unsigned char *taken = NULL;
    unsigned nparts;
    int rc = -1;

    if (!stl || tl->nwindows == 0)
        return 0;
    /* the warm-up: up to the start of the second step, or without steps
     * the first window */
    warmup_end_s = warmup_end_ns != INT64_MIN
                       ? (double)(warmup_end_ns - an->summary.start_ns) * 1e-9
                       : tl->windows[0].end_s;
    for (i = 0; i < tl->nwindows; i++) {
        struct cp_analysis_window *w = &tl->windows[i];
        const struct an_wdetail *d = &stl->d[i];
        window_rates(an, d, w);
        w->slowness = NAN;
        w->warmup = w->start_s < warmup_end_s;
        cap += d->nkeys;
    }
    e = calloc(cap ? cap : 1, sizeof *e);
    own = calloc(tl->nwindows, sizeof *own);
    typical = calloc(tl->nwindows, sizeof *typical);
    calls = calloc(tl->nwindows, sizeof *calls);
    if (!e || !own || !typical || !calls)
        goto out;
    for (i = 0; i < tl->nwindows; i++) {
        const struct an_wdetail *d = &stl->d[i];
        for (j = 0; j < d->nkeys; j++) {
            const struct an_wkey *k = &d->k[j];
            if (!k->jcalls)
                continue;
            e[ne] = (struct entry){
                .comm = k->comm, .p = k->p, .slot = k->slot,
                .link = k->link, .row = k->row, .win = (unsigned)i,
                .jcalls = (double)k->jcalls, .jown = k->jown,
                .mean = k->jown / (double)k->jcalls, .base = NAN};
            ne++;
        }
    }
    qsort(e, ne, sizeof *e, entry_cmp);
    /* per key: the median of its means after the warm-up */
    for (g = 0; g < ne; g = j) {
        size_t n = 0, at, m;
        double base;
        for (j = g; j < ne && key_cmp(&e[g], &e[j]) == 0; j++)
            n += !tl->windows[e[j].win].warmup;
        if (n < SLOW_MIN_WINDOWS)
            continue;
        at = (n - 1) / 2;
        for (m = g, base = NAN; m < j; m++)
            if (!tl->windows[e[m].win].warmup && at-- == 0) {
                base = e[m].mean;
                break;
            }
        for (m = g; m < j; m++)
            e[m].base = base;
    }
    for (i = 0; i < ne; i++)
        if (e[i].base > 0) {
            own[e[i].win] += e[i].jown;
            typical[e[i].win] += e[i].jcalls * e[i].base;
            calls[e[i].win] += e[i].jcalls;
        }
    for (i = 0; i < tl->nwindows; i++)
        if (calls[i] > 0 && typical[i] > 0)
            tl->windows[i].slowness = own[i] / typical[i];
    /* up to MAX_PARTS parts, each apart from those found before */
    taken = calloc(tl->nwindows, 1);
    if (!taken)
        goto out;
    for (nparts = 0; nparts < MAX_PARTS; nparts++) {
        if (find_part(tl, own, typical, calls, taken, &best) < 0)
            goto out;
        if (!(best.factor >= SLOW_FACTOR))
            break;
        for (i = best.first; i <= best.last; i++)
            taken[i] = 1;
        if (part_excess(&best) >=
                MIN_EXCESS_SHARE * an->summary.comm_time_s &&
            slowdown_finding(an, st, e, ne, &best, warmup_end_s) < 0)
            goto out;
    }
    rc = 0;
out:
    free(taken);
    free(e);
    free(own);
    free(typical);
    free(calls);
    return rc;
}
