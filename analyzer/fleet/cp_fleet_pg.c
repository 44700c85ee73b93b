/* cp_fleet_pg.c - the PostgreSQL back end of the fleet database. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CP_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

#include "cp_fleet_pg.h"

/* The advisory lock of the schema's migration: "coll" in ASCII. */
#define SCHEMA_LOCK "1668246636"

void cp_fleet_pg_shown(const char *spec, char *out, size_t size)
{
    const char *start = strstr(spec, "://");
    const char *at, *colon, *pw, *end;
    size_t n;

    snprintf(out, size, "%s", spec);
    if (!start)
        return;
    start += 3;
    at = strchr(start, '@');
    colon = strchr(start, ':');
    if (at && colon && colon < at && !memchr(start, '/', (size_t)(at - start)))
        snprintf(out, size, "%.*s%s", (int)(colon - spec), spec, at);
    pw = strstr(out, "password=");
    if (pw && (pw[-1] == '?' || pw[-1] == '&')) {
        end = strchr(pw, '&');
        n = (size_t)(pw - out);
        if (end)
            memmove(out + n, end + 1, strlen(end + 1) + 1);
        else
            out[n > 0 ? n - 1 : 0] = '\0';
    }
}

#ifdef CP_HAVE_LIBPQ

struct pg {
    PGconn *conn;
    char name[4096];
};

/* err = "fleet database NAME: WHAT: the server's message" (its trailing
 * newline dropped); -1. */
static int fail(struct pg *p, const char *what, const char *msg,
                struct cp_error *err)
{
    size_t n = strlen(msg);

    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        n--;
    return cp_errorf_at(err, p->name, -1, "fleet database %s: %s: %.*s",
                        p->name, what, (int)n, msg);
}

static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* A server full of connections (FATAL 53300, "too many clients"), or
 * whose socket's queue of connections is full (EAGAIN on a local socket:
 * "Resource temporarily unavailable"), while many steps end at once:
 * worth waiting for, as SQLite's busy timeout waits for its lock. */
static int server_full(PGconn *c)
{
    const char *msg = c ? PQerrorMessage(c) : "";

    return c && PQstatus(c) != CONNECTION_OK &&
           (strstr(msg, "too many clients") != NULL ||
            strstr(msg, "Resource temporarily unavailable") != NULL);
}

/* Connect, waiting up to CP_FLEET_PG_FULL_MS while the server is full. */
static PGconn *connect_waiting(const char *spec)
{
    struct timespec pause;
    PGconn *c = PQconnectdb(spec);
    long waited_ms = 0, ms;

    while (server_full(c) && waited_ms < CP_FLEET_PG_FULL_MS) {
        PQfinish(c);
        /* 20 to 220 ms, so that waiting writers do not come back at once */
        ms = 20 + (long)(((unsigned long)getpid() * 2654435761u +
                          (unsigned long)waited_ms) % 200);
        pause.tv_sec = 0;
        pause.tv_nsec = ms * 1000000L;
        nanosleep(&pause, NULL);
        waited_ms += ms;
        c = PQconnectdb(spec);
    }
    return c;
}

static int pg_open(const char *spec, int create, void **conn, char *name,
                   size_t size, struct cp_error *err)
{
    struct pg *p = calloc(1, sizeof *p);

    if (!p)
        return cp_errorf(err, "fleet database: out of memory");
    cp_fleet_pg_shown(spec, p->name, sizeof p->name);
    snprintf(name, size, "%s", p->name);
    p->conn = connect_waiting(spec);
    if (!p->conn || PQstatus(p->conn) != CONNECTION_OK) {
        fail(p, "cannot connect",
             p->conn ? PQerrorMessage(p->conn) : "out of memory", err);
        PQfinish(p->conn);
        free(p);
        return -1;
    }
    PQsetNoticeProcessor(p->conn, quiet, NULL);
    *conn = p;
    return 0;
}

static void pg_close(void *conn)
{
    struct pg *p = conn;

    if (!p)
        return;
    PQfinish(p->conn);
    free(p);
}

/* sql with each `?` outside quotes as $1, $2, ... in a buffer the caller
 * frees. */
static char *numbered(const char *sql)
{
    size_t len = strlen(sql), o = 0;
    char *out = malloc(len * 4 + 1);
    int quoted = 0, k = 0;
    const char *s;

    if (!out)
        return NULL;
    for (s = sql; *s; s++) {
        if (*s == '\'')
            quoted = !quoted;
        if (*s == '?' && !quoted)
            o += (size_t)sprintf(out + o, "$%d", ++k);
        else
            out[o++] = *s;
    }
    out[o] = '\0';
    return out;
}

