/* cp_cuda_abi.h - the few CUPTI and CUDA runtime ABI facts the GPU timers use.
 *
 * The shim never links CUPTI or cudart: it finds them with dlopen at run time
 * (preload/cp_gpu.c), so it loads on machines without CUDA.  What it needs
 * of their ABI is declared here by the project: result codes, enum values,
 * and the leading fields of the activity records it reads.  Activity records
 * only ever grow at the end between CUPTI releases (CUpti_ActivityKernel4 to
 * CUpti_ActivityKernel10 share every field below at the same offset), so a
 * prefix is enough whatever version of libcupti the process loaded.
 * tests/unit/cuda_abi.c checks every value and offset against cupti.h and
 * cuda_runtime_api.h where the toolkit is installed.
 */
#ifndef COLLPROF_CP_CUDA_ABI_H
#define COLLPROF_CP_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ---- CUPTI ------------------------------------------------------------- */
typedef int cp_cupti_result; /* CUptiResult */
#define CP_CUPTI_SUCCESS 0
#define CP_CUPTI_ERROR_INVALID_PARAMETER 1
#define CP_CUPTI_ERROR_NOT_INITIALIZED 15
#define CP_CUPTI_ERROR_QUEUE_EMPTY 18
#define CP_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES 35
#define CP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED 39
#define CP_CUPTI_ERROR_UNKNOWN 999

/* CUpti_ActivityKind */
#define CP_CUPTI_KIND_MEMCPY 1
#define CP_CUPTI_KIND_KERNEL 3
#define CP_CUPTI_KIND_DRIVER 4
#define CP_CUPTI_KIND_RUNTIME 5
#define CP_CUPTI_KIND_CONCURRENT_KERNEL 10
#define CP_CUPTI_KIND_MEMCPY2 22 /* peer to peer */
#define CP_CUPTI_KIND_EXTERNAL_CORRELATION 39

/* CUpti_ExternalCorrelationKind: PyTorch's Kineto uses CUSTOM0 and CUSTOM1;
 * collprof uses CUSTOM2 so that both can correlate at once. */
#define CP_CUPTI_EXTERNAL_KIND_CUSTOM2 5

#define CP_CUPTI_FLUSH_FORCED 1 /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */

/* CUpti_CallbackDomain and CUpti_ApiCallbackSite */
#define CP_CUPTI_DOMAIN_DRIVER_API 1
#define CP_CUPTI_DOMAIN_RUNTIME_API 2
#define CP_CUPTI_API_ENTER 0
#define CP_CUPTI_API_EXIT 1

/* Driver API callback ids (cupti_driver_cbid.h) of the calls that enqueue
 * device work in a collective: their activity records carry the external
 * correlation; nothing else needs one. */
#define CP_CUPTI_DRIVER_APIS(X)                                                \
    X(cuMemcpyDtoDAsync_v2, 281)                                               \
    X(cuMemcpyAsync, 306)                                                      \
    X(cuLaunchKernel, 307)                                                     \
    X(cuMemcpyPeerAsync, 319)                                                  \
    X(cuMemcpyAsync_ptsz, 418)                                                 \
    X(cuMemcpyDtoDAsync_v2_ptsz, 423)                                          \
    X(cuMemcpyPeerAsync_ptsz, 426)                                             \
    X(cuLaunchKernel_ptsz, 442)                                                \
    X(cuLaunchCooperativeKernel, 477)                                          \
    X(cuLaunchKernelEx, 652)                                                   \
    X(cuLaunchKernelEx_ptsz, 653)                                              \
    X(cuMemcpyBatchAsync, 776)                                                 \
    X(cuMemcpyBatchAsync_ptsz, 777)                                            \
    X(cuMemcpyBatchAsync_v2, 796)                                              \
    X(cuMemcpyBatchAsync_v2_ptsz, 797)
/* Runtime API callback ids (cupti_runtime_cbid.h): NCCL before 2.19 launches
 * through the runtime. */
#define CP_CUPTI_RUNTIME_APIS(X)                                               \
    X(cudaMemcpyAsync_v3020, 41)                                               \
    X(cudaLaunchKernel_v7000, 211)                                             \
    X(cudaLaunchKernel_ptsz_v7000, 214)                                        \
    X(cudaMemcpyAsync_ptsz_v7000, 225)                                         \
    X(cudaLaunchKernelExC_v11060, 430)                                         \
    X(cudaLaunchKernelExC_ptsz_v11060, 431)
/* The calls that start a stream capture: once one is seen, every call asks
 * whether its stream is being captured. */
