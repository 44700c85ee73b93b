/* sim_fault.c - faults acted out by the library (see sim_fault.h). */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sim_boot.h"
#include "sim_comm.h"
#include "sim_fault.h"
#include "sim_topo.h"

/* The names of sim_topo's fault directives, by enum sim_op_kind. */
static const char *const kind_names[] = {
    [SIM_OP_ALLREDUCE] = "allreduce",
    [SIM_OP_BROADCAST] = "broadcast",
    [SIM_OP_REDUCE] = "reduce",
    [SIM_OP_ALLGATHER] = "allgather",
    [SIM_OP_REDUCESCATTER] = "reducescatter",
    [SIM_OP_ALLTOALL] = "alltoall",
    [SIM_OP_GATHER] = "gather",
    [SIM_OP_SCATTER] = "scatter",
};

static long collectives; /* atomic: collectives entered so far */
static int hang_taken;   /* atomic: the hang fault has been used */

static int matches(const struct sim_topo_fault *f, const struct sim_op *op,
                   long n)
{
    return f && f->in[0] && n >= f->after &&
           strcmp(f->in, kind_names[op->kind]) == 0;
}

int sim_fault_enter(const struct sim_op *op)
{
    const struct sim_topo *t;
    const struct sim_topo_fault *f;
    long n;
    int rank;

    if (sim_coll_is_p2p(op->kind))
        return 0;
    n = __atomic_fetch_add(&collectives, 1, __ATOMIC_RELAXED);
    t = sim_boot_topology();
    if (!t || t->n_faults == 0 || !op->comm)
        return 0;
    rank = op->comm->world_rank;
    if (matches(sim_topo_fault(t, rank, SIM_FAULT_KILL), op, n))
        kill(getpid(), SIGKILL);
    f = sim_topo_fault(t, rank, SIM_FAULT_HANG);
    if (matches(f, op, n) &&
        !__atomic_exchange_n(&hang_taken, 1, __ATOMIC_ACQ_REL))
        return 1;
    return 0;
}

void sim_fault_hang(void)
{
    for (;;)
        pause();
}
