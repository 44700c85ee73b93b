/* cp_judge.c - the run of an analysis (cp_analysis_run): join, then
 * judge.  The join is analysis/'s: the inputs read (cp_inputs.c), the two
 * passes over the logs (the streaming join, cp_stream.c), the fit and the
 * rows (cp_evals.c), the aggregates (cp_aggregate.c), the links
 * (cp_links.c) and the hang pass (cp_hang.c).  Then the detectors of
 * cp_detect.c's table judge (one file per family, cp_det_*.c).  The
 * detectors ask the run through analysis/cp_view.c and never call back
 * here; nothing in analysis/ calls into this folder.  docs/analysis.md
 * explains the method; the JSON writer is analysis/cp_report.c.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_aggregate.h"
#include "cp_detect.h"
#include "cp_evals.h"
#include "cp_hang.h"
#include "cp_inputs.h"
#include "cp_judge.h"
#include "cp_links.h"
#include "cp_ncclview.h"
#include "cp_partial.h"
#include "cp_portview.h"

/* Records per file read by the first pass (clock offsets): at most
 * PREFIX_RECORDS, and PREFIX_TOTAL over all files (at least
 * PREFIX_RECORDS_MIN each), so that the pass costs the same at any rank
 * count: with thousands of ranks one instance already gives a sample to
 * every pair of its nodes, and a per-file count would read small logs
 * whole, a second full pass. */
#define PREFIX_RECORDS 4096
#define PREFIX_TOTAL ((uint64_t)PREFIX_RECORDS * 64)
#define PREFIX_RECORDS_MIN 32

static void collect_file_results(struct cp_analysis *an, struct an_state *st)
{
    size_t i;

    for (i = 0; i < st->nfiles; i++) {
        struct an_file *f = &st->files[i];
        struct cp_analysis_input *in = &an->inputs[f->input];
        const struct cp_error *pr;
        struct cp_logfile_stats ls;

        if (!f->sc)
            continue;
        cp_scan_stats(f->sc, &ls);
        in->records = ls.records;
        in->calls = st->ranks[i].calls;
        in->skipped_records = ls.bad + f->bad_time;
        in->truncated_bytes = ls.truncated;
        in->has_phases |= f->phases;
        pr = cp_scan_problem(f->sc);
        if (pr)
            an_add_problem(an, in->path, pr->offset, pr->text);
        if (f->problem_noted)
            an_add_problem(an, in->path, f->problem_offset, f->problem);
        if (pr || f->problem_noted || in->header_times_bad)
            in->status = CP_INPUT_DAMAGED;
        cp_scan_close(f->sc);
        f->sc = NULL;
    }
    /* communicators refused for the memory budget: one problem, on the
     * file the first claim came from */
    if (st->nrefused && st->refused_first_file >= 0 &&
        (size_t)st->refused_first_file < st->nfiles) {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "communicator %016llx claims %u ranks: past the analysis' "
                 "memory budget for communicators (%zu MiB); %zu "
                 "communicator(s) refused, %llu of their records not "
                 "analysed",
                 (unsigned long long)st->refused_first_id,
                 st->refused_first_nranks, AN_COMM_BUDGET >> 20,
                 st->nrefused, (unsigned long long)st->refused_calls);
        an_add_problem(an,
                       an->inputs[st->files[st->refused_first_file].input].path,
                       -1, msg);
    }
}

/* Where the warm-up ends: the start of the second step (step_start),
 * INT64_MIN when the steps are not known (or their start cannot be read).
 * The hang pass reads every log anyway: *watch (set here, given to
 * cp_hang_analyze) has it look for the step's instance in those reads,
 * and warmup_end then reads nothing; *at holds the start when no watch is
 * needed (watch->skip_rank < 0). */
static void warmup_watch(const struct cp_analysis *an,
                         struct cp_hang_watch *watch, int64_t *at)
{
    struct cp_rec_call c;
    struct cp_error err;
    enum cp_coll coll;

