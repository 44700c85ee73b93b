#!/bin/sh
# log4.sh - log format 4's writers against tests/tools/log4.py, a reader
# written from docs/log-format.md apart from the analyzer's: gen_logs'
# format 4 holds the very slots of its format 3 from the same seed (calls,
# groups, device intervals, the other byte order); steady bytes per slot
# within the target; the shim's logs hold every call, in order, through
# the log thread, through a ring so small that writers encode themselves,
# and after kill -9 mid-run (the calls not yet in the stream are in the
# ring).
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
s=${top_srcdir:-.}
gen="$b/tests/tools/gen_logs"
py="$s/tests/tools/log4.py"
shim="$b/preload/.libs/libcollprof.so"
loop="$b/tests/bench/null_loop"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
command -v python3 >/dev/null || skip_all "no python3"
t=$(mktemp -d /tmp/cp-log4-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM

# same DIR4 DIR3: every log of DIR3 read the same from DIR4
same() {
    for f in "$2"/*.cplog; do
        python3 "$py" same "$1/$(basename "$f")" "$f" || return 1
    done
}
for p in ddp-small mixed 3d; do
    for opt in "" --gpu --swap; do
        "$gen" -o "$t/$p$opt.3" --format 3 --pattern $p --ranks 8 --steps 6 \
            $opt >/dev/null &&
            "$gen" -o "$t/$p$opt.4" --pattern $p --ranks 8 --steps 6 $opt \
                >/dev/null
        check "gen_logs $p ${opt:-(host times)}: format 4 holds format 3's slots" \
            same "$t/$p$opt.4" "$t/$p$opt.3"
    done
done

# the plugin's kinds as templates: kernel phases (kind 10), both byte orders
for opt in "" --swap; do
    "$gen" -o "$t/ph$opt.3" --format 3 --pattern ddp-small --ranks 4 \
        --steps 4 --phases $opt >/dev/null &&
        "$gen" -o "$t/ph$opt.4" --pattern ddp-small --ranks 4 --steps 4 \
            --phases $opt >/dev/null
    check "gen_logs --phases ${opt:-(this byte order)}: format 4's templated records are format 3's slots" \
        same "$t/ph$opt.4" "$t/ph$opt.3"
done

# the capture policy's aggregates (kind 12, templated: two bytes of fields
# present): log4.py reads the same calls, seq range and first start of
# each as the analyzer (collprof dump --all), both byte orders
collprof="$b/analyzer/collprof"
aggs_same() { # LOG
    python3 "$py" slots "$1" |
        python3 -c '
import struct, sys
big = sys.argv[1] == "--swap"
for line in sys.stdin:
    r = line.split()[1]
    if r[:2] != "0c":
        continue
    b = bytes.fromhex(r)
    calls, s0, s1 = struct.unpack_from(">III" if big else "<III", b, 24)
    first, = struct.unpack_from(">Q" if big else "<Q", b, 48)
    print("calls %d seq %d..%d first %d" % (calls, s0, s1, first))
' "$2" >"$t/aggs.py" &&
        "$collprof" dump --all "$1" |
        sed -n 's/.* aggregate .* \(calls [0-9]* seq [0-9.]*\) interval [0-9]* ms \(first [0-9]*\) .*/\1 \2/p' \
            >"$t/aggs.c" &&
        [ -s "$t/aggs.c" ] && cmp -s "$t/aggs.py" "$t/aggs.c"
}
for opt in "" --swap; do
    rm -rf "$t/agg$opt"
    "$gen" -o "$t/agg$opt" --ranks 2 --ranks-per-node 1 --pattern mixed \
        --rate 200 --duration 3h --seed 5 $opt >/dev/null
    check "gen_logs --duration ${opt:-(this byte order)}: log4.py reads the aggregates as collprof dump does" \
        aggs_same "$(ls "$t/agg$opt"/*.cplog | head -n 1)" "$opt"
done

# steady: bytes per slot a log grows by from 20 to 60 steps
grow() { # PATTERN
    "$gen" -o "$t/g1" --pattern $1 --ranks 4 --steps 20 >/dev/null &&
        "$gen" -o "$t/g2" --pattern $1 --ranks 4 --steps 60 >/dev/null &&
        f=$(cd "$t/g1" && ls | head -n 1) &&
        python3 "$py" size "$t/g1/$f" >"$t/s1" &&
        python3 "$py" size "$t/g2/$f" >"$t/s2" &&
        awk 'NR == FNR { n = $2; b = $4; next }
             { v = ($4 - b) / ($2 - n); print v; exit !(v <= 8) }' \
            "$t/s1" "$t/s2"
}
for p in ddp-small ddp-large 3d; do
    v=$(grow $p)
    ok $? "gen_logs $p: $v bytes per slot in steady state (<= 8)"
done

# calls_in LOG N: LOG holds at least N calls (null_loop's warm-up adds a
# tenth and some paced ones), with seq 0, 1, 2 ... in order, all finished
# but possibly the last
calls_in() {
    python3 "$py" calls "$1" >"$t/calls" &&
        awk -v want="$2" '$1 != NR - 1 && !bad { print "# call " NR " has seq " $1; bad = 1 }
             $2 == 0 { open++ }
             END { if (NR < want) { print "# " NR " calls, fewer than " want; bad = 1 }
                   if (open > 1) { print "# " open " calls in flight"; bad = 1 }
                   exit bad }' "$t/calls"
}
# every call (the capture policy would fold most of these loops' calls)
export COLLPROF_DETAIL=all
if [ -f "$shim" ] && [ -x "$loop" ]; then
    rm -rf "$t/l"
    COLLPROF_DIR="$t/l" LD_PRELOAD="$shim" "$loop" 100000 >/dev/null 2>&1
    check "the shim, 100000 calls: all of them, in order, in format 4" \
        calls_in "$(ls "$t"/l/*.cplog)" 110000
    rm -rf "$t/r"
    COLLPROF_RING=64 COLLPROF_DIR="$t/r" LD_PRELOAD="$shim" "$loop" 100000 \
        >/dev/null 2>&1
    check "... a ring of 64 cells (writers encode when it is full): all of them" \
        calls_in "$(ls "$t"/r/*.cplog)" 110000
    rm -rf "$t/k"
    COLLPROF_DIR="$t/k" LD_PRELOAD="$shim" "$loop" 200000000 >/dev/null 2>&1 &
    pid=$!
    # past the warm-up's 150 ms of paced calls, into the calls back to back
    sleep 0.2
    kill -9 $pid
    wait $pid 2>/dev/null
    check "... killed mid-run (kill -9): every call entered up to the kill, in order" \
        calls_in "$(ls "$t"/k/*.cplog)" 100
else
    skip 3 "the shim or tests/bench/null_loop is not built"
fi
done_testing
