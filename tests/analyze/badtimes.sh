#!/bin/sh
# badtimes.sh - times no job can have (before 2000, after 2100, an end
# before its start, a log that spans over a year, as a writer's overflow
# leaves them) are damaged input: the file and the offset of the record or
# header field named on stderr and in report.json's inputs.problems, the
# record skipped, the file `damaged`, and the run's span what the sound
# records say, not years (docs/log-format.md, "Times no job can have").
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/analyze/lib.sh"
analyze_setup badtimes

"$gen" -o "$t/clean" --pattern ddp-small --ranks 4 --ranks-per-node 2 \
    --steps 3 --seed 3 --format 3 >/dev/null
ok $? "gen_logs: 4 ranks"
"$cp" analyze -q "$t/clean" -o "$t/out-clean" 2>"$t/clean.err"
ok $? "the clean logs analyze"

# craft.py DIR: damages a copy of the logs, prints what it did as
# "file offset why" lines (the offsets of the first call record after
# slot 20 of each file, or of the header field)
cp -r "$t/clean" "$t/bad"
python3 - "$t/bad" >"$t/planted" <<'PY'
import os, struct, sys
d = sys.argv[1]
HDR, REC = 4096, 64
START, END = 56, 72          # header: start_realtime_ns, end_realtime_ns
Y2000, Y2100 = 946684800 * 10**9, 4102444800 * 10**9
def load(name):
    return bytearray(open(os.path.join(d, name), "rb").read())
def save(name, b):
    open(os.path.join(d, name), "wb").write(b)
def calls(b):
    return [HDR + REC * i for i in range((len(b) - HDR) // REC)
            if b[HDR + REC * i] == 1]
# n0.10000: a call that starts in 1999
b = load("n0.10000.cplog"); off = [o for o in calls(b) if o >= HDR + REC * 20][0]
s, e = struct.unpack_from("<QQ", b, off + 48)
struct.pack_into("<QQ", b, off + 48, Y2000 - 10**9 * 86400 * 180, e)
save("n0.10000.cplog", b); print("n0.10000.cplog", off, "starts before 2000")
# n0.10001: a call that ends after 2100
b = load("n0.10001.cplog"); off = [o for o in calls(b) if o >= HDR + REC * 20][0]
s, e = struct.unpack_from("<QQ", b, off + 48)
struct.pack_into("<QQ", b, off + 48, s, Y2100 + 10**12)
save("n0.10001.cplog", b); print("n0.10001.cplog", off, "ends after 2100")
# n1.10002: a call that ends before it starts
b = load("n1.10002.cplog"); off = [o for o in calls(b) if o >= HDR + REC * 20][0]
s, e = struct.unpack_from("<QQ", b, off + 48)
struct.pack_into("<QQ", b, off + 48, s, s - 10**6)
save("n1.10002.cplog", b); print("n1.10002.cplog", off, "ends before it starts")
# n1.10003: a writer's overflow: from a call on, every time (and the
# header's end) 1.87e8 s (5.9 years) later
b = load("n1.10003.cplog"); cs = calls(b)
off = [o for o in cs if o >= HDR + REC * 20][0]
shift = 187 * 10**15
for o in cs:
    if o >= off:
        s, e = struct.unpack_from("<QQ", b, o + 48)
        struct.pack_into("<QQ", b, o + 48, s + shift, e + shift)
(end,) = struct.unpack_from("<Q", b, END)
struct.pack_into("<Q", b, END, end + shift)
save("n1.10003.cplog", b)
print("n1.10003.cplog", END, "end time")
print("n1.10003.cplog", off, "over a year after its start")
PY
ok $? "damaged a copy: a call in 1999, one ending after 2100, one ending before it starts, a log whose times jump 5.9 years"
"$cp" analyze -q "$t/bad" -o "$t/out-bad" 2>"$t/bad.err"
ok $? "the damaged logs analyze (exit 0)"
sed 's/^/# /' "$t/bad.err"
while read -r file off why; do
    check "stderr: $file: offset $off: $why" \
        grep -q "$file: offset $off: .*$why" "$t/bad.err"
done <"$t/planted"

python3 - "$t/out-bad/report.json" "$t/out-clean/report.json" "$t/planted" <<'PY'
import json, sys
r, c = (json.load(open(p)) for p in sys.argv[1:3])
planted = [l.split(None, 2) for l in open(sys.argv[3]).read().splitlines()]
probs = r["inputs"]["problems"]
for f, off, why in planted:
    hit = [p for p in probs if p["file"].endswith("/" + f) and p["offset"] == int(off)]
    assert hit and why in hit[0]["message"], (f, off, why, probs)
status = {x["file"].rsplit("/", 1)[1]: x["status"] for x in r["inputs"]["files"]}
assert all(status[f] == "damaged" for f, _, _ in planted), status
span, clean = r["summary"]["span_s"], c["summary"]["span_s"]
assert 0 < span <= clean * 1.01, (span, clean)
assert r["summary"]["skew_time_s"] < 3600, r["summary"]["skew_time_s"]
assert r["timeline"]["windows"][-1]["end_s"] <= clean * 1.01
# what was recorded before the damage is kept: the jumping log's early calls
f3 = [x for x in r["inputs"]["files"] if x["file"].endswith("n1.10003.cplog")][0]
assert 0 < f3["skipped_records"] < f3["calls"], f3
print("# span %.3f s (clean %.3f s); %d problems" % (span, clean, len(probs)))
PY
ok $? "report.json: each problem at its offset, the files damaged, the span that of the sound records"

# a header whose start is 1970 (a clock never set) and one from 2150: named
# at the header field; the records, sound, are analyzed
cp -r "$t/clean" "$t/hdr"
python3 - "$t/hdr" <<'PY'
import struct, sys
d = sys.argv[1]
for name, v in (("n0.10000.cplog", 10**9), ("n1.10002.cplog", 5600000000 * 10**9)):
    b = bytearray(open(d + "/" + name, "rb").read())
    struct.pack_into("<Q", b, 56, v)
    open(d + "/" + name, "wb").write(b)
PY
"$cp" analyze -q "$t/hdr" -o "$t/out-hdr" 2>"$t/hdr.err"
ok $? "headers with impossible start times: exit 0"
check "stderr: the 1970 start named at offset 56" \
    grep -q "n0.10000.cplog: offset 56: start time 1970-01-01 00:00:01 UTC: before 2000" "$t/hdr.err"
check "stderr: the 2150 start named at offset 56" \
    grep -q "n1.10002.cplog: offset 56: start time 2147-.*: after 2100" "$t/hdr.err"
python3 - "$t/out-hdr/report.json" "$t/out-clean/report.json" <<'PY'
import json, sys
r, c = (json.load(open(p)) for p in sys.argv[1:3])
assert r["summary"]["calls"] == c["summary"]["calls"], (r["summary"]["calls"], c["summary"]["calls"])
assert r["summary"]["instances"] == c["summary"]["instances"]
assert abs(r["summary"]["span_s"] - c["summary"]["span_s"]) < 1e-6
st = {x["file"].rsplit("/", 1)[1]: x["status"] for x in r["inputs"]["files"]}
assert st["n0.10000.cplog"] == "damaged" and st["n1.10002.cplog"] == "damaged", st
assert st["n0.10001.cplog"] == "ok", st
PY
ok $? "impossible header times: every call still analyzed, the two files damaged"
done_testing
