#!/bin/sh
# fleet.sh - collprof fleet on reports of collprof analyze (docs/fleet.md).
#
# Ten jobs of gen_logs, each analyzed by collprof analyze: five over
# nodes n0-n3, with n0-n1 planted slow in three (of two users) and
# measured healthy in the other two, n2-n3 slow in one, and port snapshots with
# n1's mlx5_0 counting errors in two jobs and n3's mlx5_1 at half rate in
# one; five over m0-m3, with m2 a straggler in three jobs of two users and
# m0 in two jobs of one user.  Then: the verdicts (n0-n1 bad, n2-n3
# suspect and not bad, m2 bad, m0 suspect, the ports), a report ingested twice counting once, damaged and foreign
# reports refused by file and key with nothing written, a database of a
# newer schema, a read-only database and a full disk refused with nothing
# half-written, 200 ingests at once losing and doubling nothing, the
# metrics checked by promtool, export's collprof.fleet/1.
#
# FLEET_DB (and FLEET_DB_PAR, a second, empty one) name the databases:
# pg.sh runs this on PostgreSQL; by default SQLite files of its own.
. "${top_srcdir:-.}/tests/tap.sh"
s=${top_srcdir:-.}
b=${top_builddir:-.}
cp="$b/analyzer/collprof"
gen="$b/tests/tools/gen_logs"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
t=$(mktemp -d /tmp/cp-fleet-XXXXXX)
chmod 755 "$t"
[ -n "$FLEET_KEEP" ] && echo "# files in $t" || trap 'rm -rf "$t"' EXIT INT TERM
db=${FLEET_DB:-$t/fleet.db}
par=${FLEET_DB_PAR:-$t/par.db}
case $db in postgres*) kind=postgresql ;; *) kind=sqlite ;; esac
lib() { python3 "$s/tests/fleet/lib.py" "$@"; }
fleet() { "$cp" fleet "$@"; }
echo "# back end: $kind"

# job NAME ID GEN-ARGS...: logs by gen_logs, port snapshots of n0-n3 with
# PORTS planted (none when PORTS is "none"), the report by collprof
# analyze in $t/NAME.json
job() {
    name=$1 id=$2
    shift 2
    "$gen" -o "$t/$name" --ranks 8 --ranks-per-node 2 --job-id "$id" \
        --seed "$id" "$@" >/dev/null &&
    { [ "$PORTS" = none ] || lib ports "$t/$name" $PORTS; } &&
    "$cp" analyze -q "$t/$name" -o "$t/$name.out" >"$t/$name.log" 2>&1 &&
    cp "$t/$name.out/report.json" "$t/$name.json"
}
slow01="--pattern 3d --slow-link 0,1=4"
made=0
PORTS="errors:n1:mlx5_0" job l1 201 $slow01 && made=$((made + 1))
PORTS="errors:n1:mlx5_0" job l2 202 $slow01 && made=$((made + 1))
PORTS= job l3 203 $slow01 && made=$((made + 1))
PORTS= job l4 204 --pattern 3d && made=$((made + 1))
PORTS="rate:n3:mlx5_1" job l5 205 --pattern 3d --slow-link 2,3=4 && made=$((made + 1))
m="--pattern mixed --node-prefix m"
PORTS=none job s1 301 $m --straggler 4=2ms && made=$((made + 1))
PORTS=none job s2 302 $m --straggler 4=2ms && made=$((made + 1))
PORTS=none job s3 303 $m --straggler 4=2ms && made=$((made + 1))
PORTS=none job s4 304 $m --straggler 0=2ms && made=$((made + 1))
PORTS=none job s5 305 $m --straggler 0=2ms && made=$((made + 1))
ok $([ $made -eq 10 ]; echo $?) "ten jobs recorded by gen_logs and analyzed by collprof analyze"
python3 - "$t" <<'PY'
import json, sys
t = sys.argv[1]
def slow(n):
    r = json.load(open("%s/%s.json" % (t, n)))
    return sorted(sorted(l["nodes"]) for l in r["links"] if l["verdict"] == "slow")
def strag(n):
    r = json.load(open("%s/%s.json" % (t, n)))
    return sorted(x for f in r["findings"] if f["kind"] == "straggler"
                  and f["severity"] != "info" for x in f["nodes"])
bad = []
for n in ("l1", "l2", "l3"):
    if slow(n) != [["n0", "n1"]]: bad.append("%s slow %s" % (n, slow(n)))
