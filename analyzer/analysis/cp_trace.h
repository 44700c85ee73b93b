/* cp_trace.h - the calls of a job as a timeline for ui.perfetto.dev and
 * Chrome's trace viewer (JSON trace-event format; docs/trace.md).
 *
 * cp_trace_write() reads the rank logs of an analysis again and streams the
 * trace through a write callback: one process per node, one thread per
 * rank, a complete slice per call with what the analysis knows of it (the
 * instance's own time, busbw, the model's time, who arrived last), a flow
 * from the last-arriving rank to the others of each collective instance,
 * device intervals on a lane of their own, findings as instant events.
 * Memory holds the collective instances of the cut, never the trace.
 *
 * Like the rest of libcollprof-analysis this never prints.
 */
#ifndef COLLPROF_CP_TRACE_H
#define COLLPROF_CP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "cp_analysis.h"
#include "cp_error.h"

#define CP_TRACE_SCHEMA "collprof.trace/1"
/* The events above which a trace is refused unless the caller says
 * otherwise (docs/trace.md, "How large"). */
#define CP_TRACE_MAX_EVENTS 2000000u

/* An inclusive range of global ranks. */
struct cp_trace_range {
    int lo, hi;
};

struct cp_trace_opts {
    /* the cut, in ns since the run's first start (summary.start_ns): calls
     * that overlap [from_ns, to_ns) are written; INT64_MIN / INT64_MAX:
     * open */
    int64_t from_ns, to_ns;
    /* global ranks to write; nranges 0: every rank */
    size_t nranges;
    const struct cp_trace_range *ranges;
    /* communicators to write, by name or id (hex, 0x optional); 0: all */
    size_t ncomms;
    const char *const *comms;
    /* refuse (CP_TRACE_TOO_LARGE) when the trace would hold more events;
     * 0: no limit */
    uint64_t max_events;
    /* where the text goes: returns 0, or -1 with errno set */
    int (*write)(void *ctx, const void *buf, size_t len);
    void *write_ctx;
};

/* Zero cut, every rank and communicator, CP_TRACE_MAX_EVENTS. */
void cp_trace_opts_init(struct cp_trace_opts *opts);

struct cp_trace_stats {
    unsigned ranks, nodes;   /* rank lanes and node processes */
    uint64_t calls;          /* call slices */
    uint64_t groups;         /* group slices */
    uint64_t gpu;            /* device-interval slices */
    uint64_t flows;          /* flows (two events each) */
    uint64_t instants;       /* finding events */
    uint64_t metadata;       /* names and sort orders */
    /* every event; when refused, an upper bound (each collective call
     * counted with a flow) */
    uint64_t events;
    uint64_t bytes;          /* text written (before any compression) */
    uint64_t instances;      /* collective instances with a call in it */
    uint64_t job_calls;      /* call records of every rank, uncut */
    unsigned job_ranks;
};

#define CP_TRACE_OK 0
#define CP_TRACE_TOO_LARGE 1

/* Write the trace of the logs analyzed in an.  Returns CP_TRACE_OK,
 * CP_TRACE_TOO_LARGE (nothing written; stats say how large it would be),
 * or -1 with err filled (a cut that selects nothing, an unknown
 * communicator, a log that cannot be read again, a write error, memory).
 * stats may be NULL. */
int cp_trace_write(const struct cp_analysis *an,
                   const struct cp_trace_opts *opts,
                   struct cp_trace_stats *stats, struct cp_error *err);

/* Parse "0-63,128,130-131" into ranges.  Returns the count (the caller
 * frees *ranges) or -1 with err filled naming the bad part. */
int cp_trace_parse_ranks(const char *text, struct cp_trace_range **ranges,
                         struct cp_error *err);

#endif
