/* fleet_html.c - fleet.html (reports/cp_fleet_html.c) rendered from the
 * fleet.json cases in tests/reports/fleet/<case>/ by cp_fleet_html_write,
 * as `collprof fleet report` will call it.
 *
 * A case with an `error` file must fail with a message that names the
 * input and holds that text, and must write nothing.  Every other page
 * gets the structural checks (a complete document under a policy that
 * forbids scripts and requests, no tag that runs script or fetches
 * anything, balanced containers, the same page twice), each link's plot
 * over time holds one point per step of its history, and the case's
 * `expect` lines:
 *   has TEXT              TEXT occurs in the page
 *   not TEXT              it does not
 *   count N TEXT          it occurs exactly N times
 *   order A => B          the first A comes before the first B
 *   cell A B VERDICT      the matrix cell of the link A-B is VERDICT's
 *   node N VERDICT        the diagonal cell of node N is VERDICT's
 * Then generated fleets (tests/reports/fleet_gen.py, skipped without
 * python3): 512 nodes in blocks of cells, and 4500 nodes cut to 4096;
 * the input's bounds (its size, the cost of its parse); and the writer's
 * own errors (a link as the output, a full disk).
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_fleet_html.h"
#include "cp_fleet_html_plots.h"
#include "cp_fleet_html_view.h"
#include "cp_svg.h"
#include "pagecheck.h"
#include "tap.h"

static char tmp[] = "/tmp/cp-fleethtml-XXXXXX";

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : ".";
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL)
        buf[fread(buf, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return buf;
}

/* Files in tmp whose name starts with prefix (temporary files left). */
static int files_like(const char *prefix)
{
    DIR *d = opendir(tmp);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

static void structure(const char *name, const char *page)
{
    char why[200] = "";
    size_t len = strlen(page);

    ok(strncmp(page, "<!DOCTYPE html>\n<html lang=\"en\">", 31) == 0 &&
           len > 8 && strcmp(page + len - 8, "</html>\n") == 0,
       "%s: a complete document", name);
    ok(strstr(page, "<meta http-equiv=\"Content-Security-Policy\" "
                    "content=\"default-src 'none'; style-src 'unsafe-inline'; "
                    "img-src data:\">") != NULL,
       "%s: a policy that forbids scripts and requests", name);
    if (!ok(tags_safe(page, why, sizeof why),
            "%s: no script, embed, handler or outside reference", name))
        diag("  %s", why);
    ok(!strstr(page, "http:") && !strstr(page, "https:") &&
           !strstr(page, "url(http"),
       "%s: no address of the network anywhere", name);
    ok(count_of(page, "<figure") == count_of(page, "</figure>") &&
           count_of(page, "<svg") == count_of(page, "</svg>") &&
           count_of(page, "<table") == count_of(page, "</table>") &&
           count_of(page, "<section") == count_of(page, "</section>"),
       "%s: figures, svgs, tables, sections balanced", name);
    ok(strstr(page, "id=\"summary\"") && strstr(page, "id=\"fig-matrix\"") &&
           strstr(page, "id=\"links\"") && strstr(page, "id=\"over-time\"") &&
           strstr(page, "id=\"nodes\"") && strstr(page, "id=\"ports\"") &&
           strstr(page, "id=\"rules\""),
       "%s: summary, matrix, links, over time, nodes, ports, rules", name);
}

/* The rect holding the first `<title>` + key: has class c-VERDICT and
 * VERDICT's fill. */
static int cell_is(const char *page, const char *key, const char *verdict)
{
    static const char *const names[] = {"no_evidence", "ok", "suspect", "bad"};
    char want[96];
    const char *at = strstr(page, key), *rect = NULL, *p;
    int v;

    for (v = 0; v < 4 && strcmp(names[v], verdict) != 0; v++)
        ;
    if (!at || v == 4)
        return 0;
    for (p = page; (p = strstr(p, "<rect")) != NULL && p < at; p++)
        rect = p;
    if (!rect)
        return 0;
    snprintf(want, sizeof want, "class=\"c-%s\" fill=\"%s\"", verdict,
             fh_color((enum fh_verdict)v));
    p = strstr(rect, want);
    return p && p < at;
}

/* "cell A B V" and "node N V": the title text of that cell. */
static void expect_cell(const char *name, const char *page, char *line)
{
    char a[200], b[200], v[32], word[32], ea[400], eb[400], key[900];
    int node = strncmp(line, "node ", 5) == 0;
    char *u;

    if ((node && sscanf(line + 5, "%199s %31s", a, v) != 2) ||
        (!node && sscanf(line + 5, "%199s %199s %31s", a, b, v) != 3)) {
        ok(0, "%s: bad expect line '%s'", name, line);
        return;
    }
    snprintf(word, sizeof word, "%s", v); /* no_evidence: "no evidence" */
    if ((u = strchr(word, '_')) != NULL)
        *u = ' ';
    cp_svg_escape_buf(a, ea, sizeof ea);
    if (node) {
        snprintf(key, sizeof key, "<title>%s (the node): %s,", ea, word);
    } else {
        cp_svg_escape_buf(b, eb, sizeof eb);
        snprintf(key, sizeof key, "<title>%s \xe2\x80\x93 %s: %s link", ea, eb,
                 word);
    }
    ok(cell_is(page, key, v), "%s: the matrix cell of %s%s%s is %s's", name, a,
       node ? "" : "-", node ? "" : b, v);
}

static void expectations(const char *name, const char *page, char *text)
{
    char *line, *save = NULL;

    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (strncmp(line, "has ", 4) == 0) {
            ok(strstr(page, line + 4) != NULL, "%s: has '%s'", name, line + 4);
        } else if (strncmp(line, "not ", 4) == 0) {
            ok(strstr(page, line + 4) == NULL, "%s: no '%s'", name, line + 4);
        } else if (strncmp(line, "count ", 6) == 0) {
            char *rest;
            long want = strtol(line + 6, &rest, 10);
            size_t got = count_of(page, rest + 1);
            if (!ok((long)got == want, "%s: %ld x '%s'", name, want, rest + 1))
                diag("  got %zu", got);
        } else if (strncmp(line, "order ", 6) == 0) {
            char *sep = strstr(line, " => ");
            const char *a, *b;
            if (!sep) {
                ok(0, "%s: bad expect line '%s'", name, line);
                continue;
            }
            *sep = '\0';
            a = strstr(page, line + 6);
            b = strstr(page, sep + 4);
            ok(a && b && a < b, "%s: '%s' before '%s'", name, line + 6,
               sep + 4);
        } else if (strncmp(line, "cell ", 5) == 0 ||
                   strncmp(line, "node ", 5) == 0) {
            expect_cell(name, page, line);
        } else {
            ok(0, "%s: bad expect line '%s'", name, line);
        }
    }
}

