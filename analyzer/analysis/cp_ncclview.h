/* cp_ncclview.h - what the NCCL profiler plugin's logs add to an analysis:
 * the algorithm/protocol mix per collective and size class, and the
 * network evidence per (node pair, direction) from proxy operations
 * (docs/analysis.md, "Slow links from NCCL's proxy steps"). */
#ifndef COLLPROF_CP_NCCLVIEW_H
#define COLLPROF_CP_NCCLVIEW_H

#include "cp_analysis.h"

/* A link below this fraction of the median of the links judged in the
 * same step size class is slow. */
#define CP_NET_SLOW 0.6
/* A link's class is judged from this many records (proxy operations, or
 * a call's sends to a peer) and bytes */
#define CP_NET_MIN_OPS 8
#define CP_NET_MIN_BYTES (1.0 * 1048576)
/* ... when its steps take this many times the latency as the proxy sees
 * it (the median fastest step of operations of steps of 4 KiB or less)
 * or more: bandwidth sets their time (a 16 KiB step at 25 MB/s, 30x; on
 * a 25 GB/s NIC about 1x: latency, left out) */
#define CP_NET_BANDWIDTH_BOUND 4.0

/* Read the plugin records of an's inputs into an->nccl (nothing when no
 * input is a plugin log).  Returns 0, or -1 when memory ran out; a damaged
 * log counts what could be read. */
int cp_ncclview_build(struct cp_analysis *an);

/* Free what cp_ncclview_build allocated; accepts a zeroed view. */
void cp_ncclview_free(struct cp_analysis_nccl *v);

#endif
