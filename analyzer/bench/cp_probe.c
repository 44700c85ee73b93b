/* cp_probe.c - collprof probe: node pairs measured in rounds of disjoint
 * pairs (see cp_probe.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cp_path.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"
#include "cp_probe.h"
#include "cp_stats.h"
#include "cp_units.h"

/* ---- the schedule ---------------------------------------------------------- */

/* The circle method: with n = nodes rounded up to even, node n - 1 stays
 * put and meets node r in round r; the others pair as (r + i, r - i) modulo
 * n - 1, so the partner of me is 2r - me.  n - 1 is odd, so for two nodes
 * there is exactly one r with 2r = their sum: every pair meets once.  For
 * an odd count, node n - 1 does not exist and its partner sits out. */
unsigned cp_probe_rounds(unsigned nodes)
{
    if (nodes < 2)
        return 0;
    return nodes % 2 ? nodes : nodes - 1;
}

int cp_probe_partner(unsigned nodes, unsigned round, unsigned me)
{
    unsigned n = nodes + nodes % 2, m, partner;

    if (nodes < 2 || nodes > 1u << 30 || me >= nodes ||
        round >= cp_probe_rounds(nodes))
        return -1;
    m = n - 1;
    if (me == m)
        partner = round;
    else if (me == round)
        partner = m;
    else
        partner = (unsigned)((2ull * round + m - me) % m);
    return partner < nodes ? (int)partner : -1;
}

/* ---- one pair ---------------------------------------------------------------- */

enum { ORDER_END = 0, ORDER_PINGPONG = 1 };

/* What the driver tells its follower: ping-pong count messages of bytes,
 * or end. */
struct order {
    uint64_t what, bytes, count, spare;
};

struct probe {
    const struct cp_probe_opts *o;
    struct cp_ncclrt rt;
    struct cp_error *err;
    char *send, *recv;     /* max_bytes each, host or device */
    struct order *order;   /* one order, host or device */
    double *times;         /* host: the timings of one measurement */
    size_t ntimes;
};

static int send_to(struct probe *p, const void *buf, uint64_t bytes, int peer)
{
    return cp_ncclrt_nccl_ok(&p->rt,
                             p->rt.nccl.ncclSend(buf, (size_t)bytes, ncclUint8,
                                                 peer, p->rt.comm,
                                                 p->rt.stream),
                             "ncclSend");
}

static int recv_from(struct probe *p, void *buf, uint64_t bytes, int peer)
{
    return cp_ncclrt_nccl_ok(&p->rt,
                             p->rt.nccl.ncclRecv(buf, (size_t)bytes, ncclUint8,
                                                 peer, p->rt.comm,
                                                 p->rt.stream),
                             "ncclRecv");
}

/* The follower: do what the driver says until it says end. */
static int follow(struct probe *p, int driver)
{
    struct order ord;

    for (;;) {
        if (recv_from(p, p->order, sizeof ord, driver) < 0 ||
            cp_ncclrt_sync(&p->rt) < 0 ||
            cp_ncclrt_from_buffer(&p->rt, &ord, p->order, sizeof ord) < 0)
            return -1;
        if (ord.what == ORDER_END)
            return 0;
        if (ord.what != ORDER_PINGPONG || ord.bytes > p->o->max_bytes ||
            ord.count > 1000000) {
            return cp_errorf(p->err,
                             "rank %d: rank %d sent an order this probe does not "
                             "know (is it another collprof version?)",
                             p->rt.me, driver);
        }
        for (uint64_t i = 0; i < ord.count; i++)
            if (recv_from(p, p->recv, ord.bytes, driver) < 0 ||
                send_to(p, p->send, ord.bytes, driver) < 0 ||
                cp_ncclrt_sync(&p->rt) < 0)
                return -1;
    }
}

static int give_order(struct probe *p, int peer, uint64_t what,
                      uint64_t bytes, uint64_t count)
{
    struct order ord = {.what = what, .bytes = bytes, .count = count};

    return cp_ncclrt_to_buffer(&p->rt, p->order, &ord, sizeof ord) < 0 ||
                   send_to(p, p->order, sizeof ord, peer) < 0 ||
                   cp_ncclrt_sync(&p->rt) < 0
               ? -1
               : 0;
}

