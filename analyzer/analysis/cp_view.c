/* cp_view.c - what the detectors ask of a joined run: a rank's node
 * offset, an instance's earliest start, the steps' window, a process's
 * last log, and the lists of findings and problems they add to.  Nothing
 * here calls a detector or a pass.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"

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

/* The successful call number idx (0-based, as cp_steps counts) of rank's
 * log: its communicator, sequence, op and start.  0, 1 when the log has
 * fewer calls, -1 with err filled when it cannot be read. */
int an_nth_call(const struct cp_analysis *an, long rank, uint64_t idx,
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
    /* every member's call of the instance ends after the known one
     * starts, and lasts at most AN_CALL_MAX_NS (longer is damage): it
     * starts within that of it, on either side */
    const int64_t known = *earliest, span = (int64_t)AN_CALL_MAX_NS;
    size_t i;

    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_input *in = &an->inputs[an->ranks[i].input];
        int64_t off = an_node_offset_ns(an, i), from = known - span + off;
        struct cp_scan *sc;
        const union cp_rec *r;
        struct cp_error e;
        if ((long)i == skip_rank || in->status > CP_INPUT_DAMAGED)
            continue;
        sc = in->log ? cp_scan_reopen_in(place, in->path, in->log, buf_size,
                                         0, err)
                     : cp_scan_open_sized(in->path, buf_size, err);
        if (!sc)
            return -1;
        /* from the log's sync point before that (a damaged one: its
         * start) */
        (void)an_seek_raw(sc, from, &e);
        while ((r = cp_scan_next(sc)) != NULL) {
            int64_t t;
            if (r->kind != CP_REC_CALL)
                continue;
            t = (int64_t)r->call.start_ns - off;
            if (t > known + span && an_call_plausible(&r->call))
                break; /* past every member's call of it */
            if (r->call.comm_id == comm_id && r->call.seq == seq &&
                r->call.op == op) {
                if (t < *earliest)
                    *earliest = t;
                break;
            }
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
    int rc = an_nth_call(an, an->steps_at.rank,
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

int an_add_problem(struct cp_analysis *an, const char *file,
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

int an_add_finding(struct cp_analysis *an, enum cp_kind kind,
                   enum cp_severity sev, const int *ranks,
                   size_t nranks, const unsigned *nodes, size_t nnodes,
                   const char *msg)
{
    struct cp_analysis_finding *bigger, *f;

    bigger = realloc(an->findings, (an->nfindings + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    an->findings = bigger;
    f = &an->findings[an->nfindings];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->severity = sev;
    f->message = strdup(msg);
    f->evidence = json_object();
    f->ranks = malloc((nranks ? nranks : 1) * sizeof *f->ranks);
    f->nodes = malloc((nnodes ? nnodes : 1) * sizeof *f->nodes);
    if (!f->message || !f->evidence || !f->ranks || !f->nodes) {
        free(f->message);
        json_decref(f->evidence);
        free(f->ranks);
        free(f->nodes);
        return -1;
    }
    if (nranks)
        memcpy(f->ranks, ranks, nranks * sizeof *ranks);
    if (nnodes)
        memcpy(f->nodes, nodes, nnodes * sizeof *nodes);
    f->nranks = nranks;
    f->nnodes = nnodes;
    an->nfindings++;
    return 0;
}

void an_drop_finding(struct cp_analysis *an, size_t i)
{
    struct cp_analysis_finding *f = &an->findings[i];

    free(f->ranks);
    free(f->nodes);
    free(f->message);
    json_decref(f->evidence);
    memmove(f, f + 1, (an->nfindings - i - 1) * sizeof *f);
    an->nfindings--;
}
