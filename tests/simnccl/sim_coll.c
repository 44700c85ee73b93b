/* sim_coll.c - NCCL operations compiled into plan steps (see sim_coll.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "sim_coll.h"
#include "sim_comm.h"
#include "sim_dtype.h"
#include "sim_exec.h"

#define DEFAULT_PIECE_BYTES (1u << 20)

/* Index arithmetic on the ring, for any sign of k. */
static int ring(int k, int p)
{
    return ((k % p) + p) % p;
}

/* Part k of n elements cut into p nearly equal parts (the first n % p parts
 * one longer). */
static size_t part_offset(size_t n, int p, int k)
{
    size_t base = n / (size_t)p, extra = n % (size_t)p, uk = (size_t)k;
    return uk * base + (uk < extra ? uk : extra);
}

static size_t part_length(size_t n, int p, int k)
{
    return n / (size_t)p + ((size_t)k < n % (size_t)p ? 1 : 0);
}

/* Elements per pipeline piece of broadcast and reduce. */
static size_t piece_elements(size_t elem_size)
{
    const char *env = getenv("SIMNCCL_CHUNK_BYTES");
    size_t bytes = DEFAULT_PIECE_BYTES;

    if (env && *env) {
        long long v = atoll(env);
        if (v > 0)
            bytes = (size_t)v;
    }
    return bytes >= elem_size ? bytes / elem_size : 1;
}

/* Length of piece t of n elements cut into pieces of `piece` elements. */
static size_t piece_length(size_t n, size_t piece, size_t pieces, size_t t)
{
    return t + 1 < pieces ? piece : n - t * piece;
}

int sim_coll_is_p2p(enum sim_op_kind kind)
{
    return kind == SIM_OP_SEND || kind == SIM_OP_RECV;
}

/* Build context: the op's arguments as byte pointers. */
struct ctx {
    struct sim_plan *plan;
    const struct sim_op *op;
    int p, r;
    size_t es; /* element size */
    const char *send;
    char *recv;
};

static int build_allreduce(struct ctx *c)
{
    const size_t n = c->op->count, es = c->es;
    const int p = c->p, r = c->r, right = ring(r + 1, p), left = ring(r - 1, p);
    char *buf = c->recv, *tmp;
    int s, own;

    sim_plan_copy(c->plan, buf, c->send, n * es);
    if (p == 1)
        return 0;
    tmp = sim_plan_scratch(c->plan, part_length(n, p, 0) * es);
    if (!tmp)
        return -1;
    /* Reduce-scatter: after step s, chunk r-s-1 holds s+2 contributions;
     * after p-1 steps chunk r+1 holds them all. */
    for (s = 0; s < p - 1; s++) {
        int sc = ring(r - s, p), rc = ring(r - s - 1, p);
        sim_plan_send(c->plan, right, buf + part_offset(n, p, sc) * es,
                          part_length(n, p, sc) * es, 0);
        sim_plan_recv(c->plan, left, tmp, part_length(n, p, rc) * es, 0);
        sim_plan_wait(c->plan);
        sim_plan_reduce(c->plan, buf + part_offset(n, p, rc) * es,
                            buf + part_offset(n, p, rc) * es, tmp,
                            part_length(n, p, rc), c->op->datatype,
                            c->op->redop);
    }
    own = ring(r + 1, p);
    if (c->op->redop == ncclAvg)
        sim_plan_divide(c->plan, buf + part_offset(n, p, own) * es,
                            part_length(n, p, own), c->op->datatype, p);
    /* All-gather of the finished chunks around the same ring. */
    for (s = 0; s < p - 1; s++) {
        int sc = ring(r + 1 - s, p), rc = ring(r - s, p);
        sim_plan_send(c->plan, right, buf + part_offset(n, p, sc) * es,
                          part_length(n, p, sc) * es, 0);
        sim_plan_recv(c->plan, left, buf + part_offset(n, p, rc) * es,
                          part_length(n, p, rc) * es, 0);
        sim_plan_wait(c->plan);
    }
    return 0;
}

static int build_reducescatter(struct ctx *c)
{
    const size_t n = c->op->count, es = c->es, block = n * es;
    const int p = c->p, r = c->r, right = ring(r + 1, p), left = ring(r - 1, p);
    char *partial[2];
    const char *outgoing;
    int s;

    if (p == 1) {
        sim_plan_copy(c->plan, c->recv, c->send, block);
        return 0;
    }
    partial[0] = sim_plan_scratch(c->plan, block);
    partial[1] = sim_plan_scratch(c->plan, block);
    if (!partial[0] || !partial[1])
        return -1;
    /* Step s forwards block r-s-1 (own data at s = 0, then the partial sum
     * received the step before) and receives block r-s-2; the last block
     * received is r's own, finished with r's contribution into recvbuff. */
    outgoing = c->send + (size_t)ring(r - 1, p) * block;
    for (s = 0; s < p - 1; s++) {
        int rb = ring(r - s - 2, p);
        char *in = partial[s % 2];
        sim_plan_send(c->plan, right, outgoing, block, 0);
        sim_plan_recv(c->plan, left, in, block, 0);
        sim_plan_wait(c->plan);
        sim_plan_reduce(c->plan, s == p - 2 ? c->recv : in, in,
                            c->send + (size_t)rb * block, n, c->op->datatype,
                            c->op->redop);
        outgoing = in;
    }
    if (c->op->redop == ncclAvg)
        sim_plan_divide(c->plan, c->recv, n, c->op->datatype, p);
    return 0;
}

