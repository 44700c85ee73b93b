/* spank_collprof.c - the collprof SPANK plugin: `srun --collprof` profiles
 * a job step's NCCL calls (docs/plugin.md).
 *
 * This file only dispatches each SPANK callback on spank_context() to the
 * file of that context (cp_spank.h): srun (cp_spank_srun.c), sbatch and
 * salloc (cp_spank_alloc.c), slurmstepd (cp_spank_stepd.c), slurmd
 * (cp_spank_slurmd.c); what they share is in cp_spank_common.c.  The one
 * check made before dispatching is the Slurm release series, in every
 * context (cp_spank_check_slurm).  Only the
 * slurm_spank_* and plugin_* symbols are exported (spank_collprof.map).
 */
#include "config.h"

#include "cp_spank.h"

SPANK_PLUGIN(collprof, 1)

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    if (cp_spank_check_slurm(sp) < 0)
        return -1;
    switch (spank_context()) {
    case S_CTX_LOCAL:
        return cp_srun_init(sp, ac, av);
    case S_CTX_ALLOCATOR:
        return cp_alloc_init(sp, ac, av);
    case S_CTX_REMOTE:
        return cp_stepd_init(sp, ac, av);
    case S_CTX_SLURMD:
        return cp_slurmd_init(sp, ac, av);
    default:
        return 0;
    }
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    switch (spank_context()) {
    case S_CTX_LOCAL:
        return cp_srun_post_opt(sp, ac, av);
    case S_CTX_ALLOCATOR:
        return cp_alloc_post_opt(sp, ac, av);
    case S_CTX_REMOTE:
        return cp_stepd_post_opt(sp, ac, av);
    default:
        return 0;
    }
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
    return spank_context() == S_CTX_LOCAL ? cp_srun_user_init(sp, ac, av) : 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    return spank_context() == S_CTX_REMOTE ? cp_stepd_user_init(sp, ac, av)
                                           : 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    return spank_context() == S_CTX_REMOTE ? cp_stepd_task_init(sp, ac, av)
                                           : 0;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
    return spank_context() == S_CTX_REMOTE
               ? cp_stepd_task_post_fork(sp, ac, av)
               : 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    return spank_context() == S_CTX_REMOTE ? cp_stepd_task_exit(sp, ac, av)
                                           : 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    switch (spank_context()) {
    case S_CTX_LOCAL:
        return cp_srun_exit(sp, ac, av);
    case S_CTX_REMOTE:
        return cp_stepd_exit(sp, ac, av);
    default:
        return 0;
    }
}

int slurm_spank_slurmd_exit(spank_t sp, int ac, char **av)
{
    return cp_slurmd_exit(sp, ac, av);
}
