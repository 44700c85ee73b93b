/* cp_bench_run.c - one rank of collprof bench (see cp_bench_run.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <collprof/cp_nccl.h>

#include "cp_bench_run.h"

/* ---- NCCL and CUDA, loaded at run time ----------------------------------- */

/* The entry points, typed by the project's own declarations (cp_nccl.h);
 * collprof never links libnccl. */
#define NCCL_REQUIRED(X)                                                       \
    X(ncclGetVersion)                                                          \
    X(ncclGetUniqueId)                                                         \
    X(ncclGetErrorString)                                                      \
    X(ncclCommInitRank)                                                        \
    X(ncclCommDestroy)                                                         \
    X(ncclAllReduce)                                                           \
    X(ncclBroadcast)                                                           \
    X(ncclReduce)                                                              \
    X(ncclAllGather)                                                           \
    X(ncclReduceScatter)                                                       \
    X(ncclSend)                                                                \
    X(ncclRecv)                                                                \
    X(ncclGroupStart)                                                          \
    X(ncclGroupEnd)
#define NCCL_OPTIONAL(X)                                                       \
    X(ncclGetLastError)                                                        \
    X(ncclCommAbort)                                                           \
    X(ncclAlltoAll)                                                            \
    X(ncclGather)                                                              \
    X(ncclScatter)

struct nccl_api {
    void *handle;
#define NCCL_FIELD(name) __typeof__(name) *name;
    NCCL_REQUIRED(NCCL_FIELD)
    NCCL_OPTIONAL(NCCL_FIELD)
#undef NCCL_FIELD
};

/* The few cudart functions the device path needs.  cudaError_t is an
 * enum (an int); cudaMemcpyKind values are CUDA's. */
enum { CUDA_MEMCPY_H2D = 1, CUDA_MEMCPY_D2H = 2 };

struct cuda_api {
    void *handle;
    int (*cudaGetDeviceCount)(int *count);
    int (*cudaSetDevice)(int device);
    int (*cudaMalloc)(void **ptr, size_t size);
    int (*cudaFree)(void *ptr);
    int (*cudaMemcpy)(void *dst, const void *src, size_t size, int kind);
    int (*cudaMemset)(void *ptr, int value, size_t size);
    int (*cudaStreamCreate)(cudaStream_t *stream);
    int (*cudaStreamSynchronize)(cudaStream_t stream);
    int (*cudaStreamDestroy)(cudaStream_t stream);
    int (*cudaMemGetInfo)(size_t *free_bytes, size_t *total_bytes);
    const char *(*cudaGetErrorString)(int error);
};

/* The symbols to resolve, with where each pointer goes. */
struct symbol {
    const char *name;
    size_t offset;
    int required;
};

#define NCCL_SYMBOL_REQUIRED(name) {#name, offsetof(struct nccl_api, name), 1},
#define NCCL_SYMBOL_OPTIONAL(name) {#name, offsetof(struct nccl_api, name), 0},
static const struct symbol nccl_symbols[] = {
    NCCL_REQUIRED(NCCL_SYMBOL_REQUIRED) NCCL_OPTIONAL(NCCL_SYMBOL_OPTIONAL)};
#undef NCCL_SYMBOL_REQUIRED
#undef NCCL_SYMBOL_OPTIONAL

#define CUDA_SYMBOL(name) {#name, offsetof(struct cuda_api, name), 1}
static const struct symbol cuda_symbols[] = {
    CUDA_SYMBOL(cudaGetDeviceCount), CUDA_SYMBOL(cudaSetDevice),
    CUDA_SYMBOL(cudaMalloc),         CUDA_SYMBOL(cudaFree),
    CUDA_SYMBOL(cudaMemcpy),         CUDA_SYMBOL(cudaMemset),
    CUDA_SYMBOL(cudaStreamCreate),   CUDA_SYMBOL(cudaStreamSynchronize),
    CUDA_SYMBOL(cudaStreamDestroy),  CUDA_SYMBOL(cudaMemGetInfo),
    CUDA_SYMBOL(cudaGetErrorString)};
#undef CUDA_SYMBOL

/* Fill the function pointers of api (a struct nccl_api or cuda_api) from
 * handle.  Returns NULL, or the name of a required symbol that is
 * missing. */
static const char *resolve(void *handle, void *api,
                           const struct symbol *symbols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *sym = dlsym(handle, symbols[i].name);
        if (!sym && symbols[i].required)
            return symbols[i].name;
        /* a data pointer into a function pointer of the same size (POSIX) */
        memcpy((char *)api + symbols[i].offset, &sym, sizeof sym);
    }
    return NULL;
}

static int load_nccl(struct nccl_api *api, const char *path,
                     struct cp_bench_run_info *info, struct cp_error *err)
{
    const char *file = path ? path : "libnccl.so.2", *missing;
    Dl_info where;
    void *sym;

    memset(api, 0, sizeof *api);
    api->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!api->handle) {
        cp_error_set(err, NULL, -1,
                     "cannot load %s (%s)%s", file, dlerror(),
                     path ? "" : ": put NCCL's lib directory in "
                                 "LD_LIBRARY_PATH or give --nccl PATH");
        return -1;
    }
    missing = resolve(api->handle, api, nccl_symbols,
                      sizeof nccl_symbols / sizeof nccl_symbols[0]);
    if (missing) {
        cp_error_set(err, NULL, -1, "%s has no %s: not an NCCL library",
                     file, missing);
        return -1;
    }
    snprintf(info->nccl_path, sizeof info->nccl_path, "%s", file);
    memcpy(&sym, &api->ncclAllReduce, sizeof sym);
    if (dladdr(sym, &where) && where.dli_fname)
        snprintf(info->nccl_path, sizeof info->nccl_path, "%s",
                 where.dli_fname);
    return 0;
}

