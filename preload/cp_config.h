/* cp_config.h - the shim's settings, read from COLLPROF_* variables.
 *
 *   COLLPROF_DIR      where rank logs go (default ./collprof-logs)
 *   COLLPROF_TIMER    auto | host | event | cupti   (default auto)
 *   COLLPROF_DISABLE  1 turns the shim into a pass-through, 0 or unset = on
 *   COLLPROF_NODE     node name to log (default SLURMD_NODENAME, else host)
 *   COLLPROF_LOG_FORMAT 4 (default: ring and compact stream) or 3
 *   COLLPROF_RING     format 4's ring cells, a power of two (default 16384)
 * A bad value is reported (one sentence in `problem`) and the default used.
 */
#ifndef COLLPROF_CP_CONFIG_H
#define COLLPROF_CP_CONFIG_H

#include <stddef.h>

#include "collprof/cp_logfmt.h"
#include "cp_policy.h"

struct cp_config {
    char dir[2048];
    unsigned timer;        /* enum cp_timer asked for (host when auto) */
    int timer_auto;        /* COLLPROF_TIMER unset, "auto" or invalid */
    char timer_reason[64]; /* why */
    int disabled;
    char node[64];
    char hostname[64];
    int global_rank, world_size, local_rank; /* -1 when unknown */
    char job_id[32], step_id[32];
    unsigned log_format; /* 3 or 4 */
    unsigned ring_slots; /* 0: the writer's default */
    int policy_on;       /* COLLPROF_DETAIL: a capture policy (not "all") */
    struct cp_policy_cfg policy; /* its settings */
    char host_clock[16]; /* COLLPROF_HOST_CLOCK: "tsc", "realtime" or "" (auto) */
    char problem[256]; /* first problem found, "" if none */
};

/* Read the settings from getenv-like `get` (getenv in the shim; tests pass
 * their own).  `timers_built` is a bit mask (1 << CP_TIMER_x) of the timers
 * this build can use.  Never fails: problems land in cfg->problem. */
void cp_config_read(struct cp_config *cfg, const char *(*get)(const char *),
                    unsigned timers_built);

/* The variables the shim knows; any other COLLPROF_* in the environment is
 * reported as a likely typo.  NULL-terminated. */
extern const char *const cp_config_known[];

/* Report (in cfg->problem, if still empty) a COLLPROF_* variable of env
 * that the shim does not know. */
void cp_config_check_env(struct cp_config *cfg, char *const *env);

#endif
