/* cp_scan.c - in-place record access for the analyzer (see cp_scan.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_log4src.h"
#include "cp_path.h"
#include "cp_scan.h"

/* Where the first problem goes when there is no memory to describe it. */
static const struct cp_error no_memory_for_problem = {
    .text = "a problem was found in this file, and memory ran out to "
            "describe it",
    .offset = -1};

/* Room for the scan's first problem: NULL (the problem noted as
 * no_memory_for_problem) when memory ran out. */
static struct cp_error *problem_room(struct cp_scan *s)
{
    s->have_problem = 1;
    s->problem = malloc(sizeof *s->problem);
    if (!s->problem)
        s->problem = (struct cp_error *)&no_memory_for_problem;
    return s->problem == &no_memory_for_problem ? NULL : s->problem;
}

static void note(struct cp_scan *s, uint64_t offset, const char *what)
{
    if (s->have_problem)
        return;
    cp_error_set(problem_room(s), s->path, (int64_t)offset,
                 "%s: offset %llu: %s", s->path, (unsigned long long)offset,
                 what);
}

struct cp_scan *cp_scan_open(const char *path, struct cp_error *err)
{
    return cp_scan_open_sized(path, CP_SCAN_BUFFER, err);
}

/* Whole records, at least CP_SCAN_BUFFER_MIN. */
static size_t round_buffer(size_t buf_size)
{
    buf_size -= buf_size % CP_LOG_RECORD_SIZE;
    return buf_size < CP_SCAN_BUFFER_MIN ? CP_SCAN_BUFFER_MIN : buf_size;
}

/* s (zeroed) for the log described by hdr, nothing open yet; hdr is
 * kept (own: copied, else it must outlive s).  -1 when memory ran out. */
static int scan_init(struct cp_scan *s, const struct cp_log_header *hdr,
                     int swapped, int own)
{
    s->fd = -1;
    if (own) {
        s->own_hdr = malloc(sizeof *s->own_hdr);
        if (!s->own_hdr)
            return -1;
        *s->own_hdr = *hdr;
        hdr = s->own_hdr;
    }
    s->hdr = hdr;
    s->header_size = hdr->header_size;
    s->swapped = swapped;
    s->buf_offset = s->header_size;
    return 0;
}

/* A scan with its buffer, of the log described by hdr, nothing open yet. */
static struct cp_scan *scan_new(const char *path, const struct cp_log_header *hdr,
                                int swapped, size_t buf_size,
                                struct cp_error *err)
{
    struct cp_scan *s = calloc(1, sizeof *s);

    if (!s) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        return NULL;
    }
    s->buf_size = round_buffer(buf_size);
    if (scan_init(s, hdr, swapped, 1) < 0 ||
        posix_memalign((void **)&s->buf, 64, s->buf_size) != 0) {
        s->buf = NULL;
        cp_scan_close(s);
        cp_error_set(err, path, -1, "%s: out of memory", path);
        return NULL;
    }
    if (!(s->path = strdup(path))) {
        cp_scan_close(s);
        cp_error_set(err, path, -1, "%s: out of memory", path);
        return NULL;
    }
    return s;
}

/* The scan's place in a caller's memory: the struct, then the buffer
 * (and the read-ahead's), each on whole cache lines. */
static size_t struct_place(void)
{
    return (sizeof(struct cp_scan) + 63) & ~(size_t)63;
}

size_t cp_scan_place_size(size_t buf_size, int ahead)
{
    return struct_place() + round_buffer(buf_size) * (ahead ? 2 : 1);
}

struct cp_scan *cp_scan_open_sized(const char *path, size_t buf_size,
                                   struct cp_error *err)
{
    struct cp_logfile_known k;
    struct cp_scan *s;

    /* the reference reader decides whether this is a log at all */
    if (cp_logfile_check(path, 1, &k, err) < 0)
        return NULL;
    s = cp_scan_reopen_sized(path, &k, buf_size, err);
    if (s && k.fd >= 0) {
        s->fd = k.fd; /* the scan's own from now on */
        s->fd_borrowed = 0;
        k.fd = -1;
    }
    cp_logfile_known_release(&k);
    return s;
}

