/* cmd_trace.c - collprof trace: the calls of every rank as a timeline for
 * ui.perfetto.dev and Chrome's trace viewer (docs/trace.md). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cp_analysis.h"
#include "cp_judge.h"
#include "cp_clijob.h"
#include "cp_cmds.h"
#include "cp_path.h"
#include "cp_profile.h"
#include "cp_tagnames.h"
#include "cp_trace.h"
#include "cp_units.h"

#define MAX_COMMS 64

#define EXIT_UNUSABLE 1
#define EXIT_USAGE 2

static void usage(FILE *out)
{
    char profile[4200];

    fprintf(out,
            "usage: collprof trace DIR|FILE... -o FILE [OPTIONS]\n"
            "\n"
            "Writes the calls of every rank of one job as a timeline that\n"
            "ui.perfetto.dev and Chrome's chrome://tracing open (JSON\n"
            "trace-event format, docs/trace.md): one process per node, one\n"
            "thread per rank ('rank 5 (n3)'), a slice per call with its op,\n"
            "bytes, communicator, sequence, own time, busbw and the model's\n"
            "time; a flow from the rank that arrived last to the others of\n"
            "each collective; device intervals on a lane under the rank; the\n"
            "analysis's findings as instant events.  Times are microseconds\n"
            "since the run's first call, node clocks corrected as in the\n"
            "analysis.\n"
            "\n"
            "  -o, --output FILE    the trace; gzip-compressed when FILE ends\n"
            "                       in .gz (both viewers open it); - for stdout\n"
            "      --from T         only calls that end after T (a time since\n"
            "                       the run's first call: 2.5s, 300ms)\n"
            "      --to T           only calls that start before T\n"
            "      --steps A:B      only training steps A to B-1 (from 0; A: and\n"
            "                       :B open), as collprof analyze finds them\n"
            "      --skip-steps N   --steps N:\n"
            "      --ranks LIST     only these global ranks: 0-63,128\n"
            "      --comm NAME      only this communicator (its name, e.g.\n"
            "                       world or dp0, or its id in hex); may be\n"
            "                       repeated\n"
            "      --max-events N   refuse a trace of more events (default\n"
            "                       %u: what the viewers load; 0: no limit)\n"
            "      --profile FILE   the site profile for the model's times\n"
            "                       (as collprof analyze); by default the site\n"
            "                       profile when it exists:\n"
            "                         %s\n"
            "      --no-profile     fit the model to the job's calls only\n"
            "      --tags LIST      names of the application's tag values\n"
            "                       (1=forward,2=backward; default: the\n"
            "                       environment's COLLPROF_TAGS), shown beside\n"
            "                       each call's tag where the NCCL profiler\n"
            "                       plugin (API v7) recorded one\n"
            "  -q, --quiet          no summary line\n"
            "  -h, --help           this text\n"
            "\n"
            "A job too large for a viewer is refused with its figures and the\n"
            "cuts that would make it fit.\n"
            "\n"
            "Exit status: 0 written; 1 no readable log, the trace would be too\n"
            "large, or it could not be written; 2 bad usage.\n",
            CP_TRACE_MAX_EVENTS, cp_clijob_profile_help(profile, sizeof profile));
}

/* ---- output: plain or gzip, through a temporary file ---------------------- */

struct sink {
    FILE *plain;
    gzFile gz;
};

