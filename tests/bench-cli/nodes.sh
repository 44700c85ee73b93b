#!/bin/sh
# nodes.sh - collprof bench on 4 simulated ranks on 2 nodes: the world's
# all-reduce is inter-node, and send/recv between two ranks of one node and
# between two nodes separate the link classes; both classes' alpha and
# bandwidth within 15 % of the topology file's, in the written profile.
# Latencies of milliseconds keep the loaded cores' wake-up delays small
# against alpha, and bandwidths of tens of MB/s keep the ranks' copies
# (CPU work) hidden behind the simulated wire when other jobs load the
# cores; the fit takes the median of at least three timed calls per size.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
need "$collprof" "$simrun"
timing_lock

cat >"$work/two.topo" <<'EOF'
nodes 2
intra latency=4ms bandwidth=20MB/s
inter latency=8ms bandwidth=10MB/s
EOF
"$simrun" -n 4 --topo "$work/two.topo" --timeout 300 -- "$collprof" bench \
    --ops allreduce --sizes 8KiB-1MiB --warmup 1 --point-time 100ms \
    --json "$work/n.json" --write-profile "$work/n.prof" >"$work/out" 2>"$work/err"
ok $? "bench on 4 ranks on 2 nodes exits 0"
check "nothing on stderr" test ! -s "$work/err"
sed -n '/calibration/,$p' "$work/out" | sed 's/^/# /'
pycheck "4 ranks on 2 nodes; pairs 0-1 (one node) and 0-2 (two)" "$work/n.json" \
    "d['run']['ranks'] == 4 and d['run']['nodes'] == 2 and d['run']['intra_pair'] == [0, 1] and d['run']['inter_pair'] == [0, 2]"
pycheck "the world's all-reduce is inter-node; the pairs' send/recv intra and inter" "$work/n.json" \
    "[(s['op'], s['ranks'], s['link'], s['pair']) for s in d['series']] == [('allreduce', 4, 'inter', False), ('sendrecv', 2, 'intra', True), ('sendrecv', 2, 'inter', True)]"
check "the pair sections name their ranks" grep -q '^# collprof bench: op sendrecv ranks 2 nodes 2 link inter pair 0 2$' "$work/out"
pycheck "every point right" "$work/n.json" "d['wrong_total'] == 0 and all(p['wrong'] == 0 for p in d['points'] if not p['in_place'])"
for c in "intra 4e-3 20e6" "inter 8e-3 10e6"; do
    set -- $c
    pycheck "$1: alpha within 15% of the file's ($2 s)" "$work/n.json" \
        "abs(d['calibration']['links']['$1']['alpha_s'] / $2 - 1) <= 0.15"
    pycheck "$1: bandwidth within 15% of the file's ($3 B/s)" "$work/n.json" \
        "abs(d['calibration']['links']['$1']['bandwidth_Bps'] / $3 - 1) <= 0.15"
    pycheck "$1: from the send/recv pair" "$work/n.json" \
        "d['calibration']['links']['$1']['source'] == 'sendrecv'"
    check "$1: in the profile" grep -qE "^$1 alpha=[0-9.]+us bandwidth=[0-9.]+MB/s\$" "$work/n.prof"
done
pycheck "the all-reduce that mixes both links is reported as mixed" "$work/n.json" \
    "'mixed' in d['calibration']['collectives']['inter']['from']"
done_testing
