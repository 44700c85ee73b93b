/* cp_policy.h - the capture policy (cp_logfmt.h, "capture policy";
 * docs/capture-policy.md): which finished calls the log thread keeps in
 * detail, and the aggregates it folds the others into.
 *
 * Pure: no I/O, no locks, no printing.  The log thread (cp_logring.c)
 * hands it every finished slot in slot order; it says whether the slot is
 * folded, and keeps, per signature (communicator, op, datatype, reduction,
 * count, peer) and interval of CLOCK_REALTIME, the calls' count, sequence
 * range and durations (min, max, sum, and a histogram of 8 buckets per
 * power of two for the median and the 99th percentile: within 1/16 of the
 * value).  When a slot of a later interval comes, or the caller asks at a
 * time past the interval, the interval's aggregates are closed into
 * records (cp_rec_agg) that the caller writes into the log as records of
 * their own.
 *
 * Memory: the signatures of one interval, at most CP_POLICY_SIGS (past
 * them a call is kept in detail, never lost), each 1.4 KiB; the closed
 * records waiting to be written, at most CP_POLICY_PENDING (past them the
 * oldest interval's records are counted in `lost`).  Calls inside a group
 * wait for their group's record (CP_POLICY_GROUP_CALLS per group; past it
 * they are kept in detail).
 */
#ifndef COLLPROF_CP_POLICY_H
#define COLLPROF_CP_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_error.h"
#include "collprof/cp_logfmt.h"

#define CP_POLICY_SIGS 1024u
#define CP_POLICY_PENDING 4096u
#define CP_POLICY_GROUP_CALLS 256u
#define CP_POLICY_BUCKETS 344u
/* Calls of a device timer folded and waiting for their device interval
 * (kind 5, written later by the timer), by slot; the slots' fold bits */
#define CP_POLICY_DEVICE_WAIT 4096u
#define CP_POLICY_SLOT_BITS (1u << 20)

struct cp_policy_cfg {
    uint32_t first, window, every, interval_ms;
    uint32_t trigger; /* a slow step opens a window: the time between two
                         instances' ends this many times the usual (0:
                         never) */
};
#define CP_POLICY_TRIGGER_DEFAULT 10u
/* Communicators whose steps a trigger watches (past them: none). */
#define CP_POLICY_COMMS 128u
/* Instances of a communicator seen before its usual step is trusted. */
#define CP_POLICY_TRIGGER_WARM 64u

struct cp_policy_comm {
    uint64_t comm_id;   /* 0: free */
    uint64_t last_end;  /* the previous instance's end */
    double usual;       /* the longest time between ends lately */
    uint32_t seen;
    uint32_t keep_from, keep_to; /* a triggered window: [from, to) */
};

/* Parse COLLPROF_DETAIL / the plugstack's detail=: "all" (no policy:
 * every call, *on = 0), "" or "default" (the defaults), or a
 * list, separated by commas or colons, of first=N, window=N, every=N
 * (instances of a communicator), interval=DURATION (ms, s, m or h; a
 * bare number is seconds), trigger=F (a window opened by a slow step:
 * F times the usual time between a communicator's instances; 0 none).  Keys not named keep their defaults.  0, or -1 with err
 * naming the key. */
int cp_policy_parse(const char *spec, struct cp_policy_cfg *cfg, int *on,
                    struct cp_error *err);

struct cp_policy_sig;  /* cp_policy.c */
struct cp_policy_wait; /* cp_policy.c */

struct cp_policy_group {
    uint32_t group; /* its id, 0 unused */
    uint32_t kept;  /* its calls kept in detail */
    uint32_t n;     /* folded calls waiting for the group's interval */
    uint32_t sig[CP_POLICY_GROUP_CALLS];
};

struct cp_policy {
    struct cp_policy_cfg cfg;
    uint64_t interval_ns;
    uint64_t cur;              /* the open interval's index */
    uint64_t cur_start;        /* and its start: cur x interval_ns */
    struct cp_policy_sig *sig; /* the open interval's signatures */
    uint32_t nsig, alloc;
    uint32_t mru;              /* the signature last found (< nsig) */
    uint32_t *hash;            /* index + 1 per bucket, 0 empty */
    uint32_t hmask;
    struct cp_policy_group grp[4]; /* groups open, by id & 3 */
    struct cp_policy_comm *comms;  /* CP_POLICY_COMMS, by comm_id */
    int device;                 /* the log's timer is a device's (events,
                                   CUPTI): a call's duration is its device
                                   interval's, when one comes */
    struct cp_policy_wait *wait; /* device-timed calls folded, by slot */
    uint64_t *folded_bits;      /* slot & (CP_POLICY_SLOT_BITS - 1):
                                   folded (1) or kept (0), set as each
                                   slot is seen */
    struct cp_rec_agg *pending; /* closed, to be written */
    uint32_t npending, pending_head;
    /* counts, for make bench and the tests */
    uint64_t kept, folded, aggregates, lost, triggers;
};

/* Set up p for cfg (checked by cp_policy_parse); p->device then says
 * whether the log's timer is a device's.  0, or -1 (out of memory: the
 * caller keeps every call). */
int cp_policy_init(struct cp_policy *p, const struct cp_policy_cfg *cfg);
void cp_policy_free(struct cp_policy *p);

/* The finished record of slot `slot`, in slot order: 1 when it is folded
 * (the slot is not written: CP_LOG4_FOLD), 0 when it is kept.  Under a
 * device timer (p->device) a folded call waits for its device interval
 * (kind 5, written later by the timer: folded with it, the aggregate
 * takes the device's duration) for CP_POLICY_DEVICE_WAIT slots, else
 * takes its host times, as the analysis times a call without one; a
 * device interval of a kept call is kept; calls inside groups are kept.
 * A record of the NCCL profiler plugin's kinds (6-11) is folded when the
 * call (for a step, the proxy operation) it is about was. */
int cp_policy_fold(struct cp_policy *p, const union cp_rec *rec,
                   uint64_t slot);

/* Close the open interval when now_ns (CLOCK_REALTIME) is past its end,
 * or always when final. */
void cp_policy_tick(struct cp_policy *p, uint64_t now_ns, int final);

/* The next closed aggregate to write (copied to out): 1, or 0 when none
 * waits. */
int cp_policy_take(struct cp_policy *p, struct cp_rec_agg *out);
/* Give back a record taken and not written, to be taken first again
 * (counted as lost when the queue is full). */
void cp_policy_untake(struct cp_policy *p, const struct cp_rec_agg *a);

#endif
