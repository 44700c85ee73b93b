#!/bin/sh
# cli.sh - collprof report: renders a saved report.json, and its errors name
# the file and the key.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
need "$collprof"

run "report --help" 0 "$collprof" report --help
check "help: says what it reads and writes" grep -q 'usage: collprof report REPORT.json' "$work/out"
run "collprof --help lists report" 0 "$collprof" --help
check "help: report listed" grep -q '^  report ' "$work/out"
run "no argument: usage error" 2 "$collprof" report
err_has "collprof report: no report given" "no argument: says so"
run "two reports: usage error" 2 "$collprof" report a.json b.json
run "unknown option: usage error" 2 "$collprof" report --frobnicate x.json

run "missing file: exit 1" 1 "$collprof" report "$work/nope.json" -o "$work/nope.html"
err_has "collprof report: cannot read $work/nope.json: No such file or directory" "missing file: names the file and why"
check "missing file: no page" test ! -e "$work/nope.html"

printf '{"schema": "collprof.report/1",\n  "job": {' >"$work/trunc.json"
run "not JSON: exit 1" 1 "$collprof" report "$work/trunc.json" -o "$work/t.html"
err_has "collprof report: $work/trunc.json is not JSON: line 2" "not JSON: names the file and the line"

# (another schema altogether: kinds.sh)
for c in bad-schema missing-key wrong-type not-object; do
    run "$c: exit 1" 1 "$collprof" report "$cases/$c/report.json" -o "$work/$c.html"
    err_has "collprof report: $cases/$c/report.json: $(cat "$cases/$c/error")" "$c: names the file and the key"
    check "$c: no page, no temporary file" sh -c "! ls '$work' | grep -q '^$c\\.html'"
done

# a wrong type deep inside: the key's full path
python3 - "$cases/medium/report.json" "$work/deep.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["findings"][2]["ranks"][0] = "thirteen"
json.dump(r, open(sys.argv[2], "w"))
PY
run "deep wrong type: exit 1" 1 "$collprof" report "$work/deep.json" -o "$work/deep.html"
err_has "key 'findings[2].ranks[0]' should be an integer, not a string" "deep wrong type: the key's path"

mkdir -p "$work/r"
cp "$cases/medium/report.json" "$work/r/report.json"
run "default output" 0 "$collprof" report "$work/r/report.json"
check "default output: report.html next to report.json" test -s "$work/r/report.html"
check "default output: nothing on stdout" test ! -s "$work/out"
check "default output: a page with every plot" figures "$work/r/report.html"
run "-o -: standard output" 0 "$collprof" report "$work/r/report.json" -o -
check "-o -: the page" cmp -s "$work/out" "$work/r/report.html"
run "-o FILE" 0 "$collprof" report "$cases/findings/report.json" -o "$work/r/f.html"
check "-o FILE: written" grep -q '</html>' "$work/r/f.html"
check "-o FILE: no temporary file left" sh -c "! ls '$work/r' | grep -q tmp"
run "unwritable output: exit 1" 1 "$collprof" report "$work/r/report.json" -o "$work/no/such/dir/x.html"
err_has "collprof report: cannot write $work/no/such/dir/x.html" "unwritable output: names the file"
mkfifo "$work/r/fifo"
run "a fifo as the output: exit 1" 1 "$collprof" report "$work/r/report.json" -o "$work/r/fifo"
err_has "$work/r/fifo exists and is not a regular file" "a fifo as the output: refused, named"
check "a fifo as the output: still a fifo" test -p "$work/r/fifo"
check "a fifo as the output: no temporary file left" sh -c "! ls '$work/r' | grep -q tmp"
done_testing
