/* cp_sketch.c - log-bucketed quantile sketch. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "cp_sketch.h"

#define GROW_MARGIN 32 /* extra buckets on the side that grew */

void cp_sketch_clear(struct cp_sketch *s)
{
    int saved = errno;

    if (!s)
        return;
    free(s->bins);
    cp_sketch_init(s);
    errno = saved;
}

int cp_sketch_grow(struct cp_sketch *s, int32_t idx)
{
    int32_t lo, hi; /* new range [lo, hi) */
    uint32_t *bins;

    if (s->bins && idx >= s->lo && idx < s->lo + (int32_t)s->nbins)
        return 0;
    if (!s->bins) {
        lo = idx - GROW_MARGIN;
        hi = idx + GROW_MARGIN;
    } else {
        lo = s->lo;
        hi = s->lo + (int32_t)s->nbins;
        if (idx < lo)
            lo = idx - GROW_MARGIN;
        if (idx >= hi)
            hi = idx + GROW_MARGIN;
    }
    if (lo < 0)
        lo = 0;
    bins = calloc((size_t)(hi - lo), sizeof *bins);
    if (!bins)
        return -1;
    if (s->bins) {
        memcpy(bins + (s->lo - lo), s->bins, s->nbins * sizeof *bins);
        free(s->bins);
    }
    s->bins = bins;
    s->lo = lo;
    s->nbins = (uint32_t)(hi - lo);
    return 0;
}

int cp_sketch_merge(struct cp_sketch *dst, const struct cp_sketch *src)
{
    uint32_t i;

    if (src->bins) {
        if (cp_sketch_grow(dst, src->lo) < 0 ||
            cp_sketch_grow(dst, src->lo + (int32_t)src->nbins - 1) < 0)
            return -1;
        for (i = 0; i < src->nbins; i++)
            dst->bins[src->lo - dst->lo + (int32_t)i] += src->bins[i];
    }
    dst->count += src->count;
    dst->zeros += src->zeros;
    return 0;
}

double cp_sketch_bucket_value(int32_t idx)
{
    union {
        double d;
        uint64_t u;
    } lo, hi;

    lo.u = (uint64_t)idx << (52 - CP_SKETCH_MANTISSA_BITS);
    hi.u = (uint64_t)(idx + 1) << (52 - CP_SKETCH_MANTISSA_BITS);
    return (lo.d + hi.d) / 2;
}

double cp_sketch_quantile(const struct cp_sketch *s, double q)
{
    uint64_t rank, seen;
    uint32_t i;

    if (s->count == 0)
        return NAN;
    if (!(q >= 0))
        q = 0;
    if (q > 1)
        q = 1;
    rank = (uint64_t)ceil(q * (double)s->count);
    if (rank < 1)
        rank = 1;
    seen = s->zeros;
    if (rank <= seen)
        return 0;
    for (i = 0; i < s->nbins; i++) {
        seen += s->bins[i];
        if (seen >= rank)
            return cp_sketch_bucket_value(s->lo + (int32_t)i);
    }
    return NAN; /* not reached: counts disagree */
}
