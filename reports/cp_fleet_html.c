/* cp_fleet_html.c - fleet.html (see cp_fleet_html.h): the page around the
 * figures of cp_fleet_html_plots.c, read from the fleet view alone. */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_fleet_html.h"
#include "cp_fleet_html_plots.h"
#include "cp_html.h"
#include "cp_path.h"
#include "cp_svg.h"

/* What fleet.html adds to report.html's stylesheet. */
static const char fleet_css[] =
    ".vw{display:inline-block;font-size:12px;font-weight:700;padding:0 6px;"
    "border-radius:3px;white-space:nowrap}\n"
    "b.cut{color:#9a6700}\n"
    ".jobs{font-size:12px;color:var(--mut)}\n"
    ".pairnav a{display:inline-block;margin:2px 12px 2px 0}\n"
    ".pairplots{display:grid;grid-template-columns:repeat(auto-fill,"
    "minmax(460px,1fr));gap:12px;margin:8px 0}\n"
    /* a link chosen in the list is shown alone, wide; none chosen: all */
    ".pairplots figure:target{outline:3px solid #0072B2}\n"
    ".pairplots:has(figure:target) figure:not(:target){display:none}\n"
    ".pairplots:has(figure:target) figure:target{grid-column:1/-1}\n"
    "dl.rules dt{font-family:ui-monospace,'DejaVu Sans Mono',monospace;"
    "font-weight:600}dl.rules dd{margin:0 0 6px 18px}\n";

/* The links, nodes and ports from the worst: pointers into the view. */
struct ranking {
    const struct fh_link **links;
    const struct fh_node **nodes;
    const struct fh_port **ports;
    size_t bad_links; /* links[0..bad_links) are bad or suspect */
    size_t bad_nodes;
    size_t bad_ports;
};

static int cmp3(long long a, long long b)
{
    return (a < b) - (a > b); /* the larger first */
}

static int compare_links(const void *x, const void *y)
{
    const struct fh_link *a = *(const struct fh_link *const *)x;
    const struct fh_link *b = *(const struct fh_link *const *)y;
    int r = cmp3(a->verdict, b->verdict);

    if (!r)
        r = cmp3(a->jobs_slow, b->jobs_slow);
    if (!r)
        r = cmp3(a->jobs_measured, b->jobs_measured);
    if (!r)
        r = fh_name_cmp(a->nodes[0], b->nodes[0]);
    if (!r)
        r = fh_name_cmp(a->nodes[1], b->nodes[1]);
    return r ? r : (a > b) - (a < b);
}

static int compare_nodes(const void *x, const void *y)
{
    const struct fh_node *a = *(const struct fh_node *const *)x;
    const struct fh_node *b = *(const struct fh_node *const *)y;
    int r = cmp3(a->verdict, b->verdict);

    if (!r)
        r = cmp3(a->jobs_straggler, b->jobs_straggler);
    if (!r)
        r = cmp3(a->users_straggler, b->users_straggler);
    if (!r)
        r = fh_name_cmp(a->node, b->node);
    return r ? r : (a > b) - (a < b);
}

static int compare_ports(const void *x, const void *y)
{
    const struct fh_port *a = *(const struct fh_port *const *)x;
    const struct fh_port *b = *(const struct fh_port *const *)y;
    int r = cmp3(a->verdict, b->verdict);

    if (!r)
        r = cmp3(a->jobs_errors, b->jobs_errors);
    if (!r)
        r = cmp3(a->jobs_slow_rate, b->jobs_slow_rate);
    if (!r)
        r = fh_name_cmp(a->node, b->node);
    if (!r)
        r = fh_name_cmp(a->device, b->device);
    if (!r)
        r = cmp3(b->port, a->port);
    return r ? r : (a > b) - (a < b);
}

static void ranking_free(struct ranking *rk)
{
    free(rk->links);
    free(rk->nodes);
    free(rk->ports);
    memset(rk, 0, sizeof *rk);
}

/* Pointers to n items of size bytes at base, sorted by cmp; the count of
 * those worse than ok (verdict at offset off) in *bad. */
static const void **rank_of(const void *base, size_t n, size_t size,
                            int (*cmp)(const void *, const void *), size_t off,
                            size_t *bad)
{
    const void **p = malloc((n ? n : 1) * sizeof *p);
    size_t i;

    *bad = 0;
    if (!p)
        return NULL;
    for (i = 0; i < n; i++)
        p[i] = (const char *)base + i * size;
    qsort(p, n, sizeof *p, cmp);
    for (i = 0; i < n; i++) {
        enum fh_verdict v;
        memcpy(&v, (const char *)p[i] + off, sizeof v);
        *bad += v >= FH_SUSPECT;
    }
    return p;
}

