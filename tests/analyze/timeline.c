/* timeline.c - the analysis' time series (report.json `timeline`,
 * docs/analysis.md "Timeline") on logs with a known time structure, written
 * here record by record: a quiet phase then a busy one, a run of ten hours,
 * one call that spans many windows, a run whose calls all failed; and on a
 * gen_logs run with groups, send/recv and clock offsets.  Checks that the
 * windows add up to the summary, show the structure, stay bounded in
 * number, reach report.json with the documented keys, and are drawn. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "cp_analysis.h"
#include "cp_judge.h"
#include "cp_html.h"
#include "tap.h"

#define T0 UINT64_C(1700000000000000000)
#define MS UINT64_C(1000000)
#define SEC UINT64_C(1000000000)
#define COMM UINT64_C(0x5eed00000000abcd)
#define RANKS 2

static char dir[256];

/* ---- writing logs ---------------------------------------------------------- */

struct wlog {
    FILE *f;
    int rank;
    uint64_t slots, last_ns;
};

static int wlog_open(struct wlog *l, const char *logs, int rank)
{
    char path[512];
    unsigned char pad[CP_LOG_HEADER_SIZE];

    memset(l, 0, sizeof *l);
    l->rank = rank;
    snprintf(path, sizeof path, "%s/rank%d.cplog", logs, rank);
    l->f = fopen(path, "wb");
    if (!l->f)
        return -1;
    memset(pad, 0, sizeof pad);
    return fwrite(pad, sizeof pad, 1, l->f) == 1 ? 0 : -1;
}

/* A call of this log's rank on COMM (2 ranks); times are ns after T0. */
static void wlog_call(struct wlog *l, unsigned op, uint32_t seq, int result,
                      uint64_t start, uint64_t end)
{
    union cp_rec rec;

    memset(&rec, 0, sizeof rec);
    rec.call.op = (uint8_t)op;
    rec.call.dtype = 7; /* float32 */
    rec.call.redop = op == CP_OP_AllReduce ? 0 : CP_REDOP_NONE;
    rec.call.result = (int8_t)result;
    rec.call.timer = CP_TIMER_HOST;
    rec.call.comm_id = COMM;
    rec.call.count = 1024;
    rec.call.seq = seq;
    rec.call.peer = op == CP_OP_Send || op == CP_OP_Recv ? 1 - l->rank : -1;
    rec.call.rank = (uint32_t)l->rank;
    rec.call.nranks = RANKS;
    rec.call.start_ns = T0 + start;
    rec.call.end_ns = T0 + end;
    rec.kind = CP_REC_CALL;
    fwrite(&rec, sizeof rec, 1, l->f);
    l->slots++;
    if (end > l->last_ns)
        l->last_ns = end;
}

static int wlog_close(struct wlog *l)
{
    struct cp_log_header h;
    int rc;

    memset(&h, 0, sizeof h);
    memcpy(h.magic, CP_LOG_MAGIC, 8);
    h.endian = CP_LOG_ENDIAN;
    h.version = CP_LOG_VERSION_SLOTS;
    h.header_size = CP_LOG_HEADER_SIZE;
    h.record_size = CP_LOG_RECORD_SIZE;
    h.chunk_records = 16384;
    h.flags = CP_HDR_CLOSED;
    h.timer = CP_TIMER_HOST;
    h.pid = 4000 + l->rank;
    h.global_rank = l->rank;
    h.world_size = RANKS;
    h.local_rank = l->rank;
    h.start_realtime_ns = T0 - SEC;
    h.start_monotonic_ns = SEC;
    h.end_realtime_ns = T0 + l->last_ns + SEC;
    h.slots_used = l->slots;
    snprintf(h.node, sizeof h.node, "tl0");
    snprintf(h.hostname, sizeof h.hostname, "tl0.example");
    snprintf(h.job_id, sizeof h.job_id, "77");
    snprintf(h.step_id, sizeof h.step_id, "0");
    snprintf(h.program, sizeof h.program, "timeline.t");
    rc = fseek(l->f, 0, SEEK_SET) == 0 && fwrite(&h, sizeof h, 1, l->f) == 1
             ? 0
             : -1;
    if (fclose(l->f) != 0)
        rc = -1;
    l->f = NULL;
    return rc;
}

/* An all-reduce of both ranks: rank 0 starts at s, rank 1 `late` later,
 * both end at s + late + own. */
