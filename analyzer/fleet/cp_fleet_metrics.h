/* cp_fleet_metrics.h - the fleet's verdicts as Prometheus text exposition
 * (format 0.0.4, as node_exporter's textfile collector reads it): per node
 * pair, per node and per port, each family's HELP and TYPE lines before
 * its samples, label values escaped.  docs/fleet.md, "Metrics".  Writes
 * to the stream it is given; never prints. */
#ifndef COLLPROF_CP_FLEET_METRICS_H
#define COLLPROF_CP_FLEET_METRICS_H

#include <stdio.h>

#include "cp_fleet_judge.h"

/* Write v's metrics to out.  0, or -1 (a write error) with err filled. */
int cp_fleet_metrics_write(const struct cp_fleet_view *v, FILE *out,
                           struct cp_error *err);

#endif
