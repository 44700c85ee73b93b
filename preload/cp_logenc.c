/* cp_logenc.c - log format 4's stream encoder (see cp_logenc.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp_logenc.h"

/* The fields of a call that make its signature, and its key's counter. */
struct cp_logenc_sig {
    uint8_t op, dtype, redop, timer;
    int8_t result;
    uint16_t flags;
    uint64_t comm_id, count;
    int32_t peer;
    uint32_t rank, nranks, stream;
    uint64_t lastdur; /* the last finished call's end - start, first 0 */
    uint32_t variants; /* a base (the first of its fields but the count):
                          the counts defined with them, else 0 */
    uint32_t key;     /* the index whose seqlast this signature's calls use */
    uint32_t seqlast; /* at the key's own index: the last seq, first ~0 */
};

/* A template: a record with its varying fields 0, and each field's last
 * value (cp_logfmt.h, "templated records"). */
struct cp_logenc_tmpl {
    union cp_rec rec;
    uint64_t last[CP_LOG4_FIELDS_MAX];
};

void cp_logenc_free(struct cp_logenc *e)
{
    free(e->tmpl);
    free(e->tmpl_hash);
    e->tmpl = NULL;
    e->tmpl_hash = NULL;
    e->ntmpl = e->tmpl_alloc = 0;
    free(e->sig);
    free(e->hash);
    e->sig = NULL;
    e->hash = NULL;
    e->bases = NULL;
    e->nsig = e->alloc = 0;
}

/* ---- bytes ------------------------------------------------------------- */

static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* start as the distance from *prev, then the end; *prev becomes the end
 * (the start while in flight): the next start is then the gap between
 * two calls, not that and a call's duration */
static inline unsigned char *put_times(unsigned char *p, uint64_t *prev,
                                       uint64_t start, uint64_t end)
{
    p = put_varint(p, cp_log4_zigzag(start - *prev));
    *prev = end ? end : start;
    return put_varint(p, end ? end - start + 1 : 0);
}

/* An end the ops cannot give back: end - start + 1 wraps to 0. */
static inline int end_fits(uint64_t start, uint64_t end)
{
    return end == 0 || end - start + 1 != 0;
}

/* ---- signatures -------------------------------------------------------- */

static void sig_of(struct cp_logenc_sig *s, const struct cp_rec_call *c)
{
    memset(s, 0, sizeof *s);
    s->op = c->op;
    s->dtype = c->dtype;
    s->redop = c->redop;
    s->timer = c->timer;
    s->result = c->result;
    s->flags = c->flags;
    s->comm_id = c->comm_id;
    s->count = c->count;
    s->peer = c->peer;
    s->rank = c->rank;
    s->nranks = c->nranks;
    s->stream = c->stream;
}

static int sig_same(const struct cp_logenc_sig *a, const struct cp_logenc_sig *b)
{
    return a->op == b->op && a->dtype == b->dtype && a->redop == b->redop &&
           a->timer == b->timer && a->result == b->result &&
           a->flags == b->flags && a->comm_id == b->comm_id &&
           a->count == b->count && a->peer == b->peer && a->rank == b->rank &&
           a->nranks == b->nranks && a->stream == b->stream;
}

/* Whether call c is of signature a, read field by field: building c's
 * signature first (sig_of) and comparing the two as words made the load
 * wait on the narrower stores just made (a store-forwarding stall, about
 * a quarter of the log thread's time per call back to back). */
static int sig_is(const struct cp_logenc_sig *a, const struct cp_rec_call *c)
{
    return a->comm_id == c->comm_id && a->count == c->count &&
           a->op == c->op && a->dtype == c->dtype && a->redop == c->redop &&
           a->timer == c->timer && a->result == c->result &&
           a->flags == c->flags && a->peer == c->peer && a->rank == c->rank &&
           a->nranks == c->nranks && a->stream == c->stream;
}

/* The same but perhaps the count. */
static int sig_same_but_count(const struct cp_logenc_sig *a,
                              const struct cp_logenc_sig *b)
{
    struct cp_logenc_sig t = *b;

    t.count = a->count;
    return sig_same(a, &t);
}

