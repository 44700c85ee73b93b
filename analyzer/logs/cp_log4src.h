/* cp_log4src.h - the slots of a version-4 rank log: its stream of blocks
 * decoded, then its ring (include/collprof/cp_logfmt.h, "version 4";
 * docs/log-format.md, "Version 4").
 *
 * A cp_log4src gives the log's slots 0, 1, 2 ... as 64-byte slots in the
 * writer's byte order, through the interface of cp_slotsrc.h (the record
 * readers cp_logread and cp_scan use it so; cp_partial encodes a version-4
 * log's slots through it).  The blocks are read from stream_offset in
 * order; a block that starts at or past stream_offset + stream_end and is
 * cut short or fails a check is one the writer had not finished: the
 * stream ends there quietly.  Before stream_end it is damage: the
 * problem names the file and the byte offset, the slots decoded before it
 * stand, and the stream ends there.  Then the ring: slot S, S + 1 ... for
 * as long as cell s % ring_slots has index s (a kind-0 cell: a
 * never-written slot), each cell's index read again after the cell (a log
 * still being written gives a consistent prefix).
 *
 * Memory: the source (its path in the same allocation), one buffer of
 * CP_LOG4_BLOCK_MAX bytes (a block, then the ring's cells a few at a
 * time; allocated at the first read, or memory the caller lends, with the
 * buffer allocated only for a block larger than it) and the signatures the stream defines, grown as they
 * are defined, at most the header's dict_slots (<= CP_LOG4_DICT_MAX); no
 * count the file claims sizes anything else.  Nothing prints.
 */
#ifndef COLLPROF_CP_LOG4SRC_H
#define COLLPROF_CP_LOG4SRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collprof/cp_logfmt.h"
#include "cp_error.h"
#include "cp_slotsrc.h"

/* Check the version-4 fields of h (host byte order, a version-4 header
 * already checked otherwise) against a file of file_size bytes: ring_slots
 * a power of two in [CP_LOG4_RING_MIN, CP_LOG4_RING_MAX], dict_slots at
 * most CP_LOG4_DICT_MAX, the ring (index and cells) inside the file and
 * past the header, the stream's start past the ring and inside the file.
 * 0, or -1 with err filled ("PATH: offset N: ..." where N is the field's
 * offset in the header). */
int cp_log4src_check(const char *path, const struct cp_log_header *h,
                     uint64_t file_size, struct cp_error *err);

struct cp_log4src; /* opaque */

/* A source of the slots of the version-4 log path, open on fd (the file
 * checked; dev, ino: its device and inode), h its header in host byte
 * order (checked by cp_log4src_check), swapped: the log is of the other
 * byte order.  own_fd: the source closes fd (when closed or parked, and
 * opens path again, checked to be dev/ino, when it reads after a park);
 * else fd is the caller's and must outlive the source.  NULL with err
 * filled (out of memory).  The caller owns the result: cp_log4src_close. */
struct cp_log4src *cp_log4src_open(const char *path, int fd, int own_fd,
                                   uint64_t dev, uint64_t ino,
                                   const struct cp_log_header *h, int swapped,
                                   struct cp_error *err);

/* Lend the source len bytes at mem for its block (before the first
 * read; mem must outlive the source): a block that fits is read and
 * decoded there, a larger one in the source's own buffer.  Two blocks
 * (2 x CP_LOG4_BLOCK_MAX) or more, and not following: a window of the
 * file, the blocks after the current one read with it, one read for
 * several.  Less than CP_LOG4_LEND_MIN is not taken. */
#define CP_LOG4_LEND_MIN 1024
void cp_log4src_lend(struct cp_log4src *s, void *mem, size_t len);

/* The cp_slotsrc.h functions (see there). */
ssize_t cp_log4src_read(struct cp_log4src *s, void *buf, size_t len);
uint64_t cp_log4src_skip_empty(struct cp_log4src *s);
/* Slots the capture policy folded into aggregates (CP_LOG4_FOLD), decoded
 * so far: given as never-written slots, counted here apart. */
uint64_t cp_log4src_folded(const struct cp_log4src *s);
void cp_log4src_park(struct cp_log4src *s);
const struct cp_error *cp_log4src_problem(const struct cp_log4src *s);
void cp_log4src_close(struct cp_log4src *s);

