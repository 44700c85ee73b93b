/* cp_timer_join.c - joining CUPTI activity records to NCCL calls (see .h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "cp_cuda_abi.h"
#include "cp_timer_join.h"

/* ---- a small open-addressing map, u64 key first in each entry ---------- */
#define KEY_EMPTY 0
#define KEY_DEAD UINT64_MAX

struct map {
    unsigned char *slots;
    size_t esize, cap, used, dead; /* cap: power of two */
};

static uint64_t key_at(const struct map *m, size_t i)
{
    uint64_t k;
    memcpy(&k, m->slots + i * m->esize, sizeof k);
    return k;
}

static void *entry_at(const struct map *m, size_t i)
{
    return m->slots + i * m->esize;
}

static size_t hash_index(const struct map *m, uint64_t key)
{
    key ^= key >> 33;
    key *= UINT64_C(0xff51afd7ed558ccd);
    key ^= key >> 33;
    return (size_t)key & (m->cap - 1);
}

static int map_init(struct map *m, size_t esize)
{
    m->esize = esize;
    m->cap = 256;
    m->used = m->dead = 0;
    m->slots = calloc(m->cap, esize);
    return m->slots ? 0 : -1;
}

static void *map_find(const struct map *m, uint64_t key)
{
    size_t i = hash_index(m, key), n;
    for (n = 0; n < m->cap; n++, i = (i + 1) & (m->cap - 1)) {
        uint64_t k = key_at(m, i);
        if (k == key)
            return entry_at(m, i);
        if (k == KEY_EMPTY)
            return NULL;
    }
    return NULL;
}

static int map_rehash(struct map *m, size_t cap)
{
    struct map n = *m;
    size_t i;

    n.cap = cap;
    n.used = n.dead = 0;
    n.slots = calloc(cap, m->esize);
    if (!n.slots)
        return -1;
    for (i = 0; i < m->cap; i++) {
        uint64_t k = key_at(m, i);
        size_t j;
        if (k == KEY_EMPTY || k == KEY_DEAD)
            continue;
        for (j = hash_index(&n, k); key_at(&n, j) != KEY_EMPTY;
             j = (j + 1) & (cap - 1))
            ;
        memcpy(entry_at(&n, j), entry_at(m, i), m->esize);
        n.used++;
    }
    free(m->slots);
    *m = n;
    return 0;
}

/* The entry for key, created zeroed if absent; NULL when memory ran out.
 * May move every entry: pointers from earlier calls are then stale. */
static void *map_get(struct map *m, uint64_t key)
{
    void *e = map_find(m, key);
    size_t i;

    if (e)
        return e;
    if ((m->used + m->dead + 1) * 2 > m->cap &&
        map_rehash(m, m->used * 4 > m->cap ? m->cap * 2 : m->cap) < 0)
        return NULL;
    for (i = hash_index(m, key);; i = (i + 1) & (m->cap - 1)) {
        uint64_t k = key_at(m, i);
        if (k == KEY_EMPTY || k == KEY_DEAD) {
            if (k == KEY_DEAD)
                m->dead--;
            e = entry_at(m, i);
            memset(e, 0, m->esize);
            memcpy(e, &key, sizeof key);
            m->used++;
            return e;
        }
    }
}

static void map_del(struct map *m, void *e)
{
    uint64_t dead = KEY_DEAD;
    memcpy(e, &dead, sizeof dead);
    m->used--;
    m->dead++;
}

/* ---- the join ----------------------------------------------------------- */
#define C_EXT 0x1u     /* external id known */
#define C_DEV 0x2u     /* device interval known */
#define C_API 0x4u     /* launch API start known */
#define C_NCCL 0x8u    /* an NCCL kernel */
#define C_OPEN 0x10u   /* device record without an end */

struct corr {
    uint64_t key; /* correlationId + 1 */
    uint64_t ext;
    uint64_t start, end;
    uint64_t api_start;
    uint64_t round;
    uint32_t stream_id;
    uint32_t flags;
};

