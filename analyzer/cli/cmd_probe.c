/* cmd_probe.c - `collprof probe`: measure the latency and bandwidth of every
 * node pair of an allocation, one task per node, and name the slow links
 * (cp_probe.h, docs/probe.md).
 *
 * Exit status: 0 done; 1 the probe failed (NCCL, CUDA, the bootstrap, the
 * output); 2 usage; 3 --fail-on and a finding of that severity.  In a run
 * that is rank 0's status: the other ranks end with 0 once the rounds are
 * done.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cmds.h"
#include "cp_kinds.h"
#include "cp_ncclrt.h"
#include "cp_path.h"
#include "cp_probe.h"
#include "cp_profile.h"
#include "cp_units.h"

#define PROG "collprof probe"
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_FINDINGS 3

static void usage(FILE *f)
{
    fputs(
        "Usage: srun -N K --ntasks-per-node=1 collprof probe [-o DIR] "
        "[OPTIONS]\n"
        "\n"
        "Measure the point-to-point latency and bandwidth of every pair of\n"
        "the K nodes through NCCL send/recv, in rounds of disjoint pairs (K-1\n"
        "rounds for an even K, K for an odd one), and name the slow links:\n"
        "the active check for when a job's own calls cannot tell which link of\n"
        "a ring is slow (collprof analyze's slow_link_candidates).  Start one\n"
        "task per node with srun, mpirun or simrun; NCCL (libnccl.so.2) is\n"
        "loaded at run time; buffers are on the GPU where there is one.\n"
        "\n"
        "A pair is slow when its bandwidth is below --slow-below times the\n"
        "median of all pairs (or of the --profile's inter-node bandwidth):\n"
        "a slow_link finding, critical at a quarter or less.\n"
        "\n"
        "  -o, --output DIR    write DIR/probe.json (the node-pair matrix, the\n"
        "                      pairs and the findings; docs/probe.md)\n"
        "  --size SIZE         the largest bandwidth message (default 4MiB);\n"
        "                      a slower pair gets a smaller one, so that its\n"
        "                      transfers take about --pair-time\n"
        "  --iters N           timed bandwidth transfers per pair (default 5)\n"
        "  --latency-iters N   timed 8-byte ping-pongs per pair (default 20)\n"
        "  --pair-time T       what a pair's transfers aim at (default 250ms)\n"
        "  --slow-below F      the efficiency under which a pair is slow\n"
        "                      (default 0.7)\n"
        "  --profile FILE      compare with the site profile's inter-node\n"
        "                      bandwidth instead of the median (needed for 2\n"
        "                      nodes, or when most links are slow)\n"
        "  --fail-on LEVEL     exit 3 when a finding is at least LEVEL\n"
        "                      (warning or critical)\n"
        CP_NCCLRT_HELP_MEMORY "\n" CP_NCCLRT_HELP_LOADING("task")
        "  -q, --quiet         nothing on stdout\n"
        "  -h, --help          this text\n"
        "\n"
        "Exit status: 0 done; 1 the probe failed; 2 bad usage; 3 --fail-on.\n"
        "\n"
        "Example:\n"
        "  srun -N 4 --ntasks-per-node=1 collprof probe -o probe-out\n",
        f);
}

/* "collprof probe: ... (collprof probe --help)"; returns EXIT_USAGE. */
#define usage_error(...) cp_cli_usage_error("probe", __VA_ARGS__)

/* ---- what rank 0 prints ---------------------------------------------------- */

struct printer {
    int quiet;
};

static void print_start(void *ctx, unsigned nodes, unsigned rounds,
                        int device)
{
    const struct printer *pr = ctx;

    if (pr->quiet)
        return;
    printf("# collprof probe: %u nodes, %u pairs in %u round%s, %s buffers\n",
           nodes, nodes * (nodes - 1) / 2, rounds, rounds == 1 ? "" : "s",
           device ? "device" : "host");
    fflush(stdout);
}

static void print_round(void *ctx, unsigned round, unsigned rounds)
{
    const struct printer *pr = ctx;

    if (pr->quiet)
        return;
    printf("# round %u of %u done\n", round + 1, rounds);
    fflush(stdout);
}

