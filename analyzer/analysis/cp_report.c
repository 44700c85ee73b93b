/* cp_report.c - report.json from a finished analysis (docs/report-schema.md).
 *
 * Keys are inserted in the documented order; Jansson keeps insertion order,
 * so the output is stable.  Numbers that are not finite become null.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "cp_analysis.h"
#include "cp_analysis_int.h"
#include "cp_hang.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"

static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

/* A JSON string of s; bytes that would not make valid UTF-8 (file names
 * are bytes) become '?'. */
static json_t *jstr(const char *s)
{
    json_t *v;
    char *copy, *p;

    if (!s)
        return json_null();
    v = json_string(s);
    if (v)
        return v;
    copy = strdup(s);
    if (!copy)
        return NULL;
    for (p = copy; *p; p++)
        if ((unsigned char)*p > 0x7e || (unsigned char)*p < 0x20)
            *p = '?';
    v = json_string(copy);
    free(copy);
    return v;
}

static json_t *node_names(const struct cp_analysis *an, const unsigned *nodes,
                          size_t n)
{
    int bad = 0;
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++)
        bad |= add(
            a, jstr(nodes[i] < an->nnodes ? an->nodes[nodes[i]].name : "?"));
    return built(a, bad);
}

static json_t *int_list(const int *v, size_t n)
{
    int bad = 0;
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++)
        bad |= add(a, json_integer(v[i]));
    return built(a, bad);
}

static json_t *job_json(const struct cp_analysis *an)
{
    int bad = 0;
    json_t *o = json_object(), *nodes = json_array(), *ranks = json_array();
    size_t i;

    bad |= set(o, "job_id", jstr(an->job_id));
    bad |= set(o, "step_id", jstr(an->step_id));
    for (i = 0; i < an->nnodes; i++)
        bad |= add(nodes, jstr(an->nodes[i].name));
    bad |= set(o, "nodes", nodes);
    for (i = 0; i < an->nranks; i++)
        bad |= add(ranks, json_integer(an->ranks[i].rank));
    bad |= set(o, "ranks", ranks);
    bad |= set(o, "world_size",
               an->world_size > 0 ? json_integer(an->world_size) : json_null());
    bad |= set(o, "processes", jint(an->nranks));
    return built(o, bad);
}

static json_t *skew_q_json(const struct cp_analysis_skew_q *q,
                           const char *source)
{
    int bad = 0;
    json_t *o = json_object();

    bad |= set(o, "p50_s", jnum(q->p50_s));
    bad |= set(o, "p90_s", jnum(q->p90_s));
    bad |= set(o, "max_s", jnum(q->max_s));
    if (source)
        bad |= set(o, "source", jstr(source));
    return built(o, bad);
}

static json_t *summary_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_summary *s = &an->summary;
    json_t *o = json_object();

    bad |= set(o, "calls", jint(s->calls));
    bad |= set(o, "failed_calls", jint(s->failed_calls));
    bad |= set(o, "instances", jint(s->instances));
    bad |= set(o, "incomplete_instances", jint(s->incomplete_instances));
    bad |= set(o, "p2p_pairs", jint(s->p2p_pairs));
    bad |= set(o, "unmatched_p2p", jint(s->unmatched_p2p));
    bad |= set(o, "late_records", jint(s->late_records));
    bad |= set(o, "unjoinable_calls", jint(s->unjoinable_calls));
    bad |= set(o, "comm_time_s", jnum(s->comm_time_s));
    bad |= set(o, "skew_time_s", jnum(s->skew_time_s));
    bad |= set(o, "wait_time_s", jnum(s->wait_time_s));
    bad |= set(o, "rank_time_s", jnum(s->rank_time_s));
    bad |= set(o, "latency_bound_s", jnum(s->latency_bound_s));
    bad |= set(o, "latency_bound_share", jnum(s->latency_bound_share));
    bad |= set(o, "span_s", jnum(s->span_s));
    bad |= set(o, "busy_s", jnum(s->busy_s));
    bad |= set(o, "rank_nccl_share_median", jnum(s->rank_share_median));
    bad |= set(o, "rank_nccl_share_max", jnum(s->rank_share_max));
    bad |= set(o, "rank_nccl_share_max_rank",
               s->rank_share_max_rank >= 0 ? jint(s->rank_share_max_rank)
                                           : json_null());
    bad |= set(o, "steps", s->steps ? jint(s->steps) : json_null());
    bad |= set(o, "steps_method", jstr(s->steps_method));
    bad |= set(o, "bucket_bytes",
               s->bucket_bytes > 0 ? jnum(s->bucket_bytes) : json_null());
    bad |= set(o, "timer", jstr(cp_timer_name(s->timer)));
    bad |= set(o, "records", jint(s->records));
    bad |= set(o, "skipped_inputs", jint(s->inputs_skipped));
    bad |= set(o, "missing_ranks", int_list(s->missing_ranks, s->nmissing));
    {
        const struct cp_analysis_window_info *w = &an->window;
        json_t *win = json_object();
        bad |= set(win, "by", jstr(w->by));
        bad |= set(win, "from_s", jnum(w->from_s));
        bad |= set(win, "to_s", jnum(w->to_s));
        bad |= set(win, "calls_left_out", jint(w->calls_left_out));
        bad |= set(win, "logs_from_sync_point",
                   jint(w->logs_from_sync_point));
        bad |= set(o, "window", win);
    }
    return built(o, bad);
}

static json_t *link_json(const struct cp_analysis_link *m)
{
    int bad = 0;
    json_t *o = json_object(), *q = json_object(), *fit = json_object();

    bad |= set(o, "source", jstr(cp_link_source_name(m->source)));
    bad |= set(o, "alpha_s", jnum(m->alpha_s));
    bad |= set(o, "bandwidth_Bps", jnum(m->bandwidth_Bps));
    bad |= set(q, "median_rel_residual", jnum(m->fit_median_rel_residual));
    bad |= set(q, "r2", jnum(m->fit_r2));
    bad |= set(o, "quality", q);
    bad |= set(o, "calls_used", jint(m->fit_calls_used));
    bad |= set(fit, "ok", json_boolean(m->fit_ok));
    bad |= set(fit, "alpha_s", jnum(m->fit_alpha_s));
    bad |= set(fit, "bandwidth_Bps", jnum(m->fit_bandwidth_Bps));
    bad |= set(fit, "points", jint(m->fit_points));
    bad |= set(fit, "points_used", jint(m->fit_points_used));
    bad |= set(fit, "why", m->fit_ok ? json_null() : jstr(m->fit_why));
    bad |= set(fit, "weak", json_boolean(m->fit_weak));
    bad |=
        set(fit, "weak_why", m->fit_weak ? jstr(m->fit_weak_why) : json_null());
    bad |= set(o, "fit", fit);
    bad |= set(o, "bandwidth_bound_calls", jint(m->bw_calls));
    bad |= set(o, "busbw_Bps", jnum(m->busbw_Bps));
    bad |= set(o, "model_busbw_Bps", jnum(m->model_busbw_Bps));
    bad |= set(o, "expected_Bps", jnum(m->expected_Bps));
    bad |= set(o, "expected_source",
               jstr(cp_link_source_name(m->expected_source)));
    bad |= set(o, "reference_busbw_Bps", jnum(m->reference_busbw_Bps));
    return built(o, bad);
}

static unsigned table_max(const struct cp_analysis *an);

/* A node's |clock offset estimate|, for ordering. */
struct node_mag {
    double mag;
    size_t node;
};

/* the largest first; ties: the lower index */
static int node_mag_cmp(const void *a, const void *b)
{
    const struct node_mag *x = a, *y = b;

    if (x->mag != y->mag)
        return x->mag > y->mag ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* clock_offsets.summary of a job on over table_max nodes, and in listed
 * the nodes clock_offsets.nodes keeps: the reference, the CP_REPORT_WORST
 * of largest |estimate|, and the nodes of clock_offset findings. */
static json_t *offsets_summary_json(const struct cp_analysis *an,
                                    unsigned char *listed)
{
    int bad = 0;
    json_t *o = json_object();
    size_t i, j, n = 0, known = 0, significant = 0, count = 0;
    struct node_mag *m = malloc((an->nnodes + 1) * sizeof *m);
    double median = NAN, largest = NAN;

    if (!m)
        return built(o, -1);
    listed[an->offset_reference < an->nnodes ? an->offset_reference : 0] = 1;
    for (i = 0; i < an->nnodes; i++) {
        if (!an->nodes[i].offset_known)
            continue;
        known++;
        significant += an->nodes[i].offset_significant != 0;
        m[n].mag = fabs(an->nodes[i].offset_estimate_s);
        m[n].node = i;
        n++;
    }
    qsort(m, n, sizeof *m, node_mag_cmp);
    for (i = 0; i < n && i < CP_REPORT_WORST; i++)
        listed[m[i].node] = 1;
    if (n) {
        largest = m[0].mag;
        median = m[n / 2].mag;
    }
    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        if (f->kind != CP_KIND_CLOCK_OFFSET)
            continue;
        for (j = 0; j < f->nnodes && count < table_max(an); j++)
            if (f->nodes[j] < an->nnodes && !listed[f->nodes[j]]) {
                listed[f->nodes[j]] = 1;
                count++;
            }
    }
    for (i = count = 0; i < an->nnodes; i++)
        count += listed[i];
    bad |= set(o, "nodes", jint(an->nnodes));
    bad |= set(o, "listed", jint(count));
    bad |= set(o, "known", jint(known));
    bad |= set(o, "significant", jint(significant));
    bad |= set(o, "median_abs_estimate_s", jnum(median));
    bad |= set(o, "max_abs_estimate_s", jnum(largest));
    free(m);
    return built(o, bad);
}

