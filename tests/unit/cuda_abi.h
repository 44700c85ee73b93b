/* cuda_abi.h - the CUPTI and CUDA runtime ABI facts of preload/cp_cuda_abi.h,
 * listed once so that two translation units can state them: one from the
 * project's header, one from the toolkit's (cupti.h, cuda_runtime_api.h).
 *
 * X(label, ours, real): `ours` is compiled only against cp_cuda_abi.h,
 * `real` only against the toolkit's headers.
 */
#ifndef COLLPROF_TEST_CUDA_ABI_H
#define COLLPROF_TEST_CUDA_ABI_H

#define CUDA_ABI_KERNEL(X, T)                                                  \
    X(T.kind, offsetof(struct cp_cupti_kernel, kind), offsetof(T, kind))       \
    X(T.start, offsetof(struct cp_cupti_kernel, start), offsetof(T, start))    \
    X(T.end, offsetof(struct cp_cupti_kernel, end), offsetof(T, end))          \
    X(T.deviceId, offsetof(struct cp_cupti_kernel, deviceId),                  \
      offsetof(T, deviceId))                                                   \
    X(T.contextId, offsetof(struct cp_cupti_kernel, contextId),                \
      offsetof(T, contextId))                                                  \
    X(T.streamId, offsetof(struct cp_cupti_kernel, streamId),                  \
      offsetof(T, streamId))                                                   \
    X(T.correlationId, offsetof(struct cp_cupti_kernel, correlationId),        \
      offsetof(T, correlationId))                                              \
    X(T.name, offsetof(struct cp_cupti_kernel, name), offsetof(T, name))

#define CUDA_ABI_MEMCPY(X, T, S)                                               \
    X(T.kind, offsetof(S, kind), offsetof(T, kind))                            \
    X(T.copyKind, offsetof(S, copyKind), offsetof(T, copyKind))                \
    X(T.bytes, offsetof(S, bytes), offsetof(T, bytes))                         \
    X(T.start, offsetof(S, start), offsetof(T, start))                         \
    X(T.end, offsetof(S, end), offsetof(T, end))                               \
    X(T.deviceId, offsetof(S, deviceId), offsetof(T, deviceId))                \
    X(T.contextId, offsetof(S, contextId), offsetof(T, contextId))             \
    X(T.streamId, offsetof(S, streamId), offsetof(T, streamId))                \
    X(T.correlationId, offsetof(S, correlationId), offsetof(T, correlationId))

