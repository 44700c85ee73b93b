#!/bin/sh
# make bench: every benchmark of collprof, one line per figure.  Figures are
# ratios or differences measured side by side in the same run.
set -eu
b=${top_builddir:-$(pwd)}
tmp=$(mktemp -d /tmp/cp-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

shim=$b/preload/.libs/libcollprof.so
null=$b/tests/bench/lib/libnccl.so.2
echo "== shim: added cost per call over an NCCL that returns at once"
CP_BENCH_LABEL="shim host timer" COLLPROF_DIR=$tmp/logs LD_PRELOAD=$shim \
    "$b/tests/bench/shim_bench" "$null" 50000
CP_BENCH_LABEL="shim disabled (COLLPROF_DISABLE=1)" COLLPROF_DISABLE=1 \
    COLLPROF_DIR=$tmp/off LD_PRELOAD=$shim "$b/tests/bench/shim_bench" "$null" 50000
f=$(ls "$tmp"/logs/*.cplog | head -n 1)
calls=$("$b/analyzer/collprof" dump --summary "$f" | sed -n 's/.*: \([0-9]*\) calls.*/\1/p')
size=$(stat -c %s "$f")
echo "log: $calls calls in $size bytes = $(( (size - 4096) / calls )) bytes per call (header 4096 B; target <= 64)"
for extra in "$(dirname "$0")"/run-*.sh; do
    [ -f "$extra" ] && sh "$extra"
done
exit 0
