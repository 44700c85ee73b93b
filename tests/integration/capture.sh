#!/bin/sh
# capture.sh - every train_sim pattern under simrun -n 8 --nodes 4, recorded
# with collprof: every call logged exactly once on every rank with the right
# op, size, communicator and sequence; results identical without the shim.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

for p in ddp fsdp tp moe pp; do
    d=$work/$p
    mkdir -p "$d"
    "$collprof" record -q -o "$d/logs" -- "$simrun" -n 8 --nodes 4 --timeout 120 \
        -- "$train_sim" --pattern $p --steps 2 --expect "$d/expect.%d" \
        >"$d/with.out" 2>"$d/with.err"
    ok $? "$p: recorded run exits 0"
    "$simrun" -n 8 --nodes 4 --timeout 120 -- "$train_sim" --pattern $p --steps 2 \
        >"$d/without.out" 2>"$d/without.err"
    ok $? "$p: run without the shim exits 0"
    check "$p: same output with and without the shim" cmp -s "$d/with.out" "$d/without.out"
    check "$p: the shim printed nothing" test ! -s "$d/with.err"
    n=$(ls "$d/logs"/*.cplog 2>/dev/null | wc -l)
    ok $([ "$n" -eq 8 ]; echo $?) "$p: 8 rank logs ($n)"
    "$collprof" dump --csv "$d/logs" >"$d/dump.csv"
    python3 "$s/tests/integration/compare_expect.py" "$d/dump.csv" "$d/expect.%d" 8 \
        >"$d/compare.tap"
    ok $? "$p: the log matches the calls train_sim made"
    sed 's/^/#   /' "$d/compare.tap" | grep -v '^#   ok' | head -n 20
    # nodes: two ranks on each of n1..n4
    nodes=$(cut -d, -f2 "$d/dump.csv" | sed 1d | sort -u | tr '\n' ' ')
    ok $([ "$nodes" = "n1 n2 n3 n4 " ]; echo $?) "$p: node names n1..n4 ($nodes)"
done

# a second run into the same directory is refused, the first run's logs kept
d=$work/ddp
sum=$(cat "$d/logs"/*.cplog | cksum)
"$collprof" record -q -o "$d/logs" -- "$simrun" -n 2 --nodes 1 --timeout 120 \
    -- "$train_sim" --pattern ddp --steps 1 >"$d/again.out" 2>"$d/again.err"
ok $([ $? -eq 2 ]; echo $?) "record into a directory of rank logs: refused (status 2)"
check "  the message names the directory and the 8 logs" \
    grep -q "$d/logs already holds 8 rank logs" "$d/again.err"
n=$(ls "$d/logs"/*.cplog | wc -l)
ok $([ "$n" -eq 8 ] && [ "$(cat "$d/logs"/*.cplog | cksum)" = "$sum" ]; echo $?) \
    "  the earlier logs are untouched ($n)"
check "  the command did not run" test ! -s "$d/again.out"
done_testing
