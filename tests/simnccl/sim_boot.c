/* sim_boot.c - unique ids, bootstrap root, meshes, split and shrink. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sim_boot.h"
#include "sim_comm.h"
#include "sim_error.h"
#include "sim_exec.h"
#include "sim_socket.h"
#include "sim_topo.h"

#define ID_MAGIC "SIMNCCL\001"
#define HELLO_MAGIC 0x53424f4fu /* "SBOO": rank -> root */
#define TABLE_MAGIC 0x5354424cu /* "STBL": root -> rank */
#define MESH_MAGIC 0x534d5348u  /* "SMSH": rank -> rank */
#define MAX_RANKS 65536
#define DEFAULT_BOOT_TIMEOUT_S 300.0

/* The part of ncclUniqueId simnccl uses; the rest stays zero. */
struct id_layout {
    char magic[8];
    uint64_t nonce;
    uint16_t port;
    uint16_t pad;
    int32_t root_pid;
};
_Static_assert(sizeof(struct id_layout) <= NCCL_UNIQUE_ID_BYTES,
               "id layout fits in ncclUniqueId");

struct hello {
    uint32_t magic;
    uint32_t port; /* the rank's own listener */
    uint64_t nonce;
    int32_t nranks;
    int32_t rank;
    char node[SIM_TOPO_NODE_NAME];
};

enum table_status { TABLE_OK, TABLE_NRANKS, TABLE_DUPLICATE, TABLE_RANGE };

struct table_head {
    uint32_t magic;
    int32_t status;
    int32_t nranks;
    int32_t pad;
};

struct table_entry {
    uint32_t port;
    uint32_t pad;
    char node[SIM_TOPO_NODE_NAME];
};

struct mesh_hello {
    uint32_t magic;
    int32_t from;
    int32_t to;
    int32_t channel;
    uint64_t nonce;
};

/* ---- process-wide settings --------------------------------------------- */

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static struct sim_topo topo;
static char topo_error[512];
static int64_t job_start_ns;

static void load_topology(void)
{
    const char *path = getenv("SIMNCCL_TOPO");
    const char *start = getenv("SIMNCCL_START_NS");
    char *end = NULL;
    long long v = 0;

    if (start && *start) {
        errno = 0;
        v = strtoll(start, &end, 10);
    }
    job_start_ns = start && *start && errno == 0 && end && !*end && v > 0
                       ? (int64_t)v
                       : sim_now_ns();

    sim_topo_defaults(&topo);
    if (path && *path &&
        sim_topo_parse_file(path, &topo, topo_error, sizeof topo_error) != 0)
        sim_topo_defaults(&topo);
}

/* The topology of this process, or NULL with the error recorded. */
static const struct sim_topo *topology(void)
{
    pthread_once(&topo_once, load_topology);
    if (topo_error[0]) {
        sim_error(ncclInvalidUsage, "simnccl: SIMNCCL_TOPO: %s", topo_error);
        return NULL;
    }
    return &topo;
}

const struct sim_topo *sim_boot_topology(void)
{
    return topology();
}

int64_t sim_boot_start_ns(void)
{
    pthread_once(&topo_once, load_topology);
    return job_start_ns;
}

static const char *node_name(void)
{
    const char *names[] = {"SIMNCCL_NODE", "SLURMD_NODENAME"};
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return v;
    }
    return "n1";
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    char *end;
    long x;

    if (!v || !*v)
        return fallback;
    x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 0x7fffffff)
        return fallback;
    return (int)x;
}

static int local_rank(void)
{
    int v = env_int("SIMNCCL_LOCAL_RANK", -1);

    if (v < 0)
        v = env_int("LOCAL_RANK", -1);
    if (v < 0)
        v = env_int("SLURM_LOCALID", -1);
    return v < 0 ? 0 : v;
}

static pthread_mutex_t first_rank_lock = PTHREAD_MUTEX_INITIALIZER;
static int first_rank = -1;

/* Stragglers are named by global rank: SIMNCCL_RANK when the launcher set
 * it, else this process's rank in its first communicator. */
static int world_rank(int rank)
{
    int v = env_int("SIMNCCL_RANK", -1);

    if (v >= 0)
        return v;
    pthread_mutex_lock(&first_rank_lock);
    if (first_rank < 0)
        first_rank = rank;
    v = first_rank;
    pthread_mutex_unlock(&first_rank_lock);
    return v;
}

