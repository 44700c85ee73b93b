#!/bin/sh
# funclen.sh - no product function over 100 lines (tests/unit/funclen.py):
# the tree as it is, and a planted file whose long function the check must
# name.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/tap.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
check_py="$top_srcdir/tests/unit/funclen.py"

out=$(python3 "$check_py" "$top_srcdir")
ok $? "no product function over 100 lines"
echo "$out" | sed 's/^/# /'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/analyzer/core" "$tmp/tests"
{
    printf 'static int short_one(void)\n{\n    return 0;\n}\n\n'
    printf 'int long_one(int a,\n             int b)\n{\n'
    i=0
    while [ $i -lt 101 ]; do
        printf '    a += b;\n'
        i=$((i + 1))
    done
    printf '    return a;\n}\n'
} >"$tmp/analyzer/core/cp_x.c"
# tests/ is not the product
cp "$tmp/analyzer/core/cp_x.c" "$tmp/tests/t.c"
out=$(python3 "$check_py" "$tmp")
ok $((! $?)) "a planted function of 102 lines fails the check"
[ "$out" = "102 analyzer/core/cp_x.c long_one" ]
ok $? "... named with its lines, file and name, tests/ left out ($out)"
done_testing
