/* cp_fleet_html_plots.c - the node-pair matrix and the links' plots over time
 * of fleet.html (see cp_fleet_html_plots.h). */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cp_fleet_html_plots.h"
#include "cp_svg.h"

#define NV FH_NVERDICTS
#define DASH "\xe2\x80\x93" /* an en dash between the two nodes of a link */

const char *fh_color(enum fh_verdict v)
{
    static const char *const colors[NV] = {
        [FH_NO_EVIDENCE] = "#BBBBBB",
        [FH_OK] = "#009E73",
        [FH_SUSPECT] = "#E69F00",
        [FH_BAD] = "#D55E00",
    };
    return (unsigned)v < NV ? colors[v] : "#BBBBBB";
}

const char *fh_verdict_word(enum fh_verdict v)
{
    return v == FH_NO_EVIDENCE ? "no evidence" : fh_verdict_name(v);
}

void fh_badge(FILE *out, enum fh_verdict v)
{
    fprintf(out,
            "<span class=\"vw\" style=\"background:%s;color:%s\">%s"
            "</span>",
            fh_color(v), v == FH_BAD || v == FH_OK ? "#fff" : "#1a1a1a",
            fh_verdict_word(v));
}

/* A run of digits at *p, leading zeros skipped: its start and length; *p
 * moves past it. */
static size_t digit_run(const unsigned char **p, const unsigned char **start)
{
    while (**p == '0' && isdigit((*p)[1]))
        (*p)++;
    *start = *p;
    while (isdigit(**p))
        (*p)++;
    return (size_t)(*p - *start);
}

int fh_name_cmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a;
    const unsigned char *q = (const unsigned char *)b;

    while (*p && *q) {
        if (isdigit(*p) && isdigit(*q)) {
            const unsigned char *ps, *qs;
            size_t lp = digit_run(&p, &ps), lq = digit_run(&q, &qs);
            int r;
            if (lp != lq)
                return lp < lq ? -1 : 1;
            r = memcmp(ps, qs, lp);
            if (r)
                return r < 0 ? -1 : 1;
            continue;
        }
        if (*p != *q)
            return *p < *q ? -1 : 1;
        p++;
        q++;
    }
    if (*p || *q)
        return *p ? 1 : -1;
    return strcmp(a, b); /* "n01" and "n1": by their bytes */
}

static int compare_names(const void *x, const void *y)
{
    return fh_name_cmp(*(const char *const *)x, *(const char *const *)y);
}

/* ---- the matrix ---------------------------------------------------------- */

struct matrix {
    const char **names;      /* every node named, sorted, once each */
    size_t total;            /* of them */
    size_t n;                /* in the matrix: the first ones */
    size_t block;            /* nodes per cell */
    size_t m;                /* cells per side */
    unsigned *links;         /* m*m*NV: links per verdict in each cell */
    unsigned *nodes;         /* m*NV: the diagonal's nodes per verdict */
    long *link_at, *node_at; /* block 1: the link of a cell, the node */
    size_t drawn_links;      /* links with both nodes in the matrix */
};

static void matrix_free(struct matrix *mx)
{
    free(mx->names);
    free(mx->links);
    free(mx->nodes);
    free(mx->link_at);
    free(mx->node_at);
    memset(mx, 0, sizeof *mx);
}

/* The nodes of the links and of the node list, sorted, once each. */
static int matrix_names(const struct fh_fleet *fl, struct matrix *mx)
{
    size_t i, k = 0, n = 2 * fl->nlinks + fl->nnodes;

    mx->names = malloc((n ? n : 1) * sizeof *mx->names);
    if (!mx->names)
        return -1;
    for (i = 0; i < fl->nlinks; i++) {
        mx->names[k++] = fl->links[i].nodes[0];
        mx->names[k++] = fl->links[i].nodes[1];
    }
    for (i = 0; i < fl->nnodes; i++)
        mx->names[k++] = fl->nodes[i].node;
    qsort(mx->names, n, sizeof *mx->names, compare_names);
    for (i = 0, k = 0; i < n; i++)
        if (k == 0 || strcmp(mx->names[k - 1], mx->names[i]) != 0)
            mx->names[k++] = mx->names[i];
    mx->total = k;
    mx->n = k < FH_MATRIX_NODES ? k : FH_MATRIX_NODES;
    mx->block = (mx->n + FH_MATRIX_CELLS - 1) / FH_MATRIX_CELLS;
    if (mx->block == 0)
        mx->block = 1;
    mx->m = (mx->n + mx->block - 1) / mx->block;
    return 0;
}

