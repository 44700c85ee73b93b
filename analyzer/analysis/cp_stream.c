/* cp_stream.c - the streaming join of rank logs.
 *
 * The merge.  Every file is read in slot order, which is completion order on
 * one thread.  Files advance together in epochs: each epoch consumes, file
 * by file, the records whose (clock-corrected) completion time is below a
 * boundary = the smallest pending time + delta; delta adapts so that an
 * epoch holds 4k..64k records, and is never more than STALE_NS.  This is a
 * k-way merge by completion time at the granularity of an epoch: the join
 * needs no finer order (it matches by key) and the loop costs no heap
 * operation per record.
 *
 * The join.  A collective instance is (communicator, seq); its members come
 * from the files of its ranks within about one collective time of each
 * other in completion time (the ends of one collective are close together
 * whatever the arrival skew).  Each communicator keeps the pending
 * instances in a ring indexed by seq: [lo, hi) with slot seq & (cap - 1).
 * An instance is closed when all nranks members came; one still missing
 * members is closed as incomplete when its last end is STALE_NS behind the
 * merge, or when the ring would exceed ring_max.  Point-to-point pairs
 * (comm, sender, receiver, seq) wait in a hash table with a FIFO for the
 * same eviction.  Memory is thus ranks x in-flight instances, never the
 * number of calls.
 *
 * Calls inside a group are held per file until the group's record (written
 * at the outermost GroupEnd) gives the interval they ran in.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cp_analysis_int.h"
#include "cp_links.h"

#define RING_INIT 64u
#define RING_MAX_MAIN (1u << 16)
#define RING_MAX_PREFIX (1u << 20)
#define STALE_NS INT64_C(2000000000)
#define STASH_MAX 4096u
#define EPOCH_MIN_RECORDS 4096
#define EPOCH_MAX_RECORDS 65536
#define EPOCH_FILE_RECORDS 32
#define PAIR_SAMPLES_MAX 4096
#define NONE32 UINT32_MAX
#define MAX_COMM_RANKS (1u << 20)
/* A rank's sequence numbers on a communicator are contiguous: a member this
 * far ahead of every other is a damaged record, not a future instance. */
#define SEQ_JUMP_MAX (UINT64_C(1) << 20)
/* A merge key runs at most this far ahead of the file's previous one: a
 * damaged (but plausible) far-future time must not hold the whole file
 * back.  Only the order of processing changes: instances wait for their
 * members by key, so a file let through early is still joined. */
#define KEY_STEP_MAX INT64_C(10000000000)
/* run_file asks for the record this many ahead of the one it joins: at
 * thousands of files a file's buffer is cold at each of its turns */
#define RECORDS_AHEAD 4

static int8_t op_coll[256]; /* enum cp_coll of an op code, -1 none */

static void build_op_table(void)
{
    unsigned op;

    for (op = 0; op < 256; op++) {
        enum cp_coll c;
        op_coll[op] = cp_model_coll_from_op(op, &c) == 0 ? (int8_t)c : -1;
    }
}

static inline uint32_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return (uint32_t)x;
}

/* ---- state ---------------------------------------------------------------- */

/* The most (node, reference) pairs of clock offset samples kept. */
static size_t pairs_max(const struct an_state *st)
{
    return 4 * (size_t)st->nnodes + 16;
}

int an_state_init(struct an_state *st, enum an_mode mode, size_t nfiles,
                  unsigned nnodes)
{
    memset(st, 0, sizeof *st);
    build_op_table();
    st->mode = mode;
    st->nfiles = nfiles;
    st->nnodes = nnodes;
    st->ring_max = mode == AN_MODE_PREFIX ? RING_MAX_PREFIX : RING_MAX_MAIN;
    st->stale_ns = mode == AN_MODE_PREFIX ? INT64_MAX / 4 : STALE_NS;
    st->t_first = INT64_MAX;
    st->t_last = INT64_MIN;
    st->win_lo = INT64_MIN;
    st->win_hi = INT64_MAX;
    st->fifo_head = st->fifo_tail = NONE32;
    st->p2p_free = NONE32;
    st->files = calloc(nfiles ? nfiles : 1, sizeof *st->files);
    st->ranks = calloc(nfiles ? nfiles : 1, sizeof *st->ranks);
    st->node_sum = calloc(nnodes ? nnodes : 1, sizeof *st->node_sum);
    st->node_cnt = calloc(nnodes ? nnodes : 1, sizeof *st->node_cnt);
    st->node_min_end = calloc(nnodes ? nnodes : 1, sizeof *st->node_min_end);
    st->node_max_start =
        calloc(nnodes ? nnodes : 1, sizeof *st->node_max_start);
    st->touched = calloc(nnodes ? nnodes : 1, sizeof *st->touched);
    for (st->pair_hash_cap = 64; st->pair_hash_cap < 2 * pairs_max(st);)
        st->pair_hash_cap *= 2;
    st->pair_hash = calloc(st->pair_hash_cap, sizeof *st->pair_hash);
    if (mode == AN_MODE_MAIN) {
        st->timeline = calloc(1, sizeof *st->timeline);
        st->top_own = calloc(1, sizeof *st->top_own);
        st->top_skew = calloc(1, sizeof *st->top_skew);
    }
    if (!st->files || !st->ranks || !st->node_sum || !st->node_cnt ||
        !st->node_min_end || !st->node_max_start || !st->touched ||
        !st->pair_hash ||
        (mode == AN_MODE_MAIN &&
         (!st->timeline || !st->top_own || !st->top_skew)))
        return -1;
    return 0;
}

static void slot_table_free(struct an_slot_table *t)
{
    unsigned i;

    if (!t)
        return;
    for (i = 0; i < AN_NBUCKETS; i++)
        if (t->b[i]) {
            cp_sketch_clear(&t->b[i]->t);
            cp_sketch_clear(&t->b[i]->tw);
            free(t->b[i]->tags);
            free(t->b[i]);
        }
    free(t);
}

static void comm_free(struct an_comm *c)
{
    unsigned s;

    if (!c)
        return;
    free(c->member_file);
    free(c->ring);
    free(c->ends);
    free(c->starts);
    for (s = 0; s < AN_SLOTS; s++)
        slot_table_free(c->slots[s]);
    cp_sketch_clear(&c->skew);
    free(c);
}

/* A file's problem when there was no memory for its text (not freed). */
static char problem_no_memory[] = "a problem whose text there was no memory "
                                  "for";

void an_state_free(struct an_state *st)
{
    size_t i;
    int saved = errno;

    if (st->files)
        for (i = 0; i < st->nfiles; i++) {
            cp_scan_close(st->files[i].sc);
            free(st->files[i].stash);
            if (st->files[i].problem != problem_no_memory)
                free(st->files[i].problem);
        }
    free(st->files);
    free(st->ranks);
    an_longrun_free(st->longrun);
    for (i = 0; i < st->ncomms; i++)
        comm_free(st->comms[i]);
    free(st->comms);
    cp_slots_free(&st->comm_slots);
    free(st->p2p);
    free(st->p2p_heads);
    for (i = 0; i < st->npairs; i++)
        free(st->pairs[i].v);
    free(st->pairs);
    free(st->node_sum);
    free(st->node_cnt);
    free(st->node_min_end);
    free(st->node_max_start);
    free(st->touched);
    free(st->pair_hash);
    free(st->timeline);
    free(st->refused);
    free(st->top_own);
    free(st->top_skew);
    memset(st, 0, sizeof *st);
    errno = saved;
}

/* ---- communicators ---------------------------------------------------------- */

/* A zeroed ring of cap instances, aligned to cache lines. */
static struct an_inst *ring_alloc(uint32_t cap)
{
    void *p = NULL;

    if (posix_memalign(&p, 64, (size_t)cap * sizeof(struct an_inst)) != 0)
        return NULL;
    memset(p, 0, (size_t)cap * sizeof(struct an_inst));
    return p;
}

/* A communicator's id, for the probe of comm_slots. */
struct comm_key {
    const struct an_state *st;
    uint64_t id;
};

static int comm_is(const void *ctx, size_t i)
{
    const struct comm_key *key = ctx;
    return key->st->comms[i]->id == key->id;
}

static size_t comm_hash_of(const void *ctx, size_t i)
{
    return hash64(((const struct an_state *)ctx)->comms[i]->id);
}

/* Bytes a communicator of nranks costs: its member table here, the rank
 * and node lists of cp_analysis later, the fixed part and the ring. */
static size_t comm_cost(uint32_t nranks)
{
    return (size_t)nranks * (sizeof(int32_t) + 2 * sizeof(int)) +
           sizeof(struct an_comm) + RING_INIT * sizeof(struct an_inst);
}

/* Bytes of the prefix pass's start and end times of cap instances. */
static size_t times_bytes(uint32_t cap, uint32_t nranks)
{
    return (size_t)cap * nranks * 2 * sizeof(int64_t);
}

/* Is id among the communicators refused for the budget? */
static int refused_has(const struct an_state *st, uint64_t id)
{
    size_t k;

    if (!st->refused_cap)
        return 0;
    for (k = hash64(id) & (st->refused_cap - 1); st->refused[k];
         k = (k + 1) & (st->refused_cap - 1))
        if (st->refused[k] == id)
            return 1;
    return 0;
}

/* Remember id as refused (its calls are counted, not joined); the first
 * one's claim is kept for the message.  Its memory is charged too, so
 * that a flood of refused ids stays within the budget's order. */
static void refuse(struct an_state *st, uint64_t id, uint32_t nranks,
                   int32_t file)
{
    size_t k, i;

    if (st->nrefused == 0) {
        st->refused_first_id = id;
        st->refused_first_nranks = nranks;
        st->refused_first_file = file;
    }
    if ((st->nrefused + 1) * 2 > st->refused_cap) {
        size_t cap = st->refused_cap ? st->refused_cap * 2 : 64;
        uint64_t *h;
        if (cap * sizeof *h > AN_COMM_BUDGET / 4)
            return; /* counted per call from here on, not remembered */
        h = calloc(cap, sizeof *h);
        if (!h) {
            st->oom = 1;
            return;
        }
        for (i = 0; i < st->refused_cap; i++)
            if (st->refused[i]) {
                for (k = hash64(st->refused[i]) & (cap - 1); h[k];
                     k = (k + 1) & (cap - 1))
                    ;
                h[k] = st->refused[i];
            }
        free(st->refused);
        st->refused = h;
        st->refused_cap = cap;
    }
    for (k = hash64(id) & (st->refused_cap - 1); st->refused[k];
         k = (k + 1) & (st->refused_cap - 1))
        ;
    st->refused[k] = id;
    st->nrefused++;
}

