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
#include "cp_cmds.h"
#include "cp_path.h"
#include "cp_profile.h"
#include "cp_trace.h"
#include "cp_units.h"

#ifndef CP_SYSCONFDIR
#define CP_SYSCONFDIR "/etc"
#endif
#define DEFAULT_PROFILE CP_SYSCONFDIR "/collprof/profile"
#define MAX_COMMS 64

#define EXIT_UNUSABLE 1
#define EXIT_USAGE 2

static void usage(FILE *out)
{
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
            "                       (as collprof analyze; default: "
            DEFAULT_PROFILE " when it exists)\n"
            "      --no-profile     fit the model to the job's calls only\n"
            "  -q, --quiet          no summary line\n"
            "  -h, --help           this text\n"
            "\n"
            "A job too large for a viewer is refused with its figures and the\n"
            "cuts that would make it fit.\n"
            "\n"
            "Exit status: 0 written; 1 no readable log, the trace would be too\n"
            "large, or it could not be written; 2 bad usage.\n",
            CP_TRACE_MAX_EVENTS);
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

static int parse_time_arg(const char *opt, const char *text, int64_t *ns)
{
    struct cp_error err;
    double s;

    if (cp_units_parse_time(text, &s, &err) < 0) {
        fprintf(stderr, "collprof trace: %s: %s\n", opt, err.text);
        return -1;
    }
    if (!(s >= 0) || s > 9e9) {
        fprintf(stderr, "collprof trace: %s: expected a time since the run's "
                        "first call, got '%s'\n", opt, text);
        return -1;
    }
    *ns = (int64_t)llround(s * 1e9);
    return 0;
}

