/* cp_svg.c - escaping, number formatting, ticks and plot frames for
 * report.html (see cp_svg.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cp_svg.h"
#include "cp_units.h"

const char *const cp_svg_colors[CP_SVG_NCOLORS] = {
    "#0072B2", "#E69F00", "#009E73", "#D55E00",
    "#CC79A7", "#56B4E9", "#000000", "#F0E442",
};

const char *const cp_svg_dashes[CP_SVG_NDASHES] = {
    "", "7 4", "2 3", "9 3 2 3", "4 2 1 2 1 2",
};

/* ---- escaping ------------------------------------------------------------ */

/* The replacement of c, or NULL when c stands for itself. */
static const char *entity(unsigned char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    case '\t':
    case '\n':
    case '\r':
        return NULL;
    default:
        return c < 0x20 || c == 0x7f ? "\xef\xbf\xbd" : NULL;
    }
}

void cp_svg_escape(FILE *out, const char *text)
{
    const char *run = text;

    if (!text)
        return;
    for (; *text; text++) {
        const char *e = entity((unsigned char)*text);
        if (!e)
            continue;
        fwrite(run, 1, (size_t)(text - run), out);
        fputs(e, out);
        run = text + 1;
    }
    fwrite(run, 1, (size_t)(text - run), out);
}

size_t cp_svg_escape_buf(const char *text, char *buf, size_t size)
{
    size_t need = 0, used = 0;
    int full = 0;

    for (; text && *text; text++) {
        const char *e = entity((unsigned char)*text);
        char one[2] = {*text, '\0'};
        size_t len;
        if (!e)
            e = one;
        len = strlen(e);
        need += len;
        if (!full && size > 0 && used + len < size) {
            memcpy(buf + used, e, len);
            used += len;
        } else {
            full = 1; /* never a partial entity */
        }
    }
    if (size > 0)
        buf[used] = '\0';
    return need;
}

/* ---- numbers ------------------------------------------------------------- */

/* Drops trailing zeros (and then a trailing '.') from the number at the
 * start of buf, keeping what follows it (a unit). */
static void strip_zeros(char *buf)
{
    char *end = buf, *dot = NULL, *cut;

    while (*end && (*end == '-' || *end == '.' || (*end >= '0' && *end <= '9'))) {
        if (*end == '.')
            dot = end;
        end++;
    }
    if (!dot || *end == 'e' || *end == 'E')
        return;
    cut = end;
    while (cut > dot + 1 && cut[-1] == '0')
        cut--;
    if (cut == dot + 1)
        cut = dot;
    memmove(cut, end, strlen(end) + 1);
}

/* x with `digits` significant digits in fixed notation. */
static void format_sig(double x, int digits, const char *suffix, char *buf,
                       size_t size)
{
    int decimals = 0;

    if (x != 0) {
        decimals = digits - 1 - (int)floor(log10(fabs(x)));
        if (decimals < 0)
            decimals = 0;
        if (decimals > 9)
            decimals = 9;
    }
    snprintf(buf, size, "%.*f%s", decimals, x, suffix);
    strip_zeros(buf);
}

const char *cp_svg_format(double value, enum cp_svg_unit unit, int digits,
                          char *buf, size_t size)
{
    static const char *const big[] = {"", "k", "M", "G", "T", "P"};
    enum cp_units_kind kind = CP_UNITS_SIZE;
    unsigned i = 0;

    if (size == 0)
        return buf;
    if (digits < 1 || digits > 6)
        digits = 3;
    if (isnan(value)) {
        snprintf(buf, size, "n/a");
        return buf;
    }
    switch (unit) {
    case CP_SVG_SIZE:
        kind = CP_UNITS_SIZE;
        break;
    case CP_SVG_SIZE_SI:
        kind = CP_UNITS_SIZE_SI;
        break;
    case CP_SVG_TIME:
        kind = CP_UNITS_TIME;
        break;
    case CP_SVG_BANDWIDTH:
        kind = CP_UNITS_BANDWIDTH;
        break;
    case CP_SVG_PERCENT:
        /* 25%, 6.7%, 0.3%: whole percents from 10 % up */
        if (!isfinite(value) || fabs(value) >= 0.1)
            snprintf(buf, size, "%.0f%%", 100 * value);
        else
            format_sig(100 * value, fabs(value) >= 0.01 ? 2 : 1, "%", buf,
                       size);
        return buf;
    case CP_SVG_RANK:
        snprintf(buf, size, "%.0f", value);
        return buf;
    case CP_SVG_COUNT:
    default:
        if (!isfinite(value)) {
            snprintf(buf, size, "%s", value > 0 ? "inf" : "-inf");
            return buf;
        }
        while (fabs(value) >= 999.5 && i + 1 < sizeof big / sizeof big[0]) {
            value /= 1000;
            i++;
        }
        format_sig(value, digits, big[i], buf, size);
        return buf;
    }
    cp_units_format(value, kind, digits, buf, size);
    strip_zeros(buf);
    return buf;
}

