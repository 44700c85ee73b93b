/* cp_fleet_ingest.c - a report.json into the fleet database: read and
 * checked whole first (struct rp), then written in one transaction. */
#include "config.h"

#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cp_fleet_ingest.h"
#include "cp_fleet_time.h"
#include "cp_grow.h"
#include "cp_jsoncheck.h"
#include "cp_jsonfile.h"
#include "cp_kinds.h"
#include "cp_path.h"
#include "cp_sha256.h"

#define REPORT_SCHEMA "collprof.report/1"

struct rp_link {
    const char *a, *b, *verdict, *source;
    double bytes, bandwidth, reference, efficiency, probe;
    long long calls, judged;
};

struct rp_node {
    const char *node;
    long long ranks, last_arrivals;
    double late_s, in_call_delay_s, delay_s;
    int straggler, weak;
    const char *kind;
};

struct rp_port {
    const char *node, *device, *state, *layer;
    long long port;
    double rate, peer;
    json_t *counters;
};

struct rp_finding {
    const char *kind, *severity, *message;
    json_t *nodes, *ranks;
};

/* The report as read and checked; its strings are the document's. */
struct rp {
    json_t *doc;
    char sha[CP_SHA256_HEX];
    const char *job, *step, *version;
    json_t *job_nodes;
    long long processes;
    double span_s;
    struct rp_link *links;
    size_t nlinks, clinks;
    struct rp_node *nodes;
    size_t nnodes, cnodes;
    struct rp_port *ports;
    size_t nports, cports;
    struct rp_finding *findings;
    size_t nfindings;
};

/* The step's identity as written, each with where it came from. */
struct ident {
    char cluster[256], job[256], step[256], user[256];
    char *nodes;      /* space-separated; owned */
    char *node_names; /* the caller's nodes, each NUL-terminated; owned */
    const char *cluster_from, *job_from, *user_from, *nodes_from, *end_from;
    char start[CP_FLEET_TIME_SIZE], end[CP_FLEET_TIME_SIZE];
    char now[CP_FLEET_TIME_SIZE];
    long long node_count;
};

/* ---- reading ------------------------------------------------------------ */

/* The report's text (len bytes, from path, or shown so) into r->doc, its
 * schema checked, its digest in r->sha. */
static int load_text(const char *path, const char *text, size_t len,
                     struct rp *r, struct cp_error *err)
{
    json_error_t jerr;
    struct cp_jsoncheck c;
    const char *schema;

    if (cp_jsonfile_cost(text, len) > CP_FLEET_REPORT_MAX_COST ||
        len > CP_FLEET_REPORT_MAX_BYTES)
        return cp_errorf_at(err, path, -1, "%s: too big a report.json (%zu "
                            "bytes): refused", path, len);
    cp_sha256_hex(text, len, r->sha);
    r->doc = json_loadb(text, len, 0, &jerr);
    if (!r->doc)
        return cp_errorf_at(err, path, -1,
                            "%s is not a JSON object: line %d, column %d: "
                            "%s (a damaged or cut report)",
                            path, jerr.line, jerr.column, jerr.text);
    cp_jsoncheck_init(&c, err, path, 0);
    schema = cp_jsoncheck_str(&c, r->doc, "", "schema", 1);
    if (c.bad)
        return -1;
    if (strcmp(schema, REPORT_SCHEMA) != 0)
        return cp_errorf_at(err, path, -1,
                            "%s: key 'schema' is '%.64s', not '"
                            REPORT_SCHEMA "': not a collprof report this "
                            "collprof reads", path, schema);
    return 0;
}

static int load(const char *path, struct rp *r, struct cp_error *err)
{
    size_t len;
    char *text;
    int rc;

    text = cp_jsonfile_read(path, CP_PATH_FOLLOW, CP_FLEET_REPORT_MAX_BYTES,
                            CP_FLEET_REPORT_MAX_COST, "report.json", &len,
                            err);
    if (!text)
        return -1;
    rc = load_text(path, text, len, r, err);
    free(text);
    return rc;
}

