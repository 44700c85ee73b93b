/* cp_model.c - the alpha-beta cost model of collectives (see cp_model.h).
 *
 * Every algorithm's time is affine in n, T(n) = L + n*W, with
 * L = (messages on the critical path) * alpha and W = (bytes through the
 * busiest port per byte of n) * beta.  One table says which algorithms the
 * model has for which collective; one function gives the two coefficients.
 * Everything else (times, best, crossovers, regimes) is built on those.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "cp_model.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(algo) (1u << (algo))

static const char *const algo_names[CP_ALGO_COUNT] = {
    [CP_ALGO_RING] = "ring",
    [CP_ALGO_RECURSIVE_DOUBLING] = "recursive_doubling",
    [CP_ALGO_RABENSEIFNER] = "rabenseifner",
    [CP_ALGO_PAIRWISE] = "pairwise",
    [CP_ALGO_BRUCK] = "bruck",
    [CP_ALGO_TREE] = "tree",
    [CP_ALGO_DOUBLE_BINARY_TREE] = "double_binary_tree",
    [CP_ALGO_HIERARCHICAL] = "hierarchical",
    [CP_ALGO_DIRECT] = "direct",
};

/* The collectives: the one table (cp_model.h, struct cp_coll_facts). */
static const struct cp_coll_facts colls[CP_COLL_COUNT] = {
    [CP_COLL_ALLREDUCE] = {
        .coll = CP_COLL_ALLREDUCE, .name = "allreduce",
        .perf_name = "all_reduce_perf", .op = {CP_OP_AllReduce},
        .reduces = 1, .busbw_steps = 2, .symmetric = 1, .ring_like = 1,
        .algos = BIT(CP_ALGO_RING) | BIT(CP_ALGO_RECURSIVE_DOUBLING) |
                 BIT(CP_ALGO_RABENSEIFNER) | BIT(CP_ALGO_TREE) |
                 BIT(CP_ALGO_DOUBLE_BINARY_TREE) | BIT(CP_ALGO_HIERARCHICAL),
        .nccl_algo = CP_ALGO_RING, .nccl_tree = 1, .link_fit = 2,
        .marker = 0},
    [CP_COLL_BROADCAST] = {
        .coll = CP_COLL_BROADCAST, .name = "broadcast", .alias = "bcast",
        .perf_name = "broadcast_perf", .op = {CP_OP_Broadcast, CP_OP_Bcast},
        .rooted = 1, .busbw_steps = 0,
        .algos = BIT(CP_ALGO_RING) | BIT(CP_ALGO_TREE),
        .nccl_algo = CP_ALGO_RING, .link_fit = 1, .marker = 3},
    [CP_COLL_REDUCE] = {
        .coll = CP_COLL_REDUCE, .name = "reduce", .perf_name = "reduce_perf",
        .op = {CP_OP_Reduce}, .rooted = 1, .reduces = 1, .busbw_steps = 0,
        .algos = BIT(CP_ALGO_RING) | BIT(CP_ALGO_TREE),
        .nccl_algo = CP_ALGO_RING, .link_fit = 1, .marker = 3},
    [CP_COLL_REDUCESCATTER] = {
        .coll = CP_COLL_REDUCESCATTER, .name = "reducescatter",
        .perf_name = "reduce_scatter_perf", .op = {CP_OP_ReduceScatter},
        .reduces = 1, .per_rank_count = 1, .busbw_steps = 1,
        .symmetric = 1, .ring_like = 1,
        .algos = BIT(CP_ALGO_RING) | BIT(CP_ALGO_RECURSIVE_DOUBLING),
        .nccl_algo = CP_ALGO_RING, .link_fit = 2, .marker = 2},
    [CP_COLL_ALLGATHER] = {
        .coll = CP_COLL_ALLGATHER, .name = "allgather",
        .perf_name = "all_gather_perf", .op = {CP_OP_AllGather},
        .per_rank_count = 1, .busbw_steps = 1, .symmetric = 1,
        .ring_like = 1,
        .algos = BIT(CP_ALGO_RING) | BIT(CP_ALGO_RECURSIVE_DOUBLING),
        .nccl_algo = CP_ALGO_RING, .link_fit = 2, .marker = 1},
    [CP_COLL_ALLTOALL] = {
        .coll = CP_COLL_ALLTOALL, .name = "alltoall",
        .perf_name = "alltoall_perf", .op = {CP_OP_AlltoAll},
        .per_rank_count = 1, .busbw_steps = 1, .symmetric = 1,
        .all_pairs = 1,
        .algos = BIT(CP_ALGO_PAIRWISE) | BIT(CP_ALGO_BRUCK),
        .nccl_algo = CP_ALGO_PAIRWISE, .link_fit = 1, .marker = 3},
    [CP_COLL_GATHER] = {
        .coll = CP_COLL_GATHER, .name = "gather", .perf_name = "gather_perf",
        .op = {CP_OP_Gather}, .rooted = 1, .per_rank_count = 1,
        .busbw_steps = 1,
        .algos = BIT(CP_ALGO_DIRECT) | BIT(CP_ALGO_TREE),
        .nccl_algo = CP_ALGO_DIRECT, .link_fit = 0, .marker = 3},
    [CP_COLL_SCATTER] = {
        .coll = CP_COLL_SCATTER, .name = "scatter", .perf_name = "scatter_perf",
        .op = {CP_OP_Scatter}, .rooted = 1, .per_rank_count = 1,
        .busbw_steps = 1,
        .algos = BIT(CP_ALGO_DIRECT) | BIT(CP_ALGO_TREE),
        .nccl_algo = CP_ALGO_DIRECT, .link_fit = 0, .marker = 3},
    [CP_COLL_SENDRECV] = {
        .coll = CP_COLL_SENDRECV, .name = "sendrecv",
        .perf_name = "sendrecv_perf", .op = {CP_OP_Send, CP_OP_Recv},
        .busbw_steps = 0, .algos = BIT(CP_ALGO_DIRECT),
        .nccl_algo = CP_ALGO_DIRECT, .link_fit = 0, .marker = 3},
};

