#!/bin/sh
# memcheck.sh - the analyzer's commands under valgrind's memcheck.
#
# The sanitizer builds (tests/sanitize.sh) see only instrumented code: a
# JSON value freed twice through Jansson's reference counts, or read after
# Jansson freed it, happens inside the uninstrumented libjansson and passes
# them silently (it once corrupted the heap of large analyses).  memcheck
# sees every access.  Each command must finish with no memcheck error:
# analyze of a multi-node job with a slow link and a straggler (the node-pair
# matrices, findings, timeline, report.html), report of that report.json,
# bench --import --report, and report of the bench.json.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
s=${top_srcdir:-.}
cp="$b/analyzer/collprof"
gen="$b/tests/tools/gen_logs"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind is not installed"
# a libtool wrapper script would put valgrind on the shell
head -c 4 "$cp" | grep -q ELF || skip_all "$cp is not an executable file"
t=$(mktemp -d /tmp/cp-memcheck-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM

vg() { # NAME CMD...: run CMD under memcheck; 0 when it exits 0 with no error
    name=$1
    shift
    valgrind -q --error-exitcode=99 --track-origins=no --leak-check=no \
        --log-file="$t/$name.vg" "$@" >"$t/$name.out" 2>"$t/$name.err"
    rc=$?
    if [ $rc -ne 0 ] || [ -s "$t/$name.vg" ]; then
        diag "$name: exit $rc"
        head -n 40 "$t/$name.vg" "$t/$name.err" | sed 's/^/# /'
        return 1
    fi
    return 0
}

"$gen" -o "$t/logs" --pattern 3d --ranks 64 --ranks-per-node 8 --dp-size 2 \
    --steps 3 --inter-bw 12.5GB/s --intra-bw 150GB/s --noise 0.05 --seed 7 \
    --slow-link 2,4=3 >"$t/gen.out" 2>&1
ok $? "gen_logs: 3d, 64 ranks on 8 nodes, a slow link" ||
    sed 's/^/# /' "$t/gen.out"
vg analyze "$cp" analyze -q "$t/logs" -o "$t/out"
ok $? "analyze: no memcheck error"
python3 - "$t/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cells = [v for row in r["topology"]["bandwidth_Bps"] or [] for v in row
         if v is not None]
sys.exit(0 if cells and any(f["kind"] == "slow_link" for f in r["findings"]) else 1)
PY
ok $? "analyze: a node-pair matrix and a slow_link to free"
vg report "$cp" report "$t/out/report.json" -o "$t/again.html"
ok $? "report of report.json: no memcheck error"
vg bench "$cp" bench -q --import "$s/tests/bench-cli/data/autodl-2080ti-x2.all_reduce_perf.txt" \
    "$s/tests/bench-cli/data/autodl-2080ti-x2.all_gather_perf.txt" --report "$t/bench"
ok $? "bench --import --report: no memcheck error"
vg benchreport "$cp" report "$t/bench/bench.json" -o "$t/bench2.html"
ok $? "report of bench.json: no memcheck error"
done_testing
