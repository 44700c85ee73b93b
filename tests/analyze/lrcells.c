/* lrcells.c - a long run's detail windows per communicator (cp_lrcells.c
 * built here with LRC_MAX 8): cells past the bound are counted, not kept;
 * a cell's span, arrivals and own-time histograms hold what was added;
 * the quantile of a histogram is within its bin (+-4.4 %); the cells come
 * out by start. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "tap.h"

static struct an_lr_inst inst(uint32_t comm, int64_t start, double own,
                              unsigned slot, double n, int32_t last)
{
    struct an_lr_inst x;

    memset(&x, 0, sizeof x);
    x.comm = comm;
    x.start = start;
    x.end = start + 1000;
    x.slot = slot;
    x.members = 4;
    x.own_s = own;
    x.n = n;
    x.last_file = last;
    x.late_s = last >= 0 ? 1e-3 : 0;
    x.time_s = own + 1e-4;
    return x;
}

int main(void)
{
    struct an_wcells w;
    struct cp_analysis_long_run out;
    struct an_lr_inst x;
    const struct cp_analysis_wcell *c = NULL;
    unsigned i, k, comm;
    double q10, q95;

    memset(&w, 0, sizeof w);
    memset(&out, 0, sizeof out);
    /* 10 cells (5 windows x 2 communicators), later windows first */
    for (i = 0; i < 5; i++)
        for (comm = 0; comm < 2; comm++) {
            x = inst(comm, (int64_t)(10 - i) * 1000000000 + comm, 1e-6, 0,
                     1024, -1);
            an_wcells_add(&w, 5 - i, &x);
        }
    ok(w.n == 8 && w.left_out == 2,
       "past 8 cells the instances are counted, not kept (%zu cells, %llu "
       "left out)", w.n, (unsigned long long)w.left_out);
    /* the cell (window 5, comm 0): 90 calls of 1 us, 10 of 4 us; rank 3
     * last at 20 of them; a fifth key past the four kept */
    for (i = 0; i < 100; i++) {
        x = inst(0, 20000000000 + i, i < 90 ? 1e-6 : 4e-6, 0, 1024,
                 i < 20 ? 3 : -1);
        an_wcells_add(&w, 5, &x);
    }
    for (k = 1; k <= 4; k++) {
        x = inst(0, 20000000000, 2e-6, k, 1024, -1);
        an_wcells_add(&w, 5, &x);
    }
    ok(an_wcells_build(&w, 1000000000, &out) == 0 && out.nwcells == 8 &&
           out.wcells_left_out == 2,
       "the view: 8 cells, 2 instances left out");
    for (i = 0; i < out.nwcells; i++)
        if (out.wcells[i].index == 5 && out.wcells[i].comm == 0)
            c = &out.wcells[i];
    ok(c != NULL && c->instances == 105 && fabs(c->start_s - 9) < 1e-9 &&
           fabs(c->end_s - 19.000001099) < 1e-6,
       "the cell's instances and span (%llu, %.9f..%.9f s)",
       c ? (unsigned long long)c->instances : 0, c ? c->start_s : 0,
       c ? c->end_s : 0);
    ok(c && c->judged == 20 && fabs(c->fair - 5) < 1e-9 &&
           c->last[0].rank == 3 && c->last[0].count == 20 &&
           fabs(c->last[0].late_s - 0.02) < 1e-9,
       "its arrivals: 20 judged, fair share 5, rank 3 last at 20 by 20 ms");
    ok(c && c->nkeys == 4 && c->keys_lost == 1 && c->keys[0].calls == 101,
       "4 keys kept, the fifth's instance counted (%u keys, %llu lost)",
       c ? c->nkeys : 0, c ? (unsigned long long)c->keys_lost : 0);
    q10 = c ? cp_analysis_wkey_quantile(&c->keys[0], 0.1) : NAN;
    q95 = c ? cp_analysis_wkey_quantile(&c->keys[0], 0.95) : NAN;
    ok(fabs(q10 / 1e-6 - 1) < 0.045 && fabs(q95 / 4e-6 - 1) < 0.045,
       "quantiles within a bin: p10 %.4g s (1 us), p95 %.4g s (4 us)", q10,
       q95);
    for (i = 1, k = 1; i < out.nwcells; i++)
        if (out.wcells[i].start_s < out.wcells[i - 1].start_s)
            k = 0;
    ok(k, "the cells by start");
    free(out.wcells);
    an_wcells_free(&w);
    return done_testing();
}