static void read_job(struct cp_jsoncheck *c, struct rp *r)
{
    json_t *job = cp_jsoncheck_typed(c, r->doc, "", "job", 1, JSON_OBJECT);
    json_t *summary = cp_jsoncheck_typed(c, r->doc, "", "summary", 1,
                                         JSON_OBJECT);
    const char *gen = cp_jsoncheck_str(c, r->doc, "", "generator", 1);

    r->job = cp_jsoncheck_str(c, job, "job", "job_id", 1);
    r->step = cp_jsoncheck_str(c, job, "job", "step_id", 1);
    r->job_nodes = cp_jsoncheck_list(c, job, "job", "nodes", 1, 0);
    r->processes = cp_jsoncheck_int(c, job, "job", "processes", 1, 0);
    r->span_s = cp_jsoncheck_num(c, summary, "summary", "span_s", 0);
    r->version = strncmp(gen, "collprof ", 9) == 0 ? gen + 9 : gen;
}

static void read_links(struct cp_jsoncheck *c, struct rp *r)
{
    json_t *links = cp_jsoncheck_objects(c, r->doc, "", "links", 1), *l;
    char w[64];
    size_t i;
    json_t *pair;
    struct rp_link *x;

    json_array_foreach(links, i, l) {
        if (c->bad || cp_grow((void **)&r->links, &r->clinks, r->nlinks,
                              sizeof *r->links) < 0) {
            cp_jsoncheck_fail(c, "out of memory at links[%zu]", i);
            return;
        }
        snprintf(w, sizeof w, "links[%zu]", i);
        x = &r->links[r->nlinks];
        pair = cp_jsoncheck_list(c, l, w, "nodes", 1, 0);
        if (pair && json_array_size(pair) != 2) {
            cp_jsoncheck_fail(c, "key '%s.nodes' should hold 2 nodes, not "
                                 "%zu", w, json_array_size(pair));
            return;
        }
        if (!pair)
            return;
        x->a = json_string_value(json_array_get(pair, 0));
        x->b = json_string_value(json_array_get(pair, 1));
        if (strcmp(x->a, x->b) > 0) {
            const char *t = x->a;
            x->a = x->b;
            x->b = t;
        }
        x->verdict = cp_jsoncheck_str(c, l, w, "verdict", 1);
        x->source = cp_jsoncheck_str(c, l, w, "source", 1);
        x->bytes = cp_jsoncheck_num(c, l, w, "bytes", 1);
        x->calls = cp_jsoncheck_int(c, l, w, "calls", 1, 0);
        x->judged = cp_jsoncheck_int(c, l, w, "judged_calls", 0, 0);
        x->bandwidth = cp_jsoncheck_num(c, l, w, "bandwidth_Bps", 1);
        x->reference = cp_jsoncheck_num(c, l, w, "reference_Bps", 1);
        x->efficiency = cp_jsoncheck_num(c, l, w, "efficiency", 1);
        x->probe = cp_jsoncheck_num(c, l, w, "probe_bandwidth_Bps", 0);
        r->nlinks++;
    }
}

/* The node row of name, made when new; NULL out of memory. */
static struct rp_node *node_of(struct rp *r, const char *name)
{
    struct rp_node *n;
    size_t i;

    for (i = 0; i < r->nnodes; i++)
        if (strcmp(r->nodes[i].node, name) == 0)
            return &r->nodes[i];
    if (cp_grow((void **)&r->nodes, &r->cnodes, r->nnodes, sizeof *r->nodes) <
        0)
        return NULL;
    n = &r->nodes[r->nnodes++];
    memset(n, 0, sizeof *n);
    n->node = name;
    n->late_s = NAN;
    n->in_call_delay_s = NAN;
    n->delay_s = NAN;
    return n;
}

/* ranks[] and topology.ranks[]: per node, its ranks, their last arrivals
 * and lateness, and the largest in-call delay. */