static json_t *offsets_json(const struct cp_analysis *an)
{
    int bad = 0;
    json_t *o = json_object(), *nodes = json_array(), *summary = NULL;
    unsigned char *listed = NULL;
    size_t i;

    bad |= set(o, "reference",
               an->nnodes ? jstr(an->nodes[an->offset_reference].name)
                          : json_null());
    bad |= set(o, "method",
               jstr("median over the first instances of symmetric "
                    "collectives of each node's mean end time minus the "
                    "reference node's, within the bounds that the order "
                    "of the calls allows (every member ends after every "
                    "member started); applied only where those bounds "
                    "exclude a shared clock"));
    bad |= set(o, "instances", jint(an->offset_instances));
    if (an->nnodes > table_max(an)) {
        listed = calloc(an->nnodes, 1);
        if (!listed)
            return built(o, -1);
        summary = offsets_summary_json(an, listed);
    }
    for (i = 0; i < an->nnodes; i++) {
        json_t *n;
        if (listed && !listed[i])
            continue;
        n = json_object();
        bad |= set(n, "node", jstr(an->nodes[i].name));
        bad |= set(n, "offset_s",
                   an->nodes[i].offset_known ? jnum(an->nodes[i].offset_s)
                                             : json_null());
        bad |= set(n, "samples", jint(an->nodes[i].offset_samples));
        bad |=
            set(n, "estimate_s",
                an->nodes[i].offset_known ? jnum(an->nodes[i].offset_estimate_s)
                                          : json_null());
        bad |= set(n, "low_s",
                   an->nodes[i].offset_known ? jnum(an->nodes[i].offset_low_s)
                                             : json_null());
        bad |= set(n, "high_s",
                   an->nodes[i].offset_known ? jnum(an->nodes[i].offset_high_s)
                                             : json_null());
        bad |= set(n, "significant",
                   json_boolean(an->nodes[i].offset_significant));
        bad |= add(nodes, n);
    }
    bad |= set(o, "nodes", nodes);
    if (listed) /* summed up: the summary is there, or nothing is */
        bad |= set(o, "summary", summary);
    free(listed);
    return built(o, bad);
}

/* A communicator's ranks: the global rank of each communicator rank (-1
 * not seen) - or, where the logs hold fewer than a quarter of a large
 * claimed size, only the members seen, {"rank", "global_rank"} each: the
 * report grows with the records present, not with a claim. */
#define SPARSE_RANKS_MIN 4096u

static int comm_sparse(const struct cp_analysis_comm *c)
{
    size_t r, seen = 0;

    if (c->nranks <= SPARSE_RANKS_MIN)
        return 0;
    for (r = 0; r < c->nranks; r++)
        seen += c->ranks[r] >= 0;
    return seen * 4 < c->nranks;
}

static json_t *comm_members(const struct cp_analysis_comm *c)
{
    int bad = 0;
    json_t *a = json_array();
    size_t r;

    for (r = 0; r < c->nranks; r++) {
        json_t *m;
        if (c->ranks[r] < 0)
            continue;
        m = json_object();
        bad |= set(m, "rank", jint(r));
        bad |= set(m, "global_rank", jint(c->ranks[r]));
        bad |= add(a, m);
    }
    return built(a, bad);
}

static json_t *instances_json(const struct cp_analysis *an,
                              const struct cp_analysis_instance *v, size_t n)
{
    int bad = 0;
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++) {
        const struct cp_analysis_instance *x = &v[i];
        const struct cp_analysis_comm *c = &an->comms[x->comm];
        json_t *o = json_object();
        bad |= set(o, "op", jstr(cp_model_coll_name(x->coll)));
        if (x->copy_engine)
            bad |= set(o, "path", jstr("copy_engine"));
        bad |= set(o, "bytes", jnum(x->bytes));
        bad |= set(o, "comm", hex_id(c->id));
        bad |= set(o, "comm_name", jstr(c->name));
        bad |= set(o, "seq", jint(x->seq));
        bad |= set(o, "members", jint(x->members));
        bad |= set(o, "nranks", jint(c->nranks));
        bad |= set(o, "start_s", jnum(x->start_s));
        bad |= set(o, "own_s", jnum(x->own_s));
        bad |= set(o, "model_s", jnum(x->model_s));
        bad |= set(o, "vs_model",
                   jnum(x->model_s > 0 ? x->own_s / x->model_s : NAN));
        bad |= set(o, "skew_s", jnum(x->skew_s));
        bad |=
            set(o, "last_rank",
                x->last_rank >= 0 ? jint((uint64_t)x->last_rank) : json_null());
        bad |= set(o, "last_node",
                   x->last_rank >= 0 && x->last_node < an->nnodes
                       ? jstr(an->nodes[x->last_node].name)
                       : json_null());
        bad |= set(o, "late_by_s", jnum(x->members >= 2 ? x->late_s : NAN));
        if (x->algo) {
            bad |= set(o, "algorithm", jstr(cp_nccl_algo_name(x->algo)));
            bad |= set(o, "protocol", jstr(cp_nccl_proto_name(x->proto)));
        }
        bad |= add(a, o);
    }
    return built(a, bad);
}

static json_t *slowest_json(const struct cp_analysis *an)
{
    int bad = 0;
    json_t *o = json_object();

    bad |= set(o, "by_own_time",
               instances_json(an, an->slowest_own, an->nslowest_own));
    bad |= set(o, "by_skew",
               instances_json(an, an->slowest_skew, an->nslowest_skew));
    return built(o, bad);
}

static json_t *comms_json(const struct cp_analysis *an)
{
    int bad = 0;
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < an->ncomms; i++) {
        const struct cp_analysis_comm *c = &an->comms[i];
        json_t *o = json_object();
        bad |= set(o, "id", hex_id(c->id));
        bad |= set(o, "name", jstr(c->name));
        bad |= set(o, "nranks", jint(c->nranks));
        bad |= set(o, "link",
                   jstr(c->missing && c->nnodes <= 1
                            ? "unknown"
                            : cp_link_class_name(c->link)));
        bad |= set(o, "missing_members", jint(c->missing));
        bad |= set(o, "nodes", node_names(an, c->nodes, c->nnodes));
        if (comm_sparse(c)) {
            bad |= set(o, "ranks", json_null());
            bad |= set(o, "members", comm_members(c));
        } else {
            bad |= set(o, "ranks", int_list(c->ranks, c->nranks));
        }
        bad |= set(o, "instances", jint(c->instances));
        bad |= set(o, "incomplete", jint(c->incomplete));
        bad |= set(o, "p2p_pairs", jint(c->p2p));
        bad |= set(o, "time_s", jnum(c->time_s));
        {
            json_t *sk = json_object();
            bad |= set(sk, "p50_s", jnum(c->skew_p50_s));
            bad |= set(sk, "p90_s", jnum(c->skew_p90_s));
            bad |= set(sk, "p99_s", jnum(c->skew_p99_s));
            bad |= set(sk, "max_s", jnum(c->skew_max_s));
            /* the starts on the hosts' clocks, offset-corrected */
            bad |= set(sk, "source", jstr("host_clock"));
            bad |= set(o, "skew", sk);
        }
        if (c->kernel_instances > 0) {
            /* the kernels' own, on one device clock each (API v7's
             * initial-sync phases): left out without them */
            json_t *ks = skew_q_json(&c->kernel_skew, "kernel_phases");
            bad |= set(ks, "instances", jint(c->kernel_instances));
            bad |= set(o, "kernel_skew", ks);
        }
        bad |= add(a, o);
    }
    return built(a, bad);
}

/* 1 when the counts v (n of them, [0] the unknown choice) hold a known
 * algorithm or protocol. */
static int choice_known(const uint64_t *v, unsigned n)
{
    unsigned k;

    for (k = 1; k < n; k++)
        if (v[k])
            return 1;
    return 0;
}

/* Instances by NCCL's algorithm or protocol: {"Ring": n, ...}, the known
 * ones only ({} when none is). */
static json_t *choice_counts(const uint64_t *v, unsigned n, int algo)
{
    json_t *o = json_object();
    int bad = 0;
    unsigned k;

    for (k = 1; k < n; k++)
        if (v[k])
            bad |= set(o, algo ? cp_nccl_algo_name(k) : cp_nccl_proto_name(k),
                       jint(v[k]));
    return built(o, bad);
}

