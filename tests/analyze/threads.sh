#!/bin/sh
# threads.sh - what collprof analyze -j N runs on threads, each path once:
# the inputs' checks (split among the threads past 64 logs), the hang
# pass's reading beside the main pass, the read-ahead.  Raw logs, node
# partials, and an input that is no log (its check fails on a thread) each
# give with -j 2 and -j 3 the report.json of -j 1, byte for byte.  Small
# enough to run under ThreadSanitizer (tests/sanitize.sh), where it is
# there for the races.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/analyze/lib.sh"
analyze_setup threads

# 128 ranks on 32 nodes: 4 chunks of checks; failed calls and a clock
# offset (the warm-up's end is found from the hang pass's early instances)
"$gen" -o "$t/logs" --pattern mixed --ranks 128 --ranks-per-node 4 \
    --steps 3 --failed 2 --clock-offset 3=1ms >/dev/null
ok $? "gen_logs: 128 ranks, mixed"
same_report_for_jobs "$cp" "$t" logs "$t/logs" 2 3

# half of the nodes as partials: their logs are checked through the
# registry of partial-held logs, from several threads
cp -R "$t/logs" "$t/mixed"
rc=0
for n in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    "$cp" reduce -q --node "n$n" "$t/mixed" 2>>"$t/reduce.err" || rc=1
    rm -f "$t/mixed/n$n".*.cplog
done
ok $rc "reduce: 16 of the 32 nodes"
same_report_for_jobs "$cp" "$t" partials "$t/mixed" 2 3

# a collective call of an early instance with a damaged size (0 ranks):
# the hang pass takes it into no communicator, so -j N cannot find the
# warm-up's end among its early instances and reads the logs up to it
cp -R "$t/logs" "$t/sizeless"
python3 - "$t/sizeless/n1.10005.cplog" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    for at in range(4096, len(data) - 63, 64):
        kind, op = data[at], data[at + 1]
        if kind == 1 and 1 <= op <= 9:      # CP_REC_CALL, a collective
            struct.pack_into("<I", data, at + 36, 0)   # nranks
            break
    f.seek(0)
    f.write(data)
PY
ok $? "sizeless: a call's size set to 0"
same_report_for_jobs "$cp" "$t" sizeless "$t/sizeless" 2 3

# an input whose check fails: its problem in its place among the others
cp -R "$t/logs" "$t/bad"
head -c 5000 /dev/zero | tr '\0' x >"$t/bad/n9.99999.cplog"
same_report_for_jobs "$cp" "$t" bad "$t/bad" 2 3
check "bad: the input that is no log is named" \
    grep -q 'n9.99999.cplog' "$t/bad.j3/report.json"
done_testing
