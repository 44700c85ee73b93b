#!/bin/sh
# longrun.sh - a long run under a capture policy (docs/analysis.md, "Long
# runs"): gen_logs jobs made long runs by tests/tools/agg_logs (their
# aggregates of kind 12 after the calls).  report.json's long_run has the
# policy, one entry per interval on the timeline's axis, per communicator
# its own time, busbw, skew and last rank; a communicator slowed 2x from
# interval K is a `slowdown` (method long_run) naming it, since_s within
# one interval of the truth; a straggler from interval S is a `straggler`
# naming its rank; the healthy variants have no long-run finding; a job
# without a policy has no long_run; format 4 (folded calls as runs of
# CP_LOG4_FOLD), node partials and -j 3 give the same.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/analyze/lib.sh"
analyze_setup longrun
agg="$b/tests/tools/agg_logs"
[ -x "$agg" ] || skip_all "tests/tools/agg_logs not built"

# job NAME GEN_ARGS... -- AGG_ARGS...: the logs in $t/NAME, agg_logs'
# lines in $t/NAME.agg, the report in $t/NAME.rep
job() {
    name=$1
    shift
    gargs=
    while [ "$1" != -- ]; do gargs="$gargs $1"; shift; done
    shift
    # shellcheck disable=SC2086
    "$gen" -o "$t/$name" --format 3 --ranks-per-node 2 --steps 30 $gargs \
        >/dev/null 2>"$t/$name.err" &&
        "$agg" "$t/$name" "$@" >"$t/$name.agg" 2>>"$t/$name.err" &&
        "$cp" analyze -q "$t/$name" -o "$t/$name.rep" 2>>"$t/$name.err"
}

# verify NAME K S: the report's long run against the plan (K, S: the
# slowed interval and the straggler's, - none)
verify() {
    python3 - "$t/$1.rep/report.json" "$t/$1.agg" "$2" "$3" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
agg = dict(l.split() for l in open(sys.argv[2]))
K = None if sys.argv[3] == "-" else int(sys.argv[3])
S = None if sys.argv[4] == "-" else int(sys.argv[4])
bad = []
lr = rep.get("long_run")
if lr is None:
    print("no long_run"); sys.exit(1)
first, width = int(agg["first_interval_ns"]), int(agg["interval_ns"]) / 1e9
ivs = lr["intervals"]
t0 = lr["start_ns"]
pol = lr["policy"]
if (pol["first"], pol["window"], pol["every"], pol["interval_s"]) != (65536, 4096, 1 << 20, width):
    bad.append("policy %s" % pol)
if lr["interval_s"] != width or lr["merged"] != 0:
    bad.append("interval_s %s merged %s" % (lr["interval_s"], lr["merged"]))
if lr["folded_calls"] <= 0 or lr["kept_calls"] != rep["summary"]["calls"]:
    bad.append("folded %s kept %s" % (lr["folded_calls"], lr["kept_calls"]))
w = lr["detail_windows"]
if len(w) != 1 or w[0]["index"] != 0 or abs(w[0]["start_s"]) > 1e-6 or \
        w[0]["end_s"] > rep["summary"]["span_s"] + 1e-6:
    bad.append("detail windows %s" % w)
for i, iv in enumerate(ivs):
    want = (first - t0) / 1e9 + i * width
    if abs(iv["start_s"] - want) > 1e-3 or abs(iv["end_s"] - iv["start_s"] - width) > 1e-6:
        bad.append("interval %d at %s, not %s" % (i, iv["start_s"], want))
        break
    if not iv["steps"] or abs(iv["own_per_step_s"] * iv["steps"] - iv["own_s"]) > 1e-9 * iv["own_s"] \
            or abs(iv["own_per_s"] * width - iv["own_s"]) > 1e-9 * iv["own_s"]:
        bad.append("interval %d: steps %s own_per_step_s %s own_per_s %s"
                   % (i, iv["steps"], iv["own_per_step_s"], iv["own_per_s"]))
        break
    for c in iv["comms"]:
        if c["ranks"] < 2 or c["own_s"] <= 0 or not c["busbw_Bps"] or c["skew_s"] is None:
            bad.append("interval %d comm %s: %s" % (i, c["comm"], c))
            break
mine = [f for f in rep["findings"] if f["evidence"].get("method") == "long_run"]
slow = [f for f in mine if f["kind"] == "slowdown"]
strag = [f for f in mine if f["kind"] == "straggler"]
def series(comm, key):
    return [c[key] for iv in ivs for c in iv["comms"] if c["comm"] == comm]
if K is None:
    if slow:
        bad.append("slowdown in a healthy run: %s" % slow[0]["message"])
else:
    comm = agg["slow_comm"]
    b = series(comm, "busbw_Bps")
    before, after = sum(b[:K]) / K, sum(b[K:]) / (len(b) - K)
    if not 1.8 < before / after < 2.2:
        bad.append("busbw of %s fell %.2fx, not 2x" % (comm, before / after))
    if len(slow) != 1 or slow[0]["evidence"]["comm"] != comm:
        bad.append("slowdown findings: %s" % [f["message"] for f in slow])
    else:
        e = slow[0]["evidence"]
        if abs(e["since_s"] - ivs[K]["start_s"]) > width:
            bad.append("since_s %s, the truth %s" % (e["since_s"], ivs[K]["start_s"]))
        if not 1.8 < e["factor"] < 2.2:
            bad.append("factor %s" % e["factor"])
if S is None:
    if strag:
        bad.append("straggler in a run without one: %s" % strag[0]["message"])
else:
    if len(strag) != 1 or strag[0]["ranks"] != [3] or strag[0]["evidence"]["last_rank"] != 3:
        bad.append("straggler findings: %s" % [f["message"] for f in strag])
    elif abs(strag[0]["evidence"]["since_s"] - ivs[S]["start_s"]) > width:
        bad.append("straggler since_s %s, the truth %s" % (strag[0]["evidence"]["since_s"], ivs[S]["start_s"]))
    world = ivs[-1]["comms"][0]["comm"]
    last = [c["last_rank"] for iv in ivs[S:] for c in iv["comms"] if c["comm"] == world]
    if set(last) != {3}:
        bad.append("last ranks after the straggler began: %s" % set(last))
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
PY
}

