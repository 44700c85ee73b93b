/* cp_clock.h - the shim's clock for call records: CLOCK_REALTIME nanoseconds.
 *
 * Every call costs two timestamps.  clock_gettime(CLOCK_REALTIME) through
 * the vDSO is 25-30 ns in a VM; reading the CPU's time-stamp counter is a
 * third of that.  Where the TSC is invariant (cpuinfo flags constant_tsc and
 * nonstop_tsc) and the kernel itself keeps time with it (clocksource tsc or
 * kvm-clock), the shim maps TSC readings to CLOCK_REALTIME:
 *
 *     ns = ns0 + (tsc - tsc0) * mult / 2^32
 *
 * The mapping is set up from (TSC, CLOCK_REALTIME) pairs, each read between
 * two TSC reads (the tightest of several), at every calibration: once the
 * log opens, then with every clock record the shim writes (once a second
 * while calls are made).  A calibration measures the rate over the last
 * interval, and starts the next piece of the mapping where the previous
 * one ends (no jump, so a call's end is never before its start) with a rate
 * that also takes the remaining difference to CLOCK_REALTIME back over the
 * next second.  A piece is used for CP_CLOCK_VALID_NS at most.  Until the
 * second pair (the shim takes it 100 ms after the first; a rate needs 50 ms)
 * and whenever a calibration finds the mapping more than
 * CP_CLOCK_MAX_ERROR_NS off CLOCK_REALTIME (NTP stepping or slewing hard, a
 * suspended VM), calls are timed with clock_gettime as before.  Anywhere
 * else (no invariant TSC, not x86-64, COLLPROF_HOST_CLOCK=realtime)
 * cp_clock_now() is clock_gettime(CLOCK_REALTIME).  docs/timers.md has the
 * precision.
 *
 * Records keep their contract (docs/log-format.md): CLOCK_REALTIME ns.
 */
#ifndef COLLPROF_CP_CLOCK_H
#define COLLPROF_CP_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "collprof/cp_clockns.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#define CP_CLOCK_HAVE_TSC 1
#else
#define CP_CLOCK_HAVE_TSC 0
#endif

/* Larger than this and the mapping is not used until it agrees again. */
#define CP_CLOCK_MAX_ERROR_NS 2000
/* A piece of the mapping is used this long after its calibration at most
 * (the shim recalibrates once a second while calls are made). */
#define CP_CLOCK_VALID_NS UINT64_C(2000000000)

/* The mapping, read by every thread, written under a sequence count. */
struct cp_clock_map {
    uint32_t seq;  /* odd while being written */
    uint32_t use;  /* 1: the mapping is good; 0: use clock_gettime */
    uint64_t tsc0; /* TSC at the start of this piece */
    uint64_t ns0;  /* its CLOCK_REALTIME ns */
    uint64_t mult; /* ns per tick, 32.32 fixed point */
    uint64_t span; /* ticks after tsc0 the piece may be used for */
};

extern struct cp_clock_map cp_clock_map;

static inline uint64_t cp_clock_realtime(void)
{
    return cp_clock_ns(CLOCK_REALTIME);
}

/* CLOCK_REALTIME now, in ns (see above). */
static inline uint64_t cp_clock_now(void)
{
#if CP_CLOCK_HAVE_TSC
    struct cp_clock_map *m = &cp_clock_map;

    for (;;) {
        uint32_t seq = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);
        uint32_t use = __atomic_load_n(&m->use, __ATOMIC_RELAXED);
        uint64_t tsc0 = __atomic_load_n(&m->tsc0, __ATOMIC_RELAXED);
        uint64_t ns0 = __atomic_load_n(&m->ns0, __ATOMIC_RELAXED);
        uint64_t mult = __atomic_load_n(&m->mult, __ATOMIC_RELAXED);
        uint64_t span = __atomic_load_n(&m->span, __ATOMIC_RELAXED);
        uint64_t tsc;

        if (__builtin_expect(!use, 0))
            break;
        tsc = __rdtsc() - tsc0;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__builtin_expect(
                (seq & 1) == 0 &&
                    seq == __atomic_load_n(&m->seq, __ATOMIC_RELAXED),
                1)) {
            /* a piece not recalibrated for CP_CLOCK_VALID_NS (no calls for
             * a while): the time must not come from the extrapolation */
            if (__builtin_expect(tsc > span, 0))
                break;
            return ns0 + (uint64_t)(((unsigned __int128)tsc * mult) >> 32);
        }
    }
#endif
    return cp_clock_realtime();
}

/* Decide whether the TSC can be used and take the first pair.  how: NULL or
 * "" (auto), "tsc" or "realtime" (COLLPROF_HOST_CLOCK).  Call once, before
 * any thread reads the clock through cp_clock_now. */
void cp_clock_init(const char *how);

/* Take a pair and update the mapping (any thread; one at a time, the others
 * return at once).  Costs a few clock reads: call it about once a second. */
void cp_clock_calibrate(void);

/* What the clock is, for a header or a test: "tsc" or "realtime". */
const char *cp_clock_source(void);

/* Tests: largest |mapping - CLOCK_REALTIME| seen at a calibration, ns, and
 * how many calibrations found the mapping off (over the limit). */
void cp_clock_stats(uint64_t *max_error_ns, uint64_t *calibrations,
                    uint64_t *off);

/* Tests: pretend the TSC is (not) usable regardless of the machine; the
 * next cp_clock_init starts afresh. */
void cp_clock_reset(void);

#endif
