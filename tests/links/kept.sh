#!/bin/sh
# kept.sh - jobs of the accuracy matrix (tests/scenarios/accuracy.py, two
# busy loops beside each job) whose slow link the calls show only as
# "maybe", kept with their logs and port snapshots (tests/links/kept/*,
# each planted as its topo.txt says) and analyzed again:
#   moe-a2a-half    moe, n1-n3 at 1/2: only the all-to-all crosses it, at
#                   1.44x the reference, under the slow threshold (one
#                   pair slows only its share of an all-to-all): an info
#                   slow_link_candidates that lists n1-n3 and asks for the
#                   probe;
#   tp-thin-half    tp, n1-n4 at 1/2: the data-parallel rings take 2.2x
#                   their bandwidth term at the NICs' rate, but the fit's
#                   latency is half of their baseline (a busy host's): an
#                   info slow_link_candidates per ring;
#   tp-thin-quarter tp, n3-n4 at 1/4: the rings are slow even without
#                   that latency (3.7-3.9x whole): a warning per ring.
#   fsdp-busy-near  fsdp, healthy links (n2's clock off), four busy loops
#                   beside the job: its ring took 1.743x whole against the
#                   reference (the threshold 1.74x): an info with the
#                   ring's four pairs that asks for the probe, not a
#                   warning.
#   tp-under-threshold tp, n1-n4 at 1/2: its two data-parallel rings
#                   took 1.65x and 1.73x whole against the reference, just
#                   under the threshold (1.74x), where healthy rings stay
#                   under 1.22x: an info with the four candidates that
#                   asks for the probe (nothing was said);
#   3d-contradicted 3d, n3-n4 at 1/2: its data-parallel all-reduces over
#                   n3-n4 took 1.89x those over n1-n2 in 6 calls of
#                   256 KiB, but 3 calls of 16 KiB only 1.30x, so the
#                   pair was never a candidate (inconsistent): an info
#                   naming n3-n4 that says the calls disagree and asks
#                   for the probe (nothing was said).
# None of them gets a warning naming anything else (docs/analysis.md,
# "Slow links").  And two quiet jobs of the matrix:
#   tp-near-threshold tp, n2-n3 at 1/2: its two data-parallel rings cross
#                   the same four pairs, at 1.73x and 1.81x whole against
#                   the reference (the threshold 1.74x); the first, as
#                   likely slow as not, bounds none of them, and the
#                   second, within 5 % above the threshold, where a busy
#                   host's rings reach too, is an info with the four
#                   candidates that asks for the probe (it was
#                   "inconsistent", and nothing was said);
#   tp-fabric-busy  tp, the NICs' rate 10x the fabric's: a busy host's
#                   tensor-parallel pairs on n3 and n4 took 4.3x their
#                   usual time, and the same ranks' data-parallel rings
#                   0.42 ms (1.3 % of a call) more: a low_busbw (TCP
#                   fallback) and no straggler warning: so small a share
#                   of the rings' calls corroborates nothing
#                   (docs/analysis.md, "Stragglers").
#   3d-masked-straggler 3d, rank 5 slow inside its calls (3 ms), two busy
#                   loops: its data-parallel ring (5, 7) took 2.6-3.4 ms
#                   more than the others at four sizes, but only 53 us
#                   more at its first (1 KiB), where rank 5 came that
#                   much ahead of rank 7 and waited for it anyway: a
#                   straggler warning naming rank 5 alone (the least
#                   excess of every unit bounded it at 46 us, and only an
#                   info said one of ranks 4 and 5 was late).
#   3d-straggler-reach 3d at 877 MB/s between nodes (host-bound beside two
#                   busy loops), rank 5 (n3) 4.7 ms slow inside its calls,
#                   n2-n3 planted at 1/3.4 and crossed by nothing: the
#                   other stage's all-reduces over n1-n2 5.1x their peers'
#                   but at most 1.2 ms over, within the straggler's reach
#                   through the pipeline: a straggler warning naming rank
#                   5 and an info slow_link on n1-n2 that names the
#                   straggler and asks for the probe (it was a critical
#                   slow_link), the links section's n1-n2 "suspect".
#   3d-tied-straggler 3d, rank 1 slow inside its calls (3 ms), two busy
#                   loops: its tensor-parallel pair (0, 1) 2.86 ms slower
#                   at every size, its data-parallel ring (1, 3) 3.1 and
#                   3.2 ms over its peers at 4 and 16 KiB and 0.1, 0.0 and
#                   -0.4 ms at the three other sizes, rank 0's ring 0.0 ms
#                   at most: a straggler warning naming rank 1 (only an
#                   info said that one of ranks 0 and 1 was late).
#   moe-a2a-unjudged moe, n2-n4 at 1/2, two busy loops: only the all-to-all
#                   crosses it, at 1.07x the reference (healthy ones of the
#                   same set up to 1.07x): an info links_unjudged listing
#                   the two pairs nothing else crosses and asking for the
#                   probe (nothing was said).
#   fsdp-clock-late fsdp, n3's clock 7.6 ms behind, two busy loops: the
#                   median of n3's samples fell outside the bounds the
#                   order of the calls allows ([-8.48, -6.65] ms), and
#                   moved to the nearer edge it corrected n3 by 6.65 ms;
#                   rank 3 (n2) then led the rank before it by 1.33 ms on
#                   average at 47 collectives (0.51 ms in the logs with
#                   the true offset taken off) and was named a straggler
#                   at warning, later an info.  The middle of the bounds
#                   (-7.57 ms) corrects n3 to within 40 us: no straggler.
# And three of issue 29's varied matrix (accuracy.py --vary) and 3d case:
#   pp-floor-ninth  pp, n1-n3 at 1/9 of a 94 MB/s fabric, two busy loops:
#                   the fit (13 MB/s, pulled down by the slow pair's own
#                   calls) floored the healthy pairs' 3.5 ms all-reduces
#                   to 19.5 ms, and the slow pairs' one size of 256 KiB
#                   all-reduce, 22 ms over the others, was called a late
#                   member "whatever its size": two info stragglers and
#                   no link.  Now a slow_link naming n1-n3.
#   moe-fabric-ring moe, the NICs' port rate 10x the 70 MB/s fabric, two
#                   busy loops: a critical low_busbw (TCP fallback) and a
#                   slow_link_candidates warning on the same ring's 8
#                   calls.  Now the low_busbw alone, the ring's
#                   candidates in its evidence and the probe asked.
#   3d-late-fuse    3d, 200 MB/s between nodes, rank 3 20 ms late inside
#                   its calls (no port snapshots): the straggler named,
#                   and a latency_bound warning to fuse 1-16 KiB
#                   all-reduces whose 1.64 s were 1.6 s of that delay.
#                   Now the straggler, and the fusion's saving without
#                   the delay: no latency_bound warning.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
cp="$b/analyzer/collprof"
[ -x "$cp" ] || skip_all "collprof not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
kept="${top_srcdir:-.}/tests/links/kept"
t=$(mktemp -d /tmp/cp-kept-XXXXXX) || exit 1
trap 'rm -rf "$t"' EXIT INT TERM

