#!/bin/sh
# spank.sh - the collprof SPANK plugin on a real Slurm 22.05 cluster of 4
# emulated nodes (tests/slurm/cluster.sh): the option in srun/sbatch/salloc,
# step directories and LD_PRELOAD per step, the verdict at step end, the
# batch step, default=on|off, hostile input, the admin-only alert hook and
# syslog, and a plugstack.conf with an unknown key.  Root only (skips else).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/slurm/lib.sh"

steps=$BASE/steps
fake=$CP_INST/bin/fake/collprof
install -d -m 755 "$CP_INST/bin/fake"
cp "$s/tests/slurm/fake-collprof.sh" "$fake" && chmod 755 "$fake"
cd "$BASE/tmp" || exit 1

# ---- the option is known to srun, sbatch and salloc ----------------------
for cmd in srun sbatch salloc; do
    $cmd --help 2>&1 | grep -q -e '--collprof' 
    ok $? "$cmd --help lists --collprof"
done

# ---- srun --collprof -N4 -n8, as root, a slow link planted -----------------
# train_sim's 3d pattern on 8 ranks over 4 nodes sends its bandwidth-bound
# traffic over n1-n2 and n3-n4 (data-parallel rings) and n1-n3 and n2-n4
# (pipelines); a link at 1/4 of the others' 25 MB/s is named reliably even
# on a loaded 2-core machine (tests/links/simrun.sh).
cat >"$BASE/slow-link.topo" <<'EOF'
nodes 4
intra latency=5us bandwidth=2GB/s
inter latency=20us bandwidth=25MB/s
link n2 n4 bandwidth=6250KB/s
EOF
t0=$(date +%s)
env $run_env SIMNCCL_TOPO="$BASE/slow-link.topo" \
    srun --collprof -N4 -n8 "$TSIM" --pattern 3d --steps 4 --bucket-mb 2 \
    >root.out 2>root.err
