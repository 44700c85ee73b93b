/* cp_html.c - report.html from a report object (see cp_html.h).
 *
 * Two passes: rp_view_report() (cp_html_view.c) checks every key the page
 * reads and fills a typed view (cp_html_int.h), failing with the key's name
 * before a byte is written; then the sections are written from the view,
 * top to bottom: hang (cp_html_hang.c), verdict, findings, summary, plots
 * (cp_html_plots.c), tables, inputs.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_html.h"
#include "cp_html_int.h"
#include "cp_kinds.h"
#include "cp_svg.h"

/* ---- writing helpers ------------------------------------------------------ */

/* A list of names or ranks: at most RP_LIST_ITEMS, then "and N more". */
static void write_names(FILE *out, const struct rp_names *l)
{
    size_t i;

    for (i = 0; i < l->n && i < RP_LIST_ITEMS; i++) {
        fputs(i ? ", " : "", out);
        cp_svg_escape(out, l->name[i]);
    }
    if (l->n > RP_LIST_ITEMS)
        fprintf(out, " and %zu more", l->n - RP_LIST_ITEMS);
}

static void write_ranks(FILE *out, const struct rp_ranks *l)
{
    size_t i;

    for (i = 0; i < l->n && i < RP_LIST_ITEMS; i++)
        fprintf(out, "%s%lld", i ? ", " : "", l->rank[i]);
    if (l->n > RP_LIST_ITEMS)
        fprintf(out, " and %zu more", l->n - RP_LIST_ITEMS);
}

/* Name i of a list, NULL past its end. */
static const char *name_at(const struct rp_names *l, size_t i)
{
    return i < l->n ? l->name[i] : NULL;
}

static const char *sev_label(enum cp_severity s)
{
    return s == CP_SEVERITY_CRITICAL  ? "&#x2716; critical"
           : s == CP_SEVERITY_WARNING ? "&#x25B2; warning"
                             : "&#x2139; info";
}

const char *rp_sev_class(enum cp_severity s)
{
    const char *name = cp_severity_name(s);

    return name ? name : cp_severity_name(CP_SEVERITY_INFO);
}

/* ---- head ---------------------------------------------------------------- */

void rp_write_head(FILE *out, const struct rp_report *r)
{
    cp_html_head(out, r->generator);
    fputs("<title>", out);
    cp_svg_escape(out, r->title ? r->title : "collprof report");
    if (r->job_id[0]) {
        fputs(": job ", out);
        cp_svg_escape(out, r->job_id);
        if (r->step_id[0]) {
            fputs(".", out);
            cp_svg_escape(out, r->step_id);
        }
    }
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n",
            cp_html_css);
}

static void write_header(FILE *out, const struct rp_report *r)
{
    fputs("<header>\n<h1>collprof report", out);
    if (r->job_id[0]) {
        fputs(": job ", out);
        cp_svg_escape(out, r->job_id);
        if (r->step_id[0]) {
            fputs(", step ", out);
            cp_svg_escape(out, r->step_id);
        }
    }
    fputs("</h1>\n<p class=\"sub\">", out);
    cp_svg_value(out, r->processes, CP_SVG_COUNT);
    fprintf(out, " rank%s on %zu node%s", r->processes == 1 ? "" : "s",
            r->nnodes, r->nnodes == 1 ? "" : "s");
    fputs(" &middot; ", out);
    cp_svg_escape(out, r->generator ? r->generator : "collprof");
    fputs(" &middot; schema ", out);
    cp_svg_escape(out, r->schema);
    fputs("</p>\n<nav><a href=\"#findings\">Findings</a><a href=\"#summary\">"
          "Summary</a><a href=\"#plots\">Plots</a><a href=\"#tables\">Tables"
          "</a><a href=\"#inputs\">Inputs</a></nav>\n</header>\n",
          out);
}

/* ---- verdict and findings ------------------------------------------------- */

/* The title of a kind (core/cp_kinds.c); NULL for a kind this version
 * does not know (the heading shows the kind itself). */
static const char *kind_title(const char *kind)
{
    enum cp_kind k;

    return cp_kind_from_name(kind, &k) == 0 ? cp_kind_info(k)->title : NULL;
}

/* A what-to-do text of the kinds' table: trusted text, `code` in
 * backquotes becomes a monospace span. */
static void write_todo(FILE *out, const char *todo)
{
    int in_code = 0;

    fputs("<p class=\"sugg\"><b>What to do:</b> ", out);
    for (; *todo; todo++) {
        if (*todo == '`') {
            fputs(in_code ? "</span>" : "<span class=\"mono\">", out);
            in_code = !in_code;
        } else {
            fputc(*todo, out);
        }
    }
    fputs("</p>\n", out);
}

static double ev_num(const struct rp_finding *f, const char *key)
{
    return rp_ev_num(f->evidence, key);
}


/* What to do for the kinds whose advice depends on the evidence (each
 * writes one <p class="sugg">). */

static void suggest_latency_bound(FILE *out, const struct rp_finding *f)
{
    double bucket = ev_num(f, "bucket_bytes");

    fputs("<p class=\"sugg\"><b>What to do:</b> fuse the small calls into "
          "buckets of ",
          out);
    cp_svg_value(out, bucket, CP_SVG_SIZE);
    if (bucket > 25.0 * 1048576) /* never DDP's default or below */
        fprintf(out,
                ": with PyTorch DDP, <span class=\"mono\">"
                "DistributedDataParallel(model, bucket_cap_mb=%.0f)</span>"
                " (the default is 25)",
                ceil(bucket / 1048576.0));
    else if (bucket > 0)
        fputs(": PyTorch DDP's default buckets (<span class=\"mono\">"
              "bucket_cap_mb=25</span>) do this, so check that these "
              "gradients go through DDP rather than one all-reduce per "
              "tensor",
              out);
    fputs("; elsewhere, pack the small tensors into one flat buffer or "
          "issue them inside one <span class=\"mono\">ncclGroupStart()/"
          "ncclGroupEnd()</span>. Expected saving: ",
          out);
    cp_svg_value(out, ev_num(f, "saving_per_step_s"), CP_SVG_TIME);
    fputs(" per step (", out);
    cp_svg_value(out, ev_num(f, "saving_share"), CP_SVG_PERCENT);
    fputs(" of the communication time).</p>\n", out);
}

static void suggest_low_busbw(FILE *out, const struct rp_finding *f)
{
    fputs("<p class=\"sugg\"><b>What to do:</b> measure the link with "
          "nccl-tests on the same nodes (<span class=\"mono\">"
          "all_reduce_perf -b 1M -e 1G -f 2</span>) and compare its busbw "
          "with ",
          out);
    cp_svg_value(out, ev_num(f, "link_bandwidth_Bps"), CP_SVG_BANDWIDTH);
    fputs("; run the job with <span class=\"mono\">NCCL_DEBUG=INFO</span> "
          "and check which transport NCCL chose (NET/IB or NET/Socket).",
          out);
    if (rp_ev_true(f->evidence, "tcp_fallback"))
        fputs(" The rate looks like TCP sockets: check that the "
              "InfiniBand/RoCE plugin loads and that <span class=\"mono\">"
              "NCCL_IB_DISABLE</span>, <span class=\"mono\">NCCL_NET</span>"
              " and <span class=\"mono\">NCCL_SOCKET_IFNAME</span> do not "
              "force sockets.",
              out);
    fputs("</p>\n", out);
}

/* A straggler slow inside its calls (evidence kind "in_call"): the rank's
 * GPU or process; one of a communicator's ranks ("in_call_unresolved"):
 * theirs; else late to arrive: its own work. */
