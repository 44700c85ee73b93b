/* analysis.c - the analysis library's API (analyzer/analysis/cp_analysis.h) on logs
 * written by tests/tools/gen_logs: the result struct, the JSON, errors. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_analysis.h"
#include "cp_judge.h"
#include "tap.h"

static char dir[256];

static int run(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0)
        diag("'%s' exited %d", cmd, rc);
    return rc;
}

int main(void)
{
    const char *b = getenv("top_builddir");
    char cmd[1024], logs[300];
    const char *paths[2];
    struct cp_analysis_opts opts;
    struct cp_analysis *an;
    struct cp_error err;
    const struct cp_analysis_finding *f;
    json_t *j;
    const char *key;
    json_t *v;
    size_t i, k;
    static const char *const top[] = {
        "schema", "generator", "job", "summary", "model", "clock_offsets",
        "communicators", "collectives", "ranks", "timeline", "slowest",
        "topology", "links", "ports", "findings", "inputs"};

    if (!b)
        b = ".";
    snprintf(dir, sizeof dir, "/tmp/cp-analysis-t-%d", (int)getpid());
    snprintf(logs, sizeof logs, "%s/logs", dir);
    snprintf(cmd, sizeof cmd,
             "%s/tests/tools/gen_logs -o %s --pattern ddp-small --ranks 8 "
             "--ranks-per-node 2 --steps 10 --straggler 3=1ms --seed 5",
             b, logs);
    if (run(cmd) != 0)
        skip_all("gen_logs did not run");

    cp_analysis_destroy(NULL);
    ok(1, "destroy(NULL)");

    paths[0] = "/nonexistent/logs";
    paths[1] = NULL;
    an = cp_analysis_run(paths, NULL, &err);
    ok(an == NULL && strstr(err.text, "no readable collprof log") &&
           strstr(err.text, "/nonexistent/logs"),
       "no readable input: NULL, error names the path (%s)", err.text);

    paths[0] = logs;
    cp_analysis_opts_init(&opts);
    an = cp_analysis_run(paths, &opts, &err);
    ok(an != NULL, "analysis of a generated set");
    if (!an)
        return done_testing();
    is_int(an->nranks, 8, "ranks");
    is_int(an->nnodes, 4, "nodes");
    is_str(an->nodes[0].name, "n0", "node 0 holds rank 0");
    is_str(an->job_id, "1234", "job id");
    is_int(an->world_size, 8, "world size");
    is_int(an->summary.calls, 8 * (1 + 10 * 100), "calls");
    is_int(an->summary.instances, 1 + 10 * 100, "instances");
    is_int(an->summary.incomplete_instances, 0, "all complete");
    is_int(an->summary.steps, 10, "steps from the call pattern");
    ok(an->model[CP_LINK_INTER].source == CP_SOURCE_FIT, "inter model fitted");
    is_near(an->model[CP_LINK_INTER].alpha_s, 20e-6, 0.10, "inter alpha");
    is_near(an->model[CP_LINK_INTER].bandwidth_Bps, 400e6, 0.10,
            "inter bandwidth");
    ok(an->model[CP_LINK_INTRA].source == CP_SOURCE_NONE,
       "no intra calls: no intra model");
    ok(an->ncomms >= 1 && an->comms[0].link == CP_LINK_INTER &&
           an->comms[0].nnodes == 4,
       "the world communicator spans 4 nodes");
    ok(an->nrows > 0, "aggregates");
    for (i = k = 0; i < an->nrows; i++)
        k += an->rows[i].calls;
    is_int(k, an->summary.instances, "rows hold every instance");
    f = cp_analysis_finding_of(an, CP_KIND_LATENCY_BOUND);
    ok(f && f->severity == CP_SEVERITY_CRITICAL, "latency_bound, critical");
    ok(f && json_is_number(json_object_get(f->evidence, "saving_per_step_s")),
       "with the saving per step");
    f = cp_analysis_finding_of(an, CP_KIND_STRAGGLER);
    ok(f && f->nranks == 1 && f->ranks[0] == 3, "straggler rank 3");
    ok(f && f->nnodes == 1 && strcmp(an->nodes[f->nodes[0]].name, "n1") == 0,
       "on node n1");
    is_int(cp_analysis_worst_severity(an), CP_SEVERITY_CRITICAL,
           "worst severity");
    for (i = 1; i < an->nfindings; i++)
        ok(an->findings[i - 1].severity >= an->findings[i].severity,
           "findings sorted by severity (%zu)", i);

    j = cp_analysis_to_json(an);
    ok(j != NULL, "JSON");
    i = 0;
    json_object_foreach(j, key, v) {
        ok(i < sizeof top / sizeof top[0] && strcmp(key, top[i]) == 0,
           "top-level key %zu is %s", i, key);
        i++;
    }
    is_str(json_string_value(json_object_get(j, "schema")), CP_REPORT_SCHEMA,
           "schema version");
    {
        /* the node-pair matrices: a value shared by both halves holds a
         * reference per place it stands in (else freeing the report
         * frees it twice) */
        static const char *const mats[] = {"bandwidth_Bps", "efficiency"};
        json_t *topo = json_object_get(j, "topology");
        size_t m, r, c, cells = 0, wrong = 0;
        for (m = 0; m < 2; m++) {
            json_t *rows = json_object_get(topo, mats[m]);
            for (r = 0; r < json_array_size(rows); r++)
                for (c = 0; c < json_array_size(json_array_get(rows, r));
                     c++) {
                    json_t *x = json_array_get(json_array_get(rows, r), c);
                    json_t *y = json_array_get(json_array_get(rows, c), r);
                    if (!json_is_real(x))
                        continue;
                    cells++;
                    if (x->refcount != (x == y && r != c ? 2u : 1u))
                        wrong++;
                }
        }
        ok(cells > 0 && wrong == 0,
           "pair matrices: %zu values, %zu with a wrong reference count",
           cells, wrong);
    }
    json_decref(j);
    cp_analysis_destroy(an);

    /* options: steps and bucket given */
    opts.steps = 5;
    opts.bucket_bytes = 1e6;
    an = cp_analysis_run(paths, &opts, &err);
    ok(an && an->summary.steps == 5 &&
           strcmp(an->summary.steps_method, "--steps") == 0,
       "--steps");
    f = an ? cp_analysis_finding_of(an, CP_KIND_LATENCY_BOUND) : NULL;
    ok(f && json_real_value(json_object_get(f->evidence, "bucket_bytes")) == 1e6,
       "the bucket evaluated is the one given");
    cp_analysis_destroy(an);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
    return done_testing();
}
