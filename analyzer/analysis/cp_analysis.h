/* cp_analysis.h - where the communication time of a job went.
 *
 * cp_analysis_run() reads every rank log of a job as one stream (a merge by
 * completion time across ranks, in bounded memory), joins the records of
 * each collective instance across ranks, fits the alpha-beta model per link
 * class, aggregates per (collective, communicator, size) and names what is
 * wrong (findings).  The result is a plain struct that a report writer
 * renders without recomputing anything; cp_analysis_to_json() is the JSON
 * writer (schema: docs/report-schema.md; method: docs/analysis.md).
 *
 * Like the rest of libcollprof-analysis this never prints: problems with
 * inputs are collected in the result (`problems`, `inputs`), a fatal error
 * fills the caller's struct cp_error.
 */
#ifndef COLLPROF_CP_ANALYSIS_H
#define COLLPROF_CP_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cp_error.h"
#include "cp_kinds.h"
#include "cp_model.h"
#include "cp_profile.h"

#define CP_REPORT_SCHEMA "collprof.report/1"

/* The report's per-process tables (ranks[], topology.ranks[],
 * inputs.files[]) list every process of a job of up to this many; a larger
 * job gets the distribution of each per-rank figure and its worst ranks
 * and nodes instead (docs/report-schema.md, `rank_summary`). */
#define CP_REPORT_RANK_TABLE_MAX 256u
/* ranks (and nodes) listed at each end of a figure's distribution */
#define CP_REPORT_WORST 16u
/* communicators long_run.intervals[].comms lists of a long run of more
 * (besides those a finding names; every one with rank_table_max UINT_MAX):
 * docs/report-schema.md, `long_run` */
#define CP_REPORT_LR_COMMS 16u
/* intervals long_run.intervals lists at most (every one with
 * rank_table_max UINT_MAX): past it, after the detectors judged the
 * intervals as the join kept them, neighbours are merged two into one
 * (long_run.merged) in the document; docs/report-schema.md, `long_run` */
#define CP_REPORT_LR_INTERVALS 2048u


/* Where a link class's alpha and bandwidth came from. */
enum cp_link_source {
    CP_SOURCE_NONE = 0,  /* neither a fit nor a profile: no model */
    CP_SOURCE_FIT = 1,   /* fitted to this job's calls */
    CP_SOURCE_PROFILE = 2, /* the site profile (missing keys: the fit) */
    CP_SOURCE_PORTS = 3  /* the NICs' port rate from the port snapshots */
};
const char *cp_link_source_name(enum cp_link_source source);

struct cp_probeview;
struct cp_ncjoin;
struct cp_partial_set;
struct cp_tagnames;
struct cp_analysis_input;

struct cp_analysis_opts {
    /* Expected link speeds; NULL: fit only.  Copied by cp_analysis_run. */
    const struct cp_profile *profile;
    unsigned steps;      /* training steps in the run; 0: estimate */
    double bucket_bytes; /* fusion bucket to evaluate; 0: recommend */
    /* Called now and then from inside cp_analysis_run (may be NULL):
     * bytes of records read so far and in all. */
    void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
    void *progress_ctx;
    /* The node-pair measurements of collprof probe (cp_probeview.h) to fold
     * into the slow-link analysis; NULL: none.  Read, not kept: the result
     * copies what it uses. */
    const struct cp_probeview *probe;
    /* A probe.json found next to the logs and not used (over its caps,
     * cp_probeview.h): one more input problem, naming its file; NULL:
     * none. */
    const struct cp_error *probe_skipped;
    /* The window to analyze: only calls that start in [window_from_ns,
     * window_to_ns) (CLOCK_REALTIME ns on the reference node's clock, node
     * offsets applied: summary.start_ns is the scale) are read; INT64_MIN /
     * INT64_MAX: open.  docs/analysis.md, "Windows". */
    int64_t window_from_ns, window_to_ns;
    /* window_from_ns and window_to_ns (those not open) are times since the
     * run's first call, which the analysis finds in each log's first calls
     * (an_first_call_ns) instead of a caller's analysis of the whole run:
     * window_origin_ns is then that call's start */
    int window_since_first;
    /* for the report: how the window was asked for ("--skip-steps 1"; NULL:
     * "--from/--to") and the first start of the whole run it was cut from
     * (the origin of the window's from_s and to_s; INT64_MIN: this run's) */
    const char *window_by;
    int64_t window_origin_ns;
    /* a window of whole steps: how many (summary.steps); 0: not known */
    unsigned window_steps;
    /* the largest job whose per-process tables the report lists in full:
     * 0 means CP_REPORT_RANK_TABLE_MAX, UINT_MAX every job */
    unsigned rank_table_max;
    /* threads to use (collprof analyze -j): 0 or 1, the calling thread
     * only; N > 1 adds N - 1 threads that read the logs ahead of the join.
     * The result is the same whatever the number. */
    unsigned jobs;
    /* names for the application's tag values (COLLPROF_TAGS, --tags;
     * cp_tagnames.h); NULL: none.  Read, not kept: the result copies the
     * names it uses. */
    const struct cp_tagnames *tag_names;
    /* A live analysis (collprof watch) of a job still running: whether
     * the process of the log `in` is still running (1), gone (0) or not
     * known (-1), asked by the hang pass of each log not closed.  NULL: a
     * finished job, where a log left unclosed outside any call is a
     * process that died. */
    int (*alive)(void *ctx, const struct cp_analysis_input *in);
    void *alive_ctx;
    /* A long run's changes (a slowdown or straggler since an interval)
     * are not followed by an analysis of the detail since then
     * (analyzer/judge/cp_since.c): set for that nested run itself, and
     * where its cost is not wanted (collprof watch). */
    int no_since;
    /* That nested run (cp_judge.c sets it): no hang pass (its findings
     * are not adopted, and it would read every log once more), and its
     * findings' detail_windows without a sentence (the whole run's adds
     * one on its own axis). */
    int nested;
};

