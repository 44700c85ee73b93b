/* cp_fleet_schema.c - the fleet database's tables and migrations.  The
 * statements are the subset SQLite and PostgreSQL share: BIGINT, DOUBLE
 * PRECISION and TEXT columns, composite primary keys (a report's rows are
 * keyed by its step: cluster, job, step), no generated ids. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cp_fleet_schema.h"

#define STEP_KEY                                                               \
    "cluster TEXT NOT NULL, job_id TEXT NOT NULL, step_id TEXT NOT NULL, "

static const char *const v1[] = {
    "CREATE TABLE steps (" STEP_KEY
    "user_name TEXT NOT NULL, nodes TEXT NOT NULL, node_count BIGINT NOT "
    "NULL, processes BIGINT, start_time TEXT, end_time TEXT NOT NULL, "
    "span_s DOUBLE PRECISION, collprof_version TEXT NOT NULL, "
    "report_sha256 TEXT NOT NULL UNIQUE, report_file TEXT NOT NULL, "
    "ingested TEXT NOT NULL, job_from TEXT NOT NULL, user_from TEXT NOT "
    "NULL, cluster_from TEXT NOT NULL, nodes_from TEXT NOT NULL, end_from "
    "TEXT NOT NULL, PRIMARY KEY (cluster, job_id, step_id))",
    "CREATE INDEX steps_end ON steps (end_time)",
    "CREATE TABLE step_links (" STEP_KEY
    "node_a TEXT NOT NULL, node_b TEXT NOT NULL, verdict TEXT NOT NULL, "
    "source TEXT NOT NULL, bytes DOUBLE PRECISION, calls BIGINT, "
    "judged_calls BIGINT, bandwidth_bps DOUBLE PRECISION, reference_bps "
    "DOUBLE PRECISION, efficiency DOUBLE PRECISION, probe_bandwidth_bps "
    "DOUBLE PRECISION, PRIMARY KEY (cluster, job_id, step_id, node_a, "
    "node_b))",
    "CREATE INDEX step_links_pair ON step_links (node_a, node_b)",
    "CREATE TABLE step_nodes (" STEP_KEY
    "node TEXT NOT NULL, ranks BIGINT NOT NULL, last_arrivals BIGINT, "
    "late_s DOUBLE PRECISION, in_call_delay_s DOUBLE PRECISION, straggler "
    "BIGINT NOT NULL, straggler_weak BIGINT NOT NULL, straggler_kind TEXT, "
    "delay_s DOUBLE PRECISION, PRIMARY KEY (cluster, job_id, step_id, "
    "node))",
    "CREATE INDEX step_nodes_node ON step_nodes (node)",
    "CREATE TABLE step_ports (" STEP_KEY
    "node TEXT NOT NULL, device TEXT NOT NULL, port BIGINT NOT NULL, state "
    "TEXT, link_layer TEXT, rate_gbps DOUBLE PRECISION, peer_rate_gbps "
    "DOUBLE PRECISION, counters_rose BIGINT NOT NULL, PRIMARY KEY (cluster, "
    "job_id, step_id, node, device, port))",
    "CREATE INDEX step_ports_port ON step_ports (node, device, port)",
    "CREATE TABLE step_port_counters (" STEP_KEY
    "node TEXT NOT NULL, device TEXT NOT NULL, port BIGINT NOT NULL, "
    "counter TEXT NOT NULL, increase DOUBLE PRECISION NOT NULL, PRIMARY KEY "
    "(cluster, job_id, step_id, node, device, port, counter))",
    "CREATE TABLE findings (" STEP_KEY
    "idx BIGINT NOT NULL, kind TEXT NOT NULL, severity TEXT NOT NULL, nodes "
    "TEXT NOT NULL, ranks TEXT NOT NULL, message TEXT NOT NULL, PRIMARY KEY "
    "(cluster, job_id, step_id, idx))",
    NULL,
};

/* Version 2: the alerts sent, one row per link or node and verdict, so
 * that the site's hook runs once for each (collprof fleet ingest
 * --alert). */
