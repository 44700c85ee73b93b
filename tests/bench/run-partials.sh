#!/bin/sh
# run-partials.sh - make bench: the distributed analysis (collprof reduce on
# every node, then one merge) against one collprof analyze of the same logs
# (64 ranks x 32768 calls on 8 nodes, gen_logs' mixed pattern, page cache
# warm).  Figures, each from this run: the partials' size against the logs';
# the bytes the merge reads against the bytes one analyze reads (rchar of
# the process); wall of the distributed path (the slowest node's reduce, as
# on a cluster where the nodes reduce at once, plus the merge) against one
# analyze; and the CPU of all the reduces plus the merge against one
# analyze (the work the partials add).  Best of 3 each.
set -eu
b=${top_builddir:-.}
gen=$b/tests/tools/gen_logs
cp=$b/analyzer/collprof
if [ ! -x "$gen" ] || [ ! -x "$cp" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "== partials: skipped (build the check programs: make check; python3)"
    exit 0
fi
tmp=$(mktemp -d /tmp/cp-bench-partials-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "== partials: collprof reduce per node + merge against one analyze (64 ranks x 32768 calls, 8 nodes)"
"$gen" -o "$tmp/logs" --pattern mixed --ranks 64 --ranks-per-node 8 \
    --calls 32768 --noise 0.1 >/dev/null
python3 - "$cp" "$tmp" <<'PY'
import glob, os, resource, subprocess, sys, time
cp, tmp = sys.argv[1:3]
logs = os.path.join(tmp, "logs")

def rchar():
    for line in open("/proc/self/io"):
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0

def run(args):
    """wall s, CPU s, bytes read, of args (a child: its counts come to us
    when it is reaped)"""
    r0, c0 = rchar(), resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    t1 = time.monotonic()
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return t1 - t0, cpu, rchar() - r0

def best(args, prepare=None):
    out = None
    for _ in range(3):
        if prepare:
            prepare()
        x = run(args)
        out = x if out is None or x[0] < out[0] else out
    return out

for p in glob.glob(logs + "/*.cplog"):
    open(p, "rb").read()
nodes = sorted({os.path.basename(p).split(".")[0]
                for p in glob.glob(logs + "/*.cplog")})
one = best([cp, "analyze", "-q", logs, "-o", os.path.join(tmp, "one")])
reduces = [best([cp, "reduce", "-q", "--node", n, logs]) for n in nodes]
aside = os.path.join(tmp, "aside")
os.makedirs(aside)
for p in glob.glob(logs + "/*.cplog"):
    os.rename(p, os.path.join(aside, os.path.basename(p)))
merge = best([cp, "analyze", "-q", logs, "-o", os.path.join(tmp, "merge")])
same = open(os.path.join(tmp, "one", "report.json")).read().replace(aside, logs) \
    == open(os.path.join(tmp, "merge", "report.json")).read()
log_bytes = sum(os.path.getsize(p) for p in glob.glob(aside + "/*.cplog"))
part_bytes = sum(os.path.getsize(p) for p in glob.glob(logs + "/*.cppart"))
slowest = max(r[0] for r in reduces)
print("partials: %d nodes, %.1f MiB of logs -> %.1f MiB of partials (%.2fx the logs)"
      % (len(nodes), log_bytes / 1048576, part_bytes / 1048576,
         part_bytes / log_bytes))
print("partials: bytes read by the merge / by one analyze: %.2fx (%.1f / %.1f MiB)"
      % (merge[2] / one[2], merge[2] / 1048576, one[2] / 1048576))
print("partials: wall, slowest node's reduce + merge / one analyze: %.2fx "
      "(%.3f + %.3f s / %.3f s)" % ((slowest + merge[0]) / one[0], slowest,
                                    merge[0], one[0]))
print("partials: CPU, every reduce + merge / one analyze: %.2fx (%.3f + %.3f s / %.3f s)"
      % ((sum(r[1] for r in reduces) + merge[1]) / one[1],
         sum(r[1] for r in reduces), merge[1], one[1]))
print("partials: CPU, merge alone / one analyze: %.2fx" % (merge[1] / one[1]))
print("partials: report.json of the merge %s that of one analyze"
      % ("is byte-identical to" if same else "DIFFERS from"))
PY

# ---- at scale: many small logs -------------------------------------------
# 4096 ranks on 512 nodes (ddp-large, 1250 calls a rank): the merge of the
# 512 partials against one analyze of the raw logs, -j 1, CPU and peak RSS
# (best of 3 each).  The nodes' reduces run 2 at a time here (a cluster
# runs them at once on every node) and are not timed.
maxrss=$b/tests/analyze/maxrss
if [ -x "$maxrss" ]; then
    echo "== partials at scale: 4096 ranks on 512 nodes, merge of the partials against one analyze of the logs (-j 1)"
    rm -rf "$tmp/logs" "$tmp/aside" "$tmp/one" "$tmp/merge"
    "$gen" -o "$tmp/s" --pattern ddp-large --ranks 4096 --ranks-per-node 8 \
        --calls 1250 >/dev/null
    cat "$tmp"/s/*.cplog >/dev/null
    # best CPU and best peak RSS of 3 runs: "cpu_s kib"
    best3() {
        bc=999 bm=0
        for i in 1 2 3; do
            "$maxrss" "$@" >/dev/null 2>"$tmp/rss.out" || return 1
            c=$(sed -n 's/^cpu_s //p' "$tmp/rss.out")
            m=$(sed -n 's/^maxrss_kib //p' "$tmp/rss.out")
            bc=$(awk -v x="$c" -v y="$bc" 'BEGIN { print (x < y) ? x : y }')
            [ "$bm" -eq 0 ] || [ "$m" -lt "$bm" ] && bm=$m
        done
        echo "$bc $bm"
    }
    raw=$(best3 "$cp" analyze -q -j 1 "$tmp/s" -o "$tmp/s-raw")
    ls "$tmp/s" | sed -n 's/^\([^.]*\)\..*\.cplog$/\1/p' | sort -u |
        xargs -P 2 -I NODE "$cp" reduce -q --node NODE "$tmp/s"
    mkdir "$tmp/s-aside" && mv "$tmp"/s/*.cplog "$tmp/s-aside/"
    merge=$(best3 "$cp" analyze -q -j 1 "$tmp/s" -o "$tmp/s-merge")
    if cmp -s "$tmp/s-raw/report.json" "$tmp/s-merge/report.json"; then
        same="byte-identical"
    else
        same="DIFFERENT"
    fi
    set -- $raw $merge
    awk -v rc="$1" -v rm="$2" -v mc="$3" -v mm="$4" -v n="$(ls "$tmp/s" | wc -l)" \
        -v same="$same" 'BEGIN {
        printf "partials at scale: merge of %d partials %.3f s CPU, peak RSS %.1f MiB; one analyze of the 4096 logs %.3f s CPU, %.1f MiB: %.2fx CPU, %.2fx memory; reports %s\n",
            n, mc, mm / 1024, rc, rm / 1024, mc / rc, mm / rm, same }'
    rm -rf "$tmp/s" "$tmp/s-aside" "$tmp/s-raw" "$tmp/s-merge"
fi
