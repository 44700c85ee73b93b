/* cp_det_busbw.c - low_busbw: bandwidth-bound calls per communicator and link
 * class against the model or the NICs' port rate (evidence.tcp_fallback
 * an order of magnitude below on the network); communicators whose one
 * link explains them make one slow_link of that link instead.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"
#include "cp_units.h"

#define BUSBW_LOW 0.5      /* measured / model busbw */

#define BUSBW_TCP 0.15     /* an order of magnitude below */

/* the same of the fast calls (per size bucket the 10 % quantile) against
 * a model: a slow network holds them down too */
#define BUSBW_FAST 0.7

/* measured / busbw at the NICs' port rate: far below (the CPU NCCL's
 * healthy runs reach 0.3-0.9 of it on a loaded machine, copies and pacing
 * included; a ring with one link at a quarter 0.2-0.25) */
#define BUSBW_FAR_BELOW 0.27

/* a latency per step no fabric reaches (InfiniBand and RoCE: a few us,
 * TCP tens): without a model, the calls judged against the port rate are
 * those whose wire time is at least their latency term at it */
#define ALPHA_MAX 100e-6

/* What low_busbw weighs of one communicator's calls on one link class. */
struct busbw_judge {
    double fn, t, fast, mt, mt_ref, mt_wire; /* sums over the calls */
    double discount; /* seconds of a straggling member's delay taken off t
                      * and fast (0: none) */
    uint64_t calls;
    /* the NICs' rate: an absolute the fit cannot move */
    int ports;
    double busbw, model, ratio, link_Bps;
    int tcp;
    int unfitted; /* no model of the class: held against the wire alone */
};

/* j's sums over the evaluations of communicator ci on link class k. */
static void busbw_sums(const struct an_eval *ev, size_t nev, size_t ci,
                       unsigned k, const struct cp_analysis_link *m,
                       struct busbw_judge *j)
{
    size_t i;

    for (i = 0; i < nev; i++)
        if (ev[i].comm == ci && ev[i].link == k && ev[i].have_model) {
            j->fn += ev[i].bw.fn;
            j->t += ev[i].bw.duration;
            j->fast += ev[i].bw.fast_duration;
            j->mt += ev[i].bw.model_time;
            j->calls += ev[i].bw.judged_calls;
            /* at the NICs' rate: the wire time alone, and with the fitted
             * latency (which a busy host inflates) */
            if (j->ports) {
                double wire = ev[i].bw.judged_bytes * ev[i].sec_per_byte *
                              m->bandwidth_Bps / m->expected_Bps;
                j->mt_wire += wire;
                j->mt_ref +=
                    wire + (double)ev[i].bw.judged_calls * ev[i].latency_s;
            }
        }
}

/* j's sums over the evaluations of communicator ci on link class k held
 * against the NICs' port rate whatever the class's model (there may be
 * none: one size of call, no fit, no profile; or a fit to the same slow
 * calls that makes them latency-bound with an alpha of milliseconds): the
 * collectives whose every call's wire time at that rate is at least its
 * latency term at ALPHA_MAX per step (which no fabric's latency reaches),
 * so that, on a network that gives its rate, they take at most twice
 * their wire time; held against the wire alone (j->unfitted). */
static void busbw_sums_unfitted(const struct cp_analysis *an,
                                const struct an_eval *ev, size_t nev,
                                size_t ci, unsigned k, double rate_Bps,
                                struct busbw_judge *j)
{
    size_t i;

