/* api_test.c - simnccl's NCCL API in one process: argument checks (each
 * bad argument gives ncclInvalidArgument and a message, never a crash),
 * group rules, and ncclCommInitAll driven from one thread. */
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_nccl.h"
#include "tap.h"

#define BAD_TYPE ((ncclDataType_t)99)
#define BAD_OP ((ncclRedOp_t)99)

static int last_error_mentions(const char *word)
{
    const char *msg = ncclGetLastError(NULL);
    return msg && strstr(msg, word) != NULL;
}

static void test_version_and_strings(void)
{
    int v = 0, r;

    is_int(ncclGetVersion(&v), ncclSuccess, "ncclGetVersion");
    is_int(v, 22809, "version is 2.28.9");
    is_int(ncclGetVersion(NULL), ncclInvalidArgument, "ncclGetVersion(NULL)");
    for (r = 0; r <= ncclNumResults; r++)
        ok(ncclGetErrorString((ncclResult_t)r) != NULL &&
               ncclGetErrorString((ncclResult_t)r)[0] != '\0',
           "error string for %d", r);
    ok(strstr(ncclGetErrorString(ncclInvalidArgument), "invalid argument") !=
           NULL,
       "invalid argument text as NCCL's");
    ok(dlsym(RTLD_DEFAULT, "pncclAllReduce") != NULL &&
           dlsym(RTLD_DEFAULT, "pncclSend") != NULL,
       "pncclX aliases are exported");
}

static void test_init_errors(void)
{
    ncclUniqueId id, zero;
    ncclComm_t c = NULL;
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;

    memset(&zero, 0, sizeof zero);
    is_int(ncclGetUniqueId(&id), ncclSuccess, "ncclGetUniqueId");
    is_int(ncclGetUniqueId(NULL), ncclInvalidArgument, "ncclGetUniqueId(NULL)");
    is_int(ncclCommInitRank(NULL, 1, id, 0), ncclInvalidArgument,
           "InitRank with NULL comm pointer");
    is_int(ncclCommInitRank(&c, 0, id, 0), ncclInvalidArgument,
           "InitRank with nranks 0");
    is_int(ncclCommInitRank(&c, 2, id, 2), ncclInvalidArgument,
           "InitRank with rank out of range");
    is_int(ncclCommInitRank(&c, 1, zero, 0), ncclInvalidArgument,
           "InitRank with an id that is not ours");
    ok(last_error_mentions("unique id"), "message names the id: %s",
       ncclGetLastError(NULL));
    cfg.magic = 0;
    is_int(ncclCommInitRankConfig(&c, 1, id, 0, &cfg), ncclInvalidArgument,
           "InitRankConfig with a bad config magic");
    is_int(ncclCommInitRankScalable(&c, 1, 0, 0, &id, NULL),
           ncclInvalidArgument, "InitRankScalable with nId 0");
    is_int(ncclCommInitAll(NULL, 2, NULL), ncclInvalidArgument,
           "InitAll with NULL");
    is_int(ncclCommInitAll(&c, 0, NULL), ncclInvalidArgument,
           "InitAll with ndev 0");
    is_int(ncclCommDestroy(NULL), ncclSuccess, "Destroy(NULL) is a no-op");
    is_int(ncclCommAbort(NULL), ncclSuccess, "Abort(NULL) is a no-op");
    is_int(ncclCommFinalize(NULL), ncclInvalidArgument, "Finalize(NULL)");
}

