/* cp_clock.c - TSC to CLOCK_REALTIME mapping of the shim (see cp_clock.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cp_clock.h"

#define PAIR_TRIES 5
/* shortest interval for a first rate */
#define FIRST_RATE_NS INT64_C(50000000)
#define SLEW_NS INT64_C(1000000000)     /* take a difference back over 1 s */
#define STEP_NS INT64_C(1000000)        /* beyond 1 ms: a clock step */
#define CLOCKSOURCE                                                            \
    "/sys/devices/system/clocksource/clocksource0/current_clocksource"

struct cp_clock_map cp_clock_map;

/* Writer-side state, under `busy`. */
static int busy;           /* atomic: a calibration is running */
static int enabled;        /* the TSC may be used on this machine */
static int have_rate;      /* map.mult is a measured rate */
static uint64_t last_tsc;  /* the previous pair */
static uint64_t last_ns;
static uint64_t rate;      /* measured ns per tick, 32.32 */
static uint64_t max_error, calibrations, off_count;

#if CP_CLOCK_HAVE_TSC
static int file_has_word(const char *path, const char *const *words, int all)
{
    char line[4096];
    FILE *f = fopen(path, "re");
    int found = 0;

    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        int i, hits = 0, n = 0;
        if (all && strncmp(line, "flags", 5) != 0)
            continue;
        for (i = 0; words[i]; i++, n++) {
            const char *w = words[i], *p = line;
            size_t len = strlen(w);
            while ((p = strstr(p, w)) != NULL) {
                int start = p == line || p[-1] == ' ' || p[-1] == '\t' ||
                            p[-1] == ':';
                int end = p[len] == ' ' || p[len] == '\n' || p[len] == '\0';
                if (start && end) {
                    hits++;
                    break;
                }
                p += len;
            }
        }
        found = all ? hits == n : hits > 0;
    }
    fclose(f);
    return found;
}

/* An invariant TSC that the kernel keeps time with. */
static int tsc_usable(void)
{
    static const char *const flags[] = {"constant_tsc", "nonstop_tsc", NULL};
    static const char *const sources[] = {"tsc", "kvm-clock", NULL};

    return file_has_word("/proc/cpuinfo", flags, 1) &&
           file_has_word(CLOCKSOURCE, sources, 0);
}

/* A (TSC, CLOCK_REALTIME) pair: the realtime read between two TSC reads,
 * the tightest of a few tries. */
static void take_pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    int i;

    for (i = 0; i < PAIR_TRIES; i++) {
        unsigned aux;
        uint64_t a = __rdtscp(&aux);
        uint64_t t = cp_clock_realtime();
        uint64_t b = __rdtscp(&aux);
        if (b >= a && b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = t;
        }
    }
    if (best == UINT64_MAX) { /* cannot happen on one CPU; be safe */
        *tsc = __rdtsc();
        *ns = cp_clock_realtime();
    }
}

/* The mapping's value at tsc (writer side). */
static uint64_t map_at(uint64_t tsc)
{
    const struct cp_clock_map *m = &cp_clock_map;
    return m->ns0 +
           (uint64_t)(((unsigned __int128)(tsc - m->tsc0) * m->mult) >> 32);
}

static void publish(uint32_t use, uint64_t tsc0, uint64_t ns0, uint64_t mult)
{
    struct cp_clock_map *m = &cp_clock_map;
    uint32_t seq = __atomic_load_n(&m->seq, __ATOMIC_RELAXED);
    uint64_t span = (uint64_t)(((unsigned __int128)CP_CLOCK_VALID_NS << 32) /
                               (mult ? mult : 1));

    __atomic_store_n(&m->seq, seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&m->use, use, __ATOMIC_RELAXED);
    __atomic_store_n(&m->tsc0, tsc0, __ATOMIC_RELAXED);
    __atomic_store_n(&m->ns0, ns0, __ATOMIC_RELAXED);
    __atomic_store_n(&m->mult, mult, __ATOMIC_RELAXED);
    __atomic_store_n(&m->span, span, __ATOMIC_RELAXED);
    __atomic_store_n(&m->seq, seq + 2, __ATOMIC_RELEASE);
}
#endif

void cp_clock_reset(void)
{
    memset(&cp_clock_map, 0, sizeof cp_clock_map);
    enabled = have_rate = 0;
    last_tsc = last_ns = rate = 0;
    max_error = calibrations = off_count = 0;
}

void cp_clock_init(const char *how)
{
    cp_clock_reset();
#if CP_CLOCK_HAVE_TSC
    if (how && strcmp(how, "realtime") == 0)
        return;
    if (!(how && strcmp(how, "tsc") == 0) && !tsc_usable())
        return;
    enabled = 1;
    take_pair(&last_tsc, &last_ns);
#else
    (void)how;
#endif
}

void cp_clock_calibrate(void)
{
#if CP_CLOCK_HAVE_TSC
    uint64_t tsc, ns, span_ns, span_tsc, mult;
    int64_t err;
    uint32_t use;

    if (!enabled || __atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
        return;
    take_pair(&tsc, &ns);
    span_ns = ns - last_ns;
    span_tsc = tsc - last_tsc;
    /* a clock that went back, or not enough time for a rate: wait */
    if (ns <= last_ns || tsc <= last_tsc ||
        (!have_rate && (int64_t)span_ns < FIRST_RATE_NS))
        goto out;
    rate = (uint64_t)(((unsigned __int128)span_ns << 32) / span_tsc);
    if (!have_rate) {
        /* the first piece: start exactly at this pair */
        have_rate = 1;
        publish(1, tsc, ns, rate);
        goto next;
    }
    err = (int64_t)(ns - map_at(tsc));
    calibrations++;
    if ((uint64_t)(err < 0 ? -err : err) > max_error)
        max_error = (uint64_t)(err < 0 ? -err : err);
    if (err > STEP_NS || err < -STEP_NS) {
        /* CLOCK_REALTIME was stepped: so are the records */
        off_count++;
        publish(0, tsc, ns, rate);
        goto next;
    }
    use = err <= CP_CLOCK_MAX_ERROR_NS && err >= -CP_CLOCK_MAX_ERROR_NS;
    if (!use)
        off_count++;
    if (use && !cp_clock_map.use) {
        /* back from clock_gettime: start at this pair, as those times did */
        publish(1, tsc, ns, rate);
        goto next;
    }
    /* continue from where the mapping is now (no jump), at the measured
     * rate plus the difference spread over the next second */
    mult = (uint64_t)(((unsigned __int128)rate * (uint64_t)(SLEW_NS + err)) /
                      (uint64_t)SLEW_NS);
    publish(use, tsc, map_at(tsc), mult);
next:
    last_tsc = tsc;
    last_ns = ns;
out:
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
#endif
}

const char *cp_clock_source(void)
{
    return enabled ? "tsc" : "realtime";
}

void cp_clock_stats(uint64_t *max_error_ns, uint64_t *ncal, uint64_t *off)
{
    *max_error_ns = max_error;
    *ncal = calibrations;
    *off = off_count;
}
