#!/bin/sh
# hostile.sh - the hostile-input suite: every command that reads logs
# (analyze -j 1 and -j 4, trace, dump) on each crafted input set of a few
# KB (hostile.py, craft.py): claimed communicator sizes, claimed sequence
# numbers, node partials claiming huge logs, long runs and every record
# kind.  Each run, all its passes together, stays under the documented
# ceiling (docs/security.md, "Memory": 256 MiB of peak RSS) and a few
# seconds of CPU; the totals are printed.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
gen="$b/tests/tools/gen_logs"
maxrss="$b/tests/analyze/maxrss"
sec="${top_srcdir:-.}/tests/security"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
[ -x "$maxrss" ] || skip_all "tests/analyze/maxrss not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
command -v timeout >/dev/null 2>&1 || skip_all "no timeout"
t=$(mktemp -d /tmp/cp-sechost-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$t"' EXIT INT TERM
ceiling_kib=262144 # docs/security.md
cpu_max=10         # seconds; each run takes well under one here
"$gen" -o "$t/src" --ranks 4 --steps 3 >/dev/null || skip_all "gen_logs failed"
log=$(ls "$t"/src/*.cplog | head -n 1)
python3 "$sec/hostile.py" "$t/src" "$t/comms" 1048576 100 &&
    python3 "$sec/craft.py" seqs "$t/src" "$t/seqs" &&
    mkdir "$t/spin" "$t/runs" "$t/kinds" &&
    python3 "$sec/craft.py" spin "$t/spin" "$log" &&
    python3 "$sec/craft.py" runs "$t/runs" "$log" 32 &&
    python3 "$sec/craft.py" kinds "$t/kinds" "$t/kinds-raw" "$log" 200 ||
    skip_all "crafting the inputs failed"
sets="comms seqs spin runs kinds kinds-raw"
check "every crafted file is under 400 KB (most a few KB)" \
    [ -z "$(cd "$t" && find $sets -type f -size +400k)" ]

total_cpu=0
max_rss=0
for set in $sets; do
    for cmd in analyze-j1 analyze-j4 trace dump; do
        case $cmd in
        analyze-j*) set -- "$cp" analyze -j "${cmd#analyze-j}" "$t/$set" -o "$t/out-$set-$cmd" -q ;;
        trace) set -- "$cp" trace "$t/$set" -o "$t/$set.json" ;;
        dump) set -- "$cp" dump "$t/$set" ;;
        esac
        (
            ulimit -v 1048576 || exit 99 # a guard for this machine only
            exec timeout 120 "$maxrss" "$@"
        ) >/dev/null 2>"$t/err"
        rc=$?
        rss=$(sed -n 's/^maxrss_kib //p' "$t/err")
        cpu=$(sed -n 's/^cpu_s //p' "$t/err")
        diag "$set $cmd: exit $rc, peak RSS ${rss:-?} KiB, CPU ${cpu:-?} s"
        check "$set $cmd: ends by itself, no crash" [ "$rc" -lt 124 ]
        check "$set $cmd: peak RSS under $((ceiling_kib / 1024)) MiB" \
            [ "${rss:-$ceiling_kib}" -lt "$ceiling_kib" ]
        check "$set $cmd: under $cpu_max s of CPU" \
            awk -v v="$cpu" -v lim="$cpu_max" 'BEGIN{exit !(v != "" && v < lim)}'
        total_cpu=$(awk -v a="$total_cpu" -v b="${cpu:-0}" 'BEGIN{print a + b}')
        [ "${rss:-0}" -gt "$max_rss" ] && max_rss=$rss
    done
done
diag "all runs: $total_cpu s of CPU, the largest peak RSS $max_rss KiB"
done_testing
