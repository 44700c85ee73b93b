/* cp_logwrite.c - rank log writer: file creation, chunk growth, close. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collprof/cp_clockns.h"
#include "cp_logwrite.h"

static void copy_str(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

/* Node names go into a file name: keep them to a safe alphabet. */
static void safe_name(char *dst, size_t size, const char *src)
{
    size_t i;
    for (i = 0; src && src[i] && i + 1 < size; i++) {
        char c = src[i];
        int safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        dst[i] = safe && !(i == 0 && c == '.') ? c : '_';
    }
    dst[i] = '\0';
    if (i == 0)
        copy_str(dst, size, "node");
}

static off_t chunk_offset(uint64_t c)
{
    return (off_t)CP_LOG_HEADER_SIZE +
           (off_t)c * CP_LOG_CHUNK_SLOTS * CP_LOG_RECORD_SIZE;
}

/* Reserve and map chunk c (by the preparer without grow_lock, by a writer
 * that found the chunk missing with it). */
static union cp_rec *map_chunk(struct cp_log *log, uint64_t c)
{
    size_t len = (size_t)CP_LOG_CHUNK_SLOTS * CP_LOG_RECORD_SIZE, i;
    void *p;

    if (cp_log_reserve(log, (uint64_t)chunk_offset(c), len) < 0)
        return NULL;
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, log->fd,
             chunk_offset(c));
    if (p == MAP_FAILED)
        return NULL;
    /* Fault every page in writable now, not on the writer's first store.
     * MADV_POPULATE_WRITE needs Linux 5.14; before, write each page (no
     * one else has the chunk yet: its bytes are the zeros just written). */
    if (madvise(p, len, CP_MADV_POPULATE_WRITE) != 0) {
        for (i = 0; i < len; i += 4096)
            ((volatile char *)p)[i] = 0;
    }
    return p;
}

/* Read one byte of each page of chunk c (mapped at base) through the
 * mapping, from the last page down, stopping at the page the writer has
 * reached.  A hypervisor that shadows the guest's page tables (or fills
 * its own tables on first use) builds its entry for a page at the first
 * access from user space, whatever the guest kernel did, and charges tens
 * of microseconds for it (measured: 20-40 us per 4 KiB page on a
 * paravirtualised VM, 300-600 ns per record if the writer pays it).  The
 * preparer pays it here, ahead of the writer; a writer that catches up
 * pays the pages it reaches first, from the other end, so the two share a
 * chunk's pages instead of the writer waiting for all of them.  On bare
 * metal this is a cache miss per page.  The byte read is never used: that
 * it may race with the writer's store into it is harmless (and hidden from
 * ThreadSanitizer). */
__attribute__((no_sanitize("thread"))) static void touch_chunk(struct cp_log *log, uint64_t c, const union cp_rec *base)
{
    const size_t per_page = 4096 / CP_LOG_RECORD_SIZE;
    uint64_t first = c * CP_LOG_CHUNK_SLOTS;
    size_t page = CP_LOG_CHUNK_SLOTS / per_page;

    while (page-- > 0) {
        uint64_t writer = __atomic_load_n(&log->next_slot, __ATOMIC_RELAXED);
        if (writer >= first + page * per_page)
            break; /* the writer is there or past it (or the log closed) */
        (void)((volatile const char *)&base[page * per_page])[0];
    }
}

/* Publish a mapping of chunk c unless one is there already (the writer may
 * have mapped it itself meanwhile: both map the same pages of the file, so
 * either will do; the other is unmapped).  Returns the chunk's mapping. */
static union cp_rec *publish_chunk(struct cp_log *log, uint64_t c,
                                   union cp_rec *base)
{
    union cp_rec *none = NULL;

