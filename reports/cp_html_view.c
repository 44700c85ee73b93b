/* cp_html_view.c - the checked view of a report.json or probe.json object
 * (cp_html_int.h): every key a page reads is checked here, through the
 * checked reader (analyzer/core/cp_jsoncheck), so that a bad document
 * fails with the key's name before a byte of its page is written.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_html_int.h"
#include "cp_jsoncheck.h"

#define WHERE_LEN 96

/* ---- checking the report ------------------------------------------------- */

/* The checked reader's getters under short names: required and optional. */
#define NUM(c, o, w, k) cp_jsoncheck_num(c, o, w, k, 1)
#define OPT_NUM(c, o, w, k) cp_jsoncheck_num(c, o, w, k, 0)
#define STR(c, o, w, k) cp_jsoncheck_str(c, o, w, k, 1)
#define OPT_STR(c, o, w, k) cp_jsoncheck_str(c, o, w, k, 0)
#define OBJ(c, o, w, k, req) cp_jsoncheck_typed(c, o, w, k, req, JSON_OBJECT)
#define ARR(c, o, w, k, req) cp_jsoncheck_typed(c, o, w, k, req, JSON_ARRAY)
#define INT(c, o, w, k) cp_jsoncheck_int(c, o, w, k, 1, -1)

/* report.json's numbers carry 10 significant digits */
#define REPORT_DIGITS 10

/* A severity this build does not know is shown as info. */
static enum cp_severity severity_of(const char *name)
{
    enum cp_severity s;

    return cp_severity_from_name(name, &s) == 0 ? s : CP_SEVERITY_INFO;
}

/* ---- numbers ---------------------------------------------------------- */

/* A JSON number at the 10 significant digits report.json is written with
 * (so that pages from memory and from the file agree); NaN when v is not a
 * number. */
static double report_number(const json_t *v)
{
    static const struct cp_jsoncheck at_report_precision = {.digits =
                                                                REPORT_DIGITS};

    return cp_jsoncheck_number(&at_report_precision, v);
}

/* ---- lookups ---------------------------------------------------------- */

static int compare_names(const void *a, const void *b)
{
    const struct name_index *x = a, *y = b;
    int d = strcmp(x->name, y->name);

    return d ? d : (x->index > y->index) - (x->index < y->index);
}

static long lookup(const struct name_index *order, size_t n, const char *name)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(order[mid].name, name);
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(order[lo].name, name) == 0 ? (long)order[lo].index
                                                       : -1;
}

long rp_node_index(const struct rp_report *r, const char *name)
{
    return name ? lookup(r->node_order, r->nnodes, name) : -1;
}

const struct rp_link *rp_link_get(const struct rp_report *r, const char *name)
{
    size_t i;

    for (i = 0; name && i < r->nlinks; i++)
        if (strcmp(r->links[i].name, name) == 0)
            return &r->links[i];
    return NULL;
}

const struct rp_ev *rp_ev_get(const struct rp_ev *ev, const char *key)
{
    size_t i;

    if (!ev || ev->type != RP_EV_OBJECT)
        return NULL;
    for (i = 0; i < ev->n; i++)
        if (strcmp(ev->item[i].key, key) == 0)
            return &ev->item[i];
    return NULL;
}

double rp_ev_num(const struct rp_ev *ev, const char *key)
{
    const struct rp_ev *v = rp_ev_get(ev, key);

    return v && v->type == RP_EV_NUMBER ? v->num : NAN;
}

const char *rp_ev_str(const struct rp_ev *ev, const char *key)
{
    const struct rp_ev *v = rp_ev_get(ev, key);

    return v && v->type == RP_EV_STRING ? v->str : NULL;
}

int rp_ev_true(const struct rp_ev *ev, const char *key)
{
    const struct rp_ev *v = rp_ev_get(ev, key);

    return v && v->type == RP_EV_BOOL && v->yes;
}

const char *rp_comm_label(const struct rp_comm *c)
{
    return c->name && c->name[0] ? c->name : c->id;
}

/* ---- the view ------------------------------------------------------------ */

static void figure_free(struct rp_figure *f)
{
    size_t l;

    free(f->counts);
    for (l = 0; l < RP_WORST_LISTS; l++)
        free(f->worst[l]);
}

void rp_view_free(struct rp_report *r)
{
    size_t k;

    for (k = 0; k < RP_FIGURES; k++)
        figure_free(&r->figures[k]);
    for (k = 0; k < r->ncomms; k++) {
        free(r->comms[k].nodes.name);
        free(r->comms[k].ranks.rank);
    }
    for (k = 0; k < r->nfindings; k++) {
        free(r->findings[k].nodes.name);
        free(r->findings[k].ranks.rank);
        free(r->findings[k].evidence);
    }
    free(r->sum.missing_ranks.rank);
    free(r->nodes.name);
    free(r->topology.nodes.name);
    free(r->topology.efficiency);
    free(r->timeline.windows);
    free(r->timeline.op_times);
    for (k = 0; k < r->long_run.nseries; k++) {
        free(r->long_run.series[k].t);
        free(r->long_run.series[k].busbw_Bps);
    }
    free(r->long_run.win_start);
    free(r->long_run.win_end);
    free(r->comms);
    free(r->rows);
    free(r->ranks);
    free(r->findings);
    free(r->node_order);
    free(r->inputs.files);
    free(r->inputs.problems);
    free(r->tags.rows);
    free(r->phases.last);
    free(r->pairs);
    free(r->slowest[0]);
    free(r->slowest[1]);
    free(r->hang.ranks);
    free(r->hang.comms);
    free(r->hang.members);
    memset(r, 0, sizeof *r);
}

static void *alloc_n(struct cp_jsoncheck *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (!p)
        cp_jsoncheck_fail(c, "out of memory");
    return p;
}

/* Reads one object of an array (at path `where`) into elem. */
typedef void view_one(struct cp_jsoncheck *c, json_t *o, const char *where,
                      void *elem);

/* The objects of array a (checked to hold only objects), each read by
 * `one` into the next of a new array of structs of `size`, at path
 * "PATH[i]"; stops at the first failure.  *n: the structs read. */
static void *view_objects(struct cp_jsoncheck *c, json_t *a, const char *path,
                          size_t size, view_one *one, size_t *n)
{
    unsigned char *items = alloc_n(c, json_array_size(a), size);
    char where[WHERE_LEN];
    json_t *o;
    size_t i;

    json_array_foreach(a, i, o)
    {
        if (c->bad)
            break;
        snprintf(where, sizeof where, "%s[%zu]", path, i);
        one(c, o, where, items + size * (*n)++);
    }
    return items;
}

/* Array `key` of obj, checked to hold only strings, as names. */
static struct rp_names view_names(struct cp_jsoncheck *c, json_t *obj,
                                  const char *where, const char *key,
                                  int required)
{
    json_t *a = cp_jsoncheck_list(c, obj, where, key, required, 0), *v;
    struct rp_names l = {alloc_n(c, json_array_size(a), sizeof *l.name), 0};
    size_t i;

    json_array_foreach(a, i, v) if (l.name) l.name[l.n++] = json_string_value(v);
    return l;
}

