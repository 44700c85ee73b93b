/* cp_timer.h - the GPU timers of the shim: `cupti`, `event`, and the choice.
 *
 * On a GPU an NCCL call returns once its work is queued; the host clock says
 * when it was queued, not how long the collective ran.  These timers add a
 * device interval to a call, written later as a CP_REC_GPU record that names
 * the call's slot:
 *   cupti  an external correlation id (the call's slot) is pushed around the
 *          real call; CUPTI's kernel and memcpy activity records are joined
 *          to it off the hot path (cp_timer_cupti.c, cp_timer_join.c);
 *   event  CUDA events recorded on the call's stream before and after the
 *          real call, read later by a background thread (cp_timer_event.c).
 * The shim calls cp_timer_choose() before its log opens (the header names the
 * timer and why), cp_timer_start() once it is open, and the hooks below around
 * each call.  With the host timer none of them is called: the wrappers test
 * cp_timer_gpu_mode() once.  Nothing here ever changes what NCCL sees or
 * returns; any failure turns the GPU timer off (cupti -> event -> host) with
 * one warning line.
 */
#ifndef COLLPROF_CP_TIMER_H
#define COLLPROF_CP_TIMER_H

#include <stdint.h>

#include "collprof/cp_logfmt.h"
#include "cp_gpu.h"
#include "cp_logwrite.h"

/* The timer in force (enum cp_gpu_mode, cp_gpu.h). */
static inline int cp_timer_gpu_mode(void)
{
    return __atomic_load_n(&cp_gpu_mode, __ATOMIC_RELAXED);
}

/* What the header records. */
struct cp_timer_choice {
    unsigned timer;           /* enum cp_timer */
    char reason[CP_HDR_STR];  /* e.g. "auto: cupti", "auto: host (no CUDA driver loaded)" */
    char warning[256];        /* a requested timer that could not be had, else "" */
};

/* Pick the timer and prepare it (load CUPTI/cudart, subscribe, enable).
 * `requested` is CP_TIMER_HOST/EVENT/CUPTI, or CP_TIMER_NONE for auto:
 * cupti where it works, else event where a GPU is present, else host.
 * `nccl_version` (22809 = 2.28.9; 0 unknown) decides whether copy-engine
 * collectives (memcpy records) are possible.  Never fails. */
void cp_timer_choose(unsigned requested, int nccl_version,
                     struct cp_timer_choice *out);

/* The log is open: start the background thread ("collprof-gpu") that joins
 * activity / reads events and writes CP_REC_GPU and calibration records.
 * `warn` prints the shim's one timer warning line (a later fallback). */
void cp_timer_start(struct cp_log *log,
                    void (*warn)(const char *what, const char *consequence));

/* Around one data call (its state, struct cp_gpu_call, is in cp_gpu.h);
 * in_group: inside GroupStart..GroupEnd (the work is launched by the
 * outermost GroupEnd).  end gets NCCL's result and the host time the call
 * began. */
void cp_timer_call_begin(struct cp_gpu_call *g, int mode, uint64_t slot,
                         void *stream, const void *comm, int in_group);
void cp_timer_call_end(struct cp_gpu_call *g, int result, uint64_t t0);

/* Outermost GroupStart (forget the last group's streams), and around the
 * outermost GroupEnd: slot is the group record's, first_slot the log's next
 * slot at GroupStart (the group's calls lie in between). */
void cp_timer_group_start(void);
void cp_timer_group_begin(struct cp_gpu_call *g, int mode, uint64_t slot,
                          uint64_t first_slot);
void cp_timer_group_end(struct cp_gpu_call *g, int result, uint64_t t0);

/* A communicator was created on CUDA device dev (event pools are per
 * device).  Not on the per-call path. */
void cp_timer_comm_device(const void *comm, int dev);

/* Final flush and join, then no more GPU records.  Runs from an atexit
 * handler (while CUDA is still up) and again, harmlessly, from the shim's
 * destructor.  Never blocks on the user's streams. */
void cp_timer_stop(void);

/* In a fork child: the parent's timer is not ours. */
void cp_timer_forked(void);

#endif
