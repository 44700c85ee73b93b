/* cp_bench_fit.c - latency floors, busbw plateaus, alpha-beta fits and the
 * site profile of a sweep (see cp_bench_fit.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_bench_fit.h"
#include "cp_path.h"
#include "cp_fit.h"
#include "cp_profile.h"
#include "cp_stats.h"

#define FLOOR_SIZES 3      /* smallest sizes that make the latency floor */
#define FLOOR_FLAT 1.5     /* max/min of their times for a real floor */
#define PLATEAU_BAND 0.05  /* plateau points within 5 % of its median */

static const char *const source_names[] = {"none", "collectives",
                                           "sendrecv"};

const char *cp_bench_link_source_name(enum cp_bench_link_source source)
{
    return (unsigned)source < 3 ? source_names[source] : "none";
}

static int usable(const struct cp_bench_point *p)
{
    return p->size_bytes > 0 && isfinite(p->time_s) && p->time_s > 0 &&
           p->wrong <= 0;
}

/* The time the alpha-beta fits use: the median single call where the bench
 * measured it (what other jobs on the machine added to a few calls does
 * not move it), else nccl-tests' average. */
static double fit_time(const struct cp_bench_point *p)
{
    return isfinite(p->median_time_s) && p->median_time_s > 0 ? p->median_time_s
                                                          : p->time_s;
}

struct group {
    enum cp_coll coll;
    unsigned ranks;
    int link;
    unsigned nodes;
};

static int point_link(const struct cp_bench_set *set,
                      const struct cp_bench_point *p)
{
    return p->series < set->nseries ? set->series[p->series].link
                                    : CP_BENCH_LINK_UNKNOWN;
}

static unsigned point_nodes(const struct cp_bench_set *set,
                            const struct cp_bench_point *p)
{
    return p->series < set->nseries ? set->series[p->series].nodes : 0;
}

static int in_group(const struct cp_bench_set *set,
                    const struct cp_bench_point *p, const struct group *g)
{
    return p->coll == g->coll && p->ranks == g->ranks &&
           point_link(set, p) == g->link && point_nodes(set, p) == g->nodes;
}

/* Every hop of the group is of its class. */
static int pure(const struct cp_bench_op_fit *f)
{
    return f->link != CP_LINK_INTER || f->nodes == 0 || f->nodes == f->ranks;
}

static int compare_by_size(const void *a, const void *b)
{
    const struct cp_bench_point *x = *(const struct cp_bench_point *const *)a;
    const struct cp_bench_point *y = *(const struct cp_bench_point *const *)b;
    if (x->size_bytes != y->size_bytes)
        return x->size_bytes < y->size_bytes ? -1 : 1;
    return x->time_s < y->time_s ? -1 : x->time_s > y->time_s;
}

/* The fitted bandwidth against the busbw plateau the sweep measured: the
 * ratio, and outside the band why the two differ. */
static void plateau_check(struct cp_bench_op_fit *f)
{
    double r;

    if (!(f->busbw_Bps > 0) || !(f->bandwidth_Bps > 0))
        return;
    r = f->plateau_ratio = f->bandwidth_Bps / f->busbw_Bps;
    if (fabs(r - 1) <= CP_BENCH_PLATEAU_BAND)
        return;
    if (f->plateau_points < 2)
        snprintf(f->plateau_why, sizeof f->plateau_why,
                 "the fitted bandwidth is %.0f%% %s the busbw at the largest "
                 "size, which still changes there (no plateau in the sweep): "
                 "the fit extrapolates past the sweep",
                 fabs(r - 1) * 100, r > 1 ? "above" : "below");
    else
        snprintf(f->plateau_why, sizeof f->plateau_why,
                 "the fitted bandwidth is %.0f%% %s the busbw plateau: the "
                 "times do not follow one alpha-beta line over the sweep "
                 "(NCCL changes algorithm or protocol with the size); the "
                 "plateau is the measured bandwidth",
                 fabs(r - 1) * 100, r > 1 ? "above" : "below");
}

/* The latency floor: the points of the smallest distinct sizes. */
static void latency_floor(const struct cp_bench_point **pts, size_t n,
                          double *scratch, struct cp_bench_op_fit *f)
{
    size_t i, distinct = 0, floor_n = 0;
    double lo, hi;

    for (i = 0; i < n; i++) {
        if (i == 0 || pts[i]->size_bytes != pts[i - 1]->size_bytes)
            distinct++;
        if (distinct > FLOOR_SIZES)
            break;
        scratch[floor_n++] = pts[i]->time_s;
        f->floor_max_bytes = pts[i]->size_bytes;
    }
    lo = hi = scratch[0];
    for (i = 0; i < floor_n; i++) {
        lo = fmin(lo, scratch[i]);
        hi = fmax(hi, scratch[i]);
    }
    f->floor_flat = floor_n >= 2 && hi <= FLOOR_FLAT * lo;
    f->latency_floor_s = cp_stats_median(scratch, floor_n);
}

