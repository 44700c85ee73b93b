/* cp_stats.c - small order statistics over doubles (see cp_stats.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "cp_stats.h"

int cp_stats_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void cp_stats_sort(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cp_stats_compare_double);
}

double cp_stats_median_sorted(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double cp_stats_median(double *v, size_t n)
{
    cp_stats_sort(v, n);
    return cp_stats_median_sorted(v, n);
}

double cp_stats_min(const double *v, size_t n)
{
    double m;
    size_t i;

    if (n == 0)
        return NAN;
    m = v[0];
    for (i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}
