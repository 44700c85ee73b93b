#!/bin/sh
# partials.sh - distributed analysis on the real Slurm cluster
# (tests/slurm/cluster.sh): at the step's end the plugin runs collprof
# reduce on every node of the step at once, as the job's user; each node
# writes NODE.cppart holding exactly its own ranks' logs (capture=both, the
# default: the shim's and NCCL's profiler plugin's); srun's analysis
# builds report.json from the four partials (no node's logs read raw), and
# the report and the verdict are those of the raw logs.  Root only (skips
# else).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/slurm/lib.sh"

steps=$BASE/steps
cp=$CP_INST/bin/collprof
plugstack
cat >"$BASE/slow-link.topo" <<'TOPO'
nodes 4
intra latency=5us bandwidth=2GB/s
inter latency=20us bandwidth=25MB/s
link n2 n4 bandwidth=6250KB/s
TOPO
chmod 644 "$BASE/slow-link.topo"
install -d -o "$TEST_USER" -m 755 "$BASE/user"
cd "$BASE/user" || exit 1
as_user env $run_env SIMNCCL_TOPO="$BASE/slow-link.topo" \
    srun --collprof -N4 -n8 "$TSIM" --pattern 3d --steps 4 --bucket-mb 2 \
    >step.out 2>step.err
ok $? "as $TEST_USER: srun --collprof -N4 -n8 train_sim --pattern 3d: exit 0"
sed 's/^/#   stderr: /' step.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' step.err | head -n 1)
dir=$steps/collprof-$j
ok $([ -n "$j" ] && [ -s "$dir/report.json" ]; echo $?) "a verdict and report.json ($dir)"

# one partial per node, made there: its header names the node, and it holds
# that node's logs (two ranks, a shim log and a plugin log each) and
# nothing else
for node in n1 n2 n3 n4; do
    p=$dir/$node.cppart
    python3 - "$p" "$node" "$dir" <<'PY'
import glob, os, struct, sys
path, node, d = sys.argv[1:4]
b = open(path, "rb").read()
assert b[:8] == b"CPPARTL\n", "magic"
nlogs, = struct.unpack_from("<I", b, 20)
name = b[64:128].split(b"\0")[0].decode()
logs = sorted(b[128 + 192 * i:128 + 192 * i + 128].split(b"\0")[0].decode()
              for i in range(nlogs))
mine = sorted(os.path.basename(p) for p in glob.glob(d + "/" + node + ".*.cplog"))
print("# %s: node %s, logs %s (the node's: %s)" % (path, name, logs, mine))
plugin = [m for m in mine if m.endswith(".nccl.cplog")]
sys.exit(0 if name == node and logs == mine and len(mine) == 4 and
         len(plugin) == 2 else 1)
PY
    ok $? "$node wrote $node.cppart holding its own 2 ranks' logs (capture=both: the shim's and the plugin's, 4)"