N=48
job healthy4 --ranks 4 --seed 2 -- --intervals $N --interval 60 --seed 2
ok $? "healthy, 4 ranks: made a long run of $N intervals and analyzed"
check "healthy, 4 ranks: long_run intervals, policy and no long-run finding" \
    verify healthy4 - -
job healthy8 --ranks 8 --pattern 3d --dp-size 2 --seed 3 -- \
    --intervals $N --interval 60 --seed 3
ok $? "healthy, 8 ranks, 3d (13 communicators): made and analyzed"
check "healthy, 8 ranks, 3d: no long-run finding" verify healthy8 - -
job slow8 --ranks 8 --pattern 3d --dp-size 2 --seed 3 -- \
    --intervals $N --interval 60 --seed 3 --slow 1@30=2 --straggler 3@18=0.003
ok $? "8 ranks, 3d, a communicator 2x slower from interval 30, rank 3 3 ms late from 18: made and analyzed"
check "slowed: busbw halved, the slowdown named since interval 30, the straggler rank 3 since 18" \
    verify slow8 30 18
job slow4 --ranks 4 --seed 4 -- --intervals 30 --interval 5 --seed 4 \
    --slow 0@12=2
ok $? "4 ranks, 5 s intervals, the world 2x slower from interval 12: made and analyzed"
check "slowed world: slowdown since interval 12, no straggler" verify slow4 12 -

# report.html: busbw per communicator over the long run, one line each
check "report.html: the long run's busbw plot, a line per communicator" python3 -c '
import json, re, sys
rep = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read()
fig = re.search(r"<figure id=\"fig-long-run\">(.*?)</figure>", page, re.S)
comms = {c["comm"] for iv in rep["long_run"]["intervals"] for c in iv["comms"]}
lines = fig and fig.group(1).count("<path class=\"series\"")
sys.exit(not fig or lines != min(len(comms), 8))' \
    "$t/slow8.rep/report.json" "$t/slow8.rep/report.html"

# many communicators (64 ranks of 3d: 65): each interval lists the 16 of
# most own time over the run and the one the slowdown names, the others
# summed; --all-ranks lists every one, with the same figures
job many64 --ranks 64 --pattern 3d --seed 5 -- --intervals 24 --interval 60 \
    --seed 5 --slow 1@12=2
