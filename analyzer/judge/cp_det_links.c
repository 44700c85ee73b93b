/* cp_det_links.c - slow links named by the calls (cp_links.c's pairs), by the
 * probe (collprof probe, folded in by cp_links_apply_probe) and by the NCCL
 * profiler plugin's proxy steps (evidence.method proxy_steps,
 * cp_ncclview.c), and links_unjudged: pairs only an all-to-all crosses.
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
#include "cp_ncclview.h"
#include "cp_units.h"

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
        if (!isfinite(u->slowdown) || !det_unit_has_pair(u, (unsigned)pi))
            continue;
        if (u->coll == CP_COLL_SENDRECV)
            (*p2p)++;
        else if (!seen[u->comm]++)
            (*comms)++;
        for (k = 0; k < u->npairs; k++)
            *cleared += topo->pairs[u->pairs[k]].state == CP_PAIR_OK;
        if (json_array_size(units) < 8 &&
            json_array_append_new(units, det_unit_json(an, u)) < 0)
            break;
    }
    if (!seen || (units && i < topo->nunits)) {
        json_decref(units);
        units = NULL;
    }
    free(seen);
    return units;
}

/* The rank named a straggler for the longest in-call delay (-1: none),
 * and that delay. */
static long longest_straggler(const struct cp_analysis *an, double *delay)
{
    long who = -1;
    size_t i;

    *delay = 0;
    for (i = 0; i < an->nranks; i++)
        if (an->ranks[i].straggler && an->ranks[i].delay_s > *delay) {
            *delay = an->ranks[i].delay_s;
            who = (long)i;
        }
    return who;
}

/* Whether every unit that shows pair pi slow is at most `delay` over its
 * peers' time: what a straggler that late inside its calls can add to any
 * call that waits for it, in its own communicators or, through the
 * pipeline's send/recv and the communicators it holds back, in others
 * (3d, 200 MB/s between nodes, a rank 5 ms late: the data-parallel
 * all-reduces of the other stage 1.3x and 1.8x their peers', 0.4 and
 * 1.0 ms over, in 1 run of 10).  Such a link is said, as an info that
 * asks for the probe, not warned about. */
static int within_straggler(const struct cp_analysis *an, size_t pi,
                            double delay)
{
    const struct cp_analysis_topology *topo = &an->topology;
    size_t i, shown = 0;

    for (i = 0; i < topo->nunits; i++) {
        const struct cp_analysis_unit *u = &topo->units[i];
        if (!isfinite(u->slowdown) || !det_unit_has_pair(u, (unsigned)pi) ||
            u->verdict != CP_UNIT_SLOW)
            continue;
        if (!(u->time_s - u->peer_time_s <= delay))
            return 0;
        shown++;
    }
    return shown > 0;
}

