#!/bin/sh
# import.sh - collprof bench --import on published nccl-tests outputs
# (tests/bench-cli/data: figures only, each file names its source): the
# fitted busbw plateau within 5 % of the busbw nccl-tests printed at the
# largest size, the latency floor within 10 % of the time it printed at the
# smallest size, the rank count from the rank lines, the busbw/algbw ratio
# or size/count; MPI-prefixed, truncated and interleaved lines reported and
# never read (a damaged copy of one output); runs printed one after another
# each its own series; the fitted bandwidth within 10 % of the plateau or a
# reason why not; nccl-tests' JSON; outputs whose collective cannot be told.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
need "$collprof"

# expect FILE: the printed busbw at the largest size and time at the
# smallest non-empty size of a text output (out-of-place columns)
expect() {
    python3 - "$1" <<'EOF'
import re, sys
rows = []
for line in open(sys.argv[1]):
    line = re.sub(r'^\[\d+,\d+\]<stdout>:', '', line).strip()
    t = line.split()
    if len(t) == 13 and t[0].isdigit() and t[1].isdigit():
        rows.append((int(t[0]), float(t[5]), float(t[7])))
rows = [r for r in rows if r[0] > 0]
print(rows[-1][2] * 1e9, rows[0][1] * 1e-6, len(rows))
EOF
}

# file op ranks link
while read -r f op ranks link; do
    j=$work/$f.json
    "$collprof" bench --import "$data/$f" --json "$j" --write-profile "$work/$f.prof" \
        >"$work/$f.out" 2>"$work/$f.err"
    rc=$?
    [ "$link" = unknown ] && [ $rc -eq 1 ] && rc=0 # no link class: no profile
    ok $rc "$f: imported"
    check "$f: no line skipped" test ! -s "$work/$f.err" -o "$link" = unknown
    set -- $(expect "$data/$f")
    busbw=$1 t0=$2 nrows=$3
    pycheck "$f: $op on $ranks ranks, link $link" "$j" \
        "d['fit']['$op']['ranks'] == $ranks and d['fit']['$op']['link'] == '$link'"
    pycheck "$f: plateau within 5% of the busbw printed at the largest size ($busbw)" "$j" \
        "abs(d['fit']['$op']['busbw_Bps'] / $busbw - 1) <= 0.05"
    pycheck "$f: latency floor within 10% of the time printed at the smallest size ($t0)" "$j" \
        "abs(d['fit']['$op']['latency_floor_s'] / $t0 - 1) <= 0.10"
    pycheck "$f: every printed result line became two points" "$j" \
        "len([p for p in d['points'] if p['size_bytes'] > 0]) == 2 * $nrows"
    pycheck "$f: the fitted bandwidth within 10% of the plateau, or the fit says why not" "$j" \
        "(lambda f: (abs(f['bandwidth_vs_plateau'] - 1) <= 0.10) != ('bandwidth_why' in f))(d['fit']['$op'])"
    diag "$f: fitted bandwidth / plateau $(py "$j" "'%.3f %s' % (d['fit']['$op']['bandwidth_vs_plateau'], d['fit']['$op'].get('bandwidth_why', ''))")"
    diag "$f: $(py "$j" "'plateau %.4g GB/s, floor %.4g us, alpha %.3g us, regime boundary %.4g B' % (d['fit']['$op']['busbw_Bps']/1e9, d['fit']['$op']['latency_floor_s']*1e6, (d['fit']['$op']['alpha_s'] or 0)*1e6, d['fit']['$op']['regime_boundary_bytes'])")"
done <<EOF
aws-p5-h100.all_reduce_perf.txt allreduce 8 unknown
gcp-a3mega-h100-2nodes.all_reduce_perf.txt allreduce 16 inter
autodl-2080ti-x2.all_reduce_perf.txt allreduce 2 intra
autodl-2080ti-x2.all_gather_perf.txt allgather 2 intra
autodl-2080ti-x2.broadcast_perf.txt broadcast 2 intra
autodl-2080ti-x2.reduce_perf.txt reduce 2 intra
autodl-2080ti-x2.alltoall_perf.txt alltoall 2 intra
EOF