static void suggest_straggler(FILE *out, const struct rp_finding *f)
{
    const char *kind = rp_ev_str(f->evidence, "kind");

    fputs("<p class=\"sugg\"><b>What to do:</b> look at ", out);
    if (kind && strcmp(kind, "in_call_unresolved") == 0) {
        size_t i;
        fputs("the GPUs and processes of ranks ", out);
        for (i = 0; i < f->ranks.n; i++)
            fprintf(out, "%s%lld", i ? ", " : "", f->ranks.rank[i]);
        fputs(": one of them starts its part of every collective late (clocks "
              "and throttling, PCIe or NVLink errors, CPU binding, another "
              "job on the node), which its calls cannot single out; not a "
              "network link.</p>\n",
              out);
        return;
    }
    if (kind && strcmp(kind, "in_call") == 0) {
        if (f->ranks.n)
            fprintf(out, "rank %lld", f->ranks.rank[0]);
        else
            fputs("the slow rank", out);
        if (name_at(&f->nodes, 0)) {
            fputs(" on node ", out);
            cp_svg_escape(out, name_at(&f->nodes, 0));
        }
        fputs(": its collectives take longer by the same amount on every "
              "communicator, intra-node ones included, so the cause is that "
              "rank's GPU or process (clocks and throttling, PCIe or NVLink "
              "errors, CPU binding, another job on the node), not a network "
              "link.</p>\n",
              out);
        return;
    }
    if (f->ranks.n) {
        fprintf(out, "rank %lld", f->ranks.rank[0]);
        if (name_at(&f->nodes, 0)) {
            fputs(" on node ", out);
            cp_svg_escape(out, name_at(&f->nodes, 0));
        }
    } else {
        fputs("the late rank", out);
    }
    fputs(", not at the network: its input pipeline (data-loader workers, "
          "storage), CPU binding, GPU clocks and throttling (<span "
          "class=\"mono\">nvidia-smi -q -d PERFORMANCE</span>), or more "
          "work on that rank than on the others.</p>\n",
          out);
}

static void suggest_slow_link_candidates(FILE *out,
                                         const struct rp_finding *f)
{
    const char *probe = rp_ev_str(f->evidence, "probe");

    fputs("<p class=\"sugg\"><b>What to do:</b> the job's own calls "
          "cannot tell which of the candidate links is slow (one ring "
          "over them runs at its slowest link); measure every pair with "
          "<span class=\"mono\">",
          out);
    cp_svg_escape(out, probe ? probe : "collprof probe");
    fputs("</span> on those nodes.</p>\n", out);
}

static void suggest_slow_link(FILE *out, const struct rp_finding *f)
{
    const char *method = rp_ev_str(f->evidence, "method");

    fputs("<p class=\"sugg\"><b>What to do:</b> check the link between ",
          out);
    if (f->nodes.n >= 2) {
        cp_svg_escape(out, f->nodes.name[0]);
        fputs(" and ", out);
        cp_svg_escape(out, f->nodes.name[1]);
    } else {
        fputs("the nodes named", out);
    }
    fputs(": port state and error counters (<span class=\"mono\">ibstat"
          "</span>, <span class=\"mono\">perfquery</span>), cables and "
          "switch ports",
          out);
    /* a link the probe measured needs no probe to confirm it */
    if (!method || strcmp(method, "probe") != 0)
        fputs("; confirm with <span class=\"mono\">collprof probe</span> "
              "on those nodes",
              out);
    fputs(".</p>\n", out);
}

/* A concrete next step for a finding: the report's own; else written from
 * the evidence for the kinds above; else the kinds' table's text. */
static void write_suggestion(FILE *out, const struct rp_finding *f)
{
    if (f->suggestion) {
        fputs("<p class=\"sugg\"><b>What to do:</b> ", out);
        cp_svg_escape(out, f->suggestion);
        fputs("</p>\n", out);
        return;
    }
    switch (f->kid) {
    case CP_KIND_LATENCY_BOUND:
        suggest_latency_bound(out, f);
        break;
    case CP_KIND_LOW_BUSBW:
        suggest_low_busbw(out, f);
        break;
    case CP_KIND_STRAGGLER:
        suggest_straggler(out, f);
        break;
    case CP_KIND_SLOW_LINK_CANDIDATES:
        suggest_slow_link_candidates(out, f);
        break;
    case CP_KIND_SLOW_LINK:
        suggest_slow_link(out, f);
        break;
    default:
        if (f->kid < CP_KIND_COUNT && cp_kind_info(f->kid)->todo)
            write_todo(out, cp_kind_info(f->kid)->todo);
        break;
    }
}

/* Evidence values by their key's suffix: _s times, _bytes sizes, _Bps
 * bandwidths, share/ratio percentages. */
static enum cp_svg_unit unit_of_key(const char *key)
{
    size_t n = strlen(key);

#define ENDS(s) (n >= sizeof(s) - 1 && strcmp(key + n - (sizeof(s) - 1), s) == 0)
    if (strcmp(key, "bucket_bytes") == 0) /* the analyzer's, in MB */
        return CP_SVG_SIZE_SI;
    if (ENDS("_s"))
        return CP_SVG_TIME;
    if (ENDS("_bytes") || strcmp(key, "bytes") == 0)
        return CP_SVG_SIZE;
    if (ENDS("_Bps"))
        return CP_SVG_BANDWIDTH;
    if (ENDS("share") || ENDS("ratio") || ENDS("efficiency"))
        return CP_SVG_PERCENT;
#undef ENDS
    return CP_SVG_COUNT;
}

/* A key as a label: '_' as blanks, without the unit suffix that the value
 * shows ("busbw_Bps" -> "busbw"). */
static void write_label(FILE *out, const char *key)
{
    static const char *const suffixes[] = {"_Bps", "_bytes", "_s"};
    char buf[96];
    size_t i, n;

    snprintf(buf, sizeof buf, "%s", key);
    n = strlen(buf);
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(buf + n - k, suffixes[i]) == 0) {
            buf[n - k] = '\0';
            break;
        }
    }
    for (i = 0; buf[i]; i++)
        if (buf[i] == '_')
            buf[i] = ' ';
    cp_svg_escape(out, buf);
}

/* A value where the page shows one: a string, yes or no, a number in the
 * unit its key implies, n/a for null, an ellipsis for a list or object
 * (and for a key a row lacks, v NULL). */
static void write_scalar(FILE *out, const char *key, const struct rp_ev *v)
{
    if (!v)
        fputs("&hellip;", out);
    else if (v->type == RP_EV_STRING)
        cp_svg_escape(out, v->str);
    else if (v->type == RP_EV_BOOL)
        fputs(v->yes ? "yes" : "no", out);
    else if (v->type == RP_EV_NUMBER)
        cp_svg_value(out, v->num, unit_of_key(key));
    else if (v->type == RP_EV_NULL)
        fputs("n/a", out);
    else
        fputs("&hellip;", out);
}

/* An array of objects as a small table (at most 10 rows), its columns the
 * first object's keys. */
