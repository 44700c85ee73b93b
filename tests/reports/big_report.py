#!/usr/bin/env python3
"""big_report.py OUT.json [RANKS] - a synthetic collprof.report/1 of a large
job, for the scale test of report.html: RANKS ranks (default 4096), 8 per
node, a world communicator, a tensor-parallel communicator per node, eight
data-parallel communicators across the nodes and pipeline pairs between
neighbouring nodes; thousands of size buckets, a straggler, a slow link in
the node-pair matrix, a 128-window timeline of seven collectives, 4096-long rank lists in findings, and many inputs
and problems.  Deterministic."""
import json
import random
import sys

out = sys.argv[1]
P = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
G = 8
N = P // G
rng = random.Random(4096)
nodes = ["node%04d" % i for i in range(N)]
A = {"intra": 5e-6, "inter": 20e-6}
BW = {"intra": 2e9, "inter": 400e6}


def model_time(op, link, p, n):
    a, bw = A[link], BW[link]
    if op == "allreduce":
        return 2 * (p - 1) * a + 2 * (p - 1) / p * n / bw
    if op == "sendrecv":
        return a + n / bw
    return (p - 1) * a + (p - 1) / p * n / bw


def busbw_factor(op, p):
    return {"allreduce": 2 * (p - 1) / p, "sendrecv": 1.0}.get(op, (p - 1) / p)


comms, rows = [], []


def comm(cid, name, ranks, link, nodelist):
    comms.append({"id": "%016x" % cid, "name": name, "nranks": len(ranks),
                  "link": link, "nodes": nodelist, "ranks": ranks,
                  "instances": 0, "incomplete": 0, "p2p_pairs": 0,
                  "time_s": 0.0})
    return comms[-1]


def bucket(c, op, k, calls, eff):
    p = 2 if op == "sendrecv" else c["nranks"]
    n = 2.0 ** k * 1.3
    m = model_time(op, c["link"], p, n)
    t = m / eff
    lat = 1.0 if k < 16 else 0.0
    rows.append({"op": op, "comm": c["id"], "link": c["link"], "nranks": p,
                 "bucket_bytes": 2.0 ** k, "calls": calls, "bytes": n * calls,
                 "time_s": t * calls, "p50_s": t * 0.97, "p99_s": t * 1.8,
                 "skew_s": t * calls * 0.1, "algbw_Bps": n / t,
                 "busbw_Bps": busbw_factor(op, p) * n / t,
                 "model_time_s": m * calls, "efficiency": eff,
                 "regime": "latency" if lat else "bandwidth",
                 "latency_share": lat, "incomplete": 0, "grouped": 0})
    c["time_s"] += t * calls
    if op == "sendrecv":
        c["p2p_pairs"] += calls
    else:
        c["instances"] += calls


world = comm(1, "world", list(range(P)), "inter", nodes)
for k in range(2, 28, 2):
    bucket(world, "allreduce", k, 200, 0.9 - 0.01 * rng.random())
for i in range(N):
    c = comm(0x1000 + i, "tp%d" % i, list(range(i * G, i * G + G)), "intra",
             [nodes[i]])
    for k in (12, 18, 22):
        bucket(c, "allgather", k, 120, 0.95 - 0.02 * rng.random())
        bucket(c, "reducescatter", k, 120, 0.95 - 0.02 * rng.random())
for j in range(G):
    c = comm(0x100000 + j, "dp%d" % j, list(range(j, P, G)), "inter", nodes)
    for k in (16, 20, 24, 26):
        bucket(c, "allreduce", k, 80, 0.9)
slow = (min(100, N - 2), min(100, N - 2) + 1)  # (100, 101) at 4096 ranks
S = 3 * P // 4 - 1  # the straggler: 3071 at 4096 ranks
for i in range(0, N - 1, 2):
    c = comm(0x200000 + i, "pp%d" % i, [i * G, (i + 1) * G], "inter",
             [nodes[i], nodes[i + 1]])
    for k in (18, 22):
        bucket(c, "sendrecv", k, 64, 0.3 if (i, i + 1) == slow else 0.93)