/* Run sql; *res holds the result (the caller clears it).  0 or -1. */
static int run(struct pg *p, const char *sql, int n, const char *const *params,
               PGresult **res, struct cp_error *err)
{
    char *text = numbered(sql);
    ExecStatusType st;

    if (!text)
        return cp_errorf(err, "fleet database %s: out of memory", p->name);
    *res = PQexecParams(p->conn, text, n, NULL, params, NULL, NULL, 0);
    free(text);
    st = *res ? PQresultStatus(*res) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        fail(p, "a statement failed", PQerrorMessage(p->conn), err);
        PQclear(*res);
        *res = NULL;
        return -1;
    }
    return 0;
}

static int pg_exec(void *conn, const char *sql, int n,
                   const char *const *params, long long *changed,
                   struct cp_error *err)
{
    PGresult *res;

    if (run(conn, sql, n, params, &res, err) < 0)
        return -1;
    if (changed)
        *changed = atoll(PQcmdTuples(res));
    PQclear(res);
    return 0;
}

static int pg_query(void *conn, const char *sql, int n,
                    const char *const *params, cp_fleet_row_fn row, void *ctx,
                    struct cp_error *err)
{
    PGresult *res;
    const char *vals[64];
    int rc = -1, r, c, rows, cols;

    if (run(conn, sql, n, params, &res, err) < 0)
        return -1;
    rows = PQntuples(res);
    cols = PQnfields(res) < 64 ? PQnfields(res) : 64;
    for (r = 0; r < rows; r++) {
        for (c = 0; c < cols; c++)
            vals[c] = PQgetisnull(res, r, c) ? NULL : PQgetvalue(res, r, c);
        if (row && row(ctx, cols, vals, err) < 0)
            goto out;
    }
    rc = 0;
out:
    PQclear(res);
    return rc;
}

static int pg_begin(void *conn, int exclusive, struct cp_error *err)
{
    if (pg_exec(conn, "BEGIN", 0, NULL, NULL, err) < 0)
        return -1;
    if (exclusive &&
        pg_exec(conn, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", 0, NULL,
                NULL, err) < 0) {
        pg_exec(conn, "ROLLBACK", 0, NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

static int pg_commit(void *conn, struct cp_error *err)
{
    struct pg *p = conn;
    PGresult *res = PQexec(p->conn, "COMMIT");
    int ok = res && PQresultStatus(res) == PGRES_COMMAND_OK;

    /* a COMMIT of a failed transaction answers ROLLBACK, not an error */
    if (ok && strcmp(PQcmdStatus(res), "COMMIT") != 0)
        ok = 0;
    if (!ok)
        fail(p, "cannot commit", PQerrorMessage(p->conn), err);
    PQclear(res);
    return ok ? 0 : -1;
}

static void pg_rollback(void *conn)
{
    struct pg *p = conn;

    if (PQtransactionStatus(p->conn) != PQTRANS_IDLE)
        PQclear(PQexec(p->conn, "ROLLBACK"));
}

static int pg_read_only(void *conn)
{
    return 0; /* the server says so at the first write */
}

#else /* no libpq */

static int pg_open(const char *spec, int create, void **conn, char *name,
                   size_t size, struct cp_error *err)
{
    cp_fleet_pg_shown(spec, name, size);
    return cp_errorf(err,
                     "fleet database %s: this collprof was built without "
                     "libpq (PostgreSQL); use an SQLite file, or rebuild "
                     "with libpq-dev installed", name);
}

static void pg_close(void *conn) {}
static int pg_begin(void *conn, int exclusive, struct cp_error *err)
{
    return -1;
}
static int pg_commit(void *conn, struct cp_error *err)
{
    return -1;
}
static void pg_rollback(void *conn) {}
static int pg_exec(void *conn, const char *sql, int n,
                   const char *const *params, long long *changed,
                   struct cp_error *err)
{
    return -1;
}
static int pg_query(void *conn, const char *sql, int n,
                    const char *const *params, cp_fleet_row_fn row, void *ctx,
                    struct cp_error *err)
{
    return -1;
}
static int pg_read_only(void *conn)
{
    return 1;
}

#endif

const struct cp_fleet_backend cp_fleet_pg_backend = {
    .name = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .exec = pg_exec,
    .query = pg_query,
    .read_only = pg_read_only,
};
