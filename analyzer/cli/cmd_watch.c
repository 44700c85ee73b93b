/* cmd_watch.c - collprof watch: a running job's hang named while it hangs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cp_cmds.h"
#include "cp_hang.h"
#include "cp_judge.h"
#include "cp_kinds.h"
#include "cp_model.h"
#include "cp_path.h"
#include "cp_text.h"
#include "cp_watch.h"

#define EXIT_HUNG 3
#define ALERT_TIMEOUT_S 30
#define HEADLINES_MAX 64 /* hangs remembered, each said once */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof watch [OPTIONS] DIR\n"
            "\n"
            "Watches a job while it runs: follows the rank logs in DIR as the\n"
            "shim writes them (log format 4, the default), reading only what\n"
            "each gained.  When a call has been in flight past its limit, it\n"
            "names the hang as collprof analyze does after a job: which rank\n"
            "never arrived, and where it is instead (still running outside\n"
            "NCCL, dead, inside another collective).  Each hang is said once:\n"
            "a line on stderr, in DIR/watch.log, and the alert hook when given.\n"
            "It ends when every log it follows is closed (the job ended), or\n"
            "with --exit-with.  docs/watch.md.\n"
            "\n"
            "  --interval T      between two looks at the logs (default 5s)\n"
            "  --hang-after T    the limit of a call in flight: T, or 10 times\n"
            "                    the longest call of its communicator and op\n"
            "                    seen finished, whichever is longer (default 60s)\n"
            "  --slow-after T    a communicator whose calls have run at under half\n"
            "                    the run's own pace for T (default 20s) asks the\n"
            "                    analysis whether the run has slowed down; a\n"
            "                    slowdown it names is said as a hang is\n"
            "  --alert PROGRAM   run for each hang or slowdown named, with no\n"
            "                    argument and COLLPROF_WATCH_CAUSE (hang or\n"
            "                    slowdown), COLLPROF_WATCH_MESSAGE\n"
            "                    (the line) and COLLPROF_STEP_DIR (DIR) in a clean\n"
            "                    environment; its output is discarded, killed\n"
            "                    after %d s\n"
            "  --exit-with PID   end when process PID has ended (after one last\n"
            "                    look)\n"
            "  --metrics FILE    write the job's metrics there at each look, in\n"
            "                    Prometheus's text format (node_exporter's\n"
            "                    textfile collector: FILE ends in .prom), whole\n"
            "                    or not at all; removed when the watch ends\n"
            "  --once            look once, judge, and exit\n"
            "  -q, --quiet       nothing on stderr but errors (watch.log is\n"
            "                    still written)\n"
            "\n"
            "Exit status: 0, 3 a hang or slowdown was named (with --once), 1 an\n"
            "error,\n"
            "2 usage.\n",
            ALERT_TIMEOUT_S);
}

struct wargs {
    double interval_s, hang_after_s, slow_after_s;
    const char *alert, *metrics;
    long exit_with;
    int once, quiet;
};

static int take(int c, const char *arg, void *ctx)
{
    struct wargs *a = ctx;
    char *end;

    switch (c) {
    case 'i':
        return cp_cli_positive_time("watch", "--interval", arg,
                                    &a->interval_s) ? -1 : 0;
    case 'H':
        return cp_cli_positive_time("watch", "--hang-after", arg,
                                    &a->hang_after_s) ? -1 : 0;
    case 'S':
        return cp_cli_positive_time("watch", "--slow-after", arg,
                                    &a->slow_after_s) ? -1 : 0;
    case 'a':
        if (arg[0] != '/')
            return cp_cli_usage_error("watch", "--alert %s: give an absolute "
                                      "path", arg) ? -1 : 0;
        a->alert = arg;
        return 0;
    case 'e':
        errno = 0;
        a->exit_with = strtol(arg, &end, 10);
        if (errno || *end || a->exit_with <= 0)
            return cp_cli_usage_error("watch", "--exit-with %s: not a process "
                                      "id", arg) ? -1 : 0;
        return 0;
    case 'm':
        if (arg[0] != '/')
            return cp_cli_usage_error("watch", "--metrics %s: give an "
                                      "absolute path", arg) ? -1 : 0;
        a->metrics = arg;
        return 0;
    case 'o': a->once = 1; return 0;
    case 'q': a->quiet = 1; return 0;
    default: return -1;
    }
}

static uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void nap(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

    while (nanosleep(&t, &t) < 0 && errno == EINTR)
        ;
}

static int alive_cb(void *ctx, const struct cp_analysis_input *in)
{
    return cp_watch_alive(ctx, in->path);
}

