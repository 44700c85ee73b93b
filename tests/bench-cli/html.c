/* html.c - cp_html_bench_write, the page of collprof bench --report, on
 * documents made by cp_bench_json from imported nccl-tests outputs
 * (tests/bench-cli/data): the page's parts and its policy, one model curve
 * per fitted group, markup in every string of the document escaped, bad
 * documents refused with the key's name before anything is written, a
 * write error reported. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cp_bench_fit.h"
#include "cp_bench_import.h"
#include "cp_bench_out.h"
#include "cp_html_bench.h"
#include "tap.h"

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : ".";
}

/* The bench document of the data files named (NULL-terminated), or NULL. */
static json_t *import_doc(const char *const *files)
{
    struct cp_bench_import_opts io = {.coll = -1,
                                      .link = CP_BENCH_LINK_UNKNOWN};
    struct cp_bench_set set = {0};
    struct cp_bench_import_report rep = {0};
    struct cp_bench_calibration cal = {0};
    struct cp_bench_meta meta = {0};
    struct cp_error err;
    const char *sources[8];
    char paths[8][512];
    json_t *doc = NULL;
    size_t n = 0;

    for (; files[n] && n < 8; n++) {
        snprintf(paths[n], sizeof paths[n], "%s/tests/bench-cli/data/%s",
                 srcdir(), files[n]);
        sources[n] = paths[n];
        if (cp_bench_import_file(paths[n], &io, &set, &rep, &err) < 0) {
            diag("%s", err.text);
            goto out;
        }
    }
    if (cp_bench_calibrate(&set, &cal, &err) < 0)
        goto out;
    meta.sources = sources;
    meta.nsources = n;
    meta.import = &rep;
    meta.generator = "collprof bench test";
    meta.created = "2026-01-02T03:04:05Z";
    doc = cp_bench_json(&set, &cal, &meta);
    cp_bench_calibration_free(&cal);
out:
    cp_bench_set_clear(&set);
    cp_bench_import_report_clear(&rep);
    return doc;
}

/* The page of doc (NULL when refused; *why gets the error). */
static char *render(json_t *doc, char *why, size_t why_size)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    struct cp_error err;
    int rc;

    if (!f)
        return NULL;
    rc = cp_html_bench_write(doc, f, &err);
    fclose(f);
    if (why)
        snprintf(why, why_size, "%s", rc < 0 ? err.text : "");
    if (rc < 0) {
        ok(size == 0, "  ... and nothing written (%zu bytes)", size);
        free(text);
        return NULL;
    }
    return text;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
        n++;
    return n;
}

/* Occurrences of needle between the first `from` and the next `to`. */
static size_t count_between(const char *page, const char *from,
                            const char *to, const char *needle)
{
    const char *a = strstr(page, from), *b = a ? strstr(a + 1, to) : NULL;
    size_t n = 0;
    char *part;

    if (!a || !b)
        return 0;
    part = strndup(a, (size_t)(b - a));
    if (part)
        n = count(part, needle);
    free(part);
    return n;
}

static void test_page(void)
{
    static const char *const files[] = {
        "autodl-2080ti-x2.all_reduce_perf.txt",
        "autodl-2080ti-x2.all_gather_perf.txt", NULL};
    json_t *doc = import_doc(files);
    char *page, *again;
    static const char *const parts[] = {
        "<!DOCTYPE html>", "default-src 'none'", "id=\"summary\"",
        "id=\"fig-time-allreduce\"", "id=\"fig-busbw-allreduce\"",
        "id=\"fig-time-allgather\"", "id=\"fig-busbw-allgather\"",
        "id=\"fig-busbw-all\"", "id=\"fit-table\"", "id=\"link-table\"",
        "2026-01-02T03:04:05Z", "autodl-2080ti-x2.all_gather_perf.txt",
        "T(n) = 2&alpha; + 1 n&beta;", "</html>\n"};
    size_t i;

    if (!ok(doc != NULL, "the 2080 Ti all-reduce and all-gather imported"))
        return;
    page = render(doc, NULL, 0);
    if (!ok(page != NULL, "rendered")) {
        json_decref(doc);
        return;
    }
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
        ok(strstr(page, parts[i]) != NULL, "has '%s'", parts[i]);
    ok(!strstr(page, "<script") && !strstr(page, " src=") &&
           !strstr(page, "href=\"http"),
       "no script, no outside reference");
    is_int(count(page, "<svg class=\"plot\""), 5,
           "five plots: two per collective and the overview");
    is_int(count(page, "<svg class=\"plot\""), count(page, "</svg>") -
                                                  count(page, "<svg width"),
           "every plot closed");
    is_int(count(page, "<figure"), count(page, "</figure>"),
           "figures balanced");
    is_int(count(page, "<section"), count(page, "</section>"),
           "sections balanced");
    is_int(count_between(page, "id=\"fig-time-allreduce\"", "</figure>",
                         "class=\"model\""),
           1, "one model curve in the all-reduce time plot");
    is_int(count_between(page, "id=\"fig-busbw-allreduce\"", "</figure>",
                         "class=\"boundary\""),
           1, "one boundary in its busbw plot");
    again = render(doc, NULL, 0);
    ok(again && strcmp(page, again) == 0, "the same page twice");
    free(again);
    free(page);
    json_decref(doc);
}

