#!/bin/sh
# nccl_profiler_links.sh - collprof analyze on the NCCL profiler plugin's
# logs: a ring over 4 nodes (ddp, one rank per node) with one link at half
# speed is named slow_link from the job's own proxy steps (no probe), with
# the plugin alone (from its default link records, kind 11, and from
# every step's records, kinds 7 and 8) and with shim and plugin together
# (every call counted once); a healthy run gets no such finding; the algorithm mix is reported.
# moe (8 ranks on 4 nodes) with n1-n3 at 1/2, which only its all-to-all
# crosses in 16 KiB steps (one per peer): the steps are judged against the
# other links' steps of that size, and the link is named; healthy, none.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
plugin=$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so
need "$collprof" "$simrun" "$train_sim" "$shim" "$plugin"
command -v python3 >/dev/null || skip_all "python3 needed"

cat >"$work/slow.topo" <<'TOPO'
nodes 4
inter latency=20us bandwidth=400MB/s
link n2 n3 bandwidth=200MB/s latency=20us
TOPO
cat >"$work/healthy.topo" <<'TOPO'
nodes 4
inter latency=20us bandwidth=400MB/s
TOPO

cat >"$work/moe-slow.topo" <<'TOPO'
nodes 4
inter latency=20us bandwidth=25MB/s
link n1 n3 bandwidth=12.5MB/s
TOPO
cat >"$work/moe-healthy.topo" <<'TOPO'
nodes 4
inter latency=20us bandwidth=25MB/s
TOPO

# job NAME TOPO PRELOAD [PATTERN RANKS]: ddp on 4 ranks over 4 nodes (or
# PATTERN on RANKS), analyzed into NAME/rep; $steps: COLLPROF_PLUGIN_STEPS
steps=
job() {
    d=$work/$1
    mkdir -p "$d"
    env COLLPROF_DIR="$d/logs" NCCL_PROFILER_PLUGIN="$plugin" LD_PRELOAD="$3" \
        COLLPROF_PLUGIN_STEPS="$steps" \
        "$simrun" -n "${5:-4}" --nodes 4 --topo "$work/$2.topo" --timeout 120 -- \
        "$train_sim" --pattern "${4:-ddp}" --steps 5 --quiet >"$d/out" 2>&1 &&
        "$collprof" analyze "$d/logs" -o "$d/rep" >"$d/verdict" 2>&1
}

# query NAME PYTHON-EXPR: print the expression over the report (r)
query() {
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" \
        "$work/$1/rep/report.json"
}
slow_links() {
    query "$1" "' '.join('-'.join(sorted(f['nodes'])) + ':' + f['evidence'].get('method', '?') for f in r['findings'] if f['kind'] == 'slow_link')"
}

job slow slow ""
ok $? "plugin only, n2-n3 at half speed: the job and the analysis run"
got=$(slow_links slow)
ok $([ "$got" = "n2-n3:proxy_steps" ]; echo $?) "  slow_link names exactly n2-n3, from proxy steps ($got)"
# no candidates finding stands beside the named link (where the ring's
# calls list candidates, the link resolves them: tests/slurm/spank.sh)
got=$(query slow "[f['kind'] for f in r['findings'] if f['kind'] == 'slow_link_candidates']")
ok $([ "$got" = "[]" ]; echo $?) "  no slow_link_candidates beside it ($got)"
got=$(query slow "[l['from'] + '>' + l['to'] for l in r['nccl_profiler']['links'] if l['slow']]")
ok $([ "$got" = "['n2>n3']" ]; echo $?) "  the slow direction is n2 to n3, the ring's ($got)"
got=$(query slow "sorted(set((a['op'], a['algorithm'], a['protocol']) for a in r['nccl_profiler']['algorithms']))")
ok $([ "$got" = "[('allreduce', 'Ring', 'Simple'), ('broadcast', 'Ring', 'Simple'), ('reduce', 'Ring', 'Simple')]" ]; echo $?) \
    "  algorithm/protocol mix per collective ($got)"
