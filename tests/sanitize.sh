#!/bin/sh
# sanitize.sh - the suite again under AddressSanitizer + UndefinedBehavior-
# Sanitizer (with LeakSanitizer), and the shim's multi-threaded tests under
# ThreadSanitizer.  Builds in build-asan/ and build-tsan/; check.sh runs it
# after the main suite.  Tests that load the shim into programs that are not
# ours (Slurm daemons, Chromium, the real libnccl) are left to the main run.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
jobs=$(nproc)

configure() {
    dir=$1; shift
    mkdir -p "$dir"
    if [ ! -f "$dir/Makefile" ] || [ configure -nt "$dir/Makefile" ]; then
        # no --enable-werror: -O1 with instrumentation warns spuriously
        (cd "$dir" && ../configure "$@" >configure.out 2>&1) ||
            { cat "$dir/configure.out"; exit 1; }
    fi
}

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
configure build-asan CFLAGS="-g -O1 $san" LDFLAGS="$san"
make -C build-asan -j"$jobs" >build-asan/make.out 2>&1 ||
    { grep -B2 -A8 -E 'error|Error' build-asan/make.out | head -60; exit 1; }
asan_tests=$(make -s -C build-asan print-sanitize-tests)
echo "sanitize: AddressSanitizer + UBSan:$asan_tests"
# The instrumented shim is preloaded into instrumented programs; ASan would
# insist on being first in the library list, which a preload cannot be.
status=0
ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    make -C build-asan -j"$jobs" check TESTS="$asan_tests" >build-asan/check.out 2>&1 ||
    status=1
sed -n '/^# TOTAL/,/^# ERROR/p' build-asan/test-suite.log 2>/dev/null | sed 's/^/asan: /'
if [ $status -ne 0 ]; then
    grep -l 'ERROR\|not ok\|runtime error' build-asan/tests/*/*.log 2>/dev/null |
        while read -r f; do echo "=== $f"; grep -B3 -A25 'ERROR: \|runtime error\|^not ok' "$f" | head -60; done
fi

tsan="-fsanitize=thread"
configure build-tsan CFLAGS="-g -O1 $tsan" LDFLAGS="$tsan"
# the analyzer's threads (-j N: the checks, the hang pass's reading, the
# read-ahead) run in collprof itself: threads.sh runs it on them
make -C build-tsan -j"$jobs" preload/libcollprof.la tests/bench/lib/libnccl.so.2 \
    analyzer/libcollprof-analysis.la analyzer/collprof tests/tools/gen_logs \
    >build-tsan/make.out 2>&1 ||
    { grep -B2 -A8 -E 'error|Error' build-tsan/make.out | head -40; exit 1; }
tsan_tests="tests/unit/logwrite.t tests/unit/policy.t tests/unit/shim_proc.t tests/unit/clock.t tests/analyze/threads.sh"
echo "sanitize: ThreadSanitizer: $tsan_tests"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    make -C build-tsan check TESTS="$tsan_tests" \
    >build-tsan/check.out 2>&1 || status=1
sed -n '/^# TOTAL/,/^# ERROR/p' build-tsan/test-suite.log 2>/dev/null | sed 's/^/tsan: /'
if [ $status -ne 0 ]; then
    for f in build-tsan/tests/unit/*.log build-tsan/tests/analyze/*.log; do
        grep -q 'WARNING: ThreadSanitizer\|not ok' "$f" 2>/dev/null &&
            { echo "=== $f"; head -n 80 "$f"; }
    done
fi
exit $status
