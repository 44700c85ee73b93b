/* cp_hang.c - hangs, deadlocks, mismatches and kills (see cp_hang.h). */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collprof/cp_logfmt.h"
#include "cp_analysis_int.h"
#include "cp_hang.h"
#include "cp_logread.h"
#include "cp_slots.h"
#include "cp_units.h"

#define NCCL_IN_PROGRESS 7
#define MAX_DIFFS 256  /* dissenting calls kept for the mismatch findings */
#define MAX_CYCLE 8    /* ranks of a deadlock cycle named */
/* A read on a thread of its own (cp_hang_read_start) keeps, per
 * communicator, the earliest start of each of its first HG_EARLY
 * instances (the watch, cp_hang.h, is known only after that read), in at
 * most HG_EARLY_TOTAL of them for all communicators together: 24 bytes
 * each, 6 MiB.  A watch past them is looked for in a read of its own. */
#define HG_EARLY 1024u
#define HG_EARLY_TOTAL (1u << 18)

/* One call, condensed. */
struct hg_call {
    int valid;
    unsigned comm; /* index into comms; UINT32_MAX: none */
    uint8_t op, dtype, redop;
    int8_t result;
    int32_t peer;
    uint32_t seq;
    uint64_t count;
    uint64_t start, end; /* CLOCK_REALTIME ns of the writer; end 0: in flight */
    int folded;          /* the last call of a capture policy's aggregate:
                            start its first call's, end its interval's end
                            (it ended by then) */
};

/* What a member called at one sequence number: 24 bytes. */
struct hg_sig {
    uint64_t count;
    int32_t root;
    int32_t rank; /* index into an->ranks of the first caller */
    uint32_t agree;
    uint32_t seq; /* the instance this slot holds */
    uint8_t op, dtype, redop, used;
};

struct hg_member {
    int32_t rank;          /* index into an->ranks, -1 none seen */
    int conflict;          /* two logs claim this member */
    int64_t last_entered;  /* -1 none */
    int64_t last_finished; /* -1 none */
    int64_t failed_seq;    /* last instance it finished with an error, -1 */
};

/* The earliest start among the ranks' first calls of one instance. */
struct hg_early {
    int64_t t;         /* on the rank's node's corrected clock */
    int32_t rank;      /* index into an->ranks of t; -1: no call seen */
    int32_t last_rank; /* the rank of the last call of it seen */
    uint8_t op;        /* the op of its calls */
    uint8_t mixed;     /* calls of it with different ops */
};

struct hg_comm {
    uint64_t id;
    unsigned nranks;
    char name[CP_COMM_NAME_LEN + 1];
    struct hg_member *m;
    struct hg_sig *sig;
    uint32_t nsig, capsig; /* nsig: highest seq + 1; sig: a ring of capsig
                              slots (up to CP_HANG_SIG_WINDOW), slot seq &
                              (capsig - 1) */
    uint32_t notes;        /* calls noted in sig (saturating): the ring
                              grows with them, not with a claimed seq */
    int conflict;
    struct hg_early *early; /* instances 0 .. nearly - 1 (early_on) */
    uint32_t nearly;
    int early_short;        /* an instance under HG_EARLY had no room */
};

/* The signature of instance seq of c; NULL when its slot holds another. */
static const struct hg_sig *sig_at(const struct hg_comm *c, uint64_t seq)
{
    const struct hg_sig *s;

    if (!c->sig || seq >= c->nsig)
        return NULL;
    s = &c->sig[seq & (c->capsig - 1)];
    return s->used && s->seq == seq ? s : NULL;
}

struct hg_diff {
    unsigned comm;
    uint32_t seq;
    struct hg_sig sig; /* .rank: the dissenter */
};

enum hg_state {
    HG_IDLE = 0,     /* not inside a call when its log ends */
    HG_WAITING = 1,  /* inside an instance others never entered */
    HG_STUCK = 2,    /* inside an instance every other member left */
    HG_INSIDE = 3,   /* inside an instance all entered, none left */
    HG_P2P = 4       /* inside a send or recv */
};

struct hg_rank {
    struct hg_call inflight; /* the call it was inside (latest entered) */
    struct hg_call last;     /* the last call it left */
    uint64_t log_end;        /* latest time in its log */
    int closed;
    int term_signal;         /* SIGTERM seen by the shim, 0 none */
    uint64_t term_ns;
    enum hg_state state;
    int culprit;
    int claimed_twice;       /* another log claims its global rank */
    int cut;                 /* its log ends in a partial record */
    int unread;              /* its log could not be opened again */
    int alive;               /* its process still runs (1), has ended (0:
                                after the job, every one), or is not
                                known (-1: a live analysis, another host) */
    /* HG_WAITING: the members it waits for are missing(inflight) */
};

struct cp_hang {
    char headline[640];
    json_t *json;
};

struct hg {
    struct cp_analysis *an;
    struct hg_comm *comms;
    size_t ncomms, capcomms;
    struct cp_slots comm_slots; /* communicators by id */
    size_t comm_last;    /* the communicator found last (a log's calls
                            come in runs on one communicator) */
    /* the member tables, sized by the ranks a communicator claims, against
     * AN_HANG_BUDGET: a communicator past it is refused (its records are
     * not judged); the first refusal, for the problem that names it */
    size_t member_bytes;
    uint64_t refused_records, refused_first_id;
    uint32_t refused_first_nranks;
    int32_t refused_first_rank; /* index into an->ranks */
    int32_t reading;            /* the rank whose log is being read */
    int oom;                    /* the list of communicators ran out */
    struct hg_rank *ranks; /* [an->nranks] */
    struct hg_diff *diffs;
    size_t ndiffs;
    uint64_t more_diffs;
    uint64_t job_end;
    uint64_t end_seen;   /* job_end, or the latest SIGTERM when later */
    int dup_ranks; /* two logs claim one global rank */
    void *scan_mem; /* one scan's memory, for every rank in turn */
    struct cp_hang_watch *watch; /* NULL: none */
    /* the early instances (a read before the watch is known) */
    int early_on;
    int early_lost;      /* a call under HG_EARLY no communicator took */
    size_t early_total;  /* entries held, all communicators */
    int64_t offset_ns;   /* the clock offset of the rank being read */
};

/* ---- reading ------------------------------------------------------------ */

/* A communicator's id, for the probe of comm_slots. */
struct comm_key {
    const struct hg *h;
    uint64_t id;
};

static int comm_is(const void *ctx, size_t i)
{
    const struct comm_key *key = ctx;
    return key->h->comms[i].id == key->id;
}

static size_t comm_hash_of(const void *ctx, size_t i)
{
    return cp_slots_mix1(((const struct hg *)ctx)->comms[i].id);
}

/* Room for one more communicator: the list, and its hash (ids to
 * index + 1) at half full; a job has one per node and more, each looked
 * up per record. */
static int comm_room(struct hg *h)
{
    if (h->ncomms == h->capcomms) {
        size_t cap = h->capcomms ? 2 * h->capcomms : 16;
        struct hg_comm *bigger = realloc(h->comms, cap * sizeof *bigger);
        if (!bigger)
            return -1;
        h->comms = bigger;
        h->capcomms = cap;
    }
    if (cp_slots_room(&h->comm_slots, h->ncomms, 64, comm_hash_of, h) < 0)
        return -1;
    return 0;
}

static struct hg_comm *comm_get(struct hg *h, uint64_t id, unsigned nranks,
                                unsigned *index)
{
    struct comm_key key = {h, id};
    struct hg_comm *c;
    size_t i;

    if (h->comm_last < h->ncomms && h->comms[h->comm_last].id == id) {
        *index = (unsigned)h->comm_last;
        return &h->comms[*index];
    }
    if (h->comm_slots.cap) {
        long at = cp_slots_at(&h->comm_slots,
                              cp_slots_probe(&h->comm_slots, cp_slots_mix1(id),
                                             comm_is, &key));
        if (at >= 0) {
            *index = (unsigned)at;
            h->comm_last = *index;
            return &h->comms[*index];
        }
    }
    if (nranks == 0 || nranks > (1u << 24))
        return NULL;
    /* a claimed size sizes the member table only within the budget */
    if (h->member_bytes + (size_t)nranks * sizeof *c->m > AN_HANG_BUDGET) {
        if (h->refused_records++ == 0) {
            h->refused_first_id = id;
            h->refused_first_nranks = nranks;
            h->refused_first_rank = h->reading;
        }
        return NULL;
    }
    if (comm_room(h) < 0) {
        h->oom = 1;
        return NULL;
    }
    c = &h->comms[h->ncomms];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->nranks = nranks;
    c->m = malloc(nranks * sizeof *c->m);
    if (!c->m)
        return NULL;
    h->member_bytes += (size_t)nranks * sizeof *c->m;
    for (i = 0; i < nranks; i++) {
        c->m[i].rank = -1;
        c->m[i].conflict = 0;
        c->m[i].last_entered = c->m[i].last_finished = c->m[i].failed_seq = -1;
    }
    *index = (unsigned)h->ncomms++;
    cp_slots_put(&h->comm_slots, cp_slots_mix1(id), *index);
    h->comm_last = *index;
    return c;
}

static int sig_equal(const struct hg_sig *a, const struct hg_sig *b)
{
    return a->op == b->op && a->dtype == b->dtype && a->redop == b->redop &&
           a->count == b->count && a->root == b->root;
}

/* The first ring of a communicator's signatures (slots). */
#define HG_SIG_FIRST 16u

/* c's ring of signatures made cap slots (a power of two, at least what it
 * has): each signature moves to its seq's slot of the larger ring (two of
 * the smaller one's, in distinct slots there, are in distinct slots
 * here).  -1 when memory ran out. */
static int sig_grow(struct hg_comm *c, uint32_t cap)
{
    struct hg_sig *ring = calloc(cap, sizeof *ring);
    uint32_t i;

    if (!ring)
        return -1;
    for (i = 0; i < c->capsig; i++)
        if (c->sig[i].used)
            ring[c->sig[i].seq & (cap - 1)] = c->sig[i];
    free(c->sig);
    c->sig = ring;
    c->capsig = cap;
    return 0;
}

