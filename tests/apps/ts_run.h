/* ts_run.h - the state of one train_sim process: who it is, where in the
 * run it is (for messages), the --expect stream, and reusable buffers.
 *
 * A failed NCCL call or a wrong value ends the process through
 * ts_run_fail(): the peers are blocked in, or past, a collective this rank
 * will never finish, so there is nothing left to clean up that matters, and
 * the exit status and the one message are what the tests look at.
 */
#ifndef TS_RUN_H
#define TS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TS_RUN_PROGRAM "train_sim"

enum { TS_RUN_SCRATCH_SLOTS = 8 };
enum { TS_RUN_STEP_INIT = -1, TS_RUN_STEP_FINAL = -2 };

struct ts_faults;

struct ts_run {
    int rank;   /* in the world */
    int nranks; /* world size */
    int step;   /* >= 0, or TS_RUN_STEP_INIT / TS_RUN_STEP_FINAL */
    FILE *expect;          /* --expect stream, or NULL */
    uint64_t calls;        /* data-moving NCCL calls made so far */
    uint64_t collectives;  /* of them collectives (ts_fault.c counts) */
    struct ts_faults *faults; /* planted faults of this rank, or NULL */
    bool faulted;          /* a mismatch or swap was acted out: results of
                              this rank are no longer checked */
    bool corrupt;          /* --corrupt: rank 1 perturbs one all-reduce */
    bool corrupted;        /* ... and has done so */
    long late_ns;          /* --late: computes this long before each of its
                              collectives (0: on time) */
    void *scratch[TS_RUN_SCRATCH_SLOTS];
    size_t scratch_bytes[TS_RUN_SCRATCH_SLOTS];
};

/* A run with no buffers, at step TS_RUN_STEP_INIT. */
void ts_run_init(struct ts_run *run, int rank, int nranks);

/* Free the buffers (the expect stream is the caller's). */
void ts_run_release(struct ts_run *run);

/* The buffer of slot, at least bytes long; owned by run, valid until the
 * next call for the same slot.  Ends the process when memory runs out. */
void *ts_run_scratch(struct ts_run *run, int slot, size_t bytes);

/* "step 3", "init" or "final", for messages. */
const char *ts_run_phase(const struct ts_run *run, char *buf, size_t len);

/* Print "train_sim: rank R PHASE " and the message to stderr, exit 1. */
__attribute__((noreturn, format(printf, 2, 3))) void
ts_run_fail(const struct ts_run *run, const char *fmt, ...);

#endif
