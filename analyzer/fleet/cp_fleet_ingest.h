/* cp_fleet_ingest.h - a report.json (collprof.report/1) into the fleet
 * database: the step, its node pairs' link evidence (`links[]`), its
 * nodes' straggler evidence (`ranks[]`, `topology.ranks[]`, the straggler
 * findings), its ports' snapshots (`ports.nodes[].ports[]`) and every
 * finding.  docs/fleet.md, "Ingest".
 *
 * The report is read within bounds (cp_jsonfile) and checked whole
 * (cp_jsoncheck: a problem names the file and the key) before anything
 * is written; then everything goes in one transaction, so a damaged
 * report, a read-only database or a full disk leaves nothing
 * half-written.  A step already in the database (its cluster, job and
 * step, or the same report's bytes) is not written again.  Never prints.
 */
#ifndef COLLPROF_CP_FLEET_INGEST_H
#define COLLPROF_CP_FLEET_INGEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cp_fleet_db.h"

/* The largest report.json read (bytes), and the parse's counted cost. */
#define CP_FLEET_REPORT_MAX_BYTES ((size_t)256 << 20)
#define CP_FLEET_REPORT_MAX_COST ((size_t)4 << 30)

/* Who ran the step, as a trusted caller (the site's ingest of a step it
 * saw end) says it: each field given (not NULL, not "") overrides the
 * report's, and the step's row says where each came from. */
struct cp_fleet_identity {
    const char *job;     /* job id */
    const char *step;    /* step id */
    const char *user;    /* user name */
    const char *cluster; /* cluster name */
    const char *nodes;   /* node names, separated by commas or spaces */
    const char *end;     /* when the step ended: ISO 8601 UTC or epoch s */
};

struct cp_fleet_ingested {
    int inserted; /* 1: a new step; 0: already in the database */
    char cluster[256], job[256], step[256], user[256];
    size_t links, nodes, ports, findings; /* rows written */
};

/* Ingest the report at path.  0 (see res->inserted), or -1 with err
 * naming the file and the key, or the database. */
int cp_fleet_ingest(struct cp_fleet_db *db, const char *path,
                    const struct cp_fleet_identity *id,
                    struct cp_fleet_ingested *res, struct cp_error *err);

/* The same for a report already read (text, len bytes): shown names it in
 * messages; owner and mtime stand for the file's (the user and the end
 * when the caller gives neither). */
int cp_fleet_ingest_text(struct cp_fleet_db *db, const char *shown,
                         const char *text, size_t len, uid_t owner,
                         int64_t mtime, const struct cp_fleet_identity *id,
                         struct cp_fleet_ingested *res, struct cp_error *err);

#endif
