/* cp_html_bench.c - bench.html from a collprof.bench/1 document (see
 * cp_html_bench.h).
 *
 * The document is read into a checked view first (cp_html_bench_view.h:
 * every key the page uses, with its type), so that a bad document fails
 * with the key's name before anything is written; the page then only
 * reads the view, never the JSON.  Collective names are parsed into enum
 * cp_coll and only the model's own names go into ids and classes; every
 * other string from the document goes through cp_svg_escape.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cp_html.h"
#include "cp_html_bench.h"
#include "cp_html_bench_view.h"
#include "cp_model.h"
#include "cp_svg.h"

#define PLOT_W 600.0
#define PLOT_H 340.0
#define LATENCY_COLOR "#D55E00"
#define GROUP_COLORS 7     /* the palette without its yellow */
#define GROUPS_DRAWN 7     /* groups of one collective in its plots */
#define SKIPPED_LISTED 20  /* skipped import lines listed */

/* ---- helpers ------------------------------------------------------------------ */

static const char *group_color(size_t k)
{
    return cp_svg_colors[k % GROUP_COLORS];
}

static int in_group(const struct bp_point *p, const struct bp_group *g)
{
    return p->coll == g->coll && p->ranks == g->ranks &&
           strcmp(p->link, g->link) == 0 &&
           (!g->have_nodes || !(g->nodes > 0) || p->nodes == g->nodes);
}

/* "8 ranks, intra-node" / "16 ranks on 2 nodes, inter-node" */
static void group_label(const struct bp_group *g, char *buf, size_t size)
{
    char r[32];
    int n;

    if (g->ranks >= 1)
        n = snprintf(buf, size, "%s rank%s",
                     cp_svg_format_count(g->ranks, r, sizeof r),
                     g->ranks == 1 ? "" : "s");
    else
        n = snprintf(buf, size, "ranks unknown");
    if (g->have_nodes && g->nodes > 0 && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " on %s node%s",
                      cp_svg_format_count(g->nodes, r, sizeof r),
                      g->nodes == 1 ? "" : "s");
    if (n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ", %s link", g->link);
}

static double model_time(const struct bp_group *g, double n)
{
    struct cp_model_params m = {.alpha = g->alpha_s,
                                .beta = 1 / g->bandwidth_Bps};

    return cp_model_time(g->coll, g->algo, (unsigned)g->ranks, n, &m);
}

/* busbw of the model at n: factor x n / T(n). */
static double model_busbw(const struct bp_group *g, double n)
{
    double t = model_time(g, n);

    return t > 0 ? g->factor * n / t : NAN;
}

enum curve { CURVE_TIME, CURVE_BUSBW };

static double model_time_at(double n, const void *ctx)
{
    return model_time(ctx, n);
}

static double model_busbw_at(double n, const void *ctx)
{
    return model_busbw(ctx, n);
}

/* The fitted model of g over the x axis, clipped to the plot area. */
static void model_curve(FILE *out, const struct cp_svg_plot *p,
                        const struct bp_group *g, enum curve kind,
                        const char *color)
{
    char attrs[96];

    snprintf(attrs, sizeof attrs,
             "class=\"model\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
             color);
    cp_svg_curve(out, p, 96,
                 kind == CURVE_TIME ? model_time_at : model_busbw_at, g,
                 attrs);
}

/* A vertical line at the regime boundary of g (data-bytes: its size),
 * labelled at the top (label 1) or at the bottom (2) of the plot, or not
 * (0). */
static void boundary_line(FILE *out, const struct cp_svg_plot *p,
                          const struct bp_group *g, const char *color,
                          int label)
{
    char b1[64], b2[32], b3[32], b4[32], hover[400];
    double xp;

    if (!(g->boundary_bytes > p->x.lo && g->boundary_bytes < p->x.hi))
        return;
    xp = cp_svg_axis_map(&p->x, g->boundary_bytes);
    snprintf(hover, sizeof hover,
             "regime boundary %s (%s): below it the latency term dominates, "
             "above it the bandwidth term",
             cp_svg_format3(g->boundary_bytes, CP_SVG_SIZE, b1, sizeof b1),
             g->boundary_from ? g->boundary_from : "from the fit");
    fprintf(out, "<g class=\"boundary\" data-bytes=\"%.12g\"><title>",
            g->boundary_bytes);
    cp_svg_escape(out, hover);
    fprintf(out,
            "</title><line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
            "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>",
            cp_svg_coord(xp, b2, sizeof b2),
            cp_svg_coord(p->y.px_hi, b3, sizeof b3), b2,
            cp_svg_coord(p->y.px_lo, b4, sizeof b4), color);
    if (label)
        fprintf(
            out,
            "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" "
            "font-weight=\"bold\">n&#189; = %s</text>",
            cp_svg_coord(xp + (xp > p->x.px_hi - 90 ? -4 : 4), b2, sizeof b2),
            cp_svg_coord(label == 1 ? p->y.px_hi + 12 : p->y.px_lo - 6, b3,
                         sizeof b3),
            xp > p->x.px_hi - 90 ? "end" : "start", b1);
    fputs("</g>\n", out);
}

/* A horizontal line at v from x0 to x1 (pixels), with a label at its right
 * end (label NULL: none). */
static void hline(FILE *out, const struct cp_svg_plot *p, const char *cls,
                  double v, double x0, double x1, const char *color,
                  const char *dash, const char *hover, const char *label)
{
    char b1[32], b2[32], b3[32];
    double y;

    if (!(v >= p->y.lo && v <= p->y.hi) || !(x1 > x0))
        return;
    y = cp_svg_axis_map(&p->y, v);
    fprintf(out, "<g class=\"%s\"><title>", cls);
    cp_svg_escape(out, hover);
    fprintf(out,
            "</title><line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
            "stroke=\"%s\" stroke-width=\"1.5\"%s%s%s/>",
            cp_svg_coord(x0, b1, sizeof b1), cp_svg_coord(y, b2, sizeof b2),
            cp_svg_coord(x1, b3, sizeof b3), b2, color,
            dash[0] ? " stroke-dasharray=\"" : "", dash, dash[0] ? "\"" : "");
    if (label) {
        /* link lines are labelled at the left, plateaus at the right, so
         * that close values do not write over each other */
        int left = strcmp(cls, "link") == 0;
        fprintf(out, "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\">",
                cp_svg_coord(left ? x0 + 4 : x1 - 4, b1, sizeof b1),
                cp_svg_coord(y - 4, b2, sizeof b2), left ? "start" : "end");
        cp_svg_escape(out, label);
        fputs("</text>", out);
    }
    fputs("</g>\n", out);
}

