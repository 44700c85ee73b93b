#!/bin/sh
# resolve.sh - collprof analyze --probe: the probe's node-pair measurements
# folded into the slow-link analysis (docs/analysis.md, "Slow links").
#
# One ddp ring over 4 nodes on the CPU NCCL (tests/simnccl, 25 MB/s) with a
# link at 1/4 picked at random among the ring's four: the calls alone give
# slow_link_candidates; collprof probe on the same network, handed to
# analyze (--probe, or found as LOGDIR/probe/probe.json), turns it into one
# slow_link naming exactly the planted pair, resolved by the probe, and
# fills the node-pair view.  A healthy probe leaves the candidates; a probe
# of other nodes is a warning naming them; a malformed probe.json is an
# error naming the file and the key.
#
# RESOLVE_SEED=N repeats a run's random choice (the seed is printed).
. "${top_srcdir:-.}/tests/tap.sh"
# paths, a work directory removed at exit, need, py, timing_lock
. "$top_srcdir/tests/bench-cli/lib.sh"
cp=$collprof
need "$cp" "$simrun" "$train_sim" "$shim"
t=$work
# RESOLVE_KEEP=1 keeps the outputs
[ -n "$RESOLVE_KEEP" ] && trap - EXIT && echo "# outputs in $t"
# the probe and the ring's slowness are timings: one timed job at a time
timing_lock

