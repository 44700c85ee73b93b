/* cp_fleet_judge.c - the fleet's verdicts: each query's rows grouped by
 * pair, node or port (consecutive rows of one key), counted in jobs (a
 * job's several steps count once) and users, then judged by the rules. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_fleet_judge.h"

#define RULE(id) (&cp_fleet_rules[CP_FLEET_##id##_RULE])

const struct cp_fleet_rule cp_fleet_rules[CP_FLEET_NRULES] = {
    [CP_FLEET_LINK_BAD_RULE] = {"link_bad", "slow in most jobs that measured "
                                "it (more than half), and in at least 2 jobs",
                                .min_jobs = 2, .share = 0.5},
    [CP_FLEET_LINK_SUSPECT_RULE] = {"link_suspect", "slow in at least 1 job, "
                                    "or a candidate of a slow communicator "
                                    "in at least 2",
                                    .min_jobs = 1, .min_also = 2},
    [CP_FLEET_LINK_OK_RULE] = {"link_ok", "measured in at least 1 job "
                               "(verdict ok or slow there), neither bad nor "
                               "suspect", .min_jobs = 1},
    [CP_FLEET_LINK_NO_EVIDENCE_RULE] = {"link_no_evidence", "crossed, but no "
                                        "job measured it (latency-bound or "
                                        "unjudged traffic only)"},
    [CP_FLEET_NODE_BAD_RULE] = {"node_bad", "a straggler (a straggler finding "
                                "at warning or above) in at least 2 jobs of "
                                "at least 2 users, and in at least a quarter "
                                "of the jobs that ran on it",
                                .min_jobs = 2, .min_users = 2, .share = 0.25},
    [CP_FLEET_NODE_SUSPECT_RULE] = {"node_suspect", "a straggler in at least "
                                    "1 job, but not bad (a node that "
                                    "straggles only in one user's jobs is "
                                    "that job's issue)", .min_jobs = 1},
    [CP_FLEET_NODE_OK_RULE] = {"node_ok", "ran jobs, never a straggler in "
                               "them", .min_jobs = 1},
    [CP_FLEET_PORT_BAD_RULE] = {"port_bad", "error counters rose in at least "
                                "2 jobs, or its rate was below its peers' "
                                "(under 0.99 of theirs) in at least 2",
                                .min_jobs = 2, .share = 0.99},
    [CP_FLEET_PORT_SUSPECT_RULE] = {"port_suspect", "error counters rose, or "
                                    "its rate was below its peers', in 1 "
                                    "job", .min_jobs = 1},
    [CP_FLEET_PORT_OK_RULE] = {"port_ok", "snapshotted, neither"},
};
const size_t cp_fleet_nrules = sizeof cp_fleet_rules / sizeof cp_fleet_rules[0];

const char *cp_fleet_verdict_name(enum cp_fleet_verdict v)
{
    static const char *const names[] = {"bad", "suspect", "ok", "no_evidence"};

    return (unsigned)v < 4 ? names[v] : "no_evidence";
}

/* ---- counting ----------------------------------------------------------- */

/* A job (cluster, job id) or a user (name, ""). */
struct key2 {
    const char *a, *b;
};

static int cmp_key2(const void *x, const void *y)
{
    const struct key2 *p = x, *q = y;
    int c = strcmp(p->a, q->a);

    return c ? c : strcmp(p->b, q->b);
}

