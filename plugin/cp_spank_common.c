/* cp_spank_common.c - what the SPANK contexts' files (cp_spank_*.c) share:
 * the plugin's state, the plugstack.conf arguments, the --collprof option,
 * the COLLPROF_* fallbacks, the step directory's name, and the step end's
 * syslog lines and alert hook (cp_spank.h).  spank_collprof.c only
 * dispatches to the contexts.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "cp_text.h"
#include "cp_run.h"
#include "cp_slurmver.h"
#include "cp_spank.h"
#include "cp_stepdir.h"

#ifndef CP_SPANK_LIBDIR
#define CP_SPANK_LIBDIR "/usr/local/lib"
#endif
#ifndef CP_SPANK_BINDIR
#define CP_SPANK_BINDIR "/usr/local/bin"
#endif

/* The Slurm this plugin was built for: slurm_version.h's, unless a test
 * builds a copy that claims another. */
#ifndef CP_SLURM_BUILT_FOR
#define CP_SLURM_BUILT_FOR SLURM_VERSION_NUMBER
#endif

struct cp_plugin cp_plugin;

/* ---- the Slurm release series ------------------------------------------ */

int cp_spank_check_slurm(spank_t sp)
{
    const char *running = NULL, *major = NULL, *minor = NULL;
    char built[32];
    struct cp_error err;

    cp_slurmver_format(CP_SLURM_BUILT_FOR, built, sizeof built);
    if (spank_get_item(sp, S_SLURM_VERSION, &running) != ESPANK_SUCCESS)
        running = NULL;
    if (spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) != ESPANK_SUCCESS)
        major = NULL;
    if (spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) != ESPANK_SUCCESS)
        minor = NULL;
    if (cp_slurmver_check(CP_SLURM_BUILT_FOR, major, minor, &err) < 0) {
        cp_plugin.loaded = 0;
        cp_spank_error("spank_collprof %s: %s; the plugin is not loaded",
                       PACKAGE_VERSION, err.text);
        return -1;
    }
    /* slurmd's log gets the line at every start; srun, sbatch and
     * slurmstepd only with -v */
    if (spank_context() == S_CTX_SLURMD)
        cp_spank_info(
            "spank_collprof %s, built for Slurm %s, loaded by Slurm %s",
            PACKAGE_VERSION, built, running ? running : "(unknown)");
    else
        cp_spank_verbose(
            "spank_collprof %s, built for Slurm %s, loaded by Slurm %s",
            PACKAGE_VERSION, built, running ? running : "(unknown)");
    return 0;
}

/* ---- the option -------------------------------------------------------- */

static int option_cb(int val, const char *optarg, int remote);

static struct spank_option collprof_option = {
    .name = "collprof",
    .arginfo = "[LIST]",
    .usage = NULL, /* usage_text(), from the request's table */
    .has_arg = 2,
    .val = 0,
    .cb = option_cb,
};

static int option_cb(int val, const char *optarg, int remote)
{
    struct cp_error err;
    struct cp_request r;

    (void)val;
    if (!cp_plugin.loaded)
        return 0;
    /* Slurm 22.05 hands a bare `sbatch --collprof` on to the job's sruns
     * through SLURM_SPANK__SLURM_SPANK_OPTION_collprof_collprof, printed
     * with "%s" from a NULL argument: the text "(null)" means the bare
     * flag.  (The word is not a valid LIST anyway.) */
    if (optarg && strcmp(optarg, "(null)") == 0)
        optarg = "";
    cp_request_init(&r);
    if (cp_request_parse(&r, optarg ? optarg : "", &err) < 0) {
        cp_spank_error("--collprof: %s", err.text);
        return -1;
    }
    cp_plugin.request = r;
    cp_spank_verbose("--collprof given (%s)", remote ? "remote" : "local");
    return 0;
}

/* The option's help, its keys from cp_args' table (cp_request_keys). */
static char *usage_text(void)
{
    static char text[1024];

    if (!text[0])
        snprintf(text, sizeof text,
                 "Profile this step's NCCL calls with collprof; at the end, "
                 "a verdict and report.json in collprof-JOB.STEP/.  LIST, "
                 "comma-separated: %s.  Write --collprof=LIST (with '=').",
                 cp_request_keys());
    return text;
}