    for (i = 0; i < 2 * nev; i++) {
        struct cp_model_params params;
        struct cp_model_terms terms;
        const struct an_eval *e = &ev[i / 2];
        const struct an_group_stats *g = i % 2 ? &e->bw : &e->lat;
        if (e->comm != ci || e->link != k ||
            e->coll == CP_COLL_SENDRECV || g->judged_calls == 0)
            continue;
        memset(&params, 0, sizeof params);
        params.alpha = ALPHA_MAX;
        params.beta = 1 / rate_Bps;
        if (cp_model_terms(e->coll, cp_model_coll_facts(e->coll)->nccl_algo,
                           an->comms[ci].nranks, &params, &terms,
                           NULL) != 0 ||
            !(g->n_min * terms.sec_per_byte >= terms.latency_s))
            continue;
        j->fn += g->fn;
        j->t += g->duration;
        j->fast += g->fast_duration;
        j->mt_wire += g->judged_bytes * terms.sec_per_byte;
        j->calls += g->judged_calls;
    }
    j->mt = j->mt_ref = j->mt_wire;
    j->unfitted = 1;
}

/* Whether the link analysis named the pair of nodes a and b slow. */
static int pair_named_slow(const struct cp_analysis *an, unsigned a,
                           unsigned b)
{
    size_t i;

    for (i = 0; i < an->topology.npairs; i++) {
        const struct cp_analysis_pair *p = &an->topology.pairs[i];
        if ((p->a == a && p->b == b) || (p->a == b && p->b == a))
            return p->state == CP_PAIR_SLOW;
    }
    return 0;
}

/* Whether j's calls (communicator ci, link class k) make a low_busbw
 * finding; fills j's busbw, model, ratio, link_Bps and tcp. */
static int busbw_is_low(const struct cp_analysis *an, size_t ci, unsigned k,
                        struct busbw_judge *j)
{
    const struct cp_analysis_link *m = &an->model[k];
    const struct cp_analysis_comm *c = &an->comms[ci];

    j->link_Bps = m->bandwidth_Bps;
    if (j->calls < 3 || !(j->t > 0) || !(j->mt > 0) ||
        j->t < 0.01 * an->summary.comm_time_s)
        return 0;
    /* a member late inside its calls adds its delay to each of them: the
     * straggler explains that much before the network is judged (a
     * straggler of 10 ms made a healthy pair's 256 KiB all-reduces look
     * like 24 MB/s on a 200 MB/s network) */
    j->discount = (double)j->calls * det_comm_member_delay(an, ci);
    if (j->discount > 0) {
        if (!(j->fast > j->discount) || !(j->t > j->discount))
            return 0; /* the delay is all of their time */
        j->t -= j->discount;
        j->fast -= j->discount;
    }
    j->busbw = j->fn / j->t;
    j->model = j->fn / j->mt;
    j->ports = j->ports && j->mt_ref > 0 && j->mt_wire > 0 && j->fast > 0;
    if (j->ports) {
        /* against the NICs' rate, an absolute the whole job is held to:
         * far below it on average and in the fast calls (a busy host or a
         * member late inside its calls slows some calls by several times,
         * a slow network every one), with the fitted latency; or an order
         * of magnitude below the wire alone in the fast calls (TCP
         * fallback, however inflated the fit's latency) */
        double wire_ratio = j->mt_wire / j->fast;
        j->model = j->fn / j->mt_ref;
        j->link_Bps = m->expected_Bps;
        if (wire_ratio < BUSBW_TCP) {
            j->busbw = j->fn / j->fast;
            j->model = j->fn / j->mt_wire;
        } else if (j->unfitted || !(j->mt_ref / j->fast < BUSBW_FAR_BELOW)) {
            /* without a model only an order of magnitude speaks (a
             * healthy network gives 0.3-0.9 of the rate) */
            return 0;
        }
    }
    j->ratio = j->busbw / j->model;
    if (!(j->ratio < (j->ports ? BUSBW_FAR_BELOW : BUSBW_LOW)))
        return 0;
    /* against a model, the fast calls too: a slow network slows every
     * call, a busy host (8 ranks on 2 shared cores: 256 KiB all-reduces
     * of 1.5 to 12 ms on a 200 MB/s network whose wire takes 1.3) some of
     * them; calls that reached the model's rate at times leave the mean
     * to the host */
    if (!j->ports && !(j->fn / j->fast < BUSBW_FAST * j->model))
        return 0;
    /* a rank delaying its calls slows every busbw it touches, and its
     * waits spread through the job: against the ports only an order of
     * magnitude still speaks of the network then */
    if (j->ports && det_in_call_straggler(an) && !(j->ratio < BUSBW_TCP))
        return 0;
    j->tcp = j->ratio < BUSBW_TCP && k == CP_LINK_INTER;
    /* a slow link, a straggler or a slow ring with candidates has its own
     * finding; a whole network an order of magnitude below its rate is
     * still this one's */
    if (c->explained && !j->tcp)
        return 0;
    /* nor is a pair's: a communicator of two nodes whose link is named
     * slow has that finding (pp, n1-n3 at 1/9: a critical slow_link, and
     * each of the pair's two communicators a critical TCP fallback) */
    if (c->explained && c->nnodes == 2 &&
        pair_named_slow(an, c->nodes[0], c->nodes[1]))
        return 0;
    /* against a fit, a communicator that the link analysis held against
     * the same calls elsewhere in the job has been judged there (slow_link,
     * slow_link_candidates, or not slow: the fit of one line through every
     * call is the weaker reference); a profile is the site's word and is
     * always held against */
    if (m->source == CP_SOURCE_FIT && !j->ports && c->peers_ok != 0)
        return 0;
    return 1;
}

