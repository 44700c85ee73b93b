/* cp_policy.c - the capture policy: detail windows and aggregates
 * (cp_policy.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp_policy.h"

struct cp_policy_sig {
    /* the signature */
    uint64_t comm_id, count;
    int32_t peer;
    uint8_t op, dtype, redop, grouped;
    /* its calls in the open interval */
    uint32_t calls, seq_first, seq_last;
    uint64_t first_ns, sum_ns, min_ns, max_ns;
    uint32_t hist[CP_POLICY_BUCKETS];
};

/* What a signature is: a call's fields that repeat. */
struct sigkey {
    uint64_t comm_id, count;
    int32_t peer;
    uint8_t op, dtype, redop, grouped;
};

/* A device-timed call folded, waiting for its device interval. */
struct cp_policy_wait {
    uint64_t slot; /* + 1; 0: free */
    struct sigkey key;
    uint64_t start_ns, end_ns;
    uint32_t seq;
};

static void unwait(struct cp_policy *p, struct cp_policy_wait *w,
                   uint64_t dur);

/* ---- parsing -------------------------------------------------------------- */

static int parse_u32(const char *key, const char *v, size_t len, uint32_t *out,
                     struct cp_error *err)
{
    uint64_t x = 0;
    size_t i;

    if (len == 0 || len > 10)
        return cp_errorf(err, "detail: %s: '%.*s' is not a number", key,
                         (int)len, v);
    for (i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return cp_errorf(err, "detail: %s: '%.*s' is not a number", key,
                             (int)len, v);
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (x > UINT32_MAX)
        return cp_errorf(err, "detail: %s: %.*s is past %u", key, (int)len,
                         v, UINT32_MAX);
    *out = (uint32_t)x;
    return 0;
}

/* A duration: digits then ms, s, m, h or nothing (seconds), into ms. */
static int parse_interval(const char *v, size_t len, uint32_t *ms,
                          struct cp_error *err)
{
    size_t d = 0;
    uint64_t x = 0, unit = 1000;

    while (d < len && d < 10 && v[d] >= '0' && v[d] <= '9')
        x = x * 10 + (uint64_t)(v[d++] - '0');
    if (d == 0 || (d < len && v[d] >= '0' && v[d] <= '9'))
        goto bad;
    if (len - d == 2 && !memcmp(v + d, "ms", 2))
        unit = 1;
    else if (len - d == 1 && v[d] == 's')
        unit = 1000;
    else if (len - d == 1 && v[d] == 'm')
        unit = 60000;
    else if (len - d == 1 && v[d] == 'h')
        unit = 3600000;
    else if (len != d)
        goto bad;
    x *= unit;
    if (x == 0 || x > 24ull * 3600000)
        return cp_errorf(err, "detail: interval: '%.*s' is not from 1 ms to "
                              "24 h",
                         (int)len, v);
    *ms = (uint32_t)x;
    return 0;
bad:
    return cp_errorf(err, "detail: interval: '%.*s' is not a duration (a "
                          "number and ms, s, m or h)",
                     (int)len, v);
}

int cp_policy_parse(const char *spec, struct cp_policy_cfg *cfg, int *on,
                    struct cp_error *err)
{
    const char *p = spec ? spec : "";

