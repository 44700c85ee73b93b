# lib.sh - shared set-up of collprof bench's shell tests; source it after
# tests/tap.sh.  Adds to tests/integration/lib.sh (paths of the built tools,
# a temp dir removed at exit, `need`) the data folder and the JSON helpers
# below.
work_prefix=cp-bench
. "${top_srcdir:?top_srcdir not set (run through make check)}/tests/integration/lib.sh"
data=$s/tests/bench-cli/data
command -v python3 >/dev/null 2>&1 || skip_all "python3 not found"
# py FILE EXPR: evaluate EXPR with d = the JSON document in FILE
py() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}
# pycheck NAME FILE EXPR: one test point, passing when EXPR is true
pycheck() {
    name=$1; shift
    out=$(py "$@" 2>&1)
    if [ "$out" = True ]; then ok 0 "$name"; else ok 1 "$name"; diag "  got: $out"; fi
}
# timing_lock: tests whose checks depend on timings take turns (the two
# shared cores are loaded enough by one simulated job at a time).
timing_lock() {
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$b/tests/bench-cli/timing.lock"
        flock 9
    fi
}
