#!/bin/sh
# watch.sh - the live watch on the real Slurm cluster (tests/slurm/cluster.sh):
# with watch=yes, slurmstepd starts `collprof watch --node NODE` on every node
# of a profiled step as the job's user, the first node's with --lead
# (docs/watch.md, "Under Slurm").  The planted hang of hang.sh (rank 1 stops
# calling after its 30th collective) is named in the step directory's
# watch.log and in syslog within hang_after + 10 s of its start, once; with
# on_hang=cancel the lead cancels the step itself, long before its time
# limit, and srun's report names the same hang; with on_hang=requeue it
# requeues the batch job.  A healthy run gets no line,
# and each node's metrics file in metrics_dir while it runs, none after; a
# watcher killed mid-run costs the job nothing (and leaves no metrics
# file); one that fails at once says why in the slurmd log; a link slowed
# mid-run is named as a slowdown within 30 s of its start, a rank late at
# every collective as a straggler, by the lead from the other node's state;
# the watch's lines reach srun's stderr while the step runs; after every
# step no watcher of the user is left.  Root only (skips else); about four
# minutes.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/slurm/lib.sh"

steps=$BASE/steps
hang_after=15
# every step on n1 and n2 (it waits while they complete the one before):
# rank 1 on n1, the lead on n1, the other watcher on n2
cd "$BASE/tmp" || exit 1
syslog_start
uid=$(id -u "$TEST_USER")

printf 'hang rank=1 after=30\n' >"$BASE/hang.topo"
chmod 644 "$BASE/hang.topo"
hung_re='HUNG in allreduce seq 30 on world: rank 1 .*never arrived'
# the hang's lines in FILE (0 when there is no FILE)
hung_lines() { n=$(count_lines "$1" "$hung_re"); echo "${n:-0}"; }

# the test user's collprof watch processes, "PID ARGS" each
watchers() { ps -u "$uid" -o pid=,args= 2>/dev/null | grep '[c]ollprof watch'; }

# no_watcher_left WHAT: none of the user's watchers within 10 s of the end
no_watcher_left() {
    i=0
    while [ $i -lt 100 ] && [ -n "$(watchers)" ]; do
        sleep 0.1; i=$((i + 1))
    done
    left=$(watchers)
    [ -n "$left" ] && echo "$left" | sed 's/^/#   left: /'
    ok $([ -z "$left" ]; echo $?) "$1: no collprof watch of the user is left"
}

# job_started: the test user's running job id once it runs (30 s at most),
# and t0 its start, to the second
job_started() {
    jid="" i=0
    while [ $i -lt 300 ] && [ -z "$jid" ]; do
        jid=$(squeue -h -t R -o %i -u "$TEST_USER" 2>/dev/null | head -n 1)
        [ -z "$jid" ] && sleep 0.1
        i=$((i + 1))
    done
    t0=$(date +%s)
}

# ---- a. a hung step: watch.log and syslog name the hang, once -------------
plugstack watch=yes watch_interval=2 hang_after=$hang_after syslog=yes \
    analyze_timeout=60
as_user env $run_env SIMNCCL_TOPO="$BASE/hang.topo" \
    srun --collprof --time=2 -N2 -n4 -w n1,n2 "$TSIM" --pattern ddp --steps 100000 \
    --quiet >a.out 2>a.err &
srun_pid=$!
job_started
dir=$steps/collprof-$jid.0
ok $([ -n "$jid" ]; echo $?) "a hung step runs (job ${jid:-none})"
i=0 took=""
while [ -n "$jid" ] && [ $i -lt 600 ]; do
    if [ "$(hung_lines "$dir/watch.log")" -gt 0 ]; then
        took=$(( $(date +%s) - t0 )); break
    fi
    sleep 0.1; i=$((i + 1))
done
watchers | sed 's/^/#   watcher: /'
sed 's/^/#   watch.log: /' "$dir/watch.log" 2>/dev/null
ok $([ -n "$took" ] && [ "$took" -le $((hang_after + 10)) ]; echo $?) \
    "watch.log names the hang within hang_after+10 s of the job's start (${took:-never} s)"
sleep 6 # three more looks
n=$(hung_lines "$dir/watch.log")
ok $([ "$n" -eq 1 ]; echo $?) "... said once ($n lines)"
if [ -n "$syslog_pid" ]; then
    check "syslog: the hang" grep -q -E "$hung_re" "$BASE/syslog.txt"