/* The busbw plateau, from the largest size down.  scratch holds 2 n. */
static void busbw_plateau(const struct cp_bench_point **pts, size_t n,
                          double *scratch, struct cp_bench_op_fit *f)
{
    size_t i, k = 0;

    f->largest_bytes = pts[n - 1]->size_bytes;
    f->busbw_largest_Bps = pts[n - 1]->busbw_Bps;
    for (i = n; i-- > 0;) {
        double b = pts[i]->busbw_Bps, med;
        if (!isfinite(b))
            break;
        if (k > 0) {
            memcpy(scratch + n, scratch, k * sizeof *scratch);
            med = cp_stats_median(scratch + n, k);
            if (!(fabs(b - med) <= PLATEAU_BAND * med))
                break;
        }
        scratch[k++] = b;
        f->plateau_min_bytes = pts[i]->size_bytes;
    }
    f->plateau_points = (unsigned)k;
    f->busbw_Bps = k ? cp_stats_median(scratch, k) : NAN;
}

/* The regime boundary: where busbw first reaches half the plateau
 * (log-linear between the two points around it); for T = L + nW this is
 * exactly n_1/2 = L/W.  Without such a crossing (the sweep starts above
 * it), the same from the model: floor x plateau / factor. */
static void regime_boundary(const struct cp_bench_point **pts, size_t n,
                            struct cp_bench_op_fit *f)
{
    double half = f->busbw_Bps / 2;

    if (!isfinite(f->busbw_Bps) || !(f->busbw_Bps > 0))
        return;
    for (size_t i = 1; i < n; i++) {
        double b0 = pts[i - 1]->busbw_Bps, b1 = pts[i]->busbw_Bps;
        double s0 = (double)pts[i - 1]->size_bytes,
               s1 = (double)pts[i]->size_bytes;
        if (!(b0 < half && b1 >= half))
            continue;
        f->regime_boundary_bytes =
            s1 > s0 ? exp(log(s0) + (half - b0) / (b1 - b0) *
                                        (log(s1) - log(s0)))
                    : s1;
        f->regime_from_crossing = 1;
        break;
    }
    if (!f->regime_from_crossing && f->factor > 0)
        f->regime_boundary_bytes =
            f->latency_floor_s * f->busbw_Bps / f->factor;
}

/* The alpha-beta fit of the canonical algorithm; fp holds n. */
static void alpha_beta_fit(const struct cp_bench_point **pts, size_t n,
                           struct cp_fit_point *fp, struct cp_bench_op_fit *f)
{
    struct cp_fit_result fr;
    double A, B;

    if (cp_model_nccl_steps(f->coll, f->ranks, &A, &B) < 0) {
        snprintf(f->fit_why, sizeof f->fit_why,
                 "no alpha-beta model for %s on %u ranks",
                 cp_model_coll_name(f->coll), f->ranks);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        fp[i].x = B * (double)pts[i]->size_bytes / A;
        fp[i].y = fit_time(pts[i]) / A;
        fp[i].weight = 1;
        fp[i].calls = 1;
    }
    if (cp_fit_line(fp, n, &fr) == 0) {
        f->fit_ok = 1;
        f->alpha_s = fr.alpha;
        f->bandwidth_Bps = 1 / fr.beta;
        f->fit_median_rel_residual = fr.median_rel_residual;
        f->fit_points_used = fr.points_used;
        plateau_check(f);
    } else {
        snprintf(f->fit_why, sizeof f->fit_why, "%s", fr.why);
    }
}

/* Floor, plateau and fit of one group's usable points (sorted by size). */
static void fit_group(const struct cp_bench_point **pts, size_t n,
                      double *scratch, struct cp_fit_point *fp,
                      struct cp_bench_op_fit *f)
{
    f->points = (unsigned)n;
    f->factor = cp_model_busbw_factor(f->coll, f->ranks);
    f->latency_floor_s = f->busbw_Bps = f->busbw_largest_Bps = NAN;
    f->alpha_s = f->bandwidth_Bps = f->fit_median_rel_residual = NAN;
    f->regime_boundary_bytes = f->plateau_ratio = NAN;
    if (n == 0) {
        snprintf(f->fit_why, sizeof f->fit_why, "no usable points");
        return;
    }
    latency_floor(pts, n, scratch, f);
    busbw_plateau(pts, n, scratch, f);
    regime_boundary(pts, n, f);
    alpha_beta_fit(pts, n, fp, f);
}

