/* gen_logs.c - synthetic collprof rank logs with a known truth.
 *
 * Writes one log per rank in the real format (include/collprof/
 * cp_logfmt.h, written with stdio, not through the shim) for a job whose
 * collectives follow the alpha-beta model exactly up to planted noise, so
 * that the analyzer's answers can be checked against the truth:
 *
 *   gen_logs -o DIR [--ranks 8] [--ranks-per-node 2] [--steps 20 |
 *            --calls N] [--pattern ddp-small|ddp-large|mixed|sweep|uniform]
 *            [--intra-alpha 5us] [--intra-bw 2GB/s] [--inter-alpha 20us]
 *            [--inter-bw 400MB/s] [--noise 0.05] [--outliers 0]
 *            [--jitter T] [--gap 50us] [--step-gap 20ms]
 *            [--clock-offset NODE=T]... [--straggler RANK=T]...
 *            [--in-call RANK=T]... [--kernel-late RANK=T]...
 *            [--slow-node NODE=FACTOR] [--failed N] [--job-id ID]
 *            [--pid-base N] [--node-prefix P] [--seed S]
 *            [--truth FILE] [--swap] [--gpu] [--phases] [--format 4|3]
 *            [--sync-bytes N]
 *
 * --format 3 writes version 3 (a 64-byte slot per record); the default
 * is version 4 (a ring of 64 cells, all of it left as "nothing in the
 * ring", and the records in the compact stream, cp_logenc.h), the same
 * records: the readers' tests compare the two from one seed.
 * --sync-bytes N puts a sync point in the stream every N bytes (a power
 * of two from 16 KiB to 1 GiB), as the shim does every 1 MiB (the
 * default); 0 writes a stream without (a log of before sync points).
 * --swap writes the other byte order (a log from a big-endian machine).
 * --gpu adds a device interval (kind 5, as the cupti timer writes) to every
 * successful call: its last eighth before the call returned.
 * --phases adds to every collective call the initial-sync phase a v7 NCCL
 * profiler plugin records (kind 10, channel 0): from the member's arrival
 * to the instance's last arrival on a device timer that reads true time
 * (no node's clock offset), its CLOCK_REALTIME start on the node's clock.
 * --kernel-late (with --phases) makes a rank's kernels reach the initial
 * sync T after its call arrived, a GPU behind its host: the phases see it
 * last, the calls' times are as without it.
 * The time of an instance is the model of its communicator's link class
 * (ring all-reduce 2(p-1)a + 2(p-1)/p n b, ring reduce-scatter/all-gather
 * and pairwise all-to-all (p-1)a + (p-1)/p n b, chain broadcast/reduce
 * (p-1)a + n b, send/recv a + n b; a communicator on more than one node
 * runs at the inter-node a and b) times exp(noise * Z), Z standard normal
 * (a lognormal with median 1), times U(2, 10) for a fraction `outliers` of
 * instances.  Each rank arrives after its own compute gap (plus its
 * straggler delay), every rank ends at last arrival + time + U(0, jitter)
 * (plus the --in-call delay of its slowest member, in a collective)
 * (jitter defaults to a quarter of the class's alpha), and a node's clock
 * reads true time + its offset.  The run is deterministic for a seed.
 *
 * --truth writes JSON: the parameters, steps, calls, and the latency-bound
 * share of the collectives' own time (own time = max end - last arrival,
 * latency-bound = n below L/W of the model at the true a and b), and what
 * was written: the first call start and last call end of the run, the
 * least and most calls of a rank, and four sample ranks (file, calls,
 * first start, last end) that a test compares with a dump.
 *
 * Any size up to 2^20 ranks: memory is a fixed budget of buffered records
 * (BUFFER_BUDGET) plus about 150 bytes per rank, and a rank's file is
 * opened only to write a full buffer when the limit on open files is
 * below one per rank.  A job it cannot honour is an error before anything
 * is written (bad numbers, a rank or node named past the job, a node name
 * too long) or after (a run longer than 30 days of simulated time: the
 * logs are then unusable and no truth is written).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_path.h"
#include "collprof/cp_logfmt.h"
#include "cp_logenc.h"
#include "cp_logread.h"
#include "cp_units.h"

#define MAX_OFFSETS 256
/* The largest job it writes: the analyzer's communicator limit. */
#define MAX_RANKS (1u << 20)
/* Buffered records of all ranks together; a rank's buffer is written out
 * when full (through a descriptor kept open when the limit on open files
 * allows one per rank, else opened for the write). */
#define BUFFER_BUDGET ((size_t)128 << 20)
#define BUFFER_MIN ((size_t)1 << 10)
#define BUFFER_MAX ((size_t)1 << 16)
/* The simulated run lasts at most this long (the analyzer takes spans over
 * a year for damaged times). */
#define MAX_SPAN_NS 2.592e15 /* 30 days */
/* Peers a rank exchanges point-to-point messages with (3d: the next and
 * the previous stage; the exchange: one node up and one down). */
#define MAX_PEERS 4
#define MAX_STRAGGLERS 64
#define T0_NS UINT64_C(1700000000000000000) /* Nov 2023 */
#define DEVICE_T0_NS UINT64_C(1000000000000000) /* --phases' device timer */
#define DTYPE_F32 7
#define DTYPE_F64 8

enum coll { C_ALLREDUCE, C_BROADCAST, C_REDUCE, C_REDUCESCATTER, C_ALLGATHER,
            C_ALLTOALL, C_SENDRECV };
enum where { W_WORLD, W_NODE, W_P2P };

struct op {
    enum coll coll;
    enum where where;
    double n; /* nccl-tests' S, bytes */
    int gap_step; /* a step boundary comes before it */
};

struct peer_seq {
    int32_t peer; /* -1: free */
    uint32_t seq;
};

struct rank {
    int fd;               /* -1 when not kept open */
    unsigned char *buf;   /* records not yet written */
    size_t used;
    unsigned node;
    double t;             /* true time, ns since T0 */
    uint32_t world_seq, node_seq, dp_seq;
    struct peer_seq send[MAX_PEERS], recv[MAX_PEERS];
    uint64_t slots, calls;
    uint64_t call_slot; /* the slot of its last call record */
    uint64_t first_start, last_end; /* as written (clock of its node) */
    double delay;         /* straggler delay, ns */
    double in_call;       /* delay inside each of its collectives, ns */
    double kernel_late;   /* its kernels' lag behind its calls, ns */
    double arrival, end;  /* of the current instance */
    /* format 4: the stream's state and the open block (at buf + used) */
    struct cp_logenc enc;
    size_t block_fill;
    uint64_t block_first, stream_bytes;
    uint32_t block_slots;
    uint64_t next_sync; /* the next sync point, from the stream's start */
};

/* Format 4's ring in these logs: the smallest, left empty. */
#define GEN_RING CP_LOG4_RING_MIN
#define GEN_STREAM_OFFSET                                                      \
    ((CP_LOG_HEADER_SIZE + GEN_RING * (8 + CP_LOG_RECORD_SIZE) + 4095) /       \
     4096 * 4096)

/* Delays planted on ranks, from options RANK=T (--straggler, --in-call,
 * --kernel-late). */
struct rank_times {
    int n;
    int rank[MAX_STRAGGLERS];
    double ns[MAX_STRAGGLERS];
};

struct gen {
    unsigned ranks, per_node, nodes, steps;
    uint64_t calls;
    const char *pattern, *dir, *truth, *job_id, *prefix;
    double alpha[2], bw[2]; /* 0 intra, 1 inter */
    double noise, outliers, jitter, gap, step_gap;
    double offset[MAX_OFFSETS]; /* per node, ns */
    int slow_node;
    double slow_factor;
    unsigned failed;
    int swap; /* write the other byte order */
    uint32_t sync_bytes; /* format 4: a sync point every this many bytes */
    unsigned format; /* 4 (ring and stream) or 3 (a slot per record) */
    int gpu;  /* a device interval (kind 5, cupti) after every call */
    int phases; /* an initial-sync phase (kind 10) per collective call */
    int pid_base;
    uint64_t seed, rng[4];
    uint64_t world_id, node_id_base;
    struct rank *r;
    size_t buf_size;   /* bytes of each rank's buffer */
    int keep_open;     /* one descriptor per rank fits the limit */
    int failed_io;     /* a write failed (errno kept in io_errno) */
    int io_errno;
    int too_long;      /* a time beyond MAX_SPAN_NS or before the origin */
    int peers_full;    /* a rank with more than MAX_PEERS peers */
    struct op *ops;
    size_t nops;
    /* 3d: tensor parallel = a node, dp_size nodes per data-parallel ring,
     * pipelines between stages; one slow node pair */
    unsigned dp_size;
    int slow_a, slow_b;
    double slow_link_factor;
    uint64_t dp_id_base;
    unsigned offset_nodes; /* highest --clock-offset node + 1 */
    struct rank_times stragglers; /* --straggler: late at each call */
    struct rank_times in_call;    /* --in-call: late inside each collective */
    struct rank_times kernel_late; /* --kernel-late: kernels behind calls */
    /* truth */
    double own_total, own_latency;
    uint64_t instances, calls_written;
};

