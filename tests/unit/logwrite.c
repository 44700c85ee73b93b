/* logwrite.c - the rank log writer: growth across chunks, threads, close,
 * the file-size limit, and what a reader sees of it. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp_comm.h"
#include "cp_logread.h"
#include "cp_logwrite.h"
#include "tap.h"

static struct cp_log log1;

#define THREADS 4
#define PER_THREAD 20000u

static void *writer(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg, i;
    for (i = 0; i < PER_THREAD; i++) {
        union cp_rec *r = cp_log_slot(&log1, NULL);
        if (!r)
            return (void *)1;
        memset(r, 0, sizeof *r);
        r->call.op = CP_OP_AllReduce;
        r->call.seq = i;
        r->call.stream = t;
        r->call.count = (uint64_t)t * PER_THREAD + i;
        cp_log_commit(r, CP_REC_CALL);
    }
    return NULL;
}

/* Format 4: whole records (a call with its end, or a group), some threads
 * calling after others, as the shim writes them. */
static struct cp_log log4;

static void *writer4(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg, i;
    for (i = 0; i < PER_THREAD; i++) {
        union cp_rec *r = cp_log_slot(&log4, NULL);
        if (!r)
            return (void *)1;
        memset(r, 0, sizeof *r);
        r->call.op = CP_OP_AllReduce;
        r->call.dtype = 7;
        r->call.seq = i;
        r->call.stream = t;
        r->call.comm_id = 100 + t;
        /* the last thread's counts change from call to call */
        r->call.count = (1024u << t) + (t == THREADS - 1 ? i % 200 : 0);
        r->call.start_ns = UINT64_C(1700000000000000000) + i * 1000;
        r->call.end_ns = r->call.start_ns + 500 + (i % 7);
        cp_log_commit(r, CP_REC_CALL);
    }
    return NULL;
}

/* The NCCL profiler plugin's records (kinds 5-11) through format 4's
 * ring and templates: a collective as the plugin writes it (its call,
 * device interval, NCCL's choice, its link to the next rank), now and
 * then a proxy operation with steps, a tag and a phase, and values at
 * the edges (0, all ones, far jumps).  A small generator of its own,
 * deterministic. */
#define PLUGIN_COLLS 4000u
#define PLUGIN_MAX (PLUGIN_COLLS * 12u)
static union cp_rec *plugin_want;
static uint64_t plugin_n;
static uint64_t prng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    prng ^= prng << 13;
    prng ^= prng >> 7;
    prng ^= prng << 17;
    return prng;
}

/* jitter of +-j ns */
static uint64_t jit(uint64_t j)
{
    return next_rand() % (2 * j + 1);
}

static void plugin_put(struct cp_log *log, const union cp_rec *r)
{
    union cp_rec *w = cp_log_slot(log, NULL);
    if (!w || plugin_n >= PLUGIN_MAX)
        return;
    memcpy((char *)w + 1, (const char *)r + 1, sizeof *r - 1);
    plugin_want[plugin_n++] = *r;
    cp_log_commit(w, r->kind);
}

/* Write the collectives; edge: values at the edges too; extras: a proxy
 * operation, its steps, a tag and a phase every tenth. */