    memset(watch, 0, sizeof *watch);
    watch->skip_rank = -1;
    *at = INT64_MIN;
    if (an->steps_at.rank < 0 || an->summary.steps < 2 ||
        an_nth_call(an, an->steps_at.rank,
                    an->steps_at.first + an->steps_at.period, &c, &err) != 0)
        return;
    *at = (int64_t)c.start_ns - an_node_offset_ns(an, (size_t)an->steps_at.rank);
    if (cp_model_coll_from_op(c.op, &coll) < 0 || coll == CP_COLL_SENDRECV ||
        c.seq == UINT32_MAX)
        return; /* the step's call alone (as step_start) */
    watch->comm_id = c.comm_id;
    watch->seq = c.seq;
    watch->op = c.op;
    watch->skip_rank = an->steps_at.rank;
    watch->earliest = *at;
}

static int64_t warmup_end(const struct cp_hang_watch *watch, int64_t at)
{
    if (watch->skip_rank < 0)
        return at;
    return watch->failed ? INT64_MIN : watch->earliest;
}

/* The inputs, the job among them, its ranks and nodes, and what the
 * plugin said of each call.  -1: out of memory. */
static int read_job(struct cp_analysis *an, const char *const *paths,
                    unsigned jobs, unsigned pass_jobs,
                    struct an_scan_arena *arena)
{
    int none;

    if (an_collect_inputs(an, paths, jobs, pass_jobs, arena) < 0 ||
        an_select_job(an) < 0 ||
        an_build_ranks_and_nodes(an) < 0)
        return -1;
    /* what the plugin said of each call, before the passes use it */
    an->nccl.join = cp_ncjoin_build(an, &none);
    if (!an->nccl.join && !none)
        return -1;
    return 0;
}

/* The error of a job without a readable log. */
static void no_log_error(const struct cp_analysis *an, struct cp_error *err)
{
    if (an->nproblems > 0)
        cp_error_set(err, an->problems[0].file, an->problems[0].offset,
                     "no readable collprof log among the inputs "
                     "(first problem: %s: %s)",
                     an->problems[0].file, an->problems[0].message);
    else
        cp_error_set(err, NULL, -1, "no collprof log among the inputs");
}

static uint64_t prefix_records(size_t nfiles)
{
    uint64_t n = nfiles ? PREFIX_TOTAL / nfiles : PREFIX_RECORDS;

    return n > PREFIX_RECORDS       ? PREFIX_RECORDS
           : n < PREFIX_RECORDS_MIN ? PREFIX_RECORDS_MIN
                                    : n;
}

/* Pass 1: the first records of every file, for the clock offsets of the
 * nodes (one node: its own clock), on jobs threads.  -1: out of memory. */
static int clock_pass(struct cp_analysis *an, unsigned jobs, double *offsets,
                      struct an_scan_arena *arena)
{
    struct an_state st;
    size_t i;
    int rc = -1;

    if (an->nnodes == 1)
        an->nodes[0].offset_known = 1;
    if (an->nnodes <= 1)
        return 0;
    if (an_state_init(&st, AN_MODE_PREFIX, an->nranks, (unsigned)an->nnodes) < 0)
        return -1;
    st.jobs = jobs;
    if (an_open_files(an, &st, NULL, prefix_records(an->nranks), arena) < 0)
        goto out;
    an_stream_run(&st);
    an_solve_offsets(an, &st, offsets);
    for (i = 0; i < st.nfiles; i++) {
        cp_scan_close(st.files[i].sc);
        st.files[i].sc = NULL;
    }
    rc = 0;
out:
    cp_links_destroy(st.links);
    an_state_free(&st);
    return rc;
}

/* Pass 2, on st (initialized): every record of every file, through the
 * window of opts (each log from its sync point before the window, the
 * communicators its prologue pro creates first), with the clock
 * offsets, on jobs threads; the timeline and each file's and rank's
 * totals.  -1: out of memory. */
static int main_pass(struct cp_analysis *an, struct an_state *st,
                     const struct cp_analysis_opts *opts, unsigned jobs,
                     const double *offsets, const struct an_prologue *pro,
                     struct an_scan_arena *arena)
{
    size_t i;