static void read_ranks(struct cp_jsoncheck *c, struct rp *r)
{
    json_t *topo = cp_jsoncheck_typed(c, r->doc, "", "topology", 1,
                                      JSON_OBJECT);
    json_t *ranks = cp_jsoncheck_objects(c, r->doc, "", "ranks", 1);
    json_t *tranks = cp_jsoncheck_objects(c, topo, "topology", "ranks", 1);
    json_t *x;
    struct rp_node *n;
    char w[64];
    double v;
    size_t i;

    json_array_foreach(ranks, i, x) {
        snprintf(w, sizeof w, "ranks[%zu]", i);
        n = node_of(r, cp_jsoncheck_str(c, x, w, "node", 1));
        if (!n || c->bad) {
            cp_jsoncheck_fail(c, "cannot read %s", w);
            return;
        }
        n->ranks++;
        n->last_arrivals += cp_jsoncheck_int(c, x, w, "last_arrivals", 1, 0);
        v = cp_jsoncheck_num(c, x, w, "late_s", 1);
        if (isfinite(v))
            n->late_s = isfinite(n->late_s) ? n->late_s + v : v;
    }
    json_array_foreach(tranks, i, x) {
        snprintf(w, sizeof w, "topology.ranks[%zu]", i);
        n = node_of(r, cp_jsoncheck_str(c, x, w, "node", 1));
        if (!n || c->bad) {
            cp_jsoncheck_fail(c, "cannot read %s", w);
            return;
        }
        v = cp_jsoncheck_num(c, x, w, "in_call_delay_s", 0);
        if (isfinite(v) && !(v <= n->in_call_delay_s))
            n->in_call_delay_s = v;
        cp_jsoncheck_bool(c, x, w, "straggler");
    }
}

/* One finding: kept whole, and a straggler's nodes marked. */
static void read_finding(struct cp_jsoncheck *c, struct rp *r, json_t *f,
                         size_t i)
{
    struct rp_finding *x = &r->findings[i];
    char w[64];
    json_t *ev, *name;
    struct rp_node *n;
    double delay;
    size_t k;

    snprintf(w, sizeof w, "findings[%zu]", i);
    x->kind = cp_jsoncheck_str(c, f, w, "kind", 1);
    x->severity = cp_jsoncheck_str(c, f, w, "severity", 1);
    x->message = cp_jsoncheck_str(c, f, w, "message", 1);
    x->nodes = cp_jsoncheck_list(c, f, w, "nodes", 1, 0);
    x->ranks = cp_jsoncheck_list(c, f, w, "ranks", 1, 1);
    if (c->bad || strcmp(x->kind, cp_kind_name(CP_KIND_STRAGGLER)) != 0)
        return;
    snprintf(w, sizeof w, "findings[%zu].evidence", i);
    ev = cp_jsoncheck_typed(c, f, w, "evidence", 0, JSON_OBJECT);
    delay = cp_jsoncheck_num(c, ev, w, "in_call_delay_s", 0);
    if (!isfinite(delay))
        delay = cp_jsoncheck_num(c, ev, w, "mean_late_s", 0);
    json_array_foreach(x->nodes, k, name) {
        n = node_of(r, json_string_value(name));
        if (!n) {
            cp_jsoncheck_fail(c, "out of memory at %s", w);
            return;
        }
        if (strcmp(x->severity, "info") == 0) {
            n->weak = 1;
            continue;
        }
        n->straggler = 1;
        n->kind = cp_jsoncheck_str(c, ev, w, "kind", 0);
        if (isfinite(delay) && !(delay <= n->delay_s))
            n->delay_s = delay;
    }
}

static void read_findings(struct cp_jsoncheck *c, struct rp *r)
{
    json_t *list = cp_jsoncheck_objects(c, r->doc, "", "findings", 1), *f;
    size_t i, n = json_array_size(list);

    if (!list || n == 0)
        return;
    r->findings = calloc(n, sizeof *r->findings);
    if (!r->findings) {
        cp_jsoncheck_fail(c, "out of memory reading findings");
        return;
    }
    json_array_foreach(list, i, f) {
        read_finding(c, r, f, i);
        if (c->bad)
            return;
        r->nfindings++;
    }
}