const char *cp_svg_format3(double value, enum cp_svg_unit unit, char *buf,
                           size_t size) {
    return cp_svg_format(value, unit, 3, buf, size);
}

const char *cp_svg_format_count(double value, char *buf, size_t size)
{
    char digits[64];
    size_t n, i, o = 0;
    int neg;

    if (size == 0)
        return buf;
    if (!isfinite(value) || fabs(value) >= 1e18) {
        return cp_svg_format(value, CP_SVG_COUNT, 3, buf, size);
    }
    neg = value < 0;
    snprintf(digits, sizeof digits, "%.0f", fabs(value));
    n = strlen(digits);
    if (neg && o + 1 < size)
        buf[o++] = '-';
    for (i = 0; i < n && o + 1 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0) {
            buf[o++] = ',';
            if (o + 1 >= size)
                break;
        }
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *cp_svg_coord(double value, char *buf, size_t size)
{
    if (!isfinite(value))
        value = 0;
    snprintf(buf, size, "%.1f", value);
    strip_zeros(buf);
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, size, "0");
    return buf;
}

/* ---- ticks ----------------------------------------------------------------- */

static double log_base(double v, double base)
{
    return log(v) / log(base);
}

void cp_svg_log_domain(double min, double max, double base, double *lo,
                       double *hi)
{
    double a, b;

    if (!(base > 1))
        base = 10;
    if (!(min > 0) || !isfinite(min))
        min = 1;
    if (!(max >= min) || !isfinite(max))
        max = min;
    a = floor(log_base(min, base) + 1e-9);
    b = ceil(log_base(max, base) - 1e-9);
    if (b <= a)
        b = a + 1;
    *lo = pow(base, a);
    *hi = pow(base, b);
}

static double nice_step(double x)
{
    double e, f;

    if (!(x > 0) || !isfinite(x))
        return 1;
    e = floor(log10(x));
    f = x / pow(10, e);
    f = f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 : f <= 5 + 1e-9 ? 5 : 10;
    return f * pow(10, e);
}

size_t cp_svg_log_ticks(double lo, double hi, double base, double *ticks,
                        size_t max)
{
    static const long steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500};
    long kmin, kmax, m = 1, k;
    size_t n = 0, i;

    if (max == 0 || !(lo > 0) || !(hi > lo))
        return 0;
    if (!(base > 1))
        base = 10;
    kmin = (long)ceil(log_base(lo, base) - 1e-9);
    kmax = (long)floor(log_base(hi, base) + 1e-9);
    if (kmin > kmax)
        return cp_svg_lin_ticks(lo, hi, ticks, max);
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        size_t count = 0;
        m = steps[i];
        for (k = kmin; k <= kmax; k++)
            if (k % m == 0)
                count++;
        if (count <= max)
            break;
    }
    for (k = kmin; k <= kmax && n < max; k++)
        if (k % m == 0)
            ticks[n++] = pow(base, (double)k);
    if (n == 0)
        ticks[n++] = pow(base, (double)kmin);
    return n;
}

void cp_svg_lin_domain(double min, double max, size_t target, int from_zero,
                       double *lo, double *hi)
{
    double step;

    if (!isfinite(min))
        min = 0;
    if (!isfinite(max) || max < min)
        max = min;
    if (from_zero && min >= 0)
        min = 0;
    if (target == 0)
        target = 5;
    step = nice_step((max - min) / (double)target);
    if (max == min)
        step = min != 0 ? nice_step(fabs(min) / (double)target) : 1;
    *lo = floor(min / step + 1e-9) * step;
    *hi = ceil(max / step - 1e-9) * step;
    if (*hi <= *lo)
        *hi = *lo + step;
}

