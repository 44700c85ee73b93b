/* cp_logread.c - streaming reader of rank logs. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cp_log4src.h"
#include "cp_logread.h"
#include "cp_partial_src.h"
#include "cp_path.h"

#define READ_BUFFER (64 * 1024)
/* Logs past this size get POSIX_FADV_SEQUENTIAL (Linux reads 128 KiB
 * ahead of a file by default, twice that with the hint). */
#define SEQUENTIAL_MIN (256 * 1024)

struct cp_logfile {
    int fd;
    int fd_borrowed; /* fd belongs to a cp_logfile_known: not closed here */
    int eof;         /* a read came back short: the end, nothing more to ask */
    struct stat st_open; /* the file as opened (a raw log) */
    /* the slots of a log held by a partial, or of a version-4 log (then
     * the source owns fd unless fd_borrowed was set before), else none:
     * a raw log of one slot per record, read by offset */
    struct cp_slotsrc src;
    int swapped;
    char *path;
    struct cp_log_header hdr;
    uint32_t header_size, record_size;
    uint64_t offset; /* of buf[0] in the file */
    size_t fill, pos;
    uint64_t slot;
    struct cp_logfile_stats st;
    int have_problem;
    struct cp_error problem;
    unsigned char buf[READ_BUFFER];
};

/* len bytes at offset of a raw log (fewer at its end); a short count
 * sets lf->eof, after which nothing more is asked of the file. */
