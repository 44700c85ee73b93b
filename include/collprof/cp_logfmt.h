/* cp_logfmt.h - the on-disk format of a collprof rank log.
 *
 * One header for the writer (preload/) and every reader (analyzer/).  The
 * format is described for people in docs/log-format.md; change both together
 * and bump CP_LOG_VERSION on any change of meaning.
 *
 * A log is one file per process that called NCCL:
 *   [ header: CP_LOG_HEADER_SIZE bytes ]
 *   [ slot 0 ][ slot 1 ] ...            each CP_LOG_RECORD_SIZE bytes
 * Every slot starts with a one-byte kind.  Kind 0 means "never written" (the
 * file grows in zero-filled chunks, and a process killed mid-run leaves the
 * tail of its last chunk unwritten); readers skip such slots.  The writer
 * stores the kind byte last, so a slot whose kind is non-zero is complete,
 * except a call record (kind 1) whose end_ns is 0: the call was entered and
 * had not returned (version 2; cp_rec_call_in_flight).
 * All integers are in the writer's byte order; `endian` tells readers which.
 *
 * Version 4 (the shim's logs; the plugin's stay at 3) keeps the same
 * records but not one 64-byte slot per record on disk: the calling thread
 * writes its slot into a ring of ring_slots cells at a fixed place in the
 * file, and the log thread encodes finished slots, in slot order, into a
 * compact stream of blocks appended after the ring (see "version 4"
 * below).  Readers decode both into the same sequence of slots.
 */
#ifndef COLLPROF_CP_LOGFMT_H
#define COLLPROF_CP_LOGFMT_H

#include <stddef.h>
#include <stdint.h>

#define CP_LOG_MAGIC "COLLPROF"  /* 8 bytes, no NUL */
#define CP_LOG_ENDIAN 0x01020304u /* reads 0x04030201 in the other order */
/* 1: a call's record was written when the call returned.
 * 2: it is written when the call is entered (end_ns 0) and completed when it
 *    returns; slots are in entry order.  A version-1 log reads the same.
 * 3: the NCCL profiler plugin's logs: header source/plugin_api/steps,
 *    record kinds 6-8; a version-2 log reads the same. */
/* 4: the shim's logs are a ring and a stream of blocks (below); the
 *    records are those of version 3, the slots numbered the same way. */
#define CP_LOG_VERSION 4u
/* The newest version with one 64-byte slot per record on disk (the
 * plugin's logs, and the shim's with COLLPROF_LOG_FORMAT=3). */
#define CP_LOG_VERSION_SLOTS 3u
#define CP_LOG_HEADER_SIZE 4096u
#define CP_LOG_RECORD_SIZE 64u
/* The most slots a log has.  Version 3: the writer's 16384 chunks of
 * 16384 slots (preload/cp_logwrite.h), 2^28.  Version 4 numbers slots
 * with a 64-bit counter and a capture policy's folded calls take numbers
 * without taking bytes (a week at 10,000 calls a second is 6 x 10^9):
 * 2^40.  Readers bound a size a node partial claims for a log by it;
 * nothing is allocated by it (runs of never-written slots are counted,
 * not expanded). */
#define CP_LOG_MAX_SLOTS ((uint64_t)1 << 40)
#define CP_LOG_SUFFIX ".cplog"

/* ---- the wrapped NCCL entry points --------------------------------------
 * One table.  Columns: NCCL name without the "nccl" prefix, stable op code
 * (stored in records: never renumber), lower-case name used in dumps and
 * reports.  The shim expands it with more columns (preload/cp_wrap_table.h).
 */
#define CP_OP_TABLE(X)                                                         \
    X(AllReduce, 1, "allreduce")                                               \
    X(Broadcast, 2, "broadcast")                                               \
    X(Bcast, 3, "bcast")                                                       \
    X(Reduce, 4, "reduce")                                                     \
    X(AllGather, 5, "allgather")                                               \
    X(ReduceScatter, 6, "reducescatter")                                       \
    X(AlltoAll, 7, "alltoall")                                                 \
    X(Gather, 8, "gather")                                                     \
    X(Scatter, 9, "scatter")                                                   \
    X(Send, 10, "send")                                                        \
    X(Recv, 11, "recv")                                                        \
    X(GroupStart, 12, "group_start")                                           \
    X(GroupEnd, 13, "group_end")                                               \
    X(CommInitRank, 16, "comm_init_rank")                                      \
    X(CommInitRankConfig, 17, "comm_init_rank_config")                         \
    X(CommInitAll, 18, "comm_init_all")                                        \
    X(CommSplit, 19, "comm_split")                                             \
    X(CommInitRankScalable, 20, "comm_init_rank_scalable")                     \
    X(CommShrink, 21, "comm_shrink")                                           \
    X(CommDestroy, 22, "comm_destroy")                                         \
    X(CommAbort, 23, "comm_abort")                                             \
    X(CommFinalize, 24, "comm_finalize")

enum cp_op {
    CP_OP_NONE = 0,
#define CP_X_ENUM(fn, code, name) CP_OP_##fn = code,
    CP_OP_TABLE(CP_X_ENUM)
#undef CP_X_ENUM
        CP_OP_MAX = 32
};

/* Record kinds (first byte of every slot). */
enum cp_rec_kind {
    CP_REC_EMPTY = 0, /* never written */
    CP_REC_CALL = 1,  /* a collective or point-to-point call */
    CP_REC_COMM = 2,  /* a communicator created, split, destroyed ... */
    CP_REC_GROUP = 3, /* the interval of an outermost GroupStart..GroupEnd */
    CP_REC_CLOCK = 4, /* a clock calibration pair */
    CP_REC_GPU = 5,   /* device start/end of an earlier call (GPU timers) */
    /* Written by NCCL's profiler plugin (libcollprof-nccl-profiler.so). */
    CP_REC_NCCL = 6,  /* what NCCL chose for a call: algorithm, protocol ... */
    CP_REC_PROXY = 7, /* one proxy operation: transfers to/from one peer */
    CP_REC_STEP = 8,  /* one network step of a proxy operation */
    CP_REC_TAG = 9,   /* plugin API v7: a call's user tag, kernel variant */
    CP_REC_PHASE = 10, /* plugin API v7: one phase of a kernel channel */
    CP_REC_LINK = 11, /* one call's transfers to one peer, every channel */
    /* Written by the shim's log thread under a capture policy. */
    CP_REC_AGG = 12,  /* calls of one signature folded over an interval */
    CP_REC_KIND_MAX = 13
};

/* Timers; stored in the header and in each call record. */
enum cp_timer {
    CP_TIMER_NONE = 0,
    CP_TIMER_HOST = 1,  /* wall clock around the blocking call */
    CP_TIMER_EVENT = 2, /* CUDA events on the call's stream */
    CP_TIMER_CUPTI = 3, /* CUPTI kernel activity records */
    CP_TIMER_KERNEL_CH = 4 /* NCCL's kernel-channel GPU timestamps (plugin) */
};

