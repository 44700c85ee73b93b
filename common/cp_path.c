/* cp_path.c - output files by directory descriptor, inputs without
 * following links (see cp_path.h for the rules and why). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cp_path.h"

#define TMP_TRIES 64

static enum cp_path_links log_links = CP_PATH_NOFOLLOW;

int cp_path_mkdir(const char *path, mode_t mode)
{
    char buf[PATH_MAX];
    size_t i, n = strlen(path);

    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return -1;
        buf[i] = path[i];
    }
    return 0;
}

/* ---- input directories opened once ---------------------------------------
 * A directory the command was given (cp_path_anchor) is opened once; every
 * later name directly in it ("DIR/NAME", as the listings make them) is
 * opened, listed, looked at and written by that descriptor (openat,
 * fdopendir, fstatat, the outputs' renameat), never by its path again: a
 * directory swapped for a link while the command runs redirects nothing.
 * Set up by main() before any thread starts, read-only afterwards. */
struct anchor {
    char *path; /* as given, trailing slashes dropped */
    int fd;     /* O_PATH: names are looked up in it; reading or listing
                   it opens it again (its permissions checked then, as
                   they were when the path was opened) */
};
static struct anchor *anchors;
static size_t nanchors;

/* The length of path without its trailing slashes ("/" stays 1). */
static size_t trimmed_len(const char *path, size_t n)
{
    while (n > 1 && path[n - 1] == '/')
        n--;
    return n;
}

static int anchor_find(const char *path, size_t n)
{
    size_t i;

    n = trimmed_len(path, n);
    for (i = 0; i < nanchors; i++)
        if (strlen(anchors[i].path) == n &&
            memcmp(anchors[i].path, path, n) == 0)
            return anchors[i].fd;
    return -1;
}

int cp_path_dirfd(const char *path, const char **name)
{
    size_t n = strlen(path);
    const char *slash;
    int fd;

    if (nanchors == 0 || n == 0)
        return -1;
    fd = anchor_find(path, n);
    if (fd >= 0) {
        *name = ".";
        return fd;
    }
    /* "DIR/NAME": NAME directly in an anchored DIR */
    slash = memrchr(path, '/', n);
    if (!slash || !slash[1])
        return -1;
    fd = anchor_find(path, slash == path ? 1 : (size_t)(slash - path));
    if (fd >= 0)
        *name = slash + 1;
    return fd;
}

