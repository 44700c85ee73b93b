/* cp_fleet_db.h - the fleet database (docs/fleet.md): one interface over
 * an SQLite file (the default, embedded) and a PostgreSQL server (libpq),
 * with the same schema and the same SQL.
 *
 * Statements are written to the subset both speak, with `?` for each
 * parameter (the PostgreSQL back end numbers them $1, $2, ...).  Every
 * parameter and every value read back is text (NULL for SQL NULL): the
 * columns' types convert them, the same way on both.  Opening a database
 * brings its schema to this collprof's version (cp_fleet_schema); a
 * database of a newer schema is refused.
 *
 * Never prints; errors through struct cp_error, naming the database.
 */
#ifndef COLLPROF_CP_FLEET_DB_H
#define COLLPROF_CP_FLEET_DB_H

#include "cp_error.h"

struct cp_fleet_db;

/* What the caller will do: READ never creates or migrates a database (a
 * missing one is an error); WRITE creates the file (SQLite) and the
 * schema when missing, and migrates an older one. */
enum cp_fleet_db_mode {
    CP_FLEET_DB_READ,
    CP_FLEET_DB_WRITE,
};

/* The database used when none is named: COLLPROF_FLEET_DB when set and not
 * empty, else CP_FLEET_DB_DEFAULT (LOCALSTATEDIR/lib/collprof/fleet.db).
 * Static storage or the environment's. */
const char *cp_fleet_db_default(void);

/* Open spec: "postgresql://..." or "postgres://..." (a libpq connection
 * URI) or the path of an SQLite file, and bring its schema to this
 * collprof's version (cp_fleet_open.c).  *out is the handle (the caller
 * closes it).  0, or -1 with err naming the database. */
int cp_fleet_db_open(const char *spec, enum cp_fleet_db_mode mode,
                     struct cp_fleet_db **out, struct cp_error *err);

/* For cp_fleet_db_open: the connection alone (write: refused when the
 * database is read-only), the schema not looked at; and the schema
 * version it found or made. */
int cp_fleet_db_connect(const char *spec, int write, struct cp_fleet_db **out,
                        struct cp_error *err);
void cp_fleet_db_set_schema_version(struct cp_fleet_db *db, int version);

/* Close db (NULL is fine); an open transaction is rolled back. */
void cp_fleet_db_close(struct cp_fleet_db *db);

/* The database as it may be shown: the path, or the URI without its
 * password.  Owned by db. */
const char *cp_fleet_db_name(const struct cp_fleet_db *db);

/* "sqlite" or "postgresql". */
const char *cp_fleet_db_backend(const struct cp_fleet_db *db);

/* The schema version the database has (after the open's migration). */
int cp_fleet_db_schema_version(const struct cp_fleet_db *db);

/* A write transaction: SQLite's BEGIN IMMEDIATE (the write lock taken at
 * once, waiting up to the busy timeout), PostgreSQL's BEGIN.  With
 * `exclusive`, also one writer at a time on PostgreSQL (a transaction-level
 * advisory lock): for the schema's migration.  0 or -1. */
int cp_fleet_db_begin(struct cp_fleet_db *db, int exclusive,
                      struct cp_error *err);
int cp_fleet_db_commit(struct cp_fleet_db *db, struct cp_error *err);
/* Roll back the open transaction, if any; never fails the caller. */
void cp_fleet_db_rollback(struct cp_fleet_db *db);

/* Run one statement with n text parameters (params[i] NULL: SQL NULL).
 * *changed (may be NULL): the rows it inserted, updated or deleted.
 * 0 or -1. */
int cp_fleet_db_exec(struct cp_fleet_db *db, const char *sql, int n,
                     const char *const *params, long long *changed,
                     struct cp_error *err);

/* Called once per row of a query: ncols values as text (NULL for SQL
 * NULL), valid during the call.  Returns 0 to go on, -1 to stop the query
 * with err filled. */
typedef int (*cp_fleet_row_fn)(void *ctx, int ncols,
                               const char *const *values,
                               struct cp_error *err);

/* Run a query, one call of row per row.  0, or -1 (the statement's error
 * or row's). */
int cp_fleet_db_query(struct cp_fleet_db *db, const char *sql, int n,
                      const char *const *params, cp_fleet_row_fn row,
                      void *ctx, struct cp_error *err);

#endif
