#!/bin/sh
# nccl_profiler.sh - libcollprof-nccl-profiler.so loaded by simnccl's
# profiler-plugin loader (NCCL_PROFILER_PLUGIN), for each API version NCCL
# asks for: the log it writes (calls, algorithm/protocol, kernel intervals,
# by default a link record per call and peer sent to; proxy operations and
# steps per peer when asked), the step modes and budget, log formats 4 and
# 3, graph replays against the shim, and NCCL's fallbacks (an API too old,
# no plugin).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
plugin=$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so
need "$collprof" "$simrun" "$train_sim" "$shim" "$plugin"
command -v python3 >/dev/null || skip_all "python3 needed"

# run NAME ENV... -- ARGS: train_sim ddp on 4 ranks over 4 nodes with the
# plugin, logs in $work/NAME/logs
run() {
    name=$1; shift
    d=$work/$name
    mkdir -p "$d"
    env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" "$@" \
        "$simrun" -n 4 --nodes 4 --timeout 120 -- "$train_sim" --pattern ddp \
        --steps 3 >"$d/out" 2>"$d/err"
}
summary() { "$collprof" dump --summary "$work/$1/logs" 2>&1; }
# pycheck NAME FILE EXPR: one point, passing when EXPR (d: the JSON) holds
pycheck() {
    name=$1; shift
    out=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>&1)
    if [ "$out" = True ]; then ok 0 "$name"; else ok 1 "$name"; diag "  got: $out"; fi
}

"$simrun" -n 4 --nodes 4 --timeout 120 -- "$train_sim" --pattern ddp \
    --steps 3 >"$work/plain.out" 2>&1
ok $? "ddp without a plugin exits 0"