static uint32_t sig_hash(const struct cp_logenc_sig *s)
{
    uint64_t h = s->comm_id * 0x9e3779b97f4a7c15ull;

    h ^= s->count + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= ((uint64_t)s->op << 56 | (uint64_t)s->dtype << 48 |
          (uint64_t)s->redop << 40 | (uint64_t)(uint8_t)s->result << 32 |
          (uint64_t)s->flags << 16 | s->timer) *
         0xff51afd7ed558ccdull;
    h ^= ((uint64_t)(uint32_t)s->peer << 32 | s->stream) * 0xc4ceb9fe1a85ec53ull;
    h ^= ((uint64_t)s->rank << 32 | s->nranks) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h ^ (h >> 29) ^ (h >> 47));
}

int cp_logenc_init(struct cp_logenc *e, uint32_t dict_slots, uint64_t t0)
{
    memset(e, 0, sizeof *e);
    if (dict_slots > CP_LOG4_DICT_MAX)
        dict_slots = CP_LOG4_DICT_MAX;
    e->cap = dict_slots;
    e->t_call = e->call_start = e->dev_start = e->dev_end = t0;
    return 0;
}

static uint32_t base_hash(const struct cp_logenc_sig *s)
{
    struct cp_logenc_sig t = *s;

    t.count = 0;
    return sig_hash(&t);
}

/* Room for one more signature: the table and the hash grow by doubling
 * (a log's few signatures cost a few hundred bytes, not the whole
 * dict_slots).  0, or -1 without memory. */
static int grow(struct cp_logenc *e)
{
    uint32_t alloc = e->alloc ? e->alloc * 2 : 8, buckets, i;
    struct cp_logenc_sig *sig;
    uint32_t *hash;

    if (e->nsig < e->alloc)
        return 0;
    if (alloc > e->cap)
        alloc = e->cap;
    buckets = 16;
    while (buckets < 4 * alloc)
        buckets <<= 1;
    sig = realloc(e->sig, alloc * sizeof *sig);
    if (!sig)
        return -1;
    e->sig = sig;
    hash = calloc(2 * (size_t)buckets, sizeof *hash);
    if (!hash)
        return -1;
    for (i = 0; i < e->nsig; i++) {
        uint32_t b = sig_hash(&e->sig[i]) & (buckets - 1);
        while (hash[b])
            b = (b + 1) & (buckets - 1);
        hash[b] = i + 1;
        if (!e->sig[i].variants)
            continue;
        b = base_hash(&e->sig[i]) & (buckets - 1);
        while (hash[buckets + b])
            b = (b + 1) & (buckets - 1);
        hash[buckets + b] = i + 1;
    }
    free(e->hash);
    e->hash = hash;
    e->bases = hash + buckets;
    e->hmask = buckets - 1;
    e->alloc = alloc;
    return 0;
}

/* The counter a new signature's calls take their seq from: the
 * communicator's for a collective, the peer's and direction's for
 * send/recv (as the shim numbers them); the first signature with it, or
 * the new one itself. */
static uint32_t key_of(const struct cp_logenc *e, const struct cp_logenc_sig *s)
{
    uint32_t i;

    for (i = 0; i < e->nsig; i++) {
        const struct cp_logenc_sig *o = &e->sig[i];
        if (o->comm_id != s->comm_id || o->key != i)
            continue;
        if (cp_op_is_p2p(s->op) ? o->op == s->op && o->peer == s->peer
                                : cp_op_is_collective(o->op) &&
                                      cp_op_is_collective(s->op))
            return i;
    }
    return e->nsig;
}

/* The base of s's fields but the count (the first signature defined with
 * them), or -1; *slot: its bucket in e->bases, or the free one. */
static long base_find(const struct cp_logenc *e, const struct cp_logenc_sig *s,
                      uint32_t *slot)
{
    uint32_t b;

    for (b = base_hash(s) & e->hmask; e->bases[b]; b = (b + 1) & e->hmask)
        if (sig_same_but_count(&e->sig[e->bases[b] - 1], s))
            return (long)e->bases[b] - 1;
    *slot = b;
    return -1;
}

/* Calls of one base with more counts than this are written with their
 * count (CP_LOG4_X_COUNT) instead of a signature per count: a training
 * loop's buckets and layers have a few dozen sizes per communicator and
 * op; counts that change with every call (dropless mixture-of-experts
 * exchanges) would fill the table. */
#define COUNTS_PER_BASE 64u

/* The index of c's signature, defining it (its op into *p) when it is
 * new and the table has room; -1 when it has none.  *count_too: the
 * index is of a signature with another count (c's base with many). */
