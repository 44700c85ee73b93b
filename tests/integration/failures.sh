#!/bin/sh
# failures.sh - the job always completes with correct results: unusable
# COLLPROF_DIR, a full disk, a file-size limit, bad COLLPROF_* values.  Each
# problem gives exactly one "collprof:" line per process.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$simrun" "$train_sim" "$shim" "$collprof"

# run NAME ENV... -- ranks and steps come from $ranks $steps
run() {
    name=$1; shift
    env "$@" LD_PRELOAD="$shim" $wrap "$simrun" -n "$ranks" --nodes 2 --timeout 120 -- \
        "$train_sim" --pattern ddp --steps "$steps" --scale 0.01 \
        >"$work/$name.out" 2>"$work/$name.err"
}
warnings() { grep -c '^collprof: ' "$work/$1.err"; }

ranks=4
wrap=""
steps=3
run nodir COLLPROF_DIR=/proc/version/logs
ok $? "COLLPROF_DIR under a file: the job completes"
w=$(warnings nodir)
ok $([ "$w" -eq 4 ]; echo $?) "exactly one warning per process ($w for 4)"
grep -q "cannot create log directory /proc/version/logs" "$work/nodir.err"
ok $? "the warning names the directory: $(head -n 1 "$work/nodir.err")"
grep -q "all results correct" "$work/nodir.out"
ok $? "results correct"

mkdir -p "$work/ro"
run badtimer COLLPROF_DIR="$work/badtimer" COLLPROF_TIMER=fastest
ok $? "COLLPROF_TIMER=fastest: the job completes"
w=$(warnings badtimer)
ok $([ "$w" -eq 4 ]; echo $?) "one warning per process ($w)"
grep -q "COLLPROF_TIMER='fastest'" "$work/badtimer.err"
ok $? "the warning names the variable and value"
n=$(ls "$work/badtimer"/*.cplog | wc -l)
ok $([ "$n" -eq 4 ]; echo $?) "profiling continued with the default timer ($n logs)"

run typo COLLPROF_DIR="$work/typo" COLLPROF_DIRR=/x
w=$(warnings typo)
ok $([ "$w" -eq 4 ]; echo $?) "a misspelt COLLPROF_ variable: one warning per process ($w)"

run disabled COLLPROF_DIR="$work/disabled" COLLPROF_DISABLE=1
ok $? "COLLPROF_DISABLE=1: the job completes"
check "no log written" test ! -e "$work/disabled"
check "nothing printed" test ! -s "$work/disabled.err"

# A file-size limit: the log's second megabyte cannot be had.  2 ranks,
# enough calls (28 per step) to pass 16384 records.
ranks=2
steps=700
wrap="prlimit --fsize=1572864 --"
run fsize COLLPROF_DIR="$work/fsize"
st=$?
wrap=""
(exit $st)
ok $? "file-size limit hit mid-run: the job completes"
grep -q "all results correct" "$work/fsize.out"
ok $? "results correct"
w=$(warnings fsize)
ok $([ "$w" -eq 2 ]; echo $?) "one warning per process ($w)"
grep -q "cannot grow the log" "$work/fsize.err"
ok $? "it says the log cannot grow: $(head -n 1 "$work/fsize.err")"
"$collprof" dump --summary "$work/fsize" >"$work/fsize.sum" 2>&1
ok $? "the logs are readable"
grep -q "turned off mid-run" "$work/fsize.sum"
ok $? "and say profiling stopped early"
calls=$(sed -n 's/.*: \([0-9]*\) calls.*/\1/p' "$work/fsize.sum" | head -n 1)
ok $([ "${calls:-0}" -gt 16000 ] && [ "${calls:-0}" -lt 16384 ]; echo $?) \
    "the first megabyte of records is kept ($calls calls)"

# A really full disk: a 3 MB tmpfs for two ranks that each want 2 MB.
mkdir -p "$work/tfs"
if mount -t tmpfs -o size=3m collprof-test "$work/tfs" 2>/dev/null; then
    cleanup() { umount "$work/tfs" 2>/dev/null; rm -rf "$work"; }
    steps=700
    run full COLLPROF_DIR="$work/tfs/logs"
    ok $? "disk full mid-run: the job completes"
    grep -q "all results correct" "$work/full.out"
    ok $? "results correct"
    w=$(warnings full)
    ok $([ "$w" -ge 1 ] && [ "$w" -le 2 ]; echo $?) "at most one warning per process ($w)"
    grep -q "No space left on device" "$work/full.err"
    ok $? "it says the disk is full"
    "$collprof" dump --summary "$work/tfs/logs" >/dev/null 2>&1
    ok $? "what was written is readable"
    umount "$work/tfs"
else
    echo "# tmpfs cannot be mounted here (not root?): full-disk case skipped"
fi
done_testing