int cp_spank_register_option(spank_t sp)
{
    spank_err_t rc;

    collprof_option.usage = usage_text();
    rc = spank_option_register(sp, &collprof_option);

    if (rc != ESPANK_SUCCESS) {
        cp_spank_error("cannot register --collprof: %s", spank_strerror(rc));
        return -1;
    }
    return 0;
}

/* ---- plugstack.conf ---------------------------------------------------- */

int cp_spank_parse_site(int ac, char **av)
{
    struct cp_error err;

    cp_request_init(&cp_plugin.request);
    cp_site_defaults(&cp_plugin.site, CP_SPANK_LIBDIR, CP_SPANK_BINDIR);
    if (cp_site_parse(&cp_plugin.site, ac, av, &err) < 0) {
        cp_spank_error("plugstack.conf: %s; the plugin is not loaded",
                       err.text);
        cp_plugin.loaded = 0;
        return -1;
    }
    cp_plugin.loaded = 1;
    return 0;
}

/* ---- COLLPROF_* fallbacks ---------------------------------------------- */

static const char *get_process_env(const char *name, void *arg)
{
    (void)arg;
    return getenv(name);
}

/* spank_getenv into one buffer per variable the fallbacks read */
static const char *get_job_env(const char *name, void *arg)
{
    static char bufs[4][CP_ARGS_LIST_MAX + 1];
    static const char *const names[4] = {"COLLPROF_PROFILE", "COLLPROF_DISABLE",
                                         "COLLPROF_TIMER", "COLLPROF_ANALYZE"};
    spank_t sp = arg;
    size_t i;

    for (i = 0; i < 4; i++) {
        if (strcmp(name, names[i]) != 0)
            continue;
        /* a value too long for the buffer is refused, not cut */
        if (spank_getenv(sp, name, bufs[i], (int)sizeof bufs[i]) !=
            ESPANK_SUCCESS)
            return NULL;
        return bufs[i];
    }
    return NULL;
}

static void fallback(const char *(*get)(const char *, void *), void *arg)
{
    struct cp_error warn;

    cp_request_fallback(&cp_plugin.request, get, arg, &warn);
    if (warn.text[0])
        cp_spank_error("%s", warn.text);
}

void cp_spank_fallback_getenv(void)
{
    fallback(get_process_env, NULL);
}

void cp_spank_fallback_job(spank_t sp)
{
    fallback(get_job_env, sp);
}

/* ---- the step directory ------------------------------------------------ */

void cp_spank_step_name(char *out, size_t outlen)
{
    if (cp_plugin.step_id == CP_STEP_BATCH)
        snprintf(out, outlen, "%u.batch", cp_plugin.job_id);
    else
        snprintf(out, outlen, "%u.%u", cp_plugin.job_id, cp_plugin.step_id);
}

int cp_spank_stepdir_path(const char *user, const char *cwd)
{
    char base[CP_ARGS_PATH_MAX + 256], name[64];
    struct cp_error err;

    base[0] = '\0';
    if (cp_plugin.request.dir[0])
        snprintf(base, sizeof base, "%s", cp_plugin.request.dir);
    else if (cp_expand_basedir(cp_plugin.site.basedir, user,
                               (unsigned)cp_plugin.uid, base,
                               sizeof base) < 0) {
        cp_spank_error("basedir=%s: cannot expand it for user %s",
                       cp_plugin.site.basedir, user ? user : "(unknown)");
        return -1;
    }
    cp_stepdir_name(cp_plugin.job_id, cp_plugin.step_id, name, sizeof name);
    if (cp_stepdir_path(cwd, base, name, cp_plugin.stepdir,
                        sizeof cp_plugin.stepdir, &err) < 0) {
        cp_spank_error("%s", err.text);
        return -1;
    }
    return 0;
}

void cp_spank_name_dir(const char *text, char *out, size_t outlen)
{
    size_t n = 0, len = strlen(cp_plugin.stepdir);
    const char *p;

    if (!outlen)
        return;
    for (p = text; *p && n + 1 < outlen; p++) {
        int word_start = p == text || p[-1] == ' ' || p[-1] == '(';
        if (word_start && p[0] == '.' && p[1] == '/' && n + len + 1 < outlen) {
            memcpy(out + n, cp_plugin.stepdir, len);
            n += len;
            continue; /* the '/' is copied next */
        }
        out[n++] = *p;
    }
    out[n] = '\0';
}