static int rank(const struct fh_fleet *fl, struct ranking *rk)
{
    memset(rk, 0, sizeof *rk);
    rk->links = (const struct fh_link **)rank_of(
        fl->links, fl->nlinks, sizeof *fl->links, compare_links,
        offsetof(struct fh_link, verdict), &rk->bad_links);
    rk->nodes = (const struct fh_node **)rank_of(
        fl->nodes, fl->nnodes, sizeof *fl->nodes, compare_nodes,
        offsetof(struct fh_node, verdict), &rk->bad_nodes);
    rk->ports = (const struct fh_port **)rank_of(
        fl->ports, fl->nports, sizeof *fl->ports, compare_ports,
        offsetof(struct fh_port, verdict), &rk->bad_ports);
    if (!rk->links || !rk->nodes || !rk->ports) {
        ranking_free(rk);
        return -1;
    }
    return 0;
}

/* ---- the head, the verdict, the summary --------------------------------- */

static void plural(FILE *out, long long n, const char *what)
{
    fprintf(out, "%lld %s%s", n, what, n == 1 ? "" : "s");
}

static void write_head(FILE *out, const struct fh_fleet *fl)
{
    cp_html_head(out, "collprof fleet");
    fputs("<title>collprof fleet: ", out);
    plural(out, fl->summary.bad_links, "bad link");
    fputs(", ", out);
    plural(out, fl->summary.bad_nodes, "bad node");
    fprintf(out, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n",
            cp_html_css, fleet_css);
}

static void write_header(FILE *out, const struct fh_fleet *fl)
{
    fputs("<header>\n<h1>collprof fleet: links and nodes across jobs</h1>\n"
          "<p class=\"sub\">",
          out);
    plural(out, fl->summary.jobs, "job");
    fputs(", ", out);
    plural(out, fl->summary.steps, "step");
    fputs(", ", out);
    plural(out, fl->summary.users, "user");
    if (fl->since) {
        fputs(" since ", out);
        cp_svg_escape(out, fl->since);
    } else {
        fputs(", the whole database", out);
    }
    fputs(" &middot; generated ", out);
    cp_svg_escape(out, fl->generated);
    fputs(" &middot; database <span class=\"mono\">", out);
    cp_svg_escape(out, fl->db);
    fputs("</span></p>\n<nav><a href=\"#summary\">Summary</a><a "
          "href=\"#matrix\">Matrix</a><a href=\"#links\">Links</a><a "
          "href=\"#over-time\">Over time</a><a href=\"#nodes\">Nodes</a><a "
          "href=\"#ports\">Ports</a><a href=\"#rules\">Rules</a></nav>\n"
          "</header>\n",
          out);
}

/* The worst of the fleet in one line: bad before suspect. */
static void write_verdict(FILE *out, const struct fh_fleet *fl)
{
    const struct fh_summary *s = &fl->summary;
    long long bad = s->bad_links + s->bad_nodes + s->bad_ports;
    long long suspect_ports = s->suspect_ports > 0 ? s->suspect_ports : 0;
    long long suspect = s->suspect_links + s->suspect_nodes + suspect_ports;

    fprintf(out, "<div id=\"verdict\" class=\"verdict%s\"><p class=\"head\">",
            bad       ? " critical"
            : suspect ? " warning"
                      : "");
    if (bad || suspect) {
        fputs(bad ? "Bad: " : "Suspect: ", out);
        plural(out, bad ? s->bad_links : s->suspect_links, "link");
        fputs(", ", out);
        plural(out, bad ? s->bad_nodes : s->suspect_nodes, "node");
        if (bad || s->suspect_ports >= 0) {
            fputs(", ", out);
            plural(out, bad ? s->bad_ports : suspect_ports, "port");
        }
    } else {
        fputs(s->jobs ? "No bad or suspect link, node or port"
                      : "No job in the database yet",
              out);
    }
    fputs("</p>\n<p>A link is judged on every job that measured it, a node "
          "on every job it ran; the rules are at the end of the page.</p>"
          "</div>\n",
          out);
}

