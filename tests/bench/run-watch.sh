#!/bin/sh
# run-watch.sh - what `collprof watch` costs (make bench; docs/bench.md,
# "What collprof watch costs"; issue #34's cost target: a node's watcher
# keeps up with 1 M calls/s using under 5 % of a core).
#
# 1. A simulated 8-rank job (simrun, train_sim over the CPU NCCL, the
#    shim preloaded by collprof record), runs without and with `collprof
#    watch --interval 1s --metrics FILE` following its directory,
#    alternating: the job's wall time each side (median and range) and
#    their ratio; the watcher's CPU time (wait4 of the watcher: user +
#    system) and per million calls it watched.
# 2. A 1,000-rank job growing in real time (tests/bench/watch_feed: the
#    shim's log code, calls paced by the clock): the logs of one node of
#    8 at 1 M calls/s, one watcher following them (the watcher of each of
#    125 nodes); then all 1,000 logs in one directory and one watcher (a
#    shared step directory) at a total rate this machine's writer
#    sustains, twice (0.1 M and 1 M calls/s) to tell the cost of a look
#    from the cost of a call.  Whether the watcher kept up: the calls its
#    metrics counted (collprof_calls_total summed) against the calls
#    written, after the last call; its most behind during the run.  CPU
#    is measured (user + system), not wall time, so the figures do not
#    depend on the machine's other load; a percent of a core is CPU
#    seconds over the seconds the job wrote.
#
# CP_BENCH_WATCH_RUNS (2) runs of each feed case, CP_BENCH_WATCH_S (10)
# seconds each; CP_BENCH_WATCH_JOBS (3) runs each side of the 8-rank job,
# CP_BENCH_WATCH_STEPS (150) its train_sim steps.
set -eu
b=${top_builddir:?}
cp="$b/analyzer/collprof"
simrun=$b/tests/simnccl/simrun
train_sim=$b/tests/apps/train_sim
feed=$b/tests/bench/watch_feed
runs=${CP_BENCH_WATCH_RUNS:-2}
secs=${CP_BENCH_WATCH_S:-10}
jobs=${CP_BENCH_WATCH_JOBS:-3}
steps=${CP_BENCH_WATCH_STEPS:-150}
for f in "$cp" "$simrun" "$train_sim" "$feed"; do
    [ -x "$f" ] || { echo "== watch: skipped ($f not built)"; exit 0; }
done
python3 -c 'import os; os.waitstatus_to_exitcode' 2>/dev/null ||
    { echo "== watch: skipped (python 3.9 or later needed)"; exit 0; }