/* Array `key` of obj as global ranks: checked to hold only integers, or
 * (loose: communicators[].ranks) integers and {"global_rank"} objects,
 * anything else read as -1. */
static struct rp_ranks view_rank_list(struct cp_jsoncheck *c, json_t *obj,
                                      const char *where, const char *key,
                                      int required, int loose)
{
    json_t *a = loose ? ARR(c, obj, where, key, required)
                      : cp_jsoncheck_list(c, obj, where, key, required, 1);
    struct rp_ranks l = {alloc_n(c, json_array_size(a), sizeof *l.rank), 0};
    json_t *v;
    size_t i;

    json_array_foreach(a, i, v)
    {
        if (!l.rank)
            break;
        if (json_is_object(v))
            v = json_object_get(v, "global_rank");
        l.rank[l.n++] = json_is_integer(v) ? json_integer_value(v) : -1;
    }
    return l;
}

static int check_schema(struct cp_jsoncheck *c, const char *schema)
{
    static const char prefix[] = "collprof.report/";
    char *end;
    long major;

    if (strncmp(schema, prefix, sizeof prefix - 1) != 0) {
        cp_jsoncheck_fail(c,
                          "key 'schema' is '%.64s', not a collprof report "
                          "(expected collprof.report/1)",
                          schema);
        return -1;
    }
    major = strtol(schema + sizeof prefix - 1, &end, 10);
    if (major != 1 || end == schema + sizeof prefix - 1 ||
        (*end != '\0' && *end != '.')) {
        cp_jsoncheck_fail(c,
                          "key 'schema' is '%.64s': this collprof renders "
                          "collprof.report/1",
                          schema);
        return -1;
    }
    return 0;
}

/* The node names sorted, for rp_node_index. */
static void view_node_order(struct cp_jsoncheck *c, struct rp_report *r)
{
    size_t i;

    r->node_order = alloc_n(c, r->nnodes, sizeof *r->node_order);
    if (!r->node_order)
        return;
    for (i = 0; i < r->nnodes; i++) {
        r->node_order[i].name = r->nodes.name[i];
        r->node_order[i].index = i;
    }
    qsort(r->node_order, r->nnodes, sizeof *r->node_order, compare_names);
}

static void view_job(struct cp_jsoncheck *c, json_t *root,
                     struct rp_report *r)
{
    json_t *job = OBJ(c, root, "", "job", 1);

    r->job_id = STR(c, job, "job", "job_id");
    r->step_id = STR(c, job, "job", "step_id");
    r->nodes = view_names(c, job, "job", "nodes", 1);
    r->nnodes = r->nodes.n;
    r->world_size = NUM(c, job, "job", "world_size");
    r->processes = NUM(c, job, "job", "processes");
    if (c->bad)
        return;
    view_node_order(c, r);
}

static void view_summary(struct cp_jsoncheck *c, json_t *root,
                         struct rp_report *r)
{
    json_t *s = OBJ(c, root, "", "summary", 1);
    struct rp_summary *m = &r->sum;
    const char *w = "summary";

    m->calls = NUM(c, s, w, "calls");
    m->failed_calls = NUM(c, s, w, "failed_calls");
    m->instances = NUM(c, s, w, "instances");
    m->comm_time_s = NUM(c, s, w, "comm_time_s");
    m->skew_time_s = NUM(c, s, w, "skew_time_s");
    m->latency_bound_s = NUM(c, s, w, "latency_bound_s");
    m->latency_bound_share = NUM(c, s, w, "latency_bound_share");
    m->span_s = NUM(c, s, w, "span_s");
    m->steps = NUM(c, s, w, "steps");
    m->steps_method = STR(c, s, w, "steps_method");
    m->timer = STR(c, s, w, "timer");
    m->incomplete_instances = OPT_NUM(c, s, w, "incomplete_instances");
    m->p2p_pairs = OPT_NUM(c, s, w, "p2p_pairs");
    m->wait_time_s = OPT_NUM(c, s, w, "wait_time_s");
    m->rank_time_s = OPT_NUM(c, s, w, "rank_time_s");
    m->bucket_bytes = OPT_NUM(c, s, w, "bucket_bytes");
    m->records = OPT_NUM(c, s, w, "records");
    m->skipped_inputs = OPT_NUM(c, s, w, "skipped_inputs");
    m->missing_ranks = view_rank_list(c, s, w, "missing_ranks", 0, 0);
}

static void view_model(struct cp_jsoncheck *c, json_t *root,
                       struct rp_report *r)
{
    json_t *model = OBJ(c, root, "", "model", 1), *v;
    const char *key;
    char where[WHERE_LEN];

    json_object_foreach(model, key, v)
    {
        struct rp_link *l;
        json_t *q, *fit;
        char sub[WHERE_LEN + 16];
        if (r->nlinks == sizeof r->links / sizeof r->links[0])
            break;
        snprintf(where, sizeof where, "model.%.64s", key);
        if (!json_is_object(v)) {
            cp_jsoncheck_fail(c, "key '%s' should be an object, not %s", where,
                              cp_jsoncheck_type_name(v));
            return;
        }
        l = &r->links[r->nlinks++];
        l->name = key;
        l->source = STR(c, v, where, "source");
        l->alpha_s = NUM(c, v, where, "alpha_s");
        l->bandwidth_Bps = NUM(c, v, where, "bandwidth_Bps");
        l->busbw_Bps = OPT_NUM(c, v, where, "busbw_Bps");
        l->model_busbw_Bps = OPT_NUM(c, v, where, "model_busbw_Bps");
        l->expected_Bps = OPT_NUM(c, v, where, "expected_Bps");
        l->expected_source = OPT_STR(c, v, where, "expected_source");
        l->calls_used = OPT_NUM(c, v, where, "calls_used");
        l->bw_calls = OPT_NUM(c, v, where, "bandwidth_bound_calls");
        q = OBJ(c, v, where, "quality", 0);
        snprintf(sub, sizeof sub, "%s.quality", where);
        l->r2 = OPT_NUM(c, q, sub, "r2");
        l->median_rel_residual = OPT_NUM(c, q, sub, "median_rel_residual");
        fit = OBJ(c, v, where, "fit", 0);
        snprintf(sub, sizeof sub, "%s.fit", where);
        l->fit_ok = json_is_true(json_object_get(fit, "ok"));
        l->fit_why = OPT_STR(c, fit, sub, "why");
        l->fit_weak = json_is_true(json_object_get(fit, "weak"));
        l->fit_weak_why = OPT_STR(c, fit, sub, "weak_why");
        l->fit_points_used = OPT_NUM(c, fit, sub, "points_used");
    }
}

/* A communicator's skew quantiles (skew: its object, or NULL). */
static void view_skew(struct cp_jsoncheck *c, json_t *skew, const char *where,
                      struct rp_comm *m)
{
    static const char *const keys[] = {"p50_s", "p90_s", "p99_s", "max_s"};
    char sw[WHERE_LEN + 8];
    size_t k;

    snprintf(sw, sizeof sw, "%s.skew", where);
    m->has_skew = skew != NULL;
    for (k = 0; k < 4; k++)
        m->skew_s[k] = OPT_NUM(c, skew, sw, keys[k]);
    m->skew_source = OPT_STR(c, skew, sw, "source");
}

