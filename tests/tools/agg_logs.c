/* agg_logs.c - turn a short job of gen_logs (--format 3) into a long run
 * under a capture policy: each rank's log gets the header's policy
 * (CP_HDR_POLICY, policy_*) and, after its calls, the aggregates (kind
 * 12, struct cp_rec_agg) of N intervals of the policy that follow the
 * job, one per (signature, interval): the signatures are the job's
 * collectives outside groups, their own time the 25th percentile of
 * their calls' durations.  A rank's mean duration in an interval is the
 * own time (times a slowdown's factor) plus its wait for the last
 * arrival; a straggler arrives late by T from its interval on.
 *
 *   agg_logs DIR [--intervals 48] [--interval 60s] [--calls 200]
 *            [--slow COMM@K=FACTOR] [--straggler RANK@K=T] [--seed S]
 *            [--format 4] [--policy FIRST,WINDOW,EVERY]
 *
 * COMM is a communicator's index in the order rank 0's log creates them
 * (0: the world), K an interval's index (0: the first aggregated), T in
 * seconds.  Prints "first_interval_ns N" and "interval_ns I": interval
 * K starts at N + K x I (CLOCK_REALTIME); with --slow, "slow_comm ID".
 * --policy: the header's policy (default the shim's): the job's calls are
 * all kept, and those in the rule's windows are the long run's detail
 * windows.  --format 4 then rewrites each log in format 4 as the shim's log thread
 * would have written it (cp_logenc's stream, no sync points): the calls
 * each aggregate folded are a run of folded slots (CP_LOG4_FOLD) before
 * it.  Test tool: exits 1 on error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "cp_logenc.h"

#define MAX_LOGS 64
#define MAX_SIGS 256
#define MAX_COMMS 16

struct sig {
    uint64_t comm;
    uint8_t op, dtype, redop;
    uint64_t count;
    double *dur;
    size_t ndur, cap;
    double own;
    uint32_t seq;
};

struct log {
    char path[4096];
    struct cp_log_header h;
    uint64_t comms[MAX_COMMS];
    unsigned ncomms;
};

static struct log logs[MAX_LOGS];
static unsigned nlogs;
static uint32_t pol_first = CP_POLICY_FIRST_DEFAULT,
                pol_window = CP_POLICY_WINDOW_DEFAULT,
                pol_every = CP_POLICY_EVERY_DEFAULT;
static struct sig sigs[MAX_SIGS];
static unsigned nsigs;
static uint64_t rng = 88172645463325252ULL, seed;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static double normal(void)
{
    double u = uniform(), v = uniform();
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int by_path(const void *a, const void *b)
{
    const struct log *x = a, *y = b;
    return x->h.global_rank - y->h.global_rank;
}

static int read_log(struct log *lg)
{
    int fd = open(lg->path, O_RDONLY);
    union cp_rec r;
    uint64_t s;

    if (fd < 0 || pread(fd, &lg->h, sizeof lg->h, 0) != sizeof lg->h ||
        lg->h.version != CP_LOG_VERSION_SLOTS) {
        fprintf(stderr, "agg_logs: %s: not a format-3 log\n", lg->path);
        return -1;
    }
    for (s = 0; s < lg->h.slots_used; s++) {
        if (pread(fd, &r, sizeof r, CP_LOG_HEADER_SIZE + s * sizeof r) !=
            sizeof r)
            break;
        if (r.kind == CP_REC_COMM && r.comm.result == 0 &&
            lg->ncomms < MAX_COMMS) {
            unsigned i;
            for (i = 0; i < lg->ncomms; i++)
                if (lg->comms[i] == r.comm.comm_id)
                    break;
            if (i == lg->ncomms)
                lg->comms[lg->ncomms++] = r.comm.comm_id;
        }
        if (r.kind == CP_REC_CALL && r.call.result == 0 && r.call.end_ns &&
            !(r.call.flags & CP_CALL_IN_GROUP) && !cp_op_is_p2p(r.call.op)) {
            unsigned i;
            struct sig *g;
            for (i = 0; i < nsigs; i++)
                if (sigs[i].comm == r.call.comm_id &&
                    sigs[i].op == r.call.op && sigs[i].dtype == r.call.dtype &&
                    sigs[i].redop == r.call.redop &&
                    sigs[i].count == r.call.count)
                    break;
            if (i == nsigs) {
                if (nsigs == MAX_SIGS)
                    continue;
                memset(&sigs[nsigs], 0, sizeof sigs[nsigs]);
                sigs[nsigs].comm = r.call.comm_id;
                sigs[nsigs].op = r.call.op;
                sigs[nsigs].dtype = r.call.dtype;
                sigs[nsigs].redop = r.call.redop;
                sigs[nsigs].count = r.call.count;
                nsigs++;
            }
            g = &sigs[i];
            if (g->ndur == g->cap) {
                g->cap = g->cap ? 2 * g->cap : 64;
                g->dur = realloc(g->dur, g->cap * sizeof *g->dur);
                if (!g->dur)
                    return -1;
            }
            g->dur[g->ndur++] = (double)(r.call.end_ns - r.call.start_ns);
            if (r.call.seq >= g->seq)
                g->seq = r.call.seq + 1;
        }
    }
    close(fd);
    return 0;
}

static int member(const struct log *lg, uint64_t comm)
{
    unsigned i;
    for (i = 0; i < lg->ncomms; i++)
        if (lg->comms[i] == comm)
            return 1;
    return 0;
}

static int parse_at(const char *text, unsigned *who, unsigned *k, double *v)
{
    char *end;
    *who = (unsigned)strtoul(text, &end, 10);
    if (*end != '@')
        return -1;
    *k = (unsigned)strtoul(end + 1, &end, 10);
    if (*end != '=')
        return -1;
    *v = strtod(end + 1, &end);
    return *end == 0 || (*end == 's' && end[1] == 0) ? 0 : -1;
}

/* Rewrite the format-3 log at path (slots records, then aggregates) in
 * format 4: a header, an empty ring, the stream; before each aggregate
 * the run of its calls' folded slots. */
