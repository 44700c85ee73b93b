/* cp_inputs.c - the inputs of an analysis: the paths listed, each log
 * file checked once (on -j threads), the job chosen among them, its ranks
 * and nodes; the descriptors and the scan memory the passes share.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "cp_inputs.h"
#include "cp_partial.h"

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
void an_release_fds(struct cp_analysis *an)
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

/* Past this, the block is asked for in huge pages where the system
 * gives them on request: a first touch of tens of MiB in 4 KiB pages is
 * thousands of page faults (a few microseconds each in a VM). */
#define ARENA_HUGE ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static int arena_reserve(struct an_scan_arena *a, size_t size)
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
#define DAY_NS INT64_C(86400000000000)

/* The times file f's records can have: its header's span, widened.
 * Times no job can have (before 2000, after 2100: cp_logread.h) and times
 * outside [start - 1 day, end + 1 day] of a sound header (start + a year
 * for a log never closed) are damage; the bounds also keep every later
 * sum and difference of times (corrected by offsets of at most a day)
 * inside int64. */
static void file_time_bounds(struct an_file *f, const struct cp_log_header *h)
{
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
}

int an_read_prologue(const struct cp_analysis *an, const double *offsets,
                     struct an_prologue *p)
{
    size_t i, cap = 0;
    size_t per_log = an->nranks ? AN_PROLOGUE_TOTAL / an->nranks : 0;

    if (per_log < AN_PROLOGUE_CALLS)
        per_log = AN_PROLOGUE_CALLS;
    if (per_log > AN_PROLOGUE_RECORDS)
        per_log = AN_PROLOGUE_RECORDS;
    p->first_ns = INT64_MAX;
    p->ncomms = 0;
    p->comms = NULL;
    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_input *in = &an->inputs[an->ranks[i].input];
        int64_t off = (int64_t)llround(offsets[an->ranks[i].node] * 1e9);
        const union cp_rec *r;
        struct cp_scan *sc;
        struct cp_error err;
        unsigned calls = 0, records = 0;

        if (in->status > CP_INPUT_DAMAGED ||
            !(sc = an_scan_reopen(in, 16 * 1024, &err)))
            continue;
        while (calls < per_log && records < AN_PROLOGUE_RECORDS &&
               (r = cp_scan_next(sc)) != NULL) {
            const struct cp_rec_call *c = &r->call;
            records++;
            if (r->kind == CP_REC_COMM && p->ncomms < AN_PROLOGUE_COMMS) {
                if (p->ncomms == cap) {
                    size_t n = cap ? 2 * cap : 64;
                    struct an_prologue_comm *v =
                        realloc(p->comms, n * sizeof *v);
                    if (!v) {
                        cp_scan_close(sc);
                        return -1;
                    }
                    p->comms = v;
                    cap = n;
                }
                p->comms[p->ncomms].file = (uint32_t)i;
                p->comms[p->ncomms++].rec = r->comm;
                continue;
            }
            if (r->kind != CP_REC_CALL)
                continue;
            calls++;
            if (cp_rec_call_in_flight(c) || an_call_failed(c) ||
                cp_log_time_problem(c->start_ns, c->end_ns))
                continue;
            if ((int64_t)c->start_ns - off < p->first_ns)
                p->first_ns = (int64_t)c->start_ns - off;
        }
        cp_scan_close(sc);
    }
    return 0;
}

uint64_t an_successful_calls(const struct cp_analysis *an, size_t rank)
{
    const struct cp_analysis_input *in = &an->inputs[an->ranks[rank].input];
    const union cp_rec *r;
    struct cp_scan *sc;
    struct cp_error err;
    struct an_file f;
    uint64_t ok = 0;

    if (in->status > CP_INPUT_DAMAGED ||
        !(sc = an_scan_reopen(in, CP_SCAN_BUFFER, &err)))
        return 0;
    file_time_bounds(&f, cp_scan_header(sc));
    while ((r = cp_scan_next(sc)) != NULL) {
        const struct cp_rec_call *c = &r->call;
        if (r->kind != CP_REC_CALL || cp_rec_call_in_flight(c))
            continue;
        /* call_untimed's rules: a call of implausible times is no failure */
        ok += !an_call_timed(c, f.t_min, f.t_max) || !an_call_failed(c);
    }
    cp_scan_close(sc);
    return ok;
}

/* The main pass of a window: f's scan placed at its log's sync point
 * before the window's start (cp_scan_seek_time; a log without sync points
 * is read from its start).  A damaged sync point is a problem of the
 * file, which is then read from its start.  0, or -1 (memory). */
static int seek_window(struct cp_analysis *an, struct an_state *st,
                       struct an_file *f, const char *path)
{
    struct cp_error e;
    int64_t first = an_seek_raw(f->sc, st->win_lo + f->offset_ns, &e);