static double boot_timeout_s(void)
{
    const char *v = getenv("SIMNCCL_TIMEOUT");
    double t = v && *v ? strtod(v, NULL) : 0;

    return t > 0 ? t : DEFAULT_BOOT_TIMEOUT_S;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t random64(void)
{
    static uint64_t counter;
    uint64_t v;
    struct timespec ts;

    if (getrandom(&v, sizeof v, GRND_NONBLOCK) == (ssize_t)sizeof v)
        return v;
    clock_gettime(CLOCK_REALTIME, &ts);
    return mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                 ((uint64_t)getpid() << 40) ^ __atomic_add_fetch(&counter, 1,
                                                                 __ATOMIC_RELAXED));
}

static void copy_name(char dst[SIM_TOPO_NODE_NAME], const char *src)
{
    memset(dst, 0, SIM_TOPO_NODE_NAME);
    strncpy(dst, src, SIM_TOPO_NODE_NAME - 1);
}

/* ---- the root ---------------------------------------------------------- */

struct root_args {
    int listen_fd;
    uint64_t nonce;
};

/* Accept ranks until all nranks joined (or the timeout), then send each one
 * the table.  Runs detached; never touches application state. */
static void *root_main(void *arg)
{
    struct root_args args = *(struct root_args *)arg;
    int64_t deadline = sim_deadline_after(boot_timeout_s());
    struct table_entry *table = NULL;
    int *fds = NULL, nranks = -1, joined = 0, i;

    free(arg);
    while (nranks < 0 || joined < nranks) {
        struct table_head head = {.magic = TABLE_MAGIC};
        struct hello h;
        int fd = sim_socket_accept(args.listen_fd, deadline);

        if (fd < 0) {
            if (errno == ETIMEDOUT || errno == EBADF || errno == EINVAL)
                break;
            usleep(10000); /* e.g. out of descriptors: retry, gently */
            continue;
        }
        if (sim_socket_recv_all(fd, &h, sizeof h, sim_deadline_after(30)) !=
                0 ||
            h.magic != HELLO_MAGIC || h.nonce != args.nonce) {
            close(fd);
            continue;
        }
        if (nranks < 0 && h.nranks >= 1 && h.nranks <= MAX_RANKS) {
            fds = malloc((size_t)h.nranks * sizeof *fds);
            table = calloc((size_t)h.nranks, sizeof *table);
            if (!fds || !table) {
                close(fd);
                break;
            }
            for (i = 0; i < h.nranks; i++)
                fds[i] = -1;
            nranks = h.nranks;
        }
        if (h.nranks != nranks)
            head.status = TABLE_NRANKS;
        else if (h.rank < 0 || h.rank >= nranks)
            head.status = TABLE_RANGE;
        else if (fds[h.rank] >= 0)
            head.status = TABLE_DUPLICATE;
        if (head.status != TABLE_OK) {
            head.nranks = nranks;
            sim_socket_send_all(fd, &head, sizeof head,
                                sim_deadline_after(5));
            close(fd);
            continue;
        }
        fds[h.rank] = fd;
        table[h.rank].port = h.port;
        memcpy(table[h.rank].node, h.node, sizeof h.node);
        table[h.rank].node[SIM_TOPO_NODE_NAME - 1] = '\0';
        joined++;
    }
    for (i = 0; i < nranks && fds; i++) {
        struct table_head head = {.magic = TABLE_MAGIC, .nranks = nranks};
        int64_t d = sim_deadline_after(30);

        if (fds[i] < 0)
            continue;
        /* A rank that sees its connection close without a table knows the
         * root gave up (another rank never came). */
        if (joined == nranks &&
            sim_socket_send_all(fds[i], &head, sizeof head, d) == 0)
            sim_socket_send_all(fds[i], table,
                                (size_t)nranks * sizeof *table, d);
        close(fds[i]);
    }
    close(args.listen_fd);
    free(fds);
    free(table);
    return NULL;
}

