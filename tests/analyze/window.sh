#!/bin/sh
# window.sh - collprof analyze --skip-steps / --steps A:B / --from --to on
# the demo's job (train_sim ddp, 8 ranks on 4 nodes, 5 steps: a broadcast
# of the weights and a bcast of the config, 28 calls per step, a reduce of
# the metrics at the end): each window holds exactly the calls it should,
# and the report says which window it covers.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$simrun" "$train_sim" "$shim"

d=$work/logs
"$collprof" record -q -o "$d" -- "$simrun" -n 8 --nodes 4 --timeout 120 \
    -- "$train_sim" --pattern ddp --steps 5 >"$work/run.out" 2>&1
ok $? "recorded train_sim ddp, 8 ranks, 5 steps"
total=$("$collprof" dump --csv "$d" | sed 1d | wc -l)
ok $([ "$total" -eq $((8 * 143)) ]; echo $?) "$total calls in the logs (8 x 143)"

js() { python3 -c "import json, sys; d = json.load(open('$1/report.json')); print($2)"; }
an() { out=$1; shift; "$collprof" analyze -q "$d" -o "$work/$out" "$@" 2>"$work/$out.err"; }

an all
ok $? "whole run"
check "whole run: summary.window.by is 'the whole run'" \
    test "$(js "$work/all" "d['summary']['window']['by'], d['summary']['calls'], d['summary']['window']['from_s']")" = "the whole run $total None"

an skip1 --skip-steps 1
ok $? "--skip-steps 1"
# the first step: the two setup calls before the pattern and 28 of step 0
first=$((8 * (2 + 28)))
check "--skip-steps 1: calls = total - the first step's ($total - $first)" \
    test "$(js "$work/skip1" "d['summary']['calls']")" -eq $((total - first))
check "... calls_left_out = the first step's" \
    test "$(js "$work/skip1" "d['summary']['window']['calls_left_out']")" -eq $first
check "... the report says the window: by '--skip-steps 1', from_s > 0, to_s open" \
    test "$(js "$work/skip1" "d['summary']['window']['by'], d['summary']['window']['from_s'] > 0, d['summary']['window']['to_s']")" = "--skip-steps 1 True None"
check "... 4 steps left" test "$(js "$work/skip1" "d['summary']['steps']")" -eq 4
check "... the first broadcast is gone (no broadcast row)" \
    test "$(js "$work/skip1" "len([r for r in d['collectives'] if r['op'] == 'broadcast'])")" -eq 0

an s13 --steps 1:3
ok $? "--steps 1:3"
check "--steps 1:3: exactly steps 1 and 2 (2 x 28 x 8 calls)" \
    test "$(js "$work/s13" "d['summary']['calls']")" -eq $((2 * 28 * 8))
check "... its window starts where --skip-steps 1 starts" \
    test "$(js "$work/s13" "d['summary']['window']['from_s']")" = "$(js "$work/skip1" "d['summary']['window']['from_s']")"

# --from/--to: the calls that start in the window, by the report's clock
an ft --from 300ms --to 900ms
ok $? "--from 300ms --to 900ms"
want=$(python3 "$top_srcdir/tests/analyze/window_calls.py" "$work/all/report.json" \
    "$d" "$collprof" 300000000 900000000)
got=$(js "$work/ft" "d['summary']['calls']")
ok $([ "$got" -eq "$want" ]; echo $?) "--from/--to: the calls that start in [300 ms, 900 ms) ($got, the logs say $want)"
check "... by '--from/--to', from_s 0.3, to_s 0.9" \
    test "$(js "$work/ft" "d['summary']['window']['by'], d['summary']['window']['from_s'], d['summary']['window']['to_s']")" = "--from/--to 0.3 0.9"

# what a user gets wrong
an bad1 --skip-steps 7
ok $([ $? -eq 2 ]; echo $?) "--skip-steps 7 of 5: usage error"
check "... says which steps are known" grep -q "collprof analyze: --skip-steps 7: the run has steps 0 to 4" "$work/bad1.err"
an bad2 --steps 3:1
check "--steps 3:1: says what a range is" grep -q "a range A:B of steps (from 0, B excluded" "$work/bad2.err"
an bad3 --skip-steps 1 --from 1s
check "steps and times together: refused" grep -q "not both" "$work/bad3.err"
done_testing