static int build_allgather(struct ctx *c)
{
    const size_t block = c->op->count * c->es;
    const int p = c->p, r = c->r, right = ring(r + 1, p), left = ring(r - 1, p);
    int s;

    sim_plan_copy(c->plan, c->recv + (size_t)r * block, c->send, block);
    for (s = 0; s < p - 1; s++) {
        sim_plan_send(c->plan, right,
                          c->recv + (size_t)ring(r - s, p) * block, block, 0);
        sim_plan_recv(c->plan, left,
                          c->recv + (size_t)ring(r - s - 1, p) * block, block,
                          0);
        sim_plan_wait(c->plan);
    }
    return 0;
}

static int build_broadcast(struct ctx *c)
{
    const size_t n = c->op->count, es = c->es, piece = piece_elements(es);
    const size_t pieces = (n + piece - 1) / piece;
    const int p = c->p, r = c->r, root = c->op->root;
    const int pos = ring(r - root, p), next = ring(r + 1, p),
              prev = ring(r - 1, p);
    size_t t;

    if (pos == 0) {
        sim_plan_copy(c->plan, c->recv, c->send, n * es);
        if (p == 1)
            return 0;
        for (t = 0; t < pieces; t++)
            sim_plan_send(c->plan, next, c->send + t * piece * es,
                              piece_length(n, piece, pieces, t) * es, 0);
        return sim_plan_wait(c->plan);
    }
    if (pos == p - 1) {
        for (t = 0; t < pieces; t++)
            sim_plan_recv(c->plan, prev, c->recv + t * piece * es,
                              piece_length(n, piece, pieces, t) * es, 0);
        return sim_plan_wait(c->plan);
    }
    /* Middle of the chain: take piece t while passing piece t-1 on. */
    for (t = 0; t <= pieces; t++) {
        if (t < pieces)
            sim_plan_recv(c->plan, prev, c->recv + t * piece * es,
                              piece_length(n, piece, pieces, t) * es, 0);
        if (t > 0)
            sim_plan_send(c->plan, next, c->recv + (t - 1) * piece * es,
                              piece_length(n, piece, pieces, t - 1) * es, 0);
        sim_plan_wait(c->plan);
    }
    return 0;
}

static int build_reduce(struct ctx *c)
{
    const size_t n = c->op->count, es = c->es, piece = piece_elements(es);
    const size_t pieces = (n + piece - 1) / piece;
    const int p = c->p, r = c->r, root = c->op->root;
    const int pos = ring(r - root - 1, p), next = ring(r + 1, p),
              prev = ring(r - 1, p);
    const ncclDataType_t dt = c->op->datatype;
    const ncclRedOp_t op = c->op->redop;
    char *partial[2];
    size_t t;

    if (p == 1)
        return sim_plan_copy(c->plan, c->recv, c->send, n * es);
    if (pos == 0) { /* head of the chain: root + 1 */
        for (t = 0; t < pieces; t++)
            sim_plan_send(c->plan, next, c->send + t * piece * es,
                              piece_length(n, piece, pieces, t) * es, 0);
        return sim_plan_wait(c->plan);
    }
    partial[0] = sim_plan_scratch(c->plan, piece * es);
    partial[1] = pos == p - 1 ? partial[0] : sim_plan_scratch(c->plan,
                                                              piece * es);
    if (!partial[0] || !partial[1])
        return -1;
    if (pos == p - 1) { /* the root ends the chain */
        for (t = 0; t < pieces; t++) {
            sim_plan_recv(c->plan, prev, partial[0], piece_length(n, piece, pieces, t) * es,
                              0);
            sim_plan_wait(c->plan);
            sim_plan_reduce(c->plan, c->recv + t * piece * es, partial[0],
                                c->send + t * piece * es, piece_length(n, piece, pieces, t), dt,
                                op);
        }
        if (op == ncclAvg)
            sim_plan_divide(c->plan, c->recv, n, dt, p);
        return 0;
    }
    /* Middle: receive piece t, add ours, pass it on during step t+1. */
    for (t = 0; t <= pieces; t++) {
        if (t < pieces)
            sim_plan_recv(c->plan, prev, partial[t % 2],
                              piece_length(n, piece, pieces, t) * es, 0);
        if (t > 0)
            sim_plan_send(c->plan, next, partial[(t - 1) % 2],
                              piece_length(n, piece, pieces, t - 1) * es, 0);
        sim_plan_wait(c->plan);
        if (t < pieces)
            sim_plan_reduce(c->plan, partial[t % 2], partial[t % 2],
                                c->send + t * piece * es, piece_length(n, piece, pieces, t), dt,
                                op);
    }
    return 0;
}