/* The points of g: in-place (hollow squares), then out-of-place (filled
 * circles) over them, in one <g> each. */
static void group_points(FILE *out, const struct cp_svg_plot *p,
                         const struct bp_page *pg, const struct bp_group *g,
                         enum curve kind, const char *color)
{
    int in_place;
    size_t i;

    for (in_place = 1; in_place >= 0; in_place--) {
        fprintf(out, "<g class=\"pts %s\">", in_place ? "inplace" : "oop");
        for (i = 0; i < pg->npoints; i++) {
            const struct bp_point *q = &pg->points[i];
            double v = kind == CURVE_TIME ? q->time_s : q->busbw_Bps;
            char hover[300], c1[64], c2[64], c3[64];
            if (q->in_place != in_place || !in_group(q, g) ||
                !(q->size > 0) || !(v > 0) || !isfinite(v))
                continue;
            snprintf(
                hover, sizeof hover, "%s %s, %s: %s per call, busbw %s%s",
                cp_model_coll_name(q->coll),
                cp_svg_format3(q->size, CP_SVG_SIZE, c1, sizeof c1),
                in_place ? "in place" : "out of place",
                cp_svg_format3(q->time_s, CP_SVG_TIME, c2, sizeof c2),
                cp_svg_format3(q->busbw_Bps, CP_SVG_BANDWIDTH, c3, sizeof c3),
                q->wrong > 0 ? " (WRONG results: not fitted)" : "");
            cp_svg_marker(out, in_place ? CP_SVG_SQUARE : CP_SVG_CIRCLE,
                          cp_svg_axis_map(&p->x, q->size),
                          cp_svg_axis_map(&p->y, v), in_place ? 3.2 : 3.6,
                          q->wrong > 0 ? LATENCY_COLOR : color, !in_place,
                          hover);
        }
        fputs("</g>\n", out);
    }
}

/* ---- the plots of one collective ---------------------------------------------- */

struct span {
    double xmin, xmax, ymin, ymax;
    size_t points, zero;
};

static void span_init(struct span *s)
{
    s->xmin = s->ymin = INFINITY;
    s->xmax = s->ymax = 0;
    s->points = s->zero = 0;
}

static void span_y(struct span *s, double v)
{
    if (v > 0 && isfinite(v)) {
        s->ymin = fmin(s->ymin, v);
        s->ymax = fmax(s->ymax, v);
    }
}

/* The measured extent of groups g[0..n) in one kind of plot. */
static void span_points(const struct bp_page *pg, const struct bp_group *g,
                        size_t n, enum curve kind, struct span *s)
{
    size_t i, k;

    span_init(s);
    for (k = 0; k < n; k++)
        for (i = 0; i < pg->npoints; i++) {
            const struct bp_point *q = &pg->points[i];
            double v = kind == CURVE_TIME ? q->time_s : q->busbw_Bps;
            if (!in_group(q, &g[k]))
                continue;
            if (!(q->size > 0)) {
                s->zero++;
                continue;
            }
            if (!(v > 0) || !isfinite(v))
                continue;
            s->xmin = fmin(s->xmin, q->size);
            s->xmax = fmax(s->xmax, q->size);
            span_y(s, v);
            s->points++;
        }
}

/* The x axis: the measured sizes, the boundaries near them, eight octaves
 * at least. */
static void x_axis(struct cp_svg_plot *p, const struct span *s,
                   const struct bp_group *g, size_t n)
{
    double xmin = s->xmin, xmax = s->xmax;
    size_t k;

    for (k = 0; k < n; k++) {
        double b = g[k].boundary_bytes;
        if (b > 0 && isfinite(b) && b >= s->xmin / 64 && b <= s->xmax * 64) {
            xmin = fmin(xmin, b / 1.5);
            xmax = fmax(xmax, b * 1.5);
        }
    }
    if (xmax < 256 * xmin) {
        double mid = sqrt(xmin * xmax);
        xmin = fmin(xmin, mid / 16);
        xmax = fmax(xmax, mid * 16);
    }
    xmin = fmax(xmin, 1);
    p->x.log = 1;
    p->x.base = 2;
    p->x.unit = CP_SVG_SIZE;
    p->x.title = "message size (bytes, log scale)";
    cp_svg_log_domain(xmin / 1.3, xmax * 1.3, 2, &p->x.lo, &p->x.hi);
}

static void plot_frame(struct cp_svg_plot *p, const char *id,
                       const char *title)
{
    p->id = id;
    p->title = title;
    p->width = PLOT_W;
    p->height = PLOT_H;
    p->left = 70;
    p->right = 28;
    p->top = 14;
    p->bottom = 44;
    p->y.log = 1;
    p->y.base = 10;
}

static void legend_groups(FILE *out, const struct bp_group *g, size_t n)
{
    size_t k;

    if (n < 2)
        return;
    for (k = 0; k < n; k++) {
        char label[160];
        group_label(&g[k], label, sizeof label);
        cp_svg_key_box(out, group_color(k), 1, label);
    }
}

/* The start of a collective's legend: its groups and the two marks of its
 * points. */
static void open_legend(FILE *out, const struct bp_group *g, size_t n)
{
    fputs("<div class=\"legend\">", out);
    legend_groups(out, g, n);
    cp_svg_key_marker(out, CP_SVG_CIRCLE, "#333", 1, "out of place");
    cp_svg_key_marker(out, CP_SVG_SQUARE, "#333", 0, "in place");
}

/* A figure with nothing to draw: why, and its end. */
static void empty_figure(FILE *out, const char *why)
{
    fprintf(out, "<p class=\"empty\">%s</p>\n</figure>\n", why);
}

/* What the two plots of a collective, by their curve, are called: the
 * plot's title is "NAME: " and its title. */