static void test_null_comm(void)
{
    float x[4] = {0};
    int v;
    ncclResult_t e;

    is_int(ncclAllReduce(x, x, 4, ncclFloat, ncclSum, NULL, NULL),
           ncclInvalidArgument, "AllReduce on a NULL comm");
    ok(last_error_mentions("ncclAllReduce") && last_error_mentions("NULL"),
       "message names the call: %s", ncclGetLastError(NULL));
    is_int(ncclBroadcast(x, x, 4, ncclFloat, 0, NULL, NULL),
           ncclInvalidArgument, "Broadcast on a NULL comm");
    is_int(ncclBcast(x, 4, ncclFloat, 0, NULL, NULL), ncclInvalidArgument,
           "Bcast on a NULL comm");
    is_int(ncclReduce(x, x, 4, ncclFloat, ncclSum, 0, NULL, NULL),
           ncclInvalidArgument, "Reduce on a NULL comm");
    is_int(ncclAllGather(x, x, 1, ncclFloat, NULL, NULL), ncclInvalidArgument,
           "AllGather on a NULL comm");
    is_int(ncclReduceScatter(x, x, 1, ncclFloat, ncclSum, NULL, NULL),
           ncclInvalidArgument, "ReduceScatter on a NULL comm");
    is_int(ncclAlltoAll(x, x, 1, ncclFloat, NULL, NULL), ncclInvalidArgument,
           "AlltoAll on a NULL comm");
    is_int(ncclGather(x, x, 1, ncclFloat, 0, NULL, NULL), ncclInvalidArgument,
           "Gather on a NULL comm");
    is_int(ncclScatter(x, x, 1, ncclFloat, 0, NULL, NULL), ncclInvalidArgument,
           "Scatter on a NULL comm");
    is_int(ncclSend(x, 1, ncclFloat, 0, NULL, NULL), ncclInvalidArgument,
           "Send on a NULL comm");
    is_int(ncclRecv(x, 1, ncclFloat, 0, NULL, NULL), ncclInvalidArgument,
           "Recv on a NULL comm");
    is_int(ncclCommCount(NULL, &v), ncclInvalidArgument, "Count(NULL)");
    is_int(ncclCommUserRank(NULL, &v), ncclInvalidArgument, "UserRank(NULL)");
    is_int(ncclCommCuDevice(NULL, &v), ncclInvalidArgument, "CuDevice(NULL)");
    is_int(ncclCommGetAsyncError(NULL, &e), ncclInvalidArgument,
           "GetAsyncError(NULL)");
    is_int(ncclCommSplit(NULL, 0, 0, NULL, NULL), ncclInvalidArgument,
           "Split(NULL)");
    is_int(ncclCommShrink(NULL, NULL, 0, NULL, NULL, 0), ncclInvalidArgument,
           "Shrink(NULL)");
}

