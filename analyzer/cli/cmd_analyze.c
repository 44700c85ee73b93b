/* cmd_analyze.c - collprof analyze: where the communication time went. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_path.h"
#include "cp_text.h"
#include "cp_analysis.h"
#include "cp_judge.h"
#include "cp_hang.h"
#include "cp_clijob.h"
#include "cp_tagnames.h"
#include "cp_cmds.h"
#include "cp_kinds.h"
#include "cp_partial.h"
#include "cp_ports.h"
#include "cp_probeview.h"
#include "cp_units.h"

#define EXIT_UNUSABLE 1
#define EXIT_USAGE 2
#define EXIT_FINDINGS 3

static void usage(FILE *out)
{
    char profile[4200];

    fprintf(out,
            "usage: collprof analyze DIR|FILE... -o OUT [OPTIONS]\n"
            "\n"
            "Reads the rank logs (*.cplog) of one job - every file in each DIR,\n"
            "or the FILEs given - joins the calls of every collective across\n"
            "ranks, fits the alpha-beta model per link class and explains where\n"
            "the communication time went.  Writes OUT/report.json (schema\n"
            "collprof.report/1, docs/report-schema.md) and OUT/report.html (the\n"
            "same report as one self-contained page), and prints a verdict of\n"
            "at most five lines.\n"
            "\n"
            "  -o, --output OUT     directory for report.json and report.html\n"
            "                       (created if missing)\n"
            "      --profile FILE   expected latency and bandwidth per link class,\n"
            "                       one line each:\n"
            "                         intra alpha=5us bandwidth=2GB/s\n"
            "                         inter alpha=20us bandwidth=400MB/s\n"
            "                       (a simnccl topology file works too).  Without\n"
            "                       it, the site profile is read when it exists:\n"
            "                         %s\n"
            "                       without either, the model is fitted to the\n"
            "                       job's own calls\n"
            "      --no-profile     do not read the default profile\n"
            "      --probe FILE     the probe.json of collprof probe on the\n"
            "                       job's nodes: pairs it measured slow name\n"
            "                       the slow link among a communicator's\n"
            "                       candidates, and fill the node-pair view.\n"
            "                       Without it, DIR/probe/probe.json or\n"
            "                       DIR/probe.json of a DIR given is read\n"
            "      --no-probe       do not look for a probe.json in DIR\n"
            "      --steps N        the run had N training steps (default: the\n"
            "                       period of the call pattern)\n"
            "      --tags LIST      names of the application's tag values\n"
            "                       (ncclCollConfig_t's userProfilerTag, from\n"
            "                       the NCCL profiler plugin under API v7) in\n"
            "                       report.json's nccl_profiler.tags:\n"
            "                         1=forward,2=backward,3=optimizer\n"
            "                       (default: the environment's COLLPROF_TAGS)\n"
            "\n"
            "  A window of the run (the report says which; each log is read from\n"
            "  its sync point before the window; docs/analysis.md, \"Windows\"):\n"
            "      --from T, --to T only calls that start in [T, T), times since\n"
            "                       the run's first call (2.5s, 300ms)\n"
            "      --skip-steps N   leave out the first N training steps (warm-up;\n"
            "                       step 0 holds what came before the pattern)\n"
            "      --steps A:B      only steps A to B-1 (counted from 0; A: or :B\n"
            "                       leave that end open)\n"
            "      --bucket SIZE    evaluate fusing latency-bound calls into buckets\n"
            "                       of SIZE (default: 25MB, or 10 x n1/2 if larger)\n"
            "      --fail-on LEVEL  exit 3 when a finding of severity LEVEL\n"
            "                       (warning or critical) or worse exists\n"
            "      --all-ranks      list every process in report.json's per-rank\n"
            "                       tables (ranks, topology.ranks, inputs.files)\n"
            "                       whatever the job's size; by default a job of\n"
            "                       over 256 processes gets each per-rank figure's\n"
            "                       distribution and its worst ranks and nodes\n"
            "                       (rank_summary) instead; and every communicator\n"
            "                       in each interval of a long run (by default\n"
            "                       the 16 of most time and those findings name)\n"
            "  -j, --jobs N         threads (default: every online CPU): N - 1\n"
            "                       read the logs ahead while one joins them;\n"
            "                       the report is the same for every N\n"
            "  -q, --quiet          no verdict and no progress; problems with the\n"
            "                       inputs are still printed\n"
            "      --follow-symlinks  read a log that is a symbolic link (by\n"
            "                       default refused) when it points to a file\n"
            "                       of the invoking user\n"
            "      --nodes          distributed, under any launcher with one task\n"
            "                       per node: each task first reduces its node's\n"
            "                       logs into DIR/NODE.cppart (collprof reduce);\n"
            "                       rank 0 (SLURM_PROCID, OMPI_COMM_WORLD_RANK,\n"
            "                       PMI_RANK, PMIX_RANK or RANK) waits for every\n"
            "                       node's partial and writes the report from\n"
            "                       them; the other tasks exit 0\n"
            "      --nodes-wait S   rank 0 waits at most S seconds (default 120);\n"
            "                       a node still without a partial is named and\n"
            "                       its logs are read instead\n"
            "  -h, --help           this text\n"
            "\n"
            "DIR may hold node partials (*.cppart, collprof reduce) instead of or\n"
            "beside the logs: the report is the same (docs/partial-format.md).\n"
            "\n"
            "Bad inputs (empty, foreign, truncated or corrupt files, fifos,\n"
            "devices, symbolic links, logs of another job) are named on stderr\n"
            "with the offset of the problem and listed in the report; the rest\n"
            "is analyzed.  Logs of several jobs:\n"
            "the job most files belong to is analyzed, the others are skipped.\n"
            "\n"
            "Exit status: 0 the analysis ran (whatever it found); 1 no readable\n"
            "log, or the report could not be written; 2 bad usage; 3 --fail-on\n"
            "matched a finding.\n",
            cp_clijob_profile_help(profile, sizeof profile));
}

/* The first of the launcher's variables that is set, as a number; -1. */
static long env_number(const char *const *vars)
{
    for (; *vars; vars++) {
        const char *v = getenv(*vars);
        char *end;
        long n;
        if (!v || !*v)
            continue;
        n = strtol(v, &end, 10);
        if (*end == '\0' && n >= 0)
            return n;
    }
    return -1;
}

