#!/bin/sh
# ports.sh - hostile port snapshots and probe.json next to small logs
# (docs/security.md, "Port snapshots and probe.json"): each analysis runs
# under a CPU limit and its peak RSS and CPU time are measured (getrusage,
# tests/analyze/maxrss) against the documented budget, with wide margins.
#  - two snapshots of 100,000 empty ports each (300 KB): refused by their
#    parse cost, a problem each (the quadratic join once took 66 s);
#  - 40 snapshots of node n0 with 1000 ports each: at most 1024 ports of a
#    node kept, the rest named in a problem;
#  - a damaged and an over-size (sparse, 2 MiB) snapshot: problems naming
#    the file (and its size), the analysis goes on;
#  - a probe/probe.json of 40 MiB (sparse) found next to the logs: a
#    problem naming it and its size, the analysis goes on (it once failed
#    whole); given with --probe it is a usage error naming it;
#  - a 2 MB probe.json of empty objects (about 220 MB parsed): refused by
#    its parse cost before it is built.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
gen="$b/tests/tools/gen_logs"
maxrss="$b/tests/analyze/maxrss"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
[ -x "$maxrss" ] || skip_all "tests/analyze/maxrss not built"
for p in python3 timeout truncate; do
    command -v $p >/dev/null 2>&1 || skip_all "no $p"
done
t=$(mktemp -d /tmp/cp-secports-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$t"' EXIT INT TERM
"$gen" -o "$t/src" --ranks 4 --ranks-per-node 2 --steps 3 >/dev/null ||
    skip_all "gen_logs failed"

# budget: peak RSS in KiB, CPU seconds (the analysis of these logs alone
# takes about 10 MB and 0.1 s; the limits are the documented ones with a
# wide margin, not timings)
RSS_KIB=131072
CPU_S=10

# run NAME DIR ARGS...: analyze a copy of the logs plus what DIR holds,
# under a CPU limit of 60 s; exit status in $rc, stderr in $t/NAME.err
run() {
    name=$1 dir=$2; shift 2
    (
        ulimit -t 60 || exit 99
        exec timeout 120 "$maxrss" "$cp" analyze "$dir" -o "$t/$name.out" -q "$@"
    ) 2>"$t/$name.err"
    rc=$?
    [ "$rc" -eq 99 ] && skip_all "ulimit -t refused"
    rss=$(sed -n 's/^maxrss_kib //p' "$t/$name.err")
    cpu=$(sed -n 's/^cpu_s //p' "$t/$name.err")
    diag "$name: exit $rc, peak RSS ${rss:-?} KiB, CPU ${cpu:-?} s"
}
within_budget() {
    [ -n "$rss" ] && [ -n "$cpu" ] && [ "$rss" -lt "$RSS_KIB" ] &&
        python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < $CPU_S else 1)" "$cpu"
}
# problem DIR.out FILE_SUFFIX TEXT: report.json lists a problem of FILE
# (ports.problems or inputs.problems) whose message holds TEXT
problem() {
    python3 - "$1/report.json" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ps = r["ports"]["problems"] + r["inputs"]["problems"]
sys.exit(0 if any(p["file"].endswith(sys.argv[2]) and sys.argv[3] in p["message"]
                  for p in ps) else 1)
PY
}
fresh() { rm -rf "$t/$1"; cp -r "$t/src" "$t/$1"; }

# 1. two snapshots of 100,000 empty ports each
fresh empty
python3 - "$t/empty" <<'PY'
import sys
for when in ("start", "end"):
    with open("%s/ports-n0-%s.json" % (sys.argv[1], when), "w") as f:
        f.write('{"schema": "collprof.ports/1", "node": "n0", "when": "%s", '
                '"ports": [%s]}' % (when, ",".join(["{}"] * 100000)))
PY
check "the snapshots of 100,000 ports are small (< 400 KB)" \
    [ -z "$(find "$t/empty" -name 'ports-*.json' -size +400k)" ]
run empty "$t/empty"
check "100,000 empty ports: the analysis succeeds (exit 0)" [ "$rc" -eq 0 ]
check "... within ${RSS_KIB} KiB and ${CPU_S} s of CPU" within_budget
check "... the start snapshot named, refused by its parse cost" \
    problem "$t/empty.out" ports-n0-start.json "more than a port snapshot may"
