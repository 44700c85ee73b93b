/* probe_unit.c - collprof probe without NCCL: the round schedule (every
 * pair exactly once, each round's pairs disjoint, K - 1 rounds for an even
 * K and K for an odd one, each node sitting out one round then), the rule
 * that judges pairs (against the median, or a profile), and the report's
 * keys and findings; the host buffers it sends from come zeroed. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cp_ncclrt.h"
#include "cp_probe.h"
#include "tap.h"

/* Every property of the schedule of k nodes; 1 when all hold. */
static int schedule_holds(unsigned k, char *why, size_t len)
{
    unsigned rounds = cp_probe_rounds(k), *met = calloc((size_t)k * k,
                                                        sizeof *met),
             *byes = calloc(k, sizeof *byes);
    int good = 0;

    if (!met || !byes) {
        snprintf(why, len, "out of memory");
        goto out;
    }
    if (rounds != (k % 2 ? k : k - 1)) {
        snprintf(why, len, "%u rounds", rounds);
        goto out;
    }
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned me = 0; me < k; me++) {
            int q = cp_probe_partner(k, r, me);
            if (q < 0) {
                byes[me]++;
                continue;
            }
            if ((unsigned)q == me || (unsigned)q >= k) {
                snprintf(why, len, "round %u: node %u meets %d", r, me, q);
                goto out;
            }
            /* disjoint: the partner's partner is me, so no node is in two
             * pairs of one round */
            if (cp_probe_partner(k, r, (unsigned)q) != (int)me) {
                snprintf(why, len, "round %u: %u meets %d, who meets %d", r,
                         me, q, cp_probe_partner(k, r, (unsigned)q));
                goto out;
            }
            met[(size_t)me * k + (unsigned)q]++;
        }
    for (unsigned a = 0; a < k; a++) {
        if (byes[a] != (k % 2 ? 1u : 0u)) {
            snprintf(why, len, "node %u sits out %u rounds", a, byes[a]);
            goto out;
        }
        for (unsigned b = 0; b < k; b++)
            if (a != b && met[(size_t)a * k + b] != 1) {
                snprintf(why, len, "pair %u-%u meets %u times", a, b,
                         met[(size_t)a * k + b]);
                goto out;
            }
    }
    good = 1;
out:
    free(met);
    free(byes);
    return good;
}

static void test_schedule(void)
{
    static const unsigned big[] = {127, 128, 1000, 1001};
    char why[128] = "";
    unsigned k, bad = 0;

    is_int(cp_probe_rounds(0), 0, "no rounds for 0 nodes");
    is_int(cp_probe_rounds(1), 0, "no rounds for 1 node");
    is_int(cp_probe_rounds(2), 1, "2 nodes: 1 round");
    is_int(cp_probe_rounds(4), 3, "4 nodes: 3 rounds");
    is_int(cp_probe_rounds(5), 5, "5 nodes: 5 rounds");
    is_int(cp_probe_partner(1, 0, 0), -1, "1 node: no partner");
    is_int(cp_probe_partner(4, 3, 0), -1, "round out of range: -1");
    is_int(cp_probe_partner(4, 0, 4), -1, "node out of range: -1");
    for (k = 2; k <= 64; k++)
        if (!schedule_holds(k, why, sizeof why)) {
            if (!bad)
                diag("  %u nodes: %s", k, why);
            bad++;
        }
    ok(bad == 0, "2..64 nodes: every pair once, rounds disjoint, byes "
                 "only for an odd count (%u counts wrong)",
       bad);
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        ok(schedule_holds(big[i], why, sizeof why), "%u nodes: %s", big[i],
           schedule_holds(big[i], why, sizeof why) ? "the same" : why);
}

