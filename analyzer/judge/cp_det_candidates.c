/* cp_det_candidates.c - slow_link_candidates: a ring whose calls are slow but cannot
 * say which of its links is (the probe or the proxy steps resolve them),
 * in two passes: the warnings before the probe's links and low_busbw, the
 * hints (infos) after every named link.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"
#include "cp_links.h"
#include "cp_units.h"

/* The candidate links of one communicator's slowest unresolved unit. */
struct cand_set {
    json_t *cands;             /* pair_json of each */
    unsigned *nodes, nn;       /* their endpoints, each once */
    unsigned char *node_seen;  /* per node of the job */
    char list[512];            /* their names, for the message */
    unsigned ncand, nprobed, nslow;
    unsigned nproxy;           /* named slow by the plugin's proxy steps */
};

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
        cs->nproxy += det_named_pair(an, p->a, p->b, "proxy_steps") != NULL;
        if (json_array_append_new(cs->cands, det_pair_json(an, p)) < 0)
            return -1;
        if (strlen(cs->list) < 400)
            snprintf(cs->list + strlen(cs->list),
                     sizeof cs->list - strlen(cs->list), "%s%s",
                     cs->ncand > 1 ? ", " : "",
                     det_pair_text(an, p, name, sizeof name));
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
        if (det_resolved_link(an, c, best, p, cs->cands, cs->ncand) < 0)
            return -1;
    }
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
            det_named_pair(an, p->a, p->b, "proxy_steps");
        json_t *list, *o;
        if (!f)
            continue;
        list = json_object_get(f->evidence, "resolved");
        if (!list) {
            char b1[CP_UNITS_BUFSIZE];
            if (set(f->evidence, "resolves",
                    json_string(cp_kind_name(CP_KIND_SLOW_LINK_CANDIDATES))) <
                    0 ||
                set(f->evidence, "resolved", json_array()) < 0 ||
                det_append_message(
                    (struct cp_analysis_finding *)f,
                    " It explains communicator %016llx's %s of %s at %.1fx, "
                    "whose %u candidate links the calls could not tell "
                    "apart.",
                    (unsigned long long)c->id, det_coll_name(best->coll),
                    cp_units_format_size(best->bytes, b1, sizeof b1),
                    best->slowdown, cs->ncand) < 0)
                return -1;
            list = json_object_get(f->evidence, "resolved");
        }
        o = json_object();
        if (!o || json_array_append_new(list, o) < 0 ||
            det_resolution(o, c, best, cs->cands) < 0)
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
    struct det_who w = {0};
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
    det_probe_command(probe, sizeof probe, c->nnodes);
    if (det_comm_ranks(an, (unsigned)ci, &w) < 0)
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
    if (det_add_finding(
            an, CP_KIND_SLOW_LINK_CANDIDATES,
            weak ? CP_SEVERITY_INFO : CP_SEVERITY_WARNING, w.ranks, w.nranks,
            cs->nodes, cs->nn,
            "Communicator %016llx (%u ranks on %u nodes) %s: its %s "
            "of %s take %.1fx the %s (busbw %s against %s) in %llu call%s%s, "
            "%s (%s)%s%s%s%s",
            (unsigned long long)c->id, c->nranks, c->nnodes,
            weak ? "may be slow" : "is slow", det_coll_name(best->coll),
            cp_units_format_size(best->bytes, b1, sizeof b1), best->slowdown,
            det_baseline_phrase(best->baseline),
            cp_units_format_bandwidth(busbw, b2, sizeof b2),
            cp_units_format_bandwidth(peer, b3, sizeof b3),
            (unsigned long long)slow_calls, slow_calls == 1 ? "" : "s",
            maybe && best->contradicted
                ? ", though other calls over the same links ran under the "
                  "slow threshold (the calls disagree)"
            : maybe && det_all_pairs(best->coll)
                ? ", more than healthy ones take but too little to be sure "
                  "(one slow pair slows only its share of an all-to-all, "
                  "and a busy host inflates the model's latency)"
            : maybe ? ", though the model's latency, which a busy host "
                      "inflates, may be most of that time"
            : weak  ? ", too few to be sure"
                    : "",
            which, cs->list, probed_text, nprobed == ncand ? "" : "; run '",
            nprobed == ncand ? "" : probe,
            nprobed == ncand ? "." : "' to measure every node pair.") < 0)
        goto out;
    e = det_last_evidence(an);
    if (set(e, "comm", hex_id(c->id)) < 0 ||
        set(e, "op", json_string(det_coll_name(best->coll))) < 0 ||
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
    det_who_free(&w);
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

    if (maybe && (det_slowest_unresolved(&an->topology, ci, CP_UNIT_UNRESOLVED,
                                         &slow_calls) ||
                  comm_straggler(an, ci)))
        return 0;
    best = det_slowest_unresolved(&an->topology, ci,
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

int det_candidates_warned(struct cp_analysis *an, const struct detect_input *in)
{
    return slow_link_candidates(an, in->reported, 0);
}

int det_candidates_hinted(struct cp_analysis *an, const struct detect_input *in)
{
    return slow_link_candidates(an, in->reported, 1);
}