check "... the end snapshot too" \
    problem "$t/empty.out" ports-n0-end.json "more than a port snapshot may"

# 2. 40 snapshots of node n0, 1000 distinct ports each
fresh many
python3 - "$t/many" <<'PY'
import json, sys
for k in range(40):
    ps = [{"device": "d%d_%d" % (k, i), "port": 1, "state": "ACTIVE",
           "link_layer": "InfiniBand", "rate_Gbps": 400} for i in range(1000)]
    for when in ("start", "end"):
        with open("%s/ports-x%d-%s.json" % (sys.argv[1], k, when), "w") as f:
            json.dump({"schema": "collprof.ports/1", "node": "n0",
                       "when": when, "ports": ps}, f)
PY
run many "$t/many"
check "40 x 1000 ports of one node: the analysis succeeds" [ "$rc" -eq 0 ]
check "... within ${RSS_KIB} KiB and ${CPU_S} s of CPU" within_budget
check "... at most 1024 ports of the node kept, the rest named" \
    python3 - "$t/many.out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n0 = [n for n in r["ports"]["nodes"] if n["node"] == "n0"]
ok = len(n0) == 1 and len(n0[0]["ports"]) == 1024
ok = ok and any("keeps at most 1024 ports of a node" in p["message"]
                for p in r["ports"]["problems"])
sys.exit(0 if ok else 1)
PY

# 3. a damaged and an over-size snapshot beside a good one
fresh bad
python3 "${top_srcdir:-.}/tests/analyze/mkports.py" "$t/bad" 2 1
printf '{"schema": "collprof.ports/1", "node": ' >"$t/bad/ports-n1-end.json"
truncate -s 2M "$t/bad/ports-n9-start.json"
run bad "$t/bad"
check "damaged and over-size snapshots: the analysis succeeds" [ "$rc" -eq 0 ]
check "... the damaged one named with its line" \
    problem "$t/bad.out" ports-n1-end.json "line 1"
check "... the over-size one named with its size" \
    problem "$t/bad.out" ports-n9-start.json "2097152 bytes, more than a port snapshot may have (1048576)"
check "... the good ones read" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if [n['node'] for n in r['ports']['nodes']] == ['n0', 'n1'] else 1)" \
    "$t/bad.out/report.json"

# 4. a 40 MiB probe.json found next to the logs
fresh probe
mkdir "$t/probe/probe"
truncate -s 40M "$t/probe/probe/probe.json"
run probe "$t/probe"
check "a 40 MiB probe.json found next to the logs: the analysis goes on (exit 0)" \
    [ "$rc" -eq 0 ]
check "... within ${RSS_KIB} KiB and ${CPU_S} s of CPU" within_budget
check "... named with its size among the input problems" \
    problem "$t/probe.out" probe/probe.json "41943040 bytes, more than a probe.json may have (33554432)"
check "... and on stderr" grep -q "probe.json: 41943040 bytes" "$t/probe.err"
run probearg "$t/src" --probe "$t/probe/probe/probe.json"
check "... given with --probe: a usage error (exit 2) naming it" \
    sh -c "[ $rc -eq 2 ] && grep -q 'probe.json: 41943040 bytes' '$t/probearg.err'"

# 5. a 2 MB probe.json of empty objects
fresh objs
mkdir "$t/objs/probe"
python3 - "$t/objs/probe/probe.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"schema": "collprof.probe/1", "topology": {"nodes": [], '
            '"pairs": [], "reference_Bps": null, "median_latency_s": null, '
            '"reference_source": null}, "x": [%s]}' % ",".join(["{}"] * 700000))
PY
run objs "$t/objs"
check "a 2 MB probe.json of 700,000 objects: the analysis goes on" [ "$rc" -eq 0 ]
check "... within ${RSS_KIB} KiB and ${CPU_S} s of CPU" within_budget
check "... refused by its parse cost, named" \
    problem "$t/objs.out" probe/probe.json "whose parse would take about"
done_testing