static void write_object_rows(FILE *out, const struct rp_ev *a)
{
    const struct rp_ev *first = &a->item[0];
    size_t i, k;

    fputs("<table class=\"ev\"><caption>", out);
    write_label(out, a->key);
    fputs("</caption><tr>", out);
    for (k = 0; k < first->n; k++) {
        fputs("<th>", out);
        write_label(out, first->item[k].key);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    for (i = 0; i < a->n && i < 10; i++) {
        fputs("<tr>", out);
        for (k = 0; k < first->n; k++) {
            const char *key = first->item[k].key;
            fputs("<td>", out);
            write_scalar(out, key, rp_ev_get(&a->item[i], key));
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    if (a->n > 10)
        fprintf(out, "<tr class=\"more\"><td colspan=\"%zu\">and %zu more"
                     "</td></tr>\n",
                first->n ? first->n : 1, a->n - 10);
    fputs("</table>\n", out);
}

static int is_rows(const struct rp_ev *v)
{
    return v->type == RP_EV_ARRAY && v->n > 0 &&
           v->item[0].type == RP_EV_OBJECT;
}

/* A list: its items, a pair as a&ndash;b, at most RP_LIST_ITEMS. */
static void write_ev_list(FILE *out, const struct rp_ev *v)
{
    size_t i, j;

    if (v->n == 0)
        fputs("none", out);
    for (i = 0; i < v->n; i++) {
        const struct rp_ev *x = &v->item[i];
        if (i == RP_LIST_ITEMS) {
            fprintf(out, " and %zu more", v->n - RP_LIST_ITEMS);
            break;
        }
        if (i)
            fputs(", ", out);
        if (x->type != RP_EV_ARRAY) {
            write_scalar(out, v->key, x);
            continue;
        }
        for (j = 0; j < x->n; j++) {
            if (j)
                fputs("&ndash;", out);
            write_scalar(out, v->key, &x->item[j]);
        }
    }
}

/* The evidence: scalars as a compact grid of "key value", then arrays of
 * objects as small tables. */
static void write_evidence(FILE *out, const struct rp_ev *ev)
{
    size_t i, k;

    if (!ev || ev->n == 0)
        return;
    fputs("<div class=\"evg\">\n", out);
    for (i = 0; i < ev->n; i++) {
        const struct rp_ev *v = &ev->item[i];
        if (is_rows(v))
            continue;
        fputs("<div><span class=\"k\">", out);
        write_label(out, v->key);
        fputs("</span> ", out);
        if (v->type == RP_EV_ARRAY) {
            write_ev_list(out, v);
        } else if (v->type == RP_EV_OBJECT) {
            for (k = 0; k < v->n; k++) {
                if (k)
                    fputs("; ", out);
                write_label(out, v->item[k].key);
                fputs(": ", out);
                write_scalar(out, v->item[k].key, &v->item[k]);
            }
        } else {
            write_scalar(out, v->key, v);
        }
        fputs("</div>\n", out);
    }
    fputs("</div>\n", out);
    for (i = 0; i < ev->n; i++)
        if (is_rows(&ev->item[i]))
            write_object_rows(out, &ev->item[i]);
}

/* A link class with bandwidth-bound calls and no absolute reference to
 * hold them against (model.CLASS.expected_Bps null). */
static int unjudged_bandwidth(const struct rp_report *r)
{
    size_t i;

    for (i = 0; i < r->nlinks; i++)
        if (r->links[i].bw_calls > 0 && !isfinite(r->links[i].expected_Bps))
            return 1;
    return 0;
}

static void write_verdict(FILE *out, const struct rp_report *r)
{
    const struct rp_finding *worst = r->nfindings ? &r->findings[0] : NULL;
    const struct rp_summary *s = &r->sum;
    size_t i, serious = 0;

    for (i = 0; i < r->nfindings; i++)
        serious += r->findings[i].sev >= CP_SEVERITY_WARNING;
    if (worst && worst->sev >= CP_SEVERITY_WARNING) {
        const char *t = kind_title(worst->kind);
        fprintf(out, "<section id=\"verdict\" class=\"verdict %s\">\n"
                     "<p class=\"head\">%s: ",
                rp_sev_class(worst->sev),
                worst->sev == CP_SEVERITY_CRITICAL ? "Critical" : "Needs attention");
        cp_svg_escape(out, t ? t : worst->kind);
        if (serious > 1)
            fprintf(out, " (and %zu more finding%s to look at)", serious - 1,
                    serious > 2 ? "s" : "");
        fputs("</p>\n<p>", out);
        cp_svg_escape(out, worst->message);
        fputs("</p>\n", out);
    } else if (unjudged_bandwidth(r)) {
        /* not green: what could not be judged is not fine */
        fputs("<section id=\"verdict\" class=\"verdict info\">\n<p "
              "class=\"head\">No problem found in what could be judged; "
              "bandwidth was not: no reference (give --profile, or run "
              "collprof bench / probe)</p>\n",
              out);
    } else {
        fputs("<section id=\"verdict\" class=\"verdict ok\">\n<p class=\"head\">"
              "No problem found",
              out);
        fputs(isfinite(s->latency_bound_share)
                  ? ": bucket sizes and bandwidth look right</p>\n"
                  : " (without a model, regimes and bandwidth were not "
                    "judged)</p>\n",
              out);
    }
    fputs("<p>", out);
    cp_svg_value(out, s->comm_time_s, CP_SVG_TIME);
    fputs(" in NCCL", out);
    if (s->span_s > 0) {
        fputs(" over a ", out);
        cp_svg_value(out, s->span_s, CP_SVG_TIME);
        fputs(" run", out);
    }
    fputs(", plus ", out);
    cp_svg_value(out, s->skew_time_s, CP_SVG_TIME);
    fputs(" waiting for late ranks (arrival skew)", out);
    if (isfinite(s->latency_bound_share)) {
        fputs("; ", out);
        cp_svg_value(out, s->latency_bound_share, CP_SVG_PERCENT);
        fputs(" of the NCCL time is latency-bound", out);
    }
    for (i = 0; i < r->nlinks; i++) {
        const struct rp_link *l = &r->links[i];
        if (!(l->busbw_Bps > 0) || !(l->model_busbw_Bps > 0))
            continue;
        fputs("; ", out);
        cp_svg_escape(out, l->name);
        fputs("-node busbw ", out);
        cp_svg_value(out, l->busbw_Bps, CP_SVG_BANDWIDTH);
        fputs(" (", out);
        cp_svg_value(out, l->busbw_Bps / l->model_busbw_Bps, CP_SVG_PERCENT);
        fputs(" of the model)", out);
    }
    fputs(".</p>\n</section>\n", out);
}

void rp_write_findings(FILE *out, const struct rp_report *r)
{
    size_t i;

    fprintf(out, "<section id=\"findings\">\n<h2>Findings (%zu)</h2>\n",
            r->nfindings);
    if (r->nfindings == 0)
        fputs("<p class=\"empty\">No findings: nothing in this run stood out."
              "</p>\n",
              out);
    for (i = 0; i < r->nfindings; i++) {
        const struct rp_finding *f = &r->findings[i];
        const char *t = kind_title(f->kind);
        fprintf(out,
                "<article class=\"finding %s\" id=\"finding-%zu\">\n<h3>"
                "<span class=\"badge\">%s</span>",
                rp_sev_class(f->sev), i + 1, sev_label(f->sev));
        cp_svg_escape(out, t ? t : f->kind);
        fputs(" <span class=\"kind\">", out);
        cp_svg_escape(out, f->kind);
        fputs("</span></h3>\n<p class=\"msg\">", out);
        cp_svg_escape(out, f->message);
        fputs("</p>\n", out);
        write_suggestion(out, f);
        if (f->nodes.n || f->ranks.n) {
            fputs("<p class=\"who\">", out);
            if (f->nodes.n) {
                fprintf(out, "Node%s: ", f->nodes.n == 1 ? "" : "s");
                write_names(out, &f->nodes);
                fputs(". ", out);
            }
            if (f->ranks.n) {
                fprintf(out, "Rank%s: ", f->ranks.n == 1 ? "" : "s");
                write_ranks(out, &f->ranks);
                fputs(".", out);
            }
            fputs("</p>\n", out);
        }
        write_evidence(out, f->evidence);
        fputs("</article>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---- summary --------------------------------------------------------------- */

static void card_begin(FILE *out)
{
    fputs("<div class=\"card\"><div class=\"v\">", out);
}

static void card_end(FILE *out, const char *label)
{
    fprintf(out, "</div><div class=\"l\">%s</div></div>\n", label);
}

static void write_model_table(FILE *out, const struct rp_report *r)
{
    size_t i;

    if (r->nlinks == 0)
        return;
    fputs("<h3>The model per link class</h3>\n<table>\n<tr><th>link</th>"
          "<th>source</th><th class=\"n\">&alpha; (latency)</th>"
          "<th class=\"n\">bandwidth</th><th class=\"n\">measured busbw</th>"
          "<th class=\"n\">model busbw</th><th class=\"n\">expected</th>"
          "<th>fit</th></tr>\n",
          out);
    for (i = 0; i < r->nlinks; i++) {
        const struct rp_link *l = &r->links[i];
        fputs("<tr><td>", out);
        cp_svg_escape(out, l->name);
        fputs("</td><td>", out);
        cp_svg_escape(out, l->source);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->alpha_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->bandwidth_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->busbw_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->model_busbw_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, l->expected_Bps, CP_SVG_BANDWIDTH);
        if (l->expected_source && isfinite(l->expected_Bps)) {
            fputs(" (", out);
            cp_svg_escape(out, l->expected_source);
            fputs(")", out);
        }
        fputs("</td><td>", out);
        if (l->fit_ok) {
            fputs("r&sup2; ", out);
            fprintf(out, isfinite(l->r2) ? "%.2f" : "n/a", l->r2);
            fputs(", median residual ", out);
            cp_svg_value(out, l->median_rel_residual, CP_SVG_PERCENT);
            fputs(", ", out);
            cp_svg_value(out, l->calls_used, CP_SVG_COUNT);
            fputs(" calls, ", out);
            cp_svg_value(out, l->fit_points_used, CP_SVG_COUNT);
            fputs(" size groups", out);
            if (l->fit_weak) {
                fputs("; <b>weak fit</b>", out);
                if (l->fit_weak_why) {
                    fputs(": ", out);
                    cp_svg_escape(out, l->fit_weak_why);
                }
                fputs(" (shown, never the ground of a warning)", out);
            }
        } else {
            cp_svg_escape(out, l->fit_why ? l->fit_why : "no fit");
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* The part of the run the report covers, when it is not the whole. */
static void write_window(FILE *out, const struct rp_report *r)
{
    const char *by = r->window.by;
    double from = r->window.from_s, to = r->window.to_s;

    if (!r->window.present || strcmp(by, "the whole run") == 0)
        return;
    fputs("<p class=\"window\">This report covers part of the run (", out);
    cp_svg_escape(out, by);
    fputs("): the calls that started ", out);
    if (isfinite(from)) {
        fputs("from ", out);
        cp_svg_value(out, from, CP_SVG_TIME);
        fputs(isfinite(to) ? " " : "", out);
    }
    if (isfinite(to)) {
        fputs("before ", out);
        cp_svg_value(out, to, CP_SVG_TIME);
    }
    fputs(" after the run's first call; ", out);
    cp_svg_value(out, r->window.calls_left_out, CP_SVG_COUNT);
    fputs(" calls outside it were left out.</p>\n", out);
}

static void write_summary(FILE *out, const struct rp_report *r)
{
    const struct rp_summary *s = &r->sum;

    fputs("<section id=\"summary\">\n<h2>Job summary</h2>\n<div class=\"cards\">"
          "\n",
          out);
    card_begin(out);
    cp_svg_value(out, r->processes, CP_SVG_COUNT);
    if (isfinite(r->world_size) && r->world_size != r->processes) {
        fputs(" <span class=\"d\">of ", out);
        cp_svg_value(out, r->world_size, CP_SVG_COUNT);
        fputs("</span>", out);
    }
    card_end(out, "ranks analyzed");
    card_begin(out);
    cp_svg_value(out, (double)r->nnodes, CP_SVG_COUNT);
    card_end(out, "nodes");
    card_begin(out);
    cp_svg_value(out, (double)r->ncomms, CP_SVG_COUNT);
    card_end(out, "communicators");
    card_begin(out);
    cp_svg_value(out, s->calls, CP_SVG_COUNT);
    if (s->failed_calls > 0) {
        fputs(" <span class=\"d\">(", out);
        cp_svg_value(out, s->failed_calls, CP_SVG_COUNT);
        fputs(" failed)</span>", out);
    }
    card_end(out, "NCCL calls");
    card_begin(out);
    cp_svg_value(out, s->instances, CP_SVG_COUNT);
    card_end(out, "collective instances");
    card_begin(out);
    cp_svg_value(out, s->comm_time_s, CP_SVG_TIME);
    if (s->span_s > 0) {
        fputs(" <span class=\"d\">of ", out);
        cp_svg_value(out, s->span_s, CP_SVG_TIME);
        fputs("</span>", out);
    }
    card_end(out, "communication time (own time of the collectives), of the "
                  "run's span");
    card_begin(out);
    cp_svg_value(out, s->skew_time_s, CP_SVG_TIME);
    card_end(out, "arrival skew (waiting for the last rank)");
    card_begin(out);
    cp_svg_value(out, s->latency_bound_share, CP_SVG_PERCENT);
    card_end(out, "latency-bound share of the communication time");
    card_begin(out);
    cp_svg_escape(out, s->timer);
    card_end(out, "timer");
    card_begin(out);
    cp_svg_value(out, s->steps, CP_SVG_COUNT);
    fputs("</div><div class=\"l\">training steps (", out);
    cp_svg_escape(out, s->steps_method);
    fputs(")</div></div>\n", out);
    fputs("</div>\n", out);
    if (s->missing_ranks.n) {
        fputs("<p>Missing ranks (no log): ", out);
        write_ranks(out, &s->missing_ranks);
        fputs(".</p>\n", out);
    }
    write_window(out, r);
    write_model_table(out, r);
    fputs("</section>\n", out);
}

/* ---- tables ---------------------------------------------------------------- */

/* Indices 0..n-1 ordered by key, largest first (NaN last, ties by
 * index).  The caller frees the result; NULL when memory ran out. */
struct keyed {
    double key;
    size_t index;
};

static int compare_desc(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;

    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static size_t *order_by(const double *key, size_t n)
{
    struct keyed *k = malloc((n ? n : 1) * sizeof *k);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), i;

    if (!k || !idx) {
        free(k);
        free(idx);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        k[i].key = isfinite(key[i]) ? key[i] : -INFINITY;
        k[i].index = i;
    }
    qsort(k, n, sizeof *k, compare_desc);
    for (i = 0; i < n; i++)
        idx[i] = k[i].index;
    free(k);
    return idx;
}

/* A collective's name in a table cell, marked when NCCL ran it on the
 * copy engines (path "copy_engine"): a kind of its own, judged on the
 * intra-node model. */
static void write_op(FILE *out, const char *op, const char *path)
{
    cp_svg_escape(out, op);
    if (!path)
        return;
    if (strcmp(path, "copy_engine") == 0) {
        fputs(" <span class=\"ce\" title=\"NCCL ran these calls on the "
              "copy engines: judged on the intra-node model\">copy "
              "engine</span>",
              out);
        return;
    }
    /* a path a newer analyzer names */
    fputs(" <span class=\"ce\">", out);
    cp_svg_escape(out, path);
    fputs("</span>", out);
}

/* Where a skew figure comes from (its `source`), named. */
static void write_skew_source(FILE *out, const char *source)
{
    if (strcmp(source, "host_clock") == 0)
        fputs("the hosts' clocks, offset-corrected: ", out);
    else if (strcmp(source, "kernel_phases") == 0)
        fputs("the kernels' initial-sync phases, each on its GPU's timer: ",
              out);
    fputs("<code>", out);
    cp_svg_escape(out, source);
    fputs("</code>", out);
}

/* The note under a table holding copy-engine rows (any: some row's path). */
static void write_ce_note(FILE *out, int any)
{
    if (any)
        fputs("<p class=\"who\">Rows marked <span class=\"ce\">copy "
              "engine</span> are collectives NCCL ran on the GPUs' copy "
              "engines (NCCL 2.29, profiler plugin API v6 or later) rather "
              "than in its kernels: their data is copied within the node, so "
              "they are judged on the intra-node model whatever the "
              "communicator's link class, apart from the same collective's "
              "kernel calls.</p>\n",
              out);
}

static void write_comm_table(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->ncomms ? r->ncomms : 1) * sizeof *key);
    size_t *idx = NULL, i, shown;
    double rest = 0, total = r->sum.comm_time_s;

    fprintf(out, "<h3>Top communicators by time (%zu in all)</h3>\n",
            r->ncomms);
    if (!key)
        return;
    for (i = 0; i < r->ncomms; i++)
        key[i] = r->comms[i].time_s;
    idx = order_by(key, r->ncomms);
    if (!idx)
        goto out;
    fputs("<table>\n<tr><th>communicator</th><th>id</th><th class=\"n\">ranks"
          "</th><th>nodes</th><th>link</th><th class=\"n\">instances</th>"
          "<th class=\"n\">time</th><th class=\"n\">share</th>"
          "<th class=\"n\">efficiency</th></tr>\n",
          out);
    shown = r->ncomms < RP_TABLE_ROWS ? r->ncomms : RP_TABLE_ROWS;
    for (i = 0; i < r->ncomms; i++) {
        const struct rp_comm *c = &r->comms[idx[i]];
        if (i >= shown) {
            rest += isfinite(c->time_s) ? c->time_s : 0;
            continue;
        }
        fputs("<tr><td>", out);
        cp_svg_escape(out, c->name[0] ? c->name : "(unnamed)");
        fputs("</td><td class=\"mono\">", out);
        cp_svg_escape(out, c->id);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->nranks, CP_SVG_COUNT);
        fprintf(out, "</td><td>%zu", c->nodes.n);
        if (c->nodes.n) {
            fputs(": ", out);
            if (c->nodes.n <= 3) {
                write_names(out, &c->nodes);
            } else {
                cp_svg_escape(out, c->nodes.name[0]);
                fputs(" &hellip; ", out);
                cp_svg_escape(out, c->nodes.name[c->nodes.n - 1]);
            }
        }
        fputs("</td><td>", out);
        cp_svg_escape(out, c->link);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->instances, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->time_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? c->time_s / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, c->bw_time_s > 0 ? c->bw_model_s / c->bw_time_s : NAN,
            CP_SVG_PERCENT);
        fputs("</td></tr>\n", out);
    }
    if (r->ncomms > shown) {
        fprintf(out, "<tr class=\"more\"><td colspan=\"6\">and %zu more "
                     "communicators</td><td class=\"n\">",
                r->ncomms - shown);
        cp_svg_value(out, rest, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? rest / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td></td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"who\">Efficiency: the model's time over the "
          "measured time of the communicator's bandwidth-bound calls (100% = "
          "as fast as the link model; per link class, not per physical "
          "link).</p>\n",
          out);
out:
    free(idx);
    free(key);
}

static void write_row_table(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->nrows ? r->nrows : 1) * sizeof *key);
    size_t *idx = NULL, i, shown;
    double rest = 0, rest_calls = 0, total = r->sum.comm_time_s;
    int any_path = 0;

    fprintf(out, "<h3>Top call buckets by time (%zu buckets of collective, "
                 "communicator and size)</h3>\n",
            r->nrows);
    if (!key)
        return;
    for (i = 0; i < r->nrows; i++)
        key[i] = r->rows[i].time_s;
    idx = order_by(key, r->nrows);
    if (!idx)
        goto out;
    fputs("<table>\n<tr><th>collective</th><th>communicator</th>"
          "<th class=\"n\">ranks</th><th class=\"n\">size</th>"
          "<th class=\"n\">calls</th><th class=\"n\">time</th>"
          "<th class=\"n\">share</th><th class=\"n\">p50</th>"
          "<th class=\"n\">p99</th><th class=\"n\">busbw</th>"
          "<th class=\"n\">model time</th><th class=\"n\">efficiency</th>"
          "<th>regime</th></tr>\n",
          out);
    shown = r->nrows < RP_TABLE_ROWS ? r->nrows : RP_TABLE_ROWS;
    for (i = 0; i < r->nrows; i++) {
        const struct rp_row *w = &r->rows[idx[i]];
        if (i >= shown) {
            rest += isfinite(w->time_s) ? w->time_s : 0;
            rest_calls += isfinite(w->calls) ? w->calls : 0;
            continue;
        }
        any_path |= w->path != NULL;
        fputs("<tr><td>", out);
        write_op(out, w->op, w->path);
        fputs("</td><td>", out);
        cp_svg_escape(out, w->comm_index >= 0
                               ? rp_comm_label(&r->comms[w->comm_index])
                               : w->comm);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->nranks, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        if (w->bucket > 0) {
            cp_svg_value(out, w->bucket, CP_SVG_SIZE);
            fputs("&ndash;", out);
            cp_svg_value(out, 2 * w->bucket, CP_SVG_SIZE);
        } else {
            fputs("0 B", out);
        }
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->calls, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->time_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? w->time_s / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->p50_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->p99_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->busbw_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->model_time_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->efficiency, CP_SVG_PERCENT);
        fputs("</td><td>", out);
        cp_svg_escape(out, w->regime);
        fputs("</td></tr>\n", out);
    }
    if (r->nrows > shown) {
        fprintf(out, "<tr class=\"more\"><td colspan=\"4\">and %zu more "
                     "buckets</td><td class=\"n\">",
                r->nrows - shown);
        cp_svg_value(out, rest_calls, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, rest, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, total > 0 ? rest / total : NAN, CP_SVG_PERCENT);
        fputs("</td><td colspan=\"6\"></td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"who\">Time is each collective's own time "
          "(from the last rank's arrival to completion); model time is the "
          "alpha-beta model's for the same calls; efficiency = model time / "
          "time.</p>\n",
          out);
    write_ce_note(out, any_path);
out:
    free(idx);
    free(key);
}

static void write_rank_table(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->nranks ? r->nranks : 1) * sizeof *key);
    size_t *idx = NULL, i, shown;

    fputs("<h3>The latest ranks (", out);
    cp_svg_value(out, r->total_ranks, CP_SVG_COUNT);
    fputs(" ranks)</h3>\n", out);
    if (!key)
        return;
    for (i = 0; i < r->nranks; i++)
        key[i] = r->ranks[i].late_s;
    idx = order_by(key, r->nranks);
    if (!idx)
        goto out;
    fputs("<table>\n<tr><th class=\"n\">rank</th><th>node</th>"
          "<th class=\"n\">arrived last</th><th class=\"n\">lateness</th>"
          "<th class=\"n\">mean lateness</th><th class=\"n\">calls</th>"
          "<th class=\"n\">time in NCCL</th></tr>\n",
          out);
    shown = r->nranks < 10 ? r->nranks : 10;
    for (i = 0; i < shown; i++) {
        const struct rp_rank *k = &r->ranks[idx[i]];
        fputs("<tr><td class=\"n\">", out);
        cp_svg_value(out, k->rank, CP_SVG_RANK);
        fputs("</td><td>", out);
        cp_svg_escape(out, k->node);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->last_arrivals, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->late_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->last_arrivals > 0 ? k->late_s / k->last_arrivals : NAN,
            CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->calls, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, k->time_s, CP_SVG_TIME);
        fputs("</td></tr>\n", out);
    }
    if (r->total_ranks > (double)shown)
        fprintf(out, "<tr class=\"more\"><td colspan=\"7\">and %.0f more ranks"
                     "</td></tr>\n",
                r->total_ranks - (double)shown);
    fputs("</table>\n<p class=\"who\">Lateness: over the collectives a rank "
          "arrived at last, how long after the rank before it; time in NCCL "
          "includes waiting.</p>\n",
          out);
out:
    free(idx);
    free(key);
}

