/* cp_spank_stepd.c - slurmstepd (remote context): the step directory, made
 * as the job's user, the shim put in front of every task's LD_PRELOAD, the
 * node's port snapshots at the step's start and end, the node's partial
 * (collprof reduce: this node's rank logs in one file, made on every node at
 * once, which the analysis at the step's end reads instead of the logs), the
 * node's live watcher (collprof watch --node, watch=yes: started with the
 * first task, stopped when the last has exited), and the end of the batch
 * step (which has no srun to do it).
 *
 * init and init_post_opt run as root and only parse; user_init runs with
 * euid = the user (checked) and makes the step directory; task_init runs in
 * the task, as the user, and only sets variables.  The callbacks that run as
 * root (task_post_fork, task_exit, exit) touch the user's files only through
 * child processes with the user's credentials (cp_run).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cp_fleet_spool.h"
#include "cp_plugin_findings.h"
#include "cp_run.h"
#include "cp_path.h"
#include "cp_spank.h"
#include "cp_stepdir.h"
#include "cp_text.h"

#define PORTS_TIMEOUT_S 15
#define CLEANUP_TIMEOUT_S 30
#define WATCH_GRACE_MS 2000 /* a watcher's time to remove its metrics */
#define CLEAN_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* What this slurmstepd learnt of its step for the end. */
static struct {
    char node[64];                        /* SLURMD_NODENAME, or "" */
    char submit_cwd[CP_ARGS_PATH_MAX];    /* CP_SPANK_CWD_ENV, or "" */
    char sysfs_env[CP_ARGS_PATH_MAX + 32]; /* COLLPROF_SYSFS_ROOT=..., or "" */
    uint32_t local_tasks, tasks_exited;
    int ports_start, ports_end; /* snapshots taken */
    int reduced; /* collprof reduce was run */
    int stepdir_made; /* user_init made and checked the step directory */
    int stepdir_fd;   /* ... and this is it, open until slurmstepd ends:
                         every later use goes through it */
    pid_t watch_pid;  /* this node's collprof watch, 0: none */
    int watch_err;    /* ... its stderr's read end (valid with watch_pid) */
    int watch_tried;  /* started once per step, whatever came of it */
    char metrics[CP_ARGS_PATH_MAX + 128]; /* its --metrics FILE, or "" */
} here;

/* A value of the job's environment, checked like the user's option (it is
 * the user's), into out; "" when absent or refused. */
static void job_getenv(spank_t sp, const char *name, char *out, size_t outlen)
{
    struct cp_error err;

    if (spank_getenv(sp, name, out, (int)outlen) != ESPANK_SUCCESS ||
        cp_text_check(name, out, outlen, &err) < 0) {
        out[0] = '\0';
        return;
    }
}

int cp_stepd_init(spank_t sp, int ac, char **av)
{
    if (cp_spank_parse_site(ac, av) < 0)
        return -1;
    return cp_spank_register_option(sp);
}

int cp_stepd_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac, (void)av;
    if (!cp_plugin.loaded)
        return 0;
    cp_spank_fallback_job(sp);
    if (spank_get_item(sp, S_JOB_ID, &cp_plugin.job_id) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &cp_plugin.step_id) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &cp_plugin.uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &cp_plugin.gid) != ESPANK_SUCCESS) {
        cp_spank_error("cannot get the job's ids; not profiling this step");
        return 0;
    }
    if (!cp_request_enabled(&cp_plugin.request, &cp_plugin.site))
        return 0;
    if (cp_plugin.step_id == CP_STEP_BATCH && !cp_plugin.site.batch_step) {
        cp_spank_verbose(
            "job %u: the batch step is not profiled (batch_step=no)",
            cp_plugin.job_id);
        return 0;
    }
    if (cp_plugin.step_id >= CP_STEP_SPECIAL_MIN &&
        cp_plugin.step_id != CP_STEP_BATCH)
        return 0; /* extern and interactive steps run no NCCL program */
    {
        /* slurmd gives its slurmstepd the node's name (slurmd -N) */
        const char *node = getenv("SLURMD_NODENAME");
        char root[CP_ARGS_PATH_MAX];
        snprintf(here.node, sizeof here.node, "%s", node ? node : "");
        if (cp_text_check("node", here.node, sizeof here.node, NULL) < 0)
            here.node[0] = '\0';
        /* srun's directory: not for the batch step, which no srun
         * started (a value there is only inherited) */
        if (cp_plugin.step_id != CP_STEP_BATCH)
            job_getenv(sp, CP_SPANK_CWD_ENV, here.submit_cwd,
                       sizeof here.submit_cwd);
        if (here.submit_cwd[0] != '/' || cp_path_has_dotdot(here.submit_cwd))
            here.submit_cwd[0] = '\0';
        /* a test's fake sysfs tree (collprof ports --help); collprof ports
         * runs as the user, so the user's value reads only what they may */
        job_getenv(sp, "COLLPROF_SYSFS_ROOT", root, sizeof root);
        if (root[0])
            snprintf(here.sysfs_env, sizeof here.sysfs_env,
                     "COLLPROF_SYSFS_ROOT=%s", root);
        if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &here.local_tasks) !=
            ESPANK_SUCCESS)
            here.local_tasks = 0;
    }
    cp_plugin.active = 1;
    return 0;
}

