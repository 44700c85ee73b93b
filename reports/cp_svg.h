/* cp_svg.h - the small pieces report.html is drawn with: HTML escaping,
 * number formatting for axes and tables, log and linear axis ticks, and a
 * plot frame (axes, grid, tick labels, axis titles) written as inline SVG.
 *
 * Everything writes to a stdio stream and never prints anywhere else; a
 * write error shows up in ferror() of the caller's stream.  Strings that
 * come from a log or a user go through cp_svg_escape() (text and attribute
 * values alike); the only unescaped text is the caller's own literals.
 */
#ifndef COLLPROF_CP_SVG_H
#define COLLPROF_CP_SVG_H

#include <stddef.h>
#include <stdio.h>

/* What a number is, for formatting ticks and table cells. */
enum cp_svg_unit {
    CP_SVG_COUNT = 0,     /* a plain count: 1, 20, 3k, 4M */
    CP_SVG_SIZE = 1,      /* bytes, binary prefixes: 4 KiB */
    CP_SVG_TIME = 2,      /* seconds: 10 us, 1.5 ms */
    CP_SVG_BANDWIDTH = 3, /* bytes per second, decimal: 1.2 GB/s */
    CP_SVG_PERCENT = 4,   /* a fraction shown as a percentage: 0.25 -> 25% */
    CP_SVG_RANK = 5,      /* an index: 0, 512, 1024 (no suffixes) */
    CP_SVG_SIZE_SI = 6    /* bytes, decimal prefixes: 25 MB */
};

/* Writes text with & < > " ' replaced by entities, and control characters
 * other than tab, newline and carriage return replaced by U+FFFD, so that
 * the result is safe in element text and in a quoted attribute value.
 * NULL writes nothing. */
void cp_svg_escape(FILE *out, const char *text);

/* The same into buf (always NUL-terminated, truncated at an entity
 * boundary when too small); returns the length the whole result needs,
 * like snprintf. */
size_t cp_svg_escape_buf(const char *text, char *buf, size_t size);

/* value in the given unit with up to `digits` significant digits (1..6)
 * and trailing zeros dropped: "4 KiB", "1.5 MiB", "12.3 us", "25%",
 * "3.2k".  NaN gives "n/a".  Returns buf. */
const char *cp_svg_format(double value, enum cp_svg_unit unit, int digits,
                          char *buf, size_t size);

/* cp_svg_format at the 3 significant digits the pages' labels and hover
 * texts use.  Returns buf. */
const char *cp_svg_format3(double value, enum cp_svg_unit unit, char *buf,
                           size_t size);

/* A whole count with thousands separators: "1,234,567".  Returns buf. */
const char *cp_svg_format_count(double value, char *buf, size_t size);

/* A pixel coordinate: one decimal, "-0" and a trailing ".0" dropped. */
const char *cp_svg_coord(double value, char *buf, size_t size);

/* ---- ticks ------------------------------------------------------------- */

/* The powers of base that enclose [min, max] (both > 0): lo = base^floor,
 * hi = base^ceil of their logarithms, hi > lo. */
void cp_svg_log_domain(double min, double max, double base, double *lo,
                       double *hi);

/* Ticks of a log axis over [lo, hi]: the powers of base in it, thinned to
 * every m-th power (m from 1, 2, 5, 10, 20, 50 ...) aligned to multiples of
 * m so that at most max remain.  Returns the number written (at most max).
 * When no power falls inside, falls back to linear ticks. */
size_t cp_svg_log_ticks(double lo, double hi, double base, double *ticks,
                        size_t max);

/* A domain [lo, hi] enclosing [min, max] rounded out to a 1-2-5 step with
 * about `target` intervals; lo is 0 when min >= 0 and from_zero. */
void cp_svg_lin_domain(double min, double max, size_t target, int from_zero,
                       double *lo, double *hi);

/* Ticks at multiples of a 1-2-5 step inside [lo, hi], at most max. */
size_t cp_svg_lin_ticks(double lo, double hi, double *ticks, size_t max);

/* ---- plot frames -------------------------------------------------------- */

