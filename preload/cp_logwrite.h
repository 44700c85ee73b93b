/* cp_logwrite.h - the writer side of a rank log (format: cp_logfmt.h).
 *
 * One log per process.  Slots are handed out with one atomic add and live in
 * file-backed shared mappings, so a record is in the page cache (and
 * survives SIGKILL of the process) as soon as it is stored.  The file grows
 * by whole chunks whose blocks are reserved (zeros written with pwrite)
 * before they are mapped: a full disk is an error at growth time, never a
 * SIGBUS later.
 *
 * Making a page of a file-backed mapping writable costs the kernel several
 * microseconds (page allocation, zeroing, the filesystem's dirty tracking),
 * about 90 ns per record if paid by the caller.  A background thread
 * ("collprof-log") therefore prepares the next CP_LOG_AHEAD chunks, pages
 * already writable, while the current one fills: the thread calling NCCL
 * only stores its record.  It prepares without holding the lock the writer
 * takes once per chunk, and keeps several chunks ahead so that a loaded
 * machine that leaves it without a core for a few ms does not make the
 * caller wait.  If it falls behind anyway, the caller maps the chunk itself.
 *
 * Under a hypervisor that shadows page tables, the first access to each
 * newly mapped page from user space costs another 20-40 us (measured on
 * this project's VM), MADV_POPULATE_WRITE or not: the preparer reads a byte
 * of each page after publishing a chunk, from the last page down, and stops
 * where the writer is, so that a writer that catches up shares the chunk's
 * pages with it instead of waiting.  Within a page, the writer prefetches
 * the slot CP_LOG_PREFETCH_SLOTS ahead for writing, so its first store into
 * a record does not wait for a read-for-ownership miss.  Plain stores, not
 * non-temporal ones: a record is written twice (at entry, then completed
 * after the call), and x86's ordinary store order is what keeps the kind
 * byte and end_ns last for a reader of the live log, with no fence.
 */
#ifndef COLLPROF_CP_LOGWRITE_H
#define COLLPROF_CP_LOGWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_error.h"
#include "collprof/cp_logfmt.h"
#include "cp_logfile.h"
#include "cp_logring.h"

/* Create DIR (one level, if missing) and DIR/<node>.<pid>.cplog (the
 * plugin: <node>.<pid>.nccl.cplog), write the
 * header and map the first chunk.  On failure returns -1 with errno set and
 * a sentence in err (may be NULL); the log is then unusable. */
int cp_log_open(struct cp_log *log, const char *dir,
                const struct cp_log_ident *id, struct cp_error *err);

/* Out of line: the chunk of slot s when it is not mapped yet, or s is the
 * first slot of its chunk (which asks the preparer for the next one).
 * NULL when the log cannot grow. */
union cp_rec *cp_log_slot_slow(struct cp_log *log, uint64_t s);

/* The next free slot, or NULL when the log cannot grow (disk full, too many
 * records, closed).  Fill it, then publish it with cp_log_commit.  Lock-free:
 * one atomic add; the slot CP_LOG_PREFETCH_SLOTS ahead (in the same chunk)
 * is prefetched for writing, so that calls find their record in the cache. */
static inline union cp_rec *cp_log_slot(struct cp_log *log, uint64_t *slot_out)
{
    uint64_t s = __atomic_fetch_add(&log->next_slot, 1, __ATOMIC_RELAXED);
    uint64_t c = s >> CP_LOG_CHUNK_SHIFT;
    uint64_t i = s & (CP_LOG_CHUNK_SLOTS - 1);
    union cp_rec *base = NULL;

    if (log->ring) {
        struct cp_log_ring *r = log->ring;
        union cp_rec *rec;
        if (__builtin_expect(s - __atomic_load_n(&r->released,
                                                 __ATOMIC_ACQUIRE) <
                                 (r->mask + 1) / 2,
                             1))
            rec = cp_log_ring_claim(r, s);
        else if (!(rec = cp_log_ring_slow(log, s)))
            return NULL;
        if (slot_out)
            *slot_out = s;
        return rec;
    }
    if (__builtin_expect(c < CP_LOG_MAX_CHUNKS && i != 0, 1))
        base = __atomic_load_n(&log->chunk[c], __ATOMIC_ACQUIRE);
    if (__builtin_expect(!base, 0)) {
        base = cp_log_slot_slow(log, s);
        if (!base)
            return NULL;
    }
    cp_log_prefetch_write(
        &base[(i + CP_LOG_PREFETCH_SLOTS) & (CP_LOG_CHUNK_SLOTS - 1)]);
    if (slot_out)
        *slot_out = s;
    return &base[i];
}

static inline void cp_log_commit(union cp_rec *rec, uint8_t kind)
{
    __atomic_store_n(&rec->kind, kind, __ATOMIC_RELEASE);
}

/* Stop handing out slots, stamp the header (end time, slots used, flags) and
 * cut the file to the slots handed out.  Mappings stay in place so that a
 * thread still writing a slot it already holds cannot fault. */
void cp_log_close(struct cp_log *log, uint32_t extra_flags,
                  uint64_t records_dropped);

#endif
