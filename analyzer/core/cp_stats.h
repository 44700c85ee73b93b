/* cp_stats.h - small order statistics over arrays of doubles: the sort,
 * the median and the minimum that the analysis (clock offsets, baselines,
 * stragglers), the bench (call times, calibration) and the probe (pair
 * figures) take of their samples.
 *
 * Values are compared with < and >, so a NaN compares equal to every
 * value: callers pass arrays without NaN (where a NaN would end up, and
 * what the median then is, depends on the order of the input).
 */
#ifndef COLLPROF_CP_STATS_H
#define COLLPROF_CP_STATS_H

#include <stddef.h>

/* qsort's comparison of two doubles, ascending: -1, 0 or 1. */
int cp_stats_compare_double(const void *a, const void *b);

/* Sorts v[0..n) ascending, in place. */
void cp_stats_sort(double *v, size_t n);

/* The median of v[0..n), already sorted ascending: the middle value for an
 * odd n, the mean of the two middle ones for an even n; NaN when n is 0. */
double cp_stats_median_sorted(const double *v, size_t n);

/* The median of v[0..n) (as cp_stats_median_sorted), sorting v in place
 * first; NaN when n is 0. */
double cp_stats_median(double *v, size_t n);

/* The smallest of v[0..n); NaN when n is 0.  Starts from v[0] and takes
 * each later value that is below it: a NaN after v[0] is passed over. */
double cp_stats_min(const double *v, size_t n);

#endif
