#!/bin/sh
# run-fleet.sh - the fleet database at scale (make bench; docs/fleet.md,
# "Figures"), on SQLite and, where PostgreSQL is installed, on a server of
# its own (tests/fleet/pgserver.sh): the ingest rate of one `collprof
# fleet ingest` of 1,000 reports (a 16-process job on 8 nodes, each copy
# its own job), in steps per second; then `fleet links`, `nodes`, `ports`
# and `export` on a database of 100,000 steps over 2,000 nodes (800,000
# pair rows, 800,000 node rows, 800,000 port rows, written straight into
# the tables by tests/fleet/lib.py gen), with each command's peak memory.
# FLEET_BENCH_STEPS and FLEET_BENCH_NODES change the size.
set -eu
b=${top_builddir:?}
s=$(cd "${top_srcdir:?}" && pwd)
cp="$b/analyzer/collprof"
steps=${FLEET_BENCH_STEPS:-100000}
nodes=${FLEET_BENCH_NODES:-2000}
[ -x "$b/tests/tools/gen_logs" ] || { echo "== fleet: skipped (gen_logs not built)"; exit 0; }
t=$(mktemp -d /tmp/cp-bench-fleet-XXXXXX)
. "$s/tests/fleet/pgserver.sh"
trap 'pg_stop || true; rm -rf "$t"' EXIT INT TERM
echo "== fleet: ingest rate and judging at $steps steps over $nodes nodes (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
"$b/tests/tools/gen_logs" -o "$t/logs" --pattern 3d --ranks 16 --ranks-per-node 2 \
    --slow-link 0,1=4 --job-id 1 >/dev/null
python3 "$s/tests/fleet/lib.py" ports "$t/logs"
"$cp" analyze -q "$t/logs" -o "$t/out"
mkdir "$t/copies"
python3 "$s/tests/fleet/lib.py" copies "$t/out/report.json" "$t/copies" 1000 100000

# bench NAME DB: the figures of one back end
bench() {
    name=$1 db=$2
    start=$(date +%s.%N)
    "$cp" fleet ingest -q --db "$db" "$t"/copies/*.json
    end=$(date +%s.%N)
    python3 -c "import sys; d=float(sys.argv[2])-float(sys.argv[1]); print('  %-10s ingest: 1000 reports in %.2f s, %.0f steps/s (%.1f ms a report)' % (sys.argv[3], d, 1000/d, d))" \
        "$start" "$end" "$name"
    start=$(date +%s.%N)
    python3 "$s/tests/fleet/lib.py" gen "$db" "$steps" "$nodes"
    end=$(date +%s.%N)
    python3 -c "import sys; print('  %-10s %d generated steps written in %.1f s' % (sys.argv[3], int(sys.argv[4]), float(sys.argv[2])-float(sys.argv[1])))" \
        "$start" "$end" "$name" "$steps"
    for cmd in links nodes ports "export -o $t/fleet.json"; do
        /usr/bin/time -f "%e %M" -o "$t/time" "$cp" fleet $cmd --db "$db" >"$t/cmd.out"
        set -- $(cat "$t/time")
        echo "  $name fleet ${cmd%% *}: $1 s, $(($2 / 1024)) MiB"
    done
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['summary']; print('  %s: %d steps, %d pairs (%d bad), %d nodes (%d bad), %d ports; the export %.1f MB' % (sys.argv[2], s['steps'], s['pairs'], s['bad_links'], s['nodes'], s['bad_nodes'], len(d['ports']), len(open(sys.argv[1]).read())/1e6))" \
        "$t/fleet.json" "$name"
}
bench sqlite "$t/fleet.db"
if [ -n "$(pg_missing)" ]; then
    echo "  postgresql: skipped ($(pg_missing))"
elif "$cp" fleet links --db postgresql://nobody@/none?host=/nonexistent 2>&1 |
    grep -q "built without libpq"; then
    echo "  postgresql: skipped (collprof built without libpq)"
elif pg_start "-c max_connections=20"; then
    psql -X -q "postgresql://fleet@/postgres?$pg_base" -c "CREATE DATABASE bench"
    bench postgresql "postgresql://fleet@/bench?$pg_base"
else
    echo "  postgresql: the server did not start"
fi