/* count timed round trips of bytes with the follower peer: their times in
 * p->times[0..count). */
static int pingpong(struct probe *p, int peer, uint64_t bytes, unsigned count)
{
    if (count > p->ntimes) {
        double *t = realloc(p->times, count * sizeof *t);
        if (!t) {
            return cp_errorf(p->err, "rank %d: out of memory",
                             p->rt.me);
        }
        p->times = t;
        p->ntimes = count;
    }
    if (give_order(p, peer, ORDER_PINGPONG, bytes, count) < 0)
        return -1;
    for (unsigned i = 0; i < count; i++) {
        double t0 = cp_ncclrt_now_s();
        if (send_to(p, p->send, bytes, peer) < 0 ||
            recv_from(p, p->recv, bytes, peer) < 0 ||
            cp_ncclrt_sync(&p->rt) < 0)
            return -1;
        p->times[i] = cp_ncclrt_now_s() - t0;
    }
    return 0;
}

/* The time of the bandwidth term of one transfer: the half round trip less
 * the latency, but never less than half of it (a latency measured a little
 * high must not make a fast link look infinitely fast). */
static double wire_time(double round_trip_s, double latency_s)
{
    double half = round_trip_s / 2, wire = half - latency_s;
    return wire > half / 2 ? wire : half / 2;
}

#define MIN_BYTES ((uint64_t)64 << 10)

static uint64_t clamp_bytes(double bytes, uint64_t max_bytes)
{
    uint64_t lo = MIN_BYTES < max_bytes ? MIN_BYTES : max_bytes, b;

    if (!(bytes < (double)max_bytes))
        return max_bytes;
    b = bytes > (double)lo ? (uint64_t)bytes : lo;
    b = (b + 4095) / 4096 * 4096; /* whole pages */
    return b < max_bytes ? b : max_bytes;
}

/* The figures of a pair exchanged at the end, in this order. */
enum { FIG_LATENCY, FIG_BANDWIDTH, FIG_BYTES, FIG_TRANSFERS, FIG_ROUND,
       FIG_COUNT };

/* The driver's side of a pair: out[FIG_LATENCY .. FIG_TRANSFERS]. */
static int drive(struct probe *p, int peer, double *out)
{
    const struct cp_probe_opts *o = p->o;
    double latency, one_way = o->pair_time_s / (2.0 * o->iters), bw = 0;
    uint64_t bytes = clamp_bytes(0, o->max_bytes);
    unsigned step;

    if (pingpong(p, peer, 8, 2) < 0 || /* connections up, warm */
        pingpong(p, peer, 8, o->latency_iters) < 0)
        return -1;
    for (unsigned i = 0; i < o->latency_iters; i++)
        p->times[i] /= 2;
    latency = cp_stats_median(p->times, o->latency_iters);
    /* Grow the message until one transfer takes half the time aimed at. */
    for (step = 0; step < 12; step++) {
        double wire;
        if (pingpong(p, peer, bytes, 1) < 0)
            return -1;
        wire = wire_time(p->times[0], latency);
        bw = (double)bytes / wire;
        if (wire >= one_way / 2 || bytes >= o->max_bytes)
            break;
        bytes = clamp_bytes(fmin(bw * one_way, 64.0 * (double)bytes),
                            o->max_bytes);
    }
    bytes = clamp_bytes(bw * one_way, o->max_bytes);
    if (pingpong(p, peer, bytes, o->iters) < 0 ||
        give_order(p, peer, ORDER_END, 0, 0) < 0)
        return -1;
    for (unsigned i = 0; i < o->iters; i++)
        p->times[i] = (double)bytes / wire_time(p->times[i], latency);
    out[FIG_LATENCY] = latency;
    out[FIG_BANDWIDTH] = cp_stats_median(p->times, o->iters);
    out[FIG_BYTES] = (double)bytes;
    out[FIG_TRANSFERS] = o->iters;
    return 0;
}

/* ---- the run ------------------------------------------------------------------- */

/* A pair's measured figures from one measurement's v[FIG_...]. */
static void set_pair_figures(struct cp_probe_pair *q, const double *v)
{
    q->latency_s = v[FIG_LATENCY];
    q->bandwidth_Bps = v[FIG_BANDWIDTH];
    q->bytes = (uint64_t)v[FIG_BYTES];
    q->iters = (unsigned)v[FIG_TRANSFERS];
}

