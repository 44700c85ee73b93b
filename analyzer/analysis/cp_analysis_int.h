/* cp_analysis_int.h - the join's internals and its view of the run:
 * shared by cp_stream.c (the streaming join), the files the run calls
 * (cp_inputs.c, cp_view.c, cp_evals.c, cp_aggregate.c), cp_report.c, and
 * above this folder by analyzer/judge/ (the run, cp_judge.c, and the
 * detectors, which read the view through cp_view.c's functions).  Not a
 * public header: nothing but analyzer/analysis/ and analyzer/judge/
 * includes it.
 */
#ifndef COLLPROF_CP_ANALYSIS_INT_H
#define COLLPROF_CP_ANALYSIS_INT_H

#include <stdint.h>

#include "collprof/cp_logfmt.h"
#include "cp_analysis.h"
#include "cp_kinds.h"
#include "cp_logread.h"
#include "cp_ncjoin.h"
#include "cp_scan.h"
#include "cp_sketch.h"
#include "cp_slots.h"

/* Aggregation slots of a communicator: one per collective; point-to-point
 * pairs go to CP_COLL_SENDRECV when the two ranks are on different nodes
 * and to AN_SLOT_P2P_INTRA when they share one; a copy-engine collective
 * (plugin API v6+, CP_NCCL_CE) to AN_SLOT_CE + its collective: its own
 * kind, whose path is a copy within the node (NCCL runs copy-engine
 * collectives over NVLink only), judged on the intra-node model.  The
 * mapping from a slot back to its collective and path is the three
 * functions below, the one place that knows it. */
#define AN_SLOT_P2P_INTRA CP_COLL_COUNT
#define AN_SLOT_CE (CP_COLL_COUNT + 1)
#define AN_SLOTS (2 * CP_COLL_COUNT + 1)
_Static_assert(AN_SLOTS <= 32, "a slot fits an_inst.coll (5 bits)");

static inline unsigned an_slot_of(unsigned coll, int copy_engine)
{
    return copy_engine && coll != CP_COLL_SENDRECV ? AN_SLOT_CE + coll : coll;
}

static inline enum cp_coll an_slot_coll(unsigned slot)
{
    if (slot == AN_SLOT_P2P_INTRA)
        return CP_COLL_SENDRECV;
    return (enum cp_coll)(slot >= AN_SLOT_CE ? slot - AN_SLOT_CE : slot);
}

static inline int an_slot_copy_engine(unsigned slot)
{
    return slot >= AN_SLOT_CE;
}

/* The link class a slot's calls are judged on: the communicator's
 * (comm_link) but for the slots whose path is their own. */
static inline unsigned an_slot_link(unsigned slot, unsigned comm_link)
{
    if (slot == AN_SLOT_P2P_INTRA || an_slot_copy_engine(slot))
        return CP_LINK_INTRA;
    if (slot == CP_COLL_SENDRECV)
        return CP_LINK_INTER;
    return comm_link;
}

/* Size buckets: n = 0, then 8 per octave (1/8 octave: 9 % wide) from 1 B
 * up to 2^64 B.  Eight consecutive ones make a power-of-two row. */
#define AN_SUB_BITS 3
#define AN_SUB (1 << AN_SUB_BITS)
#define AN_NBUCKETS (1 + 64 * AN_SUB)

/* The bucket of n bytes (n >= 0, finite). */
static inline unsigned an_bucket_index(double n)
{
    union {
        double d;
        uint64_t u;
    } b;
    int64_t idx;

    if (!(n >= 1))
        return 0;
    b.d = n;
    idx = (int64_t)(b.u >> (52 - AN_SUB_BITS)) - ((int64_t)1023 << AN_SUB_BITS);
    if (idx >= 64 * AN_SUB)
        idx = 64 * AN_SUB - 1;
    return (unsigned)idx + 1;
}

/* Accumulated calls of one (communicator, slot, size bucket). */
/* An algorithm and protocol code in one byte (an_inst.info, an_call.info). */
#define AN_INFO(algo, proto) ((uint8_t)(((algo) & 7) | (((proto) & 3) << 4)))
#define AN_INFO_CE 0x08u /* a copy-engine collective (CP_NCCL_CE) */
#define AN_INFO_ALGO(i) ((unsigned)(i) & 7)
#define AN_INFO_PROTO(i) (((unsigned)(i) >> 4) & 3)

