/* train_sim - a simulated multi-rank training program.
 *
 * Calls the NCCL API the way DDP, FSDP, Megatron tensor and pipeline
 * parallelism and mixture-of-experts layers do, on host buffers, checking
 * every element of every result, for collprof's tests against the CPU NCCL
 * of tests/simnccl.  See tests/apps/README.md.
 *
 * Exit status: 0 when every result was right, 1 on a wrong value or any
 * failure, 2 on a usage error.
 */
#include <errno.h>
#include <dlfcn.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <collprof/cp_nccl.h>

#include "ts_bootstrap.h"
#include "ts_comm.h"
#include "ts_dtype.h"
#include "ts_expect.h"
#include "ts_fault.h"
#include "ts_pattern.h"
#include "ts_run.h"

struct options {
    const struct ts_pattern *pattern;
    int steps;
    int graph_replays; /* --graph-replays: 0 = no graph */
    bool quiet;
    bool corrupt;       /* hidden: rank 1 perturbs one all-reduce result */
    const char *expect; /* --expect template, or NULL */
    int late_rank;      /* --late R:MS: rank R computes MS more before each
                           collective (-1: none) */
    double late_ms;
    struct ts_pattern_config config;
};

enum option_id {
    OPT_PATTERN = 256,
    OPT_STEPS,
    OPT_SCALE,
    OPT_DTYPE,
    OPT_TP_SIZE,
    OPT_PP_STAGES,
    OPT_BUCKET_MB,
    OPT_EXPECT,
    OPT_QUIET,
    OPT_CORRUPT,
    OPT_GRAPH_REPLAYS,
    OPT_LATE,
    OPT_HELP,
};

static const struct option long_options[] = {
    {"pattern", required_argument, NULL, OPT_PATTERN},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"tp-size", required_argument, NULL, OPT_TP_SIZE},
    {"pp-stages", required_argument, NULL, OPT_PP_STAGES},
    {"bucket-mb", required_argument, NULL, OPT_BUCKET_MB},
    {"expect", required_argument, NULL, OPT_EXPECT},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"corrupt", no_argument, NULL, OPT_CORRUPT},
    {"graph-replays", required_argument, NULL, OPT_GRAPH_REPLAYS},
    {"late", required_argument, NULL, OPT_LATE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static void
print_usage(FILE *stream)
{
    fprintf(stream,
            "usage: %s --pattern %s [--steps N] [--scale F]\n"
            "       [--dtype %s] [--tp-size T] [--pp-stages S]\n"
            "       [--bucket-mb M] [--expect FILE%%d] [--quiet]\n"
            "       [--graph-replays N] [--late R:MS]\n"
            "Run under simrun, srun, or with RANK and WORLD_SIZE set; the\n"
            "ranks exchange the NCCL id in $SIMNCCL_IDDIR or "
            "$TRAIN_SIM_IDDIR.\n"
            "Every run: init of the world (commName \"world\"), the splits,\n"
            "a broadcast of the weights and a bcast of the config; then\n"
            "--steps steps of the pattern; --graph-replays N (simnccl\n"
            "only): two all-reduces captured into a graph once and launched\n"
            "N times; a reduce of the metrics.  --late R:MS: rank R\n"
            "computes MS milliseconds longer before each collective (a\n"
            "straggler: it arrives last and the others wait).\n"
            "Patterns (tests/apps/README.md has the sizes):\n",
            TS_RUN_PROGRAM, ts_pattern_choices(), ts_dtype_choices());
    ts_pattern_describe(stream);
}

static int
parse_int_option(const char *name, const char *text, int minimum,
                 int maximum, int *value, char *err, size_t errlen)
{
    char *end;
    long parsed;

    errno = 0;
    parsed = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < minimum ||
        parsed > maximum) {
        snprintf(err, errlen, "--%s %s: expected an integer from %d to %d",
                 name, text, minimum, maximum);
        return -1;
    }
    *value = (int)parsed;
    return 0;
}

/* A number in (0, maximum]. */
static int
parse_positive_option(const char *name, const char *text, double maximum,
                      double *value, char *err, size_t errlen)
{
    char *end;
    double parsed;

    errno = 0;
    parsed = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(parsed) ||
        parsed <= 0 || parsed > maximum) {
        snprintf(err, errlen,
                 "--%s %s: expected a number above 0 and at most %g", name,
                 text, maximum);
        return -1;
    }
    *value = parsed;
    return 0;
}