static json_t *rows_json(const struct cp_analysis *an)
{
    int bad = 0;
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < an->nrows; i++) {
        const struct cp_analysis_row *r = &an->rows[i];
        const char *op = cp_model_coll_name(r->coll);
        json_t *o = json_object();
        bad |= set(o, "op", jstr(op ? op : "unknown"));
        bad |= set(o, "comm", hex_id(an->comms[r->comm].id));
        bad |= set(o, "link", jstr(cp_link_class_name(r->link)));
        /* only copy-engine rows say their path: a kind of their own */
        if (r->copy_engine)
            bad |= set(o, "path", jstr("copy_engine"));
        bad |= set(
            o, "nranks",
            jint(r->coll == CP_COLL_SENDRECV ? 2 : an->comms[r->comm].nranks));
        bad |= set(o, "bucket_bytes", jnum(r->bucket_lo));
        bad |= set(o, "calls", jint(r->calls));
        bad |= set(o, "bytes", jnum(r->bytes));
        bad |= set(o, "time_s", jnum(r->time_s));
        bad |= set(o, "p50_s", jnum(r->p50_s));
        bad |= set(o, "p99_s", jnum(r->p99_s));
        bad |= set(o, "skew_s", jnum(r->skew_s));
        bad |= set(o, "algbw_Bps", jnum(r->algbw_Bps));
        bad |= set(o, "busbw_Bps", jnum(r->busbw_Bps));
        bad |= set(o, "model_time_s", jnum(r->model_time_s));
        bad |= set(o, "efficiency", jnum(r->efficiency));
        if (r->model_mismatch)
            bad |=
                set(o, "efficiency_note",
                    jstr("over twice as fast as the model: the model does not "
                         "describe these calls"));
        bad |= set(o, "regime", jstr(cp_model_regime_name(r->regime)));
        bad |= set(o, "latency_share", jnum(r->latency_share));
        bad |= set(o, "incomplete", jint(r->incomplete));
        bad |= set(o, "grouped", jint(r->grouped));
        /* left out when no algorithm is known, so that reports without
         * the plugin keep their bytes */
        if (choice_known(r->algo_calls, CP_ANALYSIS_ALGOS)) {
            bad |= set(o, "algorithms",
                       choice_counts(r->algo_calls, CP_ANALYSIS_ALGOS, 1));
            bad |= set(o, "protocols",
                       choice_counts(r->proto_calls, CP_ANALYSIS_PROTOS, 0));
        }
        bad |= add(a, o);
    }
    return built(a, bad);
}

static json_t *timeline_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_timeline *tl = &an->timeline;
    json_t *o = json_object(), *windows = json_array();
    int present[CP_COLL_COUNT] = {0};
    size_t i;
    unsigned k;

    /* the same keys in every window: the collectives of the report */
    for (i = 0; i < an->nrows; i++)
        if ((unsigned)an->rows[i].coll < CP_COLL_COUNT)
            present[an->rows[i].coll] = 1;
    bad |= set(o, "window_s", tl->nwindows ? jnum(tl->window_s) : json_null());
    for (i = 0; i < tl->nwindows; i++) {
        const struct cp_analysis_window *w = &tl->windows[i];
        json_t *q = json_object(), *ops = json_object();
        bad |= set(q, "start_s", jnum(w->start_s));
        bad |= set(q, "end_s", jnum(w->end_s));
        bad |= set(q, "comm_time_s", jnum(w->comm_time_s));
        bad |= set(q, "calls", jint(w->calls));
        bad |= set(q, "bytes", jnum(w->bytes));
        bad |= set(q, "wait_time_s", jnum(w->wait_time_s));
        for (k = 0; k < CP_COLL_COUNT; k++)
            if (present[k])
                bad |= set(ops, cp_model_coll_name((enum cp_coll)k),
                           jnum(w->op_time_s[k]));
        bad |= set(q, "op_time_s", ops);
        bad |= set(q, "busbw_Bps", jnum(w->busbw_Bps));
        bad |= set(q, "latency_share", jnum(w->latency_share));
        bad |= set(q, "slowness", jnum(w->slowness));
        bad |= set(q, "warmup", json_boolean(w->warmup));
        bad |= add(windows, q);
    }
    bad |= set(o, "windows", windows);
    return built(o, bad);
}

/* Whether finding evidence names communicator id ("comm"). */
static int lr_named(const struct cp_analysis *an, uint64_t id)
{
    char hex[24];
    size_t i;

    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)id);
    for (i = 0; i < an->nfindings; i++) {
        const char *c = json_string_value(
            json_object_get(an->findings[i].evidence, "comm"));
        if (c && !strcmp(c, hex))
            return 1;
    }
    return 0;
}

/* The communicators long_run.intervals[].comms lists: listed[ci] set
 * (listed[ncomms]: entries of no known communicator, always listed).
 * Every one when the run has at most CP_REPORT_LR_COMMS, or every job's
 * tables are listed in full; else those a finding names and the
 * CP_REPORT_LR_COMMS of most own time over the run.  *present: the
 * communicators with aggregates; returns how many are listed, or -1 (out
 * of memory). */
static long lr_listed(const struct cp_analysis *an, unsigned char *listed,
                      size_t *present)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    double *own = calloc(an->ncomms + 1, sizeof *own);
    size_t i, k, n = 0;

    if (!own)
        return -1;
    for (i = 0; i < lr->nlr_comms; i++) {
        const struct cp_analysis_lr_comm *c = &lr->lr_comms[i];
        size_t ci = c->comm < an->ncomms ? c->comm : an->ncomms;
        if (!listed[ci] && ci < an->ncomms)
            n++;
        listed[ci] = 1;
        own[ci] += isfinite(c->own_s) ? c->own_s : 0;
    }
    *present = n;
    if (n > CP_REPORT_LR_COMMS && an->rank_table_max != UINT_MAX) {
        /* 1: listed; 2: present, a candidate */
        n = 0;
        for (i = 0; i < an->ncomms; i++)
            if (listed[i] && lr_named(an, an->comms[i].id))
                n++;
            else if (listed[i])
                listed[i] = 2;
        for (k = 0; k < CP_REPORT_LR_COMMS; k++) {
            size_t best = an->ncomms;
            for (i = 0; i < an->ncomms; i++)
                if (listed[i] == 2 &&
                    (best == an->ncomms || own[i] > own[best]))
                    best = i;
            if (best == an->ncomms)
                break;
            listed[best] = 1;
            n++;
        }
        for (i = 0; i < an->ncomms; i++)
            if (listed[i] == 2)
                listed[i] = 0;
    }
    free(own);
    return (long)n;
}

/* Communicator entry c of an interval. */
static json_t *lr_comm_json(const struct cp_analysis *an,
                            const struct cp_analysis_lr_comm *c)
{
    int bad = 0;
    json_t *e = json_object();
    const struct cp_analysis_comm *ac =
        c->comm < an->ncomms ? &an->comms[c->comm] : NULL;

    bad |= set(e, "comm", ac ? hex_id(ac->id) : json_null());
    bad |= set(e, "comm_name", json_string(ac ? ac->name : ""));
    bad |= set(e, "ranks", jint(c->ranks));
    bad |= set(e, "calls", jint(c->calls));
    bad |= set(e, "instances", jnum(c->instances));
    bad |= set(e, "nccl_s", jnum(c->nccl_s));
    bad |= set(e, "own_s", jnum(c->own_s));
    bad |= set(e, "busbw_Bps", jnum(c->busbw_Bps));
    bad |= set(e, "skew_s", jnum(c->skew_s));
    bad |= set(e, "last_rank",
               c->last_rank >= 0 ? jint(c->last_rank) : json_null());
    bad |= set(e, "latency_share", jnum(c->latency_share));
    return built(e, bad);
}

/* Interval iv: its figures, its listed communicators and, when the run's
 * listing is cut (cut), what the others add up to. */
static json_t *lr_interval_json(const struct cp_analysis *an,
                                const struct cp_analysis_lr_interval *iv,
                                const unsigned char *listed, int cut)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    json_t *q = json_object(), *comms = json_array();
    double width = iv->end_s - iv->start_s, calls = 0, inst = 0, nccl = 0,
           own = 0;
    size_t j, others = 0;
    int bad = 0;

    bad |= set(q, "start_s", jnum(iv->start_s));
    bad |= set(q, "end_s", jnum(iv->end_s));
    bad |= set(q, "nccl_s", jnum(iv->nccl_s));
    bad |= set(q, "own_s", jnum(iv->own_s));
    bad |= set(q, "own_per_s", jnum(width > 0 ? iv->own_s / width : NAN));
    bad |= set(q, "steps", jnum(iv->steps));
    bad |= set(q, "own_per_step_s",
               jnum(iv->steps > 0 ? iv->own_s / iv->steps : NAN));
    for (j = iv->first; j < iv->first + iv->n; j++) {
        const struct cp_analysis_lr_comm *c = &lr->lr_comms[j];
        if (listed[c->comm < an->ncomms ? c->comm : an->ncomms]) {
            bad |= add(comms, lr_comm_json(an, c));
            continue;
        }
        others++;
        calls += (double)c->calls;
        inst += c->instances;
        nccl += c->nccl_s;
        own += isfinite(c->own_s) ? c->own_s : 0;
    }
    bad |= set(q, "comms", comms);
    if (cut) {
        json_t *o = json_object();
        bad |= set(o, "comms", jint(others));
        bad |= set(o, "calls", jnum(calls));
        bad |= set(o, "instances", jnum(inst));
        bad |= set(o, "nccl_s", jnum(nccl));
        bad |= set(o, "own_s", jnum(own));
        bad |= set(q, "others", o);
    }
    return built(q, bad);
}

