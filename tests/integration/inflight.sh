#!/bin/sh
# inflight.sh - a rank killed with SIGKILL inside an NCCL call keeps that
# call's entry record: op, size, communicator, sequence and entry time, with
# end_ns 0 (docs/log-format.md, "Entry records").  The kill is planted with
# simnccl's `kill rank=R in=OP after=N` (SIGKILL inside its first OP call
# from collective number N on).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

# the calls rank 1 makes, from a healthy run
"$simrun" -n 4 --nodes 2 --timeout 60 -- "$train_sim" --pattern ddp \
    --steps 1 --quiet --expect "$work/expect.%d.csv" >/dev/null 2>&1
ok $? "healthy run for the expected calls"

printf 'kill rank=1 in=allreduce after=5\n' >"$work/kill.topo"
d=$work/logs
"$collprof" record -q -o "$d" -- "$simrun" -n 4 --nodes 2 --timeout 60 \
    --topo "$work/kill.topo" -- "$train_sim" --pattern ddp --steps 1 \
    --quiet >/dev/null 2>"$work/err"
st=$?
ok $([ $st -ne 0 ]; echo $?) "the job fails (status $st)"
grep -q "rank 1 .*killed by signal 9" "$work/err"
ok $? "simrun saw rank 1 killed by SIGKILL"
f=$(ls "$d"/n1.*.cplog 2>/dev/null | while read -r g; do
    "$collprof" dump --summary "$g" 2>/dev/null | grep -q "rank 1[ ,:]" &&
        echo "$g"; done | head -n 1)
[ -n "$f" ] || f=$(ls "$d"/n1.*.cplog | sed -n 2p)
"$collprof" dump --csv "$f" >"$work/killed.csv" 2>"$work/dump.err"
ok $? "the killed rank's log is readable"
check "no problem reported reading it" test ! -s "$work/dump.err"
python3 - "$work/killed.csv" "$work/expect.1.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
expect = [r for r in csv.DictReader(open(sys.argv[2]))
          if r["op"] not in ("send", "recv")]
rank = {r["rank"] for r in rows}
inflight = [r for r in rows if r["end_ns"] == "0"]
print("# %d calls, ranks %s, %d in flight" % (len(rows), sorted(rank), len(inflight)))
if rank != {"1"} or len(inflight) != 1:
    sys.exit(1)
r, want = inflight[0], expect[5]
print("# in flight: %s seq %s count %s; expected %s seq %s count %s"
      % (r["op"], r["seq"], r["count"], want["op"], want["seq"], want["count"]))
ok = (r["op"] == want["op"] and r["seq"] == want["seq"] and
      r["count"] == want["count"] and int(r["start_ns"]) > 0 and
      r["duration_ns"] == "0" and r is rows[-1])
done = [x for x in rows if x["end_ns"] != "0"]
ok = ok and len(done) == 5 and all(int(x["end_ns"]) >= int(x["start_ns"]) for x in done)
sys.exit(0 if ok else 1)
PY
ok $? "its last record is collective number 5, entered and never returned"
"$collprof" dump "$f" | grep -q "in flight (never returned)"
ok $? "collprof dump shows it as in flight"
"$collprof" analyze -q "$d" -o "$work/rep" >/dev/null 2>&1
python3 - "$work/rep/report.json" "$work/expect.1.csv" <<'PY'
import csv, json, sys
rep = json.load(open(sys.argv[1]))
want = [r for r in csv.DictReader(open(sys.argv[2]))
        if r["op"] not in ("send", "recv")][5]
hang = rep.get("hang") or {}
r1 = [r for r in hang.get("ranks", []) if r["rank"] == 1]
inflight = r1[0]["in_flight"] if r1 else None
print("# hang.state %s, rank 1 in flight: %s" % (hang.get("state"), inflight))
sys.exit(0 if inflight and inflight["op"] == want["op"] and
         inflight["communicator"] == want["comm"] and
         inflight["seq"] == int(want["seq"]) and "left_ns" not in inflight
         and r1[0]["log_closed"] is False else 1)
PY
ok $? "the analysis shows rank 1 in flight there (report.json hang.ranks)"
done_testing
