/* html.c - report.html rendered from the hand-written report.json cases in
 * tests/reports/cases/<case>/.
 *
 * A case with an `error` file must fail with that message and write
 * nothing.  Every other page gets the structural checks (a complete
 * document, every figure, no element or attribute that could run script or
 * fetch anything, balanced containers) and the case's `expect` lines:
 *   has TEXT            TEXT occurs in the page
 *   not TEXT            it does not
 *   count N TEXT        it occurs exactly N times
 *   order A => B        the first A comes before the first B
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cp_analysis.h"
#include "cp_judge.h"
#include "cp_html.h"
#include "pagecheck.h"
#include "tap.h"

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
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
        buf[fread(buf, 1, (size_t)n, f)] = '\0';
    }
    fclose(f);
    return buf;
}

/* Renders report into a string; *rc gets cp_html_write_json's result. */
static char *render(json_t *report, int *rc, struct cp_error *err,
                    size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    if (!f)
        return NULL;
    memset(err, 0, sizeof *err);
    *rc = cp_html_write_json(report, f, err);
    fclose(f);
    return buf;
}

static void structure(const char *name, const char *page)
{
    static const char *const figures[] = {
        "id=\"fig-time-1\"", "id=\"fig-busbw\"",    "id=\"fig-hist\"",
        "id=\"fig-heatmap\"", "id=\"fig-lateness\"", "id=\"fig-timeline\""};
    char why[200] = "";
    size_t i, len = strlen(page);
    int figs = 1;

    ok(strncmp(page, "<!DOCTYPE html>\n<html lang=\"en\">", 31) == 0 &&
           len > 8 && strcmp(page + len - 8, "</html>\n") == 0,
       "%s: a complete document", name);
    ok(strstr(page, "<meta http-equiv=\"Content-Security-Policy\" "
                    "content=\"default-src 'none'; style-src 'unsafe-inline'; "
                    "img-src data:\">") != NULL,
       "%s: a policy that forbids scripts and requests", name);
    for (i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (!strstr(page, figures[i])) {
            diag("  %s missing", figures[i]);
            figs = 0;
        }
    ok(figs, "%s: every plot's figure", name);
    ok(strstr(page, "id=\"verdict\"") && strstr(page, "id=\"findings\"") &&
           strstr(page, "id=\"summary\"") && strstr(page, "id=\"tables\"") &&
           strstr(page, "id=\"inputs\""),
       "%s: verdict, findings, summary, tables, inputs", name);
    ok(strstr(page, "id=\"verdict\"") < strstr(page, "id=\"findings\"") &&
           strstr(page, "id=\"findings\"") < strstr(page, "id=\"summary\"") &&
           strstr(page, "id=\"summary\"") < strstr(page, "id=\"plots\""),
       "%s: verdict and findings first, then the summary, then plots", name);
    if (!ok(tags_safe(page, why, sizeof why),
            "%s: no script, embed, handler or outside reference", name))
        diag("  %s", why);
    ok(count_of(page, "<figure") == count_of(page, "</figure>") &&
           count_of(page, "<svg") == count_of(page, "</svg>") &&
           count_of(page, "<table") == count_of(page, "</table>") &&
           count_of(page, "<section") == count_of(page, "</section>"),
       "%s: figures, svgs, tables, sections balanced", name);
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
        } else {
            ok(0, "%s: bad expect line '%s'", name, line);
        }
    }
}

