/* cp_log4src.c - the slots of a version-4 log: stream, then ring (see
 * cp_log4src.h; the format: include/collprof/cp_logfmt.h, "version 4"). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_log4src.h"
#include "cp_logswap.h"
#include "cp_path.h"

#define REC CP_LOG_RECORD_SIZE
#define BLOCK_HDR sizeof(struct cp_log4_block)
/* Ring cells read at a time: their index words twice and the cells, all
 * in the block buffer (32 x (8 + 64 + 8) = 2560 bytes). */
#define RING_BATCH 32u

_Static_assert(RING_BATCH * (2 * sizeof(uint64_t) + REC) <= CP_LOG4_BLOCK_MAX,
               "a batch of cells fits the block buffer");

/* Offsets of the version-4 header fields, named in header errors. */
#define OFF_RING_SLOTS offsetof(struct cp_log_header, ring_slots)
#define OFF_DICT_SLOTS offsetof(struct cp_log_header, dict_slots)
#define OFF_RING_OFFSET offsetof(struct cp_log_header, ring_offset)
#define OFF_STREAM_OFFSET offsetof(struct cp_log_header, stream_offset)
#define OFF_SYNC_BYTES offsetof(struct cp_log_header, sync_bytes)
#define OFF_POLICY offsetof(struct cp_log_header, policy_first)

/* A signature: the fields its calls share, its key's counter and its
 * last duration. */
struct sig {
    uint64_t comm_id, count;
    uint64_t lastdur; /* the last finished call's end - start, first 0 */
    int32_t peer;
    uint32_t rank, nranks, stream;
    uint32_t key;     /* the index whose seqlast its calls use */
    uint32_t seqlast; /* at the key's own index: the last seq, first ~0 */
    uint16_t flags;
    uint8_t op, dtype, redop, timer;
    int8_t result;
    unsigned char head[8]; /* its calls' first 8 bytes: kind .. flags */
};

/* A template (CP_LOG4_TEMPLATE), in host order, and its fields' last
 * values. */
struct tmpl {
    union cp_rec rec;
    uint64_t last[CP_LOG4_FIELDS_MAX];
};

/* PHASE_WAIT: following a log still written (cp_log4src_follow), at the
 * stream's end as the header last said it; a refresh may move it on. */
enum phase { PHASE_STREAM, PHASE_RING, PHASE_END, PHASE_WAIT };

struct cp_log4src {
    char *path;
    int fd;          /* -1 while parked */
    int own_fd;      /* fd is the source's: closed by park and close */
    uint64_t dev, ino;
    int swapped;
    uint64_t t0;     /* the header's start_realtime_ns */
    uint32_t ring_slots, dict_slots;
    uint64_t ring_offset, stream_offset, stream_limit;
    uint32_t sync_bytes;   /* CP_HDR_SYNC: the sync points' spacing, else 0 */
    uint64_t file_end;     /* where a short read found the file's end */
    enum phase phase;
    /* the stream */
    uint64_t next_block;   /* file offset of the next block's header */
    uint64_t block_at;     /* of the current one's */
    uint64_t payload_at;   /* of its payload's first byte */
    int have_block, block_past_end;
    size_t blen, bpos;     /* its payload in buf: bytes, next */
    uint32_t bslots, bdone; /* slots it says, slots decoded */
    struct sig *sig;
    uint32_t nsig, sig_alloc;
    uint64_t t_call, t_gpu;
    uint64_t call_start;   /* the latest call record's start_ns */
    uint64_t dev_start, dev_end; /* the latest device interval's */
    uint32_t last_group;
    struct tmpl *tmpl;     /* at most CP_LOG4_TMPL_MAX (128 KiB) */
    uint32_t ntmpl, tmpl_alloc;
    /* the ring: a batch of cells in buf */
    uint32_t rn, rpos;
    int ring_done;
    int all_in_stream;     /* closed, every slot in the stream */
    int follow;            /* the stream only, up to stream_end, then wait */
    int closed;            /* the header says the writer closed the log */
    uint64_t stream_slots; /* the header's */
    /* what is produced */
    uint64_t slot;         /* slots decoded so far (a pending run's too) */
    uint64_t zeros;        /* never-written slots still to give */
    int policy;            /* CP_HDR_POLICY: folded runs may come */
    uint64_t folded;       /* slots the policy folded, decoded so far */
    unsigned char cur[REC]; /* a slot given in parts */
    size_t cur_len, cur_pos;
    int have_problem;
    int lost;              /* the file went away after a park: no more */
    uint64_t resyncs;      /* damage read past at a sync point (after_damage) */
    uint64_t lost_slots;   /* the slots such damage cost */
    struct cp_error *problem; /* allocated when there is one */
    void (*observe)(void *arg, const struct cp_log4_part *part);
    void *observe_arg;
    /* a block, or a batch of ring cells: the memory a caller lent
     * (cp_log4src_lend), else (or for a block larger than it) own_buf,
     * CP_LOG4_BLOCK_MAX bytes allocated at the first read */
    unsigned char *buf;
    size_t cap;
    unsigned char *own_buf;
    uint32_t rbatch;       /* ring cells a batch holds in buf */
    /* lent memory of two blocks or more, not following: a window of the
     * file's bytes at win_at (win_len of them at buf), the blocks after
     * the current one read with it (one read for several) */
    uint64_t win_at;
    size_t win_len;
    unsigned char *blk;    /* the current block's header in buf */
};

/* ---- the header ---------------------------------------------------------- */

int cp_log4src_check(const char *path, const struct cp_log_header *h,
                     uint64_t file_size, struct cp_error *err)
{
    uint32_t r = h->ring_slots;
    uint64_t ring_bytes, ring_end;

    if (r < CP_LOG4_RING_MIN || r > CP_LOG4_RING_MAX || (r & (r - 1)))
        return cp_errorf_at(err, path, (int64_t)OFF_RING_SLOTS,
                            "%s: offset %zu: ring_slots %u is not a power "
                            "of two from %u to %u",
                            path, OFF_RING_SLOTS, r, CP_LOG4_RING_MIN,
                            CP_LOG4_RING_MAX);
    if (h->dict_slots > CP_LOG4_DICT_MAX)
        return cp_errorf_at(err, path, (int64_t)OFF_DICT_SLOTS,
                            "%s: offset %zu: dict_slots %u is more than %u",
                            path, OFF_DICT_SLOTS, h->dict_slots,
                            CP_LOG4_DICT_MAX);
    ring_bytes = (uint64_t)r * (sizeof(uint64_t) + REC);
    if (h->ring_offset < h->header_size || h->ring_offset > file_size ||
        file_size - h->ring_offset < ring_bytes)
        return cp_errorf_at(err, path, (int64_t)OFF_RING_OFFSET,
                            "%s: offset %zu: ring_offset %llu: the ring "
                            "(%llu bytes) is not inside the file (%llu "
                            "bytes) past the header (%u bytes)",
                            path, OFF_RING_OFFSET,
                            (unsigned long long)h->ring_offset,
                            (unsigned long long)ring_bytes,
                            (unsigned long long)file_size, h->header_size);
    ring_end = h->ring_offset + ring_bytes;
    if (h->stream_offset < ring_end || h->stream_offset > file_size)
        return cp_errorf_at(err, path, (int64_t)OFF_STREAM_OFFSET,
                            "%s: offset %zu: stream_offset %llu is not "
                            "inside the file (%llu bytes) past the ring "
                            "(which ends at %llu)",
                            path, OFF_STREAM_OFFSET,
                            (unsigned long long)h->stream_offset,
                            (unsigned long long)file_size,
                            (unsigned long long)ring_end);
    if ((h->flags & CP_HDR_SYNC) &&
        (h->sync_bytes < CP_LOG4_SYNC_MIN || h->sync_bytes > CP_LOG4_SYNC_MAX ||
         (h->sync_bytes & (h->sync_bytes - 1))))
        return cp_errorf_at(err, path, (int64_t)OFF_SYNC_BYTES,
                            "%s: offset %zu: sync_bytes %u is not a power "
                            "of two from %u to %u",
                            path, OFF_SYNC_BYTES, h->sync_bytes,
                            CP_LOG4_SYNC_MIN, CP_LOG4_SYNC_MAX);
    if ((h->flags & CP_HDR_POLICY) &&
        (h->policy_interval_ms == 0 ||
         (h->policy_every && h->policy_window > h->policy_every)))
        return cp_errorf_at(err, path, (int64_t)OFF_POLICY,
                            "%s: offset %zu: capture policy (window %u "
                            "every %u, interval %u ms) is not one the shim "
                            "writes: an interval of 0, or windows longer "
                            "than their period",
                            path, OFF_POLICY, h->policy_window,
                            h->policy_every, h->policy_interval_ms);
    return 0;
}

