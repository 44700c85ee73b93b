#!/bin/sh
# nccl_join.sh - the shim's and the plugin's records of one call joined by
# communicator call order (docs/analysis.md, "The shim and the plugin of one
# process"): every call once, with NCCL's algorithm and the kernel interval,
# graph launches added as calls of the plugin's communicator (API v5 flags
# them; v4 does not, then they stay out), a plugin log alone joined with
# itself; and the algorithm_choice finding: ring on 8
# ranks where the model's tree is clearly cheaper, none without the plugin's
# evidence or where tree is not clearly cheaper (4 ranks).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
plugin=$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so
need "$collprof" "$simrun" "$train_sim" "$shim" "$plugin"
command -v python3 >/dev/null || skip_all "python3 needed"

# job NAME PRELOAD PLUGIN [ENV...] SIMRUN-ARGS...: logs in NAME/logs, the
# report (collprof analyze $analyze_args) in NAME/rep
analyze_args=--no-profile
job() {
    d=$work/$1
    pre=$2
    plg=$3
    shift 3
    mkdir -p "$d"
    env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plg" LD_PRELOAD="$pre" \
        "$@" >"$d/out" 2>&1 &&
        "$collprof" analyze $analyze_args "$d/logs" -o "$d/rep" \
            >"$d/verdict" 2>&1
}
# q NAME PYTHON-EXPR: the expression over NAME's report (r; j = the join)
q() {
    python3 -c "import json,sys
r=json.load(open(sys.argv[1]))
j=r.get('nccl_profiler', {}).get('join', {})
known=lambda: sum(sum(x.get('algorithms', {}).values()) for x in r['collectives'])
print($2)" "$work/$1/rep/report.json"
}
ddp_graph() { # NAME PRELOAD PLUGIN [ENV...]
    n=$1 pre=$2 plg=$3
    shift 3
    job "$n" "$pre" "$plg" "$@" "$simrun" -n 4 --nodes 2 --timeout 120 -- \
        "$train_sim" --pattern ddp --steps 1 --graph-replays 100 --quiet
}

# the shim alone: the reference count of instances
ddp_graph shim "$shim" none
ok $? "shim alone: ddp with a graph replayed 100 times, analyzed"
ref=$(q shim "r['summary']['instances']")

# shim and plugin (API v5: graph launches flagged)
ddp_graph both "$shim" "$plugin"
ok $? "shim and plugin (v5): analyzed"
n=$(q both "j['processes'], j['joined_calls'], j['plugin_only_calls'], j['graph_launched_calls']")
ok $([ "$n" = "4 124 0 800" ]; echo $?) \
    "  4 processes joined: the 31 calls that ran per rank, no plugin call unjoined, the 800 graph launches kept apart ($n)"
n=$(q both "j['shim_only_calls']")
ok $([ "$n" = 8 ]; echo $?) \
    "  the 2 captures per rank (simnccl's shim cannot tell them: no CUDA) have no plugin record ($n)"
n=$(q both "r['summary']['instances'], r['summary']['incomplete_instances'], j['graph_launches_added']")
ok $([ "$n" = "$((ref + 200)) 0 800" ]; echo $?) \
    "  every call once: the shim's $ref and the 200 graph launches, all complete ($n)"
n=$(q both "[(c['instances'], c['incomplete']) for c in r['communicators'] if c['name'] == '']")
ok $([ "$n" = "[(200, 0)]" ]; echo $?) \
    "  the launches joined across ranks on the plugin's communicator ($n)"
n=$(q both "known(), sorted(set(k for x in r['collectives'] for k in x.get('algorithms', {})))")
ok $([ "$n" = "231 ['Ring']" ]; echo $?) \
    "  the collectives' rows know NCCL's algorithm of the 31 joined instances and the 200 launches ($n)"
n=$(q both "j['with_kernel_interval'] == j['joined_calls'], j['timed_by_kernel_interval']")
ok $([ "$n" = "True 924" ]; echo $?) "  every joined call and launch is timed by its kernel interval ($n)"
n=$(q both "sum(1 for s in r['slowest']['by_own_time'] if s.get('algorithm') == 'Ring' and s.get('protocol') == 'Simple')")
ok $([ "$n" -ge 20 ]; echo $?) "  the slowest instances name algorithm and protocol ($n)"
n=$(q shim "'nccl_profiler' in r, sum(1 for x in r['collectives'] if 'algorithms' in x)")
ok $([ "$n" = "False 0" ]; echo $?) "  the shim alone: no algorithm anywhere ($n)"

