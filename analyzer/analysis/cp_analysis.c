/* cp_analysis.c - inputs, the two passes over the logs, the fit and the
 * aggregates.  The streaming join is cp_stream.c; the findings
 * cp_findings.c; the JSON writer cp_report.c.  docs/analysis.md explains
 * the method.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cp_analysis_int.h"
#include "cp_hang.h"
#include "cp_fit.h"
#include "cp_links.h"
#include "cp_ncclview.h"
#include "cp_partial.h"
#include "cp_ncjoin.h"
#include "cp_portview.h"
#include "cp_slots.h"
#include "cp_stats.h"
#include "cp_steps.h"

/* Records per file read by the first pass (clock offsets): at most
 * PREFIX_RECORDS, and PREFIX_TOTAL over all files (at least
 * PREFIX_RECORDS_MIN each), so that the pass costs the same at any rank
 * count: with thousands of ranks one instance already gives a sample to
 * every pair of its nodes, and a per-file count would read small logs
 * whole, a second full pass. */
#define PREFIX_RECORDS 4096
#define PREFIX_TOTAL ((uint64_t)PREFIX_RECORDS * 64)
#define PREFIX_RECORDS_MIN 32
#define DAY_NS INT64_C(86400000000000)
/* a fit on fewer size groups, or of worse quality, is weak; so is one on
 * fewer than FIT_MIN_POINTS groups of FIT_GROUP_CALLS calls or more unless
 * it has FIT_MANY_POINTS groups in all: a group of one call is one sample
 * (often a communicator's first call, which sets up its connections), and
 * a few of them can bend a line that many would hold */
#define FIT_MIN_POINTS 4
#define FIT_GROUP_CALLS 2
#define FIT_MANY_POINTS 8
#define FIT_MIN_R2 0.5
#define FIT_MAX_RESIDUAL 0.25
/* calls this many times faster than the model: the model is wrong there */
#define EFFICIENCY_MAX 2.0

static const char *const source_names[] = {"none", "fit", "profile", "ports"};
static const char *const status_names[] = {"ok", "damaged", "skipped",
                                           "unreadable"};

const char *cp_link_source_name(enum cp_link_source s)
{
    return (unsigned)s <= CP_SOURCE_PORTS ? source_names[s] : NULL;
}

const char *cp_analysis_input_status_name(enum cp_analysis_input_status s)
{
    return (unsigned)s <= CP_INPUT_UNREADABLE ? status_names[s] : NULL;
}

void cp_analysis_opts_init(struct cp_analysis_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->window_from_ns = INT64_MIN;
    opts->window_to_ns = INT64_MAX;
    opts->window_origin_ns = INT64_MIN;
}

int cp_analysis_parse_steps(const char *text, long *from, long *to,
                            struct cp_error *err)
{
    const char *colon = strchr(text, ':');
    char *end;
    long a = -1, b = -1;

    if (!colon)
        goto bad;
    if (colon != text) {
        errno = 0;
        a = strtol(text, &end, 10);
        if (end != colon || a < 0 || errno)
            goto bad;
    }
    if (colon[1]) {
        errno = 0;
        b = strtol(colon + 1, &end, 10);
        if (*end || b < 0 || errno)
            goto bad;
    }
    if ((a < 0 && b < 0) || (a >= 0 && b >= 0 && b <= a))
        goto bad;
    *from = a;
    *to = b;
    return 0;
bad:
    cp_error_set(err, NULL, -1,
                 "expected a range A:B of steps (from 0, B excluded; A: and "
                 ":B open), got '%.40s'", text);
    return -1;
}

/* ---- the inputs' files, checked once -------------------------------------- */

struct cp_scan *an_scan_reopen(const struct cp_analysis_input *in,
                               size_t buf_size, struct cp_error *err)
{
    return in->log ? cp_scan_reopen_sized(in->path, in->log, buf_size, err)
                   : cp_scan_open_sized(in->path, buf_size, err);
}

struct cp_logfile *an_logfile_reopen(const struct cp_analysis_input *in,
                                     struct cp_error *err)
{
    return cp_logfile_reopen(in->path, in->log, err);
}

/* Descriptors left for everything but the inputs' files. */
#define FD_RESERVE 64

/* The budget of descriptors kept open between passes for nfiles inputs:
 * the soft limit on open files, raised towards the hard one when that is
 * what nfiles need, less FD_RESERVE (0 when the limit is that low). */
static void set_fd_budget(struct cp_analysis *an, size_t nfiles)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)nfiles + FD_RESERVE;

    an->fd_budget = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        struct rlimit up = rl;
        up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need
                          ? need
                          : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            rl = up;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
        an->fd_budget = nfiles;
    else if (rl.rlim_cur > FD_RESERVE)
        an->fd_budget = (size_t)(rl.rlim_cur - FD_RESERVE);
}

/* Close the descriptors kept for the passes (the files are opened again
 * by name, and checked to be the same, by any later reader). */
static void release_fds(struct cp_analysis *an)
{
    size_t i, n = 0;
    int *fds = malloc((an->ninputs ? an->ninputs : 1) * sizeof *fds);

    for (i = 0; i < an->ninputs; i++) {
        struct cp_logfile_known *k = an->inputs[i].log;
        if (!fds || !k || k->fd < 0) {
            cp_logfile_known_release(k);
            continue;
        }
        /* closed together below: a system call per log costs more than
         * anything else the end of a run does per log */
        fds[n++] = k->fd;
        k->fd = -1;
    }
    if (fds)
        cp_logfile_close_fds(fds, n);
    free(fds);
    an->fds_kept = 0;
}

/* The successful call number idx (0-based, as cp_steps counts) of rank's
 * log: its communicator, sequence, op and start.  0, 1 when the log has
 * fewer calls, -1 with err filled when it cannot be read. */
static int nth_call(const struct cp_analysis *an, long rank, uint64_t idx,
                    struct cp_rec_call *out, struct cp_error *err)
{
    const struct cp_analysis_input *in = &an->inputs[an->ranks[rank].input];
    struct cp_scan *sc = an_scan_reopen(in, CP_SCAN_BUFFER, err);
    const union cp_rec *r;
    uint64_t k = 0;
    int rc = 1;

    if (!sc)
        return -1;
    while ((r = cp_scan_next(sc)) != NULL) {
        if (r->kind != CP_REC_CALL ||
            (r->call.result != 0 && r->call.result != 7))
            continue;
        if (k++ == idx) {
            *out = r->call;
            rc = 0;
            break;
        }
    }
    cp_scan_close(sc);
    return rc;
}

int64_t an_node_offset_ns(const struct cp_analysis *an, size_t rank)
{
    unsigned node = an->ranks[rank].node;
    return node < an->nnodes && isfinite(an->nodes[node].offset_s)
               ? (int64_t)llround(an->nodes[node].offset_s * 1e9)
               : 0;
}

int an_instance_earliest(const struct cp_analysis *an, long skip_rank,
                         uint64_t comm_id, uint32_t seq, uint8_t op,
                         void *place, size_t buf_size, int64_t *earliest,
                         struct cp_error *err)
{
    size_t i;

    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_input *in = &an->inputs[an->ranks[i].input];
        struct cp_scan *sc;
        const union cp_rec *r;
        if ((long)i == skip_rank || in->status > CP_INPUT_DAMAGED)
            continue;
        sc = in->log ? cp_scan_reopen_in(place, in->path, in->log, buf_size,
                                         0, err)
                     : cp_scan_open_sized(in->path, buf_size, err);
        if (!sc)
            return -1;
        while ((r = cp_scan_next(sc)) != NULL)
            if (r->kind == CP_REC_CALL && r->call.comm_id == comm_id &&
                r->call.seq == seq && r->call.op == op) {
                int64_t t = (int64_t)r->call.start_ns - an_node_offset_ns(an, i);
                if (t < *earliest)
                    *earliest = t;
                break;
            }
        cp_scan_close(sc);
    }
    return 0;
}

/* A read buffer for the first calls + 1 calls of a log: 2 records each
 * (a power of two), CP_SCAN_BUFFER_MIN to CP_SCAN_BUFFER. */
static size_t step_buffer(uint64_t calls)
{
    size_t size = CP_SCAN_BUFFER_MIN;

    while (size < CP_SCAN_BUFFER &&
           (uint64_t)size < (calls + 1) * 2 * CP_LOG_RECORD_SIZE)
        size *= 2;
    return size;
}

/* Where step k >= 1 begins: the first call of the step on the rank the
 * steps were found on; for a collective, the earliest start of any
 * member's call of that instance (so that every rank's calls of the step
 * start at or after it). */
static int step_start(const struct cp_analysis *an, long k, int64_t *at,
                      struct cp_error *err)
{
    struct cp_rec_call c;
    enum cp_coll coll;
    size_t buf_size;
    void *place = NULL;
    int rc = nth_call(an, an->steps_at.rank,
                      an->steps_at.first + (uint64_t)k * an->steps_at.period,
                      &c, err);

    if (rc != 0) {
        if (rc > 0)
            cp_error_set(err, NULL, -1, "the log of rank %d ends before "
                         "step %ld", an->ranks[an->steps_at.rank].rank, k);
        return -1;
    }
    *at = (int64_t)c.start_ns - an_node_offset_ns(an, (size_t)an->steps_at.rank);
    if (cp_model_coll_from_op(c.op, &coll) < 0 || coll == CP_COLL_SENDRECV ||
        c.seq == UINT32_MAX)
        return 0;
    /* one scan's memory for every rank in turn, not one per rank; its
     * buffer about as large as the records before the step on the rank
     * the steps were found on (twice that, for what the others logged
     * besides calls): an early step, the warm-up's end, is one small read
     * of each log, not a read of each small log whole */
    buf_size = step_buffer(an->steps_at.first +
                           (uint64_t)k * an->steps_at.period);
    if (posix_memalign(&place, 64, cp_scan_place_size(buf_size, 0)) != 0) {
        cp_error_set(err, NULL, -1, "out of memory");
        return -1;
    }
    rc = an_instance_earliest(an, an->steps_at.rank, c.comm_id, c.seq, c.op,
                              place, buf_size, at, err);
    free(place);
    return rc;
}

int cp_analysis_step_window(const struct cp_analysis *an, long from, long to,
                            int64_t *from_ns, int64_t *to_ns,
                            struct cp_error *err)
{
    const struct cp_analysis_summary *s = &an->summary;

