# lib.sh - shared set-up of collprof's integration tests; source it after
# tests/tap.sh.  Defines the paths of the built tools, a temp dir removed at
# exit (/tmp/${work_prefix:-cp-it}-XXXXXX), and `need` for skipping when a
# tool is not built.
b=${top_builddir:?top_builddir not set (run through make check)}
s=${top_srcdir:?top_srcdir not set}
collprof=$b/analyzer/collprof
simrun=$b/tests/simnccl/simrun
train_sim=$b/tests/apps/train_sim
shim=$b/preload/.libs/libcollprof.so
work=$(mktemp -d "/tmp/${work_prefix:-cp-it}-XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
need() {
    for f in "$@"; do
        [ -x "$f" ] || [ -f "$f" ] || skip_all "$f not built"
    done
}
