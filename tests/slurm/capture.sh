#!/bin/sh
# capture.sh - the plugstack key capture=shim|plugin|both on a real Slurm
# cluster (tests/slurm/cluster.sh): without the key (both, the default) and
# with capture=both every task gets the shim and NCCL's profiler plugin, the
# two records of a call joined and each call counted once (as many
# instances as the shim's logs alone give); capture=plugin gives every task
# the plugin (NCCL_PROFILER_PLUGIN) and no shim, and the step's report is
# made from the plugin's records; capture=shim no plugin; a job that names
# its own NCCL profiler plugin keeps it, said once (escaped: a newline and
# an escape sequence in it forge no line); with both and no
# readable plugin library the shim alone records the step, said once;
# next_profiler= makes collprof's plugin chain to a second one in every
# task, and a job's own COLLPROF_NEXT_PROFILER wins.
# Root only (skips else).
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

# logs DIR: "SHIM PLUGIN", the counts of the two kinds of logs in DIR
logs() {
    echo "$(ls "$1" 2>/dev/null | grep '\.cplog$' | grep -v -c '\.nccl\.cplog$')" \
        "$(ls "$1" 2>/dev/null | grep -c '\.nccl\.cplog$')"
}

plugstack
step default
ok $? "no capture= key: srun --collprof -N2 -n4 train_sim ddp exits 0"
check "  train_sim's results are right" grep -q 'all results correct' default.out
n=$(logs "$dir")
ok $([ "$n" = "4 4" ]; echo $?) "  both by default: 4 shim and 4 plugin logs ($n)"
n=$(q "j.get('processes'), j.get('shim_only_calls'), j.get('plugin_only_calls'), j.get('joined_calls', 0) > 0")
ok $([ "$n" = "4 0 0 True" ]; echo $?) \
    "  report.json: every call of the 4 processes joined, none left on either side ($n)"
