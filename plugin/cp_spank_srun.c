/* cp_spank_srun.c - srun (local context): when the step ends, the analyzer
 * on the step directory, a verdict of at most 5 lines on srun's stderr,
 * syslog lines for the findings and the site's alert hook.
 *
 * srun runs as the user who started it, so everything here does too; the
 * programs run are the ones plugstack.conf names (never the user's option
 * or environment), each with a time limit (cp_run.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cp_findings.h"
#include "cp_run.h"
#include "cp_spank.h"
#include "cp_stepdir.h"

#define VERDICT_LINES 5
#define PROBE_TIMEOUT_S 10

int cp_srun_init(spank_t sp, int ac, char **av)
{
    if (cp_spank_parse_site(ac, av) < 0)
        return -1;
    return cp_spank_register_option(sp);
}

int cp_srun_post_opt(spank_t sp, int ac, char **av)
{
    (void)sp, (void)ac, (void)av;
    if (cp_plugin.loaded)
        cp_spank_fallback_getenv();
    return 0;
}

/* The job id is 0 in the local exit callback: keep it from here. */
int cp_srun_user_init(spank_t sp, int ac, char **av)
{
    struct passwd pw, *found = NULL;
    char pwbuf[4096];
    const char *env;

    (void)ac, (void)av;
    if (!cp_plugin.loaded ||
        !cp_request_enabled(&cp_plugin.request, &cp_plugin.site))
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
    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) != 0)
        found = NULL;
    if (cp_spank_stepdir_path(found ? found->pw_name : NULL) < 0)
        return 0;
    cp_plugin.active = 1;
    return 0;
}

/* ---- printing ----------------------------------------------------------- */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line on srun's stderr: "collprof: job J.S: ..." */
static void say(const char *fmt, ...)
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

static int run_collprof(const char *const *argv, unsigned timeout_s, char *out,
                        size_t outlen, char *errout, size_t errlen,
                        struct cp_run *r)
{
    memset(r, 0, sizeof *r);
    r->argv = argv;
    r->timeout_s = timeout_s;
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

    return run_collprof(argv, PROBE_TIMEOUT_S, NULL, 0, NULL, 0, &r) == 0 &&
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
    const char *argv[] = {cp_plugin.site.collprof, "dump", "--summary",
                          cp_plugin.stepdir, NULL};
    unsigned long long calls = 0;
    struct cp_run r;
    int ranks = 0;
    char *line, *save = NULL;

