#!/bin/sh
# timelimit.sh - what Slurm does at a time limit: SIGTERM to every task,
# then SIGKILL.  Everything logged before is readable, and the analyzer
# reads the logs of the killed job.  Also: the log directory removed while
# the job runs does not disturb the job.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

d=$work/tl
"$collprof" record -q -o "$d" -- "$simrun" -n 4 --nodes 2 --timeout 120 -- \
    "$train_sim" --pattern fsdp --steps 100000 --quiet >/dev/null 2>"$work/err" &
rec=$!
# wait for every rank to log some calls
i=0
while [ $i -lt 300 ]; do
    n=0
    for f in "$d"/*.cplog; do
        [ -f "$f" ] || continue
        c=$("$collprof" dump --summary "$f" 2>/dev/null | sed -n 's/.*: \([0-9]*\) calls.*/\1/p')
        [ "${c:-0}" -gt 100 ] && n=$((n + 1))
    done
    [ $n -eq 4 ] && break
    sleep 0.1
    i=$((i + 1))
done
ok $([ $n -eq 4 ]; echo $?) "4 ranks running and logging"
pids=$(ls "$d"/*.cplog | sed 's/.*\.\([0-9]*\)\.cplog$/\1/')
kill -TERM $pids 2>/dev/null
sleep 0.5
kill -KILL $pids 2>/dev/null
wait $rec
ok $([ $? -ne 0 ]; echo $?) "the job ended by the signals"
"$collprof" dump --summary "$d" >"$work/sum" 2>"$work/sum.err"
ok $? "every log readable after SIGTERM + SIGKILL"
check "no damaged record reported" test ! -s "$work/sum.err"
total=$(sed -n 's/.*: \([0-9]*\) calls.*/\1/p' "$work/sum" | awk '{s+=$1} END {print s+0}')
ok $([ "$total" -ge 400 ]; echo $?) "the calls before the kill are there ($total)"
if "$collprof" analyze --help >/dev/null 2>&1; then
    "$collprof" analyze "$d" -o "$work/report" >"$work/verdict" 2>"$work/an.err"
    ok $? "collprof analyze reads the killed job: $(head -n 1 "$work/verdict")"
    check "and writes report.json" test -s "$work/report/report.json"
fi

# The log directory removed mid-run: the job neither notices nor fails.
d2=$work/rm
"$collprof" record -q -o "$d2" -- "$simrun" -n 4 --nodes 2 --timeout 120 -- \
    "$train_sim" --pattern ddp --steps 300 --scale 0.01 >"$work/rm.out" 2>"$work/rm.err" &
rec=$!
i=0
while [ $i -lt 100 ] && [ "$(ls "$d2" 2>/dev/null | wc -l)" -lt 4 ]; do
    sleep 0.05
    i=$((i + 1))
done
rm -rf "$d2"
wait $rec
ok $? "log directory removed mid-run: the job completes"
grep -q "all results correct" "$work/rm.out"
ok $? "with correct results"
# (collprof record itself may say it could not write its end-of-run port
# snapshot there; the shim's lines start with "collprof: ")
check "and nothing printed by the shim" sh -c "! grep -q '^collprof: ' '$work/rm.err'"
done_testing
