#!/bin/sh
# portscale.sh - port snapshots of many nodes joined to a job: 256 nodes
# (2048 ranks from gen_logs), 8 InfiniBand ports a node, each with a start
# and an end snapshot.  One InfiniBand port runs at half rate and one's
# symbol errors rose: those two are degraded_port findings, with the rate
# of their peers.  One node has two Ethernet ports besides, of 100 and
# 200 Gb/s: the peer rate of a link layer is the higher of two as common,
# so the slower one is the third finding.  The report lists every node's ports in the
# order the snapshots gave them.  (The join once searched every port for
# each port and counted every port for each pair of ports: at 8192 nodes
# it did not finish; make bench times it at that size.)
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
gen=$b/tests/tools/gen_logs
need "$collprof" "$gen"

"$gen" -o "$work/job" --pattern ddp-large --ranks 2048 --ranks-per-node 8 \
    --calls 24 >/dev/null
ok $? "gen_logs: 2048 ranks on 256 nodes"
python3 "$top_srcdir/tests/analyze/mkports.py" "$work/job" 256
ok $? "port snapshots of 256 nodes written"
"$collprof" analyze -q "$work/job" -o "$work/out" 2>"$work/err"
ok $? "analyze with 512 snapshot files"
python3 - "$work/out/report.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["ports"]
assert p["snapshots"] == 512, p["snapshots"]
assert p["problems"] == [], p["problems"]
nodes = p["nodes"]
assert len(nodes) == 256, len(nodes)
# nodes in the job's order, each one's ports in the snapshot's order
names = [n["node"] for n in nodes]
for n in nodes:
    assert n["start"] and n["end"], n["node"]
    devs = [(q["device"], q["port"]) for q in n["ports"]]
    want = [("mlx5_%d" % k, 1) for k in range(8)]
    if n["node"] == "n3":
        want += [("eth0", 1), ("eth1", 1)]
    assert devs == want, (n["node"], devs)
    for q in n["ports"]:
        want_peer = 400.0 if q["link_layer"] == "InfiniBand" else 200.0
        assert q["peer_rate_Gbps"] == want_peer, (n["node"], q)
deg = [f for f in j["findings"] if f["kind"] == "degraded_port"]
said = sorted(f["message"] for f in deg)
assert len(deg) == 3, said[:5]
assert any("mlx5_3/1 of node n7 " in m and "200 Gb/s against 400 Gb/s" in m
           for m in said), said
assert any("mlx5_2/1 of node n11 " in m and "symbol_error rose by 5" in m
           for m in said), said
assert any("eth0/1 of node n3 " in m and "100 Gb/s against 200 Gb/s" in m
           for m in said), said
PY
ok $? "three degraded ports named, every port with its peers' rate"
done_testing
