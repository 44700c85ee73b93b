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
# format 4's figures keep every call; the capture policy (on by default,
# docs/capture-policy.md) has its own line below
export COLLPROF_DETAIL=all
echo "== shim: added cost per call over an NCCL that returns at once (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
# The log thread's cost per record is mostly the kernel's cost of a new
# page-cache page (64 records a page).  On a virtual machine, a guest page
# never used since boot is first backed by the host at several microseconds
# more; a freshly booted VM would measure that, not the shim.  Write (and
# remove) CP_BENCH_WARM_MIB of file data twice first, in the logs' file
# system: the pages the logs below take are then ones the machine used
# before, as on a node that has run jobs.  The line says what it cost.
warm_mib=${CP_BENCH_WARM_MIB:-512}
[ -x "$b/tests/bench/page_warm" ] || warm_mib=0
if [ "$warm_mib" -gt 0 ] &&
    set -- $("$b/tests/bench/page_warm" "$tmp/warm" "$warm_mib"); then
    awk -v a="$1" -v c="$2" -v m="$warm_mib" 'BEGIN {
        printf "page cache, a new 4 KiB page of file data: %.0f ns at the first use of %d MiB of this machine'"'"'s memory since boot or since the last warm-up, %.0f ns when used again (%.1fx; %.1f and %.1f ns per 64-byte record); the figures below are after this warm-up\n",
            a, m, c, a / c, a / 64, c / 64 }'
fi
CP_BENCH_LABEL="shim host timer" COLLPROF_DIR=$tmp/logs LD_PRELOAD=$shim \
    "$b/tests/bench/shim_bench" "$null" 50000
CP_BENCH_LABEL="shim disabled (COLLPROF_DISABLE=1)" COLLPROF_DISABLE=1 \
    COLLPROF_DIR=$tmp/off LD_PRELOAD=$shim "$b/tests/bench/shim_bench" "$null" 50000 0
# The independent check: an ordinary program (null_loop.c, linked against
# the null libnccl.so.2), a million ncclAllReduce calls, 5 runs without and
# 5 with the shim preloaded, alternating; medians.
loop=$b/tests/bench/null_loop
# null_rounds CALLS RUNS WARM_MIB: RUNS runs of CALLS calls each side,
# alternating, the machine's free memory warmed before each (a VM may hand
# pages freed a few seconds ago back to its host: free page reporting);
# one line per run in $tmp/bare.CALLS and $tmp/shim.CALLS.  Each round
# also runs the log alone (tests/bench/log_floor: the shim's log code,
# slots taken and records stored in the same shape, with no NCCL call,
# clock read or wrapper) into $tmp/floor.CALLS, warmed the same way.
floor=$b/tests/bench/log_floor
null_rounds() {
    : >"$tmp/bare.$1" && : >"$tmp/shim.$1" && : >"$tmp/floor.$1"
    for i in $(seq "$2"); do
        [ "$warm_mib" -gt 0 ] && [ "$3" -gt 0 ] &&
            "$b/tests/bench/page_warm" "$tmp/warm" "$3" >/dev/null
        "$loop" "$1" >>"$tmp/bare.$1"
        COLLPROF_DIR=$tmp/loop-logs LD_PRELOAD=$shim "$loop" "$1" >>"$tmp/shim.$1"
        rm -rf "$tmp/loop-logs"
        if [ -x "$floor" ]; then
            [ "$warm_mib" -gt 0 ] && [ "$3" -gt 0 ] &&
                "$b/tests/bench/page_warm" "$tmp/warm" "$3" >/dev/null
            "$floor" "$tmp/floor-logs" "$1" >>"$tmp/floor.$1" || rm -f "$tmp/floor.$1"
            rm -rf "$tmp/floor-logs"
        fi
    done
}
# floor_line CALLS RUNS: the log alone against the shim's loop, medians
floor_line() {
    [ -s "$tmp/floor.$1" ] || return 0
    awk -v fw="$(med "$tmp/floor.$1" 1 "$2")" -v fc="$(med "$tmp/floor.$1" 2 "$2")" \
        -v fo="$(med "$tmp/floor.$1" 3 "$2")" -v sw="$(med "$tmp/shim.$1" 1 "$2")" \
        -v bw="$(med "$tmp/bare.$1" 1 "$2")" -v n="$1" 'BEGIN {
        printf "the log alone, the same shape (%d records, median of %d runs; the shim'"'"'s log code with no NCCL call, clock read or wrapper): %.1f ns/record wall, %.1f ns CPU on the writing thread, log thread %.1f ns/record; the shim'"'"'s loop above it: %.1f ns/call (each run'"'"'s log is new memory, so either side may be the slower)\n",
            n, '"$2"', fw, fc, fo, sw - bw - fw }'
}
# med FILE COLUMN RUNS: the median of a column
med() { sort -n -k"$2" "$1" | sed -n "$(( ($3 + 1) / 2 ))p" | cut -d' ' -f"$2"; }
null_rounds 1000000 5 128
awk -v bw="$(med "$tmp/bare.1000000" 1 5)" -v sw="$(med "$tmp/shim.1000000" 1 5)" \
    -v bc="$(med "$tmp/bare.1000000" 2 5)" -v sc="$(med "$tmp/shim.1000000" 2 5)" \
    -v so="$(med "$tmp/shim.1000000" 3 5)" 'BEGIN {
    printf "null-NCCL loop (1M ncclAllReduce, median of 5 runs each side): bare %.1f ns/call, LD_PRELOAD=libcollprof.so %.1f ns/call: added %.1f ns/call wall, ratio %.2f; CPU added %.1f ns/call on the calling thread, log thread %.1f ns/call\n",
        bw, sw, sw - bw, sw / bw, sc - bc, so }'
