/* ts_comm.c - communicators and the recorded NCCL data calls (see
 * ts_comm.h). */
#include "ts_comm.h"

#include <stdlib.h>
#include <string.h>

#include "ts_expect.h"
#include "ts_fault.h"

/* Every failure message: "<op> <tensor>: <function> on <comm> failed: ..."
 * plus NCCL's own last error where it has one.  comm may be NULL (group
 * calls), and its handle NULL (a failed init). */
static void
check_result(struct ts_run *run, const struct ts_comm *comm, const char *op,
             const char *tensor, const char *function, ncclResult_t result)
{
    if (result == ncclSuccess)
        return;
    const char *detail = comm != NULL && comm->handle != NULL
                             ? ncclGetLastError(comm->handle)
                             : NULL;
    ts_run_fail(run, "%s %s: %s%s%s failed: %s%s%s", op, tensor, function,
                comm != NULL ? " on " : "", comm != NULL ? comm->name : "",
                ncclGetErrorString(result),
                detail != NULL && *detail != '\0' ? ": " : "",
                detail != NULL ? detail : "");
}

static void
set_name(struct ts_comm *comm, const char *name)
{
    snprintf(comm->name, sizeof comm->name, "%s", name);
}

/* Check NCCL's idea of the new communicator against ours; size the
 * point-to-point counters. */
static void
finish_init(struct ts_run *run, struct ts_comm *comm, int nranks, int rank,
            const char *function)
{
    int nccl_nranks = -1;
    int nccl_rank = -1;

    check_result(run, comm, "init", comm->name, "ncclCommCount",
                 ncclCommCount(comm->handle, &nccl_nranks));
    check_result(run, comm, "init", comm->name, "ncclCommUserRank",
                 ncclCommUserRank(comm->handle, &nccl_rank));
    if (nccl_nranks != nranks || nccl_rank != rank)
        ts_run_fail(run,
                    "%s of %s: NCCL says rank %d of %d, expected rank %d "
                    "of %d",
                    function, comm->name, nccl_rank, nccl_nranks, rank,
                    nranks);
    comm->nranks = nranks;
    comm->rank = rank;
    comm->seq = 0;
    comm->send_seq = calloc((size_t)nranks, sizeof *comm->send_seq);
    comm->recv_seq = calloc((size_t)nranks, sizeof *comm->recv_seq);
    if (comm->send_seq == NULL || comm->recv_seq == NULL)
        ts_run_fail(run, "cannot allocate counters for %s", comm->name);
}

void
ts_comm_init_world(struct ts_run *run, struct ts_comm *world,
                   ncclUniqueId id)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;

    memset(world, 0, sizeof *world);
    set_name(world, "world");
    config.commName = world->name;
    ncclResult_t result = ncclCommInitRankConfig(&world->handle, run->nranks,
                                                 id, run->rank, &config);
    if (result != ncclSuccess)
        world->handle = NULL; /* not a communicator to ask for details */
    check_result(run, world, "init", world->name, "ncclCommInitRankConfig",
                 result);
    finish_init(run, world, run->nranks, run->rank,
                "ncclCommInitRankConfig");
}

void
ts_comm_split(struct ts_run *run, struct ts_comm *parent, int color, int key,
              const char *name, int nranks, int rank, struct ts_comm *child)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;

    memset(child, 0, sizeof *child);
    set_name(child, name);
    config.commName = child->name;
    check_result(run, parent, "split", child->name, "ncclCommSplit",
                 ncclCommSplit(parent->handle, color, key, &child->handle,
                               &config));  /* details from the parent */
    if (child->handle == NULL)
        ts_run_fail(run, "split %s: ncclCommSplit on %s gave no communicator",
                    child->name, parent->name);
    finish_init(run, child, nranks, rank, "ncclCommSplit");
}

void
ts_comm_destroy(struct ts_run *run, struct ts_comm *comm)
{
    if (comm->handle != NULL)
        check_result(run, comm, "destroy", comm->name, "ncclCommDestroy",
                     ncclCommDestroy(comm->handle));
    comm->handle = NULL;
    free(comm->send_seq);
    free(comm->recv_seq);
    comm->send_seq = NULL;
    comm->recv_seq = NULL;
}

static void
record(struct ts_run *run, const struct ts_comm *comm, const char *op,
       size_t count, ncclDataType_t dtype, int peer, uint64_t seq)
{
    run->calls++;
    if (run->expect != NULL)
        ts_expect_record(run->expect, op, count, (int)dtype, peer,
                         comm->name, seq);
}

static void
check_peer(struct ts_run *run, const struct ts_comm *comm, const char *op,
           const char *tensor, int peer)
{
    if (peer < 0 || peer >= comm->nranks)
        ts_run_fail(run, "%s %s: peer %d is not a rank of %s (%d ranks)", op,
                    tensor, peer, comm->name, comm->nranks);
}