/* Zero options: fit only, estimate the steps, recommend the bucket. */
void cp_analysis_opts_init(struct cp_analysis_opts *opts);

/* ---- the result ---------------------------------------------------------- */

enum cp_analysis_input_status {
    CP_INPUT_OK = 0,      /* read to the end without a problem */
    CP_INPUT_DAMAGED = 1, /* read, but records were skipped (problems) */
    CP_INPUT_SKIPPED = 2, /* not analyzed: another job */
    CP_INPUT_UNREADABLE = 3 /* empty, foreign, truncated header, missing */
};
const char *cp_analysis_input_status_name(enum cp_analysis_input_status status);

/* One file given (or found in a directory given). */
struct cp_analysis_input {
    char *path;
    enum cp_analysis_input_status status;
    int global_rank; /* -1 when unknown or unreadable */
    int world_size;  /* the header's, -1 unknown */
    int pid;
    char node[64];
    char job_id[32];
    char step_id[32];
    unsigned timer;  /* enum cp_timer of the header */
    unsigned source; /* enum cp_log_source of the header */
    int evidence_only; /* a plugin log of a process the shim also logged:
                          its calls are the shim's (counted once), its
                          NCCL records still feed the nccl_profiler view */
    int closed;      /* the writer closed it (not killed) */
    int has_phases;  /* a pass that read it whole (the main pass, the NCCL
                        view) met a kernel phase (kind 10): the phases'
                        pass (cp_phases.c) reads only such logs */
    uint64_t records; /* records read */
    uint64_t calls;
    uint64_t skipped_records; /* unknown kind, bad timestamps */
    uint64_t truncated_bytes;
    uint64_t records_dropped; /* the writer's own count (header) */
    int header_times_bad; /* its header's start or end is a time no job can
                             have (cp_log_header_time_problem): a problem */
    /* what its first open checked (cp_logread.h: cp_logfile_known), for
     * every later pass; NULL when it could not be read */
    struct cp_logfile_known *log;
};

/* One problem with an input: the file, the byte offset (-1: the file as a
 * whole) and a sentence (without the file name). */
struct cp_analysis_problem {
    char *file;
    int64_t offset;
    char *message;
};

struct cp_analysis_node {
    char name[64];
    unsigned ranks;      /* processes analyzed on it */
    int offset_known;    /* 1 when the clock offset was estimated */
    double offset_s;     /* its clock minus the reference node's, as
                            applied to its times: offset_estimate_s when
                            offset_significant, else 0 */
    double offset_estimate_s; /* the estimate, within [low, high] */
    uint64_t offset_samples; /* instances the estimate rests on */
    /* what causality allows: the true offset lies in [low, high] (both
     * finite when offset_known); significant when 0 lies outside */
    double offset_low_s, offset_high_s;
    int offset_significant;
};

struct cp_analysis_rank {
    int rank;           /* global rank (-1 unknown: then input index) */
    unsigned node;      /* index into nodes */
    unsigned input;     /* index into inputs */
    uint64_t calls;     /* call records, failed included */
    uint64_t failed;
    double time_s;      /* sum of its call durations (waiting included) */
    uint64_t last_arrivals; /* instances it arrived at last (of >= 2) */
    double late_s;      /* sum over those of last - second-to-last start */
    /* the additive delay its collectives show beyond their peers' (the
     * max-plus estimate of cp_links.c); NaN when nothing bounds it */
    double delay_s;
    int straggler;      /* named by a straggler finding (in-call delay) */
    double delay_cost_s; /* rank-seconds the others waited for that delay */
    unsigned delay_units; /* observations the estimate rests on */
    /* named for a communicator delayed many times over whose other
     * members' communicators show none of it (cp_links.c break_ties): that
     * communicator (index into comms, -1 none) and the units of the rank's
     * other communicators that show the delay */
    int tie_comm;
    unsigned tie_units;
};

/* Quantiles of a skew, s (NaN without instances). */
struct cp_analysis_skew_q {
    double p50_s, p90_s, max_s;
};

struct cp_analysis_comm {
    uint64_t id;
    unsigned nranks;
    enum cp_link_class link;
    char name[17];      /* from the communicator record, may be "" */
    unsigned nnodes;
    unsigned *nodes;    /* node indices of the members seen, sorted */
    int *ranks;         /* [nranks]: global rank of each comm rank, -1 */
    uint64_t instances; /* collective instances (p2p pairs not included) */
    uint64_t incomplete; /* instances with fewer members than nranks */
    unsigned missing;   /* members without a log (ranks[r] == -1): then
                           nodes lists only the members' seen, and a
                           communicator seen on one node is of unknown
                           link class (not judged as intra) */
    uint64_t p2p;       /* send/recv pairs */
    double time_s;      /* own time of its instances */
    /* arrival skew of its instances outside groups (+-0.8 %): median, 90th
     * and 99th percentile, the largest; NaN without instances */
    double skew_p50_s, skew_p90_s, skew_p99_s, skew_max_s;
    /* its slowness is the subject of a slow_link, slow_link_candidates or
     * straggler finding (low_busbw does not repeat it) */
    int explained;
    /* 1: its bandwidth-bound calls all ran as fast as the same calls on
     * other communicators (cp_links.c); -1: some did not; 0: no peers */
    int peers_ok;
    /* > 0: its calls all start this late inside (far above the run's
     * noise and its quickest calls) on account of one member that the
     * calls cannot tell from the others (cp_links.c); 0 none */
    double tied_delay_s;
    /* the kernels' own skew of its instances whose initial-sync phases
     * two members or more reported (cp_phases.c); 0 instances: none */
    uint64_t kernel_instances;
    struct cp_analysis_skew_q kernel_skew;
};

