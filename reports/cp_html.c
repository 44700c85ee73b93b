/* cp_html.c - report.html from a report object (see cp_html.h).
 *
 * Two passes: build_view() checks every key the page reads and fills a
 * typed view (cp_html_int.h), failing with the key's name before a byte is
 * written; then the sections are written from the view, top to bottom:
 * verdict, findings, summary, plots (cp_html_plots.c), tables, inputs.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_html.h"
#include "cp_html_int.h"
#include "cp_kinds.h"
#include "cp_svg.h"

#define WHERE_LEN 96

/* ---- checking the report ------------------------------------------------- */

struct ctx {
    struct cp_error *err;
    int bad; /* the first problem is in err */
};

__attribute__((format(printf, 2, 3))) static void fail(struct ctx *c,
                                                       const char *fmt, ...)
{
    va_list ap;
    char text[CP_ERROR_TEXT];

    if (c->bad)
        return;
    c->bad = 1;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cp_error_set(c->err, NULL, -1, "%s", text);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
    default:
        return "null";
    }
}

/* "where.key", or "key" at the top. */
static const char *path_of(const char *where, const char *key, char *buf,
                           size_t size)
{
    snprintf(buf, size, "%s%s%s", where, where[0] ? "." : "", key);
    return buf;
}

/* obj[key]; a required key that is missing fails. */
static json_t *member(struct ctx *c, json_t *obj, const char *where,
                      const char *key, int required)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    char path[WHERE_LEN + 64];

    if (!v && required && obj)
        fail(c, "key '%s' is missing", path_of(where, key, path, sizeof path));
    return v;
}

static void wrong_type(struct ctx *c, const char *where, const char *key,
                       const char *want, const json_t *v)
{
    char path[WHERE_LEN + 64];

    fail(c, "key '%s' should be %s, not %s",
         path_of(where, key, path, sizeof path), want, type_name(v));
}

/* A number or null (NaN); required unless opt. */
static double get_num(struct ctx *c, json_t *obj, const char *where,
                      const char *key, int required)
{
    json_t *v = member(c, obj, where, key, required);

    if (!v || json_is_null(v))
        return NAN;
    if (!json_is_number(v)) {
        wrong_type(c, where, key, "a number or null", v);
        return NAN;
    }
    return rp_number(v);
}

#define NUM(c, o, w, k) get_num(c, o, w, k, 1)
#define OPT_NUM(c, o, w, k) get_num(c, o, w, k, 0)

/* A string; "" when missing and required (with the failure), NULL when
 * missing or null and optional. */
static const char *get_str(struct ctx *c, json_t *obj, const char *where,
                           const char *key, int required)
{
    json_t *v = member(c, obj, where, key, required);

    if (!v || (!required && json_is_null(v)))
        return required ? "" : NULL;
    if (!json_is_string(v)) {
        wrong_type(c, where, key, "a string", v);
        return required ? "" : NULL;
    }
    return json_string_value(v);
}

#define STR(c, o, w, k) get_str(c, o, w, k, 1)
#define OPT_STR(c, o, w, k) get_str(c, o, w, k, 0)

static json_t *get_typed(struct ctx *c, json_t *obj, const char *where,
                         const char *key, int required, json_type type)
{
    json_t *v = member(c, obj, where, key, required);

    if (!v || (!required && json_is_null(v)))
        return NULL;
    if (json_typeof(v) != type) {
        wrong_type(c, where, key,
                   type == JSON_OBJECT ? "an object" : "an array", v);
        return NULL;
    }
    return v;
}

#define OBJ(c, o, w, k, req) get_typed(c, o, w, k, req, JSON_OBJECT)
#define ARR(c, o, w, k, req) get_typed(c, o, w, k, req, JSON_ARRAY)

/* An array whose elements are all strings (want_int 0) or integers. */
static json_t *get_list(struct ctx *c, json_t *obj, const char *where,
                        const char *key, int required, int want_int)
{
    json_t *a = ARR(c, obj, where, key, required), *v;
    char path[WHERE_LEN + 64];
    size_t i;

    json_array_foreach(a, i, v)
    {
        if (want_int ? !json_is_integer(v) : !json_is_string(v)) {
            fail(c, "key '%s[%zu]' should be %s, not %s",
                 path_of(where, key, path, sizeof path), i,
                 want_int ? "an integer" : "a string", type_name(v));
            return NULL;
        }
    }
    return a;
}

/* Each element of array `key` must be an object; returns the array. */
static json_t *get_objects(struct ctx *c, json_t *obj, const char *where,
                           const char *key, int required)
{
    json_t *a = ARR(c, obj, where, key, required), *v;
    char path[WHERE_LEN + 64];
    size_t i;

    json_array_foreach(a, i, v)
    {
        if (!json_is_object(v)) {
            fail(c, "key '%s[%zu]' should be an object, not %s",
                 path_of(where, key, path, sizeof path), i, type_name(v));
            return NULL;
        }
    }
    return a;
}

static enum rp_severity severity_of(const char *name)
{
    if (strcmp(name, "critical") == 0)
        return RP_CRITICAL;
    if (strcmp(name, "warning") == 0)
        return RP_WARNING;
    return RP_INFO;
}

/* ---- numbers ---------------------------------------------------------- */