struct an_bucket {
    uint64_t count;
    uint64_t algo[CP_ANALYSIS_ALGOS];   /* instances by NCCL's algorithm */
    uint64_t proto[CP_ANALYSIS_PROTOS]; /* and protocol (0: unknown) */
    uint64_t grouped;    /* calls that ran inside a group */
    uint64_t incomplete; /* instances missing members */
    double bytes;        /* sum of n */
    double n_min, n_max; /* of the calls */
    double time;         /* sum of own time * share, seconds */
    double duration;     /* sum of own time (no share): for bandwidths */
    double skew;         /* sum of arrival skew, seconds */
    struct cp_sketch t;  /* own time (no share) */
    /* own time of the calls outside groups whose members all came within
     * AN_CLEAN_SKEW of it: a member that came earlier could have pushed
     * its data before the last one arrived (the buffers NCCL keeps for
     * each peer), and the call's own time, timed from that arrival, is
     * then less than its wire time (docs/analysis.md, "What the join sees
     * of a call's wire time") */
    struct cp_sketch tw;
    /* the bucket's calls by the application's tag (cp_ncjoin's index),
     * those with a tag record only; NULL until one comes */
    struct an_tag_sum *tags;
    uint32_t ntags, captags;
};

/* A bucket's calls of one tag (the same sums as the bucket's). */
struct an_tag_sum {
    uint16_t tag; /* cp_ncjoin_entry's tag index, never TAG_NONE */
    uint64_t count;
    double bytes, time, duration;
};
/* the arrival skew, as a share of the call's own time, up to which the
 * own time is taken as wire time: an early member pushed for at most that
 * long (a pipeline's healthy pairs come 0.1-1.5x a call's time apart and
 * their fast calls show no difference; a member late by many times a
 * call's time left its pair's fast calls under the wire's time) */
#define AN_CLEAN_SKEW 1.0

struct an_slot_table {
    uint64_t count;
    struct an_bucket *b[AN_NBUCKETS];
};

enum an_inst_state { AN_EMPTY = 0, AN_PENDING = 1, AN_DONE = 2 };

/* A collective instance waiting for its members: one cache line. */
struct an_inst {
    uint32_t seq;
    uint32_t members;
    int32_t last_file;   /* file of the last arrival */
    float n;             /* nccl-tests' S of the first member, bytes */
    float share;         /* 1 / calls in its group, 1 outside groups */
    /* enum an_inst_state, CP_COLL_*, and whether it ran in a group: one
     * byte, so that the tag fits the line */
    uint8_t state : 2;
    uint8_t grouped : 1;
    uint8_t coll : 5;    /* its slot (an_slot_coll: the collective) */
    uint8_t info;        /* NCCL's choice: AN_INFO(algo, proto), 0 unknown */
    uint16_t tag;        /* the first member's tag (cp_ncjoin_entry), 0 none */
    int64_t first_start, last_start, second_start, max_end;
    double sum_start;    /* sum over members of (start - first_start), ns */
};
_Static_assert(sizeof(struct an_inst) == 64, "an_inst is one cache line");
_Static_assert(CP_COLL_COUNT < 32, "a collective fits an_inst.coll");
_Static_assert(AN_EMPTY < 4 && AN_DONE < 4, "a state fits an_inst.state");


struct an_comm {
    uint64_t id;
    uint32_t index; /* in an_state.comms */
    uint32_t nranks;
    int32_t *member_file; /* [nranks]: file index of each comm rank, -1 */
    char name[CP_COMM_NAME_LEN + 1];
    /* the window of pending instances: seqs [lo, hi), slot seq & (cap-1) */
    struct an_inst *ring;
    int64_t *ends; /* prefix pass: [cap * nranks] member end times */
    int64_t *starts; /* prefix pass: [cap * nranks] member start times */
    uint32_t cap;
    int started;    /* ring allocated, lo and hi set (first collective) */
    int want_times; /* prefix pass: ends and starts fit the budget */
    uint64_t lo, hi;
    struct an_slot_table *slots[AN_SLOTS];
    /* the link class its members' nodes show so far (main pass, for the
     * windows' details): final once every member was seen, or after a few
     * looks at a communicator that never completes */
    uint8_t wlink, wlink_final, wlink_looks;
    uint64_t instances, incomplete, p2p, late, inconsistent;
    double time;
    struct cp_sketch skew; /* arrival skew of its instances, s */
};

