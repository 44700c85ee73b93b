#!/bin/sh
# browser.sh - report.html in Debian's Chromium, headless:
#  - escaping: runs recorded through the shim whose node names, communicator
#    names and job id are <script>alert(1)</script> and
#    "><img src=x onerror=alert(1)>: the DOM Chromium builds from their pages
#    has no element or attribute that came from those strings (counted
#    against a run with benign names), and the strings are there as text;
#  - the demo report (train_sim ddp, 8 ranks on 4 nodes): loads with no
#    console message (so no blocked request and no policy violation), every
#    plot (each figure holding its drawing, the timeline of the analysis'
#    time windows included) and the findings are in the DOM, and a
#    screenshot is written where this log says;
#  - the NCCL profiler fixture (kernel phases, copy-engine rows, tags):
#    renders with no console message, its sections in the DOM;
#  - a synthetic 4096-rank report: the page stays under 5 MB and renders.
# Skips, saying why, only when Chromium is not installed.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
command -v chromium >/dev/null 2>&1 ||
    skip_all "chromium is not installed (tests/setup-deps.sh installs Debian's chromium)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
need "$collprof" "$simrun" "$named_app" "$train_sim" "$shim"
"$collprof" analyze --help >/dev/null 2>&1 || skip_all "collprof analyze is not built"
topo=$s/tests/integration/four-nodes.topo
script_name='<script>alert(1)</script>'
img_name='"><img src=x onerror=alert(1)>'

# named_run DIR NODE_A NODE_B COMM JOB: 4 ranks of named_app on 2 nodes
# named NODE_A and NODE_B, communicator COMM, Slurm job id JOB; analyzed
# into DIR/out and rendered into DIR/report.html.
named_run() {
    SLURM_JOB_ID=$5 NODE_A=$2 NODE_B=$3 "$collprof" record -o "$1/logs" -- \
        "$simrun" -n 4 --nodes 2 --timeout 120 --topo "$topo" -- \
        sh -c 'case $SIMNCCL_NODE in n1) COLLPROF_NODE=$NODE_A;;
               *) COLLPROF_NODE=$NODE_B;; esac
               export COLLPROF_NODE; exec "$0" "$@"' \
        "$named_app" "$4" 3 >"$1.log" 2>&1 &&
        "$collprof" analyze -q --profile "$topo" "$1/logs" -o "$1/out" \
            >>"$1.log" 2>&1 &&
        if [ -s "$1/out/report.html" ]; then
            cp "$1/out/report.html" "$1/report.html"
        else
            "$collprof" report "$1/out/report.json" -o "$1/report.html"
        fi
}

named_run "$work/benign" node-a node-b plain-comm 4242
ok $? "a run with benign names, recorded and rendered"
named_run "$work/h1" "$script_name" "$img_name" "$script_name" "$img_name"
ok $? "a run with hostile node names, job id and communicator name (script)"
named_run "$work/h2" "$img_name" "$script_name" "$img_name" "$script_name"
ok $? "the same with the communicator named \"><img ..."

# the strings reached the analysis: the test means something
python3 - "$work/h1/out/report.json" "$work/h2/out/report.json" \
    "$script_name" "$img_name" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
s, i = sys.argv[3], sys.argv[4]
assert set(a["job"]["nodes"]) == {s, i}, a["job"]["nodes"]
assert a["job"]["job_id"] == i and b["job"]["job_id"] == s
names = [c["name"] for c in a["communicators"] + b["communicators"]]
assert s[:16] in names and i[:16] in names, names
PY
ok $? "the hostile names are in report.json (nodes, job id, communicators truncated to 16 bytes)"

chromium_dom "$work/benign/report.html" "$work/benign.dom"
ok $? "Chromium renders the benign page"
for h in h1 h2; do
    chromium_dom "$work/$h/report.html" "$work/$h.dom"
    ok $? "$h: Chromium renders the hostile page"
    $domcheck safe "$work/$h.dom" "$work/benign.dom"
    ok $? "$h: no element or attribute came from the names"
    check "$h: no console message (nothing blocked, nothing run)" console_clean "$work/$h.dom.log"
    check "$h: the node name is shown as text" $domcheck text "$work/$h.dom" "$script_name"
    check "$h: the other node name too" $domcheck text "$work/$h.dom" "$img_name"
