#!/bin/sh
# wrong.sh - a wrong result shows in nccl-tests' #wrong column and makes the
# exit status 3 (rank 0's; the other ranks end with 0 so that the launcher
# lets rank 0 write its files): COLLPROF_BENCH_CORRUPT=COLL[:RANK] (for
# tests) changes one element of the checked out-of-place output of COLL on
# RANK (default 0) before the check.  The link is slow enough (1 ms, 1 MB/s: 1 to 16 ms a call)
# that it, not a loaded or instrumented CPU, sets the times: the profile
# needs a fit, and one call per size of a few microseconds would not give one.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
need "$collprof" "$simrun"

printf 'intra latency=1ms bandwidth=1MB/s\n' >"$work/link.topo"
COLLPROF_BENCH_CORRUPT=allreduce "$simrun" -n 2 --topo "$work/link.topo" \
    --timeout 120 -- "$collprof" bench --ops allreduce,allgather \
    --sizes 1KiB-16KiB --iters 1 --warmup 0 --json "$work/w.json" \
    --write-profile "$work/w.prof" --force >"$work/out" 2>"$work/err"
rc=$?
ok $([ $rc -eq 3 ]; echo $?) "exit status 3 ($rc)"
[ $rc -eq 3 ] || sed 's/^/#   /' "$work/err"
check "the count on stderr" grep -q '^collprof bench: 5 wrong result elements (the #wrong column)$' "$work/err"
n=$(awk '$4 == "sum" && $9 == 1 && $13 == 0' "$work/out" | wc -l)
ok $([ "$n" -eq 5 ]; echo $?) "all-reduce: #wrong 1 out of place, 0 in place, on each of the 5 sizes ($n)"
n=$(awk '$4 == "none" && $9 == 0 && $13 == 0' "$work/out" | wc -l)
ok $([ "$n" -eq 5 ]; echo $?) "all-gather: #wrong 0 ($n)"
check "nccl-tests' footer says FAILED" grep -q '^# Out of bounds values : 5 FAILED$' "$work/out"
pycheck "JSON: wrong_total 5 over 5 points" "$work/w.json" \
    "d['wrong_total'] == 5 and d['wrong_points'] == 5"
check "the files are still written" test -s "$work/w.prof"

COLLPROF_BENCH_CORRUPT=allgather:1 "$simrun" -n 2 --topo "$work/link.topo" \
    --timeout 120 -- "$collprof" bench --ops allreduce,allgather \
    --sizes 1KiB-4KiB --iters 1 --warmup 0 --json "$work/w1.json" \
    >"$work/out1" 2>"$work/err1"
ok $([ $? -eq 3 ]; echo $?) "a wrong element on rank 1: exit status 3"
pycheck "... counted in all-gather only" "$work/w1.json" \
    "sorted(set(p['op'] for p in d['points'] if p['wrong'])) == ['allgather']"

"$simrun" -n 2 --topo "$work/link.topo" --timeout 120 -- "$collprof" bench \
    --ops allgather --sizes 1KiB-4KiB --iters 1 --no-check --json "$work/nc.json" \
    >"$work/out2" 2>&1
ok $? "--no-check: exit 0"
pycheck "--no-check: wrong is null (N/A)" "$work/nc.json" \
    "all(p['wrong'] is None for p in d['points'])"
done_testing
