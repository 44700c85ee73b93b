/* drain.c - the fleet's spool from both ends: entries written as slurmstepd
 * writes them (plugin/cp_fleet_spool.c), walked and read as the drain reads
 * them (analyzer/fleet/cp_fleet_drain.c): a report is taken only through
 * descriptors, from a directory and a file of the entry's uid, never
 * through a link. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_error.h"
#include "cp_fleet_drain.h"
#include "cp_fleet_spool.h"
#include "tap.h"

static char tmp[] = "/tmp/cp-drain-XXXXXX";

static char *at(const char *rel)
{
    static char bufs[8][4096];
    static int i;
    char *b = bufs[i++ % 8];
    snprintf(b, 4096, "%s/%s", tmp, rel);
    return b;
}

static void put(const char *rel, const char *text)
{
    FILE *f = fopen(at(rel), "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

struct seen {
    char names[8][64];
    char bad[8][CP_ERROR_TEXT];
    struct cp_fleet_entry e[8];
    int n;
};

static int collect(void *ctx, const struct cp_fleet_entry *e,
                   const struct cp_error *bad, struct cp_error *err)
{
    struct seen *s = ctx;

    (void)err;
    if (s->n < 8) {
        snprintf(s->names[s->n], sizeof s->names[0], "%s", e->name);
        snprintf(s->bad[s->n], sizeof s->bad[0], "%s", bad ? bad->text : "");
        s->e[s->n] = *e;
        s->n++;
    }
    return 0;
}

static int report_of(const char *stepdir, char **text, struct cp_error *err)
{
    struct cp_fleet_entry e;
    size_t len;

    memset(&e, 0, sizeof e);
    e.uid = getuid();
    snprintf(e.stepdir, sizeof e.stepdir, "%s", stepdir);
    return cp_fleet_entry_report(&e, 1 << 20, text, &len, err);
}

int main(void)
{
    struct cp_spool_entry w = {7, 0, 0, "alice", NULL, 1765000000};
    struct cp_error err;
    struct seen s;
    char *text = NULL;
    int fd, rc;

    if (!mkdtemp(tmp))
        return 1;
    mkdir(at("spool"), 0700);
    mkdir(at("steps"), 0755);
    mkdir(at("steps/collprof-7.0"), 0700);
    w.uid = getuid();
    w.stepdir = at("steps/collprof-7.0");
    is_int(cp_fleet_spool_write(at("spool"), &w, &err), 0, "entry 7.0");
    w.job_id = 12;
    w.step_id = 0xfffffffbu;
    is_int(cp_fleet_spool_write(at("spool"), &w, &err), 0, "entry 12.batch");
    put("spool/9.1", "collprof-fleet-spool 1\njob=9\nstep=1\nuid=0\n");
    put("spool/README", "not an entry\n");

    fd = cp_fleet_spool_open(at("spool"), &err);
    ok(fd >= 0, "the spool opens (%s)", fd < 0 ? err.text : "");
    memset(&s, 0, sizeof s);
    is_int(cp_fleet_spool_walk(fd, collect, &s, &err), 0, "walk");
    is_int(s.n, 3, "three entries (README is none)");
    is_str(s.names[0], "12.batch", "sorted by name: 12.batch first");
    ok(s.bad[0][0] == '\0' && strcmp(s.e[0].job, "12") == 0 &&
           strcmp(s.e[0].step, "batch") == 0 && s.e[0].uid == getuid() &&
           strcmp(s.e[0].user, "alice") == 0 && s.e[0].ended == 1765000000,
       "12.batch parsed: job, step, uid, user, end");
    is_str(s.names[2], "9.1", "9.1 last");
    ok(strstr(s.bad[2], "9.1") && strstr(s.bad[2], "key user missing"),
       "a cut entry is passed as bad, naming the key: %s", s.bad[2]);
    ok(strcmp(s.e[1].stepdir, at("steps/collprof-7.0")) == 0,
       "7.0's step directory");

    is_int(cp_fleet_entry_report(&s.e[1], 1 << 20, &text, &(size_t){0}, &err),
           0, "no report.json yet: 0");
    put("steps/collprof-7.0/report.json", "{\"schema\": \"collprof.report/1\"}");
    rc = cp_fleet_entry_report(&s.e[1], 1 << 20, &text, &(size_t){0}, &err);
    ok(rc == 1 && text && strstr(text, "collprof.report/1"),
       "the report read through descriptors");
    free(text);
    text = NULL;
    rc = cp_fleet_entry_report(&s.e[1], 8, &text, &(size_t){0}, &err);
    ok(rc < 0 && strstr(err.text, "over 8") && !text,
       "a report over the bound is refused: %s", err.text);

    mkdir(at("other"), 0700);
    put("other/report.json", "{}");
    symlink(at("other"), at("steps/collprof-8.0"));
    rc = report_of(at("steps/collprof-8.0"), &text, &err);
    ok(rc < 0 && strstr(err.text, "link"),
       "a step directory that is a link is refused: %s", err.text);
    mkdir(at("steps/collprof-8.1"), 0700);
    symlink(at("other/report.json"), at("steps/collprof-8.1/report.json"));
    rc = report_of(at("steps/collprof-8.1"), &text, &err);
    ok(rc < 0 && strstr(err.text, "collprof-8.1/report.json"),
       "a report.json that is a link is refused: %s", err.text);
    mkdir(at("steps/collprof-8.2"), 0700);
    mkfifo(at("steps/collprof-8.2/report.json"), 0600);
    rc = report_of(at("steps/collprof-8.2"), &text, &err);
    ok(rc < 0 && strstr(err.text, "not a regular file"),
       "a FIFO is refused without blocking: %s", err.text);
    if (getuid() == 0) {
        mkdir(at("steps/collprof-8.3"), 0700);
        put("steps/collprof-8.3/report.json", "{}");
        rc = chown(at("steps/collprof-8.3/report.json"), 65534, 65534);
        rc = report_of(at("steps/collprof-8.3"), &text, &err);
        ok(rc < 0 && strstr(err.text, "uid 0"),
           "a report of another uid is refused: %s", err.text);
        rc = chown(at("spool/9.1"), 65534, 65534);
        memset(&s, 0, sizeof s);
        cp_fleet_spool_walk(fd, collect, &s, &err);
        ok(s.n == 3 && strstr(s.bad[2], "spool's owner"),
           "an entry not of the spool's owner is bad: %s", s.bad[2]);
    } else {
        ok(1, "# SKIP other uids need root");
        ok(1, "# SKIP other uids need root");
    }

    is_int(cp_fleet_spool_remove(fd, &s.e[1], &err), 0, "7.0 removed");
    ok(access(at("spool/7.0"), F_OK) < 0, "... gone from the spool");
    close(fd);

    chmod(at("spool"), 0770);
    fd = cp_fleet_spool_open(at("spool"), &err);
    ok(fd < 0 && strstr(err.text, "not writable by group"),
       "a group-writable spool is refused: %s", err.text);
    symlink(at("spool"), at("spool-link"));
    fd = cp_fleet_spool_open(at("spool-link"), &err);
    ok(fd < 0 && strstr(err.text, "a link is refused"),
       "a link as the spool is refused: %s", err.text);

    if (fork() == 0) {
        execlp("rm", "rm", "-rf", tmp, (char *)NULL);
        _exit(127);
    }
    return done_testing();
}
