/* nullnccl.c - an NCCL whose calls return at once.
 *
 * Built as tests/bench/lib/libnccl.so.2.  It gives the shim's benchmark a
 * baseline where the real call costs nothing, and the shim's unit test a
 * library whose behaviour is known exactly: communicators are small structs,
 * argument checks follow NCCL (ncclInvalidArgument), ncclBcast calls
 * ncclBroadcast through the dynamic symbol (as NCCL does), so that the
 * shim's re-entry guard is exercised.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_nccl.h"

#define EXPORT __attribute__((visibility("default")))

struct ncclComm {
    int nranks, rank, finalized;
};

static ncclResult_t check(ncclComm_t comm, ncclDataType_t dt, int redop)
{
    if (!comm)
        return ncclInvalidArgument;
    if ((unsigned)dt >= ncclNumTypes)
        return ncclInvalidArgument;
    if (redop >= 0 && redop >= ncclNumOps && redop < 64)
        return ncclInvalidArgument;
    return ncclSuccess;
}

static ncclResult_t check_root(ncclComm_t comm, int root)
{
    return root < 0 || root >= comm->nranks ? ncclInvalidArgument : ncclSuccess;
}

EXPORT ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return ncclInvalidArgument;
    *version = 22809;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    if (!id)
        return ncclInvalidArgument;
    memset(id, 0x5a, sizeof *id);
    return ncclSuccess;
}

EXPORT const char *ncclGetErrorString(ncclResult_t r)
{
    return r == ncclSuccess ? "no error" : "null nccl error";
}

EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm;
    return "";
}

static ncclResult_t make(ncclComm_t *comm, int nranks, int rank)
{
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
        return ncclInvalidArgument;
    *comm = calloc(1, sizeof **comm);
    if (!*comm)
        return ncclSystemError;
    (*comm)->nranks = nranks;
    (*comm)->rank = rank;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                     ncclUniqueId id, int rank)
{
    (void)id;
    return make(comm, nranks, rank);
}

EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                           ncclUniqueId id, int rank,
                                           ncclConfig_t *config)
{
    (void)config;
    (void)id;
    return make(comm, nranks, rank);
}

EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t *comm, int nranks,
                                             int rank, int nId,
                                             ncclUniqueId *ids,
                                             ncclConfig_t *config)
{
    (void)nId;
    (void)ids;
    (void)config;
    return make(comm, nranks, rank);
}

EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev,
                                    const int *devlist)
{
    int i;
    (void)devlist;
    for (i = 0; i < ndev; i++)
        if (make(&comm[i], ndev, i) != ncclSuccess)
            return ncclSystemError;
    return ncclSuccess;
}

/* Split keeps members of the same color in rank order: with one process
 * standing for every rank, the new rank is the count of lower ranks of the
 * color, which for the test patterns is rank / 2 for color = rank % 2. */
EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                  ncclComm_t *newcomm, ncclConfig_t *config)
{
    (void)key;
    (void)config;
    if (!comm || !newcomm)
        return ncclInvalidArgument;
    if (color == NCCL_SPLIT_NOCOLOR) {
        *newcomm = NULL;
        return ncclSuccess;
    }
    return make(newcomm, (comm->nranks + 1) / 2, comm->rank / 2);
}

/* Built with NULLNCCL_BEFORE_2_27 as tests/unit/oldnccl/libnccl.so.2: an
 * NCCL without ncclCommShrink, for the shim's exports (tests/unit/
 * exports.sh). */
#ifndef NULLNCCL_BEFORE_2_27
EXPORT ncclResult_t ncclCommShrink(ncclComm_t comm, int *exclude, int n,
                                   ncclComm_t *newcomm, ncclConfig_t *config,
                                   int flags)
{
    (void)exclude;
    (void)config;
    (void)flags;
    if (!comm || !newcomm || n < 0 || n >= comm->nranks)
        return ncclInvalidArgument;
    return make(newcomm, comm->nranks - n, comm->rank < comm->nranks - n ? comm->rank : 0);
}
#endif

EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    comm->finalized = 1;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    free(comm);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    return ncclCommDestroy(comm);
}

EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm || !count)
        return ncclInvalidArgument;
    *count = comm->nranks;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm || !rank)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm || !device)
        return ncclInvalidArgument;
    *device = comm->rank;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *e)
{
    if (!comm || !e)
        return ncclInvalidArgument;
    *e = ncclSuccess;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclAllReduce(const void *s, void *r, size_t count,
                                  ncclDataType_t dt, ncclRedOp_t op,
                                  ncclComm_t comm, cudaStream_t st)
{
    (void)s; (void)r; (void)count; (void)st;
    return check(comm, dt, (int)op);
}

EXPORT ncclResult_t ncclBroadcast(const void *s, void *r, size_t count,
                                  ncclDataType_t dt, int root, ncclComm_t comm,
                                  cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt, -1);
    (void)s; (void)r; (void)count; (void)st;
    return rc != ncclSuccess ? rc : check_root(comm, root);
}

EXPORT ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t dt,
                              int root, ncclComm_t comm, cudaStream_t st)
{
    return ncclBroadcast(buff, buff, count, dt, root, comm, st);
}

EXPORT ncclResult_t ncclReduce(const void *s, void *r, size_t count,
                               ncclDataType_t dt, ncclRedOp_t op, int root,
                               ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt, (int)op);
    (void)s; (void)r; (void)count; (void)st;
    return rc != ncclSuccess ? rc : check_root(comm, root);
}

EXPORT ncclResult_t ncclAllGather(const void *s, void *r, size_t count,
                                  ncclDataType_t dt, ncclComm_t comm,
                                  cudaStream_t st)
{
    (void)s; (void)r; (void)count; (void)st;
    return check(comm, dt, -1);
}

EXPORT ncclResult_t ncclReduceScatter(const void *s, void *r, size_t count,
                                      ncclDataType_t dt, ncclRedOp_t op,
                                      ncclComm_t comm, cudaStream_t st)
{
    (void)s; (void)r; (void)count; (void)st;
    return check(comm, dt, (int)op);
}

EXPORT ncclResult_t ncclAlltoAll(const void *s, void *r, size_t count,
                                 ncclDataType_t dt, ncclComm_t comm,
                                 cudaStream_t st)
{
    (void)s; (void)r; (void)count; (void)st;
    return check(comm, dt, -1);
}

EXPORT ncclResult_t ncclGather(const void *s, void *r, size_t count,
                               ncclDataType_t dt, int root, ncclComm_t comm,
                               cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt, -1);
    (void)s; (void)r; (void)count; (void)st;
    return rc != ncclSuccess ? rc : check_root(comm, root);
}

EXPORT ncclResult_t ncclScatter(const void *s, void *r, size_t count,
                                ncclDataType_t dt, int root, ncclComm_t comm,
                                cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt, -1);
    (void)s; (void)r; (void)count; (void)st;
    return rc != ncclSuccess ? rc : check_root(comm, root);
}

EXPORT ncclResult_t ncclSend(const void *s, size_t count, ncclDataType_t dt,
                             int peer, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt, -1);
    (void)s; (void)count; (void)st;
    return rc != ncclSuccess ? rc : check_root(comm, peer);
}

EXPORT ncclResult_t ncclRecv(void *r, size_t count, ncclDataType_t dt,
                             int peer, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt, -1);
    (void)r; (void)count; (void)st;
    return rc != ncclSuccess ? rc : check_root(comm, peer);
}

EXPORT ncclResult_t ncclGroupStart(void)
{
    return ncclSuccess;
}

EXPORT ncclResult_t ncclGroupEnd(void)
{
    return ncclSuccess;
}