static const struct figure_names {
    const char *id, *heading, *empty, *title;
} figure_names[] = {
    [CURVE_TIME] = {"time", "time", "No point with a size and a time.",
                    "time per call against message size, log-log, with the "
                    "fitted alpha-beta model"},
    [CURVE_BUSBW] = {"busbw", "bus bandwidth",
                     "No point with a bus bandwidth.",
                     "bus bandwidth against message size, with the fitted "
                     "plateau and the link bandwidth"},
};

/* One plot of a collective: its frame, the span of its points and the
 * names the frame points to. */
struct figure {
    struct cp_svg_plot plot;
    struct span span;
    char id[48], title[200];
};

/* The figure of one plot of a collective (groups g[0..n)): its heading, the
 * span of its points, its frame and x axis.  0 when there is no point: the
 * figure is then closed, saying so. */
static int open_figure(FILE *out, const struct bp_page *pg,
                       const struct bp_group *g, size_t n, enum curve kind,
                       const char *name, struct figure *f)
{
    const struct figure_names *names = &figure_names[kind];

    snprintf(f->id, sizeof f->id, "%s-%s", names->id, name);
    fprintf(out, "<figure id=\"fig-%s-%s\" class=\"bench-%s\">\n<h3>%s: "
                 "%s against message size</h3>\n",
            names->id, name, names->id, name, names->heading);
    span_points(pg, g, n, kind, &f->span);
    if (f->span.points == 0) {
        empty_figure(out, names->empty);
        return 0;
    }
    snprintf(f->title, sizeof f->title, "%s: %s", name, names->title);
    plot_frame(&f->plot, f->id, f->title);
    x_axis(&f->plot, &f->span, g, n);
    return 1;
}

/* The y axis of a plot framed by plot_frame() and x_axis(), on a log scale
 * over the span s, then the plot opened. */
static void open_plot(FILE *out, struct cp_svg_plot *p, const struct span *s,
                      enum cp_svg_unit unit, const char *title)
{
    p->y.unit = unit;
    p->y.title = title;
    cp_svg_log_domain(s->ymin / 1.5, s->ymax * 1.5, 10, &p->y.lo, &p->y.hi);
    cp_svg_plot_layout(p);
    cp_svg_plot_open(out, p);
}

/* The caption of a time plot: the fit of the collective's own group (g[0]),
 * its regime boundary and the points drawn. */
static void time_caption(FILE *out, const struct bp_group *g,
                         const struct span *s)
{
    char b1[64], b2[64], b3[64];

    if (g[0].fit_ok) {
        struct cp_model_params ua = {.alpha = 1}, ub = {.beta = 1};
        struct cp_model_terms ta, tb;
        fprintf(out, "Fitted model: %s", cp_model_algo_name(g[0].algo));
        if (cp_model_terms(g[0].coll, g[0].algo, (unsigned)g[0].ranks, &ua,
                           &ta, NULL) == 0 &&
            cp_model_terms(g[0].coll, g[0].algo, (unsigned)g[0].ranks, &ub,
                           &tb, NULL) == 0)
            fprintf(out, ", T(n) = %.3g&alpha; + %.3g n&beta;", ta.latency_s,
                    tb.sec_per_byte);
        fprintf(
            out, " with &alpha; = %s, 1/&beta; = %s; latency floor %s%s; ",
            cp_svg_format3(g[0].alpha_s, CP_SVG_TIME, b1, sizeof b1),
            cp_svg_format3(g[0].bandwidth_Bps, CP_SVG_BANDWIDTH, b2, sizeof b2),
            g[0].floor_flat ? "" : "&le; ",
            cp_svg_format3(g[0].floor_s, CP_SVG_TIME, b3, sizeof b3));
    } else {
        fputs("No alpha-beta fit", out);
        if (g[0].fit_why) {
            fputs(" (", out);
            cp_svg_escape(out, g[0].fit_why);
            fputs(")", out);
        }
        fputs(": no model curve; ", out);
    }
    fprintf(out, "regime boundary %s",
            cp_svg_format3(g[0].boundary_bytes, CP_SVG_SIZE, b1, sizeof b1));
    if (g[0].boundary_from) {
        fputs(" (", out);
        cp_svg_escape(out, g[0].boundary_from);
        fputs(")", out);
    }
    fprintf(out, ". %zu point%s", s->points, s->points == 1 ? "" : "s");
    if (s->zero)
        fprintf(out, "; %zu of size 0 not on the log axis", s->zero);
}

