#!/bin/sh
# tests/gpu/run.sh - the shim's GPU timers on a real GPU with the real NCCL,
# CUDA runtime and CUPTI (issue 7).  One script, under 5 minutes, no
# arguments.  Without an NVIDIA GPU it says so and exits 77 (skip).
#
# It builds (with plain cc: no autotools, no Jansson needed) the shim, the
# log summary (tests/gpu/summary.c), the ABI check of preload/cp_cuda_abi.h
# against the toolkit's cupti.h, and a real-NCCL program (tests/gpu/nccl_gpu.c:
# one rank on one GPU; every collective at 4 B .. 256 MB, groups, a
# non-blocking communicator, a call captured into a CUDA graph).  Then:
#   1. nccl_gpu under COLLPROF_TIMER=cupti, event, host and auto: prints
#      calls seen, calls with GPU intervals, fused, captured, incomplete,
#      the calibration pairs, and per collective and size the median host
#      (enqueue) time against the median GPU time; checks what must hold
#      ("check: pass|FAIL" lines, see summary.c);
#   2. cupti against event on the 256 MB all-reduce (within 2x);
#   3. the shim's added host ns per 4-byte ncclAllReduce with each timer
#      (the same program without the shim as the baseline);
#   4. NCCL's profiler plugin (libcollprof-nccl-profiler.so, NCCL 2.23+):
#      `nccl_gpu graph 100` (2 all-reduces captured into a graph launched
#      100 times) with the shim and alone, checked by plugin_check.c: every
#      launch a call with NCCL's algorithm and its kernel interval, the
#      shim seeing only the capture; under profiler API v7 (NCCL 2.31.2+)
#      a tag record and kernel phases for every call; and, where this
#      tree's collprof is built, the join of the two logs;
#   5. PyTorch torch.distributed (NCCL backend, world size 1, all_reduce and
#      all_gather of several sizes) under each timer, if torch is installed.
# NCCL is looked for in the toolkit, the system, and PyTorch's
# nvidia-nccl-cu12/-cu13 wheel (site-packages/nvidia/nccl).
# Environment: CUDA_DIR (default /usr/local/cuda), CC (default cc),
# CP_GPU_KEEP=1 keeps the work directory.  Exit 0 when every check passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CUDA=${CUDA_DIR:-/usr/local/cuda}
CC=${CC:-cc}
t_start=$(date +%s)

skip() {
    echo "tests/gpu/run.sh: skipped: $*"
    exit 77
}

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    skip "no GPU (nvidia-smi finds no NVIDIA device)"
fi
[ -f "$CUDA/include/cuda_runtime_api.h" ] ||
    skip "no CUDA toolkit headers in $CUDA (set CUDA_DIR)"

find_first() { # find_first FILE DIR... -> the first DIR holding FILE
    f=$1
    shift
    for d in "$@"; do
        if [ -e "$d/$f" ]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}
# NCCL from PyTorch's wheel (nvidia-nccl-cu12/-cu13): nvidia/nccl/{include,lib}
# in a site-packages folder; the toolkit then has no nccl.h
wheel_nccl() {
    command -v python3 >/dev/null 2>&1 || return 1
    python3 - <<'PY' 2>/dev/null
import os, site, sys
dirs = list(sys.path)
try:
    dirs += site.getsitepackages() + [site.getusersitepackages()]
except Exception:
    pass
for d in dirs:
    c = os.path.join(d, "nvidia", "nccl")
    if os.path.isfile(os.path.join(c, "lib", "libnccl.so.2")):
        print(c)
        break
PY
}
wheel=$(wheel_nccl) || wheel=""
nccl_inc=$(find_first nccl.h "$CUDA/include" /usr/include /usr/local/include \
    ${wheel:+"$wheel/include"}) ||
    skip "no nccl.h (install the NCCL development package, or PyTorch's nvidia-nccl wheel)"
nccl_lib=$(find_first libnccl.so.2 "$CUDA/lib64" "$CUDA/lib" \
    /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib ${wheel:+"$wheel/lib"}) ||
    skip "no libnccl.so.2"
cuda_lib=$(find_first libcudart.so "$CUDA/lib64" "$CUDA/lib") ||
    skip "no libcudart.so in $CUDA"
cupti_inc=$(find_first cupti.h "$CUDA/include" "$CUDA/extras/CUPTI/include") ||
    cupti_inc=""
cupti_lib=$(find_first libcupti.so "$CUDA/lib64" "$CUDA/extras/CUPTI/lib64") ||
    cupti_lib=""

work=$(mktemp -d /tmp/cp-gpu-XXXXXX)
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
finish() {
    echo "== done in $(($(date +%s) - t_start)) s, $failures failure(s)"
    if [ "$failures" -ne 0 ] || [ "${CP_GPU_KEEP:-}" = 1 ]; then
        echo "   logs and binaries kept in $work"
    else
        rm -rf "$work"
    fi
    [ "$failures" -eq 0 ]
    exit $?
}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -n 1
echo "CUDA $CUDA, nccl.h in $nccl_inc, libnccl.so.2 in $nccl_lib, CUPTI ${cupti_lib:-not found}"