/* Its kernels' own skew (kernel_skew, optional: the phases of API v7). */
static void view_kernel_skew(struct cp_jsoncheck *c, json_t *o,
                             const char *where, struct rp_comm *m)
{
    char sw[WHERE_LEN + 16];
    json_t *k = OBJ(c, o, where, "kernel_skew", 0);

    m->kernel_instances = 0;
    m->kernel_skew.p50_s = m->kernel_skew.p90_s = m->kernel_skew.max_s = NAN;
    if (!k)
        return;
    snprintf(sw, sizeof sw, "%s.kernel_skew", where);
    m->kernel_instances = NUM(c, k, sw, "instances");
    m->kernel_skew.p50_s = OPT_NUM(c, k, sw, "p50_s");
    m->kernel_skew.p90_s = OPT_NUM(c, k, sw, "p90_s");
    m->kernel_skew.max_s = OPT_NUM(c, k, sw, "max_s");
    m->kernel_skew.source = OPT_STR(c, k, sw, "source");
}

static void view_comms(struct cp_jsoncheck *c, json_t *root,
                       struct rp_report *r)
{
    json_t *a = cp_jsoncheck_objects(c, root, "", "communicators", 1), *o;
    char where[WHERE_LEN];
    size_t i;

    if (c->bad)
        return;
    r->ncomms = json_array_size(a);
    r->comms = alloc_n(c, r->ncomms, sizeof *r->comms);
    if (!r->comms)
        return;
    json_array_foreach(a, i, o)
    {
        struct rp_comm *m = &r->comms[i];
        snprintf(where, sizeof where, "communicators[%zu]", i);
        m->id = STR(c, o, where, "id");
        m->name = STR(c, o, where, "name");
        m->link = STR(c, o, where, "link");
        m->nranks = NUM(c, o, where, "nranks");
        m->nodes = view_names(c, o, where, "nodes", 1);
        m->instances = NUM(c, o, where, "instances");
        m->time_s = NUM(c, o, where, "time_s");
        m->incomplete = OPT_NUM(c, o, where, "incomplete");
        m->p2p = OPT_NUM(c, o, where, "p2p_pairs");
        m->ranks = view_rank_list(c, o, where, "ranks", 0, 1);
        view_skew(c, OBJ(c, o, where, "skew", 0), where, m);
        view_kernel_skew(c, o, where, m);
        if (c->bad)
            return;
    }
}

static void view_rows(struct cp_jsoncheck *c, json_t *root,
                      struct rp_report *r)
{
    json_t *a = cp_jsoncheck_objects(c, root, "", "collectives", 1), *o;
    struct name_index *ids = NULL;
    char where[WHERE_LEN];
    size_t i;

    if (c->bad)
        return;
    r->nrows = json_array_size(a);
    r->rows = alloc_n(c, r->nrows, sizeof *r->rows);
    ids = alloc_n(c, r->ncomms, sizeof *ids);
    if (!r->rows || !ids)
        goto out;
    for (i = 0; i < r->ncomms; i++) {
        ids[i].name = r->comms[i].id;
        ids[i].index = i;
    }
    qsort(ids, r->ncomms, sizeof *ids, compare_names);
    json_array_foreach(a, i, o)
    {
        struct rp_row *m = &r->rows[i];
        snprintf(where, sizeof where, "collectives[%zu]", i);
        m->op = STR(c, o, where, "op");
        m->comm = STR(c, o, where, "comm");
        m->link = STR(c, o, where, "link");
        m->nranks = NUM(c, o, where, "nranks");
        m->bucket = NUM(c, o, where, "bucket_bytes");
        m->calls = NUM(c, o, where, "calls");
        m->bytes = NUM(c, o, where, "bytes");
        m->time_s = NUM(c, o, where, "time_s");
        m->p50_s = OPT_NUM(c, o, where, "p50_s");
        m->p99_s = OPT_NUM(c, o, where, "p99_s");
        m->skew_s = OPT_NUM(c, o, where, "skew_s");
        m->algbw_Bps = OPT_NUM(c, o, where, "algbw_Bps");
        m->busbw_Bps = OPT_NUM(c, o, where, "busbw_Bps");
        m->model_time_s = OPT_NUM(c, o, where, "model_time_s");
        m->efficiency = OPT_NUM(c, o, where, "efficiency");
        m->latency_share = OPT_NUM(c, o, where, "latency_share");
        m->regime = OPT_STR(c, o, where, "regime");
        m->path = OPT_STR(c, o, where, "path");
        if (!m->regime)
            m->regime = "none";
        if (c->bad)
            goto out;
        m->comm_index = lookup(ids, r->ncomms, m->comm);
        if (m->comm_index >= 0 && strcmp(m->regime, "bandwidth") == 0 &&
            m->model_time_s > 0 && m->time_s > 0) {
            struct rp_comm *cm = &r->comms[m->comm_index];
            cm->bw_model_s += m->model_time_s;
            cm->bw_time_s += m->time_s;
        }
    }
out:
    free(ids);
}

static void view_ranks(struct cp_jsoncheck *c, json_t *root,
                       struct rp_report *r)
{
    json_t *a = cp_jsoncheck_objects(c, root, "", "ranks", 1), *o;
    char where[WHERE_LEN];
    size_t i;

    if (c->bad)
        return;
    r->nranks = json_array_size(a);
    r->ranks = alloc_n(c, r->nranks, sizeof *r->ranks);
    if (!r->ranks)
        return;
    json_array_foreach(a, i, o)
    {
        struct rp_rank *m = &r->ranks[i];
        snprintf(where, sizeof where, "ranks[%zu]", i);
        m->rank = NUM(c, o, where, "rank");
        m->node = STR(c, o, where, "node");
        m->calls = NUM(c, o, where, "calls");
        m->failed = OPT_NUM(c, o, where, "failed");
        m->time_s = NUM(c, o, where, "time_s");
        m->last_arrivals = NUM(c, o, where, "last_arrivals");
        m->late_s = NUM(c, o, where, "late_s");
        if (c->bad)
            return;
    }
}

/* ---- a finding's evidence ------------------------------------------------ */

/* The members of container v that its tree keeps (none RP_EV_DEPTH
 * levels down). */
static size_t ev_members(json_t *v, int depth)
{
    if (depth >= RP_EV_DEPTH)
        return 0;
    return json_is_array(v) ? json_array_size(v)
           : json_is_object(v) ? json_object_size(v)
                               : 0;
}

/* Values in the tree of v, at `depth` below the evidence. */
static size_t ev_count(json_t *v, int depth)
{
    size_t n = 1, i;
    const char *key;
    json_t *x;

    if (ev_members(v, depth) == 0)
        return n;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) n += ev_count(x, depth + 1);
    } else {
        json_object_foreach(v, key, x) n += ev_count(x, depth + 1);
    }
    return n;
}

/* v into node e; its members take the next slots of *free_slot, in
 * order, their own members the slots after them. */
static void ev_fill(json_t *v, struct rp_ev *e, int depth,
                    struct rp_ev **free_slot)
{
    const char *key;
    size_t i;
    json_t *x;

