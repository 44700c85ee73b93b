/* cp_scan.h - records of a rank log in place, for the analyzer's hot loop.
 *
 * cp_logread's cp_logfile_next() copies each record out through a function
 * call; at tens of millions of records a second that copy and call are a
 * quarter of the analyzer's time.  A scan validates the file exactly as
 * cp_logfile_open() does (it calls it), or starts from such a check made
 * before (cp_scan_reopen_sized, cp_scan_reopen_in: cp_logread.h's
 * cp_logfile_known, the header not read again), then reads the records
 * through its
 * own fixed buffer and hands out pointers into it: cp_scan_next() is inline
 * and copies nothing (records of the other byte order are swapped in the
 * buffer as it is filled).  The analyzer's hot loop walks the buffer itself
 * (cp_scan_cursor, cp_scan_window_end, cp_scan_seek, cp_scan_skip,
 * cp_scan_refill).  Skipping rules and
 * problem messages are those of cp_logread: never-written slots are skipped
 * silently, slots of an unknown kind and a partial trailing record are
 * skipped and counted, the first problem is kept with its offset.
 *
 * Memory: one buffer per open scan, CP_SCAN_BUFFER bytes or the size
 * given to cp_scan_open_sized (a caller with many files at once divides a
 * fixed budget among them; cp_scan_reopen_in builds a scan in the
 * caller's memory).  Reads are by offset (pread); one that comes back
 * short is the end of the file, nothing more is asked of it.  Descriptors:
 * one per scan, or the one a cp_logfile_known kept (shared, not closed by
 * the scan), unless the scan is parked (cp_scan_park): then each refill
 * opens the file, checks that it is the same file (device and inode),
 * reads and closes it, so that a caller can hold more scans than the limit
 * on open files.
 */
#ifndef COLLPROF_CP_SCAN_H
#define COLLPROF_CP_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_logfmt.h"
#include "cp_error.h"
#include "cp_logread.h"
#include "cp_slotsrc.h"

#define CP_SCAN_BUFFER (64 * 1024)
#define CP_SCAN_BUFFER_MIN 4096
/* The read buffers of all files together: a file's buffer is this
 * divided among the files (at most CP_SCAN_BUFFER, at least
 * CP_SCAN_BUFFER_MIN each), so that memory does not grow with the ranks.
 * The analysis's scans and the logs read from node partials
 * (cp_partial_src.c) each divide one such budget. */
#define CP_SCAN_BUDGET ((size_t)32 << 20)

struct cp_scan {
    /* the fields of the hot loop first: one cache line */
    union cp_rec *buf;         /* buf_size bytes, 64-byte aligned */
    size_t fill, pos;          /* valid bytes in buf, next record */
    uint64_t buf_offset;       /* file offset of buf[0] */
    size_t buf_size;
    int fd;                    /* -1 while parked */
    int swapped;
    int parked;                /* no descriptor kept between refills */
    int fd_borrowed;           /* fd is a cp_logfile_known's: not closed */
    int eof;                   /* a read came back short: nothing more */
    int in_place;              /* in a caller's memory (cp_scan_reopen_in) */
    int resumable;             /* closed, its buffer the file's first bytes */
    int have_problem;
    uint32_t header_size;
    uint64_t dev, ino;         /* the file the scan was opened on */
    struct cp_logfile_stats st; /* empty, bad, truncated (records: derived) */
    char *path;
    /* the slots of a log held by a node partial or of a version-4 log
     * (cp_slotsrc.h), else none: read by offset from fd */
    struct cp_slotsrc src;
    /* read-ahead (cp_scan_pool): the next buffer, filled by a reader
     * thread; its state is guarded by the pool's lock */
    struct cp_scan_pool *pool;
    union cp_rec *ahead;
    size_t ahead_fill;
    uint64_t ahead_offset;     /* file offset it was read from */
    int ahead_state, ahead_ok, in_queue;
    /* host byte order: the cp_logfile_known's (cp_scan_reopen_in), else
     * own_hdr; the first problem, allocated when there is one: a scan in
     * a caller's memory is a few hundred bytes besides its buffer, for
     * tens of thousands of them at once */
    const struct cp_log_header *hdr;
    struct cp_log_header *own_hdr;
    struct cp_error *problem;
};

/* Open and validate path (as cp_logfile_open).  NULL with err filled (the
 * file and offset named) when it is not a readable log.  The caller owns
 * the result: cp_scan_close. */
struct cp_scan *cp_scan_open(const char *path, struct cp_error *err);
/* The same with a buffer of buf_size bytes (rounded down to whole records,
 * at least CP_SCAN_BUFFER_MIN). */