/* The line DIR/watch.log gets: a UTC time, then the message. */
static void log_line(const char *dir, const char *msg)
{
    const char *name;
    char line[1500], when[32];
    time_t t = time(NULL);
    struct tm tm;
    int dfd = cp_path_dirfd(dir, &name), fd;
    ssize_t w;

    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(line, sizeof line, "%s %s\n", when, msg);
    fd = dfd >= 0 ? openat(dfd, "watch.log",
                           O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
                               O_CLOEXEC,
                           0644)
                  : -1;
    if (fd < 0) {
        cp_cli_say(stderr, "collprof watch: %s/watch.log: %s", dir,
                   strerror(errno));
        return;
    }
    w = write(fd, line, strlen(line));
    (void)w;
    close(fd);
}

/* The site's hook, as the plugin runs its alert: COLLPROF_WATCH_CAUSE,
 * _MESSAGE and COLLPROF_STEP_DIR. */
static void run_alert(const char *prog, const char *dir, const char *cause,
                      const char *msg)
{
    char e_msg[1500], e_dir[4200], e_cause[64];
    const char *env[] = {e_cause, e_msg, e_dir, NULL};

    snprintf(e_cause, sizeof e_cause, "COLLPROF_WATCH_CAUSE=%s", cause);
    snprintf(e_msg, sizeof e_msg, "COLLPROF_WATCH_MESSAGE=%s", msg);
    snprintf(e_dir, sizeof e_dir, "COLLPROF_STEP_DIR=%s", dir);
    cp_cli_run_hook("watch", prog, env, ALERT_TIMEOUT_S);
}

/* The metrics into a.metrics: a temporary beside it (O_EXCL, O_NOFOLLOW),
 * renamed over it, so that a reader sees a whole file or the last one. */
