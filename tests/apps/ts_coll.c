/* ts_coll.c - checked NCCL calls (see ts_coll.h). */
#include "ts_coll.h"

#include <stdint.h>
#include <string.h>

/* Scratch slots: one send and one receive buffer per collective; a group's
 * operations take one slot each after those. */
enum { SLOT_SEND = 0, SLOT_RECV = 1, SLOT_GROUP = 2 };
_Static_assert(SLOT_GROUP + TS_COLL_GROUP_MAX <= TS_RUN_SCRATCH_SLOTS,
               "one scratch slot per group operation");

/* What fills one tensor of one call: see the formula in ts_coll.h. */
struct values {
    uint64_t salt;
    uint64_t modulus;
};

static uint64_t
mix64(uint64_t x) /* splitmix64's finalizer */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t
hash_string(const char *text, uint64_t seed)
{
    uint64_t hash = 0xcbf29ce484222325ull ^ seed; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0';
         p++)
        hash = (hash ^ *p) * 0x100000001b3ull;
    return hash;
}

static struct values
values_of(const struct ts_run *run, const struct ts_comm *comm,
          const char *tensor, const struct ts_dtype *dtype)
{
    struct values values;
    uint64_t salt = hash_string(tensor, 0);

    salt = hash_string(comm->name, salt);
    values.salt = mix64(salt + (uint64_t)(int64_t)run->step);
    values.modulus = dtype->exact_limit / (uint64_t)comm->nranks;
    if (values.modulus == 0)
        values.modulus = 1; /* all zeros: exact for any number of ranks */
    return values;
}

static uint64_t
base_at(const struct values *values, uint64_t position)
{
    return mix64(values->salt + position * 0x9e3779b97f4a7c15ull) %
           values->modulus;
}

static uint32_t
value_at(const struct values *values, uint64_t position, int member)
{
    return (uint32_t)((base_at(values, position) + (uint64_t)member) %
                      values->modulus);
}

/* op over (b + r) mod m for r = 0 .. n-1, in closed form. */
static uint64_t
reduced_at(const struct values *values, uint64_t position, int nmembers,
           ncclRedOp_t op)
{
    uint64_t m = values->modulus;
    uint64_t b = base_at(values, position);
    uint64_t n = (uint64_t)nmembers;
    int wraps = b + n - 1 >= m; /* the values pass m-1 and restart at 0 */

    switch (op) {
    case ncclMax:
        return wraps ? m - 1 : b + n - 1;
    case ncclMin:
        return wraps ? 0 : b;
    case ncclSum:
    default: {
        /* n/m full cycles of 0..m-1, then k = n%m values from b on */
        uint64_t k = n % m;
        uint64_t first = k < m - b ? k : m - b; /* b, b+1, ... m-1 */
        uint64_t after = k - first;             /* 0, 1, ... */
        return (n / m) * (m * (m - 1) / 2) + first * b +
               first * (first - 1) / 2 + after * (after - 1) / 2;
    }
    }
}

static void
fill(const struct values *values, const struct ts_dtype *dtype, void *buf,
     size_t count, uint64_t first_position, int member)
{
    for (size_t i = 0; i < count; i++)
        ts_dtype_store(dtype, buf, i,
                       value_at(values, first_position + i, member));
}

static void
poison(const struct ts_dtype *dtype, void *buf, size_t count)
{
    memset(buf, 0xff, count * dtype->size);
}

/* What element first + i of an output buffer must hold: the value at
 * position + i of member's input or, when reduced, op over the values at
 * position + i of all nmembers' inputs. */
struct expectation {
    const struct values *values;
    uint64_t position;
    int member;   /* whose input, when not reduced */
    int reduced;  /* nonzero: op over all nmembers' inputs */
    ncclRedOp_t op;
    int nmembers;
};

static void
check_range(struct ts_run *run, const char *op_name, const char *tensor,
            const struct ts_dtype *dtype, const void *buf, size_t first,
            size_t count, const struct expectation *expect)
{
    if (run->faulted)
        return; /* a planted fault changed what this rank called */
    for (size_t i = 0; i < count; i++) {
        uint64_t position = expect->position + i;
        uint64_t want =
            expect->reduced
                ? reduced_at(expect->values, position, expect->nmembers,
                             expect->op)
                : value_at(expect->values, position, expect->member);
        double got = ts_dtype_load(dtype, buf, first + i);
        if (got != (double)want)
            ts_run_fail(run, "%s %s: element %zu is %.17g, expected %llu",
                        op_name, tensor, first + i, got,
                        (unsigned long long)want);
    }
}

/* --corrupt: rank 1 adds 1 to element 0 of its first all-reduce result of
 * a training step, to prove the checks catch a wrong value. */
static void
maybe_corrupt(struct ts_run *run, const struct ts_dtype *dtype, void *buf)
{
    if (!run->corrupt || run->corrupted || run->rank != 1 || run->step < 0)
        return;
    double value = ts_dtype_load(dtype, buf, 0);
    if (value >= 0 && value < (double)dtype->exact_limit)
        ts_dtype_store(dtype, buf, 0, (uint32_t)value + 1);
    run->corrupted = true;
}

