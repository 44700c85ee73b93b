/* cp_fleet_html_view.c - the checked, typed view of a fleet document (see
 * cp_fleet_html_view.h).
 *
 * Every key of collprof.fleet/1 that fleet.html shows is read here
 * through the checked reader (analyzer/core/cp_jsoncheck.h), in the
 * document's order, so that the first bad key is the one named.  Keys the
 * contract gives as "N" are counts (integers of 0 or more); keys given as
 * "x|null" must be present and may be null; the verdicts must be names
 * the page knows, as a new verdict would be drawn as no verdict at all.
 * A step's names, time and verdict may be null too (collprof fleet export
 * writes a database cell that is NULL as null): "n/a", unclear, and a step
 * without a time is not drawn.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cp_fleet_html_view.h"
#include "cp_jsoncheck.h"
#include "cp_jsonfile.h"
#include "cp_path.h"

#define FLEET_SCHEMA "collprof.fleet/1"
/* "links[N]" at the top, "links[N].history[M]" within (sized so that
 * no path is cut) */
#define TOP_LEN 40
#define WHERE_LEN 96

static const char *const verdict_names[FH_NVERDICTS] = {
    [FH_NO_EVIDENCE] = "no_evidence",
    [FH_OK] = "ok",
    [FH_SUSPECT] = "suspect",
    [FH_BAD] = "bad",
};

static const char *const mark_names[FH_NMARKS] = {
    [FH_UNCLEAR] = "unclear",
    [FH_MARK_OK] = "ok",
    [FH_MARK_SUSPECT] = "suspect",
    [FH_SLOW] = "slow",
};

const char *fh_verdict_name(enum fh_verdict v)
{
    return (unsigned)v < FH_NVERDICTS ? verdict_names[v] : "?";
}

const char *fh_mark_name(enum fh_mark m)
{
    return (unsigned)m < FH_NMARKS ? mark_names[m] : "?";
}

/* ---- times -------------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static long days_from_civil(long y, long m, long d)
{
    long era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* n decimal digits at *p into *v; the pointer moves past them. */
static int digits(const char **p, int n, long *v)
{
    *v = 0;
    while (n-- > 0) {
        if (!isdigit((unsigned char)**p))
            return -1;
        *v = *v * 10 + (**p - '0');
        (*p)++;
    }
    return 0;
}

/* "Z", "+hh:mm", "-hh:mm" or nothing (UTC): the offset in seconds. */
static int zone(const char *p, long *offset)
{
    long h, m;
    int sign;

    *offset = 0;
    if (p[0] == '\0' || (p[0] == 'Z' && p[1] == '\0'))
        return 0;
    if (p[0] != '+' && p[0] != '-')
        return -1;
    sign = p[0] == '-' ? -1 : 1;
    p++;
    if (digits(&p, 2, &h) < 0 || *p++ != ':' || digits(&p, 2, &m) < 0 ||
        *p != '\0' || h > 23 || m > 59)
        return -1;
    *offset = sign * (h * 3600 + m * 60);
    return 0;
}

/* "hh:mm:ss" and a fraction at *p, after the date's 'T' or space. */
static int clock_of(const char **p, long *h, long *mi, long *s, double *frac)
{
    double scale = 0.1;

    if (digits(p, 2, h) < 0 || *(*p)++ != ':' || digits(p, 2, mi) < 0 ||
        *(*p)++ != ':' || digits(p, 2, s) < 0)
        return -1;
    if (**p != '.')
        return 0;
    (*p)++;
    if (!isdigit((unsigned char)**p))
        return -1;
    for (; isdigit((unsigned char)**p); (*p)++, scale /= 10)
        *frac += (**p - '0') * scale;
    return 0;
}

int fh_time_parse(const char *text, double *t)
{
    static const int month_days[12] = {31, 29, 31, 30, 31, 30,
                                       31, 31, 30, 31, 30, 31};
    const char *p = text;
    long y, mo, d, h = 0, mi = 0, s = 0, offset;
    double frac = 0;

    if (!p || digits(&p, 4, &y) < 0 || *p++ != '-' || digits(&p, 2, &mo) < 0 ||
        *p++ != '-' || digits(&p, 2, &d) < 0)
        return -1;
    if ((*p == 'T' || *p == ' ') && (p++, clock_of(&p, &h, &mi, &s, &frac) < 0))
        return -1;
    if (zone(p, &offset) < 0 || mo < 1 || mo > 12 || d < 1 ||
        d > month_days[mo - 1] || h > 23 || mi > 59 || s > 60)
        return -1;
    *t = (double)days_from_civil(y, mo, d) * 86400.0 +
         (double)(h * 3600 + mi * 60 + s - offset) + frac;
    return 0;
}

