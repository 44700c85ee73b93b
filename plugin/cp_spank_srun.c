/* cp_spank_srun.c - srun (local context): when the step ends, the analyzer
 * on the step directory, a verdict of at most 5 lines on srun's stderr,
 * syslog lines for the findings, the site's alert hook, and with
 * --collprof=probe the link probe on the step's nodes.
 *
 * srun runs as the user who started it, so everything here does too; the
 * programs run are the ones plugstack.conf names (never the user's option
 * or environment), and for the probe the srun that runs this plugin and the
 * squeue next to it, each with a time limit (cp_run.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cp_plugin_findings.h"
#include "cp_plugin_probe.h"
#include "cp_run.h"
#include "cp_spank.h"
#include "cp_stepdir.h"
#include "cp_watch_relay.h"
#include "cp_text.h"

#define VERDICT_LINES 5
#define HELP_TIMEOUT_S 10    /* collprof CMD --help */
#define SQUEUE_TIMEOUT_S 10  /* squeue, for the probe */
#define PROBE_GRACE_S 5      /* srun's SIGTERM-to-SIGKILL at probe_timeout */
#define NODELIST_MAX 1024

extern char **environ;

static uint32_t step_nodes; /* the step's node count, 0 when unknown */
/* The step directory, checked once at step end and used from then on by
 * this descriptor (the commands run in it, see run_collprof). */
static int stepdir_fd = -1;

/* For the link probe: the srun running this plugin, whether it started
 * inside an allocation (its own job, else, is gone at step end) and the
 * step's node list, kept at local_user_init while the step exists. */
static char srun_path[PATH_MAX];
static int started_in_allocation;
static char step_nodelist[NODELIST_MAX];

int cp_srun_init(spank_t sp, int ac, char **av)
{
    const char *job;
    ssize_t n;

    if (cp_spank_parse_site(ac, av) < 0)
        return -1;
    /* srun takes SLURM_JOB_ID (or SLURM_JOBID) as --jobid: a step of an
     * allocation that outlives it.  Read before srun sets it itself. */
    job = getenv("SLURM_JOB_ID");
    if (!job || !*job)
        job = getenv("SLURM_JOBID");
    started_in_allocation = job && *job;
    n = readlink("/proc/self/exe", srun_path, sizeof srun_path - 1);
    srun_path[n > 0 && srun_path[0] == '/' ? n : 0] = '\0';
    return cp_spank_register_option(sp);
}

int cp_srun_post_opt(spank_t sp, int ac, char **av)
{
    (void)sp, (void)ac, (void)av;
    if (cp_plugin.loaded)
        cp_spank_fallback_getenv();
    return 0;
}

/* `squeue -h SELECT -o FORMAT` (SELECT: --jobs=J or --steps=J.S) of the
 * squeue next to srun (never one from the user's PATH), its output's first
 * line into out.  -1 when it cannot run or fails. */
