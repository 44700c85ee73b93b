#!/bin/sh
# winseek.sh - a window of the run at the window's cost (docs/analysis.md,
# "Windows"): collprof analyze --from/--to finds the run's first call in
# the logs' first calls and reads each version-4 log from its sync point
# before the window to a call a second past its end.  One job written
# twice by gen_logs from one seed, with sync points every 16 KiB and
# without any (read from the start): the same window gives the same
# calls, instances, rows, communicators (names included) and findings;
# the one with sync points reads a fraction of the records; so does a
# window of steps.  The hang
# pass reads the same range: a hang at the end is the window's when the
# window reaches it, not otherwise.  A damaged sync point is a problem
# naming the file and the offset, and that log is read from its start.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
gen="$top_builddir/tests/tools/gen_logs"
need "$collprof" "$gen"
command -v python3 >/dev/null || skip_all "no python3"

o="--ranks 8 --ranks-per-node 4 --pattern mixed --calls 60000 --seed 5 --clock-offset 1=2ms"
"$gen" -o "$work/s" --sync-bytes 16384 $o >/dev/null &&
    "$gen" -o "$work/n" --sync-bytes 0 $o >/dev/null
ok $? "gen_logs: 8 ranks on 2 nodes, 60000 calls each, with and without sync points"

an() { out=$1; shift; "$collprof" analyze -q -o "$work/$out" "$@" 2>"$work/$out.err"; }
js() { python3 -c "import json, sys; d = json.load(open('$work/$1/report.json')); print($2)"; }

an all "$work/s"
ok $? "the whole run"
total=$(js all "d['summary']['records']")
span=$(js all "int(d['summary']['span_s'])")
# 2 % of the run, before its middle (where the damage below is)
from=$((span * 2 / 5))
to=$((from + span / 50))
# the calls that start in the window, from the logs (collprof dump) and
# the whole run's clock offsets (window_calls.py)
want=$(python3 "$top_srcdir/tests/analyze/window_calls.py" "$work/all/report.json" \
    "$work/s" "$collprof" "${from}000000000" "${to}000000000")

an ws --from "${from}s" --to "${to}s" "$work/s"
ok $? "--from ${from}s --to ${to}s, logs with sync points"
an wn --from "${from}s" --to "${to}s" "$work/n"
ok $? "... the same window, logs without"
got=$(js ws "d['summary']['calls']")
ok $([ "$got" -eq "$want" ]; echo $?) "... the calls that start in the window ($got; the logs say $want)"
check "... all 8 logs read from a sync point; none without them" \
    test "$(js ws "d['summary']['window']['logs_from_sync_point']") $(js wn "d['summary']['window']['logs_from_sync_point']")" = "8 0"
read_ws=$(js ws "d['summary']['records']")
check "... a fraction of the records read ($read_ws of $total)" \
    test $((read_ws * 10)) -lt "$total"
read_wn=$(js wn "d['summary']['records']")
check "... the logs without sync points: read from their start to the window's end ($read_wn)" \
    test "$read_wn" -gt $((read_ws * 5)) -a "$read_wn" -lt "$total"
same() {
    python3 - "$work/$1/report.json" "$work/$2/report.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def pick(d):
    s = d["summary"]
    return {
        "summary": {k: s[k] for k in ("calls", "failed_calls", "instances",
                                      "incomplete_instances", "p2p_pairs",
                                      "unmatched_p2p", "steps")},
        "window": {k: s["window"][k] for k in ("by", "from_s", "to_s")},
        "collectives": [(r["op"], r["comm"], r["bytes"], r["calls"], r["incomplete"])
                        for r in d["collectives"]],
        "communicators": [(c["id"], c["name"], c["nranks"], c["instances"],
                           c["missing_members"]) for c in d["communicators"]],
        "findings": sorted(f["kind"] for f in d["findings"]),
        "offsets": [n["offset_s"] for n in d["clock_offsets"]["nodes"]],
    }
x, y = pick(a), pick(b)
for k in x:
    if x[k] != y[k]:
        print(k, x[k], y[k], sep="\n  ")
        sys.exit(1)
PY
}
check "... the same calls, instances, rows, communicators, findings and offsets either way" \
    same ws wn
