#!/bin/sh
# lrcoarse.sh - report.json's long-run timeline is bounded: past
# CP_REPORT_LR_INTERVALS (2,048) intervals, neighbours are merged two into
# one in the document after the detectors judged them at the join's width
# (docs/report-schema.md, `long_run`).  A 3-day job of 4 ranks in the
# capture policy's form (gen_logs --duration: 4,320 intervals of 60 s), a
# link slowed 4x from day 2: the report lists at most 2,048 intervals of
# 60 x 2^merged s, holding the same time as every interval listed with
# --all-ranks; the slowdown is the same, and its first_interval and
# last_interval hold its since_s and last slow interval.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/analyze/lib.sh"
analyze_setup lrcoarse

"$gen" -o "$t/j" --ranks 4 --ranks-per-node 1 --pattern ddp-small \
    --rate 20 --duration 3d --seed 3 --slow-link 0,1=4:from=2d \
    >/dev/null 2>"$t/gen.err" &&
    "$cp" analyze -q "$t/j" -o "$t/c" 2>"$t/c.err" &&
    "$cp" analyze -q --all-ranks "$t/j" -o "$t/a" 2>"$t/a.err"
ok $? "a 3-day job, a link slowed from day 2: analyzed, and with --all-ranks"

py() {
    python3 - "$t/c/report.json" "$t/a/report.json" "$@" <<'EOF'
import json, sys
c, a = (json.load(open(p)) for p in sys.argv[1:3])
lc, la = c["long_run"], a["long_run"]
what = sys.argv[3]
def slow(d):
    return [f for f in d["findings"] if f["kind"] == "slowdown" and
            f.get("evidence", {}).get("method") == "long_run"]
if what == "bound":
    ok = (len(lc["intervals"]) <= 2048 and lc["merged"] >= 1 and
          lc["interval_s"] == 60 * 2 ** lc["merged"])
    print("# %d intervals of %g s (merged %d)" % (len(lc["intervals"]),
          lc["interval_s"], lc["merged"]))
elif what == "all":
    ok = len(la["intervals"]) > 2048 and la["merged"] == 0 and la["interval_s"] == 60
    print("# --all-ranks: %d intervals of %g s" % (len(la["intervals"]), la["interval_s"]))
elif what == "sums":
    ok = all(abs(sum(i[k] for i in lc["intervals"]) -
                 sum(i[k] for i in la["intervals"])) <=
             1e-9 * abs(sum(i[k] for i in la["intervals"])) + 1e-9
             for k in ("nccl_s", "own_s"))
elif what == "cover":
    ok = (lc["intervals"][0]["start_s"] <= la["intervals"][0]["start_s"] and
          lc["intervals"][-1]["end_s"] >= la["intervals"][-1]["end_s"])
elif what == "same":
    fc, fa = slow(c), slow(a)
    ok = (len(fc) == 1 and len(fa) == 1 and
          fc[0]["evidence"]["since_s"] == fa[0]["evidence"]["since_s"] and
          [f["kind"] for f in c["findings"]] == [f["kind"] for f in a["findings"]])
elif what == "index":
    e = slow(c)[0]["evidence"]
    fi, la_ = lc["intervals"][e["first_interval"]], lc["intervals"][e["last_interval"]]
    ea = slow(a)[0]["evidence"]
    last = la["intervals"][ea["last_interval"]]["start_s"]
    ok = (fi["start_s"] <= e["since_s"] < fi["end_s"] and
          la_["start_s"] <= last < la_["end_s"])
    print("# since %.0f s in interval %d [%.0f, %.0f)" % (e["since_s"],
          e["first_interval"], fi["start_s"], fi["end_s"]))
sys.exit(0 if ok else 1)
EOF
}
check "at most 2,048 intervals, 60 s x 2^merged wide" py bound
check "... --all-ranks: every interval of 60 s, over 2,048 of them" py all
check "... the same NCCL and own time in all" py sums
check "... the same span of the run" py cover
check "... the same slowdown, since the same time" py same
check "... its first_interval and last_interval hold its since_s and its last slow interval" py index
done_testing
