#!/bin/sh
# capture.sh - the plugstack key capture=shim|plugin|both on a real Slurm
# cluster (tests/slurm/cluster.sh): capture=plugin gives every task NCCL's
# profiler plugin (NCCL_PROFILER_PLUGIN) and no shim, and the step's report
# is made from the plugin's records; capture=both records both, joined per
# call; a job that names its own NCCL profiler plugin keeps it.  Root only
# (skips else).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/slurm/lib.sh"

[ -f "$CP_INST/lib/libcollprof-nccl-profiler.so" ] ||
    skip_all "libcollprof-nccl-profiler.so is not built"
steps=$BASE/steps
cd "$BASE/tmp" || exit 1

# step NAME [ENV...]: srun --collprof -N2 -n4 train_sim ddp; the step
# directory in $dir
step() {
    name=$1
    shift
    env $run_env "$@" srun --collprof -N2 -n4 "$TSIM" --pattern ddp --steps 2 \
        >"$name.out" 2>"$name.err"
    rc=$?
    sed 's/^/#   stderr: /' "$name.err"
    dir=$(sed -n 's/^collprof: job \([0-9]*\.[0-9]*\): .*/\1/p' "$name.err" | head -n 1)
    dir=$steps/collprof-$dir
    return $rc
}
# q PYTHON-EXPR: over $dir/report.json (r; j: the plugin join)
q() {
    python3 -c "import json,sys
r=json.load(open(sys.argv[1]))
j=r.get('nccl_profiler', {}).get('join', {})
print($1)" "$dir/report.json" 2>/dev/null
}

plugstack capture=plugin
step plugin
ok $? "capture=plugin: srun --collprof -N2 -n4 train_sim ddp exits 0"
check "  train_sim's results are right" grep -q 'all results correct' plugin.out
n=$(ls "$dir"/*.nccl.cplog 2>/dev/null | wc -l)
ok $([ "$n" -eq 4 ]; echo $?) "  4 plugin logs in the step directory ($n)"
n=$(ls "$dir"/*.cplog 2>/dev/null | grep -v -c '\.nccl\.cplog$')
ok $([ "$n" -eq 0 ]; echo $?) "  no shim log: the shim was not preloaded ($n)"
check "  the report was made" test -s "$dir/report.json"
n=$(q "j.get('plugin_only_processes'), r['summary']['instances'] > 0, sum(1 for x in r['collectives'] if 'Ring' in x.get('algorithms', {})) > 0")
ok $([ "$n" = "4 True True" ]; echo $?) \
    "  report.json: 4 plugin logs analyzed, instances with NCCL's algorithm ($n)"

plugstack capture=both
step both
ok $? "capture=both: exits 0"
n=$(ls "$dir"/*.cplog 2>/dev/null | grep -c '\.nccl\.cplog$')
m=$(ls "$dir"/*.cplog 2>/dev/null | grep -v -c '\.nccl\.cplog$')
ok $([ "$n" -eq 4 ] && [ "$m" -eq 4 ]; echo $?) "  4 shim and 4 plugin logs ($m, $n)"
n=$(q "j.get('processes'), j.get('shim_only_calls'), j.get('joined_calls', 0) > 0")
ok $([ "$n" = "4 0 True" ]; echo $?) "  report.json: every call of the 4 processes joined ($n)"

plugstack capture=plugin
step own NCCL_PROFILER_PLUGIN=none
ok $? "a job with its own NCCL_PROFILER_PLUGIN: exits 0"
n=$(ls "$dir"/*.cplog 2>/dev/null | wc -l)
ok $([ "$n" -eq 0 ]; echo $?) "  its plugin was kept: no collprof log ($n)"
n=$(grep -c "collprof: job [0-9.]*: the job sets NCCL_PROFILER_PLUGIN=none: collprof leaves it" own.err)
ok $([ "$n" -eq 1 ]; echo $?) "  said once, by the first node's step, on srun's stderr ($n)"
plugstack
done_testing