/* The per-rank figures of rank_summary the page names, in its order. */
static const struct {
    enum rp_figure_id id;
    const char *label;
    enum cp_svg_unit unit;
} rank_figure_labels[] = {
    {RP_FIG_CALLS, "calls", CP_SVG_COUNT},
    {RP_FIG_FAILED, "failed calls", CP_SVG_COUNT},
    {RP_FIG_TIME, "time in NCCL", CP_SVG_TIME},
    {RP_FIG_LAST_ARRIVALS, "arrived last", CP_SVG_COUNT},
    {RP_FIG_LATE, "lateness", CP_SVG_TIME},
    {RP_FIG_IN_CALL_DELAY, "in-call delay", CP_SVG_TIME},
};

/* The first few entries of a worst list: "rank 203 (n25) 1.2 ms, ..." or
 * "n25 1.2 ms, ...", "-" when empty. */
static void write_worst(FILE *out, const struct rp_figure *f,
                        enum rp_worst_list l, enum cp_svg_unit unit)
{
    int nodes = l >= RP_NODES_HIGHEST;
    size_t i, n = f->nworst[l];

    if (n == 0) {
        fputs("-", out);
        return;
    }
    for (i = 0; i < n; i++) {
        const struct rp_worst *v = &f->worst[l][i];
        if (i == 3) {
            fprintf(out, " and %zu more", n - 3);
            break;
        }
        if (i)
            fputs(", ", out);
        if (!nodes) {
            fputs("rank ", out);
            cp_svg_value(out, v->rank, CP_SVG_RANK);
            fputs(" (", out);
        }
        cp_svg_escape(out, v->node);
        fputs(nodes ? " " : ") ", out);
        cp_svg_value(out, v->value, unit);
    }
}

