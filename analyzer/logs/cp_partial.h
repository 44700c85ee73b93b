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
 * with the partial log it is read from (NULL: the raw file), entered into
 * a set the caller holds (struct cp_partial_set), so that the first check
 * of that name (cp_logfile_check_held, cp_scan_check_in) and every reader
 * started from it read it from the partial.  A partial that is unreadable
 * or damaged anywhere is named in a note and its node's raw logs are
 * listed instead; a node with raw logs and no partial, where other nodes
 * have one, is named too.
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

#define CP_PARTIAL_MAGIC "CPPARTL\n" /* 8 bytes, no NUL */
#define CP_PARTIAL_VERSION 1u
#define CP_PARTIAL_SUFFIX ".cppart"
#define CP_PARTIAL_HEADER_SIZE 128u
#define CP_PARTIAL_ENTRY_SIZE 192u
#define CP_PARTIAL_NAME_LEN 128u /* a log's file name, NUL included */
/* A slot of kind 1 .. CP_PARTIAL_KINDS - 1 is stored against the previous
 * slot of its kind, one of any other kind against zeros: a reader keeps
 * at most CP_PARTIAL_KINDS - 1 previous slots per log (960 bytes), what
 * the log claims whatever (every record kind of the format is below). */
#define CP_PARTIAL_KINDS 16u

/* Opcodes of a log's slot stream (docs/partial-format.md). */
enum cp_partial_op {
    CP_PARTIAL_OP_EMPTY = 0,   /* varint n: n never-written slots */
    CP_PARTIAL_OP_SLOT = 1,    /* kind, varint mask, changed bytes */
    CP_PARTIAL_OP_TAIL = 2,    /* varint n (< record size), n bytes */
    CP_PARTIAL_OP_END = 3
};

/* What cp_partial_reduce wrote. */
struct cp_partial_stats {
    unsigned logs;      /* logs of the node encoded */
    unsigned other;     /* logs of other nodes, left out */
    unsigned unreadable; /* logs whose header could not be read, left out
                            (the merge reads them raw and names them) */
    uint64_t raw_bytes; /* the encoded logs' sizes */
    uint64_t bytes;     /* the partial's size */
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

struct cp_partial_set; /* the checked partials of a merge and their logs */
struct cp_partial_log; /* one of those logs (owned by its set) */

/* An empty set, or NULL without memory.  The caller owns it and destroys
 * it (cp_partial_set_destroy) once every reader of its logs is closed. */
struct cp_partial_set *cp_partial_set_create(void);
/* Destroy, closing the partials' descriptors it kept; accepts NULL, keeps
 * errno. */
void cp_partial_set_destroy(struct cp_partial_set *set);

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

/* ---- reading a log held by a partial ------------------------------------ */

struct cp_partial_src; /* an open one: opaque */

/* Open log (from cp_partial_list): through the descriptor kept from the
 * partial's check when the limit on open files allowed one per partial
 * (shared by its logs), else the partial again by cp_path's rules,
 * refused unless it is the file checked (device and inode).  NULL with
 * err filled.  The caller owns the result: cp_partial_src_close. */
struct cp_partial_src *cp_partial_src_open(const struct cp_partial_log *log,
                                           struct cp_error *err);
/* Read up to len bytes of the log at the current position, as read(2)
 * would from the log itself: returns the count, 0 at its end, -1 when the
 * partial is damaged there (cp_partial_src_problem says where).  A read
 * that has produced bytes stops, short, where a run of never-written
 * slots goes on: the caller skips it (cp_partial_src_skip_empty) instead
 * of having it expanded (a partial of a few bytes may hold runs of
 * 2^28 slots: 16 GiB of zeros). */
ssize_t cp_partial_src_read(struct cp_partial_src *src, void *buf, size_t len);
/* At a slot's start, past the never-written slots that come next (the
 * runs' slots, counted, not produced): their count, 0 when a written slot,
 * the tail or the end comes next (or damage, which the next read
 * reports). */
uint64_t cp_partial_src_skip_empty(struct cp_partial_src *src);
/* Move to offset pos of the log: anywhere up to the first slot before the
 * slots were read, else only where it is.  0 or -1. */
int cp_partial_src_seek(struct cp_partial_src *src, uint64_t pos);
/* Close the partial's descriptor until the next read needs it (which
 * opens it again and checks it is the same file): a merge of many logs
 * holds few descriptors.  A shared descriptor stays open. */
void cp_partial_src_park(struct cp_partial_src *src);
/* The log's size. */
uint64_t cp_partial_src_size(const struct cp_partial_src *src);
/* The first damage met ("PARTIAL: offset N: ..."), or NULL. */
const struct cp_error *cp_partial_src_problem(const struct cp_partial_src *src);
/* Destroy; accepts NULL, keeps errno. */
void cp_partial_src_close(struct cp_partial_src *src);

#endif