struct ext {
    uint64_t key; /* the external id (never 0 nor ~0) */
    uint64_t start, end;
    uint64_t last_round;
    uint32_t ndev;
    uint32_t open; /* device records that never ended */
};

struct deferred {
    uint64_t ext, t_begin, round;
    uint32_t stream_id;
};

#define MAX_DEFERRED 1024
#define DONE_RING 4096 /* external ids emitted lately */

struct cp_join {
    struct cp_join_params p;
    struct map corrs, exts;
    struct deferred deferred[MAX_DEFERRED];
    unsigned ndeferred;
    uint64_t done[DONE_RING];
    unsigned done_next;
    int keep_api; /* a non-blocking launch was seen: launch times matter */
    uint64_t round;
    struct cp_join_stats st;
};

struct cp_join *cp_join_create(const struct cp_join_params *params)
{
    struct cp_join *j = calloc(1, sizeof *j);

    if (!j)
        return NULL;
    j->p = *params;
    if (!j->p.settle_rounds)
        j->p.settle_rounds = 1;
    if (!j->p.orphan_rounds)
        j->p.orphan_rounds = 1;
    if (map_init(&j->corrs, sizeof(struct corr)) < 0 ||
        map_init(&j->exts, sizeof(struct ext)) < 0) {
        cp_join_destroy(j);
        return NULL;
    }
    return j;
}

void cp_join_destroy(struct cp_join *j)
{
    if (!j)
        return;
    free(j->corrs.slots);
    free(j->exts.slots);
    free(j);
}

/* Add one device interval to ext's union. */
static void attach(struct cp_join *j, uint64_t ext, uint64_t start,
                   uint64_t end, int open)
{
    struct ext *e = map_get(&j->exts, ext);

    if (!e)
        return;
    if (open) {
        e->open++;
        if (start && (!e->start || start < e->start))
            e->start = start;
    } else {
        if (!e->start || start < e->start)
            e->start = start;
        if (end > e->end)
            e->end = end;
        e->ndev++;
    }
    e->last_round = j->round;
}

static void on_external(struct cp_join *j,
                        const struct cp_cupti_external_correlation *r)
{
    struct corr *c;
    uint64_t ext = r->externalId;

    if (r->externalKind != CP_CUPTI_EXTERNAL_KIND_CUSTOM2 || ext == 0 ||
        ext == KEY_DEAD)
        return; /* another tool's correlation */
    j->st.launches++;
    if ((ext & 0xffffffffu) > j->st.last_ext)
        j->st.last_ext = ext & 0xffffffffu;
    c = map_get(&j->corrs, (uint64_t)r->correlationId + 1);
    if (!c)
        return;
    if (c->flags & C_DEV) {
        uint64_t start = c->start, end = c->end;
        int open = (c->flags & C_OPEN) != 0;
        map_del(&j->corrs, c);
        j->st.device++;
        attach(j, ext, start, end, open);
        return;
    }
    c->flags |= C_EXT;
    c->ext = ext;
    c->round = j->round;
    {
        /* the launch is known: the call waits for its device work */
        struct ext *e = map_get(&j->exts, ext);
        if (e)
            e->last_round = j->round;
    }
}

static void on_device(struct cp_join *j, uint32_t correlation, uint64_t start,
                      uint64_t end, uint32_t stream_id, int nccl_kernel)
{
    uint64_t key = (uint64_t)correlation + 1;
    struct corr *c = map_find(&j->corrs, key);
    int open = end == 0 || end < start;

    if (c && (c->flags & C_EXT)) {
        uint64_t ext = c->ext;
        map_del(&j->corrs, c);
        j->st.device++;
        attach(j, ext, start, end, open);
        return;
    }
    /* Without its correlation yet: keep it a little, the external record
     * may be in a later buffer.  Kernels of other libraries are never ours
     * (NCCL launches only its own): drop them now. */
    if (!c && nccl_kernel < 0) {
        j->st.unmatched++;
        return;
    }
    if (!c && !(c = map_get(&j->corrs, key)))
        return;
    c->flags |= C_DEV | (open ? C_OPEN : 0) | (nccl_kernel > 0 ? C_NCCL : 0);
    c->start = start;
    c->end = end;
    c->stream_id = stream_id;
    if (!(c->flags & C_API))
        c->round = j->round;
}

