/* cp_partial.c - node partials: reduce, list (see cp_partial.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "cp_grow.h"
#include "cp_logread.h"
#include "cp_partial.h"
#include "cp_partial_src.h"
#include "cp_path.h"

#define IO_BUFFER (64 * 1024)
#define REC CP_LOG_RECORD_SIZE

/* ---- the checksum (little-endian fields: cp_partial_src.h) ----------------- */

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* The checksum: FNV-1a over the data's 64-bit little-endian words, then
 * its last 0-7 bytes one at a time (a word per step: checking a partial
 * costs a small part of reading it).  Fed in pieces of any size. */
struct sum {
    uint64_t h;
    unsigned npend;
    unsigned char pend[8];
};

static void sum_init(struct sum *s)
{
    s->h = FNV_OFFSET;
    s->npend = 0;
}

static void sum_add(struct sum *s, const void *data, size_t n)
{
    const unsigned char *p = data;

    while (n > 0 && s->npend > 0) {
        s->pend[s->npend++] = *p++;
        n--;
        if (s->npend == 8) {
            s->h = (s->h ^ cp_partial_get64(s->pend)) * FNV_PRIME;
            s->npend = 0;
        }
    }
    for (; n >= 8; p += 8, n -= 8)
        s->h = (s->h ^ cp_partial_get64(p)) * FNV_PRIME;
    while (n-- > 0)
        s->pend[s->npend++] = *p++;
}

static uint64_t sum_final(const struct sum *s)
{
    uint64_t h = s->h;
    unsigned i;

    for (i = 0; i < s->npend; i++)
        h = (h ^ s->pend[i]) * FNV_PRIME;
    return h;
}

static uint64_t checksum(const void *data, size_t n)
{
    struct sum s;

    sum_init(&s);
    sum_add(&s, data, n);
    return sum_final(&s);
}

/* ---- the file's header and index ------------------------------------------ *
 * header (CP_PARTIAL_HEADER_SIZE bytes):
 *   0 magic[8]  8 version  12 header_size  16 entry_size  20 nlogs
 *   24 index_sum(u64)  32 file_size(u64)  40 raw_bytes(u64)
 *   48 reserved[16]  64 node[64]
 * entry (CP_PARTIAL_ENTRY_SIZE bytes), one per log, in name order:
 *   0 name[128]  128 offset  136 size  144 raw_size  152 sum (u64 each)
 *   160 global_rank(i32)  164 header_bytes  168 header_size  172 reserved
 *   176 slots(u64)  184 reserved(u64) */

struct partial {
    char node[64];
    uint32_t nlogs;
    uint64_t file_size, raw_bytes;
    struct cp_partial_entry *e;
    unsigned damaged;         /* logs encoded up to damage in them */
    struct cp_error damage;   /* the first such damage */
};

static void encode_header(unsigned char *h, const struct partial *p,
                          uint64_t index_sum)
{
    memset(h, 0, CP_PARTIAL_HEADER_SIZE);
    memcpy(h, CP_PARTIAL_MAGIC, 8);
    cp_partial_put32(h + 8, CP_PARTIAL_VERSION);
    cp_partial_put32(h + 12, CP_PARTIAL_HEADER_SIZE);
    cp_partial_put32(h + 16, CP_PARTIAL_ENTRY_SIZE);
    cp_partial_put32(h + 20, p->nlogs);
    cp_partial_put64(h + 24, index_sum);
    cp_partial_put64(h + 32, p->file_size);
    cp_partial_put64(h + 40, p->raw_bytes);
    snprintf((char *)h + 64, 64, "%s", p->node);
}

static void encode_entry(unsigned char *b, const struct cp_partial_entry *e)
{
    memset(b, 0, CP_PARTIAL_ENTRY_SIZE);
    snprintf((char *)b, CP_PARTIAL_NAME_LEN, "%s", e->name);
    cp_partial_put64(b + 128, e->offset);
    cp_partial_put64(b + 136, e->size);
    cp_partial_put64(b + 144, e->raw_size);
    cp_partial_put64(b + 152, e->sum);
    cp_partial_put32(b + 160, (uint32_t)e->global_rank);
    cp_partial_put32(b + 164, e->header_bytes);
    cp_partial_put32(b + 168, e->header_size);
    cp_partial_put64(b + 176, e->slots);
}

/* A log's name as a partial may hold it: a plain file name. */
static int plain_name(const char *s)
{
    return s[0] && s[0] != '.' && strchr(s, '/') == NULL;
}

static size_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* Check the header h (got bytes of it read) of the partial path, whose
 * status is sb, and fill p's counts and node.  -1 with err naming the
 * offset. */
static int check_header(const unsigned char *h, size_t got,
                        const struct stat *sb, const char *path,
                        struct partial *p, struct cp_error *err)
{
    uint64_t data_start;

