/* cp_det_stragglers.c - straggler: a rank late to its calls (arrivals) or late inside
 * them (cp_links.c's in-call delays), and the info of a communicator
 * delayed by one member its calls cannot tell.
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
#include "cp_links.h"
#include "cp_stats.h"
#include "cp_units.h"

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
        struct det_who w = {0};
        int named = 0, rc;
        if (!(c->tied_delay_s > 0))
            continue;
        for (q = 0; q < c->nranks; q++) {
            size_t i;
            if (c->ranks[q] < 0)
                continue;
            for (i = det_first_of_rank(an, c->ranks[q]);
                 i < an->nranks && an->ranks[i].rank == c->ranks[q]; i++)
                named |= an->ranks[i].straggler;
        }
        if (named)
            continue;
        if (det_comm_ranks(an, (unsigned)ci, &w) < 0)
            return -1;
        rc = det_add_finding(
            an, CP_KIND_STRAGGLER, CP_SEVERITY_INFO, w.ranks, w.nranks, w.nodes,
            w.nnodes,
            "Every collective of communicator %016llx (%u ranks) takes "
            "%s longer than the same calls elsewhere in the job, whatever "
            "its size: one of its ranks starts its part late (its GPU or "
            "host, not the network), but neither these calls nor its ranks' "
            "other communicators tell which.",
            (unsigned long long)c->id, c->nranks,
            cp_units_format_time(c->tied_delay_s, b1, sizeof b1));
        det_who_free(&w);
        if (rc < 0 ||
            set(det_last_evidence(an), "kind",
                json_string("in_call_unresolved")) < 0 ||
            set(det_last_evidence(an), "comm", hex_id(c->id)) < 0 ||
            set(det_last_evidence(an), "in_call_delay_s",
                jnum(c->tied_delay_s)) < 0)
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

/* What the kernels' initial-sync phases saw of one global rank
 * (nccl_profiler.phases' last arrivals: each wait read on one device's
 * timer, so no clock correction enters them). */
struct kernel_view {
    int have;   /* the phases name ranks that came last */
    int agrees; /* the rank is the first of them */
    int known;  /* its count is known: listed, or the list is not full */
    uint64_t last_arrivals;
    double late_s;
};

static void kernel_view_of(const struct cp_analysis_phases *ph, int rank,
                           struct kernel_view *kv)
{
    size_t k;

    memset(kv, 0, sizeof *kv);
    if (ph->nlast == 0)
        return;
    kv->have = 1;
    kv->agrees = ph->last[0].rank == rank;
    /* the list holds every rank that came last unless it is full */
    kv->known = ph->nlast < CP_PHASES_LAST_MAX;
    for (k = 0; k < ph->nlast; k++)
        if (ph->last[k].rank == rank) {
            kv->known = 1;
            kv->last_arrivals = ph->last[k].last_arrivals;
            kv->late_s = ph->last[k].late_s;
        }
    if (!kv->known)
        kv->late_s = NAN;
}

/* The kernels' view of the rank f names, into f's evidence and text:
 * agreement, or (sure false) the rank the kernels put last instead. */
static int kernel_evidence(const struct cp_analysis *an,
                           struct cp_analysis_finding *f, int rank,
                           const struct kernel_view *kv)
{
    const struct cp_analysis_phases *ph = &an->nccl.phases;
    json_t *e = f->evidence;
    char count[64], b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE];
    int rc;

    if (!kv->have)
        return 0;
    if (kv->known)
        snprintf(count, sizeof count, "%llu",
                 (unsigned long long)kv->last_arrivals);
    else
        snprintf(count, sizeof count, "fewer than %llu",
                 (unsigned long long)ph->last[ph->nlast - 1].last_arrivals);
    if (kv->agrees)
        rc = det_append_message(
            f,
            " The kernels' initial-sync phases, each read on its GPU's "
            "own clock with no clock correction, agree: rank %d's kernel "
            "came last at %s of %llu instances, on average %s after the "
            "next (%s in all).",
            rank, count, (unsigned long long)ph->instances,
            cp_units_format_time(kv->late_s / (double)kv->last_arrivals, b1,
                                 sizeof b1),
            cp_units_format_time(kv->late_s, b2, sizeof b2));
    else
        rc = det_append_message(
            f,
            " Not sure: the kernels' initial-sync phases, each read on its "
            "GPU's own clock with no clock correction, put rank %d last "
            "most often (at %llu of %llu instances) and rank %d's kernel "
            "last at %s of them; the hosts and the kernels disagree, and "
            "neither is taken over the other.",
            ph->last[0].rank, (unsigned long long)ph->last[0].last_arrivals,
            (unsigned long long)ph->instances, rank, count);
    if (rc < 0 ||
        set(e, "kernel_source", json_string("kernel_phases")) < 0 ||
        set(e, "kernel_instances", json_integer((json_int_t)ph->instances)) <
            0 ||
        set(e, "kernel_last_arrivals",
            kv->known ? json_integer((json_int_t)kv->last_arrivals)
                      : json_null()) < 0 ||
        set(e, "kernel_late_s", jnum(kv->late_s)) < 0 ||
        set(e, "kernel_last_rank", json_integer(ph->last[0].rank)) < 0 ||
        set(e, "kernel_agrees", json_boolean(kv->agrees)) < 0)
        return -1;
    return 0;
}

