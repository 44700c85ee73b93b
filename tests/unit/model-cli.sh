#!/bin/sh
# model-cli.sh - `collprof model` on the lesson's worked examples: the JSON
# keys and values, the text output, and usage errors (exit 2, the message
# names the option).  Needs top_builddir and top_srcdir (set by make check).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/tap.sh"

collprof="$top_builddir/analyzer/collprof"
[ -x "$collprof" ] || skip_all "$collprof is not built"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# jcheck NAME FILE EXPR: one test point, passing when the Python expression
# EXPR is true with d = the JSON object in FILE, and helpers:
#   near(x, y)       relative difference at most 1e-9
#   algo(name)       the entry of d["algorithms"] with that name
#   cross(a, b)      the crossover entry of a and b
#   fmt(f, x)        f % x, to compare with the digits the lesson prints
jcheck() {
    name=$1 file=$2 expr=$3
    if python3 - "$file" "$expr" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def near(x, y, rel=1e-9):
    return x is not None and abs(x - y) <= rel * abs(y)
def algo(name):
    return [a for a in d["algorithms"] if a["name"] == name][0]
def cross(a, b):
    return [c for c in d["crossovers"] if c["a"] == a and c["b"] == b][0]
def fmt(f, x):
    return f % x
try:
    ok = eval(sys.argv[2])
except Exception as e:
    print("# %s: %r" % (sys.argv[2], e))
    ok = False
sys.exit(0 if ok else 1)
EOF
    then ok 0 "$name"; else ok 1 "$name"; fi
}