    if (run_collprof(argv, cp_plugin.site.analyze_timeout_s, out, sizeof out,
                     errout, sizeof errout, &r) < 0) {
        say("%d rank logs in %s (collprof dump: %s)", logs, cp_plugin.stepdir,
            r.timed_out ? "timed out" : strerror(errno));
        return;
    }
    for (line = strtok_r(out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        const char *p = strstr(line, " timer ");
        if (!p || !(p = strstr(p, ": ")))
            continue;
        calls += strtoull(p + 2, NULL, 10);
        ranks++;
    }
    if (calls == 0)
        return; /* logs without a single call: nothing to say */
    say("%llu NCCL calls from %d ranks logged in %s", calls, ranks,
        cp_plugin.stepdir);
}

/* collprof analyze STEPDIR -o STEPDIR; prints the verdict.  0 when a
 * report was written. */
static int analyze(void)
{
    static char out[1 << 16];
    char errout[4096];
    const char *argv[] = {cp_plugin.site.collprof, "analyze",
                          cp_plugin.stepdir,       "-o",
                          cp_plugin.stepdir,       NULL};
    struct cp_run r;
    char *line, *save = NULL;
    int printed = 0, names_report;

    if (run_collprof(argv, cp_plugin.site.analyze_timeout_s, out, sizeof out,
                     errout, sizeof errout, &r) < 0) {
        if (r.timed_out)
            say("the analysis did not finish in %u s; the logs are in %s "
                "(collprof analyze %s)",
                cp_plugin.site.analyze_timeout_s, cp_plugin.stepdir,
                cp_plugin.stepdir);
        else
            say("cannot run %s: %s", cp_plugin.site.collprof,
                strerror(r.exec_errno ? r.exec_errno : errno));
        return -1;
    }
    if (r.status != 0) {
        say("the analysis failed (exit %d): %s; the logs are in %s", r.status,
            first_line(errout), cp_plugin.stepdir);
        return -1;
    }
    names_report = strstr(out, "report.json") != NULL;
    for (line = strtok_r(out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (!*line)
            continue;
        if (printed == VERDICT_LINES - (names_report ? 0 : 1))
            break;
        /* the analyzer's own "collprof: " prefix: ours says it already */
        if (strncmp(line, "collprof: ", 10) == 0)
            line += 10;
        say("%s", line);
        printed++;
    }
    if (!names_report)
        say("report: %s/report.json", cp_plugin.stepdir);
    return 0;
}

/* ---- syslog and the alert hook ------------------------------------------ */

struct findings_seen {
    enum cp_severity worst;
    int logged;
    const char *user;
};

static void log_finding(const struct cp_finding *f, void *arg)
{
    struct findings_seen *seen = arg;
    char step[48];

    if (f->severity > seen->worst)
        seen->worst = f->severity;
    if (!cp_plugin.site.syslog || f->severity < CP_SEV_WARNING)
        return;
    cp_spank_step_name(step, sizeof step);
    syslog(f->severity == CP_SEV_CRITICAL ? LOG_CRIT : LOG_WARNING,
           "collprof: job %s user %s: %s %s%s%s: %s (report %s/report.json)",
           step, seen->user, cp_severity_name(f->severity),
           f->kind[0] ? f->kind : "finding", f->nodes[0] ? " on " : "",
           f->nodes, f->message, cp_plugin.stepdir);
    seen->logged++;
}

static void alert(const char *report, enum cp_severity worst,
                  const char *user)
{
    char job[32], step[64], sev[48], dir[CP_STEPDIR_MAX + 32],
        rep[CP_STEPDIR_MAX + 64], usr[300], name[48];
    char *envp[] = {(char *)"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                            "/usr/bin:/sbin:/bin",
                    job, step, sev, dir, rep, usr, NULL};
    const char *argv[] = {cp_plugin.site.alert, report, NULL};
    struct cp_run r;

    snprintf(job, sizeof job, "COLLPROF_JOB_ID=%u", cp_plugin.job_id);
    cp_spank_step_name(name, sizeof name);
    snprintf(step, sizeof step, "COLLPROF_STEP=%s", name);
    snprintf(sev, sizeof sev, "COLLPROF_SEVERITY=%s", cp_severity_name(worst));
    snprintf(dir, sizeof dir, "COLLPROF_STEP_DIR=%s", cp_plugin.stepdir);
    snprintf(rep, sizeof rep, "COLLPROF_REPORT=%s", report);
    snprintf(usr, sizeof usr, "COLLPROF_USER=%s", user);
    memset(&r, 0, sizeof r);
    r.argv = argv;
    r.envp = envp;
    r.timeout_s = cp_plugin.site.alert_timeout_s;
    /* the hook is the admin's: its output is not the user's business, and
     * its failure must not be the step's */
    if (cp_run(&r) < 0) {
        if (r.timed_out)
            syslog(LOG_WARNING, "collprof: alert hook %s killed after %u s",
                   cp_plugin.site.alert, cp_plugin.site.alert_timeout_s);
        else
            syslog(LOG_WARNING, "collprof: alert hook %s: %s",
                   cp_plugin.site.alert,
                   strerror(r.exec_errno ? r.exec_errno : errno));
        cp_verbose("alert hook %s did not complete", cp_plugin.site.alert);
    } else if (r.status != 0) {
        syslog(LOG_WARNING, "collprof: alert hook %s exited with %d",
               cp_plugin.site.alert, r.status);
    }
}

static void after_report(void)
{
    struct findings_seen seen = {CP_SEV_NONE, 0, NULL};
    struct passwd pw, *found = NULL;
    char pwbuf[4096], err[512], report[CP_STEPDIR_MAX + 32], user[256];
    int fd;

    if (!cp_plugin.site.syslog && !cp_plugin.site.alert[0])
        return;
    if (getpwuid_r(cp_plugin.uid, &pw, pwbuf, sizeof pwbuf, &found) == 0 &&
        found)
        snprintf(user, sizeof user, "%s", found->pw_name);
    else
        snprintf(user, sizeof user, "%u", (unsigned)cp_plugin.uid);
    seen.user = user;
    fd = cp_stepdir_open(cp_plugin.stepdir, cp_plugin.uid, err, sizeof err);
    if (fd < 0)
        return;
    openlog("collprof", LOG_PID, LOG_USER);
    if (cp_findings_read(fd, "report.json", log_finding, &seen, err,
                         sizeof err) < 0)
        cp_verbose("%s", err);
    close(fd);
    snprintf(report, sizeof report, "%s/report.json", cp_plugin.stepdir);
    if (cp_plugin.site.alert[0])
        alert(report, seen.worst, user);
    closelog();
}

/* ---- step end ----------------------------------------------------------- */

int cp_srun_exit(spank_t sp, int ac, char **av)
{
    char err[CP_STEPDIR_MAX + 256];
    int fd, logs;

    (void)sp, (void)ac, (void)av;
    if (!cp_plugin.loaded || !cp_plugin.active)
        return 0;
    cp_plugin.active = 0; /* once */
    fd = cp_stepdir_open(cp_plugin.stepdir, cp_plugin.uid, err, sizeof err);
    if (fd < 0) {
        /* absent, a link, not ours: slurmstepd said why already (the step
         * ran without profiling) */
        cp_verbose("%s", err);
        return 0;
    }
    logs = cp_stepdir_count_logs(fd);
    close(fd);
    if (logs == 0) {
        /* a step without NCCL calls leaves nothing behind */
        cp_stepdir_remove_if_empty(cp_plugin.stepdir);
        return 0;
    }
    if (!cp_request_analyze(&cp_plugin.request, &cp_plugin.site) ||
        !has_command("analyze")) {
        summary(logs);
    } else if (analyze() == 0) {
        after_report();
    }
    if (cp_plugin.request.probe) {
        if (has_command("probe"))
            say("probe: run 'srun -N<nodes> --ntasks-per-node=1 %s probe' "
                "in the allocation to test each node pair",
                cp_plugin.site.collprof);
        else
            say("probe: this collprof has no link probe yet; nothing run");
    }
    return 0;
}