static void print_pairs(const struct cp_probe_result *res)
{
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        name[2 * CP_NCCLRT_NODE_NAME + 2];
    size_t i;

    printf("# NCCL %d.%d.%d (%s); %u rounds in %.2f s\n",
           res->nccl_version / 10000, res->nccl_version / 100 % 100,
           res->nccl_version % 100, res->nccl_path, res->rounds, res->wall_s);
    printf("# %-24s %10s %12s %10s %10s  %s\n", "pair", "latency",
           "bandwidth", "message", "efficiency", "state");
    for (i = 0; i < res->npairs; i++) {
        const struct cp_probe_pair *q = &res->pairs[i];
        snprintf(name, sizeof name, "%s-%s", res->nodes[q->a],
                 res->nodes[q->b]);
        printf("  %-24s %10s %12s %10s %10.2f  %s\n", name,
               cp_units_format_time(q->latency_s, b1, sizeof b1),
               cp_units_format_bandwidth(q->bandwidth_Bps, b2, sizeof b2),
               cp_units_format_size(q->bytes, b3, sizeof b3), q->efficiency,
               q->state == CP_PROBE_SLOW ? "SLOW" : "ok");
    }
    printf("# reference %s (%s), slow below %.2f of it\n",
           cp_units_format_bandwidth(res->reference_Bps, b1, sizeof b1),
           strcmp(res->reference_source, "profile") == 0
               ? "the site profile's inter-node bandwidth"
               : "the median of the pairs",
           res->slow_threshold);
    fflush(stdout);
}

/* ---- options ------------------------------------------------------------------ */

enum {
    OPT_SIZE = 256,
    OPT_ITERS,
    OPT_LATENCY_ITERS,
    OPT_PAIR_TIME,
    OPT_SLOW_BELOW,
    OPT_PROFILE,
    OPT_FAIL_ON
};

static const struct option long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"size", required_argument, NULL, OPT_SIZE},
    {"iters", required_argument, NULL, OPT_ITERS},
    {"latency-iters", required_argument, NULL, OPT_LATENCY_ITERS},
    {"pair-time", required_argument, NULL, OPT_PAIR_TIME},
    {"slow-below", required_argument, NULL, OPT_SLOW_BELOW},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},
    CP_NCCLRT_LONG_OPTIONS,
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_count(const char *name, const char *text, uint64_t max,
                       unsigned *v)
{
    struct cp_error e;
    uint64_t n;

    if (cp_units_parse_count(text, max, &n, &e) < 0)
        return usage_error("%s: %s", name, e.text);
    if (n == 0)
        return usage_error("%s: must be at least 1", name);
    *v = (unsigned)n;
    return 0;
}

static int parse_time(const char *name, const char *text, double *v)
{
    return cp_cli_positive_time("probe", name, text, v);
}

/* The inter-node bandwidth of a site profile (or a simulator topology). */
static int profile_bandwidth(const char *path, double *bandwidth)
{
    struct cp_profile prof;
    struct cp_error e;

    if (cp_profile_parse_file(path, &prof, &e) < 0) {
        fprintf(stderr, PROG ": --profile: %s\n", e.text);
        return -1;
    }
    if (!prof.link[CP_LINK_INTER].have_bandwidth) {
        fprintf(stderr,
                PROG ": --profile: %s gives no inter-node bandwidth (a line "
                "'inter bandwidth=...')\n",
                path);
        return -1;
    }
    *bandwidth = prof.link[CP_LINK_INTER].bandwidth_Bps;
    return 0;
}

/* What the command line asked for. */
struct probe_args {
    struct cp_probe_opts po;
    const char *outdir, *profile_path;
    double slow_below;
    int fail_on, quiet;
};

static int parse_size(const char *arg, struct probe_args *a)
{
    struct cp_error e;

    if (cp_units_parse_size_u64(arg, &a->po.max_bytes, &e) < 0) {
        usage_error("--size: %s", e.text);
        return -1;
    }
    if (a->po.max_bytes < 4096 || a->po.max_bytes > ((uint64_t)1 << 34)) {
        usage_error("--size: from 4KiB to 16GiB, not '%s'", arg);
        return -1;
    }
    return 0;
}

static int parse_slow_below(const char *arg, struct probe_args *a)
{
    char *end;

    errno = 0;
    a->slow_below = strtod(arg, &end);
    if (errno || end == arg || *end || !(a->slow_below > 0) ||
        !(a->slow_below < 1)) {
        usage_error("--slow-below: a number between 0 and 1, not "
                    "'%s'",
                    arg);
        return -1;
    }
    return 0;
}

/* One option of getopt_long's (not -h, ':' or '?'); -1 after a message on
 * a bad value. */
static int parse_option(int c, const char *arg, struct probe_args *a)
{
    struct cp_error err;

    switch (c) {
    case 'o':
        a->outdir = arg;
        return 0;
    case OPT_SIZE:
        return parse_size(arg, a);
    case OPT_ITERS:
        return parse_count("--iters", arg, 10000, &a->po.iters) != 0 ? -1 : 0;
    case OPT_LATENCY_ITERS:
        return parse_count("--latency-iters", arg, 100000,
                           &a->po.latency_iters) != 0
                   ? -1
                   : 0;
    case OPT_PAIR_TIME:
        return parse_time("--pair-time", arg, &a->po.pair_time_s) != 0 ? -1
                                                                        : 0;
    case OPT_SLOW_BELOW:
        return parse_slow_below(arg, a);
    case OPT_PROFILE:
        a->profile_path = arg;
        return 0;
    case OPT_FAIL_ON: {
        enum cp_severity s;
        if (cp_severity_from_name(arg, &s) < 0 || s < CP_SEVERITY_WARNING) {
            usage_error("--fail-on: warning or critical, not '%s'", arg);
            return -1;
        }
        a->fail_on = (int)s;
        return 0;
    }
    case CP_NCCLRT_OPT_MEMORY:
    case CP_NCCLRT_OPT_NCCL:
    case CP_NCCLRT_OPT_ID_DIR:
    case CP_NCCLRT_OPT_ID_TIMEOUT:
        if (cp_ncclrt_parse_option(&a->po.rt, c, arg, &err) < 0) {
            usage_error("%s", err.text);
            return -1;
        }
        return 0;
    case 'q':
        a->quiet = 1;
        return 0;
    default:
        return -1;
    }
}