/* The cell of node name, or -1 when it is not in the matrix. */
static long cell_of(const struct matrix *mx, const char *name)
{
    const char **at =
        bsearch(&name, mx->names, mx->total, sizeof *mx->names, compare_names);
    size_t i;

    if (!at)
        return -1;
    i = (size_t)(at - mx->names);
    return i < mx->n ? (long)(i / mx->block) : -1;
}

/* Counts a link into cell (a, b); the worst link of a node's cell kept. */
static void put_link(struct matrix *mx, const struct fh_fleet *fl, size_t l,
                     long a, long b)
{
    size_t c = (size_t)a * mx->m + (size_t)b;
    enum fh_verdict v = fl->links[l].verdict;

    mx->links[c * NV + v]++;
    if (mx->link_at &&
        (mx->link_at[c] < 0 || fl->links[mx->link_at[c]].verdict < v))
        mx->link_at[c] = (long)l;
}

static int matrix_fill(const struct fh_fleet *fl, struct matrix *mx)
{
    size_t i, cells = mx->m * mx->m;

    mx->links = calloc((cells ? cells : 1) * NV, sizeof *mx->links);
    mx->nodes = calloc((mx->m ? mx->m : 1) * NV, sizeof *mx->nodes);
    if (mx->block == 1) {
        mx->link_at = malloc((cells ? cells : 1) * sizeof *mx->link_at);
        mx->node_at = malloc((mx->m ? mx->m : 1) * sizeof *mx->node_at);
    }
    if (!mx->links || !mx->nodes ||
        (mx->block == 1 && (!mx->link_at || !mx->node_at)))
        return -1;
    for (i = 0; mx->link_at && i < cells; i++)
        mx->link_at[i] = -1;
    for (i = 0; mx->node_at && i < mx->m; i++)
        mx->node_at[i] = -1;
    for (i = 0; i < fl->nlinks; i++) {
        long a = cell_of(mx, fl->links[i].nodes[0]);
        long b = cell_of(mx, fl->links[i].nodes[1]);
        if (a < 0 || b < 0)
            continue;
        mx->drawn_links++;
        put_link(mx, fl, i, a, b);
        if (a != b)
            put_link(mx, fl, i, b, a);
    }
    for (i = 0; i < fl->nnodes; i++) {
        long a = cell_of(mx, fl->nodes[i].node);
        enum fh_verdict v = fl->nodes[i].verdict;
        if (a < 0)
            continue;
        mx->nodes[(size_t)a * NV + v]++;
        if (mx->node_at &&
            (mx->node_at[a] < 0 || fl->nodes[mx->node_at[a]].verdict < v))
            mx->node_at[a] = (long)i;
    }
    return 0;
}

/* The worst verdict counted in counts[NV], -1 when none. */
static int worst_of(const unsigned *counts)
{
    int v;

    for (v = NV - 1; v >= 0; v--)
        if (counts[v])
            return v;
    return -1;
}

/* The nodes of cell i: a name, or the first and last of its block. */
static void block_label(const struct matrix *mx, size_t i, char *buf,
                        size_t size)
{
    size_t first = i * mx->block, last = first + mx->block - 1;

    if (last >= mx->n)
        last = mx->n - 1;
    if (first == last)
        snprintf(buf, size, "%s", mx->names[first]);
    else
        snprintf(buf, size, "%s .. %s", mx->names[first], mx->names[last]);
}

/* "1 bad, 2 ok" of counts[NV], from the worst; "" when all are 0. */
static void count_text(const unsigned *counts, char *buf, size_t size)
{
    size_t len = 0;
    int v;

    buf[0] = '\0';
    for (v = NV - 1; v >= 0 && len < size; v--)
        if (counts[v])
            len += (size_t)snprintf(buf + len, size - len, "%s%u %s",
                                    len ? ", " : "", counts[v],
                                    fh_verdict_name(v));
}

/* The hover text of a single link's cell. */
static void link_title(const struct fh_link *l, char *buf, size_t size)
{
    char eff[32];

    snprintf(
        buf, size,
        "%s " DASH " %s: %s link, slow in %lld of the %lld jobs that "
        "measured it, crossed by %lld job%s of %lld user%s; median "
        "efficiency %s",
        l->nodes[0], l->nodes[1], fh_verdict_word(l->verdict), l->jobs_slow,
        l->jobs_measured, l->jobs_crossed, l->jobs_crossed == 1 ? "" : "s",
        l->users, l->users == 1 ? "" : "s",
        cp_svg_format3(l->median_efficiency, CP_SVG_PERCENT, eff, sizeof eff));
}