/* Errors of the step directory are the user's to read: they go to the
 * step's stderr from the first node only (the others log them). */
static int first_node(spank_t sp)
{
    uint32_t node = 0;

    return spank_get_item(sp, S_JOB_NODEID, &node) == ESPANK_SUCCESS &&
           node == 0;
}

static void note_user_profiler(spank_t sp, const char *step);

int cp_stepd_user_init(spank_t sp, int ac, char **av)
{
    char step[48], pwbuf[4096];
    struct cp_error err;
    struct passwd pw, *found = NULL;
    int fd = -1;

    (void)ac, (void)av;
    if (!cp_plugin.active)
        return 0;
    cp_spank_step_name(step, sizeof step);
    cp_plugin.active = 0; /* until the directory is there */
    /* SPANK promises euid = the job's user here; everything below relies
     * on the kernel checking access with those credentials */
    if (geteuid() != cp_plugin.uid || cp_plugin.uid == (uid_t)-1) {
        cp_spank_error(
            "job %s: user_init runs as uid %u, not as the job's user "
            "(uid %u); not profiling this step",
            step, (unsigned)geteuid(), (unsigned)cp_plugin.uid);
        return 0;
    }
    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) != 0)
        found = NULL;
    /* a relative directory from srun's working directory, as srun does
     * (this one is the step's: srun --chdir) */
    if (cp_spank_stepdir_path(found ? found->pw_name : NULL,
                              here.submit_cwd[0] ? here.submit_cwd : NULL) <
        0)
        return 0;
    /* capture=both (the default) without a readable profiler plugin: the
     * shim alone records the step, said once */
    if (cp_plugin.site.capture == (CP_CAPTURE_SHIM | CP_CAPTURE_PLUGIN) &&
        access(cp_plugin.site.nccl_profiler, R_OK) != 0) {
        int e = errno;
        if (first_node(sp))
            cp_spank_error("job %s: %s: %s; the shim alone records this step",
                           step, cp_plugin.site.nccl_profiler, strerror(e));
        cp_plugin.site.capture = CP_CAPTURE_SHIM;
    }
    if ((cp_plugin.site.capture & CP_CAPTURE_SHIM) &&
        access(cp_plugin.site.preload, R_OK) != 0)
        cp_errorf(&err, "%s: %s", cp_plugin.site.preload, strerror(errno));
    else if ((cp_plugin.site.capture & CP_CAPTURE_PLUGIN) &&
             access(cp_plugin.site.nccl_profiler, R_OK) != 0)
        cp_errorf(&err, "%s: %s", cp_plugin.site.nccl_profiler,
                  strerror(errno));
    else
        fd = cp_stepdir_make(cp_plugin.stepdir, cp_plugin.uid,
                             (mode_t)cp_plugin.site.dir_mode, &err);
    if (fd < 0) {
        if (first_node(sp))
            cp_spank_error("job %s: %s; this step runs without profiling", step,
                           err.text);
        else
            cp_spank_verbose("job %s: %s", step, err.text);
        return 0;
    }
    /* kept (close-on-exec: no task gets it): the commands run at the
     * step's end work in this directory, whatever its path says by then */
    here.stepdir_fd = fd;
    cp_plugin.active = 1;
    here.stepdir_made = 1;
    if (cp_plugin.site.capture & CP_CAPTURE_PLUGIN)
        note_user_profiler(sp, step);
    return 0;
}

