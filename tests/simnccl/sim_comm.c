/* sim_comm.c - creation and teardown of communicators. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_boot.h"
#include "sim_comm.h"
#include "sim_prof.h"
#include "sim_socket.h"
#include "sim_topo.h"

struct sim_conn *sim_comm_conn(struct ncclComm *comm, int channel, int peer)
{
    return &comm->conns[(size_t)channel * (size_t)comm->nranks + (size_t)peer];
}

struct ncclComm *sim_comm_alloc(int nranks, int rank)
{
    struct ncclComm *comm = calloc(1, sizeof *comm);
    size_t i, n_conns = (size_t)SIM_CHANNELS * (size_t)nranks;

    if (!comm)
        return NULL;
    comm->magic = SIM_COMM_MAGIC;
    comm->nranks = nranks;
    comm->rank = rank;
    comm->nodes = calloc((size_t)nranks, sizeof *comm->nodes);
    comm->links = calloc((size_t)nranks, sizeof *comm->links);
    comm->conns = calloc(n_conns, sizeof *comm->conns);
    if (!comm->nodes || !comm->links || !comm->conns) {
        free(comm->nodes);
        free(comm->links);
        free(comm->conns);
        free(comm);
        return NULL;
    }
    for (i = 0; i < n_conns; i++) {
        comm->conns[i].send_fd = -1;
        comm->conns[i].recv_fd = -1;
        comm->conns[i].peer = (int)(i % (size_t)nranks);
    }
    return comm;
}

int sim_comm_open_self(struct ncclComm *comm)
{
    int channel;

    for (channel = 0; channel < SIM_CHANNELS; channel++) {
        struct sim_conn *self = sim_comm_conn(comm, channel, comm->rank);
        int sv[2];

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                       sv) != 0)
            return -1;
        self->send_fd = sv[0];
        self->recv_fd = sv[1];
    }
    return 0;
}

/* The link's params at now and when they change next. */
static void link_at(struct sim_link *l, const struct sim_topo *topo,
                    const char *a, const char *b, int64_t now)
{
    int64_t start = sim_boot_start_ns(), next;

    l->params = sim_topo_pair_at(topo, a, b, now - start);
    next = sim_topo_pair_change(topo, a, b, now - start);
    l->change_ns = next == INT64_MAX ? INT64_MAX : start + next;
}

void sim_comm_set_links(struct ncclComm *comm, const struct sim_topo *topo)
{
    int64_t now = sim_now_ns();
    int i;

    for (i = 0; i < comm->nranks; i++) {
        struct sim_link *l = &comm->links[i];
        l->paced = i != comm->rank;
        link_at(l, topo, comm->nodes[comm->rank], comm->nodes[i], now);
        l->free_ns = 0;
    }
}

void sim_comm_update_link(struct ncclComm *comm, int peer, int64_t now)
{
    const struct sim_topo *topo = sim_boot_topology();

    if (topo)
        link_at(&comm->links[peer], topo, comm->nodes[comm->rank],
                comm->nodes[peer], now);
    else
        comm->links[peer].change_ns = INT64_MAX;
}

void sim_comm_free(struct ncclComm *comm)
{
    int saved = errno, i;

    if (!comm)
        return;
    sim_prof_comm_fini(comm);
    for (i = 0; i < SIM_CHANNELS * comm->nranks; i++) {
        struct sim_conn *c = &comm->conns[i];
        if (c->send_fd >= 0)
            close(c->send_fd);
        if (c->recv_fd >= 0 && c->recv_fd != c->send_fd)
            close(c->recv_fd);
    }
    if (comm->clique) {
        struct sim_clique *cl = comm->clique;
        for (i = 0; i < cl->size; i++)
            if (cl->members[i] == comm)
                cl->members[i] = NULL;
        if (--cl->live == 0) {
            free(cl->members);
            free(cl);
        }
    }
    comm->magic = 0;
    free(comm->nodes);
    free(comm->links);
    free(comm->conns);
    free(comm);
    errno = saved;
}
