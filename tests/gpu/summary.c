/* summary.c - what the GPU timers wrote, for tests/gpu/run.sh.
 *
 *   summary [--expect host|cupti|event] [--program nccl_gpu|torch] DIR
 *
 * Reads the rank logs in DIR and prints: the timer and its reason; calls
 * seen, with a complete GPU interval, fused, captured, incomplete; the
 * calibration pairs; and per collective and size the median host duration
 * (enqueue) against the median GPU duration.  Then checks what must hold on
 * a real GPU and prints one "check:" line each; exit status 1 if any fails.
 */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "collprof/cp_nccl.h"
#include "cp_logread.h"

struct call {
    struct cp_rec_call c;
    uint64_t slot;
    int file;
    int ngpu;
    struct cp_rec_gpu g;
};

static struct call *calls;
static size_t ncalls, capcalls;
static struct cp_rec_gpu *gpus;
static uint64_t *gpu_slot;
static int *gpu_file;
static size_t ngpus, capgpus;
static int64_t offsets[4096];
static int noffsets;
static int failed;

static void check(int cond, const char *fmt, const char *detail)
{
    printf("check: %s: %s%s%s\n", cond ? "pass" : "FAIL", fmt,
           detail ? " " : "", detail ? detail : "");
    if (!cond)
        failed = 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_gpu(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->file != y->file)
        return x->file - y->file;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 1024;
    p = realloc(p, *cap * size);
    if (!p) {
        perror("summary");
        exit(2);
    }
    return p;
}

/* Attach each GPU record to its call (same file, same slot). */
static void join(void)
{
    size_t i;
    for (i = 0; i < ngpus; i++) {
        size_t lo = 0, hi = ncalls;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (calls[mid].file < gpu_file[i] ||
                (calls[mid].file == gpu_file[i] &&
                 calls[mid].slot < gpu_slot[i]))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ncalls && calls[lo].file == gpu_file[i] &&
            calls[lo].slot == gpu_slot[i]) {
            calls[lo].ngpu++;
            calls[lo].g = gpus[i];
        }
    }
}

static int complete(const struct call *c)
{
    return c->ngpu && !(c->g.flags & CP_CALL_INCOMPLETE) &&
           c->g.end_ns > c->g.start_ns;
}

static uint64_t bytes_of(const struct cp_rec_call *c)
{
    return c->count * cp_dtype_size(c->dtype);
}

/* Per (op, bytes): median host and GPU durations. */
static void table(void)
{
    size_t i, j;
    uint64_t *h = malloc(ncalls * sizeof *h), *g = malloc(ncalls * sizeof *g);
    char *done = calloc(ncalls, 1);

    if (!h || !g || !done)
        exit(2);
    printf("%-14s %12s %5s %14s %14s\n", "op", "bytes", "n", "host med us",
           "gpu med us");
    for (i = 0; i < ncalls; i++) {
        size_t nh = 0, ng = 0;
        if (done[i] || calls[i].c.result != 0 ||
            (calls[i].c.flags & CP_CALL_CAPTURED))
            continue;
        for (j = i; j < ncalls; j++) {
            if (done[j] || calls[j].c.op != calls[i].c.op ||
                bytes_of(&calls[j].c) != bytes_of(&calls[i].c) ||
                calls[j].c.result != 0 ||
                (calls[j].c.flags & CP_CALL_CAPTURED))
                continue;
            done[j] = 1;
            h[nh++] = calls[j].c.end_ns - calls[j].c.start_ns;
            if (complete(&calls[j]))
                g[ng++] = calls[j].g.end_ns - calls[j].g.start_ns;
        }
        qsort(h, nh, sizeof *h, cmp_u64);
        qsort(g, ng, sizeof *g, cmp_u64);
        printf("%-14s %12" PRIu64 " %5zu %14.2f ", cp_op_name(calls[i].c.op),
               bytes_of(&calls[i].c), nh, (double)h[nh / 2] / 1e3);
        if (ng)
            printf("%14.2f\n", (double)g[ng / 2] / 1e3);
        else
            printf("%14s\n", "-");
    }
    free(h);
    free(g);
    free(done);
}

