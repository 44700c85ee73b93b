#!/bin/sh
# trace.sh - collprof trace against the logs: every train_sim pattern on 8
# ranks over 4 nodes of the CPU NCCL, and a gen_logs job with device
# intervals and a straggler.  tracecheck.py checks each trace against
# docs/trace.md's rules and against `collprof dump --csv` of the same logs:
# every call one slice on its rank's lane, start and duration within 1 us,
# flows joining the ranks of one instance.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
gen_logs=$b/tests/tools/gen_logs
tc="python3 $s/tests/trace/tracecheck.py"
need "$collprof" "$simrun" "$train_sim" "$shim" "$gen_logs"

for p in ddp fsdp tp moe pp 3d; do
    d=$work/$p
    "$collprof" record -q -o "$d" -- "$simrun" -n 8 --nodes 4 --timeout 120 \
        -- "$train_sim" --pattern $p --steps 2 >"$work/$p.out" 2>&1
    ok $? "$p: recorded"
    "$collprof" dump --csv "$d" >"$work/$p.csv"
    "$collprof" trace -q "$d" -o "$work/$p.json" 2>"$work/$p.err"
    ok $? "$p: trace written"
    out=$($tc "$work/$p.json" "$work/$p.csv")
    ok $? "$p: every call one slice on its rank, within 1 us; flows join one instance ($out)"
done
# flows exist where collectives do
case $($tc "$work/ddp.json" "$work/ddp.csv") in
*flows=0*) ok 1 "ddp: flows from the last arrival" ;;
*) ok 0 "ddp: flows from the last arrival" ;;
esac

# gzip: the same trace, compressed
"$collprof" trace -q "$work/3d" -o "$work/3d.json.gz"
ok $? "3d: trace.json.gz written"
check "3d: .gz is gzip data" sh -c "od -An -tx1 -N2 '$work/3d.json.gz' | grep -q '1f 8b'"
check "3d: it decompresses to the plain trace" sh -c "gzip -dc '$work/3d.json.gz' | cmp -s - '$work/3d.json'"
out=$($tc "$work/3d.json.gz" "$work/3d.csv")
ok $? "3d: the .gz passes the checks ($out)"

# device intervals, a straggler, cuts
g=$work/gen
"$gen_logs" -o "$g" --ranks 8 --ranks-per-node 2 --steps 4 --gpu \
    --pattern mixed --straggler 5=2ms >/dev/null
"$collprof" dump --csv "$g" >"$work/gen.csv"
"$collprof" trace -q "$g" -o "$work/gen.json"
out=$($tc "$work/gen.json" "$work/gen.csv")
ok $? "gen_logs --gpu: every call one slice ($out)"
case $out in
*gpu=0*) ok 1 "device intervals on their lanes" ;;
*) ok 0 "device intervals on their lanes" ;;
esac
pycheck() {
    python3 - "$1" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
sys.exit(0 if ($2) else 1)
PY
}
check "a device lane 'rank 5 (n2) GPU' for every rank" pycheck "$work/gen.json" \
    "len([e for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name' and e['args']['name'].endswith(' GPU')]) == 8 and any(e['ph'] == 'M' and e['args'].get('name') == 'rank 5 (n2) GPU' for e in ev)"
check "device slices name their call (op, comm, seq)" pycheck "$work/gen.json" \
    "all(e['name'] != 'device work' and 'seq' in e['args'] and e['args']['comm'] for e in ev if e.get('cat') == 'gpu')"
check "the straggler arrived last in most world collectives" pycheck "$work/gen.json" \
    "(lambda x: sum(1 for e in x if e['args'].get('last_rank') == 5) > 0.8 * len(x))([e for e in ev if e.get('cat') == 'collective' and e['args']['comm'] == 'world'])"
check "slices carry op, bytes, comm, seq, busbw and the model's time" pycheck "$work/gen.json" \
    "all(all(k in e['args'] for k in ('op', 'bytes', 'comm', 'seq', 'busbw_GBps', 'model_us', 'own_us', 'last_rank', 'last_node')) for e in ev if e.get('cat') == 'collective')"
check "findings as instant events (the straggler on rank 5's lane)" pycheck "$work/gen.json" \
    "any(e['ph'] == 'i' and e['name'] == 'straggler' and e['tid'] == 6 for e in ev)"

# report.json `slowest` points into the trace: the instance's slices carry
# its communicator and seq, and the first of them starts at start_s
"$collprof" analyze -q "$g" -o "$work/rep"
ok $? "analyze of the same logs"
check "every instance of slowest.by_own_time is in the trace at its start_s (1 us)" python3 - "$work/rep/report.json" "$work/gen.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
ev = json.load(open(sys.argv[2]))["traceEvents"]
first = {}
for e in ev:
    if e.get("cat") == "collective":
        k = (e["args"]["comm_id"], e["args"]["seq"])
        first[k] = min(first.get(k, 1e300), e["ts"])
rows = rep["slowest"]["by_own_time"] + rep["slowest"]["by_skew"]
bad = [r for r in rows if abs(first.get(("0x" + r["comm"], r["seq"]), -1e9) - r["start_s"] * 1e6) > 1]
sys.exit(1 if bad or not rows else 0)
PY
row=$(python3 -c "import json; r = json.load(open('$work/rep/report.json'))['slowest']['by_own_time'][0]; print('%s seq %d, ts %.0f us' % (r['comm_name'], r['seq'], r['start_s'] * 1e6))")
check "report.html's slowest table points at the trace ($row)" grep -q "$row" "$work/rep/report.html"
world=$(python3 -c "import json; print([c['id'] for c in json.load(open('$work/rep/report.json'))['communicators'] if c['name'] == 'world'][0])")
check "report.html details each communicator by name, the hex id as its tooltip" \
    grep -q "<h3 class=\"comm\" title=\"$world\">world</h3>" "$work/rep/report.html"