static int coll_valid(enum cp_coll coll)
{
    return (int)coll >= 0 && coll < CP_COLL_COUNT;
}

static int algo_valid(enum cp_algo algo)
{
    return (int)algo >= 0 && algo < CP_ALGO_COUNT;
}

/* ---- names ------------------------------------------------------------ */

const struct cp_coll_facts *cp_model_coll_facts(enum cp_coll coll)
{
    return coll_valid(coll) ? &colls[coll] : NULL;
}

const char *cp_model_coll_name(enum cp_coll coll)
{
    return coll_valid(coll) ? colls[coll].name : NULL;
}

const char *cp_model_algo_name(enum cp_algo algo)
{
    return algo_valid(algo) ? algo_names[algo] : NULL;
}

/* Lower-case text into buf, leaving out the characters in `drop` and
 * turning the characters in `to_underscore` into '_'.  -1 if too long. */
static int normalize(const char *text, const char *drop,
                     const char *to_underscore, char *buf, size_t size)
{
    size_t j = 0;

    for (const char *s = text; *s; s++) {
        char c = (char)tolower((unsigned char)*s);
        if (strchr(drop, c))
            continue;
        if (strchr(to_underscore, c))
            c = '_';
        if (j + 1 >= size)
            return -1;
        buf[j++] = c;
    }
    buf[j] = '\0';
    return 0;
}

int cp_model_coll_from_name(const char *text, enum cp_coll *coll,
                            struct cp_error *err)
{
    char buf[32];

    if (text && normalize(text, "-_", "", buf, sizeof buf) == 0) {
        /* a row's name or alias, or the name of one of its logged calls
         * ("send", "recv") */
        for (int c = 0; c < CP_COLL_COUNT; c++) {
            const struct cp_coll_facts *f = &colls[c];
            int hit = strcmp(buf, f->name) == 0 ||
                      (f->alias && strcmp(buf, f->alias) == 0);
            for (size_t k = 0; k < COUNT(f->op) && !hit; k++)
                hit = f->op[k] && cp_op_name(f->op[k]) &&
                      strcmp(buf, cp_op_name(f->op[k])) == 0;
            if (hit) {
                *coll = (enum cp_coll)c;
                return 0;
            }
        }
    }
    return cp_errorf(err,
                     "expected a collective (allreduce, broadcast, reduce, "
                     "reducescatter, allgather, alltoall, gather, scatter, "
                     "sendrecv), got '%.80s'",
                     text ? text : "");
}

