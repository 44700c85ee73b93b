/* cp_partial_src.c - node partials: the partials of a merge, and reading a
 * log out of one (see cp_partial_src.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "cp_grow.h"
#include "cp_partial_src.h"
#include "cp_path.h"

#define REC CP_LOG_RECORD_SIZE

/* The decoding buffers of a set's logs together, each log's this divided
 * among them (at most SRC_BUFFER, at least SRC_BUFFER_MIN), as the scans
 * divide theirs (CP_SCAN_BUDGET, cp_scan.h). */
#define SRC_BUDGET ((size_t)32 << 20)
#define SRC_BUFFER (64 * 1024)
#define SRC_BUFFER_MIN 4096

/* ---- the set of checked partials and the logs they hold ------------------ */

/* A valid partial the set's logs are read from: the file checked when the
 * directory was listed (device and inode), and its descriptor from that
 * check, kept and shared by every log it holds (pread needs no position)
 * while the limit on open files allows; otherwise -1 and each log opens
 * the partial itself, checked to be the same file.  A merge of 16,384
 * logs in 2048 partials opened a partial once per log per pass before:
 * 67,600 opens and 270,000 fstat and fcntl calls. */
struct partial_file {
    char *path;
    int fd;
    uint64_t dev, ino;
};

struct cp_partial_log {
    const struct cp_partial_set *set;
    size_t file;   /* the partial holding it: set->files[file] */
    struct cp_partial_entry e;
    char path[];   /* the log's name, as listed */
};

struct cp_partial_set {
    struct partial_file *files;
    size_t nfiles, capfiles;
    size_t nopen, open_max; /* descriptors kept, and the most kept */
    struct cp_partial_log **logs;
    size_t nlogs, caplogs;
};

/* The descriptors partials may keep: a quarter of the limit on open files
 * (the scans of raw logs and the outputs need the rest). */
static size_t files_open_max(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur == RLIM_INFINITY)
        return 1 << 20;
    return (size_t)rl.rlim_cur / 4;
}

struct cp_partial_set *cp_partial_set_create(void)
{
    struct cp_partial_set *set = calloc(1, sizeof *set);

    if (set)
        set->open_max = files_open_max();
    return set;
}

void cp_partial_set_destroy(struct cp_partial_set *set)
{
    int saved = errno;
    size_t i;

    if (!set)
        return;
    for (i = 0; i < set->nlogs; i++)
        free(set->logs[i]);
    for (i = 0; i < set->nfiles; i++) {
        if (set->files[i].fd >= 0)
            close(set->files[i].fd);
        free(set->files[i].path);
    }
    free(set->logs);
    free(set->files);
    free(set);
    errno = saved;
}