int det_slow_links(struct cp_analysis *an, const struct detect_input *in)
{
    const struct cp_analysis_topology *topo = &an->topology;
    double delay;
    long who = longest_straggler(an, &delay);
    size_t pi;

    for (pi = 0; pi < topo->npairs; pi++) {
        const struct cp_analysis_pair *p = &topo->pairs[pi];
        unsigned nodes[2] = {p->a, p->b}, comms, p2p, cleared;
        json_t *e, *units;
        char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
            name[160], what[128], tail[400];
        int rc, weak, excused;

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
        excused = !weak && who >= 0 && within_straggler(an, pi, delay);
        if (excused)
            snprintf(tail, sizeof tail,
                     "; but rank %d, named a straggler, starts its part of "
                     "its calls %s late, and every call that waits for it "
                     "(through the pipeline and the communicators it holds "
                     "back) can take that much longer, more than these are "
                     "over their peers: run 'srun -N %zu --ntasks-per-node=1 "
                     "collprof probe -o DIR' to measure the pair.",
                     an->ranks[who].rank,
                     cp_units_format_time(delay, b3, sizeof b3), an->nnodes);
        else
            snprintf(tail, sizeof tail,
                     weak ? "; but only %llu calls show it, too few to tell "
                            "a slow link from a busy host: run 'srun -N %zu "
                            "--ntasks-per-node=1 collprof probe -o DIR' to "
                            "measure the pair."
                          : ".",
                     (unsigned long long)p->slow_calls, an->nnodes);
        rc = det_add_finding(
            an, CP_KIND_SLOW_LINK,
            weak || excused         ? CP_SEVERITY_INFO
            : p->efficiency <= 0.25 ? CP_SEVERITY_CRITICAL
                                    : CP_SEVERITY_WARNING,
            NULL, 0, nodes, 2,
            "The link between nodes %s and %s %s: the %s that cross "
            "it (%llu call%s) take %.1fx the time of the same calls "
            "elsewhere in the job (about %s against %s on the other "
            "links), and every other link they cross ran at full speed in "
            "other calls%s",
            an->nodes[p->a].name, an->nodes[p->b].name,
            weak || excused ? "may be slow" : "is slow", what,
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
        e = det_last_evidence(an);
        if (set(e, "link",
                json_string(det_pair_text(an, p, name, sizeof name))) < 0 ||
            set(e, "method", json_string("calls")) < 0 ||
            set(e, "bandwidth_Bps", jnum(p->bandwidth_Bps)) < 0 ||
            set(e, "peer_bandwidth_Bps", jnum(topo->reference_Bps)) < 0 ||
            set(e, "efficiency", jnum(p->efficiency)) < 0 ||
            set(e, "slowdown", jnum(p->slowdown)) < 0 ||
            set(e, "units", units) < 0 ||
            set(e, "cleared_pairs", json_integer(cleared)) < 0 ||
            set(e, "slow_calls", json_integer((json_int_t)p->slow_calls)) < 0 ||
            set(e, "weak", json_boolean(weak || excused)) < 0 ||
            (excused &&
             (set(e, "straggler_rank", json_integer(an->ranks[who].rank)) < 0 ||
              set(e, "straggler_delay_s", jnum(delay)) < 0)) ||
            set(e, "ports", det_endpoint_ports(an, p->a, p->b)) < 0)
            return -1;
        /* the probe measured it too: agreeing or not, say what it saw */
        if (p->probed && det_probe_figures(e, p, topo->probe.file) < 0)
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

    if (set(e, "link", json_string(det_pair_text(an, p, name, sizeof name))) <
            0 ||
        set(e, "method", json_string("probe")) < 0 ||
        set(e, "bandwidth_Bps", jnum(p->probe_bandwidth_Bps)) < 0 ||
        set(e, "peer_bandwidth_Bps", jnum(pr->reference_Bps)) < 0 ||
        set(e, "reference_source", json_string(pr->reference_source)) < 0 ||
        set(e, "efficiency", jnum(p->probe_efficiency)) < 0 ||
        set(e, "slowdown",
            jnum(p->probe_efficiency > 0 ? 1 / p->probe_efficiency : NAN)) <
            0 ||
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

int det_resolution(json_t *o, const struct cp_analysis_comm *c,
                   const struct cp_analysis_unit *u, json_t *cands)
{
    return set(o, "comm", hex_id(c->id)) < 0 ||
                   set(o, "op", json_string(det_coll_name(u->coll))) < 0 ||
                   set(o, "bytes", jnum(u->bytes)) < 0 ||
                   set(o, "comm_slowdown", jnum(u->slowdown)) < 0 ||
                   json_object_set(o, "candidates", cands) < 0
               ? -1
               : 0;
}

int det_resolved_link(struct cp_analysis *an, const struct cp_analysis_comm *c,
                      const struct cp_analysis_unit *u,
                      const struct cp_analysis_pair *p, json_t *cands,
                      unsigned ncand)
{
    const struct cp_analysis_probe *pr = &an->topology.probe;
    unsigned nodes[2] = {p->a, p->b};
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], ref[96];
    json_t *e;

    if (det_add_finding(
            an, CP_KIND_SLOW_LINK, probe_severity(p), NULL, 0, nodes, 2,
            "The link between nodes %s and %s is slow: communicator %016llx "
            "(%u ranks on %u nodes) ran its %s of %s at %.1fx the %s, and of "
            "its %u candidate links collprof probe (%s) measured this one "
            "slow: %s against %s (%.0f%%).",
            an->nodes[p->a].name, an->nodes[p->b].name,
            (unsigned long long)c->id, c->nranks, c->nnodes,
            det_coll_name(u->coll),
            cp_units_format_size(u->bytes, b1, sizeof b1), u->slowdown,
            u->baseline == CP_BASELINE_PEERS
                ? "time of the same calls elsewhere in the job"
                : "model's time",
            ncand, pr->file,
            cp_units_format_bandwidth(p->probe_bandwidth_Bps, b2, sizeof b2),
            probe_reference_text(pr, ref, sizeof ref),
            100 * p->probe_efficiency) < 0)
        return -1;
    e = det_last_evidence(an);
    if (probe_pair_evidence(an, e, p) < 0 ||
        set(e, "resolves",
            json_string(cp_kind_name(CP_KIND_SLOW_LINK_CANDIDATES))) < 0 ||
        det_resolution(e, c, u, cands) < 0 ||
        set(e, "ports", det_endpoint_ports(an, p->a, p->b)) < 0)
        return -1;
    return 0;
}

int det_probe_links(struct cp_analysis *an, const struct detect_input *in)
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
        if ((f = det_named_pair(an, p->a, p->b, "proxy_steps")) != NULL) {
            /* the job's proxy steps named it: the probe agrees */
            if (det_probe_figures(f->evidence, p, pr->file) < 0)
                return -1;
            continue;
        }
        if (det_add_finding(
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
        e = det_last_evidence(an);
        if (probe_pair_evidence(an, e, p) < 0 ||
            set(e, "calls_state", json_string(calls)) < 0 ||
            set(e, "ports", det_endpoint_ports(an, p->a, p->b)) < 0)
            return -1;
    }
    return 0;
}

int det_proxy_links(struct cp_analysis *an, const struct detect_input *in)
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

        if (!l->slow || det_named_pair(an, l->from, l->to, NULL))
            continue;
        if (det_add_finding(
                an, CP_KIND_SLOW_LINK,
                eff <= 0.25 ? CP_SEVERITY_CRITICAL : CP_SEVERITY_WARNING, NULL,
                0, nodes, 2,
                "The link between nodes %s and %s is slow: NCCL's proxy sent "
                "%s from %s to %s, its fastest steps of %s at %s, against a "
                "median of %s over the job's %u inter-node links with steps "
                "of that size (%.0f%%); evidence: the job's own proxy steps "
                "(NCCL profiler plugin), no probe needed.",
                an->nodes[l->from].name, an->nodes[l->to].name,
                cp_units_format_size((double)l->bytes, b1, sizeof b1),
                an->nodes[l->from].name, an->nodes[l->to].name,
                cp_units_format_size(l->step_bytes, b4, sizeof b4),
                cp_units_format_bandwidth(l->step_bandwidth_Bps, b2, sizeof b2),
                cp_units_format_bandwidth(l->median_Bps, b3, sizeof b3),
                l->judged_with, 100 * eff) < 0)
            return -1;
        e = det_last_evidence(an);
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
    struct det_who w = {0};
    char list[600] = "", name[160], b1[CP_UNITS_BUFSIZE], probe[160];
    uint64_t ignored;
    size_t i, k;
    int rc = -1;

    if (det_slowest_unresolved(topo, ci, CP_UNIT_UNRESOLVED, &ignored) ||
        det_slowest_unresolved(topo, ci, CP_UNIT_MAYBE, &ignored))
        return 0;
    for (i = 0; i < topo->nunits; i++) {
        const struct cp_analysis_unit *u = &topo->units[i];
        if (u->comm == ci && det_all_pairs(u->coll) &&
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
            json_array_append_new(pairs, det_pair_json(an, p)) < 0)
            goto out;
        if (npairs <= UNJUDGED_NAMED_PAIRS)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     npairs > 1 ? ", " : "", det_pair_text(an, p, name, sizeof name));
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
    det_probe_command(probe, sizeof probe, c->nnodes);
    if (det_comm_ranks(an, (unsigned)ci, &w) < 0 ||
        det_add_finding(
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
            c->nranks, c->nnodes, list, det_coll_name(best->coll),
            cp_units_format_size(best->bytes, b1, sizeof b1),
            (unsigned long long)best->calls, best->slowdown,
            det_baseline_phrase(best->baseline), best->calls == 1 ? "es" : "",
            npairs == 1 ? "it" : "them", probe) < 0)
        goto out;
    e = det_last_evidence(an);
    if (set(e, "comm", hex_id(c->id)) < 0 ||
        set(e, "op", json_string(det_coll_name(best->coll))) < 0 ||
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
    det_who_free(&w);
    free(nodes);
    free(node_seen);
    json_decref(pairs);
    return rc;
}

int det_unjudged_links(struct cp_analysis *an, const struct detect_input *in)
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
