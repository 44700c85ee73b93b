#!/bin/sh
# run-analyze.sh - make bench: collprof analyze on 8.4M call records
# (64 ranks x 131072 calls, the mixed pattern of tests/tools/gen_logs),
# against `cat` of the same files from the page cache.  Figures: records/s
# (wall and per CPU second), the ratio analyze/cat, and peak RSS at two
# sizes of the same job (it must not grow with the records).  Targets:
# >= 20M records/s on one core, <= 3x the raw read, peak RSS < 256 MiB.
# Times are the best of 3 runs (the machine may be shared).
set -eu
b=${top_builddir:-.}
gen=$b/tests/tools/gen_logs
cp=$b/analyzer/collprof
rss=$b/tests/analyze/maxrss
if [ ! -x "$gen" ] || [ ! -x "$cp" ] || [ ! -x "$rss" ]; then
    echo "== analyze: skipped (build the check programs: make check)"
    exit 0
fi
tmp=$(mktemp -d /tmp/cp-bench-analyze-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== analyze: 64 ranks x 131072 calls (mixed pattern) against cat"
"$gen" -o "$tmp/big" --pattern mixed --ranks 64 --ranks-per-node 8 \
    --calls 131072 --noise 0.1
"$gen" -o "$tmp/quarter" --pattern mixed --ranks 64 --ranks-per-node 8 \
    --calls 32768 --noise 0.1
cat "$tmp"/big/*.cplog >/dev/null   # into the page cache

now() { date +%s%N; }
# best wall seconds and best CPU seconds of N runs of "$@" (under maxrss)
best_of_n() {
    n=$1
    shift
    bw=999 bc=999 bm=0 bu=999
    for i in $(seq "$n"); do
        t0=$(now)
        "$rss" "$@" >/dev/null 2>"$tmp/rss.out"
        t1=$(now)
        w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
        c=$(sed -n 's/^cpu_s //p' "$tmp/rss.out")
        m=$(sed -n 's/^maxrss_kib //p' "$tmp/rss.out")
        u=$(sed -n 's/^user_s //p' "$tmp/rss.out")
        bu=$(awk -v x="$u" -v y="$bu" 'BEGIN { print (x < y) ? x : y }')
        bw=$(awk -v x="$w" -v y="$bw" 'BEGIN { print (x < y) ? x : y }')
        bc=$(awk -v x="$c" -v y="$bc" 'BEGIN { print (x < y) ? x : y }')
        [ "$m" -gt "$bm" ] && bm=$m
    done
    echo "$bw $bc $bm $bu"
}
best_of_3() { best_of_n 3 "$@"; }
best_of_1() { best_of_n 1 "$@"; }
set -- $(best_of_3 sh -c "cat $tmp/big/*.cplog > /dev/null")
cat_wall=$1 cat_cpu=$2
set -- $(best_of_3 "$cp" analyze "$tmp/big" -o "$tmp/out" -q)
an_wall=$1 an_cpu=$2 an_rss=$3
set -- $(best_of_3 "$cp" analyze "$tmp/quarter" -o "$tmp/out-quarter" -q)
q_rss=$3
records=$(sed -n 's/^ *"records": \([0-9]*\),*$/\1/p' "$tmp/out/report.json" | head -n 1)
q_records=$(sed -n 's/^ *"records": \([0-9]*\),*$/\1/p' "$tmp/out-quarter/report.json" | head -n 1)
bytes=$(cat "$tmp"/big/*.cplog | wc -c)
awk -v r="$records" -v by="$bytes" -v aw="$an_wall" -v ac="$an_cpu" \
    -v cw="$cat_wall" -v cc="$cat_cpu" -v m="$an_rss" -v qm="$q_rss" \
    -v qr="$q_records" 'BEGIN {
    printf "analyze: %.1fM records (%.0f MiB) in %.3f s wall, %.3f s CPU: %.1fM records/s wall, %.1fM records/s per CPU second (target >= 20M)\n",
        r / 1e6, by / 1048576, aw, ac, r / aw / 1e6, r / ac / 1e6
    printf "analyze/cat: %.2fx wall, %.2fx CPU (cat %.3f s wall, %.3f s CPU; target <= 3x)\n",
        aw / cw, (cc > 0 ? ac / cc : 0), cw, cc
    printf "analyze peak RSS: %.1f MiB at %.1fM records, %.1f MiB at %.1fM records: ratio %.2f (target < 256 MiB, flat)\n",
        m / 1024, r / 1e6, qm / 1024, qr / 1e6, m / qm
}'

# ---- scale: the same records over more and more ranks ----------------------
# ddp-large (one world communicator, 6 calls a step) with the same total of
# call records (CP_BENCH_SCALE_RECORDS, 5.12M by default) over 64, 1024,
# 4096 and 16384 ranks (8 per node), then 65536 ranks.  Figures per size:
# records per CPU second and per wall second (-j 1, best of 3), peak RSS;
# then the cost per record at 16384 ranks against 64 ranks (target <= 2x),
# the same for user-space CPU alone (what the kernel does per log aside),
# and memory at 65536 ranks (target < 1 GiB); at 64, 4096 and 16384 ranks
# the speed-up of -j 2 against -j 1 (wall, best of 3 each, alternated).
# The logs of one size at a time
# are on disk (up to 600 MB at 65536 ranks).
total=${CP_BENCH_SCALE_RECORDS:-5120000}
echo "== analyze at scale: $total call records (ddp-large) over 64 .. 65536 ranks (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; open-file limit $(ulimit -n))"
: >"$tmp/scale"
for ranks in 64 1024 4096 16384 65536; do
    calls=$((total / ranks))
    rm -rf "$tmp/s"
    "$gen" -o "$tmp/s" --pattern ddp-large --ranks "$ranks" \
        --ranks-per-node 8 --calls "$calls" >/dev/null
    cat "$tmp"/s/*.cplog >/dev/null 2>&1 || find "$tmp/s" -name '*.cplog' -exec cat {} + >/dev/null
    set -- $(best_of_3 "$cp" analyze -j 1 "$tmp/s" -o "$tmp/s-out" -q)
    rec=$(sed -n 's/^ *"records": \([0-9]*\),*$/\1/p' "$tmp/s-out/report.json" | head -n 1)
    an="$1 $2 $3 $4"
    # reading alone: the same logs, the analyzer's buffer sizes, no
    # analysis (best CPU of 3)
    floor=999
    if [ -x "$b/tests/bench/read_floor" ]; then
        for i in 1 2 3; do
            out=$("$b/tests/bench/read_floor" "$tmp/s") || break
            set -- $out
            floor=$(awk -v x="$1" -v y="$floor" 'BEGIN { print (x < y) ? x : y }')
        done
    fi
    echo "$ranks $rec $an $floor" >>"$tmp/scale"
    set -- $an
    awk -v n="$ranks" -v r="$rec" -v w="$1" -v c="$2" -v m="$3" -v f="$floor" 'BEGIN {
        printf "analyze %6d ranks x %6d calls: %.2fM records in %.3f s wall, %.3f s CPU: %.1fM records/s wall, %.1fM records per CPU second; peak RSS %.1f MiB; reading the logs alone %.3f s CPU\n",
            n, r / n, r / 1e6, w, c, r / w / 1e6, r / c / 1e6, m / 1024, f }'
    if [ "$ranks" = 16384 ] && command -v strace >/dev/null 2>&1 &&
        strace -f -c -o "$tmp/strace" "$cp" analyze -j 1 "$tmp/s" -o "$tmp/s-out" -q 2>/dev/null; then
        # system calls per log (one open and check, then preads shared by
        # every pass: docs/analysis.md "What grows with the ranks"; 68
        # before the one check, 16 before the clock pass read only a
        # bounded prefix and the main pass took up its first buffer, 11
        # before the check read the first records with the header (one
        # preadv), the hang pass found the warm-up's end and the kept
        # descriptors were closed together (close_range), 8)
        awk -v n="$ranks" '$NF ~ /^(openat|open|pread64|preadv|read|close|close_range|fcntl|newfstatat|fstat|lseek|fadvise64)$/ {
                c[$NF] = $4 + 0; t += $4 }
            END { printf "analyze -j 1 at %d ranks: %.1f file system calls per log (openat %.1f, preadv %.1f, pread %.1f, read %.1f, fstat %.1f, fcntl %.1f, lseek %.1f, close %.1f, close_range %.1f)\n",
                n, t / n, c["openat"] / n, c["preadv"] / n, c["pread64"] / n, c["read"] / n, c["newfstatat"] / n, c["fcntl"] / n, c["lseek"] / n, c["close"] / n, c["close_range"] / n }' "$tmp/strace"
    fi
    if [ "$ranks" = 64 ] || [ "$ranks" = 4096 ] || [ "$ranks" = 16384 ]; then
        # alternated, so that a change of load meets both alike
        j1=999 j2=999
        for round in 1 2 3; do
            set -- $(best_of_1 "$cp" analyze -j 1 "$tmp/s" -o "$tmp/s-out" -q)
            j1=$(awk -v x="$1" -v y="$j1" 'BEGIN { print (x < y) ? x : y }')
            set -- $(best_of_1 "$cp" analyze -j 2 "$tmp/s" -o "$tmp/s-out" -q)
            j2=$(awk -v x="$1" -v y="$j2" 'BEGIN { print (x < y) ? x : y }')
        done
        set -- "$j2"
        awk -v n="$ranks" -v a="$j1" -v b2="$1" 'BEGIN {
            printf "analyze -j 2 against -j 1 at %d ranks: %.3f s against %.3f s wall: speed-up %.2fx (2 threads; target >= 1.4x on 2 idle cores)\n",
                n, b2, a, a / b2 }'
    fi
done
rm -rf "$tmp/s" "$tmp/s-out"
awk '{ cost[$1] = $4 / $2; wall[$1] = $3 / $2; rss[$1] = $5; user[$1] = $6 / $2
        floor[$1] = $7 / $2; if ($7 < 999) read_alone[$1] = 1 }
END {
    printf "analyze cost per record, 16384 ranks / 64 ranks: %.2fx CPU, %.2fx wall (target <= 2x); 4096 / 64: %.2fx CPU, %.2fx wall\n",
        cost[16384] / cost[64], wall[16384] / wall[64], cost[4096] / cost[64], wall[4096] / wall[64]
    # tests/bench/read_floor: open, fstat and read every log in turns with
    # the analyzer'"'"'s buffer sizes, nothing else
    if (read_alone[64] && read_alone[16384])
        printf "reading the logs alone (no analysis; the analyzer'"'"'s buffer sizes, in turns), CPU per record 16384 ranks / 64 ranks: %.2fx; at 16384 ranks reading alone is %.0f%% of the analysis'"'"'s CPU, and %.2fx the whole 64-rank analysis; the analysis'"'"'s CPU above reading, 16384 / 64: %.2fx\n",
            floor[16384] / floor[64], 100 * floor[16384] / cost[16384],
            floor[16384] / cost[64],
            (cost[16384] - floor[16384]) / (cost[64] - floor[64])
    printf "analyze user-space CPU per record, 16384 ranks / 64 ranks: %.2fx; 4096 / 64: %.2fx (the rest of the CPU is the kernel'"'"'s: system calls and first touches of memory per log)\n",
        user[16384] / user[64], user[4096] / user[64]
    printf "analyze peak RSS at 65536 ranks: %.1f MiB (target < 1024 MiB); at 16384: %.1f MiB; at 64: %.1f MiB\n",
        rss[65536] / 1024, rss[16384] / 1024, rss[64] / 1024
}' "$tmp/scale"

# ---- port snapshots at scale --------------------------------------------
# 65536 ranks on 8192 nodes (ddp-large, 24 calls a rank), then the same
# logs with a start and an end snapshot of 8 InfiniBand ports on every node
# (tests/analyze/mkports.py: 16384 snapshot files, 65536 ports): what the
# port join adds (it once searched every port per port and counted every
# port per pair of ports, and did not finish at this size).
echo "== analyze with port snapshots: 65536 ranks on 8192 nodes, 8 ports a node"
rm -rf "$tmp/p"
"$gen" -o "$tmp/p" --pattern ddp-large --ranks 65536 --ranks-per-node 8 \
    --calls 24 >/dev/null
set -- $(best_of_3 "$cp" analyze -j 1 "$tmp/p" -o "$tmp/p-out" -q)
bare=$1
python3 "${top_srcdir:-.}/tests/analyze/mkports.py" "$tmp/p" 8192
set -- $(best_of_3 "$cp" analyze -j 1 "$tmp/p" -o "$tmp/p-out" -q)
ports=$(python3 -c 'import json,sys; print(sum(len(n["ports"]) for n in json.load(open(sys.argv[1]))["ports"]["nodes"]))' "$tmp/p-out/report.json")
awk -v a="$bare" -v b="$1" -v p="$ports" 'BEGIN {
    printf "analyze 65536 ranks with %d ports of 8192 nodes: %.3f s wall against %.3f s without snapshots (+%.3f s for 16384 snapshot files)\n",
        p, b, a, b - a }'
rm -rf "$tmp/p" "$tmp/p-out"

# Log format 4 against 3: the same records (gen_logs writes both from one
# seed), read and analysed; records per CPU second (best of 3), peak RSS,
# and the reports compared (they must be the same but for the log files'
# sizes).  Target: format 4 read no slower than format 3.
echo "== analyze, log format 4 against 3: the same $total records (ddp-large)"
for ranks in 64 16384; do
    calls=$((total / ranks))
    for f in 3 4; do
        rm -rf "$tmp/f$f"
        "$gen" -o "$tmp/f$f" --format "$f" --pattern ddp-large \
            --ranks "$ranks" --ranks-per-node 8 --calls "$calls" >/dev/null
        cat "$tmp"/f$f/*.cplog >/dev/null 2>&1 ||
            find "$tmp/f$f" -name '*.cplog' -exec cat {} + >/dev/null
        set -- $(best_of_3 "$cp" analyze -j 1 "$tmp/f$f" -o "$tmp/f$f-out" -q)
        eval "cpu$f=\$2 rss$f=\$3"
        eval "bytes$f=\$(du -sb \"$tmp/f$f\" | cut -f1)"
    done
    same=different
    python3 - "$tmp/f3-out/report.json" "$tmp/f4-out/report.json" <<'PY' && same='the same'
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items()
                if k not in ("bytes", "size", "log_bytes", "analyzed_at",
                             "elapsed_s", "cpu_s", "peak_rss_kib", "file",
                             "path", "dir")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
    rec=$(sed -n 's/^ *"records": \([0-9]*\),*$/\1/p' "$tmp/f4-out/report.json" | head -n 1)
    awk -v n="$ranks" -v r="$rec" -v c3="$cpu3" -v c4="$cpu4" -v m3="$rss3" \
        -v m4="$rss4" -v b3="$bytes3" -v b4="$bytes4" -v same="$same" 'BEGIN {
        printf "analyze %5d ranks, format 4: %.1fM records per CPU second against %.1fM in format 3 (%.2fx); peak RSS %.1f against %.1f MiB; logs %.1f MB against %.1f MB; reports %s\n",
            n, r / c4 / 1e6, r / c3 / 1e6, c3 / c4, m4 / 1024, m3 / 1024,
            b4 / 1e6, b3 / 1e6, same }'
    rm -rf "$tmp/f3" "$tmp/f4" "$tmp/f3-out" "$tmp/f4-out"
done
