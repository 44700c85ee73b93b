/* cp_det_windows.c - in which detail windows of a long run a finding of
 * the detail was seen, and since when (docs/analysis.md, "Long runs",
 * "Findings by window").
 *
 * The findings of the kept calls are judged on all the windows together,
 * as in a short job.  Afterwards each detail window of each communicator
 * the finding concerns (a cell, long_run.wcells: the windows of
 * communicators called at different rates lie at different times) is
 * judged alone by the finding's own test, on the figures the join kept
 * per cell, and the finding's evidence gets `detail_windows`: how many
 * cells were checked, how many show it, the first that does (since_s; and
 * after_s, the start of the last checked cell before it, which did not:
 * the fault began after that start, perhaps inside that cell, too little
 * of which it covered), and the spans of time over which the cells show
 * it.
 *
 * Kinds with a test per window (one row each in wtests[]):
 *
 * straggler (kind "arrival", not the long run's): a cell of a
 * communicator of the rank, with WIN_MIN_JUDGED instances judged for
 * arrivals, shows it when the rank came last at WIN_MIN_LAST of them or
 * more and at twice its fair share (the sum of 1 / members), with half
 * the cell's lateness or more and WIN_LATE_SHARE of its own time and
 * skew: the detector's tests on the whole run (cp_det_stragglers.c), on
 * the cell.
 *
 * slow_link (method "calls"): a cell of the communicator of a slow unit
 * of the pair (a collective's), with WIN_MIN_CALLS of the unit's calls
 * timed alone, shows it when their fast time (the unit's quantile, from
 * the cell's histogram) less the unit's straggler delay is the topology's
 * slow threshold times the unit's peer time or more: the unit's test
 * (cp_links.c), on the cell, against the whole run's baseline.
 *
 * Other kinds carry no `detail_windows` (docs/report-schema.md lists
 * which do).  Only what the view holds is read.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"

#define WIN_MIN_JUDGED 10   /* instances judged for arrivals, to check */
#define WIN_MIN_LAST 10     /* last arrivals of the rank in the cell */
#define WIN_LATE_SHARE 0.05 /* of the cell's own time and skew */
#define WIN_MIN_CALLS 3     /* a unit's calls in the cell, to check */
#define WIN_QUANTILE 0.1    /* a unit's time: as cp_links.c's */
#define WIN_SPANS_MAX 32    /* spans listed */

/* What a finding's test needs of the finding, found once. */
struct wctx {
    const struct cp_analysis_finding *f;
    unsigned char *in;  /* straggler: [nranks] the finding's rank indices;
                           slow_link: [nunits] its slow units */
};

/* Whether cell c is judged for the finding (1; 0: not its, or too few
 * instances), and whether it shows it (*seen). */
typedef int (*wtest_fn)(const struct cp_analysis *an, const struct wctx *x,
                        const struct cp_analysis_wcell *c, int *seen);
/* x->in for finding f: 0, or -1 (memory); *none: nothing to judge. */
typedef int (*wprep_fn)(const struct cp_analysis *an, struct wctx *x,
                        int *none);

static int straggler_prep(const struct cp_analysis *an, struct wctx *x,
                          int *none)
{
    size_t i, k;

    x->in = calloc(an->nranks + 1, 1);
    if (!x->in)
        return -1;
    *none = 1;
    for (i = 0; i < an->nranks; i++)
        for (k = 0; k < x->f->nranks; k++)
            if (an->ranks[i].rank == x->f->ranks[k])
                x->in[i] = 1, *none = 0;
    return 0;
}

static int comm_has(const struct cp_analysis *an, unsigned ci,
                    const struct cp_analysis_finding *f)
{
    const struct cp_analysis_comm *c = &an->comms[ci];
    unsigned r;
    size_t k;

    for (r = 0; r < c->nranks; r++)
        for (k = 0; k < f->nranks; k++)
            if (c->ranks[r] >= 0 && c->ranks[r] == f->ranks[k])
                return 1;
    return 0;
}

static int arrival_straggler(const struct cp_analysis *an,
                             const struct wctx *x,
                             const struct cp_analysis_wcell *c, int *seen)
{
    uint64_t count = 0;
    double late = 0;
    unsigned k;

    *seen = 0;
    if (c->judged < WIN_MIN_JUDGED || c->comm >= an->ncomms ||
        !comm_has(an, c->comm, x->f))
        return 0;
    for (k = 0; k < CP_ANALYSIS_WCELL_LAST; k++) {
        int r = c->last[k].rank;
        if (r >= 0 && (size_t)r < an->nranks && x->in[r]) {
            count += c->last[k].count;
            late += c->last[k].late_s;
        }
    }
    *seen = count >= WIN_MIN_LAST && (double)count >= 2.0 * c->fair &&
            late >= 0.5 * c->late_s && late >= WIN_LATE_SHARE * c->time_s;
    return 1;
}

