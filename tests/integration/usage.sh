#!/bin/sh
# usage.sh - what a new user gets wrong, and the one line they should get
# back: an unknown option or a missing value names it (not the whole
# help); record --timer bogus is refused; analyze --bucket 12 asks for a
# unit; record of a program that never calls NCCL says why that may be;
# train_sim --help explains its patterns; analyze and trace --help show
# the site profile they read by default and whether it is there; record
# names its port snapshots after the job's node (none when no process
# wrote a log), and under the host's own name, saying what the files are
# for, when the logs name several nodes; analyze's verdict says how long
# NCCL was busy on some rank of the run.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$train_sim" "$shim"

for cmd in analyze dump record report ports trace; do
    "$collprof" $cmd --bogus >"$work/out" 2>"$work/err"
    st=$?
    check "$cmd --bogus: exit 2, one line naming the option, nothing on stdout" sh -c \
        "[ $st -eq 2 ] && [ \$(wc -l <'$work/err') -eq 1 ] && [ ! -s '$work/out' ] && grep -qx \"collprof $cmd: unknown option '--bogus' (try collprof $cmd --help)\" '$work/err'"
done
"$collprof" analyze -o 2>"$work/err"
check "analyze -o without a value: says it needs one" \
    grep -qx "collprof analyze: option '-o' needs a value (try collprof analyze --help)" "$work/err"

"$collprof" record -o "$work/t" --timer bogus -- true 2>"$work/err"
ok $([ $? -eq 2 ]; echo $?) "record --timer bogus: exit 2"
check "... names the timers" grep -q "collprof record: --timer: 'bogus' is not one of auto, host, event, cupti" "$work/err"
check "... and runs nothing" test ! -e "$work/t"

"$collprof" record -o "$work/none" -- true 2>"$work/err"
ok $? "record -- true: exit 0 (the command's status)"
check "... 0 calls, and a hint that the program may not load NCCL dynamically" sh -c \
    "grep -q '0 NCCL calls from 0 processes' '$work/err' && grep -q 'may not use NCCL, or may link it statically' '$work/err'"
check "... no port snapshot left, and it says why" sh -c \
    "! ls '$work/none'/ports-* >/dev/null 2>&1 && grep -qx 'collprof: no port snapshot kept: no process wrote a log' '$work/err'"

# a one-node job whose ranks call their node n1 (simrun's COLLPROF_NODE):
# the snapshots are n1's, not the host's
if [ -x "$simrun" ]; then
    "$collprof" record -q -o "$work/one" -- "$simrun" -n 2 --nodes 1 \
        --timeout 60 -- "$train_sim" --pattern ddp --steps 1 >/dev/null 2>&1
    ok $? "record of a one-node job"
    host=$(hostname | cut -d. -f1)
    check "... its port snapshots are named after the logs' node n1 (not '$host')" sh -c \
        "[ -f '$work/one/ports-n1-start.json' ] && [ -f '$work/one/ports-n1-end.json' ] && { [ '$host' = n1 ] || ! ls '$work/one'/ports-$host-* >/dev/null 2>&1; }"
    check "... and say so inside" grep -q '"node": "n1"' "$work/one/ports-n1-start.json"

    # two simulated nodes on one host: the snapshots stay under the host's
    # name, and record says what those files are and what they are for
    # (issue 36: it used to say only "kept as ports-vm-*.json")
    "$collprof" record -o "$work/two" -- "$simrun" -n 2 --nodes 2 \
        --timeout 60 -- "$train_sim" --pattern ddp --steps 1 >/dev/null 2>"$work/two.err"
    ok $? "record of a two-node job on one host"
    check "... says the snapshots are the network-port counters read at the run's start and end, and why" sh -c \
        "grep -q \"this host's network-port counters (read at the run's start and end, for the port rate the analysis expects and for ports that degraded or counted errors) are kept under its own name $host, as ports-$host-start.json and ports-$host-end.json\" '$work/two.err'"
    check "... never the bare 'port snapshots are kept as ports-*.json'" sh -c \
        "! grep -q 'port snapshots are kept as' '$work/two.err'"
    "$collprof" analyze "$work/two" -o "$work/two.rep" >"$work/two.out" 2>&1
    ok $? "... analyzed"
    check "... its verdict says how long NCCL was busy on some rank, of the run" \
        grep -qE "NCCL busy on some rank for [0-9.]+ [mun]?s of the [0-9.]+ [mun]?s run" "$work/two.out"
    check "... never 'a call in progress T of the S run'" sh -c \
        "! grep -q 'a call in progress' '$work/two.out'"
fi

# the default profile: its path, as configured, and whether it is there
sysconfdir=$(sed -n 's/^sysconfdir = //p' "$b/Makefile")
prefix=$(sed -n 's/^prefix = //p' "$b/Makefile")
sysconfdir=$(echo "$sysconfdir" | sed "s|\${prefix}|$prefix|")
prof=$sysconfdir/collprof/profile
[ -r "$prof" ] && state=present || state="not present"
for cmd in analyze trace; do
    "$collprof" $cmd --help >"$work/help" 2>&1
    check "$cmd --help shows the default profile it reads and whether it is there ($prof, $state)" \
        grep -qF "$prof ($state)" "$work/help"
done

"$collprof" analyze "$work/none" -o "$work/rep" --bucket 12 2>"$work/err"
ok $([ $? -eq 2 ]; echo $?) "analyze --bucket 12: exit 2"
check "... asks for a unit" grep -q "collprof analyze: --bucket: '12' has no unit: give one, e.g. 12MB or 12MiB" "$work/err"

"$train_sim" --help >"$work/ts" 2>&1
check "train_sim --help explains every pattern" sh -c \
    "for p in ddp fsdp tp moe pp 3d; do grep -qE \"^  \$p +[a-z]\" '$work/ts' || exit 1; done"

# collprof fleet: each verb names a bad option the same way, has its own
# --help, and an option of another verb is refused by name
for verb in ingest links nodes ports export metrics; do
    "$collprof" fleet $verb --bogus >"$work/out" 2>"$work/err"
    st=$?
    check "fleet $verb --bogus: exit 2, one line naming the option" sh -c \
        "[ $st -eq 2 ] && [ \$(wc -l <'$work/err') -eq 1 ] && [ ! -s '$work/out' ] && grep -qx \"collprof fleet $verb: unknown option '--bogus' (try collprof fleet $verb --help)\" '$work/err'"
    "$collprof" fleet $verb --help >"$work/out" 2>&1
    check "fleet $verb --help: its own usage" grep -q "^usage: collprof fleet $verb" "$work/out"
done
"$collprof" fleet links --drain-commands >"$work/out" 2>"$work/err"
ok $([ $? -eq 2 ]; echo $?) "fleet links --drain-commands: exit 2"
check "... names the option as another command's" grep -q "option '--drain-commands' is not one of this command's" "$work/err"
"$collprof" fleet bogus 2>"$work/err"
ok $([ $? -eq 2 ]; echo $?) "fleet bogus: exit 2, naming it"
check "... names the verb" grep -q "unknown command 'bogus'" "$work/err"
"$collprof" --help >"$work/out"
check "collprof --help lists fleet" grep -qE "^  fleet +every job" "$work/out"
done_testing