/* A new descriptor of the anchored directory path itself, -1 if none. */
static int anchor_dup(const char *path)
{
    int fd = anchor_find(path, strlen(path));

    return fd < 0 ? -1 : openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Walk path from base (a directory descriptor, O_PATH) one component at a
 * time, links included: a link is followed only when root or the invoking
 * user owns it (whoever owns a link chooses where it leads), and its
 * target is walked the same way.  *left: links still allowed.  Returns an
 * O_PATH descriptor of what path names, never of a link (each link on the
 * way, the last component's included, is followed or refused), or -1 with
 * err filled naming whole. */
static int walk(int base, const char *path, const char *whole, int *left,
                struct cp_error *err)
{
    char buf[PATH_MAX], target[PATH_MAX], *comp, *save = NULL;
    struct stat st;
    int fd, next = -1;
    ssize_t n;

    if (strlen(path) >= sizeof buf)
        return cp_errorf_at(err, whole, -1, "%s: file name too long", whole);
    snprintf(buf, sizeof buf, "%s", path);
    fd = openat(path[0] == '/' ? AT_FDCWD : base, path[0] == '/' ? "/" : ".",
                O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cp_errorf_at(err, whole, -1, "%s: %s", whole, strerror(errno));
    for (comp = strtok_r(buf, "/", &save); comp;
         comp = strtok_r(NULL, "/", &save)) {
        if (strcmp(comp, ".") == 0)
            continue;
        next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 || fstat(next, &st) < 0) {
            cp_error_set(err, whole, -1, "%s: %s", whole, strerror(errno));
            goto fail_next;
        }
        if (S_ISLNK(st.st_mode)) {
            if (st.st_uid != 0 && st.st_uid != getuid()) {
                cp_error_set(err, whole, -1,
                             "%s: %s is a symbolic link of another user (uid "
                             "%u); not followed (name the directory it leads "
                             "to)",
                             whole, comp, (unsigned)st.st_uid);
                goto fail_next;
            }
            if (--*left < 0) {
                cp_error_set(err, whole, -1, "%s: %s", whole, strerror(ELOOP));
                goto fail_next;
            }
            n = readlinkat(next, "", target, sizeof target - 1);
            close(next);
            if (n < 0) {
                cp_error_set(err, whole, -1, "%s: %s", whole, strerror(errno));
                goto fail;
            }
            target[n] = '\0';
            next = walk(fd, target, whole, left, err);
            if (next < 0)
                goto fail;
        }
        close(fd);
        fd = next;
    }
    return fd;
fail_next:
    if (next >= 0)
        close(next);
fail:
    close(fd);
    return -1;
}

/* Register fd as the directory path (its first len bytes). */
static int anchor_add(const char *path, size_t len, int fd,
                      struct cp_error *err)
{
    struct anchor *bigger = realloc(anchors, (nanchors + 1) * sizeof *bigger);
    char *copy = NULL;

    if (bigger)
        anchors = bigger;
    if (!bigger || !(copy = strndup(path, trimmed_len(path, len)))) {
        close(fd);
        return cp_errorf_at(err, path, -1, "%s: out of memory", path);
    }
    anchors[nanchors].path = copy;
    anchors[nanchors].fd = fd;
    nanchors++;
    return 0;
}

int cp_path_anchor(const char *path, struct cp_error *err)
{
    size_t n = strlen(path), len = trimmed_len(path, n), dirlen = 0;
    const char *slash, *base;
    char dir[PATH_MAX], name[NAME_MAX + 1];
    struct stat st, target;
    int pfd, fd = -1, left = 40, rc = -1;

    if (n == 0)
        return cp_errorf_at(err, path, -1, "an empty file name");
    if (anchor_find(path, n) >= 0)
        return 1;
    slash = memrchr(path, '/', len);
    base = slash ? slash + 1 : path;
    if (slash)
        dirlen = slash == path ? 1 : (size_t)(slash - path);
    if (dirlen >= sizeof dir || (size_t)(path + len - base) >= sizeof name)
        return cp_errorf_at(err, path, -1, "%s: file name too long", path);
    snprintf(dir, sizeof dir, "%.*s", (int)dirlen, dirlen ? path : ".");
    snprintf(name, sizeof name, "%.*s", (int)(path + len - base), base);
    if (!name[0])
        snprintf(name, sizeof name, ".");
    /* the directory holding it, then the name itself, not followed */
    pfd = walk(AT_FDCWD, dirlen ? dir : ".", path, &left, err);
    if (pfd < 0)
        return -1;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT) {
            cp_error_set(err, path, -1, "%s: %s", path, strerror(errno));
            goto out;
        }
        st.st_mode = S_IFREG; /* missing: the readers will say so */
    }
    if (S_ISLNK(st.st_mode) && fstatat(pfd, name, &target, 0) == 0 &&
        S_ISDIR(target.st_mode)) {
        /* a link to a directory: followed as a link on the way is */
        fd = walk(pfd, name, path, &left, err);
        if (fd < 0)
            goto out;
    } else if (S_ISDIR(st.st_mode)) {
        fd = openat(pfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            cp_error_set(err, path, -1, "%s: %s", path, strerror(errno));
            goto out;
        }
    } else {
        /* a file (or a link to one, or nothing yet): its directory is
         * anchored, for the files beside it (a partial's raw logs); the
         * file itself is opened by the rules of inputs */
        rc = 0;
        if (dirlen && anchor_find(path, dirlen) < 0) {
            rc = anchor_add(path, dirlen, pfd, err);
            pfd = -1; /* the anchor's now */
        }
        goto out;
    }
    rc = anchor_add(path, n, fd, err) < 0 ? -1 : 1;
    fd = -1;
out:
    if (fd >= 0)
        close(fd);
    if (pfd >= 0)
        close(pfd);
    return rc;
}

