#!/bin/sh
# slowdown.sh - the slowdown finding and the timeline's per-window figures
# on the CPU NCCL: a link made slow from a given time on and back again
# (topology `link n2 n3 latency=... from=T`) is found as a slowdown whose
# part starts within a window width of T, names the world communicator and
# a rank behind the link; every train_sim pattern run healthy gets none.
# (A stall of this loaded machine is a slowdown too: the planted one is
# looked for among the findings; a healthy run that meets one fails.)
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

# run NAME TOPO PATTERN STEPS [train_sim args]: record, then analyze into
# $work/NAME.rep; rank 0 notes simrun's start (CLOCK_REALTIME) in
# $work/NAME.start, from which from= counts
run() {
    name=$1 topo=$2 pattern=$3 steps=$4
    shift 4
    "$collprof" record -q -o "$work/$name" -- "$simrun" -n 8 --nodes 4 \
        --timeout 180 ${topo:+--topo "$topo"} -- sh -c \
        '[ "$SIMNCCL_RANK" = 0 ] && echo "$SIMNCCL_START_REALTIME_NS" >"$0"; exec "$@"' \
        "$work/$name.start" "$train_sim" --pattern "$pattern" \
        --steps "$steps" "$@" >"$work/$name.out" 2>&1 &&
        "$collprof" analyze -q "$work/$name" -o "$work/$name.rep" \
            >"$work/$name.aout" 2>&1
}

# the slowed link: 25 ms of latency between n2 and n3 from 2.5 s to 4.5 s
cat >"$work/slow.topo" <<'EOF'
link n2 n3 latency=25ms from=2.5s
link n2 n3 latency=20us from=4.5s
EOF
# 250 steps, so that the run lasts past the planted part however fast the
# machine is: 80 steps took 7 s on a loaded machine but 2.4 s on a quiet
# one, which ended before the part began (30 steps ended before 2.5 s)
run slow "$work/slow.topo" ddp 250 --scale 0.1
ok $? "ddp, 8 ranks on 4 nodes, n2-n3 slowed from 2.5 s to 4.5 s: recorded and analyzed"
first=$("$collprof" dump --csv "$work/slow" | awk -F, 'NR > 1 { print $17 }' |
    sort -n | head -n 1)
out=$(python3 - "$work/slow.rep/report.json" "$(cat "$work/slow.start")" \
    "$first" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
start, first = int(sys.argv[2]), int(sys.argv[3])
# the planted times on the report's axis (seconds since the first call)
t_from = (start + 2.5e9 - first) / 1e9
t_to = (start + 4.5e9 - first) / 1e9
tl = rep["timeline"]
width = tl["window_s"]
found = [x for x in rep["findings"] if x["kind"] == "slowdown"]
problems = []
# the planted part (a stall of this loaded machine elsewhere in the run is
# a slowdown too, and may be reported beside it)
f = [x for x in found
     if x["evidence"]["to_s"] > t_from and x["evidence"]["from_s"] < t_to]
span = rep["summary"].get("span_s") if isinstance(rep.get("summary"), dict) else None
if len(f) != 1:
    if span is not None and span < t_to:
        print("the run lasted %.3f s, less than the planted part's end at %.3f s" % (span, t_to))
    print("slowdown findings: %d, %d over the planted time: %s" % (
        len(found), len(f), [x["message"] for x in found]))
    sys.exit(1)
e = f[0]["evidence"]
print("found %.3f-%.3f s, planted %.3f-%.3f s, window %.3f s, %.1fx, z %.1f"
      % (e["from_s"], e["to_s"], t_from, t_to, width, e["factor"], e["z"]))
if abs(e["from_s"] - t_from) > width:
    problems.append("start not within a window width")
if f[0]["severity"] != "warning" or not e["sure"]:
    problems.append("not a sure warning: %s" % f[0]["severity"])
if e["factor"] < 3:
    problems.append("factor below 3")
slowed = [c["comm_name"] for c in e["comms"] if c["slowed"]]
if "world" not in slowed:
    problems.append("world not named slowed: %s" % slowed)
if "world" not in f[0]["message"]:
    problems.append("the message does not name world")
# behind the slowed link: ranks 2-5 are on n2 and n3 (2 ranks per node, in
# order); in a ring every rank waits for the link, so which rank comes last
# varies from run to run (one run: 7, 5, 1): one of n2's or n3's ranks must
# be among the three named last most often
last = [r["rank"] for r in e["last_ranks"]][:3]
if not any(r in (2, 3, 4, 5) for r in last):
    problems.append("no rank of n2 or n3 among the last to arrive: %s" % last)
# the windows of the part are slow, most of the others are not
w = tl["windows"]
inside = [x["slowness"] for x in w[e["first_window"]:e["last_window"] + 1]
          if x["slowness"] is not None]
if sorted(inside)[len(inside) // 2] < 2:
    problems.append("the part's median window is not twice as slow")
if problems:
    print("; ".join(problems))
    sys.exit(1)
PY
)
ok $? "the slowdown is found where it was planted ($out)"

check "timeline windows carry busbw, latency share, slowness and warmup" \
    python3 - "$work/slow.rep/report.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["timeline"]["windows"]
keys = ("busbw_Bps", "latency_share", "slowness", "warmup")
assert all(all(k in x for k in keys) for x in w)
assert any(x["busbw_Bps"] for x in w)
assert all(x["latency_share"] is None or 0 <= x["latency_share"] <= 1 for x in w)
# the warm-up is a prefix of the windows, the first window in it
assert w[0]["warmup"] and all(not b or a for a, b in zip(
    [x["warmup"] for x in w], [x["warmup"] for x in w][1:]))
PY

# healthy: every pattern, no planted fault.  On this machine (2 cores
# shared by many jobs) a healthy run now and then really stalls for a few
# tenths of a second at 4-5x (seen on 3d and pp): a slowdown the analysis
# rightly reports.  Such a stall is rare and short, so a pattern whose run
# met one is run once more, and must then be quiet; the first run's
# finding is shown as a comment.
slowdowns() {
    python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print(' '.join(f['message'] for f in r['findings'] if f['kind'] == 'slowdown'))" \
        "$1/report.json"
}
for p in ddp fsdp tp moe pp 3d; do
    run "h$p" "" $p 8
    ok $? "$p healthy: recorded and analyzed"
    n=$(slowdowns "$work/h$p.rep")
    if [ -n "$n" ]; then
        echo "# $p: a stall of the machine? $n"
        rm -rf "$work/h$p" "$work/h$p.rep"
        run "h$p" "" $p 8
        n=$(slowdowns "$work/h$p.rep")
    fi
    ok $([ -z "$n" ]; echo $?) "$p healthy: no slowdown finding${n:+ (got: $n)}"
done
done_testing