/* The steps of l a plot draws: those with an efficiency, or with a
 * bandwidth when none has one; the latest FH_PAIR_POINTS. */
static size_t drawable(const struct fh_link *l)
{
    size_t i, eff = 0, bw = 0, n = l->nhistory;

    for (i = 0; i < n; i++) {
        int timed = isfinite(l->history[i].end.t);
        eff += timed && isfinite(l->history[i].efficiency);
        bw += timed && isfinite(l->history[i].bandwidth_Bps);
    }
    if (n > FH_PAIR_POINTS) /* the fixtures' long histories are full */
        return FH_PAIR_POINTS;
    return eff ? eff : bw;
}

/* The link whose heading opens at h ("A &ndash; B <span"). */
static const struct fh_link *link_at(const struct fh_fleet *fl, const char *h)
{
    char ea[400], eb[400], want[900];
    size_t i;

    for (i = 0; i < fl->nlinks; i++) {
        cp_svg_escape_buf(fl->links[i].nodes[0], ea, sizeof ea);
        cp_svg_escape_buf(fl->links[i].nodes[1], eb, sizeof eb);
        snprintf(want, sizeof want, "%s &ndash; %s <span", ea, eb);
        if (strncmp(h, want, strlen(want)) == 0)
            return &fl->links[i];
    }
    return NULL;
}

/* Each link's plot over time: one point per step of its history. */
static void pair_points(const char *name, const char *page,
                        const struct fh_fleet *fl)
{
    size_t k, plots = 0, good = 0, bad = 0, i;
    char id[32];

    for (i = 0; i < fl->nlinks; i++)
        bad += fl->links[i].verdict >= FH_SUSPECT;
    for (k = 1;; k++) {
        const char *fig, *end, *h, *p;
        const struct fh_link *l;
        size_t points = 0;
        snprintf(id, sizeof id, "id=\"pair-%zu\"", k);
        if (!(fig = strstr(page, id)))
            break;
        plots++;
        end = strstr(fig, "</figure>");
        h = strstr(fig, "<h3>");
        l = h ? link_at(fl, h + 4) : NULL;
        for (p = fig; end && (p = strstr(p, "<title>job ")) && p < end; p++)
            points++;
        if (l && points == drawable(l) && points > 0)
            good++;
        else
            diag("  pair-%zu: %zu points, %zu steps", k, points,
                 l ? drawable(l) : 0);
    }
    is_int(plots, bad < FH_PAIR_PLOTS ? bad : FH_PAIR_PLOTS,
           "%s: a plot over time per bad or suspect link, %d at most", name,
           FH_PAIR_PLOTS);
    ok(good == plots,
       "%s: each plot has a point per step of its link's "
       "history (%zu plots)",
       name, plots);
}

