/* cp_stepdir.c - make and open the step directory without following links. */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_stepdir.h"
#include "cp_error.h"
#include "cp_path.h"

#define BATCH_STEP 0xfffffffbu /* SLURM_BATCH_SCRIPT */

void cp_stepdir_name(unsigned job, unsigned step, char *out, size_t outlen)
{
    if (step == BATCH_STEP)
        snprintf(out, outlen, "collprof-%u.batch", job);
    else
        snprintf(out, outlen, "collprof-%u.%u", job, step);
}

int cp_stepdir_path(const char *cwd, const char *base, const char *name,
                    char *out, size_t outlen, struct cp_error *err)
{
    char here[4096];
    int n;

    if (base[0] == '/') {
        n = snprintf(out, outlen, "%s/%s", base, name);
    } else {
        if (cwd && cwd[0] != '/') {
            return cp_errorf(err, "%s is not an absolute directory", cwd);
        }
        if (!cwd && !(cwd = getcwd(here, sizeof here))) {
            return cp_errorf(err, "cannot tell the working directory: %s",
                             strerror(errno));
        }
        if (base[0])
            n = snprintf(out, outlen, "%s/%s/%s", strcmp(cwd, "/") ? cwd : "",
                         base, name);
        else
            n = snprintf(out, outlen, "%s/%s", strcmp(cwd, "/") ? cwd : "",
                         name);
    }
    if (n < 0 || (size_t)n >= outlen) {
        return cp_errorf(err, "the step directory's path is too long");
    }
    return 0;
}

/* The checks on an open step directory. */
static int check_dir(int fd, const char *path, uid_t uid, struct cp_error *err)
{
    struct stat st;

    if (fstat(fd, &st) < 0) {
        return cp_errorf(err, "%s: %s", path, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        return cp_errorf(err, "%s is not a directory", path);
    }
    if (st.st_uid != uid) {
        return cp_errorf(err,
                         "%s belongs to uid %u, not to the job's user (uid %u)",
                         path, (unsigned)st.st_uid, (unsigned)uid);
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        return cp_errorf(err, "%s is writable by other users (mode %04o)", path,
                         (unsigned)(st.st_mode & 07777));
    }
    return 0;
}

/* A directory on the way to the step directory: owned by root or the job's
 * user, and writable by group or others only when sticky (then nobody else
 * can rename or remove what root or the user put in it).  Such a path can
 * be changed by nobody but root and the user: naming it again later (the
 * analyzer, collprof ports, the shim's COLLPROF_DIR) reaches the same
 * directory. */
static int check_base(int fd, const char *shown, uid_t uid,
                      struct cp_error *err)
{
    struct stat st;

    if (fstat(fd, &st) < 0) {
        return cp_errorf(err, "%s: %s", shown, strerror(errno));
    }
    if (st.st_uid != 0 && st.st_uid != uid) {
        return cp_errorf(
            err,
            "%s belongs to uid %u, neither root nor the job's user (uid %u): "
            "refused on the way to the step directory",
            shown, (unsigned)st.st_uid, (unsigned)uid);
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
        return cp_errorf(
            err,
            "%s is writable by other users and not sticky (mode %04o): "
            "refused on the way to the step directory",
            shown, (unsigned)(st.st_mode & 07777));
    }
    return 0;
}

#define FOLLOW_LINK (-2) /* open_component: walk the link's target */
#define MAX_LINKS 40     /* as the kernel's ELOOP limit */

/* Open component name below pfd (shown: its path, for messages): a
 * directory, never through a link at the step directory's own name.  A
 * link on the way, when root or the user owns it, returns FOLLOW_LINK: the
 * caller walks its target with the same checks (the kernel would follow it
 * without checking the directories it passes).  create: made first with
 * mode (as the caller, so with the caller's ownership). */
static int open_component(int pfd, const char *name, const char *shown,
                          int create, mode_t mode, uid_t uid, int last,
                          struct cp_error *err)
{
    struct stat st;
    int fd, e;

    if (create && mkdirat(pfd, name, mode) < 0 && errno != EEXIST) {
        return cp_errorf(err, "cannot create %s: %s", shown, strerror(errno));
    }
    fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0)
        return fd;
    e = errno;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
        if (last) {
            errno = ELOOP;
            return cp_errorf(err, "%s is a symbolic link: refused", shown);
        }
        if (st.st_uid != 0 && st.st_uid != uid) {
            cp_errorf(
                err,
                "%s is a symbolic link of uid %u, neither root nor the job's "
                "user (uid %u): refused on the way to the step directory",
                shown, (unsigned)st.st_uid, (unsigned)uid);
            errno = EPERM;
            return -1;
        }
        return FOLLOW_LINK;
    }
    cp_errorf(err, "%s: %s", shown, strerror(e));
    errno = e;
    return -1;
}