    e->type = json_is_string(v)    ? RP_EV_STRING
              : json_is_number(v)  ? RP_EV_NUMBER
              : json_is_boolean(v) ? RP_EV_BOOL
              : json_is_array(v)   ? RP_EV_ARRAY
              : json_is_object(v)  ? RP_EV_OBJECT
                                   : RP_EV_NULL;
    e->str = json_string_value(v);
    e->num = report_number(v);
    e->yes = json_is_true(v);
    e->n = ev_members(v, depth);
    if (e->n == 0)
        return;
    e->item = *free_slot;
    *free_slot += e->n;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) ev_fill(x, &e->item[i], depth + 1,
                                            free_slot);
    } else {
        i = 0;
        json_object_foreach(v, key, x)
        {
            e->item[i].key = key;
            ev_fill(x, &e->item[i++], depth + 1, free_slot);
        }
    }
}

/* Evidence object ev (NULL: none) as a tree in one allocation. */
static struct rp_ev *view_evidence(struct cp_jsoncheck *c, json_t *ev)
{
    struct rp_ev *tree, *free_slot;

    if (!ev)
        return NULL;
    tree = alloc_n(c, ev_count(ev, 0), sizeof *tree);
    if (!tree)
        return NULL;
    free_slot = tree + 1;
    ev_fill(ev, tree, 0, &free_slot);
    return tree;
}

static void view_findings(struct cp_jsoncheck *c, json_t *root,
                          struct rp_report *r)
{
    json_t *a = cp_jsoncheck_objects(c, root, "", "findings", 1), *o;
    char where[WHERE_LEN];
    size_t i, j;

    if (c->bad)
        return;
    r->nfindings = json_array_size(a);
    r->findings = alloc_n(c, r->nfindings, sizeof *r->findings);
    if (!r->findings)
        return;
    json_array_foreach(a, i, o)
    {
        struct rp_finding f = {0};
        snprintf(where, sizeof where, "findings[%zu]", i);
        f.kind = STR(c, o, where, "kind");
        f.severity = STR(c, o, where, "severity");
        f.message = STR(c, o, where, "message");
        f.suggestion = OPT_STR(c, o, where, "suggestion");
        f.nodes = view_names(c, o, where, "nodes", 1);
        f.ranks = view_rank_list(c, o, where, "ranks", 1, 0);
        f.evidence = view_evidence(c, OBJ(c, o, where, "evidence", 0));
        if (c->bad) {
            free(f.nodes.name);
            free(f.ranks.rank);
            free(f.evidence);
            return;
        }
        f.sev = severity_of(f.severity);
        if (cp_kind_from_name(f.kind, &f.kid) != 0)
            f.kid = CP_KIND_COUNT;
        /* most severe first; insertion keeps the report's order within a
         * severity */
        for (j = i; j > 0 && f.sev > r->findings[j - 1].sev; j--)
            r->findings[j] = r->findings[j - 1];
        r->findings[j] = f;
    }
}

const char *const rp_input_status[RP_INPUT_STATUSES] = {"ok", "damaged",
                                                       "skipped", "unreadable"};

static void view_input_file(struct cp_jsoncheck *c, json_t *o,
                            const char *where, void *elem)
{
    struct rp_input_file *f = elem;

    f->file = STR(c, o, where, "file");
    f->status = STR(c, o, where, "status");
}

static void view_input_problem(struct cp_jsoncheck *c, json_t *o,
                               const char *where, void *elem)
{
    struct rp_input_problem *p = elem;

    p->file = STR(c, o, where, "file");
    p->message = STR(c, o, where, "message");
    p->offset = OPT_NUM(c, o, where, "offset");
}

static void view_inputs(struct cp_jsoncheck *c, json_t *root,
                        struct rp_report *r)
{
    struct rp_inputs *in = &r->inputs;
    json_t *inputs, *a;

    /* clock_offsets: not shown, but an object when present */
    OBJ(c, root, "", "clock_offsets", 0);
    inputs = OBJ(c, root, "", "inputs", 0);
    if (!inputs)
        return;
    in->present = 1;
    a = cp_jsoncheck_objects(c, inputs, "inputs", "files", 0);
    in->files = view_objects(c, a, "inputs.files", sizeof *in->files,
                             view_input_file, &in->nfiles);
    a = cp_jsoncheck_objects(c, inputs, "inputs", "problems", 0);
    in->problems = view_objects(c, a, "inputs.problems", sizeof *in->problems,
                                view_input_problem, &in->nproblems);
}

/* An entry of a figure's lists of nodes; of ranks: the same and a rank
 * (read first). */
static void view_worst_node(struct cp_jsoncheck *c, json_t *v,
                            const char *where, void *elem)
{
    struct rp_worst *w = elem;

    w->rank = NAN;
    w->node = STR(c, v, where, "node");
    w->value = OPT_NUM(c, v, where, "value");
}

static void view_worst_rank(struct cp_jsoncheck *c, json_t *v,
                            const char *where, void *elem)
{
    double rank = NUM(c, v, where, "rank");

    view_worst_node(c, v, where, elem);
    ((struct rp_worst *)elem)->rank = rank;
}

/* A figure of rank_summary (f, at path where) into fig. */
static void view_figure(struct cp_jsoncheck *c, json_t *f, const char *where,
                        struct rp_figure *fig)
{
    static const char *const qs[RP_QUANTILES] = {
        "mean", "min", "p10", "p25", "p50", "p75", "p90", "p99", "max"};
    static const char *const lists[RP_WORST_LISTS] = {
        "highest", "lowest", "nodes_highest", "nodes_lowest"};
    json_t *h, *counts, *v;
    char path[WHERE_LEN + 32];
    size_t i, k, l;

    fig->present = 1;
    for (k = 0; k < RP_QUANTILES; k++)
        fig->q[k] = OPT_NUM(c, f, where, qs[k]);
    fig->lo = fig->hi = NAN;
    h = OBJ(c, f, where, "histogram", 0);
    if (h) {
        snprintf(path, sizeof path, "%s.histogram", where);
        fig->lo = NUM(c, h, path, "lo");
        fig->hi = NUM(c, h, path, "hi");
        counts = cp_jsoncheck_list(c, h, path, "counts", 1, 1);
        fig->counts = alloc_n(c, json_array_size(counts), sizeof *fig->counts);
        json_array_foreach(counts, i, v)
        {
            if (c->bad)
                break;
            fig->counts[fig->ncounts++] = cp_jsoncheck_number(c, v);
        }
    }
    for (l = 0; l < RP_WORST_LISTS && !c->bad; l++) {
        json_t *a = cp_jsoncheck_objects(c, f, where, lists[l], 0);
        snprintf(path, sizeof path, "%s.%s", where, lists[l]);
        fig->worst[l] = view_objects(
            c, a, path, sizeof *fig->worst[l],
            l < RP_NODES_HIGHEST ? view_worst_rank : view_worst_node,
            &fig->nworst[l]);
    }
}

/* A large job's rank_summary (its figures: distributions and worst
 * lists) and inputs.summary, checked where present; the figures the pages
 * read are kept, the others only checked. */