/* The model used for one link class. */
struct cp_analysis_link {
    enum cp_link_source source;
    double alpha_s;       /* NaN when source is NONE */
    double bandwidth_Bps; /* 1/beta; NaN when source is NONE */
    /* the fit of the job's own calls (whatever source is) */
    int fit_ok;
    double fit_alpha_s, fit_bandwidth_Bps;
    double fit_median_rel_residual, fit_r2;
    unsigned fit_points, fit_points_used;
    uint64_t fit_calls_used;
    char fit_why[160]; /* when !fit_ok */
    /* a fit on few points or of poor quality: shown, never the ground of a
     * warning (docs/analysis.md, "Fit") */
    int fit_weak;
    char fit_weak_why[128];
    /* measured: bandwidth-bound calls of the class */
    uint64_t bw_calls;
    double busbw_Bps;       /* sum f*n / sum t */
    double model_busbw_Bps; /* sum f*n / sum model time of the same calls */
    double expected_Bps;    /* the absolute reference of the class's
                               bandwidth: the profile, else (inter) the
                               NICs' port rate; NaN: none, bandwidth is not
                               judged against an absolute */
    enum cp_link_source expected_source;
    /* busbw of the bandwidth-bound calls by the model with the reference's
     * bandwidth (NaN without a reference) */
    double reference_busbw_Bps;
};

/* Codes of CP_NCCL_ALGO_TABLE and CP_NCCL_PROTO_TABLE (with 0). */
#define CP_ANALYSIS_ALGOS 8
#define CP_ANALYSIS_PROTOS 4

/* One aggregate: calls of one collective on one communicator whose size n
 * (nccl-tests' S) is in [bucket_lo, 2 bucket_lo) (bucket_lo 0: n = 0). */
struct cp_analysis_row {
    unsigned comm;           /* index into comms */
    enum cp_coll coll;
    enum cp_link_class link; /* the communicator's; for sendrecv the pair's;
                                intra for copy-engine collectives */
    int copy_engine;         /* its calls ran as copy-engine collectives
                                (plugin API v6+): a kind of their own */
    double bucket_lo;
    uint64_t calls;
    uint64_t incomplete, grouped;
    double bytes;       /* sum of n */
    double time_s;      /* sum of own time; a call of a group of k calls
                           counts 1/k of the group's interval */
    double skew_s;      /* sum of arrival skew */
    double p50_s, p99_s; /* of own time (grouped: the whole interval),
                            +-0.8 % */
    double algbw_Bps;   /* bytes / sum of own time (grouped: the whole
                           interval: the calls of a group run together) */
    double busbw_Bps;   /* algbw * f */
    double model_time_s; /* NaN without a model */
    double efficiency;  /* model_time_s / sum of own time (as algbw); NaN
                           when the calls ran over EFFICIENCY_MAX times
                           faster than the model (model_mismatch) */
    int model_mismatch; /* the model does not describe these calls */
    enum cp_regime regime; /* of most of its time; NONE: no model */
    double latency_share; /* of its time in latency-bound calls */
    /* instances by the algorithm / protocol NCCL chose (the plugin's
     * record of a member; index: CP_NCCL_ALGO/PROTO_TABLE code, 0 unknown
     * or no plugin record) */
    uint64_t algo_calls[CP_ANALYSIS_ALGOS];
    uint64_t proto_calls[CP_ANALYSIS_PROTOS];
};

struct cp_analysis_finding {
    enum cp_kind kind;      /* its row in the kinds' table (cp_kinds.h) */
    enum cp_severity severity;
    size_t nranks;
    int *ranks;             /* global ranks */
    size_t nnodes;
    unsigned *nodes;        /* node indices */
    char *message;          /* one sentence */
    json_t *evidence;       /* an object of numbers and short strings */
};

/* ---- the node-pair view (cp_links.c; docs/analysis.md "Slow links") ---- */

/* Where a node pair's estimate (state, bandwidth, efficiency) came from. */
enum cp_pair_source {
    CP_PAIR_FROM_CALLS = 0, /* the job's own calls (cp_links.c) */
    CP_PAIR_FROM_PROBE = 1  /* collprof probe: the calls left it unknown */
};
/* "calls", "probe"; NULL out of range. */
const char *cp_pair_source_name(enum cp_pair_source source);

enum cp_pair_state {
    CP_PAIR_OK = 0,      /* a unit crossing it ran as fast as its peers */
    CP_PAIR_SLOW = 1,    /* named: the only pair a slow unit can blame */
    CP_PAIR_SUSPECT = 2, /* a candidate of a slow unit with several */
    CP_PAIR_UNCLEAR = 3  /* neither cleared nor blamed */
};
/* "ok", "slow", "suspect", "unclear"; NULL out of range. */
const char *cp_pair_state_name(enum cp_pair_state state);