/* Open s (initialised, its buffers set) on the log k describes; parked:
 * not now, at each refill (cp_scan_park), unless k kept a descriptor. */
static int scan_attach_file(struct cp_scan *s, const char *path,
                            const struct cp_logfile_known *k, int parked,
                            struct cp_error *err)
{
    s->dev = k->dev;
    s->ino = k->ino;
    if (k->fd >= 0) {
        s->fd = k->fd;
        s->fd_borrowed = 1;
        return 0;
    }
    if (parked) {
        s->parked = 1;
        return 0;
    }
    s->fd = cp_logfile_reopen_fd(path, k, err);
    return s->fd < 0 ? -1 : 0;
}

/* Whether the log k describes is read through a slot source
 * (cp_slotsrc.h): held by a node partial, or of version 4. */
static int read_by_src(const struct cp_logfile_known *k)
{
    return k->partial || k->hdr.version > CP_LOG_VERSION_SLOTS;
}

/* A scan in a place of a version-4 log: the tail of its buffer lent to
 * the source, so that the log holds no memory beyond its place, and the
 * records decoded into the rest.  A small place (many logs open at once)
 * lends three quarters, up to CP_LOG4_BLOCK_MAX, for one block (no
 * system call per refill); a larger one half, for a window of blocks
 * read together (one read for 8 blocks at 64 KiB, where one a block cost
 * twice the reads of version 3's scan). */
static void lend_tail(struct cp_scan *s)
{
    size_t lend = s->buf_size / 4 * 3;

    if (!s->src.ops || !s->src.ops->lend)
        return;
    if (s->buf_size > 4 * CP_LOG4_BLOCK_MAX)
        lend = s->buf_size / 2;
    else if (lend > CP_LOG4_BLOCK_MAX)
        lend = CP_LOG4_BLOCK_MAX;
    lend -= lend % CP_LOG_RECORD_SIZE;
    if (lend < CP_LOG4_LEND_MIN)
        return;
    s->buf_size -= lend;
    cp_slotsrc_lend(&s->src, (char *)s->buf + s->buf_size, lend);
}

/* scan_of_src of a raw version-4 log: its source opened alone (no reader
 * and its buffer around it), the header k's (a place's: k outlives it,
 * as for a raw log of slots). */
static struct cp_scan *scan_of_log4(struct cp_scan *place, const char *path,
                                    const struct cp_logfile_known *k,
                                    size_t buf_size, struct cp_error *err)
{
    struct cp_scan *s = place;

    if (s)
        (void)scan_init(s, &k->hdr, k->swapped, 0); /* nothing to allocate */
    else
        s = scan_new(path, &k->hdr, k->swapped, buf_size, err);
    if (!s)
        return NULL;
    if (cp_logfile_reopen_src(path, k, &s->src, err) < 0) {
        cp_scan_close(s);
        return NULL;
    }
    if (place)
        lend_tail(s);
    return s;
}

/* A scan of a log read through a slot source (read_by_src): its reader's
 * source, at the first slot (s: a place for it, else allocated). */
static struct cp_scan *scan_of_src(struct cp_scan *place, const char *path,
                                       const struct cp_logfile_known *k,
                                       size_t buf_size, struct cp_error *err)
{
    struct cp_logfile *lf;
    struct cp_scan *s;

    if (!k->partial)
        return scan_of_log4(place, path, k, buf_size, err);
    lf = cp_logfile_reopen(path, k, err);
    if (!lf)
        return NULL;
    s = place;
    if (s && scan_init(s, cp_logfile_header(lf), cp_logfile_swapped(lf),
                       1) < 0) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        cp_scan_close(s);
        s = NULL;
    } else if (!s) {
        s = scan_new(path, cp_logfile_header(lf), cp_logfile_swapped(lf),
                     buf_size, err);
    }
    if (s)
        s->src = cp_logfile_take_src(lf);
    if (s && place)
        lend_tail(s);
    cp_logfile_close(lf);
    return s;
}

