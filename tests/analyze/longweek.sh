#!/bin/sh
# longweek.sh - week-long jobs in the capture policy's form, written by
# gen_logs --duration (4 ranks on 4 nodes, 1,000 calls/s per rank, the
# default policy: 605 million calls per rank, each log ~75 MB), through
# collprof analyze: a healthy week gives no warning and no incomplete
# instance, and its long run covers the week; a link slowed 4x from day 3
# is a slowdown (method long_run) since the report's interval that holds
# the truth; a straggler from day 4 is named with its rank, since then; a
# hang at the end is named from the ring as in a short job.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/analyze/lib.sh"
analyze_setup longweek

# week NAME GEN_ARGS...: the logs in $t/NAME, the truth in $t/NAME.truth,
# the report in $t/NAME.rep, the verdict in $t/NAME.verdict
week() {
    name=$1
    shift
    "$gen" -o "$t/$name" --ranks 4 --ranks-per-node 1 --pattern ddp-small \
        --rate 1000 --duration 7d --truth "$t/$name.truth" "$@" \
        >/dev/null 2>"$t/$name.err" &&
        "$cp" analyze "$t/$name" -o "$t/$name.rep" >"$t/$name.verdict" \
            2>>"$t/$name.err"
}
# check NAME EXPECT: report.json against the truth (check.py)
cat >"$t/check.py" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
want = sys.argv[3]
lr = rep['long_run']
iv = lr['intervals']
width = lr['interval_s']
origin = lr['start_ns']
s = rep['summary']
warn = [f for f in rep['findings'] if f['severity'] in ('warning', 'critical')]
problems = rep['inputs'].get('problems', [])
print('# %s: %d intervals of %g s, %d kept calls, %d folded, %d incomplete, '
      '%d input problems; %s' % (want, len(iv), width, lr['kept_calls'],
      lr['folded_calls'], s['incomplete_instances'], len(problems),
      '; '.join('%s %s: %s' % (f['kind'], f['severity'], f['message'][:120])
                for f in warn) or 'no warning'))
bad = []
if s['incomplete_instances'] or problems:
    bad.append('incomplete instances or input problems')
week = 7 * 86400
if not (iv[0]['start_s'] <= width and iv[-1]['end_s'] >= week - width):
    bad.append('the intervals do not cover the week')
if want == 'healthy':
    if warn:
        bad.append('a warning on a healthy week')
else:
    fault = truth['faults'][0]
    at = (fault['from_ns'] - origin) / 1e9
    kind = {'link': 'slowdown', 'straggler': 'straggler'}[want]
    hits = [f for f in warn if f['kind'] == kind and
            f.get('evidence', {}).get('method') == 'long_run']
    if not hits:
        bad.append('no long-run %s' % kind)
    else:
        since = hits[0]['evidence']['since_s']
        print('#   since %.0f s, the truth %.0f s (interval %g s)' % (since, at, width))
        if not since <= at < since + width:
            bad.append('since %.0f s is not the interval of the truth (%.0f s)'
                       % (since, at))
        if want == 'straggler' and hits[0].get('ranks') != [fault['rank']]:
            bad.append('the straggler named is not rank %d' % fault['rank'])
    others = [f for f in warn if f['kind'] != kind]
    if others:
        bad.append('other warnings: %s' % [f['kind'] for f in others])
for b in bad:
    print('#   ' + b)
sys.exit(1 if bad else 0)
EOF

