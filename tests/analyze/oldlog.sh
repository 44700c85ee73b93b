#!/bin/sh
# oldlog.sh - logs of format version 1 (written before entry records) read
# and analyse exactly as before: the same logs stamped version 1 and 2 give
# the same report.json and the same verdict (docs/log-format.md).
. "$top_srcdir/tests/tap.sh"
b=$(cd "${top_builddir:?}" && pwd)
collprof=$b/analyzer/collprof
gen=$b/tests/tools/gen_logs
[ -x "$gen" ] || skip_all "gen_logs not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
work=$(mktemp -d /tmp/cp-oldlog-XXXXXX)
trap 'rm -rf "$work"' EXIT

for pattern in ddp-small mixed; do
    extra=""
    [ "$pattern" = mixed ] && extra="--straggler 3=2ms"
    # version 3 (one slot per record), stamped 1 and 2 below
    # shellcheck disable=SC2086
    "$gen" --pattern "$pattern" --ranks 4 --ranks-per-node 2 --steps 5 \
        --seed 7 $extra --format 3 -o "$work/$pattern/new" \
        --truth "$work/$pattern/truth.json" >/dev/null 2>&1
    ok $? "$pattern: logs generated"
    cp -r "$work/$pattern/new" "$work/$pattern/old"
    python3 - "$work/$pattern/old" <<'PY'
import os, struct, sys
d = sys.argv[1]
n = 0
for name in sorted(os.listdir(d)):
    with open(os.path.join(d, name), "r+b") as f:
        head = f.read(16)
        order = "<" if struct.unpack("<I", head[8:12])[0] == 0x01020304 else ">"
        assert struct.unpack(order + "I", head[12:16])[0] >= 2
        f.seek(12)
        f.write(struct.pack(order + "I", 1))
        n += 1
sys.exit(0 if n else 1)
PY
    ok $? "$pattern: copies stamped format version 1"
    (cd "$work/$pattern" && "$collprof" analyze new -o rep-new >verdict-new 2>&1 &&
        "$collprof" analyze old -o rep-old >verdict-old 2>&1)
    ok $? "$pattern: both analysed"
    sed 's|/new/|/DIR/|g; s|rep-new|REP|g; s|\bnew\b|DIR|g' \
        "$work/$pattern/rep-new/report.json" >"$work/a.json"
    sed 's|/old/|/DIR/|g; s|rep-old|REP|g; s|\bold\b|DIR|g' \
        "$work/$pattern/rep-old/report.json" >"$work/b.json"
    test -s "$work/a.json" && cmp -s "$work/a.json" "$work/b.json"
    ok $? "$pattern: the same report.json from version 1 and version 2"
    sed 's|rep-new|REP|g' "$work/$pattern/verdict-new" >"$work/a.txt"
    sed 's|rep-old|REP|g' "$work/$pattern/verdict-old" >"$work/b.txt"
    grep -q "^collprof: " "$work/a.txt" && cmp -s "$work/a.txt" "$work/b.txt"
    ok $? "$pattern: the same verdict"
done
# a version this collprof does not know is refused with the file and offset
cp -r "$work/ddp-small/new" "$work/future"
f=$(ls "$work/future"/*.cplog | head -n 1)
printf '\143\000\000\000' | dd of="$f" bs=1 seek=12 conv=notrunc 2>/dev/null
"$collprof" dump --summary "$f" >/dev/null 2>"$work/err"
grep -q "offset 12: log format version 99, this collprof reads up to [0-9]" "$work/err"
ok $? "version 99 refused: $(cat "$work/err")"
done_testing