static void allreduce(struct wlog *w, uint32_t seq, uint64_t s, uint64_t late,
                      uint64_t own, int result)
{
    wlog_call(&w[0], CP_OP_AllReduce, seq, result, s, s + late + own);
    wlog_call(&w[1], CP_OP_AllReduce, seq, result, s + late, s + late + own);
}

/* ---- checking ------------------------------------------------------------------ */

static struct cp_analysis *analyze(const char *logs)
{
    const char *paths[2] = {logs, NULL};
    struct cp_error err;
    struct cp_analysis *an = cp_analysis_run(paths, NULL, &err);

    if (!an)
        diag("analysis of %s failed: %s", logs, err.text);
    return an;
}

/* Sums and shape that hold for every run: contiguous windows over the span,
 * adding up to the summary. */
static void check_sums(const struct cp_analysis *an, const char *what)
{
    const struct cp_analysis_timeline *tl = &an->timeline;
    double t = 0, wait = 0, bytes = 0, rows_bytes = 0, worst_ops = 0;
    double w = tl->window_s;
    uint64_t calls = 0, steps;
    size_t i, bad_edges = 0, bad_width = 0;
    unsigned k;

    ok(tl->nwindows >= 1 && tl->nwindows <= 128, "%s: %zu windows (1..128)",
       what, tl->nwindows);
    steps = (uint64_t)llround(w * 1e9);
    ok(w > 0 && (steps & (steps - 1)) == 0 && steps >= 1024,
       "%s: the width %.9g s is a power of two of ns", what, w);
    for (i = 0; i < tl->nwindows; i++) {
        const struct cp_analysis_window *x = &tl->windows[i];
        double ops = 0;
        t += x->comm_time_s;
        wait += x->wait_time_s;
        bytes += x->bytes;
        calls += x->calls;
        for (k = 0; k < CP_COLL_COUNT; k++)
            ops += x->op_time_s[k];
        worst_ops = fmax(worst_ops, fabs(ops - x->comm_time_s));
        if (i > 0 && x->start_s != tl->windows[i - 1].end_s)
            bad_edges++;
        if (i > 0 && i + 1 < tl->nwindows &&
            fabs(x->end_s - x->start_s - w) > 1e-9)
            bad_width++;
        if (!(x->end_s > x->start_s) || x->end_s - x->start_s > w + 1e-9)
            bad_width++;
    }
    for (i = 0; i < an->nrows; i++)
        rows_bytes += an->rows[i].bytes;
    ok(tl->nwindows > 0 && tl->windows[0].start_s == 0 &&
           fabs(tl->windows[tl->nwindows - 1].end_s - an->summary.span_s) <=
               1e-9,
       "%s: the windows run from 0 to the span (%.9g s)", what,
       an->summary.span_s);
    is_int(bad_edges, 0, "%s: each window starts where the last ended", what);
    is_int(bad_width, 0, "%s: inner windows are one width, the ends at most",
           what);
    is_near(t, an->summary.comm_time_s, 1e-9,
            "%s: the windows' time adds up to comm_time_s", what);
    is_near(wait, an->summary.wait_time_s, 1e-9,
            "%s: their waiting adds up to wait_time_s", what);
    is_int(calls, an->summary.instances + an->summary.p2p_pairs,
           "%s: their calls add up to instances + pairs", what);
    is_near(bytes, rows_bytes, 1e-9,
            "%s: their bytes add up to the collectives' bytes", what);
    ok(worst_ops <= 1e-9 * fmax(an->summary.comm_time_s, 1e-9),
       "%s: per window, the collectives' times add up to its time (worst "
       "difference %.3g s)",
       what, worst_ops);
}

/* Seconds of comm time in the windows that lie within [lo, hi] s, and how
 * many such windows; the smallest and largest of them. */
static double time_within(const struct cp_analysis *an, double lo, double hi,
                          size_t *n, double *min, double *max)
{
    double t = 0;
    size_t i;

    *n = 0;
    *min = INFINITY;
    *max = 0;
    for (i = 0; i < an->timeline.nwindows; i++) {
        const struct cp_analysis_window *x = &an->timeline.windows[i];
        if (x->start_s < lo || x->end_s > hi)
            continue;
        t += x->comm_time_s;
        (*n)++;
        *min = fmin(*min, x->comm_time_s);
        *max = fmax(*max, x->comm_time_s);
    }
    return t;
}