int cp_model_algo_from_name(const char *text, enum cp_algo *algo,
                            struct cp_error *err)
{
    char buf[32];

    if (text && normalize(text, "", "-", buf, sizeof buf) == 0) {
        for (int a = 0; a < CP_ALGO_COUNT; a++) {
            if (strcmp(buf, algo_names[a]) == 0) {
                *algo = (enum cp_algo)a;
                return 0;
            }
        }
    }
    return cp_errorf(err,
                     "expected an algorithm (ring, recursive_doubling, "
                     "rabenseifner, pairwise, bruck, tree, double_binary_tree, "
                     "hierarchical, direct), got '%.80s'",
                     text ? text : "");
}

int cp_model_coll_from_op(unsigned op, enum cp_coll *coll)
{
    for (int c = 0; op != 0 && c < CP_COLL_COUNT; c++)
        for (size_t k = 0; k < COUNT(colls[c].op); k++)
            if (colls[c].op[k] == op) {
                if (coll)
                    *coll = (enum cp_coll)c;
                return 0;
            }
    return -1;
}

unsigned cp_model_wire_op(unsigned op)
{
    enum cp_coll c;

    if (cp_model_coll_from_op(op, &c) < 0 || c == CP_COLL_SENDRECV)
        return op;
    return colls[c].op[0];
}

int cp_model_algo_defined(enum cp_coll coll, enum cp_algo algo)
{
    return coll_valid(coll) && algo_valid(algo) &&
           (colls[coll].algos & BIT(algo)) != 0;
}

/* ---- helpers ---------------------------------------------------------- */

static int is_pow2(unsigned p)
{
    return p != 0 && (p & (p - 1)) == 0;
}

/* ceil(lg p): the depth of a binomial or of NCCL's binary tree. */
static unsigned ceil_lg(unsigned p)
{
    unsigned k = 0;

    while (k < 32 && (1ull << k) < p)
        k++;
    return k;
}

static int usable(double v)
{
    return isfinite(v) && v >= 0;
}

static int check_args(enum cp_coll coll, unsigned p,
                      const struct cp_model_params *params,
                      struct cp_error *err)
{
    if (!coll_valid(coll)) {
        return cp_errorf(err, "unknown collective %d", (int)coll);
    }
    if (p == 0) {
        return cp_errorf(err, "the number of ranks must be at least 1");
    }
    if (!params) {
        return cp_errorf(err, "no link parameters given");
    }
    if (!usable(params->alpha) || !usable(params->beta)) {
        return cp_errorf(err,
                         "alpha and beta must be finite and not negative "
                         "(alpha %g s, beta %g s/B)",
                         params->alpha, params->beta);
    }
    if (params->gpus_per_node > 0 &&
        (!usable(params->inter_alpha) || !usable(params->inter_beta))) {
        return cp_errorf(err,
                         "the inter-node alpha and beta must be finite and not "
                         "negative (alpha %g s, beta %g s/B)",
                         params->inter_alpha, params->inter_beta);
    }
    return 0;
}

/* The link a flat algorithm runs at: the slower of the two links when the
 * ranks span several nodes, else the (intra-node) link. */
static void flat_link(unsigned p, const struct cp_model_params *params,
                      double *alpha, double *beta)
{
    *alpha = params->alpha;
    *beta = params->beta;
    if (params->gpus_per_node > 0 && p > params->gpus_per_node) {
        *alpha = fmax(params->alpha, params->inter_alpha);
        *beta = fmax(params->beta, params->inter_beta);
    }
}

static int hier_shape(unsigned p, const struct cp_model_params *params,
                      unsigned *nodes, struct cp_error *err)
{
    unsigned g = params->gpus_per_node;

    *nodes = 0;
    if (g == 0) {
        return cp_errorf(err,
                         "hierarchical needs a topology: GPUs per node and the "
                         "inter-node alpha and bandwidth");
    }
    if (p % g != 0) {
        return cp_errorf(err,
                         "hierarchical needs the ranks (%u) to be a multiple of "
                         "the GPUs per node (%u)",
                         p, g);
    }
    *nodes = p / g;
    return 0;
}

/* ---- times ------------------------------------------------------------ */

/* A flat algorithm's terms: *la alphas of latency and *wb times n betas
 * of bandwidth for coll on p ranks (the formulas of docs/model.md);
 * returns 1 when it needs a power-of-two number of ranks. */
