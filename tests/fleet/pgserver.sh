# pgserver.sh - a PostgreSQL server of a test's own; source it, then:
#   pg_missing             prints why none can be started here (nothing: one
#                          can), for a skip
#   pg_start "SETTINGS"    initdb and pg_ctl start in a new directory $pg_dir
#                          as an unprivileged user (nobody when root:
#                          PostgreSQL refuses to run as root), its socket in
#                          $pg_dir, a private port ($pg_port), no TCP
#                          listener, the server's -c SETTINGS; superuser
#                          "fleet", trust; sets $pg_pid and $pg_base
#                          ("host=DIR&port=PORT", for a postgresql:// URI);
#                          returns 1 after printing its logs as # lines
#   pg_stop                stops it by its PID (TERM, then KILL after 20 s)
#                          and removes $pg_dir; safe to call twice
# The caller sets the trap that calls pg_stop.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
pg_dir=
pg_pid=

pg_missing() {
    if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ] || [ ! -x "$pg_bin/pg_ctl" ]; then
        echo "PostgreSQL is not installed (Debian package postgresql)"
    elif ! command -v psql >/dev/null 2>&1; then
        echo "no psql (Debian package postgresql-client)"
    elif [ "$(id -u)" -eq 0 ] && ! command -v runuser >/dev/null 2>&1; then
        echo "root, and no runuser to start PostgreSQL as nobody"
    fi
}

pg_start() {
    pg_as=
    pg_dir=$(mktemp -d /tmp/cp-fleet-pg-XXXXXX) || return 1
    if [ "$(id -u)" -eq 0 ]; then
        chown nobody "$pg_dir"
        pg_as="runuser -u nobody --"
    fi
    $pg_as "$pg_bin/initdb" -D "$pg_dir/data" -U fleet --auth=trust -E UTF8 \
        --locale=C >"$pg_dir/initdb.log" 2>&1 ||
        { sed 's/^/# /' "$pg_dir/initdb.log"; return 1; }
    # a port of its own: tried until one is free
    pg_port=$((20000 + $$ % 20000))
    for pg_try in 1 2 3 4 5; do
        if $pg_as "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" \
            -w -t 60 -o "-k $pg_dir -p $pg_port -c listen_addresses= $1" \
            start >"$pg_dir/pg_ctl.log" 2>&1; then
            pg_pid=$(head -n 1 "$pg_dir/data/postmaster.pid")
            pg_base="host=$pg_dir&port=$pg_port"
            return 0
        fi
        pg_port=$((pg_port + 1))
    done
    sed 's/^/# /' "$pg_dir/pg_ctl.log" "$pg_dir/server.log"
    return 1
}

pg_stop() {
    if [ -n "$pg_pid" ] && kill -TERM "$pg_pid" 2>/dev/null; then
        pg_n=0
        while kill -0 "$pg_pid" 2>/dev/null && [ $pg_n -lt 100 ]; do
            sleep 0.2
            pg_n=$((pg_n + 1))
        done
        kill -KILL "$pg_pid" 2>/dev/null || true
    fi
    pg_pid=
    [ -n "$pg_dir" ] && rm -rf "$pg_dir"
    pg_dir=
}
