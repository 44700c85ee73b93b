/* cp_html_probe.c - probe.html: a probe.json document (collprof probe's
 * node pairs) as a page of report.html's kind: the verdict, the findings,
 * the node-pair heatmap and the pairs (see cp_html.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cp_html.h"
#include "cp_html_int.h"
#include "cp_svg.h"

/* The pairs, slowest first as probe.json lists them. */
static void write_probe_pairs(FILE *out, const struct rp_report *r)
{
    size_t i;

    fputs("<section id=\"pairs\">\n<h2>Node pairs</h2>\n<table "
          "id=\"probe-pairs\">\n<tr><th>nodes</th><th>state</th>"
          "<th class=\"n\">bandwidth</th><th class=\"n\">efficiency</th>"
          "<th class=\"n\">latency</th><th class=\"n\">message</th>"
          "<th class=\"n\">round</th></tr>\n",
          out);
    for (i = 0; i < r->npairs && i < RP_TABLE_ROWS; i++) {
        const struct rp_pair *p = &r->pairs[i];
        fprintf(out, "<tr class=\"%s\"><td>",
                p->state && strcmp(p->state, "slow") == 0 ? "slow" : "ok");
        cp_svg_escape(out, p->nodes[0]);
        fputs("&ndash;", out);
        cp_svg_escape(out, p->nodes[1]);
        fputs("</td><td>", out);
        cp_svg_escape(out, p->state ? p->state : "");
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, p->bandwidth_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, p->efficiency, CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, p->latency_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, p->bytes, CP_SVG_SIZE);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, p->round, CP_SVG_COUNT);
        fputs("</td></tr>\n", out);
    }
    if (r->npairs > RP_TABLE_ROWS)
        fprintf(out,
                "<tr class=\"more\"><td colspan=\"7\">and %zu more "
                "(all in probe.json)</td></tr>\n",
                r->npairs - RP_TABLE_ROWS);
    fputs("</table>\n</section>\n", out);
}

static void write_probe_page(FILE *out, const struct rp_report *r)
{
    const struct rp_finding *worst = r->nfindings ? &r->findings[0] : NULL;
    const struct rp_probe *p = &r->probe;
    size_t npairs = r->npairs;
    const char *src = p->reference_source;

    rp_write_head(out, r);
    fputs("<header>\n<h1>collprof probe", out);
    if (r->job_id[0]) {
        fputs(": job ", out);
        cp_svg_escape(out, r->job_id);
    }
    fprintf(out, "</h1>\n<p class=\"sub\">%zu node%s, %zu pair%s", r->nnodes,
            r->nnodes == 1 ? "" : "s", npairs, npairs == 1 ? "" : "s");
    if (!isnan(p->rounds)) {
        fputs(" in ", out);
        cp_svg_value(out, p->rounds, CP_SVG_COUNT);
        fputs(" rounds", out);
    }
    if (!isnan(p->wall_s)) {
        fputs(" (", out);
        cp_svg_value(out, p->wall_s, CP_SVG_TIME);
        fputs(")", out);
    }
    fputs(" &middot; ", out);
    cp_svg_escape(out, r->generator ? r->generator : "collprof");
    fputs(" &middot; schema ", out);
    cp_svg_escape(out, r->schema);
    fputs("</p>\n<nav><a href=\"#findings\">Findings</a><a href=\"#plots\">"
          "Plots</a><a href=\"#pairs\">Node pairs</a></nav>\n</header>\n",
          out);
    if (worst && worst->sev >= CP_SEVERITY_WARNING) {
        fprintf(out,
                "<section id=\"verdict\" class=\"verdict %s\">\n"
                "<p class=\"head\">%s: ",
                rp_sev_class(worst->sev),
                worst->sev == CP_SEVERITY_CRITICAL ? "Critical" : "Needs attention");
        fprintf(out, "%zu slow link%s</p>\n<p>", r->nfindings,
                r->nfindings == 1 ? "" : "s");
        cp_svg_escape(out, worst->message);
        fputs("</p>\n", out);
    } else {
        fputs(
            "<section id=\"verdict\" class=\"verdict ok\">\n<p class=\"head\">"
            "No slow link</p>\n<p>No pair measured slow.</p>\n",
            out);
    }
    fputs("<p>Reference: ", out);
    cp_svg_value(out, p->reference_Bps, CP_SVG_BANDWIDTH);
    fputs(src && strcmp(src, "profile") == 0 ? " (the profile's)"
                                             : " (the median of the pairs)",
          out);
    fputs("; median latency ", out);
    cp_svg_value(out, p->median_latency_s, CP_SVG_TIME);
    fputs(".</p>\n</section>\n", out);
    rp_write_findings(out, r);
    fputs("<section id=\"plots\">\n<h2>Plots</h2>\n<div class=\"plots\">\n",
          out);
    rp_plot_heatmap(out, r);
    fputs("</div>\n</section>\n", out);
    write_probe_pairs(out, r);
    fputs("<footer>Written by ", out);
    cp_svg_escape(out, r->generator ? r->generator : "collprof");
    fputs(" from probe.json (", out);
    cp_svg_escape(out, r->schema);
    fputs("). Bandwidths use decimal prefixes (MB/s = 10<sup>6</sup> B/s), "
          "sizes binary ones (KiB = 1024 B).</footer>\n</body>\n</html>\n",
          out);
}

int cp_html_probe_write(json_t *doc, FILE *out, struct cp_error *err)
{
    return rp_render(doc, out, err, rp_view_probe, write_probe_page);
}