/* A whole network an order of magnitude below its rate (j->tcp) is one
 * cause: the slow_link_candidates warning of the same communicator's
 * ring, which says one of its links is slow, is the same figure seen
 * link by link (moe with the fabric at 1/10, two busy loops: a critical
 * low_busbw and a warning "its allreduce of 1 MiB take 12x the time at
 * the reference" on the same 8 calls).  A ring cannot tell one slow link
 * from all of them (ddp's one ring over a link at 1/8 looks the same), so
 * the finding keeps the candidates: the warning is merged into the
 * low_busbw finding e (evidence "ring", and a sentence that asks for the
 * probe), and *merged says so.  0 or -1. */
static int merge_ring(struct cp_analysis *an, size_t ci, json_t *e,
                      int *merged)
{
    char id[17];
    size_t i;

    *merged = 0;
    snprintf(id, sizeof id, "%016llx", (unsigned long long)an->comms[ci].id);
    for (i = 0; i < an->nfindings; i++) {
        struct cp_analysis_finding *f = &an->findings[i];
        const char *c = json_string_value(json_object_get(f->evidence, "comm"));
        if (f->kind != CP_KIND_SLOW_LINK_CANDIDATES ||
            f->severity == CP_SEVERITY_INFO || !c || strcmp(c, id) != 0)
            continue;
        if (json_object_set(e, "ring", f->evidence) < 0)
            return -1;
        an_drop_finding(an, i);
        *merged = 1;
        return 0;
    }
    return 0;
}

/* The low_busbw finding of j (communicator ci, link class k); marks: one
 * byte per communicator, scratch. */