ok $? "64 ranks, 3d, a communicator 2x slower from interval 12: made and analyzed"
check "many communicators: the slowdown named since interval 12" verify many64 12 -
"$cp" analyze -q --all-ranks "$t/many64" -o "$t/many64.all" 2>>"$t/many64.err"
ok $? "... and analyzed with --all-ranks"
check "... the 16 of most own time and the named one listed, the others summed" python3 -c '
import json, re, sys
cut, full = (json.load(open(p))["long_run"] for p in sys.argv[1:3])
slow = sys.argv[3]
page = open(sys.argv[4]).read()
def listed(lr):
    return {c["comm"] for iv in lr["intervals"] for c in iv["comms"]}
own = {}
for iv in full["intervals"]:
    for c in iv["comms"]:
        own[c["comm"]] = own.get(c["comm"], 0) + c["own_s"]
top = set(sorted((c for c in own if c != slow), key=lambda c: -own[c])[:16])
bad = []
if not (full["comms"] == cut["comms"] == len(own) > 17):
    bad.append("comms %s %s, %d seen" % (full["comms"], cut["comms"], len(own)))
if full["comms_listed"] != full["comms"] or any("others" in iv for iv in full["intervals"]):
    bad.append("--all-ranks: %s of %s listed" % (full["comms_listed"], full["comms"]))
if listed(cut) != top | {slow} or cut["comms_listed"] != 17:
    bad.append("listed %d (%s), want the top 16 and %s" % (len(listed(cut)), cut["comms_listed"], slow))
for a, b in zip(cut["intervals"], full["intervals"]):
    o = a.get("others")
    kept = {c["comm"]: c for c in a["comms"]}
    if o is None or o["comms"] != len(b["comms"]) - len(a["comms"]):
        bad.append("interval at %s: others %s" % (a["start_s"], o)); break
    for k in ("nccl_s", "own_s"):
        if abs(sum(c[k] for c in a["comms"]) + o[k] - a[k]) > 1e-9 * a[k]:
            bad.append("interval at %s: %s does not add up" % (a["start_s"], k)); break
    if any(kept[c["comm"]] != c for c in b["comms"] if c["comm"] in kept):
        bad.append("interval at %s: figures differ" % a["start_s"]); break
cap = re.search(r"communicators of most NCCL time of (\d+)", page)
if not cap or int(cap.group(1)) != len(own):
    bad.append("report.html caption: %s" % (cap and cap.group(0)))
print("# %d communicators, %d listed; report.json %d bytes, with --all-ranks %d"
      % (len(own), cut["comms_listed"], int(sys.argv[5]), int(sys.argv[6])))
for x in bad:
    print("# " + x)
sys.exit(1 if bad else 0)' "$t/many64.rep/report.json" "$t/many64.all/report.json" \
    "$(sed -n 's/^slow_comm //p' "$t/many64.agg")" "$t/many64.rep/report.html" \
    "$(wc -c <"$t/many64.rep/report.json")" "$(wc -c <"$t/many64.all/report.json")"

# the same long run written in format 4 (the stream, its folded calls as
# runs of CP_LOG4_FOLD): the same long run and findings; the independent
# reader (tests/tools/log4.py) reads its aggregates and folded slots
job slow4v4 --ranks 4 --seed 4 -- --intervals 30 --interval 5 --seed 4 \
    --slow 0@12=2 --format 4
ok $? "the same job in format 4: made and analyzed"
check "format 4: the same long_run and findings as format 3" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(a["long_run"] != b["long_run"] or a["findings"] != b["findings"])' \
    "$t/slow4.rep/report.json" "$t/slow4v4.rep/report.json"
