#!/bin/sh
# cluster.sh - a real Slurm cluster of 4 emulated nodes on this machine, for
# the SPANK plugin's tests and the demo (recipe: notes/slurm-test-cluster.md).
#
#   cluster.sh check                  exit 77 with the reason when it cannot run
#   cluster.sh start BASE [KEY=VAL...] build BASE, write /etc/slurm, start munged
#                                     (unless one answers), slurmctld, slurmd n1..n4
#   cluster.sh plugstack BASE [KEY=VAL...]  rewrite the collprof plugstack line
#   cluster.sh stop BASE              stop every daemon started, by PID; restore
#                                     /etc/slurm; remove the test user if added
#   cluster.sh logs BASE              print the tails of the Slurm logs
#
# Needs top_builddir (the build tree).  Everything the cluster runs is copied
# into BASE/inst so that a rebuild never replaces a .so a daemon has loaded
# and so that a non-root test user can read it.  BASE/env holds the variables
# a test needs (sourceable).  One cluster at a time on a machine (ports and
# /etc/slurm are global): `start` waits for the lock directory LOCK, owned by
# the calling process (a lock whose owner is gone is taken over), and `stop`
# releases it.
set -u

LOCK=/run/collprof-slurm-test.lock.d
ETC=/etc/slurm
TEST_USER=cptester

die() { echo "cluster.sh: $*" >&2; exit 1; }

check() {
    [ "$(id -u)" -eq 0 ] || { echo "not root: the cluster needs root"; exit 77; }
    for p in slurmctld slurmd slurmstepd srun sbatch scontrol sinfo munged; do
        command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || {
            echo "Slurm packages missing ($p): apt-get install slurmctld slurmd slurm-client munge"
            exit 77
        }
    done
    for p in runuser useradd userdel timeout squeue scancel; do
        command -v "$p" >/dev/null 2>&1 || { echo "$p missing"; exit 77; }
    done
    exit 0
}

# the collprof plugstack line, with the build's artefacts and KEY=VAL extra
plugstack_line() {
    base=$1; shift
    echo "optional $base/inst/lib/spank_collprof.so basedir=$base/steps" \
        "preload=$base/inst/lib/libcollprof.so collprof=$base/inst/bin/collprof" \
        "nccl_profiler=$base/inst/lib/libcollprof-nccl-profiler.so" "$@"
}

write_plugstack() {
    base=$1; shift
    # write then rename: srun and slurmstepd read it at any time
    printf '%s\n' "$*" >"$ETC/plugstack.conf.tmp.$$" &&
        mv -f "$ETC/plugstack.conf.tmp.$$" "$ETC/plugstack.conf"
}

# backup of /etc/slurm/FILE into BASE/backup (or a note that it was absent)
backup() {
    if [ -e "$ETC/$2" ] || [ -L "$ETC/$2" ]; then
        cp -a "$ETC/$2" "$1/backup/$2" || die "cannot back up $ETC/$2"
    else
        : >"$1/backup/$2.absent"
    fi
}

restore() {
    if [ -f "$1/backup/$2.absent" ]; then
        rm -f "$ETC/$2"
    elif [ -e "$1/backup/$2" ] || [ -L "$1/backup/$2" ]; then
        cp -a "$1/backup/$2" "$ETC/$2.restore.$$" && mv -f "$ETC/$2.restore.$$" "$ETC/$2"
    fi
}

copy_artefacts() {
    base=$1
    b=${top_builddir:?top_builddir not set}
    install -d -m 755 "$base/inst/lib/simnccl" "$base/inst/bin" || return 1
    # plugin, shim, analyzer: what plugstack.conf points to
    cp "$b/plugin/.libs/spank_collprof.so" "$base/inst/lib/" &&
        cp "$b/preload/.libs/libcollprof.so" "$base/inst/lib/" &&
        cp "$b/analyzer/collprof" "$base/inst/bin/" || return 1
    if [ -f "$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so" ]; then
        cp "$b/nccl-profiler/.libs/libcollprof-nccl-profiler.so" "$base/inst/lib/"
    fi
    if [ -f "$b/tests/apps/train_sim" ]; then
        cp "$b/tests/apps/train_sim" "$base/inst/bin/"
    fi
    if [ -f "$b/tests/simnccl/lib/libnccl.so.2" ]; then
        cp "$b/tests/simnccl/lib/libnccl.so.2" "$base/inst/lib/simnccl/"
    fi
    chmod -R a+rX "$base/inst"
}

