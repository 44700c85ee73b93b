/* stepdir_race.c - the step directory's walk (plugin/cp_stepdir.c) while
 * another process flips a symbolic link on the way: a link, a directory,
 * nothing, a link again, as fast as it can.  This is what a job's user can
 * do under dir= while slurmstepd's user_init walks to the step directory.
 *
 * Every walk must end in the step directory behind the link (the same
 * inode) or in an error that says why; nothing else.  tests/sanitize.sh
 * runs it again built with -fsanitize=address,undefined, where any read or
 * write outside a buffer (a failed readlinkat once wrote target[-1] and
 * walked uninitialised stack) stops the program with a report: the test
 * fails.  The walk is repeated until the race has made readlinkat fail
 * often enough (or a time limit), and the test says how often it did.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cp_stepdir.h"
#include "cp_error.h"
#include "tap.h"

#define WANT_LINK_FAILS 100 /* walks that met a failed readlinkat */
#define MAX_SECONDS 10.0
#define MAX_WALKS 2000000

static char tmp[] = "/tmp/cp-stepdir-race-XXXXXX";

static char *at(const char *rel)
{
    static char bufs[4][4096];
    static int i;
    char *b = bufs[i++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", tmp, rel);
    return b;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The other process: tmp/flip is a link to "real" (relative, or
 * absolute) and a directory in turn, swapped atomically with tmp/flipdir
 * (renameat2 RENAME_EXCHANGE), so that it is never missing; where the file
 * system cannot swap, it is removed and made again. */
static void flipper(void)
{
    const char *flip = at("flip"), *dir = at("flipdir"), *abs_target = at("real");
    unsigned long i;

    if (mkdir(dir, 0755) == 0) {
        for (i = 0;; i++) {
            if (renameat2(AT_FDCWD, flip, AT_FDCWD, dir, RENAME_EXCHANGE) != 0)
                break;
            if ((i & 63) == 0) { /* now and then the other kind of target */
                struct stat st;
                if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) &&
                    unlink(dir) == 0 &&
                    symlink(i & 64 ? abs_target : "real", dir) != 0)
                    break;
            }
        }
        rmdir(dir);
        unlink(dir);
    }
    for (i = 0;; i++) {
        unlink(flip);
        if (mkdir(flip, 0755) == 0)
            rmdir(flip);
        if (symlink(i & 1 ? abs_target : "real", flip) != 0)
            continue; /* a walk made nothing: try again */
    }
}

int main(void)
{
    uid_t me = geteuid();
    struct stat want, got;
    struct cp_error err;
    unsigned long walks = 0, found = 0, link_fails = 0, absent = 0,
                  wrong = 0, empty = 0;
    double start;
    pid_t pid, parent;
    int status = 0;

    if (!mkdtemp(tmp))
        skip_all("cannot make a temporary directory");
    umask(022);
    ok(mkdir(at("real"), 0755) == 0 &&
           mkdir(at("real/collprof-1.0"), 0700) == 0 &&
           symlink("real", at("flip")) == 0 &&
           stat(at("real/collprof-1.0"), &want) == 0,
       "the step directory real/collprof-1.0, reached through tmp/flip");
    fflush(stdout);
    parent = getpid();
    pid = fork();
    if (pid < 0)
        skip_all("cannot fork");
    if (pid == 0) {
        /* the flipper never outlives the test, even one ASan aborts */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(0);
        flipper();
        _exit(0);
    }
    start = now_s();
    while (link_fails < WANT_LINK_FAILS && walks < MAX_WALKS &&
           now_s() - start < MAX_SECONDS) {
        int fd;

        memset(&err, 0, sizeof err);
        /* as cp_stepdir_make would walk it (it shares the walk), without
         * creating anything in a flipped directory */
        fd = cp_stepdir_open(at("flip/collprof-1.0"), me, &err);
        walks++;
        if (fd >= 0) {
            if (fstat(fd, &got) == 0 && got.st_dev == want.st_dev &&
                got.st_ino == want.st_ino)
                found++;
            else
                wrong++;
            close(fd);
            continue;
        }
        if (!err.text[0])
            empty++;
        else if (strstr(err.text, "cannot read the symbolic link"))
            link_fails++;
        else if (errno == ENOENT)
            absent++;
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    diag("%lu walks in %.1f s: %lu reached the step directory, %lu found "
         "the link gone when reading it, %lu found no directory",
         walks, now_s() - start, found, link_fails, absent);
    ok(found > 0, "some walks reach the step directory through the link");
    ok(link_fails > 0,
       "the race was met: readlinkat failed under the walk %lu times, each "
       "an error naming the link",
       link_fails);
    is_int(wrong, 0, "no walk returned another directory");
    is_int(empty, 0, "every failed walk says why");
    {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            diag("could not remove %s", tmp);
    }
    return done_testing();
}
