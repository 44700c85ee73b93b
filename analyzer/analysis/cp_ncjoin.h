/* cp_ncjoin.h - what NCCL's profiler plugin knew about each analyzed call:
 * the algorithm, protocol, channels and kernel interval, per call record of
 * the file the join reads (docs/analysis.md, "The shim and the plugin of one
 * process").
 *
 * A process run with both capture paths has two logs: the shim's call
 * records (API calls, the host's times) and the plugin's (NCCL's tasks,
 * what NCCL chose, the kernel's GPU interval).  Their sequence numbers are
 * not comparable: the plugin counts every task NCCL launched, including
 * those replayed from a CUDA graph, and the shim every API call, including
 * a capture that ran nothing; their communicator ids differ too (the
 * plugin's is NCCL's commHash).  The key is each communicator's call order:
 * per pair of communicators, the shim's calls that ran (not captured, not
 * refused) and the plugin's calls not launched from a graph are the same
 * calls in the same order, collectives in one sequence and send/recv in
 * one per (peer, direction).  A pair of calls is joined when op, count,
 * root or peer and rank agree and the plugin's launch lies within the
 * shim's call (or its group's interval): NCCL launches a call before the
 * API call (or the outermost GroupEnd) returns.  A plugin call that starts
 * before the shim's next call is one the shim never saw (a graph replay of
 * an NCCL that does not flag them, a statically linked caller); a shim
 * call the plugin has no match for within the next few of its calls is
 * one the plugin missed.  Which shim communicator is which plugin
 * communicator is the pair whose first calls join best.
 *
 * The plugin's calls launched from a CUDA graph (API v5+ flags them) have
 * no shim record: they are added to the shim's stream as calls of the
 * plugin's communicator (cp_ncjoin_replays), so that with both logs every
 * call is analyzed once, replays included; the shim's records of the
 * captures (flag 16) are then left out.
 *
 * A plugin log analyzed on its own (no shim log of its process) is joined
 * with itself: its call records get its own kind 6 and kind 5 records.
 *
 * Memory: while one process is joined, every call of its two logs (48 bytes
 * each); then 32 bytes per joined call until the analysis ends.
 */
#ifndef COLLPROF_CP_NCJOIN_H
#define COLLPROF_CP_NCJOIN_H

#include <stddef.h>
#include <stdint.h>

#include "cp_analysis.h"

/* A plugin launch may precede the shim's call start by this much (the two
 * clocks of one process: the shim's TSC mapping is within 1 us). */
#define CP_NCJOIN_SLACK_NS 50000
/* A shim call is given up after this many plugin calls that do not match
 * it. */
#define CP_NCJOIN_LOOKAHEAD 16

/* What the plugin said about the call record in `slot` of the file. */
struct cp_ncjoin_entry {
    uint64_t slot;
    uint64_t gpu_start, gpu_end; /* kernel interval, CLOCK_REALTIME ns;
                                    0 when no kernel channel reported */
    uint8_t algo, proto, nchannels; /* CP_NCCL_ALGO/PROTO_TABLE codes */
    uint8_t flags;                  /* CP_NCCL_* (low byte) */
    uint32_t reserved;
};

/* A call the plugin saw launched from a CUDA graph, which the shim never
 * sees: analyzed as a call of the plugin's communicator (NCCL's commHash);
 * a collective's seq is its place among that communicator's graph
 * launches, a send/recv's the plugin's own. */
struct cp_ncjoin_replay {
    uint64_t comm, count;
    uint64_t start, end; /* the kernel interval, else the task's; raw ns */
    uint32_t seq, rank, nranks;
    int32_t peer;
    uint8_t op, dtype, algo, proto;
};

/* The entries of every input that has any, by input index. */
struct cp_ncjoin {
    size_t ninputs;
    struct cp_ncjoin_entry **entries; /* [ninputs], by slot; NULL none */
    size_t *nentries;                 /* [ninputs] */
    struct cp_ncjoin_replay **replays; /* [ninputs], by end; shim inputs */
    size_t *nreplays;
};

/* Join the logs of an (inputs and ranks known) into a new table; the
 * counts go to an->nccl.join_*.  NULL when memory ran out, or when no
 * analyzed input is a plugin log or has one (then *none is 1). */
struct cp_ncjoin *cp_ncjoin_build(struct cp_analysis *an, int *none);

/* The entries of input `input` (sorted by slot), *n of them; NULL none. */
const struct cp_ncjoin_entry *cp_ncjoin_of(const struct cp_ncjoin *j,
                                           size_t input, size_t *n);

/* The graph launches to add to input `input` (a shim log with a plugin
 * log), sorted by end, *n of them; NULL none. */
const struct cp_ncjoin_replay *cp_ncjoin_replays(const struct cp_ncjoin *j,
                                                size_t input, size_t *n);

/* Accepts NULL. */
void cp_ncjoin_destroy(struct cp_ncjoin *j);

#endif