ncclResult_t sim_boot_unique_id(ncclUniqueId *id)
{
    struct id_layout layout = {.magic = ID_MAGIC};
    struct root_args *args = NULL;
    pthread_attr_t attr;
    pthread_t thread;
    uint16_t port;
    int fd, err;

    fd = sim_socket_listen(&port);
    if (fd < 0)
        return sim_error(ncclSystemError,
                         "simnccl: ncclGetUniqueId: cannot listen on "
                         "127.0.0.1: %s",
                         strerror(errno));
    args = malloc(sizeof *args);
    if (!args) {
        close(fd);
        return sim_error(ncclSystemError, "simnccl: out of memory");
    }
    args->listen_fd = fd;
    args->nonce = random64();
    layout.nonce = args->nonce;
    layout.port = port;
    layout.root_pid = (int32_t)getpid();
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    err = pthread_create(&thread, &attr, root_main, args);
    pthread_attr_destroy(&attr);
    if (err) {
        close(fd);
        free(args);
        return sim_error(ncclSystemError,
                         "simnccl: ncclGetUniqueId: cannot start the "
                         "bootstrap thread: %s",
                         strerror(err));
    }
    memset(id, 0, sizeof *id);
    memcpy(id->internal, &layout, sizeof layout);
    return ncclSuccess;
}

/* ---- the mesh ---------------------------------------------------------- */

/* Connect to every lower rank, accept every higher one, once per channel.
 * Connections to a listener complete in its backlog, so no ordering between
 * ranks can deadlock. */
static ncclResult_t build_mesh(struct ncclComm *comm, int listen_fd,
                               const uint32_t *ports, int64_t deadline)
{
    const int me = comm->rank, n = comm->nranks;
    int j, channel, waiting = SIM_CHANNELS * (n - 1 - me);

    for (j = 0; j < me; j++) {
        for (channel = 0; channel < SIM_CHANNELS; channel++) {
            struct mesh_hello h = {.magic = MESH_MAGIC,
                                   .from = me,
                                   .to = j,
                                   .channel = channel,
                                   .nonce = comm->nonce};
            struct sim_conn *c = sim_comm_conn(comm, channel, j);
            int fd = sim_socket_connect((uint16_t)ports[j], deadline);

            if (fd < 0)
                return sim_error(ncclSystemError,
                                 "simnccl: rank %d: cannot connect to rank "
                                 "%d: %s",
                                 me, j, strerror(errno));
            c->send_fd = c->recv_fd = fd;
            if (sim_socket_send_all(fd, &h, sizeof h, deadline) != 0)
                return sim_error(ncclSystemError,
                                 "simnccl: rank %d: cannot greet rank %d: %s",
                                 me, j, strerror(errno));
        }
    }
    while (waiting > 0) {
        struct mesh_hello h;
        struct sim_conn *c;
        int fd = sim_socket_accept(listen_fd, deadline);

        if (fd < 0)
            return sim_error(ncclSystemError,
                             "simnccl: rank %d: %d connection(s) from higher "
                             "ranks never came: %s",
                             me, waiting, strerror(errno));
        if (sim_socket_recv_all(fd, &h, sizeof h, deadline) != 0 ||
            h.magic != MESH_MAGIC || h.nonce != comm->nonce || h.to != me ||
            h.from <= me || h.from >= n || h.channel < 0 ||
            h.channel >= SIM_CHANNELS ||
            sim_comm_conn(comm, h.channel, h.from)->send_fd >= 0) {
            close(fd); /* not one of ours */
            continue;
        }
        c = sim_comm_conn(comm, h.channel, h.from);
        c->send_fd = c->recv_fd = fd;
        waiting--;
    }
    return ncclSuccess;
}

/* Loop to self and pacing: the last touches of every new communicator. */
static ncclResult_t finish_comm(struct ncclComm *comm,
                                const struct sim_topo *t)
{
    if (sim_comm_open_self(comm) != 0)
        return sim_error(ncclSystemError,
                         "simnccl: cannot create a socketpair: %s",
                         strerror(errno));
    sim_comm_set_links(comm, t);
    return ncclSuccess;
}

