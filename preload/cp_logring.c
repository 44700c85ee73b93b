/* cp_logring.c - log format 4's writer: the ring, the log thread that
 * encodes it into the stream, and the writer's slow path (cp_logwrite.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collprof/cp_clockns.h"
#include "cp_logring.h"

#define BLOCK_HDR sizeof(struct cp_log4_block)
/* A flush is due at a quarter of the ring (writers take the slow path at
 * half), a full stage, or a second since the last one. */
#define FLUSH_AGE_NS 1000000000ull
/* The log thread's sleep when it found nothing to encode; when it did,
 * long enough for a quarter of the ring to fill at the rate it saw, within
 * these bounds. */
#define IDLE_NS 2000000ull
#define NAP_MIN_NS 20000ull
/* Slots the log thread stays behind the writers while they run: it does
 * not read the cache lines (cells, and the index's lines of 8) that a
 * writer is filling, which would bounce between their cores. */
#define LAG 64u
/* How long a writer that finds the ring full waits for a slot ahead of
 * it to finish before it gives up (the ring is full behind a call in
 * flight on another thread). */
#define FULL_WAIT_NS 1000000000ull

static uint64_t round_up(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

/* ---- blocks -------------------------------------------------------------- */

static void close_block(struct cp_log_ring *r)
{
    struct cp_log4_block b;
    unsigned char *at = r->stage + r->stage_fill;

    if (!r->block_fill && !r->block_slots)
        return;
    b.magic = CP_LOG4_BLOCK_MAGIC;
    b.bytes = (uint32_t)r->block_fill;
    b.first_slot = r->block_first;
    b.slots = r->block_slots;
    b.sum = cp_log4_sum(at + BLOCK_HDR, r->block_fill);
    memcpy(at, &b, sizeof b);
    r->stage_fill += BLOCK_HDR + r->block_fill;
    r->block_fill = 0;
    r->block_slots = 0;
}

/* Append op (n bytes, standing for `slots` slots from `first`) to the open
 * block, closing it first when the op would not fit. */
static void put_op(struct cp_log_ring *r, const unsigned char *op, size_t n,
                   uint32_t slots, uint64_t first)
{
    if (BLOCK_HDR + r->block_fill + n > CP_LOG4_BLOCK_MAX)
        close_block(r);
    if (!r->block_fill && !r->block_slots)
        r->block_first = first;
    memcpy(r->stage + r->stage_fill + BLOCK_HDR + r->block_fill, op, n);
    r->block_fill += n;
    r->block_slots += slots;
}

/* A sync point before the next record when its op might reach the next
 * multiple of sync_bytes: the open block closed, zeros up to the
 * multiple, and a block there that starts with the sync op.  Checked with
 * the most bytes one record's ops take and a second block header (put_op
 * may close the open block for it), so the zeros are fewer than
 * CP_LOG4_PAD_MAX; per sync point, not per record, apart from the test. */
static void sync_if_due(struct cp_log *log, uint64_t slot)
{
    struct cp_log_ring *r = log->ring;
    uint64_t at = r->stream_off - log->hdr->stream_offset + r->stage_fill;
    unsigned char op[CP_LOGENC_MAX];
    size_t pad;

    if (!r->next_sync ||
        at + 2 * BLOCK_HDR + r->block_fill + CP_LOGENC_MAX <= r->next_sync)
        return;
    close_block(r);
    at = r->stream_off - log->hdr->stream_offset + r->stage_fill;
    if (at > r->next_sync) { /* never (the test above): no sync point */
        r->next_sync = (at / log->hdr->sync_bytes + 1) * log->hdr->sync_bytes;
        return;
    }
    pad = (size_t)(r->next_sync - at);
    memset(r->stage + r->stage_fill, 0, pad);
    r->stage_fill += pad;
    r->next_sync += log->hdr->sync_bytes;
    put_op(r, op, cp_logenc_sync(&r->enc, op), 0, slot);
}

/* The folded slots not yet in a block, as one op (before a kept record,
 * and before a flush publishes the slots encoded). */
static void put_fold(struct cp_log *log)
{
    struct cp_log_ring *r = log->ring;
    unsigned char op[CP_LOGENC_MAX];

    if (!r->fold_n)
        return;
    sync_if_due(log, r->fold_first);
    while (r->fold_n) {
        /* a block's slots are 32 bits */
        uint64_t n = r->fold_n < (1u << 30) ? r->fold_n : (1u << 30);
        put_op(r, op, cp_logenc_fold(n, op), (uint32_t)n, r->fold_first);
        r->fold_first += n;
        r->fold_n -= n;
    }
}

/* Write the staged blocks after the stream; on success their slots'
 * cells may be reused.  Past RLIMIT_FSIZE is a full disk (no SIGXFSZ). */
static int flush(struct cp_log *log)
{
    struct cp_log_ring *r = log->ring;
    struct rlimit lim;
    size_t done = 0;

    put_fold(log);
    close_block(r);
    if (r->stage_fill == 0)
        goto published;
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        r->stream_off + r->stage_fill > (uint64_t)lim.rlim_cur) {
        __atomic_store_n(&log->grow_errno, EFBIG, __ATOMIC_RELAXED);
        return -1;
    }
    while (done < r->stage_fill) {
        ssize_t w = pwrite(log->fd, r->stage + done, r->stage_fill - done,
                           (off_t)(r->stream_off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            __atomic_store_n(&log->grow_errno, w < 0 ? errno : EIO,
                             __ATOMIC_RELAXED);
            return -1; /* the stage stays: tried again at the next pass */
        }
        done += (size_t)w;
    }
    r->stream_off += r->stage_fill;
    r->stage_fill = 0;
    __atomic_store_n(&log->hdr->stream_end,
                     r->stream_off - log->hdr->stream_offset,
                     __ATOMIC_RELEASE);
published:
    __atomic_store_n(&log->hdr->stream_slots, r->encoded, __ATOMIC_RELEASE);
    __atomic_store_n(&r->released, r->encoded, __ATOMIC_RELEASE);
    r->last_flush_ns = cp_clock_ns(CLOCK_MONOTONIC);
    return 0;
}

/* ---- encoding ------------------------------------------------------------ */

/* Encode the finished slots from r->encoded on, in order, stopping at the
 * first that is not (handed out and not yet written, or a call in
 * flight), and flush when due (always when final).  Under enc_lock.  The
 * slots encoded. */
static uint64_t pass_locked(struct cp_log *log, int final)
{
    struct cp_log_ring *r = log->ring;
    uint64_t end = __atomic_load_n(&log->next_slot, __ATOMIC_ACQUIRE);
    uint64_t s = r->encoded, s0 = s;
    unsigned char op[CP_LOGENC_MAX];

    if (end >= CP_LOG_CLOSED_BIAS)
        end -= CP_LOG_CLOSED_BIAS;
    else if (!final && end - s > 2 * LAG)
        end -= LAG;
    /* room for a whole block past the stage's end is kept */
    while (s < end && r->stage_fill < CP_LOG_STAGE_BYTES) {
        uint64_t p = s & r->mask;
        const union cp_rec *cell = &r->cell[p];
        union cp_rec rec;
        size_t n;
        if (__atomic_load_n(&r->index[p], __ATOMIC_ACQUIRE) != s)
            break; /* handed out, its index not stored yet */
        rec.kind = __atomic_load_n(&cell->kind, __ATOMIC_ACQUIRE);
        if (rec.kind == CP_REC_EMPTY)
            break;
        if (rec.kind == CP_REC_CALL &&
            __atomic_load_n(&cell->call.end_ns, __ATOMIC_ACQUIRE) == 0)
            break; /* in flight */
        __builtin_prefetch(&r->cell[(s + 8) & r->mask]);
        __builtin_prefetch(&r->index[(s + 64) & r->mask]);
        memcpy(&rec, cell, sizeof rec);
        if (r->policy && cp_policy_fold(r->policy, &rec, s)) {
            if (!r->fold_n)
                r->fold_first = s;
            r->fold_n++;
            s++;
            continue;
        }
        put_fold(log);
        sync_if_due(log, s);
        n = cp_logenc_rec(&r->enc, &rec, s, op);
        put_op(r, op, n, 1, s);
        s++;
    }
    r->encoded = s;
    /* folded slots alone wait for a quarter of the ring (their cells
     * are read back as they are meanwhile): between detail windows a
     * write every 4,096 calls, not every second */
    if (s != __atomic_load_n(&r->released, __ATOMIC_RELAXED) &&
        (final || r->stage_fill >= CP_LOG_STAGE_BYTES ||
         s - r->released >= (r->mask + 1) / 4 ||
         ((r->block_fill || r->stage_fill) &&
          cp_clock_ns(CLOCK_MONOTONIC) - r->last_flush_ns > FLUSH_AGE_NS)))
        (void)flush(log);
    return s - s0;
}

static uint64_t pass(struct cp_log *log, int final)
{
    uint64_t n;

    pthread_mutex_lock(&log->ring->enc_lock);
    n = pass_locked(log, final);
    pthread_mutex_unlock(&log->ring->enc_lock);
    return n;
}

/* ---- the log thread ------------------------------------------------------ */

/* Close the policy's interval when it is over (always when final), and
 * write its aggregates as records of their own: claimed as any writer
 * claims a slot (the log thread does not hold enc_lock here), or, when
 * final (the log closed: no slot is handed out any more), into the cells
 * after the last slot, from *used on.  Aggregates that find no room are
 * counted as lost. */
static void put_aggregates(struct cp_log *log, int final, uint64_t *used)
{
    struct cp_log_ring *r = log->ring;
    struct cp_rec_agg a[16];
    unsigned n, i;

    if (!r->policy)
        return;
    do {
        pthread_mutex_lock(&r->enc_lock);
        if (!r->policy->nsig && !r->policy->npending) {
            pthread_mutex_unlock(&r->enc_lock);
            return;
        }
        cp_policy_tick(r->policy, cp_clock_ns(CLOCK_REALTIME), final);
        /* the calls an aggregate folds are in the stream before it is
         * anywhere: a reader of a killed log must not find them in the
         * ring as well */
        n = 0;
        if (r->policy->npending &&
            (r->encoded == __atomic_load_n(&r->released, __ATOMIC_RELAXED) ||
             flush(log) == 0))
            for (; n < 16 && cp_policy_take(r->policy, &a[n]); n++)
                ;
        pthread_mutex_unlock(&r->enc_lock);
        for (i = 0; i < n; i++) {
            union cp_rec *rec = NULL;
            if (!final) {
                /* as cp_log_slot (cp_logwrite.h) claims for a writer */
                uint64_t at = __atomic_fetch_add(&log->next_slot, 1,
                                                 __ATOMIC_RELAXED);
                rec = at - __atomic_load_n(&r->released, __ATOMIC_ACQUIRE) <
                              (r->mask + 1) / 2
                          ? cp_log_ring_claim(r, at)
                          : cp_log_ring_slow(log, at);
            }
            else if (*used - __atomic_load_n(&r->released, __ATOMIC_ACQUIRE) <=
                     r->mask)
                rec = cp_log_ring_claim(r, (*used)++);
            if (!rec && final) {
                r->policy->lost += n - i; /* the ring full at close */
                return;
            }
            if (!rec) {
                /* the log closing meanwhile (its close writes them), or
                 * no room: kept for the next try, the newest last */
                pthread_mutex_lock(&r->enc_lock);
                while (n > i)
                    cp_policy_untake(r->policy, &a[--n]);
                pthread_mutex_unlock(&r->enc_lock);
                return;
            }
            if (final) /* the encoder's end (pass_locked) */
                __atomic_store_n(&log->next_slot, CP_LOG_CLOSED_BIAS + *used,
                                 __ATOMIC_RELEASE);
            memcpy((unsigned char *)rec + 1, (unsigned char *)&a[i] + 1,
                   sizeof a[i] - 1);
            __atomic_store_n(&rec->kind, CP_REC_AGG, __ATOMIC_RELEASE);
        }
    } while (n == 16);
}

/* The nap after a pass that encoded n slots, dt ns after the one before. */
static uint64_t nap_ns(const struct cp_log_ring *r, uint64_t n, uint64_t dt)
{
    uint64_t ns;

    if (!n)
        return IDLE_NS;
    ns = dt / n * ((r->mask + 1) / 4);
    return ns < NAP_MIN_NS ? NAP_MIN_NS : ns > IDLE_NS ? IDLE_NS : ns;
}

static void *ring_loop(void *arg)
{
    struct cp_log *log = arg;
    struct cp_log_ring *r = log->ring;
    uint64_t before = cp_clock_ns(CLOCK_MONOTONIC);
    sigset_t all;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    {
        /* a batch thread, as version 3's preparer: it does not preempt
         * the thread calling NCCL on its core */
        struct sched_param none = {0};
        (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &none);
    }
    /* its naps as asked (the default slack adds 50 us to each, at 25
     * million calls a second a tenth of the ring) */
    (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    for (;;) {
        uint64_t n = pass(log, 0), now = cp_clock_ns(CLOCK_MONOTONIC);
        uint64_t nap = nap_ns(r, n, now - before);
        int closing;
        before = now;
        if (r->policy) /* its state is under enc_lock: looked at there */
            put_aggregates(log, 0, NULL);
        if (n && nap < IDLE_NS) {
            /* calls are coming: a nap, no one need wake it */
            struct timespec t = {0, (long)nap};
            nanosleep(&t, NULL);
            continue;
        }
        pthread_mutex_lock(&log->grow_lock);
        closing = log->closing;
        if (!closing) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += (long)IDLE_NS;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            __atomic_store_n(&r->idle, 1, __ATOMIC_SEQ_CST);
            pthread_cond_timedwait(&r->kick, &log->grow_lock, &until);
            __atomic_store_n(&r->idle, 0, __ATOMIC_RELAXED);
            closing = log->closing;
        }
        pthread_mutex_unlock(&log->grow_lock);
        if (closing)
            break;
    }
    return NULL;
}

static void kick(struct cp_log *log)
{
    if (__atomic_load_n(&log->ring->idle, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&log->grow_lock);
        pthread_cond_signal(&log->ring->kick);
        pthread_mutex_unlock(&log->grow_lock);
    }
}

union cp_rec *cp_log_ring_slow(struct cp_log *log, uint64_t s)
{
    struct cp_log_ring *r = log->ring;
    uint64_t waited_from = 0, n = r->mask + 1;

    if (s >= CP_LOG_CLOSED_BIAS)
        return NULL; /* closed */
    for (;;) {
        uint64_t rel = __atomic_load_n(&r->released, __ATOMIC_ACQUIRE);
        if (s - rel < n) {
            kick(log);
            return cp_log_ring_claim(r, s);
        }
        if (__atomic_load_n(&log->grow_errno, __ATOMIC_RELAXED))
            return NULL; /* the stream cannot be written */
        /* full: encode what is finished ourselves (the log thread may
         * have no core, or not exist), else wait for it */
        if (pthread_mutex_trylock(&r->enc_lock) == 0) {
            /* a flush when one is due (not per slot: blocks of a few
             * records would cost their headers), else of what is
             * encoded when nothing more can be */
            uint64_t done = pass_locked(log, 0);
            if (!done && r->encoded != rel)
                done = flush(log) == 0;
            pthread_mutex_unlock(&r->enc_lock);
            if (done)
                continue;
        }
        if (!waited_from)
            waited_from = cp_clock_ns(CLOCK_MONOTONIC);
        else if (cp_clock_ns(CLOCK_MONOTONIC) - waited_from > FULL_WAIT_NS) {
            __atomic_store_n(&log->grow_errno, EBUSY, __ATOMIC_RELAXED);
            return NULL;
        }
        sched_yield();
    }
}

/* ---- open and close ------------------------------------------------------ */

int cp_log_ring_open(struct cp_log *log, uint32_t ring_slots,
                     uint32_t dict_slots, const struct cp_policy_cfg *policy,
                     struct cp_error *err)
{
    struct cp_log_ring *r = calloc(1, sizeof *r);
    struct cp_log_header *h = log->hdr;
    uint64_t index_len, end;
    void *map = MAP_FAILED;

    if (!r)
        return cp_errorf(err, "cannot set up %s: out of memory", log->path);
    if (ring_slots < CP_LOG4_RING_MIN || ring_slots > CP_LOG4_RING_MAX ||
        (ring_slots & (ring_slots - 1)))
        ring_slots = CP_LOG_RING_DEFAULT;
    index_len = (uint64_t)ring_slots * sizeof(uint64_t);
    end = round_up(h->header_size + index_len +
                       (uint64_t)ring_slots * CP_LOG_RECORD_SIZE,
                   4096);
    r->map_len = (size_t)(end - h->header_size);
    r->mask = ring_slots - 1;
    pthread_mutex_init(&r->enc_lock, NULL);
    pthread_cond_init(&r->kick, NULL);
    if (cp_logenc_init(&r->enc, dict_slots, h->start_realtime_ns) < 0 ||
        !(r->stage = malloc(CP_LOG_STAGE_BYTES + 2 * CP_LOG4_BLOCK_MAX +
                            CP_LOG4_PAD_MAX))) {
        cp_errorf(err, "cannot set up %s: out of memory", log->path);
        goto fail;
    }
    /* the ring's blocks reserved as version 3 reserves a chunk's, so a
     * full disk is an error now, not a SIGBUS at a store */
    if (cp_log_reserve(log, h->header_size, r->map_len) < 0) {
        cp_errorf(err, "cannot grow %s: %s", log->path, strerror(errno));
        goto fail;
    }
    map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, log->fd,
               (off_t)h->header_size);
    if (map == MAP_FAILED) {
        cp_errorf(err, "cannot map %s: %s", log->path, strerror(errno));
        goto fail;
    }
    (void)madvise(map, r->map_len, CP_MADV_POPULATE_WRITE);
    r->map = map;
    r->index = map;
    r->cell = (union cp_rec *)((char *)map + index_len);
    /* cell 0 holds no slot yet (its index 0 would say slot 0) */
    r->index[0] = UINT64_MAX;
    r->stream_off = end;
    r->last_flush_ns = cp_clock_ns(CLOCK_MONOTONIC);
    h->ring_slots = ring_slots;
    h->dict_slots = r->enc.cap;
    h->ring_offset = h->header_size;
    h->stream_offset = end;
    h->stream_end = 0;
    h->stream_slots = 0;
    h->sync_bytes = CP_LOG4_SYNC_DEFAULT;
    h->flags |= CP_HDR_SYNC;
    r->next_sync = h->sync_bytes;
    if (policy && (r->policy = malloc(sizeof *r->policy)) != NULL &&
        cp_policy_init(r->policy, policy) < 0) {
        free(r->policy);
        r->policy = NULL; /* out of memory: every call in detail */
    }
    if (r->policy) {
        r->policy->device =
            h->timer == CP_TIMER_EVENT || h->timer == CP_TIMER_CUPTI;
        h->flags |= CP_HDR_POLICY;
        h->policy_first = policy->first;
        h->policy_window = policy->window;
        h->policy_every = policy->every;
        h->policy_interval_ms = policy->interval_ms;
    }
    h->chunk_records = 0;
    h->version = CP_LOG_VERSION;
    log->ring = r;
    log->format = 4;
    return 0;
fail:
    cp_logenc_free(&r->enc);
    free(r->stage);
    free(r);
    return -1;
}

int cp_log_ring_start(struct cp_log *log)
{
    if (pthread_create(&log->preparer, NULL, ring_loop, log) != 0)
        return -1; /* writers encode themselves when the ring is full */
    log->have_preparer = 1;
    pthread_setname_np(log->preparer, "collprof-log");
    return 0;
}

uint64_t cp_log_ring_close(struct cp_log *log, uint64_t used)
{
    struct cp_log_ring *r = log->ring;

    while (pass(log, 1) > 0)
        ; /* a stage at a time */
    if (r->policy) {
        put_aggregates(log, 1, &used);
        while (pass(log, 1) > 0)
            ;
    }
    if (r->encoded == used && used > 0 && r->stage_fill == 0) {
        /* everything is in the stream: the ring's blocks back to the
         * file system (it reads as zeros, which no slot's index is) */
        (void)fallocate(log->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        (off_t)log->hdr->ring_offset, (off_t)r->map_len);
    }
    (void)ftruncate(log->fd, (off_t)r->stream_off);
    return used;
}
