/* cmd_bench.c - `collprof bench`: measure a cluster's collectives the way
 * nccl-tests does (one process per rank), or import what nccl-tests printed
 * elsewhere, and calibrate the analyzer's expectations from it.
 *
 * Exit status: 0 success; 1 the run or the import failed (NCCL, CUDA,
 * files); 2 usage; 3 some result was wrong (#wrong > 0).  In a run, that is
 * rank 0's status: the other ranks end with 0 once the sweep is done.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cp_bench.h"
#include "cp_bench_fit.h"
#include "cp_bench_import.h"
#include "cp_bench_out.h"
#include "cp_bench_run.h"
#include "cp_cmds.h"
#include "cp_html_bench.h"
#include "cp_ncclrt.h"
#include "cp_path.h"
#include "cp_units.h"

#define PROG "collprof bench"
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_WRONG 3

static void usage(FILE *f)
{
    fputs(
        "Usage: collprof bench [OPTIONS]              (one process per rank)\n"
        "       collprof bench --import FILE... [OPTIONS]\n"
        "\n"
        "Measure the collectives of this cluster as nccl-tests does: a size\n"
        "sweep of each collective, every result checked, nccl-tests' lines on\n"
        "stdout (size, count, type, redop, root, time, algbw, busbw, #wrong,\n"
        "out-of-place and in-place); then fit the alpha-beta model per link\n"
        "class, the latency floor, the busbw plateau and the regime boundary of\n"
        "each collective, and write the site profile that collprof analyze\n"
        "reads.  Start one process per rank with srun, mpirun, torchrun or\n"
        "simrun; NCCL (libnccl.so.2) is loaded at run time.  --import reads\n"
        "nccl-tests outputs from any cluster instead (docs/bench.md).\n"
        "\n"
        "Sweep:\n"
        "  --ops LIST          collectives, comma-separated (default all):\n"
        "                      allreduce, reducescatter, allgather, broadcast,\n"
        "                      reduce, alltoall, gather, scatter, sendrecv\n"
        "                      (nccl-tests' all_reduce ... also work)\n"
        "  --sizes MIN-MAX     sizes in bytes or with a unit, e.g. 1KB-16MB\n"
        "                      (default 4B-1GiB, bounded by memory and time)\n"
        "  --factor F          each size is F times the last (default 2)\n"
        "  --iters N           timed calls per size (default: adaptive, so\n"
        "                      that the timed calls of a size take about\n"
        "                      --point-time, at least --min-iters, at most\n"
        "                      20)\n"
        "  --min-iters N       adaptive: at least N timed calls (default 3;\n"
        "                      the calibration fits their median)\n"
        "  --warmup N          untimed calls before them (default 5)\n"
        "  --point-time T      adaptive iterations aim at T (default 200ms)\n"
        "  --call-limit T      a collective's sweep stops after a size whose\n"
        "                      call took longer than T (default 1s)\n"
        CP_NCCLRT_HELP_MEMORY ";\n"
        "                      device buffers are also timed by CUDA events\n"
        "                      (gpu_time_s in the JSON)\n"
        "  --memory-limit SIZE buffer memory per rank (default: a quarter of\n"
        "                      the node's memory shared by its ranks; a third\n"
        "                      of the GPU's free memory)\n"
        "  --no-check          do not check results (#wrong is N/A)\n"
        "  --pairs, --no-pairs send/recv between two ranks of one node and\n"
        "                      between two nodes (default: when the ranks\n"
        "                      span nodes)\n"
        CP_NCCLRT_HELP_LOADING("rank")
        "\n"
        "Import:\n"
        "  --import            the arguments are nccl-tests outputs (text with\n"
        "                      or without MPI prefixes, or JSON)\n"
        "  --op OP             their collective (default: what the output or\n"
        "                      the file name says)\n"
        "  --ranks N           their rank count (default: from the output)\n"
        "  --nodes N           their node count (default: the rank lines)\n"
        "  --link intra|inter  their link class (default: from the nodes)\n"
        "\n"
        "Output:\n"
        "  --json FILE         every point, the fit and the calibration\n"
        "  --csv FILE          every point, one row each\n"
        "  --write-profile FILE  the site profile (intra/inter alpha and\n"
        "                      bandwidth) for collprof analyze --profile;\n"
        "                      refused from a weak fit (under 4 sizes, or a\n"
        "                      median residual over 25%%) unless --force\n"
        "  --force             write the profile from a weak fit all the same\n"
        "  --report DIR        DIR/bench.json (as --json) and DIR/bench.html:\n"
        "                      per collective, time and busbw against size\n"
        "                      with the fitted model, the busbw plateau, the\n"
        "                      link bandwidth and the regime boundary; the fit\n"
        "                      tables (a self-contained page, no script)\n"
        "  -q, --quiet         nothing on stdout\n"
        "  -h, --help          this text\n"
        "\n"
        "Exit status: 0 done; 1 the run or import failed; 2 bad usage; 3 a\n"
        "result was wrong (#wrong > 0).\n"
        "\n"
        "Examples:\n"
        "  srun -N 2 --ntasks-per-node 8 collprof bench --json b.json \\\n"
        "      --write-profile /etc/collprof/profile\n"
        "  collprof bench --import all_reduce_perf.log --write-profile site.prof\n"
        "  simrun -n 4 -- collprof bench --sizes 1KB-16MB --report bench-out\n",
        f);
}

/* "collprof bench: ... (collprof bench --help)"; returns EXIT_USAGE. */
#define usage_error(...) cp_cli_usage_error("bench", __VA_ARGS__)

