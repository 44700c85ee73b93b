/* sim_clock.c - libsimclock.so: a node's clock offset for the CPU NCCL.
 *
 * simrun preloads this library into the ranks of a node that the topology
 * gives a `clock NODE offset=T` directive, with SIMNCCL_CLOCK_OFFSET_NS set
 * to T in nanoseconds.  It replaces clock_gettime so that
 * CLOCK_REALTIME (and its coarse variant) reads T ahead of the machine's,
 * as on a node whose clock is off: whatever reads the wall clock there
 * (the collprof shim, its TSC calibration, the application) sees the same
 * shifted time.  CLOCK_MONOTONIC is left alone: simnccl paces its links
 * with it, and real nodes do not share it anyway.
 *
 * Not part of collprof: a test fixture, built beside libnccl.so.2. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime;
static int64_t offset_ns;
static int ready;

__attribute__((constructor)) static void sim_clock_init(void)
{
    const char *v = getenv("SIMNCCL_CLOCK_OFFSET_NS");
    char *end = NULL;
    long long off;

    real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    if (v && *v) {
        off = strtoll(v, &end, 10);
        if (end && *end == '\0')
            offset_ns = (int64_t)off;
    }
    ready = 1;
}

static void shift(struct timespec *ts)
{
    int64_t ns = (int64_t)ts->tv_nsec + offset_ns % 1000000000;
    time_t sec = ts->tv_sec + (time_t)(offset_ns / 1000000000);

    while (ns < 0) {
        ns += 1000000000;
        sec--;
    }
    while (ns >= 1000000000) {
        ns -= 1000000000;
        sec++;
    }
    ts->tv_sec = sec;
    ts->tv_nsec = (long)ns;
}

__attribute__((visibility("default"))) int clock_gettime(clockid_t id,
                                                         struct timespec *ts)
{
    int rc;

    if (!real_clock_gettime)
        real_clock_gettime =
            (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    if (!real_clock_gettime)
        return -1;
    rc = real_clock_gettime(id, ts);
    if (rc == 0 && ready &&
        (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        shift(ts);
    return rc;
}
