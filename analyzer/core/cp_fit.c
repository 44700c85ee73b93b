/* cp_fit.c - robust fit of y = alpha + beta x (see cp_fit.h).
 *
 * The line minimizes the weighted sum of absolute log residuals,
 *   sum w |ln(alpha + beta x) - ln y|,
 * a median regression in log space: a point's pull is bounded whichever
 * side it lies on and however small its y (a least-squares fit of relative
 * residuals is not: one fast outlier with a tiny y drags it to alpha = 0),
 * and multiplicative noise of median 1 leaves it unbiased.  The objective
 * is minimized over (ln alpha, ln beta) by Nelder-Mead from the better of
 * two starts (a weighted least-squares line, and the medians of the small
 * and the large points).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cp_fit.h"

#define MIN_SPREAD 4.0 /* x_max / x_min needed to separate alpha from beta */
#define NM_ITERATIONS 600
#define ALPHA_FLOOR 1e-12 /* seconds: below it alpha is 0 */

static int valid(const struct cp_fit_point *p)
{
    return isfinite(p->x) && p->x >= 0 && isfinite(p->y) && p->y > 0 &&
           isfinite(p->weight) && p->weight > 0;
}

static double log_residual(const struct cp_fit_point *p, double a, double b)
{
    return log(fmax(a + b * p->x, 1e-300)) - log(p->y);
}

/* The objective at (ln alpha, ln beta). */
static double cost(const struct cp_fit_point *pts, size_t n, double la,
                   double lb)
{
    double a = exp(la), b = exp(lb), sum = 0;
    size_t i;

    for (i = 0; i < n; i++)
        if (pts[i].used)
            sum += pts[i].weight * fabs(log_residual(&pts[i], a, b));
    return sum;
}

/* Weighted median of |log residual| over the used points, by bisection on
 * the value (no allocation). */
