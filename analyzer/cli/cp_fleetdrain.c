/* cp_fleetdrain.c - the spool drained, the site's hook for new bad links
 * and nodes. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cp_cmds.h"
#include "cp_fleet_drain.h"
#include "cp_fleet_ingest.h"
#include "cp_fleet_judge.h"
#include "cp_fleet_time.h"
#include "cp_fleetdrain.h"

#define HOOK_TIMEOUT_S 30

struct drain {
    struct cp_fleet_db *db;
    double wait_s;
    const char *cluster;
    int quiet, status, spool_fd;
};

/* One entry: ingested and removed, kept for later, or removed as bad. */
static int one_entry(void *ctx, const struct cp_fleet_entry *e,
                     const struct cp_error *bad, struct cp_error *err)
{
    struct drain *d = ctx;
    struct cp_fleet_identity id;
    struct cp_fleet_ingested res;
    struct cp_error e2;
    char end[32], shown[4200];
    char *text = NULL;
    size_t len;
    int got;

    (void)err;
    if (bad) {
        cp_cli_say(stderr, "collprof fleet ingest: %s: removed", bad->text);
        cp_fleet_spool_remove(d->spool_fd, e, &e2);
        return 0;
    }
    got = cp_fleet_entry_report(e, CP_FLEET_REPORT_MAX_BYTES, &text, &len,
                                &e2);
    if (got == 0) {
        if ((double)(time(NULL) - e->ended) <= d->wait_s)
            return 0; /* its analysis may still be running */
        cp_cli_say(stderr, "collprof fleet ingest: step %s.%s of %s: no "
                   "report.json in %s %.0f s after the step ended: entry "
                   "removed", e->job, e->step, e->user, e->stepdir, d->wait_s);
        cp_fleet_spool_remove(d->spool_fd, e, &e2);
        return 0;
    }
    if (got < 0) {
        cp_cli_say(stderr, "collprof fleet ingest: step %s.%s: %s: entry "
                   "removed", e->job, e->step, e2.text);
        cp_fleet_spool_remove(d->spool_fd, e, &e2);
        d->status = 1;
        return 0;
    }
    memset(&id, 0, sizeof id);
    snprintf(end, sizeof end, "%lld", (long long)e->ended);
    id.job = e->job;
    id.step = e->step;
    id.user = e->user;
    id.end = end;
    id.cluster = d->cluster;
    snprintf(shown, sizeof shown, "%s/report.json", e->stepdir);
    if (cp_fleet_ingest_text(d->db, shown, text, len, e->uid, e->ended, &id,
                             &res, &e2) < 0) {
        cp_cli_say(stderr, "collprof fleet ingest: %s", e2.text);
        d->status = 1;
        /* a report refused is removed; the database's own failure (it
         * names the database) keeps the entry for the next drain */
        if (strstr(e2.text, shown))
            cp_fleet_spool_remove(d->spool_fd, e, &e2);
    } else {
        if (!d->quiet)
            cp_cli_say(stdout, "collprof fleet: %s: step %s.%s (user %s)%s",
                       shown, res.job, res.step, res.user,
                       res.inserted ? "" : " was already in the database");
        cp_fleet_spool_remove(d->spool_fd, e, &e2);
    }
    free(text);
    return 0;
}

int cp_fleetdrain_spool(struct cp_fleet_db *db, const char *spool,
                        double wait_s, const char *cluster, int quiet)
{
    struct drain d = {db, wait_s, cluster, quiet, 0, -1};
    struct cp_error err;

    d.spool_fd = cp_fleet_spool_open(spool, &err);
    if (d.spool_fd < 0) {
        cp_cli_say(stderr, "collprof fleet ingest: %s", err.text);
        return 2;
    }
    if (cp_fleet_spool_walk(d.spool_fd, one_entry, &d, &err) < 0) {
        cp_cli_say(stderr, "collprof fleet ingest: %s", err.text);
        d.status = 2;
    }
    close(d.spool_fd);
    return d.status;
}

/* ---- alerts ------------------------------------------------------------- */

static void run_hook(const char *prog, const char *kind, const char *subject,
                     const char *verdict, const char *db)
{
    char e_kind[64], e_subj[640], e_verdict[64], e_db[4200];
    const char *env[] = {e_kind, e_subj, e_verdict, e_db, NULL};

    snprintf(e_kind, sizeof e_kind, "COLLPROF_FLEET_KIND=%s", kind);
    snprintf(e_subj, sizeof e_subj, "COLLPROF_FLEET_SUBJECT=%s", subject);
    snprintf(e_verdict, sizeof e_verdict, "COLLPROF_FLEET_VERDICT=%s",
             verdict);
    snprintf(e_db, sizeof e_db, "COLLPROF_FLEET_DB=%s", db);
    cp_cli_run_hook("fleet ingest", prog, env, HOOK_TIMEOUT_S);
}

/* Record the alert of kind/subject; 1 when it is new (the hook is due),
 * 0 when sent before, -1 on the database's error. */
static int claim(struct cp_fleet_db *db, const char *kind,
                 const char *subject, const char *verdict, struct cp_error *err)
{
    char now[CP_FLEET_TIME_SIZE];
    const char *params[4] = {kind, subject, verdict, now};
    long long changed = 0;

    cp_fleet_time_format((double)time(NULL), now);
    if (cp_fleet_db_begin(db, 0, err) < 0)
        return -1;
    if (cp_fleet_db_exec(db,
                         "INSERT INTO alerts (kind, subject, verdict, sent) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         4, params, &changed, err) < 0 ||
        cp_fleet_db_commit(db, err) < 0) {
        cp_fleet_db_rollback(db);
        return -1;
    }
    return changed > 0;
}

int cp_fleetdrain_alert(struct cp_fleet_db *db, const char *prog, int quiet)
{
    struct cp_fleet_view v;
    struct cp_error err;
    char subject[600];
    size_t i;
    int rc = 0, c;

    memset(&v, 0, sizeof v);
    if (cp_fleet_judge(db, NAN, (double)time(NULL), &v, &err) < 0) {
        cp_cli_say(stderr, "collprof fleet ingest: %s", err.text);
        return 1;
    }
    for (i = 0; rc == 0 && i < v.nlinks + v.nnodes; i++) {
        int link = i < v.nlinks;
        if ((link ? v.links[i].verdict : v.nodes[i - v.nlinks].verdict) !=
            CP_FLEET_BAD)
            continue;
        if (link)
            snprintf(subject, sizeof subject, "%s,%s", v.links[i].a,
                     v.links[i].b);
        else
            snprintf(subject, sizeof subject, "%s", v.nodes[i - v.nlinks].node);
        c = claim(db, link ? "link" : "node", subject, "bad", &err);
        if (c < 0) {
            cp_cli_say(stderr, "collprof fleet ingest: %s", err.text);
            rc = 1;
        } else if (c > 0) {
            if (!quiet)
                cp_cli_say(stdout, "collprof fleet: %s %s is now bad: %s run",
                           link ? "link" : "node", subject, prog);
            run_hook(prog, link ? "link" : "node", subject, "bad",
                     cp_fleet_db_name(db));
        }
    }
    cp_fleet_view_free(&v);
    return rc;
}
