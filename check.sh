#!/bin/sh
# check.sh - install what collprof needs, build it with warnings as errors,
# and run the whole test suite.  Works as root on a fresh Debian 12 machine,
# and again on a second run.
#   ./check.sh            set up, build, make check
#   ./check.sh --no-deps  skip the package installation
set -eu
cd "$(dirname "$0")"
if [ "${1:-}" != "--no-deps" ]; then
    sh tests/setup-deps.sh
fi
sh tests/build.sh
cd build
status=0
make -j"$(nproc)" check || status=$?
if [ $status -ne 0 ]; then
    # show the failing tests' logs, so a CI log says why
    for f in $(find tests -name '*.log' 2>/dev/null); do
        if grep -q '^not ok\|^ERROR\|^FAIL' "$f" 2>/dev/null; then
            # each failure with the diagnostics that follow it, then the end
            echo "=== $f"
            grep -A 30 '^not ok' "$f" | head -n 150
            echo "--- the end of $f"
            tail -n 15 "$f"
        fi
    done
fi
if [ -f test-suite.log ]; then
    n() { sed -n "s/^# $1: *//p" test-suite.log | head -n 1; }
    # FAIL counts failed test points, ERROR test scripts that exited with an
    # error (a script with a failed point does too): counted apart
    summary="$(n PASS) passed, $(n FAIL) failed, $(n SKIP) skipped"
    [ "$(n ERROR)" = 0 ] || [ -z "$(n ERROR)" ] ||
        summary="$summary; $(n ERROR) test script(s) exited with an error"
fi
cd ..
# The same tests again under ASan + UBSan, and the shim's threads under TSan.
if [ "${CP_NO_SANITIZE:-}" != 1 ]; then
    sh tests/sanitize.sh || status=1
fi
echo "check: ${summary:-no test ran}"
exit $status