static void time_plot(FILE *out, const struct bp_page *pg,
                      const struct bp_group *g, size_t n, const char *name)
{
    struct figure f = {0};
    struct cp_svg_plot *p = &f.plot;
    struct span *s = &f.span;
    char b1[64], b2[64], b3[64], b4[64], b5[64];
    size_t k, i;
    int any_model = 0;

    if (!open_figure(out, pg, g, n, CURVE_TIME, name, &f))
        return;
    /* the model over the axis bounds y too, within reason */
    for (k = 0; k < n; k++) {
        if (!g[k].fit_ok)
            continue;
        any_model = 1;
        for (i = 0; i <= 32; i++) {
            double x = p->x.lo * pow(p->x.hi / p->x.lo, i / 32.0);
            double t = model_time(&g[k], x);
            if (t >= s->ymin / 100 && t <= s->ymax * 100)
                span_y(s, t);
        }
    }
    open_plot(out, p, s, CP_SVG_TIME, "time per call (s, log scale)");

    /* the latency regime of the fit's own group: sizes below its boundary */
    if (g[0].boundary_bytes > p->x.lo) {
        double xr = cp_svg_axis_map(&p->x, fmin(g[0].boundary_bytes, p->x.hi));
        fprintf(out,
                "<rect class=\"regime\" x=\"%s\" y=\"%s\" width=\"%s\" "
                "height=\"%s\" fill=\"" LATENCY_COLOR "\" "
                "fill-opacity=\".07\"><title>latency-bound sizes: below the "
                "regime boundary %s</title></rect>\n",
                cp_svg_coord(p->x.px_lo, b1, sizeof b1),
                cp_svg_coord(p->y.px_hi, b2, sizeof b2),
                cp_svg_coord(xr - p->x.px_lo, b3, sizeof b3),
                cp_svg_coord(p->y.px_lo - p->y.px_hi, b4, sizeof b4),
                cp_svg_format3(g[0].boundary_bytes, CP_SVG_SIZE, b5,
                               sizeof b5));
    }
    for (k = 0; k < n; k++) {
        const struct bp_group *q = &g[k];
        char hover[300];
        double xf = isfinite(q->floor_max_bytes) && q->floor_max_bytes > 0
                        ? fmin(p->x.px_hi,
                               cp_svg_axis_map(&p->x, 4 * q->floor_max_bytes))
                        : p->x.px_hi;
        snprintf(hover, sizeof hover,
                 "latency floor %s%s: the median time of the smallest sizes",
                 q->floor_flat ? "" : "at most ",
                 cp_svg_format3(q->floor_s, CP_SVG_TIME, b1, sizeof b1));
        hline(out, p, "floor", q->floor_s, p->x.px_lo, xf, group_color(k),
              "2 3", hover, NULL);
        if (q->fit_ok)
            model_curve(out, p, q, CURVE_TIME, group_color(k));
        boundary_line(out, p, q, group_color(k), k == 0);
        group_points(out, p, pg, q, CURVE_TIME, group_color(k));
    }
    cp_svg_plot_close(out);

    open_legend(out, g, n);
    if (any_model)
        cp_svg_key_line(out, "#333", "", 2, "fitted model");
    cp_svg_key_line(out, "#333", "2 3", 1.5, "latency floor");
    cp_svg_key_line(out, "#333", "5 4", 1.5, "regime boundary n\xc2\xbd");
    if (g[0].boundary_bytes > p->x.lo)
        cp_svg_key_box(out, LATENCY_COLOR, .15, "latency-bound");
    fputs("</div>\n<figcaption>", out);
    time_caption(out, g, s);
    fputs(".</figcaption>\n</figure>\n", out);
}

static const struct bp_class *class_of(const struct bp_page *pg,
                                       const char *link)
{
    int k;

    for (k = 0; k < 2; k++)
        if (strcmp(pg->classes[k].name, link) == 0)
            return &pg->classes[k];
    return NULL;
}

static double class_bandwidth(const struct bp_class *cl)
{
    return cl && cl->used.present && cl->used.ok &&
                   cl->used.bandwidth_Bps > 0
               ? cl->used.bandwidth_Bps
               : NAN;
}

/* "intra link 18 GB/s (fitted to send/recv)" */
static void link_label(const struct bp_class *cl, char *hover, size_t hsize,
                       char *label, size_t lsize)
{
    char b[64];

    cp_svg_format3(cl->used.bandwidth_Bps, CP_SVG_BANDWIDTH, b, sizeof b);
    snprintf(label, lsize, "%s link %s", cl->name, b);
    snprintf(hover, hsize,
             "%s-node link bandwidth %s, fitted to %s (the site profile's "
             "value)",
             cl->name, b,
             cl->used.source && strcmp(cl->used.source, "sendrecv") == 0
                 ? "send/recv between two ranks"
                 : cl->used.from ? cl->used.from : "the collectives");
}

/* The dashes of the link line of class i among those drawn. */
static const char *link_dash(size_t i)
{
    return i == 0 ? "8 4" : "3 3";
}

/* The link bandwidth of class cl across the plot, labelled. */
static void link_line(FILE *out, const struct cp_svg_plot *p,
                      const struct bp_class *cl, const char *dash)
{
    char hover[300], label[96];

    link_label(cl, hover, sizeof hover, label, sizeof label);
    hline(out, p, "link", cl->used.bandwidth_Bps, p->x.px_lo, p->x.px_hi,
          "#000", dash, hover, label);
}

/* The horizontal lines of a busbw plot widen its span s: each group's
 * plateau and half of it, and the link bandwidth of its class where it is
 * within reach of the points.  Those classes, each once, into drawn[]
 * (room for 2); returns how many. */
static size_t busbw_lines(const struct bp_page *pg, const struct bp_group *g,
                          size_t n, struct span *s,
                          const struct bp_class **drawn)
{
    size_t k, i, ndrawn = 0;

    for (k = 0; k < n; k++) {
        const struct bp_class *cl = class_of(pg, g[k].link);
        double v = class_bandwidth(cl);
        span_y(s, g[k].busbw_Bps);
        if (g[k].busbw_Bps > 0)
            span_y(s, g[k].busbw_Bps / 2);
        if (!(v > 0))
            continue;
        for (i = 0; i < ndrawn; i++)
            if (drawn[i] == cl)
                break;
        if (i == ndrawn && v >= s->ymin / 100 && v <= s->ymax * 100) {
            drawn[ndrawn++] = cl;
            span_y(s, v);
        }
    }
    return ndrawn;
}

/* Group g, the k-th of its collective, in the busbw plot: its plateau
 * (labelled for the first), model, regime boundary and points. */
static void busbw_group(FILE *out, const struct cp_svg_plot *p,
                        const struct bp_page *pg, const struct bp_group *g,
                        size_t k)
{
    char hover[300], label[96], b1[64], b2[64];
    double x0 = g->plateau_from_bytes > p->x.lo
                    ? cp_svg_axis_map(&p->x, g->plateau_from_bytes)
                    : p->x.px_lo;

    snprintf(hover, sizeof hover,
             "busbw plateau %s (the median busbw from %s up)",
             cp_svg_format3(g->busbw_Bps, CP_SVG_BANDWIDTH, b1, sizeof b1),
             cp_svg_format3(g->plateau_from_bytes, CP_SVG_SIZE, b2, sizeof b2));
    snprintf(label, sizeof label, "plateau %s", b1);
    hline(out, p, "plateau", g->busbw_Bps, fmin(x0, p->x.px_hi - 120),
          p->x.px_hi, group_color(k), "", hover, k == 0 ? label : NULL);
    if (g->fit_ok)
        model_curve(out, p, g, CURVE_BUSBW, group_color(k));
    boundary_line(out, p, g, group_color(k), k == 0 ? 2 : 0);
    group_points(out, p, pg, g, CURVE_BUSBW, group_color(k));
}

