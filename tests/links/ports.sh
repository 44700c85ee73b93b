#!/bin/sh
# ports.sh - RDMA port snapshots against fake sysfs trees, one per node
# (COLLPROF_SYSFS_ROOT=.../%n), taken on every node of a simrun job, and
# the degraded_port finding collprof analyze makes of them: a port at half
# width, a port whose symbol errors rose, a missing counters folder,
# unreadable files, a node without RDMA devices.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
cp="$b/analyzer/collprof"
simrun="$b/tests/simnccl/simrun"
app="$b/tests/apps/train_sim"
need_sim_job
t=$(mktemp -d /tmp/cp-ports-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM

# port NODE RATE: a healthy mlx5_0 port 1 of NODE at RATE
port() {
    d="$t/sysfs/$1/class/infiniband/mlx5_0/ports/1"
    mkdir -p "$d/counters"
    echo "4: ACTIVE" >"$d/state"
    echo "5: LinkUp" >"$d/phys_state"
    echo "$2" >"$d/rate"
    echo "InfiniBand" >"$d/link_layer"
    for c in symbol_error link_downed port_rcv_errors port_xmit_discards \
        link_error_recovery port_xmit_wait; do
        echo 0 >"$d/counters/$c"
    done
    echo 123456789 >"$d/counters/port_xmit_data"
    echo 987654321 >"$d/counters/port_rcv_data"
}
for n in n1 n2 n3 n4; do port $n "200 Gb/sec (4X HDR)"; done
port n2 "100 Gb/sec (2X HDR)"                          # half width
rm -r "$t/sysfs/n4/class/infiniband/mlx5_0/ports/1/counters"  # no counters
d1="$t/sysfs/n1/class/infiniband/mlx5_0/ports/1"
rm "$d1/phys_state" && mkdir "$d1/phys_state"          # unreadable (EISDIR)
rm "$d1/counters/port_rcv_errors"
ln -s nowhere "$d1/counters/port_rcv_errors"           # unreadable (ENOENT)
mkdir -p "$t/sysfs/n5"                                 # no RDMA device
export COLLPROF_SYSFS_ROOT="$t/sysfs/%n"

"$cp" ports --node n5 >"$t/n5.json" 2>"$t/n5.err"
ok $? "a node without RDMA devices: exit status 0"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["ports"] == [] and j["node"] == "n5", j' "$t/n5.json"
ok $? "a node without RDMA devices: an empty snapshot"

mkdir "$t/logs"
"$simrun" -n 4 --nodes 4 -- "$cp" ports -o "$t/logs" --when start
ok $? "simrun: a start snapshot on every node"
check "four start snapshots" test "$(ls "$t/logs"/ports-n*-start.json | wc -l)" -eq 4
python3 - "$t/logs" <<'PY'
import json, sys
d = sys.argv[1]
n1 = json.load(open(d + "/ports-n1-start.json"))["ports"][0]
assert n1["state"] == "ACTIVE" and n1["rate_Gbps"] == 200, n1
assert n1["active_width"] == 4 and n1["lane_Gbps"] == 50, n1
assert "phys_state" in n1["problems"] and "port_rcv_errors" in n1["problems"], n1
assert n1["counters"]["symbol_error"] == 0 and "port_rcv_errors" not in n1["counters"], n1
n2 = json.load(open(d + "/ports-n2-start.json"))["ports"][0]
assert n2["rate_Gbps"] == 100 and n2["active_width"] == 2, n2
n4 = json.load(open(d + "/ports-n4-start.json"))["ports"][0]
assert n4["counters"] is None and "no counters folder" in n4["problems"], n4
PY
ok $? "snapshots: rate, width, counters, problems of unreadable files and a missing counters folder"

# the job, then symbol errors on n3 and the end snapshots
cat >"$t/topo" <<'TOPO'
nodes 4
inter latency=20us bandwidth=25MB/s
TOPO
"$cp" record -q -o "$t/logs" -- "$simrun" -n 8 --nodes 4 --topo "$t/topo" \
    -- "$app" --pattern 3d --steps 5 >"$t/record.out" 2>&1
ok $? "record a 3d job on 8 ranks, 4 nodes"
echo 17 >"$t/sysfs/n3/class/infiniband/mlx5_0/ports/1/counters/symbol_error"
echo 99999 >"$t/sysfs/n3/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait"
"$simrun" -n 4 --nodes 4 -- "$cp" ports -o "$t/logs" --when end
ok $? "simrun: an end snapshot on every node"
"$cp" analyze -q "$t/logs" -o "$t/out"
ok $? "analyze the logs and the snapshots"
python3 - "$t/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["findings"] if x["kind"] == "degraded_port"]
for x in f:
    print("# " + x["message"])
by = {x["nodes"][0]: x for x in f}
assert sorted(by) == ["n2", "n3"], sorted(by)
assert by["n2"]["evidence"]["rate_Gbps"] == 100 and by["n2"]["evidence"]["peer_rate_Gbps"] == 200
assert by["n3"]["evidence"]["counters"] == {"symbol_error": 17}, by["n3"]["evidence"]
assert r["ports"]["snapshots"] >= 8, r["ports"]
nodes = {n["node"]: n for n in r["ports"]["nodes"]}
assert sorted(nodes) == ["n1", "n2", "n3", "n4"], sorted(nodes)
assert all(n["start"] and n["end"] for n in nodes.values())
PY
ok $? "degraded_port: n2 at half width, n3's symbol errors rose; n1 and n4 not blamed"

echo "not json" >"$t/logs/ports-n9-start.json"
"$cp" analyze -q "$t/logs" -o "$t/out2"
ok $? "a damaged snapshot does not stop the analysis"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert any("ports-n9-start.json" in p["file"] for p in r["ports"]["problems"]), r["ports"]' "$t/out2/report.json"
ok $? "a damaged snapshot is listed in ports.problems"
done_testing