/* ---- checked getters ---------------------------------------------------- */

/* A count: an integer of 0 or more, required. */
static long long count(struct cp_jsoncheck *c, json_t *obj, const char *where,
                       const char *key)
{
    json_t *v = cp_jsoncheck_member(c, obj, where, key, 1);

    if (!v)
        return 0;
    if (!json_is_integer(v)) {
        cp_jsoncheck_wrong_type(c, where, key, "an integer", v);
        return 0;
    }
    if (json_integer_value(v) < 0) {
        cp_jsoncheck_fail(c, "key '%s%s%s' should be 0 or more", where,
                          where[0] ? "." : "", key);
        return 0;
    }
    return (long long)json_integer_value(v);
}

/* A number or null, required. */
static double num(struct cp_jsoncheck *c, json_t *obj, const char *where,
                  const char *key)
{
    return cp_jsoncheck_num(c, obj, where, key, 1);
}

/* A string, required. */
static const char *str(struct cp_jsoncheck *c, json_t *obj, const char *where,
                       const char *key)
{
    return cp_jsoncheck_str(c, obj, where, key, 1);
}

/* A string or null, required: NULL for null. */
static const char *str_or_null(struct cp_jsoncheck *c, json_t *obj,
                               const char *where, const char *key)
{
    json_t *v = cp_jsoncheck_member(c, obj, where, key, 1);

    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        cp_jsoncheck_wrong_type(c, where, key, "a string or null", v);
        return NULL;
    }
    return json_string_value(v);
}

/* A step's time, required, ISO 8601 or null ("n/a", before any time). */
static void time_of(struct cp_jsoncheck *c, json_t *obj, const char *where,
                    const char *key, struct fh_time *tm)
{
    tm->text = str_or_null(c, obj, where, key);
    tm->t = -INFINITY;
    if (tm->text && fh_time_parse(tm->text, &tm->t) < 0)
        cp_jsoncheck_fail(c,
                          "key '%s.%s' should be an ISO 8601 time like "
                          "2026-12-07T10:00:00Z",
                          where, key);
    if (!tm->text)
        tm->text = "n/a";
}

/* A step's name (job, step, user, source): a string, or null ("n/a"). */
static const char *name_of(struct cp_jsoncheck *c, json_t *obj,
                           const char *where, const char *key)
{
    const char *s = str_or_null(c, obj, where, key);

    return s ? s : "n/a";
}

/* An optional count: -1 when missing or null. */
static long long count_or_none(struct cp_jsoncheck *c, json_t *obj,
                               const char *where, const char *key)
{
    json_t *v = cp_jsoncheck_member(c, obj, where, key, 0);

    return v && !json_is_null(v) ? count(c, obj, where, key) : -1;
}

/* A time that may be null: its text, NULL for null. */
static const char *time_or_null(struct cp_jsoncheck *c, json_t *obj,
                                const char *where, const char *key)
{
    const char *text = str_or_null(c, obj, where, key);
    double t;

    if (text && fh_time_parse(text, &t) < 0)
        cp_jsoncheck_fail(c,
                          "key '%s%s%s' should be an ISO 8601 time like "
                          "2026-12-07T10:00:00Z, or null",
                          where, where[0] ? "." : "", key);
    return text;
}

/* A required name of names[0..n): its index, 0 when wrong (after the
 * failure, which lists the names from the worst, as the contract does). */