static long sig_find(struct cp_logenc *e, const struct cp_rec_call *c,
                     unsigned char **p, int *count_too)
{
    struct cp_logenc_sig s;
    uint32_t b, i, bslot = 0;
    unsigned char *q = *p;
    long base = -1;

    *count_too = 0;
    /* a run of calls of one signature (a loop, a step's buckets of one
     * size): no hash */
    if (e->nsig && sig_is(&e->sig[e->mru], c))
        return (long)e->mru;
    sig_of(&s, c);
    if (e->hash)
        for (b = sig_hash(&s) & e->hmask; e->hash[b]; b = (b + 1) & e->hmask)
            if (sig_is(&e->sig[e->hash[b] - 1], c))
                return (long)(e->mru = e->hash[b] - 1);
    if (e->hash) {
        base = base_find(e, &s, &bslot);
        if (base >= 0 && e->sig[base].variants >= COUNTS_PER_BASE) {
            *count_too = 1; /* counts that change from call to call */
            return base;
        }
    }
    if (e->nsig >= e->cap || grow(e) < 0)
        return base >= 0 ? (*count_too = 1, base) : -1;
    for (b = sig_hash(&s) & e->hmask; e->hash[b]; b = (b + 1) & e->hmask)
        ;
    i = e->nsig;
    s.key = key_of(e, &s);
    s.seqlast = UINT32_MAX;
    e->sig[i] = s;
    e->hash[b] = i + 1;
    if (base >= 0) {
        e->sig[base].variants++;
    } else {
        base_find(e, &s, &bslot); /* the table may have grown */
        e->sig[i].variants = 1;
        e->bases[bslot] = i + 1;
    }
    e->nsig++;
    e->mru = i;
    e->n_define++;
    *q++ = CP_LOG4_DEFINE;
    *q++ = s.op;
    *q++ = s.dtype;
    *q++ = s.redop;
    *q++ = s.timer;
    *q++ = (unsigned char)s.result;
    q = put_varint(q, s.flags);
    q = put_varint(q, s.comm_id);
    q = put_varint(q, s.count);
    q = put_varint(q, cp_log4_zigzag((uint64_t)(int64_t)s.peer));
    q = put_varint(q, s.rank);
    q = put_varint(q, s.nranks);
    q = put_varint(q, s.stream);
    q = put_varint(q, s.key);
    *p = q;
    return (long)i;
}

/* ---- records ----------------------------------------------------------- */

static unsigned char *put_literal(struct cp_logenc *e, unsigned char *p,
                                  const struct cp_rec_call *c)
{
    *p++ = CP_LOG4_LITERAL;
    *p++ = c->op;
    *p++ = c->dtype;
    *p++ = c->redop;
    *p++ = c->timer;
    *p++ = (unsigned char)c->result;
    p = put_varint(p, c->flags);
    p = put_varint(p, c->comm_id);
    p = put_varint(p, c->count);
    p = put_varint(p, c->seq);
    p = put_varint(p, cp_log4_zigzag((uint64_t)(int64_t)c->peer));
    p = put_varint(p, c->rank);
    p = put_varint(p, c->nranks);
    p = put_varint(p, c->group);
    p = put_varint(p, c->stream);
    if (c->group)
        e->last_group = c->group;
    e->n_literal++;
    return put_times(p, &e->t_call, c->start_ns, c->end_ns);
}

