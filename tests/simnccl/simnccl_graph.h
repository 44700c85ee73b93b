/* simnccl_graph.h - simnccl's stand-in for capturing NCCL calls into a CUDA
 * graph and replaying it (the real NCCL captures on a stream; simnccl has
 * no streams).  Between simncclGraphBegin and simncclGraphEnd the calling
 * thread's data movers are recorded, not run, and return ncclSuccess (an
 * LD_PRELOAD profiler sees these calls, and only these); each
 * simncclGraphLaunch runs the recorded calls as one group, emitting the
 * profiler plugin's events as NCCL does for a graph launch.  Applications
 * find these with dlsym: they exist in simnccl only. */
#ifndef SIMNCCL_GRAPH_H
#define SIMNCCL_GRAPH_H

#include "collprof/cp_nccl.h"

ncclResult_t simncclGraphBegin(void);
ncclResult_t simncclGraphEnd(void **graph);
ncclResult_t simncclGraphLaunch(void *graph);
void simncclGraphDestroy(void *graph);

#endif