write_slurm_conf() {
    base=$1
    host=$(hostname -s 2>/dev/null || hostname)
    cat >"$ETC/slurm.conf.tmp.$$" <<EOF
# written by collprof's tests/slurm/cluster.sh; the original is restored at stop
ClusterName=cptest
SlurmctldHost=$host
AuthType=auth/munge
CredType=cred/munge
SlurmUser=slurm
SlurmdUser=root
SlurmctldPort=6817
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool/%n
SlurmctldPidFile=$base/run/slurmctld.pid
SlurmdPidFile=$base/run/slurmd-%n.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd-%n.log
SlurmdDebug=verbose
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
KillWait=2
InactiveLimit=0
MinJobAge=2
NodeName=n[1-4] NodeHostname=$host NodeAddr=127.0.0.1 Port=17001-17004 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    mv -f "$ETC/slurm.conf.tmp.$$" "$ETC/slurm.conf"
}

# wait up to $1 seconds for command $2... to succeed
wait_for() {
    t=$1; shift
    i=0
    while [ "$i" -lt $((t * 5)) ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
        i=$((i + 1))
    done
    return 1
}

munge_answers() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }

no_jobs() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }

idle_nodes() { [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq 4 ]; }

# the lock: a directory whose file `owner` names the process that started
# the cluster (our caller) and `base` its BASE
take_lock() {
    i=0
    while ! mkdir "$LOCK" 2>/dev/null; do
        owner=$(cat "$LOCK/owner" 2>/dev/null)
        if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
            # its owner died without `stop`: stop what it left, if we can
            old=$(cat "$LOCK/base" 2>/dev/null)
            [ -n "$old" ] && [ -d "$old/pids" ] && (stop "$old")
            rm -rf "$LOCK"
            continue
        fi
        i=$((i + 1))
        [ "$i" -lt 600 ] || return 1
        sleep 1
    done
    echo "$PPID" >"$LOCK/owner"
    echo "$1" >"$LOCK/base"
    echo "$1" >"$1/locked"
}

release_lock() {
    [ -f "$1/locked" ] || return 0
    [ "$(cat "$LOCK/base" 2>/dev/null)" = "$1" ] && rm -rf "$LOCK"
    rm -f "$1/locked"
}

# start a daemon in the foreground mode, stdio to its log; records its PID
start_daemon() {
    base=$1 name=$2; shift 2
    "$@" >>"$base/log/$name.out" 2>&1 </dev/null &
    echo $! >"$base/pids/$name"
}

