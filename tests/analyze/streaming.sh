#!/bin/sh
# streaming.sh - memory does not grow with the number of calls: the peak RSS
# of collprof analyze on 2M calls is within 1.5x of that on 200k calls (the
# same job, ten times as many steps).  A ratio, not a time.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
cp="$b/analyzer/collprof"
gen="$b/tests/tools/gen_logs"
rss="$b/tests/analyze/maxrss"
[ -x "$cp" ] && [ -x "$gen" ] && [ -x "$rss" ] || skip_all "not built"
t=$(mktemp -d /tmp/cp-streaming-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM

"$gen" -o "$t/small" --pattern mixed --ranks 16 --ranks-per-node 4 --calls 12500
ok $? "200k calls generated"
"$gen" -o "$t/large" --pattern mixed --ranks 16 --ranks-per-node 4 --calls 125000
ok $? "2M calls generated"
"$rss" "$cp" analyze "$t/small" -o "$t/out-small" -q 2>"$t/small.rss"
ok $? "analyze 200k calls"
"$rss" "$cp" analyze "$t/large" -o "$t/out-large" -q 2>"$t/large.rss"
ok $? "analyze 2M calls"
small=$(sed -n 's/^maxrss_kib //p' "$t/small.rss")
large=$(sed -n 's/^maxrss_kib //p' "$t/large.rss")
calls_small=$(sed -n 's/.*"calls": \([0-9]*\),.*/\1/p' "$t/out-small/report.json" | head -n 1)
calls_large=$(sed -n 's/.*"calls": \([0-9]*\),.*/\1/p' "$t/out-large/report.json" | head -n 1)
diag "calls $calls_small -> $calls_large, peak RSS $small KiB -> $large KiB"
ok $([ "$calls_large" -ge $((9 * calls_small)) ] && echo 0 || echo 1) \
    "ten times the calls"
ok $(awk -v a="$small" -v b="$large" 'BEGIN { exit !(b < 1.5 * a) }'; echo $?) \
    "peak RSS ratio below 1.5"
ok $([ "$large" -lt 262144 ] && echo 0 || echo 1) "peak RSS below 256 MiB"
done_testing
