/* cp_fleet_judge.h - the fleet's verdicts from the evidence of every
 * ingested step (docs/fleet.md, "Judging"): per node pair (the links),
 * per node (stragglers) and per port (error counters, rate).  The rules
 * and their thresholds are one table, cp_fleet_rules[], which docs/fleet.md
 * and collprof.fleet/1's `rules` repeat.  Never prints. */
#ifndef COLLPROF_CP_FLEET_JUDGE_H
#define COLLPROF_CP_FLEET_JUDGE_H

#include <stddef.h>

#include "cp_fleet_db.h"
#include "cp_fleet_table.h"
#include "cp_fleet_time.h"

/* Worst first: the order of the sort. */
enum cp_fleet_verdict {
    CP_FLEET_BAD,
    CP_FLEET_SUSPECT,
    CP_FLEET_OK,
    CP_FLEET_NO_EVIDENCE,
};

/* "bad", "suspect", "ok", "no_evidence". */
const char *cp_fleet_verdict_name(enum cp_fleet_verdict v);

#define CP_FLEET_HISTORY_MAX 200 /* history entries kept per item */

/* The rules, in the order of cp_fleet_rules[]. */
enum cp_fleet_rule_id {
    CP_FLEET_LINK_BAD_RULE,
    CP_FLEET_LINK_SUSPECT_RULE,
    CP_FLEET_LINK_OK_RULE,
    CP_FLEET_LINK_NO_EVIDENCE_RULE,
    CP_FLEET_NODE_BAD_RULE,
    CP_FLEET_NODE_SUSPECT_RULE,
    CP_FLEET_NODE_OK_RULE,
    CP_FLEET_PORT_BAD_RULE,
    CP_FLEET_PORT_SUSPECT_RULE,
    CP_FLEET_PORT_OK_RULE,
    CP_FLEET_NRULES
};

/* One rule and its thresholds (0: not used by the rule). */
struct cp_fleet_rule {
    const char *name;   /* "link_bad", ... */
    const char *text;   /* the rule in one line */
    long long min_jobs; /* jobs (slow, straggling, counting errors) */
    long long min_also; /* link_suspect: jobs that listed it as a candidate */
    long long min_users; /* node_bad: users of those jobs */
    double share;       /* link_bad: above this share of the measuring jobs;
                         * node_bad: at least this share of its jobs;
                         * port_bad: a rate below this share of its peers' */
};

/* The one table of the fleet's rules, indexed by enum cp_fleet_rule_id;
 * docs/fleet.md repeats it. */
extern const struct cp_fleet_rule cp_fleet_rules[CP_FLEET_NRULES];
extern const size_t cp_fleet_nrules;

/* Columns of cp_fleet_view.link_rows (one row per step and pair, ordered
 * by pair, then end time). */
enum {
    LR_A, LR_B, LR_CLUSTER, LR_JOB, LR_STEP, LR_USER, LR_END, LR_BANDWIDTH,
    LR_REFERENCE, LR_EFFICIENCY, LR_SOURCE, LR_VERDICT, LR_COLS
};
/* cp_fleet_view.node_rows: per step and node, by node, then end time. */
enum {
    NR_NODE, NR_CLUSTER, NR_JOB, NR_STEP, NR_USER, NR_END, NR_STRAGGLER,
    NR_DELAY, NR_WEAK, NR_COLS
};

struct cp_fleet_port_ref {
    const char *node, *device;
    long long port;
    double rate_Gbps;
};

struct cp_fleet_link {
    const char *a, *b;
    enum cp_fleet_verdict verdict;
    long long jobs_crossed, jobs_measured, jobs_slow, jobs_suspect, users;
    double median_efficiency, reference_Bps;
    const char *first_slow, *last_slow; /* ISO or NULL */
    size_t row0, nrows;                 /* its rows of link_rows */
    struct cp_fleet_port_ref *ports;    /* either end's, as last seen */
    size_t nports;
};

struct cp_fleet_node {
    const char *node;
    enum cp_fleet_verdict verdict;
    long long jobs, jobs_straggler, jobs_weak, users, users_straggler;
    double median_delay_s;
    size_t row0, nrows; /* its rows of node_rows */
};

struct cp_fleet_counter {
    const char *name;
    double increase; /* summed over its steps */
};

struct cp_fleet_port {
    const char *node, *device;
    long long port;
    enum cp_fleet_verdict verdict;
    long long jobs, jobs_errors, jobs_slow_rate;
    double rate_Gbps, peer_rate_Gbps; /* as last seen */
    const char *state, *last_seen;
    struct cp_fleet_counter *counters;
    size_t ncounters;
};

struct cp_fleet_summary {
    long long jobs, steps, users, nodes, pairs;
    long long bad_links, suspect_links, no_evidence_links, bad_nodes,
        suspect_nodes, bad_ports, suspect_ports;
};

/* What the fleet's evidence says, over the steps that ended since `since`. */
struct cp_fleet_view {
    char generated[CP_FLEET_TIME_SIZE];
    char since[CP_FLEET_TIME_SIZE]; /* "" for all time */
    char db[4096];
    struct cp_fleet_summary summary;
    struct cp_fleet_link *links; /* worst first */
    size_t nlinks;
    struct cp_fleet_node *nodes; /* worst first */
    size_t nnodes;
    struct cp_fleet_port *ports; /* worst first */
    size_t nports;
    struct cp_fleet_table link_rows, node_rows, port_rows, counter_rows;
};

/* Judge the fleet in db over the steps that ended at or after since
 * (seconds since the epoch; NaN: all), at time now.  v starts zeroed;
 * cp_fleet_view_free() it.  0 or -1. */
int cp_fleet_judge(struct cp_fleet_db *db, double since, double now,
                   struct cp_fleet_view *v, struct cp_error *err);

void cp_fleet_view_free(struct cp_fleet_view *v);

#endif
