#!/bin/sh
# matrix.sh - the part of the accuracy matrix (accuracy.py, `make
# accuracy`) that `make check` runs: fsdp on 8 ranks over 4 nodes with a
# node's clock off, a rank without a log and the fabric at a tenth of its
# NICs' rate, ddp with a clock off and a rank without a log, and ddp's one
# ring with a link at 1/2 and at 1/4 (2 seeds: 3 of the 4 links planted are
# crossed; the ring's candidates come from its calls against the NICs' port
# rate, as nothing else in the job crosses its links); each planted fault
# named and nothing else warned about; tp's rank slow inside its calls
# (told from its tensor-parallel partner by its data-parallel ring), pp's
# rank late to its 9 collectives, and tp's fabric at a tenth with no firm
# fit of its one size of inter-node call.  (The other patterns' slow links
# are in `make accuracy`, which reports every false warning, and
# tests/links.)  pp's link at 1/4 (2 seeds, both crossed): the pipeline's
# exchanges between stages on two nodes (each group a send to and a
# receive from one peer) name the link.  tp runs 6 steps, not 3: its data-
# parallel rings meet 2 times a step, and with 6 meetings a loaded machine
# (the rest of `make check` beside it, or 8 busy loops) left the ring's
# evidence too thin to tell the straggler from its partner in 1 run of 12
# (an info "neither tells which"); with 12 meetings 0 of 10.
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
[ -x "$b/analyzer/collprof" ] || skip_all "collprof not built"
[ -x "$b/tests/simnccl/simrun" ] || skip_all "tests/simnccl/simrun not built"
[ -x "$b/tests/apps/train_sim" ] || skip_all "tests/apps/train_sim not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
acc="${top_srcdir:-.}/tests/scenarios/accuracy.py"

for cell in "fsdp clock,missing,fabric10 1 3" "ddp clock,missing 1 3" \
    "ddp slow2,slow4 2 3" "tp straggler,fabric10 1 6" "pp straggler 1 3" \
    "pp slow4 2 3"; do
    set -- $cell
    out=$(top_builddir=$b python3 "$acc" --seeds "$3" --steps "$4" \
        --patterns "$1" --faults "$2" --quiet 2>&1)
    rc=$?
    echo "$out" | sed 's/^/# /'
    ok $rc "$1 x {$2}: every planted fault named, no false warning"
done
done_testing