    cfg->first = CP_POLICY_FIRST_DEFAULT;
    cfg->window = CP_POLICY_WINDOW_DEFAULT;
    cfg->every = CP_POLICY_EVERY_DEFAULT;
    cfg->interval_ms = CP_POLICY_INTERVAL_MS_DEFAULT;
    cfg->trigger = CP_POLICY_TRIGGER_DEFAULT;
    *on = 1;
    if (!strcmp(p, "all")) {
        *on = 0;
        return 0;
    }
    if (!strcmp(p, "") || !strcmp(p, "default"))
        return 0;
    while (*p) {
        size_t len = strcspn(p, ",:"), klen;
        const char *eq;
        int rc;
        eq = memchr(p, '=', len);
        if (!eq)
            return cp_errorf(err, "detail: '%.*s' is not KEY=VALUE (keys: "
                                  "first, window, every, interval, "
                                  "trigger; or 'all')",
                             (int)len, p);
        klen = (size_t)(eq - p);
        eq++;
        if (klen == 5 && !memcmp(p, "first", 5))
            rc = parse_u32("first", eq, len - klen - 1, &cfg->first, err);
        else if (klen == 6 && !memcmp(p, "window", 6))
            rc = parse_u32("window", eq, len - klen - 1, &cfg->window, err);
        else if (klen == 5 && !memcmp(p, "every", 5))
            rc = parse_u32("every", eq, len - klen - 1, &cfg->every, err);
        else if (klen == 8 && !memcmp(p, "interval", 8))
            rc = parse_interval(eq, len - klen - 1, &cfg->interval_ms, err);
        else if (klen == 7 && !memcmp(p, "trigger", 7))
            rc = parse_u32("trigger", eq, len - klen - 1, &cfg->trigger, err);
        else
            return cp_errorf(err, "detail: unknown key '%.*s' (keys: first, "
                                  "window, every, interval, trigger)",
                             (int)klen, p);
        if (rc < 0)
            return -1;
        p += len;
        if (*p == ',' || *p == ':')
            p++;
    }
    if (cfg->every && cfg->window > cfg->every)
        return cp_errorf(err, "detail: window=%u is longer than every=%u",
                         cfg->window, cfg->every);
    return 0;
}

/* ---- the aggregates ------------------------------------------------------- */

int cp_policy_init(struct cp_policy *p, const struct cp_policy_cfg *cfg)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->interval_ns = (uint64_t)cfg->interval_ms * 1000000u;
    p->hmask = 2 * CP_POLICY_SIGS - 1;
    p->hash = calloc((size_t)p->hmask + 1, sizeof *p->hash);
    /* signatures are allocated as they come, a few at a time */
    p->pending = malloc(CP_POLICY_PENDING * sizeof *p->pending);
    p->wait = calloc(CP_POLICY_DEVICE_WAIT, sizeof *p->wait);
    p->folded_bits = calloc(CP_POLICY_SLOT_BITS / 64, sizeof *p->folded_bits);
    p->comms = calloc(CP_POLICY_COMMS, sizeof *p->comms);
    if (!p->hash || !p->pending || !p->wait || !p->folded_bits || !p->comms) {
        cp_policy_free(p);
        return -1;
    }
    return 0;
}

void cp_policy_free(struct cp_policy *p)
{
    free(p->sig);
    free(p->hash);
    free(p->pending);
    free(p->wait);
    free(p->folded_bits);
    free(p->comms);
    p->comms = NULL;
    p->sig = NULL;
    p->hash = NULL;
    p->pending = NULL;
    p->wait = NULL;
    p->folded_bits = NULL;
}

/* Bucket of a duration: 0..7 exact, then 8 per power of two. */
static unsigned bucket_of(uint64_t v)
{
    unsigned e;

    if (v < 8)
        return (unsigned)v;
    e = 63u - (unsigned)__builtin_clzll(v); /* >= 3 */
    if (e > 44)
        return CP_POLICY_BUCKETS - 1;
    return (e - 2) * 8 + (unsigned)((v >> (e - 3)) & 7);
}

/* The middle of bucket b. */
static uint64_t bucket_mid(unsigned b)
{
    unsigned e = b / 8 + 2, sub = b % 8;
    uint64_t lo;

    if (b < 8)
        return b;
    lo = (uint64_t)(8 + sub) << (e - 3);
    return lo + (lo >> 4);
}

static uint64_t quantile(const struct cp_policy_sig *s, double q)
{
    uint64_t want = (uint64_t)(q * (double)(s->calls - 1)) + 1, seen = 0, v;
    unsigned b;

    for (b = 0; b < CP_POLICY_BUCKETS; b++) {
        seen += s->hist[b];
        if (seen >= want)
            break;
    }
    v = bucket_mid(b < CP_POLICY_BUCKETS ? b : CP_POLICY_BUCKETS - 1);
    return v < s->min_ns ? s->min_ns : v > s->max_ns ? s->max_ns : v;
}