echo "== build"
printf '#define _GNU_SOURCE 1\n' >"$work/config.h"
$CC -O2 -g -fPIC -shared -fvisibility=hidden -Wall -I"$top/include" \
    -I"$work" -I"$top/preload" "$top"/preload/*.c -o "$work/libcollprof.so" \
    -ldl -lpthread || { fail "the shim does not build"; finish; }
$CC -O2 -Wall -I"$top/include" -I"$top/include/collprof" -I"$work" -I"$top/common" -I"$top/analyzer/core" \
    -I"$top/analyzer/logs" "$here/summary.c" "$top/analyzer/logs/cp_logread.c" "$top/analyzer/logs/cp_partial.c" \
    "$top/common/cp_path.c" \
    -o "$work/summary" || { fail "summary does not build"; finish; }
$CC -O2 -Wall -I"$nccl_inc" -I"$CUDA/include" "$here/nccl_gpu.c" \
    -o "$work/nccl_gpu" -L"$nccl_lib" -L"$cuda_lib" \
    -Wl,-rpath,"$nccl_lib" -Wl,-rpath,"$cuda_lib" -l:libnccl.so.2 -lcudart \
    -lpthread || { fail "nccl_gpu does not build"; finish; }
if [ -n "$cupti_inc" ]; then
    # preload/cp_cuda_abi.h against this toolkit's cupti.h
    $CC -O2 -DHAVE_REAL_CUPTI_H -I"$work" -I"$top/tests" -I"$top/preload" \
        -I"$top/tests/unit" -isystem "$CUDA/include" -isystem "$cupti_inc" \
        "$top/tests/unit/cuda_abi.c" "$top/tests/unit/cuda_abi_ours.c" \
        "$top/tests/unit/cuda_abi_real.c" -o "$work/cuda_abi" &&
        "$work/cuda_abi" >"$work/cuda_abi.tap" 2>&1
    if grep -q '^not ok' "$work/cuda_abi.tap" || ! grep -q '^1\.\.' "$work/cuda_abi.tap"; then
        grep '^not ok\|^#' "$work/cuda_abi.tap" | head -n 20
        fail "cp_cuda_abi.h disagrees with this toolkit's cupti.h"
    else
        echo "cp_cuda_abi.h agrees with $cupti_inc/cupti.h ($(grep -c '^ok' "$work/cuda_abi.tap") facts)"
    fi
fi
# NCCL's profiler plugin (docs/nccl-profiler.md) and its checker
$CC -O2 -g -fPIC -shared -fvisibility=hidden -Wall -I"$top/include" \
    -I"$work" -I"$top/preload" "$top"/nccl-profiler/*.c \
    "$top/preload/cp_logwrite.c" "$top/preload/cp_logring.c" \
    "$top/preload/cp_logfile.c" "$top/preload/cp_logenc.c" "$top/preload/cp_config.c" \
    -o "$work/libcollprof-nccl-profiler.so" -ldl -lpthread ||
    fail "the NCCL profiler plugin does not build"
$CC -O2 -Wall -I"$top/include" -I"$top/include/collprof" -I"$work" -I"$top/common" -I"$top/analyzer/core" \
    -I"$top/analyzer/logs" "$here/plugin_check.c" \
    "$top/analyzer/logs/cp_logread.c" "$top/analyzer/logs/cp_partial.c" "$top/common/cp_path.c" \
    -o "$work/plugin_check" || fail "plugin_check does not build"
echo "built in $(($(date +%s) - t_start)) s"

# Where CUPTI and the runtime live, for the shim's dlopen too.
LD_LIBRARY_PATH="$cuda_lib${cupti_lib:+:$cupti_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

run_shim() { # run_shim TIMER DIR CMD... (stdout/stderr to DIR.out/.err)
    timer=$1
    dir=$2
    shift 2
    env COLLPROF_DIR="$dir" COLLPROF_TIMER="$timer" \
        LD_PRELOAD="$work/libcollprof.so" timeout 150 "$@" \
        >"$dir.out" 2>"$dir.err"
}

for timer in cupti event host auto; do
    expect=$timer
    [ "$timer" = auto ] && expect=cupti # a GPU and nobody else on CUPTI
    dir=$work/nccl.$timer
    echo "== nccl_gpu, COLLPROF_TIMER=$timer"
    if ! run_shim "$timer" "$dir" "$work/nccl_gpu" all; then
        cat "$dir.out" "$dir.err"
        fail "nccl_gpu failed under COLLPROF_TIMER=$timer"
        continue
    fi
    grep -v '^nccl_gpu: [0-9]' "$dir.out" | head -n 3
    if grep -q '^collprof: ' "$dir.err"; then
        echo "stderr:"
        grep '^collprof: ' "$dir.err"
        [ "$timer" = host ] || [ "$timer" = auto ] ||
            fail "COLLPROF_TIMER=$timer warned: it could not be had"
    fi
    "$work/summary" --expect "$expect" --program nccl_gpu "$dir" >"$dir.sum"
    rc=$?
    cat "$dir.sum"
    [ $rc -eq 0 ] || fail "checks of COLLPROF_TIMER=$timer"
done

echo "== cupti against event: 256 MB all-reduce, median GPU time"
c=$(sed -n 's/^allreduce-256MB-gpu-ns //p' "$work/nccl.cupti.sum" 2>/dev/null)
e=$(sed -n 's/^allreduce-256MB-gpu-ns //p' "$work/nccl.event.sum" 2>/dev/null)
if [ -n "$c" ] && [ -n "$e" ]; then
    ratio=$(awk -v c="$c" -v e="$e" 'BEGIN { printf "%.2f", e / c }')
    echo "cupti $c ns, event $e ns, event/cupti $ratio"
    awk -v r="$ratio" 'BEGIN { exit !(r > 0.5 && r < 2) }' ||
        fail "cupti and event disagree by more than 2x"
else
    fail "no 256 MB all-reduce interval to compare"
fi

echo "== host time added per 4-byte ncclAllReduce call (median of 3 runs)"
overhead() { # overhead [TIMER] -> ns per call, median of 3 runs
    for i in 1 2 3; do
        if [ -n "${1:-}" ]; then
            env COLLPROF_DIR="$work/ovh.$1.$i" COLLPROF_TIMER="$1" \
                LD_PRELOAD="$work/libcollprof.so" timeout 60 \
                "$work/nccl_gpu" overhead
        else
            timeout 60 "$work/nccl_gpu" overhead
        fi
    done 2>/dev/null | sed -n 's/^overhead: \([0-9.]*\) ns.*/\1/p' | sort -n | sed -n 2p
}
bare=$(overhead)
line="without the shim ${bare:-?} ns/call"
for timer in host cupti event; do
    t=$(overhead "$timer")
    if [ -n "$t" ] && [ -n "$bare" ]; then
        line="$line; $timer +$(awk -v t="$t" -v b="$bare" 'BEGIN { printf "%.0f", t - b }') ns"
    else
        line="$line; $timer ?"
        fail "no overhead figure for COLLPROF_TIMER=$timer"
    fi