static void view_rank_summary(struct cp_jsoncheck *c, json_t *root,
                              struct rp_report *r)
{
    static const char *const names[RP_FIGURES] = {
        "calls", "failed", "time_s", "last_arrivals", "late_s",
        "in_call_delay_s"};
    json_t *t = OBJ(c, root, "", "rank_summary", 0), *figs, *f;
    char where[WHERE_LEN];
    const char *key;
    size_t k;

    r->total_ranks = (double)r->nranks;
    if (t) {
        double n = NUM(c, t, "rank_summary", "ranks");
        NUM(c, t, "rank_summary", "listed");
        figs = OBJ(c, t, "rank_summary", "figures", 1);
        json_object_foreach(figs, key, f)
        {
            struct rp_figure other = {0}, *fig = &other;
            if (c->bad)
                break;
            snprintf(where, sizeof where, "rank_summary.figures.%s", key);
            if (!json_is_object(f)) {
                cp_jsoncheck_fail(c, "key '%s' should be an object, not %s",
                                  where, cp_jsoncheck_type_name(f));
                break;
            }
            for (k = 0; k < RP_FIGURES; k++)
                if (strcmp(key, names[k]) == 0)
                    fig = &r->figures[k];
            view_figure(c, f, where, fig);
            figure_free(&other);
        }
        if (!c->bad) {
            r->has_rank_summary = 1;
            if (n > r->total_ranks)
                r->total_ranks = n;
        }
    }
    t = r->inputs.present ? json_object_get(root, "inputs") : NULL;
    t = t ? OBJ(c, t, "inputs", "summary", 0) : NULL;
    if (t) {
        struct rp_inputs *in = &r->inputs;
        json_t *st;
        in->files_total = NUM(c, t, "inputs.summary", "files");
        in->listed = NUM(c, t, "inputs.summary", "listed");
        OPT_NUM(c, t, "inputs.summary", "notable");
        in->problems_total = OPT_NUM(c, t, "inputs.summary", "problems");
        st = OBJ(c, t, "inputs.summary", "status", 1);
        for (k = 0; k < RP_INPUT_STATUSES; k++)
            in->status[k] =
                OPT_NUM(c, st, "inputs.summary.status", rp_input_status[k]);
        in->has_summary = !c->bad;
    }
}

/* The checked K x K efficiency matrix m (NULL: none) as numbers. */
static void view_matrix(struct cp_jsoncheck *c, json_t *m, size_t k,
                        struct rp_topology *t)
{
    json_t *row, *v;
    size_t i, j;

    if (c->bad || !m)
        return;
    t->efficiency = alloc_n(c, k * k, sizeof *t->efficiency);
    if (!t->efficiency)
        return;
    json_array_foreach(m, i, row) json_array_foreach(row, j, v)
        t->efficiency[i * k + j] = report_number(v);
}

/* The slow-link analysis' node-pair view (optional): `nodes`, a K x K
 * `efficiency` matrix (null for very many nodes) and `pairs`. */
static void view_topology(struct cp_jsoncheck *c, json_t *root,
                          struct rp_report *r)
{
    json_t *t, *m, *row, *v;
    char where[WHERE_LEN];
    size_t i, j, n;

    t = OBJ(c, root, "", "topology", 0);
    if (t) {
        json_t *pairs;
        r->topology.nodes = view_names(c, t, "topology", "nodes", 1);
        m = ARR(c, t, "topology", "efficiency", 0);
        n = r->topology.nodes.n;
        if (!c->bad && m && json_array_size(m) != n)
            cp_jsoncheck_fail(
                c,
                "key 'topology.efficiency' should have %zu rows (one per "
                "node), not %zu",
                n, json_array_size(m));
        json_array_foreach(m, i, row)
        {
            if (c->bad)
                break;
            if (!json_is_array(row) || json_array_size(row) != n) {
                cp_jsoncheck_fail(
                    c,
                    "key 'topology.efficiency[%zu]' should be an array "
                    "of %zu numbers or nulls",
                    i, n);
                break;
            }
            json_array_foreach(row, j,
                               v) if (!json_is_number(v) && !json_is_null(v))
            {
                cp_jsoncheck_fail(
                    c,
                    "key 'topology.efficiency[%zu][%zu]' should be a "
                    "number or null, not %s",
                    i, j, cp_jsoncheck_type_name(v));
                break;
            }
        }
        view_matrix(c, m, n, &r->topology);
        pairs = cp_jsoncheck_objects(c, t, "topology", "pairs", 0);
        r->npairs = json_array_size(pairs);
        r->pairs = c->bad ? NULL : alloc_n(c, r->npairs, sizeof *r->pairs);
        json_array_foreach(pairs, i, v)
        {
            struct rp_pair *p;
            json_t *two;
            if (c->bad)
                break;
            p = &r->pairs[i];
            snprintf(where, sizeof where, "topology.pairs[%zu]", i);
            two = cp_jsoncheck_list(c, v, where, "nodes", 1, 0);
            if (!c->bad && json_array_size(two) != 2)
                cp_jsoncheck_fail(c,
                                  "key '%s.nodes' should name 2 nodes, not %zu",
                                  where, json_array_size(two));
            if (c->bad)
                break;
            p->nodes[0] = json_string_value(json_array_get(two, 0));
            p->nodes[1] = json_string_value(json_array_get(two, 1));
            p->efficiency = OPT_NUM(c, v, where, "efficiency");
            p->state = OPT_STR(c, v, where, "state");
            /* only compared with "probe": any other value is no source */
            p->source = json_string_value(json_object_get(v, "source"));
            p->bandwidth_Bps = p->latency_s = p->bytes = p->round = NAN;
        }
        r->topology.present = !c->bad;
    }
}

/* A window of the timeline into *p; its collectives' times take the next
 * slots of *free_op. */
static void view_period(struct cp_jsoncheck *c, json_t *v, const char *where,
                        struct rp_period *p, struct rp_op_time **free_op)
{
    const char *op;
    json_t *ops, *x;

    p->start_s = NUM(c, v, where, "start_s");
    p->end_s = NUM(c, v, where, "end_s");
    p->comm_time_s = NUM(c, v, where, "comm_time_s");
    p->calls = OPT_NUM(c, v, where, "calls");
    p->bytes = OPT_NUM(c, v, where, "bytes");
    p->wait_time_s = OPT_NUM(c, v, where, "wait_time_s");
    ops = OBJ(c, v, where, "op_time_s", 0);
    p->ops = *free_op;
    json_object_foreach(ops, op, x)
    {
        if (!json_is_number(x) && !json_is_null(x)) {
            /* the key is the report's: not repeated in the message */
            cp_jsoncheck_fail(c,
                              "key '%s.op_time_s' should hold numbers or "
                              "nulls, not %s",
                              where, cp_jsoncheck_type_name(x));
            break;
        }
        p->ops[p->nops].op = op;
        p->ops[p->nops++].time_s = report_number(x);
    }
    *free_op += p->nops;
}

/* The timeline's windows (optional). */
static void view_timeline(struct cp_jsoncheck *c, json_t *root,
                          struct rp_report *r)
{
    struct rp_timeline *tl = &r->timeline;
    struct rp_op_time *free_op;
    char where[WHERE_LEN];
    json_t *t, *v, *w;
    size_t i, nops = 0;