static void plugin_write(struct cp_log *log, int edge, int extras)
{
    uint64_t t = UINT64_C(1700000000000000000), g = UINT64_C(5000000000);
    uint32_t i;

    for (i = 0; i < PLUGIN_COLLS; i++) {
        union cp_rec r;
        uint64_t call_slot = plugin_n, dur = 40000 + jit(2000);
        int odd = edge && next_rand() % 5 == 0;
        t += 100000 + jit(3000);
        g += 100000 + jit(3000);
        memset(&r, 0, sizeof r);
        r.call.kind = CP_REC_CALL;
        r.call.op = CP_OP_AllReduce;
        r.call.dtype = 7;
        r.call.redop = 0;
        r.call.comm_id = 0xabcdef;
        r.call.count = 262144;
        r.call.seq = i;
        r.call.nranks = 8;
        r.call.rank = 3;
        r.call.timer = CP_TIMER_KERNEL_CH;
        r.call.start_ns = t;
        r.call.end_ns = t + dur;
        plugin_put(log, &r);
        memset(&r, 0, sizeof r);
        r.gpu.kind = CP_REC_GPU;
        r.gpu.timer = CP_TIMER_KERNEL_CH;
        r.gpu.slot = call_slot;
        r.gpu.start_ns = t + 5000 + jit(500);
        r.gpu.end_ns = t + dur;
        plugin_put(log, &r);
        memset(&r, 0, sizeof r);
        r.nccl.kind = CP_REC_NCCL;
        r.nccl.algo = 1;
        r.nccl.proto = 2;
        r.nccl.nchannels = 2;
        r.nccl.api = 6;
        r.nccl.slot = odd ? UINT64_MAX : call_slot;
        r.nccl.comm_id = 0xabcdef;
        r.nccl.nccl_seq = odd ? UINT64_MAX : i;
        r.nccl.seq = i;
        r.nccl.kernel_channels = 2;
        r.nccl.op = CP_OP_AllReduce;
        r.nccl.gpu_start_raw = odd ? 0 : g;
        r.nccl.gpu_end_raw = odd ? UINT64_MAX : g + dur - 5000 + jit(500);
        r.nccl.bytes = 262144 * 4;
        plugin_put(log, &r);
        if (extras && i % 10 == 0) {
            uint64_t proxy_slot = plugin_n;
            uint32_t k;
            memset(&r, 0, sizeof r);
            r.proxy.kind = CP_REC_PROXY;
            r.proxy.dir = CP_PROXY_SEND;
            r.proxy.channel = (uint8_t)(i % 3);
            r.proxy.peer = 4;
            r.proxy.comm_id = 0xabcdef;
            r.proxy.slot = call_slot;
            r.proxy.bytes = 524288 + (odd ? UINT64_MAX / 3 : 0);
            r.proxy.start_ns = t + 1000 + jit(100);
            r.proxy.end_ns = odd ? 0 : r.proxy.start_ns + 30000 + jit(900);
            r.proxy.busy_ns = 20000 + jit(800);
            r.proxy.nsteps = 4;
            r.proxy.steps_done = odd ? 65535 : 4;
            r.proxy.min_step_ns = odd ? UINT32_MAX : 4000 + (uint32_t)jit(90);
            plugin_put(log, &r);
            for (k = 0; k < 4; k++) {
                memset(&r, 0, sizeof r);
                r.step.kind = CP_REC_STEP;
                r.step.dir = CP_PROXY_SEND;
                r.step.peer = 4;
                r.step.proxy_slot = proxy_slot;
                r.step.step = odd && k == 2 ? UINT32_MAX : k;
                r.step.bytes = 131072;
                r.step.start_ns = t + 2000 + 5000 * k;
                r.step.posted_ns = r.step.start_ns + 100 + jit(20);
                r.step.done_ns = odd && k == 3 ? 1 : r.step.posted_ns + 4000;
                plugin_put(log, &r);
            }
            memset(&r, 0, sizeof r);
            r.tag.kind = CP_REC_TAG;
            r.tag.seq = i;
            r.tag.slot = call_slot;
            r.tag.user_tag = 1 + i % 3;
            snprintf(r.tag.kernel_variant, sizeof r.tag.kernel_variant,
                     "AllReduce_Sum_f32_RING_LL");
            plugin_put(log, &r);
            memset(&r, 0, sizeof r);
            r.phase.kind = CP_REC_PHASE;
            r.phase.channel = 1;
            r.phase.phase = (uint8_t)(i % 3);
            r.phase.slot = call_slot;
            r.phase.comm_id = 0xabcdef;
            r.phase.seq = i;
            r.phase.gpu_start_raw = g + 100;
            r.phase.gpu_end_raw = odd ? 0 : g + 900 + jit(50);
            r.phase.start_ns = odd ? 0 : t + 5100;
            r.phase.end_ns = r.phase.gpu_end_raw ? t + 5900 : 0;
            plugin_put(log, &r);
        }
        memset(&r, 0, sizeof r);
        r.link.kind = CP_REC_LINK;
        r.link.dir = CP_PROXY_SEND;
        r.link.channels = 2;
        r.link.peer = 4;
        r.link.comm_id = 0xabcdef;
        r.link.back = (uint32_t)(plugin_n - call_slot);
        r.link.steps = 8;
        r.link.bytes = 1048576;
        r.link.first_ns = t + 3000 + jit(300);
        r.link.last_ns = odd ? 0 : r.link.first_ns + 30000 + jit(1500);
        r.link.busy_ns = 50000 + jit(1500);
        r.link.min_step_ns = odd ? 0 : 3500 + (uint32_t)jit(100);
        r.link.max_step_ns = odd ? UINT32_MAX : 5000 + (uint32_t)jit(400);
        plugin_put(log, &r);
    }
}