static int note_sig(struct hg *h, struct hg_comm *c, unsigned ci,
                    const struct cp_rec_call *r, int32_t rank)
{
    struct hg_sig s, *slot;

    if (r->seq >= CP_HANG_MAX_SEQ)
        return 0;
    if (c->notes < UINT32_MAX)
        c->notes++;
    if (!c->sig && sig_grow(c, HG_SIG_FIRST) < 0)
        return -1;
    /* the ring doubles when another instance holds seq's slot, up to the
     * window, and only with the calls noted (twice them): a run's
     * instances come one after another, each doubling follows as many
     * calls, while one record claiming seq 16383 gets no 384 KiB ring */
    for (slot = &c->sig[r->seq & (c->capsig - 1)];
         slot->used && slot->seq != r->seq &&
         c->capsig < CP_HANG_SIG_WINDOW && c->capsig <= c->notes + 8;
         slot = &c->sig[r->seq & (c->capsig - 1)])
        if (sig_grow(c, 2 * c->capsig) < 0)
            return -1;
    if (r->seq >= c->nsig)
        c->nsig = r->seq + 1;
    memset(&s, 0, sizeof s);
    s.op = (uint8_t)cp_model_wire_op(r->op);
    s.dtype = r->dtype;
    s.redop = r->redop;
    s.count = r->count;
    s.root = r->op == CP_OP_AllReduce || r->op == CP_OP_AllGather ||
                     r->op == CP_OP_ReduceScatter || r->op == CP_OP_AlltoAll
                 ? -1
                 : r->peer;
    s.rank = rank;
    s.seq = r->seq;
    s.used = 1;
    if (slot->used && slot->seq > r->seq)
        return 0; /* older than the window the logs read so far keep */
    if (!slot->used || slot->seq != r->seq) {
        s.agree = 1;
        *slot = s;
    } else if (sig_equal(slot, &s)) {
        slot->agree++;
    } else if (h->ndiffs < MAX_DIFFS) {
        h->diffs[h->ndiffs].comm = ci;
        h->diffs[h->ndiffs].seq = r->seq;
        h->diffs[h->ndiffs].sig = s;
        h->ndiffs++;
    } else {
        h->more_diffs++;
    }
    return 0;
}

static void condense(struct hg_call *d, const struct cp_rec_call *r,
                     unsigned ci)
{
    d->valid = 1;
    d->comm = ci;
    d->op = r->op;
    d->dtype = r->dtype;
    d->redop = r->redop;
    d->result = r->result;
    d->peer = r->peer;
    d->seq = r->seq;
    d->count = r->count;
    d->start = r->start_ns;
    d->end = r->end_ns;
    d->folded = 0;
}

/* Room in c's early instances for seq (< HG_EARLY): 0, or -1 when the
 * budget refuses it (c->early_short) or memory ran out. */
static int early_room(struct hg *h, struct hg_comm *c, uint32_t seq)
{
    uint32_t cap = c->nearly ? c->nearly : 16, i;
    struct hg_early *bigger;

    while (cap <= seq)
        cap *= 2;
    if (h->early_total + (cap - c->nearly) > HG_EARLY_TOTAL ||
        !(bigger = realloc(c->early, cap * sizeof *bigger))) {
        c->early_short = 1;
        return -1;
    }
    for (i = c->nearly; i < cap; i++) {
        memset(&bigger[i], 0, sizeof bigger[i]);
        bigger[i].rank = bigger[i].last_rank = -1;
    }
    h->early_total += cap - c->nearly;
    c->early = bigger;
    c->nearly = cap;
    return 0;
}

/* A collective call r of rank ri in c: the earliest start of its
 * instance, from each rank's first call of it (as the watch takes it). */
static void early_note(struct hg *h, struct hg_comm *c, int32_t ri,
                       const struct cp_rec_call *r)
{
    struct hg_early *e;
    int64_t t;

    if (r->seq >= HG_EARLY || c->early_short ||
        (r->seq >= c->nearly && early_room(h, c, r->seq) < 0))
        return;
    e = &c->early[r->seq];
    if (e->rank >= 0 && e->op != r->op)
        e->mixed = 1;
    if (e->last_rank == ri)
        return; /* its first call of the instance only */
    e->last_rank = ri;
    t = (int64_t)r->start_ns - h->offset_ns;
    if (e->rank < 0) {
        e->op = r->op;
        e->rank = ri;
        e->t = t;
    } else if (t < e->t) {
        e->rank = ri;
        e->t = t;
    }
}

static int on_call(struct hg *h, int32_t ri, const struct cp_rec_call *r)
{
    struct hg_rank *hr = &h->ranks[ri];
    struct hg_comm *c;
    struct hg_member *m;
    unsigned ci;
    int inflight = cp_rec_call_in_flight(r);

    if (r->end_ns > hr->log_end)
        hr->log_end = r->end_ns;
    if (r->start_ns > hr->log_end)
        hr->log_end = r->start_ns;
    if (r->seq == UINT32_MAX || r->comm_id == 0 || r->nranks == 0 ||
        r->rank >= r->nranks ||
        !(cp_op_is_collective(r->op) || cp_op_is_p2p(r->op))) {
        /* a call of an early instance that no table holds */
        h->early_lost |= cp_op_is_collective(r->op) && r->seq < HG_EARLY;
        return 0;
    }
    c = comm_get(h, r->comm_id, r->nranks, &ci);
    if (!c || r->nranks != c->nranks)
        h->early_lost |= cp_op_is_collective(r->op) && r->seq < HG_EARLY;
    if (!c)
        return h->oom ? -1 : 0;
    if (r->nranks != c->nranks)
        return 0; /* damaged: a member disagrees on the size */
    m = &c->m[r->rank];
    if (m->rank < 0)
        m->rank = ri;
    else if (m->rank != ri)
        m->conflict = c->conflict = 1;
    if (inflight) {
        if (!hr->inflight.valid || r->start_ns >= hr->inflight.start)
            condense(&hr->inflight, r, ci);
    } else if (!hr->last.valid || r->end_ns >= hr->last.end ||
               (hr->last.folded && r->start_ns >= hr->last.start &&
                (hr->last.comm != ci || r->seq > hr->last.seq))) {
        condense(&hr->last, r, ci);
    }
    if (!cp_op_is_collective(r->op))
        return 0;
    if (h->early_on)
        early_note(h, c, ri, r);
    if ((int64_t)r->seq > m->last_entered)
        m->last_entered = r->seq;
    if (!inflight) {
        if ((int64_t)r->seq > m->last_finished)
            m->last_finished = r->seq;
        if (r->result != 0 && r->result != NCCL_IN_PROGRESS &&
            (int64_t)r->seq > m->failed_seq)
            m->failed_seq = r->seq;
    }
    return note_sig(h, c, ci, r, ri);
}

/* An aggregate of the capture policy (docs/capture-policy.md): its last
 * call, folded, is the rank's last left when nothing later is; its
 * member finished the instances up to its last seq. */
static void on_aggregate(struct hg *h, int32_t ri, const struct cp_rec_agg *a)
{
    struct hg_rank *hr = &h->ranks[ri];
    unsigned op = a->op & ~CP_AGG_GROUPED, ci, k;
    uint64_t iv = (uint64_t)a->interval_ms * 1000000u, end;
    struct hg_comm *c;

    if (!a->calls || !iv || a->comm_id == 0 ||
        !(cp_op_is_collective(op) || cp_op_is_p2p(op)) ||
        !(c = comm_get(h, a->comm_id, 0, &ci)))
        return;
    end = (a->first_ns / iv + 1) * iv;
    if (a->first_ns > hr->log_end)
        hr->log_end = a->first_ns;
    if (!hr->last.valid || hr->last.end < a->first_ns ||
        (hr->last.comm == ci && hr->last.seq < a->seq_last &&
         hr->last.end <= end)) {
        hr->last.valid = 1;
        hr->last.comm = ci;
        hr->last.op = (uint8_t)op;
        hr->last.dtype = a->dtype;
        hr->last.redop = a->redop;
        hr->last.result = 0;
        hr->last.peer = a->peer;
        hr->last.seq = a->seq_last;
        hr->last.count = a->count;
        hr->last.start = a->first_ns;
        hr->last.end = end;
        hr->last.folded = 1;
    }
    if (!cp_op_is_collective(op))
        return;
    for (k = 0; k < c->nranks; k++)
        if (c->m[k].rank == ri) {
            if ((int64_t)a->seq_last > c->m[k].last_entered)
                c->m[k].last_entered = a->seq_last;
            if ((int64_t)a->seq_last > c->m[k].last_finished)
                c->m[k].last_finished = a->seq_last;
            break;
        }
}

/* Whether a call of a log whose clock is off by offset is outside the
 * analysis's window (1), and a plausible one past its end
 * (an_past_window: 2, the log's reading stops there), or in it (0).  A
 * window judges the calls that start in it, as the main pass joins them:
 * a hang or a mismatch before it is not its own. */
static int outside_window(const struct cp_analysis *an, int64_t offset,
                          const struct cp_rec_call *c)
{
    int64_t s0 = (int64_t)c->start_ns - offset;

    if (an->win_hi_ns != INT64_MAX && s0 >= an->win_hi_ns)
        return an_past_window(s0, an->win_hi_ns) && an_call_plausible(c) ? 2
                                                                         : 1;
    return s0 < an->win_lo_ns;
}

static int read_rank(struct hg *h, int32_t ri)
{
    struct cp_analysis *an = h->an;
    struct cp_analysis_input *in = &an->inputs[an->ranks[ri].input];
    struct hg_rank *hr = &h->ranks[ri];
    const struct cp_log_header *hd;
    const union cp_rec *r;
    struct cp_scan *sc;
    struct cp_error e;
    struct cp_hang_watch *w = h->watch;
    int rc = 0;

    /* the watched instance, in the logs the main pass read but one */
    if (w && (ri == w->skip_rank || in->status > CP_INPUT_DAMAGED))
        w = NULL;
    /* records in place, in the one scan memory of the pass */
    sc = in->log ? cp_scan_reopen_in(h->scan_mem, in->path, in->log,
                                     CP_SCAN_BUFFER, 0, &e)
                 : cp_scan_open(in->path, &e);
    if (!sc) {
        hr->unread = 1;
        if (w)
            w->failed = 1;
        return 0; /* the main pass already reported it */
    }
    hd = cp_scan_header(sc);
    h->reading = ri;
    h->offset_ns = an_node_offset_ns(an, (size_t)ri);
    /* a window: from the sync point before it (as the main pass; a
     * damaged one is the main pass's problem, and the log is read whole) */
    if (an->win_lo_ns != INT64_MIN)
        (void)an_seek_raw(sc, an->win_lo_ns + h->offset_ns, &e);
    hr->closed = (hd->flags & CP_HDR_CLOSED) != 0;
    hr->term_signal = hd->term_signal;
    hr->term_ns = hd->term_realtime_ns;
    hr->log_end = hd->end_realtime_ns;
    /* after the job (no liveness asked), a log left unclosed is a process
     * that ended: alive 0, as a closed one */
    hr->alive = an->alive && !hr->closed ? an->alive(an->alive_ctx, in) : 0;
    while (rc == 0 && (r = cp_scan_next(sc)) != NULL) {
        if (r->kind == CP_REC_CALL) {
            int past = outside_window(an, h->offset_ns, &r->call);
            if (past > 1)
                break; /* a second past the window: its calls are read */
            if (past)
                continue;
            if (w && r->call.comm_id == w->comm_id && r->call.seq == w->seq &&
                r->call.op == w->op) {
                int64_t t = (int64_t)r->call.start_ns - an_node_offset_ns(an, (size_t)ri);
                if (t < w->earliest)
                    w->earliest = t;
                w = NULL; /* its first such call only */
            }
            rc = on_call(h, ri, &r->call);
        } else if (r->kind == CP_REC_COMM) {
            unsigned ci;
            struct hg_comm *c;
            if (r->comm.time_ns > hr->log_end)
                hr->log_end = r->comm.time_ns;
            if (r->comm.comm_id == 0 || r->comm.result != 0 ||
                r->comm.how > CP_COMM_SHRINK)
                continue;
            c = comm_get(h, r->comm.comm_id, r->comm.nranks, &ci);
            if (!c) {
                if (h->oom)
                    rc = -1;
                continue;
            }
            if (!c->name[0] && r->comm.name[0])
                memcpy(c->name, r->comm.name, CP_COMM_NAME_LEN);
        } else if (r->kind == CP_REC_GROUP) {
            if (r->group.end_ns > hr->log_end)
                hr->log_end = r->group.end_ns;
        } else if (r->kind == CP_REC_CLOCK) {
            if (r->clock.realtime_ns > hr->log_end)
                hr->log_end = r->clock.realtime_ns;
        } else if (r->kind == CP_REC_AGG) {
            int64_t first = (int64_t)r->agg.first_ns - h->offset_ns;
            if (first >= an->win_lo_ns && first < an->win_hi_ns)
                on_aggregate(h, ri, &r->agg);
        }
    }
    {
        struct cp_logfile_stats st;
        cp_scan_stats(sc, &st);
        hr->cut = st.truncated > 0;
    }
    cp_scan_close(sc);
    return rc;
}