/* Who wrote a log (cp_log_header.source). */
enum cp_log_source {
    CP_SOURCE_SHIM = 0,  /* libcollprof.so (also every version 1 log) */
    CP_SOURCE_PLUGIN = 1 /* libcollprof-nccl-profiler.so */
};

/* Proxy steps in a plugin log (cp_log_header.steps). */
enum cp_step_mode {
    CP_STEPS_NONE = 0,       /* not a plugin log */
    CP_STEPS_ALL = 1,        /* a kind 8 record for every step */
    CP_STEPS_BUDGET = 2,     /* per step until the budget ran out, then only
                                the per-operation aggregates of kind 7 */
    CP_STEPS_AGGREGATE = 3,  /* only the per-operation aggregates (kind 7) */
    CP_STEPS_LINKS = 4       /* only per call and peer (kind 11, sends): the
                                plugin's default */
};

/* Call flags. */
#define CP_CALL_IN_GROUP 0x0001u  /* issued inside GroupStart..GroupEnd */
#define CP_CALL_INPLACE 0x0002u   /* sendbuff == recvbuff (or the in-place slot) */
#define CP_CALL_NO_COMM 0x0004u   /* the communicator was not known to the shim */
#define CP_CALL_FUSED 0x0008u     /* shares a device interval with other calls */
#define CP_CALL_CAPTURED 0x0010u  /* captured into a CUDA graph */
#define CP_CALL_INCOMPLETE 0x0020u /* device end never observed */

#define CP_REDOP_NONE 0xffu    /* the call has no reduction */
#define CP_REDOP_CUSTOM 0xfeu  /* a user-created reduction (PreMulSum ...) */
#define CP_DTYPE_NONE 0xffu

/* A collective or point-to-point call.  64 bytes. */
struct cp_rec_call {
    uint8_t kind;      /* CP_REC_CALL */
    uint8_t op;        /* enum cp_op */
    uint8_t dtype;     /* ncclDataType_t, or CP_DTYPE_NONE */
    uint8_t redop;     /* ncclRedOp_t for built-ins, CP_REDOP_* otherwise */
    int8_t result;     /* ncclResult_t the real call returned */
    uint8_t timer;     /* enum cp_timer that produced start/end */
    uint16_t flags;    /* CP_CALL_* */
    uint64_t comm_id;  /* communicator id, equal on every member */
    uint64_t count;    /* the call's count argument, in elements */
    uint32_t seq;      /* collectives: per-communicator sequence;
                          send/recv: per (communicator, peer, direction) */
    int32_t peer;      /* root (rooted collectives) or peer (send/recv), -1 */
    uint32_t rank;     /* this process's rank in the communicator */
    uint32_t nranks;   /* the communicator's size */
    uint32_t group;    /* process-wide id of the enclosing group, 0 = none */
    uint32_t stream;   /* a 32-bit fold of the stream handle */
    uint64_t start_ns; /* CLOCK_REALTIME at entry (the host enqueue time) */
    uint64_t end_ns;   /* CLOCK_REALTIME at return; 0: not returned (yet).
                          Written last: result and flags are final once it
                          is non-zero */
};

/* A call that was entered and never returned (version 2: the writer stores
 * the record before the real call and end_ns when it returns; a version-1
 * log never holds one). */
static inline int cp_rec_call_in_flight(const struct cp_rec_call *c)
{
    return c->end_ns == 0;
}

/* How a communicator event came about (cp_rec_comm.how). */
enum cp_comm_how {
    CP_COMM_INIT_RANK = 1,
    CP_COMM_INIT_RANK_CONFIG = 2,
    CP_COMM_INIT_ALL = 3,
    CP_COMM_SPLIT = 4,
    CP_COMM_INIT_SCALABLE = 5,
    CP_COMM_SHRINK = 6,
    CP_COMM_DESTROY = 7,
    CP_COMM_ABORT = 8,
    CP_COMM_FINALIZE = 9
};

#define CP_COMM_NAME_LEN 16

/* A communicator event.  64 bytes. */
struct cp_rec_comm {
    uint8_t kind;      /* CP_REC_COMM */
    uint8_t how;       /* enum cp_comm_how */
    int8_t result;     /* ncclResult_t of the real call */
    uint8_t reserved0;
    int32_t cuda_dev;  /* -1 when unknown */
    uint64_t comm_id;
    uint64_t parent_id; /* split/shrink: the parent's id; else 0 */
    uint32_t nranks;
    uint32_t rank;
    int32_t color; /* split: color; shrink: number of excluded ranks */
    int32_t key;   /* split: key */
    uint64_t time_ns; /* CLOCK_REALTIME when the call returned */
    char name[CP_COMM_NAME_LEN]; /* config->commName, NUL-padded, may be full */
};

/* The interval of an outermost group.  64 bytes. */
struct cp_rec_group {
    uint8_t kind; /* CP_REC_GROUP */
    int8_t result; /* ncclResult_t of the outermost GroupEnd */
    uint16_t reserved0;
    uint32_t group;  /* the id the calls inside carry */
    uint32_t ncalls; /* calls recorded inside */
    uint32_t reserved1;
    uint64_t start_ns; /* CLOCK_REALTIME at the outermost GroupStart */
    uint64_t end_ns;   /* CLOCK_REALTIME when the outermost GroupEnd returned */
    uint8_t reserved2[32];
};

/* A clock calibration pair, taken at open, periodically and at close. */
struct cp_rec_clock {
    uint8_t kind; /* CP_REC_CLOCK */
    uint8_t reserved0[7];
    uint64_t realtime_ns;
    uint64_t monotonic_ns;
    uint64_t gpu_ns; /* 0 when no device clock was read */
    uint8_t reserved1[32];
};

/* Device start/end for the call in slot `slot` (GPU timers only).  64 bytes. */
struct cp_rec_gpu {
    uint8_t kind; /* CP_REC_GPU */
    uint8_t timer;
    uint16_t flags; /* CP_CALL_FUSED, CP_CALL_INCOMPLETE ... */
    uint32_t reserved0;
    uint64_t slot;
    uint64_t start_ns; /* on the CLOCK_REALTIME scale */
    uint64_t end_ns;
    uint8_t reserved1[32];
};

/* NCCL's algorithm and protocol, as the plugin names them (cp_rec_nccl). */
#define CP_NCCL_ALGO_TABLE(X)                                                  \
    X(0, "unknown") X(1, "Ring") X(2, "Tree") X(3, "CollnetDirect")            \
    X(4, "CollnetChain") X(5, "NVLS") X(6, "NVLSTree") X(7, "PAT")
