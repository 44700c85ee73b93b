/* cp_html_int.h - what the pages of report.json and probe.json share: a
 * checked, typed view of the document, and the parts of report.html that
 * probe.html reuses.
 *
 * cp_html_view.c builds the view once (every key the page reads is checked
 * there, so that a bad document fails with the key's name before anything
 * is written); the pages (cp_html.c, cp_html_probe.c), the hang section
 * (cp_html_hang.c) and the plots (cp_html_plots.c) only read it, never
 * the JSON: the view holds no json_t.  Strings point into the JSON object,
 * which outlives the view; everything else the view allocates is freed by
 * rp_view_free.  Missing numbers (JSON null, as the analyzer writes
 * non-finite values) are NaN.
 */
#ifndef COLLPROF_CP_HTML_INT_H
#define COLLPROF_CP_HTML_INT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "cp_error.h"
#include "cp_kinds.h"

/* Bounds that keep a 4096-rank page small. */
#define RP_TABLE_ROWS 20      /* rows of a table before "N more" */
#define RP_LIST_ITEMS 24      /* ranks or nodes named in one finding */
#define RP_TIME_PLOTS 6       /* time-vs-size plots (collective groups) */
#define RP_BUSBW_COMMS 6      /* communicators in the busbw plot */
#define RP_HEAT_CELLS 64      /* heatmap side; more nodes are aggregated */
#define RP_RANK_BARS 512      /* lateness bars; more ranks are binned */
#define RP_PROBLEMS 20        /* input problems listed */

/* A list of names (strings of the document), or of global ranks. */
struct rp_names {
    const char **name;
    size_t n;
};

struct rp_ranks {
    long long *rank; /* -1: unknown */
    size_t n;
};

struct rp_link {
    const char *name; /* "intra", "inter" (the key in `model`) */
    const char *source;
    double alpha_s, bandwidth_Bps;
    double busbw_Bps, model_busbw_Bps, expected_Bps;
    const char *expected_source;
    double r2, median_rel_residual, calls_used, bw_calls;
    int fit_ok;
    const char *fit_why; /* NULL when the fit is fine */
    int fit_weak;        /* few points or poor quality */
    const char *fit_weak_why;
    double fit_points_used;
};

/* Quantiles of a skew (NaN: none) and where they come from. */
struct rp_skew_q {
    double p50_s, p90_s, max_s;
    const char *source;
};

struct rp_comm {
    const char *id, *name, *link;
    double nranks, instances, incomplete, p2p, time_s;
    struct rp_names nodes;
    struct rp_ranks ranks; /* communicators[].ranks (none when null) */
    /* communicators[].skew: p50_s, p90_s, p99_s, max_s (NaN: none);
     * has_skew 0: the report has none */
    int has_skew;
    double skew_s[4];
    const char *skew_source; /* skew.source; NULL when the report has none */
    /* communicators[].kernel_skew (optional): kernel_instances 0 when the
     * report has none */
    double kernel_instances;
    struct rp_skew_q kernel_skew;
    /* from its rows: bandwidth-bound calls against the model */
    double bw_model_s, bw_time_s;
};

struct rp_row {
    const char *op, *comm, *link, *regime;
    const char *path; /* "copy_engine", NULL: NCCL's kernels */
    long comm_index; /* into comms, -1 when unknown */
    double nranks, bucket, calls, bytes, time_s, p50_s, p99_s, skew_s;
    double algbw_Bps, busbw_Bps, model_time_s, efficiency, latency_share;
};

struct rp_rank {
    double rank;
    const char *node;
    double calls, failed, time_s, last_arrivals, late_s;
};

/* A name and its position, sorted by name for bsearch. */
struct name_index {
    const char *name;
    size_t index;
};


/* A value of a finding's evidence, free-form JSON that the page shows as
 * it is: a small tree the view copies from the document.  A container
 * RP_EV_DEPTH levels below the evidence keeps its type but not its
 * members (the page shows such a value as an ellipsis). */
#define RP_EV_DEPTH 3

enum rp_ev_type {
    RP_EV_NULL,
    RP_EV_BOOL,
    RP_EV_NUMBER,
    RP_EV_STRING,
    RP_EV_ARRAY,
    RP_EV_OBJECT
};

struct rp_ev {
    enum rp_ev_type type;
    const char *key; /* its key in an object, NULL in an array */
    const char *str; /* RP_EV_STRING's */
    double num;      /* RP_EV_NUMBER's (at report precision) */
    int yes;         /* RP_EV_BOOL's */
    size_t n;        /* members of an array or object */
    struct rp_ev *item; /* its n members, in the document's order */
};

