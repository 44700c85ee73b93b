/* coll_check.c - a rank program (run under simrun) that checks every NCCL
 * operation of simnccl against a reference computed here.
 *
 * Every collective x every datatype x every reduction, with counts 0, 1, 7
 * and 1001, in-place and not, several roots; grouped send/recv rings over
 * 1 MiB; several collectives in one group; split and shrink.  Inputs are
 * small integers, so sums, products, maxima and minima are exact in every
 * type (even fp8) and the comparison is exact; only ncclAvg of the float
 * types is compared with a tolerance (its division rounds).  The reference
 * decoder of the narrow float formats is written here, separately from the
 * library's converters.
 *
 * Modes: --multi K (K ranks per process, created and driven with groups)
 * and --fault (3 ranks, rank 2 dies: shrink, then errors, no hang).
 *
 * Output: nothing per check; each failure is one line on stderr naming the
 * operation, datatype, reduction, count, root and rank.  Exit 0 when all
 * checks pass, 1 otherwise.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/cp_nccl.h"
#include "simtest_util.h"

#define GUARD 16        /* elements checked after every output */
#define MAX_REPORTS 30  /* failure lines per rank */
#define PATTERN 0xA5

static int rank, nranks;
static ncclComm_t comm;
static long checks, failures;

static const char *const type_names[] = {
    "int8",    "uint8",    "int32",   "uint32",  "int64",   "uint64",
    "float16", "float32",  "float64", "bfloat16", "fp8e4m3", "fp8e5m2"};
static const char *const op_names[] = {"sum", "prod", "max", "min", "avg"};

/* Description of the operation being checked, for failure lines. */
static char what[200];

