/* cp_timer_int.h - what the GPU timer's files share (not for the shim).
 *
 *   cp_timer.c        choice, library loading, the background thread, the
 *                     sink that turns intervals into CP_REC_GPU records,
 *                     communicator -> device table, fallbacks
 *   cp_timer_cupti.c  CUPTI: subscribe, enable, buffers, push/pop, clock
 *   cp_timer_event.c  CUDA events: pools, per-call records, polling
 *   cp_timer_join.c   pure correlation bookkeeping (unit-tested alone)
 */
#ifndef COLLPROF_CP_TIMER_INT_H
#define COLLPROF_CP_TIMER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_error.h"
#include "cp_cuda_abi.h"
#include "cp_timer.h"

#define CP_TIMER_TLS __thread __attribute__((tls_model("initial-exec")))

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
extern struct cp_cudart cp_rt;

/* Set once a stream capture was seen to begin (CUPTI callback) or when
 * captures cannot be watched: from then on calls ask their stream. */
extern int cp_capture_seen; /* atomic */

/* Whether stream is being captured into a CUDA graph (an error counts as
 * yes: nothing is then recorded on it). */
int cp_timer_stream_capturing(void *stream);

/* Per-thread state of the current outermost group. */
#define CP_GROUP_STREAMS 8
struct cp_tls_group {
    int captured; /* a call of the group was captured */
    int nstreams, overflow;
    void *stream[CP_GROUP_STREAMS];
    int dev[CP_GROUP_STREAMS];
    int32_t entry[CP_GROUP_STREAMS]; /* event pool entries of GroupEnd */
};
extern CP_TIMER_TLS struct cp_tls_group cp_tls_group;

/* ---- services of cp_timer.c --------------------------------------------- */
uint64_t cp_timer_realtime_ns(void);

/* Write the device interval of ext (times on CLOCK_REALTIME) as CP_REC_GPU
 * records: one for a call; for a group, one per call of the group and one
 * for the group record, all CP_CALL_FUSED when the group holds several
 * calls.  Returns -1 when the group record is not written yet (ask again
 * later), 0 otherwise; final: write what can be written now. */
int cp_timer_emit(uint64_t ext, unsigned timer, uint16_t flags,
                  uint64_t start_ns, uint64_t end_ns, int final);

/* A CP_REC_CLOCK record with a device clock reading. */
void cp_timer_write_clock(uint64_t realtime_ns, uint64_t gpu_ns);

/* The device of a communicator (cp_timer_comm_device), -1 unknown. */
int cp_timer_comm_dev(const void *comm);

/* Hot path: the event timer failed; switch to host (the background thread
 * says so once). */
void cp_timer_event_failed(const char *what, int err);

/* Library search: already loaded, then the loader's path, then the usual
 * CUDA directories.  NULL when none loads. */
void *cp_timer_dlopen(const char *const *names);

/* ---- CUPTI (cp_timer_cupti.c) ------------------------------------------- */
/* Load, subscribe, enable.  0, or -1 with a short reason in err (conflict
 * set when another CUPTI client holds the subscription). */
int cp_cupti_open(int nccl_version, struct cp_error *err, int *conflict);
void cp_cupti_teardown(void); /* undo open (not started, or giving up) */
void cp_cupti_started(void);  /* first calibration, once the log is open */
/* Background: flush, join, emit, watch.  NULL, or, in the round that gave
 * CUPTI up (what was seen is written), why: a static sentence for the
 * fallback's warning line. */
const char *cp_cupti_round(void);
void cp_cupti_final(void); /* forced flush, everything out */
void cp_cupti_call_begin(struct cp_gpu_call *g, uint64_t slot, void *stream,
                         int in_group);
void cp_cupti_call_end(struct cp_gpu_call *g, int result, uint64_t t0);
void cp_cupti_group_begin(struct cp_gpu_call *g, uint64_t slot,
                          uint64_t first_slot);
void cp_cupti_group_end(struct cp_gpu_call *g, int result, uint64_t t0);

/* ---- CUDA events (cp_timer_event.c) ------------------------------------- */
int cp_event_open(struct cp_error *err); /* a device is present */
int cp_event_pool(int dev);                  /* make dev's pool; 0 / -1 */
void cp_event_prepare_known(void);           /* pools for known devices */
void cp_event_round(void);
void cp_event_final(void);
void cp_event_call_begin(struct cp_gpu_call *g, uint64_t slot, void *stream,
                         const void *comm, int in_group);
void cp_event_call_end(struct cp_gpu_call *g, int result);
void cp_event_group_begin(struct cp_gpu_call *g, uint64_t slot,
                          uint64_t first_slot);
void cp_event_group_end(struct cp_gpu_call *g, int result);

#endif