/* ---- what rank 0 prints ------------------------------------------------------ */

struct printer {
    int quiet;
    int64_t wrong;       /* this section */
    double bw_sum;       /* busbw sum of this section (GB/s) */
    unsigned bw_count;
};

static void print_start(void *ctx, const struct cp_bench_run_info *info)
{
    struct printer *pr = ctx;
    int v = info->nccl_version;

    if (pr->quiet)
        return;
    printf("# collprof bench: %d rank%s on %u node%s, %s buffers, NCCL "
           "%d.%d.%d (%s)%s\n",
           info->nranks, info->nranks == 1 ? "" : "s", info->nnodes,
           info->nnodes == 1 ? "" : "s", info->device ? "device" : "host",
           v / 10000, v / 100 % 100, v % 100, info->nccl_path,
           info->fallback_p2p
               ? "; alltoall, gather, scatter by grouped send/recv"
               : "");
    printf("# sizes up to %llu bytes (bounded by --sizes and by memory)\n",
           (unsigned long long)info->max_bytes);
    printf("# timer: %s (%s)\n", cp_bench_timer_name(info),
           info->timer_reason);
    fflush(stdout);
}

static void print_section(void *ctx, const struct cp_bench_series *s)
{
    struct printer *pr = ctx;
    const struct cp_coll_facts *op = cp_model_coll_facts(s->coll);

    pr->wrong = 0;
    pr->bw_sum = 0;
    pr->bw_count = 0;
    if (pr->quiet)
        return;
    printf("#\n# collprof bench: op %s ranks %u nodes %u link %s", op->name,
           s->ranks, s->nodes, cp_bench_link_name(s->link));
    if (s->pair)
        printf(" pair %d %d", s->peers[0], s->peers[1]);
    printf("\n# Collective test starting: %s\n#\n%s", op->perf_name,
           cp_bench_table_header());
    fflush(stdout);
}

static void print_line(void *ctx, const struct cp_bench_point *oop,
                       const struct cp_bench_point *ip)
{
    struct printer *pr = ctx;
    char line[256];

    if (oop->wrong > 0)
        pr->wrong += oop->wrong;
    if (ip && ip->wrong > 0)
        pr->wrong += ip->wrong;
    if (isfinite(oop->busbw_Bps)) {
        pr->bw_sum += oop->busbw_Bps / 1e9;
        pr->bw_count++;
    }
    if (ip && isfinite(ip->busbw_Bps)) {
        pr->bw_sum += ip->busbw_Bps / 1e9;
        pr->bw_count++;
    }
    if (pr->quiet)
        return;
    puts(cp_bench_format_line(oop, ip, "float", line, sizeof line));
    fflush(stdout);
}