#define CP_NCCL_PROTO_TABLE(X)                                                 \
    X(0, "unknown") X(1, "LL") X(2, "LL128") X(3, "Simple")

/* cp_rec_nccl.flags */
#define CP_NCCL_GRAPH 0x0001u   /* launched from a CUDA graph (plugin API v5+) */
#define CP_NCCL_P2P 0x0002u     /* a send/recv task (algo/proto unknown) */
#define CP_NCCL_NO_KERNEL 0x0004u /* no kernel-channel interval was seen */
#define CP_NCCL_DAMAGED_TIME 0x0008u /* a kernel channel's GPU time was 0 or
                                        ran backwards: no interval written */
#define CP_NCCL_CE 0x0010u /* a copy-engine collective (plugin API v6+),
                              timed from its start to its stop */

/* What NCCL decided for the call in slot `slot` (plugin logs).  64 bytes. */
struct cp_rec_nccl {
    uint8_t kind;      /* CP_REC_NCCL */
    uint8_t algo;      /* CP_NCCL_ALGO_TABLE code */
    uint8_t proto;     /* CP_NCCL_PROTO_TABLE code */
    uint8_t nchannels; /* channels NCCL used */
    uint8_t nwarps;    /* warps per block (collectives), 0 for p2p */
    uint8_t api;       /* the ncclProfiler_vN NCCL called (3 .. 6) */
    uint16_t flags;    /* CP_NCCL_* */
    uint64_t slot;     /* the call record (kind 1) in this file */
    uint64_t comm_id;  /* as in the call record */
    uint64_t nccl_seq; /* NCCL's own sequence number (per communicator and
                          collective function); UINT64_MAX for p2p */
    uint32_t seq;      /* the call record's seq, repeated for joins */
    uint16_t kernel_channels; /* kernel-channel events seen */
    uint8_t op;               /* the call's op code, repeated */
    uint8_t reserved0;
    uint64_t gpu_start_raw;   /* earliest kernel-channel start, GPU timer ns */
    uint64_t gpu_end_raw;     /* latest kernel-channel stop, GPU timer ns */
    uint64_t bytes;           /* the call's count x element size */
};

/* cp_rec_proxy.dir / cp_rec_step.dir */
#define CP_PROXY_SEND 1u
#define CP_PROXY_RECV 2u

/* One proxy operation: the transfers of one call to or from one peer on one
 * channel.  Its busy time is the sum over its steps of posted -> done, the
 * aggregate that stays when per-step records are over budget.  64 bytes. */
struct cp_rec_proxy {
    uint8_t kind;     /* CP_REC_PROXY */
    uint8_t dir;      /* CP_PROXY_SEND or CP_PROXY_RECV */
    uint8_t channel;  /* NCCL channel */
    uint8_t reserved0;
    int32_t peer;     /* the peer's rank in the communicator */
    uint64_t comm_id;
    uint64_t slot;    /* the call record (kind 1) in this file, or
                         UINT64_MAX when the parent call was not seen */
    uint64_t bytes;   /* bytes moved by the steps that completed */
    uint64_t start_ns; /* CLOCK_REALTIME when the operation started */
    uint64_t end_ns;   /* and stopped */
    uint64_t busy_ns;  /* sum of posted -> done over its steps */
    uint16_t nsteps;   /* steps NCCL announced (saturated at 65535) */
    uint16_t steps_done; /* steps seen to complete (saturated) */
    uint32_t min_step_ns; /* the fastest step's posted -> done (saturated),
                             0 when no step completed: the step time least
                             disturbed by anything but the wire */
};

/* One network step of a proxy operation (per-step mode).  64 bytes. */
struct cp_rec_step {
    uint8_t kind; /* CP_REC_STEP */
    uint8_t dir;  /* CP_PROXY_SEND or CP_PROXY_RECV */
    uint8_t channel;
    uint8_t reserved0;
    int32_t peer;
    uint64_t proxy_slot; /* the proxy operation (kind 7) in this file */
    uint32_t step;       /* the step's number in the operation */
    uint32_t reserved1;
    uint64_t bytes;      /* bytes of the step */
    uint64_t start_ns;   /* CLOCK_REALTIME when the step began (waiting for
                            the GPU's data or for a receive buffer) */
    uint64_t posted_ns;  /* handed to the network */
    uint64_t done_ns;    /* the network reported it complete */
    uint64_t reserved2;
};

/* One call's sends to one peer over every channel and proxy operation
 * (the plugin's default, CP_STEPS_LINKS): the link evidence of kinds 7
 * and 8 in one record.  A receive is the same transfer seen from the
 * other end (its sender's log holds it), so only sends are written.
 * 64 bytes. */
struct cp_rec_link {
    uint8_t kind;     /* CP_REC_LINK */
    uint8_t dir;      /* CP_PROXY_SEND (CP_PROXY_RECV is allowed) */
    uint8_t channels; /* proxy operations merged (saturated at 255) */
    uint8_t reserved0;
    int32_t peer;     /* the peer's rank in the communicator */
    uint64_t comm_id;
    uint32_t back;    /* the call record (kind 1) is this record's slot
                         minus back; 0 when the parent call was not seen */
    uint32_t steps;   /* steps seen to complete */
    uint64_t bytes;   /* bytes moved by the steps that completed */
    uint64_t first_ns; /* CLOCK_REALTIME: the first step handed to the
                          network */
    uint64_t last_ns;  /* the last step reported done (0: none) */
    uint64_t busy_ns;  /* sum of posted -> done over the steps */
    uint32_t min_step_ns; /* the fastest step's posted -> done (saturated;
                             0 when none completed): the step least
                             disturbed by anything but the wire */
    uint32_t max_step_ns; /* the slowest step's (saturated) */
};

/* cp_rec_tag.flags */
#define CP_TAG_SYMMETRIC 0x01u /* NCCL ran it as a symmetric collective */
#define CP_TAG_CE 0x02u        /* a copy-engine collective */
#define CP_TAG_VARIANT_LEN 40

/* What plugin API v7 says of the call in slot `slot`: the application's
 * tag and the kernel NCCL launched for it.  64 bytes. */
struct cp_rec_tag {
    uint8_t kind;  /* CP_REC_TAG */
    uint8_t flags; /* CP_TAG_* */
    uint16_t reserved0;
    uint32_t seq;      /* the call record's seq, repeated */
    uint64_t slot;     /* the call record (kind 1) in this file */
    uint64_t user_tag; /* ncclCollConfig_t's userProfilerTag; 0 untagged */
    char kernel_variant[CP_TAG_VARIANT_LEN]; /* NUL-padded, may fill it */
};

/* cp_rec_phase.flags */
#define CP_PHASE_DAMAGED 0x0001u /* a GPU time 0 or backwards: no duration */

