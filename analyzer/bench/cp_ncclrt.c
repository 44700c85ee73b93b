/* cp_ncclrt.c - NCCL and cudart loaded at run time (see cp_ncclrt.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cp_ncclrt.h"
#include "cp_units.h"
#include "cp_path.h"
#include "cp_text.h"

/* ---- loading ------------------------------------------------------------- */

/* The symbols to resolve, with where each pointer goes. */
struct symbol {
    const char *name;
    size_t offset;
    int required;
};

#define NCCL_SYMBOL_REQUIRED(name)                                             \
    {#name, offsetof(struct cp_ncclrt_nccl, name), 1},
#define NCCL_SYMBOL_OPTIONAL(name)                                             \
    {#name, offsetof(struct cp_ncclrt_nccl, name), 0},
static const struct symbol nccl_symbols[] = {
    CP_NCCLRT_REQUIRED(NCCL_SYMBOL_REQUIRED)
        CP_NCCLRT_OPTIONAL(NCCL_SYMBOL_OPTIONAL)};
#undef NCCL_SYMBOL_REQUIRED
#undef NCCL_SYMBOL_OPTIONAL

#define CUDA_SYMBOL(name) {#name, offsetof(struct cp_ncclrt_cuda, name), 1}
#define CUDA_OPTIONAL(name) {#name, offsetof(struct cp_ncclrt_cuda, name), 0}
static const struct symbol cuda_symbols[] = {
    CUDA_SYMBOL(cudaGetDeviceCount),     CUDA_SYMBOL(cudaSetDevice),
    CUDA_SYMBOL(cudaMalloc),             CUDA_SYMBOL(cudaFree),
    CUDA_SYMBOL(cudaMemcpy),             CUDA_SYMBOL(cudaMemset),
    CUDA_SYMBOL(cudaStreamCreate),       CUDA_SYMBOL(cudaStreamSynchronize),
    CUDA_SYMBOL(cudaStreamDestroy),      CUDA_SYMBOL(cudaMemGetInfo),
    CUDA_SYMBOL(cudaGetErrorString),     CUDA_OPTIONAL(cudaEventCreate),
    CUDA_OPTIONAL(cudaEventRecord),      CUDA_OPTIONAL(cudaEventElapsedTime),
    CUDA_OPTIONAL(cudaEventDestroy)};
#undef CUDA_SYMBOL
#undef CUDA_OPTIONAL

/* Fill the function pointers of api (a struct cp_ncclrt_nccl or _cuda)
 * from handle.  Returns NULL, or the name of a required symbol that is
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

static int load_nccl(struct cp_ncclrt *rt, const char *path)
{
    struct cp_ncclrt_nccl *api = &rt->nccl;
    const char *file = path ? path : "libnccl.so.2", *missing;
    Dl_info where;
    void *sym;

    api->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!api->handle) {
        return cp_errorf(rt->err, "cannot load %s (%s)%s", file,
                         dlerror(),
                         path ? "" : ": put NCCL's lib directory in "
                                     "LD_LIBRARY_PATH or give --nccl PATH");
    }
    missing = resolve(api->handle, api, nccl_symbols,
                      sizeof nccl_symbols / sizeof nccl_symbols[0]);
    if (missing) {
        return cp_errorf(rt->err, "%s has no %s: not an NCCL library",
                         file, missing);
    }
    snprintf(rt->nccl_path, sizeof rt->nccl_path, "%s", file);
    memcpy(&sym, &api->ncclAllReduce, sizeof sym);
    if (dladdr(sym, &where) && where.dli_fname)
        snprintf(rt->nccl_path, sizeof rt->nccl_path, "%s", where.dli_fname);
    return 0;
}

/* 0 loaded, -1 not present (not an error unless device memory is asked
 * for). */
static int load_cuda(struct cp_ncclrt_cuda *api)
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

/* ---- results ------------------------------------------------------------- */

double cp_ncclrt_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int cp_ncclrt_nccl_ok(struct cp_ncclrt *rt, ncclResult_t r, const char *what)
{
    const char *last;

    if (r == ncclSuccess)
        return 0;
    last = rt->nccl.ncclGetLastError && rt->comm
               ? rt->nccl.ncclGetLastError(rt->comm)
               : NULL;
    return cp_errorf(rt->err, "rank %d: %s failed: %s%s%s", rt->me,
                     what, rt->nccl.ncclGetErrorString(r),
                     last && *last ? ": " : "", last ? last : "");
}

int cp_ncclrt_cuda_ok(struct cp_ncclrt *rt, int r, const char *what)
{
    if (r == 0)
        return 0;
    return cp_errorf(rt->err, "rank %d: %s failed: %s", rt->me, what,
                     rt->cuda.cudaGetErrorString(r));
}

/* ---- buffers ------------------------------------------------------------- */

int cp_ncclrt_sync(struct cp_ncclrt *rt)
{
    if (!rt->device)
        return 0;
    return cp_ncclrt_cuda_ok(rt, rt->cuda.cudaStreamSynchronize(rt->stream),
                             "cudaStreamSynchronize");
}

int cp_ncclrt_to_buffer(struct cp_ncclrt *rt, void *dst, const void *src,
                        size_t n)
{
    if (!rt->device) {
        memmove(dst, src, n);
        return 0;
    }
    return cp_ncclrt_cuda_ok(
        rt, rt->cuda.cudaMemcpy(dst, src, n, CP_CUDA_MEMCPY_H2D),
        "cudaMemcpy to the GPU");
}

int cp_ncclrt_from_buffer(struct cp_ncclrt *rt, void *dst, const void *src,
                          size_t n)
{
    if (!rt->device) {
        memmove(dst, src, n);
        return 0;
    }
    return cp_ncclrt_cuda_ok(
        rt, rt->cuda.cudaMemcpy(dst, src, n, CP_CUDA_MEMCPY_D2H),
        "cudaMemcpy from the GPU");
}

int cp_ncclrt_alloc(struct cp_ncclrt *rt, size_t bytes, int on_device,
                    void **out)
{
    int r;

    *out = NULL;
    if (on_device) {
        r = rt->cuda.cudaMalloc(out, bytes);
        if (r) {
            *out = NULL;
            return cp_ncclrt_cuda_ok(rt, r, "cudaMalloc");
        }
        return 0;
    }
    if (posix_memalign(out, 4096, bytes ? bytes : 1) != 0) {
        *out = NULL;
        return cp_errorf(rt->err, "rank %d: out of memory (%zu bytes)",
                         rt->me, bytes);
    }
    /* a host buffer goes out as it is: bytes this process never wrote
     * (old heap contents) must not be sent to other ranks */
    memset(*out, 0, bytes);
    return 0;
}

void cp_ncclrt_free(struct cp_ncclrt *rt, void *ptr, int on_device)
{
    if (!ptr)
        return;
    if (on_device)
        rt->cuda.cudaFree(ptr);
    else
        free(ptr);
}

/* The scratch buffer, at least bytes long. */
static int scratch(struct cp_ncclrt *rt, size_t bytes)
{
    if (rt->scratch_bytes >= bytes)
        return 0;
    cp_ncclrt_free(rt, rt->scratch, rt->device);
    rt->scratch = NULL;
    rt->scratch_bytes = 0;
    if (cp_ncclrt_alloc(rt, bytes, rt->device, &rt->scratch) < 0)
        return -1;
    rt->scratch_bytes = bytes;
    return 0;
}

/* ---- the GPU timer ------------------------------------------------------------ */

/* This rank's two events; 1 when made, 0 when not (why filled). */
static int make_events(struct cp_ncclrt *rt)
{
    const struct cp_ncclrt_cuda *c = &rt->cuda;
    int r;

    if (!rt->device) {
        snprintf(rt->gpu_timer_why, sizeof rt->gpu_timer_why,
                 "host buffers: no GPU stream to time");
        return 0;
    }
    if (!c->cudaEventCreate || !c->cudaEventRecord ||
        !c->cudaEventElapsedTime || !c->cudaEventDestroy) {
        snprintf(rt->gpu_timer_why, sizeof rt->gpu_timer_why,
                 "libcudart has no cudaEventCreate/Record/ElapsedTime/"
                 "Destroy");
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        r = c->cudaEventCreate(&rt->events[i]);
        if (r) {
            rt->events[i] = NULL;
            snprintf(rt->gpu_timer_why, sizeof rt->gpu_timer_why,
                     "rank %d: cudaEventCreate failed: %s", rt->me,
                     c->cudaGetErrorString(r));
            return 0;
        }
    }
    return 1;
}

static void destroy_events(struct cp_ncclrt *rt)
{
    for (int i = 0; i < 2; i++)
        if (rt->events[i])
            rt->cuda.cudaEventDestroy(rt->events[i]);
    rt->events[0] = rt->events[1] = NULL;
    rt->gpu_timer = 0;
}

int cp_ncclrt_gpu_mark(struct cp_ncclrt *rt, int end)
{
    if (!rt->gpu_timer) {
        return cp_errorf(rt->err, "rank %d: no GPU timer", rt->me);
    }
    return cp_ncclrt_cuda_ok(
        rt, rt->cuda.cudaEventRecord(rt->events[end ? 1 : 0], rt->stream),
        "cudaEventRecord");
}

int cp_ncclrt_gpu_elapsed(struct cp_ncclrt *rt, double *seconds)
{
    float ms = 0;

    if (!rt->gpu_timer) {
        return cp_errorf(rt->err, "rank %d: no GPU timer", rt->me);
    }
    if (cp_ncclrt_cuda_ok(rt,
                          rt->cuda.cudaEventElapsedTime(&ms, rt->events[0],
                                                        rt->events[1]),
                          "cudaEventElapsedTime") < 0)
        return -1;
    *seconds = (double)ms * 1e-3;
    return 0;
}

/* ---- world-wide exchanges -------------------------------------------------- */

int cp_ncclrt_sum(struct cp_ncclrt *rt, double *v, size_t n)
{
    size_t bytes = n * sizeof *v;

    if (scratch(rt, bytes > 64 ? bytes : 64) < 0 ||
        cp_ncclrt_to_buffer(rt, rt->scratch, v, bytes) < 0 ||
        cp_ncclrt_nccl_ok(rt,
                          rt->nccl.ncclAllReduce(rt->scratch, rt->scratch, n,
                                                 ncclFloat64, ncclSum,
                                                 rt->comm, rt->stream),
                          "ncclAllReduce (result exchange)") < 0 ||
        cp_ncclrt_sync(rt) < 0)
        return -1;
    return cp_ncclrt_from_buffer(rt, v, rt->scratch, bytes);
}

int cp_ncclrt_min_u64(struct cp_ncclrt *rt, uint64_t *v)
{
    if (scratch(rt, 64) < 0 ||
        cp_ncclrt_to_buffer(rt, rt->scratch, v, sizeof *v) < 0 ||
        cp_ncclrt_nccl_ok(rt,
                          rt->nccl.ncclAllReduce(rt->scratch, rt->scratch, 1,
                                                 ncclUint64, ncclMin,
                                                 rt->comm, rt->stream),
                          "ncclAllReduce (memory bound)") < 0 ||
        cp_ncclrt_sync(rt) < 0)
        return -1;
    return cp_ncclrt_from_buffer(rt, v, rt->scratch, sizeof *v);
}

int cp_ncclrt_barrier(struct cp_ncclrt *rt)
{
    double one = 1;
    return cp_ncclrt_sum(rt, &one, 1);
}

int cp_ncclrt_gather_names(struct cp_ncclrt *rt, const char *mine,
                           char *names)
{
    const size_t width = CP_NCCLRT_NODE_NAME;
    char own[CP_NCCLRT_NODE_NAME];
    char *send, *recv;
    int r;

    memset(own, 0, sizeof own);
    snprintf(own, sizeof own, "%s", mine);
    if (rt->device) {
        /* the p slots, then this rank's own name to send from */
        if (scratch(rt, ((size_t)rt->p + 1) * width) < 0)
            return -1;
        recv = rt->scratch;
        send = recv + (size_t)rt->p * width;
        if (cp_ncclrt_to_buffer(rt, send, own, width) < 0)
            return -1;
    } else {
        send = own;
        recv = names;
    }
    if (cp_ncclrt_nccl_ok(rt,
                          rt->nccl.ncclAllGather(send, recv, width, ncclInt8,
                                                 rt->comm, rt->stream),
                          "ncclAllGather (node names)") < 0 ||
        cp_ncclrt_sync(rt) < 0)
        return -1;
    if (rt->device &&
        cp_ncclrt_from_buffer(rt, names, recv, (size_t)rt->p * width) < 0)
        return -1;
    for (r = 0; r < rt->p; r++)
        names[(size_t)r * width + width - 1] = '\0';
    return 0;
}

/* ---- who is who ------------------------------------------------------------ */

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
        return cp_errorf(err, "%s=%s is not a number from %ld to %ld",
                         name, text, minimum, maximum);
    }
    *value = v;
    return 0;
}