seed=${RESOLVE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "# RESOLVE_SEED=$seed"
seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
ring="n1,n2 n2,n3 n3,n4 n1,n4"
set -- $ring
shift $(( seed / 65536 % 4 ))
p=$1
pd=$(echo "$p" | tr , -)

# topo NAME [A,B]: 4 nodes, link A-B at a quarter of 25 MB/s
topo() {
    {
        echo "nodes 4"
        echo "intra latency=5us bandwidth=2GB/s"
        echo "inter latency=20us bandwidth=25MB/s"
        [ -n "$2" ] && echo "link $(echo "$2" | tr , ' ') bandwidth=6250KB/s"
    } >"$t/$1.topo"
}
# probe NAME: collprof probe on 4 nodes of NAME.topo into NAME.probe/
probe() {
    "$simrun" -n 4 --nodes 4 --topo "$t/$1.topo" --timeout 120 -- \
        "$cp" probe -q -o "$t/$1.probe" >"$t/$1.probe.log" 2>&1 ||
        { sed 's/^/#   /' "$t/$1.probe.log" | tail -n 10; return 1; }
}
# analyze NAME ARGS...: analyze the ddp logs into NAME.out; status in
# NAME.rc, stderr in NAME.err
analyze() {
    name=$1
    shift
    "$cp" analyze -q "$t/ddp.logs" -o "$t/$name.out" --profile "$t/slow.topo" \
        "$@" >"$t/$name.stdout" 2>"$t/$name.err"
    echo $? >"$t/$name.rc"
}
# expect NAME resolved=A,B | candidates=A,B [probed=N]: the network
# findings of NAME's report are exactly one slow_link naming A-B resolved
# by the probe, or one slow_link_candidates listing A-B
expect() {
    python3 - "$t/$1.out/report.json" "$@" <<'PY'
import json, sys
path, name = sys.argv[1], sys.argv[2]
want = dict(a.split("=", 1) for a in sys.argv[3:])
r = json.load(open(path))
bad = []
fs = [f for f in r["findings"]
      if f["kind"] in ("slow_link", "slow_link_candidates")]
for f in fs:
    print("#   %s %s: %s" % (f["kind"], f["severity"], f["message"]))
links = [f for f in fs if f["kind"] == "slow_link"]
cands = [f for f in fs if f["kind"] == "slow_link_candidates"]
topo = r["topology"]
pairs = {tuple(sorted(q["nodes"])): q for q in topo["pairs"]}
for k in sorted(pairs):
    q = pairs[k]
    print("#   %s-%s %s from %s, efficiency %s, probe %s" % (
        k[0], k[1], q["state"], q["source"], q["efficiency"],
        q["probe_bandwidth_Bps"]))
if "resolved" in want:
    pair = sorted(want["resolved"].split(","))
    if cands:
        bad.append("slow_link_candidates left: %s" % cands[0]["message"])
    if len(links) != 1 or sorted(links[0]["nodes"]) != pair:
        bad.append("want one slow_link naming %s, got %s"
                   % (pair, [f["nodes"] for f in links]))
    else:
        e = links[0]["evidence"]
        comms = {c["id"]: c["name"] for c in r["communicators"]}
        if e.get("method") != "probe" or \
           e.get("resolves") != "slow_link_candidates":
            bad.append("evidence does not say the probe resolved it: %s" % e)
        if comms.get(e.get("comm")) != "world":
            bad.append("evidence.comm %r is not the slow ring" % e.get("comm"))
        if not e.get("probe_file", "").endswith("probe.json"):
            bad.append("evidence.probe_file %r" % e.get("probe_file"))
        if not (e.get("bandwidth_Bps") or 0) < 0.5 * \
               (e.get("peer_bandwidth_Bps") or 0):
            bad.append("evidence bandwidth %s against median %s"
                       % (e.get("bandwidth_Bps"), e.get("peer_bandwidth_Bps")))
        if pair not in [sorted(c) for c in e.get("candidates", [])] or \
           len(e.get("candidates", [])) < 2:
            bad.append("evidence.candidates %s" % e.get("candidates"))
    # the node-pair view: every pair of 4 nodes, those the calls left open
    # from the probe, the planted one slow and no other
    if len(pairs) != 6:
        bad.append("%d pairs in topology.pairs, want all 6" % len(pairs))
    slow = [k for k, q in pairs.items() if q["state"] == "slow"]
    if slow != [tuple(pair)]:
        bad.append("slow pairs %s" % slow)
    for k, q in pairs.items():
        if q["probe_bandwidth_Bps"] is None:
            bad.append("%s-%s: no probe bandwidth" % k)
        if q["units"] == 0 and q["source"] != "probe":
            bad.append("%s-%s: crossed by nothing, source %s" % (k + (q["source"],)))
        if q["efficiency"] is None or q["bandwidth_Bps"] is None:
            bad.append("%s-%s: estimate unknown" % k)
    m = topo["efficiency"]
    if any(m[i][j] is None for i in range(4) for j in range(4) if i != j):
        bad.append("efficiency matrix has holes: %s" % m)
    if not topo["probe"] or topo["probe"]["pairs"] != 6:
        bad.append("topology.probe %s" % topo["probe"])
if "candidates" in want:
    pair = sorted(want["candidates"].split(","))
    if links:
        bad.append("slow_link findings: %s" % [f["nodes"] for f in links])
    if len(cands) != 1 or pair not in [
            sorted(c) for c in cands[0]["evidence"]["candidates"]]:
        bad.append("want one slow_link_candidates listing %s" % pair)
    elif "probed" in want:
        # probed=all: the probe measured every candidate and found none slow
        e = cands[0]["evidence"]
        n = len(e["candidates"])
        if e.get("probed_candidates") != n or not e.get("probe_file") or \
           "found none slow" not in cands[0]["message"]:
            bad.append("evidence: probed %s of %d, file %s" % (
                e.get("probed_candidates"), n, e.get("probe_file")))
for b in bad:
    print("# FAIL: " + b)
sys.exit(1 if bad else 0)
PY
}

# ---- the calls alone: the ring and its candidates ---------------------------
topo slow "$p"
topo healthy
"$cp" record -q -o "$t/ddp.logs" -- "$simrun" -n 4 --nodes 4 \
    --topo "$t/slow.topo" --timeout 120 -- "$train_sim" --pattern ddp \
    --steps 3 --scale 0.25 --bucket-mb 1 >"$t/ddp.record" 2>&1
ok $? "ddp ring over 4 nodes, link $pd at 1/4: recorded"
analyze calls --no-probe
expect calls candidates="$p"
ok $? "... the calls alone: slow_link_candidates listing $pd"

# ---- the probe names the link -----------------------------------------------
probe slow
ok $? "collprof probe on the same network: measured"
analyze resolved --probe "$t/slow.probe/probe.json"
ok $(cat "$t/resolved.rc") "analyze --probe: exit 0"
expect resolved resolved="$p"
ok $? "... one slow_link naming $pd, resolved by the probe; no candidates left; every pair estimated"
python3 - "$t/resolved.out/report.html" <<'PY'
import re, sys
fig = re.search(r'<figure id="fig-heatmap">(.*?)</figure>',
                open(sys.argv[1]).read(), re.S)
sys.exit(0 if fig and '<svg class="plot"' in fig.group(1)
         and "collprof probe" in fig.group(1) else 1)
PY
ok $? "... report.html draws the node-pair heatmap, saying the probe filled it"

mkdir -p "$t/ddp.logs/probe"
cp "$t/slow.probe/probe.json" "$t/ddp.logs/probe/probe.json"
analyze found
expect found resolved="$p"
ok $? "LOGDIR/probe/probe.json found without --probe: the same slow_link"
analyze ignored --no-probe
expect ignored candidates="$p"
ok $? "--no-probe: the candidates again"
rm -r "$t/ddp.logs/probe"

# ---- a healthy probe: the candidates stay -----------------------------------
probe healthy
ok $? "collprof probe on a healthy network: measured"
analyze healthy --probe "$t/healthy.probe/probe.json"
expect healthy candidates="$p" probed=all
ok $? "a healthy probe: slow_link_candidates stays, saying the probe measured them"

# ---- a probe of other nodes -------------------------------------------------
python3 - "$t/slow.probe/probe.json" "$t/other.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
for i in range(1, 5):
    text = text.replace('"n%d"' % i, '"gpu%02d"' % (i + 10))
open(sys.argv[2], "w").write(text)
PY
analyze other --probe "$t/other.json"
ok $(cat "$t/other.rc") "a probe of other nodes: exit 0"
check "... a warning naming the file and the nodes" \
    grep -q "^collprof analyze: warning: $t/other.json: .*gpu11, gpu12, gpu13, gpu14" "$t/other.err"
expect other candidates="$p"
ok $? "... not used: the candidates stay"
# one node renamed, not an end of the planted pair: its pairs are dropped
case $p in
*n2*) gone=n4 ;;
*) gone=n2 ;;
esac
sed "s/\"$gone\"/\"spare9\"/g" "$t/slow.probe/probe.json" >"$t/partial.json"
analyze partial --probe "$t/partial.json"
check "a probe with one node not in the job: warning naming it" \
    grep -q "warning: $t/partial.json: 1 of the probe's 4 nodes are not in the job (spare9)" "$t/partial.err"