    t = OBJ(c, root, "", "timeline", 0);
    if (!t)
        return;
    tl->window_s = OPT_NUM(c, t, "timeline", "window_s");
    w = cp_jsoncheck_objects(c, t, "timeline", "windows", 1);
    if (c->bad)
        return;
    json_array_foreach(w, i, v) nops +=
        json_object_size(json_object_get(v, "op_time_s"));
    tl->windows = alloc_n(c, json_array_size(w), sizeof *tl->windows);
    tl->op_times = alloc_n(c, nops, sizeof *tl->op_times);
    if (c->bad)
        return;
    free_op = tl->op_times;
    json_array_foreach(w, i, v)
    {
        snprintf(where, sizeof where, "timeline.windows[%zu]", i);
        view_period(c, v, where, &tl->windows[tl->nwindows++], &free_op);
        if (c->bad)
            break;
    }
    tl->present = !c->bad;
}

/* A long run's busbw per communicator (optional `long_run`): the
 * communicators of most own time, their intervals averaged into at most
 * RP_LR_POINTS points. */
/* The long run's communicators (the first 64 seen) with their own time,
 * and lr->series: the RP_LR_SERIES of most own time, in that order. */
static void view_lr_comms(struct cp_jsoncheck *c, json_t *ivs,
                          struct rp_long_run *lr)
{
    const char *seen[64];
    double own[64];
    size_t nseen = 0, i, j, k;
    char where[WHERE_LEN];
    json_t *v, *cs, *e;

    json_array_foreach(ivs, i, v)
    {
        snprintf(where, sizeof where, "long_run.intervals[%zu]", i);
        lr->end_s = NUM(c, v, where, "end_s");
        cs = cp_jsoncheck_objects(c, v, where, "comms", 1);
        if (c->bad)
            return;
        json_array_foreach(cs, j, e)
        {
            const char *id;
            double t;
            snprintf(where, sizeof where, "long_run.intervals[%zu].comms[%zu]",
                     i, j);
            id = STR(c, e, where, "comm");
            t = OPT_NUM(c, e, where, "own_s");
            if (c->bad)
                return;
            for (k = 0; k < nseen && strcmp(seen[k], id); k++)
                ;
            if (k == nseen && nseen < 64) {
                seen[nseen] = id;
                own[nseen++] = 0;
            }
            if (k < nseen && isfinite(t))
                own[k] += t;
        }
    }
    lr->ncomms = nseen;
    while (lr->nseries < RP_LR_SERIES) {
        long best = -1;
        for (k = 0; k < nseen; k++)
            if (own[k] >= 0 && (best < 0 || own[k] > own[best]))
                best = (long)k;
        if (best < 0)
            break;
        lr->series[lr->nseries].comm = seen[best];
        lr->series[lr->nseries].name = "";
        lr->series[lr->nseries++].own_s = own[best];
        own[best] = -1;
    }
}

/* Series s's points: the mean busbw of each group of intervals [i, i +
 * group) (checked already by view_lr_comms), at its middle. */
static void view_lr_points(struct cp_jsoncheck *c, json_t *ivs, size_t group,
                           struct rp_long_run *lr, struct rp_lr_series *s)
{
    size_t n = (lr->nintervals + group - 1) / group, i, j, q;
    json_t *e;

    s->t = alloc_n(c, n, sizeof *s->t);
    s->busbw_Bps = alloc_n(c, n, sizeof *s->busbw_Bps);
    if (c->bad)
        return;
    for (i = 0; i < lr->nintervals; i += group) {
        double sum = 0, t0 = NAN, t1 = NAN;
        size_t m = 0;
        for (j = i; j < i + group && j < lr->nintervals; j++) {
            json_t *iv = json_array_get(ivs, j);
            if (j == i)
                t0 = report_number(json_object_get(iv, "start_s"));
            t1 = report_number(json_object_get(iv, "end_s"));
            json_array_foreach(json_object_get(iv, "comms"), q, e)
            {
                const char *id = json_string_value(json_object_get(e, "comm"));
                double b = report_number(json_object_get(e, "busbw_Bps"));
                const char *name =
                    json_string_value(json_object_get(e, "comm_name"));
                if (!id || strcmp(id, s->comm))
                    continue;
                if (name && !s->name[0])
                    s->name = name;
                if (isfinite(b)) {
                    sum += b;
                    m++;
                }
            }
        }
        s->t[s->n] = (t0 + t1) / 2;
        s->busbw_Bps[s->n++] = m ? sum / (double)m : NAN;
    }
}

static void view_long_run(struct cp_jsoncheck *c, json_t *root,
                          struct rp_report *r)
{
    struct rp_long_run *lr = &r->long_run;
    size_t i, k, group;
    char where[WHERE_LEN];
    json_t *o, *ivs, *v, *wins;

    o = OBJ(c, root, "", "long_run", 0);
    if (!o)
        return;
    lr->interval_s = NUM(c, o, "long_run", "interval_s");
    ivs = cp_jsoncheck_objects(c, o, "long_run", "intervals", 1);
    wins = cp_jsoncheck_objects(c, o, "long_run", "detail_windows", 1);
    if (c->bad)
        return;
    lr->nintervals = json_array_size(ivs);
    view_lr_comms(c, ivs, lr);
    if (c->bad)
        return;
    {
        /* the run's communicators: intervals[].comms may list some only */
        double all = OPT_NUM(c, o, "long_run", "comms");
        if (isfinite(all) && all > (double)lr->ncomms && all < 1e9)
            lr->ncomms = (size_t)all;
    }
    group = (lr->nintervals + RP_LR_POINTS - 1) / RP_LR_POINTS;
    if (group < 1)
        group = 1;
    for (k = 0; k < lr->nseries && !c->bad; k++)
        view_lr_points(c, ivs, group, lr, &lr->series[k]);
    lr->nwindows = json_array_size(wins);
    lr->win_start = alloc_n(c, lr->nwindows, sizeof *lr->win_start);
    lr->win_end = alloc_n(c, lr->nwindows, sizeof *lr->win_end);
    if (c->bad)
        return;
    json_array_foreach(wins, i, v)
    {
        snprintf(where, sizeof where, "long_run.detail_windows[%zu]", i);
        lr->win_start[i] = NUM(c, v, where, "start_s");
        lr->win_end[i] = NUM(c, v, where, "end_s");
    }
    lr->present = !c->bad;
}

/* An instance of the slowest lists. */
static void view_instance(struct cp_jsoncheck *c, json_t *v, const char *where,
                          void *elem)
{
    struct rp_instance *m = elem;

    m->op = STR(c, v, where, "op");
    m->comm = STR(c, v, where, "comm");
    m->comm_name = OPT_STR(c, v, where, "comm_name");
    m->path = OPT_STR(c, v, where, "path");
    m->last_node = OPT_STR(c, v, where, "last_node");
    m->seq = NUM(c, v, where, "seq");
    m->start_s = NUM(c, v, where, "start_s");
    m->own_s = NUM(c, v, where, "own_s");
    m->skew_s = NUM(c, v, where, "skew_s");
    m->bytes = OPT_NUM(c, v, where, "bytes");
    m->model_s = OPT_NUM(c, v, where, "model_s");
    m->vs_model = OPT_NUM(c, v, where, "vs_model");
    m->last_rank = OPT_NUM(c, v, where, "last_rank");
    m->late_by_s = OPT_NUM(c, v, where, "late_by_s");
}

