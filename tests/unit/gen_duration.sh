#!/bin/sh
# gen_duration.sh - gen_logs --duration: a long job written directly in the
# capture policy's folded form (cp_logfmt.h, "capture policy"): detail
# windows as calls, the calls between them as CP_LOG4_FOLD runs and
# kind-12 aggregates per signature and interval.  A week of 2 ranks at
# 1000 calls/s is written in seconds and within 20 MB per rank per day;
# collprof dump reads it back whole; the aggregates cover every interval;
# aggregates and detail calls give every seq of a rank once; a slow link
# from day 3 shows in the aggregates from its interval on, not before; a
# shorter job with a straggler, a clock step and a hang shows each where
# the truth says.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
gen="$b/tests/tools/gen_logs"
cp="$b/analyzer/collprof"
[ -x "$gen" ] && [ -x "$cp" ] || skip_all "gen_logs or collprof not built"
command -v python3 >/dev/null || skip_all "no python3"
t=$(mktemp -d /tmp/cp-gen-duration-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM

now() { python3 -c 'import time; print(time.monotonic())'; }

# ---- a week, 2 ranks on 2 nodes, ddp-small at 1000 calls/s, the default
# policy, the link n0-n1 4x slower from day 3
t0=$(now)
"$gen" -o "$t/w" --ranks 2 --ranks-per-node 1 --pattern ddp-small \
    --duration 7d --rate 1000 --slow-link 0,1=4:from=3d --seed 3 \
    --truth "$t/w.json" >"$t/w.out" 2>&1
rc=$?
t1=$(now)
ok $rc "gen_logs --duration 7d --rate 1000 (2 ranks, ddp-small, a slow link from 3d)"
[ $rc -eq 0 ] || sed 's/^/# /' "$t/w.out"
secs=$(python3 -c "print('%.2f' % ($t1 - $t0))")
diag "a week of 2 ranks at 1000 calls/s written in $secs s"
check "... written in seconds ($secs s, at most 60 on a loaded machine)" \
    python3 -c "import sys; sys.exit(0 if $t1 - $t0 < 60 else 1)"
mb=$(python3 - "$t/w" <<'EOF'
import os, sys
d = sys.argv[1]
sizes = [os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)]
print("%.2f" % (max(sizes) / 7 / 1e6))
EOF
)
diag "policy bytes/rank/day: $mb MB (target <= 20 MB)"
check "... at most 20 MB per rank per day ($mb MB)" \
    python3 -c "import sys; sys.exit(0 if $mb <= 20 else 1)"

