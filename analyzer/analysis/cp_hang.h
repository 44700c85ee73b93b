/* cp_hang.h - what an unfinished job was doing when it stopped.
 *
 * Reads the rank logs of the analysis again (cp_logread.h), one at a time,
 * keeping per communicator member the last collective it entered and the
 * last it finished, per rank the call it was inside when its log ends
 * (entry records: end_ns 0, log format 2) and the last one it left, and per
 * communicator a signature of every instance (op, count, datatype,
 * reduction, root) to compare the members' calls.  From that it names:
 *   hang      a collective instance some members entered and never left,
 *             and the ranks that never arrived (where they were instead);
 *   deadlock  a cycle of such waits across communicators;
 *   mismatch  members of one instance that called different things;
 *   killed    the job ended with calls in flight; a rank that stopped
 *             inside a call its peers saw fail.
 * Memory: per communicator 32 bytes per instance for the signatures of
 * its latest CP_HANG_SIG_WINDOW instances (a window, so that memory does
 * not grow with the length of the run; the ring grows with the calls
 * noted, never with a claimed seq alone), per member and per rank a few
 * calls; the member tables, sized by claimed ranks, within AN_HANG_BUDGET
 * (cp_analysis_int.h: a communicator past it is refused and named).
 * docs/analysis.md ("Hangs") explains the method, docs/report-schema.md
 * the `hang` section of report.json.
 */
#ifndef COLLPROF_CP_HANG_H
#define COLLPROF_CP_HANG_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cp_analysis.h"

/* Instances per communicator whose signatures are compared. */
#define CP_HANG_MAX_SEQ (1u << 22)
/* The latest instances per communicator whose signatures are kept and
 * compared (a power of two): older ones are compared only among the logs
 * read before a later instance took their slot. */
#define CP_HANG_SIG_WINDOW (1u << 14)

struct cp_hang; /* opaque; owned by the struct cp_analysis it belongs to */

/* A collective instance the pass looks for while it reads every log
 * anyway (the start of a training step: cp_analysis.c, warmup_end), so
 * that finding it costs no read of its own: in each rank's log but
 * skip_rank's (and those the main pass could not read), the first call
 * record of comm_id, seq and op; earliest becomes the least of its start
 * (on the rank's node's corrected clock) and what it held.  failed: a log
 * it needed could not be read (the earliest start is then unknown). */
struct cp_hang_watch {
    uint64_t comm_id;
    uint32_t seq;
    uint8_t op;
    long skip_rank;   /* index into an->ranks */
    int64_t earliest; /* in and out */
    int failed;       /* out */
};

/* The reading of every rank's log that cp_hang_analyze judges, started
 * on a thread of its own, so that it overlaps what the caller does
 * meanwhile (collprof analyze -j N: the main pass).  an's inputs, ranks
 * and nodes (their clock offsets too) must be built, and stay as they are
 * until cp_hang_analyze, but for what the main pass changes beside it
 * (the inputs' status and counts, the ranks' totals), which this read
 * does not look at.  The read keeps the earliest start of each
 * communicator's first instances, where cp_hang_analyze then finds the
 * watch (or, past them, reads each log up to it).  NULL when memory or a
 * thread was refused (cp_hang_analyze then reads itself). */
struct cp_hang_read;
struct cp_hang_read *cp_hang_read_start(struct cp_analysis *an);
/* Wait for rd's read and free it, for a caller that will not call
 * cp_hang_analyze (an error on its way); accepts NULL. */
void cp_hang_read_destroy(struct cp_hang_read *rd);

/* Analyze an (its inputs, ranks and nodes must be built) for hangs,
 * deadlocks, mismatches and kills: fills an->hang (NULL when the job shows
 * none of them, so that a healthy job's report does not change) and adds
 * the findings (an_add_finding); watch (NULL: none) is looked for in the
 * same reads.  rd: the read started by cp_hang_read_start (taken: waited
 * for and freed here), or NULL to read now.  The same result either way.
 * Returns 0, or -1 when memory ran out. */
int cp_hang_analyze(struct cp_analysis *an, struct cp_hang_read *rd,
                    struct cp_hang_watch *watch);

/* The verdict's first line ("collprof: job 17.0: HUNG in ..."), without a
 * newline, or NULL when an has no hang section.  Owned by an. */
const char *cp_hang_headline(const struct cp_analysis *an);

/* report.json's `hang` section, a new reference; NULL when an has none or
 * memory ran out (a JSON builder, cp_jsonout.h). */
json_t *cp_hang_to_json(const struct cp_analysis *an);

/* Destroy; accepts NULL. */
void cp_hang_destroy(struct cp_hang *hang);

#endif