static void card(FILE *out, long long v, const char *label)
{
    fprintf(out,
            "<div class=\"card\"><div class=\"v\">%lld</div><div "
            "class=\"l\">%s</div></div>\n",
            v, label);
}

static void write_summary(FILE *out, const struct fh_fleet *fl)
{
    const struct fh_summary *s = &fl->summary;

    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n",
          out);
    card(out, s->jobs, "jobs");
    card(out, s->steps, "steps");
    card(out, s->users, "users");
    card(out, s->nodes, "nodes");
    card(out, s->pairs, "node pairs crossed");
    card(out, s->bad_links, "bad links");
    card(out, s->suspect_links, "suspect links");
    card(out, s->bad_nodes, "bad nodes");
    card(out, s->suspect_nodes, "suspect nodes");
    card(out, s->bad_ports, "bad ports");
    if (s->suspect_ports >= 0)
        card(out, s->suspect_ports, "suspect ports");
    fputs("</div>\n</section>\n", out);
}

/* ---- tables ------------------------------------------------------------- */

static void td_num(FILE *out, double v, enum cp_svg_unit unit)
{
    char b[48];

    fprintf(out, "<td class=\"n\">%s</td>",
            cp_svg_format3(v, unit, b, sizeof b));
}

static void td_of(FILE *out, long long part, long long whole)
{
    fprintf(out, "<td class=\"n\">%lld of %lld</td>", part, whole);
}

static void td_text(FILE *out, const char *text)
{
    fputs("<td>", out);
    cp_svg_escape(out, text ? text : "-");
    fputs("</td>", out);
}

static void gbps(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.4g Gb/s", v);
    else
        fputs("n/a", out);
}

/* "job 12.0 (alice)" */
static void job_name(FILE *out, const char *job, const char *step,
                     const char *user)
{
    fputs("<span class=\"mono\">", out);
    cp_svg_escape(out, job);
    fputc('.', out);
    cp_svg_escape(out, step);
    fputs("</span> (", out);
    cp_svg_escape(out, user);
    fputc(')', out);
}

/* Among the n items of size bytes at base that want(), the one that ended
 * latest before item prev (-1: the latest of all), by end time then
 * position; -1 when none is left.  Picks the few jobs a row names
 * without sorting the history. */
static long next_latest(const void *base, size_t n, size_t size,
                        size_t time_off, int (*want)(const void *), long prev)
{
    double pt = INFINITY, best_t = 0;
    long best = -1;
    size_t i;

    if (prev >= 0)
        memcpy(&pt, (const char *)base + (size_t)prev * size + time_off,
               sizeof pt);
    for (i = 0; i < n; i++) {
        const char *item = (const char *)base + i * size;
        double t;
        memcpy(&t, item + time_off, sizeof t);
        if (!want(item) || t > pt || (t == pt && (long)i >= prev))
            continue;
        if (best < 0 || t > best_t || (t == best_t && (long)i > best)) {
            best = (long)i;
            best_t = t;
        }
    }
    return best;
}

static int slow_or_suspect(const void *item)
{
    const struct fh_link_step *p = item;

    return p->mark == FH_SLOW || p->mark == FH_MARK_SUSPECT;
}

static int straggled(const void *item)
{
    return ((const struct fh_node_step *)item)->straggler;
}

/* The steps of a link that found it slow or suspect, the latest first. */
static void link_jobs(FILE *out, const struct fh_link *l)
{
    size_t shown = 0, more = 0;
    long i = -1;

    fputs("<td class=\"jobs\">", out);
    while (shown < FH_JOBS_NAMED &&
           (i = next_latest(l->history, l->nhistory, sizeof *l->history,
                            offsetof(struct fh_link_step, end.t),
                            slow_or_suspect, i)) >= 0) {
        const struct fh_link_step *p = &l->history[i];
        fputs(shown++ ? ", " : "", out);
        job_name(out, p->job, p->step, p->user);
        fprintf(out, " %s", fh_mark_name(p->mark));
    }
    for (i = 0; (size_t)i < l->nhistory; i++)
        more += slow_or_suspect(&l->history[i]);
    more -= shown;
    if (more)
        fprintf(out, " and %zu more", more);
    if (!shown)
        fputs("none", out);
    fputs("</td>", out);
}