struct cp_scan *cp_scan_reopen_sized(const char *path,
                                     const struct cp_logfile_known *k,
                                     size_t buf_size, struct cp_error *err)
{
    struct cp_scan *s;

    if (read_by_src(k))
        return scan_of_src(NULL, path, k, buf_size, err);
    s = scan_new(path, &k->hdr, k->swapped, buf_size, err);
    if (s && scan_attach_file(s, path, k, 0, err) < 0) {
        cp_scan_close(s);
        s = NULL;
    }
    return s;
}

/* cp_scan_place_in without CP_SCAN_RESUME. */
static struct cp_scan *place_in(void *mem, const char *path,
                                const struct cp_logfile_known *k,
                                size_t buf_size, int ahead, int parked,
                                struct cp_error *err)
{
    struct cp_scan *s = mem;

    memset(s, 0, sizeof *s);
    s->in_place = 1;
    s->path = (char *)path;
    s->buf_size = round_buffer(buf_size);
    s->buf = (union cp_rec *)((char *)mem + struct_place());
    if (ahead)
        s->ahead = (union cp_rec *)((char *)s->buf + s->buf_size);
    if (read_by_src(k)) {
        s = scan_of_src(s, path, k, buf_size, err);
        if (s && parked)
            cp_scan_park(s);
        return s;
    }
    (void)scan_init(s, &k->hdr, k->swapped, 0); /* nothing to allocate */
    if (scan_attach_file(s, path, k, parked, err) < 0) {
        cp_scan_close(s);
        return NULL;
    }
    return s;
}

struct cp_scan *cp_scan_reopen_in(void *mem, const char *path,
                                  const struct cp_logfile_known *k,
                                  size_t buf_size, int ahead,
                                  struct cp_error *err)
{
    return place_in(mem, path, k, buf_size, ahead, 0, err);
}

struct cp_scan *cp_scan_place_in(void *mem, const char *path,
                                 const struct cp_logfile_known *k,
                                 size_t buf_size, int ahead, unsigned flags,
                                 struct cp_error *err)
{
    struct cp_scan *s = mem, *r;
    int parked = (flags & CP_SCAN_PARKED) != 0;
    size_t fill;
    int eof;

    if (!(flags & CP_SCAN_RESUME) || !s->in_place || !s->resumable ||
        read_by_src(k) || s->dev != k->dev ||
        s->ino != k->ino || s->buf_size != round_buffer(buf_size) ||
        s->header_size != k->hdr.header_size || s->swapped != k->swapped ||
        s->buf != (union cp_rec *)((char *)mem + struct_place()))
        return place_in(mem, path, k, buf_size, ahead, parked, err);
    fill = s->fill;
    eof = s->eof;
    r = place_in(mem, path, k, buf_size, ahead, parked, err);
    if (r) { /* the buffer is untouched: only the state was reset */
        r->fill = fill;
        r->eof = eof;
    }
    return r;
}

int cp_scan_check_in(void *mem, const char *path,
                     const struct cp_partial_log *held, int keep_fd,
                     size_t buf_size, struct cp_logfile_known *k,
                     struct cp_error *err)
{
    struct cp_scan *s = mem;
    union cp_rec *buf = (union cp_rec *)((char *)mem + struct_place());
    size_t size = round_buffer(buf_size), got = 0, i;

    memset(s, 0, sizeof *s); /* not resumable unless filled below */
    s->fd = -1;
    if (held) /* read from its partial by the first pass */
        return cp_logfile_check_held(path, held, k, err);
    if (cp_logfile_check_first(path, keep_fd, k, buf, size, &got, err) < 0)
        return -1;
    if (got < CP_LOG_RECORD_SIZE)
        return 0; /* nothing to take up: the first pass reads */
    /* what cp_scan_close leaves of a scan in this place that read its
     * first buffer (as cp_scan_refill does: a short read is the end of
     * the file; whole records swapped) */
    s->in_place = 1;
    s->buf = buf;
    s->buf_size = size;
    s->header_size = k->hdr.header_size;
    s->swapped = k->swapped;
    s->buf_offset = s->header_size;
    s->dev = k->dev;
    s->ino = k->ino;
    s->fill = got;
    s->eof = got < size;
    if (s->swapped)
        for (i = 0; i < got / CP_LOG_RECORD_SIZE; i++)
            cp_rec_swap(&buf[i]);
    s->resumable = 1;
    return 0;
}

