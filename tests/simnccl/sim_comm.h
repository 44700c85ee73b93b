/* sim_comm.h - the communicator of simnccl and its connections.
 *
 * A communicator of N ranks holds two connections per peer, one for the
 * collectives and one for send/recv (stream sockets: TCP on 127.0.0.1
 * between processes, socketpairs between the communicators of one
 * ncclCommInitAll), and a loop of each kind to itself.  Messages on a
 * connection are matched first in, first out: two ranks that issue the same
 * sequence of collectives, and the same sequence of send/recv to each other,
 * as NCCL requires, agree on which receive each message belongs to, however
 * the two kinds interleave.  Both connections to a peer share one simulated
 * wire (struct sim_link).
 */
#ifndef SIMNCCL_SIM_COMM_H
#define SIMNCCL_SIM_COMM_H

#include <stdint.h>

#include "collprof/cp_nccl.h"
#include "sim_topo.h"

#define SIM_COMM_MAGIC 0x53494d434f4d4d31ULL /* "SIMCOMM1" */

struct sim_step;

/* Channels: each peer has one connection per channel. */
enum sim_channel { SIM_CHANNEL_COLL, SIM_CHANNEL_P2P, SIM_CHANNELS };

/* The simulated wire from this rank to one peer. */
struct sim_link {
    int paced; /* 0 for the loop to self: a local copy costs nothing */
    struct sim_link_params params;
    /* When the wire is free again: transfers to one peer queue behind each
     * other for their m/bandwidth part; the latency overlaps. */
    int64_t free_ns;
    /* CLOCK_MONOTONIC time a link directive with from= changes params
     * (sim_comm_update_link); INT64_MAX: never */
    int64_t change_ns;
};

struct sim_conn {
    int send_fd; /* equal to recv_fd except on the loop to self */
    int recv_fd;
    int peer;
    /* Posted and not yet fully moved, in posting order. */
    struct sim_step *send_head, *send_tail;
    struct sim_step *recv_head, *recv_tail;
    int active; /* listed in the running engine's poll set */
};

/* The communicators made together by one ncclCommInitAll. */
struct sim_clique {
    int size;
    int live; /* members not yet destroyed */
    struct ncclComm **members;
};

struct ncclComm {
    uint64_t magic;
    int nranks;
    int rank;
    int world_rank;  /* SIMNCCL_RANK, or the rank in the first communicator */
    int cuda_device; /* what ncclCommCuDevice reports */
    uint64_t nonce;  /* shared by the members; seeds split/shrink nonces */
    uint64_t split_seq;
    int64_t straggler_ns; /* planted delay at the start of each collective */
    char (*nodes)[SIM_TOPO_NODE_NAME]; /* node name of every rank */
    struct sim_link *links;             /* [nranks]; [rank] is the loop */
    struct sim_conn *conns;             /* [SIM_CHANNELS * nranks] */
    struct sim_clique *clique;          /* non-NULL for ncclCommInitAll */
    ncclResult_t async_error;           /* set when a transfer broke */
    void *prof_ctx;       /* the profiler plugin's context (sim_prof.h) */
    int prof_tried;       /* sim_prof_comm ran */
    int prof_nodes;       /* the nodes its members are on (sim_prof_comm) */
    uint64_t prof_seq[16]; /* NCCL's seqNumber per collective function */
};

/* The connection to peer on a channel. */
struct sim_conn *sim_comm_conn(struct ncclComm *comm, int channel, int peer);

/* A communicator of nranks ranks, no connection open yet (fds -1).
 * Returns NULL when out of memory.  The caller owns it: sim_comm_free. */
struct ncclComm *sim_comm_alloc(int nranks, int rank);

/* Open the loops to self (socketpairs).  Returns 0 or -1 (errno). */
int sim_comm_open_self(struct ncclComm *comm);

/* The wires to every peer, from the node names and the topology. */
void sim_comm_set_links(struct ncclComm *comm, const struct sim_topo *topo);

/* The link to peer once its change_ns has come: the topology's params for
 * now (CLOCK_MONOTONIC) and the time of the next change. */
void sim_comm_update_link(struct ncclComm *comm, int peer, int64_t now);

/* Close the connections and free; NULL is fine.  Leaves a clique member's
 * slot empty and frees the clique with its last member. */
void sim_comm_free(struct ncclComm *comm);

#endif
