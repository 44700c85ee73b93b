/* cp_timer_event.h - the `event` GPU timer (cp_timer_event.c), called by the
 * dispatcher (cp_timer.c) only.  Its per-call hooks run on the NCCL callers'
 * threads; pools are made off the per-call path; round and final on the
 * background thread (or the exit handler). */
#ifndef COLLPROF_CP_TIMER_EVENT_H
#define COLLPROF_CP_TIMER_EVENT_H

#include <stdint.h>

#include "collprof/cp_error.h"
#include "cp_gpu.h"

int cp_event_open(struct cp_error *err); /* a device is present */
int cp_event_pool(int dev);              /* make dev's pool; 0 / -1 */
void cp_event_round(void);
void cp_event_final(void);
void cp_event_call_begin(struct cp_gpu_call *g, uint64_t slot, void *stream,
                         const void *comm, int in_group);
void cp_event_call_end(struct cp_gpu_call *g, int result);
void cp_event_group_begin(struct cp_gpu_call *g, uint64_t slot,
                          uint64_t first_slot);
void cp_event_group_end(struct cp_gpu_call *g, int result);

#endif