/* Measure each pair judged slow again, one pair at a time with the others
 * waiting: a busy host (or another job's burst) only ever slows a
 * transfer, so of two measurements the faster is the link's, and a pair
 * stays slow only if every measurement was.  At most nnodes pairs a pass.
 * vals is scratch of npairs * FIG_COUNT.  Returns how many pairs were
 * measured again (the same on every rank), or -1. */
static int confirm(struct probe *p, struct cp_probe_result *res, double *vals,
                   int me)
{
    unsigned k = res->nnodes;
    size_t i, n = 0;

    memset(vals, 0, res->npairs * FIG_COUNT * sizeof *vals);
    for (i = 0; i < res->npairs && n < k; i++) {
        const struct cp_probe_pair *q = &res->pairs[i];
        if (q->state != CP_PROBE_SLOW)
            continue;
        n++;
        if ((unsigned)me == q->a) {
            if (drive(p, (int)q->b, vals + FIG_COUNT * i) < 0)
                return -1;
        } else if ((unsigned)me == q->b && follow(p, (int)q->a) < 0) {
            return -1;
        }
        if (cp_ncclrt_barrier(&p->rt) < 0)
            return -1;
    }
    if (n == 0)
        return 0;
    if (cp_ncclrt_sum(&p->rt, vals, res->npairs * FIG_COUNT) < 0)
        return -1;
    for (i = 0; i < res->npairs; i++) {
        struct cp_probe_pair *q = &res->pairs[i];
        const double *v = vals + FIG_COUNT * i;
        if (!(v[FIG_TRANSFERS] > 0))
            continue;
        q->measurements++;
        if (v[FIG_BANDWIDTH] > q->bandwidth_Bps)
            set_pair_figures(q, v);
    }
    return (int)n;
}

void cp_probe_defaults(struct cp_probe_opts *o)
{
    memset(o, 0, sizeof *o);
    o->rt.memory = CP_NCCLRT_MEMORY_AUTO;
    o->rt.id_timeout_s = 120;
    o->rt.id_tag = "probe";
    o->max_bytes = (uint64_t)4 << 20;
    o->iters = 5;
    o->latency_iters = 20;
    o->pair_time_s = 0.25;
}

/* Index of pair (a, b), a < b, among the pairs of k nodes in order. */
static size_t pair_index(unsigned k, unsigned a, unsigned b)
{
    return (size_t)a * (2 * (size_t)k - a - 1) / 2 + (b - a - 1);
}

/* The node names, and no two ranks on one node. */
static int learn_nodes(struct probe *p, const struct cp_ncclrt_who *who,
                       struct cp_probe_result *res)
{
    unsigned k = res->nnodes;

    res->nodes = calloc(k, sizeof *res->nodes);
    if (!res->nodes) {
        return cp_errorf(p->err, "rank %d: out of memory", who->rank);
    }
    if (cp_ncclrt_gather_names(&p->rt, who->node, (char *)res->nodes) < 0)
        return -1;
    for (unsigned a = 0; a < k; a++)
        for (unsigned b = a + 1; b < k; b++)
            if (strcmp(res->nodes[a], res->nodes[b]) == 0) {
                return cp_errorf(p->err,
                                 "ranks %u and %u are both on node %s: start "
                                 "one task per node (srun -N K "
                                 "--ntasks-per-node=1)",
                                 a, b, res->nodes[a]);
            }
    return 0;
}

static int check_options(const struct cp_probe_opts *o, struct cp_error *err)
{
    if (o->iters < 1 || o->latency_iters < 1 || o->max_bytes < 8 ||
        !(o->pair_time_s > 0)) {
        return cp_errorf(err, "iterations, size or pair time not set");
    }
    return 0;
}

/* One task per node, 2 to 4096 of them. */
static int check_task_count(int nranks, struct cp_error *err)
{
    if (nranks < 2) {
        return cp_errorf(err,
                         "%d task: the probe measures node pairs, start one task "
                         "on each of 2 or more nodes (srun -N K "
                         "--ntasks-per-node=1 collprof probe)",
                         nranks);
    }
    if (nranks > 4096) {
        return cp_errorf(err,
                         "%d tasks: the probe measures up to 4096 nodes",
                         nranks);
    }
    return 0;
}

