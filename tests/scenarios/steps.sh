#!/bin/sh
# steps.sh - the training steps collprof analyze counts (the figure every
# "per step" saving is divided by) for every train_sim pattern on 4 ranks
# over 2 nodes and 8 over 4, 3 steps each (docs/analysis.md, "Steps"); the
# nodes share one clock, so no clock_offset either; advice to fuse calls
# only where it gains (1 % of the run and 1 ms per step), only for
# data-parallel gradient all-reduces, counting concurrent replicas once,
# and never by a fit resting on single calls.
. "${top_srcdir:-.}/tests/tap.sh"
t=$(mktemp -d /tmp/cp-steps-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
. "${top_srcdir:-.}/tests/scenarios/lib.sh"

for p in ddp fsdp tp moe pp 3d; do
    for nk in "4 2" "8 4"; do
        set -- $nk
        scenario $p-$1 "$1" "$2" "" --pattern $p --steps 3
        ok $? "$p on $1 ranks over $2 nodes: recorded and analyzed"
        point $p-$1 steps=3 none=clock_offset gains
        case $p in
        tp|pp|fsdp) # their all-reduces are tensor-parallel activations,
            # a few big gradient buckets, or one loss value: nothing to fuse
            point $p-$1 none=latency_bound ;;
        esac
        case $p-$1 in
        tp-8) # the line between nodes rests on two groups of 12 calls (the
            # gradient buckets) and the world's first calls, one each: a
            # weak fit, whatever the load makes of those single calls (a
            # firm one on a 10 ms first reduce advised fusing the buckets)
            point $p-$1 "weak=inter:size groups used" ;;
        3d) # its data-parallel gradient all-reduces run on one
            # communicator per pipeline/tensor position, side by side: a
            # bucket advice ('gains' above checks what it claims) saves
            # their shared time once
            point $p-$1 once ;;
        esac
    done
done

done_testing
