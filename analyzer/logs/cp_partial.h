/* cp_partial.h - node partials: one node's rank logs, reduced on that node.
 *
 * `collprof reduce` (and the SPANK plugin at step end, on every node of the
 * step at once) encodes the logs that one node wrote into one file,
 * NODE.cppart, next to them: each log's header and its slots, never-written
 * slots dropped and every record stored as its difference from the previous
 * record of its kind, with a checksum per log (format: docs/partial-format.md).
 * The encoding is lossless: reading a log from a partial yields the same
 * bytes as reading the log itself, so the analysis built on cp_logread and
 * cp_scan gives the same report.json from partials, raw logs or both.
 *
 * The merge: cp_partial_list() stands in for cp_logdir_list().  It lists
 * the logs of a directory (or of one partial) by their own names, each
 * with the log of a partial it is read from (NULL: the raw file), entered
 * into a set the caller holds (struct cp_partial_set; cp_partial_src.h,
 * below the log readers, reads a log out of its partial).  The caller
 * hands that log to the first check of the name (cp_scan_check_in,
 * cp_logfile_check_held), and every reader started from the check reads
 * the partial.  A partial that is unreadable or damaged anywhere is named
 * in a note and its node's raw logs are listed instead; a node with raw
 * logs and no partial, where other nodes have one, is named too.
 *
 * Nothing here prints.  Counts read from a partial are checked against its
 * size before they size anything; errors name the file and the offset.
 */
#ifndef COLLPROF_CP_PARTIAL_H
#define COLLPROF_CP_PARTIAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cp_error.h"
#include "cp_partial_src.h"

/* What cp_partial_reduce wrote. */
struct cp_partial_stats {
    unsigned logs;      /* logs of the node encoded */
    unsigned other;     /* logs of other nodes, left out */
    unsigned unreadable; /* logs whose header could not be read, left out
                            (the merge reads them raw and names them) */
    uint64_t raw_bytes; /* the encoded logs' sizes */
    uint64_t bytes;     /* the partial's size */
    unsigned damaged;   /* logs found damaged (version 4), left out of the
                           partial: the merge reads them raw and names the
                           damage (all of them: no partial written) */
    struct cp_error damage; /* the first such damage, when damaged */
};

/* Reduce the logs in directory dir whose header names node `node` into
 * out_path (written under a fresh name and renamed, cp_path).  A node with
 * no log in dir is an error (nothing written).  Returns 0 or -1 (err
 * filled). */
int cp_partial_reduce(const char *dir, const char *node, const char *out_path,
                      struct cp_partial_stats *st, struct cp_error *err);

/* The file name of node's partial ("NODE.cppart", the node name kept to
 * [A-Za-z0-9._-] as the shim names logs) into buf.  0, or -1 when too
 * long. */
int cp_partial_file_name(const char *node, char *buf, size_t len);

/* How many nodes whose readable logs are in dir (their headers name them)
 * have no partial there (NODE.cppart) yet; the first such node's name into
 * first (len bytes).  -1 with err filled when dir has no log. */
int cp_partial_missing(const char *dir, char *first, size_t len,
                       struct cp_error *err);

/* ---- the merge ---------------------------------------------------------- */

/* A log listed: its name, and the log of a partial that it is read from
 * (owned by the set it was listed into), or NULL: the file of that name,
 * read raw. */
struct cp_partial_listed {
    char *path;
    const struct cp_partial_log *held;
};

/* List path as cp_logdir_list does, partials included (see above), the
 * valid partials and their logs entered into set.  *logs: the count
 * returned of them, sorted by path, freed with cp_partial_listed_free;
 * *notes: an array of *nnotes problems with partials (free()); returns
 * the count of logs or -1 with err filled. */
int cp_partial_list(struct cp_partial_set *set, const char *path,
                    struct cp_partial_listed **logs, struct cp_error **notes,
                    size_t *nnotes, struct cp_error *err);
/* Free n logs listed and their paths (NULL ones skipped); accepts NULL. */
void cp_partial_listed_free(struct cp_partial_listed *logs, size_t n);

#endif