/* The size of the run and the settings it measures with. */
static void describe_run(struct cp_probe_result *res,
                         const struct cp_probe_opts *o,
                         const struct cp_ncclrt_who *who)
{
    unsigned k = (unsigned)who->nranks;

    res->rank = who->rank;
    res->nnodes = k;
    res->npairs = (size_t)k * (k - 1) / 2;
    res->rounds = cp_probe_rounds(k);
    res->max_bytes = o->max_bytes;
    res->iters = o->iters;
    res->latency_iters = o->latency_iters;
    res->pair_time_s = o->pair_time_s;
}

/* The send and receive buffers and the order, on the device or the host. */
static int allocate_buffers(struct probe *p)
{
    return cp_ncclrt_alloc(&p->rt, (size_t)p->o->max_bytes, p->rt.device,
                           (void **)&p->send) < 0 ||
                   cp_ncclrt_alloc(&p->rt, (size_t)p->o->max_bytes,
                                   p->rt.device, (void **)&p->recv) < 0 ||
                   cp_ncclrt_alloc(&p->rt, sizeof(struct order), p->rt.device,
                                   (void **)&p->order) < 0
               ? -1
               : 0;
}

/* Every round of the schedule: this rank drives its pair (its figures into
 * vals) or follows, then all wait for the round's end. */
static int measure_rounds(struct probe *p, const struct cp_probe_result *res,
                          double *vals, int me)
{
    const struct cp_probe_opts *o = p->o;
    unsigned k = res->nnodes;

    for (unsigned r = 0; r < res->rounds; r++) {
        int peer = cp_probe_partner(k, r, (unsigned)me);
        if (peer > me) {
            double *fig = vals + FIG_COUNT * pair_index(k, (unsigned)me,
                                                        (unsigned)peer);
            if (drive(p, peer, fig) < 0)
                return -1;
            fig[FIG_ROUND] = r;
        } else if (peer >= 0 && follow(p, peer) < 0) {
            return -1;
        }
        /* each round's pairs alone on their nodes */
        if (cp_ncclrt_barrier(&p->rt) < 0)
            return -1;
        if (me == 0 && o->on_round)
            o->on_round(o->ctx, r, res->rounds);
    }
    return 0;
}

/* Every pair's figures, from its driver, to every rank's res->pairs. */
static int share_figures(struct probe *p, struct cp_probe_result *res,
                         double *vals)
{
    unsigned k = res->nnodes;

    if (cp_ncclrt_sum(&p->rt, vals, res->npairs * FIG_COUNT) < 0)
        return -1;
    for (unsigned a = 0; a < k; a++)
        for (unsigned b = a + 1; b < k; b++) {
            struct cp_probe_pair *q = &res->pairs[pair_index(k, a, b)];
            const double *v = vals + FIG_COUNT * pair_index(k, a, b);
            q->a = a;
            q->b = b;
            set_pair_figures(q, v);
            q->round = (unsigned)v[FIG_ROUND];
            q->measurements = 1;
        }
    return 0;
}

/* Judge the pairs, then measure the slow ones again and judge again, up to
 * CP_PROBE_CONFIRM_PASSES times or until none is measured again. */
static int judge_and_confirm(struct probe *p, struct cp_probe_result *res,
                             double *vals, int me)
{
    cp_probe_judge(res, 0, 0.7);
    for (unsigned pass = 0; pass < CP_PROBE_CONFIRM_PASSES; pass++) {
        int again = confirm(p, res, vals, me);
        if (again < 0)
            return -1;
        if (again == 0)
            break;
        cp_probe_judge(res, 0, 0.7);
    }
    return 0;
}

int cp_probe_run(const struct cp_probe_opts *o, struct cp_probe_result *res,
                 struct cp_error *err)
{
    struct probe p;
    struct cp_ncclrt_who who;
    struct cp_ncclrt_opts ro = o->rt;
    double *vals = NULL, t0;
    int rc = -1;

