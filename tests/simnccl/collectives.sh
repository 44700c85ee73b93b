#!/bin/sh
# collectives.sh - coll_check (every operation x datatype x reduction,
# in-place, roots, groups, split, shrink) under simrun for several job
# shapes.  One test point per shape; a failure shows coll_check's lines.
. "${top_srcdir:-.}/tests/tap.sh"
bin="${top_builddir:-.}/tests/simnccl"
[ -x "$bin/simrun" ] && [ -x "$bin/coll_check" ] || skip_all "simrun or coll_check not built"
# The caller's settings must not slow or change the runs.
unset SIMNCCL_TOPO SIMNCCL_CHUNK_BYTES SIMNCCL_TIMEOUT
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

# check_run NAME [VAR=VALUE...] COMMAND...: one test point
check_run() {
    name=$1
    shift
    start=$(date +%s)
    if env "$@" 2>"$err"; then status=0; else status=1; fi
    ok $status "$name"
    if [ $status -ne 0 ]; then
        sed 's/^/#   /' "$err" | head -40
    else
        diag "$(grep 'checks\|error' "$err" | head -1) (wall $(( $(date +%s) - start )) s)"
    fi
}

# ranks nodes [VAR=VALUE for the ranks]
for shape in "1 1" "2 1" "2 2" "3 2" "4 4" "5 3 SIMNCCL_CHUNK_BYTES=1000" \
    "8 1" "8 4"; do
    set -- $shape
    check_run "coll_check on $1 rank(s), $2 node(s)${3:+ with $3}" ${3:-} \
        "$bin/simrun" -n "$1" --nodes "$2" --timeout 120 "$bin/coll_check"
done
check_run "3 processes of 2 ranks each: grouped init, all-reduce and split" \
    "$bin/simrun" -n 3 --nodes 2 --timeout 60 "$bin/coll_check" --multi 2
check_run "a dead rank: shrink around it, errors (not hangs) on the old comm" \
    SIMNCCL_TIMEOUT=10 "$bin/simrun" -n 3 --timeout 60 "$bin/coll_check" --fault
done_testing