double rp_number(const json_t *v)
{
    char text[32];

    if (json_is_integer(v))
        return (double)json_integer_value(v);
    if (!json_is_real(v))
        return NAN;
    /* report.json keeps 10 significant digits; reading every number at that
     * precision makes the page of an analysis in memory the page of its
     * saved file, even where a value sits on a rounding boundary */
    snprintf(text, sizeof text, "%.10g", json_real_value(v));
    return strtod(text, NULL);
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

const char *rp_comm_label(const struct rp_comm *c)
{
    return c->name && c->name[0] ? c->name : c->id;
}

/* ---- the view ------------------------------------------------------------ */

static void view_free(struct rp_report *r)
{
    free(r->comms);
    free(r->rows);
    free(r->ranks);
    free(r->findings);
    free(r->node_order);
    memset(r, 0, sizeof *r);
}

static void *alloc_n(struct ctx *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (!p)
        fail(c, "out of memory");
    return p;
}

static int check_schema(struct ctx *c, const char *schema)
{
    static const char prefix[] = "collprof.report/";
    char *end;
    long major;

    if (strncmp(schema, prefix, sizeof prefix - 1) != 0) {
        fail(c, "key 'schema' is '%.64s', not a collprof report "
                "(expected collprof.report/1)",
             schema);
        return -1;
    }
    major = strtol(schema + sizeof prefix - 1, &end, 10);
    if (major != 1 || end == schema + sizeof prefix - 1 ||
        (*end != '\0' && *end != '.')) {
        fail(c, "key 'schema' is '%.64s': this collprof renders "
                "collprof.report/1",
             schema);
        return -1;
    }
    return 0;
}

static void view_job(struct ctx *c, struct rp_report *r)
{
    json_t *job = OBJ(c, r->root, "", "job", 1);
    size_t i;

    r->job_id = STR(c, job, "job", "job_id");
    r->step_id = STR(c, job, "job", "step_id");
    r->nodes = get_list(c, job, "job", "nodes", 1, 0);
    r->nnodes = json_array_size(r->nodes);
    r->world_size = NUM(c, job, "job", "world_size");
    r->processes = NUM(c, job, "job", "processes");
    if (c->bad)
        return;
    r->node_order = alloc_n(c, r->nnodes, sizeof *r->node_order);
    if (!r->node_order)
        return;
    for (i = 0; i < r->nnodes; i++) {
        r->node_order[i].name = json_string_value(json_array_get(r->nodes, i));
        r->node_order[i].index = i;
    }
    qsort(r->node_order, r->nnodes, sizeof *r->node_order, compare_names);
}

static void view_summary(struct ctx *c, struct rp_report *r)
{
    json_t *s = OBJ(c, r->root, "", "summary", 1);
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
    m->missing_ranks = get_list(c, s, w, "missing_ranks", 0, 1);
}

static void view_model(struct ctx *c, struct rp_report *r)
{
    json_t *model = OBJ(c, r->root, "", "model", 1), *v;
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
            fail(c, "key '%s' should be an object, not %s", where,
                 type_name(v));
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

static void view_comms(struct ctx *c, struct rp_report *r)
{
    json_t *a = get_objects(c, r->root, "", "communicators", 1), *o;
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
        m->nodes = get_list(c, o, where, "nodes", 1, 0);
        m->nnodes = json_array_size(m->nodes);
        m->instances = NUM(c, o, where, "instances");
        m->time_s = NUM(c, o, where, "time_s");
        m->incomplete = OPT_NUM(c, o, where, "incomplete");
        m->p2p = OPT_NUM(c, o, where, "p2p_pairs");
        m->ranks = json_object_get(o, "ranks");
        m->skew = OBJ(c, o, where, "skew", 0);
        if (m->skew) {
            char sw[WHERE_LEN + 8];
            snprintf(sw, sizeof sw, "%s.skew", where);
            OPT_NUM(c, m->skew, sw, "p50_s");
            OPT_NUM(c, m->skew, sw, "p90_s");
            OPT_NUM(c, m->skew, sw, "p99_s");
            OPT_NUM(c, m->skew, sw, "max_s");
        }
        if (c->bad)
            return;
    }
}

static void view_rows(struct ctx *c, struct rp_report *r)
{
    json_t *a = get_objects(c, r->root, "", "collectives", 1), *o;
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

static void view_ranks(struct ctx *c, struct rp_report *r)
{
    json_t *a = get_objects(c, r->root, "", "ranks", 1), *o;
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

static void view_findings(struct ctx *c, struct rp_report *r)
{
    json_t *a = get_objects(c, r->root, "", "findings", 1), *o;
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
        f.nodes = get_list(c, o, where, "nodes", 1, 0);
        f.ranks = get_list(c, o, where, "ranks", 1, 1);
        f.evidence = OBJ(c, o, where, "evidence", 0);
        if (c->bad)
            return;
        f.sev = severity_of(f.severity);
        /* most severe first; insertion keeps the report's order within a
         * severity */
        for (j = i; j > 0 && f.sev > r->findings[j - 1].sev; j--)
            r->findings[j] = r->findings[j - 1];
        r->findings[j] = f;
    }
}

static void view_inputs(struct ctx *c, struct rp_report *r)
{
    json_t *files, *problems, *o;
    char where[WHERE_LEN];
    size_t i;

    r->offsets = OBJ(c, r->root, "", "clock_offsets", 0);
    r->inputs = OBJ(c, r->root, "", "inputs", 0);
    if (!r->inputs)
        return;
    files = get_objects(c, r->inputs, "inputs", "files", 0);
    json_array_foreach(files, i, o)
    {
        snprintf(where, sizeof where, "inputs.files[%zu]", i);
        STR(c, o, where, "file");
        STR(c, o, where, "status");
    }
    problems = get_objects(c, r->inputs, "inputs", "problems", 0);
    json_array_foreach(problems, i, o)
    {
        snprintf(where, sizeof where, "inputs.problems[%zu]", i);
        STR(c, o, where, "file");
        STR(c, o, where, "message");
        OPT_NUM(c, o, where, "offset");
    }
}

/* A large job's rank_summary (its figures: distributions and worst
 * lists) and inputs.summary, checked where present. */
static void view_rank_summary(struct ctx *c, struct rp_report *r)
{
    static const char *const qs[] = {"mean", "min", "p10", "p25", "p50",
                                     "p75", "p90", "p99", "max"};
    static const char *const lists[] = {"highest", "lowest", "nodes_highest",
                                        "nodes_lowest"};
    json_t *t = OBJ(c, r->root, "", "rank_summary", 0), *figs, *f, *h, *v;
    char where[WHERE_LEN], lw[WHERE_LEN + 32];
    const char *key;
    size_t i, k, l;

    r->total_ranks = (double)r->nranks;
    if (t) {
        double n = NUM(c, t, "rank_summary", "ranks");
        NUM(c, t, "rank_summary", "listed");
        figs = OBJ(c, t, "rank_summary", "figures", 1);
        json_object_foreach(figs, key, f)
        {
            if (c->bad)
                break;
            snprintf(where, sizeof where, "rank_summary.figures.%s", key);
            if (!json_is_object(f)) {
                fail(c, "key '%s' should be an object, not %s", where,
                     type_name(f));
                break;
            }
            for (k = 0; k < sizeof qs / sizeof qs[0]; k++)
                OPT_NUM(c, f, where, qs[k]);
            h = OBJ(c, f, where, "histogram", 0);
            if (h) {
                snprintf(lw, sizeof lw, "%s.histogram", where);
                NUM(c, h, lw, "lo");
                NUM(c, h, lw, "hi");
                get_list(c, h, lw, "counts", 1, 1);
            }
            for (l = 0; l < 4 && !c->bad; l++) {
                json_t *a = get_objects(c, f, where, lists[l], 0);
                json_array_foreach(a, i, v)
                {
                    snprintf(lw, sizeof lw, "%s.%s[%zu]", where, lists[l], i);
                    if (l < 2)
                        NUM(c, v, lw, "rank");
                    STR(c, v, lw, "node");
                    OPT_NUM(c, v, lw, "value");
                    if (c->bad)
                        break;
                }
            }
        }
        if (!c->bad) {
            r->rank_summary = t;
            if (n > r->total_ranks)
                r->total_ranks = n;
        }
    }
    t = r->inputs ? OBJ(c, r->inputs, "inputs", "summary", 0) : NULL;
    if (t) {
        static const char *const statuses[] = {"ok", "damaged", "skipped",
                                               "unreadable"};
        json_t *st;
        NUM(c, t, "inputs.summary", "files");
        NUM(c, t, "inputs.summary", "listed");
        OPT_NUM(c, t, "inputs.summary", "notable");
        OPT_NUM(c, t, "inputs.summary", "problems");
        st = OBJ(c, t, "inputs.summary", "status", 1);
        for (k = 0; st && k < 4; k++)
            OPT_NUM(c, st, "inputs.summary.status", statuses[k]);
        r->inputs_summary = c->bad ? NULL : t;
    }
}

/* Optional views of later analyses: a node-pair matrix and a timeline
 * (docs/report-html.md says what they look like). */
static void view_extras(struct ctx *c, struct rp_report *r)
{
    json_t *t, *m, *row, *v, *w;
    char where[WHERE_LEN];
    size_t i, j, n;

    /* the slow-link analysis' node-pair view: `nodes`, a K x K
     * `efficiency` matrix (null for very many nodes) and `pairs` */
    t = OBJ(c, r->root, "", "topology", 0);
    if (t) {
        json_t *names = get_list(c, t, "topology", "nodes", 1, 0), *pairs;
        m = ARR(c, t, "topology", "efficiency", 0);
        n = json_array_size(names);
        if (!c->bad && m && json_array_size(m) != n)
            fail(c, "key 'topology.efficiency' should have %zu rows (one per "
                    "node), not %zu",
                 n, json_array_size(m));
        json_array_foreach(m, i, row)
        {
            if (c->bad)
                break;
            if (!json_is_array(row) || json_array_size(row) != n) {
                fail(c, "key 'topology.efficiency[%zu]' should be an array "
                        "of %zu numbers or nulls",
                     i, n);
                break;
            }
            json_array_foreach(row, j, v) if (!json_is_number(v) &&
                                              !json_is_null(v))
            {
                fail(c, "key 'topology.efficiency[%zu][%zu]' should be a "
                        "number or null, not %s",
                     i, j, type_name(v));
                break;
            }
        }
        pairs = get_objects(c, t, "topology", "pairs", 0);
        json_array_foreach(pairs, i, v)
        {
            json_t *two;
            if (c->bad)
                break;
            snprintf(where, sizeof where, "topology.pairs[%zu]", i);
            two = get_list(c, v, where, "nodes", 1, 0);
            if (!c->bad && json_array_size(two) != 2)
                fail(c, "key '%s.nodes' should name 2 nodes, not %zu", where,
                     json_array_size(two));
            OPT_NUM(c, v, where, "efficiency");
            OPT_STR(c, v, where, "state");
        }
        r->topology = c->bad ? NULL : t;
    }
    t = OBJ(c, r->root, "", "timeline", 0);
    if (t) {
        const char *op;
        json_t *ops, *x;
        OPT_NUM(c, t, "timeline", "window_s");
        w = get_objects(c, t, "timeline", "windows", 1);
        json_array_foreach(w, i, v)
        {
            if (c->bad)
                break;
            snprintf(where, sizeof where, "timeline.windows[%zu]", i);
            NUM(c, v, where, "start_s");
            NUM(c, v, where, "end_s");
            NUM(c, v, where, "comm_time_s");
            OPT_NUM(c, v, where, "calls");
            OPT_NUM(c, v, where, "bytes");
            OPT_NUM(c, v, where, "wait_time_s");
            ops = OBJ(c, v, where, "op_time_s", 0);
            json_object_foreach(ops, op, x) if (!json_is_number(x) &&
                                                !json_is_null(x))
            {
                /* the key is the report's: not repeated in the message */
                fail(c, "key '%s.op_time_s' should hold numbers or nulls, "
                        "not %s",
                     where, type_name(x));
                break;
            }
        }
        r->timeline = c->bad ? NULL : t;
    }
    t = OBJ(c, r->root, "", "slowest", 0);
    if (t) {
        static const char *const lists[] = {"by_own_time", "by_skew"};
        size_t k;
        for (k = 0; k < 2 && !c->bad; k++) {
            snprintf(where, sizeof where, "slowest");
            w = get_objects(c, t, where, lists[k], 0);
            json_array_foreach(w, i, v)
            {
                if (c->bad)
                    break;
                snprintf(where, sizeof where, "slowest.%s[%zu]", lists[k], i);
                STR(c, v, where, "op");
                STR(c, v, where, "comm");
                OPT_STR(c, v, where, "comm_name");
                OPT_STR(c, v, where, "last_node");
                NUM(c, v, where, "seq");
                NUM(c, v, where, "start_s");
                NUM(c, v, where, "own_s");
                NUM(c, v, where, "skew_s");
                OPT_NUM(c, v, where, "bytes");
                OPT_NUM(c, v, where, "model_s");
                OPT_NUM(c, v, where, "vs_model");
                OPT_NUM(c, v, where, "last_rank");
                OPT_NUM(c, v, where, "late_by_s");
            }
        }
        r->slowest = c->bad ? NULL : t;
    }
    m = OBJ(c, r->root, "", "summary", 0);
    t = m ? OBJ(c, m, "summary", "window", 0) : NULL;
    if (t) {
        STR(c, t, "summary.window", "by");
        OPT_NUM(c, t, "summary.window", "from_s");
        OPT_NUM(c, t, "summary.window", "to_s");
        OPT_NUM(c, t, "summary.window", "calls_left_out");
        r->window = c->bad ? NULL : t;
    }
}

static int build_view(json_t *root, struct rp_report *r, struct cp_error *err)
{
    struct ctx c = {err, 0};

    memset(r, 0, sizeof *r);
    r->root = root;
    if (!json_is_object(root)) {
        fail(&c, "the report is %s, not a JSON object", root ? type_name(root)
                                                             : "missing");
        return -1;
    }
    r->schema = STR(&c, root, "", "schema");
    if (c.bad || check_schema(&c, r->schema) < 0)
        return -1;
    r->generator = OPT_STR(&c, root, "", "generator");
    view_job(&c, r);
    view_summary(&c, r);
    view_model(&c, r);
    view_comms(&c, r);
    view_rows(&c, r);
    view_ranks(&c, r);
    view_findings(&c, r);
    view_inputs(&c, r);
    view_extras(&c, r);
    view_rank_summary(&c, r);
    return c.bad ? -1 : 0;
}

/* ---- writing helpers ------------------------------------------------------ */

static void esc(FILE *out, const char *s)
{
    cp_svg_escape(out, s);
}

/* A JSON list of names or ranks, at most RP_LIST_ITEMS, then "and N more". */
static void write_list(FILE *out, json_t *list)
{
    size_t i, n = json_array_size(list);
    json_t *v;

    json_array_foreach(list, i, v)
    {
        if (i == RP_LIST_ITEMS)
            break;
        if (i)
            fputs(", ", out);
        if (json_is_string(v))
            esc(out, json_string_value(v));
        else
            fprintf(out, "%lld", (long long)json_integer_value(v));
    }
    if (n > RP_LIST_ITEMS)
        fprintf(out, " and %zu more", n - RP_LIST_ITEMS);
}

static const char *sev_label(enum rp_severity s)
{
    return s == RP_CRITICAL  ? "&#x2716; critical"
           : s == RP_WARNING ? "&#x25B2; warning"
                             : "&#x2139; info";
}

static const char *sev_class(enum rp_severity s)
{
    return s == RP_CRITICAL ? "critical" : s == RP_WARNING ? "warning" : "info";
}

/* ---- head ---------------------------------------------------------------- */

/* the page's stylesheet, shared with the bench page (cp_html_bench.c) */
const char cp_html_css[] =
    ":root{--fg:#1a1a1a;--mut:#555;--line:#d0d0d0;--bg:#fff;--soft:#f5f6f7;"
    "--crit:#D55E00;--warn:#E69F00;--info:#0072B2;--ok:#009E73}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0 auto;max-width:1280px;padding:16px 24px 48px;color:var(--fg);"
    "background:var(--bg);font:14px/1.45 system-ui,-apple-system,'Segoe UI',"
    "Roboto,'DejaVu Sans',Arial,sans-serif}\n"
    "h1{font-size:22px;margin:8px 0 2px}h2{font-size:18px;margin:28px 0 8px;"
    "border-bottom:1px solid var(--line);padding-bottom:4px}"
    "h3{font-size:15px;margin:0 0 6px}\n"
    ".sub{color:var(--mut);margin:0 0 8px}nav a{margin-right:14px;color:#0072B2}\n"
    ".verdict{border-left:8px solid var(--ok);background:var(--soft);"
    "padding:12px 16px;margin:12px 0}\n"
    ".verdict.critical{border-color:var(--crit)}.verdict.warning{border-color:"
    "var(--warn)}.verdict.info{border-color:var(--mut)}\n.verdict .head{font-size:18px;font-weight:600;margin:0 0 6px}"
    ".verdict p{margin:4px 0}\n"
    ".finding{border:1px solid var(--line);border-left:6px solid var(--info);"
    "padding:10px 14px;margin:10px 0;break-inside:avoid}\n"
    ".finding.critical{border-left-color:var(--crit)}.finding.warning{"
    "border-left-color:var(--warn)}\n"
    ".badge{display:inline-block;font-size:12px;font-weight:700;"
    "text-transform:uppercase;padding:1px 7px;border-radius:3px;color:#fff;"
    "background:var(--info);margin-right:8px}\n"
    ".critical .badge{background:var(--crit)}.warning .badge{background:#9a6700}\n"
    ".kind{font-family:ui-monospace,'DejaVu Sans Mono',monospace;color:var(--mut)}\n"
    ".sugg{background:#eef6fb;padding:6px 10px;margin:6px 0}\n"
    ".who{color:var(--mut);font-size:13px}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));"
    "gap:8px}\n.card{background:var(--soft);padding:8px 10px}"
    ".card .v{font-size:20px;font-weight:600}.card .l{color:var(--mut);"
    "font-size:12px}.card .d{font-size:12px;color:var(--mut)}\n"
    "table{border-collapse:collapse;margin:6px 0;font-size:13px}\n"
    "th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;"
    "vertical-align:top}\nth{background:var(--soft)}td.n,th.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\ntr.more td{color:var(--mut);"
    "font-style:italic}\n"
    ".ev{font-size:12.5px}.ev caption{text-align:left;color:var(--mut)}\n"
    ".evg{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));"
    "gap:1px 18px;font-size:12.5px;margin:6px 0}.evg .k{color:var(--mut)}\n"
    ".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));"
    "gap:16px}\n"
    "figure{margin:0;padding:8px;border:1px solid var(--line);break-inside:avoid}\n"
    "figcaption{font-size:13px;color:var(--mut);margin-top:4px}\n"
    "figure h3{margin:0 0 4px}\n"
    "svg.plot{width:100%;height:auto;display:block}\n"
    "svg.plot text{font:11px system-ui,'DejaVu Sans',Arial,sans-serif;"
    "fill:#333}\nsvg.plot .axt{font-size:12px;fill:#111}\n"
    "svg.plot .area{fill:#fff}svg.plot .grid{stroke:#e6e6e6}"
    "svg.plot .axis,svg.plot .tk{stroke:#333;fill:none}\n"
    ".legend{font-size:12px;display:flex;flex-wrap:wrap;gap:4px 14px;"
    "margin:4px 0}\n.legend svg{vertical-align:middle;margin-right:4px}\n"
    ".empty{color:var(--mut);font-style:italic;padding:18px 8px}\n"
    ".mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;"
    "font-size:12.5px}\n"
    "footer{margin-top:32px;color:var(--mut);font-size:12px}\n"
    "@media print{body{max-width:none;padding:0}nav{display:none}"
    ".plots{grid-template-columns:1fr}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

void cp_html_head(FILE *out, const char *generator)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\">\n"
          /* no script runs and nothing is fetched, whatever the data */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
          "'none'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n",
          out);
    if (generator) {
        fputs("<meta name=\"generator\" content=\"", out);
        esc(out, generator);
        fputs("\">\n", out);
    }
}

