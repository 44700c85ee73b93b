/* cp_comm.c - lock-free lookup table of communicators. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cp_comm.h"

static struct cp_comm table[CP_COMM_TABLE_SIZE];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t finalize(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x ? x : 1;
}

uint64_t cp_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ seed;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return finalize(h);
}

uint64_t cp_hash_mix(uint64_t a, uint64_t b)
{
    return finalize(a ^ finalize(b + UINT64_C(0x9e3779b97f4a7c15)));
}

static size_t slot_of(const void *handle)
{
    uint64_t h = finalize((uint64_t)(uintptr_t)handle);
    return (size_t)(h & (CP_COMM_TABLE_SIZE - 1));
}

struct cp_comm *cp_comm_find(const void *handle)
{
    size_t i = slot_of(handle), n;

    for (n = 0; n < CP_COMM_TABLE_SIZE; n++) {
        struct cp_comm *c = &table[(i + n) & (CP_COMM_TABLE_SIZE - 1)];
        int state = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
        if (state == CP_COMM_FREE)
            return NULL;
        if (state == CP_COMM_LIVE && c->handle == handle)
            return c;
    }
    return NULL;
}

void cp_comm_set_size(struct cp_comm *c, uint32_t nranks, uint32_t rank)
{
    uint32_t *p2p = NULL;

    if (nranks && nranks <= (UINT32_MAX / 2)) {
        p2p = calloc((size_t)nranks * 2, sizeof *p2p);
    }
    c->rank = rank;
    c->p2p = p2p;
    c->p2p_size = p2p ? nranks * 2 : 0;
    __atomic_store_n(&c->nranks, nranks, __ATOMIC_RELEASE);
}

struct cp_comm *cp_comm_add(const void *handle, uint64_t id, uint32_t nranks,
                            uint32_t rank)
{
    struct cp_comm *found = NULL;
    size_t i = slot_of(handle), n;

    pthread_mutex_lock(&table_lock);
    for (n = 0; n < CP_COMM_TABLE_SIZE; n++) {
        struct cp_comm *c = &table[(i + n) & (CP_COMM_TABLE_SIZE - 1)];
        if (__atomic_load_n(&c->state, __ATOMIC_RELAXED) != CP_COMM_FREE)
            continue;
        c->handle = handle;
        c->id = id;
        c->seq = 0;
        c->derive_seq = 0;
        c->nranks = 0;
        cp_comm_set_size(c, nranks, rank);
        __atomic_store_n(&c->state, CP_COMM_LIVE, __ATOMIC_RELEASE);
        found = c;
        break;
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

void cp_comm_remove(const void *handle)
{
    struct cp_comm *c;

    pthread_mutex_lock(&table_lock);
    c = cp_comm_find(handle);
    if (c)
        __atomic_store_n(&c->state, CP_COMM_DEAD, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&table_lock);
}

void cp_comm_reset(void)
{
    size_t i;

    pthread_mutex_lock(&table_lock);
    for (i = 0; i < CP_COMM_TABLE_SIZE; i++)
        free(table[i].p2p);
    memset(table, 0, sizeof table);
    pthread_mutex_unlock(&table_lock);
}
