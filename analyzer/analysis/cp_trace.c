/* cp_trace.c - the calls of a job as a JSON trace-event timeline.
 *
 * Four reads of the logs, none holding more than the collective instances
 * of the cut:
 *   1. the ranks of the cut: count the events (refuse a trace too large
 *      before anything is written) and note every collective instance
 *      that has a call in the cut;
 *   2. every rank of the job: for those instances, who arrived when, and
 *      when the last member ended;
 *   3. (writing) the ranks of the cut again: a slice per call and group,
 *      device intervals, flows from the last arrival; then the findings.
 * Times are the analysis's: a node's clock offset is subtracted and the
 * origin is the run's first start (docs/trace.md has the rules).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "cp_model.h"
#include "cp_ncjoin.h"
#include "cp_scan.h"
#include "cp_trace.h"

#define OUT_BUFFER (64 * 1024)
#define EVENT_MAX 2048      /* the longest event but findings */
#define RECENT 8192         /* calls remembered for their device records */
#define GPU_TID_BASE 1000000 /* a rank's device lane: this + its host tid */
#define FINDING_LANES 64    /* findings on at most this many rank lanes */

/* ---- output --------------------------------------------------------------- */

struct out {
    int (*write)(void *ctx, const void *buf, size_t len);
    void *ctx;
    char *buf;
    size_t fill;
    uint64_t bytes, events;
    int failed;
    int saved_errno;
};

static void out_flush(struct out *o)
{
    if (o->fill && !o->failed && o->write(o->ctx, o->buf, o->fill) < 0) {
        o->failed = 1;
        o->saved_errno = errno ? errno : EIO;
    }
    o->bytes += o->fill;
    o->fill = 0;
}

static void out_bytes(struct out *o, const char *s, size_t n)
{
    while (n) {
        size_t k = OUT_BUFFER - o->fill;
        if (k > n)
            k = n;
        memcpy(o->buf + o->fill, s, k);
        o->fill += k;
        s += k;
        n -= k;
        if (o->fill == OUT_BUFFER)
            out_flush(o);
    }
}

static void out_printf(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (OUT_BUFFER - o->fill < EVENT_MAX)
        out_flush(o);
    va_start(ap, fmt);
    n = vsnprintf(o->buf + o->fill, OUT_BUFFER - o->fill, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= OUT_BUFFER - o->fill) {
        /* longer than what was left: print it again through the heap */
        char *big = malloc((size_t)n + 1);
        if (!big) {
            o->failed = 1;
            o->saved_errno = ENOMEM;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        out_bytes(o, big, (size_t)n);
        free(big);
        return;
    }
    o->fill += (size_t)n;
}

/* A JSON string: every byte outside printable ASCII escaped (a log's
 * names are bytes, not necessarily UTF-8). */
static void out_string(struct out *o, const char *s)
{
    char esc[8];

    out_bytes(o, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            out_bytes(o, esc, 2);
        } else if (c < 0x20 || c >= 0x7f) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            out_bytes(o, esc, 6);
        } else {
            out_bytes(o, (const char *)&c, 1);
        }
    }
    out_bytes(o, "\"", 1);
}

/* The separator before every event but the first. */
static void out_event_start(struct out *o)
{
    if (o->events++)
        out_bytes(o, ",\n", 2);
}

/* Microseconds with three decimals from ns, exactly (no rounding). */
static const char *fmt_us(int64_t ns, char *buf, size_t size)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, size, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
             (unsigned)(a % 1000));
    return buf;
}

/* ---- the job -------------------------------------------------------------- */

struct lane {
    size_t rank;      /* index into an->ranks */
    int global_rank;
    unsigned node;    /* index into an->nodes */
    int64_t offset_ns;
    int has_gpu;      /* a device interval in the cut */
};

struct comm_key {
    uint64_t id;
    size_t index;
};

/* A collective instance with a call in the cut. */
struct inst {
    uint64_t comm_id; /* 0: free slot */
    uint32_t seq;
    uint32_t members;
    int32_t last;     /* index into an->ranks of the last arrival, -1 */
    int32_t reserved;
    int64_t last_start, last_end, second_start, max_end;
};

struct recent {
    uint64_t slot_plus1;
    uint32_t comm;   /* index into an->comms, UINT32_MAX unknown */
    uint32_t seq;
    uint8_t op;
    uint8_t is_group;
    uint8_t written;  /* its slice is in the trace */
    double bytes;
};

struct trace {
    const struct cp_analysis *an;
    const struct cp_trace_opts *opts;
    struct cp_error *err;
    struct out out;
    int64_t origin;
    size_t nlanes;
    struct lane *lanes;
    int32_t *lane_of_rank; /* [an->nranks]: lane index or -1 */
    struct comm_key *comm_keys; /* sorted by id */
    unsigned char *comm_selected; /* [an->ncomms] */
    struct inst *inst;
    size_t inst_cap, inst_used, inst_max;
    int inst_overflow;
    struct recent *recent;
    uint64_t flow_id;
    struct cp_trace_stats st;
};

void cp_trace_opts_init(struct cp_trace_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->from_ns = INT64_MIN;
    opts->to_ns = INT64_MAX;
    opts->max_events = CP_TRACE_MAX_EVENTS;
}