/* One phase of one kernel channel of the call in slot `slot` (plugin API
 * v7): CP_NCCL_PHASE_* 0 initial sync (the kernel waiting for its peers),
 * 1 compute, 2 final sync.  64 bytes. */
struct cp_rec_phase {
    uint8_t kind;    /* CP_REC_PHASE */
    uint8_t channel; /* NCCL channel */
    uint8_t phase;   /* phaseId */
    uint8_t reserved0;
    uint16_t flags;  /* CP_PHASE_* */
    uint16_t reserved1;
    uint64_t slot;          /* the call record (kind 1) in this file */
    uint64_t comm_id;
    uint32_t seq;           /* the call record's seq, repeated */
    uint32_t reserved2;
    uint64_t gpu_start_raw; /* GPU global timer, ns */
    uint64_t gpu_end_raw;
    uint64_t start_ns;      /* the same on the CLOCK_REALTIME scale (the */
    uint64_t end_ns;        /* offset known when written; 0: none yet) */
};

/* The capture policy (header flag CP_HDR_POLICY; docs/capture-policy.md).
 * A call is kept in detail when its instance is in a detail window:
 *   seq < first, or seq % every < window            (every > 0)
 * a rule of the sequence number alone, so that every member of a
 * communicator (both ends of a send/recv pair) keeps the same instances;
 * and a window a slow step opened (the time between two instances' ends,
 * the same on every member: docs/capture-policy.md, "Triggered
 * windows").
 * The log thread folds every other finished, successful, host-timed call
 * into the aggregate of its signature and interval (cp_rec_agg): an
 * interval is [k x interval_ms, (k + 1) x interval_ms) of CLOCK_REALTIME
 * from the epoch, the same on every rank.  The ring still holds the last
 * calls and every call in flight. */
#define CP_POLICY_FIRST_DEFAULT (1u << 16)
#define CP_POLICY_WINDOW_DEFAULT (1u << 12)
#define CP_POLICY_EVERY_DEFAULT (1u << 20)
#define CP_POLICY_INTERVAL_MS_DEFAULT 60000u

static inline int cp_policy_keeps(uint32_t first, uint32_t window,
                                  uint32_t every, uint32_t seq)
{
    return seq < first || (every > 0 && seq % every < window);
}

/* A duration in 16 bits (cp_rec_agg.dur_q): codes below 1024 are the
 * value itself; code c above is (1024 + (c & 1023)) << ((c >> 10) - 1),
 * the value rounded down to 1/1024 of itself; values past 2^63
 * saturate. */
static inline uint16_t cp_q16_encode(uint64_t v)
{
    unsigned e = 0;

    if (v < 1024)
        return (uint16_t)v;
    while ((v >> e) >= 2048)
        e++;
    if (e > 52)
        return (uint16_t)((53u << 10) | 1023u); /* the largest, saturated */
    return (uint16_t)(((e + 1) << 10) | ((v >> e) & 1023u));
}

static inline uint64_t cp_q16_decode(uint16_t c)
{
    unsigned e = c >> 10;

    if (e == 0)
        return c;
    return (uint64_t)(1024u + (c & 1023u)) << (e - 1);
}

/* The calls of one signature (communicator, op, datatype, reduction,
 * count, peer) that the policy folded in one interval, in slot order.
 * The log's rank in the communicator is that of its communicator record.
 * Written by the log thread when the interval is over (or at close);
 * the arrival skew between ranks follows from joining the same
 * signature's aggregates of every rank (docs/capture-policy.md).
 * 64 bytes. */
#define CP_AGG_GROUPED 0x80u /* cp_rec_agg.op: calls inside a group, their
                                durations their group's interval */
struct cp_rec_agg {
    uint8_t kind;       /* CP_REC_AGG */
    uint8_t op;         /* enum cp_op, | CP_AGG_GROUPED */
    uint8_t dtype;
    uint8_t redop;
    int32_t peer;       /* as the calls' */
    uint64_t comm_id;
    uint64_t count;     /* elements per call */
    uint32_t calls;     /* calls folded into it (>= 1) */
    uint32_t seq_first; /* the first one's seq */
    uint32_t seq_last;  /* the last one's */
    uint16_t dur_q[4];  /* min, median, p99 and max duration, cp_q16 */
    uint32_t interval_ms; /* the policy's interval */
    uint64_t first_ns;  /* CLOCK_REALTIME: the first call's start (its
                           interval is first_ns / interval) */
    uint64_t sum_ns;    /* the durations summed */
};

union cp_rec {
    uint8_t kind;
    struct cp_rec_call call;
    struct cp_rec_comm comm;
    struct cp_rec_group group;
    struct cp_rec_clock clock;
    struct cp_rec_gpu gpu;
    struct cp_rec_nccl nccl;
    struct cp_rec_proxy proxy;
    struct cp_rec_step step;
    struct cp_rec_tag tag;
    struct cp_rec_phase phase;
    struct cp_rec_link link;
    struct cp_rec_agg agg;
    uint8_t bytes[CP_LOG_RECORD_SIZE];
};

/* Header flags. */
#define CP_HDR_CLOSED 0x0001u   /* the writer closed the log at exit */
#define CP_HDR_DISABLED 0x0002u /* the shim turned itself off mid-run */
/* version 4: the stream has sync points every sync_bytes bytes (below,
 * "sync points"); without it the stream is read from its start only */
#define CP_HDR_SYNC 0x0004u
/* version 4: a capture policy folded calls outside its detail windows
 * into aggregates (cp_rec_agg); the header's policy_* fields say how */
#define CP_HDR_POLICY 0x0008u

#define CP_HDR_STR 64

/* The file header.  Fields after `header_size` may grow in later versions;
 * readers use header_size, record_size and chunk_records from the file. */
