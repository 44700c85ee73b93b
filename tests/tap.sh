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
diag() { echo "# $*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 77; }
done_testing() {
    echo "1..$tap_n"
    [ "$tap_fail" -eq 0 ]
}
