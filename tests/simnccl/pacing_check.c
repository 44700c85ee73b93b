/* pacing_check.c - a rank program (run under simrun) that times simnccl's
 * paced transfers; tests/simnccl/pacing.sh compares the times with the
 * model of the topology.
 *
 *   pacing_check pairs BYTES            rank i sends BYTES to rank i+1, one
 *                                       pair after the other (a barrier
 *                                       between pairs); rank i+1 prints
 *                                       "pair i i+1 elapsed_ms=T"
 *   pacing_check allreduce BYTES ITERS  rank 0 prints the time of ITERS
 *                                       all-reduces of BYTES of floats on
 *                                       the slowest rank:
 *                                       "allreduce ... elapsed_ms=T"
 *
 * A pair is timed by the receiver from the moment it asks for the data (a
 * one-byte "go" to the sender) until the data is complete, so the interval
 * always contains the whole transfer, whatever the two processes' timing:
 * it is at least latency + BYTES/bandwidth of the link.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_nccl.h"
#include "simtest_util.h"

static int rank, nranks;
static ncclComm_t comm;

static int check(ncclResult_t rc, const char *what)
{
    if (rc == ncclSuccess)
        return 0;
    fprintf(stderr, "pacing_check: rank %d: %s: %s: %s\n", rank, what,
            ncclGetErrorString(rc), ncclGetLastError(comm));
    return -1;
}

static int pairs(size_t bytes)
{
    char *data = calloc(bytes ? bytes : 1, 1), go = 1;
    int i, rc = -1;

    if (!data)
        goto out;
    /* Touch every page now: first-touch page faults are not transfer. */
    memset(data, 1, bytes);
    for (i = 0; i + 1 < nranks; i++) {
        float token = 1;
        /* Both ends of pair i are free (not still busy with pair i-1)
         * before the receiver's clock starts. */
        if (check(ncclAllReduce(&token, &token, 1, ncclFloat, ncclSum, comm,
                                NULL),
                  "barrier"))
            goto out;
        if (rank == i) {
            if (check(ncclRecv(&go, 1, ncclInt8, i + 1, comm, NULL), "recv go") ||
                check(ncclSend(data, bytes, ncclUint8, i + 1, comm, NULL),
                      "send data"))
                goto out;
        } else if (rank == i + 1) {
            double t0 = simtest_now();
            if (check(ncclSend(&go, 1, ncclInt8, i, comm, NULL), "send go") ||
                check(ncclRecv(data, bytes, ncclUint8, i, comm, NULL),
                      "recv data"))
                goto out;
            printf("pair %d %d bytes=%zu elapsed_ms=%.3f\n", i, i + 1, bytes,
                   (simtest_now() - t0) * 1e3);
            fflush(stdout);
        }
    }
    rc = 0;
out:
    free(data);
    return rc;
}

static int allreduce(size_t bytes, int iters)
{
    size_t n = bytes / sizeof(float);
    float *buf = calloc(n ? n : 1, sizeof(float)), token = 1;
    double t0, elapsed, slowest;
    int i, rc = -1;

    if (!buf)
        goto out;
    memset(buf, 0, n * sizeof(float));
    /* Line the ranks up first, so rank 0's clock starts with everyone. */
    if (check(ncclAllReduce(&token, &token, 1, ncclFloat, ncclSum, comm, NULL),
              "barrier"))
        goto out;
    t0 = simtest_now();
    for (i = 0; i < iters; i++)
        if (check(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, NULL),
                  "allreduce"))
            goto out;
    /* The job takes as long as its slowest rank: ranks off the critical
     * path of a slow link finish earlier. */
    elapsed = simtest_now() - t0;
    slowest = elapsed;
    if (check(ncclAllReduce(&slowest, &slowest, 1, ncclDouble, ncclMax, comm,
                            NULL),
              "max"))
        goto out;
    if (rank == 0) {
        printf("allreduce ranks=%d bytes=%zu iters=%d elapsed_ms=%.3f "
               "rank0_ms=%.3f\n",
               nranks, bytes, iters, slowest * 1e3, elapsed * 1e3);
        fflush(stdout);
    }
    rc = 0;
out:
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 1;

    rank = simtest_env_int("SIMNCCL_RANK", 0);
    nranks = simtest_env_int("SIMNCCL_NRANKS", 1);
    if (argc < 3 || (strcmp(argv[1], "pairs") != 0 &&
                     strcmp(argv[1], "allreduce") != 0)) {
        fprintf(stderr, "usage: pacing_check pairs BYTES | allreduce BYTES "
                        "ITERS\n");
        return 2;
    }
    if (check(simtest_init(&comm, "pacing.id"), "init"))
        return 1;
    if (strcmp(argv[1], "pairs") == 0)
        rc = pairs(strtoul(argv[2], NULL, 10)) ? 1 : 0;
    else
        rc = allreduce(strtoul(argv[2], NULL, 10),
                       argc > 3 ? atoi(argv[3]) : 1)
                 ? 1
                 : 0;
    ncclCommDestroy(comm);
    return rc;
}
