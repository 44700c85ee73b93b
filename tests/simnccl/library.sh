#!/bin/sh
# library.sh - libnccl.so.2 looks like NCCL to the dynamic linker: its
# soname, and exactly NCCL's entry points (ncclX and pncclX) exported, plus
# simnccl's graph capture (simncclGraph*, sim_api.c).
. "${top_srcdir:-.}/tests/tap.sh"
lib="${top_builddir:-.}/tests/simnccl/lib/libnccl.so.2"
[ -f "$lib" ] || skip_all "libnccl.so.2 not built"
command -v nm >/dev/null && command -v readelf >/dev/null ||
    skip_all "nm and readelf (binutils) needed"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

readelf -d "$lib" | grep -q 'Library soname: \[libnccl.so.2\]'
ok $? "soname is libnccl.so.2"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ { print $3 }' | sort >"$tmp/got"
for f in GetVersion GetUniqueId GetErrorString GetLastError CommInitRank \
    CommInitRankConfig CommInitAll CommInitRankScalable CommSplit CommShrink \
    CommFinalize CommDestroy CommAbort CommCount CommUserRank CommCuDevice \
    CommGetAsyncError AllReduce Broadcast Bcast Reduce AllGather \
    ReduceScatter AlltoAll Gather Scatter Send Recv GroupStart GroupEnd; do
    echo "nccl$f"
    echo "pnccl$f"
done >"$tmp/want.u"
for f in Begin End Launch Destroy; do echo "simncclGraph$f"; done >>"$tmp/want.u"
sort "$tmp/want.u" >"$tmp/want"
cmp -s "$tmp/got" "$tmp/want"
ok $? "exports exactly the NCCL API, its pncclX aliases and simncclGraph*"
[ $? -eq 0 ] || diff "$tmp/want" "$tmp/got" | sed 's/^/#   /'
nm -D --defined-only "$lib" | awk '$2 ~ /^[A-Z]$/ && $2 != "A" { print $3 }' |
    grep -v '^p\{0,1\}nccl' | grep -v '^simncclGraph' >"$tmp/extra"
[ ! -s "$tmp/extra" ]
ok $? "no other symbol leaks out"
[ $? -eq 0 ] || sed 's/^/#   /' "$tmp/extra"
done_testing