#define CP_CUPTI_DRIVER_CAPTURE_APIS(X)                                        \
    X(cuStreamBeginCapture, 495)                                               \
    X(cuStreamBeginCapture_ptsz, 496)                                          \
    X(cuStreamBeginCapture_v2, 539)                                            \
    X(cuStreamBeginCapture_v2_ptsz, 540)                                       \
    X(cuStreamBeginCaptureToGraph, 720)                                        \
    X(cuStreamBeginCaptureToGraph_ptsz, 721)
#define CP_CUPTI_RUNTIME_CAPTURE_APIS(X)                                       \
    X(cudaStreamBeginCapture_v10000, 315)                                      \
    X(cudaStreamBeginCapture_ptsz_v10000, 316)                                 \
    X(cudaStreamBeginCaptureToGraph_v12030, 452)                               \
    X(cudaStreamBeginCaptureToGraph_ptsz_v12030, 453)

/* Leading fields of CUpti_ActivityKernel4 .. CUpti_ActivityKernel10
 * (CONCURRENT_KERNEL and KERNEL records). */
struct cp_cupti_kernel {
    uint32_t kind;
    uint8_t other0[12];
    uint64_t start; /* ns, CUPTI's clock (CLOCK_REALTIME on Linux by default) */
    uint64_t end;   /* 0 when the kernel had not finished (forced flush) */
    uint64_t completed;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    uint8_t other1[40];
    uint32_t correlationId; /* of the API call that launched it */
    int64_t gridId;
    const char *name; /* owned by CUPTI */
};

/* Leading fields of CUpti_ActivityMemcpy3 .. CUpti_ActivityMemcpy6. */
struct cp_cupti_memcpy {
    uint32_t kind;
    uint8_t copyKind, srcKind, dstKind, flags;
    uint64_t bytes;
    uint64_t start, end;
    uint32_t deviceId, contextId, streamId;
    uint32_t correlationId;
};

/* Leading fields of CUpti_ActivityMemcpyPtoP2 .. CUpti_ActivityMemcpyPtoP4. */
struct cp_cupti_memcpy_p2p {
    uint32_t kind;
    uint8_t copyKind, srcKind, dstKind, flags;
    uint64_t bytes;
    uint64_t start, end;
    uint32_t deviceId, contextId, streamId;
    uint32_t srcDeviceId, srcContextId, dstDeviceId, dstContextId;
    uint32_t correlationId;
};

/* CUpti_ActivityAPI (DRIVER and RUNTIME records). */
struct cp_cupti_api {
    uint32_t kind;
    uint32_t cbid;
    uint64_t start, end;
    uint32_t processId, threadId;
    uint32_t correlationId;
    uint32_t returnValue;
};

/* CUpti_ActivityExternalCorrelation. */
struct cp_cupti_external_correlation {
    uint32_t kind;
    uint32_t externalKind;
    uint64_t externalId;
    uint32_t correlationId;
    uint32_t reserved;
};

/* Function types (CUPTIAPI is the default calling convention on Linux). */
typedef void (*cp_cupti_callback_fn)(void *userdata, int domain, uint32_t cbid,
                                     const void *cbdata);
typedef void (*cp_cupti_buffer_request_fn)(uint8_t **buffer, size_t *size,
                                           size_t *max_records);
typedef void (*cp_cupti_buffer_complete_fn)(void *context, uint32_t stream_id,
                                            uint8_t *buffer, size_t size,
                                            size_t valid_size);

/* ---- CUDA runtime ------------------------------------------------------ */
typedef int cp_cuda_error; /* cudaError_t */
#define CP_CUDA_SUCCESS 0
#define CP_CUDA_ERROR_INSUFFICIENT_DRIVER 35
#define CP_CUDA_ERROR_NO_DEVICE 100
#define CP_CUDA_ERROR_NOT_READY 600

typedef struct CUevent_st *cp_cuda_event;   /* cudaEvent_t */
typedef struct CUstream_st *cp_cuda_stream; /* cudaStream_t */

#define CP_CUDA_EVENT_DEFAULT 0x00u
#define CP_CUDA_EVENT_DISABLE_TIMING 0x02u
#define CP_CUDA_STREAM_NON_BLOCKING 0x01u

/* cudaStreamCaptureStatus and cudaStreamCaptureMode */
#define CP_CUDA_CAPTURE_STATUS_NONE 0
#define CP_CUDA_CAPTURE_STATUS_ACTIVE 1
#define CP_CUDA_CAPTURE_STATUS_INVALIDATED 2
#define CP_CUDA_CAPTURE_MODE_GLOBAL 0
#define CP_CUDA_CAPTURE_MODE_THREAD_LOCAL 1
#define CP_CUDA_CAPTURE_MODE_RELAXED 2

#endif