/* --nodes: this node's partial of every directory given, then on rank 0
 * the wait for the other nodes' partials.  Returns 0 to go on with the
 * analysis (rank 0), 1 when this task is done (another rank), -1 on an
 * error (said). */
static int reduce_nodes(char *const *inputs, unsigned wait_s, int quiet)
{
    static const char *const rank_vars[] = {
        "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
        "RANK", NULL};
    static const char *const local_vars[] = {
        "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
        "LOCAL_RANK", NULL};
    long rank = env_number(rank_vars), local = env_number(local_vars);
    char node[64], file[128], out[4300], first[128];
    struct cp_partial_stats st;
    struct cp_error err;
    struct stat sb;
    size_t i;

    cp_ports_node_name(node, sizeof node);
    for (i = 0; inputs[i]; i++) {
        if (cp_path_stat(inputs[i], &sb) < 0 || !S_ISDIR(sb.st_mode))
            continue;
        if (local > 0)
            continue; /* one task per node reduces */
        if (cp_partial_file_name(node, file, sizeof file) < 0 ||
            snprintf(out, sizeof out, "%s/%s", inputs[i], file) >=
                (int)sizeof out) {
            fprintf(stderr, "collprof analyze: --nodes: %s: name too long\n",
                    inputs[i]);
            return -1;
        }
        if (cp_partial_reduce(inputs[i], node, out, &st, &err) < 0)
            cp_cli_say(stderr, "collprof analyze: --nodes: %s", err.text);
        else if (!quiet)
            printf("collprof: node %s: %u log%s -> %s\n", node, st.logs,
                   st.logs == 1 ? "" : "s", out);
    }
    if (rank > 0)
        return 1;
    for (i = 0; inputs[i]; i++) {
        unsigned waited_ms = 0;
        int missing;
        if (cp_path_stat(inputs[i], &sb) < 0 || !S_ISDIR(sb.st_mode))
            continue;
        while ((missing = cp_partial_missing(inputs[i], first, sizeof first,
                                             NULL)) > 0 &&
               waited_ms < wait_s * 1000u) {
            usleep(200 * 1000);
            waited_ms += 200;
        }
        if (missing > 0)
            cp_cli_say(stderr, "collprof analyze: --nodes: after %u s, %d "
                       "node%s of %s still without a partial (%s first): "
                       "their logs are read instead", wait_s, missing,
                    missing == 1 ? "" : "s", inputs[i], first);
    }
    return 0;
}