    memset(&p, 0, sizeof p);
    memset(res, 0, sizeof *res);
    p.o = o;
    p.err = err;
    if (check_options(o, err) < 0 || cp_ncclrt_who(&who, err) < 0 ||
        check_task_count(who.nranks, err) < 0)
        goto out;
    describe_run(res, o, &who);
    ro.id_tag = "probe";
    if (cp_ncclrt_open(&p.rt, &ro, &who, err) < 0)
        goto out;
    res->device = p.rt.device;
    res->nccl_version = p.rt.nccl_version;
    snprintf(res->nccl_path, sizeof res->nccl_path, "%s", p.rt.nccl_path);
    if (learn_nodes(&p, &who, res) < 0)
        goto out;
    res->pairs = calloc(res->npairs, sizeof *res->pairs);
    vals = calloc(res->npairs * FIG_COUNT, sizeof *vals);
    if (!res->pairs || !vals) {
        cp_error_set(err, NULL, -1, "rank %d: out of memory", who.rank);
        goto out;
    }
    if (allocate_buffers(&p) < 0)
        goto out;
    if (who.rank == 0 && o->on_start)
        o->on_start(o->ctx, res->nnodes, res->rounds, p.rt.device);

    t0 = cp_ncclrt_now_s();
    if (measure_rounds(&p, res, vals, who.rank) < 0 ||
        share_figures(&p, res, vals) < 0 ||
        judge_and_confirm(&p, res, vals, who.rank) < 0)
        goto out;
    res->wall_s = cp_ncclrt_now_s() - t0;
    rc = 0;
out:
    cp_ncclrt_close(&p.rt, rc == 0);
    cp_ncclrt_free(&p.rt, p.send, p.rt.device);
    cp_ncclrt_free(&p.rt, p.recv, p.rt.device);
    cp_ncclrt_free(&p.rt, p.order, p.rt.device);
    free(p.times);
    free(vals);
    return rc;
}

void cp_probe_result_clear(struct cp_probe_result *res)
{
    if (!res)
        return;
    free(res->nodes);
    free(res->pairs);
    res->nodes = NULL;
    res->pairs = NULL;
    res->npairs = 0;
    res->nnodes = 0;
}

/* ---- the judgement --------------------------------------------------------------- */

void cp_probe_judge(struct cp_probe_result *res, double profile_Bps,
                    double slow_threshold)
{
    double *v = malloc((res->npairs ? res->npairs : 1) * sizeof *v);
    size_t i, n = 0;

    res->slow_threshold = slow_threshold > 0 ? slow_threshold : 0.7;
    res->critical_threshold = 0.25;
    res->median_latency_s = NAN;
    res->reference_Bps = NAN;
    res->reference_source = profile_Bps > 0 ? "profile" : "median";
    if (v) {
        for (i = 0; i < res->npairs; i++)
            if (res->pairs[i].latency_s > 0)
                v[n++] = res->pairs[i].latency_s;
        res->median_latency_s = cp_stats_median(v, n);
        n = 0;
        for (i = 0; i < res->npairs; i++)
            if (res->pairs[i].bandwidth_Bps > 0)
                v[n++] = res->pairs[i].bandwidth_Bps;
        res->reference_Bps = cp_stats_median(v, n);
        free(v);
    }
    if (profile_Bps > 0)
        res->reference_Bps = profile_Bps;
    for (i = 0; i < res->npairs; i++) {
        struct cp_probe_pair *q = &res->pairs[i];
        q->efficiency = res->reference_Bps > 0 && q->bandwidth_Bps > 0
                            ? q->bandwidth_Bps / res->reference_Bps
                            : NAN;
        q->state = q->efficiency < res->slow_threshold ? CP_PROBE_SLOW
                                                       : CP_PROBE_OK;
    }
}

/* ---- the report ------------------------------------------------------------------ */

static json_t *pair_names(const struct cp_probe_result *res,
                          const struct cp_probe_pair *q)
{
    int bad = 0;
    json_t *two = json_array();
    bad |= add(two, json_string(res->nodes[q->a]));
    bad |= add(two, json_string(res->nodes[q->b]));
    return built(two, bad);
}

/* K x K of one figure of the pairs (which: 0 bandwidth, 1 efficiency,
 * 2 latency), null on the diagonal. */