int cp_ncclrt_who(struct cp_ncclrt_who *who, struct cp_error *err)
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

    memset(who, 0, sizeof *who);
    for (i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        if (!getenv(sources[i][0]))
            continue;
        if (!getenv(sources[i][1])) {
            return cp_errorf(err, "%s is set but %s is not",
                             sources[i][0], sources[i][1]);
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
    who->rank = (int)r;
    who->nranks = (int)n;
    who->local_rank = (int)lr;
    node = getenv("COLLPROF_NODE");
    if (!node || !*node)
        node = getenv("SIMNCCL_NODE");
    if (!node || !*node)
        node = getenv("SLURMD_NODENAME");
    if (node && *node) {
        snprintf(who->node, sizeof who->node, "%s", node);
    } else if (gethostname(who->node, sizeof who->node) < 0) {
        snprintf(who->node, sizeof who->node, "localhost");
    }
    who->node[sizeof who->node - 1] = '\0';
    return 0;
}

/* ---- the unique id ----------------------------------------------------------- */

/* COLLPROF_ID_KEY: a secret the ranks share, for the id file's name. */
#define ID_KEY_MIN 16
#define ID_KEY_MAX 64

static int id_key_ok(const char *key)
{
    size_t n = strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                           "0123456789_-");

    return n == strlen(key) && n >= ID_KEY_MIN && n <= ID_KEY_MAX;
}

