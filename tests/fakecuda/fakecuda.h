/* fakecuda.h - the stand-in CUDA of the GPU timer tests (no GPU needed).
 *
 *   libcuda.so.1     empty: its presence is what "the process uses CUDA"
 *                    means to the shim's automatic choice
 *   libcudart.so.13  streams with a virtual device timeline, events, stream
 *                    capture, device count; the few calls the shim uses
 *   libcupti.so.13   subscription, activity buffers, external correlation;
 *                    turns each launch into API, external-correlation and
 *                    kernel/memcpy records (cp_cuda_abi.h layouts)
 *   nccl/libnccl.so.2  an NCCL that "launches kernels" on that timeline
 *
 * A launch on a stream starts when the stream is free, lasts its duration
 * in real time, and completes then: events recorded after it complete with
 * it, CUPTI delivers its kernel record once it has ended (or, with no end,
 * at a forced flush).  Behaviours chosen by environment variables:
 *   FAKECUDA_DEVICES=n      cudaGetDeviceCount (default 1; 0: no device)
 *   FAKECUDA_HANG=k         the k-th launch (1-based) never completes
 *   FAKECUPTI_MODE=...      comma list:
 *       multiple    cuptiSubscribe fails: multiple subscribers
 *       unknown     cuptiSubscribe fails: CUPTI_ERROR_UNKNOWN
 *       reorder     external correlation records come one flush after the
 *                   device records they explain
 *       hold        device records only at the forced flush (exit)
 *       late        one buffer more, completed from the library's
 *                   destructor, after the profiler stopped
 *   FAKECUPTI_MISSING=k     the k-th launch's device record is never written
 *   FAKECUPTI_FINALIZE_AFTER=n  after n launches CUPTI behaves as finalized
 *                   by another tool: push/pop fail, nothing is delivered
 *   FAKECUPTI_OFFSET_NS=d   CUPTI's clock = CLOCK_REALTIME + d
 *   FAKENCCL_KERNEL_NS=t    duration of a collective (default 300000)
 *   FAKENCCL_CE=1           collectives are copy-engine memcpys
 */
#ifndef COLLPROF_FAKECUDA_H
#define COLLPROF_FAKECUDA_H

#include <stdint.h>

/* The launch kinds of fakecuda_launch. */
#define FAKECUDA_KERNEL 0
#define FAKECUDA_MEMCPY 1

/* fake cudart -> fake cupti: a launch (captured: into a graph, nothing runs;
 * end 0: never completes), and the start of a stream capture. */
typedef void (*fakecuda_launch_hook)(uint32_t stream_id, const char *name,
                                     int what, uint64_t start, uint64_t end,
                                     int captured);
typedef void (*fakecuda_capture_hook)(void);

/* Exported by libcudart.so.13 (fake). */
void fakecuda_set_hooks(fakecuda_launch_hook launch,
                        fakecuda_capture_hook capture);
/* Enqueue device work of dur_ns on stream (0 = the legacy stream). */
int fakecuda_launch(void *stream, const char *name, int what, uint64_t dur_ns);
uint32_t fakecuda_stream_id(void *stream);
/* Events recorded into a stream while it was capturing. */
uint64_t fakecuda_captured_event_records(void);
uint64_t fakecuda_now_ns(void);

/* Exported by libcuda.so.1 (fake); used so that the link keeps it. */
int fakecuda_driver_present(void);

/* Exported by libcupti.so.13 (fake): what the test can ask. */
uint64_t fakecupti_launches(void);

#endif
