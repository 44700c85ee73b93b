#!/bin/sh
# analyze.sh - the profile that collprof bench writes is the analyzer's
# expectation: collprof analyze --profile takes its link speed, and judges a
# recorded train_sim run (DDP) against it.  The bench's own profile of the
# topology finds nothing slow; the same profile expecting twice the
# topology's bandwidth makes analyze report low_busbw.
#
# Twice the bandwidth puts the calls at about half the expected busbw, right
# at analyze's low_busbw threshold (below 50 %): large buckets (8 MiB) keep
# the latency term, which the doubled bandwidth does not shrink, small, and
# 4 ranks keep the measured busbw a few per cent under the link's (about
# 45 % of the doubled expectation, measured).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"
timing_lock

printf 'intra latency=100us bandwidth=100MB/s\n' >"$work/t.topo"
"$simrun" -n 4 --topo "$work/t.topo" --timeout 300 -- "$collprof" bench -q \
    --ops allreduce --sizes 256KiB-8MiB --point-time 100ms \
    --write-profile "$work/bench.prof" >"$work/bench.out" 2>&1
ok $? "bench writes a profile of the topology"
sed 's/^/#   /' "$work/bench.prof"
bw=$(sed -n 's/^intra alpha=[0-9.]*us bandwidth=\([0-9.]*\)MB\/s$/\1/p' "$work/bench.prof")
ok $([ -n "$bw" ]; echo $?) "the profile's intra bandwidth: $bw MB/s"
# twice the topology's 100 MB/s, the bench's alpha kept
sed 's/^\(intra alpha=[0-9.]*us\) bandwidth=.*/\1 bandwidth=200MB\/s/' \
    "$work/bench.prof" >"$work/twice.prof"

"$collprof" record -q -o "$work/logs" -- "$simrun" -n 4 --topo "$work/t.topo" \
    --timeout 300 -- "$train_sim" --pattern ddp --steps 3 --bucket-mb 8 --quiet \
    >"$work/rec.out" 2>&1
ok $? "train_sim --pattern ddp recorded on the same topology"

"$collprof" analyze -q "$work/logs" -o "$work/r1" --profile "$work/bench.prof" \
    >"$work/a1.out" 2>&1
ok $? "analyze with the bench's profile"
pycheck "the analyzer expects the profile's bandwidth" "$work/r1/report.json" \
    "d['model']['intra']['expected_source'] == 'profile' and abs(d['model']['intra']['expected_Bps'] / ($bw * 1e6) - 1) < 1e-6"
pycheck "... and finds no low busbw" "$work/r1/report.json" \
    "'low_busbw' not in [f['kind'] for f in d['findings']]"

"$collprof" analyze -q "$work/logs" -o "$work/r2" --profile "$work/twice.prof" \
    >"$work/a2.out" 2>&1
ok $? "analyze with a profile expecting twice the bandwidth"
pycheck "the analyzer expects 200 MB/s" "$work/r2/report.json" \
    "d['model']['intra']['expected_Bps'] == 200e6"
pycheck "... and reports low_busbw" "$work/r2/report.json" \
    "'low_busbw' in [f['kind'] for f in d['findings']]"
diag "$(py "$work/r2/report.json" "[f['message'] for f in d['findings'] if f['kind'] == 'low_busbw']")"
done_testing