    if (got == 0) {
        cp_error_set(err, path, 0, "%s: offset 0: empty file, not a collprof "
                     "partial", path);
        return -1;
    }
    if (got < 8 || memcmp(h, CP_PARTIAL_MAGIC, 8) != 0) {
        cp_error_set(err, path, 0, "%s: offset 0: not a collprof partial (bad "
                     "magic)", path);
        return -1;
    }
    if (got < CP_PARTIAL_HEADER_SIZE) {
        cp_error_set(err, path, (int64_t)got, "%s: offset %zu: header "
                     "truncated (%zu of %u bytes)", path, got, got,
                     CP_PARTIAL_HEADER_SIZE);
        return -1;
    }
    if (cp_partial_get32(h + 8) < CP_PARTIAL_VERSION_MIN ||
        cp_partial_get32(h + 8) > CP_PARTIAL_VERSION) {
        cp_error_set(err, path, 8, "%s: offset 8: partial format version %u, "
                     "this collprof reads %u to %u", path, cp_partial_get32(h + 8),
                     CP_PARTIAL_VERSION_MIN, CP_PARTIAL_VERSION);
        return -1;
    }
    if (cp_partial_get32(h + 12) != CP_PARTIAL_HEADER_SIZE ||
        cp_partial_get32(h + 16) != CP_PARTIAL_ENTRY_SIZE) {
        cp_error_set(err, path, 12, "%s: offset 12: bad sizes (header %u, "
                     "entry %u)", path, cp_partial_get32(h + 12), cp_partial_get32(h + 16));
        return -1;
    }
    p->nlogs = cp_partial_get32(h + 20);
    p->file_size = cp_partial_get64(h + 32);
    p->raw_bytes = cp_partial_get64(h + 40);
    memcpy(p->node, h + 64, sizeof p->node);
    p->node[sizeof p->node - 1] = '\0';
    if (p->file_size != (uint64_t)sb->st_size) {
        cp_error_set(err, path, 32, "%s: offset 32: the partial says it has "
                     "%llu bytes, the file has %llu (truncated or grown)",
                     path, (unsigned long long)p->file_size,
                     (unsigned long long)sb->st_size);
        return -1;
    }
    /* the count sizes the index only once the file is known to hold it */
    data_start = CP_PARTIAL_HEADER_SIZE +
                 (uint64_t)p->nlogs * CP_PARTIAL_ENTRY_SIZE;
    if (p->nlogs == 0 || data_start > p->file_size) {
        cp_error_set(err, path, 20, "%s: offset 20: %u logs do not fit in %llu "
                     "bytes", path, p->nlogs,
                     (unsigned long long)p->file_size);
        return -1;
    }
    return 0;
}

/* Whether the sizes entry e claims for its log are those of a log:
 * header_size, then slots whole slots (at most the most a log has), then
 * a partial record of under a slot.  What decoding costs is bounded by
 * them (the runs of never-written slots are skipped, not expanded). */
static int log_sizes_ok(const struct cp_partial_entry *e)
{
    return e->slots <= CP_LOG_MAX_SLOTS && e->raw_size >= e->header_size &&
           (e->raw_size - e->header_size) / REC == e->slots;
}

/* Decode the index (p->nlogs entries) into p->e and check that the logs
 * follow one another from data_start to the end of the file, and that
 * the header's sum of their sizes is theirs. */
static int decode_index(const unsigned char *index, uint64_t data_start,
                        const char *path, struct partial *p,
                        struct cp_error *err)
{
    uint64_t expect = data_start, raw_bytes = 0;
    uint32_t i;

    for (i = 0; i < p->nlogs; i++) {
        const unsigned char *b = index + (size_t)i * CP_PARTIAL_ENTRY_SIZE;
        struct cp_partial_entry *e = &p->e[i];
        uint64_t at = CP_PARTIAL_HEADER_SIZE + (uint64_t)i * CP_PARTIAL_ENTRY_SIZE;
        memcpy(e->name, b, sizeof e->name);
        e->name[sizeof e->name - 1] = '\0';
        e->offset = cp_partial_get64(b + 128);
        e->size = cp_partial_get64(b + 136);
        e->raw_size = cp_partial_get64(b + 144);
        e->sum = cp_partial_get64(b + 152);
        e->global_rank = (int32_t)cp_partial_get32(b + 160);
        e->header_bytes = cp_partial_get32(b + 164);
        e->header_size = cp_partial_get32(b + 168);
        e->slots = cp_partial_get64(b + 176);
        if (!plain_name(e->name) || e->offset != expect ||
            e->size > p->file_size - e->offset ||
            e->header_bytes != sizeof(struct cp_log_header) ||
            e->size < e->header_bytes || e->header_size < e->header_bytes ||
            e->header_size > (1u << 20) || !log_sizes_ok(e) ||
            (i > 0 && strcmp(p->e[i - 1].name, e->name) >= 0)) {
            cp_error_set(err, path, (int64_t)at, "%s: offset %llu: index entry "
                         "%u is inconsistent", path, (unsigned long long)at, i);
            return -1;
        }
        expect += e->size;
        raw_bytes += e->raw_size; /* each under 2^35: no overflow */
    }
    if (expect != p->file_size) {
        cp_error_set(err, path, (int64_t)expect, "%s: offset %llu: %llu bytes "
                     "follow the last log", path, (unsigned long long)expect,
                     (unsigned long long)(p->file_size - expect));
        return -1;
    }
    if (raw_bytes != p->raw_bytes) {
        cp_error_set(err, path, 40, "%s: offset 40: the logs' sizes sum to "
                     "%llu bytes, the header says %llu", path,
                     (unsigned long long)raw_bytes,
                     (unsigned long long)p->raw_bytes);
        return -1;
    }
    return 0;
}

/* Check every log's checksum, reading the data that follows the index on
 * fd. */
static int verify_logs(int fd, const char *path, const struct partial *p,
                       struct cp_error *err)
{
    unsigned char *buf = malloc(IO_BUFFER);
    uint32_t i;
    int rc = -1;

    if (!buf) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto out;
    }
    for (i = 0; i < p->nlogs; i++) {
        const struct cp_partial_entry *e = &p->e[i];
        uint64_t left = e->size;
        struct sum sum;
        sum_init(&sum);
        while (left > 0) {
            size_t want = left < IO_BUFFER ? (size_t)left : IO_BUFFER;
            if (read_full(fd, buf, want) != want)
                break;
            sum_add(&sum, buf, want);
            left -= want;
        }
        if (left > 0 || sum_final(&sum) != e->sum) {
            cp_error_set(err, path, (int64_t)e->offset, "%s: offset %llu: "
                         "the data of %s is damaged (checksum)", path,
                         (unsigned long long)e->offset, e->name);
            goto out;
        }
    }
    rc = 0;
