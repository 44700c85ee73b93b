/* fit.c - the robust line fit (analyzer/core/cp_fit.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_fit.h"
#include "tap.h"

static double noise(unsigned *seed)
{
    /* uniform in [-1, 1] */
    return 2.0 * rand_r(seed) / RAND_MAX - 1;
}

int main(void)
{
    struct cp_fit_point pts[200];
    struct cp_fit_result r;
    double a = 20e-6, b = 1 / 400e6;
    unsigned seed = 7, i, n = 0;

    /* exact points from 64 B to 64 MB */
    for (i = 0; i < 21; i++) {
        double x = 64.0 * pow(2, i);
        pts[n].x = x;
        pts[n].y = a + b * x;
        pts[n].weight = 1;
        pts[n].calls = 10;
        n++;
    }
    ok(cp_fit_line(pts, n, &r) == 0 && r.ok, "exact line fits");
    is_near(r.alpha, a, 1e-6, "alpha exact");
    is_near(r.beta, b, 1e-6, "beta exact");
    ok(r.median_rel_residual < 1e-9, "no residual");
    ok(r.r2 > 0.999999, "r2 = 1");
    is_int(r.calls_used, 210, "calls used");

    /* 5 % noise and 30 % of the points 3x too slow */
    for (i = 0; i < n; i++) {
        pts[i].y = (a + b * pts[i].x) * (1 + 0.05 * noise(&seed));
        if (i % 3 == 1)
            pts[i].y *= 3;
    }
    ok(cp_fit_line(pts, n, &r) == 0, "noisy line fits");
    is_near(r.alpha, a, 0.10, "alpha within 10 %% despite outliers");
    is_near(r.beta, b, 0.10, "beta within 10 %% despite outliers");
    ok(r.points_used < n, "outliers dropped (%u of %u used)", r.points_used, n);

    /* underdetermined */
    pts[0].x = 1000;
    pts[0].y = 1e-3;
    ok(cp_fit_line(pts, 1, &r) < 0 && !r.ok && strstr(r.why, "too few"),
       "one point: %s", r.why);
    for (i = 0; i < 5; i++) {
        pts[i].x = 1000 + i;
        pts[i].y = 1e-3;
        pts[i].weight = 1;
    }
    ok(cp_fit_line(pts, 5, &r) < 0 && strstr(r.why, "alike"),
       "one size: %s", r.why);
    for (i = 0; i < 5; i++) {
        pts[i].x = 1000 * pow(10, i);
        pts[i].y = 1e-3;
    }
    ok(cp_fit_line(pts, 5, &r) < 0 && strstr(r.why, "bandwidth"),
       "flat time: %s", r.why);

    /* a line through the origin: alpha clamped at 0, not negative */
    for (i = 0; i < 10; i++) {
        pts[i].x = 1000 * pow(2, i);
        pts[i].y = b * pts[i].x * (i % 2 ? 1.01 : 0.99);
        pts[i].weight = 1;
    }
    ok(cp_fit_line(pts, 10, &r) == 0 && r.alpha >= 0, "alpha >= 0 (%g)",
       r.alpha);
    is_near(r.beta, b, 0.02, "beta through the origin");

    /* invalid points are ignored */
    pts[10].x = NAN;
    pts[10].y = 1;
    pts[10].weight = 1;
    pts[11].x = 5;
    pts[11].y = -1;
    pts[11].weight = 1;
    ok(cp_fit_line(pts, 12, &r) == 0 && r.points == 10, "invalid skipped");
    return done_testing();
}
