#!/bin/sh
# matrix.sh - the part of the accuracy matrix (accuracy.py, `make
# accuracy`) that `make check` runs: fsdp on 8 ranks over 4 nodes with a
# node's clock off, a rank without a log and the fabric at a tenth of its
# NICs' rate, and ddp with a clock off and a rank without a log; each
# planted fault named and nothing else warned about.  (Stragglers and slow
# links are judged by the slow-link analysis, which on this loaded 2-core
# machine now and then calls a healthy 3d link slow at 1.3-1.5x: they are in
# `make accuracy`, which reports every such false warning, and tests/links.)
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
[ -x "$b/analyzer/collprof" ] || skip_all "collprof not built"
[ -x "$b/tests/simnccl/simrun" ] || skip_all "tests/simnccl/simrun not built"
[ -x "$b/tests/apps/train_sim" ] || skip_all "tests/apps/train_sim not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
acc="${top_srcdir:-.}/tests/scenarios/accuracy.py"

for cell in "fsdp clock,missing,fabric10" "ddp clock,missing"; do
    set -- $cell
    out=$(top_builddir=$b python3 "$acc" --seeds 1 --patterns "$1" \
        --faults "$2" --quiet 2>&1)
    rc=$?
    echo "$out" | sed 's/^/# /'
    ok $rc "$1 x {$2}: every planted fault named, no false warning"
done
done_testing