/* ---- words -------------------------------------------------------------- */

static const char *comm_label(const struct hg *h, unsigned ci, char *buf,
                              size_t size)
{
    const struct hg_comm *c = &h->comms[ci];
    size_t i;

    if (c->name[0]) {
        /* names come from the program: keep them printable */
        snprintf(buf, size, "%s", c->name);
        for (i = 0; buf[i]; i++)
            if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
                buf[i] = '?';
    } else {
        snprintf(buf, size, "comm %08" PRIx64, c->id >> 32);
    }
    return buf;
}

static int global_rank(const struct hg *h, int32_t ri)
{
    return h->an->ranks[ri].rank;
}

static const char *node_of(const struct hg *h, int32_t ri)
{
    return h->an->nodes[h->an->ranks[ri].node].name;
}

/* "rank 3 (n2)", "rank 3 (n2, pid 77)" when another log claims rank 3 */
static const char *rank_label(const struct hg *h, int32_t ri, char *buf,
                              size_t size)
{
    const struct cp_analysis *an = h->an;
    int g = global_rank(h, ri), dup = 0;
    size_t i;

    for (i = 0; i < an->nranks; i++)
        dup += (int32_t)i != ri && an->ranks[i].rank == g;
    if (dup)
        snprintf(buf, size, "rank %d (%s, pid %d)", g, node_of(h, ri),
                 an->inputs[an->ranks[ri].input].pid);
    else
        snprintf(buf, size, "rank %d (%s)", g, node_of(h, ri));
    return buf;
}

static const char *op_text(unsigned op)
{
    const char *n = cp_op_name(op);
    return n ? n : "call";
}

static const char *clock_text(uint64_t ns, char *buf, size_t size)
{
    time_t t = (time_t)(ns / 1000000000u);
    struct tm tm;

    if (ns == 0 || !gmtime_r(&t, &tm))
        snprintf(buf, size, "?");
    else
        strftime(buf, size, "%H:%M:%S", &tm);
    return buf;
}

/* "allreduce seq 812 on dp-0" */
static const char *call_text(const struct hg *h, const struct hg_call *k,
                             char *buf, size_t size)
{
    char cl[64];

    if (!k->valid)
        snprintf(buf, size, "no call");
    else if (cp_op_is_p2p(k->op))
        snprintf(buf, size, "%s %s peer %d on %s", op_text(k->op),
                 k->op == CP_OP_Send ? "to" : "from", k->peer,
                 comm_label(h, k->comm, cl, sizeof cl));
    else
        snprintf(buf, size, "%s seq %u on %s", op_text(k->op), k->seq,
                 comm_label(h, k->comm, cl, sizeof cl));
    return buf;
}

static json_t *call_json(const struct hg *h, const struct hg_call *k)
{
    char cl[64];
    json_t *o;

    if (!k->valid)
        return json_null();
    o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:s}", "op", op_text(k->op),
                  "communicator", comm_label(h, k->comm, cl, sizeof cl),
                  "seq",
                  (json_int_t)(k->seq == UINT32_MAX ? -1 : (int64_t)k->seq),
                  "count", (json_int_t)k->count, "bytes",
                  (json_int_t)cp_call_bytes(k->count, k->dtype), "dtype",
                  cp_dtype_name(k->dtype));
    if (!o)
        return NULL;
    if (cp_op_is_p2p(k->op) || k->peer >= 0)
        json_object_set_new(o, "peer", json_integer(k->peer));
    json_object_set_new(o, "entered_ns", json_integer((json_int_t)k->start));
    if (k->end)
        json_object_set_new(o, "left_ns", json_integer((json_int_t)k->end));
    if (k->result != 0 && k->end)
        json_object_set_new(o, "result", json_integer(k->result));
    return o;
}

/* ---- the analysis ------------------------------------------------------- */

/* Whether member mi of comm ci never entered seq. */
static int missing_at(const struct hg_comm *c, unsigned mi, uint32_t seq)
{
    return c->m[mi].last_entered < (int64_t)seq;
}

/* A rank inside a call every other member left is named stuck only when
 * it entered the call at least this long before the job ended. */
#define HG_STUCK_MIN_NS 1000000000ull

static void classify(struct hg *h)
{
    size_t ri;

    for (ri = 0; ri < h->an->nranks; ri++) {
        struct hg_rank *r = &h->ranks[ri];
        const struct hg_comm *c;
        unsigned mi, missing = 0, finished = 0;

        r->state = HG_IDLE;
        if (!r->inflight.valid)
            continue;
        if (cp_op_is_p2p(r->inflight.op)) {
            r->state = HG_P2P;
            continue;
        }
        c = &h->comms[r->inflight.comm];
        for (mi = 0; mi < c->nranks; mi++) {
            if (c->m[mi].rank == (int32_t)ri)
                continue;
            missing += missing_at(c, mi, r->inflight.seq);
            finished += c->m[mi].last_finished >= (int64_t)r->inflight.seq;
        }
        if (missing)
            r->state = HG_WAITING;
        else if (finished + 1 >= c->nranks)
            r->state = HG_STUCK;
        else
            r->state = HG_INSIDE;
    }
}

/* The rank a waiting rank waits for, as indices into an->ranks: the
 * members of its instance that never entered it (p2p: the peer). */
static size_t waits_for(const struct hg *h, size_t ri, int32_t *out,
                        size_t max)
{
    const struct hg_rank *r = &h->ranks[ri];
    const struct hg_comm *c;
    size_t n = 0;
    unsigned mi;

    if (!r->inflight.valid)
        return 0;
    c = &h->comms[r->inflight.comm];
    if (r->state == HG_P2P) {
        if (r->inflight.peer >= 0 && (unsigned)r->inflight.peer < c->nranks &&
            c->m[r->inflight.peer].rank >= 0 && max > 0)
            out[n++] = c->m[r->inflight.peer].rank;
        return n;
    }
    if (r->state != HG_WAITING)
        return 0;
    for (mi = 0; mi < c->nranks && n < max; mi++)
        if (missing_at(c, mi, r->inflight.seq) && c->m[mi].rank >= 0)
            out[n++] = c->m[mi].rank;
    return n;
}

struct hg_finding {
    enum cp_kind kind;
    enum cp_severity severity;
    int *ranks;
    size_t nranks;
    unsigned *nodes;
    size_t nnodes;
    char msg[1024];
    json_t *evidence;
};

static int emit(struct hg *h, struct hg_finding *f)
{
    int rc = an_add_finding(h->an, f->kind, f->severity, f->ranks, f->nranks,
                            f->nodes, f->nnodes, f->msg);
    if (rc == 0 && f->evidence) {
        json_t *e = h->an->findings[h->an->nfindings - 1].evidence;
        rc = json_object_update(e, f->evidence);
    }
    json_decref(f->evidence);
    f->evidence = NULL;
    return rc;
}

/* Where rank ri was when the job ended, in words and as JSON. */
static json_t *where_json(const struct hg *h, size_t ri, char *buf,
                          size_t size)
{
    const struct hg_rank *r = &h->ranks[ri];
    char c1[160], t1[16];
    const char *state;

    if (r->cut && !r->inflight.valid) {
        snprintf(buf, size, "not known: its log is cut in the middle of a "
                            "record (the last call it entered may be lost)");
        state = "unknown";
    } else if (r->inflight.valid) {
        snprintf(buf, size, "inside %s since %s",
                 call_text(h, &r->inflight, c1, sizeof c1),
                 clock_text(r->inflight.start, t1, sizeof t1));
        state = r->state == HG_STUCK    ? "stuck"
                : r->state == HG_WAITING ? "waiting"
                : r->state == HG_P2P     ? "point_to_point"
                                         : "inside";
    } else if (r->last.valid) {
        char t2[16], when[96];
        /* a folded call's time is its interval's end: by then */
        snprintf(when, sizeof when,
                 r->last.folded ? "by %s (its last interval's aggregate)"
                                : "at %s",
                 clock_text(r->last.end, t1, sizeof t1));
        if (r->closed)
            snprintf(buf, size,
                     "last seen leaving %s %s; its process then exited "
                     "(log closed)",
                     call_text(h, &r->last, c1, sizeof c1), when);
        else if (r->alive == 1)
            snprintf(buf, size,
                     "last seen leaving %s %s, and its process still "
                     "runs outside NCCL (its own compute, or a wait "
                     "outside NCCL)",
                     call_text(h, &r->last, c1, sizeof c1), when);
        else if (r->alive < 0 && !r->term_signal)
            snprintf(buf, size,
                     "last seen leaving %s %s, outside NCCL since; "
                     "whether its process still runs is not known on this "
                     "host",
                     call_text(h, &r->last, c1, sizeof c1), when);
        else if (r->term_signal)
            snprintf(buf, size,
                     "last seen leaving %s %s, then in its own compute "
                     "until signal %d ended it at %s",
                     call_text(h, &r->last, c1, sizeof c1), when,
                     r->term_signal,
                     clock_text(r->term_ns, t2, sizeof t2));
        else
            snprintf(buf, size,
                     "last seen leaving %s %s, then dead: its log ends "
                     "there, not closed, no termination signal seen "
                     "(SIGKILL, a crash or its node)",
                     call_text(h, &r->last, c1, sizeof c1), when);
        state = "outside";
    } else {
        snprintf(buf, size, "no collective call in its log");
        state = "outside";
    }
    return json_pack("{s:i, s:s, s:s, s:b, s:o, s:o, s:I, s:i, s:I}", "rank",
                     global_rank(h, (int32_t)ri), "node", node_of(h, (int32_t)ri),
                     "state", state, "log_closed", r->closed, "in_flight",
                     call_json(h, &r->inflight), "last_left",
                     call_json(h, &r->last), "log_end_ns",
                     (json_int_t)r->log_end, "term_signal", r->term_signal,
                     "term_ns", (json_int_t)r->term_ns);
}