static void write_head(FILE *out, const struct rp_report *r)
{
    cp_html_head(out, r->generator);
    fputs("<title>", out);
    esc(out, r->title ? r->title : "collprof report");
    if (r->job_id[0]) {
        fputs(": job ", out);
        esc(out, r->job_id);
        if (r->step_id[0]) {
            fputs(".", out);
            esc(out, r->step_id);
        }
    }
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n",
            cp_html_css);
}

static void write_header(FILE *out, const struct rp_report *r)
{
    fputs("<header>\n<h1>collprof report", out);
    if (r->job_id[0]) {
        fputs(": job ", out);
        esc(out, r->job_id);
        if (r->step_id[0]) {
            fputs(", step ", out);
            esc(out, r->step_id);
        }
    }
    fputs("</h1>\n<p class=\"sub\">", out);
    cp_svg_value(out, r->processes, CP_SVG_COUNT);
    fprintf(out, " rank%s on %zu node%s", r->processes == 1 ? "" : "s",
            r->nnodes, r->nnodes == 1 ? "" : "s");
    fputs(" &middot; ", out);
    esc(out, r->generator ? r->generator : "collprof");
    fputs(" &middot; schema ", out);
    esc(out, r->schema);
    fputs("</p>\n<nav><a href=\"#findings\">Findings</a><a href=\"#summary\">"
          "Summary</a><a href=\"#plots\">Plots</a><a href=\"#tables\">Tables"
          "</a><a href=\"#inputs\">Inputs</a></nav>\n</header>\n",
          out);
}

/* ---- verdict and findings ------------------------------------------------- */

/* The title of a kind (core/cp_kinds.c); NULL for a kind this version
 * does not know (the heading shows the kind itself). */
static const char *kind_title(const char *kind)
{
    enum cp_kind k;

    return cp_kind_from_name(kind, &k) == 0 ? cp_kind_info(k)->title : NULL;
}

/* A what-to-do text of the kinds' table: trusted text, `code` in
 * backquotes becomes a monospace span. */
static void write_todo(FILE *out, const char *todo)
{
    int in_code = 0;

    fputs("<p class=\"sugg\"><b>What to do:</b> ", out);
    for (; *todo; todo++) {
        if (*todo == '`') {
            fputs(in_code ? "</span>" : "<span class=\"mono\">", out);
            in_code = !in_code;
        } else {
            fputc(*todo, out);
        }
    }
    fputs("</p>\n", out);
}

static double ev_num(const struct rp_finding *f, const char *key)
{
    json_t *v = json_object_get(f->evidence, key);

    return rp_number(v);
}

static const char *list_str(json_t *list, size_t i)
{
    return json_string_value(json_array_get(list, i));
}

/* A concrete next step for a finding: the report's own; else written from
 * the evidence for the kinds below; else the kinds' table's text. */
static void write_suggestion(FILE *out, const struct rp_finding *f)
{
    const char *k = f->kind;
    enum cp_kind kind;

    if (f->suggestion) {
        fputs("<p class=\"sugg\"><b>What to do:</b> ", out);
        esc(out, f->suggestion);
        fputs("</p>\n", out);
        return;
    }
    if (strcmp(k, "latency_bound") == 0) {
        double bucket = ev_num(f, "bucket_bytes");
        fputs("<p class=\"sugg\"><b>What to do:</b> fuse the small calls into "
              "buckets of ",
              out);
        cp_svg_value(out, bucket, CP_SVG_SIZE);
        if (bucket > 25.0 * 1048576) /* never DDP's default or below */
            fprintf(out,
                    ": with PyTorch DDP, <span class=\"mono\">"
                    "DistributedDataParallel(model, bucket_cap_mb=%.0f)</span>"
                    " (the default is 25)",
                    ceil(bucket / 1048576.0));
        else if (bucket > 0)
            fputs(": PyTorch DDP's default buckets (<span class=\"mono\">"
                  "bucket_cap_mb=25</span>) do this, so check that these "
                  "gradients go through DDP rather than one all-reduce per "
                  "tensor",
                  out);
        fputs("; elsewhere, pack the small tensors into one flat buffer or "
              "issue them inside one <span class=\"mono\">ncclGroupStart()/"
              "ncclGroupEnd()</span>. Expected saving: ",
              out);
        cp_svg_value(out, ev_num(f, "saving_per_step_s"), CP_SVG_TIME);
        fputs(" per step (", out);
        cp_svg_value(out, ev_num(f, "saving_share"), CP_SVG_PERCENT);
        fputs(" of the communication time).</p>\n", out);
    } else if (strcmp(k, "low_busbw") == 0) {
        json_t *tcp = json_object_get(f->evidence, "tcp_fallback");
        fputs("<p class=\"sugg\"><b>What to do:</b> measure the link with "
              "nccl-tests on the same nodes (<span class=\"mono\">"
              "all_reduce_perf -b 1M -e 1G -f 2</span>) and compare its busbw "
              "with ",
              out);
        cp_svg_value(out, ev_num(f, "link_bandwidth_Bps"), CP_SVG_BANDWIDTH);
        fputs("; run the job with <span class=\"mono\">NCCL_DEBUG=INFO</span> "
              "and check which transport NCCL chose (NET/IB or NET/Socket).",
              out);
        if (json_is_true(tcp))
            fputs(" The rate looks like TCP sockets: check that the "
                  "InfiniBand/RoCE plugin loads and that <span class=\"mono\">"
                  "NCCL_IB_DISABLE</span>, <span class=\"mono\">NCCL_NET</span>"
                  " and <span class=\"mono\">NCCL_SOCKET_IFNAME</span> do not "
                  "force sockets.",
                  out);
        fputs("</p>\n", out);
    } else if (strcmp(k, "straggler") == 0 &&
               json_is_string(json_object_get(f->evidence, "kind")) &&
               strcmp(json_string_value(json_object_get(f->evidence, "kind")),
                      "in_call") == 0) {
        fputs("<p class=\"sugg\"><b>What to do:</b> look at ", out);
        if (json_array_size(f->ranks))
            fprintf(out, "rank %lld",
                    (long long)json_integer_value(json_array_get(f->ranks, 0)));
        else
            fputs("the slow rank", out);
        if (list_str(f->nodes, 0)) {
            fputs(" on node ", out);
            esc(out, list_str(f->nodes, 0));
        }
        fputs(": its collectives take longer by the same amount on every "
              "communicator, intra-node ones included, so the cause is that "
              "rank's GPU or process (clocks and throttling, PCIe or NVLink "
              "errors, CPU binding, another job on the node), not a network "
              "link.</p>\n",
              out);
    } else if (strcmp(k, "slow_link_candidates") == 0) {
        json_t *probe = json_object_get(f->evidence, "probe");
        fputs("<p class=\"sugg\"><b>What to do:</b> the job's own calls "
              "cannot tell which of the candidate links is slow (one ring "
              "over them runs at its slowest link); measure every pair with "
              "<span class=\"mono\">",
              out);
        esc(out, json_is_string(probe) ? json_string_value(probe)
                                       : "collprof probe");
        fputs("</span> on those nodes.</p>\n", out);
    } else if (strcmp(k, "straggler") == 0) {
        fputs("<p class=\"sugg\"><b>What to do:</b> look at ", out);
        if (json_array_size(f->ranks)) {
            fprintf(out, "rank %lld",
                    (long long)json_integer_value(json_array_get(f->ranks, 0)));
            if (list_str(f->nodes, 0)) {
                fputs(" on node ", out);
                esc(out, list_str(f->nodes, 0));
            }
        } else {
            fputs("the late rank", out);
        }
        fputs(", not at the network: its input pipeline (data-loader workers, "
              "storage), CPU binding, GPU clocks and throttling (<span "
              "class=\"mono\">nvidia-smi -q -d PERFORMANCE</span>), or more "
              "work on that rank than on the others.</p>\n",
              out);
    } else if (strcmp(k, "slow_link") == 0) {
        fputs("<p class=\"sugg\"><b>What to do:</b> check the link between ",
              out);
        if (json_array_size(f->nodes) >= 2) {
            esc(out, list_str(f->nodes, 0));
            fputs(" and ", out);
            esc(out, list_str(f->nodes, 1));
        } else {
            fputs("the nodes named", out);
        }
        fputs(": port state and error counters (<span class=\"mono\">ibstat"
              "</span>, <span class=\"mono\">perfquery</span>), cables and "
              "switch ports",
              out);
        /* a link the probe measured needs no probe to confirm it */
        if (!json_is_string(json_object_get(f->evidence, "method")) ||
            strcmp(json_string_value(json_object_get(f->evidence, "method")),
                   "probe") != 0)
            fputs("; confirm with <span class=\"mono\">collprof probe</span> "
                  "on those nodes",
                  out);
        fputs(".</p>\n", out);
    } else if (cp_kind_from_name(k, &kind) == 0 && cp_kind_info(kind)->todo) {
        write_todo(out, cp_kind_info(kind)->todo);
    }
}

