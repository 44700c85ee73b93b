/* ts_coll.h - NCCL calls with deterministic inputs and every output element
 * checked.
 *
 * The element at position p of a buffer that communicator member r sends
 * holds (h(p) + r) mod m, where h hashes the tensor name, the
 * communicator's name, the step and p, and m is the type's exact limit
 * divided by the communicator's size.  So every rank computes any other
 * rank's input, and a sum, max or min over all members in closed form, and
 * every expected value is an integer the type holds exactly.  Output
 * buffers are filled with all-ones bytes (NaN, or -1) before each call, so
 * an element NCCL never wrote is caught too.
 *
 * On the first wrong element the process ends with
 *   train_sim: rank R step S <op> <tensor>: element i is X, expected Y
 * and status 1.  Buffers come from the run's scratch slots.
 */
#ifndef TS_COLL_H
#define TS_COLL_H

#include <stdbool.h>
#include <stddef.h>

#include "ts_comm.h"
#include "ts_dtype.h"
#include "ts_run.h"

/* in_place: sendbuff == recvbuff (as DDP's buckets and Megatron's
 * activations are reduced). */
void ts_coll_allreduce(struct ts_run *run, struct ts_comm *comm,
                       const char *tensor, const struct ts_dtype *dtype,
                       size_t count, ncclRedOp_t op, bool in_place);
/* ncclBroadcast, separate send and receive buffers. */
void ts_coll_broadcast(struct ts_run *run, struct ts_comm *comm,
                       const char *tensor, const struct ts_dtype *dtype,
                       size_t count, int root);
/* ncclBcast: one buffer. */
void ts_coll_bcast(struct ts_run *run, struct ts_comm *comm,
                   const char *tensor, const struct ts_dtype *dtype,
                   size_t count, int root);
void ts_coll_reduce(struct ts_run *run, struct ts_comm *comm,
                    const char *tensor, const struct ts_dtype *dtype,
                    size_t count, ncclRedOp_t op, int root);
/* in_place: sendbuff == recvbuff + rank * sendcount (FSDP's flat
 * parameter). */
void ts_coll_allgather(struct ts_run *run, struct ts_comm *comm,
                       const char *tensor, const struct ts_dtype *dtype,
                       size_t sendcount, bool in_place);
/* in_place: recvbuff == sendbuff + rank * recvcount. */
void ts_coll_reducescatter(struct ts_run *run, struct ts_comm *comm,
                           const char *tensor, const struct ts_dtype *dtype,
                           size_t recvcount, ncclRedOp_t op, bool in_place);
void ts_coll_alltoall(struct ts_run *run, struct ts_comm *comm,
                      const char *tensor, const struct ts_dtype *dtype,
                      size_t count);

/* Point-to-point inside ncclGroupStart/ncclGroupEnd.  Receives are
 * checked at ts_coll_group_end, when NCCL has delivered them. */
enum { TS_COLL_GROUP_MAX = 4 };

struct ts_coll_group {
    char what[64]; /* names the group in messages */
    int nops;
    struct ts_coll_pending {
        struct ts_comm *comm;
        char tensor[64];
        const struct ts_dtype *dtype;
        size_t count;
        int peer;
        void *buf;
    } recvs[TS_COLL_GROUP_MAX];
    int nrecvs;
};

void ts_coll_group_start(struct ts_run *run, struct ts_coll_group *group,
                         const char *what);
void ts_coll_send(struct ts_run *run, struct ts_coll_group *group,
                  struct ts_comm *comm, const char *tensor,
                  const struct ts_dtype *dtype, size_t count, int peer);
void ts_coll_recv(struct ts_run *run, struct ts_coll_group *group,
                  struct ts_comm *comm, const char *tensor,
                  const struct ts_dtype *dtype, size_t count, int peer);
void ts_coll_group_end(struct ts_run *run, struct ts_coll_group *group);

/* A blocking send or receive outside any group (torch.distributed.send
 * and recv): the receive is checked when the call returns. */
void ts_coll_send_alone(struct ts_run *run, struct ts_comm *comm,
                        const char *tensor, const struct ts_dtype *dtype,
                        size_t count, int peer);
void ts_coll_recv_alone(struct ts_run *run, struct ts_comm *comm,
                        const char *tensor, const struct ts_dtype *dtype,
                        size_t count, int peer);

#endif