/* 0 when the options are good, -1 with a message in err, 1 for --help. */
static int
parse_options(int argc, char **argv, struct options *options, char *err,
              size_t errlen)
{
    char path[4096];
    int opt;

    memset(options, 0, sizeof *options);
    options->steps = 5;
    options->config.dtype = &ts_dtype_float32;
    options->config.scale = 1.0;
    options->config.bucket_mb = 1.0;
    options->late_rank = -1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        int rc = 0;
        switch (opt) {
        case OPT_PATTERN:
            options->pattern = ts_pattern_find(optarg);
            if (options->pattern == NULL) {
                snprintf(err, errlen, "--pattern %s: expected one of %s",
                         optarg, ts_pattern_choices());
                rc = -1;
            }
            break;
        case OPT_STEPS:
            rc = parse_int_option("steps", optarg, 0, 1000000,
                                  &options->steps, err, errlen);
            break;
        case OPT_SCALE:
            rc = parse_positive_option("scale", optarg, 1000,
                                       &options->config.scale, err, errlen);
            break;
        case OPT_DTYPE:
            options->config.dtype = ts_dtype_find(optarg);
            if (options->config.dtype == NULL) {
                snprintf(err, errlen, "--dtype %s: expected one of %s",
                         optarg, ts_dtype_choices());
                rc = -1;
            }
            break;
        case OPT_TP_SIZE:
            rc = parse_int_option("tp-size", optarg, 1, 1 << 20,
                                  &options->config.tp_size, err, errlen);
            break;
        case OPT_PP_STAGES:
            rc = parse_int_option("pp-stages", optarg, 1, 1 << 20,
                                  &options->config.pp_stages, err, errlen);
            break;
        case OPT_BUCKET_MB:
            rc = parse_positive_option("bucket-mb", optarg, 4096,
                                       &options->config.bucket_mb, err,
                                       errlen);
            break;
        case OPT_EXPECT:
            options->expect = optarg;
            /* a bad template is a usage error, found before any NCCL */
            rc = ts_expect_path(optarg, 0, path, sizeof path, err, errlen);
            break;
        case OPT_QUIET:
            options->quiet = true;
            break;
        case OPT_CORRUPT:
            options->corrupt = true;
            break;
        case OPT_GRAPH_REPLAYS:
            rc = parse_int_option("graph-replays", optarg, 0, 1000000,
                                  &options->graph_replays, err, errlen);
            break;
        case OPT_LATE: {
            char *end;
            long r;
            errno = 0;
            r = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end != ':' || r < 0 ||
                r > INT_MAX) {
                snprintf(err, errlen, "--late %s: expected RANK:MS", optarg);
                rc = -1;
                break;
            }
            options->late_rank = (int)r;
            rc = parse_positive_option("late", end + 1, 10000,
                                       &options->late_ms, err, errlen);
            break;
        }
        case OPT_HELP:
            return 1;
        default:
            if (optopt >= OPT_PATTERN)
                snprintf(err, errlen, "option --%s needs a value",
                         argv[optind - 1] + 2);
            else
                snprintf(err, errlen, "unknown option %s",
                         argv[optind - 1]);
            rc = -1;
            break;
        }
        if (rc < 0)
            return -1;
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument %s", argv[optind]);
        return -1;
    }
    if (options->pattern == NULL) {
        snprintf(err, errlen, "--pattern is required");
        return -1;
    }
    return 0;
}

/* --graph-replays N: capture GRAPH_CALLS all-reduces on the world into a
 * graph once, launch it N times, check the sums.  Only simnccl has the
 * capture entry points (tests/simnccl/simnccl_graph.h), found with dlsym so
 * that train_sim still runs on a real NCCL without this option. */
#define GRAPH_CALLS 2
#define GRAPH_COUNT 4096

static int
graph_replay(struct ts_run *run, struct ts_comm *world, int replays,
             char *err, size_t errlen)
{
    ncclResult_t (*begin)(void), (*end)(void **), (*launch)(void *);
    void (*destroy)(void *);
    float *send = NULL, *recv = NULL;
    void *graph = NULL;
    int rc = -1, i, k;
    size_t e;

    *(void **)&begin = dlsym(RTLD_DEFAULT, "simncclGraphBegin");
    *(void **)&end = dlsym(RTLD_DEFAULT, "simncclGraphEnd");
    *(void **)&launch = dlsym(RTLD_DEFAULT, "simncclGraphLaunch");
    *(void **)&destroy = dlsym(RTLD_DEFAULT, "simncclGraphDestroy");
    if (!begin || !end || !launch || !destroy) {
        snprintf(err, errlen, "--graph-replays needs simnccl's graph capture "
                              "(this NCCL has no simncclGraphBegin)");
        return -1;
    }
    send = calloc(GRAPH_CALLS * GRAPH_COUNT, sizeof *send);
    recv = calloc(GRAPH_CALLS * GRAPH_COUNT, sizeof *recv);
    if (!send || !recv) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (e = 0; e < GRAPH_CALLS * GRAPH_COUNT; e++)
        send[e] = (float)(run->rank + 1);
    if (begin() != ncclSuccess) {
        snprintf(err, errlen, "simncclGraphBegin failed");
        goto out;
    }
    for (k = 0; k < GRAPH_CALLS; k++)
        if (ncclAllReduce(send + k * GRAPH_COUNT, recv + k * GRAPH_COUNT,
                          GRAPH_COUNT, ncclFloat32, ncclSum, world->handle,
                          NULL) != ncclSuccess) {
            snprintf(err, errlen, "capturing an all-reduce failed");
            goto out;
        }
    run->calls += GRAPH_CALLS;
    if (end(&graph) != ncclSuccess) {
        snprintf(err, errlen, "simncclGraphEnd failed");
        goto out;
    }
    for (i = 0; i < replays; i++) {
        memset(recv, 0, GRAPH_CALLS * GRAPH_COUNT * sizeof *recv);
        if (launch(graph) != ncclSuccess) {
            snprintf(err, errlen, "graph launch %d failed", i);
            goto out;
        }
        for (e = 0; e < GRAPH_CALLS * GRAPH_COUNT; e++)
            if (recv[e] != (float)(run->nranks * (run->nranks + 1) / 2)) {
                snprintf(err, errlen, "graph launch %d: element %zu is %g, "
                                      "expected %d",
                         i, e, (double)recv[e],
                         run->nranks * (run->nranks + 1) / 2);
                goto out;
            }
    }
    rc = 0;
out:
    if (graph)
        destroy(graph);
    free(send);
    free(recv);
    return rc;
}

