#!/bin/sh
# usage.sh - collprof bench's command line: help, usage errors (exit 2, one
# message starting "collprof bench: "), and failures to run (exit 1): no
# NCCL, an unwritable output.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
need "$collprof"

"$collprof" bench --help >"$work/help" 2>&1
ok $? "--help exits 0"
check "--help names the options" grep -q -- '--write-profile FILE' "$work/help"
check "collprof --help lists bench" sh -c "'$collprof' --help | grep -q '^  bench '"

# usage_error ARGS...: exit 2 and one "collprof bench: " line
usage_error() {
    "$collprof" bench "$@" >"$work/out" 2>"$work/err"
    rc=$?
    first=$(head -c 16 "$work/err")
    if [ $rc -eq 2 ] && [ "$first" = "collprof bench: " ] && [ "$(wc -l <"$work/err")" -eq 1 ]; then
        ok 0 "usage error: $*"
    else
        ok 1 "usage error: $* (exit $rc)"
        sed 's/^/#   /' "$work/err"
    fi
}
usage_error --ops allreduce,bogus
usage_error --sizes 16MB-1KB
usage_error --sizes 1KB-16Mb
usage_error --iters 0
usage_error --point-time 10
usage_error --memory gpu
usage_error --factor 1
usage_error --import
usage_error somefile
usage_error --op allreduce
usage_error --import x --link both
usage_error --bogus

"$collprof" bench --nccl "$work/no-such-libnccl.so.2" >"$work/out" 2>"$work/err"
ok $([ $? -eq 1 ]; echo $?) "an NCCL that cannot be loaded: exit 1"
check "... named" grep -q "^collprof bench: cannot load $work/no-such-libnccl.so.2" "$work/err"
usage_error --iters
"$collprof" bench --import "$data/autodl-2080ti-x2.all_reduce_perf.txt" \
    --json /nonexistent/dir/x.json >"$work/out" 2>"$work/err"
ok $([ $? -eq 1 ]; echo $?) "an unwritable --json: exit 1"
check "... named" grep -q '^collprof bench: cannot write /nonexistent/dir/x.json' "$work/err"
RANK=3 WORLD_SIZE=2 "$collprof" bench --nccl "$b/tests/simnccl/lib/libnccl.so.2" \
    >"$work/out" 2>"$work/err"
ok $([ $? -eq 1 ]; echo $?) "a rank beyond the world size: exit 1"
check "... named" grep -q '^collprof bench: RANK=3 is not a number from 0 to 1' "$work/err"
done_testing
