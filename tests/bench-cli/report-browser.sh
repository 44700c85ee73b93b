#!/bin/sh
# report-browser.sh - bench.html in headless Chromium (the harness of
# tests/reports): the page of an import and of a file whose name holds
# markup load with no console message (nothing blocked, nothing run), every
# collective's two plots are in the DOM Chromium builds, and the hostile
# name adds no element or attribute (against the same file with a benign
# name).  Skips, saying why, only when Chromium is not installed.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
command -v chromium >/dev/null 2>&1 ||
    skip_all "chromium is not installed (tests/setup-deps.sh installs Debian's chromium)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
need "$collprof"
data=$s/tests/bench-cli/data

# plots_in_dom DOM OP...: each OP's time and busbw figure holds an SVG plot
plots_in_dom() {
    python3 - "$@" <<'EOF'
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
missing = [f"fig-{k}-{op}" for op in sys.argv[2:] for k in ("time", "busbw")
           if not re.search(r'<figure id="fig-%s-%s"[^>]*>\s*<h3>[^<]*</h3>\s*<svg class="plot"' % (k, op), dom)]
if missing:
    print("# missing: " + ", ".join(missing))
sys.exit(1 if missing else 0)
EOF
}

"$collprof" bench --import "$data"/autodl-2080ti-x2.*.txt -q --report "$work/imp" &&
    chromium_dom "$work/imp/bench.html" "$work/imp.dom"
ok $? "Chromium renders the page of five imported collectives"
check "no console message" console_clean "$work/imp.dom.log"
check "the time and busbw plots of every collective in the DOM" plots_in_dom \
    "$work/imp.dom" allreduce allgather broadcast reduce alltoall
check "the overview plot in the DOM" grep -q 'id="fig-busbw-all"' "$work/imp.dom"

hostile=$(printf '<script>alert(1)</b><img src=x onerror=alert(2)>%s.all_reduce_perf.txt' "'" | tr / _)
cp "$data/damaged.all_reduce_perf.txt" "$work/$hostile"
cp "$data/damaged.all_reduce_perf.txt" "$work/benign-name-of-the-same-length.all_reduce_perf.txt"
"$collprof" bench --import "$work/$hostile" -q --report "$work/h" 2>/dev/null &&
    "$collprof" bench --import "$work/benign-name-of-the-same-length.all_reduce_perf.txt" \
        -q --report "$work/b" 2>/dev/null &&
    chromium_dom "$work/h/bench.html" "$work/h.dom" &&
    chromium_dom "$work/b/bench.html" "$work/b.dom"
ok $? "Chromium renders the pages of a hostile and a benign file name"
$domcheck safe "$work/h.dom" "$work/b.dom"
ok $? "the hostile name adds no element or attribute"
check "the hostile page: no console message" console_clean "$work/h.dom.log"
check "the hostile name is shown as text" $domcheck text "$work/h.dom" "$hostile"
check "its plots are in the DOM" plots_in_dom "$work/h.dom" allreduce
shot=$b/tests/bench-cli/bench-screenshot.png
rm -f "$shot"
chromium_shot "$work/imp/bench.html" "$shot" 1300,2400
check "a screenshot of the five-collective page" test -s "$shot"
diag "screenshot: $shot"
done_testing
