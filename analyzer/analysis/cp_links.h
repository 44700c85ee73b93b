/* cp_links.h - which node pair is slow, and which rank: localization from
 * the job's own calls (docs/analysis.md, "Slow links").
 *
 * During the join (cp_stream.c) every matched inter-node send/recv pair is
 * handed to cp_links_add_p2p(), which keeps a median sketch per
 * (communicator, sender node, receiver node, size bucket): the per-comm
 * aggregates of the join mix the node pairs of a pipeline.  After the fit,
 * cp_links_solve() turns those and the join's per-(communicator,
 * collective, size bucket) aggregates into units, compares every unit with
 * the same shape elsewhere in the job, estimates each rank's in-call delay
 * (max-plus over the communicators it is in), and then each node pair's
 * slowdown (max-plus over the units that cross it: a ring runs at its
 * slowest link), filling an->topology, an->ranks[].delay_s and
 * an->comms[].explained.  Findings are made from that by the detectors of
 * analyzer/judge/ (cp_det_links.c, cp_det_candidates.c).
 *
 * Internal to the analysis library; never prints.
 */
#ifndef COLLPROF_CP_LINKS_H
#define COLLPROF_CP_LINKS_H

#include <stdint.h>

#include "cp_analysis.h"

/* A link named slow on fewer calls than this (its slow units' calls) is
 * reported as a hint (info), not a warning: three or four calls of a
 * pipeline's send/recv on a busy host vary by more than a slow link adds. */
#define CP_LINKS_MIN_SLOW_CALLS 6

struct an_state;
struct an_eval;
struct cp_links;

/* An empty collector; NULL when memory ran out.  Owned by the caller. */
struct cp_links *cp_links_create(void);

/* Destroy; accepts NULL, keeps errno. */
void cp_links_destroy(struct cp_links *lk);

/* One matched send/recv pair of communicator comm (index) between ranks on
 * nodes src and dst (src != dst), n bytes, own time in seconds.  judged: it
 * ran outside groups, or alone in its groups, so its time is its own.
 * exchange: both ranks' groups held a send to and a receive from the other
 * only (a pipeline's 1F1B exchange): own is the pair's time from the later
 * arrival to the later end, at least one whole transfer over the link, and
 * such calls are compared with exchanges only (units of their own).
 * Returns 0, or -1 when memory ran out (the pair is then not counted). */
int cp_links_add_p2p(struct cp_links *lk, unsigned comm, unsigned src,
                     unsigned dst, double n, double own, int judged,
                     int exchange);

/* Units, in-call delays and node pairs into an->topology, an->ranks[] and
 * an->comms[] (after build_comms, the fit and the rows; ev are the
 * evaluations of build_rows).  lk may be NULL (no point-to-point units).
 * Returns 0, or -1 when memory ran out. */
int cp_links_solve(struct cp_links *lk, struct cp_analysis *an,
                   const struct an_state *st, const struct an_eval *ev,
                   size_t nev);

/* Fold collprof probe's node-pair measurements (pv may be NULL: nothing)
 * into an->topology after cp_links_solve: each probed pair of two job
 * nodes keeps the measurement (probed, probe_*); a pair the calls left
 * open (suspect, unclear, or crossed by nothing bandwidth-bound: then
 * added) takes the probe's state, bandwidth and efficiency (source
 * CP_PAIR_FROM_PROBE); pairs are sorted again, units renumbered.  The
 * probe's node names missing from the job go to topology.probe.unknown.
 * Returns 0, or -1 when memory ran out. */
struct cp_probeview;
int cp_links_apply_probe(struct cp_analysis *an, const struct cp_probeview *pv);

/* Free what cp_links_solve put in topology (cp_analysis_destroy). */
void cp_links_topology_free(struct cp_analysis_topology *topo);

#endif