static void close_interval(struct cp_policy *p)
{
    uint32_t i;

    for (i = 0; i < p->nsig; i++) {
        const struct cp_policy_sig *s = &p->sig[i];
        struct cp_rec_agg *a;
        if (!s->calls)
            continue;
        if (p->npending == CP_POLICY_PENDING) {
            /* not written in time: the oldest goes */
            p->pending_head = (p->pending_head + 1) % CP_POLICY_PENDING;
            p->npending--;
            p->lost++;
        }
        a = &p->pending[(p->pending_head + p->npending) % CP_POLICY_PENDING];
        p->npending++;
        memset(a, 0, sizeof *a);
        a->kind = CP_REC_AGG;
        a->op = (uint8_t)(s->op | (s->grouped ? CP_AGG_GROUPED : 0));
        a->dtype = s->dtype;
        a->redop = s->redop;
        a->peer = s->peer;
        a->comm_id = s->comm_id;
        a->count = s->count;
        a->calls = s->calls;
        a->seq_first = s->seq_first;
        a->seq_last = s->seq_last;
        a->dur_q[0] = cp_q16_encode(s->min_ns);
        a->dur_q[1] = cp_q16_encode(quantile(s, 0.5));
        a->dur_q[2] = cp_q16_encode(quantile(s, 0.99));
        a->dur_q[3] = cp_q16_encode(s->max_ns);
        a->interval_ms = p->cfg.interval_ms;
        a->first_ns = s->first_ns;
        a->sum_ns = s->sum_ns;
        p->aggregates++;
    }
    /* the table starts again: an interval's signatures only */
    p->nsig = 0;
    memset(p->hash, 0, ((size_t)p->hmask + 1) * sizeof *p->hash);
}

/* Calls folded inside a group whose record has not come: their
 * signatures' indices must stay, so the interval is not closed yet (it
 * closes at the next call or tick after the group). */
static int groups_pending(const struct cp_policy *p)
{
    return p->grp[0].n || p->grp[1].n || p->grp[2].n || p->grp[3].n;
}

void cp_policy_tick(struct cp_policy *p, uint64_t now_ns, int final)
{
    uint32_t i;

    if (final && p->device)
        for (i = 0; i < CP_POLICY_DEVICE_WAIT; i++)
            if (p->wait[i].slot)
                unwait(p, &p->wait[i], p->wait[i].end_ns - p->wait[i].start_ns);
    if (p->nsig && (final || now_ns / p->interval_ns > p->cur) &&
        (final || !groups_pending(p)))
        close_interval(p);
}

int cp_policy_take(struct cp_policy *p, struct cp_rec_agg *out)
{
    if (!p->npending)
        return 0;
    *out = p->pending[p->pending_head];
    p->pending_head = (p->pending_head + 1) % CP_POLICY_PENDING;
    p->npending--;
    return 1;
}

void cp_policy_untake(struct cp_policy *p, const struct cp_rec_agg *a)
{
    if (p->npending == CP_POLICY_PENDING) {
        p->lost++;
        return;
    }
    p->pending_head = (p->pending_head + CP_POLICY_PENDING - 1) %
                      CP_POLICY_PENDING;
    p->pending[p->pending_head] = *a;
    p->npending++;
}


static struct sigkey key_of(const struct cp_rec_call *c)
{
    struct sigkey k;

    k.comm_id = c->comm_id;
    k.count = c->count;
    k.peer = c->peer;
    k.op = c->op;
    k.dtype = c->dtype;
    k.redop = c->redop;
    k.grouped = c->group != 0;
    return k;
}

static uint32_t sig_hash(const struct sigkey *c)
{
    uint64_t h = c->comm_id * 0x9e3779b97f4a7c15ull;

    h ^= c->count + ((uint64_t)c->op << 56) + ((uint64_t)c->dtype << 48) +
         ((uint64_t)c->redop << 40) + ((uint64_t)(uint32_t)c->peer << 8) +
         (uint64_t)c->grouped;
    h *= 0xff51afd7ed558ccdull;
    return (uint32_t)(h >> 32);
}

/* Whether s is the signature of these fields, compared one by one: a key
 * built first and compared as words made the loads wait on its narrower
 * stores. */