/* The id file's name: DIR/.collprof-TAG-ncclid, with the run's ids (the
 * launcher's, the user's COLLPROF_RUN_ID) and the ranks' key.  Without a
 * run id or a key its name is known to anyone: then the directory must be
 * one others cannot write to (one where nobody else can plant a file at
 * that name, or take it first). */
static const char *const run_ids[] = {"SLURM_JOB_ID", "SLURM_STEP_ID",
                                      "TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE",
                                      "COLLPROF_RUN_ID"};
#define N_RUN_IDS (sizeof run_ids / sizeof run_ids[0])

static int id_path(struct cp_ncclrt *rt, const struct cp_ncclrt_opts *o)
{
    const char *dir = o->id_dir, *key = getenv("COLLPROF_ID_KEY"),
               *ids[N_RUN_IDS];
    int have_run = 0;
    struct stat st;
    size_t at;
    int n;

    if (!dir || !*dir)
        dir = getenv("SIMNCCL_IDDIR");
    if (!dir || !*dir)
        dir = ".";
    if (key && !*key)
        key = NULL;
    for (size_t i = 0; i < N_RUN_IDS; i++) {
        ids[i] = getenv(run_ids[i]);
        if (ids[i] && !*ids[i])
            ids[i] = NULL;
        if (ids[i] && (strchr(ids[i], '/') || ids[i][0] == '.')) {
            return cp_errorf(rt->err,
                             "%s holds a '/' or starts with '.': not an id "
                             "for the NCCL id file's name",
                             run_ids[i]);
        }
        /* the step alone does not name a run */
        if (ids[i] && strcmp(run_ids[i], "SLURM_STEP_ID") != 0)
            have_run = 1;
    }
    if (key && !id_key_ok(key)) {
        return cp_errorf(rt->err,
                         "COLLPROF_ID_KEY must be %d to %d letters, digits, "
                         "'_' or '-' (a secret the ranks share)",
                         ID_KEY_MIN, ID_KEY_MAX);
    }
    if (!have_run && !key) {
        if (stat(dir, &st) < 0) {
            return cp_errorf(rt->err, "the id directory %s: %s", dir,
                             strerror(errno));
        }
        if (st.st_mode & (S_IWGRP | S_IWOTH)) {
            return cp_errorf(
                rt->err,
                "the id directory %s is writable by other users (mode %04o) "
                "and the run has no job id (SLURM_JOB_ID, "
                "TORCHELASTIC_RUN_ID, PMIX_NAMESPACE, COLLPROF_RUN_ID): the "
                "id file's name would be known to them; set COLLPROF_ID_KEY "
                "to a secret every rank shares (16 to 64 letters or digits), "
                "or use a directory of your own (--id-dir)",
                dir, (unsigned)(st.st_mode & 07777));
        }
    }
    n = snprintf(rt->id_path, sizeof rt->id_path, "%s/.collprof-%s-ncclid",
                 dir, o->id_tag ? o->id_tag : "run");
    for (size_t i = 0; n >= 0 && (size_t)n < sizeof rt->id_path &&
                       i <= N_RUN_IDS;
         i++) {
        const char *part = i < N_RUN_IDS ? ids[i] : key;
        if (!part)
            continue;
        at = (size_t)n;
        n += snprintf(rt->id_path + at, sizeof rt->id_path - at, ".%s",
                      part);
    }
    if (n < 0 || (size_t)n >= sizeof rt->id_path) {
        return cp_errorf(rt->err, "the id file name in %s is too long",
                         dir);
    }
    return 0;
}

