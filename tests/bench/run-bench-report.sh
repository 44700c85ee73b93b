#!/bin/sh
# run-bench-report.sh - collprof bench --report on a full default-size
# import (make bench): the seven published nccl-tests outputs of
# tests/bench-cli/data (8 B to 1 GiB by x2, six collectives on 2, 8 and 16
# ranks).  The figure is the median of 5 imports with --report minus the
# median of 5 without: the time to write bench.json and draw bench.html.
set -eu
b=${top_builddir:?}
s=${top_srcdir:?}
t=$(mktemp -d /tmp/cp-bench-html-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
echo "== bench.html: a report of a full default-size import"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# timed EXTRA...: median microseconds of 5 imports
timed() {
    i=0
    while [ $i -lt 5 ]; do
        a=$(date +%s%N)
        "$b/analyzer/collprof" bench --import "$s"/tests/bench-cli/data/*.txt \
            -q "$@" >/dev/null 2>&1
        z=$(date +%s%N)
        echo $(((z - a) / 1000))
        i=$((i + 1))
    done | median
}
plain=$(timed)
report=$(timed --report "$t/out")
points=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["points"]), len(d["fit"]))' "$t/out/bench.json")
set -- $points
echo "bench.html of $1 points, $2 collectives: $(awk "BEGIN {printf \"%.1f\", ($report - $plain) / 1000}") ms to write bench.json and draw the page (median of 5: $(awk "BEGIN {printf \"%.1f\", $report / 1000}") ms with --report, $(awk "BEGIN {printf \"%.1f\", $plain / 1000}") ms without); $(stat -c %s "$t/out/bench.html") bytes of HTML, $(stat -c %s "$t/out/bench.json") of JSON"
