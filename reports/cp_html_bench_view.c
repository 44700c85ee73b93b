/* cp_html_bench_view.c - the checked, typed view of a bench document (see
 * cp_html_bench_view.h).
 *
 * Every key bench.html uses is read here through the checked reader
 * (analyzer/core/cp_jsoncheck.h), in the order the page has always
 * checked them, so the first bad key named is the same.  The skipped
 * lines and the imported file names are copied as the importer wrote
 * them, without checks: the page shows them and nothing depends on them.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_html_bench_view.h"
#include "cp_jsoncheck.h"
#include "cp_model.h"

/* The checked reader's getters (analyzer/core/cp_jsoncheck.h); bench.json's
 * numbers are read as stored. */
static double num(struct cp_jsoncheck *c, json_t *obj, const char *where,
                  const char *key, int required)
{
    return cp_jsoncheck_num(c, obj, where, key, required);
}

static const char *str(struct cp_jsoncheck *c, json_t *obj, const char *where,
                       const char *key, int required)
{
    return cp_jsoncheck_str(c, obj, where, key, required);
}

/* An optional object. */
static json_t *object(struct cp_jsoncheck *c, json_t *obj, const char *where,
                      const char *key)
{
    return cp_jsoncheck_typed(c, obj, where, key, 0, JSON_OBJECT);
}

static json_t *array(struct cp_jsoncheck *c, json_t *obj, const char *where,
                     const char *key, int required)
{
    return cp_jsoncheck_typed(c, obj, where, key, required, JSON_ARRAY);
}

static int coll_of(struct cp_jsoncheck *c, const char *where, const char *name,
                   enum cp_coll *coll)
{
    if (name && cp_model_coll_from_name(name, coll, NULL) == 0)
        return 0;
    cp_jsoncheck_fail(c, "key '%s' names no collective", where);
    return -1;
}

static void view_point(struct cp_jsoncheck *c, json_t *o, json_t *series,
                       size_t i, struct bp_point *p)
{
    char where[48];
    json_t *s;
    double si;

    snprintf(where, sizeof where, "points[%zu]", i);
    if (!json_is_object(o)) {
        cp_jsoncheck_fail(c, "key '%s' should be an object", where);
        return;
    }
    {
        char key[64];
        snprintf(key, sizeof key, "%s.op", where);
        coll_of(c, key, str(c, o, where, "op", 1), &p->coll);
    }
    p->ranks = num(c, o, where, "ranks", 1);
    p->size = num(c, o, where, "size_bytes", 1);
    p->time_s = num(c, o, where, "time_s", 1);
    p->busbw_Bps = num(c, o, where, "busbw_Bps", 1);
    p->wrong = num(c, o, where, "wrong", 0);
    p->link = str(c, o, where, "link", 0);
    p->in_place = cp_jsoncheck_bool(c, o, where, "in_place");
    si = num(c, o, where, "series", 0);
    s = si >= 0 && si < (double)json_array_size(series)
            ? json_array_get(series, (size_t)si)
            : NULL;
    p->nodes = s ? num(c, s, "series[]", "nodes", 0) : NAN;
    if (!p->link)
        p->link = "unknown";
}

static void view_group(struct cp_jsoncheck *c, json_t *o, const char *where,
                       enum cp_coll coll, struct bp_group *g)
{
    const char *algo;

    if (!json_is_object(o)) {
        cp_jsoncheck_fail(c, "key '%s' should be an object", where);
        return;
    }
    g->coll = coll;
    g->ranks = num(c, o, where, "ranks", 1);
    /* a rank count the model takes (it is cast to unsigned); 0: unknown */
    if (!(g->ranks >= 0 && g->ranks <= 16777216 && g->ranks == floor(g->ranks)))
        cp_jsoncheck_fail(c, "key '%s.ranks' should be a rank count", where);
    g->link = str(c, o, where, "link", 0);
    if (!g->link)
        g->link = "unknown";
    g->nodes = num(c, o, where, "nodes", 0);
    g->have_nodes = isfinite(g->nodes);
    g->points = num(c, o, where, "points", 0);
    g->in_place = cp_jsoncheck_bool(c, o, where, "in_place");
    g->factor = num(c, o, where, "busbw_factor", 0);
    if (!(g->factor > 0) && g->ranks >= 1)
        g->factor = cp_model_busbw_factor(coll, (unsigned)g->ranks);
    g->floor_s = num(c, o, where, "latency_floor_s", 1);
    g->floor_flat = cp_jsoncheck_bool(c, o, where, "latency_floor_flat");
    g->floor_max_bytes = num(c, o, where, "latency_floor_max_bytes", 0);
    g->alpha_s = num(c, o, where, "alpha_s", 1);
    g->bandwidth_Bps = num(c, o, where, "bandwidth_Bps", 0);
    g->residual = num(c, o, where, "fit_median_rel_residual", 0);
    g->fit_why = str(c, o, where, "fit_why", 0);
    g->busbw_Bps = num(c, o, where, "busbw_Bps", 1);
    g->plateau_from_bytes = num(c, o, where, "plateau_from_bytes", 0);
    g->busbw_largest_Bps = num(c, o, where, "busbw_largest_Bps", 0);
    g->largest_bytes = num(c, o, where, "largest_bytes", 0);
    g->boundary_bytes = num(c, o, where, "regime_boundary_bytes", 1);
    g->boundary_from = str(c, o, where, "regime_boundary_from", 0);
    algo = str(c, o, where, "model_algo", 0);
    g->have_algo = algo && cp_model_algo_from_name(algo, &g->algo, NULL) == 0;
    g->fit_ok = g->have_algo && isfinite(g->alpha_s) &&
                g->bandwidth_Bps > 0 && isfinite(g->bandwidth_Bps) &&
                g->ranks >= 1 && !g->fit_why;
}

