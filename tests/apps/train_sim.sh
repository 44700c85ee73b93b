#!/bin/sh
# train_sim.sh - train_sim on simnccl: every pattern on 8 ranks over 4
# virtual nodes, ddp on 1, 2 and 3 ranks, the half-precision types, the
# --expect files, a planted wrong value, and the usage errors.
#
# SIMRUN overrides the launcher (default: tests/simnccl/simrun of the build).
. "$top_srcdir/tests/tap.sh"

train_sim=$top_builddir/tests/apps/train_sim
simrun=${SIMRUN:-$top_builddir/tests/simnccl/simrun}
simlib=${SIMNCCL_LIB:-$top_builddir/tests/simnccl/lib}

[ -x "$train_sim" ] || skip_all "no $train_sim: make tests/apps/train_sim"
[ -x "$simrun" ] || skip_all "no $simrun: tests/simnccl is not built"

work=$(mktemp -d "${TMPDIR:-/tmp}/train_sim.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# NCCL calls per rank (rank 0 for pp) of 3 steps at 8 ranks with the
# default options: setup 2 + 3 steps + final 1.  collprof's tests count on
# these; change them only with the patterns.
calls_ddp=87    # 28 per step
calls_fsdp=63   # 20 per step
calls_tp=58     # 18 per step, +1 at step 0
calls_moe=66    # 21 per step
calls_pp=57     # 18 per step on the first and last stage, 34 in between
calls_pp6=45    # 6 ranks, 3 stages: 14 per step on the first stage
calls_3d=84     # 27 per step on the first and last stage, 31 in between

# launch N NODES ARGS...: train_sim on N ranks; stdout in $work/out,
# stderr in $work/err, exit status in $rc.
launch() {
    n=$1 nodes=$2
    shift 2
    "$simrun" -n "$n" --nodes "$nodes" --timeout 120 -- "$train_sim" "$@" \
        >"$work/out" 2>"$work/err"
    rc=$?
}

# show_failure: the end of both outputs, as TAP comments.
show_failure() {
    sed -n '1,20s/^/# out: /p' "$work/out"
    sed -n '1,20s/^/# err: /p' "$work/err"
}

# summary_ok PATTERN N STEPS CALLS: the one line rank 0 prints.
summary_ok() {
    grep -qx "train_sim: pattern $1, $2 ranks, $3 steps, $4 NCCL calls per rank, all results correct" \
        "$work/out"
}

# run_ok NAME PATTERN N NODES CALLS ARGS...: exits 0, and prints the summary.
run_ok() {
    name=$1 pattern=$2 n=$3 nodes=$4 calls=$5
    shift 5
    launch "$n" "$nodes" --pattern "$pattern" --steps 3 "$@"
    ok $rc "$name: exit status 0"
    if summary_ok "$pattern" "$n" 3 "$calls"; then ok 0 "$name: summary"
    else ok 1 "$name: summary"; show_failure; fi
}

for pattern in ddp fsdp tp moe pp 3d; do
    eval calls=\$calls_$pattern
    run_ok "$pattern on 8 ranks, 4 nodes" "$pattern" 8 4 "$calls"
done

# train_sim prints nothing but the summary (from the last run above)
check "only the summary on stdout" test "$(wc -l <"$work/out")" -eq 1

run_ok "ddp on 1 rank" ddp 1 1 "$calls_ddp"
run_ok "ddp on 2 ranks, 2 nodes" ddp 2 2 "$calls_ddp"
run_ok "ddp on 3 ranks, 3 nodes" ddp 3 3 "$calls_ddp"
run_ok "fsdp in bfloat16" fsdp 8 4 "$calls_fsdp" --dtype bfloat16
run_ok "tp in float16" tp 8 4 "$calls_tp" --dtype float16
run_ok "pp on 6 ranks, 3 stages" pp 6 3 "$calls_pp6" --pp-stages 3 \
    --dtype bfloat16
run_ok "3d on 16 ranks, 8 nodes" 3d 16 8 "$calls_3d"
run_ok "3d on 8 ranks, 4 nodes, 4 stages" 3d 8 4 "$calls_3d" --pp-stages 4

# 3d: which ranks share a communicator (tp per node, dp across the two
# nodes of a stage, pp along the stages), from the --expect files
mkdir "$work/expect3d"
launch 8 4 --pattern 3d --steps 1 --expect "$work/expect3d/calls.%d.csv"
ok $rc "3d with --expect: exit status 0"
for r in 0 1 2 3 4 5 6 7; do
    awk -F, -v r=$r 'NR > 1 && $5 != "world" { print $5, r }' \
        "$work/expect3d/calls.$r.csv" | sort -u
done | awk '{ m[$1] = m[$1] " " $2 } END { for (c in m) print c ":" m[c] }' |
    sort >"$work/members3d"
cat >"$work/members3d.want" <<'EOF3D'
dp0: 0 2
dp1: 1 3
dp2: 4 6
dp3: 5 7
pp0: 0 4
pp1: 1 5
pp2: 2 6
pp3: 3 7
tp0: 0 1
tp1: 2 3
tp2: 4 5
tp3: 6 7
EOF3D
if cmp -s "$work/members3d" "$work/members3d.want"; then
    ok 0 "3d: tp inside nodes, dp across a stage's nodes, pp along stages"
else
    ok 1 "3d: tp inside nodes, dp across a stage's nodes, pp along stages"
    sed 's/^/# /' "$work/members3d"
fi

# --expect: one CSV per rank, one line per call
mkdir "$work/expect"
launch 8 4 --pattern pp --steps 3 --expect "$work/expect/calls.%d.csv"
ok $rc "pp with --expect: exit status 0"
files=$(ls "$work/expect" | wc -l)
check "--expect wrote 8 files" test "$files" -eq 8
check "--expect header" test "$(head -n 1 "$work/expect/calls.0.csv")" = \
    "op,count,dtype,peer,comm,seq"
check "--expect has a line per call on rank 0" \
    test "$(($(wc -l <"$work/expect/calls.0.csv") - 1))" -eq "$calls_pp"
# the world's calls and sequence numbers agree on every rank
for r in 0 1 2 3 4 5 6 7; do
    grep ',world,' "$work/expect/calls.$r.csv" >"$work/world.$r"
done
same=0
for r in 1 2 3 4 5 6 7; do
    cmp -s "$work/world.0" "$work/world.$r" || same=1
done
ok $same "--expect: the world's collectives agree on all ranks"
# the k-th send from stage a to stage b of pipeline p meets the k-th recv at
# b from a, with the same count (pp<p> holds ranks 4p..4p+3, stage = rank%4)
for r in 0 1 2 3 4 5 6 7; do
    awk -F, -v me=$((r % 4)) '
        $1 == "send" { print $5 ":" me ":" $4 ":" $6 ":" $2 }
        $1 == "recv" { print $5 ":" $4 ":" me ":" $6 ":" $2 >"/dev/stderr" }
    ' "$work/expect/calls.$r.csv" >>"$work/sends" 2>>"$work/recvs"
done
sort "$work/sends" >"$work/sends.sorted"
sort "$work/recvs" >"$work/recvs.sorted"
check "--expect: every send has its recv" \
    cmp -s "$work/sends.sorted" "$work/recvs.sorted"
check "--expect: pp sends were recorded" test -s "$work/sends"

# a planted wrong value is found and named
launch 8 4 --pattern ddp --steps 3 --corrupt
check "--corrupt: exit status 1" test "$rc" -eq 1
if grep -Eq '^train_sim: rank 1 step 0 allreduce bucket0: element 0 is [0-9]+, expected [0-9]+$' "$work/err"
then ok 0 "--corrupt: the wrong element is named"
else ok 1 "--corrupt: the wrong element is named"; show_failure; fi

# usage errors, before any NCCL call (the binary still needs a libnccl)
usage() {
    LD_LIBRARY_PATH=$simlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$train_sim" "$@" >"$work/out" 2>"$work/err"
    rc=$?
}
usage
check "no --pattern: exit status 2" test "$rc" -eq 2
check "no --pattern: says so" grep -q '^train_sim: --pattern is required' \
    "$work/err"
usage --pattern nope
check "unknown pattern: exit status 2" test "$rc" -eq 2
usage --pattern ddp --expect "$work/x.csv"
check "--expect without %d: exit status 2" test "$rc" -eq 2
(unset SIMNCCL_RANK SLURM_PROCID RANK; usage --pattern ddp; exit $rc)
check "no rank in the environment: exit status 1" test $? -eq 1
check "no rank in the environment: says so" \
    grep -q '^train_sim: no rank in the environment' "$work/err"
(
    unset SIMNCCL_RANK SLURM_PROCID SIMNCCL_IDDIR TRAIN_SIM_IDDIR
    export RANK=0 WORLD_SIZE=8
    usage --pattern tp --tp-size 3
    exit $rc
)
check "--tp-size not dividing the ranks: exit status 2" test $? -eq 2
check "--tp-size not dividing the ranks: says so" \
    grep -q '^train_sim: rank 0: --tp-size 3 does not divide the 8 ranks' \
    "$work/err"
(
    unset SIMNCCL_RANK SLURM_PROCID SIMNCCL_IDDIR TRAIN_SIM_IDDIR
    export RANK=0 WORLD_SIZE=1
    usage --pattern ddp
    exit $rc
)
check "no id directory: exit status 1" test $? -eq 1
check "no id directory: says so" \
    grep -q '^train_sim: rank 0: no directory to exchange the NCCL unique id' \
    "$work/err"


# without simrun: RANK/WORLD_SIZE or Slurm's variables, TRAIN_SIM_IDDIR
mkdir "$work/ids"
(
    unset SIMNCCL_RANK SLURM_PROCID SIMNCCL_IDDIR SLURM_JOB_ID SLURM_STEP_ID
    export RANK=0 WORLD_SIZE=1 TRAIN_SIM_IDDIR="$work/ids"
    usage --pattern tp --steps 3
    exit $rc
)
check "one rank without simrun: exit status 0" test $? -eq 0
check "one rank without simrun: summary" summary_ok tp 1 3 "$calls_tp"
check "one rank without simrun: the id file is removed" \
    test ! -e "$work/ids/ncclid"
(
    unset SIMNCCL_RANK SIMNCCL_IDDIR RANK
    export SLURM_NTASKS=2 SLURM_JOB_ID=7 SLURM_STEP_ID=3 \
        TRAIN_SIM_IDDIR="$work/ids" TRAIN_SIM_ID_TIMEOUT=0.5 SLURM_PROCID=1
    usage --pattern ddp
    exit $rc
)
check "a rank without rank 0: exit status 1" test $? -eq 1
check "a rank without rank 0: names the job step's id file" grep -q \
    "^train_sim: rank 1: no NCCL unique id from rank 0 in $work/ids/ncclid.7.3 after 0.5 s" \
    "$work/err"
(
    unset SIMNCCL_RANK SIMNCCL_IDDIR RANK
    export SLURM_NTASKS=2 SLURM_JOB_ID=7 SLURM_STEP_ID=3 \
        TRAIN_SIM_IDDIR="$work/ids"
    export LD_LIBRARY_PATH=$simlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    SLURM_PROCID=1 "$train_sim" --pattern moe --steps 3 \
        >"$work/out.1" 2>"$work/err.1" &
    SLURM_PROCID=0 "$train_sim" --pattern moe --steps 3 \
        >"$work/out" 2>"$work/err"
    rc=$?
    wait $! || rc=1
    exit $rc
)
check "two ranks by Slurm's variables: exit status 0" test $? -eq 0
check "two ranks by Slurm's variables: summary" \
    summary_ok moe 2 3 "$calls_moe"
check "two ranks by Slurm's variables: nothing left in the id folder" \
    test -z "$(ls "$work/ids")"

done_testing