log=$(ls "$t/slow4v4"/*.cplog | head -n 1)
check "format 4: log4.py reads its aggregates and folded calls" python3 -c '
import subprocess, sys
out = subprocess.run([sys.executable, sys.argv[1], "slots", sys.argv[2]],
                     check=True, capture_output=True, text=True).stdout
lines = [l.split() for l in out.splitlines()]
aggs = [l for l in lines if l[1].startswith("0c")]
folded = sum(1 for l in lines if l[1] == "empty")
calls = sum(int.from_bytes(bytes.fromhex(l[1])[24:28], "little") for l in aggs)
sys.exit(not aggs or folded != calls)' "$top_srcdir/tests/tools/log4.py" "$log"

# findings by window: a 3d job of 16 ranks made a long run whose detail
# windows are the job's calls (agg_logs --policy 40,20,80: 20 windows of
# its communicators), the link n0-n1 4x slower from the start, then from
# 5 s: the slow_link says in which cells (a communicator's window) it was
# seen, every one, then those after the start of the cell before it
for from in 0s 5s; do
    "$gen" -o "$t/link$from" --format 3 --ranks 16 --ranks-per-node 2 \
        --pattern 3d --dp-size 2 --steps 400 --seed 3 \
        --slow-link "0,1=4:from=$from" >/dev/null 2>&1 &&
        "$agg" "$t/link$from" --policy 40,20,80 >/dev/null &&
        "$cp" analyze -q "$t/link$from" -o "$t/link$from.rep" 2>/dev/null
    ok $? "a link 4x slower from $from in detail windows: analyzed"
    check "... the slow_link seen in the cells from the truth on" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
at = float(sys.argv[2].rstrip("s"))
sl = [f for f in r["findings"] if f["kind"] == "slow_link"]
w = sl[0]["evidence"].get("detail_windows") if sl else None
print("# %s" % json.dumps(w))
if not w or sl[0]["message"].find("Seen in %d of the %d detail windows" %
                                    (w["seen"], w["checked"])) < 0:
    sys.exit(1)
if at == 0:
    sys.exit(not (w["seen"] == w["checked"] >= 10 and w["after_s"] is None
                  and w["first"] == 0 and len(w["spans"]) == 1))
sys.exit(not (w["checked"] - 3 <= w["seen"] < w["checked"] and
              w["after_s"] < at <= w["since_s"] and len(w["spans"]) == 1))
' "$t/link$from.rep/report.json" "$from"
done

# a long run whose instances have one member each (2 ranks, one log
# gone, as the last instances of a killed job): joined without reading a
# second arrival that never came (under UBSan, tests/sanitize.sh)
"$gen" -o "$t/half" --format 3 --ranks 2 --ranks-per-node 1 --steps 5 \
    >/dev/null 2>&1 && "$agg" "$t/half" --policy 40,20,80 >/dev/null &&
    rm "$(ls "$t"/half/*.cplog | tail -n 1)" &&
    "$cp" analyze -q "$t/half" -o "$t/half.rep" 2>"$t/half.err"
ok $? "a long run of one-member instances: analyzed"
check "... every instance incomplete (in the rule's windows) or partial" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
sys.exit(not (s["instances"] > 0 and s["incomplete_instances"] > 0 and
              s["incomplete_instances"] + r["long_run"]["partial_instances"]
              == s["instances"]))' \
    "$t/half.rep/report.json"

# a job without a policy: no long_run
"$gen" -o "$t/plain" --format 3 --ranks 4 --ranks-per-node 2 --steps 10 \
    >/dev/null 2>&1 && "$cp" analyze -q "$t/plain" -o "$t/plain.rep" 2>/dev/null
ok $? "a job without a capture policy: analyzed"
check "without a policy: no long_run in report.json" python3 -c '
import json, sys
sys.exit("long_run" in json.load(open(sys.argv[1])))' "$t/plain.rep/report.json"
check "report.html of a job without a policy: no long-run plot" \
    sh -c '! grep -q fig-long-run "$1/plain.rep/report.html"' sh "$t"

# the node partials of the slowed job: the same long run and findings
mkdir "$t/parts" && for n in n0 n1 n2 n3; do
    "$cp" reduce -q --node "$n" -o "$t/parts/$n.cppart" "$t/slow8" || exit 1
done && "$cp" analyze -q "$t/parts" -o "$t/parts.rep" 2>/dev/null
ok $? "the slowed job's node partials: reduced and analyzed"
check "node partials: the same long_run and findings as the logs" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(a["long_run"] != b["long_run"] or a["findings"] != b["findings"])' \
    "$t/slow8.rep/report.json" "$t/parts.rep/report.json"

# -j 3 gives the same report
same_report_for_jobs "$cp" "$t" slow8j "$t/slow8" 3

done_testing
