#!/bin/sh
# run-nccl-profiler.sh (make bench): the NCCL profiler plugin's added host
# cost per collective, and its log bytes per collective with and without
# per-step records.
set -eu
b=${top_builddir:-$(pwd)}
plugin=$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so
[ -f "$plugin" ] || exit 0
tmp=$(mktemp -d /tmp/cp-bench-prof-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "== NCCL profiler plugin: host cost and log bytes per collective"
n=20000
for steps in all none; do
    COLLPROF_DIR=$tmp/$steps COLLPROF_PLUGIN_STEPS=$steps \
        "$b/tests/bench/prof_bench" "$plugin" $n 8 | sed "s/^/steps=$steps: /"
    f=$(ls "$tmp/$steps"/*.cplog | head -n 1)
    size=$(stat -c %s "$f")
    # the warm-up and the measured run: 1.1 x n collectives
    echo "steps=$steps: log $(( (size - 4096) * 10 / (n * 11) )) bytes per collective (8 steps each)"
done
