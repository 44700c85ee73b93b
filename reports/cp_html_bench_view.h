/* cp_html_bench_view.h - a checked, typed view of a collprof.bench/1
 * document (bench.json, docs/bench.md), the only thing bench.html
 * (cp_html_bench.c) reads.
 *
 * cp_html_bench_view builds it once: every key the page uses is checked
 * there, with its type, so that a bad document fails with the key's name
 * before anything is written; the page never reads the JSON (the view
 * holds no json_t).  Strings point into the document, which outlives the
 * view; the arrays the view allocates are sized by what was parsed and
 * freed by cp_html_bench_view_free.  Collective names are parsed into
 * enum cp_coll.  Missing numbers are NaN.
 */
#ifndef COLLPROF_CP_HTML_BENCH_VIEW_H
#define COLLPROF_CP_HTML_BENCH_VIEW_H

#include <stddef.h>

#include <jansson.h>

#include "cp_error.h"
#include "cp_model.h"

/* One measured point of "points" (nodes from its series, if any). */
struct bp_point {
    enum cp_coll coll;
    double ranks, nodes, size, time_s, busbw_Bps, wrong;
    const char *link;
    int in_place;
};

/* One group of fit.<op>: its rank count, link and nodes, and the fit. */
struct bp_group {
    enum cp_coll coll;
    enum cp_algo algo;
    int have_algo, have_nodes, in_place, floor_flat, fit_ok;
    double ranks, nodes, points, factor;
    double floor_s, floor_max_bytes, alpha_s, bandwidth_Bps, residual;
    double busbw_Bps, plateau_from_bytes, busbw_largest_Bps, largest_bytes;
    double boundary_bytes;
    const char *link, *boundary_from, *fit_why;
};

/* One link fit of "calibration" (present: the document has it). */
struct bp_link {
    int present, ok;
    double alpha_s, bandwidth_Bps, points, points_used, residual;
    const char *source, *from, *why;
};

/* Per link class: what the profile got, and the two fits it chose from. */
struct bp_class {
    const char *name;
    struct bp_link used, collectives, pairs;
};

/* One entry of "skipped_lines".  The list is shown as the importer wrote
 * it, unchecked: a missing or mistyped field is NULL (line: NaN). */
struct bp_skip {
    const char *source, *why;
    double line;
};

struct bp_page {
    const char *schema, *mode, *generator, *created;
    int have_run; /* "run" is an object: a measured run, not an import */
    double run_ranks, run_nodes, nccl_version, max_bytes;
    const char *nccl_library, *memory;
    const char **sources; /* "sources"; NULL where an entry is no string */
    size_t nsources;
    struct bp_skip *skipped;
    size_t nskipped;
    double wrong_total, wrong_points;
    struct bp_point *points;
    size_t npoints;
    /* by collective, each one's order kept: the fit's own group first */
    struct bp_group *groups;
    size_t ngroups;
    struct bp_class classes[2]; /* intra, inter */
};

/* Builds the view of root into *pg: 0, or -1 with err naming the key
 * ("points[3].time_s should be a number or null"), and *pg empty. */
int cp_html_bench_view(json_t *root, struct bp_page *pg,
                       struct cp_error *err);

/* Releases what the view allocated (safe on an empty one). */
void cp_html_bench_view_free(struct bp_page *pg);

#endif
