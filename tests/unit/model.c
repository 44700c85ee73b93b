/* model.c - tests of cp_model: the lesson's worked examples (section 4
 * (b)-(d)) to the digits the lesson prints, its numeric quick checks, the
 * busbw conventions, crossovers, bounds, monotonicity, and refusals. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "collprof/cp_logfmt.h"
#include "cp_model.h"

#define US 1e-6
#define MS 1e-3
#define MB 1e6
#define GB 1e9

/* The value printed with fmt reads exactly as the lesson prints it. */
static void printed(double v, const char *fmt, const char *want,
                    const char *what)
{
    char buf[64];

    snprintf(buf, sizeof buf, fmt, v);
    is_str(buf, want, "%s: %s", what, want);
}

static struct cp_model_params flat(double alpha, double bandwidth)
{
    struct cp_model_params p = {.alpha = alpha, .beta = 1.0 / bandwidth};
    return p;
}

static struct cp_model_params topo(double alpha, double bandwidth,
                                   unsigned g, double inter_alpha,
                                   double inter_bandwidth)
{
    struct cp_model_params p = {.alpha = alpha,
                                .beta = 1.0 / bandwidth,
                                .gpus_per_node = g,
                                .inter_alpha = inter_alpha,
                                .inter_beta = 1.0 / inter_bandwidth};
    return p;
}

static double T(enum cp_coll c, enum cp_algo a, unsigned p, double n,
                const struct cp_model_params *m)
{
    return cp_model_time(c, a, p, n, m);
}

/* (b) Ring or recursive doubling?  p = 16, alpha = 10 us, 50 GB/s. */
static void example_b(void)
{
    struct cp_model_params m = flat(10 * US, 50 * GB);
    struct cp_model_terms ring, rd;
    struct cp_model_crossover x;
    double r1, d1, rG, dG;

    is_near(m.beta, 2e-11, 1e-15, "(b) beta = 2e-11 s/byte");
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, &m, &ring, NULL) ==
           0,
       "(b) ring terms");
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RECURSIVE_DOUBLING, 16, &m,
                      &rd, NULL) == 0,
       "(b) recursive doubling terms");
    printed(ring.latency_s / m.alpha, "%.0f", "30", "(b) ring: 2*15 alpha");
    printed(ring.sec_per_byte / m.beta, "%.3f", "1.875",
            "(b) ring: 30/16 n beta");

    r1 = T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, 1 * MB, &m);
    d1 = T(CP_COLL_ALLREDUCE, CP_ALGO_RECURSIVE_DOUBLING, 16, 1 * MB, &m);
    printed(ring.latency_s / US, "%.0f", "300", "(b) 1 MB ring latency us");
    printed(1 * MB * ring.sec_per_byte / US, "%.1f", "37.5",
            "(b) 1 MB ring bandwidth term us");
    printed(1 * MB * m.beta / US, "%.0f", "20", "(b) n beta for 1 MB, us");
    printed(r1 / US, "%.1f", "337.5", "(b) 1 MB ring us");
    printed(d1 / US, "%.0f", "120", "(b) 1 MB recursive doubling us");
    printed(r1 / d1, "%.1f", "2.8", "(b) recursive doubling is 2.8x faster");
    printed(r1 / MS, "%.4f", "0.3375", "(b) code: ring 0.3375 ms");
    printed(d1 / MS, "%.4f", "0.1200", "(b) code: rd 0.1200 ms");

    rG = T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, 1 * GB, &m);
    dG = T(CP_COLL_ALLREDUCE, CP_ALGO_RECURSIVE_DOUBLING, 16, 1 * GB, &m);
    printed(ring.latency_s / MS, "%.1f", "0.3", "(b) 1 GB ring latency ms");
    printed(1 * GB * ring.sec_per_byte / MS, "%.1f", "37.5",
            "(b) 1 GB ring bandwidth term ms (1.875 * 20)");
    printed(rG / MS, "%.1f", "37.8", "(b) 1 GB ring ms");
    printed(dG / MS, "%.2f", "80.04", "(b) 1 GB recursive doubling ms");
    printed(dG / rG, "%.1f", "2.1", "(b) the ring is 2.1x faster");
    printed(rG / MS, "%.4f", "37.8000", "(b) code: ring 37.8000 ms");
    printed(dG / MS, "%.4f", "80.0400", "(b) code: rd 80.0400 ms");

    ok(cp_model_crossover(CP_COLL_ALLREDUCE, CP_ALGO_RING,
                          CP_ALGO_RECURSIVE_DOUBLING, 16, &m, &x, NULL) == 0,
       "(b) crossover computed");
    ok(x.crosses, "(b) ring and recursive doubling cross");
    printed(m.alpha / m.beta, "%.0f", "500000", "(b) alpha/beta = 5e5 bytes");
    printed(x.bytes / (m.alpha / m.beta), "%.2f", "12.24",
            "(b) n* = 26/2.125 alpha/beta");
    printed(x.bytes / MB, "%.1f", "6.1", "(b) n* ~ 6.1 MB");
    printed(x.bytes / MB, "%.2f", "6.12", "(b) code: n* = 6.12 MB");
    /* the lesson's closed form, literally */
    {
        double p = 16, lg = 4;
        double lesson = (2 * (p - 1) - lg) * m.alpha /
                        ((lg - 2 * (p - 1) / p) * m.beta);
        is_near(x.bytes, lesson, 1e-12, "(b) n* equals the lesson's formula");
    }
    ok(x.small == CP_ALGO_RECURSIVE_DOUBLING && x.large == CP_ALGO_RING,
       "(b) recursive doubling below n*, ring above");
    ok(25 * MB > x.bytes, "(b) DDP's 25 MB bucket is above n*");
}

/* (c) Bus bandwidth of (b). */
static void example_c(void)
{
    struct cp_model_params m = flat(10 * US, 50 * GB);
    double t = T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, 1 * GB, &m);
    double algbw = cp_model_algbw(1 * GB, t);
    double busbw = cp_model_busbw(CP_COLL_ALLREDUCE, 16, 1 * GB, t);

    printed(algbw / GB, "%.1f", "26.5", "(c) algbw GB/s");
    printed(cp_model_busbw_factor(CP_COLL_ALLREDUCE, 16), "%.3f", "1.875",
            "(c) busbw factor");
    printed(busbw / GB, "%.1f", "49.6", "(c) busbw GB/s");
    printed(100 * (1 - busbw / (50 * GB)), "%.1f", "0.8",
            "(c) 0.8% below the 50 GB/s link");
    is_near(1 - busbw / (50 * GB), 0.3 / 37.8, 1e-9,
            "(c) the gap is the latency term's share");
}

