/* svg.c - unit tests of reports/cp_svg: escaping, number formatting, axis
 * ticks on log and linear scales, and the plot frame. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_svg.h"
#include "tap.h"

/* cp_svg_escape through a memory stream; the caller frees. */
static char *escape_stream(const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return NULL;
    cp_svg_escape(f, text);
    fclose(f);
    return buf;
}

static void test_escape(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
        {"\"><img src=x onerror=alert(1)>",
         "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"},
        {"a & b's", "a &amp; b&#39;s"},
        {"&amp;", "&amp;amp;"},
        {"plain node-01.cluster", "plain node-01.cluster"},
        {"tab\tnew\nline", "tab\tnew\nline"},
        {"bell\x07" "del\x7f", "bell\xef\xbf\xbd" "del\xef\xbf\xbd"},
        {"caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93"},
        {"", ""},
    };
    char buf[256];
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = escape_stream(cases[i].in);
        size_t need = cp_svg_escape_buf(cases[i].in, buf, sizeof buf);
        is_str(s, cases[i].out, "escape stream: case %zu", i);
        is_str(buf, cases[i].out, "escape buffer: case %zu", i);
        is_int(need, strlen(cases[i].out), "escape buffer: length, case %zu",
               i);
        free(s);
    }
    {
        char *s = escape_stream(NULL);
        is_str(s, "", "escape: NULL writes nothing");
        free(s);
    }
    /* a short buffer never ends in half an entity */
    is_int(cp_svg_escape_buf("ab<cd", buf, 6), 8, "escape: needed length");
    is_str(buf, "ab", "escape: truncated before the entity");
    is_int(cp_svg_escape_buf("<", buf, 5), 4, "escape: entity needs 5 bytes");
    is_str(buf, "&lt;", "escape: entity fits exactly");
    is_int(cp_svg_escape_buf("x", buf, 0), 1, "escape: size 0 only counts");
}

static void test_format(void)
{
    static const struct {
        double v;
        enum cp_svg_unit unit;
        const char *want;
    } cases[] = {
        {4096, CP_SVG_SIZE, "4 KiB"},
        {1536, CP_SVG_SIZE, "1.5 KiB"},
        {512, CP_SVG_SIZE, "512 B"},
        {0, CP_SVG_SIZE, "0 B"},
        {1048576, CP_SVG_SIZE, "1 MiB"},
        {25e6, CP_SVG_SIZE, "23.8 MiB"},
        {25e6, CP_SVG_SIZE_SI, "25 MB"},
        {12.34e-6, CP_SVG_TIME, "12.3 us"},
        {1e-3, CP_SVG_TIME, "1 ms"},
        {0.614, CP_SVG_TIME, "614 ms"},
        {2.5, CP_SVG_TIME, "2.5 s"},
        {18.4e9, CP_SVG_BANDWIDTH, "18.4 GB/s"},
        {27348547.92, CP_SVG_BANDWIDTH, "27.3 MB/s"},
        {100, CP_SVG_BANDWIDTH, "100 B/s"},
        {0.25, CP_SVG_PERCENT, "25%"},
        {0.0672, CP_SVG_PERCENT, "6.7%"},
        {0.003, CP_SVG_PERCENT, "0.3%"},
        {1.14, CP_SVG_PERCENT, "114%"},
        {0, CP_SVG_PERCENT, "0%"},
        {1, CP_SVG_PERCENT, "100%"},
        {999, CP_SVG_COUNT, "999"},
        {3200, CP_SVG_COUNT, "3.2k"},
        {1e6, CP_SVG_COUNT, "1M"},
        {0.5, CP_SVG_COUNT, "0.5"},
        {4095, CP_SVG_RANK, "4095"},
        {NAN, CP_SVG_TIME, "n/a"},
        {NAN, CP_SVG_COUNT, "n/a"},
    };
    char buf[64];
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        is_str(cp_svg_format(cases[i].v, cases[i].unit, 3, buf, sizeof buf),
               cases[i].want, "format %g (unit %d)", cases[i].v,
               (int)cases[i].unit);
    is_str(cp_svg_format(1536, CP_SVG_SIZE, 1, buf, sizeof buf), "2 KiB",
           "format: 1 significant digit");
    cp_svg_format(1e-3, CP_SVG_TIME, 3, buf, 3);
    ok(strlen(buf) < 3, "format: a short buffer is truncated, NUL-terminated");

    is_str(cp_svg_format_count(1234567, buf, sizeof buf), "1,234,567",
           "count: thousands separators");
    is_str(cp_svg_format_count(1000, buf, sizeof buf), "1,000", "count: 1000");
    is_str(cp_svg_format_count(999, buf, sizeof buf), "999", "count: 999");
    is_str(cp_svg_format_count(0, buf, sizeof buf), "0", "count: 0");
    is_str(cp_svg_format_count(-4096, buf, sizeof buf), "-4,096",
           "count: negative");
    is_str(cp_svg_format_count(NAN, buf, sizeof buf), "n/a", "count: NaN");

    is_str(cp_svg_coord(1.0, buf, sizeof buf), "1", "coord: whole");
    is_str(cp_svg_coord(1.26, buf, sizeof buf), "1.3", "coord: one decimal");
    is_str(cp_svg_coord(-0.01, buf, sizeof buf), "0", "coord: no -0");
    is_str(cp_svg_coord(100, buf, sizeof buf), "100", "coord: 100 kept");
    is_str(cp_svg_coord(INFINITY, buf, sizeof buf), "0",
           "coord: non-finite becomes 0");
}

