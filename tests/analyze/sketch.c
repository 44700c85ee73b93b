/* sketch.c - the bounded quantile sketch (analyzer/core/cp_sketch.h). */
#include "config.h"

#include <math.h>

#include "cp_sketch.h"
#include "tap.h"

int main(void)
{
    struct cp_sketch a, b, all;
    int i;

    cp_sketch_init(&a);
    ok(isnan(cp_sketch_quantile(&a, 0.5)), "empty sketch: NaN");

    for (i = 1; i <= 1000; i++)
        cp_sketch_add(&a, i * 1e-6);
    is_near(cp_sketch_quantile(&a, 0.5), 500e-6, 0.01, "p50 of 1..1000 us");
    is_near(cp_sketch_quantile(&a, 0.99), 990e-6, 0.01, "p99 of 1..1000 us");
    is_near(cp_sketch_quantile(&a, 0), 1e-6, 0.01, "p0 is the minimum");
    is_near(cp_sketch_quantile(&a, 1), 1000e-6, 0.01, "p100 is the maximum");
    is_int(a.count, 1000, "count");

    cp_sketch_init(&b);
    for (i = 0; i < 10; i++)
        cp_sketch_add(&b, 0);
    for (i = 0; i < 10; i++)
        cp_sketch_add(&b, 1.0);
    is_int(b.zeros, 10, "zeros counted apart");
    ok(cp_sketch_quantile(&b, 0.4) == 0, "quantile among the zeros is 0");
    is_near(cp_sketch_quantile(&b, 0.9), 1.0, 0.01, "quantile above them");
    cp_sketch_add(&b, NAN);
    cp_sketch_add(&b, -1);
    is_int(b.zeros, 12, "NaN and negatives count as zeros");

    /* merge = adding everything to one sketch */
    cp_sketch_init(&all);
    for (i = 1; i <= 1000; i++)
        cp_sketch_add(&all, i * 1e-6);
    for (i = 0; i < 10; i++)
        cp_sketch_add(&all, 0);
    for (i = 0; i < 10; i++)
        cp_sketch_add(&all, 1.0);
    cp_sketch_add(&all, NAN);
    cp_sketch_add(&all, -1);
    ok(cp_sketch_merge(&a, &b) == 0, "merge");
    is_int(a.count, all.count, "merged count");
    for (i = 0; i <= 10; i++)
        ok(cp_sketch_quantile(&a, i / 10.0) == cp_sketch_quantile(&all, i / 10.0),
           "merged quantile %d/10 equals the direct one", i);

    /* memory is bounded by the range, not by the count */
    cp_sketch_clear(&a);
    for (i = 0; i < 1000000; i++)
        cp_sketch_add(&a, 1e-9 * pow(10, (i % 1200) / 100.0));
    ok(a.nbins <= 64 * 42 + 64, "1e6 values over 12 decades: %u buckets",
       a.nbins);
    is_near(cp_sketch_quantile(&a, 0.5), 1e-9 * pow(10, 6), 0.03,
            "median of a log-uniform spread");
    ok(cp_sketch_index(1.0) < cp_sketch_index(1.02) &&
           cp_sketch_index(1.02) < cp_sketch_index(2.0),
       "bucket index grows with the value");

    cp_sketch_clear(&a);
    cp_sketch_clear(&b);
    cp_sketch_clear(&all);
    cp_sketch_clear(NULL);
    ok(a.bins == NULL && a.count == 0, "clear empties");
    return done_testing();
}