/* The detail windows of a long run, by start. */
static json_t *lr_windows_json(const struct cp_analysis_long_run *lr)
{
    json_t *wins = json_array();
    size_t i;
    int bad = 0;

    for (i = 0; i < lr->nwindows; i++) {
        const struct cp_analysis_lr_window *w = &lr->windows[i];
        json_t *q = json_object();
        bad |= set(q, "index", jint(w->index & ~CP_ANALYSIS_LR_OUTSIDE));
        bad |= set(q, "outside",
                   json_boolean(w->index & CP_ANALYSIS_LR_OUTSIDE));
        bad |= set(q, "start_s", jnum(w->start_s));
        bad |= set(q, "end_s", jnum(w->end_s));
        bad |= set(q, "instances", jint(w->instances));
        bad |= add(wins, q);
    }
    return built(wins, bad);
}

/* A long run under a capture policy (docs/report-schema.md, long_run). */
static json_t *long_run_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_long_run *lr = &an->long_run;
    json_t *o = json_object(), *pol = json_object(), *ivs = json_array();
    unsigned char *listed = calloc(an->ncomms + 1, 1);
    size_t i, present = 0;
    long nlisted = listed ? lr_listed(an, listed, &present) : -1;

    if (nlisted < 0) {
        free(listed);
        json_decref(o);
        json_decref(pol);
        json_decref(ivs);
        return NULL;
    }
    bad |= set(pol, "first", jint(lr->first));
    bad |= set(pol, "window", jint(lr->window));
    bad |= set(pol, "every", jint(lr->every));
    bad |= set(pol, "interval_s", jnum((double)lr->interval_ms * 1e-3));
    bad |= set(pol, "differs", json_boolean(lr->policies_differ));
    bad |= set(o, "policy", pol);
    bad |= set(o, "start_ns", json_integer((json_int_t)an->summary.start_ns));
    bad |= set(o, "interval_s", jnum(lr->interval_s));
    bad |= set(o, "merged", jint(lr->merged));
    bad |= set(o, "kept_calls", jint(lr->kept_calls));
    bad |= set(o, "partial_instances", jint(lr->triggered_partial));
    bad |= set(o, "folded_calls", jint(lr->folded_calls));
    bad |= set(o, "aggregates", jint(lr->records));
    bad |= set(o, "aggregates_left_out", jint(lr->records_left_out));
    bad |= set(o, "comms", jint(present));
    bad |= set(o, "comms_listed", jint((uint64_t)nlisted));
    bad |= set(o, "detail_windows", lr_windows_json(lr));
    bad |= set(o, "detail_windows_left_out", jint(lr->windows_left_out));
    for (i = 0; i < lr->nintervals; i++)
        bad |= add(ivs, lr_interval_json(an, &lr->intervals[i], listed,
                                         (size_t)nlisted < present));
    bad |= set(o, "intervals", ivs);
    free(listed);
    return built(o, bad);
}

/* ---- per-process tables of large jobs (docs/report-schema.md,
 * rank_summary) ---------------------------------------------------------- */

static unsigned table_max(const struct cp_analysis *an)
{
    return an->rank_table_max ? an->rank_table_max : CP_REPORT_RANK_TABLE_MAX;
}

/* The per-rank figures summarised, in the order of the report's keys. */
static double fig_calls(const struct cp_analysis_rank *r)
{
    return (double)r->calls;
}

static double fig_failed(const struct cp_analysis_rank *r)
{
    return (double)r->failed;
}

static double fig_time(const struct cp_analysis_rank *r)
{
    return r->time_s;
}

static double fig_last(const struct cp_analysis_rank *r)
{
    return (double)r->last_arrivals;
}

static double fig_late(const struct cp_analysis_rank *r)
{
    return r->late_s;
}

static double fig_delay(const struct cp_analysis_rank *r)
{
    return r->delay_s;
}

static const struct rank_figure {
    const char *key;
    double (*value)(const struct cp_analysis_rank *r);
    int integer; /* a count: written as an integer */
} rank_figures[] = {
    {"calls", fig_calls, 1},
    {"failed", fig_failed, 1},
    {"time_s", fig_time, 0},
    {"last_arrivals", fig_last, 1},
    {"late_s", fig_late, 0},
    {"in_call_delay_s", fig_delay, 0},
};
#define NFIGURES (sizeof rank_figures / sizeof rank_figures[0])

#define HISTOGRAM_BINS 32u
static const double quantiles[] = {0.10, 0.25, 0.50, 0.75, 0.90, 0.99};
static const char *const quantile_keys[] = {"p10", "p25", "p50",
                                            "p75", "p90", "p99"};

/* One value per item (rank or node) and its index, sorted by value, then
 * by index: the order every list below is taken from. */
struct keyed {
    double v;
    size_t i;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;

    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static json_t *fig_value(const struct rank_figure *fg, double v)
{
    return fg->integer ? json_integer((json_int_t)llround(v)) : jnum(v);
}

/* The value at sorted position round(q (n - 1)). */
static double quantile_of(const struct keyed *k, size_t n, double q)
{
    return k[(size_t)llround(q * (double)(n - 1))].v;
}

/* The worst items: the first CP_REPORT_WORST of k (sorted in the order of
 * the list: highest first or lowest first) whose value lies beyond the
 * median, so that a figure every item shares lists nobody.  mark (ranks
 * only, may be NULL) gets a 1 for each rank listed. */
static json_t *worst_list(const struct cp_analysis *an,
                          const struct rank_figure *fg, const struct keyed *k,
                          size_t n, double median, int highest, int nodes,
                          unsigned char *mark)
{
    int bad = 0;
    json_t *a = json_array();
    size_t j;

    for (j = 0; j < n && j < CP_REPORT_WORST; j++) {
        const struct keyed *x = &k[j];
        json_t *o;
        if (highest ? !(x->v > median) : !(x->v < median))
            break;
        o = json_object();
        if (nodes) {
            bad |= set(o, "node", jstr(an->nodes[x->i].name));
            bad |= set(o, "ranks", jint(an->nodes[x->i].ranks));
            bad |= set(o, "value", jnum(x->v));
        } else {
            const struct cp_analysis_rank *r = &an->ranks[x->i];
            bad |= set(o, "rank", json_integer(r->rank));
            bad |= set(o, "node", jstr(an->nodes[r->node].name));
            bad |= set(o, "value", fig_value(fg, x->v));
            if (mark)
                mark[x->i] = 1;
        }
        bad |= add(a, o);
    }
    return built(a, bad);
}

/* The first m items of k (n sorted by keyed_cmp) by value from the
 * highest, then by index, into desc: the runs of equal values from the
 * top, each in its own (ascending index) order.  How many. */
static size_t top_descending(const struct keyed *k, size_t n, size_t m,
                             struct keyed *desc)
{
    size_t got = 0, end = n;

