#!/bin/sh
# clock.sh - clock offsets: jobs on the CPU NCCL, whose nodes share the
# machine's clock, get no clock_offset finding and no correction; a node
# whose clock is planted ahead or behind (topology `clock NODE offset=T`,
# tests/simnccl/README.md) is named, with the planted offset inside the
# bounds the order of the calls gives (docs/analysis.md, "Clock offsets").
. "${top_srcdir:-.}/tests/tap.sh"
t=$(mktemp -d /tmp/cp-clock-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
. "${top_srcdir:-.}/tests/scenarios/lib.sh"

for p in fsdp ddp 3d; do
    scenario shared-$p 8 4 "" --pattern $p --steps 3
    ok $? "$p on 8 ranks, 4 nodes sharing one clock: recorded and analyzed"
    point shared-$p none=clock_offset noline="clock of node"
    python3 - "$t/shared-$p.out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [n for n in r["clock_offsets"]["nodes"]
       if n["offset_s"] != 0 or n["significant"]
       or not (n["low_s"] <= 0 <= n["high_s"])]
sys.exit(1 if bad else 0)
PY
    ok $? "$p: every node's bounds hold 0 and no time was shifted"
done

# 6 ms, as the accuracy matrix plants (tests/scenarios/accuracy.py): on a
# loaded machine the bounds the order of fsdp's calls gives n3 were seen
# 4.3-4.8 ms wide (e.g. [-0.26, 4.5] ms around a planted 2 ms), and an
# offset inside them is rightly not reported
scenario ahead-fsdp 8 4 "clock n3 offset=6ms" --pattern fsdp --steps 3
ok $? "fsdp with n3's clock 6 ms ahead: recorded and analyzed"
point ahead-fsdp find=clock_offset:n3 offset=n3:0.006:0.003 \
    offset=n2:0:0 offset=n4:0:0

scenario behind-ddp 8 4 "clock n2 offset=-5ms" --pattern ddp --steps 3
ok $? "ddp with n2's clock 5 ms behind: recorded and analyzed"
point behind-ddp find=clock_offset:n2 offset=n2:-0.005:0.003 offset=n3:0:0

done_testing
