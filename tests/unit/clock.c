/* clock.c - the shim's call clock (preload/cp_clock.c): TSC readings mapped
 * to CLOCK_REALTIME.
 *
 * The mapping is checked against the kernel's clock itself: every reading
 * is taken between two clock_gettime(CLOCK_REALTIME) and must fall between
 * them, give or take CP_TEST_TOLERANCE_NS.  Preemption only widens such a
 * bracket, so a loaded machine cannot fail the check; a wrong rate, a jump
 * at recalibration or a torn read of the mapping would.  Readings on one
 * thread must never go back (a call's end is never before its start).
 *
 * Default run: 3 s with a calibration each second, as the shim does while
 * calls are made, plus threads reading while another recalibrates.  Longer:
 * CP_CLOCK_TEST_SECONDS=600.  The bound is only asserted while the kernel
 * says NTP is not slewing the clock (adjtimex), since a fast slew moves
 * CLOCK_REALTIME's rate between calibrations by design.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "cp_clock.h"
#include "tap.h"

#define CP_TEST_TOLERANCE_NS 1000

struct run {
    uint64_t readings, outside, backwards;
    int64_t worst; /* largest distance outside the bracket, ns */
};

static void read_bracketed(struct run *r, uint64_t *prev)
{
    uint64_t a = cp_clock_realtime();
    uint64_t m = cp_clock_now();
    uint64_t b = cp_clock_realtime();
    int64_t out = 0;

    if (m + CP_TEST_TOLERANCE_NS < a)
        out = (int64_t)(a - m);
    else if (m > b + CP_TEST_TOLERANCE_NS)
        out = (int64_t)(m - b);
    if (out) {
        r->outside++;
        if (out > r->worst)
            r->worst = out;
    }
    if (m < *prev)
        r->backwards++;
    *prev = m;
    r->readings++;
}

/* NTP is adjusting the clock's rate right now (an offset being slewed). */
static int ntp_slewing(long *freq)
{
    struct timex tx;

    memset(&tx, 0, sizeof tx);
    if (adjtimex(&tx) < 0)
        return 0;
    *freq = tx.freq;
    return tx.offset != 0;
}

static volatile int stop;
static struct run thread_runs[2];

static void *reader(void *arg)
{
    struct run *r = arg;
    uint64_t prev = 0;

    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        read_bracketed(r, &prev);
    return NULL;
}

int main(void)
{
    const char *env = getenv("CP_CLOCK_TEST_SECONDS");
    double seconds = env ? atof(env) : 3.0;
    struct run run;
    uint64_t prev = 0, t_end, next_cal, max_err, ncal, off;
    long freq0 = 0, freq1 = 0;
    int slew0, slew1, i;
    pthread_t th[2];

    /* realtime: nothing but clock_gettime */
    cp_clock_init("realtime");
    is_str(cp_clock_source(), "realtime", "COLLPROF_HOST_CLOCK=realtime");
    memset(&run, 0, sizeof run);
    for (i = 0; i < 1000; i++)
        read_bracketed(&run, &prev);
    ok(run.outside == 0 && run.backwards == 0,
       "clock_gettime readings are in their brackets");

    cp_clock_init(NULL);
    diag("clock on this machine: %s", cp_clock_source());
    if (strcmp(cp_clock_source(), "tsc") != 0) {
        ok(1, "no invariant TSC here: calls use clock_gettime (skipping the "
              "mapping checks)");
        return done_testing();
    }

    /* one thread, calibrating once a second like the shim */
    slew0 = ntp_slewing(&freq0);
    memset(&run, 0, sizeof run);
    prev = 0;
    t_end = cp_clock_realtime() + (uint64_t)(seconds * 1e9);
    next_cal = cp_clock_realtime() + 100000000u; /* the shim's first: 100 ms */
    while (cp_clock_realtime() < t_end) {
        read_bracketed(&run, &prev);
        if (cp_clock_realtime() >= next_cal) {
            cp_clock_calibrate();
            next_cal = cp_clock_realtime() + 1000000000u;
        }
    }
    slew1 = ntp_slewing(&freq1);
    cp_clock_stats(&max_err, &ncal, &off);
    diag("%.0f s: %llu readings, %llu calibrations, largest difference to "
         "CLOCK_REALTIME at a calibration %llu ns, %llu calibrations off",
         seconds, (unsigned long long)run.readings, (unsigned long long)ncal,
         (unsigned long long)max_err, (unsigned long long)off);
    ok(cp_clock_map.use == 1, "the TSC mapping is in use after calibration");
    is_int(run.backwards, 0, "readings on one thread never go back");
    if (slew0 || slew1 || freq0 != freq1) {
        ok(1, "NTP is slewing the clock: bound not asserted (%llu readings "
              "outside +-%d ns, worst %lld ns)",
           (unsigned long long)run.outside, CP_TEST_TOLERANCE_NS,
           (long long)run.worst);
    } else {
        ok(run.outside == 0,
           "every reading within %d ns of CLOCK_REALTIME (%llu outside, "
           "worst %lld ns)",
           CP_TEST_TOLERANCE_NS, (unsigned long long)run.outside,
           (long long)run.worst);
    }

    /* readers on other threads while the mapping is rewritten often */
    memset(thread_runs, 0, sizeof thread_runs);
    stop = 0;
    for (i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, reader, &thread_runs[i]) != 0) {
            ok(0, "pthread_create");
            return done_testing();
        }
    t_end = cp_clock_realtime() + 500000000u;
    while (cp_clock_realtime() < t_end) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        cp_clock_calibrate();
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    ok(thread_runs[0].backwards == 0 && thread_runs[1].backwards == 0,
       "no thread sees its clock go back while another recalibrates");
    if (!slew0 && !slew1 && freq0 == freq1)
        ok(thread_runs[0].outside == 0 && thread_runs[1].outside == 0,
           "threads' readings within %d ns of CLOCK_REALTIME (%llu readings)",
           CP_TEST_TOLERANCE_NS,
           (unsigned long long)(thread_runs[0].readings +
                                thread_runs[1].readings));
    return done_testing();
}
