/* cp_fleet_db.c - the fleet database's one interface: picks the back end
 * by the name given and passes each statement on.  Its open, which also
 * brings the schema to this collprof's version, is cp_fleet_open.c's
 * (above this file and cp_fleet_schema.c, which uses this one). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cp_fleet_db.h"
#include "cp_fleet_pg.h"
#include "cp_fleet_sqlite.h"

#ifndef CP_FLEET_DB_DEFAULT
#define CP_FLEET_DB_DEFAULT "/var/lib/collprof/fleet.db"
#endif

struct cp_fleet_db {
    const struct cp_fleet_backend *be;
    void *conn;
    char name[4096];
    int version;
};

const char *cp_fleet_db_default(void)
{
    const char *env = getenv("COLLPROF_FLEET_DB");

    return env && *env ? env : CP_FLEET_DB_DEFAULT;
}

static int is_postgres(const char *spec)
{
    return strncmp(spec, "postgresql://", 13) == 0 ||
           strncmp(spec, "postgres://", 11) == 0;
}

int cp_fleet_db_connect(const char *spec, int write, struct cp_fleet_db **out,
                        struct cp_error *err)
{
    struct cp_fleet_db *db;

    *out = NULL;
    if (!spec || !*spec)
        return cp_errorf(err, "fleet database: an empty name");
    db = calloc(1, sizeof *db);
    if (!db)
        return cp_errorf(err, "fleet database %s: out of memory", spec);
    db->be = is_postgres(spec) ? &cp_fleet_pg_backend
                               : &cp_fleet_sqlite_backend;
    if (db->be->open(spec, write, &db->conn, db->name, sizeof db->name,
                     err) < 0) {
        free(db);
        return -1;
    }
    if (write && db->be->read_only(db->conn)) {
        cp_errorf_at(err, db->name, -1,
                     "fleet database %s is read-only: nothing can be "
                     "ingested into it", db->name);
        goto fail;
    }
    *out = db;
    return 0;
fail:
    cp_fleet_db_close(db);
    return -1;
}

void cp_fleet_db_close(struct cp_fleet_db *db)
{
    if (!db)
        return;
    db->be->close(db->conn);
    free(db);
}

const char *cp_fleet_db_name(const struct cp_fleet_db *db)
{
    return db->name;
}

const char *cp_fleet_db_backend(const struct cp_fleet_db *db)
{
    return db->be->name;
}

int cp_fleet_db_schema_version(const struct cp_fleet_db *db)
{
    return db->version;
}

void cp_fleet_db_set_schema_version(struct cp_fleet_db *db, int version)
{
    db->version = version;
}

int cp_fleet_db_begin(struct cp_fleet_db *db, int exclusive,
                      struct cp_error *err)
{
    return db->be->begin(db->conn, exclusive, err);
}

int cp_fleet_db_commit(struct cp_fleet_db *db, struct cp_error *err)
{
    return db->be->commit(db->conn, err);
}

void cp_fleet_db_rollback(struct cp_fleet_db *db)
{
    db->be->rollback(db->conn);
}

int cp_fleet_db_exec(struct cp_fleet_db *db, const char *sql, int n,
                     const char *const *params, long long *changed,
                     struct cp_error *err)
{
    return db->be->exec(db->conn, sql, n, params, changed, err);
}

int cp_fleet_db_query(struct cp_fleet_db *db, const char *sql, int n,
                      const char *const *params, cp_fleet_row_fn row,
                      void *ctx, struct cp_error *err)
{
    return db->be->query(db->conn, sql, n, params, row, ctx, err);
}