static void link_ports(FILE *out, const struct fh_link *l)
{
    size_t i;

    fputs("<td class=\"jobs\">", out);
    for (i = 0; i < l->nports; i++) {
        const struct fh_link_port *p = &l->ports[i];
        fputs(i ? "<br>" : "", out);
        cp_svg_escape(out, p->node);
        fputc(' ', out);
        cp_svg_escape(out, p->device);
        fprintf(out, "/%lld ", p->port);
        gbps(out, p->rate_Gbps);
    }
    fputs(l->nports ? "</td>" : "unknown</td>", out);
}

static void link_row(FILE *out, const struct fh_link *l)
{
    fputs("<tr><td>", out);
    cp_svg_escape(out, l->nodes[0]);
    fputs(" &ndash; ", out);
    cp_svg_escape(out, l->nodes[1]);
    fputs("</td><td>", out);
    fh_badge(out, l->verdict);
    fputs("</td>", out);
    td_of(out, l->jobs_slow, l->jobs_measured);
    fprintf(out, "<td class=\"n\">%lld</td><td class=\"n\">%lld</td>",
            l->jobs_crossed, l->users);
    td_num(out, l->median_efficiency, CP_SVG_PERCENT);
    td_num(out, l->reference_Bps, CP_SVG_BANDWIDTH);
    td_text(out, l->first_slow);
    td_text(out, l->last_slow);
    link_ports(out, l);
    link_jobs(out, l);
    fputs("</tr>\n", out);
}

static void write_links(FILE *out, const struct fh_fleet *fl,
                        const struct ranking *rk)
{
    size_t i, n = rk->bad_links < FH_TABLE_ROWS ? rk->bad_links : FH_TABLE_ROWS;

    fputs("<section id=\"links\">\n<h2>The worst links</h2>\n", out);
    if (n == 0) {
        fprintf(out,
                "<p class=\"empty\">No link is bad or suspect (%zu "
                "link%s known).</p>\n</section>\n",
                fl->nlinks, fl->nlinks == 1 ? "" : "s");
        return;
    }
    fputs("<table id=\"links-table\">\n<tr><th>link</th><th>verdict</th><th "
          "class=\"n\">jobs slow of measured</th><th class=\"n\">jobs "
          "crossed</th><th class=\"n\">users</th><th class=\"n\">median "
          "efficiency</th><th class=\"n\">reference</th><th>first slow</th>"
          "<th>last slow</th><th>ports</th><th>jobs behind it (latest "
          "first)</th></tr>\n",
          out);
    for (i = 0; i < n; i++)
        link_row(out, rk->links[i]);
    if (rk->bad_links > n)
        fprintf(out,
                "<tr class=\"more\"><td colspan=\"11\"><b "
                "class=\"cut\">and %zu more bad or suspect links</b> "
                "(the first %d shown)</td></tr>\n",
                rk->bad_links - n, FH_TABLE_ROWS);
    fprintf(out,
            "</table>\n<p class=\"who\">%zu link%s known, %zu bad or "
            "suspect.</p>\n</section>\n",
            fl->nlinks, fl->nlinks == 1 ? "" : "s", rk->bad_links);
}

/* The steps in which a node straggled, the latest first. */
static void node_jobs(FILE *out, const struct fh_node *nd)
{
    size_t shown = 0, more = 0;
    long i = -1;
    char b[48];

    fputs("<td class=\"jobs\">", out);
    while (shown < FH_JOBS_NAMED &&
           (i = next_latest(nd->history, nd->nhistory, sizeof *nd->history,
                            offsetof(struct fh_node_step, end.t), straggled,
                            i)) >= 0) {
        const struct fh_node_step *p = &nd->history[i];
        fputs(shown++ ? ", " : "", out);
        job_name(out, p->job, p->step, p->user);
        fprintf(out, " %s late",
                cp_svg_format3(p->delay_s, CP_SVG_TIME, b, sizeof b));
    }
    for (i = 0; (size_t)i < nd->nhistory; i++)
        more += nd->history[i].straggler != 0;
    more -= shown;
    if (more)
        fprintf(out, " and %zu more", more);
    if (!shown)
        fputs("none", out);
    fputs("</td>", out);
}

static void node_row(FILE *out, const struct fh_node *nd)
{
    fputs("<tr>", out);
    td_text(out, nd->node);
    fputs("<td>", out);
    fh_badge(out, nd->verdict);
    fputs("</td>", out);
    td_of(out, nd->jobs_straggler, nd->jobs);
    td_of(out, nd->users_straggler, nd->users);
    td_num(out, nd->median_delay_s, CP_SVG_TIME);
    node_jobs(out, nd);
    fputs("</tr>\n", out);
}