struct cp_log_header {
    char magic[8];          /* CP_LOG_MAGIC */
    uint32_t endian;        /* CP_LOG_ENDIAN */
    uint32_t version;       /* CP_LOG_VERSION */
    uint32_t header_size;   /* CP_LOG_HEADER_SIZE */
    uint32_t record_size;   /* CP_LOG_RECORD_SIZE */
    uint32_t chunk_records; /* the file grows by this many slots */
    uint32_t flags;         /* CP_HDR_* */
    uint32_t timer;         /* enum cp_timer chosen for this process */
    int32_t pid;
    int32_t global_rank; /* SLURM_PROCID or the launcher's rank, -1 unknown */
    int32_t world_size;  /* SLURM_NTASKS or the launcher's size, -1 unknown */
    int32_t local_rank;  /* SLURM_LOCALID or the launcher's, -1 unknown */
    int32_t nccl_version; /* ncclGetVersion of the real library, 0 unknown */
    uint64_t start_realtime_ns; /* calibration pair at open */
    uint64_t start_monotonic_ns;
    uint64_t end_realtime_ns; /* at close, 0 if never closed */
    uint64_t slots_used;      /* at close: slots handed out */
    uint64_t records_dropped; /* calls not logged (log full, disabled) */
    char node[CP_HDR_STR];    /* SLURMD_NODENAME, else the host name */
    char hostname[CP_HDR_STR];
    char job_id[CP_HDR_STR / 2];  /* SLURM_JOB_ID or "" */
    char step_id[CP_HDR_STR / 2]; /* SLURM_STEP_ID or "" */
    char timer_reason[CP_HDR_STR]; /* why that timer was chosen */
    char program[CP_HDR_STR];      /* the process's command name */
    /* version 2: a termination signal the process received while the log
     * was open (SIGTERM of a time limit, scancel or a launcher), where the
     * shim could see it; 0 = none seen (or a version-1 log) */
    int32_t term_signal;
    uint32_t reserved0;
    uint64_t term_realtime_ns; /* CLOCK_REALTIME when it arrived */
    /* version 3: who wrote the log (older logs: 0, the shim) */
    uint32_t source;        /* enum cp_log_source */
    uint32_t plugin_api;    /* plugin logs: the ncclProfiler_vN NCCL took */
    uint32_t steps;         /* plugin logs: enum cp_step_mode */
    uint32_t reserved1;
    uint64_t steps_dropped; /* plugin logs: per-step records not written
                               (over budget; their operation's aggregate is) */
    /* version 4: where the ring and the stream are (0 in older logs) */
    uint32_t ring_slots;    /* cells in the ring: a power of two */
    uint32_t dict_slots;    /* the most signatures the stream defines */
    uint64_t ring_offset;   /* the ring's index (ring_slots x u64), then
                               its cells (ring_slots x 64 bytes) */
    uint64_t stream_offset; /* the first block of the stream */
    uint64_t stream_end;    /* bytes of whole blocks written so far, from
                               stream_offset (the writer stores it after
                               each write) */
    uint64_t stream_slots;  /* slots those blocks hold */
    /* version 4 with CP_HDR_SYNC: a sync point every sync_bytes bytes of
     * the stream (a power of two, CP_LOG4_SYNC_MIN .. CP_LOG4_SYNC_MAX);
     * 0 in logs without */
    uint32_t sync_bytes;
    uint32_t reserved2;
    /* version 4 with CP_HDR_POLICY: the capture policy (cp_policy_keeps);
     * 0 in logs without */
    uint32_t policy_first;
    uint32_t policy_window;
    uint32_t policy_every;
    uint32_t policy_interval_ms;
};

/* ---- version 4: the ring and the stream -----------------------------------
 *
 *   [ header ][ ring index ][ ring cells ][ block ][ block ] ...
 *
 * Slots are numbered 0, 1, 2 ... in the order they were handed out, as in
 * version 3 (the `slot` of kinds 5-10 are these numbers).  Slot s is
 * written into cell s % ring_slots, whose index word then holds s; the
 * writer stores the cell's kind 0, then the index (release), the record,
 * and the kind last, as in version 3.  The log thread encodes finished
 * slots (kind set; for a call, end_ns too) in slot order into blocks,
 * writes them after the previous ones, stores stream_end/stream_slots,
 * and only then lets their cells be reused.
 *
 * A reader decodes the blocks from stream_offset, in order: they hold
 * slots 0 .. S-1.  Then the ring: slot S, S+1, ... while cell
 * s % ring_slots has index s (kind 0 there: handed out, never written,
 * an empty slot); the first that does not ends the log.  A block that
 * starts at or past stream_end and is cut short or fails its sum is one
 * the writer had not finished (killed mid-write): its slots are in the
 * ring; before stream_end it is damage.
 *
 * A block: struct cp_log4_block, then `bytes` bytes of ops.  Integers in
 * the payload are unsigned LEB128 varints (at most 10 bytes); signed ones
 * zigzag-coded first ((v << 1) ^ (v >> 63)).  A time t is written as the
 * signed difference from the previous one of its stream (t_call: calls
 * and groups, t_gpu: kind 5), both starting at the header's
 * start_realtime_ns; an end as 0 (end_ns 0: in flight) or end - start + 1,
 * except in a call of a signature (short and long forms): there 0 or
 * zigzag(duration - the signature's last duration) + 1, the last duration
 * starting at 0 and following each finished call of the signature.
 * A call names a signature: the fields that repeat from call to call,
 * defined once per log (CP_LOG4_DEFINE) in the order of their indices;
 * its seq is predicted as one more than the last seq of its signature's
 * key (a signature index: signatures that share a counter share a key).
 */
#define CP_LOG4_BLOCK_MAGIC 0x34424350u /* "PCB4" read as bytes, LE */
#define CP_LOG4_BLOCK_MAX 4096u         /* a whole block, header included */
#define CP_LOG4_RING_MIN 64u
#define CP_LOG4_RING_MAX (1u << 20)
#define CP_LOG4_DICT_MAX 4096u

/* Sync points (header flag CP_HDR_SYNC).  At stream_offset + k x
 * sync_bytes (k >= 1, before stream_end) a block starts whose first op is
 * CP_LOG4_SYNC: the stream from there on decodes without anything before
 * it (signatures and templates start again from index 0; the times, the
 * latest call's and device interval's, the last group are restated).  The
 * block before it ends short of the boundary: the bytes between are 0
 * (fewer than CP_LOG4_PAD_MAX).  A reader finds the sync point before a
 * time T by bisection over k (one block read each), each sync op giving
 * the latest call start before it.  No other block starts with the op. */
#define CP_LOG4_SYNC_MIN (16u * 1024)
#define CP_LOG4_SYNC_MAX (1u << 30)
#define CP_LOG4_SYNC_DEFAULT (1u << 20)
#define CP_LOG4_PAD_MAX 256u

struct cp_log4_block {
    uint32_t magic;      /* CP_LOG4_BLOCK_MAGIC */
    uint32_t bytes;      /* payload bytes that follow */
    uint64_t first_slot; /* the slot of the payload's first record */
    uint32_t slots;      /* slots the payload holds (records, empty runs) */
    uint32_t sum;        /* cp_log4_sum of the payload */
};

