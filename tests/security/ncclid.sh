#!/bin/sh
# ncclid.sh - the NCCL unique id that rank 0 of `collprof probe` (and
# bench) publishes for the others, in a directory other users can write
# (mode 1777): another user's file planted at its name is refused by rank 0
# (it never publishes over it) and by the other ranks (they never read it:
# its id would connect them to that user's listener), each with an error
# naming the file and its owner; without a job id the name would be known
# in advance, so such a directory needs COLLPROF_ID_KEY (docs/security.md).
# An id of the user's own left by a run that died is never taken for the
# next run's (its header says when it was published).
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
simrun="$b/tests/simnccl/simrun"
simlib="$b/tests/simnccl/lib"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$simrun" ] && [ -f "$simlib/libnccl.so.2" ] || skip_all "tests/simnccl not built"
attacker cpsec_id
t=$(mktemp -d /tmp/cp-secid-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$t"; drop_attacker' EXIT INT TERM
chmod 755 "$t"
shared="$t/shared"
mkdir -m 1777 "$shared" && chmod 1777 "$shared"
uid=$(id -u "$who")
id=.collprof-probe-ncclid.4242.0
printf 'nodes 2\nintra latency=5us bandwidth=2GB/s\ninter latency=20us bandwidth=25MB/s\n' >"$t/two.topo"

# rank R of 2 alone, as root, job 4242.0, the id in $shared
rank() {
    r=$1; shift
    env SLURM_JOB_ID=4242 SLURM_STEP_ID=0 SIMNCCL_RANK="$r" SIMNCCL_NRANKS=2 \
        LD_LIBRARY_PATH="$simlib" "$@" timeout 60 "$cp" probe -o "$t/out$r" \
        --id-dir "$shared" --id-timeout 3s
}

# another user's id, 128 bytes, planted at the job's id name
as_attacker sh -c "head -c 128 /dev/urandom >'$shared/$id'"
check "... it is the other user's" [ "$(stat -c %u "$shared/$id")" = "$uid" ]
cp "$shared/$id" "$t/planted"

rank 1 >"$t/r1.out" 2>"$t/r1.err"
rc=$?
sed 's/^/#   rank 1: /' "$t/r1.err" | head -n 5
check "rank 1 refuses another user's id file (exit 1)" [ "$rc" -eq 1 ]
check "... at once, naming the file and its owner" \
    grep -q "$shared/$id belongs to uid $uid, not to this user (uid 0): refused as the NCCL id" "$t/r1.err"

rank 0 >"$t/r0.out" 2>"$t/r0.err"
rc=$?
sed 's/^/#   rank 0: /' "$t/r0.err" | head -n 5
check "rank 0 does not publish over another user's id file (exit 1)" [ "$rc" -eq 1 ]
check "... saying whose it is" \
    grep -q "$shared/$id belongs to uid $uid, not to this user (uid 0)" "$t/r0.err"
check_sh "... the planted file unchanged, nothing of rank 0's left" \
    'cmp -s "$shared/$id" "$t/planted" &&
    [ "$(find "$shared" -mindepth 1 -user 0 | wc -l)" -eq 0 ]'
rm -f "$shared/$id"

# a file of the caller's that others may write is refused too
(umask 0 && head -c 128 /dev/urandom >"$shared/$id" && chmod 666 "$shared/$id")
rank 1 >"$t/w1.out" 2>"$t/w1.err"
check "rank 1 refuses its own id file when others may write it" \
    grep -q "$shared/$id is writable by other users (mode 0666): refused as the NCCL id" "$t/w1.err"
rm -f "$shared/$id"

# an id file as rank 0 writes it: magic, published (ns, rank 0's wall
# clock), rank count, pid, host, the 128 bytes of the id
idfile() { # AGE_S NRANKS FILE
    python3 - "$@" <<'PY'
import os, struct, sys, time
age, nranks, path = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hdr = struct.pack("<8sqII64s", b"CPNCID1\n", int((time.time() - age) * 1e9),
                  nranks, 4711, b"oldhost")
with open(path, "wb") as f:
    f.write(hdr + os.urandom(128))
os.chmod(path, 0o600)
PY
}

# the whole probe, 2 ranks, in the shared directory, with an id of our own
# left an hour ago by a run that died: the ranks wait for this run's id
idfile 3600 2 "$shared/$id"
check "... a stale id of ours is at the name" [ -s "$shared/$id" ]
SLURM_JOB_ID=4242 SLURM_STEP_ID=0 "$simrun" -n 2 --nodes 2 --topo "$t/two.topo" \
    --timeout 60 -- "$cp" probe -o "$t/good" --id-dir "$shared" \
    >"$t/good.out" 2>"$t/good.err"
rc=$?
sed 's/^/#   probe: /' "$t/good.err" | head -n 5
check_sh "2 ranks in the shared directory, over a stale id: the probe runs" \
    '[ "$rc" -eq 0 ] && [ -s "$t/good/probe.json" ]'
check "... and removes the id" [ ! -e "$shared/$id" ]

# the stale id alone: rank 1 never takes it, and says so when rank 0 is late
idfile 3600 2 "$shared/$id"
rank 1 >"$t/st1.out" 2>"$t/st1.err"
rc=$?
sed 's/^/#   rank 1: /' "$t/st1.err" | head -n 3
check "rank 1 does not take an id published before its run (exit 1)" [ "$rc" -eq 1 ]
check "... saying only a stale one was there, and whose" \
    grep -q "no NCCL unique id from rank 0 in $shared/$id after 3 s; only a stale one, published 36[0-9][0-9] s before this rank started (pid 4711 on oldhost)" "$t/st1.err"

# an id of ours published seconds ago by another run: rank 1 of this run
# could have taken it, so rank 0 refuses rather than replace it
idfile 1 2 "$shared/$id"
cp "$shared/$id" "$t/recent"
rank 0 >"$t/re0.out" 2>"$t/re0.err"
rc=$?
sed 's/^/#   rank 0: /' "$t/re0.err" | head -n 3
check "rank 0 does not replace a recent id of another run (exit 1)" [ "$rc" -eq 1 ]
check "... naming it, its age and its run, and what to do" \
    grep -q "$shared/$id holds an NCCL id that rank 0 of another run published [1-2].[0-9] s ago (pid 4711 on oldhost, 2 ranks), within the id timeout (3 s).*COLLPROF_RUN_ID" "$t/re0.err"
check "... the file unchanged" cmp -s "$shared/$id" "$t/recent"

# a recent id of a run of another size: two runs share the name
idfile 1 4 "$shared/$id"
rank 1 >"$t/sz1.out" 2>"$t/sz1.err"
check "rank 1 refuses the id of a run of 4 ranks, naming the clash" \
    grep -q "$shared/$id holds the NCCL id of a run of 4 ranks (pid 4711 on oldhost), not of this run's 2" "$t/sz1.err"

# 128 bytes of ours, not written by collprof: refused, never used as an id
head -c 128 /dev/urandom >"$shared/$id"
chmod 600 "$shared/$id"
rank 1 >"$t/raw1.out" 2>"$t/raw1.err"
check "rank 1 refuses a file of 128 bytes that is not an id file" \
    grep -q "$shared/$id holds 128 bytes, not an NCCL id file of collprof" "$t/raw1.err"
rm -f "$shared/$id"

# COLLPROF_RUN_ID names the run without a launcher: part of the name
(unset SLURM_JOB_ID SLURM_STEP_ID TORCHELASTIC_RUN_ID PMIX_NAMESPACE COLLPROF_ID_KEY
 env COLLPROF_RUN_ID=myrun7 SIMNCCL_RANK=1 SIMNCCL_NRANKS=2 \
    LD_LIBRARY_PATH="$simlib" timeout 60 "$cp" probe -o "$t/rid" \
    --id-dir "$shared" --id-timeout 1s >/dev/null 2>"$t/rid.err")
check "COLLPROF_RUN_ID is in the id file's name" \
    grep -q "in $shared/.collprof-probe-ncclid.myrun7 after 1 s" "$t/rid.err"
(unset SLURM_JOB_ID SLURM_STEP_ID TORCHELASTIC_RUN_ID PMIX_NAMESPACE COLLPROF_ID_KEY
 env COLLPROF_RUN_ID=../x SIMNCCL_RANK=1 SIMNCCL_NRANKS=2 \
    LD_LIBRARY_PATH="$simlib" timeout 60 "$cp" probe -o "$t/rid2" \
    --id-dir "$shared" --id-timeout 1s >/dev/null 2>"$t/rid2.err")
check "... one holding a '/' is refused" \
    grep -q "COLLPROF_RUN_ID holds a '/' or starts with '.'" "$t/rid2.err"

# no job id: the name is known in advance
(unset SLURM_JOB_ID SLURM_STEP_ID TORCHELASTIC_RUN_ID PMIX_NAMESPACE COLLPROF_RUN_ID COLLPROF_ID_KEY
 env SIMNCCL_RANK=1 SIMNCCL_NRANKS=2 LD_LIBRARY_PATH="$simlib" timeout 60 \
    "$cp" probe -o "$t/nojob" --id-dir "$shared" --id-timeout 1s \
    >"$t/nojob.out" 2>"$t/nojob.err")
check "no job id, a directory others can write: refused, saying what to do" \
    grep -q "the id directory $shared is writable by other users (mode 1777) and the run has no job id.*COLLPROF_ID_KEY" "$t/nojob.err"
(unset SLURM_JOB_ID SLURM_STEP_ID TORCHELASTIC_RUN_ID PMIX_NAMESPACE COLLPROF_RUN_ID
 COLLPROF_ID_KEY=k3j4h5g6f7d8s9a0q1w2 "$simrun" -n 2 --nodes 2 \
    --topo "$t/two.topo" --timeout 60 -- "$cp" probe -o "$t/key" \
    --id-dir "$shared" >"$t/key.out" 2>"$t/key.err")
rc=$?
sed 's/^/#   probe: /' "$t/key.err" | head -n 5
check_sh "... with COLLPROF_ID_KEY shared by the ranks: the probe runs" \
    '[ "$rc" -eq 0 ] && [ -s "$t/key/probe.json" ]'
(unset SLURM_JOB_ID SLURM_STEP_ID TORCHELASTIC_RUN_ID PMIX_NAMESPACE COLLPROF_RUN_ID
 env COLLPROF_ID_KEY=short SIMNCCL_RANK=1 SIMNCCL_NRANKS=2 \
    LD_LIBRARY_PATH="$simlib" timeout 60 "$cp" probe -o "$t/short" \
    --id-dir "$shared" --id-timeout 1s >/dev/null 2>"$t/short.err")
check "... a key too short to be secret: refused" \
    grep -q "COLLPROF_ID_KEY must be 16 to 64" "$t/short.err"
done_testing
