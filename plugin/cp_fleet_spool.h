/* cp_fleet_spool.h - the step's entry in the fleet's spool directory.
 *
 * At the end of a profiled step, slurmstepd (root) on the step's first node
 * writes one small file into the site's spool directory (plugstack key
 * fleet_spool=): who ran the step, as Slurm knows it, and where its
 * directory is.  A root-run `collprof fleet ingest --spool DIR` drains the
 * spool into the fleet database once the step's report.json exists
 * (docs/fleet.md).  The job's user can write neither the spool nor the
 * database; what is in the report stays the job's claim.
 */
#ifndef COLLPROF_CP_FLEET_SPOOL_H
#define COLLPROF_CP_FLEET_SPOOL_H

#include <stdint.h>
#include <sys/types.h>

#include "cp_error.h"

/* What an entry says; every string printable, no newline. */
struct cp_spool_entry {
    uint32_t job_id;
    uint32_t step_id;     /* CP_STEP_BATCH (0xfffffffb): the batch step */
    uid_t uid;
    const char *user;     /* the uid's name, or its number */
    const char *stepdir;  /* absolute */
    int64_t ended;        /* seconds since the epoch */
};

/* Write e into the directory spool as `JOB.STEP` (`JOB.batch`): refused
 * unless spool is an absolute directory (not a link) owned by this process's
 * euid and not writable by group or others; written to a temporary name
 * (O_EXCL|O_NOFOLLOW, 0600) and renamed into place, so a reader sees the
 * whole entry or none.  0, or -1 with err. */
int cp_fleet_spool_write(const char *spool, const struct cp_spool_entry *e,
                         struct cp_error *err);

#endif
