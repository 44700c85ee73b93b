/* log_floor.c - the shim's log alone: what a record costs when nothing else
 * is done per call.
 *
 * The shim's added cost per call is its own work on the calling thread (the
 * wrapper, two clock reads, the record's fields) plus, when calls come back
 * to back, any wait for the log thread, which makes each next MiB of the
 * log file writable (preload/cp_logwrite.h).  This program takes slots of
 * a real log (cp_log_open, cp_log_slot, cp_log_commit: the shim's own
 * code) and stores a 64-byte record in each, with no NCCL call, no clock
 * read and no wrapper, in the same shape as null_loop.c (a slow start of
 * 150 ms, a tenth of the calls back to back, then the timed calls).  Its
 * wall time per record is the least a back-to-back loop of calls through
 * the shim can cost on this machine: when it is above a target, no change
 * to the wrapper can meet the target there.
 *
 * usage: log_floor DIR [RECORDS]
 * Prints one line: wall ns/record, calling thread CPU ns/record, log
 * thread CPU ns/record.  Exit 1 on an error (named on stderr), 2 on bad
 * usage.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cp_logwrite.h"

static double clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One record: the fields a call's record has, then its kind. */
static int put(struct cp_log *log, uint64_t i)
{
    union cp_rec *rec = cp_log_slot(log, NULL);

    if (!rec)
        return -1;
    rec->call.op = 1;
    rec->call.dtype = 7;
    rec->call.redop = 0;
    rec->call.result = 0;
    rec->call.timer = CP_TIMER_HOST;
    rec->call.flags = 0;
    rec->call.comm_id = 42;
    rec->call.count = 4;
    rec->call.seq = (uint32_t)i;
    rec->call.peer = -1;
    rec->call.rank = 3;
    rec->call.nranks = 8;
    rec->call.group = 0;
    rec->call.stream = 0;
    rec->call.start_ns = i;
    rec->call.end_ns = 0;
    cp_log_commit(rec, CP_REC_CALL);
    rec->call.result = 0;
    __atomic_store_n(&rec->call.end_ns, i + 1, __ATOMIC_RELEASE);
    return 0;
}

int main(int argc, char **argv)
{
    struct cp_log *log;
    struct cp_log_ident id;
    struct cp_error err;
    long n = argc > 2 ? atol(argv[2]) : 1000000, i;
    double t0, c0, p0, t1, c1, p1;

    if (argc < 2 || argc > 3 || n <= 0) {
        fprintf(stderr, "usage: log_floor DIR [RECORDS]\n");
        return 2;
    }
    log = calloc(1, sizeof *log);
    if (!log) {
        fprintf(stderr, "log_floor: out of memory\n");
        return 1;
    }
    memset(&id, 0, sizeof id);
    id.global_rank = 3;
    id.world_size = 8;
    id.node = "floor";
    id.hostname = "floor";
    id.timer = CP_TIMER_HOST;
    id.timer_reason = "log_floor";
    id.program = "log_floor";
    /* the shim's format: 4, unless COLLPROF_LOG_FORMAT=3 asks for 3 */
    {
        const char *f = getenv("COLLPROF_LOG_FORMAT");
        id.format = f && strcmp(f, "3") == 0 ? 3 : 4;
    }
    memset(&err, 0, sizeof err);
    if (cp_log_open(log, argv[1], &id, &err) < 0) {
        fprintf(stderr, "log_floor: %s\n", err.text);
        free(log);
        return 1;
    }
    t0 = clock_ns(CLOCK_MONOTONIC);
    for (i = 0; clock_ns(CLOCK_MONOTONIC) - t0 < 150e6; i++) {
        struct timespec ms = {0, 1000000};
        if (put(log, (uint64_t)i) < 0)
            goto full;
        nanosleep(&ms, NULL);
    }
    for (i = 0; i < n / 10; i++)
        if (put(log, (uint64_t)i) < 0)
            goto full;
    t0 = clock_ns(CLOCK_MONOTONIC);
    c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (i = 0; i < n; i++)
        if (put(log, (uint64_t)i) < 0)
            goto full;
    t1 = clock_ns(CLOCK_MONOTONIC);
    c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    printf("%.1f %.1f %.1f\n", (t1 - t0) / (double)n, (c1 - c0) / (double)n,
           ((p1 - p0) - (c1 - c0)) / (double)n);
    cp_log_close(log, 0, 0);
    free(log);
    return 0;
full:
    fprintf(stderr, "log_floor: %s: the log cannot grow (disk full?)\n",
            log->path);
    cp_log_close(log, 0, 0);
    free(log);
    return 1;
}
