#!/bin/sh
# jobs.sh - collprof analyze -j N gives the same report.json, byte for
# byte, for N = 1, 2 and 4: on every train_sim pattern recorded under
# simrun (8 ranks on 4 nodes: grouped sends and receives, several
# communicators, clock offsets between the simulated nodes) and on a
# 300-rank gen_logs job read with parked files (ulimit -n 64).  The golden
# cases compare -j 1 and -j 3 in cases.py.  Bad -j values are refused.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/analyze/lib.sh"
gen=$b/tests/tools/gen_logs
need "$collprof" "$simrun" "$train_sim" "$shim" "$gen"

for p in ddp fsdp tp moe pp 3d; do
    "$collprof" record -q -o "$work/$p" -- "$simrun" -n 8 --nodes 4 \
        --timeout 120 -- "$train_sim" --pattern $p --steps 2 \
        >"$work/$p.out" 2>&1
    ok $? "$p: recorded (simrun -n 8 --nodes 4)"
    same_report_for_jobs "$collprof" "$work" "$p" "$work/$p" 2 4
done

"$gen" -o "$work/gen300" --pattern mixed --ranks 300 --ranks-per-node 4 \
    --steps 2 --clock-offset 3=1ms >/dev/null
ok $? "gen_logs: 300 ranks, mixed"
(ulimit -n 64 && exec "$collprof" analyze -q "$work/gen300" \
    -o "$work/gen300.parked" -j 3) 2>"$work/gen300.err"
ok $? "300 ranks: analyze -j 3 under ulimit -n 64 (parked files)"
same_report_for_jobs "$collprof" "$work" gen300 "$work/gen300" 2 4
check "300 ranks: -j 3 with parked files is byte-identical to -j 1" \
    cmp "$work/gen300.j1/report.json" "$work/gen300.parked/report.json"

for bad in 0 -1 x 2x 5000; do
    "$collprof" analyze -q "$work/ddp" -o "$work/bad" -j "$bad" \
        2>"$work/bad.err"
    rc=$?
    named=1
    grep -q "collprof analyze: -j '$bad'" "$work/bad.err" && named=0
    ok $([ $rc -eq 2 ] && [ $named -eq 0 ]; echo $?) "-j $bad refused (exit $rc, named)"
done
done_testing