struct cp_svg_axis {
    int log;               /* 1: logarithmic */
    double lo, hi;         /* the domain; log: 0 < lo < hi */
    double px_lo, px_hi;   /* where lo and hi land (y: px_lo is the bottom) */
    enum cp_svg_unit unit; /* of the tick labels */
    double base;           /* log ticks: 2 (sizes) or 10 */
    const char *title;     /* axis title with its unit (a literal) */
    int no_ticks;          /* 1: the caller labels this axis itself */
};

/* The pixel position of v (not clamped). */
double cp_svg_axis_map(const struct cp_svg_axis *axis, double v);

struct cp_svg_plot {
    const char *id;      /* unique in the page: prefix of the SVG's ids */
    const char *title;   /* accessible name and hover text (escaped) */
    double width, height;
    double left, right, top, bottom; /* margins */
    struct cp_svg_axis x, y;
};

/* Fills the axes' pixel ranges from the plot's size and margins. */
void cp_svg_plot_layout(struct cp_svg_plot *plot);

/* Opens <svg>, writes its title, a clip path "<id>-clip" for the plot area,
 * grid lines, ticks, tick labels and axis titles.  Draw the data after it
 * (clip-path="url(#<id>-clip)" keeps curves inside) and close with
 * cp_svg_plot_close. */
void cp_svg_plot_open(FILE *out, const struct cp_svg_plot *plot);
void cp_svg_plot_close(FILE *out);

/* ---- marks ------------------------------------------------------------- */

/* The Okabe-Ito palette in the order series use it (blue, orange, bluish
 * green, vermillion, reddish purple, sky blue, black, yellow). */
#define CP_SVG_NCOLORS 8
extern const char *const cp_svg_colors[CP_SVG_NCOLORS];
/* Dash patterns that tell series apart in grey print ("" = solid). */
#define CP_SVG_NDASHES 5
extern const char *const cp_svg_dashes[CP_SVG_NDASHES];

enum cp_svg_shape {
    CP_SVG_CIRCLE = 0,
    CP_SVG_SQUARE,
    CP_SVG_TRIANGLE,
    CP_SVG_DIAMOND,
    CP_SVG_NSHAPES
};

/* A marker centred at (x, y) of radius r; hover text `title` (escaped,
 * may be NULL).  Filled with color, or white with a coloured outline when
 * !filled. */
void cp_svg_marker(FILE *out, enum cp_svg_shape shape, double x, double y,
                   double r, const char *color, int filled,
                   const char *title);

/* A curve y = f(x, ctx) over the plot's log x axis, sampled at samples + 1
 * sizes evenly spaced in log, as one <path> clipped to the plot area:
 * `<path ATTRS clip-path=...`, ATTRS as given (trusted text).  A value
 * that is not positive and finite breaks the line; far-off points are
 * kept within ten plot heights (of CP_SVG_CURVE_HEIGHT px) for the
 * renderer.  Ends with a newline. */
#define CP_SVG_CURVE_HEIGHT 340.0
void cp_svg_curve(FILE *out, const struct cp_svg_plot *p, int samples,
                  double (*f)(double x, const void *ctx), const void *ctx,
                  const char *attrs);

/* A bar or a cell: <rect> at (x, y) of width w and height h, then `attrs`
 * as given (e.g. `fill="#0072B2"`; trusted text), and the hover text
 * `title` (escaped; NULL: none).  No newline. */
void cp_svg_rect(FILE *out, double x, double y, double w, double h,
                 const char *attrs, const char *title);

/* A value in a unit (a whole count in digits), or "n/a", as text. */
void cp_svg_value(FILE *out, double v, enum cp_svg_unit unit);

/* Legend entries for the HTML around the plots: a small inline swatch,
 * then the label (escaped), in one <span>.  A line of the given colour,
 * width and dash pattern ("" = solid); a marker as cp_svg_marker draws
 * it; a box filled with fill at opacity (1 = opaque). */
void cp_svg_key_line(FILE *out, const char *color, const char *dash,
                     double width, const char *label);
void cp_svg_key_marker(FILE *out, enum cp_svg_shape shape, const char *color,
                       int filled, const char *label);
void cp_svg_key_box(FILE *out, const char *fill, double opacity,
                    const char *label);

#endif