enum cp_unit_verdict {
    CP_UNIT_NONE = 0,        /* not used for links, or in between */
    CP_UNIT_CLEARS = 1,      /* as fast as its peers: its pairs are ok */
    CP_UNIT_SLOW = 2,        /* slow, one candidate pair: named */
    CP_UNIT_EXPLAINED = 3,   /* slow, crosses a pair named by another */
    CP_UNIT_UNRESOLVED = 4,  /* slow, several candidates */
    CP_UNIT_INCONSISTENT = 5, /* slow, but all its pairs were cleared */
    CP_UNIT_MAYBE = 6        /* slow or nearly, but the calls cannot be
                                sure (cp_links.c): a hint */
};
/* "none", "clears", "slow", "explained", "unresolved", "inconsistent",
 * "maybe". */
const char *cp_unit_verdict_name(enum cp_unit_verdict verdict);

enum cp_baseline {
    CP_BASELINE_NONE = 0,
    CP_BASELINE_PEERS = 1, /* the same shape elsewhere in the job */
    CP_BASELINE_MODEL = 2, /* no peer: the link class's model */
    CP_BASELINE_REFERENCE = 3 /* no peer: the model's latency and the
                               * class's absolute reference bandwidth
                               * (profile or the NICs' port rate) */
};
/* "none", "peers", "model", "reference". */
const char *cp_baseline_name(enum cp_baseline baseline);

/* A node pair crossed by bandwidth-bound traffic. */
struct cp_analysis_pair {
    unsigned a, b;            /* node indices, a < b */
    enum cp_pair_state state;
    double slowdown;          /* smallest (time - delay) / peer time of the
                                 units crossing it */
    double efficiency;        /* peers' bandwidth term / its own, the best
                                 of its units */
    double bandwidth_Bps;     /* reference x efficiency; NaN without one */
    unsigned units;           /* bandwidth-bound units crossing it */
    uint64_t calls;
    uint64_t slow_calls;      /* calls of its units at or above their slow
                                 threshold: a slow pair named on fewer than
                                 CP_LINKS_MIN_SLOW_CALLS is only a hint */
    enum cp_pair_source source; /* of state, bandwidth_Bps and efficiency */
    /* collprof probe's measurement of the pair, whatever the source */
    int probed;
    int probe_slow;             /* the probe judged it slow */
    enum cp_pair_state calls_state; /* the calls' state (probed pairs) */
    double probe_bandwidth_Bps, probe_efficiency, probe_latency_s;
};

/* One observation: the calls of one (communicator, collective, size
 * bucket), or of one point-to-point (communicator, sender node, receiver
 * node, size bucket). */
struct cp_analysis_unit {
    unsigned comm;            /* index into comms */
    enum cp_coll coll;        /* CP_COLL_SENDRECV for point-to-point */
    unsigned bucket;          /* collectives: the size bucket of its calls
                                 (an_bucket_index) */
    int src_node, dst_node;   /* point-to-point: node indices; else -1 */
    int exchange;             /* point-to-point exchanges (cp_links.h) */
    double bytes;             /* mean n */
    uint64_t calls;
    double time_s;            /* median own time */
    double delay_s;           /* straggler delay subtracted (collectives) */
    double peer_time_s;       /* the baseline; NaN when none */
    enum cp_baseline baseline;
    uint64_t clean_calls;     /* calls whose members came together (their
                                 own time is wire time: an_bucket.tw) */
    int floored;              /* the peers' time was under the bandwidth
                                 term at the NICs' rate: raised to it */
    unsigned peers;           /* units of its shape, itself included */
    double bandwidth_share;   /* model's n W / (L + n W); NaN no model */
    double slowdown;          /* (time - delay) / peer time; NaN */
    double bw_slowdown;       /* the same for the bandwidth terms */
    enum cp_unit_verdict verdict;
    int contradicted;         /* CP_UNIT_MAYBE: slow, but weaker units over
                                 its pairs were not (cp_links.c) */
    size_t npairs;
    unsigned *pairs;          /* indices into topology.pairs */
};

/* The probe folded in (opts.probe), for the report and the messages. */
struct cp_analysis_probe {
    char *file;               /* NULL: no probe */
    size_t nodes;             /* the probe's nodes */
    size_t matched_nodes;     /* of them in the job */
    size_t pairs;             /* its pairs between two nodes of the job */
    size_t slow_pairs;        /* of them judged slow by the probe */
    size_t nunknown;
    char **unknown;           /* its node names that are not the job's */
    double reference_Bps;     /* the probe's reference (median or profile) */
    char reference_source[16];
    double median_latency_s;
};

struct cp_analysis_topology {
    double reference_Bps;     /* the inter model's bandwidth; NaN none */
    enum cp_link_source reference_source;
    double slow_threshold;    /* slowdown from which a collective unit is
                               * slow: 1.45, or 3x the run's noise */
    double slow_threshold_p2p; /* the same for point-to-point units */
    double ok_threshold;      /* below it a unit clears its pairs */
    double min_bandwidth_share;
    double straggler_delay_s; /* in-call delay threshold (NaN: no units) */
    size_t npairs;
    struct cp_analysis_pair *pairs; /* slowest first */
    size_t nunits;
    struct cp_analysis_unit *units; /* by comm, collective, size */
    struct cp_analysis_probe probe;
};