static void node_title(const struct fh_node *nd, char *buf, size_t size)
{
    snprintf(buf, size,
             "%s (the node): %s, the straggler in %lld of its %lld jobs, "
             "of %lld of its %lld users",
             nd->node, fh_verdict_word(nd->verdict), nd->jobs_straggler,
             nd->jobs, nd->users_straggler, nd->users);
}

/* The hover text of cell (i, j); its worst verdict in *worst (-1: empty). */
static void cell_title(const struct fh_fleet *fl, const struct matrix *mx,
                       size_t i, size_t j, int *worst, char *buf, size_t size)
{
    const unsigned *links = &mx->links[(i * mx->m + j) * NV];
    const unsigned *nodes = i == j ? &mx->nodes[i * NV] : NULL;
    unsigned both[NV];
    char a[160], b[160], lt[96], nt[96];
    int v;

    for (v = 0; v < NV; v++)
        both[v] = links[v] + (nodes ? nodes[v] : 0);
    *worst = worst_of(both);
    if (*worst < 0)
        return;
    if (mx->block == 1 && i != j) {
        link_title(&fl->links[mx->link_at[i * mx->m + j]], buf, size);
        return;
    }
    if (mx->block == 1 && worst_of(links) < 0) {
        node_title(&fl->nodes[mx->node_at[i]], buf, size);
        return;
    }
    block_label(mx, i, a, sizeof a);
    block_label(mx, j, b, sizeof b);
    count_text(links, lt, sizeof lt);
    count_text(nodes ? nodes : links, nt, sizeof nt);
    snprintf(buf, size, "%s " DASH " %s: %s; links: %s%s%s", a, b,
             fh_verdict_word(*worst), lt[0] ? lt : "none",
             nodes ? "; nodes: " : "", nodes ? (nt[0] ? nt : "none") : "");
}

struct frame {
    double left, top, side, cw;
};

static void matrix_cells(FILE *out, const struct fh_fleet *fl,
                         const struct matrix *mx, const struct frame *f)
{
    char title[640], attrs[160];
    size_t i, j;

    for (i = 0; i < mx->m; i++) {
        for (j = 0; j < mx->m; j++) {
            int worst;
            cell_title(fl, mx, i, j, &worst, title, sizeof title);
            if (worst < 0)
                continue;
            /* not by colour alone: bad outlined, suspect dashed */
            snprintf(attrs, sizeof attrs, "class=\"c-%s\" fill=\"%s\"%s",
                     fh_verdict_name(worst), fh_color(worst),
                     f->cw < 6         ? ""
                     : worst == FH_BAD ? " stroke=\"#1a1a1a\" "
                                         "stroke-width=\"1.5\""
                     : worst == FH_SUSPECT
                         ? " stroke=\"#1a1a1a\" stroke-dasharray=\"3 2\""
                         : " stroke=\"#fff\"");
            cp_svg_rect(out, f->left + f->cw * (double)j,
                        f->top + f->cw * (double)i, f->cw, f->cw, attrs, title);
        }
        fputc('\n', out);
    }
}

/* Node labels: at most 32 per side, a block by its first node. */
static void matrix_labels(FILE *out, const struct matrix *mx,
                          const struct frame *f)
{
    size_t every = (mx->m + 31) / 32, i;
    char b1[32], b2[32], name[64];

    for (i = 0; i < mx->m; i += every) {
        snprintf(name, sizeof name, "%s", mx->names[i * mx->block]);
        if (strlen(name) > 16)
            memcpy(name + 14, "..", 3);
        fprintf(out,
                "<text class=\"tick\" x=\"%s\" y=\"%s\" "
                "text-anchor=\"end\">",
                cp_svg_coord(f->left - 4, b1, sizeof b1),
                cp_svg_coord(f->top + f->cw * ((double)i + 0.5) + 4, b2,
                             sizeof b2));
        cp_svg_escape(out, name);
        fprintf(out,
                "</text><text class=\"tick\" transform=\"translate(%s %s) "
                "rotate(-50)\" text-anchor=\"end\">",
                cp_svg_coord(f->left + f->cw * ((double)i + 0.5) + 3, b1,
                             sizeof b1),
                cp_svg_coord(f->top + f->side + 8, b2, sizeof b2));
        cp_svg_escape(out, name);
        fputs("</text>\n", out);
    }
}

