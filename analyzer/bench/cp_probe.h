/* cp_probe.h - collprof probe: measure every node pair of an allocation
 * with NCCL point-to-point transfers, and name the slow ones.
 *
 * One process per node (rank = node), started by srun, simrun or the
 * plugin; NCCL, the id exchange and the buffers come from cp_ncclrt.h (id
 * file `.collprof-probe-ncclid`).  The pairs are measured in rounds of
 * disjoint pairs: the round-robin tournament of K nodes (K - 1 rounds for
 * an even K, K for an odd one, where each node sits out one round), a
 * world-wide barrier between rounds, so that each pair runs alone on its
 * two nodes and the whole probe takes about K pair measurements, not K^2.
 *
 * A pair: its lower rank drives, the other follows the driver's orders
 * (small control messages), so both always agree on sizes and counts.
 * Latency: 2 untimed then latency_iters timed ping-pongs of 8 bytes, the
 * median half round trip.  Size: ping-pongs from 64 KiB up, until one
 * transfer takes at least half of pair_time_s / (2 iters), or max_bytes;
 * the message is then what the last estimate says takes that long, within
 * [64 KiB, max_bytes].  Bandwidth: iters ping-pongs of that message, each
 * giving bytes / (half round trip - latency) (the subtraction at most
 * halves the half round trip), the median.  Times are the driver's host
 * clock around the calls and a stream synchronization.
 *
 * Confirmation: a pair judged slow is measured again, alone (the other
 * pairs wait), up to CP_PROBE_CONFIRM_PASSES more times; the fastest of
 * its measurements stands, since a busy host only ever slows a transfer.
 *
 * The judgement (cp_probe_judge): a pair's efficiency is its bandwidth
 * over the reference, the median bandwidth of all pairs (or a site
 * profile's inter-node bandwidth); below slow_threshold (0.7) it is slow:
 * a `slow_link` finding, critical at 0.25 or less.  Nothing here prints.
 */
#ifndef COLLPROF_CP_PROBE_H
#define COLLPROF_CP_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "cp_error.h"
#include "cp_ncclrt.h"

struct json_t;

#define CP_PROBE_CONFIRM_PASSES 2

/* Rounds of the schedule of nodes nodes: nodes - 1 when even, nodes when
 * odd (0 for fewer than 2). */
unsigned cp_probe_rounds(unsigned nodes);

/* The partner of node me in round (< cp_probe_rounds(nodes)), or -1 when
 * it sits out that round (or an argument is out of range).  Over all
 * rounds every pair meets exactly once, and partner(partner(me)) == me. */
int cp_probe_partner(unsigned nodes, unsigned round, unsigned me);

struct cp_probe_opts {
    struct cp_ncclrt_opts rt; /* id_tag is set to "probe" */
    uint64_t max_bytes;       /* the largest bandwidth message */
    unsigned iters;           /* timed bandwidth transfers per pair */
    unsigned latency_iters;   /* timed latency ping-pongs per pair */
    double pair_time_s;       /* what a pair's bandwidth transfers aim at */

    /* Called on rank 0 only: when the communicator stands, and after each
     * round. */
    void *ctx;
    void (*on_start)(void *ctx, unsigned nodes, unsigned rounds, int device);
    void (*on_round)(void *ctx, unsigned round, unsigned rounds);
};

/* 4 MiB, 5 transfers, 20 ping-pongs, 0.25 s; NCCL from the library path,
 * memory automatic, id timeout 120 s. */
void cp_probe_defaults(struct cp_probe_opts *o);

enum cp_probe_state { CP_PROBE_OK = 0, CP_PROBE_SLOW };

struct cp_probe_pair {
    unsigned a, b;         /* node indices, a < b */
    unsigned round;        /* when it was measured, from 0 */
    double latency_s;      /* median half round trip of 8 bytes */
    double bandwidth_Bps;  /* median of the transfers */
    uint64_t bytes;        /* their message size */
    unsigned iters;        /* their number */
    unsigned measurements; /* 1, more when it was measured slow and again */
    /* set by cp_probe_judge */
    double efficiency;     /* bandwidth_Bps / reference */
    enum cp_probe_state state;
};

struct cp_probe_result {
    unsigned nnodes;
    char (*nodes)[CP_NCCLRT_NODE_NAME]; /* rank order */
    size_t npairs;                      /* nnodes (nnodes - 1) / 2 */
    struct cp_probe_pair *pairs;        /* (a, b) in order, a < b */
    unsigned rounds;
    double wall_s;                      /* the rounds, barriers included */
    int rank;                           /* this process's */
    int device;                         /* 1: device buffers */
    int nccl_version;
    char nccl_path[512];
    uint64_t max_bytes;
    unsigned iters, latency_iters;
    double pair_time_s;
    /* set by cp_probe_judge */
    double reference_Bps;
    const char *reference_source;       /* "median" or "profile" */
    double median_latency_s;
    double slow_threshold;
    double critical_threshold;
};

/* Run this rank's part; every rank ends with every pair's figures in res
 * (then judged with no profile and the default threshold).  0, or -1 with
 * err filled (fewer than 2 ranks, two ranks on one node, NCCL, CUDA,
 * memory, the bootstrap).  cp_probe_result_clear(res) either way. */
int cp_probe_run(const struct cp_probe_opts *o, struct cp_probe_result *res,
                 struct cp_error *err);

/* Judge the pairs again: reference profile_Bps when > 0, else the median
 * bandwidth of the pairs; slow below slow_threshold times it. */
void cp_probe_judge(struct cp_probe_result *res, double profile_Bps,
                    double slow_threshold);

/* The pairs' memory; res may be NULL. */
void cp_probe_result_clear(struct cp_probe_result *res);

/* The report (schema collprof.probe/1, docs/probe.md): a new reference the
 * caller owns, or NULL (out of memory). */
struct json_t *cp_probe_to_json(const struct cp_probe_result *res);

/* That report into path, through a temporary file renamed into place.
 * 0, or -1 with err filled. */
int cp_probe_write_json(const struct cp_probe_result *res, const char *path,
                        struct cp_error *err);

#endif
