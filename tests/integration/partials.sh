#!/bin/sh
# partials.sh - every train_sim pattern under simrun -n 8 --nodes 4 (the
# CPU NCCL, the shim recording): one `collprof reduce` per node, then
# collprof analyze of the partials and logs together and of the partials
# alone gives a report.json byte-identical to the raw logs', and the same
# verdict; collprof trace reads the partials too.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

for p in ddp fsdp tp moe pp 3d; do
    d=$work/$p
    mkdir -p "$d"
    "$collprof" record -q -o "$d/logs" -- "$simrun" -n 8 --nodes 4 --timeout 120 \
        -- "$train_sim" --pattern $p --steps 2 >"$d/run.out" 2>"$d/run.err"
    ok $? "$p: recorded"
    "$collprof" analyze -q "$d/logs" -o "$d/raw" >"$d/raw.out" 2>&1
    raw_rc=$?
    made=0
    for node in n1 n2 n3 n4; do
        "$collprof" reduce -q --node $node "$d/logs" && made=$((made + 1))
    done
    ok $([ $made -eq 4 ] && [ -s "$d/logs/n4.cppart" ]; echo $?) "$p: a partial per node ($made)"
    "$collprof" analyze -q "$d/logs" -o "$d/both" >"$d/both.out" 2>&1
    ok $([ $? -eq $raw_rc ]; echo $?) "$p: partials and logs: exit $raw_rc"
    check "$p: partials and logs: byte-identical report.json" \
        cmp "$d/raw/report.json" "$d/both/report.json"
    mkdir "$d/aside"
    mv "$d/logs"/*.cplog "$d/aside/"
    "$collprof" analyze "$d/logs" -o "$d/part" >"$d/part.out" 2>&1
    check "$p: partials alone: byte-identical report.json" \
        cmp "$d/raw/report.json" "$d/part/report.json"
    "$collprof" analyze "$d/aside" -o "$d/part" >"$d/raw2.out" 2>&1
    sed "s|$d/part|OUT|g" "$d/part.out" >"$d/part.v"
    sed "s|$d/part|OUT|g" "$d/raw2.out" >"$d/raw2.v"
    check "$p: partials alone: the same verdict" cmp "$d/part.v" "$d/raw2.v"
    if [ "$p" = ddp ]; then
        "$collprof" trace "$d/logs" -o "$d/part.trace.json" >/dev/null 2>&1
        t1=$?
        mv "$d/aside"/*.cplog "$d/logs/"
        mv "$d/logs"/*.cppart "$d/aside/"
        "$collprof" trace "$d/logs" -o "$d/raw.trace.json" >/dev/null 2>&1
        t2=$?
        ok $([ $t1 -eq 0 ] && [ $t2 -eq 0 ]; echo $?) "$p: collprof trace of the partials ($t1, $t2)"
        check "$p: the same trace as from the logs" \
            cmp "$d/part.trace.json" "$d/raw.trace.json"
    fi
done
done_testing
