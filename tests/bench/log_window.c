/* log_window.c - a window [from, to) of a job's logs read two ways: every
 * record decoded and the calls outside left out (what collprof analyze
 * --from/--to does today), and from the sync point before `from`
 * (cp_scan_seek_time) up to a call that starts past `to` plus a slack.
 * Prints, for each way, the calls in the window, a sum of their times
 * (the two must agree), the CPU time and the bytes read (/proc/self/io).
 *
 *   log_window FROM TO LOG...   FROM, TO: fractions of the span of the
 *                               calls' starts over all the logs (0 .. 1)
 *
 * With LOG_WINDOW_PLACE=BYTES in the environment each log is read by a
 * scan placed as the analysis places one (cp_scan_place_in) with a
 * buffer of BYTES, whose source then reads blocks through memory lent
 * from it (a window of several blocks from 32 KiB of it).
 *
 * Exit 0 when the two ways agree, 1 when they differ, 2 on an error (a
 * damaged sync point; damage met reading is said, the records before it
 * stand).
 * run-window.sh (make bench) and tests/unit/log4sync.sh run it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cp_scan.h"

/* A call whose slot comes after a call that starts this much later than
 * it is taken not to exist: the window's read stops at the first call
 * that starts past `to` by this much. */
#define SLACK_NS 1000000000ull

/* LOG_WINDOW_PLACE: the placed scan's buffer, 0 for cp_scan_open */
static size_t place_bytes;
static void *place;

static struct cp_scan *open_scan(const char *path, struct cp_error *err)
{
    struct cp_logfile_known k;

    if (!place_bytes)
        return cp_scan_open(path, err);
    if (cp_logfile_check(path, 0, &k, err) < 0)
        return NULL;
    return cp_scan_place_in(place, path, &k, place_bytes, 0, 0, err);
}

struct tally {
    uint64_t calls, sum, records;
    uint64_t rchar;
    double cpu_s;
    uint64_t skipped_slots;
};

static uint64_t rchar(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    uint64_t v = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %" SCNu64, &v) == 1)
            break;
    fclose(f);
    return v;
}

static double cpu_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

/* One log: the calls that start in [from, to); seek: from its sync point
 * before from, up to a call past to + SLACK_NS.  -1 on an error (said). */
static int read_log(const char *path, uint64_t from, uint64_t to, int seek,
                    struct tally *t, uint64_t *lo, uint64_t *hi)
{
    struct cp_error err;
    struct cp_scan *sc = open_scan(path, &err);
    const union cp_rec *r;

    if (!sc) {
        fprintf(stderr, "log_window: %s\n", err.text);
        return -1;
    }
    if (seek) {
        int64_t first = cp_scan_seek_time(sc, from, &err);
        if (first < 0) {
            fprintf(stderr, "log_window: %s\n", err.text);
            cp_scan_close(sc);
            return -1;
        }
        t->skipped_slots += (uint64_t)first;
    }
    while ((r = cp_scan_next(sc)) != NULL) {
        t->records++;
        if (r->kind != CP_REC_CALL)
            continue;
        if (r->call.start_ns < *lo)
            *lo = r->call.start_ns;
        if (r->call.start_ns > *hi)
            *hi = r->call.start_ns;
        if (seek && r->call.start_ns >= to + SLACK_NS)
            break;
        if (r->call.start_ns < from || r->call.start_ns >= to)
            continue;
        t->calls++;
        t->sum += r->call.start_ns + r->call.end_ns;
    }
    if (cp_scan_problem(sc)) /* the records before it stand */
        fprintf(stderr, "log_window: %s\n", cp_scan_problem(sc)->text);
    cp_scan_close(sc);
    return 0;
}

static int read_all(char **logs, int n, uint64_t from, uint64_t to, int seek,
                    struct tally *t, uint64_t *lo, uint64_t *hi)
{
    uint64_t r0 = rchar();
    double c0 = cpu_s();
    int i;

    memset(t, 0, sizeof *t);
    for (i = 0; i < n; i++)
        if (read_log(logs[i], from, to, seek, t, lo, hi) < 0)
            return -1;
    t->rchar = rchar() - r0;
    t->cpu_s = cpu_s() - c0;
    return 0;
}

int main(int argc, char **argv)
{
    struct tally whole, win, span;
    uint64_t lo = UINT64_MAX, hi = 0, from, to, l2 = UINT64_MAX, h2 = 0;
    double f0, f1;

    if (argc < 4) {
        fprintf(stderr, "usage: log_window FROM TO LOG...\n");
        return 2;
    }
    if (getenv("LOG_WINDOW_PLACE")) {
        place_bytes = strtoul(getenv("LOG_WINDOW_PLACE"), NULL, 10);
        place = aligned_alloc(64, (cp_scan_place_size(place_bytes, 0) + 63) /
                                      64 * 64);
        if (!place)
            return 2;
    }
    f0 = atof(argv[1]);
    f1 = atof(argv[2]);
    /* the span of the job: one pass (not timed against the others) */
    if (read_all(argv + 3, argc - 3, 0, 0, 0, &span, &lo, &hi) < 0 ||
        lo > hi)
        return 2;
    from = lo + (uint64_t)((double)(hi - lo) * f0);
    to = lo + (uint64_t)((double)(hi - lo) * f1);
    if (read_all(argv + 3, argc - 3, from, to, 0, &whole, &l2, &h2) < 0 ||
        read_all(argv + 3, argc - 3, from, to, 1, &win, &l2, &h2) < 0)
        return 2;
    printf("whole: %" PRIu64 " calls in the window of %" PRIu64
           " records read, %.3f s CPU, %" PRIu64 " bytes read\n",
           whole.calls, whole.records, whole.cpu_s, whole.rchar);
    printf("window: %" PRIu64 " calls in the window of %" PRIu64
           " records read (%" PRIu64 " slots skipped), %.3f s CPU, %" PRIu64
           " bytes read\n",
           win.calls, win.records, win.skipped_slots, win.cpu_s, win.rchar);
    if (whole.calls != win.calls || whole.sum != win.sum) {
        printf("differ: whole %" PRIu64 " calls (sum %" PRIu64 "), window %"
               PRIu64 " (sum %" PRIu64 ")\n",
               whole.calls, whole.sum, win.calls, win.sum);
        return 1;
    }
    return 0;
}
