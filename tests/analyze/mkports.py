#!/usr/bin/env python3
"""mkports.py DIR NODES [IB_PORTS] - write ports-nK-{start,end}.json for
nodes n0 .. n(NODES-1) into DIR (the collprof.ports/1 format of
docs/plugin.md), as the plugin's snapshots would be: IB_PORTS
InfiniBand ports of 400 Gb/s (8 by default); n3 has two Ethernet ports
besides, of 100 and 200 Gb/s.  Planted: n7's mlx5_3 at 200 Gb/s, and
n11's mlx5_2 with 5 symbol errors more at the end than at the start."""
import json
import os
import sys

d, nodes = sys.argv[1], int(sys.argv[2])
ib = int(sys.argv[3]) if len(sys.argv) > 3 else 8


def port(device, layer, rate, errors):
    return {"device": device, "port": 1, "state": "ACTIVE",
            "phys_state": "LinkUp", "link_layer": layer,
            "rate": "%g Gb/sec" % rate, "rate_Gbps": rate,
            "active_width": 4, "lane_Gbps": rate / 4, "from_verbs": False,
            "counters": {"link_downed": 0, "symbol_error": errors},
            "problems": ""}


for n in range(nodes):
    for when in ("start", "end"):
        ps = [port("mlx5_%d" % k, "InfiniBand",
                   200.0 if (n, k) == (7, 3) else 400.0,
                   5 if (when, n, k) == ("end", 11, 2) else 0)
              for k in range(ib)]
        if n == 3:
            ps += [port("eth%d" % k, "Ethernet", 100.0 * (k + 1), 0)
                   for k in range(2)]
        doc = {"schema": "collprof.ports/1", "node": "n%d" % n, "when": when,
               "time_ns": 1796206450000000000 + (60 * 10**9 if when == "end" else 0),
               "sysfs_root": "/sys", "verbs": False, "ports": ps}
        with open(os.path.join(d, "ports-n%d-%s.json" % (n, when)), "w") as f:
            json.dump(doc, f)