static char *render(const struct cp_analysis *an)
{
    char *page = NULL;
    size_t size = 0;
    struct cp_error err;
    json_t *report = cp_analysis_to_json(an);
    FILE *f = report ? open_memstream(&page, &size) : NULL;

    if (!f) {
        json_decref(report);
        return NULL;
    }
    if (cp_html_write_json(report, f, &err) < 0)
        diag("cp_html_write_json: %s", err.text);
    fclose(f);
    json_decref(report);
    return page;
}

static size_t count_in(const char *s, const char *end, const char *what)
{
    size_t n = 0;

    while ((s = strstr(s, what)) && (!end || s < end)) {
        n++;
        s += strlen(what);
    }
    return n;
}

static int make_dir(const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", dir, name);
    return mkdir(out, 0700);
}

/* ---- the runs -------------------------------------------------------------------- */

/* 10 s quiet: an all-reduce of 1 ms every 100 ms; then 10 s busy: one of
 * 5 ms every 10 ms and a send/recv of 1 ms every 100 ms. */
static void quiet_then_busy(void)
{
    struct wlog w[RANKS];
    char logs[300];
    struct cp_analysis *an;
    uint32_t seq = 0, p2p = 0;
    uint64_t k;
    size_t nq, nb, i;
    double q, b, qmin, qmax, bmin, bmax, sendrecv = 0;
    json_t *j, *tl, *w0;
    const char *key;
    json_t *v;
    char *page;
    int r;

    if (make_dir("quiet-busy", logs, sizeof logs) < 0 ||
        wlog_open(&w[0], logs, 0) < 0 || wlog_open(&w[1], logs, 1) < 0)
        skip_all("cannot write logs");
    for (k = 0; k < 100; k++)
        allreduce(w, seq++, k * 100 * MS, MS / 5, MS, 0);
    for (k = 0; k < 1000; k++) {
        uint64_t s = 10 * SEC + k * 10 * MS;
        allreduce(w, seq++, s, MS / 10, 5 * MS, 0);
        if (k % 10 == 5) {
            wlog_call(&w[0], CP_OP_Send, p2p, 0, s + 6 * MS, s + 7 * MS);
            wlog_call(&w[1], CP_OP_Recv, p2p, 0, s + 6 * MS, s + 7 * MS);
            p2p++;
        }
    }
    for (r = 0; r < RANKS; r++)
        if (wlog_close(&w[r]) < 0)
            skip_all("cannot write logs");
    an = analyze(logs);
    ok(an != NULL, "quiet then busy: analyzed");
    if (!an)
        return;
    is_int(an->summary.instances, 1100, "quiet then busy: 1100 all-reduces");
    is_int(an->summary.p2p_pairs, 100, "quiet then busy: 100 send/recv pairs");
    is_near(an->summary.comm_time_s, 100 * 1e-3 + 1000 * 5e-3 + 100 * 1e-3,
            1e-6, "quiet then busy: the own time is the calls' (5.2 s)");
    check_sums(an, "quiet then busy");
    ok(an->timeline.nwindows >= 64,
       "quiet then busy: a 20 s run gets at least 64 windows (%zu of %.3g s)",
       an->timeline.nwindows, an->timeline.window_s);

    q = time_within(an, 0, 9.95, &nq, &qmin, &qmax);
    b = time_within(an, 10.0, 19.99, &nb, &bmin, &bmax);
    diag("quiet: %zu windows, %.4g s (%.3g..%.3g); busy: %zu windows, %.4g s "
         "(%.3g..%.3g)",
         nq, q, qmin, qmax, nb, b, bmin, bmax);
    ok(nq >= 20 && nb >= 20, "quiet then busy: both phases span many windows");
    ok(q <= 0.1 + 1e-9 && q >= 0.1 * 0.8,
       "quiet then busy: the quiet windows hold the quiet calls' 0.1 s (%.4g)",
       q);
    ok(bmin > qmax, "quiet then busy: every busy window has more time than "
                    "any quiet one (%.3g > %.3g)",
       bmin, qmax);
    ok(b / nb > 20 * (q / nq),
       "quiet then busy: the busy half has over 20x the time per window "
       "(%.3g s against %.3g s; truth 51x)",
       b / nb, q / nq);
    for (i = 0; i < an->timeline.nwindows; i++) {
        const struct cp_analysis_window *x = &an->timeline.windows[i];
        sendrecv += x->op_time_s[CP_COLL_SENDRECV];
        if (x->end_s < 9.99 && x->op_time_s[CP_COLL_SENDRECV] > 0)
            break;
    }
    ok(i == an->timeline.nwindows,
       "quiet then busy: no send/recv time before the busy phase");
    is_near(sendrecv, 0.1, 1e-6,
            "quiet then busy: the send/recv windows add up to its 0.1 s");

    j = cp_analysis_to_json(an);
    tl = j ? json_object_get(j, "timeline") : NULL;
    ok(json_is_object(tl) && json_is_array(json_object_get(tl, "windows")),
       "JSON: timeline.windows");
    is_int(json_array_size(json_object_get(tl, "windows")),
           an->timeline.nwindows, "JSON: one object per window");
    w0 = json_array_get(json_object_get(tl, "windows"), 0);
    {
        static const char *const want[] = {"start_s", "end_s", "comm_time_s",
                                           "calls", "bytes", "wait_time_s",
                                           "op_time_s", "busbw_Bps",
                                           "latency_share", "slowness",
                                           "warmup"};
        const size_t nwant = sizeof want / sizeof want[0];
        size_t n = 0, good = 0;
        json_object_foreach(w0, key, v)
        {
            good += n < nwant && strcmp(key, want[n]) == 0;
            n++;
        }
        ok(n == nwant && good == nwant, "JSON: a window's keys, in order");
    }
    {
        json_t *ops = json_object_get(w0, "op_time_s");
        const char *first = NULL, *second = NULL;
        size_t n = 0;
        json_object_foreach(ops, key, v)
        {
            if (n == 0)
                first = key;
            if (n == 1)
                second = key;
            n++;
        }
        ok(n == 2 && first && second && strcmp(first, "allreduce") == 0 &&
               strcmp(second, "sendrecv") == 0,
           "JSON: op_time_s names the run's collectives (allreduce, "
           "sendrecv)");
    }
    ok(json_is_number(json_object_get(tl, "window_s")) &&
           json_number_value(json_object_get(tl, "window_s")) ==
               an->timeline.window_s,
       "JSON: window_s");
    json_decref(j);

    page = render(an);
    ok(page && strstr(page, "aria-labelledby=\"timeline-t\""),
       "the page draws the timeline");
    if (page) {
        const char *fig = strstr(page, "id=\"fig-timeline\"");
        const char *end = fig ? strstr(fig, "</figure>") : NULL;
        is_int(fig ? count_in(fig, end, "<g><title>") : 0,
               an->timeline.nwindows,
               "the page has a bar with hover text per window");
        ok(fig && count_in(fig, end, "sendrecv") >= 1,
           "the timeline's legend names send/recv");
    }
    free(page);
    cp_analysis_destroy(an);
}