static void run_case(const char *dir, const char *name)
{
    char path[8400];
    json_error_t jerr;
    struct cp_error err;
    json_t *report;
    char *page = NULL, *again = NULL, *want = NULL, *expect = NULL;
    size_t len = 0, len2 = 0;
    int rc = 0, rc2 = 0;

    snprintf(path, sizeof path, "%s/%s/report.json", dir, name);
    report = json_load_file(path, JSON_DECODE_ANY, &jerr);
    if (!ok(report != NULL, "%s: report.json loads", name)) {
        diag("  %s: %s", path, jerr.text);
        return;
    }
    snprintf(path, sizeof path, "%s/%s/error", dir, name);
    want = read_text(path);
    page = render(report, &rc, &err, &len);
    if (want) {
        want[strcspn(want, "\n")] = '\0';
        ok(rc == -1, "%s: refused", name);
        is_str(err.text, want, "%s: the message names the key", name);
        is_int(len, 0, "%s: nothing written", name);
        goto out;
    }
    if (!ok(rc == 0 && page, "%s: rendered", name)) {
        diag("  %s", err.text);
        goto out;
    }
    structure(name, page);
    again = render(report, &rc2, &err, &len2);
    ok(rc2 == 0 && again && len2 == len && memcmp(page, again, len) == 0,
       "%s: the same page twice", name);
    snprintf(path, sizeof path, "%s/%s/expect", dir, name);
    expect = read_text(path);
    if (expect)
        expectations(name, page, expect);
    else
        ok(0, "%s: has an expect file", name);
out:
    free(page);
    free(again);
    free(want);
    free(expect);
    json_decref(report);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_cases(void)
{
    char dir[4096], *names[256];
    size_t n = 0, i;
    DIR *d;
    struct dirent *e;

    snprintf(dir, sizeof dir, "%s/tests/reports/cases", srcdir());
    d = opendir(dir);
    if (!ok(d != NULL, "the cases folder %s", dir))
        return;
    while ((e = readdir(d)) != NULL && n < 256)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    ok(n >= 9, "at least 9 cases (%zu)", n);
    for (i = 0; i < n; i++) {
        run_case(dir, names[i]);
        free(names[i]);
    }
}

static void test_errors(void)
{
    struct cp_error err;
    json_t *report;
    char path[4096];
    FILE *full;
    size_t len = 0;
    int rc = 0;
    char *page;

    page = render(NULL, &rc, &err, &len);
    ok(rc == -1 && strstr(err.text, "missing"), "no report: refused (%s)",
       err.text);
    free(page);

    /* a page that cannot be written is an error, not a success */
    snprintf(path, sizeof path, "%s/tests/reports/cases/medium/report.json",
             srcdir());
    report = json_load_file(path, 0, NULL);
    full = fopen("/dev/full", "w");
    if (full && report) {
        memset(&err, 0, sizeof err);
        rc = cp_html_write_json(report, full, &err);
        ok(rc == -1 && strstr(err.text, "writing the page failed"),
           "a full disk: refused (%s)", err.text);
        fclose(full);
    } else {
        ok(1, "# SKIP no /dev/full");
        if (full)
            fclose(full);
    }
    json_decref(report);
}

/* The page of an analysis in memory (cp_analysis_to_json's object, what
 * collprof analyze renders) is the page of that object saved as JSON and
 * loaded back (what collprof report renders): one renderer, reading only
 * the report.  Uses gen_logs when it is built. */
static void test_analysis(void)
{
    const char *bdir = getenv("top_builddir");
    char cmd[8400], dir[] = "/tmp/cp-html-XXXXXX", logs[64];
    const char *paths[2] = {logs, NULL};
    struct cp_analysis_opts opts;
    struct cp_analysis *an = NULL;
    struct cp_error err;
    json_t *report = NULL, *saved = NULL;
    char *a = NULL, *b = NULL, *text = NULL;
    size_t alen = 0, blen = 0;
    int rc = -1, rc2 = -1;
    FILE *f;

    if (!bdir || !mkdtemp(dir)) {
        ok(1, "# SKIP the analysis page: no top_builddir or temp dir");
        return;
    }
    snprintf(logs, sizeof logs, "%s/logs", dir);
    snprintf(cmd, sizeof cmd,
             "'%s/tests/tools/gen_logs' -o '%s' --ranks 8 --ranks-per-node 2 "
             "--steps 5 --pattern mixed --straggler 3=2ms >/dev/null 2>&1",
             bdir, logs);
    if (system(cmd) != 0) {
        ok(1, "# SKIP the analysis page: gen_logs is not built");
        goto out;
    }
    cp_analysis_opts_init(&opts);
    an = cp_analysis_run(paths, &opts, &err);
    if (!ok(an != NULL, "the analysis page: the generated logs analyze")) {
        diag("  %s", err.text);
        goto out;
    }
    report = cp_analysis_to_json(an);
    f = open_memstream(&a, &alen);
    rc = report ? cp_html_write_json(report, f, &err) : -1;
    fclose(f);
    text = report ? json_dumps(report, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                           JSON_REAL_PRECISION(10))
                  : NULL;
    saved = text ? json_loads(text, 0, NULL) : NULL;
    f = open_memstream(&b, &blen);
    rc2 = saved ? cp_html_write_json(saved, f, &err) : -1;
    fclose(f);
    ok(rc == 0 && rc2 == 0,
       "the pages of the object and of its saved JSON are written");
    ok(alen > 0 && alen == blen && memcmp(a, b, alen) == 0,
       "the page of cp_analysis_to_json's object is the page of its JSON");
    ok(a && strstr(a, "look at rank 3 on node"),
       "the analysis' straggler finding is on the page");
    {
        /* per communicator in detail: its plots, under the name the job
         * gave it (the id only in the heading's tooltip) */
        json_t *comms = json_object_get(report, "communicators"), *c;
        size_t i, n = json_array_size(comms), plots = 0, named = 0, good = 0;
        const char *q;
        char want[200];
        for (q = a; q && (q = strstr(q, "id=\"fig-comm-")) != NULL; q++)
            plots++;
        ok(n > 0 && plots == (n < 8 ? n : 8),
           "a time-against-size plot per communicator in detail (%zu of %zu)",
           plots, n);
        ok(a && strstr(a, "id=\"fig-skew-1\""),
           "the first communicator's arrival skew is drawn");
        json_array_foreach(comms, i, c)
        {
            const char *name = json_string_value(json_object_get(c, "name"));
            const char *id = json_string_value(json_object_get(c, "id"));
            if (!name || !name[0] || !id || i >= 8)
                continue;
            named++;
            snprintf(want, sizeof want,
                     "<h4>%s: time against message size</h4>", name);
            good += strstr(a, want) != NULL;
            snprintf(want, sizeof want, "<h4>%s:", id);
            good -= strstr(a, want) != NULL;
        }
        ok(good == named, "plots are headed by the communicators' names, "
                          "not their ids (%zu of %zu)", good, named);
    }
out:
    free(a);
    free(b);
    free(text);
    json_decref(saved);
    json_decref(report);
    cp_analysis_destroy(an);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
}

int main(void)
{
    test_cases();
    test_errors();
    test_analysis();
    return done_testing();
}