out:
    free(buf);
    return rc;
}

/* Read and check the header and index of the partial open on fd, and with
 * verify, every log's checksum.  p->e is allocated (free it).  -1 with err
 * naming path and the offset. */
static int read_partial(int fd, const char *path, int verify,
                        struct partial *p, struct cp_error *err)
{
    unsigned char h[CP_PARTIAL_HEADER_SIZE], *index = NULL;
    struct stat sb;
    uint64_t index_size;
    size_t got;
    int rc = -1;

    memset(p, 0, sizeof *p);
    if (fstat(fd, &sb) < 0) {
        cp_error_set(err, path, -1, "%s: %s", path, strerror(errno));
        goto out;
    }
    got = read_full(fd, h, sizeof h);
    if (check_header(h, got, &sb, path, p, err) < 0)
        goto out;
    index_size = (uint64_t)p->nlogs * CP_PARTIAL_ENTRY_SIZE;
    index = malloc(index_size);
    p->e = calloc(p->nlogs, sizeof *p->e);
    if (!index || !p->e) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto out;
    }
    got = read_full(fd, index, index_size);
    if (got != index_size || checksum(index, index_size) != cp_partial_get64(h + 24)) {
        cp_error_set(err, path, CP_PARTIAL_HEADER_SIZE, "%s: offset %u: index "
                     "damaged (checksum)", path, CP_PARTIAL_HEADER_SIZE);
        goto out;
    }
    if (decode_index(index, CP_PARTIAL_HEADER_SIZE + index_size, path, p,
                     err) < 0)
        goto out;
    if (verify && verify_logs(fd, path, p, err) < 0)
        goto out;
    rc = 0;
out:
    free(index);
    if (rc < 0) {
        free(p->e);
        p->e = NULL;
    }
    return rc;
}

/* ---- writing -------------------------------------------------------------- */

struct sink {
    FILE *f;
    uint64_t bytes;
    struct sum sum;
};

static void emit(struct sink *s, const void *p, size_t n)
{
    fwrite(p, 1, n, s->f);
    s->bytes += n;
    sum_add(&s->sum, p, n);
}

