/* cp_slurmver.c - the Slurm release series the plugin was built for
 * against the one that loads it (cp_slurmver.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cp_slurmver.h"

void cp_slurmver_format(unsigned built, char *out, size_t outlen)
{
    snprintf(out, outlen, "%u.%02u.%u", CP_SLURMVER_MAJOR(built),
             CP_SLURMVER_MINOR(built), CP_SLURMVER_MICRO(built));
}

/* a version field: decimal, 0 to 255 */
static int field(const char *s, unsigned *out)
{
    char *end;
    unsigned long v;

    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || *end || v > 255)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int cp_slurmver_check(unsigned built, const char *major, const char *minor,
                      struct cp_error *err)
{
    char want[32];
    unsigned ma, mi;

    cp_slurmver_format(built, want, sizeof want);
    if (field(major, &ma) < 0 || field(minor, &mi) < 0)
        return cp_errorf(err,
                         "built for Slurm %s, and the running Slurm's version "
                         "is unreadable ('%s.%s')",
                         want, major ? major : "(none)",
                         minor ? minor : "(none)");
    if (ma != CP_SLURMVER_MAJOR(built) || mi != CP_SLURMVER_MINOR(built))
        return cp_errorf(err,
                         "built for Slurm %s but this is Slurm %u.%02u: a "
                         "SPANK plugin runs only under the release series "
                         "it was built for (%u.%02u); install collprof built "
                         "for Slurm %u.%02u",
                         want, ma, mi, CP_SLURMVER_MAJOR(built),
                         CP_SLURMVER_MINOR(built), ma, mi);
    return 0;
}
