#!/bin/sh
# run-longjob.sh - make bench: the step-end analysis of a long job under
# the capture policy, through the partials path as the plugin runs it: a
# generated job (gen_logs --duration, default 24 h of 1,024 ranks on 128
# nodes at 1,000 calls/s per rank, on a fast fabric so that a 1,024-rank
# step fits the rate), each node's `collprof reduce` run one after another
# and timed, then `collprof analyze` of the 128 partials, timed, with its
# peak memory.  CP_BENCH_LONGJOB="RANKS NODES_OF DURATION" for a smaller
# one (e.g. "64 8 2h"); CP_BENCH_LONGJOB_FAULT: gen_logs arguments of a
# fault (e.g. "--straggler 5=300us:from=12h"), whose long-run finding
# makes the merge analyse the detail since then once more.
set -eu
b=${top_builddir:?}
set -- ${CP_BENCH_LONGJOB:-1024 8 24h}
ranks=$1 per=$2 dur=$3
gen=$b/tests/tools/gen_logs
cp=$b/analyzer/collprof
tmp=$(mktemp -d /tmp/cp-longjob-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "== a long job's step-end analysis: $dur of $ranks ranks, $per per node, 1000 calls/s per rank, default capture policy${CP_BENCH_LONGJOB_FAULT:+, fault: $CP_BENCH_LONGJOB_FAULT}"
t0=$(date +%s.%N)
"$gen" -o "$tmp/logs" --ranks "$ranks" --ranks-per-node "$per" --pattern uniform \
    --rate 1000 --duration "$dur" --intra-alpha 100ns --inter-alpha 200ns \
    --intra-bw 200GB/s --inter-bw 50GB/s --gap 1us \
    ${CP_BENCH_LONGJOB_FAULT:-} >/dev/null
t1=$(date +%s.%N)
bytes=$(du -sb "$tmp/logs" | cut -f1)
awk -v s="$t0" -v e="$t1" -v by="$bytes" -v r="$ranks" 'BEGIN {
    printf "generated in %.0f s: %.2f GB of logs, %.1f MB per rank\n", e - s, by / 1e9, by / r / 1e6 }'
# each node's reduction, one after another (CPU seconds of each)
nodes=$(ls "$tmp/logs" | sed -n 's/^\(n[0-9]*\)\..*\.cplog$/\1/p' | sort -u)
: >"$tmp/reduce.times"
for n in $nodes; do
    /usr/bin/time -f "%U %S %M" -o "$tmp/one" "$cp" reduce -q --node "$n" "$tmp/logs"
    cat "$tmp/one" >>"$tmp/reduce.times"
done
mkdir "$tmp/parts"
mv "$tmp/logs"/*.cppart "$tmp/parts/"
pbytes=$(du -sb "$tmp/parts" | cut -f1)
sort -n "$tmp/reduce.times" | awk -v pb="$pbytes" '{ c = $1 + $2; t += c; if (c > mx) mx = c; if ($3 > rss) rss = $3; n++ }
    END { printf "reduce: %d nodes, CPU per node max %.1f s, mean %.1f s (target <= 60 s), peak RSS %.0f MiB; partials %.2f GB\n",
          n, mx, t / n, rss / 1024, pb / 1e9 }'
/usr/bin/time -f "%e %U %S %M" -o "$tmp/merge" "$cp" analyze -q "$tmp/parts" -o "$tmp/report" >/dev/null 2>&1 || true
read wall user sys rss <"$tmp/merge"
awk -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" 'BEGIN {
    printf "merge of the partials (collprof analyze): %.0f s wall, %.0f s CPU (target <= 300 s), peak RSS %.0f MiB (target < 1024)\n", w, u + s, m / 1024 }'
python3 - "$tmp/report/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
lr = r.get('long_run') or {}
print('its report: %d ranks, %d kept calls, %d folded, %d intervals, %d input problems, findings: %s'
      % (r['job']['processes'], r['summary']['calls'], lr.get('folded_calls', 0),
         len(lr.get('intervals', [])), len(r['inputs'].get('problems', [])),
         ', '.join(f['kind'] for f in r['findings']) or 'none'))
EOF
