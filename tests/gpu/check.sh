#!/bin/sh
# check.sh - tests/gpu/run.sh under make check: skipped (with run.sh's
# reason) where there is no NVIDIA GPU, CUDA toolkit or NCCL; else each of
# its "check:" lines and each "FAIL:" line is a TAP result.
. "$top_srcdir/tests/tap.sh"
out=$(sh "$top_srcdir/tests/gpu/run.sh" 2>&1)
rc=$?
if [ $rc -eq 77 ]; then
    skip_all "$(echo "$out" | sed -n 's/^tests\/gpu\/run.sh: skipped: //p' | head -n 1)"
fi
echo "$out" | sed 's/^/# /'
echo "$out" | grep '^check: ' | while read -r line; do
    case $line in
    "check: pass:"*) echo "ok - ${line#check: pass: }" ;;
    *) echo "not ok - ${line#check: }" ;;
    esac
done >"${TMPDIR:-/tmp}/cp-gpu-check.$$"
while read -r line; do
    case $line in
    ok*) ok 0 "${line#ok - }" ;;
    *) ok 1 "${line#not ok - }" ;;
    esac
done <"${TMPDIR:-/tmp}/cp-gpu-check.$$"
rm -f "${TMPDIR:-/tmp}/cp-gpu-check.$$"
ok $rc "tests/gpu/run.sh exits 0 (every check and step passed)"
done_testing
