/* cp_spank_slurmd.c - slurmd: plugstack.conf is checked when slurmd starts,
 * so that a typo is in the slurmd log before the first job; nothing else
 * runs in slurmd. */
#include "config.h"

#include "cp_spank.h"

int cp_slurmd_init(spank_t sp, int ac, char **av)
{
    (void)sp;
    if (cp_spank_parse_site(ac, av) < 0)
        return -1;
    cp_spank_verbose("loaded (default=%s, basedir=%s)",
                     cp_plugin.site.default_on ? "on" : "off",
                     cp_plugin.site.basedir[0]
                         ? cp_plugin.site.basedir
                         : "(the step's working directory)");
    return 0;
}

int cp_slurmd_exit(spank_t sp, int ac, char **av)
{
    (void)sp, (void)ac, (void)av;
    return 0;
}
