/* cp_path.c - output files by directory descriptor, inputs without
 * following links (see cp_path.h for the rules and why). */
#include "config.h"

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

static int open_noatime(const char *path, int flags)
{
    int fd;

    if (!__atomic_load_n(&noatime_refused, __ATOMIC_RELAXED)) {
        fd = open(path, flags | O_NOATIME);
        if (fd >= 0 || errno != EPERM)
            return fd;
        __atomic_store_n(&noatime_refused, 1, __ATOMIC_RELAXED);
    }
    return open(path, flags);
}

/* cp_path_open_input; st: the file's stat; blocking: clear O_NONBLOCK. */
static int open_input(const char *path, enum cp_path_links links,
                      struct stat *stp, int blocking, struct cp_error *err)
{
    struct stat st;
    int fd, followed = 0, flags;

    fd = open_noatime(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ELOOP && links == CP_PATH_FOLLOW) {
        fd = open_noatime(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        followed = 1;
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
    if (fstat(fd, &st) < 0) {
        int saved = errno;
        cp_error_set(err, path, -1, "%s: cannot open: %s", path,
                     strerror(saved));
        close(fd);
        errno = saved;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        cp_error_set(err, path, -1,
                     "%s: not a regular file (%s); not read", path,
                     S_ISFIFO(st.st_mode)   ? "a fifo"
                     : S_ISDIR(st.st_mode)  ? "a directory"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "a device");
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (followed && st.st_uid != getuid()) {
        cp_error_set(err, path, -1,
                     "%s: a symbolic link to a file of another user (uid "
                     "%u); not followed",
                     path, (unsigned)st.st_uid);
        close(fd);
        errno = ELOOP;
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
    int fd;

    fd = cp_path_open_input_stat(path, links, &st, err);
    if (fd < 0)
        return NULL;
    if ((uint64_t)st.st_size > max) {
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
        cp_error_set(err, path, -1, "%s: binary data, not a %s", path, what);
        goto fail;
    }
    text[got] = '\0';
    *len = got;
    close(fd);
    return text;
fail:
    free(text);
    close(fd);
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