/* 0 loaded, -1 not present (not an error unless device memory is asked
 * for). */
static int load_cuda(struct cuda_api *api)
{
    static const char *const names[] = {"libcudart.so", "libcudart.so.13",
                                        "libcudart.so.12",
                                        "libcudart.so.11.0"};

    memset(api, 0, sizeof *api);
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !api->handle;
         i++)
        api->handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!api->handle)
        return -1;
    return resolve(api->handle, api, cuda_symbols,
                   sizeof cuda_symbols / sizeof cuda_symbols[0])
               ? -1
               : 0;
}

/* ---- the state of one rank ------------------------------------------------- */

struct bench {
    const struct cp_bench_run_opts *o;
    struct cp_bench_run_info *info;
    struct cp_bench_set *set;
    struct cp_error *err;
    struct nccl_api nccl;
    struct cuda_api cuda;
    ncclComm_t comm;
    cudaStream_t stream;
    int device;
    int me, p;
    char *send, *recv; /* max_bytes each, host or device */
    char *stage;       /* device mode: host copy for fills and checks */
    double *small;     /* 8 doubles for reductions, host or device */
    unsigned *node_of; /* node index of each rank */
    double rank_sum;   /* sum over ranks of the rank term of the inputs */
    char id_path[4200];
    int id_published;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int nccl_failed(struct bench *b, ncclResult_t r, const char *what)
{
    const char *last = b->nccl.ncclGetLastError && b->comm
                           ? b->nccl.ncclGetLastError(b->comm)
                           : NULL;
    cp_error_set(b->err, NULL, -1, "rank %d: %s failed: %s%s%s", b->me, what,
                 b->nccl.ncclGetErrorString(r), last && *last ? ": " : "",
                 last ? last : "");
    return -1;
}

static int cuda_failed(struct bench *b, int r, const char *what)
{
    cp_error_set(b->err, NULL, -1, "rank %d: %s failed: %s", b->me, what,
                 b->cuda.cudaGetErrorString(r));
    return -1;
}

/* 0 when r is ncclSuccess, else -1 with err filled. */
static int nccl_ok(struct bench *b, ncclResult_t r, const char *what)
{
    return r == ncclSuccess ? 0 : nccl_failed(b, r, what);
}

static int sync_stream(struct bench *b)
{
    int r;
    if (!b->device)
        return 0;
    r = b->cuda.cudaStreamSynchronize(b->stream);
    return r ? cuda_failed(b, r, "cudaStreamSynchronize") : 0;
}

static int to_buffer(struct bench *b, void *dst, const void *src, size_t n)
{
    int r;
    if (!b->device) {
        memmove(dst, src, n);
        return 0;
    }
    r = b->cuda.cudaMemcpy(dst, src, n, CUDA_MEMCPY_H2D);
    return r ? cuda_failed(b, r, "cudaMemcpy to the GPU") : 0;
}

static int from_buffer(struct bench *b, void *dst, const void *src, size_t n)
{
    int r;
    if (!b->device) {
        memmove(dst, src, n);
        return 0;
    }
    r = b->cuda.cudaMemcpy(dst, src, n, CUDA_MEMCPY_D2H);
    return r ? cuda_failed(b, r, "cudaMemcpy from the GPU") : 0;
}

/* Sum (or min, for uint64) of n values over all ranks, in place. */
static int world_sum(struct bench *b, double *v, int n)
{
    if (to_buffer(b, b->small, v, (size_t)n * sizeof *v) < 0)
        return -1;
    if (nccl_ok(b,
             b->nccl.ncclAllReduce(b->small, b->small, (size_t)n,
                                   ncclFloat64, ncclSum, b->comm, b->stream),
             "ncclAllReduce (result exchange)") < 0)
        return -1;
    if (sync_stream(b) < 0)
        return -1;
    return from_buffer(b, v, b->small, (size_t)n * sizeof *v);
}

static int world_min_u64(struct bench *b, uint64_t *v)
{
    if (to_buffer(b, b->small, v, sizeof *v) < 0)
        return -1;
    if (nccl_ok(b,
             b->nccl.ncclAllReduce(b->small, b->small, 1, ncclUint64, ncclMin,
                                   b->comm, b->stream),
             "ncclAllReduce (memory bound)") < 0)
        return -1;
    if (sync_stream(b) < 0)
        return -1;
    return from_buffer(b, v, b->small, sizeof *v);
}

static int barrier(struct bench *b)
{
    double one = 1;
    return world_sum(b, &one, 1);
}

/* ---- who is who -------------------------------------------------------------- */

static int env_int(const char *name, long minimum, long maximum, long *value,
                   struct cp_error *err)
{
    const char *text = getenv(name);
    char *end;
    long v;

    if (!text)
        return 1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < minimum || v > maximum) {
        cp_error_set(err, NULL, -1, "%s=%s is not a number from %ld to %ld",
                     name, text, minimum, maximum);
        return -1;
    }
    *value = v;
    return 0;
}