static void busbw_legend(FILE *out, const struct bp_group *g, size_t n,
                         int any_model, const struct bp_class *const *drawn,
                         size_t ndrawn)
{
    size_t i;

    open_legend(out, g, n);
    if (any_model)
        cp_svg_key_line(out, "#333", "", 2, "busbw of the fitted model");
    cp_svg_key_line(out, group_color(0), "", 1.5, "busbw plateau");
    for (i = 0; i < ndrawn; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s-node link bandwidth",
                 drawn[i]->name);
        cp_svg_key_line(out, "#000", link_dash(i), 1.5, label);
    }
    cp_svg_key_line(out, "#333", "5 4", 1.5, "regime boundary n\xc2\xbd");
    fputs("</div>\n", out);
}

/* The caption of a busbw plot: how busbw is counted and the plateau of the
 * collective's own group (g[0]). */
static void busbw_caption(FILE *out, const struct bp_group *g,
                          const char *name, size_t ndrawn)
{
    char b1[64], b2[64], b3[64];

    if (g[0].ranks >= 1)
        fprintf(out,
                "<figcaption>busbw = size / time &times; %s "
                "(nccl-tests' factor for %s on %s ranks). Plateau %s",
                cp_svg_format3(g[0].factor, CP_SVG_COUNT, b1, sizeof b1), name,
                cp_svg_format_count(g[0].ranks, b2, sizeof b2),
                cp_svg_format3(g[0].busbw_Bps, CP_SVG_BANDWIDTH, b3,
                               sizeof b3));
    else
        fprintf(out,
                "<figcaption>busbw as the input gave it (the rank "
                "count is unknown). Plateau %s",
                cp_svg_format3(g[0].busbw_Bps, CP_SVG_BANDWIDTH, b3,
                               sizeof b3));
    fprintf(out,
            ", %s at the largest size; the boundary is where busbw "
            "reaches half the plateau.",
            cp_svg_format3(g[0].busbw_largest_Bps, CP_SVG_BANDWIDTH, b1,
                           sizeof b1));
    if (ndrawn == 0)
        fputs(" No link line: the link class was not calibrated.", out);
    fputs("</figcaption>\n</figure>\n", out);
}

static void busbw_plot(FILE *out, const struct bp_page *pg,
                       const struct bp_group *g, size_t n, const char *name)
{
    struct figure f = {0};
    const struct bp_class *drawn[2] = {NULL, NULL};
    size_t k, i, ndrawn;
    int any_model = 0;

    if (!open_figure(out, pg, g, n, CURVE_BUSBW, name, &f))
        return;
    /* the x axis does not depend on the y span these lines widen */
    ndrawn = busbw_lines(pg, g, n, &f.span, drawn);
    open_plot(out, &f.plot, &f.span, CP_SVG_BANDWIDTH,
              "busbw (B/s, log scale)");
    for (i = 0; i < ndrawn; i++)
        link_line(out, &f.plot, drawn[i], link_dash(i));
    for (k = 0; k < n; k++) {
        busbw_group(out, &f.plot, pg, &g[k], k);
        if (g[k].fit_ok)
            any_model = 1;
    }
    cp_svg_plot_close(out);
    busbw_legend(out, g, n, any_model, drawn, ndrawn);
    busbw_caption(out, g, name, ndrawn);
}

/* ---- busbw of every collective together ---------------------------------------- */

/* The fit's own group of each collective (its first), in the table's
 * order, into tops[] (room for CP_COLL_COUNT); returns how many. */
static size_t fit_groups(const struct bp_page *pg,
                         const struct bp_group **tops)
{
    size_t ntops = 0, k;

    for (int c = 0; c < CP_COLL_COUNT; c++)
        for (k = 0; k < pg->ngroups; k++)
            if (pg->groups[k].coll == (enum cp_coll)c) {
                tops[ntops++] = &pg->groups[k];
                break;
            }
    return ntops;
}

/* The measured busbw extent of the groups tops[0..ntops) together. */
static void span_fit_groups(const struct bp_page *pg,
                            const struct bp_group *const *tops, size_t ntops,
                            struct span *s)
{
    struct span one;

    span_init(s);
    for (size_t k = 0; k < ntops; k++) {
        span_points(pg, tops[k], 1, CURVE_BUSBW, &one);
        if (!one.points)
            continue;
        s->xmin = fmin(s->xmin, one.xmin);
        s->xmax = fmax(s->xmax, one.xmax);
        span_y(s, one.ymin);
        span_y(s, one.ymax);
        s->points += one.points;
    }
}

/* Whether the overview draws point q of group g: out of place, with a size
 * and a busbw. */
static int overview_point(const struct bp_point *q, const struct bp_group *g)
{
    return !q->in_place && in_group(q, g) && q->size > 0 && q->busbw_Bps > 0;
}

/* Group g, the k-th in the overview: a line through its points, then their
 * marks, in one <g>. */
static void overview_curve(FILE *out, const struct cp_svg_plot *p,
                           const struct bp_page *pg, const struct bp_group *g,
                           size_t k)
{
    const char *color = group_color(k);
    char b1[64], b2[64];
    size_t i;
    int pen = 0;

    fprintf(out,
            "<g class=\"op\" data-op=\"%s\"><path fill=\"none\" "
            "stroke=\"%s\" stroke-width=\"1.4\" stroke-dasharray=\"%s\" "
            "d=\"",
            cp_model_coll_name(g->coll), color,
            cp_svg_dashes[k % CP_SVG_NDASHES]);
    for (i = 0; i < pg->npoints; i++) {
        const struct bp_point *q = &pg->points[i];
        if (!overview_point(q, g))
            continue;
        fprintf(out, "%s%s %s", pen ? "L" : "M",
                cp_svg_coord(cp_svg_axis_map(&p->x, q->size), b1, sizeof b1),
                cp_svg_coord(cp_svg_axis_map(&p->y, q->busbw_Bps), b2,
                             sizeof b2));
        pen = 1;
    }
    fputs("\"/>", out);
    for (i = 0; i < pg->npoints; i++) {
        const struct bp_point *q = &pg->points[i];
        char hover[200];
        if (!overview_point(q, g))
            continue;
        snprintf(
            hover, sizeof hover, "%s %s: busbw %s",
            cp_model_coll_name(q->coll),
            cp_svg_format3(q->size, CP_SVG_SIZE, b1, sizeof b1),
            cp_svg_format3(q->busbw_Bps, CP_SVG_BANDWIDTH, b2, sizeof b2));
        cp_svg_marker(out, (enum cp_svg_shape)(k % CP_SVG_NSHAPES),
                      cp_svg_axis_map(&p->x, q->size),
                      cp_svg_axis_map(&p->y, q->busbw_Bps), 3.2, color, 1,
                      hover);
    }
    fputs("</g>\n", out);
}