/* 1 when the colon- or space-separated list has the entry `path`. */
static int list_has(const char *list, const char *path)
{
    size_t n = strlen(path);
    const char *p = list;

    while (*p) {
        size_t len = strcspn(p, ": ");
        if (len == n && strncmp(p, path, n) == 0)
            return 1;
        p += len;
        while (*p == ':' || *p == ' ')
            p++;
    }
    return 0;
}

static int set(spank_t sp, const char *name, const char *value)
{
    spank_err_t rc = spank_setenv(sp, name, value, 1);

    if (rc != ESPANK_SUCCESS) {
        cp_spank_error("cannot set %s: %s", name, spank_strerror(rc));
        return -1;
    }
    return 0;
}

/* The job's own NCCL_PROFILER_PLUGIN (seen once per node, in user_init;
 * the tasks, forked later, inherit it): a non-empty value that is not
 * collprof's plugin is left to the job. */
static int user_profiler;

/* Whether the job names an NCCL profiler plugin of its own; said once, on
 * the first node's step (the user reads it on srun's stderr). */
static void note_user_profiler(spank_t sp, const char *step)
{
    char user[CP_ARGS_PATH_MAX];
    spank_err_t rc;

    rc = spank_getenv(sp, "NCCL_PROFILER_PLUGIN", user, (int)sizeof user);
    if (rc != ESPANK_SUCCESS || !user[0] ||
        strcmp(user, cp_plugin.site.nccl_profiler) == 0)
        return;
    user_profiler = 1;
    if (first_node(sp))
        cp_spank_error(
            "job %s: the job sets NCCL_PROFILER_PLUGIN=%s: collprof "
            "leaves it, NCCL's profiler events of this step are not "
            "recorded%s; to run both, name that plugin in "
            "COLLPROF_NEXT_PROFILER instead (collprof's forwards every "
            "event to it)",
            step, user,
            cp_plugin.site.capture & CP_CAPTURE_SHIM
                ? " (the shim still records the calls)"
                : "");
}

/* NCCL's profiler plugin for a task (capture=plugin or both), unless the
 * job names its own; with the site's next_profiler, the second plugin it
 * forwards every event to, unless the job names its own
 * COLLPROF_NEXT_PROFILER. */
static void set_nccl_profiler(spank_t sp)
{
    char next[CP_ARGS_PATH_MAX];

    if (user_profiler)
        return;
    set(sp, "NCCL_PROFILER_PLUGIN", cp_plugin.site.nccl_profiler);
    if (cp_plugin.site.next_profiler[0] &&
        spank_getenv(sp, "COLLPROF_NEXT_PROFILER", next, (int)sizeof next) ==
            ESPANK_ENV_NOEXIST)
        set(sp, "COLLPROF_NEXT_PROFILER", cp_plugin.site.next_profiler);
}

int cp_stepd_task_init(spank_t sp, int ac, char **av)
{
    static char old[65536], new[65536 + CP_ARGS_PATH_MAX + 2];
    const char *preload = cp_plugin.site.preload;
    spank_err_t rc;
    int n;

    (void)ac, (void)av;
    if (!cp_plugin.loaded)
        return 0;
    rc = spank_getenv(sp, "LD_PRELOAD", old, (int)sizeof old);
    if (rc == ESPANK_ENV_NOEXIST)
        old[0] = '\0';
    else if (rc != ESPANK_SUCCESS) {
        if (cp_plugin.active)
            cp_spank_error("LD_PRELOAD: %s; this task runs without profiling",
                           spank_strerror(rc));
        return 0;
    }
    if (!cp_plugin.active) {
        /* --collprof=off in a task that inherited the shim (a profiled
         * batch shell): the shim becomes a pass-through */
        if (cp_plugin.request.on == CP_NO && list_has(old, preload))
            set(sp, "COLLPROF_DISABLE", "1");
        return 0;
    }
    if (!(cp_plugin.site.capture & CP_CAPTURE_SHIM)) {
        /* capture=plugin: NCCL loads collprof's profiler plugin, no shim */
        if (set(sp, "COLLPROF_DIR", cp_plugin.stepdir) < 0 ||
            set(sp, "COLLPROF_STEP_DIR", cp_plugin.stepdir) < 0)
            return 0;
        spank_unsetenv(sp, "COLLPROF_DISABLE");
        set_nccl_profiler(sp);
        return 0;
    }
    if (list_has(old, preload))
        n = snprintf(new, sizeof new, "%s", old);
    else if (old[0])
        n = snprintf(new, sizeof new, "%s:%s", preload, old);
    else
        n = snprintf(new, sizeof new, "%s", preload);
    if (n < 0 || (size_t)n >= sizeof new)
        return 0;
    if (set(sp, "COLLPROF_DIR", cp_plugin.stepdir) < 0 ||
        set(sp, "COLLPROF_STEP_DIR", cp_plugin.stepdir) < 0 ||
        (cp_plugin.request.timer[0] &&
         set(sp, "COLLPROF_TIMER", cp_plugin.request.timer) < 0))
        return 0;
    {
        /* the capture policy: the user's, else the site's, else the
         * shim's default */
        const char *detail = cp_plugin.request.detail[0]
                                 ? cp_plugin.request.detail
                                 : cp_plugin.site.detail;
        if (detail[0] && set(sp, "COLLPROF_DETAIL", detail) < 0)
            return 0;
    }
    spank_unsetenv(sp, "COLLPROF_DISABLE");
    if (cp_plugin.site.capture & CP_CAPTURE_PLUGIN)
        set_nccl_profiler(sp);
    /* last: the shim is never loaded without its settings */
    set(sp, "LD_PRELOAD", new);
    return 0;
}