/* "DIR/SUB/.../NAME" deeper below an anchored DIR (probe/probe.json): the
 * directory holding NAME, reached from DIR's descriptor without following
 * any link (an O_PATH descriptor the caller closes), NAME in *name; -1
 * with errno set when the way is not a chain of directories (ENOTDIR,
 * ELOOP), or when path is below no anchored directory (errno 0). */
static int below_anchor(const char *path, const char **name)
{
    char buf[PATH_MAX], *comp, *save = NULL, *last;
    size_t i, len = 0;
    int fd = -1, next;

    for (i = 0; i < nanchors && fd < 0; i++) {
        len = strlen(anchors[i].path);
        if (strncmp(path, anchors[i].path, len) == 0 &&
            (path[len] == '/' || (len == 1 && path[0] == '/')))
            fd = anchors[i].fd;
    }
    errno = 0;
    if (fd < 0 || strlen(path + len) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", path + len);
    last = strrchr(buf, '/');
    if (!last || !last[1])
        return -1;
    *last = '\0';
    *name = path + len + (size_t)(last - buf) + 1;
    fd = openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    for (comp = strtok_r(buf, "/", &save); comp && fd >= 0;
         comp = strtok_r(NULL, "/", &save)) {
        next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOTDIR) {
            struct stat st; /* a link on the way: say so */
            if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISLNK(st.st_mode))
                errno = ELOOP;
        }
        close(fd);
        fd = next;
    }
    return fd;
}

/* Where path is opened: its anchored directory (or one below it, *owned
 * then: the caller closes it) and its name there, or AT_FDCWD and path
 * itself.  -1 with errno set when path is below an anchored directory by
 * a way that is not a chain of directories. */
static int at_dir(const char *path, const char **name, int *owned)
{
    int fd = cp_path_dirfd(path, name);

    *owned = -1;
    if (fd >= 0)
        return fd;
    fd = below_anchor(path, name);
    if (fd >= 0)
        return *owned = fd;
    if (errno)
        return -1;
    *name = path;
    return AT_FDCWD;
}

DIR *cp_path_opendir(const char *path, struct cp_error *err)
{
    int fd = anchor_dup(path);
    DIR *d;

    if (fd < 0)
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        cp_error_set(err, path, -1, "%s: %s", path, strerror(errno));
        return NULL;
    }
    d = fdopendir(fd);
    if (!d) {
        cp_error_set(err, path, -1, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return d;
}

int cp_path_stat(const char *path, struct stat *st)
{
    const char *name;
    int owned, rc, fd = at_dir(path, &name, &owned);

    if (fd == AT_FDCWD)
        return stat(path, st);
    if (fd < 0)
        return -1;
    rc = strcmp(name, ".") == 0 ? fstat(fd, st)
                                : fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW);
    if (owned >= 0) {
        int saved = errno;
        close(owned);
        errno = saved;
    }
    return rc;
}

/* 12 characters from [a-z0-9]; from getrandom, else from the clock: the
 * name need not be secret (O_EXCL makes the creation safe), only hard to
 * plant in advance. */
static void random_suffix(char *out, size_t n)
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static uint64_t counter;
    unsigned char bytes[16];
    size_t i;

    if (getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != (ssize_t)sizeof bytes) {
        struct timespec ts;
        uint64_t x;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^
            (uint64_t)getpid() << 32 ^ ++counter;
        for (i = 0; i < sizeof bytes; i++, x = x * 6364136223846793005u + 1)
            bytes[i] = (unsigned char)(x >> 56);
    }
    for (i = 0; i + 1 < n && i < sizeof bytes; i++)
        out[i] = set[bytes[i] % (sizeof set - 1)];
    out[i] = '\0';
}

