# lib.sh - shared set-up of the report.html shell tests; source it after
# tests/tap.sh.  Adds to tests/integration/lib.sh (paths of the built tools,
# a temp dir $work removed at exit, `need`): where the cases and the helper
# programs are, and headless Chromium.
. "${top_srcdir:?top_srcdir not set (run through make check)}/tests/integration/lib.sh"
cases=$s/tests/reports/cases
gen_logs=$b/tests/tools/gen_logs
named_app=$b/tests/reports/named_app
domcheck="python3 $s/tests/reports/domcheck.py"

# chromium_run ARGS...: headless Chromium with the flags of tools-tried.md,
# a fresh profile each time, and no way out: every host name resolves to
# nothing.
chromium_run() {
    timeout "${CHROMIUM_TIMEOUT:-120}" chromium --headless --no-sandbox \
        --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run \
        --disable-default-apps --disable-extensions \
        '--host-resolver-rules=MAP * ~NOTFOUND' \
        --user-data-dir="$(mktemp -d "$work/chrome-XXXXXX")" "$@"
}

# chromium_dom PAGE OUT: the rendered DOM of PAGE in OUT, Chromium's log in
# OUT.log (console messages appear there as ":CONSOLE" lines).
chromium_dom() {
    chromium_run --enable-logging=stderr --v=0 --dump-dom "file://$1" \
        >"$2" 2>"$2.log" && test -s "$2"
}

# chromium_shot PAGE PNG [WIDTH,HEIGHT]
chromium_shot() {
    chromium_run --screenshot="$2" --window-size="${3:-1400,3200}" \
        "file://$1" >"$2.log" 2>&1
}

# console_clean LOG: no console message at all (the page has no script, so
# any message is a blocked load, a policy violation or a parse problem).
console_clean() {
    if grep -q ':CONSOLE' "$1"; then
        grep ':CONSOLE' "$1" | head -5 | sed 's/^/# /'
        return 1
    fi
    return 0
}

# figures FILE [ID...]: every plot's figure, the verdict and the findings
# are in it (the figures ID... may hold a sentence instead of a plot).
figures() {
    $domcheck figures "$@"
}

# run NAME WANT_STATUS CMD...: one point, that CMD exits WANT_STATUS;
# stdout in $work/out, stderr in $work/err.  err_has TEXT NAME: one point,
# that stderr holds TEXT
run() {
    name=$1 want=$2
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        diag "$name: exit $got, want $want"
        sed 's/^/# /' "$work/err"
        ok 1 "$name"
        return
    fi
    ok 0 "$name"
}
err_has() {
    if grep -qF -- "$1" "$work/err"; then ok 0 "$2"; else
        diag "stderr: $(cat "$work/err")"
        ok 1 "$2"
    fi
}
