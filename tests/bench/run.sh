#!/bin/sh
# make bench: every benchmark of collprof, one line per figure.  Figures are
# ratios or differences measured side by side in the same run.
# `run.sh shim` stops after the shim's figures.
set -eu
only=${1:-all}
b=${top_builddir:-$(pwd)}
tmp=$(mktemp -d /tmp/cp-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

shim=$b/preload/.libs/libcollprof.so
null=$b/tests/bench/lib/libnccl.so.2
echo "== shim: added cost per call over an NCCL that returns at once (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
CP_BENCH_LABEL="shim host timer" COLLPROF_DIR=$tmp/logs LD_PRELOAD=$shim \
    "$b/tests/bench/shim_bench" "$null" 50000
CP_BENCH_LABEL="shim disabled (COLLPROF_DISABLE=1)" COLLPROF_DISABLE=1 \
    COLLPROF_DIR=$tmp/off LD_PRELOAD=$shim "$b/tests/bench/shim_bench" "$null" 50000 0
# The independent check: an ordinary program (null_loop.c, linked against
# the null libnccl.so.2), a million ncclAllReduce calls, 5 runs without and
# 5 with the shim preloaded, alternating; medians.
loop=$b/tests/bench/null_loop
: >"$tmp/bare" && : >"$tmp/shim"
for i in 1 2 3 4 5; do
    "$loop" 1000000 >>"$tmp/bare"
    COLLPROF_DIR=$tmp/loop-logs LD_PRELOAD=$shim "$loop" 1000000 >>"$tmp/shim"
    rm -rf "$tmp/loop-logs"
done
med() { sort -n -k"$2" "$1" | sed -n 3p | cut -d' ' -f"$2"; }
awk -v bw="$(med "$tmp/bare" 1)" -v sw="$(med "$tmp/shim" 1)" \
    -v bc="$(med "$tmp/bare" 2)" -v sc="$(med "$tmp/shim" 2)" \
    -v so="$(med "$tmp/shim" 3)" 'BEGIN {
    printf "null-NCCL loop (1M ncclAllReduce, median of 5 runs each side): bare %.1f ns/call, LD_PRELOAD=libcollprof.so %.1f ns/call: added %.1f ns/call wall, ratio %.2f; CPU added %.1f ns/call on the calling thread, log thread %.1f ns/call\n",
        bw, sw, sw - bw, sw / bw, sc - bc, so }'
f=$(ls "$tmp"/logs/*.cplog | head -n 1)
calls=$("$b/analyzer/collprof" dump --summary "$f" | sed -n 's/.*: \([0-9]*\) calls.*/\1/p')
size=$(stat -c %s "$f")
echo "log: $calls calls in $size bytes = $(( (size - 4096) / calls )) bytes per call (header 4096 B; target <= 64)"
[ "$only" = shim ] && exit 0
for extra in "$(dirname "$0")"/run-*.sh; do
    [ -f "$extra" ] && sh "$extra"
done
exit 0
