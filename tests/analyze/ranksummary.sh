#!/bin/sh
# ranksummary.sh - report.json of a job over 256 processes: each per-rank
# figure as a distribution plus its worst ranks and nodes (rank_summary),
# ranks[] and topology.ranks[] only for the ranks it names, inputs.files[]
# only for the files that need a look (docs/report-schema.md).  The figures
# are checked against the full tables of the same logs (--all-ranks); a
# job of 256 processes keeps its full tables and gets no rank_summary.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/analyze/lib.sh"
analyze_setup ranksummary

# 320 ranks on 40 nodes; rank 203 is 2 ms late at every call, rank 77 has
# calls that failed; one log is cut short (not closed) and one damaged
"$gen" -o "$t/big" --pattern ddp-small --ranks 320 --ranks-per-node 8 \
    --steps 3 --straggler 203=2ms --failed 5 --seed 5 --format 3 >/dev/null
ok $? "gen_logs: 320 ranks on 40 nodes"
printf '\167' | dd of="$t/big/n12.10100.cplog" bs=1 seek=$((4096 + 64 * 20)) \
    conv=notrunc 2>/dev/null
"$cp" analyze -q "$t/big" -o "$t/summary" 2>"$t/summary.err"
ok $? "analyzed (default tables)"
"$cp" analyze -q --all-ranks "$t/big" -o "$t/full" 2>"$t/full.err"
ok $? "analyzed with --all-ranks"

python3 - "$t/summary/report.json" "$t/full/report.json" <<'PY'
import json, math, sys
s, f = (json.load(open(p)) for p in sys.argv[1:3])
W, MAX = 16, 256
n = f["job"]["processes"]
assert n == 320 and len(f["ranks"]) == 320, (n, len(f["ranks"]))
assert "rank_summary" not in f, "--all-ranks: no summary"
rs = s["rank_summary"]
assert (rs["ranks"], rs["nodes"], rs["table_max"], rs["worst"]) == \
    (320, 40, MAX, W), rs
keys = list(s.keys())
assert keys.index("rank_summary") == keys.index("ranks") + 1, keys
# everything but the per-rank tables is the same
for k in f:
    if k not in ("ranks", "topology", "inputs"):
        assert s[k] == f[k], k
for k in f["topology"]:
    if k != "ranks":
        assert s["topology"][k] == f["topology"][k], k
assert s["inputs"]["problems"] == f["inputs"]["problems"]

full = {r["rank"]: r for r in f["ranks"]}
topo = {r["rank"]: r for r in f["topology"]["ranks"]}
value = {"calls": lambda r: full[r]["calls"],
         "failed": lambda r: full[r]["failed"],
         "time_s": lambda r: full[r]["time_s"],
         "last_arrivals": lambda r: full[r]["last_arrivals"],
         "late_s": lambda r: full[r]["late_s"],
         "in_call_delay_s": lambda r: topo[r]["in_call_delay_s"]}
assert list(rs["figures"]) == list(value), list(rs["figures"])
named = set()
for key, get in value.items():
    fig = rs["figures"][key]
    items = sorted((get(r), r) for r in full if get(r) is not None)
    v = [x for x, _ in items]
    m = len(v)
    assert fig["ranks"] == m, (key, fig["ranks"], m)
    q = lambda p: v[int(math.floor(p * (m - 1) + 0.5))]
    near = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b))
    assert near(fig["min"], v[0]) and near(fig["max"], v[-1]), key
    assert near(fig["mean"], sum(v) / m), (key, fig["mean"], sum(v) / m)
    for p in (10, 25, 50, 75, 90, 99):
        assert near(fig["p%d" % p], q(p / 100)), (key, p, fig["p%d" % p])
    h = fig["histogram"]
    assert sum(h["counts"]) == m, key
    assert len(h["counts"]) == (32 if v[-1] > v[0] else 1), key
    med = q(0.5)
    hi = [r for x, r in sorted(items, key=lambda t: (-t[0], t[1])) if x > med][:W]
    lo = [r for x, r in items if x < med][:W]
    assert [e["rank"] for e in fig["highest"]] == hi, (key, fig["highest"], hi)
    assert [e["rank"] for e in fig["lowest"]] == lo, (key, fig["lowest"], lo)
    for e in fig["highest"] + fig["lowest"]:
        assert e["node"] == full[e["rank"]]["node"] and near(e["value"], get(e["rank"]))
    named |= set(hi) | set(lo)
    # nodes: the mean of their ranks' values
    per = {}
    for x, r in items:
        per.setdefault(full[r]["node"], []).append(x)
    order = s["job"]["nodes"]
    nitems = sorted((sum(xs) / len(xs), order.index(nd), nd) for nd, xs in per.items())
    nmed = nitems[int(math.floor(0.5 * (len(nitems) - 1) + 0.5))][0]
    nhi = [nd for x, i, nd in sorted(nitems, key=lambda t: (-t[0], t[1])) if x > nmed][:W]
    nlo = [nd for x, i, nd in nitems if x < nmed][:W]
    got_hi = [e["node"] for e in fig["nodes_highest"]]
    got_lo = [e["node"] for e in fig["nodes_lowest"]]
    assert got_hi == nhi, (key, got_hi, nhi)
    assert got_lo == nlo, (key, got_lo, nlo)