/* Turn the window into the analysis's times: times since the run's
 * first call are the analysis's own to resolve (it reads only the first
 * calls of each log, and then the window); steps are found in the log of
 * the rank whose calls give them, and where they begin in the logs' calls
 * up to there (cp_analysis_run_steps). */
static int resolve_window(const char *const *paths,
                          struct cp_analysis_opts *opts,
                          struct cp_clijob_window *w, int *rc)
{
    struct cp_analysis_opts whole = *opts;
    struct cp_analysis *an;
    struct cp_error err;
    int ret = -1;

    if (cp_clijob_window_check("analyze", w) < 0) {
        *rc = EXIT_USAGE;
        return -1;
    }
    if (w->step_from < 0 && w->step_to < 0) {
        opts->window_since_first = 1;
        opts->window_from_ns = w->from_ns;
        opts->window_to_ns = w->to_ns;
        snprintf(w->by, sizeof w->by, "--from/--to");
        opts->window_by = w->by;
        return 0;
    }
    whole.progress = NULL;
    whole.steps = 0;
    an = cp_analysis_run_steps(paths, &whole, &err);
    if (!an) {
        cp_cli_say(stderr, "collprof analyze: %s", err.text);
        *rc = EXIT_UNUSABLE;
        return -1;
    }
    opts->window_origin_ns = an->summary.start_ns;
    if (cp_clijob_window_resolve("analyze", w, an, &opts->window_from_ns,
                                 &opts->window_to_ns,
                                 &opts->window_steps) < 0) {
        *rc = EXIT_USAGE;
        goto out;
    }
    if (w->step_from < 0 && w->step_to < 0)
        snprintf(w->by, sizeof w->by, "--from/--to");
    opts->window_by = w->by;
    ret = 0;
out:
    cp_analysis_destroy(an);
    return ret;
}

/* report.json's bytes gathered in a buffer and written in blocks: the
 * writer hands over a few bytes at a time (a key, a number), and a stdio
 * call for each costs more than the rest of the writing at thousands of
 * ranks (a report of megabytes). */
struct dump_buffer {
    FILE *f;
    size_t used;
    char bytes[64 * 1024];
};

static int dump_flush(struct dump_buffer *d)
{
    size_t n = d->used;

    d->used = 0;
    return n == 0 || fwrite(d->bytes, 1, n, d->f) == n ? 0 : -1;
}

static int dump_chunk(const char *buf, size_t size, void *data)
{
    struct dump_buffer *d = data;

    if (size > sizeof d->bytes - d->used) {
        if (dump_flush(d) < 0)
            return -1;
        if (size > sizeof d->bytes)
            return fwrite(buf, 1, size, d->f) == size ? 0 : -1;
    }
    memcpy(d->bytes + d->used, buf, size);
    d->used += size;
    return 0;
}

/* OUT/report.json through a temporary file, so that a reader never sees
 * half a report (cp_path: never through a name someone else planted). */
static int write_report(const char *outdir, json_t *report, char *path,
                        size_t pathlen)
{
    struct cp_path_out out;
    struct cp_error err;
    struct dump_buffer *dump;

    if (cp_path_mkdir(outdir, 0755) < 0) {
        fprintf(stderr, "collprof analyze: cannot create %s: %s\n", outdir,
                strerror(errno));
        return -1;
    }
    snprintf(path, pathlen, "%s/report.json", outdir);
    if (cp_path_create(&out, path, CP_PATH_MODE, &err) < 0) {
        cp_cli_say(stderr, "collprof analyze: %s", err.text);
        return -1;
    }
    dump = malloc(sizeof *dump);
    if (dump) {
        dump->f = out.f;
        dump->used = 0;
    }
    if (!dump ||
        json_dump_callback(report, dump_chunk, dump,
                           JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                               JSON_REAL_PRECISION(10)) < 0 ||
        dump_flush(dump) < 0) {
        free(dump);
        fprintf(stderr, "collprof analyze: cannot write %s\n", path);
        cp_path_discard(&out);
        return -1;
    }
    free(dump);
    if (cp_path_install(&out, &err) < 0) {
        cp_cli_say(stderr, "collprof analyze: %s", err.text);
        return -1;
    }
    return 0;
}