/* The finding's node pair in topology.pairs, or SIZE_MAX. */
static size_t pair_of(const struct cp_analysis *an,
                      const struct cp_analysis_finding *f)
{
    size_t i;

    if (f->nnodes != 2)
        return SIZE_MAX;
    for (i = 0; i < an->topology.npairs; i++) {
        const struct cp_analysis_pair *p = &an->topology.pairs[i];
        if ((p->a == f->nodes[0] && p->b == f->nodes[1]) ||
            (p->a == f->nodes[1] && p->b == f->nodes[0]))
            return i;
    }
    return SIZE_MAX;
}

static int link_prep(const struct cp_analysis *an, struct wctx *x, int *none)
{
    const struct cp_analysis_topology *t = &an->topology;
    size_t pi = pair_of(an, x->f), i;

    x->in = calloc(t->nunits + 1, 1);
    if (!x->in)
        return -1;
    *none = 1;
    for (i = 0; pi != SIZE_MAX && i < t->nunits; i++) {
        const struct cp_analysis_unit *u = &t->units[i];
        if (u->verdict == CP_UNIT_SLOW && u->coll != CP_COLL_SENDRECV &&
            u->peer_time_s > 0 && det_unit_has_pair(u, (unsigned)pi))
            x->in[i] = 1, *none = 0;
    }
    return 0;
}

static int slow_link(const struct cp_analysis *an, const struct wctx *x,
                     const struct cp_analysis_wcell *c, int *seen)
{
    const struct cp_analysis_topology *t = &an->topology;
    int judged = 0;
    size_t i;
    unsigned k;

    *seen = 0;
    for (i = 0; i < t->nunits; i++) {
        const struct cp_analysis_unit *u = &t->units[i];
        if (!x->in[i] || u->comm != c->comm)
            continue;
        for (k = 0; k < c->nkeys; k++) {
            const struct cp_analysis_wkey *w = &c->keys[k];
            double q;
            if (w->slot != (unsigned)u->coll || w->bucket != u->bucket ||
                w->calls < WIN_MIN_CALLS)
                continue;
            judged = 1;
            q = cp_analysis_wkey_quantile(w, WIN_QUANTILE);
            if ((q - (isfinite(u->delay_s) ? u->delay_s : 0)) >=
                t->slow_threshold * u->peer_time_s)
                *seen = 1;
        }
    }
    return judged;
}

static const struct wtest {
    enum cp_kind kind;
    const char *key, *value; /* the evidence's key it needs, its value */
    wprep_fn prep;
    wtest_fn test;
} wtests[] = {
    {CP_KIND_STRAGGLER, "kind", "arrival", straggler_prep, arrival_straggler},
    {CP_KIND_SLOW_LINK, "method", "calls", link_prep, slow_link},
};

static const struct wtest *wtest_of(const struct cp_analysis_finding *f)
{
    const char *method, *v;
    size_t i;

    method = json_string_value(json_object_get(f->evidence, "method"));
    if (method && strcmp(method, "long_run") == 0)
        return NULL; /* judged on the intervals, with its own since_s */
    for (i = 0; i < sizeof wtests / sizeof *wtests; i++) {
        v = json_string_value(json_object_get(f->evidence, wtests[i].key));
        if (wtests[i].kind == f->kind && v &&
            strcmp(v, wtests[i].value) == 0)
            return &wtests[i];
    }
    return NULL;
}

/* [from_s, to_s] */
static json_t *jspan(double from, double to)
{
    json_t *r = json_array();
    int bad = !r;

    if (r) {
        bad |= add(r, jnum(from));
        bad |= add(r, jnum(to));
    }
    return built(r, bad);
}

/* What the cells say of a finding. */
struct wsum {
    size_t checked, seen;
    const struct cp_analysis_wcell *first, *before, *last;
};

/* evidence.detail_windows of the finding of x (a new reference; NULL:
 * out of memory); *sum for the message. */
