#!/bin/sh
# nccl_tags.sh - the application's tags of NCCL calls (plugin API v7, kind 9
# records) in collprof analyze's nccl_profiler.tags and collprof trace's
# slices: a ddp job on the CPU NCCL whose all-reduces carry tag 1 and
# broadcasts tag 3 (the rest untagged, 0), recorded by the shim and the
# plugin; each tag's calls and bytes against the collectives[] rows of its
# collective, its time and latency-bound time against the summary's;
# COLLPROF_TAGS and --tags naming the tags, bad lists refused; a v6 plugin
# (no tags) and the shim alone.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
plugin=$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so
need "$collprof" "$simrun" "$train_sim" "$shim" "$plugin"
command -v python3 >/dev/null || skip_all "python3 needed"

# job NAME PLUGIN [ENV...]: ddp on 4 ranks over 4 nodes, 3 steps, logs in
# $work/NAME/logs
job() {
    d=$work/$1
    plg=$2
    shift 2
    mkdir -p "$d"
    env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plg" LD_PRELOAD="$shim" \
        "$@" "$simrun" -n 4 --nodes 4 --timeout 120 -- "$train_sim" \
        --pattern ddp --steps 3 >"$d/out" 2>&1
}
# q NAME PYTHON-EXPR: the expression over NAME's report (r; t = the tags
# section, rows(op) = the collectives[] rows of op)
q() {
    python3 -c "import json,sys
r=json.load(open(sys.argv[1]))
t=r.get('nccl_profiler', {}).get('tags')
rows=lambda op: [x for x in r['collectives'] if x['op'] == op]
tag=lambda v: [x for x in t['by_tag'] if x['tag'] == v][0]
near=lambda a, b: abs(a - b) <= 1e-9 + 1e-9 * abs(b)
print($2)" "$work/$1/rep/report.json"
}

job tagged "$plugin" SIMNCCL_PROFILER_API=7 \
    SIMNCCL_PROFILER_TAG=AllReduce=1,Broadcast=3
ok $? "a ddp job with tagged all-reduces and broadcasts (plugin API v7) runs"
env COLLPROF_TAGS='1=forward, 3 = optimizer' "$collprof" analyze --no-profile \
    "$work/tagged/logs" -o "$work/tagged/rep" >"$work/tagged/verdict" 2>&1
ok $? "  analyzed with COLLPROF_TAGS"
n=$(q tagged "t['available'], t['why'], t['tag_records'], t['names_given'], [x['tag'] for x in t['by_tag']]")
ok $([ "$n" = "True None 348 2 [0, 1, 3]" ]; echo $?) \
    "  tags available: a tag record for each of the 4 x 87 calls, 2 names, tags 0, 1, 3 ($n)"
for tv in "1 allreduce" "3 broadcast"; do
    set -- $tv
    n=$(q tagged "tag($1)['calls'] == sum(x['calls'] for x in rows('$2')) > 0 and tag($1)['bytes'] == sum(x['bytes'] for x in rows('$2'))")
    ok $([ "$n" = True ]; echo $?) "  tag $1: the calls and bytes of every $2 ($n)"
    n=$(q tagged "near(tag($1)['time_s'], sum(x['time_s'] for x in rows('$2')))")
    ok $([ "$n" = True ]; echo $?) "  tag $1: the time of every $2 ($n)"
done
n=$(q tagged "tag(0)['calls'] == sum(x['calls'] for x in r['collectives'] if x['op'] not in ('allreduce', 'broadcast')) > 0")
ok $([ "$n" = True ]; echo $?) "  tag 0 (untagged): the calls of the other collectives ($n)"
n=$(q tagged "t['without_tag_record']['calls'], sum(x['calls'] for x in t['by_tag']) == r['summary']['instances'] + r['summary']['p2p_pairs']")
ok $([ "$n" = "0 True" ]; echo $?) "  every call has its tag, the tags' calls add up to the instances ($n)"
n=$(q tagged "near(sum(x['time_s'] for x in t['by_tag']), r['summary']['comm_time_s']) and near(sum(x['time_share'] for x in t['by_tag']), 1)")
ok $([ "$n" = True ]; echo $?) "  the tags' time adds up to summary.comm_time_s, their shares to 1 ($n)"
n=$(q tagged "near(sum(x['latency_bound_s'] for x in t['by_tag']), r['summary']['latency_bound_s']) and all(0 <= x['latency_bound_share'] <= 1 for x in t['by_tag'])")
ok $([ "$n" = True ]; echo $?) "  their latency-bound time adds up to summary.latency_bound_s, shares in [0, 1] ($n)"
n=$(q tagged "all(x['busbw_Bps'] > 0 for x in t['by_tag']) and all(x['grouped'] == 0 for x in rows('broadcast')) and abs(tag(3)['busbw_Bps'] - sum(x['busbw_Bps'] * x['time_s'] for x in rows('broadcast')) / sum(x['time_s'] for x in rows('broadcast'))) <= 1e-6 * tag(3)['busbw_Bps']")
ok $([ "$n" = True ]; echo $?) "  a busbw for every tag; tag 3's is its broadcasts' (the rows' busbw over their time) ($n)"
n=$(q tagged "tag(1)['name'], tag(3)['name'], tag(0)['name']")
ok $([ "$n" = "forward optimizer None" ]; echo $?) "  COLLPROF_TAGS names tags 1 and 3, 0 has none ($n)"