static void test_bad_arguments(ncclComm_t c)
{
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int v, exclude = 0;
    ncclComm_t sub;
    ncclResult_t e;

    is_int(ncclAllReduce(x, x, 8, BAD_TYPE, ncclSum, c, NULL),
           ncclInvalidArgument, "AllReduce with datatype 99");
    ok(last_error_mentions("datatype"), "message names the datatype: %s",
       ncclGetLastError(c));
    is_int(ncclAllReduce(x, x, 8, (ncclDataType_t)-1, ncclSum, c, NULL),
           ncclInvalidArgument, "AllReduce with datatype -1");
    is_int(ncclAllReduce(x, x, 8, ncclDouble, BAD_OP, c, NULL),
           ncclInvalidArgument, "AllReduce with redop 99");
    ok(last_error_mentions("reduction"), "message names the reduction: %s",
       ncclGetLastError(c));
    is_int(ncclReduce(x, x, 8, ncclDouble, (ncclRedOp_t)-3, 0, c, NULL),
           ncclInvalidArgument, "Reduce with redop -3");
    is_int(ncclReduceScatter(x, x, 8, ncclDouble, ncclNumOps, c, NULL),
           ncclInvalidArgument, "ReduceScatter with ncclNumOps");
    is_int(ncclBroadcast(x, x, 8, ncclDouble, 1, c, NULL), ncclInvalidArgument,
           "Broadcast with root 1 of 1");
    ok(last_error_mentions("root"), "message names the root: %s",
       ncclGetLastError(c));
    is_int(ncclReduce(x, x, 8, ncclDouble, ncclSum, -1, c, NULL),
           ncclInvalidArgument, "Reduce with root -1");
    is_int(ncclGather(x, x, 1, ncclDouble, 5, c, NULL), ncclInvalidArgument,
           "Gather with root 5");
    is_int(ncclScatter(x, x, 1, ncclDouble, 5, c, NULL), ncclInvalidArgument,
           "Scatter with root 5");
    is_int(ncclSend(x, 1, ncclDouble, 1, c, NULL), ncclInvalidArgument,
           "Send to peer 1 of 1");
    is_int(ncclRecv(x, 1, ncclDouble, -1, c, NULL), ncclInvalidArgument,
           "Recv from peer -1");
    is_int(ncclAllReduce(NULL, x, 8, ncclDouble, ncclSum, c, NULL),
           ncclInvalidArgument, "AllReduce with NULL sendbuff");
    is_int(ncclAllGather(x, NULL, 1, ncclDouble, c, NULL), ncclInvalidArgument,
           "AllGather with NULL recvbuff");
    is_int(ncclSend(NULL, 1, ncclDouble, 0, c, NULL), ncclInvalidArgument,
           "Send of NULL");
    is_int(ncclAllReduce(NULL, NULL, 0, ncclDouble, ncclSum, c, NULL),
           ncclSuccess, "count 0 with NULL buffers is fine");
    is_int(ncclAllReduce(x, x, SIZE_MAX / 4, ncclDouble, ncclSum, c, NULL),
           ncclInvalidArgument, "a count that overflows");
    is_int(ncclCommCount(c, NULL), ncclInvalidArgument, "Count into NULL");
    is_int(ncclCommSplit(c, -5, 0, &sub, NULL), ncclInvalidArgument,
           "Split with color -5");
    is_int(ncclCommSplit(c, 0, 0, NULL, NULL), ncclInvalidArgument,
           "Split into NULL");
    is_int(ncclCommShrink(c, &exclude, 1, &sub, NULL, 0), ncclInvalidArgument,
           "Shrink excluding the caller");
    exclude = 3;
    is_int(ncclCommShrink(c, &exclude, 1, &sub, NULL, 0), ncclInvalidArgument,
           "Shrink excluding rank 3 of 1");
    is_int(ncclCommShrink(c, NULL, 1, &sub, NULL, 0), ncclInvalidArgument,
           "Shrink with a NULL list");
    /* Nothing above broke the communicator. */
    is_int(ncclCommGetAsyncError(c, &e), ncclSuccess, "GetAsyncError");
    is_int(e, ncclSuccess, "no async error after argument errors");
    is_int(ncclAllReduce(x, x, 8, ncclDouble, ncclSum, c, NULL), ncclSuccess,
           "a good call still works");
    is_int(ncclCommCount(c, &v), ncclSuccess, "Count");
    is_int(v, 1, "one rank");
}

static void test_groups(ncclComm_t c)
{
    int32_t a[4] = {1, 2, 3, 4}, b[4];

    is_int(ncclGroupEnd(), ncclInvalidUsage, "GroupEnd without GroupStart");
    is_int(ncclGroupStart(), ncclSuccess, "GroupStart");
    is_int(ncclAllReduce(a, a, 4, BAD_TYPE, ncclSum, c, NULL),
           ncclInvalidArgument, "bad call inside a group fails at once");
    is_int(ncclGroupEnd(), ncclInvalidArgument,
           "and fails the group at GroupEnd");
    is_int(ncclGroupStart(), ncclSuccess, "GroupStart");
    is_int(ncclSend(a, 4, ncclInt32, 0, c, NULL), ncclSuccess, "send to self");
    is_int(ncclRecv(b, 4, ncclInt32, 0, c, NULL), ncclSuccess,
           "recv from self");
    is_int(ncclGroupEnd(), ncclSuccess, "GroupEnd runs them");
    ok(memcmp(a, b, sizeof a) == 0, "self send/recv moved the data");
}