    while (end > 0 && got < m) {
        size_t start = end - 1, j;
        while (start > 0 && k[start - 1].v == k[end - 1].v)
            start--;
        for (j = start; j < end && got < m; j++)
            desc[got++] = k[j];
        end = start;
    }
    return got;
}

/* highest, lowest: the lists of both ends of k (n sorted ascending; *desc
 * is scratch of CP_REPORT_WORST items). */
static int both_ends(json_t *o, const struct cp_analysis *an,
                     const struct rank_figure *fg, const struct keyed *k,
                     struct keyed *desc, size_t n, int nodes,
                     unsigned char *mark)
{
    int bad = 0;
    double median = n ? quantile_of(k, n, 0.5) : NAN;
    size_t top = top_descending(k, n, CP_REPORT_WORST, desc);

    bad |= set(o, nodes ? "nodes_highest" : "highest",
               worst_list(an, fg, desc, top, median, 1, nodes, mark));
    bad |= set(o, nodes ? "nodes_lowest" : "lowest",
               worst_list(an, fg, k, n, median, 0, nodes, mark));
    return bad;
}

/* One figure's distribution over the ranks (non-finite values left out),
 * its worst ranks and its worst nodes (by the mean of their ranks). */
static json_t *figure_json(const struct cp_analysis *an,
                           const struct rank_figure *fg, unsigned char *mark)
{
    int bad = 0;
    size_t cap = (an->nranks > an->nnodes ? an->nranks : an->nnodes) + 1;
    struct keyed *k = malloc(cap * sizeof *k),
                 *desc = malloc(CP_REPORT_WORST * sizeof *desc);
    double *sum = calloc(an->nnodes + 1, sizeof *sum);
    size_t *count = calloc(an->nnodes + 1, sizeof *count);
    json_t *o = json_object(), *hist = NULL;
    size_t n = 0, i, q;
    double total = 0;

    if (!k || !desc || !sum || !count) {
        bad = -1;
        goto out;
    }
    for (i = 0; i < an->nranks; i++) {
        double v = fg->value(&an->ranks[i]);
        if (!isfinite(v))
            continue;
        k[n].v = v;
        k[n].i = i;
        n++;
        total += v;
        sum[an->ranks[i].node] += v;
        count[an->ranks[i].node]++;
    }
    qsort(k, n, sizeof *k, keyed_cmp);
    bad |= set(o, "ranks", jint(n));
    bad |= set(o, "mean", n ? jnum(total / (double)n) : json_null());
    bad |= set(o, "min", n ? fig_value(fg, k[0].v) : json_null());
    for (q = 0; q < sizeof quantiles / sizeof quantiles[0]; q++)
        bad |= set(o, quantile_keys[q],
                   n ? fig_value(fg, quantile_of(k, n, quantiles[q]))
                     : json_null());
    bad |= set(o, "max", n ? fig_value(fg, k[n - 1].v) : json_null());
    if (n) {
        double lo = k[0].v, hi = k[n - 1].v;
        unsigned bins = hi > lo ? HISTOGRAM_BINS : 1, b;
        uint64_t counts[HISTOGRAM_BINS] = {0};
        json_t *c = json_array();
        for (i = 0; i < n; i++) {
            double x = bins > 1 ? (k[i].v - lo) / (hi - lo) * bins : 0;
            b = x >= bins ? bins - 1 : (unsigned)x;
            counts[b]++;
        }
        for (b = 0; b < bins; b++)
            bad |= add(c, jint(counts[b]));
        hist = json_object();
        bad |= set(hist, "lo", jnum(lo));
        bad |= set(hist, "hi", jnum(hi));
        bad |= set(hist, "counts", c);
    }
    bad |= set(o, "histogram", hist ? hist : json_null());
    bad |= both_ends(o, an, fg, k, desc, n, 0, mark);
    /* nodes: the mean of their ranks' values */
    for (i = n = 0; i < an->nnodes; i++) {
        if (!count[i])
            continue;
        k[n].v = sum[i] / (double)count[i];
        k[n].i = i;
        n++;
    }
    qsort(k, n, sizeof *k, keyed_cmp);
    bad |= both_ends(o, an, fg, k, desc, n, 1, NULL);
out:
    free(k);
    free(desc);
    free(sum);
    free(count);
    return built(o, bad);
}

/* Global rank -> index into an->ranks (sorted by global rank); -1 absent. */
static long rank_index(const struct cp_analysis *an, int rank)
{
    size_t lo = 0, hi = an->nranks;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (an->ranks[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < an->nranks && an->ranks[lo].rank == rank ? (long)lo : -1;
}

/* `rank_summary`, and in mark the ranks that ranks[] and topology.ranks[]
 * list: those at either end of some figure, the stragglers, and the ranks
 * of findings that name at most CP_REPORT_WORST ranks. */
static json_t *rank_summary_json(const struct cp_analysis *an,
                                 unsigned char *mark)
{
    int bad = 0;
    json_t *o = json_object(), *figs = json_object();
    size_t i, j, listed = 0;

    for (i = 0; i < NFIGURES; i++)
        bad |= set(figs, rank_figures[i].key,
                   figure_json(an, &rank_figures[i], mark));
    for (i = 0; i < an->nranks; i++)
        if (an->ranks[i].straggler)
            mark[i] = 1;
    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        if (f->nranks > CP_REPORT_WORST)
            continue;
        for (j = 0; j < f->nranks; j++) {
            long x = rank_index(an, f->ranks[j]);
            if (x >= 0)
                mark[x] = 1;
        }
    }
    for (i = 0; i < an->nranks; i++)
        listed += mark[i];
    bad |= set(o, "ranks", jint(an->nranks));
    bad |= set(o, "nodes", jint(an->nnodes));
    bad |= set(o, "listed", jint(listed));
    bad |= set(o, "table_max", jint(table_max(an)));
    bad |= set(o, "worst", jint(CP_REPORT_WORST));
    bad |= set(o, "figures", figs);
    return built(o, bad);
}

/* ranks[]: every rank, or (mark not NULL) the marked ones. */
static json_t *ranks_json(const struct cp_analysis *an,
                          const unsigned char *mark)
{
    int bad = 0;
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_rank *r = &an->ranks[i];
        json_t *o;
        if (mark && !mark[i])
            continue;
        o = json_object();
        bad |= set(o, "rank", json_integer(r->rank));
        bad |= set(o, "node", jstr(an->nodes[r->node].name));
        bad |= set(o, "calls", jint(r->calls));
        bad |= set(o, "failed", jint(r->failed));
        bad |= set(o, "time_s", jnum(r->time_s));
        bad |= set(o, "last_arrivals", jint(r->last_arrivals));
        bad |= set(o, "late_s", jnum(r->late_s));
        bad |= add(a, o);
    }
    return built(a, bad);
}

/* A K x K matrix of the pairs' values (null elsewhere), or null when K is
 * too large for a matrix to be useful. */
static json_t *pair_matrix(const struct cp_analysis *an, int bandwidth)
{
    int bad = 0;
    const struct cp_analysis_topology *topo = &an->topology;
    json_t *rows, **cells = NULL;
    size_t K = an->nnodes, i, j;

    if (K > 1024)
        return json_null();
    rows = json_array();
    cells = calloc(K * K + 1, sizeof *cells);
    if (!rows || !cells) {
        json_decref(rows);
        free(cells);
        return NULL;
    }
    /* each cell holds one reference of its own (a value shared by the
     * two halves of the matrix is held twice) */
    for (i = 0; i < topo->npairs; i++) {
        const struct cp_analysis_pair *p = &topo->pairs[i];
        double v = bandwidth ? p->bandwidth_Bps : p->efficiency;
        size_t ab = p->a * K + p->b, ba = p->b * K + p->a;
        json_t *x;
        if (p->a >= K || p->b >= K || !isfinite(v))
            continue;
        if (!(x = json_real(v))) {
            bad = -1;
            continue;
        }
        json_decref(cells[ab]);
        cells[ab] = x;
        if (ba != ab) {
            json_decref(cells[ba]);
            cells[ba] = json_incref(x);
        }
    }
    for (i = 0; i < K; i++) {
        json_t *row = json_array();
        for (j = 0; j < K; j++) {
            json_t *c = cells[i * K + j];
            bad |= add(row, c ? json_incref(c) : json_null());
        }
        bad |= add(rows, row);
    }
    for (i = 0; i < K * K; i++)
        json_decref(cells[i]);
    free(cells);
    return built(rows, bad);
}

static json_t *pair_names(const struct cp_analysis *an,
                          const struct cp_analysis_pair *p)
{
    unsigned two[2];

    two[0] = p->a;
    two[1] = p->b;
    return node_names(an, two, 2);
}

/* The probe folded in (docs/report-schema.md, topology.probe), or null. */
static json_t *probe_json(const struct cp_analysis_probe *pr)
{
    int bad = 0;
    json_t *o, *unknown;
    size_t i;

    if (!pr->file)
        return json_null();
    o = json_object();
    unknown = json_array();
    bad |= set(o, "file", jstr(pr->file));
    bad |= set(o, "nodes", jint(pr->nodes));
    bad |= set(o, "matched_nodes", jint(pr->matched_nodes));
    for (i = 0; i < pr->nunknown; i++)
        bad |= add(unknown, jstr(pr->unknown[i]));
    bad |= set(o, "unknown_nodes", unknown);
    bad |= set(o, "pairs", jint(pr->pairs));
    bad |= set(o, "slow_pairs", jint(pr->slow_pairs));
    bad |= set(o, "reference_Bps", jnum(pr->reference_Bps));
    bad |= set(o, "reference_source", jstr(pr->reference_source));
    bad |= set(o, "median_latency_s", jnum(pr->median_latency_s));
    return built(o, bad);
}

static json_t *topology_json(const struct cp_analysis *an,
                             const unsigned char *mark)
{
    int bad = 0;
    const struct cp_analysis_topology *topo = &an->topology;
    json_t *o = json_object(), *nodes = json_array(), *th = json_object(),
           *pairs = json_array(), *units = json_array(), *ranks = json_array();
    size_t i, k;

    for (i = 0; i < an->nnodes; i++)
        bad |= add(nodes, jstr(an->nodes[i].name));
    bad |= set(o, "nodes", nodes);
    bad |= set(o, "reference_Bps", jnum(topo->reference_Bps));
    bad |= set(o, "reference_source",
               jstr(cp_link_source_name(topo->reference_source)));
    bad |= set(th, "slow", jnum(topo->slow_threshold));
    bad |= set(th, "slow_p2p", jnum(topo->slow_threshold_p2p));
    bad |= set(th, "ok", jnum(topo->ok_threshold));
    bad |= set(th, "min_bandwidth_share", jnum(topo->min_bandwidth_share));
    bad |= set(th, "straggler_delay_s", jnum(topo->straggler_delay_s));
    bad |= set(o, "thresholds", th);
    bad |= set(o, "bandwidth_Bps", pair_matrix(an, 1));
    bad |= set(o, "efficiency", pair_matrix(an, 0));
    for (i = 0; i < topo->npairs; i++) {
        const struct cp_analysis_pair *p = &topo->pairs[i];
        json_t *q = json_object();
        bad |= set(q, "nodes", pair_names(an, p));
        bad |= set(q, "state", jstr(cp_pair_state_name(p->state)));
        bad |= set(q, "bandwidth_Bps", jnum(p->bandwidth_Bps));
        bad |= set(q, "efficiency", jnum(p->efficiency));
        bad |= set(q, "slowdown", jnum(p->slowdown));
        bad |= set(q, "units", jint(p->units));
        bad |= set(q, "calls", jint(p->calls));
        bad |= set(q, "slow_calls", jint(p->slow_calls));
        bad |= set(q, "source", jstr(cp_pair_source_name(p->source)));
        bad |= set(q, "probe_bandwidth_Bps",
                   p->probed ? jnum(p->probe_bandwidth_Bps) : json_null());
        bad |= add(pairs, q);
    }
    bad |= set(o, "pairs", pairs);
    bad |= set(o, "probe", probe_json(&topo->probe));
    for (i = 0; i < topo->nunits; i++) {
        const struct cp_analysis_unit *u = &topo->units[i];
        const struct cp_analysis_comm *c = &an->comms[u->comm];
        json_t *q = json_object(), *up = json_array();
        bad |= set(q, "comm", hex_id(c->id));
        bad |= set(q, "op", jstr(cp_model_coll_name(u->coll)));
        if (u->src_node >= 0 && u->dst_node >= 0) {
            unsigned two[2];
            two[0] = (unsigned)u->src_node;
            two[1] = (unsigned)u->dst_node;
            bad |= set(q, "nodes", node_names(an, two, 2));
        } else {
            bad |= set(q, "nodes", node_names(an, c->nodes, c->nnodes));
        }
        bad |= set(q, "bytes", jnum(u->bytes));
        bad |= set(q, "calls", jint(u->calls));
        bad |= set(q, "time_s", jnum(u->time_s));
        bad |= set(q, "delay_s", jnum(u->delay_s));
        bad |= set(q, "peer_time_s", jnum(u->peer_time_s));
        bad |= set(q, "baseline", jstr(cp_baseline_name(u->baseline)));
        if (u->coll != CP_COLL_SENDRECV)
            bad |= set(q, "clean_calls", jint(u->clean_calls));
        bad |= set(q, "floored", json_boolean(u->floored));
        bad |= set(q, "bandwidth_share", jnum(u->bandwidth_share));
        bad |= set(q, "slowdown", jnum(u->slowdown));
        for (k = 0; k < u->npairs; k++)
            bad |= add(up, pair_names(an, &topo->pairs[u->pairs[k]]));
        bad |= set(q, "pairs", up);
        bad |= set(q, "verdict", jstr(cp_unit_verdict_name(u->verdict)));
        bad |= add(units, q);
    }
    bad |= set(o, "units", units);
    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_rank *r = &an->ranks[i];
        json_t *q;
        if (mark && !mark[i])
            continue;
        q = json_object();
        bad |= set(q, "rank", json_integer(r->rank));
        bad |= set(q, "node", jstr(an->nodes[r->node].name));
        bad |= set(q, "last_arrivals", jint(r->last_arrivals));
        bad |= set(q, "mean_late_s",
                   jnum(r->calls ? r->late_s / (double)r->calls : NAN));
        bad |= set(q, "in_call_delay_s", jnum(r->delay_s));
        bad |= set(q, "straggler", json_boolean(r->straggler));
        bad |= add(ranks, q);
    }
    bad |= set(o, "ranks", ranks);
    return built(o, bad);
}

