#!/bin/sh
# watch.sh - collprof watch on jobs of the CPU NCCL while they run (simrun,
# train_sim): a rank stuck in its own compute is named within the limit and
# a few seconds, once, as still running outside NCCL; a rank stuck inside a
# call is named as inside it; the alert hook gets the line; a healthy run
# gets nothing; the watcher ends with the job; bad options are one line.
. "$top_srcdir/tests/tap.sh"
work_prefix=cp-watch
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) missing"

HANG_AFTER=3
# job NAME PLANT STEPS: a 4-rank ddp run under simrun, its logs in
# $work/NAME/logs, killed by simrun after 20 s; watched from its start
# (alert hook $work/hook) until it ends (at most 60 s).  Sets w_rc, w_s.
job() {
    d=$work/$1
    mkdir -p "$d/logs"
    printf '%s\n' "$2" >"$d/plant.topo"
    "$collprof" record -q -o "$d/logs" -- "$simrun" -n 4 --nodes 2 \
        --timeout 20 --topo "$d/plant.topo" -- "$train_sim" --pattern ddp \
        --steps "$3" --quiet >"$d/rec.out" 2>&1 &
    rec=$!
    t0=$(date +%s)
    timeout 60 "$collprof" watch --interval 250ms --hang-after ${HANG_AFTER}s \
        --slow-after 3s --alert "$work/hook" --exit-with $rec "$d/logs" \
        >"$d/out" 2>"$d/err"
    w_rc=$?
    w_s=$(( $(date +%s) - t0 ))
    wait $rec
    sed 's/^/#   /' "$d/err"
}
cat >"$work/hook" <<EOF
#!/bin/sh
printf '%s|%s|%s|%s\n' "\$COLLPROF_WATCH_CAUSE" "\$COLLPROF_WATCH_MESSAGE" \
    "\$COLLPROF_STEP_DIR" "\${HOME:-nohome}" >>"$work/hook.out"
EOF
chmod 755 "$work/hook"

# ---- a rank stuck in its own compute before collective 10 ------------------
job compute "hang rank=1 after=10" 2
ok $([ $w_rc -eq 0 ]; echo $?) "watch ends with the job, exit 0 ($w_rc after $w_s s)"
log=$work/compute/logs/watch.log
n=$(grep -c 'HUNG' "$log" 2>/dev/null)
ok $([ "${n:-0}" -eq 1 ]; echo $?) "watch.log: the hang, once (${n:-0} lines)"
grep -q 'collprof watch: HUNG in allreduce seq 10 on world: rank 1 (n1) never arrived (last seen leaving allreduce seq 9 on world at [0-9:]*; still running outside NCCL)' "$log"
ok $? "... rank 1 named, never arrived, still running outside NCCL"
grep -q 'collprof watch: HUNG' "$work/compute/err"
ok $? "... and said on stderr"
# within the limit and 10 s of the hang: the line's time against the last
# call's end that the line quotes
python3 - "$log" <<'PY'
import re, sys, datetime
line = open(sys.argv[1]).read().splitlines()[0]
said = datetime.datetime.strptime(line[:20], "%Y-%m-%dT%H:%M:%SZ")
left = re.search(r"at (\d\d):(\d\d):(\d\d)", line).groups()
left = said.replace(hour=int(left[0]), minute=int(left[1]), second=int(left[2]))
lag = (said - left).total_seconds() % 86400
print("#   named %.0f s after rank 1 left its last call" % lag)
sys.exit(0 if lag <= 3 + 10 else 1)
PY
ok $? "... within hang_after + 10 s of the hang"
grep -q "^hang|collprof watch: HUNG in allreduce seq 10 on world: rank 1 (n1).*|$work/compute/logs|nohome\$" "$work/hook.out" 2>/dev/null &&
    [ "$(wc -l <"$work/hook.out")" -eq 1 ]
ok $? "the alert hook ran once: cause, message, step directory, a clean environment"

# ---- a rank stuck inside a call ----------------------------------------------
job inside "hang rank=2 in=allreduce after=10" 2
grep -q 'HUNG in allreduce seq 11 on world: rank 2 (n2) never arrived (inside allreduce seq 10 on world)' \
    "$work/inside/logs/watch.log" 2>/dev/null
