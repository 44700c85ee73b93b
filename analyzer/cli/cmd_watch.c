/* cmd_watch.c - collprof watch: a running job's hang, slowdown or straggler
 * named while it runs; one watcher per node, one leading. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
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
#define HEADLINES_MAX 64 /* causes remembered, each said once */
#define ACTION_TIMEOUT_S 60 /* scancel, scontrol requeue */
#define STRAGGLER_WINDOW 32 /* a communicator's newest instances judged */
#define STRAGGLER_SHARE 0.6 /* last at this share of them */
#define STRAGGLER_SPREAD_NS 1000000ull /* by a median spread of 1 ms */
#define STRAGGLER_EVERY_S 60.0 /* the analysis asked at most this often */
/* A look that asks of a hang or a straggler only analyzes the calls that
 * started in the last RECENT_S seconds (or 4 x --hang-after, if longer),
 * read from the logs' sync points before them: a look costs that window,
 * not the run so far.  The calls a hang leaves in flight started in it
 * (the suspicion is raised --hang-after after they did).  A slowdown is
 * judged against the whole run. */
#define RECENT_S 600.0

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
            "  --node NAME       follow only the logs written on node NAME and\n"
            "                    publish its state in DIR/watch-NAME.state at\n"
            "                    each look, for the lead; names nothing itself\n"
            "  --lead            (with --node) also read the other nodes' states\n"
            "                    and judge for the whole job\n"
            "  --on-hang ACTION  after a hang is named and written: cancel (scancel\n"
            "                    JOB.STEP) or requeue (scontrol requeue JOB); needs\n"
            "                    --slurm-step\n"
            "  --slurm-step J.S  the Slurm job and step watched\n"
            "  --syslog          each line said also to syslog\n"
            "  --top             one screen per second on stdout: per communicator\n"
            "                    the calls in flight and their age, busbw, the\n"
            "                    ranks last to arrive, the last alert\n"
            "  --once            look once, judge, and exit\n"
            "  -q, --quiet       nothing on stderr but errors (watch.log is\n"
            "                    still written)\n"
            "\n"
            "Exit status: 0, 3 a hang, slowdown or straggler was named (with\n"
            "--once), 1 an error, 2 usage.\n",
            ALERT_TIMEOUT_S);
}

enum on_hang { ON_HANG_NONE = 0, ON_HANG_CANCEL, ON_HANG_REQUEUE };

struct wargs {
    double interval_s, hang_after_s, slow_after_s;
    const char *alert, *metrics;
    long exit_with;
    int once, quiet;
    const char *node;
    int lead, syslog, top;
    enum on_hang on_hang;
    char slurm_job[32], slurm_step[64]; /* "J", "J.S" */
};

/* SIGTERM, SIGINT, SIGHUP: one last look, then the end */
static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
    (void)sig;
    stopping = 1;
}

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
    case 'n':
        a->node = arg;
        return 0;
    case 'L': a->lead = 1; return 0;
    case 'y': a->syslog = 1; return 0;
    case 't': a->top = 1; return 0;
    case 'A':
        if (strcmp(arg, "cancel") == 0)
            a->on_hang = ON_HANG_CANCEL;
        else if (strcmp(arg, "requeue") == 0)
            a->on_hang = ON_HANG_REQUEUE;
        else if (strcmp(arg, "none") == 0)
            a->on_hang = ON_HANG_NONE;
        else
            return cp_cli_usage_error("watch", "--on-hang %s: cancel, requeue "
                                      "or none", arg) ? -1 : 0;
        return 0;
    case 'J': {
        unsigned long j, st = 0;
        int n = 0;
        if ((sscanf(arg, "%lu%n", &j, &n) != 1 || arg[n] != '.' ||
             sscanf(arg + n + 1, "%lu%n", &st, &n) != 1) ||
            strspn(arg, "0123456789.") != strlen(arg) || j == 0)
            return cp_cli_usage_error("watch", "--slurm-step %s: JOB.STEP, "
                                      "two numbers", arg) ? -1 : 0;
        snprintf(a->slurm_job, sizeof a->slurm_job, "%lu", j);
        snprintf(a->slurm_step, sizeof a->slurm_step, "%lu.%lu", j, st);
        return 0;
    }
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

    while (!stopping && nanosleep(&t, &t) < 0 && errno == EINTR)
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
                          const unsigned *named)
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
    rc = cp_watch_metrics(w, f, user, now_ns(), named);
    if (fclose(f) != 0 || rc < 0 || rename(tmp, a->metrics) < 0) {
        cp_cli_say(stderr, "collprof watch: %s: %s", a->metrics,
                   strerror(errno));
        unlink(tmp);
    }
}

static char last_said[1400]; /* for --top */

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

