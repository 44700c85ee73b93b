/* fleet_spool.c - the step's entry in the fleet's spool directory
 * (plugin/cp_fleet_spool.c): whole or absent, and never written into a
 * directory that someone else can change. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_error.h"
#include "cp_fleet_spool.h"
#include "tap.h"

static char tmp[] = "/tmp/cp-spool-XXXXXX";
static struct cp_error err;

static char *at(const char *rel)
{
    static char bufs[4][4096];
    static int i;
    char *b = bufs[i++ % 4];
    snprintf(b, 4096, "%s/%s", tmp, rel);
    return b;
}

static const char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n;

    buf[0] = '\0';
    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

int main(void)
{
    struct cp_spool_entry e = {42, 3, 1000, "alice",
                               "/scratch/alice/collprof-42.3", 1765000000};
    struct stat st;
    const char *body;
    int rc;

    if (!mkdtemp(tmp))
        return 1;
    mkdir(at("spool"), 0700);

    is_int(cp_fleet_spool_write(at("spool"), &e, &err), 0, "entry written");
    body = slurp(at("spool/42.3"));
    ok(body && strcmp(body, "collprof-fleet-spool 1\njob=42\nstep=3\n"
                            "uid=1000\nuser=alice\n"
                            "stepdir=/scratch/alice/collprof-42.3\n"
                            "ended=1765000000\n") == 0,
       "42.3 holds job, step, uid, user, directory and end");
    ok(stat(at("spool/42.3"), &st) == 0 && (st.st_mode & 0777) == 0600,
       "mode 0600");
    ok(access(at("spool/.42.3.tmp"), F_OK) < 0, "no temporary left");

    e.step_id = 0xfffffffbu;
    is_int(cp_fleet_spool_write(at("spool"), &e, &err), 0, "batch step");
    body = slurp(at("spool/42.batch"));
    ok(body && strstr(body, "\nstep=batch\n") != NULL, "42.batch, step=batch");

    /* a temporary a crash left behind is replaced, not followed */
    e.step_id = 4;
    symlink("/etc/passwd", at("spool/.42.4.tmp"));
    is_int(cp_fleet_spool_write(at("spool"), &e, &err), 0,
           "a leftover temporary (a link) is removed first");
    body = slurp("/etc/passwd");
    ok(body && strstr(body, "collprof-fleet-spool") == NULL,
       "nothing written through the link");

    chmod(at("spool"), 0720);
    rc = cp_fleet_spool_write(at("spool"), &e, &err);
    ok(rc < 0 && strstr(err.text, "writable by group or others") &&
           strstr(err.text, tmp),
       "group-writable spool refused, named: %s", err.text);
    chmod(at("spool"), 0700);

    symlink(at("spool"), at("link"));
    rc = cp_fleet_spool_write(at("link"), &e, &err);
    ok(rc < 0 && strstr(err.text, at("link")), "a link as the spool refused: %s",
       err.text);
    rc = cp_fleet_spool_write("spool", &e, &err);
    ok(rc < 0 && strstr(err.text, "not an absolute path"),
       "a relative spool refused: %s", err.text);
    e.stepdir = "/scratch/a\nuser=root";
    rc = cp_fleet_spool_write(at("spool"), &e, &err);
    ok(rc < 0 && strstr(err.text, "not printable") &&
           access(at("spool/42.4"), F_OK) == 0,
       "a directory with a newline makes no entry: %s", err.text);
    body = slurp(at("spool/42.4"));
    ok(body && strstr(body, "user=root") == NULL, "42.4 unchanged");

    if (fork() == 0) { /* wipe the temp tree */
        execlp("rm", "rm", "-rf", tmp, (char *)NULL);
        _exit(127);
    }
    return done_testing();
}