static inline int sig_is(const struct cp_policy_sig *s, uint64_t comm_id,
                         uint64_t count, int32_t peer, unsigned op,
                         unsigned dtype, unsigned redop, int grouped)
{
    return s->comm_id == comm_id && s->count == count && s->peer == peer &&
           s->op == op && s->dtype == dtype && s->redop == redop &&
           s->grouped == grouped;
}

/* The signature of c in the open interval, made when new; NULL when the
 * table is full. */
static struct cp_policy_sig *sig_find(struct cp_policy *p,
                                      const struct sigkey *c, uint32_t *index)
{
    uint32_t b = sig_hash(c) & p->hmask;
    int grouped = c->grouped;
    struct cp_policy_sig *s;

    for (; p->hash[b]; b = (b + 1) & p->hmask) {
        s = &p->sig[p->hash[b] - 1];
        if (sig_is(s, c->comm_id, c->count, c->peer, c->op, c->dtype,
                   c->redop, grouped)) {
            *index = p->hash[b] - 1;
            return s;
        }
    }
    if (p->nsig == CP_POLICY_SIGS)
        return NULL;
    if (p->nsig == p->alloc) {
        uint32_t n = p->alloc ? 2 * p->alloc : 16;
        struct cp_policy_sig *grown = realloc(p->sig, n * sizeof *grown);
        if (!grown)
            return NULL;
        p->sig = grown;
        p->alloc = n;
    }
    s = &p->sig[p->nsig];
    memset(s, 0, sizeof *s);
    s->comm_id = c->comm_id;
    s->count = c->count;
    s->peer = c->peer;
    s->op = c->op;
    s->dtype = c->dtype;
    s->redop = c->redop;
    s->grouped = (uint8_t)grouped;
    s->min_ns = UINT64_MAX;
    p->hash[b] = ++p->nsig;
    *index = p->nsig - 1;
    return s;
}

/* sig_find, remembered for sig_of_call. */
static struct cp_policy_sig *sig_get(struct cp_policy *p,
                                     const struct sigkey *c, uint32_t *index)
{
    struct cp_policy_sig *s = sig_find(p, c, index);

    if (s)
        p->mru = *index;
    return s;
}

/* The signature of call c in the open interval: the one last found when
 * c is of it (no key built), else sig_get's. */
static struct cp_policy_sig *sig_of_call(struct cp_policy *p,
                                         const struct cp_rec_call *c,
                                         uint32_t *index)
{
    struct sigkey key;

    if (p->mru < p->nsig &&
        sig_is(&p->sig[p->mru], c->comm_id, c->count, c->peer, c->op,
               c->dtype, c->redop, c->group != 0)) {
        *index = p->mru;
        return &p->sig[p->mru];
    }
    key = key_of(c);
    return sig_get(p, &key, index);
}

static void add(struct cp_policy_sig *s, uint32_t seq, uint64_t start,
                uint64_t dur)
{
    if (!s->calls) {
        s->seq_first = seq;
        s->first_ns = start;
    }
    s->seq_last = seq;
    s->calls++;
    s->sum_ns += dur;
    if (dur < s->min_ns)
        s->min_ns = dur;
    if (dur > s->max_ns)
        s->max_ns = dur;
    s->hist[bucket_of(dur)]++;
}

static struct cp_policy_group *group_of(struct cp_policy *p, uint32_t g)
{
    struct cp_policy_group *gr = &p->grp[g & 3];

    if (gr->group != g) {
        p->lost += gr->n / 2; /* a fifth group at once: never more than 4 */
        gr->group = g;
        gr->kept = 0;
        gr->n = 0;
    }
    return gr;
}

/* The calls of a group waiting for its interval: their durations are
 * the group's (a call inside a group runs when the group ends). */
static int group_record(struct cp_policy *p, const struct cp_rec_group *g)
{
    struct cp_policy_group *gr = &p->grp[g->group & 3];
    uint64_t dur = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
    uint32_t i;
    int fold;

    if (gr->group != g->group || !g->group)
        return 0;
    /* pairs: the signature's index, the call's seq */
    for (i = 0; i + 1 < gr->n; i += 2) {
        struct cp_policy_sig *s = &p->sig[gr->sig[i]];
        add(s, gr->sig[i + 1], g->start_ns, dur);
    }
    fold = gr->kept == 0 && gr->n > 0;
    gr->group = 0;
    gr->n = 0;
    gr->kept = 0;
    return fold;
}

