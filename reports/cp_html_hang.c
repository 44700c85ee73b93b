/* cp_html_hang.c - report.html's first section when the job hung,
 * deadlocked, mismatched or ended with calls in flight: report.json's `hang`
 * (docs/report-schema.md).  A table of ranks x their last collective per
 * communicator, the ranks waiting grouped by the call they wait in, the
 * culprit highlighted.  The section and its stylesheet are written only
 * when the report has a `hang` object, so other pages do not change.
 * Everything from the report is escaped; a key of the wrong type is
 * skipped, never trusted.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cp_html_int.h"
#include "cp_svg.h"

#define HANG_MAX_RANKS 64 /* table rows shown */
#define HANG_MAX_COMMS 24 /* table columns shown */

static const char hang_css[] =
    ".hang{border-left:8px solid var(--crit);background:#fdf1ea;"
    "padding:12px 16px;margin:12px 0}\n.hang .head{font-size:18px;"
    "font-weight:600;margin:0 0 6px}\n.hang tr.culprit td{background:#f8d3bd;"
    "font-weight:600}\n.hang td.in{color:var(--crit)}\n"
    ".hang td.out{color:var(--mut)}\n";

static const char *str_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static long long int_of(json_t *o, const char *key, long long dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

/* "allreduce seq 3 on world" */
static void write_call(FILE *out, json_t *call)
{
    if (!json_is_object(call)) {
        fputs("-", out);
        return;
    }
    cp_svg_escape(out, str_of(call, "op"));
    if (int_of(call, "seq", -1) >= 0)
        fprintf(out, " seq %lld", int_of(call, "seq", -1));
    fputs(" on ", out);
    cp_svg_escape(out, str_of(call, "communicator"));
}

static int same_call(json_t *a, json_t *b)
{
    return json_is_object(a) && json_is_object(b) &&
           strcmp(str_of(a, "op"), str_of(b, "op")) == 0 &&
           strcmp(str_of(a, "communicator"), str_of(b, "communicator")) == 0 &&
           int_of(a, "seq", -1) == int_of(b, "seq", -1);
}

/* The ranks waiting, one line per call they wait in. */
static void write_waiting(FILE *out, json_t *ranks)
{
    size_t i, j, n = json_array_size(ranks);
    json_t *r, *q;
    int any = 0;

    json_array_foreach(ranks, i, r)
    {
        json_t *call = json_object_get(r, "in_flight");
        size_t count = 0;
        int first = 1;
        if (!json_is_object(r) || !json_is_object(call))
            continue;
        for (j = 0; j < i; j++)
            if (same_call(json_object_get(json_array_get(ranks, j),
                                          "in_flight"),
                          call))
                break;
        if (j < i)
            continue; /* listed with an earlier rank */
        if (!any)
            fputs("<ul class=\"waiting\">\n", out);
        any = 1;
        fputs("<li>inside ", out);
        write_call(out, call);
        fputs(": rank", out);
        for (j = i; j < n; j++) {
            q = json_array_get(ranks, j);
            if (!same_call(json_object_get(q, "in_flight"), call))
                continue;
            count++;
            if (count <= 32)
                fprintf(out, "%s %lld", first ? "" : ",", int_of(q, "rank", -1));
            first = 0;
        }
        if (count > 32)
            fprintf(out, " and %zu more", count - 32);
        fprintf(out, " (%zu)</li>\n", count);
    }
    if (any)
        fputs("</ul>\n", out);
}

/* The member entry of global rank `rank` in communicator c, or NULL. */
static json_t *member_of(json_t *c, long long rank)
{
    json_t *m;
    size_t i;

    json_array_foreach(json_object_get(c, "members"), i, m)
        if (int_of(m, "rank", -2) == rank)
            return m;
    return NULL;
}

void rp_write_hang(FILE *out, const struct rp_report *r)
{
    json_t *hang = json_object_get(r->root, "hang");
    json_t *ranks, *comms, *rk, *c;
    size_t i, j, nr, nc;

    if (!json_is_object(hang))
        return;
    ranks = json_object_get(hang, "ranks");
    comms = json_object_get(hang, "communicators");
    nr = json_is_array(ranks) ? json_array_size(ranks) : 0;
    nc = json_is_array(comms) ? json_array_size(comms) : 0;
    fputs("<style>", out);
    fputs(hang_css, out);
    fputs("</style>\n<section id=\"hang\" class=\"hang\">\n<p class=\"head\">",
          out);
    cp_svg_escape(out, str_of(hang, "headline"));
    fputs("</p>\n", out);
    write_waiting(out, ranks);
    if (nr == 0 || nc == 0) {
        fputs("</section>\n", out);
        return;
    }
    fputs("<table class=\"hangtab\">\n<caption>Each rank's last collective "
          "per communicator: <em>in</em> the one it entered and never left, "
          "else the last it left</caption>\n<tr><th>rank</th><th>node</th>"
          "<th>where</th>",
          out);
    for (j = 0; j < nc && j < HANG_MAX_COMMS; j++) {
        fputs("<th>", out);
        cp_svg_escape(out, str_of(json_array_get(comms, j), "name"));
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    json_array_foreach(ranks, i, rk)
    {
        long long g;
        if (i >= HANG_MAX_RANKS)
            break;
        if (!json_is_object(rk))
            continue;
        g = int_of(rk, "rank", -1);
        fprintf(out, "<tr%s><td class=\"n\">%lld</td><td>",
                json_is_true(json_object_get(rk, "culprit")) ? " class=\"culprit\""
                                                             : "",
                g);
        cp_svg_escape(out, str_of(rk, "node"));
        fputs("</td><td>", out);
        cp_svg_escape(out, str_of(rk, "where"));
        fputs("</td>", out);
        for (j = 0; j < nc && j < HANG_MAX_COMMS; j++) {
            json_t *m;
            long long in, left;
            c = json_array_get(comms, j);
            m = member_of(c, g);
            if (!m) {
                fputs("<td></td>", out);
                continue;
            }
            in = int_of(m, "last_entered", -1);
            left = int_of(m, "last_finished", -1);
            if (in > left)
                fprintf(out, "<td class=\"in\">in seq %lld</td>", in);
            else if (left >= 0)
                fprintf(out, "<td class=\"out\">left seq %lld</td>", left);
            else
                fputs("<td class=\"out\">none</td>", out);
        }
        fputs("</tr>\n", out);
    }
    if (nr > HANG_MAX_RANKS)
        fprintf(out, "<tr class=\"more\"><td colspan=\"3\">and %zu more "
                     "ranks (report.json: hang.ranks)</td></tr>\n",
                nr - HANG_MAX_RANKS);
    fputs("</table>\n", out);
    if (nc > HANG_MAX_COMMS)
        fprintf(out, "<p class=\"who\">%zu more communicators in "
                     "report.json (hang.communicators)</p>\n",
                nc - HANG_MAX_COMMS);
    fputs("</section>\n", out);
}