static json_t *windows_json(const struct cp_analysis *an,
                            const struct wctx *x, const struct wtest *t,
                            struct wsum *sum)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    json_t *o = json_object(), *spans = json_array();
    double from = NAN, to = NAN;
    size_t i, nspans = 0, left_out = 0;
    int bad = !o;

    memset(sum, 0, sizeof *sum);
    for (i = 0; i <= lr->nwcells; i++) {
        const struct cp_analysis_wcell *c =
            i < lr->nwcells ? &lr->wcells[i] : NULL;
        int s = 0;
        if (c && !t->test(an, x, c, &s))
            continue; /* not its, or too few instances: neither */
        if (c)
            sum->checked++;
        if (s) {
            sum->seen++;
            if (!sum->first)
                sum->first = c;
            sum->last = c;
            if (isnan(from))
                from = c->start_s;
            if (isnan(to) || c->end_s > to)
                to = c->end_s;
            continue;
        }
        if (c && !sum->first)
            sum->before = c;
        if (!isnan(from)) {
            /* a span of cells that show it ends */
            if (nspans < WIN_SPANS_MAX) {
                bad |= add(spans, jspan(from, to));
                nspans++;
            } else {
                left_out++;
            }
            from = to = NAN;
        }
    }
    bad |= set(o, "checked", json_integer((json_int_t)sum->checked));
    bad |= set(o, "seen", json_integer((json_int_t)sum->seen));
    bad |= set(o, "first",
               sum->first ? json_integer(sum->first->index &
                                         ~CP_ANALYSIS_LR_OUTSIDE)
                          : json_null());
    bad |= set(o, "first_outside",
               json_boolean(sum->first &&
                            (sum->first->index & CP_ANALYSIS_LR_OUTSIDE)));
    bad |= set(o, "first_comm",
               sum->first && sum->first->comm < an->ncomms
                   ? hex_id(an->comms[sum->first->comm].id)
                   : json_null());
    bad |= set(o, "since_s", sum->first ? jnum(sum->first->start_s)
                                        : json_null());
    bad |= set(o, "after_s", sum->before ? jnum(sum->before->start_s)
                                         : json_null());
    bad |= set(o, "last",
               sum->last ? json_integer(sum->last->index &
                                        ~CP_ANALYSIS_LR_OUTSIDE)
                         : json_null());
    bad |= set(o, "spans", spans);
    bad |= set(o, "spans_left_out", json_integer((json_int_t)left_out));
    bad |= set(o, "cells_left_out",
               json_integer((json_int_t)lr->wcells_left_out));
    return built(o, bad);
}

/* evidence.detail_windows of finding f, and a sentence for its message
 * (none in a nested run: cp_since.c adds it on the whole run's axis). */
static int attribute(struct cp_analysis *an, struct cp_analysis_finding *f,
                     const struct wtest *t)
{
    struct wctx x = {f, NULL};
    struct wsum sum;
    json_t *o;
    int none = 0;

    if (t->prep(an, &x, &none) < 0)
        return -1;
    if (none) {
        free(x.in);
        return 0;
    }
    o = windows_json(an, &x, t, &sum);
    free(x.in);
    if (set(f->evidence, "detail_windows", o) < 0)
        return -1;
    return an->nested ? 0 : det_windows_sentence(f);
}

static double num(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

int det_windows_sentence(struct cp_analysis_finding *f)
{
    const json_t *o = json_object_get(f->evidence, "detail_windows");
    double checked = num(o, "checked"), seen = num(o, "seen"),
           since = num(o, "since_s"), after = num(o, "after_s"),
           first = num(o, "first");
    char b1[48], b2[48];
    int rc;

    if (!o)
        return 0;
    if (!(checked > 0))
        return det_append_message(f, " No detail window of the long run "
                                     "had enough of its calls to be judged "
                                     "alone.");
    if (!(seen > 0))
        return det_append_message(f, " No detail window of the long run "
                                     "shows it alone (%.0f checked): it is "
                                     "spread thin over the run.",
                                  checked);
    rc = det_append_message(
        f, " Seen in %.0f of the %.0f detail windows of the long run checked, "
           "first in %s %.0f from %s",
        seen, checked,
        json_is_true(json_object_get(o, "first_outside"))
            ? "the window kept outside the rule in period"
            : "window",
        first, det_when(since, b1, sizeof b1));
    if (rc == 0 && isfinite(after))
        rc = det_append_message(f, ", after one from %s that did not.",
                                det_when(after, b2, sizeof b2));
    else if (rc == 0)
        rc = det_append_message(f, ", the first checked.");
    return rc;
}

int det_detail_windows(struct cp_analysis *an, const struct detect_input *in)
{
    size_t i;

    (void)in;
    if (!an->long_run.present || an->long_run.nwindows < 2 ||
        !an->long_run.nwcells)
        return 0;
    for (i = 0; i < an->nfindings; i++) {
        struct cp_analysis_finding *f = &an->findings[i];
        const struct wtest *t = wtest_of(f);
        if (t && f->evidence && attribute(an, f, t) < 0)
            return -1;
    }
    return 0;
}