/* ---- random numbers: xoshiro256** seeded by splitmix64 -------------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t next_u64(struct gen *g)
{
    uint64_t *s = g->rng, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static double uniform(struct gen *g)
{
    return (double)(next_u64(g) >> 11) * 0x1.0p-53;
}

static double normal(struct gen *g)
{
    double u = uniform(g), v = uniform(g);
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* ---- the model (written out here, independently of analyzer/cp_model) --- */

static void terms(enum coll c, unsigned p, double *A, double *B)
{
    double P = p;

    switch (c) {
    case C_ALLREDUCE:
        *A = 2 * (P - 1);
        *B = 2 * (P - 1) / P;
        break;
    case C_BROADCAST:
    case C_REDUCE:
        *A = P - 1;
        *B = 1;
        break;
    case C_SENDRECV:
        *A = 1;
        *B = 1;
        break;
    default: /* reduce-scatter, all-gather, all-to-all */
        *A = P - 1;
        *B = (P - 1) / P;
        break;
    }
}

static unsigned op_code(enum coll c, int recv)
{
    static const unsigned codes[] = {CP_OP_AllReduce, CP_OP_Broadcast,
                                     CP_OP_Reduce, CP_OP_ReduceScatter,
                                     CP_OP_AllGather, CP_OP_AlltoAll};
    if (c == C_SENDRECV)
        return recv ? CP_OP_Recv : CP_OP_Send;
    return codes[c];
}

/* NCCL's count for S = n bytes of float32 on p ranks. */
static uint64_t count_of(enum coll c, double n, unsigned p)
{
    uint64_t elems = (uint64_t)(n / 4);

    if (c == C_ALLGATHER || c == C_REDUCESCATTER || c == C_ALLTOALL)
        elems /= p;
    return elems ? elems : 1;
}

static double bytes_of(enum coll c, uint64_t count, unsigned p)
{
    double n = (double)count * 4;
    if (c == C_ALLGATHER || c == C_REDUCESCATTER || c == C_ALLTOALL)
        n *= p;
    return n;
}

/* ---- writing ------------------------------------------------------------- */

static void rank_path(const struct gen *g, unsigned i, char *path, size_t size)
{
    snprintf(path, size, "%s/%s%u.%d.cplog", g->dir, g->prefix,
             i / g->per_node, g->pid_base + (int)i);
}

/* Write all of len bytes at offset (-1: append) of rank i's file. */
static int rank_write(struct gen *g, unsigned i, const void *data, size_t len,
                      off_t offset)
{
    struct rank *rk = &g->r[i];
    char path[4096];
    const char *p = data;
    int fd = rk->fd, rc = -1;

    if (fd < 0) {
        rank_path(g, i, path, sizeof path);
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            goto out;
    }
    if (offset < 0 && lseek(fd, 0, SEEK_END) < 0)
        goto out;
    while (len > 0) {
        ssize_t n = offset < 0 ? write(fd, p, len) : pwrite(fd, p, len, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto out;
        p += n;
        len -= (size_t)n;
        if (offset >= 0)
            offset += n;
    }
    rc = 0;
out:
    if (rc < 0 && !g->failed_io) {
        g->failed_io = 1;
        g->io_errno = errno ? errno : EIO;
    }
    if (fd >= 0 && fd != rk->fd)
        close(fd);
    return rc;
}

static int flush_rank(struct gen *g, unsigned i)
{
    struct rank *rk = &g->r[i];
    int rc = 0;

    if (rk->used > 0)
        rc = rank_write(g, i, rk->buf, rk->used, -1);
    rk->used = 0;
    return rc;
}

static uint32_t sw32(uint32_t v) { return __builtin_bswap32(v); }

/* Format 4: close the open block (its header before its payload). */
static void close_block(struct gen *g, struct rank *rk)
{
    struct cp_log4_block b;
    unsigned char *at = rk->buf + rk->used;

    if (!rk->block_fill && !rk->block_slots)
        return;
    b.magic = CP_LOG4_BLOCK_MAGIC;
    b.bytes = (uint32_t)rk->block_fill;
    b.first_slot = rk->block_first;
    b.slots = rk->block_slots;
    b.sum = cp_log4_sum(at + sizeof b, rk->block_fill);
    if (g->swap) {
        b.magic = sw32(b.magic);
        b.bytes = sw32(b.bytes);
        b.first_slot = __builtin_bswap64(b.first_slot);
        b.slots = sw32(b.slots);
        b.sum = sw32(b.sum);
    }
    memcpy(at, &b, sizeof b);
    rk->used += sizeof b + rk->block_fill;
    rk->stream_bytes += sizeof b + rk->block_fill;
    rk->block_fill = 0;
    rk->block_slots = 0;
}

/* Format 4: a sync point before the next record when its ops might reach
 * the next multiple of sync_bytes (as the shim's log thread): the open
 * block closed, zeros to the multiple, a block there that starts with
 * the sync op. */
static int sync4(struct gen *g, struct rank *rk)
{
    size_t hdr = sizeof(struct cp_log4_block), pad;

    if (!g->sync_bytes)
        return 0;
    if (!rk->next_sync)
        rk->next_sync = g->sync_bytes;
    /* a second block header: put4 may close the open one for the op */
    if (rk->stream_bytes + 2 * hdr + rk->block_fill + CP_LOGENC_MAX <=
        rk->next_sync)
        return 0;
    close_block(g, rk);
    pad = (size_t)(rk->next_sync - rk->stream_bytes);
    if (rk->used + pad + hdr + CP_LOGENC_MAX > g->buf_size &&
        flush_rank(g, (unsigned)(rk - g->r)) < 0)
        return -1;
    memset(rk->buf + rk->used, 0, pad);
    rk->used += pad;
    rk->stream_bytes += pad;
    rk->next_sync += g->sync_bytes;
    rk->block_first = rk->slots;
    rk->block_fill = cp_logenc_sync(&rk->enc, rk->buf + rk->used + hdr);
    return 0;
}

/* Format 4: the record's ops into the open block, a block at most
 * CP_LOG4_BLOCK_MAX or the rank's buffer. */
static int put4(struct gen *g, struct rank *rk, const union cp_rec *rec)
{
    unsigned char op[CP_LOGENC_MAX];
    size_t n;

    if (sync4(g, rk) < 0)
        return -1;
    n = cp_logenc_rec(&rk->enc, rec, rk->slots, op);
    size_t max = g->buf_size < CP_LOG4_BLOCK_MAX ? g->buf_size
                                                 : CP_LOG4_BLOCK_MAX;
    size_t hdr = sizeof(struct cp_log4_block);

    if (g->swap && (op[0] == CP_LOG4_RAW || op[0] == CP_LOG4_TEMPLATE)) {
        /* a raw slot and a template as the writer wrote them (aligned
         * to swap) */
        union cp_rec raw;
        memcpy(&raw, op + 1, sizeof raw);
        cp_rec_swap(&raw);
        memcpy(op + 1, &raw, sizeof raw);
    }
    if (hdr + rk->block_fill + n > max)
        close_block(g, rk);
    if (rk->used + hdr + rk->block_fill + n > g->buf_size) {
        /* the open block is empty here: the buffer's blocks go out */
        close_block(g, rk);
        if (flush_rank(g, (unsigned)(rk - g->r)) < 0)
            return -1;
    }
    if (!rk->block_fill && !rk->block_slots)
        rk->block_first = rk->slots;
    memcpy(rk->buf + rk->used + hdr + rk->block_fill, op, n);
    rk->block_fill += n;
    rk->block_slots++;
    rk->slots++;
    return 0;
}

static int put(struct gen *g, struct rank *rk, const union cp_rec *rec)
{
    union cp_rec swapped;

    if (g->format == 4)
        return put4(g, rk, rec);
    if (g->swap) {
        swapped = *rec;
        cp_rec_swap(&swapped);
        rec = &swapped;
    }
    if (rk->used + sizeof *rec > g->buf_size &&
        flush_rank(g, (unsigned)(rk - g->r)) < 0)
        return -1;
    memcpy(rk->buf + rk->used, rec, sizeof *rec);
    rk->used += sizeof *rec;
    rk->slots++;
    return 0;
}

static uint64_t ts(struct gen *g, const struct rank *rk, double t)
{
    /* offsets are given for the first MAX_OFFSETS nodes; the rest run on
     * true time */
    double off = rk->node < MAX_OFFSETS ? g->offset[rk->node] : 0;
    double v = t + off;

    /* a time the run cannot have (NaN, further from the origin than the
     * span this tool promises) makes the whole run an error, never a wrap */
    if (!(v >= -MAX_SPAN_NS && v <= MAX_SPAN_NS)) {
        g->too_long = 1;
        v = 0;
    }
    return (uint64_t)((int64_t)T0_NS + llround(v));
}

/* The sequence number of rank rk's next message to (recv: from) peer. */
static uint32_t next_peer_seq(struct gen *g, struct rank *rk, int recv,
                              unsigned peer)
{
    struct peer_seq *t = recv ? rk->recv : rk->send;
    unsigned k;

    for (k = 0; k < MAX_PEERS; k++) {
        if (t[k].peer == (int32_t)peer)
            return t[k].seq++;
        if (t[k].peer < 0) {
            t[k].peer = (int32_t)peer;
            return t[k].seq++;
        }
    }
    g->peers_full = 1;
    return 0;
}

static void write_header(struct gen *g, unsigned i, int final)
{
    struct rank *rk = &g->r[i];
    struct cp_log_header h;
    unsigned char pad[CP_LOG_HEADER_SIZE];

    memset(pad, 0, sizeof pad);
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CP_LOG_MAGIC, 8);
    h.endian = CP_LOG_ENDIAN;
    h.version = g->format == 4 ? CP_LOG_VERSION : CP_LOG_VERSION_SLOTS;
    h.header_size = CP_LOG_HEADER_SIZE;
    h.record_size = CP_LOG_RECORD_SIZE;
    h.chunk_records = g->format == 4 ? 0 : 16384;
    if (g->format == 4) {
        h.ring_slots = GEN_RING;
        h.dict_slots = CP_LOGENC_DICT_DEFAULT;
        h.ring_offset = CP_LOG_HEADER_SIZE;
        h.stream_offset = GEN_STREAM_OFFSET;
        h.stream_end = final ? rk->stream_bytes : 0;
        h.stream_slots = final ? rk->slots : 0;
        h.sync_bytes = g->sync_bytes;
    }
    h.flags = (final ? CP_HDR_CLOSED : 0) |
              (g->format == 4 && g->sync_bytes ? CP_HDR_SYNC : 0);
    h.timer = CP_TIMER_HOST;
    h.pid = g->pid_base + (int)i;
    h.global_rank = (int)i;
    h.world_size = (int)g->ranks;
    h.local_rank = (int)(i % g->per_node);
    h.nccl_version = 22809;
    h.start_realtime_ns = ts(g, rk, 0);
    h.start_monotonic_ns = 1000000000;
    h.end_realtime_ns = final ? ts(g, rk, rk->t) + 1000 : 0;
    h.slots_used = final ? rk->slots : 0;
    snprintf(h.node, sizeof h.node, "%s%u", g->prefix, rk->node);
    snprintf(h.hostname, sizeof h.hostname, "%s%u.example", g->prefix,
             rk->node);
    snprintf(h.job_id, sizeof h.job_id, "%s", g->job_id);
    snprintf(h.step_id, sizeof h.step_id, "0");
    snprintf(h.timer_reason, sizeof h.timer_reason, "generated");
    snprintf(h.program, sizeof h.program, "gen_logs");
    if (g->swap) {
#define SW32(x) ((x) = (__typeof__(x))__builtin_bswap32((uint32_t)(x)))
#define SW64(x) ((x) = (__typeof__(x))__builtin_bswap64((uint64_t)(x)))
        SW32(h.endian); SW32(h.version); SW32(h.header_size);
        SW32(h.record_size); SW32(h.chunk_records); SW32(h.flags);
        SW32(h.timer); SW32(h.pid); SW32(h.global_rank); SW32(h.world_size);
        SW32(h.local_rank); SW32(h.nccl_version);
        SW64(h.start_realtime_ns); SW64(h.start_monotonic_ns);
        SW64(h.end_realtime_ns); SW64(h.slots_used); SW64(h.records_dropped);
        SW32(h.ring_slots); SW32(h.dict_slots); SW64(h.ring_offset);
        SW64(h.stream_offset); SW64(h.stream_end); SW64(h.stream_slots);
        SW32(h.sync_bytes);
#undef SW32
#undef SW64
    }
    memcpy(pad, &h, sizeof h);
    rank_write(g, i, pad, sizeof pad, 0);
}

