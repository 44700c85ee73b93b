/* cp_nccl_profiler.h - NCCL's profiler-plugin interface, as far as collprof
 * uses it.
 *
 * NCCL (2.23 and later) dlopens the library named by NCCL_PROFILER_PLUGIN
 * and looks up the newest struct it knows, `ncclProfiler_v7` (2.31), then
 * `_v6`, `_v5`, `_v4`, ... (NCCL 2.28 starts at v5).  These declarations are written from
 * the interface NVIDIA documents in NCCL's ext-profiler headers; the layouts
 * and enum values are facts of that ABI and must not change.  Both the
 * plugin (nccl-profiler/) and the CPU NCCL of the tests (tests/simnccl/)
 * include this file, so the two sides agree by construction; where a real
 * NCCL checkout is at hand, compare against its profiler_v*.h.
 */
#ifndef COLLPROF_CP_NCCL_PROFILER_H
#define COLLPROF_CP_NCCL_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collprof/cp_nccl.h"

/* Event types (a bit mask: the plugin's activation mask selects them). */
enum {
    ncclProfileGroup = 1 << 0,
    ncclProfileColl = 1 << 1,
    ncclProfileP2p = 1 << 2,
    ncclProfileProxyOp = 1 << 3,
    ncclProfileProxyStep = 1 << 4,
    ncclProfileProxyCtrl = 1 << 5,
    ncclProfileKernelCh = 1 << 6, /* v4 and later carry GPU timestamps */
    ncclProfileNetPlugin = 1 << 7,
    ncclProfileGroupApi = 1 << 8, /* v5 */
    ncclProfileCollApi = 1 << 9,  /* v5 */
    ncclProfileP2pApi = 1 << 10,  /* v5 */
    ncclProfileKernelLaunch = 1 << 11, /* v5 */
    ncclProfileCeColl = 1 << 12,  /* v6 */
    ncclProfileCeSync = 1 << 13,  /* v6 */
    ncclProfileCeBatch = 1 << 14, /* v6 */
    ncclProfileKernelPhase = 1 << 15 /* v7: a phase of a kernel channel */
};

/* Event states (recordEventState). */
typedef enum {
    ncclProfilerProxyOpSendPosted = 0, /* v3 only */
    ncclProfilerProxyOpSendRemFifoWait = 1,
    ncclProfilerProxyOpSendTransmitted = 2,
    ncclProfilerProxyOpSendDone = 3,
    ncclProfilerProxyOpRecvPosted = 4,
    ncclProfilerProxyOpRecvReceived = 5,
    ncclProfilerProxyOpRecvTransmitted = 6,
    ncclProfilerProxyOpRecvDone = 7,
    ncclProfilerProxyStepSendGPUWait = 8,
    ncclProfilerProxyStepSendWait = 9,
    ncclProfilerProxyStepRecvWait = 10,
    ncclProfilerProxyStepRecvFlushWait = 11,
    ncclProfilerProxyStepRecvGPUWait = 12,
    ncclProfilerProxyCtrlIdle = 13,
    ncclProfilerProxyCtrlActive = 14,
    ncclProfilerProxyCtrlSleep = 15,
    ncclProfilerProxyCtrlWakeup = 16,
    ncclProfilerProxyCtrlAppend = 17,
    ncclProfilerProxyCtrlAppendEnd = 18,
    ncclProfilerProxyOpInProgress_v4 = 19,
    ncclProfilerProxyStepSendPeerWait_v4 = 20,
    ncclProfilerNetPluginUpdate = 21,
    ncclProfilerKernelChStop = 22,
    ncclProfilerGroupStartApiStop = 23,
    ncclProfilerGroupEndApiStart = 24,
    /* v6: the copy-engine events' states.  NCCL does not report them
     * through recordEventState: a plugin times those events itself, from
     * their start to their stop. */
    ncclProfilerCeCollStart = 25,
    ncclProfilerCeCollComplete = 26,
    ncclProfilerCeSyncStart = 27,
    ncclProfilerCeSyncComplete = 28,
    ncclProfilerCeBatchStart = 29,
    ncclProfilerCeBatchComplete = 30,
    /* v7: a kernel phase stopped; its state arguments are the kernel
     * channel's (kernelCh.pTimer: the GPU timer at the phase's end) */
    ncclProfilerKernelPhaseStop = 31
} ncclProfilerEventState_t;

