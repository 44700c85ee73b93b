/* cp_fleet_html_plots.h - the figures of fleet.html (cp_fleet_html.c): the
 * node-pair matrix coloured by the fleet's verdicts, and the efficiency
 * over time of the worst links, drawn as inline SVG from the fleet view
 * (cp_fleet_html_view.h) alone.
 *
 * What is drawn is bounded, and each figure says what it left out: the
 * matrix holds the first FH_MATRIX_NODES nodes by name, in cells of
 * blocks of nodes past FH_MATRIX_CELLS per side; a link's plot
 * holds its latest FH_PAIR_POINTS steps.  Every string of the
 * document is escaped.  Writes to the caller's stream and nothing else (a
 * write error shows in its ferror); never prints.
 */
#ifndef COLLPROF_CP_FLEET_HTML_PLOTS_H
#define COLLPROF_CP_FLEET_HTML_PLOTS_H

#include <stddef.h>
#include <stdio.h>

#include "cp_fleet_html_view.h"

#define FH_MATRIX_NODES 4096 /* nodes in the matrix, by name */
#define FH_MATRIX_CELLS 128  /* cells per side; more: blocks */
#define FH_PAIR_PLOTS 8      /* links with a plot over time */
#define FH_PAIR_POINTS 200   /* a plot's latest steps */

/* The fill of a verdict: a static "#RRGGBB" (Okabe-Ito: vermillion for
 * bad, orange for suspect, bluish green for ok, grey for no evidence). */
const char *fh_color(enum fh_verdict v);

/* The verdict as the page words it ("no evidence"); a static string. */
const char *fh_verdict_word(enum fh_verdict v);

/* The verdict as a word on its colour (not by colour alone). */
void fh_badge(FILE *out, enum fh_verdict v);

/* The order of node names the page uses: digit runs compared as numbers
 * ("n2" before "n10"), then bytes; 0 only for equal strings. */
int fh_name_cmp(const char *a, const char *b);

/* The matrix figure (id "fig-matrix"): a cell per node pair holding a
 * link, coloured by its verdict, each node's own verdict on the
 * diagonal, a hover text per cell, the legend; a sentence instead when
 * no link and no node is known.  Returns -1 when out of memory (nothing
 * written), else 0. */
int fh_plot_matrix(FILE *out, const struct fh_fleet *fl);

/* The plots over time of the links fl->links[order[k]], k < n (the
 * caller's choice, at most FH_PAIR_PLOTS drawn), each a figure
 * "pair-K" (K from 1) chosen by the list of anchors before them.
 * Returns -1 when out of memory, else 0. */
int fh_plot_pairs(FILE *out, const struct fh_fleet *fl, const size_t *order,
                  size_t n);

#endif
