#!/bin/sh
# kinds.sh - collprof report renders each kind of collprof document by its
# schema: report.json (report.html), bench.json (bench.html, the page of
# collprof bench --report) and probe.json (probe.html: findings, report.html's
# node-pair heatmap, the pairs); another schema is refused naming the file
# and the key.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
need "$collprof"
# page FILE CHECK...: Python expressions over the page's text h, its
# element ids and their counts (ids), and the text of one element by id
# (inner(ID)); each must hold
page() {
    python3 - "$@" <<'PY'
import collections, re, sys
h = open(sys.argv[1]).read()
ids = collections.Counter(re.findall(r'\bid="([^"]+)"', h))
def inner(i):
    m = re.search(r'<(\w+)[^>]*\bid="%s"[^>]*>(.*?)</\1>' % re.escape(i), h,
                  re.S)
    return m.group(2) if m else ""
bad = [c for c in sys.argv[2:] if not eval(c)]
for c in bad:
    print("# does not hold: " + c)
sys.exit(1 if bad else 0)
PY
}

# ---- report.json --------------------------------------------------------------
mkdir -p "$work/r"
cp "$cases/medium/report.json" "$work/r/report.json"
run "report.json: rendered" 0 "$collprof" report "$work/r/report.json"
check "report.json: report.html with every plot" figures "$work/r/report.html"

# ---- bench.json ---------------------------------------------------------------
data=$s/tests/bench-cli/data
if [ -f "$data/autodl-2080ti-x2.all_reduce_perf.txt" ]; then
    "$collprof" bench --import "$data/autodl-2080ti-x2.all_reduce_perf.txt" \
        "$data/autodl-2080ti-x2.all_gather_perf.txt" --report "$work/b" \
        >"$work/b.log" 2>&1
    ok $? "bench --import --report: bench.json and its page"
    mkdir -p "$work/b2"
    cp "$work/b/bench.json" "$work/b2/bench.json"
    run "bench.json: rendered" 0 "$collprof" report "$work/b2/bench.json"
    check "bench.json: bench.html next to it" test -s "$work/b2/bench.html"
    check "bench.json: the very page collprof bench --report wrote" \
        cmp -s "$work/b/bench.html" "$work/b2/bench.html"
    page "$work/b2/bench.html" \
        'ids["fig-time-allreduce"] == 1 and ids["fig-time-allgather"] == 1' \
        'ids["fig-busbw-allreduce"] == 1 and ids["fig-busbw-all"] == 1' \
        'ids["fit-table"] == 1 and "<svg class=\"plot\"" in inner("fig-busbw-all")' \
        'h.count("class=\"bench-time\"") == 2'
    ok $? "bench.json: time and busbw plots per collective, busbw of all, the fit"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["points"][3]["time_s"] = "slow"
json.dump(d, open(sys.argv[2], "w"))' "$work/b/bench.json" "$work/badbench.json"
    run "bench.json with a bad point: exit 1" 1 "$collprof" report "$work/badbench.json" -o "$work/badbench.html"
    err_has "collprof report: $work/badbench.json: " "... names the file"
    err_has "points[3].time_s" "... and the key"
    check "... no page" test ! -e "$work/badbench.html"
else
    echo "# bench.json: tests/bench-cli/data missing"
fi

# ---- probe.json ---------------------------------------------------------------
if [ -x "$simrun" ]; then
    {
        echo "nodes 4"
        echo "inter latency=20us bandwidth=25MB/s"
        echo "link n2 n4 bandwidth=6250KB/s"
    } >"$work/p.topo"
    "$simrun" -n 4 --nodes 4 --topo "$work/p.topo" --timeout 120 -- \
        "$collprof" probe -q -o "$work/p" --pair-time 100ms >"$work/p.log" 2>&1
    ok $? "collprof probe on 4 nodes (simnccl): probe.json"
    run "probe.json: rendered" 0 "$collprof" report "$work/p/probe.json"
    check "probe.json: probe.html next to it" test -s "$work/p/probe.html"
    # the heatmap: 4 x 4 cells, the slow pair outlined; the findings; the
    # pairs, as many as probe.json has
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["topology"]["pairs"]))' "$work/p/probe.json")
    f=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$work/p/probe.json")
    page "$work/p/probe.html" \
        '"<title>collprof probe" in h and ids["verdict"] == 1' \
        '"<svg class=\"plot\"" in inner("fig-heatmap")' \
        'inner("fig-heatmap").count("<rect") >= 16 and "collprof probe" in inner("fig-heatmap")' \
        "inner('fig-heatmap').count('stroke=\"#D55E00\"') >= 2 * $f > 0" \
        "h.count('<article class=\"finding') == $f and ids['findings'] == 1" \
        "inner('probe-pairs').count('<tr class=') == $n" \
        "'n2&ndash;n4' in inner('probe-pairs')"
    ok $? "probe.json: findings, the node-pair heatmap ($f slow outlined), $n pairs"
    run "probe.json -o -: standard output" 0 "$collprof" report "$work/p/probe.json" -o -
    check "... the same page" cmp -s "$work/out" "$work/p/probe.html"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["topology"]["pairs"][1]["nodes"] = "n1"
json.dump(d, open(sys.argv[2], "w"))' "$work/p/probe.json" "$work/badprobe.json"
    run "probe.json with a bad pair: exit 1" 1 "$collprof" report "$work/badprobe.json"
    err_has "collprof report: $work/badprobe.json: key 'topology.pairs[1].nodes' should be an array, not a string" "... names the file and the key"
    check "... no page" test ! -e "$work/badprobe.html"
else
    echo "# probe.json: tests/simnccl/simrun not built"
fi

# ---- other documents ------------------------------------------------------------
run "another schema: exit 1" 1 "$collprof" report "$cases/not-report/report.json" -o "$work/other.html"
err_has "collprof report: $cases/not-report/report.json: key 'schema' is 'nccl-tests/1', not a collprof document this command renders (collprof.report/1, collprof.bench/1 or collprof.probe/1)" "... names the file, the key and the kinds it renders"
check "... no page" test ! -e "$work/other.html"
echo '{"schema": 7}' >"$work/num.json"
run "a schema that is a number: exit 1" 1 "$collprof" report "$work/num.json"
err_has "collprof report: $work/num.json: key 'schema' should be a string, not a number" "... names the file and the key"
echo '{"job": {}}' >"$work/noschema.json"
run "no schema: exit 1" 1 "$collprof" report "$work/noschema.json"
err_has "collprof report: $work/noschema.json: key 'schema' is missing" "... names the file and the key"
done_testing