# API v4: graph launches not flagged; the calls the shim saw still join
ddp_graph v4 "$shim" "$plugin" SIMNCCL_PROFILER_API=4
ok $? "shim and plugin (v4): analyzed"
n=$(q v4 "j['joined_calls'] >= 124, j['joined_calls'] + j['plugin_only_calls'], j['joined_calls'] + j['shim_only_calls'], j['graph_launched_calls']")
ok $([ "$n" = "True 924 132 0" ]; echo $?) \
    "  every call that ran is joined; the unflagged replays stay plugin-only ($n)"
n=$(q v4 "r['summary']['instances'], j['graph_launches_added']")
ok $([ "$n" = "$ref 0" ]; echo $?) \
    "  the shim's calls once; v4 does not tell graph launches, none added ($n)"

# the plugin alone: its own records joined with its calls, replays included
ddp_graph plugin "" "$plugin"
ok $? "plugin alone: analyzed"
n=$(q plugin "j['plugin_only_processes'], j['with_kernel_interval'], j['timed_by_kernel_interval']")
ok $([ "$n" = "4 924 924" ]; echo $?) \
    "  4 logs joined with themselves, (31 + 200) x 4 calls timed by their kernels ($n)"
n=$(q plugin "known(), sum(x['calls'] for x in r['collectives'])")
ok $([ "$n" = "231 231" ]; echo $?) "  every instance, the 200 replays included, knows its algorithm ($n)"

# algorithm_choice: small all-reduces in rings of 8 nodes with a large
# alpha, judged against a profile of that alpha (a fit on this loaded
# machine may be weak, and a weak fit gives no finding)
printf 'inter alpha=300us bandwidth=2GB/s\n' >"$work/profile"
analyze_args="--profile $work/profile"
printf 'nodes 8\ninter latency=300us bandwidth=2GB/s\n' >"$work/eight.topo"
printf 'nodes 4\ninter latency=300us bandwidth=2GB/s\n' >"$work/four.topo"
job ring8 "" "$plugin" "$simrun" -n 8 --nodes 8 --topo "$work/eight.topo" \
    --timeout 300 -- "$train_sim" --pattern ddp --steps 3 --quiet
ok $? "ddp on 8 nodes, 300 us latency, plugin: analyzed"
n=$(q ring8 "[(f['evidence']['algorithm'], f['evidence']['cheaper_algorithm'], f['evidence']['method']) for f in r['findings'] if f['kind'] == 'algorithm_choice']")
ok $([ "$n" = "[('Ring', 'Tree', 'nccl_profiler_algorithms')]" ]; echo $?) \
    "  algorithm_choice: NCCL ran Ring where the model's Tree is cheaper ($n)"
n=$(q ring8 "[(e['model_cheaper_s'] <= 0.5 * e['model_chosen_s'], e['measured_p50_s'] > e['model_cheaper_s'], e['calls'] >= 8, int(e['comm_nranks'])) for e in (f['evidence'] for f in r['findings'] if f['kind'] == 'algorithm_choice')]")
ok $([ "$n" = "[(True, True, True, 8)]" ]; echo $?) \
    "  its evidence: tree at most half of ring by the model, the calls slower than tree's model, >= 8 calls ($n)"
job shim8 "$shim" none "$simrun" -n 8 --nodes 8 --topo "$work/eight.topo" \
    --timeout 300 -- "$train_sim" --pattern ddp --steps 3 --quiet
ok $? "the same with the shim alone: analyzed"
n=$(q shim8 "sum(1 for f in r['findings'] if f['kind'] == 'algorithm_choice')")
ok $([ "$n" = 0 ]; echo $?) "  no algorithm_choice without the plugin's evidence ($n)"
job ring4 "" "$plugin" "$simrun" -n 4 --nodes 4 --topo "$work/four.topo" \
    --timeout 300 -- "$train_sim" --pattern ddp --steps 3 --quiet
ok $? "ddp on 4 nodes, plugin: analyzed"
n=$(q ring4 "sum(1 for f in r['findings'] if f['kind'] == 'algorithm_choice'), known() > 0")
ok $([ "$n" = "0 True" ]; echo $?) \
    "  4 ranks: tree is not clearly cheaper (2 lg p against 2(p-1) alphas), no finding ($n)"
done_testing