#define CUDA_ABI_FACTS(X)                                                      \
    X(CUPTI_SUCCESS, CP_CUPTI_SUCCESS, CUPTI_SUCCESS)                          \
    X(CUPTI_ERROR_INVALID_PARAMETER, CP_CUPTI_ERROR_INVALID_PARAMETER,         \
      CUPTI_ERROR_INVALID_PARAMETER)                                           \
    X(CUPTI_ERROR_NOT_INITIALIZED, CP_CUPTI_ERROR_NOT_INITIALIZED,             \
      CUPTI_ERROR_NOT_INITIALIZED)                                             \
    X(CUPTI_ERROR_QUEUE_EMPTY, CP_CUPTI_ERROR_QUEUE_EMPTY,                     \
      CUPTI_ERROR_QUEUE_EMPTY)                                                 \
    X(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,                                     \
      CP_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,                                  \
      CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)                                     \
    X(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,                          \
      CP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,                       \
      CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)                          \
    X(CUPTI_ERROR_UNKNOWN, CP_CUPTI_ERROR_UNKNOWN, CUPTI_ERROR_UNKNOWN)        \
    X(CUPTI_ACTIVITY_KIND_MEMCPY, CP_CUPTI_KIND_MEMCPY,                        \
      CUPTI_ACTIVITY_KIND_MEMCPY)                                              \
    X(CUPTI_ACTIVITY_KIND_KERNEL, CP_CUPTI_KIND_KERNEL,                        \
      CUPTI_ACTIVITY_KIND_KERNEL)                                              \
    X(CUPTI_ACTIVITY_KIND_DRIVER, CP_CUPTI_KIND_DRIVER,                        \
      CUPTI_ACTIVITY_KIND_DRIVER)                                              \
    X(CUPTI_ACTIVITY_KIND_RUNTIME, CP_CUPTI_KIND_RUNTIME,                      \
      CUPTI_ACTIVITY_KIND_RUNTIME)                                             \
    X(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CP_CUPTI_KIND_CONCURRENT_KERNEL,  \
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)                                   \
    X(CUPTI_ACTIVITY_KIND_MEMCPY2, CP_CUPTI_KIND_MEMCPY2,                      \
      CUPTI_ACTIVITY_KIND_MEMCPY2)                                             \
    X(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,                                \
      CP_CUPTI_KIND_EXTERNAL_CORRELATION,                                      \
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)                                \
    X(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2,                                 \
      CP_CUPTI_EXTERNAL_KIND_CUSTOM2, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2) \
    X(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, CP_CUPTI_FLUSH_FORCED,                 \
      CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)                                        \
    X(CUPTI_CB_DOMAIN_DRIVER_API, CP_CUPTI_DOMAIN_DRIVER_API,                  \
      CUPTI_CB_DOMAIN_DRIVER_API)                                              \
    X(CUPTI_CB_DOMAIN_RUNTIME_API, CP_CUPTI_DOMAIN_RUNTIME_API,                \
      CUPTI_CB_DOMAIN_RUNTIME_API)                                             \
    X(CUPTI_API_ENTER, CP_CUPTI_API_ENTER, CUPTI_API_ENTER)                    \
    X(CUPTI_API_EXIT, CP_CUPTI_API_EXIT, CUPTI_API_EXIT)                       \
    CUDA_ABI_KERNEL(X, CUpti_ActivityKernel4)                                  \
    CUDA_ABI_KERNEL(X, CUpti_ActivityKernel5)                                  \
    CUDA_ABI_KERNEL(X, CUpti_ActivityKernel6)                                  \
    CUDA_ABI_KERNEL(X, CUpti_ActivityKernel7)                                  \
    CUDA_ABI_KERNEL(X, CUpti_ActivityKernel8)                                  \
    CUDA_ABI_KERNEL(X, CUpti_ActivityKernel9)                                  \
    CUDA_ABI_KERNEL(X, CUpti_ActivityKernel10)                                 \
    CUDA_ABI_MEMCPY(X, CUpti_ActivityMemcpy3, struct cp_cupti_memcpy)          \
    CUDA_ABI_MEMCPY(X, CUpti_ActivityMemcpy4, struct cp_cupti_memcpy)          \
    CUDA_ABI_MEMCPY(X, CUpti_ActivityMemcpy5, struct cp_cupti_memcpy)          \
    CUDA_ABI_MEMCPY(X, CUpti_ActivityMemcpy6, struct cp_cupti_memcpy)          \
    CUDA_ABI_MEMCPY(X, CUpti_ActivityMemcpyPtoP2, struct cp_cupti_memcpy_p2p)  \
    CUDA_ABI_MEMCPY(X, CUpti_ActivityMemcpyPtoP3, struct cp_cupti_memcpy_p2p)  \
    CUDA_ABI_MEMCPY(X, CUpti_ActivityMemcpyPtoP4, struct cp_cupti_memcpy_p2p)  \
    X(CUpti_ActivityAPI.cbid, offsetof(struct cp_cupti_api, cbid),             \
      offsetof(CUpti_ActivityAPI, cbid))                                       \
    X(CUpti_ActivityAPI.start, offsetof(struct cp_cupti_api, start),           \
      offsetof(CUpti_ActivityAPI, start))                                      \
    X(CUpti_ActivityAPI.end, offsetof(struct cp_cupti_api, end),               \
      offsetof(CUpti_ActivityAPI, end))                                        \
    X(CUpti_ActivityAPI.threadId, offsetof(struct cp_cupti_api, threadId),     \
      offsetof(CUpti_ActivityAPI, threadId))                                   \
    X(CUpti_ActivityAPI.correlationId,                                         \
      offsetof(struct cp_cupti_api, correlationId),                            \
      offsetof(CUpti_ActivityAPI, correlationId))                              \
    X(CUpti_ActivityAPI.returnValue,                                           \
      offsetof(struct cp_cupti_api, returnValue),                              \
      offsetof(CUpti_ActivityAPI, returnValue))                                \
    X(sizeof(CUpti_ActivityExternalCorrelation),                               \
      sizeof(struct cp_cupti_external_correlation),                            \
      sizeof(CUpti_ActivityExternalCorrelation))                               \
    X(CUpti_ActivityExternalCorrelation.externalKind,                          \
      offsetof(struct cp_cupti_external_correlation, externalKind),            \
      offsetof(CUpti_ActivityExternalCorrelation, externalKind))               \
    X(CUpti_ActivityExternalCorrelation.externalId,                            \
      offsetof(struct cp_cupti_external_correlation, externalId),              \
      offsetof(CUpti_ActivityExternalCorrelation, externalId))                 \
    X(CUpti_ActivityExternalCorrelation.correlationId,                         \
      offsetof(struct cp_cupti_external_correlation, correlationId),           \
      offsetof(CUpti_ActivityExternalCorrelation, correlationId))              \
    X(cudaSuccess, CP_CUDA_SUCCESS, cudaSuccess)                               \
    X(cudaErrorInsufficientDriver, CP_CUDA_ERROR_INSUFFICIENT_DRIVER,          \
      cudaErrorInsufficientDriver)                                             \
    X(cudaErrorNoDevice, CP_CUDA_ERROR_NO_DEVICE, cudaErrorNoDevice)           \
    X(cudaErrorNotReady, CP_CUDA_ERROR_NOT_READY, cudaErrorNotReady)           \
    X(cudaEventDefault, CP_CUDA_EVENT_DEFAULT, cudaEventDefault)               \
    X(cudaEventDisableTiming, CP_CUDA_EVENT_DISABLE_TIMING,                    \
      cudaEventDisableTiming)                                                  \
    X(cudaStreamNonBlocking, CP_CUDA_STREAM_NON_BLOCKING,                      \
      cudaStreamNonBlocking)                                                   \
    X(cudaStreamCaptureStatusNone, CP_CUDA_CAPTURE_STATUS_NONE,                \
      cudaStreamCaptureStatusNone)                                             \
    X(cudaStreamCaptureStatusActive, CP_CUDA_CAPTURE_STATUS_ACTIVE,            \
      cudaStreamCaptureStatusActive)                                           \
    X(cudaStreamCaptureStatusInvalidated, CP_CUDA_CAPTURE_STATUS_INVALIDATED,  \
      cudaStreamCaptureStatusInvalidated)                                      \
    X(cudaStreamCaptureModeGlobal, CP_CUDA_CAPTURE_MODE_GLOBAL,                \
      cudaStreamCaptureModeGlobal)                                             \
    X(cudaStreamCaptureModeThreadLocal, CP_CUDA_CAPTURE_MODE_THREAD_LOCAL,     \
      cudaStreamCaptureModeThreadLocal)                                        \
    X(cudaStreamCaptureModeRelaxed, CP_CUDA_CAPTURE_MODE_RELAXED,              \
      cudaStreamCaptureModeRelaxed)

#endif
