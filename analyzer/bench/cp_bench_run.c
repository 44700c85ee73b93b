/* cp_bench_run.c - one rank of collprof bench (see cp_bench_run.h). */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <collprof/cp_nccl.h>

#include "cp_bench_run.h"
#include "cp_ncclrt.h"
#include "cp_stats.h"

/* ---- the state of one rank ------------------------------------------------- */

struct bench {
    const struct cp_bench_run_opts *o;
    struct cp_bench_run_info *info;
    struct cp_bench_set *set;
    struct cp_error *err;
    struct cp_ncclrt rt;
    int me, p;
    char *send, *recv; /* max_bytes each, host or device */
    char *stage;       /* device mode: host copy for fills and checks */
    unsigned *node_of; /* node index of each rank */
    double rank_sum;   /* sum over ranks of the rank term of the inputs */
};

/* ---- values ------------------------------------------------------------------ */

/* Small integers: a sum over 2^16 ranks stays exact in float. */
static float value(int rank, uint64_t i)
{
    return (float)((i % 13) + ((unsigned long long)rank * 7 % 251));
}

static float sum_value(const struct bench *b, uint64_t i)
{
    return (float)((double)b->p * (double)(i % 13) + b->rank_sum);
}

/* Where an op's input and output are, and what it is called with. */
struct layout {
    char *in;        /* input region (in the send or recv buffer) */
    uint64_t in_n;   /* elements */
    char *out;       /* output region checked */
    uint64_t out_n;  /* elements; 0: nothing checked on this rank */
    const void *sendbuff;
    void *recvbuff;
    int checkable;   /* 0: N/A */
    int peer;        /* send/recv: to whom (-1: not participating) */
    int from;        /* send/recv: from whom */
};

static void make_layout(const struct bench *b, enum cp_coll coll,
                        uint64_t count, int in_place, const int *pair,
                        struct layout *l)
{
    const int p = b->p, me = b->me;
    char *buf = b->recv;
    const uint64_t chunk = count * sizeof(float);
    uint64_t in_n = count, out_n = count;
    char *send = in_place ? buf : b->send, *recv = buf;

    memset(l, 0, sizeof *l);
    l->checkable = 1;
    l->peer = l->from = -1;
    switch (coll) {
    case CP_COLL_REDUCESCATTER:
        in_n = count * (uint64_t)p;
        if (in_place)
            recv = buf + (uint64_t)me * chunk;
        break;
    case CP_COLL_ALLGATHER:
    case CP_COLL_GATHER:
        out_n = count * (uint64_t)p;
        if (in_place)
            send = buf + (uint64_t)me * chunk;
        if (coll == CP_COLL_GATHER && me != 0)
            out_n = 0;
        break;
    case CP_COLL_ALLTOALL:
        in_n = out_n = count * (uint64_t)p;
        if (in_place)
            l->checkable = 0;
        break;
    case CP_COLL_SCATTER:
        in_n = count * (uint64_t)p;
        if (in_place)
            recv = buf + (uint64_t)me * chunk;
        break;
    case CP_COLL_REDUCE:
        if (me != 0)
            out_n = 0;
        break;
    case CP_COLL_SENDRECV:
        if (pair) {
            if (me == pair[0] || me == pair[1]) {
                l->peer = l->from = me == pair[0] ? pair[1] : pair[0];
            } else {
                in_n = out_n = 0;
            }
        } else {
            l->peer = (me + 1) % p;
            l->from = (me + p - 1) % p;
        }
        if (in_place)
            l->checkable = 0;
        break;
    default:
        break;
    }
    l->in = send;
    l->in_n = in_n;
    l->out = recv;
    l->out_n = out_n;
    l->sendbuff = send;
    l->recvbuff = recv;
}

/* The value that output element j of coll must hold on this rank. */
static float expected(const struct bench *b, enum cp_coll coll,
                      uint64_t count, const struct layout *l, uint64_t j)
{
    switch (coll) {
    case CP_COLL_ALLREDUCE:
    case CP_COLL_REDUCE:
        return sum_value(b, j);
    case CP_COLL_BROADCAST:
        return value(0, j);
    case CP_COLL_REDUCESCATTER:
        return sum_value(b, (uint64_t)b->me * count + j);
    case CP_COLL_ALLGATHER:
    case CP_COLL_GATHER:
        return value((int)(j / count), j % count);
    case CP_COLL_ALLTOALL:
        return value((int)(j / count), (uint64_t)b->me * count + j % count);
    case CP_COLL_SCATTER:
        return value(0, (uint64_t)b->me * count + j);
    case CP_COLL_SENDRECV:
        return value(l->from, j);
    default:
        return NAN;
    }
}