/* Ten hours, a 1 ms all-reduce every ten minutes: the window count stays
 * bounded. */
static void long_run(void)
{
    struct wlog w[RANKS];
    char logs[300];
    struct cp_analysis *an;
    uint64_t k;
    int r;

    if (make_dir("long", logs, sizeof logs) < 0 ||
        wlog_open(&w[0], logs, 0) < 0 || wlog_open(&w[1], logs, 1) < 0)
        skip_all("cannot write logs");
    for (k = 0; k <= 60; k++)
        allreduce(w, (uint32_t)k, k * 600 * SEC, MS / 2, MS, 0);
    for (r = 0; r < RANKS; r++)
        if (wlog_close(&w[r]) < 0)
            skip_all("cannot write logs");
    an = analyze(logs);
    ok(an != NULL, "ten hours: analyzed");
    if (!an)
        return;
    check_sums(an, "ten hours");
    ok(an->timeline.nwindows >= 64 && an->timeline.nwindows <= 128,
       "ten hours: 64 to 128 windows (%zu)", an->timeline.nwindows);
    ok(an->timeline.window_s * 128 >= an->summary.span_s &&
           an->timeline.window_s * 32 < an->summary.span_s,
       "ten hours: windows of %.4g s for a span of %.6g s",
       an->timeline.window_s, an->summary.span_s);
    cp_analysis_destroy(an);
}

/* A 4 s all-reduce between two short ones: its time spreads over the
 * windows it spans, one window's width in each. */