size_t cp_svg_lin_ticks(double lo, double hi, double *ticks, size_t max)
{
    double step, v;
    size_t n = 0;

    if (max == 0 || !(hi > lo) || !isfinite(lo) || !isfinite(hi))
        return 0;
    step = nice_step((hi - lo) / (double)(max > 1 ? max - 1 : 1));
    while (floor(hi / step + 1e-9) - ceil(lo / step - 1e-9) + 1 > (double)max)
        step = nice_step(step * 1.5);
    for (v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < max;
         v += step)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    if (n == 0) { /* a step coarser than the range: label its ends */
        ticks[n++] = lo;
        if (max > 1)
            ticks[n++] = hi;
    }
    return n;
}

/* ---- plot frames ------------------------------------------------------------ */

double cp_svg_axis_map(const struct cp_svg_axis *a, double v)
{
    double t;

    if (a->log)
        t = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
    else
        t = (v - a->lo) / (a->hi - a->lo);
    return a->px_lo + t * (a->px_hi - a->px_lo);
}

void cp_svg_plot_layout(struct cp_svg_plot *p)
{
    p->x.px_lo = p->left;
    p->x.px_hi = p->width - p->right;
    p->y.px_lo = p->height - p->bottom;
    p->y.px_hi = p->top;
}

static size_t axis_ticks(const struct cp_svg_axis *a, double *t, size_t max)
{
    if (a->no_ticks)
        return 0;
    return a->log ? cp_svg_log_ticks(a->lo, a->hi, a->base, t, max)
                  : cp_svg_lin_ticks(a->lo, a->hi, t, max);
}

void cp_svg_plot_open(FILE *out, const struct cp_svg_plot *p)
{
    double ticks[32];
    char b1[32], b2[32], b3[32], b4[32], label[CP_UNITS_BUFSIZE];
    double x0 = p->x.px_lo, x1 = p->x.px_hi, y0 = p->y.px_lo, y1 = p->y.px_hi;
    size_t n, i, xmax;

    fprintf(out,
            "<svg class=\"plot\" viewBox=\"0 0 %s %s\" role=\"img\" "
            "aria-labelledby=\"%s-t\"><title id=\"%s-t\">",
            cp_svg_coord(p->width, b1, sizeof b1),
            cp_svg_coord(p->height, b2, sizeof b2), p->id, p->id);
    cp_svg_escape(out, p->title);
    fprintf(out,
            "</title><defs><clipPath id=\"%s-clip\"><rect x=\"%s\" y=\"%s\" "
            "width=\"%s\" height=\"%s\"/></clipPath></defs>\n",
            p->id, cp_svg_coord(x0, b1, sizeof b1),
            cp_svg_coord(y1, b2, sizeof b2),
            cp_svg_coord(x1 - x0, b3, sizeof b3),
            cp_svg_coord(y0 - y1, b4, sizeof b4));
    fprintf(out,
            "<rect class=\"area\" x=\"%s\" y=\"%s\" width=\"%s\" "
            "height=\"%s\"/>\n",
            cp_svg_coord(x0, b1, sizeof b1), cp_svg_coord(y1, b2, sizeof b2),
            cp_svg_coord(x1 - x0, b3, sizeof b3),
            cp_svg_coord(y0 - y1, b4, sizeof b4));

    /* x: about one label per 70 px */
    xmax = (size_t)fmax(2, fmin(12, (x1 - x0) / 70));
    n = axis_ticks(&p->x, ticks, xmax);
    for (i = 0; i < n; i++) {
        char bx[32], by0[32], by1[32], btk[32], blab[32];
        cp_svg_coord(cp_svg_axis_map(&p->x, ticks[i]), bx, sizeof bx);
        cp_svg_coord(y0, by0, sizeof by0);
        cp_svg_coord(y1, by1, sizeof by1);
        cp_svg_coord(y0 + 4, btk, sizeof btk);
        cp_svg_coord(y0 + 16, blab, sizeof blab);
        fprintf(out,
                "<line class=\"grid\" x1=\"%s\" y1=\"%s\" x2=\"%s\" "
                "y2=\"%s\"/><line class=\"tk\" x1=\"%s\" y1=\"%s\" x2=\"%s\" "
                "y2=\"%s\"/><text class=\"tick\" x=\"%s\" y=\"%s\" "
                "text-anchor=\"middle\">%s</text>\n",
                bx, by0, bx, by1, bx, by0, bx, btk, bx, blab,
                cp_svg_format(ticks[i], p->x.unit, 3, label, sizeof label));
    }
    n = axis_ticks(&p->y, ticks, (size_t)fmax(2, fmin(10, (y0 - y1) / 35)));
    for (i = 0; i < n; i++) {
        char by[32], bx0[32], bx1[32], btk[32], blab[32], bly[32];
        double y = cp_svg_axis_map(&p->y, ticks[i]);
        cp_svg_coord(y, by, sizeof by);
        cp_svg_coord(x0, bx0, sizeof bx0);
        cp_svg_coord(x1, bx1, sizeof bx1);
        cp_svg_coord(x0 - 4, btk, sizeof btk);
        cp_svg_coord(x0 - 6, blab, sizeof blab);
        cp_svg_coord(y + 4, bly, sizeof bly);
        fprintf(out,
                "<line class=\"grid\" x1=\"%s\" y1=\"%s\" x2=\"%s\" "
                "y2=\"%s\"/><line class=\"tk\" x1=\"%s\" y1=\"%s\" x2=\"%s\" "
                "y2=\"%s\"/><text class=\"tick\" x=\"%s\" y=\"%s\" "
                "text-anchor=\"end\">%s</text>\n",
                bx0, by, bx1, by, bx0, by, btk, by, blab, bly,
                cp_svg_format(ticks[i], p->y.unit, 3, label, sizeof label));
    }
    fprintf(out,
            "<path class=\"axis\" d=\"M%s %sV%sH%s\"/>\n",
            cp_svg_coord(x0, b1, sizeof b1), cp_svg_coord(y1, b2, sizeof b2),
            cp_svg_coord(y0, b3, sizeof b3), cp_svg_coord(x1, b4, sizeof b4));
    if (p->x.title) {
        fprintf(out, "<text class=\"axt\" x=\"%s\" y=\"%s\" "
                     "text-anchor=\"middle\">",
                cp_svg_coord((x0 + x1) / 2, b1, sizeof b1),
                cp_svg_coord(p->height - 6, b2, sizeof b2));
        cp_svg_escape(out, p->x.title);
        fputs("</text>\n", out);
    }
    if (p->y.title) {
        fprintf(out,
                "<text class=\"axt\" transform=\"translate(14 %s) "
                "rotate(-90)\" text-anchor=\"middle\">",
                cp_svg_coord((y0 + y1) / 2, b1, sizeof b1));
        cp_svg_escape(out, p->y.title);
        fputs("</text>\n", out);
    }
}