/* A large job's per-rank figures as distributions, with the ranks and
 * nodes at their worst ends (rank_summary). */
static void write_rank_distribution(FILE *out, const struct rp_report *r)
{
    static const struct {
        const char *name;
        enum rp_quantile q;
    } cols[] = {{"min", RP_Q_MIN}, {"p10", RP_Q_P10}, {"p50", RP_Q_P50},
                {"p90", RP_Q_P90}, {"p99", RP_Q_P99}, {"max", RP_Q_MAX}};
    size_t i, k;

    if (!r->has_rank_summary)
        return;
    fputs("<h3 id=\"rank-distribution\">Per-rank figures over ", out);
    cp_svg_value(out, r->total_ranks, CP_SVG_COUNT);
    fputs(" ranks</h3>\n<table>\n<tr><th>figure</th>", out);
    for (k = 0; k < sizeof cols / sizeof cols[0]; k++)
        fprintf(out, "<th class=\"n\">%s</th>", cols[k].name);
    fputs("<th>highest ranks</th><th>lowest ranks</th>"
          "<th>highest nodes (mean of their ranks)</th></tr>\n",
          out);
    for (i = 0; i < sizeof rank_figure_labels / sizeof rank_figure_labels[0];
         i++) {
        enum cp_svg_unit unit = rank_figure_labels[i].unit;
        const struct rp_figure *f = &r->figures[rank_figure_labels[i].id];
        if (!f->present)
            continue;
        fprintf(out, "<tr><td>%s</td>", rank_figure_labels[i].label);
        for (k = 0; k < sizeof cols / sizeof cols[0]; k++) {
            fputs("<td class=\"n\">", out);
            cp_svg_value(out, f->q[cols[k].q], unit);
            fputs("</td>", out);
        }
        fputs("<td>", out);
        write_worst(out, f, RP_HIGHEST, unit);
        fputs("</td><td>", out);
        write_worst(out, f, RP_LOWEST, unit);
        fputs("</td><td>", out);
        write_worst(out, f, RP_NODES_HIGHEST, unit);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"who\">A job of this size has no table of "
          "every rank: each figure is given by its quantiles over the ranks, "
          "with the ranks and nodes at its ends (report.json's rank_summary "
          "lists up to 16 at each end; collprof analyze --all-ranks lists "
          "every rank).</p>\n",
          out);
}