/* ---- the file ------------------------------------------------------------- */

/* The descriptor, opened again after a park (the same file, or none). */
static int src_fd(struct cp_log4src *s)
{
    struct stat sb;

    if (s->fd >= 0)
        return s->fd;
    s->fd = cp_path_open_input(s->path, cp_path_log_links(), NULL);
    if (s->fd >= 0 &&
        (fstat(s->fd, &sb) < 0 || (uint64_t)sb.st_dev != s->dev ||
         (uint64_t)sb.st_ino != s->ino)) {
        close(s->fd);
        s->fd = -1;
    }
    return s->fd;
}

static void src_problem(struct cp_log4src *s, uint64_t at, const char *fmt,
                        ...) __attribute__((format(printf, 3, 4)));

/* Up to len bytes at offset; fewer at the end of the file (or when it
 * cannot be read).  A file replaced or removed since it was parked is
 * the problem, and the end of the slots. */
static size_t read_at(struct cp_log4src *s, void *buf, size_t len,
                      uint64_t offset)
{
    size_t got = 0;
    int fd = s->lost ? -1 : src_fd(s);

    if (fd < 0 && !s->lost) {
        s->lost = 1;
        src_problem(s, offset, "the file was replaced or removed while it "
                               "was read (the rest is not read)");
    }

    while (fd >= 0 && got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got,
                          (off_t)(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        /* a regular file reads short only at its end: not a second
         * read to be told so (each pass over a log ends there) */
        if (got < len)
            break;
    }
    return got;
}

static uint32_t get32(const struct cp_log4src *s, const unsigned char *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof v);
    return s->swapped ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct cp_log4src *s, const unsigned char *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof v);
    return s->swapped ? __builtin_bswap64(v) : v;
}

/* ---- problems ------------------------------------------------------------- */

/* The problem when there was no memory for its text. */
static const struct cp_error no_memory_for_problem = {
    .text = "out of memory for the log's problem (it has one)",
    .offset = -1};

static void src_problem(struct cp_log4src *s, uint64_t at, const char *fmt,
                        ...)
{
    char what[300];
    va_list ap;

    if (s->have_problem)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s->have_problem = 1;
    s->problem = malloc(sizeof *s->problem);
    if (!s->problem)
        return;
    cp_error_set(s->problem, s->path, (int64_t)at, "%s: offset %llu: %s",
                 s->path, (unsigned long long)at, what);
}

/* The stream ends here: the ring goes on from the slot it reached. */
static void to_ring(struct cp_log4src *s)
{
    if (s->follow) { /* the ring is read apart (cp_log4src_ring) */
        s->phase = s->have_problem ? PHASE_END : PHASE_WAIT;
        s->have_block = 0;
        return;
    }
    s->phase = PHASE_RING;
    s->have_block = 0;
    s->win_len = 0; /* the ring's cells go where the window was */
    s->rn = s->rpos = 0;
    if (s->all_in_stream && s->slot == s->stream_slots)
        s->ring_done = 1;
}

static void after_damage(struct cp_log4src *s, uint64_t at);
static int sync_probe(struct cp_log4src *s, uint64_t k, uint64_t *t_latest,
                      uint64_t *first, struct cp_error *err);

/* Damage in the current block at file offset at, unless the block is one
 * the writer had not finished (past stream_end): a problem or a quiet
 * end of the stream, then the next sync point after it, else the ring
 * (after_damage).  Returns -1. */
#define DAMAGE(s, at, ...)                                                     \
    (((s)->block_past_end ? (void)0 : src_problem((s), (at), __VA_ARGS__)),    \
     after_damage((s), (at)), -1)

/* ---- blocks --------------------------------------------------------------- */

static void tell_block(struct cp_log4src *s, uint64_t at,
                       const unsigned char *h, size_t got, int sum_ok,
                       enum cp_log4_block_state state)
{
    struct cp_log4_part part;

    if (!s->observe)
        return;
    memset(&part, 0, sizeof part);
    part.kind = CP_LOG4_PART_BLOCK;
    part.offset = at;
    if (got >= BLOCK_HDR) {
        part.bytes = get32(s, h + offsetof(struct cp_log4_block, bytes));
        part.first_slot =
            get64(s, h + offsetof(struct cp_log4_block, first_slot));
        part.slots = get32(s, h + offsetof(struct cp_log4_block, slots));
    }
    part.sum_ok = sum_ok;
    part.state = state;
    s->observe(s->observe_arg, &part);
}

/* buf as the source's own CP_LOG4_BLOCK_MAX bytes, what it held kept:
 * 0, or -1 when memory ran out. */
static int own_buffer(struct cp_log4src *s)
{
    if (s->own_buf)
        return 0;
    s->own_buf = malloc(CP_LOG4_BLOCK_MAX);
    if (!s->own_buf)
        return -1;
    if (s->buf)
        memcpy(s->own_buf, s->buf, s->cap);
    s->buf = s->own_buf;
    s->cap = CP_LOG4_BLOCK_MAX;
    return 0;
}

/* The block at `at` into buf as one read of CP_LOG4_BLOCK_MAX bytes
 * gives it: in lent memory smaller than that, cap bytes first, the rest
 * (into the source's own buffer) only when the block's header says it is
 * longer.  The bytes read. */
static size_t block_read(struct cp_log4src *s, uint64_t at)
{
    size_t got = read_at(s, s->buf, s->cap, at);
    uint32_t bytes;

    if (s->cap >= CP_LOG4_BLOCK_MAX || got < s->cap || got < BLOCK_HDR)
        return got;
    bytes = get32(s, s->buf + offsetof(struct cp_log4_block, bytes));
    if (bytes <= s->cap - BLOCK_HDR || own_buffer(s) < 0)
        return got;
    return got + read_at(s, s->buf + got, CP_LOG4_BLOCK_MAX - got, at + got);
}

/* The block at `at` from the window (cp_log4src.win_at): in place when
 * the window holds it whole or reaches the file's end; else what the
 * window holds of it moved to buf's start and the rest of buf read after
 * it (the blocks that follow with it).  s->blk at it; the bytes from at
 * that buf holds. */
static size_t window_read(struct cp_log4src *s, uint64_t at)
{
    size_t off = 0, have = 0, got;

    if (s->win_len && at >= s->win_at && at - s->win_at < s->win_len) {
        off = (size_t)(at - s->win_at);
        have = s->win_len - off;
    }
    if (have > 0) {
        size_t need = BLOCK_HDR;
        if (have >= BLOCK_HDR) {
            uint32_t bytes = get32(s, s->buf + off +
                                          offsetof(struct cp_log4_block, bytes));
            need += bytes < CP_LOG4_BLOCK_MAX - BLOCK_HDR
                        ? bytes
                        : CP_LOG4_BLOCK_MAX - BLOCK_HDR;
            /* a zero word where a block would start: the zeros before a
             * sync point, whole (pad_before_sync reads them all) */
            if (get32(s, s->buf + off) == 0 && need < CP_LOG4_PAD_MAX)
                need = CP_LOG4_PAD_MAX;
        }
        if (have >= need || s->win_at + s->win_len >= s->file_end) {
            s->blk = s->buf + off;
            return have;
        }
        memmove(s->buf, s->buf + off, have);
    }
    got = read_at(s, s->buf + have, s->cap - have, at + have);
    if (got < s->cap - have && at + have + got < s->file_end)
        s->file_end = at + have + got;
    s->win_at = at;
    s->win_len = have + got;
    s->blk = s->buf;
    return have + got;
}

/* The block at `at` into buf, s->blk at it: through the window when the
 * lent memory holds two blocks or more (and the log is not followed: a
 * followed log's bytes past stream_end may still change), else one read
 * (block_read).  The bytes from at that buf holds. */
static size_t block_bytes(struct cp_log4src *s, uint64_t at)
{
    size_t got;

    if (s->cap >= 2 * CP_LOG4_BLOCK_MAX && !s->follow)
        return window_read(s, at);
    got = block_read(s, at);
    s->blk = s->buf; /* after block_read: it may move buf */
    if (got < s->cap && at + got < s->file_end)
        s->file_end = at + got;
    return got;
}

/* Whether at (a block's place) is a sync point: a multiple of sync_bytes
 * from the stream's start, past it. */
static int at_sync_point(const struct cp_log4src *s, uint64_t at)
{
    return s->sync_bytes && at > s->stream_offset &&
           (at - s->stream_offset) % s->sync_bytes == 0;
}

/* Whether the got bytes read at `at` (a zero word where a block would
 * start) are the zeros before a sync point: fewer than CP_LOG4_PAD_MAX,
 * all read and all 0. */