/* The job user's credentials for cp_run (we are root here). */
static void user_creds(struct cp_run *r)
{
    static gid_t groups[256];
    static int ngroups = -1;
    char pwbuf[4096];
    struct passwd pw, *found = NULL;

    if (ngroups < 0) {
        ngroups = (int)(sizeof groups / sizeof groups[0]);
        if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) != 0 ||
            !found ||
            getgrouplist(found->pw_name, cp_plugin.gid, groups, &ngroups) <
                0) {
            groups[0] = cp_plugin.gid;
            ngroups = 1;
        }
    }
    memset(r, 0, sizeof *r);
    r->as_user = 1;
    r->uid = cp_plugin.uid;
    r->gid = cp_plugin.gid;
    r->groups = groups;
    r->ngroups = ngroups;
    /* the files it makes in the step directory are no wider than it */
    r->set_umask = 1;
    r->umask = (mode_t)(0777 & ~cp_plugin.site.dir_mode);
    /* it works in the directory user_init checked, named "." */
    r->in_dir = here.stepdir_made;
    r->dir_fd = here.stepdir_fd;
}

/* Run argv as the job's user, time-bounded: its exit status, or -1. */
static int run_as_user(const char *const *argv, char *const *envp,
                       unsigned timeout_s, char *out, size_t outlen)
{
    struct cp_run r;

    user_creds(&r);
    r.argv = argv;
    r.envp = envp;
    r.timeout_s = timeout_s;
    r.out = out;
    r.outlen = outlen;
    if (cp_run(&r) < 0)
        return -1;
    return r.status;
}

/* Run fn(arg) in a child as the job's user, time-bounded, its output (on
 * descriptor 1) in out: its exit status, or -1. */
static int call_as_user(int (*fn)(void *), void *arg, unsigned timeout_s,
                        char *out, size_t outlen)
{
    struct cp_run r;

    user_creds(&r);
    r.fn = fn;
    r.fn_arg = arg;
    r.timeout_s = timeout_s;
    r.out = out;
    r.outlen = outlen;
    if (cp_run(&r) < 0)
        return -1;
    return r.status;
}

/* ---- port snapshots ----------------------------------------------------- */

/* collprof ports -o STEPDIR --when WHEN --node NODE, as the job's user (so
 * that root writes nothing in the user's directory and never loads
 * libibverbs into slurmstepd); once per node at the step's start and end.
 * A collprof without `ports`, or one that fails, costs only a log line. */
static void ports_snapshot(const char *when)
{
    char *envp[] = {(char *)CLEAN_PATH,
                    here.sysfs_env[0] ? here.sysfs_env : NULL, NULL};
    const char *argv[] = {cp_plugin.site.collprof,
                          "ports",
                          "-o",
                          ".", /* the step directory (user_creds) */
                          "--when",
                          when,
                          here.node[0] ? "--node" : NULL,
                          here.node,
                          NULL};
    char name[48];
    int status = run_as_user(argv, envp, PORTS_TIMEOUT_S, NULL, 0);

    if (status != 0) {
        cp_spank_step_name(name, sizeof name);
        cp_spank_verbose("job %s: collprof ports --when %s: %s", name, when,
                         status < 0 ? "did not complete" : "failed");
    }
}

