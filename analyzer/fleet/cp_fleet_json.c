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

static json_t *summary(const struct cp_fleet_summary *s)
{
    int bad = 0;
    json_t *o = json_object();

    bad |= set(o, "jobs", json_integer(s->jobs));
    bad |= set(o, "steps", json_integer(s->steps));
    bad |= set(o, "users", json_integer(s->users));
    bad |= set(o, "nodes", json_integer(s->nodes));
    bad |= set(o, "pairs", json_integer(s->pairs));
    bad |= set(o, "bad_links", json_integer(s->bad_links));
    bad |= set(o, "suspect_links", json_integer(s->suspect_links));
    bad |= set(o, "no_evidence_links", json_integer(s->no_evidence_links));
    bad |= set(o, "bad_nodes", json_integer(s->bad_nodes));
    bad |= set(o, "suspect_nodes", json_integer(s->suspect_nodes));
    bad |= set(o, "bad_ports", json_integer(s->bad_ports));
    bad |= set(o, "suspect_ports", json_integer(s->suspect_ports));
    return built(o, bad);
}

static json_t *rules(void)
{
    int bad = 0;
    json_t *a = json_array(), *o;
    size_t i;

    for (i = 0; i < cp_fleet_nrules; i++) {
        o = json_object();
        bad |= set(o, "name", json_string(cp_fleet_rules[i].name));
        bad |= set(o, "text", json_string(cp_fleet_rules[i].text));
        bad |= set(o, "min_jobs", json_integer(cp_fleet_rules[i].min_jobs));
        bad |= set(o, "min_also", json_integer(cp_fleet_rules[i].min_also));
        bad |= set(o, "min_users", json_integer(cp_fleet_rules[i].min_users));
        bad |= set(o, "share", jnum(cp_fleet_rules[i].share));
        if (!a || json_array_append_new(a, o) < 0)
            bad = 1;
    }
    return built(a, bad);
}

/* The last CP_FLEET_HISTORY_MAX of rows [row0, row0 + n): the newest. */
static size_t history_start(size_t row0, size_t n)
{
    return n > CP_FLEET_HISTORY_MAX ? row0 + n - CP_FLEET_HISTORY_MAX : row0;
}

static json_t *link_history(const struct cp_fleet_table *t,
                            const struct cp_fleet_link *l)
{
    int bad = 0;
    json_t *a = json_array(), *h;
    size_t r;

    for (r = history_start(l->row0, l->nrows); r < l->row0 + l->nrows; r++) {
        h = json_object();
        bad |= set(h, "cluster", jstr_or_null(cp_fleet_cell(t, r, LR_CLUSTER)));
        bad |= set(h, "job", jstr_or_null(cp_fleet_cell(t, r, LR_JOB)));
        bad |= set(h, "step", jstr_or_null(cp_fleet_cell(t, r, LR_STEP)));
        bad |= set(h, "user", jstr_or_null(cp_fleet_cell(t, r, LR_USER)));
        bad |= set(h, "end", jstr_or_null(cp_fleet_cell(t, r, LR_END)));
        bad |= set(h, "bandwidth_Bps", jnum(cp_fleet_cell_num(t, r, LR_BANDWIDTH)));
        bad |= set(h, "efficiency", jnum(cp_fleet_cell_num(t, r, LR_EFFICIENCY)));
        bad |= set(h, "source", jstr_or_null(cp_fleet_cell(t, r, LR_SOURCE)));
        bad |= set(h, "verdict", jstr_or_null(cp_fleet_cell(t, r, LR_VERDICT)));
        if (!a || json_array_append_new(a, h) < 0)
            bad = 1;
    }
    return built(a, bad);
}

static json_t *link_ports(const struct cp_fleet_link *l)
{
    int bad = 0;
    json_t *a = json_array(), *o;
    size_t i;

    for (i = 0; i < l->nports; i++) {
        o = json_object();
        bad |= set(o, "node", json_string(l->ports[i].node));
        bad |= set(o, "device", json_string(l->ports[i].device));
        bad |= set(o, "port", json_integer(l->ports[i].port));
        bad |= set(o, "rate_Gbps", jnum(l->ports[i].rate_Gbps));
        if (!a || json_array_append_new(a, o) < 0)
            bad = 1;
    }
    return built(a, bad);
}

static json_t *link(const struct cp_fleet_view *v,
                    const struct cp_fleet_link *l)
{
    int bad = 0;
    json_t *o = json_object(), *pair = json_array();

    if (!pair || json_array_append_new(pair, json_string(l->a)) < 0 ||
        json_array_append_new(pair, json_string(l->b)) < 0)
        bad = 1;
    bad |= set(o, "nodes", pair);
    bad |= set(o, "verdict", json_string(cp_fleet_verdict_name(l->verdict)));
    bad |= set(o, "jobs_crossed", json_integer(l->jobs_crossed));
    bad |= set(o, "jobs_measured", json_integer(l->jobs_measured));
    bad |= set(o, "jobs_slow", json_integer(l->jobs_slow));
    bad |= set(o, "jobs_suspect", json_integer(l->jobs_suspect));
    bad |= set(o, "users", json_integer(l->users));
    bad |= set(o, "median_efficiency", jnum(l->median_efficiency));
    bad |= set(o, "reference_Bps", jnum(l->reference_Bps));
    bad |= set(o, "first_slow", jstr_or_null(l->first_slow));
    bad |= set(o, "last_slow", jstr_or_null(l->last_slow));
    bad |= set(o, "ports", link_ports(l));
    bad |= set(o, "history_total", json_integer((json_int_t)l->nrows));
    bad |= set(o, "history", link_history(&v->link_rows, l));
    return built(o, bad);
}