struct rp_finding {
    const char *kind, *severity, *message;
    /* the kind in the kinds' table (cp_kinds.h); CP_KIND_COUNT: a kind
     * this build does not know (a newer analyzer's) */
    enum cp_kind kid;
    const char *suggestion; /* the report's own, NULL: derived by kind */
    enum cp_severity sev;
    struct rp_names nodes;
    struct rp_ranks ranks;
    /* an RP_EV_OBJECT, NULL when the finding has none; one allocation
     * holds the whole tree */
    struct rp_ev *evidence;
};

struct rp_summary {
    double calls, failed_calls, instances, incomplete_instances, p2p_pairs;
    double comm_time_s, skew_time_s, wait_time_s, rank_time_s;
    double latency_bound_s, latency_bound_share, span_s, steps, bucket_bytes;
    double records, skipped_inputs;
    const char *steps_method, *timer;
    struct rp_ranks missing_ranks;
};

/* The statuses of a log file (inputs.files[].status), in the order of
 * rp_inputs.status. */
#define RP_INPUT_STATUSES 4
extern const char *const rp_input_status[RP_INPUT_STATUSES];

struct rp_input_file {
    const char *file, *status;
};

struct rp_input_problem {
    const char *file, *message;
    double offset; /* NaN: none */
};

/* report.json's `inputs`; present 0: the report has none. */
struct rp_inputs {
    int present;
    size_t nfiles, nproblems;
    struct rp_input_file *files;
    struct rp_input_problem *problems;
    /* a large job's inputs.summary (has_summary): every file's count, by
     * status, and how many files and problems the lists hold */
    int has_summary;
    double files_total, listed, problems_total;
    double status[RP_INPUT_STATUSES];
};

/* A row of nccl_profiler.tags.by_tag (numbers NaN, name NULL: none). */
struct rp_tag {
    double tag; /* NaN: the other tags */
    const char *name;
    double calls, bytes, time_s, time_share, busbw_Bps;
    double latency_bound_s, latency_bound_share;
};

/* nccl_profiler.tags; present 0: the report has none. */
struct rp_tags {
    int present, available;
    const char *why; /* NULL when the report gives none */
    double tag_records, names_given; /* NaN: none */
    size_t nrows;
    struct rp_tag *rows;
    /* without_tag_record, its tag and name NaN and NULL; has_untagged 0:
     * the report has none (null) */
    int has_untagged;
    struct rp_tag untagged;
};

/* Skew quantiles of nccl_profiler.phases (NaN: none; source NULL: none). */
/* A rank of nccl_profiler.phases.last_arrivals. */
struct rp_phase_rank {
    double rank, last_arrivals, late_s;
};

/* nccl_profiler.phases: the last-arrival skew the kernels measured
 * themselves (initial-sync phases), beside the hosts' of the same
 * instances; present 0: the report has none. */
struct rp_phases {
    int present;
    double records, damaged, instances;
    const char *why; /* NULL when there are instances */
    struct rp_skew_q skew, host_skew, difference;
    size_t nlast;
    struct rp_phase_rank *last;
};

/* A collective instance of report.json's `slowest` lists. */
struct rp_instance {
    const char *op, *comm;
    const char *path; /* "copy_engine", NULL: NCCL's kernels */
    const char *comm_name, *last_node; /* NULL when the report has none */
    double seq, start_s, own_s, skew_s;
    double bytes, model_s, vs_model, last_rank, late_by_s; /* NaN: none */
};

/* A node pair of the node-pair view (topology.pairs[]): report.json's
 * from the slow-link analysis, probe.json's from collprof probe. */
struct rp_pair {
    const char *nodes[2];
    const char *state;  /* NULL when the document has none */
    const char *source; /* where its estimate is from; NULL: not said */
    double efficiency;
    /* probe.json's measurement (NaN in a report) */
    double bandwidth_Bps, latency_s, bytes, round;
};

/* The node-pair view (topology): its nodes, and the efficiency of each
 * pair as a K x K matrix (row-major, NaN: none; NULL when the document
 * has no matrix, as for very many nodes). */
struct rp_topology {
    int present;
    struct rp_names nodes;
    double *efficiency;
};

/* A collective's time in a window (timeline.windows[].op_time_s). */
struct rp_op_time {
    const char *op;
    double time_s; /* NaN: null */
};

/* A window of the timeline (numbers NaN: none). */
struct rp_period {
    double start_s, end_s, comm_time_s, calls, bytes, wait_time_s;
    size_t nops;
    struct rp_op_time *ops; /* a slice of rp_timeline.op_times */
};