#define RP_COMM_DETAILS 8 /* communicators shown in detail */

/* A communicator's global ranks as ranges ("0-7, 16-23"; -1: not seen). */
static void write_rank_ranges(FILE *out, const struct rp_ranks *ranks)
{
    size_t i, n = ranks->n, shown = 0;
    long long lo = -2, prev = -2;

    for (i = 0; i <= n; i++) {
        long long g = -1;
        if (i < n) {
            g = ranks->rank[i];
            if (g >= 0 && g == prev + 1) {
                prev = g;
                continue;
            }
        }
        if (lo >= 0) {
            if (shown++ == RP_LIST_ITEMS) {
                fputs(", ...", out);
                return;
            }
            fprintf(out, "%s%lld", shown > 1 ? ", " : "", lo);
            if (prev > lo)
                fprintf(out, "-%lld", prev);
        }
        lo = prev = g;
    }
}

/* The largest communicators by time, one by one: who is in it, its skew
 * and its calls by size (time against size, busbw against the model). */
/* A communicator's arrival skew, and its kernels' where the phases have
 * it, as sentences of its paragraph. */
static void write_comm_skew(FILE *out, const struct rp_report *r,
                            const struct rp_comm *c)
{
    fputs(" Arrival skew: median ", out);
    cp_svg_value(out, c->skew_s[0], CP_SVG_TIME);
    fputs(", 90th percentile ", out);
    cp_svg_value(out, c->skew_s[1], CP_SVG_TIME);
    fputs(", 99th ", out);
    cp_svg_value(out, c->skew_s[2], CP_SVG_TIME);
    fputs(", largest ", out);
    cp_svg_value(out, c->skew_s[3], CP_SVG_TIME);
    if (c->skew_source) {
        fputs(" (", out);
        write_skew_source(out, c->skew_source);
        fputs(")", out);
    }
    fputs(".", out);
    if (c->kernel_instances > 0) {
        fputs(" The kernels' own skew, over ", out);
        cp_svg_value(out, c->kernel_instances, CP_SVG_COUNT);
        fputs(" of its instances: median ", out);
        cp_svg_value(out, c->kernel_skew.p50_s, CP_SVG_TIME);
        fputs(", 90th percentile ", out);
        cp_svg_value(out, c->kernel_skew.p90_s, CP_SVG_TIME);
        fputs(", largest ", out);
        cp_svg_value(out, c->kernel_skew.max_s, CP_SVG_TIME);
        if (c->kernel_skew.source) {
            fputs(" (", out);
            write_skew_source(out, c->kernel_skew.source);
            fputs(")", out);
        }
        fputs("; the job's: <a href=\"#kernel-skew\">above</a>.", out);
    } else if (r->phases.present && !r->phases.why) {
        fputs(" The kernels' own skew, over the job's instances: "
              "<a href=\"#kernel-skew\">above</a>.",
              out);
    }
}

/* A communicator's heading and paragraph: ranks, nodes, link, time. */
static void write_comm_head(FILE *out, const struct rp_report *r,
                            const struct rp_comm *c)
{
    fputs("<h3 class=\"comm\" title=\"", out);
    cp_svg_escape(out, c->id);
    fputs("\">", out);
    cp_svg_escape(out, rp_comm_label(c));
    fputs("</h3>\n<p>", out);
    cp_svg_value(out, c->nranks, CP_SVG_COUNT);
    fputs(" ranks on ", out);
    cp_svg_value(out, (double)c->nodes.n, CP_SVG_COUNT);
    fputs(" node(s) (", out);
    cp_svg_escape(out, c->link);
    fputs("); ", out);
    cp_svg_value(out, c->instances, CP_SVG_COUNT);
    fputs(" collectives, ", out);
    cp_svg_value(out, c->time_s, CP_SVG_TIME);
    fputs(" of own time.", out);
    if (c->ranks.n) {
        fputs(" Global ranks: ", out);
        write_rank_ranges(out, &c->ranks);
        fputs(".", out);
    }
    if (c->has_skew)
        write_comm_skew(out, r, c);
    fputs("</p>\n", out);
}

/* The table of communicator ci's (collective, size) rows; whether any
 * row was judged on another path (the copy engine's note follows). */
static int write_comm_rows(FILE *out, const struct rp_report *r, size_t ci)
{
    int any_path = 0;
    size_t j;

    fputs("<table class=\"comm-rows\">\n<tr><th>collective</th>"
          "<th class=\"n\">size</th><th class=\"n\">calls</th>"
          "<th class=\"n\">p50 time</th><th class=\"n\">model time "
          "per call</th><th class=\"n\">busbw</th>"
          "<th class=\"n\">efficiency</th><th class=\"n\">skew per "
          "call</th></tr>\n",
          out);
    for (j = 0; j < r->nrows; j++) {
        const struct rp_row *w = &r->rows[j];
        if (w->comm_index != (long)ci)
            continue;
        any_path |= w->path != NULL;
        fputs("<tr><td>", out);
        write_op(out, w->op, w->path);
        fputs("</td><td class=\"n\">", out);
        if (w->bucket > 0) {
            cp_svg_value(out, w->bucket, CP_SVG_SIZE);
            fputs("&ndash;", out);
            cp_svg_value(out, 2 * w->bucket, CP_SVG_SIZE);
        } else {
            fputs("0 B", out);
        }
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->calls, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->p50_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->calls > 0 ? w->model_time_s / w->calls : NAN,
                     CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->busbw_Bps, CP_SVG_BANDWIDTH);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->efficiency, CP_SVG_PERCENT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, w->calls > 0 ? w->skew_s / w->calls : NAN,
                     CP_SVG_TIME);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    return any_path;
}

static void write_comm_details(FILE *out, const struct rp_report *r)
{
    double *key = malloc((r->ncomms ? r->ncomms : 1) * sizeof *key);
    size_t *idx = NULL, i, shown;

    if (!key || r->ncomms == 0)
        goto out;
    for (i = 0; i < r->ncomms; i++)
        key[i] = r->comms[i].time_s;
    idx = order_by(key, r->ncomms);
    if (!idx)
        goto out;
    shown = r->ncomms < RP_COMM_DETAILS ? r->ncomms : RP_COMM_DETAILS;
    fprintf(out, "<section id=\"communicators\">\n<h2>Communicators in "
                 "detail</h2>\n<p class=\"who\">The %zu communicator%s with "
                 "the most time; hover over a name for its id.</p>\n",
            shown, shown == 1 ? "" : "s");
    for (i = 0; i < shown; i++) {
        write_comm_head(out, r, &r->comms[idx[i]]);
        write_ce_note(out, write_comm_rows(out, r, idx[i]));
        rp_plot_comm(out, r, idx[i], i + 1);
        rp_plot_skew(out, r, idx[i], i + 1);
    }
    fputs("</section>\n", out);
out:
    free(idx);
    free(key);
}

/* One list of report.json `slowest`: each row says where to find the
 * instance in collprof trace (its communicator, sequence and time). */