    *from_ns = INT64_MIN;
    *to_ns = INT64_MAX;
    if (an->steps_at.rank < 0 || s->steps == 0) {
        cp_error_set(err, NULL, -1,
                     "no training steps found (%s); give the window as times",
                     s->steps_method);
        return -1;
    }
    if ((from >= 0 && (unsigned long)from >= s->steps) ||
        (to >= 0 && (unsigned long)to > s->steps)) {
        cp_error_set(err, NULL, -1, "the run has steps 0 to %u (%s)",
                     s->steps - 1, s->steps_method);
        return -1;
    }
    if (from > 0 && step_start(an, from, from_ns, err) < 0)
        return -1;
    if (from == 0)
        *from_ns = s->start_ns;
    /* the last step runs to the end of the run */
    if (to >= 0 && (unsigned long)to < s->steps &&
        step_start(an, to, to_ns, err) < 0)
        return -1;
    return 0;
}

static int compare_top(const void *a, const void *b)
{
    const struct an_top_entry *x = a, *y = b;
    return x->key > y->key ? -1 : x->key < y->key;
}

/* The heaps of the stream as lists, largest first. */
static int build_slowest(struct cp_analysis *an, int64_t origin,
                         struct an_top *top, struct cp_analysis_instance **out,
                         size_t *nout)
{
    size_t i;

    *nout = 0;
    if (!top || top->n == 0)
        return 0;
    qsort(top->e, top->n, sizeof top->e[0], compare_top);
    *out = calloc(top->n, sizeof **out);
    if (!*out)
        return -1;
    for (i = 0; i < top->n; i++) {
        const struct an_top_entry *e = &top->e[i];
        const struct an_inst *in = &e->in;
        struct cp_analysis_instance *o = &(*out)[i];
        const struct cp_analysis_comm *c = &an->comms[e->comm];
        o->comm = e->comm;
        o->coll = (enum cp_coll)in->coll;
        o->seq = in->seq;
        o->bytes = in->n;
        o->members = in->members;
        o->start_s = (double)(in->first_start - origin) * 1e-9;
        o->own_s = in->max_end > in->last_start
                       ? (double)(in->max_end - in->last_start) * 1e-9
                       : 0;
        o->model_s = cp_analysis_model_time(an, c->link, o->coll, c->nranks,
                                            o->bytes);
        o->skew_s = (double)(in->last_start - in->first_start) * 1e-9;
        o->last_rank = -1;
        if (in->last_file >= 0 && (size_t)in->last_file < an->nranks) {
            o->last_rank = an->ranks[in->last_file].rank;
            o->last_node = an->ranks[in->last_file].node;
        }
        o->late_s = (double)(in->last_start - in->second_start) * 1e-9;
        o->algo = AN_INFO_ALGO(in->info);
        o->proto = AN_INFO_PROTO(in->info);
    }
    *nout = top->n;
    return 0;
}

static void describe_window(struct cp_analysis *an,
                            const struct cp_analysis_opts *opts)
{
    struct cp_analysis_window_info *w = &an->window;
    int64_t origin = opts->window_origin_ns != INT64_MIN
                         ? opts->window_origin_ns
                         : an->summary.start_ns;

    w->active = opts->window_from_ns != INT64_MIN ||
                opts->window_to_ns != INT64_MAX;
    snprintf(w->by, sizeof w->by, "%s",
             !w->active ? "the whole run"
             : opts->window_by ? opts->window_by : "--from/--to");
    w->from_s = opts->window_from_ns == INT64_MIN
                    ? NAN
                    : (double)(opts->window_from_ns - origin) * 1e-9;
    w->to_s = opts->window_to_ns == INT64_MAX
                  ? NAN
                  : (double)(opts->window_to_ns - origin) * 1e-9;
    w->calls_left_out = an->summary.outside_calls;
}

int cp_analysis_worst_severity(const struct cp_analysis *an)
{
    size_t i;
    int worst = -1;

    for (i = 0; i < an->nfindings; i++)
        if ((int)an->findings[i].severity > worst)
            worst = (int)an->findings[i].severity;
    return worst;
}

const struct cp_analysis_finding *
cp_analysis_finding_of(const struct cp_analysis *an, enum cp_kind kind)
{
    size_t i;

    for (i = 0; i < an->nfindings; i++)
        if (an->findings[i].kind == kind)
            return &an->findings[i];
    return NULL;
}

void cp_analysis_destroy(struct cp_analysis *an)
{
    size_t i;
    int saved = errno;

    if (!an)
        return;
    for (i = 0; i < an->ncomms; i++) {
        free(an->comms[i].nodes);
        free(an->comms[i].ranks);
    }
    free(an->comms);
    free(an->nodes);
    free(an->ranks);
    free(an->rows);
    free(an->timeline.windows);
    cp_links_topology_free(&an->topology);
    cp_portview_free(&an->ports);
    cp_ncclview_free(&an->nccl);
    for (i = 0; i < an->nfindings; i++) {
        free(an->findings[i].ranks);
        free(an->findings[i].nodes);
        free(an->findings[i].message);
        json_decref(an->findings[i].evidence);
    }
    free(an->findings);
    cp_hang_destroy(an->hang);
    for (i = 0; i < an->ninputs; i++) {
        free(an->inputs[i].path);
        cp_logfile_known_release(an->inputs[i].log);
    }
    free(an->inputs);
    for (i = 0; i < an->nknown_blocks; i++)
        free(an->known_blocks[i]);
    free(an->known_blocks);
    for (i = 0; i < an->nproblems; i++) {
        free(an->problems[i].file);
        free(an->problems[i].message);
    }
    free(an->problems);
    free(an->summary.missing_ranks);
    free(an->slowest_own);
    free(an->slowest_skew);
    free(an);
    errno = saved;
}

/* ---- inputs -------------------------------------------------------------- */

/* -j N reads each file's next buffer ahead on N - 1 threads, into a
 * second buffer of the same budget (each buffer is then half).  Under
 * this size a half buffer costs more than the read-ahead saves: twice the
 * refills, each handed between two threads (a wake-up, the records moved
 * between caches), for a read from the page cache of a few microseconds;
 * and at CP_SCAN_BUFFER_MIN the halves would be rounded up, twice the
 * memory of one thread.  Past it (at 32 MiB, more than 1024 files) the
 * files are read on the join's thread alone, as with -j 1. */
#define AHEAD_MIN_BUFFER ((size_t)16 << 10)
/* Whether nfiles scans may keep a descriptor each: the soft limit on open
 * files is raised towards the hard one when that is enough. */
static int fds_for_all(size_t nfiles)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)nfiles + FD_RESERVE;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
        return 1;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
        return 0;
    rl.rlim_cur = need;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* The memory of a pass's scans: one block for all files, kept from the
 * first pass to the next (the same size), freed after the last. */
struct scan_arena {
    void *mem;
    size_t size;
    /* the places of the pass before (CP_SCAN_RESUME): place bytes
     * each, the first nplaces written by scans */
    size_t place, nplaces;
};

/* Past this, the block is asked for in huge pages where the system
 * gives them on request: a first touch of tens of MiB in 4 KiB pages is
 * thousands of page faults (a few microseconds each in a VM). */
#define ARENA_HUGE ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static int arena_reserve(struct scan_arena *a, size_t size)
{
    size_t align = size >= ARENA_HUGE ? HUGE_PAGE : 64;

    if (a->size >= size)
        return 0;
    free(a->mem);
    a->mem = NULL;
    a->size = 0;
    a->nplaces = 0;
    if (posix_memalign(&a->mem, align, size ? size : 64) != 0) {
        a->mem = NULL;
        return -1;
    }
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGE) /* a hint: refused, it is 4 KiB pages */
        (void)madvise(a->mem, (size + 4095) & ~(size_t)4095, MADV_HUGEPAGE);
#endif
    a->size = size;
    return 0;
}

/* The read buffer of each of nfiles scans (the budget divided among
 * them) and the place of each in the arena; *jobs is the threads that
 * read ahead plus one, 1 when the halves would be too small. */
static size_t scan_geometry(size_t nfiles, unsigned *jobs, size_t *buf_size)
{
    size_t size = nfiles ? CP_SCAN_BUDGET / nfiles : CP_SCAN_BUDGET;

    if (*jobs > 1 && size / 2 < AHEAD_MIN_BUFFER)
        *jobs = 1; /* no read-ahead: one thread reads, as with -j 1 */
    if (*jobs > 1) /* a second buffer each, for the read-ahead */
        size /= 2;
    if (size > CP_SCAN_BUFFER)
        size = CP_SCAN_BUFFER;
    *buf_size = size;
    return cp_scan_place_size(size, *jobs > 1);
}


