#!/bin/sh
# run-links.sh (make bench): precision and recall of slow-link localization
# (docs/analysis.md, "Slow links") on synthetic logs of 64 nodes x 8 GPUs:
# tensor parallelism inside each node, data-parallel rings across D nodes,
# pipeline send/recv between the stages' nodes (tests/tools/gen_logs
# --pattern 3d).  One node pair, picked at random among those the job's
# bandwidth-bound traffic crosses, runs 1.5x to 4x slower; 20 seeds per
# slowdown, and 20 healthy runs.  D = 2: every crossed pair can be told
# apart from the job's calls.  D = 4: a ring's links are crossed by that
# ring alone, so only pipeline pairs can be named; a slow ring link must
# come out as slow_link_candidates listing it (counted as "narrowed").
set -eu
b=${top_builddir:-$(pwd)}
gen=$b/tests/tools/gen_logs
cp=$b/analyzer/collprof
[ -x "$gen" ] && [ -x "$cp" ] || { echo "run-links: build gen_logs and collprof first"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "run-links: no python3"; exit 0; }
tmp=$(mktemp -d /tmp/cp-bench-links-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
SEEDS=${LINKS_BENCH_SEEDS:-20}
echo "== slow-link localization: 64 nodes x 8 GPUs (TP=8 in a node, DP rings, PP pairs), $SEEDS seeds per row"
python3 - "$gen" "$cp" "$tmp" "$SEEDS" <<'PY'
import json, random, subprocess, sys, time
gen, cp, tmp, seeds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
N, T = 64, 8

def crossed(D):
    ring = set()
    for s in range(N // D):
        nodes = [D * s + d for d in range(D)]
        for i in range(D):
            a, b = nodes[i], nodes[(i + 1) % D]
            if a != b:
                ring.add((min(a, b), max(a, b)))
    pp = {(n, n + D) for n in range(N - D)}
    return sorted(ring), sorted(pp)

def run(D, seed, pair, factor):
    logs, out = "%s/logs" % tmp, "%s/out" % tmp
    subprocess.run(["rm", "-rf", logs, out], check=True)
    args = [gen, "-o", logs, "--pattern", "3d", "--ranks", str(N * T),
            "--ranks-per-node", str(T), "--dp-size", str(D), "--steps", "5",
            "--inter-bw", "12.5GB/s", "--intra-bw", "150GB/s",
            "--noise", "0.05", "--seed", str(seed)]
    if pair:
        args += ["--slow-link", "%d,%d=%g" % (pair[0], pair[1], factor)]
    subprocess.run(args, check=True)
    subprocess.run([cp, "analyze", "-q", logs, "-o", out], check=True)
    r = json.load(open(out + "/report.json"))
    named = [tuple(sorted(int(n[1:]) for n in f["nodes"]))
             for f in r["findings"] if f["kind"] == "slow_link"]
    cands = [[tuple(sorted(int(n[1:]) for n in c)) for c in f["evidence"]["candidates"]]
             for f in r["findings"] if f["kind"] == "slow_link_candidates"]
    return named, cands

t0 = time.time()
for D in (2, 4):
    ring, pp = crossed(D)
    pairs = ring + pp
    fp_healthy = 0
    for seed in range(1, seeds + 1):
        named, cands = run(D, seed, None, 1)
        fp_healthy += len(named)
    print("D=%d healthy: %d runs, %d slow_link findings (false positives)" %
          (D, seeds, fp_healthy))
    for factor in (1.5, 2, 3, 4):
        tp = fp = narrowed = runs = ring_runs = 0
        for seed in range(1, seeds + 1):
            rnd = random.Random(seed * 1000 + int(factor * 10) + D)
            pair = rnd.choice(pairs)
            named, cands = run(D, seed, pair, factor)
            runs += 1
            tp += pair in named
            fp += sum(1 for p in named if p != pair)
            if pair in ring and D > 2:
                ring_runs += 1
                narrowed += any(pair in c for c in cands)
        prec = tp / (tp + fp) if tp + fp else 1.0
        line = ("D=%d slowdown %.1fx: recall %d/%d = %.2f, precision %.2f "
                "(%d false positives)" % (D, factor, tp, runs, tp / runs, prec, fp))
        if D > 2:
            line += "; ring links (not separable) narrowed to candidates %d/%d" % (
                narrowed, ring_runs)
        print(line)
print("(%.0f s)" % (time.time() - t0))
PY