/* The height the column labels take below the matrix: their longest
 * (16 characters at most), turned by 50 degrees. */
static double label_room(const struct matrix *mx)
{
    size_t every = (mx->m + 31) / 32, i, longest = 1;

    for (i = 0; i < mx->m; i += every) {
        size_t len = strlen(mx->names[i * mx->block]);
        longest = len > longest ? len : longest;
    }
    return 16 + 5.0 * (double)(longest < 16 ? longest : 16);
}

static void matrix_legend(FILE *out)
{
    int v;

    fputs("<div class=\"legend\">", out);
    for (v = NV - 1; v >= 0; v--)
        cp_svg_key_box(out, fh_color(v), 1, fh_verdict_word(v));
    cp_svg_key_box(out, "#F5F6F7", 1, "no link in the database");
    fputs("</div>\n", out);
}

/* The caption: what a cell is, and what was left out. */
static void matrix_caption(FILE *out, const struct fh_fleet *fl,
                           const struct matrix *mx)
{
    fprintf(out,
            "<figcaption>%zu node%s, %zu link%s. Each cell is a node pair "
            "that some job crossed, coloured by the fleet's verdict on "
            "the link (bad outlined, suspect dashed, where cells are "
            "large enough); the diagonal holds each node's own verdict "
            "as a straggler. Hover over a cell for its evidence.",
            mx->n, mx->n == 1 ? "" : "s", mx->drawn_links,
            mx->drawn_links == 1 ? "" : "s");
    if (mx->block > 1)
        fprintf(out,
                " Each cell is a block of %zu &times; %zu nodes, "
                "labelled by its first node, coloured by its worst "
                "verdict.",
                mx->block, mx->block);
    if (mx->total > mx->n)
        fprintf(out,
                " <b class=\"cut\">Cut: %zu of %zu nodes are not in "
                "the matrix (it holds the first %d by name), nor %zu of "
                "the %zu links; the tables below rank every link and "
                "node.</b>",
                mx->total - mx->n, mx->total, FH_MATRIX_NODES,
                fl->nlinks - mx->drawn_links, fl->nlinks);
    fputs("</figcaption>\n", out);
}

static void matrix_empty(FILE *out)
{
    fputs("<p class=\"empty\">No node pair and no node in the database: no "
          "job has been ingested yet (or none since the start of the "
          "period).</p>\n</figure>\n",
          out);
}

int fh_plot_matrix(FILE *out, const struct fh_fleet *fl)
{
    struct matrix mx = {0};
    struct frame f = {.left = 130, .top = 12};
    char b1[32], b2[32], b3[32];
    int rc = -1;

    if (matrix_names(fl, &mx) < 0 || matrix_fill(fl, &mx) < 0)
        goto out;
    fputs("<figure id=\"fig-matrix\">\n<h3>Links, node &times; node, by "
          "verdict</h3>\n",
          out);
    if (mx.m == 0) {
        matrix_empty(out);
        rc = 0;
        goto out;
    }
    f.side = fmin(560, fmax(220, 40.0 * (double)mx.m));
    f.cw = f.side / (double)mx.m;
    /* drawn at most 1.5 times its size: a small fleet stays small */
    fprintf(out,
            "<svg class=\"plot matrix\" viewBox=\"0 0 %s %s\" "
            "style=\"max-width:%.0fpx\" role=\"img\" "
            "aria-labelledby=\"matrix-t\"><title id=\"matrix-t\">The "
            "fleet's verdict on each node pair and node</title>\n",
            cp_svg_coord(f.left + f.side + 20, b1, sizeof b1),
            cp_svg_coord(f.top + f.side + label_room(&mx), b2, sizeof b2),
            1.5 * (f.left + f.side + 20));
    fprintf(out,
            "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
            "fill=\"#F5F6F7\" stroke=\"#333\" stroke-width=\".5\"/>\n",
            cp_svg_coord(f.left, b1, sizeof b1),
            cp_svg_coord(f.top, b2, sizeof b2),
            cp_svg_coord(f.side, b3, sizeof b3), b3);
    matrix_cells(out, fl, &mx, &f);
    matrix_labels(out, &mx, &f);
    fputs("</svg>\n", out);
    matrix_legend(out);
    matrix_caption(out, fl, &mx);
    fputs("</figure>\n", out);
    rc = 0;
out:
    matrix_free(&mx);
    return rc;
}