static json_t *matrix(const struct cp_probe_result *res, int which)
{
    int bad = 0;
    json_t *m = json_array();
    unsigned k = res->nnodes;

    for (unsigned a = 0; a < k; a++) {
        json_t *row = json_array();
        for (unsigned b = 0; b < k; b++) {
            const struct cp_probe_pair *q;
            if (a == b) {
                bad |= add(row, json_null());
                continue;
            }
            q = &res->pairs[a < b ? pair_index(k, a, b) : pair_index(k, b, a)];
            bad |= add(row, jnum(which == 0   ? q->bandwidth_Bps
                                 : which == 1 ? q->efficiency
                                              : q->latency_s));
        }
        bad |= add(m, row);
    }
    return built(m, bad);
}

/* Pairs slowest first (by efficiency, then name order). */
static int by_efficiency(const void *x, const void *y)
{
    const struct cp_probe_pair *a = *(const struct cp_probe_pair *const *)x,
                               *b = *(const struct cp_probe_pair *const *)y;
    double ea = isfinite(a->efficiency) ? a->efficiency : -1,
           eb = isfinite(b->efficiency) ? b->efficiency : -1;
    if (ea != eb)
        return ea < eb ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static json_t *finding(const struct cp_probe_result *res,
                       const struct cp_probe_pair *q)
{
    int bad = 0;
    json_t *f = json_object(), *e = json_object();
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], t1[CP_UNITS_BUFSIZE],
        t2[CP_UNITS_BUFSIZE], *msg = NULL, link[2 * CP_NCCLRT_NODE_NAME + 2];
    int critical = q->efficiency <= res->critical_threshold;

    bad |= set(f, "kind", json_string(cp_kind_name(CP_KIND_SLOW_LINK)));
    bad |= set(f, "severity",
               json_string(cp_severity_name(critical ? CP_SEVERITY_CRITICAL
                                                     : CP_SEVERITY_WARNING)));
    bad |= set(f, "nodes", pair_names(res, q));
    bad |= set(f, "ranks", json_array());
    if (asprintf(&msg,
                 "The link between nodes %s and %s is slow: measured pair by "
                 "pair, it carries %s, %.0f%% of %s (%s); its latency is %s "
                 "against a median of %s.",
                 res->nodes[q->a], res->nodes[q->b],
                 cp_units_format_bandwidth(q->bandwidth_Bps, b1, sizeof b1),
                 100 * q->efficiency,
                 strcmp(res->reference_source, "profile") == 0
                     ? "the site profile's inter-node bandwidth"
                     : "the median of all pairs",
                 cp_units_format_bandwidth(res->reference_Bps, b2, sizeof b2),
                 cp_units_format_time(q->latency_s, t1, sizeof t1),
                 cp_units_format_time(res->median_latency_s, t2, sizeof t2)) <
        0) {
        msg = NULL;
        bad = -1;
    }
    bad |= set(f, "message", msg ? json_string(msg) : NULL);
    free(msg);
    snprintf(link, sizeof link, "%s-%s", res->nodes[q->a], res->nodes[q->b]);
    bad |= set(e, "link", json_string(link));
    bad |= set(e, "method", json_string("probe"));
    bad |= set(e, "bandwidth_Bps", jnum(q->bandwidth_Bps));
    bad |= set(e, "peer_bandwidth_Bps", jnum(res->reference_Bps));
    bad |= set(e, "reference_source", json_string(res->reference_source));
    bad |= set(e, "efficiency", jnum(q->efficiency));
    bad |=
        set(e, "slowdown", jnum(q->efficiency > 0 ? 1 / q->efficiency : NAN));
    bad |= set(e, "latency_s", jnum(q->latency_s));
    bad |= set(e, "peer_latency_s", jnum(res->median_latency_s));
    bad |= set(e, "bytes", json_integer((json_int_t)q->bytes));
    bad |= set(e, "transfers", json_integer(q->iters));
    bad |= set(f, "evidence", e);
    return built(f, bad);
}

