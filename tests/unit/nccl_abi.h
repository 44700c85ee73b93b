/* nccl_abi.h - ABI facts listed by name, so that the project's NCCL header
 * and the real nccl.h can be compared from two translation units. */
#ifndef COLLPROF_TEST_NCCL_ABI_H
#define COLLPROF_TEST_NCCL_ABI_H

#define NCCL_ABI_FACTS(X)                                                      \
    X(ncclSuccess) X(ncclUnhandledCudaError) X(ncclSystemError)                \
    X(ncclInternalError) X(ncclInvalidArgument) X(ncclInvalidUsage)            \
    X(ncclRemoteError) X(ncclInProgress) X(ncclNumResults)                     \
    X(ncclSum) X(ncclProd) X(ncclMax) X(ncclMin) X(ncclAvg) X(ncclNumOps)      \
    X(ncclInt8) X(ncclUint8) X(ncclInt32) X(ncclUint32) X(ncclInt64)           \
    X(ncclUint64) X(ncclFloat16) X(ncclFloat32) X(ncclFloat64)                 \
    X(ncclBfloat16) X(ncclFloat8e4m3) X(ncclFloat8e5m2) X(ncclNumTypes)        \
    X(NCCL_UNIQUE_ID_BYTES) X(NCCL_SPLIT_NOCOLOR)                              \
    X(sizeof(ncclUniqueId)) X(sizeof(ncclConfig_t))                            \
    X(sizeof(ncclRedOp_t)) X(sizeof(ncclDataType_t))                           \
    X(offsetof(ncclConfig_t, magic)) X(offsetof(ncclConfig_t, blocking))       \
    X(offsetof(ncclConfig_t, netName)) X(offsetof(ncclConfig_t, commName))     \
    X(offsetof(ncclConfig_t, nvlinkCentricSched))

#define NCCL_ABI_VALUE(x) (long)(x),
#define NCCL_ABI_NAME(x) #x,

#endif