typedef enum {
    NCCL_LOG_NONE = 0,
    NCCL_LOG_VERSION = 1,
    NCCL_LOG_WARN = 2,
    NCCL_LOG_INFO = 3,
    NCCL_LOG_ABORT = 4,
    NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;
typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags,
                                  const char *file, int line,
                                  const char *fmt, ...);

/* ---- v3 (NCCL 2.23, 2.24) ------------------------------------------------ */
typedef struct {
    uint8_t type;
    void *parentObj; /* coll, p2p: the group event */
    int rank;
    union {
        struct {
            const char *name;
            uint64_t commHash;
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nMaxChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
        } coll;
        struct {
            const char *name;
            uint64_t commHash;
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
        } p2p;
        struct {
            pid_t pid;
            uint8_t channelId;
            int peer;
            int nSteps;
            int chunkSize;
            int isSend;
        } proxyOp;
        struct {
            int step;
        } proxyStep;
        struct {
            uint8_t channelId;
        } kernelCh;
        struct {
            int64_t id;
            void *data;
        } netPlugin;
    };
} ncclProfilerEventDescr_v3_t;

typedef union {
    struct {
        size_t transSize;
        int steps;
    } proxyOp;
    struct {
        int appendedProxyOps;
    } proxyCtrl;
} ncclProfilerEventStateArgs_v3_t;

typedef struct {
    const char *name;
    ncclResult_t (*init)(void **context, int *eActivationMask);
    ncclResult_t (*startEvent)(void *context, void **eHandle,
                               ncclProfilerEventDescr_v3_t *eDescr);
    ncclResult_t (*stopEvent)(void *eHandle);
    ncclResult_t (*recordEventState)(void *eHandle,
                                     ncclProfilerEventState_t eState,
                                     ncclProfilerEventStateArgs_v3_t *eStateArgs);
    ncclResult_t (*finalize)(void *context);
} ncclProfiler_v3_t;

/* v1 and v2 (NCCL 2.21, 2.22) have the same table shape as v3, with older
 * descriptors collprof does not read: it exports them only to say that this
 * NCCL is too old for it. */
typedef struct {
    const char *name;
    ncclResult_t (*init)(void **context, int *eActivationMask);
    ncclResult_t (*startEvent)(void *context, void **eHandle, void *eDescr);
    ncclResult_t (*stopEvent)(void *eHandle);
    ncclResult_t (*recordEventState)(void *eHandle,
                                     ncclProfilerEventState_t eState,
                                     void *eStateArgs);
    ncclResult_t (*finalize)(void *context);
} ncclProfiler_v1_t, ncclProfiler_v2_t;

/* ---- v4 (NCCL 2.25, 2.26) ------------------------------------------------ */
typedef struct {
    uint8_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
        } coll;
        struct {
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
            uint8_t nChannels;
        } p2p;
        struct {
            pid_t pid;
            uint8_t channelId;
            int peer;
            int nSteps;
            int chunkSize;
            int isSend;
        } proxyOp;
        struct {
            int step;
        } proxyStep;
        struct {
            uint8_t channelId;
            uint64_t pTimer; /* GPU global timer at the channel's start */
        } kernelCh;
        struct {
            int64_t id;
            void *data;
        } netPlugin;
    };
} ncclProfilerEventDescr_v4_t;

/* The state arguments of v4, v5, v6 and v7. */
typedef union {
    struct {
        size_t transSize;
    } proxyStep;
    struct {
        int appendedProxyOps;
    } proxyCtrl;
    struct {
        void *data;
    } netPlugin;
    struct {
        uint64_t pTimer; /* GPU global timer at the channel's stop */
    } kernelCh;
} ncclProfilerEventStateArgs_v4_t;
typedef ncclProfilerEventStateArgs_v4_t ncclProfilerEventStateArgs_v5_t;
typedef ncclProfilerEventStateArgs_v4_t ncclProfilerEventStateArgs_v6_t;
typedef ncclProfilerEventStateArgs_v4_t ncclProfilerEventStateArgs_v7_t;

