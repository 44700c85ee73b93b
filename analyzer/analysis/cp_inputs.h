/* cp_inputs.h - the inputs of an analysis (cp_inputs.c): listed, checked
 * once, the job chosen; the scans a pass opens.
 * Internal to analyzer/analysis/.
 */
#ifndef COLLPROF_CP_INPUTS_H
#define COLLPROF_CP_INPUTS_H

#include "cp_analysis_int.h"

/* Close the descriptors kept for the passes (the files are opened again
 * by name, and checked to be the same, by any later reader). */
void an_release_fds(struct cp_analysis *an);

/* The memory of a pass's scans: one block for all files, kept from the
 * first pass to the next (the same size), freed after the last. */
struct an_scan_arena {
    void *mem;
    size_t size;
    /* the places of the pass before (CP_SCAN_RESUME): place bytes
     * each, the first nplaces written by scans */
    size_t place, nplaces;
};

/* Open the scans of a pass over the ranks' logs into st: with offsets
 * (NULL in the clock pass) and at most limit records per file (0: all),
 * in arena.  -1: out of memory. */
int an_open_files(struct cp_analysis *an, struct an_state *st,
                  const double *offsets, uint64_t limit,
                  struct an_scan_arena *arena);

/* The successful calls of rank's log (index into an->ranks) as the main
 * pass counts them (an->ranks[].calls - failed): the calls that returned,
 * but those that failed with plausible times; 0 for a log that cannot be
 * read.  For a log without the NCCL profiler plugin's replays. */
uint64_t an_successful_calls(const struct cp_analysis *an, size_t rank);

/* The prologue of every rank's log (struct an_prologue): its first
 * records, up to AN_PROLOGUE_TOTAL calls over all logs (AN_PROLOGUE_CALLS
 * at least) or AN_PROLOGUE_RECORDS records each,
 * with the nodes' clock offsets (s).  A log that cannot be read adds
 * nothing (the main pass says why).  Free p->comms.  0, or -1 (memory). */
int an_read_prologue(const struct cp_analysis *an, const double *offsets,
                     struct an_prologue *p);

/* The inputs under paths, each checked once (its header and first
 * records read into its place in arena, places by input index).  The
 * paths are listed first, so that the arena is laid out for all the
 * files before the first is read; problems come in the order of the
 * paths.  The checks run on jobs threads; the places are laid out for
 * passes of pass_jobs.  -1: out of memory. */
int an_collect_inputs(struct cp_analysis *an, const char *const *paths,
                      unsigned jobs, unsigned pass_jobs,
                      struct an_scan_arena *arena);

/* Keep the job most inputs belong to; the others are skipped.  (The usual
 * case, one job, is one pass; mixed jobs cost inputs x jobs.) */
int an_select_job(struct cp_analysis *an);

/* Ranks (one per analyzed input, by global rank) and nodes (in the order of
 * their lowest rank). */
int an_build_ranks_and_nodes(struct cp_analysis *an);

#endif /* COLLPROF_CP_INPUTS_H */
