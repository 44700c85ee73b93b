/* cp_fleet_open.c - opening the fleet database: the connection
 * (cp_fleet_db.c), then its schema brought to this collprof's version
 * (cp_fleet_schema.c).  Above both: the schema speaks through the
 * database's interface, and the interface knows nothing of the schema. */
#include "config.h"

#include "cp_fleet_db.h"
#include "cp_fleet_schema.h"

int cp_fleet_db_open(const char *spec, enum cp_fleet_db_mode mode,
                     struct cp_fleet_db **out, struct cp_error *err)
{
    struct cp_fleet_db *db = NULL;
    int write = mode == CP_FLEET_DB_WRITE, version = 0;

    *out = NULL;
    if (cp_fleet_db_connect(spec, write, &db, err) < 0)
        return -1;
    if (cp_fleet_schema_ensure(db, write, &version, err) < 0) {
        cp_fleet_db_close(db);
        return -1;
    }
    cp_fleet_db_set_schema_version(db, version);
    *out = db;
    return 0;
}
