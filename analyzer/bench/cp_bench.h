/* cp_bench.h - collprof bench: the collectives it measures, nccl-tests'
 * conventions for their sizes and bandwidths, and the points of a sweep.
 *
 * One point is one (collective, size, in-place or not) measurement of one
 * communicator, as one line half of nccl-tests' output:
 *
 *   size   the full buffer in bytes, nccl-tests' "size" column and the n of
 *          cp_model.h: the vector of all-reduce, broadcast, reduce and
 *          send/recv; the gathered output of all-gather and gather; the
 *          input of reduce-scatter, all-to-all and scatter.
 *   count  NCCL's count argument, nccl-tests' "count" column: size / type
 *          size for all-reduce, broadcast, reduce, send/recv; size / type
 *          size / ranks for the others (per rank, or per peer for
 *          all-to-all).
 *   algbw  size / time;  busbw = algbw x cp_model_busbw_factor().
 *
 * A requested size that the ranks cannot split evenly is rounded down as
 * nccl-tests does: count = size / type size / ranks, size = count x type
 * size x ranks (so 4 B of float all-gather on 4 ranks is size 0).
 *
 * The bench (cp_bench_run.h) and the import of nccl-tests outputs
 * (cp_bench_import.h) both produce arrays of struct cp_bench_point grouped
 * in series (one sweep of one collective on one set of ranks); the
 * calibration (cp_bench_fit.h) reads them.  Nothing here prints.
 */
#ifndef COLLPROF_CP_BENCH_H
#define COLLPROF_CP_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "cp_error.h"
#include "cp_model.h"
#include "cp_profile.h"

/* The collective named in text: a cp_model name ("allreduce",
 * "all-reduce", "bcast") or nccl-tests' program name, alone or as the last
 * path component of a command or file name that contains it
 * ("./build/all_reduce_perf", "h100.all_gather_perf.txt").  -1 when none
 * or more than one collective is named. */
int cp_bench_op_find(const char *text, enum cp_coll *coll);

/* The size in bytes of an element of nccl-tests' type name ("float",
 * "half", "bfloat16", "int8" ... and the ncclDataType names "float32",
 * "float16"); 0 when unknown. */
size_t cp_bench_type_size(const char *name);

/* NCCL's count argument for a requested size (see above); 0 when the size
 * does not hold one element per rank. */
uint64_t cp_bench_count(enum cp_coll coll, uint64_t bytes, size_t type_size,
                        unsigned ranks);

/* The size (bytes) that count elements make, as nccl-tests prints it. */
uint64_t cp_bench_size(enum cp_coll coll, uint64_t count, size_t type_size,
                       unsigned ranks);

/* ---- points and series ------------------------------------------------- */

#define CP_BENCH_LINK_UNKNOWN (-1)

/* One sweep of one collective on one set of ranks: a section of the bench's
 * output, or one table of an nccl-tests output. */
struct cp_bench_series {
    enum cp_coll coll;
    unsigned ranks;      /* 0: unknown */
    unsigned nodes;      /* 0: unknown */
    int link;            /* enum cp_link_class or CP_BENCH_LINK_UNKNOWN */
    int pair;            /* 1: a send/recv between two chosen ranks */
    int peers[2];        /* the pair's ranks, when pair */
    char type[16];       /* "float" */
    char source[256];    /* file (import) or "" */
    unsigned first_line; /* import: line of the first point */
};

struct cp_bench_point {
    unsigned series; /* index into the series array */
    enum cp_coll coll;
    unsigned ranks;
    uint64_t size_bytes;
    uint64_t count;
    int root;
    int in_place;
    double time_s;
    double algbw_Bps;
    double busbw_Bps;
    int64_t wrong;  /* wrong elements; -1: not checked (N/A) */
    unsigned iters; /* timed iterations (0: unknown) */
    /* Not from nccl-tests (0 or NaN: not measured).  median_time_s: the
     * median of the single timed calls (host buffers, where a call returns
     * when it is done); gpu_time_s: the CUDA events around the timed calls, per
     * call (device buffers). */
    double median_time_s;
    double gpu_time_s;
};

/* A growing array of points and series owned by the caller. */
struct cp_bench_set {
    struct cp_bench_series *series;
    size_t nseries, cap_series;
    struct cp_bench_point *points;
    size_t npoints, cap_points;
};

/* Append a copy; -1 when out of memory.  *index (may be NULL) receives the
 * new series' index. */
int cp_bench_set_add_series(struct cp_bench_set *set,
                            const struct cp_bench_series *s, unsigned *index);
int cp_bench_set_add_point(struct cp_bench_set *set,
                           const struct cp_bench_point *p);

/* Frees the arrays (not set itself) and zeroes set; NULL is fine. */
void cp_bench_set_clear(struct cp_bench_set *set);

/* algbw and busbw of p from its size, time and ranks (nccl-tests'
 * conventions through cp_model); NaN when the time is not > 0. */
void cp_bench_point_bandwidths(struct cp_bench_point *p);

/* ---- nccl-tests' text --------------------------------------------------- */

/* nccl-tests' number formatting: a width-character field with 2, 1 or 0
 * decimals as the integer part grows, an exponent beyond that.  Writes into
 * buf (>= 16 bytes) and returns it. */
const char *cp_bench_format_number(double value, int width, char *buf,
                                   size_t size);

/* The three header lines of a results table ("#  out-of-place in-place",
 * the column names, the units), each ending in '\n'. */
const char *cp_bench_table_header(void);

/* One line of the table for an out-of-place and an in-place point of the
 * same size (either may be NULL: that half is left blank), without the
 * newline.  type and redop as nccl-tests names them ("float", "sum";
 * redop NULL: "sum" or "none" from the collective). */
const char *cp_bench_format_line(const struct cp_bench_point *out_of_place,
                                 const struct cp_bench_point *in_place,
                                 const char *type, char *buf, size_t size);

#endif
