# lib.sh - shared set-up of the tests on a real Slurm cluster; source it
# after tests/tap.sh.  Skips (exit 77) when not root or without Slurm;
# starts the cluster of tests/slurm/cluster.sh under a temporary BASE and
# stops every daemon by PID at exit, pass or fail, printing the Slurm logs
# when a test failed.  Defines:
#   BASE, TEST_USER, CP_INST, TSIM (train_sim), run_env (the variables a
#   train_sim step needs), plugstack KEY=VAL..., as_user CMD..., count_lines,
#   shim_logs DIR, plugin_logs DIR
b=${top_builddir:?top_builddir not set (run through make check)}
s=${top_srcdir:?top_srcdir not set}
cluster=$s/tests/slurm/cluster.sh

why=$(sh "$cluster" check) || skip_all "$why"
for f in plugin/.libs/spank_collprof.so preload/.libs/libcollprof.so \
         analyzer/collprof tests/apps/train_sim tests/simnccl/lib/libnccl.so.2; do
    [ -f "$b/$f" ] || skip_all "$f is not built"
done

BASE=$(mktemp -d /tmp/cp-slurm-XXXXXX)
chmod 755 "$BASE"
syslog_pid=""

cluster_cleanup() {
    status=$?
    sh "$cluster" stop "$BASE"
    if [ -n "$syslog_pid" ]; then
        kill "$syslog_pid" 2>/dev/null
        rm -f /dev/log
    fi
    if [ "${tap_fail:-0}" -ne 0 ] || [ "$status" -ne 0 ]; then
        sh "$cluster" logs "$BASE" | sed 's/^/# /'
        echo "# the cluster's files are kept in $BASE"
    else
        rm -rf "$BASE"
    fi
}
trap cluster_cleanup EXIT
trap 'exit 1' INT TERM HUP

if ! sh "$cluster" start "$BASE" >"$BASE/start.log" 2>&1; then
    sed 's/^/# /' "$BASE/start.log"
    ok 1 "the Slurm cluster starts"
    done_testing
    exit 1
fi
. "$BASE/env"
TSIM=$CP_INST/bin/train_sim
install -d -m 1777 "$BASE/ids" "$BASE/tmp"
run_env="LD_LIBRARY_PATH=$SIMNCCL_LIBDIR TRAIN_SIM_IDDIR=$BASE/ids"

# syslog_start: where no syslog daemon listens on /dev/log, a stand-in that
# appends every datagram to $BASE/syslog.txt (stopped by cluster_cleanup
# through $syslog_pid); the checks of syslog lines run only when it started.
syslog_start() {
    [ -e /dev/log ] && return 0
    python3 - "$BASE/syslog.txt" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
os.chmod("/dev/log", 0o666)
with open(sys.argv[1], "a") as f:
    while True:
        f.write(s.recv(65536).decode("utf-8", "replace") + "\n")
        f.flush()
EOF
    syslog_pid=$!
    i=0; while [ ! -S /dev/log ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

plugstack() { sh "$cluster" plugstack "$BASE" "$@"; }

# CMD... as the test user, in the current directory (which it must read)
as_user() { runuser -u "$TEST_USER" -- "$@"; }

# shim_logs DIR, plugin_logs DIR: how many rank logs of the shim
# (NODE.PID.cplog) and of NCCL's profiler plugin (NODE.PID.nccl.cplog) are
# in DIR (capture=both, the default, writes one of each per process)
shim_logs() { ls "$1" 2>/dev/null | grep '\.cplog$' | grep -v -c '\.nccl\.cplog$'; }
plugin_logs() { ls "$1" 2>/dev/null | grep -c '\.nccl\.cplog$'; }

# lines of FILE matching the extended regex RE
count_lines() { grep -c -E -e "$2" "$1" 2>/dev/null || true; }

# The Slurm job id the next submission will get (nothing else runs).
next_job_id() {
    j=$(sbatch --parsable --hold -n1 -o /dev/null --wrap true 2>/dev/null) || return 1
    scancel "$j" 2>/dev/null
    echo $((j + 1))
}
