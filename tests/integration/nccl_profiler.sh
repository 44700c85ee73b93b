#!/bin/sh
# nccl_profiler.sh - libcollprof-nccl-profiler.so loaded by simnccl's
# profiler-plugin loader (NCCL_PROFILER_PLUGIN), for each API version NCCL
# asks for: the log it writes (calls, algorithm/protocol, kernel intervals,
# proxy operations and steps per peer), the step budget, graph replays
# against the shim, and NCCL's fallbacks (an API too old, no plugin).
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

for api in 7 6 5 4 3; do
    run v$api SIMNCCL_PROFILER_API=$api
    ok $? "v$api: ddp with the plugin exits 0"
    check "  v$api: same output as without it" cmp -s "$work/v$api/out" "$work/plain.out"
    check "  v$api: nothing on stderr" test ! -s "$work/v$api/err"
    n=$(ls "$work/v$api/logs"/*.nccl.cplog 2>/dev/null | wc -l)
    ok $([ "$n" -eq 4 ]; echo $?) "  v$api: 4 plugin logs <node>.<pid>.nccl.cplog ($n)"
    n=$(summary v$api | grep -c "nccl-profiler timer kernel_ch: 87 calls, 1 communicators (plugin api v$api, every proxy step; 0 step records over budget, 0 events not recorded)")
    ok $([ "$n" -eq 4 ]; echo $?) "  v$api: every log: the plugin's, 87 calls, api v$api, all steps, nothing lost ($n)"
    [ "$n" -eq 4 ] || summary v$api | sed 's/^/#   /'
    "$collprof" dump --all "$work/v$api/logs" >"$work/v$api/dump"
    python3 "$s/tests/integration/plugin_check.py" "$work/v$api/dump" 4 >"$work/v$api/check.tap"
    ok $? "  v$api: calls, nccl, gpu, proxy and step records check out"
    grep '^not ok' "$work/v$api/check.tap" | sed 's/^/#   /'
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
n=$(summary v7tag | grep -c "87 calls, 1 communicators (plugin api v7, every proxy step; 0 step records over budget, 0 events not recorded)")
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
pycheck "  the kernels' skew agrees with the corrected hosts' (median within 2 ms, 90th percentile within 5 ms)" \
    "$d/rep/report.json" \
    "$ph['difference']['p50_s'] <= 0.002 and $ph['difference']['p90_s'] <= 0.005"
pycheck "  rank 2 came last most often by the kernels' phases, by about its 20 ms" \
    "$d/rep/report.json" \
    "$ph['last_arrivals'][0]['rank'] == 2 and $ph['last_arrivals'][0]['last_arrivals'] >= 80 and 0.015 <= $ph['last_arrivals'][0]['late_s'] / $ph['last_arrivals'][0]['last_arrivals'] <= 0.040"
python3 -c "import json; print('#  ', json.dumps(json.load(open('$d/rep/report.json'))['nccl_profiler']['phases']))" 2>&1 | head -1
"$collprof" analyze "$work/v6/logs" -o "$work/v6/rep" >/dev/null 2>&1
pycheck "  v6: no initial-sync phase, and nccl_profiler.phases says why" \
    "$work/v6/rep/report.json" \
    "$ph['instances'] == 0 and 'API v7' in $ph['why'] and 'skew' not in $ph"

# What NCCL sends that was not asked for: a mask widened after init (as
# NCCL's RAS may), events saying rank 0 on every rank, GPU times of 0.
run widened SIMNCCL_PROFILER_API=7 SIMNCCL_PROFILER_MASK=0xffff
ok $? "a mask widened to every event after init: exits 0"
check "  same output as without the plugin" cmp -s "$work/widened/out" "$work/plain.out"
n=$(summary widened | grep -c "87 calls, 1 communicators (plugin api v7, every proxy step; 0 step records over budget, 0 events not recorded)")
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

# copy-engine collectives (v6): the all-gathers of an FSDP run reported as
# such, each a call timed from its start to its stop, flagged CE, no kernel
d=$work/ce
mkdir -p "$d"
env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" SIMNCCL_PROFILER_API=6 \
    SIMNCCL_PROFILER_CE=1 "$simrun" -n 4 --nodes 4 --timeout 120 -- "$train_sim" \
    --pattern fsdp --steps 2 >"$d/out" 2>"$d/err"
ok $? "v6, all-gathers as copy-engine collectives: exits 0"
"$collprof" dump --all "$d/logs" >"$d/dump"
ag=$(grep -ci " seq [0-9]* allgather .* dur " "$d/dump")
n=$(grep " nccl slot " "$d/dump" | grep -c " flags 0x1[0-9a-f] ")
ok $([ "$ag" -gt 0 ] && [ "$n" -eq "$ag" ]; echo $?) "  every all-gather recorded as a copy-engine collective ($n of $ag)"
n=$(grep " nccl slot " "$d/dump" | grep " flags 0x1[0-9a-f] " | grep -vc " flags 0x1[4567cdef] ")
ok $([ "$n" -eq 0 ]; echo $?) "  none with a kernel interval ($n)"
n=$("$collprof" dump --summary "$d/logs" 2>&1 | grep -c "0 events not recorded")
ok $([ "$n" -eq 4 ]; echo $?) "  nothing lost ($n of 4)"
# analysed as a kind of their own: rows of their own, whose path is a copy
# within the node (judged on the intra-node model), while the same
# communicator's other collectives stay on its inter-node link
"$collprof" analyze "$d/logs" -o "$d/rep" >/dev/null 2>&1
ok $? "  analyzed"
pycheck "  the all-gathers' rows are copy-engine rows on the intra-node path" \
    "$d/rep/report.json" \
    "[r for r in d['collectives'] if r['op'] == 'allgather'] != [] and all(r.get('path') == 'copy_engine' and r['link'] == 'intra' for r in d['collectives'] if r['op'] == 'allgather')"
pycheck "  the other collectives' rows have no path of their own and stay inter-node" \
    "$d/rep/report.json" \
    "all('path' not in r and r['link'] == 'inter' for r in d['collectives'] if r['op'] not in ('allgather', 'sendrecv'))"
pycheck "  their calls in the slowest instances say so too" "$d/rep/report.json" \
    "all((s['op'] == 'allgather') == (s.get('path') == 'copy_engine') for s in d['slowest']['by_own_time'])"

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
n=$(summary chain | grep -c "87 calls, 1 communicators (plugin api v7, every proxy step; 0 step records over budget, 0 events not recorded)")
ok $([ "$n" -eq 4 ]; echo $?) "  collprof's own logs complete ($n of 4)"

# the step budget: none, then 10 step records per process
run none COLLPROF_PLUGIN_STEPS=none
ok $? "COLLPROF_PLUGIN_STEPS=none: exits 0"
n=$(summary none | grep -c "proxy aggregates only")
ok $([ "$n" -eq 4 ]; echo $?) "  the headers say: aggregates only ($n)"
n=$("$collprof" dump --all "$work/none/logs" | grep -c " step proxy-slot ")
ok $([ "$n" -eq 0 ]; echo $?) "  no step record ($n)"
a=$("$collprof" dump --all "$work/v5/logs" | awk '$5 == "proxy" { s += $18 } END { print s }')
c=$("$collprof" dump --all "$work/none/logs" | awk '$5 == "proxy" { s += $18 } END { print s }')
ok $([ "$a" = "$c" ] && [ "$a" -gt 0 ]; echo $?) "  the proxy aggregates hold the same bytes ($c, with steps $a)"
total=$("$collprof" dump --all "$work/v5/logs/$(ls "$work/v5/logs" | head -n 1)" | grep -c " step proxy-slot ")
run budget COLLPROF_PLUGIN_STEPS=10
f=$work/budget/logs/$(ls "$work/budget/logs" | head -n 1)
n=$("$collprof" dump --all "$f" | grep -c " step proxy-slot ")
ok $([ "$n" -eq 10 ]; echo $?) "COLLPROF_PLUGIN_STEPS=10: 10 step records ($n)"
summary budget | head -n 1 | grep -q "proxy steps until the budget; $((total - 10)) step records over budget"
ok $? "  the header says: until the budget, $((total - 10)) over it"

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
