/* cp_config.c - COLLPROF_* settings of the shim. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_config.h"

const char *const cp_config_known[] = {
    "COLLPROF_DIR",  "COLLPROF_TIMER",   "COLLPROF_DISABLE",
    "COLLPROF_NODE", "COLLPROF_PRELOAD", "COLLPROF_STEP_DIR",
    "COLLPROF_ANALYZE", "COLLPROF_PROFILE", "COLLPROF_SYSFS_ROOT",
    "COLLPROF_HOST_CLOCK", "COLLPROF_PLUGIN_STEPS", "COLLPROF_LOG_FORMAT",
    "COLLPROF_RING", "COLLPROF_DETAIL", NULL};

static void problem(struct cp_config *cfg, const char *fmt, const char *a,
                    const char *b)
{
    if (cfg->problem[0])
        return; /* the first problem is the one reported */
    snprintf(cfg->problem, sizeof cfg->problem, fmt, a, b);
}

/* First variable of the list that is set and non-empty. */
static const char *first_of(const char *(*get)(const char *),
                            const char *const *names)
{
    for (; *names; names++) {
        const char *v = get(*names);
        if (v && *v)
            return v;
    }
    return NULL;
}

static int parse_int(const char *s, int fallback)
{
    char *end;
    long v;

    if (!s)
        return fallback;
    v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 0x7fffffff)
        return fallback;
    return (int)v;
}

static const struct {
    const char *name;
    unsigned timer;
} timer_names[] = {{"host", CP_TIMER_HOST},
                   {"event", CP_TIMER_EVENT},
                   {"cupti", CP_TIMER_CUPTI}};

static void read_timer(struct cp_config *cfg, const char *v, unsigned built)
{
    size_t i;

    cfg->timer = CP_TIMER_HOST;
    cfg->timer_auto = 1;
    snprintf(cfg->timer_reason, sizeof cfg->timer_reason,
             "auto: no GPU timer in this build");
    if (!v || !*v || strcmp(v, "auto") == 0)
        return;
    for (i = 0; i < sizeof timer_names / sizeof timer_names[0]; i++) {
        if (strcmp(v, timer_names[i].name) != 0)
            continue;
        cfg->timer_auto = 0;
        if (built & (1u << timer_names[i].timer)) {
            cfg->timer = timer_names[i].timer;
            snprintf(cfg->timer_reason, sizeof cfg->timer_reason,
                     "COLLPROF_TIMER=%s", v);
        } else {
            problem(cfg,
                    "COLLPROF_TIMER=%s is not available in this build; "
                    "using the host timer%s",
                    v, "");
            snprintf(cfg->timer_reason, sizeof cfg->timer_reason,
                     "%s requested, not built", timer_names[i].name);
        }
        return;
    }
    problem(cfg,
            "COLLPROF_TIMER='%s' is not one of auto, host, event, cupti; "
            "using %s",
            v, "auto");
}