static int flat_terms(enum cp_coll coll, enum cp_algo algo, unsigned p,
                      double *la, double *wb)
{
    double P = p, lg = log2((double)p), c = ceil_lg(p);
    int needs_pow2 = 0;

    *la = *wb = 0;
    switch (coll) {
    case CP_COLL_ALLREDUCE:
        switch (algo) {
        case CP_ALGO_RING:
            *la = 2 * (P - 1);
            *wb = 2 * (P - 1) / P;
            break;
        case CP_ALGO_RECURSIVE_DOUBLING:
            needs_pow2 = 1;
            *la = lg;
            *wb = lg;
            break;
        case CP_ALGO_RABENSEIFNER:
            needs_pow2 = 1;
            *la = 2 * lg;
            *wb = 2 * (P - 1) / P;
            break;
        case CP_ALGO_TREE:
            *la = 2 * c;
            *wb = 2 * c;
            break;
        default: /* CP_ALGO_DOUBLE_BINARY_TREE */
            *la = 2 * c;
            *wb = 2;
            break;
        }
        break;
    case CP_COLL_BROADCAST:
    case CP_COLL_REDUCE:
        if (algo == CP_ALGO_RING) {
            *la = P - 1;
            *wb = 1;
        } else { /* tree */
            *la = c;
            *wb = c;
        }
        break;
    case CP_COLL_REDUCESCATTER:
    case CP_COLL_ALLGATHER:
        *wb = (P - 1) / P;
        if (algo == CP_ALGO_RING) {
            *la = P - 1;
        } else { /* recursive doubling / halving */
            needs_pow2 = 1;
            *la = lg;
        }
        break;
    case CP_COLL_ALLTOALL:
        if (algo == CP_ALGO_PAIRWISE) {
            *la = P - 1;
            *wb = (P - 1) / P;
        } else { /* bruck */
            needs_pow2 = 1;
            *la = lg;
            *wb = lg / 2;
        }
        break;
    case CP_COLL_GATHER:
    case CP_COLL_SCATTER:
        *wb = (P - 1) / P;
        *la = algo == CP_ALGO_DIRECT ? P - 1 : c;
        break;
    default: /* CP_COLL_SENDRECV, direct */
        *la = 1;
        *wb = 1;
        break;
    }
    return needs_pow2;
}

/* The hierarchical algorithm's terms: a ring inside each node of
 * gpus_per_node GPUs, then one across the nodes. */
static int hier_terms(unsigned p, const struct cp_model_params *params,
                      struct cp_model_terms *terms, struct cp_error *err)
{
    unsigned g = params->gpus_per_node, nodes;
    double N, G = g;

    if (hier_shape(p, params, &nodes, err) < 0)
        return -1;
    N = nodes;
    if (terms) {
        terms->latency_s = 2 * (G - 1) * params->alpha +
                           2 * (N - 1) * params->inter_alpha;
        terms->sec_per_byte = 2 * (G - 1) / G * params->beta +
                              2 * (N - 1) / (N * G) * params->inter_beta;
    }
    return 0;
}

int cp_model_terms(enum cp_coll coll, enum cp_algo algo, unsigned p,
                   const struct cp_model_params *params,
                   struct cp_model_terms *terms, struct cp_error *err)
{
    double la, wb; /* latency in alphas, bandwidth in n*betas */
    double alpha, beta;

    if (check_args(coll, p, params, err) < 0)
        return -1;
    if (!algo_valid(algo)) {
        return cp_errorf(err, "unknown algorithm %d", (int)algo);
    }
    if (!(colls[coll].algos & BIT(algo))) {
        return cp_errorf(err, "%s is not an algorithm of %s",
                         algo_names[algo], colls[coll].name);
    }
    if (algo == CP_ALGO_HIERARCHICAL)
        return hier_terms(p, params, terms, err);
    if (flat_terms(coll, algo, p, &la, &wb) && !is_pow2(p)) {
        return cp_errorf(err,
                         "%s needs a power-of-two number of ranks, got %u",
                         algo_names[algo], p);
    }
    if (p == 1 && coll != CP_COLL_SENDRECV)
        la = wb = 0; /* one rank: nothing to move */
    flat_link(p, params, &alpha, &beta);
    if (terms) {
        terms->latency_s = la * alpha;
        terms->sec_per_byte = wb * beta;
    }
    return 0;
}

