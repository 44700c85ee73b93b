#!/bin/sh
# fleet_browser.sh - fleet.html in Debian's Chromium, headless, as
# browser.sh does for report.html:
#  - the four-node fleet (one bad link, a straggler node): loads with no
#    console message (nothing blocked, no policy violation), the matrix SVG
#    is in the DOM with its cells (the bad link's, the straggler's), the
#    plots over time with one point per step, and a screenshot is written
#    where this log says, and is a PNG of some size;
#  - the hostile fleet (node names, jobs, users, devices, counters and
#    rules holding <script>, quotes and tags): no element or attribute came
#    from those strings (against the four-node page), and they are there
#    as text;
#  - the empty fleet and a generated 512-node one render without a
#    console message.
# Skips, saying why, only when Chromium or python3 is not installed.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
command -v chromium >/dev/null 2>&1 ||
    skip_all "chromium is not installed (tests/setup-deps.sh installs Debian's chromium)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
fleet_page=$b/tests/reports/fleet_page
need "$fleet_page"
fleet=$s/tests/reports/fleet

for c in four-nodes hostile empty; do
    "$fleet_page" "$fleet/$c/fleet.json" "$work/$c.html"
    ok $? "$c: fleet.html written"
    chromium_dom "$work/$c.html" "$work/$c.dom"
    ok $? "$c: Chromium renders it"
    check "$c: no console message (no error, no blocked request)" \
        console_clean "$work/$c.dom.log"
done

dom=$work/four-nodes.dom
check "four-nodes: the matrix SVG is in the DOM" \
    grep -q '<svg class="plot matrix"' "$dom"
check "four-nodes: 6 links and 4 nodes drawn as cells, each link twice" \
    test "$(grep -o 'class="c-[a-z_]*"' "$dom" | wc -l)" -eq 16
check "four-nodes: the bad link's two cells" \
    test "$(grep -o 'class="c-bad" fill="#D55E00"[^>]*><title>n[12] – n[12]: bad link' "$dom" | wc -l)" -eq 2
check "four-nodes: the straggler on the diagonal" \
    grep -q 'class="c-bad" fill="#D55E00"[^>]*><title>n3 (the node): bad' "$dom"
check "four-nodes: two plots over time, chosen by anchors" \
    test "$(grep -c '<figure id="pair-[12]" class="pair">' "$dom")" -eq 2
check "four-nodes: the bad link's plot has its 5 steps" \
    python3 - "$dom" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
fig = re.search(r'<figure id="pair-1".*?</figure>', h, re.S).group(0)
sys.exit(0 if fig.count("<title>job ") == 5 else 1)
PY
shot=$b/tests/reports/fleet-screenshot.png
rm -f "$shot"
chromium_shot "$work/four-nodes.html" "$shot" 1400,2600
check "four-nodes: a screenshot" test -s "$shot"
check "four-nodes: the screenshot is a PNG of more than 20 kB" \
    python3 -c 'import os, sys
p = sys.argv[1]
sys.exit(0 if open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(p) > 20000 else 1)' "$shot"
diag "screenshot of the four-node fleet: $shot"

$domcheck safe "$work/hostile.dom" "$work/four-nodes.dom"
ok $? "hostile: no element or attribute came from the document's strings"
check "hostile: the node name is shown as text" \
    $domcheck text "$work/hostile.dom" '<script>alert(1)</script>'
check "hostile: the other node name too" \
    $domcheck text "$work/hostile.dom" '"><img src=x onerror=alert(1)>'
check "hostile: the device name too" \
    $domcheck text "$work/hostile.dom" '<svg onload=alert(7)>'
check "empty: the matrix says why it is empty" \
    grep -q 'no job has been ingested yet' "$work/empty.dom"

python3 "$s/tests/reports/fleet_gen.py" 512 "$work/gen.json" &&
    "$fleet_page" "$work/gen.json" "$work/gen.html"
ok $? "a generated 512-node fleet: fleet.html written ($(wc -c <"$work/gen.html") bytes)"
start=$(date +%s)
chromium_dom "$work/gen.html" "$work/gen.dom"
ok $? "512 nodes: Chromium renders it ($(($(date +%s) - start)) s)"
check "512 nodes: no console message" console_clean "$work/gen.dom.log"
# Chromium writes &times; back as the character
check "512 nodes: the matrix in blocks" grep -q 'block of 4 × 4 nodes' "$work/gen.dom"
done_testing