links="proxy sends per call and peer; 0 step records over budget, 0 events not recorded"
every="every proxy step; 0 step records over budget, 0 events not recorded"
# count NAME WORD: records of kind WORD (link, proxy, step) in NAME's logs
count() { "$collprof" dump --all "$work/$1/logs" | awk -v k="$2" '$5 == k' | wc -l; }
for api in 7 6 5 4 3; do
    run v$api SIMNCCL_PROFILER_API=$api
    ok $? "v$api: ddp with the plugin exits 0"
    check "  v$api: same output as without it" cmp -s "$work/v$api/out" "$work/plain.out"
    check "  v$api: nothing on stderr" test ! -s "$work/v$api/err"
    n=$(ls "$work/v$api/logs"/*.nccl.cplog 2>/dev/null | wc -l)
    ok $([ "$n" -eq 4 ]; echo $?) "  v$api: 4 plugin logs <node>.<pid>.nccl.cplog ($n)"
    n=$(summary v$api | grep -c "nccl-profiler timer kernel_ch: 87 calls, 1 communicators (plugin api v$api, $links)")
    ok $([ "$n" -eq 4 ]; echo $?) "  v$api: every log: the plugin's, 87 calls, api v$api, links by default, nothing lost ($n)"
    [ "$n" -eq 4 ] || summary v$api | sed 's/^/#   /'
    # a send per call and sender: 84 all-reduces x 4, 2 broadcasts x 3, 1
    # reduce x 3; no operation or step of its own
    l=$(count v$api link); p=$(count v$api proxy); t=$(count v$api step)
    ok $([ "$l" -eq 345 ] && [ "$p" -eq 0 ] && [ "$t" -eq 0 ]; echo $?) \
        "  v$api: 345 link records, no proxy or step record (links $l, proxy $p, step $t)"
    "$collprof" dump --all "$work/v$api/logs" >"$work/v$api/dump"
    python3 "$s/tests/integration/plugin_check.py" "$work/v$api/dump" 4 \
        "$work/v$api/sends" >"$work/v$api/check.tap"
    ok $? "  v$api: calls, nccl, gpu and link records check out"
    grep '^not ok' "$work/v$api/check.tap" | sed 's/^/#   /'

    run v${api}all SIMNCCL_PROFILER_API=$api COLLPROF_PLUGIN_STEPS=all
    ok $? "v$api, COLLPROF_PLUGIN_STEPS=all: exits 0"
    check "  same output as without the plugin" cmp -s "$work/v${api}all/out" "$work/plain.out"
    n=$(summary v${api}all | grep -c "nccl-profiler timer kernel_ch: 87 calls, 1 communicators (plugin api v$api, $every)")
    ok $([ "$n" -eq 4 ]; echo $?) "  every log: 87 calls, all steps, nothing lost ($n)"
    l=$(count v${api}all link); p=$(count v${api}all proxy)
    ok $([ "$l" -eq 0 ] && [ "$p" -eq 690 ]; echo $?) "  690 proxy operations (each send and receive), no link record (proxy $p, links $l)"
    "$collprof" dump --all "$work/v${api}all/logs" >"$work/v${api}all/dump"
    python3 "$s/tests/integration/plugin_check.py" "$work/v${api}all/dump" 4 \
        "$work/v${api}all/sends" >"$work/v${api}all/check.tap"
    ok $? "  calls, nccl, gpu, proxy and step records check out"
    grep '^not ok' "$work/v${api}all/check.tap" | sed 's/^/#   /'
    ok $([ -s "$work/v$api/sends" ] && cmp -s "$work/v$api/sends" "$work/v${api}all/sends"; echo $?) \
        "  the link records hold the bytes of the proxy sends, per call and peer"
done

# v7: the user tag and kernel variant of every call (kind 9), the compute
# phase of every kernel channel (kind 10), with a duration
run v7tag SIMNCCL_PROFILER_API=7 SIMNCCL_PROFILER_TAG=42
ok $? "v7 with user tag 42: exits 0"
"$collprof" dump --all "$work/v7tag/logs" >"$work/v7tag/dump"
n=$(grep -c " tag slot .* user_tag 42 flags 0x0 kernel 'simnccl_ring_simple'$" "$work/v7tag/dump")
ok $([ "$n" -eq 348 ]; echo $?) "  one tag record per call: user tag 42, the kernel variant ($n of 4 x 87)"
n=$(grep " phase slot " "$work/v7tag/dump" | grep " phase 1 flags 0x0 " | grep -c " dur [0-9.]* us$")
k=$(grep " nccl slot " "$work/v7tag/dump" | awk '{ s += $27 } END { print s }')
ok $([ "$n" -gt 0 ] && [ "$n" -eq "$k" ]; echo $?) "  one timed compute phase per kernel channel ($n, channels $k)"
n=$(summary v7tag | grep -c "87 calls, 1 communicators (plugin api v7, $links)")
ok $([ "$n" -eq 4 ]; echo $?) "  nothing lost ($n of 4)"
n=$(grep " phase slot " "$work/v7tag/dump" | grep " phase 0 flags 0x0 " | grep -c " dur [0-9.]* us$")
ok $([ "$n" -gt 0 ] && [ "$n" -eq "$k" ]; echo $?) "  one timed initial-sync phase per kernel channel ($n, channels $k)"

# The kernels' own skew (initial-sync phases, one device clock each) and
# the hosts' (kernel starts on CLOCK_REALTIME, offset-corrected) of the
# same instances: rank 2 comes 20 ms late to every call, and node n2's wall
# clock runs 30 ms ahead, which the host side must correct and the phases
# never see.  Tolerance: the two agree within 2 ms at the median and 5 ms
# at the 90th percentile of the instances (a loaded host's scheduling);
# the kernels' median skew is the 20 ms delay within 15-40 ms.
d=$work/v7late
mkdir -p "$d"
printf 'clock n2 offset=30ms\n' >"$d/topo"
env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" SIMNCCL_PROFILER_API=7 \
    "$simrun" -n 4 --nodes 4 --topo "$d/topo" --timeout 120 -- "$train_sim" \
    --pattern ddp --steps 3 --late 2:20 >"$d/out" 2>"$d/err"
ok $? "v7, rank 2 late by 20 ms, n2's clock 30 ms ahead: exits 0"
"$collprof" analyze "$d/logs" -o "$d/rep" >/dev/null 2>"$d/analyze.err"
ok $? "  analyzed"
ph="d['nccl_profiler']['phases']"
pycheck "  every call's initial sync read (4 x 87), none damaged; 87 instances" \
    "$d/rep/report.json" \
    "$ph['initial_sync_records'] == 348 and $ph['damaged_records'] == 0 and $ph['instances'] == 87"
pycheck "  each skew says its source" "$d/rep/report.json" \
    "$ph['skew']['source'] == 'kernel_phases' and $ph['host_skew']['source'] == 'host_clock' and all(c['skew']['source'] == 'host_clock' for c in d['communicators'])"
pycheck "  the kernels' median skew is rank 2's 20 ms" "$d/rep/report.json" \
    "0.015 <= $ph['skew']['p50_s'] <= 0.040"
pycheck "  per communicator too: its kernel_skew, of its 87 instances, from the phases, rank 2's 20 ms at the median" \
    "$d/rep/report.json" \
    "[(c['kernel_skew']['source'], c['kernel_skew']['instances'], 0.015 <= c['kernel_skew']['p50_s'] <= 0.040, c['kernel_skew']['p50_s'] <= c['kernel_skew']['p90_s'] <= c['kernel_skew']['max_s']) for c in d['communicators']] == [('kernel_phases', 87, True, True)]"
pycheck "  the kernels' skew agrees with the corrected hosts' (median within 2 ms, 90th percentile within 5 ms)" \
    "$d/rep/report.json" \
    "$ph['difference']['p50_s'] <= 0.002 and $ph['difference']['p90_s'] <= 0.005"
pycheck "  rank 2 came last most often by the kernels' phases, by about its 20 ms" \
    "$d/rep/report.json" \
    "$ph['last_arrivals'][0]['rank'] == 2 and $ph['last_arrivals'][0]['last_arrivals'] >= 80 and 0.015 <= $ph['last_arrivals'][0]['late_s'] / $ph['last_arrivals'][0]['last_arrivals'] <= 0.040"
pycheck "  the straggler finding names rank 2 and says the kernels agree, read on the device clocks" \
    "$d/rep/report.json" \
    "[(f['ranks'], f['evidence']['kernel_agrees'], f['evidence']['kernel_last_rank'], f['evidence']['kernel_source'], f['evidence']['sure'], 'agree' in f['message']) for f in d['findings'] if f['kind'] == 'straggler'] == [([2], True, 2, 'kernel_phases', True, True)] and 'info' not in $ph"
python3 -c "import json; print('#  ', json.dumps(json.load(open('$d/rep/report.json'))['nccl_profiler']['phases']))" 2>&1 | head -1
"$collprof" analyze "$work/v6/logs" -o "$work/v6/rep" >/dev/null 2>&1
pycheck "  v6: no initial-sync phase, and nccl_profiler.phases says why" \
    "$work/v6/rep/report.json" \
    "$ph['instances'] == 0 and 'API v7' in $ph['why'] and 'skew' not in $ph and not any('kernel_skew' in c for c in d['communicators'])"
# with the shim in the same processes, the plugin's logs are evidence that
# the main pass does not read: the NCCL view tells the phases' pass which
# of them hold phases
d=$work/v7shim
mkdir -p "$d"
env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" LD_PRELOAD="$shim" \
    SIMNCCL_PROFILER_API=7 "$simrun" -n 4 --nodes 2 --timeout 120 -- "$train_sim" \
    --pattern ddp --steps 1 --quiet >"$d/out" 2>"$d/err"
ok $? "v7 with the shim: exits 0"
"$collprof" analyze "$d/logs" -o "$d/rep" >/dev/null 2>&1
ok $? "  analyzed"
pycheck "  the phases of the plugin's logs beside the shim's are read: every call's (4 x 31), 31 instances" \
    "$d/rep/report.json" \
    "$ph['initial_sync_records'] == 124 and $ph['damaged_records'] == 0 and $ph['instances'] == 31"
pycheck "  ... and given to the shim's communicator, whose id is not NCCL's commHash (found by its members): kernel_skew of its 31 instances" \
    "$d/rep/report.json" \
    "[(c['kernel_skew']['instances'], c['kernel_skew']['source']) for c in d['communicators']] == [(31, 'kernel_phases')]"

# What NCCL sends that was not asked for: a mask widened after init (as
# NCCL's RAS may), events saying rank 0 on every rank, GPU times of 0.
run widened SIMNCCL_PROFILER_API=7 SIMNCCL_PROFILER_MASK=0xffff
ok $? "a mask widened to every event after init: exits 0"
check "  same output as without the plugin" cmp -s "$work/widened/out" "$work/plain.out"
n=$(summary widened | grep -c "87 calls, 1 communicators (plugin api v7, $links)")
ok $([ "$n" -eq 4 ]; echo $?) "  the same calls, nothing lost ($n of 4)"
ranks() { "$collprof" dump "$work/$1/logs"/*.nccl.cplog | sed -n 's/^rank \([0-9]*\) .* nranks [0-9]* rank \([0-9]*\) .*/\1 \2/p' | sort | uniq -c; }
run rank0 SIMNCCL_PROFILER_API=5 SIMNCCL_PROFILER_RANK0=1
ok $? "every event saying rank 0: exits 0"
ranks v5 >"$work/rank0/want"
ranks rank0 >"$work/rank0/got"
ok $([ -s "$work/rank0/got" ] && cmp -s "$work/rank0/want" "$work/rank0/got"; echo $?) "  every call keeps the rank init gave"
run damaged SIMNCCL_PROFILER_API=5 SIMNCCL_PROFILER_DAMAGE=1
ok $? "kernel channels starting at GPU time 0: exits 0"
"$collprof" dump --all "$work/damaged/logs" >"$work/damaged/dump"
n=$(grep " nccl slot " "$work/damaged/dump" | grep -vc " flags 0x[0-9a-f]*[cdef] ")
ok $([ "$n" -eq 0 ]; echo $?) "  every call flagged damaged, no kernel interval ($n not)"
n=$(grep -c " gpu slot " "$work/damaged/dump")
ok $([ "$n" -eq 0 ]; echo $?) "  no duration from a damaged time ($n kernel intervals)"
n=$(summary damaged | grep -c " 87 calls")
ok $([ "$n" -eq 4 ]; echo $?) "  the calls themselves kept, timed by the host ($n of 4)"

# copy-engine collectives (v6): NCCL copies an all-gather over NVLink,
# within a node only.  On one node the all-gathers of an FSDP run are
# reported as such, each a call timed from its start to its stop, flagged
# CE, no kernel; across nodes none is, each a kernel's.
# ce NAME NODES: the FSDP run on 4 ranks over NODES nodes, CE asked for
ce() {
    d=$work/$1
    mkdir -p "$d"
    env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" SIMNCCL_PROFILER_API=6 \
        SIMNCCL_PROFILER_CE=1 "$simrun" -n 4 --nodes "$2" --timeout 120 -- "$train_sim" \
        --pattern fsdp --steps 2 >"$d/out" 2>"$d/err"
}
ce ce 1
ok $? "v6, all-gathers as copy-engine collectives, 4 ranks on one node: exits 0"
"$collprof" dump --all "$d/logs" >"$d/dump"
ag=$(grep -ci " seq [0-9]* allgather .* dur " "$d/dump")
n=$(grep " nccl slot " "$d/dump" | grep -c " flags 0x1[0-9a-f] ")
ok $([ "$ag" -gt 0 ] && [ "$n" -eq "$ag" ]; echo $?) "  every all-gather recorded as a copy-engine collective ($n of $ag)"
n=$(grep " nccl slot " "$d/dump" | grep " flags 0x1[0-9a-f] " | grep -vc " flags 0x1[4567cdef] ")
ok $([ "$n" -eq 0 ]; echo $?) "  none with a kernel interval ($n)"
n=$("$collprof" dump --summary "$d/logs" 2>&1 | grep -c "0 events not recorded")
ok $([ "$n" -eq 4 ]; echo $?) "  nothing lost ($n of 4)"
# analysed as a kind of their own: rows of their own, whose path is a copy
# within the node (judged on the intra-node model), apart from the same
# communicator's other collectives
"$collprof" analyze "$d/logs" -o "$d/rep" >/dev/null 2>&1
ok $? "  analyzed"
pycheck "  the all-gathers' rows are copy-engine rows on the intra-node path" \
    "$d/rep/report.json" \
    "[r for r in d['collectives'] if r['op'] == 'allgather'] != [] and all(r.get('path') == 'copy_engine' and r['link'] == 'intra' for r in d['collectives'] if r['op'] == 'allgather')"
pycheck "  the other collectives' rows have no path of their own" \
    "$d/rep/report.json" \
    "[r for r in d['collectives'] if r['op'] not in ('allgather', 'sendrecv')] != [] and all('path' not in r for r in d['collectives'] if r['op'] not in ('allgather', 'sendrecv'))"
pycheck "  their calls in the slowest instances say so too" "$d/rep/report.json" \
    "all((s['op'] == 'allgather') == (s.get('path') == 'copy_engine') for s in d['slowest']['by_own_time'])"
ce cecross 4
ok $? "  the same on 4 nodes: exits 0"
"$collprof" dump --all "$d/logs" >"$d/dump"
ag=$(grep -ci " seq [0-9]* allgather .* dur " "$d/dump")
n=$(grep " nccl slot " "$d/dump" | grep -c " flags 0x1[0-9a-f] ")
ok $([ "$ag" -gt 0 ] && [ "$n" -eq 0 ]; echo $?) "  no all-gather across nodes recorded as a copy-engine collective ($n of $ag)"
n=$(grep " nccl slot " "$d/dump" | grep -c " flags 0x[4-7c-f] ")
k=$(grep -c " nccl slot " "$d/dump")
ok $([ "$k" -gt 0 ] && [ "$n" -eq 0 ]; echo $?) "  every call with its kernel interval ($n of $k without)"
"$collprof" analyze "$d/logs" -o "$d/rep" >/dev/null 2>&1
ok $? "  analyzed"
pycheck "  the all-gathers' rows are kernel rows on the inter-node link, no row a copy engine's" \
    "$d/rep/report.json" \
    "[r for r in d['collectives'] if r['op'] == 'allgather'] != [] and all(r['link'] == 'inter' for r in d['collectives'] if r['op'] == 'allgather') and all('path' not in r for r in d['collectives']) and all('path' not in s for s in d['slowest']['by_own_time'])"

# COLLPROF_NEXT_PROFILER: a recording v5 plugin behind collprof's (NCCL
# speaking v7 to collprof) gets every event it gets as NCCL's own plugin,
# each exactly once, each stopped, its parents its own handles.
rec=$b/tests/integration/.libs/librecprof.so
tally() { cat "$1"/rec.* | awk '$1 == "start" || $1 == "stop" { n[$1 " " $2] += $3 } END { for (k in n) print k, n[k] }' | sort; }
mkdir -p "$work/recdirect" "$work/recchain"
run direct RECPROF_DIR="$work/recdirect" SIMNCCL_PROFILER_API=5 NCCL_PROFILER_PLUGIN="$rec"
ok $? "the recording plugin alone (v5): exits 0"
run chain RECPROF_DIR="$work/recchain" SIMNCCL_PROFILER_API=7 COLLPROF_NEXT_PROFILER="$rec"
ok $? "collprof's plugin (v7) with the recording plugin behind it: exits 0"
check "  same output as without a plugin" cmp -s "$work/chain/out" "$work/plain.out"
check "  nothing on stderr" test ! -s "$work/chain/err"
tally "$work/recdirect" >"$work/recdirect.tally"
tally "$work/recchain" >"$work/recchain.tally"
sed 's/^/#   /' "$work/recchain.tally"
ok $([ -s "$work/recdirect.tally" ] && cmp -s "$work/recdirect.tally" "$work/recchain.tally"; echo $?) \
    "  it got the same starts and stops of every event type as alone"
n=$(cat "$work/recchain"/rec.* | awk '$1 == "errors" || $1 == "open" { s += $2 } END { print s + 0 }')
ok $([ "$n" -eq 0 ]; echo $?) "  no stop twice, no unknown handle or parent, none left open ($n)"
n=$(ls "$work/recchain"/rec.* | wc -l)
ok $([ "$n" -eq 4 ]; echo $?) "  in each of the 4 processes ($n)"
n=$(summary chain | grep -c "87 calls, 1 communicators (plugin api v7, $links)")
ok $([ "$n" -eq 4 ]; echo $?) "  collprof's own logs complete ($n of 4)"

# the step modes: 1 as all, none and 0, then 10 step records per process
run one COLLPROF_PLUGIN_STEPS=1
ok $? "COLLPROF_PLUGIN_STEPS=1: exits 0"
n=$(summary one | grep -c "$every")
t=$(count one step)
ok $([ "$n" -eq 4 ] && [ "$t" -gt 0 ] && [ "$(count one link)" -eq 0 ]; echo $?) "  every step, as all ($n of 4, $t step records)"
for none in none 0; do
    run none$none COLLPROF_PLUGIN_STEPS=$none
    ok $? "COLLPROF_PLUGIN_STEPS=$none: exits 0"
    n=$(summary none$none | grep -c "proxy aggregates only; 0 step records over budget")
    ok $([ "$n" -eq 4 ]; echo $?) "  the headers say: aggregates only, none over a budget ($n)"
    t=$(count none$none step); l=$(count none$none link); p=$(count none$none proxy)
    ok $([ "$t" -eq 0 ] && [ "$l" -eq 0 ] && [ "$p" -eq 690 ]; echo $?) "  proxy records only (proxy $p, step $t, link $l)"
done
a=$("$collprof" dump --all "$work/v5all/logs" | awk '$5 == "proxy" { s += $18 } END { print s }')
c=$("$collprof" dump --all "$work/nonenone/logs" | awk '$5 == "proxy" { s += $18 } END { print s }')
ok $([ "$a" = "$c" ] && [ "$a" -gt 0 ]; echo $?) "  the proxy aggregates hold the same bytes ($c, with steps $a)"
c=$("$collprof" dump --all "$work/v5/logs" | awk '$5 == "link" { s += $18 } END { print s }')
a=$("$collprof" dump --all "$work/v5all/logs" | awk '$5 == "proxy" && $10 == "send" { s += $18 } END { print s }')
ok $([ "$a" = "$c" ] && [ "$a" -gt 0 ]; echo $?) "  and the link records the same bytes as the sends ($c, with steps $a)"
total=$("$collprof" dump --all "$work/v5all/logs/$(ls "$work/v5all/logs" | head -n 1)" | grep -c " step proxy-slot ")
run budget COLLPROF_PLUGIN_STEPS=10
f=$work/budget/logs/$(ls "$work/budget/logs" | head -n 1)
n=$("$collprof" dump --all "$f" | grep -c " step proxy-slot ")
ok $([ "$n" -eq 10 ]; echo $?) "COLLPROF_PLUGIN_STEPS=10: 10 step records ($n)"
summary budget | head -n 1 | grep -q "proxy steps until the budget; $((total - 10)) step records over budget"
ok $? "  the header says: until the budget, $((total - 10)) over it"
run bad COLLPROF_PLUGIN_STEPS=lots
ok $? "COLLPROF_PLUGIN_STEPS=lots: exits 0"
n=$(grep -c "^collprof: COLLPROF_PLUGIN_STEPS must be links, all (or 1), none (or 0) or a number of step records from 2; using the default (links)$" "$work/bad/err")
ok $([ "$n" -eq 4 ]; echo $?) "  one line from each of the 4 processes, naming the forms and the default ($n)"
n=$(summary bad | grep -c "$links")
ok $([ "$n" -eq 4 ]; echo $?) "  and the default: links ($n of 4)"

run badfmt COLLPROF_LOG_FORMAT=5
ok $? "COLLPROF_LOG_FORMAT=5: exits 0"
n=$(grep -c "^collprof: COLLPROF_LOG_FORMAT='5' is not 3 or 4; using 4; the NCCL profiler plugin goes on$" "$work/badfmt/err")
ok $([ "$n" -eq 4 ]; echo $?) "  one line from each of the 4 processes, naming the setting and the format used ($n)"
n=$("$collprof" dump --all "$work/badfmt/logs" | grep -c " v4 ring ")
ok $([ "$n" -eq 4 ]; echo $?) "  and 4 logs in format 4 ($n)"

# log formats: 4 by default (a ring and a stream), 3 when asked, as the
# shim's; the same records either way
n=$("$collprof" dump --all "$work/v5/logs" | grep -c " v4 ring ")
ok $([ "$n" -eq 4 ]; echo $?) "the plugin's logs are of format 4 by default ($n of 4)"
run v5f3 SIMNCCL_PROFILER_API=5 COLLPROF_LOG_FORMAT=3
ok $? "COLLPROF_LOG_FORMAT=3: exits 0"
n=$("$collprof" dump --all "$work/v5f3/logs" | grep -c " v4 ring ")
ok $([ "$n" -eq 0 ] && [ "$(summary v5f3 | grep -c "$links")" -eq 4 ]; echo $?) "  of format 3, links, nothing lost ($n of format 4)"
"$collprof" dump --all "$work/v5f3/logs" >"$work/v5f3/dump"
python3 "$s/tests/integration/plugin_check.py" "$work/v5f3/dump" 4 "$work/v5f3/sends" >"$work/v5f3/check.tap"
ok $([ $? -eq 0 ] && cmp -s "$work/v5/sends" "$work/v5f3/sends"; echo $?) "  the same link records as format 4's"

# what the CPU NCCL does not do (prof_links.c): a call's sends to one peer
# on 4 channels, stopping after its kernel ended, are one record; a call
# sending to 10 peers (more than the 8 a task keeps) has a record for each;
# an operation without a parent gets one that names no call
d=$work/plinks
mkdir -p "$d"
COLLPROF_DIR="$d/logs" "$b/tests/integration/prof_links" "$plugin" >"$d/out" 2>&1
ok $? "the plugin driven directly: several channels, 10 peers, no parent"
"$collprof" dump --all "$d/logs" >"$d/dump"
n=$(awk '$5 == "link"' "$d/dump" | wc -l)
p=$(awk '$5 == "proxy" || $5 == "step" || ($5 == "link" && $10 != "send")' "$d/dump" | wc -l)
ok $([ "$n" -eq 12 ] && [ "$p" -eq 0 ]; echo $?) "  12 link records of sends, nothing else of the proxy ($n, $p)"
n=$(awk '$5 == "link" && $12 == 1 && $14 == 4 && $16 == 8 && $18 == 8000' "$d/dump" | wc -l)
ok $([ "$n" -eq 1 ]; echo $?) "  call 0: one record of its 4 channels' sends to peer 1, 8 steps, 8000 bytes ($n)"
s1=$(awk '$5 == "link" && $18 == 100 { print $7 }' "$d/dump" | sort -u)
s0=$(awk '$5 == "link" && $18 == 8000 { print $7 }' "$d/dump")
peers=$(awk '$5 == "link" && $18 == 100 && $14 == 1 && $16 == 1 { print $12 }' "$d/dump" | sort -n | tr '\n' ' ')
ok $([ "$peers" = "1 2 3 4 5 6 7 8 9 10 " ] && [ "$(echo "$s1" | wc -w)" -eq 1 ] && [ "$s1" -gt "$s0" ]; echo $?) \
    "  call 1: a record per peer of its 10, each naming it (peers $peers; call slots $s0, $s1)"
n=$(awk '$5 == "link" && $7 == -1 && $12 == 3 && $18 == 7' "$d/dump" | wc -l)
ok $([ "$n" -eq 1 ]; echo $?) "  the operation without a parent: a record naming no call ($n)"
n=$(awk '$5 == "link" && !($23 > 0 && $23 <= $26 && $20 >= $23)' "$d/dump" | wc -l)
ok $([ "$n" -eq 0 ]; echo $?) "  fastest step <= slowest, busy >= fastest ($n not)"
n=$("$collprof" dump --summary "$d/logs" | grep -c " 2 calls, 1 communicators (plugin api v5, $links)")
ok $([ "$n" -eq 1 ]; echo $?) "  2 calls, nothing lost ($n)"

# NCCL 2.21/2.22 ask for v2: the plugin declines, one line per process
run v2 SIMNCCL_PROFILER_API=2
ok $? "v2 asked: the job exits 0"
check "  same output as without the plugin" cmp -s "$work/v2/out" "$work/plain.out"
n=$(grep -c "^collprof: this NCCL offers profiler API v2; collprof's plugin needs v3 or later" "$work/v2/err")
ok $([ "$n" -eq 4 ]; echo $?) "  one line from each of the 4 processes ($n)"
n=$(ls "$work/v2/logs" 2>/dev/null | wc -l)
ok $([ "$n" -eq 0 ]; echo $?) "  no log ($n)"
for p in none /nonexistent/libnothing.so; do
    d=$work/absent
    rm -rf "$d"; mkdir -p "$d"
    env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$p" "$simrun" -n 2 --nodes 2 \
        --timeout 120 -- "$train_sim" --pattern ddp --steps 1 --quiet >"$d/out" 2>&1
    ok $? "NCCL_PROFILER_PLUGIN=$p: the job exits 0"
    check "  silently, no log" test ! -s "$d/out" -a ! -e "$d/logs"
done

# a graph replayed 100 times, shim and plugin together
d=$work/graph
mkdir -p "$d"
env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" LD_PRELOAD="$shim" \
    "$simrun" -n 4 --nodes 2 --timeout 120 -- "$train_sim" --pattern ddp \
    --steps 1 --graph-replays 100 --quiet >"$d/out" 2>"$d/err"
ok $? "graph of 2 all-reduces replayed 100 times: exits 0"
n=$(summary graph | grep -c "nccl-profiler timer kernel_ch: 231 calls")
ok $([ "$n" -eq 4 ]; echo $?) "  the plugin logs 31 + 100 x 2 calls per rank ($n of 4)"
n=$(summary graph | grep -c " shim timer host: 33 calls")
ok $([ "$n" -eq 4 ]; echo $?) "  the shim logs 31 + the 2 captured calls per rank ($n of 4)"
n=$("$collprof" dump --all "$d/logs"/*.nccl.cplog | grep " nccl slot " | grep -c " flags 0x1 ")
ok $([ "$n" -eq 800 ]; echo $?) "  800 plugin calls flagged as graph launches ($n)"
n=$("$collprof" dump "$d/logs"/*.nccl.cplog | grep -c " flags 0x10 ")
ok $([ "$n" -eq 800 ]; echo $?) "  and their call records flagged captured ($n)"
"$collprof" dump --all "$d/logs"/*.nccl.cplog >"$d/dump"
python3 "$s/tests/integration/plugin_check.py" "$d/dump" 4 >"$d/check.tap" 2>&1
# the check's ring is over 4 ranks on 2 nodes: same neighbours
ok $? "  every replayed call has its kernel interval and proxies"
grep '^not ok' "$d/check.tap" | sed 's/^/#   /'
done_testing