/* The slowest instances (optional). */
static void view_slowest(struct cp_jsoncheck *c, json_t *root,
                         struct rp_report *r)
{
    static const char *const lists[] = {"by_own_time", "by_skew"};
    json_t *t = OBJ(c, root, "", "slowest", 0), *a;
    char path[WHERE_LEN];
    size_t k;

    if (!t)
        return;
    for (k = 0; k < 2 && !c->bad; k++) {
        a = cp_jsoncheck_objects(c, t, "slowest", lists[k], 0);
        snprintf(path, sizeof path, "slowest.%s", lists[k]);
        r->slowest[k] = view_objects(c, a, path, sizeof *r->slowest[k],
                                     view_instance, &r->nslowest[k]);
    }
    r->has_slowest = !c->bad;
}

/* A row of the tags' table. */
static void view_tag(struct cp_jsoncheck *c, json_t *v, const char *where,
                     void *elem)
{
    struct rp_tag *g = elem;

    g->tag = OPT_NUM(c, v, where, "tag");
    g->name = OPT_STR(c, v, where, "name");
    g->calls = NUM(c, v, where, "calls");
    g->bytes = NUM(c, v, where, "bytes");
    g->time_s = NUM(c, v, where, "time_s");
    g->time_share = OPT_NUM(c, v, where, "time_share");
    g->busbw_Bps = OPT_NUM(c, v, where, "busbw_Bps");
    g->latency_bound_s = NUM(c, v, where, "latency_bound_s");
    g->latency_bound_share = OPT_NUM(c, v, where, "latency_bound_share");
}

/* The NCCL profiler's tags (optional). */
static void view_tags(struct cp_jsoncheck *c, json_t *root,
                      struct rp_report *r)
{
    static const char w[] = "nccl_profiler.tags";
    struct rp_tags *tg = &r->tags;
    json_t *t, *m, *rows, *none;

    m = OBJ(c, root, "", "nccl_profiler", 0);
    t = m ? OBJ(c, m, "nccl_profiler", "tags", 0) : NULL;
    if (!t)
        return;
    tg->available = cp_jsoncheck_bool(c, t, w, "available");
    tg->why = OPT_STR(c, t, w, "why");
    tg->tag_records = OPT_NUM(c, t, w, "tag_records");
    tg->names_given = OPT_NUM(c, t, w, "names_given");
    rows = cp_jsoncheck_objects(c, t, w, "by_tag", 1);
    none = OBJ(c, t, w, "without_tag_record", 0);
    tg->rows = view_objects(c, rows, "nccl_profiler.tags.by_tag",
                            sizeof *tg->rows, view_tag, &tg->nrows);
    if (none && !c->bad) {
        view_tag(c, none, "nccl_profiler.tags.without_tag_record",
                 &tg->untagged);
        tg->has_untagged = 1;
    }
    tg->present = !c->bad;
}

/* A skew of nccl_profiler.phases (skew, host_skew, difference). */
static void view_skew_q(struct cp_jsoncheck *c, json_t *o, const char *key,
                        struct rp_skew_q *q)
{
    char sw[WHERE_LEN];
    json_t *v;

    snprintf(sw, sizeof sw, "nccl_profiler.phases.%s", key);
    v = OBJ(c, o, "nccl_profiler.phases", key, 0);
    q->p50_s = OPT_NUM(c, v, sw, "p50_s");
    q->p90_s = OPT_NUM(c, v, sw, "p90_s");
    q->max_s = OPT_NUM(c, v, sw, "max_s");
    q->source = OPT_STR(c, v, sw, "source");
}

/* A rank of the kernels' last arrivals. */
static void view_phase_rank(struct cp_jsoncheck *c, json_t *v,
                            const char *where, void *elem)
{
    struct rp_phase_rank *p = elem;

    p->rank = NUM(c, v, where, "rank");
    p->last_arrivals = NUM(c, v, where, "last_arrivals");
    p->late_s = NUM(c, v, where, "late_s");
}

/* The kernels' own last-arrival skew (optional). */
static void view_phases(struct cp_jsoncheck *c, json_t *root,
                        struct rp_report *r)
{
    static const char w[] = "nccl_profiler.phases";
    struct rp_phases *ph = &r->phases;
    json_t *t, *m, *last;

    m = OBJ(c, root, "", "nccl_profiler", 0);
    t = m ? OBJ(c, m, "nccl_profiler", "phases", 0) : NULL;
    if (!t)
        return;
    ph->records = NUM(c, t, w, "initial_sync_records");
    ph->damaged = OPT_NUM(c, t, w, "damaged_records");
    ph->instances = NUM(c, t, w, "instances");
    ph->why = OPT_STR(c, t, w, "why");
    view_skew_q(c, t, "skew", &ph->skew);
    view_skew_q(c, t, "host_skew", &ph->host_skew);
    view_skew_q(c, t, "difference", &ph->difference);
    last = cp_jsoncheck_objects(c, t, w, "last_arrivals", 0);
    ph->last = view_objects(c, last, "nccl_profiler.phases.last_arrivals",
                            sizeof *ph->last, view_phase_rank, &ph->nlast);
    ph->present = !c->bad;
}

/* The window of the run analyzed (optional). */
static void view_window(struct cp_jsoncheck *c, json_t *root,
                        struct rp_report *r)
{
    json_t *t, *m;

    m = OBJ(c, root, "", "summary", 0);
    t = m ? OBJ(c, m, "summary", "window", 0) : NULL;
    if (t) {
        struct rp_window *w = &r->window;
        w->by = STR(c, t, "summary.window", "by");
        w->from_s = OPT_NUM(c, t, "summary.window", "from_s");
        w->to_s = OPT_NUM(c, t, "summary.window", "to_s");
        w->calls_left_out = OPT_NUM(c, t, "summary.window", "calls_left_out");
        w->present = !c->bad;
    }
}

/* hang.ranks[i] (where: its path) into elem, a struct rp_hang_rank. */
static void view_hang_rank(struct cp_jsoncheck *c, json_t *o, const char *where,
                           void *elem)
{
    struct rp_hang_rank *h = elem;
    json_t *call;
    char cw[WHERE_LEN + 16];

    h->rank = INT(c, o, where, "rank");
    h->node = STR(c, o, where, "node");
    h->where = STR(c, o, where, "where");
    h->culprit = cp_jsoncheck_bool(c, o, where, "culprit");
    call = OBJ(c, o, where, "in_flight", 0);
    if (!call)
        return;
    snprintf(cw, sizeof cw, "%s.in_flight", where);
    h->in_call = 1;
    h->in_flight.op = STR(c, call, cw, "op");
    h->in_flight.communicator = STR(c, call, cw, "communicator");
    h->in_flight.seq = INT(c, call, cw, "seq");
}

/* hang.communicators into h: each one's name and members, the members of
 * all in one array. */
