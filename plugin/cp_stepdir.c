/* cp_stepdir.c - make and open the step directory without following links. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_stepdir.h"
#include "cp_say.h"

#define BATCH_STEP 0xfffffffbu /* SLURM_BATCH_SCRIPT */

void cp_stepdir_name(unsigned job, unsigned step, char *out, size_t outlen)
{
    if (step == BATCH_STEP)
        snprintf(out, outlen, "collprof-%u.batch", job);
    else
        snprintf(out, outlen, "collprof-%u.%u", job, step);
}

int cp_stepdir_path(const char *cwd, const char *base, const char *name,
                    char *out, size_t outlen, char *err, size_t errlen)
{
    char here[4096];
    int n;

    if (base[0] == '/') {
        n = snprintf(out, outlen, "%s/%s", base, name);
    } else {
        if (cwd && cwd[0] != '/') {
            cp_say(err, errlen, "%s is not an absolute directory", cwd);
            return -1;
        }
        if (!cwd && !(cwd = getcwd(here, sizeof here))) {
            cp_say(err, errlen, "cannot tell the working directory: %s",
                   strerror(errno));
            return -1;
        }
        if (base[0])
            n = snprintf(out, outlen, "%s/%s/%s", strcmp(cwd, "/") ? cwd : "",
                         base, name);
        else
            n = snprintf(out, outlen, "%s/%s", strcmp(cwd, "/") ? cwd : "",
                         name);
    }
    if (n < 0 || (size_t)n >= outlen) {
        cp_say(err, errlen, "the step directory's path is too long");
        return -1;
    }
    return 0;
}

