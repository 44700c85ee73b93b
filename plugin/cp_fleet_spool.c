/* cp_fleet_spool.c - the step's entry in the fleet's spool directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_fleet_spool.h"

#define STEP_BATCH 0xfffffffbu

static int check_spool(int fd, const char *spool, struct cp_error *err)
{
    struct stat st;

    if (fstat(fd, &st) < 0)
        return cp_errorf(err, "%s: %s", spool, strerror(errno));
    if (st.st_uid != geteuid())
        return cp_errorf(err, "%s: owned by uid %u, not %u: refused", spool,
                         (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & 022)
        return cp_errorf(err, "%s: writable by group or others: refused",
                         spool);
    return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

static int text_ok(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

int cp_fleet_spool_write(const char *spool, const struct cp_spool_entry *e,
                         struct cp_error *err)
{
    char name[64], tmp[80], body[8192];
    int dfd = -1, fd = -1, rc = -1, n;

    if (spool[0] != '/') {
        cp_errorf(err, "fleet_spool=%s: not an absolute path", spool);
        goto out;
    }
    if (e->stepdir[0] != '/' || !text_ok(e->stepdir) || !text_ok(e->user)) {
        cp_errorf(err, "%s: the step's directory or user is not printable: "
                  "no spool entry", spool);
        goto out;
    }
    if (e->step_id == STEP_BATCH)
        snprintf(name, sizeof name, "%u.batch", e->job_id);
    else
        snprintf(name, sizeof name, "%u.%u", e->job_id, e->step_id);
    snprintf(tmp, sizeof tmp, ".%s.tmp", name);
    n = snprintf(body, sizeof body,
                 "collprof-fleet-spool 1\njob=%u\nstep=%s\nuid=%u\nuser=%s\n"
                 "stepdir=%s\nended=%lld\n",
                 e->job_id, strchr(name, '.') + 1, (unsigned)e->uid, e->user,
                 e->stepdir, (long long)e->ended);
    if (n < 0 || (size_t)n >= sizeof body) {
        cp_errorf(err, "%s: the entry of job %u does not fit", spool,
                  e->job_id);
        goto out;
    }
    dfd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        cp_errorf(err, "%s: %s", spool, strerror(errno));
        goto out;
    }
    if (check_spool(dfd, spool, err) < 0)
        goto out;
    (void)unlinkat(dfd, tmp, 0); /* a temporary left by a crash */
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0600);
    if (fd < 0) {
        cp_errorf(err, "%s/%s: %s", spool, tmp, strerror(errno));
        goto out;
    }
    if (write_all(fd, body, (size_t)n) < 0 || fsync(fd) < 0) {
        cp_errorf(err, "%s/%s: %s", spool, tmp,
                  errno ? strerror(errno) : "short write");
        (void)unlinkat(dfd, tmp, 0);
        goto out;
    }
    if (renameat(dfd, tmp, dfd, name) < 0) {
        cp_errorf(err, "%s/%s: %s", spool, name, strerror(errno));
        (void)unlinkat(dfd, tmp, 0);
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (dfd >= 0)
        close(dfd);
    return rc;
}