/* name (in dirfd) is absent or a regular file: 0; else err filled. */
static int check_final(int dirfd, const char *name, const char *path,
                       struct cp_error *err)
{
    struct stat st;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno == ENOENT)
            return 0;
        return cp_errorf_at(err, path, -1, "cannot look at %s: %s", path,
                            strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) {
        cp_error_set(err, path, -1,
                     "%s is a symbolic link; collprof does not write "
                     "through or replace it (remove it, or name another "
                     "file)",
                     path);
        return -1;
    }
    /* a device, fifo or socket named as the output is not replaced by a
     * file (as root, -o /dev/null would otherwise lose the device) */
    if (!S_ISREG(st.st_mode)) {
        cp_error_set(err, path, -1,
                     "%s exists and is not a regular file; not replaced "
                     "(give a file name)",
                     path);
        return -1;
    }
    return 0;
}

int cp_path_create(struct cp_path_out *o, const char *path, mode_t mode,
                   struct cp_error *err)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char dir[4200], suffix[13];
    size_t dirlen = slash ? (size_t)(slash - path) : 0, keep;
    int fd = -1, i;

    memset(o, 0, sizeof *o);
    o->dirfd = -1;
    if (strlen(path) >= sizeof o->path) {
        return cp_errorf_at(err, path, -1, "%.200s...: file name too long", path);
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        return cp_errorf_at(err, path, -1, "%s: not a file name", path);
    }
    if (strlen(base) >= sizeof o->name) {
        return cp_errorf_at(err, path, -1, "%s: file name too long", path);
    }
    snprintf(o->name, sizeof o->name, "%s", base);
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (dirlen == 0)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)dirlen, path);
    o->dirfd = anchor_dup(dir);
    if (o->dirfd < 0)
        o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->dirfd < 0) {
        return cp_errorf_at(err, path, -1, "cannot write %s: %s: %s", path, dir,
                            strerror(errno));
    }
    if (check_final(o->dirfd, o->name, path, err) < 0)
        goto fail;
    /* ".NAME.XXXXXXXXXXXX": hidden, within NAME_MAX */
    keep = strlen(base);
    if (keep > NAME_MAX - 16)
        keep = NAME_MAX - 16;
    for (i = 0; i < TMP_TRIES && fd < 0; i++) {
        random_suffix(suffix, sizeof suffix);
        snprintf(o->tmp, sizeof o->tmp, ".%.*s.%s", (int)keep, base, suffix);
        fd = openat(o->dirfd, o->tmp,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    mode);
        if (fd < 0 && errno != EEXIST) {
            cp_error_set(err, path, -1, "cannot create a file in %s: %s",
                         dir, strerror(errno));
            o->tmp[0] = '\0';
            goto fail;
        }
    }
    if (fd < 0) {
        cp_error_set(err, path, -1,
                     "cannot create a file in %s: %d random names taken",
                     dir, TMP_TRIES);
        o->tmp[0] = '\0';
        goto fail;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        cp_error_set(err, path, -1, "cannot write %s: %s", path,
                     strerror(errno));
        close(fd);
        goto fail;
    }
    return 0;
fail:
    cp_path_discard(o);
    return -1;
}

void cp_path_discard(struct cp_path_out *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->dirfd >= 0) {
        if (o->tmp[0])
            unlinkat(o->dirfd, o->tmp, 0);
        close(o->dirfd);
    }
    o->dirfd = -1;
    o->tmp[0] = '\0';
}

