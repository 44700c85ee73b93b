/* cp_model.h - the alpha-beta cost model of collectives.
 *
 * Sending m bytes from one rank to another costs alpha + m*beta (Hockney):
 * alpha is the latency per message in seconds, beta the time per byte in
 * seconds per byte (1 / link bandwidth).  Assumptions: one port per rank,
 * full duplex; every pair of ranks has the same alpha and beta; reductions
 * cost nothing.  A step in which all ranks send in parallel costs one
 * message time.  docs/model.md explains every formula; the lesson the model
 * follows is seeds/000 (Thakur, Rabenseifner and Gropp 2005 for the MPI
 * algorithms; NCCL's own tuning model for the pipelined ones).
 *
 * ---- n: the size of a collective ------------------------------------------
 * n is always the FULL buffer, in bytes, and is the S of nccl-tests, so that
 * algbw = n / t for every collective:
 *   allreduce      the vector each rank holds (input = output = n)
 *   broadcast      the root's vector, which every rank receives
 *   reduce         the vector each rank holds (the root gets the sum, n)
 *   reducescatter  each rank's INPUT, n; each rank receives a chunk of n/p
 *   allgather      the gathered OUTPUT, n; each rank contributes n/p
 *   alltoall       each rank's input: p blocks of n/p bytes
 *   gather         the root's output: p blocks of n/p, one from each rank
 *   scatter        the root's input: p blocks of n/p, one for each rank
 *   sendrecv       the one message
 * NCCL's count argument is per rank for allgather (sendcount), reducescatter
 * (recvcount), alltoall (elements per peer), gather (sendcount) and scatter
 * (recvcount): cp_model_bytes_from_count() multiplies those by p.
 *
 * ---- the algorithms and their times (lg = log2, p ranks) ------------------
 * Every time is affine in n: T(n) = L + n*W, with a latency term L and a
 * bandwidth term n*W (cp_model_terms).
 *   allreduce   ring                2(p-1)a + 2(p-1)/p n b
 *               recursive_doubling  lg p (a + n b)                 p = 2^k
 *               rabenseifner        2 lg p a + 2(p-1)/p n b        p = 2^k
 *               tree                2 ceil(lg p) (a + n b)   binomial reduce,
 *                                   then binomial broadcast, whole vector
 *               double_binary_tree  2 ceil(lg p) a + 2 n b   (see below)
 *               hierarchical        2(g-1)a_i + 2(g-1)/g n b_i
 *                                   + 2(N-1)a_e + 2(N-1)/N (n/g) b_e
 *   broadcast   ring                (p-1)a + n b   pipelined chain (NCCL)
 *               tree                ceil(lg p)(a + n b)   binomial
 *   reduce      ring                (p-1)a + n b   pipelined chain (NCCL)
 *               tree                ceil(lg p)(a + n b)   binomial
 *   reducescatter ring              (p-1)a + (p-1)/p n b
 *               recursive_doubling  lg p a + (p-1)/p n b           p = 2^k
 *                                   (recursive halving: the same exchange
 *                                   pattern run in the other direction)
 *   allgather   ring                (p-1)a + (p-1)/p n b
 *               recursive_doubling  lg p a + (p-1)/p n b           p = 2^k
 *   alltoall    pairwise            (p-1)a + (p-1)/p n b
 *               bruck               lg p (a + n/2 b)               p = 2^k
 *   gather,     direct              (p-1)a + (p-1)/p n b   the root talks to
 *   scatter                         every rank in turn (NCCL's send/recv)
 *               tree                ceil(lg p) a + (p-1)/p n b   binomial
 *   sendrecv    direct              a + n b
 * With p = 1 a collective moves nothing and every applicable algorithm takes
 * 0 s.  An algorithm that needs p = 2^k does not apply to other p: the
 * functions say so (NaN, or -1 with a reason) instead of guessing the extra
 * steps of a generalization.
 *
 * double_binary_tree is NCCL's tree all-reduce (NCCL 2.4+): two binary trees
 * in which no rank is an inner node twice; each tree reduces half of the
 * vector (m = n/2) up to its root and broadcasts it down again, pipelined in
 * small chunks.  In one tree an inner node receives 2m (reduce) + m
 * (broadcast) and sends m + 2m; a leaf sends m and receives m.  A rank that
 * is inner in one tree and a leaf in the other thus sends and receives 4m = 2n
 * in all: 2 n b on one port.  It cannot be less: every all-reduce needs
 * 2(p-1)/p n b (the lesson's lower bound), so an "n b" tree would beat the
 * bound for p > 2.  The pipeline fill costs one alpha per tree level up and
 * one per level down: 2 ceil(lg p) a (NCCL's trees have depth ceil(lg p);
 * NCCL's own tuner charges 2 lg p hops of latency and an algorithm bandwidth
 * of busbw/2, i.e. the same 2 n b).  Per-chunk latencies of a finite
 * pipeline are left out, so this is the ideal pipeline: a floor for what
 * NCCL's tree can reach.  The ring broadcast and reduce are the same ideal
 * pipeline over a chain of p-1 links.
 *
 * Hierarchical (all-reduce only): g GPUs per node, N = p/g nodes.  Reduce-
 * scatter in each node over the intra-node link (alpha, beta), all-reduce
 * across nodes by g parallel rings on n/g bytes each over the inter-node
 * link (inter_alpha, inter_beta), all-gather in each node.  With N = 1 it is
 * the flat ring.  When params give a topology (gpus_per_node > 0) and p
 * spans more than one node, the flat algorithms use the slower of the two
 * links (the larger alpha and the larger beta): every step of a flat
 * algorithm waits for its slowest hop.  In one node they use the intra-node
 * link.
 *
 * ---- regime -----------------------------------------------------------------
 * A call is latency-bound when the latency term L of the algorithm exceeds
 * its bandwidth term n*W, i.e. n < L/W (Hockney's n_1/2: the size at which
 * the algorithm reaches half of its peak bandwidth); bandwidth-bound
 * otherwise (a tie counts as bandwidth-bound).  Use the best algorithm at n
 * (cp_model_best) or the one the library is known to have run.
 *
 * ---- nccl-tests' algbw and busbw --------------------------------------------
 * algbw = n / t.  busbw = algbw * f with f = 2(p-1)/p for allreduce;
 * (p-1)/p for reducescatter, allgather, alltoall, gather, scatter; 1 for
 * broadcast, reduce, sendrecv.  f is also the bandwidth lower bound per
 * byte: f*n*beta is the least time the busiest rank's port needs, so busbw
 * can be read against the link bandwidth.
 *
 * Conventions: functions that can fail return 0 / -1 (or NaN for plain
 * numbers) and fill an optional struct cp_error; nothing here prints or
 * allocates.
 */
