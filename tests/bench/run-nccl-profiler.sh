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

# The CPU NCCL (real sockets, 4 ranks on 2 nodes): the bytes a plugin log
# grows by per collective between a run of 10 steps and one of 30 (the
# steady part: header, ring and definitions cancel), per API version.
simrun=$b/tests/simnccl/simrun
train_sim=$b/tests/apps/train_sim
[ -x "$simrun" ] && [ -x "$train_sim" ] || exit 0
echo "== NCCL profiler plugin on the CPU NCCL: steady log bytes per collective (links, format 4)"
for api in 6 7; do
    for pat in ddp fsdp tp; do
        for st in 10 30; do
            rm -rf "$tmp/cpu$st"
            SIMNCCL_PROFILER_API=$api COLLPROF_DIR=$tmp/cpu$st \
                NCCL_PROFILER_PLUGIN=$plugin "$simrun" -n 4 --nodes 2 \
                --timeout 120 -- "$train_sim" --pattern $pat --steps $st \
                --quiet >/dev/null 2>&1
        done
        fa=$tmp/cpu10/$(ls "$tmp/cpu10" | head -n 1)
        fb=$tmp/cpu30/$(ls "$tmp/cpu30" | head -n 1)
        ba=$(python3 "$s/tests/tools/log4.py" size "$fa" | awk '{ print $4 }')
        bb=$(python3 "$s/tests/tools/log4.py" size "$fb" | awk '{ print $4 }')
        ca=$("$b/analyzer/collprof" dump --all "$fa" | awk '$5 == "nccl"' | wc -l)
        cb=$("$b/analyzer/collprof" dump --all "$fb" | awk '$5 == "nccl"' | wc -l)
        echo "api v$api $pat: $(( (bb - ba) / (cb - ca) )) bytes per collective in steady state ($ca -> $cb collectives)"
    done
done
