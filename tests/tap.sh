# tap.sh - TAP helpers for collprof's shell tests; source it.
#   ok COND_STATUS "name"   (ok $? "name" after a command, or: check CMD... )
tap_n=0
tap_fail=0
ok() {
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_fail=$((tap_fail + 1)); fi
}
# check "name" CMD ARGS...: one test point, passing when CMD succeeds
check() {
    name=$1; shift
    if "$@"; then ok 0 "$name"; else ok 1 "$name"; fi
}
# check_sh NAME 'EXPR': a point for a shell expression of several tests
# (A && B), evaluated whole; `check NAME [ A ] && [ B ]` would test only A.
check_sh() {
    name=$1; shift
    if eval "$1"; then ok 0 "$name"; else ok 1 "$name"; fi
}
diag() { echo "# $*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 77; }
# skip N REASON: N points skipped, with the reason
skip() {
    n=$1; shift
    while [ "$n" -gt 0 ]; do
        tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $*"; n=$((n - 1))
    done
}
# need_sim_job: skip the script unless what a job recorded on the CPU NCCL
# needs is built (collprof, tests/simnccl/simrun, tests/apps/train_sim, the
# shim) and python3 is installed.
need_sim_job() {
    [ -x "${top_builddir:-.}/analyzer/collprof" ] || skip_all "collprof not built"
    [ -x "${top_builddir:-.}/tests/simnccl/simrun" ] ||
        skip_all "tests/simnccl/simrun not built"
    [ -x "${top_builddir:-.}/tests/apps/train_sim" ] ||
        skip_all "tests/apps/train_sim not built"
    [ -f "${top_builddir:-.}/preload/.libs/libcollprof.so" ] ||
        skip_all "the shim is not built"
    command -v python3 >/dev/null 2>&1 || skip_all "no python3"
}
done_testing() {
    echo "1..$tap_n"
    [ "$tap_fail" -eq 0 ]
}