# check NAME PAIR SEVERITY UNIT-VERDICTS: analyze kept/NAME; every
# slow_link_candidates finding has SEVERITY and lists PAIR (info ones ask
# for the probe, evidence.maybe); the units that cross PAIR with a verdict
# have one of UNIT-VERDICTS (comma-separated); no network, clock or
# straggler finding at warning or above but those
check() {
    "$cp" analyze -q "$kept/$1" -o "$t/$1" >"$t/$1.log" 2>&1 ||
        { sed 's/^/# /' "$t/$1.log"; return 1; }
    python3 - "$t/$1/report.json" "$2" "$3" "$4" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pair, sev = set(sys.argv[2].split("-")), sys.argv[3]
verdicts = set(sys.argv[4].split(","))
bad = []
cands = [f for f in r["findings"] if f["kind"] == "slow_link_candidates"]
if not cands:
    bad.append("no slow_link_candidates finding")
for f in cands:
    ev = f["evidence"]
    print("# %s: %s" % (f["severity"], f["message"][:200]))
    if f["severity"] != sev:
        bad.append("severity %s" % f["severity"])
    if not any(set(c) == pair for c in ev.get("candidates", [])):
        bad.append("candidates %s" % ev.get("candidates"))
    if sev == "info" and not (ev.get("weak") is True and
                              ev.get("maybe") is True and
                              "collprof probe" in f["message"]):
        bad.append("an info without weak, maybe and the probe")
for u in r["topology"]["units"]:
    if u["verdict"] != "none" and any(set(p) == pair for p in u["pairs"]) \
            and u["verdict"] not in verdicts:
        bad.append("unit %s %d: %s" % (u["op"], u["bytes"], u["verdict"]))
for f in r["findings"]:
    if f["kind"] in ("slow_link", "low_busbw", "straggler", "clock_offset",
                     "degraded_port") and f["severity"] != "info":
        bad.append("%s %s" % (f["kind"], f["message"][:100]))
for x in bad:
    print("# " + x)
sys.exit(1 if bad else 0)
PY
}