void cp_svg_plot_close(FILE *out)
{
    fputs("</svg>\n", out);
}

/* ---- marks --------------------------------------------------------------- */

void cp_svg_marker(FILE *out, enum cp_svg_shape shape, double x, double y,
                   double r, const char *color, int filled,
                   const char *title)
{
    char b[6][32];
    const char *tag;

    switch (shape) {
    case CP_SVG_SQUARE:
        tag = "rect";
        fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"",
                cp_svg_coord(x - r * 0.9, b[0], 32),
                cp_svg_coord(y - r * 0.9, b[1], 32),
                cp_svg_coord(1.8 * r, b[2], 32), b[2]);
        break;
    case CP_SVG_TRIANGLE:
        tag = "path";
        fprintf(out, "<path d=\"M%s %sL%s %sL%s %sZ\"",
                cp_svg_coord(x, b[0], 32), cp_svg_coord(y - 1.2 * r, b[1], 32),
                cp_svg_coord(x + 1.1 * r, b[2], 32),
                cp_svg_coord(y + 0.8 * r, b[3], 32),
                cp_svg_coord(x - 1.1 * r, b[4], 32), b[3]);
        break;
    case CP_SVG_DIAMOND:
        tag = "path";
        fprintf(out, "<path d=\"M%s %sL%s %sL%s %sL%s %sZ\"",
                cp_svg_coord(x, b[0], 32), cp_svg_coord(y - 1.3 * r, b[1], 32),
                cp_svg_coord(x + 1.1 * r, b[2], 32), cp_svg_coord(y, b[3], 32),
                b[0], cp_svg_coord(y + 1.3 * r, b[4], 32),
                cp_svg_coord(x - 1.1 * r, b[5], 32), b[3]);
        break;
    case CP_SVG_CIRCLE:
    default:
        tag = "circle";
        fprintf(out, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\"",
                cp_svg_coord(x, b[0], 32), cp_svg_coord(y, b[1], 32),
                cp_svg_coord(r, b[2], 32));
        break;
    }
    fprintf(out, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"",
            filled ? color : "#fff", color);
    if (title) {
        fputs("><title>", out);
        cp_svg_escape(out, title);
        fprintf(out, "</title></%s>", tag);
    } else {
        fputs("/>", out);
    }
}

