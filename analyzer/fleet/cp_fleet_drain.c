/* cp_fleet_drain.c - the fleet's spool as the drain reads it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_fleet_drain.h"

#define MAGIC "collprof-fleet-spool 1\n"

/* A decimal number of at most 10 digits, or "batch" when batch_ok. */
static int is_id(const char *s, int batch_ok)
{
    size_t i;

    if (batch_ok && strcmp(s, "batch") == 0)
        return 1;
    for (i = 0; s[i]; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return i > 0 && i <= 10;
}

/* Whether name is JOB.STEP. */
static int entry_name(const char *name)
{
    char buf[64], *dot;

    if (strlen(name) >= sizeof buf)
        return 0;
    strcpy(buf, name);
    dot = strchr(buf, '.');
    if (!dot)
        return 0;
    *dot = '\0';
    return is_id(buf, 0) && is_id(dot + 1, 1);
}

static int parse_i64(const char *v, int64_t *out)
{
    char *end;
    long long n;

    errno = 0;
    n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < 0)
        return -1;
    *out = n;
    return 0;
}

static int set_field(struct cp_fleet_entry *e, const char *key, const char *v,
                     unsigned *seen)
{
    int64_t n;

    if (strcmp(key, "job") == 0 && is_id(v, 0))
        snprintf(e->job, sizeof e->job, "%s", v), *seen |= 1;
    else if (strcmp(key, "step") == 0 && is_id(v, 1))
        snprintf(e->step, sizeof e->step, "%s", v), *seen |= 2;
    else if (strcmp(key, "uid") == 0 && parse_i64(v, &n) == 0 &&
             n < (int64_t)UINT32_MAX)
        e->uid = (uid_t)n, *seen |= 4;
    else if (strcmp(key, "user") == 0 && *v && strlen(v) < sizeof e->user)
        snprintf(e->user, sizeof e->user, "%s", v), *seen |= 8;
    else if (strcmp(key, "stepdir") == 0 && v[0] == '/' &&
             strlen(v) < sizeof e->stepdir)
        snprintf(e->stepdir, sizeof e->stepdir, "%s", v), *seen |= 16;
    else if (strcmp(key, "ended") == 0 && parse_i64(v, &n) == 0)
        e->ended = n, *seen |= 32;
    else
        return -1;
    return 0;
}

int cp_fleet_entry_parse(const char *name, const char *text, size_t len,
                         struct cp_fleet_entry *e, struct cp_error *err)
{
    char line[CP_FLEET_SPOOL_ENTRY_MAX];
    size_t pos = sizeof MAGIC - 1;
    unsigned seen = 0;

    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    if (len < pos || memcmp(text, MAGIC, pos) != 0)
        return cp_errorf(err, "spool entry %s: not a collprof-fleet-spool 1 "
                         "entry", name);
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        char *eq;
        if (!nl || n >= sizeof line)
            return cp_errorf(err, "spool entry %s: offset %zu: a line without "
                             "its end", name, pos);
        memcpy(line, text + pos, n);
        line[n] = '\0';
        eq = strchr(line, '=');
        if (!eq || strlen(line) != n)
            return cp_errorf(err, "spool entry %s: offset %zu: not KEY=VALUE",
                             name, pos);
        *eq = '\0';
        if (set_field(e, line, eq + 1, &seen) < 0)
            return cp_errorf(err, "spool entry %s: key %s: bad value", name,
                             line);
        pos += n + 1;
    }
    if (seen != 63)
        return cp_errorf(err, "spool entry %s: key %s missing", name,
                         !(seen & 1) ? "job" : !(seen & 2) ? "step"
                         : !(seen & 4) ? "uid" : !(seen & 8) ? "user"
                         : !(seen & 16) ? "stepdir" : "ended");
    return 0;
}

int cp_fleet_spool_open(const char *spool, struct cp_error *err)
{
    struct stat st;
    int fd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0)
        return cp_errorf(err, "%s: %s", spool,
                         errno == ENOTDIR || errno == ELOOP
                             ? "not a directory (a link is refused)"
                             : strerror(errno));
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
        close(fd);
        return cp_errorf(err, "%s: the spool must be this user's (uid %u) and "
                         "not writable by group or others", spool,
                         (unsigned)geteuid());
    }
    return fd;
}

