/* cp_det_windows.c - in which detail windows of a long run a finding of
 * the detail was seen, and since when (docs/analysis.md, "Long runs",
 * "Findings by window").
 *
 * The findings of the kept calls are judged on all the windows together,
 * as in a short job.  Afterwards each window of long_run.windows is judged
 * alone by the finding's own test, on the figures the join kept per window
 * (struct cp_analysis_lr_window), and the finding's evidence gets
 * `detail_windows`: how many were checked, how many show it, the first
 * that does (since_s, and after_s: the end of the checked window before
 * it, which did not), and the runs of windows that show it.
 *
 * Kinds with a test per window (one row each in wtests[]):
 *
 * straggler (kind "arrival", not the long run's): a window shows rank r
 * when r arrived last at WIN_MIN_LAST of the window's judged instances or
 * more and at twice its fair share (the sum of 1 / members: a rank in
 * fewer communicators is held to more), and its lateness is half the
 * window's or more and WIN_LATE_SHARE of the window's own time and skew:
 * the detector's tests on the whole run (cp_det_stragglers.c), window by
 * window.
 *
 * Other kinds carry no `detail_windows` (docs/report-schema.md lists
 * which do).
 * Only what the view holds is read.
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
#define WIN_MIN_LAST 10     /* last arrivals of the rank in the window */
#define WIN_LATE_SHARE 0.05 /* of the window's own time and skew */
#define WIN_RANGES_MAX 32   /* runs of windows listed */

/* Whether window w can be judged for the finding (1), and whether it
 * shows it (*seen). */
typedef int (*wtest_fn)(const struct cp_analysis *an,
                        const struct cp_analysis_finding *f,
                        const struct cp_analysis_lr_window *w, int *seen);

static int arrival_straggler(const struct cp_analysis *an,
                             const struct cp_analysis_finding *f,
                             const struct cp_analysis_lr_window *w, int *seen)
{
    uint64_t count = 0;
    double late = 0;
    size_t i;
    unsigned k;

    *seen = 0;
    if (w->judged < WIN_MIN_JUDGED)
        return 0;
    for (k = 0; k < CP_ANALYSIS_LR_LAST; k++) {
        int r = w->last[k].rank;
        if (r < 0 || (size_t)r >= an->nranks || !w->last[k].count)
            continue;
        /* a finding names global ranks: the window's counters are by
         * input (rank index) */
        for (i = 0; i < f->nranks; i++)
            if (an->ranks[r].rank == f->ranks[i]) {
                count += w->last[k].count;
                late += w->last[k].late_s;
            }
    }
    *seen = count >= WIN_MIN_LAST && (double)count >= 2.0 * w->fair &&
            late >= 0.5 * w->late_s && late >= WIN_LATE_SHARE * w->time_s;
    return 1;
}

static const struct wtest {
    enum cp_kind kind;
    const char *evidence_kind; /* evidence.kind it needs; NULL: any */
    wtest_fn test;
} wtests[] = {
    {CP_KIND_STRAGGLER, "arrival", arrival_straggler},
};

static const struct wtest *wtest_of(const struct cp_analysis_finding *f)
{
    const char *ek, *method;
    size_t i;

    method = json_string_value(json_object_get(f->evidence, "method"));
    if (method && strcmp(method, "long_run") == 0)
        return NULL; /* judged on the intervals, with its own since_s */
    ek = json_string_value(json_object_get(f->evidence, "kind"));
    for (i = 0; i < sizeof wtests / sizeof *wtests; i++)
        if (wtests[i].kind == f->kind &&
            (!wtests[i].evidence_kind ||
             (ek && strcmp(ek, wtests[i].evidence_kind) == 0)))
            return &wtests[i];
    return NULL;
}

static json_t *jidx(const struct cp_analysis_lr_window *w)
{
    return w ? json_integer((json_int_t)w->index) : json_null();
}