/* One RDMA port of a node of the job, from the port snapshots found next
 * to the logs (cp_ports.h). */
struct cp_analysis_port {
    unsigned node;        /* index into nodes */
    char device[64];
    unsigned port;
    char state[32];
    char link_layer[32];
    double rate_Gbps;     /* at the end, else the start; NaN unknown */
    double peer_rate_Gbps; /* most common among the job's active ports of
                              the same link layer */
    int have_start, have_end;
    json_t *rose;         /* error counters that rose: name -> increase */
    char why[256];        /* why it is degraded; "" when it is not */
};

struct cp_analysis_ports {
    unsigned snapshots;   /* snapshot files read */
    size_t nports;
    struct cp_analysis_port *ports;
    size_t nproblems;
    struct cp_analysis_problem *problems; /* unreadable snapshots */
};

/* One time window of the run (docs/report-schema.md, `timeline`). */
struct cp_analysis_window {
    /* seconds since the run's first start (the start of summary.span_s);
     * windows are contiguous, equal in width except the first and the last,
     * which are clipped to the span */
    double start_s, end_s;
    /* the instances' and pairs' own time falling in the window (the
     * measure of summary.comm_time_s: a call spanning windows is split
     * between them in proportion, so the windows add up to the summary) */
    double comm_time_s;
    double op_time_s[CP_COLL_COUNT]; /* comm_time_s per collective */
    /* of the instances and pairs that ended in the window: */
    uint64_t calls;
    double bytes;       /* sum of n (nccl-tests' S) */
    double wait_time_s; /* rank-seconds waiting for the last arrival */
    /* after the fit (cp_slowdown.c), of the calls that began in it (the
     * last arrival):
     * sum f n / sum own time of the judged calls not latency-bound by the
     * model (all judged calls of a class without one); NaN without any */
    double busbw_Bps;
    /* of their own time (x share) with a model, the latency-bound calls'
     * share; NaN when no call of the window has a model */
    double latency_share;
    /* its judged calls' own time over the same calls' typical time in the
     * run (cp_slowdown.c); NaN with too few calls to compare */
    double slowness;
    int warmup; /* it starts before the first step ended: not compared */
};

/* Communication over the run, in at most 128 windows of equal width. */
struct cp_analysis_timeline {
    double window_s; /* the width of a window (a power of two of ns) */
    size_t nwindows;
    struct cp_analysis_window *windows; /* in time order */
};

/* ---- a long run under a capture policy (cp_longrun.c; docs/analysis.md,
 * "Long runs"; report.json `long_run`) ---- */

/* One communicator in one interval, from the aggregates (kind 12) of its
 * ranks joined by (interval, communicator, signature). */
struct cp_analysis_lr_comm {
    unsigned comm;        /* index into comms */
    unsigned ranks;       /* ranks whose aggregates were joined (the most
                             of any of its signatures) */
    uint64_t calls;       /* folded calls, over its ranks */
    double instances;     /* calls per rank (send/recv: pairs) */
    double nccl_s;        /* the calls' durations summed over the ranks */
    /* of its collectives outside groups, joined over >= 1 rank: */
    double own_s;         /* estimated own time: per signature, the least
                             rank mean duration x instances */
    double busbw_Bps;     /* sum f n / own time of the signatures the model
                             does not call latency-bound; NaN none */
    double skew_s;        /* mean arrival skew per instance (largest rank
                             mean - least); NaN with one rank */
    int last_rank;        /* global rank of the least mean (last arrival)
                             of its signature of most own time; -1 */
    double latency_share; /* of own_s with a model, latency-bound; NaN */
};

/* One interval of the policy (those with some aggregate), on the
 * timeline's axis (seconds since summary.start_ns). */
struct cp_analysis_lr_interval {
    double start_s, end_s;
    size_t first, n;      /* its communicators: lr_comms[first .. +n) */
    double nccl_s, own_s; /* the communicators' sums */
    double steps;         /* instances / (instances per step of the
                             detail), NaN when the steps are not known */
};

/* A detail window of the policy (kept calls), as a time span. */
/* index bit: instances kept outside the rule's windows on every member
 * (a trigger's window, or a killed run's last calls), by the period they
 * fall in (1 + seq / every) */
#define CP_ANALYSIS_LR_OUTSIDE 0x80000000u
struct cp_analysis_lr_window {
    uint32_t index;       /* 0: the first calls (seq < first), k >= 1:
                             seqs [(k-1) every, (k-1) every + window);
                             | CP_ANALYSIS_LR_OUTSIDE: kept outside
                             them, seqs [(k-1) every, k every) (every
                             0: k = 1, seqs from first on) */
    double start_s, end_s;
    uint64_t instances;   /* collective instances joined in it */
};

/* One communicator's instances of one detail window (cp_lrcells.c), what
 * the findings' tests per window read (analyzer/judge/cp_det_windows.c):
 * the windows of communicators called at different rates lie at
 * different times, so a window is judged per communicator. */
