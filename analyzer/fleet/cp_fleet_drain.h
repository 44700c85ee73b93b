/* cp_fleet_drain.h - the fleet's spool as `collprof fleet ingest --spool`
 * drains it (docs/fleet.md, "The spool").
 *
 * slurmstepd (root) leaves one entry per analysed step in the spool
 * (plugin/cp_fleet_spool.c): Slurm's job, step, uid and user, the step's
 * directory, when it ended.  The drain trusts the entry (it is root's) and
 * not the step directory (it is the user's): the report is read through a
 * descriptor opened without following a link, and taken only when it is a
 * regular file owned by the entry's uid, in a directory owned by that uid.
 * So the user can have the drain read only a report of their own.  Never
 * prints.
 */
#ifndef COLLPROF_CP_FLEET_DRAIN_H
#define COLLPROF_CP_FLEET_DRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cp_error.h"

#define CP_FLEET_SPOOL_ENTRY_MAX 8192

struct cp_fleet_entry {
    char name[64];         /* the entry's file name: JOB.STEP */
    char job[16], step[16]; /* "42", "0" or "batch" */
    uid_t uid;
    char user[256];
    char stepdir[4096];
    int64_t ended;         /* seconds since the epoch */
};

/* Parse an entry's text (len bytes) into e (its name set by the caller).
 * 0, or -1 with err naming the entry and the key. */
int cp_fleet_entry_parse(const char *name, const char *text, size_t len,
                         struct cp_fleet_entry *e, struct cp_error *err);

/* The spool open for draining: a directory owned by this process's euid
 * and not writable by group or others.  The descriptor, or -1 with err. */
int cp_fleet_spool_open(const char *spool, struct cp_error *err);

/* Call fn for each entry of the spool (names JOB.STEP, in the order of
 * their names), read and parsed; an entry that cannot be (not a regular
 * file of the spool's owner, too big, damaged) is passed with its error
 * in *bad (fn decides: the drain removes it).  fn returns 0 to go on, -1
 * to stop (the walk then returns -1).  0, or -1 with err. */
typedef int (*cp_fleet_entry_fn)(void *ctx, const struct cp_fleet_entry *e,
                                 const struct cp_error *bad,
                                 struct cp_error *err);
int cp_fleet_spool_walk(int spool_fd, cp_fleet_entry_fn fn, void *ctx,
                        struct cp_error *err);

/* The report of entry e: *text (NUL-terminated, the caller frees) and
 * *len, read through descriptors (the step directory and its report.json
 * each opened without following a link and owned by e->uid; the report a
 * regular file of at most max bytes).  1 when read, 0 when the step has no
 * report.json (yet), -1 with err naming the file. */
int cp_fleet_entry_report(const struct cp_fleet_entry *e, size_t max,
                          char **text, size_t *len, struct cp_error *err);

/* Remove entry e from the spool.  0 or -1 with err. */
int cp_fleet_spool_remove(int spool_fd, const struct cp_fleet_entry *e,
                          struct cp_error *err);

#endif