/* [a, b] of window indices */
static json_t *jrange(uint32_t a, uint32_t b)
{
    json_t *r = json_array();
    int bad = !r;

    if (r) {
        bad |= add(r, json_integer((json_int_t)a));
        bad |= add(r, json_integer((json_int_t)b));
    }
    return built(r, bad);
}

/* evidence.detail_windows of finding f (a new reference; NULL: out of memory);
 * *checked, *seen, *first, *before: for the message. */
static json_t *windows_json(const struct cp_analysis *an,
                            const struct cp_analysis_finding *f,
                            const struct wtest *t, size_t *checked,
                            size_t *seen,
                            const struct cp_analysis_lr_window **first,
                            const struct cp_analysis_lr_window **before)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    const struct cp_analysis_lr_window *last = NULL, *run_from = NULL,
                                        *run_to = NULL;
    json_t *o = json_object(), *ranges = json_array();
    size_t i, nranges = 0, left_out = 0;
    int bad = !o;

    *checked = *seen = 0;
    *first = *before = NULL;
    for (i = 0; i <= lr->nwindows; i++) {
        const struct cp_analysis_lr_window *w =
            i < lr->nwindows ? &lr->windows[i] : NULL;
        int s = 0;
        if (w && !t->test(an, f, w, &s))
            continue; /* too few instances to judge: neither */
        if (w)
            ++*checked;
        if (s) {
            ++*seen;
            if (!*first)
                *first = w;
            last = w;
            if (!run_from)
                run_from = w;
            run_to = w;
            continue;
        }
        if (w && !*first)
            *before = w;
        if (run_from) {
            /* a run of windows that show it ends */
            if (nranges < WIN_RANGES_MAX) {
                bad |= add(ranges, jrange(run_from->index, run_to->index));
                nranges++;
            } else {
                left_out++;
            }
            run_from = NULL;
        }
    }
    bad |= set(o, "checked", json_integer((json_int_t)*checked));
    bad |= set(o, "seen", json_integer((json_int_t)*seen));
    bad |= set(o, "first", jidx(*first));
    bad |= set(o, "since_s", *first ? jnum((*first)->start_s) : json_null());
    bad |= set(o, "after_s", *before ? jnum((*before)->end_s) : json_null());
    bad |= set(o, "last", jidx(last));
    bad |= set(o, "ranges", ranges);
    bad |= set(o, "ranges_left_out", json_integer((json_int_t)left_out));
    return built(o, bad);
}

/* evidence.detail_windows of finding f, and a sentence for its message. */
static int attribute(struct cp_analysis *an, struct cp_analysis_finding *f,
                     const struct wtest *t)
{
    const struct cp_analysis_lr_window *first, *before;
    size_t checked, seen;
    json_t *o = windows_json(an, f, t, &checked, &seen, &first, &before);

    if (set(f->evidence, "detail_windows", o) < 0)
        return -1;
    if (!checked)
        return det_append_message(f, " No detail window of the long run "
                                     "had enough instances to be judged "
                                     "alone.");
    if (!first)
        return det_append_message(f, " No detail window of the long run "
                                     "shows it alone (%zu checked): it is "
                                     "spread thin over the run.",
                                  checked);
    return det_append_message(
        f, " Seen in %zu of the long run's %zu detail windows checked, "
           "first in window %u from %.0f s (%.1f h)%s.",
        seen, checked, (unsigned)first->index, first->start_s,
        first->start_s / 3600.0,
        before ? ", after windows that did not show it"
               : ", the first window checked");
}

int det_detail_windows(struct cp_analysis *an, const struct detect_input *in)
{
    size_t i;

    (void)in;
    if (!an->long_run.present || an->long_run.nwindows < 2)
        return 0;
    for (i = 0; i < an->nfindings; i++) {
        struct cp_analysis_finding *f = &an->findings[i];
        const struct wtest *t = wtest_of(f);
        if (t && f->evidence && attribute(an, f, t) < 0)
            return -1;
    }
    return 0;
}
