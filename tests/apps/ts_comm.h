/* ts_comm.h - train_sim's communicators and its only way to call NCCL.
 *
 * Every data-moving NCCL call of train_sim goes through one function here,
 * which counts it, writes its --expect line (op, count, dtype, peer, comm,
 * seq) and then makes exactly that call, so the list cannot drift from what
 * was called.  seq is the index of the collective on its communicator, or
 * for send and recv the index per (communicator, peer, direction).
 *
 * A failing NCCL call ends the process (ts_run_fail) naming the op, the
 * tensor, the communicator and ncclGetErrorString of the result.
 */
#ifndef TS_COMM_H
#define TS_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <collprof/cp_nccl.h>

#include "ts_run.h"

struct ts_comm {
    ncclComm_t handle;
    char name[32]; /* "world", "tp0", "dp1": config.commName and --expect */
    int rank;      /* in this communicator */
    int nranks;
    uint64_t seq;       /* collectives so far */
    uint64_t *send_seq; /* [peer]: sends to peer so far */
    uint64_t *recv_seq; /* [peer]: receives from peer so far */
};

/* ncclCommInitRankConfig of the world ("world") from id. */
void ts_comm_init_world(struct ts_run *run, struct ts_comm *world,
                        ncclUniqueId id);

/* ncclCommSplit of parent with color and key, named name; the new
 * communicator must have nranks ranks of which this one is rank. */
void ts_comm_split(struct ts_run *run, struct ts_comm *parent, int color,
                   int key, const char *name, int nranks, int rank,
                   struct ts_comm *child);

/* ncclCommDestroy, and free what comm holds. */
void ts_comm_destroy(struct ts_run *run, struct ts_comm *comm);

/* The data calls, arguments as NCCL's; tensor names the data in messages.
 * The stream is always NULL (simnccl's calls are synchronous). */
void ts_comm_allreduce(struct ts_run *run, struct ts_comm *comm,
                       const char *tensor, const void *send, void *recv,
                       size_t count, ncclDataType_t dtype, ncclRedOp_t op);
void ts_comm_broadcast(struct ts_run *run, struct ts_comm *comm,
                       const char *tensor, const void *send, void *recv,
                       size_t count, ncclDataType_t dtype, int root);
void ts_comm_bcast(struct ts_run *run, struct ts_comm *comm,
                   const char *tensor, void *buf, size_t count,
                   ncclDataType_t dtype, int root);
void ts_comm_reduce(struct ts_run *run, struct ts_comm *comm,
                    const char *tensor, const void *send, void *recv,
                    size_t count, ncclDataType_t dtype, ncclRedOp_t op,
                    int root);
void ts_comm_allgather(struct ts_run *run, struct ts_comm *comm,
                       const char *tensor, const void *send, void *recv,
                       size_t sendcount, ncclDataType_t dtype);
void ts_comm_reducescatter(struct ts_run *run, struct ts_comm *comm,
                           const char *tensor, const void *send, void *recv,
                           size_t recvcount, ncclDataType_t dtype,
                           ncclRedOp_t op);
void ts_comm_alltoall(struct ts_run *run, struct ts_comm *comm,
                      const char *tensor, const void *send, void *recv,
                      size_t count, ncclDataType_t dtype);
void ts_comm_send(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, const void *send, size_t count,
                  ncclDataType_t dtype, int peer);
void ts_comm_recv(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, void *recv, size_t count,
                  ncclDataType_t dtype, int peer);

/* ncclGroupStart / ncclGroupEnd; what names the group in messages. */
void ts_comm_group_start(struct ts_run *run, const char *what);
void ts_comm_group_end(struct ts_run *run, const char *what);

#endif