/* (d) Hierarchical all-reduce on 4 nodes of 8 H100s, n = 1 GB. */
static void example_d(void)
{
    struct cp_model_params m = topo(3 * US, 450 * GB, 8, 10 * US, 50 * GB);
    struct cp_model_terms ring;
    struct cp_model_hier h;
    struct cp_error err = {.offset = -1};
    double flat_t, hier_t, bound, algbw, busbw;

    /* 1. the flat ring over 32 GPUs runs at network speed */
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 32, &m, &ring, NULL) ==
           0,
       "(d) flat ring terms");
    printed(1 * GB / 32 * m.inter_beta / US, "%.0f", "625",
            "(d) 1 GB/32 over 50 GB/s, us");
    printed((m.inter_alpha + 1 * GB / 32 * m.inter_beta) / US, "%.0f", "635",
            "(d) flat ring step us");
    printed(ring.latency_s / m.inter_alpha, "%.0f", "62",
            "(d) 2*31 = 62 steps, each paying the network alpha");
    flat_t = T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 32, 1 * GB, &m);
    is_near(flat_t, 62 * 635 * US, 1e-12, "(d) flat ring = 62 * 635 us");
    printed(flat_t / MS, "%.1f", "39.4", "(d) flat ring ms");

    /* 2. hierarchical */
    ok(cp_model_hierarchical(32, 1 * GB, &m, &h, &err) == 0,
       "(d) hierarchical phases");
    is_int(h.nodes, 4, "(d) 4 nodes");
    printed(125 * MB * m.beta / US, "%.1f", "277.8",
            "(d) 125 MB over 450 GB/s, us");
    printed(h.intra_step_s / US, "%.1f", "280.8", "(d) intra step us");
    printed(h.intra_rs_s / MS, "%.2f", "1.97", "(d) reduce-scatter in node ms");
    printed(h.inter_step_s / US, "%.0f", "635", "(d) inter-node step us");
    printed(h.inter_ar_s / MS, "%.2f", "3.81", "(d) all-reduce across nodes ms");
    printed(h.intra_ag_s / MS, "%.2f", "1.97", "(d) all-gather in node ms");
    printed(h.total_s / MS, "%.2f", "7.74", "(d) hierarchical total ms");
    hier_t = T(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, 32, 1 * GB, &m);
    is_near(hier_t, h.total_s, 1e-12, "(d) time = sum of the phases");
    printed(flat_t / hier_t, "%.1f", "5.1", "(d) 5.1x faster than the ring");

    /* 3. the network lower bound */
    bound = cp_model_network_bound(32, 1 * GB, &m);
    printed(bound / MS, "%.2f", "3.75", "(d) network lower bound ms");
    ok(h.inter_ar_s / bound - 1 < 0.02,
       "(d) the network part is within 2%% of the bound (%.1f%%)",
       100 * (h.inter_ar_s / bound - 1));
    is_near(h.inter_ar_s - bound, 6 * m.inter_alpha, 1e-9,
            "(d) the gap is the latency, 6 network alphas");

    /* 4. what nccl-tests would print */
    algbw = cp_model_algbw(1 * GB, hier_t);
    busbw = cp_model_busbw(CP_COLL_ALLREDUCE, 32, 1 * GB, hier_t);
    printed(algbw / GB, "%.0f", "129", "(d) algbw GB/s");
    printed(cp_model_busbw_factor(CP_COLL_ALLREDUCE, 32), "%.4f", "1.9375",
            "(d) busbw factor 2*31/32");
    printed(busbw / GB, "%.0f", "250", "(d) busbw GB/s");
    printed(busbw / (50 * GB), "%.0f", "5", "(d) 5x one network card");
}