/* The finding of *worst, the rank last at most collectives, whose
 * lateness is total's largest part; *worst becomes SIZE_MAX when the
 * clocks' correction cannot tell its lead and its in-call delay names it
 * instead. */
/* The end of an unsure arrival finding's text: why it is not sure. */
static void unsure_tail(const struct cp_analysis *an,
                        const struct cp_analysis_rank *r, int impossible,
                        int clock_unsure, size_t err_node, double clock_err,
                        char *tail, size_t size)
{
    char b3[CP_UNITS_BUFSIZE];

    if (impossible)
        snprintf(tail, size,
                 ", more than the run lasted (%s): impossible on one clock; "
                 "node %s's clock stepped or drifted during the run past "
                 "its correction (one offset per node), and the arrivals "
                 "cannot say whether it is late.",
                 cp_units_format_time(an->summary.span_s, b3, sizeof b3),
                 an->nodes[r->node].name);
    else if (clock_unsure)
        snprintf(tail, size,
                 ", but node %s's clock was corrected by an offset known "
                 "only to within %s, more than that lead: the arrivals "
                 "cannot say whether it is the rank or the correction.",
                 an->nodes[err_node].name,
                 cp_units_format_time(clock_err, b3, sizeof b3));
    else
        snprintf(tail, size,
                 ", by the hosts' clocks corrected for their offsets.");
}

