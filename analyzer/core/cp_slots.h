/* cp_slots.h - an open-addressing table of indices into the caller's own
 * array: each slot holds an index + 1 (0: empty), the capacity is a power
 * of two, collisions are probed linearly.  The table keeps no keys: the
 * caller hashes a key (with the mixers below) and says whether the
 * element at an index holds it.  Header-only; the probe inlines into each
 * caller with its own comparison. */
#ifndef COLLPROF_CP_SLOTS_H
#define COLLPROF_CP_SLOTS_H

#include <stdint.h>
#include <stdlib.h>

struct cp_slots {
    uint32_t *v;
    size_t cap; /* 0 (no table yet) or a power of two */
};

/* A hash of a 64-bit key (the finalizer of MurmurHash3). */
static inline size_t cp_slots_mix1(uint64_t id)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id;
}

/* A hash of a key of two 64-bit parts. */
static inline size_t cp_slots_mix2(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (size_t)x;
}

/* A hash of a string (FNV-1a, folded). */
static inline size_t cp_slots_name(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return (size_t)(h ^ (h >> 32));
}

/* An empty table of cap slots (a power of two), replacing *t's, which is
 * freed.  0, or -1 out of memory (*t unchanged). */
static inline int cp_slots_reset(struct cp_slots *t, size_t cap)
{
    uint32_t *v = calloc(cap, sizeof *v);

    if (!v)
        return -1;
    free(t->v);
    t->v = v;
    t->cap = cap;
    return 0;
}

/* The slot where the probe for a key of hash h stops: the first that
 * holds an index is(ctx, index) says holds the key, or the empty slot
 * where the key goes.  t->cap must be > 0 and the table not full. */
static inline size_t cp_slots_probe(const struct cp_slots *t, size_t h,
                                    int (*is)(const void *ctx, size_t index),
                                    const void *ctx)
{
    size_t k;

    for (k = h & (t->cap - 1); t->v[k] && !is(ctx, t->v[k] - 1);
         k = (k + 1) & (t->cap - 1))
        ;
    return k;
}

/* The index in slot k, -1 when it is empty. */
static inline long cp_slots_at(const struct cp_slots *t, size_t k)
{
    return t->v[k] ? (long)t->v[k] - 1 : -1;
}

/* Put index into slot k, an empty one cp_slots_probe stopped at. */
static inline void cp_slots_set(struct cp_slots *t, size_t k, size_t index)
{
    t->v[k] = (uint32_t)(index + 1);
}

/* Put index into the first empty slot from hash h on (a key not in the
 * table yet, or one whose first entry is to stay first). */
static inline void cp_slots_put(struct cp_slots *t, size_t h, size_t index)
{
    size_t k;

    for (k = h & (t->cap - 1); t->v[k]; k = (k + 1) & (t->cap - 1))
        ;
    t->v[k] = (uint32_t)(index + 1);
}

/* Room for index n, keeping the table at most half full: when it would
 * be more, a table of twice the slots (first, when there is none), into
 * which indices 0 .. n - 1 are put again in order, each at
 * hash_of(ctx, i).  0, or -1 out of memory or past 2^32 - 2 indices (*t
 * unchanged). */
static inline int cp_slots_room(struct cp_slots *t, size_t n, size_t first,
                                size_t (*hash_of)(const void *ctx, size_t i),
                                const void *ctx)
{
    size_t i;

    if (n >= UINT32_MAX - 1)
        return -1;
    if (2 * (n + 1) <= t->cap)
        return 0;
    if (cp_slots_reset(t, t->cap ? 2 * t->cap : first) < 0)
        return -1;
    for (i = 0; i < n; i++)
        cp_slots_put(t, hash_of(ctx, i), i);
    return 0;
}

static inline void cp_slots_free(struct cp_slots *t)
{
    free(t->v);
    t->v = NULL;
    t->cap = 0;
}

#endif
