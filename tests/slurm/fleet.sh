#!/bin/sh
# fleet.sh - the fleet view on a real Slurm cluster of 4 emulated nodes:
# 12 jobs of two users, a link (n2-n4) planted slow in six of them (train_sim
# 3d, simnccl's link), a straggler on n3 in the six others (ddp, rank 5
# computing 20 ms longer).  slurmstepd leaves each step in the spool
# (fleet_spool=); a root-run `collprof fleet ingest --spool` after each job
# puts it into an SQLite fleet database and runs the site's hook for each
# link or node that became bad.  Then: `fleet links` names n2-n4 bad and no
# other pair, `fleet nodes` names n3 bad, `--drain-commands` prints its
# scontrol line, and the hook ran once for each.  Root only (skips else).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/slurm/lib.sh"

CP=$CP_INST/bin/collprof
cd "$BASE/tmp" || exit 1
spool=$BASE/fleet-spool
db=$BASE/fleet.db
hook=$BASE/fleet-alert
install -d -m 700 "$spool"
cat >"$hook" <<EOF2
#!/bin/sh
echo "\$COLLPROF_FLEET_KIND \$COLLPROF_FLEET_SUBJECT \$COLLPROF_FLEET_VERDICT" >>"$BASE/alerts.txt"
EOF2
chmod 755 "$hook"
plugstack "fleet_spool=$spool"
cat >"$BASE/slow.topo" <<'EOF2'
nodes 4
intra latency=5us bandwidth=2GB/s
inter latency=20us bandwidth=25MB/s
link n2 n4 bandwidth=6250KB/s
EOF2
install -d -o "$TEST_USER" -m 755 "$BASE/user"

# job WHO SHAPE: one srun --collprof step as root or the test user, then
# the site's drain of the spool
job() {
    who=$1 shape=$2
    case $shape in
    link) args="--pattern 3d" topo="SIMNCCL_TOPO=$BASE/slow.topo" ;;
    late) args="--pattern ddp --late 5:20" topo="" ;;
    esac
    if [ "$who" = root ]; then
        (cd "$BASE/tmp" && env $run_env $topo srun --collprof -N4 -n8 "$TSIM" \
            $args --steps 4 --bucket-mb 2 >"$BASE/job.out" 2>"$BASE/job.err")
    else
        (cd "$BASE/user" && as_user env $run_env $topo srun --collprof -N4 -n8 \
            "$TSIM" $args --steps 4 --bucket-mb 2 >"$BASE/job.out" 2>"$BASE/job.err")
    fi
    rc=$?
    grep '^collprof: ' "$BASE/job.err" | sed 's/^/#   /'
    # slurmstepd's exit (the entry) may come a moment after srun's
    j=$(sed -n 's/^collprof: job \([0-9]*\)\.0: .*/\1/p' "$BASE/job.err" | head -n 1)
    i=0
    while [ -n "$j" ] && [ ! -f "$spool/$j.0" ] && [ $i -lt 100 ]; do
        sleep 0.1; i=$((i + 1))
    done
    "$CP" fleet ingest --spool "$spool" --db "$db" --alert "$hook" \
        >"$BASE/ingest.out" 2>"$BASE/ingest.err"
    irc=$?
    sed 's/^/#   ingest: /' "$BASE/ingest.out" "$BASE/ingest.err"
    ok $([ $rc -eq 0 ] && [ $irc -eq 0 ]; echo $?) "job $3 ($who, $shape): step and ingest exit 0 ($rc, $irc)"
}

n=0
for spec in root:link user:late root:late user:link root:link user:late \
            user:link root:late user:late root:link user:link root:late; do
    n=$((n + 1))
    job "${spec%%:*}" "${spec#*:}" "$n"
done
left=$(ls -A "$spool" | wc -l)
ok $([ "$left" -eq 0 ]; echo $?) "the spool is drained ($left entries left: $(ls -A "$spool" | tr '\n' ' '))"

"$CP" fleet links --db "$db" --json >links.json 2>links.err
ok $? "fleet links --json"
"$CP" fleet nodes --db "$db" --json >nodes.json 2>nodes.err
ok $? "fleet nodes --json"
# pycheck NAME 'PYTHON EXPR' [VARS...]: a point on links.json (L) and
# nodes.json (N), the expression's value printed as a diagnostic
pycheck() {
    python3 - "$2" <<'PY'
import json, sys
L = json.load(open("links.json"))["links"]
N = json.load(open("nodes.json"))["nodes"]
def pair(a, b):
    return ([l for l in L if l["nodes"] == [a, b]] or [{}])[0]
def node(n):
    return ([x for x in N if x["node"] == n] or [{}])[0]
ok, shown = eval(sys.argv[1])
print("#   %s" % (shown,))
sys.exit(0 if ok else 1)
PY
    ok $? "$1"
}
pycheck "fleet links: n2-n4 bad, no other pair bad" \
    '(lambda b: (b == [["n2", "n4"]], b))([l["nodes"] for l in L if l["verdict"] == "bad"])'
pycheck "n2-n4: slow in its 6 jobs, of 2 users" \
    '(lambda l: (l.get("jobs_slow") == 6 and l.get("users") == 2, l))({k: pair("n2", "n4").get(k) for k in ("jobs_crossed", "jobs_measured", "jobs_slow", "users")})'
pycheck "fleet nodes: n3 bad, no other node bad" \
    '(lambda b: (b == ["n3"], b))([x["node"] for x in N if x["verdict"] == "bad"])'
pycheck "n3: straggler in its 6 jobs, of 2 users" \
    '(lambda x: (x.get("jobs_straggler") == 6 and x.get("users_straggler") == 2, x))({k: node("n3").get(k) for k in ("jobs", "jobs_straggler", "users", "users_straggler")})'
"$CP" fleet nodes --db "$db" --drain-commands >drain.out 2>drain.err
grep -q '^scontrol update nodename=n3 state=drain reason="collprof: ' drain.out &&
    [ "$(grep -c '^scontrol' drain.out)" -eq 1 ]
ok $? "--drain-commands: one scontrol line, for n3 ($(cat drain.out))"
"$CP" fleet report --db "$db" -o "$BASE/fleet.html" >report.out 2>report.err
ok $([ $? -eq 0 ] && grep -q 'n2' "$BASE/fleet.html" && grep -q '<svg' "$BASE/fleet.html"; echo $?) \
    "fleet report: fleet.html with the node-pair matrix ($(head -c 200 report.err))"
sort "$BASE/alerts.txt" >alerts.sorted 2>/dev/null
sed 's/^/#   alert: /' alerts.sorted
printf 'link n2,n4 bad\nnode n3 bad\n' | cmp -s - alerts.sorted
ok $? "the site's hook ran once for the link and once for the node"
done_testing