static void emit_varint(struct sink *s, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;
    do {
        b[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    emit(s, b, n);
}

/* A run of never-written slots, when one is pending: its op and count. */
static void flush_empty(struct sink *s, uint64_t *empty)
{
    unsigned char op = CP_PARTIAL_OP_EMPTY;

    if (!*empty)
        return;
    emit(s, &op, 1);
    emit_varint(s, *empty);
    *empty = 0;
}

/* A written slot as its kind, a mask of the bytes that differ from p (the
 * previous slot of its kind) and those bytes xored; p becomes it (unless
 * p is zeros, the stand-in of kinds past CP_PARTIAL_KINDS). */
static void encode_slot(struct sink *s, const unsigned char *slot,
                        unsigned char *p, const unsigned char *zeros)
{
    unsigned char changed[REC], head[2] = {CP_PARTIAL_OP_SLOT, slot[0]};
    uint64_t mask = 0;
    size_t k, n = 0;

    for (k = 1; k < REC; k++)
        if (slot[k] != p[k]) {
            mask |= 1ull << (k - 1);
            changed[n++] = slot[k] ^ p[k];
        }
    emit(s, head, 2);
    emit_varint(s, mask);
    emit(s, changed, n);
    if (p != zeros)
        memcpy(p, slot, REC);
}

/* A call slot against p, the previous call (CP_PARTIAL_OP_CALL): the mask
 * and bytes of what else changed, then its seq as the distance from p's
 * plus one, its start from p's end (p's start when p has none) and its
 * duration as the difference from p's (0 when p has none), plus one (0:
 * none), which a training loop's calls keep small; CP_PARTIAL_OP_CALL_NEXT
 * when nothing else changed and the seq is p's plus one.  0, or -1 when
 * the duration's difference cannot be written so (its zigzag + 1 wraps
 * to 0): the caller writes the slot with op 1. */
static int encode_call(struct sink *s, const unsigned char *slot,
                       unsigned char *p)
{
    unsigned char changed[REC], op;
    uint64_t mask = 0, seq = cp_partial_get32(slot + CP_PARTIAL_CALL_SEQ),
             start = cp_partial_get64(slot + CP_PARTIAL_CALL_START),
             end = cp_partial_get64(slot + CP_PARTIAL_CALL_END),
             pstart = cp_partial_get64(p + CP_PARTIAL_CALL_START),
             pend = cp_partial_get64(p + CP_PARTIAL_CALL_END);
    uint32_t dseq = (uint32_t)seq -
                    (cp_partial_get32(p + CP_PARTIAL_CALL_SEQ) + 1u);
    uint64_t ddur = cp_log4_zigzag((end - start) - (pend ? pend - pstart : 0));
    size_t k, n = 0;

    if (end && ddur == UINT64_MAX)
        return -1;
    for (k = 1; k < REC; k++)
        if (!(CP_PARTIAL_CALL_NUMBERS >> (k - 1) & 1) && slot[k] != p[k]) {
            mask |= 1ull << (k - 1);
            changed[n++] = slot[k] ^ p[k];
        }
    op = mask || dseq ? CP_PARTIAL_OP_CALL : CP_PARTIAL_OP_CALL_NEXT;
    emit(s, &op, 1);
    if (op == CP_PARTIAL_OP_CALL) {
        emit_varint(s, mask);
        emit(s, changed, n);
        emit_varint(s, cp_log4_zigzag((uint64_t)(int64_t)(int32_t)dseq));
    }
    emit_varint(s, cp_log4_zigzag(start - (pend ? pend : pstart)));
    emit_varint(s, end ? ddur + 1 : 0);
    memcpy(p, slot, REC);
    return 0;
}

/* Encode one log (fd at offset 0, header read and checked) into s: its
 * slots from src where it has one (a version-4 log: the slots decoded,
 * never-written runs counted, not expanded; *damage filled and 1
 * returned where the log is damaged, the slots before kept), else read
 * from fd after the header.  0, 1, or -1 with err filled. */
static int encode_log(int fd, struct cp_slotsrc *src, const char *path,
                      struct cp_partial_entry *e, struct sink *s,
                      struct cp_error *damage, struct cp_error *err)
{
    unsigned char hdr[sizeof(struct cp_log_header)];
    unsigned char (*prev)[REC] = NULL, *buf = NULL;
    unsigned char zeros[REC];
    uint64_t empty = 0;
    size_t fill = 0;
    int rc = -1;

    prev = calloc(CP_PARTIAL_KINDS, REC);
    buf = malloc(IO_BUFFER);
    if (!prev || !buf) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto out;
    }
    if (pread(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr) {
        cp_error_set(err, path, 0, "%s: cannot read the header", path);
        goto out;
    }
    memset(zeros, 0, sizeof zeros); /* the previous slot of kinds past
                                        CP_PARTIAL_KINDS */
    e->header_bytes = sizeof hdr;
    emit(s, hdr, sizeof hdr);
    if (!cp_slotsrc_is(src) &&
        lseek(fd, (off_t)e->header_size, SEEK_SET) < 0) {
        cp_error_set(err, path, e->header_size, "%s: cannot seek: %s", path,
                     strerror(errno));
        goto out;
    }
    for (;;) {
        size_t got, pos = 0;
        if (cp_slotsrc_is(src)) {
            ssize_t n;
            if (fill == 0) {
                /* a run of never-written slots, counted */
                uint64_t run = cp_slotsrc_skip_empty(src);
                e->slots += run;
                empty += run;
            }
            n = cp_slotsrc_read(src, buf + fill, IO_BUFFER - fill);
            got = n > 0 ? (size_t)n : 0;
        } else {
            got = read_full(fd, buf + fill, IO_BUFFER - fill);
        }
        fill += got;
        for (; fill - pos >= REC; pos += REC) {
            const unsigned char *slot = buf + pos;
            e->slots++;
            if (slot[0] == CP_REC_EMPTY) {
                empty++;
                continue;
            }
            flush_empty(s, &empty);
            if (slot[0] != CP_REC_CALL ||
                encode_call(s, slot, prev[CP_REC_CALL]) < 0)
                encode_slot(s, slot,
                            slot[0] < CP_PARTIAL_KINDS ? prev[slot[0]] : zeros,
                            zeros);
        }
        memmove(buf, buf + pos, fill - pos);
        fill -= pos;
        if (got == 0)
            break;
    }
    flush_empty(s, &empty);
    if (fill > 0) {
        unsigned char op = CP_PARTIAL_OP_TAIL;
        emit(s, &op, 1);
        emit_varint(s, fill);
        emit(s, buf, fill);
    }
    {
        unsigned char op = CP_PARTIAL_OP_END;
        emit(s, &op, 1);
    }
    e->raw_size = e->header_size + e->slots * REC + fill;
    rc = 0;
    if (cp_slotsrc_problem(src)) {
        *damage = *cp_slotsrc_problem(src);
        rc = 1;
    }
out:
    free(prev);
    free(buf);
    return rc;
}

int cp_partial_file_name(const char *node, char *buf, size_t len)
{
    char safe[64];
    size_t i;

    for (i = 0; node[i] && i + 1 < sizeof safe; i++) {
        char c = node[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        safe[i] = ok && !(i == 0 && c == '.') ? c : '_';
    }
    safe[i] = '\0';
    if (i == 0)
        snprintf(safe, sizeof safe, "node");
    return snprintf(buf, len, "%s%s", safe, CP_PARTIAL_SUFFIX) < (int)len ? 0
                                                                          : -1;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The logs of paths (n, in dir) whose header names node, into p->e
 * (p->nlogs of them: name, rank and header size); the others counted in
 * st.  -1 with err filled when memory ran out or none is node's. */
static int choose_logs(const char *dir, const char *node, char **paths,
                       int n, struct partial *p, struct cp_partial_stats *st,
                       struct cp_error *err)
{
    int i;

    p->e = calloc((size_t)n, sizeof *p->e);
    if (!p->e)
        return cp_errorf_at(err, dir, -1, "%s: out of memory", dir);
    /* which logs are this node's: their headers say */
    for (i = 0; i < n; i++) {
        struct cp_logfile *lf = cp_logfile_open(paths[i], NULL);
        const struct cp_log_header *hd;
        if (!lf) {
            st->unreadable++;
            continue;
        }
        hd = cp_logfile_header(lf);
        if (strcmp(hd->node, node) != 0 ||
            strlen(base_name(paths[i])) >= CP_PARTIAL_NAME_LEN) {
            st->other++;
        } else {
            struct cp_partial_entry *e = &p->e[p->nlogs++];
            snprintf(e->name, sizeof e->name, "%s", base_name(paths[i]));
            e->global_rank = hd->global_rank;
            e->header_size = hd->header_size;
        }
        cp_logfile_close(lf);
    }
    if (p->nlogs == 0)
        return cp_errorf_at(err, dir, -1, "%s: no readable log of node '%s' "
                            "here (%u of other nodes, %u unreadable)", dir,
                            node, st->other, st->unreadable);
    return 0;
}

/* Encode the chosen log e of dir (node's) into f as the section at
 * offset: e's offset, size, checksum, slots and size filled.  0; 1 when
 * the log is damaged (version 4: its slots before the damage encoded,
 * *damage says where); -1 with err filled. */
static int copy_log(FILE *f, const char *dir, const char *node,
                    uint64_t offset, struct cp_partial_entry *e,
                    struct cp_error *damage, struct cp_error *err)
{
    struct cp_logfile *lf;
    const struct cp_log_header *hd;
    struct cp_slotsrc src;
    struct sink s;
    char path[4200];
    int rc = -1, r;

    snprintf(path, sizeof path, "%s/%s", dir, e->name);
    /* the log copied is checked on the descriptor copied (magic, header,
     * its node), not only when it was chosen: a file put in its place
     * since is refused, never copied */
    lf = cp_logfile_open(path, err);
    if (!lf)
        return -1;
    hd = cp_logfile_header(lf);
    if (cp_logfile_fd(lf) < 0 || strcmp(hd->node, node) != 0 ||
        hd->global_rank != e->global_rank ||
        hd->header_size != e->header_size) {
        cp_error_set(err, path, -1, "%s: changed since it was first read "
                     "(not the log chosen); nothing written", path);
        goto out;
    }
    s.f = f;
    s.bytes = 0;
    sum_init(&s.sum);
    e->offset = offset;
    e->slots = 0; /* counted by encode_log (again, when rewritten) */
    /* a version-4 log's slots through its decoder: the partial holds the
     * slots, as of a log of one slot per record */
    src = cp_logfile_take_src(lf);
    r = encode_log(cp_logfile_fd(lf), &src, path, e, &s, damage, err);
    cp_slotsrc_close(&src);
    if (r < 0)
        goto out;
    e->size = s.bytes;
    e->sum = sum_final(&s.sum);
    rc = r;
out:
    cp_logfile_close(lf);
    return rc;
}

/* Write p, the partial of node's logs chosen in dir, into f (the file
 * out_path): a blank header and index, every log's section, then the
 * header and index once the offsets are known; p's sizes filled, bad[k]
 * set for a log found damaged.  -1 with err filled. */
static int write_partial(FILE *f, const char *dir, const char *node,
                         const char *out_path, struct partial *p,
                         unsigned char *bad, struct cp_error *err)
{
    unsigned char h[CP_PARTIAL_HEADER_SIZE], *index;
    size_t index_size = (size_t)p->nlogs * CP_PARTIAL_ENTRY_SIZE;
    uint64_t offset = CP_PARTIAL_HEADER_SIZE + (uint64_t)index_size;
    uint32_t k;
    int rc = -1;

    memset(h, 0, sizeof h);
    index = calloc(p->nlogs, CP_PARTIAL_ENTRY_SIZE);
    if (!index)
        return cp_errorf_at(err, out_path, -1, "%s: out of memory",
                            out_path);
    fwrite(h, 1, sizeof h, f);
    fwrite(index, CP_PARTIAL_ENTRY_SIZE, p->nlogs, f);
    for (k = 0; k < p->nlogs; k++) {
        struct cp_partial_entry *e = &p->e[k];
        struct cp_error damage;
        int r = copy_log(f, dir, node, offset, e, &damage, err);
        if (r < 0)
            goto out;
        if (r > 0 && p->damaged++ == 0)
            p->damage = damage;
        bad[k] = r > 0;
        offset += e->size;
        p->raw_bytes += e->raw_size;
        encode_entry(index + (size_t)k * CP_PARTIAL_ENTRY_SIZE, e);
    }
    p->file_size = offset;
    encode_header(h, p, checksum(index, index_size));
    if (fseek(f, 0, SEEK_SET) != 0) {
        cp_error_set(err, out_path, -1, "%s: cannot seek: %s", out_path,
                     strerror(errno));
        goto out;
    }
    fwrite(h, 1, sizeof h, f);
    fwrite(index, CP_PARTIAL_ENTRY_SIZE, p->nlogs, f);
    rc = 0;
out:
    free(index);
    return rc;
}

int cp_partial_reduce(const char *dir, const char *node, const char *out_path,
                      struct cp_partial_stats *st, struct cp_error *err)
{
    struct cp_partial_stats local;
    struct cp_path_out o;
    struct partial p;
    char **paths = NULL;
    unsigned char *bad = NULL;
    int n, rc = -1, started = 0;

    memset(&o, 0, sizeof o);
    memset(&p, 0, sizeof p);
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    snprintf(p.node, sizeof p.node, "%s", node);
    n = cp_logdir_list(dir, &paths, err);
    if (n < 0 || choose_logs(dir, node, paths, n, &p, st, err) < 0 ||
        cp_path_create(&o, out_path, CP_PATH_MODE, err) < 0)
        goto out;
    started = 1;
    if (!(bad = calloc(p.nlogs ? p.nlogs : 1, 1))) {
        cp_error_set(err, out_path, -1, "%s: out of memory", out_path);
        goto out;
    }
    if (write_partial(o.f, dir, node, out_path, &p, bad, err) < 0)
        goto out;
    st->damaged = p.damaged;
    st->damage = p.damage;
    if (p.damaged) {
        /* a damaged log is left out (the partial would hold it only up
         * to the damage, and say nothing of it): the analysis reads it
         * raw and names the damage, file and offset */
        uint32_t k, kept = 0;
        for (k = 0; k < p.nlogs; k++)
            if (!bad[k])
                p.e[kept++] = p.e[k];
        p.nlogs = kept;
        p.raw_bytes = p.file_size = 0;
        p.damaged = 0;
        if (kept == 0) {
            /* no partial: every log of the node is read raw */
            rc = 0;
            goto out;
        }
        if (fflush(o.f) != 0 || ftruncate(fileno(o.f), 0) != 0 ||
            fseek(o.f, 0, SEEK_SET) != 0) {
            cp_error_set(err, out_path, -1, "%s: cannot rewrite: %s",
                         out_path, strerror(errno));
            goto out;
        }
        if (write_partial(o.f, dir, node, out_path, &p, bad, err) < 0)
            goto out;
        st->damaged += p.damaged; /* damaged since (still being written) */
    }
    started = 0;
    if (cp_path_install(&o, err) < 0)
        goto out;
    st->logs = p.nlogs;
    st->raw_bytes = p.raw_bytes;
    st->bytes = p.file_size;
    rc = 0;
out:
    if (started)
        cp_path_discard(&o);
    cp_logdir_free(paths);
    free(bad);
    free(p.e);
    return rc;
}

int cp_partial_missing(const char *dir, char *first, size_t len,
                       struct cp_error *err)
{
    char **paths = NULL, (*seen)[128] = NULL;
    size_t nseen = 0, k;
    int n, i, missing = 0;

    if (len)
        first[0] = '\0';
    n = cp_logdir_list(dir, &paths, err);
    if (n < 0)
        return -1;
    seen = calloc((size_t)n, sizeof *seen);
    if (!seen) {
        cp_logdir_free(paths);
        return cp_errorf_at(err, dir, -1, "%s: out of memory", dir);
    }
    for (i = 0; i < n; i++) {
        struct cp_logfile *lf = cp_logfile_open(paths[i], NULL);
        char name[128], path[4300];
        struct stat sb;
        if (!lf)
            continue;
        snprintf(name, sizeof name, "%s", cp_logfile_header(lf)->node);
        cp_logfile_close(lf);
        for (k = 0; k < nseen; k++)
            if (strcmp(seen[k], name) == 0)
                break;
        if (k < nseen)
            continue;
        snprintf(seen[nseen++], sizeof *seen, "%s", name);
        if (cp_partial_file_name(name, path, sizeof path) == 0) {
            char full[4400];
            snprintf(full, sizeof full, "%s/%s", dir, path);
            if (cp_path_stat(full, &sb) == 0)
                continue;
        }
        if (missing++ == 0 && len)
            snprintf(first, len, "%s", name);
    }
    free(seen);
    cp_logdir_free(paths);
    return missing;
}

/* ---- listing: partials, raw logs or both ---------------------------------- */

struct list {
    char **v;
    size_t n, cap;
};

/* dir/name (dir NULL: name), allocated; NULL without memory. */
static char *join_path(const char *dir, const char *name)
{
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *path = malloc(len);

    if (path && dir)
        snprintf(path, len, "%s/%s", dir, name);
    else if (path)
        snprintf(path, len, "%s", name);
    return path;
}

static int list_add(struct list *l, const char *dir, const char *name)
{
    if (l->n + 2 > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **bigger = realloc(l->v, cap * sizeof *bigger);
        if (!bigger)
            return -1;
        l->v = bigger;
        l->cap = cap;
    }
    l->v[l->n] = join_path(dir, name);
    if (!l->v[l->n])
        return -1;
    l->v[++l->n] = NULL;
    return 0;
}

static void list_free(struct list *l)
{
    size_t i;
    for (i = 0; l->v && i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

struct notes {
    struct cp_error *v;
    size_t n;
};

static struct cp_error *add_note(struct notes *ns)
{
    struct cp_error *bigger = realloc(ns->v, (ns->n + 1) * sizeof *bigger);
    if (!bigger)
        return NULL;
    ns->v = bigger;
    return &ns->v[ns->n++];
}

/* A partial, validated, with the node it stands for. */
struct held {
    char *path;
    int ok;
    int fd;           /* the checked file's descriptor, until registered */
    uint64_t dev, ino;
    char node[64];
    struct partial p;
};

static int compare_held(const void *a, const void *b)
{
    return strcmp(((const struct held *)a)->path, ((const struct held *)b)->path);
}

/* The node named by a partial's file name (NODE.cppart). */
static void node_from_name(const char *path, char *node, size_t len)
{
    const char *b = base_name(path);
    size_t n = strlen(b) - strlen(CP_PARTIAL_SUFFIX);
    snprintf(node, len, "%.*s", (int)(n < len ? n : len - 1), b);
}

/* A log cp_partial_list returns, and its place among those found (the raw
 * logs first, then each valid partial's in turn): of two partials holding
 * one name, the first is read. */
struct found {
    struct cp_partial_listed log;
    size_t order;
};

/* What cp_partial_list gathers: the partials, the raw logs beside them,
 * the logs it returns and its notes. */
struct listing {
    struct list raw;
    struct found *out;
    size_t nout, capout;
    struct list dirlogs; /* the *.cplog of a directory given, as listed */
    struct notes ns;
    struct held *held;
    size_t nheld;
    char *dir;
};

/* The partials path names: itself (one partial file) or those in the
 * directory, into ls->held, and the directory of the logs into ls->dir
 * (none for anything else).  -1 with err set. */
static int find_partials(const char *path, struct listing *ls,
                         struct cp_error *err)
{
    struct stat sb;
    DIR *d = NULL;
    struct dirent *de;
    int rc = -1;

    if (cp_path_stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode) &&
        has_suffix(path, CP_PARTIAL_SUFFIX)) {
        /* one partial: its logs, or its node's raw logs beside it */
        const char *slash = strrchr(path, '/');
        ls->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
        ls->held = calloc(1, sizeof *ls->held);
        if (!ls->dir || !ls->held || !(ls->held[0].path = strdup(path)))
            goto oom;
        ls->nheld = 1;
    } else if (cp_path_stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        /* by the anchored directory's descriptor (cp_path_anchor) */
        d = cp_path_opendir(path, err);
        if (!d)
            goto out;
        while ((de = readdir(d)) != NULL) {
            struct held *bigger;
            size_t len = strlen(path) + strlen(de->d_name) + 2;
            /* the raw logs too, in the same reading of the directory:
             * without a partial they are the listing (as
             * cp_logdir_list makes it) */
            if (has_suffix(de->d_name, CP_LOG_SUFFIX)) {
                if (list_add(&ls->dirlogs, path, de->d_name) < 0)
                    goto oom;
                continue;
            }
            if (!has_suffix(de->d_name, CP_PARTIAL_SUFFIX) ||
                !plain_name(de->d_name))
                continue;
            bigger = realloc(ls->held, (ls->nheld + 1) * sizeof *bigger);
            if (!bigger)
                goto oom;
            ls->held = bigger;
            memset(&ls->held[ls->nheld], 0, sizeof *ls->held);
            ls->held[ls->nheld].path = malloc(len);
            if (!ls->held[ls->nheld].path)
                goto oom;
            snprintf(ls->held[ls->nheld].path, len, "%s/%s", path, de->d_name);
            ls->nheld++;
        }
        if (!(ls->dir = strdup(path)))
            goto oom;
    }
    rc = 0;
    goto out;
oom:
    cp_error_set(err, path, -1, "%s: out of memory", path);
out:
    if (d)
        closedir(d);
    return rc;
}

/* The raw logs in ls->dir (none is fine) into ls->raw.  -1: out of
 * memory. */
static int find_raw_logs(struct listing *ls)
{
    char **files = NULL;
    int n = cp_logdir_list(ls->dir, &files, NULL);
    int i, rc = 0;

    for (i = 0; n > 0 && i < n && rc == 0; i++)
        rc = list_add(&ls->raw, NULL, files[i]);
    cp_logdir_free(files);
    return rc;
}

/* Validate every partial (checksums included); one that fails is noted
 * and its node taken from its file name.  -1: out of memory. */
static int check_partials(struct listing *ls)
{
    size_t i;

    for (i = 0; i < ls->nheld; i++) {
        struct held *h = &ls->held[i];
        struct cp_error e;
        int fd = cp_path_open_input(h->path, cp_path_log_links(), &e);
        int rc = 0;
        struct stat sb;
        h->fd = -1;
        if (fd >= 0 && read_partial(fd, h->path, 1, &h->p, &e) == 0 &&
            fstat(fd, &sb) == 0) {
            h->ok = 1;
            h->fd = fd; /* kept for reading its logs (list_logs) */
            fd = -1;
            h->dev = (uint64_t)sb.st_dev;
            h->ino = (uint64_t)sb.st_ino;
            snprintf(h->node, sizeof h->node, "%s", h->p.node);
        } else {
            struct cp_error *note = add_note(&ls->ns);
            if (note) {
                node_from_name(h->path, h->node, sizeof h->node);
                /* the reader's message starts with the file: the note's
                 * source names it */
                cp_error_set(note, h->path, e.offset, "%s; node %s's raw logs "
                             "are read instead", e.text, h->node);
            } else {
                rc = -1;
            }
        }
        if (fd >= 0)
            close(fd);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Whether a valid partial holds the log named name. */
static int held_by_partial(const struct listing *ls, const char *name)
{
    size_t k;
    uint32_t j;

    for (k = 0; k < ls->nheld; k++) {
        if (!ls->held[k].ok)
            continue;
        for (j = 0; j < ls->held[k].p.nlogs; j++)
            if (strcmp(ls->held[k].p.e[j].name, name) == 0)
                return 1;
    }
    return 0;
}

/* Whose is the raw log at path?  A readable log of a node without a valid
 * partial, or one its node's partial lacks, is noted.  -1: out of
 * memory. */
static int note_raw_log(struct listing *ls, const char *path)
{
    struct cp_logfile *lf = cp_logfile_open(path, NULL);
    const char *node;
    int partial_ok = -1; /* -1: none for the node */
    struct cp_error *note;
    size_t k;
    int rc = -1;

    if (!lf)
        return 0;
    node = cp_logfile_header(lf)->node;
    for (k = 0; k < ls->nheld; k++)
        if (strcmp(ls->held[k].node, node) == 0)
            partial_ok = ls->held[k].ok;
    if (partial_ok != 0) {
        note = add_note(&ls->ns);
        if (!note)
            goto out;
        if (partial_ok < 0)
            cp_error_set(note, path, -1, "%s: node %s has no partial "
                         "(%s%s): this log is read raw",
                         path, node, node, CP_PARTIAL_SUFFIX);
        else
            cp_error_set(note, path, -1, "%s: not in node %s's partial "
                         "(damaged when it was reduced, or written after "
                         "it): read raw", path, node);
    }
    rc = 0;
out:
    cp_logfile_close(lf);
    return rc;
}

/* The log dir/name (dir NULL: name), read raw until its caller says
 * otherwise, at the end of ls->out; NULL without memory. */
static struct found *add_found(struct listing *ls, const char *dir,
                               const char *name)
{
    struct found *f;

    if (cp_grow((void **)&ls->out, &ls->capout, ls->nout,
                sizeof *ls->out) < 0)
        return NULL;
    f = &ls->out[ls->nout];
    f->log.held = NULL;
    f->order = ls->nout;
    if (!(f->log.path = join_path(dir, name)))
        return NULL;
    ls->nout++;
    return f;
}

/* The raw logs no valid partial holds, then the logs of the valid
 * partials by their own names (entered into set), into ls->out.  -1: out
 * of memory. */
static int list_logs(struct cp_partial_set *set, struct listing *ls)
{
    size_t i, k;
    uint32_t j;

    for (i = 0; i < ls->raw.n; i++) {
        if (held_by_partial(ls, base_name(ls->raw.v[i])))
            continue;
        if (!add_found(ls, NULL, ls->raw.v[i]) ||
            note_raw_log(ls, ls->raw.v[i]) < 0)
            return -1;
    }
    for (k = 0; k < ls->nheld; k++) {
        struct held *h = &ls->held[k];
        struct found *f;
        long file;
        if (!h->ok)
            continue;
        file = cp_partial_set_add_file(set, h->path, h->fd, h->dev,
                                       h->ino);
        h->fd = -1;
        if (file < 0)
            return -1;
        for (j = 0; j < h->p.nlogs; j++)
            if (!(f = add_found(ls, ls->dir, h->p.e[j].name)) ||
                !(f->log.held = cp_partial_set_add_log(set, file, f->log.path,
                                                       &h->p.e[j])))
                return -1;
    }
    return 0;
}

static int compare_found(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    int c = strcmp(x->log.path, y->log.path);

    return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* ls->out sorted, each path once (two partials may hold one log: the
 * first is kept), taken as the array cp_partial_list returns (*n of
 * them); NULL without memory. */
static struct cp_partial_listed *sort_unique(struct listing *ls, size_t *n)
{
    struct cp_partial_listed *v = malloc(ls->nout * sizeof *v);
    size_t i;

    *n = 0;
    if (!v)
        return NULL;
    qsort(ls->out, ls->nout, sizeof *ls->out, compare_found);
    for (i = 0; i < ls->nout; i++) {
        if (*n > 0 && strcmp(v[*n - 1].path, ls->out[i].log.path) == 0)
            free(ls->out[i].log.path);
        else
            v[(*n)++] = ls->out[i].log;
    }
    ls->nout = 0;
    free(ls->out);
    ls->out = NULL;
    return v;
}

/* The n paths of list l, taken, as logs read raw; NULL without memory. */
static struct cp_partial_listed *take_raw(struct list *l)
{
    struct cp_partial_listed *v = calloc(l->n ? l->n : 1, sizeof *v);
    size_t i;

    for (i = 0; v && i < l->n; i++) {
        v[i].path = l->v[i];
        l->v[i] = NULL;
    }
    return v;
}

void cp_partial_listed_free(struct cp_partial_listed *logs, size_t n)
{
    size_t i;

    for (i = 0; logs && i < n; i++)
        free(logs[i].path);
    free(logs);
}

int cp_partial_list(struct cp_partial_set *set, const char *path,
                    struct cp_partial_listed **logs_out,
                    struct cp_error **notes_out, size_t *nnotes,
                    struct cp_error *err)
{
    struct listing ls = {0};
    struct list file = {0};
    size_t i, n;
    int rc = -1;

    *logs_out = NULL;
    *notes_out = NULL;
    *nnotes = 0;
    if (find_partials(path, &ls, err) < 0)
        goto out;
    if (ls.nheld == 0 && ls.dir) {
        /* a directory without a partial: exactly its raw logs, by name */
        if (cp_logdir_sorted(path, ls.dirlogs.v, ls.dirlogs.n, err) < 0)
            goto out;
        rc = (int)ls.dirlogs.n;
        if (!(*logs_out = take_raw(&ls.dirlogs)))
            goto oom;
        goto out;
    }
    if (ls.nheld == 0) {
        /* a file: itself */
        rc = cp_logdir_list(path, &file.v, err);
        file.n = rc > 0 ? (size_t)rc : 0;
        if (rc >= 0 && !(*logs_out = take_raw(&file)))
            goto oom;
        goto out;
    }
    qsort(ls.held, ls.nheld, sizeof *ls.held, compare_held);
    if (find_raw_logs(&ls) < 0 || check_partials(&ls) < 0 ||
        list_logs(set, &ls) < 0)
        goto oom;
    if (ls.nout == 0) {
        cp_error_set(err, path, -1, "%s: no readable partial and no collprof "
                     "log (*%s)", path, CP_LOG_SUFFIX);
        goto out;
    }
    if (!(*logs_out = sort_unique(&ls, &n)))
        goto oom;
    rc = (int)n;
    goto out;
oom:
    cp_error_set(err, path, -1, "%s: out of memory", path);
    rc = -1;
out:
    for (i = 0; i < ls.nheld; i++) {
        if (ls.held[i].ok && ls.held[i].fd >= 0) /* not given over */
            close(ls.held[i].fd);
        free(ls.held[i].path);
        free(ls.held[i].p.e);
    }
    free(ls.held);
    free(ls.dir);
    for (i = 0; i < ls.nout; i++)
        free(ls.out[i].log.path);
    free(ls.out);
    list_free(&ls.raw);
    list_free(&ls.dirlogs);
    list_free(&file);
    *notes_out = ls.ns.v;
    *nnotes = ls.ns.n;
    return rc;
}