/* A rank that never came: where others waited for it longest (waiter
 * SIZE_MAX: nobody is seen waiting, it is stuck inside a call the others
 * left). */
struct hg_hang {
    int32_t culprit;
    size_t waiter;
    unsigned nwaiters;
};

/* When a rank went silent: it entered the call it never left, or left its
 * last call. */
static uint64_t silent_since(const struct hg_rank *r)
{
    return r->inflight.valid ? r->inflight.start : r->last.valid ? r->last.end : 0;
}

/* 0: it died (outside any call, its log not closed and no termination
 * signal seen: SIGKILL, a crash, the node); 1: anything else. */
static int culprit_class(const struct hg_rank *r)
{
    return !r->inflight.valid && !r->closed && !r->term_signal &&
                   r->alive == 0
               ? 0
               : 1;
}

/* Whether a rank inside a call every other member left entered it at
 * least HG_STUCK_MIN_NS before the job ended (its last record, or the
 * launcher's SIGTERM when a log saw one).  One that entered later was on
 * its way out of a call its peers had just left when the job was ended (a
 * peer's transfer still arriving): not stuck, neither a culprit of its own
 * nor one that others wait for. */
static int stuck_long(const struct hg *h, const struct hg_rank *r)
{
    return h->end_seen >= r->inflight.start + HG_STUCK_MIN_NS;
}

/* To the n hangs of hs: the ranks stuck inside a call every other member
 * left without an error, nobody seen waiting for them (they may wait
 * inside a group); returns the new count. */
static size_t add_stuck_alone(const struct hg *h, struct hg_hang *hs,
                              size_t n)
{
    size_t ri, j;

    for (ri = 0; ri < h->an->nranks; ri++) {
        const struct hg_rank *r = &h->ranks[ri];
        const struct hg_comm *c;
        unsigned mi, failed = 0;
        if (r->state != HG_STUCK || r->claimed_twice || r->cut)
            continue;
        if (!stuck_long(h, r))
            continue;
        for (j = 0; j < n && hs[j].culprit != (int32_t)ri; j++)
            ;
        if (j < n)
            continue;
        c = &h->comms[r->inflight.comm];
        for (mi = 0; mi < c->nranks; mi++)
            failed += c->m[mi].failed_seq == (int64_t)r->inflight.seq;
        if (failed)
            continue; /* a death: killed_findings */
        hs[n].culprit = (int32_t)ri;
        hs[n].waiter = SIZE_MAX;
        n++;
    }
    return n;
}

/* Each hang's waiters: its waiter and the ranks inside the same
 * collective instance. */
static void count_waiters(const struct hg *h, struct hg_hang *hs, size_t n)
{
    size_t k, ri;

    for (k = 0; k < n; k++) {
        const struct hg_call *x;
        if (hs[k].waiter == SIZE_MAX)
            continue;
        x = &h->ranks[hs[k].waiter].inflight;
        for (ri = 0; ri < h->an->nranks; ri++) {
            const struct hg_call *y = &h->ranks[ri].inflight;
            hs[k].nwaiters += ri == hs[k].waiter ||
                              (y->valid && !cp_op_is_p2p(x->op) &&
                               y->comm == x->comm && y->seq == x->seq &&
                               !cp_op_is_p2p(y->op));
        }
    }
}

static int find_hangs(struct hg *h, struct hg_hang **out, size_t *nout)
{
    size_t nr = h->an->nranks, ri, k, n = 0;
    struct hg_hang *hs = calloc(nr ? nr : 1, sizeof *hs);
    int32_t *w = malloc((1u << 16) * sizeof *w);

    if (!hs || !w) {
        free(hs);
        free(w);
        return -1;
    }
    for (ri = 0; ri < nr; ri++) {
        size_t nw = h->ranks[ri].state == HG_WAITING ||
                            h->ranks[ri].state == HG_P2P
                        ? waits_for(h, ri, w, 1u << 16)
                        : 0;
        for (k = 0; k < nw; k++) {
            struct hg_rank *m = &h->ranks[w[k]];
            size_t j;
            if (m->state == HG_WAITING || m->state == HG_P2P ||
                m->state == HG_INSIDE)
                continue; /* waiting itself: a victim, not a culprit */
            if (m->state == HG_STUCK && h->end_seen > h->job_end &&
                !stuck_long(h, m))
                continue; /* on its way out of a call its peers had just
                             left when the launcher's SIGTERM came (without
                             one, when the job ended is not known) */
            if (m->closed && m->last.valid && m->last.result != 0)
                continue; /* exited after a failed call: a victim too */
            if (m->claimed_twice || m->cut)
                continue; /* which log is meant, or where it was, is not
                             known */
            for (j = 0; j < n && hs[j].culprit != w[k]; j++)
                ;
            if (j == n) {
                hs[n].culprit = w[k];
                hs[n].waiter = ri;
                n++;
            } else if (h->ranks[ri].inflight.start <
                       h->ranks[hs[j].waiter].inflight.start) {
                hs[j].waiter = ri; /* the instance waited for longest */
            }
        }
    }
    n = add_stuck_alone(h, hs, n);
    count_waiters(h, hs, n);
    /* the first to go silent first, a rank that died before the others */
    for (k = 1; k < n; k++) {
        struct hg_hang t = hs[k];
        const struct hg_rank *tr = &h->ranks[t.culprit];
        size_t j = k;
        while (j > 0) {
            const struct hg_rank *pr = &h->ranks[hs[j - 1].culprit];
            int pc = culprit_class(pr), tc = culprit_class(tr);
            if (pc < tc || (pc == tc && silent_since(pr) <= silent_since(tr)))
                break;
            hs[j] = hs[j - 1];
            j--;
        }
        hs[j] = t;
    }
    for (k = 0; k < n; k++)
        h->ranks[hs[k].culprit].culprit = k == 0;
    free(w);
    *out = hs;
    *nout = n;
    return 0;
}

/* The verdict's one line for the hang of culprit cr (label cul) in the
 * instance inst: where cr was, and whether others waited for it. */
static void hang_headline(struct hg *h, const struct hg_rank *cr, int waited,
                          const char *inst, const char *cul, char *headline,
                          size_t hsize)
{
    char in2[240] = "", call[400], t1[16];

    if (cr->inflight.valid)
        snprintf(in2, sizeof in2, " (inside %s)",
                 call_text(h, &cr->inflight, call, sizeof call));
    else if (cr->last.valid)
        snprintf(in2, sizeof in2, " (last seen leaving %s %s %s%s)",
                 call_text(h, &cr->last, call, sizeof call),
                 cr->last.folded ? "by" : "at",
                 clock_text(cr->last.end, t1, sizeof t1),
                 culprit_class(cr) == 0 ? "; dead"
                 : cr->closed || cr->term_signal ? ""
                 : cr->alive == 1 ? "; still running outside NCCL"
                 : "; not known on this host whether it still runs");
    if (waited)
        snprintf(headline, hsize, "HUNG in %s: %s never arrived%s", inst, cul,
                 in2);
    else
        snprintf(headline, hsize, "HUNG inside %s: %s never returned", inst,
                 cul);
}

/* The hang finding of the first culprit; the others (ranks that went
 * silent later: waiting somewhere unseen, or stopped by the job's end)
 * are listed in it, not named. */
static int hang_finding(struct hg *h, const struct hg_hang *hs, size_t n,
                        char *headline, size_t hsize)
{
    const struct hg_hang *hh = &hs[0];
    const struct hg_rank *cr = &h->ranks[hh->culprit];
    struct hg_finding f;
    char cul[96], where[400], inst[160], b1[CP_UNITS_BUFSIZE],
        b2[CP_UNITS_BUFSIZE], t1[16], cl[64], others[300] = "";
    int g = global_rank(h, hh->culprit);
    unsigned node = h->an->ranks[hh->culprit].node;
    json_t *wj, *also = json_array();
    size_t k, len = 0;

    if (!also)
        return -1;
    for (k = 1; k < n; k++) {
        json_array_append_new(also, json_integer(global_rank(h, hs[k].culprit)));
        if (len < sizeof others - 40)
            len += (size_t)snprintf(others + len, sizeof others - len, "%s%d",
                                    k > 1 ? ", " : "",
                                    global_rank(h, hs[k].culprit));
    }
    memset(&f, 0, sizeof f);
    rank_label(h, hh->culprit, cul, sizeof cul);
    wj = where_json(h, (size_t)hh->culprit, where, sizeof where);
    f.kind = CP_KIND_HANG;
    f.severity = CP_SEVERITY_CRITICAL;
    f.ranks = &g;
    f.nranks = 1;
    f.nodes = &node;
    f.nnodes = 1;
    if (hh->waiter != SIZE_MAX) {
        const struct hg_call *x = &h->ranks[hh->waiter].inflight;
        const struct hg_comm *c = &h->comms[x->comm];
        double waited = h->job_end > x->start
                            ? (double)(h->job_end - x->start) * 1e-9
                            : 0;
        call_text(h, x, inst, sizeof inst);
        snprintf(f.msg, sizeof f.msg,
                 "%s (%s, %u ranks) never finished: %s never called it; it "
                 "was %s; %u other%s waited in it from %s on (at least %s: "
                 "the logs end there)%s%s%s.",
                 inst,
                 cp_units_format_size(
                     (double)cp_call_bytes(x->count, x->dtype), b1,
                     sizeof b1),
                 c->nranks, cul, where, hh->nwaiters,
                 hh->nwaiters == 1 ? "" : "s",
                 clock_text(x->start, t1, sizeof t1),
                 cp_units_format_time(waited, b2, sizeof b2),
                 n > 1 ? "; rank" : "", n > 2 ? "s " : n > 1 ? " " : "",
                 n > 1 ? others : "");
        if (n > 1)
            snprintf(f.msg + strlen(f.msg) - 1,
                     sizeof f.msg - strlen(f.msg) + 1,
                     " also never arrived where others waited, but went "
                     "silent later (waiting where the logs do not show, or "
                     "stopped by the job's end).");
        f.evidence = json_pack(
            "{s:s, s:s, s:I, s:i, s:i, s:o, s:i, s:f, s:o}", "communicator",
            comm_label(h, x->comm, cl, sizeof cl), "op", op_text(x->op),
            "seq", (json_int_t)x->seq, "nranks", (int)c->nranks, "culprit", g,
            "where", wj, "waiters", (int)hh->nwaiters, "waited_at_least_s",
            waited, "also_absent", also);
    } else {
        const struct hg_comm *c = &h->comms[cr->inflight.comm];
        call_text(h, &cr->inflight, inst, sizeof inst);
        snprintf(f.msg, sizeof f.msg,
                 "%s never returned from %s (entered at %s), which the %u "
                 "other member%s left; where they waited for it next is not "
                 "in the logs (inside a group, or they ended).",
                 cul, inst, clock_text(cr->inflight.start, t1, sizeof t1),
                 c->nranks - 1, c->nranks == 2 ? "" : "s");
        f.evidence = json_pack(
            "{s:s, s:s, s:I, s:i, s:i, s:o, s:i, s:o}", "communicator",
            comm_label(h, cr->inflight.comm, cl, sizeof cl), "op",
            op_text(cr->inflight.op), "seq", (json_int_t)cr->inflight.seq,
            "nranks", (int)c->nranks, "culprit", g, "where", wj, "waiters", 0,
            "also_absent", also);
    }
    if (!f.evidence)
        return -1;
    if (headline && !headline[0])
        hang_headline(h, cr, hh->waiter != SIZE_MAX, inst, cul, headline,
                      hsize);
    return emit(h, &f);
}