static int find_rank(struct cp_bench_run_info *info, struct cp_error *err)
{
    static const char *const sources[][2] = {
        {"SIMNCCL_RANK", "SIMNCCL_NRANKS"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMI_RANK", "PMI_SIZE"},
        {"SLURM_PROCID", "SLURM_NTASKS"},
        {"RANK", "WORLD_SIZE"},
    };
    static const char *const local[] = {
        "SIMNCCL_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
        "SLURM_LOCALID", "LOCAL_RANK"};
    const char *node;
    long r = 0, n = 1, lr = 0;
    size_t i;
    int got;

    for (i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        if (!getenv(sources[i][0]))
            continue;
        if (!getenv(sources[i][1])) {
            cp_error_set(err, NULL, -1, "%s is set but %s is not",
                         sources[i][0], sources[i][1]);
            return -1;
        }
        if (env_int(sources[i][1], 1, 16777216, &n, err) < 0 ||
            env_int(sources[i][0], 0, n - 1, &r, err) < 0)
            return -1;
        break;
    }
    for (i = 0; i < sizeof local / sizeof local[0]; i++) {
        got = env_int(local[i], 0, 1 << 20, &lr, err);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
    }
    info->rank = (int)r;
    info->nranks = (int)n;
    info->local_rank = (int)lr;
    node = getenv("COLLPROF_NODE");
    if (!node || !*node)
        node = getenv("SIMNCCL_NODE");
    if (!node || !*node)
        node = getenv("SLURMD_NODENAME");
    if (node && *node) {
        snprintf(info->node, sizeof info->node, "%s", node);
    } else if (gethostname(info->node, sizeof info->node) < 0) {
        snprintf(info->node, sizeof info->node, "localhost");
    }
    info->node[sizeof info->node - 1] = '\0';
    return 0;
}

/* ---- the unique id ---------------------------------------------------------- */

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int id_path(struct bench *b)
{
    const char *dir = b->o->id_dir, *job = getenv("SLURM_JOB_ID"),
               *step = getenv("SLURM_STEP_ID"),
               *run = getenv("TORCHELASTIC_RUN_ID");
    int n;

    if (!dir || !*dir)
        dir = getenv("SIMNCCL_IDDIR");
    if (!dir || !*dir)
        dir = ".";
    if ((job && strchr(job, '/')) || (step && strchr(step, '/')) ||
        (run && strchr(run, '/'))) {
        cp_error_set(b->err, NULL, -1,
                     "SLURM_JOB_ID, SLURM_STEP_ID or TORCHELASTIC_RUN_ID "
                     "holds a '/'");
        return -1;
    }
    n = snprintf(b->id_path, sizeof b->id_path,
                 "%s/.collprof-bench-ncclid%s%s%s%s%s%s", dir, job ? "." : "",
                 job ? job : "", step ? "." : "", step ? step : "",
                 run ? "." : "", run ? run : "");
    if (n < 0 || (size_t)n >= sizeof b->id_path) {
        cp_error_set(b->err, NULL, -1, "the id file name in %s is too long",
                     dir);
        return -1;
    }
    return 0;
}

static int publish_id(struct bench *b, const ncclUniqueId *id)
{
    char tmp[4300];
    int fd, rc = -1;

    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", b->id_path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        cp_error_set(b->err, NULL, -1, "cannot create %s: %s", tmp,
                     strerror(errno));
        return -1;
    }
    if (write_all(fd, id->internal, sizeof id->internal) < 0) {
        cp_error_set(b->err, NULL, -1, "cannot write %s: %s", tmp,
                     strerror(errno));
        goto out;
    }
    if (close(fd) < 0) {
        fd = -1;
        cp_error_set(b->err, NULL, -1, "cannot write %s: %s", tmp,
                     strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(tmp, b->id_path) < 0) {
        cp_error_set(b->err, NULL, -1, "cannot rename %s to %s: %s", tmp,
                     b->id_path, strerror(errno));
        goto out;
    }
    b->id_published = 1;
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        unlink(tmp);
    return rc;
}

static int wait_id(struct bench *b, ncclUniqueId *id)
{
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = 10000000};
    double deadline = now_s() + b->o->id_timeout_s;
    int fd = -1, rc = -1;
    size_t got = 0;

    for (;;) {
        fd = open(b->id_path, O_RDONLY);
        if (fd >= 0)
            break;
        if (errno != ENOENT) {
            cp_error_set(b->err, NULL, -1, "cannot open %s: %s", b->id_path,
                         strerror(errno));
            return -1;
        }
        if (now_s() > deadline) {
            cp_error_set(b->err, NULL, -1,
                         "rank %d: no NCCL unique id from rank 0 in %s after "
                         "%g s (is rank 0 running, and do all ranks see this "
                         "directory? --id-dir, or NCCL_COMM_ID)",
                         b->me, b->id_path, b->o->id_timeout_s);
            return -1;
        }
        nanosleep(&pause, NULL);
    }
    while (got < sizeof id->internal) {
        ssize_t n = read(fd, id->internal + got, sizeof id->internal - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got != sizeof id->internal) {
        cp_error_set(b->err, NULL, -1, "%s holds %zu bytes, not an NCCL id",
                     b->id_path, got);
        goto out;
    }
    rc = 0;
out:
    close(fd);
    return rc;
}

static int exchange_id(struct bench *b, ncclUniqueId *id)
{
    ncclResult_t r;

    memset(id, 0, sizeof *id);
    /* NCCL_COMM_ID: every rank derives the id from the address itself. */
    if (b->p == 1 || getenv("NCCL_COMM_ID") || b->me == 0) {
        r = b->nccl.ncclGetUniqueId(id);
        if (r != ncclSuccess)
            return nccl_failed(b, r, "ncclGetUniqueId");
        if (b->p == 1 || getenv("NCCL_COMM_ID"))
            return 0;
    }
    if (id_path(b) < 0)
        return -1;
    return b->me == 0 ? publish_id(b, id) : wait_id(b, id);
}

/* ---- values ------------------------------------------------------------------ */

/* Small integers: a sum over 2^16 ranks stays exact in float. */
static float value(int rank, uint64_t i)
{
    return (float)((i % 13) + ((unsigned long long)rank * 7 % 251));
}

