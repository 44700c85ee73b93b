/* cp_comm.h - the shim's table of live communicators.
 *
 * Maps an ncclComm_t handle to what every record needs: the communicator id
 * (equal on all members), nranks, this rank, and the sequence counters.
 * Lookups are lock-free (open addressing over a fixed array); inserts and
 * removals take a mutex, which is fine since they happen at communicator
 * creation and destruction only.  Removed entries stay as tombstones, so a
 * handle value that malloc reuses for a new communicator finds the new entry.
 */
#ifndef COLLPROF_CP_COMM_H
#define COLLPROF_CP_COMM_H

#include <stdint.h>

#define CP_COMM_TABLE_SIZE 4096 /* power of two */

enum cp_comm_state { CP_COMM_FREE = 0, CP_COMM_LIVE = 1, CP_COMM_DEAD = 2 };

struct cp_comm {
    const void *handle; /* the ncclComm_t */
    int state;          /* enum cp_comm_state, atomic */
    uint64_t id;
    uint32_t nranks; /* atomic: 0 until known (non-blocking init) */
    uint32_t rank;
    uint32_t seq;        /* atomic: next collective sequence number */
    uint32_t derive_seq; /* atomic: splits and shrinks of this comm so far */
    uint32_t *p2p;       /* 2*nranks counters: [peer*2 + (0 send | 1 recv)] */
    uint32_t p2p_size;   /* entries in p2p */
};

/* The live entry for handle, or NULL. */
struct cp_comm *cp_comm_find(const void *handle);

/* Add a live entry; returns it, or NULL when the table is full or the
 * counter array cannot be allocated (the caller records without it). */
struct cp_comm *cp_comm_add(const void *handle, uint64_t id, uint32_t nranks,
                            uint32_t rank);

/* Mark the live entry of handle dead (its counters are kept). */
void cp_comm_remove(const void *handle);

/* Size the point-to-point counters once nranks becomes known. */
void cp_comm_set_size(struct cp_comm *c, uint32_t nranks, uint32_t rank);

/* Forget everything (tests only). */
void cp_comm_reset(void);

/* 64-bit mixing helpers for communicator ids; never return 0. */
uint64_t cp_hash_bytes(const void *data, size_t len, uint64_t seed);
uint64_t cp_hash_mix(uint64_t a, uint64_t b);

#endif