static void print_section_end(void *ctx, const struct cp_bench_series *s,
                              const char *note)
{
    struct printer *pr = ctx;

    if (pr->quiet)
        return;
    if (note)
        printf("# %s\n", note);
    printf("# Out of bounds values : %lld %s\n", (long long)pr->wrong,
           pr->wrong ? "FAILED" : "OK");
    printf("# Avg bus bandwidth    : %g\n",
           pr->bw_count ? pr->bw_sum / pr->bw_count : 0.0);
    printf("#\n# Collective test concluded: %s\n",
           cp_model_coll_facts(s->coll)->perf_name);
    fflush(stdout);
}

/* The imported tables, as nccl-tests would print them. */
static void print_imported(struct printer *pr, const struct cp_bench_set *set)
{
    size_t si, i, j;

    for (si = 0; si < set->nseries; si++) {
        const struct cp_bench_series *s = &set->series[si];
        print_section(pr, s);
        if (!pr->quiet && s->source[0])
            printf("# from %s, line %u\n", s->source, s->first_line);
        for (i = 0; i < set->npoints; i++) {
            const struct cp_bench_point *p = &set->points[i], *ip = NULL;
            if (p->series != si || p->in_place)
                continue;
            for (j = i + 1; j < set->npoints; j++)
                if (set->points[j].series == si && set->points[j].in_place &&
                    set->points[j].size_bytes == p->size_bytes) {
                    ip = &set->points[j];
                    break;
                }
            print_line(pr, p, ip);
        }
        print_section_end(pr, s, NULL);
    }
}

static void print_calibration(const struct cp_bench_calibration *cal)
{
    char a[CP_UNITS_BUFSIZE], b[CP_UNITS_BUFSIZE], c[CP_UNITS_BUFSIZE],
        d[CP_UNITS_BUFSIZE];
    size_t i;
    int k;

    printf("#\n# collprof bench: calibration\n");
    printf("#   %-6s %-10s %-11s %s\n", "link", "alpha", "bandwidth",
           "fitted to");
    for (k = 0; k < CP_LINK_COUNT; k++) {
        const struct cp_bench_link_fit *lf = &cal->link[k];
        const char *name = cp_link_class_name((enum cp_link_class)k);
        if (cal->link_source[k] == CP_BENCH_FROM_NONE) {
            if (cal->collectives[k].points || cal->pairs[k].points)
                printf("#   %-6s no fit: %s\n", name, lf->why);
            continue;
        }
        printf("#   %-6s %-10s %-11s %s (%u of %u points, median residual "
               "%.1f%%)\n",
               name, cp_units_format_time(lf->alpha_s, a, sizeof a),
               cp_units_format_bandwidth(lf->bandwidth_Bps, b, sizeof b),
               cal->link_source[k] == CP_BENCH_FROM_PAIRS
                   ? "send/recv between two ranks"
                   : lf->from,
               lf->points_used, lf->points, 100 * lf->median_rel_residual);
        if (cal->link_source[k] == CP_BENCH_FROM_COLLECTIVES &&
            cal->pairs[k].ok)
            printf("#   %-6s %-10s %-11s send/recv between two ranks\n", "",
                   cp_units_format_time(cal->pairs[k].alpha_s, a, sizeof a),
                   cp_units_format_bandwidth(cal->pairs[k].bandwidth_Bps, b,
                                             sizeof b));
    }
    printf("#   %-13s %5s %-7s %-13s %-13s %-15s %s\n", "op", "ranks", "link",
           "latency floor", "busbw plateau", "regime boundary", "alpha");
    for (i = 0; i < cal->nops; i++) {
        const struct cp_bench_op_fit *f = &cal->ops[i];
        printf("#   %-13s %5u %-7s %-13s %-13s %-15s %s\n",
               cp_model_coll_name(f->coll), f->ranks,
               cp_bench_link_name(f->link),
               cp_units_format_time(f->latency_floor_s, a, sizeof a),
               cp_units_format_bandwidth(f->busbw_Bps, b, sizeof b),
               cp_units_format_size_si(f->regime_boundary_bytes, c, sizeof c),
               f->fit_ok ? cp_units_format_time(f->alpha_s, d, sizeof d)
                         : "n/a");
    }
    fflush(stdout);
}

/* ---- options --------------------------------------------------------------------- */