static json_t *node(const struct cp_fleet_view *v,
                    const struct cp_fleet_node *d)
{
    int bad = 0;
    const struct cp_fleet_table *t = &v->node_rows;
    json_t *o = json_object(), *a = json_array(), *h;
    size_t r;

    bad |= set(o, "node", json_string(d->node));
    bad |= set(o, "verdict", json_string(cp_fleet_verdict_name(d->verdict)));
    bad |= set(o, "jobs", json_integer(d->jobs));
    bad |= set(o, "jobs_straggler", json_integer(d->jobs_straggler));
    bad |= set(o, "jobs_straggler_weak", json_integer(d->jobs_weak));
    bad |= set(o, "users", json_integer(d->users));
    bad |= set(o, "users_straggler", json_integer(d->users_straggler));
    bad |= set(o, "median_delay_s", jnum(d->median_delay_s));
    bad |= set(o, "history_total", json_integer((json_int_t)d->nrows));
    for (r = history_start(d->row0, d->nrows); r < d->row0 + d->nrows; r++) {
        h = json_object();
        bad |= set(h, "cluster", jstr_or_null(cp_fleet_cell(t, r, NR_CLUSTER)));
        bad |= set(h, "job", jstr_or_null(cp_fleet_cell(t, r, NR_JOB)));
        bad |= set(h, "step", jstr_or_null(cp_fleet_cell(t, r, NR_STEP)));
        bad |= set(h, "user", jstr_or_null(cp_fleet_cell(t, r, NR_USER)));
        bad |= set(h, "end", jstr_or_null(cp_fleet_cell(t, r, NR_END)));
        bad |= set(h, "straggler",
            json_boolean(cp_fleet_cell_int(t, r, NR_STRAGGLER) != 0));
        bad |= set(h, "delay_s", jnum(cp_fleet_cell_num(t, r, NR_DELAY)));
        if (!a || json_array_append_new(a, h) < 0)
            bad = 1;
    }
    bad |= set(o, "history", a);
    return built(o, bad);
}

static json_t *port(const struct cp_fleet_port *p)
{
    int bad = 0;
    json_t *o = json_object(), *c = json_object();
    size_t i;

    bad |= set(o, "node", json_string(p->node));
    bad |= set(o, "device", json_string(p->device));
    bad |= set(o, "port", json_integer(p->port));
    bad |= set(o, "verdict", json_string(cp_fleet_verdict_name(p->verdict)));
    bad |= set(o, "jobs", json_integer(p->jobs));
    bad |= set(o, "jobs_errors", json_integer(p->jobs_errors));
    bad |= set(o, "jobs_slow_rate", json_integer(p->jobs_slow_rate));
    bad |= set(o, "rate_Gbps", jnum(p->rate_Gbps));
    bad |= set(o, "peer_rate_Gbps", jnum(p->peer_rate_Gbps));
    bad |= set(o, "state", jstr_or_null(p->state));
    bad |= set(o, "last_seen", jstr_or_null(p->last_seen));
    for (i = 0; i < p->ncounters; i++)
        bad |= set(c, p->counters[i].name, jnum(p->counters[i].increase));
    bad |= set(o, "counters", c);
    return built(o, bad);
}

/* The three lists into root, each only when asked for: 0, or not 0 when
 * memory ran out. */
static int lists_of(const struct cp_fleet_view *v, int lists, json_t *root)
{
    int bad = 0;
    json_t *links = json_array(), *nodes = json_array(), *ports = json_array();
    size_t i;

    for (i = 0; (lists & CP_FLEET_JSON_LINKS) && i < v->nlinks; i++)
        if (!links || json_array_append_new(links,
                                            link(v, &v->links[i])) < 0)
            bad = 1;
    for (i = 0; (lists & CP_FLEET_JSON_NODES) && i < v->nnodes; i++)
        if (!nodes || json_array_append_new(nodes,
                                            node(v, &v->nodes[i])) < 0)
            bad = 1;
    for (i = 0; (lists & CP_FLEET_JSON_PORTS) && i < v->nports; i++)
        if (!ports || json_array_append_new(ports, port(&v->ports[i])) < 0)
            bad = 1;
    bad |= set(root, "links", links);
    bad |= set(root, "nodes", nodes);
    bad |= set(root, "ports", ports);
    return bad;
}

json_t *cp_fleet_to_json(const struct cp_fleet_view *v, int lists,
                         struct cp_error *err)
{
    json_t *root = json_object();
    int bad = 0;

    bad |= set(root, "schema", json_string(CP_FLEET_SCHEMA));
    bad |= set(root, "generator", json_string("collprof " PACKAGE_VERSION));
    bad |= set(root, "generated", json_string(v->generated));
    bad |= set(root, "since", v->since[0] ? json_string(v->since) : json_null());
    bad |= set(root, "db", json_string(v->db));
    bad |= set(root, "summary", summary(&v->summary));
    bad |= set(root, "rules", rules());
    bad |= lists_of(v, lists, root);
    if (bad) {
        json_decref(root);
        cp_errorf(err, "fleet: out of memory writing collprof.fleet/1");
        return NULL;
    }
    return root;
}
