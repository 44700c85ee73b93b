/* cp_fleet_backend.h - what a back end of the fleet database provides to
 * cp_fleet_db (one table of functions per back end: cp_fleet_sqlite.c,
 * cp_fleet_pg.c).  Not for callers outside analyzer/fleet/. */
#ifndef COLLPROF_CP_FLEET_BACKEND_H
#define COLLPROF_CP_FLEET_BACKEND_H

#include "cp_fleet_db.h"

struct cp_fleet_backend {
    const char *name; /* "sqlite", "postgresql" */
    /* connect to spec; *conn is the back end's handle; name (size bytes)
     * gets the database as it may be shown.  `create`: a missing SQLite
     * file may be made. */
    int (*open)(const char *spec, int create, void **conn, char *name,
                size_t size, struct cp_error *err);
    void (*close)(void *conn);
    int (*begin)(void *conn, int exclusive, struct cp_error *err);
    int (*commit)(void *conn, struct cp_error *err);
    void (*rollback)(void *conn);
    int (*exec)(void *conn, const char *sql, int n, const char *const *params,
                long long *changed, struct cp_error *err);
    int (*query)(void *conn, const char *sql, int n, const char *const *params,
                 cp_fleet_row_fn row, void *ctx, struct cp_error *err);
    /* 1 when the connection can write nothing (a read-only file) */
    int (*read_only)(void *conn);
};

#endif
