# lib.sh - the set-up that the shell tests of collprof analyze over
# gen_logs jobs share; source it after tests/tap.sh:
#   analyze_setup NAME   skips (77) without collprof, gen_logs or python3;
#                        sets b (the build), cp (collprof), gen (gen_logs)
#                        and t, a fresh /tmp/cp-NAME-XXXXXX removed at exit
#   same_report_for_jobs COLLPROF OUT NAME LOGS J...
#                        analyzes LOGS with -j 1 and each -j J into
#                        OUT/NAME.jN; each report.json must be -j 1's, byte
#                        for byte (errors to OUT/NAME.err)
analyze_setup() {
    b=${top_builddir:-.}
    cp="$b/analyzer/collprof"
    gen="$b/tests/tools/gen_logs"
    [ -x "$cp" ] && [ -x "$gen" ] || skip_all "collprof or gen_logs not built"
    command -v python3 >/dev/null 2>&1 || skip_all "no python3"
    t=$(mktemp -d "/tmp/cp-$1-XXXXXX") || exit 1
    trap 'rm -rf "$t"' EXIT INT TERM
}

same_report_for_jobs() {
    _cp=$1 _out=$2 _name=$3 _logs=$4
    shift 4
    "$_cp" analyze -q "$_logs" -o "$_out/$_name.j1" -j 1 2>"$_out/$_name.err"
    ok $? "$_name: analyze -j 1"
    for _j in "$@"; do
        "$_cp" analyze -q "$_logs" -o "$_out/$_name.j$_j" -j "$_j" \
            2>>"$_out/$_name.err"
        ok $? "$_name: analyze -j $_j"
        check "$_name: report.json of -j $_j is byte-identical to -j 1" \
            cmp "$_out/$_name.j1/report.json" "$_out/$_name.j$_j/report.json"
    done
}