/* The hook's rate: at most HOOK_BURST runs in any HOOK_WINDOW seconds
 * (each cause is said once, but a job can have many). */
#define HOOK_BURST 5
#define HOOK_WINDOW 600
#define HOOK_BURST_S "5"
#define HOOK_WINDOW_S "600"

static int hook_allowed(void)
{
    static time_t runs[HOOK_BURST];
    static size_t next;
    time_t now = time(NULL);

    if (runs[next] && now - runs[next] < HOOK_WINDOW)
        return 0;
    runs[next] = now;
    next = (next + 1) % HOOK_BURST;
    return 1;
}

/* Say msg (one cause, named once): stderr, watch.log, syslog, the hook. */
static void say(const char *dir, const struct wargs *a, const char *cause,
                const char *text)
{
    char msg[1024], shown[1400];

    snprintf(msg, sizeof msg, "collprof watch: %s", text);
    cp_text_shown(shown, sizeof shown, msg, strlen(msg), 0);
    snprintf(last_said, sizeof last_said, "%s", shown);
    log_line(dir, shown);
    if (!a->quiet && !a->top)
        fprintf(stderr, "%s\n", shown);
    if (a->syslog)
        syslog(LOG_USER | LOG_WARNING, "%s", shown);
    if (a->alert && hook_allowed())
        run_alert(a->alert, dir, cause, shown);
    else if (a->alert)
        log_line(dir, "collprof watch: the alert hook held back for the "
                      "line above (at most " HOOK_BURST_S " runs in "
                      HOOK_WINDOW_S " s)");
}

/* What the loop asks the analysis, and what it has named so far. */
struct judged {
    int want_hang, want_slow, want_straggler; /* this time */
    int slowed;                               /* this time: a slowdown */
    unsigned hangs, slowdowns, stragglers;    /* named so far */
    int acted;                                /* --on-hang done */
};

/* A line of what the watcher does: watch.log, syslog, stderr (no hook). */
static void note_action(const char *dir, const struct wargs *a,
                        const char *line)
{
    log_line(dir, line);
    if (a->syslog)
        syslog(LOG_USER | LOG_WARNING, "%s", line);
    if (!a->quiet && !a->top)
        fprintf(stderr, "%s\n", line);
}

/* --on-hang: the step cancelled, or the job requeued, once, after the hang
 * is written; what was run and its exit in watch.log. */
static void act_on_hang(const char *dir, const struct wargs *a,
                        struct judged *j)
{
    static const char *const bindirs[] = {"/usr/local/bin", "/usr/bin",
                                          "/bin"};
    const char *prog = a->on_hang == ON_HANG_CANCEL ? "scancel" : "scontrol";
    char path[64], line[256];
    const char *argv[4];
    size_t i;
    int rc;

    if (a->on_hang == ON_HANG_NONE || j->acted)
        return;
    j->acted = 1;
    for (i = 0; i < sizeof bindirs / sizeof bindirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", bindirs[i], prog);
        if (access(path, X_OK) == 0)
            break;
    }
    argv[0] = path;
    argv[1] = a->on_hang == ON_HANG_CANCEL ? a->slurm_step : "requeue";
    argv[2] = a->on_hang == ON_HANG_CANCEL ? NULL : a->slurm_job;
    argv[3] = NULL;
    /* said before it runs: a cancel ends this watcher with the step */
    snprintf(line, sizeof line, "collprof watch: on hang: running %s %s%s%s",
             path, argv[1], argv[2] ? " " : "", argv[2] ? argv[2] : "");
    note_action(dir, a, line);
    rc = cp_cli_run("watch", argv, NULL, ACTION_TIMEOUT_S);
    snprintf(line, sizeof line, "collprof watch: on hang: %s %s: %s %d", path,
             argv[1], rc == 0 ? "done, exit" : "FAILED, exit", rc);
    note_action(dir, a, line);
}

/* A finding of the analysis worth saying now: kind at warning or above,
 * said once (a straggler once per rank list). */
static void say_finding(const char *dir, const struct wargs *a,
                        struct said *said,
                        const struct cp_analysis_finding *f, const char *word)
{
    char text[1024], key[256];
    size_t k, used;

    used = (size_t)snprintf(key, sizeof key, "%s ranks", word);
    for (k = 0; k < f->nranks && used < sizeof key; k++)
        used += (size_t)snprintf(key + used, sizeof key - used, " %d",
                                 f->ranks[k]);
    if (f->kind == CP_KIND_STRAGGLER && said_before(said, key))
        return;
    snprintf(text, sizeof text, "%s: %s", word, f->message);
    say(dir, a, cp_kind_name(f->kind), text);
}