/* Before the first read: start at the last sync point (CP_HDR_SYNC,
 * cp_logfmt.h) whose latest call start before it is earlier than t, found
 * by bisection over the sync points (a block read each, log2 of their
 * number), so that no record before it is a call that starts at t or
 * later.  The slot the reads then start at (0: from the start, a log
 * without sync points or none early enough), or -1 with err naming the
 * file and the offset of a damaged sync point (the source is left at the
 * start: reading on reads the whole log).  The records before the
 * returned slot are not read (their ring cells and the stream's
 * definitions included). */
int64_t cp_log4src_seek(struct cp_log4src *s, uint64_t t, struct cp_error *err);

/* Whether the log has sync points (the header's CP_HDR_SYNC). */
int cp_log4src_has_sync(const struct cp_log4src *s);

/* s as a cp_slotsrc (s stays the caller's: closing the slotsrc closes s). */
struct cp_slotsrc cp_log4src_slots(struct cp_log4src *s);

/* Following a log that is still being written (collprof watch): set
 * before the first read.  Reads then give the stream's slots only, up to
 * the stream_end the header last gave (never a block past it), and
 * return 0 there (not the end: the source waits); cp_log4src_refresh
 * reads the header again and lets the next read go on.  The slots past
 * the stream, which the ring holds and which may still change (a call in
 * flight has end_ns 0), are read apart with cp_log4src_ring.  Damage
 * before stream_end ends the source as without following. */
void cp_log4src_follow(struct cp_log4src *s);

/* Read the header's stream_end, stream_slots and flags again.  1 when
 * the writer has closed the log and every slot it handed out has been
 * read, 0 while more may come, -1 with err (the file replaced, removed
 * or cut short). */
int cp_log4src_refresh(struct cp_log4src *s, struct cp_error *err);

/* The number of the next slot a read gives (slots given so far). */
uint64_t cp_log4src_next_slot(const struct cp_log4src *s);

/* Following, after a read returned 0: fn(arg, slot, rec) for each slot
 * the ring holds from cp_log4src_next_slot() on, in order, as long as
 * the cells hold consecutive slots that are written (64 bytes in the
 * writer's byte order; valid during the call).  The slots are not
 * consumed: the stream gives them again once they are encoded.  The
 * count, or -1 when not following or not at the stream's end.  When the
 * writer has moved on (the cell of the next slot reused since the last
 * refresh), the count is 0: refresh, read, and ask again. */
long cp_log4src_ring(struct cp_log4src *s,
                     void (*fn)(void *arg, uint64_t slot, const void *rec),
                     void *arg);

/* What the source met, for a reader that shows a log's structure
 * (collprof dump --all): each block it read (or tried to) and each ring
 * cell it took a slot from, in that order. */
enum cp_log4_part_kind {
    CP_LOG4_PART_BLOCK = 1, /* a block: whole (ok) or not */
    CP_LOG4_PART_CELL = 2   /* a ring cell that held a slot */
};
enum cp_log4_block_state {
    CP_LOG4_BLOCK_OK = 0,      /* whole and sound (its ops decoded next) */
    CP_LOG4_BLOCK_TORN = 1,    /* past stream_end, unfinished: quiet end */
    CP_LOG4_BLOCK_DAMAGED = 2  /* before stream_end: the problem */
};
struct cp_log4_part {
    enum cp_log4_part_kind kind;
    /* a block */
    uint64_t offset;     /* of its header in the file */
    uint64_t first_slot; /* as its header says */
    uint32_t slots, bytes; /* as its header says */
    int sum_ok;          /* its payload's sum matches (0: not read whole) */
    enum cp_log4_block_state state;
    /* a cell */
    uint32_t cell;       /* its number in the ring */
    uint64_t slot;       /* the slot it held */
    uint8_t rec_kind;    /* that slot's kind byte */
};
/* Call fn(arg, part) for each part as the reads meet it (set before the
 * first read; NULL: none). */
void cp_log4src_observe(struct cp_log4src *s,
                        void (*fn)(void *arg, const struct cp_log4_part *part),
                        void *arg);

#endif