int main(int argc, char **argv)
{
    const char *expect = NULL, *program = "nccl_gpu", *dir = NULL;
    char **paths, line[256];
    struct cp_error err;
    struct cp_log_header hdr;
    size_t i;
    int n, f, k;
    unsigned long seen = 0, timed = 0, fused = 0, captured = 0, incomplete = 0,
                  nonblocking = 0, nonblocking_timed = 0, eligible = 0,
                  implausible = 0, grouped = 0, grouped_fused = 0,
                  captured_timed = 0, eligible_timed = 0;
    uint64_t big_n = 0, big_gpu[64];

    for (k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--expect") == 0 && k + 1 < argc)
            expect = argv[++k];
        else if (strcmp(argv[k], "--program") == 0 && k + 1 < argc)
            program = argv[++k];
        else
            dir = argv[k];
    }
    if (!dir) {
        fprintf(stderr, "usage: summary [--expect T] [--program P] DIR\n");
        return 2;
    }
    n = cp_logdir_list(dir, &paths, &err);
    if (n <= 0) {
        printf("check: FAIL: no log in %s: %s\n", dir, n < 0 ? err.text : "");
        return 1;
    }
    memset(&hdr, 0, sizeof hdr);
    for (f = 0; f < n; f++) {
        struct cp_logfile *lf = cp_logfile_open(paths[f], &err);
        union cp_rec r;
        uint64_t slot;
        if (!lf) {
            printf("check: FAIL: %s\n", err.text);
            failed = 1;
            continue;
        }
        if (f == 0)
            hdr = *cp_logfile_header(lf);
        while (cp_logfile_next(lf, &r, &slot) == 1) {
            if (r.kind == CP_REC_CALL) {
                calls = grow(calls, &capcalls, ncalls, sizeof *calls);
                memset(&calls[ncalls], 0, sizeof calls[0]);
                calls[ncalls].c = r.call;
                calls[ncalls].slot = slot;
                calls[ncalls].file = f;
                ncalls++;
            } else if (r.kind == CP_REC_GPU) {
                size_t cap0 = capgpus;
                gpus = grow(gpus, &capgpus, ngpus, sizeof *gpus);
                if (capgpus != cap0) {
                    gpu_slot = realloc(gpu_slot, capgpus * sizeof *gpu_slot);
                    gpu_file = realloc(gpu_file, capgpus * sizeof *gpu_file);
                    if (!gpu_slot || !gpu_file)
                        return 2;
                }
                gpus[ngpus] = r.gpu;
                gpu_slot[ngpus] = r.gpu.slot;
                gpu_file[ngpus] = f;
                ngpus++;
            } else if (r.kind == CP_REC_CLOCK && r.clock.gpu_ns &&
                       noffsets < 4096) {
                offsets[noffsets++] =
                    (int64_t)(r.clock.gpu_ns - r.clock.realtime_ns);
            }
        }
        if (cp_logfile_problem(lf)) {
            printf("check: FAIL: %s\n", cp_logfile_problem(lf)->text);
            failed = 1;
        }
        cp_logfile_close(lf);
    }
    cp_logdir_free(paths);
    qsort(calls, ncalls, sizeof *calls, cmp_gpu);
    join();

    for (i = 0; i < ncalls; i++) {
        const struct call *c = &calls[i];
        int ok = c->c.result == 0 || c->c.result == ncclInProgress;
        seen++;
        if (complete(c))
            timed++;
        if (c->ngpu && (c->g.flags & CP_CALL_FUSED))
            fused++;
        if (c->c.flags & CP_CALL_CAPTURED) {
            captured++;
            captured_timed += c->ngpu > 0;
            continue;
        }
        if ((c->c.flags & CP_CALL_INCOMPLETE) ||
            (c->ngpu && (c->g.flags & CP_CALL_INCOMPLETE)))
            incomplete++;
        if (!ok)
            continue;
        if (c->c.result == ncclInProgress) {
            nonblocking++;
            nonblocking_timed += complete(c);
            continue;
        }
        eligible++;
        eligible_timed += complete(c);
        if (c->c.flags & CP_CALL_IN_GROUP) {
            grouped++;
            grouped_fused += complete(c) && (c->g.flags & CP_CALL_FUSED);
        }
        /* device work starts after the call began (200 us for clock
         * mapping) and ends within seconds */
        if (complete(c) && (c->g.start_ns + 200000 < c->c.start_ns ||
                            c->g.end_ns - c->g.start_ns > 10000000000ull))
            implausible++;
        if (complete(c) && c->c.op == CP_OP_AllReduce &&
            bytes_of(&c->c) == 268435456 && big_n < 64)
            big_gpu[big_n++] = c->g.end_ns - c->g.start_ns;
    }

    printf("timer %s (%s), %s\n", cp_timer_name(hdr.timer), hdr.timer_reason,
           program);
    printf("calls seen %lu, with a GPU interval %lu, fused %lu, captured %lu, "
           "incomplete %lu, non-blocking %lu (timed %lu)\n",
           seen, timed, fused, captured, incomplete, nonblocking,
           nonblocking_timed);
    if (noffsets) {
        qsort(offsets, (size_t)noffsets, sizeof offsets[0], cmp_i64);
        printf("calibration pairs %d, GPU clock - CLOCK_REALTIME median %" PRId64
               " ns\n",
               noffsets, offsets[noffsets / 2]);
    }
    table();
    if (big_n) {
        qsort(big_gpu, big_n, sizeof big_gpu[0], cmp_u64);
        printf("allreduce-256MB-gpu-ns %" PRIu64 "\n", big_gpu[big_n / 2]);
    }

    if (expect) {
        snprintf(line, sizeof line, "(header says %s: %s)",
                 cp_timer_name(hdr.timer), hdr.timer_reason);
        check(strcmp(cp_timer_name(hdr.timer), expect) == 0,
              "the timer asked for is the one used", line);
    }
    check(seen > 0, "calls recorded", NULL);
    if (hdr.timer == CP_TIMER_HOST) {
        check(ngpus == 0, "host timer: no GPU records", NULL);
        return failed;
    }
    snprintf(line, sizeof line, "(%lu of %lu)", eligible_timed, eligible);
    check(eligible && eligible_timed >= eligible * 99 / 100,
          "blocking calls with a complete GPU interval >= 99%", line);
    snprintf(line, sizeof line, "(%lu)", implausible);
    check(implausible == 0,
          "GPU intervals start after their call began and last < 10 s", line);
    check(captured_timed == 0, "captured calls get no interval", NULL);
    if (strcmp(program, "nccl_gpu") == 0) {
        check(captured >= 1, "the captured all-reduce is marked captured",
              NULL);
        snprintf(line, sizeof line, "(%lu of %lu)", grouped_fused, grouped);
        check(grouped && grouped_fused == grouped,
              "calls of groups share the group's interval, fused", line);
        check(big_n > 0 && big_gpu[big_n / 2] > 10000,
              "a 256 MB all-reduce takes more than 10 us on the GPU", NULL);
        snprintf(line, sizeof line, "(%lu of %lu timed)", nonblocking_timed,
                 nonblocking);
        if (hdr.timer == CP_TIMER_CUPTI)
            check(nonblocking && nonblocking_timed >= 1,
                  "non-blocking communicator: its calls are timed", line);
        else
            check(nonblocking && nonblocking_timed == 0,
                  "event timer, non-blocking: marked incomplete, not timed",
                  line);
    }
    if (hdr.timer == CP_TIMER_CUPTI) {
        check(noffsets >= 2, "CUPTI calibration pairs at start and end", NULL);
        check(noffsets && offsets[noffsets / 2] < 1000000000 &&
                  offsets[noffsets / 2] > -1000000000,
              "CUPTI's clock is within 1 s of CLOCK_REALTIME", NULL);
    }
    return failed;
}