static float sum_value(const struct bench *b, uint64_t i)
{
    return (float)((double)b->p * (double)(i % 13) + b->rank_sum);
}

/* Where an op's input and output are, and what it is called with. */
struct layout {
    char *in;        /* input region (in the send or recv buffer) */
    uint64_t in_n;   /* elements */
    char *out;       /* output region checked */
    uint64_t out_n;  /* elements; 0: nothing checked on this rank */
    const void *sendbuff;
    void *recvbuff;
    int checkable;   /* 0: N/A */
    int peer;        /* send/recv: to whom (-1: not participating) */
    int from;        /* send/recv: from whom */
};

static void make_layout(const struct bench *b, enum cp_coll coll,
                        uint64_t count, int in_place, const int *pair,
                        struct layout *l)
{
    const int p = b->p, me = b->me;
    char *buf = b->recv;
    const uint64_t chunk = count * sizeof(float);
    uint64_t in_n = count, out_n = count;
    char *send = in_place ? buf : b->send, *recv = buf;

    memset(l, 0, sizeof *l);
    l->checkable = 1;
    l->peer = l->from = -1;
    switch (coll) {
    case CP_COLL_REDUCESCATTER:
        in_n = count * (uint64_t)p;
        if (in_place)
            recv = buf + (uint64_t)me * chunk;
        break;
    case CP_COLL_ALLGATHER:
    case CP_COLL_GATHER:
        out_n = count * (uint64_t)p;
        if (in_place)
            send = buf + (uint64_t)me * chunk;
        if (coll == CP_COLL_GATHER && me != 0)
            out_n = 0;
        break;
    case CP_COLL_ALLTOALL:
        in_n = out_n = count * (uint64_t)p;
        if (in_place)
            l->checkable = 0;
        break;
    case CP_COLL_SCATTER:
        in_n = count * (uint64_t)p;
        if (in_place)
            recv = buf + (uint64_t)me * chunk;
        break;
    case CP_COLL_REDUCE:
        if (me != 0)
            out_n = 0;
        break;
    case CP_COLL_SENDRECV:
        if (pair) {
            if (me == pair[0] || me == pair[1]) {
                l->peer = l->from = me == pair[0] ? pair[1] : pair[0];
            } else {
                in_n = out_n = 0;
            }
        } else {
            l->peer = (me + 1) % p;
            l->from = (me + p - 1) % p;
        }
        if (in_place)
            l->checkable = 0;
        break;
    default:
        break;
    }
    l->in = send;
    l->in_n = in_n;
    l->out = recv;
    l->out_n = out_n;
    l->sendbuff = send;
    l->recvbuff = recv;
}

/* The value that output element j of coll must hold on this rank. */
static float expected(const struct bench *b, enum cp_coll coll,
                      uint64_t count, const struct layout *l, uint64_t j)
{
    switch (coll) {
    case CP_COLL_ALLREDUCE:
    case CP_COLL_REDUCE:
        return sum_value(b, j);
    case CP_COLL_BROADCAST:
        return value(0, j);
    case CP_COLL_REDUCESCATTER:
        return sum_value(b, (uint64_t)b->me * count + j);
    case CP_COLL_ALLGATHER:
    case CP_COLL_GATHER:
        return value((int)(j / count), j % count);
    case CP_COLL_ALLTOALL:
        return value((int)(j / count), (uint64_t)b->me * count + j % count);
    case CP_COLL_SCATTER:
        return value(0, (uint64_t)b->me * count + j);
    case CP_COLL_SENDRECV:
        return value(l->from, j);
    default:
        return NAN;
    }
}

static int fill_inputs(struct bench *b, const struct layout *l)
{
    float *host = b->device ? (float *)b->stage : (float *)l->in;
    uint64_t j;

    for (j = 0; j < l->in_n; j++)
        host[j] = value(b->me, j);
    if (b->device && l->in_n)
        return to_buffer(b, l->in, host, l->in_n * sizeof(float));
    return 0;
}

/* NaN in every output element, so that one never written is wrong. */
static int poison_outputs(struct bench *b, const struct layout *l)
{
    int r;

    if (!l->out_n)
        return 0;
    if (!b->device) {
        memset(l->out, 0xff, l->out_n * sizeof(float));
        return 0;
    }
    r = b->cuda.cudaMemset(l->out, 0xff, l->out_n * sizeof(float));
    return r ? cuda_failed(b, r, "cudaMemset") : 0;
}

static int check_outputs(struct bench *b, enum cp_coll coll, uint64_t count,
                         const struct layout *l, int corrupt,
                         int64_t *wrong)
{
    float *out = b->device ? (float *)b->stage : (float *)l->out;
    uint64_t j;

    *wrong = 0;
    if (!l->out_n)
        return 0;
    if (b->device &&
        from_buffer(b, out, l->out, l->out_n * sizeof(float)) < 0)
        return -1;
    if (corrupt)
        out[0] += 1; /* testing: one wrong element */
    for (j = 0; j < l->out_n; j++)
        if (!(out[j] == expected(b, coll, count, l, j)))
            (*wrong)++;
    return 0;
}

/* ---- the calls ----------------------------------------------------------------- */