enum {
    OPT_OPS = 256,
    OPT_SIZES,
    OPT_FACTOR,
    OPT_ITERS,
    OPT_MIN_ITERS,
    OPT_WARMUP,
    OPT_POINT_TIME,
    OPT_CALL_LIMIT,
    OPT_MEMORY_LIMIT,
    OPT_NO_CHECK,
    OPT_PAIRS,
    OPT_NO_PAIRS,
    OPT_IMPORT,
    OPT_OP,
    OPT_RANKS,
    OPT_NODES,
    OPT_LINK,
    OPT_JSON,
    OPT_CSV,
    OPT_PROFILE,
    OPT_FORCE,
    OPT_REPORT
};

static const struct option long_options[] = {
    {"ops", required_argument, NULL, OPT_OPS},
    {"sizes", required_argument, NULL, OPT_SIZES},
    {"factor", required_argument, NULL, OPT_FACTOR},
    {"iters", required_argument, NULL, OPT_ITERS},
    {"min-iters", required_argument, NULL, OPT_MIN_ITERS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"point-time", required_argument, NULL, OPT_POINT_TIME},
    {"call-limit", required_argument, NULL, OPT_CALL_LIMIT},
    {"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
    {"no-check", no_argument, NULL, OPT_NO_CHECK},
    {"pairs", no_argument, NULL, OPT_PAIRS},
    {"no-pairs", no_argument, NULL, OPT_NO_PAIRS},
    CP_NCCLRT_LONG_OPTIONS,
    {"import", no_argument, NULL, OPT_IMPORT},
    {"op", required_argument, NULL, OPT_OP},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"link", required_argument, NULL, OPT_LINK},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"write-profile", required_argument, NULL, OPT_PROFILE},
    {"force", no_argument, NULL, OPT_FORCE},
    {"report", required_argument, NULL, OPT_REPORT},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_coll(const char *text, enum cp_coll *coll)
{
    return cp_model_coll_from_name(text, coll, NULL) == 0 ||
                   cp_bench_op_find(text, coll) == 0
               ? 0
               : -1;
}

static int parse_ops(const char *text, unsigned *mask)
{
    char *copy = strdup(text), *save = NULL, *item;
    int rc = -1;

    *mask = 0;
    if (!copy)
        return -1;
    for (item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        enum cp_coll coll;
        if (strcmp(item, "all") == 0) {
            *mask = (1u << CP_COLL_COUNT) - 1;
            continue;
        }
        if (parse_coll(item, &coll) < 0) {
            usage_error("--ops: unknown collective '%s' (allreduce, "
                        "reducescatter, allgather, broadcast, reduce, "
                        "alltoall, gather, scatter, sendrecv)",
                        item);
            goto out;
        }
        *mask |= 1u << coll;
    }
    if (*mask == 0) {
        usage_error("--ops: no collective given");
        goto out;
    }
    rc = 0;
out:
    free(copy);
    return rc;
}

static int parse_sizes(const char *text, uint64_t *lo, uint64_t *hi)
{
    char buf[128];
    const char *dash = strchr(text, '-');
    struct cp_error e;

    if (dash) {
        size_t n = (size_t)(dash - text);
        if (n >= sizeof buf)
            return usage_error("--sizes: '%s' is too long", text);
        memcpy(buf, text, n);
        buf[n] = '\0';
        if (cp_units_parse_size_u64(buf, lo, &e) < 0)
            return usage_error("--sizes: %s", e.text);
        if (cp_units_parse_size_u64(dash + 1, hi, &e) < 0)
            return usage_error("--sizes: %s", e.text);
    } else {
        if (cp_units_parse_size_u64(text, lo, &e) < 0)
            return usage_error("--sizes: %s", e.text);
        *hi = *lo;
    }
    if (*lo == 0 || *hi < *lo)
        return usage_error("--sizes: want MIN-MAX with 0 < MIN <= MAX, got "
                           "'%s'",
                           text);
    return 0;
}

static int parse_count_opt(const char *name, const char *text, uint64_t max,
                           uint64_t *v)
{
    struct cp_error e;
    if (cp_units_parse_count(text, max, v, &e) < 0)
        return usage_error("%s: %s", name, e.text);
    return 0;
}

static int parse_time_opt(const char *name, const char *text, double *v)
{
    return cp_cli_positive_time("bench", name, text, v);
}

