/* cp_bench_fit.h - what a sweep says about a cluster: per collective the
 * latency floor, the busbw plateau, the alpha-beta fit and the regime
 * boundary; per link class the alpha and bandwidth that the analyzer's
 * site profile (cp_profile.h) expects.
 *
 * Points are grouped by (collective, ranks, link class).  Within a group
 * the out-of-place points are used (the in-place ones when there are none);
 * points of size 0, without a positive time, or with wrong results are left
 * out.  For each group:
 *
 *   latency_floor_s   the median time of the points at the (up to) three
 *                     smallest sizes: what a call costs when it moves
 *                     almost nothing.  floor_flat = 0 says that these
 *                     times still grow with size (factor > 1.5 between
 *                     them), so the sweep did not start small enough for a
 *                     floor and the value is an upper bound.
 *   busbw_Bps         the plateau: starting at the largest size and going
 *                     down, the points whose busbw stays within 5 % of the
 *                     median of those taken so far; the plateau is their
 *                     median.  busbw_largest_Bps is the busbw of the
 *                     largest size, for comparison.
 *   alpha_s,          the alpha-beta model fitted to the group's times
 *                     (each point's median_time_s where measured, the
 *                     median of its timed calls, else its time_s)
 *   bandwidth_Bps     with the algorithm collprof's analyzer assumes for
 *                     the collective (ring; a pipelined chain for
 *                     broadcast and reduce; pairwise all-to-all; direct
 *                     gather, scatter and send/recv): the point (x = B n/A,
 *                     y = t/A) for T = A alpha + B n beta, fitted by
 *                     cp_fit_line.
 *   regime_boundary_bytes  the size at which busbw reaches half of its
 *                     plateau, interpolated (log size) between the points
 *                     around it: where the bandwidth term catches up with
 *                     the latency term; for times T = L + n W it is
 *                     Hockney's n_1/2 = L/W.  Below it calls are
 *                     latency-bound.  When busbw never crosses half the
 *                     plateau inside the sweep, latency_floor_s x busbw_Bps
 *                     / busbw factor (the same size for T = L + n W);
 *                     regime_from_crossing says which.
 *
 * Groups are also told apart by their node count.  Per link class (intra:
 * every rank of the group on one node; inter: the group spans nodes):
 *   collectives   one fit over the all-reduce, reduce-scatter and all-gather
 *                 groups of the class (other collectives when none of these
 *                 was measured; never send/recv, gather or scatter, whose
 *                 concurrency differs between libraries).  Only groups whose
 *                 every hop is of the class take part: all intra groups, and
 *                 inter groups with one rank per node (or an unknown node
 *                 count); the groups that mix both kinds of hop (several
 *                 nodes, several ranks on each) are used only when nothing
 *                 else measured the class (from then says "mixed");
 *   pairs         one fit of T = alpha + n beta over the send/recv groups
 *                 of the class (the bench's pair runs);
 *   link          what the profile gets: the pure collectives' fit when it
 *                 succeeded, else the pairs', else the mixed collectives'.
 *
 * Nothing here prints.
 */
#ifndef COLLPROF_CP_BENCH_FIT_H
#define COLLPROF_CP_BENCH_FIT_H

#include <stdint.h>
#include <stdio.h>

#include "cp_bench.h"
#include "cp_error.h"

/* How far the fitted bandwidth may lie from the measured busbw plateau
 * before the fit must say why. */
#define CP_BENCH_PLATEAU_BAND 0.10

struct cp_bench_op_fit {
    enum cp_coll coll;
    unsigned ranks;
    int link; /* enum cp_link_class or CP_BENCH_LINK_UNKNOWN */
    unsigned nodes; /* 0: unknown */
    int in_place; /* 1 when the group had only in-place points */
    unsigned points;
    double factor; /* busbw factor */

    double latency_floor_s;
    uint64_t floor_max_bytes; /* the largest size that went into it */
    int floor_flat;

    double busbw_Bps; /* plateau */
    uint64_t plateau_min_bytes;
    unsigned plateau_points;
    double busbw_largest_Bps;
    uint64_t largest_bytes;

    int fit_ok;
    double alpha_s;
    double bandwidth_Bps;
    double fit_median_rel_residual;
    unsigned fit_points_used;
    char fit_why[160];
    /* the fitted bandwidth over the busbw plateau (NaN: either missing);
     * outside 1 +- CP_BENCH_PLATEAU_BAND plateau_why says why */
    double plateau_ratio;
    char plateau_why[256];

    double regime_boundary_bytes;
    int regime_from_crossing;
};

struct cp_bench_link_fit {
    int ok;
    double alpha_s;
    double bandwidth_Bps;
    unsigned points;
    unsigned points_used;
    double median_rel_residual;
    char from[160]; /* "allreduce, reducescatter, allgather on 4 ranks" */
    char why[160];  /* when !ok */
};

enum cp_bench_link_source {
    CP_BENCH_FROM_NONE = 0,
    CP_BENCH_FROM_COLLECTIVES = 1,
    CP_BENCH_FROM_PAIRS = 2
};

struct cp_bench_calibration {
    struct cp_bench_op_fit *ops; /* sorted by collective, then ranks */
    size_t nops;
    struct cp_bench_link_fit collectives[CP_LINK_COUNT];
    struct cp_bench_link_fit pairs[CP_LINK_COUNT];
    struct cp_bench_link_fit link[CP_LINK_COUNT];
    enum cp_bench_link_source link_source[CP_LINK_COUNT];
};

/* Calibrate from set.  Returns 0 (out filled; free it with
 * cp_bench_calibration_free), or -1 when out of memory. */
int cp_bench_calibrate(const struct cp_bench_set *set,
                       struct cp_bench_calibration *out, struct cp_error *err);

/* Frees out->ops and zeroes out; NULL is fine. */
void cp_bench_calibration_free(struct cp_bench_calibration *cal);

/* The fit of (coll, ranks) with the most ranks when ranks is 0; NULL when
 * none. */
const struct cp_bench_op_fit *
cp_bench_calibration_find(const struct cp_bench_calibration *cal,
                          enum cp_coll coll, unsigned ranks);

/* "collectives", "sendrecv", "none". */
const char *cp_bench_link_source_name(enum cp_bench_link_source source);

/* The site profile (cp_profile.h's format) of cal as text: '#' comment
 * lines (the optional comment, one line per '\n'-separated line of it,
 * then how each value was obtained), then one `intra` and/or `inter` line
 * for each class with a value.  Returns a malloc'ed string the caller
 * frees, or NULL when out of memory or no class has a value (err says
 * which). */
char *cp_bench_profile_text(const struct cp_bench_calibration *cal,
                            const char *comment, struct cp_error *err);

/* The same written to path (through a temporary file renamed into place),
 * after checking that cp_profile_parse_string reads it back to the same
 * values. */
int cp_bench_profile_write(const struct cp_bench_calibration *cal,
                           const char *path, const char *comment,
                           struct cp_error *err);

#endif