static int sink_write(void *ctx, const void *buf, size_t len)
{
    struct sink *s = ctx;

    if (s->gz) {
        while (len) {
            unsigned k = len > (1u << 30) ? 1u << 30 : (unsigned)len;
            if (gzwrite(s->gz, buf, k) != (int)k) {
                errno = errno ? errno : EIO;
                return -1;
            }
            buf = (const char *)buf + k;
            len -= k;
        }
        return 0;
    }
    if (fwrite(buf, 1, len, s->plain) != len)
        return -1;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- the refusal ---------------------------------------------------------- */

static void print_too_large(const struct cp_analysis *an,
                            const struct cp_trace_stats *st,
                            const struct cp_trace_opts *o)
{
    double limit = (double)o->max_events, share = limit / (double)st->events;
    double window_s = an->summary.span_s;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE];
    unsigned keep = (unsigned)floor(share * st->ranks);

    if (o->from_ns != INT64_MIN || o->to_ns != INT64_MAX) {
        double a = o->from_ns == INT64_MIN ? 0 : (double)o->from_ns * 1e-9;
        double b = o->to_ns == INT64_MAX ? window_s : (double)o->to_ns * 1e-9;
        window_s = b > a ? b - a : 0;
    }
    fprintf(stderr,
            "collprof trace: too large for a viewer: %u rank%s, %" PRIu64
            " calls, %" PRIu64 " device intervals and up to %" PRIu64
            " flow events make %" PRIu64 " events, above the limit of %" PRIu64
            " (docs/trace.md, \"How large\")\n",
            st->ranks, st->ranks == 1 ? "" : "s", st->calls, st->gpu,
            2 * st->flows, st->events, o->max_events);
    fprintf(stderr, "collprof trace: to make it fit, cut it with");
    if (keep >= 1 && st->ranks > 1)
        fprintf(stderr, " --ranks 0-%u (about %u of the %u ranks),",
                keep - 1, keep, st->ranks);
    if (window_s > 0)
        fprintf(stderr, " --from T --to T spanning at most %s of the %s "
                        "run%s,",
                cp_units_format_time(window_s * share * 0.9, b1, sizeof b1),
                cp_units_format_time(an->summary.span_s, b2, sizeof b2),
                window_s < an->summary.span_s ? " (within the cut)" : "");
    fprintf(stderr, " or --comm NAME; --max-events 0 writes it anyway\n");
}

static void print_done(const char *path, const struct cp_trace_stats *st,
                       int gz, long long file_bytes)
{
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE];

    fprintf(stderr,
            "collprof trace: %s: %u rank%s on %u node%s, %" PRIu64
            " calls, %" PRIu64 " flows, %" PRIu64 " device intervals, %" PRIu64
            " findings; %" PRIu64 " events, %s%s%s%s\n",
            path, st->ranks, st->ranks == 1 ? "" : "s", st->nodes,
            st->nodes == 1 ? "" : "s", st->calls, st->flows, st->gpu,
            st->instants, st->events,
            cp_units_format_size((double)st->bytes, b1, sizeof b1),
            gz ? " (" : "",
            gz ? cp_units_format_size((double)file_bytes, b2, sizeof b2) : "",
            gz ? " compressed)" : "");
}

/* What the command line asked for. */
struct trace_args {
    const char *output, *profile_path, *tags;
    const char *comms[MAX_COMMS];
    struct cp_trace_range *ranges; /* owned: free() */
    struct cp_trace_opts topts;
    struct cp_analysis_opts aopts;
    struct cp_clijob_window win;
    int quiet, no_profile;
};