static void write_metrics(struct cp_watch *w, const struct wargs *a,
                          unsigned hangs, unsigned slowdowns)
{
    char tmp[4200], user[64];
    const char *slash = strrchr(a->metrics, '/');
    struct passwd *pw = getpwuid(getuid());
    FILE *f;
    int fd, rc;

    snprintf(user, sizeof user, "%s", pw ? pw->pw_name : "");
    if (snprintf(tmp, sizeof tmp, "%.*s/.%s.%ld.tmp",
                 (int)(slash - a->metrics), a->metrics, slash + 1,
                 (long)getpid()) >= (int)sizeof tmp)
        return;
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || !(f = fdopen(fd, "w"))) {
        cp_cli_say(stderr, "collprof watch: %s: %s", tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    rc = cp_watch_metrics(w, f, user, now_ns(), hangs, slowdowns);
    if (fclose(f) != 0 || rc < 0 || rename(tmp, a->metrics) < 0) {
        cp_cli_say(stderr, "collprof watch: %s: %s", a->metrics,
                   strerror(errno));
        unlink(tmp);
    }
}

struct said {
    char *line[HEADLINES_MAX];
    size_t n;
};

/* Whether the hang of headline was said before (then remembered): the
 * same hang is the same instance and culprit ("HUNG in ... never
 * arrived"), whatever the words after it say of where the culprit is
 * now. */
static int said_before(struct said *s, const char *headline)
{
    static const char *const ends[] = {"never arrived", "never returned"};
    char key[700];
    size_t i, n = strlen(headline);

    for (i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        const char *e = strstr(headline, ends[i]);
        if (e) {
            n = (size_t)(e - headline) + strlen(ends[i]);
            break;
        }
    }
    snprintf(key, sizeof key, "%.*s", (int)n, headline);
    for (i = 0; i < s->n; i++)
        if (strcmp(s->line[i], key) == 0)
            return 1;
    if (s->n < HEADLINES_MAX)
        s->line[s->n++] = strdup(key);
    return 0;
}

/* Say msg (one cause, named once): stderr, watch.log, the hook. */
static void say(const char *dir, const struct wargs *a, const char *cause,
                const char *text)
{
    char msg[1024], shown[1400];

    snprintf(msg, sizeof msg, "collprof watch: %s", text);
    cp_text_shown(shown, sizeof shown, msg, strlen(msg), 0);
    log_line(dir, shown);
    if (!a->quiet)
        fprintf(stderr, "%s\n", shown);
    if (a->alert)
        run_alert(a->alert, dir, cause, shown);
}

/* What the analysis of the logs as they are now names: with want_hang a
 * hang not said before (*hangs counts it; "ENDED with calls in flight",
 * what a finished job's logs say, is no hang of a running one), with
 * want_slow the first slowdown finding (*slowed set when it named one).
 * 0, or -1 when it could not run. */
static int check(struct cp_watch *w, const char *dir, const struct wargs *a,
                 struct said *said, int want_hang, int want_slow,
                 unsigned *hangs, int *slowed)
{
    const char *paths[] = {dir, NULL};
    struct cp_analysis_opts o;
    struct cp_analysis *an;
    struct cp_error err;
    const char *head;
    char text[1024];
    size_t i;

    cp_analysis_opts_init(&o);
    o.jobs = 1;
    o.alive = alive_cb;
    o.alive_ctx = w;
    an = cp_analysis_run(paths, &o, &err);
    if (!an) {
        cp_cli_say(stderr, "collprof watch: %s", err.text);
        return -1;
    }
    head = cp_hang_headline(an);
    if (head && strncmp(head, "collprof: ", 10) == 0)
        head += 10;
    if (want_hang && head && strncmp(head, "ENDED", 5) != 0 &&
        !said_before(said, head)) {
        say(dir, a, cp_kind_name(CP_KIND_HANG), head);
        (*hangs)++;
    }
    for (i = 0; want_slow && i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        if (f->kind != CP_KIND_SLOWDOWN || f->severity < CP_SEVERITY_WARNING)
            continue;
        snprintf(text, sizeof text, "SLOWDOWN: %s", f->message);
        say(dir, a, cp_kind_name(CP_KIND_SLOWDOWN), text);
        *slowed = 1;
        break;
    }
    cp_analysis_destroy(an);
    return 0;
}

/* Whether the job is over: --exit-with's process gone, or every log
 * followed done (closed by its writer, or its process gone). */
static int job_over(const struct cp_watch *w, const struct wargs *a)
{
    size_t done, n = cp_watch_logs(w, &done);

    if (a->exit_with > 0)
        return kill((pid_t)a->exit_with, 0) < 0 && errno == ESRCH;
    return n > 0 && done == n;
}

static int watch_loop(struct cp_watch *w, const char *dir,
                      const struct wargs *a)
{
    struct said said = {{NULL}, 0};
    uint64_t last_check = 0, last_slow = 0;
    uint64_t hang_ns = (uint64_t)(a->hang_after_s * 1e9);
    uint64_t slow_ns = (uint64_t)(a->slow_after_s * 1e9);
    struct cp_error note, err;
    int over = 0, rc = 0, slow_said = 0;
    unsigned hangs = 0, slowdowns = 0;
    size_t i;

    for (;;) {
        struct cp_watch_suspect sus;
        struct cp_watch_slow slow;
        int hang_due, slow_due = 0, slowed = 0;
        uint64_t now;
        if (cp_watch_poll(w, &note, &err) < 0) {
            cp_cli_say(stderr, "collprof watch: %s", err.text);
            rc = 1;
            break;
        }
        if (note.text[0] && !a->quiet)
            cp_cli_say(stderr, "collprof watch: %s", note.text);
        now = now_ns();
        /* each suspicion asks the analysis at most once per its limit; a
         * slowdown is said once until the pace recovers */
        hang_due = cp_watch_suspect(w, now, hang_ns, 10.0, &sus) &&
                   (!last_check || now - last_check >= hang_ns);
        if (!cp_watch_slow(w, now, slow_ns, &slow))
            slow_said = 0;
        else if (!slow_said && (!last_slow || now - last_slow >= slow_ns))
            slow_due = 1;
        if (hang_due || slow_due) {
            if (hang_due)
                last_check = now;
            if (slow_due)
                last_slow = now;
            check(w, dir, a, &said, hang_due, slow_due, &hangs, &slowed);
            if (slowed) {
                slow_said = 1;
                slowdowns++;
            }
        }
        if (a->metrics)
            write_metrics(w, a, hangs, slowdowns);
        if (a->once || over)
            break;
        over = job_over(w, a); /* one last look after the end */
        if (!over)
            nap(a->interval_s);
    }
    for (i = 0; i < said.n; i++)
        free(said.line[i]);
    if (a->metrics && !a->once)
        unlink(a->metrics); /* the step's series end with it */
    if (rc == 0 && a->once && hangs + slowdowns)
        rc = EXIT_HUNG;
    return rc;
}

int cp_cmd_watch(int argc, char **argv)
{
    static const struct option opts[] = {
        {"interval", required_argument, 0, 'i'},
        {"hang-after", required_argument, 0, 'H'},
        {"slow-after", required_argument, 0, 'S'},
        {"alert", required_argument, 0, 'a'},
        {"exit-with", required_argument, 0, 'e'},
        {"metrics", required_argument, 0, 'm'},
        {"once", no_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct wargs a = {5.0, 60.0, 20.0, NULL, NULL, 0, 0, 0};
    struct cp_watch *w;
    struct cp_error err;
    const char *dir;
    int c, rc;

    c = cp_cli_options("watch", argc, argv, ":qh", opts, usage, take, &a);
    if (c != 0)
        return c > 0 ? 0 : 2;
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    dir = argv[optind];
    if (cp_cli_anchor("watch", dir) < 0)
        return 1;
    w = cp_watch_open(dir, &err);
    if (!w) {
        cp_cli_say(stderr, "collprof watch: %s", err.text);
        return 1;
    }
    rc = watch_loop(w, dir, &a);
    cp_watch_close(w);
    return rc;
}