/* Section 3 and the check-yourself questions, where they are numbers. */
static void quick_checks(void)
{
    struct cp_model_crossover x;
    struct cp_model_terms t8, t16, t64, t128;
    struct cp_model_params m;

    /* p = 4: n* = 8 alpha / beta, for any alpha and beta */
    static const double alphas[] = {1 * US, 5 * US, 10 * US, 30 * US};
    static const double bws[] = {12.5 * GB, 50 * GB, 100 * GB, 450 * GB};
    for (size_t i = 0; i < 4; i++) {
        m = flat(alphas[i], bws[i]);
        ok(cp_model_crossover(CP_COLL_ALLREDUCE, CP_ALGO_RING,
                              CP_ALGO_RECURSIVE_DOUBLING, 4, &m, &x,
                              NULL) == 0 &&
               x.crosses,
           "p = 4 crossover exists (alpha %g)", alphas[i]);
        printed(x.bytes / (m.alpha / m.beta), "%.1f", "8.0",
                "p = 4: n* = 8.0 alpha/beta");
    }
    m = flat(5 * US, 100 * GB);
    cp_model_crossover(CP_COLL_ALLREDUCE, CP_ALGO_RING,
                       CP_ALGO_RECURSIVE_DOUBLING, 4, &m, &x, NULL);
    printed(x.bytes / MB, "%.0f", "4", "check 3: 5 us, 100 GB/s, p = 4: 4 MB");
    is_near(x.bytes, 4 * MB, 1e-12, "check 3: n* is 4 MB");

    /* p = 2: both bandwidth terms are n beta, recursive doubling wins */
    m = flat(10 * US, 50 * GB);
    ok(cp_model_crossover(CP_COLL_ALLREDUCE, CP_ALGO_RING,
                          CP_ALGO_RECURSIVE_DOUBLING, 2, &m, &x, NULL) == 0 &&
           !x.crosses && isnan(x.bytes) &&
           x.small == CP_ALGO_RECURSIVE_DOUBLING,
       "p = 2: no crossover, recursive doubling always wins");

    /* quick check: p = 16, 10 us, 50 GB/s, a 4 KB all-reduce */
    {
        double r = T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, 4e3, &m);
        double d = T(CP_COLL_ALLREDUCE, CP_ALGO_RECURSIVE_DOUBLING, 16, 4e3,
                     &m);
        ok(d < r, "4 KB on 16 ranks: recursive doubling (%.2f us) beats the "
                  "ring (%.2f us)",
           d / US, r / US);
    }

    /* from 8 to 16 GPUs: bandwidth term 1.75 -> 1.875 (+7%), latency
     * 14 alpha -> 30 alpha; from 64 to 128: 1.969 -> 1.984 (+0.8%),
     * 126 alpha -> 254 alpha */
    cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 8, &m, &t8, NULL);
    cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, &m, &t16, NULL);
    cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 64, &m, &t64, NULL);
    cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 128, &m, &t128, NULL);
    printed(t8.sec_per_byte / m.beta, "%.2f", "1.75", "p = 8: 1.75 n beta");
    printed(t16.sec_per_byte / m.beta, "%.3f", "1.875", "p = 16: 1.875 n beta");
    printed(100 * (t16.sec_per_byte / t8.sec_per_byte - 1), "%.0f", "7",
            "8 -> 16 GPUs: +7%");
    printed(t8.latency_s / m.alpha, "%.0f", "14", "p = 8: 14 alpha");
    printed(t16.latency_s / m.alpha, "%.0f", "30", "p = 16: 30 alpha");
    printed(t64.sec_per_byte / m.beta, "%.3f", "1.969", "p = 64: 1.969 n beta");
    printed(t128.sec_per_byte / m.beta, "%.3f", "1.984",
            "p = 128: 1.984 n beta");
    printed(100 * (t128.sec_per_byte / t64.sec_per_byte - 1), "%.1f", "0.8",
            "64 -> 128 GPUs: +0.8%");
    printed(t64.latency_s / m.alpha, "%.0f", "126", "p = 64: 126 alpha");
    printed(t128.latency_s / m.alpha, "%.0f", "254", "p = 128: 254 alpha");

    /* bytes each GPU sends in a ring all-reduce: n, 1.75 n, 1.998 n; the
     * section-1 answer 1.75 GB; worked example (a): 4 elements of 3 */
    printed(cp_model_bytes_lower_bound(CP_COLL_ALLREDUCE, 2, 1), "%.0f", "1",
            "p = 2: n bytes");
    printed(cp_model_bytes_lower_bound(CP_COLL_ALLREDUCE, 8, 1), "%.2f",
            "1.75", "p = 8: 1.75 n bytes");
    printed(cp_model_bytes_lower_bound(CP_COLL_ALLREDUCE, 1000, 1), "%.3f",
            "1.998", "p = 1000: 1.998 n bytes");
    printed(cp_model_bytes_lower_bound(CP_COLL_ALLREDUCE, 8, 1 * GB) / GB,
            "%.2f", "1.75", "section 1: the busiest GPU sends 1.75 GB");
    printed(cp_model_bytes_lower_bound(CP_COLL_ALLREDUCE, 3, 3), "%.0f", "4",
            "(a) p = 3, 3 elements: each GPU sends 4");
    {
        struct cp_model_params one = flat(1, 1);
        struct cp_model_terms t3;
        cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 3, &one, &t3, NULL);
        printed(t3.latency_s, "%.0f", "4", "(a) p = 3: 2(p-1) = 4 steps");
    }

    /* check 1: p = 4, 400 MB: 600, 300, 300 MB */
    printed(cp_model_bytes_lower_bound(CP_COLL_ALLREDUCE, 4, 400 * MB) / MB,
            "%.0f", "600", "check 1: all-reduce sends 600 MB");
    printed(cp_model_bytes_lower_bound(CP_COLL_REDUCESCATTER, 4, 400 * MB) /
                MB,
            "%.0f", "300", "check 1: reduce-scatter sends 300 MB");
    printed(cp_model_bytes_lower_bound(CP_COLL_ALLGATHER, 4, 400 * MB) / MB,
            "%.0f", "300", "check 1: all-gather sends 300 MB");

    /* check 2: 8 GPUs, all-reduce of 2 GB in 20 ms, all-gather in 10 ms */
    printed(cp_model_algbw(2 * GB, 20 * MS) / GB, "%.0f", "100",
            "check 2: all-reduce algbw 100 GB/s");
    printed(cp_model_busbw(CP_COLL_ALLREDUCE, 8, 2 * GB, 20 * MS) / GB, "%.0f",
            "175", "check 2: all-reduce busbw 175 GB/s");
    printed(cp_model_algbw(2 * GB, 10 * MS) / GB, "%.0f", "200",
            "check 2: all-gather algbw 200 GB/s");
    printed(cp_model_busbw(CP_COLL_ALLGATHER, 8, 2 * GB, 10 * MS) / GB, "%.0f",
            "175", "check 2: all-gather busbw 175 GB/s");

    /* quick check: algbw 100 GB/s on 8 GPUs -> busbw 175 GB/s */
    printed(100 * cp_model_busbw_factor(CP_COLL_ALLREDUCE, 8), "%.0f", "175",
            "quick check: busbw of 100 GB/s algbw on 8 GPUs");

    /* the all_reduce_perf line: 1 GiB in 4500 us on 8 GPUs */
    {
        double n = cp_model_bytes_from_count(CP_COLL_ALLREDUCE, 268435456, 4,
                                             8);
        printed(n, "%.0f", "1073741824", "nccl-tests line: S = 2^30 bytes");
        printed(cp_model_algbw(n, 4500 * US) / GB, "%.2f", "238.61",
                "nccl-tests line: algbw");
        printed(cp_model_busbw(CP_COLL_ALLREDUCE, 8, n, 4500 * US) / GB,
                "%.2f", "417.57", "nccl-tests line: busbw");
        printed(100 * cp_model_busbw(CP_COLL_ALLREDUCE, 8, n, 4500 * US) /
                    (450 * GB),
                "%.0f", "93", "nccl-tests line: 93% of 450 GB/s");
    }
}