static void read_node_ports(struct cp_jsoncheck *c, struct rp *r, json_t *nd,
                            size_t i)
{
    char w[64], wp[96];
    const char *node;
    json_t *ports, *p, *v;
    struct rp_port *x;
    const char *key;
    size_t k;

    snprintf(w, sizeof w, "ports.nodes[%zu]", i);
    node = cp_jsoncheck_str(c, nd, w, "node", 1);
    ports = cp_jsoncheck_objects(c, nd, w, "ports", 1);
    json_array_foreach(ports, k, p) {
        if (c->bad || cp_grow((void **)&r->ports, &r->cports, r->nports,
                              sizeof *r->ports) < 0) {
            cp_jsoncheck_fail(c, "cannot read %s.ports[%zu]", w, k);
            return;
        }
        snprintf(wp, sizeof wp, "%s.ports[%zu]", w, k);
        x = &r->ports[r->nports];
        x->node = node;
        x->device = cp_jsoncheck_str(c, p, wp, "device", 1);
        x->port = cp_jsoncheck_int(c, p, wp, "port", 1, 0);
        x->state = cp_jsoncheck_str(c, p, wp, "state", 0);
        x->layer = cp_jsoncheck_str(c, p, wp, "link_layer", 0);
        x->rate = cp_jsoncheck_num(c, p, wp, "rate_Gbps", 0);
        x->peer = cp_jsoncheck_num(c, p, wp, "peer_rate_Gbps", 0);
        x->counters = cp_jsoncheck_typed(c, p, wp, "counters", 0,
                                         JSON_OBJECT);
        json_object_foreach(x->counters, key, v)
            if (!json_is_number(v))
                cp_jsoncheck_wrong_type(c, wp, "counters", "an object of "
                                        "numbers", v);
        r->nports++;
    }
}

static void read_ports(struct cp_jsoncheck *c, struct rp *r)
{
    json_t *ports = cp_jsoncheck_typed(c, r->doc, "", "ports", 0, JSON_OBJECT);
    json_t *nodes = cp_jsoncheck_objects(c, ports, "ports", "nodes", 0), *nd;
    size_t i;

    json_array_foreach(nodes, i, nd) {
        read_node_ports(c, r, nd, i);
        if (c->bad)
            return;
    }
}

static void rp_free(struct rp *r)
{
    free(r->links);
    free(r->nodes);
    free(r->ports);
    free(r->findings);
    json_decref(r->doc);
}

/* The whole report read and checked into r; -1 with err naming the file
 * and the key. */
/* What the report r->doc says (loaded by load or load_text). */
static int read_report(const char *path, struct rp *r, struct cp_error *err)
{
    struct cp_jsoncheck c;
    json_t *name;
    size_t i;

    cp_jsoncheck_init(&c, err, path, 0);
    read_job(&c, r);
    json_array_foreach(r->job_nodes, i, name)
        if (!c.bad && !node_of(r, json_string_value(name)))
            cp_jsoncheck_fail(&c, "out of memory reading job.nodes");
    if (!c.bad)
        read_links(&c, r);
    if (!c.bad)
        read_ranks(&c, r);
    if (!c.bad)
        read_findings(&c, r);
    if (!c.bad)
        read_ports(&c, r);
    return c.bad ? -1 : 0;
}

/* ---- who ran it --------------------------------------------------------- */

static int given(const char *s)
{
    return s && *s;
}

/* The report's nodes, or the caller's list (commas or spaces), as one
 * space-separated string (its room: the list's own length, or the sum of
 * the report's names).  0, or -1 out of memory. */
static int resolve_nodes(const struct rp *r, const char *list,
                         struct ident *w)
{
    size_t i, o = 0, size = 1, n;
    const char *s;

