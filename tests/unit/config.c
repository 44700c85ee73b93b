/* config.c - COLLPROF_* parsing of the shim (preload/cp_config.c). */
#include "config.h"

#include <string.h>

#include "cp_config.h"
#include "tap.h"

static const char *const *fake_env;

static const char *fake_get(const char *name)
{
    size_t n = strlen(name);
    const char *const *e;
    for (e = fake_env; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static void read_with(struct cp_config *cfg, const char *const *env)
{
    fake_env = env;
    cp_config_read(cfg, fake_get, 1u << CP_TIMER_HOST);
}

int main(void)
{
    struct cp_config cfg;

    {
        const char *env[] = {NULL};
        read_with(&cfg, env);
        is_str(cfg.dir, "collprof-logs", "default directory");
        is_int(cfg.timer, CP_TIMER_HOST, "auto picks host without GPU timers");
        is_int(cfg.disabled, 0, "on by default");
        is_int(cfg.global_rank, -1, "rank unknown");
        is_str(cfg.problem, "", "no problem");
        ok(cfg.node[0] != '\0' && strchr(cfg.node, '.') == NULL,
           "node falls back to the short host name (%s)", cfg.node);
    }
    {
        const char *env[] = {"COLLPROF_DIR=/x/y", "COLLPROF_TIMER=host",
                             "SLURM_PROCID=3", "RANK=9", "SLURM_NTASKS=8",
                             "SLURMD_NODENAME=n12", "SLURM_LOCALID=1",
                             "SLURM_JOB_ID=77", "SLURM_STEP_ID=0", NULL};
        read_with(&cfg, env);
        is_str(cfg.dir, "/x/y", "COLLPROF_DIR");
        is_int(cfg.global_rank, 3, "SLURM_PROCID wins over RANK");
        is_int(cfg.world_size, 8, "SLURM_NTASKS");
        is_int(cfg.local_rank, 1, "SLURM_LOCALID");
        is_str(cfg.node, "n12", "SLURMD_NODENAME");
        is_str(cfg.job_id, "77", "job id");
        is_str(cfg.problem, "", "valid settings: no problem");
    }
    {
        const char *env[] = {"RANK=5", "WORLD_SIZE=6", "LOCAL_RANK=2",
                             "COLLPROF_NODE=nX", "SLURMD_NODENAME=n1", NULL};
        read_with(&cfg, env);
        is_int(cfg.global_rank, 5, "RANK without Slurm");
        is_int(cfg.world_size, 6, "WORLD_SIZE");
        is_str(cfg.node, "nX", "COLLPROF_NODE overrides SLURMD_NODENAME");
    }
    {
        const char *env[] = {"COLLPROF_TIMER=bogus", NULL};
        read_with(&cfg, env);
        is_int(cfg.timer, CP_TIMER_HOST, "bad timer: default used");
        ok(strstr(cfg.problem, "COLLPROF_TIMER='bogus'") != NULL,
           "bad timer named in the problem: %s", cfg.problem);
    }
    {
        const char *env[] = {"COLLPROF_TIMER=cupti", NULL};
        read_with(&cfg, env);
        is_int(cfg.timer, CP_TIMER_HOST, "cupti not built: host");
        ok(strstr(cfg.problem, "not available") != NULL,
           "says cupti is not available: %s", cfg.problem);
        ok(strstr(cfg.timer_reason, "cupti") != NULL, "reason kept: %s",
           cfg.timer_reason);
    }
    {
        const char *env[] = {"COLLPROF_DISABLE=1", NULL};
        read_with(&cfg, env);
        is_int(cfg.disabled, 1, "COLLPROF_DISABLE=1");
    }
    {
        const char *env[] = {"COLLPROF_DISABLE=yes", NULL};
        read_with(&cfg, env);
        is_int(cfg.disabled, 0, "COLLPROF_DISABLE=yes: stays on");
        ok(strstr(cfg.problem, "COLLPROF_DISABLE='yes'") != NULL,
           "and says so");
    }
    {
        const char *env[] = {"SLURM_PROCID=abc", "RANK=2", NULL};
        read_with(&cfg, env);
        is_int(cfg.global_rank, -1, "non-numeric rank: unknown, not 0");
    }
    {
        char *env[] = {"COLLPROF_DIR=/a", "COLLPROF_TIMR=host", "PATH=/bin",
                       NULL};
        const char *cenv[] = {NULL};
        read_with(&cfg, cenv);
        cp_config_check_env(&cfg, env);
        ok(strstr(cfg.problem, "COLLPROF_TIMR") != NULL,
           "a misspelt variable is reported: %s", cfg.problem);
    }
    {
        /* what the plugin and collprof record pass to every task */
        char *env[] = {"COLLPROF_SYSFS_ROOT=/x", "COLLPROF_PROFILE=/p",
                       "COLLPROF_STEP_DIR=/s", "COLLPROF_ANALYZE=no", NULL};
        const char *cenv[] = {NULL};
        read_with(&cfg, cenv);
        cp_config_check_env(&cfg, env);
        ok(cfg.problem[0] == '\0',
           "the variables of the plugin and the analyzer are known: '%s'",
           cfg.problem);
    }
    return done_testing();
}
