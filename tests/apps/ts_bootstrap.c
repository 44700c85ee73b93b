/* ts_bootstrap.c - rank discovery and the unique id file (see
 * ts_bootstrap.h). */
#include "ts_bootstrap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rank_source {
    const char *rank_var;
    const char *size_var;
};

/* In order of preference: simrun, then Slurm, then torchrun-style. */
static const struct rank_source rank_sources[] = {
    {.rank_var = "SIMNCCL_RANK", .size_var = "SIMNCCL_NRANKS"},
    {.rank_var = "SLURM_PROCID", .size_var = "SLURM_NTASKS"},
    {.rank_var = "RANK", .size_var = "WORLD_SIZE"},
};

/* text as a whole decimal int >= minimum; -1 when it is not one. */
static int
parse_int(const char *text, int minimum, int *value)
{
    char *end;
    long parsed;

    errno = 0;
    parsed = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < minimum ||
        parsed > INT_MAX)
        return -1;
    *value = (int)parsed;
    return 0;
}

int
ts_bootstrap_rank(int *rank, int *nranks, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof rank_sources / sizeof rank_sources[0];
         i++) {
        const struct rank_source *source = &rank_sources[i];
        const char *rank_text = getenv(source->rank_var);
        const char *size_text = getenv(source->size_var);

        if (rank_text == NULL)
            continue;
        if (size_text == NULL) {
            snprintf(err, errlen, "%s is set but %s is not",
                     source->rank_var, source->size_var);
            return -1;
        }
        if (parse_int(size_text, 1, nranks) < 0) {
            snprintf(err, errlen, "%s=%s is not a positive integer",
                     source->size_var, size_text);
            return -1;
        }
        if (parse_int(rank_text, 0, rank) < 0 || *rank >= *nranks) {
            snprintf(err, errlen, "%s=%s is not a rank below %s=%d",
                     source->rank_var, rank_text, source->size_var,
                     *nranks);
            return -1;
        }
        return 0;
    }
    snprintf(err, errlen,
             "no rank in the environment: run me under simrun, srun, or set "
             "RANK and WORLD_SIZE");
    return -1;
}

int
ts_bootstrap_id_timeout(double *seconds, char *err, size_t errlen)
{
    const char *text = getenv("TRAIN_SIM_ID_TIMEOUT");
    char *end;

    *seconds = 60;
    if (text == NULL || *text == '\0')
        return 0;
    errno = 0;
    *seconds = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(*seconds > 0) ||
        *seconds > 86400) {
        snprintf(err, errlen,
                 "TRAIN_SIM_ID_TIMEOUT=%s is not a number of seconds above 0 "
                 "and at most 86400",
                 text);
        return -1;
    }
    return 0;
}

/* Slurm ids go into a file name, so they must not name another folder. */
static int
safe_name_part(const char *text)
{
    return *text != '\0' && strchr(text, '/') == NULL;
}

int
ts_bootstrap_id_path(char *path, size_t len, char *err, size_t errlen)
{
    const char *dir = getenv("SIMNCCL_IDDIR");
    const char *job = getenv("SLURM_JOB_ID");
    const char *step = getenv("SLURM_STEP_ID");
    int written;

    if (dir == NULL || *dir == '\0')
        dir = getenv("TRAIN_SIM_IDDIR");
    if (dir == NULL || *dir == '\0') {
        snprintf(err, errlen,
                 "no directory to exchange the NCCL unique id in: set "
                 "SIMNCCL_IDDIR or TRAIN_SIM_IDDIR to a directory all ranks "
                 "share");
        return -1;
    }
    if (job != NULL && !safe_name_part(job)) {
        snprintf(err, errlen, "SLURM_JOB_ID=%s cannot be part of a file name",
                 job);
        return -1;
    }
    if (step != NULL && !safe_name_part(step)) {
        snprintf(err, errlen,
                 "SLURM_STEP_ID=%s cannot be part of a file name", step);
        return -1;
    }
    if (job != NULL && step != NULL)
        written = snprintf(path, len, "%s/ncclid.%s.%s", dir, job, step);
    else if (job != NULL)
        written = snprintf(path, len, "%s/ncclid.%s", dir, job);
    else
        written = snprintf(path, len, "%s/ncclid", dir);
    if (written < 0 || (size_t)written >= len) {
        snprintf(err, errlen, "the id file name in %s is too long", dir);
        return -1;
    }
    return 0;
}

static int
write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Bytes read before end of file or an error (errno set, -1). */
static ssize_t
read_all(int fd, void *data, size_t len)
{
    char *p = data;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static int
publish_id(const char *path, const ncclUniqueId *id, char *err,
           size_t errlen)
{
    char temp[4096 + 32];
    int fd = -1;
    int rc = -1;

    snprintf(temp, sizeof temp, "%s.tmp.%ld", path, (long)getpid());
    fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", temp, strerror(errno));
        goto out;
    }
    if (write_all(fd, id->internal, sizeof id->internal) < 0) {
        snprintf(err, errlen, "cannot write %s: %s", temp, strerror(errno));
        goto out;
    }
    if (close(fd) < 0) {
        fd = -1;
        snprintf(err, errlen, "cannot write %s: %s", temp, strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(temp, path) < 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", temp, path,
                 strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        unlink(temp);
    return rc;
}

static double
seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int
wait_for_id(const char *path, double timeout_s, ncclUniqueId *id, char *err,
            size_t errlen)
{
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};
    double deadline = seconds_now() + timeout_s;
    int fd = -1;
    int rc = -1;

    for (;;) {
        fd = open(path, O_RDONLY);
        if (fd >= 0)
            break;
        if (errno != ENOENT) {
            snprintf(err, errlen, "cannot open %s: %s", path,
                     strerror(errno));
            goto out;
        }
        if (seconds_now() > deadline) {
            snprintf(err, errlen,
                     "no NCCL unique id from rank 0 in %s after %g s (is "
                     "rank 0 running, and is the directory shared by all "
                     "ranks?)",
                     path, timeout_s);
            goto out;
        }
        nanosleep(&pause, NULL);
    }
    ssize_t got = read_all(fd, id->internal, sizeof id->internal);
    if (got < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    if ((size_t)got != sizeof id->internal) {
        snprintf(err, errlen, "%s holds %zd bytes, not the %zu of an id",
                 path, got, sizeof id->internal);
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    return rc;
}

int
ts_bootstrap_exchange_id(int rank, const char *path, double timeout_s,
                         ncclUniqueId *id, char *err, size_t errlen)
{
    if (rank != 0)
        return wait_for_id(path, timeout_s, id, err, errlen);

    ncclResult_t result = ncclGetUniqueId(id);
    if (result != ncclSuccess) {
        snprintf(err, errlen, "ncclGetUniqueId failed: %s",
                 ncclGetErrorString(result));
        return -1;
    }
    return publish_id(path, id, err, errlen);
}

int
ts_bootstrap_remove_id(const char *path, char *err, size_t errlen)
{
    if (unlink(path) < 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
