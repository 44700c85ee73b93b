#!/bin/sh
# hang.sh - a planted hang on the real Slurm cluster (tests/slurm/cluster.sh)
# ended by the step's time limit (srun --time=1): the plugin still analyses
# the logs, within analyze_timeout, and the verdict's first line on srun's
# stderr names the collective that never finished and the rank that never
# came; report.json and report.html are written; syslog and the alert hook
# get the hang.  The same for a step cancelled with scancel while it hangs,
# and for a step whose task was killed (SIGKILL).  Root only (skips else);
# takes about three minutes (Slurm enforces a one-minute limit at its next
# check, up to 30 s later).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/slurm/lib.sh"

steps=$BASE/steps
cd "$BASE/tmp" || exit 1

syslog_start
install -d -m 1777 "$BASE/alerts"
cat >"$BASE/alert.sh" <<EOF
#!/bin/sh
{ echo "report \$COLLPROF_REPORT"; echo "severity \$COLLPROF_SEVERITY"; } >"$BASE/alerts/alert.txt"
EOF
chmod 755 "$BASE/alert.sh"
plugstack "alert=$BASE/alert.sh" syslog=yes analyze_timeout=60

# rank 1 stops calling after its 30th collective: stuck in compute
printf 'hang rank=1 after=30\n' >"$BASE/hang.topo"
chmod 644 "$BASE/hang.topo"
t0=$(date +%s)
as_user env $run_env SIMNCCL_TOPO="$BASE/hang.topo" \
    srun --collprof --time=1 -N2 -n4 "$TSIM" --pattern ddp --steps 100000 \
    --quiet >hang.out 2>hang.err
rc=$?
took=$(( $(date +%s) - t0 ))
sed 's/^/#   stderr: /' hang.err
ok $([ $rc -ne 0 ] && [ $took -lt 240 ]; echo $?) \
    "the step is ended by its time limit (rc $rc after ${took} s)"
grep -q "CANCELLED.*TIME LIMIT\|DUE TO TIME LIMIT" hang.err
ok $? "srun says the time limit ended it"
first=$(grep '^collprof: job ' hang.err | head -n 1)
echo "$first" | grep -q -E '^collprof: job [0-9]+\.0: HUNG in allreduce seq 30 on world: rank 1 \(n1\) never arrived'
ok $? "the verdict's first line: HUNG in allreduce seq 30 on world: rank 1 (n1) never arrived ($first)"
j=$(echo "$first" | sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p')
dir=$steps/collprof-$j
check "report.json written" test -s "$dir/report.json"
check "report.html written, the hang first" grep -q '<section id="hang"' "$dir/report.html"
python3 - "$dir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
h = [f for f in r["findings"] if f["kind"] == "hang"]
print("# hang findings: %s" % [(f["ranks"], f["evidence"].get("communicator"),
                               f["evidence"].get("seq")) for f in h])
sys.exit(0 if h and h[0]["ranks"] == [1] and h[0]["evidence"]["seq"] == 30
         and r["hang"]["state"] == "hung" else 1)
PY
ok $? "report.json: hang of rank 1 at world seq 30"
check "the alert hook got the report, critical" \
    sh -c "grep -qx 'report $dir/report.json' '$BASE/alerts/alert.txt' && grep -qx 'severity critical' '$BASE/alerts/alert.txt'"
if [ -n "$syslog_pid" ]; then
    check "syslog: the hang" grep -q "collprof: job $j user .*critical hang" "$BASE/syslog.txt"
else
    diag "syslog: not checked, /dev/log belongs to a running syslog daemon"
fi

# ---- scancel while rank 1 is stuck in its compute ---------------------------
printf 'hang rank=1 after=20\n' >"$BASE/hang2.topo"
chmod 644 "$BASE/hang2.topo"
as_user env $run_env SIMNCCL_TOPO="$BASE/hang2.topo" \
    srun --collprof -N2 -n4 "$TSIM" --pattern ddp --steps 100000 \
    --quiet >cancel.out 2>cancel.err &
srun_pid=$!
jid=""
i=0
while [ $i -lt 300 ] && [ -z "$jid" ]; do
    jid=$(squeue -h -o %i -u "$TEST_USER" 2>/dev/null | head -n 1)
    sleep 0.1
    i=$((i + 1))
done
sleep 10 # long past collective 20: the others wait in 20
t0=$(date +%s)
[ -n "$jid" ] && scancel "$jid"
wait $srun_pid
rc=$?
took=$(( $(date +%s) - t0 ))
sed 's/^/#   stderr: /' cancel.err
ok $([ -n "$jid" ] && [ $rc -ne 0 ] && [ $took -lt 90 ]; echo $?) \
    "scancel ends the hung step (job ${jid:-none}, rc $rc, ${took} s to the verdict)"
first=$(grep '^collprof: job ' cancel.err | head -n 1)
echo "$first" | grep -q -E '^collprof: job [0-9]+\.0: HUNG in allreduce seq 20 on world: rank 1 \(n1\) never arrived'
ok $? "after scancel: HUNG in allreduce seq 20 on world: rank 1 (n1) never arrived"

# ---- a task killed (SIGKILL) in its compute ---------------------------------
printf 'kill rank=2 after=25\n' >"$BASE/kill.topo"
chmod 644 "$BASE/kill.topo"
t0=$(date +%s)
as_user env $run_env SIMNCCL_TOPO="$BASE/kill.topo" \
    srun --collprof --time=2 -N2 -n4 "$TSIM" --pattern ddp --steps 100000 \
    --quiet >kill.out 2>kill.err
rc=$?
took=$(( $(date +%s) - t0 ))
sed 's/^/#   stderr: /' kill.err
ok $([ $rc -ne 0 ]; echo $?) "a task killed: the step fails (rc $rc after ${took} s)"
first=$(grep '^collprof: job ' kill.err | head -n 1)
echo "$first" | grep -q -E '^collprof: job [0-9]+\.0: (KILLED: rank 2 \(n[0-9]+\) died before allreduce seq 25 on world|HUNG in allreduce seq 25 on world: rank 2 \(n[0-9]+\) never arrived)'
ok $? "its verdict names rank 2 at allreduce seq 25 on world ($first)"
done_testing
