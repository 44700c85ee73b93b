#!/bin/sh
# simrun.sh - slow links and stragglers planted in the CPU NCCL
# (tests/simnccl) under train_sim's 3d pattern, found by collprof analyze
# from the job's own calls (docs/analysis.md, "Slow links").
#
# 8 ranks on 4 nodes and 16 on 8: a healthy network gives no network
# finding; a link at 1/2 and 1/4 of the others' bandwidth, picked at random
# among the node pairs the job's bandwidth-bound traffic crosses, is named
# exactly and nothing else is; a straggler is named as a straggler and not
# as a link; a slow link plus a straggler are both named.  Pattern ddp
# alone (one ring): the finding names the ring and its candidate links and
# points to collprof probe.
#
# LINKS_SEED=N repeats a run's random choices (the seed is printed).
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
cp="$b/analyzer/collprof"
simrun="$b/tests/simnccl/simrun"
app="$b/tests/apps/train_sim"
need_sim_job
t=$(mktemp -d /tmp/cp-links-XXXXXX)
# LINKS_KEEP=1 keeps the logs and reports
[ -n "$LINKS_KEEP" ] && echo "# logs and reports in $t" ||
    trap 'rm -rf "$t"' EXIT INT TERM

seed=${LINKS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "# LINKS_SEED=$seed"
. "${top_srcdir:-.}/tests/links/lib.sh"

# job NAME RANKS NODES "TOPOLOGY LINES" APP-ARGS...: record and analyze
job() {
    name=$1 n=$2 k=$3 extra=$4
    shift 4
    {
        echo "nodes $k"
        echo "intra latency=5us bandwidth=2GB/s"
        echo "inter latency=20us bandwidth=25MB/s"
        printf '%s\n' "$extra"
    } >"$t/$name.topo"
    "$cp" record -q -o "$t/$name.logs" -- "$simrun" -n "$n" --nodes "$k" \
        --topo "$t/$name.topo" --timeout 300 -- "$app" "$@" \
        >"$t/$name.record" 2>&1 &&
    "$cp" analyze -q "$t/$name.logs" -o "$t/$name.out" $ANALYZE_ARGS \
        >"$t/$name.analyze" 2>&1
    rc=$?
    [ $rc -eq 0 ] || sed 's/^/# /' "$t/$name.record" "$t/$name.analyze"
    return $rc
}

# expect NAME [slow=A,B] [straggler=R] [candidates=COMM-NAME:PAIR]:
# the network findings of NAME's report are exactly those
expect() {
    name=$1
    shift
    python3 - "$t/$name.out/report.json" "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want_slow, want_strag, want_cand = [], [], None
for a in sys.argv[2:]:
    k, v = a.split("=", 1)
    if k == "slow":
        want_slow.append(sorted(v.split(",")))
    elif k == "straggler":
        want_strag.append(int(v))
    elif k == "candidates":
        want_cand = v
network = ("slow_link", "slow_link_candidates", "straggler",
           "degraded_port", "low_busbw")
sev = {"info": 0, "warning": 1, "critical": 2}
found = [f for f in r["findings"]
         if f["kind"] in network and sev[f["severity"]] >= 1]
for f in found:
    print("# %s %s: %s" % (f["kind"], f["severity"], f["message"]))
bad = []
slow = sorted(sorted(f["nodes"]) for f in found if f["kind"] == "slow_link")
if slow != sorted(want_slow):
    bad.append("slow_link names %s, planted %s" % (slow, want_slow))
strag = sorted(f["ranks"][0] for f in found if f["kind"] == "straggler")
if strag != sorted(want_strag):
    bad.append("straggler names %s, planted %s" % (strag, want_strag))
cands = [f for f in found if f["kind"] == "slow_link_candidates"]
if want_cand:
    comm, pair = want_cand.split(":")
    names = {c["id"]: c["name"] for c in r["communicators"]}
    ok = [f for f in cands if names.get(f["evidence"]["comm"]) == comm
          and sorted(pair.split(",")) in
              [sorted(p) for p in f["evidence"]["candidates"]]
          and "collprof probe" in f["message"]
          and "collprof probe" in f["evidence"]["probe"]]
    if len(ok) != 1 or len(cands) != 1:
        bad.append("want one slow_link_candidates on %s listing %s" %
                   (comm, pair))
elif cands:
    bad.append("unexpected slow_link_candidates")
other = [f["kind"] for f in found
         if f["kind"] in ("low_busbw", "degraded_port")]
if other:
    bad.append("other network findings: %s" % other)
# report.json's links: one entry per node pair, the planted pair's
# verdict slow and pointing at its slow_link finding, no other pair slow
keys = [tuple(sorted(l["nodes"])) for l in r.get("links", [])]
if len(keys) != len(set(keys)):
    bad.append("links lists a pair twice: %s" % keys)
if sorted(keys) != sorted(tuple(sorted(p["nodes"]))
                          for p in r["topology"]["pairs"]):
    bad.append("links and topology.pairs differ")
for l in r.get("links", []):
    pair = sorted(l["nodes"])
    named = [i for i in l["findings"]
             if r["findings"][i]["kind"] == "slow_link" and
             sorted(r["findings"][i]["nodes"]) == pair]
    if pair in want_slow and (l["verdict"] != "slow" or not named):
        bad.append("links: %s is %s, findings %s" % (pair, l["verdict"],
                                                      l["findings"]))
    if pair not in want_slow and l["verdict"] == "slow":
        bad.append("links: %s slow, not planted" % pair)
for u in r["topology"]["pairs"]:
    if u["units"]:
        print("#   %s-%s %s efficiency %.2f" % (u["nodes"][0], u["nodes"][1],
              u["state"], u["efficiency"]))
topo = r["topology"]
delays = ["%d:%.2f" % (x["rank"], x["in_call_delay_s"] * 1e3)
          for x in topo["ranks"] if x["in_call_delay_s"] is not None]
print("#   in-call delays (ms) %s; threshold %.2f ms" % (
    " ".join(delays), (topo["thresholds"]["straggler_delay_s"] or 0) * 1e3))
for b in bad:
    print("# FAIL: " + b)
sys.exit(1 if bad else 0)
PY
}

STEPS=20
# 3d on 8 ranks over 4 nodes: dp rings n1-n2, n3-n4; pipelines n1-n3, n2-n4
pairs4="n1,n2 n3,n4 n1,n3 n2,n4"
# 3d on 16 ranks over 8 nodes: dp n1-n2 ... n7-n8; pipelines n1-n3-n5-n7,
# n2-n4-n6-n8
pairs8="n1,n2 n3,n4 n5,n6 n7,n8 n1,n3 n3,n5 n5,n7 n2,n4 n4,n6 n6,n8"
d3="--pattern 3d --steps $STEPS --bucket-mb 2"

# link A,B DIVISOR: the topology line of a link at 1/DIVISOR of the others'
# 25 MB/s (slow enough that the wire, not the two shared CPUs, sets the
# pace of 16 ranks: at 100 MB/s a loaded machine hides a link at 1/2)
link() {
    echo "link $(echo "$1" | tr , ' ') bandwidth=$((25000 / $2))KB/s"
}

job h4 8 4 "" $d3
ok $? "3d, 8 ranks on 4 nodes, healthy: recorded and analyzed"
expect h4
ok $? "3d, 8 ranks on 4 nodes, healthy: no network finding"

for div in 2 4; do
    p=$(nth "$(pick 4)" $pairs4)
    job "s4_$div" 8 4 "$(link "$p" $div)" $d3
    ok $? "3d, 8 ranks on 4 nodes, link $p at 1/$div: recorded and analyzed"
    expect "s4_$div" "slow=$p"
    ok $? "3d, 8 ranks on 4 nodes, link $p at 1/$div: named exactly, nothing else"
done

r=$(pick 8)
job g4 8 4 "straggler rank=$r delay=10ms" $d3
ok $? "3d, 8 ranks on 4 nodes, rank $r straggles: recorded and analyzed"
expect g4 "straggler=$r"
ok $? "3d, 8 ranks on 4 nodes, rank $r straggles: a straggler, not a link"

# the same at 200 MB/s between nodes, where a straggler's delay is many
# times a 256 KiB all-reduce's wire time (1.3 ms): a member that came that
# late found its pair's data sent, and its calls, faster than any link,
# made a false slow link of the other stage's healthy pairs
r=$(pick 8)
job f4 8 4 "inter latency=20us bandwidth=200MB/s
straggler rank=$r delay=10ms" --pattern 3d --steps $STEPS
ok $? "3d at 200 MB/s, rank $r straggles by 10 ms: recorded and analyzed"
expect f4 "straggler=$r"
ok $? "3d at 200 MB/s, rank $r straggles by 10 ms: a straggler, no link"

# expect_again NAME RANKS NODES "TOPOLOGY LINES" APP-ARGS... -- EXPECTS...:
# expect's check of a job already recorded as NAME; when it fails, the job
# is recorded once more and judged again (two faults at once on two
# shared cores: one run in about sixty missed in CI, none in sixty runs
# here with and without busy loops beside it); both outcomes are printed
expect_again() {
    name=$1 n=$2 k=$3 extra=$4
    shift 4
    args=
    while [ "$1" != -- ]; do args="$args $1"; shift; done
    shift
    expect "$name" "$@" && return 0
    echo "# $name: the check failed on the first recording; recording again"
    rm -rf "$t/$name.logs" "$t/$name.out"
    # shellcheck disable=SC2086
    job "$name" "$n" "$k" "$extra" $args || return 1
    expect "$name" "$@"
}

p=$(nth "$(pick 4)" $pairs4)
r=$(pick 8)
topo="$(link "$p" 4)
straggler rank=$r delay=10ms"
job sg4 8 4 "$topo" $d3
ok $? "3d, 8 ranks on 4 nodes, link $p at 1/4 and rank $r straggles: recorded"
expect_again sg4 8 4 "$topo" $d3 -- "slow=$p" "straggler=$r"
ok $? "3d, 8 ranks on 4 nodes, link $p at 1/4 and rank $r straggles: both named"

# 16 ranks need more than the two cores of a CI machine: there, with another
# test running beside this one, the ranks' own CPU time (not the links) sets
# the pace and a rank waiting for a core looks like a straggler.  They run
# where the machine has 4 cores or more, or with CP_LINKS_16=1.
if [ "$(nproc)" -ge 4 ] || [ "${CP_LINKS_16:-}" = 1 ]; then
    job h8 16 8 "" $d3
    ok $? "3d, 16 ranks on 8 nodes, healthy: recorded and analyzed"
    expect h8
    ok $? "3d, 16 ranks on 8 nodes, healthy: no network finding"

    p=$(nth "$(pick 10)" $pairs8)
    job s8 16 8 "$(link "$p" 2)" $d3
    ok $? "3d, 16 ranks on 8 nodes, link $p at 1/2: recorded and analyzed"
    expect s8 "slow=$p"
    ok $? "3d, 16 ranks on 8 nodes, link $p at 1/2: named exactly, nothing else"

    p=$(nth "$(pick 10)" $pairs8)
    r=$(pick 16)
    topo="$(link "$p" 4)
straggler rank=$r delay=10ms"
    job sg8 16 8 "$topo" $d3
    ok $? "3d, 16 ranks on 8 nodes, link $p at 1/4 and rank $r straggles: recorded"
    expect_again sg8 16 8 "$topo" $d3 -- "slow=$p" "straggler=$r"
    ok $? "3d, 16 ranks on 8 nodes, link $p at 1/4 and rank $r straggles: both named"

else
    echo "# 16 ranks on 8 nodes: not run on this $(nproc)-core machine (CP_LINKS_16=1 forces it)"
fi

# ddp alone: one ring over 4 nodes (n1-n2-n3-n4-n1).  Its only reference
# is the expected link speed: a profile written from a healthy run.
ddp="--pattern ddp --steps 10 --bucket-mb 2"
job dh 4 4 "" $ddp
ok $? "ddp, 4 ranks on 4 nodes, healthy: recorded and analyzed"
python3 - "$t/dh.out/report.json" >"$t/profile" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["model"]["inter"]
print("inter alpha=%.3fus bandwidth=%.3fMB/s" % (m["alpha_s"] * 1e6,
                                                 m["bandwidth_Bps"] / 1e6))
PY
ok $? "ddp: a profile from the healthy run's fit"
ring4="n1,n2 n2,n3 n3,n4 n1,n4"
p=$(nth "$(pick 4)" $ring4)
ANALYZE_ARGS="--profile $t/profile" job ds 4 4 "$(link "$p" 4)" $ddp
ok $? "ddp, link $p at 1/4: recorded and analyzed with the profile"
expect ds "candidates=world:$p"
ok $? "ddp, link $p at 1/4: the ring and its candidates, and collprof probe"

done_testing