/* What is left to walk: `rest` becomes the target of the link `name` in
 * the directory dfd, followed by what was left after it.  1 when the target
 * is absolute (the walk starts again from /), 0, or -1 with err. */
static int splice_link(int dfd, const char *name, const char *shown, char *rest,
                       size_t restlen, struct cp_error *err)
{
    char target[4096], joined[8192];
    ssize_t n = readlinkat(dfd, name, target, sizeof target - 1);
    int len;

    /* the link was seen a moment ago, but its owner may have replaced it
     * since (by a directory: EINVAL, or by nothing: ENOENT) */
    if (n < 0) {
        return cp_errorf(err, "%s: cannot read the symbolic link: %s", shown,
                         strerror(errno));
    }
    if (n == 0) {
        errno = EINVAL;
        return cp_errorf(err, "%s is an empty symbolic link", shown);
    }
    if ((size_t)n >= sizeof target - 1) {
        errno = ENAMETOOLONG;
        return cp_errorf(err, "%s: the symbolic link's target is too long",
                         shown);
    }
    target[n] = '\0';
    len = snprintf(joined, sizeof joined, "%s/%s", target, rest);
    if (len < 0 || (size_t)len >= restlen) {
        errno = ENAMETOOLONG;
        return cp_errorf(err, "%s: the path through the link is too long",
                         shown);
    }
    memcpy(rest, joined, (size_t)len + 1);
    return target[0] == '/';
}

/* The next component of *todo into comp (NUL-terminated in place), *todo
 * past it; NULL when none is left. */
static char *next_component(char **todo)
{
    char *comp = *todo, *end;

    while (*comp == '/')
        comp++;
    if (!*comp)
        return NULL;
    end = strchr(comp, '/');
    if (end) {
        *end = '\0';
        *todo = end + 1;
    } else {
        *todo = comp + strlen(comp);
    }
    return comp;
}

/* The directory fd's parent, checked like the rest of the way ("..", only
 * from a link's target: the path given may not have one); shown loses its
 * last component. */
static int open_parent(int fd, char *shown, uid_t uid, struct cp_error *err)
{
    char *slash = strrchr(shown, '/');
    int pfd;

    if (slash)
        *slash = '\0';
    pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (pfd < 0) {
        return cp_errorf(err, "%s/..: %s", shown, strerror(errno));
    }
    if (check_base(pfd, shown[0] ? shown : "/", uid, err) < 0) {
        close(pfd);
        return -1;
    }
    return pfd;
}

/* Walk the absolute path from / one component at a time, checking each
 * directory met (check_base), including those a link on the way leads
 * through, and the step directory itself (check_dir); create: missing
 * components are made with mode.  Returns the step directory's descriptor,
 * or -1 with err. */
static int walk(const char *path, int create, mode_t mode, uid_t uid,
                struct cp_error *err)
{
    char buf[8192], shown[4096];
    char *todo = buf, *comp;
    size_t used;
    int fd = -1, nfd, e, links = 0;