static int squeue(const char *select, const char *format, char *out,
                  size_t outlen)
{
    char path[PATH_MAX + 16];
    const char *slash = strrchr(srun_path, '/');
    const char *argv[] = {path, "-h", select, "-o", format, NULL};
    struct cp_run r;

    if (!slash)
        return -1;
    snprintf(path, sizeof path, "%.*s/squeue", (int)(slash - srun_path),
             srun_path);
    memset(&r, 0, sizeof r);
    r.argv = argv;
    r.timeout_s = SQUEUE_TIMEOUT_S;
    r.out = out;
    r.outlen = outlen;
    if (cp_run(&r) < 0 || r.status != 0)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

/* The step's node list (squeue --steps=J.S -o %N), while the step exists:
 * the probe measures exactly these nodes. */
static void keep_step_nodelist(void)
{
    char id[48], out[NODELIST_MAX + 64];
    struct cp_error err;

    step_nodelist[0] = '\0';
    snprintf(id, sizeof id, "--steps=%u.%u", cp_plugin.job_id,
             cp_plugin.step_id);
    if (squeue(id, "%N", out, sizeof out) < 0 || !out[0] ||
        cp_text_check("the node list", out, sizeof step_nodelist, &err) < 0 ||
        strchr(out, ' ')) {
        cp_spank_verbose("probe: the step's node list is unknown");
        return;
    }
    memcpy(step_nodelist, out, strlen(out) + 1); /* checked: it fits */
}

/* With watchers on the step's nodes, their lines on srun's stderr as they
 * are written (cp_watch_relay): slurmstepd cannot reach the job's stderr,
 * srun can. */
static void relay_watch(void)
{
    char step[48], prefix[80];

    if (!cp_request_watch(&cp_plugin.request, &cp_plugin.site))
        return;
    cp_spank_step_name(step, sizeof step);
    snprintf(prefix, sizeof prefix, "collprof: job %s: ", step);
    if (cp_relay_start(cp_plugin.stepdir, cp_plugin.uid, prefix, stderr) < 0)
        cp_spank_verbose("job %s: the watch's lines stay in watch.log (no "
                         "thread for them in srun)", step);
}

/* The job id is 0 in the local exit callback: keep it from here.  Also
 * export srun's working directory for slurmstepd (CP_SPANK_CWD_ENV): the
 * step's own may differ (--chdir), and both sides must find one directory.
 * local_user_init runs before the step's environment is sent. */
int cp_srun_user_init(spank_t sp, int ac, char **av)
{
    struct passwd pw, *found = NULL;
    char pwbuf[4096], cwd[CP_ARGS_PATH_MAX];
    const char *env;

    (void)ac, (void)av;
    if (!cp_plugin.loaded)
        return 0;
    if (!getcwd(cwd, sizeof cwd) || cwd[0] != '/') {
        /* slurmstepd resolves from its own directory; so do we, if we can */
        unsetenv(CP_SPANK_CWD_ENV);
        cwd[0] = '\0';
    } else if (setenv(CP_SPANK_CWD_ENV, cwd, 1) != 0) {
        cwd[0] = '\0';
    }
    if (!cp_request_enabled(&cp_plugin.request, &cp_plugin.site))
        return 0;
    if (spank_get_item(sp, S_JOB_ID, &cp_plugin.job_id) != ESPANK_SUCCESS ||
        cp_plugin.job_id == 0)
        return 0;
    if (spank_get_item(sp, S_JOB_STEPID, &cp_plugin.step_id) !=
        ESPANK_SUCCESS) {
        env = getenv("SLURM_STEP_ID");
        if (!env || !*env)
            return 0;
        cp_plugin.step_id = (uint32_t)strtoul(env, NULL, 10);
    }
    if (spank_get_item(sp, S_JOB_UID, &cp_plugin.uid) != ESPANK_SUCCESS)
        cp_plugin.uid = getuid();
    if (spank_get_item(sp, S_JOB_NNODES, &step_nodes) != ESPANK_SUCCESS)
        step_nodes = 0;
    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) != 0)
        found = NULL;
    if (cp_spank_stepdir_path(found ? found->pw_name : NULL,
                              cwd[0] ? cwd : NULL) < 0)
        return 0;
    if (cp_plugin.request.probe && step_nodes >= 2)
        keep_step_nodelist();
    cp_plugin.active = 1;
    relay_watch();
    return 0;
}

/* ---- printing ----------------------------------------------------------- */

