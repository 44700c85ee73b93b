/* fit.c - the calibration of collprof bench on points of known model:
 * times T = A alpha + B n beta of the ring (all-reduce, reduce-scatter,
 * all-gather) and alpha + n beta of send/recv pairs.  The fit must give
 * alpha and beta back, the latency floor the smallest sizes' time, the
 * plateau the bus bandwidth, the regime boundary n_1/2 = L/W; points with
 * wrong results are left out; groups that mix intra- and inter-node hops
 * give way to pairs; the profile reads back through cp_profile. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cp_bench.h"
#include "cp_bench_fit.h"
#include "cp_profile.h"
#include "tap.h"

/* One series of coll on p ranks, sizes 1 KiB .. 1 GiB by x2, with times
 * of the analyzer's canonical algorithm. */
static void add_series(struct cp_bench_set *set, enum cp_coll coll,
                       unsigned p, unsigned nodes, int link, double alpha,
                       double beta, int pair)
{
    struct cp_model_params mp = {.alpha = alpha, .beta = beta};
    struct cp_model_terms t;
    struct cp_bench_series s;
    unsigned index;
    uint64_t size;

    memset(&s, 0, sizeof s);
    s.coll = coll;
    s.ranks = p;
    s.nodes = nodes;
    s.link = link;
    s.pair = pair;
    cp_bench_set_add_series(set, &s, &index);
    cp_model_terms(coll,
                   coll == CP_COLL_SENDRECV ? CP_ALGO_DIRECT : CP_ALGO_RING, p,
                   &mp, &t, NULL);
    for (size = 1024; size <= (1u << 30); size *= 2) {
        struct cp_bench_point pt;
        memset(&pt, 0, sizeof pt);
        pt.series = index;
        pt.coll = coll;
        pt.ranks = p;
        pt.count = cp_bench_count(coll, size, 4, p);
        pt.size_bytes = cp_bench_size(coll, pt.count, 4, p);
        pt.time_s = t.latency_s + (double)pt.size_bytes * t.sec_per_byte;
        pt.root = -1;
        cp_bench_point_bandwidths(&pt);
        cp_bench_set_add_point(set, &pt);
        pt.in_place = 1;
        cp_bench_set_add_point(set, &pt);
    }
}

