/* cp_sketch.h - a bounded quantile sketch: a log-bucketed histogram.
 *
 * Values are non-negative doubles (seconds, bytes).  A positive value falls
 * into the bucket named by its binary exponent and the top
 * CP_SKETCH_MANTISSA_BITS bits of its mantissa, so buckets are 2^-6 = 1.6 %
 * wide and a quantile is returned within 0.8 % of a value of the data.
 * Zero has its own counter.  The buckets are a dense array over the range of
 * values seen, grown by realloc only when a value falls outside it: a
 * sketch of values spanning 1 ns to 1 hour holds at most 42 octaves x 64
 * buckets, 11 KiB, whatever the number of values added.  Adding a value is
 * a shift and an increment (no log()).
 *
 * The sketch never prints; cp_sketch_add returns -1 only when growing the
 * array fails (the value is then not counted).
 */
#ifndef COLLPROF_CP_SKETCH_H
#define COLLPROF_CP_SKETCH_H

#include <stdint.h>
#include <string.h>

#define CP_SKETCH_MANTISSA_BITS 6

struct cp_sketch {
    uint64_t count;  /* values added, zeros included */
    uint64_t zeros;  /* values <= 0 (and NaN) */
    int32_t lo;      /* bucket index of bins[0] */
    uint32_t nbins;  /* length of bins */
    uint32_t *bins;  /* owned; NULL until the first positive value */
};

/* An empty sketch (no allocation). */
static inline void cp_sketch_init(struct cp_sketch *s)
{
    memset(s, 0, sizeof *s);
}

/* Free the buckets; the sketch is empty again.  Accepts NULL. */
void cp_sketch_clear(struct cp_sketch *s);

/* The bucket index of a positive finite value. */
static inline int32_t cp_sketch_index(double v)
{
    union {
        double d;
        uint64_t u;
    } b;
    b.d = v;
    return (int32_t)(b.u >> (52 - CP_SKETCH_MANTISSA_BITS));
}

int cp_sketch_grow(struct cp_sketch *s, int32_t idx);

/* Count v.  Returns 0, or -1 when memory for the buckets ran out. */
static inline int cp_sketch_add(struct cp_sketch *s, double v)
{
    int32_t idx;
    uint32_t off;

    if (!(v > 0) || v > 1e300) {
        s->count++;
        s->zeros++;
        return 0;
    }
    idx = cp_sketch_index(v);
    off = (uint32_t)(idx - s->lo);
    if (__builtin_expect(off >= s->nbins || !s->bins, 0)) {
        if (cp_sketch_grow(s, idx) < 0)
            return -1;
        off = (uint32_t)(idx - s->lo);
    }
    s->bins[off]++;
    s->count++;
    return 0;
}

/* Add every value of src to dst.  Returns 0 or -1 (out of memory). */
int cp_sketch_merge(struct cp_sketch *dst, const struct cp_sketch *src);

/* The q-quantile (0 <= q <= 1) by the nearest-rank rule: the value of rank
 * ceil(q * count) (at least 1), returned as the middle of its bucket.  NaN
 * for an empty sketch. */
double cp_sketch_quantile(const struct cp_sketch *s, double q);

/* The middle of bucket idx (the value a quantile in that bucket returns). */
double cp_sketch_bucket_value(int32_t idx);

#endif