struct cp_scan *cp_scan_open_sized(const char *path, size_t buf_size,
                                   struct cp_error *err);
/* A scan of the log k describes (cp_logread.h, cp_logfile_check): the
 * header is not read or checked again; k's descriptor is shared (the scan
 * does not close it, and parking keeps it), or path is opened again and
 * must be the same file.  NULL with err filled (the file named). */
struct cp_scan *cp_scan_reopen_sized(const char *path,
                                     const struct cp_logfile_known *k,
                                     size_t buf_size, struct cp_error *err);
/* The same built in the caller's memory mem (cp_scan_place_size bytes,
 * 64-byte aligned): the scan, its buffer of buf_size bytes (rounded as
 * by cp_scan_open_sized) and, when ahead, the read-ahead's second buffer;
 * nothing is allocated for a raw log, so that a pass over thousands of
 * files makes one allocation, not three per file.  path and k must
 * outlive the scan (its header is k's).  cp_scan_close releases what the scan holds (its own descriptor,
 * a partial's reader), never mem.  NULL with err filled. */
size_t cp_scan_place_size(size_t buf_size, int ahead);
struct cp_scan *cp_scan_reopen_in(void *mem, const char *path,
                                  const struct cp_logfile_known *k,
                                  size_t buf_size, int ahead,
                                  struct cp_error *err);
/* As cp_scan_reopen_in, with flags:
 * CP_SCAN_RESUME: mem may hold a scan closed before (the caller knows it:
 *   memory a cp_scan_place_in or cp_scan_reopen_in was given and nothing
 *   else wrote since).  When that scan was of the same file (device and
 *   inode), with the same buffer size, and its buffer still holds the
 *   file's first records, they are used as they were read then instead of
 *   being read again: a pass over many small logs after a pass over their
 *   first records saves a read per file.
 * CP_SCAN_PARKED: parked from the start (cp_scan_park): a log whose check
 *   kept no descriptor is not opened now but at each refill (and checked
 *   then to be k's file; one replaced or removed meanwhile is the scan's
 *   problem), so that a pass over more logs than the limit on open files
 *   opens each once per read, not once more to create its scan. */
#define CP_SCAN_RESUME 1u
#define CP_SCAN_PARKED 2u
struct cp_scan *cp_scan_place_in(void *mem, const char *path,
                                 const struct cp_logfile_known *k,
                                 size_t buf_size, int ahead, unsigned flags,
                                 struct cp_error *err);

/* The first check of a log (cp_logread.h: cp_logfile_check_first, *k
 * filled, the descriptor kept when keep_fd) made in mem, a place for a
 * scan of buf_size bytes (as for cp_scan_place_in): the header and the
 * first buffer of records are read in one system call, and mem is left
 * as a scan closed after its first buffer, which the first
 * cp_scan_place_in (CP_SCAN_RESUME) of the same file and size takes up
 * instead of reading it again.  held: the log of a node partial that path
 * is read from (cp_partial_list), checked by cp_logfile_check_held (mem
 * left as no scan), or NULL for a raw log.  0, or -1 with err filled as
 * by cp_logfile_check. */
int cp_scan_check_in(void *mem, const char *path,
                     const struct cp_partial_log *held, int keep_fd,
                     size_t buf_size, struct cp_logfile_known *k,
                     struct cp_error *err);

/* Give up the scan's descriptor until its next refill, and from then on
 * after every refill (see the top). */
void cp_scan_park(struct cp_scan *s);

/* Before the first record is read (no buffer filled, no read-ahead): a
 * version-4 log with sync points starts at the last one before which no
 * call starts at t or later (raw ns of the log's clock; cp_log4src_seek),
 * the slots before it not read (cp_scan_slots counts them: slot numbers
 * stay those of the whole log).  The slot it starts at (0: from the
 * start: a log without sync points, a node partial's, a scan already
 * read), or -1 with err naming the file and the damaged sync point's
 * offset (the scan then reads from the start). */
int64_t cp_scan_seek_time(struct cp_scan *s, uint64_t t, struct cp_error *err);

/* Refill the buffer once fewer than CP_LOG_RECORD_SIZE unread bytes are
 * left in it (records of the other byte order are swapped in place).
 * Returns 0 at the end of the file. */
int cp_scan_refill(struct cp_scan *s);
/* Note a slot of an unknown kind (r: in the buffer); see cp_scan_skip. */
void cp_scan_bad_kind(struct cp_scan *s, const union cp_rec *r);

