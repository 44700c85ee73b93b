/* cp_gpu.h - what the shim's GPU timers stand on.  The shim reaches it only
 * through cp_timer.h, for the timer in force and a call's state.
 *
 *   cp_timer.c        the dispatcher: the choice, the background thread,
 *                     fallbacks; calls the two backends below
 *   cp_timer_cupti.c  CUPTI: subscribe, enable, buffers, push/pop, clock
 *   cp_timer_event.c  CUDA events: pools, per-call records, polling
 *   cp_gpu.c          this file pair, below both backends: the timer in
 *                     force, the CUDA runtime through dlopen, stream
 *                     captures, the device of each communicator, the
 *                     writer of CP_REC_GPU / CP_REC_CLOCK records and of
 *                     the header's timer, the event timer's failure flag
 *   cp_timer_join.c   pure correlation bookkeeping (unit-tested alone)
 *
 * Calls go down only: the dispatcher calls the backends and this file, the
 * backends call this file, this file calls nobody above it.  What a backend
 * has to tell the dispatcher it returns (cp_cupti_round) or leaves in a flag
 * here that the dispatcher's thread reads (cp_gpu_event_failure).
 */
#ifndef COLLPROF_CP_GPU_H
#define COLLPROF_CP_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "collprof/cp_clockns.h"
#include "cp_cuda_abi.h"

struct cp_log;

#define CP_GPU_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- the timer in force ------------------------------------------------- */
enum cp_gpu_mode { CP_GPU_OFF = 0, CP_GPU_CUPTI = 1, CP_GPU_EVENT = 2 };

extern int cp_gpu_mode; /* atomic: enum cp_gpu_mode in force */

/* Per call.  The shim reserves the call's slot before the real call so that
 * the slot can name the device work. */
struct cp_gpu_call {
    int mode;       /* enum cp_gpu_mode used by begin */
    uint16_t flags; /* CP_CALL_CAPTURED / CP_CALL_INCOMPLETE for the call record */
    int32_t entry;  /* event timer: first pool entry, -1 none */
    int32_t nentries;
    uint64_t ext; /* cupti: the external id pushed, 0 none */
    void *stream;
};

/* ---- external ids -------------------------------------------------------
 * A call's id is its log slot + 1.  A group's id also says where its calls
 * are: bit 63 set, bits 32..62 the distance back from the group record's
 * slot to the log's next slot at GroupStart.  Slots are below 2^28. */
#define CP_EXT_GROUP (UINT64_C(1) << 63)

static inline uint64_t cp_ext_call(uint64_t slot)
{
    return slot + 1;
}

static inline uint64_t cp_ext_group(uint64_t slot, uint64_t first_slot)
{
    uint64_t d = slot > first_slot ? slot - first_slot : 0;
    if (d > 0x7fffffffu)
        d = 0x7fffffffu;
    return CP_EXT_GROUP | d << 32 | (slot + 1);
}

static inline uint64_t cp_ext_slot(uint64_t ext)
{
    return (ext & 0xffffffffu) - 1;
}

static inline uint64_t cp_gpu_realtime_ns(void)
{
    return cp_clock_ns(CLOCK_REALTIME);
}

/* ---- the CUDA runtime, through dlopen ----------------------------------- */
struct cp_cudart {
    void *lib;
    cp_cuda_error (*get_device_count)(int *);
    cp_cuda_error (*get_device)(int *);
    cp_cuda_error (*set_device)(int);
    cp_cuda_error (*event_create)(cp_cuda_event *, unsigned);
    cp_cuda_error (*event_record)(cp_cuda_event, cp_cuda_stream);
    cp_cuda_error (*event_query)(cp_cuda_event);
    cp_cuda_error (*event_elapsed)(float *, cp_cuda_event, cp_cuda_event);
    cp_cuda_error (*event_synchronize)(cp_cuda_event);
    cp_cuda_error (*event_destroy)(cp_cuda_event);
    cp_cuda_error (*stream_create)(cp_cuda_stream *, unsigned);
    cp_cuda_error (*stream_is_capturing)(cp_cuda_stream, int *);
    cp_cuda_error (*exchange_capture_mode)(int *);
    const char *(*error_string)(cp_cuda_error);
};
extern struct cp_cudart cp_gpu_rt; /* filled by cp_gpu_load_cudart */

/* Library search: already loaded, then the loader's path, then the usual
 * CUDA directories.  NULL when none loads. */
void *cp_gpu_dlopen(const char *const *names);

/* Fill cp_gpu_rt (once); 0, or -1 when no usable libcudart loads. */
int cp_gpu_load_cudart(void);

/* Set once a stream capture was seen to begin (CUPTI callback) or when
 * captures cannot be watched: from then on calls ask their stream. */
extern int cp_gpu_capture_seen; /* atomic */

/* Whether stream is being captured into a CUDA graph (an error counts as
 * yes: nothing is then recorded on it). */
int cp_gpu_stream_capturing(void *stream);

/* Per-thread state of the current outermost group. */
#define CP_GPU_GROUP_STREAMS 8
struct cp_gpu_group {
    int captured; /* a call of the group was captured */
    int nstreams, overflow;
    void *stream[CP_GPU_GROUP_STREAMS];
    int dev[CP_GPU_GROUP_STREAMS];
    int32_t entry[CP_GPU_GROUP_STREAMS]; /* event pool entries of GroupEnd */
};
extern CP_GPU_TLS struct cp_gpu_group cp_gpu_group;

/* ---- communicators and their devices ------------------------------------ */
/* comm (non-NULL) was created on device dev (>= 0).  Not on the per-call
 * path. */
void cp_gpu_comm_device_set(const void *comm, int dev);

/* The device of a communicator, -1 unknown. */
int cp_gpu_comm_device(const void *comm);

/* The devices (below 64) of the communicators seen so far, one bit each. */
uint64_t cp_gpu_devices_known(void);

/* ---- records ------------------------------------------------------------ */
/* The log the records go to (NULL: none are written).  The caller keeps it
 * open while a timer runs. */
void cp_gpu_set_log(struct cp_log *log);

/* Write the device interval of ext (times on CLOCK_REALTIME) as CP_REC_GPU
 * records: one for a call; for a group, one per call of the group and one
 * for the group record, all CP_CALL_FUSED when the group holds several
 * calls.  Returns -1 when the group record is not written yet (ask again
 * later), 0 otherwise; final: write what can be written now. */
int cp_gpu_emit(uint64_t ext, unsigned timer, uint16_t flags,
                uint64_t start_ns, uint64_t end_ns, int final);

/* A CP_REC_CLOCK record with a device clock reading. */
void cp_gpu_write_clock(uint64_t realtime_ns, uint64_t gpu_ns);

/* The header's timer (enum cp_timer) and the reason it gives, after a
 * fallback. */
void cp_gpu_set_header_timer(unsigned timer, const char *reason);

/* ---- the event timer's failure ------------------------------------------ */
/* Hot path: the event timer failed; switch to host (the background thread
 * says so once, from cp_gpu_event_failure). */
void cp_gpu_event_failed(const char *what, int err);

/* Background thread: the failure's sentence the first time it is asked
 * after cp_gpu_event_failed, NULL otherwise.  Owned by this file. */
const char *cp_gpu_event_failure(void);

#endif