/* A pending point-to-point half pair, in a hash table with a FIFO. */
struct an_p2p {
    uint32_t comm; /* comm index */
    uint32_t src, dst, seq;
    uint32_t next; /* hash chain or free list */
    uint32_t fifo_prev, fifo_next;
    uint8_t have; /* bit 0: send seen, bit 1: recv seen */
    uint8_t grouped; /* the send's (an_call; the receive's until the
                      * send comes), AN_EXCHANGE_BOTH when both halves ran
                      * in exchange groups */
    uint8_t dtype;
    uint8_t in_use;
    uint16_t tag; /* the first half's with one (cp_ncjoin_entry), 0 none */
    float share;  /* the send's (the receive's until the send comes):
                     the pair's time counts this share, whichever half
                     the merge met first */
    float share2; /* the receive's, when it came (the send's before) */
    uint64_t count;
    int64_t start[2], end[2];
    int32_t file[2];
};

/* A call normalized for the join: corrected times, group applied. */
/* grouped: 0 outside groups, 1 in a group, AN_EXCHANGE in a group of
 * exactly a send to and a receive from one peer of one communicator (a
 * pipeline's exchange: the group's time is one link's, cp_links.h) */
#define AN_EXCHANGE 2
#define AN_EXCHANGE_BOTH 3 /* an_p2p: both halves AN_EXCHANGE */
struct an_call {
    uint64_t comm_id;
    uint64_t count;
    uint32_t seq, rank, nranks, group;
    int32_t peer;
    uint8_t op, dtype, grouped;
    uint8_t info; /* AN_INFO of the plugin's record, 0 none */
    uint16_t tag; /* the plugin's tag index (cp_ncjoin_entry), 0 none */
    float share;
    int64_t start, end;
};

/* One input being read. */
struct an_file {
    struct cp_scan *sc;
    unsigned input; /* index into the inputs */
    unsigned node;  /* node index */
    unsigned rank;  /* index into the ranks */
    int64_t offset_ns; /* subtracted from every time (clock correction) */
    struct an_rank_acc *acc; /* this file's counters */
    int64_t t_min, t_max; /* plausible times (raw) */
    const union cp_rec *cur; /* the next record, NULL at the end */
    int64_t key;             /* its merge time */
    uint64_t limit;       /* records to read (prefix pass), else max */
    int stop;             /* past the window: read no more (main pass) */
    /* the plugin's record of this file's calls, by slot (cp_ncjoin); a
     * file with them takes the full path for every record */
    const struct cp_ncjoin_entry *jn;
    size_t njn, jpos;
    /* the plugin's graph launches of this process, merged into its stream
     * by end time (cp_ncjoin_replays) */
    const struct cp_ncjoin_replay *rp;
    size_t nrp, rpos;
    struct an_call *stash;
    unsigned nstash, capstash;
    struct an_comm *last_comm;
    uint64_t bad_time;
    int phases; /* a kernel phase (kind 10) was read: its input's
                   has_phases */
    int problem_noted;
    int64_t problem_offset;
    /* its first problem (allocated when there is one: thousands of files
     * are walked every epoch, and few have a problem) */
    char *problem;
};
/* The longest problem text of a file kept (bytes, with its NUL). */
#define AN_PROBLEM_MAX 160

/* Samples of node X's end minus node R's end (prefix pass). */
struct an_offset_pair {
    unsigned x, r;
    size_t n, cap;
    double *v;
    /* causality: every member's end follows every member's start, so
     * offset(x) - offset(r) lies in [lo_ns, hi_ns] (docs/analysis.md) */
    int64_t lo_ns, hi_ns;
};

/* Per-rank counters of one pass. */
struct an_rank_acc {
    uint64_t calls, failed, last_arrivals;
    int64_t time_ns; /* sum of call durations */
    double late;
};

enum an_mode { AN_MODE_PREFIX = 0, AN_MODE_MAIN = 1 };

/* The slowest instances (main pass): a min-heap on key of at most
 * AN_TOP entries, one by own time and one by skew. */
#define AN_TOP 50
struct an_top_entry {
    double key;
    uint32_t comm; /* index in an_state.comms */
    struct an_inst in;
};
struct an_top {
    size_t n;
    struct an_top_entry e[AN_TOP];
};

/* The time series of the main pass: AN_WINDOWS windows of 2^shift ns from
 * origin.  When a time falls beyond the last window, the width doubles and
 * neighbouring windows merge (pairs 2i, 2i+1 become i), so memory is fixed
 * and a run of any length ends with AN_WINDOWS / 2 to AN_WINDOWS windows
 * (fewer only when the run is shorter than AN_WINDOWS / 2 x the first
 * width). */
