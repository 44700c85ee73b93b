#!/bin/sh
# inflight.sh - a rank killed with SIGKILL inside an NCCL call keeps that
# call's entry record: op, size, communicator, sequence and entry time, with
# end_ns 0 (docs/log-format.md, "Entry records").  The kill is planted with
# simnccl's `kill rank=R after=N` (SIGKILL inside collective number N).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

# the calls rank 1 makes, from a healthy run
"$simrun" -n 4 --nodes 2 --timeout 60 -- "$train_sim" --pattern ddp \
    --steps 1 --quiet --expect "$work/expect.%d.csv" >/dev/null 2>&1
ok $? "healthy run for the expected calls"

printf 'kill rank=1 after=5\n' >"$work/kill.topo"
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
done_testing
