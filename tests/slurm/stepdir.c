/* stepdir.c - the step directory: made and opened without following a link,
 * checked for owner and mode (plugin/cp_stepdir.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_stepdir.h"
#include "tap.h"

static char tmp[] = "/tmp/cp-stepdir-XXXXXX";
static char err[4096];

static char *at(const char *rel)
{
    static char bufs[4][4096];
    static int i;
    char *b = bufs[i++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", tmp, rel);
    return b;
}

static void touch(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    uid_t me = geteuid();
    char name[64], path[4096];
    struct stat st;
    int fd;

    if (!mkdtemp(tmp))
        skip_all("cannot make a temporary directory");
    umask(022);

    cp_stepdir_name(12, 3, name, sizeof name);
    is_str(name, "collprof-12.3", "step name");
    cp_stepdir_name(12, 0xfffffffbu, name, sizeof name);
    is_str(name, "collprof-12.batch", "batch step name");
    ok(chdir(tmp) == 0, "chdir");
    is_int(cp_stepdir_path("", "collprof-1.0", path, sizeof path, err,
                           sizeof err),
           0, "path relative to the working directory");
    is_str(path, at("collprof-1.0"), "is absolute");
    is_int(cp_stepdir_path("sub", "collprof-1.0", path, sizeof path, err,
                           sizeof err),
           0, "relative base");
    is_str(path, at("sub/collprof-1.0"), "below the working directory");
    is_int(cp_stepdir_path("/abs", "collprof-1.0", path, sizeof path, err,
                           sizeof err),
           0, "absolute base");
    is_str(path, "/abs/collprof-1.0", "kept");

    fd = cp_stepdir_make(at("a/b/collprof-1.0"), me, err, sizeof err);
    ok(fd >= 0, "make with missing parents (%s)", fd < 0 ? err : "ok");
    ok(stat(at("a/b/collprof-1.0"), &st) == 0 && S_ISDIR(st.st_mode) &&
           (st.st_mode & 0777) == 0755,
       "a 0755 directory");
    if (fd >= 0)
        close(fd);
    fd = cp_stepdir_make(at("a/b/collprof-1.0"), me, err, sizeof err);
    ok(fd >= 0, "made again by another node: fine");
    if (fd >= 0)
        close(fd);

    ok(mkdir(at("target"), 0755) == 0 &&
           symlink(at("target"), at("collprof-2.0")) == 0,
       "plant a symlink where the step directory goes");
    fd = cp_stepdir_make(at("collprof-2.0"), me, err, sizeof err);
    ok(fd < 0, "the symlink is refused");
    ok(strstr(err, "symbolic link") != NULL, "says so (%s)", err);
    fd = cp_stepdir_open(at("collprof-2.0"), me, err, sizeof err);
    ok(fd < 0 && strstr(err, "symbolic link"), "open refuses it too");

    ok(mkdir(at("collprof-3.0"), 0777) == 0 &&
           chmod(at("collprof-3.0"), 0777) == 0,
       "a world-writable directory at the name");
    fd = cp_stepdir_make(at("collprof-3.0"), me, err, sizeof err);
    ok(fd < 0 && strstr(err, "writable by other users"), "refused (%s)", err);

    ok(mkdir(at("collprof-4.0"), 0755) == 0, "a directory of 'another' user");
    fd = cp_stepdir_make(at("collprof-4.0"), me + 1, err, sizeof err);
    ok(fd < 0 && strstr(err, "belongs to uid"), "refused (%s)", err);

    touch(at("collprof-5.0"), "x");
    fd = cp_stepdir_make(at("collprof-5.0"), me, err, sizeof err);
    ok(fd < 0, "a file at the name is refused (%s)", err);

    fd = cp_stepdir_open(at("collprof-6.0"), me, err, sizeof err);
    ok(fd < 0 && errno == ENOENT, "open of an absent directory: ENOENT");
    fd = cp_stepdir_make("relative/collprof-1.0", me, err, sizeof err);
    ok(fd < 0, "make needs an absolute path");

    fd = cp_stepdir_make(at("collprof-7.0"), me, err, sizeof err);
    ok(fd >= 0, "make collprof-7.0");
    is_int(cp_stepdir_count_logs(fd), 0, "no logs yet");
    touch(at("collprof-7.0/n1.100.cplog"), "data");
    touch(at("collprof-7.0/n1.101.cplog"), "");
    touch(at("collprof-7.0/notes.txt"), "x");
    ok(symlink(at("collprof-7.0/n1.100.cplog"), at("collprof-7.0/n2.5.cplog")) ==
           0,
       "a symlinked log");
    is_int(cp_stepdir_count_logs(fd), 1,
           "one log: empty files, other names and links do not count");
    if (fd >= 0)
        close(fd);
    ok(cp_stepdir_remove_if_empty(at("collprof-7.0")) < 0,
       "a directory with files stays");
    fd = cp_stepdir_make(at("collprof-8.0"), me, err, sizeof err);
    if (fd >= 0)
        close(fd);
    ok(cp_stepdir_remove_if_empty(at("collprof-8.0")) == 0 &&
           access(at("collprof-8.0"), F_OK) < 0,
       "an empty one is removed");

    {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            diag("could not remove %s", tmp);
    }
    return done_testing();
}