done
owner=$(stat -c %U "$dir"/*.cppart 2>/dev/null | sort -u | tr '\n' ' ')
ok $([ "$owner" = "$TEST_USER " ]; echo $?) "the partials belong to $TEST_USER ($owner)"
check "the partials are 0600 like the reports (mode=0700)" \
    sh -c "[ \"\$(stat -c %a '$dir'/*.cppart | sort -u)\" = 600 ]"

# srun's report was built from the partials: they were there before it,
# and no node's logs were read raw
newer=$(find "$dir" -name '*.cppart' -newer "$dir/report.json" | wc -l)
ok $([ "$newer" -eq 0 ]; echo $?) "every partial was written before report.json ($newer after)"
python3 - "$dir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
raw = [p for p in r["inputs"]["problems"] if "partial" in p["message"]]
print("# problems about partials: %s" % raw)
sys.exit(0 if not raw and r["job"]["processes"] == 8 else 1)
PY
ok $? "the step's report: 8 ranks, every node's logs from its partial"

# the same report from the raw logs alone (the partials moved aside), run
# as the plugin runs it: in the step directory, on "." (report.json then
# names the files ./NAME, as the step's own does)
mkdir -p "$BASE/aside"
# (srun's analysis runs in the step directory: `collprof analyze . -o .`)
mv "$dir"/*.cppart "$BASE/aside/"
(cd "$dir" && "$cp" analyze . -o "$BASE/raw") >raw.out 2>raw.err
mv "$BASE/aside"/*.cppart "$dir/"
check "the raw logs give a byte-identical report.json" \
    cmp "$dir/report.json" "$BASE/raw/report.json"
first_step=$(grep '^collprof: job ' step.err | head -n 1 | sed 's/^collprof: job [0-9.]*: //')
first_raw=$(head -n 1 raw.out | sed 's/^collprof: //')
ok $([ -n "$first_raw" ] && [ "$first_step" = "$first_raw" ]; echo $?) \
    "the same verdict ($first_step)"
grep '^collprof: job ' step.err |
    grep -q -E '(^|[^[:alnum:]])n2[^[:alnum:]](.*[^[:alnum:]])?n4([^[:alnum:]]|$)'
ok $? "the verdict from the partials names the slow link n2-n4"

# the partials alone (the logs moved aside) give it too
mv "$dir"/*.cplog "$BASE/aside/"
(cd "$dir" && "$cp" analyze . -o "$BASE/part") >part.out 2>part.err
mv "$BASE/aside"/*.cplog "$dir/"
check "the partials alone give a byte-identical report.json" \
    cmp "$dir/report.json" "$BASE/part/report.json"

# ---- a long run in short: the capture policy with short windows and
# intervals (srun --collprof=detail=...): the tasks get COLLPROF_DETAIL,
# the step directory stays bounded (most calls folded into aggregates),
# and the report's long_run covers the whole run
as_user env $run_env \
    srun --collprof=detail=first=100:window=50:every=1000:interval=2s -N2 -n4 \
    "$TSIM" --pattern ddp --steps 400 --quiet >pol.out 2>pol.err
ok $? "srun --collprof=detail=first=100:window=50:every=1000:interval=2s -N2 -n4 train_sim: exit 0"
sed 's/^/#   stderr: /' pol.err | head -n 5
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' pol.err | head -n 1)
pdir=$steps/collprof-$j
ok $([ -n "$j" ] && [ -s "$pdir/report.json" ]; echo $?) "a verdict and report.json ($pdir)"
n=$("$cp" dump --summary "$pdir" 2>/dev/null |
    grep -c 'capture policy: first 100, windows of 50 every 1000 instances, aggregates every 2000 ms')
ok $([ "$n" = 8 ]; echo $?) "the 4 shim logs and the plugin's 4 carry the policy ($n)"
python3 - "$pdir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lr = r.get("long_run")
if not lr:
    print("# no long_run"); sys.exit(1)
iv = lr["intervals"]
span = r["summary"]["span_s"] if "span_s" in r["summary"] else None
first, last = iv[0]["start_s"], iv[-1]["end_s"]
folded, kept = lr["folded_calls"], lr["kept_calls"]
print("# %d intervals from %.1f to %.1f s (run span %s s), %d calls folded, %d kept"
      % (len(iv), first, last, span, folded, kept))
# ddp, 400 steps: 28 calls a step on 4 ranks; the windows keep 100 + 50 per
# 1,000 of each rank's 11,203 calls
ok = (folded > 3 * kept and len(iv) >= 5 and
      lr["policy"]["first"] == 100 and lr["policy"]["interval_s"] == 2 and
      first <= 2.0 and (span is None or last >= span - 2.0))
sys.exit(0 if ok else 1)
PY
ok $? "report.json: long_run's intervals cover the run from its first second to its last, most calls folded"
bytes=$(du -sb "$pdir" | cut -f1)
diag "the step directory: $bytes bytes"
# the shim's streams: every call at format 4's 8 bytes would be 44,812
# calls x 8 = 358 KB; the policy keeps 2,600 of them and a few aggregates
# a second (the rings are given back at close)
streams=$(for f in "$pdir"/*.cplog; do
    case $f in *.nccl.cplog) continue ;; esac
    "$cp" dump --all "$f" 2>/dev/null
done | sed -n 's/.* v4 ring .*(\([0-9]*\) bytes, .*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
ok $([ "$streams" -gt 0 ] && [ "$streams" -lt 179000 ]; echo $?) \
    "the shim's streams are under half of every call's ($streams bytes of 358,000)"
done_testing
