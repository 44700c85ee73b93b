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
 *            [--duration D [--rate R] [--policy first=N,window=N,
 *             every=N,interval=T] [--hang RANK]]
 *
 * Faults may start at a time: --straggler RANK=T:from=T0,
 * --slow-node NODE=FACTOR:from=T0, --slow-link A,B=FACTOR:from=T0 and
 * --clock-offset NODE=T:from=T0 (a clock step: the node's clock reads
 * true time until T0, true time + T from then on); T0 in the units of
 * the other times or m (minutes), h, d.  Without from= a fault holds from
 * the start, as before.
 *
 * --duration D (7d, 24h, 90m, 600s) writes a long job directly in the
 * capture policy's folded form (cp_logfmt.h, "capture policy"; header flag
 * CP_HDR_POLICY and its policy_* fields) without producing every call:
 * steps of the pattern at --rate R calls per second per rank (default 1000)
 * for D.  --policy sets the policy's knobs (defaults CP_POLICY_*_DEFAULT:
 * first=65536, window=4096, every=1048576, interval=60s).  An instance
 * whose seq cp_policy_keeps is drawn and written as a call; every other
 * call takes a slot in a CP_LOG4_FOLD run and is counted into the aggregate
 * (kind 12, cp_rec_agg) of its signature and interval (CLOCK_REALTIME of
 * its node, [k x interval, (k + 1) x interval)), written when the rank's
 * next call is past the interval (the last ones at the end): calls, seq
 * range, first call's start, and min, median, p99, max and sum of durations
 * drawn from the same model as the detail calls (the section "--duration"
 * below).  The cost grows with the windows and the intervals (a week at
 * 1000 calls/s: 6e8 calls per rank in about a second), never with the
 * folded calls.  A fault's from= holds from the first step that starts at
 * or after it; a slow link (a pair of nodes adjacent in the world's ring,
 * rank order) slows the world's calls, a straggler arrives late at every
 * call, so that its own durations get shorter and its peers' longer.
 * --hang RANK ends the job hung: every rank but RANK inside the next world
 * call (a call record with end 0 in the ring, after the stream), RANK never
 * arriving, the logs not closed (SIGTERM).  --truth then adds the policy,
 * the steps, the detail and folded calls, the aggregates (their count,
 * and the bytes of their ops: aggregate_bytes) and their intervals, and
 * each fault (kind, where, from_s: its time rounded to its
 * step, from_ns on the T0 scale; the hang's comm and seq); its calls per
 * rank count the folded calls, its instances and own times only the detail
 * windows'.  The long form takes the patterns ddp-small, ddp-large,
 * uniform, sweep and mixed (its grouped send/recv exchanges folded as the
 * shim folds them: the calls into aggregates marked CP_AGG_GROUPED whose
 * durations are the group's interval, the group's record into the folded
 * run; the faults act on the collectives only) in format 4, and neither
 * --calls, --gpu, --phases, --in-call, --kernel-late nor --outliers; a
 * step that takes longer than the rate leaves it is an error (a lower
 * --rate).
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
    double delay_from;    /* from this true time on (:from=T), ns */
    double in_call;       /* delay inside each of its collectives, ns */
    double kernel_late;   /* its kernels' lag behind its calls, ns */
    double arrival, end;  /* of the current instance */
    /* format 4: the stream's state and the open block (at buf + used) */
    struct cp_logenc enc;
    size_t block_fill;
    uint64_t block_first, stream_bytes;
    uint32_t block_slots;
    uint64_t next_sync; /* the next sync point, from the stream's start */
    uint64_t agg_bytes; /* the ops of its aggregates (kind 12), templates
                           included */
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
    double from[MAX_STRAGGLERS]; /* :from=T: true time it starts, ns (0) */
};