# The fitted bandwidth off the plateau: why.  The 2080 Ti all-gather's busbw
# still grows at its largest size (16 % below it); the 16-rank H100 run's
# times bend where NCCL changes protocol (17 % below its plateau).
pycheck "2080 Ti all-gather: no plateau in the sweep, the fit extrapolates" \
    "$work/autodl-2080ti-x2.all_gather_perf.txt.json" \
    "'still changes there (no plateau in the sweep)' in d['fit']['allgather']['bandwidth_why'] and d['fit']['allgather']['plateau_points'] == 1"
pycheck "gcp-a3mega 16 ranks: below its plateau, the times not one alpha-beta line" \
    "$work/gcp-a3mega-h100-2nodes.all_reduce_perf.txt.json" \
    "d['fit']['allreduce']['bandwidth_vs_plateau'] < 0.9 and 'do not follow one alpha-beta line' in d['fit']['allreduce']['bandwidth_why']"
pycheck "2080 Ti all-reduce: within 10 %, nothing to say" \
    "$work/autodl-2080ti-x2.all_reduce_perf.txt.json" \
    "abs(d['fit']['allreduce']['bandwidth_vs_plateau'] - 1) <= 0.10 and 'bandwidth_why' not in d['fit']['allreduce']"

# nccl-tests' alltoall layout of 2020-2022 (a blank op column): read like
# the current one, to the same points.
"$collprof" bench --import "$data/autodl-2080ti-x2-2021layout.alltoall_perf.txt" \
    --json "$work/old-a2a.json" >/dev/null 2>"$work/old-a2a.err"
ok $? "the 2020-2022 alltoall layout is imported"
pycheck "old alltoall layout: every result line became two points of an alltoall" \
    "$work/old-a2a.json" \
    "list(d['fit']) == ['alltoall'] and len(d['points']) == 56 and not open('$work/old-a2a.err').read()"

# The 2021 alltoall layout whose header names redop (no root, the old
# error columns) while every row leaves that field out: each row has the
# header's field count without redop, read for a collective that does not
# reduce, to the same points; given as an all-reduce, every row is refused.
f=autodl-2080ti-x2-2021noroot.alltoall_perf.txt
"$collprof" bench --import "$data/$f" --json "$work/noredop.json" \
    >/dev/null 2>"$work/noredop.err"
ok $? "$f: rows one field short of a header naming redop are imported"
sed 's/^/#   /' "$work/noredop.err"
pycheck "$f: every result line became two points of an alltoall" \
    "$work/noredop.json" \
    "list(d['fit']) == ['alltoall'] and len(d['points']) == 56 and not open('$work/noredop.err').read()"
pycheck "$f: the same fit as the current layout's" "$work/noredop.json" \
    "d['fit'] == __import__('json').load(open('$work/old-a2a.json'))['fit']"
"$collprof" bench --import "$data/$f" --op allreduce --json "$work/noredop-ar.json" \
    >/dev/null 2>"$work/noredop-ar.err"
ok $([ $? -ne 0 ]; echo $?) "$f as an all-reduce: refused (a reducing collective has its redop field)"
sed 's/^/#   /' "$work/noredop-ar.err"

# The rank count from busbw/algbw needs no rank lines; --nodes gives the link.
"$collprof" bench --import "$data/aws-p5-h100.all_reduce_perf.txt" --nodes 1 \
    --write-profile "$work/aws.prof" >/dev/null 2>&1