static int call_p2p_group(struct bench *b, enum cp_coll coll, uint64_t count,
                          const struct layout *l)
{
    const struct nccl_api *n = &b->nccl;
    const size_t chunk = count * sizeof(float);
    const char *send = l->sendbuff;
    char *recv = l->recvbuff;
    int q;

    if (nccl_ok(b, n->ncclGroupStart(), "ncclGroupStart") < 0)
        return -1;
    switch (coll) {
    case CP_COLL_ALLTOALL:
        for (q = 0; q < b->p; q++) {
            if (nccl_ok(b,
                     n->ncclSend(send + (size_t)q * chunk, count, ncclFloat32,
                                 q, b->comm, b->stream),
                     "ncclSend") < 0)
                return -1;
            if (nccl_ok(b,
                     n->ncclRecv(recv + (size_t)q * chunk, count, ncclFloat32,
                                 q, b->comm, b->stream),
                     "ncclRecv") < 0)
                return -1;
        }
        break;
    case CP_COLL_GATHER:
        if (nccl_ok(b,
                 n->ncclSend(send, count, ncclFloat32, 0, b->comm, b->stream),
                 "ncclSend") < 0)
            return -1;
        if (b->me == 0)
            for (q = 0; q < b->p; q++)
                if (nccl_ok(b,
                         n->ncclRecv(recv + (size_t)q * chunk, count,
                                     ncclFloat32, q, b->comm, b->stream),
                         "ncclRecv") < 0)
                    return -1;
        break;
    case CP_COLL_SCATTER:
        if (b->me == 0)
            for (q = 0; q < b->p; q++)
                if (nccl_ok(b,
                         n->ncclSend(send + (size_t)q * chunk, count,
                                     ncclFloat32, q, b->comm, b->stream),
                         "ncclSend") < 0)
                    return -1;
        if (nccl_ok(b,
                 n->ncclRecv(recv, count, ncclFloat32, 0, b->comm, b->stream),
                 "ncclRecv") < 0)
            return -1;
        break;
    default: /* send/recv */
        if (nccl_ok(b,
                 n->ncclSend(send, count, ncclFloat32, l->peer, b->comm,
                             b->stream),
                 "ncclSend") < 0)
            return -1;
        if (nccl_ok(b,
                 n->ncclRecv(recv, count, ncclFloat32, l->from, b->comm,
                             b->stream),
                 "ncclRecv") < 0)
            return -1;
        break;
    }
    if (nccl_ok(b, n->ncclGroupEnd(), "ncclGroupEnd") < 0)
        return -1;
    return 0;
}

static int call_op(struct bench *b, enum cp_coll coll, uint64_t count,
                   const struct layout *l)
{
    const struct nccl_api *n = &b->nccl;
    const void *s = l->sendbuff;
    void *r = l->recvbuff;

    switch (coll) {
    case CP_COLL_ALLREDUCE:
        if (nccl_ok(b,
                 n->ncclAllReduce(s, r, count, ncclFloat32, ncclSum, b->comm,
                                  b->stream),
                 "ncclAllReduce") < 0)
            return -1;
        return 0;
    case CP_COLL_BROADCAST:
        if (nccl_ok(b,
                 n->ncclBroadcast(s, r, count, ncclFloat32, 0, b->comm,
                                  b->stream),
                 "ncclBroadcast") < 0)
            return -1;
        return 0;
    case CP_COLL_REDUCE:
        if (nccl_ok(b,
                 n->ncclReduce(s, r, count, ncclFloat32, ncclSum, 0, b->comm,
                               b->stream),
                 "ncclReduce") < 0)
            return -1;
        return 0;
    case CP_COLL_REDUCESCATTER:
        if (nccl_ok(b,
                 n->ncclReduceScatter(s, r, count, ncclFloat32, ncclSum,
                                      b->comm, b->stream),
                 "ncclReduceScatter") < 0)
            return -1;
        return 0;
    case CP_COLL_ALLGATHER:
        if (nccl_ok(b,
                 n->ncclAllGather(s, r, count, ncclFloat32, b->comm,
                                  b->stream),
                 "ncclAllGather") < 0)
            return -1;
        return 0;
    case CP_COLL_ALLTOALL:
        if (!n->ncclAlltoAll)
            return call_p2p_group(b, coll, count, l);
        if (nccl_ok(b,
                 n->ncclAlltoAll(s, r, count, ncclFloat32, b->comm, b->stream),
                 "ncclAlltoAll") < 0)
            return -1;
        return 0;
    case CP_COLL_GATHER:
        if (!n->ncclGather)
            return call_p2p_group(b, coll, count, l);
        if (nccl_ok(b,
                 n->ncclGather(s, r, count, ncclFloat32, 0, b->comm,
                               b->stream),
                 "ncclGather") < 0)
            return -1;
        return 0;
    case CP_COLL_SCATTER:
        if (!n->ncclScatter)
            return call_p2p_group(b, coll, count, l);
        if (nccl_ok(b,
                 n->ncclScatter(s, r, count, ncclFloat32, 0, b->comm,
                                b->stream),
                 "ncclScatter") < 0)
            return -1;
        return 0;
    case CP_COLL_SENDRECV:
        if (l->peer < 0)
            return 0; /* not in this pair */
        return call_p2p_group(b, coll, count, l);
    default:
        cp_error_set(b->err, NULL, -1, "no such collective");
        return -1;
    }
}

/* n calls, then a synchronization; *seconds per call. */
static int timed_calls(struct bench *b, enum cp_coll coll, uint64_t count,
                       const struct layout *l, unsigned n, double *seconds)
{
    double t0 = now_s();
    for (unsigned i = 0; i < n; i++)
        if (call_op(b, coll, count, l) < 0)
            return -1;
    if (sync_stream(b) < 0)
        return -1;
    *seconds = n ? (now_s() - t0) / n : 0;
    return 0;
}

/* One point: check, warm up, time.  *check_s: the agreed time of the
 * checked call. */