/* collprof reduce --node NODE ., as the job's user in the step directory
 * (by the descriptor user_init checked), when the node's
 * tasks have all exited: this node's rank logs into STEPDIR/NODE.cppart.
 * Every node does it at the same moment, so the analysis at the step's
 * end reads one compact file per node (docs/partial-format.md).  A node
 * without logs, a collprof without `reduce`, or a failure costs only a log
 * line: the analysis reads that node's logs instead and says so. */
static void reduce_node(void)
{
    char *envp[] = {(char *)CLEAN_PATH, NULL};
    /* in the step directory (user_creds), named "."; without a node name:
     * collprof reduce -q . (its own default) */
    const char *argv[] = {cp_plugin.site.collprof,
                          "reduce",
                          "-q",
                          here.node[0] ? "--node" : ".",
                          here.node[0] ? here.node : NULL,
                          ".",
                          NULL};
    char name[48];
    int status;

    if (here.reduced || !here.stepdir_made || !cp_plugin.stepdir[0])
        return;
    here.reduced = 1;
    status = run_as_user(argv, envp, cp_plugin.site.analyze_timeout_s, NULL, 0);
    if (status != 0) {
        cp_spank_step_name(name, sizeof name);
        cp_spank_verbose("job %s: collprof reduce on %s: %s", name,
                         here.node[0] ? here.node : "this node",
                         status < 0 ? "did not complete" : "failed");
    }
}

/* ---- the live watch ----------------------------------------------------- */

/* The watcher's argv into argv (at least WATCH_ARGS entries), its numbers
 * and paths into the buffers of w. */
#define WATCH_ARGS 28
struct watch_text {
    char interval[16], hang_after[16], slow_after[16], exit_with[24], step[48];
    char slurm_step[32];
};

/* on_hang=cancel in the batch step: scancel cannot end the batch step
 * alone (JOB.4294967291 leaves it running, JOB.batch is refused), so the
 * lead gets no --on-hang there; requeue works (it names the job). */
static int batch_cancel(void)
{
    return cp_plugin.site.on_hang == CP_ON_HANG_CANCEL &&
           cp_plugin.step_id == CP_STEP_BATCH;
}

static void watch_argv(const char **argv, struct watch_text *w, int lead)
{
    const struct cp_site *site = &cp_plugin.site;
    int n = 0;

    snprintf(w->interval, sizeof w->interval, "%us", site->watch_interval_s);
    snprintf(w->hang_after, sizeof w->hang_after, "%us", site->hang_after_s);
    snprintf(w->slow_after, sizeof w->slow_after, "%us", site->slow_after_s);
    /* slurmstepd: the watcher ends with it, whatever happens to us */
    snprintf(w->exit_with, sizeof w->exit_with, "%ld", (long)getpid());
    cp_spank_step_name(w->step, sizeof w->step);
    /* two numbers (the batch step's id too): what watch takes */
    snprintf(w->slurm_step, sizeof w->slurm_step, "%u.%u", cp_plugin.job_id,
             cp_plugin.step_id);
    argv[n++] = site->collprof;
    argv[n++] = "watch";
    argv[n++] = "-q";
    argv[n++] = "--node";
    argv[n++] = here.node;
    if (lead)
        argv[n++] = "--lead";
    argv[n++] = "--exit-with";
    argv[n++] = w->exit_with;
    argv[n++] = "--interval";
    argv[n++] = w->interval;
    argv[n++] = "--hang-after";
    argv[n++] = w->hang_after;
    argv[n++] = "--slow-after";
    argv[n++] = w->slow_after;
    if (site->alert[0]) {
        argv[n++] = "--alert";
        argv[n++] = site->alert;
    }
    if (site->syslog)
        argv[n++] = "--syslog";
    /* a node name is one path component (cp_text_check refused controls) */
    here.metrics[0] = '\0';
    if (site->metrics_dir[0] && !strchr(here.node, '/') &&
        snprintf(here.metrics, sizeof here.metrics, "%s/collprof-%s-%s.prom",
                 site->metrics_dir, w->step, here.node) <
            (int)sizeof here.metrics) {
        argv[n++] = "--metrics";
        argv[n++] = here.metrics;
    }
    if (lead && site->on_hang != CP_ON_HANG_NONE && !batch_cancel()) {
        argv[n++] = "--on-hang";
        argv[n++] = cp_on_hang_name(site->on_hang);
        argv[n++] = "--slurm-step";
        argv[n++] = w->slurm_step;
    }
    argv[n++] = "."; /* the step directory (user_creds) */
    argv[n] = NULL;
}

