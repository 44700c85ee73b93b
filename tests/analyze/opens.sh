#!/bin/sh
# opens.sh - collprof analyze opens each rank log once: the check of its
# first open is shared by every pass (clock offsets, main pass, hangs, the
# NCCL view, steps), which read it through the kept descriptor; no pass
# seeks, fcntls or fstats it again (docs/analysis.md "One check per
# file").  Counted with strace (skipped without it) on a 64-rank job of 4
# steps, so that every pass runs (8 nodes: the clock-offset pass; steps:
# the warm-up's end), the preads per log of 4096 small logs, and the one
# more read of a log with kernel phases (none of one without).  The
# reports are the same as without strace.
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
strace -f -o "$work/trace" -e trace=openat,open,close,close_range,lseek,fcntl,newfstatat,fstat,fadvise64 \
    "$collprof" analyze -q -j 1 "$work/logs" -o "$work/traced" 2>"$work/traced.err"
ok $? "analyze under strace"
check "the same report.json under strace" \
    cmp "$work/plain/report.json" "$work/traced/report.json"
# fdcount.py TRACE LOGDIR: follows the descriptors of the logs in DIR
# through an strace (opened, closed one by one or by close_range; threads
# share them) and prints per log: opens, the other calls on them (lseek,
# fcntl, fstat, fadvise), reads (pread, preadv), and what is open at the end.
# A call that another thread's call cut in two (strace -f writes
# "NAME(... <unfinished ...>", later "<... NAME resumed>...") is joined
# into one line first: the checks and the hang pass run on threads.
cat >"$work/fdcount.py" <<'PY'
import os, re, sys
trace, logs = sys.argv[1], sys.argv[2]
names = sorted(f for f in os.listdir(logs) if f.endswith(".cplog"))
opens = {n: 0 for n in names}
preads = {n: 0 for n in names}
fds = {}      # descriptor -> the log it is open on (threads share them)
on_logs = 0   # lseek, fcntl, fstat, fadvise on a log's descriptor
pending = {}  # pid -> the start of its unfinished call
def calls(path):
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r'(\d+)\s+(.*) <unfinished \.\.\.>$', line)
        if m:
            pending[m.group(1)] = m.group(2)
            continue
        m = re.match(r'(\d+)\s+<\.\.\. \w+ resumed>(.*)$', line)
        if m:
            line = m.group(1) + " " + pending.pop(m.group(1), "") + m.group(2)
        yield line
for line in calls(trace):
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
    # the descriptors kept for the passes are closed together at the end
    m = re.match(r'\d+\s+close_range\((\d+), (\d+),.*\)\s*=\s*0', line)
    if m:
        for fd in range(int(m.group(1)), int(m.group(2)) + 1):
            fds.pop(fd, None)
        continue
    m = re.match(r'\d+\s+(lseek|fcntl|newfstatat|fstat|fadvise64)\((\d+),', line)
    if m and int(m.group(2)) in fds:
        on_logs += 1
        continue
    m = re.match(r'\d+\s+(?:pread64|preadv)\((\d+),', line)
    if m and int(m.group(1)) in fds:
        preads[fds[int(m.group(1))]] += 1
print("logs", len(names))
print("max_opens", max(opens.values()))
print("min_opens", min(opens.values()))
print("fd_calls", on_logs)
print("open_at_end", len(fds))
print("max_preads", max(preads.values()))
print("total_preads", sum(preads.values()))
PY
# every log: opened exactly once
python3 "$work/fdcount.py" "$work/trace" "$work/logs" >"$work/opens"
cat "$work/opens" | sed 's/^/# /'
logs=$(sed -n 's/^logs //p' "$work/opens")
maxo=$(sed -n 's/^max_opens //p' "$work/opens")
mino=$(sed -n 's/^min_opens //p' "$work/opens")
fdc=$(sed -n 's/^fd_calls //p' "$work/opens")
left=$(sed -n 's/^open_at_end //p' "$work/opens")
ok $([ "$logs" = 64 ]; echo $?) "64 logs listed ($logs)"
ok $([ "$maxo" = 1 ] && [ "$mino" = 1 ]; echo $?) "each log opened exactly once (min $mino, max $maxo)"
# one fstat per log at its check; nothing else per descriptor and pass
ok $([ "$fdc" -eq "$logs" ]; echo $?) "lseek, fcntl, fstat, fadvise on the logs' descriptors: $fdc, one per log (its check's fstat)"
# the descriptors kept for the passes are all closed when the run ends
# (close, or close_range over runs of them: one system call, not 64)
ok $([ "$left" = 0 ]; echo $?) "every log's descriptor closed at the end ($left left open)"

# Many small logs (4096 ranks of 200 calls, 512 nodes: an 8 KiB buffer
# each, docs/analysis.md "What grows with the ranks"): 3 reads per log,
# its header with its first records (one preadv, at its check: 64 records
# for the clock offsets, taken up by the clock pass and then by the main
# pass as its first buffer), the rest of the main pass, and the hang pass,
# which also finds the warm-up's end (the start of the second step).
# 5 when the header and the first records were two reads and the warm-up's
# end one more; 7 when the clock pass read each log whole and the main
# pass read it again; 4 when the kernel phases' pass (cp_phases) read
# every log once more, phases or not (these logs have none: a shim's).
# Format 3 here (one slot per record, read in place); format 4's count
# is the last test.
"$gen" -o "$work/many" --pattern ddp-large --ranks 4096 --ranks-per-node 8 \
    --calls 200 --format 3 >/dev/null
