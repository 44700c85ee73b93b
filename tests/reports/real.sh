#!/bin/sh
# real.sh - report.html from real analyses: synthetic logs of gen_logs (a
# straggler, communicators on one node) and a job recorded through the shim
# on the CPU NCCL (train_sim, ddp and tp), and one recorded with NCCL's
# profiler plugin under API v7 (kernel phases, copy-engine all-gathers,
# tags).  Pages come from collprof analyze (OUT/report.html) where it writes
# them, and from collprof report on its report.json in any case.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
plugin=$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so
need "$collprof" "$gen_logs" "$simrun" "$train_sim" "$shim" "$plugin"
"$collprof" analyze --help >/dev/null 2>&1 || skip_all "collprof analyze is not built"

# page DIR NAME: DIR/report.json rendered (and DIR/report.html checked when
# analyze wrote one); the page in $work/NAME.html
# page DIR NAME [ID...]: report.json, report.html with every plot (the
# figures ID... may be a sentence: a one-node job's heatmap)
page() {
    pg_dir=$1 pg_name=$2
    shift 2
    check "$pg_name: report.json written" test -s "$pg_dir/report.json"
    if [ -e "$pg_dir/report.html" ]; then
        check "$pg_name: analyze wrote report.html with every plot" figures "$pg_dir/report.html" "$@"
    fi
    check "$pg_name: collprof report renders it" "$collprof" report "$pg_dir/report.json" -o "$work/$pg_name.html"
    check "$pg_name: every plot" figures "$work/$pg_name.html" "$@"
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
# NCCL's profiler plugin under API v7 (as tests/integration/nccl_profiler.sh
# and nccl_tags.sh run it): fsdp on 4 ranks of one node (copy-engine
# collectives are intra-node), rank 2 late by 20 ms to every call, the
# all-gathers on the copy engines, the reduce-scatters tagged 2 and named
d=$work/v7
mkdir -p "$d"
env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" LD_PRELOAD="$shim" \
    SIMNCCL_PROFILER_API=7 SIMNCCL_PROFILER_CE=1 \
    SIMNCCL_PROFILER_TAG=ReduceScatter=2 "$simrun" -n 4 --nodes 1 \
    --timeout 120 -- "$train_sim" --pattern fsdp --steps 2 --late 2:20 \
    >"$d/out" 2>&1
ok $? "record fsdp with the plugin (API v7, copy-engine all-gathers, tags), rank 2 late"
COLLPROF_TAGS=2=grads "$collprof" analyze -q "$d/logs" -o "$d/rep" \
    >/dev/null 2>"$d/analyze.err"
ok $? "analyze it"
page "$d/rep" v7 fig-heatmap
check "v7: analyze's page is collprof report's" cmp -s "$d/rep/report.html" "$work/v7.html"
# what the page is checked for is in report.json
python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
ph = r['nccl_profiler']['phases']
assert ph['instances'] > 0 and ph['last_arrivals'][0]['rank'] == 2, ph
assert any(x.get('path') == 'copy_engine' for x in r['collectives'])
assert [x['name'] for x in r['nccl_profiler']['tags']['by_tag'] if x['tag'] == 2] == ['grads']" \
    "$d/rep/report.json" 2>"$d/q.err"
ok $? "v7: report.json has the phases (rank 2 last), copy-engine rows and tag 2"
sed 's/^/# /' "$d/q.err"
# v7_has PATTERN / v7_lacks PATTERN (grep -E on the v7 page, or on FILE)
v7_has() { grep -Eq -- "$1" "${2:-$work/v7.html}"; }
v7_lacks() { ! grep -Eq -- "$1" "${2:-$work/v7.html}"; }
check "v7: the kernels' skew section" v7_has '<h3 id="kernel-skew">Arrival skew by the kernels'
check "v7: the kernels' skew in ms, its source named" \
    v7_has "^<tr><td>the kernels'</td><td>[^<]*<code>kernel_phases</code></td><td class=\"n\">[0-9.]+ ms</td>"
check "v7: beside it the hosts' of the same instances, its source named" \
    v7_has "^<tr><td>the hosts', same instances</td><td>[^<]*<code>host_clock</code></td><td class=\"n\">[0-9.]+ ms</td>"
check "v7: the sentence that says how to read it" v7_has 'the rank whose kernel waited least came last'
check "v7: the world communicator's own kernel skew, its instances counted, its source named" \
    v7_has "The kernels' own skew, over [0-9]+ of its instances: median [0-9.]+ ms, 90th percentile [0-9.]+ ms, largest [0-9.]+ ms \\([^)]*<code>kernel_phases</code>\\)"
grep -A1 -F '<th class="n">last by the kernels</th>' "$work/v7.html" | sed -n 2p >"$d/first"
check "v7: rank 2 first of the kernels' last arrivals" v7_has '^<tr><td class="n">2</td><td>[^<]+</td>' "$d/first"
check "v7: the copy-engine all-gathers marked" v7_has '<td>allgather <span class="ce"'
check "v7: the note on the intra-node model" v7_has 'judged on the intra-node model whatever'
check "v7: the reduce-scatters' tag with its name" v7_has '<td class="n">2</td><td>grads</td>'
check "gen: no phases, no kernels' skew section" v7_lacks 'kernel-skew' "$work/gen.html"
check "gen: no copy-engine mark" v7_lacks 'class="ce"' "$work/gen.html"
done_testing