#define CP_ANALYSIS_WCELL_LAST 8
#define CP_ANALYSIS_WCELL_KEYS 4
#define CP_ANALYSIS_WCELL_BINS 48
struct cp_analysis_wcell {
    uint32_t index;       /* the window's, as cp_analysis_lr_window's */
    unsigned comm;        /* index into comms */
    double start_s, end_s; /* its instances' first start and last end */
    uint64_t instances;
    /* those judged for arrivals (complete, two members or more, as the
     * straggler detector's): how many, the sum of 1 / members (the last
     * arrivals a member would have by chance), their lateness (last
     * arrival - second to last) and own time x share + skew, summed; and
     * the ranks last most often, weighted by lateness (space-saving:
     * exact while the cell has at most CP_ANALYSIS_WCELL_LAST distinct
     * last ranks; rank: index into ranks, -1 unused) */
    uint64_t judged;
    double fair, late_s, time_s;
    struct {
        int rank;
        uint64_t count;
        double late_s;
    } last[CP_ANALYSIS_WCELL_LAST];
    /* the own time of its instances timed alone (outside groups, every
     * member) per (slot, size bucket as an_bucket_index): the first
     * CP_ANALYSIS_WCELL_KEYS of them, each a histogram of 1/8 octave
     * (bin i: own time in [2^((lo+i)/8), 2^((lo+i+1)/8)) ns, the ends
     * open), lo 24 bins (3 octaves) below its first call's */
    unsigned nkeys;
    uint64_t keys_lost;   /* instances of other keys */
    struct cp_analysis_wkey {
        unsigned slot, bucket;
        uint64_t calls;
        int32_t lo;
        uint32_t bins[CP_ANALYSIS_WCELL_BINS];
    } keys[CP_ANALYSIS_WCELL_KEYS];
};

/* The q-quantile (0..1) of a key's own times, s: the middle of its bin
 * (+-4.4 %); NaN without calls. */
double cp_analysis_wkey_quantile(const struct cp_analysis_wkey *k, double q);

struct cp_analysis_long_run {
    int present;          /* some log has CP_HDR_POLICY */
    uint32_t first, window, every, interval_ms; /* the first such log's */
    int policies_differ;  /* another log says otherwise */
    double interval_s;    /* an interval here: interval_ms x 2^merged */
    unsigned merged;      /* past the bound, intervals merged 2^merged */
    uint64_t records;     /* aggregates joined */
    uint64_t records_left_out; /* unknown communicator, implausible */
    uint64_t folded_calls, kept_calls;
    uint64_t triggered_partial; /* instances outside the rule's windows
                                   that some ranks' logs lack (a trigger's,
                                   the ring's last): not incomplete */
    size_t nintervals;
    struct cp_analysis_lr_interval *intervals; /* in time order */
    size_t nlr_comms;
    struct cp_analysis_lr_comm *lr_comms;
    size_t nwindows;
    struct cp_analysis_lr_window *windows; /* by start */
    uint64_t windows_left_out; /* instances of windows past the bound */
    size_t nwcells;
    struct cp_analysis_wcell *wcells; /* by start */
    uint64_t wcells_left_out; /* instances of cells past the bound */
};

struct cp_analysis_summary {
    uint64_t records;       /* records read from the analyzed inputs */
    uint64_t calls;         /* call records */
    uint64_t failed_calls;  /* result != 0 or no sequence */
    uint64_t instances;     /* collective instances */
    uint64_t incomplete_instances;
    uint64_t p2p_pairs;
    uint64_t unmatched_p2p; /* a send or recv whose other half never came */
    uint64_t late_records;  /* members that came after their instance was
                               closed (clock offsets beyond the window) */
    uint64_t unjoinable_calls; /* no communicator id */
    double comm_time_s;     /* sum of instances' own time */
    double skew_time_s;     /* sum of instances' arrival skew */
    double wait_time_s;     /* rank-seconds waiting for the last arrival */
    double rank_time_s;     /* sum of every call's duration over ranks */
    double busy_s;          /* wall time with some call in progress */
    double rank_share_median; /* of span_s, each rank's time in NCCL */
    double rank_share_max;
    int rank_share_max_rank;  /* global rank of the worst, -1 */
    double latency_bound_s; /* own time of latency-bound calls */
    double latency_bound_share; /* of comm_time_s, NaN without a model */
    double span_s;          /* first start to last end */
    int64_t start_ns;       /* the first start: CLOCK_REALTIME ns on the
                               reference node's clock (offsets applied) */
    uint64_t outside_calls; /* calls read and left out: they started
                               outside the window (opts.window_*) */
    size_t logs_seeked;     /* logs of a window read from a sync point
                               past their start */
    unsigned steps;
    char steps_method[128]; /* "--steps", "pattern of N calls on comm X",
                               "none (one step assumed)" */
    double bucket_bytes;    /* the fusion bucket evaluated */
    unsigned timer;         /* most common enum cp_timer of the inputs */
    unsigned inputs_skipped; /* skipped or unreadable inputs */
    size_t nmissing;
    int *missing_ranks;     /* global ranks absent below world_size */
};

struct cp_hang; /* cp_hang.h */

/* One collective instance among the slowest (docs/report-schema.md,
 * `slowest`). */
struct cp_analysis_instance {
    unsigned comm;       /* index into comms */
    enum cp_coll coll;
    int copy_engine;     /* a copy-engine collective (judged as intra) */
    uint32_t seq;
    double bytes;        /* nccl-tests' S */
    unsigned members;    /* ranks whose call was seen */
    double start_s;      /* first arrival, seconds since summary.start_ns */
    double own_s;        /* last arrival to last end */
    double model_s;      /* the model's time; NaN without a model */
    double skew_s;       /* first to last arrival */
    int last_rank;       /* global rank of the last arrival */
    unsigned last_node;  /* index into nodes */
    double late_s;       /* last arrival minus the second-to-last */
    unsigned algo, proto; /* NCCL's choice (the plugin's record), 0 unknown */
};

