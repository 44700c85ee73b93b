# lib.sh - run a train_sim job on the CPU NCCL under collprof record and
# analyze it; sourced by the tests of tests/scenarios after tests/tap.sh.
# Needs: $t (a scratch directory).
b=${top_builddir:-.}
s_cp="$b/analyzer/collprof"
s_simrun="$b/tests/simnccl/simrun"
s_app="$b/tests/apps/train_sim"
s_check="${top_srcdir:-.}/tests/scenarios/verdict.py"
need_sim_job

# scenario NAME RANKS NODES "TOPOLOGY LINES" APP-ARGS...: record NAME's
# job on a 25 MB/s network (plus the lines), take the nodes' port
# snapshots (NO_PORTS=1: none), then analyze it into $t/NAME.out
# ($ANALYZE_ARGS added).  Returns the first failing status.
scenario() {
    name=$1 n=$2 k=$3 extra=$4
    shift 4
    {
        echo "nodes $k"
        echo "intra latency=5us bandwidth=2GB/s"
        echo "inter latency=20us bandwidth=25MB/s"
        printf '%s\n' "$extra"
    } >"$t/$name.topo"
    "$s_cp" record -q -o "$t/$name.logs" -- "$s_simrun" -n "$n" --nodes "$k" \
        --topo "$t/$name.topo" --timeout 300 --sysfs "$t/$name.sysfs" \
        -- "$s_app" "$@" >"$t/$name.record" 2>&1 &&
    snapshots "$name" "$k" &&
    "$s_cp" analyze "$t/$name.logs" -o "$t/$name.out" $ANALYZE_ARGS \
        >"$t/$name.analyze" 2>&1
    rc=$?
    [ $rc -eq 0 ] || sed 's/^/# /' "$t/$name.record" "$t/$name.analyze"
    return $rc
}

# snapshots NAME K: each node's port snapshot, as the plugin takes it on a
# real node, from the stand-in sysfs tree simrun wrote (unless NO_PORTS;
# NIC_RATE replaces the rate the ports say)
snapshots() {
    [ -n "$NO_PORTS" ] && return 0
    if [ -n "$NIC_RATE" ]; then # the NICs promise another rate than the
        # fabric gives (TCP fallback: the traffic does not use them)
        for f in "$t/$1.sysfs"/n*/class/infiniband/simnccl0/ports/1/rate; do
            echo "$NIC_RATE" >"$f" || return 1
        done
    fi
    i=1
    while [ "$i" -le "$2" ]; do
        for when in start end; do
            "$s_cp" ports -o "$t/$1.logs" --when $when --node "n$i" \
                --sysfs "$t/$1.sysfs/n$i" >>"$t/$1.record" 2>&1 || return 1
        done
        i=$((i + 1))
    done
}

# verdict NAME CHECK...: verdict.py's checks on NAME's report.json and
# printed verdict (one TAP point each)
verdict() {
    name=$1
    shift
    python3 "$s_check" "$t/$name.out/report.json" "$t/$name.analyze" "$@"
}

# point NAME CHECK...: verdict's checks as TAP points of the calling script
point() {
    out=$(TAP_START=$((tap_n + 1)) verdict "$@")
    echo "$out"
    tap_n=$((tap_n + $(echo "$out" | grep -c '^[no]')))
    tap_fail=$((tap_fail + $(echo "$out" | grep -c '^not ok')))
}