done
check "h1: the communicator name is shown as text" $domcheck text "$work/h1.dom" "${script_name%"${script_name#????????????????}"}"
check "h2: the communicator name is shown as text" $domcheck text "$work/h2.dom" "${img_name%"${img_name#????????????????}"}"
check "benign: no console message" console_clean "$work/benign.dom.log"

# the hand-written case with hostile strings everywhere (findings, evidence,
# paths, suggestions, the node-pair matrix) against the benign fixture
"$collprof" report "$cases/findings/report.json" -o "$work/findings.html" &&
    "$collprof" report "$cases/medium/report.json" -o "$work/medium.html" &&
    chromium_dom "$work/findings.html" "$work/findings.dom" &&
    chromium_dom "$work/medium.html" "$work/medium.dom"
ok $? "Chromium renders the hostile and the benign fixture"
$domcheck safe "$work/findings.dom" "$work/medium.dom"
ok $? "findings fixture: no element or attribute came from its strings"
check "findings fixture: no console message" console_clean "$work/findings.dom.log"

# the fixture with NCCL's profiler plugin: the kernels' skew, copy-engine
# rows and tags
"$collprof" report "$cases/nccl-profiler/report.json" -o "$work/nccl.html" &&
    chromium_dom "$work/nccl.html" "$work/nccl.dom"
ok $? "Chromium renders the NCCL profiler fixture"
check "nccl fixture: no console message" console_clean "$work/nccl.dom.log"
check "nccl fixture: the verdict, the findings and every plot in the DOM" figures "$work/nccl.dom"
check "nccl fixture: the kernels' skew section in the DOM" grep -q '<h3 id="kernel-skew">' "$work/nccl.dom"
check "nccl fixture: the copy-engine mark in the DOM" grep -q '<span class="ce" title=' "$work/nccl.dom"

# the demo report: the run demo.sh records
"$collprof" record -o "$work/demo/logs" -- "$simrun" -n 8 --nodes 4 \
    --timeout 300 --topo "$topo" -- "$train_sim" --pattern ddp --steps 5 \
    --quiet >"$work/demo.log" 2>&1 &&
    "$collprof" analyze -q "$work/demo/logs" -o "$work/demo/out" \
        >>"$work/demo.log" 2>&1 &&
    "$collprof" report "$work/demo/out/report.json" -o "$work/demo/report.html"
ok $? "the demo run: recorded, analyzed, rendered"
chromium_dom "$work/demo/report.html" "$work/demo.dom"
ok $? "demo: Chromium renders it"
check "demo: no console message (no error, no blocked request)" console_clean "$work/demo.dom.log"
check "demo: the verdict, the findings and every plot in the DOM" figures "$work/demo.dom"
check "demo: the timeline draws every window of report.json's timeline" \
    $domcheck timeline "$work/demo.dom" "$work/demo/out/report.json"
check "demo: the findings section lists them" grep -q '<h2>Findings (' "$work/demo.dom"
shot=$b/tests/reports/report-screenshot.png
rm -f "$shot"
chromium_shot "$work/demo/report.html" "$shot" 1400,3600
check "demo: a screenshot" test -s "$shot"
diag "screenshot of the demo report: $shot"

# 4096 ranks
python3 "$s/tests/reports/big_report.py" "$work/big.json" 4096
ok $? "a synthetic 4096-rank report.json ($(wc -c <"$work/big.json") bytes)"
start=$(date +%s)
"$collprof" report "$work/big.json" -o "$work/big.html"
ok $? "4096 ranks: rendered in $(($(date +%s) - start)) s"
size=$(wc -c <"$work/big.html")
diag "4096-rank page: $size bytes"
check "4096 ranks: the page is under 5 MB" test "$size" -lt 5000000
start=$(date +%s)
CHROMIUM_TIMEOUT=120 chromium_dom "$work/big.html" "$work/big.dom"
ok $? "4096 ranks: Chromium renders it ($(($(date +%s) - start)) s, limit 120 s)"
check "4096 ranks: every plot in the DOM" figures "$work/big.dom"
check "4096 ranks: no console message" console_clean "$work/big.dom.log"
check "4096 ranks: the tables are bounded" grep -q 'and 757 more communicators' "$work/big.dom"
check "4096 ranks: the heatmap aggregates nodes" grep -q 'block of 8 .* 8 nodes' "$work/big.dom"
check "4096 ranks: the slow link is outlined" grep -q 'outlined: the links named slow' "$work/big.dom"
done_testing
