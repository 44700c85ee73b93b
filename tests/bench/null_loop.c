/* null_loop.c - an NCCL program as a user writes it: a million
 * ncclAllReduce calls, linked against libnccl.so.2 the ordinary way.
 *
 * An independent check of shim_bench: no dlsym, no alternating batches;
 * tests/bench/run.sh runs it against the null NCCL several times with and
 * without LD_PRELOAD=libcollprof.so and prints the medians.  Prints one
 * line: wall ns/call, calling thread's CPU ns/call, other threads' CPU
 * ns/call (the shim's log thread).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collprof/cp_nccl.h"

static double clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000, i;
    float buf[4] = {0};
    ncclComm_t comm;
    ncclUniqueId id;
    double t0, c0, p0, t1, c1, p1;

    if (n <= 0) {
        fprintf(stderr, "usage: null_loop [CALLS]\n");
        return 2;
    }
    memset(&id, 1, sizeof id);
    if (ncclCommInitRank(&comm, 8, id, 3) != ncclSuccess) {
        fprintf(stderr, "null_loop: ncclCommInitRank failed\n");
        return 1;
    }
    /* Warm-up: a process's first calls are not its steady state.  The
     * shim times calls with clock_gettime (2 x 31 ns here) until its TSC
     * clock has a rate, taken at the first call 100 ms after the log opened
     * (docs/timers.md), and a million calls take less than that: first
     * calls 1 ms apart for 150 ms (few records), then a tenth of the
     * calls back to back (caches, branch predictors, the log's pages). */
    t0 = clock_ns(CLOCK_MONOTONIC);
    while (clock_ns(CLOCK_MONOTONIC) - t0 < 150e6) {
        struct timespec ms = {0, 1000000};
        ncclAllReduce(buf, buf, 4, ncclFloat32, ncclSum, comm, NULL);
        nanosleep(&ms, NULL);
    }
    for (i = 0; i < n / 10; i++)
        ncclAllReduce(buf, buf, 4, ncclFloat32, ncclSum, comm, NULL);
    t0 = clock_ns(CLOCK_MONOTONIC);
    c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (i = 0; i < n; i++)
        if (ncclAllReduce(buf, buf, 4, ncclFloat32, ncclSum, comm, NULL) !=
            ncclSuccess) {
            fprintf(stderr, "null_loop: ncclAllReduce failed\n");
            return 1;
        }
    t1 = clock_ns(CLOCK_MONOTONIC);
    c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    printf("%.1f %.1f %.1f\n", (t1 - t0) / (double)n, (c1 - c0) / (double)n,
           ((p1 - p0) - (c1 - c0)) / (double)n);
    ncclCommDestroy(comm);
    return 0;
}
