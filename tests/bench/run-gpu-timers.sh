#!/bin/sh
# run-gpu-timers.sh - make bench: what the GPU timers add on the calling
# thread, measured like the host timer (tests/bench/shim_bench over the null
# NCCL), with the stand-in CUPTI of tests/fakecuda so that no GPU is needed.
# The cupti figure is the shim's own host work per call -- reserve the slot,
# push the external correlation id, call, pop, write the record -- plus the
# stand-in's push/pop (a thread-local array, like CUPTI's own).  Target
# <= 300 ns.  Joining the activity happens on the shim's background thread
# and is not in the figure.  Each line is the median of 21 rounds; the host
# line is measured again here, in the same run, for the difference.
set -eu
b=${top_builddir:-.}
shim=$b/preload/.libs/libcollprof.so
null=$b/tests/bench/lib/libnccl.so.2
fake=$b/tests/fakecuda
if [ ! -x "$b/tests/bench/shim_bench" ] || [ ! -f "$fake/libcupti.so.13" ]; then
    echo "== GPU timers: skipped (build the check programs: make check)"
    exit 0
fi
tmp=$(mktemp -d /tmp/cp-bench-gpu-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== GPU timers: host work added per call (stand-in CUDA, no GPU)"
host=$(CP_BENCH_LABEL="shim host timer, again" COLLPROF_TIMER=host \
    COLLPROF_DIR=$tmp/host LD_PRELOAD=$shim "$b/tests/bench/shim_bench" "$null" 50000)
echo "$host"
cupti=$(CP_BENCH_LABEL="shim cupti timer (stand-in CUPTI)" COLLPROF_TIMER=cupti \
    LD_LIBRARY_PATH=$fake COLLPROF_DIR=$tmp/cupti LD_PRELOAD=$shim \
    "$b/tests/bench/shim_bench" "$null" 50000 | sed 's/target <= 100/target <= 300/')
echo "$cupti"
hdr=$(ls "$tmp"/cupti/*.cplog | head -n 1)
used=$(od -An -tu4 -j32 -N4 "$hdr" | tr -d ' ')
[ "$used" = 3 ] || echo "  (the cupti line did not run the cupti timer: header timer $used)"
h=$(echo "$host" | sed -n 's/.*added \([0-9.]*\) ns.*/\1/p')
c=$(echo "$cupti" | sed -n 's/.*added \([0-9.]*\) ns.*/\1/p')
echo "cupti path over the host path: $(awk -v c="$c" -v h="$h" 'BEGIN { printf "%+.1f", c - h }') ns/call"
exit 0
