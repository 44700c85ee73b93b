#!/bin/sh
# check.sh - install what collprof needs, build it, and run the whole suite.
# Works as root on a fresh Debian 12 machine, and again on a second run.
#   ./check.sh            set up, build with warnings as errors, make check
#   ./check.sh --no-deps  skip the package installation
set -eu
cd "$(dirname "$0")"
top=$(pwd)

if [ "${1:-}" != "--no-deps" ]; then
    sh "$top/tests/setup-deps.sh"
fi

autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p build
cd build
../configure --enable-werror --prefix="$top/build/inst" >configure.out 2>&1 || {
    cat configure.out; exit 1; }
tail -n 8 configure.out
make -j"$(nproc)" >make.out 2>&1 || { cat make.out; exit 1; }
status=0
make -j"$(nproc)" check || status=$?
if [ $status -ne 0 ]; then
    for f in $(find . -name '*.log' -newer make.out); do
        if grep -q '^not ok\|^ERROR\|^FAIL' "$f" 2>/dev/null; then
            echo "=== $f"; tail -n 60 "$f"
        fi
    done
fi
# automake prints the totals; a plain line for readers of CI logs:
if [ -f test-suite.log ]; then
    pass=$(grep -c '^PASS: ' tests/*.log tests/*/*.log 2>/dev/null | awk -F: '{s+=$NF} END {print s+0}')
    fail=$(sed -n 's/^# FAIL: *//p' test-suite.log | head -n1)
    skip=$(sed -n 's/^# SKIP: *//p' test-suite.log | head -n1)
    echo "check: $(sed -n 's/^# PASS: *//p' test-suite.log | head -n1) passed, ${fail:-0} failed, ${skip:-0} skipped"
fi
exit $status