/* The command line into a: 0, 1 when --help was written, -1 after a
 * message (a usage error). */
static int parse_args(int argc, char **argv, struct probe_args *a)
{
    int c;

    memset(a, 0, sizeof *a);
    cp_probe_defaults(&a->po);
    a->slow_below = 0.7;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        if (c == ':') {
            usage_error("%s needs a value", argv[optind - 1]);
            return -1;
        }
        if (c == '?') {
            usage_error("unknown option '%s'", argv[optind - 1]);
            return -1;
        }
        if (parse_option(c, optarg, a) < 0)
            return -1;
    }
    if (optind < argc) {
        usage_error("unexpected argument '%s'", argv[optind]);
        return -1;
    }
    return 0;
}

/* One line on stderr per slow pair; returns the worst severity
 * (CP_SEVERITY_WARNING, _CRITICAL), 0 without slow pairs. */
static int print_slow(const struct cp_probe_result *res)
{
    int worst = 0;
    size_t i;

    for (i = 0; i < res->npairs; i++) {
        const struct cp_probe_pair *q = &res->pairs[i];
        char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE];
        enum cp_severity level;
        if (q->state != CP_PROBE_SLOW)
            continue;
        fflush(stdout);
        level = q->efficiency <= res->critical_threshold
                    ? CP_SEVERITY_CRITICAL
                    : CP_SEVERITY_WARNING;
        if ((int)level > worst)
            worst = (int)level;
        fprintf(stderr,
                PROG ": %s: slow link %s-%s: %s against %s (%.0f%%)\n",
                cp_severity_name(level), res->nodes[q->a],
                res->nodes[q->b],
                cp_units_format_bandwidth(q->bandwidth_Bps, b1, sizeof b1),
                cp_units_format_bandwidth(res->reference_Bps, b2, sizeof b2),
                100 * q->efficiency);
    }
    return worst;
}

/* outdir/probe.json: 0, or -1 after a message. */
static int write_probe(const struct cp_probe_result *res, const char *outdir,
                       int quiet)
{
    struct cp_error err;
    char path[4200];

    if (cp_path_mkdir(outdir, 0755) < 0) {
        fprintf(stderr, PROG ": cannot create %s: %s\n", outdir,
                strerror(errno));
        return -1;
    }
    if (snprintf(path, sizeof path, "%s/probe.json", outdir) >=
        (int)sizeof path) {
        fprintf(stderr, PROG ": %s: the name is too long\n", outdir);
        return -1;
    }
    if (cp_probe_write_json(res, path, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.text);
        return -1;
    }
    if (!quiet)
        printf("# wrote %s\n", path);
    return 0;
}

int cp_cmd_probe(int argc, char **argv)
{
    struct probe_args a;
    struct cp_probe_result res;
    struct printer pr = {0};
    struct cp_error err;
    double reference = 0;
    int rc = EXIT_USAGE, worst;

    memset(&res, 0, sizeof res);
    rc = parse_args(argc, argv, &a);
    if (rc != 0) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    rc = EXIT_USAGE;
    if (a.profile_path && profile_bandwidth(a.profile_path, &reference) < 0)
        goto out;

    rc = EXIT_FAILED;
    pr.quiet = a.quiet;
    a.po.ctx = &pr;
    a.po.on_start = print_start;
    a.po.on_round = print_round;
    if (cp_probe_run(&a.po, &res, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.text);
        goto out;
    }
    /* Rank 0 reports; the others end with 0, so that a launcher that stops
     * a job when one task fails does not stop rank 0 before its file is
     * written. */
    if (res.rank != 0) {
        rc = 0;
        goto out;
    }
    cp_probe_judge(&res, reference, a.slow_below);
    if (!pr.quiet)
        print_pairs(&res);
    worst = print_slow(&res);
    if (a.outdir && write_probe(&res, a.outdir, pr.quiet) < 0)
        goto out;
    rc = a.fail_on && worst >= a.fail_on ? EXIT_FINDINGS : 0;
out:
    cp_probe_result_clear(&res);
    return rc;
}