int64_t cp_scan_seek_time(struct cp_scan *s, uint64_t t, struct cp_error *err)
{
    int64_t first;

    if (!cp_slotsrc_is(&s->src) || s->fill || s->pos || s->pool ||
        s->buf_offset != s->header_size)
        return 0;
    first = cp_slotsrc_seek_time(&s->src, t, err);
    if (first > 0)
        s->buf_offset += (uint64_t)first * CP_LOG_RECORD_SIZE;
    return first;
}

void cp_scan_park(struct cp_scan *s)
{
    if (cp_slotsrc_is(&s->src)) {
        /* its source reopens its file when it reads, and is parked
         * again after each refill */
        s->parked = 1;
        cp_slotsrc_park(&s->src);
        return;
    }
    if (s->fd_borrowed)
        return; /* its holder keeps it open, within its budget */
    s->parked = 1;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* A parked scan's file again: the same file (device, inode) as at open,
 * else -1 with the problem noted. */
static int reopen_same(const struct cp_scan *s)
{
    struct cp_logfile_known k;
    struct cp_error e;

    memset(&k, 0, sizeof k);
    k.dev = s->dev;
    k.ino = s->ino;
    return cp_logfile_reopen_fd(s->path, &k, &e);
}

static int reopen(struct cp_scan *s)
{
    int fd = reopen_same(s);

    if (fd < 0)
        note(s, s->buf_offset + s->fill,
             "the file was replaced or removed while it was read (the rest "
             "is not read)");
    return fd;
}

/* ---- read-ahead ---------------------------------------------------------- */

enum { AHEAD_NONE, AHEAD_QUEUED, AHEAD_BUSY, AHEAD_READY };

struct cp_scan_pool {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    struct cp_scan **queue; /* a ring of max_scans */
    struct cp_scan **attached;
    size_t max_scans, head, count, nattached;
    pthread_t *threads;
    unsigned nthreads;
    int stopping;
};

/* Read len bytes of whole records at offset into buf (as the refill does:
 * until full, a multiple of records, or the end); the bytes read. */
static size_t read_at(int fd, char *buf, size_t len, uint64_t offset)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got % CP_LOG_RECORD_SIZE == 0)
            break;
    }
    return got;
}

