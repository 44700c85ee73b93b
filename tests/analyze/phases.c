/* phases.c - the kernels' own skew (analyzer/analysis/cp_phases.c,
 * an->nccl.phases) on logs written by tests/tools/gen_logs --phases: each
 * collective call's initial-sync phase lasts from the member's arrival to
 * the instance's last arrival on a device timer of true time, while node
 * n1's wall clock runs 40 ms ahead.  The phases' skew is then the true
 * arrival skew whatever the clocks; the hosts' skew of the same instances
 * is right only once the analysis has corrected n1's offset.  Without
 * --phases there is no phase, and the analysis says why.
 *
 * The straggler finding beside them: where the kernels put the same rank
 * last it says so and their agreement settles the clock correction's
 * doubt; where a rank's kernels lag its calls (--kernel-late, a GPU
 * behind its host) the kernels put that rank last, and the finding the
 * hosts' arrivals make of another is info and not sure; with no straggler
 * at all on the hosts, the kernels' rank is no finding. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_analysis.h"
#include "cp_analysis_int.h"
#include "cp_judge.h"
#include "tap.h"

static int generate(const char *b, const char *logs, const char *extra)
{
    char cmd[1024];
    int rc;

    snprintf(cmd, sizeof cmd,
             "%s/tests/tools/gen_logs -o %s --pattern ddp-small --ranks 8 "
             "--ranks-per-node 2 --steps 5 --clock-offset 1=40ms --seed 7 %s",
             b, logs, extra);
    rc = system(cmd);
    if (rc != 0)
        diag("'%s' exited %d", cmd, rc);
    return rc;
}

/* Per communicator, the kernels' skew of its own instances: every
 * instance counted once, and the straggler's 3 ms in each communicator
 * it belongs to. */
static void comm_skews(const struct cp_analysis *an)
{
    uint64_t sum = 0;
    size_t ci, with = 0, right = 0;

    for (ci = 0; ci < an->ncomms; ci++) {
        const struct cp_analysis_comm *c = &an->comms[ci];
        unsigned r;
        int has5 = 0;
        if (c->kernel_instances == 0)
            continue;
        with++;
        sum += c->kernel_instances;
        for (r = 0; r < c->nranks; r++)
            has5 |= c->ranks[r] == 5;
        right += c->kernel_instances == c->instances && has5 &&
                 c->kernel_skew.p50_s >= 0.0029 &&
                 c->kernel_skew.p50_s <= 0.0032 &&
                 c->kernel_skew.p50_s <= c->kernel_skew.p90_s &&
                 c->kernel_skew.p90_s <= c->kernel_skew.max_s;
    }
    is_int(sum, an->nccl.phases.instances,
           "the communicators' kernel skews count every instance once");
    ok(with > 0 && right == with,
       "each of the %zu communicators with phases: all its instances, and "
       "rank 5's 3 ms at its median", with);
}

/* The straggler finding of an, or NULL. */
static const struct cp_analysis_finding *
straggler(const struct cp_analysis *an)
{
    size_t i;

    for (i = 0; i < an->nfindings; i++)
        if (an->findings[i].kind == CP_KIND_STRAGGLER)
            return &an->findings[i];
    return NULL;
}

static json_t *ev(const struct cp_analysis_finding *f, const char *key)
{
    return f ? json_object_get(f->evidence, key) : NULL;
}

/* Rank 5 last on the hosts and on the kernels. */
static void straggler_agrees(const struct cp_analysis *an)
{
    const struct cp_analysis_finding *f = straggler(an);

    ok(f && f->nranks == 1 && f->ranks[0] == 5,
       "the hosts' arrivals name rank 5 a straggler");
    ok(json_is_true(ev(f, "kernel_agrees")) &&
           json_integer_value(ev(f, "kernel_last_rank")) == 5 &&
           json_is_true(ev(f, "sure")),
       "its evidence: the kernels agree, rank 5 first of their last "
       "arrivals, sure");
    ok(json_integer_value(ev(f, "kernel_last_arrivals")) ==
               (json_int_t)an->nccl.phases.last[0].last_arrivals &&
           json_integer_value(ev(f, "kernel_instances")) ==
               (json_int_t)an->nccl.phases.instances &&
           fabs(json_number_value(ev(f, "kernel_late_s")) -
                an->nccl.phases.last[0].late_s) < 1e-9 &&
           json_is_string(ev(f, "kernel_source")) &&
           strcmp(json_string_value(ev(f, "kernel_source")),
                  "kernel_phases") == 0,
       "... how often its kernel came last and by how much, read on the "
       "device clocks (kernel_source kernel_phases)");
    ok(f && f->message && strstr(f->message, "no clock correction, agree"),
       "... and says so (%s)", f && f->message ? f->message : "");
    /* n1's 40 ms offset is corrected to within more than the 3 ms lead:
     * the hosts alone are not sure (below), the kernels settle it */
    ok(f && f->severity != CP_SEVERITY_INFO && ev(f, "clock_error_s") &&
           json_number_value(ev(f, "clock_error_s")) > 0.003,
       "the kernels' agreement settles the clock correction's doubt "
       "(clock_error_s %.4f s, not info)",
       json_number_value(ev(f, "clock_error_s")));
}