static void busbw_conventions(void)
{
    static const struct {
        enum cp_coll coll;
        double f8;      /* factor at p = 8 */
        double count_x; /* n = count * size * count_x at p = 8 */
    } cases[] = {
        {CP_COLL_ALLREDUCE, 1.75, 1},   {CP_COLL_BROADCAST, 1, 1},
        {CP_COLL_REDUCE, 1, 1},         {CP_COLL_REDUCESCATTER, 0.875, 8},
        {CP_COLL_ALLGATHER, 0.875, 8},  {CP_COLL_ALLTOALL, 0.875, 8},
        {CP_COLL_GATHER, 0.875, 8},     {CP_COLL_SCATTER, 0.875, 8},
        {CP_COLL_SENDRECV, 1, 1},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *name = cp_model_coll_name(cases[i].coll);
        double f1 = cp_model_busbw_factor(cases[i].coll, 1);

        is_near(cp_model_busbw_factor(cases[i].coll, 8), cases[i].f8, 1e-15,
                "busbw factor of %s on 8 ranks is %g", name, cases[i].f8);
        is_near(cp_model_bytes_from_count(cases[i].coll, 1000, 4, 8),
                4000 * cases[i].count_x, 0, "%s: n of count 1000 x 4 B, p 8",
                name);
        is_near(cp_model_busbw(cases[i].coll, 8, 8 * GB, 1.0),
                8 * GB * cases[i].f8, 1e-15,
                "%s: busbw = algbw * factor", name);
        is_near(f1,
                (cases[i].coll == CP_COLL_BROADCAST ||
                 cases[i].coll == CP_COLL_REDUCE ||
                 cases[i].coll == CP_COLL_SENDRECV)
                    ? 1.0
                    : 0.0,
                0, "%s: busbw factor on 1 rank", name);
        /* the factor is the bandwidth lower bound per byte (p > 1) */
        is_near(cp_model_bytes_lower_bound(cases[i].coll, 8, 1), cases[i].f8,
                1e-15, "%s: bytes lower bound per byte = busbw factor", name);
    }
    ok(isnan(cp_model_busbw_factor(CP_COLL_ALLREDUCE, 0)), "factor, p = 0: NaN");
    ok(isnan(cp_model_busbw_factor(CP_COLL_COUNT, 8)), "factor, bad coll: NaN");
    ok(isnan(cp_model_algbw(1, 0)), "algbw with t = 0: NaN");
    ok(isnan(cp_model_algbw(1, -1)), "algbw with t < 0: NaN");
    ok(isnan(cp_model_algbw(-1, 1)), "algbw with n < 0: NaN");
    ok(isnan(cp_model_bytes_from_count(CP_COLL_ALLGATHER, 1, 4, 0)),
       "bytes_from_count with p = 0: NaN");
}

static void names(void)
{
    static const struct {
        const char *text;
        enum cp_coll coll;
    } good[] = {
        {"allreduce", CP_COLL_ALLREDUCE},
        {"all-reduce", CP_COLL_ALLREDUCE},
        {"all_reduce", CP_COLL_ALLREDUCE},
        {"AllReduce", CP_COLL_ALLREDUCE},
        {"broadcast", CP_COLL_BROADCAST},
        {"bcast", CP_COLL_BROADCAST},
        {"reduce", CP_COLL_REDUCE},
        {"reducescatter", CP_COLL_REDUCESCATTER},
        {"reduce-scatter", CP_COLL_REDUCESCATTER},
        {"reduce_scatter", CP_COLL_REDUCESCATTER},
        {"allgather", CP_COLL_ALLGATHER},
        {"all-gather", CP_COLL_ALLGATHER},
        {"alltoall", CP_COLL_ALLTOALL},
        {"all-to-all", CP_COLL_ALLTOALL},
        {"all_to_all", CP_COLL_ALLTOALL},
        {"gather", CP_COLL_GATHER},
        {"scatter", CP_COLL_SCATTER},
        {"sendrecv", CP_COLL_SENDRECV},
        {"send-recv", CP_COLL_SENDRECV},
        {"send", CP_COLL_SENDRECV},
        {"recv", CP_COLL_SENDRECV},
    };
    static const char *const bad[] = {"", "allreduceX", "reduce scatter",
                                      "all", "p2p"};
    struct cp_error err = {.offset = -1};
    enum cp_coll c;
    enum cp_algo a;

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        c = CP_COLL_COUNT;
        ok(cp_model_coll_from_name(good[i].text, &c, NULL) == 0 &&
               c == good[i].coll,
           "collective '%s'", good[i].text);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "got '%s'", bad[i]);
        ok(cp_model_coll_from_name(bad[i], &c, &err) == -1 &&
               strstr(err.text, want) && strstr(err.text, "allreduce"),
           "collective '%s' is refused: %s", bad[i], err.text);
    }
    for (int i = 0; i < CP_COLL_COUNT; i++)
        ok(cp_model_coll_from_name(cp_model_coll_name((enum cp_coll)i), &c,
                                   NULL) == 0 &&
               c == (enum cp_coll)i,
           "collective name round trip: %s", cp_model_coll_name((enum cp_coll)i));
    ok(cp_model_coll_name(CP_COLL_COUNT) == NULL, "no name out of range");

    /* the op on the wire: Bcast is Broadcast, the ends of a transfer and
     * the calls that move no data stay themselves */
    ok(cp_model_wire_op(CP_OP_Bcast) == CP_OP_Broadcast &&
           cp_model_wire_op(CP_OP_Broadcast) == CP_OP_Broadcast,
       "wire op: Bcast and Broadcast are Broadcast");
    ok(cp_model_wire_op(CP_OP_Send) == CP_OP_Send &&
           cp_model_wire_op(CP_OP_Recv) == CP_OP_Recv,
       "wire op: Send and Recv stay apart");
    ok(cp_model_wire_op(CP_OP_AllReduce) == CP_OP_AllReduce &&
           cp_model_wire_op(CP_OP_GroupStart) == CP_OP_GroupStart &&
           cp_model_wire_op(0) == 0,
       "wire op: AllReduce, GroupStart and 0 stay themselves");

    for (int i = 0; i < CP_ALGO_COUNT; i++)
        ok(cp_model_algo_from_name(cp_model_algo_name((enum cp_algo)i), &a,
                                   NULL) == 0 &&
               a == (enum cp_algo)i,
           "algorithm name round trip: %s", cp_model_algo_name((enum cp_algo)i));
    ok(cp_model_algo_from_name("Recursive-Doubling", &a, NULL) == 0 &&
           a == CP_ALGO_RECURSIVE_DOUBLING,
       "algorithm 'Recursive-Doubling'");
    ok(cp_model_algo_from_name("double-binary-tree", &a, NULL) == 0 &&
           a == CP_ALGO_DOUBLE_BINARY_TREE,
       "algorithm 'double-binary-tree'");
    ok(cp_model_algo_from_name("rd", &a, &err) == -1 &&
           strstr(err.text, "got 'rd'") && strstr(err.text, "ring"),
       "algorithm 'rd' is refused: %s", err.text);
    ok(cp_model_algo_name(CP_ALGO_COUNT) == NULL, "no algorithm name out of range");

    /* the collectives of logged calls */
    {
        static const struct {
            unsigned op;
            enum cp_coll coll;
        } ops[] = {
            {CP_OP_AllReduce, CP_COLL_ALLREDUCE},
            {CP_OP_Broadcast, CP_COLL_BROADCAST},
            {CP_OP_Bcast, CP_COLL_BROADCAST},
            {CP_OP_Reduce, CP_COLL_REDUCE},
            {CP_OP_AllGather, CP_COLL_ALLGATHER},
            {CP_OP_ReduceScatter, CP_COLL_REDUCESCATTER},
            {CP_OP_AlltoAll, CP_COLL_ALLTOALL},
            {CP_OP_Gather, CP_COLL_GATHER},
            {CP_OP_Scatter, CP_COLL_SCATTER},
            {CP_OP_Send, CP_COLL_SENDRECV},
            {CP_OP_Recv, CP_COLL_SENDRECV},
        };
        static const unsigned none[] = {CP_OP_NONE, CP_OP_GroupStart,
                                        CP_OP_GroupEnd, CP_OP_CommInitRank,
                                        CP_OP_CommSplit, CP_OP_CommDestroy,
                                        CP_OP_MAX, 200};
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            c = CP_COLL_COUNT;
            ok(cp_model_coll_from_op(ops[i].op, &c) == 0 && c == ops[i].coll,
               "op %u is %s", ops[i].op, cp_model_coll_name(ops[i].coll));
        }
        for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
            ok(cp_model_coll_from_op(none[i], &c) == -1,
               "op %u moves no data", none[i]);
    }
}

