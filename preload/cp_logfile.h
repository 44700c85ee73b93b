/* cp_logfile.h - the log writer's data: the log and its format-4 ring as
 * both halves of the writer share them (cp_logwrite.c: version 3's chunks,
 * opening and closing; cp_logring.c: version 4's ring and stream), and the
 * reservation of the file's bytes.  Not for callers: they use
 * cp_logwrite.h, which is above both halves. */
#ifndef COLLPROF_CP_LOGFILE_H
#define COLLPROF_CP_LOGFILE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collprof/cp_logfmt.h"
#include "cp_logenc.h"
#include "cp_policy.h"


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
    struct cp_policy *policy; /* the capture policy, NULL: every call */
    uint64_t fold_first, fold_n; /* folded slots not yet in a block */
    uint64_t stream_off;  /* file offset of the next write */
    uint64_t next_sync;   /* the next sync point, from the stream's start */
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
    const struct cp_policy_cfg *policy; /* format 4: the capture policy,
                                           NULL: every call in detail */
    const char *node, *hostname, *job_id, *step_id, *timer_reason, *program;
};

/* Whether a file may reach end bytes under RLIMIT_FSIZE (past it the
 * kernel sends SIGXFSZ, which would kill the job: treated as a full disk,
 * errno EFBIG).  1 or 0. */
int cp_log_fits_limit(off_t end);

/* Reserve [off, off + len) of the log's file by writing zeros (a full
 * disk or RLIMIT_FSIZE is an error here, errno set).  0 or -1. */
int cp_log_reserve(struct cp_log *log, uint64_t off, size_t len);

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

#endif
