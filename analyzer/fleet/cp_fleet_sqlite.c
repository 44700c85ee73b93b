/* cp_fleet_sqlite.c - the SQLite back end of the fleet database. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cp_fleet_sqlite.h"
#include "cp_path.h"

struct lite {
    sqlite3 *db;
    char path[4096];
};

/* err = "fleet database PATH: WHAT: sqlite's message"; returns -1. */
static int fail(struct lite *l, const char *what, struct cp_error *err)
{
    return cp_errorf_at(err, l->path, -1, "fleet database %s: %s: %s",
                        l->path, what, sqlite3_errmsg(l->db));
}

/* The file must be a regular file or absent, never a link (sqlite opens by
 * name; SQLITE_OPEN_NOFOLLOW refuses a link at the open, this says why
 * before it). */
static int check_file(const char *path, int create, struct cp_error *err)
{
    struct stat st;
    char dir[4096];
    char *slash;

    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode))
            return cp_errorf_at(err, path, -1,
                                "fleet database %s is a symbolic link; "
                                "collprof opens no database through a link",
                                path);
        if (!S_ISREG(st.st_mode))
            return cp_errorf_at(err, path, -1,
                                "fleet database %s is not a regular file",
                                path);
        if (create && access(path, W_OK) != 0)
            return cp_errorf_at(err, path, -1,
                                "fleet database %s is read-only (%s): "
                                "nothing can be ingested into it",
                                path, strerror(errno));
        return 0;
    }
    if (errno != ENOENT)
        return cp_errorf_at(err, path, -1, "fleet database %s: %s", path,
                            strerror(errno));
    if (!create)
        return cp_errorf_at(err, path, -1,
                            "fleet database %s does not exist (collprof "
                            "fleet ingest creates it)", path);
    snprintf(dir, sizeof dir, "%s", path);
    slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (cp_path_mkdir(dir, 0755) < 0)
            return cp_errorf_at(err, path, -1,
                                "fleet database %s: cannot make %s: %s", path,
                                dir, strerror(errno));
    }
    return 0;
}

/* PRAGMA journal_mode=WAL, waiting out another process making the same
 * change (the busy handler does not cover it). */
