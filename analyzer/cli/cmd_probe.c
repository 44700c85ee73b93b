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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_cmds.h"
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

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
                                                             ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (collprof probe --help)\n", stderr);
    return EXIT_USAGE;
}

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
    struct cp_error e;

    if (cp_units_parse_time(text, v, &e) < 0)
        return usage_error("%s: %s", name, e.text);
    if (!(*v > 0))
        return usage_error("%s: must be above 0", name);
    return 0;
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

int cp_cmd_probe(int argc, char **argv)
{
    struct cp_probe_opts po;
    struct cp_probe_result res;
    struct printer pr = {0};
    struct cp_error err;
    const char *outdir = NULL, *profile_path = NULL;
    double slow_below = 0.7, reference = 0;
    int c, rc = EXIT_USAGE, fail_on = 0, worst = 0;
    char path[4200];
    size_t i;

    memset(&res, 0, sizeof res);
    cp_probe_defaults(&po);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        switch (c) {
        case 'o':
            outdir = optarg;
            break;
        case OPT_SIZE: {
            struct cp_error e;
            if (cp_units_parse_size_u64(optarg, &po.max_bytes, &e) < 0) {
                usage_error("--size: %s", e.text);
                goto out;
            }
            if (po.max_bytes < 4096 || po.max_bytes > ((uint64_t)1 << 34)) {
                usage_error("--size: from 4KiB to 16GiB, not '%s'", optarg);
                goto out;
            }
            break;
        }
        case OPT_ITERS:
            if (parse_count("--iters", optarg, 10000, &po.iters) != 0)
                goto out;
            break;
        case OPT_LATENCY_ITERS:
            if (parse_count("--latency-iters", optarg, 100000,
                            &po.latency_iters) != 0)
                goto out;
            break;
        case OPT_PAIR_TIME:
            if (parse_time("--pair-time", optarg, &po.pair_time_s) != 0)
                goto out;
            break;
        case OPT_SLOW_BELOW: {
            char *end;
            errno = 0;
            slow_below = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(slow_below > 0) ||
                !(slow_below < 1)) {
                usage_error("--slow-below: a number between 0 and 1, not "
                            "'%s'",
                            optarg);
                goto out;
            }
            break;
        }
        case OPT_PROFILE:
            profile_path = optarg;
            break;
        case OPT_FAIL_ON:
            if (strcmp(optarg, "warning") == 0)
                fail_on = 1;
            else if (strcmp(optarg, "critical") == 0)
                fail_on = 2;
            else {
                usage_error("--fail-on: warning or critical, not '%s'",
                            optarg);
                goto out;
            }
            break;
        case CP_NCCLRT_OPT_MEMORY:
        case CP_NCCLRT_OPT_NCCL:
        case CP_NCCLRT_OPT_ID_DIR:
        case CP_NCCLRT_OPT_ID_TIMEOUT:
            if (cp_ncclrt_parse_option(&po.rt, c, optarg, &err) < 0) {
                usage_error("%s", err.text);
                goto out;
            }
            break;
        case 'q':
            pr.quiet = 1;
            break;
        case 'h':
            usage(stdout);
            rc = 0;
            goto out;
        case ':':
            usage_error("%s needs a value", argv[optind - 1]);
            goto out;
        default:
            usage_error("unknown option '%s'", argv[optind - 1]);
            goto out;
        }
    }
    if (optind < argc) {
        usage_error("unexpected argument '%s'", argv[optind]);
        goto out;
    }
    if (profile_path && profile_bandwidth(profile_path, &reference) < 0)
        goto out;

    rc = EXIT_FAILED;
    po.ctx = &pr;
    po.on_start = print_start;
    po.on_round = print_round;
    if (cp_probe_run(&po, &res, &err) < 0) {
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
    cp_probe_judge(&res, reference, slow_below);
    if (!pr.quiet)
        print_pairs(&res);
    for (i = 0; i < res.npairs; i++) {
        const struct cp_probe_pair *q = &res.pairs[i];
        char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE];
        int level;
        if (q->state != CP_PROBE_SLOW)
            continue;
        fflush(stdout);
        level = q->efficiency <= res.critical_threshold ? 2 : 1;
        if (level > worst)
            worst = level;
        fprintf(stderr,
                PROG ": %s: slow link %s-%s: %s against %s (%.0f%%)\n",
                level == 2 ? "critical" : "warning", res.nodes[q->a],
                res.nodes[q->b],
                cp_units_format_bandwidth(q->bandwidth_Bps, b1, sizeof b1),
                cp_units_format_bandwidth(res.reference_Bps, b2, sizeof b2),
                100 * q->efficiency);
    }
    if (outdir) {
        if (cp_path_mkdir(outdir, 0755) < 0) {
            fprintf(stderr, PROG ": cannot create %s: %s\n", outdir,
                    strerror(errno));
            goto out;
        }
        if (snprintf(path, sizeof path, "%s/probe.json", outdir) >=
            (int)sizeof path) {
            fprintf(stderr, PROG ": %s: the name is too long\n", outdir);
            goto out;
        }
        if (cp_probe_write_json(&res, path, &err) < 0) {
            fprintf(stderr, PROG ": %s\n", err.text);
            goto out;
        }
        if (!pr.quiet)
            printf("# wrote %s\n", path);
    }
    rc = fail_on && worst >= fail_on ? EXIT_FINDINGS : 0;
out:
    cp_probe_result_clear(&res);
    return rc;
}