static void write_slowest_list(FILE *out, const struct rp_instance *list,
                               size_t n, const char *title)
{
    size_t i, shown;
    int any_path = 0;

    if (n == 0)
        return;
    fprintf(out, "<h3>%s</h3>\n", title);
    fputs("<table>\n<tr><th>collective</th><th class=\"n\">size</th>"
          "<th>communicator</th><th class=\"n\">seq</th>"
          "<th class=\"n\">at</th><th class=\"n\">own time</th>"
          "<th class=\"n\">model</th><th class=\"n\">x model</th>"
          "<th class=\"n\">skew</th><th>last to arrive</th>"
          "<th class=\"n\">late by</th><th>in the trace</th></tr>\n",
          out);
    shown = n < RP_TABLE_ROWS ? n : RP_TABLE_ROWS;
    for (i = 0; i < shown; i++) {
        const struct rp_instance *o = &list[i];
        const char *label = o->comm_name && o->comm_name[0] ? o->comm_name
                                                            : o->comm;
        any_path |= o->path != NULL;
        fputs("<tr><td>", out);
        write_op(out, o->op, o->path);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, o->bytes, CP_SVG_SIZE);
        fputs("</td><td title=\"", out);
        cp_svg_escape(out, o->comm);
        fputs("\">", out);
        cp_svg_escape(out, label);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, o->seq, CP_SVG_RANK);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, o->start_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, o->own_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, o->model_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        if (isfinite(o->vs_model))
            fprintf(out, "%.2f", o->vs_model);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, o->skew_s, CP_SVG_TIME);
        fputs("</td><td>", out);
        if (isfinite(o->last_rank)) {
            fputs("rank ", out);
            cp_svg_value(out, o->last_rank, CP_SVG_RANK);
            fputs(" (", out);
            cp_svg_escape(out, o->last_node ? o->last_node : "?");
            fputs(")", out);
        }
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, o->late_by_s, CP_SVG_TIME);
        /* what Perfetto's search and the slice's arguments show */
        fputs("</td><td>", out);
        cp_svg_escape(out, label);
        fprintf(out, " seq %.0f, ts %.0f us</td></tr>\n", o->seq,
                o->start_s * 1e6);
    }
    if (n > shown)
        fprintf(out, "<tr class=\"more\"><td colspan=\"12\">and %zu more in "
                     "report.json</td></tr>\n",
                n - shown);
    fputs("</table>\n", out);
    write_ce_note(out, any_path);
}

/* A row of the tags' table: label is the tag cell's text when the row
 * has no tag value (the other tags, the calls without a tag record). */
static void write_tag_row(FILE *out, const struct rp_tag *o, const char *label,
                          const char *cls)
{
    fprintf(out, "<tr%s><td class=\"n\">", cls);
    if (isfinite(o->tag))
        fprintf(out, "%.0f", o->tag);
    else
        fputs(label, out);
    fputs("</td><td>", out);
    cp_svg_escape(out, o->name ? o->name
                               : isfinite(o->tag) && o->tag == 0
                                     ? "(untagged)"
                                     : "");
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, o->calls, CP_SVG_RANK);
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, o->bytes, CP_SVG_SIZE);
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, o->time_s, CP_SVG_TIME);
    fputs("</td><td class=\"n\">", out);
    if (isfinite(o->time_share))
        fprintf(out, "%.1f%%", 100 * o->time_share);
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, o->busbw_Bps, CP_SVG_BANDWIDTH);
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, o->latency_bound_s, CP_SVG_TIME);
    fputs("</td><td class=\"n\">", out);
    if (isfinite(o->latency_bound_share))
        fprintf(out, "%.0f%%", 100 * o->latency_bound_share);
    fputs("</td></tr>\n", out);
}

/* nccl_profiler.tags: the calls per application tag, or why there are
 * none. */
static void write_tags(FILE *out, const struct rp_report *r)
{
    const struct rp_tags *tg = &r->tags;
    size_t i, shown, n = tg->nrows;

    if (!tg->present)
        return;
    fputs("<h3 id=\"tags\">NCCL time per application tag</h3>\n", out);
    if (!tg->available || n == 0) {
        fputs("<p class=\"who\">No per-tag table: ", out);
        cp_svg_escape(out, tg->why ? tg->why : "no call has a tag");
        fputs(".</p>\n", out);
        return;
    }
    fputs("<table>\n<tr><th>tag</th><th>name</th><th class=\"n\">calls"
          "</th><th class=\"n\">bytes</th><th class=\"n\">time</th>"
          "<th class=\"n\">share of NCCL time</th><th class=\"n\">busbw"
          "</th><th class=\"n\">latency-bound time</th>"
          "<th class=\"n\">latency-bound</th></tr>\n",
          out);
    shown = n < RP_TABLE_ROWS ? n : RP_TABLE_ROWS;
    for (i = 0; i < shown; i++)
        write_tag_row(out, &tg->rows[i], "other", "");
    if (n > shown)
        fprintf(out, "<tr class=\"more\"><td colspan=\"9\">and %zu more in "
                     "report.json</td></tr>\n",
                n - shown);
    if (tg->has_untagged && tg->untagged.calls > 0)
        write_tag_row(out, &tg->untagged, "no tag record", " class=\"more\"");
    fputs("</table>\n<p class=\"who\">", out);
    if (isfinite(tg->tag_records)) {
        cp_svg_value(out, tg->tag_records, CP_SVG_RANK);
        fputs(" tag records joined to calls", out);
        if (isfinite(tg->names_given)) {
            fputs("; ", out);
            cp_svg_value(out, tg->names_given, CP_SVG_RANK);
            fputs(tg->names_given == 1 ? " name" : " names", out);
            fputs(" given", out);
        }
        fputs(". ", out);
    }
    if (tg->has_untagged && tg->untagged.calls > 0)
        fputs("The calls of the row &ldquo;no tag record&rdquo; have none: "
              "a process without a plugin log, or a call the plugin did not "
              "see. ",
              out);
    fputs("The tags are ncclCollConfig_t's "
          "userProfilerTag (NCCL 2.31, profiler plugin API v7); names from "
          "COLLPROF_TAGS or --tags.  Latency-bound: the tag's time in calls "
          "the model calls latency-bound, and its share of the tag's time "
          "in calls that have a model, as in the rows above.</p>\n",
          out);
}

/* The figures of one skew of nccl_profiler.phases as a table row. */
static void write_phase_skew(FILE *out, const char *what,
                             const struct rp_skew_q *q)
{
    fputs("<tr><td>", out);
    fputs(what, out);
    fputs("</td><td>", out);
    if (q->source)
        write_skew_source(out, q->source);
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, q->p50_s, CP_SVG_TIME);
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, q->p90_s, CP_SVG_TIME);
    fputs("</td><td class=\"n\">", out);
    cp_svg_value(out, q->max_s, CP_SVG_TIME);
    fputs("</td></tr>\n", out);
}

/* The global rank's entry of `ranks`, NULL when the report lists none. */
static const struct rp_rank *rank_entry(const struct rp_report *r, double rank)
{
    size_t i;

    for (i = 0; i < r->nranks; i++)
        if (r->ranks[i].rank == rank)
            return &r->ranks[i];
    return NULL;
}

/* Whether a straggler finding names the global rank. */
static int named_straggler(const struct rp_report *r, double rank)
{
    size_t i, j;

    for (i = 0; i < r->nfindings; i++) {
        const struct rp_finding *f = &r->findings[i];
        if (f->kid != CP_KIND_STRAGGLER)
            continue;
        for (j = 0; j < f->ranks.n; j++)
            if ((double)f->ranks.rank[j] == rank)
                return 1;
    }
    return 0;
}

/* nccl_profiler.phases: the kernels' own last-arrival skew beside the
 * hosts' of the same instances, and the ranks that came last by the
 * kernels.  Nothing without the section, or when the plugin read no
 * initial-sync phase at all (API v6 or older: the tags' table says so). */
