/* cp_ncclview.h - what the NCCL profiler plugin's logs add to an analysis:
 * the algorithm/protocol mix per collective and size class, and the
 * network evidence per (node pair, direction) from proxy operations
 * (docs/analysis.md, "NCCL profiler evidence"). */
#ifndef COLLPROF_CP_NCCLVIEW_H
#define COLLPROF_CP_NCCLVIEW_H

#include "cp_analysis.h"

/* A link below this fraction of the median link bandwidth is slow. */
#define CP_NET_SLOW 0.6
/* Links with fewer bytes than this are not judged (latency-bound). */
#define CP_NET_MIN_BYTES (4.0 * 1048576)
/* Proxy operations with smaller steps than this on average are latency,
 * not bandwidth: left out of the bandwidth. */
#define CP_NET_MIN_STEP 65536

/* Read the plugin records of an's inputs into an->nccl (nothing when no
 * input is a plugin log).  Returns 0, or -1 when memory ran out; a damaged
 * log counts what could be read. */
int cp_ncclview_build(struct cp_analysis *an);

/* Free what cp_ncclview_build allocated; accepts a zeroed view. */
void cp_ncclview_free(struct cp_analysis_nccl *v);

#endif