for fd in f["findings"]:
    if len(fd["ranks"]) <= W:
        named |= set(fd["ranks"])
named |= {r for r in topo if topo[r]["straggler"]}
listed = [r["rank"] for r in s["ranks"]]
assert listed == sorted(named), (listed, sorted(named))
assert rs["listed"] == len(listed)
assert [r["rank"] for r in s["topology"]["ranks"]] == listed
for r in s["ranks"]:
    assert r == full[r["rank"]], r
for r in s["topology"]["ranks"]:
    assert r == topo[r["rank"]], r
# the straggler tops the lateness, and its node the nodes' lateness
assert rs["figures"]["late_s"]["highest"][0]["rank"] == 203, rs["figures"]["late_s"]["highest"][:2]
assert rs["figures"]["late_s"]["nodes_highest"][0]["node"] == full[203]["node"]
assert 203 in listed
# inputs: only the files that need a look, and the counts of all
files = f["inputs"]["files"]
notable = [x for x in files if x["status"] != "ok" or not x["closed"] or
           x["skipped_records"] or x["truncated_bytes"] or x["records_dropped"]]
assert s["inputs"]["files"] == notable[:MAX], s["inputs"]["files"]
assert len(notable) >= 1 and any("n12.10100" in x["file"] for x in notable)
su = s["inputs"]["summary"]
assert su["files"] == len(files) and su["listed"] == len(notable[:MAX]) \
    and su["notable"] == len(notable), su
for st in ("ok", "damaged", "skipped", "unreadable"):
    assert su["status"][st] == sum(x["status"] == st for x in files), st
assert su["records"] == sum(x["records"] for x in files)
assert su["calls"] == sum(x["calls"] for x in files)
assert su["skipped_records"] == sum(x["skipped_records"] for x in files)
assert su["not_closed"] == sum(not x["closed"] for x in files)
print("# %d of 320 ranks listed; report.json %d bytes against %d in full" %
      (len(listed), len(json.dumps(s)), len(json.dumps(f))))
PY
ok $? "rank_summary: distributions, worst ranks and nodes as the full tables say; the straggler listed first"

# the page of a summarised report: rendered, and it says how many ranks
"$cp" report "$t/summary/report.json" -o "$t/summary.html"
ok $? "collprof report renders the summarised report"
cmp -s "$t/summary.html" "$t/summary/report.html"
ok $? "... the page collprof analyze wrote"
check "page: the lateness of all 320 ranks as a histogram" \
    grep -q '320 ranks: how many were how late in all' "$t/summary.html"
check "page: the straggler named as the latest" \
    grep -q 'The latest: rank 203 (n25)' "$t/summary.html"
check "page: the per-rank figures over all ranks" \
    grep -q 'Per-rank figures over 320 ranks' "$t/summary.html"
check "page: the latest ranks of all 320" \
    grep -q 'The latest ranks (320 ranks)' "$t/summary.html"
check "page: 310 more ranks behind the 10 shown" \
    grep -q 'and 310 more ranks' "$t/summary.html"
check "page: the files by status, of all 320" \
    grep -q '<p>320 log files: 319 ok; 1 damaged; report.json lists the 1 that need a look' "$t/summary.html"