py "$t/partial.out/report.json" '[sorted(f["nodes"]) for f in d["findings"] if f["kind"] == "slow_link"] == [sorted("'"$p"'".split(","))] and d["topology"]["probe"]["pairs"] == 3' | grep -qx True
ok $? "... the pairs between the job's nodes still name $pd"

# ---- malformed probe.json: an error naming the file and the key -------------
# bad NAME STATUS 'EDIT' 'KEY TEXT': the probe edited by the Python EDIT (d
# is the document) is refused with STATUS and stderr names the file and KEY
bad() {
    python3 - "$t/slow.probe/probe.json" "$t/$1.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
    analyze "$1" --probe "$t/$1.json"
    [ "$(cat "$t/$1.rc")" -eq "$2" ] &&
        grep -qF "collprof analyze: $t/$1.json: $4" "$t/$1.err" &&
        [ "$(wc -l <"$t/$1.err")" -eq 1 ] && [ ! -e "$t/$1.out/report.json" ]
    rc=$?
    [ $rc -eq 0 ] || sed 's/^/#   /' "$t/$1.err"
    return $rc
}
bad wrongtype 2 'd["topology"]["pairs"][2]["bandwidth_Bps"] = "fast"' \
    "key 'topology.pairs[2].bandwidth_Bps' should be a number or null, not a string"
ok $? "a pair's bandwidth a string: exit 2, the file and the key named"
bad missing 2 'del d["topology"]["nodes"]' "key 'topology.nodes' is missing"
ok $? "topology.nodes missing: named"
bad schema 2 'd["schema"] = "collprof.report/1"' "key 'schema' is 'collprof.report/1', not a collprof probe report"
ok $? "another schema: named"
bad stranger 2 'd["topology"]["pairs"][0]["nodes"][1] = "zz"' "key 'topology.pairs[0].nodes[1]' names node 'zz', which is not in topology.nodes"
ok $? "a pair naming a node not in topology.nodes: named"
printf '{"schema": "collprof.probe/1",\n "topology": {' >"$t/trunc.json"
analyze trunc --probe "$t/trunc.json"
[ "$(cat "$t/trunc.rc")" -eq 2 ] && grep -q "collprof analyze: $t/trunc.json is not JSON: line 2" "$t/trunc.err"
ok $? "not JSON: exit 2, the file and the line named"
mkdir -p "$t/ddp.logs/probe"
cp "$t/wrongtype.json" "$t/ddp.logs/probe/probe.json"
analyze foundbad
[ "$(cat "$t/foundbad.rc")" -eq 1 ] &&
    grep -q "$t/ddp.logs/probe/probe.json: key 'topology.pairs\[2\].bandwidth_Bps'.*--no-probe" "$t/foundbad.err"
ok $? "a malformed probe.json next to the logs: exit 1, named, --no-probe suggested"
rm -r "$t/ddp.logs/probe"

done_testing