static int busbw_finding(struct cp_analysis *an, unsigned char *marks,
                         size_t ci, unsigned k, const struct busbw_judge *j)
{
    const struct cp_analysis_link *m = &an->model[k];
    const struct cp_analysis_comm *c = &an->comms[ci];
    struct det_who w = {0};
    json_t *e;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE];
    int rc = -1;

    memset(marks, 0, an->ncomms);
    marks[ci] = 1;
    if (det_who_of_comms(an, marks, &w) < 0)
        goto out;
    if (det_add_finding(
            an, CP_KIND_LOW_BUSBW,
            /* a weak fit is no ground for a warning */
            m->source == CP_SOURCE_FIT && m->fit_weak && !j->ports
                ? CP_SEVERITY_INFO
            : j->ratio < BUSBW_TCP ? CP_SEVERITY_CRITICAL
                                   : CP_SEVERITY_WARNING,
            w.ranks, w.nranks, w.nodes, w.nnodes,
            "%s bandwidth-bound calls on communicator %016llx (%u ranks, "
            "%u nodes) reach a busbw of %s%s, %.0f%% of the %s the model "
            "expects at their sizes (link %s, from the %s)%s.",
            k == CP_LINK_INTER ? "Inter-node" : "Intra-node",
            (unsigned long long)c->id, c->nranks, c->nnodes,
            cp_units_format_bandwidth(j->busbw, b1, sizeof b1),
            j->ports && j->busbw != j->fn / j->t ? " in their fastest calls"
                                                 : "",
            100 * j->ratio, cp_units_format_bandwidth(j->model, b2, sizeof b2),
            cp_units_format_bandwidth(j->link_Bps, b3, sizeof b3),
            j->ports ? "NICs' port rate" : cp_link_source_name(m->source),
            j->tcp ? ": TCP fallback suspected (an order of magnitude below "
                     "the network's rate)"
            : j->ratio < BUSBW_TCP ? ": an order of magnitude below the link"
                                   : "") < 0)
        goto out;
    e = det_last_evidence(an);
    if (j->tcp) {
        int merged;
        if (merge_ring(an, ci, e, &merged) < 0)
            goto out;
        if (merged &&
            det_append_message(&an->findings[an->nfindings - 1],
                               " Its ring's calls alone cannot tell this from "
                               "one slow link among its %zu (evidence: ring); "
                               "'%s' measures each pair.",
                               json_array_size(json_object_get(
                                   json_object_get(e, "ring"), "candidates")),
                               json_string_value(json_object_get(
                                   json_object_get(e, "ring"), "probe"))
                                   ?: "collprof probe") < 0)
            goto out;
    }
    if (set(e, "comm", hex_id(c->id)) < 0 ||
        set(e, "link", json_string(cp_link_class_name(k))) < 0 ||
        set(e, "calls", json_integer((json_int_t)j->calls)) < 0 ||
        set(e, "time_s", jnum(j->t)) < 0 ||
        set(e, "busbw_Bps", jnum(j->busbw)) < 0 ||
        set(e, "model_busbw_Bps", jnum(j->model)) < 0 ||
        set(e, "ratio", jnum(j->ratio)) < 0 ||
        set(e, "mean_busbw_Bps", jnum(j->fn / j->t)) < 0 ||
        set(e, "fast_calls",
            json_boolean(j->ports && j->busbw != j->fn / j->t)) < 0 ||
        set(e, "link_bandwidth_Bps", jnum(m->bandwidth_Bps)) < 0 ||
        set(e, "expected_Bps", jnum(m->expected_Bps)) < 0 ||
        set(e, "source",
            json_string(cp_link_source_name(
                j->ports ? CP_SOURCE_PORTS : m->source))) < 0 ||
        set(e, "tcp_fallback", json_boolean(j->tcp)) < 0 ||
        set(e, "straggler_discount_s", jnum(j->discount)) < 0)
        goto out;
    rc = 0;
out:
    det_who_free(&w);
    return rc;
}

/* The low busbw of communicators that one link explains, per node pair. */
struct busbw_link {
    double fn, t, mt; /* sums: f n, the time busbw holds (fn / busbw), the
                       * model's (fn / model busbw) */
    uint64_t calls;
    unsigned comms;
    int ports;    /* all held against the NICs' port rate */
    json_t *list; /* the communicators' figures */
};

/* The node pair (index into an->topology.pairs) whose link alone explains
 * j's low busbw (communicator ci, link class k), or -1: a communicator
 * between two nodes only, all its members seen, a warning short of TCP
 * fallback, the pair not cleared by the link analysis (nor by the probe)
 * and each of its two nodes with another link that ran at full speed in
 * the job's calls (a host or NIC of its own would slow that one too). */
