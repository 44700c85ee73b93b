/* ts_fault.c - faults acted out by train_sim (see ts_fault.h). */
#include "ts_fault.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_topo.h"
#include "ts_comm.h"

struct ts_faults {
    long hang_after;     /* -1: none */
    long kill_after;     /* -1: none */
    long mismatch_seq;   /* -1: none */
    long count_delta;
    char mismatch_op[SIM_TOPO_OP_NAME];
    long swap_seq;       /* -1: none */
    /* the call held back by swap, with private buffers */
    int held;
    struct ts_comm *held_comm;
    struct ts_call held_call;
    void *held_send, *held_recv;
};

static size_t elem_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2:
        return 1;
    case ncclFloat16: case ncclBfloat16:
        return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32:
        return 4;
    default:
        return 8;
    }
}

void ts_fault_load(struct ts_run *run)
{
    const char *path = getenv("SIMNCCL_TOPO");
    struct sim_topo *topo;
    const struct sim_topo_fault *f;
    struct ts_faults *tf;
    char err[512];

    run->faults = NULL;
    if (path == NULL || *path == '\0')
        return;
    topo = malloc(sizeof *topo);
    tf = calloc(1, sizeof *tf);
    if (topo == NULL || tf == NULL)
        ts_run_fail(run, "out of memory reading %s", path);
    if (sim_topo_parse_file(path, topo, err, sizeof err) != 0)
        ts_run_fail(run, "SIMNCCL_TOPO: %s", err);
    tf->hang_after = tf->kill_after = tf->mismatch_seq = tf->swap_seq = -1;
    f = sim_topo_fault(topo, run->rank, SIM_FAULT_HANG);
    if (f != NULL && f->in[0] == '\0')
        tf->hang_after = f->after;
    f = sim_topo_fault(topo, run->rank, SIM_FAULT_KILL);
    if (f != NULL && f->in[0] == '\0')
        tf->kill_after = f->after;
    f = sim_topo_fault(topo, run->rank, SIM_FAULT_MISMATCH);
    if (f != NULL) {
        tf->mismatch_seq = f->seq;
        tf->count_delta = f->count_delta;
        snprintf(tf->mismatch_op, sizeof tf->mismatch_op, "%s", f->op);
    }
    f = sim_topo_fault(topo, run->rank, SIM_FAULT_SWAP);
    if (f != NULL)
        tf->swap_seq = f->seq;
    free(topo);
    if (tf->hang_after < 0 && tf->kill_after < 0 && tf->mismatch_seq < 0 &&
        tf->swap_seq < 0) {
        free(tf);
        return;
    }
    run->faults = tf;
}

ncclResult_t ts_call_issue(const struct ts_comm *comm, const struct ts_call *c)
{
    ncclComm_t h = comm->handle;

    if (strcmp(c->op, "allreduce") == 0)
        return ncclAllReduce(c->send, c->recv, c->count, c->dtype, c->redop, h,
                             NULL);
    if (strcmp(c->op, "broadcast") == 0)
        return ncclBroadcast(c->send, c->recv, c->count, c->dtype, c->root, h,
                             NULL);
    if (strcmp(c->op, "bcast") == 0)
        return ncclBcast(c->recv, c->count, c->dtype, c->root, h, NULL);
    if (strcmp(c->op, "reduce") == 0)
        return ncclReduce(c->send, c->recv, c->count, c->dtype, c->redop,
                          c->root, h, NULL);
    if (strcmp(c->op, "allgather") == 0)
        return ncclAllGather(c->send, c->recv, c->count, c->dtype, h, NULL);
    if (strcmp(c->op, "reducescatter") == 0)
        return ncclReduceScatter(c->send, c->recv, c->count, c->dtype,
                                 c->redop, h, NULL);
    if (strcmp(c->op, "alltoall") == 0)
        return ncclAlltoAll(c->send, c->recv, c->count, c->dtype, h, NULL);
    if (strcmp(c->op, "gather") == 0)
        return ncclGather(c->send, c->recv, c->count, c->dtype, c->root, h,
                          NULL);
    if (strcmp(c->op, "scatter") == 0)
        return ncclScatter(c->send, c->recv, c->count, c->dtype, c->root, h,
                           NULL);
    return ncclInvalidArgument;
}

/* Private buffers big enough for any collective of count elements on comm
 * (the largest buffer of a collective is nranks x count). */
static void private_buffers(struct ts_run *run, const struct ts_comm *comm,
                            const struct ts_call *c, size_t count,
                            void **send, void **recv)
{
    size_t bytes = (count + 1) * (size_t)comm->nranks * elem_size(c->dtype);

    *send = calloc(1, bytes);
    *recv = calloc(1, bytes);
    if (*send == NULL || *recv == NULL)
        ts_run_fail(run, "out of memory for a planted fault");
}

ncclResult_t ts_fault_collective(struct ts_run *run, struct ts_comm *comm,
                                 const struct ts_call *c)
{
    struct ts_faults *tf = run->faults;
    long n = (long)run->collectives++;
    ncclResult_t r;

    if (run->late_ns > 0) {
        /* a straggler: its compute before each collective takes longer,
         * so it arrives last and the others wait for it */
        struct timespec late = {run->late_ns / 1000000000L,
                                run->late_ns % 1000000000L};
        while (nanosleep(&late, &late) != 0)
            ;
    }
    if (tf == NULL)
        return ts_call_issue(comm, c);
    if (n == tf->hang_after)
        for (;;)
            pause(); /* stuck in compute: never calls again */
    if (n == tf->kill_after)
        kill(getpid(), SIGKILL); /* dies in its own compute */
    if (n == tf->swap_seq || n == tf->mismatch_seq)
        run->faulted = true;
    if (n == tf->swap_seq) {
        /* hold this call back until the next collective has been made */
        tf->held = 1;
        tf->held_comm = comm;
        tf->held_call = *c;
        private_buffers(run, comm, c, c->count, &tf->held_send,
                        &tf->held_recv);
        tf->held_call.send = tf->held_send;
        tf->held_call.recv = tf->held_recv;
        return ncclSuccess;
    }
    if (n == tf->mismatch_seq) {
        struct ts_call m = *c;
        void *send, *recv;
        if (tf->count_delta < 0 && (size_t)-tf->count_delta >= m.count)
            m.count = 1;
        else
            m.count = (size_t)((long)m.count + tf->count_delta);
        if (tf->mismatch_op[0] != '\0')
            m.op = tf->mismatch_op;
        private_buffers(run, comm, &m, m.count, &send, &recv);
        m.send = send;
        m.recv = recv;
        r = ts_call_issue(comm, &m);
        free(send);
        free(recv);
        return r;
    }
    r = ts_call_issue(comm, c);
    if (tf->held && n == tf->swap_seq + 1) {
        ncclResult_t h = ts_call_issue(tf->held_comm, &tf->held_call);
        tf->held = 0;
        free(tf->held_send);
        free(tf->held_recv);
        if (r == ncclSuccess)
            r = h;
    }
    return r;
}
