#!/bin/sh
# genlogs.sh - gen_logs writes what its truth file says, at any size: the
# calls per rank and the bounds of the call times of the whole run (a small
# job dumped in full) and of sample ranks (a 4096-rank job written under a
# limit of 64 open files, so never one descriptor per rank); every time
# between 2000 and 2100, a run under a year; and a job it cannot honour is
# an error naming the option, with no truth written.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
gen=$b/tests/tools/gen_logs
need "$collprof" "$gen"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"

# the truth of job $1 against a dump of its files (all, or the sample ranks)
compare() {
    python3 - "$1" "$2" "$3" <<'EOF'
import csv, json, os, subprocess, sys
d, truth, which = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
y2000, y2100, year = 946684800 * 10**9, 4102444800 * 10**9, 366 * 86400 * 10**9
bad = []
def dump(paths):
    out = subprocess.run([os.environ["COLLPROF"], "dump", "--csv"] + paths,
                         check=True, capture_output=True, text=True)
    return list(csv.DictReader(out.stdout.splitlines()))
if which == "all":
    rows = dump([d])
    per = {}
    for r in rows:
        per.setdefault(r["rank"], []).append(r)
    if len(rows) != truth["calls"]:
        bad.append("calls %d, truth %d" % (len(rows), truth["calls"]))
    if len(per) != truth["ranks"]:
        bad.append("ranks %d, truth %d" % (len(per), truth["ranks"]))
    counts = [len(v) for v in per.values()]
    if min(counts) != truth["calls_per_rank_min"] or \
       max(counts) != truth["calls_per_rank_max"]:
        bad.append("calls per rank %d..%d, truth %d..%d" % (
            min(counts), max(counts), truth["calls_per_rank_min"],
            truth["calls_per_rank_max"]))
    lo = min(int(r["start_ns"]) for r in rows)
    hi = max(int(r["end_ns"]) for r in rows)
    if lo != truth["first_start_ns"] or hi != truth["last_end_ns"]:
        bad.append("times %d..%d, truth %d..%d" % (
            lo, hi, truth["first_start_ns"], truth["last_end_ns"]))
for s in truth["sample_ranks"]:
    rows = dump([d + "/" + s["file"]])
    got = (len(rows), min(int(r["start_ns"]) for r in rows),
           max(int(r["end_ns"]) for r in rows))
    want = (s["calls"], s["first_start_ns"], s["last_end_ns"])
    if got != want or any(int(r["rank"]) != s["rank"] for r in rows):
        bad.append("rank %d: %s, truth %s" % (s["rank"], got, want))
lo, hi = truth["first_start_ns"], truth["last_end_ns"]
if not (y2000 < lo <= hi < y2100 and hi - lo < year):
    bad.append("run from %d to %d ns: not a plausible run" % (lo, hi))
print("\n".join("# " + b for b in bad))
sys.exit(1 if bad else 0)
EOF
}
export COLLPROF="$collprof"

for p in mixed 3d; do
    extra=
    [ $p = 3d ] && extra="--ranks 16 --ranks-per-node 2 --dp-size 2"
    "$gen" -o "$work/$p" --pattern $p --steps 3 $extra --truth "$work/$p.json"
    ok $? "gen_logs --pattern $p"
    check "$p: every call, calls per rank and the run's times are the truth's" \
        compare "$work/$p" "$work/$p.json" all
done

# a delay inside rank 5's calls: every collective it is in ends that much
# later for all of its members (its node's tensor-parallel all-reduces
# against another node's)
"$gen" -o "$work/incall" --pattern 3d --ranks 8 --ranks-per-node 2 \
    --dp-size 2 --steps 3 --inter-bw 4GB/s --intra-bw 20GB/s \
    --in-call 5=3ms --seed 3
ok $? "gen_logs --in-call 5=3ms"
check "--in-call: node n2's all-reduces (ranks 4 and 5) 3 ms longer than n0's" \
    sh -c "'$collprof' dump --csv '$work/incall' | python3 -c '
import csv, sys
d = {}
for r in csv.DictReader(sys.stdin):
    if r[\"op\"] == \"allreduce\" and r[\"nranks\"] == \"2\" and r[\"bytes\"] == \"4194304\":
        d.setdefault(r[\"node\"], []).append(int(r[\"duration_ns\"]))
lo = {n: min(v) for n, v in d.items()}
print(\"# shortest (us):\", {n: v // 1000 for n, v in sorted(lo.items())})
sys.exit(0 if lo[\"n0\"] < 1000000 and 3000000 <= lo[\"n2\"] - lo[\"n0\"] <= 3500000 else 1)
'"

# 4096 ranks, at most 64 files open: the descriptors are not kept per rank
(ulimit -n 64 && "$gen" -o "$work/big" --pattern mixed --ranks 4096 \
    --ranks-per-node 8 --steps 1 --truth "$work/big.json")
ok $? "gen_logs: 4096 ranks under ulimit -n 64"
check "4096 ranks: one log per rank" \
    test "$(ls "$work/big" | wc -l)" -eq 4096
check "4096 ranks: sample ranks' calls and times are the truth's, the run is plausible" \
    compare "$work/big" "$work/big.json" sample
check "4096 ranks: the truth's calls lie between 4096 x its least and most per rank" \
    python3 -c "import json; t = json.load(open('$work/big.json')); \
assert 0 < 4096 * t['calls_per_rank_min'] <= t['calls'] <= \
4096 * t['calls_per_rank_max'], t['calls']"

# what it cannot honour: an error naming the option, no truth
refuse() {
    name=$1 want=$2; shift 2
    rm -f "$work/no.json"
    "$gen" -o "$work/no" --truth "$work/no.json" "$@" 2>"$work/err"
    rc=$?
    said=1
    grep -qF -- "$want" "$work/err" && said=0
    [ $rc -ne 0 ] && [ $said -eq 0 ] && [ ! -e "$work/no.json" ]
    ok $? "refused: $name (exit $rc, says \"$want\", no truth)"
}
refuse "no ranks" "--ranks '0'" --ranks 0
refuse "ranks not a number" "--ranks 'many'" --ranks many
refuse "more ranks than a communicator holds" "--ranks '2000000'" --ranks 2000000
refuse "ranks not a multiple of the node size" "multiple of" --ranks 10 --ranks-per-node 4
refuse "a straggler past the last rank" "rank 99 of 8" --straggler 99=1ms
refuse "a delay inside the calls of a rank past the last" "rank 8 of 8" --in-call 8=1ms
refuse "a clock offset past the last node" "node 9 of 4" --clock-offset 9=1ms
refuse "a slow node past the last node" "node 4 of 4" --slow-node 4=2
refuse "--calls with the 3d pattern" "use --steps" --pattern 3d --calls 100 --ranks 8 --ranks-per-node 2
refuse "a run longer than 30 days" "longer than 30 days" --steps 4 --step-gap 1000000s
refuse "negative calls" "--calls '-5'" --calls -5
done_testing
