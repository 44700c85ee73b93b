/* cp_slotsrc.h - where a log's slots come from when they are not read
 * straight out of the file: the one interface the record readers
 * (cp_logread, cp_scan) call, whichever source is behind it.
 *
 * Two sources implement it:
 *   cp_partial_src (cp_partial_src.h)  a log held by a node partial;
 *   cp_log4src (cp_log4src.h)          a version-4 log (ring and stream).
 * Both give the log's slots, from its first slot on, as 64-byte slots in
 * the WRITER's byte order (the readers swap them as they swap a raw
 * log's), and both keep runs of never-written slots from being expanded.
 *
 * The contract, per function:
 *   read(impl, buf, len)  up to len bytes of slots from where the source
 *       stands: the count, 0 at the end, -1 when the source is damaged
 *       right there (problem says where).  A read that has produced bytes
 *       stops, short, where a run of never-written slots comes next.
 *   skip_empty(impl)  at a slot's start: past the never-written slots that
 *       come next, counted, not produced; their count (0: none next).
 *   park(impl)  give up the source's descriptor until the next read needs
 *       one (then opened again and checked to be the same file); a
 *       descriptor the source shares with its owner stays open.
 *   problem(impl)  the first damage met ("FILE: offset N: ..."), or NULL.
 *   close(impl)  destroy; accepts NULL, keeps errno.
 *   lend(impl, mem, len)  optional (NULL: the source takes none): memory
 *       of the caller's for the source's buffer, before the first read;
 *       mem must outlive the source.
 *   seek_time(impl, t, err)  optional (NULL: none): before the first
 *       read, skip to a slot before which no call starts at t or later
 *       (a version-4 log's sync points); that slot, 0: none skipped.
 * Nothing prints.  A struct cp_slotsrc with ops NULL is no source (a raw
 * log of one slot per record, read by offset).
 */
#ifndef COLLPROF_CP_SLOTSRC_H
#define COLLPROF_CP_SLOTSRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cp_error.h"

struct cp_slotsrc_ops {
    ssize_t (*read)(void *impl, void *buf, size_t len);
    uint64_t (*skip_empty)(void *impl);
    void (*park)(void *impl);
    const struct cp_error *(*problem)(const void *impl);
    void (*close)(void *impl);
    void (*lend)(void *impl, void *mem, size_t len);
    /* optional (NULL: reads start at the first slot): before the first
     * read, start at a sync point before time t (cp_log4src_seek); the
     * slot reads then start at, 0 from the start, -1 with err */
    int64_t (*seek_time)(void *impl, uint64_t t, struct cp_error *err);
};

struct cp_slotsrc {
    const struct cp_slotsrc_ops *ops; /* NULL: none */
    void *impl;                       /* owned by whoever holds the struct */
};

static inline int cp_slotsrc_is(const struct cp_slotsrc *s)
{
    return s->ops != NULL;
}

static inline ssize_t cp_slotsrc_read(struct cp_slotsrc *s, void *buf,
                                      size_t len)
{
    return s->ops->read(s->impl, buf, len);
}

static inline uint64_t cp_slotsrc_skip_empty(struct cp_slotsrc *s)
{
    return s->ops->skip_empty(s->impl);
}

static inline void cp_slotsrc_park(struct cp_slotsrc *s)
{
    if (s->ops)
        s->ops->park(s->impl);
}

static inline const struct cp_error *
cp_slotsrc_problem(const struct cp_slotsrc *s)
{
    return s->ops ? s->ops->problem(s->impl) : NULL;
}

static inline void cp_slotsrc_lend(struct cp_slotsrc *s, void *mem,
                                   size_t len)
{
    if (s->ops && s->ops->lend)
        s->ops->lend(s->impl, mem, len);
}

static inline int64_t cp_slotsrc_seek_time(struct cp_slotsrc *s, uint64_t t,
                                           struct cp_error *err)
{
    return s->ops && s->ops->seek_time ? s->ops->seek_time(s->impl, t, err)
                                       : 0;
}

/* Close the source (if any) and leave s as none; keeps errno. */
static inline void cp_slotsrc_close(struct cp_slotsrc *s)
{
    if (s->ops)
        s->ops->close(s->impl);
    s->ops = NULL;
    s->impl = NULL;
}

#endif
