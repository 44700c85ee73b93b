#!/bin/sh
# probe.sh - collprof probe over the CPU NCCL (tests/simnccl): one task per
# node, every node pair measured in rounds of disjoint pairs, slow links
# named (docs/probe.md).
#
# The network of tests/links/simrun.sh (inter 25 MB/s, latency 20 us):
# healthy on 4 nodes, no finding and every pair near 25 MB/s; one link at
# 1/4 picked at random among the 6 pairs of 4 nodes and the 10 of 5 (an odd
# count: each node sits out one round), named exactly and nothing else; 2
# nodes against a profile; the chain of issue 4: a ddp ring over 4 nodes
# with a slow link gives slow_link_candidates pointing to collprof probe,
# and the probe it names finds the link; device buffers through the
# stand-in cudart; usage errors and one task per node.
#
# PROBE_SEED=N repeats a run's random choices (the seed is printed).
. "${top_srcdir:-.}/tests/tap.sh"
# paths, a work directory removed at exit, need, timing_lock
. "$top_srcdir/tests/bench-cli/lib.sh"
cp=$collprof
app=$train_sim
fake=$b/tests/bench-cli/lib
need "$cp" "$simrun"
t=$work
# PROBE_KEEP=1 keeps the outputs
[ -n "$PROBE_KEEP" ] && trap - EXIT && echo "# outputs in $t"
# the bandwidth checks are timings: no other timed simulated job beside
timing_lock