static void on_api(struct cp_join *j, const struct cp_cupti_api *r)
{
    struct corr *c;

    if (!j->keep_api)
        return;
    c = map_get(&j->corrs, (uint64_t)r->correlationId + 1);
    if (!c)
        return;
    c->flags |= C_API;
    c->api_start = r->start;
    if (!(c->flags & (C_DEV | C_EXT)))
        c->round = j->round;
}

/* 1 for an NCCL kernel (ncclDevKernel_*, ncclSymkDevKernel_*, ncclKernel_*
 * before 2.19), -1 for another library's kernel. */
static int nccl_name(const char *name)
{
    return name && strncmp(name, "nccl", 4) == 0 ? 1 : -1;
}

void cp_join_record(struct cp_join *j, const void *record)
{
    uint32_t kind;

    memcpy(&kind, record, sizeof kind);
    j->st.records++;
    switch (kind) {
    case CP_CUPTI_KIND_EXTERNAL_CORRELATION:
        on_external(j, record);
        break;
    case CP_CUPTI_KIND_KERNEL:
    case CP_CUPTI_KIND_CONCURRENT_KERNEL: {
        const struct cp_cupti_kernel *k = record;
        on_device(j, k->correlationId, k->start, k->end, k->streamId,
                  nccl_name(k->name));
        break;
    }
    case CP_CUPTI_KIND_MEMCPY: {
        const struct cp_cupti_memcpy *m = record;
        on_device(j, m->correlationId, m->start, m->end, m->streamId, 0);
        break;
    }
    case CP_CUPTI_KIND_MEMCPY2: {
        const struct cp_cupti_memcpy_p2p *m = record;
        on_device(j, m->correlationId, m->start, m->end, m->streamId, 0);
        break;
    }
    case CP_CUPTI_KIND_DRIVER:
    case CP_CUPTI_KIND_RUNTIME:
        on_api(j, record);
        break;
    default:
        break;
    }
}

void cp_join_deferred(struct cp_join *j, uint64_t ext, uint32_t stream_id,
                      uint64_t t_begin)
{
    struct deferred *d;

    if (j->ndeferred == MAX_DEFERRED) {
        memmove(j->deferred, j->deferred + 1,
                (MAX_DEFERRED - 1) * sizeof j->deferred[0]);
        j->ndeferred--;
    }
    d = &j->deferred[j->ndeferred++];
    d->ext = ext;
    d->stream_id = stream_id;
    d->t_begin = t_begin;
    d->round = j->round;
    j->keep_api = 1;
}

/* Whether ext got an interval lately: a stray correlation record for it
 * (one launch counted twice, driver and runtime) must not add an empty
 * "incomplete" record after the real one. */
static int done_lately(const struct cp_join *j, uint64_t ext)
{
    unsigned i;
    for (i = 0; i < DONE_RING; i++)
        if (j->done[i] == ext)
            return 1;
    return 0;
}

/* The non-blocking launch an orphan NCCL kernel belongs to, 0 if none: the
 * latest one on its stream that began before the kernel was launched. */
static uint64_t deferred_owner(const struct cp_join *j, const struct corr *c)
{
    uint64_t t = (c->flags & C_API) ? c->api_start : c->start, best_t = 0;
    uint64_t owner = 0;
    unsigned i;

    for (i = 0; i < j->ndeferred; i++) {
        const struct deferred *d = &j->deferred[i];
        if (d->stream_id && d->stream_id != c->stream_id)
            continue;
        if (d->t_begin <= t && d->t_begin >= best_t) {
            best_t = d->t_begin;
            owner = d->ext;
        }
    }
    return owner;
}