#define AN_WINDOWS 128
#define AN_WINDOW_SHIFT_MIN 10 /* the first width: 1024 ns */

struct an_window {
    double time;    /* own time x share falling in the window, seconds */
    double op_time[CP_COLL_COUNT]; /* of which per collective */
    double wait;    /* rank-seconds waiting: instances ending in it */
    double bytes;   /* sum of n of the instances and pairs ending in it */
    uint64_t calls; /* instances and pairs ending in it */
};

/* What the windows' busbw, latency-bound share and slowness are computed
 * from after the fit (cp_slowdown.c): per window, the calls that began in
 * it by (communicator, slot, ranks, power-of-two size row).  A window
 * holds at most AN_WINDOW_KEYS keys; past three quarters of them new keys
 * lose their communicator (AN_WKEY_ANY: the link class and ranks, which
 * fix the model, stay), and what finds no key at all is counted as lost. */
#define AN_WINDOW_KEYS 64
#define AN_WKEY_ANY UINT32_MAX
struct an_wkey {
    uint32_t comm; /* index in an_state.comms, or AN_WKEY_ANY */
    uint32_t p;    /* ranks of the collective (2 for a pair) */
    uint8_t slot, link, row, reserved;
    uint64_t calls;  /* instances and pairs */
    uint64_t jcalls; /* of which judged: complete, outside groups */
    double time;     /* own time x share */
    double bytes;    /* sum of n */
    double jown;     /* judged: sum of own time */
    double jbytes;   /* judged: sum of n */
};

/* The ranks that arrived last in a window, weighted by how late (the last
 * arrival minus the second-to-last): a space-saving summary of
 * AN_WINDOW_LATE counters, exact while a window has that many distinct
 * last ranks. */
#define AN_WINDOW_LATE 8
struct an_wlate {
    int32_t file; /* -1: unused */
    uint32_t count;
    double late;
};

/* Count late seconds for file (space-saving: a new file takes the place
 * of the smallest counter, inheriting its weight). */
static inline void an_wlate_add(struct an_wlate *l, int32_t file,
                                uint32_t count, double late)
{
    unsigned i, min = 0;

    for (i = 0; i < AN_WINDOW_LATE; i++) {
        if (l[i].count && l[i].file == file) {
            l[i].count += count;
            l[i].late += late;
            return;
        }
        if (!l[i].count) {
            min = i;
            break;
        }
        if (l[i].late < l[min].late)
            min = i;
    }
    l[min].file = file;
    l[min].count += count;
    l[min].late += late;
}

struct an_wdetail {
    unsigned nkeys;
    uint64_t lost_calls;
    double lost_time;
    struct an_wkey k[AN_WINDOW_KEYS];
    struct an_wlate late[AN_WINDOW_LATE];
};

/* One call for the details of its window. */
struct an_wcall {
    uint32_t comm, p;
    unsigned slot, link;
    double n, own, share;
    int judged;
    int32_t last_file; /* -1: none */
    double late;
};

struct an_timeline {
    int started;    /* ring allocated, lo and hi set (first collective) */
    int want_times; /* prefix pass: ends and starts fit the budget */
    unsigned shift;  /* window width: 2^shift ns */
    unsigned used;   /* windows [0, used) may hold something */
    int64_t origin;  /* start of window 0, corrected ns */
    struct an_window w[AN_WINDOWS];
    struct an_wdetail d[AN_WINDOWS];
};

/* The wall time with some collective or pair in progress: the union of
 * their own intervals, merged in a small sorted buffer (instances close
 * nearly in time order; the earliest interval is flushed to the total when
 * the buffer is full). */
#define AN_BUSY_INTERVALS 256
struct an_busy {
    unsigned n;
    int64_t a[AN_BUSY_INTERVALS], b[AN_BUSY_INTERVALS]; /* sorted by a */
    double total_ns;
};