ok $? "a rank stuck inside allreduce 10: named as inside it ($(cat "$work/inside/logs/watch.log" 2>/dev/null))"
ok $([ $w_rc -eq 0 ]; echo $?) "... watch exit 0 ($w_rc)"

# ---- a rank inside another communicator's collective ----------------------
# 3d on 8 ranks: rank 1 never returns from an allreduce on its data-parallel
# communicator; the others wait for it elsewhere
d=$work/other
mkdir -p "$d/logs"
printf 'hang rank=1 in=allreduce after=20\n' >"$d/plant.topo"
"$collprof" record -q -o "$d/logs" -- "$simrun" -n 8 --nodes 2 --timeout 20 \
    --topo "$d/plant.topo" -- "$train_sim" --pattern 3d --steps 3 --quiet \
    >"$d/rec.out" 2>&1 &
rec=$!
timeout 60 "$collprof" watch -q --interval 250ms --hang-after ${HANG_AFTER}s \
    --exit-with $rec "$d/logs" >"$d/out" 2>"$d/err"
wait $rec
grep -q 'collprof watch: HUNG in .* rank 1 (n1) never arrived (inside allreduce seq [0-9]* on dp1)$' \
    "$d/logs/watch.log" 2>/dev/null && [ "$(grep -c HUNG "$d/logs/watch.log")" -eq 1 ]
ok $? "a rank inside another communicator's allreduce: named, once ($(cat "$d/logs/watch.log" 2>/dev/null))"

# ---- a run that slows down at 8 s (its only link at a tenth) --------------------
job slow "nodes 2
intra latency=5us bandwidth=500MB/s
inter latency=20us bandwidth=50MB/s
link n1 n2 bandwidth=5MB/s from=8s" 300
log=$work/slow/logs/watch.log
n=$(grep -c 'SLOWDOWN' "$log" 2>/dev/null)
ok $([ "${n:-0}" -eq 1 ] && ! grep -q 'HUNG\|ENDED' "$log"; echo $?) \
    "a slowdown mid-run: one SLOWDOWN line, no hang (${n:-0}; $(cut -c1-200 "$log" 2>/dev/null))"
grep -q 'SLOWDOWN: from [0-9.]* s to [0-9.]* s .* took [0-9.]*x their usual time' "$log" 2>/dev/null
ok $? "... the analysis's slowdown finding: from when, how much slower"
# said within 30 s of its start: the run's start is the logs' first call
python3 - "$log" "$t0" <<'PY'
import datetime, re, sys
line = open(sys.argv[1]).read().splitlines()[0]
said = datetime.datetime.strptime(line[:20], "%Y-%m-%dT%H:%M:%SZ").replace(
    tzinfo=datetime.timezone.utc).timestamp()
start = float(re.search(r"SLOWDOWN: from ([0-9.]+) s", line).group(1))
lag = said - (float(sys.argv[2]) + start)
print("#   said %.0f s after the slowdown began (%.1f s into the run)" % (lag, start))
sys.exit(0 if lag <= 30 else 1)
PY
ok $? "... said within 30 s of the slowdown's start"
grep -q '^slowdown|collprof watch: SLOWDOWN' "$work/hook.out"
ok $? "... and the hook ran with COLLPROF_WATCH_CAUSE=slowdown"

# ---- a healthy run ------------------------------------------------------------
job healthy "" 20
ok $([ $w_rc -eq 0 ] && [ ! -e "$work/healthy/logs/watch.log" ] &&
     [ ! -s "$work/healthy/err" ]; echo $?) \
    "a healthy run: no watch.log, nothing said, exit 0 ($w_rc after $w_s s)"
"$collprof" watch --once "$work/healthy/logs" >"$work/once.out" 2>&1
ok $([ $? -eq 0 ] && [ ! -s "$work/once.out" ]; echo $?) "--once on its finished logs: exit 0, silent"