static int ascending_inside(const double *t, size_t n, double lo, double hi)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (t[i] < lo * (1 - 1e-9) || t[i] > hi * (1 + 1e-9) ||
            (i && !(t[i] > t[i - 1])))
            return 0;
    return 1;
}

static void test_ticks(void)
{
    double lo, hi, t[32];
    size_t n, i;
    int all_ok = 1;

    cp_svg_log_domain(3, 1000, 10, &lo, &hi);
    ok(lo == 1 && hi == 1000, "log domain base 10: [3, 1000] -> [1, 1000]");
    cp_svg_log_domain(3, 1000, 2, &lo, &hi);
    ok(lo == 2 && hi == 1024, "log domain base 2: [3, 1000] -> [2, 1024]");
    cp_svg_log_domain(4, 4, 2, &lo, &hi);
    ok(lo == 4 && hi == 8, "log domain: one value gets one power of room");
    cp_svg_log_domain(1e-6, 3e-2, 10, &lo, &hi);
    is_near(lo, 1e-6, 1e-9, "log domain: small times, lo");
    is_near(hi, 1e-1, 1e-9, "log domain: small times, hi");

    n = cp_svg_log_ticks(1, 1e12, 10, t, 8);
    is_int(n, 7, "log ticks: 13 decades thinned to every 2nd");
    ok(n >= 2 && t[0] == 1 && t[1] == 100, "log ticks: 1, 100, ...");
    n = cp_svg_log_ticks(1, 1073741824.0, 2, t, 8);
    is_int(n, 7, "log ticks base 2: 1 B..1 GiB at every 5th power");
    ok(n >= 3 && t[2] == 1024, "log ticks base 2: 1, 32, 1024 ...");
    n = cp_svg_log_ticks(2, 8, 2, t, 8);
    ok(n == 3 && t[0] == 2 && t[1] == 4 && t[2] == 8,
       "log ticks: every power when they fit");
    n = cp_svg_log_ticks(2, 3, 10, t, 5);
    ok(n >= 2 && ascending_inside(t, n, 2, 3),
       "log ticks: no power inside falls back to linear ticks");
    n = cp_svg_log_ticks(1, 1024, 2, t, 1);
    is_int(n, 1, "log ticks: max 1");
    is_int(cp_svg_log_ticks(0, 10, 10, t, 8), 0, "log ticks: lo 0 refused");
    is_int(cp_svg_log_ticks(10, 1, 10, t, 8), 0, "log ticks: hi < lo refused");

    /* any range: at most max ticks, ascending, inside the domain */
    srand(7);
    for (i = 0; i < 2000; i++) {
        double a = pow(10, (rand() % 3000) / 100.0 - 15);
        double b = a * pow(10, (rand() % 2000) / 100.0 + 0.01);
        size_t max = 2 + (size_t)(rand() % 10);
        double base = i % 2 ? 2 : 10;
        n = cp_svg_log_ticks(a, b, base, t, max);
        if (n == 0 || n > max || !ascending_inside(t, n, a, b)) {
            diag("log ticks over [%g, %g] base %g max %zu: %zu ticks", a, b,
                 base, max, n);
            all_ok = 0;
            break;
        }
        cp_svg_lin_domain(a, b, 5, i % 3 == 0, &lo, &hi);
        n = cp_svg_lin_ticks(lo, hi, t, max);
        /* the domain encloses the data (to rounding) */
        if (!(lo <= a * (1 + 1e-9) && hi >= b * (1 - 1e-9)) || n == 0 ||
            n > max ||
            !ascending_inside(t, n, lo, hi)) {
            diag("lin ticks over [%g, %g] -> [%g, %g], max %zu: %zu ticks", a,
                 b, lo, hi, max, n);
            all_ok = 0;
            break;
        }
    }
    ok(all_ok, "ticks: 2000 random ranges, bounded, ascending, inside");

    cp_svg_lin_domain(0, 87, 5, 1, &lo, &hi);
    ok(lo == 0 && hi == 100, "lin domain: [0, 87] -> [0, 100]");
    cp_svg_lin_domain(13, 87, 5, 1, &lo, &hi);
    ok(lo == 0 && hi == 100, "lin domain: from zero");
    cp_svg_lin_domain(0, 0, 5, 1, &lo, &hi);
    ok(lo == 0 && hi > 0, "lin domain: all zero still has a range");
    n = cp_svg_lin_ticks(0, 100, t, 6);
    ok(n == 6 && t[0] == 0 && t[1] == 20 && t[5] == 100,
       "lin ticks: 0, 20, ..., 100");
    n = cp_svg_lin_ticks(0, 0.03, t, 4);
    ok(n >= 2 && n <= 4 && t[0] == 0 && ascending_inside(t, n, 0, 0.03),
       "lin ticks: small values");
}

