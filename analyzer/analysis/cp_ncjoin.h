/* cp_ncjoin.h - what NCCL's profiler plugin knew about each analyzed call:
 * the algorithm, protocol, channels and kernel interval, per call record of
 * the file the join reads (docs/analysis.md, "The shim and the plugin of one
 * process").
 *
 * A process run with both capture paths has two logs: the shim's call
 * records (API calls, the host's times) and the plugin's (NCCL's tasks,
 * what NCCL chose, the kernel's GPU interval).  Their sequence numbers are
 * not comparable: the plugin counts every task NCCL launched, including
 * those replayed from a CUDA graph, and the shim every API call, including
 * a capture that ran nothing; their communicator ids differ too (the
 * plugin's is NCCL's commHash).  The key is each communicator's call order:
 * per pair of communicators, the shim's calls that ran (not captured, not
 * refused) and the plugin's calls not launched from a graph are the same
 * calls in the same order, collectives in one sequence and send/recv in
 * one per (peer, direction).  A pair of calls is joined when op, count,
 * root or peer and rank agree and the plugin's launch lies within the
 * shim's call (or its group's interval): NCCL launches a call before the
 * API call (or the outermost GroupEnd) returns.  A plugin call that starts
 * before the shim's next call is one the shim never saw (a graph replay of
 * an NCCL that does not flag them, a statically linked caller); a shim
 * call the plugin has no match for within the next few of its calls is
 * one the plugin missed.  Which shim communicator is which plugin
 * communicator is the pair whose first calls join best.
 *
 * The plugin's calls launched from a CUDA graph (API v5+ flags them) have
 * no shim record: they are added to the shim's stream as calls of the
 * plugin's communicator (cp_ncjoin_replays), so that with both logs every
 * call is analyzed once, replays included; the shim's records of the
 * captures (flag 16) are then left out.
 *
 * A plugin log analyzed on its own (no shim log of its process) is joined
 * with itself: its call records get its own kind 6 and kind 5 records.
 *
 * Under plugin API v7 a call's kind 9 record gives the application's tag
 * (ncclCollConfig_t's userProfilerTag) and the kernel NCCL launched: each
 * entry names them by index into the join's tables of distinct tag values
 * and kernel variants (cp_ncjoin_tag, cp_ncjoin_variant), so that an entry
 * stays 32 bytes.
 *
 * Memory: while one process is joined, every call of its two logs (48 bytes
 * each); then 32 bytes per joined call until the analysis ends, and 8 bytes
 * per distinct tag value and 41 per distinct kernel variant.
 */
#ifndef COLLPROF_CP_NCJOIN_H
#define COLLPROF_CP_NCJOIN_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_logfmt.h"
#include "cp_analysis.h"

/* A plugin launch may precede the shim's call start by this much (the two
 * clocks of one process: the shim's TSC mapping is within 1 us). */
#define CP_NCJOIN_SLACK_NS 50000
/* A shim call is given up after this many plugin calls that do not match
 * it. */
#define CP_NCJOIN_LOOKAHEAD 16

/* Distinct tag values and kernel variants the join keeps: a tag past the
 * first CP_NCJOIN_TAGS_MAX values of a run is CP_NCJOIN_TAG_OTHER. */
#define CP_NCJOIN_TAGS_MAX 4096
#define CP_NCJOIN_VARIANTS_MAX 1024
#define CP_NCJOIN_TAG_NONE 0      /* no kind 9 record for the call */
#define CP_NCJOIN_TAG_OTHER 0xffff /* a tag beyond the table */

/* What the plugin said about the call record in `slot` of the file. */
struct cp_ncjoin_entry {
    uint64_t slot;
    uint64_t gpu_start, gpu_end; /* kernel interval, CLOCK_REALTIME ns;
                                    0 when no kernel channel reported */
    uint8_t algo, proto, nchannels; /* CP_NCCL_ALGO/PROTO_TABLE codes */
    uint8_t flags;                  /* CP_NCCL_* (low byte) */
    uint16_t tag;     /* CP_NCJOIN_TAG_NONE, OTHER, or an index (from 1)
                         into the join's tag values */
    uint16_t variant; /* 0 none, else an index (from 1) into its kernel
                         variants */
};
_Static_assert(sizeof(struct cp_ncjoin_entry) == 32, "a join entry");

/* A call the plugin saw launched from a CUDA graph, which the shim never
 * sees: analyzed as a call of the plugin's communicator (NCCL's commHash);
 * a collective's seq is its place among that communicator's graph
 * launches, a send/recv's the plugin's own. */
struct cp_ncjoin_replay {
    uint64_t comm, count;
    uint64_t start, end; /* the kernel interval, else the task's; raw ns */
    uint32_t seq, rank, nranks;
    int32_t peer;
    uint8_t op, dtype, algo, proto;
    uint16_t tag, variant; /* as in cp_ncjoin_entry */
};

/* The entries of every input that has any, by input index. */
struct cp_ncjoin {
    size_t ninputs;
    struct cp_ncjoin_entry **entries; /* [ninputs], by slot; NULL none */
    size_t *nentries;                 /* [ninputs] */
    struct cp_ncjoin_replay **replays; /* [ninputs], by end; shim inputs */
    size_t *nreplays;
    /* distinct tag values and kernel variants, in order of first sight:
     * index k of an entry is tags[k - 1] / variants[k - 1] */
    uint64_t *tags;
    size_t ntags, captags;
    uint64_t tag_records;  /* kind 9 records joined to a call */
    uint64_t tags_over;    /* calls whose tag is CP_NCJOIN_TAG_OTHER */
    char (*variants)[CP_TAG_VARIANT_LEN + 1];
    size_t nvariants, capvariants;
};

/* Join the logs of an (inputs and ranks known) into a new table; the
 * counts go to an->nccl.join_*.  NULL when memory ran out, or when no
 * analyzed input is a plugin log or has one (then *none is 1). */
struct cp_ncjoin *cp_ncjoin_build(struct cp_analysis *an, int *none);

/* The entries of input `input` (sorted by slot), *n of them; NULL none. */
const struct cp_ncjoin_entry *cp_ncjoin_of(const struct cp_ncjoin *j,
                                           size_t input, size_t *n);

/* The graph launches to add to input `input` (a shim log with a plugin
 * log), sorted by end, *n of them; NULL none. */
const struct cp_ncjoin_replay *cp_ncjoin_replays(const struct cp_ncjoin *j,
                                                size_t input, size_t *n);

/* The value of tag index `tag` (1 to ntags); 0 for any other index. */
uint64_t cp_ncjoin_tag(const struct cp_ncjoin *j, unsigned tag);

/* The kernel variant of index `variant` (NUL-terminated, owned by j), or
 * NULL for 0 or an index out of range. */
const char *cp_ncjoin_variant(const struct cp_ncjoin *j, unsigned variant);

/* Accepts NULL. */
void cp_ncjoin_destroy(struct cp_ncjoin *j);

#endif