struct progress {
    int printed;
};

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct progress *p = ctx;

    if (done >= total && !p->printed)
        return; /* short input: no progress line at all */
    fprintf(stderr, "collprof analyze: %.1fM of %.1fM records read (%.0f%%)\n",
            (double)done / 64 / 1e6, (double)total / 64 / 1e6,
            total ? 100.0 * (double)done / (double)total : 100.0);
    p->printed = 1;
}

static double evidence_num(const struct cp_analysis_finding *f, const char *key)
{
    json_t *v = json_object_get(f->evidence, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Where a finding points, for the verdict: " n2-n4" for a link, " rank 5
 * on n3" for one rank, " n3" for one node; "" when it is about the whole
 * job. */
static void finding_place(const struct cp_analysis *an,
                          const struct cp_analysis_finding *f, char *buf,
                          size_t size)
{
    char n0[CP_TEXT_SHOWN_SIZE(64)] = "", n1[CP_TEXT_SHOWN_SIZE(64)] = "";

    /* node names are the logs' headers': shown escaped */
    if (f->nnodes >= 1 && f->nodes[0] < an->nnodes)
        cp_text_shown(n0, sizeof n0, an->nodes[f->nodes[0]].name, 64, 0);
    if (f->nnodes >= 2 && f->nodes[1] < an->nnodes)
        cp_text_shown(n1, sizeof n1, an->nodes[f->nodes[1]].name, 64, 0);
    buf[0] = '\0';
    if (f->nnodes == 2 && f->nodes[0] < an->nnodes &&
        f->nodes[1] < an->nnodes)
        snprintf(buf, size, " %s-%s", n0, n1);
    else if (f->nranks == 1 && f->nnodes == 1 && f->nodes[0] < an->nnodes)
        snprintf(buf, size, " rank %d on %s", f->ranks[0], n0);
    else if (f->nranks == 1)
        snprintf(buf, size, " rank %d", f->ranks[0]);
    else if (f->nnodes == 1 && f->nodes[0] < an->nnodes && an->nnodes > 1)
        snprintf(buf, size, " %s", n0);
}

/* Whether a link class is judged by a weak fit (few points, poor quality). */
static int weak_model(const struct cp_analysis *an)
{
    unsigned k;

    for (k = 0; k < CP_LINK_COUNT; k++)
        if (an->model[k].source == CP_SOURCE_FIT && an->model[k].fit_weak)
            return 1;
    return 0;
}

/* The verdict's line on the links: each class's busbw against what its
 * reference allows. */
static void print_links(const struct cp_analysis *an)
{
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        line[512];
    size_t len;
    unsigned k;

    len = 0;
    line[0] = '\0';
    for (k = 0; k < CP_LINK_COUNT; k++) {
        const struct cp_analysis_link *m = &an->model[k];
        if (m->source == CP_SOURCE_NONE || m->bw_calls == 0)
            continue;
        if (m->expected_Bps > 0 && m->reference_busbw_Bps > 0)
            len += (size_t)snprintf(
                line + len, sizeof line - len,
                "%s%s-node busbw %s, %.0f%% of what the %s allows (%s at "
                "%s)",
                len ? "; " : "", k == CP_LINK_INTER ? "inter" : "intra",
                cp_units_format_bandwidth(m->busbw_Bps, b1, sizeof b1),
                100 * m->busbw_Bps / m->reference_busbw_Bps,
                m->expected_source == CP_SOURCE_PORTS ? "NICs' port rate"
                                                      : "profile",
                cp_units_format_bandwidth(m->reference_busbw_Bps, b2,
                                          sizeof b2),
                cp_units_format_bandwidth(m->expected_Bps, b3, sizeof b3));
        else
            len += (size_t)snprintf(
                line + len, sizeof line - len,
                "%s%s-node busbw %s: no reference: cannot judge bandwidth "
                "(give --profile, or run collprof bench / probe)",
                len ? "; " : "", k == CP_LINK_INTER ? "inter" : "intra",
                cp_units_format_bandwidth(m->busbw_Bps, b1, sizeof b1));
        if (len >= sizeof line)
            break;
    }
    if (line[0])
        printf("collprof: %s\n", line);
}

static void print_verdict(const struct cp_analysis *an, const char *report,
                          const char *html)
{
    const struct cp_analysis_summary *s = &an->summary;
    const struct cp_analysis_finding *lat =
        cp_analysis_finding_of(an, CP_KIND_LATENCY_BOUND);
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        line[512];
    size_t i, len;

    if (cp_hang_headline(an))
        cp_cli_say(stdout, "%s", cp_hang_headline(an));
    printf("collprof: %zu rank%s on %zu node%s", an->nranks,
           an->nranks == 1 ? "" : "s", an->nnodes, an->nnodes == 1 ? "" : "s");
    if (s->nmissing)
        printf(" (%zu of %d ranks left no log)", s->nmissing, an->world_size);
    printf(", %llu calls", (unsigned long long)s->calls);
    if (s->failed_calls)
        printf(" (%llu failed)", (unsigned long long)s->failed_calls);
    if (isfinite(s->rank_share_median))
        printf("; each rank %.0f%% of the run in NCCL (median; worst rank "
               "%d: %.0f%%), NCCL busy on some rank for %s of the %s run, %s of "
               "rank time waiting for late arrivals\n",
               100 * s->rank_share_median, s->rank_share_max_rank,
               100 * s->rank_share_max,
               cp_units_format_time(s->busy_s, b1, sizeof b1),
               cp_units_format_time(s->span_s, b2, sizeof b2),
               cp_units_format_time(s->wait_time_s, b3, sizeof b3));
    else
        printf("\n");

    if (lat) {
        json_t *sizes = json_object_get(lat->evidence, "sizes");
        json_t *top = json_array_get(sizes, 0);
        const char *op = json_string_value(json_object_get(top, "op"));
        double saving = evidence_num(lat, "saving_per_step_s");
        printf("collprof: %.0f%% of it latency-bound (%s <= %s); fusing the "
               "gradient all-reduces into %s buckets would save ~%s/%s "
               "(%.0f%%)\n",
               100 * s->latency_bound_share, op ? op : "calls",
               cp_units_format_size(
                   json_number_value(json_object_get(top, "max_bytes")), b1,
                   sizeof b1),
               cp_units_format_size(evidence_num(lat, "bucket_bytes"), b2,
                                    sizeof b2),
               cp_units_format_time(saving, b3, sizeof b3),
               s->steps > 1 ? "step" : "run",
               100 * evidence_num(lat, "saving_share"));
    } else if (isfinite(s->latency_bound_share) &&
               s->latency_bound_share >= 0.10 && weak_model(an)) {
        printf("collprof: %.0f%% of it latency-bound by a weak fit (few call "
               "sizes or a poor fit): no advice on it\n",
               100 * s->latency_bound_share);
    } else if (isfinite(s->latency_bound_share) &&
               s->latency_bound_share >= 0.10) {
        printf("collprof: %.0f%% of it latency-bound; fusing gradient "
               "buckets would not gain 1%% of the run or 1 ms per step\n",
               100 * s->latency_bound_share);
    } else if (isfinite(s->latency_bound_share)) {
        printf("collprof: %.0f%% of it latency-bound: bucket sizes are fine\n",
               100 * s->latency_bound_share);
    } else {
        printf("collprof: no model (too few call sizes to fit, no profile): "
               "regimes not judged\n");
    }

    print_links(an);

    len = 0;
    line[0] = '\0';
    for (i = 0; i < an->nfindings && len < sizeof line - 160; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        char where[140];
        if (f->severity < CP_SEVERITY_WARNING ||
            f->kind == CP_KIND_LATENCY_BOUND)
            continue;
        finding_place(an, f, where, sizeof where);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s%s (%s)",
                                len ? ", " : "", cp_kind_name(f->kind), where,
                                cp_severity_name(f->severity));
    }
    printf("collprof: %s%s%zu finding%s in %s%s%s",
           line[0] ? line : "", line[0] ? "; " : "", an->nfindings,
           an->nfindings == 1 ? "" : "s", report, html ? " and " : "",
           html ? html : "");
    if (s->inputs_skipped)
        printf(" (%u input%s skipped)", s->inputs_skipped,
               s->inputs_skipped == 1 ? "" : "s");
    printf("\n");
}

/* A probe of other nodes than the job's: what was not used, by name. */
static void print_probe_warnings(const struct cp_analysis *an)
{
    const struct cp_analysis_probe *pr = &an->topology.probe;
    char list[512] = "";
    size_t i, len = 0;

    if (!pr->file || pr->nunknown == 0)
        return;
    for (i = 0; i < pr->nunknown && len < 400; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                i ? ", " : "", pr->unknown[i]);
    if (i < pr->nunknown)
        snprintf(list + len, sizeof list - len, " and %zu more",
                 pr->nunknown - i);
    if (pr->matched_nodes == 0)
        cp_cli_say(stderr,
                   "collprof analyze: warning: %s: the probe measured other "
                   "nodes than the job's (%s): it is not used",
                   pr->file, list);
    else
        cp_cli_say(stderr,
                   "collprof analyze: warning: %s: %zu of the probe's %zu "
                   "nodes are not in the job (%s): only the %zu pairs "
                   "between the job's nodes are used",
                   pr->file, pr->nunknown, pr->nodes, list, pr->pairs);
}

/* What the command line asked for. */
struct analyze_args {
    const char *outdir, *profile_path, *probe_path, *tags;
    struct cp_analysis_opts opts;
    struct cp_clijob_window win;
    int no_probe, no_profile, quiet, nodes, fail_on;
    unsigned nodes_wait;
};

/* --steps N (a count) or --steps A:B (a window). */
static int parse_steps(const char *arg, struct analyze_args *a)
{
    struct cp_error err;
    uint64_t v = 0;

    if (strchr(arg, ':'))
        return cp_clijob_window_option("analyze", "--steps", arg, &a->win);
    if (cp_units_parse_count(arg, UINT32_MAX, &v, &err) < 0) {
        cp_cli_say(stderr, "collprof analyze: --steps: %s", err.text);
        return -1;
    }
    if (v == 0) {
        fprintf(stderr, "collprof analyze: --steps: must be at least "
                        "1\n");
        return -1;
    }
    a->opts.steps = (unsigned)v;
    return 0;
}

static int parse_bucket(const char *arg, struct analyze_args *a)
{
    struct cp_error err;

    if (*arg && strchr("0123456789.", arg[strlen(arg) - 1])) {
        /* a bucket of "25" bytes is never meant */
        fprintf(stderr, "collprof analyze: --bucket: '%s' has no "
                        "unit: give one, e.g. %sMB or %sMiB (a bare "
                        "number would be bytes)\n",
                arg, arg, arg);
        return -1;
    }
    if (cp_units_parse_size(arg, &a->opts.bucket_bytes, &err) < 0) {
        cp_cli_say(stderr, "collprof analyze: --bucket: %s", err.text);
        return -1;
    }
    if (!(a->opts.bucket_bytes >= 1)) {
        fprintf(stderr, "collprof analyze: --bucket: must be at "
                        "least 1 byte\n");
        return -1;
    }
    return 0;
}

static int parse_fail_on(const char *arg, struct analyze_args *a)
{
    enum cp_severity sev;

    if (cp_severity_from_name(arg, &sev) < 0 ||
        sev == CP_SEVERITY_INFO) {
        fprintf(stderr,
                "collprof analyze: --fail-on: expected warning or "
                "critical, got '%s'\n",
                arg);
        return -1;
    }
    a->fail_on = (int)sev;
    return 0;
}

static int parse_jobs(const char *arg, struct analyze_args *a)
{
    char *end;
    unsigned long n;

    errno = 0;
    n = strtoul(arg, &end, 10);
    if (arg[0] < '1' || arg[0] > '9' || *end || errno || n > 1024) {
        fprintf(stderr, "collprof analyze: -j '%s': a number of "
                        "threads from 1 to 1024 is needed\n", arg);
        return -1;
    }
    a->opts.jobs = (unsigned)n;
    return 0;
}

static int parse_nodes_wait(const char *arg, struct analyze_args *a)
{
    char *end;
    unsigned long v = strtoul(arg, &end, 10);

    if (*end || !*arg || arg[0] == '-' || v > 86400) {
        fprintf(stderr, "collprof analyze: --nodes-wait: expected "
                        "seconds (0 to 86400), got '%s'\n", arg);
        return -1;
    }
    a->nodes_wait = (unsigned)v;
    return 0;
}

/* One option of getopt_long's; -1 after a message on a bad value. */
static int parse_option(int c, const char *arg, void *ctx)
{
    struct analyze_args *a = ctx;

    switch (c) {
    case 'o':
        a->outdir = arg;
        return 0;
    case 'p':
        a->profile_path = arg;
        return 0;
    case 'P':
        a->no_profile = 1;
        return 0;
    case 'r':
        a->probe_path = arg;
        return 0;
    case 'R':
        a->no_probe = 1;
        return 0;
    case 'F':
    case 'T':
    case 'S':
        return cp_clijob_window_option("analyze",
                                       c == 'F'   ? "--from"
                                       : c == 'T' ? "--to"
                                                  : "--skip-steps",
                                       arg, &a->win);
    case 's':
        return parse_steps(arg, a);
    case 'b':
        return parse_bucket(arg, a);
    case 'f':
        return parse_fail_on(arg, a);
    case 'L':
        cp_path_set_log_links(CP_PATH_FOLLOW);
        return 0;
    case 'A':
        a->opts.rank_table_max = UINT_MAX;
        return 0;
    case 'j':
        return parse_jobs(arg, a);
    case 'N':
        a->nodes = 1;
        return 0;
    case 'W':
        return parse_nodes_wait(arg, a);
    case 'q':
        a->quiet = 1;
        return 0;
    case 'G':
        a->tags = arg;
        return 0;
    default:
        return -1;
    }
}

/* The command line into a: 0, 1 when --help was written, -1 after a
 * message (a usage error). */
static int parse_args(int argc, char **argv, struct analyze_args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"profile", required_argument, NULL, 'p'},
        {"no-profile", no_argument, NULL, 'P'},
        {"probe", required_argument, NULL, 'r'},
        {"no-probe", no_argument, NULL, 'R'},
        {"steps", required_argument, NULL, 's'},
        {"from", required_argument, NULL, 'F'},
        {"to", required_argument, NULL, 'T'},
        {"skip-steps", required_argument, NULL, 'S'},
        {"bucket", required_argument, NULL, 'b'},
        {"fail-on", required_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"follow-symlinks", no_argument, NULL, 'L'},
        {"all-ranks", no_argument, NULL, 'A'},
        {"jobs", required_argument, NULL, 'j'},
        {"nodes", no_argument, NULL, 'N'},
        {"nodes-wait", required_argument, NULL, 'W'},
        {"tags", required_argument, NULL, 'G'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int c;

    memset(a, 0, sizeof *a);
    cp_analysis_opts_init(&a->opts);
    cp_clijob_window_init(&a->win);
    a->fail_on = -1;
    a->nodes_wait = 120;
    a->opts.jobs = cpus > 0 ? (unsigned)(cpus < 1024 ? cpus : 1024) : 1;
    c = cp_cli_options("analyze", argc, argv, ":o:j:qh", longopts, usage,
                       parse_option, a);
    if (c != 0)
        return c;
    if (optind >= argc) {
        fprintf(stderr, "collprof analyze: no log directory or file given "
                        "(try collprof analyze --help)\n");
        return -1;
    }
    if (!a->outdir) {
        fprintf(stderr, "collprof analyze: -o OUT is required: the directory "
                        "for report.json\n");
        return -1;
    }
    return 0;
}

/* The probe.json named by --probe, or found next to the logs, into probe
 * (a->opts.probe then points at it): 0, or the exit status after a
 * message.  One found that is over its caps is left out, *skipped saying
 * why (a->opts.probe_skipped then points at it). */
static int load_probe(char *const *inputs, struct analyze_args *a,
                      struct cp_probeview *probe, struct cp_error *skipped)
{
    char found[4200];
    const char *path = a->probe_path;
    struct cp_error err;
    int rc;

    if (!path && !a->no_probe &&
        cp_probeview_find((const char *const *)inputs, found, sizeof found))
        path = found;
    if (!path)
        return 0;
    /* a probe named on the command line that cannot be read is a usage
     * error; one found next to the logs makes them unusable as given
     * (--no-probe analyzes without it) */
    rc = cp_probeview_read(path, probe, &err);
    if (rc == CP_PROBEVIEW_TOO_BIG && path == found) {
        cp_error_set(skipped, path, -1, "%s; the analysis goes on without it",
                     err.text);
        a->opts.probe_skipped = skipped;
        return 0;
    }
    if (rc < 0) {
        cp_cli_say(stderr, "collprof analyze: %s%s", err.text,
                path == found
                    ? " (found next to the logs; --no-probe ignores it)"
                    : "");
        return path == found ? EXIT_UNUSABLE : EXIT_USAGE;
    }
    a->opts.probe = probe;
    return 0;
}

/* The input problems the analysis met, one line each. */
static void print_problems(const struct cp_analysis *an)
{
    size_t i;

    for (i = 0; i < an->nproblems; i++) {
        const struct cp_analysis_problem *p = &an->problems[i];
        if (p->offset >= 0)
            cp_cli_say(stderr, "collprof analyze: %s: offset %lld: %s", p->file,
                    (long long)p->offset, p->message);
        else
            cp_cli_say(stderr, "collprof analyze: %s: %s", p->file, p->message);
    }
}

/* report.json and report.html into a->outdir, then the verdict: 0, or the
 * exit status after a message. */
static int write_outputs(const struct cp_analysis *an,
                         const struct analyze_args *a)
{
    char path[4200], html[4200];
    json_t *report = cp_analysis_to_json(an);
    int rc = EXIT_UNUSABLE, html_ok;

    if (!report) {
        fprintf(stderr, "collprof analyze: out of memory writing the report\n");
        goto out;
    }
    if (write_report(a->outdir, report, path, sizeof path) < 0)
        goto out;
    /* the page is a view of the same report; without it report.json still
     * holds everything, so a failure is reported but does not fail the run */
    snprintf(html, sizeof html, "%s/report.html", a->outdir);
    html_ok = cp_report_html(report, path, html, "analyze") == 0;
    if (!a->quiet)
        print_verdict(an, path, html_ok ? html : NULL);
    rc = 0;
out:
    json_decref(report);
    return rc;
}

int cp_cmd_analyze(int argc, char **argv)
{
    struct analyze_args a;
    struct cp_profile profile;
    struct cp_probeview probe;
    struct cp_analysis *an = NULL;
    struct cp_tagnames *tag_names = NULL;
    struct cp_error err, probe_skipped;
    struct progress prog = {0};
    char *const *inputs;
    int rc = EXIT_USAGE, c;

    memset(&probe, 0, sizeof probe);
    c = parse_args(argc, argv, &a);
    if (c != 0) {
        rc = c > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    inputs = argv + optind;
    if (cp_clijob_tag_names("analyze", a.tags, &tag_names) < 0)
        goto out;
    a.opts.tag_names = tag_names;
    rc = EXIT_UNUSABLE;
    for (c = 0; inputs[c]; c++)
        if (cp_cli_anchor("analyze", inputs[c]) < 0)
            goto out;
    if (a.nodes) {
        int r = reduce_nodes(inputs, a.nodes_wait, a.quiet);
        if (r != 0) {
            rc = r > 0 ? 0 : EXIT_UNUSABLE;
            goto out;
        }
    }
    rc = cp_clijob_load_profile("analyze", a.profile_path, a.no_profile,
                                &profile, &a.opts.profile);
    if (rc == 0)
        rc = load_probe(inputs, &a, &probe, &probe_skipped);
    if (rc != 0)
        goto out;
    rc = EXIT_USAGE;
    if (!a.quiet) {
        a.opts.progress = on_progress;
        a.opts.progress_ctx = &prog;
    }
    if (cp_clijob_window_given(&a.win)) {
        if (resolve_window((const char *const *)inputs, &a.opts, &a.win,
                           &rc) < 0)
            goto out;
        rc = EXIT_USAGE;
    }
    an = cp_analysis_run((const char *const *)inputs, &a.opts, &err);
    if (!an) {
        cp_cli_say(stderr, "collprof analyze: %s", err.text);
        rc = EXIT_UNUSABLE;
        goto out;
    }
    print_problems(an);
    print_probe_warnings(an);
    rc = write_outputs(an, &a);
    if (rc == 0 && a.fail_on >= 0 &&
        cp_analysis_worst_severity(an) >= a.fail_on)
        rc = EXIT_FINDINGS;
out:
    cp_analysis_destroy(an);
    cp_probeview_clear(&probe);
    cp_tagnames_destroy(tag_names);
    return rc;
}