void
ts_coll_allreduce(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, const struct ts_dtype *dtype,
                  size_t count, ncclRedOp_t op, bool in_place)
{
    struct values values = values_of(run, comm, tensor, dtype);
    void *recv = ts_run_scratch(run, SLOT_RECV, count * dtype->size);
    void *send = in_place
                     ? recv
                     : ts_run_scratch(run, SLOT_SEND, count * dtype->size);
    struct expectation expect = {.values = &values, .reduced = 1,
                                 .op = op, .nmembers = comm->nranks};

    fill(&values, dtype, send, count, 0, comm->rank);
    if (!in_place)
        poison(dtype, recv, count);
    ts_comm_allreduce(run, comm, tensor, send, recv, count, dtype->nccl, op);
    maybe_corrupt(run, dtype, recv);
    check_range(run, "allreduce", tensor, dtype, recv, 0, count, &expect);
}

void
ts_coll_broadcast(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, const struct ts_dtype *dtype,
                  size_t count, int root)
{
    struct values values = values_of(run, comm, tensor, dtype);
    void *send = ts_run_scratch(run, SLOT_SEND, count * dtype->size);
    void *recv = ts_run_scratch(run, SLOT_RECV, count * dtype->size);
    struct expectation expect = {.values = &values, .member = root};

    if (comm->rank == root)
        fill(&values, dtype, send, count, 0, root);
    else
        poison(dtype, send, count); /* not read by NCCL off the root */
    poison(dtype, recv, count);
    ts_comm_broadcast(run, comm, tensor, send, recv, count, dtype->nccl,
                      root);
    check_range(run, "broadcast", tensor, dtype, recv, 0, count, &expect);
}

void
ts_coll_bcast(struct ts_run *run, struct ts_comm *comm, const char *tensor,
              const struct ts_dtype *dtype, size_t count, int root)
{
    struct values values = values_of(run, comm, tensor, dtype);
    void *buf = ts_run_scratch(run, SLOT_RECV, count * dtype->size);
    struct expectation expect = {.values = &values, .member = root};

    if (comm->rank == root)
        fill(&values, dtype, buf, count, 0, root);
    else
        poison(dtype, buf, count);
    ts_comm_bcast(run, comm, tensor, buf, count, dtype->nccl, root);
    check_range(run, "bcast", tensor, dtype, buf, 0, count, &expect);
}

void
ts_coll_reduce(struct ts_run *run, struct ts_comm *comm, const char *tensor,
               const struct ts_dtype *dtype, size_t count, ncclRedOp_t op,
               int root)
{
    struct values values = values_of(run, comm, tensor, dtype);
    void *send = ts_run_scratch(run, SLOT_SEND, count * dtype->size);
    void *recv = ts_run_scratch(run, SLOT_RECV, count * dtype->size);
    struct expectation expect = {.values = &values, .reduced = 1,
                                 .op = op, .nmembers = comm->nranks};

    fill(&values, dtype, send, count, 0, comm->rank);
    poison(dtype, recv, count);
    ts_comm_reduce(run, comm, tensor, send, recv, count, dtype->nccl, op,
                   root);
    if (comm->rank == root) /* recvbuff means nothing elsewhere */
        check_range(run, "reduce", tensor, dtype, recv, 0, count, &expect);
}

void
ts_coll_allgather(struct ts_run *run, struct ts_comm *comm,
                  const char *tensor, const struct ts_dtype *dtype,
                  size_t sendcount, bool in_place)
{
    struct values values = values_of(run, comm, tensor, dtype);
    size_t total = sendcount * (size_t)comm->nranks;
    unsigned char *recv = ts_run_scratch(run, SLOT_RECV, total * dtype->size);
    void *send = in_place ? recv + (size_t)comm->rank * sendcount * dtype->size
                          : ts_run_scratch(run, SLOT_SEND,
                                           sendcount * dtype->size);

    poison(dtype, recv, total);
    fill(&values, dtype, send, sendcount, 0, comm->rank);
    ts_comm_allgather(run, comm, tensor, send, recv, sendcount, dtype->nccl);
    for (int member = 0; member < comm->nranks; member++) {
        struct expectation expect = {.values = &values, .member = member};
        check_range(run, "allgather", tensor, dtype, recv,
                    (size_t)member * sendcount, sendcount, &expect);
    }
}

void
ts_coll_reducescatter(struct ts_run *run, struct ts_comm *comm,
                      const char *tensor, const struct ts_dtype *dtype,
                      size_t recvcount, ncclRedOp_t op, bool in_place)
{
    struct values values = values_of(run, comm, tensor, dtype);
    size_t total = recvcount * (size_t)comm->nranks;
    unsigned char *send = ts_run_scratch(run, SLOT_SEND, total * dtype->size);
    void *recv = in_place
                     ? send + (size_t)comm->rank * recvcount * dtype->size
                     : ts_run_scratch(run, SLOT_RECV,
                                      recvcount * dtype->size);
    struct expectation expect = {
        .values = &values, .position = (uint64_t)comm->rank * recvcount,
        .reduced = 1, .op = op, .nmembers = comm->nranks};

    fill(&values, dtype, send, total, 0, comm->rank);
    if (!in_place)
        poison(dtype, recv, recvcount);
    ts_comm_reducescatter(run, comm, tensor, send, recv, recvcount,
                          dtype->nccl, op);
    check_range(run, "reducescatter", tensor, dtype, recv, 0, recvcount,
                &expect);
}

