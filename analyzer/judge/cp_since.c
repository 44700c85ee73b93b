/* cp_since.c - the detail windows since a long run's change, analysed on
 * their own (docs/analysis.md, "Long runs", "The detail since a change").
 *
 * A detector of the detail judges all of a long run's windows together: a
 * link that slowed on day 3 of 7 is slow in under half of them, and the
 * unit's time (the 10th percentile of its calls, cp_links.c) is the fast
 * one, so the link is not named.  The long run's detectors name the
 * communicator that slowed and since when, not the node pair (the
 * aggregates have no links).  So for each such change the same analysis
 * runs again on the calls that start from then on (opts cut to [since,
 * end), the window of collprof analyze --from), and each slow_link or
 * straggler (warning or worse) it names that the whole run does not is
 * added, with evidence.detail_since (the cut) and its text saying so.
 *
 * The nested runs are cp_judge.c's (cp_analysis_run cut to the window);
 * this file finds the changes and adopts what the nested runs name.
 * Cost: one more read of the logs for each distinct change (cp_judge.c
 * asks for two at most).  A nested run does not look again
 * (opts.no_since).
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

size_t an_since_changes(const struct cp_analysis *an, double *since,
                        size_t most)
{
    size_t i, n = 0, k;

    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        const char *m =
            json_string_value(json_object_get(f->evidence, "method"));
        double s = json_number_value(json_object_get(f->evidence, "since_s"));
        if (!m || strcmp(m, "long_run") != 0 ||
            !json_is_number(json_object_get(f->evidence, "since_s")) ||
            f->severity < CP_SEVERITY_WARNING)
            continue;
        for (k = 0; k < n && since[k] != s; k++)
            ;
        if (k < n)
            continue;
        if (n < most) {
            since[n++] = s;
        } else if (n && s < since[n - 1]) {
            since[n - 1] = s;
        }
        for (k = n - 1; k > 0 && since[k] < since[k - 1]; k--) {
            double t = since[k];
            since[k] = since[k - 1];
            since[k - 1] = t;
        }
    }
    return n;
}

/* Whether an already has a finding of g's kind about the same ranks
 * (straggler) or node names (slow_link). */
static int already(const struct cp_analysis *an, const struct cp_analysis *sub,
                   const struct cp_analysis_finding *g)
{
    size_t i, k, same;

    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        if (f->kind != g->kind || f->nranks != g->nranks ||
            f->nnodes != g->nnodes)
            continue;
        same = 1;
        for (k = 0; k < f->nranks; k++)
            same &= f->ranks[k] == g->ranks[k];
        for (k = 0; k < f->nnodes; k++)
            same &= strcmp(an->nodes[f->nodes[k]].name,
                           sub->nodes[g->nodes[k]].name) == 0;
        if (same)
            return 1;
    }
    return 0;
}

/* The node of sub's index i in an, by name; -1 none. */
static long node_in(const struct cp_analysis *an, const struct cp_analysis *sub,
                    unsigned i)
{
    size_t k;

    for (k = 0; k < an->nnodes; k++)
        if (strcmp(an->nodes[k].name, sub->nodes[i].name) == 0)
            return (long)k;
    return -1;
}

/* The time o[key] moved by d seconds. */
static int shift(json_t *o, const char *key, double d)
{
    json_t *v = json_object_get(o, key);

    return json_is_number(v) ? set(o, key, jnum(json_number_value(v) + d))
                             : 0;
}

/* detail_windows (a copy of the nested run's) on the whole run's axis: d
 * seconds later.  0, or -1 (memory). */
static int shift_windows(json_t *w, double d)
{
    json_t *spans, *span;
    size_t i;
    int bad = 0;

    if (!w)
        return 0;
    bad |= shift(w, "since_s", d);
    bad |= shift(w, "after_s", d);
    spans = json_object_get(w, "spans");
    json_array_foreach(spans, i, span)
    {
        json_t *a = json_array_get(span, 0), *b = json_array_get(span, 1);
        if (json_is_number(a))
            bad |= json_array_set_new(span, 0,
                                      jnum(json_number_value(a) + d)) < 0;
        if (json_is_number(b))
            bad |= json_array_set_new(span, 1,
                                      jnum(json_number_value(b) + d)) < 0;
    }
    return bad ? -1 : 0;
}