/* ---- the log ---------------------------------------------------------------- */

void cp_spank_log(enum cp_spank_level level, const char *fmt, ...)
{
    /* raw is longer than text can hold: a message cut here is cut (and
     * marked) there too */
    char raw[2 * CP_SPANK_LOG_MAX], text[CP_SPANK_LOG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    cp_text_shown_marked(text, sizeof text, raw);
    if (level == CP_SPANK_ERROR)
        slurm_error("%s", text);
    else if (level == CP_SPANK_INFO)
        slurm_info("%s", text);
    else
        slurm_verbose("%s", text);
}

/* ---- step end: syslog and the alert hook --------------------------------- */

void cp_spank_syslog_finding(const struct cp_finding *f, const char *user,
                             const char *report)
{
    char step[48], where[4 * CP_STEPDIR_MAX + 64];

    if (!cp_plugin.site.syslog || f->severity < CP_SEVERITY_WARNING)
        return;
    cp_spank_step_name(step, sizeof step);
    /* the report's path holds the user's directory: a newline or an
     * escape in it must not forge a line */
    cp_text_shown_marked(where, sizeof where, report);
    /* what the job's own analysis says (it ran in the job user's
     * environment): marked as the job's claim, never as the site's */
    syslog(LOG_USER | (f->severity == CP_SEVERITY_CRITICAL ? LOG_CRIT : LOG_WARNING),
           "collprof: job %s user %s: the job's analysis claims: %s %s%s%s: "
           "%s (report %s)",
           step, user, cp_severity_name(f->severity),
           f->kind[0] ? f->kind : "finding", f->nodes[0] ? " on " : "",
           f->nodes, f->message, where);
}

void cp_spank_alert(const char *user, enum cp_severity worst,
                    const struct cp_run *creds)
{
    char job[32], step[64], sev[48], dir[CP_STEPDIR_MAX + 32],
        rep[CP_STEPDIR_MAX + 64], usr[300], name[48],
        report[CP_STEPDIR_MAX + 32];
    char *envp[] = {(char *)"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                            "/usr/bin:/sbin:/bin",
                    job, step, sev, dir, rep, usr, NULL};
    /* nothing the job controls in argv (the report's path holds the
     * user's directory): the hook reads it from COLLPROF_REPORT */
    const char *argv[] = {cp_plugin.site.alert, NULL};
    struct cp_run r;

    if (!cp_plugin.site.alert[0])
        return;
    snprintf(report, sizeof report, "%s/report.json", cp_plugin.stepdir);
    snprintf(job, sizeof job, "COLLPROF_JOB_ID=%u", cp_plugin.job_id);
    cp_spank_step_name(name, sizeof name);
    snprintf(step, sizeof step, "COLLPROF_STEP=%s", name);
    snprintf(sev, sizeof sev, "COLLPROF_SEVERITY=%s", cp_severity_name(worst));
    snprintf(dir, sizeof dir, "COLLPROF_STEP_DIR=%s", cp_plugin.stepdir);
    snprintf(rep, sizeof rep, "COLLPROF_REPORT=%s", report);
    snprintf(usr, sizeof usr, "COLLPROF_USER=%s", user);
    if (creds)
        r = *creds;
    else
        memset(&r, 0, sizeof r);
    r.in_dir = 0; /* the hook starts where it always did */
    r.argv = argv;
    r.envp = envp;
    r.out = r.errout = NULL;
    r.timeout_s = cp_plugin.site.alert_timeout_s;
    /* the hook is the admin's: its output is not the user's business, and
     * its failure must not be the step's */
    if (cp_run(&r) < 0) {
        if (r.timed_out)
            syslog(LOG_USER | LOG_WARNING,
                   "collprof: alert hook %s killed after %u s",
                   cp_plugin.site.alert, cp_plugin.site.alert_timeout_s);
        else
            syslog(LOG_USER | LOG_WARNING, "collprof: alert hook %s: %s",
                   cp_plugin.site.alert,
                   strerror(r.exec_errno ? r.exec_errno : errno));
        cp_spank_verbose("alert hook %s did not complete",
                         cp_plugin.site.alert);
    } else if (r.status != 0) {
        syslog(LOG_USER | LOG_WARNING, "collprof: alert hook %s exited with %d",
               cp_plugin.site.alert, r.status);
    }
}