/* Evidence values by their key's suffix: _s times, _bytes sizes, _Bps
 * bandwidths, share/ratio percentages. */
static enum cp_svg_unit unit_of_key(const char *key)
{
    size_t n = strlen(key);

#define ENDS(s) (n >= sizeof(s) - 1 && strcmp(key + n - (sizeof(s) - 1), s) == 0)
    if (strcmp(key, "bucket_bytes") == 0) /* the analyzer's, in MB */
        return CP_SVG_SIZE_SI;
    if (ENDS("_s"))
        return CP_SVG_TIME;
    if (ENDS("_bytes") || strcmp(key, "bytes") == 0)
        return CP_SVG_SIZE;
    if (ENDS("_Bps"))
        return CP_SVG_BANDWIDTH;
    if (ENDS("share") || ENDS("ratio") || ENDS("efficiency"))
        return CP_SVG_PERCENT;
#undef ENDS
    return CP_SVG_COUNT;
}

/* A key as a label: '_' as blanks, without the unit suffix that the value
 * shows ("busbw_Bps" -> "busbw"). */
static void write_label(FILE *out, const char *key)
{
    static const char *const suffixes[] = {"_Bps", "_bytes", "_s"};
    char buf[96];
    size_t i, n;

    snprintf(buf, sizeof buf, "%s", key);
    n = strlen(buf);
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(buf + n - k, suffixes[i]) == 0) {
            buf[n - k] = '\0';
            break;
        }
    }
    for (i = 0; buf[i]; i++)
        if (buf[i] == '_')
            buf[i] = ' ';
    esc(out, buf);
}

static void write_scalar(FILE *out, const char *key, json_t *v)
{
    if (json_is_string(v))
        esc(out, json_string_value(v));
    else if (json_is_true(v))
        fputs("yes", out);
    else if (json_is_false(v))
        fputs("no", out);
    else if (json_is_number(v))
        cp_svg_value(out, rp_number(v), unit_of_key(key));
    else if (json_is_null(v))
        fputs("n/a", out);
    else
        fputs("&hellip;", out);
}