static void comm_record(struct gen *g, unsigned i, unsigned how, uint64_t id,
                        uint64_t parent, uint32_t nranks, uint32_t rank,
                        const char *name)
{
    union cp_rec rec;

    memset(&rec, 0, sizeof rec);
    rec.comm.how = (uint8_t)how;
    rec.comm.cuda_dev = (int32_t)(i % g->per_node);
    rec.comm.comm_id = id;
    rec.comm.parent_id = parent;
    rec.comm.nranks = nranks;
    rec.comm.rank = rank;
    rec.comm.color = parent ? (int32_t)g->r[i].node : 0;
    rec.comm.time_ns = ts(g, &g->r[i], g->r[i].t);
    memcpy(rec.comm.name, name, strnlen(name, CP_COMM_NAME_LEN));
    rec.kind = CP_REC_COMM;
    put(g, &g->r[i], &rec);
}

static void call_record(struct gen *g, unsigned i, unsigned op, uint64_t comm,
                        uint64_t count, uint32_t seq, int32_t peer,
                        uint32_t rank, uint32_t nranks, uint32_t group,
                        uint16_t flags, int result, double start, double end)
{
    union cp_rec rec;

    memset(&rec, 0, sizeof rec);
    rec.call.op = (uint8_t)op;
    rec.call.dtype = DTYPE_F32;
    rec.call.redop = op == CP_OP_AllReduce || op == CP_OP_ReduceScatter ||
                             op == CP_OP_Reduce
                         ? 0
                         : CP_REDOP_NONE;
    rec.call.result = (int8_t)result;
    rec.call.timer = CP_TIMER_HOST;
    rec.call.flags = flags;
    rec.call.comm_id = comm;
    rec.call.count = count;
    rec.call.seq = seq;
    rec.call.peer = peer;
    rec.call.rank = rank;
    rec.call.nranks = nranks;
    rec.call.group = group;
    rec.call.stream = 0x1234;
    rec.call.start_ns = ts(g, &g->r[i], start);
    rec.call.end_ns = ts(g, &g->r[i], end);
    rec.kind = CP_REC_CALL;
    put(g, &g->r[i], &rec);
    g->r[i].call_slot = g->r[i].slots - 1;
    g->calls_written++;
    if (g->r[i].calls == 0 || rec.call.start_ns < g->r[i].first_start)
        g->r[i].first_start = rec.call.start_ns;
    if (rec.call.end_ns > g->r[i].last_end)
        g->r[i].last_end = rec.call.end_ns;
    g->r[i].calls++;
    if (g->gpu && result == 0) {
        uint64_t slot = g->r[i].slots - 1, s0 = rec.call.start_ns,
                 e0 = rec.call.end_ns;
        memset(&rec, 0, sizeof rec);
        rec.gpu.timer = CP_TIMER_CUPTI;
        rec.gpu.slot = slot;
        rec.gpu.start_ns = e0 - (e0 - s0) / 8;
        rec.gpu.end_ns = e0;
        rec.kind = CP_REC_GPU;
        put(g, &g->r[i], &rec);
    }
}

/* The initial-sync phase of rank i's last call (--phases): it waited from
 * its arrival to the instance's last arrival, on a device timer of true
 * time. */
static void phase_record(struct gen *g, unsigned i, uint64_t comm,
                         uint32_t seq, double arrival, double last)
{
    union cp_rec rec;

    if (!g->phases)
        return;
    memset(&rec, 0, sizeof rec);
    rec.phase.phase = 0; /* initial sync */
    rec.phase.slot = g->r[i].call_slot;
    rec.phase.comm_id = comm;
    rec.phase.seq = seq;
    rec.phase.gpu_start_raw = (uint64_t)llround(arrival) + DEVICE_T0_NS;
    rec.phase.gpu_end_raw = (uint64_t)llround(last) + DEVICE_T0_NS;
    rec.phase.start_ns = ts(g, &g->r[i], arrival);
    rec.phase.end_ns = ts(g, &g->r[i], last);
    rec.kind = CP_REC_PHASE;
    put(g, &g->r[i], &rec);
}