for f in "$t"/w/*.cplog; do
    r=$(basename "$f" .cplog)
    "$cp" dump --csv "$f" >"$t/w.$r.csv" 2>"$t/w.$r.err" &&
        "$cp" dump --all "$f" 2>>"$t/w.$r.err" | grep ' aggregate ' >"$t/w.$r.agg"
    ok $? "collprof dump $r: read back with no damage (exit 0)"
    sed 's/^/# /' "$t/w.$r.err"
done
"$cp" dump --summary "$t/w" >"$t/w.sum" 2>&1
check "collprof dump --summary: the header's capture policy (the defaults)" \
    grep -q "capture policy: first 65536, windows of 4096 every 1048576 instances, aggregates every 60000 ms" "$t/w.sum"

# checks.py: per rank, every interval covered, the seqs joined, the slow
# link where the truth puts it
cat >"$t/checks.py" <<'EOF'
import glob, json, os, statistics, sys

# checks.py PREFIX TRUTH CHECK...: PREFIX.R.csv (collprof dump --csv) and
# PREFIX.R.agg (its aggregate lines) of each rank R; one line "result
# CHECK 0|1" per check
prefix, truth_path, checks = sys.argv[1], sys.argv[2], sys.argv[3:]
truth = json.load(open(truth_path))
I = truth["policy"]["interval_ms"] * 1000000

def load(r):
    aggs = []
    for line in open("%s.%s.agg" % (prefix, r)):
        w = line.split()
        # rank R node N aggregate comm C OP [grouped] count N peer P calls C
        # seq A..B interval I ms first F dur min X us median X us p99 X us
        # max X us sum X us
        grouped = w[8] == "grouped"
        if grouped:
            del w[8]
        s0, s1 = w[15].split("..")
        # the seq counter: a communicator's, a send/recv's per peer and
        # direction
        key = (w[6], w[7], w[11]) if w[7] in ("send", "recv") else (w[6],)
        aggs.append(dict(comm=key, count=int(w[9]), calls=int(w[13]),
                         grouped=grouped,
                         s0=int(s0), s1=int(s1), first=int(w[20]),
                         mn=float(w[23]), med=float(w[26]),
                         p99=float(w[29]), mx=float(w[32]),
                         sum=float(w[35])))
    calls = []
    with open("%s.%s.csv" % (prefix, r)) as f:
        next(f)
        for line in f:
            w = line.split(",")
            # counter, seq, count, start, duration
            key = (w[3], w[5], w[10]) if w[5] in ("send", "recv") else (w[3],)
            calls.append((key, int(w[4]), int(w[7]), int(w[16]), int(w[18])))
    return aggs, calls

names = sorted(os.path.basename(p)[len(os.path.basename(prefix)) + 1:-4]
               for p in glob.glob(prefix + ".*.agg"))
ranks = {r: load(r) for r in names}
results = {}

def check(name, bad):
    for x in bad[:20]:
        print("# " + x)
    results[name] = 1 if bad else 0

if "intervals" in checks:
    # every interval from the first aggregate's to the run's last has an
    # aggregate; the first is where the truth says
    bad = []
    for r, (aggs, calls) in ranks.items():
        ks = set(a["first"] // I for a in aggs)
        lo, last = min(ks), truth["last_end_ns"] // I
        missing = [k for k in range(lo, last + 1) if k not in ks]
        if missing:
            bad.append("%s: %d intervals without an aggregate, first %s"
                       % (r, len(missing), missing[:5]))
        if lo != truth["first_interval"]:
            bad.append("%s: first aggregate in interval %d, the truth's %d"
                       % (r, lo, truth["first_interval"]))
        print("# %s: %d aggregates over intervals %d..%d (%d intervals, "
              "%.2f days)" % (r, len(aggs), lo, last, last - lo + 1,
                              (last - lo + 1) * I / 86400e9))
    check("intervals", bad)

if "seqs" in checks or "exact" in checks:
    # per communicator: the detail calls' seqs once each, and the
    # aggregates' calls and the detail calls every seq from 0 to the last
    bad = []
    for r, (aggs, calls) in ranks.items():
        by_comm = {}
        for c, s, n, st, du in calls:
            by_comm.setdefault(c, []).append(s)
        for c, seqs in by_comm.items():
            mine = [a for a in aggs if a["comm"] == c]
            folded = sum(a["calls"] for a in mine)
            top = max(max(seqs), max([a["s1"] for a in mine] or [0]))
            if len(set(seqs)) != len(seqs):
                bad.append("%s %s: a detail seq twice" % (r, c))
            if len(seqs) + folded != top + 1:
                bad.append("%s %s: %d detail + %d folded calls for seqs 0..%d"
                           % (r, " ".join(c), len(seqs), folded, top))
            print("# %s %s: %d detail calls + %d folded = seqs 0..%d"
                  % (r, " ".join(c), len(seqs), folded, top))
            if "exact" not in checks:
                continue
            # one signature: the aggregates' ranges follow each other
            # without overlap, each holding its calls and the detail calls
            # of the windows inside it; the rest are detail calls
            seqset = set(seqs)
            at = 0
            for a in sorted(mine, key=lambda a: a["s0"]):
                while at < a["s0"] and at in seqset:
                    at += 1
                inside = sum(1 for s in range(a["s0"], a["s1"] + 1) if s in seqset)
                if a["s0"] != at or a["calls"] + inside != a["s1"] - a["s0"] + 1:
                    bad.append("%s %s: aggregate seq %d..%d (%d calls, %d detail "
                               "inside) after seq %d" % (r, " ".join(c), a["s0"], a["s1"],
                                                         a["calls"], inside, at - 1))
                    break
                at = a["s1"] + 1
            while at in seqset:
                at += 1
            if at != top + 1:
                bad.append("%s %s: seqs end at %d of %d" % (r, " ".join(c), at - 1, top))
    check("exact" if "exact" in checks else "seqs", bad)

if "link" in checks:
    # the largest call's aggregates: before the link's interval as the
    # detail calls then; 4x from the interval after it on
    bad = []
    f = [x for x in truth["faults"] if x["kind"] == "link"][0]
    kf = f["from_ns"] // I
    for r, (aggs, calls) in ranks.items():
        big = max(a["count"] for a in aggs)
        mine = [a for a in aggs if a["count"] == big]
        before = [a["med"] for a in mine if a["first"] // I < kf]
        after = [a["med"] for a in mine if a["first"] // I > kf]
        mb, ma = statistics.median(before), statistics.median(after)
        first_slow = min(a["first"] // I for a in mine if a["med"] > 2 * mb)
        md = statistics.median([du / 1e3 for c, s, n, st, du in calls
                                if n == big and st < f["from_ns"]])
        print("# %s: count %d: aggregates' median %.1f us before the link's "
              "interval, %.1f us after (%.2fx); detail calls before %.1f us; "
              "first slow interval %d, the truth's %d"
              % (r, big, mb, ma, ma / mb, md, first_slow, kf))
        if not (ma > 2.5 * mb and max(before) < 1.5 * mb):
            bad.append("%s: no slowdown after the link's time" % r)
        if abs(first_slow - kf) > 1:
            bad.append("%s: slow from interval %d, the truth's %d"
                       % (r, first_slow, kf))
        if abs(md / mb - 1) > 0.15:
            bad.append("%s: detail median %.1f, aggregates' %.1f" % (r, md, mb))
    check("link", bad)

if "straggler" in checks:
    # from its interval on: the late rank waits least (shorter), the
    # others wait for it (longer by about its delay)
    bad = []
    f = [x for x in truth["faults"] if x["kind"] == "straggler"][0]
    kf = f["from_ns"] // I
    for r, (aggs, calls) in ranks.items():
        b = statistics.median([a["med"] for a in aggs if a["first"] // I < kf])
        a_ = statistics.median([a["med"] for a in aggs if a["first"] // I > kf])
        late = r.endswith(".%d" % (10000 + f["rank"]))
        print("# %s%s: median duration %.1f us before the straggler, %.1f after"
              % (r, " (the straggler)" if late else "", b, a_))
        if late and not a_ < b:
            bad.append("%s (the straggler): not shorter after" % r)
        if not late and not a_ > b + 0.5 * f["delay_s"] * 1e6:
            bad.append("%s: not longer after the straggler" % r)
    check("straggler", bad)

if "grouped" in checks:
    # the exchanges' sends and receives: their aggregates marked grouped
    # (CP_AGG_GROUPED), the collectives' not
    bad = []
    for r, (aggs, calls) in ranks.items():
        n = sum(1 for a in aggs if a["grouped"])
        wrong = [a for a in aggs if a["grouped"] != (len(a["comm"]) == 3)]
        print("# %s: %d grouped aggregates (send, recv) of %d" % (r, n, len(aggs)))
        if not n or wrong:
            bad.append("%s: %d grouped, %d marked wrong" % (r, n, len(wrong)))
    check("grouped", bad)

for name in checks:
    print("result %s %d" % (name, results.get(name, 1)))
EOF
# result NAME: the status checks.py gave check NAME (in $t/res)
result() { awk -v n="$1" '$1 == "result" && $2 == n { print $3; f = 1 } END { if (!f) print 1 }' "$t/res"; }
python3 "$t/checks.py" "$t/w" "$t/w.json" intervals seqs link >"$t/res" 2>&1
grep -v '^result' "$t/res"
ok "$(result intervals)" "the week: aggregates cover every interval of every rank"
ok "$(result seqs)" "the week: per communicator, detail calls and aggregates give every seq once"
ok "$(result link)" "the week: the slow link's aggregates 4x slower from its interval on, as the truth says; the same before as the detail calls"

# ---- 2 hours, 4 ranks on 2 nodes, one signature, short intervals and
# windows: a straggler from 1h, a clock step on n1 at 30m, a hang at the end
"$gen" -o "$t/h" --ranks 4 --ranks-per-node 2 --pattern uniform \
    --duration 2h --rate 500 --policy interval=10s,window=1000,every=100000 \
    --straggler 1=300us:from=1h --clock-offset 1=5s:from=30m --hang 2 \
    --seed 5 --truth "$t/h.json" >"$t/h.out" 2>&1
ok $? "gen_logs --duration 2h: a straggler, a clock step and a hang"
sed 's/^/# /' "$t/h.out"
dumped=0
for f in "$t"/h/*.cplog; do
    r=$(basename "$f" .cplog)
    "$cp" dump --csv "$f" >"$t/h.$r.csv" 2>>"$t/h.err" &&
        "$cp" dump --all "$f" 2>>"$t/h.err" | grep ' aggregate ' >"$t/h.$r.agg" ||
        dumped=1
done
ok $dumped "collprof dump: the 2-hour logs read back (exit 0)"
"$gen" -o "$t/hs" --ranks 4 --ranks-per-node 2 --pattern uniform \
    --duration 2h --rate 500 --policy interval=10s,window=1000,every=100000 \
    --straggler 1=300us:from=1h --clock-offset 1=5s:from=30m --hang 2 \
    --seed 5 --swap >/dev/null 2>&1 &&
    "$cp" dump --all "$t/h" >"$t/h.all" 2>&1 &&
    "$cp" dump --all "$t/hs" >"$t/hs.all" 2>&1
ok $? "gen_logs --duration --swap: the other byte order read back (exit 0)"
check "... the same records, aggregates and calls in flight as this byte order's" \
    cmp -s "$t/h.all" "$t/hs.all"
python3 "$t/checks.py" "$t/h" "$t/h.json" exact straggler >"$t/res" 2>&1
grep -v '^result' "$t/res"
ok "$(result exact)" "2 hours: one signature: the aggregates' seq ranges (with the windows inside them) and the detail calls cut every rank's seqs exactly"
ok "$(result straggler)" "2 hours: after the straggler's time its rank's durations shorter, the others' longer"
python3 - "$t" <<'EOF'
import csv, json, sys
t = sys.argv[1]
truth = json.load(open(t + "/h.json"))
step = [x for x in truth["faults"] if x["kind"] == "clock_step"][0]
# the same instance (seq) on n0 (rank 0) and n1 (rank 3): n1's clock reads
# the step later from its time on, the same before
def starts(name):
    return {int(x["seq"]): int(x["start_ns"])
            for x in csv.DictReader(open("%s/h.%s.csv" % (t, name)))}
a, b = starts("n0.10000"), starts("n1.10003")
at = step["from_ns"]
before = [b[s] - a[s] for s in a if s in b and a[s] < at - 1e9]
after = [b[s] - a[s] for s in a if s in b and a[s] > at + 1e9]
print("# n1 - n0, the same instance: %.3f to %.3f ms before the step, "
      "%.3f to %.3f ms after (step %.3f s)"
      % (min(before) / 1e6, max(before) / 1e6, min(after) / 1e6,
         max(after) / 1e6, step["step_s"]))
ok = (max(abs(x) for x in before) < 1e6 and
      max(abs(x - step["step_s"] * 1e9) for x in after) < 1e6)
sys.exit(0 if ok else 1)
EOF
ok $? "2 hours: node n1's clock steps by 5 s at the truth's time (its calls' starts against n0's)"
# ---- 3 hours of pattern mixed: collectives on the world and the nodes'
# communicators, grouped send/recv exchanges one node up and down
"$gen" -o "$t/m" --ranks 4 --ranks-per-node 2 --pattern mixed --duration 3h \
    --rate 20 --policy interval=30s,first=3000,window=300,every=10000 \
    --seed 7 --truth "$t/m.json" >"$t/m.out" 2>&1
ok $? "gen_logs --duration 3h --pattern mixed (grouped send/recv)"
sed 's/^/# /' "$t/m.out"
dumped=0
for f in "$t"/m/*.cplog; do
    r=$(basename "$f" .cplog)
    "$cp" dump --csv "$f" >"$t/m.$r.csv" 2>>"$t/m.err" &&
        "$cp" dump --all "$f" 2>>"$t/m.err" | grep ' aggregate ' >"$t/m.$r.agg" ||
        dumped=1
done
ok $dumped "collprof dump: the mixed logs read back (exit 0)"
python3 "$t/checks.py" "$t/m" "$t/m.json" seqs grouped >"$t/res" 2>&1
grep -v '^result' "$t/res"
ok "$(result seqs)" "mixed: per counter (communicator; send/recv per peer and direction), detail calls and aggregates give every seq once"
ok "$(result grouped)" "mixed: the exchanges' aggregates marked grouped, the collectives' not"

hang=$(python3 -c "import json; h=[x for x in json.load(open('$t/h.json'))['faults'] if x['kind']=='hang'][0]; print(h['seq'], h['rank'])")
set -- $hang
inflight=0
for f in "$t"/h/*.cplog; do
    "$cp" dump "$f" | tail -n 1 | grep -q "seq $1 .*in flight (never returned)" &&
        inflight=$((inflight + 1))
done
check "the hang: the 3 ranks but rank $2 end with allreduce seq $1 in flight (the ring)" \
    test "$inflight" -eq 3

done_testing