/* The id file st is the caller's: a regular file it owns that nobody else
 * may write.  Another user's file there would give this rank their id:
 * NCCL would connect to their listener. */
static int id_file_ours(const struct stat *st, const char *path,
                        struct cp_error *err)
{
    if (!S_ISREG(st->st_mode)) {
        return cp_errorf(err, "%s is not a regular file: refused as the NCCL "
                         "id", path);
    }
    if (st->st_uid != geteuid()) {
        return cp_errorf(err,
                         "%s belongs to uid %u, not to this user (uid %u): "
                         "refused as the NCCL id (another user's file; "
                         "remove it, or use another --id-dir)",
                         path, (unsigned)st->st_uid, (unsigned)geteuid());
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        return cp_errorf(err,
                         "%s is writable by other users (mode %04o): refused "
                         "as the NCCL id",
                         path, (unsigned)(st->st_mode & 07777));
    }
    return 0;
}

/* The id file: a header, then the 128 bytes of ncclUniqueId.  The header
 * says when (rank 0's wall clock), by whom and for how many ranks it was
 * published, so that an id left by a run that died before removing it is
 * told from this run's: the ranks must start within the id timeout of each
 * other, so an id published more than that before a rank started is not
 * its run's. */
#define ID_MAGIC "CPNCID1\n"
struct id_file {
    char magic[8];
    int64_t published_ns; /* CLOCK_REALTIME of rank 0 */
    uint32_t nranks;
    uint32_t pid;
    char host[64];
    char id[NCCL_UNIQUE_ID_BYTES];
};