ok $? "srun --collprof -N4 -n8 train_sim --pattern 3d: exit 0"
diag "train_sim step took $(( $(date +%s) - t0 )) s"
sed 's/^/#   stderr: /' root.err
dir=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' root.err | head -n 1)
ok $([ -n "$dir" ]; echo $?) "a verdict line 'collprof: job J.0: ...' on stderr"
dir=$steps/collprof-$dir
n=$(shim_logs "$dir")
ok $([ "$n" -eq 8 ]; echo $?) "8 rank logs in $dir ($n)"
n=$(plugin_logs "$dir")
ok $([ "$n" -eq 8 ]; echo $?) "... and 8 of NCCL's profiler plugin (capture=both by default) ($n)"
nodes=$(ls "$dir" | sed -n 's/\.[0-9]*\.cplog$//p' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
ok $([ "$nodes" = " 2 n1; 2 n2; 2 n3; 2 n4;" ]; echo $?) "two ranks logged per node ($nodes)"
lines=$(count_lines root.err '^collprof: job ')
ok $([ "$lines" -ge 1 ] && [ "$lines" -le 5 ]; echo $?) "the verdict has 1 to 5 lines ($lines)"
check "collprof analyze wrote report.json" test -s "$dir/report.json"
check "... and report.html next to it" test -s "$dir/report.html"
grep -q "report" root.err
ok $? "the verdict names the report"
grep '^collprof: job ' root.err |
    grep -q -E '(^|[^[:alnum:]])n2[^[:alnum:]](.*[^[:alnum:]])?n4([^[:alnum:]]|$)'
ok $? "the verdict names the slow link n2-n4"
python3 - "$dir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
slow = sorted(sorted(f["nodes"]) for f in r["findings"] if f["kind"] == "slow_link")
print("# slow_link findings: %s" % slow)
sys.exit(0 if slow == [["n2", "n4"]] else 1)
PY
ok $? "report.json: one slow_link finding, on n2-n4"
ports=$(ls "$dir" | grep -c -E '^ports-n[1-4]-(start|end)\.json$')
ok $([ "$ports" -eq 8 ]; echo $?) "a port snapshot per node at the start and the end ($ports of 8)"
check "train_sim's own output is untouched" grep -q 'all results correct' root.out

# ---- the same as a non-root user, with fake RDMA ports ---------------------
# collprof ports reads COLLPROF_SYSFS_ROOT (%n: the node) from the job's
# environment: one fake sysfs tree per node, n3's port at half width
for node in n1 n2 n3 n4; do
    p=$BASE/sysfs/$node/class/infiniband/mlx5_0/ports/1
    mkdir -p "$p/counters"
    echo "4: ACTIVE" >"$p/state"
    echo "5: LinkUp" >"$p/phys_state"
    echo "InfiniBand" >"$p/link_layer"
    echo "200 Gb/sec (4X HDR)" >"$p/rate"
    echo 0 >"$p/counters/symbol_error"
done
echo "100 Gb/sec (2X HDR)" >"$BASE/sysfs/n3/class/infiniband/mlx5_0/ports/1/rate"
chmod -R a+rX "$BASE/sysfs"
install -d -o "$TEST_USER" -m 755 "$BASE/user"
cd "$BASE/user" || exit 1
as_user env $run_env SIMNCCL_TOPO="$BASE/slow-link.topo" \
    srun --collprof -N4 -n8 "$TSIM" --pattern 3d --steps 4 --bucket-mb 2 \
    >user.out 2>user.err
ok $? "as $TEST_USER: srun --collprof -N4 -n8 train_sim --pattern 3d: exit 0"
sed 's/^/#   stderr: /' user.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' user.err | head -n 1)
udir=$steps/collprof-$j
n=$(shim_logs "$udir")
ok $([ -n "$j" ] && [ "$n" -eq 8 ]; echo $?) "as $TEST_USER: 8 rank logs and a verdict ($n in $udir)"
grep '^collprof: job ' user.err |
    grep -q -E '(^|[^[:alnum:]])n2[^[:alnum:]](.*[^[:alnum:]])?n4([^[:alnum:]]|$)'
ok $? "as $TEST_USER: the verdict names the slow link n2-n4"
owner=$(stat -c %U "$udir" 2>/dev/null)
ok $([ "$owner" = "$TEST_USER" ]; echo $?) "the step directory belongs to $TEST_USER ($owner)"
ports=$(ls "$udir" | grep -c -E '^ports-n[1-4]-(start|end)\.json$')
ok $([ "$ports" -eq 8 ]; echo $?) "as $TEST_USER: a port snapshot per node at the start and the end ($ports of 8)"
notmine=$(find "$udir" ! -user "$TEST_USER" | wc -l)
ok $([ "$notmine" -eq 0 ]; echo $?) "nothing in it belongs to anyone else, snapshots included ($notmine)"
check "as $TEST_USER: report.json and report.html" test -s "$udir/report.json" -a -s "$udir/report.html"
check "modes: the step directory 0700, reports and snapshots 0600 (mode=0700)" \
    sh -c "[ \"\$(stat -c %a '$udir')\" = 700 ] && [ \"\$(stat -c %a '$udir/report.json' '$udir/report.html' '$udir'/ports-*.json | sort -u)\" = 600 ]"

# the port snapshots of fake RDMA ports
as_user env $run_env COLLPROF_SYSFS_ROOT="$BASE/sysfs/%n" \
    srun --collprof -N4 -n4 "$TSIM" --pattern ddp --steps 1 >ports.out 2>ports.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' ports.err | head -n 1)
pdir=$steps/collprof-$j
sed 's/^/#   stderr: /' ports.err
ports=$(ls "$pdir" | grep -c -E '^ports-n[1-4]-(start|end)\.json$')
notmine=$(find "$pdir" ! -user "$TEST_USER" | wc -l)
ok $([ -n "$j" ] && [ "$ports" -eq 8 ] && [ "$notmine" -eq 0 ]; echo $?) \
    "COLLPROF_SYSFS_ROOT: 8 snapshots in $pdir, all $TEST_USER's ($ports, $notmine others)"
check "... the verdict has the degraded port" grep -q '^collprof: job .*degraded_port' ports.err
python3 - "$pdir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [f["nodes"] for f in r["findings"] if f["kind"] == "degraded_port"]
print("# degraded_port findings: %s; snapshots %s" % (bad, r["ports"]["snapshots"]))
sys.exit(0 if bad == [["n3"]] and r["ports"]["snapshots"] == 8 else 1)
PY
ok $? "the half-width port of n3 is a degraded_port finding, and only it"

# dir= relative to the working directory, as the user
as_user env $run_env srun --collprof=dir=prof -N2 -n4 "$TSIM" --pattern ddp --steps 1 \
    >rel.out 2>rel.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' rel.err | head -n 1)
n=$(shim_logs "$BASE/user/prof/collprof-$j")
ok $([ "$n" -eq 4 ]; echo $?) "dir=prof: 4 logs in ./prof/collprof-$j ($n)"
notmine=$(find "$BASE/user/prof" ! -user "$TEST_USER" | wc -l)
ok $([ "$notmine" -eq 0 ]; echo $?) "dir=prof: everything made there is $TEST_USER's ($notmine others)"

# srun --chdir: a relative directory is taken from srun's working
# directory, by srun and on every node alike
install -d -o "$TEST_USER" -m 755 "$BASE/user/elsewhere"
as_user env $run_env srun --chdir="$BASE/user/elsewhere" --collprof=dir=prof -N2 -n4 \
    "$TSIM" --pattern ddp --steps 1 >chdir.out 2>chdir.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' chdir.err | head -n 1)
n=$(shim_logs "$BASE/user/prof/collprof-$j")
ok $([ -n "$j" ] && [ "$n" -eq 4 ] && [ -s "$BASE/user/prof/collprof-$j/report.json" ]; echo $?) \
    "srun --chdir=elsewhere --collprof=dir=prof: verdict and report, 4 logs in ./prof/collprof-$j ($n)"
check "... nothing below elsewhere/" test -z "$(ls -A "$BASE/user/elsewhere")"
plugstack basedir=
as_user env $run_env srun --chdir="$BASE/user/elsewhere" --collprof -N2 -n4 \
    "$TSIM" --pattern ddp --steps 1 >chdir2.out 2>chdir2.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' chdir2.err | head -n 1)
n=$(shim_logs "$BASE/user/collprof-$j")
ok $([ -n "$j" ] && [ "$n" -eq 4 ] && [ -s "$BASE/user/collprof-$j/report.json" ]; echo $?) \
    "basedir empty, srun --chdir=elsewhere: verdict and report in srun's directory ($n logs)"
check "... nothing below elsewhere/" test -z "$(ls -A "$BASE/user/elsewhere")"
plugstack

# ---- no flag, default=off: nothing at all ----------------------------------
before=$(ls "$steps" | wc -l)
srun -n2 printenv LD_PRELOAD >noflag.out 2>noflag.err
check "default=off, no flag: no LD_PRELOAD in the task" test ! -s noflag.out
env $run_env srun -N2 -n4 "$TSIM" --pattern ddp --steps 1 >noflag2.out 2>noflag2.err
ok $? "default=off, no flag: train_sim runs"
after=$(ls "$steps" | wc -l)
ok $([ "$before" -eq "$after" ]; echo $?) "default=off, no flag: no step directory ($before, $after)"
ok $(count_lines noflag2.err '^collprof' | grep -qx 0; echo $?) "default=off, no flag: no collprof output"

# the environment fallback, and what the task gets
COLLPROF_PROFILE=on srun -n1 printenv LD_PRELOAD >envon.out 2>envon.err
check "COLLPROF_PROFILE=on without the flag: the shim is preloaded" \
    grep -q "$CP_INST/lib/libcollprof.so" envon.out
srun --collprof=timer=host,dir=/tmp -n1 sh -c 'echo "$COLLPROF_TIMER $COLLPROF_DIR"' >tm.out 2>tm.err
check "timer=host and dir= reach the task (COLLPROF_TIMER, COLLPROF_DIR)" \
    grep -q '^host /tmp/collprof-[0-9]*\.0$' tm.out

# a step without NCCL calls leaves no directory (the nodes' port snapshots
# included) and prints nothing
before=$(ls "$steps" | wc -l)
srun --collprof -N2 -n2 true >quiet.out 2>quiet.err
after=$(ls "$steps" | wc -l)
ok $([ "$before" -eq "$after" ] && [ ! -s quiet.err ]; echo $?) \
    "--collprof on a step without NCCL calls: no directory, no output"
(cd "$BASE/user" && as_user srun --collprof -N2 -n2 true >quiet2.out 2>quiet2.err)
after=$(ls "$steps" | wc -l)
ok $([ "$before" -eq "$after" ] && [ ! -s "$BASE/user/quiet2.err" ]; echo $?) \
    "... as $TEST_USER too"

# ---- default=on ------------------------------------------------------------
plugstack default=on
srun -n1 printenv LD_PRELOAD >on.out 2>on.err
check "default=on, no flag: LD_PRELOAD has the shim" grep -q "$CP_INST/lib/libcollprof.so" on.out
srun --collprof=off -n1 printenv LD_PRELOAD >off.out 2>off.err
check "default=on, --collprof=off: no LD_PRELOAD" test ! -s off.out
before=$(ls "$steps" | wc -l)
env $run_env srun --collprof=off -N2 -n4 "$TSIM" --pattern ddp --steps 1 >off2.out 2>off2.err
after=$(ls "$steps" | wc -l)
ok $([ "$before" -eq "$after" ] && ! grep -q '^collprof' off2.err; echo $?) \
    "default=on, --collprof=off: no directory, no verdict"
COLLPROF_DISABLE=1 srun -n1 printenv LD_PRELOAD >dis.out 2>dis.err
check "default=on, COLLPROF_DISABLE=1: no LD_PRELOAD" test ! -s dis.out
LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6 srun --collprof -n1 printenv LD_PRELOAD >keep.out 2>keep.err
check "the user's LD_PRELOAD is kept after the shim" \
    grep -qx "$CP_INST/lib/libcollprof.so:/lib/x86_64-linux-gnu/libc.so.6" keep.out
plugstack

# ---- sbatch --wait --collprof: one directory per step ----------------------
# the batch shell itself makes NCCL calls (one rank) before its two sruns
cat >job.sh <<EOF
#!/bin/sh
echo "batch LD_PRELOAD=\${LD_PRELOAD:-}"
SIMNCCL_RANK=0 SIMNCCL_NRANKS=1 "$TSIM" --pattern ddp --steps 1 >/dev/null
srun "$TSIM" --pattern ddp --steps 1
srun "$TSIM" --pattern fsdp --steps 1
EOF
chmod 755 job.sh
for batch in no yes; do
    plugstack batch_step=$batch
    j=$(env $run_env sbatch --parsable --wait --collprof -N4 -n8 -o "batch-$batch.out" ./job.sh)
    ok $? "batch_step=$batch: sbatch --wait --collprof with two sruns: exit 0"
    n0=$(shim_logs "$steps/collprof-$j.0")
    n1=$(shim_logs "$steps/collprof-$j.1")
    ok $([ "$n0" -eq 8 ] && [ "$n1" -eq 8 ]; echo $?) \
        "batch_step=$batch: steps $j.0 and $j.1 have 8 logs each ($n0, $n1)"
    r=$(ls "$steps/collprof-$j.0/report.json" "$steps/collprof-$j.1/report.json" 2>/dev/null | wc -l)
    ok $([ "$r" -eq 2 ]; echo $?) "batch_step=$batch: one report per step ($r)"
    v=$(count_lines "batch-$batch.out" "^collprof: job $j\.[01]: ")
    ok $([ "$v" -ge 2 ]; echo $?) "batch_step=$batch: a verdict per step in the job's output ($v lines)"
    if [ $batch = no ]; then
        grep -qx 'batch LD_PRELOAD=' "batch-$batch.out" && [ ! -e "$steps/collprof-$j.batch" ]
        ok $? "batch_step=no: the batch shell is not profiled (no collprof-$j.batch)"
    else
        grep -q "^batch LD_PRELOAD=$CP_INST/lib/libcollprof.so" "batch-$batch.out"
        ok $? "batch_step=yes: the batch shell has the shim"
        bdir=$steps/collprof-$j.batch
        n=$(shim_logs "$bdir")
        ok $([ "$n" -eq 1 ] && [ -s "$bdir/report.json" ] && [ -s "$bdir/report.html" ]; echo $?) \
            "batch_step=yes: collprof-$j.batch has the shell's log, report.json and report.html ($n logs)"
        # the batch host: the allocation's first node (n1 unless it was busy)
        bh=$(ls "$bdir" | sed -n 's/^ports-\(.*\)-start\.json$/\1/p' | head -n 1)
        check "batch_step=yes: and the node's port snapshots (${bh:-none})" \
            test -n "$bh" -a -s "$bdir/ports-$bh-start.json" -a -s "$bdir/ports-$bh-end.json"
        check "batch_step=yes: its verdict is in the slurmd log" \
            grep -q "collprof: job $j\.batch: .*report\.json" "$BASE/log/slurmd-${bh:-n1}.log"
    fi
    sed 's/^/#   out: /' "batch-$batch.out" | grep -v 'all results correct'
done
# a batch shell without NCCL calls leaves nothing, snapshots included
j=$(sbatch --parsable --wait --collprof -n1 -o /dev/null --wrap true)
ok $([ -n "$j" ] && [ ! -e "$steps/collprof-$j.batch" ]; echo $?) \
    "batch_step=yes, a shell without NCCL calls: no collprof-$j.batch left"
plugstack

# ---- salloc ----------------------------------------------------------------
env $run_env salloc --collprof -N2 -n4 srun "$TSIM" --pattern ddp --steps 1 >salloc.out 2>salloc.err
ok $? "salloc --collprof ... srun: exit 0"
check "salloc --collprof: the srun inside gives a verdict" grep -q '^collprof: job [0-9]*\.0: ' salloc.err

# ---- hostile input ---------------------------------------------------------
cd "$BASE/user" || exit 1
for bad in 'dir=../../etc' 'dir=a/../../b' 'frobnicate' 'timer=gpu' \
           "dir=$(printf 'x\377y')" "dir=$(head -c 3000 /dev/zero | tr '\0' a)" \
           'on,off' "dir=$(printf 'a\nb')"; do
    shown=$(printf '%s' "$bad" | head -c 24 | tr -c '[:print:]' '?')
    as_user srun --collprof="$bad" -n1 true >bad.out 2>bad.err
    rc=$?
    ok $([ $rc -ne 0 ] && grep -q '^srun: error: collprof: --collprof: ' bad.err; echo $?) \
        "--collprof=$shown: refused with a collprof message (rc $rc)"
done
diag "$(head -n 1 bad.err)"
as_user sbatch --collprof=dir=../x -n1 -o /dev/null --wrap true >sb.out 2>sb.err
ok $([ $? -ne 0 ] && grep -q "^sbatch: error: collprof: --collprof: " sb.err; echo $?) \
    "sbatch --collprof=dir=../x: refused at submission"

# a directory the user cannot write: the step runs, without profiling
install -d -m 755 "$BASE/rootonly"
as_user env $run_env srun --collprof=dir="$BASE/rootonly" -N2 -n2 "$TSIM" --pattern ddp --steps 1 \
    >unw.out 2>unw.err
ok $? "dir= not writable by the user: the step still runs (exit 0)"
check "... and says why" grep -q 'collprof: job [0-9]*\.0: cannot create .*Permission denied' unw.err
check "... nothing written there" test -z "$(ls -A "$BASE/rootonly")"

# a symlink planted where root's step directory will go
install -d -m 755 "$BASE/victim"
echo precious >"$BASE/victim/file"
j=$(next_job_id)
as_user ln -s "$BASE/victim" "$steps/collprof-$j.0"
env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >sym.out 2>sym.err
ok $? "a planted symlink at collprof-$j.0: the step runs (exit 0)"
check "... the symlink is refused, saying so" grep -q "collprof-$j.0 is a symbolic link: refused" sym.err
check "... nothing written through it" test "$(ls -A "$BASE/victim")" = file
check "... the victim's file intact" grep -qx precious "$BASE/victim/file"

# a directory of another user planted there
j=$(next_job_id)
as_user mkdir -m 755 "$steps/collprof-$j.0"
env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >own.out 2>own.err
check "a directory of another user at collprof-$j.0: refused" grep -q "belongs to uid" own.err
check "... nothing written in it" test -z "$(ls -A "$steps/collprof-$j.0")"

# ---- the user cannot make the plugin run a program -------------------------
cat >"$BASE/evil.sh" <<EOF
#!/bin/sh
touch "$BASE/tmp/EVIL-RAN"
EOF
chmod 755 "$BASE/evil.sh"
plugstack "collprof=$fake"
cd "$BASE/user" || exit 1
as_user env $run_env COLLPROF_ALERT="$BASE/evil.sh" COLLPROF_COLLPROF="$BASE/evil.sh" \
    COLLPROF_PRELOAD="$BASE/evil.sh" COLLPROF_PROFILE="on,alert=$BASE/evil.sh" \
    srun --collprof -N2 -n2 sh -c 'echo "$LD_PRELOAD"; exec '"$TSIM"' --pattern ddp --steps 1' \
    >evil.out 2>evil.err
ok $? "COLLPROF_ALERT, COLLPROF_PRELOAD, ... in the environment: the step runs"
as_user srun --collprof="alert=$BASE/evil.sh" -n1 true >evil2.out 2>evil2.err
check "--collprof=alert=...: refused as an unknown key" grep -q "unknown key 'alert'" evil2.err
check "the user's program never ran" test ! -e "$BASE/tmp/EVIL-RAN"
check "the tasks' LD_PRELOAD is the site's shim only" \
    test "$(sort -u evil.out | grep -v 'all results' | tr '\n' ' ')" = "$CP_INST/lib/libcollprof.so "

# ---- the verdict from collprof analyze (a stand-in analyzer) ---------------
as_user env $run_env srun --collprof -N4 -n8 "$TSIM" --pattern ddp --steps 1 >fake.out 2>fake.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' fake.err | head -n 1)
fdir=$steps/collprof-$j
sed 's/^/#   stderr: /' fake.err
# the step directory checked once is handed over as the working directory
# (a descriptor: fchdir), never as a path to resolve again
check "analyze ran as 'collprof analyze . -o .'" \
    grep -qx "analyze . -o ." "$fdir/fake-analyze.txt"
check "... in the step directory" grep -qx "cwd $fdir" "$fdir/fake-analyze.txt"
check "... as the user who ran srun" grep -qx "uid $TEST_UID" "$fdir/fake-analyze.txt"
check "... after the tasks ended (8 logs there)" grep -qx "logs 8" "$fdir/fake-analyze.txt"
check "the verdict is on srun's stderr" \
    grep -qx "collprof: job $j: slow link n2-n3: 50 MB/s against 400 MB/s on the other links (8 rank logs)" fake.err
check "... with the report's path" grep -qx "collprof: job $j: report: $fdir/report.json" fake.err

as_user env $run_env FAKE_ANALYZE=long srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >long.out 2>long.err
n=$(count_lines long.err '^collprof: job ')
ok $([ "$n" -eq 5 ]; echo $?) "a long verdict is cut to 5 lines ($n)"
check "... the last one the report's path" sh -c "grep '^collprof: job ' long.err | tail -n 1 | grep -q 'report: .*/report.json'"

plugstack "collprof=$fake" analyze_timeout=2
t0=$(date +%s)
as_user env $run_env FAKE_ANALYZE=hang srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >hang.out 2>hang.err
rc=$?
took=$(( $(date +%s) - t0 ))
ok $([ $rc -eq 0 ] && [ $took -lt 15 ]; echo $?) "a hanging analyzer is stopped at analyze_timeout=2 (rc $rc, ${took} s)"
check "... saying so" grep -q 'the analysis did not finish in 2 s' hang.err
# srun's wait for the analysis is interruptible: srun has joined its own
# signal thread before it calls the plugin's exit callback, so SIGINT and
# SIGTERM reach the callback's thread: a first Ctrl-C (SIGINT to srun, as
# the terminal sends it) says how to abandon, a second abandons at once
cat >"$BASE/intcp.sh" <<EOF
#!/bin/sh
if [ "\$1" = analyze ] && [ "\$2" != --help ]; then
    echo \$\$ >"$BASE/flags/int.pid"
fi
exec "$fake" "\$@"
EOF
chmod 755 "$BASE/intcp.sh"
install -d -m 1777 "$BASE/flags"
plugstack "collprof=$BASE/intcp.sh" analyze_timeout=600
for how in INT TERM; do
    rm -f "$BASE/flags/int.pid"
    env $run_env FAKE_ANALYZE=hang srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 \
        >int.out 2>int.err &
    srun_pid=$!
    i=0
    while [ ! -s "$BASE/flags/int.pid" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    apid=$(cat "$BASE/flags/int.pid" 2>/dev/null)
    sleep 0.5
    if [ $how = INT ]; then
        kill -INT $srun_pid; sleep 0.5; kill -INT $srun_pid
    else
        kill -TERM $srun_pid
    fi
    wait $srun_pid
    sed 's/^/#   stderr: /' int.err
    check "SIG$how to srun during the analysis: it is abandoned, saying where the logs are" \
        grep -q "^collprof: job [0-9]*\.0: the analysis was abandoned; the logs are in $steps/collprof-" int.err
    check "... the analyzer is gone" sh -c "[ -n '$apid' ] && ! kill -0 '$apid' 2>/dev/null"
    if [ $how = INT ]; then
        check "... the first SIGINT said how to abandon it" \
            grep -q "^collprof: the step's analysis still running; Ctrl-C again abandons it" int.err
    fi
done
plugstack "collprof=$fake" analyze_timeout=2
as_user env $run_env FAKE_ANALYZE=fail srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >fail.out 2>fail.err
ok $? "a failing analyzer does not fail the step"
check "... and is reported in one line" grep -q 'the analysis failed (exit 3): collprof analyze: .*damaged' fail.err
as_user env $run_env COLLPROF_ANALYZE=no srun --collprof=probe -N2 -n2 "$TSIM" --pattern ddp --steps 1 >noan.out 2>noan.err
check "COLLPROF_ANALYZE=no: the call count instead of the analysis" grep -q 'NCCL calls from 2 ranks logged in' noan.err
check "... and --collprof=probe on 2 nodes: the probe's line after it" \
    grep -q '^collprof: job [0-9]*\.0: probe: every node pair within 0.7x of the median (.*), 1 pair of 2 nodes measured; .*/probe/probe.json$' noan.err

# ---- syslog and the alert hook (admin-only) -------------------------------
syslog_start
install -d -m 1777 "$BASE/alerts"
cat >"$BASE/alert.sh" <<EOF
#!/bin/sh
{ echo "report \$COLLPROF_REPORT"; echo "argc \$#"; echo "severity \$COLLPROF_SEVERITY"; echo "step \$COLLPROF_STEP"; id -u; } >"$BASE/alerts/alert.txt"
exit 1
EOF
cat >"$BASE/hang.sh" <<EOF
#!/bin/sh
echo \$\$ >"$BASE/alerts/hang.pid"
exec sleep 100000
EOF
chmod 755 "$BASE/alert.sh" "$BASE/hang.sh"
plugstack "collprof=$fake" "alert=$BASE/alert.sh" syslog=yes
as_user env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >alert.out 2>alert.err
ok $? "a failing alert hook (exit 1) does not fail the step"
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' alert.err | head -n 1)
check "the hook got the report's path" grep -qx "report $steps/collprof-$j/report.json" "$BASE/alerts/alert.txt"
check "... in COLLPROF_REPORT, nothing the job controls in its argv" grep -qx "argc 0" "$BASE/alerts/alert.txt"
check "... and the worst severity" grep -qx "severity critical" "$BASE/alerts/alert.txt"
check "... and ran as the user who ran srun" grep -qx "$TEST_UID" "$BASE/alerts/alert.txt"
if [ -n "$syslog_pid" ]; then
    sleep 0.3
    check "syslog: a line for the critical slow_link" \
        grep -q "collprof: job $j user $TEST_USER: the job's analysis claims: critical slow_link on n2,n3: link n2-n3 runs at 50 MB/s" "$BASE/syslog.txt"
    check "syslog: a line for the warning" grep -q "collprof: job $j user $TEST_USER: the job's analysis claims: warning latency_bound" "$BASE/syslog.txt"
    check "syslog: none for the info finding" sh -c "! grep -q 'info note' '$BASE/syslog.txt'"
else
    diag "a syslog daemon owns /dev/log: syslog lines not checked"
fi

# the batch shell (batch_step=yes) ends in slurmstepd: the same syslog
# lines and hook, as the job's user
plugstack "collprof=$fake" "alert=$BASE/alert.sh" syslog=yes batch_step=yes
rm -f "$BASE/alerts/alert.txt"
j=$(as_user env $run_env sbatch --parsable --wait --collprof -N1 -n1 -o /dev/null \
    --wrap "SIMNCCL_RANK=0 SIMNCCL_NRANKS=1 $TSIM --pattern ddp --steps 1")
ok $([ -n "$j" ] && [ -s "$steps/collprof-$j.batch/report.json" ]; echo $?) \
    "batch_step=yes as $TEST_USER: the batch shell's report ($j)"
check "the batch step's hook got its report's path" \
    grep -qx "report $steps/collprof-$j.batch/report.json" "$BASE/alerts/alert.txt"
check "... the step J.batch and the worst severity" \
    sh -c "grep -qx 'step $j.batch' '$BASE/alerts/alert.txt' && grep -qx 'severity critical' '$BASE/alerts/alert.txt'"
check "... and ran as the job's user" grep -qx "$TEST_UID" "$BASE/alerts/alert.txt"
if [ -n "$syslog_pid" ]; then
    sleep 0.3
    check "syslog: the batch step's critical slow_link" \
        grep -q "collprof: job $j.batch user $TEST_USER: the job's analysis claims: critical slow_link on n2,n3: " "$BASE/syslog.txt"
fi

plugstack "collprof=$fake" "alert=$BASE/hang.sh" alert_timeout=2
t0=$(date +%s)
as_user env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >hang2.out 2>hang2.err
rc=$?
took=$(( $(date +%s) - t0 ))
ok $([ $rc -eq 0 ] && [ $took -lt 15 ]; echo $?) "a hook that sleeps forever is killed at alert_timeout=2 (rc $rc, ${took} s)"
hp=$(cat "$BASE/alerts/hang.pid" 2>/dev/null)
ok $([ -n "$hp" ] && ! kill -0 "$hp" 2>/dev/null; echo $?) "... and is gone (pid $hp)"

# ---- --collprof=probe: the link probe once the step ends -------------------
# ddp is one ring over the 4 nodes (one rank each): a link of it at 1/4 of
# 25 MB/s slows the whole ring, and the calls (with the site profile) can
# only list the ring's links as candidates; the NCCL profiler plugin's
# proxy steps name the one (their 64 KiB steps judged against the other
# links' steps of that size), and the probe measures every pair and names
# it too.  The stand-in collprof passes --profile to the real analyzer and
# runs the real probe.
cat >"$BASE/ring-slow.topo" <<'EOF'
nodes 4
intra latency=5us bandwidth=2GB/s
inter latency=20us bandwidth=25MB/s
link n2 n3 bandwidth=6250KB/s
EOF
plugstack "collprof=$fake" syslog=yes
cd "$BASE/user" || exit 1
t0=$(date +%s)
as_user env $run_env SIMNCCL_TOPO="$BASE/ring-slow.topo" FAKE_PROFILE="$BASE/ring-slow.topo" \
    srun --collprof=probe -N4 -n4 "$TSIM" --pattern ddp --steps 3 --scale 0.25 --bucket-mb 1 \
    >probe.out 2>probe.err
ok $? "as $TEST_USER: srun --collprof=probe -N4 -n4 train_sim --pattern ddp: exit 0"
diag "ddp step, analysis and probe took $(( $(date +%s) - t0 )) s"
sed 's/^/#   stderr: /' probe.err
j=$(sed -n 's/^collprof: job \([0-9]*\)\.0: .*/\1/p' probe.err | head -n 1)
pdir=$steps/collprof-$j.0
python3 - "$pdir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
kinds = sorted((f["kind"], "-".join(sorted(f.get("nodes") or [])),
                f["evidence"].get("method", "calls"))
               for f in r["findings"] if f["kind"].startswith("slow_link"))
res = [f["evidence"].get("resolves") for f in r["findings"]
       if f["kind"] == "slow_link"]
print("# the analysis: %s, resolving %s" % (kinds, res))
# the message names the communicator it resolved, as the evidence does
said = [("It explains communicator %s's " % f["evidence"]["resolved"][0]["comm"])
        in f["message"] for f in r["findings"]
        if f["kind"] == "slow_link" and f["evidence"].get("resolved")]
print("# %s" % [f["message"] for f in r["findings"] if f["kind"] == "slow_link"])
sys.exit(0 if kinds == [("slow_link", "n2-n3", "proxy_steps")] and
         res == ["slow_link_candidates"] and said == [True] else 1)
PY
ok $? "the analysis alone: the proxy steps name slow_link n2-n3, resolving the calls' slow_link_candidates (the message names the communicator)"
n=$(count_lines probe.err '^collprof: job [0-9]*\.0: probe: ')
ok $([ "$n" -eq 1 ]; echo $?) "one probe line ($n)"
check "... naming the planted link n2-n3 and its bandwidth" \
    grep -q -E "^collprof: job $j\.0: probe: slow link n2-n3 \([0-9.]+ MB/s against [0-9.]+ MB/s, [0-9]+%\); $pdir/probe/probe.json\$" probe.err
n=$(count_lines probe.err '^collprof: job ')
ok $([ "$n" -le 5 ]; echo $?) "the verdict, probe line included, has at most 5 lines ($n)"
python3 - "$pdir/probe/probe.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
slow = [sorted(f["nodes"]) for f in r["findings"] if f["kind"] == "slow_link"]
print("# probe.json: %s nodes, slow %s, job %s" % (r["topology"]["nodes"], slow, r["run"]["job_id"]))
sys.exit(0 if slow == [["n2", "n3"]] and r["topology"]["nodes"] == ["n1", "n2", "n3", "n4"] else 1)
PY
ok $? "probe.json: the 4 nodes of the step, one slow_link, exactly n2-n3"
pjob=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["job_id"])' "$pdir/probe/probe.json" 2>/dev/null)
ok $([ -n "$pjob" ] && [ "$pjob" != "$j" ]; echo $?) \
    "srun's own job had ended: the probe ran as a job of its own ($pjob, not $j)"
owner=$(stat -c %U "$pdir/probe/probe.json" 2>/dev/null)
notmine=$(find "$pdir" ! -user "$TEST_USER" | wc -l)
ok $([ "$owner" = "$TEST_USER" ] && [ "$notmine" -eq 0 ]; echo $?) \
    "probe.json belongs to $TEST_USER ($owner), and all of $pdir does ($notmine others)"
ok $([ ! -e "$steps/collprof-$pjob.0" ]; echo $?) "the probe itself is not profiled (no collprof-$pjob.0)"
if [ -n "$syslog_pid" ]; then
    sleep 0.3
    check "syslog: the probe's slow_link, with probe.json" \
        grep -q -E "collprof: job $j\.0 user $TEST_USER: the job's analysis claims: (warning|critical) slow_link on n2,n3: .*\(report $pdir/probe/probe.json\)" "$BASE/syslog.txt"
fi

# inside an allocation the probe is a step of the job (--jobid, --overlap)
plugstack
j=$(as_user env $run_env sbatch --parsable --wait -N2 -n2 -o probe-batch.out \
    --wrap "srun --collprof=probe -N2 -n2 $TSIM --pattern ddp --steps 1")
sed 's/^/#   out: /' probe-batch.out | grep -v 'all results correct'
pjob=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["job_id"])' \
    "$steps/collprof-$j.0/probe/probe.json" 2>/dev/null)