ok $? "aws-p5: --nodes 1 makes it intra-node and writes a profile"
check "aws-p5: the profile has an intra line" grep -q '^intra alpha=[0-9.]*us bandwidth=[0-9.]*GB/s$' "$work/aws.prof"
check "gcp-a3mega: the profile has an inter line" grep -q '^inter alpha=' "$work/gcp-a3mega-h100-2nodes.all_reduce_perf.txt.prof"

# Several files at once: one fit per collective.
"$collprof" bench --import "$data"/autodl-2080ti-x2.*.txt --json "$work/all.json" >/dev/null 2>&1
ok $? "the five 2080 Ti outputs imported together"
pycheck "five collectives fitted" "$work/all.json" \
    "sorted(d['fit']) == ['allgather', 'allreduce', 'alltoall', 'broadcast', 'reduce']"

# The damaged copy: every damaged line reported with its number, none read.
f=damaged.all_reduce_perf.txt
"$collprof" bench --import "$data/$f" --json "$work/dmg.json" >"$work/dmg.out" 2>"$work/dmg.err"
ok $? "$f: imported"
lines=$(sed -n "s/^collprof bench: .*$f:\([0-9]*\): .*/\1/p" "$work/dmg.err" | tr '\n' ' ')
ok $([ "$lines" = "23 25 27 28 35 39 49 " ]; echo $?) "$f: the damaged lines reported: $lines"
sed 's/^/#   /' "$work/dmg.err"
check "$f: the interleaved run is named" grep -q ':23: size 8 does not continue.*interleaved' "$work/dmg.err"
check "$f: the NCCL INFO inside a line is named" grep -q ":27: '-1\[1,0\]<stdout>:h100-worker-1:' is not a root rank" "$work/dmg.err"
check "$f: the rest of the split line is named" grep -q ':28: 8 numbers without size and count' "$work/dmg.err"
check "$f: the cut line is named" grep -q ':35: truncated' "$work/dmg.err"
check "$f: the merged line is named" grep -q ":39: '\[1,1\]<stdout>:' among the results" "$work/dmg.err"
check "$f: the unterminated last line is named" grep -q ':49: the file ends inside this result line' "$work/dmg.err"
pycheck "$f: 28 result lines read (32 printed, 3 damaged, the last cut)" "$work/dmg.json" \
    "len([p for p in d['points'] if not p['in_place']]) == 28"
pycheck "$f: nothing of the interleaved run was read" "$work/dmg.json" \
    "[p['time_s'] for p in d['points'] if p['size_bytes'] in (8, 16) and not p['in_place']] == [12.90e-6, 12.88e-6]"
pycheck "$f: the launchers' prefixes ([0], srun's 0:) are read" "$work/dmg.json" \
    "sorted(p['size_bytes'] for p in d['points'] if p['size_bytes'] in (128, 256)) == [128, 128, 256, 256]"
pycheck "$f: no point of a damaged size" "$work/dmg.json" \
    "not [p for p in d['points'] if p['size_bytes'] in (8192, 1048576, 16777216, 17179869184)]"
pycheck "$f: same floor and plateau within 1% of the undamaged file's" "$work/dmg.json" \
    "abs(d['fit']['allreduce']['latency_floor_s'] / $(py "$work/aws-p5-h100.all_reduce_perf.txt.json" "d['fit']['allreduce']['latency_floor_s']") - 1) < 1e-9 and abs(d['fit']['allreduce']['busbw_Bps'] / $(py "$work/aws-p5-h100.all_reduce_perf.txt.json" "d['fit']['allreduce']['busbw_Bps']") - 1) < 0.01"
pycheck "$f: the skipped lines are in the JSON" "$work/dmg.json" \
    "[s['line'] for s in d['skipped_lines']] == [23, 25, 27, 28, 35, 39, 49]"