/* report.json's `timeline`: communication time per window; present 0:
 * none. */
struct rp_timeline {
    int present;
    double window_s; /* NaN: none */
    size_t nwindows;
    struct rp_period *windows;
    struct rp_op_time *op_times; /* every window's, in order */
};

/* report.json's `long_run`: busbw per communicator over the whole run,
 * for the RP_LR_SERIES communicators of most own time, each at most
 * RP_LR_POINTS points (consecutive intervals averaged); present 0: none. */
#define RP_LR_SERIES 8
#define RP_LR_POINTS 600
struct rp_lr_series {
    const char *comm, *name; /* name "" unknown */
    double own_s;            /* over the run */
    size_t n;
    double *t, *busbw_Bps;   /* [n]: the points' middles, NaN none */
};
struct rp_long_run {
    int present;
    double interval_s, end_s;
    size_t nintervals, ncomms; /* communicators in all */
    size_t nseries;
    struct rp_lr_series series[RP_LR_SERIES];
    size_t nwindows;
    double *win_start, *win_end; /* the detail windows */
};

/* probe.json's run and reference (numbers NaN, strings NULL: none). */
struct rp_probe {
    double rounds, wall_s;
    double reference_Bps, median_latency_s;
    const char *reference_source;
};

/* rank_summary's figures that the pages read, in rp_report.figures. */
enum rp_figure_id {
    RP_FIG_CALLS,
    RP_FIG_FAILED,
    RP_FIG_TIME,          /* time_s */
    RP_FIG_LAST_ARRIVALS,
    RP_FIG_LATE,          /* late_s */
    RP_FIG_IN_CALL_DELAY, /* in_call_delay_s */
    RP_FIGURES
};

/* A figure's quantiles over the ranks, in rp_figure.q. */
enum rp_quantile {
    RP_Q_MEAN,
    RP_Q_MIN,
    RP_Q_P10,
    RP_Q_P25,
    RP_Q_P50,
    RP_Q_P75,
    RP_Q_P90,
    RP_Q_P99,
    RP_Q_MAX,
    RP_QUANTILES
};

/* A figure's lists of the ranks (or nodes) at its ends. */
enum rp_worst_list {
    RP_HIGHEST,
    RP_LOWEST,
    RP_NODES_HIGHEST,
    RP_NODES_LOWEST,
    RP_WORST_LISTS
};

struct rp_worst {
    double rank; /* NaN in the nodes' lists */
    const char *node;
    double value; /* NaN: none */
};

/* A per-rank figure of a large job (rank_summary.figures.<name>);
 * present 0: the report has none. */
struct rp_figure {
    int present;
    double q[RP_QUANTILES]; /* NaN: none */
    /* its histogram: counts of ranks in equal bins from lo to hi (NaN
     * and none without one) */
    double lo, hi;
    size_t ncounts;
    double *counts;
    size_t nworst[RP_WORST_LISTS];
    struct rp_worst *worst[RP_WORST_LISTS];
};

/* summary.window: the part of the run analyzed; present 0: none. */
struct rp_window {
    int present;
    const char *by;
    double from_s, to_s, calls_left_out; /* NaN: none */
};

/* A call a rank of a hang never left (hang.ranks[].in_flight). */
struct rp_hang_call {
    const char *op, *communicator; /* "" when the report has none */
    long long seq;                 /* -1: none */
};

/* A communicator rank of hang.communicators[].members. */
struct rp_hang_member {
    long long rank;                        /* global; -1: no log */
    long long last_entered, last_finished; /* sequence numbers; -1: none */
};

struct rp_hang_comm {
    const char *name;
    struct rp_hang_member *members; /* a slice of rp_hang.members */
    size_t nmembers;
};

struct rp_hang_rank {
    long long rank;
    const char *node, *where; /* "" when the report has none */
    int culprit;
    int in_call; /* in_flight is a call, not null */
    struct rp_hang_call in_flight;
};

/* report.json's `hang` (docs/report-schema.md); present 0: none. */
struct rp_hang {
    int present;
    const char *headline;
    size_t nranks, ncomms;
    struct rp_hang_rank *ranks;
    struct rp_hang_comm *comms;
    struct rp_hang_member *members; /* every communicator's, in order */
};