/* The capture policy's aggregates (kind 12) through format 4's
 * templates: AGG_SIGS signatures (more than the short index form's 31),
 * one aggregate each per interval, as the log thread writes them; steady
 * (calls, quantiles and sum jitter a little, seq grows by the calls of
 * all signatures: they share the communicator's counter) unless edge:
 * then also seq past 2^32 - 1, a sum near 2^64, the quantiles all equal
 * or all different, one call, fields 0, and a call between intervals. */
#define AGG_SIGS 40u
#define AGG_INTERVALS 300u

static void agg_write(struct cp_log *log, int edge)
{
    uint64_t t = UINT64_C(1700000000000000000);
    uint32_t seq = edge ? UINT32_MAX - 50000 : 0, iv, k;

    for (iv = 0; iv < AGG_INTERVALS; iv++) {
        uint64_t t_iv = t + (uint64_t)iv * 1000000000u;
        for (k = 0; k < AGG_SIGS; k++) {
            union cp_rec r;
            uint32_t calls = 25 + (uint32_t)jit(1), j;
            int odd = edge && next_rand() % 4 == 0;
            memset(&r, 0, sizeof r);
            r.agg.kind = CP_REC_AGG;
            r.agg.op = (uint8_t)(k % 2 ? CP_OP_AllReduce : CP_OP_Broadcast);
            r.agg.dtype = 7;
            r.agg.peer = -1;
            r.agg.comm_id = 0xabcdef;
            r.agg.count = 1024u * (k + 1);
            r.agg.interval_ms = 1000;
            if (odd && next_rand() % 3 == 0)
                calls = 1;
            r.agg.calls = calls;
            r.agg.seq_first = seq;
            r.agg.seq_last = seq + calls - 1;
            seq += calls;
            r.agg.first_ns = t_iv + 1000 * k + jit(100);
            r.agg.sum_ns = (uint64_t)calls * (40000 + jit(200));
            for (j = 0; j < 4; j++)
                r.agg.dur_q[j] = cp_q16_encode(40000 + 2000 * j + jit(20));
            if (odd) {
                switch (next_rand() % 5) {
                case 0:
                    r.agg.sum_ns = UINT64_MAX - jit(1000);
                    break;
                case 1:
                    for (j = 0; j < 4; j++)
                        r.agg.dur_q[j] = 0xffff;
                    break;
                case 2:
                    for (j = 0; j < 4; j++)
                        r.agg.dur_q[j] = (uint16_t)(j * 0x5555u);
                    break;
                case 3:
                    r.agg.first_ns = 0;
                    r.agg.seq_last = 0;
                    break;
                default:
                    r.agg.seq_first = UINT32_MAX;
                    r.agg.seq_last = calls - 2;
                    break;
                }
            }
            plugin_put(log, &r);
        }
        if (edge && iv % 7 == 0) {
            union cp_rec r;
            memset(&r, 0, sizeof r);
            r.call.kind = CP_REC_CALL;
            r.call.op = CP_OP_AllReduce;
            r.call.comm_id = 0xabcdef;
            r.call.seq = seq++;
            r.call.start_ns = t_iv + 900000000u;
            r.call.end_ns = r.call.start_ns + 40000;
            plugin_put(log, &r);
        }
    }
}

/* Read path back and compare every slot with plugin_want: the slots
 * that differ (-1: it does not open). */
static long plugin_check(const char *path, uint64_t *n)
{
    struct cp_logfile *lf = cp_logfile_open(path, NULL);
    union cp_rec rec;
    uint64_t slot;
    long differ = 0;

    *n = 0;
    if (!lf)
        return -1;
    while (cp_logfile_next(lf, &rec, &slot) == 1) {
        if (slot >= plugin_n ||
            memcmp(&rec, &plugin_want[slot], sizeof rec) != 0) {
            if (!differ)
                diag("  slot %llu (kind %u) differs",
                     (unsigned long long)slot, rec.kind);
            differ++;
        }
        (*n)++;
    }
    cp_logfile_close(lf);
    return differ;
}