static void view_hang_comms(struct cp_jsoncheck *c, json_t *a,
                            struct rp_hang *h)
{
    json_t *o, *m;
    char where[WHERE_LEN], mw[WHERE_LEN + 32];
    size_t i, j, total = 0;

    json_array_foreach(a, i, o)
    {
        snprintf(where, sizeof where, "hang.communicators[%zu]", i);
        total += json_array_size(
            cp_jsoncheck_objects(c, o, where, "members", 0));
    }
    if (c->bad)
        return;
    h->ncomms = json_array_size(a);
    h->comms = alloc_n(c, h->ncomms, sizeof *h->comms);
    h->members = alloc_n(c, total, sizeof *h->members);
    total = 0;
    json_array_foreach(a, i, o)
    {
        struct rp_hang_comm *hc = &h->comms[i];
        if (c->bad)
            return;
        snprintf(where, sizeof where, "hang.communicators[%zu]", i);
        hc->name = STR(c, o, where, "name");
        hc->members = &h->members[total];
        json_array_foreach(json_object_get(o, "members"), j, m)
        {
            struct rp_hang_member *hm = &h->members[total++];
            snprintf(mw, sizeof mw, "%s.members[%zu]", where, j);
            hm->rank = INT(c, m, mw, "rank");
            hm->last_entered = INT(c, m, mw, "last_entered");
            hm->last_finished = INT(c, m, mw, "last_finished");
            hc->nmembers++;
        }
    }
}

/* report.json's `hang` (optional): the headline, the ranks and the
 * communicators' members. */
static void view_hang(struct cp_jsoncheck *c, json_t *root,
                      struct rp_report *r)
{
    json_t *t = OBJ(c, root, "", "hang", 0), *ranks, *comms;
    struct rp_hang *h = &r->hang;

    if (!t)
        return;
    h->headline = STR(c, t, "hang", "headline");
    ranks = cp_jsoncheck_objects(c, t, "hang", "ranks", 1);
    comms = cp_jsoncheck_objects(c, t, "hang", "communicators", 1);
    h->ranks = view_objects(c, ranks, "hang.ranks", sizeof *h->ranks,
                            view_hang_rank, &h->nranks);
    view_hang_comms(c, comms, h);
    h->present = !c->bad;
}

/* Optional views of later analyses: a node-pair matrix and a timeline
 * (docs/report-html.md says what they look like). */
static void view_extras(struct cp_jsoncheck *c, json_t *root,
                        struct rp_report *r)
{
    view_topology(c, root, r);
    view_timeline(c, root, r);
    view_long_run(c, root, r);
    view_slowest(c, root, r);
    view_tags(c, root, r);
    view_phases(c, root, r);
    view_window(c, root, r);
}

int rp_view_report(json_t *root, struct rp_report *r, struct cp_error *err)
{
    struct cp_jsoncheck c;

    cp_jsoncheck_init(&c, err, NULL, REPORT_DIGITS);

    memset(r, 0, sizeof *r);
    if (!json_is_object(root)) {
        cp_jsoncheck_fail(&c, "the report is %s, not a JSON object",
                          root ? cp_jsoncheck_type_name(root) : "missing");
        return -1;
    }
    r->schema = STR(&c, root, "", "schema");
    if (c.bad || check_schema(&c, r->schema) < 0)
        return -1;
    r->generator = OPT_STR(&c, root, "", "generator");
    view_job(&c, root, r);
    view_summary(&c, root, r);
    view_model(&c, root, r);
    view_comms(&c, root, r);
    view_rows(&c, root, r);
    view_ranks(&c, root, r);
    view_findings(&c, root, r);
    view_inputs(&c, root, r);
    view_extras(&c, root, r);
    view_rank_summary(&c, root, r);
    view_hang(&c, root, r);
    return c.bad ? -1 : 0;
}

/* probe.json (schema collprof.probe/1, docs/probe.md) as a view: the node
 * names, the node-pair view under `topology` (the keys report.json's
 * has, so the heatmap is report.html's) and the findings. */
int rp_view_probe(json_t *root, struct rp_report *r, struct cp_error *err)
{
    struct cp_jsoncheck c;

    cp_jsoncheck_init(&c, err, NULL, REPORT_DIGITS);
    json_t *run, *topo;
    size_t i;

    memset(r, 0, sizeof *r);
    r->title = "collprof probe";
    r->topology_caption =
        "collprof probe: each pair's bandwidth over the reference (the "
        "median of all pairs, or the profile's inter-node bandwidth)";
    r->job_id = r->step_id = "";
    if (!json_is_object(root)) {
        cp_jsoncheck_fail(&c, "the document is %s, not a JSON object",
                          root ? cp_jsoncheck_type_name(root) : "missing");
        return -1;
    }
    r->schema = STR(&c, root, "", "schema");
    if (!c.bad && strcmp(r->schema, "collprof.probe/1") != 0 &&
        strncmp(r->schema, "collprof.probe/1.", 17) != 0)
        cp_jsoncheck_fail(&c,
                          "key 'schema' is '%.64s': this collprof renders "
                          "collprof.probe/1",
                          r->schema);
    if (c.bad)
        return -1;
    r->generator = OPT_STR(&c, root, "", "generator");
    r->probe.rounds = r->probe.wall_s = NAN;
    run = OBJ(&c, root, "", "run", 0);
    if (run) {
        const char *job = OPT_STR(&c, run, "run", "job_id");
        r->job_id = job ? job : "";
        r->processes = OPT_NUM(&c, run, "run", "nodes");
        r->probe.rounds = OPT_NUM(&c, run, "run", "rounds");
        r->probe.wall_s = OPT_NUM(&c, run, "run", "wall_s");
        OPT_STR(&c, run, "run", "memory");
    }
    topo = OBJ(&c, root, "", "topology", 1);
    r->nodes = view_names(&c, topo, "topology", "nodes", 1);
    r->probe.reference_Bps = OPT_NUM(&c, topo, "topology", "reference_Bps");
    r->probe.reference_source =
        OPT_STR(&c, topo, "topology", "reference_source");
    r->probe.median_latency_s =
        OPT_NUM(&c, topo, "topology", "median_latency_s");
    if (c.bad)
        return -1;
    r->nnodes = r->nodes.n;
    view_node_order(&c, r);
    if (!r->node_order)
        return -1;
    view_findings(&c, root, r);
    view_extras(&c, root, r); /* topology: nodes, efficiency, pairs */
    if (!c.bad) {
        json_t *pairs = json_object_get(topo, "pairs"), *v;
        char where[WHERE_LEN];
        json_array_foreach(pairs, i, v)
        {
            struct rp_pair *p = &r->pairs[i];
            snprintf(where, sizeof where, "topology.pairs[%zu]", i);
            p->bandwidth_Bps = OPT_NUM(&c, v, where, "bandwidth_Bps");
            p->latency_s = OPT_NUM(&c, v, where, "latency_s");
            p->bytes = OPT_NUM(&c, v, where, "bytes");
            p->round = OPT_NUM(&c, v, where, "round");
            if (c.bad)
                break;
        }
    }
    return c.bad ? -1 : 0;
}