ncclResult_t sim_boot_init_rank(struct ncclComm **out, int nranks,
                                const ncclUniqueId *id, int rank)
{
    const struct sim_topo *t = topology();
    int64_t deadline = sim_deadline_after(boot_timeout_s());
    struct id_layout layout;
    struct hello h = {.magic = HELLO_MAGIC};
    struct table_head head;
    struct table_entry *table = NULL;
    struct ncclComm *comm = NULL;
    uint32_t *ports = NULL;
    int listen_fd = -1, root_fd = -1, i;
    uint16_t port;
    ncclResult_t rc = ncclInvalidUsage;

    *out = NULL;
    if (!t)
        goto out;
    memcpy(&layout, id->internal, sizeof layout);
    if (memcmp(layout.magic, ID_MAGIC, sizeof layout.magic) != 0) {
        rc = sim_error(ncclInvalidArgument,
                       "simnccl: ncclCommInitRank: the unique id does not "
                       "come from simnccl's ncclGetUniqueId");
        goto out;
    }
    rc = ncclSystemError;
    comm = sim_comm_alloc(nranks, rank);
    table = calloc((size_t)nranks, sizeof *table);
    ports = calloc((size_t)nranks, sizeof *ports);
    if (!comm || !table || !ports) {
        sim_error(rc, "simnccl: out of memory for %d ranks", nranks);
        goto out;
    }
    listen_fd = sim_socket_listen(&port);
    if (listen_fd < 0) {
        sim_error(rc, "simnccl: rank %d: cannot listen: %s", rank,
                  strerror(errno));
        goto out;
    }
    root_fd = sim_socket_connect(layout.port, deadline);
    if (root_fd < 0) {
        sim_error(rc,
                  "simnccl: rank %d: cannot reach the bootstrap root at "
                  "127.0.0.1:%u (pid %d): %s",
                  rank, layout.port, (int)layout.root_pid, strerror(errno));
        goto out;
    }
    h.port = port;
    h.nonce = layout.nonce;
    h.nranks = nranks;
    h.rank = rank;
    copy_name(h.node, node_name());
    errno = 0;
    if (sim_socket_send_all(root_fd, &h, sizeof h, deadline) != 0 ||
        sim_socket_recv_all(root_fd, &head, sizeof head, deadline) != 0 ||
        head.magic != TABLE_MAGIC) {
        sim_error(rc,
                  "simnccl: rank %d: bootstrap failed: %s (did all %d ranks "
                  "call ncclCommInitRank with the same id?)",
                  rank, errno ? strerror(errno) : "bad reply", nranks);
        goto out;
    }
    if (head.status != TABLE_OK) {
        rc = sim_error(
            ncclInvalidUsage, "simnccl: rank %d: bootstrap refused: %s",
            rank,
            head.status == TABLE_NRANKS
                ? "ranks disagree on nranks"
                : head.status == TABLE_DUPLICATE ? "another rank has this rank"
                                                 : "rank out of range");
        goto out;
    }
    if (sim_socket_recv_all(root_fd, table, (size_t)nranks * sizeof *table,
                            deadline) != 0) {
        sim_error(rc, "simnccl: rank %d: bootstrap table lost: %s", rank,
                  strerror(errno));
        goto out;
    }
    for (i = 0; i < nranks; i++) {
        ports[i] = table[i].port;
        copy_name(comm->nodes[i], table[i].node);
    }
    comm->nonce = layout.nonce;
    comm->world_rank = world_rank(rank);
    comm->cuda_device = local_rank();
    comm->straggler_ns = sim_topo_straggler_delay(t, comm->world_rank);
    rc = build_mesh(comm, listen_fd, ports, deadline);
    if (rc != ncclSuccess)
        goto out;
    rc = finish_comm(comm, t);
    if (rc != ncclSuccess)
        goto out;
    *out = comm;
    comm = NULL;
out:
    if (listen_fd >= 0)
        close(listen_fd);
    if (root_fd >= 0)
        close(root_fd);
    sim_comm_free(comm);
    free(table);
    free(ports);
    return rc;
}