check moe-a2a-half n1-n3 info maybe
ok $? "moe, n1-n3 at 1/2 under its all-to-all only: info candidates with n1-n3, the probe asked"
check tp-thin-half n1-n4 info maybe
ok $? "tp under load, n1-n4 at 1/2, the rings' fit latency half their baseline: info candidates with n1-n4"
check tp-thin-quarter n3-n4 warning unresolved
ok $? "tp under load, n3-n4 at 1/4: the rings slow without the fit's latency, a warning with n3-n4"
check tp-near-threshold n2-n3 info maybe
ok $? "tp, n2-n3 at 1/2, rings just under and just over the threshold: info candidates with n2-n3, the probe asked"
check tp-under-threshold n1-n4 info maybe
ok $? "tp under load, n1-n4 at 1/2, rings just under the threshold: info candidates with n1-n4, the probe asked"
check 3d-contradicted n3-n4 info maybe,inconsistent
ok $? "3d under load, n3-n4 at 1/2, strong calls slow and weak ones not: info with n3-n4, the probe asked"
grep -q '"contradicted": *true' "$t/3d-contradicted/report.json"
ok $? "  ... its evidence says the calls disagree (contradicted)"
check fsdp-busy-near n1-n2 info maybe
ok $? "fsdp, healthy links, four busy loops: its ring just over the threshold is info candidates, the probe asked"
# analyze_kept NAME: analyze kept/NAME into $t/NAME
analyze_kept() {
    "$cp" analyze -q "$kept/$1" -o "$t/$1" >"$t/$1.log" 2>&1 ||
        { sed 's/^/# /' "$t/$1.log"; return 1; }
}
# expect NAME: the Python assertions on stdin, about $t/NAME/report.json
# as r and its findings as said, (kind, severity, ranks) each; above_info(KINDS)
# lists the findings of those kinds above info
expect() {
    { printf '%s\n' 'import json, sys' 'r = json.load(open(sys.argv[1]))' \
        'said = [(f["kind"], f["severity"], f.get("ranks")) for f in r["findings"]]' \
        'def above_info(*kinds): return [(k, s) for k, s, _ in said if k in kinds and s != "info"]' \
        'print("# %s" % said)'
      cat; } | python3 - "$t/$1/report.json"
}