if slow("l4"): bad.append("l4 slow %s" % slow("l4"))
if slow("l5") != [["n2", "n3"]]: bad.append("l5 slow %s" % slow("l5"))
for n in ("s1", "s2", "s3"):
    if strag(n) != ["m2"]: bad.append("%s straggler %s" % (n, strag(n)))
for n in ("s4", "s5"):
    if strag(n) != ["m0"]: bad.append("%s straggler %s" % (n, strag(n)))
for b in bad: print("# " + b)
sys.exit(1 if bad else 0)
PY
ok $? "... each report names what was planted in its job"

# ---- ingest ---------------------------------------------------------------
start=$(date +%s.%N)
rc=0
for j in l1:alice l2:bob l3:alice l4:carol l5:bob s1:alice s2:bob s3:alice \
         s4:carol s5:carol; do
    fleet ingest -q --db "$db" --user "${j#*:}" --cluster lab \
        "$t/${j%%:*}.json" || rc=1
done
end=$(date +%s.%N)
ok $rc "ten reports ingested"
echo "# ingest: $(python3 -c "print('%.1f' % (($end - $start) * 100))") ms per report ($kind, one process each)"
# nobody_runs: root with runuser, and the build's collprof is one that
# nobody can run (a build under a 0700 directory is not)
nobody_runs() {
    [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null 2>&1 &&
        runuser -u nobody -- test -x "$cp"
}
if [ $kind = sqlite ] && nobody_runs; then
    runuser -u nobody -- "$cp" fleet links --db "$db" >"$t/ro-links.txt" 2>&1
    check_sh "a reader who may not write the database or its directory (nobody) reads it" \
        'grep -q "^bad  *n0 n1 " "$t/ro-links.txt"'
else
    skip 1 "a reader without write access: SQLite, as root (runuser nobody), the build reachable by nobody"
fi
counts=$(lib counts "$db")
check "... ten steps, their links, nodes, ports and findings" sh -c \
    "set -- $counts; [ \$1 -eq 10 ] && [ \$2 -ge 40 ] && [ \$3 -eq 40 ] && [ \$4 -eq 40 ] && [ \$5 -ge 2 ]"
who=$(lib sql "$db" "SELECT user_name, user_from, cluster, cluster_from, job_from FROM steps WHERE job_id = '202'")
check_sh "... the identity given is recorded as the caller's, the job as the report's" \
    '[ "$who" = "bob	caller	lab	caller	report" ]'

# ---- verdicts -------------------------------------------------------------
fleet links --db "$db" --json >"$t/links.json"
ok $? "fleet links --json"
python3 - "$t/links.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
L = {tuple(l["nodes"]): l for l in d["links"]}
bad = []
a = L.get(("n0", "n1"))
if d["schema"] != "collprof.fleet/1": bad.append("schema %s" % d["schema"])
if not a or a["verdict"] != "bad" or a["jobs_slow"] != 3 or a["jobs_measured"] != 5:
    bad.append("n0-n1: %s" % (a and {k: a[k] for k in ("verdict", "jobs_slow", "jobs_measured")}))
elif d["links"][0] is not a: bad.append("n0-n1 is not listed first")
elif a["users"] != 3 or len(a["history"]) != 5 or a["first_slow"] is None:
    bad.append("n0-n1 users %s history %d" % (a["users"], len(a["history"])))
elif sorted((p["node"], p["device"]) for p in a["ports"]) != \
        [("n0", "mlx5_0"), ("n0", "mlx5_1"), ("n1", "mlx5_0"), ("n1", "mlx5_1")]:
    bad.append("n0-n1 ports %s" % a["ports"])
c = L.get(("n2", "n3"))
if not c or c["verdict"] != "suspect" or c["jobs_slow"] != 1:
    bad.append("n2-n3: %s" % (c and c["verdict"]))
others = [k for k, l in L.items() if l["verdict"] == "bad" and k != ("n0", "n1")]
if others: bad.append("other bad pairs: %s" % others)
if d["summary"]["bad_links"] != 1 or d["summary"]["jobs"] != 10 or d["summary"]["users"] != 3:
    bad.append("summary %s" % d["summary"])
if [r["name"] for r in d["rules"]][:2] != ["link_bad", "link_suspect"]:
    bad.append("rules %s" % d["rules"])
if d["nodes"] or d["ports"]: bad.append("links --json lists nodes or ports")
for b in bad: print("# FAIL " + b)
sys.exit(1 if bad else 0)
PY
ok $? "links: n0-n1, slow in 3 of the 5 jobs that measured it, is bad and first, with its ports; n2-n3, slow once, is suspect, not bad; nothing else bad"

fleet links --db "$db" >"$t/links.txt"
sed 's/^/#   /' "$t/links.txt"
check_sh "links' table: the header, then the bad pair first; a line counts the pairs without evidence" \
    'head -n 1 "$t/links.txt" | grep -q "^verdict  node pair" && sed -n 2p "$t/links.txt" | grep -q "^bad  *n0 n1 " && grep -q "node pairs had no evidence" "$t/links.txt"'

fleet nodes --db "$db" --json >"$t/nodes.json"
python3 - "$t/nodes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
N = {n["node"]: n for n in d["nodes"]}
bad = []
n2, n0 = N.get("m2"), N.get("m0")
if not n2 or n2["verdict"] != "bad" or n2["jobs_straggler"] != 3 or n2["users_straggler"] != 2:
    bad.append("n2 %s" % n2)
if not n0 or n0["verdict"] != "suspect" or n0["jobs_straggler"] != 2 or n0["users_straggler"] != 1:
    bad.append("n0 %s" % (n0 and {k: n0[k] for k in ("verdict", "jobs_straggler", "users_straggler")}))
if [n["verdict"] for n in d["nodes"]][:3] != ["bad", "suspect", "ok"]:
    bad.append("order %s" % [n["verdict"] for n in d["nodes"]])
if n2 and not any(h["straggler"] and h["delay_s"] for h in n2["history"]):
    bad.append("n2's history has no delay")
for b in bad: print("# FAIL " + b)
sys.exit(1 if bad else 0)
PY
ok $? "nodes: m2, a straggler in 3 jobs of 2 users, is bad; m0, in 2 jobs of one user, is that user's issue (suspect)"

fleet nodes --db "$db" --drain-commands >"$t/drain"
check_sh "nodes --drain-commands: one scontrol line, for m2" \
    '[ "$(wc -l <"$t/drain")" -eq 1 ] && grep -q "^scontrol update nodename=m2 state=drain reason=\"collprof: straggler in 3 of 5 jobs (2 users)\"$" "$t/drain"'

fleet ports --db "$db" --json >"$t/ports.json"
python3 - "$t/ports.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
P = {(p["node"], p["device"]): p for p in d["ports"]}
bad = []
e, r = P.get(("n1", "mlx5_0")), P.get(("n3", "mlx5_1"))
if not e or e["verdict"] != "bad" or e["jobs_errors"] != 2 or e["counters"].get("symbol_error") != 10:
    bad.append("n1 mlx5_0 %s" % e)
if not r or r["verdict"] != "suspect" or r["jobs_slow_rate"] != 1 or r["jobs"] != 5:
    bad.append("n3 mlx5_1 %s" % r)
if [p["verdict"] for p in d["ports"]].count("ok") != len(d["ports"]) - 2:
    bad.append("other ports %s" % [p["verdict"] for p in d["ports"]])
for b in bad: print("# FAIL " + b)
sys.exit(1 if bad else 0)
PY
ok $? "ports: n1's mlx5_0, counting errors in 2 jobs, is bad; n3's mlx5_1, below its peers' rate once, is suspect"

# the same reports in an SQLite file give the same document: one schema,
# the same statements on both back ends
if [ $kind = postgresql ]; then
    for j in l1:alice l2:bob l3:alice l4:carol l5:bob s1:alice s2:bob s3:alice \
             s4:carol s5:carol; do
        fleet ingest -q --db "$t/mirror.db" --user "${j#*:}" --cluster lab \
            "$t/${j%%:*}.json"
    done
    fleet export --db "$db" -o "$t/pg.json" &&
        fleet export --db "$t/mirror.db" -o "$t/lite.json"
    python3 - "$t/pg.json" "$t/lite.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in (a, b):
    d.pop("generated"); d.pop("db")
if a != b:
    for k in a:
        if a[k] != b.get(k): print("# FAIL %s differs" % k)
sys.exit(0 if a == b else 1)
PY
    ok $? "the same ten reports in SQLite: the same collprof.fleet/1, key for key"
else
    skip 1 "PostgreSQL against SQLite: pg.sh"
fi

# ---- the same step twice --------------------------------------------------
before=$(lib counts "$db")
fleet ingest --db "$db" "$t/l1.json" >"$t/again" 2>&1
ok $? "a report ingested again: exit 0"
check "... says it is already in the database" grep -q "step 201.0 of cluster default is already in the database\|already in the database" "$t/again"
fleet ingest -q --db "$db" --job 999 --user mallory "$t/l1.json"
lib fixture job=201 "$t/l1.json" "$t/l1-again.json"
fleet ingest -q --db "$db" --cluster lab "$t/l1-again.json"
check_sh "... as another job (same bytes) or re-written (same cluster, job and step): counted once, nothing added" \
    '[ "$(lib counts "$db")" = "$before" ]'

# ---- damaged and foreign reports ------------------------------------------
# refuse KIND "EXPECTED MESSAGE": a fixture of l4 damaged as KIND is
# refused by file and key, and nothing is written
refuse() {
    lib fixture "$1" "$t/l4.json" "$t/bad-$1.json"
    fleet ingest --db "$db" --cluster lab --job "bad-$1" "$t/bad-$1.json" \
        >"$t/bad.out" 2>"$t/bad.err"
    st=$? file="$t/bad-$1.json" want=$2
    sed 's/^/#   /' "$t/bad.err"
    check_sh "a report $3: exit 1, the message names the file and $4" \
        '[ $st -eq 1 ] && grep -qF "$file" "$t/bad.err" && grep -qF "$want" "$t/bad.err" && [ ! -s "$t/bad.out" ]'
    check_sh "... and nothing of it is written" '[ "$(lib counts "$db")" = "$before" ]'
}
refuse cut "is not a JSON object: line" "cut in half" "where the JSON ends"
refuse schema "key 'schema' is 'collprof.probe/1', not 'collprof.report/1'" \
    "of another schema" "the key"
refuse string "key 'links[0].bytes' should be a number or null, not a string" \
    "with a string where a number goes" "the key"
fleet ingest --db "$db" "$t/l4.json" "$t/bad-cut.json" "$t/l1.json" >/dev/null 2>&1
ok $([ $? -eq 1 ]; echo $?) "several reports, one damaged: exit 1, the others kept"

# ---- export, --since -------------------------------------------------------
fleet export --db "$db" -o "$t/fleet.json"
ok $? "fleet export -o fleet.json"
python3 - "$t/fleet.json" "$kind" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for k in ("schema", "generated", "since", "db", "summary", "rules", "links", "nodes", "ports"):
    if k not in d: bad.append("no key " + k)
for k in ("jobs", "steps", "users", "nodes", "pairs", "bad_links", "suspect_links",
          "bad_nodes", "suspect_nodes", "bad_ports"):
    if not isinstance(d["summary"].get(k), int): bad.append("summary." + k)
if not (d["links"] and d["nodes"] and d["ports"]): bad.append("a list is empty")
h = d["links"][0]["history"][0]
for k in ("job", "step", "user", "end", "bandwidth_Bps", "efficiency", "source", "verdict"):
    if k not in h: bad.append("links[].history[]." + k)
for k in ("job", "step", "user", "end", "straggler", "delay_s"):
    if k not in d["nodes"][0]["history"][0]: bad.append("nodes[].history[]." + k)
if d["since"] is not None: bad.append("since %s" % d["since"])
if sys.argv[2] == "postgresql" and (":" in d["db"].split("@")[0][13:]):
    bad.append("the db's password is shown: %s" % d["db"])
for b in bad: print("# FAIL " + b)
sys.exit(1 if bad else 0)
PY
ok $? "... collprof.fleet/1: every key of the contract, all three lists"
fleet ingest -q --db "$db" --cluster lab --end 2020-01-01T00:00:00Z \
    --job old-1 "$t/bad-string.json" 2>/dev/null
lib fixture job=old-2 "$t/l3.json" "$t/old.json"
fleet ingest -q --db "$db" --cluster lab --user dave --end 2020-01-01T00:00:00Z "$t/old.json"
ok $? "a step that ended in 2020 ingested (--end)"
fleet export --db "$db" --since 7d -o "$t/week.json" &&
    fleet export --db "$db" -o "$t/all.json" &&
    fleet links --db "$db" --since 2099-01-01 --json >"$t/future.json"
ok $? "export --since 7d, and links --since a future date"
check_sh "... the old step counts only without --since; nothing is newer than 2099" \
    'python3 -c "import json,sys; w,a,f=(json.load(open(x)) for x in sys.argv[1:]); sys.exit(not (w[\"summary\"][\"steps\"]==10 and a[\"summary\"][\"steps\"]==11 and a[\"summary\"][\"users\"]==4 and w[\"since\"] and f[\"summary\"][\"steps\"]==0 and f[\"links\"]==[]))" "$t/week.json" "$t/all.json" "$t/future.json"'

# ---- metrics ---------------------------------------------------------------
fleet metrics --db "$db" -o "$t/collprof.prom"
ok $? "fleet metrics -o collprof.prom"
check_sh "... HELP and TYPE before each family; the bad pair and node labelled so" \
    'grep -q "^# TYPE collprof_fleet_link_verdict gauge" "$t/collprof.prom" && grep -q "^collprof_fleet_link_verdict{node_a=\"n0\",node_b=\"n1\",verdict=\"bad\"} 1$" "$t/collprof.prom" && grep -q "^collprof_fleet_node_verdict{node=\"m2\",verdict=\"bad\"} 1$" "$t/collprof.prom"'
check_sh "... written to a temporary name and renamed (no temporary file left)" \
    '[ -z "$(ls -A "$t" | grep "^\.collprof.prom")" ]'
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$t/collprof.prom" >"$t/promtool.out" 2>&1
    st=$?
    sed 's/^/#   /' "$t/promtool.out"
    ok $st "... promtool check metrics accepts it"
else
    skip 1 "promtool not installed (Debian package prometheus)"
fi

# ---- a database of a newer schema -----------------------------------------
before=$(lib counts "$db")
lib sql "$db" "UPDATE schema_version SET version = 99" >/dev/null
fleet ingest --db "$db" "$t/l5.json" >/dev/null 2>"$t/newer"
st=$?
sed 's/^/#   /' "$t/newer"
fleet links --db "$db" >/dev/null 2>"$t/newer-links"
st2=$?
lib sql "$db" "UPDATE schema_version SET version = 2" >/dev/null
check_sh "a database of schema version 99: ingest and links refuse it, saying it is newer" \
    '[ $st -eq 1 ] && [ $st2 -eq 1 ] && grep -q "has schema version 99, newer than this collprof" "$t/newer" && grep -q "newer" "$t/newer-links"'
check_sh "... and nothing was written" '[ "$(lib counts "$db")" = "$before" ]'

# ---- a read-only database --------------------------------------------------
lib fixture job=ro-1 "$t/l5.json" "$t/ro.json"
chmod 644 "$t/ro.json"
if [ $kind = postgresql ]; then
    name=$(lib sql "$db" "SELECT current_database()")
    lib sql "$db" "ALTER DATABASE \"$name\" SET default_transaction_read_only = on" >/dev/null
    fleet ingest --db "$db" "$t/ro.json" >/dev/null 2>"$t/ro.err"
    st=$?
    PGOPTIONS="-c default_transaction_read_only=off" \
        lib sql "$db" "ALTER DATABASE \"$name\" RESET default_transaction_read_only" >/dev/null
    want="read-only transaction"
elif [ "$(id -u)" -eq 0 ] && ! nobody_runs; then
    st=skip # root writes whatever the mode says, and nobody cannot run it
elif [ "$(id -u)" -eq 0 ]; then
    # root writes whatever the mode says: the write is tried as nobody
    chmod 644 "$db"
    runuser -u nobody -- "$cp" fleet ingest --db "$db" "$t/ro.json" >/dev/null 2>"$t/ro.err"
    st=$?
    want="is read-only (Permission denied): nothing can be ingested"
else
    chmod 444 "$db"
    fleet ingest --db "$db" "$t/ro.json" >/dev/null 2>"$t/ro.err"
    st=$?
    chmod 644 "$db"
    want="is read-only"
fi
if [ "$st" = skip ]; then
    skip 1 "a read-only database as root: the build is not reachable by nobody"
else
    sed 's/^/#   /' "$t/ro.err"
    check_sh "a read-only database: exit 1 and a clear error" \
        '[ $st -eq 1 ] && grep -q "$want" "$t/ro.err"'
fi
check_sh "... and nothing was written" '[ "$(lib counts "$db")" = "$before" ]'

# ---- a full disk (SQLite: the file system under the database) -------------
lib fixture big "$t/l5.json" "$t/big.json"
if [ $kind = postgresql ]; then
    skip 3 "a full disk: the PostgreSQL server's own disk is not filled here"
else
    full=$t/full
    mkdir "$full"
    how="ulimit -f (a file size limit)"
    if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=384k tmpfs "$full" 2>/dev/null; then
        how="a 384 KiB tmpfs"
        if [ -n "$FLEET_KEEP" ]; then
            trap 'umount "$full" 2>/dev/null' EXIT INT TERM
        else
            trap 'umount "$full" 2>/dev/null; rm -rf "$t"' EXIT INT TERM
        fi
        fleet ingest -q --db "$full/fleet.db" "$t/l4.json"
        one=$(lib counts "$full/fleet.db")
        fleet ingest --db "$full/fleet.db" "$t/big.json" >/dev/null 2>"$t/full.err"
        st=$?
    else
        fleet ingest -q --db "$full/fleet.db" "$t/l4.json"
        one=$(lib counts "$full/fleet.db")
        (trap '' XFSZ; ulimit -f 768; exec "$cp" fleet ingest --db "$full/fleet.db" \
            "$t/big.json") >/dev/null 2>"$t/full.err"
        st=$?
    fi
    sed 's/^/#   /' "$t/full.err"
    check_sh "a full disk ($how): exit 1, the error says so" \
        '[ $st -eq 1 ] && grep -qi "full\|I/O error\|too large" "$t/full.err"'
    check_sh "... the step before it is whole and nothing of the big report was written" \
        '[ "$(lib counts "$full/fleet.db")" = "$one" ] && [ "${one%% *}" = 1 ]'
    fleet links --db "$full/fleet.db" >/dev/null
    ok $? "... and the database still reads"
    umount "$full" 2>/dev/null
fi

# ---- the caller's nodes ----------------------------------------------------
lib fixture job=nodes-1 "$t/l4.json" "$t/nodes.json"
fleet ingest -q --db "$db" --nodes n0,n1,n2,n3,n9 "$t/nodes.json"
ok $? "--nodes n0,n1,n2,n3,n9: ingested"
got=$(lib sql "$db" "SELECT s.nodes, s.node_count, s.nodes_from, COUNT(*) FROM steps s JOIN step_nodes x ON x.cluster = s.cluster AND x.job_id = s.job_id AND x.step_id = s.step_id WHERE s.job_id = 'nodes-1' GROUP BY s.nodes, s.node_count, s.nodes_from")
check_sh "... the step's nodes are the caller's, and n9, without evidence, has its row: $got" \
    '[ "$got" = "n0 n1 n2 n3 n9	5	caller	5" ]'

# ---- 200 ingests at once ---------------------------------------------------
mkdir "$t/par"
lib copies "$t/l4.json" "$t/par" 200 1000
# run200: the 200 reports ingested by 200 processes at once
run200() {
    i=0
    while [ $i -lt 200 ]; do
        { "$cp" fleet ingest -q --db "$par" "$t/par/r$i.json" 2>"$t/par/err$i" ||
            echo failed >"$t/par/failed$i"; } &
        i=$((i + 1))
    done
    wait
}
start=$(date +%s.%N)
run200
end=$(date +%s.%N)
echo "# 200 ingests at once into a new database: $(python3 -c "print('%.1f' % ($end - $start))") s ($kind)"
failed=$(ls "$t/par" | grep -c '^failed')
[ "$failed" -eq 0 ] || cat "$t"/par/err* | sort | uniq -c | head -5 | sed 's/^/#   /'
ok $([ "$failed" -eq 0 ]; echo $?) "200 ingests at once into a new database: all succeed ($failed failed)"
one=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(len(r['links']), len(r['job']['nodes']), len(r['findings']))" "$t/l4.json")
set -- $one
want="200 $(($1 * 200)) $(($2 * 200)) $((8 * 200)) 0 $(($3 * 200))"
counts=$(lib counts "$par")
check_sh "... nothing lost, nothing doubled (steps, links, nodes, ports, counters, findings: $counts)" \
    '[ "$counts" = "$want" ]'
start=$(date +%s.%N)
run200
end=$(date +%s.%N)
echo "# the same 200 again, at once: $(python3 -c "print('%.1f' % ($end - $start))") s"
failed=$(ls "$t/par" | grep -c '^failed')
check_sh "... the same 200 again at once: all succeed, nothing added" \
    '[ "$failed" -eq 0 ] && [ "$(lib counts "$par")" = "$want" ]'

done_testing