static int overlaps(const char *a, const char *b, size_t len)
{
    return len > 0 && a < b + len && b < a + len;
}

static int build_alltoall(struct ctx *c)
{
    const size_t block = c->op->count * c->es, total = block * (size_t)c->p;
    const int p = c->p, r = c->r;
    const char *src = c->send;
    int s;

    /* NCCL leaves overlapping buffers undefined; a copy makes them work. */
    if (overlaps(c->send, c->recv, total)) {
        char *copy = sim_plan_scratch(c->plan, total);
        if (!copy)
            return -1;
        sim_plan_copy(c->plan, copy, c->send, total);
        src = copy;
    }
    sim_plan_copy(c->plan, c->recv + (size_t)r * block,
                      src + (size_t)r * block, block);
    for (s = 1; s < p; s++) {
        int to = ring(r + s, p), from = ring(r - s, p);
        sim_plan_send(c->plan, to, src + (size_t)to * block, block, 0);
        sim_plan_recv(c->plan, from, c->recv + (size_t)from * block, block,
                          0);
        sim_plan_wait(c->plan);
    }
    return 0;
}

static int build_gather(struct ctx *c)
{
    const size_t block = c->op->count * c->es;
    const int p = c->p, r = c->r, root = c->op->root;
    int i;

    if (r != root) {
        sim_plan_send(c->plan, root, c->send, block, 0);
        return sim_plan_wait(c->plan);
    }
    for (i = 0; i < p; i++)
        if (i != root)
            sim_plan_recv(c->plan, i, c->recv + (size_t)i * block, block,
                              0);
    sim_plan_copy(c->plan, c->recv + (size_t)root * block, c->send,
                      block);
    return sim_plan_wait(c->plan);
}

static int build_scatter(struct ctx *c)
{
    const size_t block = c->op->count * c->es;
    const int p = c->p, r = c->r, root = c->op->root;
    int i;

    if (r != root) {
        sim_plan_recv(c->plan, root, c->recv, block, 0);
        return sim_plan_wait(c->plan);
    }
    for (i = 0; i < p; i++)
        if (i != root)
            sim_plan_send(c->plan, i, c->send + (size_t)i * block, block,
                              0);
    sim_plan_copy(c->plan, c->recv, c->send + (size_t)root * block,
                      block);
    return sim_plan_wait(c->plan);
}

int sim_coll_build(struct sim_plan *plan, const struct sim_op *op)
{
    struct ctx c = {.plan = plan,
                    .op = op,
                    .p = op->comm->nranks,
                    .r = op->comm->rank,
                    .es = sim_dtype_size(op->datatype),
                    .send = op->sendbuff,
                    .recv = op->recvbuff};
    int rc = -1;

    /* The sim_plan_* calls above do not stop at an allocation failure; the
     * plan remembers it and is checked once here. */
    if (op->kind == SIM_OP_SEND) {
        sim_plan_send(plan, op->root, op->sendbuff, op->count * c.es,
                      SIM_STEP_P2P);
        rc = 0;
    } else if (op->kind == SIM_OP_RECV) {
        sim_plan_recv(plan, op->root, op->recvbuff, op->count * c.es,
                      SIM_STEP_P2P);
        rc = 0;
    } else {
        sim_plan_delay(plan, op->comm->straggler_ns);
        switch (op->kind) {
        case SIM_OP_ALLREDUCE:
            rc = build_allreduce(&c);
            break;
        case SIM_OP_BROADCAST:
            rc = build_broadcast(&c);
            break;
        case SIM_OP_REDUCE:
            rc = build_reduce(&c);
            break;
        case SIM_OP_ALLGATHER:
            rc = build_allgather(&c);
            break;
        case SIM_OP_REDUCESCATTER:
            rc = build_reducescatter(&c);
            break;
        case SIM_OP_ALLTOALL:
            rc = build_alltoall(&c);
            break;
        case SIM_OP_GATHER:
            rc = build_gather(&c);
            break;
        case SIM_OP_SCATTER:
            rc = build_scatter(&c);
            break;
        default:
            break;
        }
    }
    return rc == 0 && !sim_plan_failed(plan) ? 0 : -1;
}
