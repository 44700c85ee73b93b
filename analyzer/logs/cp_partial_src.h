/* cp_partial_src.h - node partials below the log readers: the format's
 * constants, the partials of a merge and the logs they hold (a
 * cp_partial_set, filled by cp_partial_list), and reading one of those
 * logs out of its partial (cp_partial_src), which cp_logread and cp_scan
 * do for a log whose check was handed its partial log (cp_logread.h:
 * cp_logfile_known.partial).  Format: docs/partial-format.md; writing,
 * checking and listing partials: cp_partial.h.
 *
 * Nothing here prints.  Decoding is bounded by the sizes the partial's
 * checked index gives; errors name the partial and the offset.
 */
#ifndef COLLPROF_CP_PARTIAL_SRC_H
#define COLLPROF_CP_PARTIAL_SRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cp_error.h"
#include "cp_slotsrc.h"

/* ---- the format ------------------------------------------------------------ */

#define CP_PARTIAL_MAGIC "CPPARTL\n" /* 8 bytes, no NUL */
#define CP_PARTIAL_VERSION 2u     /* written; read: 1 and 2 */
#define CP_PARTIAL_VERSION_MIN 1u
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
    CP_PARTIAL_OP_END = 3,
    CP_PARTIAL_OP_CALL = 4,    /* version 2: a call against the previous
                                  call: varint mask, changed bytes but seq
                                  and times, then seq and times as deltas */
    CP_PARTIAL_OP_CALL_NEXT = 5 /* version 2: the same with nothing else
                                   changed and seq one more: the times */
};
/* The call record's bytes that CP_PARTIAL_OP_CALL gives as numbers, read
 * little-endian whatever the log's byte order (a log of the other order
 * is as lossless, only larger): seq (4 bytes), start_ns, end_ns (8). */
#define CP_PARTIAL_CALL_SEQ 24u
#define CP_PARTIAL_CALL_START 48u
#define CP_PARTIAL_CALL_END 56u
/* the mask of OP_CALL: bit k - 1 for byte k of the slot, those bytes off */
#define CP_PARTIAL_CALL_NUMBERS                                                \
    (0xfull << (CP_PARTIAL_CALL_SEQ - 1) |                                     \
     0xffffull << (CP_PARTIAL_CALL_START - 1))

/* The partial's little-endian numbers (its header, index and the numbers
 * of CP_PARTIAL_OP_CALL), whatever the machine's byte order. */
static inline uint32_t cp_partial_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static inline uint64_t cp_partial_get64(const unsigned char *p)
{
    return (uint64_t)cp_partial_get32(p) |
           (uint64_t)cp_partial_get32(p + 4) << 32;
}

static inline void cp_partial_put32(unsigned char *p, uint32_t v)
{
    int i;

    for (i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void cp_partial_put64(unsigned char *p, uint64_t v)
{
    cp_partial_put32(p, (uint32_t)v);
    cp_partial_put32(p + 4, (uint32_t)(v >> 32));
}

/* One entry of a partial's index, decoded (offsets in the partial). */
struct cp_partial_entry {
    char name[CP_PARTIAL_NAME_LEN]; /* the log's file name */
    uint64_t offset, size;          /* its section */
    uint64_t raw_size, sum, slots;  /* the log's size, the section's
                                       checksum, the log's slots */
    int32_t global_rank;
    uint32_t header_bytes, header_size;
};

/* ---- the partials of a merge ---------------------------------------------- */

struct cp_partial_set; /* the checked partials of a merge and their logs */
struct cp_partial_log; /* one of those logs (owned by its set) */

/* An empty set, or NULL without memory.  The caller owns it and destroys
 * it (cp_partial_set_destroy) once every reader of its logs is closed. */
struct cp_partial_set *cp_partial_set_create(void);
/* Destroy, closing the partials' descriptors it kept; accepts NULL, keeps
 * errno. */
void cp_partial_set_destroy(struct cp_partial_set *set);

/* Enter the checked partial path (fd: its descriptor from the check,
 * given over, or -1; dev, ino: the file checked) into set.  The
 * descriptor is kept, and shared by its logs' readers, while the set
 * keeps fewer than a quarter of the limit on open files, else closed (its
 * logs' readers open the partial again).  Its number in the set, or -1
 * without memory (fd closed). */
long cp_partial_set_add_file(struct cp_partial_set *set, const char *path,
                             int fd, uint64_t dev, uint64_t ino);
/* Enter the log that the entry e of the set's partial number file
 * describes, listed as path: the log, owned by set, or NULL without
 * memory. */
const struct cp_partial_log *
cp_partial_set_add_log(struct cp_partial_set *set, long file, const char *path,
                       const struct cp_partial_entry *e);

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
/* The first damage met ("PARTIAL: offset N: ..."), or NULL. */
const struct cp_error *cp_partial_src_problem(const struct cp_partial_src *src);
/* Destroy; accepts NULL, keeps errno. */
void cp_partial_src_close(struct cp_partial_src *src);
/* src as a cp_slotsrc, from where it stands (seek it to the first slot
 * before): closing the slotsrc closes src. */
struct cp_slotsrc cp_partial_src_slots(struct cp_partial_src *src);

#endif