/* The part of the run analyzed (docs/report-schema.md, summary.window). */
struct cp_analysis_window_info {
    int active;          /* 0: the whole run */
    char by[64];         /* "the whole run", "--skip-steps 2", ... */
    double from_s, to_s; /* since the whole run's first call; NaN: open */
    uint64_t calls_left_out;
    size_t logs_from_sync_point; /* read from the sync point before the
                                    window, not from their start */
};

/* What NCCL's profiler plugin logs add (cp_ncclview.c). */
struct cp_analysis_algo_row {
    unsigned op;    /* enum cp_op */
    uint64_t bytes; /* size class: the power of two at or below the size */
    unsigned algo, proto; /* CP_NCCL_ALGO_TABLE / CP_NCCL_PROTO_TABLE */
    uint64_t calls;
};

/* Sends from one node to another, from the plugin's proxy operations. */
struct cp_analysis_net_link {
    unsigned from, to; /* node indices */
    uint64_t bytes;
    uint64_t ops;      /* proxy operations */
    double busy_s;     /* sum of posted -> done over their steps */
    double bandwidth_Bps; /* bytes / busy_s: what the job got */
    double step_bandwidth_Bps; /* its records' fastest steps' bytes /
                                  time, their 75th percentile, in the step
                                  size class that judges it: what the link
                                  can do, the figure judged */
    double step_bytes; /* that class's mean bytes a step */
    double median_Bps; /* that class's median link, NAN: not judged */
    unsigned judged_with; /* links judged in that class, 0: not judged */
    int slow;          /* below CP_NET_SLOW x its class's median */
};

/* The calls of one application tag (ncclCollConfig_t's userProfilerTag,
 * plugin API v7's kind 9 record; cp_tags.c): collective instances and
 * send/recv pairs by the tag of their first member with one, summed as
 * collectives[] rows sum them. */
struct cp_analysis_tag {
    uint64_t value;  /* the tag; 0: untagged */
    int other;       /* tags past the first CP_NCJOIN_TAGS_MAX of the run */
    int none;        /* calls without a tag record */
    char name[65];   /* given by COLLPROF_TAGS / --tags; "" none */
    uint64_t calls;
    double bytes;      /* sum of n, nccl-tests' S */
    double time_s;     /* own time, a group's calls 1/k each (comm_time_s) */
    double duration_s; /* own time, no share: for busbw */
    double fn;         /* sum of f n (f: each collective's busbw factor) */
    double modeled_s;  /* time_s of the calls that have a model */
    double latency_bound_s; /* time_s of those the model calls
                               latency-bound (by their size bucket, as
                               summary.latency_bound_s) */
};

struct cp_analysis_tags {
    int present;      /* some call had a tag record (plugin API v7) */
    const char *why;  /* when not: why not (static text) */
    size_t n;
    struct cp_analysis_tag *v; /* by value, the other tags last */
    struct cp_analysis_tag none; /* the calls without a tag record */
    uint64_t records;  /* tag records joined to a call */
    uint64_t named;    /* names given */
};

/* Quantiles of a skew (or of a difference of two), seconds; NaN without
 * instances. */
/* The last-arrival skew the kernels measured themselves (plugin API v7's
 * initial-sync phases; cp_phases.c): per instance with two members or more
 * whose kernels reported the phase, the spread of their waits (one device
 * clock each, no clock correction), beside the host-clock skew of the same
 * instances (their kernels' starts, offset-corrected). */
/* A rank that came last to instances, by the kernels' phases. */
struct cp_analysis_phase_rank {
    int rank;               /* global rank */
    uint64_t last_arrivals; /* instances at which its kernel waited least */
    double late_s;          /* sum over them of the next-least wait minus
                               its own: by how much it came last */
};

#define CP_PHASES_LAST_MAX 8

struct cp_analysis_phases {
    const char *why;     /* no instance: why not (static text); else NULL */
    uint64_t records;    /* initial-sync records read */
    uint64_t damaged;    /* of which left out: a GPU time 0 or backwards */
    uint64_t instances;  /* instances with two members' phases or more */
    struct cp_analysis_skew_q skew;       /* from the phases */
    struct cp_analysis_skew_q host_skew;  /* from the host clocks */
    struct cp_analysis_skew_q difference; /* |phases - host| per instance */
    /* the ranks that came last most often, most first (ties: lower rank) */
    size_t nlast;
    struct cp_analysis_phase_rank last[CP_PHASES_LAST_MAX];
};

struct cp_analysis_nccl {
    int present;        /* some input is a plugin log */
    size_t nalgo;
    struct cp_analysis_algo_row *algo;
    size_t nlinks;
    struct cp_analysis_net_link *links;
    double median_Bps;  /* step bandwidth, of the links with enough bytes */
    uint64_t proxy_ops; /* proxy operations read: a kind 7 record is one,
                           a kind 11 record the operations it merged */
    uint64_t link_records; /* kind 11 records read */
    /* the join of each analyzed call with the plugin's record of it
     * (cp_ncjoin.h): processes with both logs, and plugin logs analyzed
     * alone (joined with themselves) */
    struct cp_ncjoin *join;
    unsigned join_processes, join_plugin_only_processes;
    uint64_t join_calls;       /* calls that got the plugin's record */
    uint64_t join_shim_only;   /* shim calls the plugin has no record of */
    uint64_t join_plugin_only; /* plugin calls (not from a graph) the shim
                                  did not see */
    uint64_t join_graph_calls; /* plugin calls launched from a CUDA graph */
    uint64_t join_gpu;         /* joined calls with a kernel interval */
    uint64_t join_replays;     /* graph launches added to shim streams */
    uint64_t captures_left_out; /* the shim's records of those captures */
    uint64_t gpu_timed;        /* analyzed calls timed by that interval */
    struct cp_analysis_tags tags; /* per application tag */
    struct cp_analysis_phases phases; /* the kernels' own skew */
};

