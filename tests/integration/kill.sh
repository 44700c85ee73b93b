#!/bin/sh
# kill.sh - SIGKILL of a rank mid-run: its log is still readable and holds
# every call completed before the kill, with no gap in any sequence.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

d=$work/kill
"$collprof" record -q -o "$d" -- "$simrun" -n 4 --nodes 2 --timeout 120 -- \
    "$train_sim" --pattern ddp --steps 100000 --quiet >/dev/null 2>"$work/err" &
rec=$!
# wait until rank 2 (first rank of n2) has logged a few hundred calls
victim=""
i=0
while [ $i -lt 300 ]; do
    f=$(ls "$d"/n2.*.cplog 2>/dev/null | head -n 1)
    if [ -n "$f" ]; then
        calls=$("$collprof" dump --summary "$f" 2>/dev/null |
                sed -n 's/.*: \([0-9]*\) calls.*/\1/p')
        if [ "${calls:-0}" -gt 300 ]; then
            victim=$(basename "$f" .cplog)
            victim=${victim#n2.}
            break
        fi
    fi
    sleep 0.1
    i=$((i + 1))
done
ok $([ -n "$victim" ]; echo $?) "rank on n2 found running (pid ${victim:-none})"
[ -n "$victim" ] && kill -9 "$victim"
wait $rec
st=$?
ok $([ $st -ne 0 ]; echo $?) "the job fails once a rank is killed (status $st)"
f=$d/n2.$victim.cplog
"$collprof" dump --summary "$f" >"$work/summary" 2>"$work/summary.err"
ok $? "the killed rank's log is readable"
grep -q "not closed" "$work/summary"
ok $? "and marked as not closed: $(cat "$work/summary")"
check "no problem reported reading it" test ! -s "$work/summary.err"
"$collprof" dump --csv "$f" >"$work/killed.csv"
python3 - "$work/killed.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
seqs = {}
for r in rows:
    seqs.setdefault(r["comm"], []).append(int(r["seq"]))
bad = [c for c, s in seqs.items() if s != list(range(len(s)))]
print("# %d calls on %d communicators" % (len(rows), len(seqs)))
sys.exit(1 if bad or len(rows) < 300 else 0)
PY
ok $? "every sequence runs 0..k-1 without a gap: nothing before the kill lost"
# the other ranks' logs are readable too (simrun terminated them)
n=0
for g in "$d"/*.cplog; do
    "$collprof" dump --summary "$g" >/dev/null 2>&1 && n=$((n + 1))
done
ok $([ $n -eq 4 ]; echo $?) "all 4 rank logs readable ($n)"
done_testing