# ---- metrics for dashboards ----------------------------------------------------
# a 3d run slow enough to be seen mid-way (25 MB/s between its 2 nodes)
m=$work/metrics
mkdir -p "$m/logs"
printf 'nodes 2\nintra latency=5us bandwidth=200MB/s\ninter latency=20us bandwidth=25MB/s\n' >"$m/t.topo"
SLURM_JOB_ID=77 SLURM_STEP_ID=0 "$collprof" record -q -o "$m/logs" -- "$simrun" -n 4 \
    --nodes 2 --topo "$m/t.topo" -- "$train_sim" --pattern 3d --steps 100 \
    --quiet >"$m/rec.out" 2>&1 &
rec=$!
timeout 60 "$collprof" watch --interval 200ms --metrics "$m/job.prom" \
    --hang-after 3s --slow-after 3s --exit-with $rec "$m/logs" \
    >"$m/out" 2>"$m/err" &
wpid=$!
# the log thread publishes at least once a second: a snapshot once the
# calls of every rank and a bandwidth are in it
i=0
while [ $i -lt 150 ]; do
    cp "$m/job.prom" "$m/snap.prom" 2>/dev/null &&
        grep -q '^collprof_busbw_bytes_per_second{' "$m/snap.prom" &&
        [ "$(grep -c '^collprof_calls_total{.*} [1-9]' "$m/snap.prom")" -eq 4 ] && break
    sleep 0.1
    i=$((i + 1))
done
wait $rec
wait $wpid
ok $? "watch --metrics: exit 0 with the job"
check "the metrics file was written while the job ran" test -s "$m/snap.prom"
ok $([ ! -s "$m/err" ] && [ ! -e "$m/logs/watch.log" ]; echo $?) \
    "a healthy 3d run watched at 3 s limits: nothing said ($(head -c 300 "$m/err"))"
ok $([ ! -e "$m/job.prom" ] && [ -z "$(ls -A "$m" | grep '\.tmp$')" ]; echo $?) \
    "... and removed at the end, no temporary left"
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$m/snap.prom" >"$m/promtool.out" 2>&1
    ok $? "promtool check metrics: clean ($(head -c 200 "$m/promtool.out"))"
else
    skip 1 "promtool not installed (Debian: prometheus)"
fi
# Prometheus's own parser: Debian's python3-prometheus-client is for the
# system's python3
pyprom=""
for py in /usr/bin/python3 python3; do
    "$py" -c 'import prometheus_client' 2>/dev/null && { pyprom=$py; break; }
done
if [ -n "$pyprom" ]; then
    "$pyprom" - "$m/snap.prom" "$s/contrib/grafana/collprof-watch.json" \
        >"$m/checks" <<'PY'
import json, re, sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
samples = [s for f in fams.values() for s in f.samples]
names = {s.name for s in samples}
def ok(cond, name):  # one line per point: status, tab, name
    print("%d\t%s" % (0 if cond else 1, name.replace("\n", " ")))
ranks = {s.labels.get("rank") for s in samples if s.name == "collprof_calls_total"}
ok(ranks == {"0", "1", "2", "3"}, "parsed by prometheus_client: calls of ranks %s" % sorted(ranks))
ok(all(s.labels.get("job") == "77" and s.labels.get("step") == "0" for s in samples),
   "every sample labelled job 77, step 0")
keys = [(s.name, tuple(sorted(s.labels.items()))) for s in samples]
ok(len(keys) == len(set(keys)), "no series twice (%d samples)" % len(keys))
bw = [s for s in samples if s.name == "collprof_busbw_bytes_per_second"]
ok(bw and all(s.value > 0 for s in bw) and any(s.labels["communicator"].startswith("tp") for s in bw),
   "busbw per communicator, every one above 0 (%s)" % sorted({s.labels["communicator"] for s in bw}))
ok({s.labels.get("link") for s in bw} == {"intra", "inter"},
   "busbw by link class: intra (a node's own) and inter (%s)" % sorted({(s.labels["communicator"], s.labels.get("link")) for s in bw}))
named = {s.labels.get("kind"): s.value for s in samples if s.name == "collprof_findings_named_total"}
ok(named == {"hang": 0, "slowdown": 0, "straggler": 0},
   "causes named by kind, each 0 (%s)" % named)
