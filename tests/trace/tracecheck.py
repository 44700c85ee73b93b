#!/usr/bin/env python3
"""tracecheck.py - check a collprof trace against docs/trace.md's rules and
against the calls of the logs (`collprof dump --csv`).

  tracecheck.py TRACE DUMP.csv [--ranks 0-3,6]

TRACE may be gzip-compressed (.gz).  Checks, each printed as a TAP line by
the caller's count (this prints one line per failed rule and exits 1):
  - the file is one JSON object: otherData (schema collprof.trace/1,
    origin_ns, clock_offsets_ns per node, from_us/to_us) and traceEvents;
  - every event has a known phase and the fields that phase needs;
  - every (pid, tid) used has a thread_name "rank R (NODE)" (device lanes
    "rank R (NODE) GPU"), every pid a process_name NODE;
  - every call of DUMP.csv of a selected rank that overlaps the cut is
    exactly one call slice on its rank's lane, with its op, communicator id
    and sequence, its start (the log's start minus the node's clock offset
    minus origin_ns) and duration within 1 us;
  - every flow has one start and one finish, each strictly inside a
    collective slice of its lane; the two slices are of the same instance
    (communicator id and sequence) on different ranks, and the start's rank
    is the finish slice's last_rank;
  - every collective slice whose last_rank is another rank with a lane in
    the trace is the finish of exactly one flow.
Prints a summary line "calls=N flows=N gpu=N instants=N" on success.
"""
import csv
import gzip
import json
import re
import sys

TOL_NS = 1000


def fail(msg):
    print("tracecheck: " + msg)
    sys.exit(1)


def parse_ranks(text):
    out = set()
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def ns(x):
    """a ts or dur in us (3 decimals) to integer ns"""
    return int(round(float(x) * 1000))