static double median_abs_residual(const struct cp_fit_point *pts, size_t n,
                                  double a, double b)
{
    double lo = 0, hi = 0, total = 0;
    size_t i;
    int it;

    for (i = 0; i < n; i++)
        if (pts[i].used) {
            total += pts[i].weight;
            hi = fmax(hi, fabs(log_residual(&pts[i], a, b)));
        }
    if (total <= 0)
        return NAN;
    for (it = 0; it < 60; it++) {
        double mid = (lo + hi) / 2, below = 0;
        for (i = 0; i < n; i++)
            if (pts[i].used && fabs(log_residual(&pts[i], a, b)) <= mid)
                below += pts[i].weight;
        if (below >= total / 2)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Weighted least squares of relative residuals (a starting point only). */
static int lsq_start(const struct cp_fit_point *pts, size_t n, double *a,
                     double *b)
{
    double suu = 0, suv = 0, svv = 0, su = 0, sv = 0, det;
    size_t i;

    for (i = 0; i < n; i++) {
        double u, v, w;
        if (!pts[i].used)
            continue;
        w = pts[i].weight;
        u = 1 / pts[i].y;
        v = pts[i].x / pts[i].y;
        suu += w * u * u;
        suv += w * u * v;
        svv += w * v * v;
        su += w * u;
        sv += w * v;
    }
    if (!(svv > 0))
        return -1;
    det = suu * svv - suv * suv;
    *a = fabs(det) > 1e-12 * suu * svv ? (su * svv - sv * suv) / det : -1;
    *b = fabs(det) > 1e-12 * suu * svv ? (suu * sv - suv * su) / det : 0;
    if (*a <= 0 || *b <= 0) {
        *a = 0;
        *b = sv / svv;
    }
    return *b > 0 && isfinite(*b) ? 0 : -1;
}

/* Medians start: alpha from the points of the smallest x, beta from those
 * of the largest. */
static int median_start(const struct cp_fit_point *pts, size_t n,
                        double xmin, double xmax, double *a, double *b)
{
    double cut_lo = xmin * sqrt(xmax / fmax(xmin, 1e-300)),
           sa = 0, wa = 0, sb = 0, wb = 0;
    size_t i;

    if (xmin <= 0)
        cut_lo = xmax / 16;
    for (i = 0; i < n; i++) {
        if (!pts[i].used)
            continue;
        if (pts[i].x <= cut_lo) {
            sa += pts[i].weight * log(pts[i].y);
            wa += pts[i].weight;
        } else {
            sb += pts[i].weight * log(pts[i].y / pts[i].x);
            wb += pts[i].weight;
        }
    }
    if (wa <= 0 || wb <= 0)
        return -1;
    *a = exp(sa / wa) / 2; /* the small points are about alpha + some beta x */
    *b = exp(sb / wb);
    return 0;
}

/* Nelder-Mead on (ln alpha, ln beta). */
static void minimize(const struct cp_fit_point *pts, size_t n, double *la,
                     double *lb)
{
    double s[3][2], f[3];
    int it, i, j;

    s[0][0] = *la;
    s[0][1] = *lb;
    s[1][0] = *la + 1;
    s[1][1] = *lb;
    s[2][0] = *la;
    s[2][1] = *lb + 1;
    for (i = 0; i < 3; i++)
        f[i] = cost(pts, n, s[i][0], s[i][1]);
    for (it = 0; it < NM_ITERATIONS; it++) {
        int hi = 0, lo = 0, mid;
        double c[2], r[2], fr;
        for (i = 1; i < 3; i++) {
            if (f[i] > f[hi])
                hi = i;
            if (f[i] < f[lo])
                lo = i;
        }
        mid = 3 - hi - lo;
        if (hi == lo)
            mid = (hi + 1) % 3, lo = (hi + 2) % 3;
        if (fabs(f[hi] - f[lo]) <= 1e-12 * (fabs(f[lo]) + 1e-300) &&
            fabs(s[hi][0] - s[lo][0]) + fabs(s[hi][1] - s[lo][1]) < 1e-9)
            break;
        for (j = 0; j < 2; j++) {
            c[j] = (s[lo][j] + s[mid][j]) / 2;
            r[j] = c[j] + (c[j] - s[hi][j]);
        }
        fr = cost(pts, n, r[0], r[1]);
        if (fr < f[lo]) {
            double e[2], fe;
            for (j = 0; j < 2; j++)
                e[j] = c[j] + 2 * (c[j] - s[hi][j]);
            fe = cost(pts, n, e[0], e[1]);
            if (fe < fr) {
                memcpy(s[hi], e, sizeof e);
                f[hi] = fe;
            } else {
                memcpy(s[hi], r, sizeof r);
                f[hi] = fr;
            }
        } else if (fr < f[mid]) {
            memcpy(s[hi], r, sizeof r);
            f[hi] = fr;
        } else {
            double k[2], fk;
            for (j = 0; j < 2; j++)
                k[j] = c[j] + 0.5 * (s[hi][j] - c[j]);
            fk = cost(pts, n, k[0], k[1]);
            if (fk < f[hi]) {
                memcpy(s[hi], k, sizeof k);
                f[hi] = fk;
            } else { /* shrink towards the best */
                for (i = 0; i < 3; i++) {
                    if (i == lo)
                        continue;
                    for (j = 0; j < 2; j++)
                        s[i][j] = s[lo][j] + 0.5 * (s[i][j] - s[lo][j]);
                    f[i] = cost(pts, n, s[i][0], s[i][1]);
                }
            }
        }
    }
    j = 0;
    for (i = 1; i < 3; i++)
        if (f[i] < f[j])
            j = i;
    *la = s[j][0];
    *lb = s[j][1];
}

static double log_r2(const struct cp_fit_point *pts, size_t n, double a,
                     double b)
{
    double mean = 0, tot = 0, res = 0, wsum = 0;
    size_t i;

    for (i = 0; i < n; i++)
        if (pts[i].used) {
            mean += pts[i].weight * log(pts[i].y);
            wsum += pts[i].weight;
        }
    if (wsum <= 0)
        return NAN;
    mean /= wsum;
    for (i = 0; i < n; i++) {
        double d, e;
        if (!pts[i].used)
            continue;
        d = log(pts[i].y) - mean;
        e = log_residual(&pts[i], a, b);
        tot += pts[i].weight * d * d;
        res += pts[i].weight * e * e;
    }
    return tot > 0 ? 1 - res / tot : NAN;
}

int cp_fit_line(struct cp_fit_point *pts, size_t n, struct cp_fit_result *out)
{
    double xmin = INFINITY, xmax = 0, a1 = 0, b1 = 0, a2 = 0, b2 = 0, la, lb,
           a, b, med,
           limit, c1 = INFINITY, c2 = INFINITY;
    unsigned count = 0;
    size_t i;

    memset(out, 0, sizeof *out);
    out->alpha = out->beta = NAN;
    out->median_rel_residual = out->r2 = NAN;
    for (i = 0; i < n; i++) {
        pts[i].used = valid(&pts[i]);
        if (!pts[i].used)
            continue;
        count++;
        xmin = fmin(xmin, pts[i].x);
        xmax = fmax(xmax, pts[i].x);
    }
    out->points = count;
    if (count < 2) {
        snprintf(out->why, sizeof out->why,
                 "too few call sizes to fit (%u, need 2)", count);
        return -1;
    }
    if (!(xmax >= MIN_SPREAD * xmin) || xmax <= 0) {
        snprintf(out->why, sizeof out->why,
                 "call sizes too alike to separate latency from bandwidth "
                 "(largest/smallest %.2f, need %.0f)",
                 xmin > 0 ? xmax / xmin : 0.0, MIN_SPREAD);
        return -1;
    }
    if (lsq_start(pts, n, &a1, &b1) == 0)
        c1 = cost(pts, n, log(fmax(a1, ALPHA_FLOOR)), log(b1));
    if (median_start(pts, n, xmin, xmax, &a2, &b2) == 0 && a2 > 0 && b2 > 0)
        c2 = cost(pts, n, log(a2), log(b2));
    if (!isfinite(c1) && !isfinite(c2)) {
        snprintf(out->why, sizeof out->why,
                 "no bandwidth term: time does not grow with size");
        return -1;
    }
    if (c1 <= c2) {
        la = log(fmax(a1, ALPHA_FLOOR));
        lb = log(b1);
    } else {
        la = log(a2);
        lb = log(b2);
    }
    minimize(pts, n, &la, &lb);
    a = exp(la);
    b = exp(lb);
    if (a < ALPHA_FLOOR)
        a = 0;
    if (!(b > 0) || !isfinite(b) || !isfinite(a) || b * xmax < 0.05 * a) {
        snprintf(out->why, sizeof out->why,
                 "no bandwidth term: time does not grow with size");
        return -1;
    }
    /* "used": the points the line explains; the others are reported as
     * outliers (they did not move the median line anyway) */
    med = median_abs_residual(pts, n, a, b);
    limit = fmax(4 * med, 0.25);
    xmin = INFINITY;
    xmax = 0;
    for (i = 0; i < n; i++) {
        if (!pts[i].used)
            continue;
        if (fabs(log_residual(&pts[i], a, b)) > limit) {
            pts[i].used = 0;
            continue;
        }
        out->points_used++;
        out->calls_used += pts[i].calls;
        xmin = fmin(xmin, pts[i].x);
        xmax = fmax(xmax, pts[i].x);
    }
    out->ok = 1;
    out->alpha = a;
    out->beta = b;
    out->x_min = xmin;
    out->x_max = xmax;
    /* relative residual |fit - y| / y = |exp(log residual) - 1| */
    out->median_rel_residual = exp(median_abs_residual(pts, n, a, b)) - 1;
    out->r2 = log_r2(pts, n, a, b);
    return 0;
}
