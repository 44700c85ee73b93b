/* cp_fleet_json.c - collprof.fleet/1 from the judged view. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cp_fleet_json.h"
#include "cp_jsonout.h"

static json_t *jstr_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *summary(const struct cp_fleet_summary *s, int *bad)
{
    json_t *o = json_object();

    put(o, "jobs", json_integer(s->jobs), bad);
    put(o, "steps", json_integer(s->steps), bad);
    put(o, "users", json_integer(s->users), bad);
    put(o, "nodes", json_integer(s->nodes), bad);
    put(o, "pairs", json_integer(s->pairs), bad);
    put(o, "bad_links", json_integer(s->bad_links), bad);
    put(o, "suspect_links", json_integer(s->suspect_links), bad);
    put(o, "no_evidence_links", json_integer(s->no_evidence_links), bad);
    put(o, "bad_nodes", json_integer(s->bad_nodes), bad);
    put(o, "suspect_nodes", json_integer(s->suspect_nodes), bad);
    put(o, "bad_ports", json_integer(s->bad_ports), bad);
    put(o, "suspect_ports", json_integer(s->suspect_ports), bad);
    return o;
}

static json_t *rules(int *bad)
{
    json_t *a = json_array(), *o;
    size_t i;

    for (i = 0; i < cp_fleet_nrules; i++) {
        o = json_object();
        put(o, "name", json_string(cp_fleet_rules[i].name), bad);
        put(o, "text", json_string(cp_fleet_rules[i].text), bad);
        put(o, "min_jobs", json_integer(cp_fleet_rules[i].min_jobs), bad);
        put(o, "min_also", json_integer(cp_fleet_rules[i].min_also), bad);
        put(o, "min_users", json_integer(cp_fleet_rules[i].min_users), bad);
        put(o, "share", jnum(cp_fleet_rules[i].share), bad);
        if (!a || json_array_append_new(a, o) < 0)
            *bad = 1;
    }
    return a;
}

/* The last CP_FLEET_HISTORY_MAX of rows [row0, row0 + n): the newest. */
static size_t history_start(size_t row0, size_t n)
{
    return n > CP_FLEET_HISTORY_MAX ? row0 + n - CP_FLEET_HISTORY_MAX : row0;
}

static json_t *link_history(const struct cp_fleet_table *t,
                            const struct cp_fleet_link *l, int *bad)
{
    json_t *a = json_array(), *h;
    size_t r;

    for (r = history_start(l->row0, l->nrows); r < l->row0 + l->nrows; r++) {
        h = json_object();
        put(h, "cluster", jstr_or_null(cp_fleet_cell(t, r, LR_CLUSTER)), bad);
        put(h, "job", jstr_or_null(cp_fleet_cell(t, r, LR_JOB)), bad);
        put(h, "step", jstr_or_null(cp_fleet_cell(t, r, LR_STEP)), bad);
        put(h, "user", jstr_or_null(cp_fleet_cell(t, r, LR_USER)), bad);
        put(h, "end", jstr_or_null(cp_fleet_cell(t, r, LR_END)), bad);
        put(h, "bandwidth_Bps", jnum(cp_fleet_cell_num(t, r, LR_BANDWIDTH)),
            bad);
        put(h, "efficiency", jnum(cp_fleet_cell_num(t, r, LR_EFFICIENCY)),
            bad);
        put(h, "source", jstr_or_null(cp_fleet_cell(t, r, LR_SOURCE)), bad);
        put(h, "verdict", jstr_or_null(cp_fleet_cell(t, r, LR_VERDICT)), bad);
        if (!a || json_array_append_new(a, h) < 0)
            *bad = 1;
    }
    return a;
}

static json_t *link_ports(const struct cp_fleet_link *l, int *bad)
{
    json_t *a = json_array(), *o;
    size_t i;

    for (i = 0; i < l->nports; i++) {
        o = json_object();
        put(o, "node", json_string(l->ports[i].node), bad);
        put(o, "device", json_string(l->ports[i].device), bad);
        put(o, "port", json_integer(l->ports[i].port), bad);
        put(o, "rate_Gbps", jnum(l->ports[i].rate_Gbps), bad);
        if (!a || json_array_append_new(a, o) < 0)
            *bad = 1;
    }
    return a;
}

static json_t *link(const struct cp_fleet_view *v,
                    const struct cp_fleet_link *l, int *bad)
{
    json_t *o = json_object(), *pair = json_array();

    if (!pair || json_array_append_new(pair, json_string(l->a)) < 0 ||
        json_array_append_new(pair, json_string(l->b)) < 0)
        *bad = 1;
    put(o, "nodes", pair, bad);
    put(o, "verdict", json_string(cp_fleet_verdict_name(l->verdict)), bad);
    put(o, "jobs_crossed", json_integer(l->jobs_crossed), bad);
    put(o, "jobs_measured", json_integer(l->jobs_measured), bad);
    put(o, "jobs_slow", json_integer(l->jobs_slow), bad);
    put(o, "jobs_suspect", json_integer(l->jobs_suspect), bad);
    put(o, "users", json_integer(l->users), bad);
    put(o, "median_efficiency", jnum(l->median_efficiency), bad);
    put(o, "reference_Bps", jnum(l->reference_Bps), bad);
    put(o, "first_slow", jstr_or_null(l->first_slow), bad);
    put(o, "last_slow", jstr_or_null(l->last_slow), bad);
    put(o, "ports", link_ports(l, bad), bad);
    put(o, "history_total", json_integer((json_int_t)l->nrows), bad);
    put(o, "history", link_history(&v->link_rows, l, bad), bad);
    return o;
}