struct cp_analysis {
    char job_id[32];
    char step_id[32];
    int world_size;         /* from the headers, -1 unknown */
    struct cp_analysis_summary summary;
    struct cp_analysis_window_info window;
    /* where the steps were found (cp_steps): the rank (index into ranks;
     * -1: no steps found) whose successful calls first + k period begin
     * step k >= 1 (cp_analysis_step_window) */
    struct {
        long rank;
        size_t first, period;
    } steps_at;
    /* descriptors of inputs kept open between passes (inputs[].log->fd),
     * never more than fd_budget (below the limit on open files) */
    size_t fds_kept, fd_budget;
    struct cp_analysis_link model[CP_LINK_COUNT];
    unsigned offset_reference; /* index into nodes */
    uint64_t offset_instances; /* instances the offsets rest on */
    size_t nnodes;
    struct cp_analysis_node *nodes;
    size_t nranks;
    struct cp_analysis_rank *ranks;  /* sorted by global rank */
    size_t ncomms;
    struct cp_analysis_comm *comms;  /* by first appearance */
    size_t nrows;
    struct cp_analysis_row *rows; /* by comm, collective, size */
    struct cp_analysis_timeline timeline;
    struct cp_analysis_long_run long_run;
    struct cp_analysis_topology topology;
    struct cp_analysis_ports ports;
    /* the AN_TOP (50) collective instances of longest own time and of
     * largest arrival skew (complete or not, outside groups), largest
     * first */
    size_t nslowest_own, nslowest_skew;
    struct cp_analysis_instance *slowest_own, *slowest_skew;
    struct cp_analysis_nccl nccl;
    size_t nfindings;
    struct cp_analysis_finding *findings; /* most severe first */
    size_t ninputs, inputs_cap;
    struct cp_analysis_input *inputs;
    /* the inputs' checks (inputs[].log point into them): one block per
     * path given, not one allocation per file */
    size_t nknown_blocks;
    struct cp_logfile_known **known_blocks;
    /* the node partials the inputs are read from (inputs[].log->partial
     * point into it; cp_partial_src.h) */
    struct cp_partial_set *partials;
    size_t nproblems;
    struct cp_analysis_problem *problems;
    /* what an unfinished job was doing (cp_hang.h); NULL: nothing to say */
    struct cp_hang *hang;
    /* the report's full per-process tables up to this many processes
     * (cp_analysis_opts.rank_table_max, 0 replaced by the default) */
    unsigned rank_table_max;
    /* cp_analysis_opts.alive: a live analysis (NULL: a finished job) */
    int (*alive)(void *ctx, const struct cp_analysis_input *in);
    void *alive_ctx;
    int nested; /* cp_analysis_opts.nested */
    /* the window the passes read (cp_analysis_opts.window_from_ns and
     * window_to_ns, made absolute): each log is read from the sync point
     * before win_lo_ns to a call that starts AN_WINDOW_SLACK_NS past
     * win_hi_ns (INT64_MIN / INT64_MAX: open) */
    int64_t win_lo_ns, win_hi_ns;
};

/* The report (docs/report-schema.md), keys in a stable order.  New
 * reference owned by the caller; NULL when memory ran out. */
json_t *cp_analysis_to_json(const struct cp_analysis *an);

/* A range of training steps "A:B" (steps A to B-1, counted from 0), "A:"
 * or ":B": *from / *to are -1 for an open end.  -1 with err filled. */
int cp_analysis_parse_steps(const char *text, long *from, long *to,
                            struct cp_error *err);

/* Where steps [from, to) of an analysed run begin and end (the scale of
 * summary.start_ns; from or to -1: open, giving INT64_MIN / INT64_MAX).
 * -1 with err filled when the run's steps are not known that far, or no
 * steps were found.  The last step runs to the end of the run. */
int cp_analysis_step_window(const struct cp_analysis *an, long from, long to,
                            int64_t *from_ns, int64_t *to_ns,
                            struct cp_error *err);

/* The model's time of one call of coll on p ranks (point-to-point: 2) and
 * n bytes (nccl-tests' S) over links of class link: the canonical
 * algorithm the analysis uses with the model of that class.  NaN without
 * a model. */
double cp_analysis_model_time(const struct cp_analysis *an,
                              enum cp_link_class link, enum cp_coll coll,
                              unsigned p, double n);

/* The most severe finding's severity, or -1 without findings. */
int cp_analysis_worst_severity(const struct cp_analysis *an);

/* The first finding of kind, or NULL. */
const struct cp_analysis_finding *
cp_analysis_finding_of(const struct cp_analysis *an, enum cp_kind kind);

/* Destroy; accepts NULL, keeps errno. */
void cp_analysis_destroy(struct cp_analysis *an);

#endif
