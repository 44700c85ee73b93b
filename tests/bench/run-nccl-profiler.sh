#!/bin/sh
# run-nccl-profiler.sh (make bench): the NCCL profiler plugin's added host
# cost per collective, and its log bytes per collective in each step mode
# (links, the default: a record per call and peer sent to; all: per
# operation and step; none: per operation), in log format 4 (the default:
# the compact stream's bytes) and format 3 (COLLPROF_LOG_FORMAT=3: 64
# bytes a slot after the header).
set -eu
b=${top_builddir:-$(pwd)}
s=${top_srcdir:-$b/..}
plugin=$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so
[ -f "$plugin" ] || exit 0
tmp=$(mktemp -d /tmp/cp-bench-prof-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "== NCCL profiler plugin: host cost and log bytes per collective"
n=20000
for steps in links all none; do
    for format in 4 3; do
        d=$tmp/$steps.$format
        COLLPROF_DIR=$d COLLPROF_PLUGIN_STEPS=$steps COLLPROF_LOG_FORMAT=$format \
            "$b/tests/bench/prof_bench" "$plugin" $n 8 |
            sed "s/^/steps=$steps format $format: /"
        f=$(ls "$d"/*.cplog | head -n 1)
        if [ "$format" = 4 ]; then
            bytes=$(python3 "$s/tests/tools/log4.py" size "$f" | awk '{ print $4 }')
        else
            bytes=$(( $(stat -c %s "$f") - 4096 ))
        fi
        # the warm-up and the measured run: 1.1 x n collectives
        echo "steps=$steps format $format: log $(( bytes * 10 / (n * 11) )) bytes per collective (1 channel, 8 steps each)"
    done
done