struct an_state {
    struct an_busy busy;
    enum an_mode mode;
    struct an_file *files;
    size_t nfiles;
    unsigned nnodes;
    struct an_rank_acc *ranks; /* [nfiles] */
    /* communicators */
    struct an_comm **comms;
    size_t ncomms, capcomms;
    struct cp_slots comm_slots; /* the communicators by id */
    uint32_t ring_max;
    /* point-to-point */
    struct an_p2p *p2p;
    uint32_t p2p_cap, p2p_free, p2p_used;
    uint32_t *p2p_heads;
    uint32_t fifo_head, fifo_tail;
    /* the merge */
    int64_t now, stale_ns;
    int64_t t_first, t_last;
    uint64_t bytes_done, bytes_total, records;
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* summary counters */
    uint64_t failed, instances, incomplete, p2p_pairs, unmatched,
        late, unjoinable;
    uint64_t gpu_timed; /* calls timed by the plugin's kernel interval */
    uint64_t captures_left_out; /* shim records of graph captures whose
                                   launches the plugin's records stand for */
    double comm_time, skew_time, wait_time, rank_time;
    /* prefix pass: clock offset samples */
    struct an_offset_pair *pairs;
    size_t npairs, cappairs;
    uint32_t *pair_hash;  /* (x, r) -> index + 1 into pairs, 0 empty */
    size_t pair_hash_cap; /* a power of 2, twice the most pairs */
    unsigned *touched;    /* nodes of one instance (note_offsets) */
    double *node_sum;
    uint32_t *node_cnt;
    int64_t *node_min_end, *node_max_start; /* per node, one instance */
    uint64_t offset_instances;
    int oom; /* memory ran out somewhere: the result is incomplete */
    unsigned jobs; /* threads: > 1 reads the files ahead (cp_scan_pool) */
    /* what the communicators' per-rank arrays hold, against AN_COMM_BUDGET;
     * communicators past it are refused: their ids (open addressing, 0
     * empty), how many, their calls, and the first one's claim */
    size_t comm_bytes;
    uint64_t *refused;
    size_t refused_cap, nrefused;
    uint64_t refused_calls, refused_first_id;
    uint32_t refused_first_nranks;
    int32_t refused_first_file;
    /* main pass: inter-node point-to-point pairs per node pair (cp_links) */
    struct cp_links *links;
    /* main pass: communication per time window (NULL in the prefix pass) */
    struct an_timeline *timeline;
    /* main pass: calls that start outside [win_lo, win_hi) (corrected ns)
     * are left out and counted in outside; a window's logs are read from
     * the sync point before win_lo (seeked: the logs that had one) to a
     * call that starts AN_WINDOW_SLACK_NS past win_hi */
    int windowed;
    int64_t win_lo, win_hi;
    uint64_t outside;
    size_t seeked;
    /* main pass: the slowest complete instances (NULL in the prefix pass) */
    struct an_top *top_own, *top_skew;
    /* main pass, when some log has a capture policy (CP_HDR_POLICY): the
     * aggregates joined and the detail windows (cp_longrun.c); else NULL */
    struct an_longrun *longrun;
};

/* What a window's analysis takes from the start of each log before it
 * reads from the sync point before the window (cp_inputs.c,
 * an_read_prologue): the run's first call, and the communicators the logs
 * create before their first calls, whose names and members a read from a
 * sync point would not see. */
struct an_prologue_comm {
    uint32_t file; /* index into the files (and the ranks) */
    struct cp_rec_comm rec;
};
struct an_prologue {
    int64_t first_ns; /* the earliest start of a call that returned, on
                         the analysis's clock; INT64_MAX: none */
    size_t ncomms;
    struct an_prologue_comm *comms;
};
/* The calls of each log the prologue reads: AN_PROLOGUE_TOTAL over all
 * logs, at least AN_PROLOGUE_CALLS (more than one: a process's threads
 * claim slots in the order they enter, not strictly by start) and at most
 * AN_PROLOGUE_RECORDS records each (communicators created lazily, at
 * their first use, come after other calls); the communicator records
 * kept in all. */
#define AN_PROLOGUE_CALLS 64
#define AN_PROLOGUE_RECORDS 4096
#define AN_PROLOGUE_TOTAL (1u << 20)
#define AN_PROLOGUE_COMMS 65536

/* A call longer than an hour is a damaged record (NCCL's own watchdogs end
 * a hung collective well before). */
#define AN_CALL_MAX_NS UINT64_C(3600000000000)

/* A window's reading of a log stops at the first call that starts this
 * long after the window's end: a call of the window is taken not to come
 * after it (a log's slots are in the order their calls were entered, by
 * threads of one process). */
#define AN_WINDOW_SLACK_NS INT64_C(1000000000)

/* Whether call r failed: an error other than ncclInProgress (7), or no
 * sequence number; such a call is counted, not joined. */
static inline int an_call_failed(const struct cp_rec_call *r)
{
    return (r->result != 0 && r->result != 7) || r->seq == UINT32_MAX;
}