analyze_kept tp-fabric-busy
ok $? "tp at fabric/10 with a busy host: analyze"
expect tp-fabric-busy <<'PY'
assert any(k == "low_busbw" and s == "critical" for k, s, _ in said), said
assert not any(k == "straggler" and s != "info" for k, s, _ in said), said
assert not any(x["straggler"] for x in r["topology"]["ranks"]), "a rank named"
PY
ok $? "tp at fabric/10, pairs of a busy host slow: low_busbw, no straggler named"
analyze_kept 3d-masked-straggler
ok $? "3d, rank 5 late inside its calls, one unit of its ring masked: analyze"
expect 3d-masked-straggler <<'PY'
named = [x["rank"] for x in r["topology"]["ranks"] if x["straggler"]]
assert named == [5], named
assert ("straggler", "warning", [5]) in said, said
assert not above_info("slow_link", "slow_link_candidates", "low_busbw",
                      "clock_offset"), said
PY
ok $? "3d, one unit of the straggler's ring masked by its early arrival: rank 5 named, a warning"
analyze_kept 3d-straggler-reach
ok $? "3d, rank 5 4.7 ms inside its calls, the other stage's pair 5.1x its peers but within that: analyze"
expect 3d-straggler-reach <<'PY'
assert ("straggler", "warning", [5]) in said, said
sl = [f for f in r["findings"] if f["kind"] == "slow_link"]
assert len(sl) == 1 and sl[0]["severity"] == "info" and \
    sl[0]["nodes"] == ["n1", "n2"], said
ev = sl[0]["evidence"]
print("# " + sl[0]["message"][-260:])
assert ev["weak"] is True and ev["straggler_rank"] == 5, ev
assert abs(ev["straggler_delay_s"] - 4.57e-3) < 0.3e-3, ev
assert all(u["time_s"] - u["peer_time_s"] <= ev["straggler_delay_s"]
           for u in ev["units"]), ev["units"]
assert "rank 5, named a straggler" in sl[0]["message"] and \
    "collprof probe" in sl[0]["message"], sl[0]["message"]
links = {tuple(l["nodes"]): l["verdict"] for l in r["links"]}
assert links[("n1", "n2")] == "suspect", links
assert not above_info("slow_link", "slow_link_candidates", "low_busbw",
                      "clock_offset"), said
PY
ok $? "3d, a slow_link within a named straggler's reach: an info naming rank 5 that asks for the probe, the link suspect, not slow"
analyze_kept 3d-tied-straggler
ok $? "3d, rank 1 late inside its calls, its ring showing it at two sizes of five: analyze"
expect 3d-tied-straggler <<'PY'
named = [x["rank"] for x in r["topology"]["ranks"] if x["straggler"]]
assert named == [1], named
st = [f for f in r["findings"] if f["kind"] == "straggler"]
assert len(st) == 1 and st[0]["severity"] == "warning", said
ev = st[0]["evidence"]
print("# " + st[0]["message"][:200])
assert st[0]["ranks"] == [1] and ev["kind"] == "in_call", ev
assert ev["shown_units"] == 2 and abs(ev["in_call_delay_s"] - 2.86e-3) < 0.2e-3, ev
pair = [c for c in r["communicators"] if c["id"] == ev["tied_comm"]]
assert len(pair) == 1 and sorted(pair[0]["ranks"]) == [0, 1], pair
assert not above_info("slow_link", "slow_link_candidates", "low_busbw",
                      "clock_offset"), said
