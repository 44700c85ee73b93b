# lib.sh - the set-up that the shell tests of collprof analyze over
# gen_logs jobs share; source it after tests/tap.sh:
#   analyze_setup NAME   skips (77) without collprof, gen_logs or python3;
#                        sets b (the build), cp (collprof), gen (gen_logs)
#                        and t, a fresh /tmp/cp-NAME-XXXXXX removed at exit
analyze_setup() {
    b=${top_builddir:-.}
    cp="$b/analyzer/collprof"
    gen="$b/tests/tools/gen_logs"
    [ -x "$cp" ] && [ -x "$gen" ] || skip_all "collprof or gen_logs not built"
    command -v python3 >/dev/null 2>&1 || skip_all "no python3"
    t=$(mktemp -d "/tmp/cp-$1-XXXXXX") || exit 1
    trap 'rm -rf "$t"' EXIT INT TERM
}