/* Whether call r (returned) has times the join takes, in a log whose
 * plausible times are [t_min, t_max] (raw ns): it ends in them, not
 * before it starts, starts in them and lasts at most AN_CALL_MAX_NS. */
static inline int an_call_timed(const struct cp_rec_call *r, int64_t t_min,
                                int64_t t_max)
{
    return (int64_t)r->end_ns >= t_min && (int64_t)r->end_ns <= t_max &&
           r->end_ns >= r->start_ns && (int64_t)r->start_ns >= t_min &&
           r->end_ns - r->start_ns <= AN_CALL_MAX_NS;
}

/* Whether call r's times are plausible enough to end a read that looks
 * for calls up to a time: no time no job can have (cp_log_time_problem),
 * at most AN_CALL_MAX_NS long; a call in flight by its start alone.  A
 * damaged start ends nothing. */
static inline int an_call_plausible(const struct cp_rec_call *r)
{
    return !cp_log_time_problem(r->start_ns, r->end_ns ? r->end_ns
                                                       : r->start_ns) &&
           (!r->end_ns || r->end_ns - r->start_ns <= AN_CALL_MAX_NS);
}

/* Whether a call that starts at start (corrected ns) ends a window's read
 * of its log: AN_WINDOW_SLACK_NS past the window's end win_hi. */
static inline int an_past_window(int64_t start, int64_t win_hi)
{
    return win_hi != INT64_MAX && start >= win_hi &&
           start - win_hi >= AN_WINDOW_SLACK_NS;
}

/* Place scan sc at its log's sync point before raw (ns of the log's own
 * clock; cp_scan_seek_time): the slot it starts at, 0 from the start, -1
 * with err filled (a damaged sync point: read from the start). */
static inline int64_t an_seek_raw(struct cp_scan *sc, int64_t raw,
                                  struct cp_error *err)
{
    return cp_scan_seek_time(sc, raw > 0 ? (uint64_t)raw : 0, err);
}

/* The memory the communicators' per-rank arrays (and the prefix pass's
 * end times) may take: a claimed rank count sizes an array only within it,
 * so a small log claiming a million-rank job costs this much at most. */
#define AN_COMM_BUDGET ((size_t)96 << 20)
/* The hang pass's member tables (cp_hang.c: 32 bytes a claimed rank),
 * which with -j N are held beside the main pass's: a third of the
 * analysis's budget, so that a pass and the other never hold more than it
 * and a half for claimed sizes together (a communicator of a million
 * ranks fits). */
#define AN_HANG_BUDGET (AN_COMM_BUDGET / 3)

/* cp_stream.c */
int an_state_init(struct an_state *st, enum an_mode mode, size_t nfiles,
                  unsigned nnodes);
void an_state_free(struct an_state *st);
/* Read every file of st->files (opened by the caller) to the end. */
void an_stream_run(struct an_state *st);
/* Before a window's main pass (files opened): the communicators the
 * prologue's records create, file by file, as a read from the logs'
 * starts meets them in its first epochs (a log read from a sync point does
 * not meet them; communicators are listed in the order they were
 * created).  0, or -1 (memory). */
int an_stream_prologue_comms(struct an_state *st, const struct an_prologue *p);
struct an_slot_table *an_comm_slot(struct an_comm *c, unsigned slot);
/* Make the windows cover [lo, hi] (corrected ns), merging as needed. */
void an_timeline_cover(struct an_timeline *tl, int64_t lo, int64_t hi);
/* Add the details of window src to dst (as when two windows merge). */
void an_wdetail_merge(struct an_wdetail *dst, const struct an_wdetail *src);

/* After the fit: the calls of one (communicator, slot), split by regime. */
struct an_group_stats {
    uint64_t calls;
    uint64_t judged_calls; /* outside groups: their own times are known */
    double bytes;      /* sum of n */
    double time;       /* sum of own time * share (accounting) */
    /* of the judged calls only: */
    double duration;   /* sum of own time */
    double fast_duration; /* calls x the 10 % quantile of their bucket's own
                           * times: what the network gave when nothing
                           * else got in the way (a busy host, a late
                           * member delay some calls, a slow link all) */
    double model_time; /* sum of model time */
    double fn;         /* sum of f * n (busbw numerator) */
    double judged_bytes; /* sum of n */
    double n_min, n_max; /* sizes of the calls */
};

