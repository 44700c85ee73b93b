/* phases.c - the kernels' own skew (analyzer/analysis/cp_phases.c,
 * an->nccl.phases) on logs written by tests/tools/gen_logs --phases: each
 * collective call's initial-sync phase lasts from the member's arrival to
 * the instance's last arrival on a device timer of true time, while node
 * n1's wall clock runs 40 ms ahead.  The phases' skew is then the true
 * arrival skew whatever the clocks; the hosts' skew of the same instances
 * is right only once the analysis has corrected n1's offset.  Without
 * --phases there is no phase, and the analysis says why. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_analysis.h"
#include "cp_judge.h"
#include "tap.h"

static int generate(const char *b, const char *logs, const char *extra)
{
    char cmd[1024];
    int rc;

    snprintf(cmd, sizeof cmd,
             "%s/tests/tools/gen_logs -o %s --pattern ddp-small --ranks 8 "
             "--ranks-per-node 2 --steps 5 --straggler 5=3ms "
             "--clock-offset 1=40ms --seed 7 %s",
             b, logs, extra);
    rc = system(cmd);
    if (rc != 0)
        diag("'%s' exited %d", cmd, rc);
    return rc;
}

int main(void)
{
    const char *b = getenv("top_builddir");
    char dir[256], logs[300], plain[300], cmd[700];
    const char *paths[2] = {NULL, NULL};
    struct cp_analysis_opts opts;
    struct cp_analysis *an;
    struct cp_error err;
    const struct cp_analysis_phases *ph;

    if (!b)
        b = ".";
    snprintf(dir, sizeof dir, "/tmp/cp-phases-t-%d", (int)getpid());
    snprintf(logs, sizeof logs, "%s/phases", dir);
    snprintf(plain, sizeof plain, "%s/plain", dir);
    if (generate(b, logs, "--phases") != 0 || generate(b, plain, "") != 0)
        skip_all("gen_logs did not run");

    cp_analysis_opts_init(&opts);
    paths[0] = logs;
    an = cp_analysis_run(paths, &opts, &err);
    ok(an != NULL, "analysis of logs with initial-sync phases");
    if (!an)
        return done_testing();
    ph = &an->nccl.phases;
    is_int(ph->records, an->summary.calls, "one initial-sync record per call");
    is_int(ph->damaged, 0, "none damaged");
    is_int(ph->instances, an->summary.instances,
           "every instance has its members' phases");
    ok(ph->why == NULL, "no reason given: there are phases");
    ok(an->nodes[1].offset_known && fabs(an->nodes[1].offset_s - 0.040) < 0.002,
       "n1's clock offset found: %.4f s (40 ms planted)", an->nodes[1].offset_s);
    /* the straggler is 3 ms late to every call, the others' gaps vary by
     * +-20 % of 50 us: the true skew is 3 ms or a little more */
    ok(ph->skew.p50_s >= 0.0029 && ph->skew.p50_s <= 0.0032,
       "the kernels' median skew is the straggler's 3 ms (%.6f s)",
       ph->skew.p50_s);
    ok(ph->difference.p90_s <= 0.001,
       "the offset-corrected hosts' skew agrees within 1 ms at the 90th "
       "percentile (%.6f s; the uncorrected clocks are 40 ms apart)",
       ph->difference.p90_s);
    /* a step's first call has the step gap's spread (+-20 % of 20 ms) */
    ok(ph->skew.max_s < 0.020 &&
           fabs(ph->skew.max_s - ph->host_skew.max_s) <= 0.001,
       "no instance's kernel skew carries n1's 40 ms: the largest, %.6f s, "
       "is the hosts' (%.6f s)",
       ph->skew.max_s, ph->host_skew.max_s);
    /* who came last, read on the device clocks alone */
    ok(ph->nlast >= 1 && ph->last[0].rank == 5 &&
           ph->last[0].last_arrivals >= ph->instances * 9 / 10,
       "the straggler, rank 5, came last most often by the phases "
       "(rank %d, %llu of %llu instances)",
       ph->nlast ? ph->last[0].rank : -1,
       ph->nlast ? (unsigned long long)ph->last[0].last_arrivals : 0ULL,
       (unsigned long long)ph->instances);
    ok(ph->nlast >= 1 && ph->last[0].last_arrivals > 0 &&
           fabs(ph->last[0].late_s / (double)ph->last[0].last_arrivals -
                0.003) < 0.0005,
       "... by its planted 3 ms on average (%.6f s)",
       ph->nlast && ph->last[0].last_arrivals
           ? ph->last[0].late_s / (double)ph->last[0].last_arrivals
           : 0.0);
    cp_analysis_destroy(an);

    paths[0] = plain;
    an = cp_analysis_run(paths, &opts, &err);
    ok(an != NULL, "analysis of the same logs without phases");
    if (an) {
        ph = &an->nccl.phases;
        ok(ph->records == 0 && ph->instances == 0 && ph->why &&
               strstr(ph->why, "API v7"),
           "no phase: none counted, and why (%s)", ph->why ? ph->why : "");
        ok(isnan(ph->skew.p50_s), "no skew figure from phases");
        cp_analysis_destroy(an);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
