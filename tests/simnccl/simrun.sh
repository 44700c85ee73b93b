#!/bin/sh
# simrun.sh - the launcher: environment of the ranks, failure reporting,
# teardown, timeout, signal forwarding, and no process left behind.
. "${top_srcdir:-.}/tests/tap.sh"
bin="${top_builddir:-.}/tests/simnccl"
simrun="$bin/simrun"
[ -x "$simrun" ] || skip_all "simrun not built"
unset SIMNCCL_TOPO SIMNCCL_LIBDIR
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# all_gone DIR: every pid recorded in DIR/pid.* has exited
all_gone() {
    for f in "$1"/pid.*; do
        [ -e "$f" ] || continue
        if kill -0 "$(cat "$f")" 2>/dev/null; then
            diag "process $(cat "$f") ($f) still running"
            return 1
        fi
    done
    return 0
}

"$simrun" --help >"$tmp/out" 2>&1
ok $? "--help exits 0"
grep -q "usage: simrun -n N" "$tmp/out"
ok $? "--help prints the usage"
"$simrun" >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "no arguments: exit 2"
"$simrun" -n 2 --nodes 3 true >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "3 nodes for 2 ranks" "$tmp/err"
ok $? "more nodes than ranks refused"

# Environment: 8 ranks on 4 nodes.
LD_LIBRARY_PATH=/opt/keep "$simrun" -n 8 --nodes 4 -- sh -c 'echo \
"$SIMNCCL_RANK $SIMNCCL_NRANKS $SIMNCCL_LOCAL_RANK $SIMNCCL_NODE \
$SIMNCCL_NNODES $RANK $WORLD_SIZE $LOCAL_RANK $COLLPROF_NODE \
$SIMNCCL_LOCAL_SIZE $LOCAL_WORLD_SIZE"; echo "$SIMNCCL_IDDIR" >>"$0/iddirs"; \
[ -d "$SIMNCCL_IDDIR" ] || echo "missing $SIMNCCL_IDDIR"; \
echo "$LD_LIBRARY_PATH" >>"$0/paths"' "$tmp" | sort -n >"$tmp/env"
ok $? "8 ranks run"
cat >"$tmp/want" <<'END'
0 8 0 n1 4 0 8 0 n1 2 2
1 8 1 n1 4 1 8 1 n1 2 2
2 8 0 n2 4 2 8 0 n2 2 2
3 8 1 n2 4 3 8 1 n2 2 2
4 8 0 n3 4 4 8 0 n3 2 2
5 8 1 n3 4 5 8 1 n3 2 2
6 8 0 n4 4 6 8 0 n4 2 2
7 8 1 n4 4 7 8 1 n4 2 2
END
cmp -s "$tmp/env" "$tmp/want"
ok $? "rank, local rank and node of every rank (blocks of 2 per node)"
[ $? -eq 0 ] || sed 's/^/#   /' "$tmp/env"
[ "$(sort -u "$tmp/iddirs" | wc -l)" -eq 1 ]
ok $? "one SIMNCCL_IDDIR shared by the ranks"
[ ! -e "$(head -1 "$tmp/iddirs")" ]
ok $? "SIMNCCL_IDDIR removed at the end"
libdir=$(cd "$bin/lib" 2>/dev/null && pwd -P)
[ "$(sort -u "$tmp/paths")" = "$libdir:/opt/keep" ]
ok $? "LD_LIBRARY_PATH starts with the simnccl lib dir, keeps the rest"
out=$(SIMNCCL_LIBDIR=/x/y "$simrun" -n 1 sh -c 'echo "$LD_LIBRARY_PATH"' |
    cut -d: -f1)
[ "$out" = /x/y ]
ok $? "SIMNCCL_LIBDIR overrides the lib dir"
out=$("$simrun" -n 3 --nodes 2 sh -c 'echo "$SIMNCCL_RANK:$SIMNCCL_NODE"' |
    sort | tr '\n' ' ')
[ "$out" = "0:n1 1:n1 2:n2 " ]
ok $? "3 ranks on 2 nodes: $out"

# Topology: checked before launching, passed as an absolute path.
printf 'nodes 2\ninter latency=1ms\n' >"$tmp/good.topo"
out=$(cd "$tmp" && "$simrun" -n 2 --topo good.topo sh -c \
    'echo "$SIMNCCL_NODE $SIMNCCL_TOPO"' | sort | tr '\n' ' ')
