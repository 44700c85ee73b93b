/* cp_timer_join.h - joining CUPTI activity records to NCCL calls.
 *
 * Pure bookkeeping, no CUPTI calls, so that it can be tested with synthetic
 * records.  The shim pushes an external correlation id (CUSTOM2 kind) around
 * each call that launches device work; CUPTI then writes, in no guaranteed
 * order and possibly in different buffers:
 *   EXTERNAL_CORRELATION {externalId, correlationId}  at the launch API call,
 *   DRIVER/RUNTIME API   {correlationId, start}        the launch itself,
 *   CONCURRENT_KERNEL / MEMCPY / MEMCPY2 {correlationId, start, end}
 *                                                       when the work ran.
 * The join keeps, per correlation id, whatever half arrived first, and per
 * external id the union of its device intervals.  An external id is emitted
 * once its device work has been quiet for `settle_rounds` rounds (a round is
 * one flush of CUPTI's buffers); one that launched work but got no device
 * record is emitted as incomplete at the end (or after `expire_rounds`),
 * never invented.  Device records nobody claims are dropped after
 * `orphan_rounds`, except NCCL kernels launched by NCCL's own thread for a
 * non-blocking communicator: those are given to the most recent deferred
 * launch (cp_join_deferred) on the same stream that began before them.
 * Times stay on CUPTI's clock; the caller maps them to CLOCK_REALTIME.
 * Not thread-safe: one thread owns a join.
 */
#ifndef COLLPROF_CP_TIMER_JOIN_H
#define COLLPROF_CP_TIMER_JOIN_H

#include <stdint.h>

struct cp_join; /* opaque */

struct cp_join_params {
    uint32_t settle_rounds; /* quiet rounds before an interval is final (2) */
    uint32_t orphan_rounds; /* rounds an unclaimed device record waits (2) */
    uint32_t expire_rounds; /* rounds a launch may wait for its device record */
};

struct cp_join_stats {
    uint64_t records;    /* activity records looked at */
    uint64_t launches;   /* external correlations of ours */
    uint64_t device;     /* device records joined through a correlation */
    uint64_t deferred;   /* device records joined to a non-blocking launch */
    uint64_t unmatched;  /* device records of no call of ours, dropped */
    uint64_t emitted;    /* intervals emitted */
    uint64_t incomplete; /* of which incomplete */
    uint64_t last_ext;   /* largest low 32 bits of an external id seen */
};

/* Emit the device interval of external id ext: [start, end] on CUPTI's
 * clock, flags CP_CALL_INCOMPLETE when the end was never seen (end 0, and
 * start 0 too when the work was never seen to begin).  Return 0 when done,
 * -1 to be asked again next round (ignored when final). */
typedef int (*cp_join_emit_fn)(void *ctx, uint64_t ext, uint16_t flags,
                               uint64_t start, uint64_t end, int final);

/* NULL on allocation failure.  Destroy accepts NULL. */
struct cp_join *cp_join_create(const struct cp_join_params *params);
void cp_join_destroy(struct cp_join *j);

/* One activity record (any kind; unknown kinds are ignored).  The record is
 * only read during the call. */
void cp_join_record(struct cp_join *j, const void *record);

/* A call that returned ncclInProgress: NCCL's own thread launches its work
 * later, outside the pushed correlation id.  stream_id is CUPTI's id of the
 * call's stream (0 unknown), t_begin the call's start on CUPTI's clock. */
void cp_join_deferred(struct cp_join *j, uint64_t ext, uint32_t stream_id,
                      uint64_t t_begin);

/* End of a round: emit what is settled, drop what expired.  final: the
 * process is ending, emit everything (incomplete where it is).  Returns the
 * number of intervals emitted. */
unsigned cp_join_settle(struct cp_join *j, int final, cp_join_emit_fn emit,
                        void *ctx);

void cp_join_get_stats(const struct cp_join *j, struct cp_join_stats *st);

/* Entries held (tests: memory does not grow with unrelated records). */
uint64_t cp_join_pending(const struct cp_join *j);

#endif