/* "COLL[:RANK]" of COLLPROF_BENCH_CORRUPT (tests): one wrong element. */
static int parse_corrupt(struct cp_bench_run_opts *o)
{
    const char *text = getenv("COLLPROF_BENCH_CORRUPT");
    char buf[64], *colon;
    enum cp_coll coll;

    if (!text || !*text)
        return 0;
    snprintf(buf, sizeof buf, "%s", text);
    colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if (parse_coll(buf, &coll) < 0) {
        fprintf(stderr,
                PROG ": COLLPROF_BENCH_CORRUPT=%s: expected COLL[:RANK]\n",
                text);
        return -1;
    }
    o->corrupt_coll = (int)coll;
    o->corrupt_rank = colon ? atoi(colon + 1) : 0;
    return 0;
}

static char *describe(const struct cp_bench_run_info *info,
                      char *const *files, int nfiles)
{
    char *text = NULL, when[64];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    time_t now = time(NULL);
    struct tm tm;

    if (!f)
        return NULL;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S",
             localtime_r(&now, &tm));
    if (info)
        fprintf(f,
                "measured by collprof bench %s on %s: %d rank%s on %u "
                "node%s, %s buffers, NCCL %d (%s)",
                PACKAGE_VERSION, when, info->nranks,
                info->nranks == 1 ? "" : "s", info->nnodes,
                info->nnodes == 1 ? "" : "s",
                info->device ? "device" : "host", info->nccl_version,
                info->nccl_path);
    else {
        fprintf(f, "imported by collprof bench %s on %s from", PACKAGE_VERSION,
                when);
        for (int i = 0; i < nfiles; i++)
            fprintf(f, " %s", files[i]);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* --report DIR: dir (created when missing, with its parents) gets
 * bench.json and bench.html, the page drawn from bench.json read back
 * through cp_path (not by name): what it shows is what the file holds, to
 * its precision.  Each is written through a temporary name renamed into
 * place.  0, or -1 with err set. */
static int write_report_dir(const struct cp_bench_set *set,
                            const struct cp_bench_calibration *cal,
                            const struct cp_bench_meta *meta, const char *dir,
                            struct cp_error *err)
{
    json_t *back = NULL;
    struct cp_path_out page;
    char path[4200];
    FILE *f;
    int rc = -1;

    if (cp_path_mkdir(dir, 0777) < 0) {
        return cp_errorf_at(err, dir, -1, "cannot create %s: %s", dir,
                            strerror(errno));
    }
    snprintf(path, sizeof path, "%s/bench.json", dir);
    if (cp_bench_write_json(set, cal, meta, path, err) < 0)
        return -1;
    f = cp_path_fopen_input(path, CP_PATH_NOFOLLOW, NULL);
    if (f) {
        back = json_loadf(f, 0, NULL);
        fclose(f);
    }
    if (!back) {
        return cp_errorf_at(err, path, -1, "cannot read back %s", path);
    }
    snprintf(path, sizeof path, "%s/bench.html", dir);
    if (cp_path_create(&page, path, CP_PATH_MODE, err) < 0)
        goto out;
    if (cp_html_bench_write(back, page.f, err) < 0) {
        cp_path_discard(&page);
        goto out;
    }
    rc = cp_path_install(&page, err);
out:
    json_decref(back);
    return rc;
}

/* Whether a calibration is strong enough to become a site profile: -1
 * with err naming the link fitted to fewer than 4 sizes or with a median
 * residual over 25 %, else 0. */
static int check_calibration(const struct cp_bench_calibration *cal,
                             struct cp_error *err)
{
    unsigned k;

    for (k = 0; k < CP_LINK_COUNT; k++) {
        const struct cp_bench_link_fit *l = &cal->link[k];
        if (!l->ok)
            continue;
        if (l->points_used < 4 || !(l->median_rel_residual <= 0.25))
            return cp_errorf(err,
                             "%s fit is weak (%u size groups used, median "
                             "residual %.0f%%)",
                             k == CP_LINK_INTER ? "inter-node" : "intra-node",
                             l->points_used, 100 * l->median_rel_residual);
    }
    return 0;
}

/* What the command line asks for. */
struct bench_args {
    struct cp_bench_run_opts ro;
    struct cp_ncclrt_opts rt; /* the runtime's options, into ro */
    struct cp_bench_import_opts io;
    int do_import;
    int force; /* --force: a profile from a weak fit all the same */
    int quiet;
    const char *json_path, *csv_path, *profile_path, *report_dir;
};

/* One option of the sweep (a->ro, a->rt): 0 taken, 1 not one of them, -1
 * after a usage error. */
static int run_option(struct bench_args *a, int c, const char *optarg)
{
    struct cp_error err;
    uint64_t v;

    switch (c) {
    case OPT_OPS:
        if (parse_ops(optarg, &a->ro.ops) < 0)
            return -1;
        return 0;
    case OPT_SIZES:
        if (parse_sizes(optarg, &a->ro.min_bytes, &a->ro.max_bytes) != 0)
            return -1;
        return 0;
    case OPT_FACTOR: {
        char *end;
        a->ro.step_factor = strtod(optarg, &end);
        if (*end || !(a->ro.step_factor > 1) || a->ro.step_factor > 1024) {
            usage_error("--factor: want a number above 1, got '%s'",
                        optarg);
            return -1;
        }
        return 0;
    }
    case OPT_ITERS:
        if (parse_count_opt("--iters", optarg, 1000000, &v) != 0)
            return -1;
        if (v == 0) {
            usage_error("--iters: must be at least 1");
            return -1;
        }
        a->ro.iters = (unsigned)v;
        return 0;
    case OPT_MIN_ITERS:
        if (parse_count_opt("--min-iters", optarg, 1000000, &v) != 0)
            return -1;
        if (v == 0) {
            usage_error("--min-iters: must be at least 1");
            return -1;
        }
        a->ro.min_iters = (unsigned)v;
        return 0;
    case OPT_WARMUP:
        if (parse_count_opt("--warmup", optarg, 1000000, &v) != 0)
            return -1;
        a->ro.warmup = (unsigned)v;
        return 0;
    case OPT_POINT_TIME:
        if (parse_time_opt("--point-time", optarg, &a->ro.point_time_s) != 0)
            return -1;
        return 0;
    case OPT_CALL_LIMIT:
        if (parse_time_opt("--call-limit", optarg, &a->ro.call_limit_s) != 0)
            return -1;
        return 0;
    case CP_NCCLRT_OPT_MEMORY:
    case CP_NCCLRT_OPT_NCCL:
    case CP_NCCLRT_OPT_ID_DIR:
    case CP_NCCLRT_OPT_ID_TIMEOUT:
        if (cp_ncclrt_parse_option(&a->rt, c, optarg, &err) < 0) {
            usage_error("%s", err.text);
            return -1;
        }
        return 0;
    case OPT_MEMORY_LIMIT: {
        struct cp_error e;
        if (cp_units_parse_size_u64(optarg, &a->ro.memory_limit, &e) < 0) {
            usage_error("--memory-limit: %s", e.text);
            return -1;
        }
        if (a->ro.memory_limit < 8) {
            usage_error("--memory-limit: too small");
            return -1;
        }
        return 0;
    }
    case OPT_NO_CHECK:
        a->ro.check = 0;
        return 0;
    case OPT_PAIRS:
        a->ro.pairs = 2;
        return 0;
    case OPT_NO_PAIRS:
        a->ro.pairs = 0;
        return 0;
    default:
        return 1;
    }
}

/* One option of --import or of the outputs: 0 taken, 1 not one of them,
 * -1 after a usage error. */
static int output_option(struct bench_args *a, int c, const char *optarg)
{
    uint64_t v;

    switch (c) {
    case OPT_IMPORT:
        a->do_import = 1;
        return 0;
    case OPT_OP: {
        enum cp_coll coll;
        if (parse_coll(optarg, &coll) < 0) {
            usage_error("--op: unknown collective '%s'", optarg);
            return -1;
        }
        a->io.coll = (int)coll;
        return 0;
    }
    case OPT_RANKS:
        if (parse_count_opt("--ranks", optarg, 16777216, &v) != 0)
            return -1;
        if (v == 0) {
            usage_error("--ranks: must be at least 1");
            return -1;
        }
        a->io.ranks = (unsigned)v;
        return 0;
    case OPT_NODES:
        if (parse_count_opt("--nodes", optarg, 16777216, &v) != 0)
            return -1;
        if (v == 0) {
            usage_error("--nodes: must be at least 1");
            return -1;
        }
        a->io.nodes = (unsigned)v;
        return 0;
    case OPT_LINK:
        if (strcmp(optarg, "intra") == 0)
            a->io.link = CP_LINK_INTRA;
        else if (strcmp(optarg, "inter") == 0)
            a->io.link = CP_LINK_INTER;
        else {
            usage_error("--link: intra or inter, not '%s'", optarg);
            return -1;
        }
        return 0;
    case OPT_JSON:
        a->json_path = optarg;
        return 0;
    case OPT_CSV:
        a->csv_path = optarg;
        return 0;
    case OPT_PROFILE:
        a->profile_path = optarg;
        return 0;
    case OPT_FORCE:
        a->force = 1;
        return 0;
    case OPT_REPORT:
        a->report_dir = optarg;
        return 0;
    default:
        return 1;
    }
}

/* Rank 0's end: the calibration, the files asked for, and the verdict on
 * the results' checks.  0, EXIT_WRONG, or EXIT_FAILED after saying why. */
static int write_outputs(const struct bench_args *a,
                         const struct cp_bench_set *set,
                         struct cp_bench_calibration *cal, int *have_cal,
                         const struct cp_bench_meta *meta, const char *comment,
                         int quiet)
{
    struct cp_error err;
    int64_t wrong = 0;
    size_t k;

    if (cp_bench_calibrate(set, cal, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.text);
        return EXIT_FAILED;
    }
    *have_cal = 1;
    if (!quiet)
        print_calibration(cal);
    if (a->json_path &&
        cp_bench_write_json(set, cal, meta, a->json_path, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.text);
        return EXIT_FAILED;
    }
    if (a->csv_path && cp_bench_write_csv(set, a->csv_path, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.text);
        return EXIT_FAILED;
    }
    if (a->profile_path && !a->force && check_calibration(cal, &err) < 0) {
        fprintf(stderr,
                PROG ": %s: not written: the %s; a profile from it would "
                     "judge every job by it (give --force to write it all "
                     "the same)\n",
                a->profile_path, err.text);
        return EXIT_FAILED;
    }
    if (a->profile_path &&
        cp_bench_profile_write(cal, a->profile_path, comment, &err) < 0) {
        fprintf(stderr, PROG ": %s: %s\n", a->profile_path, err.text);
        return EXIT_FAILED;
    }
    if (a->report_dir &&
        write_report_dir(set, cal, meta, a->report_dir, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.text);
        return EXIT_FAILED;
    }
    for (k = 0; k < set->npoints; k++)
        if (set->points[k].wrong > 0)
            wrong += set->points[k].wrong;
    if (wrong) {
        fprintf(stderr,
                PROG ": %lld wrong result element%s (the #wrong column)\n",
                (long long)wrong, wrong == 1 ? "" : "s");
        return EXIT_WRONG;
    }
    return 0;
}

/* The command line into a: 0, 1 when --help was written, -1 after a
 * message (a usage error). */
static int parse_args(int argc, char **argv, struct bench_args *a)
{
    int c;

    memset(a, 0, sizeof *a);
    a->io.coll = -1;
    a->io.link = CP_BENCH_LINK_UNKNOWN;
    cp_bench_run_defaults(&a->ro);
    a->rt.memory = (enum cp_ncclrt_memory)a->ro.memory;
    a->rt.id_timeout_s = a->ro.id_timeout_s;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", long_options, NULL)) != -1) {
        int taken = run_option(a, c, optarg);
        if (taken == 1)
            taken = output_option(a, c, optarg);
        if (taken < 0)
            return -1;
        if (taken == 0)
            continue;
        switch (c) {
        case 'q':
            a->quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        case ':':
            usage_error("%s needs a value", argv[optind - 1]);
            return -1;
        default:
            usage_error("unknown option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    a->ro.memory = (enum cp_bench_memory)a->rt.memory;
    a->ro.nccl_path = a->rt.nccl_path;
    a->ro.id_dir = a->rt.id_dir;
    a->ro.id_timeout_s = a->rt.id_timeout_s;
    if (a->do_import && optind >= argc) {
        usage_error("--import: no file given");
        return -1;
    }
    if (!a->do_import && optind < argc) {
        usage_error("unexpected argument '%s' (files need --import)",
                    argv[optind]);
        return -1;
    }
    if (!a->do_import &&
        (a->io.coll >= 0 || a->io.ranks || a->io.nodes ||
         a->io.link != CP_BENCH_LINK_UNKNOWN)) {
        usage_error("--op, --ranks, --nodes and --link describe imported "
                    "files (--import)");
        return -1;
    }
    return parse_corrupt(&a->ro) < 0 ? -1 : 0;
}

/* The nccl-tests files into set, their skipped lines on stderr, and what
 * bench.json says of them in meta and *comment (to free): 0, or -1 after a
 * message. */
static int import_files(const struct bench_args *a, char **files, int n,
                        struct cp_bench_set *set,
                        struct cp_bench_import_report *rep,
                        struct printer *pr, struct cp_bench_meta *meta,
                        char **comment)
{
    struct cp_error err;
    size_t k;
    int i;

    for (i = 0; i < n; i++)
        if (cp_bench_import_file(files[i], &a->io, set, rep, &err) < 0) {
            fprintf(stderr, PROG ": %s\n", err.text);
            return -1;
        }
    for (k = 0; k < rep->nissues; k++) {
        const struct cp_bench_import_issue *is = &rep->issues[k];
        if (is->line)
            fprintf(stderr, PROG ": %s:%u: %s\n", is->source, is->line,
                    is->why);
        else
            fprintf(stderr, PROG ": %s: %s\n", is->source, is->why);
    }
    print_imported(pr, set);
    meta->sources = (const char *const *)files;
    meta->nsources = (size_t)n;
    meta->import = rep;
    *comment = describe(NULL, files, n);
    if (set->npoints == 0) {
        fprintf(stderr, PROG ": no usable result in %d file%s\n", n,
                n == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

/* The sweep, printed as it runs, into set; what bench.json says of it in
 * meta and *comment (to free): 0, or -1 after a message. */
static int run_sweep(struct bench_args *a, struct cp_bench_set *set,
                     struct cp_bench_run_info *info, struct printer *pr,
                     struct cp_bench_meta *meta, char **comment)
{
    struct cp_error err;

    a->ro.ctx = pr;
    a->ro.on_start = print_start;
    a->ro.on_section = print_section;
    a->ro.on_line = print_line;
    a->ro.on_section_end = print_section_end;
    if (cp_bench_run(&a->ro, set, info, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.text);
        return -1;
    }
    meta->run = info;
    *comment = describe(info, NULL, 0);
    return 0;
}

int cp_cmd_bench(int argc, char **argv)
{
    struct bench_args a;
    struct cp_bench_set set;
    struct cp_bench_calibration cal;
    struct cp_bench_import_report rep;
    struct cp_bench_run_info info;
    struct cp_bench_meta meta;
    struct printer pr;
    char *comment = NULL, created[32];
    time_t now = time(NULL);
    struct tm tm;
    int rc, have_cal = 0;

    memset(&set, 0, sizeof set);
    memset(&cal, 0, sizeof cal);
    memset(&rep, 0, sizeof rep);
    memset(&info, 0, sizeof info);
    memset(&meta, 0, sizeof meta);
    memset(&pr, 0, sizeof pr);
    rc = parse_args(argc, argv, &a);
    if (rc != 0) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    pr.quiet = a.quiet;
    meta.generator = PROG " " PACKAGE_VERSION;
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ",
             gmtime_r(&now, &tm));
    meta.created = created;

    rc = EXIT_FAILED;
    if (a.do_import) {
        if (import_files(&a, argv + optind, argc - optind, &set, &rep, &pr,
                         &meta, &comment) < 0)
            goto out;
    } else {
        if (run_sweep(&a, &set, &info, &pr, &meta, &comment) < 0)
            goto out;
        /* Rank 0 reports, writes the files and gives the verdict; the
         * others end with 0, so that a launcher that stops a job when one
         * rank fails does not stop rank 0 before its files are written. */
        if (info.rank != 0) {
            rc = 0;
            goto out;
        }
    }

    rc = write_outputs(&a, &set, &cal, &have_cal, &meta, comment,
                       pr.quiet);
out:
    if (have_cal)
        cp_bench_calibration_free(&cal);
    cp_bench_set_clear(&set);
    cp_bench_import_report_clear(&rep);
    free(comment);
    return rc;
}