static void write_nodes(FILE *out, const struct fh_fleet *fl,
                        const struct ranking *rk)
{
    size_t i, n = rk->bad_nodes < FH_TABLE_ROWS ? rk->bad_nodes : FH_TABLE_ROWS;

    fputs("<section id=\"nodes\">\n<h2>The worst nodes</h2>\n", out);
    if (n == 0) {
        fprintf(out,
                "<p class=\"empty\">No node is bad or suspect (%zu "
                "node%s known).</p>\n</section>\n",
                fl->nnodes, fl->nnodes == 1 ? "" : "s");
        return;
    }
    fputs("<table id=\"nodes-table\">\n<tr><th>node</th><th>verdict</th><th "
          "class=\"n\">jobs as the straggler</th><th class=\"n\">users "
          "whose jobs it slowed</th><th class=\"n\">median delay</th><th>"
          "jobs behind it (latest first)</th></tr>\n",
          out);
    for (i = 0; i < n; i++)
        node_row(out, rk->nodes[i]);
    if (rk->bad_nodes > n)
        fprintf(out,
                "<tr class=\"more\"><td colspan=\"6\"><b "
                "class=\"cut\">and %zu more bad or suspect nodes</b> "
                "(the first %d shown)</td></tr>\n",
                rk->bad_nodes - n, FH_TABLE_ROWS);
    fprintf(out,
            "</table>\n<p class=\"who\">%zu node%s known, %zu bad or "
            "suspect.</p>\n</section>\n",
            fl->nnodes, fl->nnodes == 1 ? "" : "s", rk->bad_nodes);
}

/* A port's counters: "symbol_error 12", the first eight. */
static void port_counters(FILE *out, const struct fh_port *p)
{
    char b[48];
    size_t i;

    fputs("<td class=\"jobs\">", out);
    for (i = 0; i < p->ncounters && i < 8; i++) {
        fputs(i ? ", " : "", out);
        cp_svg_escape(out, p->counters[i].name);
        fprintf(out, " %s",
                isfinite(p->counters[i].value)
                    ? cp_svg_format_count(p->counters[i].value, b, sizeof b)
                    : "n/a");
    }
    if (p->ncounters > 8)
        fprintf(out, " and %zu more", p->ncounters - 8);
    fputs(p->ncounters ? "</td>" : "none</td>", out);
}

static void port_row(FILE *out, const struct fh_port *p)
{
    fputs("<tr>", out);
    td_text(out, p->node);
    td_text(out, p->device);
    fprintf(out, "<td class=\"n\">%lld</td><td>", p->port);
    fh_badge(out, p->verdict);
    fprintf(out, "</td><td class=\"n\">%lld</td>", p->jobs);
    td_of(out, p->jobs_errors, p->jobs);
    td_of(out, p->jobs_slow_rate, p->jobs);
    fputs("<td class=\"n\">", out);
    gbps(out, p->rate_Gbps);
    fputs("</td><td class=\"n\">", out);
    gbps(out, p->peer_rate_Gbps);
    fputs("</td>", out);
    port_counters(out, p);
    fputs("</tr>\n", out);
}

static void write_ports(FILE *out, const struct fh_fleet *fl,
                        const struct ranking *rk)
{
    size_t i, n = fl->nports < FH_PORT_ROWS ? fl->nports : FH_PORT_ROWS;

    fputs("<section id=\"ports\">\n<h2>Ports</h2>\n", out);
    if (n == 0) {
        fputs("<p class=\"empty\">No port snapshot in the database.</p>\n"
              "</section>\n",
              out);
        return;
    }
    fputs("<table id=\"ports-table\">\n<tr><th>node</th><th>device</th><th "
          "class=\"n\">port</th><th>verdict</th><th class=\"n\">jobs</th><th "
          "class=\"n\">jobs with errors</th><th class=\"n\">jobs with a "
          "rate below its peer</th><th class=\"n\">rate</th><th "
          "class=\"n\">peer's rate</th><th>counters</th></tr>\n",
          out);
    for (i = 0; i < n; i++)
        port_row(out, rk->ports[i]);
    if (fl->nports > n)
        fprintf(out,
                "<tr class=\"more\"><td colspan=\"10\"><b "
                "class=\"cut\">and %zu more ports</b> (the worst %d "
                "shown)</td></tr>\n",
                fl->nports - n, FH_PORT_ROWS);
    fprintf(out,
            "</table>\n<p class=\"who\">%zu port%s known, %zu bad or "
            "suspect.</p>\n</section>\n",
            fl->nports, fl->nports == 1 ? "" : "s", rk->bad_ports);
}

