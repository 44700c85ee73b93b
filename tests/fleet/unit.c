/* unit.c - the fleet's small modules without a report: SHA-256 against
 * FIPS 180-4's examples, ISO times and --since durations, a PostgreSQL
 * URI shown without its password, and an SQLite database opened, migrated,
 * refused when newer, and refused for reading when missing. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_fleet_db.h"
#include "cp_fleet_judge.h"
#include "cp_fleet_pg.h"
#include "cp_fleet_schema.h"
#include "cp_fleet_time.h"
#include "cp_sha256.h"
#include "tap.h"

static void sha256(void)
{
    char hex[CP_SHA256_HEX], *big;
    size_t n = 1000000;

    cp_sha256_hex("abc", 3, hex);
    is_str(hex,
           "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
           "sha256('abc')");
    cp_sha256_hex("", 0, hex);
    is_str(hex,
           "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
           "sha256('')");
    cp_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
                  hex);
    is_str(hex,
           "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
           "sha256 of 56 bytes (the padding takes a second block)");
    big = malloc(n);
    if (big) {
        memset(big, 'a', n);
        cp_sha256_hex(big, n, hex);
        is_str(hex,
               "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
               "sha256 of a million 'a'");
        free(big);
    }
}

static void times(void)
{
    char out[CP_FLEET_TIME_SIZE];
    double t = 0, d = 0;

    ok(cp_fleet_time_parse("2026-12-07T10:00:00Z", &t) == 0 &&
           t == 1796637600.0,
       "an ISO time parses (%.0f)", t);
    cp_fleet_time_format(t, out);
    is_str(out, "2026-12-07T10:00:00Z", "... and formats back");
    ok(cp_fleet_time_parse("1796637600", &t) == 0 && t == 1796637600.0,
       "epoch seconds parse");
    ok(cp_fleet_time_parse("2026-12-07", &t) == 0 && t == 1796601600.0,
       "a date parses as its midnight UTC");
    ok(cp_fleet_time_parse("2026-12-07T10:00", &t) < 0 &&
           cp_fleet_time_parse("yesterday", &t) < 0 &&
           cp_fleet_time_parse("", &t) < 0,
       "a half time, a word and nothing are refused");
    ok(cp_fleet_time_duration("7d", &d) == 0 && d == 604800, "7d is a week");
    ok(cp_fleet_time_duration("12h", &d) == 0 && d == 43200, "12h");
    ok(cp_fleet_time_duration("90", &d) == 0 && d == 90, "90 is seconds");
    ok(cp_fleet_time_duration("0d", &d) < 0 &&
           cp_fleet_time_duration("7y", &d) < 0 &&
           cp_fleet_time_duration("-1h", &d) < 0,
       "0d, 7y and -1h are refused");
}

static void shown(void)
{
    char out[256];

    cp_fleet_pg_shown("postgresql://fleet:s3cret@db.example/fleet", out,
                      sizeof out);
    is_str(out, "postgresql://fleet@db.example/fleet",
           "a URI's password is not shown");
    cp_fleet_pg_shown("postgresql://fleet@/fleet?host=/run/pg&password=x&"
                      "port=5432", out, sizeof out);
    is_str(out, "postgresql://fleet@/fleet?host=/run/pg&port=5432",
           "nor a password parameter");
    cp_fleet_pg_shown("postgresql://db.example:5432/fleet", out, sizeof out);
    is_str(out, "postgresql://db.example:5432/fleet",
           "a host's port is kept");
}

static void sqlite_schema(const char *dir)
{
    char path[4096];
    struct cp_fleet_db *db = NULL;
    struct cp_error err;
    const char *v99[1] = {"99"};

    snprintf(path, sizeof path, "%s/unit.db", dir);
    ok(cp_fleet_db_open(path, CP_FLEET_DB_READ, &db, &err) < 0 &&
           strstr(err.text, "does not exist"),
       "reading a missing database fails: %s", err.text);
    ok(cp_fleet_db_open(path, CP_FLEET_DB_WRITE, &db, &err) == 0,
       "a new database is made for writing");
    if (!db)
        return;
    is_int(cp_fleet_db_schema_version(db), CP_FLEET_SCHEMA_VERSION,
           "... at this collprof's schema version");
    is_str(cp_fleet_db_backend(db), "sqlite", "... on SQLite");
    ok(cp_fleet_db_exec(db, "UPDATE schema_version SET version = ?", 1, v99,
                        NULL, &err) == 0,
       "its version set to 99");
    cp_fleet_db_close(db);
    db = NULL;
    ok(cp_fleet_db_open(path, CP_FLEET_DB_WRITE, &db, &err) < 0 &&
           strstr(err.text, "schema version 99, newer than this collprof's"),
       "a database of a newer schema is refused: %s", err.text);
    ok(cp_fleet_db_open(path, CP_FLEET_DB_READ, &db, &err) < 0 &&
           strstr(err.text, "newer"),
       "... for reading too");
    cp_fleet_db_close(db);
    unlink(path);
    /* the writers keep these (SQLITE_FCNTL_PERSIST_WAL) */
    strcat(path, "-wal");
    unlink(path);
    strcpy(path + strlen(path) - 4, "-shm");
    unlink(path);
}

static void rules(void)
{
    const char *names[] = {"link_bad", "link_suspect", "link_ok",
                           "link_no_evidence", "node_bad", "node_suspect",
                           "node_ok", "port_bad", "port_suspect", "port_ok"};
    size_t i, k, found = 0;

    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        for (k = 0; k < cp_fleet_nrules; k++)
            found += strcmp(cp_fleet_rules[k].name, names[i]) == 0;
    is_int(found, sizeof names / sizeof names[0],
           "the rules' table has a row for every verdict");
    for (k = 0, found = 0; k < cp_fleet_nrules; k++) {
        char n[32];

        snprintf(n, sizeof n, "%lld", cp_fleet_rules[k].min_jobs);
        if (cp_fleet_rules[k].min_jobs > 1 &&
            !strstr(cp_fleet_rules[k].text, n))
            ok(0, "rule %s's text says %s jobs", cp_fleet_rules[k].name, n);
        else
            found++;
    }
    is_int(found, cp_fleet_nrules, "each rule's text says its threshold of "
                                   "jobs");
    ok(cp_fleet_rules[CP_FLEET_LINK_BAD_RULE].min_jobs == 2 &&
           cp_fleet_rules[CP_FLEET_LINK_BAD_RULE].share == 0.5 &&
           cp_fleet_rules[CP_FLEET_NODE_BAD_RULE].min_users == 2,
       "link_bad: 2 jobs, more than half; node_bad: 2 users");
    is_str(cp_fleet_verdict_name(CP_FLEET_NO_EVIDENCE), "no_evidence",
           "verdict names");
}

int main(void)
{
    char dir[] = "/tmp/cp-fleet-unit-XXXXXX";

    sha256();
    times();
    shown();
    rules();
    if (!mkdtemp(dir)) {
        ok(0, "a temporary directory");
        return done_testing();
    }
    sqlite_schema(dir);
    ok(rmdir(dir) == 0, "nothing left behind in the temporary directory");
    return done_testing();
}