static size_t pread_full(struct cp_logfile *lf, void *buf, size_t len,
                         uint64_t offset)
{
    size_t got = 0;

    while (got < len && !lf->eof) {
        ssize_t n = pread(lf->fd, (char *)buf + got, len - got,
                          (off_t)(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (size_t)n < len - got)
            lf->eof = 1;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* The next bytes of the log's slots after offset (a raw log: at offset;
 * a slot source: where it stands). */
static size_t log_read(struct cp_logfile *lf, void *buf, size_t len,
                       uint64_t offset)
{
    ssize_t n;

    if (!cp_slotsrc_is(&lf->src))
        return pread_full(lf, buf, len, offset);
    /* one read: a short one stops at the end, at damage, or before a run
     * of never-written slots, which cp_logfile_next skips */
    n = cp_slotsrc_read(&lf->src, buf, len);
    return n > 0 ? (size_t)n : 0;
}

/* Whether h (host order, checked) is of a log whose slots are a ring and
 * a stream (version 4), not one 64-byte slot per record on disk. */
static int is_log4(const struct cp_log_header *h)
{
    return h->version > CP_LOG_VERSION_SLOTS;
}

/* Read the raw version-4 log of lf (lf->fd, its header in lf->hdr) through
 * a cp_log4src: its fields checked against the file's size, the source
 * given lf's descriptor (lf->fd_borrowed: shared with the caller's
 * cp_logfile_known; else the source's from now on); size: the file's,
 * when it was checked (no fstat again: one per log and pass).  0, or -1 with err
 * filled. */
static int attach_log4(struct cp_logfile *lf, uint64_t dev, uint64_t ino,
                       uint64_t size, struct cp_error *err)
{
    struct cp_log4src *src;

    if (cp_log4src_check(lf->path, &lf->hdr, size, err) < 0)
        return -1;
    src = cp_log4src_open(lf->path, lf->fd, !lf->fd_borrowed, dev, ino,
                          &lf->hdr, lf->swapped, err);
    if (!src)
        return -1;
    lf->src = cp_log4src_slots(src);
    lf->fd_borrowed = 1; /* the source's, or the caller's: not lf's */
    return 0;
}

static void terminate(char *s, size_t size)
{
    s[size - 1] = '\0';
}

/* A reader with its fields zeroed; its buffer is not (it is only read
 * where a read filled it): a pass over thousands of logs clears no
 * 64 KiB per log. */
static struct cp_logfile *logfile_new(void)
{
    struct cp_logfile *lf = malloc(sizeof *lf);

    if (lf)
        memset(lf, 0, offsetof(struct cp_logfile, buf));
    return lf;
}

/* Open a raw log: no link (unless --follow-symlinks, and then only to a
 * file of the invoking user), no fifo or device: a regular file or
 * nothing.  Its descriptor and *st, or -1 with err filled. */
static int open_raw(const char *path, struct stat *st, struct cp_error *err)
{
    int fd = cp_path_open_input_stat(path, cp_path_log_links(), st, err);

    if (fd < 0 && errno == ELOOP && cp_path_log_links() == CP_PATH_NOFOLLOW)
        cp_error_set(err, path, -1,
                     "%s: a symbolic link, not followed "
                     "(--follow-symlinks reads links to files of your "
                     "own)",
                     path);
    return fd;
}

/* Check the header h of path, got bytes of it read, and bring it to host
 * byte order (*swapped: it was of the other one).  0, or -1 with err
 * filled (naming the file and the offset). */
static int header_check(const char *path, struct cp_log_header *h, size_t got,
                        int *swapped, struct cp_error *err)
{
    *swapped = 0;
    if (got == 0) {
        cp_error_set(err, path, 0, "%s: empty file, not a collprof log", path);
        return -1;
    }
    if (got < sizeof h->magic + sizeof h->endian ||
        memcmp(h->magic, CP_LOG_MAGIC, sizeof h->magic) != 0) {
        cp_error_set(err, path, 0,
                     "%s: offset 0: not a collprof log (bad magic)", path);
        return -1;
    }
    if (h->endian == CP_LOG_ENDIAN_SWAPPED)
        *swapped = 1;
    else if (h->endian != CP_LOG_ENDIAN) {
        cp_error_set(err, path, 8, "%s: offset 8: unknown byte-order mark 0x%08x",
                     path, h->endian);
        return -1;
    }
    if (got < sizeof *h) {
        cp_error_set(err, path, (int64_t)got,
                     "%s: offset %zu: header truncated (%zu of %zu bytes)",
                     path, got, got, sizeof *h);
        return -1;
    }
    if (*swapped)
        cp_log_header_swap(h);
    if (h->version == 0 || h->version > CP_LOG_VERSION) {
        cp_error_set(err, path, 12,
                     "%s: offset 12: log format version %u, this collprof "
                     "reads up to %u",
                     path, h->version, CP_LOG_VERSION);
        return -1;
    }
    if (h->record_size != CP_LOG_RECORD_SIZE || h->header_size < sizeof *h ||
        h->header_size > (1u << 20)) {
        cp_error_set(err, path, 16,
                     "%s: offset 16: bad sizes (header %u, record %u)", path,
                     h->header_size, h->record_size);
        return -1;
    }
    terminate(h->node, sizeof h->node);
    terminate(h->hostname, sizeof h->hostname);
    terminate(h->job_id, sizeof h->job_id);
    terminate(h->step_id, sizeof h->step_id);
    terminate(h->timer_reason, sizeof h->timer_reason);
    terminate(h->program, sizeof h->program);
    return 0;
}

/* A reader of the log at path, raw, or held by the partial log held
 * (then read from it).  NULL with err filled. */
static struct cp_logfile *logfile_open(const char *path,
                                       const struct cp_partial_log *held,
                                       struct cp_error *err)
{
    struct cp_logfile *lf = NULL, *ret = NULL;
    struct cp_log_header *h;
    size_t got;
    int saved;

    lf = logfile_new();
    if (lf)
        lf->fd = -1;
    if (!lf || !(lf->path = strdup(path))) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto out;
    }
    h = &lf->hdr;
    /* a log that a node partial holds is read from it (cp_partial_src.h),
     * as slots whatever its version: the partial holds its slots */
    if (held) {
        struct cp_partial_src *psrc = cp_partial_src_open(held, err);
        ssize_t n;
        if (!psrc)
            goto out;
        lf->src = cp_partial_src_slots(psrc);
        n = cp_partial_src_read(psrc, h, sizeof *h);
        got = n > 0 ? (size_t)n : 0;
        if (header_check(path, h, got, &lf->swapped, err) < 0)
            goto out;
        if (cp_partial_src_seek(psrc, h->header_size) < 0) {
            cp_error_set(err, path, h->header_size, "%s: cannot seek: %s",
                         path, strerror(errno));
            goto out;
        }
    } else {
        lf->fd = open_raw(path, &lf->st_open, err);
        if (lf->fd < 0)
            goto out;
        got = pread_full(lf, h, sizeof *h, 0);
        if (header_check(path, h, got, &lf->swapped, err) < 0)
            goto out;
        if (is_log4(h) && attach_log4(lf, (uint64_t)lf->st_open.st_dev,
                                      (uint64_t)lf->st_open.st_ino,
                                      (uint64_t)lf->st_open.st_size, err) < 0)
            goto out;
    }
    lf->header_size = h->header_size;
    lf->record_size = h->record_size;
    /* a raw log is read by offset (pread): nothing to seek */
    lf->eof = 0;
    lf->offset = lf->header_size;
    ret = lf;
    lf = NULL;
out:
    saved = errno;
    cp_logfile_close(lf);
    errno = saved;
    return ret;
}

struct cp_logfile *cp_logfile_open(const char *path, struct cp_error *err)
{
    return logfile_open(path, NULL, err);
}

const struct cp_log_header *cp_logfile_header(const struct cp_logfile *lf)
{
    return &lf->hdr;
}

int cp_logfile_fd(const struct cp_logfile *lf)
{
    return lf->fd;
}

int cp_logfile_swapped(const struct cp_logfile *lf)
{
    return lf->swapped;
}

struct cp_slotsrc cp_logfile_take_src(struct cp_logfile *lf)
{
    struct cp_slotsrc src = lf->src;

    lf->src.ops = NULL;
    lf->src.impl = NULL;
    return src;
}

const char *cp_logfile_path(const struct cp_logfile *lf)
{
    return lf->path;
}

static void note_problem(struct cp_logfile *lf, uint64_t offset,
                         const char *what)
{
    if (lf->have_problem)
        return;
    lf->have_problem = 1;
    cp_error_set(&lf->problem, lf->path, (int64_t)offset, "%s: offset %llu: %s",
                 lf->path, (unsigned long long)offset, what);
}

int cp_logfile_next(struct cp_logfile *lf, union cp_rec *rec, uint64_t *slot)
{
    for (;;) {
        const unsigned char *p;
        if (lf->fill - lf->pos < CP_LOG_RECORD_SIZE) {
            size_t keep = lf->fill - lf->pos, got;
            memmove(lf->buf, lf->buf + lf->pos, keep);
            lf->offset += lf->pos;
            lf->pos = 0;
            if (cp_slotsrc_is(&lf->src) && keep == 0) {
                /* never-written slots of a slot source: counted as a
                 * raw log's are, not expanded */
                uint64_t run = cp_slotsrc_skip_empty(&lf->src);
                lf->offset += run * CP_LOG_RECORD_SIZE;
                lf->slot += run;
                lf->st.empty += run;
            }
            got = log_read(lf, lf->buf + keep, sizeof lf->buf - keep,
                           lf->offset + keep);
            lf->fill = keep + got;
            if (cp_slotsrc_problem(&lf->src) && !lf->have_problem) {
                /* the source is damaged here: what was decoded stands */
                lf->have_problem = 1;
                lf->problem = *cp_slotsrc_problem(&lf->src);
            }
            if (lf->fill < CP_LOG_RECORD_SIZE) {
                if (lf->fill > 0 && !lf->st.truncated) {
                    lf->st.truncated = lf->fill;
                    note_problem(lf, lf->offset,
                                 "partial record at the end of the file "
                                 "(ignored)");
                }
                return 0;
            }
        }
        p = lf->buf + lf->pos;
        lf->pos += CP_LOG_RECORD_SIZE;
        lf->slot++;
        if (p[0] == CP_REC_EMPTY) {
            lf->st.empty++;
            continue;
        }
        if (p[0] >= CP_REC_KIND_MAX) {
            char what[64];
            lf->st.bad++;
            snprintf(what, sizeof what, "unknown record kind %u (skipped)",
                     p[0]);
            note_problem(lf, lf->offset + lf->pos - CP_LOG_RECORD_SIZE, what);
            continue;
        }
        memcpy(rec, p, CP_LOG_RECORD_SIZE);
        if (lf->swapped)
            cp_rec_swap(rec);
        if (slot)
            *slot = lf->slot - 1;
        lf->st.records++;
        return 1;
    }
}

void cp_logfile_stats(const struct cp_logfile *lf, struct cp_logfile_stats *st)
{
    *st = lf->st;
}

const struct cp_error *cp_logfile_problem(const struct cp_logfile *lf)
{
    return lf->have_problem ? &lf->problem : NULL;
}

void cp_logfile_close(struct cp_logfile *lf)
{
    int saved = errno;

    if (lf) {
        if (lf->fd >= 0 && !lf->fd_borrowed)
            close(lf->fd);
        cp_slotsrc_close(&lf->src);
        free(lf->path);
        free(lf);
    }
    errno = saved;
}

/* ---- one check per file ---------------------------------------------------- */

int cp_logfile_check_first(const char *path, int keep_fd,
                           struct cp_logfile_known *k, void *first,
                           size_t first_len, size_t *first_got,
                           struct cp_error *err)
{
    struct stat sb;
    /* the header's padding up to where the records begin, read past */
    char pad[CP_LOG_HEADER_SIZE - sizeof(struct cp_log_header)];
    struct iovec iov[3];
    size_t got = 0, want;
    ssize_t n;
    int fd = -1, rc = -1, saved;

    memset(k, 0, sizeof *k);
    k->fd = -1;
    if (first_got)
        *first_got = 0;
    /* a raw log: its header read straight into k (no reader, no buffer:
     * this runs once per log, thousands of times at scale), and with it,
     * in the same read, the records up to first_len bytes past a header
     * of the usual size */
    fd = open_raw(path, &sb, err);
    if (fd < 0)
        return -1;
    iov[0].iov_base = &k->hdr;
    iov[0].iov_len = sizeof k->hdr;
    iov[1].iov_base = pad;
    iov[1].iov_len = sizeof pad;
    iov[2].iov_base = first;
    iov[2].iov_len = first_len;
    want = first && first_len ? sizeof k->hdr + sizeof pad + first_len
                              : sizeof k->hdr;
    do
        n = preadv(fd, iov, first && first_len ? 3 : 1, 0);
    while (n < 0 && errno == EINTR);
    got = n > 0 ? (size_t)n : 0;
    /* a short first read (a file being written): the header, as
     * cp_logfile_open reads it */
    while (got < sizeof k->hdr) {
        n = pread(fd, (char *)&k->hdr + got, sizeof k->hdr - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (header_check(path, &k->hdr, got < sizeof k->hdr ? got : sizeof k->hdr,
                     &k->swapped, err) < 0)
        goto out;
    /* a version-4 log's ring and stream are where its header says, in a
     * file that holds them */
    if (is_log4(&k->hdr) &&
        cp_log4src_check(path, &k->hdr, (uint64_t)sb.st_size, err) < 0)
        goto out;
    /* the bytes past the header are the first records where the header
     * has the usual size (not in a version-4 log: there the ring's index) */
    if (first_got && want > sizeof k->hdr && got > want - first_len &&
        k->hdr.header_size == CP_LOG_HEADER_SIZE && !is_log4(&k->hdr))
        *first_got = got - (want - first_len);
    k->dev = (uint64_t)sb.st_dev;
    k->ino = (uint64_t)sb.st_ino;
    k->size = (uint64_t)sb.st_size;
    if (keep_fd) {
        k->fd = fd;
        fd = -1;
        /* read front to back by every pass: a larger readahead where the
         * file is not in the page cache (it stays with the descriptor);
         * the default one already covers a small file */
        if (k->size > SEQUENTIAL_MIN)
            (void)posix_fadvise(k->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    rc = 0;
out:
    saved = errno;
    if (fd >= 0)
        close(fd);
    errno = saved;
    return rc;
}

int cp_logfile_check(const char *path, int keep_fd,
                     struct cp_logfile_known *k, struct cp_error *err)
{
    return cp_logfile_check_first(path, keep_fd, k, NULL, 0, NULL, err);
}

int cp_logfile_check_held(const char *path, const struct cp_partial_log *held,
                          struct cp_logfile_known *k, struct cp_error *err)
{
    struct cp_logfile *lf;

    /* checked through its reader, as cp_logfile_open checks a raw log */
    memset(k, 0, sizeof *k);
    k->fd = -1;
    lf = logfile_open(path, held, err);
    if (!lf)
        return -1;
    k->hdr = lf->hdr;
    k->swapped = lf->swapped;
    k->partial = held;
    cp_logfile_close(lf);
    return 0;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

void cp_logfile_close_fds(int *fds, size_t n)
{
    size_t i = 0, j;
    int saved = errno;

    qsort(fds, n, sizeof *fds, compare_ints);
    while (i < n) {
        /* a run of consecutive descriptors, every one of them given */
        for (j = i + 1; j < n && fds[j] == fds[j - 1] + 1; j++)
            ;
#ifdef SYS_close_range
        if (j - i > 1 &&
            syscall(SYS_close_range, (unsigned)fds[i], (unsigned)fds[j - 1],
                    0u) == 0) {
            i = j;
            continue;
        }
#endif
        for (; i < j; i++)
            close(fds[i]);
    }
    errno = saved;
}

void cp_logfile_known_release(struct cp_logfile_known *k)
{
    int saved = errno;

    if (k && k->fd >= 0) {
        close(k->fd);
        k->fd = -1;
    }
    errno = saved;
}

int cp_logfile_reopen_fd(const char *path, const struct cp_logfile_known *k,
                         struct cp_error *err)
{
    struct stat sb;
    struct cp_error e;
    int fd, saved;

    /* by cp_path's rules, as the first open: never through a link unless
     * --follow-symlinks (and then to a regular file of the user's, looked
     * at before it is opened), by the anchored directory's descriptor,
     * never blocking on a fifo put in its place; O_NONBLOCK does not
     * change reads of a regular file, so it stays */
    fd = cp_path_open_input_stat(path, cp_path_log_links(), &sb, &e);
    if (fd < 0) {
        saved = errno;
        cp_error_set(err, path, -1,
                     "%s: cannot open it again: %s (it was read before)", path,
                     e.text);
        errno = saved;
        return -1;
    }
    if ((uint64_t)sb.st_dev != k->dev ||
        (uint64_t)sb.st_ino != k->ino) {
        close(fd);
        cp_error_set(err, path, -1,
                     "%s: the file was replaced since it was first read "
                     "(not the same file: not read again)",
                     path);
        errno = ESTALE;
        return -1;
    }
    return fd;
}

struct cp_logfile *cp_logfile_reopen(const char *path,
                                     const struct cp_logfile_known *k,
                                     struct cp_error *err)
{
    struct cp_logfile *lf;

    if (!k || k->partial)
        return logfile_open(path, k ? k->partial : NULL, err);
    lf = logfile_new();
    if (!lf || !(lf->path = strdup(path))) {
        free(lf);
        cp_error_set(err, path, -1, "%s: out of memory", path);
        return NULL;
    }
    lf->hdr = k->hdr;
    lf->swapped = k->swapped;
    lf->header_size = k->hdr.header_size;
    lf->record_size = k->hdr.record_size;
    lf->offset = lf->header_size;
    if (k->fd >= 0) {
        lf->fd = k->fd;
        lf->fd_borrowed = 1;
    } else {
        lf->fd = cp_logfile_reopen_fd(path, k, err);
        if (lf->fd < 0) {
            cp_logfile_close(lf);
            return NULL;
        }
    }
    if (is_log4(&lf->hdr) &&
        attach_log4(lf, k->dev, k->ino, k->size, err) < 0) {
        cp_logfile_close(lf);
        return NULL;
    }
    return lf;
}

int cp_logfile_reopen_src(const char *path, const struct cp_logfile_known *k,
                          struct cp_slotsrc *src, struct cp_error *err)
{
    struct cp_log4src *s = NULL;
    int fd = k->fd, own = fd < 0;

    if (k->partial || !is_log4(&k->hdr)) {
        cp_error_set(err, path, -1, "%s: not a version-4 log read raw", path);
        return -1;
    }
    if (own && (fd = cp_logfile_reopen_fd(path, k, err)) < 0)
        return -1;
    /* as attach_log4: the fields checked, the descriptor the source's
     * when it was opened here */
    if (cp_log4src_check(path, &k->hdr, k->size, err) == 0)
        s = cp_log4src_open(path, fd, own, k->dev, k->ino, &k->hdr,
                            k->swapped, err);
    if (!s) {
        if (own)
            close(fd);
        return -1;
    }
    *src = cp_log4src_slots(s);
    return 0;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

int cp_logdir_sorted(const char *path, char **paths, size_t n,
                     struct cp_error *err)
{
    if (n == 0) {
        cp_error_set(err, path, -1, "%s: no collprof logs (*%s) in this "
                     "directory", path, CP_LOG_SUFFIX);
        return -1;
    }
    qsort(paths, n, sizeof *paths, compare_paths);
    return (int)n;
}

int cp_logdir_list(const char *path, char ***paths_out, struct cp_error *err)
{
    struct stat sb;
    DIR *dir = NULL;
    struct dirent *de;
    char **paths = NULL, **bigger;
    size_t n = 0, cap = 0;
    int rc = -1;

    *paths_out = NULL;
    if (cp_path_stat(path, &sb) < 0) {
        cp_error_set(err, path, -1, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISDIR(sb.st_mode)) {
        paths = calloc(2, sizeof *paths);
        if (!paths || !(paths[0] = strdup(path))) {
            cp_error_set(err, path, -1, "%s: out of memory", path);
            goto out;
        }
        n = 1;
        rc = 1;
        goto out;
    }
    /* by the directory's descriptor when the command anchored it: the
     * directory listed is the one every log is then opened in */
    dir = cp_path_opendir(path, err);
    if (!dir)
        goto out;
    while ((de = readdir(dir)) != NULL) {
        size_t len;
        if (!has_suffix(de->d_name, CP_LOG_SUFFIX))
            continue;
        if (n + 2 > cap) {
            cap = cap ? cap * 2 : 16;
            bigger = realloc(paths, cap * sizeof *paths);
            if (!bigger) {
                cp_error_set(err, path, -1, "%s: out of memory", path);
                goto out;
            }
            paths = bigger;
        }
        len = strlen(path) + strlen(de->d_name) + 2;
        paths[n] = malloc(len);
        if (!paths[n]) {
            cp_error_set(err, path, -1, "%s: out of memory", path);
            goto out;
        }
        snprintf(paths[n], len, "%s/%s", path, de->d_name);
        paths[++n] = NULL;
    }
    rc = cp_logdir_sorted(path, paths, n, err);
out:
    if (dir)
        closedir(dir);
    if (rc < 0) {
        cp_logdir_free(paths);
        paths = NULL;
    }
    *paths_out = paths;
    return rc;
}

void cp_logdir_free(char **paths)
{
    size_t i;

    if (!paths)
        return;
    for (i = 0; paths[i]; i++)
        free(paths[i]);
    free(paths);
}

/* ---- times no job can have ----------------------------------------------- */

const char *cp_log_time_problem(uint64_t start_ns, uint64_t end_ns)
{
    if (start_ns < CP_TIME_MIN_NS)
        return "starts before 2000";
    if (start_ns >= CP_TIME_MAX_NS)
        return "starts after 2100";
    if (end_ns < start_ns)
        return "ends before it starts";
    if (end_ns >= CP_TIME_MAX_NS)
        return "ends after 2100";
    if (end_ns - start_ns > CP_SPAN_MAX_NS)
        return "lasts over a year";
    return NULL;
}

/* "2026-12-01 20:59:01 UTC", or the raw number when gmtime cannot say. */
static void utc_text(uint64_t ns, char *buf, size_t size)
{
    time_t t = (time_t)(ns / UINT64_C(1000000000));
    struct tm tm;

    if (ns / UINT64_C(1000000000) > (uint64_t)INT64_MAX / 2 ||
        !gmtime_r(&t, &tm) ||
        strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
        snprintf(buf, size, "%llu ns", (unsigned long long)ns);
}

int cp_log_header_time_problem(const struct cp_log_header *h, uint64_t *offset,
                               char *buf, size_t size)
{
    const char *why = NULL;
    uint64_t at = offsetof(struct cp_log_header, start_realtime_ns);
    uint64_t v = h->start_realtime_ns;
    char when[64];

    if (v < CP_TIME_MIN_NS)
        why = "before 2000";
    else if (v >= CP_TIME_MAX_NS)
        why = "after 2100";
    if (!why && h->end_realtime_ns != 0) {
        at = offsetof(struct cp_log_header, end_realtime_ns);
        v = h->end_realtime_ns;
        if (v < h->start_realtime_ns)
            why = "before the log's start";
        else if (v >= CP_TIME_MAX_NS)
            why = "after 2100";
        else if (v - h->start_realtime_ns > CP_SPAN_MAX_NS)
            why = "over a year after the log's start";
    }
    if (!why)
        return 0;
    utc_text(v, when, sizeof when);
    snprintf(buf, size, "%s time %s: %s, a time no job can have (the "
             "header's times are not used)",
             at == offsetof(struct cp_log_header, start_realtime_ns) ? "start"
                                                                    : "end",
             when, why);
    *offset = at;
    return 1;
}