void
ts_coll_alltoall(struct ts_run *run, struct ts_comm *comm,
                 const char *tensor, const struct ts_dtype *dtype,
                 size_t count)
{
    struct values values = values_of(run, comm, tensor, dtype);
    size_t total = count * (size_t)comm->nranks;
    void *send = ts_run_scratch(run, SLOT_SEND, total * dtype->size);
    void *recv = ts_run_scratch(run, SLOT_RECV, total * dtype->size);

    /* block q of the send buffer goes to member q */
    fill(&values, dtype, send, total, 0, comm->rank);
    poison(dtype, recv, total);
    ts_comm_alltoall(run, comm, tensor, send, recv, count, dtype->nccl);
    for (int member = 0; member < comm->nranks; member++) {
        struct expectation expect = {
            .values = &values, .position = (uint64_t)comm->rank * count,
            .member = member};
        check_range(run, "alltoall", tensor, dtype, recv,
                    (size_t)member * count, count, &expect);
    }
}

void
ts_coll_group_start(struct ts_run *run, struct ts_coll_group *group,
                    const char *what)
{
    memset(group, 0, sizeof *group);
    snprintf(group->what, sizeof group->what, "%s", what);
    ts_comm_group_start(run, group->what);
}

/* The scratch buffer of the group's next operation. */
static void *
group_buffer(struct ts_run *run, struct ts_coll_group *group,
             const char *tensor, size_t bytes)
{
    if (group->nops == TS_COLL_GROUP_MAX)
        ts_run_fail(run, "group %s: more than %d operations at %s",
                    group->what, TS_COLL_GROUP_MAX, tensor);
    return ts_run_scratch(run, SLOT_GROUP + group->nops++, bytes);
}

void
ts_coll_send(struct ts_run *run, struct ts_coll_group *group,
             struct ts_comm *comm, const char *tensor,
             const struct ts_dtype *dtype, size_t count, int peer)
{
    struct values values = values_of(run, comm, tensor, dtype);
    void *send = group_buffer(run, group, tensor, count * dtype->size);

    fill(&values, dtype, send, count, 0, comm->rank);
    ts_comm_send(run, comm, tensor, send, count, dtype->nccl, peer);
}

void
ts_coll_recv(struct ts_run *run, struct ts_coll_group *group,
             struct ts_comm *comm, const char *tensor,
             const struct ts_dtype *dtype, size_t count, int peer)
{
    void *recv = group_buffer(run, group, tensor, count * dtype->size);
    struct ts_coll_pending *pending = &group->recvs[group->nrecvs++];

    pending->comm = comm;
    snprintf(pending->tensor, sizeof pending->tensor, "%s", tensor);
    pending->dtype = dtype;
    pending->count = count;
    pending->peer = peer;
    pending->buf = recv;
    poison(dtype, recv, count);
    ts_comm_recv(run, comm, tensor, recv, count, dtype->nccl, peer);
}

/* Check every receive of group against what its sender sent. */
static void
check_receives(struct ts_run *run, const struct ts_coll_group *group)
{
    for (int i = 0; i < group->nrecvs; i++) {
        const struct ts_coll_pending *pending = &group->recvs[i];
        struct values values = values_of(run, pending->comm,
                                         pending->tensor, pending->dtype);
        struct expectation expect = {.values = &values,
                                     .member = pending->peer};
        check_range(run, "recv", pending->tensor, pending->dtype,
                    pending->buf, 0, pending->count, &expect);
    }
}

void
ts_coll_group_end(struct ts_run *run, struct ts_coll_group *group)
{
    ts_comm_group_end(run, group->what);
    check_receives(run, group);
}

void
ts_coll_send_alone(struct ts_run *run, struct ts_comm *comm,
                   const char *tensor, const struct ts_dtype *dtype,
                   size_t count, int peer)
{
    struct ts_coll_group alone;

    memset(&alone, 0, sizeof alone);
    snprintf(alone.what, sizeof alone.what, "%s", tensor);
    ts_coll_send(run, &alone, comm, tensor, dtype, count, peer);
}

void
ts_coll_recv_alone(struct ts_run *run, struct ts_comm *comm,
                   const char *tensor, const struct ts_dtype *dtype,
                   size_t count, int peer)
{
    struct ts_coll_group alone;

    memset(&alone, 0, sizeof alone);
    snprintf(alone.what, sizeof alone.what, "%s", tensor);
    ts_coll_recv(run, &alone, comm, tensor, dtype, count, peer);
    check_receives(run, &alone);
}