else
    diag "syslog: not checked, /dev/log belongs to a running syslog daemon"
fi
[ -n "$jid" ] && scancel "$jid"
wait $srun_pid
no_watcher_left "the hung step cancelled"
# srun relays the watch's lines to the job's stderr while the step runs
n=$(grep -c "^collprof: job $jid\.0: watch: HUNG in allreduce seq 30 on world: rank 1 (n1) never arrived" a.err)
ok $([ "$n" -eq 1 ]; echo $?) "srun's stderr: the watch's hang line, once ($n)"

# ---- b. on_hang=cancel: the lead watcher cancels the step ------------------
plugstack watch=yes watch_interval=2 hang_after=$hang_after on_hang=cancel \
    analyze_timeout=60
t0=$(date +%s)
as_user env $run_env SIMNCCL_TOPO="$BASE/hang.topo" \
    srun --collprof --time=2 -N2 -n4 -w n1,n2 "$TSIM" --pattern ddp --steps 100000 \
    --quiet >b.out 2>b.err
rc=$?
took=$(( $(date +%s) - t0 ))
sed 's/^/#   stderr: /' b.err
ok $([ $rc -ne 0 ] && [ $took -lt 90 ]; echo $?) \
    "on_hang=cancel: the step ends well before its 2 min limit (rc $rc after ${took} s)"