static int measure(struct bench *b, enum cp_coll coll, uint64_t count,
                   int in_place, const int *pair, struct cp_bench_point *pt,
                   double *check_s)
{
    const struct cp_bench_run_opts *o = b->o;
    struct layout l;
    double t = 0, v[4];
    int64_t wrong = 0;
    int participates, checked;
    unsigned iters, warmup;

    make_layout(b, coll, count, in_place, pair, &l);
    participates = coll != CP_COLL_SENDRECV || l.peer >= 0;
    checked = o->check && l.checkable;
    if (participates) {
        if (fill_inputs(b, &l) < 0)
            return -1;
        if (checked && !in_place && poison_outputs(b, &l) < 0)
            return -1;
        if (timed_calls(b, coll, count, &l, 1, &t) < 0)
            return -1;
        if (checked &&
            check_outputs(b, coll, count, &l,
                          !in_place && (int)coll == o->corrupt_coll &&
                              b->me == o->corrupt_rank,
                          &wrong) < 0)
            return -1;
    }
    v[0] = participates ? t : 0;
    v[1] = (double)wrong;
    v[2] = participates;
    if (world_sum(b, v, 3) < 0)
        return -1;
    *check_s = v[2] > 0 ? v[0] / v[2] : 0;
    wrong = (int64_t)llround(v[1]);
    if (o->iters) {
        iters = o->iters;
        warmup = o->warmup;
    } else {
        double want = *check_s > 0 ? o->point_time_s / *check_s : o->max_iters;
        iters = want >= o->max_iters ? o->max_iters
                : want < 1           ? 1
                                     : (unsigned)want;
        warmup = o->warmup < iters ? o->warmup : iters;
    }
    if (participates && warmup &&
        timed_calls(b, coll, count, &l, warmup, &t) < 0)
        return -1;
    if (barrier(b) < 0)
        return -1;
    t = 0;
    if (participates && timed_calls(b, coll, count, &l, iters, &t) < 0)
        return -1;
    v[0] = participates ? t : 0;
    v[1] = participates;
    if (world_sum(b, v, 2) < 0)
        return -1;

    memset(pt, 0, sizeof *pt);
    pt->coll = coll;
    pt->ranks = pair ? 2 : (unsigned)b->p;
    pt->size_bytes = cp_bench_size(coll, count, sizeof(float), (unsigned)b->p);
    pt->count = count;
    pt->root = cp_bench_op_of(coll)->rooted ? 0 : -1;
    pt->in_place = in_place;
    pt->time_s = v[1] > 0 ? v[0] / v[1] : NAN;
    pt->wrong = checked ? wrong : -1;
    pt->iters = iters;
    return 0;
}

/* ---- setting up ------------------------------------------------------------- */

static int alloc_buffer(struct bench *b, size_t bytes, int on_device,
                        void **out)
{
    int r;

    *out = NULL;
    if (on_device) {
        r = b->cuda.cudaMalloc(out, bytes);
        if (r) {
            *out = NULL;
            return cuda_failed(b, r, "cudaMalloc");
        }
        return 0;
    }
    if (posix_memalign(out, 4096, bytes) != 0) {
        *out = NULL;
        cp_error_set(b->err, NULL, -1, "rank %d: out of memory (%zu bytes)",
                     b->me, bytes);
        return -1;
    }
    return 0;
}

static void free_buffer(struct bench *b, void *ptr, int on_device)
{
    if (!ptr)
        return;
    if (on_device)
        b->cuda.cudaFree(ptr);
    else
        free(ptr);
}

/* Every rank's node name, through an all-gather; node_of[r] numbers the
 * distinct names in rank order. */
static int exchange_nodes(struct bench *b)
{
    const size_t width = 64;
    char *names = NULL, mine[64];
    void *dev = NULL;
    unsigned nnodes = 0;
    int r, q, rc = -1;

    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%s", b->info->node);
    names = calloc((size_t)b->p + 1, width);
    b->node_of = calloc((size_t)b->p, sizeof *b->node_of);
    if (!names || !b->node_of) {
        cp_error_set(b->err, NULL, -1, "rank %d: out of memory", b->me);
        goto out;
    }
    if (b->device) {
        if (alloc_buffer(b, ((size_t)b->p + 1) * width, 1, &dev) < 0 ||
            to_buffer(b, (char *)dev + (size_t)b->p * width, mine, width) < 0)
            goto out;
        ncclResult_t res =
            b->nccl.ncclAllGather((char *)dev + (size_t)b->p * width, dev,
                                  width, ncclInt8, b->comm, b->stream);
        if (res != ncclSuccess) {
            nccl_failed(b, res, "ncclAllGather (node names)");
            goto out;
        }
        if (sync_stream(b) < 0 ||
            from_buffer(b, names, dev, (size_t)b->p * width) < 0)
            goto out;
    } else {
        ncclResult_t res = b->nccl.ncclAllGather(mine, names, width, ncclInt8,
                                                 b->comm, b->stream);
        if (res != ncclSuccess) {
            nccl_failed(b, res, "ncclAllGather (node names)");
            goto out;
        }
    }
    for (r = 0; r < b->p; r++) {
        names[(size_t)r * width + width - 1] = '\0';
        for (q = 0; q < r; q++)
            if (strcmp(names + (size_t)q * width, names + (size_t)r * width) ==
                0)
                break;
        b->node_of[r] = q < r ? b->node_of[q] : nnodes++;
    }
    b->info->nnodes = nnodes;
    rc = 0;
out:
    free_buffer(b, dev, 1);
    free(names);
    return rc;
}