static int fill_inputs(struct bench *b, const struct layout *l)
{
    float *host = b->rt.device ? (float *)b->stage : (float *)l->in;
    uint64_t j;

    for (j = 0; j < l->in_n; j++)
        host[j] = value(b->me, j);
    if (b->rt.device && l->in_n)
        return cp_ncclrt_to_buffer(&b->rt, l->in, host, l->in_n * sizeof(float));
    return 0;
}

/* NaN in every output element, so that one never written is wrong. */
static int poison_outputs(struct bench *b, const struct layout *l)
{
    int r;

    if (!l->out_n)
        return 0;
    if (!b->rt.device) {
        memset(l->out, 0xff, l->out_n * sizeof(float));
        return 0;
    }
    r = b->rt.cuda.cudaMemset(l->out, 0xff, l->out_n * sizeof(float));
    return r ? cp_ncclrt_cuda_ok(&b->rt, r, "cudaMemset") : 0;
}

static int check_outputs(struct bench *b, enum cp_coll coll, uint64_t count,
                         const struct layout *l, int corrupt,
                         int64_t *wrong)
{
    float *out = b->rt.device ? (float *)b->stage : (float *)l->out;
    uint64_t j;

    *wrong = 0;
    if (!l->out_n)
        return 0;
    if (b->rt.device &&
        cp_ncclrt_from_buffer(&b->rt, out, l->out, l->out_n * sizeof(float)) < 0)
        return -1;
    if (corrupt)
        out[0] += 1; /* testing: one wrong element */
    for (j = 0; j < l->out_n; j++)
        if (!(out[j] == expected(b, coll, count, l, j)))
            (*wrong)++;
    return 0;
}

/* ---- the calls ----------------------------------------------------------------- */

static int call_p2p_group(struct bench *b, enum cp_coll coll, uint64_t count,
                          const struct layout *l)
{
    const struct cp_ncclrt_nccl *n = &b->rt.nccl;
    const size_t chunk = count * sizeof(float);
    const char *send = l->sendbuff;
    char *recv = l->recvbuff;
    int q;

    if (cp_ncclrt_nccl_ok(&b->rt, n->ncclGroupStart(), "ncclGroupStart") < 0)
        return -1;
    switch (coll) {
    case CP_COLL_ALLTOALL:
        for (q = 0; q < b->p; q++) {
            if (cp_ncclrt_nccl_ok(&b->rt,
                     n->ncclSend(send + (size_t)q * chunk, count, ncclFloat32,
                                 q, b->rt.comm, b->rt.stream),
                     "ncclSend") < 0)
                return -1;
            if (cp_ncclrt_nccl_ok(&b->rt,
                     n->ncclRecv(recv + (size_t)q * chunk, count, ncclFloat32,
                                 q, b->rt.comm, b->rt.stream),
                     "ncclRecv") < 0)
                return -1;
        }
        break;
    case CP_COLL_GATHER:
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclSend(send, count, ncclFloat32, 0, b->rt.comm, b->rt.stream),
                 "ncclSend") < 0)
            return -1;
        if (b->me == 0)
            for (q = 0; q < b->p; q++)
                if (cp_ncclrt_nccl_ok(&b->rt,
                         n->ncclRecv(recv + (size_t)q * chunk, count,
                                     ncclFloat32, q, b->rt.comm, b->rt.stream),
                         "ncclRecv") < 0)
                    return -1;
        break;
    case CP_COLL_SCATTER:
        if (b->me == 0)
            for (q = 0; q < b->p; q++)
                if (cp_ncclrt_nccl_ok(&b->rt,
                         n->ncclSend(send + (size_t)q * chunk, count,
                                     ncclFloat32, q, b->rt.comm, b->rt.stream),
                         "ncclSend") < 0)
                    return -1;
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclRecv(recv, count, ncclFloat32, 0, b->rt.comm, b->rt.stream),
                 "ncclRecv") < 0)
            return -1;
        break;
    default: /* send/recv */
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclSend(send, count, ncclFloat32, l->peer, b->rt.comm,
                             b->rt.stream),
                 "ncclSend") < 0)
            return -1;
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclRecv(recv, count, ncclFloat32, l->from, b->rt.comm,
                             b->rt.stream),
                 "ncclRecv") < 0)
            return -1;
        break;
    }
    if (cp_ncclrt_nccl_ok(&b->rt, n->ncclGroupEnd(), "ncclGroupEnd") < 0)
        return -1;
    return 0;
}

