#!/bin/sh
# run-report.sh - report.html of large jobs (make bench).
# 1. A synthetic report.json of 4096 ranks on 512 nodes; the figure is the
#    median of 5 renderings (parse, check and write), beside the median time
#    python3's json module takes just to parse the same file.
# 2. A 65,536-rank job from gen_logs, analyzed: report.json and report.html
#    sizes, and Chromium's draw time against an empty page and against the
#    report.html of the same job on 64 ranks (below).
set -eu
b=${top_builddir:?}
s=${top_srcdir:?}
t=$(mktemp -d /tmp/cp-bench-report-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
echo "== report.html: rendering a 4096-rank report"
python3 "$s/tests/reports/big_report.py" "$t/big.json" 4096 >/dev/null
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
i=0
while [ $i -lt 5 ]; do
    a=$(date +%s%N)
    "$b/analyzer/collprof" report "$t/big.json" -o "$t/big.html" >/dev/null
    z=$(date +%s%N)
    echo $(( (z - a) / 1000 ))
    i=$((i + 1))
done | median >"$t/render"
i=0
while [ $i -lt 5 ]; do
    a=$(date +%s%N)
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$t/big.json"
    z=$(date +%s%N)
    echo $(( (z - a) / 1000 ))
    i=$((i + 1))
done | median >"$t/parse"
r=$(cat "$t/render")
p=$(cat "$t/parse")
echo "report.html for 4096 ranks: $(awk "BEGIN {printf \"%.3f\", $r/1e6}") s to render (median of 5), $(stat -c %s "$t/big.html") bytes (target < 5 MB); $(awk "BEGIN {printf \"%.2f\", $r/$p}")x the time python3 takes to parse the same $(stat -c %s "$t/big.json")-byte report.json"

# 65,536 ranks from gen_logs (8 per node, one ddp-large step, rank 40000 a
# 2 ms straggler): analyze, the sizes of report.json and report.html, and
# Chromium's time to draw the page (load, layout, paint: a screenshot),
# the median of 3, beside its time for an empty page in the same run (the
# browser's own start), so the figure is the page's part, and beside the
# report.html of the same job on 64 ranks (what the rank count adds).
echo "== report.html: a 65,536-rank job from gen_logs"
gen=$b/tests/tools/gen_logs
if ! "$gen" -o "$t/64k" --pattern ddp-large --ranks 65536 --ranks-per-node 8 \
    --steps 1 --straggler 40000=2ms >"$t/64k.gen" 2>&1; then
    echo "report.html at 65,536 ranks: skipped: gen_logs could not write the logs: $(tail -1 "$t/64k.gen")"
    exit 0
fi
a=$(date +%s%N)
rc=0
"$b/analyzer/collprof" analyze -q "$t/64k" -o "$t/64k-out" 2>"$t/64k.err" || rc=$?
z=$(date +%s%N)
rm -rf "$t/64k"
unread=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
s = r["inputs"].get("summary")
print(s["status"]["unreadable"] if s else sum(f["status"] == "unreadable" for f in r["inputs"]["files"]))' \
    "$t/64k-out/report.json" 2>/dev/null || echo "?")
if [ "$rc" -ne 0 ] || [ "$unread" != 0 ]; then
    echo "report.html at 65,536 ranks: skipped: collprof analyze exit $rc, $unread logs unreadable ($(head -1 "$t/64k.err"))"
    exit 0
fi
json=$(stat -c %s "$t/64k-out/report.json")
html=$(stat -c %s "$t/64k-out/report.html")
echo "analyze at 65,536 ranks: $(awk "BEGIN {printf \"%.1f\", ($z - $a) / 1e9}") s; report.json $json bytes, report.html $html bytes (target < 5 MB)"
if ! command -v chromium >/dev/null 2>&1; then
    echo "Chromium draw time at 65,536 ranks: skipped: chromium is not installed"
    exit 0
fi
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>empty</title></head><body><p>empty</p></body></html>\n' >"$t/empty.html"
shot() {
    a=$(date +%s%N)
    timeout 120 chromium --headless --no-sandbox --disable-gpu \
        --disable-background-networking --disable-component-update \
        --disable-sync --no-first-run --disable-default-apps \
        --disable-extensions '--host-resolver-rules=MAP * ~NOTFOUND' \
        --user-data-dir="$(mktemp -d "$t/chrome-XXXXXX")" \
        --window-size=1400,8000 --screenshot="$t/shot.png" "file://$1" \
        >/dev/null 2>&1 || echo "chromium failed on $1" >&2
    z=$(date +%s%N)
    echo $(( (z - a) / 1000 ))
}
small=
if "$gen" -o "$t/64" --pattern ddp-large --ranks 64 --ranks-per-node 8 \
    --steps 1 --straggler 40=2ms >/dev/null 2>&1 &&
    "$b/analyzer/collprof" analyze -q "$t/64" -o "$t/64-out" 2>/dev/null; then
    small=$t/64-out/report.html
fi
for i in 1 2 3; do shot "$t/empty.html"; done | median >"$t/c-empty"
for i in 1 2 3; do shot "$t/64k-out/report.html"; done | median >"$t/c-page"
e=$(cat "$t/c-empty")
p=$(cat "$t/c-page")
if [ -n "$small" ]; then
    for i in 1 2 3; do shot "$small"; done | median >"$t/c-small"
    m=$(cat "$t/c-small")
    echo "Chromium draws the same job's report.html at 64 ranks ($(stat -c %s "$small") bytes) in $(awk "BEGIN {printf \"%.2f\", $m/1e6}") s: 65,536 ranks take $(awk "BEGIN {printf \"%.2f\", $p/$m}")x the 64-rank page"
fi
echo "Chromium draws report.html at 65,536 ranks in $(awk "BEGIN {printf \"%.2f\", $p/1e6}") s (median of 3, screenshot of 1400x8000 px; target < 5 s), of which $(awk "BEGIN {printf \"%.2f\", ($p - $e)/1e6}") s beyond an empty page ($(awk "BEGIN {printf \"%.2f\", $e/1e6}") s, the browser's start); $(awk "BEGIN {printf \"%.2f\", $p/$e}")x the empty page"