static json_t *ports_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_ports *pv = &an->ports;
    json_t *o = json_object(), *nodes = json_array(), *problems = json_array();
    /* the ports of each node in the order they were read: by[at[n] ..
     * at[n + 1]) (a counting sort, not a walk over every port per node) */
    size_t *at = calloc(an->nnodes + 1, sizeof *at),
           *by = malloc((pv->nports ? pv->nports : 1) * sizeof *by);
    size_t n, i;

    if (!at || !by) {
        bad = -1;
        goto out;
    }
    for (i = 0; i < pv->nports; i++)
        if (pv->ports[i].node < an->nnodes)
            at[pv->ports[i].node + 1]++;
    for (n = 0; n < an->nnodes; n++)
        at[n + 1] += at[n];
    for (i = 0; i < pv->nports; i++)
        if (pv->ports[i].node < an->nnodes)
            by[at[pv->ports[i].node]++] = i;
    /* each at[n] now the end of node n's ports, the start of n + 1's */
    bad |= set(o, "snapshots", jint(pv->snapshots));
    for (n = 0; n < an->nnodes; n++) {
        json_t *node = NULL, *ports = NULL;
        int start = 0, end = 0;
        for (i = n ? at[n - 1] : 0; i < at[n]; i++) {
            const struct cp_analysis_port *p = &pv->ports[by[i]];
            json_t *q;
            if (!ports)
                ports = json_array();
            start |= p->have_start;
            end |= p->have_end;
            q = json_object();
            bad |= set(q, "device", jstr(p->device));
            bad |= set(q, "port", jint(p->port));
            bad |= set(q, "state", jstr(p->state));
            bad |= set(q, "link_layer", jstr(p->link_layer));
            bad |= set(q, "rate_Gbps", jnum(p->rate_Gbps));
            bad |= set(q, "peer_rate_Gbps", jnum(p->peer_rate_Gbps));
            bad |= set(q, "counters",
                       p->rose ? json_deep_copy(p->rose) : json_object());
            bad |= add(ports, q);
        }
        if (!ports)
            continue;
        node = json_object();
        bad |= set(node, "node", jstr(an->nodes[n].name));
        bad |= set(node, "start", json_boolean(start));
        bad |= set(node, "end", json_boolean(end));
        bad |= set(node, "ports", ports);
        bad |= add(nodes, node);
    }
out:
    free(at);
    free(by);
    bad |= set(o, "nodes", nodes);
    for (i = 0; i < pv->nproblems; i++) {
        json_t *q = json_object();
        bad |= set(q, "file", jstr(pv->problems[i].file));
        bad |= set(q, "message", jstr(pv->problems[i].message));
        bad |= add(problems, q);
    }
    bad |= set(o, "problems", problems);
    return built(o, bad);
}

static json_t *findings_json(const struct cp_analysis *an)
{
    int bad = 0;
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        json_t *o = json_object();
        bad |= set(o, "kind", jstr(cp_kind_name(f->kind)));
        bad |= set(o, "severity", jstr(cp_severity_name(f->severity)));
        bad |= set(o, "nodes", node_names(an, f->nodes, f->nnodes));
        bad |= set(o, "ranks", int_list(f->ranks, f->nranks));
        bad |= set(o, "message", jstr(f->message));
        bad |= set(o, "evidence",
                   f->evidence ? json_deep_copy(f->evidence) : json_object());
        bad |= add(a, o);
    }
    return built(a, bad);
}

/* ---- links: one verdict per node pair ---------------------------------- */

/* Whether finding f speaks of the pair of nodes a, b: a slow_link naming
 * both, or a slow_link_candidates listing them. */
static int finding_names_pair(const struct cp_analysis *an,
                              const struct cp_analysis_finding *f, unsigned a,
                              unsigned b)
{
    json_t *cands, *c;
    size_t i;

    if (f->kind == CP_KIND_SLOW_LINK)
        return f->nnodes == 2 &&
               ((f->nodes[0] == a && f->nodes[1] == b) ||
                (f->nodes[0] == b && f->nodes[1] == a));
    if (f->kind != CP_KIND_SLOW_LINK_CANDIDATES ||
        !f->evidence)
        return 0;
    cands = json_object_get(f->evidence, "candidates");
    json_array_foreach(cands, i, c) {
        const char *x = json_string_value(json_array_get(c, 0)),
                   *y = json_string_value(json_array_get(c, 1));
        if (x && y &&
            ((!strcmp(x, an->nodes[a].name) && !strcmp(y, an->nodes[b].name)) ||
             (!strcmp(x, an->nodes[b].name) && !strcmp(y, an->nodes[a].name))))
            return 1;
    }
    return 0;
}

/* The proxy link of a -> b (the plugin's), or NULL. */
static const struct cp_analysis_net_link *
proxy_link(const struct cp_analysis *an, unsigned from, unsigned to)
{
    size_t i;

    for (i = 0; i < an->nccl.nlinks; i++)
        if (an->nccl.links[i].from == from && an->nccl.links[i].to == to)
            return &an->nccl.links[i];
    return NULL;
}