check "... with its ranks and skew distribution" sh -c \
    "grep -q 'Global ranks: 0-7\.' '$work/rep/report.html' && grep -q 'Arrival skew: median' '$work/rep/report.html'"
check "report.json: the straggler's 2 ms is world's median skew" python3 -c \
    "import json, sys; c = [c for c in json.load(open('$work/rep/report.json'))['communicators'] if c['name'] == 'world'][0]; sys.exit(0 if 0.0018 < c['skew']['p50_s'] < 0.0025 else 1)"

"$collprof" trace -q "$g" -o "$work/cut.json" --ranks 2-5 --from 20ms --to 60ms
ok $? "--ranks 2-5 --from 20ms --to 60ms"
out=$($tc "$work/cut.json" "$work/gen.csv" --ranks 2-5)
ok $? "the cut holds exactly the calls of ranks 2-5 that overlap it ($out)"
check "the cut is in otherData" pycheck "$work/cut.json" \
    "d['otherData']['from_us'] == 20000 and d['otherData']['to_us'] == 60000"
"$collprof" trace -q "$g" -o "$work/node.json" --comm node
ok $? "--comm node"
check "--comm node: only node calls and their device intervals" pycheck "$work/node.json" \
    "(lambda c: len(c) > 0 and all(e['args']['comm'] == 'node' for e in c))([e for e in ev if e['ph'] == 'X'])"

# a rank killed inside an allreduce: its entry record (never returned) is
# an in_flight slice to the end of the run (or a point at its start, when it
# entered after every other call had ended: the run's span ends there)
printf 'kill rank=1 in=allreduce after=5\n' >"$work/kill.topo"
"$collprof" record -q -o "$work/killed" -- "$simrun" -n 4 --nodes 2 \
    --timeout 60 --topo "$work/kill.topo" -- "$train_sim" --pattern ddp \
    --steps 1 --quiet >/dev/null 2>&1
"$collprof" dump --csv "$work/killed" >"$work/killed.csv" 2>/dev/null
"$collprof" trace -q "$work/killed" -o "$work/killed.json" 2>"$work/killed.err"
ok $? "trace of a job with a rank killed in a call"
out=$($tc "$work/killed.json" "$work/killed.csv")
ok $? "... every call one slice ($out)"
check "... the killed call is an in_flight allreduce on rank 1, to the run's end" pycheck "$work/killed.json" \
    "any(e.get('cat') == 'in_flight' and e['tid'] == 2 and e['name'] == 'allreduce' and e['args'].get('in_flight') is True and e['ts'] + e['dur'] >= float(d['otherData']['span_us']) - 1 for e in ev)"

# what a user gets wrong
"$collprof" trace "$g" -o "$work/x.json" --comm bogus 2>"$work/e1"
ok $([ $? -eq 1 ]; echo $?) "--comm bogus: exit 1"
check "... names it and the job's communicators" \
    grep -q "^collprof trace: no communicator 'bogus' in the job (its communicators: world, node" "$work/e1"
"$collprof" trace "$g" -o "$work/x.json" --ranks 3-x 2>"$work/e2"
ok $([ $? -eq 2 ]; echo $?) "--ranks 3-x: exit 2"
check "... names the bad part" grep -q "'3-x' is not a rank or a range" "$work/e2"
"$collprof" trace "$g" -o "$work/x.json" --ranks 100-200 2>"$work/e3"
check "--ranks outside the job: says which ranks there are" \
    grep -q "selects none of the job's 8 ranks (0 to 7)" "$work/e3"
"$collprof" trace "$g" -o "$work" 2>"$work/e4"
check "-o DIR: says it is a directory" grep -q "is a directory: give a file name" "$work/e4"
"$collprof" trace "$g" -o "$work/x.json" --bogus 2>"$work/e5"
check "unknown option: one line naming it" sh -c \
    "[ \$(wc -l <'$work/e5') -eq 1 ] && grep -q \"unknown option '--bogus'\" '$work/e5'"
"$collprof" trace "$g" -o "$work/x.json" --max-events 2000 2>"$work/e6"
ok $([ $? -eq 1 ]; echo $?) "--max-events 2000: refused (exit 1)"
check "... with the figures and the cuts that fit" sh -c \
    "grep -q 'too large for a viewer: 8 ranks, [0-9]* calls' '$work/e6' && grep -q -- '--ranks 0-[0-9]*' '$work/e6' && grep -q -- '--from T --to T' '$work/e6'"
check "... and no file left" test ! -e "$work/x.json"
ls "$work" | grep -q '\.tmp\.' && ok 1 "no temporary file left" || ok 0 "no temporary file left"
ln -s "$work/elsewhere" "$work/link.json"
"$collprof" trace -q "$g" -o "$work/link.json" 2>"$work/e7"
ok $([ $? -eq 1 ]; echo $?) "an output that is a symbolic link: refused"
check "... saying so, the link left alone and nothing written through it" sh -c \
    "grep -q 'is a symbolic link' '$work/e7' && [ -L '$work/link.json' ] && [ ! -e '$work/elsewhere' ]"
done_testing