#ifndef COLLPROF_CP_MODEL_H
#define COLLPROF_CP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "cp_error.h"

/* The collectives the model knows.  Values are internal (not on disk). */
enum cp_coll {
    CP_COLL_ALLREDUCE = 0,
    CP_COLL_BROADCAST,
    CP_COLL_REDUCE,
    CP_COLL_REDUCESCATTER,
    CP_COLL_ALLGATHER,
    CP_COLL_ALLTOALL,
    CP_COLL_GATHER,
    CP_COLL_SCATTER,
    CP_COLL_SENDRECV,
    CP_COLL_COUNT
};

/* The algorithms; the enum order is the order of listings and of ties. */
enum cp_algo {
    CP_ALGO_RING = 0,
    CP_ALGO_RECURSIVE_DOUBLING,
    CP_ALGO_RABENSEIFNER,
    CP_ALGO_PAIRWISE,
    CP_ALGO_BRUCK,
    CP_ALGO_TREE,
    CP_ALGO_DOUBLE_BINARY_TREE,
    CP_ALGO_HIERARCHICAL,
    CP_ALGO_DIRECT,
    CP_ALGO_COUNT
};

enum cp_regime {
    CP_REGIME_NONE = 0,  /* nothing to move: p = 1 or n = 0 with no latency */
    CP_REGIME_LATENCY,   /* latency term > bandwidth term */
    CP_REGIME_BANDWIDTH  /* bandwidth term >= latency term */
};

/* The links.  alpha/beta: the flat network, or the intra-node link when
 * gpus_per_node > 0.  inter_*: the inter-node link, used only when
 * gpus_per_node > 0.  All in seconds and seconds per byte, finite, >= 0. */
struct cp_model_params {
    double alpha;
    double beta;
    unsigned gpus_per_node; /* g; 0 = a flat network */
    double inter_alpha;
    double inter_beta;
};

/* T(n) = latency_s + n * sec_per_byte. */
struct cp_model_terms {
    double latency_s;
    double sec_per_byte;
};

/* Where two algorithms' times meet.  crosses = 1: equal at n = bytes > 0,
 * `small` is faster below and `large` above.  crosses = 0: one is never
 * slower for n > 0 (it is `small` = `large`; for identical costs, a);
 * bytes is NaN. */
struct cp_model_crossover {
    int crosses;
    double bytes;
    enum cp_algo small;
    enum cp_algo large;
};

