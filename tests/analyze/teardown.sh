#!/bin/sh
# teardown.sh - a step cancelled (scancel) while rank 1 was stuck in its
# compute, recorded on the real Slurm test cluster under load: the
# launcher's SIGTERM reached rank 0 (inside allreduce seq 20, waiting for
# rank 1) and rank 1 (in its compute) within 2 ms, and ranks 2 and 3 on
# the other node failed seq 20 when rank 1's connection closed, before
# their own SIGTERM came (their logs are closed, with no SIGTERM note).
# The hang is rank 1's: a rank inside the call that saw the teardown's
# SIGTERM did not die of itself, so it is never named killed.  The logs
# (tests/analyze/teardown/) are the shim's own, the unwritten tail of the
# two unclosed ones cut off.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/analyze/lib.sh"
analyze_setup teardown
src="${top_srcdir:-.}/tests/analyze/teardown"

"$cp" analyze "$src" -o "$t/out" >"$t/verdict" 2>&1
ok $? "the logs of the cancelled step analyze"
sed 's/^/# /' "$t/verdict"
head -n 1 "$t/verdict" | grep -q '^collprof: job 2\.0: HUNG in allreduce seq 20 on world: rank 1 (n1) never arrived'
ok $? "the verdict's first line: rank 1 never arrived at allreduce seq 20"
python3 - "$t/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
kinds = {f["kind"]: f.get("ranks") for f in r["findings"]}
print("# findings: %s" % kinds)
sys.exit(0 if kinds.get("hang") == [1] and "killed" not in kinds else 1)
PY
ok $? "report.json: a hang naming rank 1, no killed finding (rank 0 saw SIGTERM)"
python3 - "$t/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["findings"] if x["kind"] == "failed_calls"]
sys.exit(0 if f and f[0].get("ranks") == [2, 3] else 1)
PY
ok $? "the failed calls of ranks 2 and 3 are still reported"
done_testing