# usage_error NAME OPTION-TEXT ARGS...: exit 2, one line on stderr that
# starts with "collprof model: " and contains OPTION-TEXT, nothing on stdout
usage_error() {
    name=$1 want=$2
    shift 2
    "$collprof" model "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] &&
        [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q "^collprof model: " "$tmp/err" &&
        grep -qF -- "$want" "$tmp/err"; then
        ok 0 "$name"
    else
        ok 1 "$name"
        diag "rc $rc, stderr: $(cat "$tmp/err")"
    fi
}

flat="--ranks 16 --alpha 10us --bandwidth 50GB/s"

# ---- (b) and (c): p = 16, alpha = 10 us, 50 GB/s ----------------------------
"$collprof" model --op all-reduce $flat --size 1GB --algo ring --json \
    >"$tmp/b1g.json"
ok $? "(b) 1 GB all-reduce, --algo ring, --json runs"
jcheck "the JSON has every documented key" "$tmp/b1g.json" \
    '{"op","ranks","size_bytes","algorithms","best","crossovers","algbw_Bps","busbw_Bps","alpha_s","bandwidth_Bps","regime","algo","time_s","latency_s","bandwidth_s","busbw_factor","lower_bounds","not_applicable"} <= set(d)'
jcheck "op, ranks, size_bytes" "$tmp/b1g.json" \
    'd["op"] == "allreduce" and d["ranks"] == 16 and d["size_bytes"] == 10**9'
jcheck "alpha and bandwidth in SI units" "$tmp/b1g.json" \
    'near(d["alpha_s"], 1e-5) and near(d["bandwidth_Bps"], 50e9) and near(d["beta_s_per_byte"], 2e-11)'
jcheck "every algorithm has name and time_s" "$tmp/b1g.json" \
    'all("name" in a and "time_s" in a for a in d["algorithms"])'
jcheck "(b) ring 1 GB = 37.8 ms" "$tmp/b1g.json" \
    'fmt("%.1f", algo("ring")["time_s"] * 1e3) == "37.8" and near(algo("ring")["time_s"], 0.0378)'
jcheck "(b) recursive doubling 1 GB = 80.04 ms" "$tmp/b1g.json" \
    'fmt("%.2f", algo("recursive_doubling")["time_s"] * 1e3) == "80.04"'
jcheck "(b) n* of ring and recursive doubling = 6.1 MB (12.24 alpha/beta)" \
    "$tmp/b1g.json" \
    'fmt("%.1f", cross("ring", "recursive_doubling")["bytes"] / 1e6) == "6.1" and near(cross("ring", "recursive_doubling")["bytes"], 26 / 2.125 * 5e5)'
jcheck "(b) recursive doubling below n*, ring above" "$tmp/b1g.json" \
    'cross("ring", "recursive_doubling")["faster_below"] == "recursive_doubling" and cross("ring", "recursive_doubling")["faster_above"] == "ring"'
jcheck "crossovers that never happen are null" "$tmp/b1g.json" \
    'cross("ring", "rabenseifner")["bytes"] is None'
jcheck "--algo ring is reported" "$tmp/b1g.json" \
    'd["algo"] == "ring" and near(d["time_s"], 0.0378) and d["regime"] == "bandwidth"'
jcheck "(c) algbw 26.5 GB/s" "$tmp/b1g.json" \
    'fmt("%.1f", d["algbw_Bps"] / 1e9) == "26.5"'
jcheck "(c) busbw 49.6 GB/s, factor 1.875" "$tmp/b1g.json" \
    'fmt("%.1f", d["busbw_Bps"] / 1e9) == "49.6" and d["busbw_factor"] == 1.875'
jcheck "the best at 1 GB is rabenseifner" "$tmp/b1g.json" \
    'd["best"] == "rabenseifner"'
jcheck "hierarchical needs a topology" "$tmp/b1g.json" \
    '[x["name"] for x in d["not_applicable"]] == ["hierarchical"] and "topology" in d["not_applicable"][0]["reason"]'
jcheck "lower bounds: lg p alpha and 2(p-1)/p n beta" "$tmp/b1g.json" \
    'near(d["lower_bounds"]["latency_s"], 40e-6) and near(d["lower_bounds"]["bandwidth_s"], 0.0375)'

"$collprof" model --op all_reduce $flat --size 1MB --json >"$tmp/b1m.json"
ok $? "(b) 1 MB all-reduce runs"
jcheck "(b) ring 1 MB = 337.5 us" "$tmp/b1m.json" \
    'fmt("%.1f", algo("ring")["time_s"] * 1e6) == "337.5"'
jcheck "(b) recursive doubling 1 MB = 120 us" "$tmp/b1m.json" \
    'fmt("%.0f", algo("recursive_doubling")["time_s"] * 1e6) == "120"'
jcheck "(b) the ring's 1 MB all-reduce is latency-bound" "$tmp/b1m.json" \
    'algo("ring")["regime"] == "latency" and near(algo("ring")["latency_s"], 300e-6)'
jcheck "without --algo the best is reported" "$tmp/b1m.json" \
    'd["algo"] == d["best"] == "rabenseifner" and near(d["time_s"], 117.5e-6)'

# ---- (d): 4 nodes of 8 GPUs, 1 GB -----------------------------------------
"$collprof" model --op allreduce --ranks 32 --alpha 3us --bandwidth 450GB/s \
    --gpus-per-node 8 --inter-alpha 10us --inter-bandwidth 400Gbps \
    --size 1GB --json >"$tmp/d.json"
ok $? "(d) hierarchical example runs"
jcheck "(d) flat ring = 39.4 ms" "$tmp/d.json" \
    'fmt("%.1f", algo("ring")["time_s"] * 1e3) == "39.4"'
jcheck "(d) hierarchical = 7.74 ms and best" "$tmp/d.json" \
    'fmt("%.2f", algo("hierarchical")["time_s"] * 1e3) == "7.74" and d["best"] == "hierarchical"'
jcheck "(d) phases 1.97 + 3.81 + 1.97 ms" "$tmp/d.json" \
    'fmt("%.2f", d["hierarchical"]["intra_reduce_scatter_s"] * 1e3) == "1.97" and fmt("%.2f", d["hierarchical"]["inter_allreduce_s"] * 1e3) == "3.81" and fmt("%.2f", d["hierarchical"]["intra_allgather_s"] * 1e3) == "1.97"'
jcheck "(d) network lower bound 3.75 ms" "$tmp/d.json" \
    'fmt("%.2f", d["topology"]["network_bound_s"] * 1e3) == "3.75" and d["topology"]["nodes"] == 4'
jcheck "(d) algbw 129 GB/s, busbw 250 GB/s" "$tmp/d.json" \
    'fmt("%.0f", d["algbw_Bps"] / 1e9) == "129" and fmt("%.0f", d["busbw_Bps"] / 1e9) == "250"'
jcheck "400Gbps is 50 GB/s" "$tmp/d.json" \
    'near(d["topology"]["inter_bandwidth_Bps"], 50e9)'

# ---- other collectives ----------------------------------------------------
"$collprof" model --op all-to-all $flat --size 16MB --json >"$tmp/a2a.json"
ok $? "all-to-all runs"
jcheck "all-to-all: pairwise and bruck, busbw factor 15/16" "$tmp/a2a.json" \
    '[a["name"] for a in d["algorithms"]] == ["pairwise", "bruck"] and d["busbw_factor"] == 0.9375 and d["op"] == "alltoall"'
"$collprof" model --op sendrecv --ranks 2 --alpha 5us --bandwidth 25GB/s \
    --size 64KiB --json >"$tmp/p2p.json"
ok $? "send/recv runs"
jcheck "send/recv: direct, alpha + n beta" "$tmp/p2p.json" \
    'd["best"] == "direct" and near(d["time_s"], 5e-6 + 65536 / 25e9) and d["size_bytes"] == 65536'

# ---- text output ------------------------------------------------------------
"$collprof" model --op allreduce $flat --size 1MB >"$tmp/text"
ok $? "text output runs"
check "text names the best algorithm" grep -q "^best: rabenseifner, 117.5 us" "$tmp/text"
check "text shows n* of ring and recursive doubling" \
    grep -q "ring / recursive_doubling: n\* = 6.118 MB (6117647 bytes)" "$tmp/text"
check "text shows the ring's time" grep -q "^ring  *337.5 us" "$tmp/text"

"$collprof" model --help >"$tmp/help"
ok $? "--help exits 0"
missing=
for o in --op --ranks --alpha --bandwidth --size --algo --gpus-per-node \
    --inter-alpha --inter-bandwidth --json Example; do
    grep -q -- "$o" "$tmp/help" || missing="$missing $o"
done
[ -z "$missing" ]
ok $? "--help explains every option and gives an example${missing:+ (missing:$missing)}"

# ---- usage errors ----------------------------------------------------------
base="--op allreduce --alpha 10us --bandwidth 50GB/s --size 1MB"
usage_error "--ranks x" "--ranks: expected a positive integer, got 'x'" \
    $base --ranks x
usage_error "--ranks 0" "--ranks: expected a positive integer, got '0'" \
    $base --ranks 0
usage_error "--alpha without a unit" "--alpha: expected a time" \
    --op allreduce --ranks 4 --alpha 10 --bandwidth 50GB/s --size 1MB
usage_error "--bandwidth without /s" "--bandwidth: expected a bandwidth" \
    --op allreduce --ranks 4 --alpha 10us --bandwidth 50GB --size 1MB
usage_error "--bandwidth 0" "--bandwidth: expected a positive bandwidth" \
    --op allreduce --ranks 4 --alpha 10us --bandwidth 0GB/s --size 1MB
usage_error "--size ambiguous" "--size: expected a size" \
    --op allreduce --ranks 4 --alpha 10us --bandwidth 50GB/s --size 4M
usage_error "--op unknown" "--op: expected a collective" \
    --op allreduction --ranks 4 --alpha 10us --bandwidth 50GB/s --size 1MB
usage_error "--algo unknown" "--algo: expected an algorithm" \
    $base --ranks 4 --algo fastest
usage_error "--algo of another collective" "--algo: bruck is not an algorithm of allreduce" \
    $base --ranks 4 --algo bruck
usage_error "--algo that needs a power of two" "--algo: recursive_doubling needs a power-of-two number of ranks, got 6" \
    $base --ranks 6 --algo recursive_doubling
usage_error "missing --size" "--size is required" \
    --op allreduce --ranks 4 --alpha 10us --bandwidth 50GB/s
usage_error "topology options go together" "--gpus-per-node" \
    $base --ranks 16 --gpus-per-node 8
usage_error "--gpus-per-node x" "--gpus-per-node: expected a positive integer, got 'x'" \
    $base --ranks 16 --gpus-per-node x --inter-alpha 1us --inter-bandwidth 1GB/s
usage_error "unknown option" "unknown option '--frobnicate'" \
    $base --ranks 4 --frobnicate
usage_error "option without its value" "--size needs a value" \
    --op allreduce --ranks 4 --alpha 10us --bandwidth 50GB/s --size
usage_error "a stray argument" "unexpected argument 'extra'" \
    $base --ranks 4 extra

done_testing