struct rp_report {
    const char *schema, *generator, *job_id, *step_id;
    struct rp_names nodes; /* job.nodes (probe.json: topology.nodes) */
    size_t nnodes;         /* nodes.n */
    struct name_index *node_order; /* job.nodes sorted by name */
    double world_size, processes;
    struct rp_summary sum;
    size_t nlinks;
    struct rp_link links[4];
    size_t ncomms, nrows, nranks, nfindings;
    struct rp_comm *comms;
    struct rp_row *rows;
    struct rp_rank *ranks;
    struct rp_finding *findings; /* most severe first */
    struct rp_hang hang;
    struct rp_inputs inputs;
    struct rp_topology topology; /* of the slow-link analysis, or none */
    size_t npairs;
    struct rp_pair *pairs; /* topology.pairs, in the report's order */
    struct rp_timeline timeline;
    struct rp_long_run long_run;
    /* the slowest instances (`slowest`: by_own_time, by_skew); has_slowest
     * 0: the report has no such section */
    int has_slowest;
    size_t nslowest[2];
    struct rp_instance *slowest[2];
    struct rp_window window;
    struct rp_tags tags;
    struct rp_phases phases;
    /* a large job's per-rank figures (rank_summary, docs/report-schema.md):
     * has_rank_summary 0 when the report lists every process; total_ranks:
     * the processes the per-rank figures cover */
    int has_rank_summary;
    struct rp_figure figures[RP_FIGURES];
    double total_ranks;
    /* pages other than report.html (the probe's): the page title, and what
     * the heatmap's efficiencies are (NULL: report.html's wording) */
    const char *title;
    const char *topology_caption;
    struct rp_probe probe; /* probe.html's */
};

/* The view of a collprof.report/1 object (rp_view_report) or of a
 * collprof.probe/1 one (rp_view_probe): 0, or -1 with err naming the key
 * that is wrong (the view is then empty).  root must outlive the view;
 * rp_view_free releases what the view allocated (safe on an empty one). */
int rp_view_report(json_t *root, struct rp_report *r, struct cp_error *err);
int rp_view_probe(json_t *root, struct rp_report *r, struct cp_error *err);
void rp_view_free(struct rp_report *r);

/* A page of doc: its view built by `view`, written to out by `page`, and
 * out flushed (cp_html.c).  0, or -1 with err set (a bad document, or
 * writing failed). */
int rp_render(json_t *doc, FILE *out, struct cp_error *err,
              int (*view)(json_t *, struct rp_report *, struct cp_error *),
              void (*page)(FILE *, const struct rp_report *));

/* The model of link class `name`, NULL when the report has none. */
const struct rp_link *rp_link_get(const struct rp_report *r,
                                  const char *name);

/* Member `key` of evidence object ev (NULL when ev is NULL, not an
 * object, or has no such key); as a number (NaN when it is not one), a
 * string (NULL when not one), or whether it is true. */
const struct rp_ev *rp_ev_get(const struct rp_ev *ev, const char *key);
double rp_ev_num(const struct rp_ev *ev, const char *key);
const char *rp_ev_str(const struct rp_ev *ev, const char *key);
int rp_ev_true(const struct rp_ev *ev, const char *key);

/* Index of node `name` in job.nodes, -1 when absent. */
long rp_node_index(const struct rp_report *r, const char *name);

/* report.json's `hang` as the page's first section (cp_html_hang.c);
 * nothing when the report has none. */
void rp_write_hang(FILE *out, const struct rp_report *r);

/* The plots (cp_html_plots.c); each writes one <figure>. */
void rp_plot_time_vs_size(FILE *out, const struct rp_report *r);
void rp_plot_busbw(FILE *out, const struct rp_report *r);
void rp_plot_histogram(FILE *out, const struct rp_report *r);
void rp_plot_heatmap(FILE *out, const struct rp_report *r);
void rp_plot_lateness(FILE *out, const struct rp_report *r);
void rp_plot_timeline(FILE *out, const struct rp_report *r);
/* busbw per communicator over a long run; nothing without `long_run` */
void rp_plot_long_run(FILE *out, const struct rp_report *r);
/* Communicator ci (index into r->comms): its calls' time against size, and
 * its arrival skew's quantiles; number makes the figures' ids unique.  The
 * skew figure writes nothing without quantiles. */
void rp_plot_comm(FILE *out, const struct rp_report *r, size_t ci,
                  size_t number);
void rp_plot_skew(FILE *out, const struct rp_report *r, size_t ci,
                  size_t number);

/* A display name for a communicator: its name, else its id. */
const char *rp_comm_label(const struct rp_comm *c);

/* Parts of report.html (cp_html.c) that probe.html writes too: the head
 * up to <body> (the page's title and the stylesheet), the findings'
 * section, and a finding's severity as a CSS class. */
void rp_write_head(FILE *out, const struct rp_report *r);
void rp_write_findings(FILE *out, const struct rp_report *r);
const char *rp_sev_class(enum cp_severity s);

#endif