int cp_cmd_trace(int argc, char **argv)
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
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *output = NULL, *profile_path = NULL;
    const char *comms[MAX_COMMS];
    struct cp_trace_range *ranges = NULL;
    struct cp_trace_opts topts;
    struct cp_trace_stats st;
    struct cp_analysis_opts aopts;
    struct cp_profile profile;
    struct cp_analysis *an = NULL;
    struct cp_error err;
    struct sink sink = {NULL, NULL};
    struct cp_path_out out;
    int have_out = 0;
    int quiet = 0, no_profile = 0, c, rc = EXIT_USAGE, n, fd = -1, gz = 0;
    struct stat sb;
    long step_from = -1, step_to = -1;

    memset(&out, 0, sizeof out);
    cp_trace_opts_init(&topts);
    cp_analysis_opts_init(&aopts);
    topts.comms = comms;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'F':
            if (parse_time_arg("--from", optarg, &topts.from_ns) < 0)
                goto out;
            break;
        case 'T':
            if (parse_time_arg("--to", optarg, &topts.to_ns) < 0)
                goto out;
            break;
        case 's':
            if (cp_analysis_parse_steps(optarg, &step_from, &step_to, &err) <
                0) {
                fprintf(stderr, "collprof trace: --steps: %s\n", err.text);
                goto out;
            }
            break;
        case 'S': {
            uint64_t v;
            if (cp_units_parse_count(optarg, UINT32_MAX, &v, &err) < 0) {
                fprintf(stderr, "collprof trace: --skip-steps: %s\n",
                        err.text);
                goto out;
            }
            step_from = (long)v;
            step_to = -1;
            break;
        }
        case 'r':
            free(ranges);
            n = cp_trace_parse_ranks(optarg, &ranges, &err);
            if (n < 0) {
                fprintf(stderr, "collprof trace: %s\n", err.text);
                goto out;
            }
            topts.ranges = ranges;
            topts.nranges = (size_t)n;
            break;
        case 'c':
            if (topts.ncomms == MAX_COMMS) {
                fprintf(stderr, "collprof trace: --comm: at most %d\n",
                        MAX_COMMS);
                goto out;
            }
            comms[topts.ncomms++] = optarg;
            break;
        case 'm': {
            uint64_t v;
            if (cp_units_parse_count(optarg, UINT64_MAX, &v, &err) < 0) {
                fprintf(stderr, "collprof trace: --max-events: %s\n",
                        err.text);
                goto out;
            }
            topts.max_events = v;
            break;
        }
        case 'p':
            profile_path = optarg;
            break;
        case 'P':
            no_profile = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            usage(stdout);
            rc = 0;
            goto out;
        default:
            cp_cli_bad_option("trace", argv, c);
            goto out;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "collprof trace: no log directory or file given (try "
                        "collprof trace --help)\n");
        goto out;
    }
    if (!output) {
        fprintf(stderr, "collprof trace: -o FILE is required: where the trace "
                        "goes (FILE.json, or FILE.json.gz compressed)\n");
        goto out;
    }
    if ((step_from >= 0 || step_to >= 0) &&
        (topts.from_ns != INT64_MIN || topts.to_ns != INT64_MAX)) {
        fprintf(stderr, "collprof trace: give the cut by time (--from, --to) "
                        "or by steps (--steps, --skip-steps), not both\n");
        goto out;
    }
    if (topts.from_ns != INT64_MIN && topts.to_ns != INT64_MAX &&
        topts.to_ns <= topts.from_ns) {
        fprintf(stderr, "collprof trace: --to must be later than --from\n");
        goto out;
    }
    if (profile_path || (!no_profile && access(DEFAULT_PROFILE, R_OK) == 0)) {
        const char *p = profile_path ? profile_path : DEFAULT_PROFILE;
        if (cp_profile_parse_file(p, &profile, &err) < 0) {
            fprintf(stderr, "collprof trace: %s\n", err.text);
            rc = profile_path ? EXIT_USAGE : EXIT_UNUSABLE;
            goto out;
        }
        aopts.profile = &profile;
    }

    rc = EXIT_UNUSABLE;
    an = cp_analysis_run((const char *const *)(argv + optind), &aopts, &err);
    if (!an) {
        fprintf(stderr, "collprof trace: %s\n", err.text);
        goto out;
    }
    if (step_from >= 0 || step_to >= 0) {
        int64_t a, b;
        if (cp_analysis_step_window(an, step_from, step_to, &a, &b, &err) <
            0) {
            fprintf(stderr, "collprof trace: --steps: %s\n", err.text);
            rc = EXIT_USAGE;
            goto out;
        }
        if (a != INT64_MIN)
            topts.from_ns = a - an->summary.start_ns;
        if (b != INT64_MAX)
            topts.to_ns = b - an->summary.start_ns;
    }

    if (strcmp(output, "-") == 0) {
        sink.plain = stdout;
    } else {
        /* a fresh file beside the output, renamed over it at the end
         * (cp_path: never through a link) */
        if (stat(output, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "collprof trace: %s is a directory: give a file "
                            "name (e.g. %s/trace.json.gz)\n", output, output);
            rc = EXIT_USAGE;
            goto out;
        }
        gz = ends_with(output, ".gz");
        if (cp_path_create(&out, output, CP_PATH_MODE, &err) < 0) {
            fprintf(stderr, "collprof trace: %s\n", err.text);
            goto out;
        }
        have_out = 1;
        if (gz) {
            fd = dup(fileno(out.f));
            sink.gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
            if (!sink.gz) {
                fprintf(stderr, "collprof trace: cannot compress into %s\n",
                        output);
                if (fd >= 0)
                    close(fd);
                goto out;
            }
            fd = -1;
        } else {
            sink.plain = out.f;
        }
    }
    topts.write = sink_write;
    topts.write_ctx = &sink;
    n = cp_trace_write(an, &topts, &st, &err);
    if (n == CP_TRACE_TOO_LARGE) {
        print_too_large(an, &st, &topts);
        goto out;
    }
    if (n < 0) {
        fprintf(stderr, "collprof trace: %s%s%s\n",
                err.source[0] ? err.source : "", err.source[0] ? ": " : "",
                err.text);
        goto out;
    }
    if (sink.plain == stdout) {
        if (fflush(stdout) != 0) {
            fprintf(stderr, "collprof trace: cannot write to stdout: %s\n",
                    strerror(errno));
            goto out;
        }
    } else {
        if (sink.gz) {
            int zr = gzclose(sink.gz);
            sink.gz = NULL;
            if (zr != Z_OK) {
                fprintf(stderr, "collprof trace: cannot write %s\n", output);
                goto out;
            }
        }
        sink.plain = NULL;
        have_out = 0;
        if (cp_path_install(&out, &err) < 0) {
            fprintf(stderr, "collprof trace: %s\n", err.text);
            goto out;
        }
    }
    if (!quiet)
        print_done(output, &st, gz,
                   stat(output, &sb) == 0 ? (long long)sb.st_size : -1);
    rc = 0;
out:
    if (sink.gz)
        gzclose(sink.gz);
    if (have_out)
        cp_path_discard(&out);
    free(ranges);
    cp_analysis_destroy(an);
    return rc;
}
