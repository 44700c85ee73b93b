/* cp_logring.h - version 4's ring and stream (cp_logring.c), below the
 * log writer's face (cp_logwrite.h: cp_log_slot claims a cell here).  Not
 * for callers: they use cp_logwrite.h. */
#ifndef COLLPROF_CP_LOGRING_H
#define COLLPROF_CP_LOGRING_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_error.h"
#include "cp_logfile.h"

#ifndef MADV_POPULATE_WRITE
#define CP_MADV_POPULATE_WRITE 23
#else
#define CP_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#endif

/* After the header is mapped and filled: the ring of ring_slots cells (a
 * power of two, else the default) after it, the stream after the ring,
 * the header's version-4 fields.  0, or -1 with err filled. */
int cp_log_ring_open(struct cp_log *log, uint32_t ring_slots,
                     uint32_t dict_slots, const struct cp_policy_cfg *policy,
                     struct cp_error *err);
/* The log thread; -1 when it cannot be made (writers then encode). */
int cp_log_ring_start(struct cp_log *log);
/* After the log thread stopped: encode and write every finished slot
 * (and, under a capture policy, the last interval's aggregates after
 * them), give the ring's blocks back when nothing is left in it, cut the
 * file at the stream's end.  used: the slots handed out; returns the
 * slots the log holds (used and the aggregates). */
uint64_t cp_log_ring_close(struct cp_log *log, uint64_t used);

/* Format 4, out of line: the cell of slot s when the ring is half full or
 * more (wakes the log thread, or waits for room).  NULL when there is
 * none. */
union cp_rec *cp_log_ring_slow(struct cp_log *log, uint64_t s);

/* Format 4: claim cell p for slot s (its kind 0, then its index s). */
static inline __attribute__((always_inline)) union cp_rec *
cp_log_ring_claim(struct cp_log_ring *r, uint64_t s)
{
    union cp_rec *rec = &r->cell[s & r->mask];

    __atomic_store_n(&rec->kind, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&r->index[s & r->mask], s, __ATOMIC_RELEASE);
    cp_log_prefetch_write(&r->cell[(s + CP_LOG_PREFETCH_SLOTS) & r->mask]);
    /* the index's line of 8 slots, a few lines ahead */
    cp_log_prefetch_write(&r->index[(s + 4 * CP_LOG_PREFETCH_SLOTS) & r->mask]);
    return rec;
}

#endif
