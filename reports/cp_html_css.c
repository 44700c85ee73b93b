/* cp_html_css.c - what every collprof page starts with: the stylesheet of
 * report.html, which bench.html and probe.html reuse so that they look the
 * same, and the page's head (see cp_html.h). */
#include "config.h"

#include <stdio.h>

#include "cp_html.h"
#include "cp_svg.h"

/* the page's stylesheet, shared with the bench page (cp_html_bench.c) */
const char cp_html_css[] =
    ":root{--fg:#1a1a1a;--mut:#555;--line:#d0d0d0;--bg:#fff;--soft:#f5f6f7;"
    "--crit:#D55E00;--warn:#E69F00;--info:#0072B2;--ok:#009E73}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0 auto;max-width:1280px;padding:16px 24px 48px;color:var(--fg);"
    "background:var(--bg);font:14px/1.45 system-ui,-apple-system,'Segoe UI',"
    "Roboto,'DejaVu Sans',Arial,sans-serif}\n"
    "h1{font-size:22px;margin:8px 0 2px}h2{font-size:18px;margin:28px 0 8px;"
    "border-bottom:1px solid var(--line);padding-bottom:4px}"
    "h3{font-size:15px;margin:0 0 6px}\n"
    ".sub{color:var(--mut);margin:0 0 8px}nav a{margin-right:14px;color:#0072B2}\n"
    ".verdict{border-left:8px solid var(--ok);background:var(--soft);"
    "padding:12px 16px;margin:12px 0}\n"
    ".verdict.critical{border-color:var(--crit)}.verdict.warning{border-color:"
    "var(--warn)}.verdict.info{border-color:var(--mut)}\n.verdict .head{font-size:18px;font-weight:600;margin:0 0 6px}"
    ".verdict p{margin:4px 0}\n"
    ".finding{border:1px solid var(--line);border-left:6px solid var(--info);"
    "padding:10px 14px;margin:10px 0;break-inside:avoid}\n"
    ".finding.critical{border-left-color:var(--crit)}.finding.warning{"
    "border-left-color:var(--warn)}\n"
    ".badge{display:inline-block;font-size:12px;font-weight:700;"
    "text-transform:uppercase;padding:1px 7px;border-radius:3px;color:#fff;"
    "background:var(--info);margin-right:8px}\n"
    ".critical .badge{background:var(--crit)}.warning .badge{background:#9a6700}\n"
    ".kind{font-family:ui-monospace,'DejaVu Sans Mono',monospace;color:var(--mut)}\n"
    ".sugg{background:#eef6fb;padding:6px 10px;margin:6px 0}\n"
    ".who{color:var(--mut);font-size:13px}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));"
    "gap:8px}\n.card{background:var(--soft);padding:8px 10px}"
    ".card .v{font-size:20px;font-weight:600}.card .l{color:var(--mut);"
    "font-size:12px}.card .d{font-size:12px;color:var(--mut)}\n"
    "table{border-collapse:collapse;margin:6px 0;font-size:13px}\n"
    "th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;"
    "vertical-align:top}\nth{background:var(--soft)}td.n,th.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\ntr.more td{color:var(--mut);"
    "font-style:italic}\n"
    ".ev{font-size:12.5px}.ev caption{text-align:left;color:var(--mut)}\n"
    ".evg{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));"
    "gap:1px 18px;font-size:12.5px;margin:6px 0}.evg .k{color:var(--mut)}\n"
    ".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));"
    "gap:16px}\n"
    "figure{margin:0;padding:8px;border:1px solid var(--line);break-inside:avoid}\n"
    "figcaption{font-size:13px;color:var(--mut);margin-top:4px}\n"
    "figure h3{margin:0 0 4px}\n"
    "svg.plot{width:100%;height:auto;display:block}\n"
    "svg.plot text{font:11px system-ui,'DejaVu Sans',Arial,sans-serif;"
    "fill:#333}\nsvg.plot .axt{font-size:12px;fill:#111}\n"
    "svg.plot .area{fill:#fff}svg.plot .grid{stroke:#e6e6e6}"
    "svg.plot .axis,svg.plot .tk{stroke:#333;fill:none}\n"
    ".legend{font-size:12px;display:flex;flex-wrap:wrap;gap:4px 14px;"
    "margin:4px 0}\n.legend svg{vertical-align:middle;margin-right:4px}\n"
    ".empty{color:var(--mut);font-style:italic;padding:18px 8px}\n"
    ".ce{font-size:11px;border:1px solid var(--mut);border-radius:3px;"
    "padding:0 4px;margin-left:4px;color:var(--mut);white-space:nowrap}\n"
    ".mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;"
    "font-size:12.5px}\n"
    "footer{margin-top:32px;color:var(--mut);font-size:12px}\n"
    "@media print{body{max-width:none;padding:0}nav{display:none}"
    ".plots{grid-template-columns:1fr}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

void cp_html_head(FILE *out, const char *generator)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\">\n"
          /* no script runs and nothing is fetched, whatever the data */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
          "'none'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n",
          out);
    if (generator) {
        fputs("<meta name=\"generator\" content=\"", out);
        cp_svg_escape(out, generator);
        fputs("\">\n", out);
    }
}