/* ---- a link's efficiency over time -------------------------------------- */

/* A step of a link's history by its end: the order the plot draws. */
struct step {
    double t;
    size_t i;
};

/* What a plot's y axis shows: the efficiency, or, for a link none of
 * whose steps has one, the bandwidth. */
struct series {
    const struct fh_link *link;
    struct step *steps; /* drawn: steps[0..n), by end time */
    size_t n;
    size_t missing; /* of the latest, without a time or the value */
    size_t older;   /* not drawn: older than the latest */
    int bandwidth;  /* 1: bandwidth_Bps, 0: efficiency */
    double lo, hi;  /* of the times drawn */
    double ymax;
};

static double value_of(const struct series *s, const struct fh_link_step *p)
{
    return s->bandwidth ? p->bandwidth_Bps : p->efficiency;
}

static int compare_steps(const void *x, const void *y)
{
    const struct step *a = x, *b = y;

    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The latest FH_PAIR_POINTS steps of l with a value, by time. */
static int series_of(const struct fh_link *l, struct series *s)
{
    size_t i, k = 0, first;

    memset(s, 0, sizeof *s);
    s->link = l;
    s->steps = malloc((l->nhistory ? l->nhistory : 1) * sizeof *s->steps);
    if (!s->steps)
        return -1;
    s->bandwidth = 1;
    for (i = 0; i < l->nhistory; i++) {
        if (isfinite(l->history[i].efficiency))
            s->bandwidth = 0;
        s->steps[i].t = l->history[i].end.t;
        s->steps[i].i = i;
    }
    qsort(s->steps, l->nhistory, sizeof *s->steps, compare_steps);
    first = l->nhistory > FH_PAIR_POINTS ? l->nhistory - FH_PAIR_POINTS : 0;
    s->older = first;
    s->ymax = s->bandwidth && isfinite(l->reference_Bps) ? l->reference_Bps : 1;
    for (i = first; i < l->nhistory; i++) {
        double v = value_of(s, &l->history[s->steps[i].i]);
        if (!isfinite(v) || !isfinite(s->steps[i].t)) {
            s->missing++;
            continue;
        }
        if (k == 0)
            s->lo = s->steps[i].t;
        s->hi = s->steps[i].t;
        s->ymax = fmax(s->ymax, v);
        s->steps[k++] = s->steps[i];
    }
    s->n = k;
    return 0;
}

static const struct {
    enum cp_svg_shape shape;
    const char *color;
    int filled;
    const char *label;
} marks[FH_NMARKS] = {
    [FH_SLOW] = {CP_SVG_CIRCLE, "#D55E00", 1, "slow"},
    [FH_MARK_SUSPECT] = {CP_SVG_TRIANGLE, "#E69F00", 1, "suspect"},
    [FH_MARK_OK] = {CP_SVG_CIRCLE, "#0072B2", 0, "ok"},
    [FH_UNCLEAR] = {CP_SVG_SQUARE, "#777777", 0, "unclear"},
};

/* The time axis: a grid line and a label at each whole hour, day or week
 * (the first step giving at most six), dates past a day's step. */
static void time_ticks(FILE *out, const struct cp_svg_plot *p)
{
    static const double steps[] = {
        3600,      7200,      3 * 3600,   6 * 3600,   12 * 3600,  86400,
        2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400, 91 * 86400, 364 * 86400};
    double step = steps[0], t, x;
    char b1[32], b2[32], b3[32], b4[32], text[40];
    size_t k;

    for (k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        step = steps[k];
        if ((p->x.hi - p->x.lo) / step <= 6)
            break;
    }
    while ((p->x.hi - p->x.lo) / step > 6) /* decades: wider steps */
        step *= 2;
    for (t = ceil(p->x.lo / step) * step; t <= p->x.hi; t += step) {
        time_t secs = (time_t)t;
        struct tm tm;
        if (!gmtime_r(&secs, &tm) ||
            !strftime(text, sizeof text,
                      step >= 86400 ? "%Y-%m-%d" : "%m-%d %H:%M", &tm))
            continue;
        x = cp_svg_axis_map(&p->x, t);
        cp_svg_coord(x, b1, sizeof b1);
        fprintf(out,
                "<line class=\"grid\" x1=\"%s\" y1=\"%s\" x2=\"%s\" "
                "y2=\"%s\"/>",
                b1, cp_svg_coord(p->y.px_lo, b2, sizeof b2), b1,
                cp_svg_coord(p->y.px_hi, b3, sizeof b3));
        /* a label that would stick out of the plot is left out */
        if (x - p->x.px_lo >= 30 && p->x.px_hi - x >= 30)
            fprintf(out,
                    "<text class=\"tick\" x=\"%s\" y=\"%s\" "
                    "text-anchor=\"middle\">%s</text>",
                    b1, cp_svg_coord(p->y.px_lo + 16, b4, sizeof b4), text);
        fputc('\n', out);
    }
}

/* The line through the points, then each point with its hover text. */
static void series_draw(FILE *out, const struct cp_svg_plot *p,
                        const struct series *s)
{
    char bx[32], by[32], title[512], val[32], bw[32];
    size_t k;

    fprintf(out,
            "<path fill=\"none\" stroke=\"#999\" stroke-width=\"1\" "
            "clip-path=\"url(#%s-clip)\" d=\"",
            p->id);
    for (k = 0; k < s->n; k++) {
        const struct fh_link_step *q = &s->link->history[s->steps[k].i];
        fprintf(out, "%s%s %s", k ? "L" : "M",
                cp_svg_coord(cp_svg_axis_map(&p->x, q->end.t), bx, sizeof bx),
                cp_svg_coord(cp_svg_axis_map(&p->y, value_of(s, q)), by,
                             sizeof by));
    }
    fputs("\"/>\n<g class=\"pts\">", out);
    for (k = 0; k < s->n; k++) {
        const struct fh_link_step *q = &s->link->history[s->steps[k].i];
        snprintf(
            title, sizeof title,
            "job %s, step %s, user %s, ended %s: efficiency %s, %s, %s "
            "(from %s)",
            q->job, q->step, q->user, q->end.text,
            cp_svg_format3(q->efficiency, CP_SVG_PERCENT, val, sizeof val),
            cp_svg_format3(q->bandwidth_Bps, CP_SVG_BANDWIDTH, bw, sizeof bw),
            fh_mark_name(q->mark), q->source);
        cp_svg_marker(out, marks[q->mark].shape,
                      cp_svg_axis_map(&p->x, q->end.t),
                      cp_svg_axis_map(&p->y, value_of(s, q)), 4.5,
                      marks[q->mark].color, marks[q->mark].filled, title);
    }
    fputs("</g>\n", out);
}

/* The dashed line of the reference: 100% efficiency, or the link's
 * reference bandwidth. */
static void reference_line(FILE *out, const struct cp_svg_plot *p,
                           const struct series *s)
{
    double y = s->bandwidth ? s->link->reference_Bps : 1;
    char b1[32], b2[32], b3[32];

    if (!isfinite(y))
        return;
    fprintf(out,
            "<path fill=\"none\" stroke=\"#009E73\" stroke-width=\"1.5\" "
            "stroke-dasharray=\"6 4\" d=\"M%s %sH%s\"><title>the "
            "reference</title></path>\n",
            cp_svg_coord(p->x.px_lo, b1, sizeof b1),
            cp_svg_coord(cp_svg_axis_map(&p->y, y), b2, sizeof b2),
            cp_svg_coord(p->x.px_hi, b3, sizeof b3));
}

static void series_caption(FILE *out, const struct series *s)
{
    char ref[32];

    fprintf(out,
            "<figcaption>%s of each step that measured the link, "
            "against the step's end (UTC); dashed: ",
            s->bandwidth ? "Bandwidth (no step has an efficiency)"
                         : "Efficiency (measured over reference bandwidth)");
    if (s->bandwidth)
        fprintf(out, "the link's reference, %s",
                cp_svg_format3(s->link->reference_Bps, CP_SVG_BANDWIDTH, ref,
                               sizeof ref));
    else
        fputs("100%", out);
    fprintf(out, ". %zu point%s drawn", s->n, s->n == 1 ? "" : "s");
    if (s->older)
        fprintf(out, "; <b class=\"cut\">the latest %d of %zu steps</b>",
                FH_PAIR_POINTS, s->link->nhistory);
    if (s->missing)
        fprintf(out, "; %zu without a time or a%s not drawn", s->missing,
                s->bandwidth ? " bandwidth" : "n efficiency");
    if (s->link->history_total > (long long)s->link->nhistory)
        fprintf(out,
                "; <b class=\"cut\">the document holds the latest %zu "
                "of the link's %lld steps</b>",
                s->link->nhistory, s->link->history_total);
    fputs(".</figcaption>\n", out);
}

/* One link's figure, "pair-K". */
static int pair_plot(FILE *out, const struct fh_link *l, size_t k)
{
    struct cp_svg_plot p = {0};
    struct series s;
    char id[32], title[400];

    if (series_of(l, &s) < 0)
        return -1;
    fprintf(out, "<figure id=\"pair-%zu\" class=\"pair\">\n<h3>", k);
    cp_svg_escape(out, l->nodes[0]);
    fputs(" &ndash; ", out);
    cp_svg_escape(out, l->nodes[1]);
    fputc(' ', out);
    fh_badge(out, l->verdict);
    fputs("</h3>\n", out);
    if (s.n == 0) {
        fprintf(out, "<p class=\"empty\">No step of this link has a%s.</p>\n",
                l->nhistory ? "n efficiency or a bandwidth" : " measurement");
        fputs("</figure>\n", out);
        free(s.steps);
        return 0;
    }
    snprintf(id, sizeof id, "pp-%zu", k);
    snprintf(title, sizeof title, "%s of the link %s " DASH " %s over time",
             s.bandwidth ? "Bandwidth" : "Efficiency", l->nodes[0],
             l->nodes[1]);
    p.id = id;
    p.title = title;
    p.width = 560;
    p.height = 240;
    p.left = 64;
    p.right = 20;
    p.top = 12;
    p.bottom = 40;
    p.x.lo = s.lo - fmax(1800, (s.hi - s.lo) * 0.05);
    p.x.hi = s.hi + fmax(1800, (s.hi - s.lo) * 0.05);
    p.x.no_ticks = 1;
    p.x.title = "step end (UTC)";
    p.y.unit = s.bandwidth ? CP_SVG_BANDWIDTH : CP_SVG_PERCENT;
    p.y.title = s.bandwidth ? "bandwidth" : "efficiency";
    cp_svg_lin_domain(0, s.ymax * 1.05, 5, 1, &p.y.lo, &p.y.hi);
    cp_svg_plot_layout(&p);
    cp_svg_plot_open(out, &p);
    time_ticks(out, &p);
    reference_line(out, &p, &s);
    series_draw(out, &p, &s);
    cp_svg_plot_close(out);
    series_caption(out, &s);
    fputs("</figure>\n", out);
    free(s.steps);
    return 0;
}

static void pairs_nav(FILE *out, const struct fh_fleet *fl, const size_t *order,
                      size_t n)
{
    size_t k;

    fputs("<nav class=\"pairnav\" aria-label=\"links with a plot\">Show: ",
          out);
    for (k = 0; k < n; k++) {
        const struct fh_link *l = &fl->links[order[k]];
        fprintf(out, "<a href=\"#pair-%zu\">", k + 1);
        cp_svg_escape(out, l->nodes[0]);
        fputs(" &ndash; ", out);
        cp_svg_escape(out, l->nodes[1]);
        fputs("</a>", out);
    }
    fputs("<a href=\"#over-time\">all of them</a></nav>\n", out);
}

int fh_plot_pairs(FILE *out, const struct fh_fleet *fl, const size_t *order,
                  size_t n)
{
    size_t k;

    if (n > FH_PAIR_PLOTS)
        n = FH_PAIR_PLOTS;
    if (n == 0) {
        fputs("<p class=\"empty\">No link is bad or suspect: nothing to "
              "follow over time.</p>\n",
              out);
        return 0;
    }
    pairs_nav(out, fl, order, n);
    fputs("<div class=\"pairplots\">\n", out);
    for (k = 0; k < n; k++)
        if (pair_plot(out, &fl->links[order[k]], k + 1) < 0)
            return -1;
    fputs("</div>\n", out);
    fputs("<div class=\"legend\">", out);
    for (k = FH_NMARKS; k-- > 0;)
        cp_svg_key_marker(out, marks[k].shape, marks[k].color, marks[k].filled,
                          marks[k].label);
    cp_svg_key_line(out, "#009E73", "6 4", 1.5, "reference");
    fputs("</div>\n", out);
    return 0;
}