/* What the analysis of the logs as they are now names: a hang not said
 * before ("ENDED with calls in flight", what a finished job's logs say,
 * is no hang of a running one), the first slowdown finding, a straggler
 * not said before; each as j asks.  0, or -1 when it could not run. */
static int check(struct cp_watch *w, const char *dir, const struct wargs *a,
                 struct said *said, struct judged *j)
{
    const char *paths[] = {dir, NULL};
    struct cp_analysis_opts o;
    struct cp_analysis *an;
    struct cp_error err;
    const char *head;
    int slow_done = 0, strag_done = 0;
    size_t i;

    j->slowed = 0;
    cp_analysis_opts_init(&o);
    o.jobs = 1;
    o.alive = alive_cb;
    o.alive_ctx = w;
    o.no_since = 1; /* a change's detail: at the end, not each look */
    if (!j->want_slow) {
        /* a hang or a straggler of now: the recent past only */
        double back = 4.0 * a->hang_after_s;
        if (back < RECENT_S)
            back = RECENT_S;
        o.window_from_ns = (int64_t)now_ns() - (int64_t)(back * 1e9);
    }
    an = cp_analysis_run(paths, &o, &err);
    if (!an) {
        cp_cli_say(stderr, "collprof watch: %s", err.text);
        return -1;
    }
    head = cp_hang_headline(an);
    if (head && strncmp(head, "collprof: ", 10) == 0)
        head += 10;
    if (j->want_hang && head && strncmp(head, "ENDED", 5) != 0 &&
        !said_before(said, head)) {
        say(dir, a, cp_kind_name(CP_KIND_HANG), head);
        j->hangs++;
        act_on_hang(dir, a, j);
    }
    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        if (f->severity < CP_SEVERITY_WARNING)
            continue;
        if (j->want_slow && !slow_done && f->kind == CP_KIND_SLOWDOWN) {
            say_finding(dir, a, said, f, "SLOWDOWN");
            j->slowed = slow_done = 1;
        } else if (j->want_straggler && !strag_done &&
                   f->kind == CP_KIND_STRAGGLER) {
            unsigned before = (unsigned)said->n;
            say_finding(dir, a, said, f, "STRAGGLER");
            j->stragglers += said->n != before;
            strag_done = 1;
        }
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

/* ---- --top ------------------------------------------------------------- */

static void top_row(void *arg, const struct cp_watch_comm *c)
{
    FILE *out = arg;
    char last[48] = "-";

    if (c->last_rank >= 0)
        snprintf(last, sizeof last, "rank %d (%u/%u)", c->last_rank,
                 c->last_of, c->complete);
    fprintf(out, "%-18.18s %-13s %5u %6u %9.1f %10.2f  %s\n", c->name,
            cp_model_coll_name((enum cp_coll)c->coll), c->nranks, c->inflight,
            (double)c->oldest_ns / 1e9, c->busbw / 1e9, last);
}

static void top_screen(const struct cp_watch *w, const char *dir,
                       const struct judged *j)
{
    size_t done, n = cp_watch_logs(w, &done);
    char when[32];
    time_t t = time(NULL);
    struct tm tm;

    localtime_r(&t, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    if (isatty(1))
        fputs("\033[H\033[2J", stdout);
    printf("collprof watch %s  %s  logs %zu (%zu over)  hangs %u  "
           "slowdowns %u  stragglers %u\n\n",
           dir, when, n, done, j->hangs, j->slowdowns, j->stragglers);
    printf("%-18s %-13s %5s %6s %9s %10s  %s\n", "communicator", "collective",
           "ranks", "flight", "oldest s", "busbw GB/s", "last to arrive");
    cp_watch_comms(w, now_ns(), STRAGGLER_WINDOW, top_row, stdout);
    printf("\nlast alert: %s\n", last_said[0] ? last_said : "none");
    if (!isatty(1))
        fputs("\n", stdout);
    fflush(stdout);
}

/* ---- the loop ------------------------------------------------------------ */

/* What to ask the analysis at this look (each suspicion asks at most once
 * per its limit; a slowdown is said once until the pace recovers). */
struct due {
    uint64_t hang, slow, strag; /* when each was last asked */
    int slow_said;
};

static void suspicions(const struct cp_watch *w, const struct wargs *a,
                       struct due *d, struct judged *j)
{
    uint64_t hang_ns = (uint64_t)(a->hang_after_s * 1e9);
    uint64_t slow_ns = (uint64_t)(a->slow_after_s * 1e9);
    uint64_t now = now_ns();
    struct cp_watch_suspect sus;
    struct cp_watch_slow slow;
    struct cp_watch_straggler st;

    j->want_hang = cp_watch_suspect(w, now, hang_ns, 10.0, &sus) &&
                   (!d->hang || now - d->hang >= hang_ns);
    j->want_slow = 0;
    if (!cp_watch_slow(w, now, slow_ns, &slow))
        d->slow_said = 0;
    else if (!d->slow_said && (!d->slow || now - d->slow >= slow_ns))
        j->want_slow = 1;
    j->want_straggler =
        cp_watch_straggler(w, STRAGGLER_WINDOW, STRAGGLER_SHARE,
                           STRAGGLER_SPREAD_NS, &st) &&
        (!d->strag || now - d->strag >= (uint64_t)(STRAGGLER_EVERY_S * 1e9));
    if (j->want_hang)
        d->hang = now;
    if (j->want_slow)
        d->slow = now;
    if (j->want_straggler)
        d->strag = now;
}

static int watch_loop(struct cp_watch *w, const char *dir,
                      const struct wargs *a)
{
    struct said said = {{NULL}, 0};
    struct judged j;
    struct due due;
    struct cp_error note, err;
    int over = 0, rc = 0, state_said = 0;
    int judge = !a->node || a->lead;
    size_t i;

    memset(&j, 0, sizeof j);
    memset(&due, 0, sizeof due);
    for (;;) {
        if (cp_watch_poll(w, &note, &err) < 0) {
            cp_cli_say(stderr, "collprof watch: %s", err.text);
            rc = 1;
            break;
        }
        if (note.text[0] && !a->quiet)
            cp_cli_say(stderr, "collprof watch: %s", note.text);
        if (a->node && !a->lead && cp_watch_state_write(w, &err) < 0 &&
            !state_said++)
            cp_cli_say(stderr, "collprof watch: %s", err.text);
        if (judge) {
            suspicions(w, a, &due, &j);
            if (j.want_hang || j.want_slow || j.want_straggler) {
                check(w, dir, a, &said, &j);
                if (j.slowed) {
                    due.slow_said = 1;
                    j.slowdowns++;
                }
            }
        }
        if (a->metrics) {
            unsigned named[CP_KIND_COUNT] = {0};
            named[CP_KIND_HANG] = j.hangs;
            named[CP_KIND_SLOWDOWN] = j.slowdowns;
            named[CP_KIND_STRAGGLER] = j.stragglers;
            write_metrics(w, a, judge ? named : NULL);
        }
        if (a->top)
            top_screen(w, dir, &j);
        if (a->once || over)
            break;
        /* one last look after the end */
        over = stopping || job_over(w, a);
        if (!over)
            nap(a->top && a->interval_s > 1.0 ? 1.0 : a->interval_s);
    }
    for (i = 0; i < said.n; i++)
        free(said.line[i]);
    if (a->metrics && !a->once)
        unlink(a->metrics); /* the step's series end with it */
    if (rc == 0 && a->once && j.hangs + j.slowdowns + j.stragglers)
        rc = EXIT_HUNG;
    return rc;
}

/* Options that only make sense together. */
static int consistent(const struct wargs *a)
{
    if (a->lead && !a->node)
        return cp_cli_usage_error("watch", "--lead needs --node");
    if (a->on_hang != ON_HANG_NONE && !a->slurm_step[0])
        return cp_cli_usage_error("watch", "--on-hang needs --slurm-step");
    if (a->on_hang != ON_HANG_NONE && a->node && !a->lead)
        return cp_cli_usage_error("watch", "--on-hang is the lead's (--lead) "
                                  "or a lone watcher's");
    return 0;
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
        {"node", required_argument, 0, 'n'},
        {"lead", no_argument, 0, 'L'},
        {"on-hang", required_argument, 0, 'A'},
        {"slurm-step", required_argument, 0, 'J'},
        {"syslog", no_argument, 0, 'y'},
        {"top", no_argument, 0, 't'},
        {"once", no_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct wargs a;
    struct sigaction sa;
    struct cp_watch *w;
    struct cp_error err;
    const char *dir;
    int c, rc;

    memset(&a, 0, sizeof a);
    a.interval_s = 5.0;
    a.hang_after_s = 60.0;
    a.slow_after_s = 20.0;
    c = cp_cli_options("watch", argc, argv, ":qh", opts, usage, take, &a);
    if (c != 0)
        return c > 0 ? 0 : 2;
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    if (consistent(&a) != 0)
        return 2;
    dir = argv[optind];
    if (cp_cli_anchor("watch", dir) < 0)
        return 1;
    w = cp_watch_open(dir, &err);
    if (!w || (a.node && cp_watch_set_node(w, a.node, a.lead,
                                           3 * a.interval_s + 10, &err) < 0)) {
        cp_cli_say(stderr, "collprof watch: %s", err.text);
        cp_watch_close(w);
        return 1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (a.syslog)
        openlog("collprof", LOG_PID, LOG_USER);
    rc = watch_loop(w, dir, &a);
    cp_watch_close(w);
    return rc;
}