static int compare_comm_key(const void *a, const void *b)
{
    const struct comm_key *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Index into an->comms of id, or -1. */
static long comm_index(const struct trace *t, uint64_t id)
{
    size_t lo = 0, hi = t->an->ncomms;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->comm_keys[mid].id == id)
            return (long)t->comm_keys[mid].index;
        if (t->comm_keys[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static void comm_display(const struct cp_analysis_comm *c, char *buf,
                         size_t size)
{
    if (c->name[0])
        snprintf(buf, size, "%s", c->name);
    else
        snprintf(buf, size, "0x%016" PRIx64, c->id);
}

/* Whether text names communicator c: its name, or its id in hex (with or
 * without 0x, leading zeros optional). */
static int comm_matches(const struct cp_analysis_comm *c, const char *text)
{
    const char *h = text;
    char *end;
    unsigned long long v;

    if (c->name[0] && strcmp(c->name, text) == 0)
        return 1;
    if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
        h += 2;
    if (!*h)
        return 0;
    errno = 0;
    v = strtoull(h, &end, 16);
    return errno == 0 && *end == '\0' && (uint64_t)v == c->id;
}

static int rank_selected(const struct cp_trace_opts *o, int rank)
{
    size_t i;

    if (o->nranges == 0)
        return 1;
    for (i = 0; i < o->nranges; i++)
        if (rank >= o->ranges[i].lo && rank <= o->ranges[i].hi)
            return 1;
    return 0;
}

static int setup(struct trace *t)
{
    const struct cp_analysis *an = t->an;
    const struct cp_trace_opts *o = t->opts;
    size_t i, k;

    t->origin = an->summary.start_ns;
    t->comm_keys = calloc(an->ncomms + 1, sizeof *t->comm_keys);
    t->comm_selected = calloc(an->ncomms + 1, 1);
    t->lanes = calloc(an->nranks + 1, sizeof *t->lanes);
    t->lane_of_rank = calloc(an->nranks + 1, sizeof *t->lane_of_rank);
    t->recent = calloc(RECENT, sizeof *t->recent);
    t->out.buf = malloc(OUT_BUFFER);
    if (!t->comm_keys || !t->comm_selected || !t->lanes ||
        !t->lane_of_rank || !t->recent || !t->out.buf) {
        cp_error_set(t->err, NULL, -1, "out of memory");
        return -1;
    }
    for (i = 0; i < an->ncomms; i++) {
        t->comm_keys[i].id = an->comms[i].id;
        t->comm_keys[i].index = i;
        t->comm_selected[i] = o->ncomms == 0;
    }
    qsort(t->comm_keys, an->ncomms, sizeof *t->comm_keys, compare_comm_key);
    for (k = 0; k < o->ncomms; k++) {
        int found = 0;
        for (i = 0; i < an->ncomms; i++)
            if (comm_matches(&an->comms[i], o->comms[k])) {
                t->comm_selected[i] = 1;
                found = 1;
            }
        if (!found) {
            char names[256] = "", one[40];
            size_t len = 0;
            for (i = 0; i < an->ncomms && len < sizeof names - 48; i++) {
                comm_display(&an->comms[i], one, sizeof one);
                len += (size_t)snprintf(names + len, sizeof names - len,
                                        "%s%s", i ? ", " : "", one);
            }
            if (i < an->ncomms)
                snprintf(names + len, sizeof names - len, ", ...");
            cp_error_set(t->err, NULL, -1,
                         "no communicator '%s' in the job (its "
                         "communicators: %s)",
                         o->comms[k], an->ncomms ? names : "none");
            return -1;
        }
    }
    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_rank *r = &an->ranks[i];
        t->lane_of_rank[i] = -1;
        if (an->inputs[r->input].status > CP_INPUT_DAMAGED ||
            !rank_selected(o, r->rank))
            continue;
        t->lane_of_rank[i] = (int32_t)t->nlanes;
        t->lanes[t->nlanes].rank = i;
        t->lanes[t->nlanes].global_rank = r->rank;
        t->lanes[t->nlanes].node = r->node;
        t->lanes[t->nlanes].offset_ns =
            r->node < an->nnodes
                ? (int64_t)llround(an->nodes[r->node].offset_s * 1e9)
                : 0;
        t->nlanes++;
    }
    if (t->nlanes == 0) {
        cp_error_set(t->err, NULL, -1,
                     "--ranks selects none of the job's %zu ranks "
                     "(%d to %d)",
                     an->nranks, an->nranks ? an->ranks[0].rank : 0,
                     an->nranks ? an->ranks[an->nranks - 1].rank : 0);
        return -1;
    }
    return 0;
}

/* ---- instances ------------------------------------------------------------ */

static inline size_t inst_hash(uint64_t comm, uint32_t seq)
{
    uint64_t x = comm ^ ((uint64_t)seq * UINT64_C(0x9e3779b97f4a7c15));
    x ^= x >> 31;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 29;
    return (size_t)x;
}

static struct inst *inst_find(struct trace *t, uint64_t comm, uint32_t seq)
{
    size_t mask, i;

    if (!t->inst_cap)
        return NULL;
    mask = t->inst_cap - 1;
    for (i = inst_hash(comm, seq) & mask;; i = (i + 1) & mask) {
        struct inst *e = &t->inst[i];
        if (e->comm_id == 0)
            return NULL;
        if (e->comm_id == comm && e->seq == seq)
            return e;
    }
}

static int inst_grow(struct trace *t)
{
    size_t cap = t->inst_cap ? t->inst_cap * 2 : 4096, i;
    struct inst *old = t->inst, *bigger = calloc(cap, sizeof *bigger);

    if (!bigger)
        return -1;
    for (i = 0; i < t->inst_cap; i++) {
        size_t j;
        if (old[i].comm_id == 0)
            continue;
        for (j = inst_hash(old[i].comm_id, old[i].seq) & (cap - 1);
             bigger[j].comm_id; j = (j + 1) & (cap - 1))
            ;
        bigger[j] = old[i];
    }
    free(old);
    t->inst = bigger;
    t->inst_cap = cap;
    return 0;
}

static int inst_add(struct trace *t, uint64_t comm, uint32_t seq)
{
    size_t i;

    if (inst_find(t, comm, seq))
        return 0;
    if (t->inst_max && t->inst_used >= t->inst_max) {
        t->inst_overflow = 1; /* the trace is refused anyway */
        return 0;
    }
    if ((t->inst_used + 1) * 2 > t->inst_cap && inst_grow(t) < 0)
        return -1;
    for (i = inst_hash(comm, seq) & (t->inst_cap - 1); t->inst[i].comm_id;
         i = (i + 1) & (t->inst_cap - 1))
        ;
    t->inst[i].comm_id = comm;
    t->inst[i].seq = seq;
    t->inst[i].last = -1;
    t->inst_used++;
    return 0;
}

/* ---- reading -------------------------------------------------------------- */

/* A call that belongs to a collective instance: coll set. */
static int is_collective(const struct cp_rec_call *r, enum cp_coll *coll)
{
    return cp_model_coll_from_op(r->op, coll) == 0 &&
           *coll != CP_COLL_SENDRECV && r->seq != UINT32_MAX &&
           r->comm_id != 0 && !(r->flags & CP_CALL_NO_COMM) &&
           (r->result == 0 || r->result == 7 /* ncclInProgress */);
}

static int64_t rel(const struct trace *t, const struct lane *l, uint64_t ns)
{
    return (int64_t)ns - l->offset_ns - t->origin;
}

static int in_cut(const struct trace *t, int64_t s, int64_t e)
{
    if (e < s)
        e = s;
    return s < t->opts->to_ns && (e > t->opts->from_ns ||
                                  (e == s && s >= t->opts->from_ns));
}

/* The end of a call on the trace's axis; a call that never returned
 * (cp_rec_call_in_flight: the process died or hung in it) lasts to the end
 * of the run. */
static int64_t call_end(const struct trace *t, const struct lane *l,
                        const struct cp_rec_call *c)
{
    int64_t s = rel(t, l, c->start_ns),
            run_end = (int64_t)llround(t->an->summary.span_s * 1e9);

    if (cp_rec_call_in_flight(c))
        return run_end > s ? run_end : s;
    return rel(t, l, c->end_ns);
}

/* Whether the call's communicator is among those written. */
static int comm_ok(const struct trace *t, uint64_t id, long *index)
{
    *index = comm_index(t, id);
    if (t->opts->ncomms == 0)
        return 1;
    return *index >= 0 && t->comm_selected[*index];
}

static struct cp_scan *open_rank(struct trace *t, size_t rank)
{
    const struct cp_analysis_input *in =
        &t->an->inputs[t->an->ranks[rank].input];
    struct cp_error e;
    /* from the analysis' check of the file: opened again, the same file */
    struct cp_scan *s =
        in->log ? cp_scan_reopen_sized(in->path, in->log, CP_SCAN_BUFFER, &e)
                : cp_scan_open(in->path, &e);

    if (!s)
        cp_error_set(t->err, in->path, e.offset, "%s", e.text);
    return s;
}

/* The slot of the record cp_scan_next returned last. */
static uint64_t cp_scan_slot(const struct cp_scan *s)
{
    return (cp_scan_offset(s) - cp_scan_header(s)->header_size) /
           CP_LOG_RECORD_SIZE;
}

/* Pass 1 remembers only whether a call was written. */
static void note_slot(struct trace *t, uint64_t slot, int written)
{
    struct recent *e = &t->recent[slot % RECENT];
    memset(e, 0, sizeof *e);
    e->slot_plus1 = slot + 1;
    e->comm = UINT32_MAX;
    e->written = (uint8_t)written;
    e->bytes = NAN;
}

/* A device interval is written when it is in the cut and, with --comm,
 * its call was (a group's interval: only without --comm). */
static int gpu_ok(const struct trace *t, const struct lane *l,
                  const struct cp_rec_gpu *g)
{
    const struct recent *r = &t->recent[g->slot % RECENT];

    if (!g->start_ns || !g->end_ns ||
        !in_cut(t, rel(t, l, g->start_ns), rel(t, l, g->end_ns)))
        return 0;
    if (t->opts->ncomms == 0)
        return 1;
    return r->slot_plus1 == g->slot + 1 && r->written && !r->is_group;
}

/* Pass 1: count the cut's events, note its collective instances. */
static int count_lane(struct trace *t, struct lane *l)
{
    struct cp_scan *s = open_rank(t, l->rank);
    const union cp_rec *r;
    int rc = -1;

    if (!s)
        return -1;
    memset(t->recent, 0, RECENT * sizeof *t->recent);
    while ((r = cp_scan_next(s)) != NULL) {
        if (r->kind == CP_REC_CALL) {
            const struct cp_rec_call *c = &r->call;
            enum cp_coll coll;
            long ci;
            int ok = comm_ok(t, c->comm_id, &ci) &&
                     in_cut(t, rel(t, l, c->start_ns), call_end(t, l, c));
            note_slot(t, cp_scan_slot(s), ok);
            if (!ok)
                continue;
            t->st.calls++;
            if (is_collective(c, &coll)) {
                t->st.flows++; /* at most one arrives at each call */
                if (inst_add(t, c->comm_id, c->seq) < 0)
                    goto out;
            }
        } else if (r->kind == CP_REC_GROUP) {
            if (t->opts->ncomms == 0 &&
                in_cut(t, rel(t, l, r->group.start_ns),
                       rel(t, l, r->group.end_ns)))
                t->st.groups++;
        } else if (r->kind == CP_REC_GPU) {
            if (gpu_ok(t, l, &r->gpu)) {
                t->st.gpu++;
                l->has_gpu = 1;
            }
        }
    }
    rc = 0;
out:
    if (rc < 0)
        cp_error_set(t->err, NULL, -1, "out of memory");
    cp_scan_close(s);
    return rc;
}

/* Pass 2: arrivals of the noted instances, from every rank. */
static int arrivals_rank(struct trace *t, size_t rank)
{
    const struct cp_analysis *an = t->an;
    const struct cp_analysis_rank *ar = &an->ranks[rank];
    int64_t off = ar->node < an->nnodes
                      ? (int64_t)llround(an->nodes[ar->node].offset_s * 1e9)
                      : 0;
    struct cp_scan *s;
    const union cp_rec *r;

    if (an->inputs[ar->input].status > CP_INPUT_DAMAGED)
        return 0;
    s = open_rank(t, rank);
    if (!s)
        return -1;
    while ((r = cp_scan_next(s)) != NULL) {
        const struct cp_rec_call *c = &r->call;
        enum cp_coll coll;
        struct inst *e;
        int64_t start, end;
        t->st.job_calls += r->kind == CP_REC_CALL;
        if (r->kind != CP_REC_CALL || !is_collective(c, &coll) ||
            c->end_ns < c->start_ns)
            continue;
        e = inst_find(t, c->comm_id, c->seq);
        if (!e)
            continue;
        start = (int64_t)c->start_ns - off;
        end = (int64_t)c->end_ns - off;
        if (e->members == 0 || start > e->last_start) {
            e->second_start = e->members ? e->last_start : start;
            e->last_start = start;
            e->last_end = end;
            e->last = (int32_t)rank;
        } else if (start > e->second_start || e->members == 1) {
            e->second_start = start;
        }
        if (e->members == 0 || end > e->max_end)
            e->max_end = end;
        e->members++;
    }
    cp_scan_close(s);
    return 0;
}

/* ---- writing -------------------------------------------------------------- */

static void lane_name(const struct trace *t, const struct lane *l, char *buf,
                      size_t size)
{
    const char *node =
        l->node < t->an->nnodes ? t->an->nodes[l->node].name : "?";
    if (l->global_rank >= 0)
        snprintf(buf, size, "rank %d (%s)", l->global_rank, node);
    else
        snprintf(buf, size, "%s (%s)",
                 t->an->inputs[t->an->ranks[l->rank].input].path, node);
}

static int lane_tid(const struct lane *l)
{
    return 1 + (l->global_rank >= 0 ? l->global_rank
                                    : 500000 + (int)l->rank);
}

static void write_header(struct trace *t)
{
    const struct cp_analysis *an = t->an;
    struct out *o = &t->out;
    char b1[40], b2[40], b3[40];
    size_t i;

    out_printf(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"schema\":\"%s\","
                  "\"generator\":\"collprof %s\",\"job_id\":",
               CP_TRACE_SCHEMA, PACKAGE_VERSION);
    out_string(o, an->job_id);
    out_printf(o, ",\"origin_ns\":%" PRId64 ",\"span_us\":%s,"
                  "\"from_us\":%s,\"to_us\":%s,\"clock_offsets_ns\":{",
               t->origin, fmt_us((int64_t)llround(an->summary.span_s * 1e9),
                                 b1, sizeof b1),
               t->opts->from_ns == INT64_MIN
                   ? "null"
                   : fmt_us(t->opts->from_ns, b2, sizeof b2),
               t->opts->to_ns == INT64_MAX
                   ? "null"
                   : fmt_us(t->opts->to_ns, b3, sizeof b3));
    for (i = 0; i < an->nnodes; i++) {
        if (i)
            out_bytes(o, ",", 1);
        out_string(o, an->nodes[i].name);
        out_printf(o, ":%lld", (long long)llround(an->nodes[i].offset_s * 1e9));
    }
    out_printf(o, "}},\n\"traceEvents\":[\n");
}

/* The two metadata events naming a process (tid 0) or a thread and
 * placing it: what is "process" or "thread". */
static void name_and_order(struct out *o, const char *what, int pid, int tid,
                           const char *name, int sort)
{
    out_event_start(o);
    out_printf(o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                  "\"name\":\"%s_name\",\"args\":{\"name\":",
               pid, tid, what);
    out_string(o, name);
    out_printf(o, "}}");
    out_event_start(o);
    out_printf(o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                  "\"name\":\"%s_sort_index\",\"args\":"
                  "{\"sort_index\":%d}}",
               pid, tid, what, sort);
}

static void write_metadata(struct trace *t)
{
    const struct cp_analysis *an = t->an;
    struct out *o = &t->out;
    unsigned char *seen = calloc(an->nnodes + 1, 1);
    char name[320];
    size_t i;

    for (i = 0; i < t->nlanes; i++) {
        const struct lane *l = &t->lanes[i];
        int pid = (int)l->node + 1, tid = lane_tid(l);
        if (seen && l->node < an->nnodes && !seen[l->node]) {
            seen[l->node] = 1;
            name_and_order(o, "process", pid, 0, an->nodes[l->node].name, pid);
            t->st.metadata += 2;
            t->st.nodes++;
        }
        lane_name(t, l, name, sizeof name - 8);
        name_and_order(o, "thread", pid, tid, name, 2 * tid);
        t->st.metadata += 2;
        if (l->has_gpu) {
            strcat(name, " GPU");
            name_and_order(o, "thread", pid, GPU_TID_BASE + tid, name,
                           2 * tid + 1);
            t->st.metadata += 2;
        }
    }
    t->st.ranks = (unsigned)t->nlanes;
    free(seen);
}

/* ",\"busbw_GBps\":1.234" or "" for a value that is not a number. */
static void out_num(struct out *o, const char *key, double v)
{
    if (isfinite(v))
        out_printf(o, ",\"%s\":%.6g", key, v);
}

static void write_flow(struct trace *t, const struct lane *l,
                       const struct cp_rec_call *c, const struct inst *e,
                       int64_t s, int64_t end)
{
    struct out *o = &t->out;
    const struct lane *from;
    int64_t ls, le, a, b;
    char b1[40];
    int32_t li;

    if (e->last < 0 || (size_t)e->last == l->rank)
        return;
    li = t->lane_of_rank[e->last];
    if (li < 0)
        return;
    from = &t->lanes[li];
    ls = e->last_start - t->origin;
    le = e->last_end - t->origin;
    if (!in_cut(t, ls, le))
        return;
    /* both ends strictly inside their slices: mid-points */
    a = ls + (le > ls ? (le - ls) / 2 : 0);
    b = ls > s ? ls : s; /* from where this rank waited for it */
    if (b >= end)
        b = s;               /* it did not wait (a root, say) */
    b = b + (end > b ? (end - b) / 2 : 0);
    t->flow_id++;
    out_event_start(o);
    out_printf(o, "{\"ph\":\"s\",\"id\":%" PRIu64 ",\"pid\":%u,\"tid\":%d,"
                  "\"ts\":%s,\"cat\":\"arrival\",\"name\":\"last arrival\"}",
               t->flow_id, from->node + 1, lane_tid(from),
               fmt_us(a, b1, sizeof b1));
    out_event_start(o);
    out_printf(o, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRIu64 ",\"pid\":%u,"
                  "\"tid\":%d,\"ts\":%s,\"cat\":\"arrival\","
                  "\"name\":\"last arrival\"}",
               t->flow_id, l->node + 1, lane_tid(l), fmt_us(b, b1, sizeof b1));
    t->st.flows++;
    (void)c;
}

static void remember(struct trace *t, uint64_t slot, const struct recent *r)
{
    struct recent *e = &t->recent[slot % RECENT];
    *e = *r;
    e->slot_plus1 = slot + 1;
}

/* The name of tag value v (--tags, COLLPROF_TAGS), or NULL. */
static const char *tag_name(const struct cp_analysis *an, uint64_t v)
{
    size_t i;

    for (i = 0; i < an->nccl.tags.n; i++)
        if (!an->nccl.tags.v[i].other && an->nccl.tags.v[i].value == v)
            return an->nccl.tags.v[i].name[0] ? an->nccl.tags.v[i].name
                                               : NULL;
    return NULL;
}

/* What the plugin's kind 9 record said of the call (e: its join entry,
 * may be NULL): the application's tag, its name, the kernel variant. */
static void write_tag(struct trace *t, const struct cp_ncjoin_entry *e)
{
    const struct cp_ncjoin *j = t->an->nccl.join;
    struct out *o = &t->out;
    const char *name, *variant;
    uint64_t v;

    if (!e || e->tag == CP_NCJOIN_TAG_NONE)
        return;
    if (e->tag != CP_NCJOIN_TAG_OTHER) {
        v = cp_ncjoin_tag(j, e->tag);
        out_printf(o, ",\"tag\":%" PRIu64, v);
        name = tag_name(t->an, v);
        if (name) {
            out_printf(o, ",\"tag_name\":");
            out_string(o, name);
        }
    }
    variant = cp_ncjoin_variant(j, e->variant);
    if (variant) {
        out_printf(o, ",\"kernel\":");
        out_string(o, variant);
    }
}

/* A send or recv's busbw over its own interval (d ns; none inside a
 * group, whose calls' times are their enqueue) and the model's time of
 * its n bytes over the link to its peer. */
static void write_p2p_figures(struct trace *t, const struct lane *l,
                              const struct cp_rec_call *c, long ci, double n,
                              int64_t d)
{
    const struct cp_analysis *an = t->an;
    struct out *o = &t->out;
    int peer_global = -1, me = l->global_rank;
    enum cp_link_class link = CP_LINK_INTER;

    if (ci >= 0 && an->comms[ci].ranks && c->peer >= 0 &&
        (unsigned)c->peer < an->comms[ci].nranks)
        peer_global = an->comms[ci].ranks[c->peer];
    if (peer_global >= 0 && me >= 0) {
        size_t j;
        for (j = 0; j < an->nranks; j++)
            if (an->ranks[j].rank == peer_global) {
                link = an->ranks[j].node == l->node ? CP_LINK_INTRA
                                                     : CP_LINK_INTER;
                break;
            }
    }
    if (d > 0 && !(c->flags & CP_CALL_IN_GROUP))
        out_num(o, "busbw_GBps", n / ((double)d * 1e-9) / 1e9);
    out_num(o, "model_us",
            1e6 * cp_analysis_model_time(an, link, CP_COLL_SENDRECV, 2, n));
}

/* What the collective's instance in says of this call (started s ns
 * after the lane's origin, n bytes): members, own time, busbw, the wait
 * for the last member and who it was. */
static void write_instance(struct trace *t, const struct cp_rec_call *c,
                           enum cp_coll coll, const struct inst *in, double n,
                           int64_t s)
{
    const struct cp_analysis *an = t->an;
    struct out *o = &t->out;
    /* inside a group the calls' times are their enqueue: the group's
     * slice holds when they ran, and no own time is claimed */
    int grouped = (c->flags & CP_CALL_IN_GROUP) != 0;
    double own = (double)(in->max_end - in->last_start) * 1e-9;

    out_printf(o, ",\"members\":%u", in->members);
    if (!grouped)
        out_num(o, "own_us", own * 1e6);
    if (own > 0 && !grouped)
        out_num(o, "busbw_GBps",
                n * cp_model_busbw_factor(coll, c->nranks) / own / 1e9);
    out_num(o, "wait_us", (double)(in->last_start - (s + t->origin)) * 1e-3);
    if (in->last >= 0) {
        const struct cp_analysis_rank *lr = &an->ranks[in->last];
        out_printf(o, ",\"last_rank\":%d,\"last_node\":", lr->rank);
        out_string(o, lr->node < an->nnodes ? an->nodes[lr->node].name : "?");
        if (in->members > 1)
            out_num(o, "late_by_us",
                    (double)(in->last_start - in->second_start) * 1e-3);
    }
}

static void write_call(struct trace *t, const struct lane *l,
                       const struct cp_rec_call *c, long ci, uint64_t slot,
                       const struct cp_ncjoin_entry *je)
{
    const struct cp_analysis *an = t->an;
    struct out *o = &t->out;
    int64_t s = rel(t, l, c->start_ns), e = call_end(t, l, c);
    int in_flight = cp_rec_call_in_flight(c);
    enum cp_coll coll = CP_COLL_COUNT;
    int data = cp_model_coll_from_op(c->op, &coll) == 0;
    unsigned esize = cp_dtype_size(c->dtype);
    double n = data && esize ? cp_model_bytes_from_count(coll, c->count,
                                                         esize, c->nranks)
                             : NAN;
    const char *op = cp_op_name(c->op);
    const struct inst *in = NULL;
    int failed = (c->result != 0 && c->result != 7) || c->seq == UINT32_MAX;
    char b1[40], b2[40], comm[40];
    struct recent rem;

    if (e < s)
        e = s;
    if (!op)
        op = "unknown";
    if (ci >= 0)
        comm_display(&an->comms[ci], comm, sizeof comm);
    else
        snprintf(comm, sizeof comm, "0x%016" PRIx64, c->comm_id);
    out_event_start(o);
    out_printf(o, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%d,\"ts\":%s,\"dur\":%s,"
                  "\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"op\":\"%s\"",
               l->node + 1, lane_tid(l), fmt_us(s, b1, sizeof b1),
               fmt_us(e - s, b2, sizeof b2), op,
               in_flight ? "in_flight"
               : failed  ? "failed"
               : coll == CP_COLL_SENDRECV ? "p2p"
                                          : "collective",
               op);
    if (in_flight)
        out_printf(o, ",\"in_flight\":true");
    if (isfinite(n))
        out_printf(o, ",\"bytes\":%.0f", n);
    out_printf(o, ",\"count\":%" PRIu64 ",\"dtype\":\"%s\",\"comm\":", c->count,
               cp_dtype_name(c->dtype));
    out_string(o, comm);
    out_printf(o, ",\"comm_id\":\"0x%016" PRIx64 "\"", c->comm_id);
    if (c->seq != UINT32_MAX)
        out_printf(o, ",\"seq\":%u", c->seq);
    out_printf(o, ",\"comm_rank\":%u,\"nranks\":%u", c->rank, c->nranks);
    if (c->peer >= 0)
        out_printf(o, ",\"%s\":%d", coll == CP_COLL_SENDRECV ? "peer" : "root",
                   c->peer);
    if (c->group)
        out_printf(o, ",\"group\":%u", c->group);
    if (c->result)
        out_printf(o, ",\"result\":%d", c->result);
    write_tag(t, je);
    if (!failed && !in_flight && data && coll != CP_COLL_SENDRECV &&
        ci >= 0) {
        in = inst_find(t, c->comm_id, c->seq);
        out_num(o, "model_us",
                1e6 * cp_analysis_model_time(an, an->comms[ci].link, coll,
                                             c->nranks, n));
    } else if (!failed && !in_flight && coll == CP_COLL_SENDRECV) {
        write_p2p_figures(t, l, c, ci, n, e - s);
    }
    if (in && in->members)
        write_instance(t, c, coll, in, n, s);
    out_printf(o, "}}");
    if (in)
        write_flow(t, l, c, in, s, e);
    memset(&rem, 0, sizeof rem);
    rem.written = 1;
    rem.comm = ci >= 0 ? (uint32_t)ci : UINT32_MAX;
    rem.seq = c->seq;
    rem.op = c->op;
    rem.bytes = n;
    remember(t, slot, &rem);
}

static void write_group(struct trace *t, const struct lane *l,
                        const struct cp_rec_group *g, uint64_t slot)
{
    struct out *o = &t->out;
    int64_t s = rel(t, l, g->start_ns), e = rel(t, l, g->end_ns);
    char b1[40], b2[40];
    struct recent rem;

    if (e < s)
        e = s;
    out_event_start(o);
    out_printf(o, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%d,\"ts\":%s,\"dur\":%s,"
                  "\"name\":\"group\",\"cat\":\"group\",\"args\":{\"group\":%u,"
                  "\"calls\":%u,\"result\":%d}}",
               l->node + 1, lane_tid(l), fmt_us(s, b1, sizeof b1),
               fmt_us(e - s, b2, sizeof b2), g->group, g->ncalls, g->result);
    t->st.groups++;
    memset(&rem, 0, sizeof rem);
    rem.is_group = 1;
    rem.comm = UINT32_MAX;
    rem.bytes = NAN;
    remember(t, slot, &rem);
}

static void write_gpu(struct trace *t, const struct lane *l,
                      const struct cp_rec_gpu *g)
{
    const struct recent *r = &t->recent[g->slot % RECENT];
    struct out *o = &t->out;
    int64_t s = rel(t, l, g->start_ns), e = rel(t, l, g->end_ns);
    char b1[40], b2[40], comm[40], name[48];
    int known = r->slot_plus1 == g->slot + 1;

    if (e < s)
        e = s;
    if (known && r->is_group)
        snprintf(name, sizeof name, "group");
    else if (known && cp_op_name(r->op))
        snprintf(name, sizeof name, "%s", cp_op_name(r->op));
    else
        snprintf(name, sizeof name, "device work");
    out_event_start(o);
    out_printf(o, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%d,\"ts\":%s,\"dur\":%s,"
                  "\"name\":\"%s\",\"cat\":\"gpu\",\"args\":{\"slot\":%" PRIu64
                  ",\"timer\":\"%s\"",
               l->node + 1, GPU_TID_BASE + lane_tid(l),
               fmt_us(s, b1, sizeof b1), fmt_us(e - s, b2, sizeof b2), name,
               g->slot, g->timer == CP_TIMER_CUPTI ? "cupti" : "event");
    if (g->flags & CP_CALL_FUSED)
        out_printf(o, ",\"fused\":true");
    if (known && !r->is_group) {
        if (r->comm != UINT32_MAX) {
            comm_display(&t->an->comms[r->comm], comm, sizeof comm);
            out_printf(o, ",\"comm\":");
            out_string(o, comm);
        }
        if (r->seq != UINT32_MAX)
            out_printf(o, ",\"seq\":%u", r->seq);
        if (isfinite(r->bytes))
            out_printf(o, ",\"bytes\":%.0f", r->bytes);
    }
    out_printf(o, "}}");
    t->st.gpu++;
}

static int write_lane(struct trace *t, const struct lane *l)
{
    struct cp_scan *s = open_rank(t, l->rank);
    const union cp_rec *r;
    const struct cp_ncjoin_entry *jn;
    size_t njn, jpos = 0;

    if (!s)
        return -1;
    /* the plugin's records of the lane's calls, by slot */
    jn = cp_ncjoin_of(t->an->nccl.join, t->an->ranks[l->rank].input, &njn);
    memset(t->recent, 0, RECENT * sizeof *t->recent);
    while ((r = cp_scan_next(s)) != NULL && !t->out.failed) {
        uint64_t slot = cp_scan_slot(s);
        if (r->kind == CP_REC_CALL) {
            long ci;
            if (!comm_ok(t, r->call.comm_id, &ci) ||
                !in_cut(t, rel(t, l, r->call.start_ns),
                        call_end(t, l, &r->call))) {
                note_slot(t, slot, 0);
                continue;
            }
            while (jpos < njn && jn[jpos].slot < slot)
                jpos++;
            write_call(t, l, &r->call, ci, slot,
                       jpos < njn && jn[jpos].slot == slot ? &jn[jpos] : NULL);
            t->st.calls++;
        } else if (r->kind == CP_REC_GROUP) {
            if (t->opts->ncomms == 0 &&
                in_cut(t, rel(t, l, r->group.start_ns),
                       rel(t, l, r->group.end_ns)))
                write_group(t, l, &r->group, slot);
        } else if (r->kind == CP_REC_GPU) {
            if (gpu_ok(t, l, &r->gpu))
                write_gpu(t, l, &r->gpu);
        }
    }
    cp_scan_close(s);
    return 0;
}

/* A finding: on the lanes of its ranks that are in the cut (up to
 * FINDING_LANES), else once for the whole trace, at the cut's start. */
static int write_findings(struct trace *t)
{
    const struct cp_analysis *an = t->an;
    struct out *o = &t->out;
    int64_t at = t->opts->from_ns > 0 ? t->opts->from_ns : 0;
    char b1[40];
    size_t i, j, k;

    for (i = 0; i < an->nfindings; i++) {
        const struct cp_analysis_finding *f = &an->findings[i];
        json_t *args = json_object(), *ranks = json_array();
        char *text;
        unsigned lanes = 0;

        if (!args || !ranks) {
            json_decref(args);
            json_decref(ranks);
            return -1;
        }
        for (k = 0; k < f->nranks; k++)
            json_array_append_new(ranks, json_integer(f->ranks[k]));
        json_object_set_new(args, "severity",
                            json_string(cp_severity_name(f->severity)));
        json_object_set_new(args, "message", json_string(f->message));
        json_object_set_new(args, "ranks", ranks);
        if (f->evidence)
            json_object_set(args, "evidence", f->evidence);
        text = json_dumps(args, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                    JSON_ENSURE_ASCII);
        json_decref(args);
        if (!text)
            return -1;
        for (k = 0; k < f->nranks && lanes < FINDING_LANES; k++)
            for (j = 0; j < t->nlanes; j++) {
                const struct lane *l = &t->lanes[j];
                if (l->global_rank != f->ranks[k])
                    continue;
                out_event_start(o);
                out_printf(o, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,"
                              "\"tid\":%d,\"ts\":%s,\"cat\":\"finding\","
                              "\"name\":\"%s\",\"args\":",
                           l->node + 1, lane_tid(l), fmt_us(at, b1, sizeof b1),
                           cp_kind_name(f->kind));
                out_bytes(o, text, strlen(text));
                out_bytes(o, "}", 1);
                t->st.instants++;
                lanes++;
                break;
            }
        if (lanes == 0) {
            out_event_start(o);
            out_printf(o, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":%u,\"tid\":%d,"
                          "\"ts\":%s,\"cat\":\"finding\",\"name\":\"%s\","
                          "\"args\":",
                       t->lanes[0].node + 1, lane_tid(&t->lanes[0]),
                       fmt_us(at, b1, sizeof b1), cp_kind_name(f->kind));
            out_bytes(o, text, strlen(text));
            out_bytes(o, "}", 1);
            t->st.instants++;
        }
        free(text);
    }
    return 0;
}

int cp_trace_write(const struct cp_analysis *an,
                   const struct cp_trace_opts *opts,
                   struct cp_trace_stats *stats, struct cp_error *err)
{
    struct trace t;
    size_t i;
    int rc = -1;

    memset(&t, 0, sizeof t);
    t.an = an;
    t.opts = opts;
    t.err = err;
    t.out.write = opts->write;
    t.out.ctx = opts->write_ctx;
    t.inst_max = opts->max_events;
    if (setup(&t) < 0)
        goto out;

    /* 1: what the cut holds */
    for (i = 0; i < t.nlanes; i++)
        if (count_lane(&t, &t.lanes[i]) < 0)
            goto out;
    t.st.instances = t.inst_used;
    t.st.instants = an->nfindings;
    t.st.metadata = 0;
    for (i = 0; i < t.nlanes; i++)
        t.st.metadata += t.lanes[i].has_gpu ? 4 : 2;
    t.st.metadata += 2 * an->nnodes; /* at most */
    t.st.events = t.st.calls + t.st.groups + t.st.gpu + 2 * t.st.flows +
                  t.st.instants + t.st.metadata;
    t.st.ranks = (unsigned)t.nlanes;
    t.st.job_ranks = (unsigned)an->nranks;
    if ((opts->max_events && t.st.events > opts->max_events) ||
        t.inst_overflow) {
        t.st.job_calls = an->summary.calls;
        rc = CP_TRACE_TOO_LARGE;
        goto out;
    }

    /* 2: who arrived when */
    for (i = 0; i < an->nranks; i++)
        if (arrivals_rank(&t, i) < 0)
            goto out;

    /* 3: the trace */
    memset(&t.st, 0, sizeof t.st);
    t.st.instances = t.inst_used;
    t.st.job_ranks = (unsigned)an->nranks;
    t.st.job_calls = an->summary.calls;
    write_header(&t);
    write_metadata(&t);
    for (i = 0; i < t.nlanes && !t.out.failed; i++)
        if (write_lane(&t, &t.lanes[i]) < 0)
            goto out;
    if (write_findings(&t) < 0) {
        cp_error_set(err, NULL, -1, "out of memory");
        goto out;
    }
    out_printf(&t.out, "\n]}\n");
    out_flush(&t.out);
    if (t.out.failed) {
        cp_error_set(err, NULL, -1, "cannot write the trace: %s",
                     strerror(t.out.saved_errno));
        goto out;
    }
    t.st.events = t.out.events;
    t.st.bytes = t.out.bytes;
    rc = CP_TRACE_OK;
out:
    if (stats)
        *stats = t.st;
    free(t.comm_keys);
    free(t.comm_selected);
    free(t.lanes);
    free(t.lane_of_rank);
    free(t.recent);
    free(t.inst);
    free(t.out.buf);
    return rc;
}

int cp_trace_parse_ranks(const char *text, struct cp_trace_range **ranges,
                         struct cp_error *err)
{
    struct cp_trace_range *r = NULL;
    size_t n = 0, cap = 0;
    const char *p = text;

    *ranges = NULL;
    if (!*p) {
        cp_error_set(err, NULL, -1, "--ranks: empty list");
        return -1;
    }
    while (*p) {
        char *end;
        long lo, hi;
        const char *part = p;
        errno = 0;
        lo = strtol(p, &end, 10);
        if (end == p || errno || lo < 0 || lo > INT_MAX)
            goto bad;
        hi = lo;
        p = end;
        if (*p == '-') {
            p++;
            hi = strtol(p, &end, 10);
            if (end == p || errno || hi < lo || hi > INT_MAX)
                goto bad;
            p = end;
        }
        if (*p && *p != ',')
            goto bad;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            struct cp_trace_range *bigger = realloc(r, nc * sizeof *bigger);
            if (!bigger) {
                free(r);
                cp_error_set(err, NULL, -1, "out of memory");
                return -1;
            }
            r = bigger;
            cap = nc;
        }
        r[n].lo = (int)lo;
        r[n].hi = (int)hi;
        n++;
        if (*p == ',')
            p++;
        continue;
    bad:
        free(r);
        {
            size_t len = strcspn(part, ",");
            cp_error_set(err, NULL, -1,
                         "--ranks: '%.*s' is not a rank or a range "
                         "A-B of ranks (e.g. 0-63,128)",
                         (int)(len > 64 ? 64 : len), part);
        }
        return -1;
    }
    *ranges = r;
    return (int)n;
}