floor_line 1000000 5
# The same without warming the machine's memory before each run (what a
# job's first minutes see on a VM that handed its free pages back).
null_rounds 1000000 3 0
awk -v bw="$(med "$tmp/bare.1000000" 1 3)" -v sw="$(med "$tmp/shim.1000000" 1 3)" \
    -v so="$(med "$tmp/shim.1000000" 3 3)" 'BEGIN {
    printf "null-NCCL loop without the warm-up (1M ncclAllReduce, median of 3 runs each side): bare %.1f ns/call, with shim %.1f ns/call: added %.1f ns/call wall, log thread %.1f ns/call\n",
        bw, sw, sw - bw, so }'
# The same loop at 6M calls (384 MiB of log), 3 runs each side: a million
# back-to-back calls end while the log thread is still catching up with
# the first burst (it starts 4 MiB ahead); six million show the rate both
# threads keep up together.
null_rounds 6000000 3 512
awk -v bw="$(med "$tmp/bare.6000000" 1 3)" -v sw="$(med "$tmp/shim.6000000" 1 3)" \
    -v bc="$(med "$tmp/bare.6000000" 2 3)" -v sc="$(med "$tmp/shim.6000000" 2 3)" \
    -v so="$(med "$tmp/shim.6000000" 3 3)" 'BEGIN {
    printf "null-NCCL loop, steady (6M ncclAllReduce, median of 3 runs each side): bare %.1f ns/call, with shim %.1f ns/call: added %.1f ns/call wall; CPU added %.1f ns/call on the calling thread, log thread %.1f ns/call\n",
        bw, sw, sw - bw, sc - bc, so }'
floor_line 6000000 3
f=$(ls "$tmp"/logs/*.cplog | head -n 1)
calls=$("$b/analyzer/collprof" dump --summary "$f" | sed -n 's/.*: \([0-9]*\) calls.*/\1/p')
size=$(stat -c %s "$f")
alloc=$(( $(stat -c %b "$f") * $(stat -c %B "$f") ))
echo "log: $calls calls in $size bytes (format 4; $alloc allocated on disk, the ring given back at exit) = $(awk -v s="$size" -v c="$calls" 'BEGIN { printf "%.2f", s / c }') bytes per call, header and ring included (target <= 8)"
# The capture policy (docs/capture-policy.md): the same 6M-call loop with
# the default policy against every call (COLLPROF_DETAIL=all), alternating,
# 3 runs each; its log's bytes per call (the first 65,536 calls and a
# window of 4,096 every 1,048,576 kept, the rest in aggregates).
: >"$tmp/pol.all" && : >"$tmp/pol.def"
for i in 1 2 3; do
    [ "$warm_mib" -gt 0 ] && "$b/tests/bench/page_warm" "$tmp/warm" 512 >/dev/null
    COLLPROF_DIR=$tmp/pol-all LD_PRELOAD=$shim "$loop" 6000000 >>"$tmp/pol.all"
    rm -rf "$tmp/pol-all"
    [ "$warm_mib" -gt 0 ] && "$b/tests/bench/page_warm" "$tmp/warm" 512 >/dev/null
    rm -rf "$tmp/pol-def"
    COLLPROF_DETAIL=default COLLPROF_DIR=$tmp/pol-def LD_PRELOAD=$shim \
        "$loop" 6000000 >>"$tmp/pol.def"
done
pf=$(ls "$tmp"/pol-def/*.cplog | head -n 1)
awk -v aw="$(med "$tmp/pol.all" 1 3)" -v dw="$(med "$tmp/pol.def" 1 3)" \
    -v ao="$(med "$tmp/pol.all" 3 3)" -v do_="$(med "$tmp/pol.def" 3 3)" \
    -v size="$(stat -c %s "$pf")" 'BEGIN {
    printf "capture policy (6M ncclAllReduce, median of 3 runs each side): every call %.1f ns/call wall, log thread %.1f ns/call; default policy %.1f ns/call wall (%.2fx), log thread %.1f ns/call (%.2fx); its log %d bytes = %.3f bytes per call\n",
        aw, ao, dw, dw / aw, do_, do_ / ao, size, size / 6000000 }'
[ "$only" = shim ] && exit 0
for extra in "$(dirname "$0")"/run-*.sh; do
    [ -f "$extra" ] && sh "$extra"
done
exit 0
