/* shim.c - libcollprof.so over the null NCCL: every field of every record.
 *
 * The program re-executes itself with the shim preloaded and COLLPROF_DIR
 * set to a fresh directory, makes a known sequence of NCCL calls, then reads
 * its own log (records are readable while the process runs) and checks them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "collprof/cp_nccl.h"
#include "cp_logread.h"
#include "tap.h"

#define MAX_RECS 256

static union cp_rec recs[MAX_RECS];
static int nrecs;

static void reexec(char **argv)
{
    const char *top = getenv("top_builddir");
    char shim[4096], dir[] = "/tmp/cp-shim-XXXXXX";

    if (!top)
        top = ".";
    snprintf(shim, sizeof shim, "%s/preload/.libs/libcollprof.so", top);
    if (access(shim, R_OK) != 0)
        skip_all("libcollprof.so not built");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    setenv("LD_PRELOAD", shim, 1);
    setenv("COLLPROF_DIR", dir, 1);
    setenv("COLLPROF_NODE", "testnode", 1);
    setenv("SLURM_PROCID", "7", 1);
    setenv("SLURM_NTASKS", "16", 1);
    unsetenv("COLLPROF_TIMER");
    unsetenv("COLLPROF_DISABLE");
    setenv("CP_SHIM_TEST_CHILD", "1", 1);
    execv("/proc/self/exe", argv);
    perror("execv");
    exit(1);
}

static void load_log(void)
{
    char **paths;
    struct cp_error err;
    struct cp_logfile *lf;
    int n = cp_logdir_list(getenv("COLLPROF_DIR"), &paths, &err);

    if (!ok(n == 1, "one log file in COLLPROF_DIR")) {
        diag("%s", n < 0 ? err.text : "several files");
        exit(done_testing());
    }
    lf = cp_logfile_open(paths[0], &err);
    if (!ok(lf != NULL, "log opens")) {
        diag("%s", err.text);
        exit(done_testing());
    }
    ok(strstr(paths[0], "/testnode.") != NULL, "file named after the node: %s",
       paths[0]);
    is_int(cp_logfile_header(lf)->global_rank, 7, "header: global rank");
    is_int(cp_logfile_header(lf)->world_size, 16, "header: world size");
    is_str(cp_logfile_header(lf)->node, "testnode", "header: node");
    is_int(cp_logfile_header(lf)->timer, CP_TIMER_HOST, "header: host timer");
    is_int(cp_logfile_header(lf)->nccl_version, 22809,
           "header: the real library's version");
    is_int(cp_logfile_header(lf)->pid, getpid(), "header: pid");
    while (nrecs < MAX_RECS && cp_logfile_next(lf, &recs[nrecs], NULL) == 1)
        nrecs++;
    ok(cp_logfile_problem(lf) == NULL, "no problem reading the live log");
    cp_logfile_close(lf);
    cp_logdir_free(paths);
}

/* The i-th call record. */
static const struct cp_rec_call *call(int i)
{
    int k, n = 0;
    for (k = 0; k < nrecs; k++)
        if (recs[k].kind == CP_REC_CALL && n++ == i)
            return &recs[k].call;
    return NULL;
}

static int count_kind(int kind)
{
    int k, n = 0;
    for (k = 0; k < nrecs; k++)
        n += recs[k].kind == kind;
    return n;
}

static const struct cp_rec_comm *comm_event(int i)
{
    int k, n = 0;
    for (k = 0; k < nrecs; k++)
        if (recs[k].kind == CP_REC_COMM && n++ == i)
            return &recs[k].comm;
    return NULL;
}