static void test_axis_and_frame(void)
{
    struct cp_svg_axis a = {0};
    struct cp_svg_plot p = {0};
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    a.log = 1;
    a.lo = 1;
    a.hi = 100;
    a.px_lo = 0;
    a.px_hi = 100;
    is_near(cp_svg_axis_map(&a, 10), 50, 1e-12, "axis: log map of 10 in "
                                                "[1, 100]");
    a.log = 0;
    a.lo = 0;
    a.hi = 10;
    a.px_lo = 200;
    a.px_hi = 0;
    is_near(cp_svg_axis_map(&a, 2.5), 150, 1e-12, "axis: linear, inverted");

    p.id = "t1";
    p.title = "a <title> & more";
    p.width = 400;
    p.height = 300;
    p.left = 50;
    p.right = 10;
    p.top = 10;
    p.bottom = 40;
    p.x.log = 1;
    p.x.base = 2;
    p.x.lo = 1;
    p.x.hi = 1048576;
    p.x.unit = CP_SVG_SIZE;
    p.x.title = "size <bytes>";
    p.y.lo = 0;
    p.y.hi = 1e-3;
    p.y.unit = CP_SVG_TIME;
    p.y.title = "time";
    cp_svg_plot_layout(&p);
    ok(p.x.px_lo == 50 && p.x.px_hi == 390 && p.y.px_lo == 260 &&
           p.y.px_hi == 10,
       "frame: layout from the margins");
    f = open_memstream(&buf, &len);
    cp_svg_plot_open(f, &p);
    cp_svg_marker(f, CP_SVG_DIAMOND, 10, 10, 4, "#000", 0, "<b>");
    cp_svg_plot_close(f);
    fclose(f);
    ok(strstr(buf, "<svg class=\"plot\" viewBox=\"0 0 400 300\"") != NULL,
       "frame: svg with its view box");
    ok(strstr(buf, "<title id=\"t1-t\">a &lt;title&gt; &amp; more</title>") !=
           NULL,
       "frame: escaped title");
    ok(strstr(buf, "clipPath id=\"t1-clip\"") != NULL, "frame: clip path");
    ok(strstr(buf, ">1 KiB</text>") != NULL && strstr(buf, ">1 MiB</text>"),
       "frame: size ticks labelled 1 KiB, 1 MiB");
    ok(strstr(buf, ">1 ms</text>") != NULL, "frame: time tick 1 ms");
    ok(strstr(buf, "size &lt;bytes&gt;") != NULL, "frame: escaped axis title");
    ok(strstr(buf, "<title>&lt;b&gt;</title>") != NULL,
       "marker: escaped hover text");
    ok(strstr(buf, "<b>") == NULL && strstr(buf, "</svg>\n") != NULL,
       "frame: nothing unescaped, closed");
    free(buf);
}

int main(void)
{
    test_escape();
    test_format();
    test_ticks();
    test_axis_and_frame();
    return done_testing();
}
