#!/bin/sh
# run-report.sh - rendering report.html for a 4096-rank job (make bench).
# The input is a synthetic report.json of 4096 ranks on 512 nodes; the
# figure is the median of 5 renderings (parse, check and write), beside the
# median time python3's json module takes just to parse the same file.
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