static void *reader(void *arg)
{
    struct cp_scan_pool *pool = arg;

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        struct cp_scan *s;
        uint64_t offset;
        size_t got = 0, i;
        int fd, ok = 1;

        while (!pool->count && !pool->stopping)
            pthread_cond_wait(&pool->work, &pool->lock);
        if (pool->stopping)
            break;
        s = pool->queue[pool->head];
        pool->head = (pool->head + 1) % pool->max_scans;
        pool->count--;
        s->in_queue = 0;
        if (s->ahead_state != AHEAD_QUEUED)
            continue;
        s->ahead_state = AHEAD_BUSY;
        offset = s->ahead_offset;
        pthread_mutex_unlock(&pool->lock);
        /* a parked scan's file is opened here, for this read only; a
         * failure leaves the reading (and its message) to the refill */
        fd = s->parked ? -1 : s->fd;
        if (s->parked)
            fd = reopen_same(s);
        if (fd >= 0)
            got = read_at(fd, (char *)s->ahead, s->buf_size, offset);
        else
            ok = 0;
        if (s->parked && fd >= 0)
            close(fd);
        if (s->swapped)
            for (i = 0; i < got / CP_LOG_RECORD_SIZE; i++)
                cp_rec_swap(&s->ahead[i]);
        pthread_mutex_lock(&pool->lock);
        s->ahead_fill = got;
        s->ahead_ok = ok;
        s->ahead_state = AHEAD_READY;
        pthread_cond_broadcast(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* Queue the read of the buffer after s's current one. */
static void queue_ahead(struct cp_scan *s)
{
    struct cp_scan_pool *pool = s->pool;

    pthread_mutex_lock(&pool->lock);
    if (s->ahead_state == AHEAD_NONE) {
        s->ahead_offset = s->buf_offset + s->fill;
        s->ahead_state = AHEAD_QUEUED;
        if (!s->in_queue) {
            pool->queue[(pool->head + pool->count) % pool->max_scans] = s;
            pool->count++;
            s->in_queue = 1;
            pthread_cond_signal(&pool->work);
        }
    }
    pthread_mutex_unlock(&pool->lock);
}

/* The buffer read ahead for s's current offset, swapped in: 1; 0 when
 * there is none (the caller reads). */
static int take_ahead(struct cp_scan *s)
{
    struct cp_scan_pool *pool = s->pool;
    int taken = 0;

    pthread_mutex_lock(&pool->lock);
    if (s->ahead_state == AHEAD_QUEUED) /* not started: read it here */
        s->ahead_state = AHEAD_NONE;
    while (s->ahead_state == AHEAD_BUSY)
        pthread_cond_wait(&pool->done, &pool->lock);
    if (s->ahead_state == AHEAD_READY) {
        s->ahead_state = AHEAD_NONE;
        if (s->ahead_ok && s->ahead_offset == s->buf_offset) {
            union cp_rec *t = s->buf;
            s->buf = s->ahead;
            s->ahead = t;
            s->fill = s->ahead_fill;
            taken = 1;
        }
    }
    pthread_mutex_unlock(&pool->lock);
    return taken;
}

struct cp_scan_pool *cp_scan_pool_start(unsigned threads, size_t max_scans)
{
    struct cp_scan_pool *pool;
    unsigned i;

    if (threads == 0 || max_scans == 0)
        return NULL;
    pool = calloc(1, sizeof *pool);
    if (!pool)
        return NULL;
    pool->max_scans = max_scans;
    pool->queue = calloc(max_scans, sizeof *pool->queue);
    pool->attached = calloc(max_scans, sizeof *pool->attached);
    pool->threads = calloc(threads, sizeof *pool->threads);
    if (!pool->queue || !pool->attached || !pool->threads ||
        pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool->queue);
        free(pool->attached);
        free(pool->threads);
        free(pool);
        return NULL;
    }
    pthread_cond_init(&pool->work, NULL);
    pthread_cond_init(&pool->done, NULL);
    for (i = 0; i < threads; i++) {
        if (pthread_create(&pool->threads[i], NULL, reader, pool) != 0)
            break;
        pool->nthreads++;
    }
    if (pool->nthreads == 0) {
        cp_scan_pool_stop(pool);
        return NULL;
    }
    return pool;
}

int cp_scan_pool_attach(struct cp_scan_pool *pool, struct cp_scan *s)
{
    if (!pool || cp_slotsrc_is(&s->src) || s->pool || pool->nattached == pool->max_scans)
        return 0;
    if (!s->ahead && posix_memalign((void **)&s->ahead, 64, s->buf_size) != 0) {
        s->ahead = NULL;
        return -1;
    }
    pool->attached[pool->nattached++] = s;
    s->pool = pool;
    s->ahead_state = AHEAD_NONE;
    if (s->fill > 0)
        queue_ahead(s);
    return 0;
}

void cp_scan_pool_stop(struct cp_scan_pool *pool)
{
    size_t i;
    unsigned t;

    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    for (t = 0; t < pool->nthreads; t++)
        pthread_join(pool->threads[t], NULL);
    for (i = 0; i < pool->nattached; i++) {
        struct cp_scan *s = pool->attached[i];
        s->pool = NULL;
        s->ahead_state = AHEAD_NONE;
        s->in_queue = 0;
    }
    pthread_cond_destroy(&pool->work);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    free(pool->queue);
    free(pool->attached);
    free(pool->threads);
    free(pool);
}

int cp_scan_refill(struct cp_scan *s)
{
    size_t keep = s->fill - s->pos, got = 0;
    char *buf = (char *)s->buf;
    int ahead = 0;

    memmove(buf, buf + s->pos, keep);
    s->buf_offset += s->pos;
    s->pos = 0;
    if (cp_slotsrc_is(&s->src) && keep == 0) {
        /* never-written slots of a slot source: counted as a raw log's
         * are (the slot count follows buf_offset), not expanded */
        uint64_t run = cp_slotsrc_skip_empty(&s->src);
        s->buf_offset += run * CP_LOG_RECORD_SIZE;
        s->st.empty += run;
    }
    if (s->pool && keep == 0 && take_ahead(s)) {
        ahead = 1; /* read and swapped by a reader */
        keep = s->fill;
        buf = (char *)s->buf;
    } else if (s->fd < 0 && s->parked && !cp_slotsrc_is(&s->src) &&
               !s->eof) {
        s->fd = reopen(s);
    }
    while (!ahead && !s->eof && (s->fd >= 0 || cp_slotsrc_is(&s->src)) &&
           keep + got < s->buf_size) {
        size_t want = s->buf_size - keep - got;
        ssize_t n = cp_slotsrc_is(&s->src)
                        ? cp_slotsrc_read(&s->src, buf + keep + got,
                                          s->buf_size - keep - got)
                        : pread(s->fd, buf + keep + got,
                                s->buf_size - keep - got,
                                (off_t)(s->buf_offset + keep + got));
        if (n < 0 && errno == EINTR && !cp_slotsrc_is(&s->src))
            continue;
        if (!cp_slotsrc_is(&s->src) && (n <= 0 || (size_t)n < want))
            s->eof = 1; /* a short read of a file: its end, for now */
        if (n <= 0)
            break;
        got += (size_t)n;
        if ((keep + got) % CP_LOG_RECORD_SIZE == 0)
            break; /* whole records: enough for now */
    }
    if (s->parked && s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
    if (s->parked)
        cp_slotsrc_park(&s->src);
    s->fill = keep + got;
    if (cp_slotsrc_problem(&s->src) && !s->have_problem) {
        /* the source is damaged here: what was decoded stands */
        struct cp_error *e = problem_room(s);
        if (e)
            *e = *cp_slotsrc_problem(&s->src);
    }
    if (s->swapped && !ahead) {
        /* keep < one record: every whole record here is new */
        size_t i, n = s->fill / CP_LOG_RECORD_SIZE;
        for (i = 0; i < n; i++)
            cp_rec_swap(&s->buf[i]);
    }
    if (s->fill < CP_LOG_RECORD_SIZE) {
        if (s->fill > 0 && !s->st.truncated) {
            s->st.truncated = s->fill;
            note(s, s->buf_offset,
                 "partial record at the end of the file (ignored)");
        }
        s->fill = s->pos = 0;
        return 0;
    }
    if (s->pool)
        queue_ahead(s);
    return 1;
}

void cp_scan_bad_kind(struct cp_scan *s, const union cp_rec *r)
{
    char what[64];

    s->st.bad++;
    snprintf(what, sizeof what, "unknown record kind %u (skipped)", r->kind);
    note(s, s->buf_offset + (uint64_t)((const char *)r - (const char *)s->buf),
         what);
}

void cp_scan_close(struct cp_scan *s)
{
    int saved = errno;

    if (s) {
        /* what cp_scan_place_in (CP_SCAN_RESUME) may take up again: the
         * file's first bytes, in the scan's own first buffer, as read
         * (and swapped) */
        s->resumable = s->in_place && !cp_slotsrc_is(&s->src) && !s->pool &&
                       s->fill >= CP_LOG_RECORD_SIZE &&
                       s->buf_offset == s->header_size &&
                       s->buf == (union cp_rec *)((char *)s + struct_place());
        if (s->fd >= 0 && !s->fd_borrowed)
            close(s->fd);
        cp_slotsrc_close(&s->src);
        s->fd = -1;
        if (s->problem != &no_memory_for_problem)
            free(s->problem);
        free(s->own_hdr);
        s->problem = NULL;
        s->own_hdr = NULL;
        s->have_problem = 0;
        if (!s->in_place) {
            free(s->ahead);
            free(s->buf);
            free(s->path);
            free(s);
        }
    }
    errno = saved;
}