static int add_problem(struct cp_analysis *an, const char *file,
                       int64_t offset, const char *text)
{
    struct cp_analysis_problem *bigger, *p;
    size_t flen = strlen(file);

    /* messages of the reader start with "file: "; the file has its field */
    if (strncmp(text, file, flen) == 0 && text[flen] == ':' &&
        text[flen + 1] == ' ')
        text += flen + 2;
    /* ... and so has the offset */
    if (offset >= 0) {
        char prefix[40];
        int n = snprintf(prefix, sizeof prefix, "offset %lld: ",
                         (long long)offset);
        if (n > 0 && strncmp(text, prefix, (size_t)n) == 0)
            text += n;
    }
    bigger = realloc(an->problems, (an->nproblems + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    an->problems = bigger;
    p = &an->problems[an->nproblems];
    p->file = strdup(file);
    p->message = strdup(text);
    p->offset = offset;
    if (!p->file || !p->message) {
        free(p->file);
        free(p->message);
        return -1;
    }
    an->nproblems++;
    return 0;
}

int an_add_problem(struct cp_analysis *an, const char *file, int64_t offset,
                   const char *text)
{
    return add_problem(an, file, offset, text);
}

/* A new input for path, taken (owned by the input from here on, freed
 * when it cannot be added).  The array grows by doubling: one input a
 * file, thousands of files. */
static struct cp_analysis_input *add_input_taking(struct cp_analysis *an,
                                                  char *path)
{
    struct cp_analysis_input *in;

    if (!path)
        return NULL;
    if (an->ninputs == an->inputs_cap) {
        size_t cap = an->inputs_cap ? 2 * an->inputs_cap : 16;
        struct cp_analysis_input *bigger =
            realloc(an->inputs, cap * sizeof *bigger);
        if (!bigger) {
            free(path);
            return NULL;
        }
        an->inputs = bigger;
        an->inputs_cap = cap;
    }
    in = &an->inputs[an->ninputs];
    memset(in, 0, sizeof *in);
    in->path = path;
    in->global_rank = -1;
    in->world_size = -1;
    an->ninputs++;
    return in;
}

static struct cp_analysis_input *add_input(struct cp_analysis *an, const char *path)
{
    return add_input_taking(an, strdup(path));
}

/* Strings from logs go into messages and JSON: keep printable ASCII and
 * replace anything else (a damaged header, a foreign encoding) by '?'. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            *s = '?';
}

/* An input whose check (cp_scan_check_in) succeeded into known: what its
 * header says.  -1: out of memory. */
static int finish_input(struct cp_analysis *an, struct cp_analysis_input *in,
                        struct cp_logfile_known *known)
{
    const struct cp_log_header *h;
    const char *path = in->path;

    in->log = known;
    an->fds_kept += in->log->fd >= 0;
    h = &in->log->hdr;
    in->status = CP_INPUT_OK;
    in->global_rank = h->global_rank;
    in->world_size = h->world_size;
    in->pid = h->pid;
    snprintf(in->node, sizeof in->node, "%s", h->node);
    snprintf(in->job_id, sizeof in->job_id, "%s", h->job_id);
    snprintf(in->step_id, sizeof in->step_id, "%s", h->step_id);
    sanitize(in->node);
    sanitize(in->job_id);
    sanitize(in->step_id);
    in->timer = h->timer;
    in->source = h->source;
    in->closed = (h->flags & CP_HDR_CLOSED) != 0;
    in->records_dropped = h->records_dropped;
    {
        char why[200];
        uint64_t at;
        if (cp_log_header_time_problem(h, &at, why, sizeof why)) {
            in->header_times_bad = 1;
            if (add_problem(an, path, (int64_t)at, why) < 0)
                return -1;
        }
    }
    return 0;
}

/* The checks of the listed files, the one check of each (every later pass
 * starts from it, on the descriptor kept here while the budget allows;
 * its first records are read with the header, into its scan's place,
 * where the first pass takes them up).  They are independent (a file,
 * a place, a check each), so -j N makes them on N threads; what each
 * found is taken up afterwards in the inputs' order (finish_input), so
 * that the inputs and the problems are those of one thread.  The checks
 * of one listed path at a time: check c is of input first + c, into
 * known[base + c], its error in errs[base + c]. */
struct checks {
    struct cp_analysis *an;
    struct cp_logfile_known *known;
    struct cp_error **errs; /* a failed check's error (NULL: it did not) */
    char *mem;              /* the arena */
    size_t first, base, n, place, buf_size;
    size_t next;            /* the next check to take (atomic) */
    size_t kept;            /* descriptors kept (atomic), up to budget */
    size_t budget;
    int oom;                /* a failed check's error had no memory */
};

/* Checks taken by one thread at a time: a few hundred microseconds of
 * system calls, so that the threads take turns rarely. */
#define CHECKS_CHUNK 32

/* Take a descriptor from the budget (1), or none is left (0). */
static int check_take_fd(struct checks *ck)
{
    size_t kept = __atomic_load_n(&ck->kept, __ATOMIC_RELAXED);

    while (kept < ck->budget)
        if (__atomic_compare_exchange_n(&ck->kept, &kept, kept + 1, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 1;
    return 0;
}

static void *check_files(void *arg)
{
    struct checks *ck = arg;
    size_t c, end;

    for (;;) {
        c = __atomic_fetch_add(&ck->next, CHECKS_CHUNK, __ATOMIC_RELAXED);
        if (c >= ck->n)
            break;
        end = c + CHECKS_CHUNK < ck->n ? c + CHECKS_CHUNK : ck->n;
        for (; c < end; c++) {
            size_t at = ck->first + c;
            struct cp_logfile_known *k = &ck->known[ck->base + c];
            struct cp_error e, **err = &ck->errs[ck->base + c];
            int keep = check_take_fd(ck), failed;
            failed = cp_scan_check_in(ck->mem + at * ck->place,
                                      ck->an->inputs[at].path, keep,
                                      ck->buf_size, k, &e) < 0;
            if (failed && (*err = malloc(sizeof e)) != NULL)
                **err = e;
            else if (failed)
                __atomic_store_n(&ck->oom, 1, __ATOMIC_RELAXED);
            /* a descriptor not kept goes back to the budget */
            if (keep && (failed || k->fd < 0))
                __atomic_fetch_sub(&ck->kept, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

/* Run the checks on up to jobs threads (this one among them).  -1: out
 * of memory. */
static int run_checks(struct checks *ck, unsigned jobs)
{
    pthread_t *threads = NULL;
    size_t i, nthreads = 0, want = ck->n / (2 * CHECKS_CHUNK);

    /* a thread for every two chunks at most: a handful of files is not
     * worth a thread */
    if (want > (size_t)jobs - 1)
        want = jobs > 0 ? (size_t)jobs - 1 : 0;
    if (want > 0)
        threads = malloc(want * sizeof *threads);
    for (i = 0; threads && i < want; i++) {
        if (pthread_create(&threads[nthreads], NULL, check_files, ck) != 0)
            break; /* fewer threads: the others do their share */
        nthreads++;
    }
    check_files(ck);
    for (i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    return ck->oom ? -1 : 0;
}

/* What one path given lists (cp_partial_list). */
struct listed {
    char **files;
    int n;
    struct cp_error err, *notes;
    size_t nnotes;
};

/* The inputs of the listed paths, in their order (the inputs take the
 * names over: only the arrays are freed); an unreadable path is one
 * input, a path's files are consecutive ones from first[i]. */
static int add_listed(struct cp_analysis *an, const char *const *paths,
                      struct listed *ls, size_t npaths, size_t *first)
{
    size_t i, k;

    for (i = 0; i < npaths; i++) {
        first[i] = an->ninputs;
        if (ls[i].n < 0) {
            struct cp_analysis_input *in = add_input(an, paths[i]);
            if (!in)
                return -1;
            in->status = CP_INPUT_UNREADABLE;
            continue;
        }
        for (k = 0; k < (size_t)ls[i].n; k++) {
            char *path = ls[i].files[k];
            ls[i].files[k] = NULL;
            if (!add_input_taking(an, path))
                return -1;
        }
    }
    return 0;
}

/* What the checks (ck) found of each listed file, and the problems, in the
 * order of the paths. */
static int take_checks(struct cp_analysis *an, const char *const *paths,
                       const struct listed *ls, size_t npaths,
                       const size_t *first, const struct checks *ck,
                       struct scan_arena *arena)
{
    size_t i, k, c;

    for (i = 0, c = 0; i < npaths; i++) {
        for (k = 0; k < ls[i].nnotes; k++)
            if (add_problem(an, ls[i].notes[k].source, ls[i].notes[k].offset,
                            ls[i].notes[k].text) < 0)
                return -1;
        if (ls[i].n < 0) {
            if (add_problem(an, paths[i], -1, ls[i].err.text) < 0)
                return -1;
            continue;
        }
        for (k = 0; k < (size_t)ls[i].n; k++, c++) {
            struct cp_analysis_input *in = &an->inputs[first[i] + k];
            if (ck->errs[c]) {
                /* its place in the block stays unused */
                in->status = CP_INPUT_UNREADABLE;
                if (add_problem(an, in->path, ck->errs[c]->offset,
                                ck->errs[c]->text) < 0)
                    return -1;
            } else if (finish_input(an, in, &ck->known[c]) < 0) {
                return -1;
            }
            arena->nplaces = first[i] + k + 1;
        }
    }
    return 0;
}

/* The inputs under paths, each checked once (its header and first
 * records read into its place in arena, places by input index).  The
 * paths are listed first, so that the arena is laid out for all the
 * files before the first is read; problems come in the order of the
 * paths.  The checks run on jobs threads; the places are laid out for
 * passes of pass_jobs.  -1: out of memory. */
static int collect_inputs(struct cp_analysis *an, const char *const *paths,
                          unsigned jobs, unsigned pass_jobs,
                          struct scan_arena *arena)
{
    struct listed *ls = NULL;
    struct cp_logfile_known *known = NULL;
    struct checks ck;
    size_t npaths = 0, nfiles = 0, i, k, c, place = 0, buf_size = 0;
    size_t *first = NULL;
    int rc = -1;

    memset(&ck, 0, sizeof ck);
    while (paths[npaths])
        npaths++;
    ls = calloc(npaths ? npaths : 1, sizeof *ls);
    first = calloc(npaths ? npaths : 1, sizeof *first);
    if (!ls || !first)
        goto out;
    for (i = 0; i < npaths; i++) {
        /* raw logs, node partials (collprof reduce) or both */
        ls[i].n = cp_partial_list(paths[i], &ls[i].files, &ls[i].notes,
                                  &ls[i].nnotes, &ls[i].err);
        nfiles += ls[i].n >= 0 ? (size_t)ls[i].n : 1;
    }
    set_fd_budget(an, nfiles);
    /* one place per input (an unreadable path is one), laid out as the
     * passes will (open_files); what each check finds, in one block */
    place = scan_geometry(nfiles, &pass_jobs, &buf_size);
    known = malloc((nfiles ? nfiles : 1) * sizeof *known);
    an->known_blocks = malloc(sizeof *an->known_blocks);
    ck.errs = calloc(nfiles ? nfiles : 1, sizeof *ck.errs);
    if (!known || !an->known_blocks || !ck.errs || nfiles > SIZE_MAX / place ||
        arena_reserve(arena, nfiles * place) < 0) {
        free(known);
        goto out;
    }
    an->known_blocks[an->nknown_blocks++] = known;
    arena->place = place;
    if (add_listed(an, paths, ls, npaths, first) < 0)
        goto out;
    /* the checks, of all the files at once: one listed path holds them
     * all in the usual case (a directory) */
    ck.an = an;
    ck.known = known;
    ck.mem = arena->mem;
    ck.place = place;
    ck.buf_size = buf_size;
    ck.budget = an->fd_budget;
    for (i = 0, c = 0; i < npaths; i++) {
        if (ls[i].n < 0)
            continue;
        /* files of several paths: checked path by path (an unreadable
         * path's input lies between them) */
        ck.first = first[i];
        ck.base = c;
        ck.n = (size_t)ls[i].n;
        ck.next = 0;
        if (run_checks(&ck, jobs) < 0)
            goto out;
        c += (size_t)ls[i].n;
    }
    if (take_checks(an, paths, ls, npaths, first, &ck, arena) < 0)
        goto out;
    rc = 0;
out:
    for (i = 0; i < npaths && ls; i++) {
        if (ls[i].files) {
            for (k = 0; k < (size_t)(ls[i].n > 0 ? ls[i].n : 0); k++)
                free(ls[i].files[k]);
            free(ls[i].files);
        }
        free(ls[i].notes);
    }
    if (ck.errs)
        for (c = 0; c < nfiles; c++)
            free(ck.errs[c]);
    free(ck.errs);
    free(first);
    free(ls);
    return rc;
}

/* Keep the job most inputs belong to; the others are skipped.  (The usual
 * case, one job, is one pass; mixed jobs cost inputs x jobs.) */
static int select_job(struct cp_analysis *an)
{
    size_t i, k, best = SIZE_MAX, best_count = 0;

    for (i = 0; i < an->ninputs; i++) {
        size_t count = 0;
        if (an->inputs[i].status != CP_INPUT_OK)
            continue;
        if (best != SIZE_MAX &&
            strcmp(an->inputs[best].job_id, an->inputs[i].job_id) == 0)
            continue; /* counted with best already */
        for (k = i; k < an->ninputs; k++)
            if (an->inputs[k].status == CP_INPUT_OK &&
                strcmp(an->inputs[k].job_id, an->inputs[i].job_id) == 0)
                count++;
        if (count > best_count) {
            best_count = count;
            best = i;
        }
        if (best_count * 2 > an->ninputs)
            break; /* a majority: nothing can beat it */
    }
    if (best == SIZE_MAX)
        return 0;
    snprintf(an->job_id, sizeof an->job_id, "%s", an->inputs[best].job_id);
    snprintf(an->step_id, sizeof an->step_id, "%s", an->inputs[best].step_id);
    for (i = 0; i < an->ninputs; i++) {
        struct cp_analysis_input *in = &an->inputs[i];
        char msg[200];
        if (in->status != CP_INPUT_OK || strcmp(in->job_id, an->job_id) == 0)
            continue;
        in->status = CP_INPUT_SKIPPED;
        snprintf(msg, sizeof msg,
                 "belongs to job '%s', not to job '%s' of %zu of the %zu "
                 "logs: skipped",
                 in->job_id, an->job_id, best_count, an->ninputs);
        if (add_problem(an, in->path, -1, msg) < 0)
            return -1;
    }
    return (int)best_count;
}

static int compare_ranks(const void *a, const void *b)
{
    const struct cp_analysis_rank *x = a, *y = b;
    unsigned rx = x->rank < 0 ? UINT32_MAX : (unsigned)x->rank;
    unsigned ry = y->rank < 0 ? UINT32_MAX : (unsigned)y->rank;

    if (rx != ry)
        return rx < ry ? -1 : 1;
    return x->input < y->input ? -1 : x->input > y->input;
}

static int compare_procs(const void *a, const void *b)
{
    const struct an_proc *x = a, *y = b;
    int c;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    c = strcmp(x->node, y->node);
    if (c)
        return c;
    return x->input < y->input ? -1 : x->input > y->input;
}

int an_proc_index_build(const struct cp_analysis *an,
                        int (*keep)(const struct cp_analysis_input *),
                        struct an_proc_index *ix)
{
    size_t i;

    ix->n = 0;
    ix->v = malloc((an->ninputs ? an->ninputs : 1) * sizeof *ix->v);
    if (!ix->v)
        return -1;
    for (i = 0; i < an->ninputs; i++)
        if (keep(&an->inputs[i])) {
            ix->v[ix->n].pid = an->inputs[i].pid;
            ix->v[ix->n].input = (unsigned)i;
            ix->v[ix->n].node = an->inputs[i].node;
            ix->n++;
        }
    qsort(ix->v, ix->n, sizeof *ix->v, compare_procs);
    return 0;
}

long an_proc_index_last(const struct an_proc_index *ix, int pid,
                        const char *node)
{
    /* the first entry past (pid, node, any input): its predecessor */
    size_t lo = 0, hi = ix->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct an_proc *p = &ix->v[mid];
        int c = p->pid != pid ? (p->pid < pid ? -1 : 1) : strcmp(p->node, node);
        if (c <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ix->v[lo - 1].pid != pid ||
        strcmp(ix->v[lo - 1].node, node) != 0)
        return -1;
    return (long)ix->v[lo - 1].input;
}

void an_proc_index_free(struct an_proc_index *ix)
{
    free(ix->v);
    ix->v = NULL;
    ix->n = 0;
}

/* A log of the shim (or of anything but the plugin), read. */
static int shim_log(const struct cp_analysis_input *in)
{
    return in->status == CP_INPUT_OK && in->source != CP_SOURCE_PLUGIN;
}

/* A node's name, for the probe of the nodes' table. */
struct node_key {
    const struct cp_analysis *an;
    const char *name;
};

static int node_is(const void *ctx, size_t i)
{
    const struct node_key *key = ctx;
    return strcmp(key->an->nodes[i].name, key->name) == 0;
}

/* Ranks (one per analyzed input, by global rank) and nodes (in the order of
 * their lowest rank). */
static int build_ranks_and_nodes(struct cp_analysis *an)
{
    size_t i, k, n = 0, cap;
    struct cp_slots slots = {NULL, 0};
    struct an_proc_index shims = {0, NULL};

    an->ranks = calloc(an->ninputs ? an->ninputs : 1, sizeof *an->ranks);
    an->nodes = calloc(an->ninputs ? an->ninputs : 1, sizeof *an->nodes);
    if (!an->ranks || !an->nodes)
        return -1;
    for (i = 0; i < an->ninputs; i++)
        if (an->inputs[i].status == CP_INPUT_OK &&
            an->inputs[i].source == CP_SOURCE_PLUGIN)
            break;
    /* plugin logs: the shim's logs by process, to find each one's */
    if (i < an->ninputs && an_proc_index_build(an, shim_log, &shims) < 0)
        return -1;
    for (i = 0; i < an->ninputs; i++) {
        struct cp_analysis_input *in = &an->inputs[i];
        if (in->status != CP_INPUT_OK)
            continue;
        /* shim and plugin in one process: every call once, the shim's */
        if (in->source == CP_SOURCE_PLUGIN &&
            an_proc_index_last(&shims, in->pid, in->node) >= 0) {
            in->evidence_only = 1;
            continue;
        }
        an->ranks[n].rank = an->inputs[i].global_rank;
        an->ranks[n].input = (unsigned)i;
        n++;
    }
    an_proc_index_free(&shims);
    an->nranks = n;
    qsort(an->ranks, n, sizeof *an->ranks, compare_ranks);
    /* the nodes' names to their index (index + 1; 0: empty), at most half
     * full: a search among all the nodes for each new one was quadratic
     * in the nodes (2 million compares at 2048 nodes) */
    for (cap = 16; cap < 2 * n; cap *= 2)
        ;
    if (cp_slots_reset(&slots, cap) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        const char *node = an->inputs[an->ranks[i].input].node;
        struct node_key key = {an, node};
        size_t at;
        /* a node's ranks are usually consecutive: its name is the last
         * one's (names are unique among the nodes, so the index found is
         * the same), else looked up */
        if (i > 0 && strcmp(an->nodes[an->ranks[i - 1].node].name, node) == 0) {
            k = an->ranks[i - 1].node;
        } else {
            at = cp_slots_probe(&slots, cp_slots_name(node), node_is, &key);
            if (cp_slots_at(&slots, at) >= 0) {
                k = (size_t)cp_slots_at(&slots, at);
            } else {
                k = an->nnodes;
                snprintf(an->nodes[k].name, sizeof an->nodes[k].name, "%s",
                         node);
                an->nnodes++;
                cp_slots_set(&slots, at, k);
            }
        }
        an->nodes[k].ranks++;
        an->ranks[i].node = (unsigned)k;
    }
    cp_slots_free(&slots);
    /* the world size most analyzed headers give */
    an->world_size = -1;
    {
        size_t best = 0;
        for (i = 0; i < n && best * 2 <= n; i++) {
            int w = an->inputs[an->ranks[i].input].world_size;
            size_t count = 0;
            if (w <= 0 || w == an->world_size)
                continue;
            for (k = i; k < n; k++)
                count += an->inputs[an->ranks[k].input].world_size == w;
            if (count > best) {
                best = count;
                an->world_size = w;
            }
        }
    }
    return 0;
}

/* ---- passes -------------------------------------------------------------- */

static int open_files(struct cp_analysis *an, struct an_state *st,
                      const double *offsets, uint64_t limit,
                      struct scan_arena *arena)
{
    size_t i, buf_size, own = 0, place, resume;
    int park;

    /* a scan shares the descriptor its input kept; the others need one
     * each, or are parked (one open per refill) past the limit */
    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_input *in = &an->inputs[an->ranks[i].input];
        own += !in->log || in->log->fd < 0;
    }
    park = own > 0 && !fds_for_all(an->fds_kept + own);

    /* a place per input (the inputs' checks read into them), the budget
     * divided among all the files listed */
    place = scan_geometry(an->ninputs, &st->jobs, &buf_size);
    if (an->ninputs > SIZE_MAX / place ||
        arena_reserve(arena, an->ninputs * place) < 0)
        return -1;
    /* the first records of each log read with its header, or by the
     * clock pass, where they are still in its place, are the next pass's
     * first buffer */
    if (arena->place != place)
        arena->nplaces = 0;
    resume = arena->nplaces;
    arena->place = place;
    arena->nplaces = an->ninputs;

    for (i = 0; i < an->nranks; i++) {
        struct an_file *f = &st->files[i];
        struct cp_analysis_input *in = &an->inputs[an->ranks[i].input];
        const struct cp_log_header *h;
        struct cp_error e;

        f->input = an->ranks[i].input;
        f->node = an->ranks[i].node;
        f->jn = cp_ncjoin_of(an->nccl.join, f->input, &f->njn);
        f->jpos = 0;
        f->rp = cp_ncjoin_replays(an->nccl.join, f->input, &f->nrp);
        f->rpos = 0;
        f->rank = (unsigned)i;
        f->limit = limit;
        f->offset_ns =
            offsets ? (int64_t)llround(offsets[f->node] * 1e9) : 0;
        /* past the limit on open files, a log is opened only to be read
         * (parked), not once more to place its scan */
        f->sc = !in->log ? cp_scan_open_sized(in->path, buf_size, &e)
                         : cp_scan_place_in((char *)arena->mem +
                                                (size_t)f->input * place,
                                            in->path, in->log, buf_size,
                                            st->jobs > 1,
                                            (f->input < resume ? CP_SCAN_RESUME
                                                               : 0) |
                                                (park ? CP_SCAN_PARKED : 0),
                                            &e);
        if (f->sc && park)
            cp_scan_park(f->sc);
        if (!f->sc) {
            /* it was readable a moment ago */
            in->status = CP_INPUT_UNREADABLE;
            if (limit == 0 && add_problem(an, in->path, e.offset, e.text) < 0)
                return -1;
            continue;
        }
        h = cp_scan_header(f->sc);
        /* times no job can have (before 2000, after 2100: cp_logread.h)
         * and times outside [start - 1 day, end + 1 day] of a sound header
         * (start + a year for a log never closed) are damage; the bounds
         * also keep every later sum and difference of times (corrected by
         * offsets of at most a day) inside int64 */
        f->t_min = (int64_t)CP_TIME_MIN_NS;
        f->t_max = (int64_t)CP_TIME_MAX_NS;
        if (h->start_realtime_ns >= CP_TIME_MIN_NS &&
            h->start_realtime_ns < CP_TIME_MAX_NS) {
            uint64_t end = h->start_realtime_ns + CP_SPAN_MAX_NS;
            if (h->end_realtime_ns >= h->start_realtime_ns &&
                h->end_realtime_ns - h->start_realtime_ns <= CP_SPAN_MAX_NS)
                end = h->end_realtime_ns + (uint64_t)DAY_NS;
            if ((int64_t)h->start_realtime_ns - DAY_NS > f->t_min)
                f->t_min = (int64_t)h->start_realtime_ns - DAY_NS;
            if (end < (uint64_t)f->t_max)
                f->t_max = (int64_t)end;
        }
        if (in->log && in->log->size > h->header_size)
            st->bytes_total += in->log->size - h->header_size;
    }
    return 0;
}

/* Causal bounds of every node's offset against node 0 from the pairs'
 * [lo, hi]: a system of difference constraints, solved by relaxing the
 * edges until nothing changes (Bellman-Ford; a change after nnodes rounds
 * means the constraints contradict each other: drift or damage).  Returns
 * 0, or -1 when contradictory. */
static int offset_bounds(size_t nnodes, const struct an_state *st,
                         double *low, double *high)
{
    size_t i, round;
    int changed = 1;

    for (i = 0; i < nnodes; i++) {
        low[i] = i == 0 ? 0 : -INFINITY;
        high[i] = i == 0 ? 0 : INFINITY;
    }
    for (round = 0; changed && round <= nnodes; round++) {
        changed = 0;
        for (i = 0; i < st->npairs; i++) {
            const struct an_offset_pair *p = &st->pairs[i];
            double lo = p->lo_ns == INT64_MIN ? -INFINITY
                                              : (double)p->lo_ns * 1e-9;
            double hi = p->hi_ns == INT64_MAX ? INFINITY
                                              : (double)p->hi_ns * 1e-9;
            /* offset(x) - offset(r) in [lo, hi] */
            if (high[p->r] + hi < high[p->x]) {
                high[p->x] = high[p->r] + hi;
                changed = 1;
            }
            if (high[p->x] - lo < high[p->r]) {
                high[p->r] = high[p->x] - lo;
                changed = 1;
            }
            if (low[p->r] + lo > low[p->x]) {
                low[p->x] = low[p->r] + lo;
                changed = 1;
            }
            if (low[p->x] - hi > low[p->r]) {
                low[p->r] = low[p->x] - hi;
                changed = 1;
            }
        }
    }
    if (changed)
        return -1;
    for (i = 0; i < nnodes; i++)
        if (low[i] > high[i])
            return -1;
    return 0;
}

/* Per-node offsets from the prefix pass's samples: the median of each
 * (node, reference) pair, chained from node 0 outwards, kept within what
 * causality allows; applied only where that excludes a shared clock. */
static void solve_offsets(struct cp_analysis *an, struct an_state *st,
                          double *offsets)
{
    size_t i;
    int changed = 1, consistent;
    double *low = NULL, *high = NULL;

    for (i = 0; i < an->nnodes; i++) {
        offsets[i] = 0;
        an->nodes[i].offset_known = i == 0;
    }
    an->offset_reference = 0;
    an->offset_instances = st->offset_instances;
    for (i = 0; i < st->npairs; i++)
        cp_stats_sort(st->pairs[i].v, st->pairs[i].n);
    while (changed) {
        changed = 0;
        for (i = 0; i < st->npairs; i++) {
            struct an_offset_pair *p = &st->pairs[i];
            double med;
            if (p->n == 0)
                continue;
            med = cp_stats_median_sorted(p->v, p->n) * 1e-9;
            if (!(fabs(med) < 86400)) /* more than a day: damage */
                continue;
            if (an->nodes[p->r].offset_known && !an->nodes[p->x].offset_known) {
                offsets[p->x] = offsets[p->r] + med;
                an->nodes[p->x].offset_known = 1;
                an->nodes[p->x].offset_samples = p->n;
                changed = 1;
            } else if (an->nodes[p->x].offset_known &&
                       !an->nodes[p->r].offset_known) {
                offsets[p->r] = offsets[p->x] - med;
                an->nodes[p->r].offset_known = 1;
                an->nodes[p->r].offset_samples = p->n;
                changed = 1;
            }
        }
    }
    low = malloc(an->nnodes * sizeof *low);
    high = malloc(an->nnodes * sizeof *high);
    consistent = low && high && offset_bounds(an->nnodes, st, low, high) == 0;
    for (i = 0; i < an->nnodes; i++) {
        struct cp_analysis_node *n = &an->nodes[i];
        if (!(fabs(offsets[i]) < 86400) || !consistent ||
            !isfinite(low[i]) || !isfinite(high[i]) ||
            !(fabs(low[i]) < 86400 && fabs(high[i]) < 86400)) {
            /* chained too far, contradictory or unbounded: unknown */
            offsets[i] = 0;
            n->offset_known = i == 0;
            n->offset_low_s = n->offset_high_s = 0;
            n->offset_significant = 0;
            n->offset_s = n->offset_estimate_s = 0;
            continue;
        }
        /* a median outside what causality allows is biased (a loaded
         * node's calls end late): the middle of the bounds, not the edge
         * it crossed (16 of 420 jobs with a planted offset in seven sets
         * of the accuracy matrix: mean error 0.70 ms at the edge, 0.18 ms
         * in the middle, nearer in 14 of the 16) */
        if (offsets[i] < low[i] || offsets[i] > high[i])
            offsets[i] = 0.5 * (low[i] + high[i]);
        n->offset_known = 1;
        n->offset_estimate_s = offsets[i];
        n->offset_low_s = low[i];
        n->offset_high_s = high[i];
        /* a shared clock (offset 0) is possible: nothing to correct */
        n->offset_significant = low[i] > 0 || high[i] < 0;
        if (!n->offset_significant)
            offsets[i] = 0;
        n->offset_s = offsets[i];
    }
    free(low);
    free(high);
}

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
        pr = cp_scan_problem(f->sc);
        if (pr)
            add_problem(an, in->path, pr->offset, pr->text);
        if (f->problem_noted)
            add_problem(an, in->path, f->problem_offset, f->problem);
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
        add_problem(an,
                    an->inputs[st->files[st->refused_first_file].input].path,
                    -1, msg);
    }
}

/* ---- after the stream ------------------------------------------------------ */

static enum cp_coll slot_coll(unsigned slot)
{
    return slot == AN_SLOT_P2P_INTRA ? CP_COLL_SENDRECV : (enum cp_coll)slot;
}

static unsigned slot_ranks(const struct an_comm *c, unsigned slot)
{
    return slot_coll(slot) == CP_COLL_SENDRECV ? 2 : c->nranks;
}

static int compare_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static int build_comms(struct cp_analysis *an, struct an_state *st)
{
    size_t i;
    unsigned r;

    an->comms = calloc(st->ncomms ? st->ncomms : 1, sizeof *an->comms);
    if (!an->comms)
        return -1;
    for (i = 0; i < st->ncomms; i++) {
        struct an_comm *c = st->comms[i];
        struct cp_analysis_comm *pc = &an->comms[i];
        unsigned n = 0, k;

        pc->id = c->id;
        pc->nranks = c->nranks;
        memcpy(pc->name, c->name, sizeof pc->name);
        for (r = 0; pc->name[r]; r++)
            if ((unsigned char)pc->name[r] < 0x20 ||
                (unsigned char)pc->name[r] > 0x7e)
                pc->name[r] = '?';
        pc->instances = c->instances;
        pc->incomplete = c->incomplete;
        pc->p2p = c->p2p;
        pc->time_s = c->time;
        pc->skew_p50_s = pc->skew_p90_s = pc->skew_p99_s = pc->skew_max_s =
            NAN;
        if (c->skew.count) {
            pc->skew_p50_s = cp_sketch_quantile(&c->skew, 0.5);
            pc->skew_p90_s = cp_sketch_quantile(&c->skew, 0.9);
            pc->skew_p99_s = cp_sketch_quantile(&c->skew, 0.99);
            pc->skew_max_s = cp_sketch_quantile(&c->skew, 1.0);
        }
        pc->ranks = malloc(c->nranks * sizeof *pc->ranks);
        pc->nodes = malloc(c->nranks * sizeof *pc->nodes);
        an->ncomms++;
        if (!pc->ranks || !pc->nodes)
            return -1;
        for (r = 0; r < c->nranks; r++) {
            int32_t f = c->member_file[r];
            pc->ranks[r] = f < 0 ? -1 : an->ranks[f].rank;
            pc->missing += f < 0;
            if (f >= 0)
                pc->nodes[n++] = an->ranks[f].node;
        }
        qsort(pc->nodes, n, sizeof *pc->nodes, compare_unsigned);
        for (r = k = 0; r < n; r++)
            if (k == 0 || pc->nodes[k - 1] != pc->nodes[r])
                pc->nodes[k++] = pc->nodes[r];
        pc->nnodes = k;
        pc->link = k > 1 ? CP_LINK_INTER : CP_LINK_INTRA;
    }
    return 0;
}

static enum cp_link_class slot_link(const struct cp_analysis *an, size_t ci,
                                    unsigned slot)
{
    if (slot == AN_SLOT_P2P_INTRA)
        return CP_LINK_INTRA;
    if (slot == CP_COLL_SENDRECV)
        return CP_LINK_INTER;
    return an->comms[ci].link;
}


double cp_analysis_model_time(const struct cp_analysis *an,
                              enum cp_link_class link, enum cp_coll coll,
                              unsigned p, double n)
{
    const struct cp_analysis_link *m;
    struct cp_model_params params;

    if (link >= CP_LINK_COUNT || coll >= CP_COLL_COUNT || !(n >= 0))
        return NAN;
    m = &an->model[link];
    if (coll == CP_COLL_SENDRECV)
        p = 2;
    if (m->source == CP_SOURCE_NONE || p < 2)
        return NAN;
    memset(&params, 0, sizeof params);
    params.alpha = m->alpha_s;
    params.beta = 1 / m->bandwidth_Bps;
    return cp_model_time(coll, cp_model_coll_facts(coll)->nccl_algo, p, n,
                         &params);
}

/* Calls inside groups ran in an interval shared with the group's other
 * calls: their own time is unknown, so a bucket made mostly of them counts
 * in the time accounting but not in bandwidth judgments (as in the fit);
 * the same for a bucket of which over 5 % of the instances are
 * incomplete. */
static int judged(const struct an_bucket *b)
{
    /* nor do instances with members missing: their own time is that of
     * the members present, not the collective's */
    return b->grouped * 10 <= b->count && b->incomplete * 20 <= b->count;
}

/* One link class's model m: the fit of its npts points pts, its
 * weakness, and the model used (the profile's pl, else the fit). */
static void fit_class(struct cp_analysis_link *m,
                      const struct cp_profile_link *pl,
                      struct cp_fit_point *pts, size_t npts)
{
    struct cp_fit_result fr;
    size_t i;
    unsigned groups;

    cp_fit_line(pts, npts, &fr);
    m->fit_ok = fr.ok;
    m->fit_alpha_s = fr.alpha;
    m->fit_bandwidth_Bps = fr.ok ? 1 / fr.beta : NAN;
    m->fit_median_rel_residual = fr.median_rel_residual;
    m->fit_r2 = fr.r2;
    m->fit_points = fr.points;
    m->fit_points_used = fr.points_used;
    m->fit_calls_used = fr.calls_used;
    m->fit_weak = 0;
    m->fit_weak_why[0] = '\0';
    for (i = 0, groups = 0; i < npts; i++)
        groups += pts[i].used && pts[i].calls >= FIT_GROUP_CALLS;
    if (fr.ok && fr.points_used < FIT_MIN_POINTS) {
        m->fit_weak = 1;
        snprintf(m->fit_weak_why, sizeof m->fit_weak_why,
                 "%u size groups used (at least %d make a firm fit)",
                 fr.points_used, FIT_MIN_POINTS);
    } else if (fr.ok && groups < FIT_MIN_POINTS &&
               fr.points_used < FIT_MANY_POINTS) {
        m->fit_weak = 1;
        snprintf(m->fit_weak_why, sizeof m->fit_weak_why,
                 "%u size groups used, %u of them of %d calls or more "
                 "(a firm fit needs %d such, or %d groups in all)",
                 fr.points_used, groups, FIT_GROUP_CALLS, FIT_MIN_POINTS,
                 FIT_MANY_POINTS);
    } else if (fr.ok && !(fr.r2 >= FIT_MIN_R2 &&
                          fr.median_rel_residual <= FIT_MAX_RESIDUAL)) {
        m->fit_weak = 1;
        snprintf(m->fit_weak_why, sizeof m->fit_weak_why,
                 "poor quality: r2 %.2f, median residual %.0f%%", fr.r2,
                 100 * fr.median_rel_residual);
    }
    snprintf(m->fit_why, sizeof m->fit_why, "%s",
             fr.ok ? "" : (npts ? fr.why : "no calls of this class"));
    m->source = CP_SOURCE_NONE;
    m->alpha_s = m->bandwidth_Bps = NAN;
    if (pl && (pl->have_alpha || pl->have_bandwidth)) {
        m->source = CP_SOURCE_PROFILE;
        m->alpha_s = pl->have_alpha ? pl->alpha_s
                                    : (fr.ok ? m->fit_alpha_s : 0);
        m->bandwidth_Bps = pl->have_bandwidth ? pl->bandwidth_Bps
                                              : m->fit_bandwidth_Bps;
        if (!(m->bandwidth_Bps > 0))
            m->source = CP_SOURCE_NONE;
    } else if (fr.ok) {
        m->source = CP_SOURCE_FIT;
        m->alpha_s = m->fit_alpha_s;
        m->bandwidth_Bps = m->fit_bandwidth_Bps;
    }
    m->expected_Bps = NAN;
    m->expected_source = CP_SOURCE_NONE;
    if (pl && pl->have_bandwidth) {
        m->expected_Bps = pl->bandwidth_Bps;
        m->expected_source = CP_SOURCE_PROFILE;
    }
    if (m->source == CP_SOURCE_NONE)
        m->alpha_s = m->bandwidth_Bps = NAN;
}

static int fit_classes(struct cp_analysis *an, struct an_state *st,
                       const struct cp_profile *profile)
{
    struct cp_fit_point *pts[CP_LINK_COUNT] = {NULL, NULL};
    size_t npts[CP_LINK_COUNT] = {0, 0}, cap[CP_LINK_COUNT] = {0, 0};
    size_t ci;
    unsigned s, k;
    int rc = -1;

    for (ci = 0; ci < st->ncomms; ci++) {
        struct an_comm *c = st->comms[ci];
        for (s = 0; s < AN_SLOTS; s++) {
            struct an_slot_table *t = c->slots[s];
            enum cp_link_class link = slot_link(an, ci, s);
            double A, B;
            if (!t || cp_model_nccl_steps(slot_coll(s), slot_ranks(c, s), &A,
                                          &B) < 0)
                continue;
            for (k = 0; k < AN_NBUCKETS; k++) {
                struct an_bucket *b = t->b[k];
                struct cp_fit_point *p;
                if (!b || b->count == 0 || !judged(b))
                    continue;
                if (npts[link] == cap[link]) {
                    size_t nc = cap[link] ? cap[link] * 2 : 64;
                    struct cp_fit_point *bigger =
                        realloc(pts[link], nc * sizeof *bigger);
                    if (!bigger)
                        goto out;
                    pts[link] = bigger;
                    cap[link] = nc;
                }
                p = &pts[link][npts[link]++];
                p->x = B * (b->bytes / (double)b->count) / A;
                p->y = cp_sketch_quantile(&b->t, 0.5) / A;
                p->weight = sqrt((double)b->count);
                p->calls = b->count;
            }
        }
    }
    for (k = 0; k < CP_LINK_COUNT; k++)
        fit_class(&an->model[k], profile ? &profile->link[k] : NULL, pts[k],
                  npts[k]);
    rc = 0;
out:
    free(pts[0]);
    free(pts[1]);
    return rc;
}

static void group_add(struct an_group_stats *g, const struct an_bucket *b,
                      double L, double W, double f)
{
    if (g->calls == 0 || b->n_min < g->n_min)
        g->n_min = b->n_min;
    if (g->calls == 0 || b->n_max > g->n_max)
        g->n_max = b->n_max;
    g->calls += b->count;
    g->bytes += b->bytes;
    g->time += b->time;
    if (!judged(b))
        return;
    g->judged_calls += b->count;
    g->duration += b->duration;
    g->fast_duration += (double)b->count * cp_sketch_quantile(&b->t, 0.1);
    g->model_time += (double)b->count * L + b->bytes * W;
    g->fn += f * b->bytes;
    g->judged_bytes += b->bytes;
}

/* The model terms of (comm ci, slot s) into ev, zeroed first. */
static void init_eval(const struct cp_analysis *an, struct an_comm *c,
                      size_t ci, unsigned s, struct an_eval *ev)
{
    struct cp_model_terms terms;
    const struct cp_analysis_link *m;
    unsigned p = slot_ranks(c, s);
    struct cp_model_params params;

    memset(ev, 0, sizeof *ev);
    ev->comm = (unsigned)ci;
    ev->slot = s;
    ev->coll = slot_coll(s);
    ev->link = slot_link(an, ci, s);
    ev->factor = cp_model_busbw_factor(ev->coll, p);
    m = &an->model[ev->link];
    memset(&params, 0, sizeof params);
    params.alpha = m->alpha_s;
    params.beta = 1 / m->bandwidth_Bps;
    ev->have_model = m->source != CP_SOURCE_NONE &&
                     cp_model_terms(
                         ev->coll,
                         cp_model_coll_facts(ev->coll)->nccl_algo, p,
                         &params, &terms, NULL) == 0 &&
                     (p > 1 || ev->coll == CP_COLL_SENDRECV);
    ev->weak = ev->have_model && m->source == CP_SOURCE_FIT &&
               m->fit_weak;
    ev->latency_s = ev->have_model ? terms.latency_s : NAN;
    ev->sec_per_byte = ev->have_model ? terms.sec_per_byte : NAN;
}

/* A new row of an->rows, zeroed (the array grows by doubling; *caprows is
 * its capacity).  NULL: out of memory. */
static struct cp_analysis_row *new_row(struct cp_analysis *an, size_t *caprows)
{
    struct cp_analysis_row *row;

    if (an->nrows == *caprows) {
        size_t nc = *caprows ? *caprows * 2 : 64;
        struct cp_analysis_row *bigger = realloc(an->rows, nc * sizeof *bigger);
        if (!bigger)
            return NULL;
        an->rows = bigger;
        *caprows = nc;
    }
    row = &an->rows[an->nrows++];
    memset(row, 0, sizeof *row);
    return row;
}

/* Bucket b's counts into row, and into ev's latency or bandwidth group;
 * its durations into *duration and, when latency-bound, *lat_time. */
static void add_bucket(struct an_state *st, struct an_eval *ev,
                       struct cp_analysis_row *row, struct an_bucket *b,
                       struct cp_sketch *merged, double *duration,
                       double *lat_time)
{
    unsigned a;
    int latency;

    row->calls += b->count;
    row->incomplete += b->incomplete;
    row->grouped += b->grouped;
    for (a = 0; a < CP_ANALYSIS_ALGOS; a++)
        row->algo_calls[a] += b->algo[a];
    for (a = 0; a < CP_ANALYSIS_PROTOS; a++)
        row->proto_calls[a] += b->proto[a];
    row->bytes += b->bytes;
    row->time_s += b->time;
    *duration += b->duration;
    row->skew_s += b->skew;
    if (cp_sketch_merge(merged, &b->t) < 0)
        st->oom = 1;
    latency = an_bucket_latency_bound(ev, b);
    if (latency)
        *lat_time += b->time;
    group_add(latency ? &ev->lat : &ev->bw, b,
              ev->have_model ? ev->latency_s : 0,
              ev->have_model ? ev->sec_per_byte : 0,
              ev->factor);
}

/* A row's quantiles, bandwidths and, with a model, its efficiency and
 * regime, from its merged sketch and summed durations. */
static void finish_row(struct cp_analysis_row *row, const struct an_eval *ev,
                       const struct cp_sketch *merged, double duration,
                       double lat_time)
{
    row->p50_s = cp_sketch_quantile(merged, 0.5);
    row->p99_s = cp_sketch_quantile(merged, 0.99);
    row->algbw_Bps = cp_model_algbw(row->bytes, duration);
    row->busbw_Bps = row->algbw_Bps * ev->factor;
    if (ev->have_model) {
        row->model_time_s = (double)row->calls * ev->latency_s +
                            row->bytes * ev->sec_per_byte;
        row->efficiency = duration > 0
                              ? row->model_time_s / duration
                              : NAN;
        row->model_mismatch = row->efficiency > EFFICIENCY_MAX;
        if (row->model_mismatch)
            row->efficiency = NAN;
        row->latency_share =
            row->time_s > 0 ? lat_time / row->time_s
                            : (lat_time > 0);
        row->regime = row->latency_share > 0.5
                          ? CP_REGIME_LATENCY
                          : CP_REGIME_BANDWIDTH;
    } else {
        row->model_time_s = row->efficiency = NAN;
        row->latency_share = NAN;
        row->regime = CP_REGIME_NONE;
    }
}

/* The row row_idx of table t (bucket 0 alone, then AN_SUB sub-buckets per
 * row), when one of its buckets has calls.  -1: out of memory. */
static int build_row(struct cp_analysis *an, struct an_state *st,
                     struct an_eval *ev, const struct an_slot_table *t,
                     size_t ci, unsigned row_idx, size_t *caprows)
{
    unsigned first = row_idx == 0 ? 0 : 1 + (row_idx - 1) * AN_SUB;
    unsigned last = row_idx == 0 ? 0 : first + AN_SUB - 1;
    struct cp_analysis_row *row = NULL;
    struct cp_sketch merged;
    double lat_time = 0, duration = 0;
    unsigned k;
    int rc = -1;

    cp_sketch_init(&merged);
    for (k = first; k <= last; k++) {
        struct an_bucket *b = t->b[k];
        if (!b || b->count == 0)
            continue;
        if (!row) {
            row = new_row(an, caprows);
            if (!row)
                goto out;
            row->comm = (unsigned)ci;
            row->coll = ev->coll;
            row->link = ev->link;
            row->bucket_lo = row_idx == 0 ? 0 : ldexp(1, (int)row_idx - 1);
        }
        add_bucket(st, ev, row, b, &merged, &duration, &lat_time);
    }
    if (row)
        finish_row(row, ev, &merged, duration, lat_time);
    rc = 0;
out:
    cp_sketch_clear(&merged);
    return rc;
}

/* One row per power-of-two size of every (comm, slot); evals per (comm,
 * slot) split by regime. */
static int build_rows(struct cp_analysis *an, struct an_state *st,
                      struct an_eval **evals_out, size_t *nevals_out)
{
    struct an_eval *evals = NULL;
    size_t nevals = 0, capevals = 0, caprows = 0, ci;
    unsigned s, row_idx;
    int rc = -1;

    for (ci = 0; ci < st->ncomms; ci++) {
        struct an_comm *c = st->comms[ci];
        for (s = 0; s < AN_SLOTS; s++) {
            struct an_slot_table *t = c->slots[s];
            struct an_eval *ev;

            if (!t || t->count == 0)
                continue;
            if (nevals == capevals) {
                size_t nc = capevals ? capevals * 2 : 32;
                struct an_eval *bigger = realloc(evals, nc * sizeof *bigger);
                if (!bigger)
                    goto out;
                evals = bigger;
                capevals = nc;
            }
            ev = &evals[nevals++];
            init_eval(an, c, ci, s, ev);
            for (row_idx = 0; row_idx <= 64; row_idx++)
                if (build_row(an, st, ev, t, ci, row_idx, &caprows) < 0)
                    goto out;
        }
    }
    rc = 0;
out:
    if (rc < 0) {
        free(evals);
        evals = NULL;
        nevals = 0;
    }
    *evals_out = evals;
    *nevals_out = nevals;
    return rc;
}

static void class_bandwidths(struct cp_analysis *an, const struct an_eval *ev,
                             size_t nev)
{
    double fn[CP_LINK_COUNT] = {0, 0}, t[CP_LINK_COUNT] = {0, 0},
           mt[CP_LINK_COUNT] = {0, 0};
    uint64_t calls[CP_LINK_COUNT] = {0, 0};
    size_t i;
    unsigned k;

    for (i = 0; i < nev; i++) {
        if (!ev[i].have_model)
            continue;
        fn[ev[i].link] += ev[i].bw.fn;
        t[ev[i].link] += ev[i].bw.duration;
        mt[ev[i].link] += ev[i].bw.model_time;
        calls[ev[i].link] += ev[i].bw.judged_calls;
    }
    for (k = 0; k < CP_LINK_COUNT; k++) {
        an->model[k].bw_calls = calls[k];
        an->model[k].busbw_Bps = t[k] > 0 ? fn[k] / t[k] : NAN;
        an->model[k].model_busbw_Bps = mt[k] > 0 ? fn[k] / mt[k] : NAN;
    }
}

/* The port rate a node's NICs promise: per node its fastest ACTIVE port,
 * the median over the job's nodes with one; bytes/s, NaN none. */
static double port_reference(const struct cp_analysis *an)
{
    double *best = NULL, *v = NULL, ref = NAN;
    size_t i, n = 0;

    best = calloc(an->nnodes ? an->nnodes : 1, sizeof *best);
    v = malloc((an->nnodes ? an->nnodes : 1) * sizeof *v);
    if (!best || !v)
        goto out;
    for (i = 0; i < an->ports.nports; i++) {
        const struct cp_analysis_port *p = &an->ports.ports[i];
        if (p->node < an->nnodes && strcmp(p->state, "ACTIVE") == 0 &&
            p->rate_Gbps > best[p->node])
            best[p->node] = p->rate_Gbps;
    }
    for (i = 0; i < an->nnodes; i++)
        if (best[i] > 0)
            v[n++] = best[i];
    if (n) {
        cp_stats_sort(v, n);
        ref = cp_stats_median_sorted(v, n) * 1e9 / 8;
    }
out:
    free(best);
    free(v);
    return ref;
}

/* The absolute reference of each class (the profile, else for the
 * network the NICs' port rate from the snapshots; the fit of the same
 * calls is never one: it cannot call them slow), and the busbw it
 * predicts for the class's bandwidth-bound calls. */
static void set_references(struct cp_analysis *an, const struct an_eval *ev,
                           size_t nev)
{
    double fn[CP_LINK_COUNT] = {0, 0}, mt[CP_LINK_COUNT] = {0, 0};
    size_t i;
    unsigned k;

    if (an->model[CP_LINK_INTER].expected_source == CP_SOURCE_NONE) {
        double ports = port_reference(an);
        if (ports > 0) {
            an->model[CP_LINK_INTER].expected_Bps = ports;
            an->model[CP_LINK_INTER].expected_source = CP_SOURCE_PORTS;
        }
    }
    for (i = 0; i < nev; i++) {
        const struct cp_analysis_link *m = &an->model[ev[i].link];
        if (!ev[i].have_model || !(m->expected_Bps > 0))
            continue;
        fn[ev[i].link] += ev[i].bw.fn;
        mt[ev[i].link] += (double)ev[i].bw.judged_calls * ev[i].latency_s +
                          ev[i].bw.judged_bytes * ev[i].sec_per_byte *
                              m->bandwidth_Bps / m->expected_Bps;
    }
    for (k = 0; k < CP_LINK_COUNT; k++)
        an->model[k].reference_busbw_Bps = mt[k] > 0 ? fn[k] / mt[k] : NAN;
}

/* The training steps in the run: the period of the calls of the lowest
 * rank (cp_steps: communicator, operation, count and type in the order the
 * rank made them), or unknown (0): then nothing is said per step. */
static void estimate_steps(struct cp_analysis *an, unsigned given)
{
    const struct cp_analysis_rank *pick = NULL;
    struct cp_steps_result res;
    struct cp_error err;
    size_t i;

    an->summary.steps = 0;
    if (given) {
        an->summary.steps = given;
        snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
                 "--steps");
        return;
    }
    snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
             "unknown: no sequence of calls repeats (give --steps)");
    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_rank *r = &an->ranks[i];
        if (r->calls - r->failed < 4)
            continue;
        if (!pick || (r->rank >= 0 && (pick->rank < 0 || r->rank < pick->rank)))
            pick = r;
    }
    if (!pick ||
        cp_steps_from_log(an->inputs[pick->input].path,
                          an->inputs[pick->input].log, pick->calls - pick->failed, &res, &err) < 0 ||
        res.steps == 0)
        return;
    an->summary.steps = res.steps;
    an->steps_at.rank = (long)(pick - an->ranks);
    an->steps_at.first = res.first;
    an->steps_at.period = res.period;
    snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
             "a pattern of %zu calls repeats on rank %d%s", res.period,
             pick->rank, res.by_pauses ? " (steps marked by pauses)" : "");
}

/* Each rank's time in NCCL calls as a share of the run: the median and
 * the worst rank. */
static void rank_shares(struct cp_analysis *an)
{
    struct cp_analysis_summary *sm = &an->summary;
    double *v = NULL;
    size_t i, n = 0;

    sm->rank_share_median = sm->rank_share_max = NAN;
    sm->rank_share_max_rank = -1;
    if (!(sm->span_s > 0) || an->nranks == 0)
        return;
    v = malloc(an->nranks * sizeof *v);
    if (!v)
        return;
    for (i = 0; i < an->nranks; i++) {
        double s = fmin(1, an->ranks[i].time_s / sm->span_s);
        v[n++] = s;
        if (!(s <= sm->rank_share_max)) {
            sm->rank_share_max = s;
            sm->rank_share_max_rank = an->ranks[i].rank;
        }
    }
    cp_stats_sort(v, n);
    sm->rank_share_median = cp_stats_median_sorted(v, n);
    free(v);
}

static void finish_summary(struct cp_analysis *an, struct an_state *st,
                           const struct an_eval *ev, size_t nev)
{
    struct cp_analysis_summary *sm = &an->summary;
    unsigned timers[5] = {0, 0, 0, 0, 0}, k;
    int have_model = 0;
    size_t i;

    sm->records = st->records;
    for (i = 0; i < an->nranks; i++)
        sm->calls += an->ranks[i].calls;
    sm->failed_calls = st->failed;
    sm->instances = st->instances;
    sm->incomplete_instances = st->incomplete;
    sm->p2p_pairs = st->p2p_pairs;
    sm->unmatched_p2p = st->unmatched;
    sm->late_records = st->late;
    sm->unjoinable_calls = st->unjoinable;
    an->nccl.gpu_timed = st->gpu_timed;
    an->nccl.captures_left_out = st->captures_left_out;
    sm->comm_time_s = st->comm_time;
    sm->skew_time_s = st->skew_time;
    sm->wait_time_s = st->wait_time;
    sm->rank_time_s = st->rank_time;
    sm->span_s = st->t_last > st->t_first
                     ? (double)(st->t_last - st->t_first) * 1e-9
                     : 0;
    sm->busy_s = fmin(an_busy_total_s(&st->busy), sm->span_s);
    rank_shares(an);
    sm->start_ns = st->t_last >= st->t_first ? st->t_first : 0;
    sm->outside_calls = st->outside;
    for (i = 0; i < nev; i++) {
        have_model |= ev[i].have_model;
        sm->latency_bound_s += ev[i].lat.time;
    }
    sm->latency_bound_share =
        have_model && sm->comm_time_s > 0
            ? fmin(1, sm->latency_bound_s / sm->comm_time_s)
            : NAN;
    for (i = 0; i < an->nranks; i++) {
        k = an->inputs[an->ranks[i].input].timer;
        if (k < 5)
            timers[k]++;
    }
    for (k = 1; k < 5; k++)
        if (timers[k] > timers[sm->timer])
            sm->timer = k;
    for (i = 0; i < an->ninputs; i++)
        sm->inputs_skipped += an->inputs[i].status == CP_INPUT_SKIPPED ||
                              an->inputs[i].status == CP_INPUT_UNREADABLE;
}

/* The windows of the main pass, widened to the whole span (the first
 * arrival may precede every own interval) and clipped to it. */
static int build_timeline(struct cp_analysis *an, struct an_state *st)
{
    struct an_timeline *tl = st->timeline;
    struct cp_analysis_timeline *out = &an->timeline;
    int64_t w;
    size_t i, n;
    unsigned k;

    if (!tl || !tl->started || st->t_first > st->t_last)
        return 0;
    an_timeline_cover(tl, st->t_first, st->t_last);
    w = (int64_t)1 << tl->shift;
    n = (size_t)(((uint64_t)st->t_last - (uint64_t)tl->origin) >> tl->shift) + 1;
    if (n > 1 && (((uint64_t)st->t_last - (uint64_t)tl->origin) & (uint64_t)(w - 1)) == 0) {
        /* the run ends on a boundary: the last window would have no width;
         * what ended there goes to the one before */
        struct an_window *last = &tl->w[n - 1], *prev = &tl->w[n - 2];
        prev->time += last->time;
        for (k = 0; k < CP_COLL_COUNT; k++)
            prev->op_time[k] += last->op_time[k];
        prev->calls += last->calls;
        prev->bytes += last->bytes;
        prev->wait += last->wait;
        an_wdetail_merge(&tl->d[n - 2], &tl->d[n - 1]);
        n--;
    }
    out->windows = calloc(n, sizeof *out->windows);
    if (!out->windows)
        return -1;
    out->nwindows = n;
    out->window_s = (double)w * 1e-9;
    for (i = 0; i < n; i++) {
        struct cp_analysis_window *o = &out->windows[i];
        const struct an_window *in = &tl->w[i];
        int64_t s = tl->origin + (int64_t)i * w, e = s + w;
        if (s < st->t_first)
            s = st->t_first;
        if (e > st->t_last)
            e = st->t_last;
        o->start_s = (double)(s - st->t_first) * 1e-9;
        o->end_s = (double)(e - st->t_first) * 1e-9;
        o->comm_time_s = in->time;
        for (k = 0; k < CP_COLL_COUNT; k++)
            o->op_time_s[k] = in->op_time[k];
        o->calls = in->calls;
        o->bytes = in->bytes;
        o->wait_time_s = in->wait;
    }
    return 0;
}

static int find_missing_ranks(struct cp_analysis *an)
{
    unsigned char *seen = NULL;
    size_t i;
    int w, rc = -1;

    w = an->world_size;
    if (w <= 0 || w > (1 << 24))
        return 0;
    seen = calloc((size_t)w, 1);
    if (!seen)
        goto out;
    for (i = 0; i < an->nranks; i++)
        if (an->ranks[i].rank >= 0 && an->ranks[i].rank < w)
            seen[an->ranks[i].rank] = 1;
    for (i = 0; i < (size_t)w; i++)
        if (!seen[i]) {
            int *bigger = realloc(an->summary.missing_ranks,
                                  (an->summary.nmissing + 1) * sizeof *bigger);
            if (!bigger)
                goto out;
            an->summary.missing_ranks = bigger;
            an->summary.missing_ranks[an->summary.nmissing++] = (int)i;
        }
    rc = 0;
out:
    free(seen);
    return rc;
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
        nth_call(an, an->steps_at.rank,
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

/* ---- the run ------------------------------------------------------------------ */

/* The inputs, the job among them, its ranks and nodes, and what the
 * plugin said of each call.  -1: out of memory. */
static int read_job(struct cp_analysis *an, const char *const *paths,
                    unsigned jobs, unsigned pass_jobs,
                    struct scan_arena *arena)
{
    int none;

    if (collect_inputs(an, paths, jobs, pass_jobs, arena) < 0 ||
        select_job(an) < 0 ||
        build_ranks_and_nodes(an) < 0)
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
                      struct scan_arena *arena)
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
    if (open_files(an, &st, NULL, prefix_records(an->nranks), arena) < 0)
        goto out;
    an_stream_run(&st);
    solve_offsets(an, &st, offsets);
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
 * window of opts, with the clock offsets, on jobs threads; the timeline
 * and each file's and rank's totals.  -1: out of memory. */
static int main_pass(struct cp_analysis *an, struct an_state *st,
                     const struct cp_analysis_opts *opts, unsigned jobs,
                     const double *offsets, struct scan_arena *arena)
{
    size_t i;

    st->progress = opts->progress;
    st->progress_ctx = opts->progress_ctx;
    st->win_lo = opts->window_from_ns;
    st->win_hi = opts->window_to_ns;
    st->windowed = st->win_lo != INT64_MIN || st->win_hi != INT64_MAX;
    st->links = cp_links_create();
    st->jobs = jobs;
    if (!st->links || open_files(an, st, offsets, 0, arena) < 0)
        return -1;
    an_stream_run(st);
    if (build_timeline(an, st) < 0)
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

    if (build_comms(an, st) < 0 || fit_classes(an, st, opts->profile) < 0 ||
        build_rows(an, st, evals, nevals) < 0)
        return -1;
    class_bandwidths(an, *evals, *nevals);
    /* the absolute references (the ports among them) before the links:
     * a communicator without peers is held against them */
    if (cp_portview_build(an, paths) < 0)
        return -1;
    set_references(an, *evals, *nevals);
    if (cp_links_solve(st->links, an, st, *evals, *nevals) < 0 ||
        cp_links_apply_probe(an, opts->probe) < 0 ||
        cp_ncclview_build(an) < 0 ||
        an_tags_build(an, st, *evals, *nevals, opts->tag_names) < 0)
        return -1;
    if (opts->probe_skipped &&
        add_problem(an, opts->probe_skipped->source, -1,
                    opts->probe_skipped->text) < 0)
        return -1;
    /* times on the whole run's axis (that of collprof trace) */
    origin = opts->window_origin_ns != INT64_MIN ? opts->window_origin_ns
                                                 : st->t_first;
    if (build_slowest(an, origin, st->top_own, &an->slowest_own,
                      &an->nslowest_own) < 0 ||
        build_slowest(an, origin, st->top_skew, &an->slowest_skew,
                      &an->nslowest_skew) < 0)
        return -1;
    estimate_steps(an, opts->steps);
    if (!opts->steps && opts->window_steps) {
        /* the pattern was read from the whole log: say the window's */
        an->summary.steps = opts->window_steps;
        snprintf(an->summary.steps_method, sizeof an->summary.steps_method,
                 "the steps of the window (%s)",
                 opts->window_by ? opts->window_by : "--steps");
    }
    finish_summary(an, st, *evals, *nevals);
    if (find_missing_ranks(an) < 0)
        return -1;
    an->summary.bucket_bytes = opts->bucket_bytes;
    describe_window(an, opts);
    warmup_watch(an, &watch, &warmup_at);
    *hang_read = NULL; /* taken */
    if (cp_hang_analyze(an, rd, &watch) < 0 ||
        an_findings(an, *evals, *nevals) < 0 ||
        an_timeline_details(an, st, warmup_end(&watch, warmup_at)) < 0)
        return -1;
    return 0;
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
    struct cp_analysis_opts defaults;
    int state_live = 0;
    struct scan_arena arena = {NULL, 0, 0, 0};
    struct cp_hang_read *hang_read = NULL;
    unsigned pass_jobs;

    memset(&st, 0, sizeof st);
    if (!opts) {
        cp_analysis_opts_init(&defaults);
        opts = &defaults;
    }
    an = calloc(1, sizeof *an);
    if (!an)
        goto oom;
    an->world_size = -1;
    an->steps_at.rank = -1;
    an->rank_table_max = opts->rank_table_max ? opts->rank_table_max
                                              : CP_REPORT_RANK_TABLE_MAX;
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
    if (an_state_init(&st, AN_MODE_MAIN, an->nranks, (unsigned)an->nnodes) < 0)
        goto oom;
    state_live = 1;
    /* -j N: the hang pass's reading of every log beside the main pass
     * (after the clock pass: it needs the nodes' offsets); its judging
     * stays where it was, in judge */
    if (opts->jobs > 1)
        hang_read = cp_hang_read_start(an);
    if (main_pass(an, &st, opts, pass_jobs, offsets, &arena) < 0 ||
        judge(an, &st, paths, opts, &hang_read, &evals, &nevals) < 0 ||
        st.oom)
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
        release_fds(ret);
    if (state_live) {
        cp_links_destroy(st.links);
        an_state_free(&st);
    }
    free(arena.mem); /* after the scans in it are closed */
    free(evals);
    free(offsets);
    cp_analysis_destroy(an);
    return ret;
}