/* The instance's last kernel arrival at the initial sync (--kernel-late:
 * a member's kernel reaches it that long after its call arrived). */
static double kernel_last(const struct gen *g, const unsigned *m, unsigned p)
{
    double last = 0;
    unsigned k;

    for (k = 0; k < p; k++) {
        const struct rank *rk = &g->r[m[k]];
        if (rk->arrival + rk->kernel_late > last)
            last = rk->arrival + rk->kernel_late;
    }
    return last;
}

/* ---- simulation ------------------------------------------------------------ */

static double noisy(struct gen *g, double t)
{
    t *= exp(g->noise * normal(g));
    if (g->outliers > 0 && uniform(g) < g->outliers)
        t *= 2 + 8 * uniform(g);
    return t;
}

static int touches_slow(struct gen *g, const unsigned *members, unsigned m)
{
    unsigned k;

    if (g->slow_node < 0)
        return 0;
    for (k = 0; k < m; k++)
        if ((int)g->r[members[k]].node == g->slow_node)
            return 1;
    return 0;
}

/* The longest delay inside the call of the members m[0..p) (--in-call):
 * every member ends that much later, the others waiting for it. */
static double in_call_of(const struct gen *g, const unsigned *m, unsigned p)
{
    double d = 0;
    unsigned k;

    for (k = 0; k < p; k++)
        if (g->r[m[k]].in_call > d)
            d = g->r[m[k]].in_call;
    return d;
}

/* The members m[0..p) arrive at their next call: each after its own time,
 * a gap of 0.8-1.2 times `gap` and its planted delay.  Returns the last
 * arrival. */
static double arrive(struct gen *g, const unsigned *m, unsigned p, double gap)
{
    double last = 0;
    unsigned k;

    for (k = 0; k < p; k++) {
        struct rank *rk = &g->r[m[k]];
        rk->arrival = rk->t + gap * (0.8 + 0.4 * uniform(g)) + rk->delay;
        if (rk->arrival > last)
            last = rk->arrival;
    }
    return last;
}

/* One collective instance on the given members (global ranks, in comm rank
 * order). */
static void collective(struct gen *g, const struct op *o, const unsigned *m,
                       unsigned p, uint64_t comm, int on_node, double gap)
{
    int inter = !on_node && g->nodes > 1;
    double A, B, a = g->alpha[inter], b = 1e9 / g->bw[inter], T, last = 0,
                 max_end = 0, n, own, klast;
    uint64_t count = count_of(o->coll, o->n, p);
    unsigned k;

    if (inter && touches_slow(g, m, p))
        b *= g->slow_factor;
    n = bytes_of(o->coll, count, p);
    terms(o->coll, p, &A, &B);
    T = noisy(g, A * a * 1e9 + B * n * b) + in_call_of(g, m, p); /* ns */
    last = arrive(g, m, p, gap);
    klast = kernel_last(g, m, p);
    for (k = 0; k < p; k++) {
        struct rank *rk = &g->r[m[k]];
        rk->end = last + T + g->jitter * (g->jitter >= 0 ? uniform(g) : 0);
        if (g->jitter < 0)
            rk->end = last + T + 0.25 * a * 1e9 * uniform(g);
        if (rk->end > max_end)
            max_end = rk->end;
    }
    for (k = 0; k < p; k++) {
        struct rank *rk = &g->r[m[k]];
        uint32_t seq = on_node ? rk->node_seq++ : rk->world_seq++;
        int32_t peer = o->coll == C_BROADCAST || o->coll == C_REDUCE ? 0 : -1;
        call_record(g, m[k], op_code(o->coll, 0), comm, count, seq, peer, k, p,
                    0, 0, 0, rk->arrival, rk->end);
        phase_record(g, m[k], comm, seq, rk->arrival + rk->kernel_late,
                     klast);
        rk->t = rk->end;
    }
    own = (max_end - last) * 1e-9;
    g->own_total += own;
    if (n * B * b < A * a * 1e9)
        g->own_latency += own;
    g->instances++;
}

/* Grouped send/recv: every rank sends n bytes to the rank one node up and
 * receives from the rank one node down, in one group per rank.  A transfer
 * starts when both ends arrived and takes T; a rank's group ends when its
 * last transfer does. */
static void p2p_exchange(struct gen *g, const struct op *o, double gap,
                         uint32_t *group_ids)
{
    double a = g->alpha[g->nodes > 1], b = 1e9 / g->bw[g->nodes > 1];
    uint64_t count = count_of(C_SENDRECV, o->n, 2);
    double n = bytes_of(C_SENDRECV, count, 2);
    unsigned i, R = g->ranks, G = g->per_node;

    if (R <= G)
        return;
    for (i = 0; i < R; i++) {
        struct rank *rk = &g->r[i];
        rk->arrival = rk->t + gap * (0.8 + 0.4 * uniform(g)) + rk->delay;
        rk->end = rk->arrival;
    }
    for (i = 0; i + G < R; i++) { /* the transfer i -> i + G */
        struct rank *s = &g->r[i], *d = &g->r[i + G];
        double start = s->arrival > d->arrival ? s->arrival : d->arrival;
        double end = start + noisy(g, a * 1e9 + n * b);
        double es = end + 0.25 * a * 1e9 * uniform(g);
        double ed = end + 0.25 * a * 1e9 * uniform(g);
        if (es > s->end)
            s->end = es;
        if (ed > d->end)
            d->end = ed;
    }
    for (i = 0; i < R; i++) {
        struct rank *rk = &g->r[i];
        uint32_t gid = ++group_ids[i];
        unsigned ncalls = 0;
        union cp_rec rec;
        double t = rk->arrival;
        if (i + G < R) {
            call_record(g, i, CP_OP_Send, g->world_id, count,
                        next_peer_seq(g, rk, 0, i + G), (int32_t)(i + G), i, R, gid,
                        CP_CALL_IN_GROUP, 0, t, t + 500);
            ncalls++;
        }
        if (i >= G) {
            call_record(g, i, CP_OP_Recv, g->world_id, count,
                        next_peer_seq(g, rk, 1, i - G), (int32_t)(i - G), i, R, gid,
                        CP_CALL_IN_GROUP, 0, t + 500, t + 1000);
            ncalls++;
        }
        memset(&rec, 0, sizeof rec);
        rec.group.group = gid;
        rec.group.ncalls = ncalls;
        rec.group.start_ns = ts(g, rk, rk->arrival);
        rec.group.end_ns = ts(g, rk, rk->end);
        rec.kind = CP_REC_GROUP;
        put(g, rk, &rec);
        rk->t = rk->end;
    }
}

/* ---- 3d: TP in a node, DP rings across nodes, PP pairs, a slow link ------ */

static int is_slow_pair(const struct gen *g, unsigned a, unsigned b)
{
    return g->slow_a >= 0 && (((int)a == g->slow_a && (int)b == g->slow_b) ||
                              ((int)a == g->slow_b && (int)b == g->slow_a));
}

/* One collective on members m (comm rank order) of comm; seq selects the
 * per-rank counter (0 world, 1 node, 2 dp).  The ring runs at its slowest
 * link. */
static void collective3d(struct gen *g, enum coll c, double bytes,
                         const unsigned *m, unsigned p, uint64_t comm,
                         int which, double gap)
{
    int inter = which != 1 && g->nodes > 1;
    double A, B, a = g->alpha[inter], b = 1e9 / g->bw[inter], T, last = 0, n,
                 klast;
    uint64_t count = count_of(c, bytes, p);
    unsigned k;

    for (k = 0; k < p && inter; k++)
        if (is_slow_pair(g, g->r[m[k]].node, g->r[m[(k + 1) % p]].node)) {
            b *= g->slow_link_factor;
            break;
        }
    n = bytes_of(c, count, p);
    terms(c, p, &A, &B);
    T = noisy(g, A * a * 1e9 + B * n * b) + in_call_of(g, m, p);
    last = arrive(g, m, p, gap);
    klast = kernel_last(g, m, p);
    for (k = 0; k < p; k++) {
        struct rank *rk = &g->r[m[k]];
        uint32_t *seq = which == 0 ? &rk->world_seq
                        : which == 1 ? &rk->node_seq
                                     : &rk->dp_seq;
        rk->end = last + T + 0.25 * a * 1e9 * uniform(g);
        call_record(g, m[k], op_code(c, 0), comm, count, (*seq)++, -1, k, p,
                    0, 0, 0, rk->arrival, rk->end);
        phase_record(g, m[k], comm, *seq - 1, rk->arrival + rk->kernel_late,
                     klast);
        rk->t = rk->end;
    }
    g->instances++;
}