[ "$out" = "n1 $tmp/good.topo n2 $tmp/good.topo " ] ||
    [ "$out" = "n1 $(cd "$tmp" && pwd -P)/good.topo n2 $(cd "$tmp" && pwd -P)/good.topo " ]
ok $? "--topo: absolute SIMNCCL_TOPO, nodes from the file ($out)"
printf 'nodes 2\nlink n1 n2 bandwidth=fast\n' >"$tmp/bad.topo"
"$simrun" -n 2 --topo "$tmp/bad.topo" sh -c 'touch "$0/started"' "$tmp" \
    2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && [ ! -e "$tmp/started" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q "bad.topo:2: bad value 'fast' for key 'bandwidth'" "$tmp/err"
ok $? "a bad topology is one error naming file:line, and no rank starts"
[ $? -eq 0 ] || sed 's/^/#   /' "$tmp/err"

# A failing rank: named once, the others stopped, simrun exits with its
# status, nothing left running.
mkdir "$tmp/fail"
start=$(date +%s)
"$simrun" -n 3 -- sh -c 'echo $$ >"$0/pid.$SIMNCCL_RANK"
if [ "$SIMNCCL_RANK" = 1 ]; then sleep 0.3; exit 3; fi; exec sleep 30' \
    "$tmp/fail" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ]
ok $? "a rank exiting with 3 makes simrun exit 3 (got $rc)"
[ "$(grep -c 'rank 1 (node n1) exited with status 3' "$tmp/err")" -eq 1 ]
ok $? "the failed rank is named once"
[ $? -eq 0 ] || sed 's/^/#   /' "$tmp/err"
[ $(( $(date +%s) - start )) -lt 10 ]
ok $? "the others were stopped at once"
all_gone "$tmp/fail"
ok $? "no rank left running"

mkdir "$tmp/kill"
"$simrun" -n 3 -- sh -c 'echo $$ >"$0/pid.$SIMNCCL_RANK"
if [ "$SIMNCCL_RANK" = 2 ]; then sleep 0.3; kill -9 $$; fi; exec sleep 30' \
    "$tmp/kill" 2>"$tmp/err"
rc=$?
[ $rc -eq 137 ] && grep -q 'rank 2 (node n1) killed by signal 9' "$tmp/err"
ok $? "a killed rank is reported by signal, simrun exits 137 (got $rc)"
all_gone "$tmp/kill"
ok $? "no rank left running"

# --timeout ends a hung job, even ranks that ignore SIGTERM (and their
# children).
mkdir "$tmp/hang"
start=$(date +%s)
"$simrun" -n 2 --timeout 1 -- sh -c 'trap "" TERM; sleep 30 &
echo $! >"$0/pid.child.$SIMNCCL_RANK"; echo $$ >"$0/pid.$SIMNCCL_RANK"; wait' \
    "$tmp/hang" 2>"$tmp/err"
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -eq 124 ] && grep -q "timeout after 1 s" "$tmp/err"
ok $? "--timeout 1: exit 124 with a message (got $rc)"
[ $took -lt 10 ]
ok $? "hung ranks ignoring SIGTERM are killed after the grace period (${took} s)"
all_gone "$tmp/hang"
ok $? "no rank or child of a rank left running"

# SIGTERM to simrun reaches the ranks.
mkdir "$tmp/term"
"$simrun" -n 2 -- sh -c 'echo $$ >"$0/pid.$SIMNCCL_RANK"; exec sleep 30' \
    "$tmp/term" 2>"$tmp/err" &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -e "$tmp/term/pid.1" ]; do
    sleep 0.05
    i=$((i + 1))
done
sleep 0.1
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ]
ok $? "SIGTERM to simrun: forwarded, exit 143 (got $rc)"
all_gone "$tmp/term"
ok $? "no rank left running"

"$simrun" -n 2 /nonexistent/program 2>"$tmp/err"
rc=$?
[ $rc -eq 127 ] && grep -q "cannot run /nonexistent/program" "$tmp/err"
ok $? "a program that cannot run: exit 127 with a message (got $rc)"
"$simrun" -n 4 --nodes 2 true 2>"$tmp/err"
[ $? -eq 0 ] && [ ! -s "$tmp/err" ]
ok $? "a good run exits 0 and says nothing"
done_testing
