#!/bin/sh
# demo.sh - build collprof, then
#  1. record a simulated training run (8 ranks on 4 virtual nodes of the CPU
#     NCCL) with `collprof record`, show what was captured and analyze it;
#  2. as root: start a real Slurm cluster of 4 emulated nodes on this
#     machine, run `srun --collprof -N4 -n8` of the same kind of job with a
#     slow link planted between two nodes, print collprof's verdict and the
#     report's path, and stop the daemons.
#   ./demo.sh [PATTERN]    ddp (default), fsdp, tp, moe, pp
set -eu
cd "$(dirname "$0")"
top=$(pwd)
pattern=${1:-ddp}
sh tests/setup-deps.sh
sh tests/build.sh
b=$top/build
out=$top/demo-out
rm -rf "$out"
mkdir -p "$out"
echo
echo "== collprof record: train_sim --pattern $pattern, 8 ranks on 4 nodes"
"$b/analyzer/collprof" record -o "$out/logs" -- \
    "$b/tests/simnccl/simrun" -n 8 --nodes 4 --timeout 300 \
    --topo "$top/tests/integration/four-nodes.topo" -- \
    "$b/tests/apps/train_sim" --pattern "$pattern" --steps 5
echo
echo "== collprof dump --summary (one line per rank)"
"$b/analyzer/collprof" dump --summary "$out/logs"
echo
echo "== the first calls of rank 0, as CSV"
"$b/analyzer/collprof" dump --csv "$out/logs" | head -n 6
echo
echo "== collprof analyze"
"$b/analyzer/collprof" analyze "$out/logs" -o "$out/report"
echo "report: $out/report/report.json and $out/report/report.html"

echo
if [ "$(id -u)" -eq 0 ]; then
    top_builddir=$b top_srcdir=$top sh "$top/tests/slurm/demo.sh" "$out/slurm"
else
    echo "== srun --collprof: skipped (starting a Slurm cluster needs root)"
fi
