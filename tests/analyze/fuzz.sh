#!/bin/sh
# fuzz.sh - collprof analyze on randomly damaged copies of a job's logs
# never crashes (fuzz.py; a fixed seed, so failures reproduce).
b=${top_builddir:-.}
[ -x "$b/analyzer/collprof" ] && [ -x "$b/tests/tools/gen_logs" ] || {
    echo "1..0 # SKIP not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
t=$(mktemp -d /tmp/cp-fuzzbase-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
"$b/tests/tools/gen_logs" -o "$t/logs" --pattern mixed --ranks 8 \
    --ranks-per-node 2 --steps 3 || exit 1
python3 "${top_srcdir:-.}/tests/analyze/fuzz.py" "$t/logs" "${CP_FUZZ_ITERATIONS:-40}" 1 \
    "$b/analyzer/collprof"