static void overview_legend(FILE *out, const struct bp_group *const *tops,
                            size_t ntops)
{
    fputs("<div class=\"legend\">", out);
    for (size_t k = 0; k < ntops; k++) {
        char label[200], g[160];
        group_label(tops[k], g, sizeof g);
        snprintf(label, sizeof label, "%s (%s)",
                 cp_model_coll_name(tops[k]->coll), g);
        cp_svg_key_marker(out, (enum cp_svg_shape)(k % CP_SVG_NSHAPES),
                          group_color(k), 1, label);
    }
    fputs("</div>\n", out);
}

static void overview_plot(FILE *out, const struct bp_page *pg)
{
    struct cp_svg_plot p = {0};
    struct span s;
    const struct bp_group *tops[CP_COLL_COUNT];
    size_t ntops = fit_groups(pg, tops), k;

    span_fit_groups(pg, tops, ntops, &s);
    fputs("<figure id=\"fig-busbw-all\">\n<h3>Bus bandwidth of every "
          "collective</h3>\n",
          out);
    if (s.points == 0) {
        empty_figure(out, figure_names[CURVE_BUSBW].empty);
        return;
    }
    for (k = 0; k < 2; k++)
        span_y(&s, class_bandwidth(&pg->classes[k]));
    plot_frame(&p, "busbw-all",
               "Bus bandwidth against message size of every collective, "
               "out of place, with the link bandwidths");
    x_axis(&p, &s, NULL, 0);
    open_plot(out, &p, &s, CP_SVG_BANDWIDTH, "busbw (B/s, log scale)");
    for (k = 0; k < 2; k++)
        if (class_bandwidth(&pg->classes[k]) > 0)
            link_line(out, &p, &pg->classes[k], link_dash(k));
    for (k = 0; k < ntops; k++)
        overview_curve(out, &p, pg, tops[k], k);
    cp_svg_plot_close(out);
    overview_legend(out, tops, ntops);
    fputs("<figcaption>The ring collectives of one set of ranks "
          "should meet on one plateau, the ring's slowest link; gather, "
          "scatter and send/recv are not rings and may go above it.  Each "
          "collective with the rank count of its fit.</figcaption>\n"
          "</figure>\n",
          out);
}

/* ---- tables ------------------------------------------------------------------ */

static void td(FILE *out, double v, enum cp_svg_unit unit)
{
    fputs("<td class=\"n\">", out);
    cp_svg_value(out, v, unit);
    fputs("</td>", out);
}

static void fit_table(FILE *out, const struct bp_page *pg)
{
    size_t k;

    fputs("<h3>Per collective</h3>\n<div class=\"wide\"><table "
          "id=\"fit-table\">\n<tr><th>"
          "collective</th><th class=\"n\">ranks</th><th class=\"n\">nodes</th>"
          "<th>link</th><th class=\"n\">points</th><th class=\"n\">latency "
          "floor</th><th>model</th><th class=\"n\">&alpha;</th><th "
          "class=\"n\">bandwidth (&beta;&#8315;&#185;)</th><th "
          "class=\"n\">busbw plateau</th><th class=\"n\">plateau from</th><th "
          "class=\"n\">busbw at the largest size</th><th class=\"n\">regime "
          "boundary</th><th class=\"n\">fit residual</th></tr>\n",
          out);
    for (k = 0; k < pg->ngroups; k++) {
        const struct bp_group *g = &pg->groups[k];
        fprintf(out, "<tr data-op=\"%s\"><td>%s</td>",
                cp_model_coll_name(g->coll), cp_model_coll_name(g->coll));
        td(out, g->ranks, CP_SVG_COUNT);
        td(out, g->have_nodes && g->nodes > 0 ? g->nodes : NAN, CP_SVG_COUNT);
        fputs("<td>", out);
        cp_svg_escape(out, g->link);
        fputs("</td>", out);
        td(out, g->points, CP_SVG_COUNT);
        fprintf(out, "<td class=\"n\">%s", g->floor_flat ? "" : "&le; ");
        cp_svg_value(out, g->floor_s, CP_SVG_TIME);
        fprintf(out, "</td><td>%s</td>",
                g->have_algo ? cp_model_algo_name(g->algo) : "n/a");
        if (g->fit_ok) {
            td(out, g->alpha_s, CP_SVG_TIME);
            td(out, g->bandwidth_Bps, CP_SVG_BANDWIDTH);
        } else {
            fputs("<td class=\"n\" colspan=\"2\">", out);
            cp_svg_escape(out, g->fit_why ? g->fit_why : "no fit");
            fputs("</td>", out);
        }
        td(out, g->busbw_Bps, CP_SVG_BANDWIDTH);
        td(out, g->plateau_from_bytes, CP_SVG_SIZE);
        td(out, g->busbw_largest_Bps, CP_SVG_BANDWIDTH);
        fputs("<td class=\"n\">", out);
        cp_svg_value(out, g->boundary_bytes, CP_SVG_SIZE);
        if (g->boundary_from) {
            fputs(" <span class=\"d\">(", out);
            cp_svg_escape(out, g->boundary_from);
            fputs(")</span>", out);
        }
        fputs("</td>", out);
        td(out, g->residual, CP_SVG_PERCENT);
        fputs("</tr>\n", out);
    }
    fputs("</table></div>\n", out);
}