    st->progress = opts->progress;
    st->progress_ctx = opts->progress_ctx;
    st->win_lo = an->win_lo_ns;
    st->win_hi = an->win_hi_ns;
    st->windowed = st->win_lo != INT64_MIN || st->win_hi != INT64_MAX;
    st->links = cp_links_create();
    st->jobs = jobs;
    if (!st->links || an_open_files(an, st, offsets, 0, arena) < 0)
        return -1;
    if (st->seeked && an_stream_prologue_comms(st, pro) < 0)
        return -1;
    an_stream_run(st);
    if (an_build_timeline(an, st) < 0)
        return -1;
    collect_file_results(an, st);
    for (i = 0; i < an->nranks; i++) {
        struct cp_analysis_rank *r = &an->ranks[i];
        r->calls = st->ranks[i].calls;
        r->failed = st->ranks[i].failed;
        r->time_s = (double)st->ranks[i].time_ns * 1e-9;
        r->last_arrivals = st->ranks[i].last_arrivals;
        r->late_s = st->ranks[i].late;
        st->rank_time += r->time_s;
    }
    return 0;
}

/* After the passes: communicators, the model fit, the rows and the links,
 * the slowest calls, the steps, the summary and the findings.  *evals is
 * allocated (free it).  -1: out of memory. */
static int judge(struct cp_analysis *an, struct an_state *st,
                 const char *const *paths,
                 const struct cp_analysis_opts *opts,
                 struct cp_hang_read **hang_read,
                 struct an_eval **evals, size_t *nevals)
{
    struct cp_hang_read *rd = *hang_read;
    struct cp_hang_watch watch;
    int64_t origin, warmup_at;

    if (an_build_comms(an, st) < 0 || an_fit_classes(an, st, opts->profile) < 0 ||
        an_build_rows(an, st, evals, nevals) < 0)
        return -1;
    an_class_bandwidths(an, *evals, *nevals);
    /* the absolute references (the ports among them) before the links:
     * a communicator without peers is held against them */
    if (cp_portview_build(an, paths) < 0)
        return -1;
    an_set_references(an, *evals, *nevals);
    if (cp_links_solve(st->links, an, st, *evals, *nevals) < 0 ||
        cp_links_apply_probe(an, opts->probe) < 0 ||
        cp_ncclview_build(an) < 0 ||
        an_tags_build(an, st, *evals, *nevals, opts->tag_names) < 0 ||
        an_phases_build(an) < 0)
        return -1;
    if (opts->probe_skipped &&
        an_add_problem(an, opts->probe_skipped->source, -1,
                       opts->probe_skipped->text) < 0)
        return -1;
    /* times on the whole run's axis (that of collprof trace) */
    origin = opts->window_origin_ns != INT64_MIN ? opts->window_origin_ns
                                                 : st->t_first;
    if (an_build_slowest(an, origin, st->top_own, &an->slowest_own,
                         &an->nslowest_own) < 0 ||
        an_build_slowest(an, origin, st->top_skew, &an->slowest_skew,
                         &an->nslowest_skew) < 0)
        return -1;
    if (an_estimate_steps(an, opts->steps) < 0)
        return -1;
    if (!opts->steps && opts->window_steps) {
        /* the pattern was read from the whole log: say the window's */
        an->summary.steps = opts->window_steps;
        snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
                 "the steps of the window (%s)",
                 opts->window_by ? opts->window_by : "--steps");
    }
    an_finish_summary(an, st, *evals, *nevals);
    if (an_longrun_build(an, st) < 0 || an_find_missing_ranks(an) < 0)
        return -1;
    if (an->long_run.present && an->summary.steps > 0 && !opts->steps &&
        !opts->window_steps) {
        /* the steps were counted in the kept calls only */
        size_t len = strlen(an->summary.steps_method);
        snprintf(an->summary.steps_method + len,
                 sizeof an->summary.steps_method - len,
                 ", in the detail windows' kept calls");
    }
    an->summary.bucket_bytes = opts->bucket_bytes;
    an_describe_window(an, opts);
    warmup_watch(an, &watch, &warmup_at);
    *hang_read = NULL; /* taken */
    if ((!an->nested && cp_hang_analyze(an, rd, &watch) < 0) ||
        an_findings(an, *evals, *nevals) < 0 ||
        an_timeline_details(an, st, warmup_end(&watch, warmup_at)) < 0)
        return -1;
    return 0;
}

/* A window given as times since the run's first call (o, a copy of the
 * options) made absolute, from the first calls of the logs.  0, or -1
 * with err filled (no call to count from). */
static int window_since_first(const struct an_prologue *pro,
                              struct cp_analysis_opts *o, struct cp_error *err)
{
    int64_t first = pro->first_ns;