/* A cycle of waits among waiting ranks (depth-first, iterative). */
static size_t find_cycle(struct hg *h, int32_t *cycle, size_t max)
{
    size_t nr = h->an->nranks, ri, len = 0;
    unsigned char *color = calloc(nr ? nr : 1, 1);
    int32_t *stack = malloc((nr ? nr : 1) * sizeof *stack);
    size_t *next = calloc(nr ? nr : 1, sizeof *next);
    int32_t *w = malloc((1u << 16) * sizeof *w);

    if (!color || !stack || !next || !w)
        goto out;
    for (ri = 0; ri < nr && !len; ri++) {
        size_t depth = 0;
        if (color[ri] || h->ranks[ri].state != HG_WAITING)
            continue;
        stack[depth++] = (int32_t)ri;
        color[ri] = 1;
        while (depth && !len) {
            int32_t u = stack[depth - 1];
            size_t nw = waits_for(h, (size_t)u, w, 1u << 16);
            if (next[u] >= nw) {
                color[u] = 2;
                depth--;
                continue;
            }
            {
                int32_t v = w[next[u]++];
                if (h->ranks[v].state != HG_WAITING &&
                    h->ranks[v].state != HG_P2P)
                    continue;
                if (color[v] == 1) {
                    size_t s = depth;
                    while (s > 0 && stack[s - 1] != v)
                        s--;
                    for (; s - 1 < depth && len < max; s++)
                        cycle[len++] = stack[s - 1];
                } else if (!color[v]) {
                    color[v] = 1;
                    stack[depth++] = v;
                }
            }
        }
    }
out:
    free(color);
    free(stack);
    free(next);
    free(w);
    return len;
}

static int deadlock_finding(struct hg *h, const int32_t *cyc, size_t n,
                            char *headline, size_t hsize)
{
    struct hg_finding f;
    int ranks[MAX_CYCLE];
    unsigned nodes[MAX_CYCLE];
    char text[900] = "", a[96], b[96], in[160];
    size_t i, len = 0;
    json_t *arr = json_array();

    memset(&f, 0, sizeof f);
    if (!arr)
        return -1;
    for (i = 0; i < n; i++) {
        int32_t u = cyc[i], v = cyc[(i + 1) % n];
        ranks[i] = global_rank(h, u);
        nodes[i] = h->an->ranks[u].node;
        rank_label(h, u, a, sizeof a);
        rank_label(h, v, b, sizeof b);
        call_text(h, &h->ranks[u].inflight, in, sizeof in);
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "%s%s waits in %s for %s", i ? ", which" : "",
                                i ? "" : a, in, b);
        if (len >= sizeof text)
            len = sizeof text - 1;
        json_array_append_new(
            arr, json_pack("{s:i, s:o, s:i}", "rank", ranks[i], "waits_in",
                           call_json(h, &h->ranks[u].inflight), "waits_for",
                           global_rank(h, v)));
    }
    f.kind = CP_KIND_DEADLOCK;
    f.severity = CP_SEVERITY_CRITICAL;
    f.ranks = ranks;
    f.nranks = n;
    f.nodes = nodes;
    f.nnodes = n;
    snprintf(f.msg, sizeof f.msg,
             "Deadlock across communicators: %s. Each waits for the other: "
             "the ranks called collectives of these communicators in "
             "different orders (the logs cannot tell which order was "
             "meant).",
             text);
    f.evidence = json_pack("{s:o}", "cycle", arr);
    if (!f.evidence)
        return -1;
    if (headline && !headline[0])
        snprintf(headline, hsize, "DEADLOCK: %s", text);
    return emit(h, &f);
}

/* The members of communicator ci's instance seq s that some left with an
 * error: how many failed it (*failed), those that never entered it and
 * left an unclosed log outside any call (dead, up to 8), those still
 * inside it and not ended by the launcher's teardown (inside, up to 8);
 * nterm: the ranks that saw SIGTERM. */
struct hg_failed {
    unsigned failed, ndead, ninside;
    int32_t dead[8], inside[8];
};

static void failed_members(const struct hg *h, const struct hg_comm *c,
                           size_t ci, int64_t s, size_t nterm,
                           struct hg_failed *x)
{
    unsigned mj;

    memset(x, 0, sizeof *x);
    for (mj = 0; mj < c->nranks; mj++) {
        const struct hg_member *m = &c->m[mj];
        const struct hg_rank *r;
        x->failed += m->failed_seq == s;
        if (m->rank < 0)
            continue;
        r = &h->ranks[m->rank];
        if (r->claimed_twice || r->cut)
            continue;
        if (m->last_entered < s && !r->inflight.valid && !r->closed &&
            !r->term_signal && x->ndead < 8)
            x->dead[x->ndead++] = m->rank;
        if (r->inflight.valid && r->inflight.comm == ci &&
            r->inflight.seq == (uint32_t)s && !cp_op_is_p2p(r->inflight.op) &&
            !(r->term_signal && nterm >= 2) && x->ninside < 8)
            x->inside[x->ninside++] = m->rank;
    }
}

/* The killed finding of communicator ci's instance seq s (x: its
 * members): the dead members when there are, else those inside it. */
static int killed_finding(struct hg *h, size_t ci, int64_t s,
                          const struct hg_failed *x, char *headline,
                          size_t hsize, size_t *named)
{
    const struct hg_comm *c = &h->comms[ci];
    int before = x->ndead > 0;
    const int32_t *who = before ? x->dead : x->inside;
    unsigned nwho = before ? x->ndead : x->ninside, failed = x->failed, k;
    struct hg_finding f;
    int ranks[8];
    unsigned nodes[8];
    char list[400] = "", cl[64], rl[96], t1[16];
    size_t len = 0;
    uint8_t op = sig_at(c, (uint64_t)s) ? sig_at(c, (uint64_t)s)->op : 0;

    if (nwho == 0)
        return 0;
    for (k = 0; k < nwho; k++) {
        ranks[k] = global_rank(h, who[k]);
        nodes[k] = h->an->ranks[who[k]].node;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                k ? ", " : "",
                                rank_label(h, who[k], rl, sizeof rl));
        if (len >= sizeof list)
            len = sizeof list - 1;
    }
    comm_label(h, (unsigned)ci, cl, sizeof cl);
    memset(&f, 0, sizeof f);
    f.kind = CP_KIND_KILLED;
    f.severity = CP_SEVERITY_CRITICAL;
    f.ranks = ranks;
    f.nranks = nwho == 1 ? 1 : 0;
    f.nodes = nodes;
    f.nnodes = nwho == 1 ? 1 : 0;
    if (nwho == 1 && before)
        snprintf(f.msg, sizeof f.msg,
                 "%s died before calling %s seq %lld on %s: %u of "
                 "its peers' calls failed there (remote error), it "
                 "was inside no call and its log was not closed "
                 "(killed, or crashed, after leaving %s at %s).",
                 list, op_text(op), (long long)s, cl, failed,
                 call_text(h, &h->ranks[who[0]].last, rl, sizeof rl),
                 clock_text(h->ranks[who[0]].last.end, t1, sizeof t1));
    else if (nwho == 1)
        snprintf(f.msg, sizeof f.msg,
                 "%s stopped inside %s and never returned, while %u "
                 "of its peers left it with an error: it died there "
                 "(killed or crashed; its log was %s).",
                 list,
                 call_text(h, &h->ranks[who[0]].inflight, rl, sizeof rl),
                 failed, h->ranks[who[0]].closed ? "closed" : "not closed");
    else
        snprintf(f.msg, sizeof f.msg,
                 "%u of the members of %s seq %lld failed it (remote "
                 "error) while %s %s: one of them died, the logs "
                 "cannot tell which.",
                 failed, cl, (long long)s, list,
                 before ? "never called it (logs not closed)"
                        : "were still inside it");
    f.evidence = json_pack("{s:s, s:I, s:i, s:b, s:i}", "communicator", cl,
                           "seq", (json_int_t)s, "peers_failed", (int)failed,
                           "inside_call", !before, "rank",
                           nwho == 1 ? ranks[0] : -1);
    if (!f.evidence)
        return -1;
    if (headline && !headline[0] && nwho == 1)
        snprintf(headline, hsize,
                 "KILLED: %s died %s %s seq %lld on %s (%u peer%s "
                 "failed the call)",
                 list, before ? "before" : "inside", op_text(op),
                 (long long)s, cl, failed, failed == 1 ? "" : "s");
    *named += nwho == 1;
    return emit(h, &f);
}

/* Instances that some members left with an error (a peer died): the rank
 * that died is the one member that never entered it and left an unclosed
 * log without being inside a call, else the one member still inside it.
 * A member inside it that saw SIGTERM while another rank saw it too was
 * ended by the launcher's teardown (a time limit, scancel), which is what
 * made its peers' calls fail: it is no candidate.  Several candidates:
 * said, none named. */