/* Whether the slot r holds a record (kind 1 .. CP_REC_KIND_MAX - 1). */
static inline int cp_scan_is_record(const union cp_rec *r)
{
    return (unsigned)r->kind - 1u < (unsigned)CP_REC_KIND_MAX - 1u;
}

/* Count the slot r that is not a record: never written (silently) or of
 * an unknown kind (a problem, with its offset). */
static inline void cp_scan_skip(struct cp_scan *s, const union cp_rec *r)
{
    if (r->kind == CP_REC_EMPTY)
        s->st.empty++;
    else
        cp_scan_bad_kind(s, r);
}

/* Walking the buffer in place: the unread whole slots are
 * [cp_scan_cursor(s), cp_scan_window_end(s)); a caller that consumed them
 * up to p says so with cp_scan_seek(s, p) before anything else reads the
 * scan (cp_scan_next, cp_scan_refill, the counts and offsets below). */
static inline const union cp_rec *cp_scan_cursor(const struct cp_scan *s)
{
    return (const union cp_rec *)((const char *)s->buf + s->pos);
}

static inline const union cp_rec *cp_scan_window_end(const struct cp_scan *s)
{
    return (const union cp_rec *)((const char *)s->buf +
                                  (s->fill & ~(size_t)(CP_LOG_RECORD_SIZE - 1)));
}

static inline void cp_scan_seek(struct cp_scan *s, const union cp_rec *p)
{
    s->pos = (size_t)((const char *)p - (const char *)s->buf);
}

/* The next written record (host byte order), valid until the next call;
 * NULL at the end of the file.  Only the buffer position moves per record:
 * the slot and record counts are derived from it (cp_scan_stats). */
static inline const union cp_rec *cp_scan_next(struct cp_scan *s)
{
    for (;;) {
        const union cp_rec *r;
        if (__builtin_expect(s->pos + CP_LOG_RECORD_SIZE > s->fill, 0))
            if (!cp_scan_refill(s))
                return NULL;
        r = (const union cp_rec *)((const char *)s->buf + s->pos);
        s->pos += CP_LOG_RECORD_SIZE;
        if (__builtin_expect(!cp_scan_is_record(r), 0)) {
            cp_scan_skip(s, r);
            continue;
        }
        return r;
    }
}

/* Slots consumed so far (written or not). */
static inline uint64_t cp_scan_slots(const struct cp_scan *s)
{
    return (s->buf_offset + s->pos - s->header_size) / CP_LOG_RECORD_SIZE;
}

/* Records returned so far. */
static inline uint64_t cp_scan_records(const struct cp_scan *s)
{
    return cp_scan_slots(s) - s->st.empty - s->st.bad;
}

/* Counts of what was read and skipped (as cp_logfile_stats). */
static inline void cp_scan_stats(const struct cp_scan *s,
                                 struct cp_logfile_stats *st)
{
    *st = s->st;
    st->records = cp_scan_records(s);
}

/* The byte offset in the file of the record cp_scan_next returned last. */
static inline uint64_t cp_scan_offset(const struct cp_scan *s)
{
    return s->buf_offset + s->pos - CP_LOG_RECORD_SIZE;
}

static inline const struct cp_log_header *cp_scan_header(const struct cp_scan *s)
{
    return s->hdr;
}

static inline const struct cp_error *cp_scan_problem(const struct cp_scan *s)
{
    return s->have_problem ? s->problem : NULL;
}

/* Destroy; accepts NULL, keeps errno.  A scan attached to a pool must be
 * closed only after cp_scan_pool_stop. */
void cp_scan_close(struct cp_scan *s);

/* ---- read-ahead ----------------------------------------------------------
 * A pool of reader threads fills, for every scan attached to it, the
 * buffer after the one being walked, so that the caller's thread finds
 * the next records read (and byte-swapped) when it refills.  The records a
 * scan hands out, their order and every count and problem are exactly
 * those without a pool: only where the reading happens changes.  Each
 * attached scan has a second buffer of its size.  Scans of a slot source
 * (a node partial's log, a version-4 log) are not read ahead. */
struct cp_scan_pool;

/* Start threads readers; NULL when threads is 0 or they cannot start (the
 * scans are then read on the caller's thread). */
struct cp_scan_pool *cp_scan_pool_start(unsigned threads, size_t max_scans);
/* Read s ahead from now on; -1 (s unchanged) when memory ran out. */
int cp_scan_pool_attach(struct cp_scan_pool *pool, struct cp_scan *s);
/* Stop the threads and detach every scan (what was read ahead and not yet
 * used is dropped: the scans read it again); accepts NULL. */
void cp_scan_pool_stop(struct cp_scan_pool *pool);

#endif