/* Read the entry `name` of the spool into buf (at most cap - 1 bytes). */
static ssize_t read_entry(int spool_fd, const char *name, char *buf,
                          size_t cap, struct cp_error *err)
{
    struct stat st, dir;
    ssize_t n = -1, got = 0;
    int fd = openat(spool_fd, name,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        cp_errorf(err, "spool entry %s: %s", name, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0 || fstat(spool_fd, &dir) < 0 ||
        !S_ISREG(st.st_mode) || st.st_uid != dir.st_uid ||
        (size_t)st.st_size >= cap) {
        cp_errorf(err, "spool entry %s: not a regular file of the spool's "
                  "owner of at most %zu bytes", name, cap - 1);
        goto out;
    }
    while ((size_t)got < cap - 1) {
        ssize_t r = read(fd, buf + got, cap - 1 - (size_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cp_errorf(err, "spool entry %s: %s", name, strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        got += r;
    }
    buf[got] = '\0';
    n = got;
out:
    close(fd);
    return n;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries' names in the spool, sorted; *n of them. */
static char **list_entries(int spool_fd, size_t *n, struct cp_error *err)
{
    char **names = NULL, **grown;
    size_t cap = 0;
    struct dirent *d;
    DIR *dir;
    int fd = dup(spool_fd);

    *n = 0;
    if (fd < 0 || !(dir = fdopendir(fd))) {
        if (fd >= 0)
            close(fd);
        cp_errorf(err, "the spool: %s", strerror(errno));
        return NULL;
    }
    rewinddir(dir);
    while ((d = readdir(dir))) {
        if (!entry_name(d->d_name))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            if (!(grown = realloc(names, cap * sizeof *names)))
                goto oom;
            names = grown;
        }
        if (!(names[*n] = strdup(d->d_name)))
            goto oom;
        (*n)++;
    }
    closedir(dir);
    if (*n)
        qsort(names, *n, sizeof *names, by_name);
    else if (!names)
        names = calloc(1, sizeof *names);
    return names;
oom:
    closedir(dir);
    while (*n)
        free(names[--*n]);
    free(names);
    cp_errorf(err, "the spool: out of memory");
    return NULL;
}

int cp_fleet_spool_walk(int spool_fd, cp_fleet_entry_fn fn, void *ctx,
                        struct cp_error *err)
{
    static char buf[CP_FLEET_SPOOL_ENTRY_MAX];
    struct cp_fleet_entry e;
    struct cp_error bad;
    size_t n, i;
    char **names = list_entries(spool_fd, &n, err);
    int rc = 0;

    if (!names)
        return -1;
    for (i = 0; i < n && rc == 0; i++) {
        ssize_t len = read_entry(spool_fd, names[i], buf, sizeof buf, &bad);
        int ok = len >= 0 &&
                 cp_fleet_entry_parse(names[i], buf, (size_t)len, &e, &bad) ==
                     0;
        if (!ok) {
            memset(&e, 0, sizeof e);
            snprintf(e.name, sizeof e.name, "%s", names[i]);
        }
        rc = fn(ctx, &e, ok ? NULL : &bad, err);
    }
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Open name under dirfd (or the absolute path when dirfd < 0) without
 * following a link, owned by uid, of the type dir ? directory : regular. */
static int open_owned(int dirfd, const char *name, const char *shown, int dir,
                      uid_t uid, struct stat *st, struct cp_error *err)
{
    int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                (dir ? O_DIRECTORY : 0);
    int fd = dirfd < 0 ? open(name, flags) : openat(dirfd, name, flags);

    if (fd < 0)
        return errno == ENOENT ? -2
               : cp_errorf(err, "%s: %s", shown,
                           errno == ELOOP || errno == ENOTDIR
                               ? "a link or not a directory: refused"
                               : strerror(errno));
    if (fstat(fd, st) < 0 || st->st_uid != uid ||
        (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))) {
        close(fd);
        return cp_errorf(err, "%s: not a %s of uid %u: refused", shown,
                         dir ? "directory" : "regular file", (unsigned)uid);
    }
    return fd;
}

static int read_all(int fd, char *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

int cp_fleet_entry_report(const struct cp_fleet_entry *e, size_t max,
                          char **text, size_t *len, struct cp_error *err)
{
    struct stat st;
    char path[4200];
    int dfd, fd = -1, rc = -1;

    *text = NULL;
    *len = 0;
    snprintf(path, sizeof path, "%s/report.json", e->stepdir);
    dfd = open_owned(-1, e->stepdir, e->stepdir, 1, e->uid, &st, err);
    if (dfd < 0)
        return dfd == -2 ? 0 : -1;
    fd = open_owned(dfd, "report.json", path, 0, e->uid, &st, err);
    if (fd < 0) {
        rc = fd == -2 ? 0 : -1;
        goto out;
    }
    if ((uint64_t)st.st_size > max) {
        cp_errorf(err, "%s: %lld bytes, over %zu: refused", path,
                  (long long)st.st_size, max);
        goto out;
    }
    if (!(*text = malloc((size_t)st.st_size + 1)) ||
        read_all(fd, *text, (size_t)st.st_size) < 0) {
        cp_errorf(err, "%s: %s", path, *text ? "cut short while read"
                                              : "out of memory");
        free(*text);
        *text = NULL;
        goto out;
    }
    (*text)[st.st_size] = '\0';
    *len = (size_t)st.st_size;
    rc = 1;
out:
    if (fd >= 0)
        close(fd);
    close(dfd);
    return rc;
}

int cp_fleet_spool_remove(int spool_fd, const struct cp_fleet_entry *e,
                          struct cp_error *err)
{
    if (unlinkat(spool_fd, e->name, 0) < 0 && errno != ENOENT)
        return cp_errorf(err, "spool entry %s: %s", e->name, strerror(errno));
    return 0;
}