static int killed_findings(struct hg *h, char *headline, size_t hsize,
                           size_t *named)
{
    size_t ci, ri, nterm = 0;
    int rc = 0;

    *named = 0;
    for (ri = 0; ri < h->an->nranks; ri++)
        nterm += h->ranks[ri].term_signal != 0;
    for (ci = 0; ci < h->ncomms && rc == 0; ci++) {
        const struct hg_comm *c = &h->comms[ci];
        unsigned mi, mj;

        if (c->conflict)
            continue;
        for (mi = 0; mi < c->nranks && rc == 0; mi++) {
            int64_t s = c->m[mi].failed_seq;
            struct hg_failed x;

            if (s < 0)
                continue;
            for (mj = 0; mj < mi; mj++)
                if (c->m[mj].failed_seq == s)
                    break;
            if (mj < mi)
                continue; /* this instance was looked at already */
            failed_members(h, c, ci, s, nterm, &x);
            rc = killed_finding(h, ci, s, &x, headline, hsize, named);
        }
    }
    return rc;
}

struct hg_rank_index {
    int64_t rank;
    size_t index;
};

static int by_rank(const void *a, const void *b)
{
    const struct hg_rank_index *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Two logs claim one global rank: said once; such a rank is never named
 * as a culprit. */
static int duplicate_ranks(struct hg *h)
{
    const struct cp_analysis *an = h->an;
    struct hg_rank_index *order;
    size_t i, j, n = 0, len = 0;
    int ranks[16];
    char list[400] = "";
    struct hg_finding f;

    /* sorted by global rank, so that a job of 64k ranks costs n log n */
    order = malloc((an->nranks ? an->nranks : 1) * sizeof *order);
    if (!order)
        return -1;
    for (i = 0; i < an->nranks; i++) {
        order[i].rank = an->ranks[i].rank;
        order[i].index = i;
    }
    qsort(order, an->nranks, sizeof *order, by_rank);
    for (i = 0; i < an->nranks; i = j) {
        for (j = i + 1; j < an->nranks && order[j].rank == order[i].rank; j++)
            ;
        if (j - i > 1 && order[i].rank >= 0)
            for (size_t k = i; k < j; k++)
                h->ranks[order[k].index].claimed_twice = 1;
    }
    free(order);
    for (i = 0; i < an->nranks; i++) {
        const struct cp_analysis_input *in = &an->inputs[an->ranks[i].input];
        if (!h->ranks[i].claimed_twice)
            continue;
        if (n < 16 && (n == 0 || ranks[n - 1] != an->ranks[i].rank))
            ranks[n++] = an->ranks[i].rank;
        if (len < sizeof list - 80)
            len += (size_t)snprintf(list + len, sizeof list - len,
                                    "%s%s (rank %d)", len ? ", " : "",
                                    in->path, an->ranks[i].rank);
    }
    if (n == 0)
        return 0;
    memset(&f, 0, sizeof f);
    f.kind = CP_KIND_DUPLICATE_RANK;
    f.severity = CP_SEVERITY_WARNING;
    f.ranks = ranks;
    f.nranks = n;
    snprintf(f.msg, sizeof f.msg,
             "Several logs claim the same global rank: %s. Mixed runs or "
             "copied files? Those ranks are never named as the culprit of a "
             "hang.",
             list);
    f.evidence = json_pack("{s:i}", "ranks_claimed_twice", (int)n);
    if (!f.evidence)
        return -1;
    return emit(h, &f);
}

/* When one rank's log ends with no SIGTERM and not closed (it died, by
 * SIGKILL or a crash) while every other log was closed or saw the
 * launcher's SIGTERM, that rank died first and the others were ended after
 * it: its index, else -1. */
static int32_t sole_dead_rank(const struct hg *h)
{
    size_t ri, ndead = 0, nended = 0;
    int32_t who = -1;
    const struct hg_rank *r;

    for (ri = 0; ri < h->an->nranks; ri++) {
        r = &h->ranks[ri];
        if (r->claimed_twice || r->cut)
            return -1;
        if (!r->closed && !r->term_signal && !r->inflight.valid) {
            ndead++;
            who = (int32_t)ri;
        } else if (r->closed || r->term_signal) {
            nended++;
        }
    }
    return ndead == 1 && nended + 1 == h->an->nranks ? who : -1;
}

/* The job ended with calls in flight and nobody was named yet: name the
 * rank that died first (sole_dead_rank).  1 when it named one, 0 when the
 * logs cannot tell, -1 out of memory. */
static int died_first(struct hg *h, char *headline, size_t hsize)
{
    int32_t who = sole_dead_rank(h);
    const struct hg_rank *r;
    struct hg_finding f;
    int ranks[1];
    unsigned nodes[1];
    char rl[96], cl[64], lt[160], t1[16];
    int64_t next = -1;

    if (who < 0)
        return 0;
    r = &h->ranks[who];
    if (r->last.valid)
        next = (int64_t)r->last.seq + 1;
    memset(&f, 0, sizeof f);
    f.kind = CP_KIND_KILLED;
    f.severity = CP_SEVERITY_CRITICAL;
    ranks[0] = h->an->ranks[who].rank;
    nodes[0] = h->an->ranks[who].node;
    f.ranks = ranks;
    f.nranks = 1;
    f.nodes = nodes;
    f.nnodes = 1;
    rank_label(h, who, rl, sizeof rl);
    if (r->last.valid)
        comm_label(h, r->last.comm, cl, sizeof cl);
    else
        snprintf(cl, sizeof cl, "?");
    snprintf(f.msg, sizeof f.msg,
             "%s died in its own compute: its log was not closed and it saw "
             "no SIGTERM, while the launcher ended every other rank; it was "
             "last seen leaving %s at %s.",
             rl, r->last.valid ? call_text(h, &r->last, lt, sizeof lt)
                               : "no call",
             clock_text(r->log_end, t1, sizeof t1));
    f.evidence = json_pack("{s:s, s:I, s:i, s:b}", "communicator", cl, "seq",
                           (json_int_t)next, "rank", ranks[0], "inside_call",
                           0);
    if (!f.evidence)
        return -1;
    if (headline && !headline[0])
        snprintf(headline, hsize,
                 "KILLED: %s died in its own compute (last left %s)", rl, lt);
    return emit(h, &f) < 0 ? -1 : 1;
}

/* The job ended with calls in flight. */
static int ended_in_flight(struct hg *h, size_t named, char *headline,
                           size_t hsize)
{
    size_t ri, n = 0;
    uint64_t oldest = 0;
    int32_t who = -1;
    int unclosed = 0;
    struct hg_finding f;
    char b1[CP_UNITS_BUFSIZE], in[160], rl[96];

    for (ri = 0; ri < h->an->nranks; ri++) {
        const struct hg_rank *r = &h->ranks[ri];
        unclosed |= !r->closed;
        if (!r->inflight.valid)
            continue;
        n++;
        if (who < 0 || r->inflight.start < oldest) {
            oldest = r->inflight.start;
            who = (int32_t)ri;
        }
    }
    if (!n || !unclosed || named)
        return 0;
    switch (died_first(h, headline, hsize)) {
    case -1:
        return -1;
    case 1:
        return 0;
    }
    memset(&f, 0, sizeof f);
    f.kind = CP_KIND_KILLED;
    f.severity = CP_SEVERITY_WARNING;
    snprintf(f.msg, sizeof f.msg,
             "The job ended with %zu call%s in flight on %zu rank%s (a time "
             "limit, scancel, a node failure or a launcher's timeout ended "
             "it); the oldest, %s of %s, had waited %s.",
             n, n == 1 ? "" : "s", n, n == 1 ? "" : "s",
             call_text(h, &h->ranks[who].inflight, in, sizeof in),
             rank_label(h, who, rl, sizeof rl),
             cp_units_format_time(
                 h->job_end > oldest ? (double)(h->job_end - oldest) * 1e-9 : 0,
                 b1, sizeof b1));
    f.evidence = json_pack("{s:I, s:f}", "calls_in_flight", (json_int_t)n,
                           "oldest_wait_s",
                           h->job_end > oldest
                               ? (double)(h->job_end - oldest) * 1e-9
                               : 0.0);
    if (!f.evidence)
        return -1;
    return emit(h, &f);
}

static const char *sig_text(const struct hg_sig *s, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s of %" PRIu64 " x %s",
                                op_text(s->op), s->count,
                                cp_dtype_name(s->dtype));
    if (n < size && s->redop != CP_REDOP_NONE)
        n += (size_t)snprintf(buf + n, size - n, " (%s)",
                              cp_redop_name(s->redop));
    if (n < size && s->root >= 0)
        snprintf(buf + n, size - n, " root %d", s->root);
    return buf;
}

/* How many instances of the job's communicators of c's size were called
 * as s, the instance being judged (c at seq) aside (for a tie: the call
 * the job makes elsewhere is the one meant).  That instance's slot holds
 * the call of whichever caller's log was read first: counted, it would
 * break every tie for that caller. */
static uint32_t sig_usual(const struct hg *h, const struct hg_comm *c,
                          uint32_t seq, const struct hg_sig *s)
{
    uint32_t i, n = 0;
    size_t ci;

    for (ci = 0; ci < h->ncomms; ci++) {
        const struct hg_comm *o = &h->comms[ci];
        if (o->nranks != c->nranks)
            continue;
        for (i = 0; o->sig && i < o->capsig; i++)
            n += o->sig[i].used && !(o == c && o->sig[i].seq == seq) &&
                 sig_equal(&o->sig[i], s);
    }
    return n;
}

/* The calls made at one instance (comm, seq) by the dissenters and by its
 * first caller, counted by kind. */
struct votes {
    struct hg_sig kinds[16]; /* kinds[0]: the first caller's */
    uint32_t votes[16];
    size_t nk, best;
    int tie;                 /* no kind has more callers than every other */
};

/* The kinds called at the instance of h->diffs[i] and the most called;
 * on a tie, the one the communicator makes elsewhere, if it says. */
static void count_votes(struct hg *h, size_t i, const struct hg_comm *c,
                        const struct hg_sig *ref, struct votes *v)
{
    const struct hg_diff *d = &h->diffs[i];
    size_t j, k;

    v->nk = 1;
    v->best = 0;
    v->tie = 0;
    v->kinds[0] = *ref;
    v->votes[0] = ref->agree;
    for (j = i; j < h->ndiffs; j++) {
        const struct hg_diff *e = &h->diffs[j];
        if (e->comm != d->comm || e->seq != d->seq)
            continue;
        for (k = 0; k < v->nk && !sig_equal(&v->kinds[k], &e->sig); k++)
            ;
        if (k == v->nk && v->nk < 16) {
            v->kinds[v->nk] = e->sig;
            v->votes[v->nk++] = 0;
        }
        if (k < v->nk)
            v->votes[k]++;
    }
    for (k = 1; k < v->nk; k++)
        if (v->votes[k] > v->votes[v->best])
            v->best = k;
    for (k = 0; k < v->nk; k++)
        v->tie |= k != v->best && v->votes[k] == v->votes[v->best];
    if (v->tie) {
        /* as many callers each way: the call this communicator makes
         * elsewhere is the one meant */
        uint32_t u, ub = 0, second = 0;
        for (k = 0; k < v->nk; k++) {
            u = sig_usual(h, c, d->seq, &v->kinds[k]);
            if (u > ub) {
                second = ub;
                ub = u;
                v->best = k;
            } else if (u > second) {
                second = u;
            }
        }
        v->tie = ub == second;
    }
}