/* The checks on an open step directory. */
static int check_dir(int fd, const char *path, uid_t uid, char *err,
                     size_t errlen)
{
    struct stat st;

    if (fstat(fd, &st) < 0) {
        cp_say(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        cp_say(err, errlen, "%s is not a directory", path);
        return -1;
    }
    if (st.st_uid != uid) {
        cp_say(err, errlen, "%s belongs to uid %u, not to the job's user (uid %u)",
               path, (unsigned)st.st_uid, (unsigned)uid);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        cp_say(err, errlen, "%s is writable by other users (mode %04o)", path,
               (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* A directory on the way to the step directory: owned by root or the job's
 * user, and writable by group or others only when sticky (then nobody else
 * can rename or remove what root or the user put in it).  Such a path can
 * be changed by nobody but root and the user: naming it again later (the
 * analyzer, collprof ports, the shim's COLLPROF_DIR) reaches the same
 * directory. */
static int check_base(int fd, const char *shown, uid_t uid, char *err,
                      size_t errlen)
{
    struct stat st;

    if (fstat(fd, &st) < 0) {
        cp_say(err, errlen, "%s: %s", shown, strerror(errno));
        return -1;
    }
    if (st.st_uid != 0 && st.st_uid != uid) {
        cp_say(err, errlen,
               "%s belongs to uid %u, neither root nor the job's user (uid %u): "
               "refused on the way to the step directory",
               shown, (unsigned)st.st_uid, (unsigned)uid);
        return -1;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
        cp_say(err, errlen,
               "%s is writable by other users and not sticky (mode %04o): "
               "refused on the way to the step directory",
               shown, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* Open component name below pfd (shown: the path so far, for messages):
 * a directory, never through a link at the step directory's own name; a
 * link on the way only when root or the user owns it.  create: made first
 * with mode (as the caller, so with the caller's ownership). */
static int open_component(int pfd, const char *name, const char *shown,
                          int create, mode_t mode, uid_t uid, int last,
                          char *err, size_t errlen)
{
    const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    struct stat st;
    int fd, e;

    if (create && mkdirat(pfd, name, mode) < 0 && errno != EEXIST) {
        cp_say(err, errlen, "cannot create %s: %s", shown, strerror(errno));
        return -1;
    }
    fd = openat(pfd, name, flags | O_NOFOLLOW);
    if (fd >= 0)
        return fd;
    e = errno;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
        if (last) {
            cp_say(err, errlen, "%s is a symbolic link: refused", shown);
            errno = ELOOP;
            return -1;
        }
        if (st.st_uid != 0 && st.st_uid != uid) {
            cp_say(err, errlen,
                   "%s is a symbolic link of uid %u, neither root nor the job's "
                   "user (uid %u): refused on the way to the step directory",
                   shown, (unsigned)st.st_uid, (unsigned)uid);
            errno = EPERM;
            return -1;
        }
        fd = openat(pfd, name, flags);
        if (fd >= 0)
            return fd;
        e = errno;
    }
    cp_say(err, errlen, "%s: %s", shown, strerror(e));
    errno = e;
    return -1;
}

/* Walk the absolute path from / one component at a time, checking each
 * directory met (check_base) and the step directory itself (check_dir);
 * create: missing components are made with mode.  Returns the step
 * directory's descriptor, or -1 with err. */
static int walk(const char *path, int create, mode_t mode, uid_t uid,
                char *err, size_t errlen)
{
    char buf[4096], shown[4096];
    char *comp, *next;
    size_t used = 0;
    int fd = -1, nfd, e;

    if (path[0] != '/') {
        cp_say(err, errlen, "%s is not an absolute path", path);
        return -1;
    }
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        cp_say(err, errlen, "%s: path too long", path);
        return -1;
    }
    fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || check_base(fd, "/", uid, err, errlen) < 0)
        goto fail;
    shown[0] = '\0';
    for (comp = buf + 1; comp && *comp; comp = next) {
        int last;
        next = strchr(comp, '/');
        if (next)
            *next++ = '\0';
        while (next && *next == '/')
            next++;
        last = !next || !*next;
        if (!*comp || strcmp(comp, ".") == 0)
            continue;
        used += (size_t)snprintf(shown + used, sizeof shown - used, "/%s",
                                 comp);
        if (used >= sizeof shown)
            used = sizeof shown - 1;
        if (strcmp(comp, "..") == 0) {
            cp_say(err, errlen, "%s is not a usable step directory path", path);
            goto fail;
        }
        nfd = open_component(fd, comp, shown, create, mode, uid, last, err,
                             errlen);
        if (nfd < 0)
            goto fail;
        close(fd);
        fd = nfd;
        if (last ? check_dir(fd, path, uid, err, errlen) < 0
                 : check_base(fd, shown, uid, err, errlen) < 0) {
            if (last)
                errno = EPERM;
            goto fail;
        }
        if (last)
            return fd;
    }
    cp_say(err, errlen, "%s is not a usable step directory path", path);
fail:
    e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return -1;
}

int cp_stepdir_make(const char *path, uid_t uid, mode_t mode, char *err,
                    size_t errlen)
{
    return walk(path, 1, mode, uid, err, errlen);
}

int cp_stepdir_open(const char *path, uid_t uid, char *err, size_t errlen)
{
    return walk(path, 0, 0, uid, err, errlen);
}

int cp_stepdir_count_logs(int dirfd)
{
    static const char suffix[] = ".cplog";
    int fd = dup(dirfd), n = 0;
    DIR *d;
    struct dirent *e;

    if (fd < 0)
        return 0;
    d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    rewinddir(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        struct stat st;
        if (len <= sizeof suffix - 1 ||
            strcmp(e->d_name + len - (sizeof suffix - 1), suffix) != 0)
            continue;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_size > 0)
            n++;
    }
    closedir(d);
    return n;
}

int cp_stepdir_is_ports_file(const char *name)
{
    static const char prefix[] = "ports-", suffix[] = ".json";
    const char *json;
    int hidden = name[0] == '.';

    name += hidden; /* .ports-NODE-WHEN.json.RANDOM: a temporary one */
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return 0;
    json = strstr(name + sizeof prefix - 1, suffix);
    if (!json)
        return 0;
    json += sizeof suffix - 1;
    if (hidden)
        return *json == '.' && json[1] != '\0';
    return *json == '\0' || strncmp(json, ".tmp", 4) == 0;
}

int cp_stepdir_remove_unused(const char *path, uid_t uid, char *err,
                             size_t errlen)
{
    int fd = cp_stepdir_open(path, uid, err, errlen), dfd, rc = 1;
    DIR *d;
    struct dirent *e;

    if (fd < 0)
        return -1;
    if (cp_stepdir_count_logs(fd) > 0)
        goto out;
    dfd = dup(fd);
    d = dfd < 0 ? NULL : fdopendir(dfd);
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        goto out;
    }
    rewinddir(d); /* the descriptor's offset is shared with fd's */
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (cp_stepdir_is_ports_file(e->d_name) &&
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            unlinkat(fd, e->d_name, 0);
    }
    closedir(d);
    /* anything else in it (the user's own files) keeps it */
    if (rmdir(path) == 0)
        rc = 0;
out:
    close(fd);
    return rc;
}