/* One option of getopt_long's; -1 after a message on a bad value. */
static int parse_option(int c, const char *arg, void *ctx)
{
    struct trace_args *a = ctx;
    struct cp_error err;
    uint64_t v;
    int n;

    switch (c) {
    case 'o':
        a->output = arg;
        return 0;
    case 'F':
    case 'T':
    case 's':
    case 'S':
        return cp_clijob_window_option("trace",
                                       c == 'F'   ? "--from"
                                       : c == 'T' ? "--to"
                                       : c == 's' ? "--steps"
                                                  : "--skip-steps",
                                       arg, &a->win);
    case 'r':
        free(a->ranges);
        a->ranges = NULL;
        n = cp_trace_parse_ranks(arg, &a->ranges, &err);
        if (n < 0) {
            cp_cli_say(stderr, "collprof trace: %s", err.text);
            return -1;
        }
        a->topts.ranges = a->ranges;
        a->topts.nranges = (size_t)n;
        return 0;
    case 'c':
        if (a->topts.ncomms == MAX_COMMS) {
            fprintf(stderr, "collprof trace: --comm: at most %d\n",
                    MAX_COMMS);
            return -1;
        }
        a->comms[a->topts.ncomms++] = arg;
        return 0;
    case 'm':
        if (cp_units_parse_count(arg, UINT64_MAX, &v, &err) < 0) {
            cp_cli_say(stderr, "collprof trace: --max-events: %s", err.text);
            return -1;
        }
        a->topts.max_events = v;
        return 0;
    case 'p':
        a->profile_path = arg;
        return 0;
    case 'P':
        a->no_profile = 1;
        return 0;
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

/* The command line into a (a->ranges to free whatever it returns): 0, 1
 * when --help was written, -1 after a message (a usage error). */
static int parse_args(int argc, char **argv, struct trace_args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"from", required_argument, NULL, 'F'},
        {"to", required_argument, NULL, 'T'},
        {"steps", required_argument, NULL, 's'},
        {"skip-steps", required_argument, NULL, 'S'},
        {"ranks", required_argument, NULL, 'r'},
        {"comm", required_argument, NULL, 'c'},
        {"max-events", required_argument, NULL, 'm'},
        {"profile", required_argument, NULL, 'p'},
        {"no-profile", no_argument, NULL, 'P'},
        {"tags", required_argument, NULL, 'G'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;

    memset(a, 0, sizeof *a);
    cp_trace_opts_init(&a->topts);
    cp_analysis_opts_init(&a->aopts);
    cp_clijob_window_init(&a->win);
    a->topts.comms = a->comms;
    c = cp_cli_options("trace", argc, argv, ":o:qh", longopts, usage,
                       parse_option, a);
    if (c != 0)
        return c;
    if (optind >= argc) {
        fprintf(stderr, "collprof trace: no log directory or file given (try "
                        "collprof trace --help)\n");
        return -1;
    }
    if (!a->output) {
        fprintf(stderr, "collprof trace: -o FILE is required: where the trace "
                        "goes (FILE.json, or FILE.json.gz compressed)\n");
        return -1;
    }
    return cp_clijob_window_check("trace", &a->win) < 0 ? -1 : 0;
}

/* The window asked for, on the axis of the run's first call: 0, or -1
 * after a message. */
static int cut_window(const struct cp_analysis *an, struct trace_args *a)
{
    int64_t from, to;
    unsigned steps;

    if (!cp_clijob_window_given(&a->win))
        return 0;
    if (cp_clijob_window_resolve("trace", &a->win, an, &from, &to, &steps) < 0)
        return -1;
    /* the trace's cut is on the axis of the run's first call */
    if (from != INT64_MIN)
        a->topts.from_ns = from - an->summary.start_ns;
    if (to != INT64_MAX)
        a->topts.to_ns = to - an->summary.start_ns;
    return 0;
}

/* Where the trace goes: standard output, or a fresh file beside `output`
 * (out, renamed over it by close_sink; cp_path: never through a link),
 * compressed when its name ends in .gz.  0, or the exit status after a
 * message. */
static int open_sink(const char *output, struct sink *sink,
                     struct cp_path_out *out, int *have_out)
{
    struct cp_error err;
    struct stat sb;
    int fd;

    if (strcmp(output, "-") == 0) {
        sink->plain = stdout;
        return 0;
    }
    if (stat(output, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "collprof trace: %s is a directory: give a file "
                        "name (e.g. %s/trace.json.gz)\n", output, output);
        return EXIT_USAGE;
    }
    if (cp_path_create(out, output, CP_PATH_MODE, &err) < 0) {
        cp_cli_say(stderr, "collprof trace: %s", err.text);
        return EXIT_UNUSABLE;
    }
    *have_out = 1;
    if (!ends_with(output, ".gz")) {
        sink->plain = out->f;
        return 0;
    }
    fd = dup(fileno(out->f));
    sink->gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
    if (!sink->gz) {
        fprintf(stderr, "collprof trace: cannot compress into %s\n", output);
        if (fd >= 0)
            close(fd);
        return EXIT_UNUSABLE;
    }
    return 0;
}

/* Flushes the trace to standard output, or finishes its file and renames
 * it over `output`: 0, or -1 after a message. */
static int close_sink(const char *output, struct sink *sink,
                      struct cp_path_out *out, int *have_out)
{
    struct cp_error err;

    if (sink->plain == stdout) {
        if (fflush(stdout) != 0) {
            fprintf(stderr, "collprof trace: cannot write to stdout: %s\n",
                    strerror(errno));
            return -1;
        }
        return 0;
    }
    if (sink->gz) {
        int zr = gzclose(sink->gz);
        sink->gz = NULL;
        if (zr != Z_OK) {
            fprintf(stderr, "collprof trace: cannot write %s\n", output);
            return -1;
        }
    }
    sink->plain = NULL;
    *have_out = 0;
    if (cp_path_install(out, &err) < 0) {
        cp_cli_say(stderr, "collprof trace: %s", err.text);
        return -1;
    }
    return 0;
}

int cp_cmd_trace(int argc, char **argv)
{
    struct trace_args a;
    struct cp_trace_stats st;
    struct cp_profile profile;
    struct cp_analysis *an = NULL;
    struct cp_tagnames *tag_names = NULL;
    struct cp_error err;
    struct sink sink = {NULL, NULL};
    struct cp_path_out out;
    struct stat sb;
    int have_out = 0, rc = EXIT_USAGE, n;

    memset(&out, 0, sizeof out);
    n = parse_args(argc, argv, &a);
    if (n != 0) {
        rc = n > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    if (cp_clijob_tag_names("trace", a.tags, &tag_names) < 0)
        goto out;
    a.aopts.tag_names = tag_names;
    rc = cp_clijob_load_profile("trace", a.profile_path, a.no_profile,
                                &profile, &a.aopts.profile);
    if (rc != 0)
        goto out;
    rc = EXIT_UNUSABLE;
    for (n = optind; n < argc; n++)
        if (cp_cli_anchor("trace", argv[n]) < 0)
            goto out;
    an = cp_analysis_run((const char *const *)(argv + optind), &a.aopts, &err);
    if (!an) {
        cp_cli_say(stderr, "collprof trace: %s", err.text);
        goto out;
    }
    if (cut_window(an, &a) < 0) {
        rc = EXIT_USAGE;
        goto out;
    }
    rc = open_sink(a.output, &sink, &out, &have_out);
    if (rc != 0)
        goto out;
    rc = EXIT_UNUSABLE;
    a.topts.write = sink_write;
    a.topts.write_ctx = &sink;
    n = cp_trace_write(an, &a.topts, &st, &err);
    if (n == CP_TRACE_TOO_LARGE) {
        print_too_large(an, &st, &a.topts);
        goto out;
    }
    if (n < 0) {
        cp_cli_say(stderr, "collprof trace: %s%s%s",
                err.source[0] ? err.source : "", err.source[0] ? ": " : "",
                err.text);
        goto out;
    }
    if (close_sink(a.output, &sink, &out, &have_out) < 0)
        goto out;
    if (!a.quiet)
        print_done(a.output, &st, ends_with(a.output, ".gz"),
                   stat(a.output, &sb) == 0 ? (long long)sb.st_size : -1);
    rc = 0;
out:
    if (sink.gz)
        gzclose(sink.gz);
    if (have_out)
        cp_path_discard(&out);
    free(a.ranges);
    cp_analysis_destroy(an);
    cp_tagnames_destroy(tag_names);
    return rc;
}