int
main(int argc, char **argv)
{
    struct options options;
    struct ts_run run;
    struct ts_comm world;
    struct ts_pattern_state state;
    ncclUniqueId id;
    double id_timeout;
    char id_path[4096];
    char err[1024];
    int rank;
    int nranks;
    int status = 1;

    ts_run_init(&run, -1, 0);
    switch (parse_options(argc, argv, &options, err, sizeof err)) {
    case 0:
        break;
    case 1:
        print_usage(stdout);
        status = 0;
        goto out;
    default:
        fprintf(stderr, "%s: %s\n", TS_RUN_PROGRAM, err);
        print_usage(stderr);
        status = 2;
        goto out;
    }
    if (ts_bootstrap_rank(&rank, &nranks, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", TS_RUN_PROGRAM, err);
        goto out;
    }
    run.rank = rank;
    run.nranks = nranks;
    run.corrupt = options.corrupt;
    if (rank == options.late_rank)
        run.late_ns = (long)(options.late_ms * 1e6);
    ts_fault_load(&run);
    if (ts_pattern_prepare(options.pattern, &options.config, nranks, err,
                           sizeof err) < 0) {
        fprintf(stderr, "%s: rank %d: %s\n", TS_RUN_PROGRAM, rank, err);
        status = 2;
        goto out;
    }
    if (options.expect != NULL) {
        run.expect = ts_expect_open(options.expect, rank, err, sizeof err);
        if (run.expect == NULL) {
            fprintf(stderr, "%s: rank %d: %s\n", TS_RUN_PROGRAM, rank, err);
            goto out;
        }
    }
    if (ts_bootstrap_id_timeout(&id_timeout, err, sizeof err) < 0 ||
        ts_bootstrap_id_path(id_path, sizeof id_path, err, sizeof err) < 0 ||
        ts_bootstrap_exchange_id(rank, id_path, id_timeout, &id, err,
                                 sizeof err) < 0) {
        fprintf(stderr, "%s: rank %d: %s\n", TS_RUN_PROGRAM, rank, err);
        goto out;
    }

    /* From here on a failure ends the process inside ts_run_fail. */
    ts_comm_init_world(&run, &world, id);
    ts_pattern_setup(options.pattern, &run, &world, &options.config, &state);
    ts_pattern_begin(&run, &world, &options.config);
    /* every rank has joined the world and so has read the id; a file left
     * behind only matters to a later run in the same folder, so go on */
    if (rank == 0 && ts_bootstrap_remove_id(id_path, err, sizeof err) < 0)
        fprintf(stderr, "%s: rank %d: warning: %s\n", TS_RUN_PROGRAM, rank,
                err);
    for (run.step = 0; run.step < options.steps; run.step++)
        ts_pattern_step(options.pattern, &run, &world, &options.config,
                        &state);
    if (options.graph_replays > 0 &&
        graph_replay(&run, &world, options.graph_replays, err, sizeof err) < 0) {
        fprintf(stderr, "%s: rank %d: %s\n", TS_RUN_PROGRAM, rank, err);
        goto out;
    }
    run.step = TS_RUN_STEP_FINAL;
    ts_pattern_end(&run, &world);
    ts_pattern_teardown(&run, &state);
    ts_comm_destroy(&run, &world);

    if (run.expect != NULL) {
        FILE *expect = run.expect;
        run.expect = NULL;
        if (ts_expect_close(expect) < 0) {
            fprintf(stderr, "%s: rank %d: cannot write the --expect file: "
                            "%s\n",
                    TS_RUN_PROGRAM, rank, strerror(errno));
            goto out;
        }
    }
    if (rank == 0 && !options.quiet)
        printf("%s: pattern %s, %d ranks, %d steps, %llu NCCL calls per "
               "rank, all results correct\n",
               TS_RUN_PROGRAM, ts_pattern_name(options.pattern), nranks,
               options.steps, (unsigned long long)run.calls);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "%s: rank %d: cannot write to stdout: %s\n",
                TS_RUN_PROGRAM, rank, strerror(errno));
        goto out;
    }
    status = 0;
out:
    if (run.expect != NULL)
        fclose(run.expect);
    ts_run_release(&run);
    return status;
}
