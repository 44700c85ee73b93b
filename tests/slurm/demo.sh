#!/bin/sh
# demo.sh - `srun --collprof -N4 -n8` of a simulated training job on a real
# Slurm cluster of 4 emulated nodes started on this machine, whose CPU NCCL
# plants a slow link on a node pair the job's traffic crosses (n2-n4 for
# the 3d pattern, n2-n3 for the others); ends with collprof's verdict (on
# srun's stderr), which names it, and the report's path.  Starts and stops the daemons itself
# (by PID, also on failure or Ctrl-C).  Root only.
#
#   top_builddir=BUILD top_srcdir=SRC sh tests/slurm/demo.sh [OUTDIR [PATTERN]]
#
# OUTDIR (default BUILD/demo-slurm) receives the step directory
# collprof-JOB.0/ with the rank logs and report.json; PATTERN is train_sim's
# (default 3d where train_sim has it, else ddp).
set -u
b=${top_builddir:?top_builddir: the build tree}
s=${top_srcdir:?top_srcdir: the source tree}
cluster=$s/tests/slurm/cluster.sh
out=${1:-$b/demo-slurm}
pattern=${2:-}

why=$(sh "$cluster" check) || { echo "demo: cannot start Slurm here: $why" >&2; exit 1; }
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
base=$(mktemp -d /tmp/cp-slurm-demo-XXXXXX)
chmod 755 "$base"
status=1
finish() {
    sh "$cluster" stop "$base"
    if [ "$status" -ne 0 ]; then
        sh "$cluster" logs "$base" >&2
        echo "demo: the cluster's files are kept in $base" >&2
    else
        rm -rf "$base"
    fi
}
trap finish EXIT
trap 'exit 130' INT TERM HUP

echo "== starting Slurm: slurmctld and slurmd n1..n4 on this machine"
sh "$cluster" start "$base" "basedir=$out" || exit 1
. "$base/env"
tsim=$CP_INST/bin/train_sim
if [ -z "$pattern" ]; then
    pattern=ddp
    "$tsim" --help 2>&1 | grep -qw 3d && pattern=3d
fi
# 3d on 8 ranks over 4 nodes: data-parallel rings n1-n2, n3-n4, pipelines
# n1-n3, n2-n4; the other patterns run rings through n2-n3
slow="n2 n3"
[ "$pattern" = 3d ] && slow="n2 n4"
cat >"$base/slow-link.topo" <<EOF
# four nodes, two ranks each; the network is 25 MB/s, except $slow
nodes 4
intra latency=5us bandwidth=2GB/s
inter latency=20us bandwidth=25MB/s
link $slow bandwidth=6250KB/s
EOF
install -d -m 1777 "$base/ids"
sinfo
echo
echo "== srun --collprof -N4 -n8 train_sim --pattern $pattern"
echo "   (CPU NCCL topology: inter-node links 25 MB/s, link $(echo "$slow" | tr ' ' -) at 6.25 MB/s)"
cd "$out" || exit 1
LD_LIBRARY_PATH=$SIMNCCL_LIBDIR TRAIN_SIM_IDDIR=$base/ids \
    SIMNCCL_TOPO=$base/slow-link.topo \
    srun --collprof -N4 -n8 "$tsim" --pattern "$pattern" --steps 5 --bucket-mb 2
status=$?
dir=$(ls -dt "$out"/collprof-*.0 2>/dev/null | head -n 1)
echo
if [ -n "$dir" ]; then
    # capture=both (the default): the shim's log and the plugin's per rank
    echo "step directory: $dir ($(ls "$dir" | grep '\.cplog$' | grep -v -c '\.nccl\.cplog$') rank logs of the shim, $(ls "$dir" | grep -c '\.nccl\.cplog$') of NCCL's profiler plugin)"
    [ -f "$dir/report.json" ] && echo "report: $dir/report.json"
    [ -f "$dir/report.html" ] && echo "report: $dir/report.html"
fi
echo "== stopping Slurm"
exit $status