static int pad_before_sync(const struct cp_log4src *s, uint64_t at, size_t got)
{
    uint64_t d;
    size_t i;

    if (!s->sync_bytes || at_sync_point(s, at))
        return 0;
    d = s->sync_bytes - (at - s->stream_offset) % s->sync_bytes;
    if (d >= CP_LOG4_PAD_MAX || got < d)
        return 0;
    for (i = 0; i < d; i++)
        if (s->blk[i])
            return 0;
    return 1;
}

/* Read and check the block at s->next_block into buf.  0: its payload is
 * there to decode; -1: the stream ends (quietly past stream_end, else
 * with the problem), the source is at the ring. */
static int load_block(struct cp_log4src *s)
{
    unsigned char *h; /* the block's header, its payload after */
    uint64_t at = s->next_block, first;
    uint32_t magic, bytes, slots, sum;
    size_t got;
    int past = at >= s->stream_limit, rc = -1;
    const char *why = NULL;
    char text[160];

    s->block_at = at;
    s->block_past_end = past;
    if (past && s->follow) {
        to_ring(s); /* wait for the writer to publish more */
        return -1;
    }
    if (!s->buf && own_buffer(s) < 0) {
        (void)DAMAGE(s, at, "out of memory for its block");
        return -1;
    }
    /* the whole block in one read (and past a short one, the file's end
     * known: no read to find it) */
    got = at >= s->file_end ? 0 : block_bytes(s, at);
    h = s->blk;
    if (got == 0 && past) {
        to_ring(s); /* the stream's end, nothing after it */
        return -1;
    }
    if (got < BLOCK_HDR) {
        why = "block header cut short by the end of the file";
        goto out;
    }
    magic = get32(s, h + offsetof(struct cp_log4_block, magic));
    if (magic == 0 && pad_before_sync(s, at, got)) {
        s->next_block = at + (s->sync_bytes -
                              (at - s->stream_offset) % s->sync_bytes);
        return load_block(s); /* once: the block there has no padding */
    }
    bytes = get32(s, h + offsetof(struct cp_log4_block, bytes));
    first = get64(s, h + offsetof(struct cp_log4_block, first_slot));
    slots = get32(s, h + offsetof(struct cp_log4_block, slots));
    sum = get32(s, h + offsetof(struct cp_log4_block, sum));
    if (magic != CP_LOG4_BLOCK_MAGIC) {
        snprintf(text, sizeof text, "not a block (magic 0x%08x)", magic);
        why = text;
        goto out;
    }
    if (bytes > CP_LOG4_BLOCK_MAX - BLOCK_HDR) {
        snprintf(text, sizeof text, "block of %u payload bytes, more than "
                 "a block holds (%zu)", bytes,
                 (size_t)(CP_LOG4_BLOCK_MAX - BLOCK_HDR));
        why = text;
        goto out;
    }
    if (first != s->slot) {
        snprintf(text, sizeof text, "block of slot %llu where slot %llu "
                 "comes next", (unsigned long long)first,
                 (unsigned long long)s->slot);
        why = text;
        goto out;
    }
    if (got < BLOCK_HDR + (size_t)bytes) {
        why = "block cut short by the end of the file";
        goto out;
    }
    if (cp_log4_sum(s->blk + BLOCK_HDR, bytes) != sum) {
        snprintf(text, sizeof text, "block's sum 0x%08x is not its "
                 "payload's (0x%08x)", sum,
                 cp_log4_sum(s->blk + BLOCK_HDR, bytes));
        why = text;
        tell_block(s, at, h, got, 0,
                   past ? CP_LOG4_BLOCK_TORN : CP_LOG4_BLOCK_DAMAGED);
        goto damaged;
    }
    if (at_sync_point(s, at) && (bytes == 0 || h[BLOCK_HDR] != CP_LOG4_SYNC)) {
        why = "block at a sync point does not start with its sync op";
        goto out;
    }
    s->have_block = 1;
    s->payload_at = at + BLOCK_HDR;
    s->next_block = at + BLOCK_HDR + bytes;
    s->blen = bytes;
    s->bpos = 0;
    s->bslots = slots;
    s->bdone = 0;
    tell_block(s, at, h, got, 1, CP_LOG4_BLOCK_OK);
    rc = 0;
out:
    if (rc < 0)
        tell_block(s, at, h, got, 0,
                   past ? CP_LOG4_BLOCK_TORN : CP_LOG4_BLOCK_DAMAGED);
damaged:
    if (rc < 0)
        (void)DAMAGE(s, at, "%s", why);
    return rc;
}

/* ---- ops -------------------------------------------------------------------- */

static int op_byte(struct cp_log4src *s, unsigned *b)
{
    if (s->bpos >= s->blen)
        return -1;
    *b = s->blk[BLOCK_HDR + s->bpos++];
    return 0;
}

/* A LEB128 varint at p, of at most 10 bytes (the tenth at most 1) within
 * the left bytes there: its length, 0 when it is longer, runs past left
 * or its tenth byte is over 1. */