static void write_phases(FILE *out, const struct rp_report *r)
{
    const struct rp_phases *ph = &r->phases;
    size_t i;

    if (!ph->present || (ph->why && !(ph->records > 0)))
        return;
    fputs("<h3 id=\"kernel-skew\">Arrival skew by the kernels' own "
          "clocks</h3>\n",
          out);
    if (ph->why) {
        fputs("<p class=\"who\">No kernel skew: ", out);
        cp_svg_escape(out, ph->why);
        fputs(".</p>\n", out);
        return;
    }
    fputs("<p>Over ", out);
    cp_svg_value(out, ph->instances, CP_SVG_RANK);
    fputs(" collective instances with the initial-sync phase of two members "
          "or more (",
          out);
    cp_svg_value(out, ph->records, CP_SVG_RANK);
    fputs(" phase records", out);
    if (ph->damaged > 0) {
        fputs(", ", out);
        cp_svg_value(out, ph->damaged, CP_SVG_RANK);
        fputs(" damaged left out", out);
    }
    fputs("):</p>\n<table>\n<tr><th>last-arrival skew</th><th>source</th>"
          "<th class=\"n\">median</th><th class=\"n\">90th percentile</th>"
          "<th class=\"n\">largest</th></tr>\n",
          out);
    write_phase_skew(out, "the kernels'", &ph->skew);
    write_phase_skew(out, "the hosts', same instances", &ph->host_skew);
    write_phase_skew(out, "|kernels' &minus; hosts'| per instance",
                     &ph->difference);
    fputs("</table>\n<p class=\"who\">A kernel's initial-sync phase is "
          "the time it waited for its peers' kernels: the rank whose kernel "
          "waited least came last.  Each wait is read on one GPU's timer, so "
          "no clock offset between nodes enters the kernels' figure; where "
          "it disagrees with the hosts', doubt the hosts' clock correction "
          "first.  The communicators' skew and the straggler finding stay "
          "the hosts'.</p>\n",
          out);
    if (ph->nlast == 0)
        return;
    fputs("<table>\n<tr><th class=\"n\">rank</th><th>node</th>"
          "<th class=\"n\">last by the kernels</th><th class=\"n\">late "
          "by</th><th class=\"n\">mean late by</th><th class=\"n\">last "
          "by the hosts</th><th>straggler finding</th></tr>\n",
          out);
    for (i = 0; i < ph->nlast; i++) {
        const struct rp_phase_rank *p = &ph->last[i];
        const struct rp_rank *k = rank_entry(r, p->rank);
        fputs("<tr><td class=\"n\">", out);
        cp_svg_value(out, p->rank, CP_SVG_RANK);
        fputs("</td><td>", out);
        if (k)
            cp_svg_escape(out, k->node);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, p->last_arrivals, CP_SVG_COUNT);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out, p->late_s, CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        cp_svg_value(out,
                     p->last_arrivals > 0 ? p->late_s / p->last_arrivals : NAN,
                     CP_SVG_TIME);
        fputs("</td><td class=\"n\">", out);
        if (k)
            cp_svg_value(out, k->last_arrivals, CP_SVG_COUNT);
        fputs("</td><td>", out);
        fputs(named_straggler(r, p->rank) ? "names it" : "", out);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"who\">The ranks that came last most often "
          "by the kernels' phases: at each such instance its kernel waited "
          "least, late by the next-least wait minus its own.  Last by the "
          "hosts: the same rank's last arrivals on the hosts' clocks "
          "(<code>ranks</code>; empty when the report does not list the "
          "rank).</p>\n",
          out);
}

static void write_slowest(FILE *out, const struct rp_report *r)
{
    if (!r->has_slowest)
        return;
    write_slowest_list(out, r->slowest[0], r->nslowest[0],
                       "The slowest collectives (own time: last arrival to "
                       "last end)");
    write_slowest_list(out, r->slowest[1], r->nslowest[1],
                       "The collectives that waited longest for a rank "
                       "(arrival skew)");
    fputs("<p class=\"who\">Each row is one collective instance; "
          "<code>collprof trace</code> draws it as slices with that "
          "communicator and <code>seq</code> in their arguments, from "
          "<code>ts</code> (microseconds since the run's first call) on "
          "every rank's lane, with a flow from the rank that arrived "
          "last.</p>\n",
          out);
}

static void write_inputs(FILE *out, const struct rp_report *r)
{
    const struct rp_inputs *in = &r->inputs;
    size_t count[RP_INPUT_STATUSES + 1] = {0}, i, k;
    double np;

    fputs("<section id=\"inputs\">\n<h2>Inputs</h2>\n", out);
    if (!in->present) {
        fputs("<p class=\"empty\">The report lists no inputs.</p>\n"
              "</section>\n",
              out);
        return;
    }
    for (i = 0; i < in->nfiles; i++) {
        for (k = 0; k < RP_INPUT_STATUSES; k++)
            if (strcmp(in->files[i].status, rp_input_status[k]) == 0)
                break;
        count[k]++;
    }
    if (in->has_summary) {
        /* a large job: the files listed are only those that need a look */
        fputs("<p>", out);
        cp_svg_value(out, in->files_total, CP_SVG_COUNT);
        fputs(" log files:", out);
        for (k = 0; k < RP_INPUT_STATUSES; k++) {
            if (in->status[k] > 0) {
                fputc(' ', out);
                cp_svg_value(out, in->status[k], CP_SVG_COUNT);
                fprintf(out, " %s;", rp_input_status[k]);
            }
        }
        fputs(" report.json lists the ", out);
        cp_svg_value(out, in->listed, CP_SVG_COUNT);
        fputs(" that need a look;", out);
    } else {
        fprintf(out, "<p>%zu log file%s:", in->nfiles,
                in->nfiles == 1 ? "" : "s");
        for (k = 0; k <= RP_INPUT_STATUSES; k++)
            if (count[k])
                fprintf(out, " %zu %s;", count[k],
                        k < RP_INPUT_STATUSES ? rp_input_status[k] : "other");
    }
    np = in->has_summary ? in->problems_total : NAN;
    if (!(np >= 0))
        np = (double)in->nproblems;
    fprintf(out, " %.0f problem%s.</p>\n", np, np == 1 ? "" : "s");
    if (in->nproblems) {
        fputs("<table>\n<tr><th>file</th><th class=\"n\">offset</th>"
              "<th>problem</th></tr>\n",
              out);
        for (i = 0; i < in->nproblems && i < RP_PROBLEMS; i++) {
            const struct rp_input_problem *p = &in->problems[i];
            fputs("<tr><td class=\"mono\">", out);
            cp_svg_escape(out, p->file);
            fputs("</td><td class=\"n\">", out);
            if (!isnan(p->offset))
                cp_svg_value(out, p->offset, CP_SVG_COUNT);
            fputs("</td><td>", out);
            cp_svg_escape(out, p->message);
            fputs("</td></tr>\n", out);
        }
        if (in->nproblems > RP_PROBLEMS)
            fprintf(out, "<tr class=\"more\"><td colspan=\"3\">and %zu more "
                         "(%s in report.json)</td></tr>\n",
                    in->nproblems - RP_PROBLEMS,
                    in->has_summary ? "the first 256" : "all");
        fputs("</table>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---- the page --------------------------------------------------------------- */

static void write_page(FILE *out, const struct rp_report *r)
{
    rp_write_head(out, r);
    write_header(out, r);
    rp_write_hang(out, r);
    write_verdict(out, r);
    rp_write_findings(out, r);
    write_summary(out, r);
    fputs("<section id=\"plots\">\n<h2>Plots</h2>\n<div class=\"plots\">\n",
          out);
    rp_plot_time_vs_size(out, r);
    rp_plot_busbw(out, r);
    rp_plot_histogram(out, r);
    rp_plot_heatmap(out, r);
    rp_plot_lateness(out, r);
    rp_plot_timeline(out, r);
    rp_plot_long_run(out, r);
    fputs("</div>\n</section>\n<section id=\"tables\">\n<h2>Tables</h2>\n",
          out);
    write_comm_table(out, r);
    write_row_table(out, r);
    write_rank_table(out, r);
    write_rank_distribution(out, r);
    write_tags(out, r);
    write_phases(out, r);
    write_slowest(out, r);
    fputs("</section>\n", out);
    write_comm_details(out, r);
    write_inputs(out, r);
    fputs("<footer>Written by ", out);
    cp_svg_escape(out, r->generator ? r->generator : "collprof");
    fputs(" from report.json (", out);
    cp_svg_escape(out, r->schema);
    fputs("). Hover over points and bars for details. Sizes use binary "
          "prefixes (KiB = 1024 B), bandwidths decimal ones (GB/s = 10<sup>9"
          "</sup> B/s), busbw follows nccl-tests.</footer>\n</body>\n</html>\n",
          out);
}
int rp_render(json_t *doc, FILE *out, struct cp_error *err,
              int (*view)(json_t *, struct rp_report *, struct cp_error *),
              void (*page)(FILE *, const struct rp_report *))
{
    struct rp_report r;
    int rc = -1;

    if (view(doc, &r, err) < 0)
        goto out;
    page(out, &r);
    if (fflush(out) != 0 || ferror(out)) {
        cp_error_set(err, NULL, -1, "writing the page failed");
        goto out;
    }
    rc = 0;
out:
    rp_view_free(&r);
    return rc;
}

int cp_html_write_json(json_t *report, FILE *out, struct cp_error *err)
{
    return rp_render(report, out, err, rp_view_report, write_page);
}