/* The communicator id, created with nranks members when new; NULL when
 * memory ran out, nranks is unusable for a new one, or the communicator
 * would take the per-rank arrays past AN_COMM_BUDGET (then refused: file
 * is where the claim was read). */
static struct an_comm *comm_get(struct an_state *st, uint64_t id,
                                uint32_t nranks, int32_t file)
{
    struct comm_key key = {st, id};
    struct an_comm *c = NULL;
    size_t cost;
    uint32_t i;

    if (st->comm_slots.cap) {
        long at = cp_slots_at(&st->comm_slots,
                              cp_slots_probe(&st->comm_slots, hash64(id),
                                             comm_is, &key));
        if (at >= 0)
            return st->comms[at];
    }
    if (nranks == 0 || nranks > MAX_COMM_RANKS)
        return NULL;
    cost = comm_cost(nranks);
    if (st->comm_bytes + cost > AN_COMM_BUDGET) {
        st->refused_calls++;
        if (!refused_has(st, id))
            refuse(st, id, nranks, file);
        return NULL;
    }
    if (cp_slots_room(&st->comm_slots, st->ncomms, 64, comm_hash_of, st) < 0)
        goto oom;
    if (st->ncomms == st->capcomms) {
        size_t cap = st->capcomms ? st->capcomms * 2 : 16;
        struct an_comm **bigger = realloc(st->comms, cap * sizeof *bigger);
        if (!bigger)
            goto oom;
        st->comms = bigger;
        st->capcomms = cap;
    }
    c = calloc(1, sizeof *c);
    if (!c)
        goto oom;
    c->id = id;
    c->nranks = nranks;
    c->cap = RING_INIT;
    c->member_file = malloc(nranks * sizeof *c->member_file);
    if (!c->member_file) {
        comm_free(c);
        goto oom;
    }
    /* the ring (and the prefix pass's times) are charged now and
     * allocated at the communicator's first collective (ring_start): most
     * communicators of a large job (one per node, per pipeline stage) have
     * none in a pass, and fresh memory is first touched at a page fault */
    st->comm_bytes += cost;
    /* the prefix pass's start and end times only while they fit: without
     * them the communicator gives no clock offsets, nothing else changes */
    if (st->mode == AN_MODE_PREFIX &&
        st->comm_bytes + times_bytes(c->cap, nranks) <= AN_COMM_BUDGET) {
        c->want_times = 1;
        st->comm_bytes += times_bytes(c->cap, nranks);
    }
    for (i = 0; i < nranks; i++)
        c->member_file[i] = -1;
    c->index = (uint32_t)st->ncomms;
    cp_slots_put(&st->comm_slots, hash64(id), st->ncomms);
    st->comms[st->ncomms++] = c;
    return c;
oom:
    st->oom = 1;
    return NULL;
}

struct an_slot_table *an_comm_slot(struct an_comm *c, unsigned slot)
{
    if (!c->slots[slot])
        c->slots[slot] = calloc(1, sizeof *c->slots[slot]);
    return c->slots[slot];
}

/* ---- aggregation ---------------------------------------------------------- */

/* The sums of tag `tag` in bucket b, added when new; NULL when memory ran
 * out.  A bucket holds few tags: most runs have a handful. */
static struct an_tag_sum *tag_sum(struct an_bucket *b, unsigned tag)
{
    struct an_tag_sum *ts;
    uint32_t k;

    for (k = 0; k < b->ntags; k++)
        if (b->tags[k].tag == tag)
            return &b->tags[k];
    if (b->ntags == b->captags) {
        uint32_t cap = b->captags ? b->captags * 2 : 4;
        struct an_tag_sum *bigger = realloc(b->tags, cap * sizeof *bigger);
        if (!bigger)
            return NULL;
        b->tags = bigger;
        b->captags = cap;
    }
    ts = &b->tags[b->ntags++];
    memset(ts, 0, sizeof *ts);
    ts->tag = (uint16_t)tag;
    return ts;
}

/* own: the instance's own time; share: 1/k for one of k calls of a group
 * (their interval is counted once per group in the time accounting, while
 * each ran for all of it); tag: the plugin's tag index, 0 none. */
static void account(struct an_state *st, struct an_comm *c, unsigned slot,
                    double n, double own, double share, double skew,
                    int grouped, int incomplete, unsigned info, unsigned tag)
{
    struct an_slot_table *t = c->slots[slot];
    struct an_bucket *b;
    unsigned idx;

    if (__builtin_expect(!t, 0)) {
        t = an_comm_slot(c, slot);
        if (!t) {
            st->oom = 1;
            return;
        }
    }
    idx = an_bucket_index(n);
    b = t->b[idx];
    if (__builtin_expect(!b, 0)) {
        b = t->b[idx] = calloc(1, sizeof *b);
        if (!b) {
            st->oom = 1;
            return;
        }
    }
    if (b->count == 0 || n < b->n_min)
        b->n_min = n;
    if (n > b->n_max)
        b->n_max = n;
    t->count++;
    b->count++;
    b->grouped += (unsigned)grouped;
    b->incomplete += (unsigned)incomplete;
    b->algo[AN_INFO_ALGO(info)]++;
    b->proto[AN_INFO_PROTO(info)]++;
    b->bytes += n;
    b->time += own * share;
    b->duration += own;
    b->skew += skew;
    if (cp_sketch_add(&b->t, own) < 0 ||
        (!grouped && cp_sketch_add(&c->skew, skew) < 0) ||
        (!grouped && !incomplete && skew <= AN_CLEAN_SKEW * own &&
         cp_sketch_add(&b->tw, own) < 0))
        st->oom = 1;
    if (__builtin_expect(tag != 0, 0)) {
        struct an_tag_sum *ts = tag_sum(b, tag);
        if (!ts) {
            st->oom = 1;
            return;
        }
        ts->count++;
        ts->bytes += n;
        ts->time += own * share;
        ts->duration += own;
    }
}

/* ---- the time series ------------------------------------------------------ */

/* The key of (comm, slot, p, row, link) in d, appended when new: past
 * three quarters of the keys under AN_WKEY_ANY; NULL when none is left. */
static struct an_wkey *wdetail_key(struct an_wdetail *d, uint32_t comm,
                                   uint32_t p, unsigned slot, unsigned row,
                                   unsigned link)
{
    unsigned i, pass;

    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < d->nkeys; i++) {
            struct an_wkey *k = &d->k[i];
            if (k->comm == comm && k->slot == slot && k->row == row &&
                k->p == p && (comm != AN_WKEY_ANY || k->link == link))
                return k;
        }
        if (comm == AN_WKEY_ANY || d->nkeys < AN_WINDOW_KEYS * 3 / 4)
            break;
        comm = AN_WKEY_ANY;
    }
    if (d->nkeys == AN_WINDOW_KEYS)
        return NULL;
    d->k[d->nkeys] = (struct an_wkey){.comm = comm, .p = p,
                                      .slot = (uint8_t)slot,
                                      .link = (uint8_t)link,
                                      .row = (uint8_t)row};
    return &d->k[d->nkeys++];
}

void an_wdetail_merge(struct an_wdetail *dst, const struct an_wdetail *src)
{
    unsigned i;

    dst->lost_calls += src->lost_calls;
    dst->lost_time += src->lost_time;
    for (i = 0; i < src->nkeys; i++) {
        const struct an_wkey *s = &src->k[i];
        struct an_wkey *k =
            wdetail_key(dst, s->comm, s->p, s->slot, s->row, s->link);
        if (!k) {
            dst->lost_calls += s->calls;
            dst->lost_time += s->time;
            continue;
        }
        k->calls += s->calls;
        k->jcalls += s->jcalls;
        k->time += s->time;
        k->bytes += s->bytes;
        k->jown += s->jown;
        k->jbytes += s->jbytes;
    }
    for (i = 0; i < AN_WINDOW_LATE; i++)
        if (src->late[i].count)
            an_wlate_add(dst->late, src->late[i].file, src->late[i].count,
                      src->late[i].late);
}

static void wdetail_add(struct an_wdetail *d, const struct an_wcall *c)
{
    unsigned b = an_bucket_index(c->n);
    unsigned row = b == 0 ? 0 : 1 + ((b - 1) >> AN_SUB_BITS);
    struct an_wkey *k = wdetail_key(d, c->comm, c->p, c->slot, row, c->link);

    if (c->last_file >= 0)
        an_wlate_add(d->late, c->last_file, 1, c->late);
    if (!k) {
        d->lost_calls++;
        d->lost_time += c->own * c->share;
        return;
    }
    k->calls++;
    k->time += c->own * c->share;
    k->bytes += c->n;
    if (c->judged) {
        k->jcalls++;
        k->jown += c->own;
        k->jbytes += c->n;
    }
}

/* Double the width: windows 2i and 2i + 1 become window i. */
static void timeline_double(struct an_timeline *tl)
{
    unsigned i, k, n = (tl->used + 1) / 2;

    for (i = 0; i < n; i++) {
        struct an_window m = tl->w[2 * i];
        if (2 * i + 1 < tl->used) {
            const struct an_window *o = &tl->w[2 * i + 1];
            m.time += o->time;
            for (k = 0; k < CP_COLL_COUNT; k++)
                m.op_time[k] += o->op_time[k];
            m.wait += o->wait;
            m.bytes += o->bytes;
            m.calls += o->calls;
        }
        tl->w[i] = m;
        if (i != 0)
            tl->d[i] = tl->d[2 * i];
        if (2 * i + 1 < tl->used)
            an_wdetail_merge(&tl->d[i], &tl->d[2 * i + 1]);
    }
    memset(&tl->w[n], 0, (AN_WINDOWS - n) * sizeof tl->w[0]);
    memset(&tl->d[n], 0, (AN_WINDOWS - n) * sizeof tl->d[0]);
    tl->used = n;
    tl->shift++;
}

