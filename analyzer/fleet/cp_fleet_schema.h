/* cp_fleet_schema.h - the fleet database's tables (docs/fleet.md,
 * "Schema") and their migrations: `schema_version` holds the version a
 * database is at; opening one for writing applies every migration above
 * it, in one transaction that one process at a time runs.  Never prints. */
#ifndef COLLPROF_CP_FLEET_SCHEMA_H
#define COLLPROF_CP_FLEET_SCHEMA_H

#include "cp_fleet_db.h"

/* The schema this collprof writes and reads. */
#define CP_FLEET_SCHEMA_VERSION 2

/* Bring db to CP_FLEET_SCHEMA_VERSION (write: migrate; read: only check)
 * and put the version found in *version.  A database at a newer version,
 * or (read) one without the schema or at an older one, fails naming it. */
int cp_fleet_schema_ensure(struct cp_fleet_db *db, int write, int *version,
                           struct cp_error *err);

#endif