/* Every applicable pair of algorithms: at n* the times agree within 1e-9
 * relative, `small` wins below and `large` above; without a crossing,
 * `small` is never slower. */
static void crossovers(void)
{
    static const unsigned ps[] = {2, 3, 4, 6, 8, 16, 32, 64, 96, 1024};
    struct cp_model_params ms[3];
    int pairs = 0, crossing = 0, bad = 0;

    ms[0] = flat(10 * US, 50 * GB);
    ms[1] = flat(2 * US, 450 * GB);
    ms[2] = topo(3 * US, 450 * GB, 8, 10 * US, 50 * GB);
    for (size_t mi = 0; mi < 3; mi++)
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
            for (int c = 0; c < CP_COLL_COUNT; c++)
                for (int a = 0; a < CP_ALGO_COUNT; a++)
                    for (int b = a + 1; b < CP_ALGO_COUNT; b++) {
                        struct cp_model_crossover x;
                        unsigned p = ps[pi];
                        const struct cp_model_params *m = &ms[mi];
                        enum cp_coll cc = (enum cp_coll)c;
                        enum cp_algo aa = (enum cp_algo)a,
                                     bb = (enum cp_algo)b;
                        enum cp_algo other;

                        if (cp_model_crossover(cc, aa, bb, p, m, &x, NULL) < 0)
                            continue;
                        pairs++;
                        if (x.crosses) {
                            double ta = T(cc, aa, p, x.bytes, m);
                            double tb = T(cc, bb, p, x.bytes, m);
                            crossing++;
                            if (fabs(ta - tb) > 1e-9 * fmax(ta, tb) ||
                                !(T(cc, x.small, p, x.bytes / 2, m) <
                                  T(cc, x.large, p, x.bytes / 2, m)) ||
                                !(T(cc, x.large, p, x.bytes * 2, m) <
                                  T(cc, x.small, p, x.bytes * 2, m)) ||
                                x.small == x.large) {
                                bad++;
                                diag("%s %s/%s p=%u: n* %g, %g vs %g",
                                     cp_model_coll_name(cc),
                                     cp_model_algo_name(aa),
                                     cp_model_algo_name(bb), p, x.bytes, ta,
                                     tb);
                            }
                        } else {
                            other = x.small == aa ? bb : aa;
                            if (!isnan(x.bytes) || x.small != x.large)
                                bad++;
                            for (double n = 1; n <= 1e12; n *= 1000)
                                if (T(cc, x.small, p, n, m) >
                                    T(cc, other, p, n, m)) {
                                    bad++;
                                    diag("%s %s never slower than %s p=%u? "
                                         "n %g",
                                         cp_model_coll_name(cc),
                                         cp_model_algo_name(x.small),
                                         cp_model_algo_name(other), p, n);
                                }
                        }
                    }
    ok(bad == 0 && pairs > 100 && crossing > 50,
       "crossovers of %d pairs (%d crossing) are consistent", pairs, crossing);
    {
        struct cp_model_params m = flat(10 * US, 50 * GB);
        struct cp_model_crossover x;
        ok(cp_model_crossover(CP_COLL_ALLREDUCE, CP_ALGO_RING, CP_ALGO_RING,
                              16, &m, &x, NULL) == 0 &&
               !x.crosses && x.small == CP_ALGO_RING,
           "an algorithm against itself never crosses");
        ok(cp_model_crossover(CP_COLL_ALLREDUCE, CP_ALGO_RING,
                              CP_ALGO_RECURSIVE_DOUBLING, 6, &m, &x, NULL) ==
               -1,
           "crossover with an inapplicable algorithm fails");
        /* ring vs double binary tree: n* = p (p-1-lg p) alpha/beta */
        ok(cp_model_crossover(CP_COLL_ALLREDUCE, CP_ALGO_RING,
                              CP_ALGO_DOUBLE_BINARY_TREE, 16, &m, &x,
                              NULL) == 0 &&
               x.crosses && x.small == CP_ALGO_DOUBLE_BINARY_TREE,
           "ring vs double binary tree cross on 16 ranks");
        is_near(x.bytes, 16 * (15 - 4) * m.alpha / m.beta, 1e-12,
                "ring vs double binary tree: n* = p(p-1-lg p) alpha/beta");
    }
}

