/* cp_stepdir.h - the step directory BASE/collprof-JOB.STEP, made and opened
 * without following a symbolic link at its own name.
 *
 * The plugin calls these as the job's user (slurmstepd's user_init runs with
 * euid = the user; srun runs as the user), so the kernel checks every access
 * with the user's credentials; every component of the path is checked on
 * the way (docs/security.md), so that no other user can redirect or swap
 * it, and the step directory must be a real directory owned by `uid`, not
 * writable by group or others.  This walk is the plugin's own, not
 * cp_path's: it checks every directory on the way against the job's user
 * and creates what is missing.  No Slurm dependency: the unit test links
 * this file and common/.  Functions return 0 (or a descriptor) or -1 with
 * one sentence in err.
 */
#ifndef COLLPROF_CP_STEPDIR_H
#define COLLPROF_CP_STEPDIR_H

#include <stddef.h>
#include <sys/types.h>

#include "cp_error.h"

/* "collprof-JOB.STEP", or "collprof-JOB.batch" for the batch step. */
void cp_stepdir_name(unsigned job, unsigned step, char *out, size_t outlen);

/* The absolute path of the step directory: base / name, where a relative
 * base (or an empty one) is taken from the absolute directory `cwd`, or
 * from the working directory when cwd is NULL.  -1 when it does not fit. */
int cp_stepdir_path(const char *cwd, const char *base, const char *name,
                    char *out, size_t outlen, struct cp_error *err);

/* Walk path from / one component at a time: every directory on the way
 * must belong to root or uid and be writable by group or others only when
 * sticky; a symbolic link on the way is followed only when root or uid owns
 * it; the step directory itself is never a link, belongs to uid and is not
 * writable by group or others.  Missing components, and the step directory,
 * are created with mode (& ~umask, as the caller: the user's ownership).
 * Returns an O_DIRECTORY descriptor (the caller closes it). */
int cp_stepdir_make(const char *path, uid_t uid, mode_t mode,
                    struct cp_error *err);

/* Open an existing step directory, walked and checked as above; -1 with
 * errno ENOENT (and err set) when it does not exist. */
int cp_stepdir_open(const char *path, uid_t uid, struct cp_error *err);

/* Number of rank logs (non-empty regular files *.cplog) in the directory
 * dirfd: the shim's logs, or when there is none (capture=plugin) the NCCL
 * profiler plugin's (*.nccl.cplog); with both, a process writes one of
 * each and counts once. */
int cp_stepdir_count_logs(int dirfd);

/* 1 when name is one of the port snapshots `collprof ports` writes
 * (ports-NODE-WHEN.json, or its temporary .ports-NODE-WHEN.json.RANDOM;
 * the older ports-NODE-WHEN.json.tmpPID too). */
int cp_stepdir_is_ports_file(const char *name);

/* A step that made no NCCL call leaves nothing: when the step directory
 * open at fd (checked, by cp_stepdir_make or cp_stepdir_open) has no rank
 * log, its port snapshots are removed, then the directory itself, from its
 * present parent ("..") under `name` (its own name, e.g. collprof-7.0),
 * only when that name is still this directory and nothing else is in it.
 * Works on the directory checked, never on its path again.  0 when it was
 * removed, 1 when it stays (rank logs or other files in it). */
int cp_stepdir_remove_unused(int fd, const char *name);

#endif
