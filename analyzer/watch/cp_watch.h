/* cp_watch.h - a running job's rank logs, followed as they grow (collprof
 * watch; docs/watch.md).
 *
 * A cp_watch follows every shim log (version 4) of one directory, new ones
 * included: each poll reads what the stream gained since the last
 * (cp_log4src's follow mode: the cost of a poll is what was written since,
 * never the log's length) and looks at the ring past it for the calls in
 * flight.  What it keeps per log is a few numbers: the oldest call in
 * flight and since when, the latest end, whether the writer closed it;
 * per (communicator, op) the longest call seen finished.  That is enough to
 * suspect a hang cheaply; naming it (which rank never arrived, where it
 * was instead) is the post-run analysis's hang pass, run on the logs as
 * they are when a suspicion is raised (cmd_watch.c).  Never prints.
 */
#ifndef COLLPROF_CP_WATCH_H
#define COLLPROF_CP_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cp_error.h"

struct cp_watch;

/* Follow the logs of dir (none need exist yet).  NULL with err. */
struct cp_watch *cp_watch_open(const char *dir, struct cp_error *err);
void cp_watch_close(struct cp_watch *w);

/* One node's watcher (collprof watch --node; docs/watch.md, "Under
 * Slurm"): follow only the logs written on node (their header's node); the
 * others are known by name only.  lead: also read the other nodes' states
 * at each poll (DIR/watch-NODE.state, cp_watch_state_write), and take
 * from them the other nodes' calls in flight, whether their writers run,
 * their communicators' paces and who arrived last; a state older than
 * stale_s is not believed.  0, or -1 with err. */
int cp_watch_set_node(struct cp_watch *w, const char *node, int lead,
                      double stale_s, struct cp_error *err);

/* This node's state for the lead, DIR/watch-NODE.state, whole or not at
 * all (a temporary renamed over it): per log followed its rank, whether
 * its writer runs, closed, its oldest call in flight; per communicator
 * and op its longest call and the last poll's busbw sums; the arrivals
 * of the instances completed since the last state (at most 64 per
 * communicator).  A few hundred bytes for a node of 8 ranks.  0, or -1
 * with err; nothing without a node set. */
int cp_watch_state_write(struct cp_watch *w, struct cp_error *err);

/* Look for new logs, read what each gained, look at their rings.  A log
 * that cannot be followed (a version-3 log, the other byte order, a
 * damaged stream) is noted once in *note (the caller says it) and left
 * alone.  0, or -1 with err (the directory unreadable, out of memory). */
int cp_watch_poll(struct cp_watch *w, struct cp_error *note,
                  struct cp_error *err);

/* A call in flight past its limit: max(hang_after_ns, factor x the
 * longest call of its communicator and op seen finished). */
struct cp_watch_suspect {
    int global_rank;
    char node[64];
    char path[4096];
    uint8_t op;
    uint64_t comm_id;
    uint32_t seq;
    uint64_t since_ns; /* its start, CLOCK_REALTIME */
    uint64_t limit_ns; /* the limit it passed */
};
/* The oldest such call at now_ns (CLOCK_REALTIME): 1 with *s filled, 0
 * when there is none. */
int cp_watch_suspect(const struct cp_watch *w, uint64_t now_ns,
                     uint64_t hang_after_ns, double factor,
                     struct cp_watch_suspect *s);

/* A communicator whose calls have been slower than the run's own pace for
 * a while: the bus bandwidth of its recent looks (a fast average) below
 * half that of the run so far (a slow average, which a slow stretch does
 * not drag down), for at least slow_after_ns.  A suspicion only: the
 * analysis says whether it is a slowdown (cmd_watch.c). */
struct cp_watch_slow {
    uint64_t comm_id;
    unsigned coll;        /* enum cp_coll */
    double recent_Bps, run_Bps;
    uint64_t since_ns;    /* CLOCK_REALTIME */
};
/* The slowest such communicator at now_ns: 1 with *out, 0 none. */
int cp_watch_slow(const struct cp_watch *w, uint64_t now_ns,
                  uint64_t slow_after_ns, struct cp_watch_slow *out);

/* A rank last at most of a communicator's recent instances: in the
 * `window` newest instances complete (every rank heard), at least window/2
 * of them, last at a share of them or more, with a median spread of
 * arrivals at those of min_spread_ns or more.  The strongest such: 1 with
 * *out, 0 none.  A suspicion only (each host's clock): the analysis says
 * whether it is a straggler (cmd_watch.c). */
struct cp_watch_straggler {
    uint64_t comm_id;
    uint32_t nranks;
    int global_rank;
    unsigned last_of, complete;
    uint64_t spread_ns;
};
int cp_watch_straggler(const struct cp_watch *w, size_t window, double share,
                       uint64_t min_spread_ns, struct cp_watch_straggler *out);

/* Per communicator and collective, what collprof watch --top shows: calls
 * in flight on it (ranks followed, and other nodes' from their states)
 * and the oldest's age, the busbw of the last poll with calls, the rank
 * last at most of its `window` newest complete instances. */
struct cp_watch_comm {
    uint64_t comm_id;
    char name[64];
    unsigned coll; /* enum cp_coll */
    uint32_t nranks;
    unsigned inflight;
    uint64_t oldest_ns;
    double busbw;
    int last_rank; /* -1: none yet */
    unsigned last_of, complete;
};
void cp_watch_comms(const struct cp_watch *w, uint64_t now_ns, size_t window,
                    void (*fn)(void *arg, const struct cp_watch_comm *c),
                    void *arg);

/* Logs followed, and in *done how many are over: closed by their writer,
 * or written by a process of this host that has ended. */
size_t cp_watch_logs(const struct cp_watch *w, size_t *done);

/* Whether the process that writes the log path (a log followed, matched by
 * its file name) still runs: 1, 0, or -1 when this host cannot tell
 * (another host's process, a log not followed).  A pid reused by another
 * process since is taken for the writer (docs/watch.md). */
int cp_watch_alive(const struct cp_watch *w, const char *path);

/* The metrics of the logs followed, in Prometheus's text exposition
 * format (node_exporter's textfile collector reads it), labelled with the
 * job, step, user (given) and node: per rank collprof_calls_total,
 * collprof_nccl_seconds_total, collprof_bytes_total and
 * collprof_inflight_oldest_seconds; per communicator and op
 * collprof_comm_calls_total and collprof_busbw_bytes_per_second (the calls
 * of the last look with calls), labelled with the link class (intra: every
 * rank of the communicator on this node; inter); with named (counts by
 * enum cp_kind, for a watcher that judges) collprof_findings_named_total
 * by kind.  docs/watch.md lists them.  0, or -1 when out failed. */
int cp_watch_metrics(struct cp_watch *w, FILE *out, const char *user,
                     uint64_t now_ns, const unsigned *named);

#endif
