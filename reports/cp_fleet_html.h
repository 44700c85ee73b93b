/* cp_fleet_html.h - fleet.html: the fleet's verdicts on its links, nodes
 * and ports across jobs as one self-contained page (docs/fleet-html.md).
 *
 * The page is rendered from fleet.json (schema collprof.fleet/1, written
 * by `collprof fleet export`) through its typed view (cp_fleet_html_view.h):
 * the summary, the node-pair matrix coloured by verdict, the worst links
 * and nodes with the jobs behind them, the efficiency over time of the
 * worst links, the ports and the rules the verdicts follow.  Nothing is
 * judged here: every verdict and count is the document's.
 *
 * Like report.html (cp_html.h) the page needs no network and no
 * JavaScript (inline CSS and SVG, a Content-Security-Policy that allows
 * neither), and escapes every string taken from the document.  What is
 * drawn is bounded (cp_fleet_html_plots.h) and the page says what it left out.
 * Never prints: errors fill the caller's struct cp_error.
 */
#ifndef COLLPROF_CP_FLEET_HTML_H
#define COLLPROF_CP_FLEET_HTML_H

#include <stdio.h>

#include "cp_error.h"
#include "cp_fleet_html_view.h"

/* The rows of the worst links' and nodes' tables, and of the ports'. */
#define FH_TABLE_ROWS 20
#define FH_PORT_ROWS 50
/* The jobs named behind a link or a node, the latest first. */
#define FH_JOBS_NAMED 6

/* Writes the page of the fleet.json at json_path to html_path, for
 * `collprof fleet report -o fleet.html`.  The document is read and checked
 * first (cp_fleet_html_view_load: -1 with err naming the file and the key, and
 * nothing created); the page is written under a fresh temporary name in
 * html_path's directory (O_CREAT|O_EXCL|O_NOFOLLOW) and renamed over
 * html_path only once complete (cp_path.h); an html_path that is a
 * symbolic link or not a regular file is refused.  0, or -1 with err
 * filled (a failed write names html_path) and html_path untouched. */
int cp_fleet_html_write(const char *json_path, const char *html_path,
                        struct cp_error *err);

/* Writes the page of the view fl to out (owned by the caller, not
 * closed): 0, or -1 with err set when out of memory or when writing to
 * out failed ("writing the page failed"). */
int cp_fleet_html_render(const struct fh_fleet *fl, FILE *out,
                         struct cp_error *err);

#endif