static void view_link(struct cp_jsoncheck *c, json_t *parent, const char *where,
                      const char *key, struct bp_link *l)
{
    char w[64];
    json_t *o = object(c, parent, where, key);

    if (!o)
        return;
    snprintf(w, sizeof w, "%s.%s", where, key);
    l->present = 1;
    l->ok = cp_jsoncheck_bool(c, o, w, "ok");
    l->alpha_s = num(c, o, w, "alpha_s", 0);
    l->bandwidth_Bps = num(c, o, w, "bandwidth_Bps", 0);
    l->points = num(c, o, w, "points", 0);
    l->points_used = num(c, o, w, "points_used", 0);
    l->residual = num(c, o, w, "median_rel_residual", 0);
    l->source = str(c, o, w, "source", 0);
    l->from = str(c, o, w, "from", 0);
    l->why = str(c, o, w, "why", 0);
}

static void view_calibration(struct cp_jsoncheck *c, json_t *root,
                             struct bp_page *pg)
{
    static const char *const names[2] = {"intra", "inter"};
    json_t *cal = object(c, root, "", "calibration");
    json_t *links, *colls, *pairs;
    int k;

    for (k = 0; k < 2; k++)
        pg->classes[k].name = names[k];
    if (!cal)
        return;
    links = object(c, cal, "calibration", "links");
    colls = object(c, cal, "calibration", "collectives");
    pairs = object(c, cal, "calibration", "sendrecv");
    for (k = 0; k < 2; k++) {
        struct bp_class *cl = &pg->classes[k];
        if (links)
            view_link(c, links, "calibration.links", names[k], &cl->used);
        if (colls)
            view_link(c, colls, "calibration.collectives", names[k],
                      &cl->collectives);
        if (pairs)
            view_link(c, pairs, "calibration.sendrecv", names[k], &cl->pairs);
    }
}

/* The groups of fit.<op>: the fit's own first, then the others of
 * "groups" (which lists the fit's own group too). */
static void view_fit(struct cp_jsoncheck *c, json_t *root, struct bp_page *pg)
{
    json_t *fit = object(c, root, "", "fit"), *o, *groups;
    const char *key;
    size_t cap = 0, i;

    if (!fit)
        return;
    json_object_foreach(fit, key, o)
    {
        char where[96];
        enum cp_coll coll;
        size_t n;

        snprintf(where, sizeof where, "fit.%.60s", key);
        if (coll_of(c, where, key, &coll) < 0)
            return;
        groups = array(c, o, where, "groups", 0);
        n = 1 + json_array_size(groups);
        if (pg->ngroups + n > cap) {
            struct bp_group *g;
            cap = 2 * cap + n + 8;
            g = realloc(pg->groups, cap * sizeof *g);
            if (!g) {
                cp_jsoncheck_fail(c, "out of memory");
                return;
            }
            pg->groups = g;
        }
        memset(pg->groups + pg->ngroups, 0, n * sizeof *pg->groups);
        view_group(c, o, where, coll, &pg->groups[pg->ngroups]);
        {
            const struct bp_group *top = &pg->groups[pg->ngroups];
            size_t added = 1;
            int skipped_top = 0;
            for (i = 0; i < json_array_size(groups); i++) {
                char w[128];
                struct bp_group *g = &pg->groups[pg->ngroups + added];
                snprintf(w, sizeof w, "%s.groups[%zu]", where, i);
                view_group(c, json_array_get(groups, i), w, coll, g);
                if (!skipped_top && g->ranks == top->ranks &&
                    strcmp(g->link, top->link) == 0 &&
                    (g->nodes == top->nodes ||
                     (!g->have_nodes && !top->have_nodes))) {
                    skipped_top = 1;
                    continue;
                }
                added++;
            }
            pg->ngroups += added;
        }
        if (c->bad)
            return;
    }
}