__attribute__((format(printf, 1, 2))) static void describe(const char *fmt,
                                                           ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
    va_list ap;

    failures++;
    if (failures > MAX_REPORTS)
        return;
    fprintf(stderr, "coll_check: rank %d of %d: %s: ", rank, nranks, what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void check_rc(ncclResult_t rc, const char *call)
{
    checks++;
    if (rc != ncclSuccess)
        fail("%s returned %d (%s): %s", call, (int)rc, ncclGetErrorString(rc),
             ncclGetLastError(comm));
}

/* ---- types ------------------------------------------------------------- */

static size_t type_size(ncclDataType_t t)
{
    static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return sizes[t];
}

static int is_integer(ncclDataType_t t)
{
    return t <= ncclUint64;
}

static int is_unsigned(ncclDataType_t t)
{
    return t == ncclUint8 || t == ncclUint32 || t == ncclUint64;
}

struct minifloat {
    int exp_bits, mant_bits, bias;
};

static const struct minifloat fmt_half = {5, 10, 15}, fmt_bf16 = {8, 7, 127},
                              fmt_e4m3 = {4, 3, 7}, fmt_e5m2 = {5, 2, 15};

static const struct minifloat *minifloat_of(ncclDataType_t t)
{
    switch (t) {
    case ncclFloat16:
        return &fmt_half;
    case ncclBfloat16:
        return &fmt_bf16;
    case ncclFloat8e4m3:
        return &fmt_e4m3;
    case ncclFloat8e5m2:
        return &fmt_e5m2;
    default:
        return NULL;
    }
}

/* Exact encoding of a value the format represents exactly (the inputs
 * are small integers). */
static uint32_t minifloat_encode(const struct minifloat *f, double v)
{
    uint32_t sign = v < 0 ? 1u << (f->exp_bits + f->mant_bits) : 0;
    double a = fabs(v), m;
    int e;

    if (a == 0)
        return sign;
    m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    e -= 1;
    m = m * 2 - 1; /* fraction after the leading 1 */
    return sign | (uint32_t)(e + f->bias) << f->mant_bits |
           (uint32_t)(m * (1 << f->mant_bits));
}

static double minifloat_decode(const struct minifloat *f, uint32_t bits)
{
    uint32_t sign = bits >> (f->exp_bits + f->mant_bits) & 1;
    int exp = (int)(bits >> f->mant_bits & ((1u << f->exp_bits) - 1));
    double mant = bits & ((1u << f->mant_bits) - 1), v;

    if (exp == 0)
        v = ldexp(mant, 1 - f->bias - f->mant_bits);
    else
        v = ldexp(1 + mant / (1 << f->mant_bits), exp - f->bias);
    return sign ? -v : v;
}

static void encode(ncclDataType_t t, void *buf, size_t i, double v)
{
    char *p = (char *)buf + i * type_size(t);
    const struct minifloat *f = minifloat_of(t);

    switch (t) {
    case ncclInt8: *(int8_t *)p = (int8_t)v; break;
    case ncclUint8: *(uint8_t *)p = (uint8_t)v; break;
    case ncclInt32: *(int32_t *)p = (int32_t)v; break;
    case ncclUint32: *(uint32_t *)p = (uint32_t)v; break;
    case ncclInt64: *(int64_t *)p = (int64_t)v; break;
    case ncclUint64: *(uint64_t *)p = (uint64_t)v; break;
    case ncclFloat32: *(float *)p = (float)v; break;
    case ncclFloat64: *(double *)p = v; break;
    case ncclFloat16:
    case ncclBfloat16: {
        uint16_t b = (uint16_t)minifloat_encode(f, v);
        memcpy(p, &b, 2);
        break;
    }
    default:
        *(uint8_t *)p = (uint8_t)minifloat_encode(f, v);
        break;
    }
}

static double decode(ncclDataType_t t, const void *buf, size_t i)
{
    const char *p = (const char *)buf + i * type_size(t);
    uint16_t b16;

    switch (t) {
    case ncclInt8: return *(const int8_t *)p;
    case ncclUint8: return *(const uint8_t *)p;
    case ncclInt32: return *(const int32_t *)p;
    case ncclUint32: return *(const uint32_t *)p;
    case ncclInt64: return (double)*(const int64_t *)p;
    case ncclUint64: return (double)*(const uint64_t *)p;
    case ncclFloat32: return *(const float *)p;
    case ncclFloat64: return *(const double *)p;
    case ncclFloat16:
    case ncclBfloat16:
        memcpy(&b16, p, 2);
        return minifloat_decode(minifloat_of(t), b16);
    default:
        return minifloat_decode(minifloat_of(t), *(const uint8_t *)p);
    }
}

/* The value rank r contributes at index i: small integers chosen per
 * reduction so that every partial result stays exact in every type. */
static double gen(ncclDataType_t t, ncclRedOp_t op, int r, size_t i)
{
    int u = is_unsigned(t);
    size_t k = (size_t)r * 3 + i * 7;

    switch (op) {
    case ncclProd:
        if ((r + (int)(i % 4)) % 4 == 0)
            return 2;
        return !u && (k % 3 == 0) ? -1 : 1;
    case ncclMax:
    case ncclMin: {
        int v = (int)(((size_t)r * 5 + i * 3) % 9);
        return u ? v : v - 4;
    }
    default: /* sum, avg */
        return u ? (double)(k % 3) : (double)(k % 3) - 1;
    }
}

/* Wrap an exact integer result into the type, as the GPU's arithmetic
 * does. */
static double wrap(ncclDataType_t t, int64_t v)
{
    switch (t) {
    case ncclInt8: return (int8_t)(uint8_t)v;
    case ncclUint8: return (uint8_t)v;
    case ncclInt32: return (int32_t)(uint32_t)v;
    case ncclUint32: return (uint32_t)v;
    default: return (double)v;
    }
}

/* The reduction over all ranks of gen(., i). */
static double expected_reduce(ncclDataType_t t, ncclRedOp_t op, size_t i)
{
    double acc = gen(t, op, 0, i);
    int q;

    for (q = 1; q < nranks; q++) {
        double v = gen(t, op, q, i);
        switch (op) {
        case ncclProd: acc *= v; break;
        case ncclMax: acc = v > acc ? v : acc; break;
        case ncclMin: acc = v < acc ? v : acc; break;
        default: acc += v; break;
        }
    }
    if (is_integer(t)) {
        acc = wrap(t, (int64_t)acc);
        if (op == ncclAvg)
            acc = is_unsigned(t) ? (double)((uint64_t)acc / (uint64_t)nranks)
                                 : (double)((int64_t)acc / nranks);
        return acc;
    }
    return op == ncclAvg ? acc / nranks : acc;
}

static double tolerance(ncclDataType_t t, ncclRedOp_t op)
{
    static const double rel[] = {0, 0, 0, 0, 0, 0, 2e-3, 1e-6, 1e-12,
                                 1e-2, 0.07, 0.13};
    return op == ncclAvg ? rel[t] : 0;
}

static int same(double got, double want, double rel)
{
    if (rel == 0)
        return got == want;
    return fabs(got - want) <= rel * fabs(want);
}

/* ---- buffers ----------------------------------------------------------- */

static void *alloc_elems(ncclDataType_t t, size_t n)
{
    size_t bytes = (n + GUARD) * type_size(t);
    void *p = malloc(bytes);

    if (!p) {
        fprintf(stderr, "coll_check: out of memory\n");
        exit(1);
    }
    memset(p, PATTERN, bytes);
    return p;
}

static void check_guard(ncclDataType_t t, const void *buf, size_t n,
                        const char *name)
{
    const unsigned char *g = (const unsigned char *)buf + n * type_size(t);
    size_t i;

    checks++;
    for (i = 0; i < GUARD * type_size(t); i++) {
        if (g[i] != PATTERN) {
            fail("wrote past the end of %s (%zu elements)", name, n);
            return;
        }
    }
}

static void check_untouched(ncclDataType_t t, const void *buf, size_t n,
                            const char *name)
{
    const unsigned char *g = buf;
    size_t i;

    checks++;
    for (i = 0; i < n * type_size(t); i++) {
        if (g[i] != PATTERN) {
            fail("%s was written at byte %zu but should not be used", name, i);
            return;
        }
    }
}

/* Elements [0, n) of buf against want(i) (i offset by base). */
typedef double (*want_fn)(ncclDataType_t t, ncclRedOp_t op, size_t i,
                          const void *arg);

static void check_elems(ncclDataType_t t, ncclRedOp_t op, const void *buf,
                        size_t n, size_t base, want_fn want, const void *arg)
{
    double rel = tolerance(t, op);
    size_t i;

    checks++;
    for (i = 0; i < n; i++) {
        double w = want(t, op, base + i, arg), g = decode(t, buf, i);
        if (!same(g, w, rel)) {
            fail("element %zu is %.9g, want %.9g", base + i, g, w);
            return;
        }
    }
}

static double want_reduced(ncclDataType_t t, ncclRedOp_t op, size_t i,
                           const void *arg)
{
    return expected_reduce(t, op, i);
}

/* gen of a fixed rank (arg points at the rank). */
static double want_of_rank(ncclDataType_t t, ncclRedOp_t op, size_t i,
                           const void *arg)
{
    return gen(t, op, *(const int *)arg, i);
}

static void fill(ncclDataType_t t, ncclRedOp_t op, void *buf, size_t n,
                 int r, size_t base)
{
    size_t i;

    for (i = 0; i < n; i++)
        encode(t, buf, i, gen(t, op, r, base + i));
}

/* ---- collectives ------------------------------------------------------- */

static void t_allreduce(ncclDataType_t t, ncclRedOp_t op, size_t n,
                        int inplace)
{
    void *send = alloc_elems(t, n), *recv = inplace ? send : alloc_elems(t, n);

    describe("allreduce %s %s count=%zu%s", type_names[t], op_names[op], n,
             inplace ? " in-place" : "");
    fill(t, op, send, n, rank, 0);
    check_rc(ncclAllReduce(send, recv, n, t, op, comm, NULL), "ncclAllReduce");
    check_elems(t, op, recv, n, 0, want_reduced, NULL);
    check_guard(t, recv, n, "recvbuff");
    if (!inplace)
        free(recv);
    free(send);
}

static void t_reduce(ncclDataType_t t, ncclRedOp_t op, size_t n, int root,
                     int inplace)
{
    void *send = alloc_elems(t, n), *recv = NULL;

    describe("reduce %s %s count=%zu root=%d%s", type_names[t], op_names[op],
             n, root, inplace ? " in-place" : "");
    fill(t, op, send, n, rank, 0);
    if (rank == root)
        recv = inplace ? send : alloc_elems(t, n);
    else if (inplace)
        recv = alloc_elems(t, n); /* given but unused off the root */
    check_rc(ncclReduce(send, recv, n, t, op, root, comm, NULL), "ncclReduce");
    if (rank == root) {
        check_elems(t, op, recv, n, 0, want_reduced, NULL);
        check_guard(t, recv, n, "recvbuff");
    } else if (recv) {
        check_untouched(t, recv, n, "recvbuff off the root");
    }
    if (recv != send)
        free(recv);
    free(send);
}

static void t_reducescatter(ncclDataType_t t, ncclRedOp_t op, size_t n,
                            int inplace)
{
    size_t total = n * (size_t)nranks;
    void *send = alloc_elems(t, total);
    void *recv = inplace ? (char *)send + (size_t)rank * n * type_size(t)
                         : alloc_elems(t, n);

    describe("reducescatter %s %s count=%zu%s", type_names[t], op_names[op],
             n, inplace ? " in-place" : "");
    fill(t, op, send, total, rank, 0);
    check_rc(ncclReduceScatter(send, recv, n, t, op, comm, NULL),
             "ncclReduceScatter");
    check_elems(t, op, recv, n, (size_t)rank * n, want_reduced, NULL);
    if (!inplace) {
        check_guard(t, recv, n, "recvbuff");
        free(recv);
    }
    free(send);
}

static double want_gathered(ncclDataType_t t, ncclRedOp_t op, size_t i,
                            const void *arg)
{
    size_t n = *(const size_t *)arg;
    return gen(t, op, (int)(i / n), i % n);
}

static void t_allgather(ncclDataType_t t, size_t n, int inplace)
{
    const ncclRedOp_t op = ncclMax; /* only picks the data pattern */
    size_t total = n * (size_t)nranks;
    void *recv = alloc_elems(t, total);
    void *send = inplace ? (char *)recv + (size_t)rank * n * type_size(t)
                         : alloc_elems(t, n);

    describe("allgather %s count=%zu%s", type_names[t], n,
             inplace ? " in-place" : "");
    fill(t, op, send, n, rank, 0);
    check_rc(ncclAllGather(send, recv, n, t, comm, NULL), "ncclAllGather");
    if (n > 0)
        check_elems(t, op, recv, total, 0, want_gathered, &n);
    check_guard(t, recv, total, "recvbuff");
    if (!inplace)
        free(send);
    free(recv);
}

static void t_broadcast(ncclDataType_t t, size_t n, int root, int inplace)
{
    const ncclRedOp_t op = ncclMax;
    void *recv = alloc_elems(t, n);
    void *send = inplace ? recv : rank == root ? alloc_elems(t, n) : NULL;

    describe("%s %s count=%zu root=%d", inplace ? "bcast" : "broadcast",
             type_names[t], n, root);
    if (rank == root)
        fill(t, op, send, n, rank, 0);
    if (inplace)
        check_rc(ncclBcast(recv, n, t, root, comm, NULL), "ncclBcast");
    else
        check_rc(ncclBroadcast(send, recv, n, t, root, comm, NULL),
                 "ncclBroadcast");
    check_elems(t, op, recv, n, 0, want_of_rank, &root);
    check_guard(t, recv, n, "recvbuff");
    if (send != recv)
        free(send);
    free(recv);
}

/* All-to-all: rank q sends gen(q, dest*n + i) to dest. */
static double want_alltoall(ncclDataType_t t, ncclRedOp_t op, size_t i,
                            const void *arg)
{
    size_t n = *(const size_t *)arg;
    return gen(t, op, (int)(i / n), (size_t)rank * n + i % n);
}

static void t_alltoall(ncclDataType_t t, size_t n)
{
    const ncclRedOp_t op = ncclMax;
    size_t total = n * (size_t)nranks;
    void *send = alloc_elems(t, total), *recv = alloc_elems(t, total);

    describe("alltoall %s count=%zu", type_names[t], n);
    fill(t, op, send, total, rank, 0);
    check_rc(ncclAlltoAll(send, recv, n, t, comm, NULL), "ncclAlltoAll");
    if (n > 0)
        check_elems(t, op, recv, total, 0, want_alltoall, &n);
    check_guard(t, recv, total, "recvbuff");
    free(send);
    free(recv);
}

static void t_gather(ncclDataType_t t, size_t n, int root, int inplace)
{
    const ncclRedOp_t op = ncclMax;
    size_t total = n * (size_t)nranks;
    void *recv = rank == root ? alloc_elems(t, total) : NULL;
    void *send = inplace && rank == root
                     ? (char *)recv + (size_t)root * n * type_size(t)
                     : alloc_elems(t, n);

    describe("gather %s count=%zu root=%d%s", type_names[t], n, root,
             inplace ? " in-place" : "");
    fill(t, op, send, n, rank, 0);
    check_rc(ncclGather(send, recv, n, t, root, comm, NULL), "ncclGather");
    if (rank == root) {
        if (n > 0)
            check_elems(t, op, recv, total, 0, want_gathered, &n);
        check_guard(t, recv, total, "recvbuff");
    }
    if (!(inplace && rank == root))
        free(send);
    free(recv);
}

static double want_scattered(ncclDataType_t t, ncclRedOp_t op, size_t i,
                             const void *arg)
{
    const size_t *a = arg; /* {n, root} */
    return gen(t, op, (int)a[1], (size_t)rank * a[0] + i);
}

static void t_scatter(ncclDataType_t t, size_t n, int root, int inplace)
{
    const ncclRedOp_t op = ncclMax;
    size_t total = n * (size_t)nranks, arg[2] = {n, (size_t)root};
    void *send = rank == root ? alloc_elems(t, total) : NULL;
    void *recv = inplace && rank == root
                     ? (char *)send + (size_t)root * n * type_size(t)
                     : alloc_elems(t, n);

    describe("scatter %s count=%zu root=%d%s", type_names[t], n, root,
             inplace ? " in-place" : "");
    if (rank == root)
        fill(t, op, send, total, root, 0);
    check_rc(ncclScatter(send, recv, n, t, root, comm, NULL), "ncclScatter");
    check_elems(t, op, recv, n, 0, want_scattered, arg);
    if (!(inplace && rank == root)) {
        check_guard(t, recv, n, "recvbuff");
        free(recv);
    }
    free(send);
}

static void all_collectives(void)
{
    static const size_t counts[] = {0, 1, 7, 1001};
    int roots[3] = {0, nranks - 1, nranks / 2}, n_roots = 1;
    size_t c;
    int t, op, inplace, k;

    if (nranks > 1)
        n_roots = 2;
    if (nranks > 2)
        n_roots = 3;
    for (t = 0; t < ncclNumTypes; t++) {
        for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            size_t n = counts[c];
            for (inplace = 0; inplace < 2; inplace++) {
                for (op = 0; op < ncclNumOps; op++) {
                    t_allreduce(t, op, n, inplace);
                    t_reducescatter(t, op, n, inplace);
                    for (k = 0; k < n_roots; k++)
                        t_reduce(t, op, n, roots[k], inplace);
                }
                t_allgather(t, n, inplace);
                for (k = 0; k < n_roots; k++) {
                    t_broadcast(t, n, roots[k], inplace);
                    t_gather(t, n, roots[k], inplace);
                    t_scatter(t, n, roots[k], inplace);
                }
            }
            t_alltoall(t, n);
        }
    }
}

/* ---- point to point and groups ----------------------------------------- */

static void t_ring(size_t bytes)
{
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
    unsigned char *send = malloc(bytes), *recv = malloc(bytes);
    size_t i;

    describe("grouped send/recv ring of %zu bytes", bytes);
    for (i = 0; i < bytes; i++)
        send[i] = (unsigned char)(rank * 31 + i * 7 + (i >> 12));
    memset(recv, 0, bytes);
    check_rc(ncclGroupStart(), "ncclGroupStart");
    check_rc(ncclSend(send, bytes, ncclUint8, right, comm, NULL), "ncclSend");
    check_rc(ncclRecv(recv, bytes, ncclUint8, left, comm, NULL), "ncclRecv");
    check_rc(ncclGroupEnd(), "ncclGroupEnd");
    checks++;
    for (i = 0; i < bytes; i++) {
        if (recv[i] != (unsigned char)(left * 31 + i * 7 + (i >> 12))) {
            fail("byte %zu from rank %d is %u", i, left, recv[i]);
            break;
        }
    }
    free(send);
    free(recv);
}

/* Both neighbours and self at once, floats, receives posted first. */
static void t_exchange(void)
{
    const size_t n = 100003;
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
    float *out = malloc(n * sizeof *out), *from_left = malloc(n * sizeof *out),
          *from_right = malloc(n * sizeof *out), *self = malloc(n * sizeof *out);
    size_t i;

    describe("grouped exchange with both neighbours and self");
    for (i = 0; i < n; i++)
        out[i] = (float)(rank * 1000 + (int)(i % 1000));
    check_rc(ncclGroupStart(), "ncclGroupStart");
    check_rc(ncclRecv(from_left, n, ncclFloat32, left, comm, NULL), "ncclRecv");
    check_rc(ncclRecv(from_right, n, ncclFloat32, right, comm, NULL),
             "ncclRecv");
    check_rc(ncclRecv(self, n, ncclFloat32, rank, comm, NULL), "ncclRecv");
    check_rc(ncclSend(out, n, ncclFloat32, right, comm, NULL), "ncclSend");
    check_rc(ncclSend(out, n, ncclFloat32, left, comm, NULL), "ncclSend");
    check_rc(ncclSend(out, n, ncclFloat32, rank, comm, NULL), "ncclSend");
    check_rc(ncclGroupEnd(), "ncclGroupEnd");
    checks++;
    for (i = 0; i < n; i++) {
        float m = (float)(int)(i % 1000);
        /* With two ranks left == right: messages match in posting order. */
        if (from_left[i] != left * 1000 + m ||
            from_right[i] != right * 1000 + m || self[i] != rank * 1000 + m) {
            fail("element %zu: left %g right %g self %g", i, from_left[i],
                 from_right[i], self[i]);
            break;
        }
    }
    free(out);
    free(from_left);
    free(from_right);
    free(self);
}

/* Blocking pairs: even ranks send to the next odd rank. */
static void t_blocking_pairs(void)
{
    int64_t v[5] = {0};
    int k;

    describe("blocking send/recv pairs");
    if (rank % 2 == 0 && rank + 1 < nranks) {
        for (k = 0; k < 5; k++)
            v[k] = (int64_t)rank * 100 + k;
        check_rc(ncclSend(v, 5, ncclInt64, rank + 1, comm, NULL), "ncclSend");
    } else if (rank % 2 == 1) {
        check_rc(ncclRecv(v, 5, ncclInt64, rank - 1, comm, NULL), "ncclRecv");
        checks++;
        for (k = 0; k < 5; k++)
            if (v[k] != (int64_t)(rank - 1) * 100 + k)
                fail("element %d is %lld", k, (long long)v[k]);
    }
}

/* Three all-reduces and a broadcast in one group run as if in order. */
static void t_grouped_collectives(void)
{
    int32_t a[33], b[33], c[33], d[5];
    int i, root = nranks - 1;

    describe("grouped collectives");
    for (i = 0; i < 33; i++) {
        a[i] = rank + i;
        b[i] = rank * i;
        c[i] = 1;
    }
    for (i = 0; i < 5; i++)
        d[i] = rank == root ? 77 + i : -1;
    check_rc(ncclGroupStart(), "ncclGroupStart");
    check_rc(ncclGroupStart(), "ncclGroupStart (nested)");
    check_rc(ncclAllReduce(a, a, 33, ncclInt32, ncclSum, comm, NULL),
             "ncclAllReduce");
    check_rc(ncclAllReduce(b, b, 33, ncclInt32, ncclMax, comm, NULL),
             "ncclAllReduce");
    check_rc(ncclGroupEnd(), "ncclGroupEnd (nested)");
    check_rc(ncclAllReduce(c, c, 33, ncclInt32, ncclSum, comm, NULL),
             "ncclAllReduce");
    check_rc(ncclBcast(d, 5, ncclInt32, root, comm, NULL), "ncclBcast");
    check_rc(ncclGroupEnd(), "ncclGroupEnd");
    checks++;
    for (i = 0; i < 33; i++) {
        int32_t sum = nranks * (nranks - 1) / 2 + nranks * i;
        if (a[i] != sum || b[i] != (nranks - 1) * i || c[i] != nranks) {
            fail("element %d: %d %d %d", i, a[i], b[i], c[i]);
            break;
        }
    }
    for (i = 0; i < 5; i++)
        if (d[i] != 77 + i)
            fail("bcast element %d is %d", i, d[i]);
}

/* Send/recv and collectives in different orders on the two ends: a group
 * {all-reduce; send} against all-reduce then recv, and a blocking send
 * before an all-reduce against the all-reduce then the recv.  They travel
 * on separate connections, so the orders need not agree (small messages,
 * as NCCL's buffered sends). */
static void t_mixed_order(void)
{
    int32_t x, y[1000];
    int pass, i, partner = rank % 2 == 0 ? rank + 1 : rank - 1;

    if (partner >= nranks)
        partner = -1;
    for (pass = 0; pass < 2; pass++) {
        describe("send/recv and all-reduce in other orders (pass %d)", pass);
        x = 1;
        for (i = 0; i < 1000; i++)
            y[i] = rank % 2 == 0 ? rank * 7 + i : -1;
        if (partner >= 0 && rank % 2 == 0) {
            if (pass == 0)
                check_rc(ncclGroupStart(), "ncclGroupStart");
            else
                check_rc(ncclSend(y, 1000, ncclInt32, partner, comm, NULL),
                         "ncclSend");
            check_rc(ncclAllReduce(&x, &x, 1, ncclInt32, ncclSum, comm, NULL),
                     "ncclAllReduce");
            if (pass == 0) {
                check_rc(ncclSend(y, 1000, ncclInt32, partner, comm, NULL),
                         "ncclSend");
                check_rc(ncclGroupEnd(), "ncclGroupEnd");
            }
        } else {
            check_rc(ncclAllReduce(&x, &x, 1, ncclInt32, ncclSum, comm, NULL),
                     "ncclAllReduce");
            if (partner >= 0) {
                check_rc(ncclRecv(y, 1000, ncclInt32, partner, comm, NULL),
                         "ncclRecv");
                checks++;
                for (i = 0; i < 1000; i++)
                    if (y[i] != partner * 7 + i) {
                        fail("element %d is %d", i, y[i]);
                        break;
                    }
            }
        }
        checks++;
        if (x != nranks)
            fail("all-reduce gave %d", x);
    }
}

/* ---- communicators ----------------------------------------------------- */

static void t_queries(void)
{
    int v = -1;

    describe("queries");
    check_rc(ncclGetVersion(&v), "ncclGetVersion");
    if (v != 22809)
        fail("version %d", v);
    check_rc(ncclCommCount(comm, &v), "ncclCommCount");
    if (v != nranks)
        fail("count %d", v);
    check_rc(ncclCommUserRank(comm, &v), "ncclCommUserRank");
    if (v != rank)
        fail("user rank %d", v);
    check_rc(ncclCommCuDevice(comm, &v), "ncclCommCuDevice");
    if (v != simtest_env_int("SIMNCCL_LOCAL_RANK", 0))
        fail("device %d, want the local rank", v);
}

/* Split by parity with reversed keys; the last rank opts out when n >= 3. */
static void t_split(void)
{
    int out = nranks >= 3 && rank == nranks - 1;
    int color = out ? NCCL_SPLIT_NOCOLOR : rank % 2;
    ncclComm_t sub = NULL;
    int members = 0, my_new = 0, q, v = -1;
    int64_t x, want = 0;

    describe("split color=%d key=%d", color, -rank);
    check_rc(ncclCommSplit(comm, color, -rank, &sub, NULL), "ncclCommSplit");
    checks++;
    if (out) {
        if (sub)
            fail("NCCL_SPLIT_NOCOLOR gave a communicator");
        return;
    }
    if (!sub) {
        fail("no communicator");
        return;
    }
    /* Members: same parity, not the opted-out rank; order by key = -rank,
     * so the highest parent rank comes first. */
    for (q = nranks - 1; q >= 0; q--) {
        if (q % 2 != color || (nranks >= 3 && q == nranks - 1))
            continue;
        if (q == rank)
            my_new = members;
        members++;
        want += q;
    }
    check_rc(ncclCommCount(sub, &v), "ncclCommCount");
    if (v != members)
        fail("split size %d, want %d", v, members);
    check_rc(ncclCommUserRank(sub, &v), "ncclCommUserRank");
    if (v != my_new)
        fail("split rank %d, want %d", v, my_new);
    x = rank;
    check_rc(ncclAllReduce(&x, &x, 1, ncclInt64, ncclSum, sub, NULL),
             "ncclAllReduce on the split");
    if (x != want)
        fail("sum over the split %lld, want %lld", (long long)x,
             (long long)want);
    check_rc(ncclCommDestroy(sub), "ncclCommDestroy");
}

/* Rank 0 leaves; the others shrink around it. */
static void t_shrink(void)
{
    int exclude = 0, v = -1;
    ncclComm_t sub = NULL;
    int64_t x = rank;

    describe("shrink without rank 0");
    if (rank == 0)
        return;
    check_rc(ncclCommShrink(comm, &exclude, 1, &sub, NULL, 0),
             "ncclCommShrink");
    if (!sub) {
        fail("no communicator");
        return;
    }
    check_rc(ncclCommCount(sub, &v), "ncclCommCount");
    if (v != nranks - 1)
        fail("shrunk size %d", v);
    check_rc(ncclCommUserRank(sub, &v), "ncclCommUserRank");
    if (v != rank - 1)
        fail("shrunk rank %d, want %d", v, rank - 1);
    check_rc(ncclAllReduce(&x, &x, 1, ncclInt64, ncclSum, sub, NULL),
             "ncclAllReduce on the shrunk communicator");
    if (x != (int64_t)nranks * (nranks - 1) / 2)
        fail("sum %lld", (long long)x);
    check_rc(ncclCommDestroy(sub), "ncclCommDestroy");
}

/* --multi K: this process holds K ranks of one communicator, created and
 * used from one thread with groups (NCCL's one-thread-many-GPUs idiom). */
static int multi(int k)
{
    const int total = nranks * k;
    ncclComm_t comms[8] = {NULL}, subs[8] = {NULL}, copies[8] = {NULL};
    int64_t v[8];
    ncclUniqueId id;
    int i, g, q;

    describe("--multi %d: grouped ncclCommInitRank", k);
    if (k < 1 || k > 8 || simtest_share_id(&id, "multi.id") != 0)
        return 1;
    check_rc(ncclGroupStart(), "ncclGroupStart");
    for (i = 0; i < k; i++)
        check_rc(ncclCommInitRank(&comms[i], total, id, rank * k + i),
                 "ncclCommInitRank");
    check_rc(ncclGroupEnd(), "ncclGroupEnd");
    if (failures)
        return 1;
    describe("--multi %d: grouped all-reduce over %d ranks", k, total);
    check_rc(ncclGroupStart(), "ncclGroupStart");
    for (i = 0; i < k; i++) {
        v[i] = rank * k + i;
        check_rc(ncclAllReduce(&v[i], &v[i], 1, ncclInt64, ncclSum, comms[i],
                               NULL),
                 "ncclAllReduce");
    }
    check_rc(ncclGroupEnd(), "ncclGroupEnd");
    for (i = 0; i < k; i++)
        if (v[i] != (int64_t)total * (total - 1) / 2)
            fail("comm %d: sum %lld", i, (long long)v[i]);
    describe("--multi %d: grouped split by parity, and a copy", k);
    check_rc(ncclGroupStart(), "ncclGroupStart");
    for (i = 0; i < k; i++) {
        check_rc(ncclCommSplit(comms[i], (rank * k + i) % 2, rank * k + i,
                               &subs[i], NULL),
                 "ncclCommSplit");
        check_rc(ncclCommSplit(comms[i], 0, 0, &copies[i], NULL),
                 "ncclCommSplit (copy)");
    }
    check_rc(ncclGroupEnd(), "ncclGroupEnd");
    for (i = 0; i < k; i++) {
        check_rc(ncclCommUserRank(copies[i], &q), "ncclCommUserRank");
        if (q != rank * k + i)
            fail("copy of rank %d has rank %d", rank * k + i, q);
        check_rc(ncclCommDestroy(copies[i]), "ncclCommDestroy");
    }
    check_rc(ncclGroupStart(), "ncclGroupStart");
    for (i = 0; i < k; i++) {
        v[i] = rank * k + i;
        if (subs[i])
            check_rc(ncclAllReduce(&v[i], &v[i], 1, ncclInt64, ncclSum,
                                   subs[i], NULL),
                     "ncclAllReduce on the split");
    }
    check_rc(ncclGroupEnd(), "ncclGroupEnd");
    for (i = 0; i < k; i++) {
        int64_t want = 0;
        g = rank * k + i;
        for (q = g % 2; q < total; q += 2)
            want += q;
        if (v[i] != want)
            fail("split of rank %d: sum %lld, want %lld", g, (long long)v[i],
                 (long long)want);
        check_rc(ncclCommDestroy(subs[i]), "ncclCommDestroy");
        check_rc(ncclCommDestroy(comms[i]), "ncclCommDestroy");
    }
    if (rank == 0 || failures)
        fprintf(stderr, "coll_check --multi: rank %d: %ld checks, %ld "
                        "failed\n",
                rank, checks, failures);
    return failures ? 1 : 0;
}

/* --fault (3 ranks): rank 2 dies after init.  Ranks 0 and 1 shrink it
 * away and go on; a collective on the old communicator reports an error
 * (never hangs, with SIMNCCL_TIMEOUT set) and leaves it marked broken. */
static int fault(void)
{
    int exclude = 2, v = -1;
    ncclComm_t sub = NULL;
    ncclResult_t rc, async = ncclSuccess;
    int64_t x = rank;
    char first[512];
    double t0;

    describe("--fault");
    if (nranks != 3) {
        fail("needs 3 ranks");
        return 1;
    }
    if (rank == 2)
        _exit(0); /* a crash that the launcher does not notice */
    describe("--fault: shrink without the dead rank 2");
    check_rc(ncclCommShrink(comm, &exclude, 1, &sub, NULL, 0),
             "ncclCommShrink");
    if (sub) {
        check_rc(ncclCommCount(sub, &v), "ncclCommCount");
        check_rc(ncclAllReduce(&x, &x, 1, ncclInt64, ncclSum, sub, NULL),
                 "ncclAllReduce on the shrunk communicator");
        if (v != 2 || x != 1)
            fail("shrunk size %d, sum %lld", v, (long long)x);
        check_rc(ncclCommDestroy(sub), "ncclCommDestroy");
    }
    describe("--fault: all-reduce with a dead peer");
    t0 = simtest_now();
    rc = ncclAllReduce(&x, &x, 1, ncclInt64, ncclSum, comm, NULL);
    snprintf(first, sizeof first, "%s", ncclGetLastError(comm));
    checks++;
    if (rc != ncclRemoteError && rc != ncclSystemError)
        fail("returned %d, want a remote or system error", (int)rc);
    check_rc(ncclCommGetAsyncError(comm, &async), "ncclCommGetAsyncError");
    if (async == ncclSuccess)
        fail("no async error recorded");
    checks++;
    if (ncclAllReduce(&x, &x, 1, ncclInt64, ncclSum, comm, NULL) == ncclSuccess)
        fail("a broken communicator accepted another call");
    fprintf(stderr, "coll_check --fault: rank %d: error %d after %.2f s: %s\n",
            rank, (int)rc, simtest_now() - t0, first);
    check_rc(ncclCommDestroy(comm), "ncclCommDestroy of a broken comm");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    ncclResult_t rc;
    double t0 = simtest_now();
    int32_t total;

    rank = simtest_env_int("SIMNCCL_RANK", 0);
    nranks = simtest_env_int("SIMNCCL_NRANKS", 1);
    if (argc > 2 && strcmp(argv[1], "--multi") == 0)
        return multi(atoi(argv[2]));
    describe("ncclCommInitRank");
    rc = simtest_init(&comm, "coll_check.id");
    if (rc != ncclSuccess) {
        fail("init failed: %s: %s", ncclGetErrorString(rc),
             ncclGetLastError(NULL));
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--fault") == 0)
        return fault();
    t_queries();
    all_collectives();
    t_ring((1u << 20) + (1u << 19) + 3);
    t_exchange();
    t_blocking_pairs();
    t_grouped_collectives();
    t_mixed_order();
    t_split();
    if (nranks >= 2)
        t_shrink();
    /* Everyone, including the rank that sat out the shrink, still agrees
     * on the parent. */
    describe("final all-reduce on the parent");
    total = 1;
    check_rc(ncclAllReduce(&total, &total, 1, ncclInt32, ncclSum, comm, NULL),
             "ncclAllReduce");
    if (total != nranks)
        fail("final sum %d", total);
    check_rc(ncclCommDestroy(comm), "ncclCommDestroy");
    if (rank == 0 || failures)
        fprintf(stderr, "coll_check: rank %d of %d: %ld checks, %ld failed, "
                        "%.2f s\n",
                rank, nranks, checks, failures, simtest_now() - t0);
    return failures ? 1 : 0;
}
