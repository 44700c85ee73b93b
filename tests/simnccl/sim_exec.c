/* sim_exec.c - plans of steps and the ppoll progress engine. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "sim_comm.h"
#include "sim_dtype.h"
#include "sim_error.h"
#include "sim_exec.h"
#include "sim_prof.h"
#include "sim_socket.h"

#define WIRE_MAGIC 0x534d5347u /* "SMSG" */

/* Precedes every message.  Both ends are processes of one machine, so the
 * fields travel in host byte order. */
struct wire_header {
    uint32_t magic;
    uint32_t flags;
    uint64_t bytes;
    int64_t deliver_ns; /* CLOCK_MONOTONIC time the receiver may finish */
};

enum step_kind {
    STEP_SEND,
    STEP_RECV,
    STEP_COPY,
    STEP_REDUCE,
    STEP_DIVIDE,
    STEP_WAIT,
    STEP_DELAY,
    STEP_SYNCED /* the initial sync is over (sim_plan_sync) */
};

enum step_state {
    STATE_NEW,    /* not reached yet */
    STATE_MOVING, /* posted: bytes still to move */
    STATE_TIMED,  /* bytes moved, waiting for the paced completion time */
    STATE_DONE
};

struct sim_step {
    enum step_kind kind;
    int flags;
    int peer;
    void *dst;
    const void *a, *b;
    size_t bytes;
    size_t count;
    ncclDataType_t datatype;
    ncclRedOp_t op;
    int divisor;
    int64_t delay_ns;

    /* Run time. */
    enum step_state state;
    size_t moved; /* header + data bytes moved so far */
    struct wire_header hdr;
    int64_t ready_ns;
    struct sim_step *next; /* in the connection's queue */
    struct sim_plan *plan;

    /* The profiler plugin's view (sim_prof.h). */
    int op_index; /* the operation of the group that built it */
    int prof_op;  /* its proxy operation in plan->prof_ops, -1 none */
    int prof_no;  /* its step number there */
    void *prof_step;
};

/* A proxy operation: the transfers of one operation to/from one peer. */
struct prof_op {
    int op_index, peer, is_send, nsteps, next_no;
    size_t chunk;
    void *handle;
};

struct sim_plan {
    struct ncclComm *comm;
    struct sim_step *steps;
    size_t n_steps, cap_steps;
    void **scratch;
    size_t n_scratch, cap_scratch;
    int failed; /* an allocation failed while building */
    int sync;   /* starts with the initial sync (sim_plan_sync) */

    /* Run time. */
    size_t pc;         /* next step to reach */
    size_t first_open; /* every step before it is done */
    int open_coll;     /* posted collective transfers not done */
    int open_p2p;      /* posted ncclSend/ncclRecv transfers not done */
    int timed;         /* steps in STATE_TIMED */
    int delaying;
    int64_t delay_until;

    /* Profiler events, when a plugin is loaded. */
    void **prof_tasks; /* [n_prof_tasks], the caller's */
    size_t n_prof_tasks;
    void **prof_kch; /* kernel-channel handle per task */
    struct prof_op *prof_ops;
    size_t n_prof_ops;
};

struct sim_plan *sim_plan_create(struct ncclComm *comm)
{
    struct sim_plan *plan = calloc(1, sizeof *plan);

    if (plan)
        plan->comm = comm;
    return plan;
}

void sim_plan_destroy(struct sim_plan *plan)
{
    size_t i;

    if (!plan)
        return;
    for (i = 0; i < plan->n_scratch; i++)
        free(plan->scratch[i]);
    free(plan->scratch);
    free(plan->steps);
    free(plan);
}

size_t sim_plan_nsteps(const struct sim_plan *plan)
{
    return plan->n_steps;
}

void sim_plan_tag(struct sim_plan *plan, size_t from, int op_index)
{
    for (; from < plan->n_steps; from++)
        plan->steps[from].op_index = op_index;
}

void sim_plan_profile(struct sim_plan *plan, void **tasks, size_t n)
{
    plan->prof_tasks = tasks;
    plan->n_prof_tasks = n;
}

/* Group the plan's transfers into proxy operations and start the kernel
 * channels: the "kernel" of each task starts now. */
