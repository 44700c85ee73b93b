#!/bin/sh
# run-policy.sh - make bench: what a week-long job costs on disk under the
# capture policy (issue #33, target <= 20 MB per rank per day at 1,000
# calls per second per rank; cp_logfmt.h, "capture policy").
#
# gen_logs --duration 7d writes the job directly in the folded form
# (detail windows as calls, CP_LOG4_FOLD runs, an aggregate per signature
# and interval: tests/tools/gen_logs.c) with the default policy
# (CP_POLICY_*_DEFAULT): 2 ranks on 2 nodes, pattern ddp-small (100 calls
# a step, 87 signatures), 1,000 calls/s per rank.  Beside it the same job
# with detail=all, extrapolated: the job's calls times format 4's bytes
# per call, measured as what the same generator's log grows by between 10
# and 20 minutes of the same job with a policy that keeps every call
# (first=2^32-1), divided by the calls between.
set -eu
b=${top_builddir:?}
gen="$b/tests/tools/gen_logs"
rate=${CP_BENCH_POLICY_RATE:-1000}
[ -x "$gen" ] || {
    echo "== capture policy: gen_logs not built, skipped"
    exit 0
}
tmp=$(mktemp -d /tmp/cp-policy-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "== capture policy: bytes on disk per rank per day, a generated week at $rate calls/s per rank (gen_logs --duration)"
job="--ranks 2 --ranks-per-node 1 --pattern ddp-small --rate $rate --seed 3"
t0=$(date +%s.%N)
"$gen" -o "$tmp/week" $job --duration 7d --truth "$tmp/week.json" >/dev/null
t1=$(date +%s.%N)
"$gen" -o "$tmp/all10" $job --duration 10m --policy first=4294967295 \
    --truth "$tmp/all10.json" >/dev/null
"$gen" -o "$tmp/all20" $job --duration 20m --policy first=4294967295 \
    --truth "$tmp/all20.json" >/dev/null
python3 - "$tmp" "$t0" "$t1" <<'EOF'
import json, os, sys
t, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def size(d):
    fs = sorted(os.listdir(os.path.join(t, d)))
    return [os.path.getsize(os.path.join(t, d, f)) for f in fs]
w = json.load(open(t + "/week.json"))
ranks = w["ranks"]
days = w["duration_s"] / 86400
week = size("week")
per_day = max(week) / days
calls = w["calls_per_rank_max"]
# detail=all: format 4's bytes per call between 10 and 20 minutes
a10, a20 = sum(size("all10")), sum(size("all20"))
c20 = json.load(open(t + "/all20.json"))["calls_per_rank_max"] * ranks
c10 = json.load(open(t + "/all10.json"))["calls_per_rank_max"] * ranks
bpc = (a20 - a10) / (c20 - c10)
print("policy bytes/rank/day: %.2f MB (target <= 20 MB): %d ranks, %.0f "
      "days, %d calls per rank (%d in detail, %d folded into %d aggregates "
      "over intervals %d..%d), the largest log %d bytes; written in %.2f s"
      % (per_day / 1e6, ranks, days, calls, w["calls_detail"] // ranks,
         w["calls_folded"] // ranks, w["aggregates"] // ranks,
         w["first_interval"], w["last_interval"], max(week), t1 - t0))
aggs = w["aggregates"] / ranks / days
det = w["calls_detail"] / ranks / days
# the bytes of the aggregates' ops (templated records and their
# templates), as gen_logs' encoder wrote them
bpa = w["aggregate_bytes"] / max(w["aggregates"], 1)
print("policy log per rank per day: %.0f aggregates x %.2f bytes (templated "
      "records, 65 raw) = %.2f MB, %.0f detail calls x %.2f bytes = %.2f "
      "MB, the rest (folded runs, blocks, sync points, header, ring) "
      "%.2f MB" % (aggs, bpa, aggs * bpa / 1e6, det, bpc, det * bpc / 1e6,
                   (per_day - aggs * bpa - det * bpc) / 1e6))
print("detail=all, the same job extrapolated: %.0f MB/rank/day (%d calls "
      "per rank per day x %.2f bytes per call of format 4, measured over "
      "the calls between 10 and 20 minutes of it): the policy's log is "
      "%.1fx smaller"
      % (calls / days * bpc / 1e6, calls / days, bpc,
         calls / days * bpc / per_day))
EOF