void an_timeline_cover(struct an_timeline *tl, int64_t lo, int64_t hi)
{
    if (!tl->started) {
        tl->started = 1;
        tl->origin = lo;
        tl->shift = AN_WINDOW_SHIFT_MIN;
    }
    for (;;) {
        uint64_t w = UINT64_C(1) << tl->shift, need = 0, top = tl->used;
        /* differences as unsigned: two plausible times are less than 2^64
         * ns apart whatever their order */
        if (lo < tl->origin) {
            uint64_t d = (uint64_t)tl->origin - (uint64_t)lo;
            need = (d >> tl->shift) + ((d & (w - 1)) != 0);
        }
        if (hi >= tl->origin) {
            uint64_t t = ((uint64_t)hi - (uint64_t)tl->origin) >> tl->shift;
            if (t + 1 > top)
                top = t + 1;
        }
        if (need + top <= AN_WINDOWS) {
            if (need) { /* room on the right: move the windows along */
                memmove(&tl->w[need], &tl->w[0], tl->used * sizeof tl->w[0]);
                memset(&tl->w[0], 0, need * sizeof tl->w[0]);
                memmove(&tl->d[need], &tl->d[0], tl->used * sizeof tl->d[0]);
                memset(&tl->d[0], 0, need * sizeof tl->d[0]);
                tl->used += (unsigned)need;
                tl->origin = (int64_t)((uint64_t)tl->origin - (need << tl->shift));
            }
            return;
        }
        timeline_double(tl);
    }
}

/* An instance or pair: its own interval [a, b] holds time (own time x
 * share), split between the windows it overlaps in proportion; the call,
 * its bytes and its waiting count in the window of its end b; its details
 * (an_wdetail) in the window of its start a, where a slowdown shows first. */
static inline void timeline_add(struct an_timeline *tl, int64_t a, int64_t b,
                                double time, unsigned coll, double wait,
                                double bytes, const struct an_wcall *detail)
{
    struct an_window *w;
    uint64_t ia, ib;

    if (b < a)
        a = b;
    if (__builtin_expect(!tl->started || a < tl->origin ||
                             (((uint64_t)b - (uint64_t)tl->origin) >>
                              tl->shift) >= AN_WINDOWS,
                         0))
        an_timeline_cover(tl, a, b);
    ia = ((uint64_t)a - (uint64_t)tl->origin) >> tl->shift;
    ib = ((uint64_t)b - (uint64_t)tl->origin) >> tl->shift;
    w = &tl->w[ib];
    if (__builtin_expect(ia == ib, 1)) {
        w->time += time;
        w->op_time[coll] += time;
    } else {
        double per_ns = time / (double)(b - a);
        uint64_t i;
        for (i = ia; i <= ib; i++) {
            int64_t ws = tl->origin + (int64_t)(i << tl->shift);
            int64_t we = ws + (int64_t)(UINT64_C(1) << tl->shift);
            double part = (double)((b < we ? b : we) - (a > ws ? a : ws)) *
                          per_ns;
            tl->w[i].time += part;
            tl->w[i].op_time[coll] += part;
        }
    }
    w->calls++;
    w->bytes += bytes;
    w->wait += wait;
    wdetail_add(&tl->d[ia], detail);
    if (ib + 1 > tl->used)
        tl->used = (unsigned)ib + 1;
}

/* ---- pairs of nodes (prefix pass) -------------------------------------------- */

static uint32_t pair_slot(const struct an_state *st, unsigned x, unsigned r)
{
    return hash64(((uint64_t)x << 32) | r) & (uint32_t)(st->pair_hash_cap - 1);
}

/* The pair stored as (x, r), NULL when none. */
static struct an_offset_pair *pair_find(struct an_state *st, unsigned x,
                                        unsigned r)
{
    uint32_t k = pair_slot(st, x, r);

    for (; st->pair_hash[k]; k = (k + 1) & (uint32_t)(st->pair_hash_cap - 1)) {
        struct an_offset_pair *p = &st->pairs[st->pair_hash[k] - 1];
        if (p->x == x && p->r == r)
            return p;
    }
    return NULL;
}

/* A new pair (x, r) with no bounds and no samples, at the end of the
 * list; NULL when the list is full or memory ran out. */