/* The odd callers of one instance: their ranks and nodes (64 at most) and
 * a sentence naming each with its call. */
struct dissent {
    int ranks[64];
    unsigned nodes[64];
    size_t nranks;
    char odd[800];
    size_t len;
};

static void add_dissenter(struct hg *h, struct dissent *ds, int rank,
                          const struct hg_sig *sig)
{
    char t1[160], rl[96];

    if (ds->nranks < 64) {
        ds->ranks[ds->nranks] = global_rank(h, rank);
        ds->nodes[ds->nranks] = h->an->ranks[rank].node;
        ds->nranks++;
    }
    ds->len += (size_t)snprintf(ds->odd + ds->len, sizeof ds->odd - ds->len,
                                "%s%s called %s", ds->len ? "; " : "",
                                rank_label(h, rank, rl, sizeof rl),
                                sig_text(sig, t1, sizeof t1));
    if (ds->len >= sizeof ds->odd)
        ds->len = sizeof ds->odd - 1;
}

/* The dissenters of the instance of h->diffs[i] (or, on a tie, everyone
 * not of the best kind) into ds, and their calls into calls; then the
 * first caller when it was the odd one. */
static void list_dissenters(struct hg *h, size_t i, const struct hg_sig *ref,
                            const struct votes *v, struct dissent *ds,
                            json_t *calls)
{
    const struct hg_diff *d = &h->diffs[i];
    size_t j;

    for (j = i; j < h->ndiffs; j++) {
        const struct hg_diff *e = &h->diffs[j];
        if (e->comm != d->comm || e->seq != d->seq)
            continue;
        if (!v->tie && sig_equal(&e->sig, &v->kinds[v->best]))
            continue;
        add_dissenter(h, ds, e->sig.rank, &e->sig);
        json_array_append_new(
            calls, json_pack("{s:i, s:s, s:I, s:s, s:i}", "rank",
                             global_rank(h, e->sig.rank), "op",
                             op_text(e->sig.op), "count",
                             (json_int_t)e->sig.count, "dtype",
                             cp_dtype_name(e->sig.dtype), "root",
                             e->sig.root));
    }
    if (!v->tie && v->best != 0)
        /* the reference (first caller) was the odd one */
        add_dissenter(h, ds, ref->rank, ref);
}

/* The mismatch finding of the instance whose first dissenter is
 * h->diffs[i] (reference call ref, on communicator c). */
static int mismatch_finding(struct hg *h, size_t i, const struct hg_comm *c,
                            const struct hg_sig *ref, char *headline,
                            size_t hsize, unsigned char *mismatched)
{
    const struct hg_diff *d = &h->diffs[i];
    struct votes v;
    struct dissent ds;
    struct hg_finding f;
    char t1[160], cl[64];
    json_t *calls;

    count_votes(h, i, c, ref, &v);
    if (mismatched)
        mismatched[d->comm] = 1;
    calls = json_array();
    if (!calls)
        return -1;
    memset(&ds, 0, sizeof ds);
    list_dissenters(h, i, ref, &v, &ds, calls);
    memset(&f, 0, sizeof f);
    f.kind = CP_KIND_MISMATCH;
    f.severity = CP_SEVERITY_CRITICAL;
    f.ranks = ds.ranks;
    f.nranks = v.tie ? 0 : ds.nranks;
    f.nodes = ds.nodes;
    f.nnodes = v.tie ? 0 : ds.nranks;
    comm_label(h, d->comm, cl, sizeof cl);
    if (v.tie)
        snprintf(f.msg, sizeof f.msg,
                 "Ranks of %s called different collectives at seq %u: "
                 "%s, the others %s; as many ranks called each, and the "
                 "logs cannot tell which call was meant.",
                 cl, d->seq, ds.odd,
                 sig_text(&v.kinds[v.best], t1, sizeof t1));
    else
        snprintf(f.msg, sizeof f.msg,
                 "Ranks of %s called different collectives at seq %u: "
                 "%s; the %u others %s. Such a call hangs or silently "
                 "corrupts data.",
                 cl, d->seq, ds.odd, v.votes[v.best],
                 sig_text(&v.kinds[v.best], t1, sizeof t1));
    f.evidence = json_pack("{s:s, s:I, s:o, s:{s:s, s:I, s:s, s:i}, s:b}",
                           "communicator", cl, "seq", (json_int_t)d->seq,
                           "calls", calls, "expected", "op",
                           op_text(v.kinds[v.best].op), "count",
                           (json_int_t)v.kinds[v.best].count, "dtype",
                           cp_dtype_name(v.kinds[v.best].dtype), "root",
                           v.kinds[v.best].root, "culprit_known", !v.tie);
    if (!f.evidence)
        return -1;
    if (headline && !headline[0] && !v.tie)
        snprintf(headline, hsize, "MISMATCH at seq %u on %s: %.400s", d->seq,
                 cl, ds.odd);
    else if (headline && !headline[0])
        snprintf(headline, hsize,
                 "MISMATCH at seq %u on %s: %.300s, the others %s (as many "
                 "each way: which was meant is not known)",
                 d->seq, cl, ds.odd,
                 sig_text(&v.kinds[v.best], t1, sizeof t1));
    return emit(h, &f);
}

static int mismatch_findings(struct hg *h, char *headline, size_t hsize,
                             unsigned char *mismatched)
{
    size_t i, j;

    for (i = 0; i < h->ndiffs; i++) {
        const struct hg_diff *d = &h->diffs[i];
        const struct hg_comm *c = &h->comms[d->comm];
        const struct hg_sig *ref = sig_at(c, d->seq);

        for (j = 0; j < i; j++)
            if (h->diffs[j].comm == d->comm && h->diffs[j].seq == d->seq)
                break;
        if (j < i || c->conflict || !ref)
            continue; /* done with the first dissenter of the instance, or
                         its slot went to a later instance */
        if (mismatch_finding(h, i, c, ref, headline, hsize, mismatched) < 0)
            return -1;
    }
    return 0;
}

/* Per communicator: the last instance every member entered and left, and
 * the first one some member did not leave. */