# the shim's logs alone, analyzed apart: the reference count of instances
mkdir -p "$BASE/shimonly" && cp "$dir"/*.cplog "$BASE/shimonly/" &&
    rm -f "$BASE/shimonly"/*.nccl.cplog
"$CP_INST/bin/collprof" analyze "$BASE/shimonly" -o "$BASE/shimonly" \
    >shimonly.out 2>&1
ok $? "  the shim's 4 logs alone: analyzed"
ref=$(python3 -c "import json,sys
r=json.load(open(sys.argv[1]))
print(r['summary']['instances'], r['summary']['calls'])" "$BASE/shimonly/report.json" 2>/dev/null)
n=$(q "r['summary']['instances'], r['summary']['calls']")
ok $([ -n "$ref" ] && [ "$n" = "$ref" ]; echo $?) \
    "  each call counted once: instances and calls as the shim alone gives ($n, alone $ref)"
n=$(q "sum(1 for x in r['collectives'] if 'Ring' in x.get('algorithms', {})) > 0")
ok $([ "$n" = True ]; echo $?) "  ... with NCCL's algorithm from the plugin ($n)"

step owndef NCCL_PROFILER_PLUGIN=none
ok $? "both, a job with its own NCCL_PROFILER_PLUGIN: exits 0"
n=$(logs "$dir")
ok $([ "$n" = "4 0" ]; echo $?) "  its plugin was kept: the shim's 4 logs, no plugin log ($n)"
n=$(grep -c "collprof: job [0-9.]*: the job sets NCCL_PROFILER_PLUGIN=none: collprof leaves it.*(the shim still records the calls)" owndef.err)
ok $([ "$n" -eq 1 ]; echo $?) "  said once, with the shim still recording ($n)"

# the job's value is the job's: a newline and an escape sequence in it
# reach slurmd's log and srun's stderr escaped, on the plugin's own line;
# no line of Slurm's format is forged
forged=$(printf 'none\n[2026-12-01T10:00:00.000] error: forged\033[0m')
step forged "NCCL_PROFILER_PLUGIN=$forged"
ok $? "a job whose NCCL_PROFILER_PLUGIN holds a newline and ESC: exits 0"
pat='the job sets NCCL_PROFILER_PLUGIN=none\\x0a\[2026-12-01T10:00:00\.000\] error: forged\\x1b\[0m: collprof leaves it'
n=$(grep -c "collprof: job [0-9.]*: $pat" forged.err)
ok $([ "$n" -eq 1 ]; echo $?) "  said once on srun's stderr, escaped as \\xNN ($n)"
n=$(cat "$BASE"/log/slurmd-n*.log | grep -c "collprof: job [0-9.]*: $pat")
ok $([ "$n" -eq 1 ]; echo $?) "  ... and in slurmd's log ($n)"
n=$(cat forged.err "$BASE"/log/slurmd-n*.log | grep -c '^\[2026-12-01T10:00:00\.000\]\|error: forged.\[0m')
ok $([ "$n" -eq 0 ]; echo $?) "  no forged line, no raw ESC ($n)"

plugstack nccl_profiler=/nonexistent/libcollprof-nccl-profiler.so
step noplugin
ok $? "both, no readable plugin library: exits 0"
n=$(logs "$dir")
ok $([ "$n" = "4 0" ]; echo $?) "  the shim alone records the step ($n)"
n=$(grep -c "collprof: job [0-9.]*: /nonexistent/libcollprof-nccl-profiler.so: .*; the shim alone records this step" noplugin.err)
ok $([ "$n" -eq 1 ]; echo $?) "  said once ($n)"

plugstack capture=shim
step shim
ok $? "capture=shim: exits 0"
n=$(logs "$dir")
ok $([ "$n" = "4 0" ]; echo $?) "  4 shim logs, no plugin log ($n)"

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

# next_profiler=PATH: every task's collprof plugin chains to a second one
# (tests/integration/recprof.c, which writes the events it got at exit)
rec=$(ls "$top_builddir"/tests/integration/.libs/librecprof.so 2>/dev/null)
if [ -n "$rec" ]; then
    cp "$rec" "$BASE/librecprof.so" && chmod 755 "$BASE/librecprof.so"
    rm -rf "$BASE/tmp/rec" && mkdir -m 1777 "$BASE/tmp/rec"
    plugstack capture=plugin "next_profiler=$BASE/librecprof.so"
    step next RECPROF_DIR="$BASE/tmp/rec"
    ok $? "capture=plugin next_profiler=librecprof.so: exits 0"
    n=$(ls "$dir"/*.nccl.cplog 2>/dev/null | wc -l)
    ok $([ "$n" -eq 4 ]; echo $?) "  collprof's plugin still records: 4 plugin logs ($n)"
    n=$(ls "$BASE/tmp/rec" | grep -c '^rec\.')
    m=$(cat "$BASE"/tmp/rec/rec.* 2>/dev/null | grep -c '^start ')
    ok $([ "$n" -eq 4 ] && [ "$m" -gt 0 ]; echo $?) \
        "  the next plugin ran in each of the 4 tasks and got events ($n files, $m starts)"
    plugstack capture=plugin "next_profiler=$BASE/librecprof.so"
    rm -f "$BASE"/tmp/rec/rec.*
    step nextown RECPROF_DIR="$BASE/tmp/rec" COLLPROF_NEXT_PROFILER=/nonexistent/x.so
    n=$(ls "$BASE/tmp/rec" | grep -c '^rec\.')
    ok $([ "$n" -eq 0 ]; echo $?) \
        "  a job's own COLLPROF_NEXT_PROFILER wins over the site's ($n files of the site's)"
    n=$(grep -c 'COLLPROF_NEXT_PROFILER: cannot load /nonexistent/x.so' nextown.err)
    ok $([ "$n" -ge 1 ]; echo $?) "  ... the job's was tried, and said it could not load ($n)"
else
    skip 5 "tests/integration/librecprof.so is not built"
fi

plugstack capture=plugin
step own NCCL_PROFILER_PLUGIN=none
ok $? "a job with its own NCCL_PROFILER_PLUGIN: exits 0"
n=$(ls "$dir"/*.cplog 2>/dev/null | wc -l)
ok $([ "$n" -eq 0 ]; echo $?) "  its plugin was kept: no collprof log ($n)"
n=$(grep -c "collprof: job [0-9.]*: the job sets NCCL_PROFILER_PLUGIN=none: collprof leaves it" own.err)
ok $([ "$n" -eq 1 ]; echo $?) "  said once, by the first node's step, on srun's stderr ($n)"
plugstack
done_testing