ranks = []
for r in range(P):
    late = 0.002 + 0.003 * rng.random()
    ranks.append({"rank": r, "node": nodes[r // G], "calls": 1900, "failed": 0,
                  "time_s": 30 + rng.random(), "last_arrivals": rng.randint(5, 40),
                  "late_s": 0.61 if r == S else late})

topo = [[None] * N for _ in range(N)]
for i in range(N):
    for j in range(N):
        if i != j and abs(i - j) <= 2:
            topo[i][j] = 0.9 + 0.05 * rng.random()
topo[slow[0]][slow[1]] = topo[slow[1]][slow[0]] = 0.3

comm_time = sum(c["time_s"] for c in comms)

# 128 windows over the span: 50 steps whose busy part (the gradient
# all-reduce) is a quarter of each step, seven collectives (one more than
# the plot colours), the windows adding up to comm_time
W = 128
span = comm_time * 1.5
ops = ["allreduce", "broadcast", "reduce", "reducescatter", "allgather",
       "alltoall", "sendrecv"]
op_share = [0.55, 0.02, 0.01, 0.12, 0.15, 0.05, 0.10]
weights = []
for i in range(W):
    phase = (i * 50.0 / W) % 1.0
    weights.append((4.0 if phase < 0.25 else 1.0) * (0.9 + 0.2 * rng.random()))
scale = comm_time / sum(weights)
windows = []
for i in range(W):
    t = weights[i] * scale
    windows.append({"start_s": span * i / W, "end_s": span * (i + 1) / W,
                    "comm_time_s": t, "calls": int(t * 2e5),
                    "bytes": t * 3e10, "wait_time_s": t * 0.2,
                    "op_time_s": {o: t * f for o, f in zip(ops, op_share)}})
timeline = {"window_s": span / W, "windows": windows}
lat_time = sum(r["time_s"] for r in rows if r["regime"] == "latency")
findings = [
    {"kind": "straggler", "severity": "critical", "nodes": [nodes[S // G]],
     "ranks": [S],
     "message": "Rank %d (node %s) arrived last at 1800 collectives, on "
                "average 339 us after the rank before it (610 ms in all)."
                % (S, nodes[S // G]),
     "evidence": {"last_arrivals": 1800, "late_s": 0.61, "mean_late_s": 0.000339}},
    {"kind": "slow_link", "severity": "warning",
     "nodes": [nodes[slow[0]], nodes[slow[1]]],
     "ranks": [slow[0] * G, slow[1] * G],
     "message": "The link between %s and %s runs at 30%% of its peers."
                % (nodes[slow[0]], nodes[slow[1]]),
     "evidence": {"bandwidth_Bps": 1.2e8, "peers_Bps": 3.8e8}},
    {"kind": "latency_bound", "severity": "warning", "nodes": nodes,
     "ranks": list(range(P)),
     "message": "12% of the communication time is in latency-bound calls.",
     "evidence": {"share": lat_time / comm_time, "bucket_bytes": 25e6,
                  "saving_per_step_s": 0.01, "saving_share": 0.05,
                  "sizes": [{"op": "allreduce", "comm": "%016x" % (0x1000 + i),
                             "calls": 120, "time_s": 0.1, "max_bytes": 5324.8}
                            for i in range(40)]}},
]
report = {
    "schema": "collprof.report/1", "generator": "collprof big_report.py",
    "job": {"job_id": "4096", "step_id": "0", "nodes": nodes,
            "ranks": list(range(P)), "world_size": P, "processes": P},
    "summary": {"calls": 1900 * P, "failed_calls": 0,
                "instances": sum(c["instances"] for c in comms),
                "incomplete_instances": 0,
                "p2p_pairs": sum(c["p2p_pairs"] for c in comms),
                "unmatched_p2p": 0, "late_records": 0, "unjoinable_calls": 0,
                "comm_time_s": comm_time, "skew_time_s": comm_time * 0.1,
                "wait_time_s": comm_time * 3, "rank_time_s": comm_time * P,
                "latency_bound_s": lat_time,
                "latency_bound_share": lat_time / comm_time,
                "span_s": comm_time * 1.5, "steps": 50,
                "steps_method": "--steps", "bucket_bytes": 25e6,
                "timer": "cuda_event", "records": 2000 * P,
                "skipped_inputs": 0, "missing_ranks": []},
    "model": {
        lk: {"source": "profile", "alpha_s": A[lk], "bandwidth_Bps": BW[lk],
             "quality": {"median_rel_residual": 0.03, "r2": 0.99},
             "calls_used": 10000,
             "fit": {"ok": True, "alpha_s": A[lk], "bandwidth_Bps": BW[lk],
                     "points": 20, "points_used": 20, "why": None},
             "bandwidth_bound_calls": 5000, "busbw_Bps": BW[lk] * 0.9,
             "model_busbw_Bps": BW[lk] * 0.98, "expected_Bps": BW[lk],
             "expected_source": "profile"} for lk in ("intra", "inter")},
    "clock_offsets": {"reference": nodes[0], "method": "median",
                      "instances": 1000,
                      "nodes": [{"node": n, "offset_s": 0.0, "samples": 100}
                                for n in nodes]},
    "communicators": comms, "collectives": rows, "ranks": ranks,
    "timeline": timeline, "findings": findings,
    "inputs": {"files": [{"file": "/scratch/job4096/r%05d.cplog" % r,
                          "status": "ok", "rank": r, "node": nodes[r // G],
                          "pid": 1000 + r, "job_id": "4096", "records": 2000,
                          "calls": 1900, "skipped_records": 0,
                          "truncated_bytes": 0, "records_dropped": 0,
                          "closed": True} for r in range(P)],
               "problems": [{"file": "/scratch/job4096/r%05d.cplog" % r,
                             "offset": 64 * r, "message": "record skipped"}
                            for r in range(50)]},
    "topology": {"nodes": nodes, "efficiency": topo},
}
with open(out, "w") as f:
    json.dump(report, f)
