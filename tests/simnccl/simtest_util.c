/* simtest_util.c - id passing for the simnccl test ranks. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "simtest_util.h"

int simtest_env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    char *end;
    long x;

    if (!v || !*v)
        return fallback;
    x = strtol(v, &end, 10);
    return *end || x < 0 ? fallback : (int)x;
}

double simtest_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int publish(const char *path, const ncclUniqueId *id)
{
    char tmp[4200];
    FILE *f;
    int ok;

    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (!f)
        return -1;
    ok = fwrite(id, sizeof *id, 1, f) == 1;
    ok &= fclose(f) == 0;
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

static int fetch(const char *path, ncclUniqueId *id)
{
    double give_up = simtest_now() + 60;

    while (simtest_now() < give_up) {
        FILE *f = fopen(path, "rb");
        if (f) {
            int ok = fread(id, sizeof *id, 1, f) == 1;
            fclose(f);
            return ok ? 0 : -1;
        }
        usleep(2000);
    }
    errno = ETIMEDOUT;
    return -1;
}

int simtest_share_id(ncclUniqueId *id, const char *tag)
{
    const char *dir = getenv("SIMNCCL_IDDIR");
    int rank = simtest_env_int("SIMNCCL_RANK", 0);
    int nranks = simtest_env_int("SIMNCCL_NRANKS", 1);
    char path[4096];
    ncclResult_t rc;

    if (nranks == 1 && (!dir || !*dir)) {
        rc = ncclGetUniqueId(id);
        return rc == ncclSuccess ? 0 : -1;
    }
    if (!dir || !*dir) {
        fprintf(stderr, "simtest: SIMNCCL_IDDIR is not set (run me under "
                        "simrun)\n");
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s", dir, tag);
    if (rank == 0) {
        rc = ncclGetUniqueId(id);
        if (rc != ncclSuccess) {
            fprintf(stderr, "simtest: ncclGetUniqueId: %s\n",
                    ncclGetErrorString(rc));
            return -1;
        }
        if (publish(path, id) != 0) {
            fprintf(stderr, "simtest: cannot write %s: %s\n", path,
                    strerror(errno));
            return -1;
        }
    } else if (fetch(path, id) != 0) {
        fprintf(stderr, "simtest: rank %d: no id in %s: %s\n", rank, path,
                strerror(errno));
        return -1;
    }
    return 0;
}

ncclResult_t simtest_init(ncclComm_t *comm, const char *tag)
{
    int rank = simtest_env_int("SIMNCCL_RANK", 0);
    int nranks = simtest_env_int("SIMNCCL_NRANKS", 1);
    ncclUniqueId id;

    if (simtest_share_id(&id, tag) != 0)
        return ncclSystemError;
    return ncclCommInitRank(comm, nranks, id, rank);
}
