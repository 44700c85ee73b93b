#!/bin/sh
# fleet_e2e.sh - fleet.html of a fleet the fleet command judged: ten jobs
# of gen_logs analyzed by collprof analyze (n0-n1 planted slow in three of
# the five jobs over n0-n3, n2-n3 in one; m2 the straggler of three of the
# five jobs over m0-m3), ingested by `collprof fleet ingest` for two users,
# exported by `collprof fleet export` and rendered by cp_fleet_html_write
# (fleet_page): the page takes the document as the command writes it, and
# shows the link and the node the fleet judged bad where they belong.
# Skips, saying why, until collprof has its fleet command (branch fleet).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/reports/lib.sh"
fleet_page=$b/tests/reports/fleet_page
need "$collprof" "$gen_logs" "$fleet_page"
"$collprof" fleet --help >/dev/null 2>&1 ||
    skip_all "collprof has no fleet command yet (branch fleet adds it)"

# job NAME ID GEN-ARGS...: logs of gen_logs, analyzed into $work/NAME.json
job() {
    name=$1 id=$2
    shift 2
    "$gen_logs" -o "$work/$name" --ranks 8 --ranks-per-node 2 \
        --job-id "$id" --seed "$id" "$@" >/dev/null &&
        "$collprof" analyze -q "$work/$name" -o "$work/$name.out" \
            >"$work/$name.log" 2>&1 &&
        cp "$work/$name.out/report.json" "$work/$name.json"
}
slow01="--pattern 3d --slow-link 0,1=4"
m="--pattern mixed --node-prefix m"
made=0
job l1 201 $slow01 && made=$((made + 1))
job l2 202 $slow01 && made=$((made + 1))
job l3 203 $slow01 && made=$((made + 1))
job l4 204 --pattern 3d && made=$((made + 1))
job l5 205 --pattern 3d --slow-link 2,3=4 && made=$((made + 1))
job s1 301 $m --straggler 4=2ms && made=$((made + 1))
job s2 302 $m --straggler 4=2ms && made=$((made + 1))
job s3 303 $m --straggler 4=2ms && made=$((made + 1))
job s4 304 $m && made=$((made + 1))
job s5 305 $m && made=$((made + 1))
check "ten jobs recorded and analyzed ($made)" test "$made" -eq 10
n=0
for r in l1 l2 l3 l4 l5 s1 s2 s3 s4 s5; do
    n=$((n + 1))
    user=alice
    [ $((n % 2)) -eq 0 ] && user=bob
    "$collprof" fleet ingest -q --db "$work/fleet.db" --user "$user" \
        "$work/$r.json" >>"$work/ingest.log" 2>&1 || break
done
check "collprof fleet ingest took the ten reports" test "$n" -eq 10
"$collprof" fleet export --db "$work/fleet.db" -o "$work/fleet.json" \
    >"$work/export.log" 2>&1
ok $? "collprof fleet export wrote fleet.json"
"$fleet_page" "$work/fleet.json" "$work/fleet.html" 2>"$work/page.log"
ok $? "fleet.html rendered from it"
[ -s "$work/page.log" ] && sed 's/^/# /' "$work/page.log"
page=$work/fleet.html
check "the link n0-n1 is bad in the matrix" \
    grep -q 'class="c-bad" fill="#D55E00"[^>]*><title>n0 – n1: bad link' "$page"
check "n2-n3, slow once, is not bad" \
    sh -c '! grep -q "<title>n2 – n3: bad link" "$1"' sh "$page"
check "m2 is bad on the diagonal" \
    grep -q 'class="c-bad" fill="#D55E00"[^>]*><title>m2 (the node): bad' "$page"
check "the first plot over time is n0-n1's" \
    grep -q '<a href="#pair-1">n0 &ndash; n1</a>' "$page"
check "the worst links table names the jobs behind n0-n1" \
    grep -q '<span class="mono">20[123].0</span> (' "$page"
done_testing
