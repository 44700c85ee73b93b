#!/bin/sh
# sweep.sh - collprof bench on 4 simulated ranks of one node (simrun, the
# CPU NCCL) with a topology of known latency and bandwidth: the fitted alpha
# and bandwidth within 15 % of the file's (more where a busy machine adds time); all-reduce = reduce-scatter +
# all-gather within 10 % at the largest size (seed 002's check); every result
# checked; nccl-tests' line format on stdout; the JSON, CSV and profile; the
# output imported back gives the same fit.  Then every collective, in and
# out of place, on 3 ranks (uneven splits), and one rank without launcher.
# The link, not the CPU, must set the time, also when other jobs load the
# two shared cores: the bandwidth is slow (10 MB/s: the ranks' copies
# through loopback sockets, a few hundred MB/s on a loaded core, stay
# hidden behind the simulated wire) and the latency large (5 ms: a late
# wake-up of about a millisecond is well under 15 % of it).  The fit takes
# the median of at least three timed calls per size (median_time_s), which
# a few calls delayed by another job do not move.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
need "$collprof" "$simrun"
timing_lock

printf 'intra latency=5ms bandwidth=10MB/s\n' >"$work/one.topo"
"$simrun" -n 4 --topo "$work/one.topo" --timeout 300 -- "$collprof" bench \
    --ops allreduce,reducescatter,allgather --sizes 8KiB-1MiB \
    --warmup 1 --point-time 100ms --json "$work/b.json" --csv "$work/b.csv" \
    --write-profile "$work/b.prof" >"$work/out" 2>"$work/err"
ok $? "bench on 4 simulated ranks exits 0"
check "nothing on stderr" test ! -s "$work/err"
sed -n '/calibration/,$p' "$work/out" | sed 's/^/# /'
# nccl-tests' result line: size count type redop root, then time algbw
# busbw #wrong out of place and in place
n=$(grep -cE '^ +[0-9]+ +[0-9]+ +float +(sum|none) +-?[0-9]+( +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+){2}$' "$work/out")
ok $([ "$n" -eq 24 ]; echo $?) "24 result lines in nccl-tests' format ($n)"
check "nccl-tests' column names" grep -q '^#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong$' "$work/out"
for p in all_reduce_perf reduce_scatter_perf all_gather_perf; do
    check "a section for $p" grep -q "^# Collective test starting: $p\$" "$work/out"
done
check "no wrong element (nccl-tests' footer)" test "$(grep -c '^# Out of bounds values : 0 OK$' "$work/out")" -eq 3
pycheck "every point checked and right" "$work/b.json" \
    "all(p['wrong'] == 0 for p in d['points']) and d['wrong_total'] == 0"
pycheck "48 points with op, size_bytes, ranks, time_s, algbw_Bps, busbw_Bps, wrong, in_place" "$work/b.json" \
    "len(d['points']) == 48 and all({'op', 'size_bytes', 'ranks', 'time_s', 'algbw_Bps', 'busbw_Bps', 'wrong', 'in_place'} <= set(p) for p in d['points'])"
pycheck "busbw = algbw x 2(n-1)/n and algbw = size/time for all-reduce on 4 ranks" "$work/b.json" \
    "all(abs(p['busbw_Bps'] / p['algbw_Bps'] - 1.5) < 1e-9 and abs(p['algbw_Bps'] * p['time_s'] / p['size_bytes'] - 1) < 1e-9 for p in d['points'] if p['op'] == 'allreduce')"
# Pacing never finishes early, but another job on the two cores can only
# add time: within 15 % on the side the link alone sets, with room (40 %
# more latency, 30 % less bandwidth) on the side a busy machine pushes.
pycheck "intra alpha within -15%/+40% of the file's 5 ms" "$work/b.json" \
    "0.85 <= d['calibration']['links']['intra']['alpha_s'] / 5e-3 <= 1.4"
pycheck "intra bandwidth within -30%/+15% of the file's 10 MB/s" "$work/b.json" \
    "0.7 <= d['calibration']['links']['intra']['bandwidth_Bps'] / 10e6 <= 1.15"
diag "$(py "$work/b.json" "'fitted: alpha %.3f ms, bandwidth %.2f MB/s' % (d['calibration']['links']['intra']['alpha_s'] * 1e3, d['calibration']['links']['intra']['bandwidth_Bps'] / 1e6)")"
# The out-of-place time of each collective at its largest size (the median
# call, which a call delayed by another job does not move).
largest="{o: [p['median_time_s'] or p['time_s'] for p in d['points'] if p['op'] == o and not p['in_place'] and p['size_bytes'] == max(q['size_bytes'] for q in d['points'] if q['op'] == o)][0] for o in ('allreduce', 'reducescatter', 'allgather')}"
pycheck "all-reduce = reduce-scatter + all-gather within 10% at the largest size" "$work/b.json" \
    "(lambda t: abs(t['allreduce'] / (t['reducescatter'] + t['allgather']) - 1) <= 0.10)($largest)"
diag "$(py "$work/b.json" "(lambda t: 'at 1 MiB: all-reduce %.1f ms, reduce-scatter + all-gather %.1f ms' % (t['allreduce'] * 1e3, (t['reducescatter'] + t['allgather']) * 1e3))($largest)")"
pycheck "host timer: timer host, no gpu_time_s; at least 3 timed calls, their median no longer than all of them" "$work/b.json" \
    "d['timer'] == 'host' and d['run']['timer_reason'].startswith('host buffers') and all(p['gpu_time_s'] is None and p['iters'] >= 3 and 0 < p['median_time_s'] <= p['time_s'] * p['iters'] for p in d['points'])"