    if (__atomic_compare_exchange_n(&log->chunk[c], &none, base, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return base;
    munmap(base, (size_t)CP_LOG_CHUNK_SLOTS * CP_LOG_RECORD_SIZE);
    return none;
}

/* The background preparer: keeps the CP_LOG_AHEAD chunks after the one
 * being filled mapped and writable.  next: the first chunk it has not
 * looked at. */
static int preparer_idle(struct cp_log *log, uint64_t released, uint64_t next)
{
    int prepared = next >= CP_LOG_MAX_CHUNKS ||
                   next >= log->want + CP_LOG_AHEAD ||
                   __atomic_load_n(&log->grow_errno, __ATOMIC_RELAXED);
    return prepared && released + 3 > log->want;
}

static void *prepare_loop(void *arg)
{
    struct cp_log *log = arg;
    uint64_t released = 0; /* chunks below this were released */
    uint64_t next = 1;     /* chunk 0 is mapped by cp_log_open */
    sigset_t all;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    /* A batch thread: when it wakes for the next chunk it does not preempt
     * the thread calling NCCL on that core; it runs on a free core or in
     * its turn (and a writer that catches up with it waits for it). */
    {
        struct sched_param none = {0};
        (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &none);
    }
    /* chunk 0, mapped by cp_log_open, is published already */
    touch_chunk(log, 0, __atomic_load_n(&log->chunk[0], __ATOMIC_ACQUIRE));
    pthread_mutex_lock(&log->grow_lock);
    for (;;) {
        while (!log->closing && preparer_idle(log, released, next))
            pthread_cond_wait(&log->wake, &log->grow_lock);
        if (log->closing)
            break;
        if (next < log->want)
            next = log->want; /* the writer went past: it maps those itself */
        if (next < CP_LOG_MAX_CHUNKS && next < log->want + CP_LOG_AHEAD &&
            !__atomic_load_n(&log->grow_errno, __ATOMIC_RELAXED)) {
            uint64_t c = next++;
            if (!__atomic_load_n(&log->chunk[c], __ATOMIC_ACQUIRE)) {
                /* Without the lock: the writer asking for the next chunk
                 * (request_chunk) must not wait for a whole chunk's pages.
                 * A writer that needs chunk c meanwhile waits for it in
                 * grow() instead of writing zeros over records. */
                union cp_rec *base;
                int err;
                log->preparing = c;
                pthread_mutex_unlock(&log->grow_lock);
                base = map_chunk(log, c);
                err = errno;
                pthread_mutex_lock(&log->grow_lock);
                if (base)
                    publish_chunk(log, c, base);
                else
                    __atomic_store_n(&log->grow_errno, err ? err : EIO,
                                     __ATOMIC_RELAXED);
                log->preparing = CP_LOG_NONE;
                pthread_cond_broadcast(&log->ready);
                if (base) {
                    base = __atomic_load_n(&log->chunk[c], __ATOMIC_ACQUIRE);
                    pthread_mutex_unlock(&log->grow_lock);
                    touch_chunk(log, c, base);
                    pthread_mutex_lock(&log->grow_lock);
                }
            }
        }
        /* Chunks three behind the one being prepared are full: drop their
         * pages from the process (they stay in the file and the page
         * cache), so a long run does not grow the job's resident memory.
         * A late writer still holding a slot there just faults the page
         * back: for a shared file mapping nothing written is lost. */
        for (; released + 3 <= log->want; released++) {
            union cp_rec *old =
                __atomic_load_n(&log->chunk[released], __ATOMIC_ACQUIRE);
            if (old)
                madvise(old, (size_t)CP_LOG_CHUNK_SLOTS * CP_LOG_RECORD_SIZE,
                        MADV_DONTNEED);
        }
    }
    pthread_mutex_unlock(&log->grow_lock);
    return NULL;
}

/* Ask the preparer for chunk c (the writer just entered chunk c - 1). */
static void request_chunk(struct cp_log *log, uint64_t c)
{
    pthread_mutex_lock(&log->grow_lock);
    if (c > log->want || log->want == 0)
        log->want = c;
    pthread_cond_signal(&log->wake);
    pthread_mutex_unlock(&log->grow_lock);
}

/* Every field as cp_log_open's failure path expects it: nothing open. */
static void init_fields(struct cp_log *log)
{
    log->fd = -1;
    log->format = 3;
    log->ring = NULL;
    log->hdr = NULL;
    log->next_slot = 0;
    log->grow_errno = 0;
    log->want = 0;
    log->closing = 0;
    log->have_preparer = 0;
    log->preparing = CP_LOG_NONE;
    log->owner = getpid();
    memset(log->chunk, 0, sizeof log->chunk);
    pthread_mutex_init(&log->grow_lock, NULL);
    pthread_cond_init(&log->wake, NULL);
    pthread_cond_init(&log->ready, NULL);
}

/* Create dir (one level, if missing) and a new log file in it: log->path,
 * log->fd. */
static int create_file(struct cp_log *log, const char *dir,
                       const struct cp_log_ident *id, struct cp_error *err)
{
    char node[64];
    int attempt;

    if (mkdir(dir, 0750) < 0 && errno != EEXIST)
        return cp_errorf(err, "cannot create log directory %s: %s", dir,
                         strerror(errno));
    safe_name(node, sizeof node, id->node);
    /* A process that exec'd another NCCL program keeps its pid: the second
     * image gets the next free suffix. */
    for (attempt = 0; attempt < 100; attempt++) {
        char suffix[16] = "";
        if (attempt)
            snprintf(suffix, sizeof suffix, "-%d", attempt);
        if (snprintf(log->path, sizeof log->path, "%s/%s.%d%s%s%s", dir,
                     node, (int)log->owner, suffix,
                     id->source == CP_SOURCE_PLUGIN ? ".nccl" : "",
                     CP_LOG_SUFFIX) >= (int)sizeof log->path) {
            errno = ENAMETOOLONG;
            return cp_errorf(err, "log directory name too long: %s", dir);
        }
        log->fd = open(log->path,
                       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
        if (log->fd >= 0 || errno != EEXIST)
            break;
    }
    if (log->fd < 0)
        return cp_errorf(err, "cannot create %s: %s", log->path,
                         strerror(errno));
    return 0;
}

/* The header's blocks, reserved like a chunk's (RLIMIT_FSIZE counts as a
 * full disk). */
static int reserve_header(struct cp_log *log, struct cp_error *err)
{
    int e = cp_log_fits_limit(CP_LOG_HEADER_SIZE)
                ? posix_fallocate(log->fd, 0, CP_LOG_HEADER_SIZE)
                : EFBIG;

    if (e != 0) {
        errno = e;
        return cp_errorf(err, "cannot write %s: %s", log->path,
                         strerror(errno));
    }
    return 0;
}

static void fill_header(struct cp_log_header *hdr, const struct cp_log *log,
                        const struct cp_log_ident *id)
{
    memcpy(hdr->magic, CP_LOG_MAGIC, sizeof hdr->magic);
    hdr->endian = CP_LOG_ENDIAN;
    hdr->version = CP_LOG_VERSION_SLOTS;
    hdr->header_size = CP_LOG_HEADER_SIZE;
    hdr->record_size = CP_LOG_RECORD_SIZE;
    hdr->chunk_records = CP_LOG_CHUNK_SLOTS;
    hdr->timer = id->timer;
    hdr->pid = (int32_t)log->owner;
    hdr->global_rank = id->global_rank;
    hdr->world_size = id->world_size;
    hdr->local_rank = id->local_rank;
    hdr->nccl_version = id->nccl_version;
    hdr->source = id->source;
    hdr->start_monotonic_ns = cp_clock_ns(CLOCK_MONOTONIC);
    hdr->start_realtime_ns = cp_clock_ns(CLOCK_REALTIME);
    copy_str(hdr->node, sizeof hdr->node, id->node);
    copy_str(hdr->hostname, sizeof hdr->hostname, id->hostname);
    copy_str(hdr->job_id, sizeof hdr->job_id, id->job_id);
    copy_str(hdr->step_id, sizeof hdr->step_id, id->step_id);
    copy_str(hdr->timer_reason, sizeof hdr->timer_reason, id->timer_reason);
    copy_str(hdr->program, sizeof hdr->program, id->program);
}

/* Without the preparer the writer grows the file itself: slower, same
 * records. */
static void start_preparer(struct cp_log *log)
{
    log->want = 1;
    if (pthread_create(&log->preparer, NULL, prepare_loop, log) == 0) {
        log->have_preparer = 1;
        pthread_setname_np(log->preparer, "collprof-log");
    }
}

/* A log that failed to open leaves no file and no mapping behind. */
static void discard(struct cp_log *log)
{
    if (log->chunk[0])
        munmap(log->chunk[0], (size_t)CP_LOG_CHUNK_SLOTS * CP_LOG_RECORD_SIZE);
    log->chunk[0] = NULL;
    if (log->fd >= 0) {
        unlink(log->path);
        close(log->fd);
    }
    log->fd = -1;
}

int cp_log_open(struct cp_log *log, const char *dir,
                const struct cp_log_ident *id, struct cp_error *err)
{
    struct cp_log_header *hdr = MAP_FAILED;
    int rc = -1, saved;

    init_fields(log);
    if (create_file(log, dir, id, err) < 0 || reserve_header(log, err) < 0)
        goto out;
    hdr = mmap(NULL, CP_LOG_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
               log->fd, 0);
    if (hdr == MAP_FAILED) {
        cp_errorf(err, "cannot map %s: %s", log->path, strerror(errno));
        goto out;
    }
    fill_header(hdr, log, id);
    log->hdr = hdr;
    if (id->format == 4) {
        if (cp_log_ring_open(log, id->ring_slots, CP_LOGENC_DICT_DEFAULT,
                             id->policy, err) < 0)
            goto out;
        hdr = MAP_FAILED;
        (void)cp_log_ring_start(log);
        rc = 0;
        goto out;
    }
    log->chunk[0] = map_chunk(log, 0);
    if (!log->chunk[0]) {
        cp_errorf(err, "cannot grow %s: %s", log->path, strerror(errno));
        goto out;
    }
    hdr = MAP_FAILED;
    start_preparer(log);
    rc = 0;
out:
    saved = errno;
    if (hdr != MAP_FAILED)
        munmap(hdr, CP_LOG_HEADER_SIZE);
    if (rc < 0) {
        log->hdr = NULL;
        discard(log);
    }
    errno = saved;
    return rc;
}

static union cp_rec *grow(struct cp_log *log, uint64_t c)
{
    union cp_rec *base;

    pthread_mutex_lock(&log->grow_lock);
    while (log->preparing == c)
        pthread_cond_wait(&log->ready, &log->grow_lock);
    base = __atomic_load_n(&log->chunk[c], __ATOMIC_ACQUIRE);
    if (!base && !log->closing &&
        !__atomic_load_n(&log->grow_errno, __ATOMIC_RELAXED)) {
        base = map_chunk(log, c);
        if (base)
            base = publish_chunk(log, c, base);
        else
            __atomic_store_n(&log->grow_errno, errno ? errno : EIO,
                             __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&log->grow_lock);
    return base;
}

union cp_rec *cp_log_slot_slow(struct cp_log *log, uint64_t s)
{
    uint64_t c = s >> CP_LOG_CHUNK_SHIFT;
    union cp_rec *base;

    if (c >= CP_LOG_MAX_CHUNKS)
        return NULL; /* full, or closed (CP_LOG_CLOSED_BIAS) */
    base = __atomic_load_n(&log->chunk[c], __ATOMIC_ACQUIRE);
    if (!base) {
        base = grow(log, c);
        if (!base)
            return NULL;
    }
    if ((s & (CP_LOG_CHUNK_SLOTS - 1)) == 0 && log->have_preparer)
        request_chunk(log, c + 1); /* once per chunk */
    return base;
}

void cp_log_close(struct cp_log *log, uint32_t extra_flags,
                  uint64_t records_dropped)
{
    uint64_t used, mapped = 0, c;

    if (log->fd < 0 || log->owner != getpid())
        return;
    used = __atomic_fetch_add(&log->next_slot, CP_LOG_CLOSED_BIAS,
                              __ATOMIC_ACQ_REL);
    if (used >= CP_LOG_CLOSED_BIAS)
        return; /* closed already */
    pthread_mutex_lock(&log->grow_lock);
    log->closing = 1;
    pthread_cond_signal(&log->wake);
    if (log->ring)
        pthread_cond_signal(&log->ring->kick);
    pthread_mutex_unlock(&log->grow_lock);
    if (log->have_preparer)
        pthread_join(log->preparer, NULL);
    log->have_preparer = 0;
    if (log->ring) {
        used = cp_log_ring_close(log, used);
        log->hdr->slots_used = used;
        log->hdr->records_dropped = records_dropped;
        log->hdr->end_realtime_ns = cp_clock_ns(CLOCK_REALTIME);
        log->hdr->flags |= CP_HDR_CLOSED | extra_flags;
        return;
    }
    /* Slots whose chunk never got mapped were never written: don't count them. */
    for (c = 0; c < CP_LOG_MAX_CHUNKS &&
                __atomic_load_n(&log->chunk[c], __ATOMIC_ACQUIRE);
         c++)
        mapped = (c + 1) * CP_LOG_CHUNK_SLOTS;
    if (used > mapped)
        used = mapped;
    log->hdr->slots_used = used;
    log->hdr->records_dropped = records_dropped;
    log->hdr->end_realtime_ns = cp_clock_ns(CLOCK_REALTIME);
    log->hdr->flags |= CP_HDR_CLOSED | extra_flags;
    (void)ftruncate(log->fd, chunk_offset(0) + (off_t)(used * CP_LOG_RECORD_SIZE));
}
