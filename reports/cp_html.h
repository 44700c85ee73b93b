/* cp_html.h - report.html: the analysis as one self-contained page.
 *
 * The page is rendered from the report object (docs/report-schema.md), the
 * same object report.json is written from: collprof analyze passes the
 * object cp_analysis_to_json() gave it, collprof report the one it loaded
 * from a saved report.json.  Nothing is recomputed: the page shows the
 * analysis' numbers, and draws the alpha-beta curves from the model
 * parameters the report states.  What the page holds and how it reads the
 * report: docs/report-html.md.
 *
 * The page needs no network and no JavaScript: inline CSS, inline SVG,
 * hover details in SVG <title> elements, and a Content-Security-Policy that
 * allows neither scripts nor any request.  Every string taken from the
 * report is HTML-escaped.
 *
 * Like the rest of libcollprof-analysis this never prints: errors fill the
 * caller's struct cp_error.
 */
#ifndef COLLPROF_CP_HTML_H
#define COLLPROF_CP_HTML_H

#include <stdio.h>

#include <jansson.h>

#include "cp_error.h"

/* Writes the page for report to out.  The report is checked first: -1 with
 * err naming the key ("key 'summary.comm_time_s' should be a number or
 * null, not a string") when it is not a collprof.report/1 object, before
 * anything is written.  -1 with err set also when writing to out failed.
 * The caller keeps its reference to report and owns out (not closed). */
int cp_html_write_json(json_t *report, FILE *out, struct cp_error *err);

/* probe.html: a probe.json document (schema collprof.probe/1,
 * docs/probe.md) as one page of the same kind: the findings, report.html's
 * node-pair heatmap drawn from the probe's topology, and the pairs.
 * Checked first like a report (-1 with err naming the key); the caller
 * keeps doc and owns out. */
int cp_html_probe_write(json_t *doc, FILE *out, struct cp_error *err);

/* The stylesheet of report.html (one <style> body), which other collprof
 * pages reuse so that they look the same. */
extern const char cp_html_css[];

/* The start of such a page, up to its <title>: the doctype, the character
 * set, a Content-Security-Policy under which no script runs and nothing is
 * fetched, the viewport, and the generator (escaped; NULL: none). */
void cp_html_head(FILE *out, const char *generator);

#endif