/* Rank s sends `bytes` to rank d on the world communicator, outside any
 * group: the receiver waits, the send takes the transfer. */
static void send3d(struct gen *g, unsigned s, unsigned d, double bytes,
                   double gap)
{
    struct rank *rs = &g->r[s], *rd = &g->r[d];
    double a = g->alpha[1], b = 1e9 / g->bw[1], T, start;
    uint64_t count = count_of(C_SENDRECV, bytes, 2);

    if (is_slow_pair(g, rs->node, rd->node))
        b *= g->slow_link_factor;
    T = noisy(g, a * 1e9 + bytes_of(C_SENDRECV, count, 2) * b);
    rs->arrival = rs->t + gap * (0.8 + 0.4 * uniform(g));
    rd->arrival = rd->t + gap * (0.8 + 0.4 * uniform(g));
    start = rs->arrival > rd->arrival ? rs->arrival : rd->arrival;
    rs->end = start + T;
    rd->end = rs->end + 0.25 * a * 1e9 * uniform(g);
    call_record(g, s, CP_OP_Send, g->world_id, count,
                next_peer_seq(g, rs, 0, d), (int32_t)d, s, g->ranks, 0, 0, 0,
                rs->arrival, rs->end);
    call_record(g, d, CP_OP_Recv, g->world_id, count, next_peer_seq(g, rd, 1, s),
                (int32_t)s, d, g->ranks, 0, 0, 0, rd->arrival, rd->end);
    rs->t = rs->end;
    rd->t = rd->end;
}

/* One step: per stage, 4 TP all-reduces in every node, activations to the
 * next stage and gradients back, then 2 DP all-reduces per ring and the
 * loss.  rank = t + T (d + D s), node = d + D s. */
static void step3d(struct gen *g, unsigned *m)
{
    unsigned T = g->per_node, D = g->dp_size, S = g->nodes / D, k, nd, t, d,
             st;

    for (nd = 0; nd < g->nodes; nd++)
        for (k = 0; k < 4; k++) {
            unsigned q;
            for (q = 0; q < T; q++)
                m[q] = nd * T + q;
            collective3d(g, C_ALLREDUCE, 4 * 1048576.0, m, T,
                         g->node_id_base + nd, 1, g->gap);
        }
    for (st = 0; st + 1 < S; st++)
        for (d = 0; d < D; d++)
            for (t = 0; t < T; t++) {
                unsigned a = t + T * (d + D * st), b = a + T * D;
                send3d(g, a, b, 8 * 1048576.0, g->gap);
                send3d(g, b, a, 8 * 1048576.0, g->gap);
            }
    for (st = 0; st < S && D > 1; st++)
        for (t = 0; t < T; t++) {
            for (d = 0; d < D; d++)
                m[d] = t + T * (d + D * st);
            for (k = 0; k < 2; k++)
                collective3d(g, C_ALLREDUCE, 32 * 1048576.0, m, D,
                             g->dp_id_base + t + T * st, 2, g->gap);
        }
    for (k = 0; k < g->ranks; k++)
        m[k] = k;
    collective3d(g, C_ALLREDUCE, 4, m, g->ranks, g->world_id, 0,
                 g->step_gap);
}

/* ---- patterns -------------------------------------------------------------- */