static void view_run(struct cp_jsoncheck *c, json_t *root, struct bp_page *pg)
{
    json_t *run = object(c, root, "", "run");

    if (!run)
        return;
    pg->have_run = 1;
    pg->run_ranks = num(c, run, "run", "ranks", 0);
    pg->run_nodes = num(c, run, "run", "nodes", 0);
    pg->nccl_version = num(c, run, "run", "nccl_version", 0);
    pg->max_bytes = num(c, run, "run", "max_bytes", 0);
    pg->nccl_library = str(c, run, "run", "nccl_library", 0);
    pg->memory = str(c, run, "run", "memory", 0);
}

/* "sources" and "skipped_lines" (arrays or NULL), copied as they are: an
 * entry of the wrong type gives NULL strings and a NaN line. */
static void view_lists(struct cp_jsoncheck *c, json_t *sources,
                       json_t *skipped, struct bp_page *pg)
{
    size_t i, ns = json_array_size(sources), nk = json_array_size(skipped);

    pg->sources = calloc(ns ? ns : 1, sizeof *pg->sources);
    pg->skipped = calloc(nk ? nk : 1, sizeof *pg->skipped);
    if (!pg->sources || !pg->skipped) {
        cp_jsoncheck_fail(c, "out of memory");
        return;
    }
    pg->nsources = ns;
    for (i = 0; i < ns; i++)
        pg->sources[i] = json_string_value(json_array_get(sources, i));
    pg->nskipped = nk;
    for (i = 0; i < nk; i++) {
        json_t *o = json_array_get(skipped, i);
        json_t *line = json_object_get(o, "line");
        pg->skipped[i].source = json_string_value(json_object_get(o, "source"));
        pg->skipped[i].why = json_string_value(json_object_get(o, "why"));
        pg->skipped[i].line = json_is_number(line) ? json_number_value(line)
                                                   : NAN;
    }
}

static int compare_groups(const struct bp_group *x, const struct bp_group *y)
{
    return (x->coll > y->coll) - (x->coll < y->coll);
}

/* The groups by collective, keeping each one's order (its fit's group
 * first): insertion sort, as qsort is not stable. */
static void sort_groups(struct bp_page *pg)
{
    size_t i, j;

    for (i = 1; i < pg->ngroups; i++) {
        struct bp_group g = pg->groups[i];
        for (j = i; j > 0 && compare_groups(&pg->groups[j - 1], &g) > 0; j--)
            pg->groups[j] = pg->groups[j - 1];
        pg->groups[j] = g;
    }
}

void cp_html_bench_view_free(struct bp_page *pg)
{
    free(pg->points);
    free(pg->groups);
    free(pg->sources);
    free(pg->skipped);
    memset(pg, 0, sizeof *pg);
}

int cp_html_bench_view(json_t *root, struct bp_page *pg, struct cp_error *err)
{
    struct cp_jsoncheck c;
    json_t *points, *series, *sources, *skipped;
    size_t i;

    cp_jsoncheck_init(&c, err, NULL, 0);
    memset(pg, 0, sizeof *pg);
    if (!json_is_object(root)) {
        cp_jsoncheck_fail(&c, "the document is not a JSON object");
        goto out;
    }
    pg->schema = str(&c, root, "", "schema", 1);
    if (pg->schema && strncmp(pg->schema, "collprof.bench/", 15) != 0)
        cp_jsoncheck_fail(&c, "schema '%.80s' is not collprof.bench/N",
                          pg->schema);
    pg->mode = str(&c, root, "", "mode", 0);
    pg->generator = str(&c, root, "", "generator", 0);
    pg->created = str(&c, root, "", "created", 0);
    view_run(&c, root, pg);
    sources = array(&c, root, "", "sources", 0);
    skipped = array(&c, root, "", "skipped_lines", 0);
    pg->wrong_total = num(&c, root, "", "wrong_total", 0);
    pg->wrong_points = num(&c, root, "", "wrong_points", 0);
    series = array(&c, root, "", "series", 0);
    points = array(&c, root, "", "points", 1);
    if (c.bad)
        goto out;
    pg->npoints = json_array_size(points);
    pg->points = calloc(pg->npoints ? pg->npoints : 1, sizeof *pg->points);
    if (!pg->points) {
        cp_jsoncheck_fail(&c, "out of memory");
        goto out;
    }
    for (i = 0; i < pg->npoints && !c.bad; i++)
        view_point(&c, json_array_get(points, i), series, i, &pg->points[i]);
    if (!c.bad)
        view_fit(&c, root, pg);
    if (!c.bad)
        view_calibration(&c, root, pg);
    if (!c.bad)
        view_lists(&c, sources, skipped, pg);
    if (!c.bad)
        sort_groups(pg);
out:
    if (c.bad) {
        cp_html_bench_view_free(pg);
        return -1;
    }
    return 0;
}
