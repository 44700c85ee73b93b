#!/bin/sh
# big.sh - a 4096-rank job (gen_logs, 512 nodes) is refused whole with its
# figures and the cuts that fit; --ranks 0-63 with a time cut is a trace
# under 50 MB that passes tracecheck.py against the logs.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
gen_logs=$b/tests/tools/gen_logs
need "$collprof" "$gen_logs"

g=$work/big
"$gen_logs" -o "$g" --ranks 4096 --ranks-per-node 8 --steps 4 \
    --inter-alpha 2us --inter-bw 20GB/s --intra-alpha 1us --intra-bw 100GB/s \
    --gpu >/dev/null
ok $? "4096 ranks written"
"$collprof" trace "$g" -o "$work/all.json.gz" 2>"$work/all.err"
ok $([ $? -eq 1 ]; echo $?) "the whole job: refused (exit 1)"
sed 's/^/# /' "$work/all.err"
check "... with the figures" grep -q "too large for a viewer: 4096 ranks, 1642496 calls, 1642496 device intervals" "$work/all.err"
check "... and the cuts that would fit" grep -q -- "cut it with --ranks 0-[0-9]* (about [0-9]* of the 4096 ranks), --from T --to T spanning at most" "$work/all.err"
check "... and no file" test ! -e "$work/all.json.gz"

"$collprof" trace "$g" -o "$work/cut.json" --ranks 0-63 --from 1s --to 3s 2>"$work/cut.err"
ok $? "--ranks 0-63 --from 1s --to 3s: written"
sed 's/^/# /' "$work/cut.err"
size=$(wc -c <"$work/cut.json")
ok $([ "$size" -lt 50000000 ]; echo $?) "under 50 MB ($size bytes)"
"$collprof" dump --csv "$g" | awk -F, 'NR == 1 || $1 < 64' >"$work/cut.csv"
out=$(python3 "$s/tests/trace/tracecheck.py" "$work/cut.json" "$work/cut.csv" --ranks 0-63)
ok $? "it holds every call of ranks 0-63 in the window, as the logs say ($out)"
done_testing