typedef struct {
    const char *name;
    ncclResult_t (*init)(void **context, int *eActivationMask,
                         const char *commName, uint64_t commHash, int nNodes,
                         int nranks, int rank, ncclDebugLogger_t logfn);
    ncclResult_t (*startEvent)(void *context, void **eHandle,
                               ncclProfilerEventDescr_v4_t *eDescr);
    ncclResult_t (*stopEvent)(void *eHandle);
    ncclResult_t (*recordEventState)(void *eHandle,
                                     ncclProfilerEventState_t eState,
                                     ncclProfilerEventStateArgs_v4_t *eStateArgs);
    ncclResult_t (*finalize)(void *context);
} ncclProfiler_v4_t;

/* ---- v5 (NCCL 2.27, 2.28) and v6 (2.29) ------------------------------------
 * v6 appends the copy-engine events' descriptors to the union; every member
 * v5 has keeps its place, and the union only grows, so one declaration with
 * v6's members serves both (v5 callers never pass a CE event). */
typedef struct {
    uint64_t type;
    void *parentObj; /* coll, p2p: the API event (v5: hierarchy changed) */
    int rank;
    union {
        struct {
            bool graphCaptured;
            int groupDepth;
        } groupApi;
        struct {
            const char *func;
            size_t count;
            const char *datatype;
            int root;
            void *stream;
            bool graphCaptured;
        } collApi;
        struct {
            const char *func;
            size_t count;
            const char *datatype;
            void *stream;
            bool graphCaptured;
        } p2pApi;
        struct {
            void *stream;
        } kernelLaunch;
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
            void *parentGroup;
        } coll;
        struct {
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
            uint8_t nChannels;
            void *parentGroup;
        } p2p;
        struct {
            pid_t pid;
            uint8_t channelId;
            int peer;
            int nSteps;
            int chunkSize;
            int isSend;
        } proxyOp;
        struct {
            int step;
        } proxyStep;
        struct {
            uint8_t channelId;
            uint64_t pTimer;
        } kernelCh;
        struct {
            int64_t id;
            void *data;
        } netPlugin;
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            const char *syncStrategy;
            bool intraBatchSync;
            uint32_t batchSize;
            uint32_t numBatches;
            uint32_t ceSeqNum;
            void *stream;
        } ceColl; /* v6 */
        struct {
            bool isComplete;
            int nRanks;
        } ceCollSync; /* v6 */
        struct {
            int numOps;
            size_t totalBytes;
            bool useIntraSync;
        } ceCollBatch; /* v6 */
    };
} ncclProfilerEventDescr_v5_t;
typedef ncclProfilerEventDescr_v5_t ncclProfilerEventDescr_v6_t;

typedef struct {
    const char *name;
    ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                         const char *commName, int nNodes, int nranks,
                         int rank, ncclDebugLogger_t logfn);
    ncclResult_t (*startEvent)(void *context, void **eHandle,
                               ncclProfilerEventDescr_v5_t *eDescr);
    ncclResult_t (*stopEvent)(void *eHandle);
    ncclResult_t (*recordEventState)(void *eHandle,
                                     ncclProfilerEventState_t eState,
                                     ncclProfilerEventStateArgs_v5_t *eStateArgs);
    ncclResult_t (*finalize)(void *context);
} ncclProfiler_v5_t, ncclProfiler_v6_t;

/* ---- v7 (NCCL 2.31) ---------------------------------------------------------
 * The application's tag of a call (`userTag`: ncclCollConfig_t's
 * userProfilerTag, 0 when untagged, its top bit reserved) is appended to the
 * API, task and copy-engine collective descriptors, with the kernel's variant
 * and whether the collective is a symmetric one in `coll`; kernel phases are
 * a new event.  The task descriptors grow in the middle of the union's
 * members, so v7 is a layout of its own. */