/* Three all-reduce tables of 2, 8 and 16 ranks: three groups, three
 * curves, the fit's own group (16 ranks) first. */
static void test_groups(void)
{
    static const char *const files[] = {
        "autodl-2080ti-x2.all_reduce_perf.txt", "aws-p5-h100.all_reduce_perf.txt",
        "gcp-a3mega-h100-2nodes.all_reduce_perf.txt", NULL};
    json_t *doc = import_doc(files);
    char *page;
    const char *legend;

    if (!ok(doc != NULL, "three all-reduce outputs imported"))
        return;
    page = render(doc, NULL, 0);
    if (ok(page != NULL, "rendered")) {
        is_int(count_between(page, "id=\"fig-time-allreduce\"", "</figure>",
                             "class=\"model\""),
               3, "three model curves in the time plot");
        is_int(count_between(page, "id=\"fig-busbw-allreduce\"", "</figure>",
                             "class=\"plateau\""),
               3, "three plateaus in the busbw plot");
        is_int(count(page, "<tr data-op=\"allreduce\""), 3,
               "three rows in the fit table");
        legend = strstr(page, "16 ranks on 2 nodes, inter link");
        ok(legend && strstr(page, "2 ranks on 1 node, intra link") > legend,
           "the 16-rank group (the fit's own) is the first");
    }
    free(page);
    json_decref(doc);
}

static void test_escaping(void)
{
    static const char *const files[] = {"damaged.all_reduce_perf.txt", NULL};
    static const char *const bad = "<script>alert(1)</script>\"'&";
    json_t *doc = import_doc(files), *skipped;
    char *page;

    if (!ok(doc != NULL, "the damaged output imported"))
        return;
    skipped = json_object_get(doc, "skipped_lines");
    ok(json_array_size(skipped) > 0, "it has skipped lines");
    json_object_set_new(json_array_get(skipped, 0), "source", json_string(bad));
    json_object_set_new(json_array_get(skipped, 0), "why", json_string(bad));
    json_array_set_new(json_object_get(doc, "sources"), 0, json_string(bad));
    json_object_set_new(doc, "generator", json_string(bad));
    json_object_set_new(doc, "created", json_string(bad));
    json_object_set_new(json_object_get(json_object_get(doc, "fit"),
                                        "allreduce"),
                        "regime_boundary_from", json_string(bad));
    page = render(doc, NULL, 0);
    if (ok(page != NULL, "rendered with markup in every string")) {
        ok(!strstr(page, "<script") && !strstr(page, "</script"),
           "no '<script' anywhere");
        ok(count(page, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;") >=
               6,
           "the strings escaped where they are shown (%zu times)",
           count(page, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"));
    }
    free(page);
    json_decref(doc);
}

static void refused(json_t *doc, const char *what, const char *key)
{
    char why[512];
    char *page = render(doc, why, sizeof why);

    ok(page == NULL && strstr(why, key) != NULL, "%s: refused, naming '%s' (%s)",
       what, key, why);
    free(page);
    json_decref(doc);
}

static void test_refused(void)
{
    static const char *const files[] = {"autodl-2080ti-x2.all_reduce_perf.txt",
                                        NULL};
    json_t *good = import_doc(files), *d;
    FILE *full;
    struct cp_error err;

    if (!ok(good != NULL, "a document to break"))
        return;
    refused(json_integer(3), "not an object", "not a JSON object");
    d = json_deep_copy(good);
    json_object_set_new(d, "schema", json_string("collprof.report/1"));
    refused(d, "a report.json", "collprof.report/1");
    d = json_deep_copy(good);
    json_object_del(d, "points");
    refused(d, "no points", "'points' is missing");
    d = json_deep_copy(good);
    json_object_set_new(json_array_get(json_object_get(d, "points"), 3),
                        "time_s", json_string("fast"));
    refused(d, "a time as text", "points[3].time_s");
    d = json_deep_copy(good);
    json_object_set_new(json_array_get(json_object_get(d, "points"), 0), "op",
                        json_string("allsum"));
    refused(d, "an unknown collective", "points[0].op");
    d = json_deep_copy(good);
    json_object_set_new(json_object_get(json_object_get(d, "fit"),
                                        "allreduce"),
                        "latency_floor_s", json_string("12us"));
    refused(d, "a floor as text", "fit.allreduce.latency_floor_s");
    d = json_deep_copy(good);
    json_object_set_new(json_object_get(d, "fit"), "<b>x</b>",
                        json_object());
    refused(d, "a fit of no collective", "names no collective");

    /* without a fit: points only */
    d = json_deep_copy(good);
    json_object_del(d, "fit");
    json_object_del(d, "calibration");
    {
        char *page = render(d, NULL, 0);
        ok(page && strstr(page, "No fit: no usable point."),
           "a document without a fit: rendered, saying so");
        free(page);
    }
    json_decref(d);

    full = fopen("/dev/full", "w");
    if (full) {
        int rc = cp_html_bench_write(good, full, &err);
        ok(rc < 0 && strstr(err.text, "writing the page failed"),
           "a full disk: refused (%s)", rc < 0 ? err.text : "");
        fclose(full);
    }
    json_decref(good);
}

int main(void)
{
    test_page();
    test_groups();
    test_escaping();
    test_refused();
    return done_testing();
}