static int64_t wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Read the id file open at fd (path for messages) into f.  0, or -1 with
 * err filled: not a regular file of ours, or not an id file. */
static int id_file_read(int fd, const char *path, struct id_file *f,
                        struct cp_error *err)
{
    struct stat st;
    size_t got = 0;

    if (fstat(fd, &st) < 0)
        return cp_errorf(err, "%s: %s", path, strerror(errno));
    if (id_file_ours(&st, path, err) < 0)
        return -1;
    while (got < sizeof *f) {
        ssize_t n = read(fd, (char *)f + got, sizeof *f - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got != sizeof *f || st.st_size != (off_t)sizeof *f ||
        memcmp(f->magic, ID_MAGIC, sizeof f->magic) != 0) {
        return cp_errorf(err,
                         "%s holds %lld bytes, not an NCCL id file of "
                         "collprof (remove it)",
                         path, (long long)st.st_size);
    }
    f->host[sizeof f->host - 1] = '\0';
    return 0;
}

/* An id file of ours already at the name when rank 0 publishes: one that a
 * rank of this run could still take for this run's is refused (that rank
 * would join a run that no longer listens); an older one is replaced. */
static int id_stale_check(struct cp_ncclrt *rt, int dirfd, const char *name,
                          const char *path)
{
    char shown[CP_TEXT_SHOWN_SIZE(sizeof ((struct id_file *)0)->host)];
    struct id_file f;
    double age;
    int fd, rc;

    fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0; /* gone meanwhile, or unreadable: the rename decides */
    rc = id_file_read(fd, path, &f, rt->err);
    close(fd);
    if (rc < 0)
        return 0; /* not an id file of ours: no rank takes it, replaced */
    age = (double)(wall_ns() - f.published_ns) / 1e9;
    if (age > rt->id_timeout_s)
        return 0;
    return cp_errorf(rt->err,
                     "%s holds an NCCL id that rank 0 of another run "
                     "published %.1f s ago (pid %u on %s, %u ranks), within "
                     "the id timeout (%g s): this run's ranks may have taken "
                     "it for theirs; if that run is over, remove the file "
                     "and start again, or give each run its own name "
                     "(COLLPROF_RUN_ID)",
                     path, age, (unsigned)f.pid, cp_text_shown(shown, sizeof shown, f.host, sizeof f.host, 0),
                     (unsigned)f.nranks, rt->id_timeout_s);
}

static int publish_id(struct cp_ncclrt *rt, const ncclUniqueId *id)
{
    struct cp_path_out o;
    struct id_file f;
    struct stat st;
    int rc = -1;

    memset(&f, 0, sizeof f);
    memcpy(f.magic, ID_MAGIC, sizeof f.magic);
    f.published_ns = wall_ns();
    f.nranks = (uint32_t)rt->p;
    f.pid = (uint32_t)getpid();
    if (gethostname(f.host, sizeof f.host - 1) < 0)
        snprintf(f.host, sizeof f.host, "?");
    memcpy(f.id, id->internal, sizeof f.id);

    /* a fresh name, then linked to the final one, which must not exist
     * (never through a planted link, never over another user's file); one
     * of ours from an earlier run is replaced, unless it is recent enough
     * that a rank of this run could have read it */
    if (cp_path_create(&o, rt->id_path, 0600, rt->err) < 0)
        return -1;
    if (fwrite(&f, 1, sizeof f, o.f) != sizeof f || fflush(o.f) != 0) {
        cp_error_set(rt->err, NULL, -1, "cannot write %s: %s", o.path,
                     strerror(errno));
    } else if (linkat(o.dirfd, o.tmp, o.dirfd, o.name, 0) == 0) {
        rc = 0;
    } else if (fstatat(o.dirfd, o.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               id_file_ours(&st, o.path, rt->err) < 0) {
        /* another user's file, or a link: refused, said by id_file_ours */
    } else if (id_stale_check(rt, o.dirfd, o.name, o.path) < 0) {
        /* a recent id of another run: refused, said by id_stale_check */
    } else {
        /* ours from an earlier run, or no hard links here: renamed over
         * (a file planted since fails the rename in a sticky directory,
         * and the other ranks check what they read) */
        rc = cp_path_install(&o, rt->err);
    }
    cp_path_discard(&o);
    if (rc == 0)
        rt->id_published = 1;
    return rc;
}

static int wait_id(struct cp_ncclrt *rt, ncclUniqueId *id)
{
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = 10000000};
    double deadline = cp_ncclrt_now_s() + rt->id_timeout_s;
    int64_t started = wall_ns(), window;
    char shown[CP_TEXT_SHOWN_SIZE(sizeof ((struct id_file *)0)->host)];
    double stale_age = -1;
    struct id_file f;
    int fd, rc;

    window = (int64_t)(rt->id_timeout_s * 1e9);
    for (;;) {
        fd = cp_path_open_input(rt->id_path, CP_PATH_NOFOLLOW, rt->err);
        if (fd < 0 && errno != ENOENT)
            return -1;
        if (fd >= 0) {
            rc = id_file_read(fd, rt->id_path, &f, rt->err);
            close(fd);
            if (rc < 0)
                return -1;
            if (f.published_ns >= started - window)
                break;
            /* left by a run that died: rank 0 will replace it */
            stale_age = (double)(started - f.published_ns) / 1e9;
        }
        if (cp_ncclrt_now_s() > deadline) {
            if (stale_age >= 0) {
                return cp_errorf(
                    rt->err,
                    "rank %d: no NCCL unique id from rank 0 in %s after %g s; "
                    "only a stale one, published %.0f s before this rank "
                    "started (pid %u on %s), which is not this run's (is "
                    "rank 0 running?)",
                    rt->me, rt->id_path, rt->id_timeout_s, stale_age,
                    (unsigned)f.pid, cp_text_shown(shown, sizeof shown, f.host, sizeof f.host, 0));
            }
            return cp_errorf(rt->err,
                             "rank %d: no NCCL unique id from rank 0 in %s after "
                             "%g s (is rank 0 running, and do all ranks see this "
                             "directory? --id-dir, or NCCL_COMM_ID)",
                             rt->me, rt->id_path, rt->id_timeout_s);
        }
        nanosleep(&pause, NULL);
    }
    if (f.nranks != (uint32_t)rt->p) {
        return cp_errorf(rt->err,
                         "%s holds the NCCL id of a run of %u ranks (pid %u "
                         "on %s), not of this run's %d: two runs with one id "
                         "name (give each its own: COLLPROF_RUN_ID)",
                         rt->id_path, (unsigned)f.nranks, (unsigned)f.pid,
                         cp_text_shown(shown, sizeof shown, f.host, sizeof f.host, 0), rt->p);
    }
    memcpy(id->internal, f.id, sizeof id->internal);
    return 0;
}

static int exchange_id(struct cp_ncclrt *rt, const struct cp_ncclrt_opts *o,
                       ncclUniqueId *id)
{
    memset(id, 0, sizeof *id);
    /* NCCL_COMM_ID: every rank derives the id from the address itself. */
    if (rt->p == 1 || getenv("NCCL_COMM_ID") || rt->me == 0) {
        if (cp_ncclrt_nccl_ok(rt, rt->nccl.ncclGetUniqueId(id),
                              "ncclGetUniqueId") < 0)
            return -1;
        if (rt->p == 1 || getenv("NCCL_COMM_ID"))
            return 0;
    }
    if (id_path(rt, o) < 0)
        return -1;
    return rt->me == 0 ? publish_id(rt, id) : wait_id(rt, id);
}

/* ---- the communicator ---------------------------------------------------------- */

int cp_ncclrt_open(struct cp_ncclrt *rt, const struct cp_ncclrt_opts *o,
                   const struct cp_ncclrt_who *who, struct cp_error *err)
{
    ncclUniqueId id;
    ncclResult_t res;
    int ndev = 0, cuda_ok = 0;

    memset(rt, 0, sizeof *rt);
    rt->err = err;
    rt->me = who->rank;
    rt->p = who->nranks;
    rt->id_timeout_s = o->id_timeout_s;
    if (load_nccl(rt, o->nccl_path) < 0)
        return -1;

    /* Device buffers where a GPU is there and the NCCL can use them. */
    if (o->memory != CP_NCCLRT_MEMORY_HOST && load_cuda(&rt->cuda) == 0 &&
        rt->cuda.cudaGetDeviceCount(&ndev) == 0 && ndev > 0)
        cuda_ok = 1;
    if (o->memory == CP_NCCLRT_MEMORY_DEVICE && !cuda_ok) {
        return cp_errorf(err,
                         "--memory device: no GPU (libcudart could not be "
                         "loaded or sees no device)");
    }
    rt->device = o->memory == CP_NCCLRT_MEMORY_DEVICE ||
                 (o->memory == CP_NCCLRT_MEMORY_AUTO && cuda_ok &&
                  !getenv("SIMNCCL_NRANKS"));
    if (rt->device) {
        if (cp_ncclrt_cuda_ok(rt,
                              rt->cuda.cudaSetDevice(who->local_rank % ndev),
                              "cudaSetDevice") < 0)
            return -1;
        if (cp_ncclrt_cuda_ok(rt, rt->cuda.cudaStreamCreate(&rt->stream),
                              "cudaStreamCreate") < 0) {
            rt->stream = NULL;
            return -1;
        }
    }
    if (rt->nccl.ncclGetVersion(&rt->nccl_version) != ncclSuccess)
        rt->nccl_version = 0;

    if (exchange_id(rt, o, &id) < 0)
        return -1;
    res = rt->nccl.ncclCommInitRank(&rt->comm, rt->p, id, rt->me);
    if (res != ncclSuccess) {
        rt->comm = NULL;
        return cp_ncclrt_nccl_ok(rt, res, "ncclCommInitRank");
    }
    if (o->gpu_timer) {
        /* Every rank times with events, or none does (the sum is the
         * barrier). */
        int mine = make_events(rt);
        double have = mine;
        if (cp_ncclrt_sum(rt, &have, 1) < 0)
            return -1;
        rt->gpu_timer = have == rt->p;
        if (rt->gpu_timer)
            snprintf(rt->gpu_timer_why, sizeof rt->gpu_timer_why,
                     "CUDA events on each rank's stream around the timed "
                     "calls");
        else if (mine)
            snprintf(rt->gpu_timer_why, sizeof rt->gpu_timer_why,
                     "not every rank could create its CUDA events");
        if (!rt->gpu_timer)
            destroy_events(rt);
    } else if (cp_ncclrt_barrier(rt) < 0) {
        return -1;
    }
    if (rt->id_published) { /* every rank has read it by now */
        unlink(rt->id_path);
        rt->id_published = 0;
    }
    return 0;
}

void cp_ncclrt_close(struct cp_ncclrt *rt, int ok)
{
    if (!rt)
        return;
    if (rt->comm) {
        if (ok || !rt->nccl.ncclCommAbort)
            rt->nccl.ncclCommDestroy(rt->comm);
        else
            rt->nccl.ncclCommAbort(rt->comm);
        rt->comm = NULL;
    }
    destroy_events(rt);
    cp_ncclrt_free(rt, rt->scratch, rt->device);
    rt->scratch = NULL;
    rt->scratch_bytes = 0;
    if (rt->device && rt->stream)
        rt->cuda.cudaStreamDestroy(rt->stream);
    rt->stream = NULL;
    if (rt->id_published)
        unlink(rt->id_path);
    rt->id_published = 0;
}

/* ---- command-line options ------------------------------------------------- */

int cp_ncclrt_parse_option(struct cp_ncclrt_opts *o, int code,
                           const char *text, struct cp_error *err)
{
    struct cp_error e;
    double seconds;

    switch (code) {
    case CP_NCCLRT_OPT_MEMORY:
        if (strcmp(text, "host") == 0)
            o->memory = CP_NCCLRT_MEMORY_HOST;
        else if (strcmp(text, "device") == 0)
            o->memory = CP_NCCLRT_MEMORY_DEVICE;
        else if (strcmp(text, "auto") == 0)
            o->memory = CP_NCCLRT_MEMORY_AUTO;
        else {
            return cp_errorf(err,
                             "--memory: host, device or auto, not '%s'", text);
        }
        return 0;
    case CP_NCCLRT_OPT_NCCL:
        o->nccl_path = text;
        return 0;
    case CP_NCCLRT_OPT_ID_DIR:
        o->id_dir = text;
        return 0;
    case CP_NCCLRT_OPT_ID_TIMEOUT:
        if (cp_units_parse_time(text, &seconds, &e) < 0) {
            return cp_errorf(err, "--id-timeout: %s", e.text);
        }
        if (!(seconds > 0)) {
            return cp_errorf(err, "--id-timeout: must be above 0");
        }
        o->id_timeout_s = seconds;
        return 0;
    default:
        return cp_errorf(err, "option code %d is not the runtime's",
                         code);
    }
}