static json_t *proxy_json(const struct cp_analysis_net_link *l)
{
    int bad = 0;
    json_t *o;

    if (!l)
        return json_null();
    o = json_object();
    bad |= set(o, "bytes", jint(l->bytes));
    bad |= set(o, "bandwidth_Bps", jnum(l->step_bandwidth_Bps));
    bad |= set(o, "median_Bps", jnum(l->median_Bps));
    bad |= set(o, "slow", json_boolean(l->slow));
    return built(o, bad);
}

/* One link's entry: the calls' or the probe's pair p (NULL: seen by the
 * plugin's proxies only), nodes a < b. */
static json_t *pair_link_json(const struct cp_analysis *an,
                              const struct cp_analysis_pair *p, size_t pi,
                              unsigned a, unsigned b)
{
    int bad = 0;
    const struct cp_analysis_topology *topo = &an->topology;
    const struct cp_analysis_net_link *ab = proxy_link(an, a, b),
                                      *ba = proxy_link(an, b, a);
    json_t *o = json_object(), *fs = json_array(), *nodes;
    const char *verdict = p ? cp_pair_state_name(p->state) : "unclear";
    const char *source = p ? cp_pair_source_name(p->source) : "proxy";
    double bytes = 0;
    uint64_t calls = 0;
    unsigned two[2] = {a, b};
    size_t i, k;
    int proxy_slow, named = 0, warned = 0;

    for (i = 0; p && i < topo->nunits; i++)
        for (k = 0; k < topo->units[i].npairs; k++)
            if (topo->units[i].pairs[k] == pi) {
                bytes += topo->units[i].bytes * (double)topo->units[i].calls;
                calls += topo->units[i].calls;
            }
    proxy_slow = (ab && ab->slow) || (ba && ba->slow);
    if (proxy_slow) {
        if (!p || p->state != CP_PAIR_SLOW)
            source = "proxy";
        verdict = "slow";
    }
    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        if (!finding_names_pair(an, f, a, b))
            continue;
        bad |= add(fs, jint(i));
        named = 1;
        warned |= f->kind == CP_KIND_SLOW_LINK &&
                  f->severity >= CP_SEVERITY_WARNING;
    }
    /* the findings' word: a slow_link warning is slow; a weak slow_link
     * (an info: too few calls, or within a named straggler's reach) or
     * candidates only suspect it, whatever the calls' state */
    if (!proxy_slow && named)
        verdict = warned ? "slow" : "suspect";
    nodes = node_names(an, two, 2);
    bad |= set(o, "nodes", nodes);
    bad |= set(o, "verdict", jstr(verdict));
    bad |= set(o, "source", jstr(source));
    bad |= set(o, "bytes", jnum(bytes));
    bad |= set(o, "calls", jint(calls));
    bad |= set(o, "judged_calls", jint(p ? p->calls : 0));
    bad |= set(o, "bandwidth_Bps", jnum(p ? p->bandwidth_Bps : NAN));
    bad |=
        set(o, "reference_Bps",
            jnum(!p                                ? NAN
                 : p->source == CP_PAIR_FROM_PROBE ? topo->probe.reference_Bps
                                                   : topo->reference_Bps));
    bad |= set(o, "efficiency", jnum(p ? p->efficiency : NAN));
    bad |= set(o, "probe_bandwidth_Bps",
               p && p->probed ? jnum(p->probe_bandwidth_Bps) : json_null());
    bad |= set(o, "proxy", proxy_json(ab));
    bad |= set(o, "proxy_back", proxy_json(ba));
    bad |= set(o, "findings", fs);
    return built(o, bad);
}

/* Every node pair the job measured (docs/report-schema.md, links): the
 * calls' and the probe's pairs, then those only the proxies saw. */
static json_t *links_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_topology *topo = &an->topology;
    json_t *a = json_array();
    size_t i, k;

    for (i = 0; i < topo->npairs; i++)
        bad |= add(a, pair_link_json(an, &topo->pairs[i], i, topo->pairs[i].a,
                                     topo->pairs[i].b));
    for (i = 0; i < an->nccl.nlinks; i++) {
        const struct cp_analysis_net_link *l = &an->nccl.links[i];
        unsigned lo = l->from < l->to ? l->from : l->to,
                 hi = l->from < l->to ? l->to : l->from;
        int seen = 0;
        if (lo == hi)
            continue;
        for (k = 0; k < topo->npairs && !seen; k++)
            seen = topo->pairs[k].a == lo && topo->pairs[k].b == hi;
        /* the reverse direction of one already listed */
        for (k = 0; k < i && !seen; k++)
            seen = (an->nccl.links[k].from == l->to &&
                    an->nccl.links[k].to == l->from);
        if (!seen)
            bad |= add(a, pair_link_json(an, NULL, 0, lo, hi));
    }
    return built(a, bad);
}

/* One tag's sums (cp_tags.c); comm_time: the summary's, for the share. */
static json_t *tag_json(const struct cp_analysis_tag *t, double comm_time)
{
    int bad = 0;
    json_t *o = json_object();

    if (t->none || t->other)
        bad |= set(o, "tag", json_null());
    else if (t->value <= (uint64_t)INT64_MAX)
        bad |= set(o, "tag", json_integer((json_int_t)t->value));
    else
        bad |= set(o, "tag", json_real((double)t->value));
    bad |= set(o, "name", t->name[0] ? jstr(t->name) : json_null());
    bad |= set(o, "calls", jint(t->calls));
    bad |= set(o, "bytes", jnum(t->bytes));
    bad |= set(o, "time_s", jnum(t->time_s));
    bad |=
        set(o, "time_share", jnum(comm_time > 0 ? t->time_s / comm_time : NAN));
    bad |= set(o, "busbw_Bps",
               jnum(t->duration_s > 0 ? t->fn / t->duration_s : NAN));
    bad |= set(o, "latency_bound_s", jnum(t->latency_bound_s));
    bad |=
        set(o, "latency_bound_share",
            jnum(t->modeled_s > 0 ? t->latency_bound_s / t->modeled_s : NAN));
    return built(o, bad);
}

/* The calls of each application tag (cp_tags.c). */
static json_t *tags_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_tags *t = &an->nccl.tags;
    json_t *o = json_object(), *rows = json_array();
    size_t i;

    bad |= set(o, "available", json_boolean(t->present));
    bad |= set(o, "why", t->why ? jstr(t->why) : json_null());
    bad |= set(o, "tag_records", jint(t->records));
    bad |= set(o, "names_given", jint(t->named));
    for (i = 0; i < t->n; i++)
        bad |= add(rows, tag_json(&t->v[i], an->summary.comm_time_s));
    bad |= set(o, "by_tag", rows);
    bad |= set(o, "without_tag_record",
               t->present ? tag_json(&t->none, an->summary.comm_time_s)
                          : json_null());
    return built(o, bad);
}

/* What NCCL's profiler plugin told (cp_ncclview.c). */

/* The line of nccl_profiler.phases for a rank the kernels clearly put last
 * while no straggler finding names anyone (not a finding: the hosts'
 * arrivals did not show it), into buf; 0 when there is none. */
static int phases_info(const struct cp_analysis *an, char *buf, size_t len)
{
    const struct cp_analysis_phase_rank *p =
        an_phases_clear_last(&an->nccl.phases);
    size_t i;

    if (!p)
        return 0;
    for (i = 0; i < an->nfindings; i++)
        if (an->findings[i].kind == CP_KIND_STRAGGLER)
            return 0;
    snprintf(buf, len,
             "the kernels saw rank %d come last in %llu of %llu instances "
             "(on their GPUs' own clocks); the hosts' arrivals name no "
             "straggler",
             p->rank, (unsigned long long)p->last_arrivals,
             (unsigned long long)an->nccl.phases.instances);
    return 1;
}

/* nccl_profiler.phases: the kernels' own skew beside the hosts'. */
static json_t *phases_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_phases *ph = &an->nccl.phases;
    json_t *o = json_object();
    char info[256];

    bad |= set(o, "initial_sync_records", jint(ph->records));
    bad |= set(o, "damaged_records", jint(ph->damaged));
    bad |= set(o, "instances", jint(ph->instances));
    if (ph->why) {
        bad |= set(o, "why", jstr(ph->why));
        return built(o, bad);
    }
    bad |= set(o, "skew", skew_q_json(&ph->skew, "kernel_phases"));
    bad |= set(o, "host_skew", skew_q_json(&ph->host_skew, "host_clock"));
    bad |= set(o, "difference", skew_q_json(&ph->difference, NULL));
    {
        json_t *a = json_array();
        size_t i;
        for (i = 0; i < ph->nlast; i++) {
            json_t *r = json_object();
            bad |= set(r, "rank", jint((uint64_t)ph->last[i].rank));
            bad |= set(r, "last_arrivals", jint(ph->last[i].last_arrivals));
            bad |= set(r, "late_s", jnum(ph->last[i].late_s));
            bad |= add(a, r);
        }
        bad |= set(o, "last_arrivals", a);
    }
    if (phases_info(an, info, sizeof info))
        bad |= set(o, "info", jstr(info));
    return built(o, bad);
}