unsigned cp_join_settle(struct cp_join *j, int final, cp_join_emit_fn emit,
                        void *ctx)
{
    unsigned emitted = 0, i, k;
    size_t n;

    /* Orphans first: what they join must settle with the rest. */
    for (n = 0; n < j->corrs.cap; n++) {
        struct corr *c = entry_at(&j->corrs, n), copy;
        uint64_t owner;
        if (c->key == KEY_EMPTY || c->key == KEY_DEAD)
            continue;
        if (c->flags & C_EXT) {
            /* a launch waiting for its device record: the ext entry holds
             * the deadline; drop the correlation with it */
            if (final || j->round - c->round >= j->p.expire_rounds)
                map_del(&j->corrs, c);
            continue;
        }
        if (!final && j->round - c->round < j->p.orphan_rounds)
            continue;
        copy = *c;
        map_del(&j->corrs, c);
        if (!(copy.flags & C_DEV))
            continue; /* a launch record only */
        owner = (copy.flags & C_NCCL) && j->ndeferred
                    ? deferred_owner(j, &copy)
                    : 0;
        if (!owner) {
            j->st.unmatched++;
            continue;
        }
        j->st.deferred++;
        /* attach may grow the ext map only; corrs stays put */
        attach(j, owner, copy.start, copy.end, (copy.flags & C_OPEN) != 0);
    }

    for (n = 0; n < j->exts.cap; n++) {
        struct ext *e = entry_at(&j->exts, n);
        uint64_t quiet;
        uint16_t flags = 0;
        uint64_t start, end;
        if (e->key == KEY_EMPTY || e->key == KEY_DEAD)
            continue;
        quiet = j->round - e->last_round;
        if (e->ndev) {
            if (!final && quiet < j->p.settle_rounds)
                continue;
            start = e->start;
            end = e->end;
        } else if (final || quiet >= j->p.expire_rounds) {
            /* launched, never seen to end: say so, invent nothing */
            flags = CP_CALL_INCOMPLETE;
            start = e->open ? e->start : 0;
            end = 0;
        } else {
            continue;
        }
        if (e->open && e->ndev && final)
            flags = CP_CALL_INCOMPLETE; /* part of it never ended */
        if (!e->ndev && !e->open && done_lately(j, e->key)) {
            map_del(&j->exts, e);
            continue;
        }
        if (emit(ctx, e->key, flags, start, end, final) < 0 && !final)
            continue;
        if (e->ndev) {
            j->done[j->done_next] = e->key;
            j->done_next = (j->done_next + 1) % DONE_RING;
        }
        emitted++;
        j->st.emitted++;
        if (flags & CP_CALL_INCOMPLETE)
            j->st.incomplete++;
        map_del(&j->exts, e);
    }

    /* Non-blocking launches older than the launch deadline are done. */
    for (i = k = 0; i < j->ndeferred; i++)
        if (!final && j->round - j->deferred[i].round < j->p.expire_rounds)
            j->deferred[k++] = j->deferred[i];
    j->ndeferred = k;

    /* Shrink back after a burst. */
    if (j->corrs.cap > 4096 && j->corrs.used * 16 < j->corrs.cap)
        map_rehash(&j->corrs, j->corrs.cap / 4);
    if (j->exts.cap > 4096 && j->exts.used * 16 < j->exts.cap)
        map_rehash(&j->exts, j->exts.cap / 4);
    j->round++;
    return emitted;
}

void cp_join_get_stats(const struct cp_join *j, struct cp_join_stats *st)
{
    *st = j->st;
}

uint64_t cp_join_pending(const struct cp_join *j)
{
    return j->corrs.used + j->exts.used;
}
