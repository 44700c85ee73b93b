/* log4read.c - the readers of version-4 logs (cp_log4src under cp_logread
 * and cp_scan) against logs written here by hand, op by op, with a tiny
 * encoder of this file's own (not the shim's): what each op decodes to,
 * the stream followed by the ring, a torn last block, damage (named with
 * the file and the offset, the slots before it kept), the other byte
 * order and header fields out of range. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_log4src.h"
#include "cp_logread.h"
#include "cp_scan.h"
#include "tap.h"

#define RING 64u
#define RING_AT CP_LOG_HEADER_SIZE
#define STREAM_AT (RING_AT + RING * 8u + RING * CP_LOG_RECORD_SIZE)
#define T0 UINT64_C(1700000000000000000)
#define MAXREC 1024

static char dir[] = "/tmp/cp-log4read-XXXXXX";

/* ---- a block's payload, op by op ------------------------------------------ */

struct pay {
    unsigned char b[CP_LOG4_BLOCK_MAX];
    size_t n;
    uint32_t slots;
};

static void p_byte(struct pay *p, unsigned v)
{
    p->b[p->n++] = (unsigned char)v;
}

static void p_var(struct pay *p, uint64_t v)
{
    while (v >= 0x80) {
        p_byte(p, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    p_byte(p, (unsigned)v);
}

static void p_zz(struct pay *p, int64_t v)
{
    p_var(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* zigzag(v) + 1, as a time or span that is not 0 */
static void p_zz1(struct pay *p, uint64_t v)
{
    p_var(p, ((v << 1) ^ (uint64_t)((int64_t)v >> 63)) + 1);
}

/* A signature (CP_LOG4_DEFINE). */
static void p_define(struct pay *p, unsigned op, unsigned flags,
                     uint64_t comm, uint64_t count, int32_t peer,
                     uint32_t key)
{
    p_byte(p, CP_LOG4_DEFINE);
    p_byte(p, op);
    p_byte(p, 7);    /* float32 */
    p_byte(p, op == CP_OP_AllReduce ? 0 : CP_REDOP_NONE);
    p_byte(p, CP_TIMER_HOST);
    p_byte(p, 0);    /* result */
    p_var(p, flags);
    p_var(p, comm);
    p_var(p, count);
    p_zz(p, peer);
    p_var(p, 1);     /* rank */
    p_var(p, 4);     /* nranks */
    p_var(p, 9);     /* stream */
    p_var(p, key);
}

/* The record a call of that signature decodes to (host order). */
static void sig_rec(union cp_rec *r, unsigned op, unsigned flags,
                    uint64_t comm, uint64_t count, int32_t peer)
{
    memset(r, 0, sizeof *r);
    r->call.kind = CP_REC_CALL;
    r->call.op = (uint8_t)op;
    r->call.dtype = 7;
    r->call.redop = op == CP_OP_AllReduce ? 0 : CP_REDOP_NONE;
    r->call.timer = CP_TIMER_HOST;
    r->call.flags = (uint16_t)flags;
    r->call.comm_id = comm;
    r->call.count = count;
    r->call.peer = peer;
    r->call.rank = 1;
    r->call.nranks = 4;
    r->call.stream = 9;
}

/* ---- a log, built in memory, then written ------------------------------- */

struct file {
    unsigned char *b;
    size_t n, cap;
    int swapped;
    int stream_end_set;
    struct cp_log_header h; /* host order */
};

static void f_put(struct file *f, const void *p, size_t n)
{
    if (f->n + n > f->cap) {
        f->cap = (f->n + n) * 2;
        f->b = realloc(f->b, f->cap);
    }
    memcpy(f->b + f->n, p, n);
    f->n += n;
}

static void f_init(struct file *f, int swapped)
{
    uint64_t none = UINT64_MAX;
    unsigned i;

    memset(f, 0, sizeof *f);
    f->swapped = swapped;
    f->b = calloc(1, STREAM_AT);
    f->cap = f->n = STREAM_AT;
    for (i = 0; i < RING; i++) /* no cell holds a slot */
        memcpy(f->b + RING_AT + 8 * i, &none, 8);
    memcpy(f->h.magic, CP_LOG_MAGIC, 8);
    f->h.endian = CP_LOG_ENDIAN;
    f->h.version = 4;
    f->h.header_size = CP_LOG_HEADER_SIZE;
    f->h.record_size = CP_LOG_RECORD_SIZE;
    f->h.global_rank = 3;
    f->h.start_realtime_ns = T0;
    snprintf(f->h.node, sizeof f->h.node, "n4");
    f->h.ring_slots = RING;
    f->h.dict_slots = 128;
    f->h.ring_offset = RING_AT;
    f->h.stream_offset = STREAM_AT;
}

static uint32_t o32(const struct file *f, uint32_t v)
{
    return f->swapped ? __builtin_bswap32(v) : v;
}

static uint64_t o64(const struct file *f, uint64_t v)
{
    return f->swapped ? __builtin_bswap64(v) : v;
}

/* Slot `slot` in its ring cell, the cell's index word `index`. */
static void f_cell(struct file *f, uint64_t slot, const union cp_rec *host,
                   uint64_t index)
{
    uint32_t p = (uint32_t)(slot % RING);
    union cp_rec r = *host;
    uint64_t w = o64(f, index);

    if (f->swapped)
        cp_rec_swap(&r);
    memcpy(f->b + RING_AT + 8 * p, &w, 8);
    memcpy(f->b + RING_AT + 8 * RING + CP_LOG_RECORD_SIZE * p, &r, sizeof r);
}

/* A record as the writer wrote it, after op: a raw slot (CP_LOG4_RAW,
 * one slot) or a template (CP_LOG4_TEMPLATE, none). */
static void p_record(struct pay *p, const struct file *f, unsigned op,
                     const union cp_rec *host)
{
    union cp_rec r = *host;

    if (f->swapped)
        cp_rec_swap(&r);
    p_byte(p, op);
    memcpy(p->b + p->n, &r, sizeof r);
    p->n += sizeof r;
    p->slots += op == CP_LOG4_RAW;
}

static void p_raw(struct pay *p, const struct file *f, const union cp_rec *host)
{
    p_record(p, f, CP_LOG4_RAW, host);
}

static void p_template(struct pay *p, const struct file *f,
                       const union cp_rec *host)
{
    p_record(p, f, CP_LOG4_TEMPLATE, host);
}

/* Append p as a block of first slot `first`; its file offset. */
static uint64_t f_block(struct file *f, const struct pay *p, uint64_t first)
{
    struct cp_log4_block b;
    uint64_t at = f->n;

    b.magic = o32(f, CP_LOG4_BLOCK_MAGIC);
    b.bytes = o32(f, (uint32_t)p->n);
    b.first_slot = o64(f, first);
    b.slots = o32(f, p->slots);
    b.sum = o32(f, cp_log4_sum(p->b, p->n));
    f_put(f, &b, sizeof b);
    f_put(f, p->b, p->n);
    return at;
}

/* Write f as name, less its last `cut` bytes; stream_end: every block,
 * unless set; stream_slots: `slots`.  The path (static, 4 in turn). */
static char *f_write(struct file *f, const char *name, size_t cut)
{
    static char path[4][256];
    static int k;
    char *p = path[k++ & 3];
    struct cp_log_header h = f->h;
    unsigned char page[CP_LOG_HEADER_SIZE];
    FILE *out;

    if (!f->stream_end_set)
        h.stream_end = f->n - STREAM_AT;
    if (f->swapped)
        cp_log_header_swap(&h);
    memset(page, 0, sizeof page);
    memcpy(page, &h, sizeof h);
    memcpy(f->b, page, sizeof page);
    snprintf(p, 256, "%s/%s", dir, name);
    out = fopen(p, "wb");
    fwrite(f->b, 1, f->n - cut, out);
    fclose(out);
    return p;
}

/* ---- reading ---------------------------------------------------------------- */

struct got {
    union cp_rec r[MAXREC];
    uint64_t slot[MAXREC];
    int n;
    int have_problem;
    char problem[CP_ERROR_TEXT];
    int64_t offset;
};

/* Every record of path by cp_logfile; 0, or -1 when it does not open
 * (g->problem: why). */
static int read_logfile(const char *path, struct got *g)
{
    struct cp_error err;
    struct cp_logfile *lf = cp_logfile_open(path, &err);
    const struct cp_error *e;

    memset(g, 0, sizeof *g);
    if (!lf) {
        snprintf(g->problem, sizeof g->problem, "%s", err.text);
        g->offset = err.offset;
        return -1;
    }
    while (g->n < MAXREC && cp_logfile_next(lf, &g->r[g->n], &g->slot[g->n]))
        g->n++;
    e = cp_logfile_problem(lf);
    if (e) {
        g->have_problem = 1;
        snprintf(g->problem, sizeof g->problem, "%s", e->text);
        g->offset = e->offset;
    }
    cp_logfile_close(lf);
    return 0;
}

/* The same by cp_scan, with a buffer of buf_size bytes. */
static int read_scan(const char *path, size_t buf_size, struct got *g)
{
    struct cp_error err;
    struct cp_scan *s = cp_scan_open_sized(path, buf_size, &err);
    const union cp_rec *r;

    memset(g, 0, sizeof *g);
    if (!s)
        return -1;
    while (g->n < MAXREC && (r = cp_scan_next(s)) != NULL) {
        g->r[g->n] = *r;
        g->slot[g->n] = (cp_scan_offset(s) - CP_LOG_HEADER_SIZE) /
                        CP_LOG_RECORD_SIZE;
        g->n++;
    }
    if (cp_scan_problem(s)) {
        g->have_problem = 1;
        snprintf(g->problem, sizeof g->problem, "%s",
                 cp_scan_problem(s)->text);
        g->offset = cp_scan_problem(s)->offset;
    }
    cp_scan_close(s);
    return 0;
}

/* The same by a scan placed as the analysis places one among thousands
 * of logs (cp_scan_place_in, the smallest buffer): the source's block
 * in memory lent from the place's buffer (larger blocks in its own). */
static int read_placed_sized(const char *path, size_t buf_size,
                             struct got *g)
{
    static char place[160 * 1024] __attribute__((aligned(64)));
    struct cp_logfile_known k;
    struct cp_error err;
    struct cp_scan *s;
    const union cp_rec *r;

    memset(g, 0, sizeof *g);
    if (cp_scan_place_size(buf_size, 0) > sizeof place ||
        cp_logfile_check(path, 0, &k, &err) < 0)
        return -1;
    s = cp_scan_place_in(place, path, &k, buf_size, 0, 0, &err);
    if (!s)
        return -1;
    while (g->n < MAXREC && (r = cp_scan_next(s)) != NULL) {
        g->r[g->n] = *r;
        g->slot[g->n] = (cp_scan_offset(s) - CP_LOG_HEADER_SIZE) /
                        CP_LOG_RECORD_SIZE;
        g->n++;
    }
    if (cp_scan_problem(s)) {
        g->have_problem = 1;
        snprintf(g->problem, sizeof g->problem, "%s",
                 cp_scan_problem(s)->text);
        g->offset = cp_scan_problem(s)->offset;
    }
    cp_scan_close(s);
    return 0;
}

static int read_placed(const char *path, struct got *g)
{
    return read_placed_sized(path, CP_SCAN_BUFFER_MIN, g);
}

/* a and b hold the same records, slots and problem. */
static int same_got(const struct got *a, const struct got *b)
{
    int i, same = a->n == b->n && a->have_problem == b->have_problem;

    for (i = 0; same && i < a->n; i++)
        same = memcmp(&a->r[i], &b->r[i], CP_LOG_RECORD_SIZE) == 0 &&
               a->slot[i] == b->slot[i];
    return same && (!a->have_problem || strcmp(a->problem, b->problem) == 0);
}

/* The records and slots of g are want's n (and the scan's the same). */
static void check_records(const char *path, const struct got *g,
                          const union cp_rec *want, const uint64_t *slots,
                          int n, const char *what)
{
    struct got s;
    int i, same = g->n == n;

    for (i = 0; same && i < n; i++)
        if (memcmp(&g->r[i], &want[i], CP_LOG_RECORD_SIZE) != 0 ||
            g->slot[i] != slots[i]) {
            diag("record %d (slot %llu, want %llu) differs", i,
                 (unsigned long long)g->slot[i], (unsigned long long)slots[i]);
            same = 0;
        }
    if (!ok(same, "%s: %d records, each as expected, byte for byte", what, n))
        diag("  got %d records", g->n);
    read_scan(path, CP_SCAN_BUFFER_MIN, &s);
    same = s.n == g->n && s.have_problem == g->have_problem;
    for (i = 0; same && i < s.n; i++)
        same = memcmp(&s.r[i], &g->r[i], CP_LOG_RECORD_SIZE) == 0 &&
               s.slot[i] == g->slot[i];
    ok(same && (!s.have_problem || strcmp(s.problem, g->problem) == 0),
       "%s: cp_scan reads the same records and problem", what);
    ok(read_placed(path, &s) == 0 && same_got(&s, g),
       "%s: a placed scan (its block in lent memory) the same", what);
}

/* g's problem names path and offset at. */
static void check_problem(const char *path, const struct got *g, uint64_t at,
                          const char *says, const char *what)
{
    char head[512];

    snprintf(head, sizeof head, "%s: offset %llu: ", path,
             (unsigned long long)at);
    if (!ok(g->have_problem && strncmp(g->problem, head, strlen(head)) == 0 &&
                strstr(g->problem, says) != NULL && g->offset == (int64_t)at,
            "%s: the problem names the file and offset %llu (%s)", what,
            (unsigned long long)at, says))
        diag("  got '%s'", g->have_problem ? g->problem : "(none)");
}

/* ---- the cases ---------------------------------------------------------------- */

#define COMM_A UINT64_C(0x7777)
#define COMM_B UINT64_C(0x123456789)

/* Template 3: an aggregate (9 varying fields: two bytes of fields
 * present), and three records of it into p, after the n records of want
 * and slots (the next slot *s; t_call: the latest call's end, TIME's
 * base); the count returned. */
static int every_agg(struct pay *p, const struct file *f, union cp_rec *want,
                     uint64_t *slots, int n, uint64_t *s, uint64_t t_call)
{
    static const uint16_t q1[4] = {100, 200, 300, 400};
    union cp_rec ta;

    memset(&ta, 0, sizeof ta);
    ta.agg.kind = CP_REC_AGG;
    ta.agg.op = CP_OP_AllReduce;
    ta.agg.dtype = 7;
    ta.agg.peer = -1;
    ta.agg.comm_id = COMM_A;
    ta.agg.count = 1000;
    ta.agg.interval_ms = 60000;
    p_template(p, f, &ta);
    /* every field present: 1000 calls whose seq wraps past 2^32 - 1
     * (seq_last from seq_first: SPAN), the quantiles all different,
     * first_ns 5000 ns after the latest call's end (TIME), a sum near
     * 2^64 (VALUE against 0) */
    p_byte(p, CP_LOG4_TEMPLATED + 3);
    p_byte(p, 0xff);
    p_byte(p, 0x01);
    p_zz(p, 1000);
    p_zz(p, 0xfffffe00);
    p_zz1(p, UINT64_C(487) - 0xfffffe00u);
    p_zz(p, 100);
    p_zz(p, 200);
    p_zz(p, 300);
    p_zz(p, 400);
    p_zz1(p, 5000);
    p_zz(p, -6);
    want[n] = ta;
    want[n].agg.calls = 1000;
    want[n].agg.seq_first = 0xfffffe00u;
    want[n].agg.seq_last = 487;
    memcpy(want[n].agg.dur_q, q1, sizeof q1);
    want[n].agg.first_ns = t_call + 5000;
    want[n].agg.sum_ns = UINT64_MAX - 5;
    slots[n++] = (*s)++;
    /* the next interval, the long index form: calls as before (absent),
     * seq_first 1000 more (VALUE, cut to 32 bits: 488), seq_last 999
     * after it (SPAN against the last distance), the quantiles all 250,
     * first_ns 0 (TIME's 0, absent), the sum 2^63 + 17 */
    p_byte(p, CP_LOG4_TEMPLATED_LONG);
    p_var(p, 3);
    p_byte(p, 0x7e);
    p_byte(p, 0x01);
    p_zz(p, 1000);
    p_zz1(p, UINT64_C(999) - (UINT64_C(487) - 0xfffffe00u));
    p_zz(p, 150);
    p_zz(p, 50);
    p_zz(p, -50);
    p_zz(p, -150);
    p_zz(p, (int64_t)(UINT64_C(0x8000000000000011) - (UINT64_MAX - 5)));
    want[n] = want[n - 1];
    want[n].agg.seq_first = 488;
    want[n].agg.seq_last = 1487;
    want[n].agg.dur_q[0] = want[n].agg.dur_q[1] = 250;
    want[n].agg.dur_q[2] = want[n].agg.dur_q[3] = 250;
    want[n].agg.first_ns = 0;
    want[n].agg.sum_ns = UINT64_C(0x8000000000000011);
    slots[n++] = (*s)++;
    /* no field present: the VALUEs as they were, SPAN's and TIME's 0 */
    p_byte(p, CP_LOG4_TEMPLATED + 3);
    p_byte(p, 0x00);
    p_byte(p, 0x00);
    want[n] = want[n - 1];
    want[n].agg.seq_first = 488;
    want[n].agg.seq_last = 0;
    slots[n++] = (*s)++;
    return n;
}

/* Every op once (and a signature past 63), into f's stream; the expected
 * records into want/slots, their count returned. */
static int every_op(struct file *f, union cp_rec *want, uint64_t *slots)
{
    struct pay p;
    union cp_rec r;
    int n = 0, i;
    uint64_t t = T0, tg = T0, s = 0;

    memset(&p, 0, sizeof p);
    /* sig 0: allreduce, key 0; sig 1: send in groups to peer 3, key 1 */
    p_define(&p, CP_OP_AllReduce, 0, COMM_A, 1000, -1, 0);
    p_define(&p, CP_OP_Send, CP_CALL_IN_GROUP, COMM_B, 77, 3, 1);
    /* short, seq 0: start +1000, 50 ns (against the last duration, 0) */
    p_byte(&p, CP_LOG4_SHORT | 0);
    p_zz(&p, 1000);
    p_var(&p, (50u << 1) + 1);
    sig_rec(&want[n], CP_OP_AllReduce, 0, COMM_A, 1000, -1);
    want[n].call.seq = 0;
    want[n].call.start_ns = t += 1000;
    want[n].call.end_ns = t += 50;
    slots[n++] = s++;
    /* short, seq 1: 30 ns after the last end, 60 ns (+10) */
    p_byte(&p, CP_LOG4_SHORT | 0);
    p_zz(&p, 30);
    p_var(&p, (10u << 1) + 1);
    sig_rec(&want[n], CP_OP_AllReduce, 0, COMM_A, 1000, -1);
    want[n].call.seq = 1;
    want[n].call.start_ns = t += 30;
    want[n].call.end_ns = t += 60;
    slots[n++] = s++;
    /* short, a new group: group 1, seq 0 of key 1; started 5 ns before
     * the last end, 40 ns (-... against its own last, 0: +40) */
    p_byte(&p, CP_LOG4_SHORT_NEWGROUP | 1);
    p_zz(&p, -5);
    p_var(&p, (40u << 1) + 1);
    sig_rec(&want[n], CP_OP_Send, CP_CALL_IN_GROUP, COMM_B, 77, 3);
    want[n].call.seq = 0;
    want[n].call.group = 1;
    want[n].call.start_ns = t -= 5;
    want[n].call.end_ns = t += 40;
    slots[n++] = s++;
    /* short, the same group, seq 1, 35 ns (-5 against 40) */
    p_byte(&p, CP_LOG4_SHORT | 1);
    p_zz(&p, 2);
    p_var(&p, ((uint64_t)5 << 1) - 1 + 1); /* zigzag(-5) = 9, + 1 */
    sig_rec(&want[n], CP_OP_Send, CP_CALL_IN_GROUP, COMM_B, 77, 3);
    want[n].call.seq = 1;
    want[n].call.group = 1;
    want[n].call.start_ns = t += 2;
    want[n].call.end_ns = t += 35;
    slots[n++] = s++;
    /* long: seq as predicted + 5 (2 + 5), group 42 and count given */
    p_byte(&p, CP_LOG4_LONG | 0);
    p_byte(&p, CP_LOG4_X_SEQ | CP_LOG4_X_GROUP | CP_LOG4_X_COUNT);
    p_zz(&p, 5);
    p_var(&p, 42);
    p_var(&p, 4242); /* its own count */
    p_zz(&p, 100);
    p_var(&p, 1); /* the same duration as the last: 60 */
    sig_rec(&want[n], CP_OP_AllReduce, 0, COMM_A, 4242, -1);
    want[n].call.seq = 7;
    want[n].call.group = 42;
    want[n].call.start_ns = t += 100;
    want[n].call.end_ns = t += 60;
    slots[n++] = s++;
    /* short, in flight: seq 8, end 0; the next time is from its start */
    p_byte(&p, CP_LOG4_SHORT | 0);
    p_zz(&p, 10);
    p_var(&p, 0);
    sig_rec(&want[n], CP_OP_AllReduce, 0, COMM_A, 1000, -1);
    want[n].call.seq = 8;
    want[n].call.start_ns = t += 10;
    slots[n++] = s++;
    /* a literal call: every field given, seqs untouched */
    p_byte(&p, CP_LOG4_LITERAL);
    p_byte(&p, CP_OP_Broadcast);
    p_byte(&p, 2);
    p_byte(&p, CP_REDOP_NONE);
    p_byte(&p, CP_TIMER_EVENT);
    p_byte(&p, 0xfd); /* result -3 */
    p_var(&p, CP_CALL_INPLACE);
    p_var(&p, UINT64_MAX);
    p_var(&p, 5);
    p_var(&p, 100);
    p_zz(&p, 0);
    p_var(&p, 2);
    p_var(&p, 8);
    p_var(&p, 0);
    p_var(&p, UINT32_MAX);
    p_zz(&p, 7);
    p_var(&p, 21); /* end = start + 20 */
    memset(&r, 0, sizeof r);
    r.call.kind = CP_REC_CALL;
    r.call.op = CP_OP_Broadcast;
    r.call.dtype = 2;
    r.call.redop = CP_REDOP_NONE;
    r.call.timer = CP_TIMER_EVENT;
    r.call.result = -3;
    r.call.flags = CP_CALL_INPLACE;
    r.call.comm_id = UINT64_MAX;
    r.call.count = 5;
    r.call.seq = 100;
    r.call.peer = 0;
    r.call.rank = 2;
    r.call.nranks = 8;
    r.call.stream = UINT32_MAX;
    r.call.start_ns = t += 7;
    r.call.end_ns = t += 20;
    want[n] = r;
    slots[n++] = s++;
    p.slots = (uint32_t)s;
    /* a raw slot: a communicator event */
    memset(&r, 0, sizeof r);
    r.comm.kind = CP_REC_COMM;
    r.comm.how = CP_COMM_INIT_RANK;
    r.comm.cuda_dev = 1;
    r.comm.comm_id = COMM_A;
    r.comm.nranks = 4;
    r.comm.rank = 1;
    r.comm.time_ns = T0 + 5;
    snprintf(r.comm.name, sizeof r.comm.name, "world");
    p_raw(&p, f, &r);
    want[n] = r;
    slots[n++] = s++;
    /* three never-written slots */
    p_byte(&p, CP_LOG4_EMPTY);
    p_var(&p, 3);
    p.slots += 3;
    s += 3;
    /* a group: 42 + 1, 2 calls, from the last time + 3, 90 ns */
    p_byte(&p, CP_LOG4_GROUP);
    p_zz(&p, 1);
    p_byte(&p, 0);
    p_var(&p, 2);
    p_zz(&p, 3);
    p_var(&p, 91);
    memset(&r, 0, sizeof r);
    r.group.kind = CP_REC_GROUP;
    r.group.group = 43;
    r.group.ncalls = 2;
    r.group.start_ns = t += 3;
    r.group.end_ns = t += 90;
    want[n] = r;
    slots[n++] = s++;
    p.slots++;
    /* a device interval of the call two slots before... slot 0 here */
    p_byte(&p, CP_LOG4_GPU);
    p_var(&p, s);
    p_byte(&p, CP_TIMER_CUPTI);
    p_var(&p, CP_CALL_FUSED);
    p_zz(&p, 2000);
    p_var(&p, 31);
    memset(&r, 0, sizeof r);
    r.gpu.kind = CP_REC_GPU;
    r.gpu.timer = CP_TIMER_CUPTI;
    r.gpu.flags = CP_CALL_FUSED;
    r.gpu.slot = 0;
    r.gpu.start_ns = tg += 2000;
    r.gpu.end_ns = tg += 30;
    want[n] = r;
    slots[n++] = s++;
    p.slots++;
    f_block(f, &p, 0);
    /* a second block: signatures 2 .. 69 (key 0, the first's counter),
     * then a call of 69 in the long form (X_SIG), seq 9 of key 0 */
    memset(&p, 0, sizeof p);
    for (i = 2; i < 70; i++)
        p_define(&p, CP_OP_AllReduce, 0, COMM_A, 2000 + (uint64_t)i, -1, 0);
    p_byte(&p, CP_LOG4_LONG | (69 & 0x3f));
    p_byte(&p, CP_LOG4_X_SIG);
    p_var(&p, 69 >> 6);
    p_zz(&p, 4);
    p_var(&p, (8u << 1) + 1);
    sig_rec(&want[n], CP_OP_AllReduce, 0, COMM_A, 2069, -1);
    want[n].call.seq = 9;
    want[n].call.start_ns = t += 4;
    want[n].call.end_ns = t += 8;
    slots[n++] = s++;
    p.slots = 1;
    f_block(f, &p, s - 1);
    /* a third block: templates of the plugin's kinds (cp_log4_fields_of)
     * and records of them, short and long index forms */
    memset(&p, 0, sizeof p);
    {
        union cp_rec tl, tp;
        uint64_t first = s, call_start = want[n - 1].call.start_ns;
        uint64_t t_call = want[n - 1].call.end_ns;
        uint64_t dev_start = 0;
        for (i = 0; i < n; i++) /* the latest device interval's start */
            if (want[i].kind == CP_REC_GPU)
                dev_start = want[i].gpu.start_ns;
        /* template 0: a link to peer 5, every field but the key 0 */
        memset(&tl, 0, sizeof tl);
        tl.link.kind = CP_REC_LINK;
        tl.link.dir = CP_PROXY_SEND;
        tl.link.channels = 2;
        tl.link.peer = 5;
        tl.link.comm_id = COMM_B;
        p_template(&p, f, &tl);
        /* every field present: back 3 (VALUE against 0), steps 8,
         * bytes 4096, first 100 ns after the latest call's start
         * (CALL), last = first + 700 (SPAN), busy 600, fastest step 50,
         * slowest 90 */
        p_byte(&p, CP_LOG4_TEMPLATED + 0);
        p_byte(&p, 0xff);
        p_zz(&p, 3);
        p_zz(&p, 8);
        p_zz(&p, 4096);
        p_var(&p, (100u << 1) + 1);
        p_var(&p, (700u << 1) + 1);
        p_zz(&p, 600);
        p_zz(&p, 50);
        p_zz(&p, 90);
        want[n] = tl;
        want[n].link.back = 3;
        want[n].link.steps = 8;
        want[n].link.bytes = 4096;
        want[n].link.first_ns = call_start + 100;
        want[n].link.last_ns = call_start + 800;
        want[n].link.busy_ns = 600;
        want[n].link.min_step_ns = 50;
        want[n].link.max_step_ns = 90;
        slots[n++] = s++;
        /* the same template again, through the long form: only the
         * fields that changed (steps -1, first 20 ns earlier against
         * the last distance, last_ns 0 (SPAN's 0), busy +10, fastest
         * -5) */
        p_byte(&p, CP_LOG4_TEMPLATED_LONG);
        p_var(&p, 0);
        p_byte(&p, 0x02 | 0x08 | 0x20 | 0x40);
        p_zz(&p, -1);
        p_var(&p, (((uint64_t)20 << 1) - 1) + 1); /* zigzag(-20) + 1 */
        p_zz(&p, 10);
        p_zz(&p, -5);
        want[n] = want[n - 1];
        want[n].link.steps = 7;
        want[n].link.first_ns = call_start + 80;
        want[n].link.last_ns = 0;
        want[n].link.busy_ns = 610;
        want[n].link.min_step_ns = 45;
        slots[n++] = s++;
        /* template 1: a phase; slot 2 back (SLOT), seq 0 (NEXT from 0:
         * -1), its GPU start against the latest device interval's start
         * (DEV: a clock of its own, the distance is in last), its end
         * and its CLOCK_REALTIME start/end from the GPU's (SPAN) */
        memset(&tp, 0, sizeof tp);
        tp.phase.kind = CP_REC_PHASE;
        tp.phase.channel = 1;
        tp.phase.phase = 0; /* initial sync */
        tp.phase.comm_id = COMM_A;
        p_template(&p, f, &tp);
        p_byte(&p, CP_LOG4_TEMPLATED + 1);
        p_byte(&p, 0x3f);
        p_zz(&p, 2);
        p_zz(&p, -1);
        p_zz1(&p, UINT64_C(5000000) - dev_start);
        p_var(&p, (300u << 1) + 1);
        p_var(&p, (1000u << 1) + 1);
        p_var(&p, (1000u << 1) + 1);
        want[n] = tp;
        want[n].phase.slot = s - 2;
        want[n].phase.seq = 0;
        want[n].phase.gpu_start_raw = 5000000;
        want[n].phase.gpu_end_raw = 5000300;
        want[n].phase.start_ns = 5001000;
        want[n].phase.end_ns = 5001300;
        slots[n++] = s++;
        /* a device interval (kind 5, templated): its call 5 slots
         * back, 30 ns after the call's start, 12 ns long */
        memset(&tp, 0, sizeof tp);
        tp.gpu.kind = CP_REC_GPU;
        tp.gpu.timer = CP_TIMER_EVENT;
        p_template(&p, f, &tp);
        p_byte(&p, CP_LOG4_TEMPLATED + 2);
        p_byte(&p, 0x07);
        p_zz(&p, 5);
        p_var(&p, (30u << 1) + 1);
        p_var(&p, (12u << 1) + 1);
        want[n] = tp;
        want[n].gpu.slot = s - 5;
        want[n].gpu.start_ns = call_start + 30;
        want[n].gpu.end_ns = call_start + 42;
        slots[n++] = s++;
        n = every_agg(&p, f, want, slots, n, &s, t_call);
        p.slots = 7;
        f_block(f, &p, first);
    }
    f->h.stream_slots = s;
    return n;
}

static void test_every_op(int swapped)
{
    static union cp_rec want[MAXREC];
    static uint64_t slots[MAXREC];
    struct file f;
    struct got g;
    char *path;
    int n;
    const char *what = swapped ? "every op, other byte order" : "every op";

    f_init(&f, swapped);
    n = every_op(&f, want, slots);
    path = f_write(&f, swapped ? "ops-swapped.cplog" : "ops.cplog", 0);
    ok(read_logfile(path, &g) == 0 && !g.have_problem, "%s: read, no problem",
       what);
    if (g.have_problem)
        diag("  %s", g.problem);
    check_records(path, &g, want, slots, n, what);
    free(f.b);
}

/* The raw slots cp_log4src gives, in the writer's order (empty runs
 * skipped, counted). */
static void test_raw_slots(void)
{
    static union cp_rec want[MAXREC];
    static uint64_t slots[MAXREC];
    unsigned char buf[8 * CP_LOG_RECORD_SIZE];
    struct cp_log_header h;
    struct cp_log4src *src;
    struct cp_error err;
    struct file f;
    uint64_t slot = 0, empty = 0;
    int n, i = 0, same = 1;
    char *path;
    FILE *in;

    f_init(&f, 1);
    n = every_op(&f, want, slots);
    path = f_write(&f, "raw.cplog", 0);
    in = fopen(path, "rb");
    h = f.h;
    h.stream_end = f.n - STREAM_AT;
    src = cp_log4src_open(path, fileno(in), 0, 0, 0, &h, 1, &err);
    for (;;) {
        ssize_t got, k;
        uint64_t run = cp_log4src_skip_empty(src);
        slot += run;
        empty += run;
        got = cp_log4src_read(src, buf, sizeof buf);
        if (got <= 0)
            break;
        for (k = 0; k + CP_LOG_RECORD_SIZE <= got; k += CP_LOG_RECORD_SIZE) {
            union cp_rec r;
            memcpy(&r, buf + k, sizeof r);
            if (r.kind == CP_REC_EMPTY) {
                empty++;
            } else {
                cp_rec_swap(&r);
                if (i >= n || slots[i] != slot ||
                    memcmp(&r, &want[i], sizeof r) != 0)
                    same = 0;
                i++;
            }
            slot++;
        }
    }
    ok(same && i == n && empty == 3 && !cp_log4src_problem(src),
       "cp_log4src: the slots in the writer's byte order, 3 never written");
    cp_log4src_close(src);
    fclose(in);
    free(f.b);
}

/* A call record for slot-numbered tests. */
static void plain(union cp_rec *r, uint32_t seq)
{
    memset(r, 0, sizeof *r);
    r->call.kind = CP_REC_CALL;
    r->call.op = CP_OP_AllGather;
    r->call.seq = seq;
    r->call.comm_id = COMM_A;
    r->call.start_ns = T0 + seq * 100;
    r->call.end_ns = T0 + seq * 100 + 10;
}

/* n raw slots from `first` (seq = slot) as a payload. */
static void raw_run(struct pay *p, const struct file *f, uint64_t first,
                    uint32_t n)
{
    union cp_rec r;
    uint32_t i;

    memset(p, 0, sizeof *p);
    for (i = 0; i < n; i++) {
        plain(&r, (uint32_t)(first + i));
        p_raw(p, f, &r);
    }
}

static void test_ring(void)
{
    union cp_rec want[16], r;
    uint64_t slots[16];
    struct file f;
    struct pay p;
    struct got g;
    char *path;
    int n = 0, i;

    /* stream: slots 0-4; ring: 5, 6, 7 (never written), then cell 8
     * holds no slot 8: the end (slot 9's cell is not looked at) */
    f_init(&f, 0);
    raw_run(&p, &f, 0, 5);
    f_block(&f, &p, 0);
    for (i = 0; i < 5; i++) {
        plain(&want[n], (uint32_t)i);
        slots[n++] = (uint64_t)i;
    }
    plain(&r, 5);
    f_cell(&f, 5, &r, 5);
    want[n] = r;
    slots[n++] = 5;
    plain(&r, 6);
    f_cell(&f, 6, &r, 6);
    want[n] = r;
    slots[n++] = 6;
    memset(&r, 0, sizeof r);
    r.call.seq = 77; /* a kind-0 cell: a slot handed out, never written */
    f_cell(&f, 7, &r, 7);
    plain(&r, 8);
    f_cell(&f, 8, &r, 8 + RING); /* the cell's next turn: not slot 8 */
    plain(&r, 9);
    f_cell(&f, 9, &r, 9);
    path = f_write(&f, "ring.cplog", 0);
    ok(read_logfile(path, &g) == 0 && !g.have_problem,
       "stream and ring: read, no problem");
    check_records(path, &g, want, slots, n, "stream, then the ring to the "
                                            "first cell of another slot");
    free(f.b);

    /* the ring's end and its start: stream 0-61, ring 62-65 (cells 62,
     * 63, 0, 1) */
    f_init(&f, 1);
    n = 0;
    raw_run(&p, &f, 0, 62);
    f_block(&f, &p, 0);
    for (i = 0; i < 66; i++) {
        plain(&want[n % 16], (uint32_t)i);
        if (i >= 62)
            f_cell(&f, (uint64_t)i, &want[n % 16], (uint64_t)i);
        n++;
    }
    path = f_write(&f, "wrap.cplog", 0);
    read_logfile(path, &g);
    ok(g.n == 66 && !g.have_problem && g.slot[65] == 65 &&
           g.r[64].call.seq == 64 && g.r[63].call.seq == 63,
       "the ring read across its end: slots 62-65 from cells 62, 63, 0, 1");
    {
        /* the block (62 raw slots, 4 KB) is larger than the memory a
         * placed scan lends: read in the source's own buffer */
        struct got pg;
        ok(read_placed(path, &pg) == 0 && same_got(&pg, &g),
           "a block larger than the lent memory, then the ring: a placed "
           "scan reads the same");
    }
    free(f.b);
}

static void test_torn(void)
{
    union cp_rec want[16], r;
    uint64_t slots[16];
    struct file f;
    struct pay p;
    struct got g;
    char *path;
    int n = 0, i;

    /* block 1 (slots 0-2) within stream_end; block 2 (3-5) written after
     * it and cut short by the end of the file: its slots from the ring */
    for (i = 0; i < 2; i++) {
        f_init(&f, i);
        n = 0;
        raw_run(&p, &f, 0, 3);
        f_block(&f, &p, 0);
        f.h.stream_end = f.n - STREAM_AT;
        f.stream_end_set = 1;
        raw_run(&p, &f, 3, 3);
        f_block(&f, &p, 3);
        for (n = 0; n < 6; n++) {
            plain(&want[n], (uint32_t)n);
            slots[n] = (uint64_t)n;
            if (n >= 3)
                f_cell(&f, (uint64_t)n, &want[n], (uint64_t)n);
        }
        /* cut in the block's header (14 of its 24 bytes left), or in
         * its payload */
        path = f_write(&f, "torn.cplog", i ? 20 : 3 * 65 + 10);
        read_logfile(path, &g);
        ok(!g.have_problem, "torn block past stream_end (cut %s): quiet",
           i ? "in its payload" : "in its header");
        if (g.have_problem)
            diag("  %s", g.problem);
        check_records(path, &g, want, slots, n,
                      "torn block past stream_end: its slots from the ring");
        free(f.b);
    }
    /* the same block whole but a byte flipped (its sum), past stream_end */
    f_init(&f, 0);
    raw_run(&p, &f, 0, 3);
    f_block(&f, &p, 0);
    f.h.stream_end = f.n - STREAM_AT;
    f.stream_end_set = 1;
    raw_run(&p, &f, 3, 3);
    f_block(&f, &p, 3);
    f.b[f.n - 10] ^= 0x40;
    plain(&r, 3);
    f_cell(&f, 3, &r, 3);
    path = f_write(&f, "torn-sum.cplog", 0);
    read_logfile(path, &g);
    ok(!g.have_problem && g.n == 4 && g.r[3].call.seq == 3,
       "a block past stream_end failing its sum: quiet, the ring's slot 3");
    free(f.b);
}

/* A log of one good block (slots 0-2), then a block built by `build`;
 * read, the problem checked at the bad block's offset or its op's. */
static void damaged(const char *what, const char *says, size_t cut,
                    void (*build)(struct file *f, struct pay *p),
                    int at_op /* -1: the block's offset; else its payload's
                                 byte at_op */,
                    int keep /* records kept: the good block's 3, and the
                                bad one's decoded before the damage */)
{
    union cp_rec want[8];
    uint64_t slots[8], at;
    struct file f;
    struct pay p;
    struct got g;
    char *path, name[64];
    int i;

    f_init(&f, 0);
    raw_run(&p, &f, 0, 3);
    f_block(&f, &p, 0);
    for (i = 0; i < keep; i++) {
        plain(&want[i], (uint32_t)i);
        slots[i] = (uint64_t)i;
    }
    memset(&p, 0, sizeof p);
    build(&f, &p);
    at = f_block(&f, &p, 3);
    snprintf(name, sizeof name, "damaged-%d.cplog", (int)strlen(what));
    path = f_write(&f, name, cut);
    read_logfile(path, &g);
    check_problem(path, &g, at_op < 0 ? at : at + 24 + (uint64_t)at_op, says,
                  what);
    check_records(path, &g, want, slots, keep, what);
    free(f.b);
}

static void b_three(struct file *f, struct pay *p)
{
    raw_run(p, f, 3, 3);
}

static void b_sig_past(struct file *f, struct pay *p)
{
    (void)f;
    p_define(p, CP_OP_AllReduce, 0, COMM_A, 1, -1, 0);
    p_byte(p, CP_LOG4_SHORT | 5); /* at 1 + 5 + 10 bytes of varints */
    p_zz(p, 1);
    p_var(p, 1);
    p->slots = 1;
}

static void b_key_past(struct file *f, struct pay *p)
{
    (void)f;
    p_define(p, CP_OP_AllReduce, 0, COMM_A, 1, -1, 1);
    p->slots = 0;
}

static void b_define_past(struct file *f, struct pay *p)
{
    (void)f;
    p_define(p, CP_OP_AllReduce, 0, COMM_A, 1, -1, 0);
    p_define(p, CP_OP_AllReduce, 0, COMM_A, 2, -1, 1);
    p->slots = 0;
}

static void b_varint11(struct file *f, struct pay *p)
{
    int i;

    (void)f;
    p_byte(p, CP_LOG4_EMPTY);
    for (i = 0; i < 10; i++)
        p_byte(p, 0x80);
    p_byte(p, 0x01);
    p->slots = 1;
}

static void b_varint10(struct file *f, struct pay *p)
{
    int i;

    (void)f;
    p_byte(p, CP_LOG4_EMPTY);
    for (i = 0; i < 9; i++)
        p_byte(p, 0xff);
    p_byte(p, 0x02); /* the tenth byte at most 1 */
    p->slots = 1;
}

static void b_unknown(struct file *f, struct pay *p)
{
    union cp_rec r;

    plain(&r, 3);
    p_raw(p, f, &r);
    p_byte(p, 0xc9);
    p->slots = 2;
}

/* An aggregate's template, then a record of it: fields present lo, hi
 * (hi < 0: the block ends after lo). */
static void b_agg(struct file *f, struct pay *p, unsigned lo, int hi)
{
    union cp_rec ta;

    memset(&ta, 0, sizeof ta);
    ta.agg.kind = CP_REC_AGG;
    ta.agg.op = CP_OP_AllReduce;
    ta.agg.comm_id = COMM_A;
    ta.agg.interval_ms = 1000;
    p_template(p, f, &ta);
    p_byte(p, CP_LOG4_TEMPLATED + 0);
    p_byte(p, lo);
    if (hi >= 0)
        p_byte(p, (unsigned)hi);
    p_zz(p, 1); /* calls */
    p->slots = 1;
}

/* bits 0 and 9: a field past the aggregate's 9 (0-8) */
static void b_agg_mask(struct file *f, struct pay *p)
{
    b_agg(f, p, 0x01, 0x02);
}

/* every bit of the second byte: fields 8-15 */
static void b_agg_mask_all(struct file *f, struct pay *p)
{
    b_agg(f, p, 0xff, 0xff);
}

/* the second byte of fields present missing: the block ends */
static void b_agg_cut(struct file *f, struct pay *p)
{
    b_agg(f, p, 0x01, -1);
    p->n--; /* no calls either: the block ends after the first byte */
}

static void b_count(struct file *f, struct pay *p)
{
    raw_run(p, f, 3, 2);
    p->slots = 3; /* says 3, holds 2 */
}

static void test_damage(void)
{
    damaged("a block cut short before stream_end", "cut short", 10, b_three,
            -1, 3);
    damaged("a signature past the table", "signature 5", 0, b_sig_past,
            1 + 5 + 10, 3);
    damaged("a key past its own index", "key 1 past its own index", 0,
            b_key_past, 0, 3);
    damaged("a varint of 11 bytes", "cut short or empty", 0, b_varint11, 0,
            3);
    damaged("a varint whose 10th byte is over 1", "cut short or empty", 0,
            b_varint10, 0, 3);
    /* the slot decoded before the bad op stands */
    damaged("an unknown op", "unknown op 0xc9", 0, b_unknown, 1 + 64, 4);
    damaged("a block whose ops hold fewer slots than it says", "hold 2 slots", 0,
            b_count, -1, 5);
    /* an aggregate's record naming fields its template does not have */
    damaged("an aggregate with field 9 present (it has 9: 0-8)",
            "fields 0x201 present, its kind has 9", 0, b_agg_mask, 1 + 64, 3);
    damaged("an aggregate with fields 0-15 present",
            "fields 0xffff present, its kind has 9", 0, b_agg_mask_all,
            1 + 64, 3);
    damaged("an aggregate's second byte of fields present missing",
            "record of template 0 cut short", 0, b_agg_cut, 1 + 64, 3);
}

static void test_define_past_dict(void)
{
    struct file f;
    struct pay p;
    struct got g;
    char *path;
    uint64_t at;

    f_init(&f, 0);
    f.h.dict_slots = 1;
    memset(&p, 0, sizeof p);
    b_define_past(&f, &p);
    at = f_block(&f, &p, 0);
    path = f_write(&f, "dict.cplog", 0);
    read_logfile(path, &g);
    check_problem(path, &g, at + 24 + 1 + 5 + 10, "past the table's 1",
                  "a definition past dict_slots");
    free(f.b);
}

static void test_flip_in_block(void)
{
    struct file f;
    struct pay p;
    struct got g;
    char *path;
    uint64_t at;

    /* the bad block is the second: its offset named, slots 0-2 kept */
    f_init(&f, 0);
    raw_run(&p, &f, 0, 3);
    f_block(&f, &p, 0);
    raw_run(&p, &f, 3, 3);
    at = f_block(&f, &p, 3);
    f.b[at + 24 + 70] ^= 1;
    path = f_write(&f, "flip.cplog", 0);
    read_logfile(path, &g);
    check_problem(path, &g, at, "sum", "a flipped payload byte");
    ok(g.n == 3 && g.r[2].call.seq == 2, "... the 3 slots before it kept");
    free(f.b);
}

static void test_big_run(void)
{
    struct file f;
    struct pay p;
    struct got g;
    union cp_rec r;
    char *path;

    /* 4e9 never-written slots, then a record: counted, never expanded */
    f_init(&f, 0);
    memset(&p, 0, sizeof p);
    p_byte(&p, CP_LOG4_EMPTY);
    p_var(&p, 4000000000u);
    p.slots = 4000000000u;
    plain(&r, 1);
    p_raw(&p, &f, &r);
    f_block(&f, &p, 0);
    path = f_write(&f, "run.cplog", 0);
    read_logfile(path, &g);
    ok(g.n == 1 && g.slot[0] == 4000000000u && !g.have_problem,
       "a run of 4e9 never-written slots: skipped, the record after it at "
       "slot 4000000000");
    free(f.b);
}

/* A scan in the analysis's largest place (CP_SCAN_BUFFER) lends half of
 * it: the blocks read through a window of 32 KiB, several a read, a
 * block cut by the window's end moved to its start and the rest read
 * after it.  16 blocks of 62 raw slots (4 KB each, 64 KB in all). */
static void test_window(void)
{
    static struct got g, pg;
    struct file f;
    struct pay p;
    char *path;
    uint64_t at = 0, i;
    int k;

    for (k = 0; k < 3; k++) {
        f_init(&f, k == 1);
        for (i = 0; i < 16; i++) {
            raw_run(&p, &f, i * 62, 62);
            if (k == 2 && i == 12) /* written after stream_end... */
                f.h.stream_end = f.n - STREAM_AT, f.stream_end_set = 1;
            at = f_block(&f, &p, i * 62);
            if (k == 0 && i == 11)
                f.b[at + 24 + 100] ^= 1; /* a flip in block 11 */
        }
        /* ... and the last one cut short: torn, a quiet end */
        path = f_write(&f, "window.cplog", k == 2 ? 100 : 0);
        read_logfile(path, &g);
        read_placed_sized(path, CP_SCAN_BUFFER, &pg);
        ok(same_got(&pg, &g) &&
               (k == 0 ? g.n == 11 * 62 && g.have_problem
                       : g.n == 15 * 62 + (k == 1) * 62 && !g.have_problem),
           "16 blocks through a 32 KiB window (%s): the same slots and "
           "problem as read a block at a time (%d slots)",
           k == 0 ? "a flip in block 11" : k == 1 ? "the other byte order"
                                                 : "the last block torn",
           g.n);
        if (k == 0)
            ok(g.offset == (int64_t)(STREAM_AT + 11 * (at - STREAM_AT) / 15),
               "... the flipped block's offset named (%lld)",
               (long long)g.offset);
        free(f.b);
    }
}

/* All the slot bytes of src (up to max), closed after. */
static size_t src_bytes(struct cp_slotsrc *src, unsigned char *buf,
                        size_t max)
{
    size_t got = 0;
    ssize_t n;

    while (got < max && (n = cp_slotsrc_read(src, buf + got, max - got)) > 0)
        got += (size_t)n;
    cp_slotsrc_close(src);
    return got;
}

/* cp_logfile_reopen_src: a version-4 log's source alone gives the slots
 * cp_logfile_reopen's reader hands over (cp_logfile_take_src), from k's
 * kept descriptor or the name opened again; a version-3 log is refused. */
static void test_reopen_src(void)
{
    static unsigned char a[80 * 1024], b[80 * 1024];
    struct cp_logfile_known k;
    struct cp_logfile *lf;
    struct cp_slotsrc src;
    struct cp_error err;
    struct file f;
    struct pay p;
    char *path;
    size_t na = 0, nb = 0, nc = 0;
    uint64_t i;
    int keep;

    f_init(&f, 0);
    for (i = 0; i < 8; i++) {
        raw_run(&p, &f, i * 62, 62);
        f_block(&f, &p, i * 62);
    }
    path = f_write(&f, "reopen.cplog", 0);
    for (keep = 0; keep < 2; keep++) {
        if (cp_logfile_check(path, keep, &k, &err) < 0)
            break;
        lf = cp_logfile_reopen(path, &k, &err);
        if (lf) {
            src = cp_logfile_take_src(lf);
            cp_logfile_close(lf);
            na = src_bytes(&src, a, sizeof a);
        }
        if (cp_logfile_reopen_src(path, &k, &src, &err) == 0)
            nb = src_bytes(&src, b, sizeof b);
        ok(lf && na == 8 * 62 * 64 && nb == na && memcmp(a, b, na) == 0,
           "reopen_src (%s): the %zu bytes of slots the reader hands over",
           keep ? "the kept descriptor" : "the name opened again", nb);
        cp_logfile_known_release(&k);
    }
    free(f.b);
    /* a version-3 log: not read by a source */
    snprintf((char *)a, 256, "%s/v3.cplog", dir);
    {
        union cp_rec r;
        FILE *out = fopen((char *)a, "wb");
        struct cp_log_header h;
        unsigned char page[CP_LOG_HEADER_SIZE];
        memset(&h, 0, sizeof h);
        memcpy(h.magic, CP_LOG_MAGIC, 8);
        h.endian = CP_LOG_ENDIAN;
        h.version = 3;
        h.header_size = CP_LOG_HEADER_SIZE;
        h.record_size = CP_LOG_RECORD_SIZE;
        h.start_realtime_ns = T0;
        memset(page, 0, sizeof page);
        memcpy(page, &h, sizeof h);
        plain(&r, 0);
        fwrite(page, 1, sizeof page, out);
        fwrite(&r, 1, sizeof r, out);
        fclose(out);
    }
    if (cp_logfile_check((char *)a, 0, &k, &err) == 0)
        nc = cp_logfile_reopen_src((char *)a, &k, &src, &err) < 0 ? 1 : 0;
    ok(nc == 1, "reopen_src of a version-3 log: refused (%s)", err.text);
}

static void header_error(const char *what, void (*set)(struct cp_log_header *h),
                         size_t field)
{
    struct file f;
    struct got g;
    char *path, head[400];
    struct cp_logfile_known k;
    struct cp_error err;

    f_init(&f, 0);
    set(&f.h);
    path = f_write(&f, "hdr.cplog", 0);
    snprintf(head, sizeof head, "%s: offset %zu: ", path, field);
    if (!ok(read_logfile(path, &g) < 0 &&
                strncmp(g.problem, head, strlen(head)) == 0 &&
                g.offset == (int64_t)field,
            "header: %s: refused, offset %zu named", what, field))
        diag("  got '%s'", g.problem);
    ok(cp_logfile_check(path, 0, &k, &err) < 0 && err.offset == (int64_t)field,
       "header: %s: the check refuses it too", what);
    free(f.b);
}

static void h_ring_pow2(struct cp_log_header *h) { h->ring_slots = 96; }
static void h_ring_small(struct cp_log_header *h) { h->ring_slots = 32; }
static void h_dict(struct cp_log_header *h) { h->dict_slots = 4097; }
static void h_ring_header(struct cp_log_header *h) { h->ring_offset = 64; }
static void h_ring_past(struct cp_log_header *h) { h->ring_offset = 8192; }
static void h_stream_ring(struct cp_log_header *h)
{
    h->stream_offset = STREAM_AT - 8;
}
static void h_stream_past(struct cp_log_header *h)
{
    h->stream_offset = UINT64_C(1) << 40;
}

static void test_header(void)
{
    struct cp_logfile_known k;
    struct cp_error err;
    struct file f;
    unsigned char first[4096];
    size_t got = 1;
    char *path;

    header_error("ring_slots not a power of two", h_ring_pow2, 456);
    header_error("ring_slots under 64", h_ring_small, 456);
    header_error("dict_slots over 4096", h_dict, 460);
    header_error("the ring over the header", h_ring_header, 464);
    header_error("the ring past the file's end", h_ring_past, 464);
    header_error("the stream inside the ring", h_stream_ring, 472);
    header_error("the stream past the file's end", h_stream_past, 472);
    /* no "first records": after a v4 header comes the ring's index */
    f_init(&f, 0);
    path = f_write(&f, "first.cplog", 0);
    ok(cp_logfile_check_first(path, 0, &k, first, sizeof first, &got, &err) ==
               0 &&
           got == 0,
       "check_first: no first records after a version-4 header");
    free(f.b);
}

/* cp_log4_sum against its definition, byte by byte, at every length up
 * to a block's (its 16-byte steps, their rest) and on bytes of 255. */
static void test_sum(void)
{
    static unsigned char p[CP_LOG4_BLOCK_MAX];
    uint32_t seed = 12345;
    size_t n, i;
    int bad = 0;

    for (n = 0; n <= sizeof p; n++) {
        uint32_t a = 1, b = 0;
        for (i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            p[i] = n % 7 == 0 ? 255 : (unsigned char)(seed >> 16);
            a += p[i];
            b += a;
        }
        if ((b ^ (a << 16)) != cp_log4_sum(p, n))
            bad++;
    }
    ok(bad == 0, "cp_log4_sum: its definition at every length 0-%u (%d "
                 "differ)", CP_LOG4_BLOCK_MAX, bad);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    test_sum();
    test_every_op(0);
    test_every_op(1);
    test_raw_slots();
    test_ring();
    test_torn();
    test_damage();
    test_define_past_dict();
    test_flip_in_block();
    test_big_run();
    test_window();
    test_reopen_src();
    test_header();
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            diag("could not remove %s", dir);
    }
    return done_testing();
}
