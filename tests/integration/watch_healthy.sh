#!/bin/sh
# watch_healthy.sh - healthy runs of every train_sim pattern, 8 ranks on 2
# nodes, watched for 40 s each by one watcher per node (the lead on n1) at
# tight limits (a call in flight past 5 s, a pace slow for 5 s, looks every
# half second): nothing is said, no watch.log is written, both watchers end
# on SIGTERM with exit 0 and leave their node's state whole.
. "$top_srcdir/tests/tap.sh"
work_prefix=cp-watchok
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) missing"

WATCH_S=${COLLPROF_WATCH_HEALTHY_S:-40}
for p in ddp fsdp tp moe pp 3d; do
    d=$work/$p
    mkdir -p "$d/logs"
    # more steps than fit: simrun ends the job after the watch
    "$collprof" record -q -o "$d/logs" -- "$simrun" -n 8 --nodes 2 \
        --timeout $((WATCH_S + 5)) -- "$train_sim" --pattern $p \
        --steps 1000000 --quiet >"$d/rec.out" 2>&1 &
    rec=$!
    timeout --preserve-status -s TERM $WATCH_S "$collprof" watch --node n2 --interval 500ms \
        --hang-after 5s --slow-after 5s "$d/logs" >"$d/n2.out" 2>"$d/n2.err" &
    n2=$!
    timeout --preserve-status -s TERM $WATCH_S "$collprof" watch --node n1 --lead \
        --interval 500ms --hang-after 5s --slow-after 5s "$d/logs" \
        >"$d/out" 2>"$d/err"
    lead_rc=$?
    wait $n2
    n2_rc=$?
    wait $rec
    calls=$(cat "$d"/logs/*.cplog 2>/dev/null | wc -c)
    sed 's/^/#   /' "$d/err" "$d/n2.err" | head -n 5
    # timeout(1) stops each watcher with SIGTERM (its status kept),
    # which the watcher answers with one last look and exit 0
    ok $([ ! -e "$d/logs/watch.log" ] && [ ! -s "$d/err" ] && [ ! -s "$d/n2.err" ]; echo $?) \
        "$p: $WATCH_S s watched, nothing said ($((calls / 1024)) KiB of logs)"
    ok $([ $lead_rc -eq 0 ] && [ $n2_rc -eq 0 ] &&
         tail -n 1 "$d/logs/watch-n2.state" 2>/dev/null | grep -qx end; echo $?) \
        "$p: both watchers ended on SIGTERM with exit 0 (lead $lead_rc, n2 $n2_rc), n2's state whole"
done
done_testing