/* collprof watch on this node (docs/watch.md, "Under Slurm"), as the job's
 * user, in the step directory, with PATH alone: it follows this node's
 * logs, and on the step's first node (the lead) judges the whole step.  It
 * runs until the node's last task has exited (stop_watcher), or slurmstepd
 * has (--exit-with, and PDEATHSIG: task_post_fork runs in slurmstepd's
 * main thread, which lives as long as it).  One that does not start costs
 * a log line, never the step. */
static void start_watcher(spank_t sp)
{
    char *envp[] = {(char *)CLEAN_PATH, NULL};
    const char *argv[WATCH_ARGS];
    struct watch_text w;
    struct cp_run r;
    char name[48];
    pid_t pid;

    if (here.watch_tried || !here.stepdir_made ||
        !cp_request_watch(&cp_plugin.request, &cp_plugin.site))
        return;
    here.watch_tried = 1;
    cp_spank_step_name(name, sizeof name);
    if (!here.node[0]) {
        /* the logs' node is SLURMD_NODENAME: without it, nothing to follow */
        cp_spank_verbose("job %s: no SLURMD_NODENAME; no collprof watch",
                         name);
        return;
    }
    watch_argv(argv, &w, first_node(sp));
    if (batch_cancel())
        cp_spank_verbose("job %s: on_hang=cancel is not applied to the batch "
                         "step (scancel cannot end it alone)",
                         name);
    user_creds(&r);
    r.argv = argv;
    r.envp = envp;
    r.err_pipe = &here.watch_err;
    pid = cp_run_start(&r);
    if (pid < 0) {
        cp_spank_verbose("job %s: collprof watch on %s: %s", name, here.node,
                         strerror(r.exec_errno ? r.exec_errno : errno));
        return;
    }
    here.watch_pid = pid;
    cp_spank_verbose("job %s: collprof watch on %s started (pid %ld)", name,
                     here.node, (long)pid);
}

/* In the child, as the user: the metrics file arg removed. */
static int remove_metrics(void *arg)
{
    return unlink((const char *)arg) == 0 || errno == ENOENT ? 0 : 1;
}

/* What the watcher said on stderr (with -q: its errors, a usage error of
 * a collprof older than the plugin), into slurmd's log, a few lines. */