static long busbw_one_link(const struct cp_analysis *an, size_t ci, unsigned k,
                           const struct busbw_judge *j)
{
    const struct cp_analysis_topology *topo = &an->topology;
    const struct cp_analysis_comm *c = &an->comms[ci];
    const struct cp_analysis_link *m = &an->model[k];
    int ok_a = 0, ok_b = 0;
    long pi = -1;
    size_t i;

    if (k != CP_LINK_INTER || j->tcp || c->nnodes != 2 || c->missing ||
        (m->source == CP_SOURCE_FIT && m->fit_weak && !j->ports))
        return -1;
    for (i = 0; i < topo->npairs; i++) {
        const struct cp_analysis_pair *p = &topo->pairs[i];
        int mine = p->a == c->nodes[0] && p->b == c->nodes[1];
        if (mine) {
            pi = (long)i;
            continue;
        }
        if (p->state != CP_PAIR_OK)
            continue;
        ok_a |= p->a == c->nodes[0] || p->b == c->nodes[0];
        ok_b |= p->a == c->nodes[1] || p->b == c->nodes[1];
    }
    if (pi < 0 || !ok_a || !ok_b || topo->pairs[pi].state == CP_PAIR_OK ||
        topo->pairs[pi].state == CP_PAIR_SLOW ||
        (topo->pairs[pi].probed && !topo->pairs[pi].probe_slow))
        return -1;
    return pi;
}

static int busbw_link_add(struct cp_analysis *an, struct busbw_link *l,
                          size_t ci, const struct busbw_judge *j)
{
    json_t *o = json_object();

    if (!o || !l->list) {
        json_decref(o);
        return -1;
    }
    l->fn += j->fn;
    l->t += j->fn / j->busbw;
    l->mt += j->fn / j->model;
    l->calls += j->calls;
    l->comms++;
    an->comms[ci].explained = 1;
    if (set(o, "comm", hex_id(an->comms[ci].id)) < 0 ||
        set(o, "calls", json_integer((json_int_t)j->calls)) < 0 ||
        set(o, "busbw_Bps", jnum(j->busbw)) < 0 ||
        set(o, "model_busbw_Bps", jnum(j->model)) < 0 ||
        set(o, "ratio", jnum(j->ratio)) < 0 ||
        set(o, "straggler_discount_s", jnum(j->discount)) < 0 ||
        json_array_append_new(l->list, o) < 0)
        return -1;
    return 0;
}

/* The slow_link of pair pi whose communicators' busbw l holds
 * (evidence.method "busbw"). */
static int busbw_link_finding(struct cp_analysis *an, size_t pi,
                              struct busbw_link *l)
{
    int ports = l->ports;
    const struct cp_analysis_pair *p = &an->topology.pairs[pi];
    const struct cp_analysis_link *m = &an->model[CP_LINK_INTER];
    unsigned nodes[2] = {p->a, p->b}, cleared = 0;
    double busbw = l->fn / l->t, model = l->fn / l->mt, ratio = l->mt / l->t;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        name[160];
    json_t *e, *list = l->list;
    size_t i;

