/* cp_clockns.h - a POSIX clock read as nanoseconds since its epoch, for the
 * shim and the NCCL profiler plugin (header-only: each is its own shared
 * object).  clock_gettime is async-signal-safe, so this is too. */
#ifndef COLLPROF_CP_CLOCKNS_H
#define COLLPROF_CP_CLOCKNS_H

#include <stdint.h>
#include <time.h>

static inline uint64_t cp_clock_ns(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
