/* cp_html_bench.h - bench.html: what collprof bench measured (or imported
 * from nccl-tests outputs) as one self-contained page.
 *
 * The page is rendered from the bench document (schema collprof.bench/1,
 * docs/bench.md), the object bench.json is written from, so the page and
 * the file always agree.  Nothing is refitted: the curves are drawn from
 * the fit the document states.  Per collective, a log-log plot of time
 * against size (out-of-place and in-place points, the fitted alpha-beta
 * curve, the latency floor, the regime boundary) and one of busbw against
 * size (the same points, the model's busbw, the fitted plateau, the link
 * class's bandwidth, the boundary at half the plateau); busbw of every
 * collective together; the fit per collective and per link class; the
 * run or the imported files.
 *
 * Like report.html (cp_html.h) the page needs no network and no
 * JavaScript, has a Content-Security-Policy that allows neither, and
 * escapes every string taken from the document (file names, host names,
 * library paths).  Nothing here prints: errors fill the caller's
 * struct cp_error.
 */
#ifndef COLLPROF_CP_HTML_BENCH_H
#define COLLPROF_CP_HTML_BENCH_H

#include <stdio.h>

#include <jansson.h>

#include "cp_error.h"

/* Writes the page for doc to out.  doc is checked first: -1 with err
 * naming the key ("points[3].time_s should be a number or null") when it
 * is not a collprof.bench/1 document, before anything is written; -1 also
 * when writing to out failed.  The caller keeps its reference to doc and
 * owns out (not closed). */
int cp_html_bench_write(json_t *doc, FILE *out, struct cp_error *err);

#endif
