/* cp_html_probe.c - probe.html: a probe.json document (collprof probe's
 * node pairs) as a page of report.html's kind: the verdict, the findings,
 * the node-pair heatmap and the pairs (see cp_html.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cp_html.h"
#include "cp_html_int.h"
#include "cp_svg.h"

/* The pairs, slowest first as probe.json lists them. */
static void write_probe_pairs(FILE *out, const struct rp_report *r)
{
    json_t *pairs = json_object_get(r->topology, "pairs"), *v;
    size_t i, n = json_array_size(pairs);

    fputs("<section id=\"pairs\">\n<h2>Node pairs</h2>\n<table "
          "id=\"probe-pairs\">\n<tr><th>nodes</th><th>state</th>"
          "<th class=\"n\">bandwidth</th><th class=\"n\">efficiency</th>"
          "<th class=\"n\">latency</th><th class=\"n\">message</th>"
          "<th class=\"n\">round</th></tr>\n",
          out);
    json_array_foreach(pairs, i, v)
    {
        json_t *two = json_object_get(v, "nodes");
        const char *state = json_string_value(json_object_get(v, "state"));
        if (i == RP_TABLE_ROWS)
            break;
        fprintf(out, "<tr class=\"%s\"><td>",
                state && strcmp(state, "slow") == 0 ? "slow" : "ok");
        cp_svg_escape(out, rp_list_str(two, 0));
        fputs("&ndash;", out);
        cp_svg_escape(out, rp_list_str(two, 1));
        fputs("</td><td>", out);
        cp_svg_escape(out, state ? state : "");
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "bandwidth_Bps")),
                     CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "efficiency")),
                     CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "latency_s")),
                     CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "bytes")), CP_SVG_SIZE);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rp_number(json_object_get(v, "round")), CP_SVG_COUNT);
        fputs("</td></tr>\n", out);
    }
    if (n > RP_TABLE_ROWS)
        fprintf(out,
                "<tr class=\"more\"><td colspan=\"7\">and %zu more "
                "(all in probe.json)</td></tr>\n",
                n - RP_TABLE_ROWS);
    fputs("</table>\n</section>\n", out);
}

static void write_probe_page(FILE *out, const struct rp_report *r)
{
    json_t *topo = json_object_get(r->root, "topology");
    json_t *run = json_object_get(r->root, "run");
    const struct rp_finding *worst = r->nfindings ? &r->findings[0] : NULL;
    size_t npairs = json_array_size(json_object_get(r->topology, "pairs"));
    const char *src =
        json_string_value(json_object_get(topo, "reference_source"));

    rp_write_head(out, r);
    fputs("<header>\n<h1>collprof probe", out);
    if (r->job_id[0]) {
        fputs(": job ", out);
        cp_svg_escape(out, r->job_id);
    }
    fprintf(out, "</h1>\n<p class=\"sub\">%zu node%s, %zu pair%s", r->nnodes,
            r->nnodes == 1 ? "" : "s", npairs, npairs == 1 ? "" : "s");
    if (json_is_number(json_object_get(run, "rounds"))) {
        fputs(" in ", out);
        cp_svg_value(out, rp_number(json_object_get(run, "rounds")),
                     CP_SVG_COUNT);
        fputs(" rounds", out);
    }
    if (json_is_number(json_object_get(run, "wall_s"))) {
        fputs(" (", out);
        cp_svg_value(out, rp_number(json_object_get(run, "wall_s")),
                     CP_SVG_TIME);
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
    cp_svg_value(out, rp_number(json_object_get(topo, "reference_Bps")),
                 CP_SVG_BANDWIDTH);
    fputs(src && strcmp(src, "profile") == 0 ? " (the profile's)"
                                             : " (the median of the pairs)",
          out);
    fputs("; median latency ", out);
    cp_svg_value(out, rp_number(json_object_get(topo, "median_latency_s")),
                 CP_SVG_TIME);
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