static int call_op(struct bench *b, enum cp_coll coll, uint64_t count,
                   const struct layout *l)
{
    const struct cp_ncclrt_nccl *n = &b->rt.nccl;
    const void *s = l->sendbuff;
    void *r = l->recvbuff;

    switch (coll) {
    case CP_COLL_ALLREDUCE:
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclAllReduce(s, r, count, ncclFloat32, ncclSum, b->rt.comm,
                                  b->rt.stream),
                 "ncclAllReduce") < 0)
            return -1;
        return 0;
    case CP_COLL_BROADCAST:
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclBroadcast(s, r, count, ncclFloat32, 0, b->rt.comm,
                                  b->rt.stream),
                 "ncclBroadcast") < 0)
            return -1;
        return 0;
    case CP_COLL_REDUCE:
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclReduce(s, r, count, ncclFloat32, ncclSum, 0, b->rt.comm,
                               b->rt.stream),
                 "ncclReduce") < 0)
            return -1;
        return 0;
    case CP_COLL_REDUCESCATTER:
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclReduceScatter(s, r, count, ncclFloat32, ncclSum,
                                      b->rt.comm, b->rt.stream),
                 "ncclReduceScatter") < 0)
            return -1;
        return 0;
    case CP_COLL_ALLGATHER:
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclAllGather(s, r, count, ncclFloat32, b->rt.comm,
                                  b->rt.stream),
                 "ncclAllGather") < 0)
            return -1;
        return 0;
    case CP_COLL_ALLTOALL:
        if (!n->ncclAlltoAll)
            return call_p2p_group(b, coll, count, l);
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclAlltoAll(s, r, count, ncclFloat32, b->rt.comm, b->rt.stream),
                 "ncclAlltoAll") < 0)
            return -1;
        return 0;
    case CP_COLL_GATHER:
        if (!n->ncclGather)
            return call_p2p_group(b, coll, count, l);
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclGather(s, r, count, ncclFloat32, 0, b->rt.comm,
                               b->rt.stream),
                 "ncclGather") < 0)
            return -1;
        return 0;
    case CP_COLL_SCATTER:
        if (!n->ncclScatter)
            return call_p2p_group(b, coll, count, l);
        if (cp_ncclrt_nccl_ok(&b->rt,
                 n->ncclScatter(s, r, count, ncclFloat32, 0, b->rt.comm,
                                b->rt.stream),
                 "ncclScatter") < 0)
            return -1;
        return 0;
    case CP_COLL_SENDRECV:
        if (l->peer < 0)
            return 0; /* not in this pair */
        return call_p2p_group(b, coll, count, l);
    default:
        return cp_errorf(b->err, "no such collective");
    }
}

/* The times of one batch of calls, per call (NaN: not measured). */
struct batch_time {
    double host_s;   /* host clock around the calls and the synchronization */
    double median_s; /* the median single call (host buffers only) */
    double gpu_s;    /* CUDA events around the calls (with gpu) */
};

#define MEDIAN_CALLS 256 /* calls whose single times are kept */

/* n calls, then a synchronization, as nccl-tests times them; with gpu the
 * GPU timer's events are recorded before the first call and after the
 * last, inside the host interval.  With host buffers a call returns when
 * it is done, so each call's own time is the clock between the ends of
 * consecutive calls: their median does not move when another job on the
 * machine delays a few calls (the next call of the ring then finds its
 * data waiting and is as much shorter, so a minimum would be biased low). */
static int timed_calls(struct bench *b, enum cp_coll coll, uint64_t count,
                       const struct layout *l, unsigned n, int gpu,
                       struct batch_time *t)
{
    double calls[MEDIAN_CALLS], t0, prev, now;
    unsigned kept = 0;