check "the start lines name the timer" grep -q '^# timer: host (host buffers: no GPU stream to time)$' "$work/out"
pycheck "fit of each collective: ranks, latency floor, alpha, busbw plateau, regime boundary" "$work/b.json" \
    "all(d['fit'][o]['ranks'] == 4 and all(d['fit'][o][k] > 0 for k in ('latency_floor_s', 'alpha_s', 'busbw_Bps', 'regime_boundary_bytes')) for o in ('allreduce', 'reducescatter', 'allgather'))"
rows=$(sed 1d "$work/b.csv" | wc -l)
ok $([ "$rows" -eq 48 ]; echo $?) "CSV: 48 rows ($rows)"
check "CSV header" test "$(head -1 "$work/b.csv")" = "op,ranks,link,size_bytes,count,type,redop,root,in_place,time_s,algbw_Bps,busbw_Bps,wrong,iters,median_time_s,gpu_time_s"
check "profile: one intra line in the site profile's format" grep -qE '^intra alpha=[0-9.]+us bandwidth=[0-9.]+MB/s$' "$work/b.prof"
check "profile: no inter line on one node" sh -c "! grep -q '^inter' '$work/b.prof'"

# The bench's own output and JSON import back to the same fit.
"$collprof" bench --import "$work/out" --json "$work/again.json" >/dev/null 2>"$work/again.err"
ok $? "the bench's stdout imports"
check "... without a skipped line" test ! -s "$work/again.err"
pycheck "... to the same collectives, ranks and link" "$work/again.json" \
    "sorted((k, v['ranks'], v['link']) for k, v in d['fit'].items()) == [('allgather', 4, 'intra'), ('allreduce', 4, 'intra'), ('reducescatter', 4, 'intra')]"
# nccl-tests' lines carry time_s only: the same fit as the JSON without its
# median_time_s.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); [p.pop("median_time_s") for p in d["points"]]; json.dump(d, open(sys.argv[2], "w"))' \
    "$work/b.json" "$work/avg.json"
"$collprof" bench --import "$work/avg.json" --json "$work/avg-fit.json" >/dev/null 2>&1
pycheck "... and the same alpha within 1% as the JSON's nccl-tests times" "$work/again.json" \
    "abs(d['calibration']['links']['intra']['alpha_s'] / $(py "$work/avg-fit.json" "d['calibration']['links']['intra']['alpha_s']") - 1) < 0.01"
"$collprof" bench --import "$work/b.json" --json "$work/again2.json" >/dev/null 2>&1
pycheck "the bench's JSON imports to the same bandwidth" "$work/again2.json" \
    "abs(d['calibration']['links']['intra']['bandwidth_Bps'] / $(py "$work/b.json" "d['calibration']['links']['intra']['bandwidth_Bps']") - 1) < 1e-9"

# Every collective, out of place and in place, on 3 ranks: all results right.
printf 'intra latency=20us bandwidth=200MB/s\n' >"$work/fast.topo"
"$simrun" -n 3 --topo "$work/fast.topo" --timeout 300 -- "$collprof" bench \
    --sizes 4B-64KiB --iters 2 --warmup 1 --json "$work/all.json" \
    >"$work/all.out" 2>"$work/all.err"
ok $? "every collective on 3 ranks exits 0"
pycheck "9 collectives measured" "$work/all.json" \
    "sorted(d['fit']) == sorted(['allreduce', 'broadcast', 'reduce', 'reducescatter', 'allgather', 'alltoall', 'gather', 'scatter', 'sendrecv'])"
pycheck "every out-of-place result checked and right" "$work/all.json" \
    "all(p['wrong'] == 0 for p in d['points'] if not p['in_place'])"
pycheck "in place: checked and right, except all-to-all and send/recv (N/A, as nccl-tests)" "$work/all.json" \
    "all((p['wrong'] is None) == (p['op'] in ('alltoall', 'sendrecv')) and (p['wrong'] in (0, None)) for p in d['points'] if p['in_place'])"
pycheck "sizes the 3 ranks cannot split are rounded down (all-gather: multiples of 12)" "$work/all.json" \
    "all(p['size_bytes'] % 12 == 0 for p in d['points'] if p['op'] == 'allgather')"
check "N/A in the in-place #wrong of all-to-all" grep -qE '^ +[0-9]+ +[0-9]+ +float +none +-1 .* N/A$' "$work/all.out"

# One rank, no launcher: NCCL given by path.
"$collprof" bench --nccl "$b/tests/simnccl/lib/libnccl.so.2" --sizes 1KiB-4KiB \
    --iters 1 --ops allreduce,sendrecv --json "$work/one.json" >"$work/one.out" 2>&1
ok $? "one rank without a launcher (--nccl PATH)"
pycheck "one rank: ranks 1, busbw 0 for all-reduce (factor 0)" "$work/one.json" \
    "d['run']['ranks'] == 1 and all(p['ranks'] == 1 for p in d['points']) and all(p['busbw_Bps'] == 0 for p in d['points'] if p['op'] == 'allreduce')"
pycheck "one rank without a usable cudart (none, or no GPU): timer host, gpu_time_s null" "$work/one.json" \
    "d['timer'] == 'host' and all(p['gpu_time_s'] is None for p in d['points'])"
done_testing
