#!/bin/sh
# memcheck.sh - the analyzer's commands under valgrind's memcheck.
#
# The sanitizer builds (tests/sanitize.sh) see only instrumented code: a
# JSON value freed twice through Jansson's reference counts, or read after
# Jansson freed it, happens inside the uninstrumented libjansson and passes
# them silently (it once corrupted the heap of large analyses).  memcheck
# sees every access, and every byte handed to a system call that was never
# written (collprof probe once sent its buffers to the other ranks before
# writing them).  Each command must finish with no memcheck error:
#   analyze of a multi-node job with a slow link and a straggler (the
#     node-pair matrices, findings, timeline, report.html), report of that
#     report.json;
#   analyze of damaged logs (an empty file, a foreign one, a truncated one,
#     an unknown record kind), dump --all of them;
#   report of a report.json with a key of the wrong type and of a file that
#     is not JSON (both refused);
#   bench --import --json --csv --write-profile --report, report of the
#     bench.json;
#   collprof probe on 3 nodes of the CPU NCCL (tests/simnccl), memcheck in
#     every task; report of its probe.json; analyze --probe with it and
#     with a malformed copy (refused);
#   ports of a fake sysfs tree.
# Each run is small: valgrind slows the code 20-50 times, and this runs in
# make check on two cores.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
s=${top_srcdir:-.}
cp="$b/analyzer/collprof"
gen="$b/tests/tools/gen_logs"
simrun="$b/tests/simnccl/simrun"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
# a libtool wrapper script would put valgrind on the shell
head -c 4 "$cp" | grep -q ELF || skip_all "$cp is not an executable file"
t=$(mktemp -d /tmp/cp-memcheck-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
VG="valgrind -q --error-exitcode=99 --track-origins=no --leak-check=no"

# vg NAME WANT CMD...: run CMD under memcheck; 0 when it exits WANT with no
# memcheck error
vg() {
    name=$1 want=$2
    shift 2
    $VG --log-file="$t/$name.vg" "$@" >"$t/$name.out" 2>"$t/$name.err"
    rc=$?
    if [ $rc -ne "$want" ] || [ -s "$t/$name.vg" ]; then
        diag "$name: exit $rc, want $want"
        head -n 40 "$t/$name.vg" "$t/$name.err" | sed 's/^/# /'
        return 1
    fi
    return 0
}
# py FILE EXPR: the Python expression over the JSON document d holds
py() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# ---- analyze and report ------------------------------------------------------
"$gen" -o "$t/logs" --pattern 3d --ranks 64 --ranks-per-node 8 --dp-size 2 \
    --steps 3 --inter-bw 12.5GB/s --intra-bw 150GB/s --noise 0.05 --seed 7 \
    --slow-link 2,4=3 >"$t/gen.out" 2>&1
ok $? "gen_logs: 3d, 64 ranks on 8 nodes, a slow link" ||
    sed 's/^/# /' "$t/gen.out"
vg analyze 0 "$cp" analyze -q "$t/logs" -o "$t/out"
ok $? "analyze: no memcheck error"
py "$t/out/report.json" '[v for row in d["topology"]["bandwidth_Bps"] or [] for v in row if v is not None] and any(f["kind"] == "slow_link" for f in d["findings"])'
ok $? "analyze: a node-pair matrix and a slow_link to free"
vg report 0 "$cp" report "$t/out/report.json" -o "$t/again.html"
ok $? "report of report.json: no memcheck error"

# ---- node partials: reduce, and the merge of partials alone ------------------
mkdir -p "$t/part"
cp "$t"/logs/n0.*.cplog "$t"/logs/n1.*.cplog "$t/part/"
vg reduce 0 "$cp" reduce -q --node n0 "$t/part" &&
    "$cp" reduce -q --node n1 "$t/part" && rm "$t"/part/*.cplog
ok $? "reduce: no memcheck error"
vg merge 0 "$cp" analyze -q "$t/part" -o "$t/part-out"
ok $? "analyze of partials: no memcheck error"

# ---- damaged inputs ------------------------------------------------------------
"$gen" -o "$t/dmg" --pattern ddp-small --ranks 4 --ranks-per-node 2 --steps 3 \
    --seed 17 --format 3 >"$t/gen2.out" 2>&1 &&
    : >"$t/dmg/empty.cplog" &&
    echo "this is not a collprof log" >"$t/dmg/foreign.cplog" &&
    f="$t/dmg/n0.10000.cplog" &&
    truncate -s $(($(stat -c %s "$f") - 30)) "$f" &&
    printf '\167' | dd of="$t/dmg/n1.10002.cplog" bs=1 seek=$((4096 + 64 * 20)) \
        conv=notrunc 2>/dev/null
ok $? "damaged logs: empty, foreign, truncated, an unknown record kind"
vg analyze-damaged 0 "$cp" analyze -q "$t/dmg" -o "$t/dmg.out"
ok $? "analyze of damaged logs: no memcheck error"
check "... the damage named" grep -q "unknown record kind 119" "$t/analyze-damaged.err"
vg dump-damaged 1 "$cp" dump --all "$t/dmg"
ok $? "dump --all of damaged logs: exit 1, no memcheck error"

python3 - "$t/out/report.json" "$t/wrongtype.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["topology"]["efficiency"][0][1] = "wide"
json.dump(r, open(sys.argv[2], "w"))
PY
vg report-wrongtype 1 "$cp" report "$t/wrongtype.json" -o "$t/wrongtype.html"
ok $? "report of a report.json with a key of the wrong type: exit 1, no memcheck error"
check "... the key named" grep -q "key 'topology.efficiency\[0\]\[1\]'" "$t/report-wrongtype.err"
printf '{"schema": "collprof.report/1",\n "job": {' >"$t/trunc.json"
vg report-trunc 1 "$cp" report "$t/trunc.json" -o "$t/trunc.html"
ok $? "report of a file that is not JSON: exit 1, no memcheck error"

# ---- bench --import ---------------------------------------------------------------
data=$s/tests/bench-cli/data
vg bench 0 "$cp" bench -q --import "$data/autodl-2080ti-x2.all_reduce_perf.txt" \
    "$data/autodl-2080ti-x2.all_gather_perf.txt" --json "$t/b.json" \
    --csv "$t/b.csv" --write-profile "$t/b.prof" --report "$t/bench"
ok $? "bench --import --json --csv --write-profile --report: no memcheck error"
vg benchreport 0 "$cp" report "$t/bench/bench.json" -o "$t/bench2.html"
ok $? "report of bench.json: no memcheck error"

# ---- probe ----------------------------------------------------------------------
if [ -x "$simrun" ]; then
    printf 'nodes 3\ninter latency=20us bandwidth=25MB/s\nlink n2 n3 bandwidth=6250KB/s\n' \
        >"$t/probe.topo"
    # memcheck in every task: an error in any makes simrun fail
    "$simrun" -n 3 --nodes 3 --topo "$t/probe.topo" --timeout 300 -- \
        $VG --log-file="$t/probe.%p.vg" "$cp" probe -q -o "$t/probe" \
        --size 64KiB --iters 2 --latency-iters 2 --pair-time 20ms \
        >"$t/probe.log" 2>&1
    rc=$?
    cat "$t"/probe.*.vg >"$t/probe.vg" 2>/dev/null
    if [ $rc -ne 0 ] || [ -s "$t/probe.vg" ]; then
        diag "probe: exit $rc"
        head -n 40 "$t/probe.vg" "$t/probe.log" | sed 's/^/# /'
        rc=1
    fi
    ok $rc "probe on 3 nodes of the CPU NCCL: no memcheck error in any task"
    vg probereport 0 "$cp" report "$t/probe/probe.json" -o "$t/probe.html"
    ok $? "report of probe.json: no memcheck error"
    # the probe's nodes n1-n3 are nodes of the job (n0-n7)
    vg analyze-probe 0 "$cp" analyze -q "$t/logs" -o "$t/probed" \
        --probe "$t/probe/probe.json"
    ok $? "analyze --probe: no memcheck error"
    py "$t/probed/report.json" 'd["topology"]["probe"] and d["topology"]["probe"]["pairs"] == 3'
    ok $? "... the probe's 3 pairs were read"
    python3 - "$t/probe/probe.json" "$t/badprobe.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["topology"]["pairs"][1]["bandwidth_Bps"] = "fast"
json.dump(d, open(sys.argv[2], "w"))
PY
    vg analyze-badprobe 2 "$cp" analyze -q "$t/logs" -o "$t/badprobed" \
        --probe "$t/badprobe.json"
    ok $? "analyze --probe of a malformed probe.json: exit 2, no memcheck error"
else
    diag "tests/simnccl/simrun not built: collprof probe not run"
fi

# ---- ports ----------------------------------------------------------------------
p="$t/sysfs/class/infiniband/mlx5_0/ports/1"
mkdir -p "$p/counters"
echo "4: ACTIVE" >"$p/state"
echo "100 Gb/sec (2X HDR)" >"$p/rate"
echo "InfiniBand" >"$p/link_layer"
echo 3 >"$p/counters/symbol_error"
echo x >"$p/counters/port_rcv_errors"
vg ports 0 "$cp" ports --sysfs "$t/sysfs" --node n1
ok $? "ports of a fake sysfs tree: no memcheck error"
py "$t/ports.out" 'd["ports"][0]["rate_Gbps"] == 100'
ok $? "... the port read"
done_testing