got=$(query slow "sum(a['calls'] for a in r['nccl_profiler']['algorithms'] if a['op'] == 'allreduce' and a['size_class_bytes'] == 1048576)")
ok $([ "$got" = "60" ]; echo $?) "  60 all-reduces of 1 MiB (3 per step x 5 steps x 4 ranks) ($got)"
check "  the verdict names the link" grep -q "slow_link n2-n3" "$work/slow/verdict"
# by default the plugin writes a link record per call and peer (kind 11):
# 4 x 143 calls less the 3 that send nothing (the last rank of each of 2
# broadcasts, the root of the reduce)
got=$(query slow "(r['nccl_profiler']['link_records'], r['nccl_profiler']['proxy_ops'])")
ok $([ "$got" = "(569, 569)" ]; echo $?) "  judged from link records, one proxy operation each ((records, operations) $got)"

steps=all job slowall slow ""
ok $? "plugin only, every step (COLLPROF_PLUGIN_STEPS=all): the job and the analysis run"
got=$(slow_links slowall)
ok $([ "$got" = "n2-n3:proxy_steps" ]; echo $?) "  slow_link names exactly n2-n3 from the proxy operations ($got)"
got=$(query slowall "(r['nccl_profiler']['link_records'], r['nccl_profiler']['proxy_ops'])")
ok $([ "$got" = "(0, 1138)" ]; echo $?) "  no link record; every send and receive read ($got)"
steps=

job both slow "$shim"
ok $? "shim and plugin together: the job and the analysis run"
got=$(slow_links both)
ok $([ "$got" = "n2-n3:proxy_steps" ]; echo $?) "  slow_link names exactly n2-n3 ($got)"
got=$(query both "r['summary']['calls']")
ok $([ "$got" = "572" ]; echo $?) "  every call once: 4 x 143 calls ($got)"
got=$(query both "sorted((f.get('source', 'shim'), f.get('evidence_only')) for f in r['inputs']['files'])")
ok $([ "$got" = "[('nccl-profiler', True), ('nccl-profiler', True), ('nccl-profiler', True), ('nccl-profiler', True), ('shim', None), ('shim', None), ('shim', None), ('shim', None)]" ]; echo $?) \
    "  the plugin logs are evidence, the shim's the calls"

job healthy healthy ""
ok $? "plugin only, healthy: the job and the analysis run"
got=$(slow_links healthy)
ok $([ -z "$got" ]; echo $?) "  no slow_link ($got)"
got=$(query healthy "sum(l['slow'] for l in r['nccl_profiler']['links'])")
ok $([ "$got" = "0" ]; echo $?) "  no link judged slow ($got)"
got=$(query healthy "len(r['nccl_profiler']['links'])")
ok $([ "$got" = "4" ]; echo $?) "  4 directed links of the ring measured ($got)"

job moe-slow moe-slow "" moe 8
ok $? "moe, n1-n3 at 1/2 (all-to-all only): the job and the analysis run"
got=$(slow_links moe-slow)
ok $([ "$got" = "n1-n3:proxy_steps" ]; echo $?) "  slow_link names exactly n1-n3, from proxy steps ($got)"
got=$(query moe-slow "sorted((l['from'], l['to']) for l in r['nccl_profiler']['links'] if l['slow'])")
ok $([ "$got" = "[('n1', 'n3'), ('n3', 'n1')]" ]; echo $?) "  both directions of n1-n3 slow, no other ($got)"
got=$(query moe-slow "sorted(set((int(l['step_bytes']), l['links_judged']) for l in r['nccl_profiler']['links']))")
ok $([ "$got" = "[(16384, 12)]" ]; echo $?) "  every link judged on its 16 KiB steps, among the 12 directed links ($got)"
job moe-healthy moe-healthy "" moe 8
ok $? "moe, healthy: the job and the analysis run"
got=$(slow_links moe-healthy)
ok $([ -z "$got" ]; echo $?) "  no slow_link ($got)"
got=$(query moe-healthy "min(l['step_bandwidth_Bps'] / l['median_link_Bps'] for l in r['nccl_profiler']['links'])")
ok $(python3 -c "import sys; sys.exit(0 if float('$got') > 0.8 else 1)"; echo $?) "  every link within 20 % of its class's median ($got)"
done_testing
