#!/bin/sh
# pg.sh - tests/fleet/fleet.sh again, on a real PostgreSQL server: started
# here by initdb and pg_ctl on a private port, its socket in a directory of
# this test's own and no TCP listener, as an unprivileged user (nobody when
# run as root: PostgreSQL refuses to run as root), stopped by its PID at
# the end whatever happens.  Skipped, saying why, where PostgreSQL or psql
# is not installed or collprof was built without libpq.
. "${top_srcdir:-.}/tests/tap.sh"
s=${top_srcdir:-.}
b=${top_builddir:-.}
cp="$b/analyzer/collprof"
[ -x "$cp" ] || skip_all "collprof not built"
. "$s/tests/fleet/pgserver.sh"
why=$(pg_missing)
[ -z "$why" ] || skip_all "$why"
"$cp" fleet links --db postgresql://nobody@/none?host=/nonexistent 2>&1 |
    grep -q "built without libpq" && skip_all "collprof was built without libpq"
trap pg_stop EXIT
trap 'exit 1' INT TERM
pg_start "-c max_connections=8 -c superuser_reserved_connections=0 -c fsync=off" ||
    { echo "not ok 1 - PostgreSQL started"; exit 1; }
echo "# PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') as $(stat -c %U "$pg_dir/data"), pid $pg_pid, socket $pg_dir port $pg_port"
base=$pg_base
psql -X -q "postgresql://fleet@/postgres?$base" -c "CREATE DATABASE fleet" -c "CREATE DATABASE par" ||
    { echo "not ok 1 - databases created"; exit 1; }
# a password in the URI (trust lets it in): never shown.  8 connections
# at most: most of the 200 ingests at once wait for a free one
FLEET_DB="postgresql://fleet:not-shown@/fleet?$base" \
FLEET_DB_PAR="postgresql://fleet@/par?$base" \
    sh "$s/tests/fleet/fleet.sh"
st=$?
echo "# the server refused $(grep -c 'too many clients' "$pg_dir/server.log") connections as full (max_connections 8); those ingests waited for a free one"
exit $st