/* A result of k nodes, every pair at bw except those listed. */
static void make_result(struct cp_probe_result *res, unsigned k, double bw)
{
    size_t i = 0;

    memset(res, 0, sizeof *res);
    res->nnodes = k;
    res->nodes = calloc(k, sizeof *res->nodes);
    res->npairs = (size_t)k * (k - 1) / 2;
    res->pairs = calloc(res->npairs, sizeof *res->pairs);
    for (unsigned a = 0; a < k; a++)
        snprintf(res->nodes[a], sizeof res->nodes[a], "node%u", a + 1);
    for (unsigned a = 0; a < k; a++)
        for (unsigned b = a + 1; b < k; b++, i++) {
            res->pairs[i].a = a;
            res->pairs[i].b = b;
            res->pairs[i].latency_s = 20e-6;
            /* a little spread, as measured */
            res->pairs[i].bandwidth_Bps = bw * (0.93 + 0.02 * (double)(i % 5));
            res->pairs[i].bytes = 1 << 20;
            res->pairs[i].iters = 5;
        }
    res->rounds = cp_probe_rounds(k);
    res->iters = 5;
    res->latency_iters = 20;
    res->max_bytes = 4 << 20;
    res->pair_time_s = 0.25;
    snprintf(res->nccl_path, sizeof res->nccl_path, "libnccl.so.2");
}

static struct cp_probe_pair *pair_of(struct cp_probe_result *res, unsigned a,
                                     unsigned b)
{
    for (size_t i = 0; i < res->npairs; i++)
        if (res->pairs[i].a == a && res->pairs[i].b == b)
            return &res->pairs[i];
    return NULL;
}

static unsigned slow_count(const struct cp_probe_result *res)
{
    unsigned n = 0;
    for (size_t i = 0; i < res->npairs; i++)
        n += res->pairs[i].state == CP_PROBE_SLOW;
    return n;
}

static void test_judge(void)
{
    struct cp_probe_result res;
    struct cp_probe_pair *q;

    make_result(&res, 6, 25e6);
    cp_probe_judge(&res, 0, 0.7);
    is_int(slow_count(&res), 0, "healthy, 6 nodes: no pair slow");
    ok(res.reference_Bps > 23e6 && res.reference_Bps < 25e6,
       "healthy: the reference is the median (%g)", res.reference_Bps);
    is_str(res.reference_source, "median", "... named median");

    q = pair_of(&res, 2, 4);
    q->bandwidth_Bps = 25e6 / 4;
    cp_probe_judge(&res, 0, 0.7);
    is_int(slow_count(&res), 1, "one link at 1/4: one pair slow");
    ok(q->state == CP_PROBE_SLOW && q->efficiency < 0.3,
       "... that one (efficiency %.2f)", q->efficiency);
    q->bandwidth_Bps = 25e6 * 0.75;
    cp_probe_judge(&res, 0, 0.7);
    is_int(slow_count(&res), 0, "a link at 0.75: not slow (threshold 0.7)");
    cp_probe_judge(&res, 0, 0.8);
    is_int(slow_count(&res), 1, "... slow with --slow-below 0.8");

    /* A slow node: all its links slow, still fewer than half the pairs. */
    cp_probe_judge(&res, 0, 0.7);
    for (unsigned b = 1; b < 6; b++)
        pair_of(&res, 0, b)->bandwidth_Bps = 25e6 / 3;
    q->bandwidth_Bps = 25e6;
    cp_probe_judge(&res, 0, 0.7);
    is_int(slow_count(&res), 5, "node1 slow: its 5 links slow, no other");

    /* Against a profile: a uniformly slow network. */
    cp_probe_result_clear(&res);
    make_result(&res, 4, 10e6);
    cp_probe_judge(&res, 0, 0.7);
    is_int(slow_count(&res), 0, "all at 10 MB/s, median: nothing slow");
    cp_probe_judge(&res, 25e6, 0.7);
    is_int(slow_count(&res), 6, "... against a 25 MB/s profile: all slow");
    is_str(res.reference_source, "profile", "... reference named profile");
    cp_probe_result_clear(&res);
    cp_probe_result_clear(NULL);
}

