#!/bin/sh
# badinput.sh - collprof analyze on inputs that are not a clean job: exit
# status, a message naming the file (and offset), the report of the rest.
# (tests/analyze/cases/{damaged,mixed-jobs,missing-rank} check the report's
# contents; this covers what has no report or concerns the command line.)
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
cp="$b/analyzer/collprof"
gen="$b/tests/tools/gen_logs"
[ -x "$cp" ] && [ -x "$gen" ] || skip_all "collprof or gen_logs not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
t=$(mktemp -d /tmp/cp-badinput-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM

# version 3: the garbled records below are planted at its slot offsets
"$gen" -o "$t/logs" --pattern ddp-small --ranks 4 --ranks-per-node 2 --steps 3 --format 3
ok $? "generate a small job"

# nothing readable: exit 1, no report
mkdir "$t/none"
echo "not a log" > "$t/none/a.cplog"
: > "$t/none/b.cplog"
"$cp" analyze "$t/none" -o "$t/out-none" >"$t/stdout" 2>"$t/stderr"
ok $([ $? -eq 1 ] && echo 0 || echo 1) "nothing readable: exit 1"
check "nothing readable: no report" test ! -e "$t/out-none/report.json"
check "nothing readable: the message names a file" \
    grep -q "a.cplog" "$t/stderr"
"$cp" analyze "$t/missing-dir" -o "$t/out-none" 2>"$t/stderr"
ok $([ $? -eq 1 ] && echo 0 || echo 1) "missing directory: exit 1"
check "missing directory named" grep -q "missing-dir" "$t/stderr"
mkdir "$t/emptydir"
"$cp" analyze "$t/emptydir" -o "$t/out-none" 2>"$t/stderr"
ok $([ $? -eq 1 ] && echo 0 || echo 1) "directory without logs: exit 1"
check "says there are no logs" grep -q "no collprof logs" "$t/stderr"

# usage: exit 2
"$cp" analyze "$t/logs" 2>"$t/stderr"
ok $([ $? -eq 2 ] && echo 0 || echo 1) "no -o: exit 2"
"$cp" analyze -o "$t/out" 2>"$t/stderr"
ok $([ $? -eq 2 ] && echo 0 || echo 1) "no input: exit 2"
"$cp" analyze "$t/logs" -o "$t/out" --fail-on info 2>"$t/stderr"
ok $([ $? -eq 2 ] && echo 0 || echo 1) "--fail-on info: exit 2"
"$cp" analyze "$t/logs" -o "$t/out" --steps 0 2>"$t/stderr"
ok $([ $? -eq 2 ] && echo 0 || echo 1) "--steps 0: exit 2"
"$cp" analyze "$t/logs" -o "$t/out" --bucket 25M 2>"$t/stderr"
ok $([ $? -eq 2 ] && echo 0 || echo 1) "--bucket with an ambiguous unit: exit 2"
"$cp" analyze "$t/logs" -o "$t/out" --bogus 2>"$t/stderr"
ok $([ $? -eq 2 ] && echo 0 || echo 1) "unknown option: exit 2"
printf 'inter alpha=20us bandwidth=400MB/s\nintra speed=2GB/s\n' > "$t/bad.prof"
"$cp" analyze "$t/logs" -o "$t/out" --profile "$t/bad.prof" 2>"$t/stderr"
ok $([ $? -eq 2 ] && echo 0 || echo 1) "bad profile: exit 2"
check "bad profile: file:line named" grep -q "bad.prof:2: unknown key 'speed'" "$t/stderr"
"$cp" analyze --help >"$t/stdout"
ok $? "--help: exit 0"
check "--help explains the exit status" grep -q "Exit status" "$t/stdout"
check "--help shows the profile format" grep -q "inter alpha=20us" "$t/stdout"

# the report cannot be written: exit 1
: > "$t/afile"
"$cp" analyze "$t/logs" -o "$t/afile/out" -q 2>"$t/stderr"
ok $([ $? -eq 1 ] && echo 0 || echo 1) "unwritable output: exit 1"
check "unwritable output named" grep -q "afile/out" "$t/stderr"

# files given one by one, a non-.cplog name included; a bad one among them
cp "$t/logs/n0.10000.cplog" "$t/rank0.log"
"$cp" analyze "$t/rank0.log" "$t/logs/n0.10001.cplog" "$t/logs/n1.10002.cplog" \
    "$t/logs/n1.10003.cplog" "$t/none/a.cplog" -o "$t/out-files" -q 2>"$t/stderr"
ok $? "files given one by one: exit 0"
check "the foreign one is named with its offset" \
    grep -q "a.cplog: offset 0: not a collprof log" "$t/stderr"
python3 - "$t/out-files/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["job"]["processes"] == 4, r["job"]
assert r["summary"]["incomplete_instances"] == 0, r["summary"]
assert r["summary"]["skipped_inputs"] == 1, r["summary"]
PY
ok $? "four ranks analyzed, the foreign file skipped"

# damaged timestamps and a record of a valid kind full of garbage
cp -r "$t/logs" "$t/garbled"
python3 - "$t/garbled/n1.10002.cplog" <<'PY'
import os, struct, sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
off = 4096 + 64 * 40          # a call record: end before start
struct.pack_into("<QQ", d, off + 48, 2**62, 5)
off = 4096 + 64 * 41          # a call record of random bytes
d[off] = 1
d[off + 1:off + 64] = os.urandom(63)
open(p, "wb").write(d)
PY
"$cp" analyze "$t/garbled" -o "$t/out-garbled" -q 2>"$t/stderr"
ok $? "garbled records: exit 0"
check "garbled records: file and offset named" \
    grep -q "n1.10002.cplog: offset 6656: call with implausible times" "$t/stderr"
check "garbled records: report written" test -s "$t/out-garbled/report.json"

# a log of the other byte order reads the same
"$gen" -o "$t/swapped" --pattern ddp-small --ranks 4 --ranks-per-node 2 --steps 3 --swap
"$cp" analyze "$t/swapped" -o "$t/out-swapped" -q && \
    "$cp" analyze "$t/logs" -o "$t/out-plain" -q
ok $? "other byte order analyzed"
python3 - "$t/out-plain/report.json" "$t/out-swapped/report.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("summary", "model", "collectives", "findings", "communicators"):
    assert a[k] == b[k], k
PY
ok $? "other byte order: the same report"

# a killed process: zero-filled tail, not closed
cp -r "$t/logs" "$t/killed"
f="$t/killed/n0.10000.cplog"
dd if=/dev/zero bs=64 count=500 >> "$f" 2>/dev/null
"$cp" analyze "$t/killed" -o "$t/out-killed" -q 2>"$t/stderr"
ok $? "zero-filled tail: exit 0"
check "zero-filled tail is not a problem" test ! -s "$t/stderr"

# --fail-on
"$gen" -o "$t/crit" --pattern ddp-small --ranks 8 --ranks-per-node 2 --steps 3
"$cp" analyze "$t/crit" -o "$t/out" -q --fail-on critical
ok $([ $? -eq 3 ] && echo 0 || echo 1) "--fail-on critical with a critical finding: exit 3"
"$gen" -o "$t/large" --pattern ddp-large --ranks 4 --ranks-per-node 2 --steps 3
"$cp" analyze "$t/large" -o "$t/out" -q --fail-on warning
ok $? "--fail-on warning without findings: exit 0"
done_testing
