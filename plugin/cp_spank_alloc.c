/* cp_spank_alloc.c - sbatch and salloc: the option is checked at submission
 * (a bad LIST fails the command before the job is queued); the job's steps
 * receive it from Slurm, and srun and slurmstepd act on it. */
#include "config.h"

#include "cp_spank.h"

int cp_alloc_init(spank_t sp, int ac, char **av)
{
    if (cp_spank_parse_site(ac, av) < 0)
        return -1;
    return cp_spank_register_option(sp);
}

int cp_alloc_post_opt(spank_t sp, int ac, char **av)
{
    (void)sp, (void)ac, (void)av;
    if (!cp_plugin.loaded)
        return 0;
    /* only to report a bad COLLPROF_* value at submission */
    cp_spank_fallback_getenv();
    return 0;
}
