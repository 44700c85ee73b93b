/* cp_fleet_sqlite.h - the fleet database in an SQLite file: WAL mode (many
 * readers beside one writer), a busy timeout instead of an error when
 * another process holds the write lock, BEGIN IMMEDIATE for every write
 * transaction.  docs/fleet.md, "Back ends". */
#ifndef COLLPROF_CP_FLEET_SQLITE_H
#define COLLPROF_CP_FLEET_SQLITE_H

#include "cp_fleet_backend.h"

/* How long a writer waits for another's lock before failing (ms): 200
 * steps ending at once queue behind each other's short transactions. */
#define CP_FLEET_SQLITE_BUSY_MS 120000

extern const struct cp_fleet_backend cp_fleet_sqlite_backend;

#endif
