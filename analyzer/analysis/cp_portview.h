/* cp_portview.h - port snapshots found in the analyzed directories, joined
 * to the job's nodes (an->ports) for the degraded_port finding and the
 * slow_link evidence.  Internal to the analysis library; never prints. */
#ifndef COLLPROF_CP_PORTVIEW_H
#define COLLPROF_CP_PORTVIEW_H

#include "cp_analysis.h"

/* Read DIR/ports-*-{start,end}.json of every directory in paths (after the
 * nodes are known).  0, or -1 when memory ran out; unreadable snapshots go
 * to an->ports.problems. */
int cp_portview_build(struct cp_analysis *an, const char *const *paths);

/* Free an->ports (cp_analysis_destroy). */
void cp_portview_free(struct cp_analysis_ports *pv);

#endif
