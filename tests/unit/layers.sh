#!/bin/sh
# layers.sh - includes point down the layers (tests/unit/layers.py has the
# table): the tree as it is, and a planted tree whose upward includes the
# check must name.  Includes still pending removal are TODO points.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/tap.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
check_py="$top_srcdir/tests/unit/layers.py"

out=$(python3 "$check_py" "$top_srcdir")
ok $? "no include points up a layer, no header name in two folders"
echo "$out" | grep -v '^pending: ' | sed 's/^/# /'
echo "$out" | grep -q '^gone from the code'
ok $((! $?)) "every pending include is still in the code"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$out" | sed -n 's/^pending: //p' >"$tmp.pending"
while read -r line; do
    tap_n=$((tap_n + 1))
    echo "not ok $tap_n - $line # TODO being removed (issue 12)"
done <"$tmp.pending"
rm -f "$tmp.pending"
mkdir -p "$tmp/analyzer/core" "$tmp/analyzer/analysis" "$tmp/analyzer/cli" \
    "$tmp/reports" "$tmp/plugin" "$tmp/include/collprof"
printf '#include "cp_up.h"\n#include "cp_low.h"\n' >"$tmp/analyzer/core/cp_low.c"
: >"$tmp/analyzer/core/cp_low.h"
: >"$tmp/analyzer/analysis/cp_up.h"
printf '#include "cp_up.h"\n#include "cp_low.h"\n#include "collprof/f.h"\n' \
    >"$tmp/analyzer/cli/cmd_x.c"
: >"$tmp/include/collprof/f.h"
printf '#include "cp_up.h"\n' >"$tmp/reports/cp_r.c"
# the plugin may include include/collprof (its error type), nothing of the
# analyzer
printf '#include "cp_low.h"\n#include "cp_up.h"\n#include "cp_p.h"\n#include "collprof/f.h"\n' \
    >"$tmp/plugin/cp_p.c"
: >"$tmp/plugin/cp_p.h"
out=$(python3 "$check_py" "$tmp")
ok $((! $?)) "a planted tree with upward includes fails the check"
echo "$out" | grep -q '^analyzer/core/cp_low.c includes cp_up.h (analyzer/core may not include analyzer/analysis)$'
ok $? "core -> analysis is named"
echo "$out" | grep -q '^reports/cp_r.c includes cp_up.h'
ok $? "reports -> analysis is named"
echo "$out" | grep -q '^plugin/cp_p.c includes cp_up.h'
ok $? "plugin -> analyzer/analysis is named"
echo "$out" | grep -q '^plugin/cp_p.c includes cp_low.h (plugin may not include analyzer/core)$'
ok $? "plugin -> analyzer/core is named"
n=$(echo "$out" | grep -c ' may not include ')
[ "$n" -eq 4 ]
ok $? "cli's includes, same-folder and public headers are allowed ($n violations)"
: >"$tmp/reports/cp_low.h"
out=$(python3 "$check_py" "$tmp")
echo "$out" | grep -q '^cp_low.h is in analyzer/core and reports$'
ok $? "a header name held by two folders is named"
done_testing