/* Ops of a block's payload (the first byte of each). */
enum cp_log4_op {
    /* 0x00-0x3f: a call of signature op & 0x3f, seq as predicted, group
     * as its signature says (0 outside groups, else the last group's
     * id); 0x40-0x7f the same, a call that opens the next group (last
     * group + 1).  Then start, end. */
    CP_LOG4_SHORT = 0x00,
    CP_LOG4_SHORT_NEWGROUP = 0x40,
    /* 0x80-0xbf: a call of signature op & 0x3f, then a byte of
     * CP_LOG4_X_* and what they add (in that order), then start, end */
    CP_LOG4_LONG = 0x80,
    /* a signature, the next index: op, dtype, redop, timer, result
     * (bytes); flags, comm_id, count, zigzag peer, rank, nranks, stream,
     * key (varints; key <= its own index) */
    CP_LOG4_DEFINE = 0xc0,
    /* a call without a signature: op, dtype, redop, timer, result
     * (bytes); flags, comm_id, count, seq, zigzag peer, rank, nranks,
     * group, stream, start, end (varints) */
    CP_LOG4_LITERAL = 0xc1,
    CP_LOG4_RAW = 0xc2,   /* a slot as written: 64 bytes, any kind */
    CP_LOG4_EMPTY = 0xc3, /* varint n >= 1: n never-written slots */
    /* a group record (kind 3, reserved fields 0): zigzag (group - last
     * group), result (byte), ncalls, start, end */
    CP_LOG4_GROUP = 0xc4,
    /* a device interval (kind 5, reserved fields 0): this slot minus its
     * call's slot, timer (byte), flags, start (t_gpu), end.  Read, no
     * longer written: kind 5 is a templated kind */
    CP_LOG4_GPU = 0xc5,
    /* a template, the next index (at most CP_LOG4_TMPL_MAX): 64 bytes, a
     * record of a kind cp_log4_fields_of knows, its varying fields 0 */
    CP_LOG4_TEMPLATE = 0xc6,
    /* a sync point, the first op of a block at a multiple of sync_bytes
     * (and nowhere else): varints t_call, call_start, dev_start, dev_end
     * (the template roles' bases), last group, t_latest (the latest call
     * start before it; 0 before any); signatures and templates defined
     * before it are forgotten, the next of each is index 0.  No slot */
    CP_LOG4_SYNC = 0xc7,
    /* varint n >= 1: n slots whose calls the capture policy folded into
     * aggregates (CP_HDR_POLICY): no record, as never-written slots */
    CP_LOG4_FOLD = 0xc8,
    /* 0xe0-0xfe: a record of template op - 0xe0; 0xff: of the template a
     * varint names.  Then the fields present: one byte for a kind of at
     * most 8 varying fields, two (little-endian) for one of more
     * (cp_log4_present_bytes); and a varint per field present, in the
     * table's order (cp_log4_fields_of) */
    CP_LOG4_TEMPLATED = 0xe0,
    CP_LOG4_TEMPLATED_LONG = 0xff
};
#define CP_LOG4_X_SIG 0x01u   /* varint: the signature's index >> 6 */
#define CP_LOG4_X_SEQ 0x02u   /* zigzag (int32)(seq - predicted) */
#define CP_LOG4_X_GROUP 0x04u /* varint: the group id itself */
#define CP_LOG4_X_COUNT 0x08u /* varint: the call's count, not the
                                 signature's (counts that change) */

/* Templated records (the NCCL profiler plugin's kinds, device
 * intervals, the capture policy's aggregates).  A template is a record
 * with its varying fields 0: what repeats from call to call (a peer, a
 * channel, a communicator, a kernel's name, a signature).  A record of it
 * is then a bit per varying field (bit j: field j's code is not 0), in
 * one byte for a kind of at most 8 fields and two little-endian bytes
 * for one of more (bit j of the 16-bit word), and a varint for each bit
 * set, each field coded by its role against the stream's state or the
 * template's own last value of the field (`last`, 0 when the template is
 * defined); a field whose bit is clear has code 0:
 *   SLOT   a slot number: zigzag((this record's slot - v) - last), and
 *          last becomes this slot - v (a record written a fixed number of
 *          slots after its call's codes 0)
 *   TIME   CLOCK_REALTIME ns: 0 for v = 0, else zigzag(v - t_call) + 1,
 *          and t_call becomes v (the same t_call as calls and groups)
 *   CALL   ns of any clock: 0 for v = 0, else zigzag((v - c) - last) + 1,
 *          last becomes v - c, where c is the start_ns of the latest call
 *          record (kind 1, any op) before this slot, the header's
 *          start_realtime_ns before the first: a time as its distance from
 *          its call's start, against the template's last distance (a GPU
 *          clock's offset from the host's is then in last)
 *   DEV    as CALL, c the start_ns of the latest device interval (kind 5)
 *          before this slot (the header's start_realtime_ns before the
 *          first); DEVEND the same with its end_ns (a kernel's raw GPU
 *          times beside the same times on the host's scale)
 *   SPAN   0 for v = 0, else zigzag((v - field ref) - last) + 1, and last
 *          becomes v - field ref (an end from its start: a duration
 *          against the template's last one)
 *   NEXT   zigzag(v - (last + 1)), last becomes v (a counter)
 *   VALUE  zigzag(v - last), last becomes v
 * Values are unsigned of the field's size (1, 2, 4 or 8 bytes); a
 * decoded value is cut to that size. */
#define CP_LOG4_TMPL_MAX 1024u
#define CP_LOG4_FIELDS_MAX 16u
/* A kind of more varying fields than this has two bytes of fields
 * present, not one. */
#define CP_LOG4_FIELDS_BYTE 8u

enum cp_log4_role {
    CP_LOG4_F_SLOT = 1,
    CP_LOG4_F_TIME = 2,
    CP_LOG4_F_CALL = 3,
    CP_LOG4_F_SPAN = 4,
    CP_LOG4_F_NEXT = 5,
    CP_LOG4_F_VALUE = 6,
    CP_LOG4_F_DEV = 7,
    CP_LOG4_F_DEVEND = 8
};

struct cp_log4_field {
    uint8_t offset; /* in the record */
    uint8_t size;   /* bytes: 1, 2, 4 or 8 */
    uint8_t role;   /* CP_LOG4_F_* */
    uint8_t ref;    /* SPAN: the earlier field (an index into the list)
                       it is measured from */
};

struct cp_log4_fields {
    uint8_t kind, n;
    struct cp_log4_field f[CP_LOG4_FIELDS_MAX];
};

#define CP_LOG4_FIELD(type, member, role, ref)                               \
    {(uint8_t)offsetof(type, member),                                      \
     (uint8_t)sizeof(((type *)0)->member), role, ref}

/* The same for element `index` of an array member. */
#define CP_LOG4_FIELD_AT(type, member, index, role, ref)                     \
    {(uint8_t)(offsetof(type, member) +                                     \
               (index) * sizeof(((type *)0)->member[0])),                   \
     (uint8_t)sizeof(((type *)0)->member[0]), role, ref}

/* The one table of templated kinds and their varying fields; NULL for a
 * kind written otherwise (calls and groups: their own ops; communicators
 * and clocks: raw).
 *
 * An aggregate (CP_REC_AGG) is one per signature and interval, its
 * signature (op, dtype, redop, peer, comm_id, count, interval_ms) the
 * template: calls and the durations' quantiles and sum as VALUE (about
 * the same from one interval to the next); seq_first as VALUE (it grows
 * by the calls of the signature's counter per interval); seq_last as
 * SPAN from seq_first (calls - 1 when no other signature shares the
 * counter: the same each interval); first_ns as TIME (the aggregates of
 * one interval are written together, their first calls' starts close to
 * each other). */