int cp_model_nccl_steps(enum cp_coll coll, unsigned p, double *A, double *B)
{
    struct cp_model_params unit_a = {.alpha = 1}, unit_b = {.beta = 1};
    struct cp_model_terms ta, tb;

    if (!coll_valid(coll) ||
        cp_model_terms(coll, colls[coll].nccl_algo, p, &unit_a, &ta, NULL) <
            0 ||
        cp_model_terms(coll, colls[coll].nccl_algo, p, &unit_b, &tb, NULL) < 0)
        return -1;
    *A = ta.latency_s;
    *B = tb.sec_per_byte;
    return *A > 0 && *B > 0 ? 0 : -1;
}

double cp_model_time(enum cp_coll coll, enum cp_algo algo, unsigned p,
                     double n, const struct cp_model_params *params)
{
    struct cp_model_terms t;

    if (!usable(n) || cp_model_terms(coll, algo, p, params, &t, NULL) < 0)
        return NAN;
    return t.latency_s + n * t.sec_per_byte;
}

int cp_model_best(enum cp_coll coll, unsigned p, double n,
                  const struct cp_model_params *params, enum cp_algo *best,
                  double *time, struct cp_error *err)
{
    double best_t = INFINITY;
    int found = -1;

    if (check_args(coll, p, params, err) < 0)
        return -1;
    if (!usable(n)) {
        return cp_errorf(err,
                         "the size must be finite and not negative, got %g", n);
    }
    for (int a = 0; a < CP_ALGO_COUNT; a++) {
        double t;

        if (!(colls[coll].algos & BIT(a)))
            continue;
        t = cp_model_time(coll, (enum cp_algo)a, p, n, params);
        if (!isnan(t) && (found < 0 || t < best_t)) {
            best_t = t;
            found = a;
        }
    }
    if (found < 0) {
        return cp_errorf(err,
                         "no algorithm of the model applies to %s on %u ranks",
                         colls[coll].name, p);
    }
    if (best)
        *best = (enum cp_algo)found;
    if (time)
        *time = best_t;
    return 0;
}

int cp_model_crossover(enum cp_coll coll, enum cp_algo a, enum cp_algo b,
                       unsigned p, const struct cp_model_params *params,
                       struct cp_model_crossover *out, struct cp_error *err)
{
    struct cp_model_terms ta, tb;
    struct cp_model_crossover x;
    double dl, dw, n;

    if (cp_model_terms(coll, a, p, params, &ta, err) < 0 ||
        cp_model_terms(coll, b, p, params, &tb, err) < 0)
        return -1;
    dl = tb.latency_s - ta.latency_s;
    dw = ta.sec_per_byte - tb.sec_per_byte;
    n = dw != 0 ? dl / dw : NAN;
    if (isfinite(n) && n > 0) {
        /* Below n* the smaller latency term wins, above it the smaller
         * bandwidth term. */
        x.crosses = 1;
        x.bytes = n;
        x.small = ta.latency_s < tb.latency_s ? a : b;
        x.large = x.small == a ? b : a;
    } else {
        /* Parallel lines, or lines that meet at n <= 0: the one with the
         * smaller bandwidth term (else the smaller latency, else a) is
         * never slower for n > 0. */
        x.crosses = 0;
        x.bytes = NAN;
        if (ta.sec_per_byte != tb.sec_per_byte)
            x.small = ta.sec_per_byte < tb.sec_per_byte ? a : b;
        else
            x.small = tb.latency_s < ta.latency_s ? b : a;
        x.large = x.small;
    }
    if (out)
        *out = x;
    return 0;
}

int cp_model_regime(enum cp_coll coll, enum cp_algo algo, unsigned p,
                    double n, const struct cp_model_params *params,
                    enum cp_regime *regime, struct cp_error *err)
{
    struct cp_model_terms t;
    double lat, bw;
    enum cp_regime r;

    if (cp_model_terms(coll, algo, p, params, &t, err) < 0)
        return -1;
    if (!usable(n)) {
        return cp_errorf(err,
                         "the size must be finite and not negative, got %g", n);
    }
    lat = t.latency_s;
    bw = n * t.sec_per_byte;
    if (lat == 0 && bw == 0)
        r = CP_REGIME_NONE;
    else if (lat > bw)
        r = CP_REGIME_LATENCY;
    else
        r = CP_REGIME_BANDWIDTH;
    if (regime)
        *regime = r;
    return 0;
}