/* g of sub (cut at since_s of an's axis) added to an.  0 or -1 (memory). */
static int adopt(struct cp_analysis *an, const struct cp_analysis *sub,
                 const struct cp_analysis_finding *g, double since_s)
{
    unsigned nodes[16];
    size_t k, nn = 0;
    char *msg = NULL, when[48];
    struct cp_analysis_finding *f;
    json_t *e, *cut, *copy;
    int bad = 0;

    if (g->nnodes > sizeof nodes / sizeof *nodes)
        return 0; /* no finding it adopts names that many */
    for (k = 0; k < g->nnodes; k++) {
        long x = node_in(an, sub, g->nodes[k]);
        if (x < 0)
            return 0; /* a node this run does not know: not adopted */
        nodes[nn++] = (unsigned)x;
    }
    if (asprintf(&msg, "From %s on, in the detail windows since the long "
                       "run's change: %c%s",
                 det_when(since_s, when, sizeof when),
                 g->message[0] >= 'A' && g->message[0] <= 'Z'
                     ? g->message[0] - 'A' + 'a'
                     : g->message[0],
                 g->message[0] ? g->message + 1 : "") < 0)
        return -1;
    if (an_add_finding(an, g->kind, g->severity, g->ranks, g->nranks, nodes,
                       nn, msg) < 0) {
        free(msg);
        return -1;
    }
    free(msg);
    f = &an->findings[an->nfindings - 1];
    e = f->evidence;
    copy = json_deep_copy(g->evidence);
    bad |= !copy || json_object_update(e, copy) < 0;
    json_decref(copy);
    /* the nested run's times are on its own axis (its first start) */
    bad |= shift_windows(json_object_get(e, "detail_windows"),
                         (double)(sub->summary.start_ns -
                                  an->summary.start_ns) * 1e-9) < 0;
    cut = json_object();
    bad |= !cut;
    if (cut) {
        bad |= set(cut, "from_s", jnum(since_s));
        bad |= set(cut, "instances",
                   json_integer((json_int_t)sub->summary.instances));
    }
    bad |= set(e, "detail_since", cut);
    return bad || det_windows_sentence(f) < 0 ? -1 : 0;
}

/* The long run's findings of the change at since_s say that the detail
 * since then names g ("slow_link n1-n2", "straggler rank 5").  0 or -1. */
static int tell_changes(struct cp_analysis *an, const struct cp_analysis *sub,
                        const struct cp_analysis_finding *g, double since_s)
{
    char who[160];
    size_t i;
    int n;

    if (g->kind == CP_KIND_SLOW_LINK && g->nnodes == 2)
        n = snprintf(who, sizeof who, "%s %s-%s", cp_kind_name(g->kind),
                     sub->nodes[g->nodes[0]].name,
                     sub->nodes[g->nodes[1]].name);
    else if (g->nranks == 1)
        n = snprintf(who, sizeof who, "%s rank %d", cp_kind_name(g->kind),
                     g->ranks[0]);
    else
        n = snprintf(who, sizeof who, "%s", cp_kind_name(g->kind));
    if (n < 0)
        return 0;
    for (i = 0; i < an->nfindings; i++) {
        struct cp_analysis_finding *f = &an->findings[i];
        const char *m =
            json_string_value(json_object_get(f->evidence, "method"));
        json_t *s = json_object_get(f->evidence, "since_s");
        if (m && strcmp(m, "long_run") == 0 && json_is_number(s) &&
            json_number_value(s) == since_s &&
            det_append_message(f, " The detail windows since then name %s.",
                               who) < 0)
            return -1;
    }
    return 0;
}

int an_since_adopt(struct cp_analysis *an, const struct cp_analysis *sub,
                   double since_s)
{
    size_t i, before = an->nfindings;
    int rc = 0;

    for (i = 0; i < sub->nfindings && rc == 0; i++) {
        const struct cp_analysis_finding *g = &sub->findings[i];
        const char *m =
            json_string_value(json_object_get(g->evidence, "method"));
        if ((g->kind != CP_KIND_SLOW_LINK && g->kind != CP_KIND_STRAGGLER) ||
            g->severity < CP_SEVERITY_WARNING ||
            (m && strcmp(m, "long_run") == 0) || already(an, sub, g))
            continue;
        rc = adopt(an, sub, g, since_s);
        if (rc == 0)
            rc = tell_changes(an, sub, g, since_s);
    }
    if (an->nfindings != before)
        an_findings_sort(an);
    return rc;
}
