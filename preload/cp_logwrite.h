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
 */
#ifndef COLLPROF_CP_LOGWRITE_H
#define COLLPROF_CP_LOGWRITE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_logfmt.h"

#define CP_LOG_CHUNK_SHIFT 14 /* 16384 slots = 1 MiB per chunk */
#define CP_LOG_CHUNK_SLOTS (1u << CP_LOG_CHUNK_SHIFT)
#define CP_LOG_MAX_CHUNKS 16384 /* 16 GiB, 268 million records */
#define CP_LOG_CLOSED_BIAS (UINT64_C(1) << 62)
/* Chunks the preparer keeps ready past the one being filled: slack for a
 * preparer that does not get a core for a few ms (4 MiB mapped ahead). */
#define CP_LOG_AHEAD 4
#define CP_LOG_NONE UINT64_MAX

struct cp_log {
    int fd;
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
    const char *node, *hostname, *job_id, *step_id, *timer_reason, *program;
};

/* Create DIR (one level, if missing) and DIR/<node>.<pid>.cplog (the
 * plugin: <node>.<pid>.nccl.cplog), write the
 * header and map the first chunk.  On failure returns -1 with errno set and
 * a sentence in err; the log is then unusable. */
int cp_log_open(struct cp_log *log, const char *dir,
                const struct cp_log_ident *id, char *err, size_t errlen);

/* The next free slot, or NULL when the log cannot grow (disk full, too many
 * records, closed).  Fill it, then publish it with cp_log_commit. */
union cp_rec *cp_log_slot(struct cp_log *log, uint64_t *slot_out);

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
