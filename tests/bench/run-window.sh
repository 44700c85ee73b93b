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
set -eu
b=${top_builddir:?}
gen="$b/tests/tools/gen_logs"
win="$b/tests/bench/log_window"
calls=${CP_BENCH_WINDOW_CALLS:-1000000}
[ -x "$gen" ] && [ -x "$win" ] || {
    echo "== window: gen_logs or log_window not built, skipped"
    exit 0
}
tmp=$(mktemp -d /tmp/cp-window-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== window: a 1 % window of a 64-rank job read whole and from its sync points"
# the shim's spacing (1 MiB), then 64 KiB: what is read past the window
# is up to a spacing before it per log, and the calls of the second after
for sb in 1048576 65536; do
    rm -rf "$tmp/j"
    "$gen" -o "$tmp/j" --ranks 64 --ranks-per-node 8 --pattern mixed \
        --calls "$calls" --seed 11 --sync-bytes "$sb" >/dev/null
    du -sb "$tmp/j" | awk -v sb="$sb" '{ printf "window: the job: 64 logs, %.1f MiB, a sync point every %d KiB\n", $1 / 1048576, sb / 1024 }'
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
