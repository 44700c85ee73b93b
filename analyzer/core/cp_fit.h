/* cp_fit.h - a robust fit of the line y = alpha + beta * x.
 *
 * Used to fit the alpha-beta model to a job's own calls: for a call whose
 * model time is L + n*W with L = A*alpha and W = B*beta (A latency steps and
 * B bytes per byte of the algorithm, from cp_model_terms), the point
 * (x = B*n/A, y = t/A) lies on y = alpha + beta*x.  Calls of different
 * collectives and communicator sizes thus share one line per link class.
 *
 * The caller passes one point per group of calls (the analysis: per
 * communicator, collective and 1/8-octave size bucket) with y the group's
 * median time.  The line minimizes the weighted sum of absolute log
 * residuals |ln(alpha + beta x) - ln y|: a median regression in log space,
 * so that a 10 us call counts as much as a 100 ms one, outliers on either
 * side have a bounded pull, and multiplicative noise of median 1 leaves the
 * fit unbiased.  Points more than max(4 x the median, 0.25) off in log are
 * reported as not used (outliers).
 *
 * Nothing here prints or allocates.
 */
#ifndef COLLPROF_CP_FIT_H
#define COLLPROF_CP_FIT_H

#include <stddef.h>
#include <stdint.h>

struct cp_fit_point {
    double x;       /* B*n/A, bytes, >= 0 */
    double y;       /* t/A, seconds, > 0 */
    double weight;  /* > 0; the analysis uses sqrt(calls) */
    uint64_t calls; /* calls behind the point (for calls_used) */
    int used;       /* out: kept in the final round */
};

struct cp_fit_result {
    int ok;                     /* 1 when alpha and beta are determined */
    double alpha;               /* seconds */
    double beta;                /* seconds per byte, > 0 when ok */
    double median_rel_residual; /* weighted median of |fit - y| / y */
    double r2;                  /* of log y against log fit, used points */
    unsigned points;            /* points given (valid ones) */
    unsigned points_used;
    uint64_t calls_used;
    double x_min, x_max;        /* range of the used points */
    char why[160];              /* when !ok: one sentence */
};

/* Fit pts[0..n) (their `used` flags are written).  Returns 0 when the line
 * is determined, -1 otherwise (out->why says why: too few points, sizes too
 * alike to separate alpha from beta, no bandwidth term). */
int cp_fit_line(struct cp_fit_point *pts, size_t n, struct cp_fit_result *out);

#endif