PY
ok $? "3d, rank 1 named at warning for its tensor-parallel pair's delay, which its ring shows at two sizes"
analyze_kept moe-a2a-unjudged
ok $? "moe, n2-n4 at 1/2 that its all-to-all shows at 1.07x: analyze"
expect moe-a2a-unjudged <<'PY'
u = [f for f in r["findings"] if f["kind"] == "links_unjudged"]
assert len(u) == 1, said
f, ev = u[0], u[0]["evidence"]
print("# " + f["message"][:240])
assert f["severity"] == "info", f["severity"]
assert sorted(map(sorted, ev["pairs"])) == [["n1", "n3"], ["n2", "n4"]], ev
assert ev["pairs_total"] == 2 and ev["weak"] is True and ev["op"] == "alltoall"
assert "collprof probe" in f["message"] and ev["probe"] in f["message"]
assert sorted(f["nodes"]) == ["n1", "n2", "n3", "n4"], f["nodes"]
assert not any(s != "info" for k, s, _ in said), said
PY
ok $? "moe, a pair at 1/2 only its all-to-all crosses, as fast as healthy ones: links_unjudged lists it and asks for the probe"
analyze_kept fsdp-clock-late
ok $? "fsdp, n3's clock 7.6 ms behind, its samples' median outside the bounds: analyze"
expect fsdp-clock-late <<'PY'
n3 = [n for n in r["clock_offsets"]["nodes"] if n["node"] == "n3"][0]
print("# n3: %.3f ms in [%.3f, %.3f]" % (n3["offset_s"] * 1e3,
      n3["low_s"] * 1e3, n3["high_s"] * 1e3))
assert n3["significant"] and n3["low_s"] < n3["offset_s"] < n3["high_s"], n3
assert abs(n3["offset_s"] - -7.604e-3) < 0.2e-3, n3
assert [(k, f) for k, s, f in said if k == "clock_offset"] == \
    [("clock_offset", [])], said
cl = [f for f in r["findings"] if f["kind"] == "clock_offset"][0]
assert cl["nodes"] == ["n3"], cl
assert not any(k == "straggler" for k, _, _ in said), said
assert not any(s != "info" for k, s, _ in said), said
PY
ok $? "fsdp, n3 corrected by the middle of its bounds, within 0.2 ms: no straggler, nothing above info"
analyze_kept pp-floor-ninth
ok $? "pp, n1-n3 at 1/9, its fit pulled down by the slow pair: analyze"
expect pp-floor-ninth <<'PY'
sl = [f for f in r["findings"] if f["kind"] == "slow_link"]
assert [sorted(f["nodes"]) for f in sl] == [["n1", "n3"]], said
assert sl[0]["severity"] != "info", said
assert not any(k == "straggler" for k, _, _ in said), said
assert not above_info("low_busbw", "slow_link_candidates", "clock_offset"), said
units = [u for u in r["topology"]["units"] if u["pairs"] == [["n2", "n4"]]
         and u["op"] == "allreduce"]
assert units and all(not u["floored"] for u in units), units
PY
ok $? "pp, n1-n3 at 1/9: a slow_link naming n1-n3, the healthy pairs not floored by the fit, no straggler"
analyze_kept moe-fabric-ring
ok $? "moe, the fabric at 1/10 of the NICs, two busy loops: analyze"
expect moe-fabric-ring <<'PY'
assert [(k, s) for k, s, _ in said if s != "info"] == \
    [("low_busbw", "critical")], said
f = [f for f in r["findings"] if f["kind"] == "low_busbw"][0]
ring = f["evidence"]["ring"]
print("# " + f["message"][-160:])
assert f["evidence"]["tcp_fallback"] is True, f["evidence"]
assert ring["comm"] == f["evidence"]["comm"] and len(ring["candidates"]) == 4
assert ring["probe"] in f["message"], f["message"]
PY
ok $? "moe, the fabric at 1/10: one critical low_busbw holding its ring's candidates, the probe asked"
analyze_kept 3d-late-fuse
ok $? "3d, rank 3 20 ms late inside its calls: analyze"
expect 3d-late-fuse <<'PY'
assert [(k, s, x) for k, s, x in said if s != "info"] == \
    [("straggler", "critical", [3])], said
lb = [f for f in r["findings"] if f["kind"] == "latency_bound"]
for f in lb:
    ev = f["evidence"]
    print("# discount %.3f s, saving %.3f s" % (ev["straggler_discount_s"],
                                               ev["saving_s"]))
    assert ev["straggler_discount_s"] > 1.5, ev
    assert ev["saving_s"] < 0.5, ev
PY
ok $? "3d, a straggler 20 ms inside its calls: named, and its delay is no latency to fuse away"
done_testing