#define RING4 CP_LOG4_RING_MIN
#define STREAM4 ((CP_LOG_HEADER_SIZE + RING4 * (8 + CP_LOG_RECORD_SIZE) + 4095) / 4096 * 4096)
static int to_format4(const char *path)
{
    int fd = open(path, O_RDWR);
    struct cp_log_header h;
    struct cp_logenc enc;
    unsigned char *out = NULL, *blk = NULL;
    size_t used = 0, cap = 0, fill = 0;
    uint64_t slot = 0, first = 0, s, n3;
    uint32_t bslots = 0;
    union cp_rec r;
    int rc = -1;

    if (fd < 0 || pread(fd, &h, sizeof h, 0) != sizeof h)
        return -1;
    n3 = h.slots_used;
    cp_logenc_init(&enc, CP_LOGENC_DICT_DEFAULT, h.start_realtime_ns);
    blk = malloc(CP_LOG4_BLOCK_MAX);
    if (!blk)
        goto out;
#define CLOSE_BLOCK()                                                          \
    do {                                                                       \
        struct cp_log4_block b;                                                \
        if (!bslots)                                                           \
            break;                                                             \
        if (used + sizeof b + fill > cap) {                                    \
            cap = 2 * (used + sizeof b + fill) + 65536;                        \
            out = realloc(out, cap);                                           \
            if (!out)                                                          \
                goto out;                                                      \
        }                                                                      \
        b.magic = CP_LOG4_BLOCK_MAGIC;                                         \
        b.bytes = (uint32_t)fill;                                              \
        b.first_slot = first;                                                  \
        b.slots = bslots;                                                      \
        b.sum = cp_log4_sum(blk, fill);                                        \
        memcpy(out + used, &b, sizeof b);                                      \
        memcpy(out + used + sizeof b, blk, fill);                              \
        used += sizeof b + fill;                                               \
        fill = 0;                                                              \
        bslots = 0;                                                            \
    } while (0)
    for (s = 0; s < n3; s++) {
        unsigned char op[CP_LOGENC_MAX + 16];
        size_t len = 0, k;
        uint64_t folded = 0;
        if (pread(fd, &r, sizeof r, CP_LOG_HEADER_SIZE + s * sizeof r) !=
            sizeof r)
            goto out;
        if (r.kind == CP_REC_EMPTY)
            continue;
        if (r.kind == CP_REC_AGG) {
            folded = r.agg.calls;
            len = cp_logenc_fold(folded, op);
        }
        if (sizeof(struct cp_log4_block) + fill + len + CP_LOGENC_MAX >
            CP_LOG4_BLOCK_MAX)
            CLOSE_BLOCK();
        if (!bslots)
            first = slot;
        memcpy(blk + fill, op, len);
        fill += len;
        bslots += (uint32_t)folded; /* a run's slots, each */
        slot += folded;
        k = cp_logenc_rec(&enc, &r, slot, op);
        memcpy(blk + fill, op, k);
        fill += k;
        bslots++;
        slot++;
    }
    CLOSE_BLOCK();
#undef CLOSE_BLOCK
    h.version = CP_LOG_VERSION;
    h.chunk_records = 0;
    h.ring_slots = RING4;
    h.dict_slots = CP_LOGENC_DICT_DEFAULT;
    h.ring_offset = CP_LOG_HEADER_SIZE;
    h.stream_offset = STREAM4;
    h.stream_end = used;
    h.stream_slots = slot;
    h.slots_used = slot;
    h.sync_bytes = 0;
    h.flags &= ~CP_HDR_SYNC;
    if (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)(STREAM4 + used)) < 0 ||
        pwrite(fd, &h, sizeof h, 0) != sizeof h ||
        (used && pwrite(fd, out, used, STREAM4) != (ssize_t)used))
        goto out;
    rc = 0;
