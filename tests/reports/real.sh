#!/bin/sh
# real.sh - report.html from real analyses: synthetic logs of gen_logs (a
# straggler, communicators on one node) and a job recorded through the shim
# on the CPU NCCL (train_sim, ddp and tp).  Pages come from collprof analyze
# (OUT/report.html) where it writes them, and from collprof report on its
# report.json in any case.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
need "$collprof" "$gen_logs" "$simrun" "$train_sim" "$shim"
"$collprof" analyze --help >/dev/null 2>&1 || skip_all "collprof analyze is not built"

# page DIR NAME: DIR/report.json rendered (and DIR/report.html checked when
# analyze wrote one); the page in $work/NAME.html
page() {
    check "$2: report.json written" test -s "$1/report.json"
    if [ -e "$1/report.html" ]; then
        check "$2: analyze wrote report.html with every plot" figures "$1/report.html"
    fi
    check "$2: collprof report renders it" "$collprof" report "$1/report.json" -o "$work/$2.html"
    check "$2: every plot" figures "$work/$2.html"
}

"$gen_logs" -o "$work/g" --ranks 16 --ranks-per-node 4 --steps 10 \
    --pattern mixed --straggler 5=3ms --seed 11 >/dev/null 2>"$work/gen.err"
ok $? "gen_logs: 16 ranks on 4 nodes, rank 5 a straggler"
"$collprof" analyze -q "$work/g" -o "$work/ga" >/dev/null 2>"$work/ga.err"
ok $? "analyze the generated logs"
page "$work/ga" gen
check "gen: analyze wrote report.html" test -s "$work/ga/report.html"
check "gen: re-rendering the saved report.json gives analyze's page" cmp -s "$work/ga/report.html" "$work/gen.html"
check "gen: the straggler finding with its suggestion" grep -q 'look at rank 5 on node' "$work/gen.html"
check "gen: straggler coloured in the lateness plot" grep -q 'named as a straggler by a finding' "$work/gen.html"
check "gen: node communicators fill the heatmap's diagonal" grep -q 'cells have data' "$work/gen.html"
check "gen: the crossover n* is marked" grep -q 'n\* = ' "$work/gen.html"
check "gen: the expected link speed line" grep -q 'expected intra-node link speed' "$work/gen.html"

"$gen_logs" -o "$work/s" --ranks 8 --ranks-per-node 2 --steps 20 \
    --pattern ddp-small --seed 3 >/dev/null 2>&1
"$collprof" analyze -q "$work/s" -o "$work/sa" >/dev/null 2>&1
ok $? "analyze small DDP buckets"
page "$work/sa" ddpsmall
check "ddp-small: a latency_bound finding with a bucket to use" grep -q 'bucket_cap_mb=' "$work/ddpsmall.html"

for pattern in ddp tp; do
    "$collprof" record -o "$work/rec-$pattern" -- "$simrun" -n 8 --nodes 4 \
        --timeout 300 --topo "$s/tests/integration/four-nodes.topo" -- \
        "$train_sim" --pattern "$pattern" --steps 3 --quiet \
        >"$work/rec.out" 2>&1
    ok $? "record train_sim --pattern $pattern, 8 ranks on 4 nodes"
    "$collprof" analyze -q --profile "$s/tests/integration/four-nodes.topo" \
        "$work/rec-$pattern" -o "$work/rec-$pattern-out" \
        >/dev/null 2>&1
    ok $? "analyze the recorded $pattern run"
    page "$work/rec-$pattern-out" "rec-$pattern"
    check "rec-$pattern: analyze's page is collprof report's" cmp -s "$work/rec-$pattern-out/report.html" "$work/rec-$pattern.html"
    check "rec-$pattern: the world communicator in the table" grep -q '<td>world</td>' "$work/rec-$pattern.html"
done
check "rec-ddp: all-reduce time against size on 8 ranks" grep -q 'allreduce on 8 ranks' "$work/rec-ddp.html"
check "rec-tp: the tp communicators on one node each fill the heatmap diagonal" grep -q "cells have data" "$work/rec-tp.html"
done_testing