ncclResult_t sim_boot_init_all(struct ncclComm **comms, int ndev,
                               const int *devlist)
{
    const struct sim_topo *t = topology();
    struct sim_clique *clique = NULL;
    uint64_t nonce = random64();
    ncclResult_t rc = ncclSystemError;
    int i, j;

    if (ndev < 1)
        return sim_error(ncclInvalidArgument, "simnccl: ndev %d", ndev);
    for (i = 0; i < ndev; i++)
        comms[i] = NULL;
    if (!t)
        return ncclInvalidUsage;
    clique = calloc(1, sizeof *clique);
    if (!clique || !(clique->members = calloc((size_t)ndev,
                                              sizeof *clique->members))) {
        sim_error(rc, "simnccl: out of memory");
        goto fail;
    }
    for (i = 0; i < ndev; i++) {
        comms[i] = sim_comm_alloc(ndev, i);
        if (!comms[i]) {
            sim_error(rc, "simnccl: out of memory");
            goto fail;
        }
        for (j = 0; j < ndev; j++)
            copy_name(comms[i]->nodes[j], node_name());
        comms[i]->nonce = nonce;
        comms[i]->world_rank = i;
        comms[i]->cuda_device = devlist ? devlist[i] : i;
        comms[i]->straggler_ns = sim_topo_straggler_delay(t, i);
    }
    for (i = 0; i < ndev; i++) {
        for (j = i + 1; j < ndev; j++) {
            int channel;
            for (channel = 0; channel < SIM_CHANNELS; channel++) {
                struct sim_conn *a = sim_comm_conn(comms[i], channel, j);
                struct sim_conn *b = sim_comm_conn(comms[j], channel, i);
                int sv[2];
                if (socketpair(AF_UNIX,
                               SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                               sv) != 0) {
                    sim_error(rc, "simnccl: cannot create a socketpair: %s",
                              strerror(errno));
                    goto fail;
                }
                a->send_fd = a->recv_fd = sv[0];
                b->send_fd = b->recv_fd = sv[1];
            }
        }
        rc = finish_comm(comms[i], t);
        if (rc != ncclSuccess)
            goto fail;
        rc = ncclSystemError;
    }
    clique->size = clique->live = ndev;
    for (i = 0; i < ndev; i++) {
        clique->members[i] = comms[i];
        comms[i]->clique = clique;
    }
    return ncclSuccess;
fail:
    for (i = 0; i < ndev; i++) {
        sim_comm_free(comms[i]);
        comms[i] = NULL;
    }
    if (clique)
        free(clique->members);
    free(clique);
    return rc;
}

/* ---- split and shrink -------------------------------------------------- */

struct split_entry {
    int32_t color;
    int32_t key;
    uint32_t port;
    int32_t pad;
};

/* Every member sends its entry to every other member over the parent's
 * connections (unpaced: bootstrap is not part of the simulated cost). */
static ncclResult_t exchange(struct ncclComm *parent, const int *members,
                             int n_members, const struct split_entry *mine,
                             struct split_entry *all)
{
    struct sim_plan *plan = sim_plan_create(parent);
    ncclResult_t rc;
    int i;

    if (!plan)
        return sim_error(ncclSystemError, "simnccl: out of memory");
    for (i = 0; i < n_members; i++) {
        if (members[i] == parent->rank) {
            all[i] = *mine;
            continue;
        }
        sim_plan_send(plan, members[i], mine, sizeof *mine, SIM_STEP_UNPACED);
        sim_plan_recv(plan, members[i], &all[i], sizeof *all,
                      SIM_STEP_UNPACED);
    }
    sim_plan_wait(plan);
    if (sim_plan_failed(plan))
        rc = sim_error(ncclSystemError, "simnccl: out of memory");
    else
        rc = sim_exec_run(&plan, 1);
    sim_plan_destroy(plan);
    return rc;
}

/* A communicator of the parent ranks members[0..n) (new rank = index),
 * meshed through listen_fd and the members' ports. */
static ncclResult_t make_child(struct ncclComm *parent, const int *members,
                               int n, int listen_fd, const uint32_t *ports,
                               uint64_t nonce, struct ncclComm **out)
{
    const struct sim_topo *t = topology();
    struct ncclComm *comm = NULL;
    ncclResult_t rc = ncclSystemError;
    int i, me = -1;

    if (!t)
        return ncclInvalidUsage;
    for (i = 0; i < n; i++)
        if (members[i] == parent->rank)
            me = i;
    comm = sim_comm_alloc(n, me);
    if (!comm) {
        sim_error(rc, "simnccl: out of memory");
        goto out;
    }
    for (i = 0; i < n; i++)
        memcpy(comm->nodes[i], parent->nodes[members[i]],
               sizeof comm->nodes[i]);
    comm->nonce = nonce;
    comm->world_rank = parent->world_rank;
    comm->cuda_device = parent->cuda_device;
    comm->straggler_ns = parent->straggler_ns;
    rc = build_mesh(comm, listen_fd, ports,
                    sim_deadline_after(boot_timeout_s()));
    if (rc != ncclSuccess)
        goto out;
    rc = finish_comm(comm, t);
    if (rc != ncclSuccess)
        goto out;
    *out = comm;
    comm = NULL;
out:
    sim_comm_free(comm);
    return rc;
}

