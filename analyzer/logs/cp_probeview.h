/* cp_probeview.h - a probe.json (collprof probe's report, schema
 * collprof.probe/1, docs/probe.md) read back for collprof analyze, which
 * folds the measured node pairs into its slow-link analysis
 * (docs/analysis.md, "Slow links").
 *
 * Only what the analysis uses is read: the node names, each pair's
 * bandwidth, efficiency, latency and state, and the reference the
 * efficiencies are relative to.  Every key read is checked; a bad file
 * fails naming the file and the key.  Nothing here prints.
 */
#ifndef COLLPROF_CP_PROBEVIEW_H
#define COLLPROF_CP_PROBEVIEW_H

#include <stddef.h>

#include <jansson.h>

#include "cp_error.h"

#define CP_PROBE_SCHEMA "collprof.probe/1"

/* What a probe.json may hold (docs/security.md, "Port snapshots and
 * probe.json"): a larger file, or one whose parse would take more memory
 * (cp_jsonfile_cost), is refused unread (cp_probeview_read answers
 * CP_PROBEVIEW_TOO_BIG); so is one that lists more nodes, or more pairs
 * than its nodes make.  collprof probe writes about 280 K^2 bytes for K
 * nodes: 32 MiB is about 340 nodes. */
#define CP_PROBE_MAX_BYTES ((size_t)32 << 20)
#define CP_PROBE_MAX_COST ((size_t)160 << 20)
#define CP_PROBE_MAX_NODES 4096u
#define CP_PROBEVIEW_TOO_BIG (-2)

struct cp_probeview_pair {
    size_t a, b;          /* indices into nodes, a != b */
    double bandwidth_Bps; /* the median of its transfers */
    double efficiency;    /* bandwidth over the reference; NaN unknown */
    double latency_s;     /* NaN unknown */
    int slow;             /* state "slow" */
};

struct cp_probeview {
    char *file;           /* the path read */
    size_t nnodes;
    char **nodes;         /* topology.nodes */
    size_t npairs;
    struct cp_probeview_pair *pairs; /* topology.pairs, in file order */
    double reference_Bps;            /* NaN unknown */
    char reference_source[16];       /* "median", "profile" or "" */
    double median_latency_s;         /* NaN unknown */
};

/* Read path into pv (cleared first).  0, or -1 with err naming the file
 * and the key (not JSON, another schema, a key missing or of the wrong
 * type, a pair naming a node not in topology.nodes, more nodes or pairs
 * than the caps above), or CP_PROBEVIEW_TOO_BIG with err naming the file
 * and its size (over CP_PROBE_MAX_BYTES or CP_PROBE_MAX_COST: nothing was
 * parsed).  The caller owns pv's memory: cp_probeview_clear. */
int cp_probeview_read(const char *path, struct cp_probeview *pv,
                      struct cp_error *err);

/* The same from a loaded document; file names it in messages. */
int cp_probeview_from_json(json_t *doc, const char *file,
                           struct cp_probeview *pv, struct cp_error *err);

/* Free pv's memory; pv may be NULL. */
void cp_probeview_clear(struct cp_probeview *pv);

/* The probe report that belongs to the logs under paths (NULL-terminated
 * directories or files, as for cp_analysis_run): DIR/probe/probe.json, else
 * DIR/probe.json, of the first directory that has one (the Slurm plugin
 * writes STEPDIR/probe/probe.json).  Returns 1 with the path in buf, 0 when
 * there is none. */
int cp_probeview_find(const char *const *paths, char *buf, size_t size);

#endif
