/* cp_args.h - the SPANK plugin's settings, parsed by tables.
 *
 * Two sources, two trust levels:
 *   struct cp_site     the admin's plugstack.conf arguments (key=value);
 *                      the only source of paths of programs the plugin runs;
 *   struct cp_request  the user's --collprof[=LIST] (or COLLPROF_PROFILE),
 *                      which only chooses among what the site allows.
 * Nothing here needs Slurm: the unit test links this file and common/
 * (cp_text_check, cp_path_has_dotdot).  Functions return 0 or -1 with one
 * sentence (no "collprof: " prefix) in err.
 */
#ifndef COLLPROF_CP_ARGS_H
#define COLLPROF_CP_ARGS_H

#include <stddef.h>

#include "cp_error.h"

#define CP_ARGS_PATH_MAX 1024 /* any path from either side, NUL included */
#define CP_ARGS_LIST_MAX 4096 /* the whole --collprof=LIST */
#define CP_ARGS_TIMER_MAX 8
#define CP_ARGS_DETAIL_MAX 128

/* Tri-state for settings a request may leave to the site. */
enum { CP_UNSET = -1, CP_NO = 0, CP_YES = 1 };

struct cp_site {
    char basedir[CP_ARGS_PATH_MAX]; /* "" = the step's working directory;
                                       %u = user name, %U = uid */
    int default_on;                 /* profile steps without the flag */
    int analyze;                    /* run collprof analyze at step end */
    char alert[CP_ARGS_PATH_MAX];   /* site hook, "" = none */
    int syslog;                     /* a syslog line per finding */
    int batch_step;                 /* profile the batch shell too */
    char preload[CP_ARGS_PATH_MAX]; /* libcollprof.so */
    char collprof[CP_ARGS_PATH_MAX]; /* the collprof command */
    unsigned analyze_timeout_s;
    unsigned alert_timeout_s;
    unsigned probe_timeout_s; /* the link probe (--collprof=probe) */
    unsigned dir_mode; /* step directories and the parts of basedir made;
                          files in them get 0666 less the complement */
    char nccl_profiler[CP_ARGS_PATH_MAX]; /* libcollprof-nccl-profiler.so */
    int capture; /* CP_CAPTURE_* bits: the capture paths a task gets */
    /* a second NCCL profiler plugin that collprof's forwards every event
     * to (COLLPROF_NEXT_PROFILER in the tasks), "" = none */
    char next_profiler[CP_ARGS_PATH_MAX];
    /* the fleet's spool directory: slurmstepd leaves each analysed step's
     * entry there for `collprof fleet ingest --spool` (cp_fleet_spool.h),
     * "" = none */
    char fleet_spool[CP_ARGS_PATH_MAX];
    /* live watch (docs/watch.md, "Under Slurm"): a `collprof watch` on
     * every node of a profiled step, the first node's the lead */
    int watch;                   /* profiled steps get watchers */
    unsigned watch_interval_s;   /* between two looks */
    unsigned hang_after_s;       /* the limit of a call in flight */
    unsigned slow_after_s;       /* a pace slow this long: the analysis
                                    is asked about a slowdown */
    int on_hang;                 /* CP_ON_HANG_*: what the lead does on a hang;
                                    the site's alone, never the user's */
    /* node_exporter's textfile-collector directory: each node's watcher
     * writes DIR/collprof-JOB.STEP-NODE.prom, "" = none */
    char metrics_dir[CP_ARGS_PATH_MAX];
    /* the capture policy (docs/capture-policy.md): COLLPROF_DETAIL for
     * the tasks, "" = the shim's default */
    char detail[CP_ARGS_DETAIL_MAX];
};

/* cp_site.on_hang: what the lead watcher does once it has named a hang. */
enum { CP_ON_HANG_NONE = 0, CP_ON_HANG_CANCEL, CP_ON_HANG_REQUEUE };

/* The word of an on_hang value ("none", "cancel", "requeue"): a static
 * string, never NULL. */
const char *cp_on_hang_name(int on_hang);

/* cp_site.capture: the shim in front of LD_PRELOAD, NCCL's profiler plugin
 * through NCCL_PROFILER_PLUGIN, or both. */
#define CP_CAPTURE_SHIM 1
#define CP_CAPTURE_PLUGIN 2

struct cp_request {
    int given;   /* a LIST was parsed (an empty one counts) */
    int on;      /* CP_YES, CP_NO, or CP_UNSET: the site decides */
    char dir[CP_ARGS_PATH_MAX]; /* "" = the site's basedir */
    char timer[CP_ARGS_TIMER_MAX]; /* "" = the shim chooses */
    int analyze; /* CP_UNSET = the site's */
    int probe;
    int watch;   /* CP_UNSET = the site's watch= */
    char detail[CP_ARGS_DETAIL_MAX]; /* "" = the site's detail= */
};

/* Defaults: preload = LIBDIR/libcollprof.so, nccl_profiler =
 * LIBDIR/libcollprof-nccl-profiler.so, collprof = BINDIR/collprof. */
void cp_site_defaults(struct cp_site *site, const char *libdir,
                      const char *bindir);

/* Apply argv[0..argc) (key=value each) over the defaults already in site.
 * An unknown key, a bad value or a relative path is an error naming it. */
int cp_site_parse(struct cp_site *site, int argc, char *const argv[],
                  struct cp_error *err);

/* The request of a --collprof LIST ("" for the bare flag), over a zeroed
 * request: r->given = 1.  Rejects unknown keys, over-long values, control
 * characters, invalid UTF-8, and `..` components in dir=. */
void cp_request_init(struct cp_request *r);
int cp_request_parse(struct cp_request *r, const char *list,
                     struct cp_error *err);

/* The environment fallbacks, for what the option left unset:
 *   COLLPROF_PROFILE=LIST  the option's value when the option is absent
 *   COLLPROF_DISABLE=1     as `off` when neither the option nor
 *                          COLLPROF_PROFILE says anything
 *   COLLPROF_TIMER, COLLPROF_ANALYZE   timer= and analyze= defaults
 * `get` returns a variable of the job's environment or NULL.  A bad value
 * is ignored, with the sentence in warn (the first only); returns 0. */
int cp_request_fallback(struct cp_request *r,
                        const char *(*get)(const char *name, void *arg),
                        void *arg, struct cp_error *warn);

/* Whether the step is profiled, the analyzer run, watchers started. */
int cp_request_enabled(const struct cp_request *r, const struct cp_site *site);
int cp_request_analyze(const struct cp_request *r, const struct cp_site *site);
int cp_request_watch(const struct cp_request *r, const struct cp_site *site);

/* basedir with %u (user name), %U (uid) and %% expanded into out. */
int cp_expand_basedir(const char *basedir, const char *user, unsigned uid,
                      char *out, size_t outlen);

/* The keys, for messages and --help: "basedir=, default=, ..." */
const char *cp_site_keys(void);
const char *cp_request_keys(void);

#endif