static void link_row(FILE *out, const char *cls, const char *what,
                     const struct bp_link *l)
{
    fputs("<tr><td>", out);
    cp_svg_escape(out, cls);
    fprintf(out, "</td><td>%s</td>", what);
    if (!l->ok) {
        fputs("<td colspan=\"4\">", out);
        cp_svg_escape(out, l->why ? l->why : "no fit");
        fputs("</td><td></td></tr>\n", out);
        return;
    }
    td(out, l->alpha_s, CP_SVG_TIME);
    td(out, l->bandwidth_Bps, CP_SVG_BANDWIDTH);
    fputs("<td class=\"n\">", out);
    cp_svg_value(out, l->points_used, CP_SVG_COUNT);
    fputs(" of ", out);
    cp_svg_value(out, l->points, CP_SVG_COUNT);
    fputs("</td>", out);
    td(out, l->residual, CP_SVG_PERCENT);
    fputs("<td>", out);
    cp_svg_escape(out, l->from);
    fputs("</td></tr>\n", out);
}

static void link_table(FILE *out, const struct bp_page *pg)
{
    int k, any = 0;

    for (k = 0; k < 2; k++)
        any |= pg->classes[k].used.present;
    if (!any)
        return;
    fputs("<h3>Per link class (the site profile)</h3>\n<table "
          "id=\"link-table\">\n<tr><th>link</th><th>fit</th><th "
          "class=\"n\">&alpha;</th><th class=\"n\">bandwidth "
          "(&beta;&#8315;&#185;)</th><th class=\"n\">points used</th><th "
          "class=\"n\">median residual</th><th>fitted to</th></tr>\n",
          out);
    for (k = 0; k < 2; k++) {
        const struct bp_class *cl = &pg->classes[k];
        char what[64];
        if (!cl->used.present ||
            (!cl->used.ok && !cl->collectives.points && !cl->pairs.points))
            continue;
        snprintf(what, sizeof what, "<b>profile</b> (%s)",
                 cl->used.ok && cl->used.source
                     ? (strcmp(cl->used.source, "sendrecv") == 0
                            ? "send/recv"
                            : "collectives")
                     : "none");
        link_row(out, cl->name, what, &cl->used);
        if (cl->collectives.present && cl->collectives.points)
            link_row(out, cl->name, "collectives", &cl->collectives);
        if (cl->pairs.present && cl->pairs.points)
            link_row(out, cl->name, "send/recv pairs", &cl->pairs);
    }
    fputs("</table>\n<p class=\"d\">The profile line of a class is what "
          "collprof analyze --profile expects of a communicator of that "
          "class (docs/bench.md).</p>\n",
          out);
}

static void skipped_table(FILE *out, const struct bp_page *pg)
{
    size_t i, n = pg->nskipped;

    if (n == 0)
        return;
    fprintf(out,
            "<section id=\"skipped\">\n<h2>Skipped lines (%zu)</h2>\n<table>\n"
            "<tr><th>file</th><th class=\"n\">line</th><th>why</th></tr>\n",
            n);
    for (i = 0; i < n && i < SKIPPED_LISTED; i++) {
        const struct bp_skip *k = &pg->skipped[i];
        fputs("<tr><td class=\"mono\">", out);
        cp_svg_escape(out, k->source);
        fputs("</td>", out);
        td(out, k->line, CP_SVG_COUNT);
        fputs("<td>", out);
        cp_svg_escape(out, k->why);
        fputs("</td></tr>\n", out);
    }
    if (n > SKIPPED_LISTED)
        fprintf(out, "<tr class=\"more\"><td colspan=\"3\">and %zu more"
                     "</td></tr>\n",
                n - SKIPPED_LISTED);
    fputs("</table>\n</section>\n", out);
}

/* ---- the page --------------------------------------------------------------- */

/* what the bench page adds to report.html's stylesheet (cp_html_css) */
static const char bench_css[] =
    ".d{color:var(--mut);font-size:12px}\n"
    ".warn{border-left:8px solid #D55E00;background:var(--soft);padding:8px 14px;margin:12px 0}\n"
    "td.n,th.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
    ".wide{overflow-x:auto}\n";

static int is_import(const struct bp_page *pg)
{
    return pg->mode && strcmp(pg->mode, "import") == 0;
}

/* The largest rank and node counts of the groups (an import has no run). */
static void extent(const struct bp_page *pg, double *ranks, double *nodes)
{
    size_t k;

    *ranks = pg->run_ranks;
    *nodes = pg->run_nodes;
    if (pg->have_run)
        return;
    *ranks = *nodes = NAN;
    for (k = 0; k < pg->ngroups; k++) {
        if (!(pg->groups[k].ranks <= *ranks))
            *ranks = pg->groups[k].ranks;
        if (pg->groups[k].have_nodes && pg->groups[k].nodes > 0 &&
            !(pg->groups[k].nodes <= *nodes))
            *nodes = pg->groups[k].nodes;
    }
}

static void write_head(FILE *out, const struct bp_page *pg)
{
    cp_html_head(out, pg->generator);
    fprintf(out, "<title>collprof bench: %s</title>\n<style>\n%s%s</style>\n"
                 "</head>\n<body>\n",
            is_import(pg) ? "imported nccl-tests results"
                          : "collective benchmark",
            cp_html_css, bench_css);
}

static void write_header(FILE *out, const struct bp_page *pg)
{
    double ranks, nodes;

    extent(pg, &ranks, &nodes);
    fprintf(out, "<header>\n<h1>collprof bench: %s</h1>\n<p class=\"sub\">",
            is_import(pg) ? "imported nccl-tests results"
                          : "what this cluster's collectives give");
    if (isfinite(ranks)) {
        cp_svg_value(out, ranks, CP_SVG_COUNT);
        fprintf(out, " rank%s", ranks == 1 ? "" : "s");
    }
    if (isfinite(nodes)) {
        fputs(" on ", out);
        cp_svg_value(out, nodes, CP_SVG_COUNT);
        fprintf(out, " node%s", nodes == 1 ? "" : "s");
    }
    if (pg->created) {
        fputs(" &middot; ", out);
        cp_svg_escape(out, pg->created);
    }
    fputs(" &middot; ", out);
    cp_svg_escape(out, pg->generator ? pg->generator : "collprof bench");
    fputs("</p>\n<nav><a href=\"#summary\">Summary</a><a "
          "href=\"#collectives\">Collectives</a><a href=\"#fit\">Fit</a>",
          out);
    if (pg->nskipped)
        fputs("<a href=\"#skipped\">Skipped lines</a>", out);
    fputs("</nav>\n</header>\n", out);
}

