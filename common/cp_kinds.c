/* cp_kinds.c - the table of finding kinds (see cp_kinds.h). */
#include "config.h"

#include <string.h>

#include "cp_kinds.h"

static const struct cp_kind_info kinds[CP_KIND_COUNT] = {
    [CP_KIND_LATENCY_BOUND] = {
        .name = "latency_bound",
        .title = "time lost to small, latency-bound calls",
        .rule = "latency-bound share of own time >= 10 %, and fusing the "
                "data-parallel gradient all-reduces saves >= 1 % of the run "
                "and >= 1 ms per step (not by a weak fit)",
        .severity = "critical: share >= 50 % and saving >= 25 %; warning: "
                    "share >= 25 % or saving >= 10 %; else info",
        .doc = "analysis.md#findings"},
    [CP_KIND_LOW_BUSBW] = {
        .name = "low_busbw",
        .title = "bandwidth below what the link gives",
        .rule = "per (communicator, class): bandwidth-bound calls outside "
                "groups (>= 3, >= 1 % of the time) whose busbw is below 50 % "
                "of the model's at their sizes, in their fast calls too "
                "(below 70 %: against a fit or a profile); a two-node "
                "communicator whose link alone explains it makes a "
                "`slow_link` instead",
        .severity = "critical below 15 % (an order of magnitude: "
                    "`tcp_fallback` when inter-node), else warning; info "
                    "against a weak fit",
        .doc = "analysis.md#findings"},
    [CP_KIND_STRAGGLER] = {
        .name = "straggler",
        .title = "a straggler rank holds up the others",
        .rule = "arrival: the rank with the most lateness is last at "
                "twice its fair share (1/n of the collectives of each "
                "communicator of n ranks it is in), at >= 10 of them or "
                "(in few collectives: pp's stages make 3 a step) >= 6 and "
                "3/4 of its collectives, and holds >= 50 % of all "
                "lateness, >= 5 % of own time + skew, or >= 1/3 of it while "
                "the others spent 10 % of own time + skew more in NCCL "
                "(the median rank's time less its); in-call: see \"Slow "
                "links\"; long run: a communicator's mean arrival skew "
                ">= 3x its healthy one, >= 0.1 ms, >= 1.5x every one before "
                "and >= 10 % of the own time for >= 3 intervals in a row, "
                "the rank last most often named (see \"Long runs\")",
        .severity = "critical when its lateness (its delay's cost) exceeds "
                    "the whole own time, else warning; info when the calls "
                    "cannot tell which member of a delayed communicator it "
                    "is, when its mean lead is under the error of a "
                    "node's clock correction and no kernel phases agree, "
                    "or when the kernels' phases put another rank last",
        .doc = "analysis.md#slow-links"},
    [CP_KIND_MISSING_RANKS] = {
        .name = "missing_ranks",
        .title = "ranks missing from the logs",
        .rule = "ranks below the world size without a log",
        .severity = "warning",
        .todo = "check that every rank wrote its log to a directory all "
                "nodes share, and whether ranks died or the job was cut "
                "short; collectives with missing members are counted but not "
                "judged.",
        .doc = "analysis.md#findings"},
    [CP_KIND_INCOMPLETE_INSTANCES] = {
        .name = "incomplete_instances",
        .title = "collectives with missing members",
        .rule = "instances with missing members, no rank missing",
        .severity = "info",
        .todo = "check that every rank wrote its log to a directory all "
                "nodes share, and whether ranks died or the job was cut "
                "short; collectives with missing members are counted but not "
                "judged.",
        .doc = "analysis.md#findings"},
    [CP_KIND_FAILED_CALLS] = {
        .name = "failed_calls",
        .title = "NCCL calls failed",
        .rule = "calls NCCL refused",
        .severity = "warning",
        .todo = "read these ranks' NCCL errors (`NCCL_DEBUG=WARN`); a failed "
                "call usually ends or hangs the job.",
        .doc = "analysis.md#findings"},
    [CP_KIND_CLOCK_OFFSET] = {
        .name = "clock_offset",
        .title = "node clocks disagree (corrected)",
        .rule = "a node's clock off by more than the bounds of a shared "
                "clock allow (corrected)",
        .severity = "info",
        .todo = "nothing for this report (times were corrected); offsets over "
                "a millisecond suggest checking the nodes' time "
                "synchronisation (chrony, PTP).",
        .doc = "analysis.md#clock-offsets"},
    [CP_KIND_SLOW_LINK] = {
        .name = "slow_link",
        .title = "a slow link between two nodes",
        .rule = "a node pair named by the max-plus group testing of \"Slow "
                "links\", or (`method` `busbw`) the one link that the low "
                "busbw of its two-node communicators points at (\"Expected "
                "link speed\")",
        .severity = "critical at an efficiency of 25 % or less, else "
                    "warning; info when fewer than 6 calls show it",
        .doc = "analysis.md#slow-links"},
    [CP_KIND_SLOW_LINK_CANDIDATES] = {
        .name = "slow_link_candidates",
        .title = "a slow communicator: which link is not known yet",
        .rule = "a slow communicator whose calls cannot tell which of its "
                "links is slow",
        .severity = "warning; info when fewer than 6 calls show it, or "
                    "when its calls cannot be sure it is slow (see \"Slow "
                    "links\")",
        .doc = "analysis.md#slow-links"},
    [CP_KIND_DEGRADED_PORT] = {
        .name = "degraded_port",
        .title = "a degraded network port",
        .rule = "a port not active, below its peers' rate, or whose error "
                "counters rose (port snapshots)",
        .severity = "critical when not active or link_downed rose, else "
                    "warning",
        .todo = "compare the port's active width and speed with its peers "
                "(`ibstat`) and watch its error counters; reseat or replace "
                "the cable, or drain the node.",
        .doc = "analysis.md#findings"},
    [CP_KIND_MODEL_UNAVAILABLE] = {
        .name = "model_unavailable",
        .title = "no model for a link class",
        .rule = "a class with calls but neither a fit nor a profile",
        .severity = "info",
        .todo = "give `collprof analyze --profile FILE` the link's alpha and "
                "bandwidth, or record a run with more message sizes, so that "
                "calls can be judged against a model.",
        .doc = "analysis.md#the-model-per-link-class"},
    [CP_KIND_HANG] = {
        .name = "hang",
        .title = "the job hung in a collective",
        .rule = "an instance some members entered and never left, waiting "
                "for a member that never entered it (see \"Hangs\")",
        .severity = "critical",
        .todo = "look at what the named rank was doing instead (its last "
                "call, its own compute, its stderr); set a collective "
                "timeout (`NCCL_TIMEOUT`, `TORCH_NCCL_ASYNC_ERROR_HANDLING`) "
                "so a hang ends the job early.",
        .doc = "analysis.md#hangs"},
    [CP_KIND_DEADLOCK] = {
        .name = "deadlock",
        .title = "ranks wait for each other across communicators",
        .rule = "a cycle of waits: rank A waits in one instance for B, B in "
                "another for A",
        .severity = "critical",
        .todo = "the ranks of the cycle called their communicators in "
                "different orders: make every rank issue the collectives of "
                "these communicators in the same order.",
        .doc = "analysis.md#hangs"},
    [CP_KIND_MISMATCH] = {
        .name = "mismatch",
        .title = "members of one collective called different things",
        .rule = "members of one instance differ in operation, count, "
                "datatype, reduction or root",
        .severity = "critical",
        .todo = "the named ranks passed other arguments than their peers at "
                "this sequence number: check the code path that decides the "
                "tensor shapes and the order of collectives on these ranks.",
        .doc = "analysis.md#hangs"},
    [CP_KIND_KILLED] = {
        .name = "killed",
        .title = "the job ended with calls in flight",
        .rule = "a member died before or inside an instance others waited "
                "in, or the job ended with calls in flight",
        .severity = "critical when a member died, else warning",
        .todo = "read the named rank's stderr and the node's kernel log "
                "(out of memory, a failed GPU); a job ended by its time limit "
                "shows how long the oldest call had waited.",
        .doc = "analysis.md#hangs"},
    [CP_KIND_DUPLICATE_RANK] = {
        .name = "duplicate_rank",
        .title = "several logs claim one rank",
        .rule = "two or more logs carry the same global rank",
        .severity = "warning",
        .todo = "analyse one run per directory: logs of two runs, or copies "
                "of a log, were given together; such ranks are never named "
                "as the culprit of a hang.",
        .doc = "analysis.md#hangs"},
    [CP_KIND_SLOWDOWN] = {
        .name = "slowdown",
        .title = "a part of the run was much slower than the rest",
        .rule = "after the warm-up (the first step), a part of >= 3 "
                "windows and >= 30 calls (the rest as many) whose calls took "
                ">= 3x, in all, their typical time at the pace of the rest's "
                "median window, its windows slower than the rest's (rank "
                "test z >= 3.5), losing >= 2 % of the communication time; up "
                "to 3 parts; see \"Slowdowns\"; long run: a "
                "communicator's busbw >= 1.5x below its healthy pace for >= "
                "3 intervals in a row (see \"Long runs\")",
        .severity = "warning; info (not sure) on >= 20 calls or a z >= 3, "
                    "then only at >= 4x",
        .todo = "cut the trace to the part (`collprof trace DIR --from S "
                "--to S`) to see which calls and ranks slowed; look at what "
                "changed then on the named communicators' nodes: port "
                "counters (`collprof ports`), the system logs, other jobs "
                "sharing the network, thermal throttling.",
        .doc = "analysis.md#slowdowns"},
    [CP_KIND_ALGORITHM_CHOICE] = {
        .name = "algorithm_choice",
        .title = "NCCL chose ring where tree is cheaper (or the reverse)",
        .rule = "per (communicator, all-reduce size) with >= 8 instances of "
                "which >= 90 % ran one algorithm (the NCCL profiler plugin's "
                "records): by the model with the class's alpha and beta (not "
                "a weak fit) the other of ring and tree takes at most half "
                "the time, and the calls ran slower than that",
        .severity = "warning when the model's saving is >= 10 % of the "
                    "communication time, else info",
        .todo = "check NCCL_ALGO / NCCL_PROTO in the job's environment and a "
                "tuner plugin; try the other algorithm on these sizes "
                "(`NCCL_ALGO=Tree` or `Ring`) and compare with `collprof "
                "bench`.",
        .doc = "analysis.md#findings"},
    [CP_KIND_LINKS_UNJUDGED] = {
        .name = "links_unjudged",
        .title = "node pairs the calls cannot judge",
        .rule = "node pairs that no judged unit clears or blames, crossed "
                "by a communicator's all-to-all that ran under its "
                "\"maybe\" threshold (one pair at half speed slows only "
                "its share of an all-to-all), and by no other "
                "bandwidth-bound call",
        .severity = "info",
        .todo = "run `collprof probe` on the job's nodes (the finding gives "
                "the command), or record with the NCCL profiler plugin, "
                "whose proxy steps time each link.",
        .doc = "analysis.md#slow-links"},
};

