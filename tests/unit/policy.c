/* policy.c - the capture policy (preload/cp_policy.c): its settings, which
 * calls it keeps, the aggregates of the others (counts, sequence ranges,
 * durations and their quantiles, intervals, groups), and a log written
 * through the ring with a policy read back by the analyzer's reader. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "cp_logread.h"
#include "cp_logwrite.h"
#include "cp_policy.h"

static uint64_t next_slot;

static union cp_rec call(uint64_t comm, uint32_t seq, uint64_t start,
                         uint64_t dur, uint64_t count, uint32_t group)
{
    union cp_rec r;

    memset(&r, 0, sizeof r);
    r.call.kind = CP_REC_CALL;
    r.call.op = CP_OP_AllReduce;
    r.call.dtype = 7;
    r.call.redop = 0;
    r.call.timer = CP_TIMER_HOST;
    r.call.comm_id = comm;
    r.call.count = count;
    r.call.seq = seq;
    r.call.peer = -1;
    r.call.nranks = 4;
    r.call.group = group;
    r.call.flags = group ? CP_CALL_IN_GROUP : 0;
    r.call.start_ns = start;
    r.call.end_ns = start + dur;
    return r;
}

static void parse_tests(void)
{
    struct cp_policy_cfg c;
    struct cp_error err;
    int on;

    ok(cp_policy_parse(NULL, &c, &on, &err) == 0 && on &&
           c.first == CP_POLICY_FIRST_DEFAULT &&
           c.window == CP_POLICY_WINDOW_DEFAULT &&
           c.every == CP_POLICY_EVERY_DEFAULT &&
           c.interval_ms == CP_POLICY_INTERVAL_MS_DEFAULT,
       "unset: the default policy, on");
    ok(cp_policy_parse("all", &c, &on, &err) == 0 && !on, "all: off");
    ok(cp_policy_parse("first=10,window=5,every=50,interval=250ms", &c, &on,
                       &err) == 0 &&
           on && c.first == 10 && c.window == 5 && c.every == 50 &&
           c.interval_ms == 250,
       "every key");
    ok(cp_policy_parse("first=7:interval=3s", &c, &on, &err) == 0 &&
           c.first == 7 && c.interval_ms == 3000,
       "colons separate too (srun's list is comma-separated)");
    ok(cp_policy_parse("interval=2m", &c, &on, &err) == 0 &&
           c.interval_ms == 120000 && c.first == CP_POLICY_FIRST_DEFAULT,
       "minutes; the other keys keep their defaults");
    ok(cp_policy_parse("interval=30", &c, &on, &err) == 0 &&
           c.interval_ms == 30000 && c.trigger == CP_POLICY_TRIGGER_DEFAULT,
       "a bare number of seconds");
    ok(cp_policy_parse("trigger=0", &c, &on, &err) == 0 && c.trigger == 0,
       "trigger=0: no triggered window");
    memset(&err, 0, sizeof err);
    ok(cp_policy_parse("first=10,bogus=3", &c, &on, &err) < 0 &&
           strstr(err.text, "bogus") != NULL,
       "an unknown key is named: %s", err.text);
    ok(cp_policy_parse("window=9,every=8", &c, &on, &err) < 0 &&
           strstr(err.text, "window=9") != NULL,
       "windows longer than their period: %s", err.text);
    ok(cp_policy_parse("interval=0s", &c, &on, &err) < 0 &&
           strstr(err.text, "interval") != NULL,
       "an interval of 0: %s", err.text);
    ok(cp_policy_parse("first=12x", &c, &on, &err) < 0 &&
           strstr(err.text, "first") != NULL,
       "not a number: %s", err.text);
    ok(cp_policy_parse("interval=5d", &c, &on, &err) < 0, "unknown unit");
}

static void q16_tests(void)
{
    uint64_t v[] = {0, 1, 1023, 1024, 2047, 2048, 123456789,
                    (uint64_t)1 << 40, UINT64_MAX / 2};
    size_t i;
    int good = 1;

    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint64_t d = cp_q16_decode(cp_q16_encode(v[i]));
        if (d > v[i] || (double)(v[i] - d) > (double)v[i] / 1024.0) {
            diag("q16 %llu -> %llu", (unsigned long long)v[i],
                 (unsigned long long)d);
            good = 0;
        }
    }
    ok(good, "q16: rounded down, within 1/1024");
    ok(cp_q16_decode(cp_q16_encode(UINT64_MAX)) > ((uint64_t)1 << 62),
       "q16: saturates, no overflow");
}

static void fold_tests(void)
{
    struct cp_policy_cfg c = {4, 2, 10, 1000, 0};
    struct cp_policy p;
    struct cp_rec_agg a, b;
    uint64_t t0 = 5000000000000ull; /* an interval boundary (1 s) */
    uint32_t seq;
    unsigned kept = 0, folded = 0;
    union cp_rec r;

    ok(cp_policy_init(&p, &c) == 0, "init");
    /* seq 0..29 of one signature, 1 us apart, durations 100..129 us, in
     * interval t0 */
    for (seq = 0; seq < 30; seq++) {
        r = call(7, seq, t0 + seq * 1000, 100000 + seq * 1000, 256, 0);
        if (cp_policy_fold(&p, &r, next_slot++))
            folded++;
        else
            kept++;
    }
    /* kept: 0-3 (first), 10, 11, 20, 21 (windows of 2 every 10) */
    is_int(kept, 8, "kept: the first 4 and windows of 2 every 10");
    is_int(folded, 22, "folded: the rest");
    ok(!cp_policy_take(&p, &a), "nothing closed while the interval runs");
    cp_policy_tick(&p, t0 + 500000000ull, 0);
    ok(!cp_policy_take(&p, &a), "not before its end");
    cp_policy_tick(&p, t0 + 1000000000ull, 0);
    ok(cp_policy_take(&p, &a) == 1, "closed at its end");
    ok(a.kind == CP_REC_AGG && a.comm_id == 7 && a.count == 256 &&
           a.op == CP_OP_AllReduce && a.peer == -1,
       "the signature");
    is_int(a.calls, 22, "calls");
    is_int(a.seq_first, 4, "seq_first");
    is_int(a.seq_last, 29, "seq_last");
    is_int((long long)a.first_ns, (long long)(t0 + 4000), "first_ns");
    is_int(a.interval_ms, 1000, "interval_ms");
    {
        /* durations: 104..109, 112..119, 122..129 us */
        uint64_t sum = 0, s;
        for (s = 4; s < 30; s++)
            if (!cp_policy_keeps(4, 2, 10, (uint32_t)s))
                sum += 100000 + s * 1000;
        is_int((long long)a.sum_ns, (long long)sum, "sum_ns");
    }
    ok(cp_q16_decode(a.dur_q[0]) <= 104000 &&
           cp_q16_decode(a.dur_q[0]) >= 104000 - 104000 / 1024,
       "min (q16): %llu", (unsigned long long)cp_q16_decode(a.dur_q[0]));
    ok(cp_q16_decode(a.dur_q[3]) <= 129000 &&
           cp_q16_decode(a.dur_q[3]) > 128800,
       "max (q16): %llu", (unsigned long long)cp_q16_decode(a.dur_q[3]));
    {
        double med = (double)cp_q16_decode(a.dur_q[1]);
        double p99 = (double)cp_q16_decode(a.dur_q[2]);
        /* the true median of the 22: 118.5 us; within 1/16 */
        ok(med > 118500 * (1 - 1.0 / 16) && med < 118500 * (1 + 1.0 / 16),
           "median within 1/16: %.0f", med);
        ok(p99 > 129000 * (1 - 1.0 / 16) && p99 <= 129000,
           "p99 within 1/16, at most the max: %.0f", p99);
    }
    ok(!cp_policy_take(&p, &b), "one aggregate");

    /* a second interval: closed when a call of a later one comes */
    r = call(7, 35, t0 + 1500000000ull, 50000, 256, 0);
    ok(cp_policy_fold(&p, &r, next_slot++) == 1, "folded into the next interval");
    r = call(8, 36, t0 + 1600000000ull, 60000, 512, 0);
    ok(cp_policy_fold(&p, &r, next_slot++) == 1, "another signature");
    r = call(7, 37, t0 + 2100000000ull, 70000, 256, 0);
    ok(cp_policy_fold(&p, &r, next_slot++) == 1, "a third interval");
    ok(cp_policy_take(&p, &a) && cp_policy_take(&p, &b) &&
           a.calls == 1 && b.calls == 1 && a.comm_id == 7 &&
           b.comm_id == 8 && !cp_policy_take(&p, &b),
       "the second interval's two signatures, closed by the third's call");
    cp_policy_tick(&p, 0, 1);
    ok(cp_policy_take(&p, &a) && a.seq_first == 37 && a.calls == 1,
       "final: the open interval closed");

    /* kept whatever the seq: in flight, failed, a GPU timer, flags */
    r = call(7, 45, t0 + 3000000000ull, 1000, 256, 0);
    r.call.end_ns = 0;
    ok(!cp_policy_fold(&p, &r, next_slot++), "in flight: kept");
    r = call(7, 46, t0 + 3000000000ull, 1000, 256, 0);
    r.call.result = 2;
    ok(!cp_policy_fold(&p, &r, next_slot++), "failed: kept");
    /* a device timer: the call folded, its device interval (kind 5,
     * later) folded into the aggregate with the device's duration; a
     * kept call's device interval kept */
    {
        union cp_rec g;
        uint64_t folded_slot, kept_slot;
        cp_policy_tick(&p, 0, 1);
        while (cp_policy_take(&p, &a))
            ;
        p.device = 1; /* the log's timer is a device's */
        r = call(11, 47, t0 + 3000000000ull, 1000, 256, 0);
        r.call.timer = CP_TIMER_CUPTI;
        folded_slot = next_slot;
        ok(cp_policy_fold(&p, &r, next_slot++) == 1,
           "a device timer's call: folded");
        r = call(11, 50, t0 + 3000100000ull, 1000, 256, 0); /* 50 % 10 < 2 */
        r.call.timer = CP_TIMER_CUPTI;
        kept_slot = next_slot;
        ok(!cp_policy_fold(&p, &r, next_slot++), "... one the rule keeps: kept");
        cp_policy_tick(&p, t0 + 9000000000ull, 0);
        ok(!cp_policy_take(&p, &a), "no aggregate before the device interval");
        memset(&g, 0, sizeof g);
        g.gpu.kind = CP_REC_GPU;
        g.gpu.timer = CP_TIMER_CUPTI;
        g.gpu.slot = folded_slot;
        g.gpu.start_ns = t0 + 3000200000ull;
        g.gpu.end_ns = g.gpu.start_ns + 777000;
        ok(cp_policy_fold(&p, &g, next_slot++) == 1,
           "its device interval: folded");
        g.gpu.slot = kept_slot;
        ok(!cp_policy_fold(&p, &g, next_slot++),
           "the kept call's device interval: kept");
        g.gpu.slot = folded_slot; /* again: no longer waited for */
        ok(cp_policy_fold(&p, &g, next_slot++) == 1,
           "a folded call's second interval: folded, not kept");
        cp_policy_tick(&p, 0, 1);
        ok(cp_policy_take(&p, &a) && a.comm_id == 11 && a.calls == 1 &&
               a.sum_ns == 777000 && a.seq_first == 47,
           "the aggregate: the device's duration (%llu ns)",
           (unsigned long long)a.sum_ns);
        /* one whose interval never comes: its host times, at the end */
        r = call(11, 53, t0 + 3000300000ull, 4242, 256, 0);
        r.call.timer = CP_TIMER_CUPTI;
        ok(cp_policy_fold(&p, &r, next_slot++) == 1, "another folded");
        cp_policy_tick(&p, 0, 1);
        ok(cp_policy_take(&p, &a) && a.calls == 1 && a.sum_ns == 4242,
           "no device interval came: its host times (%llu ns)",
           (unsigned long long)a.sum_ns);
        p.device = 0;
    }
    r = call(7, 48, t0 + 3000000000ull, 1000, 256, 0);
    r.call.flags = CP_CALL_CAPTURED;
    ok(!cp_policy_fold(&p, &r, next_slot++), "captured into a graph: kept");

    /* a group: its calls take the group's interval; the group's record
     * is folded when every call of it was */
    {
        union cp_rec g;
        uint64_t gs = t0 + 4000000000ull;
        r = call(9, 55, gs + 10, 5, 64, 3);
        ok(cp_policy_fold(&p, &r, next_slot++) == 1, "a call in a group: folded");
        r = call(9, 56, gs + 20, 5, 64, 3);
        ok(cp_policy_fold(&p, &r, next_slot++) == 1, "its second");
        memset(&g, 0, sizeof g);
        g.group.kind = CP_REC_GROUP;
        g.group.group = 3;
        g.group.ncalls = 2;
        g.group.start_ns = gs;
        g.group.end_ns = gs + 300000;
        ok(cp_policy_fold(&p, &g, next_slot++) == 1, "the group's record: folded too");
        cp_policy_tick(&p, 0, 1);
        ok(cp_policy_take(&p, &a) && (a.op & CP_AGG_GROUPED) && a.calls == 2 &&
               a.sum_ns == 600000 && a.seq_first == 55 && a.seq_last == 56,
           "grouped: op bit 7, durations the group's (sum %llu)",
           (unsigned long long)a.sum_ns);
        r = call(9, 60, gs + 400000, 5, 64, 4); /* 60 % 10 < 2: kept */
        ok(!cp_policy_fold(&p, &r, next_slot++), "a kept call in a group");
        r = call(9, 65, gs + 400010, 5, 64, 4);
        ok(cp_policy_fold(&p, &r, next_slot++) == 1, "and a folded one");
        g.group.group = 4;
        ok(!cp_policy_fold(&p, &g, next_slot++), "the group's record kept");
    }
    cp_policy_free(&p);
}