    t->host_s = t->median_s = t->gpu_s = NAN;
    t0 = prev = cp_ncclrt_now_s();
    if (gpu && cp_ncclrt_gpu_mark(&b->rt, 0) < 0)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        if (call_op(b, coll, count, l) < 0)
            return -1;
        if (!b->rt.device && kept < MEDIAN_CALLS) {
            now = cp_ncclrt_now_s();
            calls[kept++] = now - prev;
            prev = now;
        }
    }
    if (gpu && cp_ncclrt_gpu_mark(&b->rt, 1) < 0)
        return -1;
    if (cp_ncclrt_sync(&b->rt) < 0)
        return -1;
    now = cp_ncclrt_now_s();
    if (n == 0)
        return 0;
    t->host_s = (now - t0) / n;
    t->median_s = cp_stats_median(calls, kept); /* NaN when none was kept */
    if (gpu) {
        double elapsed;
        if (cp_ncclrt_gpu_elapsed(&b->rt, &elapsed) < 0)
            return -1;
        t->gpu_s = elapsed / n;
    }
    return 0;
}

/* One point: check, warm up, time.  *check_s: the agreed time of the
 * checked call. */
static int measure(struct bench *b, enum cp_coll coll, uint64_t count,
                   int in_place, const int *pair, struct cp_bench_point *pt,
                   double *check_s)
{
    const struct cp_bench_run_opts *o = b->o;
    struct layout l;
    struct batch_time t = {0, 0, 0};
    double v[5];
    int64_t wrong = 0;
    int participates, checked, gpu = b->rt.gpu_timer;
    unsigned iters, warmup;

    make_layout(b, coll, count, in_place, pair, &l);
    participates = coll != CP_COLL_SENDRECV || l.peer >= 0;
    checked = o->check && l.checkable;
    if (participates) {
        if (fill_inputs(b, &l) < 0)
            return -1;
        if (checked && !in_place && poison_outputs(b, &l) < 0)
            return -1;
        if (timed_calls(b, coll, count, &l, 1, 0, &t) < 0)
            return -1;
        if (checked &&
            check_outputs(b, coll, count, &l,
                          !in_place && (int)coll == o->corrupt_coll &&
                              b->me == o->corrupt_rank,
                          &wrong) < 0)
            return -1;
    }
    v[0] = participates ? t.host_s : 0;
    v[1] = (double)wrong;
    v[2] = participates;
    if (cp_ncclrt_sum(&b->rt, v, 3) < 0)
        return -1;
    *check_s = v[2] > 0 ? v[0] / v[2] : 0;
    wrong = (int64_t)llround(v[1]);
    if (o->iters) {
        iters = o->iters;
        warmup = o->warmup;
    } else {
        unsigned least = o->min_iters ? o->min_iters : 1;
        double want = *check_s > 0 ? o->point_time_s / *check_s : o->max_iters;
        iters = want >= o->max_iters ? o->max_iters
                : want < least       ? least
                                     : (unsigned)want;
        if (iters < least)
            iters = least;
        warmup = o->warmup < iters ? o->warmup : iters;
    }
    if (participates && warmup &&
        timed_calls(b, coll, count, &l, warmup, 0, &t) < 0)
        return -1;
    if (cp_ncclrt_barrier(&b->rt) < 0)
        return -1;
    if (participates && timed_calls(b, coll, count, &l, iters, gpu, &t) < 0)
        return -1;
    /* Sums over the ranks that took part: host time, count, median call,
     * GPU time and how many measured each (a rank without a value adds 0). */
    v[0] = participates ? t.host_s : 0;
    v[1] = participates;
    v[2] = participates && isfinite(t.median_s) ? t.median_s : 0;
    v[3] = participates && isfinite(t.gpu_s) ? t.gpu_s : 0;
    v[4] = participates && isfinite(t.median_s) ? 1 : 0;
    if (cp_ncclrt_sum(&b->rt, v, 5) < 0)
        return -1;

    memset(pt, 0, sizeof *pt);
    pt->coll = coll;
    pt->ranks = pair ? 2 : (unsigned)b->p;
    pt->size_bytes = cp_bench_size(coll, count, sizeof(float), (unsigned)b->p);
    pt->count = count;
    pt->root = cp_model_coll_facts(coll)->rooted ? 0 : -1;
    pt->in_place = in_place;
    pt->time_s = v[1] > 0 ? v[0] / v[1] : NAN;
    /* Only when every participant measured it (the ranks agree on the GPU
     * timer; host buffers give every participant a median call). */
    pt->median_time_s = v[1] > 0 && v[4] == v[1] ? v[2] / v[1] : NAN;
    pt->gpu_time_s = v[1] > 0 && gpu ? v[3] / v[1] : NAN;
    pt->wrong = checked ? wrong : -1;
    pt->iters = iters;
    return 0;
}