void cp_svg_curve(FILE *out, const struct cp_svg_plot *p, int samples,
                  double (*f)(double x, const void *ctx), const void *ctx,
                  const char *attrs)
{
    char bx[32], by[32];
    int i, pen = 0;

    fprintf(out, "<path %s clip-path=\"url(#%s-clip)\" d=\"", attrs, p->id);
    for (i = 0; i <= samples; i++) {
        double n = p->x.lo * pow(p->x.hi / p->x.lo, (double)i / samples);
        double v = f(n, ctx);
        double y;
        if (!(v > 0) || !isfinite(v)) {
            pen = 0;
            continue;
        }
        y = cp_svg_axis_map(&p->y, v);
        /* keep far-off points finite for the renderer */
        y = fmax(-10 * CP_SVG_CURVE_HEIGHT, fmin(11 * CP_SVG_CURVE_HEIGHT, y));
        fprintf(out, "%s%s %s", pen ? "L" : "M",
                cp_svg_coord(cp_svg_axis_map(&p->x, n), bx, sizeof bx),
                cp_svg_coord(y, by, sizeof by));
        pen = 1;
    }
    fputs("\"/>\n", out);
}

void cp_svg_rect(FILE *out, double x, double y, double w, double h,
                 const char *attrs, const char *title)
{
    char b1[32], b2[32], b3[32], b4[32];

    fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" %s",
            cp_svg_coord(x, b1, sizeof b1), cp_svg_coord(y, b2, sizeof b2),
            cp_svg_coord(w, b3, sizeof b3), cp_svg_coord(h, b4, sizeof b4),
            attrs);
    if (title) {
        fputs("><title>", out);
        cp_svg_escape(out, title);
        fputs("</title></rect>", out);
    } else {
        fputs("/>", out);
    }
}

void cp_svg_key_line(FILE *out, const char *color, const char *dash,
                     double width, const char *label)
{
    fprintf(out,
            "<span><svg width=\"30\" height=\"10\" aria-hidden=\"true\"><line "
            "x1=\"1\" y1=\"5\" x2=\"29\" y2=\"5\" stroke=\"%s\" "
            "stroke-width=\"%.1f\"%s%s%s/></svg>",
            color, width, dash[0] ? " stroke-dasharray=\"" : "", dash,
            dash[0] ? "\"" : "");
    cp_svg_escape(out, label);
    fputs("</span>", out);
}

void cp_svg_key_marker(FILE *out, enum cp_svg_shape shape, const char *color,
                       int filled, const char *label)
{
    fputs("<span><svg width=\"14\" height=\"14\" aria-hidden=\"true\">", out);
    cp_svg_marker(out, shape, 7, 7, 4.5, color, filled, NULL);
    fputs("</svg>", out);
    cp_svg_escape(out, label);
    fputs("</span>", out);
}

void cp_svg_key_box(FILE *out, const char *fill, double opacity,
                    const char *label)
{
    fprintf(out,
            "<span><svg width=\"14\" height=\"12\" aria-hidden=\"true\"><rect "
            "x=\"1\" y=\"1\" width=\"12\" height=\"10\" fill=\"%s\"",
            fill);
    if (opacity < 1)
        fprintf(out, " fill-opacity=\"%.2f\"", opacity);
    fputs(" stroke=\"#333\" stroke-width=\".5\"/></svg>", out);
    cp_svg_escape(out, label);
    fputs("</span>", out);
}

void cp_svg_value(FILE *out, double v, enum cp_svg_unit unit)
{
    char b[64];

    if (unit == CP_SVG_COUNT && isfinite(v) && fabs(v) < 1e15 &&
        v == floor(v))
        fputs(cp_svg_format_count(v, b, sizeof b), out);
    else
        fputs(cp_svg_format(v, unit, 3, b, sizeof b), out);
}