start() {
    base=$1; shift
    [ -n "$base" ] || die "start: no BASE"
    (check) >/dev/null || die "cannot run: $( (check) )"
    mkdir -p "$base" || die "cannot create $base"
    chmod 755 "$base"
    take_lock "$base" || die "another test cluster has held $LOCK for 10 minutes"
    install -d -m 755 "$base/backup" "$base/pids" "$base/log" "$base/run" \
        "$base/spool" "$base/steps" "$base/ids" || die "cannot create $base/*"
    chmod 1777 "$base/steps" "$base/ids"
    install -d -o slurm -g slurm -m 755 "$base/state"
    for n in n1 n2 n3 n4; do install -d -m 755 "$base/spool/$n"; done
    copy_artefacts "$base" || die "cannot copy the build's artefacts (is it built?)"
    mkdir -p "$ETC"
    backup "$base" slurm.conf
    backup "$base" plugstack.conf
    write_slurm_conf "$base"
    # CP_CLUSTER_PLUGSTACK: the whole plugstack.conf instead of the build's
    # line (tests/pkg/packages.sh: the installed package's snippet)
    write_plugstack "$base" "${CP_CLUSTER_PLUGSTACK:-$(plugstack_line "$base" "$@")}"
    # the test user: a non-root account to run srun as
    if ! id "$TEST_USER" >/dev/null 2>&1; then
        useradd -M -d /nonexistent -s /bin/sh "$TEST_USER" >/dev/null 2>&1 ||
            die "cannot add the test user $TEST_USER"
        : >"$base/user-added"
    fi
    # munge: reuse one that answers (not ours to stop), else start ours
    if ! munge_answers; then
        [ -f /etc/munge/munge.key ] || mungekey --create >/dev/null 2>&1 ||
            die "no /etc/munge/munge.key and mungekey failed"
        install -d -o munge -g munge -m 755 /run/munge "$base/munge"
        runuser -u munge -- /usr/sbin/munged --pid-file="$base/munge/munged.pid" \
            --log-file="$base/munge/munged.log" >"$base/log/munged.out" 2>&1 ||
            die "munged did not start: $(cat "$base/log/munged.out")"
        wait_for 10 test -s "$base/munge/munged.pid" &&
            cp "$base/munge/munged.pid" "$base/pids/munged"
        wait_for 10 munge_answers || die "munged does not answer"
    fi
    start_daemon "$base" slurmctld slurmctld -D -c
    wait_for 30 scontrol ping || die "slurmctld does not answer"
    for n in n1 n2 n3 n4; do
        start_daemon "$base" "slurmd-$n" slurmd -D -N "$n"
    done
    wait_for 60 idle_nodes || die "the 4 nodes are not idle: $(sinfo -N 2>&1)"
    uid=$(id -u "$TEST_USER")
    cat >"$base/env" <<EOF
CLUSTER_BASE='$base'
TEST_USER='$TEST_USER'
TEST_UID='$uid'
CP_INST='$base/inst'
SIMNCCL_LIBDIR='$base/inst/lib/simnccl'
EOF
    return 0
}

# kill the daemon whose PID file is BASE/pids/NAME, TERM then KILL
stop_daemon() {
    f=$1
    pid=$(cat "$f" 2>/dev/null) || return 0
    rm -f "$f"
    case $pid in ''|*[!0-9]*) return 0 ;; esac
    kill -TERM "$pid" 2>/dev/null || return 0
    i=0
    while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do
        sleep 0.2
        i=$((i + 1))
    done
    kill -KILL "$pid" 2>/dev/null
    return 0
}

stop() {
    base=$1
    [ -d "$base/pids" ] || return 0
    if [ -f "$base/pids/slurmctld" ]; then
        # jobs first, so that no slurmstepd outlives its slurmd
        scancel --quiet --user=root 2>/dev/null
        scancel --quiet --user="$TEST_USER" 2>/dev/null
        wait_for 15 no_jobs
    fi
    for n in n1 n2 n3 n4; do stop_daemon "$base/pids/slurmd-$n"; done
    stop_daemon "$base/pids/slurmctld"
    stop_daemon "$base/pids/munged"
    if [ -d "$base/backup" ]; then
        restore "$base" slurm.conf
        restore "$base" plugstack.conf
    fi
    if [ -f "$base/user-added" ]; then
        userdel "$TEST_USER" >/dev/null 2>&1 && rm -f "$base/user-added"
    fi
    release_lock "$base"
    return 0
}

logs() {
    base=$1
    for f in "$base"/log/*.log "$base"/log/*.out; do
        [ -s "$f" ] || continue
        echo "=== $f (last 25 lines)"
        tail -n 25 "$f"
    done
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
check) check ;;
start) start "$@" ;;
stop) stop "$@" ;;
plugstack)
    base=$1; shift
    write_plugstack "$base" "$(plugstack_line "$base" "$@")" ;;
logs) logs "$@" ;;
*) echo "usage: cluster.sh check|start BASE [KEY=VAL...]|plugstack BASE [KEY=VAL...]|stop BASE|logs BASE" >&2
   exit 2 ;;
esac
