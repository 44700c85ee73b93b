#!/bin/sh
# memory.sh - a small log set claiming 2^20 ranks in each of 100
# communicators (hostile.py rewrites gen_logs' logs): the analysis runs
# within a 256 MiB address space (RLIMIT_AS, ulimit -v) and a generous
# timeout, names the claim and the memory budget it passed, and still
# writes its report (docs/security.md, "Memory").
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
gen="$b/tests/tools/gen_logs"
maxrss="$b/tests/analyze/maxrss"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
[ -x "$maxrss" ] || skip_all "tests/analyze/maxrss not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
command -v timeout >/dev/null 2>&1 || skip_all "no timeout"
t=$(mktemp -d /tmp/cp-secmem-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$t"' EXIT INT TERM
"$gen" -o "$t/src" --ranks 4 --steps 3 >/dev/null || skip_all "gen_logs failed"
python3 "${top_srcdir:-.}/tests/security/hostile.py" "$t/src" "$t/bad" \
    1048576 100 || skip_all "hostile.py failed"
check "the hostile logs are small (< 100 KB each)" \
    [ -z "$(find "$t/bad" -name '*.cplog' -size +100k)" ]
(
    ulimit -v 262144 || exit 99
    exec timeout 300 "$maxrss" "$cp" analyze "$t/bad" -o "$t/out" -q
) 2>"$t/err"
rc=$?
[ "$rc" -eq 99 ] && skip_all "ulimit -v refused"
diag "exit $rc, $(grep maxrss_kib "$t/err")"
check "analysed within 256 MiB of address space and the timeout (exit 0)" \
    [ "$rc" -eq 0 ]
check "... the claim and the budget named" \
    grep -q "communicator 5eed[0-9a-f]* claims 1048576 ranks: past the analysis' memory budget" "$t/err"
check "... peak RSS below 256 MiB" \
    [ "$(sed -n 's/^maxrss_kib //p' "$t/err")" -lt 262144 ]
check "... the report lists the members seen, not a million ranks" \
    python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
cs = r['communicators']
ok = cs and all(c['nranks'] == 1048576 and c['ranks'] is None and
                0 < len(c['members']) <= 100 for c in cs)
ok = ok and any('memory budget' in p['message'] for p in r['inputs']['problems'])
sys.exit(0 if ok else 1)" "$t/out/report.json"
check "... and the page is drawn" [ -s "$t/out/report.html" ]
done_testing