out:
    cp_logenc_free(&enc);
    free(out);
    free(blk);
    close(fd);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned intervals = 48, calls = 200, i, k, s;
    double interval_s = 60;
    int slow_comm = -1, straggler = -1, format = 3;
    unsigned slow_k = 0, strag_k = 0;
    double slow_f = 1, strag_t = 0;
    const char *dir = NULL;
    DIR *d;
    struct dirent *e;
    uint64_t last_end = 0, interval_ns, k0;
    int a;

    for (a = 1; a < argc; a++) {
        unsigned who, at;
        double v;
        if (!strcmp(argv[a], "--intervals") && a + 1 < argc)
            intervals = (unsigned)atoi(argv[++a]);
        else if (!strcmp(argv[a], "--interval") && a + 1 < argc)
            interval_s = atof(argv[++a]);
        else if (!strcmp(argv[a], "--format") && a + 1 < argc)
            format = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--calls") && a + 1 < argc)
            calls = (unsigned)atoi(argv[++a]);
        else if (!strcmp(argv[a], "--policy") && a + 1 < argc &&
                 sscanf(argv[a + 1], "%u,%u,%u", &pol_first, &pol_window,
                        &pol_every) == 3 && pol_window <= pol_every) {
            a++;
        } else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
            seed = strtoull(argv[++a], NULL, 10) * 0x9e3779b97f4a7c15ULL;
        else if (!strcmp(argv[a], "--slow") && a + 1 < argc &&
                 parse_at(argv[++a], &who, &at, &v) == 0) {
            slow_comm = (int)who;
            slow_k = at;
            slow_f = v;
        } else if (!strcmp(argv[a], "--straggler") && a + 1 < argc &&
                   parse_at(argv[++a], &who, &at, &v) == 0) {
            straggler = (int)who;
            strag_k = at;
            strag_t = v;
        } else if (argv[a][0] != '-' && !dir)
            dir = argv[a];
        else {
            fprintf(stderr, "agg_logs: bad argument %s\n", argv[a]);
            return 1;
        }
    }
    if (!dir || intervals == 0 || calls == 0 || !(interval_s >= 0.001)) {
        fprintf(stderr, "usage: agg_logs DIR [--intervals N] [--interval S] "
                        "[--calls N] [--slow COMM@K=F] [--straggler R@K=T] "
                        "[--seed S] [--format 4] [--policy F,W,E]\n");
        return 1;
    }
    d = opendir(dir);
    if (!d) {
        fprintf(stderr, "agg_logs: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 7 || strcmp(e->d_name + n - 6, ".cplog") || nlogs == MAX_LOGS)
            continue;
        snprintf(logs[nlogs].path, sizeof logs[nlogs].path, "%s/%s", dir,
                 e->d_name);
        nlogs++;
    }
    closedir(d);
    for (i = 0; i < nlogs; i++)
        if (read_log(&logs[i]) < 0)
            return 1;
    qsort(logs, nlogs, sizeof *logs, by_path);
    if (!nlogs || !nsigs) {
        fprintf(stderr, "agg_logs: %s: no logs or no collectives\n", dir);
        return 1;
    }
    for (s = 0; s < nsigs; s++) {
        qsort(sigs[s].dur, sigs[s].ndur, sizeof *sigs[s].dur, dcmp);
        sigs[s].own = sigs[s].dur[sigs[s].ndur / 4];
    }
    for (i = 0; i < nlogs; i++)
        if (logs[i].h.end_realtime_ns > last_end)
            last_end = logs[i].h.end_realtime_ns;
    interval_ns = (uint64_t)llround(interval_s * 1e9);
    k0 = last_end / interval_ns + 1;
    printf("first_interval_ns %llu\ninterval_ns %llu\n",
           (unsigned long long)(k0 * interval_ns),
           (unsigned long long)interval_ns);
    if (slow_comm >= 0 && (unsigned)slow_comm < logs[0].ncomms)
        printf("slow_comm %016llx\n",
               (unsigned long long)logs[0].comms[slow_comm]);
    for (i = 0; i < nlogs; i++) {
        struct log *lg = &logs[i];
        int fd = open(lg->path, O_RDWR);
        uint64_t slot = lg->h.slots_used;
        if (fd < 0)
            return 1;
        for (k = 0; k < intervals; k++) {
            for (s = 0; s < nsigs; s++) {
                struct sig *g = &sigs[s];
                unsigned ci, j, me = 0;
                double own, arr_max = 0, mine = 0, mean;
                union cp_rec r;
                if (!member(lg, g->comm))
                    continue;
                for (ci = 0; ci < logs[0].ncomms; ci++)
                    if (logs[0].comms[ci] == g->comm)
                        break;
                /* the same draws on every rank: one generator per
                 * (interval, signature) */
                rng = 88172645463325252ULL ^ seed ^ ((uint64_t)(k + 1) << 20) ^
                      (uint64_t)(s + 1) * 0x9e3779b97f4a7c15ULL;
                own = g->own * (1 + 0.02 * normal());
                if ((int)ci == slow_comm && k >= slow_k)
                    own *= slow_f;
                /* each member's arrival, in rank order */
                for (j = 0; j < nlogs; j++) {
                    double arr;
                    if (!member(&logs[j], g->comm))
                        continue;
                    /* a rank's mean arrival over the interval's calls:
                     * steady, a little apart from the others' */
                    arr = (0.02 + 0.01 * uniform()) * g->own;
                    if ((int)logs[j].h.global_rank == straggler &&
                        k >= strag_k)
                        arr += strag_t * 1e9;
                    if (arr > arr_max)
                        arr_max = arr;
                    if (j == i) {
                        mine = arr;
                        me = 1;
                    }
                }
                if (!me)
                    continue;
                mean = own + (arr_max - mine);
                memset(&r, 0, sizeof r);
                r.agg.kind = CP_REC_AGG;
                r.agg.op = g->op;
                r.agg.dtype = g->dtype;
                r.agg.redop = g->redop;
                r.agg.peer = -1;
                r.agg.comm_id = g->comm;
                r.agg.count = g->count;
                r.agg.calls = calls;
                r.agg.seq_first = g->seq + k * calls;
                r.agg.seq_last = r.agg.seq_first + calls - 1;
                r.agg.dur_q[0] = cp_q16_encode((uint64_t)(mean * 0.9));
                r.agg.dur_q[1] = cp_q16_encode((uint64_t)mean);
                r.agg.dur_q[2] = cp_q16_encode((uint64_t)(mean * 1.3));
                r.agg.dur_q[3] = cp_q16_encode((uint64_t)(mean * 1.6));
                r.agg.interval_ms = (uint32_t)(interval_ns / 1000000);
                r.agg.first_ns = (k0 + k) * interval_ns + 1000000 + mine;
                r.agg.sum_ns = (uint64_t)(mean * calls);
                if (pwrite(fd, &r, sizeof r,
                           CP_LOG_HEADER_SIZE + slot * sizeof r) != sizeof r)
                    return 1;
                slot++;
            }
        }
        lg->h.slots_used = slot;
        lg->h.flags |= CP_HDR_POLICY;
        lg->h.policy_first = pol_first;
        lg->h.policy_window = pol_window;
        lg->h.policy_every = pol_every;
        lg->h.policy_interval_ms = (uint32_t)(interval_ns / 1000000);
        lg->h.end_realtime_ns = (k0 + intervals) * interval_ns + 2000000;
        if (pwrite(fd, &lg->h, sizeof lg->h, 0) != sizeof lg->h)
            return 1;
        close(fd);
        if (format == 4 && to_format4(lg->path) < 0) {
            fprintf(stderr, "agg_logs: %s: cannot rewrite in format 4\n",
                    lg->path);
            return 1;
        }
    }
    return 0;
}