static void prof_setup(struct sim_plan *plan)
{
    size_t i, j;

    if (!plan->prof_tasks)
        return;
    plan->prof_ops = calloc(plan->n_steps ? plan->n_steps : 1,
                            sizeof *plan->prof_ops);
    plan->prof_kch = calloc(plan->n_prof_tasks, sizeof *plan->prof_kch);
    if (!plan->prof_ops || !plan->prof_kch) {
        free(plan->prof_ops);
        free(plan->prof_kch);
        plan->prof_ops = NULL;
        plan->prof_kch = NULL;
        plan->prof_tasks = NULL;
        return;
    }
    for (i = 0; i < plan->n_steps; i++) {
        struct sim_step *s = &plan->steps[i];
        int send = s->kind == STEP_SEND;

        s->prof_op = -1;
        s->prof_step = NULL;
        if ((s->kind != STEP_SEND && s->kind != STEP_RECV) ||
            (s->flags & SIM_STEP_UNPACED) || s->peer == plan->comm->rank ||
            s->op_index < 0 || (size_t)s->op_index >= plan->n_prof_tasks ||
            !plan->prof_tasks[s->op_index])
            continue;
        for (j = 0; j < plan->n_prof_ops; j++)
            if (plan->prof_ops[j].op_index == s->op_index &&
                plan->prof_ops[j].peer == s->peer &&
                plan->prof_ops[j].is_send == send)
                break;
        if (j == plan->n_prof_ops) {
            plan->prof_ops[j].op_index = s->op_index;
            plan->prof_ops[j].peer = s->peer;
            plan->prof_ops[j].is_send = send;
            plan->n_prof_ops++;
        }
        s->prof_op = (int)j;
        s->prof_no = plan->prof_ops[j].nsteps++;
        if (s->bytes > plan->prof_ops[j].chunk)
            plan->prof_ops[j].chunk = s->bytes;
    }
    for (i = 0; i < plan->n_prof_tasks; i++)
        plan->prof_kch[i] = sim_prof_kernel_start(
            plan->comm, plan->prof_tasks[i], plan->sync);
}

/* Every rank has reached the collective: the kernels' sync is over. */
static void prof_synced(struct sim_plan *plan)
{
    size_t i;

    if (!plan->prof_kch)
        return;
    for (i = 0; i < plan->n_prof_tasks; i++)
        sim_prof_kernel_synced(plan->comm, plan->prof_kch[i]);
}

/* The kernels end, the proxy operations stop. */
static void prof_teardown(struct sim_plan *plan)
{
    size_t i;

    if (!plan->prof_tasks)
        return;
    for (i = 0; i < plan->n_prof_ops; i++)
        sim_prof_proxy_stop(plan->prof_ops[i].handle);
    for (i = 0; i < plan->n_prof_tasks; i++)
        sim_prof_kernel_stop(plan->prof_kch[i]);
    free(plan->prof_ops);
    free(plan->prof_kch);
    plan->prof_ops = NULL;
    plan->prof_kch = NULL;
    plan->n_prof_ops = 0;
}

static void prof_posted(struct sim_plan *plan, struct sim_step *s)
{
    struct prof_op *op;
    int send = s->kind == STEP_SEND;

    if (!plan->prof_ops || s->prof_op < 0)
        return;
    op = &plan->prof_ops[s->prof_op];
    if (!op->handle)
        op->handle = sim_prof_proxy_start(plan->comm,
                                          plan->prof_tasks[op->op_index],
                                          op->peer, send, op->nsteps,
                                          op->chunk);
    s->prof_step =
        sim_prof_step_start(plan->comm, op->handle, s->prof_no, send, s->bytes);
    sim_prof_step_posted(s->prof_step, send, s->bytes);
}

struct ncclComm *sim_plan_comm(const struct sim_plan *plan)
{
    return plan->comm;
}

int sim_plan_failed(const struct sim_plan *plan)
{
    return plan->failed;
}

void *sim_plan_scratch(struct sim_plan *plan, size_t bytes)
{
    void *buf = NULL;

    if (plan->failed)
        return NULL;
    if (plan->n_scratch == plan->cap_scratch) {
        size_t cap = plan->cap_scratch ? plan->cap_scratch * 2 : 4;
        void **bigger = realloc(plan->scratch, cap * sizeof *bigger);
        if (!bigger)
            goto out;
        plan->scratch = bigger;
        plan->cap_scratch = cap;
    }
    buf = malloc(bytes ? bytes : 1);
    if (buf)
        plan->scratch[plan->n_scratch++] = buf;
out:
    if (!buf)
        plan->failed = 1;
    return buf;
}