/* Times grow with n; the ring's time grows with p; no algorithm beats the
 * lower bounds; the best algorithm is the minimum. */
static void monotonic_and_bounds(void)
{
    static const unsigned ps[] = {1, 2, 3, 4, 5, 8, 12, 16, 64, 256};
    static const double ns[] = {0, 1, 8, 1e3, 4096, 1e5, 1e6, 3e7, 1e9, 1e11};
    struct cp_model_params ms[2];
    int checked = 0, bad_mono = 0, bad_bound = 0, bad_best = 0;

    ms[0] = flat(10 * US, 50 * GB);
    ms[1] = topo(3 * US, 450 * GB, 4, 10 * US, 50 * GB);
    for (size_t mi = 0; mi < 2; mi++)
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
            for (int c = 0; c < CP_COLL_COUNT; c++) {
                unsigned p = ps[pi];
                const struct cp_model_params *m = &ms[mi];
                enum cp_coll cc = (enum cp_coll)c;

                for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
                    double lat, bw, best_t, min_t = INFINITY;
                    enum cp_algo best;

                    cp_model_lower_bounds(cc, p, ns[ni], m, &lat, &bw, NULL);
                    for (int a = 0; a < CP_ALGO_COUNT; a++) {
                        double t = T(cc, (enum cp_algo)a, p, ns[ni], m);
                        double t2;
                        if (isnan(t))
                            continue;
                        checked++;
                        min_t = fmin(min_t, t);
                        if (t < fmax(lat, bw) * (1 - 1e-12))
                            bad_bound++;
                        if (ni + 1 < sizeof ns / sizeof ns[0]) {
                            t2 = T(cc, (enum cp_algo)a, p, ns[ni + 1], m);
                            if (!(t2 >= t))
                                bad_mono++;
                        }
                    }
                    if (cp_model_best(cc, p, ns[ni], m, &best, &best_t,
                                      NULL) < 0 ||
                        best_t != min_t ||
                        T(cc, best, p, ns[ni], m) != best_t)
                        bad_best++;
                }
            }
    ok(checked > 1000, "%d (op, algorithm, p, n) cases", checked);
    ok(bad_mono == 0, "every time grows with n (%d violations)", bad_mono);
    ok(bad_bound == 0, "no time beats the lower bounds (%d violations)",
       bad_bound);
    ok(bad_best == 0, "best is the minimum over the algorithms (%d)", bad_best);

    {
        struct cp_model_params m = flat(10 * US, 50 * GB);
        int grows = 1;
        for (unsigned p = 2; p < 300; p++)
            if (!(T(CP_COLL_ALLREDUCE, CP_ALGO_RING, p + 1, 1 * GB, &m) >
                  T(CP_COLL_ALLREDUCE, CP_ALGO_RING, p, 1 * GB, &m)))
                grows = 0;
        ok(grows, "the ring all-reduce gets slower with every added rank");
        ok(T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 1000, 1 * GB, &m) -
                   1 * GB * 2 * m.beta <
               T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 1000, 0, &m),
           "but its bandwidth term stays under 2 n beta");
    }
    {
        struct cp_model_params m = flat(10 * US, 50 * GB);
        double lat, bw;
        ok(cp_model_lower_bounds(CP_COLL_ALLREDUCE, 16, 1 * GB, &m, &lat, &bw,
                                 NULL) == 0,
           "lower bounds of a 1 GB all-reduce on 16 ranks");
        is_near(lat, 4 * m.alpha, 1e-15, "latency bound lg p alpha = 40 us");
        is_near(bw, 1.875 * 1 * GB * m.beta, 1e-15,
                "bandwidth bound 2(p-1)/p n beta = 37.5 ms");
        cp_model_lower_bounds(CP_COLL_ALLREDUCE, 12, 1, &m, &lat, NULL, NULL);
        is_near(lat, 4 * m.alpha, 1e-15, "latency bound on 12 ranks: 4 rounds");
        cp_model_lower_bounds(CP_COLL_SENDRECV, 2, 1e3, &m, &lat, &bw, NULL);
        is_near(lat, m.alpha, 1e-15, "sendrecv latency bound: alpha");
        is_near(bw, 1e3 * m.beta, 1e-15, "sendrecv bandwidth bound: n beta");
        cp_model_lower_bounds(CP_COLL_BROADCAST, 1, 1e3, &m, &lat, &bw, NULL);
        ok(lat == 0 && bw == 0, "one rank: no bound");
    }
}

