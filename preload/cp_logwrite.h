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

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_error.h"
#include "collprof/cp_logfmt.h"
#include "cp_logenc.h"

#define CP_LOG_CHUNK_SHIFT 14 /* 16384 slots = 1 MiB per chunk */
#define CP_LOG_CHUNK_SLOTS (1u << CP_LOG_CHUNK_SHIFT)
#define CP_LOG_MAX_CHUNKS 16384 /* 16 GiB, 268 million records */
_Static_assert((uint64_t)CP_LOG_MAX_CHUNKS * CP_LOG_CHUNK_SLOTS <=
                   CP_LOG_MAX_SLOTS,
               "the readers bound a log by CP_LOG_MAX_SLOTS (cp_logfmt.h)");
#define CP_LOG_CLOSED_BIAS (UINT64_C(1) << 62)
/* Chunks the preparer keeps ready past the one being filled: slack for a
 * preparer that does not get a core for a few ms (4 MiB mapped ahead). */
#define CP_LOG_AHEAD 4
#define CP_LOG_NONE UINT64_MAX
/* How far ahead of the slot being taken cp_log_slot prefetches: enough
 * calls to cover a miss to memory (a few hundred ns) when calls come every
 * 20-40 ns, and few enough lines (1 KiB) to stay in the L1 cache. */
#ifndef CP_LOG_PREFETCH_SLOTS
#define CP_LOG_PREFETCH_SLOTS 16
#endif

/* Format 4 (the shim's logs): the ring the calling threads write into
 * and the log thread's encoder.  The ring is a shared mapping of a fixed
 * region of the file, reused round and round: its pages stay in the page
 * cache, as version 3's slots do, so a record stored there survives the
 * process; no page is made per call.  The log thread ("collprof-log")
 * encodes finished slots into 4 KiB blocks (cp_logenc.h), writes a batch
 * of them with one pwrite after the stream, and only then lets their
 * cells be reused (`released`).  A writer that finds the ring full wakes
 * it, or encodes itself (a machine too loaded to run the log thread, a
 * child without it); a ring full behind a slot that stays unfinished (a
 * call in flight while ring_slots more were entered by other threads) or
 * a stream that cannot be written (a full disk) makes the slot NULL, as
 * a full disk does in version 3. */
#define CP_LOG_RING_DEFAULT 16384u /* cells: 1 MiB, the index 128 KiB */
#define CP_LOG_STAGE_BYTES (64u * 1024) /* blocks written per pwrite */
struct cp_log_ring {
    uint64_t *index;      /* ring_slots words: the slot each cell holds */
    union cp_rec *cell;   /* ring_slots cells */
    uint32_t mask;        /* ring_slots - 1 */
    uint64_t released;    /* atomic: slots below are in the stream */
    /* the log thread's (under enc_lock) */
    pthread_mutex_t enc_lock;
    struct cp_logenc enc;
    uint64_t encoded;     /* slots below are in stage or the stream */
    unsigned char *stage; /* blocks not written yet */
    size_t stage_fill;    /* bytes of whole blocks in stage */
    size_t block_fill;    /* payload bytes of the open block */
    uint64_t block_first; /* its first slot */
    uint32_t block_slots;
    uint64_t empty_run;   /* never-written slots not yet encoded */
    uint64_t stream_off;  /* file offset of the next write */
    uint64_t last_flush_ns;
    int idle;             /* atomic: the log thread sleeps */
    pthread_cond_t kick;  /* under grow_lock: wakes it */
    size_t map_len;       /* the ring's mapping */
    void *map;
};

struct cp_log {
    int fd;
    int format;           /* 3: one slot per record; 4: ring and stream */
    struct cp_log_ring *ring; /* format 4, else NULL */
    pid_t owner; /* the process that opened it (fork children must not close) */
    struct cp_log_header *hdr;
    uint64_t next_slot; /* atomic */
    union cp_rec *chunk[CP_LOG_MAX_CHUNKS]; /* atomic pointers */
    pthread_mutex_t grow_lock;
    pthread_cond_t wake;  /* the preparer waits on it, under grow_lock */
    pthread_cond_t ready; /* a writer waits on it for the chunk being prepared */
    uint64_t preparing;   /* under grow_lock: chunk the preparer is writing
                             without the lock, CP_LOG_NONE if none */
    uint64_t want;        /* chunk the preparer should map next */
    int closing;          /* under grow_lock: no more growth */
    int have_preparer;
    pthread_t preparer;
    int grow_errno; /* atomic: first growth failure, 0 if none */
    char path[4096];
};

/* What the header says about the process. */
struct cp_log_ident {
    int global_rank, world_size, local_rank, nccl_version;
    unsigned timer;
    unsigned source; /* enum cp_log_source: the plugin's logs are named
                        <node>.<pid>.nccl.cplog */
    unsigned format;     /* 4: ring and stream; 3 (or 0): a slot per record */
    uint32_t ring_slots; /* format 4: cells (0: CP_LOG_RING_DEFAULT) */
    const char *node, *hostname, *job_id, *step_id, *timer_reason, *program;
};

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
/* Format 4, out of line: the cell of slot s when the ring is half full or
 * more (wakes the log thread, or waits for room).  NULL when there is
 * none. */
union cp_rec *cp_log_ring_slow(struct cp_log *log, uint64_t s);


/* Bring the cache line at p into this core's cache, for writing.  The slots
 * ahead of the one being written are cold (the preparer zeroed them
 * megabytes ago): without this, the first store into each record waits for
 * a read-for-ownership miss, most of the shim's cost per call.  x86's
 * PREFETCHW takes the line exclusive (a NOP on processors without it);
 * elsewhere the compiler's write prefetch (always inlined: GCC 12 takes a
 * function of prefetches alone for a pure one and drops its call). */
static inline __attribute__((always_inline)) void
cp_log_prefetch_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

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