/* The largest size every rank can hold in two buffers. */
static int memory_bound(struct bench *b, uint64_t *bound)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page
                                          : (uint64_t)8 << 30;
    uint64_t on_node = 0, per_buffer;
    int r;

    for (r = 0; r < b->p; r++)
        on_node += b->node_of[r] == b->node_of[b->me];
    per_buffer = b->o->memory_limit ? b->o->memory_limit / 2
                                    : phys / 4 / (on_node ? on_node : 1) / 2;
    if (b->device) {
        size_t free_bytes = 0, total = 0;
        int e = b->cuda.cudaMemGetInfo(&free_bytes, &total);
        if (e)
            return cuda_failed(b, e, "cudaMemGetInfo");
        if (free_bytes / 3 < per_buffer)
            per_buffer = free_bytes / 3;
    }
    *bound = per_buffer < b->o->max_bytes ? per_buffer : b->o->max_bytes;
    return world_min_u64(b, bound);
}

static uint64_t next_size(uint64_t size, double factor)
{
    double next = (double)size * factor;
    if (next >= 1.8e19)
        return UINT64_MAX;
    return (uint64_t)next > size ? (uint64_t)next : size + 1;
}

/* The two ranks of the first node that has two, and rank 0 with the first
 * rank of another node. */
static void choose_pairs(struct bench *b)
{
    struct cp_bench_run_info *info = b->info;
    unsigned node;
    int r, q;

    info->intra_pair[0] = info->intra_pair[1] = -1;
    info->inter_pair[0] = info->inter_pair[1] = -1;
    for (node = 0; node < info->nnodes && info->intra_pair[0] < 0; node++) {
        int first = -1;
        for (r = 0; r < b->p; r++) {
            if (b->node_of[r] != node)
                continue;
            if (first < 0) {
                first = r;
                continue;
            }
            info->intra_pair[0] = first;
            info->intra_pair[1] = r;
            break;
        }
    }
    for (q = 1; q < b->p; q++)
        if (b->node_of[q] != b->node_of[0]) {
            info->inter_pair[0] = 0;
            info->inter_pair[1] = q;
            break;
        }
}

/* ---- the sweep ---------------------------------------------------------------- */

static int sweep(struct bench *b, enum cp_coll coll, const int *pair,
                 int link, uint64_t max_bytes)
{
    const struct cp_bench_run_opts *o = b->o;
    struct cp_bench_series s;
    char note[256] = "";
    unsigned index;
    uint64_t size;
    int is_root = b->me == 0;

    memset(&s, 0, sizeof s);
    s.coll = coll;
    s.ranks = pair ? 2 : (unsigned)b->p;
    s.nodes = pair ? (b->node_of[pair[0]] == b->node_of[pair[1]] ? 1 : 2)
                   : b->info->nnodes;
    s.link = link;
    s.pair = pair != NULL;
    if (pair) {
        s.peers[0] = pair[0];
        s.peers[1] = pair[1];
    }
    snprintf(s.type, sizeof s.type, "float");
    if (cp_bench_set_add_series(b->set, &s, &index) < 0) {
        cp_error_set(b->err, NULL, -1, "rank %d: out of memory", b->me);
        return -1;
    }
    if (is_root && o->on_section)
        o->on_section(o->ctx, &s);
    for (size = o->min_bytes; size <= max_bytes;
         size = next_size(size, o->step_factor)) {
        struct cp_bench_point pt[2];
        double check[2] = {0, 0};
        uint64_t count = cp_bench_count(coll, size, sizeof(float),
                                        pair ? 2u : (unsigned)b->p);
        if (count == 0)
            continue;
        for (int k = 0; k < 2; k++) {
            if (measure(b, coll, count, k, pair, &pt[k], &check[k]) < 0)
                return -1;
            pt[k].series = index;
            cp_bench_point_bandwidths(&pt[k]);
            if (cp_bench_set_add_point(b->set, &pt[k]) < 0) {
                cp_error_set(b->err, NULL, -1, "rank %d: out of memory",
                             b->me);
                return -1;
            }
        }
        if (is_root && o->on_line)
            o->on_line(o->ctx, &pt[0], &pt[1]);
        if (fmax(check[0], check[1]) > o->call_limit_s &&
            next_size(size, o->step_factor) <= max_bytes) {
            snprintf(note, sizeof note,
                     "larger sizes skipped: one call of %llu bytes took "
                     "%.3g s (--call-limit %g s)",
                     (unsigned long long)pt[0].size_bytes,
                     fmax(check[0], check[1]), o->call_limit_s);
            break;
        }
        if (size == UINT64_MAX)
            break;
    }
    if (is_root && o->on_section_end)
        o->on_section_end(o->ctx, &s, note[0] ? note : NULL);
    return 0;
}

void cp_bench_run_defaults(struct cp_bench_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->memory = CP_BENCH_MEMORY_AUTO;
    o->min_bytes = 4;
    o->max_bytes = (uint64_t)1 << 30;
    o->step_factor = 2;
    o->ops = (1u << CP_COLL_COUNT) - 1;
    o->warmup = 5;
    o->max_iters = 20;
    o->point_time_s = 0.2;
    o->call_limit_s = 1.0;
    o->check = 1;
    o->pairs = 1;
    o->id_timeout_s = 120;
    o->corrupt_coll = -1;
}

/* The order of the sweep: the ring collectives the calibration needs
 * first. */
static const enum cp_coll sweep_order[] = {
    CP_COLL_ALLREDUCE, CP_COLL_REDUCESCATTER, CP_COLL_ALLGATHER,
    CP_COLL_BROADCAST, CP_COLL_REDUCE,        CP_COLL_ALLTOALL,
    CP_COLL_GATHER,    CP_COLL_SCATTER,       CP_COLL_SENDRECV};

