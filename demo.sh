#!/bin/sh
# demo.sh - build collprof and record a simulated training run: 8 ranks on
# 4 virtual nodes of the CPU NCCL, DDP-style gradient all-reduces, recorded
# with the shim, then what was captured and what the analyzer makes of it.
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
if "$b/analyzer/collprof" analyze --help >/dev/null 2>&1; then
    echo
    echo "== collprof analyze"
    "$b/analyzer/collprof" analyze "$out/logs" -o "$out/report"
    echo "report: $out/report/report.json"
fi
