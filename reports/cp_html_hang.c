/* cp_html_hang.c - report.html's first section when the job hung,
 * deadlocked, mismatched or ended with calls in flight: report.json's `hang`
 * (docs/report-schema.md).  A table of ranks x their last collective per
 * communicator, the ranks waiting grouped by the call they wait in, the
 * culprit highlighted.  The section and its stylesheet are written only
 * when the report has a `hang` object, so other pages do not change.
 * Everything from the report is escaped; its keys are checked in the
 * view (cp_html_view.c), which this file reads.
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

/* "allreduce seq 3 on world" */
static void write_call(FILE *out, const struct rp_hang_call *call)
{
    cp_svg_escape(out, call->op);
    if (call->seq >= 0)
        fprintf(out, " seq %lld", call->seq);
    fputs(" on ", out);
    cp_svg_escape(out, call->communicator);
}

/* Both ranks inside the same call. */
static int same_call(const struct rp_hang_rank *a, const struct rp_hang_rank *b)
{
    return a->in_call && b->in_call &&
           strcmp(a->in_flight.op, b->in_flight.op) == 0 &&
           strcmp(a->in_flight.communicator, b->in_flight.communicator) == 0 &&
           a->in_flight.seq == b->in_flight.seq;
}

/* The ranks waiting, one line per call they wait in. */
static void write_waiting(FILE *out, const struct rp_hang *h)
{
    size_t i, j, n = h->nranks;
    int any = 0;

    for (i = 0; i < n; i++) {
        const struct rp_hang_rank *r = &h->ranks[i];
        size_t count = 0;
        int first = 1;
        if (!r->in_call)
            continue;
        for (j = 0; j < i; j++)
            if (same_call(&h->ranks[j], r))
                break;
        if (j < i)
            continue; /* listed with an earlier rank */
        if (!any)
            fputs("<ul class=\"waiting\">\n", out);
        any = 1;
        fputs("<li>inside ", out);
        write_call(out, &r->in_flight);
        fputs(": rank", out);
        for (j = i; j < n; j++) {
            if (!same_call(&h->ranks[j], r))
                continue;
            count++;
            if (count <= 32)
                fprintf(out, "%s %lld", first ? "" : ",", h->ranks[j].rank);
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
static const struct rp_hang_member *member_of(const struct rp_hang_comm *c,
                                              long long rank)
{
    size_t i;

    for (i = 0; i < c->nmembers; i++)
        if (c->members[i].rank == rank)
            return &c->members[i];
    return NULL;
}

void rp_write_hang(FILE *out, const struct rp_report *r)
{
    const struct rp_hang *h = &r->hang;
    size_t i, j, nr = h->nranks, nc = h->ncomms;

    if (!h->present)
        return;
    fputs("<style>", out);
    fputs(hang_css, out);
    fputs("</style>\n<section id=\"hang\" class=\"hang\">\n<p class=\"head\">",
          out);
    cp_svg_escape(out, h->headline);
    fputs("</p>\n", out);
    write_waiting(out, h);
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
        cp_svg_escape(out, h->comms[j].name);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    for (i = 0; i < nr && i < HANG_MAX_RANKS; i++) {
        const struct rp_hang_rank *rk = &h->ranks[i];
        fprintf(out, "<tr%s><td class=\"n\">%lld</td><td>",
                rk->culprit ? " class=\"culprit\"" : "", rk->rank);
        cp_svg_escape(out, rk->node);
        fputs("</td><td>", out);
        cp_svg_escape(out, rk->where);
        fputs("</td>", out);
        for (j = 0; j < nc && j < HANG_MAX_COMMS; j++) {
            const struct rp_hang_member *m = member_of(&h->comms[j], rk->rank);
            if (!m)
                fputs("<td></td>", out);
            else if (m->last_entered > m->last_finished)
                fprintf(out, "<td class=\"in\">in seq %lld</td>",
                        m->last_entered);
            else if (m->last_finished >= 0)
                fprintf(out, "<td class=\"out\">left seq %lld</td>",
                        m->last_finished);
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
