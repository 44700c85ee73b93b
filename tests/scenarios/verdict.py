#!/usr/bin/env python3
"""verdict.py REPORT.json VERDICT.txt CHECK... - TAP points on what collprof
analyze told a user (tests/scenarios).  Prints one "ok"/"not ok" line per
check, numbered from $TAP_START (default 1), and exits 0.

Checks:
  none=KIND[,KIND]     no finding of these kinds
  nowarn=KIND[,KIND]   no finding of these kinds at warning or critical
  quiet                no network, clock or straggler finding at warning or
                       critical (the healthy-run promise)
  find=KIND:NODE[:NODE]  a finding of KIND whose nodes are exactly these
                       (`-` for none given: any nodes)
  only=KIND[,KIND]     no finding of any other network/clock/straggler kind
  steps=N              summary.steps == N (`unknown`: null)
  offset=NODE:SECONDS:TOL  the applied offset of NODE is SECONDS within TOL,
                       and SECONDS lies within its [low, high]
  gains                every latency_bound finding saves >= 1 % of the run
                       and >= 1 ms per step, and names a bucket above
                       DDP's default (25 MiB) or none at all
  once                 every latency_bound finding's saving is at most the
                       latency-bound time of its busiest communicator (for
                       jobs whose data-parallel communicators are replicas
                       of one group, which run side by side: their shared
                       time is saved once, not once per replica)
  weak=LINK:TEXT       the fit of LINK (intra, inter) is weak and its
                       weak_why contains TEXT
  noline=TEXT          the printed verdict does not contain TEXT
  line=TEXT            the printed verdict contains TEXT
"""
import json
import os
import sys

NETWORK = {"low_busbw", "tcp_fallback", "straggler", "slow_link",
           "slow_link_candidates", "clock_offset", "degraded_port",
           "below_reference"}


def main():
    report, verdict_path = sys.argv[1], sys.argv[2]
    n = int(os.environ.get("TAP_START", "1"))
    name = os.environ.get("TAP_NAME", os.path.basename(os.path.dirname(report)))
    try:
        with open(report) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        r = None
        err = str(e)
    try:
        with open(verdict_path) as f:
            text = f.read()
    except OSError:
        text = ""
    for check in sys.argv[3:]:
        if r is None:
            print("not ok %d - %s: %s (no report: %s)" % (n, name, check, err))
            n += 1
            continue
        good, why = judge(r, text, check)
        print("%s %d - %s: %s%s" % ("ok" if good else "not ok", n, name,
                                     check, "" if good else " (" + why + ")"))
        n += 1


def kinds(r):
    return ["%s[%s]%s" % (f["kind"], f["severity"], ",".join(f.get("nodes", [])))
            for f in r["findings"]]


def judge(r, text, check):
    key, _, arg = check.partition("=")
    fs = r["findings"]
    if key == "none":
        bad = [f for f in fs if f["kind"] in arg.split(",")]
        return not bad, "found: %s" % kinds(r)
    if key == "nowarn":
        bad = [f for f in fs if f["kind"] in arg.split(",")
               and f["severity"] in ("warning", "critical")]
        return not bad, "found: %s" % kinds(r)
    if key == "quiet":
        bad = [f for f in fs if f["kind"] in NETWORK
               and f["severity"] in ("warning", "critical")]
        return not bad, "found: %s" % kinds(r)
    if key == "only":
        allowed = set(arg.split(","))
        bad = [f for f in fs if f["kind"] in NETWORK
               and f["kind"] not in allowed
               and f["severity"] in ("warning", "critical")]
        return not bad, "found: %s" % kinds(r)
    if key == "find":
        kind, _, nodes = arg.partition(":")
        want = sorted(nodes.split(":")) if nodes and nodes != "-" else None
        hit = [f for f in fs if f["kind"] == kind and
               (want is None or sorted(f.get("nodes", [])) == want)]
        return bool(hit), "found: %s" % kinds(r)
    if key == "weak":
        link, _, why = arg.partition(":")
        fit = r["model"][link]["fit"]
        return (fit["weak"] is True and why in (fit["weak_why"] or ""),
                "fit %s" % json.dumps(fit))
    if key == "steps":
        got = r["summary"].get("steps")
        want = None if arg == "unknown" else int(arg)
        return got == want, "steps %s (%s)" % (
            got, r["summary"].get("steps_method"))
    if key == "offset":
        node, sec, tol = arg.split(":")
        sec, tol = float(sec), float(tol)
        for nd in r["clock_offsets"]["nodes"]:
            if nd["node"] == node:
                got = nd["offset_s"]
                inside = nd["low_s"] is not None and \
                    nd["low_s"] <= sec <= nd["high_s"]
                return (got is not None and abs(got - sec) <= tol and inside,
                        "offset %s in [%s, %s]" % (got, nd["low_s"],
                                                   nd["high_s"]))
        return False, "no node %s" % node
    if key == "gains":
        for f in fs:
            if f["kind"] != "latency_bound":
                continue
            e = f["evidence"]
            if not (e["saving_run_share"] >= 0.01 and
                    e["saving_per_step_s"] >= 1e-3 and
                    e["bucket_bytes"] >= 25 * 1048576):
                return False, "advice without gain: %s" % f["message"]
        return True, ""
    if key == "once":
        for f in fs:
            if f["kind"] != "latency_bound":
                continue
            e = f["evidence"]
            most = max(x["time_s"] for x in e["sizes"])
            if not e["saving_s"] <= most * (1 + 1e-9):
                return False, "saving %.4g s over the busiest communicator's " \
                    "%.4g s: %s" % (e["saving_s"], most, f["message"])
        return True, ""
    if key == "noline":
        return arg not in text, "printed: %r" % text
    if key == "line":
        return arg in text, "printed: %r" % text
    return False, "unknown check"


if __name__ == "__main__":
    main()
