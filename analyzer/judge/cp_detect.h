/* cp_detect.h - what the detectors share (cp_detect.c) and each family's
 * detectors (cp_det_*.c), for the table in cp_detect.c.  Internal to
 * analyzer/judge/.
 */
#ifndef COLLPROF_CP_DETECT_H
#define COLLPROF_CP_DETECT_H

#include <stddef.h>

#include <jansson.h>

#include "cp_analysis_int.h"
#include "cp_kinds.h"

/* ---- cp_detect.c ---- */

__attribute__((format(printf, 8, 9))) int
det_add_finding(struct cp_analysis *an, enum cp_kind kind, enum cp_severity sev,
                const int *ranks, size_t nranks, const unsigned *nodes,
                size_t nnodes, const char *fmt, ...);

json_t *det_last_evidence(struct cp_analysis *an);

/* The slow_link finding that names nodes a and b (with method, one whose
 * evidence.method is that), or NULL. */
const struct cp_analysis_finding *det_named_pair(const struct cp_analysis *an,
                                                 unsigned a, unsigned b,
                                                 const char *method);

/* What the probe measured of pair p (probe_state, its bandwidth and
 * efficiency, the probe's file) into a slow_link's evidence e. */
int det_probe_figures(json_t *e, const struct cp_analysis_pair *p,
                      const char *file);

/* Ranks and nodes of a set of communicators (marks[i] set). */
struct det_who {
    int *ranks;
    size_t nranks;
    unsigned *nodes;
    size_t nnodes;
};

/* The first index in an->ranks (sorted by global rank, unknown ones
 * last) of global rank g >= 0, or where it would be. */
size_t det_first_of_rank(const struct cp_analysis *an, int g);

int det_who_of_comms(const struct cp_analysis *an, const unsigned char *marks,
                     struct det_who *w);

void det_who_free(struct det_who *w);

const char *det_coll_name(enum cp_coll c);

/* Whether every rank of collective c sends to every other (all-to-all). */
int det_all_pairs(enum cp_coll c);

/* What a detector is given besides the analysis: the model's evaluation
 * of every (communicator, slot), and one byte per node pair that the
 * slow-link detectors set for each pair a finding names. */
struct detect_input {
    const struct an_eval *ev;
    size_t nev;
    unsigned char *reported;
};

/* Whether the link analysis found a rank that delays its calls. */
int det_in_call_straggler(const struct cp_analysis *an);

/* The in-call delay that a member of communicator ci adds to each of its
 * calls: the largest of its members named stragglers by the link analysis,
 * or the delay its calls show of one member they cannot tell (0: none). */
double det_comm_member_delay(const struct cp_analysis *an, size_t ci);

/* The ranks of a communicator seen, for a finding. */
int det_comm_ranks(const struct cp_analysis *an, unsigned ci, struct det_who *w);

const char *det_pair_text(const struct cp_analysis *an,
                          const struct cp_analysis_pair *p, char *buf,
                          size_t len);

json_t *det_pair_json(const struct cp_analysis *an,
                      const struct cp_analysis_pair *p);

int det_unit_has_pair(const struct cp_analysis_unit *u, unsigned pi);

json_t *det_unit_json(const struct cp_analysis *an,
                      const struct cp_analysis_unit *u);

/* Degraded ports of nodes a or b, for a slow link's evidence. */
json_t *det_endpoint_ports(const struct cp_analysis *an, unsigned a,
                           unsigned b);

/* The command that measures every node pair of a communicator's nnodes. */
void det_probe_command(char *buf, size_t len, unsigned nnodes);

/* A time on the run's axis for a message: "840 s", "240040 s (66.7 h)"
 * (hours from 2 h on). */
const char *det_when(double t, char *buf, size_t size);

