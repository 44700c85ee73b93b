#!/bin/sh
# scale.sh - collprof analyze with more rank logs than it may hold open:
# under a limit of 48 open files a 256-rank job (mixed pattern: world and
# node communicators, grouped sends and receives, planted clock offsets)
# is read with parked scans (a descriptor only while a buffer is filled)
# and gives the same report.json, byte for byte, as with a descriptor per
# file; so does the 3d pattern (data-parallel rings across nodes).  Under a
# limit of 200 the analysis keeps the descriptors of the first 136 logs
# (the limit less 64) for all its passes and parks the other 120: the same
# report again, no log refused for want of a descriptor.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
gen=$b/tests/tools/gen_logs
need "$collprof" "$gen"

run() { # JOB GEN-ARGS...
    job=$1; shift
    "$gen" -o "$work/$job" "$@" >/dev/null
    ok $? "gen_logs $job: $*"
    "$collprof" analyze -q "$work/$job" -o "$work/$job.open" 2>"$work/$job.err1"
    ok $? "$job: analyze with a descriptor per file"
    (ulimit -n 48 && exec "$collprof" analyze -q "$work/$job" \
        -o "$work/$job.parked") 2>"$work/$job.err2"
    ok $? "$job: analyze under ulimit -n 48"
    check "$job: the same report.json both ways" \
        cmp "$work/$job.open/report.json" "$work/$job.parked/report.json"
    (ulimit -n 200 && exec "$collprof" analyze -q "$work/$job" \
        -o "$work/$job.some") 2>"$work/$job.err3"
    ok $? "$job: analyze under ulimit -n 200 (some descriptors kept)"
    check "$job: the same report.json with some descriptors kept" \
        cmp "$work/$job.open/report.json" "$work/$job.some/report.json"
    check "$job: every rank's log was read (no input skipped, $ranks ranks)" \
        python3 -c "import json, sys; d = json.load(open(sys.argv[1])); \
f = d['inputs']['files']; \
sys.exit(not (d['summary']['skipped_inputs'] == 0 and len(f) == $ranks and \
all(x['status'] == 'ok' and x['calls'] > 0 for x in f)))" \
        "$work/$job.parked/report.json"
}
ranks=256
run mixed --pattern mixed --ranks 256 --ranks-per-node 8 --steps 2 \
    --clock-offset 1=2ms --clock-offset 5=-1ms
run 3d --pattern 3d --ranks 256 --ranks-per-node 8 --dp-size 4 --steps 2
done_testing
