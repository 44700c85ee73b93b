#!/bin/sh
# killrace.sh - rank 1 of a tp job (4 ranks on 2 nodes) SIGKILLed in its
# compute before its allreduce seq 1 on dp1 (tests/integration/hangs.py's
# "killed" case), recorded under load: rank 2 was still inside allreduce
# seq 0 on dp0, which rank 0 had left 1.8 ms before (the last of its
# peer's transfer on its way), when the launcher's SIGTERM ended it, and
# rank 0 had entered seq 1 on dp0.  Rank 2 entered its call 3 ms before
# the job ended: on its way out, not stuck, so not the culprit that rank 0
# waits for; the rank that died first is named.  The logs
# (tests/analyze/killrace/) are the shim's own, the unwritten tail cut off.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/analyze/lib.sh"
analyze_setup killrace
src="${top_srcdir:-.}/tests/analyze/killrace"

"$cp" analyze "$src" -o "$t/out" >"$t/verdict" 2>&1
ok $? "the logs of the killed job analyze"
sed 's/^/# /' "$t/verdict"
head -n 1 "$t/verdict" | grep -q '^collprof: KILLED: rank 1 (n1) died in its own compute'
ok $? "the verdict's first line: rank 1 died in its own compute"
python3 - "$t/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
named = [(f["kind"], f["ranks"]) for f in r["findings"]
         if f["kind"] in ("hang", "killed", "deadlock")]
print("# named: %s" % named)
k = [f for f in r["findings"] if f["kind"] == "killed"]
ok = (named == [("killed", [1])] and
      k[0]["evidence"].get("communicator") == "dp1" and
      k[0]["evidence"].get("seq") == 1)
sys.exit(0 if ok else 1)
PY
ok $? "report.json: rank 1 killed before allreduce seq 1 on dp1, no hang naming rank 2"
python3 - "$t/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
st = {x["rank"]: (x["state"], x["culprit"]) for x in r["hang"]["ranks"]}
print("# states: %s" % st)
sys.exit(0 if st[2][1] is False and st[0] == ("waiting", False) else 1)
PY
ok $? "the hang section shows rank 0 waiting and rank 2 not a culprit"
done_testing