seed=${PROBE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "# PROBE_SEED=$seed"
. "${top_srcdir:-.}/tests/links/lib.sh"
# pairs K: every node pair of n1..nK, as A,B words
pairs() {
    i=1
    while [ $i -le "$1" ]; do
        j=$((i + 1))
        while [ $j -le "$1" ]; do
            printf 'n%d,n%d ' $i $j
            j=$((j + 1))
        done
        i=$((i + 1))
    done
}

# topo NAME K [A,B]: the network, with link A-B at a quarter of 25 MB/s
topo() {
    {
        echo "nodes $2"
        echo "intra latency=5us bandwidth=2GB/s"
        echo "inter latency=20us bandwidth=25MB/s"
        [ -n "$3" ] && echo "link $(echo "$3" | tr , ' ') bandwidth=6250KB/s"
    } >"$t/$1.topo"
}

# probe NAME K ARGS...: K tasks on K nodes; stdout, stderr, status kept
probe() {
    name=$1 k=$2
    shift 2
    "$simrun" -n "$k" --nodes "$k" --topo "$t/$name.topo" --timeout 120 -- \
        "$cp" probe -o "$t/$name.out" "$@" >"$t/$name.stdout" 2>"$t/$name.stderr"
    rc=$?
    echo "$rc" >"$t/$name.rc"
    return $rc
}

# expect NAME K [slow=A,B | planted=A,B]: probe.json of NAME holds every
# pair of K nodes once, in disjoint rounds, each near its bandwidth in the
# topology (A-B planted at a quarter), and slow_link findings for exactly
# the slow= pairs
expect() {
    python3 - "$t/$1.out/probe.json" "$@" <<'PY'
import json, sys
path, name, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = sorted(sorted(a.split("=", 1)[1].split(",")) for a in sys.argv[4:]
              if a.startswith("slow="))
planted = want + [sorted(a.split("=", 1)[1].split(","))
                  for a in sys.argv[4:] if a.startswith("planted=")]
r = json.load(open(path))
topo = r["topology"]
bad = []
for p in sorted(topo["pairs"], key=lambda p: p["nodes"]):
    print("#   %s-%s round %d: %.3g MB/s, %.0f us, %d KiB, %s, efficiency %.2f"
          % (p["nodes"][0], p["nodes"][1], p["round"],
             p["bandwidth_Bps"] / 1e6, p["latency_s"] * 1e6,
             p["bytes"] / 1024, p["state"], p["efficiency"]))
print("#   %d rounds in %.2f s" % (r["run"]["rounds"], r["run"]["wall_s"]))
if r.get("schema") != "collprof.probe/1":
    bad.append("schema %r" % r.get("schema"))
nodes = ["n%d" % (i + 1) for i in range(k)]
if topo["nodes"] != nodes:
    bad.append("nodes %s" % topo["nodes"])
rounds = k - 1 if k % 2 == 0 else k
if r["run"]["rounds"] != rounds:
    bad.append("%d rounds, want %d" % (r["run"]["rounds"], rounds))
seen = sorted(tuple(sorted(p["nodes"])) for p in topo["pairs"])
every = sorted((a, b) for a in nodes for b in nodes if a < b)
if seen != every:
    bad.append("pairs measured %s, want each of %s once" % (seen, every))
by_round = {}
for p in topo["pairs"]:
    by_round.setdefault(p["round"], []).extend(p["nodes"])
if sorted(by_round) != list(range(rounds)):
    bad.append("rounds used %s" % sorted(by_round))
for rd, ns in by_round.items():
    if len(ns) != len(set(ns)) or len(ns) != 2 * (k // 2):
        bad.append("round %d: nodes %s (not disjoint, or not k/2 pairs)"
                   % (rd, ns))
for p in topo["pairs"]:
    nominal = 6.25e6 if sorted(p["nodes"]) in planted else 25e6
    if not 0.5 * nominal <= p["bandwidth_Bps"] <= 1.25 * nominal:
        bad.append("%s: %.3g MB/s against the topology's %.3g MB/s"
                   % ("-".join(p["nodes"]), p["bandwidth_Bps"] / 1e6,
                      nominal / 1e6))
    if not 20e-6 <= p["latency_s"] <= 20e-3:
        bad.append("%s: latency %.3g s" % ("-".join(p["nodes"]),
                                           p["latency_s"]))
slow = sorted(sorted(p["nodes"]) for p in topo["pairs"]
              if p["state"] == "slow")
if slow != want:
    bad.append("pairs slow %s, planted %s" % (slow, want))
found = sorted(sorted(f["nodes"]) for f in r["findings"])
if found != want or any(f["kind"] != "slow_link" for f in r["findings"]):
    bad.append("findings name %s (%s), planted %s"
               % (found, [f["kind"] for f in r["findings"]], want))
for f in r["findings"]:
    print("#   %s %s: %s" % (f["kind"], f["severity"], f["message"]))
    if f["evidence"].get("method") != "probe" or \
       not f["evidence"].get("bandwidth_Bps"):
        bad.append("evidence %s" % f["evidence"])
for b in bad:
    print("# FAIL: " + b)
sys.exit(1 if bad else 0)
PY
}

# show NAME: the messages of a failed run
show() {
    sed 's/^/#   /' "$t/$1.stdout" "$t/$1.stderr" | tail -n 20
}

# ---- usage ------------------------------------------------------------------
"$cp" probe --help >"$t/help" 2>&1
ok $? "probe --help: exit 0"
check "... explains the rounds and the rule" \
    sh -c "grep -q 'rounds of disjoint pairs' '$t/help' && grep -q 'slow-below' '$t/help'"
"$cp" --help | grep -q '^  probe ' 
ok $? "collprof --help lists probe"
"$cp" probe --bogus >/dev/null 2>"$t/err"
ok $([ $? -eq 2 ]; echo $?) "an unknown option: exit 2"
check "... named, one line" sh -c "grep -q \"^collprof probe: unknown option '--bogus'\" '$t/err' && [ \$(wc -l <'$t/err') -eq 1 ]"
"$cp" probe --iters 0 >/dev/null 2>&1
ok $([ $? -eq 2 ]; echo $?) "--iters 0: exit 2"
"$cp" probe --slow-below 1.5 >/dev/null 2>&1
ok $([ $? -eq 2 ]; echo $?) "--slow-below 1.5: exit 2"
env -u SIMNCCL_RANK -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID \
    -u RANK "$cp" probe --nccl "$b/tests/simnccl/lib/libnccl.so.2" \
    >/dev/null 2>"$t/err"
ok $([ $? -eq 1 ]; echo $?) "one task: exit 1"
check "... saying to start one task per node" grep -q 'on each of 2 or more nodes' "$t/err"
topo one 1
"$simrun" -n 2 --nodes 1 --topo "$t/one.topo" --timeout 60 -- "$cp" probe \
    >/dev/null 2>"$t/err"
[ $? -ne 0 ] && grep -q 'ranks 0 and 1 are both on node n1' "$t/err"
ok $? "two tasks on one node: refused, naming the node"

# ---- 4 nodes ----------------------------------------------------------------
topo h4 4
probe h4 4 --fail-on warning || show h4
ok $? "4 nodes, healthy: exit 0 (also with --fail-on warning)"
expect h4 4
ok $? "4 nodes, healthy: 6 pairs in 3 disjoint rounds, near 25 MB/s, no finding"

p=$(nth "$(pick 6)" $(pairs 4))
topo s4 4 "$p"
probe s4 4 --fail-on warning
ok $([ "$(cat "$t/s4.rc")" -eq 3 ]; echo $?) "4 nodes, link $p at 1/4: --fail-on warning exits 3"
[ "$(cat "$t/s4.rc")" -eq 3 ] || show s4
expect s4 4 "slow=$p"
ok $? "4 nodes, link $p at 1/4: named exactly, nothing else"
check "... and said on stderr" grep -q "slow link $(echo "$p" | tr , -)" "$t/s4.stderr"

# ---- 5 nodes: an odd count, each node sits out one round ---------------------
p=$(nth "$(pick 10)" $(pairs 5))
topo s5 5 "$p"
probe s5 5 || show s5
ok $? "5 nodes, link $p at 1/4: exit 0"
expect s5 5 "slow=$p"
ok $? "5 nodes, link $p at 1/4: 10 pairs in 5 rounds with byes, named exactly"

# ---- 2 nodes: one pair is its own median; a profile judges it ---------------
topo s2 2 n1,n2
probe s2 2 || show s2
expect s2 2 planted=n1,n2
ok $? "2 nodes, link at 1/4, no profile: measured, not judged (its own median)"
probe s2 2 --profile "$t/s2.topo" || show s2
expect s2 2 slow=n1,n2
ok $? "2 nodes, link at 1/4, against the profile's 25 MB/s: named"

# ---- the chain: ddp's candidates, then the probe it names -------------------
if [ -x "$app" ] && [ -f "$b/preload/.libs/libcollprof.so" ]; then
    p=$(nth "$(pick 4)" n1,n2 n2,n3 n3,n4 n1,n4)
    topo ddp 4 "$p"
    "$cp" record -q -o "$t/ddp.logs" -- "$simrun" -n 4 --nodes 4 \
        --topo "$t/ddp.topo" --timeout 120 -- "$app" --pattern ddp --steps 3 \
        --scale 0.25 --bucket-mb 1 >"$t/ddp.record" 2>&1 &&
        "$cp" analyze -q "$t/ddp.logs" -o "$t/ddp.report" \
            --profile "$t/ddp.topo" >"$t/ddp.analyze" 2>&1
    ok $? "ddp ring over 4 nodes, link $p at 1/4: recorded and analyzed"
    python3 - "$t/ddp.report/report.json" "$p" >"$t/ddp.cmd" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
want = sorted(sys.argv[2].split(","))
c = [f for f in r["findings"] if f["kind"] == "slow_link_candidates"]
s = [f for f in r["findings"] if f["kind"] == "slow_link"]
ok = (len(c) == 1 and not s
      and want in [sorted(x) for x in c[0]["evidence"]["candidates"]]
      and len(c[0]["evidence"]["candidates"]) > 1
      and "collprof probe" in c[0]["message"])
m = re.match(r"srun -N (\d+) --ntasks-per-node=1 collprof probe -o DIR$",
             c[0]["evidence"]["probe"] if c else "")
if not ok or not m:
    sys.exit("want one slow_link_candidates listing %s, pointing to the "
             "probe, and no slow_link: %s" % (want, [
                 (f["kind"], f["message"]) for f in r["findings"]]))
print(m.group(1))
PY
    rc=$?
    [ $rc -eq 0 ] || sed 's/^/#   /' "$t/ddp.cmd"
    ok $rc "... the calls give the ring's candidates and point to collprof probe"
    k=$(cat "$t/ddp.cmd")
    probe ddp "${k:-4}" || show ddp
    expect ddp "${k:-4}" "slow=$p"
    ok $? "... and the probe it names (-N ${k:-?}) names $p exactly"
else
    echo "# the ddp chain needs train_sim and the shim"
fi

# ---- device buffers through the stand-in cudart -----------------------------
if [ -f "$fake/libcudart.so" ]; then
    topo d3 3 n1,n3
    LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    FAKECUDART_LOG=$t/cuda.log FAKECUDART_DEVICES=1 \
        probe d3 3 --memory device --pair-time 100ms || show d3
    ok $? "3 nodes, device buffers (stand-in cudart): exit 0"
    python3 -c "import json,sys; sys.exit(json.load(open('$t/d3.out/probe.json'))['run']['memory'] != 'device')"
    ok $? "... the report says device"
    expect d3 3 slow=n1,n3
    ok $? "... link n1-n3 at 1/4 named through device buffers"
    n=$(wc -l <"$t/cuda.log")
    sed 's/^/#   /' "$t/cuda.log"
    [ "$n" -eq 3 ] && ! grep -v -E ' bad=0 leaked=0( |$)' "$t/cuda.log" >/dev/null &&
        ! grep -E 'h2d=0 |d2h=0 |sync=0 ' "$t/cuda.log" >/dev/null
    ok $? "... 3 tasks, copies both ways, no bad pointer, nothing leaked"
else
    echo "# device buffers: tests/bench-cli/lib/libcudart.so not built"
fi

done_testing