json_t *cp_probe_to_json(const struct cp_probe_result *res)
{
    const struct cp_probe_pair **order = NULL;
    json_t *root = json_object(), *run = json_object(), *topo = json_object(),
           *nodes = json_array(), *th = json_object(), *pairs = json_array(),
           *findings = json_array();
    const char *job = getenv("SLURM_JOB_ID");
    int bad = 0;
    size_t i;

    order = malloc((res->npairs ? res->npairs : 1) * sizeof *order);
    if (!order)
        bad = -1;
    bad |= set(root, "schema", json_string("collprof.probe/1"));
    bad |= set(root, "generator", json_string("collprof " PACKAGE_VERSION));
    bad |= set(run, "job_id", json_string(job ? job : ""));
    bad |= set(run, "nodes", json_integer(res->nnodes));
    bad |= set(run, "pairs", json_integer((json_int_t)res->npairs));
    bad |= set(run, "rounds", json_integer(res->rounds));
    bad |= set(run, "wall_s", jnum(res->wall_s));
    bad |= set(run, "memory", json_string(res->device ? "device" : "host"));
    bad |= set(run, "nccl_version", json_integer(res->nccl_version));
    bad |= set(run, "nccl_path", json_string(res->nccl_path));
    bad |= set(run, "max_bytes", json_integer((json_int_t)res->max_bytes));
    bad |= set(run, "iters", json_integer(res->iters));
    bad |= set(run, "latency_iters", json_integer(res->latency_iters));
    bad |= set(run, "pair_time_s", jnum(res->pair_time_s));
    bad |= set(root, "run", run);

    for (i = 0; i < res->nnodes; i++)
        bad |= add(nodes, json_string(res->nodes[i]));
    bad |= set(topo, "nodes", nodes);
    bad |= set(topo, "reference_Bps", jnum(res->reference_Bps));
    bad |= set(topo, "reference_source", json_string(res->reference_source));
    bad |= set(topo, "median_latency_s", jnum(res->median_latency_s));
    bad |= set(th, "slow", jnum(res->slow_threshold));
    bad |= set(th, "critical", jnum(res->critical_threshold));
    bad |= set(topo, "thresholds", th);
    if (res->nnodes <= 1024) {
        bad |= set(topo, "bandwidth_Bps", matrix(res, 0));
        bad |= set(topo, "efficiency", matrix(res, 1));
        bad |= set(topo, "latency_s", matrix(res, 2));
    } else {
        bad |= set(topo, "bandwidth_Bps", json_null());
        bad |= set(topo, "efficiency", json_null());
        bad |= set(topo, "latency_s", json_null());
    }
    for (i = 0; order && i < res->npairs; i++)
        order[i] = &res->pairs[i];
    if (order)
        qsort(order, res->npairs, sizeof *order, by_efficiency);
    for (i = 0; order && i < res->npairs; i++) {
        const struct cp_probe_pair *q = order[i];
        json_t *o = json_object();
        bad |= set(o, "nodes", pair_names(res, q));
        bad |= set(o, "state",
                   json_string(q->state == CP_PROBE_SLOW ? "slow" : "ok"));
        bad |= set(o, "bandwidth_Bps", jnum(q->bandwidth_Bps));
        bad |= set(o, "efficiency", jnum(q->efficiency));
        bad |= set(o, "latency_s", jnum(q->latency_s));
        bad |= set(o, "bytes", json_integer((json_int_t)q->bytes));
        bad |= set(o, "transfers", json_integer(q->iters));
        bad |= set(o, "round", json_integer(q->round));
        bad |= set(o, "measurements", json_integer(q->measurements));
        bad |= add(pairs, o);
        /* findings in the same order: most severe (slowest) first */
        if (q->state == CP_PROBE_SLOW)
            bad |= add(findings, finding(res, q));
    }
    bad |= set(topo, "pairs", pairs);
    bad |= set(root, "topology", topo);
    bad |= set(root, "findings", findings);
    free(order);
    return built(root, bad);
}

int cp_probe_write_json(const struct cp_probe_result *res, const char *path,
                        struct cp_error *err)
{
    json_t *root = cp_probe_to_json(res);
    struct cp_path_out out;
    int rc = -1;

    if (!root) {
        return cp_errorf_at(err, path, -1, "out of memory");
    }
    if (cp_path_create(&out, path, CP_PATH_MODE, err) < 0)
        goto out;
    if (json_dumpf(root, out.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                    JSON_REAL_PRECISION(10)) < 0 ||
        fputc('\n', out.f) == EOF) {
        cp_path_discard(&out);
        cp_error_set(err, path, -1, "cannot write %s", path);
        goto out;
    }
    rc = cp_path_install(&out, err);
out:
    json_decref(root);
    return rc;
}