/* ndev communicators of one process, all driven by this thread. */
static void test_init_all(int ndev, size_t n)
{
    ncclComm_t comms[8];
    float *buf[8];
    int i, bad = 0, v;
    size_t k;

    is_int(ncclCommInitAll(comms, ndev, NULL), ncclSuccess, "InitAll(%d)",
           ndev);
    for (i = 0; i < ndev; i++) {
        buf[i] = malloc(n * sizeof(float));
        for (k = 0; k < n; k++)
            buf[i][k] = (float)(i + 1) * (float)(k % 17);
    }
    ncclGroupStart();
    for (i = 0; i < ndev; i++)
        ncclAllReduce(buf[i], buf[i], n, ncclFloat, ncclSum, comms[i], NULL);
    is_int(ncclGroupEnd(), ncclSuccess, "grouped all-reduce over %d comms of "
                                        "%zu floats",
           ndev, n);
    for (i = 0; i < ndev; i++)
        for (k = 0; k < n; k++)
            bad += buf[i][k] != (float)(ndev * (ndev + 1) / 2) * (float)(k % 17);
    is_int(bad, 0, "every communicator has the sum");
    for (i = 0; i < ndev; i++) {
        ncclCommUserRank(comms[i], &v);
        bad += v != i;
        ncclCommCuDevice(comms[i], &v);
        bad += v != i;
    }
    is_int(bad, 0, "ranks and devices are 0..ndev-1");

    is_int(ncclCommCount(comms[0], &v), ncclSuccess, "Count");
    is_int(v, ndev, "clique size");
    if (ndev > 1) {
        is_int(ncclAllReduce(buf[0], buf[0], n, ncclFloat, ncclSum, comms[0],
                             NULL),
               ncclInvalidUsage,
               "one member alone outside a group is invalid usage");
        ok(last_error_mentions("ncclGroupStart"), "message explains: %s",
           ncclGetLastError(comms[0]));
    }
    for (i = 0; i < ndev; i++)
        is_int(ncclCommDestroy(comms[i]), ncclSuccess, "Destroy %d", i);
    for (i = 0; i < ndev; i++)
        free(buf[i]);
}

/* A ring of grouped send/recv far bigger than any socket buffer, then an
 * all-gather, over a fresh clique. */
static void test_init_all_ring(int ndev, size_t n)
{
    ncclComm_t comms[8];
    int32_t *out[8], *in[8];
    int i, bad = 0;
    size_t k;

    is_int(ncclCommInitAll(comms, ndev, NULL), ncclSuccess, "InitAll(%d)",
           ndev);
    for (i = 0; i < ndev; i++) {
        out[i] = malloc(n * sizeof(int32_t));
        in[i] = calloc(n, sizeof(int32_t));
        for (k = 0; k < n; k++)
            out[i][k] = (int32_t)(i * 1000003 + (int)k);
    }
    ncclGroupStart();
    for (i = 0; i < ndev; i++) {
        ncclSend(out[i], n, ncclInt32, (i + 1) % ndev, comms[i], NULL);
        ncclRecv(in[i], n, ncclInt32, (i + ndev - 1) % ndev, comms[i], NULL);
    }
    is_int(ncclGroupEnd(), ncclSuccess, "grouped ring of %zu bytes", n * 4);
    for (i = 0; i < ndev; i++)
        for (k = 0; k < n; k++)
            bad += in[i][k] != (int32_t)(((i + ndev - 1) % ndev) * 1000003 +
                                         (int)k);
    is_int(bad, 0, "ring data arrived");
    ncclGroupStart();
    for (i = 0; i < ndev; i++)
        ncclAllGather(out[i], in[i], n / ndev, ncclInt32, comms[i], NULL);
    is_int(ncclGroupEnd(), ncclSuccess, "grouped all-gather");
    for (i = 0, bad = 0; i < ndev; i++)
        for (k = 0; k < n / ndev * ndev; k++)
            bad += in[i][k] != out[k / (n / ndev)][k % (n / ndev)];
    is_int(bad, 0, "all-gather data");
    for (i = 0; i < ndev; i++) {
        ncclCommDestroy(comms[i]);
        free(out[i]);
        free(in[i]);
    }
}

int main(void)
{
    ncclUniqueId id;
    ncclComm_t c = NULL;
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;

    unsetenv("SIMNCCL_TOPO");
    test_version_and_strings();
    test_init_errors();
    test_null_comm();
    is_int(ncclGetUniqueId(&id), ncclSuccess, "id for one rank");
    cfg.blocking = 0;
    is_int(ncclCommInitRankConfig(&c, 1, id, 0, &cfg), ncclSuccess,
           "one-rank communicator (non-blocking config completes at once)");
    if (!c)
        return done_testing();
    test_bad_arguments(c);
    test_groups(c);
    is_int(ncclCommFinalize(c), ncclSuccess, "Finalize");
    is_int(ncclCommDestroy(c), ncclSuccess, "Destroy");
    test_init_all(1, 100);
    test_init_all(4, 1000);
    test_init_all_ring(8, 1 << 20);
    return done_testing();
}