static void not_applicable(void)
{
    struct cp_model_params m = flat(10 * US, 50 * GB);
    struct cp_model_params hm = topo(3 * US, 450 * GB, 8, 10 * US, 50 * GB);
    struct cp_model_params bad = m;
    struct cp_model_terms t;
    struct cp_error err = {.offset = -1};
    enum cp_algo best;
    enum cp_regime r;

    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_RECURSIVE_DOUBLING, 6, 1e6, &m)),
       "recursive doubling on 6 ranks: NaN");
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RECURSIVE_DOUBLING, 6, &m, &t,
                      &err) == -1 &&
           strstr(err.text, "power-of-two") && strstr(err.text, "got 6"),
       "... and says why: %s", err.text);
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_RABENSEIFNER, 3, 1e6, &m)),
       "rabenseifner on 3 ranks: NaN");
    ok(isnan(T(CP_COLL_ALLTOALL, CP_ALGO_BRUCK, 12, 1e6, &m)),
       "bruck on 12 ranks: NaN");
    ok(isnan(T(CP_COLL_ALLGATHER, CP_ALGO_RECURSIVE_DOUBLING, 24, 1e6, &m)),
       "recursive doubling all-gather on 24 ranks: NaN");
    ok(!isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_TREE, 6, 1e6, &m)) &&
           !isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_DOUBLE_BINARY_TREE, 6, 1e6, &m)) &&
           !isnan(T(CP_COLL_ALLTOALL, CP_ALGO_PAIRWISE, 12, 1e6, &m)),
       "trees and pairwise work for any p");
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_BRUCK, 8, 1e6, &m)),
       "bruck is not an all-reduce: NaN");
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_BRUCK, 8, &m, &t, &err) ==
               -1 &&
           strstr(err.text, "bruck is not an algorithm of allreduce"),
       "... and says so: %s", err.text);
    ok(!cp_model_algo_defined(CP_COLL_ALLREDUCE, CP_ALGO_BRUCK) &&
           cp_model_algo_defined(CP_COLL_ALLTOALL, CP_ALGO_BRUCK) &&
           !cp_model_algo_defined(CP_COLL_COUNT, CP_ALGO_RING),
       "cp_model_algo_defined");
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, 32, 1e6, &m)),
       "hierarchical without a topology: NaN");
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, 32, &m, &t,
                      &err) == -1 &&
           strstr(err.text, "topology"),
       "... and says why: %s", err.text);
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, 12, 1e6, &hm)),
       "hierarchical with 12 ranks of 8 per node: NaN");
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, 12, &hm, &t,
                      &err) == -1 &&
           strstr(err.text, "multiple"),
       "... and says why: %s", err.text);
    ok(isnan(T(CP_COLL_BROADCAST, CP_ALGO_HIERARCHICAL, 32, 1e6, &hm)),
       "hierarchical broadcast is not modelled: NaN");
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 0, 1e6, &m)), "p = 0: NaN");
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 4, -1, &m)), "n < 0: NaN");
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 4, NAN, &m)), "n NaN: NaN");
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 4, 1, NULL)),
       "no params: NaN");
    bad.alpha = -1;
    ok(cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 4, &bad, &t, &err) ==
               -1 &&
           strstr(err.text, "alpha"),
       "negative alpha is refused: %s", err.text);
    bad = m;
    bad.beta = INFINITY;
    ok(isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_RING, 4, 1, &bad)),
       "infinite beta: NaN");
    ok(isnan(T(CP_COLL_COUNT, CP_ALGO_RING, 4, 1, &m)) &&
           isnan(T(CP_COLL_ALLREDUCE, CP_ALGO_COUNT, 4, 1, &m)),
       "out-of-range enums: NaN");
    ok(cp_model_best(CP_COLL_ALLREDUCE, 0, 1, &m, &best, NULL, &err) == -1,
       "best on 0 ranks fails: %s", err.text);
    ok(cp_model_regime(CP_COLL_ALLREDUCE, CP_ALGO_RECURSIVE_DOUBLING, 6, 1, &m,
                       &r, NULL) == -1,
       "regime of an inapplicable algorithm fails");
    ok(isnan(cp_model_network_bound(32, 1e9, &m)),
       "network bound without a topology: NaN");
    ok(cp_model_hierarchical(32, 1e9, &m, NULL, &err) == -1,
       "hierarchical phases without a topology fail");
}

static void one_rank_and_p2p(void)
{
    struct cp_model_params m = flat(10 * US, 50 * GB);
    int zero = 1;

    for (int c = 0; c < CP_COLL_COUNT; c++)
        for (int a = 0; a < CP_ALGO_COUNT; a++) {
            double t = T((enum cp_coll)c, (enum cp_algo)a, 1, 1e6, &m);
            if (c != CP_COLL_SENDRECV && !isnan(t) && t != 0)
                zero = 0;
        }
    ok(zero, "every collective on one rank takes 0 s");
    is_near(T(CP_COLL_SENDRECV, CP_ALGO_DIRECT, 2, 1e6, &m), 10 * US + 20 * US,
            1e-12, "send/recv of 1 MB: alpha + n beta = 30 us");
    is_near(T(CP_COLL_BROADCAST, CP_ALGO_RING, 8, 1e9, &m),
            7 * 10 * US + 1e9 * m.beta, 1e-12,
            "ring broadcast: (p-1) alpha + n beta");
    is_near(T(CP_COLL_REDUCE, CP_ALGO_TREE, 8, 1e6, &m), 3 * 30 * US, 1e-12,
            "binomial reduce: lg p (alpha + n beta)");
    is_near(T(CP_COLL_ALLTOALL, CP_ALGO_BRUCK, 16, 1e6, &m),
            4 * (10 * US + 0.5e6 * m.beta), 1e-12,
            "bruck: lg p (alpha + n/2 beta)");
    is_near(T(CP_COLL_ALLTOALL, CP_ALGO_PAIRWISE, 16, 1e6, &m),
            15 * 10 * US + 15.0 / 16 * 1e6 * m.beta, 1e-12,
            "pairwise: (p-1) alpha + (p-1)/p n beta");
    is_near(T(CP_COLL_ALLREDUCE, CP_ALGO_RABENSEIFNER, 16, 1e6, &m),
            8 * 10 * US + 1.875e6 * m.beta, 1e-12,
            "rabenseifner: 2 lg p alpha + 2(p-1)/p n beta");
    is_near(T(CP_COLL_ALLREDUCE, CP_ALGO_DOUBLE_BINARY_TREE, 16, 1e6, &m),
            8 * 10 * US + 2e6 * m.beta, 1e-12,
            "double binary tree: 2 lg p alpha + 2 n beta");
    is_near(T(CP_COLL_ALLREDUCE, CP_ALGO_DOUBLE_BINARY_TREE, 12, 1e6, &m),
            8 * 10 * US + 2e6 * m.beta, 1e-12,
            "double binary tree on 12 ranks: depth ceil(lg 12) = 4");
    is_near(T(CP_COLL_ALLREDUCE, CP_ALGO_TREE, 16, 1e6, &m),
            8 * 30 * US, 1e-12, "binomial tree all-reduce: 2 lg p (alpha + n beta)");
    is_near(T(CP_COLL_GATHER, CP_ALGO_DIRECT, 8, 8e6, &m),
            7 * 10 * US + 7e6 * m.beta, 1e-12,
            "direct gather: (p-1) alpha + (p-1)/p n beta");
    is_near(T(CP_COLL_SCATTER, CP_ALGO_TREE, 8, 8e6, &m),
            3 * 10 * US + 7e6 * m.beta, 1e-12,
            "binomial scatter: lg p alpha + (p-1)/p n beta");
    is_near(T(CP_COLL_REDUCESCATTER, CP_ALGO_RECURSIVE_DOUBLING, 8, 8e6, &m),
            3 * 10 * US + 7e6 * m.beta, 1e-12,
            "recursive halving reduce-scatter: lg p alpha + (p-1)/p n beta");
    is_near(T(CP_COLL_ALLGATHER, CP_ALGO_RING, 8, 8e6, &m),
            7 * 10 * US + 7e6 * m.beta, 1e-12,
            "ring all-gather: (p-1) alpha + (p-1)/p n beta");
}