# scancel of a step SIGKILLs its tasks: the verdict may lead with rank 1
# killed before the collective it never came to (report.json keeps the hang)
first=$(grep '^collprof: job ' b.err | grep -v '^collprof: job [0-9.]*: watch: ' | head -n 1)
echo "$first" | grep -q -E '^collprof: job [0-9]+\.0: (HUNG in allreduce seq 30 on world: rank 1 \(n1\) never arrived|KILLED: rank 1 \(n1\) died before allreduce seq 30 on world)'
ok $? "srun's verdict names rank 1 at allreduce seq 30 on world ($first)"
j=$(echo "$first" | sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p')
dir=$steps/collprof-$j
sed 's/^/#   watch.log: /' "$dir/watch.log" 2>/dev/null
python3 - "$dir/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("# report.json: %s" % e)
    sys.exit(1)
h = [f for f in r["findings"] if f["kind"] == "hang"]
print("# hang findings: %s" % [(f["ranks"], f["evidence"].get("communicator"),
                               f["evidence"].get("seq")) for f in h])
sys.exit(0 if h and h[0]["ranks"] == [1] and h[0]["evidence"]["seq"] == 30
         else 1)
PY
ok $? "report.json: the hang of rank 1 at world seq 30"
grep -q 'collprof watch: on hang: running /[a-z/]*/scancel [0-9]*\.0$' "$dir/watch.log" 2>/dev/null
ok $? "watch.log: the scancel it ran, said before it ran"
n=$(hung_lines "$dir/watch.log")
ok $([ "$n" -eq 1 ]; echo $?) "watch.log has the hang's line ($n)"
no_watcher_left "the step cancelled by its watcher"

# ---- d. a healthy run: no line, metrics while it runs, nothing left -------
metrics=$BASE/metrics
install -d -m 1777 "$metrics"
plugstack watch=yes watch_interval=2 hang_after=$hang_after \
    "metrics_dir=$metrics"
t0=$(date +%s)
as_user env $run_env srun --collprof -N2 -n4 -w n1,n2 "$TSIM" --pattern ddp \
    --steps 600 --quiet >d.out 2>d.err &
srun_pid=$!
job_started
proms="" i=0
while [ -n "$jid" ] && [ $i -lt 200 ]; do
    proms=$(cd "$metrics" && ls collprof-$jid.0-n1.prom collprof-$jid.0-n2.prom 2>/dev/null | tr '\n' ' ')
    [ "$proms" = "collprof-$jid.0-n1.prom collprof-$jid.0-n2.prom " ] && break
    sleep 0.1; i=$((i + 1))
done
ok $([ "$proms" = "collprof-$jid.0-n1.prom collprof-$jid.0-n2.prom " ]; echo $?) \
    "metrics_dir: each node's watcher writes its file while the step runs ($proms)"
# the first looks may come before the ranks' first calls
i=0
while [ $i -lt 300 ] &&
    ! grep -q '^collprof_calls_total{' "$metrics/collprof-$jid.0-n2.prom" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
done
grep '^collprof_calls_total{' "$metrics/collprof-$jid.0-n2.prom" 2>/dev/null | sed 's/^/#   /'
ok $([ $i -lt 300 ]; echo $?) "... with the node's calls"
wait $srun_pid
rc=$?
took=$(( $(date +%s) - t0 ))
sed 's/^/#   stderr: /' d.err
ok $([ $rc -eq 0 ]; echo $?) "a healthy run with watch=yes: rc 0 (${took} s)"
dir=$steps/collprof-$jid.0
sed 's/^/#   watch.log: /' "$dir/watch.log" 2>/dev/null
n=$(cat "$dir/watch.log" 2>/dev/null | wc -l)
looks=$(sed -n 's/^look //p' "$dir/watch-n2.state" 2>/dev/null)
ok $([ "${looks:-0}" -ge 5 ] && [ "$n" -eq 0 ]; echo $?) \
    "... watch.log has no line ($n), the watchers looked all along (n2: ${looks:-no} looks)"
left=$(ls -A "$metrics")
ok $([ -z "$left" ]; echo $?) "... no metrics file left (${left:-none})"
no_watcher_left "the healthy run"

# ---- e. a watcher killed mid-run costs the job nothing ---------------------
as_user env $run_env srun --collprof -N2 -n4 -w n1,n2 "$TSIM" --pattern ddp \
    --steps 400 --quiet >e.out 2>e.err &
srun_pid=$!
victim="" i=0
while [ $i -lt 300 ] && [ -z "$victim" ]; do
    victim=$(watchers | grep -- '--node n2 ' | awk '{print $1}' | head -n 1)
    [ -z "$victim" ] && sleep 0.1
    i=$((i + 1))
done
sleep 3
ok $([ -n "$victim" ] && kill -KILL "$victim"; echo $?) \
    "the watcher of n2 found and killed mid-run (pid ${victim:-none})"
wait $srun_pid
rc=$?
sed 's/^/#   stderr: /' e.err
ok $([ $rc -eq 0 ]; echo $?) "... the job still ends rc 0"
check "... with its report" grep -q 'report\.json' e.err
left=$(ls -A "$metrics")
ok $([ -z "$left" ]; echo $?) "... its metrics file removed all the same (${left:-none left})"
no_watcher_left "the run whose watcher was killed"

# ---- f. a watcher that fails at once: a line in the slurmd log, never the step
cat >"$BASE/badwatch.sh" <<EOF
#!/bin/sh
[ "\$1" = watch ] && exec "$CP_INST/bin/collprof" watch --no-such-option .
exec "$CP_INST/bin/collprof" "\$@"
EOF
chmod 755 "$BASE/badwatch.sh"
plugstack watch=yes "collprof=$BASE/badwatch.sh"
as_user env $run_env srun --collprof -N1 -n2 -w n1 "$TSIM" --pattern ddp \
    --steps 20 --quiet >f.out 2>f.err
rc=$?
ok $([ $rc -eq 0 ]; echo $?) "a watcher that fails at once: the step ends rc 0"
j=$(sed -n 's/^collprof: job \([0-9]*\)\.0: .*/\1/p' f.err | head -n 1)
line=$(grep "\[$j\.0\] collprof: job $j\.0: collprof watch on n1: .*no-such-option" \
    "$BASE/log/slurmd-n1.log" | head -n 1)
ok $([ -n "$j" ] && [ -n "$line" ]; echo $?) "... its stderr in the slurmd log (${line:-none})"

# ---- g. a link slowed mid-run: the lead names the slowdown ----------------
cat >"$BASE/slowdown.topo" <<'EOF2'
nodes 2
intra latency=5us bandwidth=500MB/s
inter latency=20us bandwidth=50MB/s
link n1 n2 bandwidth=5MB/s from=8s
EOF2
chmod 644 "$BASE/slowdown.topo"
plugstack watch=yes watch_interval=1 hang_after=15 slow_after=3 \
    analyze_timeout=60
# the link stays slow: the test ends the step once the slowdown is named
as_user env $run_env SIMNCCL_TOPO="$BASE/slowdown.topo" \
    srun --collprof --time=2 -N2 -n4 -w n1,n2 "$TSIM" --pattern ddp \
    --steps 100000 --quiet >g.out 2>g.err &
srun_pid=$!
job_started
dir=$steps/collprof-$jid.0
i=0
while [ -n "$jid" ] && [ $i -lt 600 ] &&
      ! grep -q SLOWDOWN "$dir/watch.log" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
done
sleep 3 # three more looks: said once
[ -n "$jid" ] && scancel "$jid"
wait $srun_pid
j=$jid.0
sed 's/^/#   watch.log: /' "$dir/watch.log" 2>/dev/null
n=$(grep -c 'collprof watch: SLOWDOWN: from [0-9.]* s to [0-9.]* s ' "$dir/watch.log" 2>/dev/null)
ok $([ "${n:-0}" -eq 1 ] && ! grep -q HUNG "$dir/watch.log"; echo $?) \
    "a link slowed at 8 s: watch.log names one slowdown (${n:-0}), no hang"
python3 - "$dir/watch.log" "$t0" <<'PY'
import datetime, re, sys
line = [l for l in open(sys.argv[1]) if "SLOWDOWN" in l][0]
said = datetime.datetime.strptime(line[:20], "%Y-%m-%dT%H:%M:%SZ").replace(
    tzinfo=datetime.timezone.utc).timestamp()
start = float(re.search(r"SLOWDOWN: from ([0-9.]+) s", line).group(1))
lag = said - (float(sys.argv[2]) + start)
print("#   said %.0f s after the slowdown began (%.1f s into the run)" % (lag, start))
sys.exit(0 if lag <= 30 else 1)
PY
ok $? "... within 30 s of the slowdown's start"
grep -q "^collprof: job $j: watch: SLOWDOWN: from" g.err
ok $? "... and on srun's stderr while the step ran"
no_watcher_left "the slowed step"

# ---- h. a straggler: rank 3 computing 20 ms longer before each collective --
plugstack watch=yes watch_interval=1 hang_after=15 analyze_timeout=60
as_user env $run_env srun --collprof --time=2 -N2 -n4 -w n1,n2 "$TSIM" \
    --pattern ddp --late 3:20 --steps 30 --quiet >h.out 2>h.err
rc=$?
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' h.err | head -n 1)
dir=$steps/collprof-$j
sed 's/^/#   watch.log: /' "$dir/watch.log" 2>/dev/null
n=$(grep -c 'collprof watch: STRAGGLER: Rank 3 (node n2) arrived last' "$dir/watch.log" 2>/dev/null)
ok $([ $rc -eq 0 ] && [ "${n:-0}" -eq 1 ] && [ "$(wc -l <"$dir/watch.log")" -eq 1 ]; echo $?) \
    "a straggler on n2: the step ends rc 0 ($rc), the lead on n1 names rank 3, once, nothing else (${n:-0})"
no_watcher_left "the straggler's step"

# ---- i. on_hang=requeue: the lead requeues the batch job its step hangs in -
plugstack watch=yes watch_interval=2 hang_after=$hang_after on_hang=requeue \
    analyze_timeout=60
jid=$(as_user env $run_env SIMNCCL_TOPO="$BASE/hang.topo" \
    sbatch --parsable --requeue -N2 -n4 -w n1,n2 -t 3 -o i.out \
    --wrap "srun --collprof $TSIM --pattern ddp --steps 100000 --quiet" \
    2>i.err)
ok $([ -n "$jid" ]; echo $?) "a batch job whose step hangs is submitted (${jid:-none}$(head -c 200 i.err))"
i=0 restarts=0
while [ -n "$jid" ] && [ $i -lt 900 ]; do
    restarts=$(scontrol show job "$jid" 2>/dev/null | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
    [ "${restarts:-0}" -ge 1 ] && break
    sleep 0.1; i=$((i + 1))
done
[ -n "$jid" ] && scancel "$jid"
dir=$steps/collprof-$jid.0
sed 's/^/#   watch.log: /' "$dir/watch.log" 2>/dev/null
ok $([ "${restarts:-0}" -ge 1 ] &&
     grep -q "collprof watch: on hang: running /[a-z/]*/scontrol requeue $jid\$" "$dir/watch.log"; echo $?) \
    "on_hang=requeue: the job is requeued (Restarts=${restarts:-none}) after watch.log says what runs"
no_watcher_left "the requeued job"
plugstack
done_testing