const struct cp_kind_info *cp_kind_info(enum cp_kind kind)
{
    return (int)kind >= 0 && kind < CP_KIND_COUNT ? &kinds[kind] : NULL;
}

const char *cp_kind_name(enum cp_kind kind)
{
    const struct cp_kind_info *k = cp_kind_info(kind);

    return k ? k->name : NULL;
}

int cp_kind_from_name(const char *name, enum cp_kind *kind)
{
    for (int k = 0; name && k < CP_KIND_COUNT; k++)
        if (strcmp(kinds[k].name, name) == 0) {
            *kind = (enum cp_kind)k;
            return 0;
        }
    return -1;
}

static const char *const severity_names[CP_SEVERITY_COUNT] = {
    "info", "warning", "critical"};

const char *cp_severity_name(enum cp_severity severity)
{
    if (severity == CP_SEVERITY_NONE)
        return "none";
    return (unsigned)severity < CP_SEVERITY_COUNT ? severity_names[severity]
                                                  : NULL;
}

int cp_severity_from_name(const char *name, enum cp_severity *severity)
{
    unsigned i;

    for (i = 0; name && i < CP_SEVERITY_COUNT; i++)
        if (strcmp(name, severity_names[i]) == 0) {
            *severity = (enum cp_severity)i;
            return 0;
        }
    return -1;
}

enum cp_severity cp_severity_named(const char *name)
{
    enum cp_severity severity;

    return cp_severity_from_name(name, &severity) == 0 ? severity
                                                       : CP_SEVERITY_NONE;
}
