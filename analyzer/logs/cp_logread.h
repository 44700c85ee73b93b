/* cp_logread.h - reading rank logs (format: include/collprof/cp_logfmt.h).
 *
 * A reader streams one file through a fixed buffer: memory does not grow with
 * the number of records.  Logs written on a machine of the other byte order
 * are swapped on the fly.  Problems are reported through struct cp_error,
 * never printed; a damaged record is skipped and counted, the rest is read.
 */
#ifndef COLLPROF_CP_LOGREAD_H
#define COLLPROF_CP_LOGREAD_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_logfmt.h"
#include "cp_error.h"
#include "cp_logswap.h" /* cp_rec_swap */
#include "cp_slotsrc.h"

struct cp_logfile; /* opaque */

/* Open path and check its header.  Returns NULL (err filled, naming the file
 * and the offset) for a missing, empty, foreign, truncated or newer file.
 * The caller owns the result: cp_logfile_close. */
struct cp_logfile *cp_logfile_open(const char *path, struct cp_error *err);

/* The header, in host byte order.  Owned by the reader. */
const struct cp_log_header *cp_logfile_header(const struct cp_logfile *lf);
/* The open descriptor of lf (owned by lf, or by its version-4 source
 * while lf holds it): the file that was checked, for a second reader
 * that must not look the name up again, valid until lf is closed; -1 for
 * a log held by a node partial. */
int cp_logfile_fd(const struct cp_logfile *lf);
/* Whether the log is of the other byte order. */
int cp_logfile_swapped(const struct cp_logfile *lf);
/* The source of lf's slots (cp_slotsrc.h): a log held by a node partial
 * (cp_partial_src.h) or a version-4 log (cp_log4src.h), positioned at the
 * first slot, handed to the caller (who closes it with cp_slotsrc_close);
 * lf reads nothing more.  None (ops NULL) for a raw log of one slot per
 * record. */
struct cp_slotsrc cp_logfile_take_src(struct cp_logfile *lf);

const char *cp_logfile_path(const struct cp_logfile *lf);

/* Next written record (host byte order) into *rec, its slot in *slot (may
 * be NULL).  Returns 1 for a record, 0 at the end.  Never-written slots are
 * skipped silently; slots of an unknown kind and a partial trailing record
 * are skipped and counted, and the first such problem is kept (see
 * cp_logfile_problem). */
int cp_logfile_next(struct cp_logfile *lf, union cp_rec *rec, uint64_t *slot);

/* Counts of what was skipped so far. */
struct cp_logfile_stats {
    uint64_t records;   /* records returned */
    uint64_t empty;     /* never-written slots */
    uint64_t bad;       /* slots of an unknown kind */
    uint64_t truncated; /* bytes of a partial record at the end */
};
void cp_logfile_stats(const struct cp_logfile *lf, struct cp_logfile_stats *st);

/* The first problem met while reading (file and offset), or NULL. */
const struct cp_error *cp_logfile_problem(const struct cp_logfile *lf);

/* Destroy; accepts NULL, keeps errno. */
void cp_logfile_close(struct cp_logfile *lf);

/* ---- one check per file --------------------------------------------------
 * The analysis reads every log in several passes.  The first open checks
 * the file (cp_logfile_open: a regular file, no link, a sound header) and
 * keeps what it found in a cp_logfile_known; later readers start from it
 * (cp_logfile_reopen, cp_scan_reopen_sized) without reading or checking
 * the header again.  The descriptor is kept open for them when the caller
 * asked for it (it holds a budget of descriptors below the limit on open
 * files); else each later reader opens the name again (O_NOFOLLOW unless
 * --follow-symlinks, O_NONBLOCK) and refuses a file that is not the one
 * checked (device and inode): a log swapped between passes is not read. */
struct cp_partial_log; /* cp_partial_src.h */
struct cp_logfile_known {
    struct cp_log_header hdr; /* host byte order, checked */
    uint64_t dev, ino;        /* the file checked */
    uint64_t size;            /* its size then, bytes */
    int fd;                   /* kept open (keep_fd), else -1 */
    int swapped;              /* of the other byte order */
    /* held by a node partial: the log of it that every reader started
     * from k reads (owned by the caller's cp_partial_set); NULL: raw */
    const struct cp_partial_log *partial;
};

/* Open and check path as cp_logfile_open does and fill *k; keep the
 * descriptor in k->fd when keep_fd (release it: cp_logfile_known_release).
 * 0, or -1 with err filled as by cp_logfile_open. */
int cp_logfile_check(const char *path, int keep_fd,
                     struct cp_logfile_known *k, struct cp_error *err);