    w->node_count = 0;
    w->nodes_from = given(list) ? "caller" : "report";
    if (given(list))
        size += strlen(list);
    for (i = 0; !given(list) && i < json_array_size(r->job_nodes); i++)
        size += strlen(json_string_value(json_array_get(r->job_nodes, i))) + 1;
    w->nodes = malloc(size);
    if (!w->nodes)
        return -1;
    w->nodes[0] = '\0';
    for (s = list; given(list) && *s; s += strspn(s, ", ")) {
        n = strcspn(s, ", ");
        o += (size_t)snprintf(w->nodes + o, size - o, "%s%.*s", o ? " " : "",
                              (int)n, s);
        w->node_count++;
        s += n;
    }
    for (i = 0; !given(list) && i < json_array_size(r->job_nodes); i++) {
        s = json_string_value(json_array_get(r->job_nodes, i));
        o += (size_t)snprintf(w->nodes + o, size - o, "%s%s", o ? " " : "", s);
        w->node_count++;
    }
    return 0;
}

/* The owner of the report's file, by name (its uid when unnamed). */
static void user_of(uid_t uid, char *user, size_t size)
{
    struct passwd pw, *found = NULL;
    char buf[4096];

    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
        snprintf(user, size, "%s", found->pw_name);
    else
        snprintf(user, size, "uid%u", (unsigned)uid);
}

/* Who ran the step: the caller's identity, else the report's, else the
 * file's (owner and mtime in st). */
static int resolve(const char *path, const struct rp *r, const struct stat *st,
                   const struct cp_fleet_identity *id, struct ident *w,
                   struct cp_error *err)
{
    double end;

    user_of(st->st_uid, w->user, sizeof w->user);
    w->user_from = "file_owner";
    if (given(id->user)) {
        snprintf(w->user, sizeof w->user, "%s", id->user);
        w->user_from = "caller";
    }
    snprintf(w->cluster, sizeof w->cluster, "%s",
             given(id->cluster) ? id->cluster : "default");
    w->cluster_from = given(id->cluster) ? "caller" : "default";
    w->job_from = given(id->job) ? "caller" : "report";
    if (given(id->job))
        snprintf(w->job, sizeof w->job, "%s", id->job);
    else if (*r->job)
        snprintf(w->job, sizeof w->job, "%s", r->job);
    else {
        /* a run outside Slurm: its report's digest is its job */
        snprintf(w->job, sizeof w->job, "sha256:%.16s", r->sha);
        w->job_from = "report_sha256";
    }
    snprintf(w->step, sizeof w->step, "%s", given(id->step) ? id->step
                                                            : r->step);
    if (resolve_nodes(r, id->nodes, w) < 0)
        return cp_errorf(err, "%s: out of memory reading the nodes", path);
    end = (double)st->st_mtime;
    w->end_from = "file_mtime";
    if (given(id->end)) {
        if (cp_fleet_time_parse(id->end, &end) < 0)
            return cp_errorf(err, "--end '%s' is not a time (ISO 8601 UTC "
                                  "or seconds since the epoch)", id->end);
        w->end_from = "caller";
    }
    cp_fleet_time_format(end, w->end);
    w->start[0] = '\0';
    if (isfinite(r->span_s))
        cp_fleet_time_format(end - r->span_s, w->start);
    cp_fleet_time_format((double)time(NULL), w->now);
    return 0;
}

/* ---- writing ------------------------------------------------------------ */

#define MAX_PARAMS 24

struct params {
    const char *v[MAX_PARAMS];
    char buf[MAX_PARAMS][48];
    int n;
};

static void p_str(struct params *p, const char *s)
{
    p->v[p->n++] = s;
}

static void p_num(struct params *p, double v)
{
    if (!isfinite(v)) {
        p->v[p->n++] = NULL;
        return;
    }
    snprintf(p->buf[p->n], sizeof p->buf[0], "%.17g", v);
    p->v[p->n] = p->buf[p->n];
    p->n++;
}