/* An array of objects as a small table (at most 10 rows). */
static void write_object_rows(FILE *out, const char *key, json_t *a)
{
    json_t *first = json_array_get(a, 0), *o, *v;
    const char *k;
    size_t i, n = json_array_size(a);

    fputs("<table class=\"ev\"><caption>", out);
    write_label(out, key);
    fputs("</caption><tr>", out);
    json_object_foreach(first, k, v)
    {
        fputs("<th>", out);
        write_label(out, k);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    json_array_foreach(a, i, o)
    {
        if (i == 10)
            break;
        fputs("<tr>", out);
        json_object_foreach(first, k, v)
        {
            fputs("<td>", out);
            write_scalar(out, k, json_object_get(o, k));
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    if (n > 10)
        fprintf(out, "<tr class=\"more\"><td colspan=\"%zu\">and %zu more"
                     "</td></tr>\n",
                json_object_size(first) ? json_object_size(first) : 1,
                n - 10);
    fputs("</table>\n", out);
}

static int is_rows(json_t *v)
{
    return json_is_array(v) && json_is_object(json_array_get(v, 0));
}

/* The evidence: scalars as a compact grid of "key value", then arrays of
 * objects as small tables. */
static void write_evidence(FILE *out, json_t *ev)
{
    const char *key;
    json_t *v;

    if (!ev || json_object_size(ev) == 0)
        return;
    fputs("<div class=\"evg\">\n", out);
    json_object_foreach(ev, key, v)
    {
        size_t i;
        json_t *x;
        if (is_rows(v))
            continue;
        fputs("<div><span class=\"k\">", out);
        write_label(out, key);
        fputs("</span> ", out);
        if (json_is_array(v)) {
            if (json_array_size(v) == 0)
                fputs("none", out);
            json_array_foreach(v, i, x)
            {
                size_t j;
                json_t *y;
                if (i == RP_LIST_ITEMS) {
                    fprintf(out, " and %zu more",
                            json_array_size(v) - RP_LIST_ITEMS);
                    break;
                }
                if (i)
                    fputs(", ", out);
                if (!json_is_array(x)) {
                    write_scalar(out, key, x);
                    continue;
                }
                json_array_foreach(x, j, y) /* a pair: a&ndash;b */
                {
                    if (j)
                        fputs("&ndash;", out);
                    write_scalar(out, key, y);
                }
            }
        } else if (json_is_object(v)) {
            const char *k2;
            json_t *y;
            i = 0;
            json_object_foreach(v, k2, y)
            {
                if (i++)
                    fputs("; ", out);
                write_label(out, k2);
                fputs(": ", out);
                write_scalar(out, k2, y);
            }
        } else {
            write_scalar(out, key, v);
        }
        fputs("</div>\n", out);
    }
    fputs("</div>\n", out);
    json_object_foreach(ev, key, v) if (is_rows(v)) write_object_rows(out, key,
                                                                       v);
}

/* A link class with bandwidth-bound calls and no absolute reference to
 * hold them against (model.CLASS.expected_Bps null). */
static int unjudged_bandwidth(const struct rp_report *r)
{
    size_t i;

    for (i = 0; i < r->nlinks; i++)
        if (r->links[i].bw_calls > 0 && !isfinite(r->links[i].expected_Bps))
            return 1;
    return 0;
}

static void write_verdict(FILE *out, const struct rp_report *r)
{
    const struct rp_finding *worst = r->nfindings ? &r->findings[0] : NULL;
    const struct rp_summary *s = &r->sum;
    size_t i, serious = 0;

    for (i = 0; i < r->nfindings; i++)
        serious += r->findings[i].sev >= RP_WARNING;
    if (worst && worst->sev >= RP_WARNING) {
        const char *t = kind_title(worst->kind);
        fprintf(out, "<section id=\"verdict\" class=\"verdict %s\">\n"
                     "<p class=\"head\">%s: ",
                sev_class(worst->sev),
                worst->sev == RP_CRITICAL ? "Critical" : "Needs attention");
        esc(out, t ? t : worst->kind);
        if (serious > 1)
            fprintf(out, " (and %zu more finding%s to look at)", serious - 1,
                    serious > 2 ? "s" : "");
        fputs("</p>\n<p>", out);
        esc(out, worst->message);
        fputs("</p>\n", out);
    } else if (unjudged_bandwidth(r)) {
        /* not green: what could not be judged is not fine */
        fputs("<section id=\"verdict\" class=\"verdict info\">\n<p "
              "class=\"head\">No problem found in what could be judged; "
              "bandwidth was not: no reference (give --profile, or run "
              "collprof bench / probe)</p>\n",
              out);
    } else {
        fputs("<section id=\"verdict\" class=\"verdict ok\">\n<p class=\"head\">"
              "No problem found",
              out);
        fputs(isfinite(s->latency_bound_share)
                  ? ": bucket sizes and bandwidth look right</p>\n"
                  : " (without a model, regimes and bandwidth were not "
                    "judged)</p>\n",
              out);
    }
    fputs("<p>", out);
    cp_svg_value(out, s->comm_time_s, CP_SVG_TIME);
    fputs(" in NCCL", out);
    if (s->span_s > 0) {
        fputs(" over a ", out);
        cp_svg_value(out, s->span_s, CP_SVG_TIME);
        fputs(" run", out);
    }
    fputs(", plus ", out);
    cp_svg_value(out, s->skew_time_s, CP_SVG_TIME);
    fputs(" waiting for late ranks (arrival skew)", out);
    if (isfinite(s->latency_bound_share)) {
        fputs("; ", out);
        cp_svg_value(out, s->latency_bound_share, CP_SVG_PERCENT);
        fputs(" of the NCCL time is latency-bound", out);
    }
    for (i = 0; i < r->nlinks; i++) {
        const struct rp_link *l = &r->links[i];
        if (!(l->busbw_Bps > 0) || !(l->model_busbw_Bps > 0))
            continue;
        fputs("; ", out);
        esc(out, l->name);
        fputs("-node busbw ", out);
        cp_svg_value(out, l->busbw_Bps, CP_SVG_BANDWIDTH);
        fputs(" (", out);
        cp_svg_value(out, l->busbw_Bps / l->model_busbw_Bps, CP_SVG_PERCENT);
        fputs(" of the model)", out);
    }
    fputs(".</p>\n</section>\n", out);
}

static void write_findings(FILE *out, const struct rp_report *r)
{
    size_t i;

    fprintf(out, "<section id=\"findings\">\n<h2>Findings (%zu)</h2>\n",
            r->nfindings);
    if (r->nfindings == 0)
        fputs("<p class=\"empty\">No findings: nothing in this run stood out."
              "</p>\n",
              out);
    for (i = 0; i < r->nfindings; i++) {
        const struct rp_finding *f = &r->findings[i];
        const char *t = kind_title(f->kind);
        fprintf(out,
                "<article class=\"finding %s\" id=\"finding-%zu\">\n<h3>"
                "<span class=\"badge\">%s</span>",
                sev_class(f->sev), i + 1, sev_label(f->sev));
        esc(out, t ? t : f->kind);
        fputs(" <span class=\"kind\">", out);
        esc(out, f->kind);
        fputs("</span></h3>\n<p class=\"msg\">", out);
        esc(out, f->message);
        fputs("</p>\n", out);
        write_suggestion(out, f);
        if (json_array_size(f->nodes) || json_array_size(f->ranks)) {
            fputs("<p class=\"who\">", out);
            if (json_array_size(f->nodes)) {
                fprintf(out, "Node%s: ",
                        json_array_size(f->nodes) == 1 ? "" : "s");
                write_list(out, f->nodes);
                fputs(". ", out);
            }
            if (json_array_size(f->ranks)) {
                fprintf(out, "Rank%s: ",
                        json_array_size(f->ranks) == 1 ? "" : "s");
                write_list(out, f->ranks);
                fputs(".", out);
            }
            fputs("</p>\n", out);
        }
        write_evidence(out, f->evidence);
        fputs("</article>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---- summary --------------------------------------------------------------- */

static void card_begin(FILE *out)
{
    fputs("<div class=\"card\"><div class=\"v\">", out);
}

static void card_end(FILE *out, const char *label)
{
    fprintf(out, "</div><div class=\"l\">%s</div></div>\n", label);
}

static void write_model_table(FILE *out, const struct rp_report *r)
{
    size_t i;

    if (r->nlinks == 0)
        return;
    fputs("<h3>The model per link class</h3>\n<table>\n<tr><th>link</th>"
          "<th>source</th><th class=\"n\">&alpha; (latency)</th>"
          "<th class=\"n\">bandwidth</th><th class=\"n\">measured busbw</th>"
          "<th class=\"n\">model busbw</th><th class=\"n\">expected</th>"
          "<th>fit</th></tr>\n",
          out);
    for (i = 0; i < r->nlinks; i++) {
        const struct rp_link *l = &r->links[i];
        fputs("<tr><td>", out);
        esc(out, l->name);
        fputs("</td><td>", out);
        esc(out, l->source);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->alpha_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->bandwidth_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->busbw_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->model_busbw_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->expected_Bps, CP_SVG_BANDWIDTH);
        if (l->expected_source && isfinite(l->expected_Bps)) {
            fputs(" (", out);
            esc(out, l->expected_source);
            fputs(")", out);
        }
        fputs("</td><td>", out);
        if (l->fit_ok) {
            fputs("r&sup2; ", out);
            fprintf(out, isfinite(l->r2) ? "%.2f" : "n/a", l->r2);
            fputs(", median residual ", out);
            cp_svg_value(out, l->median_rel_residual, CP_SVG_PERCENT);
            fputs(", ", out);
            cp_svg_value(out, l->calls_used, CP_SVG_COUNT);
            fputs(" calls, ", out);
            cp_svg_value(out, l->fit_points_used, CP_SVG_COUNT);
            fputs(" size groups", out);
            if (l->fit_weak) {
                fputs("; <b>weak fit</b>", out);
                if (l->fit_weak_why) {
                    fputs(": ", out);
                    esc(out, l->fit_weak_why);
                }
                fputs(" (shown, never the ground of a warning)", out);
            }
        } else {
            esc(out, l->fit_why ? l->fit_why : "no fit");
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* The part of the run the report covers, when it is not the whole. */
static void write_window(FILE *out, const struct rp_report *r)
{
    const char *by = json_string_value(json_object_get(r->window, "by"));
    double from = rp_number(json_object_get(r->window, "from_s"));
    double to = rp_number(json_object_get(r->window, "to_s"));
    double left = rp_number(json_object_get(r->window, "calls_left_out"));

    if (!by || strcmp(by, "the whole run") == 0)
        return;
    fputs("<p class=\"window\">This report covers part of the run (", out);
    esc(out, by);
    fputs("): the calls that started ", out);
    if (isfinite(from)) {
        fputs("from ", out);
        cp_svg_value(out, from, CP_SVG_TIME);
        fputs(isfinite(to) ? " " : "", out);
    }
    if (isfinite(to)) {
        fputs("before ", out);
        cp_svg_value(out, to, CP_SVG_TIME);
    }
    fputs(" after the run's first call; ", out);
    cp_svg_value(out, left, CP_SVG_COUNT);
    fputs(" calls outside it were left out.</p>\n", out);
}

static void write_summary(FILE *out, const struct rp_report *r)
{
    const struct rp_summary *s = &r->sum;

    fputs("<section id=\"summary\">\n<h2>Job summary</h2>\n<div class=\"cards\">"
          "\n",
          out);
    card_begin(out);
    cp_svg_value(out, r->processes, CP_SVG_COUNT);
    if (isfinite(r->world_size) && r->world_size != r->processes) {
        fputs(" <span class=\"d\">of ", out);
        cp_svg_value(out, r->world_size, CP_SVG_COUNT);
        fputs("</span>", out);
    }
    card_end(out, "ranks analyzed");
    card_begin(out);
    cp_svg_value(out, (double)r->nnodes, CP_SVG_COUNT);
    card_end(out, "nodes");
    card_begin(out);
    cp_svg_value(out, (double)r->ncomms, CP_SVG_COUNT);
    card_end(out, "communicators");
    card_begin(out);
    cp_svg_value(out, s->calls, CP_SVG_COUNT);
    if (s->failed_calls > 0) {
        fputs(" <span class=\"d\">(", out);
        cp_svg_value(out, s->failed_calls, CP_SVG_COUNT);
        fputs(" failed)</span>", out);
    }
    card_end(out, "NCCL calls");
    card_begin(out);
    cp_svg_value(out, s->instances, CP_SVG_COUNT);
    card_end(out, "collective instances");
    card_begin(out);
    cp_svg_value(out, s->comm_time_s, CP_SVG_TIME);
    if (s->span_s > 0) {
        fputs(" <span class=\"d\">of ", out);
        cp_svg_value(out, s->span_s, CP_SVG_TIME);
        fputs("</span>", out);
    }
    card_end(out, "communication time (own time of the collectives), of the "
                  "run's span");
    card_begin(out);
    cp_svg_value(out, s->skew_time_s, CP_SVG_TIME);
    card_end(out, "arrival skew (waiting for the last rank)");
    card_begin(out);
    cp_svg_value(out, s->latency_bound_share, CP_SVG_PERCENT);
    card_end(out, "latency-bound share of the communication time");
    card_begin(out);
    esc(out, s->timer);
    card_end(out, "timer");
    card_begin(out);
    cp_svg_value(out, s->steps, CP_SVG_COUNT);
    fputs("</div><div class=\"l\">training steps (", out);
    esc(out, s->steps_method);
    fputs(")</div></div>\n", out);
    fputs("</div>\n", out);
    if (json_array_size(s->missing_ranks)) {
        fputs("<p>Missing ranks (no log): ", out);
        write_list(out, s->missing_ranks);
        fputs(".</p>\n", out);
    }
    write_window(out, r);
    write_model_table(out, r);
    fputs("</section>\n", out);
}

/* ---- tables ---------------------------------------------------------------- */

/* Indices 0..n-1 ordered by key, largest first (NaN last, ties by
 * index).  The caller frees the result; NULL when memory ran out. */
struct keyed {
    double key;
    size_t index;
};

static int compare_desc(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;

    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static size_t *order_by(const double *key, size_t n)
{
    struct keyed *k = malloc((n ? n : 1) * sizeof *k);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), i;

    if (!k || !idx) {
        free(k);
        free(idx);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        k[i].key = isfinite(key[i]) ? key[i] : -INFINITY;
        k[i].index = i;
    }
    qsort(k, n, sizeof *k, compare_desc);
    for (i = 0; i < n; i++)
        idx[i] = k[i].index;
    free(k);
    return idx;
}

static void write_comm_table(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->ncomms ? r->ncomms : 1) * sizeof *key);
    size_t *idx = NULL, i, shown;
    double rest = 0, total = r->sum.comm_time_s;

    fprintf(out, "<h3>Top communicators by time (%zu in all)</h3>\n",
            r->ncomms);
    if (!key)
        return;
    for (i = 0; i < r->ncomms; i++)
        key[i] = r->comms[i].time_s;
    idx = order_by(key, r->ncomms);
    if (!idx)
        goto out;
    fputs("<table>\n<tr><th>communicator</th><th>id</th><th class=\"n\">ranks"
          "</th><th>nodes</th><th>link</th><th class=\"n\">instances</th>"
          "<th class=\"n\">time</th><th class=\"n\">share</th>"
          "<th class=\"n\">efficiency</th></tr>\n",
          out);
    shown = r->ncomms < RP_TABLE_ROWS ? r->ncomms : RP_TABLE_ROWS;
    for (i = 0; i < r->ncomms; i++) {
        const struct rp_comm *c = &r->comms[idx[i]];
        if (i >= shown) {
            rest += isfinite(c->time_s) ? c->time_s : 0;
            continue;
        }
        fputs("<tr><td>", out);
        esc(out, c->name[0] ? c->name : "(unnamed)");
        fputs("</td><td class=\"mono\">", out);
        esc(out, c->id);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->nranks, CP_SVG_COUNT);
        fprintf(out, "</td><td>%zu", c->nnodes);
        if (c->nnodes) {
            fputs(": ", out);
            if (c->nnodes <= 3) {
                write_list(out, c->nodes);
            } else {
                esc(out, list_str(c->nodes, 0));
                fputs(" &hellip; ", out);
                esc(out, list_str(c->nodes, c->nnodes - 1));
            }
        }
        fputs("</td><td>", out);
        esc(out, c->link);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->instances, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->time_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? c->time_s / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->bw_time_s > 0 ? c->bw_model_s / c->bw_time_s : NAN,
            CP_SVG_PERCENT);
        fputs("</td></tr>\n", out);
    }
    if (r->ncomms > shown) {
        fprintf(out, "<tr class=\"more\"><td colspan=\"6\">and %zu more "
                     "communicators</td><td class=\"n\">",
                r->ncomms - shown);
        cp_svg_value(out, rest, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? rest / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td></td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"who\">Efficiency: the model's time over the "
          "measured time of the communicator's bandwidth-bound calls (100% = "
          "as fast as the link model; per link class, not per physical "
          "link).</p>\n",
          out);
out:
    free(idx);
    free(key);
}

static void write_row_table(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->nrows ? r->nrows : 1) * sizeof *key);
    size_t *idx = NULL, i, shown;
    double rest = 0, rest_calls = 0, total = r->sum.comm_time_s;

    fprintf(out, "<h3>Top call buckets by time (%zu buckets of collective, "
                 "communicator and size)</h3>\n",
            r->nrows);
    if (!key)
        return;
    for (i = 0; i < r->nrows; i++)
        key[i] = r->rows[i].time_s;
    idx = order_by(key, r->nrows);
    if (!idx)
        goto out;
    fputs("<table>\n<tr><th>collective</th><th>communicator</th>"
          "<th class=\"n\">ranks</th><th class=\"n\">size</th>"
          "<th class=\"n\">calls</th><th class=\"n\">time</th>"
          "<th class=\"n\">share</th><th class=\"n\">p50</th>"
          "<th class=\"n\">p99</th><th class=\"n\">busbw</th>"
          "<th class=\"n\">model time</th><th class=\"n\">efficiency</th>"
          "<th>regime</th></tr>\n",
          out);
    shown = r->nrows < RP_TABLE_ROWS ? r->nrows : RP_TABLE_ROWS;
    for (i = 0; i < r->nrows; i++) {
        const struct rp_row *w = &r->rows[idx[i]];
        if (i >= shown) {
            rest += isfinite(w->time_s) ? w->time_s : 0;
            rest_calls += isfinite(w->calls) ? w->calls : 0;
            continue;
        }
        fputs("<tr><td>", out);
        esc(out, w->op);
        fputs("</td><td>", out);
        esc(out, w->comm_index >= 0 ? rp_comm_label(&r->comms[w->comm_index])
                                    : w->comm);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->nranks, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        if (w->bucket > 0) {
            cp_svg_value(out, w->bucket, CP_SVG_SIZE);
            fputs("&ndash;", out);
            cp_svg_value(out, 2 * w->bucket, CP_SVG_SIZE);
        } else {
            fputs("0 B", out);
        }
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->calls, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->time_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? w->time_s / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->p50_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->p99_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->busbw_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->model_time_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->efficiency, CP_SVG_PERCENT);
        fputs("</td><td>", out);
        esc(out, w->regime);
        fputs("</td></tr>\n", out);
    }
    if (r->nrows > shown) {
        fprintf(out, "<tr class=\"more\"><td colspan=\"4\">and %zu more "
                     "buckets</td><td class=\"n\">",
                r->nrows - shown);
        cp_svg_value(out, rest_calls, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rest, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? rest / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td colspan=\"6\"></td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"who\">Time is each collective's own time "
          "(from the last rank's arrival to completion); model time is the "
          "alpha-beta model's for the same calls; efficiency = model time / "
          "time.</p>\n",
          out);
out:
    free(idx);
    free(key);
}

static void write_rank_table(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->nranks ? r->nranks : 1) * sizeof *key);
    size_t *idx = NULL, i, shown;

    fputs("<h3>The latest ranks (", out);
    cp_svg_value(out, r->total_ranks, CP_SVG_COUNT);
    fputs(" ranks)</h3>\n", out);
    if (!key)
        return;
    for (i = 0; i < r->nranks; i++)
        key[i] = r->ranks[i].late_s;
    idx = order_by(key, r->nranks);
    if (!idx)
        goto out;
    fputs("<table>\n<tr><th class=\"n\">rank</th><th>node</th>"
          "<th class=\"n\">arrived last</th><th class=\"n\">lateness</th>"
          "<th class=\"n\">mean lateness</th><th class=\"n\">calls</th>"
          "<th class=\"n\">time in NCCL</th></tr>\n",
          out);
    shown = r->nranks < 10 ? r->nranks : 10;
    for (i = 0; i < shown; i++) {
        const struct rp_rank *k = &r->ranks[idx[i]];
        fputs("<tr><td class=\"n\">", out);
        cp_svg_value(out, k->rank, CP_SVG_RANK);
        fputs("</td><td>", out);
        esc(out, k->node);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->last_arrivals, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->late_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->last_arrivals > 0 ? k->late_s / k->last_arrivals : NAN,
            CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->calls, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->time_s, CP_SVG_TIME);
        fputs("</td></tr>\n", out);
    }
    if (r->total_ranks > (double)shown)
        fprintf(out, "<tr class=\"more\"><td colspan=\"7\">and %.0f more ranks"
                     "</td></tr>\n",
                r->total_ranks - (double)shown);
    fputs("</table>\n<p class=\"who\">Lateness: over the collectives a rank "
          "arrived at last, how long after the rank before it; time in NCCL "
          "includes waiting.</p>\n",
          out);
out:
    free(idx);
    free(key);
}

