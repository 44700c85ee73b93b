/* cp_arrive.c - who arrived last at the recent instances of each
 * communicator's collectives. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cp_arrive.h"

struct inst {
    uint32_t seq;
    uint32_t count; /* reporters heard */
    int taken;
    int last_rank;
    uint64_t first_ns, last_ns;
};

struct acomm {
    uint64_t comm;
    uint32_t nranks;
    uint32_t maxcount; /* the most reporters any instance had */
    struct inst inst[CP_ARRIVE_KEEP]; /* count 0: free */
};

struct cp_arrive {
    struct acomm **comms;
    size_t n, cap;
    size_t hint; /* the communicator found last */
};

struct cp_arrive *cp_arrive_new(void)
{
    return calloc(1, sizeof(struct cp_arrive));
}

void cp_arrive_free(struct cp_arrive *a)
{
    size_t i;

    if (!a)
        return;
    for (i = 0; i < a->n; i++)
        free(a->comms[i]);
    free(a->comms);
    free(a);
}

static struct acomm *comm_of(struct cp_arrive *a, uint64_t comm)
{
    size_t i;

    if (a->hint < a->n && a->comms[a->hint]->comm == comm)
        return a->comms[a->hint];
    for (i = 0; i < a->n; i++)
        if (a->comms[i]->comm == comm) {
            a->hint = i;
            return a->comms[i];
        }
    if (a->n >= CP_ARRIVE_COMMS)
        return NULL;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 8;
        struct acomm **g = realloc(a->comms, cap * sizeof *g);
        if (!g)
            return NULL;
        a->comms = g;
        a->cap = cap;
    }
    if (!(a->comms[a->n] = calloc(1, sizeof(struct acomm))))
        return NULL;
    a->comms[a->n]->comm = comm;
    a->hint = a->n;
    return a->comms[a->n++];
}

/* The slot of seq in c: direct-mapped (seq modulo CP_ARRIVE_KEEP), so a
 * call costs the same whatever is kept; a newer instance takes an older
 * one's slot, an instance older than its slot's is dropped (NULL). */
static struct inst *inst_of(struct acomm *c, uint32_t seq)
{
    struct inst *s = &c->inst[seq % CP_ARRIVE_KEEP];

    if (s->count && s->seq == seq)
        return s;
    if (s->count && (int32_t)(seq - s->seq) < 0)
        return NULL;
    memset(s, 0, sizeof *s);
    s->seq = seq;
    s->last_rank = -1;
    return s;
}

int cp_arrive_add(struct cp_arrive *a, uint64_t comm, uint32_t nranks,
                  uint32_t seq, int last_rank, uint64_t first_ns,
                  uint64_t last_ns)
{
    struct acomm *c = comm_of(a, comm);
    struct inst *s;

    if (!c)
        return -1;
    c->nranks = nranks;
    if (!(s = inst_of(c, seq)))
        return 0; /* older than every instance kept */
    if (!s->count || first_ns < s->first_ns)
        s->first_ns = first_ns;
    if (!s->count || last_ns > s->last_ns) {
        s->last_ns = last_ns;
        s->last_rank = last_rank;
    }
    s->count++;
    if (s->count > c->maxcount)
        c->maxcount = s->count;
    return 0;
}

static int by_seq(const void *x, const void *y)
{
    const struct inst *a = *(const struct inst *const *)x;
    const struct inst *b = *(const struct inst *const *)y;

    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* c's complete instances (untaken only, when fresh), oldest first, in
 * out[CP_ARRIVE_KEEP]: how many. */
static size_t complete(const struct acomm *c, int fresh,
                       const struct inst **out)
{
    size_t i, n = 0;

    for (i = 0; i < CP_ARRIVE_KEEP; i++)
        if (c->inst[i].count && c->inst[i].count == c->maxcount &&
            !(fresh && c->inst[i].taken))
            out[n++] = &c->inst[i];
    qsort(out, n, sizeof *out, by_seq);
    return n;
}

void cp_arrive_take(struct cp_arrive *a, size_t max, cp_arrive_fn fn,
                    void *arg)
{
    const struct inst *done[CP_ARRIVE_KEEP];
    size_t i, k, n;

    for (i = 0; i < a->n; i++) {
        struct acomm *c = a->comms[i];
        n = complete(c, 1, done);
        for (k = 0; k < n; k++) {
            ((struct inst *)done[k])->taken = 1;
            if (n - k <= max)
                fn(arg, c->comm, c->nranks, done[k]->seq, done[k]->last_rank,
                   done[k]->first_ns, done[k]->last_ns);
        }
    }
}

static int by_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

    return a < b ? -1 : a > b;
}

/* The rank last at most of the newest `window` complete instances of c. */
static int last_of(const struct acomm *c, size_t window,
                   struct cp_arrive_last *out)
{
    const struct inst *done[CP_ARRIVE_KEEP];
    uint64_t spread[CP_ARRIVE_KEEP];
    size_t n = complete(c, 0, done), from, i, k, best = 0, ns = 0;
    unsigned most = 0;

    if (n == 0)
        return 0;
    from = n > window ? n - window : 0;
    for (i = from; i < n; i++) { /* the candidate of each rank seen last */
        unsigned times = 0;
        for (k = from; k < n; k++)
            times += done[k]->last_rank == done[i]->last_rank;
        if (times > most) {
            most = times;
            best = i;
        }
    }
    for (k = from; k < n; k++)
        if (done[k]->last_rank == done[best]->last_rank)
            spread[ns++] = done[k]->last_ns - done[k]->first_ns;
    qsort(spread, ns, sizeof spread[0], by_u64);
    memset(out, 0, sizeof *out);
    out->comm = c->comm;
    out->nranks = c->nranks;
    out->rank = done[best]->last_rank;
    out->last_of = most;
    out->complete = (unsigned)(n - from);
    out->spread_ns = spread[ns / 2];
    return 1;
}

void cp_arrive_lasts(const struct cp_arrive *a, size_t window,
                     void (*fn)(void *arg, const struct cp_arrive_last *l),
                     void *arg)
{
    struct cp_arrive_last l;
    size_t i;

    for (i = 0; i < a->n; i++)
        if (a->comms[i]->nranks >= 3 && last_of(a->comms[i], window, &l))
            fn(arg, &l);
}
