/* cp_spank.h - the SPANK plugin's state and its per-context entry points.
 *
 * spank_collprof.c dispatches each SPANK callback on spank_context() to one
 * file per context:
 *   cp_spank_srun.c    S_CTX_LOCAL      srun: the verdict at step end
 *   cp_spank_alloc.c   S_CTX_ALLOCATOR  sbatch/salloc: check the option early
 *   cp_spank_stepd.c   S_CTX_REMOTE     slurmstepd: step dir, LD_PRELOAD,
 *                                       port snapshots, the batch step's end
 *   cp_spank_slurmd.c  S_CTX_SLURMD     slurmd: check plugstack.conf at start
 * Each process that loads the plugin has one `struct cp_plugin`.
 */
#ifndef COLLPROF_CP_SPANK_H
#define COLLPROF_CP_SPANK_H

#include <stdint.h>
#include <sys/types.h>

#include <slurm/spank.h>

#include "cp_args.h"
#include "cp_plugin_findings.h"

struct cp_run;

#define CP_STEPDIR_MAX (CP_ARGS_PATH_MAX + 256)

/* Slurm's special step ids (slurm.h). */
#define CP_STEP_BATCH 0xfffffffbu
#define CP_STEP_SPECIAL_MIN 0xfffffff0u

struct cp_plugin {
    int loaded;   /* plugstack.conf arguments parsed: else every callback
                     does nothing */
    struct cp_site site;
    struct cp_request request;
    int active;   /* this step is profiled */
    uint32_t job_id, step_id;
    uid_t uid;
    gid_t gid;
    char stepdir[CP_STEPDIR_MAX]; /* absolute */
};

extern struct cp_plugin cp_plugin;

/* Every message of the plugin starts with "collprof: ", and goes to
 * Slurm's log (slurmd's, srun's stderr) through cp_spank_log: escaped and
 * bounded (cp_text_shown_marked, common/cp_text.h), since much of what it
 * says comes from the job (its environment, its directory, its analysis):
 * a newline or an escape sequence in it cannot forge a line or drive a
 * terminal.  CP_SPANK_LOG_MAX: the longest message, NUL included; a longer
 * one is cut and ends with "...". */
#define CP_SPANK_LOG_MAX 2048
enum cp_spank_level { CP_SPANK_ERROR, CP_SPANK_INFO, CP_SPANK_VERBOSE };
void cp_spank_log(enum cp_spank_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#define cp_spank_error(fmt, ...)                                               \
    cp_spank_log(CP_SPANK_ERROR, "collprof: " fmt, ##__VA_ARGS__)
#define cp_spank_info(fmt, ...)                                                \
    cp_spank_log(CP_SPANK_INFO, "collprof: " fmt, ##__VA_ARGS__)
#define cp_spank_verbose(fmt, ...)                                             \
    cp_spank_log(CP_SPANK_VERBOSE, "collprof: " fmt, ##__VA_ARGS__)

/* Shared by the contexts (cp_spank_common.c). */
/* At slurm_spank_init, before anything else: logs collprof's version and
 * the Slurm it was built for, and returns -1 (the plugin is not loaded)
 * under a Slurm of another release series (cp_slurmver.h). */
int cp_spank_check_slurm(spank_t sp);
int cp_spank_parse_site(int ac, char **av);
int cp_spank_register_option(spank_t sp);
/* The COLLPROF_* fallbacks from the process's own environment (srun,
 * sbatch, salloc) or from the job's (slurmstepd). */
void cp_spank_fallback_getenv(void);
void cp_spank_fallback_job(spank_t sp);
/* The step directory's path for the current job, step and request: a
 * relative dir= (or an empty basedir) from the absolute directory cwd, or
 * from the working directory when cwd is NULL. */
int cp_spank_stepdir_path(const char *user, const char *cwd);

/* The step directory is checked once per process and used from then on by
 * its descriptor: the commands the plugin runs on it get it as their
 * working directory (cp_run's in_dir) and name it ".".  Their output then
 * names its files ./NAME: this writes text into out with each "./" at the
 * start of a word (the text's start, after a space or a '(') given the
 * step directory's path back, for the user and the logs. */
void cp_spank_name_dir(const char *text, char *out, size_t outlen);

/* srun's working directory, exported by srun to its step (a SLURM_ name:
 * srun passes those on even with --export=NONE), so that slurmstepd
 * resolves a relative step directory from where srun does, whatever
 * --chdir says. */
#define CP_SPANK_CWD_ENV "SLURM_COLLPROF_CWD"

/* Step end, shared by srun and slurmstepd (the batch step).  A syslog line
 * for a warning or critical finding (when syslog=yes) of the file `report`
 * (report.json, or the link probe's probe.json); the alert hook (when
 * alert= is set) with the report's path, run with the credentials of
 * `creds` (as_user, uid, gid, groups), or as the caller when NULL. */
void cp_spank_syslog_finding(const struct cp_finding *f, const char *user,
                             const char *report);
void cp_spank_alert(const char *user, enum cp_severity worst,
                    const struct cp_run *creds);
/* "J.S" or "J.batch" */
void cp_spank_step_name(char *out, size_t outlen);

int cp_srun_init(spank_t sp, int ac, char **av);
int cp_srun_post_opt(spank_t sp, int ac, char **av);
int cp_srun_user_init(spank_t sp, int ac, char **av);
int cp_srun_exit(spank_t sp, int ac, char **av);

int cp_alloc_init(spank_t sp, int ac, char **av);
int cp_alloc_post_opt(spank_t sp, int ac, char **av);

int cp_stepd_init(spank_t sp, int ac, char **av);
int cp_stepd_post_opt(spank_t sp, int ac, char **av);
int cp_stepd_user_init(spank_t sp, int ac, char **av);
int cp_stepd_task_init(spank_t sp, int ac, char **av);
int cp_stepd_task_post_fork(spank_t sp, int ac, char **av);
int cp_stepd_task_exit(spank_t sp, int ac, char **av);
int cp_stepd_exit(spank_t sp, int ac, char **av);

int cp_slurmd_init(spank_t sp, int ac, char **av);
int cp_slurmd_exit(spank_t sp, int ac, char **av);

#endif