/* The phases of a kernel channel (kernelPhase.phaseId). */
enum {
    CP_NCCL_PHASE_INITIAL_SYNC = 0, /* waiting for the peers' kernels */
    CP_NCCL_PHASE_COMPUTE = 1,
    CP_NCCL_PHASE_FINAL_SYNC = 2
};

typedef struct {
    uint64_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            bool graphCaptured;
            int groupDepth;
        } groupApi;
        struct {
            const char *func;
            size_t count;
            const char *datatype;
            int root;
            void *stream;
            bool graphCaptured;
            uint64_t userTag;
        } collApi;
        struct {
            const char *func;
            size_t count;
            const char *datatype;
            void *stream;
            bool graphCaptured;
            uint64_t userTag;
        } p2pApi;
        struct {
            void *stream;
        } kernelLaunch;
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
            void *parentGroup;
            const char *kernelVariant; /* the kernel NCCL launched */
            bool isSymColl;            /* a symmetric-memory collective */
            uint64_t userTag;
        } coll;
        struct {
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
            uint8_t nChannels;
            void *parentGroup;
            uint64_t userTag;
        } p2p;
        struct {
            pid_t pid;
            uint8_t channelId;
            int peer;
            int nSteps;
            int chunkSize;
            int isSend;
        } proxyOp;
        struct {
            int step;
        } proxyStep;
        struct {
            uint8_t channelId;
            uint64_t pTimer;
        } kernelCh;
        struct {
            int64_t id;
            void *data;
        } netPlugin;
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            const char *syncStrategy;
            bool intraBatchSync;
            uint32_t batchSize;
            uint32_t numBatches;
            uint32_t ceSeqNum;
            void *stream;
            uint64_t userTag;
        } ceColl;
        struct {
            bool isComplete;
            int nRanks;
        } ceCollSync;
        struct {
            int numOps;
            size_t totalBytes;
            bool useIntraSync;
        } ceCollBatch;
        struct {
            uint8_t channelId;
            uint8_t phaseId;       /* CP_NCCL_PHASE_* */
            const char *phaseName;
            uint64_t pTimer;       /* GPU global timer at the phase's start */
        } kernelPhase;
    };
} ncclProfilerEventDescr_v7_t;

typedef struct {
    const char *name;
    ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                         const char *commName, int nNodes, int nranks,
                         int rank, ncclDebugLogger_t logfn);
    ncclResult_t (*startEvent)(void *context, void **eHandle,
                               ncclProfilerEventDescr_v7_t *eDescr);
    ncclResult_t (*stopEvent)(void *eHandle);
    ncclResult_t (*recordEventState)(void *eHandle,
                                     ncclProfilerEventState_t eState,
                                     ncclProfilerEventStateArgs_v7_t *eStateArgs);
    ncclResult_t (*finalize)(void *context);
} ncclProfiler_v7_t;

/* Offsets of NCCL's own headers on LP64 (checked against them). */
_Static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.proto) == 112,
               "v3 coll");
_Static_assert(offsetof(ncclProfilerEventDescr_v4_t, kernelCh.pTimer) == 32,
               "v4 kernelCh");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.nChannels) == 80,
               "v5 coll");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, proxyOp.isSend) == 44,
               "v5 proxyOp");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, ceColl.stream) == 104,
               "v6 ceColl");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, collApi.userTag) == 72,
               "v7 collApi");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, p2pApi.userTag) == 64,
               "v7 p2pApi");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.parentGroup) == 104,
               "v7 coll");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.kernelVariant) == 112,
               "v7 coll kernelVariant");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.isSymColl) == 120,
               "v7 coll isSymColl");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.userTag) == 128,
               "v7 coll userTag");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, p2p.userTag) == 72,
               "v7 p2p");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, ceColl.userTag) == 112,
               "v7 ceColl");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.phaseId) == 25,
               "v7 kernelPhase phaseId");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.pTimer) == 40,
               "v7 kernelPhase pTimer");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, proxyOp.isSend) == 44,
               "v7 proxyOp");
_Static_assert(sizeof(ncclProfilerEventDescr_v7_t) == 136, "v7 descriptor");

#endif /* COLLPROF_CP_NCCL_PROFILER_H */