/* ---- setting up ------------------------------------------------------------- */

/* Every rank's node name; node_of[r] numbers the distinct names in rank
 * order. */
static int exchange_nodes(struct bench *b)
{
    const size_t width = CP_NCCLRT_NODE_NAME;
    char *names = calloc((size_t)b->p, width);
    unsigned nnodes = 0;
    int r, q, rc = -1;

    b->node_of = calloc((size_t)b->p, sizeof *b->node_of);
    if (!names || !b->node_of) {
        cp_error_set(b->err, NULL, -1, "rank %d: out of memory", b->me);
        goto out;
    }
    if (cp_ncclrt_gather_names(&b->rt, b->info->node, names) < 0)
        goto out;
    for (r = 0; r < b->p; r++) {
        for (q = 0; q < r; q++)
            if (strcmp(names + (size_t)q * width, names + (size_t)r * width) ==
                0)
                break;
        b->node_of[r] = q < r ? b->node_of[q] : nnodes++;
    }
    b->info->nnodes = nnodes;
    rc = 0;
out:
    free(names);
    return rc;
}

/* The largest size every rank can hold in two buffers. */
static int memory_bound(struct bench *b, uint64_t *bound)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page
                                          : (uint64_t)8 << 30;
    uint64_t on_node = 0, per_buffer;
    int r;

    for (r = 0; r < b->p; r++)
        on_node += b->node_of[r] == b->node_of[b->me];
    per_buffer = b->o->memory_limit ? b->o->memory_limit / 2
                                    : phys / 4 / (on_node ? on_node : 1) / 2;
    if (b->rt.device) {
        size_t free_bytes = 0, total = 0;
        if (cp_ncclrt_cuda_ok(&b->rt,
                              b->rt.cuda.cudaMemGetInfo(&free_bytes, &total),
                              "cudaMemGetInfo") < 0)
            return -1;
        if (free_bytes / 3 < per_buffer)
            per_buffer = free_bytes / 3;
    }
    *bound = per_buffer < b->o->max_bytes ? per_buffer : b->o->max_bytes;
    return cp_ncclrt_min_u64(&b->rt, bound);
}

static uint64_t next_size(uint64_t size, double factor)
{
    double next = (double)size * factor;
    if (next >= 1.8e19)
        return UINT64_MAX;
    return (uint64_t)next > size ? (uint64_t)next : size + 1;
}

/* The two ranks of the first node that has two, and rank 0 with the first
 * rank of another node. */
static void choose_pairs(struct bench *b)
{
    struct cp_bench_run_info *info = b->info;
    unsigned node;
    int r, q;

    info->intra_pair[0] = info->intra_pair[1] = -1;
    info->inter_pair[0] = info->inter_pair[1] = -1;
    for (node = 0; node < info->nnodes && info->intra_pair[0] < 0; node++) {
        int first = -1;
        for (r = 0; r < b->p; r++) {
            if (b->node_of[r] != node)
                continue;
            if (first < 0) {
                first = r;
                continue;
            }
            info->intra_pair[0] = first;
            info->intra_pair[1] = r;
            break;
        }
    }
    for (q = 1; q < b->p; q++)
        if (b->node_of[q] != b->node_of[0]) {
            info->inter_pair[0] = 0;
            info->inter_pair[1] = q;
            break;
        }
}

/* ---- the sweep ---------------------------------------------------------------- */