static int add_op(struct gen *g, enum coll c, enum where w, double n,
                  int step)
{
    struct op *bigger = realloc(g->ops, (g->nops + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    g->ops = bigger;
    g->ops[g->nops].coll = c;
    g->ops[g->nops].where = w;
    g->ops[g->nops].n = n;
    g->ops[g->nops].gap_step = step;
    g->nops++;
    return 0;
}

/* Sizes log-uniform in [lo, hi], fixed for the run (so steps repeat). */
static double log_uniform(struct gen *g, double lo, double hi)
{
    return floor(exp(log(lo) + (log(hi) - log(lo)) * uniform(g)) / 64) * 64;
}

static int build_pattern(struct gen *g)
{
    int k, first = 1;

    if (strcmp(g->pattern, "ddp-small") == 0) {
        /* 96 small gradient buckets, three large ones, the loss */
        for (k = 0; k < 96; k++, first = 0)
            if (add_op(g, C_ALLREDUCE, W_WORLD, log_uniform(g, 1024, 32768),
                       first) < 0)
                return -1;
        if (add_op(g, C_ALLREDUCE, W_WORLD, 512 * 1024, 0) < 0 ||
            add_op(g, C_ALLREDUCE, W_WORLD, 1024 * 1024, 0) < 0 ||
            add_op(g, C_ALLREDUCE, W_WORLD, 2048 * 1024, 0) < 0 ||
            add_op(g, C_ALLREDUCE, W_WORLD, 4, 0) < 0)
            return -1;
    } else if (strcmp(g->pattern, "ddp-large") == 0) {
        /* 25 MiB buckets (bucket_cap_mb = 25), the rest, the loss */
        for (k = 0; k < 4; k++, first = 0)
            if (add_op(g, C_ALLREDUCE, W_WORLD, 25 * 1048576.0, first) < 0)
                return -1;
        if (add_op(g, C_ALLREDUCE, W_WORLD, 7 * 1048576.0, 0) < 0 ||
            add_op(g, C_ALLREDUCE, W_WORLD, 4, 0) < 0)
            return -1;
    } else if (strcmp(g->pattern, "uniform") == 0) {
        /* 32 identical buckets per step: only the pauses show the steps */
        for (k = 0; k < 32; k++, first = 0)
            if (add_op(g, C_ALLREDUCE, W_WORLD, 256 * 1024, first) < 0)
                return -1;
    } else if (strcmp(g->pattern, "sweep") == 0) {
        /* nccl-tests-like: 1 KiB .. 16 MiB on the world and node comms */
        for (k = 10; k <= 24; k++) {
            int rep;
            for (rep = 0; rep < 4; rep++, first = 0) {
                if (add_op(g, C_ALLREDUCE, W_WORLD, ldexp(1, k), first) < 0)
                    return -1;
                if (g->per_node > 1 &&
                    add_op(g, C_ALLREDUCE, W_NODE, ldexp(1, k), 0) < 0)
                    return -1;
            }
        }
    } else if (strcmp(g->pattern, "mixed") == 0) {
        static const enum coll world_colls[] = {
            C_ALLREDUCE, C_ALLGATHER, C_REDUCESCATTER, C_BROADCAST,
            C_ALLTOALL, C_ALLREDUCE};
        for (k = 0; k < 24; k++, first = 0)
            if (add_op(g, world_colls[k % 6], W_WORLD,
                       log_uniform(g, 256, 16 * 1048576.0), first) < 0)
                return -1;
        for (k = 0; k < 12 && g->per_node > 1; k++)
            if (add_op(g, C_ALLREDUCE, W_NODE,
                       log_uniform(g, 1024, 16 * 1048576.0), 0) < 0)
                return -1;
        if (add_op(g, C_SENDRECV, W_P2P, 1048576, 0) < 0 ||
            add_op(g, C_SENDRECV, W_P2P, 65536, 0) < 0)
            return -1;
    } else if (strcmp(g->pattern, "3d") == 0) {
        /* step3d(), not the op list */
    } else {
        fprintf(stderr, "gen_logs: unknown pattern '%s' (ddp-small, "
                        "ddp-large, mixed, sweep, uniform, 3d)\n", g->pattern);
        return -1;
    }
    return 0;
}

/* Calls one rank makes per step (its share of the pattern). */
static double calls_per_step(const struct gen *g)
{
    double c = 0;
    size_t i;

    for (i = 0; i < g->nops; i++)
        c += g->ops[i].where == W_P2P ? (g->ranks > g->per_node ? 2 : 0)
             : g->ops[i].where == W_NODE ? (g->per_node > 1)
                                         : 1;
    return c;
}

/* ---- options ---------------------------------------------------------------- */

static int parse_signed_time(const char *text, double *ns)
{
    struct cp_error e;
    double s;
    int neg = text[0] == '-';

    if (cp_units_parse_time(text + neg, &s, &e) < 0) {
        fprintf(stderr, "gen_logs: %s\n", e.text);
        return -1;
    }
    *ns = (neg ? -s : s) * 1e9;
    return 0;
}

static int parse_time(const char *text, double *seconds)
{
    struct cp_error e;
    if (cp_units_parse_time(text, seconds, &e) < 0) {
        fprintf(stderr, "gen_logs: %s\n", e.text);
        return -1;
    }
    return 0;
}

static int parse_bw(const char *text, double *bps)
{
    struct cp_error e;
    if (cp_units_parse_bandwidth(text, bps, &e) < 0 || !(*bps > 0)) {
        fprintf(stderr, "gen_logs: bad bandwidth '%s'\n", text);
        return -1;
    }
    return 0;
}

/* A whole decimal number in [lo, hi] for option name, else an error. */
static int parse_count(const char *name, const char *text, unsigned long long lo,
                       unsigned long long hi, unsigned long long *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(text, &end, 10);
    if (text[0] == '-' || text[0] == '\0' || *end != '\0' || errno != 0 ||
        v < lo || v > hi) {
        fprintf(stderr, "gen_logs: --%s '%s': a whole number from %llu to %llu "
                        "is needed\n", name, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Node or rank number before '=' in NAME=VALUE arguments. */
static int parse_index(const char *name, const char *text, unsigned *out)
{
    char num[32];
    const char *eq = strchr(text, '=');
    unsigned long long v;

    if (!eq || (size_t)(eq - text) >= sizeof num) {
        fprintf(stderr, "gen_logs: --%s '%s': NUMBER=VALUE is needed\n", name,
                text);
        return -1;
    }
    memcpy(num, text, (size_t)(eq - text));
    num[eq - text] = '\0';
    if (parse_count(name, num, 0, MAX_RANKS - 1, &v) < 0)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* --NAME RANK=T: one more delay of t (ns) for a rank. */
static int add_rank_time(const char *name, const char *text,
                         struct rank_times *t)
{
    unsigned idx;
    double sec;

    if (t->n == MAX_STRAGGLERS) {
        fprintf(stderr, "gen_logs: at most %d --%s\n", MAX_STRAGGLERS, name);
        return -1;
    }
    if (parse_index(name, text, &idx) < 0 ||
        parse_time(strchr(text, '=') + 1, &sec) < 0)
        return -1;
    t->rank[t->n] = (int)idx;
    t->ns[t->n++] = sec * 1e9;
    return 0;
}

/* Every rank of t below ranks, or an error naming the option. */
static int ranks_known(const char *name, const struct rank_times *t,
                       unsigned ranks)
{
    int k;

    for (k = 0; k < t->n; k++)
        if ((unsigned)t->rank[k] >= ranks) {
            fprintf(stderr, "gen_logs: --%s names rank %d of %u\n", name,
                    t->rank[k], ranks);
            return -1;
        }
    return 0;
}

/* The delay t plants on rank r (the last given for it), 0 without one. */
static double time_of(const struct rank_times *t, unsigned r)
{
    double ns = 0;
    int k;

    for (k = 0; k < t->n; k++)
        if (t->rank[k] == (int)r)
            ns = t->ns[k];
    return ns;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gen_logs -o DIR [--ranks 8] [--ranks-per-node 2]\n"
            "         [--steps 20 | --calls N] [--pattern ddp-small|ddp-large|"
            "mixed|sweep|uniform]\n"
            "         [--intra-alpha 5us] [--intra-bw 2GB/s] [--inter-alpha "
            "20us]\n"
            "         [--inter-bw 400MB/s] [--noise 0.05] [--outliers FRAC]\n"
            "         [--jitter T] [--gap 50us] [--step-gap 20ms]\n"
            "         [--clock-offset NODE=T]... [--straggler RANK=T]...\n"
            "         [--in-call RANK=T]... [--kernel-late RANK=T]...\n"
            "         [--slow-node NODE=FACTOR] [--failed N] [--job-id ID]\n"
            "         [--pid-base N] [--node-prefix P] [--seed S] "
            "[--truth FILE] [--swap] [--gpu] [--phases] [--format 4|3]\n"
            "         [--dp-size D] [--slow-link A,B=FACTOR]   (pattern 3d)\n");
}

/* What the job's shape asks for that this tool cannot honour. */
static int check_job(const struct gen *g)
{
    unsigned nodes = g->ranks / g->per_node;
    char name[64];

    if ((unsigned long long)g->pid_base + g->ranks > INT_MAX) {
        fprintf(stderr, "gen_logs: --pid-base %d + %u ranks is past the "
                        "largest pid\n", g->pid_base, g->ranks);
        return -1;
    }
    if (snprintf(name, sizeof name, "%s%u.example", g->prefix, nodes) >=
        CP_HDR_STR) {
        fprintf(stderr, "gen_logs: --node-prefix '%s' is too long for %u "
                        "nodes\n", g->prefix, nodes);
        return -1;
    }
    if (g->offset_nodes > nodes) {
        fprintf(stderr, "gen_logs: --clock-offset names node %u of %u\n",
                g->offset_nodes - 1, nodes);
        return -1;
    }
    if (ranks_known("straggler", &g->stragglers, g->ranks) < 0 ||
        ranks_known("in-call", &g->in_call, g->ranks) < 0 ||
        ranks_known("kernel-late", &g->kernel_late, g->ranks) < 0)
        return -1;
    if (g->slow_node >= 0 && (unsigned)g->slow_node >= nodes) {
        fprintf(stderr, "gen_logs: --slow-node names node %d of %u\n",
                g->slow_node, nodes);
        return -1;
    }
    if ((g->slow_a >= 0 && (unsigned)g->slow_a >= nodes) ||
        (g->slow_b >= 0 && (unsigned)g->slow_b >= nodes)) {
        fprintf(stderr, "gen_logs: --slow-link names a node past %u\n",
                nodes - 1);
        return -1;
    }
    return 0;
}

static int parse_args(struct gen *g, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"ranks", required_argument, NULL, 'r'},
        {"ranks-per-node", required_argument, NULL, 'g'},
        {"steps", required_argument, NULL, 's'},
        {"calls", required_argument, NULL, 'c'},
        {"pattern", required_argument, NULL, 'p'},
        {"intra-alpha", required_argument, NULL, 1},
        {"intra-bw", required_argument, NULL, 2},
        {"inter-alpha", required_argument, NULL, 3},
        {"inter-bw", required_argument, NULL, 4},
        {"noise", required_argument, NULL, 5},
        {"outliers", required_argument, NULL, 6},
        {"jitter", required_argument, NULL, 7},
        {"gap", required_argument, NULL, 8},
        {"step-gap", required_argument, NULL, 9},
        {"clock-offset", required_argument, NULL, 10},
        {"straggler", required_argument, NULL, 11},
        {"slow-node", required_argument, NULL, 12},
        {"failed", required_argument, NULL, 13},
        {"job-id", required_argument, NULL, 14},
        {"pid-base", required_argument, NULL, 15},
        {"seed", required_argument, NULL, 16},
        {"truth", required_argument, NULL, 17},
        {"node-prefix", required_argument, NULL, 18},
        {"swap", no_argument, NULL, 19},
        {"format", required_argument, NULL, 24},
        {"sync-bytes", required_argument, NULL, 27},
        {"gpu", no_argument, NULL, 22},
        {"phases", no_argument, NULL, 25},
        {"kernel-late", required_argument, NULL, 26},
        {"dp-size", required_argument, NULL, 20},
        {"slow-link", required_argument, NULL, 21},
        {"in-call", required_argument, NULL, 23},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    double s;
    unsigned long long v;
    unsigned idx;

    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        char *eq;
        switch (c) {
        case 'o': g->dir = optarg; break;
        case 'r':
            if (parse_count("ranks", optarg, 1, MAX_RANKS, &v) < 0)
                return -1;
            g->ranks = (unsigned)v;
            break;
        case 'g':
            if (parse_count("ranks-per-node", optarg, 1, MAX_RANKS, &v) < 0)
                return -1;
            g->per_node = (unsigned)v;
            break;
        case 's':
            if (parse_count("steps", optarg, 0, UINT32_MAX / 2, &v) < 0)
                return -1;
            g->steps = (unsigned)v;
            break;
        case 'c':
            if (parse_count("calls", optarg, 1, UINT32_MAX / 2, &v) < 0)
                return -1;
            g->calls = v;
            break;
        case 'p': g->pattern = optarg; break;
        case 1: if (parse_time(optarg, &g->alpha[0]) < 0) return -1; break;
        case 2: if (parse_bw(optarg, &g->bw[0]) < 0) return -1; break;
        case 3: if (parse_time(optarg, &g->alpha[1]) < 0) return -1; break;
        case 4: if (parse_bw(optarg, &g->bw[1]) < 0) return -1; break;
        case 5: g->noise = atof(optarg); break;
        case 6: g->outliers = atof(optarg); break;
        case 7:
            if (parse_time(optarg, &s) < 0)
                return -1;
            g->jitter = s * 1e9;
            break;
        case 8:
            if (parse_time(optarg, &s) < 0)
                return -1;
            g->gap = s * 1e9;
            break;
        case 9:
            if (parse_time(optarg, &s) < 0)
                return -1;
            g->step_gap = s * 1e9;
            break;
        case 10:
            if (parse_index("clock-offset", optarg, &idx) < 0)
                return -1;
            if (idx >= MAX_OFFSETS) {
                fprintf(stderr, "gen_logs: --clock-offset: nodes 0 to %d "
                                "only\n", MAX_OFFSETS - 1);
                return -1;
            }
            if (parse_signed_time(strchr(optarg, '=') + 1, &g->offset[idx]) < 0)
                return -1;
            if (idx + 1 > g->offset_nodes)
                g->offset_nodes = idx + 1;
            break;
        case 11:
            if (add_rank_time("straggler", optarg, &g->stragglers) < 0)
                return -1;
            break;
        case 23:
            if (add_rank_time("in-call", optarg, &g->in_call) < 0)
                return -1;
            break;
        case 12:
            if (parse_index("slow-node", optarg, &idx) < 0)
                return -1;
            eq = strchr(optarg, '=');
            g->slow_node = (int)idx;
            g->slow_factor = atof(eq + 1);
            break;
        case 13:
            if (parse_count("failed", optarg, 0, 1u << 20, &v) < 0)
                return -1;
            g->failed = (unsigned)v;
            break;
        case 14: g->job_id = optarg; break;
        case 15:
            if (parse_count("pid-base", optarg, 1, INT_MAX, &v) < 0)
                return -1;
            g->pid_base = (int)v;
            break;
        case 16: g->seed = strtoull(optarg, NULL, 0); break;
        case 17: g->truth = optarg; break;
        case 18: g->prefix = optarg; break;
        case 19: g->swap = 1; break;
        case 24:
            if (strcmp(optarg, "3") != 0 && strcmp(optarg, "4") != 0) {
                fprintf(stderr, "gen_logs: --format: '%s' is not 3 or 4\n",
                        optarg);
                return -1;
            }
            g->format = (unsigned)atoi(optarg);
            break;
        case 27:
            if (parse_count("sync-bytes", optarg, 0, CP_LOG4_SYNC_MAX, &v) < 0)
                return -1;
            if (v && (v < CP_LOG4_SYNC_MIN || (v & (v - 1)))) {
                fprintf(stderr, "gen_logs: --sync-bytes: '%s' is not 0 or a "
                                "power of two from 16 KiB\n", optarg);
                return -1;
            }
            g->sync_bytes = (uint32_t)v;
            break;
        case 22: g->gpu = 1; break;
        case 25: g->phases = 1; break;
        case 26:
            if (add_rank_time("kernel-late", optarg, &g->kernel_late) < 0)
                return -1;
            break;
        case 20:
            if (parse_count("dp-size", optarg, 1, MAX_RANKS, &v) < 0)
                return -1;
            g->dp_size = (unsigned)v;
            break;
        case 21:
            if (sscanf(optarg, "%d,%d=%lf", &g->slow_a, &g->slow_b,
                       &g->slow_link_factor) != 3 || g->slow_a < 0 ||
                g->slow_b < 0 || !(g->slow_link_factor > 0)) {
                fprintf(stderr, "gen_logs: --slow-link A,B=FACTOR\n");
                return -1;
            }
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (!g->dir || optind != argc) {
        usage(stderr);
        return -1;
    }
    if (g->ranks == 0 || g->per_node == 0 || g->ranks % g->per_node != 0) {
        fprintf(stderr, "gen_logs: --ranks must be a multiple of "
                        "--ranks-per-node\n");
        return -1;
    }
    return check_job(g);
}

static int write_truth(struct gen *g)
{
    FILE *f = fopen(g->truth, "w");
    unsigned k;

    if (!f) {
        fprintf(stderr, "gen_logs: %s: %s\n", g->truth, strerror(errno));
        return -1;
    }
    fprintf(f, "{\n  \"pattern\": \"%s\",\n  \"ranks\": %u,\n"
               "  \"ranks_per_node\": %u,\n  \"nodes\": %u,\n"
               "  \"steps\": %u,\n  \"calls_per_step\": %.0f,\n"
               "  \"calls\": %llu,\n  \"instances\": %llu,\n",
            g->pattern, g->ranks, g->per_node, g->nodes, g->steps,
            calls_per_step(g), (unsigned long long)g->calls_written,
            (unsigned long long)g->instances);
    fprintf(f, "  \"intra_alpha_s\": %.9g,\n  \"intra_bandwidth_Bps\": %.9g,\n"
               "  \"inter_alpha_s\": %.9g,\n  \"inter_bandwidth_Bps\": %.9g,\n",
            g->alpha[0], g->bw[0], g->alpha[1], g->bw[1]);
    fprintf(f, "  \"allreduce_busbw_factor\": %.9g,\n",
            2.0 * (g->ranks - 1) / g->ranks);
    fprintf(f, "  \"own_time_s\": %.9g,\n  \"latency_bound_s\": %.9g,\n"
               "  \"latency_share\": %.9g,\n",
            g->own_total, g->own_latency,
            g->own_total > 0 ? g->own_latency / g->own_total : 0);
    {
        /* what was written: the bounds of the run's call times on the
         * nodes' clocks, calls per rank, and a few ranks in detail (a
         * test dumps them and compares) */
        uint64_t lo = UINT64_MAX, hi = 0, cmin = UINT64_MAX, cmax = 0;
        unsigned sample[4] = {0, g->ranks / 3, g->ranks / 2, g->ranks - 1};
        for (k = 0; k < g->ranks; k++) {
            const struct rank *rk = &g->r[k];
            if (rk->calls && rk->first_start < lo)
                lo = rk->first_start;
            if (rk->calls && rk->last_end > hi)
                hi = rk->last_end;
            if (rk->calls < cmin)
                cmin = rk->calls;
            if (rk->calls > cmax)
                cmax = rk->calls;
        }
        fprintf(f, "  \"first_start_ns\": %llu,\n  \"last_end_ns\": %llu,\n"
                   "  \"calls_per_rank_min\": %llu,\n"
                   "  \"calls_per_rank_max\": %llu,\n  \"sample_ranks\": [",
                (unsigned long long)(lo == UINT64_MAX ? 0 : lo),
                (unsigned long long)hi, (unsigned long long)cmin,
                (unsigned long long)cmax);
        for (k = 0; k < 4; k++) {
            const struct rank *rk = &g->r[sample[k]];
            char path[4096];
            rank_path(g, sample[k], path, sizeof path);
            fprintf(f, "%s\n    {\"rank\": %u, \"file\": \"%s\", "
                       "\"calls\": %llu, \"first_start_ns\": %llu, "
                       "\"last_end_ns\": %llu}",
                    k ? "," : "", sample[k], strrchr(path, '/') + 1,
                    (unsigned long long)rk->calls,
                    (unsigned long long)rk->first_start,
                    (unsigned long long)rk->last_end);
        }
        fprintf(f, "],\n");
    }
    fprintf(f, "  \"straggler\": %d,\n  \"offsets\": {",
            g->stragglers.n ? g->stragglers.rank[0] : -1);
    for (k = 0; k < g->nodes; k++)
        fprintf(f, "%s\"%s%u\": %.9g", k ? ", " : "", g->prefix, k,
                k < MAX_OFFSETS ? g->offset[k] * 1e-9 : 0.0);
    fprintf(f, "}\n}\n");
    return fclose(f);
}

int main(int argc, char **argv)
{
    struct gen g;
    unsigned i, k, *world = NULL, *node = NULL;
    uint32_t *group_ids = NULL;
    size_t step, o;
    int rc = 1;

    memset(&g, 0, sizeof g);
    g.ranks = 8;
    g.per_node = 2;
    g.steps = 20;
    g.pattern = "ddp-small";
    g.alpha[0] = 5e-6;
    g.bw[0] = 2e9;
    g.alpha[1] = 20e-6;
    g.bw[1] = 400e6;
    g.noise = 0.05;
    g.jitter = -1; /* a quarter of alpha */
    g.gap = 50e3;
    g.step_gap = 20e6;
    g.slow_node = -1;
    g.slow_factor = 1;
    g.slow_a = g.slow_b = -1;
    g.slow_link_factor = 1;
    g.dp_size = 2;
    g.job_id = "1234";
    g.pid_base = 10000;
    g.seed = 1;
    g.prefix = "n";
    g.format = 4;
    g.sync_bytes = CP_LOG4_SYNC_DEFAULT;
    if (parse_args(&g, argc, argv) < 0)
        return 2;
    g.nodes = g.ranks / g.per_node;
    g.rng[0] = splitmix(&g.seed);
    g.rng[1] = splitmix(&g.seed);
    g.rng[2] = splitmix(&g.seed);
    g.rng[3] = splitmix(&g.seed);
    g.world_id = next_u64(&g) | 1;
    g.node_id_base = next_u64(&g) | 1;
    /* not from the generator: the other patterns' draws stay as they were */
    g.dp_id_base = (g.node_id_base * UINT64_C(0x9e3779b97f4a7c15)) | 1;
    if (strcmp(g.pattern, "3d") == 0 &&
        (g.dp_size == 0 || g.nodes % g.dp_size != 0)) {
        fprintf(stderr, "gen_logs: --dp-size must divide the nodes\n");
        goto out;
    }
    if (build_pattern(&g) < 0)
        goto out;
    if (g.calls > 0) {
        double per = calls_per_step(&g);
        if (!(per > 0)) {
            fprintf(stderr, "gen_logs: --calls needs a pattern with a fixed "
                            "number of calls per step (use --steps with "
                            "pattern %s)\n", g.pattern);
            goto out;
        }
        g.steps = (unsigned)ceil((double)g.calls / per);
    }
    if (cp_path_mkdir(g.dir, 0755) < 0) {
        fprintf(stderr, "gen_logs: %s: %s\n", g.dir, strerror(errno));
        goto out;
    }
    {
        struct rlimit rl;
        size_t per = BUFFER_BUDGET / g.ranks;
        per -= per % CP_LOG_RECORD_SIZE;
        g.buf_size = per < BUFFER_MIN ? BUFFER_MIN
                     : per > BUFFER_MAX ? BUFFER_MAX
                                        : per;
        /* one descriptor per rank only where the limit leaves room */
        g.keep_open = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
                      (rl.rlim_cur == RLIM_INFINITY ||
                       rl.rlim_cur >= (rlim_t)g.ranks + 64);
    }
    g.r = calloc(g.ranks, sizeof *g.r);
    world = calloc(g.ranks, sizeof *world);
    node = calloc(g.per_node, sizeof *node);
    group_ids = calloc(g.ranks, sizeof *group_ids);
    if (!g.r || !world || !node || !group_ids) {
        fprintf(stderr, "gen_logs: out of memory for %u ranks\n", g.ranks);
        goto out;
    }
    for (i = 0; i < g.ranks; i++)
        g.r[i].fd = -1;
    for (i = 0; i < g.ranks; i++) {
        struct rank *rk = &g.r[i];
        char path[4096];
        int fd;
        rk->node = i / g.per_node;
        world[i] = i;
        for (k = 0; k < MAX_PEERS; k++)
            rk->send[k].peer = rk->recv[k].peer = -1;
        rank_path(&g, i, path, sizeof path);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                  0644);
        rk->buf = malloc(g.buf_size);
        if (fd < 0 || !rk->buf) {
            fprintf(stderr, "gen_logs: %s: %s\n", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            goto out;
        }
        if (g.keep_open)
            rk->fd = fd;
        else
            close(fd);
        rk->delay = time_of(&g.stragglers, i);
        rk->in_call = time_of(&g.in_call, i);
        rk->kernel_late = time_of(&g.kernel_late, i);
        write_header(&g, i, 0);
        if (g.format == 4) {
            /* the ring, empty: zeros but cell 0's index (no slot is
             * ~0), up to the stream */
            static unsigned char ring[GEN_STREAM_OFFSET - CP_LOG_HEADER_SIZE];
            memset(ring, 0, sizeof ring);
            memset(ring, 0xff, 8);
            rank_write(&g, i, ring, sizeof ring, CP_LOG_HEADER_SIZE);
            cp_logenc_init(&rk->enc, CP_LOGENC_DICT_DEFAULT, ts(&g, rk, 0));
        }
        {
            union cp_rec rec;
            memset(&rec, 0, sizeof rec);
            rec.clock.realtime_ns = ts(&g, rk, 0);
            rec.clock.monotonic_ns = 1000000000;
            rec.kind = CP_REC_CLOCK;
            put(&g, rk, &rec);
        }
        rk->t = 1e6 * (1 + 0.1 * uniform(&g));
        comm_record(&g, i, CP_COMM_INIT_RANK, g.world_id, 0, g.ranks, i,
                    "world");
        if (g.per_node > 1)
            comm_record(&g, i, CP_COMM_SPLIT, g.node_id_base + rk->node,
                        g.world_id, g.per_node, i % g.per_node, "node");
        if (strcmp(g.pattern, "3d") == 0 && g.dp_size > 1) {
            unsigned t = i % g.per_node, st = rk->node / g.dp_size;
            comm_record(&g, i, CP_COMM_SPLIT, g.dp_id_base + t + g.per_node * st,
                        g.world_id, g.dp_size, rk->node % g.dp_size, "dp");
        }
    }
    for (k = 0; k < g.failed; k++)
        call_record(&g, 0, CP_OP_AllReduce, g.world_id, 16, UINT32_MAX, -1, 0,
                    g.ranks, 0, 0, 5, g.r[0].t, g.r[0].t + 2000);
    /* the initial broadcast of the parameters */
    {
        struct op init = {C_BROADCAST, W_WORLD, 4 * 1048576.0, 0};
        collective(&g, &init, world, g.ranks, g.world_id, 0, g.gap);
    }
    for (step = 0; step < g.steps; step++) {
        if (strcmp(g.pattern, "3d") == 0) {
            unsigned *m = calloc(g.ranks, sizeof *m);
            if (!m)
                goto out;
            step3d(&g, m);
            free(m);
            continue;
        }
        for (o = 0; o < g.nops; o++) {
            const struct op *op = &g.ops[o];
            double gap = op->gap_step ? g.step_gap : g.gap;
            if (op->where == W_WORLD) {
                collective(&g, op, world, g.ranks, g.world_id, 0, gap);
            } else if (op->where == W_NODE) {
                unsigned nd;
                for (nd = 0; nd < g.nodes; nd++) {
                    for (k = 0; k < g.per_node; k++)
                        node[k] = nd * g.per_node + k;
                    collective(&g, op, node, g.per_node, g.node_id_base + nd,
                               1, gap);
                }
            } else {
                p2p_exchange(&g, op, gap, group_ids);
            }
        }
    }
    for (i = 0; i < g.ranks && !g.failed_io; i++) {
        if (g.format == 4)
            close_block(&g, &g.r[i]);
        flush_rank(&g, i);
        write_header(&g, i, 1);
        if (g.r[i].fd >= 0 && close(g.r[i].fd) != 0 && !g.failed_io) {
            g.failed_io = 1;
            g.io_errno = errno;
        }
        g.r[i].fd = -1;
    }
    if (g.failed_io) {
        fprintf(stderr, "gen_logs: writing the logs in %s: %s\n", g.dir,
                strerror(g.io_errno));
        goto out;
    }
    if (g.too_long) {
        fprintf(stderr, "gen_logs: the run would last longer than %.0f days "
                        "of simulated time (fewer --steps/--calls, smaller "
                        "clock offsets); the logs in "
                        "%s are not usable\n", MAX_SPAN_NS / 86400e9, g.dir);
        goto out;
    }
    if (g.peers_full) {
        fprintf(stderr, "gen_logs: a rank has more than %d point-to-point "
                        "peers\n", MAX_PEERS);
        goto out;
    }
    if (g.truth && write_truth(&g) < 0)
        goto out;
    rc = 0;
out:
    if (g.r)
        for (i = 0; i < g.ranks; i++) {
            if (g.r[i].fd >= 0)
                close(g.r[i].fd);
            free(g.r[i].buf);
            cp_logenc_free(&g.r[i].enc);
        }
    free(g.r);
    free(g.ops);
    free(world);
    free(node);
    free(group_ids);
    return rc;
}