/* Slot `slot` folded (1) or kept (0), for the device intervals that come
 * after it. */
static void slot_bit(struct cp_policy *p, uint64_t slot, int folded)
{
    uint64_t b = slot & (CP_POLICY_SLOT_BITS - 1);

    if (folded)
        p->folded_bits[b / 64] |= (uint64_t)1 << (b % 64);
    else
        p->folded_bits[b / 64] &= ~((uint64_t)1 << (b % 64));
}

static int slot_folded(const struct cp_policy *p, uint64_t slot)
{
    uint64_t b = slot & (CP_POLICY_SLOT_BITS - 1);

    return (p->folded_bits[b / 64] >> (b % 64)) & 1;
}

/* The interval of a call that started at start_ns made the open one (the
 * open one closed first when it is another, no group waiting). */
static void at_interval(struct cp_policy *p, uint64_t start_ns)
{
    uint64_t k;

    /* the open interval's, as most are: no division */
    if (p->nsig && start_ns - p->cur_start < p->interval_ns)
        return;
    k = start_ns / p->interval_ns;
    if (p->nsig && k != p->cur && !groups_pending(p))
        close_interval(p);
    if (!p->nsig) {
        p->cur = k;
        p->cur_start = k * p->interval_ns;
    }
}

/* A waiting call into its aggregate, with dur: its device interval's, or
 * its own host times' when none came (as the analysis times a call). */
static void unwait(struct cp_policy *p, struct cp_policy_wait *w, uint64_t dur)
{
    struct cp_policy_sig *s;
    uint32_t index;

    w->slot = 0;
    at_interval(p, w->start_ns);
    s = sig_get(p, &w->key, &index);
    if (!s)
        p->lost++; /* the call is gone already; the table is full */
    else
        add(s, w->seq, w->start_ns, dur);
}

/* The device interval of the call in slot g->slot: 1 (folded) when that
 * call was folded (its aggregate takes the device's duration), 0 when it
 * was kept (or is too far back to know: kept). */
static int device_interval(struct cp_policy *p, const struct cp_rec_gpu *g,
                           uint64_t slot)
{
    struct cp_policy_wait *w = &p->wait[g->slot % CP_POLICY_DEVICE_WAIT];

    if (w->slot != g->slot + 1)
        /* a folded call no longer waited for (it went into its
         * aggregate with its host times) goes with its interval */
        return g->slot < slot && slot - g->slot < CP_POLICY_SLOT_BITS &&
               slot_folded(p, g->slot);
    unwait(p, w, g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0);
    return 1;
}

/* A record of the NCCL profiler plugin's kinds about an earlier slot (its
 * call, or for a step its proxy operation): folded with it, when that
 * was folded. */
static int of_folded(const struct cp_policy *p, const union cp_rec *rec,
                     uint64_t slot)
{
    uint64_t x;

    switch (rec->kind) {
    case CP_REC_NCCL:
        x = rec->nccl.slot;
        break;
    case CP_REC_PROXY:
        x = rec->proxy.slot;
        break;
    case CP_REC_STEP:
        x = rec->step.proxy_slot;
        break;
    case CP_REC_TAG:
        x = rec->tag.slot;
        break;
    case CP_REC_PHASE:
        x = rec->phase.slot;
        break;
    case CP_REC_LINK:
        if (!rec->link.back || rec->link.back > slot)
            return 0;
        x = slot - rec->link.back;
        break;
    default:
        return 0;
    }
    return x < slot && slot - x < CP_POLICY_SLOT_BITS && slot_folded(p, x);
}

/* Whether the collective c is in a window a slow step opened on its
 * communicator.  The time between two instances' ends is the same on
 * every member (each leaves when the last has come).  Its usual is the
 * longest of them lately (a peak that decays by half in about 2,800
 * instances): a training step's gaps are short between its calls and
 * long at its boundary, so the usual is a step's compute.  A gap
 * cfg.trigger times the usual (after CP_POLICY_TRIGGER_WARM instances,
 * 1 ms at least) keeps that instance and the window's count after it, on
 * every member that saw it alike; the usual then takes it, so a slowdown
 * that stays opens one window, at its start. */