static void card(FILE *out, double v, enum cp_svg_unit unit,
                 const char *label)
{
    fputs("<div class=\"card\"><div class=\"v\">", out);
    cp_svg_value(out, v, unit);
    fprintf(out, "</div><div class=\"l\">%s</div></div>\n", label);
}

static void write_summary(FILE *out, const struct bp_page *pg)
{
    double ranks, nodes;
    size_t i, nops = 0, npoints = 0;
    int seen[CP_COLL_COUNT] = {0};

    for (i = 0; i < pg->ngroups; i++)
        if (!seen[pg->groups[i].coll]) {
            seen[pg->groups[i].coll] = 1;
            nops++;
        }
    for (i = 0; i < pg->npoints; i++)
        npoints += pg->points[i].size > 0;
    extent(pg, &ranks, &nodes);
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n",
          out);
    card(out, ranks, CP_SVG_COUNT, pg->have_run ? "ranks" : "ranks (largest run)");
    card(out, nodes, CP_SVG_COUNT, pg->have_run ? "nodes" : "nodes (largest run)");
    card(out, (double)nops, CP_SVG_COUNT, "collectives");
    card(out, (double)npoints, CP_SVG_COUNT,
         "points (sizes x out-of-place/in-place)");
    if (pg->have_run)
        card(out, pg->max_bytes, CP_SVG_SIZE, "largest size allowed");
    card(out, pg->wrong_total, CP_SVG_COUNT, "wrong result elements");
    if (is_import(pg))
        card(out, (double)pg->nskipped, CP_SVG_COUNT,
             "lines skipped");
    fputs("</div>\n<table id=\"source\">\n", out);
    if (pg->have_run) {
        int v = isfinite(pg->nccl_version) ? (int)pg->nccl_version : 0;
        fputs("<tr><th>measured with</th><td>NCCL ", out);
        if (v)
            fprintf(out, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
        fputs(" <span class=\"mono\">", out);
        cp_svg_escape(out, pg->nccl_library);
        fputs("</span>, ", out);
        cp_svg_escape(out, pg->memory ? pg->memory : "host");
        fputs(" buffers</td></tr>\n", out);
    }
    if (pg->nsources) {
        fputs("<tr><th>imported from</th><td class=\"mono\">", out);
        for (i = 0; i < pg->nsources; i++) {
            if (i)
                fputs("<br>", out);
            cp_svg_escape(out, pg->sources[i]);
        }
        fputs("</td></tr>\n", out);
    }
    if (pg->created) {
        fputs("<tr><th>date</th><td>", out);
        cp_svg_escape(out, pg->created);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    if (pg->wrong_total > 0) {
        fputs("<p class=\"warn\">", out);
        cp_svg_value(out, pg->wrong_total, CP_SVG_COUNT);
        fputs(" result elements were wrong (nccl-tests' #wrong) in ", out);
        cp_svg_value(out, pg->wrong_points, CP_SVG_COUNT);
        fputs(" points: a broken GPU, link or driver. Those points are drawn "
              "in vermillion and were left out of the fit.</p>\n",
              out);
    }
    fputs("</section>\n", out);
}

static void write_collectives(FILE *out, const struct bp_page *pg)
{
    size_t k = 0;

    fputs("<section id=\"collectives\">\n<h2>Collectives</h2>\n", out);
    if (pg->ngroups == 0)
        fputs("<p class=\"empty\">No fit: no usable point.</p>\n", out);
    while (k < pg->ngroups) {
        const char *name = cp_model_coll_name(pg->groups[k].coll);
        size_t n = 1, drawn;
        while (k + n < pg->ngroups &&
               pg->groups[k + n].coll == pg->groups[k].coll)
            n++;
        drawn = n < GROUPS_DRAWN ? n : GROUPS_DRAWN;
        fprintf(out, "<section id=\"op-%s\" class=\"op\">\n<div "
                     "class=\"plots\">\n",
                name);
        time_plot(out, pg, &pg->groups[k], drawn, name);
        busbw_plot(out, pg, &pg->groups[k], drawn, name);
        fputs("</div>\n", out);
        if (n > drawn)
            fprintf(out, "<p class=\"d\">%zu more groups of %s not drawn "
                         "(the table lists them).</p>\n",
                    n - drawn, name);
        fputs("</section>\n", out);
        k += n;
    }
    if (pg->ngroups) {
        fputs("<div class=\"plots\">\n", out);
        overview_plot(out, pg);
        fputs("</div>\n", out);
    }
    fputs("</section>\n", out);
}

static void write_page(FILE *out, const struct bp_page *pg)
{
    write_head(out, pg);
    write_header(out, pg);
    write_summary(out, pg);
    write_collectives(out, pg);
    fputs("<section id=\"fit\">\n<h2>Fit</h2>\n", out);
    fit_table(out, pg);
    link_table(out, pg);
    fputs("</section>\n", out);
    skipped_table(out, pg);
    fputs("<footer>Written by ", out);
    cp_svg_escape(out, pg->generator ? pg->generator : "collprof bench");
    fputs(" from its bench.json (", out);
    cp_svg_escape(out, pg->schema);
    fputs("; docs/bench.md). Latency floor: the median time of the three "
          "smallest sizes; plateau: the median busbw of the largest sizes "
          "within 5% of each other; regime boundary: where busbw reaches half "
          "the plateau (Hockney's n&#189;). Hover over points for details. "
          "Sizes use binary prefixes (KiB = 1024 B), bandwidths decimal ones "
          "(GB/s = 10<sup>9</sup> B/s), busbw follows nccl-tests.</footer>\n"
          "</body>\n</html>\n",
          out);
}

int cp_html_bench_write(json_t *doc, FILE *out, struct cp_error *err)
{
    struct bp_page pg;

    if (cp_html_bench_view(doc, &pg, err) < 0)
        return -1;
    write_page(out, &pg);
    cp_html_bench_view_free(&pg);
    if (fflush(out) != 0 || ferror(out)) {
        return cp_errorf(err, "writing the page failed");
    }
    return 0;
}