ok $([ -n "$j" ] && [ "$pjob" = "$j" ]; echo $?) \
    "sbatch: srun --collprof=probe's probe ran inside job $j ($pjob)"
check "... and its line is in the job's output" \
    grep -q "^collprof: job $j\.0: probe: every node pair within" probe-batch.out

# one node: nothing to probe
as_user env $run_env srun --collprof=probe -N1 -n2 "$TSIM" --pattern ddp --steps 1 \
    >probe1.out 2>probe1.err
ok $? "srun --collprof=probe -N1: exit 0"
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' probe1.err | head -n 1)
check "... says the probe needs 2 nodes" \
    grep -q "^collprof: job $j: probe: the link probe needs 2 nodes or more, this step ran on 1; nothing run\$" probe1.err
check "... and runs nothing" test ! -e "$steps/collprof-$j/probe"

# a probe that hangs is stopped at probe_timeout; one that fails costs a
# line; the step's exit status stays the step's
plugstack "collprof=$fake" probe_timeout=1
t0=$(date +%s)
as_user env $run_env FAKE_PROBE=hang srun --collprof=probe -N2 -n2 \
    sh -c "$TSIM --pattern ddp --steps 1; exit 3" >probe2.out 2>probe2.err
rc=$?
took=$(( $(date +%s) - t0 ))
sed 's/^/#   stderr: /' probe2.err
ok $([ $rc -eq 3 ] && [ $took -lt 20 ]; echo $?) \
    "a hanging probe, probe_timeout=1: the step's exit status 3 stays (rc $rc, ${took} s)"
