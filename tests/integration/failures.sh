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

# A file-size limit, format 3: the log's second megabyte cannot be had.
# 2 ranks, enough calls (28 per step) to pass 16384 records.
ranks=2
steps=700
wrap="prlimit --fsize=1572864 --"
run fsize COLLPROF_DIR="$work/fsize" COLLPROF_LOG_FORMAT=3
st=$?
wrap=""
(exit $st)
ok $? "format 3, file-size limit hit mid-run: the job completes"
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

# The same in format 4 (the default): the header and the ring (4 KiB +
# 1152 KiB) fit, and 32 KiB of stream; then the stream cannot be written,
# the ring fills (16384 more calls) and the shim turns itself off.
# Everything up to then is kept: what the stream holds and the whole ring.
steps=1500
wrap="prlimit --fsize=$((4096 + 16384 * 72 + 32768)) --"
run fsize4 COLLPROF_DIR="$work/fsize4"
st=$?
wrap=""
(exit $st)
ok $? "format 4, file-size limit hit mid-run: the job completes"
grep -q "all results correct" "$work/fsize4.out"
ok $? "results correct"
w=$(warnings fsize4)
ok $([ "$w" -eq 2 ]; echo $?) "one warning per process ($w)"
grep -q "cannot grow the log .*File too large" "$work/fsize4.err"
ok $? "it says the log cannot grow: $(head -n 1 "$work/fsize4.err")"
"$collprof" dump --summary "$work/fsize4" >"$work/fsize4.sum" 2>&1
ok $? "the logs are readable"
grep -q "turned off mid-run" "$work/fsize4.sum"
ok $? "and say profiling stopped early"
calls=$(sed -n 's/.*: \([0-9]*\) calls.*/\1/p' "$work/fsize4.sum" | head -n 1)
ok $([ "${calls:-0}" -gt 16384 ] && [ "${calls:-0}" -lt 40000 ]; echo $?) \
    "the stream's calls and the ring's are kept ($calls calls)"

# A really full disk: a tmpfs too small for what two ranks write (format
# 3: 3 MB for 2 MB each; format 4: 2.5 MB for two rings of 1.1 MB and
# their streams).
mkdir -p "$work/tfs"
if mount -t tmpfs -o size=3m collprof-test "$work/tfs" 2>/dev/null; then
    cleanup() { umount "$work/tfs" 2>/dev/null; rm -rf "$work"; }
    for f in 3 4; do
        if [ $f = 3 ]; then steps=700; else
            umount "$work/tfs"
            mount -t tmpfs -o size=2500k collprof-test "$work/tfs"
            steps=2500
        fi
        run full$f COLLPROF_DIR="$work/tfs/logs" COLLPROF_LOG_FORMAT=$f
        ok $? "format $f, disk full mid-run: the job completes"
        grep -q "all results correct" "$work/full$f.out"
        ok $? "results correct"
        w=$(warnings full$f)
        ok $([ "$w" -ge 1 ] && [ "$w" -le 2 ]; echo $?) "at most one warning per process ($w)"
        grep -q "No space left on device" "$work/full$f.err"
        ok $? "it says the disk is full"
        "$collprof" dump --summary "$work/tfs/logs" >/dev/null 2>&1
        ok $? "what was written is readable"
    done
    umount "$work/tfs"
else
    echo "# tmpfs cannot be mounted here (not root?): full-disk case skipped"
fi
done_testing