static int named(struct cp_jsoncheck *c, json_t *obj, const char *where,
                 const char *key, const char *const *names, int n)
{
    const char *s = str(c, obj, where, key);
    int i;

    if (c->bad)
        return 0;
    for (i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    cp_jsoncheck_fail(c, "key '%s.%s' should be one of %s, %s, %s, %s", where,
                      key, names[n - 1], names[n - 2], names[n - 3], names[0]);
    return 0;
}

static enum fh_verdict verdict(struct cp_jsoncheck *c, json_t *obj,
                               const char *where)
{
    return (enum fh_verdict)named(c, obj, where, "verdict", verdict_names,
                                  FH_NVERDICTS);
}

/* A required array of objects, and room for its items in *items (zeroed;
 * one at least); its length, 0 on failure. */
static size_t objects(struct cp_jsoncheck *c, json_t *obj, const char *where,
                      const char *key, size_t size, void **items, json_t **a)
{
    size_t n;

    *items = NULL;
    *a = cp_jsoncheck_objects(c, obj, where, key, 1);
    if (!*a)
        return 0;
    n = json_array_size(*a);
    *items = calloc(n ? n : 1, size);
    if (!*items) {
        cp_jsoncheck_fail(c, "out of memory");
        return 0;
    }
    return n;
}

/* ---- the sections ------------------------------------------------------- */

static void view_summary(struct cp_jsoncheck *c, json_t *root,
                         struct fh_summary *s)
{
    json_t *o = cp_jsoncheck_typed(c, root, "", "summary", 1, JSON_OBJECT);

    if (!o)
        return;
    s->jobs = count(c, o, "summary", "jobs");
    s->steps = count(c, o, "summary", "steps");
    s->users = count(c, o, "summary", "users");
    s->nodes = count(c, o, "summary", "nodes");
    s->pairs = count(c, o, "summary", "pairs");
    s->bad_links = count(c, o, "summary", "bad_links");
    s->suspect_links = count(c, o, "summary", "suspect_links");
    s->bad_nodes = count(c, o, "summary", "bad_nodes");
    s->suspect_nodes = count(c, o, "summary", "suspect_nodes");
    s->bad_ports = count(c, o, "summary", "bad_ports");
    s->suspect_ports = count_or_none(c, o, "summary", "suspect_ports");
}

static void view_rules(struct cp_jsoncheck *c, json_t *root,
                       struct fh_fleet *fl)
{
    char where[TOP_LEN];
    json_t *a;
    size_t i, n = objects(c, root, "", "rules", sizeof *fl->rules,
                          (void **)&fl->rules, &a);

    for (i = 0; i < n && !c->bad; i++) {
        json_t *o = json_array_get(a, i);
        snprintf(where, sizeof where, "rules[%zu]", i);
        fl->rules[i].name = str(c, o, where, "name");
        fl->rules[i].text = str(c, o, where, "text");
    }
    fl->nrules = n;
}

static void view_link_point(struct cp_jsoncheck *c, json_t *o,
                            const char *where, struct fh_link_step *p)
{
    p->job = name_of(c, o, where, "job");
    p->step = name_of(c, o, where, "step");
    p->user = name_of(c, o, where, "user");
    time_of(c, o, where, "end", &p->end);
    p->bandwidth_Bps = num(c, o, where, "bandwidth_Bps");
    p->efficiency = num(c, o, where, "efficiency");
    p->source = name_of(c, o, where, "source");
    /* a step nothing judged may have no verdict: unclear */
    if (json_is_null(cp_jsoncheck_member(c, o, where, "verdict", 1)))
        p->mark = FH_UNCLEAR;
    else
        p->mark =
            (enum fh_mark)named(c, o, where, "verdict", mark_names, FH_NMARKS);
}

static void view_link_lists(struct cp_jsoncheck *c, json_t *o,
                            const char *where, struct fh_link *l)
{
    char w[WHERE_LEN];
    json_t *a;
    size_t i, n;

    n = objects(c, o, where, "ports", sizeof *l->ports, (void **)&l->ports, &a);
    for (i = 0; i < n && !c->bad; i++) {
        json_t *p = json_array_get(a, i);
        snprintf(w, sizeof w, "%s.ports[%zu]", where, i);
        l->ports[i].node = str(c, p, w, "node");
        l->ports[i].device = str(c, p, w, "device");
        l->ports[i].port = count(c, p, w, "port");
        l->ports[i].rate_Gbps = num(c, p, w, "rate_Gbps");
    }
    l->nports = n;
    if (c->bad)
        return;
    n = objects(c, o, where, "history", sizeof *l->history,
                (void **)&l->history, &a);
    for (i = 0; i < n && !c->bad; i++) {
        snprintf(w, sizeof w, "%s.history[%zu]", where, i);
        view_link_point(c, json_array_get(a, i), w, &l->history[i]);
    }
    l->nhistory = n;
    l->history_total = count_or_none(c, o, where, "history_total");
    if (l->history_total < (long long)n)
        l->history_total = (long long)n;
}

static void view_link(struct cp_jsoncheck *c, json_t *o, const char *where,
                      struct fh_link *l)
{
    json_t *nodes = cp_jsoncheck_list(c, o, where, "nodes", 1, 0);

    if (nodes && json_array_size(nodes) != 2) {
        cp_jsoncheck_fail(c, "key '%s.nodes' should name two nodes, not %zu",
                          where, json_array_size(nodes));
        return;
    }
    if (c->bad)
        return;
    l->nodes[0] = json_string_value(json_array_get(nodes, 0));
    l->nodes[1] = json_string_value(json_array_get(nodes, 1));
    l->verdict = verdict(c, o, where);
    l->jobs_crossed = count(c, o, where, "jobs_crossed");
    l->jobs_measured = count(c, o, where, "jobs_measured");
    l->jobs_slow = count(c, o, where, "jobs_slow");
    l->users = count(c, o, where, "users");
    l->median_efficiency = num(c, o, where, "median_efficiency");
    l->reference_Bps = num(c, o, where, "reference_Bps");
    l->first_slow = time_or_null(c, o, where, "first_slow");
    l->last_slow = time_or_null(c, o, where, "last_slow");
    if (!c->bad)
        view_link_lists(c, o, where, l);
}

static void view_links(struct cp_jsoncheck *c, json_t *root,
                       struct fh_fleet *fl)
{
    char where[TOP_LEN];
    json_t *a;
    size_t i, n = objects(c, root, "", "links", sizeof *fl->links,
                          (void **)&fl->links, &a);

    fl->nlinks = n;
    for (i = 0; i < n && !c->bad; i++) {
        snprintf(where, sizeof where, "links[%zu]", i);
        view_link(c, json_array_get(a, i), where, &fl->links[i]);
    }
}

static void view_node_point(struct cp_jsoncheck *c, json_t *o,
                            const char *where, struct fh_node_step *p)
{
    json_t *v;

    p->job = name_of(c, o, where, "job");
    p->step = name_of(c, o, where, "step");
    p->user = name_of(c, o, where, "user");
    time_of(c, o, where, "end", &p->end);
    v = cp_jsoncheck_member(c, o, where, "straggler", 1);
    if (v && !json_is_boolean(v))
        cp_jsoncheck_wrong_type(c, where, "straggler", "a boolean", v);
    p->straggler = json_is_true(v);
    p->delay_s = num(c, o, where, "delay_s");
}

static void view_node(struct cp_jsoncheck *c, json_t *o, const char *where,
                      struct fh_node *nd)
{
    char w[WHERE_LEN];
    json_t *a;
    size_t i, n;

    nd->node = str(c, o, where, "node");
    nd->verdict = verdict(c, o, where);
    nd->jobs = count(c, o, where, "jobs");
    nd->jobs_straggler = count(c, o, where, "jobs_straggler");
    nd->users = count(c, o, where, "users");
    nd->users_straggler = count(c, o, where, "users_straggler");
    nd->median_delay_s = num(c, o, where, "median_delay_s");
    if (c->bad)
        return;
    n = objects(c, o, where, "history", sizeof *nd->history,
                (void **)&nd->history, &a);
    for (i = 0; i < n && !c->bad; i++) {
        snprintf(w, sizeof w, "%s.history[%zu]", where, i);
        view_node_point(c, json_array_get(a, i), w, &nd->history[i]);
    }
    nd->nhistory = n;
    nd->history_total = count_or_none(c, o, where, "history_total");
    if (nd->history_total < (long long)n)
        nd->history_total = (long long)n;
}

static void view_nodes(struct cp_jsoncheck *c, json_t *root,
                       struct fh_fleet *fl)
{
    char where[TOP_LEN];
    json_t *a;
    size_t i, n = objects(c, root, "", "nodes", sizeof *fl->nodes,
                          (void **)&fl->nodes, &a);

    fl->nnodes = n;
    for (i = 0; i < n && !c->bad; i++) {
        snprintf(where, sizeof where, "nodes[%zu]", i);
        view_node(c, json_array_get(a, i), where, &fl->nodes[i]);
    }
}

/* ports[].counters: an object of numbers, in the document's order. */
static void view_counters(struct cp_jsoncheck *c, json_t *o, const char *where,
                          struct fh_port *p)
{
    json_t *obj = cp_jsoncheck_typed(c, o, where, "counters", 1, JSON_OBJECT);
    char w[WHERE_LEN];
    const char *key;
    json_t *v;
    size_t n = json_object_size(obj), i = 0;

    if (!obj)
        return;
    p->counters = calloc(n ? n : 1, sizeof *p->counters);
    if (!p->counters) {
        cp_jsoncheck_fail(c, "out of memory");
        return;
    }
    snprintf(w, sizeof w, "%s.counters", where);
    json_object_foreach(obj, key, v)
    {
        if (i == n || c->bad)
            break;
        p->counters[i].name = key;
        p->counters[i].value = num(c, obj, w, key);
        i++;
    }
    p->ncounters = i;
}

static void view_port(struct cp_jsoncheck *c, json_t *o, const char *where,
                      struct fh_port *p)
{
    p->node = str(c, o, where, "node");
    p->device = str(c, o, where, "device");
    p->port = count(c, o, where, "port");
    p->verdict = verdict(c, o, where);
    p->jobs = count(c, o, where, "jobs");
    p->jobs_errors = count(c, o, where, "jobs_errors");
    p->jobs_slow_rate = count(c, o, where, "jobs_slow_rate");
    p->rate_Gbps = num(c, o, where, "rate_Gbps");
    p->peer_rate_Gbps = num(c, o, where, "peer_rate_Gbps");
    if (!c->bad)
        view_counters(c, o, where, p);
}

static void view_ports(struct cp_jsoncheck *c, json_t *root,
                       struct fh_fleet *fl)
{
    char where[TOP_LEN];
    json_t *a;
    size_t i, n = objects(c, root, "", "ports", sizeof *fl->ports,
                          (void **)&fl->ports, &a);

    fl->nports = n;
    for (i = 0; i < n && !c->bad; i++) {
        snprintf(where, sizeof where, "ports[%zu]", i);
        view_port(c, json_array_get(a, i), where, &fl->ports[i]);
    }
}

/* ---- the document ------------------------------------------------------- */

void cp_fleet_html_view_free(struct fh_fleet *fl)
{
    size_t i;

    if (!fl)
        return;
    for (i = 0; fl->links && i < fl->nlinks; i++) {
        free(fl->links[i].ports);
        free(fl->links[i].history);
    }
    for (i = 0; fl->nodes && i < fl->nnodes; i++)
        free(fl->nodes[i].history);
    for (i = 0; fl->ports && i < fl->nports; i++)
        free(fl->ports[i].counters);
    free(fl->rules);
    free(fl->links);
    free(fl->nodes);
    free(fl->ports);
    json_decref(fl->owned);
    memset(fl, 0, sizeof *fl);
}

int cp_fleet_html_view_from_json(json_t *doc, const char *file,
                                 struct fh_fleet *fl, struct cp_error *err)
{
    struct cp_jsoncheck c;

    cp_jsoncheck_init(&c, err, file, 0);
    memset(fl, 0, sizeof *fl);
    if (!json_is_object(doc)) {
        cp_jsoncheck_fail(&c, "the document is %s, not a JSON object",
                          doc ? cp_jsoncheck_type_name(doc) : "missing");
        goto out;
    }
    fl->schema = str(&c, doc, "", "schema");
    if (!c.bad && strcmp(fl->schema, FLEET_SCHEMA) != 0)
        cp_jsoncheck_fail(&c, "key 'schema' should be '" FLEET_SCHEMA
                              "' (a fleet.json of collprof fleet export)");
    fl->generated = str(&c, doc, "", "generated");
    fl->since = time_or_null(&c, doc, "", "since");
    fl->db = str(&c, doc, "", "db");
    view_summary(&c, doc, &fl->summary);
    if (!c.bad)
        view_rules(&c, doc, fl);
    if (!c.bad)
        view_links(&c, doc, fl);
    if (!c.bad)
        view_nodes(&c, doc, fl);
    if (!c.bad)
        view_ports(&c, doc, fl);
out:
    if (c.bad) {
        cp_fleet_html_view_free(fl);
        return -1;
    }
    return 0;
}

int cp_fleet_html_view_load(const char *path, struct fh_fleet *fl,
                            struct cp_error *err)
{
    json_error_t jerr;
    json_t *doc = NULL;
    char *text;
    size_t len;
    int rc = -1;

    memset(fl, 0, sizeof *fl);
    text = cp_jsonfile_read(path, CP_PATH_FOLLOW, CP_FLEET_HTML_MAX_BYTES,
                            CP_FLEET_HTML_MAX_COST, "fleet.json", &len, err);
    if (!text)
        return -1;
    doc = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
    if (!doc) {
        cp_error_set(err, path, -1, "%s is not JSON: line %d, column %d: %s",
                     path, jerr.line, jerr.column, jerr.text);
        goto out;
    }
    if (cp_fleet_html_view_from_json(doc, path, fl, err) < 0)
        goto out;
    fl->owned = doc;
    doc = NULL;
    rc = 0;
out:
    json_decref(doc);
    free(text);
    return rc;
}