/* The same job without phases: the finding as before, no kernel keys. */
static void straggler_without_phases(const struct cp_analysis *an)
{
    const struct cp_analysis_finding *f = straggler(an);

    ok(f && f->ranks[0] == 5 && f->severity == CP_SEVERITY_INFO &&
           !ev(f, "kernel_agrees") && !ev(f, "kernel_last_rank") &&
           !ev(f, "sure") && !strstr(f->message, "kernel"),
       "without phases: rank 5 named, info (the clock correction's doubt), "
       "no kernel evidence and no sure");
}

/* Rank 5 late on the hosts, rank 2's kernels 6 ms behind its calls:
 * the hosts and the kernels disagree.  clocked: n1's 40 ms offset too. */
static void kernels_disagree(const char *b, const char *dir,
                             const char *extra, int clocked)
{
    char logs[300], opt[300], cmd[400];
    const char *paths[2] = {logs, NULL};
    const struct cp_analysis_finding *f;
    struct cp_analysis_opts opts;
    struct cp_analysis *an;
    struct cp_error err;

    snprintf(logs, sizeof logs, "%s/disagree%d", dir, clocked);
    snprintf(opt, sizeof opt,
             "--straggler 5=3ms --kernel-late 2=6ms --phases %s", extra);
    if (generate(b, logs, opt) != 0) {
        ok(0, "gen_logs %s", opt);
        return;
    }
    cp_analysis_opts_init(&opts);
    an = cp_analysis_run(paths, &opts, &err);
    ok(an && an->nccl.phases.nlast >= 1 && an->nccl.phases.last[0].rank == 2,
       "%s: the kernels put rank 2 last", clocked ? "n1 40 ms ahead"
                                                   : "no clock offset");
    f = an ? straggler(an) : NULL;
    ok(f && f->nranks == 1 && f->ranks[0] == 5 &&
           f->severity == CP_SEVERITY_INFO,
       "... the hosts' rank 5 is named, at info");
    ok(json_is_false(ev(f, "kernel_agrees")) && json_is_false(ev(f, "sure")) &&
           json_integer_value(ev(f, "kernel_last_rank")) == 2 &&
           json_is_integer(ev(f, "kernel_last_arrivals")),
       "... evidence: the kernels disagree (rank 2 first), not sure");
    ok(f && f->message && strstr(f->message, "Not sure") &&
           strstr(f->message, "put rank 2 last") &&
           strstr(f->message, "may be late"),
       "... and the text says it is not sure, naming both (%s)",
       f && f->message ? f->message : "");
    cp_analysis_destroy(an);
    snprintf(cmd, sizeof cmd, "rm -rf %s", logs);
    if (system(cmd) != 0)
        diag("could not remove %s", logs);
}

/* Only rank 2's kernels late: no straggler on the hosts, so none is
 * named; the phases clearly put rank 2 last (nccl_profiler.phases.info,
 * written where the report has the plugin's section). */
static void kernels_alone(const char *b, const char *dir)
{
    char logs[300], cmd[400];
    const char *paths[2] = {logs, NULL};
    const struct cp_analysis_phase_rank *p;
    struct cp_analysis_opts opts;
    struct cp_analysis *an;
    struct cp_error err;

    snprintf(logs, sizeof logs, "%s/kernels", dir);
    if (generate(b, logs, "--kernel-late 2=6ms --phases") != 0) {
        ok(0, "gen_logs --kernel-late 2=6ms");
        return;
    }
    cp_analysis_opts_init(&opts);
    an = cp_analysis_run(paths, &opts, &err);
    ok(an && !straggler(an),
       "rank 2's kernels late alone: no straggler finding");
    p = an ? an_phases_clear_last(&an->nccl.phases) : NULL;
    ok(p && p->rank == 2 && p->last_arrivals * 10 >= an->nccl.phases.instances * 9,
       "... the phases clearly put rank 2 last (%llu of %llu instances)",
       p ? (unsigned long long)p->last_arrivals : 0ULL,
       an ? (unsigned long long)an->nccl.phases.instances : 0ULL);
    cp_analysis_destroy(an);
    snprintf(cmd, sizeof cmd, "rm -rf %s", logs);
    if (system(cmd) != 0)
        diag("could not remove %s", logs);
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
    if (generate(b, logs, "--straggler 5=3ms --phases") != 0 ||
        generate(b, plain, "--straggler 5=3ms") != 0)
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
    comm_skews(an);
    straggler_agrees(an);
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
        {
            size_t ci, with = 0;
            for (ci = 0; ci < an->ncomms; ci++)
                with += an->comms[ci].kernel_instances > 0;
            is_int(with, 0, "no communicator has a kernel skew");
        }
        straggler_without_phases(an);
        cp_analysis_destroy(an);
    }
    kernels_disagree(b, dir, "", 1);
    kernels_disagree(b, dir, "--clock-offset 1=0", 0);
    kernels_alone(b, dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
