#!/usr/bin/env python3
"""fleet_gen.py N OUT - a collprof.fleet/1 document of N nodes (gpu-1 ..
gpu-N) for fleet.html's tests (tests/reports/fleet_html.c).

Each node is linked to the next two around a ring (2N links).  The ring
link out of every 32nd node is bad (that of gpu-1 with 300 steps behind
it, the others with 4), the second link of every 32nd node from the 17th
suspect, the rest ok; every 25th node from the 4th is a bad straggler;
every node has one port, every 40th from the 8th bad.  The summary counts
what the arrays hold.
"""
import datetime
import json
import sys

START = datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc)


def when(hours):
    t = START + datetime.timedelta(hours=hours)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def history(i, n, slow):
    out = []
    for k in range(n):
        mark = "slow" if slow(k) else "ok"
        eff = 0.4 if mark == "slow" else 0.97
        out.append({"job": str(1000 + 7 * k + i % 7), "step": "0",
                    "user": "user%d" % (k % 5), "end": when(i % 24 + 3 * k),
                    "bandwidth_Bps": eff * 2.4e10, "efficiency": eff,
                    "source": "calls", "verdict": mark})
    return out


def link(n, i, step):
    a, b = "gpu-%d" % (i + 1), "gpu-%d" % ((i + step) % n + 1)
    if step == 1 and i % 32 == 0:
        verdict, steps, slow = "bad", 300 if i == 0 else 4, lambda k: k % 4
    elif step == 2 and i % 32 == 16:
        verdict, steps, slow = "suspect", 3, lambda k: k == 1
    else:
        verdict, steps, slow = "ok", 2, lambda k: False
    h = history(i, steps, slow)
    slows = [p for p in h if p["verdict"] == "slow"]
    return {"nodes": [a, b], "verdict": verdict, "jobs_crossed": steps + 1,
            "jobs_measured": steps, "jobs_slow": len(slows), "users": 5,
            "median_efficiency": 0.4 if verdict == "bad" else 0.97,
            "reference_Bps": 2.4e10,
            "first_slow": slows[0]["end"] if slows else None,
            "last_slow": slows[-1]["end"] if slows else None,
            "ports": [{"node": a, "device": "mlx5_0", "port": 1,
                       "rate_Gbps": 200}],
            "history": h}


def node(i):
    bad = i % 25 == 3
    return {"node": "gpu-%d" % (i + 1), "verdict": "bad" if bad else "ok",
            "jobs": 10, "jobs_straggler": 6 if bad else 0, "users": 4,
            "users_straggler": 3 if bad else 0,
            "median_delay_s": 0.004 if bad else None,
            "history": [{"job": str(2000 + k), "step": "0",
                         "user": "user%d" % k, "end": when(5 * k),
                         "straggler": bad, "delay_s": 0.004 if bad else None}
                        for k in range(3)]}


def port(i):
    bad = i % 40 == 7
    return {"node": "gpu-%d" % (i + 1), "device": "mlx5_0", "port": 1,
            "verdict": "bad" if bad else "ok", "jobs": 10,
            "jobs_errors": 4 if bad else 0, "jobs_slow_rate": 0,
            "rate_Gbps": 200, "peer_rate_Gbps": 200,
            "counters": {"symbol_error": 40} if bad else {}}


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    links = [link(n, i, s) for i in range(n) for s in (1, 2)]
    nodes = [node(i) for i in range(n)]
    ports = [port(i) for i in range(n)]

    def count(items, v):
        return sum(1 for x in items if x["verdict"] == v)
    doc = {"schema": "collprof.fleet/1", "generated": when(24 * 36),
           "since": when(0), "db": "generated.db",
           "summary": {"jobs": 1200, "steps": 1500, "users": 5, "nodes": n,
                       "pairs": len(links),
                       "bad_links": count(links, "bad"),
                       "suspect_links": count(links, "suspect"),
                       "bad_nodes": count(nodes, "bad"),
                       "suspect_nodes": count(nodes, "suspect"),
                       "bad_ports": count(ports, "bad")},
           "rules": [{"name": "link_bad",
                      "text": "slow in most jobs that measured it"}],
           "links": links, "nodes": nodes, "ports": ports}
    with open(out, "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