static void p_int(struct params *p, long long v)
{
    snprintf(p->buf[p->n], sizeof p->buf[0], "%lld", v);
    p->v[p->n] = p->buf[p->n];
    p->n++;
}

/* The step's key: the first three parameters of every row. */
static void p_key(struct params *p, const struct ident *w)
{
    p->n = 0;
    p_str(p, w->cluster);
    p_str(p, w->job);
    p_str(p, w->step);
}

static int insert(struct cp_fleet_db *db, const char *sql,
                  const struct params *p, long long *changed,
                  struct cp_error *err)
{
    return cp_fleet_db_exec(db, sql, p->n, p->v, changed, err);
}

/* The step's row; *changed 0 when the step (or the same report) is
 * already there. */
static int write_step(struct cp_fleet_db *db, const char *path,
                      const struct rp *r, const struct ident *w,
                      long long *changed, struct cp_error *err)
{
    struct params p;

    p_key(&p, w);
    p_str(&p, w->user);
    p_str(&p, w->nodes);
    p_int(&p, w->node_count);
    p_int(&p, r->processes);
    p_str(&p, w->start[0] ? w->start : NULL);
    p_str(&p, w->end);
    p_num(&p, r->span_s);
    p_str(&p, r->version);
    p_str(&p, r->sha);
    p_str(&p, path);
    p_str(&p, w->now);
    p_str(&p, w->job_from);
    p_str(&p, w->user_from);
    p_str(&p, w->cluster_from);
    p_str(&p, w->nodes_from);
    p_str(&p, w->end_from);
    return insert(db,
                  "INSERT INTO steps (cluster, job_id, step_id, user_name, "
                  "nodes, node_count, processes, start_time, end_time, "
                  "span_s, collprof_version, report_sha256, report_file, "
                  "ingested, job_from, user_from, cluster_from, nodes_from, "
                  "end_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                  &p, changed, err);
}

static int write_links(struct cp_fleet_db *db, const struct rp *r,
                       const struct ident *w, struct cp_error *err)
{
    const struct rp_link *x;
    struct params p;
    size_t i;

    for (i = 0; i < r->nlinks; i++) {
        x = &r->links[i];
        p_key(&p, w);
        p_str(&p, x->a);
        p_str(&p, x->b);
        p_str(&p, x->verdict);
        p_str(&p, x->source);
        p_num(&p, x->bytes);
        p_int(&p, x->calls);
        p_int(&p, x->judged);
        p_num(&p, x->bandwidth);
        p_num(&p, x->reference);
        p_num(&p, x->efficiency);
        p_num(&p, x->probe);
        if (insert(db,
                   "INSERT INTO step_links (cluster, job_id, step_id, "
                   "node_a, node_b, verdict, source, bytes, calls, "
                   "judged_calls, bandwidth_bps, reference_bps, efficiency, "
                   "probe_bandwidth_bps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                   "?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   &p, NULL, err) < 0)
            return -1;
    }
    return 0;
}

static int write_nodes(struct cp_fleet_db *db, const struct rp *r,
                       const struct ident *w, struct cp_error *err)
{
    const struct rp_node *x;
    struct params p;
    size_t i;

    for (i = 0; i < r->nnodes; i++) {
        x = &r->nodes[i];
        p_key(&p, w);
        p_str(&p, x->node);
        p_int(&p, x->ranks);
        p_int(&p, x->last_arrivals);
        p_num(&p, x->late_s);
        p_num(&p, x->in_call_delay_s);
        p_int(&p, x->straggler);
        p_int(&p, x->weak && !x->straggler);
        p_str(&p, x->kind);
        p_num(&p, x->delay_s);
        if (insert(db,
                   "INSERT INTO step_nodes (cluster, job_id, step_id, node, "
                   "ranks, last_arrivals, late_s, in_call_delay_s, "
                   "straggler, straggler_weak, straggler_kind, delay_s) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT "
                   "DO NOTHING",
                   &p, NULL, err) < 0)
            return -1;
    }
    return 0;
}

static int write_counters(struct cp_fleet_db *db, const struct rp_port *x,
                          const struct ident *w, struct cp_error *err)
{
    const char *name;
    struct params p;
    json_t *v;

    json_object_foreach(x->counters, name, v) {
        p_key(&p, w);
        p_str(&p, x->node);
        p_str(&p, x->device);
        p_int(&p, x->port);
        p_str(&p, name);
        p_num(&p, json_number_value(v));
        if (insert(db,
                   "INSERT INTO step_port_counters (cluster, job_id, "
                   "step_id, node, device, port, counter, increase) VALUES "
                   "(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   &p, NULL, err) < 0)
            return -1;
    }
    return 0;
}

static int write_ports(struct cp_fleet_db *db, const struct rp *r,
                       const struct ident *w, struct cp_error *err)
{
    const struct rp_port *x;
    struct params p;
    size_t i;

    for (i = 0; i < r->nports; i++) {
        x = &r->ports[i];
        p_key(&p, w);
        p_str(&p, x->node);
        p_str(&p, x->device);
        p_int(&p, x->port);
        p_str(&p, x->state);
        p_str(&p, x->layer);
        p_num(&p, x->rate);
        p_num(&p, x->peer);
        p_int(&p, (long long)json_object_size(x->counters));
        if (insert(db,
                   "INSERT INTO step_ports (cluster, job_id, step_id, node, "
                   "device, port, state, link_layer, rate_gbps, "
                   "peer_rate_gbps, counters_rose) VALUES (?, ?, ?, ?, ?, ?, "
                   "?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   &p, NULL, err) < 0 ||
            write_counters(db, x, w, err) < 0)
            return -1;
    }
    return 0;
}

/* The elements of list (strings or integers) separated by spaces, in a
 * buffer the caller frees; NULL out of memory. */
static char *joined(const json_t *list)
{
    size_t i, size = 1, o = 0;
    json_t *v;
    char *s;

    json_array_foreach(list, i, v)
        size += (json_is_string(v) ? strlen(json_string_value(v)) : 24) + 1;
    s = malloc(size);
    if (!s)
        return NULL;
    s[0] = '\0';
    json_array_foreach(list, i, v) {
        if (json_is_string(v))
            o += (size_t)snprintf(s + o, size - o, "%s%s", o ? " " : "",
                                  json_string_value(v));
        else
            o += (size_t)snprintf(s + o, size - o, "%s%lld", o ? " " : "",
                                  (long long)json_integer_value(v));
    }
    return s;
}

static int write_findings(struct cp_fleet_db *db, const struct rp *r,
                          const struct ident *w, struct cp_error *err)
{
    const struct rp_finding *x;
    struct params p;
    char *nodes = NULL, *ranks = NULL;
    int rc = -1;
    size_t i;

    for (i = 0; i < r->nfindings; i++) {
        x = &r->findings[i];
        nodes = joined(x->nodes);
        ranks = joined(x->ranks);
        if (!nodes || !ranks) {
            cp_errorf(err, "out of memory writing findings");
            goto out;
        }
        p_key(&p, w);
        p_int(&p, (long long)i);
        p_str(&p, x->kind);
        p_str(&p, x->severity);
        p_str(&p, nodes);
        p_str(&p, ranks);
        p_str(&p, x->message);
        if (insert(db,
                   "INSERT INTO findings (cluster, job_id, step_id, idx, "
                   "kind, severity, nodes, ranks, message) VALUES (?, ?, ?, "
                   "?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   &p, NULL, err) < 0)
            goto out;
        free(nodes);
        free(ranks);
        nodes = ranks = NULL;
    }
    rc = 0;
out:
    free(nodes);
    free(ranks);
    return rc;
}

static int write_all(struct cp_fleet_db *db, const char *path,
                     const struct rp *r, const struct ident *w,
                     struct cp_fleet_ingested *res, struct cp_error *err)
{
    long long changed = 0;

    if (cp_fleet_db_begin(db, 0, err) < 0)
        return -1;
    if (write_step(db, path, r, w, &changed, err) < 0)
        goto fail;
    if (changed > 0) {
        if (write_links(db, r, w, err) < 0 || write_nodes(db, r, w, err) < 0 ||
            write_ports(db, r, w, err) < 0 ||
            write_findings(db, r, w, err) < 0)
            goto fail;
        res->inserted = 1;
        res->links = r->nlinks;
        res->nodes = r->nnodes;
        res->ports = r->nports;
        res->findings = r->nfindings;
    }
    if (cp_fleet_db_commit(db, err) < 0)
        goto fail;
    return 0;
fail:
    cp_fleet_db_rollback(db);
    memset(res, 0, sizeof *res);
    return -1;
}

/* A row for each node the caller named, with or without evidence: the
 * step ran on it (it counts among the node's jobs). */
static int caller_nodes(struct rp *r, struct ident *w, struct cp_error *err)
{
    char *s, *end;

    if (strcmp(w->nodes_from, "caller") != 0)
        return 0;
    s = w->node_names = strdup(w->nodes);
    if (!s)
        return cp_errorf(err, "out of memory reading the nodes");
    while (*s) {
        end = strchr(s, ' ');
        if (end)
            *end = '\0';
        if (!node_of(r, s))
            return cp_errorf(err, "out of memory reading the nodes");
        if (!end)
            break;
        s = end + 1;
    }
    return 0;
}

/* Ingest r (loaded, not yet read) of the file st. */
static int ingest(struct cp_fleet_db *db, const char *path, struct rp *r,
                  const struct stat *st, const struct cp_fleet_identity *id,
                  struct cp_fleet_ingested *res, struct cp_error *err)
{
    static const struct cp_fleet_identity none;
    struct ident *w = calloc(1, sizeof *w);
    int rc = -1;

    if (!w)
        return cp_errorf(err, "%s: out of memory", path);
    if (read_report(path, r, err) < 0 ||
        resolve(path, r, st, id ? id : &none, w, err) < 0 ||
        caller_nodes(r, w, err) < 0)
        goto out;
    if (write_all(db, path, r, w, res, err) < 0)
        goto out;
    snprintf(res->cluster, sizeof res->cluster, "%s", w->cluster);
    snprintf(res->job, sizeof res->job, "%s", w->job);
    snprintf(res->step, sizeof res->step, "%s", w->step);
    snprintf(res->user, sizeof res->user, "%s", w->user);
    rc = 0;
out:
    free(w->nodes);
    free(w->node_names);
    free(w);
    return rc;
}

int cp_fleet_ingest(struct cp_fleet_db *db, const char *path,
                    const struct cp_fleet_identity *id,
                    struct cp_fleet_ingested *res, struct cp_error *err)
{
    struct stat st;
    struct rp r;
    int fd, rc = -1;

    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    fd = cp_path_open_input_stat(path, CP_PATH_FOLLOW, &st, err);
    if (fd < 0)
        return -1;
    close(fd);
    if (load(path, &r, err) == 0)
        rc = ingest(db, path, &r, &st, id, res, err);
    rp_free(&r);
    return rc;
}

int cp_fleet_ingest_text(struct cp_fleet_db *db, const char *shown,
                         const char *text, size_t len, uid_t owner,
                         int64_t mtime, const struct cp_fleet_identity *id,
                         struct cp_fleet_ingested *res, struct cp_error *err)
{
    struct stat st;
    struct rp r;
    int rc = -1;

    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    memset(&st, 0, sizeof st);
    st.st_uid = owner;
    st.st_mtime = (time_t)mtime;
    if (load_text(shown, text, len, &r, err) == 0)
        rc = ingest(db, shown, &r, &st, id, res, err);
    rp_free(&r);
    return rc;
}
