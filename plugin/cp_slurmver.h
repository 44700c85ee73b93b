/* cp_slurmver.h - which Slurm the SPANK plugin was built for, and whether
 * the Slurm that loads it is of the same release series.
 *
 * Slurm 22.05 loads a SPANK plugin without comparing its plugin_version
 * with its own (plugin.c skips that check for the "spank" type), so a
 * plugin built for another release would run against structures it does
 * not know.  The plugin compares the release series (major.minor, e.g.
 * 22.05: Slurm keeps its plugin ABI within a series) itself at load and
 * refuses to load when they differ (docs/plugin.md, "Versions").
 */
#ifndef COLLPROF_CP_SLURMVER_H
#define COLLPROF_CP_SLURMVER_H

#include "cp_error.h"

/* Slurm's version numbers as slurm_version.h packs them: 0xMMmmuu. */
#define CP_SLURMVER_MAJOR(v) (((v) >> 16) & 0xffu)
#define CP_SLURMVER_MINOR(v) (((v) >> 8) & 0xffu)
#define CP_SLURMVER_MICRO(v) ((v)&0xffu)

/* "22.05.8" into out. */
void cp_slurmver_format(unsigned built, char *out, size_t outlen);

/* 0 when the running Slurm, given as the strings spank_get_item returns for
 * S_SLURM_VERSION_MAJOR and S_SLURM_VERSION_MINOR, is of the release series
 * of `built` (a SLURM_VERSION_NUMBER); -1 with err naming both versions
 * when it is not, or when a string is missing or not a number. */
int cp_slurmver_check(unsigned built, const char *major, const char *minor,
                      struct cp_error *err);

#endif