    if (first > 0)
        st->seeked++;
    if (first < 0) {
        char *text = NULL;
        int rc;
        if (asprintf(&text, "%s; the log was read from its start",
                     e.text) < 0)
            return -1;
        rc = an_add_problem(an, path, e.offset, text);
        free(text);
        return rc;
    }
    return 0;
}

int an_open_files(struct cp_analysis *an, struct an_state *st,
                  const double *offsets, uint64_t limit,
                  struct an_scan_arena *arena)
{
    size_t i, buf_size, own = 0, place, resume;
    int park;
    /* the main pass of a window starts each log at its sync point before
     * the window (its first buffer is not the one the checks read) */
    const int seeks = st->mode == AN_MODE_MAIN && st->win_lo != INT64_MIN;

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
    if (arena->place != place || seeks)
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
        if (f->sc && seeks && seek_window(an, st, f, in->path) < 0)
            return -1;
        if (f->sc && park)
            cp_scan_park(f->sc);
        if (!f->sc) {
            /* it was readable a moment ago */
            in->status = CP_INPUT_UNREADABLE;
            if (limit == 0 && an_add_problem(an, in->path, e.offset, e.text) < 0)
                return -1;
            continue;
        }
        h = cp_scan_header(f->sc);
        /* a capture policy: the main pass joins its aggregates */
        if (st->mode == AN_MODE_MAIN && (h->flags & CP_HDR_POLICY)) {
            if (!st->longrun && !(st->longrun = an_longrun_create()))
                return -1;
            an_longrun_policy(st->longrun, h);
        }
        file_time_bounds(f, h);
        if (h->version > CP_LOG_VERSION_SLOTS) {
            /* a version-4 log's slots are not its file's bytes (a compact
             * stream): the slots its header counts, as progress counts
             * them (records x their size) */
            uint64_t slots = h->slots_used > h->stream_slots ? h->slots_used
                                                             : h->stream_slots;
            if (slots > CP_LOG_MAX_SLOTS)
                slots = CP_LOG_MAX_SLOTS;
            st->bytes_total += slots * CP_LOG_RECORD_SIZE;
        } else if (in->log && in->log->size > h->header_size) {
            st->bytes_total += in->log->size - h->header_size;
        }
    }
    return 0;
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
            if (an_add_problem(an, path, (int64_t)at, why) < 0)
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
    const struct cp_partial_listed *listed; /* the path's: check c of [c] */
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
                                      ck->an->inputs[at].path,
                                      ck->listed[c].held, keep,
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
    struct cp_partial_listed *files;
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
            char *path = ls[i].files[k].path;
            ls[i].files[k].path = NULL;
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
                       struct an_scan_arena *arena)
{
    size_t i, k, c;

    for (i = 0, c = 0; i < npaths; i++) {
        for (k = 0; k < ls[i].nnotes; k++)
            if (an_add_problem(an, ls[i].notes[k].source, ls[i].notes[k].offset,
                               ls[i].notes[k].text) < 0)
                return -1;
        if (ls[i].n < 0) {
            if (an_add_problem(an, paths[i], -1, ls[i].err.text) < 0)
                return -1;
            continue;
        }
        for (k = 0; k < (size_t)ls[i].n; k++, c++) {
            struct cp_analysis_input *in = &an->inputs[first[i] + k];
            if (ck->errs[c]) {
                /* its place in the block stays unused */
                in->status = CP_INPUT_UNREADABLE;
                if (an_add_problem(an, in->path, ck->errs[c]->offset,
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
int an_collect_inputs(struct cp_analysis *an, const char *const *paths,
                      unsigned jobs, unsigned pass_jobs,
                      struct an_scan_arena *arena)
{
    struct listed *ls = NULL;
    struct cp_logfile_known *known = NULL;
    struct checks ck;
    size_t npaths = 0, nfiles = 0, i, c, place = 0, buf_size = 0;
    size_t *first = NULL;
    int rc = -1;

    memset(&ck, 0, sizeof ck);
    while (paths[npaths])
        npaths++;
    ls = calloc(npaths ? npaths : 1, sizeof *ls);
    first = calloc(npaths ? npaths : 1, sizeof *first);
    an->partials = cp_partial_set_create();
    if (!ls || !first || !an->partials)
        goto out;
    for (i = 0; i < npaths; i++) {
        /* raw logs, node partials (collprof reduce) or both */
        ls[i].n = cp_partial_list(an->partials, paths[i], &ls[i].files,
                                  &ls[i].notes, &ls[i].nnotes, &ls[i].err);
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
        ck.listed = ls[i].files;
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
        cp_partial_listed_free(ls[i].files, ls[i].n > 0 ? (size_t)ls[i].n : 0);
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
int an_select_job(struct cp_analysis *an)
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
        if (an_add_problem(an, in->path, -1, msg) < 0)
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
int an_build_ranks_and_nodes(struct cp_analysis *an)
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
