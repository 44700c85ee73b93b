/* cp_html_plots.c - the plots of report.html, as inline SVG.
 *
 * Each function writes one or more <figure>s from the checked view of the
 * report (cp_html_int.h).  Data that the report does not have gives a
 * figure that says so instead of an empty frame.  Every string from the
 * report is escaped; hover details are SVG <title> elements, so no script
 * is needed.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_html_int.h"
#include "cp_model.h"
#include "cp_svg.h"

#define PLOT_W 600.0
#define PLOT_H 340.0
#define LATENCY_COLOR "#D55E00"
#define BANDWIDTH_COLOR "#0072B2"
#define NONE_COLOR "#9e9e9e"

/* A full-width plot's frame: its id, title and height, the margins every
 * full-width plot of the report shares. */
static void plot_frame(struct cp_svg_plot *p, const char *id,
                       const char *title, double height)
{
    p->id = id;
    p->title = title;
    p->width = PLOT_W;
    p->height = height;
    p->left = 64;
    p->right = 28;
    p->top = 12;
    p->bottom = 44;
}

static void empty_figure(FILE *out, const char *id, const char *heading,
                         const char *why)
{
    fprintf(out,
            "<figure id=\"%s\">\n<h3>%s</h3>\n<p class=\"empty\">%s</p>\n"
            "</figure>\n",
            id, heading, why);
}

/* One model of a collective: what model_time() draws. */
struct model_of {
    enum cp_coll coll;
    enum cp_algo algo;
    unsigned ranks;
    const struct cp_model_params *params;
};

static double model_time_at(double n, const void *ctx)
{
    const struct model_of *m = ctx;

    return cp_model_time(m->coll, m->algo, m->ranks, n, m->params);
}

/* The model's time over the log x axis, clipped to the plot area. */
static void model_curve(FILE *out, const struct cp_svg_plot *p,
                        enum cp_coll coll, enum cp_algo algo, unsigned ranks,
                        const struct cp_model_params *params,
                        const char *color, const char *dash, double width)
{
    struct model_of m = {coll, algo, ranks, params};
    char attrs[160];

    snprintf(attrs, sizeof attrs,
             "fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s", color,
             width, dash[0] ? " stroke-dasharray=\"" : "", dash,
             dash[0] ? "\"" : "");
    cp_svg_curve(out, p, 96, model_time_at, &m, attrs);
}

/* ---- time against message size, per collective ---------------------------- */

struct group {
    const char *op, *link;
    double nranks, time_s, calls;
    size_t nrows, cap;
    size_t *rows;
};

static void groups_free(struct group *g, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(g[i].rows);
    free(g);
}

/* Rows grouped by (collective, link class, ranks): one model per group. */
static struct group *make_groups(const struct rp_report *r, size_t *count)
{
    struct group *g = NULL;
    size_t n = 0, cap = 0, i, j;

    for (i = 0; i < r->nrows; i++) {
        const struct rp_row *w = &r->rows[i];
        for (j = 0; j < n; j++)
            if (g[j].nranks == w->nranks && strcmp(g[j].op, w->op) == 0 &&
                strcmp(g[j].link, w->link) == 0)
                break;
        if (j == n) {
            if (n == cap) {
                struct group *bigger;
                cap = cap ? 2 * cap : 8;
                bigger = realloc(g, cap * sizeof *g);
                if (!bigger)
                    goto fail;
                g = bigger;
            }
            memset(&g[n], 0, sizeof g[n]);
            g[n].op = w->op;
            g[n].link = w->link;
            g[n].nranks = w->nranks;
            n++;
        }
        if (g[j].nrows == g[j].cap) {
            size_t *bigger;
            g[j].cap = g[j].cap ? 2 * g[j].cap : 16;
            bigger = realloc(g[j].rows, g[j].cap * sizeof *bigger);
            if (!bigger)
                goto fail;
            g[j].rows = bigger;
        }
        g[j].rows[g[j].nrows++] = i;
        if (isfinite(w->time_s))
            g[j].time_s += w->time_s;
        if (isfinite(w->calls))
            g[j].calls += w->calls;
    }
    *count = n;
    return g;
fail:
    groups_free(g, n);
    *count = 0;
    return NULL;
}

static int compare_group_time(const void *a, const void *b)
{
    const struct group *x = a, *y = b;

    if (x->time_s != y->time_s)
        return x->time_s > y->time_s ? -1 : 1;
    return 0;
}

#define MAX_ALGOS 6

struct candidates {
    size_t n;
    enum cp_algo algo[MAX_ALGOS];
    int have_model;
    struct cp_model_params params;
    enum cp_coll coll;
    unsigned ranks;
};

static void find_candidates(const struct rp_report *r, const struct group *g,
                            struct candidates *c)
{
    const struct rp_link *l = rp_link_get(r, g->link);
    struct cp_model_terms terms;
    unsigned a;

    memset(c, 0, sizeof *c);
    c->ranks = g->nranks >= 1 && g->nranks < 1e9 ? (unsigned)g->nranks : 1;
    if (!l || !(l->alpha_s >= 0) || !(l->bandwidth_Bps > 0) ||
        !isfinite(l->bandwidth_Bps) ||
        cp_model_coll_from_name(g->op, &c->coll, NULL) < 0)
        return;
    c->params.alpha = l->alpha_s;
    c->params.beta = 1 / l->bandwidth_Bps;
    for (a = 0; a < CP_ALGO_COUNT && c->n < MAX_ALGOS; a++)
        if (a != CP_ALGO_HIERARCHICAL && cp_model_algo_defined(c->coll, a) &&
            cp_model_terms(c->coll, a, c->ranks, &c->params, &terms, NULL) == 0)
            c->algo[c->n++] = a;
    c->have_model = c->n > 0;
}

/* The lesson's n*: the first candidate (in the model's order: ring first)
 * against the next one it crosses. */
static int lesson_crossover(const struct candidates *c,
                            struct cp_model_crossover *x)
{
    size_t i;

    for (i = 1; i < c->n; i++)
        if (cp_model_crossover(c->coll, c->algo[0], c->algo[i], c->ranks,
                               &c->params, x, NULL) == 0 &&
            x->crosses && x->bytes > 0 && isfinite(x->bytes))
            return 0;
    return -1;
}

/* One mark of the time plot: a size bucket of one communicator, or of all
 * the group's communicators when the group is too large to show each. */
struct tpoint {
    double bucket, calls, bytes, time_s, p50_s, p99_s, model_s, lat_s;
    size_t merged;     /* rows in it */
    const char *label; /* the communicator, or NULL when merged */
};

#define TIME_PLOT_ROWS 48 /* more rows in a group: one mark per size */

