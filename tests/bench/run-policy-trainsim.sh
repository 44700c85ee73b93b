#!/bin/sh
# run-policy-trainsim.sh - make bench: the capture policy's log per rank per day
# (docs/capture-policy.md), extrapolated from a real train_sim run with
# short windows and intervals.  The run gives what each part of a log
# costs on this job: the bytes of a kept call, of an aggregate, of a
# write; the day is then the default policy's count of each at 1,000
# calls per second per rank on one communicator (the first 65,536 calls,
# 82.4 windows of 4,096, 1,440 intervals of the job's signatures, a write
# every 4,096 folded calls).
set -eu
b=${top_builddir:-$(pwd)}
s=${top_srcdir:-$b/..}
tmp=$(mktemp -d /tmp/cp-policy-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp=$b/analyzer/collprof

for pattern in ddp moe; do
    COLLPROF_DETAIL=first=100,window=50,every=1000,interval=1s \
        "$cp" record -q -o "$tmp/$pattern" -- "$b/tests/simnccl/simrun" -n 4 \
        --nodes 2 --timeout 300 -- "$b/tests/apps/train_sim" --pattern "$pattern" \
        --steps 400 --quiet >/dev/null 2>&1
    "$cp" dump --all "$tmp/$pattern" >"$tmp/$pattern.all"
    "$cp" dump --csv "$tmp/$pattern" >"$tmp/$pattern.csv"
    # the bytes of the aggregates' ops (templated), log by log
    for f in "$tmp/$pattern"/*.cplog; do
        python3 "$s/tests/tools/log4.py" kinds "$f"
    done >"$tmp/$pattern.kinds"
    python3 - "$pattern" "$tmp/$pattern.all" "$tmp/$pattern.csv" \
        "$tmp/$pattern.kinds" <<'EOF'
import csv, re, sys
name, allf, csvf, kindsf = sys.argv[1:5]
agg_bytes = sum(int(l.split()[5]) for l in open(kindsf)
                if l.startswith("kind 12 "))
stream = blocks = aggs = 0
intervals = set()
calls_folded = 0
for l in open(allf):
    m = re.search(r' v4 ring .*\((\d+) bytes, ', l)
    if m:
        stream += int(m.group(1))
    if ' v4-block ' in l:
        blocks += 1
    m = re.search(r'rank (\d+) .* aggregate .* calls (\d+) .* interval (\d+) ms first (\d+) ', l)
    if m:
        aggs += 1
        calls_folded += int(m.group(2))
        intervals.add((m.group(1), int(m.group(4)) // (int(m.group(3)) * 1000000)))
kept = sum(1 for _ in csv.DictReader(open(csvf)))
ranks = 4
per_agg = agg_bytes / max(aggs, 1)  # an aggregate's ops, templated
per_kept = (stream - 24 * blocks - agg_bytes) / kept
per_interval = aggs / max(len(intervals), 1)  # aggregates a rank writes per interval
day_kept = 65536 + 86400000 / 1048576 * 4096
day = {
    'kept calls': day_kept * per_kept,
    'aggregates': 1440 * per_interval * per_agg,
    'writes': (86400000 - day_kept) / 4096 * 28 + day_kept * per_kept / 4072 * 24,
}
total = sum(day.values())
print('capture policy, %s (train_sim, 4 ranks, short windows: %d calls kept, %d folded into %d aggregates, %.1f aggregates per rank and interval, %.2f bytes per aggregate, %.2f bytes per kept call): the default policy at 1,000 calls/s per rank writes %.1f MB per rank per day (kept calls %.1f, aggregates %.1f, writes %.1f; target <= 20)'
      % (name, kept, calls_folded, aggs, per_interval, per_agg, per_kept,
         total / 1e6,
         day['kept calls'] / 1e6, day['aggregates'] / 1e6, day['writes'] / 1e6))
EOF
done