const char *cp_model_regime_name(enum cp_regime regime)
{
    switch (regime) {
    case CP_REGIME_LATENCY:
        return "latency";
    case CP_REGIME_BANDWIDTH:
        return "bandwidth";
    default:
        return "none";
    }
}

int cp_model_hierarchical(unsigned p, double n,
                          const struct cp_model_params *params,
                          struct cp_model_hier *out, struct cp_error *err)
{
    struct cp_model_hier h;
    unsigned nodes;
    double g, N;

    if (check_args(CP_COLL_ALLREDUCE, p, params, err) < 0 ||
        hier_shape(p, params, &nodes, err) < 0)
        return -1;
    if (!usable(n)) {
        return cp_errorf(err,
                         "the size must be finite and not negative, got %g", n);
    }
    g = params->gpus_per_node;
    N = nodes;
    h.nodes = nodes;
    h.intra_step_s = g > 1 ? params->alpha + n / g * params->beta : 0;
    h.intra_rs_s = (g - 1) * h.intra_step_s;
    h.inter_step_s =
        N > 1 ? params->inter_alpha + n / g / N * params->inter_beta : 0;
    h.inter_ar_s = 2 * (N - 1) * h.inter_step_s;
    h.intra_ag_s = h.intra_rs_s;
    h.total_s = h.intra_rs_s + h.inter_ar_s + h.intra_ag_s;
    if (out)
        *out = h;
    return 0;
}

/* ---- sizes and bounds --------------------------------------------------- */

double cp_model_bytes_from_count(enum cp_coll coll, uint64_t count,
                                 size_t type_size, unsigned p)
{
    double bytes = (double)count * (double)type_size;

    if (!coll_valid(coll) || p == 0)
        return NAN;
    return colls[coll].per_rank_count ? bytes * p : bytes;
}

double cp_model_busbw_factor(enum cp_coll coll, unsigned p)
{
    double P = p;

    if (!coll_valid(coll) || p == 0)
        return NAN;
    switch (colls[coll].busbw_steps) {
    case 2:
        return 2 * (P - 1) / P;
    case 1:
        return (P - 1) / P;
    default: /* every byte crosses one link once */
        return 1;
    }
}

double cp_model_bytes_lower_bound(enum cp_coll coll, unsigned p, double n)
{
    if (!coll_valid(coll) || p == 0 || !usable(n))
        return NAN;
    if (p == 1 && coll != CP_COLL_SENDRECV)
        return 0;
    /* broadcast, reduce, sendrecv: 1; the others: the busbw factor. */
    return cp_model_busbw_factor(coll, p) * n;
}

int cp_model_lower_bounds(enum cp_coll coll, unsigned p, double n,
                          const struct cp_model_params *params,
                          double *latency_s, double *bandwidth_s,
                          struct cp_error *err)
{
    double rounds;

    if (check_args(coll, p, params, err) < 0)
        return -1;
    if (!usable(n)) {
        return cp_errorf(err,
                         "the size must be finite and not negative, got %g", n);
    }
    rounds = coll == CP_COLL_SENDRECV ? 1 : ceil_lg(p);
    if (latency_s)
        *latency_s = rounds * params->alpha;
    if (bandwidth_s)
        *bandwidth_s = cp_model_bytes_lower_bound(coll, p, n) * params->beta;
    return 0;
}

double cp_model_network_bound(unsigned p, double n,
                              const struct cp_model_params *params)
{
    unsigned nodes;
    double N, g;

    if (check_args(CP_COLL_ALLREDUCE, p, params, NULL) < 0 || !usable(n) ||
        hier_shape(p, params, &nodes, NULL) < 0)
        return NAN;
    N = nodes;
    g = params->gpus_per_node;
    return 2 * (N - 1) / N * (n / g) * params->inter_beta;
}

double cp_model_algbw(double n, double seconds)
{
    if (!usable(n) || !(seconds > 0) || !isfinite(seconds))
        return NAN;
    return n / seconds;
}

double cp_model_busbw(enum cp_coll coll, unsigned p, double n,
                      double seconds)
{
    return cp_model_algbw(n, seconds) * cp_model_busbw_factor(coll, p);
}