    o->window_since_first = 0;
    if (first == INT64_MAX) {
        cp_error_set(err, NULL, -1,
                     "no call that returned at the start of any log: the "
                     "window's times have nothing to count from");
        return -1;
    }
    o->window_origin_ns = first;
    if (o->window_from_ns != INT64_MIN)
        o->window_from_ns = first + o->window_from_ns;
    if (o->window_to_ns != INT64_MAX)
        o->window_to_ns = first + o->window_to_ns;
    return 0;
}

/* A long run's changes this run follows with an analysis of the detail
 * since then (cp_since.c). */
#define SINCE_MAX 2

/* The detail since each change of a long run (at most SINCE_MAX): this
 * analysis again, cut to the calls from then on (a window the user gave
 * narrowed, not widened), and what it names adopted.  A nested run that
 * fails is an input problem.  0, or -1 (memory). */
static int detail_since(struct cp_analysis *an, const char *const *paths,
                        const struct cp_analysis_opts *opts)
{
    double since[SINCE_MAX];
    size_t n, i;
    int rc = 0;

    if (opts->no_since || !an->long_run.present)
        return 0;
    n = an_since_changes(an, since, SINCE_MAX);
    for (i = 0; i < n && rc == 0; i++) {
        struct cp_analysis_opts o = *opts;
        struct cp_analysis *sub;
        struct cp_error err;
        int64_t from = an->summary.start_ns + (int64_t)llround(since[i] * 1e9);
        char by[96];

        o.no_since = 1;
        o.nested = 1;
        o.progress = NULL;
        o.probe_skipped = NULL;
        if (from > o.window_from_ns)
            o.window_from_ns = from;
        o.window_origin_ns = an->summary.start_ns;
        snprintf(by, sizeof by, "the long run's change since %.0f s",
                 since[i]);
        o.window_by = by;
        o.window_steps = 0;
        sub = cp_analysis_run(paths, &o, &err);
        if (!sub) {
            char *text = NULL;
            if (asprintf(&text, "the detail since the long run's change at "
                                "%.0f s: %s",
                         since[i], err.text) < 0)
                return -1;
            rc = an_add_problem(an, "", -1, text);
            free(text);
            continue;
        }
        rc = an_since_adopt(an, sub, since[i]);
        cp_analysis_destroy(sub);
    }
    return rc;
}

/* A result with nothing read yet, as opts asks for it; NULL: memory. */
static struct cp_analysis *analysis_new(const struct cp_analysis_opts *opts)
{
    struct cp_analysis *an = calloc(1, sizeof *an);

    if (!an)
        return NULL;
    an->world_size = -1;
    an->win_lo_ns = INT64_MIN;
    an->win_hi_ns = INT64_MAX;
    an->steps_at.rank = -1;
    an->rank_table_max = opts->rank_table_max ? opts->rank_table_max
                                              : CP_REPORT_RANK_TABLE_MAX;
    an->alive = opts->alive;
    an->alive_ctx = opts->alive_ctx;
    an->nested = opts->nested;
    return an;
}

struct cp_analysis *cp_analysis_run_steps(const char *const *paths,
                                          const struct cp_analysis_opts *opts,
                                          struct cp_error *err)
{
    struct cp_analysis *an = analysis_new(opts), *ret = NULL;
    struct an_scan_arena arena = {NULL, 0, 0, 0};
    struct an_prologue prologue = {INT64_MAX, 0, NULL};
    double *offsets = NULL;
    unsigned jobs = opts->jobs > 1 ? opts->jobs - 1 : 1;

    if (!an)
        goto oom;
    if (read_job(an, paths, opts->jobs, jobs, &arena) < 0)
        goto oom;
    if (an->nranks == 0) {
        no_log_error(an, err);
        goto out;
    }
    if (an->nccl.join) {
        /* the plugin's replays count calls of their own: the whole run */
        cp_analysis_destroy(an);
        free(arena.mem);
        return cp_analysis_run(paths, opts, err);
    }
    offsets = calloc(an->nnodes, sizeof *offsets);
    if (!offsets || clock_pass(an, jobs, offsets, &arena) < 0 ||
        an_read_prologue(an, offsets, &prologue) < 0 ||
        an_steps_pick(an, an_successful_calls) < 0)
        goto oom;
    if (prologue.first_ns == INT64_MAX) {
        cp_error_set(err, NULL, -1, "no call that returned at the start of "
                     "any log: the run has no steps to count");
        goto out;
    }
    an->summary.start_ns = prologue.first_ns;
    ret = an;
    an = NULL;
    goto out;
oom:
    cp_error_set(err, NULL, -1, "out of memory");
out:
    if (ret)
        an_release_fds(ret);
    free(prologue.comms);
    free(arena.mem);
    free(offsets);
    cp_analysis_destroy(an);
    return ret;
}