struct order {
    int key;
    int rank;
};

static int by_key_then_rank(const void *a, const void *b)
{
    const struct order *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

ncclResult_t sim_boot_split(struct ncclComm *parent, int color, int key,
                            struct ncclComm **out)
{
    const int n = parent->nranks;
    struct split_entry mine = {.color = color, .key = key};
    struct split_entry *all = calloc((size_t)n, sizeof *all);
    struct order *order = calloc((size_t)n, sizeof *order);
    int *members = calloc((size_t)n, sizeof *members);
    uint32_t *ports = calloc((size_t)n, sizeof *ports);
    ncclResult_t rc = ncclSystemError;
    int listen_fd = -1, i, m = 0;
    uint64_t seq;
    uint16_t port = 0;

    *out = NULL;
    if (!all || !order || !members || !ports) {
        sim_error(rc, "simnccl: out of memory");
        goto out;
    }
    for (i = 0; i < n; i++)
        members[i] = i;
    if (color != NCCL_SPLIT_NOCOLOR) {
        listen_fd = sim_socket_listen(&port);
        if (listen_fd < 0) {
            sim_error(rc, "simnccl: ncclCommSplit: cannot listen: %s",
                      strerror(errno));
            goto out;
        }
    }
    mine.port = port;
    rc = exchange(parent, members, n, &mine, all);
    if (rc != ncclSuccess)
        goto out;
    seq = parent->split_seq++;
    if (color == NCCL_SPLIT_NOCOLOR)
        goto out;
    for (i = 0; i < n; i++)
        if (all[i].color == color)
            order[m++] = (struct order){.key = all[i].key, .rank = i};
    qsort(order, (size_t)m, sizeof *order, by_key_then_rank);
    for (i = 0; i < m; i++) {
        members[i] = order[i].rank;
        ports[i] = all[order[i].rank].port;
    }
    rc = make_child(parent, members, m, listen_fd, ports,
                    mix64(parent->nonce ^ mix64(seq) ^
                          ((uint64_t)(uint32_t)color << 32)),
                    out);
out:
    if (listen_fd >= 0)
        close(listen_fd);
    free(all);
    free(order);
    free(members);
    free(ports);
    return rc;
}

ncclResult_t sim_boot_shrink(struct ncclComm *parent, const int *exclude,
                             int n_exclude, struct ncclComm **out)
{
    const int n = parent->nranks;
    struct split_entry mine = {0};
    struct split_entry *all = calloc((size_t)n, sizeof *all);
    int *members = calloc((size_t)n, sizeof *members);
    unsigned char *gone = calloc((size_t)n, 1);
    uint32_t *ports = calloc((size_t)n, sizeof *ports);
    ncclResult_t rc = ncclSystemError;
    int listen_fd = -1, i, m = 0;
    uint64_t seq;
    uint16_t port;

    *out = NULL;
    if (!all || !members || !gone || !ports) {
        sim_error(rc, "simnccl: out of memory");
        goto out;
    }
    for (i = 0; i < n_exclude; i++)
        gone[exclude[i]] = 1;
    for (i = 0; i < n; i++)
        if (!gone[i])
            members[m++] = i;
    listen_fd = sim_socket_listen(&port);
    if (listen_fd < 0) {
        sim_error(rc, "simnccl: ncclCommShrink: cannot listen: %s",
                  strerror(errno));
        goto out;
    }
    mine.port = port;
    rc = exchange(parent, members, m, &mine, all);
    if (rc != ncclSuccess)
        goto out;
    seq = parent->split_seq++;
    for (i = 0; i < m; i++)
        ports[i] = all[i].port;
    rc = make_child(parent, members, m, listen_fd, ports,
                    mix64(parent->nonce ^ mix64(seq) ^ 0x5348524bULL), out);
out:
    if (listen_fd >= 0)
        close(listen_fd);
    free(all);
    free(members);
    free(gone);
    free(ports);
    return rc;
}
