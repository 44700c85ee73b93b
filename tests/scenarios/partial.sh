#!/bin/sh
# partial.sh - logs of only some nodes (a site that writes logs to
# node-local disk): an 8-rank 3d job on 4 nodes analyzed from n1's logs
# alone keeps its communicators' true sizes, names the missing ranks, and
# judges nothing from the incomplete instances (no link class guessed from
# the one node seen, no busbw, no latency advice, no straggler among the
# two ranks left); the whole job's verdict gives each rank's share of the
# run in NCCL (docs/analysis.md, "Inputs" and "The verdict").
. "${top_srcdir:-.}/tests/tap.sh"
t=$(mktemp -d /tmp/cp-partial-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
. "${top_srcdir:-.}/tests/scenarios/lib.sh"

scenario whole 8 4 "" --pattern 3d --steps 3
ok $? "3d on 8 ranks over 4 nodes: recorded and analyzed"
point whole "line=of the run in NCCL (median; worst rank" \
    "line=of rank time waiting for late arrivals" "noline=left no log"

mkdir -p "$t/n1.logs"
cp "$t"/whole.logs/n1.*.cplog "$t/n1.logs/"
"$s_cp" analyze "$t/n1.logs" -o "$t/n1.out" >"$t/n1.analyze" 2>&1
ok $? "n1's logs alone: analyzed"
point n1 "line=2 ranks on 1 node (6 of 8 ranks left no log)" \
    none=latency_bound,straggler,low_busbw "noline=intra-node busbw"
python3 - "$t/n1.out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
if r["summary"]["missing_ranks"] != [2, 3, 4, 5, 6, 7]:
    bad.append("missing %s" % r["summary"]["missing_ranks"])
for c in r["communicators"]:
    want = {"world": 8}.get(c["name"], 2)
    if c["nranks"] != want:
        bad.append("%s has %d ranks" % (c["name"], c["nranks"]))
    if c["missing_members"] and c["link"] != "unknown":
        bad.append("%s judged %s from one node" % (c["name"], c["link"]))
    if not c["missing_members"] and c["link"] != "intra":
        bad.append("%s (complete, on n1) is %s" % (c["name"], c["link"]))
if r["model"]["inter"]["source"] != "none":
    bad.append("an inter-node model from incomplete calls")
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
ok $? "true sizes kept; communicators with missing members of unknown link class; nothing fitted from them"

done_testing