/* The three phases of the hierarchical all-reduce, in seconds. */
struct cp_model_hier {
    unsigned nodes;       /* N = p / g */
    double intra_step_s;  /* one reduce-scatter or all-gather step in node */
    double intra_rs_s;    /* (g-1) steps */
    double inter_step_s;  /* one step of the inter-node ring on n/g */
    double inter_ar_s;    /* 2(N-1) steps */
    double intra_ag_s;    /* (g-1) steps */
    double total_s;
};

/* ---- the collectives' facts -------------------------------------------- */

/* Everything collprof knows about one collective, in one row of one table
 * (cp_model.c).  Every switch over collectives elsewhere (the sizes, the
 * busbw factor, nccl-tests' columns and program names, the algorithm the
 * model assumes, the ring-like ones of the slow-link analysis, the bench
 * sweep, the plot markers) reads it.  Adding a collective: a row here, its
 * algorithms' costs in cp_model_terms, the wrapper row
 * (include/collprof/cp_logfmt.h), the CPU NCCL (tests/simnccl/). */
struct cp_coll_facts {
    enum cp_coll coll;
    const char *name;      /* "allreduce": cp_model_coll_name() */
    const char *alias;     /* another name accepted for it ("bcast"), or NULL */
    const char *perf_name; /* nccl-tests' program: "all_reduce_perf" */
    unsigned op[2];        /* the logged calls (enum cp_op) it is; 0 = none */
    int rooted;            /* has a root (nccl-tests' root column 0, else -1) */
    int reduces;           /* combines values (redop column "sum", else "none") */
    int per_rank_count;    /* NCCL's count is per rank: n = count*size*p */
    int busbw_steps;       /* busbw factor f: 2 = 2(p-1)/p, 1 = (p-1)/p, 0 = 1 */
    int symmetric;         /* every rank sends and receives alike (no root,
                              not point-to-point) */
    int ring_like;         /* runs as a ring whose traffic goes to the next
                              rank: each link carries the same bytes */
    int all_pairs;         /* every rank sends to every other (pairwise):
                              it crosses every node pair of its ranks, each
                              pair carrying 1/(p-1) of a rank's bytes */
    unsigned algos;        /* the model's algorithms: bits 1u << enum cp_algo */
    enum cp_algo nccl_algo; /* what the model assumes NCCL ran */
    int nccl_tree;         /* NCCL also runs it as its "Tree" (the model's
                              double_binary_tree) besides its "Ring"
                              (nccl_algo): the choice can be judged */
    int link_fit;          /* collprof bench's link fit: 2 preferred, 1 as a
                              fallback, 0 not used; also the sweep order */
    int marker;            /* report.html's busbw plot marker (enum
                              cp_svg_shape: 0 circle, 1 square, 2 triangle,
                              3 diamond for the rest) */
};

/* The row of coll (static, never to be freed); NULL out of range. */
const struct cp_coll_facts *cp_model_coll_facts(enum cp_coll coll);

/* ---- names ------------------------------------------------------------ */

/* "allreduce", "broadcast", "reduce", "reducescatter", "allgather",
 * "alltoall", "gather", "scatter", "sendrecv" (static strings, never to be
 * freed); NULL when out of range. */
const char *cp_model_coll_name(enum cp_coll coll);

/* Accepts the names above in any case, with or without '-' and '_'
 * ("all-reduce", "All_Reduce"), and "bcast", "send", "recv". */
int cp_model_coll_from_name(const char *text, enum cp_coll *coll,
                            struct cp_error *err);

/* The collective of a logged call: op is an enum cp_op value from
 * collprof/cp_logfmt.h (Bcast -> broadcast, Send and Recv -> sendrecv).
 * -1 for ops that move no data (group, communicator calls) or unknown.
 * coll may be NULL to only ask whether op is a data-moving call. */
int cp_model_coll_from_op(unsigned op, enum cp_coll *coll);

/* The op a logged call is on the wire, for matching the calls of one
 * collective across ranks: the first op of its collective's row (Bcast
 * is Broadcast in place); send and recv, the two ends of one transfer,
 * and ops that move no data stay themselves. */
unsigned cp_model_wire_op(unsigned op);

/* "ring", "recursive_doubling", "rabenseifner", "pairwise", "bruck",
 * "tree", "double_binary_tree", "hierarchical", "direct" (static strings);
 * NULL out of range. */
const char *cp_model_algo_name(enum cp_algo algo);

/* The names above in any case, '-' for '_' accepted. */
int cp_model_algo_from_name(const char *text, enum cp_algo *algo,
                            struct cp_error *err);

/* 1 when the model has a formula for algo on coll (for some p), else 0. */
int cp_model_algo_defined(enum cp_coll coll, enum cp_algo algo);

/* ---- sizes -------------------------------------------------------------- */

/* n for a call of NCCL's `count` elements of `type_size` bytes on p ranks
 * (see the table above); NaN when coll or p is invalid. */
