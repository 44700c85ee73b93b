/* cp_timer_cupti.h - the `cupti` GPU timer (cp_timer_cupti.c), called by the
 * dispatcher (cp_timer.c) only.  Its per-call hooks run on the NCCL callers'
 * threads; open and teardown at the choice and at the end; started, round
 * and final on the background thread (or the exit handler). */
#ifndef COLLPROF_CP_TIMER_CUPTI_H
#define COLLPROF_CP_TIMER_CUPTI_H

#include <stdint.h>

#include "collprof/cp_error.h"
#include "cp_gpu.h"

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

#endif