static struct sim_step *append(struct sim_plan *plan, enum step_kind kind)
{
    struct sim_step *s;

    if (plan->failed)
        return NULL;
    if (plan->n_steps == plan->cap_steps) {
        size_t cap = plan->cap_steps ? plan->cap_steps * 2 : 16;
        struct sim_step *bigger = realloc(plan->steps, cap * sizeof *bigger);
        if (!bigger) {
            plan->failed = 1;
            return NULL;
        }
        plan->steps = bigger;
        plan->cap_steps = cap;
    }
    s = &plan->steps[plan->n_steps++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->op_index = -1;
    s->prof_op = -1;
    return s;
}

int sim_plan_send(struct sim_plan *plan, int peer, const void *buf,
                  size_t bytes, int flags)
{
    struct sim_step *s = append(plan, STEP_SEND);

    if (!s)
        return -1;
    s->peer = peer;
    s->a = buf;
    s->bytes = bytes;
    s->flags = flags;
    return 0;
}

int sim_plan_recv(struct sim_plan *plan, int peer, void *buf, size_t bytes,
                  int flags)
{
    struct sim_step *s = append(plan, STEP_RECV);

    if (!s)
        return -1;
    s->peer = peer;
    s->dst = buf;
    s->bytes = bytes;
    s->flags = flags;
    return 0;
}

int sim_plan_copy(struct sim_plan *plan, void *dst, const void *src,
                  size_t bytes)
{
    struct sim_step *s;

    if (dst == src || bytes == 0)
        return 0;
    s = append(plan, STEP_COPY);
    if (!s)
        return -1;
    s->dst = dst;
    s->a = src;
    s->bytes = bytes;
    return 0;
}

int sim_plan_reduce(struct sim_plan *plan, void *dst, const void *a,
                    const void *b, size_t count, ncclDataType_t datatype,
                    ncclRedOp_t op)
{
    struct sim_step *s;

    if (count == 0)
        return 0;
    s = append(plan, STEP_REDUCE);
    if (!s)
        return -1;
    s->dst = dst;
    s->a = a;
    s->b = b;
    s->count = count;
    s->datatype = datatype;
    s->op = op;
    return 0;
}

int sim_plan_divide(struct sim_plan *plan, void *buf, size_t count,
                    ncclDataType_t datatype, int divisor)
{
    struct sim_step *s;

    if (count == 0 || divisor <= 1)
        return 0;
    s = append(plan, STEP_DIVIDE);
    if (!s)
        return -1;
    s->dst = buf;
    s->count = count;
    s->datatype = datatype;
    s->divisor = divisor;
    return 0;
}

int sim_plan_wait(struct sim_plan *plan)
{
    return append(plan, STEP_WAIT) ? 0 : -1;
}

int sim_plan_delay(struct sim_plan *plan, int64_t ns)
{
    struct sim_step *s;

    if (ns <= 0)
        return 0;
    s = append(plan, STEP_DELAY);
    if (!s)
        return -1;
    s->delay_ns = ns;
    return 0;
}

int sim_plan_sync(struct sim_plan *plan)
{
    int n = plan->comm->nranks, r = plan->comm->rank, d;

    /* round d: tell rank r+d, hear from rank r-d; after the last round
     * every rank has heard, directly or not, from all of them */
    for (d = 1; d < n; d *= 2) {
        sim_plan_send(plan, (r + d) % n, NULL, 0, SIM_STEP_UNPACED);
        sim_plan_recv(plan, (r - d + n) % n, NULL, 0, SIM_STEP_UNPACED);
        sim_plan_wait(plan);
    }
    if (!append(plan, STEP_SYNCED))
        return -1;
    plan->sync = 1;
    return plan->failed ? -1 : 0;
}

/* ---- the engine -------------------------------------------------------- */

struct engine {
    struct sim_conn **active; /* connections with posted transfers */
    size_t n_active, cap_active;
    struct pollfd *pfd;
    struct sim_conn **pconn;
    size_t cap_poll;
    int64_t last_progress;
};

static int activate(struct engine *eng, struct sim_conn *conn)
{
    if (conn->active)
        return 0;
    if (eng->n_active == eng->cap_active) {
        size_t cap = eng->cap_active ? eng->cap_active * 2 : 16;
        struct sim_conn **bigger = realloc(eng->active, cap * sizeof *bigger);
        if (!bigger)
            return -1;
        eng->active = bigger;
        eng->cap_active = cap;
    }
    eng->active[eng->n_active++] = conn;
    conn->active = 1;
    return 0;
}

static void enqueue(struct sim_step **head, struct sim_step **tail,
                    struct sim_step *s)
{
    s->next = NULL;
    if (*tail)
        (*tail)->next = s;
    else
        *head = s;
    *tail = s;
}

static void dequeue(struct sim_step **head, struct sim_step **tail)
{
    *head = (*head)->next;
    if (!*head)
        *tail = NULL;
}

static ncclResult_t post(struct engine *eng, struct sim_plan *plan,
                         struct sim_step *s, int64_t now)
{
    const int channel =
        (s->flags & SIM_STEP_P2P) ? SIM_CHANNEL_P2P : SIM_CHANNEL_COLL;
    struct sim_conn *conn = sim_comm_conn(plan->comm, channel, s->peer);
    struct sim_link *link = &plan->comm->links[s->peer];

