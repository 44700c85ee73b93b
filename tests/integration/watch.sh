#!/bin/sh
# watch.sh - collprof watch on jobs of the CPU NCCL while they run (simrun,
# train_sim): a rank stuck in its own compute is named within the limit and
# a few seconds, once, as still running outside NCCL; a rank stuck inside a
# call is named as inside it; the alert hook gets the line; a healthy run
# gets nothing; the watcher ends with the job; bad options are one line.
. "$top_srcdir/tests/tap.sh"
work_prefix=cp-watch
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) missing"

HANG_AFTER=3
# job NAME PLANT STEPS: a 4-rank ddp run under simrun, its logs in
# $work/NAME/logs, killed by simrun after 20 s; watched from its start
# (alert hook $work/hook) until it ends (at most 60 s).  Sets w_rc, w_s.
job() {
    d=$work/$1
    mkdir -p "$d/logs"
    printf '%s\n' "$2" >"$d/plant.topo"
    "$collprof" record -q -o "$d/logs" -- "$simrun" -n 4 --nodes 2 \
        --timeout 20 --topo "$d/plant.topo" -- "$train_sim" --pattern ddp \
        --steps "$3" --quiet >"$d/rec.out" 2>&1 &
    rec=$!
    t0=$(date +%s)
    timeout 60 "$collprof" watch --interval 250ms --hang-after ${HANG_AFTER}s \
        --alert "$work/hook" --exit-with $rec "$d/logs" >"$d/out" 2>"$d/err"
    w_rc=$?
    w_s=$(( $(date +%s) - t0 ))
    wait $rec
    sed 's/^/#   /' "$d/err"
}
cat >"$work/hook" <<EOF
#!/bin/sh
printf '%s|%s|%s|%s\n' "\$COLLPROF_WATCH_CAUSE" "\$COLLPROF_WATCH_MESSAGE" \
    "\$COLLPROF_STEP_DIR" "\${HOME:-nohome}" >>"$work/hook.out"
cat >"$work/hook" <<EOF
#!/bin/sh
printf '%s|%s|%s|%s\n' "\$COLLPROF_WATCH_CAUSE" "\$COLLPROF_WATCH_MESSAGE" \
    "\$COLLPROF_STEP_DIR" "\${HOME:-nohome}" >>"$work/hook.out"
EOF
chmod 755 "$work/hook"

# ---- a rank stuck in its own compute before collective 10 ------------------
job compute "hang rank=1 after=10" 2
ok $([ $w_rc -eq 0 ]; echo $?) "watch ends with the job, exit 0 ($w_rc after $w_s s)"
log=$work/compute/logs/watch.log
n=$(grep -c 'HUNG' "$log" 2>/dev/null)
ok $([ "${n:-0}" -eq 1 ]; echo $?) "watch.log: the hang, once (${n:-0} lines)"
grep -q 'collprof watch: HUNG in allreduce seq 10 on world: rank 1 (n1) never arrived (last seen leaving allreduce seq 9 on world at [0-9:]*; still running outside NCCL)' "$log"
ok $? "... rank 1 named, never arrived, still running outside NCCL"
grep -q 'collprof watch: HUNG' "$work/compute/err"
ok $? "... and said on stderr"
# within the limit and 10 s of the hang: the line's time against the last
# call's end that the line quotes
python3 - "$log" <<'PY'
import re, sys, datetime
line = open(sys.argv[1]).read().splitlines()[0]
said = datetime.datetime.strptime(line[:20], "%Y-%m-%dT%H:%M:%SZ")
left = re.search(r"at (\d\d):(\d\d):(\d\d)", line).groups()
left = said.replace(hour=int(left[0]), minute=int(left[1]), second=int(left[2]))
lag = (said - left).total_seconds() % 86400
print("#   named %.0f s after rank 1 left its last call" % lag)
sys.exit(0 if lag <= 3 + 10 else 1)
PY
ok $? "... within hang_after + 10 s of the hang"
grep -q "^hang|collprof watch: HUNG in allreduce seq 10 on world: rank 1 (n1).*|$work/compute/logs|nohome\$" "$work/hook.out" 2>/dev/null &&
    [ "$(wc -l <"$work/hook.out")" -eq 1 ]
ok $? "the alert hook ran once: cause, message, step directory, a clean environment"

# ---- a rank stuck inside a call ----------------------------------------------
job inside "hang rank=2 in=allreduce after=10" 2
grep -q 'HUNG in allreduce seq 11 on world: rank 2 (n2) never arrived (inside allreduce seq 10 on world)' \
    "$work/inside/logs/watch.log" 2>/dev/null
ok $? "a rank stuck inside allreduce 10: named as inside it ($(cat "$work/inside/logs/watch.log" 2>/dev/null))"
ok $([ $w_rc -eq 0 ]; echo $?) "... watch exit 0 ($w_rc)"

# ---- a healthy run ------------------------------------------------------------
job healthy "" 20
ok $([ $w_rc -eq 0 ] && [ ! -e "$work/healthy/logs/watch.log" ] &&
     [ ! -s "$work/healthy/err" ]; echo $?) \
    "a healthy run: no watch.log, nothing said, exit 0 ($w_rc after $w_s s)"
"$collprof" watch --once "$work/healthy/logs" >"$work/once.out" 2>&1
ok $([ $? -eq 0 ] && [ ! -s "$work/once.out" ]; echo $?) "--once on its finished logs: exit 0, silent"

# ---- usage --------------------------------------------------------------------
"$collprof" watch --interval 5 "$work" >/dev/null 2>"$work/u1"
ok $([ $? -eq 2 ] && [ "$(wc -l <"$work/u1")" -eq 1 ] &&
     grep -q -- '--interval' "$work/u1"; echo $?) "--interval 5: exit 2, one line naming it"
"$collprof" watch --alert hook "$work" >/dev/null 2>"$work/u2"
ok $([ $? -eq 2 ] && grep -q 'absolute path' "$work/u2"; echo $?) "--alert relative: exit 2, asks for an absolute path"
"$collprof" watch --help | grep -q 'usage: collprof watch'
ok $? "--help"
done_testing