void
ts_comm_allreduce(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, const void *send, void *recv,
                  size_t count, ncclDataType_t dtype, ncclRedOp_t op)
{
    record(run, comm, "allreduce", count, dtype, -1, comm->seq++);
    struct ts_call c = {"allreduce", tensor, send, recv, count, dtype, op, -1};
    check_result(run, comm, "allreduce", tensor, "ncclAllReduce",
                 ts_fault_collective(run, comm, &c));
}

void
ts_comm_broadcast(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, const void *send, void *recv,
                  size_t count, ncclDataType_t dtype, int root)
{
    record(run, comm, "broadcast", count, dtype, root, comm->seq++);
    struct ts_call c = {"broadcast", tensor, send, recv, count, dtype, ncclSum,
                        root};
    check_result(run, comm, "broadcast", tensor, "ncclBroadcast",
                 ts_fault_collective(run, comm, &c));
}

void
ts_comm_bcast(struct ts_run *run, struct ts_comm *comm, const char *tensor,
              void *buf, size_t count, ncclDataType_t dtype, int root)
{
    record(run, comm, "bcast", count, dtype, root, comm->seq++);
    struct ts_call c = {"bcast", tensor, buf, buf, count, dtype, ncclSum, root};
    check_result(run, comm, "bcast", tensor, "ncclBcast",
                 ts_fault_collective(run, comm, &c));
}

void
ts_comm_reduce(struct ts_run *run, struct ts_comm *comm, const char *tensor,
               const void *send, void *recv, size_t count,
               ncclDataType_t dtype, ncclRedOp_t op, int root)
{
    record(run, comm, "reduce", count, dtype, root, comm->seq++);
    struct ts_call c = {"reduce", tensor, send, recv, count, dtype, op, root};
    check_result(run, comm, "reduce", tensor, "ncclReduce",
                 ts_fault_collective(run, comm, &c));
}

void
ts_comm_allgather(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, const void *send, void *recv,
                  size_t sendcount, ncclDataType_t dtype)
{
    record(run, comm, "allgather", sendcount, dtype, -1, comm->seq++);
    struct ts_call c = {"allgather", tensor, send, recv, sendcount, dtype,
                        ncclSum, -1};
    check_result(run, comm, "allgather", tensor, "ncclAllGather",
                 ts_fault_collective(run, comm, &c));
}

void
ts_comm_reducescatter(struct ts_run *run, struct ts_comm *comm,
                      const char *tensor, const void *send, void *recv,
                      size_t recvcount, ncclDataType_t dtype, ncclRedOp_t op)
{
    record(run, comm, "reducescatter", recvcount, dtype, -1, comm->seq++);
    struct ts_call c = {"reducescatter", tensor, send, recv, recvcount, dtype,
                        op, -1};
    check_result(run, comm, "reducescatter", tensor, "ncclReduceScatter",
                 ts_fault_collective(run, comm, &c));
}

void
ts_comm_alltoall(struct ts_run *run, struct ts_comm *comm,
                 const char *tensor, const void *send, void *recv,
                 size_t count, ncclDataType_t dtype)
{
    record(run, comm, "alltoall", count, dtype, -1, comm->seq++);
    struct ts_call c = {"alltoall", tensor, send, recv, count, dtype, ncclSum,
                        -1};
    check_result(run, comm, "alltoall", tensor, "ncclAlltoAll",
                 ts_fault_collective(run, comm, &c));
}

void
ts_comm_send(struct ts_run *run, struct ts_comm *comm, const char *tensor,
             const void *send, size_t count, ncclDataType_t dtype, int peer)
{
    check_peer(run, comm, "send", tensor, peer);
    record(run, comm, "send", count, dtype, peer, comm->send_seq[peer]++);
    check_result(run, comm, "send", tensor, "ncclSend",
                 ncclSend(send, count, dtype, peer, comm->handle, NULL));
}

void
ts_comm_recv(struct ts_run *run, struct ts_comm *comm, const char *tensor,
             void *recv, size_t count, ncclDataType_t dtype, int peer)
{
    check_peer(run, comm, "recv", tensor, peer);
    record(run, comm, "recv", count, dtype, peer, comm->recv_seq[peer]++);
    check_result(run, comm, "recv", tensor, "ncclRecv",
                 ncclRecv(recv, count, dtype, peer, comm->handle, NULL));
}

void
ts_comm_group_start(struct ts_run *run, const char *what)
{
    check_result(run, NULL, "group", what, "ncclGroupStart",
                 ncclGroupStart());
}

void
ts_comm_group_end(struct ts_run *run, const char *what)
{
    check_result(run, NULL, "group", what, "ncclGroupEnd", ncclGroupEnd());
}