int cp_path_install(struct cp_path_out *o, struct cp_error *err)
{
    int rc = -1, bad;

    if (!o->f || o->dirfd < 0) {
        cp_error_set(err, o->path, -1, "%s: not open for writing", o->path);
        goto out;
    }
    errno = 0;
    bad = fflush(o->f) != 0 || ferror(o->f);
    if (fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    if (bad) {
        cp_error_set(err, o->path, -1, "cannot write %s: %s", o->path,
                     strerror(errno ? errno : EIO));
        goto out;
    }
    /* the name may have become a link since the start: it is refused
     * again (renameat would only replace the link, never write through
     * it, but the user asked for a file) */
    if (check_final(o->dirfd, o->name, o->path, err) < 0)
        goto out;
    if (renameat(o->dirfd, o->tmp, o->dirfd, o->name) < 0) {
        cp_error_set(err, o->path, -1, "cannot rename into %s: %s", o->path,
                     strerror(errno));
        goto out;
    }
    o->tmp[0] = '\0';
    rc = 0;
out:
    cp_path_discard(o);
    return rc;
}

int cp_path_write(const char *path, const void *text, size_t n, mode_t mode,
                  struct cp_error *err)
{
    struct cp_path_out o;

    if (cp_path_create(&o, path, mode, err) < 0)
        return -1;
    if (n && fwrite(text, 1, n, o.f) != n) {
        cp_error_set(err, path, -1, "cannot write %s: %s", path,
                     strerror(errno));
        cp_path_discard(&o);
        return -1;
    }
    return cp_path_install(&o, err);
}

/* Inputs are opened with O_NOATIME: reading a log must not change it, and
 * on a relatime mount the first read after a write otherwise dirties the
 * inode (a journal update per file: 16,384 of them for a 16k-rank job).
 * The kernel allows it only to the file's owner (or CAP_FOWNER); after the
 * first EPERM the flag is no longer asked for (atomic: -j N reads in
 * threads). */
static int noatime_refused;

static int open_noatime(int dirfd, const char *path, int flags)
{
    int fd;

    if (!__atomic_load_n(&noatime_refused, __ATOMIC_RELAXED)) {
        fd = openat(dirfd, path, flags | O_NOATIME);
        if (fd >= 0 || errno != EPERM)
            return fd;
        __atomic_store_n(&noatime_refused, 1, __ATOMIC_RELAXED);
    }
    return openat(dirfd, path, flags);
}

/* What st is, for messages: "a fifo", "a directory", ... */
static const char *file_kind(const struct stat *st)
{
    return S_ISFIFO(st->st_mode)   ? "a fifo"
           : S_ISDIR(st->st_mode)  ? "a directory"
           : S_ISSOCK(st->st_mode) ? "a socket"
           : S_ISLNK(st->st_mode)  ? "a symbolic link"
                                   : "a device";
}

/* The link name (in dirfd) to a regular file the invoking user owns,
 * opened; -1 with err filled and errno set.  The target is looked at
 * before anything is opened: an O_PATH descriptor (which opens no device
 * and no fifo) is checked for type and owner, and only then opened for
 * reading, through /proc/self/fd (the very file checked, whatever the
 * link says by then); without /proc the name is opened again (O_NOCTTY,
 * O_NONBLOCK) and must be the file checked. */
static int open_link_target(int dirfd, const char *name, const char *path,
                            struct stat *st, struct cp_error *err)
{
    char proc[64];
    struct stat again;
    int pfd, fd = -1, saved;
    const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

    pfd = openat(dirfd, name, O_PATH | O_CLOEXEC);
    if (pfd < 0 || fstat(pfd, st) < 0) {
        saved = errno;
        cp_error_set(err, path, -1, "%s: cannot open: %s", path,
                     strerror(saved));
        goto fail;
    }
    if (!S_ISREG(st->st_mode)) {
        cp_error_set(err, path, -1,
                     "%s: a symbolic link to %s, not a regular file; not "
                     "opened",
                     path, file_kind(st));
        saved = EINVAL;
        goto fail;
    }
    if (st->st_uid != getuid()) {
        cp_error_set(err, path, -1,
                     "%s: a symbolic link to a file of another user (uid "
                     "%u); not followed",
                     path, (unsigned)st->st_uid);
        saved = ELOOP;
        goto fail;
    }
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
    fd = open_noatime(AT_FDCWD, proc, flags);
    if (fd < 0 && errno == ENOENT)
        fd = open_noatime(dirfd, name, flags);
    if (fd < 0 || fstat(fd, &again) < 0) {
        saved = errno;
        cp_error_set(err, path, -1, "%s: cannot open: %s", path,
                     strerror(saved));
        goto fail;
    }
    if (again.st_dev != st->st_dev || again.st_ino != st->st_ino) {
        cp_error_set(err, path, -1,
                     "%s: the link changed while it was opened; not read",
                     path);
        saved = ESTALE;
        goto fail;
    }
    close(pfd);
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    if (pfd >= 0)
        close(pfd);
    errno = saved;
    return -1;
}

/* cp_path_open_input; st: the file's stat; blocking: clear O_NONBLOCK. */
static int open_input(const char *path, enum cp_path_links links,
                      struct stat *stp, int blocking, struct cp_error *err)
{
    struct stat st;
    const char *name;
    int fd = -1, followed = 0, flags, owned;
    int dirfd = at_dir(path, &name, &owned);

    if (dirfd != -1) /* AT_FDCWD is another negative */
        fd = open_noatime(dirfd, name,
                          O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
                              O_CLOEXEC);
    if (fd < 0 && errno == ELOOP && links == CP_PATH_FOLLOW && dirfd != -1) {
        fd = open_link_target(dirfd, name, path, &st, err);
        if (owned >= 0)
            close(owned);
        if (fd < 0)
            return -1;
        followed = 1;
    } else if (owned >= 0) {
        int saved = errno;
        close(owned);
        errno = saved;
    }
    if (fd < 0) {
        int saved = errno;
        if (saved == ELOOP)
            cp_error_set(err, path, -1, "%s: a symbolic link, not followed",
                         path);
        else
            cp_error_set(err, path, -1, "%s: cannot open: %s", path,
                         strerror(saved));
        errno = saved;
        return -1;
    }
    if (!followed && fstat(fd, &st) < 0) {
        int saved = errno;
        cp_error_set(err, path, -1, "%s: cannot open: %s", path,
                     strerror(saved));
        close(fd);
        errno = saved;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        cp_error_set(err, path, -1, "%s: not a regular file (%s); not read",
                     path, file_kind(&st));
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (blocking) {
        flags = fcntl(fd, F_GETFL);
        if (flags >= 0)
            (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }
    if (stp)
        *stp = st;
    return fd;
}

int cp_path_open_input(const char *path, enum cp_path_links links,
                       struct cp_error *err)
{
    return open_input(path, links, NULL, 1, err);
}

int cp_path_open_input_stat(const char *path, enum cp_path_links links,
                            struct stat *st, struct cp_error *err)
{
    return open_input(path, links, st, 0, err);
}

FILE *cp_path_fopen_input(const char *path, enum cp_path_links links,
                          struct cp_error *err)
{
    int fd = cp_path_open_input(path, links, err);
    FILE *f;

    if (fd < 0)
        return NULL;
    f = fdopen(fd, "r");
    if (!f) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        close(fd);
    }
    return f;
}

char *cp_path_read_text(const char *path, enum cp_path_links links,
                        size_t max, const char *what, size_t *len,
                        struct cp_error *err)
{
    struct stat st;
    char *text = NULL;
    size_t got = 0;
    ssize_t n;
    int fd, saved;

    fd = cp_path_open_input_stat(path, links, &st, err);
    if (fd < 0)
        return NULL;
    if ((uint64_t)st.st_size > max) {
        errno = EFBIG;
        cp_error_set(err, path, -1, "%s: %lld bytes, more than a %s may have "
                     "(%zu)", path, (long long)st.st_size, what, max);
        goto fail;
    }
    text = malloc((size_t)st.st_size + 1);
    if (!text) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto fail;
    }
    /* what fstat said; a file still being written is read as far as that */
    while (got < (size_t)st.st_size) {
        n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cp_error_set(err, path, (int64_t)got, "%s: read error at byte "
                         "%zu: %s", path, got, strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (memchr(text, '\0', got)) {
        errno = EINVAL;
        cp_error_set(err, path, -1, "%s: binary data, not a %s", path, what);
        goto fail;
    }
    text[got] = '\0';
    *len = got;
    close(fd);
    return text;
fail:
    saved = errno;
    free(text);
    close(fd);
    errno = saved;
    return NULL;
}

void cp_path_set_log_links(enum cp_path_links links)
{
    log_links = links;
}

enum cp_path_links cp_path_log_links(void)
{
    return log_links;
}

int cp_path_has_dotdot(const char *path)
{
    const char *p = path;

    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += n;
        while (*p == '/')
            p++;
    }
    return 0;
}
