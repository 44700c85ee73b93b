/* arrive.c - cp_arrive, who arrived last at a communicator's recent
 * instances: an instance counts once every reporter has reported it; the
 * rank last at most of the newest complete instances, with the median
 * spread of those; each complete instance taken once, the newest first
 * kept when a take is limited; a node's report (earliest and latest of its
 * ranks) merges with others'; the newest instances kept, older ones
 * dropped, at a constant cost per call. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_arrive.h"
#include "tap.h"

#define T0 UINT64_C(1700000000000000000)
#define MS UINT64_C(1000000)

struct got {
    struct cp_arrive_last v[8];
    size_t n;
};

static void keep(void *arg, const struct cp_arrive_last *l)
{
    struct got *g = arg;

    if (g->n < 8)
        g->v[g->n++] = *l;
}

struct taken {
    uint32_t seq[512];
    int rank[512];
    uint64_t first[512], last[512];
    size_t n;
};

static void take(void *arg, uint64_t comm, uint32_t nranks, uint32_t seq,
                 int rank, uint64_t first_ns, uint64_t last_ns)
{
    struct taken *t = arg;

    (void)comm, (void)nranks;
    if (t->n < 512) {
        t->seq[t->n] = seq;
        t->rank[t->n] = rank;
        t->first[t->n] = first_ns;
        t->last[t->n++] = last_ns;
    }
}

/* Instance seq of comm 7 (4 ranks): every rank at T0 + seq ms, rank
 * `late` `by` later. */
static void instance(struct cp_arrive *a, uint32_t seq, int late, uint64_t by,
                     int ranks)
{
    for (int r = 0; r < ranks; r++) {
        uint64_t t = T0 + seq * MS + (r == late ? by : (uint64_t)r * 1000);
        cp_arrive_add(a, 7, 4, seq, r, t, t);
    }
}

int main(void)
{
    struct cp_arrive *a = cp_arrive_new();
    struct got g;
    struct taken t;
    size_t i;
    int ordered;

    /* 40 instances: rank 3 late by 5 ms at 30 of them, rank 1 by 2 ms at
     * the others (0-9) */
    for (uint32_t s = 0; s < 40; s++)
        instance(a, s, s < 10 ? 1 : 3, s < 10 ? 2 * MS : 5 * MS, 4);
    instance(a, 40, 2, 9 * MS, 3); /* only 3 of 4 ranks so far */
    memset(&g, 0, sizeof g);
    cp_arrive_lasts(a, 32, keep, &g);
    ok(g.n == 1 && g.v[0].comm == 7 && g.v[0].nranks == 4,
       "one communicator judged (%zu)", g.n);
    ok(g.v[0].rank == 3 && g.v[0].complete == 32 && g.v[0].last_of == 30,
       "of the 32 newest complete, rank 3 last at 30 (rank %d, %u of %u); "
       "the incomplete one not counted",
       g.v[0].rank, g.v[0].last_of, g.v[0].complete);
    ok(g.v[0].spread_ns == 5 * MS, "median spread at those: 5 ms (%llu)",
       (unsigned long long)g.v[0].spread_ns);

    memset(&t, 0, sizeof t);
    cp_arrive_take(a, 1000, take, &t);
    ordered = 1;
    for (i = 1; i < t.n; i++)
        ordered &= t.seq[i] == t.seq[i - 1] + 1;
    ok(t.n == 40 && t.seq[0] == 0 && ordered,
       "take: the 40 complete instances, oldest first (%zu)", t.n);
    ok(t.rank[12] == 3 && t.last[12] - t.first[12] == 5 * MS,
       "... each with its last rank and spread");
    memset(&t, 0, sizeof t);
    cp_arrive_take(a, 1000, take, &t);
    ok(t.n == 0, "a second take: nothing new (%zu)", t.n);
    cp_arrive_add(a, 7, 4, 40, 3, T0 + 40 * MS + 1, T0 + 40 * MS + 1);
    for (uint32_t s = 41; s < 45; s++)
        instance(a, s, 0, MS, 4);
    memset(&t, 0, sizeof t);
    cp_arrive_take(a, 2, take, &t);
    ok(t.n == 2 && t.seq[0] == 43 && t.seq[1] == 44,
       "take of at most 2: the 2 newest of the 5 completed since (%zu: %u %u)",
       t.n, t.n ? t.seq[0] : 0, t.n > 1 ? t.seq[1] : 0);
    memset(&t, 0, sizeof t);
    cp_arrive_take(a, 1000, take, &t);
    ok(t.n == 0, "... the older ones are taken too (%zu)", t.n);

    /* the newest CP_ARRIVE_KEEP kept: an instance far older is dropped */
    for (uint32_t s = 45; s < 45 + 2 * CP_ARRIVE_KEEP; s++)
        instance(a, s, 2, 3 * MS, 4);
    cp_arrive_add(a, 7, 4, 50, 0, T0, T0);
    memset(&g, 0, sizeof g);
    cp_arrive_lasts(a, CP_ARRIVE_KEEP, keep, &g);
    ok(g.n == 1 && g.v[0].complete == CP_ARRIVE_KEEP && g.v[0].rank == 2 &&
           g.v[0].last_of == CP_ARRIVE_KEEP,
       "after 256 more: the %d newest kept, all rank 2's (%u of %u)",
       CP_ARRIVE_KEEP, g.n ? g.v[0].last_of : 0, g.n ? g.v[0].complete : 0);
    cp_arrive_free(a);

    /* nodes as reporters: two nodes, each its earliest and latest */
    a = cp_arrive_new();
    for (uint32_t s = 0; s < 20; s++) {
        cp_arrive_add(a, 9, 8, s, 2, T0 + s * MS, T0 + s * MS + 100);
        cp_arrive_add(a, 9, 8, s, 5, T0 + s * MS + 50, T0 + s * MS + 4 * MS);
    }
    cp_arrive_add(a, 11, 2, 0, 0, T0, T0); /* 2 ranks: not judged */
    cp_arrive_add(a, 11, 2, 0, 1, T0, T0 + MS);
    memset(&g, 0, sizeof g);
    cp_arrive_lasts(a, 32, keep, &g);
    ok(g.n == 1 && g.v[0].comm == 9 && g.v[0].rank == 5 &&
           g.v[0].last_of == 20 && g.v[0].spread_ns == 4 * MS,
       "two nodes' reports merged: rank 5 last at 20 of 20, spread from the "
       "other node's earliest (4 ms); a 2-rank communicator not judged");
    cp_arrive_free(a);
    return done_testing();
}