static int sweep(struct bench *b, enum cp_coll coll, const int *pair,
                 int link, uint64_t max_bytes)
{
    const struct cp_bench_run_opts *o = b->o;
    struct cp_bench_series s;
    char note[256] = "";
    unsigned index;
    uint64_t size;
    int is_root = b->me == 0;

    memset(&s, 0, sizeof s);
    s.coll = coll;
    s.ranks = pair ? 2 : (unsigned)b->p;
    s.nodes = pair ? (b->node_of[pair[0]] == b->node_of[pair[1]] ? 1 : 2)
                   : b->info->nnodes;
    s.link = link;
    s.pair = pair != NULL;
    if (pair) {
        s.peers[0] = pair[0];
        s.peers[1] = pair[1];
    }
    snprintf(s.type, sizeof s.type, "float");
    if (cp_bench_set_add_series(b->set, &s, &index) < 0) {
        return cp_errorf(b->err, "rank %d: out of memory", b->me);
    }
    if (is_root && o->on_section)
        o->on_section(o->ctx, &s);
    for (size = o->min_bytes; size <= max_bytes;
         size = next_size(size, o->step_factor)) {
        struct cp_bench_point pt[2];
        double check[2] = {0, 0};
        uint64_t count = cp_bench_count(coll, size, sizeof(float),
                                        pair ? 2u : (unsigned)b->p);
        if (count == 0)
            continue;
        for (int k = 0; k < 2; k++) {
            if (measure(b, coll, count, k, pair, &pt[k], &check[k]) < 0)
                return -1;
            pt[k].series = index;
            cp_bench_point_bandwidths(&pt[k]);
            if (cp_bench_set_add_point(b->set, &pt[k]) < 0) {
                return cp_errorf(b->err, "rank %d: out of memory",
                                 b->me);
            }
        }
        if (is_root && o->on_line)
            o->on_line(o->ctx, &pt[0], &pt[1]);
        if (fmax(check[0], check[1]) > o->call_limit_s &&
            next_size(size, o->step_factor) <= max_bytes) {
            snprintf(note, sizeof note,
                     "larger sizes skipped: one call of %llu bytes took "
                     "%.3g s (--call-limit %g s)",
                     (unsigned long long)pt[0].size_bytes,
                     fmax(check[0], check[1]), o->call_limit_s);
            break;
        }
        if (size == UINT64_MAX)
            break;
    }
    if (is_root && o->on_section_end)
        o->on_section_end(o->ctx, &s, note[0] ? note : NULL);
    return 0;
}

void cp_bench_run_defaults(struct cp_bench_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->memory = CP_BENCH_MEMORY_AUTO;
    o->min_bytes = 4;
    o->max_bytes = (uint64_t)1 << 30;
    o->step_factor = 2;
    o->ops = (1u << CP_COLL_COUNT) - 1;
    o->warmup = 5;
    o->max_iters = 20;
    o->min_iters = 3;
    o->gpu_timer = 1;
    o->point_time_s = 0.2;
    o->call_limit_s = 1.0;
    o->check = 1;
    o->pairs = 1;
    o->id_timeout_s = 120;
    o->corrupt_coll = -1;
}

/* This rank's place in the job, and the rank term of the checks' sums,
 * which stay exact in float up to 65536 ranks. */
static int learn_ranks(struct bench *b, const struct cp_ncclrt_who *who)
{
    struct cp_bench_run_info *info = b->info;

    info->rank = who->rank;
    info->nranks = who->nranks;
    info->local_rank = who->local_rank;
    snprintf(info->node, sizeof info->node, "%s", who->node);
    b->me = info->rank;
    b->p = info->nranks;
    for (int r = 0; r < b->p && r < 65536; r++)
        b->rank_sum += (double)((unsigned long long)r * 7 % 251);
    if (b->p > 65536) {
        return cp_errorf(b->err,
                         "%d ranks: the checks' sums would not stay exact in "
                         "float beyond 65536 ranks",
                         b->p);
    }
    return 0;
}

/* What the opened runtime gives: buffers, NCCL and its entry points, the
 * timer. */
static void describe_runtime(struct bench *b)
{
    struct cp_bench_run_info *info = b->info;

    info->device = b->rt.device;
    info->nccl_version = b->rt.nccl_version;
    snprintf(info->nccl_path, sizeof info->nccl_path, "%s", b->rt.nccl_path);
    info->fallback_p2p = !b->rt.nccl.ncclAlltoAll || !b->rt.nccl.ncclGather ||
                         !b->rt.nccl.ncclScatter;
    info->gpu_timer = b->rt.gpu_timer;
    snprintf(info->timer_reason, sizeof info->timer_reason, "%s",
             b->rt.gpu_timer_why[0] ? b->rt.gpu_timer_why
                                    : "the GPU timer is off");
}

/* The largest size of the sweep: the last step from min_bytes that every
 * rank's memory holds. */
