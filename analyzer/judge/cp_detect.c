/* cp_detect.c - the detectors' table and what they share.
 *
 * detectors[] below is the one table of the detectors an analysis runs, in
 * its order; each family of them has a file of its own (cp_det_*.c).  The
 * helpers here are those two families or more use: a finding added with
 * its message, the ranks and nodes of communicators, a node pair's and a
 * unit's figures for the evidence.  The kinds, their titles, rules and
 * severities are the table of core/cp_kinds.c (docs/analysis.md,
 * "Findings", lists the same).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"

int det_add_finding(struct cp_analysis *an, enum cp_kind kind,
                    enum cp_severity sev, const int *ranks, size_t nranks,
                    const unsigned *nodes, size_t nnodes, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return an_add_finding(an, kind, sev, ranks, nranks, nodes, nnodes, msg);
}

json_t *det_last_evidence(struct cp_analysis *an)
{
    return an->findings[an->nfindings - 1].evidence;
}

const struct cp_analysis_finding *det_named_pair(const struct cp_analysis *an,
                                                 unsigned a, unsigned b,
                                                 const char *method)
{
    size_t i;

    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        const char *m;
        if (f->kind != CP_KIND_SLOW_LINK ||
            f->nnodes != 2 ||
            !((f->nodes[0] == a && f->nodes[1] == b) ||
              (f->nodes[0] == b && f->nodes[1] == a)))
            continue;
        m = json_string_value(json_object_get(f->evidence, "method"));
        if (!method || (m && strcmp(m, method) == 0))
            return f;
    }
    return NULL;
}

int det_probe_figures(json_t *e, const struct cp_analysis_pair *p,
                      const char *file)
{
    return set(e, "probe_state",
               json_string(p->probe_slow ? "slow" : "ok")) < 0 ||
                   set(e, "probe_bandwidth_Bps",
                       jnum(p->probe_bandwidth_Bps)) < 0 ||
                   set(e, "probe_efficiency", jnum(p->probe_efficiency)) < 0 ||
                   set(e, "probe_file", json_string(file)) < 0
               ? -1
               : 0;
}

size_t det_first_of_rank(const struct cp_analysis *an, int g)
{
    size_t lo = 0, hi = an->nranks;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int m = an->ranks[mid].rank;
        if (m >= 0 && m < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int det_who_of_comms(const struct cp_analysis *an, const unsigned char *marks,
                     struct det_who *w)
{
    unsigned char *rank_seen = calloc(an->nranks + 1, 1);
    unsigned char *node_seen = calloc(an->nnodes + 1, 1);
    size_t i, r;
    int rc = -1;

    memset(w, 0, sizeof *w);
    w->ranks = malloc((an->nranks + 1) * sizeof *w->ranks);
    w->nodes = malloc((an->nnodes + 1) * sizeof *w->nodes);
    if (!rank_seen || !node_seen || !w->ranks || !w->nodes)
        goto out;
    for (i = 0; i < an->ncomms; i++) {
        const struct cp_analysis_comm *c = &an->comms[i];
        if (!marks[i])
            continue;
        for (r = 0; r < c->nnodes; r++)
            node_seen[c->nodes[r]] = 1;
        for (r = 0; r < c->nranks; r++) {
            size_t k;
            if (c->ranks[r] < 0)
                continue;
            for (k = det_first_of_rank(an, c->ranks[r]);
                 k < an->nranks && an->ranks[k].rank == c->ranks[r]; k++)
                rank_seen[k] = 1;
        }
    }
    for (i = 0; i < an->nranks; i++)
        if (rank_seen[i])
            w->ranks[w->nranks++] = an->ranks[i].rank;
    for (i = 0; i < an->nnodes; i++)
        if (node_seen[i])
            w->nodes[w->nnodes++] = (unsigned)i;
    rc = 0;
out:
    free(rank_seen);
    free(node_seen);
    return rc;
}

void det_who_free(struct det_who *w)
{
    free(w->ranks);
    free(w->nodes);
}

int det_all_pairs(enum cp_coll c)
{
    const struct cp_coll_facts *f = cp_model_coll_facts(c);

    return f && f->all_pairs;
}

const char *det_coll_name(enum cp_coll c)
{
    const char *n = cp_model_coll_name(c);
    return n ? n : "unknown";
}

int det_in_call_straggler(const struct cp_analysis *an)
{
    size_t i;

    for (i = 0; i < an->nranks; i++)
        if (an->ranks[i].straggler)
            return 1;
    return 0;
}

double det_comm_member_delay(const struct cp_analysis *an, size_t ci)
{
    const struct cp_analysis_comm *c = &an->comms[ci];
    double d = c->tied_delay_s > 0 ? c->tied_delay_s : 0;
    size_t i, q;

    for (i = 0; i < an->nranks; i++) {
        if (!an->ranks[i].straggler || !(an->ranks[i].delay_s > d))
            continue;
        for (q = 0; q < c->nranks; q++)
            if (c->ranks[q] == an->ranks[i].rank) {
                d = an->ranks[i].delay_s;
                break;
            }
    }
    return d;
}

int det_comm_ranks(const struct cp_analysis *an, unsigned ci, struct det_who *w)
{
    unsigned char *marks = calloc(an->ncomms + 1, 1);
    int rc;

    if (!marks)
        return -1;
    marks[ci] = 1;
    rc = det_who_of_comms(an, marks, w);
    free(marks);
    return rc;
}

const char *det_pair_text(const struct cp_analysis *an,
                          const struct cp_analysis_pair *p, char *buf,
                          size_t len)
{
    snprintf(buf, len, "%s-%s", an->nodes[p->a].name, an->nodes[p->b].name);
    return buf;
}

json_t *det_pair_json(const struct cp_analysis *an,
                      const struct cp_analysis_pair *p)
{
    json_t *a = json_array();

    if (!a || json_array_append_new(a, json_string(an->nodes[p->a].name)) < 0 ||
        json_array_append_new(a, json_string(an->nodes[p->b].name)) < 0) {
        json_decref(a);
        return NULL;
    }
    return a;
}

int det_unit_has_pair(const struct cp_analysis_unit *u, unsigned pi)
{
    size_t k;

    for (k = 0; k < u->npairs; k++)
        if (u->pairs[k] == pi)
            return 1;
    return 0;
}

json_t *det_unit_json(const struct cp_analysis *an,
                      const struct cp_analysis_unit *u)
{
    json_t *o = json_object();

    if (!o || set(o, "comm", hex_id(an->comms[u->comm].id)) < 0 ||
        set(o, "op", json_string(det_coll_name(u->coll))) < 0 ||
        set(o, "bytes", jnum(u->bytes)) < 0 ||
        set(o, "calls", json_integer((json_int_t)u->calls)) < 0 ||
        set(o, "time_s", jnum(u->time_s)) < 0 ||
        set(o, "peer_time_s", jnum(u->peer_time_s)) < 0 ||
        set(o, "slowdown", jnum(u->slowdown)) < 0 ||
        /* a send and a receive between the two in one group each */
        (u->exchange && set(o, "exchange", json_true()) < 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *det_endpoint_ports(const struct cp_analysis *an, unsigned a, unsigned b)
{
    json_t *arr = json_array();
    size_t i;

    for (i = 0; arr && i < an->ports.nports; i++) {
        const struct cp_analysis_port *p = &an->ports.ports[i];
        json_t *o;
        if (!p->why[0] || (p->node != a && p->node != b))
            continue;
        o = json_object();
        if (!o || json_array_append_new(arr, o) < 0 ||
            set(o, "node", json_string(an->nodes[p->node].name)) < 0 ||
            set(o, "device", json_string(p->device)) < 0 ||
            set(o, "port", json_integer(p->port)) < 0 ||
            set(o, "why", json_string(p->why)) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

void det_probe_command(char *buf, size_t len, unsigned nnodes)
{
    snprintf(buf, len, "srun -N %u --ntasks-per-node=1 collprof probe -o DIR",
             nnodes);
}

const char *det_when(double t, char *buf, size_t size)
{
    if (t >= 7200)
        snprintf(buf, size, "%.0f s (%.1f h)", t, t / 3600);
    else
        snprintf(buf, size, "%.0f s", t);
    return buf;
}

int det_append_message(struct cp_analysis_finding *f, const char *fmt, ...)
{
    char more[512], *m;
    size_t have = f->message ? strlen(f->message) : 0;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(more, sizeof more, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    m = realloc(f->message, have + strlen(more) + 1);
    if (!m)
        return -1;
    memcpy(m + have, more, strlen(more) + 1);
    f->message = m;
    return 0;
}

const char *det_baseline_phrase(enum cp_baseline b)
{
    return b == CP_BASELINE_PEERS ? "time of the same calls elsewhere in the "
                                    "job"
           : b == CP_BASELINE_REFERENCE ? "time at the reference bandwidth"
                                        : "model's time";
}

const struct cp_analysis_unit *
det_slowest_unresolved(const struct cp_analysis_topology *topo, size_t ci,
                       enum cp_unit_verdict v, uint64_t *slow_calls)
{
    const struct cp_analysis_unit *best = NULL;
    size_t i;

    *slow_calls = 0;
    for (i = 0; i < topo->nunits; i++) {
        const struct cp_analysis_unit *u = &topo->units[i];
        if (u->comm != ci || u->verdict != v)
            continue;
        *slow_calls += u->calls;
        if (!best || u->time_s * (double)u->calls >
                         best->time_s * (double)best->calls)
            best = u;
    }
    return best;
}

/* In this order: the slow links named by the calls, the proxies and the
 * probe come before the candidates that would list them, and low_busbw
 * after every finding that explains a communicator (it does not repeat
 * them); findings of one severity keep this order in report.json.  The
 * hang pass (cp_hang.c) and the slowdown pass (cp_slowdown.c) run apart,
 * on the hang state and the windows. */
static const struct detector {
    const char *name; /* for a reader of the code and a debugger */
    int (*detect)(struct cp_analysis *an, const struct detect_input *in);
} detectors[] = {
    {"latency_bound", det_latency_bound},
    {"slow_link (calls)", det_slow_links},
    {"slow_link (proxy steps)", det_proxy_links},
    {"slow_link_candidates (warnings)", det_candidates_warned},
    {"slow_link (probe)", det_probe_links},
    {"algorithm_choice", det_algorithm_choice},
    {"degraded_port", det_degraded_ports},
    {"low_busbw", det_low_busbw},
    {"straggler", det_straggler},
    {"slow_link_candidates (hints)", det_candidates_hinted},
    {"links_unjudged", det_unjudged_links},
    {"missing_ranks, incomplete_instances, failed_calls", det_inputs_findings},
    {"clock_offset", det_clock_offset},
    {"model_unavailable", det_model_unavailable},
    {"slowdown, straggler (long run)", det_long_run},
    /* last: it annotates the findings above */
    {"the detail windows of a long run (each finding's)", det_detail_windows},
};

int an_findings(struct cp_analysis *an, const struct an_eval *ev, size_t nev)
{
    struct detect_input in = {ev, nev, NULL};
    size_t i;
    int rc = -1;

    in.reported = calloc(an->topology.npairs + 1, 1);
    if (in.reported)
        for (i = 0, rc = 0;
             rc == 0 && i < sizeof detectors / sizeof *detectors; i++)
            rc = detectors[i].detect(an, &in) < 0 ? -1 : 0;
    free(in.reported);
    if (rc < 0)
        return -1;
    an_findings_sort(an);
    return 0;
}

void an_findings_sort(struct cp_analysis *an)
{
    size_t i;

    /* most severe first, in the order above within a severity (a stable
     * insertion sort: there are a handful) */
    for (i = 1; i < an->nfindings; i++) {
        struct cp_analysis_finding f = an->findings[i];
        size_t j = i;
        while (j > 0 && an->findings[j - 1].severity < f.severity) {
            an->findings[j] = an->findings[j - 1];
            j--;
        }
        an->findings[j] = f;
    }
}