static unsigned char *put_call(struct cp_logenc *e, unsigned char *p,
                               const struct cp_rec_call *c)
{
    int count_too;
    long i = sig_find(e, c, &p, &count_too);
    struct cp_logenc_sig *key;
    uint32_t predicted, group;
    unsigned x = count_too ? CP_LOG4_X_COUNT : 0;
    int ingroup = (c->flags & CP_CALL_IN_GROUP) != 0, newgroup = 0;

    if (i < 0 || (c->end_ns && cp_log4_zigzag(c->end_ns - c->start_ns -
                                       e->sig[i].lastdur) == UINT64_MAX))
        return put_literal(e, p, c);
    key = &e->sig[e->sig[i].key];
    predicted = key->seqlast + 1;
    if (c->seq != predicted)
        x |= CP_LOG4_X_SEQ;
    if (ingroup && c->group == e->last_group + 1 && c->group != 0)
        newgroup = 1;
    else if (c->group != (ingroup ? e->last_group : 0))
        x |= CP_LOG4_X_GROUP;
    if (i >= 64)
        x |= CP_LOG4_X_SIG;
    if (x && newgroup) {
        newgroup = 0; /* the long form names the group itself */
        x |= CP_LOG4_X_GROUP;
    }
    if (!x) {
        *p++ = (unsigned char)((newgroup ? CP_LOG4_SHORT_NEWGROUP
                                         : CP_LOG4_SHORT) |
                               (unsigned)i);
        e->n_short++;
    } else {
        *p++ = (unsigned char)(CP_LOG4_LONG | ((unsigned)i & 0x3f));
        *p++ = (unsigned char)x;
        if (x & CP_LOG4_X_SIG)
            p = put_varint(p, (uint64_t)i >> 6);
        if (x & CP_LOG4_X_SEQ)
            p = put_varint(p, cp_log4_zigzag((uint64_t)(int64_t)(int32_t)(c->seq -
                                                                  predicted)));
        if (x & CP_LOG4_X_GROUP)
            p = put_varint(p, c->group);
        if (x & CP_LOG4_X_COUNT)
            p = put_varint(p, c->count);
        e->n_long++;
    }
    key->seqlast = c->seq;
    group = c->group;
    if (group)
        e->last_group = group;
    /* the start from the previous one; the duration from this
     * signature's last (a step's calls of one signature take about as
     * long each time): 0 in flight, else zigzag(difference) + 1 */
    p = put_varint(p, cp_log4_zigzag(c->start_ns - e->t_call));
    e->t_call = c->start_ns;
    if (!c->end_ns)
        return put_varint(p, 0);
    {
        struct cp_logenc_sig *sg = &e->sig[i];
        uint64_t dur = c->end_ns - c->start_ns;
        p = put_varint(p, cp_log4_zigzag(dur - sg->lastdur) + 1);
        sg->lastdur = dur;
        e->t_call = c->end_ns;
    }
    return p;
}

/* ---- templated records -------------------------------------------------- */

static uint64_t field_get(const union cp_rec *r, const struct cp_log4_field *f)
{
    const unsigned char *at = r->bytes + f->offset;
    uint64_t v = 0;

    switch (f->size) {
    case 1:
        return *at;
    case 2: {
        uint16_t x;
        memcpy(&x, at, 2);
        return x;
    }
    case 4: {
        uint32_t x;
        memcpy(&x, at, 4);
        return x;
    }
    default:
        memcpy(&v, at, 8);
        return v;
    }
}

