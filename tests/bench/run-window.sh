#!/bin/sh
# run-window.sh - what a window of a long job costs to read (make bench;
# docs/log-format.md, "Sync points"; issue #31 item 1: a window [from, to)
# at no more than the cost of that window).
#
# A long generated job (gen_logs, 64 ranks, CP_BENCH_WINDOW_CALLS calls
# per rank, 1000000 by default: 64 M records, sync points every MiB as
# the shim writes them) read by tests/bench/log_window two ways, for a 1 %
# window in its middle and for the whole span: every record decoded and
# the calls outside the window left out, and from each log's sync point
# before the window up to a call a second past its end.  CPU seconds
# (user + system) and bytes read (/proc/self/io's rchar), and their
# ratios; both ways must find the same calls (log_window fails if not).
#
# Then collprof analyze itself on the job with a sync point every MiB:
# the whole run, and --from/--to for a 1 % window in its middle (the run's
# first call from the logs' prologues, each log read from its sync point
# before the window: docs/analysis.md, "Windows"), CPU seconds and peak
# memory of each (tests/analyze/maxrss), the window's share of the whole's.
set -eu
b=${top_builddir:?}
gen="$b/tests/tools/gen_logs"
win="$b/tests/bench/log_window"
cp="$b/analyzer/collprof"
rss="$b/tests/analyze/maxrss"
calls=${CP_BENCH_WINDOW_CALLS:-1000000}
[ -x "$gen" ] && [ -x "$win" ] || {
    echo "== window: gen_logs or log_window not built, skipped"
    exit 0
}
tmp=$(mktemp -d /tmp/cp-window-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# collprof analyze of the whole job in $tmp/j and of a 1 % window in its
# middle: CPU seconds (the best of 2 runs), peak RSS, calls, records read
# (its variables a_* and w_*, v_*: the loop's own are left alone)
analyze_window() {
    best() { # best CPU of 2 runs of collprof analyze ARGS: "cpu maxrss"
        bc=999 bm=0
        for i in 1 2; do
            "$rss" "$cp" analyze -q -j 1 -o "$tmp/a" "$@" "$tmp/j" \
                >/dev/null 2>"$tmp/rss.out"
            c=$(sed -n 's/^cpu_s //p' "$tmp/rss.out")
            m=$(sed -n 's/^maxrss_kib //p' "$tmp/rss.out")
            bc=$(awk -v x="$c" -v y="$bc" 'BEGIN { print (x < y) ? x : y }')
            [ "$m" -gt "$bm" ] && bm=$m
        done
        echo "$bc $bm"
    }
    set -- $(best)
    w_cpu=$1 w_rss=$2
    w_calls=$(python3 -c "import json; d = json.load(open('$tmp/a/report.json'))['summary']; print(d['calls'], d['records'], int(d['span_s']))")
    set -- $w_calls
    a_calls=$1 a_recs=$2 a_span=$3
    a_from=$((a_span / 2)) a_to=$((a_span / 2 + a_span / 100))
    set -- $(best --from "${a_from}s" --to "${a_to}s")
    v_cpu=$1 v_rss=$2
    set -- $(python3 -c "import json; d = json.load(open('$tmp/a/report.json'))['summary']; print(d['calls'], d['records'], d['window']['logs_from_sync_point'])")
    awk -v c="$a_calls" -v r="$a_recs" -v wc="$w_cpu" -v wm="$w_rss" \
        -v vc="$v_cpu" -v vm="$v_rss" -v c2="$1" -v r2="$2" -v l="$3" \
        -v f="$a_from" -v t="$a_to" 'BEGIN {
        printf "window: collprof analyze, the whole run: %d calls, %d records read, %.2f s CPU, %.0f MiB peak\n", c, r, wc, wm / 1024
        printf "window: collprof analyze --from %ds --to %ds (1 %%): %d calls, %d records read (%d logs from a sync point), %.3f s CPU (%.1f %% of the whole run'"'"'s), %.0f MiB peak\n", f, t, c2, r2, l, vc, (wc > 0 ? 100 * vc / wc : 0), vm / 1024
    }'
}

echo "== window: a 1 % window of a 64-rank job read whole and from its sync points"
# the shim's spacing (1 MiB), then 64 KiB: what is read past the window
# is up to a spacing before it per log, and the calls of the second after
for sb in 1048576 65536; do
    rm -rf "$tmp/j"
    "$gen" -o "$tmp/j" --ranks 64 --ranks-per-node 8 --pattern mixed \
        --calls "$calls" --seed 11 --sync-bytes "$sb" >/dev/null
    du -sb "$tmp/j" | awk -v sb="$sb" '{ printf "window: the job: 64 logs, %.1f MiB, a sync point every %d KiB\n", $1 / 1048576, sb / 1024 }'
    [ "$sb" -eq 1048576 ] && [ -x "$cp" ] && [ -x "$rss" ] && analyze_window
    for w in "0.50 0.51" "0.00 0.01" "0.99 1.00" "0 1"; do
        # the second of two runs: the page cache warm for both ways
        "$win" $w "$tmp"/j/*.cplog >/dev/null
        "$win" $w "$tmp"/j/*.cplog >"$tmp/out"
        awk -v w="$w" -v sb="$sb" '
            /^whole/ { wc = $(NF - 5); wb = $(NF - 2); calls = $2 }
            /^window/ { vc = $(NF - 5); vb = $(NF - 2); recs = $8 }
            END { printf "window [%s) of the span, sync every %d KiB: %d calls; whole %.3f s CPU, %.1f MiB read; from the sync points %.3f s CPU, %.1f MiB read (%d records decoded): %.1f %% of the CPU, %.1f %% of the bytes\n",
                      w, sb / 1024, calls, wc, wb / 1048576, vc, vb / 1048576, recs,
                      (wc > 0 ? 100 * vc / wc : 0), 100 * vb / wb }' "$tmp/out"
    done
done