/* The page of path into out; the page's text, NULL on failure. */
static char *page_of(const char *name, const char *path, const char *out)
{
    struct cp_error err;

    memset(&err, 0, sizeof err);
    if (!ok(cp_fleet_html_write(path, out, &err) == 0, "%s: rendered", name)) {
        diag("  %s", err.text);
        return NULL;
    }
    return read_text(out);
}

static void run_page(const char *dir, const char *name, const char *path)
{
    char out[4200], again[4200];
    char *page, *page2 = NULL, *expect = NULL;
    struct fh_fleet fl;
    struct cp_error err;

    snprintf(out, sizeof out, "%s/%s.html", tmp, name);
    snprintf(again, sizeof again, "%s/%s-again.html", tmp, name);
    if (!(page = page_of(name, path, out)))
        return;
    structure(name, page);
    page2 = page_of(name, path, again);
    ok(page2 && strcmp(page, page2) == 0, "%s: the same page twice", name);
    if (ok(cp_fleet_html_view_load(path, &fl, &err) == 0, "%s: the view loads",
           name)) {
        pair_points(name, page, &fl);
        cp_fleet_html_view_free(&fl);
    }
    if (dir) {
        char ep[4200];
        snprintf(ep, sizeof ep, "%s/%s/expect", dir, name);
        expect = read_text(ep);
        if (ok(expect != NULL, "%s: has an expect file", name))
            expectations(name, page, expect);
    }
    free(page);
    free(page2);
    free(expect);
}