    if (path[0] != '/') {
        return cp_errorf(err, "%s is not an absolute path", path);
    }
    if (snprintf(buf, sizeof buf, "%s", path) >= 4096) {
        return cp_errorf(err, "%s: path too long", path);
    }
    if (cp_path_has_dotdot(path)) {
        return cp_errorf(err, "%s is not a usable step directory path", path);
    }
    fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || check_base(fd, "/", uid, err) < 0)
        goto fail;
    shown[0] = '\0';
    while ((comp = next_component(&todo)) != NULL) {
        int last = strspn(todo, "/") == strlen(todo);
        if (strcmp(comp, ".") == 0) {
            if (last)
                break;
            continue;
        }
        if (strcmp(comp, "..") == 0)
            nfd = open_parent(fd, shown, uid, err);
        else {
            used = strlen(shown);
            snprintf(shown + used, sizeof shown - used, "/%s", comp);
            nfd = open_component(fd, comp, shown, create, mode, uid, last, err);
        }
        if (nfd == FOLLOW_LINK) {
            char link[NAME_MAX + 1];
            int abs;
            snprintf(link, sizeof link, "%s", comp); /* comp is in buf */
            if (++links > MAX_LINKS) {
                cp_errorf(err, "%s: too many symbolic links", shown);
                errno = ELOOP;
                goto fail;
            }
            /* the link's own directory: todo is moved to buf's start */
            memmove(buf, todo, strlen(todo) + 1);
            todo = buf;
            abs = splice_link(fd, link, shown, buf, sizeof buf, err);
            if (abs < 0)
                goto fail;
            *strrchr(shown, '/') = '\0';
            if (abs) {
                close(fd);
                shown[0] = '\0';
                fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0 || check_base(fd, "/", uid, err) < 0)
                    goto fail;
            }
            continue;
        }
        if (nfd < 0)
            goto fail;
        close(fd);
        fd = nfd;
        if (last ? check_dir(fd, path, uid, err) < 0
                 : check_base(fd, shown[0] ? shown : "/", uid, err) < 0) {
            if (last)
                errno = EPERM;
            goto fail;
        }
        if (last)
            return fd;
    }
    cp_errorf(err, "%s is not a usable step directory path", path);
fail:
    e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return -1;
}

int cp_stepdir_make(const char *path, uid_t uid, mode_t mode,
                    struct cp_error *err)
{
    return walk(path, 1, mode, uid, err);
}

int cp_stepdir_open(const char *path, uid_t uid, struct cp_error *err)
{
    return walk(path, 0, 0, uid, err);
}

/* 1 when name ends with suffix and has something before it. */
static int ends_with(const char *name, const char *suffix)
{
    size_t len = strlen(name), n = strlen(suffix);

    return len > n && strcmp(name + len - n, suffix) == 0;
}

int cp_stepdir_count_logs(int dirfd)
{
    int fd = dup(dirfd), n = 0, nplugin = 0;
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
        struct stat st;
        if (!ends_with(e->d_name, ".cplog"))
            continue;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_size == 0)
            continue;
        if (ends_with(e->d_name, ".nccl.cplog"))
            nplugin++;
        else
            n++;
    }
    closedir(d);
    /* capture=both: one process, two logs; the shim's count the ranks */
    return n > 0 ? n : nplugin;
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

/* Remove the directory fd, named name in its parent, when empty. */
static int remove_dir(int fd, const char *name)
{
    struct stat self, entry;
    int pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;

    if (pfd < 0)
        return -1;
    /* the name may have been given to another directory since: only this
     * one goes (unlinkat removes only an empty one) */
    if (fstat(fd, &self) == 0 &&
        fstatat(pfd, name, &entry, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISDIR(entry.st_mode) && entry.st_dev == self.st_dev &&
        entry.st_ino == self.st_ino)
        rc = unlinkat(pfd, name, AT_REMOVEDIR);
    close(pfd);
    return rc;
}

int cp_stepdir_remove_unused(int fd, const char *name)
{
    int dfd;
    DIR *d;
    struct dirent *e;

    if (cp_stepdir_count_logs(fd) > 0)
        return 1;
    dfd = dup(fd);
    d = dfd < 0 ? NULL : fdopendir(dfd);
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return 1;
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
    return remove_dir(fd, name) == 0 ? 0 : 1;
}
