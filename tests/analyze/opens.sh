#!/bin/sh
# opens.sh - collprof analyze opens each rank log once: the check of its
# first open is shared by every pass (clock offsets, main pass, hangs, the
# NCCL view, steps), which read it through the kept descriptor; no pass
# seeks, fcntls or fstats it again (docs/analysis.md "One check per
# file").  Counted with strace (skipped without it) on a 64-rank job of 4
# steps, so that every pass runs (8 nodes: the clock-offset pass; steps:
# the warm-up's end).  The report is the same as without strace.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
gen=$b/tests/tools/gen_logs
need "$collprof" "$gen"
command -v strace >/dev/null 2>&1 || skip_all "strace not installed"
strace -f -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here (ptrace refused)"

"$gen" -o "$work/logs" --pattern ddp-small --ranks 64 --ranks-per-node 8 \
    --steps 4 >/dev/null
ok $? "gen_logs: 64 ranks, 8 nodes"
"$collprof" analyze -q -j 1 "$work/logs" -o "$work/plain" 2>"$work/plain.err"
ok $? "analyze"
strace -f -o "$work/trace" -e trace=openat,open,close,lseek,fcntl,newfstatat,fstat,fadvise64 \
    "$collprof" analyze -q -j 1 "$work/logs" -o "$work/traced" 2>"$work/traced.err"
ok $? "analyze under strace"
check "the same report.json under strace" \
    cmp "$work/plain/report.json" "$work/traced/report.json"
# every log: opened exactly once
python3 - "$work/trace" "$work/logs" <<'PY' >"$work/opens"
import os, re, sys
trace, logs = sys.argv[1], sys.argv[2]
names = sorted(f for f in os.listdir(logs) if f.endswith(".cplog"))
opens = {n: 0 for n in names}
fds = {}      # descriptor -> the log it is open on (threads share them)
on_logs = 0   # lseek, fcntl, fstat, fadvise on a log's descriptor
for line in open(trace):
    m = re.match(r'\d+\s+(openat|open)\(.*"([^"]*)".*\)\s*=\s*(-?\d+)', line)
    if m:
        base = os.path.basename(m.group(2))
        if base in opens:
            opens[base] += 1
            if int(m.group(3)) >= 0:
                fds[int(m.group(3))] = base
        continue
    m = re.match(r'\d+\s+close\((\d+)\)', line)
    if m:
        fds.pop(int(m.group(1)), None)
        continue
    m = re.match(r'\d+\s+(lseek|fcntl|newfstatat|fstat|fadvise64)\((\d+),', line)
    if m and int(m.group(2)) in fds:
        on_logs += 1
print("logs", len(names))
print("max_opens", max(opens.values()))
print("min_opens", min(opens.values()))
print("fd_calls", on_logs)
PY
cat "$work/opens" | sed 's/^/# /'
logs=$(sed -n 's/^logs //p' "$work/opens")
maxo=$(sed -n 's/^max_opens //p' "$work/opens")
mino=$(sed -n 's/^min_opens //p' "$work/opens")
fdc=$(sed -n 's/^fd_calls //p' "$work/opens")
ok $([ "$logs" = 64 ]; echo $?) "64 logs listed ($logs)"
ok $([ "$maxo" = 1 ] && [ "$mino" = 1 ]; echo $?) "each log opened exactly once (min $mino, max $maxo)"
# one fstat per log at its check; nothing else per descriptor and pass
ok $([ "$fdc" -eq "$logs" ]; echo $?) "lseek, fcntl, fstat, fadvise on the logs' descriptors: $fdc, one per log (its check's fstat)"
done_testing