static inline const struct cp_log4_fields *cp_log4_fields_of(unsigned kind)
{
    static const struct cp_log4_fields table[] = {
        {CP_REC_GPU, 3,
         {CP_LOG4_FIELD(struct cp_rec_gpu, slot, CP_LOG4_F_SLOT, 0),
          CP_LOG4_FIELD(struct cp_rec_gpu, start_ns, CP_LOG4_F_CALL, 0),
          CP_LOG4_FIELD(struct cp_rec_gpu, end_ns, CP_LOG4_F_SPAN, 1)}},
        {CP_REC_NCCL, 5,
         {CP_LOG4_FIELD(struct cp_rec_nccl, slot, CP_LOG4_F_SLOT, 0),
          CP_LOG4_FIELD(struct cp_rec_nccl, nccl_seq, CP_LOG4_F_NEXT, 0),
          CP_LOG4_FIELD(struct cp_rec_nccl, seq, CP_LOG4_F_NEXT, 0),
          CP_LOG4_FIELD(struct cp_rec_nccl, gpu_start_raw, CP_LOG4_F_DEV, 0),
          CP_LOG4_FIELD(struct cp_rec_nccl, gpu_end_raw, CP_LOG4_F_DEVEND, 0)}},
        {CP_REC_PROXY, 7,
         {CP_LOG4_FIELD(struct cp_rec_proxy, slot, CP_LOG4_F_SLOT, 0),
          CP_LOG4_FIELD(struct cp_rec_proxy, bytes, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_proxy, start_ns, CP_LOG4_F_CALL, 0),
          CP_LOG4_FIELD(struct cp_rec_proxy, end_ns, CP_LOG4_F_SPAN, 2),
          CP_LOG4_FIELD(struct cp_rec_proxy, busy_ns, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_proxy, steps_done, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_proxy, min_step_ns, CP_LOG4_F_VALUE,
                        0)}},
        {CP_REC_STEP, 6,
         {CP_LOG4_FIELD(struct cp_rec_step, proxy_slot, CP_LOG4_F_SLOT, 0),
          CP_LOG4_FIELD(struct cp_rec_step, step, CP_LOG4_F_NEXT, 0),
          CP_LOG4_FIELD(struct cp_rec_step, bytes, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_step, start_ns, CP_LOG4_F_TIME, 0),
          CP_LOG4_FIELD(struct cp_rec_step, posted_ns, CP_LOG4_F_SPAN, 3),
          CP_LOG4_FIELD(struct cp_rec_step, done_ns, CP_LOG4_F_SPAN, 4)}},
        {CP_REC_TAG, 2,
         {CP_LOG4_FIELD(struct cp_rec_tag, slot, CP_LOG4_F_SLOT, 0),
          CP_LOG4_FIELD(struct cp_rec_tag, seq, CP_LOG4_F_NEXT, 0)}},
        {CP_REC_PHASE, 6,
         {CP_LOG4_FIELD(struct cp_rec_phase, slot, CP_LOG4_F_SLOT, 0),
          CP_LOG4_FIELD(struct cp_rec_phase, seq, CP_LOG4_F_NEXT, 0),
          CP_LOG4_FIELD(struct cp_rec_phase, gpu_start_raw, CP_LOG4_F_DEV, 0),
          CP_LOG4_FIELD(struct cp_rec_phase, gpu_end_raw, CP_LOG4_F_SPAN, 2),
          CP_LOG4_FIELD(struct cp_rec_phase, start_ns, CP_LOG4_F_SPAN, 2),
          CP_LOG4_FIELD(struct cp_rec_phase, end_ns, CP_LOG4_F_SPAN, 3)}},
        {CP_REC_LINK, 8,
         {CP_LOG4_FIELD(struct cp_rec_link, back, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_link, steps, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_link, bytes, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_link, first_ns, CP_LOG4_F_CALL, 0),
          CP_LOG4_FIELD(struct cp_rec_link, last_ns, CP_LOG4_F_SPAN, 3),
          CP_LOG4_FIELD(struct cp_rec_link, busy_ns, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_link, min_step_ns, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_link, max_step_ns, CP_LOG4_F_VALUE,
                        0)}},
        {CP_REC_AGG, 9,
         {CP_LOG4_FIELD(struct cp_rec_agg, calls, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_agg, seq_first, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_agg, seq_last, CP_LOG4_F_SPAN, 1),
          CP_LOG4_FIELD_AT(struct cp_rec_agg, dur_q, 0, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD_AT(struct cp_rec_agg, dur_q, 1, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD_AT(struct cp_rec_agg, dur_q, 2, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD_AT(struct cp_rec_agg, dur_q, 3, CP_LOG4_F_VALUE, 0),
          CP_LOG4_FIELD(struct cp_rec_agg, first_ns, CP_LOG4_F_TIME, 0),
          CP_LOG4_FIELD(struct cp_rec_agg, sum_ns, CP_LOG4_F_VALUE, 0)}},
    };
    size_t i;

    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].kind == kind)
            return &table[i];
    return NULL;
}

/* The bytes of a templated record's fields present for a kind of k. */
static inline unsigned cp_log4_present_bytes(const struct cp_log4_fields *k)
{
    return k->n > CP_LOG4_FIELDS_BYTE ? 2u : 1u;
}

/* Zigzag coding of a signed 64-bit value (as two's complement in v):
 * 0, -1, 1, -2 ... become 0, 1, 2, 3 ..., so that small differences of
 * either sign make small varints; the log's stream and the node
 * partials' calls (docs/partial-format.md) use it. */
static inline uint64_t cp_log4_zigzag(uint64_t v)
{
    return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

static inline int64_t cp_log4_unzigzag(uint64_t v)
{
    return (int64_t)((v >> 1) ^ (~(v & 1) + 1));
}

/* The sum of a block's payload: a, b start at 1, 0; per byte a += byte,
 * b += a (mod 2^32); the sum is b ^ (a << 16).  Computed here in the
 * closed form a = 1 + sum p[i], b = n + sum (n - i) p[i] (mod 2^32):
 * 16 bytes at a time where SSE2 is there (each 16 adds their sum to a,
 * and to b 16 times a before them and their sum weighted 16 .. 1, in
 * four lanes added at the end), else four running sums whose terms do
 * not wait on each other; the rest byte by byte. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static inline uint32_t cp_log4_sum(const unsigned char *p, size_t n)
{
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    uint32_t a, b, k = (uint32_t)n;
    size_t i = 0;

#if defined(__SSE2__)
    {
        const __m128i zero = _mm_setzero_si128();
        const __m128i hi = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
        const __m128i lo = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
        __m128i va = zero, vb = zero;
        uint32_t la[4], lb[4];
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            vb = _mm_add_epi32(vb, _mm_slli_epi32(va, 4));
            vb = _mm_add_epi32(vb, _mm_madd_epi16(_mm_unpacklo_epi8(v, zero), hi));
            vb = _mm_add_epi32(vb, _mm_madd_epi16(_mm_unpackhi_epi8(v, zero), lo));
            va = _mm_add_epi32(va, _mm_sad_epu8(v, zero));
        }
        _mm_storeu_si128((__m128i *)(void *)la, va);
        _mm_storeu_si128((__m128i *)(void *)lb, vb);
        a0 = la[0] + la[1] + la[2] + la[3];
        /* the bytes so far weigh (n - i) more each: b's running form */
        w0 = lb[0] + lb[1] + lb[2] + lb[3] + (uint32_t)(n - i) * a0;
        k = (uint32_t)(n - i);
    }
#endif
    for (; i + 4 <= n; i += 4, k -= 4) {
        a0 += p[i];
        a1 += p[i + 1];
        a2 += p[i + 2];
        a3 += p[i + 3];
        w0 += k * p[i];
        w1 += (k - 1) * p[i + 1];
        w2 += (k - 2) * p[i + 2];
        w3 += (k - 3) * p[i + 3];
    }
    for (; i < n; i++, k--) {
        a0 += p[i];
        w0 += k * p[i];
    }
    a = 1 + a0 + a1 + a2 + a3;
    b = (uint32_t)n + w0 + w1 + w2 + w3;
    return b ^ (a << 16);
}