struct cp_analysis *cp_analysis_run(const char *const *paths,
                                    const struct cp_analysis_opts *opts,
                                    struct cp_error *err)
{
    struct cp_analysis *an = NULL, *ret = NULL;
    struct an_state st;
    struct an_eval *evals = NULL;
    size_t nevals = 0;
    double *offsets = NULL;
    struct cp_analysis_opts defaults, since_first;
    int state_live = 0;
    struct an_scan_arena arena = {NULL, 0, 0, 0};
    struct cp_hang_read *hang_read = NULL;
    struct an_prologue prologue = {INT64_MAX, 0, NULL};
    unsigned pass_jobs;

    memset(&st, 0, sizeof st);
    if (!opts) {
        cp_analysis_opts_init(&defaults);
        opts = &defaults;
    }
    an = analysis_new(opts);
    if (!an)
        goto oom;
    /* -j N: the passes read ahead on N - 2 threads (none at -j 2), the
     * hang pass's reading takes one (at -j 2 on 64 ranks: 1.55x against
     * 1.31x with the read-ahead beside it); the checks take all N */
    pass_jobs = opts->jobs > 1 ? opts->jobs - 1 : 1;
    if (read_job(an, paths, opts->jobs, pass_jobs, &arena) < 0)
        goto oom;
    if (an->nranks == 0) {
        no_log_error(an, err);
        goto out;
    }
    offsets = calloc(an->nnodes, sizeof *offsets);
    if (!offsets || clock_pass(an, pass_jobs, offsets, &arena) < 0)
        goto oom;
    /* a window: the prologue of each log, then each log read from its
     * sync point before the window */
    if ((opts->window_since_first || opts->window_from_ns != INT64_MIN) &&
        an_read_prologue(an, offsets, &prologue) < 0)
        goto oom;
    if (opts->window_since_first) {
        since_first = *opts;
        if (window_since_first(&prologue, &since_first, err) < 0)
            goto out;
        opts = &since_first;
    }
    an->win_lo_ns = opts->window_from_ns;
    an->win_hi_ns = opts->window_to_ns;
    if (an_state_init(&st, AN_MODE_MAIN, an->nranks, (unsigned)an->nnodes) < 0)
        goto oom;
    state_live = 1;
    /* -j N: the hang pass's reading of every log beside the main pass
     * (after the clock pass: it needs the nodes' offsets); its judging
     * stays where it was, in judge */
    if (opts->jobs > 1 && !opts->nested)
        hang_read = cp_hang_read_start(an);
    if (main_pass(an, &st, opts, pass_jobs, offsets, &prologue, &arena) < 0 ||
        judge(an, &st, paths, opts, &hang_read, &evals, &nevals) < 0 ||
        st.oom || detail_since(an, paths, opts) < 0 ||
        an_longrun_coarsen(an, &st,
                           an->rank_table_max == UINT_MAX
                               ? SIZE_MAX
                               : CP_REPORT_LR_INTERVALS) < 0)
        goto oom;
    if (opts->progress)
        opts->progress(opts->progress_ctx, st.bytes_total, st.bytes_total);
    ret = an;
    an = NULL;
    goto out;
oom:
    cp_error_set(err, NULL, -1, "out of memory");
out:
    cp_hang_read_destroy(hang_read); /* before an it reads is destroyed */
    if (ret)
        an_release_fds(ret);
    if (state_live) {
        cp_links_destroy(st.links);
        an_state_free(&st);
    }
    free(prologue.comms);
    free(arena.mem); /* after the scans in it are closed */
    free(evals);
    free(offsets);
    cp_analysis_destroy(an);
    return ret;
}