static void test_json(void)
{
    struct cp_probe_result res;
    json_t *j, *f, *pairs, *nodes;
    size_t i, nslow = 0;
    int shape = 1;

    make_result(&res, 5, 25e6);
    pair_of(&res, 1, 3)->bandwidth_Bps = 25e6 / 5;
    cp_probe_judge(&res, 0, 0.7);
    j = cp_probe_to_json(&res);
    ok(j != NULL, "the report is made");
    if (!j) {
        cp_probe_result_clear(&res);
        return;
    }
    is_str(json_string_value(json_object_get(j, "schema")), "collprof.probe/1",
           "schema collprof.probe/1");
    f = json_object_get(j, "findings");
    is_int(json_array_size(f), 1, "one finding");
    f = json_array_get(f, 0);
    is_str(json_string_value(json_object_get(f, "kind")), "slow_link",
           "kind slow_link");
    is_str(json_string_value(json_object_get(f, "severity")), "critical",
           "1/5: critical");
    nodes = json_object_get(f, "nodes");
    ok(json_array_size(nodes) == 2 &&
           strcmp(json_string_value(json_array_get(nodes, 0)), "node2") == 0 &&
           strcmp(json_string_value(json_array_get(nodes, 1)), "node4") == 0,
       "nodes: exactly the two endpoints");
    ok(json_is_real(json_object_get(json_object_get(f, "evidence"),
                                    "bandwidth_Bps")) &&
           json_is_real(json_object_get(json_object_get(f, "evidence"),
                                        "peer_bandwidth_Bps")),
       "evidence: bandwidth_Bps and peer_bandwidth_Bps");
    ok(strstr(json_string_value(json_object_get(f, "message")), "node2") &&
           strstr(json_string_value(json_object_get(f, "message")), "node4"),
       "the message names both nodes");
    pairs = json_object_get(json_object_get(j, "topology"), "pairs");
    is_int(json_array_size(pairs), 10, "topology.pairs: all 10");
    for (i = 0; i < json_array_size(pairs); i++) {
        json_t *p = json_array_get(pairs, i);
        const char *st = json_string_value(json_object_get(p, "state"));
        if (!st || !json_is_array(json_object_get(p, "nodes")) ||
            !json_is_number(json_object_get(p, "bandwidth_Bps")) ||
            !json_is_number(json_object_get(p, "efficiency")) ||
            !json_is_number(json_object_get(p, "latency_s")))
            shape = 0;
        nslow += st && strcmp(st, "slow") == 0;
    }
    ok(shape, "every pair: nodes, state, bandwidth_Bps, efficiency, latency_s");
    ok(nslow == 1 && strcmp(json_string_value(json_object_get(
                                json_array_get(pairs, 0), "state")),
                            "slow") == 0,
       "one pair slow, listed first");
    ok(json_is_null(json_array_get(
           json_array_get(json_object_get(json_object_get(j, "topology"),
                                          "bandwidth_Bps"),
                          2),
           2)),
       "the matrix's diagonal is null");
    json_decref(j);
    cp_probe_result_clear(&res);

    make_result(&res, 3, 25e6);
    cp_probe_judge(&res, 0, 0.7);
    j = cp_probe_to_json(&res);
    is_int(j ? json_array_size(json_object_get(j, "findings")) : 99, 0,
           "healthy: no finding");
    json_decref(j);
    cp_probe_result_clear(&res);
}

/* Host buffers of cp_ncclrt_alloc are sent before the probe writes them
 * (the order buffer's padding, the ping-pong payload): they must hold
 * zeros, not what the heap held before.  Each size is first allocated,
 * dirtied and freed, so that the allocator hands the same memory back. */
static void test_host_buffers(void)
{
    static const size_t sizes[] = {32, 4096, 65536};
    struct cp_ncclrt rt;
    struct cp_error err;

    memset(&rt, 0, sizeof rt);
    rt.err = &err;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i], nonzero = 0;
        void *dirty = NULL;
        unsigned char *buf = NULL;
        if (posix_memalign(&dirty, 4096, n) == 0) {
            memset(dirty, 0xa5, n);
            free(dirty);
        }
        if (cp_ncclrt_alloc(&rt, n, 0, (void **)&buf) < 0 || !buf) {
            ok(0, "host buffer of %zu bytes: allocated", n);
            continue;
        }
        for (size_t k = 0; k < n; k++)
            nonzero += buf[k] != 0;
        ok(nonzero == 0 && ((size_t)buf & 4095) == 0,
           "host buffer of %zu bytes: page-aligned, every byte zero "
           "(%zu not)", n, nonzero);
        cp_ncclrt_free(&rt, buf, 0);
    }
}

int main(void)
{
    test_schedule();
    test_judge();
    test_json();
    test_host_buffers();
    return done_testing();
}