_Static_assert(sizeof(struct cp_rec_call) == CP_LOG_RECORD_SIZE, "call");
_Static_assert(sizeof(struct cp_rec_comm) == CP_LOG_RECORD_SIZE, "comm");
_Static_assert(sizeof(struct cp_rec_group) == CP_LOG_RECORD_SIZE, "group");
_Static_assert(sizeof(struct cp_rec_clock) == CP_LOG_RECORD_SIZE, "clock");
_Static_assert(sizeof(struct cp_rec_gpu) == CP_LOG_RECORD_SIZE, "gpu");
_Static_assert(sizeof(struct cp_rec_nccl) == CP_LOG_RECORD_SIZE, "nccl");
_Static_assert(sizeof(struct cp_rec_proxy) == CP_LOG_RECORD_SIZE, "proxy");
_Static_assert(sizeof(struct cp_rec_step) == CP_LOG_RECORD_SIZE, "step");
_Static_assert(sizeof(struct cp_rec_tag) == CP_LOG_RECORD_SIZE, "tag");
_Static_assert(sizeof(struct cp_rec_phase) == CP_LOG_RECORD_SIZE, "phase");
_Static_assert(sizeof(struct cp_rec_agg) == CP_LOG_RECORD_SIZE, "agg");
_Static_assert(sizeof(struct cp_rec_link) == CP_LOG_RECORD_SIZE, "link");
_Static_assert(sizeof(union cp_rec) == CP_LOG_RECORD_SIZE, "record");
_Static_assert(offsetof(struct cp_log_header, source) == 432, "source");
_Static_assert(sizeof(struct cp_log_header) <= CP_LOG_HEADER_SIZE, "header");
_Static_assert(offsetof(struct cp_log_header, magic) == 0, "magic first");
_Static_assert(offsetof(struct cp_log_header, ring_slots) == 456, "v4");
_Static_assert(offsetof(struct cp_log_header, sync_bytes) == 496, "sync");
_Static_assert(sizeof(struct cp_log4_block) == 24, "block header");
/* the writers' zeros before a sync point: two block headers and the
 * most one record's ops take (preload/cp_logenc.h, 160) */
_Static_assert(2 * 24 + 160 < CP_LOG4_PAD_MAX, "padding");

/* Bytes of one element of an NCCL datatype, 0 for an unknown type. */
static inline unsigned cp_dtype_size(unsigned dtype)
{
    static const unsigned char size[12] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return dtype < 12 ? size[dtype] : 0;
}

/* The bytes of a call's own buffer: count elements of dtype (0 for an
 * unknown type).  The one place this product is written; what a
 * collective moves in all (per-rank counts times the ranks) is the
 * model's, cp_model_bytes_from_count. */
static inline uint64_t cp_call_bytes(uint64_t count, unsigned dtype)
{
    return count * cp_dtype_size(dtype);
}

/* Lower-case name of an op code, NULL when unknown. */
static inline const char *cp_op_name(unsigned op)
{
    switch (op) {
#define CP_X_NAME(fn, code, name)                                              \
    case code:                                                                 \
        return name;
        CP_OP_TABLE(CP_X_NAME)
#undef CP_X_NAME
    default:
        return NULL;
    }
}

static inline const char *cp_dtype_name(unsigned dtype)
{
    static const char *const name[12] = {
        "int8",    "uint8",   "int32",   "uint32",   "int64",     "uint64",
        "float16", "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2"};
    return dtype < 12 ? name[dtype] : "none";
}

static inline const char *cp_redop_name(unsigned redop)
{
    static const char *const name[5] = {"sum", "prod", "max", "min", "avg"};
    if (redop < 5)
        return name[redop];
    return redop == CP_REDOP_CUSTOM ? "custom" : "none";
}

static inline const char *cp_timer_name(unsigned timer)
{
    static const char *const name[5] = {"none", "host", "event", "cupti",
                                        "kernel_ch"};
    return timer < 5 ? name[timer] : "unknown";
}

/* Names of the CP_NCCL_ALGO_TABLE / CP_NCCL_PROTO_TABLE codes ("unknown"
 * for anything else). */
static inline const char *cp_nccl_algo_name(unsigned code)
{
    switch (code) {
#define CP_X_NAME(c, name)                                                     \
    case c:                                                                    \
        return name;
        CP_NCCL_ALGO_TABLE(CP_X_NAME)
#undef CP_X_NAME
    default:
        return "unknown";
    }
}

static inline const char *cp_nccl_proto_name(unsigned code)
{
    switch (code) {
#define CP_X_NAME(c, name)                                                     \
    case c:                                                                    \
        return name;
        CP_NCCL_PROTO_TABLE(CP_X_NAME)
#undef CP_X_NAME
    default:
        return "unknown";
    }
}

/* Whether an op code is a collective (joined across ranks by sequence). */
static inline int cp_op_is_collective(unsigned op)
{
    return op >= CP_OP_AllReduce && op <= CP_OP_Scatter;
}

static inline int cp_op_is_p2p(unsigned op)
{
    return op == CP_OP_Send || op == CP_OP_Recv;
}

#endif /* COLLPROF_CP_LOGFMT_H */