# 300 nodes of one rank each, node n7's clock 5 ms ahead, and 260 foreign
# files: clock_offsets.nodes keeps the reference, the 16 largest offsets
# and the nodes of clock_offset findings (clock_offsets.summary counts the
# rest); inputs.problems the first 256 (inputs.summary.problems all)
"$gen" -o "$t/wide" --pattern ddp-small --ranks 300 --ranks-per-node 1 \
    --steps 2 --clock-offset 7=5ms --seed 9 >/dev/null
ok $? "gen_logs: 300 ranks on 300 nodes"
i=0
while [ $i -lt 260 ]; do
    echo "not a log" >"$t/wide/foreign$i.cplog"
    i=$((i + 1))
done
"$cp" analyze -q "$t/wide" -o "$t/wide-out" 2>/dev/null &&
    "$cp" analyze -q --all-ranks "$t/wide" -o "$t/wide-all" 2>/dev/null
ok $? "analyzed, with and without --all-ranks"
python3 - "$t/wide-out/report.json" "$t/wide-all/report.json" <<'PY'
import json, sys
s, f = (json.load(open(p)) for p in sys.argv[1:3])
co, fo = s["clock_offsets"], f["clock_offsets"]
assert len(fo["nodes"]) == 300 and "summary" not in fo
known = [n for n in fo["nodes"] if n["estimate_s"] is not None]
mags = sorted(((abs(n["estimate_s"]), i) for i, n in enumerate(fo["nodes"])
               if n["estimate_s"] is not None), key=lambda t: (-t[0], t[1]))
keep = {i for _, i in mags[:16]}
keep.add([n["node"] for n in fo["nodes"]].index(fo["reference"]))
for fd in f["findings"]:
    if fd["kind"] == "clock_offset":
        keep |= {[n["node"] for n in fo["nodes"]].index(x) for x in fd["nodes"]}
want = [fo["nodes"][i] for i in sorted(keep)]
assert co["nodes"] == want, ([n["node"] for n in co["nodes"]], [n["node"] for n in want])
assert any(n["node"] == "n7" for n in co["nodes"]), "the node whose clock is off"
su = co["summary"]
assert su["nodes"] == 300 and su["listed"] == len(want), su
assert su["known"] == len(known), su
assert su["significant"] == sum(1 for n in fo["nodes"] if n["significant"]), su
assert abs(su["max_abs_estimate_s"] - mags[0][0]) < 1e-12, su
for k in co:
    if k not in ("nodes", "summary"):
        assert co[k] == fo[k], k
pa, pf = s["inputs"]["problems"], f["inputs"]["problems"]
assert len(pf) >= 260 and pa == pf[:256], (len(pa), len(pf))
assert s["inputs"]["summary"]["problems"] == len(pf)
print("# clock_offsets: %d of 300 nodes listed; problems %d of %d" %
      (len(co["nodes"]), len(pa), len(pf)))
PY
ok $? "300 nodes: clock offsets of the reference, the largest and the findings' nodes; the first 256 problems, all counted"
"$cp" report "$t/wide-out/report.json" -o "$t/wide.html"
ok $? "its page renders"
check "page: every problem counted, the first 256 in report.json" \
    grep -q '560 log files: 300 ok; 260 unreadable; report.json lists the 256 that need a look; 260 problems' "$t/wide.html"

# 256 processes: the full tables, as before
"$gen" -o "$t/small" --pattern ddp-small --ranks 256 --ranks-per-node 8 \
    --steps 2 >/dev/null &&
    "$cp" analyze -q "$t/small" -o "$t/small-out" &&
    "$cp" analyze -q --all-ranks "$t/small" -o "$t/small-all"
ok $? "256 ranks analyzed, with and without --all-ranks"
python3 - "$t/small-out/report.json" "$t/small-all/report.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert "rank_summary" not in a and "summary" not in a["inputs"]
assert len(a["ranks"]) == 256 and len(a["topology"]["ranks"]) == 256
assert len(a["inputs"]["files"]) == 256
assert a == b
PY
ok $? "256 ranks: every rank and file listed, no rank_summary, the same report with --all-ranks"
done_testing