t=$(mktemp -d /tmp/cp-bench-watch-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
echo "== watch: what collprof watch costs (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"

# stats FILE COLUMN: "median min max" of a column
stats() {
    sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
        END { printf "%s %s %s\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
# cpu_of OUT CMD...: run CMD, write "cpu_seconds" (user + system from
# wait4) to OUT; CMD's exit status
cpu_of() {
    python3 - "$@" <<'PY'
import os, sys
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write("%.6f\n" % (ru.ru_utime + ru.ru_stime))
sys.exit(os.waitstatus_to_exitcode(status) & 255)
PY
}

# ---- 1. a simulated 8-rank job, without and with the watcher ---------------
# job N with|without: one run; a line "wall_s watcher_cpu_s calls" in
# $t/job.with or $t/job.without
job() {
    d=$t/job$1
    rm -rf "$d"
    mkdir -p "$d"
    start=$(date +%s.%N)
    "$cp" record -q -o "$d/logs" -- "$simrun" -n 8 --nodes 2 -- "$train_sim" \
        --pattern 3d --steps "$steps" --quiet >"$d/out" 2>&1 &
    rec=$!
    if [ "$2" = with ]; then
        cpu_of "$d/cpu" "$cp" watch -q --interval 1s --metrics "$d/job.prom" \
            --exit-with $rec "$d/logs" 2>"$d/watch.err" &
        wpid=$!
    fi
    wait $rec || { echo "  the job failed: $(head -c 300 "$d/out")"; return 1; }
    end=$(date +%s.%N)
    cpu=-1
    if [ "$2" = with ]; then
        wait $wpid || { echo "  the watcher failed: $(head -c 300 "$d/watch.err")"; return 1; }
        cpu=$(cat "$d/cpu")
    fi
    calls=$("$cp" dump --summary "$d"/logs/*.cplog |
        sed -n 's/.*: \([0-9]*\) calls.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
    echo "$start $end $cpu $calls" |
        awk '{ printf "%.3f %.6f %d\n", $2 - $1, $3, $4 }' >>"$t/job.$2"
    rm -rf "$d"
}
: >"$t/job.with"
: >"$t/job.without"
for i in $(seq "$jobs"); do
    job "$i" without
    job "$i" with
done
set -- $(stats "$t/job.without" 1) $(stats "$t/job.with" 1) \
    $(stats "$t/job.with" 2) $(stats "$t/job.with" 3)
awk -v n="$jobs" -v s="$steps" -v bm="$1" -v b0="$2" -v b1="$3" -v wm="$4" \
    -v w0="$5" -v w1="$6" -v cm="$7" -v c0="$8" -v c1="$9" -v calls="${10}" 'BEGIN {
    printf "8-rank job (simrun -n 8 --nodes 2, train_sim --pattern 3d --steps %d, %d calls; %d runs each side, alternating): without the watcher %.2f s (median; %.2f-%.2f), with watch --interval 1s --metrics %.2f s (%.2f-%.2f): ratio %.3f\n",
        s, calls, n, bm, b0, b1, wm, w0, w1, wm / bm
    printf "  the watcher: %.3f s CPU (median; %.3f-%.3f) over the job'"'"'s %.1f s = %.2f %% of a core; %.2f s CPU per million calls watched\n",
        cm, c0, c1, wm, 100 * cm / wm, cm / calls * 1e6 }'

# ---- 2. a 1,000-rank job growing in real time ---------------------------------
# feed NAME ARGS...: $runs runs of watch_feed, one line each in $t/NAME
feed() {
    name=$1
    shift
    : >"$t/$name"
    for i in $(seq "$runs"); do
        rm -rf "$t/feed"
        mkdir "$t/feed"
        "$feed" --duration "$secs" --collprof "$cp" --interval 1s \
            --metrics "$t/feed/m.prom" "$@" "$t/feed/logs" >>"$t/$name"
        rm -rf "$t/feed"
    done
}
# feed_line NAME LABEL: the figures of $t/NAME's runs
feed_line() {
    awk -v label="$2" '
        function r(lo, hi, f) { return lo == hi ? sprintf(f, lo) : sprintf(f "-" f, lo, hi) }
        function lo(k, v) { if (!(k in mn) || v < mn[k]) mn[k] = v }
        function hi(k, v) { if (!(k in mx) || v > mx[k]) mx[k] = v }
        function both(k, v) { lo(k, v); hi(k, v) }
        { logs = $1; rate = $2 / $3
          both("wcpu", $4 / $3 * 100); both("late", $5)
          both("cpu", $6 / $3 * 100); both("per", $6 / $2 * 1e6)
          both("back", $8 / rate); both("up", $9)
          if ($7 != $2 || $9 < 0 || $10 != 0) bad = bad sprintf(" [a run: read %d of %d calls, exit %d]", $7, $2, $10)
          n++ }
        END {
        printf "%s: %d logs at %.2f M calls/s (%d runs of %d s): the watcher %s %% of a core, %s s CPU per million calls; read every call %s s after the last (most behind during the run: %s s of calls)%s; the writer %s %% of a core, at most %s ms behind its schedule\n",
            label, logs, rate / 1e6, n, $3, r(mn["cpu"], mx["cpu"], "%.1f"),
            r(mn["per"], mx["per"], "%.3f"), r(mn["up"], mx["up"], "%.2f"),
            r(mn["back"], mx["back"], "%.2f"),
            bad == "" ? "" : ": DID NOT KEEP UP" bad,
            r(mn["wcpu"], mx["wcpu"], "%.0f"), r(mn["late"], mx["late"], "%.0f") }' "$t/$1"
}
feed node --logs 8 --world 1000 --rate 1000000
feed_line node "1,000 ranks as 125 nodes of 8, one node's watcher (its 8 logs, each with the shim's log thread)"
feed all1 --logs 1000 --world 1000 --rate 100000 --no-log-thread
feed_line all1 "one watcher following all 1,000 logs of one directory (written without log threads: rings of about a second of calls)"
feed all10 --logs 1000 --world 1000 --rate 1000000 --no-log-thread
feed_line all10 "... the same at 10x the rate"
# the cost of a look at a log and of a call, from the two rates (medians):
# cpu = looks x logs x a + calls x c, looks about secs + 2 at 1 s
set -- $(awk '{ print $2, $6 }' "$t/all1" | sort -n -k2 | sed -n "$(( (runs + 1) / 2 ))p") \
    $(awk '{ print $2, $6 }' "$t/all10" | sort -n -k2 | sed -n "$(( (runs + 1) / 2 ))p")
awk -v n1="$1" -v c1="$2" -v n2="$3" -v c2="$4" -v looks="$((secs + 2))" 'BEGIN {
    per = (c2 - c1) / (n2 - n1); fixed = (c1 - per * n1) / (looks * 1000)
    printf "  from the two rates: %.0f ns CPU per call read, %.0f us per log and look (1,000 logs at 1 s: %.1f %% of a core before any call; the whole job at 1 M calls/s per node, 125 M/s, would take one watcher %.1f cores)\n",
        per * 1e9, fixed * 1e6, fixed * 1000 * 100, (125e6 * per + fixed * 1000) }'
exit 0