double cp_model_bytes_from_count(enum cp_coll coll, uint64_t count,
                                 size_t type_size, unsigned p);

/* ---- times ------------------------------------------------------------ */

/* The latency and bandwidth terms of algo for coll on p ranks.  -1 with a
 * reason when the algorithm does not apply ("recursive_doubling needs a
 * power-of-two number of ranks, got 6"), or the arguments are invalid. */
int cp_model_terms(enum cp_coll coll, enum cp_algo algo, unsigned p,
                   const struct cp_model_params *params,
                   struct cp_model_terms *terms, struct cp_error *err);

/* The terms of the algorithm the model assumes NCCL ran (the facts'
 * nccl_algo) in units: A latency steps and B bytes through the busiest
 * port per byte of n, so T = A alpha + B n beta.  -1 when the algorithm
 * does not apply on p ranks or either term is 0 (one rank). */
int cp_model_nccl_steps(enum cp_coll coll, unsigned p, double *A, double *B);

/* The time of algo for coll on p ranks and n bytes (n >= 0), in seconds;
 * NaN when cp_model_terms fails or n is invalid. */
double cp_model_time(enum cp_coll coll, enum cp_algo algo, unsigned p,
                     double n, const struct cp_model_params *params);

/* The fastest applicable algorithm at n (ties: the first in enum order)
 * and its time (time may be NULL).  hierarchical competes only when params
 * give a topology.  -1 when no algorithm applies or arguments are bad. */
int cp_model_best(enum cp_coll coll, unsigned p, double n,
                  const struct cp_model_params *params, enum cp_algo *best,
                  double *time, struct cp_error *err);

/* The size at which a and b take the same time, in closed form (every
 * model is affine in n): n* = (L_b - L_a) / (W_a - W_b) when that is > 0.
 * For ring and recursive_doubling on all-reduce this is the lesson's
 * n* = (2(p-1) - lg p) a / ((lg p - 2(p-1)/p) b).  -1 when either does not
 * apply. */
int cp_model_crossover(enum cp_coll coll, enum cp_algo a, enum cp_algo b,
                       unsigned p, const struct cp_model_params *params,
                       struct cp_model_crossover *out, struct cp_error *err);

/* The regime of algo at n (see above).  -1 when algo does not apply. */
int cp_model_regime(enum cp_coll coll, enum cp_algo algo, unsigned p,
                    double n, const struct cp_model_params *params,
                    enum cp_regime *regime, struct cp_error *err);

/* "none", "latency", "bandwidth" (static strings). */
const char *cp_model_regime_name(enum cp_regime regime);

/* The phases of the hierarchical all-reduce; -1 without a topology or when
 * p is not a multiple of gpus_per_node. */
int cp_model_hierarchical(unsigned p, double n,
                          const struct cp_model_params *params,
                          struct cp_model_hier *out, struct cp_error *err);

/* ---- lower bounds --------------------------------------------------------- */

/* The bytes that the busiest rank must send (or receive) in any algorithm:
 * 2(p-1)/p n for allreduce; (p-1)/p n for reducescatter, allgather,
 * alltoall, gather, scatter; n for broadcast, reduce (p > 1) and sendrecv;
 * 0 for a collective on one rank.  NaN when arguments are invalid. */
double cp_model_bytes_lower_bound(enum cp_coll coll, unsigned p, double n);

/* The latency bound ceil(lg p) * alpha (one round can at most double the
 * ranks that hold a piece of information; sendrecv: alpha) and the
 * bandwidth bound cp_model_bytes_lower_bound * beta, with the flat link of
 * params (alpha, beta: in a topology, the fast intra-node link, so both
 * stay bounds).  Either output may be NULL. */
int cp_model_lower_bounds(enum cp_coll coll, unsigned p, double n,
                          const struct cp_model_params *params,
                          double *latency_s, double *bandwidth_s,
                          struct cp_error *err);

/* The network lower bound of an all-reduce over N = p/g nodes:
 * 2(N-1)/N * n / (g * B_net) = 2(N-1)/N * (n/g) * inter_beta: treat each
 * node as one rank whose g network cards share its traffic.  NaN without a
 * topology or when g does not divide p. */
double cp_model_network_bound(unsigned p, double n,
                              const struct cp_model_params *params);

/* ---- nccl-tests' bandwidths --------------------------------------------- */

/* The busbw factor f of coll on p ranks; NaN when invalid. */
double cp_model_busbw_factor(enum cp_coll coll, unsigned p);

/* n / seconds; NaN unless seconds > 0. */
double cp_model_algbw(double n, double seconds);

/* algbw * f. */
double cp_model_busbw(enum cp_coll coll, unsigned p, double n,
                      double seconds);

#endif
