/* longrun_bound.c - the long run's join past its bound (cp_longrun.c built
 * here with LR_CELLS_MAX 256): 4 ranks' aggregates of 3 signatures over
 * 1,000 intervals of 1 s (3,000 cells) are merged into 16 s intervals
 * (63 of them), the table never past its 512 slots; the calls and the own
 * time add up to what was joined, the skew and the last rank are kept; an
 * aggregate of an interval already merged joins its merged cell. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "tap.h"

int main(void)
{
    struct an_longrun *lr = an_longrun_create();
    struct cp_analysis *an = calloc(1, sizeof *an);
    struct an_state st;
    struct cp_log_header h;
    struct cp_analysis_long_run *out;
    uint64_t calls = 0, k;
    double own = 0, skew_min = INFINITY, skew_max = 0;
    size_t i, j;
    unsigned sig, file, late_ok = 1;

    if (!lr || !an)
        return 1;
    memset(&h, 0, sizeof h);
    h.policy_first = 100;
    h.policy_window = 10;
    h.policy_every = 1000;
    h.policy_interval_ms = 1000;
    an_longrun_policy(lr, &h);
    for (k = 0; k < 1000; k++)
        for (sig = 0; sig < 3; sig++)
            for (file = 0; file < 4; file++) {
                struct cp_rec_agg r;
                memset(&r, 0, sizeof r);
                r.kind = CP_REC_AGG;
                r.op = CP_OP_AllReduce;
                r.dtype = 7;
                r.count = 1024u << sig;
                r.comm_id = 42;
                r.calls = 10;
                r.interval_ms = 1000;
                r.first_ns = k * 1000000000u + 5;
                /* rank 2 arrives last: it waits least */
                r.sum_ns = 10 * (file == 2 ? 1000 : 1300);
                an_longrun_add(lr, (int32_t)file, 0, 4, &r);
            }
    memset(&st, 0, sizeof st);
    st.longrun = lr;
    an->summary.start_ns = 0;
    ok(an_longrun_build(an, &st) == 0, "the view is built");
    out = &an->long_run;
    ok(out->present && out->merged == 4 && fabs(out->interval_s - 16) < 1e-9,
       "past 256 cells, intervals merged 2^4 into one: 16 s (merged %u, "
       "interval %.3f s)", out->merged, out->interval_s);
    ok(out->nintervals == 63, "1,000 s in 63 intervals of 16 s (%zu)",
       out->nintervals);
    ok(out->records == 12000 && out->records_left_out == 0 &&
           out->folded_calls == 120000,
       "every aggregate joined (%llu, %llu left out, %llu calls)",
       (unsigned long long)out->records,
       (unsigned long long)out->records_left_out,
       (unsigned long long)out->folded_calls);
    for (i = 0; i < out->nintervals; i++) {
        const struct cp_analysis_lr_interval *iv = &out->intervals[i];
        if (fabs(iv->start_s - (double)i * 16) > 1e-6 || iv->n != 1)
            late_ok = 0;
        for (j = iv->first; j < iv->first + iv->n; j++) {
            const struct cp_analysis_lr_comm *c = &out->lr_comms[j];
            calls += c->calls;
            own += c->own_s;
            if (c->skew_s < skew_min)
                skew_min = c->skew_s;
            if (c->skew_s > skew_max)
                skew_max = c->skew_s;
            if (c->ranks != 4 || c->last_rank != -1)
                late_ok = 0;
        }
    }
    ok(late_ok, "each interval 16 s after the one before, one communicator "
                "of 4 ranks (no rank table here: last_rank -1)");
    ok(calls == 120000, "the calls add up (%llu)", (unsigned long long)calls);
    /* own: 3 signatures x 1,000 s x 10 instances x 1 us */
    ok(fabs(own - 0.03) < 1e-9, "the own time adds up: %.9f s", own);
    ok(fabs(skew_min - 300e-9) < 1e-12 && fabs(skew_max - 300e-9) < 1e-12,
       "the skew is kept through the merges: %.3g..%.3g s", skew_min,
       skew_max);
    cp_analysis_destroy(an);
    an_longrun_free(lr);
    return done_testing();
}