static long long distinct(struct key2 *k, size_t n)
{
    long long count = 0;
    size_t i;

    qsort(k, n, sizeof *k, cmp_key2);
    for (i = 0; i < n; i++)
        if (i == 0 || cmp_key2(&k[i - 1], &k[i]) != 0)
            count++;
    return count;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

static double median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const char *str(const struct cp_fleet_table *t, size_t r, size_t c)
{
    const char *s = cp_fleet_cell(t, r, c);

    return s ? s : "";
}

/* Scratch for one group's counting: five key lists and the numbers. */
#define LISTS 5
struct scratch {
    struct key2 *k[LISTS];
    size_t n[LISTS];
    double *x;
    size_t nx;
};

static int scratch_size(struct scratch *s, size_t rows)
{
    int i;

    memset(s->n, 0, sizeof s->n);
    s->nx = 0;
    for (i = 0; i < LISTS; i++) {
        free(s->k[i]);
        s->k[i] = malloc((rows ? rows : 1) * sizeof *s->k[i]);
        if (!s->k[i])
            return -1;
    }
    free(s->x);
    s->x = malloc((rows ? rows : 1) * sizeof *s->x);
    return s->x ? 0 : -1;
}

static void scratch_free(struct scratch *s)
{
    int i;

    for (i = 0; i < LISTS; i++)
        free(s->k[i]);
    free(s->x);
}

static void add(struct scratch *s, int list, const char *a, const char *b)
{
    s->k[list][s->n[list]].a = a;
    s->k[list][s->n[list]].b = b;
    s->n[list]++;
}

/* The end of the group of rows starting at r0 whose first `keys` columns
 * are equal. */
static size_t group_end(const struct cp_fleet_table *t, size_t r0,
                        size_t keys)
{
    size_t r, c;

    for (r = r0 + 1; r < t->rows; r++)
        for (c = 0; c < keys; c++)
            if (strcmp(str(t, r, c), str(t, r0, c)) != 0)
                return r;
    return t->rows;
}

/* ---- links -------------------------------------------------------------- */

#define STEP_JOIN                                                              \
    " JOIN steps s ON s.cluster = x.cluster AND s.job_id = x.job_id AND "      \
    "s.step_id = x.step_id WHERE s.end_time >= ? "

/* One pair's rows into its counts and verdict. */
static void judge_link(const struct cp_fleet_table *t, struct cp_fleet_link *l,
                       struct scratch *s)
{
    enum { JOBS, MEASURED, SLOW, USERS, SUSPECT };
    size_t r;
    const char *verdict;
    double e;

    for (r = l->row0; r < l->row0 + l->nrows; r++) {
        verdict = str(t, r, LR_VERDICT);
        add(s, JOBS, str(t, r, LR_CLUSTER), str(t, r, LR_JOB));
        add(s, USERS, str(t, r, LR_USER), "");
        if (strcmp(verdict, "suspect") == 0)
            add(s, SUSPECT, str(t, r, LR_CLUSTER), str(t, r, LR_JOB));
        if (strcmp(verdict, "ok") != 0 && strcmp(verdict, "slow") != 0)
            continue;
        add(s, MEASURED, str(t, r, LR_CLUSTER), str(t, r, LR_JOB));
        e = cp_fleet_cell_num(t, r, LR_EFFICIENCY);
        if (isfinite(e))
            s->x[s->nx++] = e;
        if (isfinite(cp_fleet_cell_num(t, r, LR_REFERENCE)))
            l->reference_Bps = cp_fleet_cell_num(t, r, LR_REFERENCE);
        if (strcmp(verdict, "slow") != 0)
            continue;
        add(s, SLOW, str(t, r, LR_CLUSTER), str(t, r, LR_JOB));
        if (!l->first_slow)
            l->first_slow = cp_fleet_cell(t, r, LR_END);
        l->last_slow = cp_fleet_cell(t, r, LR_END);
    }
    l->jobs_crossed = distinct(s->k[JOBS], s->n[JOBS]);
    l->jobs_measured = distinct(s->k[MEASURED], s->n[MEASURED]);
    l->jobs_slow = distinct(s->k[SLOW], s->n[SLOW]);
    l->users = distinct(s->k[USERS], s->n[USERS]);
    l->jobs_suspect = distinct(s->k[SUSPECT], s->n[SUSPECT]);
    l->median_efficiency = median(s->x, s->nx);
    if (l->jobs_slow >= RULE(LINK_BAD)->min_jobs &&
        l->jobs_slow > RULE(LINK_BAD)->share * (double)l->jobs_measured)
        l->verdict = CP_FLEET_BAD;
    else if (l->jobs_slow >= RULE(LINK_SUSPECT)->min_jobs ||
             l->jobs_suspect >= RULE(LINK_SUSPECT)->min_also)
        l->verdict = CP_FLEET_SUSPECT;
    else if (l->jobs_measured >= RULE(LINK_OK)->min_jobs)
        l->verdict = CP_FLEET_OK;
    else
        l->verdict = CP_FLEET_NO_EVIDENCE;
}

/* Worst first: verdict, then the share of measuring jobs that found it
 * slow, then the jobs that did, then the names. */
static double slow_share(long long slow, long long measured)
{
    return measured > 0 ? (double)slow / (double)measured : 0;
}

static int cmp_link(const void *x, const void *y)
{
    const struct cp_fleet_link *p = x, *q = y;
    double a = slow_share(p->jobs_slow, p->jobs_measured);
    double b = slow_share(q->jobs_slow, q->jobs_measured);
    int c;

    if (p->verdict != q->verdict)
        return p->verdict < q->verdict ? -1 : 1;
    if (a != b)
        return a > b ? -1 : 1;
    if (p->jobs_slow != q->jobs_slow)
        return p->jobs_slow > q->jobs_slow ? -1 : 1;
    if (p->jobs_crossed != q->jobs_crossed)
        return p->jobs_crossed > q->jobs_crossed ? -1 : 1;
    c = strcmp(p->a, q->a);
    return c ? c : strcmp(p->b, q->b);
}

static int judge_links(struct cp_fleet_db *db, const char *since,
                       struct cp_fleet_view *v, struct cp_error *err)
{
    struct cp_fleet_table *t = &v->link_rows;
    struct scratch s = {{NULL}, {0}, NULL, 0};
    size_t r, end, n = 0;
    int rc = -1;

    if (cp_fleet_table_query(db,
                             "SELECT x.node_a, x.node_b, s.cluster, "
                             "s.job_id, s.step_id, s.user_name, s.end_time, "
                             "x.bandwidth_bps, x.reference_bps, "
                             "x.efficiency, x.source, x.verdict FROM "
                             "step_links x" STEP_JOIN
                             "ORDER BY x.node_a, x.node_b, s.end_time, "
                             "s.cluster, s.job_id, s.step_id",
                             1, &since, LR_COLS, t, err) < 0)
        return -1;
    v->links = calloc(t->rows ? t->rows : 1, sizeof *v->links);
    if (!v->links)
        return cp_errorf(err, "fleet: out of memory judging the links");
    for (r = 0; r < t->rows; r = end) {
        struct cp_fleet_link *l = &v->links[n++];

        end = group_end(t, r, 2);
        l->a = str(t, r, LR_A);
        l->b = str(t, r, LR_B);
        l->row0 = r;
        l->nrows = end - r;
        l->reference_Bps = NAN;
        if (scratch_size(&s, l->nrows) < 0) {
            cp_errorf(err, "fleet: out of memory judging the links");
            goto out;
        }
        judge_link(t, l, &s);
    }
    v->nlinks = n;
    qsort(v->links, n, sizeof *v->links, cmp_link);
    rc = 0;
out:
    scratch_free(&s);
    return rc;
}

/* ---- nodes -------------------------------------------------------------- */

static void judge_node(const struct cp_fleet_table *t, struct cp_fleet_node *d,
                       struct scratch *s)
{
    enum { JOBS, STRAGGLER, USERS, USERS_STRAGGLER };
    long long weak_rows = 0;
    size_t r;
    double delay;

    for (r = d->row0; r < d->row0 + d->nrows; r++) {
        add(s, JOBS, str(t, r, NR_CLUSTER), str(t, r, NR_JOB));
        add(s, USERS, str(t, r, NR_USER), "");
        weak_rows += cp_fleet_cell_int(t, r, NR_WEAK) != 0;
        if (cp_fleet_cell_int(t, r, NR_STRAGGLER) == 0)
            continue;
        add(s, STRAGGLER, str(t, r, NR_CLUSTER), str(t, r, NR_JOB));
        add(s, USERS_STRAGGLER, str(t, r, NR_USER), "");
        delay = cp_fleet_cell_num(t, r, NR_DELAY);
        if (isfinite(delay))
            s->x[s->nx++] = delay;
    }
    d->jobs = distinct(s->k[JOBS], s->n[JOBS]);
    d->jobs_straggler = distinct(s->k[STRAGGLER], s->n[STRAGGLER]);
    d->users = distinct(s->k[USERS], s->n[USERS]);
    d->users_straggler = distinct(s->k[USERS_STRAGGLER],
                                  s->n[USERS_STRAGGLER]);
    d->jobs_weak = weak_rows;
    d->median_delay_s = median(s->x, s->nx);
    if (d->jobs_straggler >= RULE(NODE_BAD)->min_jobs &&
        d->users_straggler >= RULE(NODE_BAD)->min_users &&
        (double)d->jobs_straggler >= RULE(NODE_BAD)->share * (double)d->jobs)
        d->verdict = CP_FLEET_BAD;
    else if (d->jobs_straggler >= RULE(NODE_SUSPECT)->min_jobs)
        d->verdict = CP_FLEET_SUSPECT;
    else if (d->jobs >= RULE(NODE_OK)->min_jobs)
        d->verdict = CP_FLEET_OK;
    else
        d->verdict = CP_FLEET_NO_EVIDENCE;
}

static int cmp_node(const void *x, const void *y)
{
    const struct cp_fleet_node *p = x, *q = y;
    double a = slow_share(p->jobs_straggler, p->jobs);
    double b = slow_share(q->jobs_straggler, q->jobs);

    if (p->verdict != q->verdict)
        return p->verdict < q->verdict ? -1 : 1;
    if (a != b)
        return a > b ? -1 : 1;
    if (p->jobs_straggler != q->jobs_straggler)
        return p->jobs_straggler > q->jobs_straggler ? -1 : 1;
    return strcmp(p->node, q->node);
}

static int judge_nodes(struct cp_fleet_db *db, const char *since,
                       struct cp_fleet_view *v, struct cp_error *err)
{
    struct cp_fleet_table *t = &v->node_rows;
    struct scratch s = {{NULL}, {0}, NULL, 0};
    size_t r, end, n = 0;
    int rc = -1;

    if (cp_fleet_table_query(db,
                             "SELECT x.node, s.cluster, s.job_id, s.step_id, "
                             "s.user_name, s.end_time, x.straggler, "
                             "x.delay_s, x.straggler_weak FROM step_nodes x"
                             STEP_JOIN "ORDER BY x.node, s.end_time, "
                             "s.cluster, s.job_id, s.step_id",
                             1, &since, NR_COLS, t, err) < 0)
        return -1;
    v->nodes = calloc(t->rows ? t->rows : 1, sizeof *v->nodes);
    if (!v->nodes)
        return cp_errorf(err, "fleet: out of memory judging the nodes");
    for (r = 0; r < t->rows; r = end) {
        struct cp_fleet_node *d = &v->nodes[n++];

        end = group_end(t, r, 1);
        d->node = str(t, r, NR_NODE);
        d->row0 = r;
        d->nrows = end - r;
        if (scratch_size(&s, d->nrows) < 0) {
            cp_errorf(err, "fleet: out of memory judging the nodes");
            goto out;
        }
        judge_node(t, d, &s);
    }
    v->nnodes = n;
    qsort(v->nodes, n, sizeof *v->nodes, cmp_node);
    rc = 0;
out:
    scratch_free(&s);
    return rc;
}

/* ---- ports -------------------------------------------------------------- */

enum {
    PR_NODE, PR_DEVICE, PR_PORT, PR_CLUSTER, PR_JOB, PR_END, PR_RATE, PR_PEER,
    PR_ROSE, PR_STATE, PR_COLS
};
enum { CR_NODE, CR_DEVICE, CR_PORT, CR_COUNTER, CR_SUM, CR_COLS };

static void judge_port(const struct cp_fleet_table *t, struct cp_fleet_port *p,
                       size_t r0, size_t r1, struct scratch *s)
{
    enum { JOBS, ERRORS, SLOW_RATE };
    double rate, peer;
    size_t r;

    for (r = r0; r < r1; r++) {
        add(s, JOBS, str(t, r, PR_CLUSTER), str(t, r, PR_JOB));
        if (cp_fleet_cell_int(t, r, PR_ROSE) > 0)
            add(s, ERRORS, str(t, r, PR_CLUSTER), str(t, r, PR_JOB));
        rate = cp_fleet_cell_num(t, r, PR_RATE);
        peer = cp_fleet_cell_num(t, r, PR_PEER);
        if (isfinite(rate) && isfinite(peer) &&
            rate < RULE(PORT_BAD)->share * peer)
            add(s, SLOW_RATE, str(t, r, PR_CLUSTER), str(t, r, PR_JOB));
        p->rate_Gbps = rate;
        p->peer_rate_Gbps = peer;
        p->state = cp_fleet_cell(t, r, PR_STATE);
        p->last_seen = cp_fleet_cell(t, r, PR_END);
    }
    p->jobs = distinct(s->k[JOBS], s->n[JOBS]);
    p->jobs_errors = distinct(s->k[ERRORS], s->n[ERRORS]);
    p->jobs_slow_rate = distinct(s->k[SLOW_RATE], s->n[SLOW_RATE]);
    if (p->jobs_errors >= RULE(PORT_BAD)->min_jobs ||
        p->jobs_slow_rate >= RULE(PORT_BAD)->min_jobs)
        p->verdict = CP_FLEET_BAD;
    else if (p->jobs_errors >= RULE(PORT_SUSPECT)->min_jobs ||
             p->jobs_slow_rate >= RULE(PORT_SUSPECT)->min_jobs)
        p->verdict = CP_FLEET_SUSPECT;
    else
        p->verdict = CP_FLEET_OK;
}

/* By node, device, port: the order of lookups. */
static int cmp_port_key(const void *x, const void *y)
{
    const struct cp_fleet_port *p = x, *q = y;
    int c = strcmp(p->node, q->node);

    if (!c)
        c = strcmp(p->device, q->device);
    return c ? c : (p->port > q->port) - (p->port < q->port);
}

static int cmp_port(const void *x, const void *y)
{
    const struct cp_fleet_port *p = x, *q = y;
    long long a = p->jobs_errors + p->jobs_slow_rate;
    long long b = q->jobs_errors + q->jobs_slow_rate;

    if (p->verdict != q->verdict)
        return p->verdict < q->verdict ? -1 : 1;
    if (a != b)
        return a > b ? -1 : 1;
    return cmp_port_key(p, q);
}

/* Each port's counters (summed over its steps), from counter_rows. */
static int attach_counters(struct cp_fleet_view *v, struct cp_error *err)
{
    const struct cp_fleet_table *t = &v->counter_rows;
    struct cp_fleet_port key, *p;
    size_t r, end, k;

    for (r = 0; r < t->rows; r = end) {
        end = group_end(t, r, 3);
        key.node = str(t, r, CR_NODE);
        key.device = str(t, r, CR_DEVICE);
        key.port = cp_fleet_cell_int(t, r, CR_PORT);
        p = bsearch(&key, v->ports, v->nports, sizeof *v->ports,
                    cmp_port_key);
        if (!p)
            continue;
        p->counters = calloc(end - r, sizeof *p->counters);
        if (!p->counters)
            return cp_errorf(err, "fleet: out of memory judging the ports");
        for (k = r; k < end; k++) {
            p->counters[p->ncounters].name = str(t, k, CR_COUNTER);
            p->counters[p->ncounters++].increase =
                cp_fleet_cell_num(t, k, CR_SUM);
        }
    }
    return 0;
}

/* The first of the ports (sorted by node, device, port) on node, and in
 * *n how many there are. */
static const struct cp_fleet_port *ports_of(const struct cp_fleet_view *v,
                                            const char *node, size_t *n)
{
    size_t lo = 0, hi = v->nports;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (strcmp(v->ports[mid].node, node) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (hi = lo; hi < v->nports && strcmp(v->ports[hi].node, node) == 0; hi++)
        ;
    *n = hi - lo;
    return v->ports + lo;
}

/* Each link's ports: those of either end, as last seen (the ports sorted
 * by node). */
static int attach_link_ports(struct cp_fleet_view *v, struct cp_error *err)
{
    const struct cp_fleet_port *end[2];
    struct cp_fleet_link *l;
    size_t i, k, e, n[2];

    for (i = 0; i < v->nlinks; i++) {
        l = &v->links[i];
        end[0] = ports_of(v, l->a, &n[0]);
        end[1] = ports_of(v, l->b, &n[1]);
        if (n[0] + n[1] == 0)
            continue;
        l->ports = calloc(n[0] + n[1], sizeof *l->ports);
        if (!l->ports)
            return cp_errorf(err, "fleet: out of memory judging the links");
        for (e = 0; e < 2; e++)
            for (k = 0; k < n[e]; k++) {
                l->ports[l->nports].node = end[e][k].node;
                l->ports[l->nports].device = end[e][k].device;
                l->ports[l->nports].port = end[e][k].port;
                l->ports[l->nports++].rate_Gbps = end[e][k].rate_Gbps;
            }
    }
    return 0;
}

static int judge_ports(struct cp_fleet_db *db, const char *since,
                       struct cp_fleet_view *v, struct cp_error *err)
{
    struct cp_fleet_table *t = &v->port_rows;
    struct scratch s = {{NULL}, {0}, NULL, 0};
    struct cp_fleet_port *p;
    size_t r, end, n = 0;
    int rc = -1;

    if (cp_fleet_table_query(db,
                             "SELECT x.node, x.device, x.port, s.cluster, "
                             "s.job_id, s.end_time, x.rate_gbps, "
                             "x.peer_rate_gbps, x.counters_rose, x.state "
                             "FROM step_ports x" STEP_JOIN
                             "ORDER BY x.node, x.device, x.port, "
                             "s.end_time, s.cluster, s.job_id",
                             1, &since, PR_COLS, t, err) < 0 ||
        cp_fleet_table_query(db,
                             "SELECT x.node, x.device, x.port, x.counter, "
                             "SUM(x.increase) FROM step_port_counters x"
                             STEP_JOIN "GROUP BY x.node, x.device, x.port, "
                             "x.counter ORDER BY x.node, x.device, x.port, "
                             "x.counter",
                             1, &since, CR_COLS, &v->counter_rows, err) < 0)
        return -1;
    v->ports = calloc(t->rows ? t->rows : 1, sizeof *v->ports);
    if (!v->ports)
        return cp_errorf(err, "fleet: out of memory judging the ports");
    for (r = 0; r < t->rows; r = end) {
        p = &v->ports[n++];
        end = group_end(t, r, 3);
        p->node = str(t, r, PR_NODE);
        p->device = str(t, r, PR_DEVICE);
        p->port = cp_fleet_cell_int(t, r, PR_PORT);
        if (scratch_size(&s, end - r) < 0) {
            cp_errorf(err, "fleet: out of memory judging the ports");
            goto out;
        }
        judge_port(t, p, r, end, &s);
    }
    v->nports = n;
    qsort(v->ports, n, sizeof *v->ports, cmp_port_key);
    if (attach_counters(v, err) < 0 || attach_link_ports(v, err) < 0)
        goto out;
    qsort(v->ports, n, sizeof *v->ports, cmp_port);
    rc = 0;
out:
    scratch_free(&s);
    return rc;
}

/* ---- the whole view ----------------------------------------------------- */

static int take_summary(void *ctx, int ncols, const char *const *values,
                        struct cp_error *err)
{
    struct cp_fleet_summary *s = ctx;

    if (ncols < 3)
        return cp_errorf(err, "fleet database: a short summary row");
    s->steps = values[0] ? atoll(values[0]) : 0;
    s->jobs = values[1] ? atoll(values[1]) : 0;
    s->users = values[2] ? atoll(values[2]) : 0;
    return 0;
}

static void count_verdicts(struct cp_fleet_view *v)
{
    struct cp_fleet_summary *s = &v->summary;
    size_t i;

    s->nodes = (long long)v->nnodes;
    s->pairs = (long long)v->nlinks;
    for (i = 0; i < v->nlinks; i++) {
        s->bad_links += v->links[i].verdict == CP_FLEET_BAD;
        s->suspect_links += v->links[i].verdict == CP_FLEET_SUSPECT;
        s->no_evidence_links += v->links[i].verdict == CP_FLEET_NO_EVIDENCE;
    }
    for (i = 0; i < v->nnodes; i++) {
        s->bad_nodes += v->nodes[i].verdict == CP_FLEET_BAD;
        s->suspect_nodes += v->nodes[i].verdict == CP_FLEET_SUSPECT;
    }
    for (i = 0; i < v->nports; i++) {
        s->bad_ports += v->ports[i].verdict == CP_FLEET_BAD;
        s->suspect_ports += v->ports[i].verdict == CP_FLEET_SUSPECT;
    }
}

int cp_fleet_judge(struct cp_fleet_db *db, double since, double now,
                   struct cp_fleet_view *v, struct cp_error *err)
{
    const char *from;

    cp_fleet_time_format(now, v->generated);
    v->since[0] = '\0';
    if (isfinite(since))
        cp_fleet_time_format(since, v->since);
    snprintf(v->db, sizeof v->db, "%s", cp_fleet_db_name(db));
    /* every ISO time sorts at or after "": all of them */
    from = v->since;
    if (cp_fleet_db_query(db,
                          "SELECT COUNT(*), COUNT(DISTINCT cluster || '/' || "
                          "job_id), COUNT(DISTINCT user_name) FROM steps "
                          "WHERE end_time >= ?",
                          1, &from, take_summary, &v->summary, err) < 0 ||
        judge_links(db, from, v, err) < 0 || judge_nodes(db, from, v, err) < 0 ||
        judge_ports(db, from, v, err) < 0)
        return -1;
    count_verdicts(v);
    return 0;
}

void cp_fleet_view_free(struct cp_fleet_view *v)
{
    size_t i;

    for (i = 0; i < v->nlinks; i++)
        free(v->links[i].ports);
    for (i = 0; i < v->nports; i++)
        free(v->ports[i].counters);
    free(v->links);
    free(v->nodes);
    free(v->ports);
    cp_fleet_table_free(&v->link_rows);
    cp_fleet_table_free(&v->node_rows);
    cp_fleet_table_free(&v->port_rows);
    cp_fleet_table_free(&v->counter_rows);
    memset(v, 0, sizeof *v);
}