/* Read path back: records, and none counted twice (by thread and seq). */
static uint64_t read_back(const char *path, uint64_t *dup, uint64_t *bad)
{
    struct cp_logfile *lf = cp_logfile_open(path, NULL);
    unsigned char *seen = calloc(THREADS * PER_THREAD, 1);
    union cp_rec rec;
    uint64_t n = 0;

    *dup = *bad = 0;
    while (lf && seen && cp_logfile_next(lf, &rec, NULL) == 1) {
        n++;
        if (rec.kind != CP_REC_CALL ||
            rec.call.end_ns != rec.call.start_ns + 500 + rec.call.seq % 7 ||
            rec.call.comm_id != 100 + rec.call.stream ||
            rec.call.stream >= THREADS || rec.call.seq >= PER_THREAD ||
            rec.call.count !=
                (1024u << rec.call.stream) +
                    (rec.call.stream == THREADS - 1 ? rec.call.seq % 200 : 0))
            (*bad)++;
        else if (seen[rec.call.stream * PER_THREAD + rec.call.seq]++)
            (*dup)++;
    }
    free(seen);
    cp_logfile_close(lf);
    return n;
}

static struct cp_log_ident ident(void)
{
    struct cp_log_ident id;
    memset(&id, 0, sizeof id);
    id.global_rank = 3;
    id.world_size = 4;
    id.node = "../evil/name";
    id.hostname = "h";
    id.timer = CP_TIMER_HOST;
    id.timer_reason = "test";
    id.program = "logwrite.t";
    return id;
}

