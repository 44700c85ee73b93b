/* cp_fleetdrain.h - collprof fleet ingest's site side: the spool that
 * slurmstepd fills drained into the database, and the site's hook run once
 * for each link or node that becomes bad (docs/fleet.md, "The spool",
 * "Alerts").  CLI layer: these print (one line per step, problems on
 * stderr). */
#ifndef COLLPROF_CP_FLEETDRAIN_H
#define COLLPROF_CP_FLEETDRAIN_H

#include "cp_fleet_db.h"

/* Ingest every entry of the spool whose report.json is there, with the
 * entry's job, step, user and end (and cluster, when given); keep an entry
 * whose report is not there yet, up to wait_s after its step ended; remove
 * the others (a damaged report is said on stderr).  An entry is removed
 * only after its transaction is committed, so a database that fails keeps
 * it.  0 when every entry taken went in (or was already there), 1 when
 * one failed, 2 when the spool cannot be read. */
int cp_fleetdrain_spool(struct cp_fleet_db *db, const char *spool,
                        double wait_s, const char *cluster, int quiet);

/* Judge the fleet and run prog once for each link or node judged bad that
 * was not alerted before (recorded in the database's alerts table first,
 * so that two drains at once alert once): no argument, a clean environment
 * (PATH, COLLPROF_FLEET_KIND = link or node, COLLPROF_FLEET_SUBJECT "A,B" or
 * "N", COLLPROF_FLEET_VERDICT, COLLPROF_FLEET_DB), output discarded, killed
 * after 30 s.  0, or 1 after a message. */
int cp_fleetdrain_alert(struct cp_fleet_db *db, const char *prog, int quiet);

#endif
