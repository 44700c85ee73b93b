/* cp_steps.h - the training steps of a job, from the order of one rank's
 * calls (docs/analysis.md, "Steps").
 *
 * A step repeats the same calls in the same order: the same communicator,
 * operation, count and type.  The signature of each call is a hash of
 * those; the step is the shortest period P such that one stretch of calls
 * repeats with period P exactly, at least twice, and that stretch covers
 * most of the calls (a setup before the loop and a report after it are
 * left out).  The steps are the stretch's length over P.  Nothing found:
 * unknown (0), never a guess.
 */
#ifndef COLLPROF_CP_STEPS_H
#define COLLPROF_CP_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "cp_error.h"

/* Calls of one rank read for the period. */
#define CP_STEPS_CALLS 8192

struct cp_steps_result {
    unsigned steps;   /* 0: unknown */
    size_t period;    /* calls per step (0: unknown) */
    size_t first;     /* index of the first call of the periodic stretch */
    int by_pauses;    /* the calls all look alike: pauses mark the steps */
};

/* The steps in sig[0..len) (signatures, 0 = a call not to use) of a rank
 * that made total calls in all (>= len; the calls after len are taken to
 * go on with the period when the stretch reaches len).  start/end (may be
 * NULL): each call's times, for the pauses when every call looks alike. */
void cp_steps_find(const uint32_t *sig, const int64_t *start,
                   const int64_t *end, size_t len, uint64_t total,
                   struct cp_steps_result *out);

/* Read the first CP_STEPS_CALLS successful calls of the log at path and
 * find its steps (total: the rank's successful calls in all).  known: what
 * the analysis' first open of path found (cp_logread.h), or NULL to open
 * and check it here.  Returns 0, or -1 with err filled (the file
 * unreadable, no memory). */
struct cp_logfile_known;
int cp_steps_from_log(const char *path, const struct cp_logfile_known *known,
                      uint64_t total, struct cp_steps_result *out,
                      struct cp_error *err);

#endif