static int wal(struct lite *l, struct cp_error *err)
{
    struct timespec pause = {0, 10 * 1000 * 1000};
    int rc, waited_ms = 0;

    for (;;) {
        rc = sqlite3_exec(l->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
            break;
        if (waited_ms >= CP_FLEET_SQLITE_BUSY_MS)
            break;
        nanosleep(&pause, NULL);
        waited_ms += 10;
    }
    if (rc != SQLITE_OK && !sqlite3_db_readonly(l->db, "main"))
        return fail(l, "cannot turn on WAL mode", err);
    return 0;
}

/* A reader who may not write the directory reads a WAL database only
 * through its -wal and -shm files (which its writers keep): without them,
 * say so instead of SQLite's "attempt to write a readonly database". */
static int readable(const char *path, struct cp_error *err)
{
    char wal[4200], dir[4096];
    char *slash;

    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(dir, sizeof dir, "%s", path);
    slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    if (access(wal, F_OK) == 0 || access(dir, W_OK) == 0)
        return 0;
    return cp_errorf_at(err, path, -1,
                        "fleet database %s cannot be read by this user now: "
                        "its %s-wal and -shm files are missing (another "
                        "program removed them) and its directory is not "
                        "writable; a collprof fleet ingest by its owner "
                        "makes them again", path, path);
}

static int lite_open(const char *spec, int create, void **conn, char *name,
                     size_t size, struct cp_error *err)
{
    struct lite *l;
    int flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX, persist = 1;

    if (check_file(spec, create, err) < 0)
        return -1;
    l = calloc(1, sizeof *l);
    if (!l)
        return cp_errorf(err, "fleet database %s: out of memory", spec);
    snprintf(l->path, sizeof l->path, "%s", spec);
    snprintf(name, size, "%s", spec);
    /* a reader takes no write access: an administrator may read a
     * database only its writer (root) may write */
    flags |= create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                    : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(spec, &l->db, flags, NULL) != SQLITE_OK) {
        fail(l, "cannot open", err);
        goto fail_out;
    }
    sqlite3_extended_result_codes(l->db, 1);
    sqlite3_busy_timeout(l->db, CP_FLEET_SQLITE_BUSY_MS);
    /* the judging's queries walk a pair's rows by index, scattered over the
     * file: a page cache of 64 MiB, the file mapped and the sorts in memory
     * make them 3-4 times faster than SQLite's 2 MiB (100,000 steps) */
    sqlite3_exec(l->db,
                 "PRAGMA cache_size = -65536; PRAGMA mmap_size = 268435456; "
                 "PRAGMA temp_store = MEMORY",
                 NULL, NULL, NULL);
    if (!create) {
        if (readable(spec, err) < 0)
            goto fail_out;
        *conn = l;
        return 0;
    }
    if (wal(l, err) < 0)
        goto fail_out;
    /* the -wal and -shm files kept when the last writer closes: a reader
     * without write access to the directory (an administrator reading
     * root's database) cannot make them, and needs them to read */
    sqlite3_file_control(l->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    if (sqlite3_exec(l->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) !=
        SQLITE_OK) {
        fail(l, "cannot set synchronous", err);
        goto fail_out;
    }
    *conn = l;
    return 0;
fail_out:
    sqlite3_close(l->db);
    free(l);
    return -1;
}

static void lite_close(void *conn)
{
    struct lite *l = conn;

    if (!l)
        return;
    if (!sqlite3_get_autocommit(l->db))
        sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(l->db);
    free(l);
}

static int lite_begin(void *conn, int exclusive, struct cp_error *err)
{
    struct lite *l = conn;

    if (sqlite3_exec(l->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(l, "cannot begin a write transaction", err);
    return 0;
}

static int lite_commit(void *conn, struct cp_error *err)
{
    struct lite *l = conn;

    if (sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(l, "cannot commit", err);
    return 0;
}

static void lite_rollback(void *conn)
{
    struct lite *l = conn;

    if (!sqlite3_get_autocommit(l->db))
        sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
}

/* sql prepared with its parameters bound, in *out. */
static int prepare(struct lite *l, const char *sql, int n,
                   const char *const *params, sqlite3_stmt **out,
                   struct cp_error *err)
{
    sqlite3_stmt *st = NULL;
    int i, rc;

    if (sqlite3_prepare_v2(l->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(l, "cannot prepare a statement", err);
    for (i = 0; i < n; i++) {
        rc = params[i] ? sqlite3_bind_text(st, i + 1, params[i], -1,
                                           SQLITE_TRANSIENT)
                       : sqlite3_bind_null(st, i + 1);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(st);
            return fail(l, "cannot bind a parameter", err);
        }
    }
    *out = st;
    return 0;
}

/* The values of the current row as text, in vals (up to max). */
static int row_values(sqlite3_stmt *st, const char **vals, int max)
{
    int i, n = sqlite3_column_count(st);

    if (n > max)
        n = max;
    for (i = 0; i < n; i++)
        vals[i] = (const char *)sqlite3_column_text(st, i);
    return n;
}

static int lite_query(void *conn, const char *sql, int n,
                      const char *const *params, cp_fleet_row_fn row,
                      void *ctx, struct cp_error *err)
{
    struct lite *l = conn;
    sqlite3_stmt *st = NULL;
    const char *vals[64];
    int rc = -1, step, ncols;

    if (prepare(l, sql, n, params, &st, err) < 0)
        return -1;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        ncols = row_values(st, vals, 64);
        if (row && row(ctx, ncols, vals, err) < 0)
            goto out;
    }
    if (step != SQLITE_DONE) {
        fail(l, "a statement failed", err);
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

static int lite_exec(void *conn, const char *sql, int n,
                     const char *const *params, long long *changed,
                     struct cp_error *err)
{
    struct lite *l = conn;

    if (lite_query(conn, sql, n, params, NULL, NULL, err) < 0)
        return -1;
    if (changed)
        *changed = sqlite3_changes(l->db);
    return 0;
}

static int lite_read_only(void *conn)
{
    struct lite *l = conn;

    return sqlite3_db_readonly(l->db, "main") == 1;
}

const struct cp_fleet_backend cp_fleet_sqlite_backend = {
    .name = "sqlite",
    .open = lite_open,
    .close = lite_close,
    .begin = lite_begin,
    .commit = lite_commit,
    .rollback = lite_rollback,
    .exec = lite_exec,
    .query = lite_query,
    .read_only = lite_read_only,
};