static json_t *nccl_json(const struct cp_analysis *an)
{
    int bad = 0;
    const struct cp_analysis_nccl *v = &an->nccl;
    json_t *o = json_object(), *algos = json_array(), *links = json_array();
    size_t i;

    for (i = 0; i < v->nalgo; i++) {
        const struct cp_analysis_algo_row *a = &v->algo[i];
        json_t *r = json_object();
        const char *op = cp_op_name(a->op);
        bad |= set(r, "op", jstr(op ? op : "unknown"));
        bad |= set(r, "size_class_bytes", jint(a->bytes));
        bad |= set(r, "algorithm", jstr(cp_nccl_algo_name(a->algo)));
        bad |= set(r, "protocol", jstr(cp_nccl_proto_name(a->proto)));
        bad |= set(r, "calls", jint(a->calls));
        bad |= add(algos, r);
    }
    for (i = 0; i < v->nlinks; i++) {
        const struct cp_analysis_net_link *l = &v->links[i];
        json_t *r = json_object();
        bad |= set(r, "from", jstr(an->nodes[l->from].name));
        bad |= set(r, "to", jstr(an->nodes[l->to].name));
        bad |= set(r, "bytes", jint(l->bytes));
        bad |= set(r, "proxy_ops", jint(l->ops));
        bad |= set(r, "busy_s", jnum(l->busy_s));
        bad |= set(r, "bandwidth_Bps", jnum(l->bandwidth_Bps));
        bad |= set(r, "step_bandwidth_Bps", jnum(l->step_bandwidth_Bps));
        bad |= set(r, "step_bytes", jnum(l->step_bytes));
        bad |= set(r, "median_link_Bps", jnum(l->median_Bps));
        bad |= set(r, "links_judged", jint(l->judged_with));
        bad |= set(r, "slow", json_boolean(l->slow));
        bad |= add(links, r);
    }
    bad |= set(o, "algorithms", algos);
    bad |= set(o, "links", links);
    bad |= set(o, "links_method", jstr("proxy_steps"));
    bad |= set(o, "median_link_Bps", jnum(v->median_Bps));
    bad |= set(o, "proxy_ops", jint(v->proxy_ops));
    bad |= set(o, "link_records", jint(v->link_records));
    {
        json_t *j = json_object();
        bad |= set(j, "key", jstr("communicator call order"));
        bad |= set(j, "processes", jint(v->join_processes));
        bad |= set(j, "plugin_only_processes",
                   jint(v->join_plugin_only_processes));
        bad |= set(j, "joined_calls", jint(v->join_calls));
        bad |= set(j, "shim_only_calls", jint(v->join_shim_only));
        bad |= set(j, "plugin_only_calls", jint(v->join_plugin_only));
        bad |= set(j, "graph_launched_calls", jint(v->join_graph_calls));
        bad |= set(j, "graph_launches_added", jint(v->join_replays));
        bad |= set(j, "captures_left_out", jint(v->captures_left_out));
        bad |= set(j, "with_kernel_interval", jint(v->join_gpu));
        bad |= set(j, "timed_by_kernel_interval", jint(v->gpu_timed));
        bad |= set(o, "join", j);
    }
    bad |= set(o, "tags", tags_json(an));
    bad |= set(o, "phases", phases_json(an));
    return built(o, bad);
}

/* An input a reader of a large job's report needs to see: anything but a
 * log of this job read in full, without a problem, that its writer closed. */
static int input_notable(const struct cp_analysis_input *in)
{
    return in->status != CP_INPUT_OK || !in->closed ||
           in->skipped_records || in->truncated_bytes || in->records_dropped;
}

/* inputs.summary (jobs over table_max inputs only): the counts behind a
 * files[] that lists only the notable inputs. */
static json_t *inputs_summary_json(const struct cp_analysis *an, size_t listed,
                                   size_t notable)
{
    int bad = 0;
    json_t *o = json_object(), *st = json_object();
    uint64_t n[4] = {0}, open = 0, records = 0, calls = 0, skipped = 0;
    size_t i;
    unsigned k;

    for (i = 0; i < an->ninputs; i++) {
        const struct cp_analysis_input *in = &an->inputs[i];
        if ((unsigned)in->status < 4)
            n[in->status]++;
        open += !in->closed;
        records += in->records;
        calls += in->calls;
        skipped += in->skipped_records;
    }
    bad |= set(o, "files", jint(an->ninputs));
    bad |= set(o, "listed", jint(listed));
    bad |= set(o, "notable", jint(notable));
    for (k = 0; k < 4; k++)
        bad |= set(
            st, cp_analysis_input_status_name((enum cp_analysis_input_status)k),
            jint(n[k]));
    bad |= set(o, "status", st);
    bad |= set(o, "not_closed", jint(open));
    bad |= set(o, "records", jint(records));
    bad |= set(o, "calls", jint(calls));
    bad |= set(o, "skipped_records", jint(skipped));
    bad |= set(o, "problems", jint(an->nproblems));
    return built(o, bad);
}

static json_t *inputs_json(const struct cp_analysis *an)
{
    int bad = 0;
    json_t *o = json_object(), *files = json_array(), *problems = json_array();
    size_t i, listed = 0, notable = 0;
    int all = an->ninputs <= table_max(an);

    for (i = 0; i < an->ninputs; i++) {
        const struct cp_analysis_input *in = &an->inputs[i];
        json_t *f;
        if (!all) {
            if (!input_notable(in))
                continue;
            if (notable++ >= table_max(an))
                continue;
        }
        listed++;
        f = json_object();
        bad |= set(f, "file", jstr(in->path));
        bad |=
            set(f, "status", jstr(cp_analysis_input_status_name(in->status)));
        bad |= set(f, "rank", json_integer(in->global_rank));
        bad |= set(f, "node", jstr(in->node));
        bad |= set(f, "pid", json_integer(in->pid));
        bad |= set(f, "job_id", jstr(in->job_id));
        bad |= set(f, "records", jint(in->records));
        bad |= set(f, "calls", jint(in->calls));
        bad |= set(f, "skipped_records", jint(in->skipped_records));
        bad |= set(f, "truncated_bytes", jint(in->truncated_bytes));
        bad |= set(f, "records_dropped", jint(in->records_dropped));
        bad |= set(f, "closed", json_boolean(in->closed));
        if (in->source == CP_SOURCE_PLUGIN) {
            /* only on plugin logs: older reports keep their bytes */
            bad |= set(f, "source", jstr("nccl-profiler"));
            bad |= set(f, "evidence_only", json_boolean(in->evidence_only));
        }
        bad |= add(files, f);
    }
    bad |= set(o, "files", files);
    if (!all)
        bad |= set(o, "summary", inputs_summary_json(an, listed, notable));
    for (i = 0; i < an->nproblems; i++) {
        const struct cp_analysis_problem *p = &an->problems[i];
        json_t *q;
        if (!all && i >= table_max(an))
            break;
        q = json_object();
        bad |= set(q, "file", jstr(p->file));
        bad |= set(q, "offset",
                   p->offset >= 0 ? json_integer(p->offset) : json_null());
        bad |= set(q, "message", jstr(p->message));
        bad |= add(problems, q);
    }
    bad |= set(o, "problems", problems);
    return built(o, bad);
}

json_t *cp_analysis_to_json(const struct cp_analysis *an)
{
    json_t *root = json_object(), *model = json_object(), *summary = NULL;
    unsigned char *mark = NULL;
    int bad = 0;
    unsigned k;

    if (an->nranks > table_max(an)) {
        mark = calloc(an->nranks, 1);
        if (!mark)
            bad = -1;
        else
            summary = rank_summary_json(an, mark);
    }

    bad |= set(root, "schema", jstr(CP_REPORT_SCHEMA));
    bad |= set(root, "generator", jstr("collprof " PACKAGE_VERSION));
    bad |= set(root, "job", job_json(an));
    if (an->hang)
        bad |= set(root, "hang", cp_hang_to_json(an));
    bad |= set(root, "summary", summary_json(an));
    for (k = 0; k < CP_LINK_COUNT; k++)
        bad |= set(model, cp_link_class_name(k), link_json(&an->model[k]));
    bad |= set(root, "model", model);
    bad |= set(root, "clock_offsets", offsets_json(an));
    bad |= set(root, "communicators", comms_json(an));
    bad |= set(root, "collectives", rows_json(an));
    bad |= set(root, "ranks", ranks_json(an, mark));
    if (mark) /* summed up: the summary is there, or nothing is */
        bad |= set(root, "rank_summary", summary);
    bad |= set(root, "timeline", timeline_json(an));
    if (an->long_run.present)
        bad |= set(root, "long_run", long_run_json(an));
    bad |= set(root, "slowest", slowest_json(an));
    bad |= set(root, "topology", topology_json(an, mark));
    bad |= set(root, "links", links_json(an));
    bad |= set(root, "ports", ports_json(an));
    if (an->nccl.present)
        bad |= set(root, "nccl_profiler", nccl_json(an));
    bad |= set(root, "findings", findings_json(an));
    bad |= set(root, "inputs", inputs_json(an));
    free(mark);
    return built(root, bad);
}