int det_append_message(struct cp_analysis_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What a unit's slowdown is held against, for a message. */
const char *det_baseline_phrase(enum cp_baseline b);

/* The unit of communicator ci with verdict v (unresolved, or maybe)
 * that lost the most time (calls times time), or NULL; *slow_calls: the
 * calls of all of them. */
const struct cp_analysis_unit *
det_slowest_unresolved(const struct cp_analysis_topology *topo, size_t ci,
                       enum cp_unit_verdict v, uint64_t *slow_calls);

/* ---- cp_det_regimes.c ---- */

/* The latency-bound share, and the advice to fuse data-parallel gradient
 * all-reduces into buckets: only when it gains at least GAIN_RUN of the
 * run and GAIN_STEP per step (per run when the steps are unknown), and
 * only by a model that is not a weak fit (the saving is the model's). */
int det_latency_bound(struct cp_analysis *an, const struct detect_input *in);

int det_algorithm_choice(struct cp_analysis *an, const struct detect_input *in);

int det_model_unavailable(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_busbw.c ---- */

/* Bandwidth-bound calls per (communicator, link class) against the model;
 * the communicators whose low busbw one link explains make one slow_link
 * of that link instead (busbw_one_link). */
int det_low_busbw(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_stragglers.c ---- */

/* A rank that arrives last at most collectives, and ranks whose
 * collectives all take longer by the same amount (cp_links.c: their calls
 * start on time but their part of the work starts late). */
int det_straggler(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_links.c ---- */

/* One finding per node pair named slow. */
int det_slow_links(struct cp_analysis *an, const struct detect_input *in);

/* The slow communicator c whose unit u a slow_link resolves, with the
 * calls' candidates, into o (comm, op, bytes, comm_slowdown,
 * candidates). */
int det_resolution(json_t *o, const struct cp_analysis_comm *c,
                   const struct cp_analysis_unit *u, json_t *cands);

/* A slow candidate of communicator c's slow unit u, named by the probe:
 * the slow_link_candidates finding resolved. */
int det_resolved_link(struct cp_analysis *an, const struct cp_analysis_comm *c,
                      const struct cp_analysis_unit *u,
                      const struct cp_analysis_pair *p, json_t *cands,
                      unsigned ncand);

/* Pairs the probe measured slow that no finding names yet: a candidate
 * list of no slow communicator holds them, the calls cleared them, or
 * nothing of the job crossed them.  One the proxy steps named gets the
 * probe's figures in that finding instead. */
int det_probe_links(struct cp_analysis *an, const struct detect_input *in);

/* Links the plugin's proxy steps measured slow: the job's own evidence,
 * per direction, where a ring over every node leaves the calls unable to
 * tell which link is slow.  Runs before the candidates, which such a link
 * resolves (resolve_by_proxy), and before the probe's links. */
int det_proxy_links(struct cp_analysis *an, const struct detect_input *in);

int det_unjudged_links(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_candidates.c ---- */

/* ---- the detectors: one table, run in its order ----------------------- */

/* slow_link_candidates in two passes: the warnings before the probe's
 * links and low_busbw, the hints (infos) after every named link. */
int det_candidates_warned(struct cp_analysis *an, const struct detect_input *in);

int det_candidates_hinted(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_ports.c ---- */

/* Ports whose rate is below their peers', that are not active, or whose
 * error counters rose during the step. */
int det_degraded_ports(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_clocks.c ---- */

/* The node whose clock is furthest off, when causality rules out a shared
 * clock: the estimate with the interval it must lie in. */
int det_clock_offset(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_inputs.c ---- */

int det_inputs_findings(struct cp_analysis *an, const struct detect_input *in);

/* ---- the table (cp_detect.c) ---- */

/* Run every detector of the table, in its order, on the joined run an
 * with the model's evaluation of every (communicator, slot): fill
 * an->findings (most severe first).  -1: out of memory. */
int an_findings(struct cp_analysis *an, const struct an_eval *ev, size_t nev);

/* an->findings most severe first, stable within a severity. */
void an_findings_sort(struct cp_analysis *an);

/* ---- cp_since.c: the detail since a long run's change ---- */

/* The distinct since_s of the long run's changes (a slowdown or straggler
 * of method long_run, warning or worse), earliest first, at most `most`:
 * how many. */
size_t an_since_changes(const struct cp_analysis *an, double *since,
                        size_t most);

/* The slow links and stragglers (warning or worse) that sub, the
 * analysis of the calls from since_s on, names and an does not: added to
 * an as findings of their own (evidence.detail_since, times on an's
 * axis), and the long run's findings of that change say so.  0, or -1
 * (memory). */
int an_since_adopt(struct cp_analysis *an, const struct cp_analysis *sub,
                   double since_s);

/* ---- cp_det_longrun.c ---- */

/* slowdown and straggler over a long run's intervals (an->long_run). */
int det_long_run(struct cp_analysis *an, const struct detect_input *in);

/* ---- cp_det_windows.c ---- */

/* In which detail windows of a long run each finding of the detail was
 * seen (evidence.detail_windows), for the kinds with a test per window. */
int det_detail_windows(struct cp_analysis *an, const struct detect_input *in);

/* The sentence that says what f's evidence.detail_windows says, appended
 * to its message (none without one).  0, or -1 (memory). */
int det_windows_sentence(struct cp_analysis_finding *f);

#endif
