/* stepdir.c - the step directory: made and opened without following a link,
 * checked for owner and mode (plugin/cp_stepdir.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cp_stepdir.h"
#include "cp_error.h"
#include "tap.h"

static char tmp[] = "/tmp/cp-stepdir-XXXXXX";
static struct cp_error err;

/* readlinkat, as the step directory code calls it (this definition comes
 * before the C library's): when flip_name is set, the link of that name is
 * replaced by a directory just before it is read, the race a user wins by
 * flipping a link under dir= between the walk's look at it and the read of
 * its target.  The read then fails, for real (EINVAL: not a link). */
static const char *flip_name, *flip_path;
static int flips;

ssize_t readlinkat(int dfd, const char *name, char *buf, size_t len)
{
    if (flip_name && strcmp(name, flip_name) == 0) {
        if (unlink(flip_path) == 0 && mkdir(flip_path, 0755) == 0)
            flips++;
        flip_name = NULL;
    }
    return (ssize_t)syscall(SYS_readlinkat, dfd, name, buf, len);
}

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

/* cp_stepdir_remove_unused on tmp/name, opened (checked) first: -1 when
 * the open refuses it. */
static int remove_unused(const char *name, uid_t uid)
{
    int fd = cp_stepdir_open(at(name), uid, &err), rc;

    if (fd < 0)
        return -1;
    rc = cp_stepdir_remove_unused(fd, name);
    close(fd);
    return rc;
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
    is_int(cp_stepdir_path(NULL, "", "collprof-1.0", path, sizeof path, &err),
           0, "path relative to the working directory");
    is_str(path, at("collprof-1.0"), "is absolute");
    is_int(
        cp_stepdir_path(NULL, "sub", "collprof-1.0", path, sizeof path, &err),
        0, "relative base");
    is_str(path, at("sub/collprof-1.0"), "below the working directory");
    is_int(
        cp_stepdir_path(NULL, "/abs", "collprof-1.0", path, sizeof path, &err),
        0, "absolute base");
    is_str(path, "/abs/collprof-1.0", "kept");
    /* srun and slurmstepd resolve from the same directory, whatever the
     * step's working directory (srun --chdir) */
    is_int(cp_stepdir_path("/submit", "sub", "collprof-1.0", path, sizeof path,
                           &err),
           0, "relative base from a given directory");
    is_str(path, "/submit/sub/collprof-1.0", "below that directory");
    is_int(cp_stepdir_path("/", "", "collprof-1.0", path, sizeof path, &err), 0,
           "empty base from /");
    is_str(path, "/collprof-1.0", "no double slash");
    is_int(cp_stepdir_path("/submit", "/abs", "collprof-1.0", path, sizeof path,
                           &err),
           0, "an absolute base ignores the directory");
    is_str(path, "/abs/collprof-1.0", "kept");
    ok(cp_stepdir_path("submit", "sub", "collprof-1.0", path, sizeof path,
                       &err) < 0,
       "a relative directory to resolve from is refused (%s)", err.text);

    fd = cp_stepdir_make(at("a/b/collprof-1.0"), me, 0700, &err);
    ok(fd >= 0, "make with missing parents (%s)", fd < 0 ? err.text : "ok");
    ok(stat(at("a/b/collprof-1.0"), &st) == 0 && S_ISDIR(st.st_mode) &&
           (st.st_mode & 0777) == 0700,
       "a 0700 directory (mode 0700)");
    ok(stat(at("a"), &st) == 0 && (st.st_mode & 0777) == 0700 &&
           st.st_uid == me,
       "the missing parts of the base made too, the caller's, 0700");
    if (fd >= 0)
        close(fd);
    fd = cp_stepdir_make(at("a/b/collprof-1.0"), me, 0700, &err);
    ok(fd >= 0, "made again by another node: fine");
    if (fd >= 0)
        close(fd);

    ok(mkdir(at("target"), 0755) == 0 &&
           symlink(at("target"), at("collprof-2.0")) == 0,
       "plant a symlink where the step directory goes");
    fd = cp_stepdir_make(at("collprof-2.0"), me, 0700, &err);
    ok(fd < 0, "the symlink is refused");
    ok(strstr(err.text, "symbolic link") != NULL, "says so (%s)", err.text);
    fd = cp_stepdir_open(at("collprof-2.0"), me, &err);
    ok(fd < 0 && strstr(err.text, "symbolic link"), "open refuses it too");

    ok(mkdir(at("collprof-3.0"), 0777) == 0 &&
           chmod(at("collprof-3.0"), 0777) == 0,
       "a world-writable directory at the name");
    fd = cp_stepdir_make(at("collprof-3.0"), me, 0700, &err);
    ok(fd < 0 && strstr(err.text, "writable by other users"), "refused (%s)",
       err.text);

    ok(mkdir(at("collprof-4.0"), 0755) == 0, "a directory of 'another' user");
    fd = cp_stepdir_make(at("collprof-4.0"), me + 1, 0700, &err);
    ok(fd < 0 && strstr(err.text, "belongs to uid"), "refused (%s)", err.text);

    touch(at("collprof-5.0"), "x");
    fd = cp_stepdir_make(at("collprof-5.0"), me, 0700, &err);
    ok(fd < 0, "a file at the name is refused (%s)", err.text);

    fd = cp_stepdir_open(at("collprof-6.0"), me, &err);
    ok(fd < 0 && errno == ENOENT, "open of an absent directory: ENOENT");
    fd = cp_stepdir_make("relative/collprof-1.0", me, 0700, &err);
    ok(fd < 0, "make needs an absolute path");

    fd = cp_stepdir_make(at("collprof-7.0"), me, 0700, &err);
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
    touch(at("collprof-7.0/n1.100.nccl.cplog"), "data");
    is_int(cp_stepdir_count_logs(fd), 1,
           "the same process's plugin log beside its shim log: still one");
    unlink(at("collprof-7.0/n1.100.cplog"));
    touch(at("collprof-7.0/n1.102.nccl.cplog"), "data");
    is_int(cp_stepdir_count_logs(fd), 2,
           "plugin logs alone (capture=plugin) count: two");
    touch(at("collprof-7.0/n1.100.cplog"), "data");
    unlink(at("collprof-7.0/n1.100.nccl.cplog"));
    unlink(at("collprof-7.0/n1.102.nccl.cplog"));
    if (fd >= 0)
        close(fd);
    touch(at("collprof-7.0/ports-n1-start.json"), "{}");
    is_int(remove_unused("collprof-7.0", me), 1,
           "a directory with a rank log stays");
    ok(access(at("collprof-7.0/ports-n1-start.json"), F_OK) == 0,
       "... with its port snapshots");

    ok(cp_stepdir_is_ports_file("ports-n1-start.json") &&
           cp_stepdir_is_ports_file("ports-n12-end.json.tmp4711") &&
           cp_stepdir_is_ports_file(".ports-n12-end.json.k3j4h5g6f7d8") &&
           !cp_stepdir_is_ports_file(".ports-n12-end.json") &&
           !cp_stepdir_is_ports_file("ports-n1-start.jsonx") &&
           !cp_stepdir_is_ports_file("report.json") &&
           !cp_stepdir_is_ports_file("xports-n1-start.json"),
       "port snapshot names");
    fd = cp_stepdir_make(at("collprof-8.0"), me, 0700, &err);
    if (fd >= 0)
        close(fd);
    touch(at("collprof-8.0/ports-n1-start.json"), "{}");
    touch(at("collprof-8.0/ports-n1-end.json"), "{}");
    touch(at("collprof-8.0/ports-n2-end.json.tmp99"), "{");
    touch(at("collprof-8.0/.ports-n3-end.json.k3j4h5g6f7d8"), "{");
    is_int(remove_unused("collprof-8.0", me), 0,
           "no rank log, only port snapshots: removed");
    ok(access(at("collprof-8.0"), F_OK) < 0, "... the directory is gone");

    fd = cp_stepdir_make(at("collprof-9.0"), me, 0700, &err);
    if (fd >= 0)
        close(fd);
    touch(at("collprof-9.0/ports-n1-start.json"), "{}");
    touch(at("collprof-9.0/mine.txt"), "the user's");
    is_int(remove_unused("collprof-9.0", me), 1,
           "no rank log but another file: stays");
    ok(access(at("collprof-9.0/mine.txt"), F_OK) == 0 &&
           access(at("collprof-9.0/ports-n1-start.json"), F_OK) < 0,
       "... that file kept, the snapshots gone");
    ok(symlink(at("target"), at("collprof-10.0")) == 0 &&
           remove_unused("collprof-10.0", me) < 0,
       "a symlink at the name: refused, nothing removed through it");
    /* the directory checked is the one removed: moved away (and its name
     * given to another empty directory) after the check, it goes from
     * where it is now, and the new one stays */
    fd = cp_stepdir_make(at("collprof-18.0"), me, 0700, &err);
    ok(fd >= 0 && rename(at("collprof-18.0"), at("moved-18")) == 0 &&
           mkdir(at("collprof-18.0"), 0700) == 0,
       "a step directory checked, then moved, its name reused");
    is_int(fd >= 0 ? cp_stepdir_remove_unused(fd, "collprof-18.0") : -1, 1,
           "... the checked one, now under another name, is not removed by "
           "name");
    ok(access(at("collprof-18.0"), F_OK) == 0,
       "... nor the new directory at its old name");
    if (fd >= 0)
        close(fd);
    fd = cp_stepdir_make(at("collprof-19.0"), me, 0700, &err);
    ok(fd >= 0 && mkdir(at("sub19"), 0700) == 0 &&
           rename(at("collprof-19.0"), at("sub19/collprof-19.0")) == 0,
       "a step directory checked, then moved to another parent");
    is_int(fd >= 0 ? cp_stepdir_remove_unused(fd, "collprof-19.0") : -1, 0,
           "... removed where it is now");
    ok(access(at("sub19/collprof-19.0"), F_OK) < 0, "... it is gone");
    if (fd >= 0)
        close(fd);

    /* every component of the base is checked on the way */
    ok(mkdir(at("open"), 0777) == 0 && chmod(at("open"), 0777) == 0,
       "a base component writable by everyone, not sticky");
    fd = cp_stepdir_make(at("open/collprof-11.0"), me, 0700, &err);
    ok(fd < 0 && strstr(err.text, "writable by other users and not sticky") &&
           strstr(err.text, at("open")),
       "refused, naming it (%s)", err.text);
    ok(access(at("open/collprof-11.0"), F_OK) < 0, "... nothing made in it");
    ok(mkdir(at("sticky"), 0777) == 0 && chmod(at("sticky"), 01777) == 0,
       "a sticky world-writable component (as /tmp)");
    fd = cp_stepdir_make(at("sticky/u/collprof-12.0"), me, 0700, &err);
    ok(fd >= 0, "accepted (%s)", fd < 0 ? err.text : "ok");
    if (fd >= 0)
        close(fd);
    ok(mkdir(at("real"), 0755) == 0 && symlink(at("real"), at("mylink")) == 0,
       "a link of the caller's on the way");
    fd = cp_stepdir_make(at("mylink/collprof-13.0"), me, 0700, &err);
    ok(fd >= 0 && access(at("real/collprof-13.0"), F_OK) == 0, "followed (%s)",
       fd < 0 ? err.text : "ok");
    if (fd >= 0)
        close(fd);
    fd = cp_stepdir_open(at("open/../real/collprof-13.0"), me, &err);
    ok(fd < 0, "'..' on the way is refused");
    /* a link's target is walked with the same checks; '..' in it is fine */
    ok(symlink("real/../real", at("rellink")) == 0,
       "a relative link through '..'");
    fd = cp_stepdir_make(at("rellink/collprof-16.0"), me, 0700, &err);
    ok(fd >= 0 && access(at("real/collprof-16.0"), F_OK) == 0,
       "followed, component by component (%s)", fd < 0 ? err.text : "ok");
    if (fd >= 0)
        close(fd);
    /* the link turns into a directory between the walk's fstatat and its
     * readlinkat: the read fails, and the walk stops there with the
     * error (it went on with the unread target: a stack overflow) */
    ok(mkdir(at("flipreal"), 0755) == 0 &&
           mkdir(at("flipreal/collprof-21.0"), 0700) == 0 &&
           symlink("flipreal", at("flip")) == 0,
       "a link of the caller's on the way, to a step directory's parent");
    flip_name = "flip";
    flip_path = at("flip");
    memset(&err, 0, sizeof err);
    fd = cp_stepdir_open(at("flip/collprof-21.0"), me, &err);
    is_int(flips, 1, "... replaced by a directory before its target is read");
    ok(fd < 0 && strstr(err.text, at("flip")) &&
           strstr(err.text, "cannot read the symbolic link") &&
           strstr(err.text, strerror(EINVAL)),
       "the walk stops, naming the link and why (%s)", err.text);
    if (fd >= 0)
        close(fd);
    ok(symlink("loop", at("loop")) == 0, "a link to itself");
    fd = cp_stepdir_make(at("loop/collprof-17.0"), me, 0700, &err);
    ok(fd < 0 && errno == ELOOP && strstr(err.text, "too many symbolic links"),
       "refused (%s)", err.text);
    if (me == 0) {
        /* another user's directory or link on the way (root can make
         * them): the basedir takeover of /scratch/%u */
        ok(mkdir(at("theirs"), 0755) == 0 && chown(at("theirs"), 4242, 4242) == 0,
           "a directory of uid 4242 on the way");
        fd = cp_stepdir_make(at("theirs/collprof-14.0"), 4343, 0700, &err);
        ok(fd < 0 && strstr(err.text, "belongs to uid 4242, neither root nor"),
           "refused for the job's user 4343 (%s)", err.text);
        ok(symlink(at("real"), at("theirlink")) == 0 &&
               lchown(at("theirlink"), 4242, 4242) == 0,
           "a link of uid 4242 on the way");
        fd = cp_stepdir_make(at("theirlink/collprof-15.0"), me, 0700, &err);
        ok(fd < 0 && strstr(err.text, "symbolic link of uid 4242"),
           "refused, naming it (%s)", err.text);
        ok(access(at("real/collprof-15.0"), F_OK) < 0,
           "... nothing made where it points");
        /* the user's own link through another user's directory: that user
         * could swap what it leads to later; the link's target is walked
         * like the rest, so it is refused */
        ok(mkdir(at("theirs/mine"), 0700) == 0 &&
               chown(at("theirs/mine"), 4343, 4343) == 0 &&
               symlink(at("theirs/mine"), at("userlink")) == 0 &&
               lchown(at("userlink"), 4343, 4343) == 0,
           "a link of uid 4343 to its directory inside uid 4242's");
        fd = cp_stepdir_open(at("userlink/collprof-20.0"), 4343, &err);
        ok(fd < 0 &&
               strstr(err.text, "theirs belongs to uid 4242, neither root nor"),
           "refused for uid 4343, naming the other user's directory (%s)",
           err.text);
    } else {
        int i;
        for (i = 0; i < 7; i++)
            ok(1, "# SKIP another user's component: needs root");
    }

    {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            diag("could not remove %s", tmp);
    }
    return done_testing();
}
