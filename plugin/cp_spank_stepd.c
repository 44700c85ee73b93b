/* cp_spank_stepd.c - slurmstepd (remote context): the step directory, made
 * as the job's user, and the shim put in front of every task's LD_PRELOAD.
 *
 * init and init_post_opt run as root and only parse; user_init runs with
 * euid = the user (checked) and is the only place that touches the file
 * system; task_init runs in the task, as the user, and only sets variables.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cp_run.h"
#include "cp_spank.h"
#include "cp_stepdir.h"

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
        cp_error("cannot get the job's ids; not profiling this step");
        return 0;
    }
    if (!cp_request_enabled(&cp_plugin.request, &cp_plugin.site))
        return 0;
    if (cp_plugin.step_id == CP_STEP_BATCH && !cp_plugin.site.batch_step) {
        cp_verbose("job %u: the batch step is not profiled (batch_step=no)",
                   cp_plugin.job_id);
        return 0;
    }
    if (cp_plugin.step_id >= CP_STEP_SPECIAL_MIN &&
        cp_plugin.step_id != CP_STEP_BATCH)
        return 0; /* extern and interactive steps run no NCCL program */
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

int cp_stepd_user_init(spank_t sp, int ac, char **av)
{
    char step[48], err[CP_STEPDIR_MAX + 256], pwbuf[4096];
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
        cp_error("job %s: user_init runs as uid %u, not as the job's user "
                 "(uid %u); not profiling this step",
                 step, (unsigned)geteuid(), (unsigned)cp_plugin.uid);
        return 0;
    }
    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) != 0)
        found = NULL;
    if (cp_spank_stepdir_path(found ? found->pw_name : NULL) < 0)
        return 0;
    if (access(cp_plugin.site.preload, R_OK) != 0)
        snprintf(err, sizeof err, "%s: %s", cp_plugin.site.preload,
                 strerror(errno));
    else
        fd = cp_stepdir_make(cp_plugin.stepdir, cp_plugin.uid, err,
                             sizeof err);
    if (fd < 0) {
        if (first_node(sp))
            cp_error("job %s: %s; this step runs without profiling", step,
                     err);
        else
            cp_verbose("job %s: %s", step, err);
        return 0;
    }
    close(fd);
    cp_plugin.active = 1;
    cp_ports_snapshot(cp_plugin.stepdir, "start");
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
        cp_error("cannot set %s: %s", name, spank_strerror(rc));
        return -1;
    }
    return 0;
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
            cp_error("LD_PRELOAD: %s; this task runs without profiling",
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
    spank_unsetenv(sp, "COLLPROF_DISABLE");
    /* last: the shim is never loaded without its settings */
    set(sp, "LD_PRELOAD", new);
    return 0;
}

/* Run argv as the job's user (we are root here), time-bounded. */
static int run_as_user(const char *const *argv, unsigned timeout_s,
                       const gid_t *groups, int ngroups)
{
    struct cp_run r;

    memset(&r, 0, sizeof r);
    r.argv = argv;
    r.timeout_s = timeout_s;
    r.as_user = 1;
    r.uid = cp_plugin.uid;
    r.gid = cp_plugin.gid;
    r.groups = groups;
    r.ngroups = ngroups;
    if (cp_run(&r) < 0)
        return -1;
    return r.status;
}

/* The batch step has no srun to analyze it: slurmstepd does, at its exit,
 * through programs run as the job's user (never as root in the user's
 * directory): rmdir of an empty step directory, else collprof analyze for
 * report.json.  The verdict goes to the slurmd log only: the batch output
 * file is closed by now. */
static void finish_batch_step(void)
{
    const char *rmdir_argv[] = {"/bin/rmdir", cp_plugin.stepdir, NULL};
    const char *help_argv[] = {cp_plugin.site.collprof, "analyze", "--help",
                               NULL};
    const char *analyze_argv[] = {cp_plugin.site.collprof, "analyze",
                                  cp_plugin.stepdir, "-o", cp_plugin.stepdir,
                                  NULL};
    char pwbuf[4096];
    struct passwd pw, *found = NULL;
    gid_t groups[256];
    int ngroups = (int)(sizeof groups / sizeof groups[0]), status;

    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) != 0 ||
        !found ||
        getgrouplist(found->pw_name, cp_plugin.gid, groups, &ngroups) < 0) {
        groups[0] = cp_plugin.gid;
        ngroups = 1;
    }
    if (run_as_user(rmdir_argv, 10, groups, ngroups) == 0)
        return; /* it was empty: the shell made no NCCL call */
    if (!cp_request_analyze(&cp_plugin.request, &cp_plugin.site) ||
        run_as_user(help_argv, 10, groups, ngroups) != 0)
        return;
    status = run_as_user(analyze_argv, cp_plugin.site.analyze_timeout_s,
                         groups, ngroups);
    if (status != 0)
        cp_info("job %u.batch: collprof analyze %s: %s", cp_plugin.job_id,
                cp_plugin.stepdir,
                status < 0 ? "did not complete" : "failed");
}

int cp_stepd_exit(spank_t sp, int ac, char **av)
{
    (void)sp, (void)ac, (void)av;
    if (!cp_plugin.loaded || !cp_plugin.active)
        return 0;
    cp_ports_snapshot(cp_plugin.stepdir, "end");
    if (cp_plugin.step_id == CP_STEP_BATCH)
        finish_batch_step();
    return 0;
}