static int compare_fits(const void *a, const void *b)
{
    const struct cp_bench_op_fit *x = a, *y = b;
    if (x->coll != y->coll)
        return x->coll < y->coll ? -1 : 1;
    if (x->ranks != y->ranks)
        return x->ranks < y->ranks ? -1 : 1;
    if (x->link != y->link)
        return x->link < y->link ? -1 : 1;
    return x->nodes < y->nodes ? -1 : x->nodes > y->nodes;
}

/* Collectives that make the link fit: 2 = preferred, 1 = fallback. */
static int link_rank(enum cp_coll coll)
{
    const struct cp_coll_facts *f = cp_model_coll_facts(coll);

    return f ? f->link_fit : 0;
}

/* One fit over the usable points of the class's send/recv groups (pairs),
 * or of its collectives: the pure ones (mixed = 0) or the mixed ones. */
static int fit_link(const struct cp_bench_set *set,
                    const struct cp_bench_calibration *cal, int link,
                    int pairs, int mixed, struct cp_bench_link_fit *lf)
{
    struct cp_fit_point *fp = NULL;
    struct cp_fit_result fr;
    size_t i, j, n = 0;
    int best = 0, rc = -1;
    size_t len = 0, nnames = 0;
    enum cp_coll names[32];
    unsigned name_ranks[32];

    memset(lf, 0, sizeof *lf);
    lf->alpha_s = lf->bandwidth_Bps = lf->median_rel_residual = NAN;
    if (!pairs)
        for (i = 0; i < cal->nops; i++)
            if (cal->ops[i].link == link && pure(&cal->ops[i]) != mixed &&
                link_rank(cal->ops[i].coll) > best)
                best = link_rank(cal->ops[i].coll);
    fp = calloc(set->npoints ? set->npoints : 1, sizeof *fp);
    if (!fp)
        goto out;
    for (i = 0; i < cal->nops; i++) {
        const struct cp_bench_op_fit *f = &cal->ops[i];
        struct group g = {f->coll, f->ranks, f->link, f->nodes};
        double A = 1, B = 1;
        int added = 0;

        if (f->link != link)
            continue;
        if (pairs ? f->coll != CP_COLL_SENDRECV
                  : (best == 0 || link_rank(f->coll) != best ||
                     pure(f) == mixed))
            continue;
        if (!pairs && cp_model_nccl_steps(f->coll, f->ranks, &A, &B) < 0)
            continue;
        for (j = 0; j < set->npoints; j++) {
            const struct cp_bench_point *p = &set->points[j];
            if (!in_group(set, p, &g) || !usable(p) ||
                p->in_place != f->in_place)
                continue;
            fp[n].x = B * (double)p->size_bytes / A;
            fp[n].y = fit_time(p) / A;
            fp[n].weight = 1;
            fp[n].calls = 1;
            n++;
            added = 1;
        }
        if (added && nnames < sizeof names / sizeof names[0]) {
            names[nnames] = f->coll;
            name_ranks[nnames++] = f->ranks;
        }
    }
    /* "allreduce, reducescatter on 4 ranks, allgather on 8 ranks" */
    for (i = 0; i < nnames && len < sizeof lf->from - 48; i++) {
        len += (size_t)snprintf(lf->from + len, sizeof lf->from - len, "%s%s",
                                i ? ", " : "", cp_model_coll_name(names[i]));
        if (i + 1 == nnames || name_ranks[i + 1] != name_ranks[i])
            len += (size_t)snprintf(lf->from + len, sizeof lf->from - len,
                                    " on %u ranks", name_ranks[i]);
    }
    if (mixed && len && len < sizeof lf->from - 48)
        snprintf(lf->from + len, sizeof lf->from - len,
                 " (mixed: several ranks on each node)");
    lf->points = (unsigned)n;
    if (n == 0) {
        snprintf(lf->why, sizeof lf->why, "%s",
                 pairs ? "no send/recv measured on this link class"
                       : "no collective measured on this link class");
        rc = 0;
        goto out;
    }
    if (cp_fit_line(fp, n, &fr) == 0) {
        lf->ok = 1;
        lf->alpha_s = fr.alpha;
        lf->bandwidth_Bps = 1 / fr.beta;
        lf->points_used = fr.points_used;
        lf->median_rel_residual = fr.median_rel_residual;
    } else {
        snprintf(lf->why, sizeof lf->why, "%s", fr.why);
    }
    rc = 0;
out:
    free(fp);
    return rc;
}

