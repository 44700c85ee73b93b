#!/bin/sh
# kinds.sh - the kinds of finding are one table (tests/analyze/kinds.py
# says what is checked): the tree as it is, then copies of it with a kind
# emitted but not in the table, a row never emitted, a bare-string kind, a
# kind compared as a string literal in reports/ or in the SPANK plugin, a
# severity named by a literal in the plugin, a kind missing from the
# docs' list and an expectation naming an unknown kind, each of which the
# check must name.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/tap.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
check_py="$top_srcdir/tests/analyze/kinds.py"
s=$top_srcdir

out=$(python3 "$check_py" "$s")
ok $? "the kinds' table, the detectors, the docs' list, report.html and the test reports agree"
[ -n "$out" ] && echo "$out" | sed 's/^/# /'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fresh() {
    rm -rf "$tmp/t"
    mkdir -p "$tmp/t/common" "$tmp/t/analyzer/analysis" \
        "$tmp/t/analyzer/judge" "$tmp/t/docs" "$tmp/t/reports" \
        "$tmp/t/tests/analyze/cases/x"
    cp "$s"/common/cp_kinds.[ch] "$tmp/t/common/"
    cp "$s"/analyzer/analysis/*.c "$tmp/t/analyzer/analysis/"
    cp "$s"/analyzer/judge/*.c "$tmp/t/analyzer/judge/"
    cp "$s"/docs/*.md "$tmp/t/docs/"
    cp "$s/reports/cp_html.c" "$s/reports/cp_html_plots.c" "$tmp/t/reports/"
}
# planted NAME PATTERN: the check fails and names PATTERN
planted() {
    o=$(python3 "$check_py" "$tmp/t")
    rc=$?
    [ $rc -ne 0 ] && echo "$o" | grep -q "$2"
    ok $? "$1 is named ($(echo "$o" | head -n 1))"
}

fresh
python3 "$check_py" "$tmp/t" >/dev/null
ok $? "a copy of the tree passes"

fresh
sed -i 's/CP_KIND_CLOCK_OFFSET, CP_SEVERITY_INFO/CP_KIND_CLOCK_SKEW, CP_SEVERITY_INFO/' \
    "$tmp/t/analyzer/judge/cp_det_clocks.c"
planted "a kind emitted but not in the table" \
    'kind clock_skew is emitted but not in the table'

fresh
sed -i 's/CP_KIND_CLOCK_OFFSET, CP_SEVERITY_INFO/CP_KIND_FAILED_CALLS, CP_SEVERITY_INFO/' \
    "$tmp/t/analyzer/judge/cp_det_clocks.c"
planted "a row never emitted" \
    'kind clock_offset is in the table but never emitted'

fresh
sed -i 's/CP_KIND_CLOCK_OFFSET, CP_SEVERITY_INFO/"clock_offset", CP_SEVERITY_INFO/' \
    "$tmp/t/analyzer/judge/cp_det_clocks.c"
planted "a kind as a bare string" 'emits a kind not named by the enum'

fresh
sed -i '/^| `degraded_port` |/d' "$tmp/t/docs/analysis.md"
planted "a row missing from the docs' list" \
    'docs/analysis.md does not list degraded_port'

fresh
sed -i 's/f->kid != CP_KIND_SLOW_LINK \&\&/strcmp(f->kind, "slow_link") \&\&/' \
    "$tmp/t/reports/cp_html_plots.c"
planted "a kind compared as a string literal in reports/" \
    'reports/cp_html_plots.c names kind slow_link as a string literal'

fresh
mkdir -p "$tmp/t/plugin"
cp "$s/plugin/cp_plugin_probe.c" "$s/plugin/cp_spank_common.c" "$tmp/t/plugin/"
sed -i 's/kind != CP_KIND_SLOW_LINK)/strcmp(json_string_value(json_object_get(item, "kind")), "slow_link") != 0)/' \
    "$tmp/t/plugin/cp_plugin_probe.c"
planted "a kind compared as a string literal in plugin/" \
    'plugin/cp_plugin_probe.c names kind slow_link as a string literal'

fresh
mkdir -p "$tmp/t/plugin"
cp "$s/plugin/cp_spank_common.c" "$tmp/t/plugin/"
sed -i 's/f->severity == CP_SEVERITY_CRITICAL ? LOG_CRIT/strcmp(cp_severity_name(f->severity), "critical") == 0 ? LOG_CRIT/' \
    "$tmp/t/plugin/cp_spank_common.c"
planted "a severity as a string literal in plugin/" \
    'plugin/cp_spank_common.c names critical as a string literal'

fresh
echo 'findings[kind=tcp_fallback].severity == "critical"' \
    >"$tmp/t/tests/analyze/cases/x/expected"
planted "an expectation with a kind not in the table" \
    'holds kind tcp_fallback, not in the table'
done_testing
