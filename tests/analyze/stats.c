/* stats.c - the order statistics of analyzer/core/cp_stats.h. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "cp_stats.h"
#include "tap.h"

static int is_sorted(const double *v, size_t n)
{
    size_t i;

    for (i = 1; i < n; i++)
        if (v[i - 1] > v[i])
            return 0;
    return 1;
}

int main(void)
{
    double odd[] = {5, 1, 4, 2, 3};
    double even[] = {8, 2, 6, 4};
    double one[] = {7.5};
    double two[] = {3, 1};
    double dup[] = {2, 2, 1, 2, 9, 2};
    double neg[] = {-1e-3, 2e-3, -3e-3};
    double sorted[] = {1, 2, 10, 20};
    double mins[] = {4, -2, 8, -2.5, 0};
    double nan_later[] = {3, NAN, 1, 2};
    double nan_first[] = {NAN, 1, 2};
    double big[1001];
    double x = 1, y = 2;
    size_t i;

    /* the comparison qsort uses */
    is_int(cp_stats_compare_double(&x, &y), -1, "compare: below");
    is_int(cp_stats_compare_double(&y, &x), 1, "compare: above");
    is_int(cp_stats_compare_double(&x, &x), 0, "compare: equal");

    /* n = 0: NaN, and nothing is touched (v may be NULL) */
    ok(isnan(cp_stats_median(NULL, 0)), "median of nothing is NaN");
    ok(isnan(cp_stats_median_sorted(NULL, 0)),
       "median of nothing (sorted) is NaN");
    ok(isnan(cp_stats_min(NULL, 0)), "min of nothing is NaN");
    cp_stats_sort(NULL, 0);
    ok(1, "sorting nothing");

    /* odd count: the middle value; the array ends sorted */
    ok(cp_stats_median(odd, 5) == 3, "median of 5 values is the middle");
    ok(is_sorted(odd, 5) && odd[0] == 1 && odd[4] == 5,
       "median sorts its array in place");
    ok(cp_stats_median(one, 1) == 7.5, "median of one value is it");

    /* even count: the mean of the two middle values */
    ok(cp_stats_median(even, 4) == 5, "median of 4 values: mean of 4 and 6");
    ok(cp_stats_median(two, 2) == 2, "median of 2 values: their mean");
    ok(cp_stats_median(dup, 6) == 2, "median with repeated values");
    is_near(cp_stats_median(neg, 3), -1e-3, 1e-12, "median of negatives");

    /* already sorted: no reordering, and a prefix is a smaller sample */
    ok(cp_stats_median_sorted(sorted, 4) == 6, "median of a sorted array");
    ok(cp_stats_median_sorted(sorted, 3) == 2, "median of a sorted prefix");
    ok(sorted[0] == 1 && sorted[1] == 2 && sorted[2] == 10 && sorted[3] == 20,
       "median_sorted leaves its array alone");

    /* a larger spread, in reverse order */
    for (i = 0; i < 1001; i++)
        big[i] = (double)(1000 - i);
    ok(cp_stats_median(big, 1001) == 500, "median of 0..1000 reversed");
    ok(is_sorted(big, 1001), "... sorted afterwards");
    ok(cp_stats_median(big, 1000) == 499.5, "median of 0..999");

    /* the minimum */
    ok(cp_stats_min(mins, 5) == -2.5, "min of mixed signs");
    ok(cp_stats_min(mins, 1) == 4, "min of one value");
    ok(cp_stats_min(nan_later, 4) == 1, "min passes over a later NaN");
    ok(isnan(cp_stats_min(nan_first, 3)), "min keeps a NaN at v[0]");

    return done_testing();
}