dash = json.load(open(sys.argv[2]))
used = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("expr", "query") and isinstance(v, str):
                used.update(re.findall(r"collprof_[a-z_]+", v))
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(dash)
written = set(fams) | names
ok(used and used <= written,
   "the Grafana dashboard's queries name only metrics collprof writes (%s)" % sorted(used - written or used))
sys.exit(0)
PY
    ok $? "prometheus_client read the snapshot"
    tab=$(printf '\t')
    while IFS="$tab" read -r st name; do ok "$st" "$name"; done <"$m/checks"
else
    skip 8 "python3-prometheus-client not installed"
fi

# ---- one watcher per node, the lead judging from the others' states ---------
# rank 3 (n2) stuck in its own compute: the lead (n1) follows only n1's
# logs, and learns from n2's watcher that rank 3's process still runs
nodes_job() { # NAME WITH_N2: the hang, the lead always, n2's watcher if asked
    d=$work/$1
    mkdir -p "$d/logs"
    printf 'hang rank=3 after=10\n' >"$d/plant.topo"
    "$collprof" record -q -o "$d/logs" -- "$simrun" -n 4 --nodes 2 \
        --timeout 20 --topo "$d/plant.topo" -- "$train_sim" --pattern ddp \
        --steps 2 --quiet >"$d/rec.out" 2>&1 &
    rec=$!
    n2=""
    if [ "$2" = yes ]; then
        timeout 60 "$collprof" watch -q --node n2 --interval 250ms \
            --exit-with $rec "$d/logs" >"$d/n2.out" 2>"$d/n2.err" &
        n2=$!
    fi
    # states no watcher wrote: a node that says n2's rank 3 is dead, a cut
    # one, bytes: read and set aside, the hang named all the same
    i=0
    while [ $i -lt 50 ] && ! ls "$d/logs" | grep -q '^n2\..*\.cplog$'; do
        sleep 0.1; i=$((i + 1))
    done
    printf 'collprof-watch-state 1\nnode n3\nlook 1\ntime 1\nlog %s 3 0 1 0 0 0 0\nend\n' \
        "$(ls "$d/logs" 2>/dev/null | grep '^n2\..*\.cplog$' | tail -n 1)" >"$d/logs/watch-n3.state"
    printf 'collprof-watch-state 1\nnode n4\nlook 9\ntime 99999999999999999999\nsig zz\narr 1 2\n' \
        >"$d/logs/watch-n4.state"
    head -c 3000 /dev/urandom >"$d/logs/watch-n5.state"
    timeout 60 "$collprof" watch --node n1 --lead --interval 250ms \
        --hang-after ${HANG_AFTER}s --exit-with $rec "$d/logs" \
        >"$d/out" 2>"$d/err"
    w_rc=$?
    [ -n "$n2" ] && { wait $n2; n2_rc=$?; }
    wait $rec
    sed 's/^/#   /' "$d/err"
}
nodes_job nodes yes
log=$work/nodes/logs/watch.log
grep -q 'collprof watch: HUNG in allreduce seq 10 on world: rank 3 (n2) never arrived (last seen leaving allreduce seq 9 on world at [0-9:]*; still running outside NCCL)' "$log" 2>/dev/null &&
    [ "$(grep -c HUNG "$log")" -eq 1 ]
ok $? "two watchers: the lead names rank 3 (n2), still running outside NCCL, once ($(cat "$log" 2>/dev/null))"
ok $([ $w_rc -eq 0 ] && [ "${n2_rc:-1}" -eq 0 ] && [ ! -s "$work/nodes/n2.err" ]; echo $?) \
    "... both end with the job, exit 0 (lead $w_rc, n2 ${n2_rc:-none})"
st=$work/nodes/logs/watch-n2.state
ok $(head -n 1 "$st" 2>/dev/null | grep -qx 'collprof-watch-state 1' &&
     [ "$(grep -c '^log ' "$st")" -eq 2 ] && tail -n 1 "$st" | grep -qx end &&
     [ "$(wc -c <"$st")" -lt 4096 ] && [ ! -e "$work/nodes/logs/watch-n1.state" ]; echo $?) \
    "n2's state: its 2 logs, whole, under 4 KiB ($(wc -c <"$st" 2>/dev/null) bytes); the lead writes none"