static json_t *node(const struct cp_fleet_view *v,
                    const struct cp_fleet_node *d, int *bad)
{
    const struct cp_fleet_table *t = &v->node_rows;
    json_t *o = json_object(), *a = json_array(), *h;
    size_t r;

    put(o, "node", json_string(d->node), bad);
    put(o, "verdict", json_string(cp_fleet_verdict_name(d->verdict)), bad);
    put(o, "jobs", json_integer(d->jobs), bad);
    put(o, "jobs_straggler", json_integer(d->jobs_straggler), bad);
    put(o, "jobs_straggler_weak", json_integer(d->jobs_weak), bad);
    put(o, "users", json_integer(d->users), bad);
    put(o, "users_straggler", json_integer(d->users_straggler), bad);
    put(o, "median_delay_s", jnum(d->median_delay_s), bad);
    put(o, "history_total", json_integer((json_int_t)d->nrows), bad);
    for (r = history_start(d->row0, d->nrows); r < d->row0 + d->nrows; r++) {
        h = json_object();
        put(h, "cluster", jstr_or_null(cp_fleet_cell(t, r, NR_CLUSTER)), bad);
        put(h, "job", jstr_or_null(cp_fleet_cell(t, r, NR_JOB)), bad);
        put(h, "step", jstr_or_null(cp_fleet_cell(t, r, NR_STEP)), bad);
        put(h, "user", jstr_or_null(cp_fleet_cell(t, r, NR_USER)), bad);
        put(h, "end", jstr_or_null(cp_fleet_cell(t, r, NR_END)), bad);
        put(h, "straggler",
            json_boolean(cp_fleet_cell_int(t, r, NR_STRAGGLER) != 0), bad);
        put(h, "delay_s", jnum(cp_fleet_cell_num(t, r, NR_DELAY)), bad);
        if (!a || json_array_append_new(a, h) < 0)
            *bad = 1;
    }
    put(o, "history", a, bad);
    return o;
}

static json_t *port(const struct cp_fleet_port *p, int *bad)
{
    json_t *o = json_object(), *c = json_object();
    size_t i;

    put(o, "node", json_string(p->node), bad);
    put(o, "device", json_string(p->device), bad);
    put(o, "port", json_integer(p->port), bad);
    put(o, "verdict", json_string(cp_fleet_verdict_name(p->verdict)), bad);
    put(o, "jobs", json_integer(p->jobs), bad);
    put(o, "jobs_errors", json_integer(p->jobs_errors), bad);
    put(o, "jobs_slow_rate", json_integer(p->jobs_slow_rate), bad);
    put(o, "rate_Gbps", jnum(p->rate_Gbps), bad);
    put(o, "peer_rate_Gbps", jnum(p->peer_rate_Gbps), bad);
    put(o, "state", jstr_or_null(p->state), bad);
    put(o, "last_seen", jstr_or_null(p->last_seen), bad);
    for (i = 0; i < p->ncounters; i++)
        put(c, p->counters[i].name, jnum(p->counters[i].increase), bad);
    put(o, "counters", c, bad);
    return o;
}

/* The three lists, each only when asked for. */
static void lists_of(const struct cp_fleet_view *v, int lists, json_t *root,
                     int *bad)
{
    json_t *links = json_array(), *nodes = json_array(), *ports = json_array();
    size_t i;

    for (i = 0; (lists & CP_FLEET_JSON_LINKS) && i < v->nlinks; i++)
        if (!links || json_array_append_new(links,
                                            link(v, &v->links[i], bad)) < 0)
            *bad = 1;
    for (i = 0; (lists & CP_FLEET_JSON_NODES) && i < v->nnodes; i++)
        if (!nodes || json_array_append_new(nodes,
                                            node(v, &v->nodes[i], bad)) < 0)
            *bad = 1;
    for (i = 0; (lists & CP_FLEET_JSON_PORTS) && i < v->nports; i++)
        if (!ports || json_array_append_new(ports, port(&v->ports[i], bad)) < 0)
            *bad = 1;
    put(root, "links", links, bad);
    put(root, "nodes", nodes, bad);
    put(root, "ports", ports, bad);
}

json_t *cp_fleet_to_json(const struct cp_fleet_view *v, int lists,
                         struct cp_error *err)
{
    json_t *root = json_object();
    int bad = 0;

    put(root, "schema", json_string(CP_FLEET_SCHEMA), &bad);
    put(root, "generator", json_string("collprof " PACKAGE_VERSION), &bad);
    put(root, "generated", json_string(v->generated), &bad);
    put(root, "since", v->since[0] ? json_string(v->since) : json_null(),
        &bad);
    put(root, "db", json_string(v->db), &bad);
    put(root, "summary", summary(&v->summary, &bad), &bad);
    put(root, "rules", rules(&bad), &bad);
    lists_of(v, lists, root, &bad);
    if (bad) {
        json_decref(root);
        cp_errorf(err, "fleet: out of memory writing collprof.fleet/1");
        return NULL;
    }
    return root;
}