def main():
    args = sys.argv[1:]
    ranks = None
    if "--ranks" in args:
        i = args.index("--ranks")
        ranks = parse_ranks(args[i + 1])
        del args[i:i + 2]
    path, dump = args
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("not an object with a traceEvents array")
    od = doc.get("otherData") or {}
    if od.get("schema") != "collprof.trace/1":
        fail("otherData.schema is %r" % od.get("schema"))
    origin = od.get("origin_ns")
    offsets = od.get("clock_offsets_ns")
    if not isinstance(origin, int) or not isinstance(offsets, dict):
        fail("otherData lacks origin_ns or clock_offsets_ns")
    from_ns = None if od.get("from_us") is None else ns(od["from_us"])
    to_ns = None if od.get("to_us") is None else ns(od["to_us"])

    procs, threads = {}, {}
    slices, gpu, instants, flows = [], [], [], {}
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if ph not in ("M", "X", "s", "f", "i"):
            fail("unknown phase %r in %r" % (ph, e))
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail("event without integer pid/tid: %r" % e)
        if ph == "M":
            if e["name"] == "process_name":
                procs[e["pid"]] = e["args"]["name"]
            elif e["name"] == "thread_name":
                threads[(e["pid"], e["tid"])] = e["args"]["name"]
            elif e["name"] not in ("process_sort_index", "thread_sort_index"):
                fail("unknown metadata %r" % e)
            continue
        if not isinstance(e.get("ts"), (int, float)) or not isinstance(e.get("name"), str):
            fail("event without ts or name: %r" % e)
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail("slice without a duration: %r" % e)
            if e.get("cat") == "gpu":
                gpu.append(e)
            elif e.get("cat") in ("collective", "p2p", "failed", "in_flight", "group"):
                slices.append(e)
            else:
                fail("slice of unknown category: %r" % e)
        elif ph in ("s", "f"):
            if ph == "f" and e.get("bp") != "e":
                fail("flow finish not bound to its enclosing slice: %r" % e)
            flows.setdefault(e.get("id"), []).append(e)
        else:
            if e.get("s") not in ("g", "p", "t") or "severity" not in e.get("args", {}):
                fail("instant without scope or severity: %r" % e)
            instants.append(e)

    lane_rank = {}
    for (pid, tid), name in threads.items():
        m = re.fullmatch(r"rank (\d+) \((.*)\)( GPU)?", name)
        if not m:
            fail("thread name %r is not 'rank R (NODE)'" % name)
        if procs.get(pid) != m.group(2):
            fail("lane %r under process %r" % (name, procs.get(pid)))
        lane_rank[(pid, tid)] = (int(m.group(1)), m.group(2), bool(m.group(3)))
    gpu_ids = set(id(e) for e in gpu)
    for e in slices + gpu + instants + [x for v in flows.values() for x in v]:
        key = (e["pid"], e["tid"])
        if key not in lane_rank:
            fail("event on an unnamed lane: %r" % e)
        if (id(e) in gpu_ids) != lane_rank[key][2]:
            fail("device slice off the device lane (or the reverse): %r" % e)

    # the calls of the logs
    expect = {}
    with open(dump) as f:
        for row in csv.DictReader(f):
            r = int(row["rank"])
            if ranks is not None and r not in ranks:
                continue
            off = offsets.get(row["node"])
            if off is None:
                fail("no clock offset for node %s" % row["node"])
            s = int(row["start_ns"]) - off - origin
            if int(row["end_ns"]) == 0:  # never returned: to the run's end
                d = max(ns(od["span_us"]) - s, 0)
            else:
                d = int(row["end_ns"]) - int(row["start_ns"])
            end = s + max(d, 0)
            if to_ns is not None and not s < to_ns:
                continue
            if from_ns is not None and not (end > from_ns or (end == s and s >= from_ns)):
                continue
            expect.setdefault(r, []).append((s, d, row["op"], row["comm"], row["seq"], row["node"]))
    got = {}
    for e in slices:
        if e["cat"] == "group":
            continue
        r, node, _ = lane_rank[(e["pid"], e["tid"])]
        got.setdefault(r, []).append(e)
    if set(got) != set(expect):
        fail("ranks with calls: trace %s, logs %s" % (sorted(got), sorted(expect)))
    ncalls = 0
    for r in expect:
        want = sorted(expect[r])
        have = sorted(got[r], key=lambda e: (ns(e["ts"]), ns(e["dur"])))
        if len(want) != len(have):
            fail("rank %d: %d calls in the logs, %d slices" % (r, len(want), len(have)))
        for w, e in zip(want, have):
            a = e["args"]
            if abs(ns(e["ts"]) - w[0]) > TOL_NS or abs(ns(e["dur"]) - w[1]) > TOL_NS:
                fail("rank %d: call at %d ns for %d ns is slice %r" % (r, w[0], w[1], e))
            if a["op"] != w[2] or a["comm_id"] != "0x" + w[3] or (
                    w[4] != "" and int(w[4]) != 0xffffffff and a.get("seq") != int(w[4])):
                fail("rank %d: call %r is slice %r" % (r, w, e))
            if lane_rank[(e["pid"], e["tid"])][1] != w[5]:
                fail("rank %d: call on node %s drawn under %s" % (r, w[5], lane_rank[(e["pid"], e["tid"])][1]))
            ncalls += 1

    # flows
    by_lane = {}
    for e in slices:
        if e["cat"] == "collective":
            by_lane.setdefault((e["pid"], e["tid"]), []).append(e)

    def enclosing(ev):
        t = ns(ev["ts"])
        hits = [x for x in by_lane.get((ev["pid"], ev["tid"]), [])
                if ns(x["ts"]) <= t <= ns(x["ts"]) + ns(x["dur"])]
        if len(hits) != 1:
            fail("flow event %r lies in %d collective slices" % (ev, len(hits)))
        return hits[0]

    finishes = {}
    for fid, evs in flows.items():
        phs = sorted(x["ph"] for x in evs)
        if phs != ["f", "s"]:
            fail("flow %r has events %r" % (fid, phs))
        s = [x for x in evs if x["ph"] == "s"][0]
        f = [x for x in evs if x["ph"] == "f"][0]
        a, b = enclosing(s), enclosing(f)
        if (a["args"]["comm_id"], a["args"]["seq"]) != (b["args"]["comm_id"], b["args"]["seq"]):
            fail("flow %r joins %r and %r" % (fid, a, b))
        ra = lane_rank[(s["pid"], s["tid"])][0]
        rb = lane_rank[(f["pid"], f["tid"])][0]
        if ra == rb or b["args"].get("last_rank") != ra:
            fail("flow %r from rank %d to %d; last arrival %r" % (fid, ra, rb, b["args"].get("last_rank")))
        key = id(b)
        finishes[key] = finishes.get(key, 0) + 1
    lanes_of = set(r for r, _, g in lane_rank.values() if not g)
    present = set()
    for key, evs in by_lane.items():
        for x in evs:
            present.add((lane_rank[key][0], x["args"]["comm_id"], x["args"]["seq"]))
    for e in slices:
        if e["cat"] != "collective":
            continue
        lr = e["args"].get("last_rank")
        me = lane_rank[(e["pid"], e["tid"])][0]
        if lr is None or lr == me or lr not in lanes_of:
            continue
        # the last arrival's call must itself be in the cut
        n = finishes.get(id(e), 0)
        if n > 1:
            fail("slice %r is the finish of %d flows" % (e, n))
        if n == 0 and (lr, e["args"]["comm_id"], e["args"]["seq"]) in present:
            fail("slice %r has no flow from its last arrival" % e)
    print("calls=%d flows=%d gpu=%d instants=%d" % (ncalls, len(flows), len(gpu), len(instants)))


if __name__ == "__main__":
    main()
