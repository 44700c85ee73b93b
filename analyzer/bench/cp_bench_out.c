/* cp_bench_out.c - JSON and CSV of a sweep (see cp_bench_out.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_bench_out.h"
#include "cp_jsonout.h"
#include "cp_path.h"

const char *cp_bench_timer_name(const struct cp_bench_run_info *run)
{
    return run->gpu_timer ? "host+cuda_events" : "host";
}

const char *cp_bench_link_name(int link)
{
    return link == CP_LINK_INTRA   ? "intra"
           : link == CP_LINK_INTER ? "inter"
                                   : "unknown";
}

/* A measured time: a positive real, else null (0 is "not measured" in
 * points built without it). */
static json_t *jpositive(double v)
{
    return isfinite(v) && v > 0 ? json_real(v) : json_null();
}

static json_t *link_fit_json(const struct cp_bench_link_fit *lf,
                             enum cp_bench_link_source source)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (set(o, "ok", json_boolean(lf->ok)) < 0 ||
        set(o, "alpha_s", jnum(lf->alpha_s)) < 0 ||
        set(o, "bandwidth_Bps", jnum(lf->bandwidth_Bps)) < 0 ||
        set(o, "points", json_integer(lf->points)) < 0 ||
        set(o, "points_used", json_integer(lf->points_used)) < 0 ||
        set(o, "median_rel_residual", jnum(lf->median_rel_residual)) < 0 ||
        (source != CP_BENCH_FROM_NONE &&
         set(o, "source", json_string(cp_bench_link_source_name(source))) <
             0) ||
        (lf->from[0] && set(o, "from", json_string(lf->from)) < 0) ||
        (!lf->ok && lf->why[0] && set(o, "why", json_string(lf->why)) < 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *op_fit_json(const struct cp_bench_op_fit *f)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (set(o, "ranks", json_integer(f->ranks)) < 0 ||
        set(o, "link", json_string(cp_bench_link_name(f->link))) < 0 ||
        set(o, "nodes", json_integer(f->nodes)) < 0 ||
        set(o, "points", json_integer(f->points)) < 0 ||
        set(o, "in_place", json_boolean(f->in_place)) < 0 ||
        set(o, "busbw_factor", jnum(f->factor)) < 0 ||
        set(o, "latency_floor_s", jnum(f->latency_floor_s)) < 0 ||
        set(o, "latency_floor_flat", json_boolean(f->floor_flat)) < 0 ||
        set(o, "latency_floor_max_bytes",
            json_integer((json_int_t)f->floor_max_bytes)) < 0 ||
        set(o, "model_algo",
            json_string(cp_model_algo_name(
                cp_model_coll_facts(f->coll)->nccl_algo))) <
            0 ||
        set(o, "alpha_s", jnum(f->alpha_s)) < 0 ||
        set(o, "bandwidth_Bps", jnum(f->bandwidth_Bps)) < 0 ||
        set(o, "fit_median_rel_residual",
            jnum(f->fit_median_rel_residual)) < 0 ||
        (!f->fit_ok && set(o, "fit_why", json_string(f->fit_why)) < 0) ||
        set(o, "busbw_Bps", jnum(f->busbw_Bps)) < 0 ||
        set(o, "plateau_from_bytes",
            json_integer((json_int_t)f->plateau_min_bytes)) < 0 ||
        set(o, "plateau_points", json_integer(f->plateau_points)) < 0 ||
        set(o, "bandwidth_vs_plateau", jnum(f->plateau_ratio)) < 0 ||
        (f->plateau_why[0] &&
         set(o, "bandwidth_why", json_string(f->plateau_why)) < 0) ||
        set(o, "busbw_largest_Bps", jnum(f->busbw_largest_Bps)) < 0 ||
        set(o, "largest_bytes", json_integer((json_int_t)f->largest_bytes)) <
            0 ||
        set(o, "regime_boundary_bytes", jnum(f->regime_boundary_bytes)) <
            0 ||
        set(o, "regime_boundary_from",
            json_string(f->regime_from_crossing ? "half-plateau crossing"
                                                : "floor x plateau / factor")) <
            0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* "fit": per op the group with the most ranks, and all groups when more
 * than one. */
static json_t *fit_json(const struct cp_bench_calibration *cal)
{
    json_t *fit = json_object();
    size_t i, j;

    if (!fit)
        return NULL;
    for (i = 0; i < cal->nops; i++) {
        const struct cp_bench_op_fit *f = &cal->ops[i], *top = f;
        const char *name = cp_model_coll_name(f->coll);
        json_t *o, *groups;
        unsigned n = 0;

        if (json_object_get(fit, name))
            continue;
        for (j = 0; j < cal->nops; j++) {
            if (cal->ops[j].coll != f->coll)
                continue;
            n++;
            if (cal->ops[j].ranks > top->ranks)
                top = &cal->ops[j];
        }
        o = op_fit_json(top);
        if (set(fit, name, o) < 0)
            goto fail;
        if (n < 2)
            continue;
        groups = json_array();
        if (!groups || set(o, "groups", groups) < 0)
            goto fail;
        for (j = 0; j < cal->nops; j++)
            if (cal->ops[j].coll == f->coll &&
                json_array_append_new(groups, op_fit_json(&cal->ops[j])) < 0)
                goto fail;
    }
    return fit;
fail:
    json_decref(fit);
    return NULL;
}

static json_t *calibration_json(const struct cp_bench_calibration *cal)
{
    json_t *c = json_object(), *links, *collectives, *pairs, *floors,
           *plateaus;
    size_t i;
    int k;

    /* Each container belongs to c as soon as it exists (set() steals). */
    if (!c || set(c, "links", links = json_object()) < 0 ||
        set(c, "collectives", collectives = json_object()) < 0 ||
        set(c, "sendrecv", pairs = json_object()) < 0 ||
        set(c, "latency_floor", floors = json_array()) < 0 ||
        set(c, "busbw_plateau", plateaus = json_array()) < 0)
        goto fail;
    for (k = 0; k < CP_LINK_COUNT; k++) {
        const char *name = cp_link_class_name((enum cp_link_class)k);
        if (set(links, name,
                link_fit_json(&cal->link[k], cal->link_source[k])) < 0 ||
            set(collectives, name,
                link_fit_json(&cal->collectives[k], CP_BENCH_FROM_NONE)) <
                0 ||
            set(pairs, name,
                link_fit_json(&cal->pairs[k], CP_BENCH_FROM_NONE)) < 0)
            goto fail;
    }
    for (i = 0; i < cal->nops; i++) {
        const struct cp_bench_op_fit *f = &cal->ops[i];
        json_t *a = json_object(), *b = json_object();
        if (json_array_append_new(floors, a) < 0) {
            json_decref(b);
            goto fail;
        }
        if (json_array_append_new(plateaus, b) < 0)
            goto fail;
        if (set(a, "op", json_string(cp_model_coll_name(f->coll))) < 0 ||
            set(a, "ranks", json_integer(f->ranks)) < 0 ||
            set(a, "link", json_string(cp_bench_link_name(f->link))) < 0 ||
            set(a, "seconds", jnum(f->latency_floor_s)) < 0 ||
            set(b, "op", json_string(cp_model_coll_name(f->coll))) < 0 ||
            set(b, "ranks", json_integer(f->ranks)) < 0 ||
            set(b, "link", json_string(cp_bench_link_name(f->link))) < 0 ||
            set(b, "busbw_Bps", jnum(f->busbw_Bps)) < 0 ||
            set(b, "regime_boundary_bytes",
                jnum(f->regime_boundary_bytes)) < 0)
            goto fail;
    }
    return c;
fail:
    json_decref(c);
    return NULL;
}

static json_t *point_json(const struct cp_bench_set *sweep,
                          const struct cp_bench_point *p)
{
    json_t *o = json_object();
    int link = p->series < sweep->nseries ? sweep->series[p->series].link
                                        : CP_BENCH_LINK_UNKNOWN;

    if (!o)
        return NULL;
    if (set(o, "op", json_string(cp_model_coll_name(p->coll))) < 0 ||
        set(o, "size_bytes", json_integer((json_int_t)p->size_bytes)) < 0 ||
        set(o, "count", json_integer((json_int_t)p->count)) < 0 ||
        set(o, "ranks", json_integer(p->ranks)) < 0 ||
        set(o, "link", json_string(cp_bench_link_name(link))) < 0 ||
        set(o, "in_place", json_boolean(p->in_place)) < 0 ||
        set(o, "time_s", jnum(p->time_s)) < 0 ||
        set(o, "median_time_s", jpositive(p->median_time_s)) < 0 ||
        set(o, "gpu_time_s", jpositive(p->gpu_time_s)) < 0 ||
        set(o, "algbw_Bps", jnum(p->algbw_Bps)) < 0 ||
        set(o, "busbw_Bps", jnum(p->busbw_Bps)) < 0 ||
        set(o, "wrong",
            p->wrong < 0 ? json_null() : json_integer(p->wrong)) < 0 ||
        set(o, "root", json_integer(p->root)) < 0 ||
        set(o, "iters", json_integer(p->iters)) < 0 ||
        set(o, "series", json_integer(p->series)) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *series_json(const struct cp_bench_series *s)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (set(o, "op", json_string(cp_model_coll_name(s->coll))) < 0 ||
        set(o, "ranks", json_integer(s->ranks)) < 0 ||
        set(o, "nodes", json_integer(s->nodes)) < 0 ||
        set(o, "link", json_string(cp_bench_link_name(s->link))) < 0 ||
        set(o, "pair", json_boolean(s->pair)) < 0 ||
        (s->pair && set(o, "peers", json_pack("[ii]", s->peers[0],
                                              s->peers[1])) < 0) ||
        (s->source[0] && set(o, "source", json_string(s->source)) < 0) ||
        (s->first_line &&
         set(o, "first_line", json_integer(s->first_line)) < 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *pair_json(const int *pair)
{
    return pair[0] >= 0 ? json_pack("[ii]", pair[0], pair[1]) : json_null();
}

static json_t *run_json(const struct cp_bench_run_info *r)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (set(o, "ranks", json_integer(r->nranks)) < 0 ||
        set(o, "nodes", json_integer(r->nnodes)) < 0 ||
        set(o, "memory", json_string(r->device ? "device" : "host")) < 0 ||
        set(o, "nccl_version", json_integer(r->nccl_version)) < 0 ||
        set(o, "nccl_library", json_string(r->nccl_path)) < 0 ||
        set(o, "max_bytes", json_integer((json_int_t)r->max_bytes)) < 0 ||
        set(o, "p2p_fallback", json_boolean(r->fallback_p2p)) < 0 ||
        set(o, "timer_reason", json_string(r->timer_reason)) < 0 ||
        set(o, "intra_pair", pair_json(r->intra_pair)) < 0 ||
        set(o, "inter_pair", pair_json(r->inter_pair)) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *cp_bench_json(const struct cp_bench_set *sweep,
                      const struct cp_bench_calibration *cal,
                      const struct cp_bench_meta *meta)
{
    json_t *doc = json_object(), *points, *series;
    json_int_t wrong = 0, wrong_points = 0;
    size_t i;

    if (!doc ||
        set(doc, "schema", json_string("collprof.bench/1")) < 0 ||
        set(doc, "mode", json_string(meta && meta->run ? "run" : "import")) <
            0 ||
        (meta && meta->generator &&
         set(doc, "generator", json_string(meta->generator)) < 0) ||
        (meta && meta->created &&
         set(doc, "created", json_string(meta->created)) < 0))
        goto fail;
    /* How the points were timed: a run's time_s is always the host clock
     * (nccl-tests'); CUDA events add gpu_time_s.  Imports: unknown. */
    if (set(doc, "timer",
            meta && meta->run ? json_string(cp_bench_timer_name(meta->run))
                              : json_null()) < 0)
        goto fail;
    if (meta && meta->run && set(doc, "run", run_json(meta->run)) < 0)
        goto fail;
    if (meta && meta->sources) {
        json_t *src = json_array();
        if (set(doc, "sources", src) < 0)
            goto fail;
        for (i = 0; i < meta->nsources; i++)
            if (json_array_append_new(src, json_string(meta->sources[i])) < 0)
                goto fail;
    }
    if (set(doc, "series", series = json_array()) < 0 ||
        set(doc, "points", points = json_array()) < 0)
        goto fail;
    for (i = 0; i < sweep->nseries; i++)
        if (json_array_append_new(series, series_json(&sweep->series[i])) < 0)
            goto fail;
    for (i = 0; i < sweep->npoints; i++) {
        const struct cp_bench_point *p = &sweep->points[i];
        if (json_array_append_new(points, point_json(sweep, p)) < 0)
            goto fail;
        if (p->wrong > 0) {
            wrong += p->wrong;
            wrong_points++;
        }
    }
    if (cal && (set(doc, "fit", fit_json(cal)) < 0 ||
                set(doc, "calibration", calibration_json(cal)) < 0))
        goto fail;
    if (set(doc, "wrong_total", json_integer(wrong)) < 0 ||
        set(doc, "wrong_points", json_integer(wrong_points)) < 0)
        goto fail;
    if (meta && meta->import) {
        json_t *skipped = json_array();
        if (set(doc, "skipped_lines", skipped) < 0)
            goto fail;
        for (i = 0; i < meta->import->nissues; i++) {
            const struct cp_bench_import_issue *is = &meta->import->issues[i];
            if (json_array_append_new(skipped,
                                      json_pack("{s:s,s:i,s:s}", "source",
                                                is->source, "line",
                                                (int)is->line, "why",
                                                is->why)) < 0)
                goto fail;
        }
    }
    return doc;
fail:
    json_decref(doc);
    return NULL;
}

/* doc to path through a temporary file renamed into place. */
static int write_doc(json_t *doc, const char *path, struct cp_error *err)
{
    struct cp_path_out out;

    if (cp_path_create(&out, path, CP_PATH_MODE, err) < 0)
        return -1;
    if (json_dumpf(doc, out.f,
                   JSON_INDENT(1) | JSON_PRESERVE_ORDER |
                       JSON_REAL_PRECISION(12)) < 0) {
        cp_error_set(err, path, -1, "cannot write %s", path);
        cp_path_discard(&out);
        return -1;
    }
    return cp_path_install(&out, err);
}

int cp_bench_write_json(const struct cp_bench_set *set,
                        const struct cp_bench_calibration *cal,
                        const struct cp_bench_meta *meta, const char *path,
                        struct cp_error *err)
{
    json_t *doc = cp_bench_json(set, cal, meta);
    int rc;

    if (!doc) {
        return cp_errorf_at(err, path, -1, "%s: out of memory", path);
    }
    rc = write_doc(doc, path, err);
    json_decref(doc);
    return rc;
}

static void csv_real(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.9g", v);
    else
        fputs(",", f);
}

int cp_bench_write_csv(const struct cp_bench_set *set, const char *path,
                       struct cp_error *err)
{
    struct cp_path_out out;
    FILE *f;
    size_t i;

    if (cp_path_create(&out, path, CP_PATH_MODE, err) < 0)
        return -1;
    f = out.f;
    fputs("op,ranks,link,size_bytes,count,type,redop,root,in_place,time_s,"
          "algbw_Bps,busbw_Bps,wrong,iters,median_time_s,gpu_time_s\n",
          f);
    for (i = 0; i < set->npoints; i++) {
        const struct cp_bench_point *p = &set->points[i];
        const struct cp_bench_series *s =
            p->series < set->nseries ? &set->series[p->series] : NULL;
        const struct cp_coll_facts *op = cp_model_coll_facts(p->coll);
        fprintf(f, "%s,%u,%s,%llu,%llu,%s,%s,%d,%d",
                cp_model_coll_name(p->coll), p->ranks,
                cp_bench_link_name(s ? s->link : CP_BENCH_LINK_UNKNOWN),
                (unsigned long long)p->size_bytes,
                (unsigned long long)p->count, s && s->type[0] ? s->type : "",
                op && op->reduces ? "sum" : "none", p->root, p->in_place);
        csv_real(f, p->time_s);
        csv_real(f, p->algbw_Bps);
        csv_real(f, p->busbw_Bps);
        if (p->wrong >= 0)
            fprintf(f, ",%lld", (long long)p->wrong);
        else
            fputs(",", f);
        fprintf(f, ",%u", p->iters);
        csv_real(f, p->median_time_s > 0 ? p->median_time_s : NAN);
        csv_real(f, p->gpu_time_s > 0 ? p->gpu_time_s : NAN);
        fputc('\n', f);
    }
    return cp_path_install(&out, err);
}