/* The same, reading in the same system call the records that follow a
 * header of CP_LOG_HEADER_SIZE bytes: up to first_len bytes of them into
 * first, as they are in the file (not swapped), and their count into
 * *first_got (0 for a header of another size, for a version-4 log,
 * whose header is followed by its ring's index, or nothing past it).
 * Fewer than first_len bytes: the file ends there.  A version-4 log's
 * ring and stream fields are checked against the file's size
 * (cp_log4src_check).  A raw log: one held
 * by a node partial is checked by cp_logfile_check_held. */
int cp_logfile_check_first(const char *path, int keep_fd,
                           struct cp_logfile_known *k, void *first,
                           size_t first_len, size_t *first_got,
                           struct cp_error *err);
/* The check of a log held by a node partial (held: the log of it that
 * cp_partial_list gave for path): through its reader, with the checks of
 * cp_logfile_open; k->partial is held and k->fd -1.  0, or -1 with err
 * filled. */
int cp_logfile_check_held(const char *path, const struct cp_partial_log *held,
                          struct cp_logfile_known *k, struct cp_error *err);
/* Close k's descriptor if it kept one (k->fd becomes -1); accepts NULL. */
void cp_logfile_known_release(struct cp_logfile_known *k);
/* Close the n descriptors fds (the caller's, all distinct; the array is
 * sorted in place) in as few system calls as their numbers allow: one
 * close_range per run of consecutive descriptors, all of them in fds
 * (the descriptors the checks of thousands of logs kept are mostly
 * one run), close() for the rest and where close_range is refused.
 * Keeps errno. */
void cp_logfile_close_fds(int *fds, size_t n);
/* A reader of the log k describes (NULL k: cp_logfile_open), positioned
 * at the first slot: k->fd shared (not closed by cp_logfile_close), or
 * path opened again and checked to be the same file, or (k->partial) the
 * log read out of its partial again; NULL with err filled (naming the
 * file) when it cannot be opened or was replaced. */
struct cp_logfile *cp_logfile_reopen(const char *path,
                                     const struct cp_logfile_known *k,
                                     struct cp_error *err);
/* The slots of the raw version-4 log k describes (not one a partial
 * holds), as cp_logfile_take_src would give them from a reader
 * cp_logfile_reopen opened, without the reader (its 64 KiB buffer: a pass
 * over thousands of logs allocates none per log): *src the caller's
 * (cp_slotsrc_close).  0, or -1 with err filled. */
int cp_logfile_reopen_src(const char *path, const struct cp_logfile_known *k,
                          struct cp_slotsrc *src, struct cp_error *err);
/* Open path again as above: a new descriptor of the very file k was
 * checked on (the caller closes it), or -1 with err filled and errno set
 * (ESTALE: another file now has that name). */
int cp_logfile_reopen_fd(const char *path, const struct cp_logfile_known *k,
                         struct cp_error *err);

/* The rank logs of a directory (files ending in .cplog), sorted by name, or a
 * single file.  On success *paths is a NULL-terminated array the caller frees
 * with cp_logdir_free; returns the count, or -1 with err filled. */
int cp_logdir_list(const char *path, char ***paths, struct cp_error *err);

/* The end of listing a directory's N rank logs: sorts them by name and
 * returns N, or -1 with err filled when there are none. */
int cp_logdir_sorted(const char *path, char **paths, size_t n,
                     struct cp_error *err);
void cp_logdir_free(char **paths);

/* Times a job can have (docs/log-format.md, "Times no job can have"):
 * CLOCK_REALTIME ns from 2000-01-01 to 2100-01-01 UTC, an interval that
 * ends at or after its start, a log that spans at most a year (366 days).
 * Anything else is damage (a torn write, a broken clock, a writer's
 * overflow), never a measurement. */
#define CP_TIME_MIN_NS UINT64_C(946684800000000000)  /* 2000-01-01 UTC */
#define CP_TIME_MAX_NS UINT64_C(4102444800000000000) /* 2100-01-01 UTC */
#define CP_SPAN_MAX_NS UINT64_C(31622400000000000)   /* 366 days */

/* Why [start_ns, end_ns] is not an interval a job can have ("starts before
 * 2000", "ends after 2100", "ends before it starts", "lasts over a year"),
 * or NULL when it is.  A static string. */
const char *cp_log_time_problem(uint64_t start_ns, uint64_t end_ns);

/* Checks the header's start and end times (end 0: never closed): 0 when
 * they are times a job can have, else 1 with *offset the byte offset of the
 * bad field and why in buf ("start time 1970-01-01 00:00:01 UTC: before
 * 2000, a time no job can have"). */
int cp_log_header_time_problem(const struct cp_log_header *h, uint64_t *offset,
                               char *buf, size_t size);

#endif