int cp_bench_run(const struct cp_bench_run_opts *o, struct cp_bench_set *set,
                 struct cp_bench_run_info *info, struct cp_error *err)
{
    struct bench b;
    ncclUniqueId id;
    uint64_t bound = 0, top;
    size_t buf_bytes;
    int ndev = 0, cuda_ok = 0, rc = -1, world_link;
    ncclResult_t res;

    memset(&b, 0, sizeof b);
    memset(info, 0, sizeof *info);
    info->intra_pair[0] = info->intra_pair[1] = -1;
    info->inter_pair[0] = info->inter_pair[1] = -1;
    b.o = o;
    b.info = info;
    b.set = set;
    b.err = err;
    if (find_rank(info, err) < 0)
        return -1;
    b.me = info->rank;
    b.p = info->nranks;
    for (int r = 0; r < b.p && r < 65536; r++)
        b.rank_sum += (double)((unsigned long long)r * 7 % 251);
    if (b.p > 65536) {
        cp_error_set(err, NULL, -1,
                     "%d ranks: the checks' sums would not stay exact in "
                     "float beyond 65536 ranks",
                     b.p);
        return -1;
    }
    if (load_nccl(&b.nccl, o->nccl_path, info, err) < 0)
        return -1;

    /* Device buffers where a GPU is there and the NCCL can use them. */
    if (o->memory != CP_BENCH_MEMORY_HOST && load_cuda(&b.cuda) == 0 &&
        b.cuda.cudaGetDeviceCount(&ndev) == 0 && ndev > 0)
        cuda_ok = 1;
    if (o->memory == CP_BENCH_MEMORY_DEVICE && !cuda_ok) {
        cp_error_set(err, NULL, -1,
                     "--memory device: no GPU (libcudart could not be "
                     "loaded or sees no device)");
        return -1;
    }
    b.device = o->memory == CP_BENCH_MEMORY_DEVICE ||
               (o->memory == CP_BENCH_MEMORY_AUTO && cuda_ok &&
                !getenv("SIMNCCL_NRANKS"));
    info->device = b.device;
    if (b.device) {
        int e = b.cuda.cudaSetDevice(info->local_rank % ndev);
        if (e)
            return cuda_failed(&b, e, "cudaSetDevice");
        e = b.cuda.cudaStreamCreate(&b.stream);
        if (e)
            return cuda_failed(&b, e, "cudaStreamCreate");
    }
    info->fallback_p2p =
        !b.nccl.ncclAlltoAll || !b.nccl.ncclGather || !b.nccl.ncclScatter;
    if (b.nccl.ncclGetVersion(&info->nccl_version) != ncclSuccess)
        info->nccl_version = 0;

    if (exchange_id(&b, &id) < 0)
        goto out;
    res = b.nccl.ncclCommInitRank(&b.comm, b.p, id, b.me);
    if (res != ncclSuccess) {
        b.comm = NULL;
        nccl_failed(&b, res, "ncclCommInitRank");
        goto out;
    }
    if (alloc_buffer(&b, 8 * sizeof(double), b.device, (void **)&b.small) <
        0)
        goto out;
    if (barrier(&b) < 0)
        goto out;
    if (b.id_published) { /* every rank has read it by now */
        unlink(b.id_path);
        b.id_published = 0;
    }
    if (exchange_nodes(&b) < 0 || memory_bound(&b, &bound) < 0)
        goto out;
    if (bound < o->min_bytes) {
        cp_error_set(err, NULL, -1,
                     "not enough memory for the smallest size (%llu bytes "
                     "per buffer available)",
                     (unsigned long long)bound);
        goto out;
    }
    top = o->min_bytes;
    while (next_size(top, o->step_factor) <= bound && top != UINT64_MAX)
        top = next_size(top, o->step_factor);
    info->max_bytes = top;
    choose_pairs(&b);
    buf_bytes = top > 64 ? (size_t)top : 64;
    if (alloc_buffer(&b, buf_bytes, b.device, (void **)&b.send) < 0 ||
        alloc_buffer(&b, buf_bytes, b.device, (void **)&b.recv) < 0)
        goto out;
    if (b.device && alloc_buffer(&b, buf_bytes, 0, (void **)&b.stage) < 0)
        goto out;
    if (b.me == 0 && o->on_start)
        o->on_start(o->ctx, info);

    world_link = info->nnodes > 1 ? CP_LINK_INTER : CP_LINK_INTRA;
    for (size_t i = 0; i < sizeof sweep_order / sizeof sweep_order[0]; i++)
        if ((o->ops & (1u << sweep_order[i])) &&
            sweep(&b, sweep_order[i], NULL, world_link, top) < 0)
            goto out;
    if (o->pairs == 2 || (o->pairs == 1 && info->nnodes > 1)) {
        if (info->intra_pair[0] >= 0 &&
            sweep(&b, CP_COLL_SENDRECV, info->intra_pair, CP_LINK_INTRA,
                  top) < 0)
            goto out;
        if (info->inter_pair[0] >= 0 &&
            sweep(&b, CP_COLL_SENDRECV, info->inter_pair, CP_LINK_INTER,
                  top) < 0)
            goto out;
    }
    rc = 0;
out:
    if (b.comm) {
        if (rc == 0 || !b.nccl.ncclCommAbort)
            b.nccl.ncclCommDestroy(b.comm);
        else
            b.nccl.ncclCommAbort(b.comm);
    }
    free_buffer(&b, b.send, b.device);
    free_buffer(&b, b.recv, b.device);
    free_buffer(&b, b.small, b.device);
    free(b.stage);
    free(b.node_of);
    if (b.device && b.stream)
        b.cuda.cudaStreamDestroy(b.stream);
    if (b.id_published)
        unlink(b.id_path);
    /* NCCL and cudart stay loaded: their threads may outlive the comm. */
    return rc;
}