    l->list = NULL;
    for (i = 0; i < an->topology.npairs; i++) {
        const struct cp_analysis_pair *q = &an->topology.pairs[i];
        cleared += i != pi && q->state == CP_PAIR_OK &&
                   (q->a == p->a || q->b == p->a || q->a == p->b ||
                    q->b == p->b);
    }
    if (det_add_finding(
            an, CP_KIND_SLOW_LINK,
            ratio <= 0.25 ? CP_SEVERITY_CRITICAL : CP_SEVERITY_WARNING, NULL, 0,
            nodes, 2,
            "The link between nodes %s and %s is slow: the %u "
            "communicator%s that cross it and no other link (%llu "
            "bandwidth-bound call%s) reach a busbw of %s, %.0f%% of the %s "
            "the model expects at their sizes (link %s, from the %s), while "
            "%u other link%s of these nodes ran at full speed.",
            an->nodes[p->a].name, an->nodes[p->b].name, l->comms,
            l->comms == 1 ? "" : "s", (unsigned long long)l->calls,
            l->calls == 1 ? "" : "s",
            cp_units_format_bandwidth(busbw, b1, sizeof b1), 100 * ratio,
            cp_units_format_bandwidth(model, b2, sizeof b2),
            cp_units_format_bandwidth(
                ports ? m->expected_Bps : m->bandwidth_Bps, b3, sizeof b3),
            ports ? "NICs' port rate" : cp_link_source_name(m->source), cleared,
            cleared == 1 ? "" : "s") < 0) {
        json_decref(list);
        return -1;
    }
    e = det_last_evidence(an);
    if (set(e, "link", json_string(det_pair_text(an, p, name, sizeof name))) <
            0 ||
        set(e, "method", json_string("busbw")) < 0 ||
        set(e, "bandwidth_Bps", jnum(busbw)) < 0 ||
        set(e, "peer_bandwidth_Bps", jnum(model)) < 0 ||
        set(e, "efficiency", jnum(ratio)) < 0 ||
        set(e, "slowdown", jnum(1 / ratio)) < 0 ||
        set(e, "source",
            json_string(cp_link_source_name(ports ? CP_SOURCE_PORTS
                                                  : m->source))) < 0 ||
        set(e, "comms", list) < 0 ||
        set(e, "cleared_pairs", json_integer(cleared)) < 0 ||
        set(e, "slow_calls", json_integer((json_int_t)l->calls)) < 0 ||
        set(e, "weak", json_false()) < 0 ||
        set(e, "ports", det_endpoint_ports(an, p->a, p->b)) < 0)
        return -1;
    return 0;
}

int det_low_busbw(struct cp_analysis *an, const struct detect_input *in)
{
    const struct an_eval *ev = in->ev;
    size_t nev = in->nev;
    unsigned char *marks = NULL;
    struct busbw_link *links = NULL;
    size_t ci, pi, np = an->topology.npairs;
    unsigned k;
    int rc = -1;

    marks = calloc(an->ncomms + 1, 1);
    links = calloc(np ? np : 1, sizeof *links);
    if (!marks || !links)
        goto out;
    for (ci = 0; ci < an->ncomms; ci++) {
        for (k = 0; k < CP_LINK_COUNT; k++) {
            const struct cp_analysis_link *m = &an->model[k];
            struct busbw_judge j = {0};

            j.ports = m->expected_source == CP_SOURCE_PORTS &&
                      m->expected_Bps > 0;
            int low = 0;

            if (m->source != CP_SOURCE_NONE || !j.ports) {
                busbw_sums(ev, nev, ci, k, m, &j);
                low = busbw_is_low(an, ci, k, &j);
            }
            if (!low && j.ports) {
                /* an order of magnitude below the port rate, whatever
                 * the model says of the calls */
                memset(&j, 0, sizeof j);
                j.ports = 1;
                busbw_sums_unfitted(an, ev, nev, ci, k, m->expected_Bps, &j);
                low = busbw_is_low(an, ci, k, &j);
            }
            if (low && (pi = (size_t)busbw_one_link(an, ci, k, &j)) !=
                           (size_t)-1) {
                if (!links[pi].list && !(links[pi].list = json_array()))
                    goto out;
                if (busbw_link_add(an, &links[pi], ci, &j) < 0)
                    goto out;
                links[pi].ports = links[pi].comms == 1 ? j.ports
                                  : links[pi].ports && j.ports;
                continue;
            }
            if (low && busbw_finding(an, marks, ci, k, &j) < 0)
                goto out;
        }
    }
    for (pi = 0; pi < np; pi++)
        if (links[pi].comms &&
            busbw_link_finding(an, pi, &links[pi]) < 0)
            goto out;
    rc = 0;
out:
    for (pi = 0; links && pi < np; pi++)
        json_decref(links[pi].list);
    free(links);
    free(marks);
    return rc;
}
