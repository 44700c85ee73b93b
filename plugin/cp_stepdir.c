/* cp_stepdir.c - make and open the step directory without following links. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_stepdir.h"

#define BATCH_STEP 0xfffffffbu /* SLURM_BATCH_SCRIPT */

static void say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

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
            say(err, errlen, "%s is not an absolute directory", cwd);
            return -1;
        }
        if (!cwd && !(cwd = getcwd(here, sizeof here))) {
            say(err, errlen, "cannot tell the working directory: %s",
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
        say(err, errlen, "the step directory's path is too long");
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
        say(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        say(err, errlen, "%s is not a directory", path);
        return -1;
    }
    if (st.st_uid != uid) {
        say(err, errlen, "%s belongs to uid %u, not to the job's user (uid %u)",
            path, (unsigned)st.st_uid, (unsigned)uid);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        say(err, errlen, "%s is writable by other users (mode %04o)", path,
            (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* Open the last component of path below its parent, never following a link
 * there (creating it first when asked), and check it. */
static int open_leaf(const char *path, int create, uid_t uid, char *err,
                     size_t errlen)
{
    char parent[4096];
    const char *leaf = strrchr(path, '/');
    int pfd = -1, fd = -1, rc = -1;

    if (!leaf || leaf[1] == '\0' || strcmp(leaf + 1, ".") == 0 ||
        strcmp(leaf + 1, "..") == 0 || (size_t)(leaf - path) >= sizeof parent) {
        say(err, errlen, "%s is not a usable step directory path", path);
        return -1;
    }
    if (leaf == path)
        snprintf(parent, sizeof parent, "/");
    else
        snprintf(parent, sizeof parent, "%.*s", (int)(leaf - path), path);
    leaf++;
    pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) {
        say(err, errlen, "%s: %s", parent, strerror(errno));
        goto out;
    }
    if (create && mkdirat(pfd, leaf, 0755) < 0 && errno != EEXIST) {
        say(err, errlen, "cannot create %s: %s", path, strerror(errno));
        goto out;
    }
    fd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
            say(err, errlen, "%s is a symbolic link: refused", path);
        else
            say(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        goto out;
    }
    if (check_dir(fd, path, uid, err, errlen) < 0) {
        close(fd);
        fd = -1;
        errno = EPERM;
        goto out;
    }
    rc = 0;
out:
    if (pfd >= 0) {
        int e = errno;
        close(pfd);
        errno = e;
    }
    return rc == 0 ? fd : -1;
}

/* mkdir -p of the parent components of path (as the caller). */
static int make_parents(const char *path, char *err, size_t errlen)
{
    char buf[4096];
    char *p;

    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        say(err, errlen, "%s: path too long", path);
        return -1;
    }
    p = strrchr(buf, '/');
    if (!p || p == buf)
        return 0;
    *p = '\0';
    for (p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
            say(err, errlen, "cannot create %s: %s", buf, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
        say(err, errlen, "cannot create %s: %s", buf, strerror(errno));
        return -1;
    }
    return 0;
}

int cp_stepdir_make(const char *path, uid_t uid, char *err, size_t errlen)
{
    if (path[0] != '/') {
        say(err, errlen, "%s is not an absolute path", path);
        return -1;
    }
    if (make_parents(path, err, errlen) < 0)
        return -1;
    return open_leaf(path, 1, uid, err, errlen);
}

int cp_stepdir_open(const char *path, uid_t uid, char *err, size_t errlen)
{
    return open_leaf(path, 0, uid, err, errlen);
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

    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return 0;
    json = strstr(name + sizeof prefix - 1, suffix);
    if (!json)
        return 0;
    json += sizeof suffix - 1;
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