void cp_config_read(struct cp_config *cfg, const char *(*get)(const char *),
                    unsigned timers_built)
{
    static const char *const rank_vars[] = {
        "SLURM_PROCID", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
        "PMIX_RANK", NULL};
    static const char *const size_vars[] = {
        "SLURM_NTASKS", "SLURM_NPROCS", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE", NULL};
    static const char *const local_vars[] = {
        "SLURM_LOCALID", "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
        "MPI_LOCALRANKID", NULL};
    static const char *const node_vars[] = {"COLLPROF_NODE", "SLURMD_NODENAME",
                                            NULL};
    const char *v;
    char *dot;

    memset(cfg, 0, sizeof *cfg);
    v = get("COLLPROF_DISABLE");
    if (v && *v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
        problem(cfg, "COLLPROF_DISABLE='%s' is not 0 or 1; profiling stays %s",
                v, "on");
    cfg->disabled = v && strcmp(v, "1") == 0;

    v = get("COLLPROF_DIR");
    snprintf(cfg->dir, sizeof cfg->dir, "%s", v && *v ? v : "collprof-logs");

    read_timer(cfg, get("COLLPROF_TIMER"), timers_built);

    /* where call times come from: the TSC where usable (auto), or always
     * clock_gettime (docs/timers.md) */
    v = get("COLLPROF_HOST_CLOCK");
    if (v && *v && strcmp(v, "auto") != 0 && strcmp(v, "tsc") != 0 &&
        strcmp(v, "realtime") != 0)
        problem(cfg, "COLLPROF_HOST_CLOCK='%s' is not one of auto, tsc, "
                     "realtime; using %s", v, "auto");
    else if (v && (strcmp(v, "tsc") == 0 || strcmp(v, "realtime") == 0))
        snprintf(cfg->host_clock, sizeof cfg->host_clock, "%s", v);

    /* the log's format: 4 (a ring and a compact stream, docs/log-format.md)
     * unless 3 (a 64-byte slot per record) is asked for */
    cfg->log_format = 4;
    v = get("COLLPROF_LOG_FORMAT");
    if (v && *v && strcmp(v, "3") != 0 && strcmp(v, "4") != 0)
        problem(cfg, "COLLPROF_LOG_FORMAT='%s' is not 3 or 4; using %s", v,
                "4");
    else if (v && strcmp(v, "3") == 0)
        cfg->log_format = 3;
    v = get("COLLPROF_RING");
    if (v && *v) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (*end || n < CP_LOG4_RING_MIN || n > CP_LOG4_RING_MAX ||
            (n & (n - 1)))
            problem(cfg, "COLLPROF_RING='%s' is not a power of two from 64 "
                         "to 1048576; using %s", v, "16384");
        else
            cfg->ring_slots = (unsigned)n;
    }
    /* the capture policy (docs/capture-policy.md): bounded by default,
     * every call with "all" */
    v = get("COLLPROF_DETAIL");
    {
        struct cp_error perr;
        memset(&perr, 0, sizeof perr);
        if (cp_policy_parse(v, &cfg->policy, &cfg->policy_on, &perr) < 0) {
            problem(cfg, "COLLPROF_DETAIL: %.150s; using %s", perr.text,
                    "the default policy");
            (void)cp_policy_parse("default", &cfg->policy, &cfg->policy_on,
                                  NULL);
        }
    }

    if (gethostname(cfg->hostname, sizeof cfg->hostname) != 0)
        snprintf(cfg->hostname, sizeof cfg->hostname, "unknown");
    cfg->hostname[sizeof cfg->hostname - 1] = '\0';
    v = first_of(get, node_vars);
    snprintf(cfg->node, sizeof cfg->node, "%s", v ? v : cfg->hostname);
    if (!v && (dot = strchr(cfg->node, '.')) != NULL)
        *dot = '\0'; /* short host name, as Slurm names nodes */

    cfg->global_rank = parse_int(first_of(get, rank_vars), -1);
    cfg->world_size = parse_int(first_of(get, size_vars), -1);
    cfg->local_rank = parse_int(first_of(get, local_vars), -1);
    v = get("SLURM_JOB_ID");
    snprintf(cfg->job_id, sizeof cfg->job_id, "%s", v ? v : "");
    v = get("SLURM_STEP_ID");
    snprintf(cfg->step_id, sizeof cfg->step_id, "%s", v ? v : "");
}

void cp_config_check_env(struct cp_config *cfg, char *const *env)
{
    size_t i, len;

    for (; env && *env; env++) {
        const char *eq;
        int known = 0;
        if (strncmp(*env, "COLLPROF_", 9) != 0)
            continue;
        eq = strchr(*env, '=');
        len = eq ? (size_t)(eq - *env) : strlen(*env);
        for (i = 0; cp_config_known[i]; i++)
            if (strlen(cp_config_known[i]) == len &&
                strncmp(cp_config_known[i], *env, len) == 0)
                known = 1;
        if (!known) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63),
                     *env);
            problem(cfg, "unknown variable %s ignored (known: %s)", name,
                    "COLLPROF_DIR, COLLPROF_TIMER, COLLPROF_DISABLE, "
                    "COLLPROF_NODE");
        }
    }
}
