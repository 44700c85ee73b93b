/* cp_aggregate.h - the aggregates of the stream (cp_aggregate.c): clock
 * offsets, communicators, steps, summary, timeline, slowest calls.
 * Internal to analyzer/analysis/.
 */
#ifndef COLLPROF_CP_AGGREGATE_H
#define COLLPROF_CP_AGGREGATE_H

#include "cp_analysis_int.h"

/* The heaps of the stream as lists, largest first. */
int an_build_slowest(struct cp_analysis *an, int64_t origin,
                     struct an_top *top, struct cp_analysis_instance **out,
                     size_t *nout);

void an_describe_window(struct cp_analysis *an,
                        const struct cp_analysis_opts *opts);

/* Per-node offsets from the prefix pass's samples: the median of each
 * (node, reference) pair, chained from node 0 outwards, kept within what
 * causality allows; applied only where that excludes a shared clock. */
void an_solve_offsets(struct cp_analysis *an, struct an_state *st,
                      double *offsets);

int an_build_comms(struct cp_analysis *an, struct an_state *st);

/* The training steps in the run: the period of the calls of the lowest
 * rank (cp_steps: communicator, operation, count and type in the order the
 * rank made them), or unknown (0): then nothing is said per step; given:
 * that many.  0, or -1 (memory). */
int an_estimate_steps(struct cp_analysis *an, unsigned given);
/* The same, each rank's successful calls asked of successful (the main
 * pass's counts, or a count of its log: an_successful_calls), in the
 * order the rank is picked in, until one with 4 or more.  0, or -1. */
int an_steps_pick(struct cp_analysis *an,
                  uint64_t (*successful)(const struct cp_analysis *an,
                                         size_t rank));

void an_finish_summary(struct cp_analysis *an, struct an_state *st,
                       const struct an_eval *ev, size_t nev);

/* The windows of the main pass, widened to the whole span (the first
 * arrival may precede every own interval) and clipped to it. */
int an_build_timeline(struct cp_analysis *an, struct an_state *st);

int an_find_missing_ranks(struct cp_analysis *an);

#endif /* COLLPROF_CP_AGGREGATE_H */