static void hierarchical_is_flat_on_one_node(void)
{
    static const unsigned gs[] = {1, 2, 4, 8};
    static const double ns[] = {0, 1e3, 1e6, 1e9};
    int same = 1, ring_intra = 1;

    for (size_t gi = 0; gi < 4; gi++) {
        struct cp_model_params h = topo(3 * US, 450 * GB, gs[gi], 10 * US,
                                        50 * GB);
        struct cp_model_params f = flat(3 * US, 450 * GB);
        for (size_t ni = 0; ni < 4; ni++) {
            double th = T(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, gs[gi],
                          ns[ni], &h);
            double tf = T(CP_COLL_ALLREDUCE, CP_ALGO_RING, gs[gi], ns[ni], &f);
            if (fabs(th - tf) > 1e-12 * fmax(tf, 1e-300))
                same = 0;
            if (T(CP_COLL_ALLREDUCE, CP_ALGO_RING, gs[gi], ns[ni], &h) != tf)
                ring_intra = 0;
        }
    }
    ok(same, "hierarchical with N = 1 node is the flat ring on the "
             "intra-node link");
    ok(ring_intra, "flat algorithms inside one node use the intra-node link");
    {
        /* a network as fast as NVLink: hierarchical = flat ring bandwidth */
        struct cp_model_params h = topo(3 * US, 450 * GB, 8, 3 * US, 450 * GB);
        struct cp_model_terms th, tr;
        cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, 32, &h, &th,
                       NULL);
        cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 32, &h, &tr, NULL);
        is_near(th.sec_per_byte, tr.sec_per_byte, 1e-12,
                "equal links: hierarchical moves the ring's bytes");
        ok(th.latency_s < tr.latency_s,
           "equal links: hierarchical has fewer steps (%g < %g alphas)",
           th.latency_s / h.alpha, tr.latency_s / h.alpha);
    }
    {
        struct cp_model_params h = topo(3 * US, 450 * GB, 8, 10 * US, 50 * GB);
        ok(cp_model_network_bound(8, 1e9, &h) == 0,
           "network bound on one node: 0");
        ok(cp_model_network_bound(32, 1e9, &h) <=
               T(CP_COLL_ALLREDUCE, CP_ALGO_HIERARCHICAL, 32, 1e9, &h),
           "the hierarchical time respects the network bound");
    }
}

static void regimes(void)
{
    struct cp_model_params m = flat(10 * US, 50 * GB);
    struct cp_model_terms t;
    enum cp_regime r;
    enum cp_algo best;
    double half;

    ok(cp_model_regime(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, 1 * MB, &m, &r,
                       NULL) == 0 &&
           r == CP_REGIME_LATENCY,
       "1 MB ring all-reduce on 16 ranks: latency-bound (300 > 37.5 us)");
    ok(cp_model_regime(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, 1 * GB, &m, &r,
                       NULL) == 0 &&
           r == CP_REGIME_BANDWIDTH,
       "1 GB: bandwidth-bound");
    cp_model_terms(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, &m, &t, NULL);
    half = t.latency_s / t.sec_per_byte;
    cp_model_regime(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, half * 0.99, &m, &r,
                    NULL);
    ok(r == CP_REGIME_LATENCY, "just below n_1/2: latency");
    cp_model_regime(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, half * 1.01, &m, &r,
                    NULL);
    ok(r == CP_REGIME_BANDWIDTH, "just above n_1/2: bandwidth");
    cp_model_regime(CP_COLL_ALLREDUCE, CP_ALGO_RING, 1, 1e6, &m, &r, NULL);
    ok(r == CP_REGIME_NONE, "one rank: no regime");
    cp_model_regime(CP_COLL_ALLREDUCE, CP_ALGO_RING, 16, 0, &m, &r, NULL);
    ok(r == CP_REGIME_LATENCY, "0 bytes on 16 ranks: latency");
    ok(cp_model_best(CP_COLL_ALLREDUCE, 16, 1 * MB, &m, &best, NULL, NULL) ==
               0 &&
           best == CP_ALGO_RABENSEIFNER,
       "best at 1 MB on 16 ranks: rabenseifner (117.5 us)");
    ok(cp_model_best(CP_COLL_ALLREDUCE, 16, 1e3, &m, &best, NULL, NULL) == 0 &&
           best == CP_ALGO_RECURSIVE_DOUBLING,
       "best at 1 kB: recursive doubling");
    ok(cp_model_best(CP_COLL_ALLREDUCE, 12, 1e9, &m, &best, NULL, NULL) == 0 &&
           best == CP_ALGO_RING,
       "best at 1 GB on 12 ranks: ring");
    ok(cp_model_best(CP_COLL_ALLREDUCE, 12, 1e3, &m, &best, NULL, NULL) == 0 &&
           best == CP_ALGO_DOUBLE_BINARY_TREE,
       "best at 1 kB on 12 ranks: double binary tree (8 alphas + 2 n beta)");
    ok(cp_model_best(CP_COLL_SENDRECV, 2, 1e3, &m, &best, NULL, NULL) == 0 &&
           best == CP_ALGO_DIRECT,
       "best send/recv: direct");
    is_str(cp_model_regime_name(CP_REGIME_LATENCY), "latency", "regime name");
    is_str(cp_model_regime_name(CP_REGIME_BANDWIDTH), "bandwidth",
           "regime name");
    is_str(cp_model_regime_name(CP_REGIME_NONE), "none", "regime name");
}

int main(void)
{
    example_b();
    example_c();
    example_d();
    quick_checks();
    busbw_conventions();
    names();
    crossovers();
    monotonic_and_bounds();
    not_applicable();
    one_rank_and_p2p();
    hierarchical_is_flat_on_one_node();
    regimes();
    return done_testing();
}