static json_t *comms_json(const struct hg *h)
{
    json_t *arr = json_array();
    size_t ci;

    for (ci = 0; arr && ci < h->ncomms; ci++) {
        const struct hg_comm *c = &h->comms[ci];
        int64_t all_in = INT64_MAX, all_out = INT64_MAX, lo = INT64_MAX,
                hi = -1;
        json_t *members = json_array(), *o;
        unsigned mi;
        char cl[64];

        for (mi = 0; mi < c->nranks; mi++) {
            const struct hg_member *m = &c->m[mi];
            if (m->last_entered < all_in)
                all_in = m->last_entered;
            if (m->last_finished < all_out)
                all_out = m->last_finished;
            if (m->last_finished + 1 < lo)
                lo = m->last_finished + 1;
            if (m->last_entered > hi)
                hi = m->last_entered;
            json_array_append_new(
                members,
                json_pack("{s:i, s:I, s:I}", "rank",
                          m->rank >= 0 ? global_rank(h, m->rank) : -1,
                          "last_entered", (json_int_t)m->last_entered,
                          "last_finished", (json_int_t)m->last_finished));
        }
        o = json_pack("{s:s, s:i, s:I, s:I, s:o, s:o}", "name",
                      comm_label(h, (unsigned)ci, cl, sizeof cl), "nranks",
                      (int)c->nranks, "last_entered_by_all",
                      (json_int_t)all_in, "last_finished_by_all",
                      (json_int_t)all_out, "first_unfinished",
                      hi >= lo ? json_integer((json_int_t)lo) : json_null(),
                      "members", members ? members : json_null());
        if (!o || json_array_append_new(arr, o) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *ranks_json(const struct hg *h)
{
    json_t *arr = json_array();
    char where[400];
    size_t ri;

    for (ri = 0; arr && ri < h->an->nranks; ri++) {
        json_t *o = where_json(h, ri, where, sizeof where);
        if (!o)
            goto fail;
        json_object_set_new(o, "where", json_string(where));
        json_object_set_new(o, "culprit", json_boolean(h->ranks[ri].culprit));
        if (h->an->alive) /* a live analysis only: reports stay as they were */
            json_object_set_new(o, "alive",
                                h->ranks[ri].closed ? json_false()
                                : h->ranks[ri].alive < 0
                                    ? json_null()
                                    : json_boolean(h->ranks[ri].alive));
        if (json_array_append_new(arr, o) < 0)
            goto fail;
    }
    return arr;
fail:
    json_decref(arr);
    return NULL;
}

/* Every rank's log, read into h; the end of the job, and whether any rank
 * ended with a call in flight (*inflight).  -1: out of memory. */
static int read_ranks(struct hg *h, int *inflight)
{
    size_t i;

    for (i = 0; i < h->an->nranks; i++)
        if (read_rank(h, (int32_t)i) < 0)
            return -1;
    for (i = 0; i < h->an->nranks; i++) {
        if (h->ranks[i].log_end > h->job_end)
            h->job_end = h->ranks[i].log_end;
        if (h->ranks[i].term_ns > h->end_seen)
            h->end_seen = h->ranks[i].term_ns;
        *inflight |= h->ranks[i].inflight.valid;
    }
    if (h->job_end > h->end_seen)
        h->end_seen = h->job_end;
    return 0;
}

/* A rank died, or called the wrong thing: ranks that were running until a
 * SIGTERM ended them (the teardown that followed) are not culprits; the
 * first hang left names the culprit. */
static void drop_teardown_culprits(struct hg *h, struct hg_hang *hangs,
                                   size_t *nhangs)
{
    size_t k, kept = 0;

    for (k = 0; k < *nhangs; k++) {
        const struct hg_rank *cr = &h->ranks[hangs[k].culprit];
        if (!cr->inflight.valid && cr->term_signal)
            h->ranks[hangs[k].culprit].culprit = 0;
        else
            hangs[kept++] = hangs[k];
    }
    *nhangs = kept;
    for (k = 0; k < *nhangs; k++)
        h->ranks[hangs[k].culprit].culprit = k == 0;
}

/* an->hang: the state, the verdict's first line (headline, or the
 * in-flight one when empty) and the communicators and ranks.  -1: out of
 * memory. */
static int set_hang(struct hg *h, const char *state, char *headline,
                    size_t hsize, int inflight)
{
    struct cp_analysis *an = h->an;
    struct cp_hang *hg = calloc(1, sizeof *hg);
    char prefix[96] = "collprof: ";

    if (!hg)
        return -1;
    if (an->job_id[0])
        snprintf(prefix, sizeof prefix, "collprof: job %s%s%s: ",
                 an->job_id, an->step_id[0] ? "." : "", an->step_id);
    if (!headline[0])
        snprintf(headline, hsize,
                 "ENDED with calls in flight (see the killed finding)");
    snprintf(hg->headline, sizeof hg->headline, "%s%s", prefix, headline);
    hg->json = json_pack("{s:s, s:s, s:I, s:b, s:o, s:o}", "state", state,
                         "headline", hg->headline, "job_end_ns",
                         (json_int_t)h->job_end, "calls_in_flight",
                         inflight, "communicators", comms_json(h),
                         "ranks", ranks_json(h));
    if (!hg->json) {
        free(hg);
        return -1;
    }
    an->hang = hg;
    return 0;
}

/* Communicators refused for the budget: one problem, on the log of the
 * first claim.  -1: out of memory. */
static int refused_problem(struct hg *h)
{
    const struct cp_analysis *an = h->an;
    char msg[320];

    if (!h->refused_records || h->refused_first_rank < 0 ||
        (size_t)h->refused_first_rank >= an->nranks)
        return 0;
    snprintf(msg, sizeof msg,
             "communicator %016llx claims %u ranks: past the hang "
             "analysis' memory budget for members (%zu MiB); %llu records "
             "of communicators past it not judged for hangs",
             (unsigned long long)h->refused_first_id,
             h->refused_first_nranks, (size_t)AN_HANG_BUDGET >> 20,
             (unsigned long long)h->refused_records);
    return an_add_problem(h->an,
                          an->inputs[an->ranks[h->refused_first_rank].input]
                              .path,
                          -1, msg);
}

/* ---- the read, on a thread of its own or not --------------------------- */

struct cp_hang_read {
    struct hg h;
    int inflight; /* read_ranks' */
    int rc;       /* read_ranks': -1 out of memory */
    int threaded; /* a thread reads: join it */
    pthread_t thread;
};

static int hg_init(struct hg *h, struct cp_analysis *an)
{
    memset(h, 0, sizeof *h);
    h->an = an;
    h->ranks = calloc(an->nranks ? an->nranks : 1, sizeof *h->ranks);
    h->diffs = malloc(MAX_DIFFS * sizeof *h->diffs);
    if (posix_memalign(&h->scan_mem, 64,
                       cp_scan_place_size(CP_SCAN_BUFFER, 0)) != 0)
        h->scan_mem = NULL;
    return h->ranks && h->diffs && h->scan_mem ? 0 : -1;
}

static void hg_free(struct hg *h)
{
    size_t i;

    for (i = 0; i < h->ncomms; i++) {
        free(h->comms[i].m);
        free(h->comms[i].sig);
        free(h->comms[i].early);
    }
    free(h->comms);
    cp_slots_free(&h->comm_slots);
    free(h->ranks);
    free(h->diffs);
    free(h->scan_mem);
}

static void *read_thread(void *arg)
{
    struct cp_hang_read *rd = arg;

    rd->rc = read_ranks(&rd->h, &rd->inflight);
    return NULL;
}

struct cp_hang_read *cp_hang_read_start(struct cp_analysis *an)
{
    struct cp_hang_read *rd = calloc(1, sizeof *rd);

    if (!rd)
        return NULL;
    if (hg_init(&rd->h, an) < 0)
        goto fail;
    rd->h.early_on = 1;
    if (pthread_create(&rd->thread, NULL, read_thread, rd) != 0)
        goto fail;
    rd->threaded = 1;
    return rd;
fail:
    hg_free(&rd->h);
    free(rd);
    return NULL;
}

/* Wait for rd's read; its result (0, or -1: out of memory). */
static int read_join(struct cp_hang_read *rd)
{
    if (rd->threaded)
        pthread_join(rd->thread, NULL);
    rd->threaded = 0;
    return rd->rc;
}

void cp_hang_read_destroy(struct cp_hang_read *rd)
{
    if (!rd)
        return;
    read_join(rd);
    hg_free(&rd->h);
    free(rd);
}

/* The watch (cp_hang.h) from the early instances of a read made before
 * it was known, with what read_rank would have found looking for it: 1,
 * or 0 when they cannot tell (the watch is then read for: watch_read). */
static int watch_from_early(struct hg *h, struct cp_hang_watch *w)
{
    const struct cp_analysis *an = h->an;
    const struct hg_comm *c;
    const struct hg_early *e;
    unsigned ci;
    size_t i;
    int failed = 0;

    if (h->early_lost || w->seq >= HG_EARLY)
        return 0;
    for (i = 0; i < an->nranks; i++) {
        if ((long)i == w->skip_rank)
            continue;
        if (an->inputs[an->ranks[i].input].status <= CP_INPUT_DAMAGED)
            failed |= h->ranks[i].unread;
        else if (!h->ranks[i].unread)
            return 0; /* its calls are in the table, not in the watch */
    }
    if (failed) {
        w->failed = 1;
        return 1;
    }
    c = comm_get(h, w->comm_id, 0, &ci); /* 0 ranks: never a new one */
    if (!c)
        return 1; /* no call of the communicator */
    if (c->early_short)
        return 0;
    if (w->seq >= c->nearly)
        return 1; /* no call of the instance */
    e = &c->early[w->seq];
    if (e->mixed)
        return 0;
    if (e->rank < 0 || e->op != w->op)
        return 1; /* no call of it with the watch's op */
    /* the least start includes skip_rank's: when it is that rank's and
     * earlier than the watch's own, the others' least is unknown */
    if (e->rank == w->skip_rank)
        return e->t >= w->earliest;
    if (e->t < w->earliest)
        w->earliest = e->t;
    return 1;
}

/* The watch looked for in each log (as read_rank does), up to its call. */
static void watch_read(struct hg *h, struct cp_hang_watch *w)
{
    struct cp_error e;

    if (an_instance_earliest(h->an, w->skip_rank, w->comm_id, w->seq, w->op,
                             h->scan_mem, CP_SCAN_BUFFER, &w->earliest,
                             &e) < 0)
        w->failed = 1;
}

/* A window's read from the sync points sees no communicator records
 * before them: the names the main pass gave its communicators (from the
 * logs' prologues).  Each of the hang pass's communicators was used by a
 * call of the window, which the main pass joined too. */
static void name_comms(struct hg *h)
{
    const struct cp_analysis *an = h->an;
    size_t i, j;

    for (i = 0; i < h->ncomms; i++) {
        struct hg_comm *c = &h->comms[i];
        if (c->name[0])
            continue;
        for (j = 0; j < an->ncomms; j++)
            if (an->comms[j].id == c->id) {
                memcpy(c->name, an->comms[j].name, CP_COMM_NAME_LEN);
                c->name[CP_COMM_NAME_LEN] = 0;
                break;
            }
    }
}

int cp_hang_analyze(struct cp_analysis *an, struct cp_hang_read *rd,
                    struct cp_hang_watch *watch)
{
    struct cp_hang_read own;
    struct hg *h;
    struct hg_hang *hangs = NULL;
    size_t nhangs = 0, i, killed_named = 0, ncycle = 0;
    int32_t cycle[MAX_CYCLE];
    char headline[600] = "", hl[4][600] = {"", "", "", ""};
    unsigned char *mismatched = NULL;
    size_t findings_before = an->nfindings, before, nmismatch = 0,
           nkilled = 0;
    int any_mismatch = 0;
    int rc = -1, inflight = 0;
    const char *state = NULL;

    an->hang = NULL;
    if (!rd) {
        /* read now, the watch looked for in the same reads */
        rd = &own;
        memset(&own, 0, sizeof own);
        own.rc = hg_init(&own.h, an);
        own.h.watch = watch;
        if (own.rc == 0)
            own.rc = read_ranks(&own.h, &own.inflight);
    } else if (read_join(rd) == 0 && watch && watch->skip_rank >= 0 &&
               !watch_from_early(&rd->h, watch)) {
        watch_read(&rd->h, watch);
    }
    h = &rd->h;
    inflight = rd->inflight;
    if (rd->rc < 0 || refused_problem(h) < 0)
        goto out;
    if (an->win_lo_ns != INT64_MIN)
        name_comms(h);
    mismatched = calloc(h->ncomms ? h->ncomms : 1, 1);
    if (!mismatched)
        goto out;
    if (duplicate_ranks(h) < 0)
        goto out;
    findings_before = an->nfindings;
    classify(h);
    if (find_hangs(h, &hangs, &nhangs) < 0)
        goto out;
    ncycle = find_cycle(h, cycle, MAX_CYCLE);
    /* the verdict's first line: a deadlock, else a rank that died, else a
     * hang, else a mismatch */
    if (ncycle >= 2 &&
        deadlock_finding(h, cycle, ncycle, hl[0], sizeof hl[0]) < 0)
        goto out;
    before = an->nfindings;
    if (mismatch_findings(h, hl[3], sizeof hl[3], mismatched) < 0)
        goto out;
    nmismatch = an->nfindings - before;
    for (i = 0; i < h->ncomms; i++)
        any_mismatch |= mismatched[i];
    /* a failure explained by a mismatch is not also a kill */
    before = an->nfindings;
    if (!any_mismatch &&
        killed_findings(h, hl[1], sizeof hl[1], &killed_named) < 0)
        goto out;
    nkilled = an->nfindings - before;
    /* a rank that died first (no SIGTERM, log not closed) while the
     * launcher ended the others: ranks still in their compute when its
     * SIGTERM came are the teardown, not a hang (died_first names it) */
    if (killed_named || nmismatch || sole_dead_rank(h) >= 0)
        drop_teardown_culprits(h, hangs, &nhangs);
    if (nhangs && hang_finding(h, hangs, nhangs, hl[2], sizeof hl[2]) < 0)
        goto out;
    if (ended_in_flight(h, killed_named + nhangs + (ncycle >= 2), hl[3],
                        sizeof hl[3]) < 0)
        goto out;
    state = ncycle >= 2 ? "deadlock"
            : nhangs    ? "hung"
            : nmismatch ? "mismatch"
            : nkilled || an->nfindings > findings_before ? "killed"
                                                        : NULL;
    for (i = 0; i < 4 && !headline[0]; i++)
        snprintf(headline, sizeof headline, "%.590s", hl[i]);
    if (state && set_hang(h, state, headline, sizeof headline, inflight) < 0)
        goto out;
    rc = 0;
out:
    if (rd == &own)
        hg_free(&own.h);
    else
        cp_hang_read_destroy(rd);
    free(hangs);
    free(mismatched);
    return rc;
}

const char *cp_hang_headline(const struct cp_analysis *an)
{
    return an->hang ? an->hang->headline : NULL;
}

json_t *cp_hang_to_json(const struct cp_analysis *an)
{
    return an->hang ? json_deep_copy(an->hang->json) : NULL;
}

void cp_hang_destroy(struct cp_hang *hang)
{
    if (!hang)
        return;
    json_decref(hang->json);
    free(hang);
}