# Only the result lines, no name: the columns tell all-reduce (sum, root -1,
# size = count x 4); gather and scatter cannot be told apart.
grep -v '^#' "$data/autodl-2080ti-x2.all_reduce_perf.txt" >"$work/numbers.txt"
"$collprof" bench --import "$work/numbers.txt" --json "$work/numbers.json" >/dev/null 2>&1
ok $? "result lines alone: imported"
pycheck "result lines alone: all-reduce on 2 ranks from the columns" "$work/numbers.json" \
    "list(d['fit']) == ['allreduce'] and d['fit']['allreduce']['ranks'] == 2"
grep -v '^#' "$data/autodl-2080ti-x2.all_gather_perf.txt" | sed 's/float    none      -1/float    none       0/' >"$work/gs.txt"
"$collprof" bench --import "$work/gs.txt" >/dev/null 2>"$work/gs.err"
ok $([ $? -eq 1 ]; echo $?) "gather or scatter: no usable result, exit 1"
check "gather or scatter: reported as undecidable" grep -q 'cannot tell which collective it measures (give --op)' "$work/gs.err"
"$collprof" bench --import "$work/gs.txt" --op gather --json "$work/gs.json" >/dev/null 2>&1
pycheck "gather or scatter: --op gather decides (2 ranks from size/count)" "$work/gs.json" \
    "d['fit']['gather']['ranks'] == 2"
"$collprof" bench --import "$data/autodl-2080ti-x2.all_gather_perf.txt" --op allreduce >/dev/null 2>"$work/contra.err"
ok $([ $? -eq 1 ]; echo $?) "--op contradicting the columns: exit 1"
check "--op contradicting the columns: reported" grep -q 'contradict allreduce (named by --op)' "$work/contra.err"

# nccl-tests' JSON (-J): the same numbers as the text.
python3 - "$data/aws-p5-h100.all_reduce_perf.txt" "$work/nt.json" <<'EOF'
import json, re, sys
res = []
for line in open(sys.argv[1]):
    line = re.sub(r'^\[\d+,\d+\]<stdout>:', '', line).strip()
    t = line.split()
    if len(t) == 13 and t[0].isdigit():
        half = lambda o: {"time": float(t[o]), "alg_bw": float(t[o + 1]),
                          "bus_bw": float(t[o + 2]), "nwrong": float(t[o + 3])}
        res.append({"size": int(t[0]), "count": int(t[1]), "type": t[2],
                    "redop": t[3], "root": "%6s" % t[4],
                    "out_of_place": half(5), "in_place": half(9),
                    "actual_iterations": 20, "experiment_name": ""})
json.dump({"version": 2, "args": ["/opt/nccl-tests/build/all_reduce_perf", "-b", "8"],
           "config": {"nthreads": 1, "ngpus": 1,
                      "devices": [{"rank": r, "hostname": "p5-a"} for r in range(8)]},
           "results": res}, open(sys.argv[2], "w"))
EOF
"$collprof" bench --import "$work/nt.json" --json "$work/nt.out.json" >/dev/null 2>&1
ok $? "nccl-tests JSON imported"
pycheck "nccl-tests JSON: all-reduce, 8 ranks, 1 node, same plateau as the text" "$work/nt.out.json" \
    "d['fit']['allreduce']['ranks'] == 8 and d['fit']['allreduce']['link'] == 'intra' and abs(d['fit']['allreduce']['busbw_Bps'] / $(py "$work/aws-p5-h100.all_reduce_perf.txt.json" "d['fit']['allreduce']['busbw_Bps']") - 1) < 1e-6"

# Four runs printed one after another in one table (nccl-tests -N 4, or
# outputs concatenated without their headers): each its own series, with
# its own rank count; nothing reported as interleaved, nothing lost.
python3 - "$work/runs4.txt" <<'EOF'
import sys
out = ["# nThread 1 nGpus 1 minBytes 1024 maxBytes 1048576 step: 2(factor)",
       "#       size         count      type   redop    root     time   algbw"
       "   busbw #wrong     time   algbw   busbw #wrong"]
