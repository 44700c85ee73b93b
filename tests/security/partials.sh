#!/bin/sh
# partials.sh - hostile node partials (craft.py writes them with valid
# checksums; docs/security.md, "Node partials"):
#  - 786 bytes claiming a log of 2^62 bytes, one run of 2^56 - 64
#    never-written slots: refused at its index entry at once (it spun for
#    years);
#  - 32 logs of the largest size a log has (2^28 slots, 16 GiB each),
#    a few hundred bytes each: analysed in well under a second of CPU, the
#    runs skipped, not expanded (minutes before);
#  - logs claiming all 255 record kinds: a partial costs at most a few KiB
#    a log more than the same logs raw (16 KiB of previous records a log
#    before), and reads the same.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
gen="$b/tests/tools/gen_logs"
maxrss="$b/tests/analyze/maxrss"
craft="${top_srcdir:-.}/tests/security/craft.py"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
[ -x "$maxrss" ] || skip_all "tests/analyze/maxrss not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
command -v timeout >/dev/null 2>&1 || skip_all "no timeout"
t=$(mktemp -d /tmp/cp-secpart-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$t"' EXIT INT TERM
"$gen" -o "$t/src" --ranks 2 --steps 2 --format 3 >/dev/null || skip_all "gen_logs failed"
log=$(ls "$t"/src/*.cplog | head -n 1)

# run NAME CMD...: under a 1 GiB address space (a guard for this machine)
# and a timeout; $t/NAME.err gets the command's stderr, maxrss_kib, cpu_s
run() {
    name=$1; shift
    (
        ulimit -v 1048576 || exit 99
        exec timeout 120 "$maxrss" "$@"
    ) >"$t/$name.out" 2>"$t/$name.err"
}
stat_of() { sed -n "s/^$2 //p" "$t/$1.err"; }
cpu_below() { awk -v v="$(stat_of "$1" cpu_s)" -v lim="$2" 'BEGIN{exit !(v != "" && v < lim)}'; }
says() { grep -q "$2" "$t/$1.err"; }

# ---- 2^62 bytes, 2^56 empty slots, in 787 bytes
mkdir "$t/spin"
python3 "$craft" spin "$t/spin" "$log" || skip_all "craft.py spin failed"
check "the spinning partial is under 1000 bytes" [ "$(wc -c <"$t/spin/n9.cppart")" -lt 1000 ]
for c in analyze trace; do
    if [ $c = analyze ]; then
        run spin-$c "$cp" analyze "$t/spin" -o "$t/spin-out" -q
    else
        run spin-$c "$cp" trace "$t/spin" -o "$t/spin.json"
    fi
    rc=$?
    diag "$c: exit $rc, cpu $(stat_of spin-$c cpu_s) s"
    check "$c: ends at once (not killed by the timeout)" [ "$rc" -ne 124 -a "$rc" -lt 128 ]
    check "$c: under 5 s of CPU" cpu_below spin-$c 5
    check "$c: the partial and its index entry named" \
        says spin-$c "n9.cppart: index entry 0 is inconsistent"
done

# ---- 16 GiB logs of a few hundred bytes: the runs are skipped
mkdir "$t/runs"
python3 "$craft" runs "$t/runs" "$log" 32 || skip_all "craft.py runs failed"
check "the partial of 32 logs of 16 GiB is under 64 KB" \
    [ "$(wc -c <"$t/runs/n9.cppart")" -lt 65536 ]
for j in 1 4; do
    run runs-j$j "$cp" analyze -j $j "$t/runs" -o "$t/runs-out$j" -q
    rc=$?
    diag "-j $j: exit $rc, cpu $(stat_of runs-j$j cpu_s) s, maxrss $(stat_of runs-j$j maxrss_kib) KiB"
    check "analyze -j $j: exit 0" [ "$rc" -eq 0 ]
    check "analyze -j $j: under 5 s of CPU for 512 GiB of logs" cpu_below runs-j$j 5
done
check "... every log read: 8 records each, none damaged" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
fs = r['inputs']['files']
sys.exit(0 if len(fs) == 32 and all(f['status'] == 'ok' and f['records'] == 8
                                   for f in fs) else 1)" "$t/runs-out1/report.json"
check "... the same report with -j 4" cmp -s "$t/runs-out1/report.json" "$t/runs-out4/report.json"
run runs-trace "$cp" trace "$t/runs" -o "$t/runs.json"
rc=$?
diag "trace: exit $rc, cpu $(stat_of runs-trace cpu_s) s"
check "trace: exit 0" [ "$rc" -eq 0 ]
check "trace: under 5 s of CPU" cpu_below runs-trace 5

# ---- every record kind claimed: no 16 KiB of previous records per log (the
# kinds this reader knows are read, the same from the partial as raw; the rest
# skipped)
n=2000
mkdir "$t/kinds"
python3 "$craft" kinds "$t/kinds" "$t/kinds-raw" "$log" $n || skip_all "craft.py kinds failed"
run kinds-raw "$cp" analyze "$t/kinds-raw" -o "$t/kinds-raw-out" -q
rc_raw=$?
run kinds-part "$cp" analyze "$t/kinds" -o "$t/kinds-part-out" -q
rc_part=$?
raw=$(stat_of kinds-raw maxrss_kib)
part=$(stat_of kinds-part maxrss_kib)
diag "$n logs of 255 kinds: raw $raw KiB, partial $part KiB ($(( (part - raw) * 1024 / n )) bytes a log more)"
check "raw and partial analysed (exit $rc_raw, $rc_part)" [ "$rc_raw" -eq "$rc_part" -a "$rc_raw" -lt 2 ]
check "the partial's peak RSS at most 8 KiB a log above the raw logs'" \
    [ "$part" -le $((raw + 8 * n)) ]
check "... and the same inputs read (records, unknown kinds skipped)" python3 -c "
import json, os, sys
def files(p):
    r = json.load(open(p))
    return [(os.path.basename(f['file']), f['records'], f['skipped_records'])
            for f in r['inputs']['files']]
a, b = files(sys.argv[1]), files(sys.argv[2])
sys.exit(0 if a == b and len(a) >= 100 and a[0][1] >= 8 and a[0][2] > 200 else 1)" \
    "$t/kinds-raw-out/report.json" "$t/kinds-part-out/report.json"
done_testing