check "... and a line says it was stopped" \
    grep -q "^collprof: job [0-9]*\.0: probe: stopped after 1 s (probe_timeout); no result\$" probe2.err
i=0
while [ -n "$(squeue -h -n collprof-probe)" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
ok $([ -z "$(squeue -h -n collprof-probe)" ]; echo $?) "... and its job is gone (srun cancelled it)"
plugstack "collprof=$fake"
as_user env $run_env FAKE_PROBE=fail srun --collprof=probe -N2 -n2 "$TSIM" --pattern ddp --steps 1 \
    >probe3.out 2>probe3.err
ok $? "a failing probe does not fail the step"
# srun's status for the failed probe step is its own (1 when a task exits 1,
# but another under a loaded cluster): the point is the one line
failed_line="^collprof: job [0-9]*\.0: probe: failed (exit [1-9][0-9]*): "
check "... and costs one line" grep -q "$failed_line" probe3.err
grep -q "$failed_line" probe3.err || sed 's/^/#   stderr: /' probe3.err
plugstack

# ---- the base directory: every component checked (docs/security.md) -------
ATTACKER=cpattack_sl
attacker_added=
if ! id "$ATTACKER" >/dev/null 2>&1; then
    useradd -M -d /nonexistent -s /bin/sh "$ATTACKER" >/dev/null 2>&1 &&
        attacker_added=1
fi
as_attacker() { runuser -u "$ATTACKER" -- "$@"; }
# basedir=/scratch/%u/...: another user takes /scratch/USER before the
# user's first job (a link to a directory of theirs the user can write)
install -d -m 1777 "$BASE/scratch"
install -d -o "$ATTACKER" -m 1777 "$BASE/trap"
as_attacker ln -s "$BASE/trap" "$BASE/scratch/$TEST_USER"
plugstack "basedir=$BASE/scratch/%u/collprof"
as_user env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >take.out 2>take.err
ok $? "basedir takeover (another user's link at /scratch/USER): the step runs (exit 0)"
check "... the link refused, naming it" \
    grep -q "$BASE/scratch/$TEST_USER is a symbolic link of uid $(id -u "$ATTACKER"), neither root nor the job's user" take.err
check "... nothing made where it points" test -z "$(ls -A "$BASE/trap")"
rm -f "$BASE/scratch/$TEST_USER"
# a world-writable component that is not sticky: anyone could swap its
# entries later
install -d -m 777 "$BASE/open"
chmod 777 "$BASE/open"
plugstack "basedir=$BASE/open/%u"
as_user env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >open.out 2>open.err
ok $? "a world-writable, not sticky component: the step runs (exit 0)"
check "... refused, naming it" grep -q "$BASE/open is writable by other users and not sticky" open.err
check "... nothing made in it" test -z "$(ls -A "$BASE/open")"
# the swap during the step: under a sticky /scratch, the plugin makes
# /scratch/USER as the user; another user tries to swap it for a link as
# soon as the analysis starts (the fake analyzer flags it and waits)
cat >"$BASE/flagcp.sh" <<EOF
#!/bin/sh
if [ "\$1" = analyze ] && [ "\$2" != --help ]; then
    touch "$BASE/flags/analyzing"
    sleep 3
fi
exec "$fake" "\$@"
EOF
chmod 755 "$BASE/flagcp.sh"
install -d -m 1777 "$BASE/flags"
plugstack "basedir=$BASE/scratch/%u/collprof" "collprof=$BASE/flagcp.sh"
(
    i=0
    while [ ! -e "$BASE/flags/analyzing" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    {
        as_attacker mv "$BASE/scratch/$TEST_USER" "$BASE/scratch/moved" && echo "mv worked"
        as_attacker rm -rf "$BASE/scratch/$TEST_USER" && echo "rm worked"
        as_attacker ln -s "$BASE/trap" "$BASE/scratch/$TEST_USER" && echo "ln worked"
    } >"$BASE/flags/swap.log" 2>&1
) &
swapper=$!
as_user env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >swap.out 2>swap.err
ok $? "the swap during the analysis: the step runs (exit 0)"
wait $swapper
sed 's/^/#   swap: /' "$BASE/flags/swap.log"
check "... the attacker's swap attempts all failed" \
    sh -c "[ -e '$BASE/flags/analyzing' ] && ! grep -q worked '$BASE/flags/swap.log'"
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' swap.err | head -n 1)
check "... the report is in the checked directory" \
    test -s "$BASE/scratch/$TEST_USER/collprof/collprof-$j/report.json"
check "... the base's new parts are the user's, mode 0700" \
    sh -c "[ \"\$(stat -c %U:%a '$BASE/scratch/$TEST_USER' '$BASE/scratch/$TEST_USER/collprof' | sort -u)\" = '$TEST_USER:700' ]"
check "... nothing went where the attacker points" test -z "$(ls -A "$BASE/trap")"

# the user's own link through the attacker's directory (dir= names it): the
# attacker could swap what it leads to at any time, so the link's target is
# walked like the rest of the way and refused
install -d -o "$TEST_USER" -m 700 "$BASE/trap/mine"
as_user ln -s "$BASE/trap/mine" "$BASE/user/via"
plugstack
as_user env $run_env srun --collprof=dir="$BASE/user/via" -N2 -n2 "$TSIM" --pattern ddp --steps 1 \
    >via.out 2>via.err
ok $? "a link of the user's through another user's directory: the step runs (exit 0)"
check "... refused, naming that directory" \
    grep -q "$BASE/trap belongs to uid $(id -u "$ATTACKER"), neither root nor the job's user" via.err
check "... nothing made there" test -z "$(ls -A "$BASE/trap/mine")"
rm -rf "$BASE/trap/mine" "$BASE/user/via"

# the step directory moved away and another put at its path while the
# analysis runs (only the user can: every component is checked): the
# analysis, its report and the verdict stay with the directory checked, by
# its descriptor (by path they would find the new, empty one)
cat >"$BASE/movecp.sh" <<EOF
#!/bin/sh
if [ "\$1" = analyze ] && [ "\$2" != --help ]; then
    d=\$(pwd -P)
    mv "\$d" "\$d.moved" && mkdir -m 700 "\$d" && echo "\$d" >"$BASE/flags/moved"
fi
exec "$fake" "\$@"
EOF
chmod 755 "$BASE/movecp.sh"
rm -f "$BASE/flags/moved" "$BASE/alerts/alert.txt"
plugstack "collprof=$BASE/movecp.sh" "alert=$BASE/alert.sh"
as_user env $run_env srun --collprof -N2 -n2 "$TSIM" --pattern ddp --steps 1 >move.out 2>move.err
ok $? "the step directory swapped during the analysis: the step runs (exit 0)"
sed 's/^/#   stderr: /' move.err
j=$(sed -n 's/^collprof: job \([0-9]*\.0\): .*/\1/p' move.err | head -n 1)
mdir=$steps/collprof-$j
check "... it was swapped" grep -qx "$mdir" "$BASE/flags/moved"
check "... the analysis read the checked directory's 2 logs" \
    grep -qx "logs 2" "$mdir.moved/fake-analyze.txt"
check "... and wrote its report there" test -s "$mdir.moved/report.json"
check "... nothing in the directory now at its path" test -z "$(ls -A "$mdir")"
check "... the hook's severity read from that report (critical)" \
    grep -qx "severity critical" "$BASE/alerts/alert.txt"

# ---- the batch step (batch_step=yes): a fifo, and a step without a directory
# every call of the collprof command, recorded (as the user)
cat >"$BASE/reccp.sh" <<EOF
#!/bin/sh
echo "\$*" >>"$BASE/flags/calls"
exec "$CP_INST/bin/collprof" "\$@"
EOF
chmod 755 "$BASE/reccp.sh"
# a fifo planted as a rank log in the batch step's directory: refused at
# once, the batch step's analysis completes (it would block until
# analyze_timeout and be killed, without a report)
plugstack batch_step=yes analyze_timeout=600
j=$(as_user env $run_env sbatch --parsable --wait --collprof -N1 -n1 -o /dev/null \
    --wrap "SIMNCCL_RANK=0 SIMNCCL_NRANKS=1 $TSIM --pattern ddp --steps 1 && mkfifo \"\$COLLPROF_STEP_DIR/x.cplog\"")
bdir=$steps/collprof-$j.batch
check "a fifo x.cplog in the batch step's directory ($j): it is there" test -p "$bdir/x.cplog"
check "... the batch step's report was written" test -s "$bdir/report.json"
check "... the fifo skipped, said in the slurmd log" \
    grep -q "collprof: job $j\.batch: .*(1 input skipped)" "$BASE"/log/slurmd-n*.log
st=$(squeue -h -j "$j" -o %T 2>/dev/null)
ok $([ -z "$st" ] || [ "$st" = COMPLETED ]; echo $?) "... and the job is not RUNNING (${st:-gone})"
# a batch step that fails before user_init (its output file cannot be
# opened: slurmstepd gives up at the I/O set-up) has no step directory: its
# end runs nothing (never `collprof analyze "" -o ""`)
rm -f "$BASE/flags/calls"
plugstack batch_step=yes "collprof=$BASE/reccp.sh"
j=$(as_user sbatch --parsable --wait --collprof -N1 -n1 -o "$BASE/nonexistent/out" --wrap true)
sed -n "/\[$j\.batch\]/p" "$BASE"/log/slurmd-n*.log | tail -n 5 | sed 's/^/#   slurmd: /'
check "a batch step that fails before user_init ($j): slurmstepd says so" \
    grep -q "IO setup failed" "$BASE"/log/slurmd-n*.log
check "... no step directory" test ! -e "$steps/collprof-$j.batch"
check "... and collprof never ran at its end" test ! -s "$BASE/flags/calls"
# the same recording collprof does run for a batch step that has its
# directory (the check above can fail)
j=$(as_user env $run_env sbatch --parsable --wait --collprof -N1 -n1 -o /dev/null \
    --wrap "SIMNCCL_RANK=0 SIMNCCL_NRANKS=1 $TSIM --pattern ddp --steps 1")
check "... while a batch step with its directory runs 'analyze . -o .' ($j)" \
    grep -qx "analyze . -o ." "$BASE/flags/calls"

plugstack
[ -n "$attacker_added" ] && userdel "$ATTACKER" >/dev/null 2>&1

# ---- plugstack.conf with an unknown key: the plugin refuses to load ---------
plugstack bogus_key=1
srun -n1 true >pk.out 2>pk.err
check "an unknown plugstack key is named on srun's stderr" \
    grep -q "collprof: plugstack.conf: unknown key 'bogus_key'" pk.err
srun --collprof -n1 true >pk2.out 2>pk2.err
ok $([ $? -ne 0 ] && grep -q "unrecognized option '--collprof'" pk2.err; echo $?) \
    "... and srun no longer knows --collprof (not loaded)"
# (on whichever node the step ran: n1 may still be completing the last job)
check "... slurmstepd logs it too" grep -q "collprof: plugstack.conf: unknown key 'bogus_key'" "$BASE"/log/slurmd-n*.log
plugstack "basedir=relative/dir"
srun -n1 true >pk3.out 2>pk3.err
check "basedir=relative/dir is refused, naming it" grep -q "basedir= needs an absolute path" pk3.err
plugstack

done_testing
