/* cp_watch_relay.h - the live watch's lines on srun's stderr.
 *
 * collprof watch (started by slurmstepd on each node, as the job's user)
 * writes what it names to STEPDIR/watch.log; slurmstepd has no descriptor
 * of the job's stderr, but srun has: while the step runs, a thread of srun
 * reads watch.log as it grows (once a second) and prints each new line on
 * srun's stderr, "collprof: job J.S: watch: ...".  The thread opens the
 * step directory as cp_stepdir_open checks it (the user's, no link) and
 * watch.log in it with O_NOFOLLOW, a regular file only; it blocks every
 * signal (srun's own handling is unchanged), never writes, and reads at
 * most RELAY_MAX bytes of the file.  No Slurm dependency.
 */
#ifndef COLLPROF_CP_WATCH_RELAY_H
#define COLLPROF_CP_WATCH_RELAY_H

#include <stdio.h>
#include <sys/types.h>

/* Start relaying stepdir/watch.log (the directory need not exist yet) to
 * out, each line after prefix.  0, or -1 when the thread could not start
 * (nothing relayed; the lines stay in watch.log). */
int cp_relay_start(const char *stepdir, uid_t uid, const char *prefix,
                   FILE *out);

/* Stop: the lines written since the last look are printed, the thread
 * joined.  Safe when not started. */
void cp_relay_stop(void);

#endif