static int triggered(struct cp_policy *p, const struct cp_rec_call *c)
{
    struct cp_policy_comm *m = NULL;
    uint32_t i, h;
    double gap;

    if (!p->cfg.trigger || !cp_op_is_collective(c->op) || c->group ||
        c->end_ns == 0)
        return 0;
    h = (uint32_t)((c->comm_id * 0x9e3779b97f4a7c15ull) >> 32);
    for (i = 0; i < CP_POLICY_COMMS; i++) {
        m = &p->comms[(h + i) % CP_POLICY_COMMS];
        if (m->comm_id == c->comm_id || m->comm_id == 0)
            break;
    }
    if (i == CP_POLICY_COMMS)
        return 0; /* more communicators than watched */
    if (m->comm_id == 0)
        m->comm_id = c->comm_id;
    if (m->last_end && c->end_ns > m->last_end) {
        gap = (double)(c->end_ns - m->last_end);
        if (m->seen >= CP_POLICY_TRIGGER_WARM && gap > 1e6 &&
            gap > (double)p->cfg.trigger * m->usual &&
            !(c->seq >= m->keep_from && c->seq < m->keep_to)) {
            m->keep_from = c->seq;
            m->keep_to = c->seq + (p->cfg.window ? p->cfg.window : 1);
            p->triggers++;
        }
        m->usual -= m->usual / 4096;
        if (gap > m->usual)
            m->usual = gap;
        m->seen++;
    }
    m->last_end = c->end_ns;
    return c->seq >= m->keep_from && c->seq < m->keep_to;
}

static int fold(struct cp_policy *p, const union cp_rec *rec, uint64_t slot)
{
    const struct cp_rec_call *c = &rec->call;
    struct cp_policy_sig *s;
    struct cp_policy_group *gr = NULL;
    uint32_t index;
    int grouped;

    if (rec->kind == CP_REC_GROUP)
        return group_record(p, &rec->group);
    if (rec->kind == CP_REC_GPU)
        return device_interval(p, &rec->gpu, slot);
    if (rec->kind != CP_REC_CALL)
        return of_folded(p, rec, slot);
    grouped = c->group != 0;
    if (grouped)
        gr = group_of(p, c->group);
    if (triggered(p, c) |
            cp_policy_keeps(p->cfg.first, p->cfg.window, p->cfg.every,
                            c->seq) ||
        c->end_ns == 0 || c->end_ns < c->start_ns || c->result != 0 ||
        (c->flags & ~(CP_CALL_IN_GROUP | CP_CALL_INPLACE)) ||
        (grouped && (p->device || gr->n + 2 > CP_POLICY_GROUP_CALLS)))
        goto keep;
    if (p->device && !grouped) {
        /* its duration is its device interval's, written later (kind 5)
         * by the timer; its own times' when none comes before its place
         * is needed */
        struct cp_policy_wait *w = &p->wait[slot % CP_POLICY_DEVICE_WAIT];
        if (w->slot)
            unwait(p, w, w->end_ns - w->start_ns);
        w->slot = slot + 1;
        w->key = key_of(c); /* not grouped: calls in groups are kept */
        w->start_ns = c->start_ns;
        w->end_ns = c->end_ns;
        w->seq = c->seq;
        return 1;
    }
    at_interval(p, c->start_ns);
    s = sig_of_call(p, c, &index);
    if (!s)
        goto keep;
    if (grouped) {
        /* its duration is its group's: it waits for the group's record */
        if (!s->calls) {
            s->seq_first = c->seq;
            s->first_ns = c->start_ns;
        }
        gr->sig[gr->n++] = index;
        gr->sig[gr->n++] = c->seq;
    } else {
        add(s, c->seq, c->start_ns, c->end_ns - c->start_ns);
    }
    return 1;
keep:
    if (gr)
        gr->kept++;
    return 0;
}

int cp_policy_fold(struct cp_policy *p, const union cp_rec *rec,
                   uint64_t slot)
{
    int folded = fold(p, rec, slot);

    slot_bit(p, slot, folded);
    if (folded)
        p->folded++;
    else if (rec->kind == CP_REC_CALL)
        p->kept++;
    return folded;
}
