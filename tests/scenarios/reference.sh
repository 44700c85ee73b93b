#!/bin/sh
# reference.sh - bandwidth judged against an absolute reference, never
# against a fit of the same calls (docs/analysis.md, "The reference"):
# ddp on 4 nodes at 25 MB/s with the n2-n3 link at 6 MB/s is not green
# without a profile, judged against the NICs' port rate that the nodes'
# port snapshots give (simrun --sysfs: a stand-in sysfs tree with the
# topology's rate, read by collprof ports as on a real node); without
# snapshots the verdict says that bandwidth cannot be judged; NICs that
# promise 10x what the fabric gives are a TCP fallback (tp's calls of one
# size too, without a firm fit); healthy jobs are
# not flagged against their ports (no low_busbw).
. "${top_srcdir:-.}/tests/tap.sh"
t=$(mktemp -d /tmp/cp-reference-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
. "${top_srcdir:-.}/tests/scenarios/lib.sh"

green() {
    grep -q 'class="verdict ok"' "$t/$1.out/report.html"
}

scenario slow 8 4 "link n2 n3 bandwidth=6MB/s" --pattern ddp --steps 3
ok $? "ddp, n2-n3 at 6 MB/s of 25: recorded, ports snapshotted, analyzed"
point slow "line=of what the NICs' port rate allows" "noline=of the model"
python3 - "$t/slow.out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
net = [f for f in r["findings"] if f["severity"] in ("warning", "critical")
       and f["kind"] in ("low_busbw", "slow_link", "slow_link_candidates")]
m = r["model"]["inter"]
ok = net and m["expected_source"] == "ports" and \
    abs(m["expected_Bps"] - 25e6) < 1e3
print("# %s; reference %s from %s" % ([f["kind"] for f in r["findings"]],
                                      m["expected_Bps"], m["expected_source"]))
sys.exit(0 if ok else 1)
PY
ok $? "the slow ring is a network warning against the ports' 25 MB/s"
green slow
ok $((! $?)) "report.html is not green"

NO_PORTS=1 scenario noref 8 4 "link n2 n3 bandwidth=6MB/s" --pattern ddp --steps 3
ok $? "the same without port snapshots: analyzed"
point noref "line=no reference: cannot judge bandwidth (give --profile, or run collprof bench / probe)" \
    "noline=of the model"
green noref
ok $((! $?)) "report.html is not green"

NIC_RATE="2 Gb/sec (4X SIM)" scenario tcp 8 4 "" --pattern 3d --steps 3
ok $? "3d at 25 MB/s on NICs of 250 MB/s: analyzed"
point tcp find=low_busbw:- "line=of what the NICs' port rate allows"
python3 - "$t/tcp.out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = [f for f in r["findings"] if f["kind"] == "low_busbw"
     and f["evidence"].get("tcp_fallback")]
sys.exit(0 if f and f[0]["severity"] == "critical" else 1)
PY
ok $? "a uniformly slow fabric is a critical TCP fallback"

# tp's inter-node calls are 512 KiB all-reduces of one size: no firm fit
# (none at all, or one through the same slow calls with an alpha of
# milliseconds that makes them latency-bound); against the port rate they
# are still an order of magnitude slow
NIC_RATE="2 Gb/sec (4X SIM)" scenario tcp-tp 8 4 "" --pattern tp --steps 3
ok $? "tp at 25 MB/s on NICs of 250 MB/s: analyzed"
python3 - "$t/tcp-tp.out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rings = {c["id"] for c in r["communicators"] if len(c["nodes"]) == 4
         and c["nranks"] == 4}
f = {f["evidence"]["comm"] for f in r["findings"] if f["kind"] == "low_busbw"
     and f["severity"] == "critical" and f["evidence"].get("tcp_fallback")}
print("# rings %s, TCP fallback on %s; inter model %s" % (
    sorted(rings), sorted(f), r["model"]["inter"]["source"]))
sys.exit(0 if rings and rings <= f else 1)
PY
ok $? "each of tp's data-parallel rings is a critical TCP fallback"

for p in ddp 3d tp; do
    scenario ok-$p 8 4 "" --pattern $p --steps 3
    ok $? "healthy $p with port snapshots: analyzed"
    # against its ports a healthy job is not slow (the slow-link analysis
    # of the same calls is tests/links' and the accuracy matrix's).  tp's
    # calls are few sizes: on a loaded machine its fit can call them all
    # latency-bound, and then there is no busbw line to print (nothing
    # bandwidth-bound to hold against the ports), which is right
    if [ "$p" = tp ]; then
        point ok-$p none=low_busbw
    else
        point ok-$p none=low_busbw "line=of what the NICs' port rate allows"
    fi
done

done_testing