static void long_call(void)
{
    struct wlog w[RANKS];
    char logs[300];
    struct cp_analysis *an;
    size_t i, inside = 0, bad_inside = 0, outside = 0, bad_outside = 0;
    int r;

    if (make_dir("long-call", logs, sizeof logs) < 0 ||
        wlog_open(&w[0], logs, 0) < 0 || wlog_open(&w[1], logs, 1) < 0)
        skip_all("cannot write logs");
    allreduce(w, 0, 0, 0, MS, 0);
    allreduce(w, 1, SEC, 0, 4 * SEC, 0);
    allreduce(w, 2, 8 * SEC, 0, MS, 0);
    for (r = 0; r < RANKS; r++)
        if (wlog_close(&w[r]) < 0)
            skip_all("cannot write logs");
    an = analyze(logs);
    ok(an != NULL, "a long call: analyzed");
    if (!an)
        return;
    check_sums(an, "a long call");
    for (i = 0; i < an->timeline.nwindows; i++) {
        const struct cp_analysis_window *x = &an->timeline.windows[i];
        double width = x->end_s - x->start_s;
        if (x->start_s >= 1.0 && x->end_s <= 5.0) {
            inside++;
            bad_inside += fabs(x->comm_time_s - width) > 1e-6 * width;
        } else if ((x->start_s >= 0.002 && x->end_s <= 1.0) ||
                   (x->start_s >= 5.0 && x->end_s <= 7.99)) {
            outside++;
            bad_outside += x->comm_time_s != 0;
        }
    }
    ok(inside >= 40 && bad_inside == 0,
       "a long call: each of the %zu windows inside it holds its width "
       "(%zu do not)",
       inside, bad_inside);
    ok(outside >= 40 && bad_outside == 0,
       "a long call: the %zu windows between the calls hold nothing (%zu do)",
       outside, bad_outside);
    cp_analysis_destroy(an);
}

/* Every call failed: no window, and the page says why. */
static void all_failed(void)
{
    struct wlog w[RANKS];
    char logs[300];
    struct cp_analysis *an;
    json_t *j, *tl;
    char *page;
    int r;

    if (make_dir("failed", logs, sizeof logs) < 0 ||
        wlog_open(&w[0], logs, 0) < 0 || wlog_open(&w[1], logs, 1) < 0)
        skip_all("cannot write logs");
    allreduce(w, 0, 0, 0, MS, 2);
    allreduce(w, 1, SEC, 0, MS, 2);
    for (r = 0; r < RANKS; r++)
        if (wlog_close(&w[r]) < 0)
            skip_all("cannot write logs");
    an = analyze(logs);
    ok(an != NULL, "all calls failed: analyzed");
    if (!an)
        return;
    is_int(an->summary.failed_calls, 4, "all calls failed: 4 failed calls");
    is_int(an->timeline.nwindows, 0, "all calls failed: no window");
    j = cp_analysis_to_json(an);
    tl = j ? json_object_get(j, "timeline") : NULL;
    ok(tl && json_is_null(json_object_get(tl, "window_s")) &&
           json_array_size(json_object_get(tl, "windows")) == 0,
       "all calls failed: window_s null, windows empty");
    json_decref(j);
    page = render(an);
    ok(page && strstr(page, "id=\"fig-timeline\"") &&
           !strstr(page, "aria-labelledby=\"timeline-t\"") &&
           strstr(page, "No collective of this run took time"),
       "all calls failed: the timeline figure says there is nothing to draw");
    free(page);
    cp_analysis_destroy(an);
}

/* gen_logs: every collective, groups, send/recv between nodes, and clock
 * offsets (times corrected before they reach the windows). */
static void generated(void)
{
    const char *b = getenv("top_builddir");
    char cmd[1024], logs[300];
    struct cp_analysis *an;

    snprintf(logs, sizeof logs, "%s/mixed", dir);
    snprintf(cmd, sizeof cmd,
             "%s/tests/tools/gen_logs -o %s --pattern mixed --ranks 8 "
             "--ranks-per-node 2 --steps 30 --clock-offset 1=3ms "
             "--clock-offset 2=-2ms --seed 11 >/dev/null",
             b ? b : ".", logs);
    if (system(cmd) != 0) {
        ok(0, "gen_logs ran: %s", cmd);
        return;
    }
    an = analyze(logs);
    ok(an != NULL, "mixed: analyzed");
    if (!an)
        return;
    ok(an->summary.p2p_pairs > 0 && an->nnodes == 4,
       "mixed: send/recv pairs on 4 nodes");
    check_sums(an, "mixed");
    cp_analysis_destroy(an);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/cp-timeline-t-%d", (int)getpid());
    if (mkdir(dir, 0700) < 0)
        skip_all("cannot create a temporary directory");
    quiet_then_busy();
    long_run();
    long_call();
    all_failed();
    generated();
    {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            diag("could not remove %s", dir);
    }
    return done_testing();
}