static int compare_tpoint(const void *a, const void *b)
{
    const struct tpoint *x = a, *y = b;

    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* The marks of group g (caller frees); *zero counts 0-byte buckets. */
static struct tpoint *time_points(const struct rp_report *r,
                                  const struct group *g, size_t *count,
                                  size_t *zero)
{
    struct tpoint *pt = calloc(g->nrows ? g->nrows : 1, sizeof *pt);
    int merge = g->nrows > TIME_PLOT_ROWS;
    size_t i, j, n = 0;

    *zero = 0;
    if (!pt)
        return NULL;
    for (i = 0; i < g->nrows; i++) {
        const struct rp_row *w = &r->rows[g->rows[i]];
        struct tpoint *t = NULL;
        if (!(w->calls > 0) || !(w->time_s > 0))
            continue;
        if (!(w->bytes > 0)) {
            ++*zero;
            continue;
        }
        for (j = 0; merge && j < n && !t; j++)
            if (pt[j].bucket == w->bucket)
                t = &pt[j];
        if (!t) {
            t = &pt[n++];
            t->bucket = w->bucket;
            t->p50_s = INFINITY;
            t->label = w->comm_index >= 0
                           ? rp_comm_label(&r->comms[w->comm_index])
                           : w->comm;
        }
        t->merged++;
        t->calls += w->calls;
        t->bytes += w->bytes;
        t->time_s += w->time_s;
        t->model_s += isfinite(w->model_time_s) ? w->model_time_s : NAN;
        t->lat_s += w->time_s * (strcmp(w->regime, "latency") == 0);
        if (w->p50_s > 0)
            t->p50_s = fmin(t->p50_s, w->p50_s);
        if (w->p99_s > 0 && isfinite(w->p99_s))
            t->p99_s = fmax(t->p99_s, w->p99_s);
    }
    for (j = 0; j < n; j++) {
        if (!isfinite(pt[j].p50_s))
            pt[j].p50_s = NAN;
        if (!(pt[j].p99_s > 0))
            pt[j].p99_s = NAN;
        if (pt[j].merged > 1)
            pt[j].label = NULL;
    }
    qsort(pt, n, sizeof *pt, compare_tpoint);
    *count = n;
    return pt;
}

/* What the parts of one time plot share: the models drawn, their
 * crossover n* (when have_x) and the first model's n_1/2 (NaN: none). */
struct time_models {
    struct candidates c;
    struct cp_model_crossover x;
    int have_x;
    double nhalf;
};

/* The axes of a time plot: the points' range (xmin..ymax), widened to
 * show n* and the models' shape. */
static void time_axes(struct cp_svg_plot *p, const struct time_models *m,
                      double xmin, double xmax, double ymin, double ymax)
{
    const struct candidates *c = &m->c;
    size_t i, k;

    /* show n* even when the job's sizes are all on one side of it, as long
     * as the picture stays readable (six decades either way) */
    if (m->have_x && m->x.bytes >= xmin / 1e6 && m->x.bytes <= xmax * 1e6) {
        xmin = fmin(xmin, m->x.bytes / 2);
        xmax = fmax(xmax, m->x.bytes * 2);
    }
    /* at least eight octaves, so that the curves show their shape */
    if (xmax < 256 * xmin) {
        double mid = sqrt(xmin * xmax);
        xmin = fmin(xmin, mid / 16);
        xmax = fmax(xmax, mid * 16);
    }
    xmin = fmax(xmin, 1);
    p->width = PLOT_W;
    p->height = PLOT_H;
    p->left = 64;
    p->right = 28;
    p->top = 14;
    p->bottom = 44;
    p->x.log = 1;
    p->x.base = 2;
    p->x.unit = CP_SVG_SIZE;
    p->x.title = "message size per call (S, bytes, log scale)";
    /* a little room so that no point sits on the frame */
    cp_svg_log_domain(xmin / 1.3, xmax * 1.3, 2, &p->x.lo, &p->x.hi);
    if (c->have_model) {
        /* the fastest model across the size range bounds the y axis too */
        for (k = 0; k <= 32; k++) {
            double n = p->x.lo * pow(p->x.hi / p->x.lo, k / 32.0),
                   best = INFINITY;
            for (i = 0; i < c->n; i++)
                best = fmin(best, cp_model_time(c->coll, c->algo[i], c->ranks,
                                                n, &c->params));
            if (best > 0 && isfinite(best)) {
                ymin = fmin(ymin, best);
                ymax = fmax(ymax, best);
            }
        }
    }
    p->y.log = 1;
    p->y.base = 10;
    p->y.unit = CP_SVG_TIME;
    p->y.title = "time per call (log scale)";
    cp_svg_log_domain(ymin / 1.5, ymax * 1.5, 10, &p->y.lo, &p->y.hi);
    cp_svg_plot_layout(p);
}

/* The models' part of a time plot: the first model's latency regime, the
 * curves and the crossover n*. */
static void time_model_marks(FILE *out, const struct cp_svg_plot *p,
                             const struct time_models *m)
{
    const struct candidates *c = &m->c;
    char b1[64], b2[64], b3[64], b4[64], nhalf[64];
    size_t i;

    /* the latency regime of the first model: sizes below n_1/2 = L/W */
    if (m->nhalf > p->x.lo) {
        double xr = cp_svg_axis_map(&p->x, fmin(m->nhalf, p->x.hi));
        fprintf(out,
                "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
                "fill=\"" LATENCY_COLOR "\" fill-opacity=\".07\"><title>"
                "latency regime of %s: sizes below n&#189; = %s, where its "
                "latency term exceeds its bandwidth term</title></rect>\n",
                cp_svg_coord(p->x.px_lo, b1, sizeof b1),
                cp_svg_coord(p->y.px_hi, b2, sizeof b2),
                cp_svg_coord(xr - p->x.px_lo, b3, sizeof b3),
                cp_svg_coord(p->y.px_lo - p->y.px_hi, b4, sizeof b4),
                cp_model_algo_name(c->algo[0]),
                cp_svg_format3(m->nhalf, CP_SVG_SIZE, nhalf, sizeof nhalf));
    }
    for (i = 0; i < c->n; i++)
        model_curve(out, p, c->coll, c->algo[i], c->ranks, &c->params,
                    i == 0 ? "#000000" : cp_svg_colors[(i - 1) % CP_SVG_NCOLORS],
                    cp_svg_dashes[i % CP_SVG_NDASHES], i == 0 ? 2.2 : 1.8);
    if (m->have_x && m->x.bytes > p->x.lo && m->x.bytes < p->x.hi) {
        double xp = cp_svg_axis_map(&p->x, m->x.bytes);
        fprintf(out,
                "<g><title>n* = %s: %s is faster below, %s above</title>"
                "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#555\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>",
                cp_svg_format3(m->x.bytes, CP_SVG_SIZE, b1, sizeof b1),
                cp_model_algo_name(m->x.small), cp_model_algo_name(m->x.large),
                cp_svg_coord(xp, b2, sizeof b2),
                cp_svg_coord(p->y.px_hi, b3, sizeof b3), b2,
                cp_svg_coord(p->y.px_lo, b4, sizeof b4));
        fprintf(
            out,
            "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" "
            "font-weight=\"bold\">n* = %s</text></g>\n",
            cp_svg_coord(xp + (xp > p->x.px_hi - 90 ? -4 : 4), b2, sizeof b2),
            cp_svg_coord(p->y.px_hi + 12, b3, sizeof b3),
            xp > p->x.px_hi - 90 ? "end" : "start", b1);
    }
}

/* The job's buckets: mean with the p50-p99 range. */
static void time_job_marks(FILE *out, const struct cp_svg_plot *p,
                           const struct group *g, const struct tpoint *pt,
                           size_t points)
{
    char b1[64], b2[64], b3[64];
    size_t i;

    for (i = 0; i < points; i++) {
        const struct tpoint *q = &pt[i];
        double n = q->bytes / q->calls, t = q->time_s / q->calls, xp;
        char hover[600], who[200], c1[64], c2[64], c3[64], c4[64], c5[64],
            c6[64];
        xp = cp_svg_axis_map(&p->x, n);
        if (q->p50_s > 0 && q->p99_s > 0)
            fprintf(
                out,
                "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
                "stroke=\"#777\" stroke-width=\"1.2\"/>",
                cp_svg_coord(xp, b1, sizeof b1),
                cp_svg_coord(cp_svg_axis_map(&p->y, q->p50_s), b2, sizeof b2),
                b1,
                cp_svg_coord(cp_svg_axis_map(&p->y, q->p99_s), b3, sizeof b3));
        if (q->label)
            snprintf(who, sizeof who, "on %s", q->label);
        else
            snprintf(who, sizeof who, "over %zu communicators", q->merged);
        snprintf(
            hover, sizeof hover,
            "%s %s %s: %s calls, mean %s (p50 %s, p99 %s%s), model %s "
            "per call, %s",
            g->op, cp_svg_format3(n, CP_SVG_SIZE, c1, sizeof c1), who,
            cp_svg_format3(q->calls, CP_SVG_COUNT, c2, sizeof c2),
            cp_svg_format3(t, CP_SVG_TIME, c3, sizeof c3),
            cp_svg_format3(q->p50_s, CP_SVG_TIME, c4, sizeof c4),
            cp_svg_format3(q->p99_s, CP_SVG_TIME, c5, sizeof c5),
            q->label ? "" : ": the range over them",
            cp_svg_format3(q->model_s / q->calls, CP_SVG_TIME, c6, sizeof c6),
            2 * q->lat_s > q->time_s ? "latency-bound" : "bandwidth-bound");
        cp_svg_marker(out, CP_SVG_CIRCLE, xp, cp_svg_axis_map(&p->y, t), 4,
                      "#000000", !(2 * q->lat_s > q->time_s), hover);
        fputc('\n', out);
    }
}

/* A time plot's legend and caption. */
static void time_legend(FILE *out, const struct rp_report *r,
                        const struct group *g, const struct time_models *m,
                        size_t zero)
{
    const struct candidates *c = &m->c;
    const struct rp_link *l = rp_link_get(r, g->link);
    char b1[64], b2[64];
    size_t i;

    fputs("<div class=\"legend\">", out);
    cp_svg_key_marker(out, CP_SVG_CIRCLE, "#000000", 1,
                      "the job: mean per call of a size bucket (hollow: "
                      "latency-bound; bar: p50-p99)");
    for (i = 0; i < c->n; i++)
        cp_svg_key_line(
            out, i == 0 ? "#000000" : cp_svg_colors[(i - 1) % CP_SVG_NCOLORS],
            cp_svg_dashes[i % CP_SVG_NDASHES], i == 0 ? 2.2 : 1.8,
            cp_model_algo_name(c->algo[i]));
    if (m->have_x)
        cp_svg_key_line(out, "#555", "5 4", 1.5, "n*");
    if (m->nhalf > 0)
        cp_svg_key_box(out, "#fbe9df", 1, "latency regime");
    fputs("</div>\n<figcaption>", out);
    if (c->have_model) {
        fputs("Model of the ", out);
        cp_svg_escape(out, g->link);
        fprintf(
            out, "-node link: &alpha; = %s, bandwidth %s",
            cp_svg_format3(l->alpha_s, CP_SVG_TIME, b1, sizeof b1),
            cp_svg_format3(l->bandwidth_Bps, CP_SVG_BANDWIDTH, b2, sizeof b2));
        fputs(" (", out);
        cp_svg_escape(out, l->source);
        fputs("). ", out);
        if (m->have_x)
            fprintf(out, "n* = %s: %s is faster below, %s above. ",
                    cp_svg_format3(m->x.bytes, CP_SVG_SIZE, b1, sizeof b1),
                    cp_model_algo_name(m->x.small),
                    cp_model_algo_name(m->x.large));
    } else {
        fputs("No model for this link class: curves not drawn. ", out);
    }
    fprintf(out, "%zu size bucket%s, %s calls, %s", g->nrows,
            g->nrows == 1 ? "" : "s",
            cp_svg_format3(g->calls, CP_SVG_COUNT, b1, sizeof b1),
            cp_svg_format3(g->time_s, CP_SVG_TIME, b2, sizeof b2));
    if (g->nrows > TIME_PLOT_ROWS)
        fputs("; one mark per size over all the communicators of the group",
              out);
    if (zero)
        fprintf(out, "; %zu bucket%s of 0-byte calls not on the log axis",
                zero, zero == 1 ? "" : "s");
    fputs(".</figcaption>\n</figure>\n", out);
}

static void time_plot(FILE *out, const struct rp_report *r,
                      const struct group *g, size_t number)
{
    struct time_models m = {.nhalf = NAN};
    struct cp_model_terms terms;
    struct cp_svg_plot p = {0};
    char id[32], b1[64], title[512];
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    size_t i, points = 0, zero = 0;
    struct tpoint *pt = NULL;
    const struct candidates *c = &m.c;

    find_candidates(r, g, &m.c);
    snprintf(id, sizeof id, "time%zu", number);
    pt = time_points(r, g, &points, &zero);
    for (i = 0; pt && i < points; i++) {
        double n = pt[i].bytes / pt[i].calls, t = pt[i].time_s / pt[i].calls;
        xmin = fmin(xmin, n);
        xmax = fmax(xmax, n);
        ymin = fmin(ymin, t);
        ymax = fmax(ymax, t);
        if (pt[i].p50_s > 0)
            ymin = fmin(ymin, pt[i].p50_s);
        if (pt[i].p99_s > 0)
            ymax = fmax(ymax, pt[i].p99_s);
    }
    fprintf(out, "<figure id=\"fig-time-%zu\">\n<h3>Time against message size: ",
            number);
    cp_svg_escape(out, g->op);
    fprintf(out, " on %s rank%s, ",
            cp_svg_format_count(g->nranks, b1, sizeof b1),
            g->nranks == 1 ? "" : "s");
    cp_svg_escape(out, g->link);
    fputs("-node link</h3>\n", out);
    if (points == 0) {
        fputs("<p class=\"empty\">No calls of a measurable size and time in "
              "this group.</p>\n</figure>\n",
              out);
        goto out;
    }
    m.have_x = c->have_model && lesson_crossover(c, &m.x) == 0;
    if (c->have_model &&
        cp_model_terms(c->coll, c->algo[0], c->ranks, &c->params, &terms,
                       NULL) == 0 &&
        terms.sec_per_byte > 0)
        m.nhalf = terms.latency_s / terms.sec_per_byte;
    p.id = id;
    snprintf(title, sizeof title, "Mean time per call against message size, "
                                  "log-log, with the alpha-beta models");
    p.title = title;
    time_axes(&p, &m, xmin, xmax, ymin, ymax);
    cp_svg_plot_open(out, &p);
    time_model_marks(out, &p, &m);
    time_job_marks(out, &p, g, pt, points);
    cp_svg_plot_close(out);
    time_legend(out, r, g, &m, zero);
out:
    free(pt);
}

void rp_plot_time_vs_size(FILE *out, const struct rp_report *r)
{
    size_t n = 0, i;
    struct group *g = make_groups(r, &n);
    double rest = 0;

    if (!g || n == 0) {
        empty_figure(out, "fig-time-1", "Time against message size",
                     "No collective calls in this report.");
        groups_free(g, n);
        return;
    }
    qsort(g, n, sizeof *g, compare_group_time);
    for (i = 0; i < n; i++) {
        if (i < RP_TIME_PLOTS)
            time_plot(out, r, &g[i], i + 1);
        else
            rest += g[i].time_s;
    }
    if (n > RP_TIME_PLOTS) {
        char b[64];
        fprintf(out,
                "<figure id=\"fig-time-more\"><h3>More collectives</h3>"
                "<p class=\"empty\">%zu more groups of collective, link and "
                "rank count (%s in all) are not drawn; the bucket table lists "
                "the largest.</p></figure>\n",
                n - RP_TIME_PLOTS,
                cp_svg_format3(rest, CP_SVG_TIME, b, sizeof b));
    }
    groups_free(g, n);
}

/* ---- busbw against message size, per communicator ---------------------- */

/* The marker of a collective (struct cp_coll_facts, marker); the last
 * shape for the rest and for names the model does not know. */
static enum cp_svg_shape op_shape(const char *op)
{
    enum cp_coll coll;

    if (op && cp_model_coll_from_name(op, &coll, NULL) == 0)
        return (enum cp_svg_shape)cp_model_coll_facts(coll)->marker;
    return CP_SVG_DIAMOND;
}

/* The legend's name of a marker: the collective that has it alone, else
 * "other". */
static const char *shape_name(enum cp_svg_shape shape)
{
    const char *name = NULL;
    int n = 0;

    for (int c = 0; c < CP_COLL_COUNT; c++)
        if (cp_model_coll_facts((enum cp_coll)c)->marker == (int)shape) {
            name = cp_model_coll_name((enum cp_coll)c);
            n++;
        }
    return n == 1 ? name : "other";
}

static double link_line(const struct rp_link *l)
{
    if (!l)
        return NAN;
    return l->expected_Bps > 0 ? l->expected_Bps : l->bandwidth_Bps;
}

struct point {
    double x, y;
    size_t row;
};

static int compare_point_x(const void *a, const void *b)
{
    const struct point *x = a, *y = b;

    return (x->x > y->x) - (x->x < y->x);
}

struct comm_time {
    double time_s;
    size_t index;
};

static int compare_comm_time(const void *a, const void *b)
{
    const struct comm_time *x = a, *y = b;
    double tx = isfinite(x->time_s) ? x->time_s : -1;
    double ty = isfinite(y->time_s) ? y->time_s : -1;

    if (tx != ty)
        return tx > ty ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The communicators with the most time among those with a busbw, at most
 * RP_BUSBW_COMMS, into top; *others: how many more have one.  The count
 * taken, or -1 when out of memory. */
static long busbw_top(const struct rp_report *r, size_t *top, size_t *others)
{
    unsigned char *has = calloc(r->ncomms ? r->ncomms : 1, 1);
    struct comm_time *order = malloc((r->ncomms ? r->ncomms : 1) * sizeof *order);
    size_t i, j, k, ntop;
    long rc = -1;

    if (!has || !order)
        goto out;
    for (j = 0; j < r->nrows; j++)
        if (r->rows[j].comm_index >= 0 && r->rows[j].busbw_Bps > 0 &&
            r->rows[j].bytes > 0 && r->rows[j].calls > 0)
            has[r->rows[j].comm_index] = 1;
    for (i = 0, k = 0; i < r->ncomms; i++)
        if (has[i]) {
            order[k].time_s = r->comms[i].time_s;
            order[k].index = i;
            k++;
        }
    qsort(order, k, sizeof *order, compare_comm_time);
    ntop = k < RP_BUSBW_COMMS ? k : RP_BUSBW_COMMS;
    *others = k - ntop;
    for (i = 0; i < ntop; i++)
        top[i] = order[i].index;
    rc = (long)ntop;
out:
    free(order);
    free(has);
    return rc;
}

/* The dashed lines of the expected link speeds. */
static void busbw_link_lines(FILE *out, const struct rp_report *r,
                             const struct cp_svg_plot *p,
                             const char *const *links_drawn,
                             size_t nlinks_drawn)
{
    char b1[64], b2[64], b3[64];
    size_t i;

    for (i = 0; i < nlinks_drawn; i++) {
        const struct rp_link *l = rp_link_get(r, links_drawn[i]);
        double v = link_line(l), y = cp_svg_axis_map(&p->y, v);
        char hover[300];
        snprintf(hover, sizeof hover, "expected %s-node link speed: %s (%s)",
                 links_drawn[i],
                 cp_svg_format3(v, CP_SVG_BANDWIDTH, b1, sizeof b1),
                 l->expected_source && l->expected_Bps > 0 ? l->expected_source
                                                           : l->source);
        fputs("<g><title>", out);
        cp_svg_escape(out, hover);
        fprintf(out,
                "</title><line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
                "stroke=\"#000\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"%s\"/>",
                cp_svg_coord(p->x.px_lo, b2, sizeof b2),
                cp_svg_coord(y, b3, sizeof b3),
                cp_svg_coord(p->x.px_hi, b1, sizeof b1), b3,
                i == 0 ? "8 4" : "3 3");
        fprintf(out, "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">",
                cp_svg_coord(p->x.px_hi - 4, b1, sizeof b1),
                cp_svg_coord(y - 4, b2, sizeof b2));
        cp_svg_escape(out, links_drawn[i]);
        fprintf(out, " link %s</text></g>\n",
                cp_svg_format3(v, CP_SVG_BANDWIDTH, b1, sizeof b1));
    }
}

/* One collective of communicator ci (the k-th drawn): its sizes' busbw as
 * a line with a marker each.  pts has room for every row. */
static void busbw_series(FILE *out, const struct rp_report *r,
                         const struct cp_svg_plot *p, size_t ci, size_t k,
                         const char *op, struct point *pts)
{
    const struct rp_comm *cm = &r->comms[ci];
    const char *color = cp_svg_colors[k % CP_SVG_NCOLORS];
    char b1[64], b2[64], b3[64];
    size_t npts = 0, q, j;

    for (j = 0; j < r->nrows; j++) {
        const struct rp_row *w = &r->rows[j];
        if (w->comm_index != (long)ci || strcmp(w->op, op) ||
            !(w->busbw_Bps > 0) || !(w->bytes > 0) || !(w->calls > 0))
            continue;
        pts[npts].x = w->bytes / w->calls;
        pts[npts].y = w->busbw_Bps;
        pts[npts].row = j;
        npts++;
    }
    qsort(pts, npts, sizeof *pts, compare_point_x);
    fprintf(out, "<path fill=\"none\" stroke=\"%s\" "
                 "stroke-width=\"1.3\" d=\"",
            color);
    for (q = 0; q < npts; q++)
        fprintf(out, "%s%s %s", q ? "L" : "M",
                cp_svg_coord(cp_svg_axis_map(&p->x, pts[q].x), b1, sizeof b1),
                cp_svg_coord(cp_svg_axis_map(&p->y, pts[q].y), b2, sizeof b2));
    fputs("\"/>\n", out);
    for (q = 0; q < npts; q++) {
        const struct rp_row *w = &r->rows[pts[q].row];
        char hover[600], c1[64], c2[64], c3[64];
        snprintf(hover, sizeof hover,
                 "%s %s on %s (%s ranks): busbw %s over %s calls, "
                 "efficiency %s",
                 w->op, cp_svg_format3(pts[q].x, CP_SVG_SIZE, c1, sizeof c1),
                 rp_comm_label(cm),
                 cp_svg_format3(w->nranks, CP_SVG_COUNT, c2, sizeof c2),
                 cp_svg_format3(w->busbw_Bps, CP_SVG_BANDWIDTH, b3, sizeof b3),
                 cp_svg_format3(w->calls, CP_SVG_COUNT, c3, sizeof c3),
                 cp_svg_format3(w->efficiency, CP_SVG_PERCENT, b1, sizeof b1));
        cp_svg_marker(out, op_shape(w->op), cp_svg_axis_map(&p->x, pts[q].x),
                      cp_svg_axis_map(&p->y, pts[q].y), 4, color, 1, hover);
    }
    fputc('\n', out);
}

/* Communicator ci (the k-th drawn): one series per collective. */
static void busbw_comm(FILE *out, const struct rp_report *r,
                       const struct cp_svg_plot *p, size_t ci, size_t k,
                       struct point *pts, int *used_shape)
{
    const char *ops[16];
    size_t nops = 0, i, j;

    /* the distinct collectives of this communicator, one line each */
    for (j = 0; j < r->nrows; j++) {
        const struct rp_row *w = &r->rows[j];
        if (w->comm_index != (long)ci || !(w->busbw_Bps > 0))
            continue;
        for (i = 0; i < nops; i++)
            if (strcmp(ops[i], w->op) == 0)
                break;
        if (i == nops && nops < 16)
            ops[nops++] = w->op;
    }
    for (i = 0; i < nops; i++) {
        used_shape[op_shape(ops[i])] = 1;
        busbw_series(out, r, p, ci, k, ops[i], pts);
    }
}

static void busbw_legend(FILE *out, const struct rp_report *r,
                         const size_t *top, size_t ntop, const int *used_shape,
                         const char *const *links_drawn, size_t nlinks_drawn,
                         size_t others)
{
    char b1[64];
    size_t i, k;

    fputs("<div class=\"legend\">", out);
    for (k = 0; k < ntop; k++) {
        const struct rp_comm *cm = &r->comms[top[k]];
        char label[160];
        snprintf(label, sizeof label, "%s (%s ranks, %s)", rp_comm_label(cm),
                 cp_svg_format_count(cm->nranks, b1, sizeof b1), cm->link);
        cp_svg_key_box(out, cp_svg_colors[k % CP_SVG_NCOLORS], 1, label);
    }
    for (i = 0; i < CP_SVG_NSHAPES; i++) {
        if (used_shape[i])
            cp_svg_key_marker(out, (enum cp_svg_shape)i, "#666", 1,
                              shape_name((enum cp_svg_shape)i));
    }
    for (i = 0; i < nlinks_drawn; i++) {
        char label[96];
        snprintf(label, sizeof label, "expected %s link", links_drawn[i]);
        cp_svg_key_line(out, "#000", i == 0 ? "8 4" : "3 3", 1.5, label);
    }
    fputs("</div>\n<figcaption>busbw = size / time &times; f (nccl-tests): f = "
          "2(p&minus;1)/p for all-reduce, (p&minus;1)/p for all-gather, "
          "reduce-scatter and all-to-all, 1 for broadcast and reduce; on a "
          "healthy link the large sizes approach the link line.",
          out);
    if (others)
        fprintf(out, " %zu more communicator%s not drawn.", others,
                others == 1 ? "" : "s");
    fputs("</figcaption>\n</figure>\n", out);
}

void rp_plot_busbw(FILE *out, const struct rp_report *r)
{
    size_t top[RP_BUSBW_COMMS], ntop, i, j, k;
    struct point *pts = NULL;
    struct cp_svg_plot p = {0};
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    int used_shape[CP_SVG_NSHAPES] = {0};
    const char *links_drawn[4];
    size_t nlinks_drawn = 0, others = 0;
    long taken = busbw_top(r, top, &others);

    if (taken < 0)
        return;
    ntop = (size_t)taken;
    if (ntop == 0) {
        empty_figure(out, "fig-busbw", "Bus bandwidth against message size",
                     "No calls with a measured bus bandwidth.");
        return;
    }
    pts = malloc((r->nrows ? r->nrows : 1) * sizeof *pts);
    if (!pts)
        return;
    for (j = 0; j < r->nrows; j++) {
        const struct rp_row *w = &r->rows[j];
        for (k = 0; k < ntop; k++)
            if (w->comm_index == (long)top[k])
                break;
        if (k == ntop || !(w->busbw_Bps > 0) || !(w->bytes > 0) ||
            !(w->calls > 0))
            continue;
        xmin = fmin(xmin, w->bytes / w->calls);
        xmax = fmax(xmax, w->bytes / w->calls);
        ymin = fmin(ymin, w->busbw_Bps);
        ymax = fmax(ymax, w->busbw_Bps);
    }
    for (k = 0; k < ntop; k++) {
        const char *ln = r->comms[top[k]].link;
        double v = link_line(rp_link_get(r, ln));
        for (i = 0; i < nlinks_drawn; i++)
            if (strcmp(links_drawn[i], ln) == 0)
                break;
        if (i == nlinks_drawn && nlinks_drawn < 4 && v > 0 && isfinite(v)) {
            links_drawn[nlinks_drawn++] = ln;
            ymin = fmin(ymin, v);
            ymax = fmax(ymax, v);
        }
    }
    p.id = "busbw";
    p.title = "Bus bandwidth against message size per communicator, with the "
              "expected link speed";
    p.width = PLOT_W;
    p.height = PLOT_H;
    p.left = 70;
    p.right = 28;
    p.top = 14;
    p.bottom = 44;
    p.x.log = 1;
    p.x.base = 2;
    p.x.unit = CP_SVG_SIZE;
    p.x.title = "message size per call (S, bytes, log scale)";
    cp_svg_log_domain(xmin / 1.3, xmax * 1.3, 2, &p.x.lo, &p.x.hi);
    p.y.log = 1;
    p.y.base = 10;
    p.y.unit = CP_SVG_BANDWIDTH;
    p.y.title = "busbw (log scale)";
    cp_svg_log_domain(ymin / 1.5, ymax * 1.5, 10, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);

    fputs("<figure id=\"fig-busbw\">\n<h3>Bus bandwidth against message size, "
          "per communicator</h3>\n",
          out);
    cp_svg_plot_open(out, &p);
    busbw_link_lines(out, r, &p, links_drawn, nlinks_drawn);
    for (k = 0; k < ntop; k++)
        busbw_comm(out, r, &p, top[k], k, pts, used_shape);
    cp_svg_plot_close(out);
    busbw_legend(out, r, top, ntop, used_shape, links_drawn, nlinks_drawn,
                 others);
    free(pts);
}

/* ---- size histogram, shaded by regime ------------------------------------ */

#define HIST_MAX 64

struct hist_bin {
    double lat_calls, bw_calls, none_calls;
    double lat_time, bw_time, none_time;
};

static void bar_segment(FILE *out, double x, double w, double y0, double y1,
                        const char *fill, const char *hover)
{
    char attrs[128];

    if (!(y0 - y1 >= 0.3))
        return;
    snprintf(attrs, sizeof attrs,
             "fill=\"%s\" stroke=\"#fff\" stroke-width=\".5\"", fill);
    cp_svg_rect(out, x, y1, w, y0 - y1, attrs, hover);
}

static void histogram_panel(FILE *out, const char *id, const char *title,
                            const char *ytitle, enum cp_svg_unit unit,
                            const struct hist_bin *bins, size_t nb,
                            const double *lo, int time)
{
    struct cp_svg_plot p = {0};
    double ymax = 0, cw, label_every;
    char b1[64], b2[64], b3[64], hover[256], fill[64];
    size_t i;

    for (i = 0; i < nb; i++) {
        const struct hist_bin *h = &bins[i];
        ymax = fmax(ymax, time ? h->lat_time + h->bw_time + h->none_time
                               : h->lat_calls + h->bw_calls + h->none_calls);
    }
    plot_frame(&p, id, title, 250);
    p.x.lo = 0;
    p.x.hi = (double)nb;
    p.x.no_ticks = 1;
    p.x.title = "message size per call (power-of-two buckets)";
    p.y.unit = unit;
    p.y.title = ytitle;
    cp_svg_lin_domain(0, ymax > 0 ? ymax : 1, 5, 1, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);
    cp_svg_plot_open(out, &p);
    snprintf(fill, sizeof fill, "url(#%s-hatch)", id);
    fprintf(out,
            "<defs><pattern id=\"%s-hatch\" width=\"6\" height=\"6\" "
            "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            "<rect width=\"6\" height=\"6\" fill=\"" LATENCY_COLOR "\"/><line "
            "x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#fff\" "
            "stroke-width=\"2\" stroke-opacity=\".55\"/></pattern></defs>\n",
            id);
    cw = (p.x.px_hi - p.x.px_lo) / (double)nb;
    label_every = ceil((double)nb / 8);
    for (i = 0; i < nb; i++) {
        const struct hist_bin *h = &bins[i];
        double x = p.x.px_lo + cw * (double)i + cw * 0.1, w = cw * 0.8;
        double bw = time ? h->bw_time : h->bw_calls;
        double lat = time ? h->lat_time : h->lat_calls;
        double none = time ? h->none_time : h->none_calls;
        double y0 = p.y.px_lo, y1;
        char range[96];
        if (lo[i] > 0)
            snprintf(range, sizeof range, "%s to %s",
                     cp_svg_format3(lo[i], CP_SVG_SIZE, b1, sizeof b1),
                     cp_svg_format3(2 * lo[i], CP_SVG_SIZE, b2, sizeof b2));
        else
            snprintf(range, sizeof range, "0 B");
        y1 = cp_svg_axis_map(&p.y, bw);
        snprintf(hover, sizeof hover, "%s: %s bandwidth-bound", range,
                 cp_svg_format3(bw, unit, b3, sizeof b3));
        bar_segment(out, x, w, y0, y1, BANDWIDTH_COLOR, hover);
        y0 = y1;
        y1 = cp_svg_axis_map(&p.y, bw + lat);
        snprintf(hover, sizeof hover, "%s: %s latency-bound", range,
                 cp_svg_format3(lat, unit, b3, sizeof b3));
        bar_segment(out, x, w, y0, y1, fill, hover);
        y0 = y1;
        y1 = cp_svg_axis_map(&p.y, bw + lat + none);
        snprintf(hover, sizeof hover, "%s: %s without a model", range,
                 cp_svg_format3(none, unit, b3, sizeof b3));
        bar_segment(out, x, w, y0, y1, NONE_COLOR, hover);
        if (fmod((double)i, label_every) == 0)
            fprintf(out,
                    "<text class=\"tick\" x=\"%s\" y=\"%s\" "
                    "text-anchor=\"middle\">%s</text>",
                    cp_svg_coord(x + w / 2, b1, sizeof b1),
                    cp_svg_coord(p.y.px_lo + 16, b2, sizeof b2),
                    lo[i] > 0
                        ? cp_svg_format3(lo[i], CP_SVG_SIZE, b3, sizeof b3)
                        : "0 B");
        fputc('\n', out);
    }
    cp_svg_plot_close(out);
}

void rp_plot_histogram(FILE *out, const struct rp_report *r)
{
    struct hist_bin bins[HIST_MAX + 1];
    double lo[HIST_MAX + 1];
    long kmin = 1000, kmax = -1000, k;
    int have_zero = 0;
    size_t i, nb, off;

    for (i = 0; i < r->nrows; i++) {
        const struct rp_row *w = &r->rows[i];
        if (!(w->calls > 0))
            continue;
        if (!(w->bucket > 0)) {
            have_zero = 1;
            continue;
        }
        k = lround(log2(w->bucket));
        kmin = k < kmin ? k : kmin;
        kmax = k > kmax ? k : kmax;
    }
    if (kmax < kmin && !have_zero) {
        empty_figure(out, "fig-hist", "Message sizes: calls and time",
                     "No calls in this report.");
        return;
    }
    if (kmax < kmin)
        kmin = kmax = 0;
    if (kmax - kmin + 1 > HIST_MAX)
        kmin = kmax - HIST_MAX + 1; /* smaller sizes join the first bin */
    off = have_zero ? 1 : 0;
    nb = (size_t)(kmax - kmin + 1) + off;
    memset(bins, 0, sizeof bins);
    if (have_zero)
        lo[0] = 0;
    for (k = kmin; k <= kmax; k++)
        lo[(size_t)(k - kmin) + off] = ldexp(1, (int)k);
    for (i = 0; i < r->nrows; i++) {
        const struct rp_row *w = &r->rows[i];
        struct hist_bin *h;
        double t = isfinite(w->time_s) ? w->time_s : 0, share;
        if (!(w->calls > 0))
            continue;
        if (w->bucket > 0) {
            k = lround(log2(w->bucket));
            h = &bins[(size_t)((k < kmin ? kmin : k) - kmin) + off];
        } else {
            h = &bins[0];
        }
        if (strcmp(w->regime, "latency") == 0)
            h->lat_calls += w->calls;
        else if (strcmp(w->regime, "bandwidth") == 0)
            h->bw_calls += w->calls;
        else
            h->none_calls += w->calls;
        share = w->latency_share;
        if (strcmp(w->regime, "none") == 0 || !isfinite(share)) {
            if (strcmp(w->regime, "latency") == 0)
                h->lat_time += t;
            else if (strcmp(w->regime, "bandwidth") == 0)
                h->bw_time += t;
            else
                h->none_time += t;
        } else {
            h->lat_time += t * share;
            h->bw_time += t * (1 - share);
        }
    }
    fputs("<figure id=\"fig-hist\">\n<h3>Message sizes: calls and time, by "
          "regime</h3>\n",
          out);
    histogram_panel(out, "histcalls", "Calls per message size, by regime",
                    "calls", CP_SVG_COUNT, bins, nb, lo, 0);
    histogram_panel(out, "histtime",
                    "Communication time per message size, by regime",
                    "own time", CP_SVG_TIME, bins, nb, lo, 1);
    fputs("<div class=\"legend\">", out);
    cp_svg_key_box(out, BANDWIDTH_COLOR, 1, "bandwidth-bound");
    fputs("<span><svg width=\"14\" height=\"12\" aria-hidden=\"true\"><defs>"
          "<pattern id=\"keyhatch\" width=\"6\" height=\"6\" "
          "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
          "<rect width=\"6\" height=\"6\" fill=\"" LATENCY_COLOR "\"/><line "
          "x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#fff\" "
          "stroke-width=\"2\" stroke-opacity=\".55\"/></pattern></defs><rect "
          "x=\"1\" y=\"1\" width=\"12\" height=\"10\" fill=\"url(#keyhatch)\" "
          "stroke=\"#333\" stroke-width=\".5\"/></svg>latency-bound</span>",
          out);
    cp_svg_key_box(out, NONE_COLOR, 1, "no model");
    fputs("</div>\n<figcaption>A call is latency-bound when the model's latency "
          "term exceeds its bandwidth term at its size: such calls gain from "
          "fusion into larger buckets, bandwidth-bound ones from faster links."
          "</figcaption>\n</figure>\n",
          out);
}

/* ---- node x node heatmap of link efficiency ------------------------------ */

/* Viridis at 0, .25, .5, .75, 1: dark = slow, light = as the model. */
static void viridis(double t, char *buf, size_t size)
{
    static const double stops[5][3] = {{68, 1, 84},
                                       {59, 82, 139},
                                       {33, 145, 140},
                                       {94, 201, 98},
                                       {253, 231, 37}};
    double f;
    int i;

    t = fmax(0, fmin(1, isfinite(t) ? t : 0)) * 4;
    i = (int)fmin(3, floor(t));
    f = t - i;
    snprintf(buf, size, "#%02x%02x%02x",
             (unsigned)lround(stops[i][0] + f * (stops[i + 1][0] - stops[i][0])),
             (unsigned)lround(stops[i][1] + f * (stops[i + 1][1] - stops[i][1])),
             (unsigned)lround(stops[i][2] + f * (stops[i + 1][2] - stops[i][2])));
}

struct heat {
    size_t n;      /* nodes */
    size_t block;  /* nodes per cell */
    size_t m;      /* cells per side */
    double *worst; /* m*m, NaN: no data */
    unsigned *count;
    const struct rp_names *names; /* node names of the matrix */
};

static void heat_put(struct heat *h, size_t a, size_t b, double e)
{
    size_t i = a / h->block, j = b / h->block;

    if (!isfinite(e) || i >= h->m || j >= h->m)
        return;
    if (!(h->worst[i * h->m + j] <= e))
        h->worst[i * h->m + j] = e;
    h->count[i * h->m + j]++;
}

static int heat_init(struct heat *h, size_t n)
{
    size_t i, cells;

    h->n = n;
    h->block = (n + RP_HEAT_CELLS - 1) / RP_HEAT_CELLS;
    if (h->block == 0)
        h->block = 1;
    h->m = (n + h->block - 1) / h->block;
    cells = h->m > 0 ? h->m * h->m : 1;
    h->worst = malloc(cells * sizeof *h->worst);
    h->count = calloc(cells, sizeof *h->count);
    if (!h->worst || !h->count)
        return -1;
    for (i = 0; i < h->m * h->m; i++)
        h->worst[i] = NAN;
    return 0;
}

static long name_in(const struct rp_names *names, const char *name)
{
    size_t i;

    for (i = 0; i < names->n; i++)
        if (strcmp(names->name[i], name) == 0)
            return (long)i;
    return -1;
}

/* Lists a and b name the same nodes in the same order. */
static int same_names(const struct rp_names *a, const struct rp_names *b)
{
    size_t i;

    if (a->n != b->n)
        return 0;
    for (i = 0; i < a->n; i++)
        if (strcmp(a->name[i], b->name[i]) != 0)
            return 0;
    return 1;
}

/* The node label of cell i: a name, or a range of names. */
static void cell_label(const struct heat *h, size_t i, char *buf, size_t size)
{
    const char *first = h->names->name[i * h->block];
    size_t last = (i + 1) * h->block - 1;

    if (last >= h->n)
        last = h->n - 1;
    if (h->block == 1)
        snprintf(buf, size, "%s", first);
    else
        snprintf(buf, size, "%s .. %s", first, h->names->name[last]);
}

/* Node index of name in h->names: job.nodes' index when the matrix uses
 * job.nodes (as the analyzer writes it), else a search. */
static long heat_index(const struct heat *h, const struct rp_report *r,
                       int same, const char *name)
{
    if (!name)
        return -1;
    return same ? rp_node_index(r, name) : name_in(h->names, name);
}

/* The slow-link analysis' node-pair view: the matrix, else its pairs. */
static void heat_from_topology(struct heat *h, const struct rp_report *r,
                               int same)
{
    const double *m = r->topology.efficiency;
    size_t i, j, k = r->topology.nodes.n;

    if (m) {
        for (i = 0; i < k; i++)
            for (j = 0; j < k; j++)
                heat_put(h, i, j, m[i * k + j]);
        return;
    }
    for (i = 0; i < r->npairs; i++) {
        const struct rp_pair *p = &r->pairs[i];
        long a = heat_index(h, r, same, p->nodes[0]);
        long b = heat_index(h, r, same, p->nodes[1]);
        if (a < 0 || b < 0 || isnan(p->efficiency))
            continue;
        heat_put(h, (size_t)a, (size_t)b, p->efficiency);
        heat_put(h, (size_t)b, (size_t)a, p->efficiency);
    }
}

/* Communicators on one node (the diagonal) or two (a pair): the model's
 * time over the measured time of their bandwidth-bound calls. */
static void heat_from_comms(struct heat *h, const struct rp_report *r)
{
    size_t i;

    for (i = 0; i < r->ncomms; i++) {
        const struct rp_comm *c = &r->comms[i];
        long a, b;
        double e;
        if (c->nodes.n == 0 || c->nodes.n > 2 || !(c->bw_time_s > 0))
            continue;
        e = c->bw_model_s / c->bw_time_s;
        a = rp_node_index(r, c->nodes.name[0]);
        b = c->nodes.n == 2 ? rp_node_index(r, c->nodes.name[1]) : a;
        if (a < 0 || b < 0)
            continue;
        heat_put(h, (size_t)a, (size_t)b, e);
        if (a != b)
            heat_put(h, (size_t)b, (size_t)a, e);
    }
}

static size_t heat_cells(const struct heat *h)
{
    size_t i, n = 0;

    for (i = 0; i < h->m * h->m; i++)
        n += isfinite(h->worst[i]);
    return n;
}

static void heat_free(struct heat *h)
{
    free(h->worst);
    free(h->count);
    h->worst = NULL;
    h->count = NULL;
}

#define MAX_OUTLINES 16

struct outline {
    long a, b; /* cells */
    int dashed;
};

/* The links to outline: pairs the slow-link analysis calls slow (solid) or
 * suspect (dashed), and the two nodes of a finding about a link. */
static size_t heat_outlines(const struct heat *h, const struct rp_report *r,
                            int same, struct outline *o)
{
    size_t i, n = 0;

    for (i = 0; i < r->npairs; i++) {
        const char *state = r->pairs[i].state;
        long a, b;
        if (n == MAX_OUTLINES || !state ||
            (strcmp(state, "slow") != 0 && strcmp(state, "suspect") != 0))
            continue;
        a = heat_index(h, r, same, r->pairs[i].nodes[0]);
        b = heat_index(h, r, same, r->pairs[i].nodes[1]);
        if (a < 0 || b < 0)
            continue;
        o[n].a = a / (long)h->block;
        o[n].b = b / (long)h->block;
        o[n].dashed = strcmp(state, "suspect") == 0;
        n++;
    }
    for (i = 0; i < r->nfindings && n < MAX_OUTLINES; i++) {
        const struct rp_finding *f = &r->findings[i];
        long a, b;
        if (f->nodes.n != 2 ||
            (f->kid != CP_KIND_SLOW_LINK && f->kid != CP_KIND_LINKS_UNJUDGED))
            continue;
        a = heat_index(h, r, same, f->nodes.name[0]);
        b = heat_index(h, r, same, f->nodes.name[1]);
        if (a >= 0 && b >= 0) {
            o[n].a = a / (long)h->block;
            o[n].b = b / (long)h->block;
            o[n].dashed = 0;
            n++;
        }
    }
    return n;
}

/* Some pair of the node-pair view has its estimate from collprof probe
 * (topology.pairs[].source). */
static int heat_probed(const struct rp_report *r)
{
    size_t i;

    for (i = 0; i < r->npairs; i++) {
        const char *src = r->pairs[i].source;
        if (src && strcmp(src, "probe") == 0)
            return 1;
    }
    return 0;
}

/* The heatmap's geometry: the square's side, its top-left corner, and
 * the side of one cell. */
struct heat_frame {
    double side, left, top, cw;
};

/* The heatmap without data: why. */
static void heat_empty(FILE *out, const struct rp_report *r)
{
    fputs("<figure id=\"fig-heatmap\">\n<h3>Link efficiency, node "
          "&times; node</h3>\n<p class=\"empty\">No per-link data: ",
          out);
    if (r->nnodes <= 1)
        fputs("the job ran on one node, and no communicator has "
              "bandwidth-bound calls with a model to compare.",
              out);
    else if (r->topology.present)
        fputs("the node-pair analysis found no bandwidth-bound traffic "
              "between nodes to judge, and no communicator on one or two "
              "nodes has bandwidth-bound calls with a model. The "
              "communicator table gives the efficiency per communicator.",
              out);
    else
        fputs("every communicator with bandwidth-bound calls spans more "
              "than two nodes, so its speed cannot be put on one node "
              "pair, and the report has no node-pair view (the slow-link "
              "analysis adds one). The communicator table gives the "
              "efficiency per communicator.",
              out);
    fputs("</p>\n</figure>\n", out);
}

/* The cells, each with its hover text (on a large map only the cells
 * with data have one), and the outlines of the links named slow. */
static void heat_cells_draw(FILE *out, const struct heat *h,
                            const struct heat_frame *f,
                            const struct outline *outline, size_t noutline)
{
    char b4[32], color[16], la[200], lb[200], attrs[128];
    size_t i, j;

    for (i = 0; i < h->m; i++) {
        for (j = 0; j < h->m; j++) {
            double e = h->worst[i * h->m + j];
            char hover[512];
            if (isfinite(e))
                viridis(e, color, sizeof color);
            else
                snprintf(color, sizeof color, "#f0f0f0");
            cell_label(h, i, la, sizeof la);
            cell_label(h, j, lb, sizeof lb);
            if (isfinite(e))
                snprintf(hover, sizeof hover,
                         "%s x %s: efficiency %s (worst of %u)", la, lb,
                         cp_svg_format3(e, CP_SVG_PERCENT, b4, sizeof b4),
                         h->count[i * h->m + j]);
            else
                snprintf(hover, sizeof hover, "%s x %s: no data", la, lb);
            snprintf(attrs, sizeof attrs, "fill=\"%s\"", color);
            cp_svg_rect(out, f->left + f->cw * (double)j,
                        f->top + f->cw * (double)i, f->cw + 0.05, f->cw + 0.05,
                        attrs, isfinite(e) || h->m <= 16 ? hover : NULL);
        }
        fputc('\n', out);
    }
    for (i = 0; i < noutline; i++) {
        snprintf(attrs, sizeof attrs,
                 "fill=\"none\" stroke=\"#D55E00\" stroke-width=\"3\"%s",
                 outline[i].dashed ? " stroke-dasharray=\"5 3\"" : "");
        cp_svg_rect(out, f->left + f->cw * (double)outline[i].b,
                    f->top + f->cw * (double)outline[i].a, f->cw, f->cw, attrs,
                    NULL);
        cp_svg_rect(out, f->left + f->cw * (double)outline[i].a,
                    f->top + f->cw * (double)outline[i].b, f->cw, f->cw, attrs,
                    NULL);
        fputc('\n', out);
    }
}

/* Node labels: every cell when they fit, else every k-th. */
static void heat_labels(FILE *out, const struct heat *h,
                        const struct heat_frame *f)
{
    size_t every = (size_t)ceil((double)h->m / 16), i;
    char b1[32], b2[32], la[200];

    for (i = 0; i < h->m; i += every) {
        /* a block is labelled by its first node */
        snprintf(la, sizeof la, "%s",
                 h->names->name[i * h->block]);
        if (strlen(la) > 14)
            memcpy(la + 12, "..", 3);
        fprintf(out,
                "<text class=\"tick\" x=\"%s\" y=\"%s\" "
                "text-anchor=\"end\">",
                cp_svg_coord(f->left - 4, b1, sizeof b1),
                cp_svg_coord(f->top + f->cw * ((double)i + 0.5) + 4, b2,
                             sizeof b2));
        cp_svg_escape(out, la);
        fprintf(out,
                "</text><text class=\"tick\" transform=\"translate(%s %s) "
                "rotate(-50)\" text-anchor=\"end\">",
                cp_svg_coord(f->left + f->cw * ((double)i + 0.5) + 3, b1,
                             sizeof b1),
                cp_svg_coord(f->top + f->side + 8, b2, sizeof b2));
        cp_svg_escape(out, la);
        fputs("</text>\n", out);
    }
}

/* The colour scale, and the end of the <svg>. */
static void heat_scale(FILE *out, const struct heat_frame *f)
{
    char b1[32], b2[32], b3[32], b4[32];
    size_t i;

    fprintf(out,
            "<defs><linearGradient id=\"heat-grad\" x1=\"0\" y1=\"1\" "
            "x2=\"0\" y2=\"0\"><stop offset=\"0\" stop-color=\"#440154\"/>"
            "<stop offset=\".25\" stop-color=\"#3b528b\"/><stop offset=\".5\" "
            "stop-color=\"#21918c\"/><stop offset=\".75\" "
            "stop-color=\"#5ec962\"/><stop offset=\"1\" "
            "stop-color=\"#fde725\"/></linearGradient></defs>\n"
            "<rect x=\"%s\" y=\"%s\" width=\"16\" height=\"%s\" "
            "fill=\"url(#heat-grad)\" stroke=\"#333\" stroke-width=\".5\"/>\n",
            cp_svg_coord(f->left + f->side + 24, b1, sizeof b1),
            cp_svg_coord(f->top, b2, sizeof b2),
            cp_svg_coord(f->side / 2, b3, sizeof b3));
    for (i = 0; i <= 4; i++)
        fprintf(out, "<text class=\"tick\" x=\"%s\" y=\"%s\">%s</text>\n",
                cp_svg_coord(f->left + f->side + 44, b1, sizeof b1),
                cp_svg_coord(f->top + f->side / 2 -
                                 f->side / 2 * (double)i / 4 + 4,
                             b2, sizeof b2),
                i == 4   ? "&#8805;100%"
                : i == 0 ? "0%"
                : i == 1 ? "25%"
                : i == 2 ? "50%"
                         : "75%");
    fprintf(out,
            "<rect x=\"%s\" y=\"%s\" width=\"16\" height=\"12\" "
            "fill=\"#f0f0f0\" stroke=\"#333\" stroke-width=\".5\"/><text "
            "class=\"tick\" x=\"%s\" y=\"%s\">no data</text>\n</svg>\n",
            cp_svg_coord(f->left + f->side + 24, b1, sizeof b1),
            cp_svg_coord(f->top + f->side / 2 + 14, b2, sizeof b2),
            cp_svg_coord(f->left + f->side + 44, b3, sizeof b3),
            cp_svg_coord(f->top + f->side / 2 + 24, b4, sizeof b4));
}

/* The heat map of the report's node-pair view, else of its communicators
 * on one or two nodes; *source: where its efficiencies come from.  Cells
 * with data, 0 when none (h is then empty) or -1 when out of memory. */
static long heat_fill(struct heat *h, const struct rp_report *r, int *same,
                      const char **source)
{
    size_t cells = 0;

    if (r->topology.present) {
        h->names = &r->topology.nodes;
        *same = same_names(h->names, &r->nodes);
        if (heat_init(h, h->names->n) < 0)
            return -1;
        heat_from_topology(h, r, *same);
        cells = heat_cells(h);
        *source = r->topology_caption
                      ? r->topology_caption
                  : heat_probed(r)
                      ? "the slow-link analysis' node-pair view: each pair's "
                        "bandwidth relative to the same calls elsewhere in "
                        "the job, or, where the calls left a pair open, "
                        "collprof probe's measurement of it against the "
                        "probe's reference"
                      : "the slow-link analysis' node-pair view: each pair's "
                        "bandwidth relative to the same calls elsewhere in "
                        "the job";
        if (cells == 0)
            heat_free(h);
    }
    if (cells == 0) {
        h->names = &r->nodes;
        *same = 1;
        if (heat_init(h, r->nnodes) < 0)
            return -1;
        heat_from_comms(h, r);
        cells = heat_cells(h);
        *source = "communicators on one node (the diagonal) or on two nodes: "
                  "the model's time over the measured time of their "
                  "bandwidth-bound calls";
    }
    return (long)cells;
}

void rp_plot_heatmap(FILE *out, const struct rp_report *r)
{
    struct heat h = {0};
    struct heat_frame f = {.side = 440, .left = 110, .top = 16};
    const char *source = "";
    int same = 1;
    char b1[32], b2[32];
    struct outline outline[MAX_OUTLINES];
    size_t noutline = 0, cells;
    long filled = heat_fill(&h, r, &same, &source);

    if (filled < 0)
        goto out;
    cells = (size_t)filled;
    if (cells == 0) {
        heat_empty(out, r);
        goto out;
    }
    if (h.m == 1 && h.n == 1) { /* one node: a sentence, not a square */
        fputs("<figure id=\"fig-heatmap\">\n<h3>Link efficiency, node "
              "&times; node</h3>\n<p class=\"empty\">One node (",
              out);
        cp_svg_escape(out, h.names->name[0]);
        fprintf(out,
                "): the bandwidth-bound calls of its communicators run "
                "at %s of the model (the worst of %u).</p>\n</figure>\n",
                cp_svg_format3(h.worst[0], CP_SVG_PERCENT, b1, sizeof b1),
                h.count[0]);
        goto out;
    }
    noutline = heat_outlines(&h, r, same, outline);
    f.cw = f.side / (double)h.m;
    fprintf(out,
            "<figure id=\"fig-heatmap\">\n<h3>Link efficiency, node &times; "
            "node</h3>\n<svg class=\"plot\" viewBox=\"0 0 %s %s\" "
            "role=\"img\" aria-labelledby=\"heat-t\"><title id=\"heat-t\">"
            "Link efficiency for each pair of nodes</title>\n",
            cp_svg_coord(f.left + f.side + 120, b1, sizeof b1),
            cp_svg_coord(f.top + f.side + 100, b2, sizeof b2));
    heat_cells_draw(out, &h, &f, outline, noutline);
    heat_labels(out, &h, &f);
    heat_scale(out, &f);
    fputs("<figcaption>Efficiency from ", out);
    fputs(source, out);
    fputs(". Dark: slow; ", out);
    if (h.block > 1)
        fprintf(out, "each cell is a block of %zu &times; %zu nodes, labelled "
                     "by its first node, and shows its worst pair; ",
                h.block, h.block);
    if (noutline)
        fputs("outlined: the links named slow (solid) or suspect (dashed); ",
              out);
    fprintf(out, "%zu of %zu cells have data.</figcaption>\n</figure>\n",
            cells, h.m * h.m);
out:
    heat_free(&h);
}

/* ---- per-rank arrival lateness ------------------------------------------- */

static int is_flagged(const struct rp_report *r, double rank)
{
    size_t i, j;

    for (i = 0; i < r->nfindings; i++) {
        const struct rp_finding *f = &r->findings[i];
        const char *kind = rp_ev_str(f->evidence, "kind");
        if (f->kid != CP_KIND_STRAGGLER ||
            (kind && strcmp(kind, "in_call_unresolved") == 0))
            continue; /* one of its ranks, none flagged */
        for (j = 0; j < f->ranks.n; j++)
            if ((double)f->ranks.rank[j] == rank)
                return 1;
    }
    return 0;
}

/* A large job's lateness (rank_summary.figures.late_s): how many ranks
 * fall in each of its histogram's bins, on a log scale so that the few
 * late ranks stand out from the many punctual ones; the bins holding a
 * rank a straggler finding names in vermillion. */
/* One bar of the lateness plots, from x0 to x1 (with gaps between bars
 * when there is room) up to y; a straggler's in the latency colour. */
static void lateness_bar(FILE *out, const struct cp_svg_plot *p, double x0,
                         double x1, double y, int flag, const char *hover)
{
    if (x1 - x0 > 3) {
        x0 += (x1 - x0) * 0.1;
        x1 -= (x1 - x0) * 0.1 / 0.9;
    }
    cp_svg_rect(out, x0, y, fmax(x1 - x0, 0.6), p->y.px_lo - y,
                flag ? "fill=\"" LATENCY_COLOR "\""
                     : "fill=\"" BANDWIDTH_COLOR "\"",
                hover);
    fputc('\n', out);
}

static void lateness_histogram(FILE *out, const struct rp_report *r,
                               const struct rp_figure *fig)
{
    const struct rp_worst *highest = fig->worst[RP_HIGHEST];
    size_t nhighest = fig->nworst[RP_HIGHEST];
    struct cp_svg_plot p = {0};
    double lo = fig->lo, hi = fig->hi;
    double cmax = 0, width;
    size_t nb = fig->ncounts, b, i, flagged = 0;
    char b1[64], b2[64], b3[64];

    for (b = 0; b < nb; b++)
        cmax = fmax(cmax, fig->counts[b]);
    if (!(hi > 0) || !(hi > lo) || !(cmax > 0) || nb == 0) {
        empty_figure(out, "fig-lateness", "Arrival lateness per rank",
                     "No rank arrived measurably last: no lateness to show.");
        return;
    }
    width = (hi - lo) / (double)nb;
    plot_frame(&p, "late", "Arrival lateness: ranks per lateness", 260);
    p.x.lo = lo;
    p.x.hi = hi;
    p.x.unit = CP_SVG_TIME;
    p.x.title = "lateness (sum over the run)";
    p.y.log = 1;
    p.y.base = 10;
    p.y.unit = CP_SVG_COUNT;
    p.y.title = "ranks";
    cp_svg_log_domain(0.5, cmax, 10, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);
    fputs("<figure id=\"fig-lateness\">\n<h3>Arrival lateness per rank "
          "(stragglers)</h3>\n",
          out);
    cp_svg_plot_open(out, &p);
    for (b = 0; b < nb; b++) {
        double n = fig->counts[b];
        double a = lo + width * (double)b, z = a + width, x0, x1, y;
        int flag = 0;
        char hover[300];
        if (!(n > 0))
            continue;
        for (i = 0; i < nhighest; i++) {
            double late = highest[i].value;
            size_t at = (size_t)fmin((late - lo) / width, (double)(nb - 1));
            if (late >= lo && at == b && is_flagged(r, highest[i].rank))
                flag = 1;
        }
        flagged += flag;
        x0 = cp_svg_axis_map(&p.x, a);
        x1 = cp_svg_axis_map(&p.x, z);
        y = cp_svg_axis_map(&p.y, n);
        snprintf(hover, sizeof hover, "%s rank%s late by %s to %s in all%s",
                 cp_svg_format3(n, CP_SVG_COUNT, b1, sizeof b1),
                 n == 1 ? "" : "s",
                 cp_svg_format3(a, CP_SVG_TIME, b2, sizeof b2),
                 cp_svg_format3(z, CP_SVG_TIME, b3, sizeof b3),
                 flag ? ", a straggler among them" : "");
        lateness_bar(out, &p, x0, x1, y, flag, hover);
    }
    cp_svg_plot_close(out);
    fputs("<div class=\"legend\">", out);
    cp_svg_key_box(out, BANDWIDTH_COLOR, 1, "ranks");
    if (flagged)
        cp_svg_key_box(out, LATENCY_COLOR, 1,
                       "holds a rank named as a straggler by a finding");
    fputs("</div>\n<figcaption>", out);
    cp_svg_value(out, r->total_ranks, CP_SVG_COUNT);
    fputs(" ranks: how many were how late in all (for each collective the "
          "last rank to arrive, how long after the rank before it, summed "
          "over the run). The latest:",
          out);
    for (i = 0; i < nhighest && i < 5; i++) {
        fputs(i ? ", rank " : " rank ", out);
        cp_svg_value(out, highest[i].rank, CP_SVG_RANK);
        fputs(" (", out);
        cp_svg_escape(out, highest[i].node);
        fputs(") ", out);
        cp_svg_value(out, highest[i].value, CP_SVG_TIME);
    }
    fputs(". A rank far above the others holds everyone up: look at its "
          "compute and input, not at the network.</figcaption>\n</figure>\n",
          out);
}

/* The hover text of the lateness bar of ranks first..last-1, whose
 * latest is k. */
static void lateness_hover(const struct rp_report *r, size_t first,
                           size_t last, const struct rp_rank *k, char *hover,
                           size_t size)
{
    char b1[64], b2[64], b3[64], b4[64], b5[64];

    if (last - first > 1)
        snprintf(hover, size,
                 "ranks %s to %s: the latest is rank %s on %s, last at %s "
                 "collectives, %s late in all",
                 cp_svg_format3(r->ranks[first].rank, CP_SVG_RANK, b1,
                                sizeof b1),
                 cp_svg_format3(r->ranks[last - 1].rank, CP_SVG_RANK, b2,
                                sizeof b2),
                 cp_svg_format3(k->rank, CP_SVG_RANK, b3, sizeof b3), k->node,
                 cp_svg_format3(k->last_arrivals, CP_SVG_COUNT, b4, sizeof b4),
                 cp_svg_format3(k->late_s, CP_SVG_TIME, b5, sizeof b5));
    else
        snprintf(hover, size,
                 "rank %s on %s: last at %s collectives, %s late in all",
                 cp_svg_format3(k->rank, CP_SVG_RANK, b3, sizeof b3), k->node,
                 cp_svg_format3(k->last_arrivals, CP_SVG_COUNT, b4, sizeof b4),
                 cp_svg_format3(k->late_s, CP_SVG_TIME, b5, sizeof b5));
}

void rp_plot_lateness(FILE *out, const struct rp_report *r)
{
    struct cp_svg_plot p = {0};
    size_t nb, b, i, flagged = 0;
    double ymax = 0, off;

    if (r->has_rank_summary && r->figures[RP_FIG_LATE].present) {
        lateness_histogram(out, r, &r->figures[RP_FIG_LATE]);
        return;
    }
    for (i = 0; i < r->nranks; i++)
        if (r->ranks[i].late_s > 0)
            ymax = fmax(ymax, r->ranks[i].late_s);
    if (r->nranks < 2 || !(ymax > 0)) {
        empty_figure(out, "fig-lateness", "Arrival lateness per rank",
                     r->nranks < 2
                         ? "One rank: nobody waits for anybody."
                         : "No rank arrived measurably last: no lateness to "
                           "show.");
        return;
    }
    nb = r->nranks < RP_RANK_BARS ? r->nranks : RP_RANK_BARS;
    plot_frame(&p, "late", "Arrival lateness per rank", 260);
    /* one bar per rank: centred on its index; bins: edges at their ranks */
    off = nb == r->nranks ? 0.5 : 0;
    p.x.lo = -off;
    p.x.hi = (double)r->nranks - off;
    p.x.unit = CP_SVG_RANK;
    p.x.title = nb < r->nranks ? "rank index (each bar: the latest rank of "
                                 "a group; hover for details)"
                               : "rank index (sorted by rank)";
    p.y.unit = CP_SVG_TIME;
    p.y.title = "lateness (sum)";
    cp_svg_lin_domain(0, ymax, 5, 1, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);
    fputs("<figure id=\"fig-lateness\">\n<h3>Arrival lateness per rank "
          "(stragglers)</h3>\n",
          out);
    cp_svg_plot_open(out, &p);
    for (b = 0; b < nb; b++) {
        size_t first = b * r->nranks / nb, last = (b + 1) * r->nranks / nb;
        size_t worst = first;
        const struct rp_rank *k;
        char hover[400];
        int flag;
        double y, x0, x1;
        for (i = first; i < last; i++)
            if (r->ranks[i].late_s > r->ranks[worst].late_s)
                worst = i;
        k = &r->ranks[worst];
        if (!(k->late_s > 0))
            continue;
        flag = is_flagged(r, k->rank);
        flagged += flag;
        y = cp_svg_axis_map(&p.y, k->late_s);
        lateness_hover(r, first, last, k, hover, sizeof hover);
        x0 = cp_svg_axis_map(&p.x, (double)first - off);
        x1 = cp_svg_axis_map(&p.x, (double)last - off);
        lateness_bar(out, &p, x0, x1, y, flag, hover);
    }
    cp_svg_plot_close(out);
    fputs("<div class=\"legend\">", out);
    cp_svg_key_box(out, BANDWIDTH_COLOR, 1, "rank");
    if (flagged)
        cp_svg_key_box(out, LATENCY_COLOR, 1,
                       "named as a straggler by a finding");
    fputs("</div>\n<figcaption>For each collective the last rank to arrive, "
          "how long after the rank before it; summed over the run. A rank "
          "far above the others holds everyone up: look at its compute and "
          "input, not at the network.</figcaption>\n</figure>\n",
          out);
}

/* ---- communication time over the run ------------------------------------- */

#define TIMELINE_SERIES 6 /* collectives with a colour of their own */
#define TIMELINE_BARS 512  /* at most; more windows are drawn in groups */

struct timeline_op {
    const char *name; /* a key of op_time_s (the report's: escaped) */
    double total;
};

static int timeline_op_cmp(const void *a, const void *b)
{
    const struct timeline_op *x = a, *y = b;

    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Window w's time in collective op, NaN when it has none. */
static double op_time(const struct rp_period *w, const char *op)
{
    size_t k;

    for (k = 0; k < w->nops; k++)
        if (strcmp(w->ops[k].op, op) == 0)
            return w->ops[k].time_s;
    return NAN;
}

/* The collectives of op_time_s (the keys of the first window that has
 * them), the most time first; *n of them, at most cap. */
static size_t timeline_ops(const struct rp_timeline *tl,
                           struct timeline_op *ops, size_t cap)
{
    const struct rp_period *first = NULL;
    size_t i, k, n = 0;

    for (i = 0; i < tl->nwindows && !first; i++)
        if (tl->windows[i].nops > 0)
            first = &tl->windows[i];
    for (k = 0; first && k < first->nops && n < cap; k++) {
        ops[n].name = first->ops[k].op;
        ops[n].total = 0;
        n++;
    }
    for (i = 0; i < tl->nwindows; i++) {
        for (k = 0; k < n; k++) {
            double t = op_time(&tl->windows[i], ops[k].name);
            if (t > 0)
                ops[k].total += t;
        }
    }
    qsort(ops, n, sizeof *ops, timeline_op_cmp);
    while (n > 0 && !(ops[n - 1].total > 0))
        n--;
    return n;
}

/* A bar: windows [first, last) of the report summed (one window per bar
 * unless the report has more than TIMELINE_BARS). */
struct timeline_bar {
    double s, e;               /* from the first window with a width */
    double c, calls, bytes, wait; /* NaN: no window had the key */
    double val[64];            /* per ops[] */
};

static void add_known(double *sum, double v)
{
    if (isfinite(v))
        *sum = isnan(*sum) ? v : *sum + v;
}

/* Returns 0 when no window of the group has a width and a time. */
static int timeline_bar(const struct rp_timeline *tl, size_t first,
                        size_t last,
                        const struct timeline_op *ops, size_t nops,
                        int with_details, struct timeline_bar *b)
{
    size_t i, k;
    int any = 0;

    b->s = INFINITY;
    b->e = -INFINITY;
    b->c = 0;
    b->calls = b->bytes = b->wait = NAN;
    for (k = 0; k < nops; k++)
        b->val[k] = 0;
    for (i = first; i < last; i++) {
        const struct rp_period *w = &tl->windows[i];
        double s = w->start_s, e = w->end_s, c = w->comm_time_s;
        if (!(e > s) || !(c >= 0))
            continue;
        any = 1;
        b->s = fmin(b->s, s);
        b->e = fmax(b->e, e);
        b->c += c;
        if (!with_details)
            continue;
        add_known(&b->calls, w->calls);
        add_known(&b->bytes, w->bytes);
        add_known(&b->wait, w->wait_time_s);
        for (k = 0; k < nops; k++) {
            double t = op_time(w, ops[k].name);
            if (t > 0)
                b->val[k] += t;
        }
    }
    return any;
}

/* The timeline without a window that took time: why, and the time per
 * step when the report has it. */
static void timeline_empty(FILE *out, const struct rp_report *r)
{
    char b1[64], b2[64];

    fputs("<figure id=\"fig-timeline\">\n<h3>Communication time over the "
          "run</h3>\n<p class=\"empty\">",
          out);
    if (r->timeline.present)
        fputs("No collective of this run took time: there is nothing "
              "to draw over time.",
              out);
    else
        fputs("This report has no time series: report.json aggregates "
              "the calls by collective, communicator and size, not by "
              "time window.",
              out);
    if (r->sum.steps > 0 && r->sum.comm_time_s > 0) {
        fprintf(out,
                " Per step: %s of NCCL time on average over %s step%s"
                " (",
                cp_svg_format3(r->sum.comm_time_s / r->sum.steps, CP_SVG_TIME,
                               b1, sizeof b1),
                cp_svg_format3(r->sum.steps, CP_SVG_COUNT, b2, sizeof b2),
                r->sum.steps == 1 ? "" : "s");
        cp_svg_escape(out, r->sum.steps_method);
        fputs(").", out);
    }
    fputs("</p>\n</figure>\n", out);
}

/* One bar (s to e since the run's start, from x0 wide bw): its hover text
 * over the whole stack, the first ncolored collectives of ops in their
 * colours, largest of the run at the bottom, and what they do not cover
 * (rounding, or the rest) in grey. */
static void timeline_stack(FILE *out, const struct cp_svg_plot *p,
                           const struct timeline_bar *bar, double s, double e,
                           const struct timeline_op *ops, size_t nops,
                           size_t ncolored)
{
    double x0 = cp_svg_axis_map(&p->x, s), x1 = cp_svg_axis_map(&p->x, e);
    double bw = fmax(x1 - x0 - 0.5, 0.5), base = 0, other = bar->c;
    char b1[64], b2[64], b3[64], attrs[128];
    size_t k, shown;

    /* one group per bar: the hover text covers its whole stack */
    fputs("<g><title>", out);
    fprintf(out, "%s to %s: %s in NCCL",
            cp_svg_format3(s, CP_SVG_TIME, b1, sizeof b1),
            cp_svg_format3(e, CP_SVG_TIME, b2, sizeof b2),
            cp_svg_format3(bar->c, CP_SVG_TIME, b3, sizeof b3));
    for (k = shown = 0; k < nops; k++) {
        if (!(bar->val[k] > 0))
            continue;
        fputs(shown++ == 0 ? " (" : ", ", out);
        cp_svg_escape(out, ops[k].name);
        fprintf(out, " %s",
                cp_svg_format3(bar->val[k], CP_SVG_TIME, b1, sizeof b1));
    }
    if (shown > 0)
        fputs(")", out);
    if (bar->calls >= 0)
        fprintf(out, "; %s calls ended in it",
                cp_svg_format_count(bar->calls, b1, sizeof b1));
    if (bar->bytes >= 0)
        fprintf(out, ", %s",
                cp_svg_format3(bar->bytes, CP_SVG_SIZE, b1, sizeof b1));
    if (bar->wait > 0)
        fprintf(out, "; %s of rank time waiting for the last arrival",
                cp_svg_format3(bar->wait, CP_SVG_TIME, b1, sizeof b1));
    fputs("</title>\n", out);
    for (k = 0; k <= ncolored; k++) {
        double v, y0, y1;
        const char *color;
        if (k < ncolored) {
            v = bar->val[k];
            color = cp_svg_colors[k];
            other -= v;
        } else {
            v = nops > 0 ? other : bar->c;
            color = nops > 0 ? NONE_COLOR : BANDWIDTH_COLOR;
        }
        if (!(v > 0) || (k == ncolored && nops > 0 && v < 1e-6 * bar->c))
            continue;
        y0 = cp_svg_axis_map(&p->y, base);
        y1 = cp_svg_axis_map(&p->y, base + v);
        base += v;
        snprintf(attrs, sizeof attrs,
                 "fill=\"%s\" stroke=\"#fff\" stroke-width=\".3\"", color);
        cp_svg_rect(out, x0, y1, bw, y0 - y1, attrs, NULL);
        fputc('\n', out);
    }
    fputs("</g>\n", out);
}

void rp_plot_timeline(FILE *out, const struct rp_report *r)
{
    const struct rp_timeline *tl = &r->timeline;
    struct cp_svg_plot p = {0};
    struct timeline_op ops[64]; /* as many as timeline_bar's val[] */
    struct timeline_bar bar;
    double t0 = INFINITY, t1 = -INFINITY, ymax = 0, width_s;
    char b1[64];
    size_t i, k, nops, ncolored, n = tl->nwindows, group;

    /* the analyzer writes at most 128 windows; a report with very many is
     * drawn in groups of consecutive windows */
    group = n > TIMELINE_BARS ? (n + TIMELINE_BARS - 1) / TIMELINE_BARS : 1;
    for (i = 0; i < n; i += group)
        if (timeline_bar(tl, i, i + group < n ? i + group : n, NULL, 0, 0,
                         &bar)) {
            t0 = fmin(t0, bar.s);
            t1 = fmax(t1, bar.e);
            ymax = fmax(ymax, bar.c);
        }
    if (!(t1 > t0)) {
        timeline_empty(out, r);
        return;
    }
    nops = timeline_ops(tl, ops, sizeof ops / sizeof ops[0]);
    ncolored = nops <= TIMELINE_SERIES ? nops : TIMELINE_SERIES - 1;
    width_s = tl->window_s *
              (double)group;
    plot_frame(&p, "timeline",
               "Communication time per time window over the run", 250);
    p.x.unit = CP_SVG_TIME;
    p.x.title = "time since the start of the run";
    cp_svg_lin_domain(0, t1 - t0, 6, 1, &p.x.lo, &p.x.hi);
    p.y.unit = CP_SVG_TIME;
    p.y.title = "NCCL time in the window";
    cp_svg_lin_domain(0, ymax > 0 ? ymax : 1, 5, 1, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);
    fputs("<figure id=\"fig-timeline\">\n<h3>Communication time over the run"
          "</h3>\n",
          out);
    cp_svg_plot_open(out, &p);
    for (i = 0; i < n; i += group)
        if (timeline_bar(tl, i, i + group < n ? i + group : n, ops, nops, 1,
                         &bar))
            timeline_stack(out, &p, &bar, bar.s - t0, bar.e - t0, ops, nops,
                           ncolored);
    cp_svg_plot_close(out);
    if (nops > 0) {
        fputs("<div class=\"legend\">", out);
        for (k = 0; k < ncolored; k++)
            cp_svg_key_box(out, cp_svg_colors[k], 1, ops[k].name);
        if (nops > ncolored)
            cp_svg_key_box(out, NONE_COLOR, 1, "other collectives");
        fputs("</div>\n", out);
    }
    fputs("<figcaption>The collectives' own time (last arrival to last end, "
          "each instance once) in each window",
          out);
    if (width_s > 0)
        fprintf(out, " of %s",
                cp_svg_format3(width_s, CP_SVG_TIME, b1, sizeof b1));
    if (group > 1)
        fprintf(out, " (a bar sums %zu of the report's windows)", group);
    fputs("; the windows add up to the job's communication time, and "
          "communicators that run at once add up too. A window that stands "
          "out is a phase (evaluation, checkpoint) or a slowdown."
          "</figcaption>\n</figure>\n",
          out);
}

/* ---- one communicator: time against size, and its skew ------------------ */

/* The extent of communicator ci's size buckets: sizes per call
 * [*xmin, *xmax], times per call (their p50 and p99 included)
 * [*ymin, *ymax]; returns how many buckets have a size and a time. */
static size_t comm_extent(const struct rp_report *r, size_t ci, double *xmin,
                          double *xmax, double *ymin, double *ymax)
{
    size_t i, points = 0;

    *xmin = *ymin = INFINITY;
    *xmax = *ymax = 0;
    for (i = 0; i < r->nrows; i++) {
        const struct rp_row *w = &r->rows[i];
        double n, t;
        if (w->comm_index != (long)ci || !(w->calls > 0) ||
            !(w->bytes > 0) || !(w->time_s > 0))
            continue;
        n = w->bytes / w->calls;
        t = w->time_s / w->calls;
        *xmin = fmin(*xmin, n);
        *xmax = fmax(*xmax, n);
        *ymin = fmin(*ymin, w->p50_s > 0 ? fmin(t, w->p50_s) : t);
        *ymax = fmax(*ymax, w->p99_s > 0 && isfinite(w->p99_s)
                                ? fmax(t, w->p99_s)
                                : t);
        points++;
    }
    return points;
}

void rp_plot_comm(FILE *out, const struct rp_report *r, size_t ci,
                  size_t number)
{
    const struct rp_comm *c = &r->comms[ci];
    struct cp_svg_plot p = {0};
    char id[40], b1[64], b2[64], b3[64], hover[400];
    const char *ops[CP_SVG_NCOLORS];
    double xmin, xmax, ymin, ymax;
    size_t i, k, nops = 0, points = comm_extent(r, ci, &xmin, &xmax, &ymin,
                                                &ymax);

    fprintf(out, "<figure id=\"fig-comm-%zu\" class=\"comm-plot\">\n<h4>", number);
    cp_svg_escape(out, rp_comm_label(c));
    fputs(": time against message size</h4>\n", out);
    if (points == 0) {
        fputs("<p class=\"empty\">No calls of a measurable size and time on "
              "this communicator.</p>\n</figure>\n",
              out);
        return;
    }
    if (xmax < 16 * xmin) {
        double mid = sqrt(xmin * xmax);
        xmin = fmin(xmin, mid / 4);
        xmax = fmax(xmax, mid * 4);
    }
    snprintf(id, sizeof id, "comm%zu", number);
    p.id = id;
    p.title = "Mean time per call of each size bucket, log-log";
    p.width = PLOT_W * 0.75;
    p.height = PLOT_H * 0.7;
    p.left = 64;
    p.right = 20;
    p.top = 12;
    p.bottom = 40;
    p.x.log = 1;
    p.x.base = 2;
    p.x.unit = CP_SVG_SIZE;
    p.x.title = "message size per call (log scale)";
    cp_svg_log_domain(fmax(xmin / 1.3, 1), xmax * 1.3, 2, &p.x.lo, &p.x.hi);
    p.y.log = 1;
    p.y.base = 10;
    p.y.unit = CP_SVG_TIME;
    p.y.title = "time per call (log scale)";
    cp_svg_log_domain(ymin / 1.5, ymax * 1.5, 10, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);
    cp_svg_plot_open(out, &p);
    for (i = 0; i < r->nrows; i++) {
        const struct rp_row *w = &r->rows[i];
        double n, t, xp;
        const char *color;
        if (w->comm_index != (long)ci || !(w->calls > 0) ||
            !(w->bytes > 0) || !(w->time_s > 0))
            continue;
        for (k = 0; k < nops && strcmp(ops[k], w->op) != 0; k++)
            ;
        if (k == nops && nops < CP_SVG_NCOLORS)
            ops[nops++] = w->op;
        color = cp_svg_colors[k % CP_SVG_NCOLORS];
        n = w->bytes / w->calls;
        t = w->time_s / w->calls;
        xp = cp_svg_axis_map(&p.x, n);
        if (w->p50_s > 0 && w->p99_s > 0 && isfinite(w->p99_s))
            fprintf(
                out,
                "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
                "stroke=\"%s\" stroke-width=\"1.2\"/>",
                cp_svg_coord(xp, b1, sizeof b1),
                cp_svg_coord(cp_svg_axis_map(&p.y, w->p50_s), b2, sizeof b2),
                b1,
                cp_svg_coord(cp_svg_axis_map(&p.y, w->p99_s), b3, sizeof b3),
                color);
        snprintf(hover, sizeof hover, "%s %s: %s calls, mean %s, busbw %s (%s)",
                 w->op, cp_svg_format3(n, CP_SVG_SIZE, b1, sizeof b1),
                 cp_svg_format3(w->calls, CP_SVG_COUNT, b2, sizeof b2),
                 cp_svg_format3(t, CP_SVG_TIME, b3, sizeof b3),
                 cp_svg_format3(w->busbw_Bps, CP_SVG_BANDWIDTH, id, sizeof id),
                 w->regime && w->regime[0] ? w->regime : "no model");
        cp_svg_marker(out, op_shape(w->op), xp, cp_svg_axis_map(&p.y, t), 4,
                      color, !(w->regime && strcmp(w->regime, "latency") == 0),
                      hover);
        fputc('\n', out);
    }
    cp_svg_plot_close(out);
    fputs("<div class=\"legend\">", out);
    for (k = 0; k < nops; k++)
        cp_svg_key_marker(out, op_shape(ops[k]), cp_svg_colors[k], 1, ops[k]);
    fputs("</div>\n<figcaption>One mark per size bucket (hollow: "
          "latency-bound by the model; bar: p50-p99 of the calls).",
          out);
    fputs("</figcaption>\n</figure>\n", out);
}

void rp_plot_skew(FILE *out, const struct rp_report *r, size_t ci,
                  size_t number)
{
    static const char *const names[] = {"median", "90th percentile",
                                        "99th percentile", "largest"};
    const struct rp_comm *c = &r->comms[ci];
    double v[4], lo = INFINITY, hi = 0, x0, x1, y = 22, plo, phi;
    char b1[64], b2[64], b3[64];
    size_t i, known = 0;

    for (i = 0; i < 4; i++) {
        v[i] = c->skew_s[i];
        if (v[i] > 0) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
            known++;
        }
    }
    if (!known)
        return;
    cp_svg_log_domain(lo / 2, hi * 2, 10, &plo, &phi);
    x0 = 60;
    x1 = PLOT_W * 0.75 - 20;
    fprintf(out, "<figure id=\"fig-skew-%zu\" class=\"comm-plot\">\n<h4>", number);
    cp_svg_escape(out, rp_comm_label(c));
    fputs(": arrival skew of its collectives</h4>\n", out);
    fprintf(out,
            "<svg width=\"%s\" "
            "height=\"52\" role=\"img\"><title>arrival skew, log scale from "
            "%s to %s</title>\n",
            cp_svg_coord(PLOT_W * 0.75, b1, sizeof b1),
            cp_svg_format3(plo, CP_SVG_TIME, b2, sizeof b2),
            cp_svg_format3(phi, CP_SVG_TIME, b3, sizeof b3));
    {
        char cx0[32], cx1[32], cy[32], tlo[64], thi[64];
        cp_svg_coord(x0, cx0, sizeof cx0);
        cp_svg_coord(x1, cx1, sizeof cx1);
        cp_svg_coord(y, cy, sizeof cy);
        cp_svg_format3(plo, CP_SVG_TIME, tlo, sizeof tlo);
        cp_svg_format3(phi, CP_SVG_TIME, thi, sizeof thi);
        fprintf(out,
                "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
                "stroke=\"#999\"/><text x=\"%s\" y=\"46\" "
                "font-size=\"11\">%s</text><text x=\"%s\" y=\"46\" "
                "font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                cx0, cy, cx1, cy, cx0, tlo, cx1, thi);
    }
    /* one mark per quantile on the log axis */
    for (i = 0; i < 4; i++) {
        double x;
        char hover[160];
        if (!(v[i] > 0))
            continue;
        x = x0 + (x1 - x0) * log(v[i] / plo) / log(phi / plo);
        snprintf(hover, sizeof hover, "%s skew: %s", names[i],
                 cp_svg_format3(v[i], CP_SVG_TIME, b1, sizeof b1));
        cp_svg_marker(out, CP_SVG_CIRCLE, x, y, 5,
                      cp_svg_colors[i % CP_SVG_NCOLORS], 1, hover);
        fprintf(out,
                "<text x=\"%s\" y=\"%s\" font-size=\"10\" "
                "text-anchor=\"middle\">%s</text>\n",
                cp_svg_coord(x, b1, sizeof b1),
                cp_svg_coord(y - 9 - 8 * (double)(i % 2), b2, sizeof b2),
                i == 0   ? "p50"
                : i == 1 ? "p90"
                : i == 2 ? "p99"
                         : "max");
    }
    fputs("</svg>\n<figcaption>Its collectives' arrival skew (first to last "
          "arrival, outside groups): median, 90th and 99th percentile and "
          "the largest, on a log scale.</figcaption>\n</figure>\n",
          out);
}

/* ---- a long run: busbw per communicator over the whole run ------------- */

/* The long run's detail windows, shaded: where detail exists. */
static void lr_shade_windows(FILE *out, const struct cp_svg_plot *p,
                             const struct rp_long_run *lr)
{
    char b1[64], b2[64], b3[64], b4[64];
    size_t i;

    for (i = 0; i < lr->nwindows; i++) {
        double x0 = cp_svg_axis_map(&p->x, lr->win_start[i]),
               x1 = cp_svg_axis_map(&p->x, lr->win_end[i]);
        fprintf(out,
                "<rect class=\"detail\" x=\"%s\" y=\"%s\" width=\"%s\" "
                "height=\"%s\" fill=\"%s\" fill-opacity=\"0.25\" "
                "clip-path=\"url(#long-run-clip)\"/>\n",
                cp_svg_coord(x0, b1, sizeof b1),
                cp_svg_coord(p->top, b2, sizeof b2),
                cp_svg_coord(fmax(x1 - x0, 1), b3, sizeof b3),
                cp_svg_coord(p->height - p->top - p->bottom, b4, sizeof b4),
                NONE_COLOR);
    }
}

/* Each series of the long run, a path of its busbw per point. */
static void lr_series_paths(FILE *out, const struct cp_svg_plot *p,
                            const struct rp_long_run *lr)
{
    char b1[64], b2[64];
    size_t k, i;

    for (k = 0; k < lr->nseries; k++) {
        const struct rp_lr_series *s = &lr->series[k];
        int pen = 0;
        fprintf(out,
                "<path class=\"series\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"%s\" "
                "clip-path=\"url(#long-run-clip)\" d=\"",
                cp_svg_colors[k % CP_SVG_NCOLORS],
                cp_svg_dashes[k % CP_SVG_NDASHES]);
        for (i = 0; i < s->n; i++) {
            if (!isfinite(s->busbw_Bps[i]) || !isfinite(s->t[i])) {
                pen = 0;
                continue;
            }
            fprintf(out, "%s%s %s", pen ? " L" : (i ? " M" : "M"),
                    cp_svg_coord(cp_svg_axis_map(&p->x, s->t[i]), b1,
                                 sizeof b1),
                    cp_svg_coord(cp_svg_axis_map(&p->y, s->busbw_Bps[i]), b2,
                                 sizeof b2));
            pen = 1;
        }
        fputs("\"><title>", out);
        cp_svg_escape(out, s->name[0] ? s->name : s->comm);
        fputs("</title></path>\n", out);
    }
}

/* The legend and the caption of the long run's plot. */
static void lr_legend_caption(FILE *out, const struct rp_long_run *lr)
{
    char b1[64];
    size_t k;

    fputs("<div class=\"legend\">", out);
    for (k = 0; k < lr->nseries; k++) {
        const struct rp_lr_series *s = &lr->series[k];
        char label[96];
        snprintf(label, sizeof label, "%s%s%s", s->name[0] ? s->name : "",
                 s->name[0] ? " " : "", s->comm);
        cp_svg_key_line(out, cp_svg_colors[k % CP_SVG_NCOLORS],
                        cp_svg_dashes[k % CP_SVG_NDASHES], 1.5, label);
    }
    if (lr->nwindows)
        cp_svg_key_box(out, NONE_COLOR, 0.25, "detail windows");
    fputs("</div>\n", out);
    fprintf(out,
            "<figcaption>Each communicator's busbw in each interval of %s, "
            "from the aggregates of its ranks joined (%zu intervals",
            cp_svg_format3(lr->interval_s, CP_SVG_TIME, b1, sizeof b1),
            lr->nintervals);
    if (lr->nintervals > RP_LR_POINTS)
        fprintf(out, ", averaged %zu to a point",
                (lr->nintervals + RP_LR_POINTS - 1) / RP_LR_POINTS);
    if (lr->ncomms > lr->nseries)
        fprintf(out, "; the %zu communicators of most NCCL time of %zu",
                lr->nseries, lr->ncomms);
    fputs("). A drop that lasts is a slowdown over days (the findings name "
          "it and since when); the shaded spans are the detail windows, "
          "where every call was kept.</figcaption>\n</figure>\n",
          out);
}

void rp_plot_long_run(FILE *out, const struct rp_report *r)
{
    const struct rp_long_run *lr = &r->long_run;
    struct cp_svg_plot p = {0};
    double ymax = 0;
    size_t k, i;

    if (!lr->present)
        return;
    for (k = 0; k < lr->nseries; k++)
        for (i = 0; i < lr->series[k].n; i++)
            if (isfinite(lr->series[k].busbw_Bps[i]))
                ymax = fmax(ymax, lr->series[k].busbw_Bps[i]);
    fputs("<figure id=\"fig-long-run\">\n<h3>busbw per communicator over the "
          "long run</h3>\n",
          out);
    if (!(ymax > 0) || !(lr->end_s > 0)) {
        fputs("<p class=\"empty\">No interval of the long run has a busbw: "
              "its aggregates hold no collective outside groups that the "
              "model does not call latency-bound.</p>\n</figure>\n",
              out);
        return;
    }
    plot_frame(&p, "long-run",
               "busbw per communicator per interval of the long run", 250);
    p.x.unit = CP_SVG_TIME;
    p.x.title = "time since the start of the run";
    cp_svg_lin_domain(0, lr->end_s, 6, 1, &p.x.lo, &p.x.hi);
    p.y.unit = CP_SVG_BANDWIDTH;
    p.y.title = "busbw (aggregates)";
    cp_svg_lin_domain(0, ymax, 5, 1, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);
    cp_svg_plot_open(out, &p);
    lr_shade_windows(out, &p, lr);
    lr_series_paths(out, &p, lr);
    cp_svg_plot_close(out);
    lr_legend_caption(out, lr);
}