/* The per-rank figures of rank_summary the page names, in its order. */
static const struct {
    const char *key, *label;
    enum cp_svg_unit unit;
} rank_figure_labels[] = {
    {"calls", "calls", CP_SVG_COUNT},
    {"failed", "failed calls", CP_SVG_COUNT},
    {"time_s", "time in NCCL", CP_SVG_TIME},
    {"last_arrivals", "arrived last", CP_SVG_COUNT},
    {"late_s", "lateness", CP_SVG_TIME},
    {"in_call_delay_s", "in-call delay", CP_SVG_TIME},
};

/* The first few entries of a worst list: "rank 203 (n25) 1.2 ms, ..." or
 * "n25 1.2 ms, ...", "-" when empty. */
static void write_worst(FILE *out, json_t *list, int nodes,
                        enum cp_svg_unit unit)
{
    json_t *v;
    size_t i;

    if (!json_array_size(list)) {
        fputs("-", out);
        return;
    }
    json_array_foreach(list, i, v)
    {
        if (i == 3) {
            fprintf(out, " and %zu more", json_array_size(list) - 3);
            break;
        }
        if (i)
            fputs(", ", out);
        if (!nodes) {
            fputs("rank ", out);
            cp_svg_value(out, rp_number(json_object_get(v, "rank")),
                         CP_SVG_RANK);
            fputs(" (", out);
        }
        esc(out, json_string_value(json_object_get(v, "node")));
        fputs(nodes ? " " : ") ", out);
        cp_svg_value(out, rp_number(json_object_get(v, "value")), unit);
    }
}

/* A large job's per-rank figures as distributions, with the ranks and
 * nodes at their worst ends (rank_summary). */
static void write_rank_distribution(FILE *out, const struct rp_report *r)
{
    static const char *const cols[] = {"min", "p10", "p50", "p90", "p99",
                                       "max"};
    json_t *figs = json_object_get(r->rank_summary, "figures"), *f;
    size_t i, k;

    if (!r->rank_summary)
        return;
    fputs("<h3 id=\"rank-distribution\">Per-rank figures over ", out);
    cp_svg_value(out, r->total_ranks, CP_SVG_COUNT);
    fputs(" ranks</h3>\n<table>\n<tr><th>figure</th>", out);
    for (k = 0; k < sizeof cols / sizeof cols[0]; k++)
        fprintf(out, "<th class=\"n\">%s</th>", cols[k]);
    fputs("<th>highest ranks</th><th>lowest ranks</th>"
          "<th>highest nodes (mean of their ranks)</th></tr>\n",
          out);
    for (i = 0; i < sizeof rank_figure_labels / sizeof rank_figure_labels[0];
         i++) {
        enum cp_svg_unit unit = rank_figure_labels[i].unit;
        f = json_object_get(figs, rank_figure_labels[i].key);
        if (!f)
            continue;
        fprintf(out, "<tr><td>%s</td>", rank_figure_labels[i].label);
        for (k = 0; k < sizeof cols / sizeof cols[0]; k++) {
            fputs("<td class=\"n\">", out);
            cp_svg_value(out, rp_number(json_object_get(f, cols[k])), unit);
            fputs("</td>", out);
        }
        fputs("<td>", out);
        write_worst(out, json_object_get(f, "highest"), 0, unit);
        fputs("</td><td>", out);
        write_worst(out, json_object_get(f, "lowest"), 0, unit);
        fputs("</td><td>", out);
        write_worst(out, json_object_get(f, "nodes_highest"), 1, unit);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"who\">A job of this size has no table of "
          "every rank: each figure is given by its quantiles over the ranks, "
          "with the ranks and nodes at its ends (report.json's rank_summary "
          "lists up to 16 at each end; collprof analyze --all-ranks lists "
          "every rank).</p>\n",
          out);
}

#define RP_COMM_DETAILS 8 /* communicators shown in detail */

/* A communicator's global ranks as ranges ("0-7, 16-23"): an array of
 * numbers (-1: not seen) or of {"rank", "global_rank"} objects. */
static void write_rank_ranges(FILE *out, json_t *ranks)
{
    size_t i, n = json_array_size(ranks), shown = 0;
    long lo = -2, prev = -2;

    for (i = 0; i <= n; i++) {
        long g = -1;
        if (i < n) {
            json_t *v = json_array_get(ranks, i);
            if (json_is_object(v))
                v = json_object_get(v, "global_rank");
            g = json_is_integer(v) ? (long)json_integer_value(v) : -1;
            if (g >= 0 && g == prev + 1) {
                prev = g;
                continue;
            }
        }
        if (lo >= 0) {
            if (shown++ == RP_LIST_ITEMS) {
                fputs(", ...", out);
                return;
            }
            fprintf(out, "%s%ld", shown > 1 ? ", " : "", lo);
            if (prev > lo)
                fprintf(out, "-%ld", prev);
        }
        lo = prev = g;
    }
}

/* The largest communicators by time, one by one: who is in it, its skew
 * and its calls by size (time against size, busbw against the model). */
