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

#include "cp_partial.h"
#include "cp_path.h"
#include "cp_scan.h"

static void note(struct cp_scan *s, uint64_t offset, const char *what)
{
    if (s->have_problem)
        return;
    s->have_problem = 1;
    cp_error_set(&s->problem, s->path, (int64_t)offset, "%s: offset %llu: %s",
                 s->path, (unsigned long long)offset, what);
}

struct cp_scan *cp_scan_open(const char *path, struct cp_error *err)
{
    return cp_scan_open_sized(path, CP_SCAN_BUFFER, err);
}

struct cp_scan *cp_scan_open_sized(const char *path, size_t buf_size,
                                   struct cp_error *err)
{
    struct cp_logfile *lf = NULL;
    struct cp_scan *s = NULL, *ret = NULL;
    struct stat sb;
    uint32_t endian;
    int saved;

    /* the reference reader decides whether this is a log at all */
    lf = cp_logfile_open(path, err);
    if (!lf)
        goto out;
    s = calloc(1, sizeof *s);
    if (!s) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto out;
    }
    s->fd = -1;
    buf_size -= buf_size % CP_LOG_RECORD_SIZE;
    s->buf_size = buf_size < CP_SCAN_BUFFER_MIN ? CP_SCAN_BUFFER_MIN : buf_size;
    if (posix_memalign((void **)&s->buf, 64, s->buf_size) != 0) {
        s->buf = NULL;
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto out;
    }
    if (!(s->path = strdup(path))) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto out;
    }
    s->hdr = *cp_logfile_header(lf);
    s->header_size = s->hdr.header_size;
    /* a log held by a node partial: its reader, at the first slot */
    s->partial = cp_logfile_take_partial(lf);
    if (s->partial) {
        s->swapped = cp_logfile_swapped(lf);
        s->buf_offset = s->header_size;
        ret = s;
        s = NULL;
        goto out;
    }
    /* the same file the reference reader checked, not the name again */
    s->fd = fcntl(cp_logfile_fd(lf), F_DUPFD_CLOEXEC, 0);
    if (s->fd < 0 || pread(s->fd, &endian, sizeof endian, 8) != sizeof endian ||
        fstat(s->fd, &sb) < 0) {
        cp_error_set(err, path, -1, "%s: cannot read: %s", path,
                     strerror(errno));
        goto out;
    }
    s->dev = (uint64_t)sb.st_dev;
    s->ino = (uint64_t)sb.st_ino;
    s->swapped = endian != CP_LOG_ENDIAN;
    s->buf_offset = s->header_size;
    /* read once, front to back: a larger readahead where the file is not
     * in the page cache */
    (void)posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    ret = s;
    s = NULL;
out:
    saved = errno;
    cp_logfile_close(lf);
    cp_scan_close(s);
    errno = saved;
    return ret;
}

void cp_scan_park(struct cp_scan *s)
{
    if (s->partial)
        return; /* read through the partial's reader, not a descriptor */
    s->parked = 1;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* A parked scan's file again: the same file (device, inode) as at open,
 * else -1 with the problem noted. */
static int reopen(struct cp_scan *s)
{
    struct stat sb;
    struct cp_error e;
    int fd = cp_path_open_input(s->path, cp_path_log_links(), &e);

    if (fd >= 0 && (fstat(fd, &sb) < 0 || (uint64_t)sb.st_dev != s->dev ||
                    (uint64_t)sb.st_ino != s->ino)) {
        close(fd);
        fd = -1;
        errno = ESTALE;
    }
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
        if (s->parked) {
            struct stat sb;
            struct cp_error e;
            fd = cp_path_open_input(s->path, cp_path_log_links(), &e);
            if (fd >= 0 && (fstat(fd, &sb) < 0 || (uint64_t)sb.st_dev != s->dev ||
                            (uint64_t)sb.st_ino != s->ino)) {
                close(fd);
                fd = -1;
            }
        }
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
    if (!pool || s->partial || s->pool || pool->nattached == pool->max_scans)
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
    if (s->pool && keep == 0 && take_ahead(s)) {
        ahead = 1; /* read and swapped by a reader */
        keep = s->fill;
        buf = (char *)s->buf;
    } else if (s->fd < 0 && s->parked) {
        s->fd = reopen(s);
    }
    while (!ahead && (s->fd >= 0 || s->partial) && keep + got < s->buf_size) {
        ssize_t n = s->partial
                        ? cp_partial_src_read(s->partial, buf + keep + got,
                                              s->buf_size - keep - got)
                        : pread(s->fd, buf + keep + got,
                                s->buf_size - keep - got,
                                (off_t)(s->buf_offset + keep + got));
        if (n < 0 && errno == EINTR)
            continue;
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
    s->fill = keep + got;
    if (s->partial && cp_partial_src_problem(s->partial) && !s->have_problem) {
        /* the partial is damaged here: what was decoded stands */
        s->have_problem = 1;
        s->problem = *cp_partial_src_problem(s->partial);
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
        if (s->fd >= 0)
            close(s->fd);
        cp_partial_src_close(s->partial);
        free(s->ahead);
        free(s->buf);
        free(s->path);
        free(s);
    }
    errno = saved;
}
