/* cp_wrap_table.h - the one table of NCCL entry points the shim wraps.
 *
 * Adding an entry point is one line here (and its op code in
 * include/collprof/cp_logfmt.h).  The shim expands the table into the
 * pointers to the real functions, their names for dlsym, and, for the
 * data-moving calls, the whole wrapper.
 *
 * DATA(fn, params, args, count, dtype, redop, peer, comm, stream, inplace)
 *   a collective or point-to-point call; the last columns are expressions
 *   over the parameters: element count, datatype, reduction (or
 *   CP_NO_REDOP), root or peer (or -1), communicator, stream, and when the
 *   call is in place (may use cp_esize, the element size, and cp_rank, the
 *   caller's rank in comm).
 * CALL(fn, params, args)
 *   group and communicator calls; their wrappers are written by hand in
 *   cp_shim.c because each one does something different.
 */
#ifndef COLLPROF_CP_WRAP_TABLE_H
#define COLLPROF_CP_WRAP_TABLE_H

#define CP_NO_REDOP (-1)
#define CP_BYTE_OFFSET(p, n) ((const char *)(p) + (n))

#define CP_WRAP_TABLE(DATA, CALL)                                              \
    DATA(AllReduce,                                                            \
         (const void *sendbuff, void *recvbuff, size_t count,                  \
          ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,            \
          cudaStream_t stream),                                                \
         (sendbuff, recvbuff, count, datatype, op, comm, stream), count,       \
         datatype, op, -1, comm, stream, sendbuff == recvbuff)                 \
    DATA(Broadcast,                                                            \
         (const void *sendbuff, void *recvbuff, size_t count,                  \
          ncclDataType_t datatype, int root, ncclComm_t comm,                  \
          cudaStream_t stream),                                                \
         (sendbuff, recvbuff, count, datatype, root, comm, stream), count,     \
         datatype, CP_NO_REDOP, root, comm, stream, sendbuff == recvbuff)      \
    DATA(Bcast,                                                                \
         (void *buff, size_t count, ncclDataType_t datatype, int root,         \
          ncclComm_t comm, cudaStream_t stream),                               \
         (buff, count, datatype, root, comm, stream), count, datatype,         \
         CP_NO_REDOP, root, comm, stream, 1)                                   \
    DATA(Reduce,                                                               \
         (const void *sendbuff, void *recvbuff, size_t count,                  \
          ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,  \
          cudaStream_t stream),                                                \
         (sendbuff, recvbuff, count, datatype, op, root, comm, stream), count, \
         datatype, op, root, comm, stream, sendbuff == recvbuff)               \
    DATA(AllGather,                                                            \
         (const void *sendbuff, void *recvbuff, size_t sendcount,              \
          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream),      \
         (sendbuff, recvbuff, sendcount, datatype, comm, stream), sendcount,   \
         datatype, CP_NO_REDOP, -1, comm, stream,                              \
         sendbuff == CP_BYTE_OFFSET(recvbuff, cp_rank * sendcount * cp_esize)) \
    DATA(ReduceScatter,                                                        \
         (const void *sendbuff, void *recvbuff, size_t recvcount,              \
          ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,            \
          cudaStream_t stream),                                                \
         (sendbuff, recvbuff, recvcount, datatype, op, comm, stream),          \
         recvcount, datatype, op, -1, comm, stream,                            \
         recvbuff == CP_BYTE_OFFSET(sendbuff, cp_rank * recvcount * cp_esize)) \
    DATA(AlltoAll,                                                             \
         (const void *sendbuff, void *recvbuff, size_t count,                  \
          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream),      \
         (sendbuff, recvbuff, count, datatype, comm, stream), count, datatype, \
         CP_NO_REDOP, -1, comm, stream, sendbuff == recvbuff)                  \
    DATA(Gather,                                                               \
         (const void *sendbuff, void *recvbuff, size_t count,                  \
          ncclDataType_t datatype, int root, ncclComm_t comm,                  \
          cudaStream_t stream),                                                \
         (sendbuff, recvbuff, count, datatype, root, comm, stream), count,     \
         datatype, CP_NO_REDOP, root, comm, stream,                            \
         sendbuff == CP_BYTE_OFFSET(recvbuff, (size_t)root * count * cp_esize)) \
    DATA(Scatter,                                                              \
         (const void *sendbuff, void *recvbuff, size_t count,                  \
          ncclDataType_t datatype, int root, ncclComm_t comm,                  \
          cudaStream_t stream),                                                \
         (sendbuff, recvbuff, count, datatype, root, comm, stream), count,     \
         datatype, CP_NO_REDOP, root, comm, stream,                            \
         recvbuff == CP_BYTE_OFFSET(sendbuff, (size_t)root * count * cp_esize)) \
    DATA(Send,                                                                 \
         (const void *sendbuff, size_t count, ncclDataType_t datatype,         \
          int peer, ncclComm_t comm, cudaStream_t stream),                     \
         (sendbuff, count, datatype, peer, comm, stream), count, datatype,     \
         CP_NO_REDOP, peer, comm, stream, 0)                                   \
    DATA(Recv,                                                                 \
         (void *recvbuff, size_t count, ncclDataType_t datatype, int peer,     \
          ncclComm_t comm, cudaStream_t stream),                               \
         (recvbuff, count, datatype, peer, comm, stream), count, datatype,     \
         CP_NO_REDOP, peer, comm, stream, 0)                                   \
    CALL(GroupStart, (void), ())                                               \
    CALL(GroupEnd, (void), ())                                                 \
    CALL(CommInitRank,                                                         \
         (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank),       \
         (comm, nranks, commId, rank))                                         \
    CALL(CommInitRankConfig,                                                   \
         (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank,        \
          ncclConfig_t *config),                                               \
         (comm, nranks, commId, rank, config))                                 \
    CALL(CommInitAll, (ncclComm_t * comm, int ndev, const int *devlist),       \
         (comm, ndev, devlist))                                                \
    CALL(CommInitRankScalable,                                                 \
         (ncclComm_t * newcomm, int nranks, int myrank, int nId,               \
          ncclUniqueId *commIds, ncclConfig_t *config),                        \
         (newcomm, nranks, myrank, nId, commIds, config))                      \
    CALL(CommSplit,                                                            \
         (ncclComm_t comm, int color, int key, ncclComm_t *newcomm,            \
          ncclConfig_t *config),                                               \
         (comm, color, key, newcomm, config))                                  \
    CALL(CommShrink,                                                           \
         (ncclComm_t comm, int *excludeRanksList, int excludeRanksCount,       \
          ncclComm_t *newcomm, ncclConfig_t *config, int shrinkFlags),         \
         (comm, excludeRanksList, excludeRanksCount, newcomm, config,          \
          shrinkFlags))                                                        \
    CALL(CommDestroy, (ncclComm_t comm), (comm))                               \
    CALL(CommAbort, (ncclComm_t comm), (comm))                                 \
    CALL(CommFinalize, (ncclComm_t comm), (comm))

#endif