/* A slow step opens a window: every member sees the same gap between
 * instances' ends; a usual step boundary (long against the calls within
 * a step) does not. */
static void trigger_tests(void)
{
    struct cp_policy_cfg c = {4, 2, 1000, 1000, 10};
    struct cp_policy p;
    union cp_rec r;
    uint64_t t = 5000000000000ull;
    uint32_t seq, kept = 0, kept_after = 0;

    ok(cp_policy_init(&p, &c) == 0, "trigger: init");
    /* 300 steps of 10 calls 50 us apart, 20 ms between steps */
    for (seq = 0; seq < 3000; seq++) {
        t += seq % 10 == 0 ? 20000000 : 50000;
        r = call(3, seq, t, 10000, 64, 0);
        kept += !cp_policy_fold(&p, &r, next_slot++);
    }
    is_int(kept, 4 + 2 * 2, "trigger: steady steps keep the rule's only");
    is_int((long long)p.triggers, 0, "... and open no window");
    /* a step 300 ms long: the window opens at its instance */
    t += 300000000;
    r = call(3, 3000, t, 10000, 64, 0);
    ok(!cp_policy_fold(&p, &r, next_slot++), "a slow step: its instance kept");
    for (seq = 3001; seq < 3010; seq++) {
        t += 50000;
        r = call(3, seq, t, 10000, 64, 0);
        kept_after += !cp_policy_fold(&p, &r, next_slot++);
    }
    is_int(kept_after, 1, "... and the window's count after it (2 in all)");
    is_int((long long)p.triggers, 1, "one trigger");
    /* the slowdown stays: no second window */
    for (seq = 3010; seq < 3100; seq++) {
        t += seq % 10 == 0 ? 300000000 : 50000;
        r = call(3, seq, t, 10000, 64, 0);
        (void)cp_policy_fold(&p, &r, next_slot++);
    }
    is_int((long long)p.triggers, 1, "a slowdown that stays: one window");
    cp_policy_free(&p);
    c.trigger = 0;
    ok(cp_policy_init(&p, &c) == 0, "trigger=0: init");
    t = 5000000000000ull;
    for (seq = 0; seq < 200; seq++) {
        t += seq == 150 ? 900000000 : 50000;
        r = call(3, seq, t, 10000, 64, 0);
        (void)cp_policy_fold(&p, &r, next_slot++);
    }
    is_int((long long)p.triggers, 0, "trigger=0: none");
    cp_policy_free(&p);
}