static const char *const v2[] = {
    "CREATE TABLE alerts (kind TEXT NOT NULL, subject TEXT NOT NULL, "
    "verdict TEXT NOT NULL, sent TEXT NOT NULL, PRIMARY KEY (kind, subject, "
    "verdict))",
    NULL,
};

/* migrations[i] takes a database from version i to i + 1. */
static const char *const *const migrations[CP_FLEET_SCHEMA_VERSION] = {v1,
                                                                        v2};

struct found {
    int version;
    int rows;
};

static int take_version(void *ctx, int ncols, const char *const *values,
                        struct cp_error *err)
{
    struct found *f = ctx;

    if (ncols > 0 && values[0])
        f->version = atoi(values[0]);
    f->rows++;
    return 0;
}

/* The version db holds (0: none yet); -1 when schema_version cannot be
 * read (missing). */
static int read_version(struct cp_fleet_db *db, int *version,
                        struct cp_error *err)
{
    struct found f = {0, 0};

    if (cp_fleet_db_query(db, "SELECT MAX(version) FROM schema_version", 0,
                          NULL, take_version, &f, err) < 0)
        return -1;
    *version = f.version;
    return 0;
}

static int newer(struct cp_fleet_db *db, int version, struct cp_error *err)
{
    return cp_errorf_at(err, cp_fleet_db_name(db), -1,
                        "fleet database %s has schema version %d, newer "
                        "than this collprof's (%d): use a newer collprof",
                        cp_fleet_db_name(db), version,
                        CP_FLEET_SCHEMA_VERSION);
}

/* Under the write lock: create schema_version, apply what is missing. */
static int migrate(struct cp_fleet_db *db, int *version, struct cp_error *err)
{
    char text[32];
    const char *param[1] = {text};
    int v, i;

    if (cp_fleet_db_exec(db,
                         "CREATE TABLE IF NOT EXISTS schema_version "
                         "(version BIGINT NOT NULL)",
                         0, NULL, NULL, err) < 0 ||
        read_version(db, &v, err) < 0)
        return -1;
    if (v > CP_FLEET_SCHEMA_VERSION)
        return newer(db, v, err);
    for (; v < CP_FLEET_SCHEMA_VERSION; v++)
        for (i = 0; migrations[v][i]; i++)
            if (cp_fleet_db_exec(db, migrations[v][i], 0, NULL, NULL, err) < 0)
                return -1;
    snprintf(text, sizeof text, "%d", v);
    if (cp_fleet_db_exec(db, "DELETE FROM schema_version", 0, NULL, NULL,
                         err) < 0 ||
        cp_fleet_db_exec(db, "INSERT INTO schema_version (version) VALUES (?)",
                         1, param, NULL, err) < 0)
        return -1;
    *version = v;
    return 0;
}

int cp_fleet_schema_ensure(struct cp_fleet_db *db, int write, int *version,
                           struct cp_error *err)
{
    struct cp_error quiet;
    int v = -1;

    /* the common case: a database already at this version, read without
     * taking the write lock */
    if (read_version(db, &v, &quiet) == 0) {
        if (v > CP_FLEET_SCHEMA_VERSION)
            return newer(db, v, err);
        if (v == CP_FLEET_SCHEMA_VERSION) {
            *version = v;
            return 0;
        }
    } else if (!write && !strstr(quiet.text, "no such table") &&
               !strstr(quiet.text, "does not exist")) {
        /* not a missing table: the reason it cannot be read */
        if (err)
            *err = quiet;
        return -1;
    }
    if (!write)
        return cp_errorf_at(err, cp_fleet_db_name(db), -1,
                            "fleet database %s holds no collprof fleet "
                            "schema (version %d, this collprof's is %d): "
                            "collprof fleet ingest creates or migrates it",
                            cp_fleet_db_name(db), v < 0 ? 0 : v,
                            CP_FLEET_SCHEMA_VERSION);
    if (cp_fleet_db_begin(db, 1, err) < 0)
        return -1;
    if (migrate(db, version, err) < 0 || cp_fleet_db_commit(db, err) < 0) {
        cp_fleet_db_rollback(db);
        return -1;
    }
    return 0;
}
