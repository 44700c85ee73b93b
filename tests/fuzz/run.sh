#!/bin/sh
# run.sh - build the libFuzzer targets with clang and run each for a short,
# bounded time over its seed corpus, then replay every regression case.
#   CP_FUZZ_SECONDS=N   seconds per target (default 5; README: longer runs)
# A crash fails the test and leaves the input in $CP_FUZZ_OUT (default a
# temp dir, printed) to be added to tests/fuzz/regress/<target>/.
. "$top_srcdir/tests/tap.sh"
s=$top_srcdir
b=$top_builddir
command -v clang >/dev/null 2>&1 || skip_all "clang not installed"
work=$(mktemp -d /tmp/cp-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}\n' >"$work/probe.c"
clang -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null ||
    skip_all "clang cannot build libFuzzer targets (libclang-rt-14-dev missing)"

secs=${CP_FUZZ_SECONDS:-5}
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
        -I$b -I$s/include -I$s/include/collprof -I$s/common -I$s/analyzer/core -I$s/analyzer/logs
        -I$s/analyzer/analysis -I$s/analyzer/bench -I$s/tests/simnccl -I$s/plugin
        -I$s/reports $(pkg-config --cflags jansson 2>/dev/null)"
build() {
    name=$1; shift
    # shellcheck disable=SC2086
    clang $cflags "$s/tests/fuzz/fuzz_$name.c" "$@" -lm -o "$work/fuzz_$name" \
        2>"$work/$name.build"
}
# the analysis library and the HTML writer, for fuzz_report
lib_sources() {
    for f in "$s"/common/cp_*.c "$s"/analyzer/core/cp_*.c "$s"/analyzer/logs/cp_*.c \
        "$s"/analyzer/analysis/cp_*.c "$s"/analyzer/bench/cp_*.c \
        "$s"/reports/cp_*.c; do
        case $f in */cp_bench_run.c) ;; *) echo "$f" ;; esac
    done
}
for t in logread log4 partial topo profile plugin report ports probeview; do
    case $t in
    logread) build logread "$s/analyzer/logs/cp_logread.c" \
        "$s/analyzer/logs/cp_partial_src.c" "$s/analyzer/logs/cp_logswap.c" \
        "$s/analyzer/logs/cp_log4src.c" \
        "$s/common/cp_path.c" ;;
    log4) build log4 "$s/analyzer/logs/cp_log4src.c" \
        "$s/analyzer/logs/cp_logswap.c" "$s/analyzer/logs/cp_logread.c" \
        "$s/analyzer/logs/cp_partial_src.c" "$s/analyzer/logs/cp_scan.c" \
        "$s/common/cp_path.c" -lpthread ;;
    partial) build partial "$s/analyzer/logs/cp_logread.c" \
        "$s/analyzer/logs/cp_partial.c" "$s/analyzer/logs/cp_partial_src.c" \
        "$s/analyzer/logs/cp_logswap.c" "$s/analyzer/logs/cp_log4src.c" \
        "$s/analyzer/logs/cp_scan.c" "$s/common/cp_path.c" -lpthread ;;
    topo) build topo "$s/tests/simnccl/sim_topo.c" ;;
    profile) build profile "$s/analyzer/core/cp_profile.c" "$s/analyzer/core/cp_units.c" \
        "$s/common/cp_path.c" ;;
    plugin) build plugin "$s/plugin/cp_args.c" "$s/common/cp_text.c" \
        "$s/common/cp_path.c" ;;
    report) build report $(lib_sources) -ljansson -ldl -lpthread ;;
    ports) build ports "$s/analyzer/logs/cp_ports.c" \
        "$s/common/cp_jsonfile.c" "$s/common/cp_path.c" \
        -ljansson -ldl ;;
    probeview) build probeview "$s/analyzer/logs/cp_probeview.c" \
        "$s/analyzer/core/cp_jsoncheck.c" "$s/common/cp_jsonfile.c" \
        "$s/common/cp_path.c" -ljansson ;;
    esac
    if ! ok $? "fuzz_$t builds"; then
        sed 's/^/# /' "$work/$t.build" | head -n 20
        continue
    fi
    mkdir -p "$work/corpus-$t" "$work/crash-$t"
    cp "$s/tests/fuzz/corpus/$t"/* "$work/corpus-$t/" 2>/dev/null
    if [ -d "$s/tests/fuzz/regress/$t" ] && [ -n "$(ls "$s/tests/fuzz/regress/$t")" ]; then
        "$work/fuzz_$t" "$s/tests/fuzz/regress/$t"/* >"$work/$t.regress" 2>&1
        ok $? "fuzz_$t: every regression case passes"
    fi
    "$work/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
        -artifact_prefix="$work/crash-$t/" "$work/corpus-$t" >"$work/$t.log" 2>&1
    st=$?
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/$t.log" | tail -n 1)
    if ! ok $st "fuzz_$t: ${runs:-?} runs in ${secs}s without a finding"; then
        out=${CP_FUZZ_OUT:-/tmp}
        cp "$work/crash-$t"/* "$out/" 2>/dev/null
        grep -A 12 'ERROR\|runtime error' "$work/$t.log" | head -n 30 | sed 's/^/# /'
        echo "# crashing inputs copied to $out"
    fi
done
done_testing