static int arrival_finding(struct cp_analysis *an, size_t *worst,
                           double total)
{
    const struct cp_analysis_summary *sm = &an->summary;
    const struct cp_analysis_rank *r = &an->ranks[*worst];
    double mean_late, clock_err = 0;
    size_t err_node;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        tail[400];
    int unsure, clock_unsure, impossible;
    struct kernel_view kv;
    json_t *e;

    mean_late = r->late_s / (double)r->last_arrivals;
    /* a rank's leads over the rank before it at its calls are disjoint
     * stretches of its run (each call's ends follow every start): more in
     * all than the run lasted is no lateness but clocks that disagree
     * past their correction, which holds one offset per node for the
     * whole run (a clock stepped or drifted mid-run) */
    impossible = sm->span_s > 0 && r->late_s > sm->span_s;
    err_node = widest_correction(an, &clock_err);
    clock_unsure = err_node != SIZE_MAX && !(mean_late >= clock_err);
    /* the kernels' phases, which no correction enters, settle the
     * correction's doubt when they name the same rank, and leave the
     * finding unsure when they name another */
    kernel_view_of(&an->nccl.phases, r->rank, &kv);
    unsure = kv.have ? !kv.agrees : clock_unsure;
    if (impossible)
        unsure = 1;
    /* a delay inside its calls is timed on the rank's own clock: the
     * in-call finding names it whatever the correction's error */
    if (unsure && r->straggler) {
        *worst = SIZE_MAX;
        return 0;
    }
    if (unsure)
        unsure_tail(an, r, impossible, clock_unsure, err_node, clock_err,
                    tail, sizeof tail);
    if (det_add_finding(
            an, CP_KIND_STRAGGLER,
            unsure                         ? CP_SEVERITY_INFO
            : r->late_s >= sm->comm_time_s ? CP_SEVERITY_CRITICAL
                                           : CP_SEVERITY_WARNING,
            &r->rank, 1, &r->node, 1,
            "Rank %d (node %s) %sarrived last at %llu collectives, "
            "on average %s after the rank before it (%s in all)%s",
            r->rank, an->nodes[r->node].name, unsure ? "may be late: it " : "",
            (unsigned long long)r->last_arrivals,
            cp_units_format_time(mean_late, b1, sizeof b1),
            cp_units_format_time(r->late_s, b2, sizeof b2),
            unsure ? tail
                   : ": the others waited for it, which points at "
                     "its compute or input, not at the network.") < 0)
        return -1;
    e = det_last_evidence(an);
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
                           : NAN)) < 0 ||
        kernel_evidence(an, &an->findings[an->nfindings - 1], r->rank, &kv) <
            0 ||
        ((kv.have || impossible) &&
         set(e, "sure", json_boolean(!unsure)) < 0) ||
        (impossible && set(e, "beyond_span", json_true()) < 0))
        return -1;
    if (clock_unsure && !unsure &&
        det_append_message(&an->findings[an->nfindings - 1],
                           " Node %s's clock correction, known only to "
                           "within %s, does not enter them.",
                           an->nodes[err_node].name,
                           cp_units_format_time(clock_err, b3, sizeof b3)) <
            0)
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
    struct kernel_view kv;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE];
    json_t *e;

    for (ci = 0; ci < an->ncomms; ci++)
        for (k = 0; k < an->comms[ci].nranks; k++)
            if (an->comms[ci].ranks[k] == r->rank) {
                comms++;
                intra += an->comms[ci].link == CP_LINK_INTRA;
                break;
            }
    kernel_view_of(&an->nccl.phases, r->rank, &kv);
    sev = kv.have && !kv.agrees              ? CP_SEVERITY_INFO
          : r->delay_cost_s >= sm->comm_time_s ? CP_SEVERITY_CRITICAL
                                               : CP_SEVERITY_WARNING;
    if (r->tie_units > 0 && r->tie_comm >= 0 &&
        (size_t)r->tie_comm < an->ncomms) {
        const struct cp_analysis_comm *tc = &an->comms[r->tie_comm];
        if (det_add_finding(
                an, CP_KIND_STRAGGLER, sev, &r->rank, 1, &r->node, 1,
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
                (unsigned long long)tc->id, tc->nranks, r->rank, r->tie_units,
                cp_units_format_time(r->delay_cost_s, b2, sizeof b2)) < 0 ||
            set(det_last_evidence(an), "tied_comm", hex_id(tc->id)) < 0 ||
            set(det_last_evidence(an), "shown_units",
                json_integer((json_int_t)r->tie_units)) < 0)
            return -1;
    } else if (det_add_finding(
                   an, CP_KIND_STRAGGLER, sev, &r->rank, 1, &r->node, 1,
                   "Rank %d (node %s) delays every collective it is in "
                   "by %s: its calls start on time but take that much "
                   "longer than the same calls elsewhere in the job, "
                   "whatever their size, on its %u communicators "
                   "(%u inside its node), and the others waited %s for "
                   "it in all; that points at its GPU or host, not at "
                   "the network.",
                   r->rank, an->nodes[r->node].name,
                   cp_units_format_time(r->delay_s, b1, sizeof b1), comms,
                   intra,
                   cp_units_format_time(r->delay_cost_s, b2, sizeof b2)) < 0)
        return -1;
    e = det_last_evidence(an);
    if (set(e, "kind", json_string("in_call")) < 0 ||
        set(e, "last_arrivals",
            json_integer((json_int_t)r->last_arrivals)) < 0 ||
        set(e, "late_s", jnum(r->late_s)) < 0 ||
        set(e, "mean_late_s", jnum(r->delay_s)) < 0 ||
        set(e, "in_call_delay_s", jnum(r->delay_s)) < 0 ||
        set(e, "cost_s", jnum(r->delay_cost_s)) < 0 ||
        set(e, "observations", json_integer(r->delay_units)) < 0 ||
        set(e, "threshold_s", jnum(an->topology.straggler_delay_s)) < 0 ||
        kernel_evidence(an, &an->findings[an->nfindings - 1], r->rank, &kv) <
            0 ||
        (kv.have && set(e, "sure", json_boolean(kv.agrees)) < 0))
        return -1;
    return 0;
}

int det_straggler(struct cp_analysis *an, const struct detect_input *in)
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