int cp_bench_calibrate(const struct cp_bench_set *set,
                       struct cp_bench_calibration *out, struct cp_error *err)
{
    struct group *groups = NULL;
    const struct cp_bench_point **pts = NULL;
    double *scratch = NULL;
    struct cp_fit_point *fp = NULL;
    size_t ngroups = 0, i, j, k;
    int rc = -1;

    memset(out, 0, sizeof *out);
    groups = calloc(set->npoints ? set->npoints : 1, sizeof *groups);
    pts = calloc(set->npoints ? set->npoints : 1, sizeof *pts);
    scratch = calloc(2 * set->npoints + 2, sizeof *scratch);
    fp = calloc(set->npoints ? set->npoints : 1, sizeof *fp);
    if (!groups || !pts || !scratch || !fp)
        goto oom;
    for (i = 0; i < set->npoints; i++) {
        struct group g = {set->points[i].coll, set->points[i].ranks,
                          point_link(set, &set->points[i]),
                          point_nodes(set, &set->points[i])};
        for (k = 0; k < ngroups; k++)
            if (groups[k].coll == g.coll && groups[k].ranks == g.ranks &&
                groups[k].link == g.link && groups[k].nodes == g.nodes)
                break;
        if (k == ngroups)
            groups[ngroups++] = g;
    }
    out->ops = calloc(ngroups ? ngroups : 1, sizeof *out->ops);
    if (!out->ops)
        goto oom;
    for (k = 0; k < ngroups; k++) {
        struct cp_bench_op_fit *f = &out->ops[out->nops++];
        size_t n = 0;
        int in_place;

        f->coll = groups[k].coll;
        f->ranks = groups[k].ranks;
        f->link = groups[k].link;
        f->nodes = groups[k].nodes;
        /* Out-of-place points, or the in-place ones when there are none. */
        for (in_place = 0; in_place < 2 && n == 0; in_place++) {
            for (j = 0; j < set->npoints; j++) {
                const struct cp_bench_point *p = &set->points[j];
                if (in_group(set, p, &groups[k]) && usable(p) &&
                    p->in_place == in_place)
                    pts[n++] = p;
            }
            f->in_place = in_place;
        }
        qsort(pts, n, sizeof *pts, compare_by_size);
        fit_group(pts, n, scratch, fp, f);
    }
    qsort(out->ops, out->nops, sizeof *out->ops, compare_fits);

    for (k = 0; k < CP_LINK_COUNT; k++) {
        struct cp_bench_link_fit mixed;
        int coll_mixed = 0;
        if (fit_link(set, out, (int)k, 0, 0, &out->collectives[k]) < 0 ||
            fit_link(set, out, (int)k, 1, 0, &out->pairs[k]) < 0 ||
            fit_link(set, out, (int)k, 0, 1, &mixed) < 0)
            goto oom;
        if (!out->collectives[k].points && mixed.points) {
            out->collectives[k] = mixed;
            coll_mixed = 1;
        }
        if (out->collectives[k].ok && !coll_mixed) {
            out->link[k] = out->collectives[k];
            out->link_source[k] = CP_BENCH_FROM_COLLECTIVES;
        } else if (out->pairs[k].ok) {
            out->link[k] = out->pairs[k];
            out->link_source[k] = CP_BENCH_FROM_PAIRS;
        } else if (out->collectives[k].ok) {
            out->link[k] = out->collectives[k];
            out->link_source[k] = CP_BENCH_FROM_COLLECTIVES;
        } else {
            memset(&out->link[k], 0, sizeof out->link[k]);
            out->link[k].alpha_s = out->link[k].bandwidth_Bps = NAN;
            out->link[k].median_rel_residual = NAN;
            snprintf(out->link[k].why, sizeof out->link[k].why, "%s",
                     out->collectives[k].points ? out->collectives[k].why
                     : out->pairs[k].points     ? out->pairs[k].why
                                    : "nothing measured on this link class");
        }
    }
    rc = 0;
    goto out;
oom:
    cp_error_set(err, NULL, -1, "out of memory while fitting %zu points",
                 set->npoints);
    cp_bench_calibration_free(out);
out:
    free(groups);
    free(pts);
    free(scratch);
    free(fp);
    return rc;
}

