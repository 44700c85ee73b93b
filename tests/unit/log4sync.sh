#!/bin/sh
# log4sync.sh - format 4's sync points (docs/log-format.md, "Sync
# points"): a log written with them holds the very slots of the same log
# without them and of format 3 (the analyzer's reader and log4.py, both
# byte orders); a window read from the sync point before it
# (cp_scan_seek_time, tests/bench/log_window) gives the calls that reading
# it whole gives, reading a fraction of the bytes; the shim's logs have
# them, also after kill -9; a damaged sync point, padding or sync_bytes is
# an error that names the file and the offset, and a reader of the whole
# log goes on at the next sync point after damage.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
s=${top_srcdir:-.}
gen="$b/tests/tools/gen_logs"
win="$b/tests/bench/log_window"
cp="$b/analyzer/collprof"
py="$s/tests/tools/log4.py"
shim="$b/preload/.libs/libcollprof.so"
loop="$b/tests/bench/null_loop"
[ -x "$gen" ] && [ -x "$win" ] || skip_all "gen_logs or log_window not built"
command -v python3 >/dev/null || skip_all "no python3"
t=$(mktemp -d /tmp/cp-log4sync-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM

# same DIR_A DIR_B: every log of DIR_B read the same from DIR_A (log4.py)
same() {
    for f in "$2"/*.cplog; do
        python3 "$py" same "$1/$(basename "$f")" "$f" || return 1
    done
}
for opt in "" --swap; do
    o="--pattern mixed --ranks 4 --calls 40000 --seed 7 $opt"
    "$gen" -o "$t/s$opt" --sync-bytes 16384 $o >/dev/null &&
        "$gen" -o "$t/n$opt" --sync-bytes 0 $o >/dev/null &&
        "$gen" -o "$t/3$opt" --format 3 $o >/dev/null
    ok $? "gen_logs ${opt:-(this byte order)}: with and without sync points, format 3"
    n=$(python3 - "$t/s$opt" <<'EOF'
import os, struct, sys
d = sys.argv[1]
f = os.path.join(d, sorted(os.listdir(d))[0])
data = open(f, "rb").read()
e = "<" if struct.unpack_from("<I", data, 8)[0] == 0x01020304 else ">"
flags, = struct.unpack_from(e + "I", data, 28)
off, end = struct.unpack_from(e + "QQ", data, 472)
sync, = struct.unpack_from(e + "I", data, 496)
print((end - 1) // sync if flags & 4 and sync else 0)
EOF
)
    check "... $n sync points in a log (the header's flag and sync_bytes)" \
        test "$n" -ge 10
    check "... log4.py: the log with sync points holds the slots of the one without" \
        same "$t/s$opt" "$t/n$opt"
    check "... log4.py: and those of format 3" same "$t/s$opt" "$t/3$opt"
    "$cp" dump "$t/s$opt" >"$t/ds" 2>&1 && "$cp" dump "$t/n$opt" >"$t/dn" 2>&1
    check "... collprof dump: the same records with and without" \
        cmp -s "$t/ds" "$t/dn"
done

# templated records (device intervals, kernel phases) across sync points
o="--pattern ddp-small --ranks 2 --calls 20000 --seed 9 --gpu --phases"
"$gen" -o "$t/ps" --sync-bytes 16384 $o >/dev/null &&
    "$gen" -o "$t/pn" --sync-bytes 0 $o >/dev/null
check "gen_logs --gpu --phases: templates defined again after each sync point, the same slots" \
    same "$t/ps" "$t/pn"

# windows: the calls read whole and from the sync point before the window
for w in "0 0.01" "0.4 0.41" "0.5 0.6" "0.99 1" "0 1" "1.5 2"; do
    "$win" $w "$t"/s/*.cplog >"$t/w.out" 2>&1
    ok $? "window [$w) of the span: the same calls read whole and from its sync point"
    sed 's/^/# /' "$t/w.out"
done
# the same through scans placed as the analysis places them: 64 KiB (the
# source reads a window of blocks in lent memory), 4 KiB (one block)
for p in 65536 4096; do
    for w in "0.4 0.41" "0.99 1"; do
        LOG_WINDOW_PLACE=$p "$win" $w "$t"/s/*.cplog >"$t/w.out" 2>&1
        ok $? "window [$w), a scan placed with $p bytes: the same calls whole and from its sync point"
        sed 's/^/# /' "$t/w.out"
    done
done
"$win" 0.5 0.51 "$t"/s/*.cplog >"$t/w.out" 2>&1
check "... a 1 % window reads under a quarter of the bytes" \
    awk '/^whole/ { w = $(NF - 2) } /^window/ { v = $(NF - 2) }
         END { exit !(v * 4 < w) }' "$t/w.out"
"$win" 0.5 0.51 "$t"/n/*.cplog >"$t/w.out" 2>&1
check "... logs without sync points: read from their start, the same calls" \
    grep -q "(0 slots skipped)" "$t/w.out"

# damage: a byte of a sync point's block, a byte of the zeros before it,
# sync_bytes not a power of two
f=$(ls "$t"/s/*.cplog | head -n 1)
soff=$(python3 -c "
import struct; d = open('$f', 'rb').read()
print(struct.unpack_from('<Q', d, 472)[0])")
at=$((soff + 4 * 16384))
cp "$f" "$t/bad.cplog"
printf '\377' | dd of="$t/bad.cplog" bs=1 seek=$((at + 30)) conv=notrunc 2>/dev/null
"$win" 0.3 0.31 "$t/bad.cplog" >"$t/w.out" 2>&1
check "a damaged sync point: the window's read names the file and its offset ($at)" \
    grep -q "bad.cplog: offset $at: sync point 4" "$t/w.out"
"$cp" dump --csv "$t/bad.cplog" >"$t/bad.csv" 2>"$t/d.err"
check "... read whole, the damage is named with the block's offset" \
    grep -q "offset $at" "$t/d.err"
# nothing lost past the next sync point: the reader goes on there
nxt=$((at + 16384))
check "... and the reading goes on at the next sync point ($nxt), the slots before it said lost" \
    grep -q "bad.cplog: offset $at: .*; read again from the sync point at offset $nxt ([1-9][0-9]* slots before it lost)" "$t/d.err"
"$cp" dump --csv "$f" >"$t/good.csv" 2>/dev/null
lost=$(sed -n 's/.*(\([0-9]*\) slots before it lost).*/\1/p' "$t/d.err" | head -n 1)
check "... the calls before the damaged block and from that sync point on, as in the undamaged log" \
    python3 - "$t/good.csv" "$t/bad.csv" <<'EOF'
import sys
good = open(sys.argv[1]).read().splitlines()
bad = open(sys.argv[2]).read().splitlines()
# bad: a prefix of good, then good's last calls: one gap in the middle
i = 0
while i < len(bad) and bad[i] == good[i]:
    i += 1
tail = len(bad) - i
sys.exit(not (i > 1 and tail > 0 and bad[i:] == good[len(good) - tail:]
              and len(bad) < len(good)))
EOF
cp "$f" "$t/pad.cplog"
pad=$(python3 - "$t/pad.cplog" "$at" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
at = int(sys.argv[2])
i = at - 1
while d[i] == 0:
    i -= 1
print(at - 1 if i < at - 1 else -1)
EOF
)
if [ "$pad" -ge 0 ]; then
    printf '\001' | dd of="$t/pad.cplog" bs=1 seek="$pad" conv=notrunc 2>/dev/null
    "$cp" dump "$t/pad.cplog" >/dev/null 2>"$t/d.err"
    check "a byte not 0 before a sync point: damage named with its block's offset" \
        grep -q "pad.cplog: offset [0-9]*: not a block" "$t/d.err"
else
    skip 1 "no zeros before that sync point"
fi
cp "$f" "$t/hdr.cplog"
printf '\001' | dd of="$t/hdr.cplog" bs=1 seek=496 conv=notrunc 2>/dev/null
"$cp" dump "$t/hdr.cplog" >/dev/null 2>"$t/d.err"
check "sync_bytes not a power of two: refused, offset 496 named" \
    grep -q "hdr.cplog: offset 496: sync_bytes" "$t/d.err"

# every call (the capture policy would fold most of these loops' calls)
export COLLPROF_DETAIL=all
# the shim: sync points every MiB, read back whole and after kill -9
if [ -f "$shim" ] && [ -x "$loop" ]; then
    COLLPROF_DIR="$t/l" LD_PRELOAD="$shim" "$loop" 1000000 >/dev/null 2>&1
    l=$(ls "$t"/l/*.cplog)
    n=$("$cp" dump "$l" 2>/dev/null | grep -c " allreduce ")
    check "the shim, 1000000 calls over sync points: all of them read ($n)" \
        test "$n" -ge 1000000
    "$cp" dump --csv "$l" 2>/dev/null | sed 1d >"$t/calls"
    check "... seq 0, 1, 2 ... in order" \
        awk -F, '$5 != NR - 1 { exit 1 } END { exit !(NR >= 1000000) }' "$t/calls"
    "$win" 0.97 0.99 "$l" >"$t/w.out" 2>&1
    ok $? "... a window of it: the same calls whole and from its sync point"
    sed 's/^/# /' "$t/w.out"
    COLLPROF_DIR="$t/k" LD_PRELOAD="$shim" "$loop" 200000000 >/dev/null 2>&1 &
    pid=$!
    sleep 1
    kill -9 $pid
    wait $pid 2>/dev/null
    "$cp" dump --csv "$(ls "$t"/k/*.cplog)" 2>/dev/null | sed 1d >"$t/calls"
    check "... killed mid-run past sync points: every call up to the kill, in order ($(wc -l <"$t/calls"))" \
        awk -F, '$5 != NR - 1 { exit 1 } END { exit !(NR >= 1000000) }' "$t/calls"
else
    skip 5 "the shim or tests/bench/null_loop is not built"
fi
done_testing