# report.html, from report.json only (collprof report renders the same)
grep -q '<h3 id="tags">NCCL time per application tag</h3>' "$work/tagged/rep/report.html" &&
    grep -q '<td>forward</td>' "$work/tagged/rep/report.html" &&
    grep -q '<td>optimizer</td>' "$work/tagged/rep/report.html"
ok $? "  report.html has the per-tag table with the names"
"$collprof" report "$work/tagged/rep/report.json" -o "$work/tagged/again.html" >/dev/null 2>&1 &&
    cmp -s "$work/tagged/rep/report.html" "$work/tagged/again.html"
ok $? "  collprof report of the saved report.json draws the same page"

# --tags instead of COLLPROF_TAGS
env COLLPROF_TAGS='1=forward' "$collprof" analyze --no-profile -q \
    --tags 0=untagged,1=fwd "$work/tagged/logs" -o "$work/tagged/rep" \
    >/dev/null 2>&1
n=$(q tagged "tag(0)['name'], tag(1)['name'], tag(3)['name']")
ok $([ "$n" = "untagged fwd None" ]; echo $?) "  --tags is taken over COLLPROF_TAGS ($n)"

# bad lists: exit 2, the entry named, no report
bad() { # NAME WANT ENV-VALUE
    rm -rf "$work/bad"
    env COLLPROF_TAGS="$3" "$collprof" analyze -q "$work/tagged/logs" \
        -o "$work/bad" >"$work/bad.out" 2>&1
    rc=$?
    check_sh "COLLPROF_TAGS='$3' refused ($1): exit 2, '$2' said, no report" \
        "[ $rc -eq 2 ] && grep -qF \"$2\" '$work/bad.out' && [ ! -e '$work/bad/report.json' ]"
    [ $rc -eq 2 ] || sed 's/^/#   /' "$work/bad.out"
}
bad "no =" "collprof analyze: COLLPROF_TAGS: entry 2 'backward': no '='" "1=forward,backward"
bad "a value that is not a number" "entry 1 'fwd=1': 'fwd' is not a tag value" "fwd=1"
bad "an empty name" "entry 3 '3=': the name is empty" "1=a,2=b,3="
bad "a tag named twice" "entry 2 '1=b': tag 1 is named twice" "1=a,1=b"
bad "an empty entry" "entry 2 is empty" "1=a,,2=b"
bad "a value over 64 bits" "'18446744073709551616' is not a tag value" "18446744073709551616=x"
"$collprof" trace --tags '1=a;2=b' "$work/tagged/logs" -o "$work/bad.json" \
    >"$work/bad.out" 2>&1
rc=$?
check_sh "collprof trace --tags with a bad list: exit 2, the option and entry named" \
    "[ $rc -eq 2 ] && grep -qF \"collprof trace: --tags: entry 1 '1=a;2=b': the name holds\" '$work/bad.out'"

# the trace: each call's tag, its name and the kernel variant
env COLLPROF_TAGS=1=forward,3=optimizer "$collprof" trace -q \
    "$work/tagged/logs" -o "$work/tagged/trace.json" >/dev/null 2>&1
ok $? "collprof trace of the tagged job"
n=$(python3 -c "import json,sys,collections
t=json.load(open(sys.argv[1]))
ev=t['traceEvents'] if isinstance(t, dict) else t
c=collections.Counter((e['args']['op'], e['args'].get('tag'), e['args'].get('tag_name'), e['args'].get('kernel')) for e in ev if e.get('ph') == 'X' and e.get('cat') in ('collective', 'p2p'))
want={'allreduce': (1, 'forward'), 'broadcast': (3, 'optimizer'), 'bcast': (3, 'optimizer')}
print(sum(c.values()), all((tg, nm) == want.get(op, (0, None)) and k == 'simnccl_ring_simple' for (op, tg, nm, k) in c))" \
    "$work/tagged/trace.json")
ok $([ "$n" = "348 True" ]; echo $?) "  every call's slice carries its tag, the tag's name and the kernel ($n)"

# plugin API v6: no tags, the section says why
job v6 "$plugin" SIMNCCL_PROFILER_API=6 SIMNCCL_PROFILER_TAG=AllReduce=1
"$collprof" analyze --no-profile -q "$work/v6/logs" -o "$work/v6/rep" >/dev/null 2>&1
ok $? "a job with the plugin under API v6: analyzed"
n=$(q v6 "t['available'], t['by_tag'], t['without_tag_record'], 'v7' in t['why']")
ok $([ "$n" = "False [] None True" ]; echo $?) "  no tags: the section is empty and says why ($n)"
grep -q 'No per-tag table: no call has a tag record' "$work/v6/rep/report.html"
ok $? "  report.html says why there is no per-tag table"

# the shim alone: no nccl_profiler section, so no tags
job shim none
"$collprof" analyze --no-profile -q "$work/shim/logs" -o "$work/shim/rep" >/dev/null 2>&1
n=$(q shim "'nccl_profiler' in r")
ok $([ "$n" = False ]; echo $?) "the shim alone: no nccl_profiler section, no tags ($n)"

done_testing
