#!/bin/sh
# exports.sh - the shim exports only what the NCCL it wraps has: against an
# NCCL without ncclCommShrink (tests/unit/oldnccl: the null NCCL built
# without it), dlsym(RTLD_DEFAULT, "ncclCommShrink") gives NULL with the
# shim preloaded as without it, so that feature detection sees the real
# library; against one with it, the shim's wrapper is found (docs/
# security.md, "What the shim exports").
. "${top_srcdir:-.}/tests/tap.sh"
b=${top_builddir:-.}
prog="$b/tests/unit/exports"
shim="$b/preload/.libs/libcollprof.so"
old="$b/tests/unit/oldnccl"
new="$b/tests/bench/lib"
[ -x "$prog" ] || skip_all "tests/unit/exports not built"
[ -f "$shim" ] || skip_all "the shim is not built"
[ -f "$old/libnccl.so.2" ] && [ -f "$new/libnccl.so.2" ] ||
    skip_all "the null NCCLs are not built"
t=$(mktemp -d /tmp/cp-exports-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
names="ncclCommShrink ncclAllReduce ncclCommInitRank ncclGroupEnd"

run() { # NAME LIBDIR [PRELOAD]
    env LD_LIBRARY_PATH="$2" ${3:+LD_PRELOAD="$3"} COLLPROF_DIR="$t" \
        "$prog" $names >"$t/$1" 2>"$t/$1.err"
}
run old-plain "$old"
check "old NCCL, no shim: ncclCommShrink absent" grep -qx "ncclCommShrink absent" "$t/old-plain"
check "... ncclAllReduce present" grep -qx "ncclAllReduce present" "$t/old-plain"
run old-shim "$old" "$shim"
check "old NCCL, shim preloaded: ncclCommShrink absent too" grep -qx "ncclCommShrink absent" "$t/old-shim"
check "... the others present" sh -c "grep -qx 'ncclAllReduce present' '$t/old-shim' && grep -qx 'ncclCommInitRank present' '$t/old-shim' && grep -qx 'ncclGroupEnd present' '$t/old-shim'"
check "... the same answers as without the shim" cmp -s "$t/old-plain" "$t/old-shim"
run new-plain "$new"
run new-shim "$new" "$shim"
check "NCCL with ncclCommShrink, shim preloaded: present" grep -qx "ncclCommShrink present" "$t/new-shim"
check "... the same answers as without the shim" cmp -s "$t/new-plain" "$t/new-shim"
check "the shim's exports are indirect functions (nm: i)" \
    sh -c "nm -D --defined-only '$shim' | awk '\$3 ~ /^nccl/ && \$2 != \"i\" { bad = 1 } END { exit bad }'"
done_testing
