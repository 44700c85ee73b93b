/* named_app.c - a small NCCL program whose communicator name is given on
 * the command line, for the escaping test of report.html: run under simrun
 * with a hostile name, recorded by collprof, the name reaches the report
 * through the shim's communicator record exactly as a real job's would.
 *
 *   simrun -n N -- named_app NAME [STEPS]
 *
 * Rank 0 writes the unique id to $SIMNCCL_IDDIR/ncclid (through a
 * temporary file), the others poll for it.  Each step all-reduces floats of
 * 1 element up to 256 Ki elements on the communicator.  Exit status 0, or 1
 * with a message on stderr.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <collprof/cp_nccl.h>

static int env_int(const char *name, int *value)
{
    const char *text = getenv(name);
    char *end;
    long v;

    if (!text || !*text)
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || *end || v < 0 || v > 1 << 20)
        return -1;
    *value = (int)v;
    return 0;
}

static int share_id(int rank, ncclUniqueId *id)
{
    const char *dir = getenv("SIMNCCL_IDDIR");
    char path[4096], tmp[4200];
    FILE *f;
    int tries;

    if (!dir) {
        fprintf(stderr, "named_app: SIMNCCL_IDDIR is not set (run under "
                        "simrun)\n");
        return -1;
    }
    snprintf(path, sizeof path, "%s/ncclid", dir);
    if (rank == 0) {
        if (ncclGetUniqueId(id) != ncclSuccess) {
            fprintf(stderr, "named_app: ncclGetUniqueId failed\n");
            return -1;
        }
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        f = fopen(tmp, "wb");
        if (!f || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) != 0 ||
            rename(tmp, path) != 0) {
            fprintf(stderr, "named_app: cannot write %s\n", path);
            return -1;
        }
        return 0;
    }
    for (tries = 0; tries < 6000; tries++) {
        struct timespec ten_ms = {0, 10000000};
        f = fopen(path, "rb");
        if (f) {
            int got = fread(id, sizeof *id, 1, f) == 1;
            fclose(f);
            if (got)
                return 0;
        }
        nanosleep(&ten_ms, NULL);
    }
    fprintf(stderr, "named_app: no unique id in %s after 60 s\n", path);
    return -1;
}

int main(int argc, char **argv)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclComm_t comm = NULL;
    ncclUniqueId id;
    float *buf = NULL;
    int rank, nranks, steps = 2, step, rc = 1;
    size_t count;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: named_app NAME [STEPS]\n");
        return 2;
    }
    if (argc == 3)
        steps = atoi(argv[2]);
    if (env_int("SIMNCCL_RANK", &rank) < 0 ||
        env_int("SIMNCCL_NRANKS", &nranks) < 0) {
        fprintf(stderr, "named_app: no SIMNCCL_RANK/SIMNCCL_NRANKS (run under "
                        "simrun)\n");
        return 1;
    }
    if (share_id(rank, &id) < 0)
        return 1;
    config.commName = argv[1];
    if (ncclCommInitRankConfig(&comm, nranks, id, rank, &config) !=
        ncclSuccess) {
        fprintf(stderr, "named_app: rank %d: ncclCommInitRankConfig failed\n",
                rank);
        return 1;
    }
    buf = calloc(256 * 1024, sizeof *buf);
    if (!buf)
        goto out;
    for (step = 0; step < steps; step++)
        for (count = 1; count <= 256 * 1024; count *= 8)
            if (ncclAllReduce(buf, buf, count, ncclFloat, ncclSum, comm,
                              NULL) != ncclSuccess) {
                fprintf(stderr, "named_app: rank %d: ncclAllReduce failed\n",
                        rank);
                goto out;
            }
    rc = 0;
out:
    free(buf);
    if (comm)
        ncclCommDestroy(comm);
    if (rank == 0 && rc == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ncclid", getenv("SIMNCCL_IDDIR"));
        unlink(path);
    }
    return rc;
}