static struct an_offset_pair *pair_new(struct an_state *st, unsigned x,
                                       unsigned r)
{
    struct an_offset_pair *p;
    uint32_t k;

    if (st->npairs >= pairs_max(st))
        return NULL;
    if (st->npairs == st->cappairs) {
        size_t cap = st->cappairs ? st->cappairs * 2 : 16;
        struct an_offset_pair *bigger = realloc(st->pairs, cap * sizeof *bigger);
        if (!bigger)
            return NULL;
        st->pairs = bigger;
        st->cappairs = cap;
    }
    p = &st->pairs[st->npairs++];
    memset(p, 0, sizeof *p);
    p->x = x;
    p->r = r;
    p->lo_ns = INT64_MIN;
    p->hi_ns = INT64_MAX;
    for (k = pair_slot(st, x, r); st->pair_hash[k];
         k = (k + 1) & (uint32_t)(st->pair_hash_cap - 1))
        ;
    st->pair_hash[k] = (uint32_t)st->npairs;
    return p;
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* Prefix pass: per-node mean end of a complete symmetric instance, minus
 * the mean end of the lowest node in it; and the causal bounds: each
 * member's result needs every member's input, so on true time every end
 * follows every start, and offset(x) - offset(ref) <= min end on x - max
 * start on ref, >= max start on x - min end on ref. */
static void note_offsets(struct an_state *st, struct an_comm *c,
                         const struct an_inst *in, const int64_t *ends,
                         const int64_t *starts)
{
    unsigned r, x, ref = UINT32_MAX, touched = 0;
    size_t k;

    if (in->grouped || in->members != c->nranks || c->nranks < 2)
        return;
    if (!cp_model_coll_facts(an_slot_coll(in->coll)) ||
        !cp_model_coll_facts(an_slot_coll(in->coll))->symmetric)
        return;
    for (r = 0; r < c->nranks; r++) {
        int32_t f = c->member_file[r];
        if (f < 0)
            return;
        x = st->files[f].node;
        if (!st->node_cnt[x]) {
            st->touched[touched++] = x;
            st->node_min_end[x] = ends[r];
            st->node_max_start[x] = starts[r];
        }
        if (ends[r] < st->node_min_end[x])
            st->node_min_end[x] = ends[r];
        if (starts[r] > st->node_max_start[x])
            st->node_max_start[x] = starts[r];
        st->node_sum[x] += (double)(ends[r] - in->first_start);
        st->node_cnt[x]++;
        if (x < ref)
            ref = x;
    }
    if (touched >= 2) {
        double mref = st->node_sum[ref] / st->node_cnt[ref];
        st->offset_instances++;
        /* the instance's nodes in ascending order (the order pairs are
         * made in): a cost per member, not per node of the job */
        qsort(st->touched, touched, sizeof *st->touched, cmp_unsigned);
        for (k = 0; k < touched; k++) {
            struct an_offset_pair *p;
            x = st->touched[k];
            if (x == ref)
                continue;
            p = pair_find(st, x, ref);
            if (!p && st->npairs < pairs_max(st)) {
                p = pair_new(st, x, ref);
                if (!p)
                    break;
            }
            if (!p)
                continue;
            {
                int64_t hi = st->node_min_end[x] - st->node_max_start[ref];
                int64_t lo = st->node_max_start[x] - st->node_min_end[ref];
                if (hi < p->hi_ns)
                    p->hi_ns = hi;
                if (lo > p->lo_ns)
                    p->lo_ns = lo;
            }
            if (p->n >= PAIR_SAMPLES_MAX)
                continue;
            if (p->n == p->cap) {
                size_t cap = p->cap ? p->cap * 2 : 64;
                double *bigger = realloc(p->v, cap * sizeof *bigger);
                if (!bigger)
                    continue;
                p->v = bigger;
                p->cap = cap;
            }
            p->v[p->n++] = st->node_sum[x] / st->node_cnt[x] - mref;
        }
    }
    for (r = 0; r < c->nranks; r++) {
        x = st->files[c->member_file[r]].node;
        st->node_sum[x] = 0;
        st->node_cnt[x] = 0;
    }
}

/* Add [a, b] to the union of busy intervals. */
static void busy_add(struct an_busy *u, int64_t a, int64_t b)
{
    unsigned i, j;

    if (b <= a)
        return;
    /* the first interval that ends at or after a */
    for (i = 0; i < u->n && u->b[i] < a; i++)
        ;
    /* merge with every interval that starts at or before b */
    for (j = i; j < u->n && u->a[j] <= b; j++) {
        if (u->a[j] < a)
            a = u->a[j];
        if (u->b[j] > b)
            b = u->b[j];
    }
    if (j > i) { /* replace [i, j) by one */
        memmove(&u->a[i + 1], &u->a[j], (u->n - j) * sizeof u->a[0]);
        memmove(&u->b[i + 1], &u->b[j], (u->n - j) * sizeof u->b[0]);
        u->n -= j - i - 1;
    } else {
        if (u->n == AN_BUSY_INTERVALS) { /* flush the earliest */
            u->total_ns += (double)(u->b[0] - u->a[0]);
            memmove(&u->a[0], &u->a[1], (u->n - 1) * sizeof u->a[0]);
            memmove(&u->b[0], &u->b[1], (u->n - 1) * sizeof u->b[0]);
            u->n--;
            if (i > 0)
                i--;
        }
        memmove(&u->a[i + 1], &u->a[i], (u->n - i) * sizeof u->a[0]);
        memmove(&u->b[i + 1], &u->b[i], (u->n - i) * sizeof u->b[0]);
        u->n++;
    }
    u->a[i] = a;
    u->b[i] = b;
}

double an_busy_total_s(const struct an_busy *u)
{
    double t = u->total_ns;
    unsigned i;

    for (i = 0; i < u->n; i++)
        t += (double)(u->b[i] - u->a[i]);
    return t * 1e-9;
}

/* Keep the instance if it is among the AN_TOP largest keys so far. */
static void top_offer(struct an_top *t, double key, uint32_t comm,
                      const struct an_inst *in)
{
    size_t i, child;
    struct an_top_entry e;

    if (t->n == AN_TOP && key <= t->e[0].key)
        return;
    e.key = key;
    e.comm = comm;
    e.in = *in;
    if (t->n < AN_TOP) { /* sift up */
        i = t->n++;
        while (i > 0 && t->e[(i - 1) / 2].key > key) {
            t->e[i] = t->e[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        t->e[i] = e;
        return;
    }
    i = 0; /* replace the minimum, sift down */
    for (;;) {
        child = 2 * i + 1;
        if (child >= t->n)
            break;
        if (child + 1 < t->n && t->e[child + 1].key < t->e[child].key)
            child++;
        if (t->e[child].key >= key)
            break;
        t->e[i] = t->e[child];
        i = child;
    }
    t->e[i] = e;
}

/* The link class of c's members seen so far (see an_comm.wlink). */
static unsigned comm_link(const struct an_state *st, struct an_comm *c,
                          int complete)
{
    unsigned r, first = UINT_MAX;

    if (c->wlink_final)
        return c->wlink;
    c->wlink = CP_LINK_INTRA;
    for (r = 0; r < c->nranks; r++) {
        int32_t f = c->member_file[r];
        if (f < 0)
            continue;
        if (first == UINT_MAX) {
            first = st->files[f].node;
        } else if (st->files[f].node != first) {
            c->wlink = CP_LINK_INTER;
            break;
        }
    }
    c->wlink_final = complete || c->wlink == CP_LINK_INTER ||
                     ++c->wlink_looks >= 16;
    return c->wlink;
}

/* Close an instance: its own time and skew go to the aggregates. */
static void finalize(struct an_state *st, struct an_comm *c,
                     struct an_inst *in)
{
    double n = in->n, own, skew, wait;
    unsigned m = in->members;
    int incomplete = m < c->nranks;

    if (in->first_start < st->t_first)
        st->t_first = in->first_start;
    if (in->max_end > st->t_last)
        st->t_last = in->max_end;
    own = in->max_end > in->last_start
              ? (double)(in->max_end - in->last_start) * 1e-9
              : 0;
    skew = (double)(in->last_start - in->first_start) * 1e-9;
    wait = ((double)m * (double)(in->last_start - in->first_start) -
            in->sum_start) *
           1e-9;
    /* an instance a capture policy's trigger kept on some members only
     * (outside the rule's windows) misses no member's record: not
     * counted incomplete, not judged */
    int partial = incomplete && st->longrun &&
                  !an_longrun_rule_keeps(st->longrun, in->seq);

    st->instances++;
    st->incomplete += (unsigned)(incomplete && !partial);
    if (st->longrun) {
        /* judged for arrivals: complete, two members or more (with one,
         * second_start is still unset) */
        int judged = m >= 2 && in->last_file >= 0 && !incomplete;
        an_longrun_instance(
            st->longrun,
            &(struct an_lr_inst){
                .seq = in->seq,
                .comm = c->index,
                .slot = in->coll,
                .members = m,
                .start = in->first_start,
                .end = in->max_end,
                .last_file = judged ? in->last_file : -1,
                .late_s = judged ? (double)(in->last_start -
                                            in->second_start) * 1e-9
                                 : 0,
                .time_s = own * in->share + skew,
                .own_s = !in->grouped && !incomplete && m >= 2 ? own : NAN,
                .n = n});
    }
    st->comm_time += own * in->share;
    if (st->mode == AN_MODE_MAIN)
        busy_add(&st->busy, in->first_start, in->max_end);
    st->skew_time += skew;
    st->wait_time += wait;
    c->instances++;
    c->incomplete += (unsigned)(incomplete && !partial);
    c->time += own * in->share;
    if (m >= 2 && in->last_file >= 0 && !incomplete) {
        st->ranks[in->last_file].last_arrivals++;
        st->ranks[in->last_file].late +=
            (double)(in->last_start - in->second_start) * 1e-9;
    }
    account(st, c, in->coll, n, own, in->share, skew, in->grouped,
            incomplete, in->info, in->tag);
    if (st->top_own && !in->grouped && m >= 2) {
        top_offer(st->top_own, own, c->index, in);
        top_offer(st->top_skew, skew, c->index, in);
    }
    if (st->timeline) {
        struct an_wcall d = {
            .comm = c->index, .p = c->nranks, .slot = in->coll,
            .link = comm_link(st, c, !incomplete), .n = n, .own = own,
            .share = in->share, .judged = !in->grouped && !incomplete,
            .last_file = -1};
        if (m >= 2 && in->last_file >= 0 && !incomplete) {
            d.last_file = in->last_file;
            d.late = (double)(in->last_start - in->second_start) * 1e-9;
        }
        timeline_add(st->timeline, in->last_start, in->max_end,
                     own * in->share, in->coll, wait, n, &d);
    }
    if (st->mode != AN_MODE_MAIN && c->ends)
        note_offsets(st, c, in,
                     c->ends + (size_t)(in->seq & (c->cap - 1)) * c->nranks,
                     c->starts + (size_t)(in->seq & (c->cap - 1)) * c->nranks);
}

/* ---- the ring of pending instances ------------------------------------------ */

static void evict_until(struct an_state *st, struct an_comm *c, uint64_t lo)
{
    uint64_t q, stop = lo < c->hi ? lo : c->hi;

    for (q = c->lo; q < stop; q++) {
        struct an_inst *in = &c->ring[q & (c->cap - 1)];
        if (in->state == AN_PENDING)
            finalize(st, c, in);
        in->state = AN_EMPTY;
    }
    c->lo = lo;
    if (c->hi < lo)
        c->hi = lo;
}

static int ring_grow(struct an_state *st, struct an_comm *c)
{
    uint32_t cap = c->cap * 2;
    struct an_inst *ring;
    size_t old_bytes = times_bytes(c->cap, c->nranks),
           new_bytes = times_bytes(cap, c->nranks);
    int64_t *ends = NULL, *starts = NULL;
    uint64_t q;

    /* the ring of a communicator grows within the budget too: a damaged
     * sequence number far ahead evicts instead */
    if (st->comm_bytes + (size_t)c->cap * sizeof *ring > AN_COMM_BUDGET)
        return -2;
    ring = ring_alloc(cap);
    if (!ring)
        return -1;
    st->comm_bytes += (size_t)c->cap * sizeof *ring;
    /* the start and end times grow within the budget, or are given up */
    if (c->ends && st->comm_bytes - old_bytes + new_bytes <= AN_COMM_BUDGET) {
        ends = calloc((size_t)cap * c->nranks, sizeof *ends);
        starts = calloc((size_t)cap * c->nranks, sizeof *starts);
        if (!ends || !starts) {
            free(ends);
            free(starts);
            ends = starts = NULL;
        }
    }
    for (q = c->lo; q < c->hi; q++) {
        ring[q & (cap - 1)] = c->ring[q & (c->cap - 1)];
        if (ends) {
            memcpy(ends + (size_t)(q & (cap - 1)) * c->nranks,
                   c->ends + (size_t)(q & (c->cap - 1)) * c->nranks,
                   c->nranks * sizeof *ends);
            memcpy(starts + (size_t)(q & (cap - 1)) * c->nranks,
                   c->starts + (size_t)(q & (c->cap - 1)) * c->nranks,
                   c->nranks * sizeof *starts);
        }
    }
    if (c->ends)
        st->comm_bytes -= old_bytes;
    if (ends)
        st->comm_bytes += new_bytes;
    free(c->ring);
    free(c->ends);
    free(c->starts);
    c->ring = ring;
    c->ends = ends;
    c->starts = starts;
    c->cap = cap;
    return 0;
}

static void advance_lo(struct an_comm *c)
{
    while (c->lo < c->hi) {
        struct an_inst *in = &c->ring[c->lo & (c->cap - 1)];
        if (in->state != AN_DONE)
            break;
        in->state = AN_EMPTY;
        c->lo++;
    }
}

/* The ring of c (RING_INIT instances) and, when they fit (charged at
 * comm_get), the prefix pass's start and end times, at its first
 * collective.  -1 when memory ran out (noted). */
static int ring_start(struct an_state *st, struct an_comm *c)
{
    c->ring = ring_alloc(c->cap);
    if (!c->ring) {
        st->oom = 1;
        return -1;
    }
    if (c->want_times) {
        c->ends = calloc((size_t)c->cap * c->nranks, sizeof *c->ends);
        c->starts = calloc((size_t)c->cap * c->nranks, sizeof *c->starts);
        if (!c->ends || !c->starts) {
            /* without them the communicator gives no clock offsets */
            free(c->ends);
            free(c->starts);
            c->ends = c->starts = NULL;
            st->comm_bytes -= times_bytes(c->cap, c->nranks);
        }
    }
    return 0;
}

/* A seq outside the ring's window [lo, lo + cap): a communicator's first
 * call, a late member, or one that needs the ring grown or the oldest
 * instances evicted.  Returns 0 when the member is to be joined. */
static __attribute__((noinline)) int join_window(struct an_state *st,
                                                 struct an_comm *c, uint64_t s)
{
    if (!c->started) {
        if (ring_start(st, c) < 0)
            return -1;
        c->started = 1;
        c->lo = c->hi = s;
        return 0;
    }
    if (s < c->lo) {
        c->late++;
        st->late++;
        return -1;
    }
    if (s > c->hi + SEQ_JUMP_MAX) {
        c->inconsistent++;
        st->unjoinable++;
        return -1;
    }
    while (s >= c->lo + c->cap && c->cap < st->ring_max) {
        int grown = ring_grow(st, c);
        if (grown == -1)
            st->oom = 1;
        if (grown < 0)
            break;
    }
    if (s >= c->lo + c->cap)
        evict_until(st, c, s - c->cap + 1);
    return 0;
}

/* A member of collective instance (c, seq) arrived.  Inlined into the hot
 * loop; join_collective() is the same for the other callers. */
static inline __attribute__((always_inline)) void
join_collective_inline(struct an_state *st, struct an_comm *c, int32_t file,
                       uint32_t seq, uint32_t rank, unsigned coll,
                       uint64_t count, unsigned dtype, int grouped, float share,
                       int64_t start, int64_t end, unsigned info,
                       unsigned tag)
{
    uint64_t s = seq;
    struct an_inst *in;

    /* one unsigned compare for "not started", "below lo" and "beyond the
     * ring" (a communicator not started has lo = 0, cap > 0: a seq beyond
     * cap goes to the slow path, which starts it; one below cap would be
     * joined before it starts, so started is checked there too) */
    if (__builtin_expect(s - c->lo >= c->cap || !c->started, 0) &&
        join_window(st, c, s) < 0)
        return;
    in = &c->ring[s & (c->cap - 1)];
    if (__builtin_expect(in->state != AN_PENDING, 0)) {
        double n;
        if (in->state == AN_DONE) { /* a second member for the same rank */
            c->late++;
            st->late++;
            return;
        }
        n = cp_model_bytes_from_count((enum cp_coll)coll, count,
                                      cp_dtype_size(dtype), c->nranks);
        in->seq = seq;
        in->state = AN_PENDING;
        /* the slot: a copy-engine collective is a kind of its own */
        in->coll = (uint8_t)an_slot_of(coll, (info & AN_INFO_CE) != 0);
        in->grouped = (uint8_t)grouped;
        in->members = 0;
        in->share = share;
        in->n = n >= 0 ? (float)n : 0;
        in->first_start = start;
        in->last_start = INT64_MIN;
        in->second_start = INT64_MIN;
        in->max_end = INT64_MIN;
        in->sum_start = 0;
        in->last_file = -1;
        in->info = 0;
        in->tag = 0;
    }
    if (info && !in->info)
        in->info = (uint8_t)info;
    if (__builtin_expect(tag && !in->tag, 0))
        in->tag = (uint16_t)tag;
    if (start > in->last_start) {
        in->second_start = in->last_start;
        in->last_start = start;
        in->last_file = file;
    } else if (start > in->second_start) {
        in->second_start = start;
    }
    if (__builtin_expect(start < in->first_start, 0)) {
        in->sum_start += (double)in->members * (double)(in->first_start - start);
        in->first_start = start;
    }
    in->sum_start += (double)(start - in->first_start);
    if (end > in->max_end)
        in->max_end = end;
    in->members++;
    if (__builtin_expect(c->ends != NULL, 0)) {
        c->ends[(size_t)(s & (c->cap - 1)) * c->nranks + rank] = end;
        c->starts[(size_t)(s & (c->cap - 1)) * c->nranks + rank] = start;
    }
    if (s >= c->hi)
        c->hi = s + 1;
    if (in->members >= c->nranks) {
        finalize(st, c, in);
        in->state = AN_DONE;
        advance_lo(c);
    }
}

static __attribute__((noinline)) void
join_collective(struct an_state *st, struct an_comm *c, int32_t file,
                uint32_t seq, uint32_t rank, unsigned coll, uint64_t count,
                unsigned dtype, int grouped, float share, int64_t start,
                int64_t end, unsigned info, unsigned tag)
{
    join_collective_inline(st, c, file, seq, rank, coll, count, dtype, grouped,
                           share, start, end, info, tag);
}

/* ---- point-to-point ------------------------------------------------------------- */

static uint32_t p2p_hash(uint32_t comm, uint32_t src, uint32_t dst,
                         uint32_t seq)
{
    return hash64(((uint64_t)comm << 40) ^ ((uint64_t)src << 20) ^ dst ^
                  ((uint64_t)seq << 24) * 0x9e3779b97f4a7c15ull);
}

static int p2p_grow(struct an_state *st)
{
    uint32_t cap = st->p2p_cap ? st->p2p_cap * 2 : 256, i;
    struct an_p2p *pool = realloc(st->p2p, cap * sizeof *pool);
    uint32_t *heads;

    if (!pool)
        return -1;
    st->p2p = pool;
    heads = malloc(cap * sizeof *heads);
    if (!heads)
        return -1;
    for (i = 0; i < cap; i++)
        heads[i] = NONE32;
    for (i = st->p2p_cap; i < cap; i++) {
        pool[i].in_use = 0;
        pool[i].next = i + 1 < cap ? i + 1 : st->p2p_free;
    }
    if (st->p2p_cap == 0)
        pool[cap - 1].next = NONE32;
    st->p2p_free = st->p2p_cap;
    for (i = 0; i < st->p2p_cap; i++)
        if (pool[i].in_use) {
            uint32_t h = p2p_hash(pool[i].comm, pool[i].src, pool[i].dst,
                                  pool[i].seq) &
                         (cap - 1);
            pool[i].next = heads[h];
            heads[h] = i;
        }
    free(st->p2p_heads);
    st->p2p_heads = heads;
    st->p2p_cap = cap;
    return 0;
}

static void p2p_remove(struct an_state *st, uint32_t i)
{
    struct an_p2p *e = &st->p2p[i];
    uint32_t h = p2p_hash(e->comm, e->src, e->dst, e->seq) & (st->p2p_cap - 1);
    uint32_t *link = &st->p2p_heads[h];

    while (*link != NONE32 && *link != i)
        link = &st->p2p[*link].next;
    if (*link == i)
        *link = e->next;
    if (e->fifo_prev != NONE32)
        st->p2p[e->fifo_prev].fifo_next = e->fifo_next;
    else
        st->fifo_head = e->fifo_next;
    if (e->fifo_next != NONE32)
        st->p2p[e->fifo_next].fifo_prev = e->fifo_prev;
    else
        st->fifo_tail = e->fifo_prev;
    e->in_use = 0;
    e->next = st->p2p_free;
    st->p2p_free = i;
    st->p2p_used--;
}

/* Prefix pass: offset(x) - offset(r) <= hi (INT64_MAX: no bound) and >=
 * lo (INT64_MIN: none), merged into the pair of x and r. */
static void offset_bound(struct an_state *st, unsigned x, unsigned r,
                         int64_t lo, int64_t hi)
{
    struct an_offset_pair *same = pair_find(st, x, r),
                          *other = pair_find(st, r, x), *p;

    /* the first made of the two orders, as stored */
    if (other && (!same || other < same)) {
        int64_t t = lo == INT64_MIN ? INT64_MAX : -lo;
        lo = hi == INT64_MAX ? INT64_MIN : -hi;
        hi = t;
        p = other;
    } else {
        p = same ? same : pair_new(st, x, r);
    }
    if (!p)
        return;
    if (hi < p->hi_ns)
        p->hi_ns = hi;
    if (lo > p->lo_ns)
        p->lo_ns = lo;
}

static void p2p_finalize(struct an_state *st, struct an_p2p *e)
{
    struct an_comm *c = st->comms[e->comm];
    double n = (double)cp_call_bytes(e->count, e->dtype), own, skew;
    int32_t fs = e->file[0], fr = e->file[1];
    unsigned slot;

    if (e->have != 3) {
        st->unmatched++;
        return;
    }
    /* a receive completes after its send began, whatever the protocol */
    if (st->mode != AN_MODE_MAIN &&
        st->files[fs].node != st->files[fr].node)
        offset_bound(st, st->files[fr].node, st->files[fs].node, INT64_MIN,
                     e->end[1] - e->start[0]);
    if (e->start[0] < st->t_first)
        st->t_first = e->start[0];
    if (e->start[1] < st->t_first)
        st->t_first = e->start[1];
    if (e->end[0] > st->t_last)
        st->t_last = e->end[0];
    if (e->end[1] > st->t_last)
        st->t_last = e->end[1];
    own = (double)((e->end[0] > e->end[1] ? e->end[0] : e->end[1]) -
                   (e->start[0] > e->start[1] ? e->start[0] : e->start[1])) *
          1e-9;
    /* a receiver that came only after its send had completed (eager)
     * found the data there: the transfer's time is the send's own */
    if (e->start[1] >= e->end[0])
        own = (double)(e->end[0] - e->start[0]) * 1e-9;
    if (own < 0)
        own = 0;
    skew = (double)(e->start[0] > e->start[1] ? e->start[0] - e->start[1]
                                              : e->start[1] - e->start[0]) *
           1e-9;
    slot = st->files[fs].node == st->files[fr].node ? AN_SLOT_P2P_INTRA
                                                    : CP_COLL_SENDRECV;
    if (st->links && slot == CP_COLL_SENDRECV) {
        /* the link's time, where the records show it: the send's own
         * duration (one clock), when its receiver was already waiting or
         * came only after it completed (an eager transfer ran alone).  A
         * receiver that came during the send saw the rest of an eager
         * transfer, or made a rendezvous send wait: that pair is left out.
         * An exchange (both groups a send to and a receive from the other
         * rank only) ends after the later rank's own send, which began at
         * its arrival: from the later arrival to the later end is at least
         * one whole transfer, and no more than the two running at once
         * (counted once, from the lower node's half) */
        int exch = e->grouped == AN_EXCHANGE_BOTH;
        double wire = exch ? (st->files[fs].node < st->files[fr].node ? own
                                                                       : -1)
                      : e->start[1] <= e->start[0] || e->start[1] >= e->end[0]
                          ? (double)(e->end[0] - e->start[0]) * 1e-9
                          : -1;
        if (wire >= 0 &&
            cp_links_add_p2p(st->links, e->comm, st->files[fs].node,
                             st->files[fr].node, n, wire,
                             exch || (e->share >= 1 && e->share2 >= 1),
                             exch) < 0)
            st->oom = 1;
    }
    st->p2p_pairs++;
    if (st->mode == AN_MODE_MAIN)
        busy_add(&st->busy, e->start[0] < e->start[1] ? e->start[0] : e->start[1],
                 e->end[0] > e->end[1] ? e->end[0] : e->end[1]);
    st->comm_time += own * e->share;
    st->skew_time += skew;
    st->wait_time += skew;
    c->p2p++;
    c->time += own * e->share;
    account(st, c, slot, n, own, e->share, skew, e->grouped != 0, 0, 0,
            e->tag);
    if (st->timeline) {
        struct an_wcall d = {
            .comm = c->index, .p = 2, .slot = slot,
            .link = slot == AN_SLOT_P2P_INTRA ? CP_LINK_INTRA : CP_LINK_INTER,
            .n = n, .own = own, .share = e->share,
            .judged = !e->grouped, .last_file = -1};
        timeline_add(st->timeline,
                     e->start[0] > e->start[1] ? e->start[0] : e->start[1],
                     e->end[0] > e->end[1] ? e->end[0] : e->end[1],
                     own * e->share, CP_COLL_SENDRECV, skew, n, &d);
    }
}

static void join_p2p(struct an_state *st, struct an_comm *c, int32_t file,
                     const struct an_call *call)
{
    int side = call->op == CP_OP_Recv;
    uint32_t src, dst, h, i, ci;
    struct an_p2p *e;

    if (call->peer < 0 || (uint32_t)call->peer >= c->nranks) {
        st->unjoinable++;
        return;
    }
    src = side ? (uint32_t)call->peer : call->rank;
    dst = side ? call->rank : (uint32_t)call->peer;
    ci = c->index;
    if (st->p2p_cap) {
        h = p2p_hash(ci, src, dst, call->seq) & (st->p2p_cap - 1);
        for (i = st->p2p_heads[h]; i != NONE32; i = st->p2p[i].next) {
            e = &st->p2p[i];
            if (e->comm == ci && e->src == src && e->dst == dst &&
                e->seq == call->seq) {
                if (e->have & (1u << side)) {
                    st->late++;
                    return;
                }
                e->have |= (uint8_t)(1u << side);
                if (e->grouped == AN_EXCHANGE && call->grouped == AN_EXCHANGE)
                    e->grouped = AN_EXCHANGE_BOTH;
                else if (side == 0)
                    e->grouped = call->grouped;
                if (side == 0) { /* the send came second: its share counts */
                    e->share2 = e->share;
                    e->share = call->share;
                } else {
                    e->share2 = call->share;
                }
                if (!e->tag)
                    e->tag = call->tag;
                e->start[side] = call->start;
                e->end[side] = call->end;
                e->file[side] = file;
                p2p_finalize(st, e);
                p2p_remove(st, i);
                return;
            }
        }
    }
    if (st->p2p_free == NONE32) {
        if (st->p2p_cap >= (1u << 22) || p2p_grow(st) < 0) {
            st->oom = st->p2p_cap < (1u << 22);
            st->unmatched++;
            return;
        }
    }
    i = st->p2p_free;
    e = &st->p2p[i];
    st->p2p_free = e->next;
    memset(e, 0, sizeof *e);
    e->in_use = 1;
    e->comm = ci;
    e->src = src;
    e->dst = dst;
    e->seq = call->seq;
    e->have = (uint8_t)(1u << side);
    e->grouped = call->grouped;
    e->dtype = call->dtype;
    e->tag = call->tag;
    e->share = call->share;
    e->count = call->count;
    e->start[side] = call->start;
    e->end[side] = call->end;
    e->file[side] = file;
    e->file[!side] = -1;
    h = p2p_hash(ci, src, dst, call->seq) & (st->p2p_cap - 1);
    e->next = st->p2p_heads[h];
    st->p2p_heads[h] = i;
    e->fifo_next = NONE32;
    e->fifo_prev = st->fifo_tail;
    if (st->fifo_tail != NONE32)
        st->p2p[st->fifo_tail].fifo_next = i;
    else
        st->fifo_head = i;
    st->fifo_tail = i;
    st->p2p_used++;
}

/* ---- records ------------------------------------------------------------------ */

static void dispatch(struct an_state *st, struct an_file *f,
                     const struct an_call *call)
{
    struct an_comm *c = f->last_comm;
    int32_t file = (int32_t)(f - st->files);
    int coll;

    if (!c || c->id != call->comm_id) {
        c = comm_get(st, call->comm_id, call->nranks, file);
        if (!c) {
            st->unjoinable++;
            return;
        }
        f->last_comm = c;
    }
    if (call->nranks != c->nranks || call->rank >= c->nranks) {
        c->inconsistent++;
        st->unjoinable++;
        return;
    }
    if (__builtin_expect(c->member_file[call->rank] < 0, 0))
        c->member_file[call->rank] = file;
    coll = op_coll[call->op];
    if (coll < 0) {
        st->unjoinable++;
        return;
    }
    if (coll == CP_COLL_SENDRECV)
        join_p2p(st, c, file, call);
    else
        join_collective(st, c, file, call->seq, call->rank, (unsigned)coll,
                        call->count, call->dtype, call->grouped, call->share,
                        call->start, call->end, call->info, call->tag);
}

static void note_file_problem(struct an_file *f, const char *what)
{
    size_t len = strlen(what);

    if (f->problem_noted)
        return;
    f->problem_noted = 1;
    f->problem_offset = (int64_t)cp_scan_offset(f->sc);
    if (len > AN_PROBLEM_MAX - 1)
        len = AN_PROBLEM_MAX - 1;
    f->problem = malloc(len + 1);
    if (f->problem) {
        memcpy(f->problem, what, len);
        f->problem[len] = '\0';
    } else {
        f->problem = problem_no_memory;
    }
}

/* The plugin's record of the call record just read from f (cp_ncjoin), or
 * NULL.  Records are read in slot order: the entries' cursor only moves
 * forward. */
static const struct cp_ncjoin_entry *join_entry(struct an_file *f)
{
    uint64_t slot = cp_scan_slots(f->sc) - 1;

    while (f->jpos < f->njn && f->jn[f->jpos].slot < slot)
        f->jpos++;
    return f->jpos < f->njn && f->jn[f->jpos].slot == slot ? &f->jn[f->jpos]
                                                           : NULL;
}

/* The plugin's graph launches of f that ended by key (corrected ns; all of
 * them with INT64_MAX), as calls of f (cp_ncjoin_replays). */
static void inject_replays(struct an_state *st, struct an_file *f,
                           int64_t key)
{
    while (f->rpos < f->nrp) {
        const struct cp_ncjoin_replay *r = &f->rp[f->rpos];
        struct an_call call;
        if ((int64_t)r->end - f->offset_ns > key)
            break;
        f->rpos++;
        if (r->end < r->start || r->start < (uint64_t)f->t_min ||
            r->end > (uint64_t)f->t_max || r->end - r->start > AN_CALL_MAX_NS) {
            f->bad_time++;
            continue;
        }
        memset(&call, 0, sizeof call);
        call.comm_id = r->comm;
        call.count = r->count;
        call.seq = r->seq;
        call.rank = r->rank;
        call.nranks = r->nranks;
        call.peer = r->peer;
        call.op = r->op;
        call.dtype = r->dtype;
        call.info = AN_INFO(r->algo, r->proto);
        call.tag = r->tag;
        call.share = 1;
        call.start = (int64_t)r->start - f->offset_ns;
        call.end = (int64_t)r->end - f->offset_ns;
        if (st->windowed &&
            (call.start < st->win_lo || call.start >= st->win_hi)) {
            if (an_past_window(call.start, st->win_hi)) /* times checked */
                f->stop = 1;
            st->outside++;
            continue;
        }
        f->acc->calls++;
        f->acc->time_ns += call.end - call.start;
        st->gpu_timed++;
        dispatch(st, f, &call);
    }
}

/* A call or group record whose times are damage: the first such problem
 * of the file says why (times no job can have, cp_logread.h, or times
 * outside the log's own bounds, open_files()). */
static void note_time_problem(struct an_file *f, const char *what,
                              uint64_t start, uint64_t end, const char *then)
{
    const char *why;
    char msg[AN_PROBLEM_MAX];

    if (f->problem_noted)
        return;
    why = cp_log_time_problem(start, end);
    if (!why)
        why = start < (uint64_t)f->t_min
                  ? "starts over a day before the log's start"
              : end > (uint64_t)f->t_max
                  ? "ends over a day after the log's end, or over a year "
                    "after its start"
                  : "lasts over an hour";
    snprintf(msg, sizeof msg, "%s with implausible times (%s; %s)", what, why,
             then);
    note_file_problem(f, msg);
}

/* A call record.  The common case (a collective outside a group on the
 * communicator of the file's previous call) runs straight into the join;
 * everything else goes through an an_call and dispatch(). */
/* Whether the call r is none of the join's: never returned, a graph
 * capture, or outside the window. */
static inline int call_outside(struct an_state *st, struct an_file *f,
                               const struct cp_rec_call *r, int64_t key)
{
    if (__builtin_expect(cp_rec_call_in_flight(r), 0))
        return 1; /* never returned: no time to join (cp_hang.c reads it) */
    if (__builtin_expect(f->nrp != 0 && (r->flags & CP_CALL_CAPTURED), 0)) {
        /* a capture, which ran nothing: its launches are the plugin's */
        st->captures_left_out++;
        return 1;
    }
    if (__builtin_expect(st->windowed, 0) && key != INT64_MIN) {
        int64_t s0 = (int64_t)r->start_ns - f->offset_ns;
        if (s0 < st->win_lo || s0 >= st->win_hi) {
            if (an_past_window(s0, st->win_hi) && an_call_plausible(r))
                f->stop = 1; /* past the window: f is read */
            st->outside++;
            return 1;
        }
    }
    return 0;
}

/* Whether the rank's call r cannot be timed: times out of order or out of
 * the log's span (counted and noted), or a failed call. */
static inline int call_untimed(struct an_state *st, struct an_file *f,
                               struct an_rank_acc *ra,
                               const struct cp_rec_call *r, int64_t key)
{
    if (__builtin_expect(key == INT64_MIN ||
                             !an_call_timed(r, f->t_min, f->t_max),
                         0)) {
        f->bad_time++;
        note_time_problem(f, "call", r->start_ns, r->end_ns, "skipped");
        return 1;
    }
    if (__builtin_expect(an_call_failed(r), 0)) {
        st->failed++;
        ra->failed++;
        return 1;
    }
    return 0;
}

/* The plugin's record of the call r: NCCL's choice into *info and *tag,
 * and the kernel's interval into *start and *end where there is one (a
 * grouped call keeps its group's). */
static inline void plugin_times(struct an_state *st, struct an_file *f,
                                const struct cp_rec_call *r, int64_t *start,
                                int64_t *end, unsigned *info, unsigned *tag)
{
    const struct cp_ncjoin_entry *e = join_entry(f);

    if (!e)
        return;
    *info = AN_INFO(e->algo, e->proto) |
            ((e->flags & CP_NCCL_CE) ? AN_INFO_CE : 0);
    *tag = e->tag;
    if (e->gpu_end && !(r->flags & CP_CALL_IN_GROUP) &&
        e->gpu_start >= (uint64_t)f->t_min &&
        e->gpu_end <= (uint64_t)f->t_max &&
        e->gpu_end - e->gpu_start <= AN_CALL_MAX_NS) {
        *start = (int64_t)e->gpu_start - f->offset_ns;
        *end = (int64_t)e->gpu_end - f->offset_ns;
        st->gpu_timed++;
    }
}

/* A call inside a group runs at the outermost GroupEnd: kept until the
 * group's interval comes; past STASH_MAX (no group record in sight) it
 * is dispatched with its own times. */
static void stash_grouped(struct an_state *st, struct an_file *f,
                          struct an_rank_acc *ra, struct an_call *call)
{
    if (f->nstash == f->capstash) {
        unsigned cap = f->capstash ? f->capstash * 2 : 16;
        struct an_call *bigger;
        if (cap > STASH_MAX) {
            call->grouped = 1;
            call->share = 1;
            ra->time_ns += call->end - call->start;
            dispatch(st, f, call);
            return;
        }
        bigger = realloc(f->stash, cap * sizeof *bigger);
        if (!bigger) {
            st->oom = 1;
            return;
        }
        f->stash = bigger;
        f->capstash = cap;
    }
    f->stash[f->nstash++] = *call;
}

static inline void on_call(struct an_state *st, struct an_file *f,
                           const struct cp_rec_call *r, int64_t key)
{
    struct an_rank_acc *ra = f->acc;
    struct an_comm *c = f->last_comm;
    struct an_call call;
    int64_t start, end;
    unsigned info = 0, tag = 0;
    int coll;

    if (call_outside(st, f, r, key))
        return;
    ra->calls++;
    if (call_untimed(st, f, ra, r, key))
        return;
    start = (int64_t)r->start_ns - f->offset_ns;
    end = (int64_t)r->end_ns - f->offset_ns;
    if (__builtin_expect(f->jn != NULL, 0))
        plugin_times(st, f, r, &start, &end, &info, &tag);
    coll = op_coll[r->op];
    if (__builtin_expect(c != NULL && c->id == r->comm_id &&
                             !(r->flags & (CP_CALL_NO_COMM | CP_CALL_IN_GROUP)) &&
                             coll >= 0 && coll != CP_COLL_SENDRECV &&
                             r->nranks == c->nranks && r->rank < c->nranks &&
                             c->member_file[r->rank] >= 0,
                         1)) {
        ra->time_ns += end - start;
        join_collective_inline(st, c, (int32_t)(f - st->files), r->seq,
                               r->rank, (unsigned)coll, r->count, r->dtype, 0,
                               1.0f, start, end, info, tag);
        return;
    }
    if ((r->flags & CP_CALL_NO_COMM) || r->comm_id == 0) {
        st->unjoinable++;
        return;
    }
    call.comm_id = r->comm_id;
    call.count = r->count;
    call.seq = r->seq;
    call.rank = r->rank;
    call.nranks = r->nranks;
    call.group = r->group;
    call.peer = r->peer;
    call.op = r->op;
    call.dtype = r->dtype;
    call.info = (uint8_t)info;
    call.tag = (uint16_t)tag;
    call.start = start;
    call.end = end;
    if ((r->flags & CP_CALL_IN_GROUP) && r->group != 0) {
        stash_grouped(st, f, ra, &call);
        return;
    }
    call.grouped = 0;
    call.share = 1;
    ra->time_ns += end - start;
    dispatch(st, f, &call);
}

static void on_group(struct an_state *st, struct an_file *f,
                     const struct cp_rec_group *g)
{
    unsigned i, j, k = 0;
    int64_t start = 0, end = 0;
    const struct an_call *ex[2] = {NULL, NULL};
    int exchange;

    if (g->end_ns < g->start_ns || g->start_ns < (uint64_t)f->t_min ||
        g->end_ns > (uint64_t)f->t_max) {
        f->bad_time++;
        note_time_problem(f, "group", g->start_ns, g->end_ns,
                          "its calls use their own");
        start = end = INT64_MIN;
    } else {
        start = (int64_t)g->start_ns - f->offset_ns;
        end = (int64_t)g->end_ns - f->offset_ns;
    }
    for (i = 0; i < f->nstash; i++)
        if (f->stash[i].group == g->group && k++ < 2)
            ex[k - 1] = &f->stash[i];
    if (k == 0)
        return;
    /* a send to and a receive from one peer, nothing else (timed by the
     * group: without its times the calls' own say nothing of the link) */
    exchange = start != INT64_MIN && k == 2 && ex[0]->op != ex[1]->op &&
               cp_op_is_p2p(ex[0]->op) &&
               cp_op_is_p2p(ex[1]->op) && ex[0]->comm_id == ex[1]->comm_id &&
               ex[0]->peer == ex[1]->peer;
    if (start != INT64_MIN)
        f->acc->time_ns += end - start;
    for (i = j = 0; i < f->nstash; i++) {
        struct an_call *call = &f->stash[i];
        if (call->group != g->group) {
            f->stash[j++] = *call;
            continue;
        }
        call->grouped = exchange ? AN_EXCHANGE : 1;
        call->share = 1.0f / (float)k;
        if (start != INT64_MIN) {
            call->start = start;
            call->end = end;
        }
        dispatch(st, f, call);
    }
    f->nstash = j;
}

/* Calls whose group record never came (a killed process): own times. */
static void flush_stash(struct an_state *st, struct an_file *f)
{
    unsigned i;

    for (i = 0; i < f->nstash; i++) {
        f->stash[i].grouped = 1;
        f->stash[i].share = 1;
        dispatch(st, f, &f->stash[i]);
    }
    f->nstash = 0;
}

static void on_comm(struct an_state *st, struct an_file *f,
                    const struct cp_rec_comm *r)
{
    struct an_comm *c;

    if (r->result != 0 || r->how > CP_COMM_SHRINK || r->comm_id == 0)
        return;
    c = comm_get(st, r->comm_id, r->nranks, (int32_t)(f - st->files));
    if (!c || c->nranks != r->nranks || r->rank >= c->nranks)
        return;
    if (c->member_file[r->rank] < 0)
        c->member_file[r->rank] = (int32_t)(f - st->files);
    if (!c->name[0] && r->name[0])
        memcpy(c->name, r->name, CP_COMM_NAME_LEN);
}

int an_stream_prologue_comms(struct an_state *st, const struct an_prologue *p)
{
    size_t i;

    for (i = 0; i < p->ncomms; i++) {
        const struct an_prologue_comm *pc = &p->comms[i];
        if (pc->file < st->nfiles && st->files[pc->file].sc)
            on_comm(st, &st->files[pc->file], &pc->rec);
    }
    return st->oom ? -1 : 0;
}

/* An aggregate of a capture policy (kind 12): joined across the ranks by
 * cp_longrun, when its communicator is known and its figures plausible;
 * outside the window of the analysis (by its first call) it is left out
 * as a call would be. */
static void on_agg(struct an_state *st, struct an_file *f,
                   const struct cp_rec_agg *r)
{
    struct an_comm *c;
    int64_t first;

    if (r->calls == 0 || r->comm_id == 0 ||
        r->sum_ns / r->calls > AN_CALL_MAX_NS ||
        (int64_t)r->first_ns < f->t_min || (int64_t)r->first_ns > f->t_max) {
        an_longrun_left_out(st->longrun);
        return;
    }
    first = (int64_t)r->first_ns - f->offset_ns;
    if (first < st->win_lo || first >= st->win_hi)
        return;
    c = comm_get(st, r->comm_id, 0, (int32_t)(f - st->files));
    if (!c) {
        an_longrun_left_out(st->longrun);
        return;
    }
    an_longrun_add(st->longrun, (int32_t)(f - st->files), c->index,
                   c->nranks, r);
}

static inline void handle(struct an_state *st, struct an_file *f,
                          const union cp_rec *r, int64_t key)
{
    if (__builtin_expect(f->rpos < f->nrp && key != INT64_MIN, 0))
        inject_replays(st, f, key);
    switch (r->kind) {
    case CP_REC_CALL:
        on_call(st, f, &r->call, key);
        break;
    case CP_REC_GROUP:
        on_group(st, f, &r->group);
        break;
    case CP_REC_COMM:
        on_comm(st, f, &r->comm);
        break;
    case CP_REC_PHASE: /* read by the phases' pass, from these logs only */
        f->phases = 1;
        break;
    case CP_REC_AGG:
        if (st->longrun)
            on_agg(st, f, &r->agg);
        break;
    default: /* clock pairs, device intervals: not used yet */
        break;
    }
}

/* The merge time of record r of file f; INT64_MIN for an implausible time
 * (such a record is handled at once and skipped, instead of holding the
 * file back). */
static inline int64_t merge_key(const struct an_file *f, const union cp_rec *r)
{
    uint64_t t;

    if (__builtin_expect(r->kind == CP_REC_CALL, 1))
        t = r->call.end_ns;
    else if (r->kind == CP_REC_GROUP)
        t = r->group.end_ns;
    else if (r->kind == CP_REC_COMM)
        t = r->comm.time_ns;
    else if (r->kind == CP_REC_CLOCK)
        t = r->clock.realtime_ns;
    else if (r->kind == CP_REC_AGG)
        t = r->agg.first_ns;
    else
        t = r->gpu.end_ns;
    if (__builtin_expect((int64_t)t < f->t_min || (int64_t)t > f->t_max, 0))
        return INT64_MIN;
    return (int64_t)t - f->offset_ns;
}

/* The next record of f, NULL at the end (or at the prefix pass's limit). */
static inline const union cp_rec *next_record(struct an_file *f)
{
    if (__builtin_expect(f->stop, 0))
        return NULL;
    if (__builtin_expect(f->limit != UINT64_MAX, 0) &&
        cp_scan_records(f->sc) >= f->limit)
        return NULL;
    return cp_scan_next(f->sc);
}

/* Whether the records f may still take (its limit) lie in the slots of
 * its buffer: a pass over a prefix that needs no refill of f.  cur is in
 * the buffer already (the slots past it are counted, and slots >=
 * records). */
static int prefix_in_buffer(const struct an_file *f)
{
    const struct cp_scan *sc = f->sc;
    uint64_t have = cp_scan_records(sc);

    if (f->limit == UINT64_MAX || sc->eof)
        return sc->eof;
    return have >= f->limit ||
           (uint64_t)(cp_scan_window_end(sc) - cp_scan_cursor(sc)) >=
               f->limit - have;
}

/* Any record but the hot loop's common case (see run_file). */
static __attribute__((noinline)) void handle_other(struct an_state *st,
                                                   struct an_file *f,
                                                   const union cp_rec *r,
                                                   int64_t key)
{
    handle(st, f, r, key);
}

/* The end of the slots run_file may take from the buffer before it must
 * stop and look: the buffer's whole slots, or fewer in the prefix pass, so
 * that it never returns more than f->limit records (slots >= records). */
static inline const union cp_rec *window_end(const struct an_file *f)
{
    const struct cp_scan *sc = f->sc;
    const union cp_rec *end = cp_scan_window_end(sc);

    if (__builtin_expect(f->limit != UINT64_MAX, 0)) {
        uint64_t have = cp_scan_records(sc);
        uint64_t room = have < f->limit ? f->limit - have : 0;
        const union cp_rec *cur = cp_scan_cursor(sc);
        if (room < (uint64_t)(end - cur))
            end = cur + room;
    }
    return end;
}

/* merge_key() of the record r read after one of key prev, on the file's
 * clock (t_min, t_span, offset off), capped at KEY_STEP_MAX past prev:
 * run_file()'s copy, kept inline in its loop. */
static inline int64_t run_key(const union cp_rec *r, int64_t prev,
                              uint64_t t_min, uint64_t t_span, int64_t off)
{
    uint64_t t = __builtin_expect(r->kind == CP_REC_CALL, 1)
                     ? r->call.end_ns
                     : r->kind == CP_REC_GROUP ? r->group.end_ns
                     : r->kind == CP_REC_COMM  ? r->comm.time_ns
                     : r->kind == CP_REC_CLOCK ? r->clock.realtime_ns
                     : r->kind == CP_REC_AGG   ? r->agg.first_ns
                                               : r->gpu.end_ns;
    int64_t key;

    if (__builtin_expect(t - t_min > t_span, 0))
        key = INT64_MIN;
    else
        key = (int64_t)t - off;
    if (__builtin_expect(prev != INT64_MIN && key > prev + KEY_STEP_MAX, 0))
        key = prev + KEY_STEP_MAX;
    return key;
}

/* One file's turn in an epoch: handle its records while their keys are
 * below boundary.  f->cur (with f->key) is the first; on return f->cur is
 * the first record not handled, NULL at the end of the file.  Returns the
 * number of records handled.
 *
 * This is the analyzer's hot loop, written so that everything per record
 * stays in registers: the buffer is walked in place (no call per record),
 * and the common record -- a collective call with plausible times outside
 * a group, on the communicator of the file's previous call -- is joined
 * right here; its checks are those of on_call() and merge_key(), whose
 * full versions take every other record.  The order in which records are
 * handled is the file's order, and each key is merge_key() of the record,
 * not more than KEY_STEP_MAX past the previous one. */
static uint64_t run_file(struct an_state *st, struct an_file *f,
                         int64_t boundary)
{
    struct cp_scan *sc = f->sc;
    const union cp_rec *r = f->cur, *p, *end;
    struct an_comm *c = f->last_comm;
    const int64_t off = f->offset_ns;
    const uint64_t t_min = (uint64_t)f->t_min;
    const uint64_t t_span = (uint64_t)f->t_max - (uint64_t)f->t_min;
    const int32_t file = (int32_t)(f - st->files);
    /* a file with the plugin's records takes the full path (on_call) */
    const int plain = f->jn == NULL && f->nrp == 0;
    int64_t key = f->key, busy = 0;
    uint64_t n = 0, calls = 0;
    /* the window, on this file's raw clock: start - w_lo < w_span (a call
     * outside it takes the full path, which leaves it out) */
    const uint64_t w_lo =
        st->win_lo == INT64_MIN || st->win_lo + off < 0
            ? 0
            : (uint64_t)(st->win_lo + off);
    const uint64_t w_span =
        st->win_hi == INT64_MAX ? UINT64_MAX - w_lo
        : st->win_hi + off <= (int64_t)w_lo ? 0
                                            : (uint64_t)(st->win_hi + off) - w_lo;

    p = cp_scan_cursor(sc);
    end = window_end(f);
    for (;;) {
        /* r: a record whose key is below boundary */
        if (__builtin_expect(r->kind == CP_REC_CALL, 1)) {
            const struct cp_rec_call *rc = &r->call;
            int coll = op_coll[rc->op];
            if (__builtin_expect(
                    plain && key != INT64_MIN &&
                        rc->end_ns - rc->start_ns <= AN_CALL_MAX_NS &&
                        rc->start_ns >= t_min && rc->result == 0 &&
                        rc->start_ns - w_lo < w_span &&
                        rc->seq != UINT32_MAX && c != NULL &&
                        c->id == rc->comm_id &&
                        !(rc->flags & (CP_CALL_NO_COMM | CP_CALL_IN_GROUP)) &&
                        coll >= 0 && coll != CP_COLL_SENDRECV &&
                        rc->nranks == c->nranks && rc->rank < c->nranks &&
                        c->member_file[rc->rank] >= 0,
                    1)) {
                int64_t start = (int64_t)rc->start_ns - off;
                int64_t stop = (int64_t)rc->end_ns - off;
                calls++;
                busy += stop - start;
                join_collective_inline(st, c, file, rc->seq, rc->rank,
                                       (unsigned)coll, rc->count, rc->dtype,
                                       0, 1.0f, start, stop, 0, 0);
                goto next;
            }
        }
        /* everything else, through the full checks */
        cp_scan_seek(sc, p);
        handle_other(st, f, r, key);
        c = f->last_comm;
        if (__builtin_expect(f->stop, 0)) {
            r = NULL; /* past the window: the file is done */
            goto out;
        }
    next:
        n++;
        for (;;) {
            if (__builtin_expect(p == end, 0)) {
                cp_scan_seek(sc, p);
                if (f->limit != UINT64_MAX && cp_scan_records(sc) >= f->limit) {
                    r = NULL;
                    goto out;
                }
                if (p == cp_scan_window_end(sc) && !cp_scan_refill(sc)) {
                    r = NULL; /* the scan is at its end: no seek */
                    goto done;
                }
                p = cp_scan_cursor(sc);
                end = window_end(f);
            }
            r = p++;
            /* the records ahead, from memory while this one is joined */
            __builtin_prefetch((const char *)r + RECORDS_AHEAD * CP_LOG_RECORD_SIZE);
            if (__builtin_expect(cp_scan_is_record(r), 1))
                break;
            cp_scan_skip(sc, r);
        }
        key = run_key(r, key, t_min, t_span, off);
        if (key >= boundary)
            break;
    }
out:
    cp_scan_seek(sc, p);
done:
    f->acc->calls += calls;
    f->acc->time_ns += busy;
    f->cur = r;
    f->key = key;
    return n;
}

/* ---- epochs ---------------------------------------------------------------------- */

static void evict_stale(struct an_state *st, int all)
{
    int64_t limit = st->now - st->stale_ns;
    size_t i;

    for (i = 0; i < st->ncomms; i++) {
        struct an_comm *c = st->comms[i];
        if (all) {
            evict_until(st, c, c->hi);
            continue;
        }
        while (c->lo < c->hi) {
            struct an_inst *in = &c->ring[c->lo & (c->cap - 1)];
            if (in->state == AN_PENDING && in->max_end < limit)
                finalize(st, c, in);
            else if (in->state != AN_DONE)
                break;
            in->state = AN_EMPTY;
            c->lo++;
        }
    }
    while (st->fifo_head != NONE32) {
        uint32_t i2 = st->fifo_head;
        struct an_p2p *e = &st->p2p[i2];
        int64_t end = e->have & 1 ? e->end[0] : e->end[1];
        if (!all && end >= limit)
            break;
        p2p_finalize(st, e);
        p2p_remove(st, i2);
    }
}

static double seconds_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The first records of f's next turn, asked of memory while the file
 * before it takes its turn.  An epoch comes back to a file after every
 * other file's turn: at thousands of files its buffer has left the caches
 * by then, and the load of its first record was half of the join's time
 * at 16,384 ranks (perf: the record's kind, the loop's first load).
 * Inlined always: GCC 12 takes a function of prefetches alone for a pure
 * one and drops its call. */
static inline __attribute__((always_inline)) void
prefetch_turn(const struct an_file *f)
{
    const char *r = (const char *)f->cur;

    __builtin_prefetch(f->sc);
    __builtin_prefetch(r);
    __builtin_prefetch(r + CP_LOG_RECORD_SIZE);
    __builtin_prefetch(r + 2 * CP_LOG_RECORD_SIZE);
    __builtin_prefetch(r + 3 * CP_LOG_RECORD_SIZE);
}

/* Every file's first record: the files that have one in active, read
 * ahead by pool (NULL: none).  Returns how many. */
static size_t start_files(struct an_state *st, struct an_file **active,
                          struct cp_scan_pool *pool)
{
    size_t nactive = 0, i;

    for (i = 0; i < st->nfiles; i++) {
        struct an_file *f = &st->files[i];
        if (!f->sc)
            continue;
        f->acc = &st->ranks[i];
        if (!f->limit)
            f->limit = UINT64_MAX;
        f->cur = next_record(f);
        if (f->cur) {
            f->key = merge_key(f, f->cur);
            active[nactive++] = f;
            /* without memory for it, read here; a prefix that the buffer
             * already holds needs nothing read ahead (a read per file
             * wasted, at thousands of small logs) */
            if (pool && !prefix_in_buffer(f))
                (void)cp_scan_pool_attach(pool, f->sc);
        } else {
            inject_replays(st, f, INT64_MAX);
        }
    }
    return nactive;
}

void an_stream_run(struct an_state *st)
{
    struct an_file **active = NULL;
    size_t nactive = 0, i;
    int64_t lo = INT64_MAX;
    int64_t delta = 1000000; /* 1 ms */
    double next_progress = seconds_now() + 1.0;
    unsigned epochs = 0;
    struct cp_scan_pool *pool = NULL;

    active = malloc((st->nfiles ? st->nfiles : 1) * sizeof *active);
    if (!active) {
        st->oom = 1;
        return;
    }
    /* -j N: N - 1 threads read every file's next buffer ahead; the join
     * stays on this thread, in the same order, so the result is the same */
    if (st->jobs > 1)
        pool = cp_scan_pool_start(st->jobs - 1, st->nfiles);
    nactive = start_files(st, active, pool);
    /* the least key of the active files: at the start, then as the
     * epoch before left them (not a walk over every file's state of its
     * own per epoch, a cache miss each at thousands of files) */
    for (i = 0; i < nactive; i++)
        if (active[i]->key < lo)
            lo = active[i]->key;
    while (nactive > 0) {
        int64_t boundary, next_lo = INT64_MAX;
        uint64_t n = 0;
        size_t j;

        uint64_t epoch_min = EPOCH_FILE_RECORDS * (uint64_t)nactive,
                 epoch_max = 16 * epoch_min;

        if (epoch_min < EPOCH_MIN_RECORDS)
            epoch_min = EPOCH_MIN_RECORDS;
        if (epoch_max < EPOCH_MAX_RECORDS)
            epoch_max = EPOCH_MAX_RECORDS;
        boundary = lo > INT64_MAX - delta ? INT64_MAX : lo + delta;
        for (i = j = 0; i < nactive; i++) {
            struct an_file *f = active[i];
            if (i + 1 < nactive)
                prefetch_turn(active[i + 1]);
            if (f->key < boundary)
                n += run_file(st, f, boundary);
            if (f->cur) {
                active[j++] = f;
                if (f->key < next_lo)
                    next_lo = f->key;
            } else {
                inject_replays(st, f, INT64_MAX);
                flush_stash(st, f);
            }
        }
        nactive = j;
        lo = next_lo;
        st->records += n;
        if (boundary > st->now)
            st->now = boundary;
        /* at least EPOCH_FILE_RECORDS per file in an epoch: a file's turn
         * costs a few cache misses (its state, its buffer), whatever it
         * handles, so that the cost per record stays flat in the ranks */
        /* at most STALE_NS: a file's turn runs through all its records
         * below the boundary before the next file's, so an epoch must not
         * span a gap (a capture policy's, between detail windows: one
         * file's next window joined while another's last instances wait,
         * a million seqs apart, evicts them from the ring) */
        if (n < epoch_min && delta < STALE_NS)
            delta *= 2;
        else if (n > epoch_max && delta > 1000)
            delta /= 2;
        evict_stale(st, 0);
        if (st->progress && (++epochs & 15) == 0) {
            double t = seconds_now();
            if (t >= next_progress) {
                st->progress(st->progress_ctx,
                             st->bytes_done + st->records * CP_LOG_RECORD_SIZE,
                             st->bytes_total);
                next_progress = t + 2.0;
            }
        }
    }
    cp_scan_pool_stop(pool);
    evict_stale(st, 1);
    free(active);
}