struct gen {
    unsigned ranks, per_node, nodes, steps;
    uint64_t calls;
    const char *pattern, *dir, *truth, *job_id, *prefix;
    double alpha[2], bw[2]; /* 0 intra, 1 inter */
    double noise, outliers, jitter, gap, step_gap;
    double offset[MAX_OFFSETS]; /* per node, ns */
    double offset_from[MAX_OFFSETS]; /* a clock step: from this time, ns */
    int slow_node;
    double slow_factor;
    double slow_node_from, slow_link_from; /* :from=T, true time, ns */
    /* --duration: a long job in the capture policy's folded form */
    double duration, rate; /* ns of true time; calls per second per rank */
    uint32_t pol_first, pol_window, pol_every, pol_interval_ms;
    int hang;              /* --hang RANK: the others in flight at the end */
    int hang_rank;
    struct lng *lng;       /* the long form's state, NULL without */
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

static int put4_ops(struct gen *g, struct rank *rk, const unsigned char *op,
                    size_t n, uint32_t slots);

/* Format 4: the record's ops into the open block, a block at most
 * CP_LOG4_BLOCK_MAX or the rank's buffer. */
static int put4(struct gen *g, struct rank *rk, const union cp_rec *rec)
{
    unsigned char op[CP_LOGENC_MAX];
    size_t n;

    if (sync4(g, rk) < 0)
        return -1;
    n = cp_logenc_rec(&rk->enc, rec, rk->slots, op);
    if (rec->kind == CP_REC_AGG)
        rk->agg_bytes += n;

    if (g->swap && (op[0] == CP_LOG4_RAW || op[0] == CP_LOG4_TEMPLATE)) {
        /* a raw slot and a template as the writer wrote them (aligned
         * to swap) */
        union cp_rec raw;
        memcpy(&raw, op + 1, sizeof raw);
        cp_rec_swap(&raw);
        memcpy(op + 1, &raw, sizeof raw);
    }
    return put4_ops(g, rk, op, n, 1);
}

/* Format 4: n bytes of ops that hold `slots` slots into the open block (a
 * block at most CP_LOG4_BLOCK_MAX or the rank's buffer). */
static int put4_ops(struct gen *g, struct rank *rk, const unsigned char *op,
                    size_t n, uint32_t slots)
{
    size_t max = g->buf_size < CP_LOG4_BLOCK_MAX ? g->buf_size
                                                 : CP_LOG4_BLOCK_MAX;
    size_t hdr = sizeof(struct cp_log4_block);

    if (hdr + rk->block_fill + n > max ||
        (uint64_t)rk->block_slots + slots > UINT32_MAX)
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
    rk->block_slots += slots;
    rk->slots += slots;
    return 0;
}

/* Format 4: n (>= 1) slots the capture policy folded (CP_LOG4_FOLD ops of
 * at most 2^31 slots each). */
static int put4_fold(struct gen *g, struct rank *rk, uint64_t n)
{
    while (n > 0) {
        uint64_t k = n > (UINT64_C(1) << 31) ? (UINT64_C(1) << 31) : n;
        unsigned char op[16];
        size_t len;
        if (sync4(g, rk) < 0)
            return -1;
        len = cp_logenc_fold(k, op);
        if (put4_ops(g, rk, op, len, (uint32_t)k) < 0)
            return -1;
        n -= k;
    }
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
    double off = rk->node < MAX_OFFSETS && t >= g->offset_from[rk->node]
                     ? g->offset[rk->node]
                     : 0;
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
    if (g->duration > 0) {
        h.flags |= CP_HDR_POLICY;
        h.policy_first = g->pol_first;
        h.policy_window = g->pol_window;
        h.policy_every = g->pol_every;
        h.policy_interval_ms = g->pol_interval_ms;
    }
    if (final && g->hang) {
        /* a hung job killed at its time limit: never closed, the calls
         * in flight in the ring after the stream's slots */
        h.flags &= ~CP_HDR_CLOSED;
        h.term_signal = 15;
        h.term_realtime_ns = ts(g, rk, rk->t);
    }
    h.timer = CP_TIMER_HOST;
    h.pid = g->pid_base + (int)i;
    h.global_rank = (int)i;
    h.world_size = (int)g->ranks;
    h.local_rank = (int)(i % g->per_node);
    h.nccl_version = 22809;
    h.start_realtime_ns = ts(g, rk, 0);
    h.start_monotonic_ns = 1000000000;
    h.end_realtime_ns = final && !g->hang ? ts(g, rk, rk->t) + 1000 : 0;
    h.slots_used = final && !g->hang ? rk->slots : 0;
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
        SW32(h.policy_first); SW32(h.policy_window); SW32(h.policy_every);
        SW32(h.policy_interval_ms); SW32(h.term_signal);
        SW64(h.term_realtime_ns);
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
        rk->arrival = rk->t + gap * (0.8 + 0.4 * uniform(g)) +
                      (rk->t >= rk->delay_from ? rk->delay : 0);
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

    if (inter && touches_slow(g, m, p) && g->r[m[0]].t >= g->slow_node_from)
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
        rk->arrival = rk->t + gap * (0.8 + 0.4 * uniform(g)) +
                      (rk->t >= rk->delay_from ? rk->delay : 0);
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

    for (k = 0; k < p && inter && g->r[m[0]].t >= g->slow_link_from; k++)
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

    if (is_slow_pair(g, rs->node, rd->node) && rs->t >= g->slow_link_from)
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

/* A span of time: parse_time's units, and m (minutes), h and d. */
static int parse_span(const char *text, double *seconds)
{
    static const struct { const char *unit; double s; } long_units[] = {
        {"min", 60}, {"m", 60}, {"h", 3600}, {"d", 86400}};
    size_t n = strlen(text), k;

    for (k = 0; k < sizeof long_units / sizeof long_units[0]; k++) {
        size_t u = strlen(long_units[k].unit);
        char *end;
        double v;
        if (n <= u || strcmp(text + n - u, long_units[k].unit) != 0)
            continue;
        errno = 0;
        v = strtod(text, &end);
        if (end != text + n - u || errno != 0 || !(v >= 0) || v > 1e9) {
            fprintf(stderr, "gen_logs: bad time '%s'\n", text);
            return -1;
        }
        *seconds = v * long_units[k].s;
        return 0;
    }
    return parse_time(text, seconds);
}

/* Cut ":from=T" off arg (changed in place): the true time from which the
 * fault holds, ns since the run's origin; 0 (from the start) without. */
static int cut_from(const char *name, char *arg, double *from)
{
    char *c = strstr(arg, ":from=");
    double sec;

    *from = 0;
    if (!c)
        return 0;
    *c = '\0';
    if (parse_span(c + 6, &sec) < 0) {
        fprintf(stderr, "gen_logs: --%s: from= needs a time (3d, 12h, "
                        "90m, 600s)\n", name);
        return -1;
    }
    *from = sec * 1e9;
    return 0;
}

/* --NAME RANK=T[:from=T0]: one more delay of t (ns) for a rank, from T0
 * on. */
static int add_rank_time(const char *name, char *text, struct rank_times *t)
{
    unsigned idx;
    double sec, from;

    if (t->n == MAX_STRAGGLERS) {
        fprintf(stderr, "gen_logs: at most %d --%s\n", MAX_STRAGGLERS, name);
        return -1;
    }
    if (cut_from(name, text, &from) < 0 || parse_index(name, text, &idx) < 0 ||
        parse_time(strchr(text, '=') + 1, &sec) < 0)
        return -1;
    t->rank[t->n] = (int)idx;
    t->from[t->n] = from;
    t->ns[t->n++] = sec * 1e9;
    return 0;
}

/* --policy first=N,window=N,every=N,interval=T (any of them, in any
 * order; the others keep their defaults). */
static int parse_policy(struct gen *g, char *text)
{
    char *tok, *save = NULL;

    for (tok = strtok_r(text, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        unsigned long long v;
        double sec;
        if (!eq)
            goto bad;
        *eq++ = '\0';
        if (strcmp(tok, "first") == 0 || strcmp(tok, "window") == 0 ||
            strcmp(tok, "every") == 0) {
            if (parse_count("policy", eq, 0, UINT32_MAX, &v) < 0)
                return -1;
            *(tok[0] == 'f'   ? &g->pol_first
              : tok[0] == 'w' ? &g->pol_window
                              : &g->pol_every) = (uint32_t)v;
        } else if (strcmp(tok, "interval") == 0) {
            if (parse_span(eq, &sec) < 0)
                return -1;
            if (!(sec >= 1e-3 && sec * 1e3 <= UINT32_MAX)) {
                fprintf(stderr, "gen_logs: --policy interval=%s: from 1 ms "
                                "to 49 days\n", eq);
                return -1;
            }
            g->pol_interval_ms = (uint32_t)llround(sec * 1e3);
        } else {
            goto bad;
        }
    }
    if (g->pol_every && g->pol_window > g->pol_every) {
        fprintf(stderr, "gen_logs: --policy: a window longer than its "
                        "period (every)\n");
        return -1;
    }
    return 0;
bad:
    fprintf(stderr, "gen_logs: --policy first=N,window=N,every=N,"
                    "interval=T\n");
    return -1;
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

/* From when it holds (the last given for r), 0 without one. */
static double from_of(const struct rank_times *t, unsigned r)
{
    double from = 0;
    int k;

    for (k = 0; k < t->n; k++)
        if (t->rank[k] == (int)r)
            from = t->from[k];
    return from;
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
            "         [--dp-size D] [--slow-link A,B=FACTOR]   (pattern 3d)\n"
            "         [--duration D [--rate 1000] [--policy first=N,window=N,"
            "every=N,interval=T]\n"
            "          [--hang RANK]]   (a long job in the capture policy's "
            "folded form)\n"
            "faults from a time: --straggler RANK=T:from=T0, --slow-node "
            "NODE=F:from=T0,\n"
            "  --slow-link A,B=F:from=T0 (also the world's ring with "
            "--duration),\n"
            "  --clock-offset NODE=T:from=T0 (a clock step at T0); "
            "T0 like 3d, 12h, 90m, 600s\n"
            "--duration D: D of steps at --rate calls/s per rank; calls in "
            "the policy's\n"
            "  detail windows written, the others folded (CP_LOG4_FOLD) "
            "into an aggregate\n"
            "  (kind 12) per signature and interval; --policy defaults: "
            "first=%u,\n"
            "  window=%u, every=%u, interval=%us; --hang RANK: the others "
            "in flight at the end\n",
            CP_POLICY_FIRST_DEFAULT, CP_POLICY_WINDOW_DEFAULT,
            CP_POLICY_EVERY_DEFAULT, CP_POLICY_INTERVAL_MS_DEFAULT / 1000);
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
    if (g->hang && (unsigned)g->hang_rank >= g->ranks) {
        fprintf(stderr, "gen_logs: --hang names rank %d of %u\n",
                g->hang_rank, g->ranks);
        return -1;
    }
    if (g->hang && !(g->duration > 0)) {
        fprintf(stderr, "gen_logs: --hang goes with --duration\n");
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
        {"duration", required_argument, NULL, 28},
        {"rate", required_argument, NULL, 29},
        {"policy", required_argument, NULL, 30},
        {"hang", required_argument, NULL, 31},
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
            if (cut_from("clock-offset", optarg, &s) < 0 ||
                parse_index("clock-offset", optarg, &idx) < 0)
                return -1;
            if (idx >= MAX_OFFSETS) {
                fprintf(stderr, "gen_logs: --clock-offset: nodes 0 to %d "
                                "only\n", MAX_OFFSETS - 1);
                return -1;
            }
            if (parse_signed_time(strchr(optarg, '=') + 1, &g->offset[idx]) < 0)
                return -1;
            g->offset_from[idx] = s;
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
            if (cut_from("slow-node", optarg, &g->slow_node_from) < 0 ||
                parse_index("slow-node", optarg, &idx) < 0)
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
            if (cut_from("slow-link", optarg, &g->slow_link_from) < 0)
                return -1;
            if (sscanf(optarg, "%d,%d=%lf", &g->slow_a, &g->slow_b,
                       &g->slow_link_factor) != 3 || g->slow_a < 0 ||
                g->slow_b < 0 || !(g->slow_link_factor > 0)) {
                fprintf(stderr, "gen_logs: --slow-link A,B=FACTOR\n");
                return -1;
            }
            break;
        case 28:
            if (parse_span(optarg, &s) < 0)
                return -1;
            if (!(s > 0 && s * 1e9 < MAX_SPAN_NS)) {
                fprintf(stderr, "gen_logs: --duration '%s': more than 0, "
                                "less than %.0f days\n", optarg,
                        MAX_SPAN_NS / 86400e9);
                return -1;
            }
            g->duration = s * 1e9;
            break;
        case 29:
            g->rate = atof(optarg);
            if (!(g->rate > 0 && g->rate <= 1e7)) {
                fprintf(stderr, "gen_logs: --rate '%s': calls per second "
                                "per rank, more than 0 (at most 1e7)\n",
                        optarg);
                return -1;
            }
            break;
        case 30:
            if (parse_policy(g, optarg) < 0)
                return -1;
            break;
        case 31:
            if (parse_count("hang", optarg, 0, MAX_RANKS - 1, &v) < 0)
                return -1;
            g->hang = 1;
            g->hang_rank = (int)v;
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

/* ---- --duration: a long job in the capture policy's folded form ----------
 *
 * The job is steps of the pattern's calls at --rate calls per second per
 * rank: step s starts at t0 + s P (P = a rank's calls per step / rate),
 * and call j of a step arrives at its nominal place A[j] in it (the
 * medians of the calls before it, their jitter, the gaps and the latest
 * straggler's delay) plus the rank's own straggler delay.  An instance in
 * a detail window (cp_policy_keeps of its seq) is drawn and written as a
 * call: each member arrives within 0.2 gap of its nominal time, every
 * member ends at the last arrival + T + U(0, jitter), T the model's time
 * times exp(noise Z).  Every other call is only counted: its slot goes
 * into a CP_LOG4_FOLD run and the call into its signature's aggregate of
 * its interval (on its node's clock), whose durations are drawn from the
 * same model when the interval ends: min and max as the extremes of n
 * draws (the quantile at V^(1/n)), median and p99 with their sampling
 * spread, the sum with its mean's.  Steps between windows are counted per
 * interval and op, never per call.  A fault's from= holds from the first
 * step that starts at or after it (its true time rounded up to a step):
 * the epochs between the faults' times have a model each. */
#define LONG_MAX_EPOCHS 8
#define LONG_MAX_CHANGES (LONG_MAX_EPOCHS + MAX_OFFSETS)

struct lop {                  /* one call of a rank's step */
    enum coll coll;
    int node;                 /* 0: the world, 1: its node's communicator,
                                 2: a grouped send/recv exchange's */
    int p2p;                  /* node 2: 1 the send (one node up), 2 the
                                 receive (one node down), 3 the group's
                                 record (a slot, no call) */
    unsigned p;               /* members */
    uint64_t count;
    int32_t peer;
    uint32_t idx;             /* its place among its communicator's calls */
    unsigned sig;             /* its signature (equal calls share one) */
    double jit;               /* jitter of its ends, ns */
    double tmed[LONG_MAX_EPOCHS]; /* the model's time, ns */
    double off[LONG_MAX_EPOCHS];  /* A[j]: its nominal arrival in a step */
};

struct lacc {                 /* a signature's folded calls of an interval */
    uint64_t n[LONG_MAX_EPOCHS];
    uint32_t seq_first, seq_last;
    uint64_t first_ns;
    int used;
};

struct lrank {
    struct lacc *acc;         /* per signature */
    int64_t interval;         /* the open interval, -1 before the first */
    uint64_t fold;            /* folded slots not yet in an op */
    uint64_t folded, detail, aggs;
};

struct lng {
    struct lop *ops;
    unsigned nops, nsig;
    unsigned m[3];            /* a step's calls on the world, node comms,
                                 exchanges per peer and direction */
    uint32_t base[3];         /* step 0's first seq on them */
    double P, t0;             /* the step period and step 0's start, ns */
    uint64_t steps;
    double etime[LONG_MAX_EPOCHS]; /* epoch e holds from etime[e] */
    unsigned nepochs;
    uint64_t change[LONG_MAX_CHANGES]; /* steps where a model or clock
                                          changes */
    unsigned nchange;
    uint64_t interval_ns;
    struct lrank *r;
    uint64_t *pos;            /* scratch: per op */
    int64_t first_interval, last_interval;
    uint32_t hang_seq;
    uint64_t hang_ns;         /* the hung call's start (rank 0's clock) */
};

static double step_start(const struct lng *L, uint64_t s)
{
    return L->t0 + (double)s * L->P;
}

static unsigned epoch_of(const struct lng *L, uint64_t s)
{
    double t = step_start(L, s);
    unsigned e = 0;

    while (e + 1 < L->nepochs && L->etime[e + 1] <= t)
        e++;
    return e;
}

/* Rank r's straggler delay at true time t (the last given for it that
 * holds by then). */
static double delay_at(const struct gen *g, unsigned r, double t)
{
    double ns = 0;
    int k;

    for (k = 0; k < g->stragglers.n; k++)
        if (g->stragglers.rank[k] == (int)r && g->stragglers.from[k] <= t)
            ns = g->stragglers.ns[k];
    return ns;
}

/* The largest delay among the members of a communicator (the world, or
 * node nd's) at t, and how many members have it. */
static void comm_delays(const struct gen *g, double t, int node_comm,
                        unsigned nd, double *dm, unsigned *tied)
{
    unsigned lo = node_comm ? nd * g->per_node : 0,
             hi = node_comm ? lo + g->per_node : g->ranks, late = 0, at = 0;
    int k, j;

    *dm = 0;
    for (k = 0; k < g->stragglers.n; k++) {
        unsigned r = (unsigned)g->stragglers.rank[k];
        double d;
        for (j = 0; j < k && g->stragglers.rank[j] != (int)r; j++)
            ;
        if (j < k || r < lo || r >= hi) /* counted, or not a member */
            continue;
        d = delay_at(g, r, t);
        if (d > 0)
            late++;
        if (d > *dm) {
            *dm = d;
            at = 1;
        } else if (d == *dm && d > 0) {
            at++;
        }
    }
    *tied = *dm > 0 ? at : (hi - lo) - late;
}

/* The model's time of op o at true time t (its faults then), ns. */
static double long_model(const struct gen *g, const struct lop *o, double t)
{
    int inter = o->node != 1 && g->nodes > 1;
    double A, B, a = g->alpha[inter], b = 1e9 / g->bw[inter];

    if (o->node == 2) { /* an exchange: one transfer, no fault */
        terms(C_SENDRECV, 2, &A, &B);
        return A * a * 1e9 + B * bytes_of(C_SENDRECV, o->count, 2) * b;
    }
    if (inter && g->slow_node >= 0 && t >= g->slow_node_from)
        b *= g->slow_factor; /* the world touches every node */
    if (inter && g->slow_a >= 0 && t >= g->slow_link_from) {
        /* the world's ring, in rank order, joins nodes k and k + 1 and
         * the last to the first */
        int d = g->slow_a - g->slow_b;
        if (d == 1 || d == -1 ||
            (g->nodes > 2 && (unsigned)(d < 0 ? -d : d) == g->nodes - 1))
            b *= g->slow_link_factor;
    }
    terms(o->coll, o->p, &A, &B);
    return A * a * 1e9 + B * bytes_of(o->coll, o->count, o->p) * b;
}

static uint32_t long_seq(const struct lng *L, const struct lop *o, uint64_t s)
{
    return (uint32_t)(L->base[o->node] + s * L->m[o->node] + o->idx);
}

/* Whether rank i makes call o of a step (an exchange's send and receive
 * only where it has that peer; its record wherever it has either), and
 * the call's peer. */
static int lop_on(const struct gen *g, const struct lop *o, unsigned i,
                  int32_t *peer)
{
    *peer = o->peer;
    if (o->p2p == 1) {
        *peer = (int32_t)(i + g->per_node);
        return i + g->per_node < g->ranks;
    }
    if (o->p2p == 2) {
        *peer = (int32_t)i - (int32_t)g->per_node;
        return i >= g->per_node;
    }
    return 1;
}

/* The largest delay among rank i and its exchange's peers at t, and how
 * many of them have it. */
static void pair_delays(const struct gen *g, double t, unsigned i, double *dm,
                        unsigned *tied)
{
    unsigned m[3], n = 0, k;

    m[n++] = i;
    if (i + g->per_node < g->ranks)
        m[n++] = i + g->per_node;
    if (i >= g->per_node)
        m[n++] = i - g->per_node;
    *dm = 0;
    *tied = 0;
    for (k = 0; k < n; k++) {
        double d = delay_at(g, m[k], t);
        if (d > *dm) {
            *dm = d;
            *tied = 0;
        }
        if (d == *dm)
            (*tied)++;
    }
}

/* The first step at or after s with a call the policy keeps, UINT64_MAX
 * when none. */
static uint64_t next_detail_step(const struct gen *g, const struct lng *L,
                                 uint64_t s)
{
    uint64_t best = UINT64_MAX;
    int c;

    for (c = 0; c < 3; c++) {
        uint64_t q, kept;
        if (!L->m[c])
            continue;
        q = L->base[c] + s * L->m[c];
        if (q < g->pol_first)
            kept = q;
        else if (!g->pol_every || !g->pol_window)
            continue;
        else if (q % g->pol_every < g->pol_window)
            kept = q;
        else
            kept = q - q % g->pol_every + g->pol_every;
        if ((kept - L->base[c]) / L->m[c] < best)
            best = (kept - L->base[c]) / L->m[c];
    }
    return best;
}

/* Round a fault's time up to the start of the first step at or after it
 * (0 stays 0: from the start). */
static double long_round(const struct lng *L, double from)
{
    double cs;

    if (!(from > 0))
        return 0;
    cs = ceil((from - L->t0) / L->P);
    if (cs < 0)
        cs = 0;
    if (cs > (double)L->steps)
        cs = (double)L->steps;
    return step_start(L, (uint64_t)cs);
}

static void long_add_change(struct lng *L, double from)
{
    if (from > 0 && L->nchange < LONG_MAX_CHANGES)
        L->change[L->nchange++] =
            (uint64_t)llround((from - L->t0) / L->P);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The long form's plan, before anything is written: its ops, epochs,
 * steps, or an error naming what it cannot honour. */
static int long_setup(struct gen *g)
{
    struct lng *L = calloc(1, sizeof *L);
    double froms[LONG_MAX_EPOCHS + MAX_STRAGGLERS], cps = 0, tb;
    unsigned nf = 0, e, j, k;
    size_t i;

    if (!L)
        return -1;
    g->lng = L;
    L->first_interval = L->last_interval = -1;
    if (g->format != 4 || g->gpu || g->phases || g->in_call.n ||
        g->kernel_late.n || g->outliers > 0 || g->calls > 0 ||
        strcmp(g->pattern, "3d") == 0) {
        fprintf(stderr, "gen_logs: --duration writes format 4 of the "
                        "patterns ddp-small, ddp-large, uniform, sweep and "
                        "mixed, without --gpu, --phases, --in-call, --kernel-late, "
                        "--outliers and --calls\n");
        return -1;
    }
    if (!g->pol_interval_ms || !cp_policy_keeps(g->pol_first, g->pol_window,
                                                g->pol_every, 0)) {
        fprintf(stderr, "gen_logs: --policy: an interval of 0, or a policy "
                        "that keeps no first call\n");
        return -1;
    }
    L->interval_ns = (uint64_t)g->pol_interval_ms * 1000000u;
    L->ops = calloc(3 * g->nops + 1, sizeof *L->ops);
    L->pos = calloc(3 * g->nops + 1, sizeof *L->pos);
    if (!L->ops || !L->pos)
        return -1;
    L->base[0] = 1; /* seq 0: the initial broadcast */
    for (i = 0; i < g->nops; i++) {
        const struct op *op = &g->ops[i];
        struct lop *o = &L->ops[L->nops];
        if (op->where == W_P2P) {
            /* an exchange (p2p_exchange): a send one node up, a receive
             * one node down, in one group per rank, then its record */
            unsigned q, x = L->m[2]++;
            if (g->ranks <= g->per_node) {
                L->m[2]--;
                continue;
            }
            for (q = 1; q <= 3; q++) {
                o = &L->ops[L->nops];
                o->coll = C_SENDRECV;
                o->node = 2;
                o->p2p = (int)q;
                o->p = 2;
                o->count = count_of(C_SENDRECV, op->n, 2);
                o->peer = -1; /* the rank's own, at each use */
                o->idx = x;
                o->jit = 0.25 * g->alpha[g->nodes > 1] * 1e9;
                for (k = 0; k < L->nops; k++)
                    if (L->ops[k].node == 2 && L->ops[k].p2p == o->p2p &&
                        L->ops[k].count == o->count)
                        break;
                o->sig = q == 3 ? UINT_MAX
                         : k < L->nops ? L->ops[k].sig
                                       : L->nsig++;
                L->nops++;
                cps += q < 3;
            }
            continue;
        }
        if (op->where == W_NODE && g->per_node < 2)
            continue;
        o->coll = op->coll;
        o->node = op->where == W_NODE;
        o->p = o->node ? g->per_node : g->ranks;
        o->count = count_of(op->coll, op->n, o->p);
        o->peer = op->coll == C_BROADCAST || op->coll == C_REDUCE ? 0 : -1;
        o->idx = L->m[o->node]++;
        o->jit = g->jitter >= 0 ? g->jitter
                                : 0.25 * g->alpha[o->node != 1 && g->nodes > 1] *
                                      1e9;
        for (k = 0; k < L->nops; k++)
            if (L->ops[k].node == o->node && L->ops[k].coll == o->coll &&
                L->ops[k].count == o->count && L->ops[k].peer == o->peer)
                break;
        o->sig = k < L->nops ? L->ops[k].sig : L->nsig++;
        L->nops++;
        cps++;
    }
    if (!L->nops) {
        fprintf(stderr, "gen_logs: --duration: no calls in a step\n");
        return -1;
    }
    /* the initial broadcast (4 MiB) before step 0, its time twice */
    {
        struct lop b;
        memset(&b, 0, sizeof b);
        b.coll = C_BROADCAST;
        b.p = g->ranks;
        b.count = count_of(C_BROADCAST, 4 * 1048576.0, g->ranks);
        tb = long_model(g, &b, 0);
    }
    L->t0 = 2e6 + 2 * tb;
    L->P = cps * 1e9 / g->rate;
    if (g->duration <= L->t0 + L->P) {
        fprintf(stderr, "gen_logs: --duration is shorter than one step\n");
        return -1;
    }
    L->steps = (uint64_t)((g->duration - L->t0) / L->P);
    for (k = 0; k < 3; k++)
        if ((double)L->base[k] + (double)(L->steps + 1) * L->m[k] >
            (double)UINT32_MAX) {
            fprintf(stderr, "gen_logs: --duration: more than 2^32 calls "
                            "on a communicator (a shorter run or a lower "
                            "--rate)\n");
            return -1;
        }
    /* faults from a step's start; the epochs between them */
    g->slow_node_from = long_round(L, g->slow_node_from);
    g->slow_link_from = long_round(L, g->slow_link_from);
    if (g->slow_node >= 0 && g->slow_node_from > 0)
        froms[nf++] = g->slow_node_from;
    if (g->slow_a >= 0 && g->slow_link_from > 0)
        froms[nf++] = g->slow_link_from;
    for (k = 0; k < (unsigned)g->stragglers.n; k++) {
        g->stragglers.from[k] = long_round(L, g->stragglers.from[k]);
        if (g->stragglers.from[k] > 0)
            froms[nf++] = g->stragglers.from[k];
    }
    qsort(froms, nf, sizeof *froms, cmp_double);
    L->etime[0] = 0;
    L->nepochs = 1;
    for (k = 0; k < nf; k++) {
        if (froms[k] == L->etime[L->nepochs - 1])
            continue;
        if (L->nepochs == LONG_MAX_EPOCHS) {
            fprintf(stderr, "gen_logs: --duration: at most %d different "
                            "from= times\n", LONG_MAX_EPOCHS - 1);
            return -1;
        }
        L->etime[L->nepochs++] = froms[k];
    }
    for (e = 1; e < L->nepochs; e++)
        long_add_change(L, L->etime[e]);
    for (k = 0; k < MAX_OFFSETS; k++) {
        g->offset_from[k] = long_round(L, g->offset_from[k]);
        if (g->offset[k] != 0)
            long_add_change(L, g->offset_from[k]);
    }
    /* every epoch's model and a step's nominal places: the step must fit
     * its period */
    for (e = 0; e < L->nepochs; e++) {
        double dm = 0, at = 0;
        for (k = 0; k < g->ranks && k < MAX_RANKS; k++)
            if (g->stragglers.n && delay_at(g, k, L->etime[e]) > dm)
                dm = delay_at(g, k, L->etime[e]);
        for (j = 0; j < L->nops; j++) {
            struct lop *o = &L->ops[j];
            o->tmed[e] = long_model(g, o, L->etime[e]);
            o->off[e] = at;
            /* an exchange's receive and record: at its send's place, the
             * group's end after both (1 us of host calls) */
            if (o->p2p == 2 || o->p2p == 3) {
                o->off[e] = L->ops[j - 1].off[e];
                continue;
            }
            at += dm + o->tmed[e] * exp(2 * g->noise) + o->jit + g->gap +
                  (o->p2p ? 1000 : 0);
        }
        if (at > L->P) {
            fprintf(stderr, "gen_logs: --rate %g: a step of pattern %s "
                            "takes %.3f ms%s, more than the %.3f ms its %.0f "
                            "calls have at that rate (a lower --rate)\n",
                    g->rate, g->pattern, at * 1e-6,
                    e ? " with its faults" : "", L->P * 1e-6, cps);
            return -1;
        }
    }
    return 0;
}

/* The normal quantile: Acklam's rational approximation (relative error
 * below 1.2e-9), its lower tail's form for p below 0.02425. */
static double invnorm(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    double q, r;

    if (p < 1e-300)
        p = 1e-300;
    if (p >= 1)
        return 38;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
                c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425)
        return -invnorm(1 - p);
    q = p - 0.5;
    r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r +
            a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* A mixture of shifted lognormals (an interval's epochs): weight, shift,
 * log-median, sigma. */
struct piece {
    double w, shift, mu, s;
};

/* The mixture's quantile at p (lower: its lower tail p, else its upper
 * tail q = 1 - p, for precision near 1). */
static double mix_quantile(const struct piece *pc, unsigned n, double tail,
                           int lower)
{
    double lo = INFINITY, hi = -INFINITY, z = lower ? invnorm(tail)
                                                    : -invnorm(tail);
    unsigned k;
    int it;

    for (k = 0; k < n; k++) {
        double x = pc[k].shift + exp(pc[k].mu + pc[k].s * z);
        if (x < lo)
            lo = x;
        if (x > hi)
            hi = x;
    }
    if (n == 1 || hi - lo < 0.5)
        return lo;
    for (it = 0; it < 60; it++) {
        double x = 0.5 * (lo + hi), f = 0;
        for (k = 0; k < n; k++) {
            double v = x - pc[k].shift, zz;
            if (v <= 0) {
                f += lower ? 0 : pc[k].w;
                continue;
            }
            zz = pc[k].s > 0 ? (log(v) - pc[k].mu) / pc[k].s
                             : (log(v) >= pc[k].mu ? 1e300 : -1e300);
            f += pc[k].w * 0.5 * erfc((lower ? -zz : zz) / M_SQRT2);
        }
        if (lower ? f >= tail : f <= tail)
            hi = x;
        else
            lo = x;
    }
    return hi;
}

/* The open interval's aggregates of rank i: its folded slots first (they
 * come before), then one record per signature that folded calls, its
 * durations drawn for the calls' count from the model of their epochs. */
static int long_emit(struct gen *g, struct lng *L, unsigned i)
{
    struct rank *rk = &g->r[i];
    struct lrank *lr = &L->r[i];
    unsigned sg, j, e, written = 0;

    if (lr->fold) {
        if (put4_fold(g, rk, lr->fold) < 0)
            return -1;
        lr->fold = 0;
    }
    for (sg = 0; sg < L->nsig; sg++) {
        struct lacc *a = &lr->acc[sg];
        const struct lop *o = NULL;
        struct piece pc[LONG_MAX_EPOCHS];
        unsigned np = 0;
        uint64_t n = 0;
        double mean = 0, m2 = 0, v[4], sum, pm, pp;
        union cp_rec rec;
        if (!a->used)
            continue;
        for (j = 0; j < L->nops && !o; j++)
            if (L->ops[j].sig == sg)
                o = &L->ops[j];
        for (e = 0; e < L->nepochs; e++)
            n += a->n[e];
        for (e = 0; e < L->nepochs; e++) {
            double dm, d = delay_at(g, i, L->etime[e]), s2 = g->noise * g->noise,
                       mu, sh, pmean, pvar;
            unsigned tied;
            if (!a->n[e])
                continue;
            if (o->node == 2)
                pair_delays(g, L->etime[e], i, &dm, &tied);
            else
                comm_delays(g, L->etime[e], o->node, rk->node, &dm, &tied);
            sh = dm - d + g->gap * (0.4 * tied / (tied + 1.0) - 0.2) +
                 o->jit / 2;
            mu = log(o->tmed[e]);
            pc[np].w = (double)a->n[e] / (double)n;
            pc[np].shift = sh > 0 ? sh : 0;
            pc[np].mu = mu;
            pc[np].s = g->noise;
            pmean = pc[np].shift + exp(mu + s2 / 2);
            pvar = exp(2 * mu + s2) * (exp(s2) - 1);
            mean += pc[np].w * pmean;
            m2 += pc[np].w * (pvar + pmean * pmean);
            np++;
        }
        if (n == 1) {
            double u = uniform(g);
            v[0] = v[1] = v[2] = v[3] = sum =
                mix_quantile(pc, np, u < 0.5 ? u : 1 - u, u < 0.5);
        } else {
            double dn = (double)n, vmin = 1 - uniform(g),
                   vmax = 1 - uniform(g);
            v[0] = mix_quantile(pc, np, -expm1(log(vmin) / dn), 1);
            v[3] = mix_quantile(pc, np, -expm1(log(vmax) / dn), 0);
            pm = 0.5 + 0.5 * normal(g) / sqrt(dn);
            pp = 0.99 + sqrt(0.0099 / dn) * normal(g);
            pm = fmin(fmax(pm, 1 / (dn + 1)), dn / (dn + 1));
            pp = fmin(fmax(pp, 1 / (dn + 1)), dn / (dn + 1));
            v[1] = mix_quantile(pc, np, pm < 0.5 ? pm : 1 - pm, pm < 0.5);
            v[2] = mix_quantile(pc, np, pp < 0.5 ? pp : 1 - pp, pp < 0.5);
            v[1] = fmin(fmax(v[1], v[0]), v[3]);
            v[2] = fmin(fmax(v[2], v[1]), v[3]);
            sum = dn * mean +
                  sqrt(dn * fmax(m2 - mean * mean, 0)) * normal(g);
            sum = fmin(fmax(sum, dn * v[0]), dn * v[3]);
        }
        memset(&rec, 0, sizeof rec);
        rec.agg.op = (uint8_t)(op_code(o->coll, o->p2p == 2) |
                               (o->node == 2 ? CP_AGG_GROUPED : 0));
        rec.agg.dtype = DTYPE_F32;
        rec.agg.redop = o->coll == C_ALLREDUCE || o->coll == C_REDUCESCATTER ||
                                o->coll == C_REDUCE
                            ? 0
                            : CP_REDOP_NONE;
        lop_on(g, o, i, &rec.agg.peer);
        rec.agg.comm_id = o->node == 1 ? g->node_id_base + rk->node
                                       : g->world_id;
        rec.agg.count = o->count;
        rec.agg.calls = (uint32_t)n;
        rec.agg.seq_first = a->seq_first;
        rec.agg.seq_last = a->seq_last;
        for (j = 0; j < 4; j++)
            rec.agg.dur_q[j] = cp_q16_encode((uint64_t)llround(v[j]));
        rec.agg.interval_ms = g->pol_interval_ms;
        rec.agg.first_ns = a->first_ns;
        rec.agg.sum_ns = (uint64_t)llround(sum);
        rec.kind = CP_REC_AGG;
        if (put(g, rk, &rec) < 0)
            return -1;
        lr->aggs++;
        written++;
        memset(a, 0, sizeof *a);
    }
    if (lr->interval >= 0 && written) {
        if (L->first_interval < 0 || lr->interval < L->first_interval)
            L->first_interval = lr->interval;
        if (lr->interval > L->last_interval)
            L->last_interval = lr->interval;
    }
    return 0;
}

/* Rank i's next call starts at N on its node's clock: the interval it
 * opens closes the one before (its folded slots and aggregates out). */
static int long_advance(struct gen *g, struct lng *L, unsigned i, uint64_t N)
{
    struct lrank *lr = &L->r[i];
    int64_t k = (int64_t)(N / L->interval_ns);

    if (k > lr->interval) {
        if (lr->interval >= 0 && long_emit(g, L, i) < 0)
            return -1;
        lr->interval = k;
    }
    return 0;
}

static void long_acc(struct lng *L, struct lrank *lr, const struct lop *o,
                     unsigned e, uint64_t n, uint32_t s0, uint32_t s1,
                     uint64_t first)
{
    struct lacc *a = &lr->acc[o->sig];
    uint64_t open = (uint64_t)lr->interval * L->interval_ns;

    if (first < open)
        first = open; /* a call drawn a little before its interval */
    if (!a->used || s0 < a->seq_first)
        a->seq_first = s0;
    if (!a->used || s1 > a->seq_last)
        a->seq_last = s1;
    if (!a->used || first < a->first_ns)
        a->first_ns = first;
    a->used = 1;
    a->n[e] += n;
    lr->fold += n;
    lr->folded += n;
}

/* One instance drawn and written (a detail window) on members m[0..p). */
static int long_instance(struct gen *g, struct lng *L, const struct lop *o,
                         unsigned e, const unsigned *m, unsigned p,
                         double nominal, uint64_t comm, uint32_t seq)
{
    double last = 0, T;
    unsigned k;

    for (k = 0; k < p; k++) {
        struct rank *rk = &g->r[m[k]];
        double a = nominal + delay_at(g, m[k], L->etime[e]) +
                   g->gap * (0.4 * uniform(g) - 0.2);
        if (a < rk->t + 100)
            a = rk->t + 100;
        rk->arrival = a;
        if (a > last)
            last = a;
    }
    T = o->tmed[e] * exp(g->noise * normal(g));
    for (k = 0; k < p; k++) {
        struct rank *rk = &g->r[m[k]];
        struct lrank *lr = &L->r[m[k]];
        rk->end = last + T + o->jit * uniform(g);
        if (long_advance(g, L, m[k], ts(g, rk, rk->arrival)) < 0)
            return -1;
        if (lr->fold) {
            if (put4_fold(g, rk, lr->fold) < 0)
                return -1;
            lr->fold = 0;
        }
        call_record(g, m[k], op_code(o->coll, 0), comm, o->count, seq,
                    o->peer, k, p, 0, 0, 0, rk->arrival, rk->end);
        rk->t = rk->end;
        lr->detail++;
    }
    g->instances++;
    return 0;
}

/* The exchange whose send is op j in step s (p2p_exchange, at nominal
 * times): drawn and written when kept (both ends keep the same seq), else
 * its calls and its group's record folded. */
static int long_exchange(struct gen *g, struct lng *L, unsigned j, unsigned e,
                         double S0, uint64_t s, int keep)
{
    const struct lop *os = &L->ops[j], *orv = &L->ops[j + 1];
    unsigned i, R = g->ranks, G = g->per_node;
    uint32_t seq = long_seq(L, os, s);
    uint32_t gid = (uint32_t)(s * L->m[2] + os->idx + 1);

    for (i = 0; i < R; i++) {
        struct rank *rk = &g->r[i];
        double a = S0 + os->off[e] + delay_at(g, i, L->etime[e]);
        if (keep) {
            a += g->gap * (0.4 * uniform(g) - 0.2);
            if (a < rk->t + 100)
                a = rk->t + 100;
        }
        rk->arrival = rk->end = a;
    }
    if (!keep) {
        for (i = 0; i < R; i++) {
            struct rank *rk = &g->r[i];
            struct lrank *lr = &L->r[i];
            uint64_t N = ts(g, rk, rk->arrival);
            if (long_advance(g, L, i, N) < 0)
                return -1;
            if (i + G < R) {
                long_acc(L, lr, os, e, 1, seq, seq, N);
                rk->calls++;
            }
            if (i >= G) {
                long_acc(L, lr, orv, e, 1, seq, seq, N);
                rk->calls++;
            }
            lr->fold++; /* the group's record */
            rk->t = rk->arrival + os->tmed[e] + 1000;
        }
        return 0;
    }
    for (i = 0; i + G < R; i++) { /* the transfer i -> i + G */
        struct rank *sd = &g->r[i], *d = &g->r[i + G];
        double start = sd->arrival > d->arrival ? sd->arrival : d->arrival;
        double end = start + os->tmed[e] * exp(g->noise * normal(g));
        double es = end + os->jit * uniform(g), ed = end + os->jit * uniform(g);
        if (es > sd->end)
            sd->end = es;
        if (ed > d->end)
            d->end = ed;
    }
    for (i = 0; i < R; i++) {
        struct rank *rk = &g->r[i];
        struct lrank *lr = &L->r[i];
        double t = rk->arrival;
        unsigned ncalls = 0;
        union cp_rec rec;
        if (long_advance(g, L, i, ts(g, rk, t)) < 0)
            return -1;
        if (lr->fold) {
            if (put4_fold(g, rk, lr->fold) < 0)
                return -1;
            lr->fold = 0;
        }
        if (rk->end < t + 1000)
            rk->end = t + 1000;
        if (i + G < R) {
            call_record(g, i, CP_OP_Send, g->world_id, os->count, seq,
                        (int32_t)(i + G), i, R, gid, CP_CALL_IN_GROUP, 0, t,
                        t + 500);
            ncalls++;
        }
        if (i >= G) {
            call_record(g, i, CP_OP_Recv, g->world_id, orv->count, seq,
                        (int32_t)(i - G), i, R, gid, CP_CALL_IN_GROUP, 0,
                        t + 500, t + 1000);
            ncalls++;
        }
        memset(&rec, 0, sizeof rec);
        rec.group.group = gid;
        rec.group.ncalls = ncalls;
        rec.group.start_ns = ts(g, rk, rk->arrival);
        rec.group.end_ns = ts(g, rk, rk->end);
        rec.kind = CP_REC_GROUP;
        put(g, rk, &rec);
        if (ts(g, rk, rk->end) > rk->last_end)
            rk->last_end = ts(g, rk, rk->end);
        rk->t = rk->end;
        lr->detail += ncalls;
    }
    g->instances++;
    return 0;
}

/* Step s with a call some window keeps: its calls one by one. */
static int long_step(struct gen *g, struct lng *L, uint64_t s, unsigned *mem)
{
    unsigned e = epoch_of(L, s), j, nd, k;
    double S0 = step_start(L, s);

    for (j = 0; j < L->nops; j++) {
        const struct lop *o = &L->ops[j];
        uint32_t seq = long_seq(L, o, s);
        int keep = cp_policy_keeps(g->pol_first, g->pol_window, g->pol_every,
                                   seq);
        if (o->node == 2) {
            if (o->p2p == 1 && long_exchange(g, L, j, e, S0, s, keep) < 0)
                return -1;
            continue;
        }
        for (nd = 0; nd < (o->node ? g->nodes : 1); nd++) {
            uint64_t comm = o->node ? g->node_id_base + nd : g->world_id;
            for (k = 0; k < o->p; k++)
                mem[k] = o->node ? nd * g->per_node + k : k;
            if (keep) {
                if (long_instance(g, L, o, e, mem, o->p, S0 + o->off[e],
                                  comm, seq) < 0)
                    return -1;
                continue;
            }
            for (k = 0; k < o->p; k++) {
                struct rank *rk = &g->r[mem[k]];
                double t = S0 + o->off[e] + delay_at(g, mem[k], L->etime[e]);
                uint64_t N = ts(g, rk, t);
                if (long_advance(g, L, mem[k], N) < 0)
                    return -1;
                long_acc(L, &L->r[mem[k]], o, e, 1, seq, seq, N);
                rk->calls++;
                rk->t = t + o->tmed[e];
            }
        }
    }
    return 0;
}

/* Steps [s0, s1) of rank i, every call folded, one epoch and one clock
 * offset: counted per interval and op. */
static int long_fold_range(struct gen *g, struct lng *L, unsigned i,
                           uint64_t s0, uint64_t s1, unsigned e)
{
    struct rank *rk = &g->r[i];
    struct lrank *lr = &L->r[i];
    double d = delay_at(g, i, L->etime[e]), S = step_start(L, s0);
    double off = rk->node < MAX_OFFSETS && S >= g->offset_from[rk->node]
                     ? g->offset[rk->node]
                     : 0;
    uint64_t *pos = L->pos, ncalls = 0;
    unsigned j;
    int32_t peer;

    for (j = 0; j < L->nops; j++) {
        int on = lop_on(g, &L->ops[j], i, &peer);
        pos[j] = on ? s0 : s1;
        ncalls += on && L->ops[j].p2p != 3;
    }
    for (;;) {
        unsigned jn = 0, moved = 0;
        uint64_t B;
        double Brel;
        for (j = 1; j < L->nops; j++)
            if (pos[j] < pos[jn])
                jn = j;
        if (pos[jn] >= s1)
            break;
        if (long_advance(g, L, i,
                         ts(g, rk, step_start(L, pos[jn]) +
                                       L->ops[jn].off[e] + d)) < 0)
            return -1;
        B = (uint64_t)(lr->interval + 1) * L->interval_ns;
        Brel = (double)(int64_t)(B - T0_NS) - off;
        for (j = 0; j < L->nops; j++) {
            const struct lop *o = &L->ops[j];
            double x = ceil((Brel - o->off[e] - d - L->t0) / L->P);
            uint64_t sb = x <= (double)pos[j] ? pos[j]
                          : x >= (double)s1   ? s1
                                              : (uint64_t)x;
            if (j == jn && sb == pos[j] && !moved)
                sb = pos[j] + 1; /* a call on the boundary: never stuck */
            if (sb <= pos[j])
                continue;
            if (o->p2p == 3) { /* a group's record: a slot, no call */
                lr->fold += sb - pos[j];
                pos[j] = sb;
                moved = 1;
                continue;
            }
            long_acc(L, lr, o, e, sb - pos[j], long_seq(L, o, pos[j]),
                     long_seq(L, o, sb - 1),
                     ts(g, rk, step_start(L, pos[j]) + o->off[e] + d));
            pos[j] = sb;
            moved = 1;
        }
    }
    rk->calls += (s1 - s0) * ncalls;
    rk->t = step_start(L, s1 - 1) + L->ops[L->nops - 1].off[e] + d +
            L->ops[L->nops - 1].tmed[e];
    if (ts(g, rk, rk->t) > rk->last_end)
        rk->last_end = ts(g, rk, rk->t);
    return 0;
}

/* The long job: the initial broadcast, the steps, the last intervals'
 * aggregates and, with --hang, the calls in flight in the ring. */
static int run_long(struct gen *g, unsigned *world)
{
    struct lng *L = g->lng;
    uint64_t s = 0;
    unsigned i, k;

    L->r = calloc(g->ranks, sizeof *L->r);
    if (!L->r)
        return -1;
    L->first_interval = L->last_interval = -1;
    for (i = 0; i < g->ranks; i++) {
        L->r[i].interval = -1;
        L->r[i].acc = calloc(L->nsig, sizeof *L->r[i].acc);
        if (!L->r[i].acc)
            return -1;
    }
    {
        struct lop b;
        memset(&b, 0, sizeof b);
        b.coll = C_BROADCAST;
        b.p = g->ranks;
        b.count = count_of(C_BROADCAST, 4 * 1048576.0, g->ranks);
        b.jit = L->ops[0].jit;
        b.tmed[0] = long_model(g, &b, 0);
        if (long_instance(g, L, &b, 0, world, g->ranks, 1e6, g->world_id,
                          0) < 0)
            return -1;
    }
    while (s < L->steps && !g->failed_io) {
        uint64_t ns = next_detail_step(g, L, s);
        if (ns == s) {
            if (long_step(g, L, s, world) < 0)
                return -1;
            s++;
            continue;
        }
        if (ns > L->steps)
            ns = L->steps;
        while (s < ns) {
            uint64_t cut = ns;
            unsigned e = epoch_of(L, s);
            for (k = 0; k < L->nchange; k++)
                if (L->change[k] > s && L->change[k] < cut)
                    cut = L->change[k];
            for (i = 0; i < g->ranks; i++)
                if (long_fold_range(g, L, i, s, cut, e) < 0)
                    return -1;
            s = cut;
        }
    }
    for (i = 0; i < g->ranks; i++)
        if (long_emit(g, L, i) < 0)
            return -1;
    if (g->hang) {
        /* the next world call: every rank but the hung one entered it and
         * never returned (end 0), in the ring after the stream */
        const struct lop *o = NULL;
        double t = step_start(L, L->steps);
        for (k = 0; k < L->nops && !o; k++)
            if (L->ops[k].node == 0)
                o = &L->ops[k];
        L->hang_seq = long_seq(L, o, L->steps);
        for (i = 0; i < g->ranks; i++) {
            struct rank *rk = &g->r[i];
            union cp_rec rec;
            uint64_t slot = rk->slots, index = slot;
            off_t cell = CP_LOG_HEADER_SIZE + (off_t)(slot % GEN_RING) * 8;
            if ((int)i == g->hang_rank)
                continue;
            memset(&rec, 0, sizeof rec);
            rec.call.op = (uint8_t)op_code(o->coll, 0);
            rec.call.dtype = DTYPE_F32;
            rec.call.redop = o->coll == C_ALLREDUCE ? 0 : CP_REDOP_NONE;
            rec.call.timer = CP_TIMER_HOST;
            rec.call.comm_id = g->world_id;
            rec.call.count = o->count;
            rec.call.seq = L->hang_seq;
            rec.call.peer = o->peer;
            rec.call.rank = i;
            rec.call.nranks = g->ranks;
            rec.call.stream = 0x1234;
            rec.call.start_ns =
                ts(g, rk, t + o->off[epoch_of(L, L->steps)] + delay_at(g, i, t));
            rec.kind = CP_REC_CALL;
            if (i == 0 || !L->hang_ns)
                L->hang_ns = rec.call.start_ns;
            rk->t = t;
            if (g->swap) {
                cp_rec_swap(&rec);
                index = __builtin_bswap64(index);
            }
            rank_write(g, i, &index, sizeof index, cell);
            rank_write(g, i, &rec, sizeof rec,
                       CP_LOG_HEADER_SIZE + GEN_RING * 8 +
                           (off_t)(slot % GEN_RING) * CP_LOG_RECORD_SIZE);
            rk->calls++;
        }
    }
    return 0;
}

static void long_free(struct gen *g)
{
    struct lng *L = g->lng;
    unsigned i;

    if (!L)
        return;
    if (L->r)
        for (i = 0; i < g->ranks; i++)
            free(L->r[i].acc);
    free(L->r);
    free(L->ops);
    free(L->pos);
    free(L);
    g->lng = NULL;
}

/* The long form's truth: its shape, the policy, what was written, and
 * each fault with the time it was asked for and the time it holds from
 * (the first step at or after it: true time, and on the clock of node 0
 * and of its own node, ns). */
static void long_truth(const struct gen *g, FILE *f)
{
    const struct lng *L = g->lng;
    uint64_t folded = 0, detail = 0, aggs = 0, agg_bytes = 0;
    unsigned i, k;
    const char *sep = "";

    for (i = 0; i < g->ranks; i++) {
        folded += L->r[i].folded;
        detail += L->r[i].detail;
        aggs += L->r[i].aggs;
        agg_bytes += g->r[i].agg_bytes;
    }
    fprintf(f, "  \"duration_s\": %.9g,\n  \"rate\": %.9g,\n"
               "  \"policy\": {\"first\": %u, \"window\": %u, \"every\": %u, "
               "\"interval_ms\": %u},\n",
            g->duration * 1e-9, g->rate, g->pol_first, g->pol_window,
            g->pol_every, g->pol_interval_ms);
    fprintf(f, "  \"long_steps\": %llu,\n  \"step_period_s\": %.9g,\n"
               "  \"first_step_ns\": %llu,\n  \"signatures\": %u,\n"
               "  \"calls_detail\": %llu,\n  \"calls_folded\": %llu,\n"
               "  \"aggregates\": %llu,\n  \"aggregate_bytes\": %llu,\n"
               "  \"first_interval\": %lld,\n"
               "  \"last_interval\": %lld,\n",
            (unsigned long long)L->steps, L->P * 1e-9,
            (unsigned long long)(T0_NS + (uint64_t)llround(L->t0)), L->nsig,
            (unsigned long long)detail, (unsigned long long)folded,
            (unsigned long long)aggs, (unsigned long long)agg_bytes,
            (long long)L->first_interval,
            (long long)L->last_interval);
    fprintf(f, "  \"faults\": [");
#define FROM(t) (t) * 1e-9, (unsigned long long)(T0_NS + (uint64_t)llround(t))
    if (g->slow_a >= 0) {
        fprintf(f, "%s\n    {\"kind\": \"link\", \"nodes\": [\"%s%d\", "
                   "\"%s%d\"], \"factor\": %.9g, \"from_s\": %.9g, "
                   "\"from_ns\": %llu}",
                sep, g->prefix, g->slow_a, g->prefix, g->slow_b,
                g->slow_link_factor, FROM(g->slow_link_from));
        sep = ",";
    }
    if (g->slow_node >= 0) {
        fprintf(f, "%s\n    {\"kind\": \"slow_node\", \"node\": \"%s%d\", "
                   "\"factor\": %.9g, \"from_s\": %.9g, \"from_ns\": %llu}",
                sep, g->prefix, g->slow_node, g->slow_factor,
                FROM(g->slow_node_from));
        sep = ",";
    }
    for (k = 0; k < (unsigned)g->stragglers.n; k++) {
        fprintf(f, "%s\n    {\"kind\": \"straggler\", \"rank\": %d, "
                   "\"delay_s\": %.9g, \"from_s\": %.9g, \"from_ns\": %llu}",
                sep, g->stragglers.rank[k], g->stragglers.ns[k] * 1e-9,
                FROM(g->stragglers.from[k]));
        sep = ",";
    }
    for (k = 0; k < g->offset_nodes && k < MAX_OFFSETS; k++) {
        if (g->offset[k] == 0 || !(g->offset_from[k] > 0))
            continue;
        fprintf(f, "%s\n    {\"kind\": \"clock_step\", \"node\": \"%s%u\", "
                   "\"step_s\": %.9g, \"from_s\": %.9g, \"from_ns\": %llu}",
                sep, g->prefix, k, g->offset[k] * 1e-9,
                FROM(g->offset_from[k]));
        sep = ",";
    }
#undef FROM
    if (g->hang) {
        fprintf(f, "%s\n    {\"kind\": \"hang\", \"rank\": %d, "
                   "\"comm\": \"%016llx\", \"seq\": %u, \"at_ns\": %llu}",
                sep, g->hang_rank, (unsigned long long)g->world_id,
                L->hang_seq, (unsigned long long)L->hang_ns);
        sep = ",";
    }
    fprintf(f, "%s],\n", *sep ? "\n  " : "");
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
    if (g->lng)
        long_truth(g, f);
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
    g.rate = 1000;
    g.pol_first = CP_POLICY_FIRST_DEFAULT;
    g.pol_window = CP_POLICY_WINDOW_DEFAULT;
    g.pol_every = CP_POLICY_EVERY_DEFAULT;
    g.pol_interval_ms = CP_POLICY_INTERVAL_MS_DEFAULT;
    g.hang_rank = -1;
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
    if (g.duration > 0 && long_setup(&g) < 0)
        goto out;
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
        rk->delay_from = from_of(&g.stragglers, i);
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
    if (g.duration > 0) {
        if (run_long(&g, world) < 0) {
            fprintf(stderr, "gen_logs: out of memory\n");
            goto out;
        }
        g.steps = 0;
    } else {
        /* the initial broadcast of the parameters */
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
    long_free(&g);
    free(g.r);
    free(g.ops);
    free(world);
    free(node);
    free(group_ids);
    return rc;
}