static uint32_t tmpl_hash_of(const union cp_rec *r)
{
    uint64_t h = 0x9e3779b97f4a7c15ull, w;
    size_t i;

    for (i = 0; i < CP_LOG_RECORD_SIZE; i += 8) {
        memcpy(&w, r->bytes + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 31;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* Room for one more template (as grow, for signatures). */
static int tmpl_grow(struct cp_logenc *e)
{
    uint32_t alloc = e->tmpl_alloc ? e->tmpl_alloc * 2 : 8, buckets, i;
    struct cp_logenc_tmpl *t;
    uint32_t *hash;

    if (e->ntmpl < e->tmpl_alloc)
        return 0;
    if (alloc > CP_LOG4_TMPL_MAX)
        alloc = CP_LOG4_TMPL_MAX;
    buckets = 16;
    while (buckets < 2 * alloc)
        buckets <<= 1;
    t = realloc(e->tmpl, alloc * sizeof *t);
    if (!t)
        return -1;
    e->tmpl = t;
    hash = calloc(buckets, sizeof *hash);
    if (!hash)
        return -1;
    for (i = 0; i < e->ntmpl; i++) {
        uint32_t b = tmpl_hash_of(&e->tmpl[i].rec) & (buckets - 1);
        while (hash[b])
            b = (b + 1) & (buckets - 1);
        hash[b] = i + 1;
    }
    free(e->tmpl_hash);
    e->tmpl_hash = hash;
    e->tmpl_hmask = buckets - 1;
    e->tmpl_alloc = alloc;
    return 0;
}

/* The template of masked (a record, its varying fields 0): its index,
 * or -1 when it is new. */
static long tmpl_find(struct cp_logenc *e, const union cp_rec *masked)
{
    uint32_t b;

    if (e->ntmpl && memcmp(&e->tmpl[e->tmpl_mru].rec, masked,
                           CP_LOG_RECORD_SIZE) == 0)
        return (long)e->tmpl_mru;
    if (!e->tmpl_hash)
        return -1;
    for (b = tmpl_hash_of(masked) & e->tmpl_hmask; e->tmpl_hash[b];
         b = (b + 1) & e->tmpl_hmask)
        if (memcmp(&e->tmpl[e->tmpl_hash[b] - 1].rec, masked,
                   CP_LOG_RECORD_SIZE) == 0)
            return (long)(e->tmpl_mru = e->tmpl_hash[b] - 1);
    return -1;
}

/* The codes of rec's varying fields against the template's last values
 * `last` (the new ones into next) and the stream's state (the new t_call
 * into *t_call); 0, or -1 when one does not fit (a + 1 past 2^64 - 1). */
static int tmpl_codes(const struct cp_logenc *e, const struct cp_log4_fields *k,
                      const union cp_rec *rec, uint64_t slot,
                      const uint64_t *last, uint64_t *next, uint64_t *code,
                      uint64_t *t_call)
{
    uint64_t v[CP_LOG4_FIELDS_MAX];
    unsigned i;

    *t_call = e->t_call;
    for (i = 0; i < k->n; i++) {
        const struct cp_log4_field *f = &k->f[i];
        uint64_t x = field_get(rec, f), d, z;
        v[i] = x;
        next[i] = last[i];
        switch (f->role) {
        case CP_LOG4_F_SLOT:
            code[i] = cp_log4_zigzag((slot - x) - last[i]);
            next[i] = slot - x;
            continue;
        case CP_LOG4_F_NEXT:
            code[i] = cp_log4_zigzag(x - (last[i] + 1));
            next[i] = x;
            continue;
        case CP_LOG4_F_VALUE:
            code[i] = cp_log4_zigzag(x - last[i]);
            next[i] = x;
            continue;
        default:
            break;
        }
        /* TIME, CALL, SPAN, DEV, DEVEND: 0 for 0, else a difference + 1 */
        if (!x) {
            code[i] = 0;
            continue;
        }
        if (f->role == CP_LOG4_F_TIME) {
            z = cp_log4_zigzag(x - *t_call);
            *t_call = x;
        } else {
            d = x - (f->role == CP_LOG4_F_CALL     ? e->call_start
                     : f->role == CP_LOG4_F_DEV    ? e->dev_start
                     : f->role == CP_LOG4_F_DEVEND ? e->dev_end
                                                   : v[f->ref]);
            z = cp_log4_zigzag(d - last[i]);
            next[i] = d;
        }
        if (z == UINT64_MAX)
            return -1;
        code[i] = z + 1;
    }
    return 0;
}

/* A record of a templated kind: its template (defined when new and the
 * table has room), then its fields.  NULL when it must be raw. */
static unsigned char *put_templated(struct cp_logenc *e, unsigned char *p,
                                    const union cp_rec *rec, uint64_t slot,
                                    const struct cp_log4_fields *k)
{
    static const uint64_t zeros[CP_LOG4_FIELDS_MAX];
    uint64_t next[CP_LOG4_FIELDS_MAX], code[CP_LOG4_FIELDS_MAX], t_call;
    union cp_rec masked = *rec;
    uint32_t bucket;
    unsigned j, present = 0;
    long i;

    for (j = 0; j < k->n; j++)
        memset(masked.bytes + k->f[j].offset, 0, k->f[j].size);
    i = tmpl_find(e, &masked);
    if (tmpl_codes(e, k, rec, slot, i >= 0 ? e->tmpl[i].last : zeros, next,
                   code, &t_call) < 0)
        return NULL;
    if (i < 0) {
        if (e->ntmpl >= CP_LOG4_TMPL_MAX || tmpl_grow(e) < 0)
            return NULL;
        /* its bucket (the hash may have been rebuilt) */
        for (bucket = tmpl_hash_of(&masked) & e->tmpl_hmask;
             e->tmpl_hash[bucket]; bucket = (bucket + 1) & e->tmpl_hmask)
            ;
        i = e->ntmpl++;
        e->tmpl[i].rec = masked;
        e->tmpl_hash[bucket] = (uint32_t)i + 1;
        e->tmpl_mru = (uint32_t)i;
        e->n_template++;
        *p++ = CP_LOG4_TEMPLATE;
        memcpy(p, &masked, CP_LOG_RECORD_SIZE);
        p += CP_LOG_RECORD_SIZE;
    }
    if (i < CP_LOG4_TEMPLATED_LONG - CP_LOG4_TEMPLATED) {
        *p++ = (unsigned char)(CP_LOG4_TEMPLATED + (unsigned)i);
    } else {
        *p++ = CP_LOG4_TEMPLATED_LONG;
        p = put_varint(p, (uint64_t)i);
    }
    for (j = 0; j < k->n; j++)
        if (code[j])
            present |= 1u << j;
    *p++ = (unsigned char)present;
    if (cp_log4_present_bytes(k) == 2)
        *p++ = (unsigned char)(present >> 8);
    for (j = 0; j < k->n; j++)
        if (code[j])
            p = put_varint(p, code[j]);
    memcpy(e->tmpl[i].last, next, sizeof next);
    e->t_call = t_call;
    e->n_templated++;
    return p;
}

static unsigned char *put_raw(struct cp_logenc *e, unsigned char *p,
                              const union cp_rec *rec)
{
    *p++ = CP_LOG4_RAW;
    memcpy(p, rec, CP_LOG_RECORD_SIZE);
    e->n_raw++;
    return p + CP_LOG_RECORD_SIZE;
}

static int zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;

    for (i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* The ops of rec; the latest call's start follows. */
static size_t rec_ops(struct cp_logenc *e, const union cp_rec *rec,
                      uint64_t slot, unsigned char *out)
{
    unsigned char *p = out;

    switch (rec->kind) {
    case CP_REC_CALL:
        if (!end_fits(rec->call.start_ns, rec->call.end_ns))
            break;
        return (size_t)(put_call(e, p, &rec->call) - out);
    case CP_REC_GROUP: {
        const struct cp_rec_group *g = &rec->group;
        if (g->reserved0 || g->reserved1 ||
            !zero(g->reserved2, sizeof g->reserved2) ||
            !end_fits(g->start_ns, g->end_ns))
            break;
        *p++ = CP_LOG4_GROUP;
        p = put_varint(p, cp_log4_zigzag((uint64_t)g->group - e->last_group));
        *p++ = (unsigned char)g->result;
        p = put_varint(p, g->ncalls);
        p = put_times(p, &e->t_call, g->start_ns, g->end_ns);
        e->last_group = g->group;
        return (size_t)(p - out);
    }
    default: {
        const struct cp_log4_fields *k = cp_log4_fields_of(rec->kind);
        unsigned char *q;
        if (k && (q = put_templated(e, p, rec, slot, k)) != NULL)
            return (size_t)(q - out);
        break;
    }
    }
    return (size_t)(put_raw(e, p, rec) - out);
}

size_t cp_logenc_rec(struct cp_logenc *e, const union cp_rec *rec,
                     uint64_t slot, unsigned char *out)
{
    size_t n = rec_ops(e, rec, slot, out);

    if (rec->kind == CP_REC_CALL) {
        e->call_start = rec->call.start_ns;
        if (rec->call.start_ns > e->t_latest)
            e->t_latest = rec->call.start_ns;
    } else if (rec->kind == CP_REC_GPU) {
        e->dev_start = rec->gpu.start_ns;
        e->dev_end = rec->gpu.end_ns;
    }
    return n;
}

size_t cp_logenc_sync(struct cp_logenc *e, unsigned char *out)
{
    unsigned char *p = out;

    *p++ = CP_LOG4_SYNC;
    p = put_varint(p, e->t_call);
    p = put_varint(p, e->call_start);
    p = put_varint(p, e->dev_start);
    p = put_varint(p, e->dev_end);
    p = put_varint(p, e->last_group);
    p = put_varint(p, e->t_latest);
    /* the tables keep their memory, emptied: what comes next is
     * defined again from index 0 */
    e->nsig = 0;
    e->mru = 0;
    if (e->hash)
        memset(e->hash, 0, 2 * ((size_t)e->hmask + 1) * sizeof *e->hash);
    e->ntmpl = 0;
    e->tmpl_mru = 0;
    if (e->tmpl_hash)
        memset(e->tmpl_hash, 0,
               ((size_t)e->tmpl_hmask + 1) * sizeof *e->tmpl_hash);
    e->n_sync++;
    return (size_t)(p - out);
}

size_t cp_logenc_empty(uint64_t n, unsigned char *out)
{
    out[0] = CP_LOG4_EMPTY;
    return (size_t)(put_varint(out + 1, n) - out);
}

size_t cp_logenc_fold(uint64_t n, unsigned char *out)
{
    out[0] = CP_LOG4_FOLD;
    return (size_t)(put_varint(out + 1, n) - out);
}