int main(void)
{
    const double alpha = 10e-6, bw = 50e9, beta = 1 / bw;
    struct cp_bench_set set;
    struct cp_bench_calibration cal;
    const struct cp_bench_op_fit *f;
    struct cp_profile prof;
    struct cp_error err;
    char *text;

    /* One node, 8 ranks. */
    memset(&set, 0, sizeof set);
    add_series(&set, CP_COLL_ALLREDUCE, 8, 1, CP_LINK_INTRA, alpha, beta, 0);
    add_series(&set, CP_COLL_REDUCESCATTER, 8, 1, CP_LINK_INTRA, alpha, beta,
               0);
    add_series(&set, CP_COLL_ALLGATHER, 8, 1, CP_LINK_INTRA, alpha, beta, 0);
    ok(cp_bench_calibrate(&set, &cal, &err) == 0, "calibration runs");
    is_int(cal.nops, 3, "three groups");
    ok(cal.link_source[CP_LINK_INTRA] == CP_BENCH_FROM_COLLECTIVES,
       "intra from the collectives");
    is_near(cal.link[CP_LINK_INTRA].alpha_s, alpha, 1e-6, "intra alpha 10 us");
    is_near(cal.link[CP_LINK_INTRA].bandwidth_Bps, bw, 1e-6,
            "intra bandwidth 50 GB/s");
    ok(cal.link_source[CP_LINK_INTER] == CP_BENCH_FROM_NONE,
       "no inter-node value without inter-node points");
    f = cp_bench_calibration_find(&cal, CP_COLL_ALLREDUCE, 0);
    ok(f != NULL, "all-reduce fitted");
    if (f) {
        double L = 14 * alpha, W = 1.75 * beta;
        is_near(f->alpha_s, alpha, 1e-6, "all-reduce alpha");
        is_near(f->latency_floor_s, L + 2048 * W, 1e-9,
                "latency floor = time of the middle of the three smallest");
        ok(f->floor_flat, "the floor is flat");
        is_near(f->busbw_Bps, bw, 0.02,
                "busbw plateau within 2%% of the link bandwidth");
        is_near(f->busbw_largest_Bps, 1.75 * (1 << 30) / (L + (1 << 30) * W),
                1e-12, "busbw at the largest size");
        is_near(f->regime_boundary_bytes, L / W, 0.05,
                "regime boundary = n_1/2 = L/W (%.0f bytes)", L / W);
        ok(f->regime_from_crossing, "... read off the half-plateau crossing");
    }
    text = cp_bench_profile_text(&cal, "test\nsecond line", &err);
    ok(text != NULL && cp_profile_parse_string(text, "t", &prof, &err) == 0,
       "the profile text parses as a site profile");
    if (text) {
        is_near(prof.link[CP_LINK_INTRA].alpha_s, alpha, 1e-4,
                "profile intra alpha");
        is_near(prof.link[CP_LINK_INTRA].bandwidth_Bps, bw, 1e-4,
                "profile intra bandwidth");
        ok(prof.link[CP_LINK_INTER].line == 0, "no inter line");
        ok(strstr(text, "# test\n# second line\n") != NULL,
           "the comment is kept, one '#' line per line");
    }
    free(text);
    cp_bench_calibration_free(&cal);

    /* A wrong point does not count: make one time absurd and wrong. */
    set.points[10].time_s *= 100;
    set.points[10].wrong = 3;
    ok(cp_bench_calibrate(&set, &cal, &err) == 0 &&
           fabs(cal.link[CP_LINK_INTRA].alpha_s / alpha - 1) < 1e-6,
       "a point with wrong results is left out of the fit");
    cp_bench_calibration_free(&cal);
    cp_bench_set_clear(&set);

    /* Two nodes of two ranks: the world's collectives mix both links, the
     * pairs measure each; an inter group with one rank per node is pure. */
    memset(&set, 0, sizeof set);
    add_series(&set, CP_COLL_ALLREDUCE, 4, 2, CP_LINK_INTER, 3e-6, 1 / 70e9,
               0);
    add_series(&set, CP_COLL_SENDRECV, 2, 1, CP_LINK_INTRA, 2e-6, 1 / 200e9,
               1);
    add_series(&set, CP_COLL_SENDRECV, 2, 2, CP_LINK_INTER, 5e-6, 1 / 25e9,
               1);
    ok(cp_bench_calibrate(&set, &cal, &err) == 0, "two-node calibration runs");
    ok(cal.link_source[CP_LINK_INTRA] == CP_BENCH_FROM_PAIRS &&
           fabs(cal.link[CP_LINK_INTRA].alpha_s / 2e-6 - 1) < 1e-6 &&
           fabs(cal.link[CP_LINK_INTRA].bandwidth_Bps / 200e9 - 1) < 1e-6,
       "intra from the pair in one node");
    ok(cal.link_source[CP_LINK_INTER] == CP_BENCH_FROM_PAIRS &&
           fabs(cal.link[CP_LINK_INTER].alpha_s / 5e-6 - 1) < 1e-6 &&
           fabs(cal.link[CP_LINK_INTER].bandwidth_Bps / 25e9 - 1) < 1e-6,
       "inter from the pair across nodes, not from the mixed all-reduce");
    ok(strstr(cal.collectives[CP_LINK_INTER].from, "mixed") != NULL,
       "the mixed all-reduce is reported as such (%s)",
       cal.collectives[CP_LINK_INTER].from);
    cp_bench_calibration_free(&cal);
    cp_bench_set_clear(&set);

    memset(&set, 0, sizeof set);
    add_series(&set, CP_COLL_ALLREDUCE, 4, 4, CP_LINK_INTER, 5e-6, 1 / 25e9,
               0);
    add_series(&set, CP_COLL_SENDRECV, 2, 2, CP_LINK_INTER, 9e-6, 1 / 20e9,
               1);
    ok(cp_bench_calibrate(&set, &cal, &err) == 0 &&
           cal.link_source[CP_LINK_INTER] == CP_BENCH_FROM_COLLECTIVES &&
           fabs(cal.link[CP_LINK_INTER].bandwidth_Bps / 25e9 - 1) < 1e-6,
       "one rank per node: the collectives measure the inter link");
    cp_bench_calibration_free(&cal);
    cp_bench_set_clear(&set);

    /* A sweep that starts in the bandwidth regime: no crossing; the floor
     * is not flat. */
    memset(&set, 0, sizeof set);
    add_series(&set, CP_COLL_ALLREDUCE, 8, 1, CP_LINK_INTRA, 1e-9, beta, 0);
    ok(cp_bench_calibrate(&set, &cal, &err) == 0 && cal.nops == 1 &&
           !cal.ops[0].floor_flat && !cal.ops[0].regime_from_crossing,
       "without a latency regime: floor not flat, boundary from the model");
    cp_bench_calibration_free(&cal);
    cp_bench_set_clear(&set);
    return done_testing();
}