int main(void)
{
    char dir[] = "/tmp/cp-logwrite-XXXXXX", sub[600];
    struct cp_log_ident id = ident();
    pthread_t th[THREADS];
    struct cp_logfile *lf;
    struct cp_error e, err;
    union cp_rec rec;
    struct stat sb;
    unsigned char *seen;
    uint64_t n = 0, dup = 0;
    int t, failed = 0;
    void *ret;

    if (!mkdtemp(dir))
        return 1;
    snprintf(sub, sizeof sub, "%s/logs", dir);
    is_int(cp_log_open(&log1, sub, &id, &err), 0,
           "open creates the directory and the log");
    ok(strstr(log1.path, "/_._evil_name.") != NULL,
       "node name made safe for a file name: %s", log1.path);
    for (t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, writer, (void *)(uintptr_t)t);
    for (t = 0; t < THREADS; t++) {
        pthread_join(th[t], &ret);
        failed |= ret != NULL;
    }
    ok(!failed, "%u records from %d threads, across chunk boundaries",
       THREADS * PER_THREAD, THREADS);
    cp_log_close(&log1, 0, 5);
    ok(stat(log1.path, &sb) == 0 &&
           (uint64_t)sb.st_size ==
               CP_LOG_HEADER_SIZE + (uint64_t)THREADS * PER_THREAD * 64,
       "close cuts the file to the slots used");
    ok(cp_log_slot(&log1, NULL) == NULL, "no slot after close");

    lf = cp_logfile_open(log1.path, &e);
    ok(lf != NULL, "reader opens it");
    if (!lf)
        return done_testing();
    ok(cp_logfile_header(lf)->flags & CP_HDR_CLOSED, "header says closed");
    is_int(cp_logfile_header(lf)->slots_used, THREADS * PER_THREAD,
           "header: slots used");
    is_int(cp_logfile_header(lf)->records_dropped, 5, "header: dropped count");
    is_int(cp_logfile_header(lf)->global_rank, 3, "header: rank");
    seen = calloc(THREADS * PER_THREAD, 1);
    while (cp_logfile_next(lf, &rec, NULL) == 1) {
        n++;
        if (rec.call.count < THREADS * PER_THREAD && seen[rec.call.count]++)
            dup++;
    }
    is_int(n, THREADS * PER_THREAD, "every record read back");
    is_int(dup, 0, "no record written twice, none lost");
    free(seen);
    cp_logfile_close(lf);

    /* A file-size limit is a full disk, never SIGXFSZ. */
    {
        struct cp_log *log2 = calloc(1, sizeof *log2);
        struct rlimit lim = {CP_LOG_HEADER_SIZE + (1u << 20) + 8192,
                             RLIM_INFINITY};
        uint64_t got = 0;
        getrlimit(RLIMIT_FSIZE, &lim);
        lim.rlim_cur = CP_LOG_HEADER_SIZE + (1u << 20) + 8192;
        setrlimit(RLIMIT_FSIZE, &lim);
        ok(cp_log_open(log2, sub, &id, &err) == 0,
           "a second log of the same pid (after exec) gets its own name");
        ok(strcmp(log2->path, log1.path) != 0 && strstr(log2->path, "-1.cplog"),
           "  named %s", log2->path);
        while (cp_log_slot(log2, NULL) && got < 10 * CP_LOG_CHUNK_SLOTS)
            got++;
        is_int(got, CP_LOG_CHUNK_SLOTS,
               "only the first chunk fits; the next fails cleanly");
        ok(log2->grow_errno == EFBIG, "growth failure is EFBIG");
        cp_log_close(log2, CP_HDR_DISABLED, 0); /* stops the preparer */
        free(log2);
    }
    /* An unusable directory is a clear error. */
    {
        struct cp_log *log3 = calloc(1, sizeof *log3);
        ok(cp_log_open(log3, "/proc/version/x", &id, &err) < 0 &&
               strstr(err.text, "/proc/version/x") != NULL,
           "bad directory: error names it: %s", err.text);
        free(log3);
    }
    /* Communicator table: find, tombstones, handle reuse. */
    {
        int a, b;
        struct cp_comm *c1 = cp_comm_add(&a, 11, 4, 1), *c2;
        ok(c1 && cp_comm_find(&a) == c1 && c1->p2p_size == 8, "comm added");
        ok(cp_comm_find(&b) == NULL, "unknown handle not found");
        cp_comm_remove(&a);
        ok(cp_comm_find(&a) == NULL, "removed comm not found");
        c2 = cp_comm_add(&a, 22, 2, 0);
        ok(c2 && c2 != c1 && cp_comm_find(&a) == c2 && c2->id == 22,
           "a reused handle finds the new communicator");
        ok(cp_hash_mix(1, 2) != cp_hash_mix(2, 1) && cp_hash_mix(0, 0) != 0,
           "id mixing is order-sensitive and never 0");
    }
    /* Format 4: a ring of 64 cells, so that writers wait for the log
     * thread or encode themselves; every record in the stream after
     * close, the ring's blocks given back. */
    {
        struct cp_log_ident id4 = ident();
        struct rlimit lim;
        uint64_t got, twice, bad;
        getrlimit(RLIMIT_FSIZE, &lim); /* the file-size test's limit off */
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_FSIZE, &lim);
        id4.format = 4;
        id4.ring_slots = 64;
        ok(cp_log_open(&log4, sub, &id4, &err) == 0 && log4.ring,
           "format 4: open");
        failed = 0;
        for (t = 0; t < THREADS; t++)
            pthread_create(&th[t], NULL, writer4, (void *)(uintptr_t)t);
        for (t = 0; t < THREADS; t++) {
            pthread_join(th[t], &ret);
            failed |= ret != NULL;
        }
        ok(!failed, "format 4: %u records from %d threads through 64 cells "
           "(growth error %d)", THREADS * PER_THREAD, THREADS,
           log4.grow_errno);
        cp_log_close(&log4, 0, 0);
        is_int(log4.hdr->version, 4, "format 4: header version 4");
        is_int(log4.hdr->stream_slots, THREADS * PER_THREAD,
               "format 4: every slot in the stream at close");
        got = read_back(log4.path, &twice, &bad);
        is_int(got, THREADS * PER_THREAD, "format 4: every record read back");
        ok(twice == 0 && bad == 0, "format 4: none twice, none changed "
                                   "(%llu twice, %llu changed)",
           (unsigned long long)twice, (unsigned long long)bad);
        ok(stat(log4.path, &sb) == 0 &&
               (uint64_t)sb.st_size ==
                   log4.hdr->stream_offset + log4.hdr->stream_end,
           "format 4: the file ends where the stream does");
        ok((uint64_t)sb.st_size < (uint64_t)THREADS * PER_THREAD * 16,
           "format 4: %lld bytes for %u records (under 16 a record)",
           (long long)sb.st_size, THREADS * PER_THREAD);
    }
    /* The plugin's records in format 4: each read back bit for bit, with
     * values at the edges; the steady collectives (call, device
     * interval, NCCL's choice, a link: jitter of a few microseconds) in
     * at most 32 bytes each */
    plugin_want = calloc(PLUGIN_MAX, sizeof *plugin_want);
    {
        static const char *const what[3] = {
            "plugin kinds", "plugin kinds with values at the edges",
            "plugin collectives alone"};
        static const char *const node[3] = {"plugin", "plugin-edge",
                                            "plugin-steady"};
        int v;
        for (v = 0; v < 3; v++) {
            struct cp_log_ident id4 = ident();
            /* static, as the shim's: a closed log keeps its ring and
             * encoder until the process ends */
            static struct cp_log plogs[3];
            struct cp_log *plog = &plogs[v];
            uint64_t got = 0;
            long differ;
            id4.format = 4;
            id4.source = CP_SOURCE_PLUGIN;
            id4.node = node[v];
            plugin_n = 0;
            if (!ok(cp_log_open(plog, sub, &id4, &err) == 0, "%s: open",
                    what[v]))
                continue;
            plugin_write(plog, v == 1, v < 2);
            cp_log_close(plog, 0, 0);
            differ = plugin_check(plog->path, &got);
            ok(differ == 0 && got == plugin_n,
               "%s: %llu slots read back, each bit for bit (%ld differ, "
               "%llu read)",
               what[v], (unsigned long long)plugin_n, differ,
               (unsigned long long)got);
            if (v == 2) {
                double per = (double)plog->hdr->stream_end / PLUGIN_COLLS;
                ok(per <= 32, "%s (a call, its device interval, NCCL's "
                              "choice, a link; jitter of microseconds): "
                              "%.1f bytes each (<= 32)", what[v], per);
            }
        }
    }
    /* Aggregates in format 4: each read back bit for bit, with values at
     * the edges; steady ones (the same signatures interval after
     * interval) in at most 20 bytes each, not a raw slot's 65 */
    {
        static const char *const what[2] = {
            "aggregates", "aggregates with values at the edges"};
        static const char *const node[2] = {"agg", "agg-edge"};
        int v;
        for (v = 0; v < 2; v++) {
            struct cp_log_ident id4 = ident();
            static struct cp_log alogs[2];
            struct cp_log *alog = &alogs[v];
            uint64_t got = 0;
            long differ;
            id4.format = 4;
            id4.node = node[v];
            plugin_n = 0;
            if (!ok(cp_log_open(alog, sub, &id4, &err) == 0, "%s: open",
                    what[v]))
                continue;
            agg_write(alog, v == 1);
            cp_log_close(alog, 0, 0);
            differ = plugin_check(alog->path, &got);
            ok(differ == 0 && got == plugin_n,
               "%s: %llu slots read back, each bit for bit (%ld differ, "
               "%llu read)",
               what[v], (unsigned long long)plugin_n, differ,
               (unsigned long long)got);
            if (v == 0) {
                double per = (double)alog->hdr->stream_end / plugin_n;
                ok(per <= 20, "%s (%u signatures, %u intervals): %.1f "
                              "bytes each (<= 20)",
                   what[v], AGG_SIGS, AGG_INTERVALS, per);
            }
        }
    }
    /* Format 4 killed before close: what the log thread had not written
     * is read from the ring (a child writes and dies of SIGKILL). */
    {
        pid_t pid = fork();
        if (pid == 0) {
            struct cp_log_ident id4 = ident();
            uint32_t i;
            id4.format = 4;
            id4.ring_slots = 1024;
            id4.node = "killed";
            if (cp_log_open(&log4, sub, &id4, NULL) < 0)
                _exit(1);
            for (i = 0; i < 300; i++) {
                union cp_rec *r = cp_log_slot(&log4, NULL);
                memset(r, 0, sizeof *r);
                r->call.op = CP_OP_AllReduce;
                r->call.seq = i;
                r->call.comm_id = 100;
                r->call.count = i;
                r->call.start_ns = UINT64_C(1700000000000000000) + i * 1000;
                r->call.end_ns = i == 299 ? 0 : r->call.start_ns + 500 + i % 7;
                cp_log_commit(r, CP_REC_CALL);
            }
            raise(SIGKILL);
        }
        {
            char path[700];
            struct cp_logfile *kl;
            uint64_t k = 0, in_order = 1, open_calls = 0;
            int st;
            waitpid(pid, &st, 0);
            snprintf(path, sizeof path, "%s/killed.%d.cplog", sub, (int)pid);
            kl = cp_logfile_open(path, &e);
            while (kl && cp_logfile_next(kl, &rec, NULL) == 1) {
                if (rec.kind != CP_REC_CALL || rec.call.seq != k)
                    in_order = 0;
                open_calls += rec.call.end_ns == 0;
                k++;
            }
            cp_logfile_close(kl);
            ok(WIFSIGNALED(st) && k == 300 && in_order && open_calls == 1,
               "format 4, SIGKILL before close: all 300 calls, in order, the "
               "last one in flight (%llu read)", (unsigned long long)k);
        }
    }
    return done_testing();
}