check "... the communicators keep the names their records gave at the logs' start" \
    test "$(js ws "sorted(set(c['name'] for c in d['communicators']))")" = "$(js all "sorted(set(c['name'] for c in d['communicators']))")"

# an open end: read from the sync point to the end
an ws2 --from "${from}s" "$work/s" && an wn2 --from "${from}s" "$work/n"
ok $? "--from ${from}s (open end), with and without sync points"
check "... the same either way" same ws2 wn2

# a window of steps: the steps found in one rank's log, not in an
# analysis of the whole run; the same window with and without sync points
steps=$(js all "d['summary']['steps']")
a=$((steps / 2)) z=$((steps / 2 + 10))
an ss --steps "$a:$z" "$work/s" && an sn --steps "$a:$z" "$work/n"
ok $? "--steps $a:$z of the whole run's $steps, with and without sync points"
check "... 10 steps, the window from the sync points" \
    test "$(js ss "d['summary']['steps'], d['summary']['window']['logs_from_sync_point']")" = "10 8"
check "... the same either way" same ss sn
an sk --skip-steps 1 "$work/s"
check "--skip-steps 1: the whole run's steps but one ($((steps - 1)))" \
    test "$(js sk "d['summary']['steps']")" -eq $((steps - 1))

# a hang at the end (gen_logs' long-job form: rank 3 never enters the
# last world collective, the others wait in it)
"$gen" -o "$work/h" --ranks 8 --ranks-per-node 4 --duration 2h --rate 200 \
    --hang 3 --sync-bytes 16384 \
    --policy first=4096,window=512,every=16384,interval=60s >/dev/null
ok $? "gen_logs: a 2 h job of 8 ranks that hangs at its end"
an h1 "$work/h" && an h2 --from 3600s "$work/h" && an h3 --from 600s --to 1200s "$work/h"
ok $? "... the whole run, --from 3600s, --from 600s --to 1200s"
check "... the whole run: a hang" test "$(js h1 "[f['kind'] for f in d['findings']]")" = "['hang']"
check "... a window that reaches the end: the same hang, the same headline" \
    test "$(js h2 "[f['kind'] for f in d['findings']], d['hang']['headline']")" = "$(js h1 "[f['kind'] for f in d['findings']], d['hang']['headline']")"
check "... read from the sync points" \
    test "$(js h2 "d['summary']['window']['logs_from_sync_point']")" -eq 8
check "... a window an hour before the end: no hang of its own" \
    test "$(js h3 "[f['kind'] for f in d['findings']], 'hang' in d")" = "[] False"

# a damaged sync point (the first the window's bisection reads, in the
# middle of the log, after the window): said with the file and the
# offset; that log read from its start, the same calls
mkdir "$work/d"
cp "$work"/s/*.cplog "$work/d/"
f=$(ls "$work"/d/*.cplog | head -n 1)
at=$(python3 - "$f" "$from" "$span" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
soff, end = struct.unpack_from("<QQ", d, 472)
sync, = struct.unpack_from("<I", d, 496)
# the bisection's first probe (cp_log4src_seek): sync points 1 .. hi
hi = (end - 1) // sync
k = 1 + (hi - 1) // 2
print(soff + k * sync)
PY
)
printf '\377' | dd of="$f" bs=1 seek=$((at + 30)) conv=notrunc 2>/dev/null
an wd --from "${from}s" --to "${to}s" "$work/d"
ok $? "a sync point damaged at offset $at: the window analyzed"
check "... the problem names the file and the offset" \
    test "$(js wd "[(p['file'].split('/')[-1], p['offset'], 'read from its start' in p['message']) for p in d['inputs']['problems']]")" = "[('$(basename "$f")', $at, True)]"
check "... 7 logs read from a sync point, the damaged one from its start" \
    test "$(js wd "d['summary']['window']['logs_from_sync_point']")" -eq 7
check "... the same calls as the undamaged logs" \
    test "$(js wd "d['summary']['calls']")" -eq "$got"

# a window past the run's end: nothing in it, said so
an past --from "$((span + 100))s" "$work/s"
check "a window after the run's end: no call in it" \
    test "$(js past "d['summary']['calls']")" -eq 0
done_testing