static void tell_user(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line on srun's stderr: "collprof: job J.S: ..." */
static void tell_user(const char *fmt, ...)
{
    char step[48], line[2048];
    va_list ap;
    size_t i;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (i = 0; line[i]; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    cp_spank_step_name(step, sizeof step);
    fprintf(stderr, "collprof: job %s: %s\n", step, line);
}

/* ---- running collprof --------------------------------------------------- */

/* ---- an interruptible wait ------------------------------------------------ */

/* srun blocks SIGINT and SIGTERM in the thread that runs the plugin's exit
 * callback: without this, Ctrl-C did nothing until the analysis ended.
 * While a child runs, a first Ctrl-C says how to abandon it, a second (or
 * one SIGTERM) abandons it: cp_run kills it at once.  srun (22.05) calls
 * the exit callbacks from atexit, after fini_srun has joined its signal
 * thread (which takes SIGINT with sigwait while the step runs), so the
 * signals reach this thread (tests/slurm/spank.sh sends them). */
static volatile sig_atomic_t interrupts, abandon_flag;
static char interrupt_msg[CP_STEPDIR_MAX + 160];
static size_t interrupt_msg_len;
static struct sigaction old_int, old_term;
static sigset_t old_mask;
static int interruptible;

static void on_interrupt(int sig)
{
    if (sig == SIGTERM || ++interrupts >= 2) {
        abandon_flag = 1;
        return;
    }
    if (interrupt_msg_len) {
        ssize_t w = write(2, interrupt_msg, interrupt_msg_len);
        (void)w;
    }
}

static void interruptible_begin(const char *what)
{
    struct sigaction sa;
    sigset_t both;

    interrupts = 0;
    abandon_flag = 0;
    snprintf(interrupt_msg, sizeof interrupt_msg,
             "collprof: %s still running; Ctrl-C again abandons it (the logs "
             "are in %s)\n",
             what, cp_plugin.stepdir);
    interrupt_msg_len = strlen(interrupt_msg);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigemptyset(&both);
    sigaddset(&both, SIGINT);
    sigaddset(&both, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &both, &old_mask);
    interruptible = 1;
}

static void interruptible_end(void)
{
    if (!interruptible)
        return;
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    interruptible = 0;
}

static int run_collprof(const char *const *argv, unsigned timeout_s, char *out,
                        size_t outlen, char *errout, size_t errlen,
                        struct cp_run *r)
{
    memset(r, 0, sizeof *r);
    r->argv = argv;
    r->timeout_s = timeout_s;
    /* the files it makes in the step directory are no wider than it */
    r->set_umask = 1;
    r->umask = (mode_t)(0777 & ~cp_plugin.site.dir_mode);
    r->abandon = &abandon_flag;
    /* in the checked step directory, named "." (help: anywhere) */
    r->in_dir = stepdir_fd >= 0;
    r->dir_fd = stepdir_fd;
    r->out = out;
    r->outlen = outlen;
    r->errout = errout;
    r->errlen = errlen;
    return cp_run(r);
}

/* Whether this collprof has the command `name`. */
static int has_command(const char *name)
{
    const char *argv[] = {cp_plugin.site.collprof, name, "--help", NULL};
    struct cp_run r;

    return run_collprof(argv, HELP_TIMEOUT_S, NULL, 0, NULL, 0, &r) == 0 &&
           r.status == 0;
}

static const char *first_line(char *text)
{
    char *nl;

    while (*text == '\n')
        text++;
    nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    return text;
}

/* N NCCL calls from K ranks, from `collprof dump --summary`. */
static void summary(int logs)
{
    static char out[1 << 16];
    char errout[1024];
    const char *argv[] = {cp_plugin.site.collprof, "dump", "--summary", ".",
                          NULL};
    /* [0] the shim's logs, [1] the NCCL profiler plugin's: with
     * capture=both a process has one of each, counted once (the shim's) */
    unsigned long long calls[2] = {0, 0};
    struct cp_run r;
    int ranks[2] = {0, 0}, k;
    char *line, *save = NULL;

    if (run_collprof(argv, cp_plugin.site.analyze_timeout_s, out, sizeof out,
                     errout, sizeof errout, &r) < 0) {
        tell_user("%d rank logs in %s (collprof dump: %s)", logs, cp_plugin.stepdir,
            r.timed_out ? "timed out" : strerror(errno));
        return;
    }
    for (line = strtok_r(out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        const char *p = strstr(line, " timer ");
        const char *name = strstr(line, ": rank ");
        if (!p || !(p = strstr(p, ": ")) || !name)
            continue;
        k = strstr(name, " nccl-profiler timer ") != NULL;
        calls[k] += strtoull(p + 2, NULL, 10);
        ranks[k]++;
    }
    k = ranks[0] == 0; /* capture=plugin: the plugin's logs alone */
    if (calls[k] == 0)
        return; /* logs without a single call: nothing to say */
    tell_user("%llu NCCL calls from %d ranks logged in %s", calls[k],
              ranks[k], cp_plugin.stepdir);
}

/* The finding the verdict names when the analyzer's lines do not: the worst
 * warning or critical finding that points at some of the step's nodes, not
 * all of them (a slow link, a degraded port, a straggler's node), the first
 * of equals. */
struct headline {
    struct cp_finding f;
    int have;
};

static void pick_headline(const struct cp_finding *f, void *arg)
{
    struct headline *h = arg;
    uint32_t named = 1;
    const char *p;

    for (p = f->nodes; *p; p++)
        named += *p == ',';
    if (f->severity < CP_SEVERITY_WARNING || !f->nodes[0] ||
        (step_nodes && named >= step_nodes) ||
        (h->have && f->severity <= h->f.severity))
        return;
    h->f = *f;
    h->have = 1;
}

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* 1 when `word` appears in text as a whole word. */
static int has_word(const char *text, const char *word, size_t len)
{
    const char *p = text;

    if (len == 0)
        return 1;
    while ((p = strstr(p, word)) != NULL) {
        if ((p == text || !is_word_char(p[-1])) && !is_word_char(p[len]))
            return 1;
        p++;
    }
    return 0;
}

/* 1 when every node of the comma-separated list is named in a line. */
static int lines_name_nodes(char *const *lines, int n, const char *nodes)
{
    char word[160];
    const char *p = nodes;
    int i, named;

    while (*p) {
        size_t len = strcspn(p, ",");
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        for (i = 0, named = 0; i < n && !named; i++)
            named = has_word(lines[i], word, strlen(word));
        if (!named)
            return 0;
        p += len;
        if (*p == ',')
            p++;
    }
    return 1;
}

/* collprof analyze STEPDIR -o STEPDIR; prints the verdict: the analyzer's
 * lines, a line for the finding that names nodes when they do not already
 * (the slow link, by its two nodes), and last the report's path, at most
 * VERDICT_LINES - `reserved` in all (the probe's line comes after).  0 when
 * a report was written. */
static int analyze(int reserved)
{
    static char out[1 << 16], named[sizeof out + 16 * CP_STEPDIR_MAX];
    char errout[4096], headline[1024], first[4096 + CP_STEPDIR_MAX];
    struct cp_error err;
    /* in the step directory (run_collprof): "." is the one checked */
    const char *argv[] = {cp_plugin.site.collprof, "analyze", ".", "-o", ".",
                          NULL};
    char *lines[16], *line, *save = NULL;
    struct headline h;
    struct cp_run r;
    int n = 0, i, report_line = -1, room;

    if (run_collprof(argv, cp_plugin.site.analyze_timeout_s, out, sizeof out,
                     errout, sizeof errout, &r) < 0) {
        if (r.abandoned)
            tell_user("the analysis was abandoned; the logs are in %s (collprof "
                "analyze %s)",
                cp_plugin.stepdir, cp_plugin.stepdir);
        else if (r.timed_out)
            tell_user("the analysis did not finish in %u s; the logs are in %s "
                "(collprof analyze %s)",
                cp_plugin.site.analyze_timeout_s, cp_plugin.stepdir,
                cp_plugin.stepdir);
        else
            tell_user("cannot run %s: %s", cp_plugin.site.collprof,
                strerror(r.exec_errno ? r.exec_errno : errno));
        return -1;
    }
    if (r.status != 0) {
        cp_spank_name_dir(first_line(errout), first, sizeof first);
        tell_user("the analysis failed (exit %d): %s; the logs are in %s", r.status,
            first, cp_plugin.stepdir);
        return -1;
    }
    /* its files named ./NAME: the step directory's path for the user */
    cp_spank_name_dir(out, named, sizeof named);
    for (line = strtok_r(named, "\n", &save); line && n < 16;
         line = strtok_r(NULL, "\n", &save)) {
        if (!*line)
            continue;
        /* the analyzer's own "collprof: " prefix: ours says it already,
         * and the job too ("collprof: job 17.0: HUNG in ...") */
        if (strncmp(line, "collprof: ", 10) == 0)
            line += 10;
        if (strncmp(line, "job ", 4) == 0) {
            size_t id = strcspn(line + 4, " :");
            if (line[4 + id] == ':' && line[5 + id] == ' ')
                line += 6 + id;
        }
        if (strstr(line, "report.json"))
            report_line = n;
        lines[n++] = line;
    }

    memset(&h, 0, sizeof h);
    headline[0] = '\0';
    if (cp_findings_read(stepdir_fd, "report.json", pick_headline, &h,
                         &err) < 0)
        cp_spank_verbose("%s", err.text);
    if (h.have && !lines_name_nodes(lines, n, h.f.nodes)) {
        /* its first clause: "The link between nodes n2 and n4 is slow" */
        size_t cut = strcspn(h.f.message, ":;");
        const char *dot = strstr(h.f.message, ". ");
        if (dot && (size_t)(dot - h.f.message) < cut)
            cut = (size_t)(dot - h.f.message);
        snprintf(headline, sizeof headline, "%s %s on %s: %.*s",
                 cp_severity_name(h.f.severity), h.f.kind, h.f.nodes,
                 (int)(cut < 200 ? cut : 200), h.f.message);
    }

    room = VERDICT_LINES - 1 - (headline[0] ? 1 : 0) - reserved;
    for (i = 0; i < n && room > 0; i++) {
        if (i == report_line)
            continue;
        tell_user("%s", lines[i]);
        room--;
    }
    if (headline[0])
        tell_user("%s", headline);
    if (report_line >= 0)
        tell_user("%s", lines[report_line]);
    else
        tell_user("report: %s/report.json", cp_plugin.stepdir);
    return 0;
}

/* ---- syslog and the alert hook ------------------------------------------ */

struct findings_seen {
    enum cp_severity worst;
    const char *user;
    const char *report; /* the file's path, for the syslog line */
};

static void log_finding(const struct cp_finding *f, void *arg)
{
    struct findings_seen *seen = arg;

    if (f->severity > seen->worst)
        seen->worst = f->severity;
    cp_spank_syslog_finding(f, seen->user, seen->report);
}

static void user_name(char *user, size_t len)
{
    struct passwd pw, *found = NULL;
    char pwbuf[4096];

    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) == 0 &&
        found)
        snprintf(user, len, "%s", found->pw_name);
    else
        snprintf(user, len, "%u", (unsigned)cp_plugin.uid);
}

static void after_report(void)
{
    struct findings_seen seen = {CP_SEVERITY_NONE, NULL, NULL};
    char user[256], report[CP_STEPDIR_MAX + 16];
    struct cp_error err;

    if (!cp_plugin.site.syslog && !cp_plugin.site.alert[0])
        return;
    user_name(user, sizeof user);
    snprintf(report, sizeof report, "%s/report.json", cp_plugin.stepdir);
    seen.user = user;
    seen.report = report;
    openlog("collprof", LOG_PID, LOG_USER);
    if (cp_findings_read(stepdir_fd, "report.json", log_finding, &seen,
                         &err) < 0)
        cp_spank_verbose("%s", err.text);
    cp_spank_alert(user, seen.worst, NULL);
    closelog();
}

/* ---- the link probe ---------------------------------------------------- */

/* Whether the step's job still holds its allocation: a step of salloc's or
 * sbatch's job, yes; the job srun made for this step alone, no (srun has
 * ended it before the plugin's exit callback).  squeue says RUNNING or
 * nothing; without squeue, how srun started decides. */
static int allocation_alive(void)
{
    char id[32], state[64];

    snprintf(id, sizeof id, "--jobs=%u", cp_plugin.job_id);
    if (squeue(id, "%T", state, sizeof state) < 0)
        return started_in_allocation;
    return strcmp(state, "RUNNING") == 0;
}

/* A SLURM_JOB_* setting of the ended job for the probe's own job: srun
 * exported them from its allocation; "" when absent or not printable. */
static const char *job_setting(const char *name)
{
    const char *v = getenv(name);
    struct cp_error err;

    if (!v || cp_text_check(name, v, 256, &err) < 0 || strchr(v, ' '))
        return "";
    return v;
}

/* The verdict's line from STEPDIR/probe/probe.json, and the syslog lines
 * of its findings. */
static void probe_verdict(const char *outdir)
{
    struct cp_probe_result res;
    char line[1024], user[256], report[CP_STEPDIR_MAX + 32];
    struct cp_error err;
    int pfd;

    /* the probe ran on the nodes, by path (a descriptor does not cross
     * nodes); its result is read from the checked step directory */
    pfd = openat(stepdir_fd, "probe",
                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (pfd < 0)
        cp_errorf(&err, "%s: %s", outdir, strerror(errno));
    if (pfd < 0 || cp_probe_read(pfd, "probe.json", &res, &err) < 0) {
        tell_user("probe: ran, but its result is unreadable: %s", err.text);
        if (pfd >= 0)
            close(pfd);
        return;
    }
    snprintf(report, sizeof report, "%s/probe.json", outdir);
    cp_probe_verdict(&res, line, sizeof line);
    tell_user("%s; %s", line, report);
    if (cp_plugin.site.syslog) {
        struct findings_seen seen = {CP_SEVERITY_NONE, user, report};
        user_name(user, sizeof user);
        openlog("collprof", LOG_PID, LOG_USER);
        if (cp_findings_read(pfd, "probe.json", log_finding, &seen, &err) < 0)
            cp_spank_verbose("%s", err.text);
        closelog();
    }
    close(pfd);
}

/* --collprof=probe: `collprof probe` on the step's nodes, one task each,
 * through the srun running this plugin, as the user, time-bounded (the
 * probe's srun gets SIGTERM at probe_timeout, so that it cancels its step
 * or job, and SIGKILL PROBE_GRACE_S later); one verdict line whatever
 * happens.  The step's exit status is srun's business, never changed. */
static void probe(void)
{
    static char errout[4096];
    static struct cp_probe_argv a;
    struct cp_probe_launch l;
    char outdir[CP_STEPDIR_MAX + 16];
    struct cp_error err;
    struct cp_run r;
    char **envp;
    int rc;

    if (step_nodes < 2) {
        if (step_nodes == 1)
            tell_user("probe: the link probe needs 2 nodes or more, this step ran "
                "on 1; nothing run");
        else
            tell_user("probe: the step's node count is unknown; nothing run");
        return;
    }
    if (!srun_path[0]) {
        tell_user("probe: cannot tell which srun runs this step; nothing run");
        return;
    }
    if (!has_command("probe")) {
        tell_user("probe: %s has no link probe; nothing run",
            cp_plugin.site.collprof);
        return;
    }
    snprintf(outdir, sizeof outdir, "%s/probe", cp_plugin.stepdir);
    memset(&l, 0, sizeof l);
    l.srun = srun_path;
    l.collprof = cp_plugin.site.collprof;
    l.outdir = outdir;
    l.id_dir = cp_plugin.stepdir;
    l.nodelist = step_nodelist;
    l.nodes = step_nodes;
    l.timeout_s = cp_plugin.site.probe_timeout_s;
    l.job_id = cp_plugin.job_id;
    l.in_allocation = allocation_alive();
    if (!l.in_allocation) {
        l.partition = job_setting("SLURM_JOB_PARTITION");
        l.account = job_setting("SLURM_JOB_ACCOUNT");
        l.qos = job_setting("SLURM_JOB_QOS");
        l.reservation = job_setting("SLURM_JOB_RESERVATION");
    }
    if (cp_probe_argv(&l, &a, &err) < 0) {
        tell_user("probe: %s; nothing run", err.text);
        return;
    }
    envp = cp_probe_env(environ);
    if (!envp) {
        tell_user("probe: out of memory; nothing run");
        return;
    }
    memset(&r, 0, sizeof r);
    r.argv = a.argv;
    r.envp = envp;
    r.timeout_s = cp_plugin.site.probe_timeout_s;
    r.term_grace_s = PROBE_GRACE_S;
    r.errout = errout;
    r.errlen = sizeof errout;
    r.abandon = &abandon_flag;
    rc = cp_run(&r);
    cp_probe_env_free(envp);
    if (rc < 0 && r.abandoned)
        tell_user("probe: abandoned; no result");
    else if (rc < 0 && r.timed_out)
        tell_user("probe: stopped after %u s (probe_timeout); no result",
            cp_plugin.site.probe_timeout_s);
    else if (rc < 0)
        tell_user("probe: cannot run %s: %s", srun_path,
            strerror(r.exec_errno ? r.exec_errno : errno));
    else if (r.status != 0)
        tell_user("probe: failed (exit %d): %s", r.status, first_line(errout));
    else
        probe_verdict(outdir);
}

/* ---- step end ----------------------------------------------------------- */

int cp_srun_exit(spank_t sp, int ac, char **av)
{
    struct cp_error err;
    const char *slash;
    int fd, logs;

    (void)sp, (void)ac, (void)av;
    cp_relay_stop(); /* the watch's last lines before the verdict */
    if (!cp_plugin.loaded || !cp_plugin.active)
        return 0;
    cp_plugin.active = 0; /* once */
    fd = cp_stepdir_open(cp_plugin.stepdir, cp_plugin.uid, &err);
    if (fd < 0) {
        /* absent, a link, not ours: slurmstepd said why already (the step
         * ran without profiling) */
        cp_spank_verbose("%s", err.text);
        return 0;
    }
    logs = cp_stepdir_count_logs(fd);
    if (logs == 0 && !cp_plugin.request.probe) {
        /* a step without NCCL calls leaves nothing behind: its port
         * snapshots go, then the directory (the nodes took their end
         * snapshots before reporting their tasks' exit to srun) */
        slash = strrchr(cp_plugin.stepdir, '/');
        cp_stepdir_remove_unused(fd, slash ? slash + 1 : cp_plugin.stepdir);
        close(fd);
        return 0;
    }
    /* from here on, everything goes through this descriptor */
    stepdir_fd = fd;
    interruptible_begin("the step's analysis");
    if (logs == 0) {
        /* nothing to analyze; the probe asked for goes on */
    } else if (!cp_request_analyze(&cp_plugin.request, &cp_plugin.site) ||
               !has_command("analyze")) {
        summary(logs);
    } else if (analyze(cp_plugin.request.probe ? 1 : 0) == 0) {
        after_report();
    }
    if (cp_plugin.request.probe && !abandon_flag)
        probe();
    interruptible_end();
    close(stepdir_fd);
    stepdir_fd = -1;
    return 0;
}