static void log_watcher_stderr(void)
{
    char buf[2048], name[48], *line, *save = NULL;
    ssize_t n = here.watch_err >= 0 ? read(here.watch_err, buf, sizeof buf - 1)
                                    : -1;
    int lines = 0;

    if (here.watch_err >= 0)
        close(here.watch_err);
    here.watch_err = -1;
    if (n <= 0)
        return;
    buf[n] = '\0';
    cp_spank_step_name(name, sizeof name);
    for (line = strtok_r(buf, "\n", &save); line && lines < 3;
         line = strtok_r(NULL, "\n", &save), lines++) {
        for (char *c = line; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        cp_spank_verbose("job %s: collprof watch on %s: %s", name, here.node,
                         line);
    }
}

/* SIGTERM to the watcher's group, SIGKILL after the grace; reaped.  A
 * watcher that could not remove its metrics file (killed before it could:
 * the grace, or a SIGKILL from elsewhere) leaves it to us: removed as the
 * user (metrics_dir is writable by every job's user), so that a node's
 * series of an ended step do not stay on. */
static void stop_watcher(void)
{
    if (here.watch_pid <= 0)
        return;
    (void)cp_run_stop(here.watch_pid, WATCH_GRACE_MS);
    here.watch_pid = 0;
    log_watcher_stderr();
    if (here.metrics[0])
        (void)call_as_user(remove_metrics, here.metrics, CLEANUP_TIMEOUT_S,
                           NULL, 0);
}

/* The start snapshot: before the first task runs (task_post_fork precedes
 * the exec of every task of this node); then the node's watcher. */
int cp_stepd_task_post_fork(spank_t sp, int ac, char **av)
{
    (void)ac, (void)av;
    if (!cp_plugin.loaded || !cp_plugin.active || here.ports_start)
        return 0;
    here.ports_start = 1;
    ports_snapshot("start");
    start_watcher(sp);
    return 0;
}

/* The end snapshot: when the node's last task has exited, before slurmstepd
 * tells srun so, so that srun's analysis finds every node's snapshot.  The
 * watcher has nothing left to watch by then: it goes first. */
int cp_stepd_task_exit(spank_t sp, int ac, char **av)
{
    (void)sp, (void)ac, (void)av;
    if (!cp_plugin.loaded || !cp_plugin.active)
        return 0;
    here.tasks_exited++;
    if (here.ports_start && !here.ports_end && here.local_tasks &&
        here.tasks_exited >= here.local_tasks) {
        stop_watcher();
        here.ports_end = 1;
        ports_snapshot("end");
        reduce_node();
    }
    return 0;
}

/* ---- the batch step's end ----------------------------------------------- */

/* The step directory's own name (collprof-J.S). */
static const char *stepdir_name(void)
{
    const char *slash = strrchr(cp_plugin.stepdir, '/');

    return slash ? slash + 1 : cp_plugin.stepdir;
}

/* In the child, as the user, in the step directory: remove it when it has
 * no rank logs. */
static int remove_unused(void *arg)
{
    int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

    (void)arg;
    if (fd < 0)
        return 1;
    rc = cp_stepdir_remove_unused(fd, stepdir_name());
    close(fd);
    return rc == 0 ? 0 : 1;
}

/* In the child, as the user: one line per finding of report.json on
 * descriptor 1, "SEVERITY<TAB>KIND<TAB>NODES<TAB>MESSAGE" (the fields are
 * made printable by cp_findings: no tab, no newline). */
static void write_finding(const struct cp_finding *f, void *arg)
{
    char line[sizeof f->kind + sizeof f->nodes + sizeof f->message + 32];
    int n = snprintf(line, sizeof line, "%s\t%s\t%s\t%s\n",
                     cp_severity_name(f->severity), f->kind, f->nodes,
                     f->message);
    ssize_t w;

    (void)arg;
    if (n > 0)
        w = write(1, line, (size_t)n < sizeof line ? (size_t)n
                                                    : sizeof line - 1);
    (void)w;
}

/* In the child, as the user, in the step directory. */
static int read_findings(void *arg)
{
    struct cp_error err;
    int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n;

    (void)arg;
    if (fd < 0)
        return 1;
    n = cp_findings_read(fd, "report.json", write_finding, NULL, &err);
    close(fd);
    return n < 0 ? 1 : 0;
}

/* Parse one line of read_findings into f; 0 when it has four fields. */
static int parse_finding(char *line, struct cp_finding *f)
{
    char *field[4], *save = NULL;
    int i;

    memset(f, 0, sizeof *f);
    for (i = 0; i < 4; i++) {
        field[i] = strtok_r(i ? NULL : line, i == 3 ? "" : "\t", &save);
        if (!field[i])
            field[i] = (char *)"";
    }
    f->severity = cp_severity_named(field[0]);
    snprintf(f->kind, sizeof f->kind, "%s", field[1]);
    snprintf(f->nodes, sizeof f->nodes, "%s", field[2]);
    snprintf(f->message, sizeof f->message, "%s", field[3]);
    return f->severity == CP_SEVERITY_NONE ? -1 : 0;
}

/* The batch step has no srun to end it: slurmstepd does, at its exit,
 * through children with the job user's credentials (never as root in the
 * user's directory): a step directory without rank logs is removed with
 * its port snapshots; otherwise collprof analyze writes report.json and
 * report.html, its verdict goes to the slurmd log (the job's output file is
 * closed by now, and slurmstepd cannot tell its path), and the findings
 * get the syslog lines and the alert hook of an srun step. */
static void finish_batch_step(void)
{
    const char *help_argv[] = {cp_plugin.site.collprof, "analyze", "--help",
                               NULL};
    /* in the step directory (user_creds) */
    const char *analyze_argv[] = {cp_plugin.site.collprof, "analyze", ".",
                                  "-o", ".", NULL};
    static char out[1 << 16], named[2 * CP_STEPDIR_MAX + 1024];
    /* not slurmstepd's environment: the programs are the user's */
    char *envp[] = {(char *)CLEAN_PATH, NULL};
    char pwbuf[4096], user[256], report[CP_STEPDIR_MAX + 16];
    struct passwd pw, *found = NULL;
    struct cp_finding f;
    enum cp_severity worst = CP_SEVERITY_NONE;
    char *line, *save = NULL;
    int status;

    if (call_as_user(remove_unused, NULL, CLEANUP_TIMEOUT_S, NULL, 0) == 0)
        return; /* the shell made no NCCL call */
    if (!cp_request_analyze(&cp_plugin.request, &cp_plugin.site) ||
        run_as_user(help_argv, envp, 10, NULL, 0) != 0)
        return;
    status = run_as_user(analyze_argv, envp, cp_plugin.site.analyze_timeout_s,
                         out, sizeof out);
    if (status != 0) {
        cp_spank_info("job %u.batch: collprof analyze %s: %s", cp_plugin.job_id,
                      cp_plugin.stepdir,
                      status < 0 ? "did not complete" : "failed");
        return;
    }
    for (line = strtok_r(out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        size_t i;
        for (i = 0; line[i]; i++)
            if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
                line[i] = '?';
        if (strncmp(line, "collprof: ", 10) == 0)
            line += 10;
        cp_spank_name_dir(line, named, sizeof named);
        if (*named)
            cp_spank_info("job %u.batch: %s", cp_plugin.job_id, named);
    }
    if (!cp_plugin.site.syslog && !cp_plugin.site.alert[0])
        return;
    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) == 0 &&
        found)
        snprintf(user, sizeof user, "%s", found->pw_name);
    else
        snprintf(user, sizeof user, "%u", (unsigned)cp_plugin.uid);
    snprintf(report, sizeof report, "%s/report.json", cp_plugin.stepdir);
    if (call_as_user(read_findings, NULL, CLEANUP_TIMEOUT_S, out,
                     sizeof out) == 0) {
        save = NULL;
        for (line = strtok_r(out, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            if (parse_finding(line, &f) < 0)
                continue;
            if (f.severity > worst)
                worst = f.severity;
            cp_spank_syslog_finding(&f, user, report);
        }
    }
    if (cp_plugin.site.alert[0]) {
        struct cp_run creds;
        user_creds(&creds);
        cp_spank_alert(user, worst, &creds);
    }
}

/* The step's entry in the fleet's spool (fleet_spool=), from the first node
 * only, as root: Slurm's job, step and uid, not the job's word. */
static void spool_step(spank_t sp)
{
    char pwbuf[4096], user[256];
    struct passwd pw, *found = NULL;
    struct cp_spool_entry e;
    struct cp_error err;

    if (!cp_plugin.site.fleet_spool[0] || !first_node(sp) ||
        !cp_request_analyze(&cp_plugin.request, &cp_plugin.site))
        return;
    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) == 0 &&
        found)
        snprintf(user, sizeof user, "%s", found->pw_name);
    else
        snprintf(user, sizeof user, "%u", (unsigned)cp_plugin.uid);
    memset(&e, 0, sizeof e);
    e.job_id = cp_plugin.job_id;
    e.step_id = cp_plugin.step_id;
    e.uid = cp_plugin.uid;
    e.user = user;
    e.stepdir = cp_plugin.stepdir;
    e.ended = (int64_t)time(NULL);
    if (cp_fleet_spool_write(cp_plugin.site.fleet_spool, &e, &err) < 0)
        cp_spank_error("job %u: fleet spool: %s", cp_plugin.job_id, err.text);
}

int cp_stepd_exit(spank_t sp, int ac, char **av)
{
    (void)ac, (void)av;
    stop_watcher(); /* tasks that never reported their exit */
    /* a step that failed before user_init has no directory to finish (and
     * no `collprof analyze "" -o ""` is run) */
    if (!cp_plugin.loaded || !cp_plugin.active || !here.stepdir_made ||
        !cp_plugin.stepdir[0])
        return 0;
    /* tasks that never reported their exit (killed with the step) */
    if (here.ports_start && !here.ports_end) {
        here.ports_end = 1;
        ports_snapshot("end");
    }
    reduce_node();
    if (cp_plugin.step_id == CP_STEP_BATCH)
        finish_batch_step();
    spool_step(sp);
    close(here.stepdir_fd);
    here.stepdir_made = 0;
    return 0;
}