week healthy --seed 3
ok $? "a healthy week: written and analyzed"
python3 "$t/check.py" "$t/healthy.rep/report.json" "$t/healthy.truth" healthy
ok $? "... no warning, nothing incomplete, the long run covers the week"
week link --seed 3 --slow-link 0,1=4:from=3d
ok $? "a link slowed 4x from day 3: written and analyzed"
python3 "$t/check.py" "$t/link.rep/report.json" "$t/link.truth" link
ok $? "... a long-run slowdown since the interval of its start, nothing else"
week late --seed 5 --straggler 2=300us:from=4d
ok $? "rank 2 late by 300 us from day 4: written and analyzed"
python3 "$t/check.py" "$t/late.rep/report.json" "$t/late.truth" straggler
ok $? "... a long-run straggler, rank 2, since the interval of its start"
# the detail windows' straggler (kind arrival) says in which windows it was
# seen: every window from the first after the truth, none before
python3 - "$t/late.rep/report.json" "$t/late.truth" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
at = (truth['faults'][0]['from_ns'] - r['long_run']['start_ns']) / 1e9
wins = r['long_run']['detail_windows']
st = [f for f in r['findings'] if f['kind'] == 'straggler' and
      f['evidence'].get('kind') == 'arrival' and 'method' not in f['evidence']]
w = st[0]['evidence'].get('detail_windows') if st else None
print('# truth %.0f s; %s' % (at, json.dumps(w)))
after = [x for x in wins if x['start_s'] > at]
ok = (w and st[0]['ranks'] == [2] and w['checked'] == len(wins) and
      w['after_s'] < at <= w['since_s'] and w['first'] == after[0]['index'] and
      w['last'] == wins[-1]['index'] and
      w['spans'] == [[after[0]['start_s'], wins[-1]['end_s']]] and
      w['seen'] == len(after) and 'Seen in %d of' % w['seen'] in st[0]['message'])
sys.exit(0 if ok else 1)
EOF
ok $? "... the detail's straggler seen in every window after the truth and in none before"
# late from the start (two days, 8 ranks on 4 nodes): seen in every window,
# the first one first, none before it
"$gen" -o "$t/early" --ranks 8 --ranks-per-node 2 --pattern ddp-small \
    --rate 500 --duration 2d --seed 4 --straggler 5=300us >/dev/null \
    2>"$t/early.err" && "$cp" analyze "$t/early" -o "$t/early.rep" -q
ok $? "rank 5 late by 300 us from the start: written and analyzed"
python3 - "$t/early.rep/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
wins = r['long_run']['detail_windows']
st = [f for f in r['findings'] if f['kind'] == 'straggler' and
      f['evidence'].get('kind') == 'arrival']
w = st[0]['evidence'].get('detail_windows') if st else None
print('# %d windows; %s' % (len(wins), json.dumps(w)))
ok = (w and st[0]['ranks'] == [5] and w['first'] == 0 and
      w['after_s'] is None and w['since_s'] == 0 and
      w['seen'] == w['checked'] == len(wins) and
      w['spans'] == [[0, wins[-1]['end_s']]])
sys.exit(0 if ok else 1)
EOF
ok $? "... seen in every window, since the first"
# a clock step: node n1's clock 5 s ahead from day 3 (the correction holds
# one offset per node): the arrivals it spoils are said to be unsure, no
# straggler is named
week clock --seed 7 --clock-offset 1=5s:from=3d
ok $? "node n1's clock 5 s ahead from day 3: written and analyzed"
python3 - "$t/clock.rep/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
warn = [f['kind'] for f in r['findings'] if f['severity'] in ('warning', 'critical')]
st = [f for f in r['findings'] if f['kind'] == 'straggler']
print('# warnings %s; %s' % (warn, [f['message'][:160] for f in st]))
sys.exit(0 if not warn and st and st[0]['evidence'].get('beyond_span') and
         st[0]['evidence'].get('sure') is False else 1)
EOF
ok $? "... no warning: the lateness beyond the run's span said to be the clocks', not sure"
week hang --seed 6 --hang 1
head -n 1 "$t/hang.verdict" | sed 's/^/# /'
grep -q 'HUNG in allreduce seq [0-9]* on world: rank 1 (n1) never arrived' \
    "$t/hang.verdict"
ok $? "a hang at the end of the week: rank 1 named"
done_testing