static void run_error(const char *name, const char *path, char *want)
{
    char out[4200], prefix[300];
    struct cp_error err;
    struct stat st;
    int rc;

    want[strcspn(want, "\n")] = '\0';
    snprintf(out, sizeof out, "%s/%s.html", tmp, name);
    snprintf(prefix, sizeof prefix, ".%s.html", name);
    memset(&err, 0, sizeof err);
    rc = cp_fleet_html_write(path, out, &err);
    ok(rc == -1, "%s: refused", name);
    if (!ok(strstr(err.text, want) != NULL, "%s: the message says '%s'", name,
            want))
        diag("  got '%s'", err.text);
    ok(strncmp(err.text, path, strlen(path)) == 0, "%s: and names the file",
       name);
    ok(stat(out, &st) < 0 && files_like(prefix) == 0, "%s: nothing written",
       name);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_cases(void)
{
    char dir[4096], path[8400], *names[64];
    size_t n = 0, i;
    DIR *d;
    struct dirent *e;

    snprintf(dir, sizeof dir, "%s/tests/reports/fleet", srcdir());
    d = opendir(dir);
    if (!ok(d != NULL, "the cases folder %s", dir))
        return;
    while ((e = readdir(d)) != NULL && n < 64)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    ok(n >= 10, "at least 10 cases (%zu)", n);
    for (i = 0; i < n; i++) {
        char *want;
        snprintf(path, sizeof path, "%s/%s/error", dir, names[i]);
        want = read_text(path);
        snprintf(path, sizeof path, "%s/%s/fleet.json", dir, names[i]);
        if (want)
            run_error(names[i], path, want);
        else
            run_page(dir, names[i], path);
        free(want);
        free(names[i]);
    }
}

/* A fleet of n nodes from fleet_gen.py; 0 when it could not be made. */
static int generate(size_t n, const char *path)
{
    char cmd[8600];

    snprintf(cmd, sizeof cmd,
             "python3 '%s/tests/reports/fleet_gen.py' %zu '%s' >/dev/null 2>&1",
             srcdir(), n, path);
    return system(cmd) == 0;
}

static void check_has(const char *name, const char *page, const char *text)
{
    ok(page && strstr(page, text) != NULL, "%s: has '%s'", name, text);
}

static void test_generated(void)
{
    char path[4200], out[4200];
    char *page;
    struct stat st;

    snprintf(path, sizeof path, "%s/gen-512.json", tmp);
    if (system("python3 -c '' >/dev/null 2>&1") != 0 || !generate(512, path)) {
        ok(1, "# SKIP generated fleets: python3 is not installed");
        return;
    }
    run_page(NULL, "gen-512", path);
    snprintf(out, sizeof out, "%s/gen-512.html", tmp);
    page = read_text(out);
    if (stat(out, &st) < 0)
        st.st_size = -1;
    ok(st.st_size > 0 && st.st_size < 4000000,
       "512 nodes: the page is under 4 MB (%lld bytes)", (long long)st.st_size);
    check_has("512 nodes", page, "512 nodes, 1024 links.");
    check_has("512 nodes", page, "Each cell is a block of 4 &times; 4 nodes");
    ok(page && !strstr(page, "are not in the matrix"),
       "512 nodes: no node cut from the matrix");
    ok(page && count_of(page, "<rect x=") - count_of(page, "class=\"c-") < 40,
       "512 nodes: only the cells with a link or a node drawn");
    check_has("512 nodes", page,
              "<b class=\"cut\">and 12 more bad or suspect "
              "links</b> (the first 20 shown)");
    check_has("512 nodes", page,
              "<b class=\"cut\">the latest 200 of 300 "
              "steps</b>");
    check_has("512 nodes", page, "<b class=\"cut\">and 462 more ports</b>");
    check_has("512 nodes", page,
              "<b class=\"cut\">and 1 more bad or suspect "
              "nodes</b>");
    free(page);

    snprintf(path, sizeof path, "%s/gen-4500.json", tmp);
    ok(generate(4500, path), "a fleet of 4500 nodes generated");
    run_page(NULL, "gen-4500", path);
    snprintf(out, sizeof out, "%s/gen-4500.html", tmp);
    page = read_text(out);
    check_has("4500 nodes", page,
              "<b class=\"cut\">Cut: 404 of 4500 nodes "
              "are not in the matrix (it holds the first "
              "4096 by name)");
    check_has("4500 nodes", page, "block of 32 &times; 32 nodes");
    check_has("4500 nodes", page, "<title>gpu-1 .. gpu-32 \xe2\x80\x93 ");
    free(page);
}

/* A file of `size` bytes: sparse, or a JSON array of empty objects. */
static int big_file(const char *path, size_t size, int objects)
{
    FILE *f = fopen(path, "w");
    size_t i;
    int rc;

    if (!f)
        return 0;
    if (!objects) {
        rc = ftruncate(fileno(f), (off_t)size) == 0;
    } else {
        fputc('[', f);
        for (i = 1; i + 4 < size; i += 3)
            fputs("{},", f);
        fputs("{}]", f);
        rc = !ferror(f);
    }
    return fclose(f) == 0 && rc;
}

/* The input's bounds: too many bytes (by fstat, nothing read), too costly
 * a parse (counted before jansson builds it). */
static void test_bounds(void)
{
    char in[4200], out[4200];
    struct cp_error err;
    struct stat st;

    snprintf(out, sizeof out, "%s/big.html", tmp);
    snprintf(in, sizeof in, "%s/sparse.json", tmp);
    if (ok(big_file(in, CP_FLEET_HTML_MAX_BYTES + 1, 0),
           "a sparse file of 64 MiB and one byte")) {
        ok(cp_fleet_html_write(in, out, &err) == -1 && strstr(err.text, in),
           "refused by its size, named (%s)", err.text);
        unlink(in);
    }
    snprintf(in, sizeof in, "%s/objects.json", tmp);
    if (ok(big_file(in, 7u << 20, 1), "7 MiB of empty objects")) {
        ok(cp_fleet_html_write(in, out, &err) == -1 &&
               strstr(err.text, "whose parse would take"),
           "refused by the cost of its parse (%s)", err.text);
        unlink(in);
    }
    ok(stat(out, &st) < 0 && files_like(".big.html") == 0,
       "nothing written for either");
}

/* The writer's own refusals: a missing input, an output that is a link
 * (left as it was), a missing directory, a full disk. */
static void test_output(void)
{
    char in[4200], out[4200], target[4200];
    struct fh_fleet fl;
    struct cp_error err;
    FILE *full;
    char *text;

    snprintf(in, sizeof in, "%s/tests/reports/fleet/four-nodes/fleet.json",
             srcdir());
    snprintf(out, sizeof out, "%s/none.html", tmp);
    ok(cp_fleet_html_write("/nonexistent/fleet.json", out, &err) == -1 &&
           strstr(err.text, "/nonexistent/fleet.json"),
       "a missing input: refused, named (%s)", err.text);
    snprintf(target, sizeof target, "%s/target.txt", tmp);
    snprintf(out, sizeof out, "%s/link.html", tmp);
    text = NULL;
    if (symlink(target, out) == 0) {
        FILE *f = fopen(target, "w");
        if (f) {
            fputs("kept\n", f);
            fclose(f);
        }
        ok(cp_fleet_html_write(in, out, &err) == -1 && strstr(err.text, out),
           "an output that is a symbolic link: refused (%s)", err.text);
        text = read_text(target);
        is_str(text, "kept\n", "and the file it points to is untouched");
    } else {
        ok(1, "# SKIP no symbolic link in %s", tmp);
        ok(1, "# SKIP no symbolic link");
    }
    free(text);
    snprintf(out, sizeof out, "%s/no/such/dir/fleet.html", tmp);
    ok(cp_fleet_html_write(in, out, &err) == -1,
       "an output in a missing directory: refused (%s)", err.text);
    full = fopen("/dev/full", "w");
    if (full && cp_fleet_html_view_load(in, &fl, &err) == 0) {
        ok(cp_fleet_html_render(&fl, full, &err) == -1 &&
               strstr(err.text, "writing the page failed"),
           "a full disk: refused (%s)", err.text);
        cp_fleet_html_view_free(&fl);
    } else {
        ok(1, "# SKIP no /dev/full");
    }
    if (full)
        fclose(full);
}

static void test_times(void)
{
    double t = 0;

    ok(fh_time_parse("2026-12-07T10:00:00Z", &t) == 0 && t == 1796637600.0,
       "2026-12-07T10:00:00Z is %.0f s", t);
    ok(fh_time_parse("2026-12-03T12:00:00+01:00", &t) == 0 && t == 1796295600.0,
       "an offset is taken off (%.0f)", t);
    ok(fh_time_parse("1969-12-31T23:59:59Z", &t) == 0 && t == -1.0,
       "before the epoch (%.0f)", t);
    ok(fh_time_parse("2024-02-29T00:00:00.25Z", &t) == 0 && t == 1709164800.25,
       "a leap day and a fraction (%.2f)", t);
    ok(fh_time_parse("2026-12-07 10:00:00", &t) == 0 && t == 1796637600.0 &&
           fh_time_parse("2026-12-07", &t) == 0 && t == 1796601600.0,
       "a space, no zone (UTC), a date alone: as collprof fleet reads them");
    ok(fh_time_parse("2026-12-07T10:00Z", &t) == -1 &&
           fh_time_parse("2026-13-07T10:00:00Z", &t) == -1 &&
           fh_time_parse("2026-12-07T10:00:00Zjunk", &t) == -1 &&
           fh_time_parse("2026-12-07T10:00:00.Z", &t) == -1 &&
           fh_time_parse("2026-12-7", &t) == -1 &&
           fh_time_parse("yesterday", &t) == -1 && fh_time_parse("", &t) == -1,
       "no seconds, month 13, trailing text, empty fraction, a one-digit "
       "day, a word, empty: refused");
}

static void test_names(void)
{
    ok(fh_name_cmp("n2", "n10") < 0 && fh_name_cmp("n10", "n2") > 0,
       "n2 before n10");
    ok(fh_name_cmp("gpu-a9", "gpu-b1") < 0 && fh_name_cmp("n01", "n1") != 0 &&
           fh_name_cmp("n1", "n1") == 0,
       "letters by bytes; n01 and n1 differ; equal names are equal");
}

/* The page and its figures read the view, never the JSON: only
 * cp_fleet_html_view.c uses jansson. */
static void test_view_only(void)
{
    static const char *const files[] = {
        "reports/cp_fleet_html.c", "reports/cp_fleet_html.h",
        "reports/cp_fleet_html_plots.c", "reports/cp_fleet_html_plots.h"};
    char path[4200];
    size_t i;

    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *text;
        snprintf(path, sizeof path, "%s/%s", srcdir(), files[i]);
        text = read_text(path);
        ok(text && !strstr(text, "json_t") && !strstr(text, "jansson") &&
               !strstr(text, "json_object") && !strstr(text, "json_array"),
           "%s reads no JSON (the view does)", files[i]);
        free(text);
    }
}

int main(void)
{
    char cmd[64];

    if (!mkdtemp(tmp))
        skip_all("no temporary directory in /tmp");
    test_times();
    test_names();
    test_view_only();
    test_cases();
    test_generated();
    test_bounds();
    test_output();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        diag("could not remove %s", tmp);
    return done_testing();
}