static inline unsigned varint_in(const unsigned char *p, size_t left,
                                 uint64_t *v)
{
    uint64_t x = 0;
    unsigned i;

    for (i = 0; i < 10 && i < left; i++) {
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            if (i == 9 && p[i] > 1)
                return 0;
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

/* The varint at the block's place (varint_in), the place past it. */
static int op_varint_slow(struct cp_log4src *s, uint64_t *v)
{
    unsigned n = varint_in(s->blk + BLOCK_HDR + s->bpos, s->blen - s->bpos, v);

    if (!n)
        return -1;
    s->bpos += n;
    return 0;
}

/* A varint at p, which has at least 10 bytes after it (varint_in
 * without the bound). */
static inline unsigned varint_at(const unsigned char *p, uint64_t *v)
{
    return varint_in(p, 10, v);
}

/* op_varint_slow without a bound check per byte where the block holds
 * ten more (the common case: one byte). */
static inline int op_varint(struct cp_log4src *s, uint64_t *v)
{
    const unsigned char *p = s->blk + BLOCK_HDR + s->bpos;
    size_t left = s->blen - s->bpos;
    unsigned n;

    if (left && p[0] < 0x80) {
        *v = p[0];
        s->bpos++;
        return 0;
    }
    if (left < 10)
        return op_varint_slow(s, v);
    if (!(n = varint_at(p, v)))
        return -1;
    s->bpos += n;
    return 0;
}

/* A varint that must fit max. */
static int op_varint_max(struct cp_log4src *s, uint64_t *v, uint64_t max)
{
    return op_varint(s, v) < 0 || *v > max ? -1 : 0;
}

/* A zigzag varint that must fit an int32. */
static int op_int32(struct cp_log4src *s, int32_t *v)
{
    uint64_t u;
    int64_t x;

    if (op_varint(s, &u) < 0)
        return -1;
    x = cp_log4_unzigzag(u);
    if (x < INT32_MIN || x > INT32_MAX)
        return -1;
    *v = (int32_t)x;
    return 0;
}

/* A start (the difference from *prev) and an end (0, or end - start + 1);
 * *prev becomes the end, or the start of an interval still open. */
static int op_times(struct cp_log4src *s, uint64_t *prev, uint64_t *start,
                    uint64_t *end)
{
    uint64_t v, e;

    if (op_varint(s, &v) < 0 || op_varint(s, &e) < 0)
        return -1;
    *start = *prev + (uint64_t)cp_log4_unzigzag(v);
    *end = e ? *start + e - 1 : 0;
    *prev = *end ? *end : *start;
    return 0;
}

/* The record r (host order) as the writer wrote it, into dst. */
static void emit(struct cp_log4src *s, union cp_rec *r, unsigned char *dst)
{
    if ((unsigned char *)r == dst) { /* built in place (op_call) */
        if (r->kind == CP_REC_CALL)
            s->call_start = r->call.start_ns;
        if (s->swapped)
            cp_rec_swap(r);
        return;
    }
    if (r->kind == CP_REC_CALL) {
        s->call_start = r->call.start_ns;
    } else if (r->kind == CP_REC_GPU) {
        s->dev_start = r->gpu.start_ns;
        s->dev_end = r->gpu.end_ns;
    }
    if (s->swapped)
        cp_rec_swap(r);
    memcpy(dst, r, REC);
}

/* One more slot of the block: -1 (damage) when it holds no more. */
static int take_slots(struct cp_log4src *s, uint64_t n, uint64_t at)
{
    if (n > (uint64_t)(s->bslots - s->bdone))
        return DAMAGE(s, at, "the block's ops hold more slots than its "
                             "header says (%u)", s->bslots);
    s->bdone += (uint32_t)n;
    s->slot += n;
    return 0;
}

static int op_define(struct cp_log4src *s, uint64_t at)
{
    struct sig g;
    uint64_t v[7], key;
    unsigned b[5];
    int i;

    memset(&g, 0, sizeof g);
    for (i = 0; i < 5; i++)
        if (op_byte(s, &b[i]) < 0)
            return DAMAGE(s, at, "signature cut short");
    if (op_varint_max(s, &v[0], UINT16_MAX) < 0 ||
        op_varint(s, &v[1]) < 0 || op_varint(s, &v[2]) < 0 ||
        op_int32(s, &g.peer) < 0 || op_varint_max(s, &v[3], UINT32_MAX) < 0 ||
        op_varint_max(s, &v[4], UINT32_MAX) < 0 ||
        op_varint_max(s, &v[5], UINT32_MAX) < 0 || op_varint(s, &key) < 0)
        return DAMAGE(s, at, "signature %u: a field cut short or out of "
                             "range", s->nsig);
    if (s->nsig >= s->dict_slots)
        return DAMAGE(s, at, "signature %u: past the table's %u "
                             "(dict_slots)", s->nsig, s->dict_slots);
    if (key > s->nsig)
        return DAMAGE(s, at, "signature %u: key %llu past its own index",
                      s->nsig, (unsigned long long)key);
    if (s->nsig == s->sig_alloc) {
        uint32_t n = s->sig_alloc ? s->sig_alloc * 2 : 4;
        struct sig *bigger;
        if (n > s->dict_slots)
            n = s->dict_slots;
        bigger = realloc(s->sig, (size_t)n * sizeof *bigger);
        if (!bigger)
            return DAMAGE(s, at, "out of memory for signature %u", s->nsig);
        s->sig = bigger;
        s->sig_alloc = n;
    }
    g.op = (uint8_t)b[0];
    g.dtype = (uint8_t)b[1];
    g.redop = (uint8_t)b[2];
    g.timer = (uint8_t)b[3];
    g.result = (int8_t)b[4];
    g.flags = (uint16_t)v[0];
    g.comm_id = v[1];
    g.count = v[2];
    g.rank = (uint32_t)v[3];
    g.nranks = (uint32_t)v[4];
    g.stream = (uint32_t)v[5];
    g.key = (uint32_t)key;
    g.seqlast = UINT32_MAX;
    {
        struct cp_rec_call c;
        memset(&c, 0, sizeof c);
        c.kind = CP_REC_CALL;
        c.op = g.op;
        c.dtype = g.dtype;
        c.redop = g.redop;
        c.result = g.result;
        c.timer = g.timer;
        c.flags = g.flags;
        memcpy(g.head, &c, sizeof g.head);
    }
    s->sig[s->nsig++] = g;
    return 0;
}

/* A call of signature g into c (the record zeroed first): count, seq and
 * group as decoded, the start from the stream's time t and v, the end
 * from the signature's last duration (e; 0 in flight).  The stream's
 * time after it.  g's fields are read before c is written (c may be
 * anywhere: nothing is read back). */
static inline uint64_t put_call(struct cp_rec_call *c, struct sig *g,
                                uint64_t count, uint32_t seq, uint32_t group,
                                uint64_t t, uint64_t v, uint64_t e)
{
    const struct sig k = *g;
    uint64_t start = t + (uint64_t)cp_log4_unzigzag(v), dur = k.lastdur;

    _Static_assert(offsetof(struct cp_rec_call, comm_id) == 8 &&
                       offsetof(struct cp_rec_call, end_ns) + 8 == REC,
                   "a call's fields cover its 64 bytes");
    if (e) /* the duration against the signature's last one */
        g->lastdur = dur += (uint64_t)cp_log4_unzigzag(e - 1);
    /* every byte written once, no padding: kind .. flags as the
     * signature keeps them, then each field */
    memcpy(c, k.head, sizeof k.head);
    c->comm_id = k.comm_id;
    c->count = count;
    c->seq = seq;
    c->peer = k.peer;
    c->rank = k.rank;
    c->nranks = k.nranks;
    c->group = group;
    c->stream = k.stream;
    c->start_ns = start;
    c->end_ns = e ? start + dur : 0;
    return e ? start + dur : start;
}

/* put_call at the stream's time, which follows. */
static void call_of_sig(struct cp_log4src *s, struct cp_rec_call *c,
                        struct sig *g, uint64_t count, uint32_t seq,
                        uint32_t group, uint64_t v, uint64_t e)
{
    s->t_call = put_call(c, g, count, seq, group, s->t_call, v, e);
}

/* A call of a signature, short (0x00-0x7f) or long (0x80-0xbf). */
static int op_call(struct cp_log4src *s, unsigned op, uint64_t at,
                   unsigned char *dst)
{
    struct sig *g, *key;
    union cp_rec r, *rp;
    uint64_t idx = op & 0x3f, v, e, count;
    uint32_t seq, group;
    unsigned x = 0;
    int newgroup = op < CP_LOG4_LONG && (op & CP_LOG4_SHORT_NEWGROUP);

    if (op >= CP_LOG4_LONG) {
        if (op_byte(s, &x) < 0)
            return DAMAGE(s, at, "call cut short");
        if (x & ~(CP_LOG4_X_SIG | CP_LOG4_X_SEQ | CP_LOG4_X_GROUP |
                  CP_LOG4_X_COUNT))
            return DAMAGE(s, at, "call with unknown flags 0x%02x", x);
    }
    if (x & CP_LOG4_X_SIG) {
        if (op_varint_max(s, &v, CP_LOG4_DICT_MAX) < 0)
            return DAMAGE(s, at, "call's signature cut short or out of "
                                 "range");
        idx |= v << 6;
    }
    if (idx >= s->nsig)
        return DAMAGE(s, at, "call of signature %llu, past the %u defined",
                      (unsigned long long)idx, s->nsig);
    g = &s->sig[idx];
    key = &s->sig[g->key];
    seq = key->seqlast + 1;
    if (x & CP_LOG4_X_SEQ) {
        if (op_varint(s, &v) < 0)
            return DAMAGE(s, at, "call's seq cut short");
        seq += (uint32_t)(int32_t)cp_log4_unzigzag(v);
    }
    if (x & CP_LOG4_X_GROUP) {
        if (op_varint_max(s, &v, UINT32_MAX) < 0)
            return DAMAGE(s, at, "call's group cut short or out of range");
        group = (uint32_t)v;
    } else if (g->flags & CP_CALL_IN_GROUP) {
        group = newgroup ? s->last_group + 1 : s->last_group;
    } else {
        if (newgroup)
            return DAMAGE(s, at, "a new group for a call of signature %llu, "
                                 "which is outside groups",
                          (unsigned long long)idx);
        group = 0;
    }
    count = g->count;
    if ((x & CP_LOG4_X_COUNT) && op_varint(s, &count) < 0)
        return DAMAGE(s, at, "call's count cut short");
    if (op_varint(s, &v) < 0 || op_varint(s, &e) < 0)
        return DAMAGE(s, at, "call's times cut short");
    if (take_slots(s, 1, at) < 0)
        return -1;
    /* built where it goes when that is aligned (a record built on the
     * stack and copied is read back before its narrow stores land) */
    rp = ((uintptr_t)dst & 7) == 0 ? (union cp_rec *)(void *)dst : &r;
    call_of_sig(s, &rp->call, g, count, seq, group, v, e);
    key->seqlast = seq;
    if (group)
        s->last_group = group;
    emit(s, rp, dst);
    return 1;
}

static int op_literal(struct cp_log4src *s, uint64_t at, unsigned char *dst)
{
    union cp_rec r;
    struct cp_rec_call *c = &r.call;
    uint64_t flags, seq, rank, nranks, group, stream;
    unsigned b[5];
    int i;

    memset(&r, 0, sizeof r);
    for (i = 0; i < 5; i++)
        if (op_byte(s, &b[i]) < 0)
            return DAMAGE(s, at, "literal call cut short");
    if (op_varint_max(s, &flags, UINT16_MAX) < 0 ||
        op_varint(s, &c->comm_id) < 0 || op_varint(s, &c->count) < 0 ||
        op_varint_max(s, &seq, UINT32_MAX) < 0 || op_int32(s, &c->peer) < 0 ||
        op_varint_max(s, &rank, UINT32_MAX) < 0 ||
        op_varint_max(s, &nranks, UINT32_MAX) < 0 ||
        op_varint_max(s, &group, UINT32_MAX) < 0 ||
        op_varint_max(s, &stream, UINT32_MAX) < 0 ||
        op_times(s, &s->t_call, &c->start_ns, &c->end_ns) < 0)
        return DAMAGE(s, at, "literal call: a field cut short or out of "
                             "range");
    if (take_slots(s, 1, at) < 0)
        return -1;
    c->kind = CP_REC_CALL;
    c->op = (uint8_t)b[0];
    c->dtype = (uint8_t)b[1];
    c->redop = (uint8_t)b[2];
    c->timer = (uint8_t)b[3];
    c->result = (int8_t)b[4];
    c->flags = (uint16_t)flags;
    c->seq = (uint32_t)seq;
    c->rank = (uint32_t)rank;
    c->nranks = (uint32_t)nranks;
    c->group = (uint32_t)group;
    c->stream = (uint32_t)stream;
    if (c->group)
        s->last_group = c->group;
    emit(s, &r, dst);
    return 1;
}

static int op_group(struct cp_log4src *s, uint64_t at, unsigned char *dst)
{
    union cp_rec r;
    struct cp_rec_group *g = &r.group;
    uint64_t d, ncalls;
    unsigned result;

    memset(&r, 0, sizeof r);
    if (op_varint(s, &d) < 0 || op_byte(s, &result) < 0 ||
        op_varint_max(s, &ncalls, UINT32_MAX) < 0 ||
        op_times(s, &s->t_call, &g->start_ns, &g->end_ns) < 0)
        return DAMAGE(s, at, "group: a field cut short or out of range");
    if (take_slots(s, 1, at) < 0)
        return -1;
    g->kind = CP_REC_GROUP;
    g->result = (int8_t)result;
    g->group = s->last_group + (uint32_t)cp_log4_unzigzag(d);
    g->ncalls = (uint32_t)ncalls;
    s->last_group = g->group;
    emit(s, &r, dst);
    return 1;
}

static int op_gpu(struct cp_log4src *s, uint64_t at, unsigned char *dst)
{
    union cp_rec r;
    struct cp_rec_gpu *g = &r.gpu;
    uint64_t d, flags;
    unsigned timer;

    memset(&r, 0, sizeof r);
    if (op_varint(s, &d) < 0 || op_byte(s, &timer) < 0 ||
        op_varint_max(s, &flags, UINT16_MAX) < 0 ||
        op_times(s, &s->t_gpu, &g->start_ns, &g->end_ns) < 0)
        return DAMAGE(s, at, "device interval: a field cut short or out of "
                             "range");
    if (d > s->slot)
        return DAMAGE(s, at, "device interval of slot %llu names a call "
                             "%llu slots before it",
                      (unsigned long long)s->slot, (unsigned long long)d);
    g->slot = s->slot - d;
    if (take_slots(s, 1, at) < 0)
        return -1;
    g->kind = CP_REC_GPU;
    g->timer = (uint8_t)timer;
    g->flags = (uint16_t)flags;
    emit(s, &r, dst);
    return 1;
}

static void field_put(union cp_rec *r, const struct cp_log4_field *f,
                      uint64_t v)
{
    unsigned char *at = r->bytes + f->offset;

    switch (f->size) {
    case 1:
        *at = (unsigned char)v;
        break;
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(at, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(at, &x, 4);
        break;
    }
    default:
        memcpy(at, &v, 8);
        break;
    }
}

/* The field's value as field_put left it (cut to its size). */
static uint64_t field_cut(const struct cp_log4_field *f, uint64_t v)
{
    return f->size >= 8 ? v : v & ((1ull << (8 * f->size)) - 1);
}

/* A template: 64 bytes as written, of a templated kind, its varying
 * fields 0. */
static int op_template(struct cp_log4src *s, uint64_t at)
{
    const struct cp_log4_fields *k;
    union cp_rec r;
    unsigned j, b;

    if (s->blen - s->bpos < REC)
        return DAMAGE(s, at, "template %u cut short", s->ntmpl);
    memcpy(&r, s->blk + BLOCK_HDR + s->bpos, REC);
    s->bpos += REC;
    k = cp_log4_fields_of(r.kind);
    if (!k)
        return DAMAGE(s, at, "template %u of record kind %u, which has none",
                      s->ntmpl, r.kind);
    for (j = 0; j < k->n; j++)
        for (b = 0; b < k->f[j].size; b++)
            if (r.bytes[k->f[j].offset + b])
                return DAMAGE(s, at, "template %u: byte %u, a varying "
                                     "field's, is not 0",
                              s->ntmpl, k->f[j].offset + b);
    if (s->ntmpl >= CP_LOG4_TMPL_MAX)
        return DAMAGE(s, at, "template %u: past the most a log has (%u)",
                      s->ntmpl, CP_LOG4_TMPL_MAX);
    if (s->ntmpl == s->tmpl_alloc) {
        uint32_t n = s->tmpl_alloc ? s->tmpl_alloc * 2 : 4;
        struct tmpl *bigger;
        if (n > CP_LOG4_TMPL_MAX)
            n = CP_LOG4_TMPL_MAX;
        bigger = realloc(s->tmpl, (size_t)n * sizeof *bigger);
        if (!bigger)
            return DAMAGE(s, at, "out of memory for template %u", s->ntmpl);
        s->tmpl = bigger;
        s->tmpl_alloc = n;
    }
    if (s->swapped)
        cp_rec_swap(&r); /* fields are then filled in host order */
    memset(&s->tmpl[s->ntmpl], 0, sizeof s->tmpl[s->ntmpl]);
    s->tmpl[s->ntmpl++].rec = r;
    return 0;
}

/* A sync point (the first op of a block at one): the stream's state
 * restated, the signatures and templates before it forgotten. */
static int op_sync(struct cp_log4src *s, uint64_t at)
{
    uint64_t v[6];
    unsigned i;

    if (s->bpos != 1 || !at_sync_point(s, s->block_at))
        return DAMAGE(s, at, "sync op where no sync point is");
    for (i = 0; i < 6; i++)
        if (op_varint(s, &v[i]) < 0)
            return DAMAGE(s, at, "sync op cut short");
    if (v[4] > UINT32_MAX)
        return DAMAGE(s, at, "sync op's group %llu is past 32 bits",
                      (unsigned long long)v[4]);
    s->t_call = s->t_gpu = v[0];
    s->call_start = v[1];
    s->dev_start = v[2];
    s->dev_end = v[3];
    s->last_group = (uint32_t)v[4];
    s->nsig = 0;
    s->ntmpl = 0;
    return 0;
}

/* The fields present of a record of a kind of k: one byte, or two
 * (little-endian) for a kind of more than 8 fields.  0, or -1 cut short. */
static int op_present(struct cp_log4src *s, const struct cp_log4_fields *k,
                      unsigned *present)
{
    unsigned hi = 0;

    if (op_byte(s, present) < 0)
        return -1;
    if (cp_log4_present_bytes(k) == 2 && op_byte(s, &hi) < 0)
        return -1;
    *present |= hi << 8;
    return 0;
}

/* A record of a template (0xe0-0xff): the fields present, their codes. */
static int op_templated(struct cp_log4src *s, unsigned op, uint64_t at,
                        unsigned char *dst)
{
    const struct cp_log4_fields *k;
    uint64_t idx = op - CP_LOG4_TEMPLATED, x, v[CP_LOG4_FIELDS_MAX];
    unsigned j, present;
    struct tmpl *t;
    union cp_rec r;

    if (op == CP_LOG4_TEMPLATED_LONG &&
        op_varint_max(s, &idx, CP_LOG4_TMPL_MAX) < 0)
        return DAMAGE(s, at, "templated record's index cut short or out of "
                             "range");
    if (idx >= s->ntmpl)
        return DAMAGE(s, at, "record of template %llu, past the %u defined",
                      (unsigned long long)idx, s->ntmpl);
    t = &s->tmpl[idx];
    k = cp_log4_fields_of(t->rec.kind);
    if (op_present(s, k, &present) < 0)
        return DAMAGE(s, at, "record of template %llu cut short",
                      (unsigned long long)idx);
    if (present >> k->n)
        return DAMAGE(s, at, "record of template %llu (record kind %u): "
                             "fields 0x%02x present, its kind has %u",
                      (unsigned long long)idx, t->rec.kind, present, k->n);
    r = t->rec;
    for (j = 0; j < k->n; j++) {
        const struct cp_log4_field *f = &k->f[j];
        x = 0;
        if (((present >> j) & 1) && op_varint(s, &x) < 0)
            return DAMAGE(s, at, "record of template %llu: field %u cut "
                                 "short",
                          (unsigned long long)idx, j);
        switch (f->role) {
        case CP_LOG4_F_SLOT:
            t->last[j] += (uint64_t)cp_log4_unzigzag(x);
            v[j] = s->slot - t->last[j];
            break;
        case CP_LOG4_F_NEXT:
            t->last[j] = field_cut(f, t->last[j] + 1 + (uint64_t)cp_log4_unzigzag(x));
            v[j] = t->last[j];
            break;
        case CP_LOG4_F_VALUE:
            t->last[j] = field_cut(f, t->last[j] + (uint64_t)cp_log4_unzigzag(x));
            v[j] = t->last[j];
            break;
        case CP_LOG4_F_TIME:
            v[j] = x ? s->t_call + (uint64_t)cp_log4_unzigzag(x - 1) : 0;
            if (x)
                s->t_call = v[j];
            break;
        default: /* CALL, SPAN, DEV, DEVEND */
            if (!x) {
                v[j] = 0;
                break;
            }
            t->last[j] += (uint64_t)cp_log4_unzigzag(x - 1);
            v[j] = (f->role == CP_LOG4_F_CALL     ? s->call_start
                    : f->role == CP_LOG4_F_DEV    ? s->dev_start
                    : f->role == CP_LOG4_F_DEVEND ? s->dev_end
                                                  : v[f->ref]) +
                   t->last[j];
            break;
        }
        v[j] = field_cut(f, v[j]);
        field_put(&r, f, v[j]);
    }
    if (take_slots(s, 1, at) < 0)
        return -1;
    emit(s, &r, dst);
    return 1;
}

/* Decode the next op of the block: 1 a slot in dst, 2 a run of
 * never-written slots (s->zeros), 3 nothing produced (a definition), -1
 * damage (the source is at the ring). */
static int decode_op(struct cp_log4src *s, unsigned char *dst)
{
    uint64_t at = s->payload_at + s->bpos, n;
    unsigned op = 0;

    (void)op_byte(s, &op); /* the caller saw there is one */
    if (op < CP_LOG4_DEFINE)
        return op_call(s, op, at, dst);
    if (op >= CP_LOG4_TEMPLATED)
        return op_templated(s, op, at, dst);
    switch (op) {
    case CP_LOG4_TEMPLATE:
        return op_template(s, at) < 0 ? -1 : 3;
    case CP_LOG4_SYNC:
        return op_sync(s, at) < 0 ? -1 : 3;
    case CP_LOG4_DEFINE:
        return op_define(s, at) < 0 ? -1 : 3;
    case CP_LOG4_LITERAL:
        return op_literal(s, at, dst);
    case CP_LOG4_RAW:
        if (s->blen - s->bpos < REC)
            return DAMAGE(s, at, "raw slot cut short");
        if (take_slots(s, 1, at) < 0)
            return -1;
        memcpy(dst, s->blk + BLOCK_HDR + s->bpos, REC);
        s->bpos += REC;
        if (dst[0] == CP_REC_CALL || dst[0] == CP_REC_GPU) {
            /* the latest call's start, device interval, for the
             * templated records */
            union cp_rec r;
            memcpy(&r, dst, REC);
            if (s->swapped)
                cp_rec_swap(&r);
            if (r.kind == CP_REC_CALL) {
                s->call_start = r.call.start_ns;
            } else {
                s->dev_start = r.gpu.start_ns;
                s->dev_end = r.gpu.end_ns;
            }
        }
        return 1;
    case CP_LOG4_EMPTY:
        if (op_varint(s, &n) < 0 || n == 0)
            return DAMAGE(s, at, "run of never-written slots cut short or "
                                 "empty");
        if (take_slots(s, n, at) < 0)
            return -1;
        s->zeros = n;
        return 2;
    case CP_LOG4_FOLD:
        if (!s->policy)
            return DAMAGE(s, at, "folded calls in a log without a capture "
                                 "policy");
        if (op_varint(s, &n) < 0 || n == 0)
            return DAMAGE(s, at, "run of folded calls cut short or empty");
        if (take_slots(s, n, at) < 0)
            return -1;
        s->zeros = n;
        s->folded += n;
        return 2;
    case CP_LOG4_GROUP:
        return op_group(s, at, dst);
    case CP_LOG4_GPU:
        return op_gpu(s, at, dst);
    default:
        return DAMAGE(s, at, "unknown op 0x%02x", op);
    }
}

/* ---- the ring -------------------------------------------------------------- */

/* The cells from slot s->slot on, a batch at a time in buf: each one's
 * index word, the cell, the index again; the batch ends at the first
 * cell whose index is not its slot or changed meanwhile. */
static void ring_load(struct cp_log4src *s)
{
    uint64_t *idx1, *idx2;
    unsigned char *cells;
    uint32_t p = (uint32_t)(s->slot & (s->ring_slots - 1));
    uint32_t n = s->ring_slots - p, m, words, whole;
    uint64_t cells_at = s->ring_offset + (uint64_t)s->ring_slots * 8;

    if (!s->buf && own_buffer(s) < 0) {
        s->rn = s->rpos = 0;
        s->ring_done = 1;
        src_problem(s, cells_at, "out of memory for the ring's cells");
        return;
    }
    /* as many cells as buf holds (lent memory may be less than a batch) */
    s->rbatch = (uint32_t)(s->cap / (2 * sizeof(uint64_t) + REC));
    if (s->rbatch > RING_BATCH)
        s->rbatch = RING_BATCH;
    idx1 = (uint64_t *)(void *)s->buf;
    idx2 = idx1 + s->rbatch;
    cells = (unsigned char *)(idx2 + s->rbatch);
    if (n > s->rbatch)
        n = s->rbatch;
    words = (uint32_t)(read_at(s, idx1, (size_t)n * 8,
                               s->ring_offset + (uint64_t)p * 8) / 8);
    /* the usual end of a closed log: its first cell holds no slot */
    if (words == 0 || get64(s, (unsigned char *)&idx1[0]) != s->slot) {
        s->rn = s->rpos = 0;
        s->ring_done = 1;
        return;
    }
    whole = (uint32_t)(read_at(s, cells, (size_t)n * REC,
                               cells_at + (uint64_t)p * REC) / REC);
    if (whole < words)
        words = whole;
    if (read_at(s, idx2, (size_t)words * 8, s->ring_offset + (uint64_t)p * 8) /
            8 < words)
        words = 0;
    for (m = 0; m < words; m++)
        if (idx1[m] != idx2[m] || get64(s, (unsigned char *)&idx1[m]) !=
                                      s->slot + m)
            break;
    s->rn = m;
    s->rpos = 0;
    if (m < n)
        s->ring_done = 1;
}

/* The next slot from the ring into dst: 1, or 0 at the log's end. */
static int ring_next(struct cp_log4src *s, unsigned char *dst)
{
    const unsigned char *cell;

    if (s->rpos == s->rn) {
        if (s->ring_done)
            return 0;
        ring_load(s);
        if (s->rn == 0)
            return 0;
    }
    cell = s->buf + 2 * (size_t)s->rbatch * sizeof(uint64_t) +
           (size_t)s->rpos * REC;
    if (cell[0] == CP_REC_EMPTY)
        memset(dst, 0, REC); /* handed out, never written */
    else
        memcpy(dst, cell, REC);
    if (s->observe) {
        struct cp_log4_part part;
        memset(&part, 0, sizeof part);
        part.kind = CP_LOG4_PART_CELL;
        part.cell = (uint32_t)(s->slot & (s->ring_slots - 1));
        part.slot = s->slot;
        part.rec_kind = cell[0];
        s->observe(s->observe_arg, &part);
    }
    s->rpos++;
    s->slot++;
    return 1;
}

/* ---- slots -------------------------------------------------------------------- */

/* The next slot: 1 in dst, 2 a run of never-written slots in s->zeros, 0
 * the log's end. */
static int produce(struct cp_log4src *s, unsigned char *dst)
{
    for (;;) {
        int r;
        if (s->lost)
            return 0;
        if (s->zeros > 0)
            return 2; /* the slots damage cost (after_damage) first */
        switch (s->phase) {
        case PHASE_STREAM:
            if (!s->have_block && load_block(s) < 0)
                continue; /* at the ring */
            if (s->bpos == s->blen) {
                if (s->bdone != s->bslots) {
                    (void)DAMAGE(s, s->block_at, "the block's ops hold %u "
                                 "slots, its header says %u", s->bdone,
                                 s->bslots);
                    continue;
                }
                s->have_block = 0;
                continue;
            }
            r = decode_op(s, dst);
            if (r == 1 || r == 2)
                return r;
            continue; /* a definition, or damage (then the ring) */
        case PHASE_RING:
            if (ring_next(s, dst))
                return 1;
            s->phase = PHASE_END;
            continue;
        case PHASE_WAIT:
        case PHASE_END:
        default:
            return 0;
        }
    }
}

/* The common case without the general loop: short calls (0x00-0x3f, no
 * new group) of a loaded block, while at least 32 bytes of it are left
 * (two varints cannot run past it), each built where it goes (out
 * aligned).  The same records as op_call; anything else (another op, a
 * varint too long, the block's end, its slot count) is left to the
 * general path, which names damage.  The bytes produced. */
static size_t fast_calls(struct cp_log4src *s, unsigned char *out,
                         size_t len)
{
    const unsigned char *pay;
    struct sig *sig = s->sig;
    size_t done = 0, bpos = s->bpos, blen = s->blen;
    uint32_t bdone = s->bdone, bslots = s->bslots, nsig = s->nsig;
    uint64_t t = s->t_call, start = s->call_start;

    /* (no block yet: no buffer either, not even to point into) */
    if (s->phase != PHASE_STREAM || !s->have_block || s->zeros ||
        s->cur_pos < s->cur_len || ((uintptr_t)out & 7))
        return 0;
    pay = s->blk + BLOCK_HDR;
    /* the source's fields in locals: the records written do not make
     * them be read again */
    while (len - done >= REC && blen - bpos >= 32 && bdone < bslots) {
        const unsigned char *p = pay + bpos, *q;
        unsigned op = p[0], i;
        uint64_t v, e;
        uint32_t seq;
        struct sig *g, *key;
        struct cp_rec_call *c;
        if (op >= CP_LOG4_SHORT_NEWGROUP || op >= nsig)
            break;
        q = p + 1;
        if (!(i = varint_at(q, &v)))
            break;
        q += i;
        if (!(i = varint_at(q, &e)))
            break;
        q += i;
        g = &sig[op];
        key = &sig[g->key];
        seq = key->seqlast + 1;
        key->seqlast = seq;
        c = (struct cp_rec_call *)(void *)(out + done);
        start = t + (uint64_t)cp_log4_unzigzag(v);
        t = put_call(c, g, g->count, seq,
                     (g->flags & CP_CALL_IN_GROUP) ? s->last_group : 0, t, v,
                     e);
        if (s->swapped)
            cp_rec_swap((union cp_rec *)(void *)c);
        bpos += (size_t)(q - p);
        bdone++;
        done += REC;
    }
    s->bpos = bpos;
    s->bdone = bdone;
    s->slot += done / REC;
    s->t_call = t;
    s->call_start = start;
    return done;
}

ssize_t cp_log4src_read(struct cp_log4src *s, void *buf, size_t len)
{
    unsigned char *out = buf;
    size_t done = 0;

    while (done < len) {
        unsigned char *dst;
        size_t n;
        int r;
        if (s->cur_pos < s->cur_len) {
            n = s->cur_len - s->cur_pos;
            if (n > len - done)
                n = len - done;
            memcpy(out + done, s->cur + s->cur_pos, n);
            s->cur_pos += n;
            done += n;
            continue;
        }
        if (s->zeros > 0) {
            uint64_t whole = (len - done) / REC;
            if (done > 0)
                break; /* a run next: the caller skips it */
            if (whole == 0) {
                memset(s->cur, 0, REC);
                s->cur_len = REC;
                s->cur_pos = 0;
                s->zeros--;
                continue;
            }
            if (whole > s->zeros)
                whole = s->zeros;
            memset(out + done, 0, (size_t)whole * REC);
            s->zeros -= whole;
            done += (size_t)whole * REC;
            continue;
        }
        if (len - done >= REC) {
            size_t fast = fast_calls(s, out + done, len - done);
            if (fast) {
                done += fast;
                continue;
            }
        }
        dst = len - done >= REC ? out + done : s->cur;
        r = produce(s, dst);
        if (r == 0)
            break;
        if (r == 2)
            continue;
        if (dst == s->cur) {
            s->cur_len = REC;
            s->cur_pos = 0;
        } else {
            done += REC;
        }
    }
    if (done == 0 && s->phase == PHASE_END && s->have_problem) {
        errno = EIO;
        return -1;
    }
    return (ssize_t)done;
}

uint64_t cp_log4src_folded(const struct cp_log4src *s)
{
    return s->folded;
}

uint64_t cp_log4src_skip_empty(struct cp_log4src *s)
{
    uint64_t skipped = 0;

    if (s->cur_pos < s->cur_len)
        return 0; /* not at a slot's start */
    if (s->zeros == 0 && s->phase == PHASE_STREAM && s->have_block &&
        s->bdone < s->bslots && s->blen - s->bpos >= 32 &&
        s->blk[BLOCK_HDR + s->bpos] < CP_LOG4_SHORT_NEWGROUP &&
        s->blk[BLOCK_HDR + s->bpos] < s->nsig)
        return 0; /* a short call next (fast_calls' case): not decoded
                     here into cur, to be copied out of it (once a refill:
                     every 16 slots in the smallest place); were it
                     damaged, what follows reads as here, a never-written
                     slot counted by the scan as it meets it */
    for (;;) {
        int r;
        skipped += s->zeros;
        s->zeros = 0;
        r = produce(s, s->cur);
        if (r == 2)
            continue;
        if (r == 1 && s->cur[0] == CP_REC_EMPTY) {
            skipped++; /* a never-written cell of the ring, or a raw one */
            continue;
        }
        if (r == 1) {
            s->cur_len = REC; /* the next read gives it */
            s->cur_pos = 0;
        }
        return skipped;
    }
}

void cp_log4src_park(struct cp_log4src *s)
{
    if (!s->own_fd || s->fd < 0)
        return;
    close(s->fd);
    s->fd = -1;
}

const struct cp_error *cp_log4src_problem(const struct cp_log4src *s)
{
    if (!s->have_problem)
        return NULL;
    return s->problem ? s->problem : &no_memory_for_problem;
}

void cp_log4src_close(struct cp_log4src *s)
{
    int saved = errno;

    if (s) {
        if (s->own_fd && s->fd >= 0)
            close(s->fd);
        free(s->sig);
        free(s->tmpl);
        free(s->own_buf);
        free(s->problem);
        free(s); /* and its path */
    }
    errno = saved;
}

void cp_log4src_lend(struct cp_log4src *s, void *mem, size_t len)
{
    if (s->buf || len < CP_LOG4_LEND_MIN)
        return; /* lent before the first read only */
    s->buf = mem;
    s->cap = len;
}

void cp_log4src_observe(struct cp_log4src *s,
                        void (*fn)(void *arg, const struct cp_log4_part *part),
                        void *arg)
{
    s->observe = fn;
    s->observe_arg = arg;
}

struct cp_log4src *cp_log4src_open(const char *path, int fd, int own_fd,
                                   uint64_t dev, uint64_t ino,
                                   const struct cp_log_header *h, int swapped,
                                   struct cp_error *err)
{
    /* the path after the source, in one allocation (one a log and pass:
     * 16,384 logs, three passes) */
    size_t len = strlen(path) + 1;
    struct cp_log4src *s = malloc(sizeof *s + len);

    if (!s) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->path = memcpy((char *)(s + 1), path, len);
    s->fd = fd;
    s->own_fd = own_fd;
    s->dev = dev;
    s->ino = ino;
    s->swapped = swapped;
    s->t0 = s->t_call = s->t_gpu = s->call_start = h->start_realtime_ns;
    s->dev_start = s->dev_end = h->start_realtime_ns;
    s->ring_slots = h->ring_slots;
    s->dict_slots = h->dict_slots;
    s->ring_offset = h->ring_offset;
    s->stream_offset = h->stream_offset;
    s->stream_limit = h->stream_end > UINT64_MAX - h->stream_offset
                          ? UINT64_MAX
                          : h->stream_offset + h->stream_end;
    s->next_block = h->stream_offset;
    s->sync_bytes = (h->flags & CP_HDR_SYNC) ? h->sync_bytes : 0;
    s->policy = (h->flags & CP_HDR_POLICY) != 0;
    s->file_end = UINT64_MAX;
    s->phase = PHASE_STREAM;
    /* closed with every slot handed out in the stream: the writer gave
     * the ring back (it reads as zeros), no read of it is needed */
    s->all_in_stream = (h->flags & CP_HDR_CLOSED) && h->slots_used > 0 &&
                       h->stream_slots == h->slots_used;
    s->stream_slots = h->stream_slots;
    return s;
}

/* ---- sync points ---------------------------------------------------------- */

/* The sync point k (>= 1): its block read and checked, its sync op's
 * latest call start and its first slot.  0, or -1 with err naming the
 * file and the block's offset. */
/* After damage at file offset at (the stream's, before stream_end): with
 * sync points, the stream goes on at the first whole one after it, which
 * decodes without anything before it (docs/log-format.md, "Sync
 * points"); the slots between are lost, given as never-written ones
 * (s->zeros, counted in s->lost_slots; no more than the blocks between
 * can hold) and said in the problem.  Without
 * sync points, following a log still written, or with none whole after
 * the damage: the ring.  Reads a block per sync point tried, at most the
 * stream's. */
static void after_damage(struct cp_log4src *s, uint64_t at)
{
    uint64_t k, t_latest, first, lost;
    struct cp_error e;

    if (s->follow || !s->sync_bytes || s->block_past_end ||
        at < s->stream_offset) {
        to_ring(s);
        return;
    }
    for (k = (at - s->stream_offset) / s->sync_bytes + 1;
         s->stream_offset + k * s->sync_bytes < s->stream_limit; k++) {
        uint64_t next = s->stream_offset + k * s->sync_bytes;
        /* the slots lost are those the blocks in between can hold (a
         * block's header counts at most 2^32 - 1), and in a closed log no
         * more than it has: a claim past that is damage too */
        uint64_t blocks = (next - at) / BLOCK_HDR + 1;
        if (sync_probe(s, k, &t_latest, &first, &e) < 0 || first < s->slot ||
            (s->all_in_stream && first > s->stream_slots) ||
            first - s->slot > blocks * (uint64_t)UINT32_MAX)
            continue;
        lost = first - s->slot;
        s->zeros += lost;
        s->lost_slots += lost;
        s->slot = first;
        s->next_block = next;
        s->have_block = 0;
        s->resyncs++;
        if (s->problem && s->resyncs == 1) {
            size_t len = strlen(s->problem->text);
            snprintf(s->problem->text + len, sizeof s->problem->text - len,
                     "; read again from the sync point at offset %llu "
                     "(%llu slots before it lost)",
                     (unsigned long long)s->next_block,
                     (unsigned long long)lost);
        }
        return;
    }
    to_ring(s);
}

static int sync_probe(struct cp_log4src *s, uint64_t k, uint64_t *t_latest,
                      uint64_t *first, struct cp_error *err)
{
    uint64_t at = s->stream_offset + k * s->sync_bytes, v[6];
    const unsigned char *p, *end;
    uint32_t bytes;
    size_t got;
    unsigned i, n;

    if (!s->buf && own_buffer(s) < 0)
        return cp_errorf_at(err, s->path, (int64_t)at, "%s: offset %llu: "
                            "out of memory for a sync point's block",
                            s->path, (unsigned long long)at);
    s->win_len = 0; /* the probe's block goes where the window was */
    got = block_read(s, at);
    bytes = got >= BLOCK_HDR
                ? get32(s, s->buf + offsetof(struct cp_log4_block, bytes))
                : 0;
    if (got < BLOCK_HDR ||
        get32(s, s->buf) != CP_LOG4_BLOCK_MAGIC ||
        bytes > CP_LOG4_BLOCK_MAX - BLOCK_HDR || got < BLOCK_HDR + bytes ||
        cp_log4_sum(s->buf + BLOCK_HDR, bytes) !=
            get32(s, s->buf + offsetof(struct cp_log4_block, sum)) ||
        bytes == 0 || s->buf[BLOCK_HDR] != CP_LOG4_SYNC)
        return cp_errorf_at(err, s->path, (int64_t)at, "%s: offset %llu: "
                            "sync point %llu is not a whole block that "
                            "starts with a sync op",
                            s->path, (unsigned long long)at,
                            (unsigned long long)k);
    p = s->buf + BLOCK_HDR + 1;
    end = s->buf + BLOCK_HDR + bytes;
    for (i = 0; i < 6; i++, p += n)
        if (!(n = varint_in(p, (size_t)(end - p), &v[i])))
            return cp_errorf_at(err, s->path, (int64_t)at,
                                "%s: offset %llu: sync point %llu: its "
                                "sync op is cut short or a varint of it "
                                "too long", s->path, (unsigned long long)at,
                                (unsigned long long)k);
    *t_latest = v[5];
    *first = get64(s, s->buf + offsetof(struct cp_log4_block, first_slot));
    return 0;
}

int64_t cp_log4src_seek(struct cp_log4src *s, uint64_t t, struct cp_error *err)
{
    uint64_t lo = 1, hi, best = 0, best_first = 0, written;

    if (!s->sync_bytes || s->slot || s->phase != PHASE_STREAM ||
        s->have_block || s->stream_limit <= s->stream_offset)
        return 0;
    written = s->stream_limit - s->stream_offset;
    hi = (written - 1) / s->sync_bytes; /* the last before stream_end */
    while (lo <= hi) {
        uint64_t k = lo + (hi - lo) / 2, t_latest = 0, first = 0;
        if (sync_probe(s, k, &t_latest, &first, err) < 0)
            return -1;
        if (t_latest < t) {
            best = k;
            best_first = first;
            lo = k + 1;
        } else {
            hi = k - 1;
        }
    }
    if (best) {
        s->next_block = s->stream_offset + best * s->sync_bytes;
        s->slot = best_first;
    }
    return (int64_t)best_first;
}

int cp_log4src_has_sync(const struct cp_log4src *s)
{
    return s->sync_bytes != 0;
}

/* ---- as a cp_slotsrc ---------------------------------------------------- */

static ssize_t slots_read(void *impl, void *buf, size_t len)
{
    return cp_log4src_read(impl, buf, len);
}

static uint64_t slots_skip_empty(void *impl)
{
    return cp_log4src_skip_empty(impl);
}

static void slots_park(void *impl)
{
    cp_log4src_park(impl);
}

static const struct cp_error *slots_problem(const void *impl)
{
    return cp_log4src_problem(impl);
}

static void slots_close(void *impl)
{
    cp_log4src_close(impl);
}

static void slots_lend(void *impl, void *mem, size_t len)
{
    cp_log4src_lend(impl, mem, len);
}

static int64_t slots_seek_time(void *impl, uint64_t t, struct cp_error *err)
{
    return cp_log4src_seek(impl, t, err);
}

static const struct cp_slotsrc_ops log4src_ops = {
    .read = slots_read,
    .skip_empty = slots_skip_empty,
    .park = slots_park,
    .problem = slots_problem,
    .close = slots_close,
    .lend = slots_lend,
    .seek_time = slots_seek_time,
};

struct cp_slotsrc cp_log4src_slots(struct cp_log4src *s)
{
    struct cp_slotsrc src = {&log4src_ops, s};
    return src;
}

/* ---- following a log still being written --------------------------------- */

void cp_log4src_follow(struct cp_log4src *s)
{
    s->follow = 1;
    s->all_in_stream = 0;
}

int cp_log4src_refresh(struct cp_log4src *s, struct cp_error *err)
{
    unsigned char h[CP_LOG_HEADER_SIZE];
    uint64_t end, slots;
    uint32_t flags;
    size_t got;

    if (!s->follow)
        return cp_errorf(err, "%s: not followed", s->path);
    got = read_at(s, h, sizeof h, 0);
    if (s->lost || got < sizeof h)
        return cp_errorf(err, "%s: %s", s->path,
                         s->have_problem ? cp_log4src_problem(s)->text
                                         : "header cut short");
    end = get64(s, h + offsetof(struct cp_log_header, stream_end));
    slots = get64(s, h + offsetof(struct cp_log_header, stream_slots));
    flags = get32(s, h + offsetof(struct cp_log_header, flags));
    if (end > UINT64_MAX - s->stream_offset)
        return cp_errorf_at(err, s->path,
                            (int64_t)offsetof(struct cp_log_header, stream_end),
                            "%s: offset %zu: stream_end %llu out of range",
                            s->path, offsetof(struct cp_log_header, stream_end),
                            (unsigned long long)end);
    /* the stream only grows: a smaller end is a file written anew */
    if (s->stream_offset + end >= s->stream_limit) {
        s->stream_limit = s->stream_offset + end;
        s->stream_slots = slots;
    }
    s->closed = (flags & CP_HDR_CLOSED) != 0;
    s->file_end = UINT64_MAX; /* the file may have grown */
    if (s->phase == PHASE_WAIT && s->next_block < s->stream_limit)
        s->phase = PHASE_STREAM;
    return s->closed && s->phase == PHASE_WAIT &&
                   s->next_block >= s->stream_limit
               ? 1
               : 0;
}

uint64_t cp_log4src_next_slot(const struct cp_log4src *s)
{
    return s->slot;
}

long cp_log4src_ring(struct cp_log4src *s,
                     void (*fn)(void *arg, uint64_t slot, const void *rec),
                     void *arg)
{
    unsigned char rec[REC];
    uint64_t keep = s->slot;
    long n = 0;

    if (!s->follow || s->phase != PHASE_WAIT || s->cur_pos < s->cur_len)
        return -1;
    s->rn = s->rpos = 0;
    s->ring_done = 0;
    while (n < (long)s->ring_slots && ring_next(s, rec)) {
        if (rec[0] == CP_REC_EMPTY)
            break; /* handed out, being written: nothing past it is sure */
        fn(arg, s->slot - 1, rec);
        n++;
    }
    s->slot = keep;
    s->rn = s->rpos = 0;
    return n;
}