int main(int argc, char **argv)
{
    ncclComm_t world = NULL, half = NULL, none = (ncclComm_t)1;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclUniqueId id;
    float buf[64];
    const struct cp_rec_call *c;
    const struct cp_rec_comm *ev;
    uint64_t world_id;
    int i, calls = 0;
    ncclResult_t r;

    (void)argc;
    if (!getenv("CP_SHIM_TEST_CHILD"))
        reexec(argv);

    config.commName = "world";
    is_int(ncclGetUniqueId(&id), ncclSuccess, "unique id passes through");
    is_int(ncclCommInitRankConfig(&world, 4, id, 1, &config), ncclSuccess,
           "init");
    for (i = 0; i < 3; i++)
        ncclAllReduce(buf, buf + 32, 8 << i, ncclFloat32, ncclSum, world, NULL);
    calls += 3;
    ncclBroadcast(buf, buf, 5, ncclBfloat16, 2, world, NULL);
    ncclBcast(buf, 6, ncclInt8, 3, world, NULL); /* calls ncclBroadcast inside */
    ncclReduce(buf, buf + 1, 7, ncclFloat64, ncclMax, 0, world, NULL);
    ncclAllGather(buf + 1, buf, 1, ncclFloat32, world, NULL); /* in place */
    ncclReduceScatter(buf, buf + 3, 2, ncclFloat32, ncclAvg, world, NULL);
    ncclAlltoAll(buf, buf + 16, 4, ncclFloat16, world, NULL);
    ncclGather(buf, buf + 16, 3, ncclUint8, 1, world, NULL);
    ncclScatter(buf, buf + 16, 3, ncclInt32, 2, world, NULL);
    calls += 8;
    ncclGroupStart();
    ncclSend(buf, 10, ncclFloat32, 2, world, NULL);
    ncclRecv(buf, 10, ncclFloat32, 0, world, NULL);
    ncclSend(buf, 11, ncclFloat32, 2, world, NULL);
    ncclGroupEnd();
    calls += 3;
    errno = 4242;
    r = ncclAllReduce(buf, buf, 1, ncclFloat32, ncclSum, NULL, NULL);
    is_int(r, ncclInvalidArgument, "NULL comm: NCCL's own error returned");
    is_int(errno, 4242, "errno unchanged through the shim");
    r = ncclAllReduce(buf, buf, 1, (ncclDataType_t)99, ncclSum, world, NULL);
    is_int(r, ncclInvalidArgument, "bad datatype: NCCL's own error returned");
    calls += 2;
    is_int(ncclCommSplit(world, 1, 0, &half, NULL), ncclSuccess, "split");
    is_int(ncclCommSplit(world, NCCL_SPLIT_NOCOLOR, 0, &none, NULL),
           ncclSuccess, "split, no color");
    ok(none == NULL, "no-color split gives no communicator");
    ncclAllReduce(buf, buf, 3, ncclFloat32, ncclSum, half, NULL);
    ncclAllReduce(buf, buf, 3, ncclFloat32, ncclSum, world, NULL);
    calls += 2;
    is_int(ncclCommDestroy(half), ncclSuccess, "destroy split");
    is_int(ncclCommDestroy(world), ncclSuccess, "destroy world");

    load_log();
    is_int(count_kind(CP_REC_CALL), calls, "one record per data call (%d)",
           calls);
    is_int(count_kind(CP_REC_GROUP), 1, "one group record");
    ok(count_kind(CP_REC_CLOCK) >= 1, "a clock calibration record");
    is_int(count_kind(CP_REC_COMM), 5, "comm events: init, 2 splits, 2 destroys");

    ev = comm_event(0);
    ok(ev && ev->how == CP_COMM_INIT_RANK_CONFIG && ev->nranks == 4 &&
           ev->rank == 1 && ev->result == 0 && strcmp(ev->name, "world") == 0 &&
           ev->cuda_dev == 1,
       "init event: how, nranks, rank, name, device");
    world_id = ev ? ev->comm_id : 0;
    ok(world_id != 0, "world has an id");

    for (i = 0; i < 3; i++) {
        c = call(i);
        ok(c && c->op == CP_OP_AllReduce && c->count == (8u << i) &&
               c->dtype == ncclFloat32 && c->redop == ncclSum &&
               c->comm_id == world_id && c->seq == (unsigned)i &&
               c->rank == 1 && c->nranks == 4 && c->peer == -1 &&
               c->result == 0 && c->group == 0 && c->flags == 0 &&
               c->end_ns >= c->start_ns && c->start_ns > 0,
           "allreduce %d: every field", i);
    }
    c = call(3);
    ok(c && c->op == CP_OP_Broadcast && c->peer == 2 && c->seq == 3 &&
           c->redop == CP_REDOP_NONE && c->dtype == ncclBfloat16 &&
           (c->flags & CP_CALL_INPLACE),
       "broadcast: root, seq, no redop, in place");
    c = call(4);
    ok(c && c->op == CP_OP_Bcast && c->peer == 3 && c->seq == 4 && c->count == 6,
       "bcast recorded once, as bcast (inner broadcast not recorded)");
    c = call(5);
    ok(c && c->op == CP_OP_Reduce && c->redop == ncclMax && c->peer == 0 &&
           c->dtype == ncclFloat64 && c->seq == 5,
       "reduce");
    c = call(6);
    ok(c && c->op == CP_OP_AllGather && (c->flags & CP_CALL_INPLACE) &&
           c->seq == 6,
       "allgather, in place detected at offset rank*count");
    c = call(7);
    ok(c && c->op == CP_OP_ReduceScatter && c->redop == ncclAvg &&
           !(c->flags & CP_CALL_INPLACE),
       "reducescatter");
    c = call(8);
    ok(c && c->op == CP_OP_AlltoAll && c->dtype == ncclFloat16, "alltoall");
    c = call(9);
    ok(c && c->op == CP_OP_Gather && c->peer == 1, "gather root");
    c = call(10);
    ok(c && c->op == CP_OP_Scatter && c->peer == 2 && c->seq == 10,
       "scatter root and seq");
    c = call(11);
    ok(c && c->op == CP_OP_Send && c->peer == 2 && c->seq == 0 &&
           (c->flags & CP_CALL_IN_GROUP) && c->group == 1,
       "send in group 1, p2p seq 0");
    c = call(12);
    ok(c && c->op == CP_OP_Recv && c->peer == 0 && c->seq == 0 && c->group == 1,
       "recv: its own p2p counter");
    c = call(13);
    ok(c && c->op == CP_OP_Send && c->peer == 2 && c->seq == 1 && c->count == 11,
       "second send to the same peer: p2p seq 1");
    c = call(14);
    ok(c && c->result == ncclInvalidArgument && (c->flags & CP_CALL_NO_COMM) &&
           c->comm_id == 0 && c->seq == UINT32_MAX,
       "NULL comm recorded with NCCL's error, no comm, no seq");
    c = call(15);
    ok(c && c->result == ncclInvalidArgument && c->comm_id == world_id &&
           c->seq == UINT32_MAX && c->dtype == 99,
       "bad datatype recorded, consumes no sequence number");
    c = call(16);
    ev = comm_event(1);
    ok(ev && ev->how == CP_COMM_SPLIT && ev->parent_id == world_id &&
           ev->nranks == 2 && ev->color == 1 && ev->comm_id != world_id,
       "split event: parent, size, color");
    ok(c && ev && c->comm_id == ev->comm_id && c->seq == 0 && c->nranks == 2,
       "call on the split communicator: its id, its own sequence");
    ev = comm_event(2);
    ok(ev && ev->how == CP_COMM_SPLIT && ev->nranks == 0 &&
           ev->comm_id != comm_event(1)->comm_id,
       "no-color split: an event, a different id, no members");
    c = call(17);
    ok(c && c->comm_id == world_id && c->seq == 11,
       "world's sequence continues after the split");
    ev = comm_event(3);
    ok(ev && ev->how == CP_COMM_DESTROY && ev->comm_id == comm_event(1)->comm_id,
       "destroy event names the split communicator");
    ok(recs[0].kind == CP_REC_CLOCK, "the log starts with a clock pair");
    for (i = 0; i < nrecs; i++)
        if (recs[i].kind == CP_REC_GROUP)
            ok(recs[i].group.group == 1 && recs[i].group.ncalls == 3 &&
                   recs[i].group.end_ns >= recs[i].group.start_ns,
               "group record: id, 3 calls, interval");
    return done_testing();
}