struct an_eval {
    unsigned comm;       /* index into an->comms */
    unsigned slot;       /* collective, or AN_SLOT_P2P_INTRA */
    enum cp_coll coll;
    enum cp_link_class link;
    int have_model;
    int weak;            /* the model is a weak fit: no warning on it */
    double latency_s;    /* L of the (comm, slot) with the class's model */
    double sec_per_byte; /* W */
    double factor;       /* busbw factor f */
    struct an_group_stats lat, bw;
};

/* Whether the model calls bucket b's calls latency-bound: the bandwidth
 * term of their mean size below the latency term.  The one rule of the
 * rows' regime, summary.latency_bound_s and the tags' share. */
static inline int an_bucket_latency_bound(const struct an_eval *ev,
                                          const struct an_bucket *b)
{
    return ev->have_model && b->count > 0 &&
           b->bytes / (double)b->count * ev->sec_per_byte < ev->latency_s;
}

/* cp_tags.c: the per-tag sums (an->nccl.tags) from the buckets of every
 * evaluated (comm, slot), named by names (may be NULL).  0, or -1 when
 * memory ran out. */
int an_tags_build(struct cp_analysis *an, const struct an_state *st,
                  const struct an_eval *ev, size_t nev,
                  const struct cp_tagnames *names);

/* cp_phases.c: the kernels' initial-sync skew (an->nccl.phases) from the
 * plugin logs, after the clock offsets.  0, or -1 when memory ran out. */
int an_phases_build(struct cp_analysis *an);

/* The rank the phases clearly put last (ph->last[0] when it came last at
 * 10 instances or more, half of them or more, and twice as often as the
 * next rank), or NULL; it points into ph. */
const struct cp_analysis_phase_rank *
an_phases_clear_last(const struct cp_analysis_phases *ph);

struct cp_links;

/* cp_slowdown.c: after the fit, the windows' busbw, latency-bound share
 * and slowness (an->timeline) from st->timeline's details.  0 or -1 (out
 * of memory). */
int an_timeline_details(struct cp_analysis *an, const struct an_state *st,
                        int64_t warmup_end_ns);
/* cp_slowdown.c: the slowdown finding, from what an_timeline_details
 * computed.  0 or -1. */
int an_slowdown(struct cp_analysis *an);

/* cp_slowdown.c: the model's L and W of (link, coll, p), the windows'
 * and the long run's; 0 when there is none. */
int an_key_model(const struct cp_analysis *an, unsigned link,
                 enum cp_coll coll, unsigned p, double *L, double *W);

/* ---- cp_longrun.c: a long run's aggregates (kind 12) joined across the
 * ranks, bounded (docs/analysis.md, "Long runs") ---- */
struct an_longrun;
struct an_longrun *an_longrun_create(void);
void an_longrun_free(struct an_longrun *lr);
/* A log's header with CP_HDR_POLICY. */
void an_longrun_policy(struct an_longrun *lr, const struct cp_log_header *h);
/* Whether the policy's rule keeps seq (1 also without one policy for
 * every log); 0 counts an instance that a trigger kept on some members
 * only (an incomplete instance of no window: not a missing member). */
int an_longrun_rule_keeps(struct an_longrun *lr, uint32_t seq);
/* One rank's aggregate r, of file `file`, on communicator c (index comm,
 * nranks members); raw_first_ns: r->first_ns. */
void an_longrun_add(struct an_longrun *lr, int32_t file, uint32_t comm,
                    uint32_t nranks, const struct cp_rec_agg *r);
/* An aggregate left out (unknown communicator, implausible figures). */
void an_longrun_left_out(struct an_longrun *lr);
/* A joined collective instance, as the detail windows keep it. */
struct an_lr_inst {
    uint32_t seq;
    uint32_t comm;     /* index into st->comms (an->comms) */
    unsigned slot;     /* an_inst.coll */
    unsigned members;
    int64_t start, end;
    int32_t last_file; /* judged for arrivals (complete, two members or
                          more): its last arrival's file; else -1 */
    double late_s;     /* last arrival - second to last */
    double time_s;     /* own time x share + skew */
    double own_s;      /* own time; NaN when not timed alone (grouped,
                          incomplete) */
    double n;          /* nccl-tests' S, bytes */
};
/* cp_lrcells.c: the detail windows per communicator (cells), bounded:
 * a dense array of cells, an index by (window, communicator). */
struct an_lrcell;
struct an_wcells {
    struct an_lrcell *cells;
    size_t n, cap;
    uint32_t *hash; /* cell + 1, 0 empty; hcap slots */
    size_t hcap;
    uint64_t left_out; /* instances past the bound, or memory */
};
void an_wcells_add(struct an_wcells *w, uint32_t index,
                   const struct an_lr_inst *x);