static void write_comm_details(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->ncomms ? r->ncomms : 1) * sizeof *key);
    size_t *idx = NULL, i, j, shown;

    if (!key || r->ncomms == 0)
        goto out;
    for (i = 0; i < r->ncomms; i++)
        key[i] = r->comms[i].time_s;
    idx = order_by(key, r->ncomms);
    if (!idx)
        goto out;
    shown = r->ncomms < RP_COMM_DETAILS ? r->ncomms : RP_COMM_DETAILS;
    fprintf(out, "<section id=\"communicators\">\n<h2>Communicators in "
                 "detail</h2>\n<p class=\"who\">The %zu communicator%s with "
                 "the most time; hover over a name for its id.</p>\n",
            shown, shown == 1 ? "" : "s");
    for (i = 0; i < shown; i++) {
        const struct rp_comm *c = &r->comms[idx[i]];
        fputs("<h3 class=\"comm\" title=\"", out);
        esc(out, c->id);
        fputs("\">", out);
        esc(out, rp_comm_label(c));
        fputs("</h3>\n<p>", out);
        cp_svg_value(out, c->nranks, CP_SVG_COUNT);
        fputs(" ranks on ", out);
        cp_svg_value(out, (double)c->nnodes, CP_SVG_COUNT);
        fputs(" node(s) (", out);
        esc(out, c->link);
        fputs("); ", out);
        cp_svg_value(out, c->instances, CP_SVG_COUNT);
        fputs(" collectives, ", out);
        cp_svg_value(out, c->time_s, CP_SVG_TIME);
        fputs(" of own time.", out);
        if (json_array_size(c->ranks)) {
            fputs(" Global ranks: ", out);
            write_rank_ranges(out, c->ranks);
            fputs(".", out);
        }
        if (c->skew) {
            fputs(" Arrival skew: median ", out);
            cp_svg_value(out, rp_number(json_object_get(c->skew, "p50_s")),
                         CP_SVG_TIME);
            fputs(", 90th percentile ", out);
            cp_svg_value(out, rp_number(json_object_get(c->skew, "p90_s")),
                         CP_SVG_TIME);
            fputs(", 99th ", out);
            cp_svg_value(out, rp_number(json_object_get(c->skew, "p99_s")),
                         CP_SVG_TIME);
            fputs(", largest ", out);
            cp_svg_value(out, rp_number(json_object_get(c->skew, "max_s")),
                         CP_SVG_TIME);
            fputs(".", out);
        }
        fputs("</p>\n<table class=\"comm-rows\">\n<tr><th>collective</th>"
              "<th class=\"n\">size</th><th class=\"n\">calls</th>"
              "<th class=\"n\">p50 time</th><th class=\"n\">model time "
              "per call</th><th class=\"n\">busbw</th>"
              "<th class=\"n\">efficiency</th><th class=\"n\">skew per "
              "call</th></tr>\n",
              out);
        for (j = 0; j < r->nrows; j++) {
            const struct rp_row *w = &r->rows[j];
            if (w->comm_index != (long)idx[i])
                continue;
            fputs("<tr><td>", out);
            esc(out, w->op);
            fputs("</td><td class=\"n\">", out);
            if (w->bucket > 0) {
                cp_svg_value(out, w->bucket, CP_SVG_SIZE);
                fputs("&ndash;", out);
                cp_svg_value(out, 2 * w->bucket, CP_SVG_SIZE);
            } else {
                fputs("0 B", out);
            }
            fputs("</td><td class=\"n\">", out);
            cp_svg_value(out, w->calls, CP_SVG_COUNT);
            fputs("</td><td class=\"n\">", out);
            cp_svg_value(out, w->p50_s, CP_SVG_TIME);
            fputs("</td><td class=\"n\">", out);
            cp_svg_value(out, w->calls > 0 ? w->model_time_s / w->calls : NAN,
                         CP_SVG_TIME);
            fputs("</td><td class=\"n\">", out);
            cp_svg_value(out, w->busbw_Bps, CP_SVG_BANDWIDTH);
            fputs("</td><td class=\"n\">", out);
            cp_svg_value(out, w->efficiency, CP_SVG_PERCENT);
            fputs("</td><td class=\"n\">", out);
            cp_svg_value(out, w->calls > 0 ? w->skew_s / w->calls : NAN,
                         CP_SVG_TIME);
            fputs("</td></tr>\n", out);
        }
        fputs("</table>\n", out);
        rp_plot_comm(out, r, idx[i], i + 1);
        rp_plot_skew(out, r, idx[i], i + 1);
    }
    fputs("</section>\n", out);
out:
    free(idx);
    free(key);
}

/* One list of report.json `slowest`: each row says where to find the
 * instance in collprof trace (its communicator, sequence and time). */
static void write_slowest_list(FILE *out, const struct rp_report *r,
                               const char *key, const char *title)
{
    json_t *list = json_object_get(r->slowest, key), *o;
    size_t i, shown, n = json_array_size(list);

    if (n == 0)
        return;
    fprintf(out, "<h3>%s</h3>\n", title);
    fputs("<table>\n<tr><th>collective</th><th class=\"n\">size</th>"
          "<th>communicator</th><th class=\"n\">seq</th>"
          "<th class=\"n\">at</th><th class=\"n\">own time</th>"
          "<th class=\"n\">model</th><th class=\"n\">x model</th>"
          "<th class=\"n\">skew</th><th>last to arrive</th>"
          "<th class=\"n\">late by</th><th>in the trace</th></tr>\n",
          out);
    shown = n < RP_TABLE_ROWS ? n : RP_TABLE_ROWS;
    for (i = 0; i < shown; i++) {
        const char *name, *id, *node;
        double start, last;
        o = json_array_get(list, i);
        name = json_string_value(json_object_get(o, "comm_name"));
        id = json_string_value(json_object_get(o, "comm"));
        node = json_string_value(json_object_get(o, "last_node"));
        start = rp_number(json_object_get(o, "start_s"));
        last = rp_number(json_object_get(o, "last_rank"));
        fputs("<tr><td>", out);
        esc(out, json_string_value(json_object_get(o, "op")));
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(o, "bytes")), CP_SVG_SIZE);
        fputs("</td><td title=\"", out);
        esc(out, id ? id : "");
        fputs("\">", out);
        esc(out, name && name[0] ? name : id ? id : "?");
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(o, "seq")), CP_SVG_RANK);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, start, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(o, "own_s")), CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(o, "model_s")), CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        if (isfinite(rp_number(json_object_get(o, "vs_model"))))
            fprintf(out, "%.2f",
                    rp_number(json_object_get(o, "vs_model")));
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(o, "skew_s")), CP_SVG_TIME);
        fputs("</td><td>", out);
        if (isfinite(last)) {
            fputs("rank ", out);
            cp_svg_value(out, last, CP_SVG_RANK);
            fputs(" (", out);
            esc(out, node ? node : "?");
            fputs(")", out);
        }
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(o, "late_by_s")),
                     CP_SVG_TIME);
        /* what Perfetto's search and the slice's arguments show */
        fputs("</td><td>", out);
        esc(out, name && name[0] ? name : id ? id : "?");
        fprintf(out, " seq %.0f, ts %.0f us</td></tr>\n",
                rp_number(json_object_get(o, "seq")), start * 1e6);
    }
    if (n > shown)
        fprintf(out, "<tr class=\"more\"><td colspan=\"12\">and %zu more in "
                     "report.json</td></tr>\n",
                n - shown);
    fputs("</table>\n", out);
}

static void write_slowest(FILE *out, const struct rp_report *r)
{
    if (!r->slowest)
        return;
    write_slowest_list(out, r, "by_own_time",
                       "The slowest collectives (own time: last arrival to "
                       "last end)");
    write_slowest_list(out, r, "by_skew",
                       "The collectives that waited longest for a rank "
                       "(arrival skew)");
    fputs("<p class=\"who\">Each row is one collective instance; "
          "<code>collprof trace</code> draws it as slices with that "
          "communicator and <code>seq</code> in their arguments, from "
          "<code>ts</code> (microseconds since the run's first call) on "
          "every rank's lane, with a flow from the rank that arrived "
          "last.</p>\n",
          out);
}