done
echo "$line"

echo "== NCCL's profiler plugin: a graph of 2 all-reduces launched 100 times"
# with the shim (each API call once, the capture flagged) and alone
replays=100
for how in both plugin; do
    dir=$work/prof.$how
    pre=
    [ "$how" = both ] && pre=$work/libcollprof.so
    echo "-- $how"
    env COLLPROF_DIR="$dir" LD_PRELOAD="$pre" \
        NCCL_PROFILER_PLUGIN="$work/libcollprof-nccl-profiler.so" \
        timeout 150 "$work/nccl_gpu" graph $replays >"$dir.out" 2>"$dir.err"
    rc=$?
    cat "$dir.out"
    grep '^collprof: ' "$dir.err"
    if [ $rc -ne 0 ]; then
        tail -n 20 "$dir.err"
        fail "nccl_gpu graph with the plugin ($how) failed"
        continue
    fi
    v=$(sed -n 's/^nccl_gpu: NCCL \([0-9]*\):.*/\1/p' "$dir.out")
    if [ "${v:-0}" -lt 22300 ]; then
        echo "NCCL ${v:-?} has no profiler API v3+ (2.23): the plugin declines, skipped"
        break
    fi
    "$work/plugin_check" $replays "$dir" >"$dir.chk"
    rc=$?
    cat "$dir.chk"
    [ $rc -eq 0 ] || fail "checks of the plugin's records ($how)"
done
# the join of shim and plugin, where this tree's collprof is built
cp=$top/build/analyzer/collprof
if [ -x "$cp" ] && [ -d "$work/prof.both" ] && command -v python3 >/dev/null &&
    "$cp" analyze "$work/prof.both" -o "$work/prof.rep" >/dev/null 2>&1; then
    j=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["nccl_profiler"]["join"]; print(j["joined_calls"], j["graph_launched_calls"], j["timed_by_kernel_interval"])' \
        "$work/prof.rep/report.json" 2>/dev/null)
    echo "collprof analyze: joined, graph launches, timed by kernel: ${j:-?}"
    [ "$j" = "15 $((2 * replays)) 15" ] ||
        fail "the shim's 15 calls that ran are not all joined with the plugin's ($j)"
else
    echo "collprof analyze of the join: skipped (build the tree in $top/build)"
fi

echo "== PyTorch torch.distributed (NCCL backend, world size 1)"
if python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' \
    >/dev/null 2>&1; then
    for timer in cupti event host; do
        dir=$work/torch.$timer
        echo "-- COLLPROF_TIMER=$timer"
        if ! run_shim "$timer" "$dir" python3 "$here/torch_dist.py"; then
            tail -n 20 "$dir.err"
            fail "torch under COLLPROF_TIMER=$timer"
            continue
        fi
        cat "$dir.out"
        grep '^collprof: ' "$dir.err"
        "$work/summary" --expect "$timer" --program torch "$dir" >"$dir.sum"
        rc=$?
        cat "$dir.sum"
        [ $rc -eq 0 ] || fail "checks of torch under COLLPROF_TIMER=$timer"
    done
else
    echo "torch with CUDA is not installed here: skipped (pip install torch)"
fi
finish