/* A log written through the ring with a policy: the reader gives back
 * the kept calls and the aggregates, in slot order, the folded slots as
 * never-written ones. */
static void ring_tests(void)
{
    char dir[] = "/tmp/cp-policy-XXXXXX";
    /* static: the log keeps its ring and mappings after close, as the
     * shim does (a thread may still hold a slot), reachable */
    static struct cp_log log;
    struct cp_log_ident id;
    struct cp_policy_cfg c = {3, 1, 5, 100, 0};
    struct cp_error err;
    struct cp_logfile *lf;
    union cp_rec r;
    uint64_t slot, kept = 0, aggs = 0, agg_calls = 0, t0;
    int i;

    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    memset(&id, 0, sizeof id);
    id.global_rank = 0;
    id.world_size = 1;
    id.timer = CP_TIMER_HOST;
    id.format = 4;
    id.ring_slots = 64;
    id.node = id.hostname = "n1";
    id.job_id = id.step_id = id.timer_reason = id.program = "";
    id.policy = &c;
    ok(cp_log_open(&log, dir, &id, &err) == 0, "log open: %s", err.text);
    /* an hour ahead: the log thread's ticks (the real clock) never close
     * these calls' intervals before their last call, however slow the
     * run (TSan) */
    t0 = ((uint64_t)time(NULL) + 3600) * 1000000000ull;
    for (i = 0; i < 2000; i++) {
        union cp_rec *w = cp_log_slot(&log, &slot);
        if (!w)
            break;
        r = call(5, (uint32_t)i, t0 + (uint64_t)i * 100000, 20000, 32, 0);
        memcpy((unsigned char *)w + 1, (unsigned char *)&r + 1, sizeof r - 1);
        cp_log_commit(w, CP_REC_CALL);
    }
    ok(i == 2000, "2000 calls written through a ring of 64");
    cp_log_close(&log, 0, 0);
    diag("policy: kept %llu folded %llu aggregates %llu lost %llu",
         (unsigned long long)log.ring->policy->kept,
         (unsigned long long)log.ring->policy->folded,
         (unsigned long long)log.ring->policy->aggregates,
         (unsigned long long)log.ring->policy->lost);
    {
        char path[512];
        snprintf(path, sizeof path, "%s/n1.%d.cplog", dir, (int)getpid());
        lf = cp_logfile_open(path, &err);
        ok(lf != NULL, "read back: %s", lf ? "" : err.text);
        if (!lf)
            return;
        ok(cp_logfile_header(lf)->flags & CP_HDR_POLICY,
           "the header says so");
        while (cp_logfile_next(lf, &r, &slot) > 0) {
            if (r.kind == CP_REC_CALL) {
                kept++;
                if (!cp_policy_keeps(3, 1, 5, r.call.seq))
                    diag("seq %u kept", r.call.seq);
            } else if (r.kind == CP_REC_AGG) {
                aggs++;
                agg_calls += r.agg.calls;
            }
        }
        cp_logfile_close(lf);
    }
    /* kept: 0, 1, 2, then seq % 5 == 0 from 5 on: 3 + 399 */
    is_int((long long)kept, 402, "the kept calls");
    is_int((long long)agg_calls, 2000 - 402, "every other call in an aggregate");
    ok(aggs >= 2000 * 100000 / 100000000 && aggs <= 2000 * 100000 / 100000000 + 2,
       "an aggregate per 100 ms interval (%llu)", (unsigned long long)aggs);
    {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void)system(cmd);
    }
}

int main(void)
{
    parse_tests();
    q16_tests();
    fold_tests();
    trigger_tests();
    ring_tests();
    return done_testing();
}