ok $? "gen_logs: 4096 ranks of 200 calls, 512 nodes"
"$collprof" analyze -q -j 1 "$work/many" -o "$work/many-plain" 2>/dev/null
ok $? "analyze 4096 ranks"
strace -f -o "$work/many-trace" -e trace=openat,open,close,close_range,pread64,preadv \
    "$collprof" analyze -q -j 1 "$work/many" -o "$work/many-traced" 2>/dev/null
ok $? "analyze 4096 ranks under strace"
check "4096 ranks: the same report.json under strace" \
    cmp "$work/many-plain/report.json" "$work/many-traced/report.json"
python3 "$work/fdcount.py" "$work/many-trace" "$work/many" >"$work/preads"
sed 's/^/# /' "$work/preads"
mlogs=$(sed -n 's/^logs //p' "$work/preads")
totp=$(sed -n 's/^total_preads //p' "$work/preads")
# (the log the steps were found on is read once more, for the step's call)
ok $([ "$mlogs" = 4096 ] && [ "$totp" -le $((3 * 4096 + 16)) ]; echo $?) "4096 logs: 3 reads per log, none for kernel phases ($totp preads and preadvs in all, at most $((3 * 4096 + 16)))"

# -j 2 shares the same read budget: past 1024 logs a half buffer each
# would be under 16 KiB, so nothing is read ahead (docs/analysis.md,
# "Threads"): the same reads as -j 1, not twice as many half-size ones
strace -f -o "$work/many-trace2" -e trace=openat,open,close,close_range,pread64,preadv \
    "$collprof" analyze -q -j 2 "$work/many" -o "$work/many-j2" 2>/dev/null
ok $? "analyze -j 2, 4096 ranks, under strace"
check "4096 ranks: -j 2 writes the same report.json" \
    cmp "$work/many-plain/report.json" "$work/many-j2/report.json"
python3 "$work/fdcount.py" "$work/many-trace2" "$work/many" >"$work/preads2"
totp2=$(sed -n 's/^total_preads //p' "$work/preads2")
ok $([ "$totp2" = "$totp" ]; echo $?) "4096 logs, -j 2: the preads of -j 1 ($totp2 against $totp)"

# Format 4: each pass reads a log's block once (a short read is the
# file's end, not asked again), and, once, its header; the ring of a log
# closed with every slot in the stream is not read, nor a log without
# kernel phases by the phases' pass (format 3 resumes the check's buffer
# in the next pass, and reads fewer).
rm -rf "$work/many" "$work/many-"*
"$gen" -o "$work/many4" --pattern ddp-large --ranks 4096 --ranks-per-node 8 \
    --calls 200 >/dev/null
strace -f -o "$work/many4-trace" -e trace=openat,open,close,close_range,pread64,preadv \
    "$collprof" analyze -q -j 1 "$work/many4" -o "$work/many4-traced" 2>/dev/null
ok $? "format 4: analyze 4096 ranks under strace"
python3 "$work/fdcount.py" "$work/many4-trace" "$work/many4" >"$work/preads4"
totp4=$(sed -n 's/^total_preads //p' "$work/preads4")
ok $([ "$totp4" -le $((4 * 4096 + 16)) ]; echo $?) "format 4, 4096 logs: at most 4 reads per log ($totp4 preads and preadvs in all)"
rm -rf "$work/many4" "$work/many4-"*

# Kernel phases (kind 10: the plugin's logs at API v7, gen_logs --phases)
# are read by a pass of their own, and only from the logs in which the
# main pass met one: the logs above were not read for them, these are,
# once more each.  64 ranks of 200 calls, from one seed, without and with
# phases.
for ph in none phases; do
    extra=
    [ "$ph" = phases ] && extra=--phases
    "$gen" -o "$work/ph-$ph" --pattern ddp-large --ranks 64 --ranks-per-node 8 \
        --calls 200 --format 3 --seed 3 $extra >/dev/null
    strace -f -o "$work/ph-$ph.trace" -e trace=openat,open,close,close_range,pread64,preadv \
        "$collprof" analyze -q -j 1 "$work/ph-$ph" -o "$work/ph-$ph.rep" 2>/dev/null
    ok $? "64 ranks, phases: $ph: analyze under strace"
    python3 "$work/fdcount.py" "$work/ph-$ph.trace" "$work/ph-$ph" >"$work/ph-$ph.preads"
    sed 's/^/# /' "$work/ph-$ph.preads"
done
pn=$(sed -n 's/^total_preads //p' "$work/ph-none.preads")
pp=$(sed -n 's/^total_preads //p' "$work/ph-phases.preads")
ok $([ -n "$pn" ] && [ -n "$pp" ] && [ "$pp" -eq $((pn + 64)) ]; echo $?) "logs with phases: one read more each, the phases' ($pp preads and preadvs against $pn)"
done_testing
