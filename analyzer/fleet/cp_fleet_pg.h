/* cp_fleet_pg.h - the fleet database on a PostgreSQL server (libpq): for a
 * site where many nodes write at once.  Transactions as SQLite's; the
 * schema's migration serialized by a transaction-level advisory lock; no
 * notice of the server's ever printed.  docs/fleet.md, "Back ends".
 * Built only with libpq (configure's CP_HAVE_LIBPQ); without it the
 * back end's open says so. */
#ifndef COLLPROF_CP_FLEET_PG_H
#define COLLPROF_CP_FLEET_PG_H

#include "cp_fleet_backend.h"

/* How long a connection waits while the server has no connection slot
 * free ("too many clients": more steps ending at once than its
 * max_connections) before failing (ms). */
#define CP_FLEET_PG_FULL_MS 120000

extern const struct cp_fleet_backend cp_fleet_pg_backend;

/* The URI spec as it may be shown: its password (the user-info part's
 * ":password@" and a "password=" parameter) left out.  out gets size
 * bytes at most. */
void cp_fleet_pg_shown(const char *spec, char *out, size_t size);

#endif