void an_wcells_free(struct an_wcells *w);
/* out->wcells, by start, times since origin.  0 or -1 (memory). */
int an_wcells_build(const struct an_wcells *w, int64_t origin,
                    struct cp_analysis_long_run *out);

/* A collective instance joined from kept calls: its detail window. */
void an_longrun_instance(struct an_longrun *lr, const struct an_lr_inst *x);
/* After the fit: an->long_run from st->longrun.  0 or -1 (memory). */
int an_longrun_build(struct cp_analysis *an, const struct an_state *st);
/* After the detectors: an->long_run.intervals built again from the join's
 * cells with neighbouring intervals merged two into one (long_run.merged
 * grows) until at most max remain, and the findings' first_interval and
 * last_interval (indices into them) moved to the merged interval that
 * holds theirs.  0 or -1 (memory). */
int an_longrun_coarsen(struct cp_analysis *an, struct an_state *st,
                       size_t max);

/* cp_stream.c: the wall time of the union of busy intervals, in s. */
double an_busy_total_s(const struct an_busy *u);


/* ---- cp_view.c: what the detectors ask of the joined run, and the lists
 * of findings and problems they add to ---- */

/* Append one finding (message already formatted, ranks and
 * nodes copied); its evidence is an empty object to fill.  0 or -1. */
int an_add_finding(struct cp_analysis *an, enum cp_kind kind,
                   enum cp_severity sev, const int *ranks,
                   size_t nranks, const unsigned *nodes, size_t nnodes,
                   const char *message);

/* Take finding i out of the list (freed; the later ones move up), for a
 * finding whose cause another one names and now holds as evidence. */
void an_drop_finding(struct cp_analysis *an, size_t i);

/* A problem of the inputs (file, offset or -1, text; a text starting with
 * "file: " or "offset N: " loses that part).  -1 when memory ran out. */
int an_add_problem(struct cp_analysis *an, const char *file, int64_t offset,
                   const char *text);

/* The successful call number idx (0-based, as cp_steps counts) of rank's
 * log: its communicator, sequence, op and start.  0, 1 when the log has
 * fewer calls, -1 with err filled when it cannot be read. */
int an_nth_call(const struct cp_analysis *an, long rank, uint64_t idx,
                struct cp_rec_call *out, struct cp_error *err);

/* A reader of an input's log that starts from its first check
 * (in->log: cp_logfile_check) instead of checking the file again. */
struct cp_scan *an_scan_reopen(const struct cp_analysis_input *in,
                               size_t buf_size, struct cp_error *err);
struct cp_logfile *an_logfile_reopen(const struct cp_analysis_input *in,
                                     struct cp_error *err);

/* Inputs by process (pid and node name), sorted, for finding a process's
 * other log (the shim's and the plugin's) without a search of all the
 * inputs for each input (quadratic: 16,384 processes of two logs each
 * were 500 million compares). */
struct an_proc {
    int pid;
    unsigned input;
    const char *node;
};
struct an_proc_index {
    size_t n;
    struct an_proc *v;
};
/* The inputs for which keep() says 1.  0, or -1 when memory ran out. */
int an_proc_index_build(const struct cp_analysis *an,
                        int (*keep)(const struct cp_analysis_input *),
                        struct an_proc_index *ix);
/* The highest input index in ix of the process pid on node, -1 none. */
long an_proc_index_last(const struct an_proc_index *ix, int pid,
                        const char *node);
void an_proc_index_free(struct an_proc_index *ix);

/* The clock offset applied to the times of an->ranks[rank]'s node, ns. */
int64_t an_node_offset_ns(const struct cp_analysis *an, size_t rank);

/* The earliest start, offset-corrected, of the call (comm_id, seq, op)
 * in the log of every rank but skip_rank (an index into an->ranks), each
 * log read from its sync point AN_CALL_MAX_NS before *earliest (the start
 * of a call of it known) up to that call, or to a call that starts
 * AN_CALL_MAX_NS after: lowers *earliest.  place: the memory of one
 * scan (cp_scan_place_size(buf_size, 0) bytes), for each log in turn.
 * -1 at the first log that cannot be read (err says which). */
int an_instance_earliest(const struct cp_analysis *an, long skip_rank,
                         uint64_t comm_id, uint32_t seq, uint8_t op,
                         void *place, size_t buf_size, int64_t *earliest,
                         struct cp_error *err);

#endif