nodes_job alone no
grep -q 'rank 3 (n2) never arrived (.*not known on this host whether it still runs)' \
    "$work/alone/logs/watch.log" 2>/dev/null
ok $? "without n2's watcher the lead cannot tell whether rank 3 runs, and says so ($(cat "$work/alone/logs/watch.log" 2>/dev/null))"

# ---- a straggler: rank 3 computing 20 ms longer before each collective ------
d=$work/strag
mkdir -p "$d/logs"
t0=$(date +%s)
"$collprof" record -q -o "$d/logs" -- "$simrun" -n 4 --nodes 2 \
    --timeout 40 -- "$train_sim" --pattern ddp --late 3:20 \
    --steps 30 --quiet >"$d/rec.out" 2>&1 &
rec=$!
timeout 60 "$collprof" watch --interval 250ms --hang-after ${HANG_AFTER}s \
    --alert "$work/hook" --exit-with $rec "$d/logs" >"$d/out" 2>"$d/err"
w_rc=$?
wait $rec
line=$(grep 'STRAGGLER' "$d/logs/watch.log" 2>/dev/null)
ok $([ $w_rc -eq 0 ] && [ "$(echo "$line" | grep -c .)" -eq 1 ] &&
     echo "$line" | grep -q 'STRAGGLER: Rank 3 (node n2) arrived last' && ! grep -q 'HUNG\|SLOWDOWN' "$d/logs/watch.log"; echo $?) \
    "a straggler: one STRAGGLER line naming rank 3, nothing else ($(echo "$line" | cut -c1-220))"
python3 - "$d/logs/watch.log" "$t0" <<'PY'
import datetime, sys
line = [l for l in open(sys.argv[1]) if "STRAGGLER" in l][0]
said = datetime.datetime.strptime(line[:20], "%Y-%m-%dT%H:%M:%SZ").replace(
    tzinfo=datetime.timezone.utc).timestamp()
lag = said - float(sys.argv[2])
print("#   said %.0f s after the job started" % lag)
sys.exit(0 if lag <= 30 else 1)
PY
ok $? "... said within 30 s of the job's start"
grep -q '^straggler|collprof watch: STRAGGLER' "$work/hook.out"
ok $? "... the hook ran with COLLPROF_WATCH_CAUSE=straggler"
# --top on its logs: one screen
"$collprof" watch --top --once "$d/logs" >"$d/top.out" 2>&1
sed 's/^/#   /' "$d/top.out"
ok $(grep -q '^communicator  *collective  *ranks  *flight  *oldest s  *busbw GB/s  *last to arrive$' "$d/top.out" &&
     grep -q '^world  *allreduce  *4  *0  *0\.0  *[0-9.]*  *rank 3 ([0-9]*/[0-9]*)$' "$d/top.out" &&
     grep -q '^last alert: collprof watch: STRAGGLER' "$d/top.out"; echo $?) \
    "--top: world's allreduce, nothing in flight, rank 3 last to arrive, the alert"

# ---- usage --------------------------------------------------------------------
"$collprof" watch --interval 5 "$work" >/dev/null 2>"$work/u1"
ok $([ $? -eq 2 ] && [ "$(wc -l <"$work/u1")" -eq 1 ] &&
     grep -q -- '--interval' "$work/u1"; echo $?) "--interval 5: exit 2, one line naming it"
"$collprof" watch --lead "$work" >/dev/null 2>"$work/u3"
ok $([ $? -eq 2 ] && grep -q -- '--lead needs --node' "$work/u3"; echo $?) "--lead without --node: exit 2"
"$collprof" watch --on-hang cancel "$work" >/dev/null 2>"$work/u4"
ok $([ $? -eq 2 ] && grep -q -- '--on-hang needs --slurm-step' "$work/u4"; echo $?) "--on-hang without --slurm-step: exit 2"
"$collprof" watch --alert hook "$work" >/dev/null 2>"$work/u2"
ok $([ $? -eq 2 ] && grep -q 'absolute path' "$work/u2"; echo $?) "--alert relative: exit 2, asks for an absolute path"
"$collprof" watch --help | grep -q 'usage: collprof watch'
ok $? "--help"
done_testing