static void write_rules(FILE *out, const struct fh_fleet *fl)
{
    size_t i;

    fputs("<section id=\"rules\">\n<h2>Rules</h2>\n", out);
    if (fl->nrules == 0) {
        fputs("<p class=\"empty\">The document states no rule.</p>\n"
              "</section>\n",
              out);
        return;
    }
    fputs("<dl class=\"rules\">\n", out);
    for (i = 0; i < fl->nrules; i++) {
        fputs("<dt>", out);
        cp_svg_escape(out, fl->rules[i].name);
        fputs("</dt><dd>", out);
        cp_svg_escape(out, fl->rules[i].text);
        fputs("</dd>\n", out);
    }
    fputs("</dl>\n</section>\n", out);
}

/* The links with a plot over time: the worst bad or suspect ones. */
static int write_over_time(FILE *out, const struct fh_fleet *fl,
                           const struct ranking *rk)
{
    size_t order[FH_PAIR_PLOTS], i,
        n = rk->bad_links < FH_PAIR_PLOTS ? rk->bad_links : FH_PAIR_PLOTS;

    for (i = 0; i < n; i++)
        order[i] = (size_t)(rk->links[i] - fl->links);
    fputs("<section id=\"over-time\">\n<h2>The worst links over time</h2>\n",
          out);
    if (rk->bad_links > n)
        fprintf(out,
                "<p class=\"who\">The %zu worst of %zu bad or suspect "
                "links.</p>\n",
                n, rk->bad_links);
    if (fh_plot_pairs(out, fl, order, n) < 0)
        return -1;
    fputs("</section>\n", out);
    return 0;
}

static int write_page(FILE *out, const struct fh_fleet *fl,
                      const struct ranking *rk)
{
    write_head(out, fl);
    write_header(out, fl);
    write_verdict(out, fl);
    write_summary(out, fl);
    fputs("<section id=\"matrix\">\n<h2>Node pairs</h2>\n", out);
    if (fh_plot_matrix(out, fl) < 0)
        return -1;
    fputs("</section>\n", out);
    write_links(out, fl, rk);
    if (write_over_time(out, fl, rk) < 0)
        return -1;
    write_nodes(out, fl, rk);
    write_ports(out, fl, rk);
    write_rules(out, fl);
    fputs("<footer>Written by collprof from a fleet document (", out);
    cp_svg_escape(out, fl->schema);
    fputs("; docs/fleet-html.md). Every verdict and count is the "
          "document's; the page only ranks and draws them. Bandwidths use "
          "decimal prefixes (GB/s = 10<sup>9</sup> B/s).</footer>\n"
          "</body>\n</html>\n",
          out);
    return 0;
}

/* The page to out; a failed write is named by `what`. */
static int render(const struct fh_fleet *fl, FILE *out, const char *what,
                  struct cp_error *err)
{
    struct ranking rk;
    int rc = -1;

    if (rank(fl, &rk) < 0)
        return cp_errorf(err, "out of memory ranking the fleet");
    if (write_page(out, fl, &rk) < 0) {
        cp_errorf(err, "out of memory drawing the fleet");
        goto out;
    }
    if (fflush(out) != 0 || ferror(out)) {
        cp_errorf(err, "%s%swriting the page failed", what ? what : "",
                  what ? ": " : "");
        goto out;
    }
    rc = 0;
out:
    ranking_free(&rk);
    return rc;
}

int cp_fleet_html_render(const struct fh_fleet *fl, FILE *out,
                         struct cp_error *err)
{
    return render(fl, out, NULL, err);
}

int cp_fleet_html_write(const char *json_path, const char *html_path,
                        struct cp_error *err)
{
    struct cp_path_out o;
    struct fh_fleet fl;
    int rc = -1;

    memset(&o, 0, sizeof o);
    o.dirfd = -1; /* nothing to discard yet */
    if (cp_fleet_html_view_load(json_path, &fl, err) < 0)
        return -1;
    if (cp_path_create(&o, html_path, CP_PATH_MODE, err) < 0)
        goto out;
    if (render(&fl, o.f, html_path, err) < 0)
        goto out;
    if (cp_path_install(&o, err) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0)
        cp_path_discard(&o);
    cp_fleet_html_view_free(&fl);
    return rc;
}
