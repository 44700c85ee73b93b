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
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] && [ -x "$pgbin/pg_ctl" ] ||
    skip_all "PostgreSQL is not installed (Debian package postgresql)"
command -v psql >/dev/null 2>&1 || skip_all "no psql (Debian package postgresql-client)"
"$cp" fleet links --db postgresql://nobody@/none?host=/nonexistent 2>&1 |
    grep -q "built without libpq" && skip_all "collprof was built without libpq"
d=$(mktemp -d /tmp/cp-fleet-pg-XXXXXX)
as=
if [ "$(id -u)" -eq 0 ]; then
    command -v runuser >/dev/null 2>&1 || skip_all "root, and no runuser to start PostgreSQL as nobody"
    chown nobody "$d"
    as="runuser -u nobody --"
fi
pid=
stop() {
    if [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; then
        n=0
        while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do
            sleep 0.2
            n=$((n + 1))
        done
        kill -KILL "$pid" 2>/dev/null
    fi
    rm -rf "$d"
}
trap stop EXIT
trap 'exit 1' INT TERM

$as "$pgbin/initdb" -D "$d/data" -U fleet --auth=trust -E UTF8 --locale=C \
    >"$d/initdb.log" 2>&1 || { sed 's/^/# /' "$d/initdb.log"; skip_all "initdb failed"; }
# a port of its own: tried until one is free
port=$((20000 + $$ % 20000))
started=0
for try in 1 2 3 4 5; do
    if $as "$pgbin/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 60 \
        -o "-k $d -p $port -c listen_addresses= -c max_connections=8 -c superuser_reserved_connections=0 -c fsync=off" \
        start >"$d/pg_ctl.log" 2>&1; then
        started=1
        break
    fi
    port=$((port + 1))
done
[ $started -eq 1 ] || { sed 's/^/# /' "$d/pg_ctl.log" "$d/server.log"; echo "not ok 1 - PostgreSQL started"; exit 1; }
pid=$(head -n 1 "$d/data/postmaster.pid")
echo "# PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') as $(stat -c %U "$d/data"), pid $pid, socket $d port $port"
base="host=$d&port=$port"
psql -X -q "postgresql://fleet@/postgres?$base" -c "CREATE DATABASE fleet" -c "CREATE DATABASE par" ||
    { echo "not ok 1 - databases created"; exit 1; }
# a password in the URI (trust lets it in): never shown.  8 connections
# at most: most of the 200 ingests at once wait for a free one
FLEET_DB="postgresql://fleet:not-shown@/fleet?$base" \
FLEET_DB_PAR="postgresql://fleet@/par?$base" \
    sh "$s/tests/fleet/fleet.sh"
st=$?
echo "# the server refused $(grep -c 'too many clients' "$d/server.log") connections as full (max_connections 8); those ingests waited for a free one"
exit $st