static void write_inputs(FILE *out, const struct rp_report *r)
{
    json_t *files = json_object_get(r->inputs, "files");
    json_t *problems = json_object_get(r->inputs, "problems"), *o;
    static const char *const statuses[] = {"ok", "damaged", "skipped",
                                           "unreadable"};
    size_t count[5] = {0}, i, k;

    fputs("<section id=\"inputs\">\n<h2>Inputs</h2>\n", out);
    if (!r->inputs) {
        fputs("<p class=\"empty\">The report lists no inputs.</p>\n</section>\n",
              out);
        return;
    }
    json_array_foreach(files, i, o)
    {
        const char *st = json_string_value(json_object_get(o, "status"));
        for (k = 0; k < 4; k++)
            if (st && strcmp(st, statuses[k]) == 0)
                break;
        count[k]++;
    }
    if (r->inputs_summary) {
        /* a large job: the files listed are only those that need a look */
        json_t *sum = r->inputs_summary;
        json_t *st = json_object_get(sum, "status");
        fputs("<p>", out);
        cp_svg_value(out, rp_number(json_object_get(sum, "files")),
                     CP_SVG_COUNT);
        fputs(" log files:", out);
        for (k = 0; k < 4; k++) {
            double n = rp_number(json_object_get(st, statuses[k]));
            if (n > 0) {
                fputc(' ', out);
                cp_svg_value(out, n, CP_SVG_COUNT);
                fprintf(out, " %s;", statuses[k]);
            }
        }
        fputs(" report.json lists the ", out);
        cp_svg_value(out, rp_number(json_object_get(sum, "listed")),
                     CP_SVG_COUNT);
        fputs(" that need a look;", out);
    } else {
        fprintf(out, "<p>%zu log file%s:", json_array_size(files),
                json_array_size(files) == 1 ? "" : "s");
        for (k = 0; k < 5; k++)
            if (count[k])
                fprintf(out, " %zu %s;", count[k],
                        k < 4 ? statuses[k] : "other");
    }
    {
        double np = r->inputs_summary
                        ? rp_number(json_object_get(r->inputs_summary,
                                                    "problems"))
                        : NAN;
        if (!(np >= 0))
            np = (double)json_array_size(problems);
        fprintf(out, " %.0f problem%s.</p>\n", np, np == 1 ? "" : "s");
    }
    if (json_array_size(problems)) {
        fputs("<table>\n<tr><th>file</th><th class=\"n\">offset</th>"
              "<th>problem</th></tr>\n",
              out);
        json_array_foreach(problems, i, o)
        {
            json_t *off = json_object_get(o, "offset");
            if (i == RP_PROBLEMS)
                break;
            fputs("<tr><td class=\"mono\">", out);
            esc(out, json_string_value(json_object_get(o, "file")));
            fputs("</td><td class=\"n\">", out);
            if (json_is_number(off))
                cp_svg_value(out, rp_number(off), CP_SVG_COUNT);
            fputs("</td><td>", out);
            esc(out, json_string_value(json_object_get(o, "message")));
            fputs("</td></tr>\n", out);
        }
        if (json_array_size(problems) > RP_PROBLEMS)
            fprintf(out, "<tr class=\"more\"><td colspan=\"3\">and %zu more "
                         "(%s in report.json)</td></tr>\n",
                    json_array_size(problems) - RP_PROBLEMS,
                    r->inputs_summary ? "the first 256" : "all");
        fputs("</table>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---- the page --------------------------------------------------------------- */

static void write_page(FILE *out, const struct rp_report *r)
{
    write_head(out, r);
    write_header(out, r);
    rp_write_hang(out, r);
    write_verdict(out, r);
    write_findings(out, r);
    write_summary(out, r);
    fputs("<section id=\"plots\">\n<h2>Plots</h2>\n<div class=\"plots\">\n",
          out);
    rp_plot_time_vs_size(out, r);
    rp_plot_busbw(out, r);
    rp_plot_histogram(out, r);
    rp_plot_heatmap(out, r);
    rp_plot_lateness(out, r);
    rp_plot_timeline(out, r);
    fputs("</div>\n</section>\n<section id=\"tables\">\n<h2>Tables</h2>\n",
          out);
    write_comm_table(out, r);
    write_row_table(out, r);
    write_rank_table(out, r);
    write_rank_distribution(out, r);
    write_slowest(out, r);
    fputs("</section>\n", out);
    write_comm_details(out, r);
    write_inputs(out, r);
    fputs("<footer>Written by ", out);
    esc(out, r->generator ? r->generator : "collprof");
    fputs(" from report.json (", out);
    esc(out, r->schema);
    fputs("). Hover over points and bars for details. Sizes use binary "
          "prefixes (KiB = 1024 B), bandwidths decimal ones (GB/s = 10<sup>9"
          "</sup> B/s), busbw follows nccl-tests.</footer>\n</body>\n</html>\n",
          out);
}

/* ---- probe.html: collprof probe's node pairs -------------------------------- */

/* probe.json (schema collprof.probe/1, docs/probe.md) as a view: the node
 * names, the node-pair view under `topology` (the keys report.json's
 * has, so the heatmap is report.html's) and the findings. */
static int build_probe_view(json_t *root, struct rp_report *r,
                            struct cp_error *err)
{
    struct ctx c = {err, 0};
    json_t *run, *topo;
    size_t i;

    memset(r, 0, sizeof *r);
    r->root = root;
    r->title = "collprof probe";
    r->topology_caption =
        "collprof probe: each pair's bandwidth over the reference (the "
        "median of all pairs, or the profile's inter-node bandwidth)";
    r->job_id = r->step_id = "";
    if (!json_is_object(root)) {
        fail(&c, "the document is %s, not a JSON object",
             root ? type_name(root) : "missing");
        return -1;
    }
    r->schema = STR(&c, root, "", "schema");
    if (!c.bad && strcmp(r->schema, "collprof.probe/1") != 0 &&
        strncmp(r->schema, "collprof.probe/1.", 17) != 0)
        fail(&c, "key 'schema' is '%.64s': this collprof renders "
                 "collprof.probe/1",
             r->schema);
    if (c.bad)
        return -1;
    r->generator = OPT_STR(&c, root, "", "generator");
    run = OBJ(&c, root, "", "run", 0);
    if (run) {
        const char *job = OPT_STR(&c, run, "run", "job_id");
        r->job_id = job ? job : "";
        r->processes = OPT_NUM(&c, run, "run", "nodes");
        OPT_NUM(&c, run, "run", "rounds");
        OPT_NUM(&c, run, "run", "wall_s");
        OPT_STR(&c, run, "run", "memory");
    }
    topo = OBJ(&c, root, "", "topology", 1);
    r->nodes = get_list(&c, topo, "topology", "nodes", 1, 0);
    OPT_NUM(&c, topo, "topology", "reference_Bps");
    OPT_STR(&c, topo, "topology", "reference_source");
    OPT_NUM(&c, topo, "topology", "median_latency_s");
    if (c.bad)
        return -1;
    r->nnodes = json_array_size(r->nodes);
    r->node_order = alloc_n(&c, r->nnodes, sizeof *r->node_order);
    if (!r->node_order)
        return -1;
    for (i = 0; i < r->nnodes; i++) {
        r->node_order[i].name = json_string_value(json_array_get(r->nodes, i));
        r->node_order[i].index = i;
    }
    qsort(r->node_order, r->nnodes, sizeof *r->node_order, compare_names);
    view_findings(&c, r);
    view_extras(&c, r); /* topology: nodes, efficiency, pairs */
    if (!c.bad) {
        json_t *pairs = json_object_get(topo, "pairs"), *v;
        char where[WHERE_LEN];
        json_array_foreach(pairs, i, v)
        {
            snprintf(where, sizeof where, "topology.pairs[%zu]", i);
            OPT_NUM(&c, v, where, "bandwidth_Bps");
            OPT_NUM(&c, v, where, "latency_s");
            OPT_NUM(&c, v, where, "bytes");
            OPT_NUM(&c, v, where, "round");
            if (c.bad)
                break;
        }
    }
    return c.bad ? -1 : 0;
}

/* The pairs, slowest first as probe.json lists them. */
static void write_probe_pairs(FILE *out, const struct rp_report *r)
{
    json_t *pairs = json_object_get(r->topology, "pairs"), *v;
    size_t i, n = json_array_size(pairs);

    fputs("<section id=\"pairs\">\n<h2>Node pairs</h2>\n<table "
          "id=\"probe-pairs\">\n<tr><th>nodes</th><th>state</th>"
          "<th class=\"n\">bandwidth</th><th class=\"n\">efficiency</th>"
          "<th class=\"n\">latency</th><th class=\"n\">message</th>"
          "<th class=\"n\">round</th></tr>\n",
          out);
    json_array_foreach(pairs, i, v)
    {
        json_t *two = json_object_get(v, "nodes");
        const char *state = json_string_value(json_object_get(v, "state"));
        if (i == RP_TABLE_ROWS)
            break;
        fprintf(out, "<tr class=\"%s\"><td>",
                state && strcmp(state, "slow") == 0 ? "slow" : "ok");
        esc(out, list_str(two, 0));
        fputs("&ndash;", out);
        esc(out, list_str(two, 1));
        fputs("</td><td>", out);
        esc(out, state ? state : "");
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "bandwidth_Bps")),
            CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "efficiency")), CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "latency_s")), CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "bytes")), CP_SVG_SIZE);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "round")), CP_SVG_COUNT);
        fputs("</td></tr>\n", out);
    }
    if (n > RP_TABLE_ROWS)
        fprintf(out, "<tr class=\"more\"><td colspan=\"7\">and %zu more "
                     "(all in probe.json)</td></tr>\n",
                n - RP_TABLE_ROWS);
    fputs("</table>\n</section>\n", out);
}

static void write_probe_page(FILE *out, const struct rp_report *r)
{
    json_t *topo = json_object_get(r->root, "topology");
    json_t *run = json_object_get(r->root, "run");
    const struct rp_finding *worst = r->nfindings ? &r->findings[0] : NULL;
    size_t npairs = json_array_size(json_object_get(r->topology, "pairs"));
    const char *src =
        json_string_value(json_object_get(topo, "reference_source"));

    write_head(out, r);
    fputs("<header>\n<h1>collprof probe", out);
    if (r->job_id[0]) {
        fputs(": job ", out);
        esc(out, r->job_id);
    }
    fprintf(out, "</h1>\n<p class=\"sub\">%zu node%s, %zu pair%s", r->nnodes,
            r->nnodes == 1 ? "" : "s", npairs, npairs == 1 ? "" : "s");
    if (json_is_number(json_object_get(run, "rounds"))) {
        fputs(" in ", out);
        cp_svg_value(out, rp_number(json_object_get(run, "rounds")), CP_SVG_COUNT);
        fputs(" rounds", out);
    }
    if (json_is_number(json_object_get(run, "wall_s"))) {
        fputs(" (", out);
        cp_svg_value(out, rp_number(json_object_get(run, "wall_s")), CP_SVG_TIME);
        fputs(")", out);
    }
    fputs(" &middot; ", out);
    esc(out, r->generator ? r->generator : "collprof");
    fputs(" &middot; schema ", out);
    esc(out, r->schema);
    fputs("</p>\n<nav><a href=\"#findings\">Findings</a><a href=\"#plots\">"
          "Plots</a><a href=\"#pairs\">Node pairs</a></nav>\n</header>\n",
          out);
    if (worst && worst->sev >= RP_WARNING) {
        fprintf(out, "<section id=\"verdict\" class=\"verdict %s\">\n"
                     "<p class=\"head\">%s: ",
                sev_class(worst->sev),
                worst->sev == RP_CRITICAL ? "Critical" : "Needs attention");
        fprintf(out, "%zu slow link%s</p>\n<p>", r->nfindings,
                r->nfindings == 1 ? "" : "s");
        esc(out, worst->message);
        fputs("</p>\n", out);
    } else {
        fputs("<section id=\"verdict\" class=\"verdict ok\">\n<p class=\"head\">"
              "No slow link</p>\n<p>No pair measured slow.</p>\n",
              out);
    }
    fputs("<p>Reference: ", out);
    cp_svg_value(out, rp_number(json_object_get(topo, "reference_Bps")),
        CP_SVG_BANDWIDTH);
    fputs(src && strcmp(src, "profile") == 0 ? " (the profile's)"
                                             : " (the median of the pairs)",
          out);
    fputs("; median latency ", out);
    cp_svg_value(out, rp_number(json_object_get(topo, "median_latency_s")),
        CP_SVG_TIME);
    fputs(".</p>\n</section>\n", out);
    write_findings(out, r);
    fputs("<section id=\"plots\">\n<h2>Plots</h2>\n<div class=\"plots\">\n",
          out);
    rp_plot_heatmap(out, r);
    fputs("</div>\n</section>\n", out);
    write_probe_pairs(out, r);
    fputs("<footer>Written by ", out);
    esc(out, r->generator ? r->generator : "collprof");
    fputs(" from probe.json (", out);
    esc(out, r->schema);
    fputs("). Bandwidths use decimal prefixes (MB/s = 10<sup>6</sup> B/s), "
          "sizes binary ones (KiB = 1024 B).</footer>\n</body>\n</html>\n",
          out);
}

int cp_html_probe_write(json_t *doc, FILE *out, struct cp_error *err)
{
    struct rp_report r;
    int rc = -1;

    if (build_probe_view(doc, &r, err) < 0)
        goto out;
    write_probe_page(out, &r);
    if (fflush(out) != 0 || ferror(out)) {
        cp_error_set(err, NULL, -1, "writing the page failed");
        goto out;
    }
    rc = 0;
out:
    view_free(&r);
    return rc;
}

int cp_html_write_json(json_t *report, FILE *out, struct cp_error *err)
{
    struct rp_report r;
    int rc = -1;

    if (build_view(report, &r, err) < 0)
        goto out;
    write_page(out, &r);
    if (fflush(out) != 0 || ferror(out)) {
        cp_error_set(err, NULL, -1, "writing the page failed");
        goto out;
    }
    rc = 0;
out:
    view_free(&r);
    return rc;
}