for run, ranks in enumerate((4, 4, 8, 8)):
    f = 2.0 * (ranks - 1) / ranks
    size = 1024
    while size <= 1048576:
        t = float("%.2f" % (20.0 + 3 * run + size / 5000.0))  # us
        a = size / t / 1e3
        row = "%12d  %12d     float     sum      -1" % (size, size // 4)
        for _ in range(2):
            row += "  %7.2f  %6.2f  %6.2f       0" % (t, a, a * f)
        out.append(row)
        size *= 2
out.append("# Avg bus bandwidth    : 1.0")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
"$collprof" bench --import "$work/runs4.txt" --op allreduce --json "$work/runs4.json" \
    >"$work/runs4.out" 2>"$work/runs4.err"
ok $? "four consecutive runs in one table: imported"
check "four consecutive runs: nothing reported (no 'interleaved')" test ! -s "$work/runs4.err"
sed 's/^/#   /' "$work/runs4.err"
pycheck "four consecutive runs: four series from lines 3, 14, 25, 36 on 4, 4, 8, 8 ranks" "$work/runs4.json" \
    "[(s['first_line'], s['ranks']) for s in d['series']] == [(3, 4), (14, 4), (25, 8), (36, 8)]"
pycheck "four consecutive runs: every point kept (4 x 11 sizes x 2)" "$work/runs4.json" \
    "len(d['points']) == 88 and sorted(set(p['series'] for p in d['points'])) == [0, 1, 2, 3]"

"$collprof" bench --import "$work/nope.txt" 2>"$work/nope.err"
ok $([ $? -eq 1 ]; echo $?) "a missing file: exit 1"
check "a missing file: named" grep -q "^collprof bench: $work/nope.txt: cannot open" "$work/nope.err"
# the same log given twice: counted once, said so
aws="$data/aws-p5-h100.all_reduce_perf.txt"
"$collprof" bench --import "$aws" "$aws" --json "$work/twice.json" \
    >/dev/null 2>"$work/twice.err"
ok $? "the same log twice: imported"
check "the same log twice: the copy is named and skipped" \
    grep -q "^collprof bench: $aws: the same content as $aws: counted once" "$work/twice.err"
pycheck "the same log twice: as many points as once" "$work/twice.json" \
    "len(d['points']) == $(py "$work/aws-p5-h100.all_reduce_perf.txt.json" "len(d['points'])")"

# --ranks that the table contradicts: an error naming the line and the ranks
"$collprof" bench --import --ranks 2 "$aws" >/dev/null 2>"$work/ranks.err"
ok $([ $? -eq 1 ]; echo $?) "--ranks contradicting the table: exit 1"
check "--ranks contradicting the table: the line and the ranks it implies" \
    grep -q "^collprof bench: $aws:10: --ranks 2 contradicts the table .* implies 8 ranks" "$work/ranks.err"
"$collprof" bench --import --ranks 8 "$aws" >/dev/null 2>&1
ok $? "--ranks agreeing with the table: imported"
# a profile from a weak fit (3 sizes): refused unless --force
{ sed -n 1,10p "$aws"; sed -n 30p "$aws"; sed -n 32p "$aws"; } >"$work/few.all_reduce_perf.txt"
"$collprof" bench --import "$work/few.all_reduce_perf.txt" --nodes 1 -q \
    --write-profile "$work/few.prof" 2>"$work/few.err"
ok $([ $? -eq 1 ] && [ ! -e "$work/few.prof" ]; echo $?) "a weak fit: no profile written, exit 1"
check "a weak fit: says why and how to force it" \
    grep -q "few.prof: not written: the intra-node fit is weak (2 size groups used.*give --force" "$work/few.err"
"$collprof" bench --import "$work/few.all_reduce_perf.txt" --nodes 1 -q \
    --write-profile "$work/few.prof" --force 2>/dev/null
ok $([ $? -eq 0 ] && grep -q '^intra alpha=' "$work/few.prof"; echo $?) "a weak fit with --force: written"
done_testing
