#!/bin/sh
# report.sh - collprof bench --report DIR: bench.json (the --json document)
# and bench.html beside it, after an import of published nccl-tests outputs
# and after a sweep over simrun.  reportcheck.py reads the page: one time
# and one busbw plot per collective, one mark per size of the input at its
# size and value, the fitted model curve (its shape checked against the
# ring formulas), the regime boundary at bench.json's
# regime_boundary_bytes, the plateau and link lines at their bandwidths.
# A file whose name holds markup ends up escaped; the page is
# self-contained; a folder that cannot be made is an error.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
need "$collprof" "$simrun"

# plots DIR [INPUT...]: reportcheck.py's lines as test points
plots() {
    python3 "$s/tests/bench-cli/reportcheck.py" plots "$@" >"$work/check" 2>&1
    if ! grep -q '^PASS ' "$work/check"; then
        ok 1 "reportcheck.py read $1"
        sed 's/^/#   /' "$work/check"
        return
    fi
    while IFS= read -r line; do
        case $line in
        "PASS "*) ok 0 "${line#PASS }" ;;
        "FAIL "*) ok 1 "${line#FAIL }" ;;
        *) ok 1 "reportcheck.py: $line" ;;
        esac
    done <"$work/check"
}

# self_contained HTML: nothing runs, nothing is fetched
self_contained() {
    ! grep -qiE '<script|<img|<iframe|<link|<object| on[a-z]+=|src=|href="[^#]|url\([^#]' "$1"
}

# 1. The five 2080 Ti outputs, with --json beside --report.
"$collprof" bench --import "$data"/autodl-2080ti-x2.*.txt -q \
    --json "$work/i.json" --report "$work/imp" 2>"$work/err"
ok $? "import of five outputs with --report exits 0"
check "nothing on stderr" test ! -s "$work/err"
check "bench.json and bench.html written" test -s "$work/imp/bench.json" -a -s "$work/imp/bench.html"
check "bench.json is the --json document" cmp -s "$work/i.json" "$work/imp/bench.json"
check "no temporary file left" test "$(ls -A "$work/imp" | wc -l)" -eq 2
plots "$work/imp" "$data"/autodl-2080ti-x2.*.txt
check "self-contained: no script, no outside reference" self_contained "$work/imp/bench.html"
check "the page names the imported files" grep -q 'autodl-2080ti-x2.broadcast_perf.txt' "$work/imp/bench.html"
check "the summary gives the date of bench.json" grep -qF "$(py "$work/imp/bench.json" "d['created']")" "$work/imp/bench.html"
check "a fit table row per collective" test "$(grep -c '<tr data-op=' "$work/imp/bench.html")" -eq 5
diag "page of five collectives: $(wc -c <"$work/imp/bench.html") bytes"

# 2. 16 ranks on 2 nodes (inter-node link line from the profile's fit).
"$collprof" bench --import "$data/gcp-a3mega-h100-2nodes.all_reduce_perf.txt" \
    -q --report "$work/gcp" 2>"$work/err"
ok $? "16-rank inter-node import with --report exits 0"
plots "$work/gcp" "$data/gcp-a3mega-h100-2nodes.all_reduce_perf.txt"

# 3. Markup in a file name (the damaged copy, so that its skipped lines are
# listed with the name too).
hostile=$(printf '<script>alert(1)<script>"%s&.all_reduce_perf.txt' "'")
cp "$data/damaged.all_reduce_perf.txt" "$work/$hostile"
"$collprof" bench --import "$work/$hostile" -q --report "$work/esc" 2>"$work/esc.err"
ok $? "a file named $hostile imported with --report"
pycheck "the name reached bench.json" "$work/esc/bench.json" \
    "d['sources'][0].endswith('''$hostile''') and len(d['skipped_lines']) == 7"
check "no '<script' in the page" sh -c "! grep -qi '<script' '$work/esc/bench.html'"
check "self-contained" self_contained "$work/esc/bench.html"
n=$(grep -oF '&lt;script&gt;alert(1)&lt;script&gt;&quot;&#39;&amp;.all_reduce_perf.txt' "$work/esc/bench.html" | wc -l)
ok $([ "$n" -eq 8 ]; echo $?) "the name escaped in the sources and the 7 skipped lines ($n times)"
python3 - "$work/esc/bench.html" "$hostile" <<'EOF'
import html.parser, sys
class P(html.parser.HTMLParser):
    text, tags = [], set()
    def handle_starttag(self, tag, attrs): self.tags.add(tag)
    def handle_data(self, d): self.text.append(d)
p = P(convert_charrefs=True)
p.feed(open(sys.argv[1], encoding="utf-8").read())
sys.exit(0 if sys.argv[2] in "".join(p.text) and "script" not in p.tags else 1)
EOF
ok $? "a parser reads the name back as text, and no script element"
plots "$work/esc" "$work/$hostile"

# 3b. Broadcast without nccl-tests' rank lines: no rank count, so no
# alpha-beta fit; the points, the plateau and the boundary are drawn all the
# same, and the page says why there is no curve.
grep -v '^#  Rank ' "$data/autodl-2080ti-x2.broadcast_perf.txt" >"$work/norank.broadcast_perf.txt"
"$collprof" bench --import "$work/norank.broadcast_perf.txt" -q --report "$work/norank" 2>"$work/err"
ok $? "broadcast without rank lines imported with --report"
pycheck "bench.json: no rank count, no alpha" "$work/norank/bench.json" \
    "d['fit']['broadcast']['ranks'] == 0 and d['fit']['broadcast']['alpha_s'] is None"
plots "$work/norank" "$work/norank.broadcast_perf.txt"
check "no model curve, and the caption says why" sh -c \
    "! grep -q 'class=\"model\"' '$work/norank/bench.html' && grep -q 'No alpha-beta fit (no alpha-beta model for broadcast on 0 ranks)' '$work/norank/bench.html'"

# 4. A sweep over simrun: rank 0 writes both files.
printf 'intra latency=100us bandwidth=1GB/s\n' >"$work/fast.topo"
"$simrun" -n 2 --topo "$work/fast.topo" --timeout 180 -- "$collprof" bench \
    --ops allreduce,allgather --sizes 1KB-256KB --point-time 20ms -q \
    --report "$work/run" >"$work/run.out" 2>"$work/run.err"
ok $? "a sweep of 2 ranks with --report exits 0"
sed 's/^/#   /' "$work/run.err"
check "bench.json and bench.html written, nothing else" test "$(ls -A "$work/run" | wc -l)" -eq 2 -a -s "$work/run/bench.html"
pycheck "bench.json of the run: 2 ranks, allreduce and allgather fitted" "$work/run/bench.json" \
    "d['mode'] == 'run' and d['run']['ranks'] == 2 and sorted(d['fit']) == ['allgather', 'allreduce']"
plots "$work/run"
check "the page names the NCCL library" grep -q 'libnccl' "$work/run/bench.html"
check "self-contained" self_contained "$work/run/bench.html"

# 5. Errors: a folder that cannot be made.
"$collprof" bench --import "$data/autodl-2080ti-x2.all_reduce_perf.txt" -q \
    --report "$work/imp/bench.json/sub" >/dev/null 2>"$work/err"
ok $([ $? -eq 1 ]; echo $?) "--report under a regular file: exit 1"
check "one message naming the folder" grep -q "^collprof bench: cannot create $work/imp/bench.json/sub" "$work/err"
"$collprof" bench --help | grep -q -- '--report DIR'
ok $? "--help names --report DIR"
done_testing