    s->plan = plan;
    s->state = STATE_MOVING;
    s->moved = 0;
    s->ready_ns = 0;
    if (s->kind == STEP_SEND) {
        s->hdr.magic = WIRE_MAGIC;
        s->hdr.flags = (uint32_t)s->flags;
        s->hdr.bytes = s->bytes;
        s->hdr.deliver_ns = 0;
        if (link->paced && !(s->flags & SIM_STEP_UNPACED)) {
            int64_t start = now > link->free_ns ? now : link->free_ns;
            int64_t wire;
            if (now >= link->change_ns)
                sim_comm_update_link(plan->comm, s->peer, now);
            wire =
                (int64_t)((double)s->bytes * 1e9 / link->params.bandwidth);
            link->free_ns = start + wire;
            s->ready_ns = link->free_ns;
            s->hdr.deliver_ns = link->free_ns + link->params.latency_ns;
        }
        enqueue(&conn->send_head, &conn->send_tail, s);
    } else {
        enqueue(&conn->recv_head, &conn->recv_tail, s);
    }
    if (s->flags & SIM_STEP_P2P)
        plan->open_p2p++;
    else
        plan->open_coll++;
    prof_posted(plan, s);
    if (activate(eng, conn) != 0)
        return sim_error(ncclSystemError, "simnccl: out of memory");
    return ncclSuccess;
}

static void moved_all(struct sim_step *s)
{
    s->state = STATE_TIMED;
    s->plan->timed++;
}

static void complete(struct sim_plan *plan, struct sim_step *s)
{
    s->state = STATE_DONE;
    plan->timed--;
    if (s->prof_step) {
        sim_prof_step_done(s->prof_step, s->kind == STEP_SEND, s->bytes);
        s->prof_step = NULL;
    }
    if (s->flags & SIM_STEP_P2P)
        plan->open_p2p--;
    else
        plan->open_coll--;
}

static int plan_done(const struct sim_plan *plan)
{
    return plan->pc == plan->n_steps && plan->open_coll == 0 &&
           plan->open_p2p == 0;
}

/* Finish what the clock allows, run local steps, post transfers, up to the
 * next wait that cannot pass.  *wake is lowered to the next time this plan
 * needs the clock. */
static ncclResult_t advance(struct engine *eng, struct sim_plan *plan,
                            int64_t *wake)
{
    int64_t now = sim_now_ns();
    ncclResult_t rc;
    size_t i;

    if (plan->timed > 0) {
        for (i = plan->first_open; i < plan->pc; i++) {
            struct sim_step *s = &plan->steps[i];
            if (s->state != STATE_TIMED)
                continue;
            if (s->ready_ns <= now) {
                complete(plan, s);
                eng->last_progress = now;
            } else if (s->ready_ns < *wake) {
                *wake = s->ready_ns;
            }
        }
    }
    while (plan->first_open < plan->pc &&
           plan->steps[plan->first_open].state == STATE_DONE)
        plan->first_open++;

    while (plan->pc < plan->n_steps) {
        struct sim_step *s = &plan->steps[plan->pc];
        switch (s->kind) {
        case STEP_SEND:
        case STEP_RECV:
            rc = post(eng, plan, s, now);
            if (rc != ncclSuccess)
                return rc;
            plan->pc++;
            continue;
        case STEP_COPY:
            memmove(s->dst, s->a, s->bytes);
            break;
        case STEP_REDUCE:
            sim_dtype_reduce(s->dst, s->a, s->b, s->count, s->datatype, s->op);
            break;
        case STEP_DIVIDE:
            sim_dtype_divide(s->dst, s->count, s->datatype, s->divisor);
            break;
        case STEP_WAIT:
            if (plan->open_coll > 0)
                return ncclSuccess;
            break;
        case STEP_SYNCED:
            prof_synced(plan);
            break;
        case STEP_DELAY:
            if (!plan->delaying) {
                plan->delaying = 1;
                plan->delay_until = now + s->delay_ns;
            }
            if (now < plan->delay_until) {
                if (plan->delay_until < *wake)
                    *wake = plan->delay_until;
                return ncclSuccess;
            }
            plan->delaying = 0;
            break;
        }
        /* Local work takes real time: later sends start from now. */
        s->state = STATE_DONE;
        plan->pc++;
        now = sim_now_ns();
        eng->last_progress = now;
    }
    return ncclSuccess;
}

static ncclResult_t do_send(struct engine *eng, struct sim_conn *conn,
                            int rank)
{
    struct sim_step *s;

    while ((s = conn->send_head) != NULL) {
        const size_t hsize = sizeof s->hdr;
        struct iovec iov[2];
        struct msghdr msg = {.msg_iov = iov};
        ssize_t n;

        if (s->moved < hsize) {
            iov[0].iov_base = (char *)&s->hdr + s->moved;
            iov[0].iov_len = hsize - s->moved;
            iov[1].iov_base = (void *)s->a;
            iov[1].iov_len = s->bytes;
            msg.msg_iovlen = s->bytes ? 2 : 1;
        } else {
            iov[0].iov_base = (char *)s->a + (s->moved - hsize);
            iov[0].iov_len = s->bytes - (s->moved - hsize);
            msg.msg_iovlen = 1;
        }
        n = sendmsg(conn->send_fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return ncclSuccess;
            return sim_error(ncclRemoteError,
                             "simnccl: rank %d: sending to rank %d failed: "
                             "%s (did that process exit?)",
                             rank, conn->peer, strerror(errno));
        }
        s->moved += (size_t)n;
        eng->last_progress = sim_now_ns();
        if (s->moved == hsize + s->bytes) {
            dequeue(&conn->send_head, &conn->send_tail);
            moved_all(s);
        }
    }
    return ncclSuccess;
}

static ncclResult_t do_recv(struct engine *eng, struct sim_conn *conn,
                            int rank)
{
    struct sim_step *s;

    while ((s = conn->recv_head) != NULL) {
        const size_t hsize = sizeof s->hdr;
        ssize_t n = 0;

        if (s->moved < hsize)
            n = recv(conn->recv_fd, (char *)&s->hdr + s->moved,
                     hsize - s->moved, MSG_DONTWAIT);
        else if (s->moved < hsize + s->bytes)
            n = recv(conn->recv_fd, (char *)s->dst + (s->moved - hsize),
                     s->bytes - (s->moved - hsize), MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return ncclSuccess;
            return sim_error(ncclRemoteError,
                             "simnccl: rank %d: receiving from rank %d "
                             "failed: %s (did that process exit?)",
                             rank, conn->peer, strerror(errno));
        }
        if (n == 0 && s->moved < hsize + s->bytes)
            return sim_error(ncclRemoteError,
                             "simnccl: rank %d: rank %d closed the "
                             "connection (did that process exit?)",
                             rank, conn->peer);
        if (s->moved < hsize && s->moved + (size_t)n == hsize) {
            if (s->hdr.magic != WIRE_MAGIC)
                return sim_error(ncclInternalError,
                                 "simnccl: rank %d: corrupt message from "
                                 "rank %d",
                                 rank, conn->peer);
            if (s->hdr.bytes != s->bytes)
                return sim_error(
                    ncclRemoteError,
                    "simnccl: rank %d: rank %d sent %llu bytes where %zu "
                    "were expected (the two ranks called different "
                    "operations, counts or types)",
                    rank, conn->peer, (unsigned long long)s->hdr.bytes,
                    s->bytes);
        }
        s->moved += (size_t)n;
        eng->last_progress = sim_now_ns();
        if (s->moved == hsize + s->bytes) {
            s->ready_ns = s->hdr.deliver_ns;
            dequeue(&conn->recv_head, &conn->recv_tail);
            moved_all(s);
        }
    }
    return ncclSuccess;
}

static int grow_poll(struct engine *eng, size_t need)
{
    struct pollfd *pfd;
    struct sim_conn **pconn;
    size_t cap;

    if (need <= eng->cap_poll)
        return 0;
    cap = need * 2;
    pfd = realloc(eng->pfd, cap * sizeof *pfd);
    if (!pfd)
        return -1;
    eng->pfd = pfd;
    pconn = realloc(eng->pconn, cap * sizeof *pconn);
    if (!pconn)
        return -1;
    eng->pconn = pconn;
    eng->cap_poll = cap;
    return 0;
}

/* Poll entries for the active connections; idle ones leave the list. */
static ncclResult_t build_poll(struct engine *eng, size_t *n_out)
{
    size_t i, kept = 0, n = 0;

    if (grow_poll(eng, eng->n_active * 2 + 1) != 0)
        return sim_error(ncclSystemError, "simnccl: out of memory");
    for (i = 0; i < eng->n_active; i++) {
        struct sim_conn *c = eng->active[i];
        short out = c->send_head ? POLLOUT : 0;
        short in = c->recv_head ? POLLIN : 0;

        if (!out && !in) {
            c->active = 0;
            continue;
        }
        eng->active[kept++] = c;
        if (c->send_fd == c->recv_fd) {
            eng->pfd[n] = (struct pollfd){.fd = c->send_fd, .events = in | out};
            eng->pconn[n++] = c;
            continue;
        }
        if (out) {
            eng->pfd[n] = (struct pollfd){.fd = c->send_fd, .events = out};
            eng->pconn[n++] = c;
        }
        if (in) {
            eng->pfd[n] = (struct pollfd){.fd = c->recv_fd, .events = in};
            eng->pconn[n++] = c;
        }
    }
    eng->n_active = kept;
    *n_out = n;
    return ncclSuccess;
}

static double stall_limit_s(void)
{
    const char *s = getenv("SIMNCCL_TIMEOUT");
    double v;

    if (!s || !*s)
        return 0;
    v = strtod(s, NULL);
    return v > 0 ? v : 0;
}

/* In-process communicators (ncclCommInitAll) only move bytes when the
 * calling thread drives both ends: each peer they talk to must be here. */
static ncclResult_t check_cliques(struct sim_plan **plans, int n)
{
    int i, j;
    size_t k;

    for (i = 0; i < n; i++) {
        struct ncclComm *comm = plans[i]->comm;
        if (!comm->clique)
            continue;
        for (k = 0; k < plans[i]->n_steps; k++) {
            const struct sim_step *s = &plans[i]->steps[k];
            struct ncclComm *peer;
            int found = 0;

            if ((s->kind != STEP_SEND && s->kind != STEP_RECV) ||
                s->peer == comm->rank)
                continue;
            peer = comm->clique->members[s->peer];
            for (j = 0; j < n && !found; j++)
                found = plans[j]->comm == peer;
            if (!found)
                return sim_error(
                    ncclInvalidUsage,
                    "simnccl: communicator of rank %d (ncclCommInitAll) "
                    "talks to rank %d, whose communicator has no operation "
                    "in the same group: one thread drives them all, so call "
                    "every rank's operation between ncclGroupStart and "
                    "ncclGroupEnd",
                    comm->rank, s->peer);
        }
    }
    return ncclSuccess;
}

static void reset_queues(struct ncclComm *comm)
{
    int i;

    for (i = 0; i < SIM_CHANNELS * comm->nranks; i++) {
        struct sim_conn *c = &comm->conns[i];
        c->send_head = c->send_tail = NULL;
        c->recv_head = c->recv_tail = NULL;
        c->active = 0;
    }
}

ncclResult_t sim_exec_run(struct sim_plan **plans, int n)
{
    struct engine eng = {0};
    double stall_s = stall_limit_s();
    ncclResult_t rc;
    int i;

    rc = check_cliques(plans, n);
    if (rc != ncclSuccess)
        return rc;
    for (i = 0; i < n; i++) {
        plans[i]->pc = plans[i]->first_open = 0;
        plans[i]->open_coll = plans[i]->open_p2p = plans[i]->timed = 0;
        plans[i]->delaying = 0;
        prof_setup(plans[i]);
    }
    eng.last_progress = sim_now_ns();
    for (;;) {
        int64_t wake = INT64_MAX, now;
        struct timespec ts, *tsp = NULL;
        size_t n_poll = 0, k;
        int all_done = 1, got;

        for (i = 0; i < n; i++) {
            rc = advance(&eng, plans[i], &wake);
            if (rc != ncclSuccess)
                goto fail;
            all_done &= plan_done(plans[i]);
        }
        if (all_done)
            break;
        rc = build_poll(&eng, &n_poll);
        if (rc != ncclSuccess)
            goto fail;
        if (n_poll == 0 && wake == INT64_MAX) {
            rc = sim_error(ncclInternalError,
                           "simnccl: engine stuck: no transfer and no timer "
                           "pending");
            goto fail;
        }
        now = sim_now_ns();
        if (stall_s > 0 && wake - now > 1000000000)
            wake = now + 1000000000; /* look at the watchdog each second */
        if (wake != INT64_MAX) {
            int64_t left = wake > now ? wake - now : 0;
            ts.tv_sec = (time_t)(left / 1000000000);
            ts.tv_nsec = (long)(left % 1000000000);
            tsp = &ts;
        }
        got = ppoll(eng.pfd, (nfds_t)n_poll, tsp, NULL);
        if (got < 0 && errno != EINTR) {
            rc = sim_error(ncclSystemError, "simnccl: ppoll failed: %s",
                           strerror(errno));
            goto fail;
        }
        for (k = 0; got > 0 && k < n_poll; k++) {
            struct sim_conn *c = eng.pconn[k];
            short re = eng.pfd[k].revents;
            int rank = plans[0]->comm->rank;

            if (!re)
                continue;
            if (re & POLLNVAL) {
                rc = sim_error(ncclInternalError,
                               "simnccl: connection to rank %d is closed",
                               c->peer);
                goto fail;
            }
            /* Find the owner's rank for messages: the connection lives in
             * its communicator's array. */
            for (i = 0; i < n; i++)
                if (c >= plans[i]->comm->conns &&
                    c < plans[i]->comm->conns +
                            SIM_CHANNELS * plans[i]->comm->nranks)
                    rank = plans[i]->comm->rank;
            if (eng.pfd[k].fd == c->send_fd && c->send_head &&
                (re & (POLLOUT | POLLERR | POLLHUP))) {
                rc = do_send(&eng, c, rank);
                if (rc != ncclSuccess)
                    goto fail;
            }
            if (eng.pfd[k].fd == c->recv_fd && c->recv_head &&
                (re & (POLLIN | POLLERR | POLLHUP))) {
                rc = do_recv(&eng, c, rank);
                if (rc != ncclSuccess)
                    goto fail;
            }
        }
        if (stall_s > 0 &&
            sim_now_ns() - eng.last_progress > (int64_t)(stall_s * 1e9)) {
            rc = sim_error(ncclSystemError,
                           "simnccl: no progress for %g s (SIMNCCL_TIMEOUT): "
                           "a peer is missing or called another operation",
                           stall_s);
            goto fail;
        }
    }
    rc = ncclSuccess;
    goto out;
fail:
    for (i = 0; i < n; i++) {
        reset_queues(plans[i]->comm);
        if (plans[i]->comm->async_error == ncclSuccess)
            plans[i]->comm->async_error = rc;
    }
out:
    for (i = 0; i < n; i++)
        prof_teardown(plans[i]);
    for (size_t k = 0; k < eng.n_active; k++)
        eng.active[k]->active = 0;
    free(eng.active);
    free(eng.pfd);
    free(eng.pconn);
    return rc;
}