void cp_bench_calibration_free(struct cp_bench_calibration *cal)
{
    if (!cal)
        return;
    free(cal->ops);
    memset(cal, 0, sizeof *cal);
}

const struct cp_bench_op_fit *
cp_bench_calibration_find(const struct cp_bench_calibration *cal,
                          enum cp_coll coll, unsigned ranks)
{
    const struct cp_bench_op_fit *best = NULL;
    size_t i;

    for (i = 0; i < cal->nops; i++) {
        const struct cp_bench_op_fit *f = &cal->ops[i];
        if (f->coll != coll || (ranks && f->ranks != ranks))
            continue;
        if (!best || f->ranks > best->ranks)
            best = f;
    }
    return best;
}

/* ---- the site profile ------------------------------------------------------ */

/* A value with a unit that cp_units parses back, without exponents. */
static void format_alpha(double seconds, char *buf, size_t size)
{
    snprintf(buf, size, "%.3fus", seconds * 1e6);
}

static void format_bandwidth(double bps, char *buf, size_t size)
{
    if (bps >= 1e9)
        snprintf(buf, size, "%.4fGB/s", bps / 1e9);
    else
        snprintf(buf, size, "%.4fMB/s", bps / 1e6);
}

char *cp_bench_profile_text(const struct cp_bench_calibration *cal,
                            const char *comment, struct cp_error *err)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = NULL;
    int k, lines = 0;
    const char *c;

    f = open_memstream(&text, &size);
    if (!f) {
        cp_error_set(err, NULL, -1, "out of memory");
        return NULL;
    }
    fprintf(f, "# collprof site profile: expected latency (alpha) and "
               "bandwidth per link class,\n"
               "# read by collprof analyze --profile (docs/bench.md).\n");
    for (c = comment; c && *c;) {
        const char *nl = strchr(c, '\n');
        int len = nl ? (int)(nl - c) : (int)strlen(c);
        fprintf(f, "# %.*s\n", len, c);
        c = nl ? nl + 1 : c + len;
    }
    for (k = 0; k < CP_LINK_COUNT; k++) {
        const struct cp_bench_link_fit *lf = &cal->link[k];
        char a[48], b[48];

        if (cal->link_source[k] == CP_BENCH_FROM_NONE || !lf->ok)
            continue;
        fprintf(f,
                "# %s: fitted to %s (%u of %u points, median residual "
                "%.1f%%)\n",
                cp_link_class_name((enum cp_link_class)k),
                cal->link_source[k] == CP_BENCH_FROM_PAIRS
                    ? "send/recv between two ranks"
                    : lf->from,
                lf->points_used, lf->points, 100 * lf->median_rel_residual);
        format_alpha(lf->alpha_s, a, sizeof a);
        format_bandwidth(lf->bandwidth_Bps, b, sizeof b);
        fprintf(f, "%s alpha=%s bandwidth=%s\n",
                cp_link_class_name((enum cp_link_class)k), a, b);
        lines++;
    }
    if (fclose(f) != 0) {
        free(text);
        cp_error_set(err, NULL, -1, "out of memory");
        return NULL;
    }
    if (lines == 0) {
        free(text);
        cp_error_set(err, NULL, -1,
                     "no link class has a fitted alpha and bandwidth, "
                     "nothing to write (an import without rank lines "
                     "needs --nodes or --link)");
        return NULL;
    }
    return text;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b)) + 1e-12;
}

int cp_bench_profile_write(const struct cp_bench_calibration *cal,
                           const char *path, const char *comment,
                           struct cp_error *err)
{
    struct cp_profile back;
    struct cp_error why;
    char *text = NULL;
    int k, rc = -1;

    text = cp_bench_profile_text(cal, comment, err);
    if (!text)
        goto out;
    if (cp_profile_parse_string(text, path, &back, &why) < 0) {
        cp_error_set(err, path, -1, "the profile does not read back: %s",
                     why.text);
        goto out;
    }
    for (k = 0; k < CP_LINK_COUNT; k++) {
        const struct cp_profile_link *pl = &back.link[k];
        if (!pl->line)
            continue;
        if (!close_to(pl->alpha_s, cal->link[k].alpha_s) ||
            !close_to(pl->bandwidth_Bps, cal->link[k].bandwidth_Bps)) {
            cp_error_set(err, path, -1,
                         "the profile reads back different %s values",
                         cp_link_class_name((enum cp_link_class)k));
            goto out;
        }
    }
    rc = cp_path_write(path, text, strlen(text), CP_PATH_MODE, err);
out:
    free(text);
    return rc;
}