static int largest_size(struct bench *b, uint64_t *top)
{
    const struct cp_bench_run_opts *o = b->o;
    uint64_t bound = 0;

    if (memory_bound(b, &bound) < 0)
        return -1;
    if (bound < o->min_bytes) {
        return cp_errorf(b->err,
                         "not enough memory for the smallest size (%llu bytes "
                         "per buffer available)",
                         (unsigned long long)bound);
    }
    *top = o->min_bytes;
    while (next_size(*top, o->step_factor) <= bound && *top != UINT64_MAX)
        *top = next_size(*top, o->step_factor);
    return 0;
}

/* The send and receive buffers of bytes each, and with device buffers the
 * host copy that fills and checks them. */
static int allocate_buffers(struct bench *b, size_t bytes)
{
    if (cp_ncclrt_alloc(&b->rt, bytes, b->rt.device, (void **)&b->send) < 0 ||
        cp_ncclrt_alloc(&b->rt, bytes, b->rt.device, (void **)&b->recv) < 0)
        return -1;
    if (b->rt.device &&
        cp_ncclrt_alloc(&b->rt, bytes, 0, (void **)&b->stage) < 0)
        return -1;
    return 0;
}

/* The collectives asked for, on every rank: the ones the link fit prefers
 * first (struct cp_coll_facts, link_fit), then in the table's order. */
static int sweep_collectives(struct bench *b, uint64_t top)
{
    int world_link = b->info->nnodes > 1 ? CP_LINK_INTER : CP_LINK_INTRA;

    for (int rank = 2; rank >= 0; rank--) {
        for (int c = 0; c < CP_COLL_COUNT; c++) {
            if (cp_model_coll_facts((enum cp_coll)c)->link_fit == rank &&
                (b->o->ops & (1u << c)) &&
                sweep(b, (enum cp_coll)c, NULL, world_link, top) < 0)
                return -1;
        }
    }
    return 0;
}

/* send/recv between the two ranks of one node and between two nodes, when
 * --pairs asks for them and such ranks exist. */
static int sweep_pairs(struct bench *b, uint64_t top)
{
    const struct cp_bench_run_info *info = b->info;
    int pairs = b->o->pairs;

    if (!(pairs == 2 || (pairs == 1 && info->nnodes > 1)))
        return 0;
    if (info->intra_pair[0] >= 0 &&
        sweep(b, CP_COLL_SENDRECV, info->intra_pair, CP_LINK_INTRA, top) < 0)
        return -1;
    if (info->inter_pair[0] >= 0 &&
        sweep(b, CP_COLL_SENDRECV, info->inter_pair, CP_LINK_INTER, top) < 0)
        return -1;
    return 0;
}

int cp_bench_run(const struct cp_bench_run_opts *o, struct cp_bench_set *set,
                 struct cp_bench_run_info *info, struct cp_error *err)
{
    struct bench b;
    struct cp_ncclrt_who who;
    struct cp_ncclrt_opts ro = {.nccl_path = o->nccl_path,
                                .memory = (enum cp_ncclrt_memory)o->memory,
                                .id_dir = o->id_dir,
                                .id_timeout_s = o->id_timeout_s,
                                .id_tag = "bench",
                                .gpu_timer = o->gpu_timer};
    uint64_t top = 0;
    int rc = -1;

    memset(&b, 0, sizeof b);
    memset(info, 0, sizeof *info);
    info->intra_pair[0] = info->intra_pair[1] = -1;
    info->inter_pair[0] = info->inter_pair[1] = -1;
    b.o = o;
    b.info = info;
    b.set = set;
    b.err = err;
    if (cp_ncclrt_who(&who, err) < 0 || learn_ranks(&b, &who) < 0)
        goto out;
    if (cp_ncclrt_open(&b.rt, &ro, &who, err) < 0)
        goto out;
    describe_runtime(&b);
    if (exchange_nodes(&b) < 0 || largest_size(&b, &top) < 0)
        goto out;
    info->max_bytes = top;
    choose_pairs(&b);
    if (allocate_buffers(&b, top > 64 ? (size_t)top : 64) < 0)
        goto out;
    if (b.me == 0 && o->on_start)
        o->on_start(o->ctx, info);
    if (sweep_collectives(&b, top) < 0 || sweep_pairs(&b, top) < 0)
        goto out;
    rc = 0;
out:
    cp_ncclrt_close(&b.rt, rc == 0);
    cp_ncclrt_free(&b.rt, b.send, b.rt.device);
    cp_ncclrt_free(&b.rt, b.recv, b.rt.device);
    free(b.stage);
    free(b.node_of);
    return rc;
}