long cp_partial_set_add_file(struct cp_partial_set *set, const char *path,
                             int fd, uint64_t dev, uint64_t ino)
{
    struct partial_file *f;

    if (cp_grow((void **)&set->files, &set->capfiles, set->nfiles,
                sizeof *set->files) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    f = &set->files[set->nfiles];
    if (!(f->path = strdup(path))) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (fd >= 0 && set->nopen >= set->open_max) {
        close(fd);
        fd = -1;
    }
    f->fd = fd;
    f->dev = dev;
    f->ino = ino;
    set->nopen += fd >= 0;
    return (long)set->nfiles++;
}

const struct cp_partial_log *
cp_partial_set_add_log(struct cp_partial_set *set, long file, const char *path,
                       const struct cp_partial_entry *e)
{
    struct cp_partial_log *l;
    size_t len = strlen(path) + 1;

    if (cp_grow((void **)&set->logs, &set->caplogs, set->nlogs,
                sizeof *set->logs) < 0 ||
        !(l = malloc(sizeof *l + len)))
        return NULL;
    l->set = set;
    l->file = (size_t)file;
    l->e = *e;
    memcpy(l->path, path, len);
    set->logs[set->nlogs++] = l;
    return l;
}

/* ---- reading a log from its partial ------------------------------------- */

struct cp_partial_src {
    int fd;            /* -1 while parked */
    int shared;        /* fd is the set's: never closed here */
    uint64_t dev, ino; /* the partial checked when listed */
    struct cp_partial_entry e;
    char *partial;
    uint64_t pos;      /* in the log */
    uint64_t in_pos;   /* next byte of the section to decode */
    size_t ifill, ipos; /* ibuf */
    int started, ended, have_problem;
    uint64_t zeros;    /* never-written slots still to give */
    unsigned char hdr[sizeof(struct cp_log_header)];
    unsigned char slot[REC];
    size_t slot_len, slot_pos;
    struct cp_error problem;
    /* the slot before, per kind below CP_PARTIAL_KINDS:
     * prev[prev_of[kind] - 1], zeros at first; only the kinds the log has
     * (a handful), at most 15 of 64 bytes whatever the log claims; a slot
     * of another kind is decoded in zero_slot */
    unsigned char prev_of[CP_PARTIAL_KINDS];
    unsigned char (*prev)[REC];
    unsigned nprev;
    unsigned char zero_slot[REC];
    unsigned char *ibuf;
    size_t ibuf_size;
};

/* The decoding buffer of a section of size bytes: the logs of a set
 * divide a budget (SRC_BUDGET) as the scans do theirs, and a buffer is never more
 * than its section (most of a many-rank job's sections are a few KiB).  At
 * 16,384 logs a fixed 64 KiB each was 1 GiB. */
static size_t src_buffer_size(const struct cp_partial_set *set, uint64_t size)
{
    size_t n = set->nlogs ? SRC_BUDGET / set->nlogs : SRC_BUFFER;

    if (n > SRC_BUFFER)
        n = SRC_BUFFER;
    if (n < SRC_BUFFER_MIN)
        n = SRC_BUFFER_MIN;
    if ((uint64_t)n > size) /* the whole section, no more */
        n = size > 0 ? (size_t)size : 1;
    return n;
}

/* The previous slot of kind (zeros the first time, and always for a kind
 * past CP_PARTIAL_KINDS); NULL without memory. */
static unsigned char *src_prev(struct cp_partial_src *s, unsigned char kind)
{
    unsigned char(*bigger)[REC];

    if (kind >= CP_PARTIAL_KINDS) {
        memset(s->zero_slot, 0, REC);
        return s->zero_slot;
    }
    if (__builtin_expect(s->prev_of[kind] != 0, 1))
        return s->prev[s->prev_of[kind] - 1];
    bigger = realloc(s->prev, (s->nprev + 1) * sizeof *bigger);
    if (!bigger)
        return NULL;
    s->prev = bigger;
    memset(s->prev[s->nprev], 0, REC);
    s->prev_of[kind] = (unsigned char)++s->nprev;
    return s->prev[s->nprev - 1];
}

static void src_damage(struct cp_partial_src *s, uint64_t at, const char *what)
{
    if (!s->have_problem) {
        s->have_problem = 1;
        cp_error_set(&s->problem, s->partial, (int64_t)at,
                     "%s: offset %llu: %s: %s", s->partial,
                     (unsigned long long)at, s->e.name, what);
    }
}

/* The section's offset of the next byte to decode, in the partial. */
static uint64_t src_at(const struct cp_partial_src *s)
{
    return s->e.offset + s->in_pos - (s->ifill - s->ipos);
}

/* Refill ibuf from the section; -1 at its end or on an I/O error. */
static int src_refill(struct cp_partial_src *s)
{
    uint64_t left = s->e.size - s->in_pos;
    size_t want = left < s->ibuf_size ? (size_t)left : s->ibuf_size;
    ssize_t n;

    if (want == 0)
        return -1;
    if (s->fd < 0) {
        /* parked: the same partial again, or nothing */
        struct stat sb;
        s->fd = cp_path_open_input(s->partial, cp_path_log_links(), NULL);
        if (s->fd >= 0 && (fstat(s->fd, &sb) < 0 ||
                           (uint64_t)sb.st_dev != s->dev ||
                           (uint64_t)sb.st_ino != s->ino)) {
            close(s->fd);
            s->fd = -1;
        }
        if (s->fd < 0) {
            src_damage(s, src_at(s), "the partial was replaced or removed "
                                     "while it was read");
            return -1;
        }
    }
    do
        n = pread(s->fd, s->ibuf, want, (off_t)(s->e.offset + s->in_pos));
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return -1;
    s->ifill = (size_t)n;
    s->ipos = 0;
    s->in_pos += (uint64_t)n;
    return 0;
}

static inline int src_byte(struct cp_partial_src *s, unsigned char *b)
{
    if (__builtin_expect(s->ipos == s->ifill, 0) && src_refill(s) < 0)
        return -1;
    *b = s->ibuf[s->ipos++];
    return 0;
}

static int src_varint(struct cp_partial_src *s, uint64_t *v)
{
    unsigned shift;
    unsigned char b;

    *v = 0;
    if (__builtin_expect(s->ifill - s->ipos >= 10, 1)) {
        /* all of it in the buffer */
        const unsigned char *in = s->ibuf + s->ipos;
        for (shift = 0; shift < 70; shift += 7) {
            b = *in++;
            if (shift == 63 && (b & 0x7e))
                return -1;
            *v |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80)) {
                s->ipos = (size_t)(in - s->ibuf);
                return 0;
            }
        }
        return -1;
    }
    for (shift = 0; shift < 70; shift += 7) {
        if (src_byte(s, &b) < 0)
            return -1;
        if (shift == 63 && (b & 0x7e))
            return -1;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

/* A call against the previous call (CP_PARTIAL_OP_CALL, or op
 * CP_PARTIAL_OP_CALL_NEXT) into dst: 0, -1 on damage (a mask bit of a
 * number's byte or past the slot, a seq's distance past 32 bits, a varint
 * cut short), -2 without memory. */
static int src_call(struct cp_partial_src *s, unsigned char op,
                    unsigned char *dst)
{
    unsigned char *prev = src_prev(s, CP_REC_CALL), b;
    uint64_t mask = 0, dseq = 0, dstart, ddur, pstart, pend, start;

    if (!prev)
        return -2;
    if (op == CP_PARTIAL_OP_CALL &&
        (src_varint(s, &mask) < 0 || (mask >> (REC - 1)) != 0 ||
         (mask & CP_PARTIAL_CALL_NUMBERS)))
        return -1;
    prev[0] = CP_REC_CALL;
    for (; mask; mask &= mask - 1) {
        if (src_byte(s, &b) < 0)
            return -1;
        prev[__builtin_ctzll(mask) + 1] ^= b;
    }
    if ((op == CP_PARTIAL_OP_CALL &&
         (src_varint(s, &dseq) < 0 || dseq > UINT32_MAX)) ||
        src_varint(s, &dstart) < 0 || src_varint(s, &ddur) < 0)
        return -1;
    pstart = cp_partial_get64(prev + CP_PARTIAL_CALL_START);
    pend = cp_partial_get64(prev + CP_PARTIAL_CALL_END);
    start = (pend ? pend : pstart) + (uint64_t)cp_log4_unzigzag(dstart);
    cp_partial_put32(prev + CP_PARTIAL_CALL_SEQ,
                     cp_partial_get32(prev + CP_PARTIAL_CALL_SEQ) + 1u +
                         (uint32_t)cp_log4_unzigzag(dseq));
    cp_partial_put64(prev + CP_PARTIAL_CALL_START, start);
    cp_partial_put64(prev + CP_PARTIAL_CALL_END,
                     ddur ? start + (uint64_t)cp_log4_unzigzag(ddur - 1) +
                                (pend ? pend - pstart : 0)
                          : 0);
    memcpy(dst, prev, REC);
    return 0;
}

/* Decode the next slot (or the tail) into dst (REC bytes of room).
 * Returns the bytes produced (REC, or the tail's length), 0 at the end,
 * -1 on damage. */
static int src_next(struct cp_partial_src *s, unsigned char *dst)
{
    unsigned char op, kind, b;
    uint64_t v, at;
    int k, len = REC;

    if (s->zeros > 0) {
        s->zeros--;
        memset(dst, 0, REC);
        return REC;
    }
    if (s->ended)
        return 0;
    if (s->have_problem)
        return -1; /* nothing past the damage */
    at = src_at(s);
    if (src_byte(s, &op) < 0)
        goto damaged;
    switch (op) {
    case CP_PARTIAL_OP_EMPTY:
        if (src_varint(s, &v) < 0 || v == 0 ||
            v > (s->e.raw_size - s->pos) / REC)
            goto damaged;
        s->zeros = v - 1;
        memset(dst, 0, REC);
        break;
    case CP_PARTIAL_OP_SLOT: {
        unsigned char *prev;
        if (src_byte(s, &kind) < 0 || kind == CP_REC_EMPTY ||
            src_varint(s, &v) < 0 || (v >> (REC - 1)) != 0)
            goto damaged;
        prev = src_prev(s, kind);
        if (!prev) {
            src_damage(s, at, "out of memory");
            return -1;
        }
        prev[0] = kind;
        if (s->ifill - s->ipos >= REC) {
            /* every changed byte is in the buffer: no checks per byte */
            const unsigned char *in = s->ibuf + s->ipos;
            for (; v; v &= v - 1)
                prev[__builtin_ctzll(v) + 1] ^= *in++;
            s->ipos = (size_t)(in - s->ibuf);
        } else {
            for (; v; v &= v - 1) {
                if (src_byte(s, &b) < 0)
                    goto damaged;
                prev[__builtin_ctzll(v) + 1] ^= b;
            }
        }
        memcpy(dst, prev, REC);
        break;
    }
    case CP_PARTIAL_OP_CALL:
    case CP_PARTIAL_OP_CALL_NEXT:
        k = src_call(s, op, dst);
        if (k == -2) {
            src_damage(s, at, "out of memory");
            return -1;
        }
        if (k < 0)
            goto damaged;
        break;
    case CP_PARTIAL_OP_TAIL:
        if (src_varint(s, &v) < 0 || v == 0 || v >= REC)
            goto damaged;
        for (k = 0; k < (int)v; k++)
            if (src_byte(s, &dst[k]) < 0)
                goto damaged;
        len = (int)v;
        break;
    case CP_PARTIAL_OP_END:
        if (s->pos != s->e.raw_size) {
            src_damage(s, at, "the log ends early");
            return -1;
        }
        s->ended = 1;
        return 0;
    default:
        goto damaged;
    }
    if ((uint64_t)len > s->e.raw_size - s->pos) {
        src_damage(s, at, "more data than the log had");
        return -1;
    }
    return len;
damaged:
    src_damage(s, at, "undecodable data");
    return -1;
}

struct cp_partial_src *cp_partial_src_open(const struct cp_partial_log *log,
                                           struct cp_error *err)
{
    const struct partial_file *file = &log->set->files[log->file];
    struct cp_partial_src *s = calloc(1, sizeof *s), *ret = NULL;
    int saved;

    if (!s) {
        cp_error_set(err, log->path, -1, "%s: out of memory", log->path);
        goto out;
    }
    s->fd = -1;
    if (!(s->partial = strdup(file->path))) {
        cp_error_set(err, log->path, -1, "%s: out of memory", log->path);
        goto out;
    }
    s->e = log->e;
    s->ibuf_size = src_buffer_size(log->set, s->e.size);
    if (!(s->ibuf = malloc(s->ibuf_size))) {
        cp_error_set(err, log->path, -1, "%s: out of memory", log->path);
        goto out;
    }
    s->dev = file->dev;
    s->ino = file->ino;
    if (file->fd >= 0) {
        s->fd = file->fd; /* the checked file's, shared */
        s->shared = 1;
    } else {
        /* the partial again by name: the very file checked, or nothing */
        struct stat sb;
        s->fd = cp_path_open_input(file->path, cp_path_log_links(), err);
        if (s->fd < 0)
            goto out;
        if (fstat(s->fd, &sb) < 0) {
            cp_error_set(err, file->path, -1, "%s: %s", file->path,
                         strerror(errno));
            goto out;
        }
        if ((uint64_t)sb.st_dev != s->dev || (uint64_t)sb.st_ino != s->ino) {
            cp_error_set(err, file->path, -1,
                         "%s: replaced since it was checked; not read",
                         file->path);
            errno = ESTALE;
            goto out;
        }
    }
    if (pread(s->fd, s->hdr, sizeof s->hdr, (off_t)s->e.offset) !=
        (ssize_t)sizeof s->hdr) {
        cp_error_set(err, file->path, (int64_t)s->e.offset,
                     "%s: offset %llu: %s: header truncated", file->path,
                     (unsigned long long)s->e.offset, s->e.name);
        goto out;
    }
    s->in_pos = sizeof s->hdr;
    ret = s;
    s = NULL;
out:
    saved = errno;
    cp_partial_src_close(s);
    errno = saved;
    return ret;
}

ssize_t cp_partial_src_read(struct cp_partial_src *s, void *buf, size_t len)
{
    unsigned char *out = buf;
    size_t done = 0;

    while (done < len && s->pos < s->e.raw_size) {
        size_t n;
        if (s->pos < s->e.header_size) {
            /* the header, then its zero padding up to the first slot */
            uint64_t end = s->e.header_size < s->e.raw_size ? s->e.header_size
                                                            : s->e.raw_size;
            n = len - done;
            if (n > end - s->pos)
                n = (size_t)(end - s->pos);
            if (s->pos < s->e.header_bytes) {
                if (n > s->e.header_bytes - s->pos)
                    n = (size_t)(s->e.header_bytes - s->pos);
                memcpy(out + done, s->hdr + s->pos, n);
            } else
                memset(out + done, 0, n);
        } else {
            int r;
            s->started = 1;
            if (s->slot_pos == s->slot_len && s->zeros > 0 && done > 0)
                break; /* a run next: the caller skips it */
            if (s->slot_pos == s->slot_len && s->zeros > 0 &&
                len - done >= REC) {
                /* a run of never-written slots: straight into buf */
                uint64_t whole = (len - done) / REC;
                if (whole > s->zeros)
                    whole = s->zeros;
                n = (size_t)whole * REC;
                memset(out + done, 0, n);
                s->zeros -= whole;
                s->pos += n;
                done += n;
                continue;
            }
            if (s->slot_pos == s->slot_len && len - done >= REC) {
                /* a whole slot: decoded in place */
                r = src_next(s, out + done);
                if (r < 0)
                    return done > 0 ? (ssize_t)done : -1;
                if (r == 0)
                    break;
                n = (size_t)r;
            } else {
                if (s->slot_pos == s->slot_len) {
                    r = src_next(s, s->slot);
                    if (r < 0)
                        return done > 0 ? (ssize_t)done : -1;
                    if (r == 0)
                        break;
                    s->slot_len = (size_t)r;
                    s->slot_pos = 0;
                }
                n = s->slot_len - s->slot_pos;
                if (n > len - done)
                    n = len - done;
                memcpy(out + done, s->slot + s->slot_pos, n);
                s->slot_pos += n;
            }
        }
        s->pos += n;
        done += n;
    }
    return (ssize_t)done;
}

uint64_t cp_partial_src_skip_empty(struct cp_partial_src *s)
{
    unsigned char op, slot[REC];
    uint64_t skipped = 0;

    if (s->pos < s->e.header_size || s->slot_pos != s->slot_len)
        return 0; /* not at a slot's start */
    s->started = 1;
    for (;;) {
        if (s->zeros > 0) {
            /* src_next checked the run against the log's size */
            skipped += s->zeros;
            s->pos += s->zeros * REC;
            s->zeros = 0;
        }
        if (s->ended || s->have_problem || src_byte(s, &op) < 0)
            break;
        s->ipos--; /* looked at, not taken: the byte is in the buffer */
        /* a run: src_next decodes and checks its count, gives its first
         * slot and leaves the rest in s->zeros */
        if (op != CP_PARTIAL_OP_EMPTY || src_next(s, slot) != REC)
            break;
        skipped++;
        s->pos += REC;
    }
    return skipped;
}

int cp_partial_src_seek(struct cp_partial_src *s, uint64_t pos)
{
    if (pos == s->pos)
        return 0;
    if (s->started || pos > s->e.header_size) {
        errno = EINVAL;
        return -1;
    }
    s->pos = pos;
    return 0;
}

void cp_partial_src_park(struct cp_partial_src *s)
{
    if (s->shared)
        return; /* one descriptor per partial, kept */
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

const struct cp_error *cp_partial_src_problem(const struct cp_partial_src *s)
{
    return s->have_problem ? &s->problem : NULL;
}

void cp_partial_src_close(struct cp_partial_src *s)
{
    int saved = errno;

    if (s) {
        if (s->fd >= 0 && !s->shared)
            close(s->fd);
        free(s->partial);
        free(s->prev);
        free(s->ibuf);
        free(s);
    }
    errno = saved;
}

/* ---- as a cp_slotsrc ---------------------------------------------------- */

static ssize_t slots_read(void *impl, void *buf, size_t len)
{
    return cp_partial_src_read(impl, buf, len);
}

static uint64_t slots_skip_empty(void *impl)
{
    return cp_partial_src_skip_empty(impl);
}

static void slots_park(void *impl)
{
    cp_partial_src_park(impl);
}

static const struct cp_error *slots_problem(const void *impl)
{
    return cp_partial_src_problem(impl);
}

static void slots_close(void *impl)
{
    cp_partial_src_close(impl);
}

static const struct cp_slotsrc_ops partial_src_ops = {
    .read = slots_read,
    .skip_empty = slots_skip_empty,
    .park = slots_park,
    .problem = slots_problem,
    .close = slots_close,
};

struct cp_slotsrc cp_partial_src_slots(struct cp_partial_src *src)
{
    struct cp_slotsrc slots = {&partial_src_ops, src};
    return slots;
}
