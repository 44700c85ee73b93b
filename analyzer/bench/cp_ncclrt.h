/* cp_ncclrt.h - NCCL and cudart loaded at run time, for the commands that
 * run as one process per rank (collprof bench, collprof probe): who this
 * process is, the communicator over all of them, buffers on the host or
 * the GPU, and the few world-wide exchanges they need.  collprof never
 * links libnccl.
 *
 * Who is who (cp_ncclrt_who): rank and rank count from SIMNCCL_RANK/
 * SIMNCCL_NRANKS (simrun), OMPI_COMM_WORLD_RANK/_SIZE (Open MPI),
 * PMI_RANK/PMI_SIZE (MPICH, Intel MPI), SLURM_PROCID/SLURM_NTASKS (srun) or
 * RANK/WORLD_SIZE (torchrun), in that order; without any, one rank.  The
 * local rank (which GPU) from SIMNCCL_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, SLURM_LOCALID or LOCAL_RANK.  The node from
 * COLLPROF_NODE, SIMNCCL_NODE, SLURMD_NODENAME or the host name: the names
 * the shim writes into the logs, so a command's nodes are the analyzer's.
 *
 * The ncclUniqueId: with NCCL_COMM_ID set every rank makes it itself (NCCL
 * bootstraps through that address); otherwise rank 0 writes it to a file in
 * a directory all ranks see (id_dir; SIMNCCL_IDDIR under simrun; else the
 * current one) under a temporary name linked into place, the others wait
 * for it, and rank 0 removes it once every rank has joined.  Its name,
 * `.collprof-TAG-ncclid`, carries SLURM_JOB_ID.SLURM_STEP_ID (and
 * TORCHELASTIC_RUN_ID, PMIX_NAMESPACE, COLLPROF_RUN_ID and the ranks'
 * secret COLLPROF_ID_KEY) where set, so two steps never share one; without
 * a run id or a key, a directory others can write is refused.  The ranks
 * read only a regular file of their own user that nobody else may write;
 * rank 0 never publishes over another user's file (docs/security.md).  The
 * file's header (when rank 0 published it, pid, host, rank count) keeps an
 * id left by a run that died from being taken for this run's.
 *
 * NCCL: dlopen(nccl_path or "libnccl.so.2") and dlsym of the entry points of
 * collprof/cp_nccl.h.  Buffers: device memory through libcudart (dlopen'ed,
 * one GPU per local rank) when memory is DEVICE, or AUTO and cudart finds a
 * GPU and the job does not run under simrun; host memory otherwise (the CPU
 * NCCL of tests/simnccl).
 *
 * Nothing here prints; failures fill the struct cp_error given to
 * cp_ncclrt_open, and return -1.
 */
#ifndef COLLPROF_CP_NCCLRT_H
#define COLLPROF_CP_NCCLRT_H

#include <stddef.h>
#include <stdint.h>

#include <collprof/cp_nccl.h>

#include "cp_error.h"

/* The NCCL entry points, typed by the project's own declarations. */
#define CP_NCCLRT_REQUIRED(X)                                                  \
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
#define CP_NCCLRT_OPTIONAL(X)                                                  \
    X(ncclGetLastError)                                                        \
    X(ncclCommAbort)                                                           \
    X(ncclAlltoAll)                                                            \
    X(ncclGather)                                                              \
    X(ncclScatter)

struct cp_ncclrt_nccl {
    void *handle;
#define CP_NCCLRT_FIELD(name) __typeof__(name) *name;
    CP_NCCLRT_REQUIRED(CP_NCCLRT_FIELD)
    CP_NCCLRT_OPTIONAL(CP_NCCLRT_FIELD)
#undef CP_NCCLRT_FIELD
};

/* The few cudart functions the device path needs.  cudaError_t is an enum
 * (an int); cudaMemcpyKind values are CUDA's. */
enum { CP_CUDA_MEMCPY_H2D = 1, CP_CUDA_MEMCPY_D2H = 2 };

struct cp_ncclrt_cuda {
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
    /* Optional (NULL when the library lacks them): the GPU timer. */
    int (*cudaEventCreate)(void **event);
    int (*cudaEventRecord)(void *event, cudaStream_t stream);
    int (*cudaEventElapsedTime)(float *ms, void *start, void *end);
    int (*cudaEventDestroy)(void *event);
};

enum cp_ncclrt_memory {
    CP_NCCLRT_MEMORY_AUTO = 0,
    CP_NCCLRT_MEMORY_HOST,
    CP_NCCLRT_MEMORY_DEVICE
};

/* Node names are at most this long, NUL included (longer ones are cut). */
#define CP_NCCLRT_NODE_NAME 64

struct cp_ncclrt_who {
    int rank, nranks, local_rank;
    char node[CP_NCCLRT_NODE_NAME];
};

struct cp_ncclrt_opts {
    const char *nccl_path;      /* NULL: libnccl.so.2 from the library path */
    enum cp_ncclrt_memory memory;
    const char *id_dir;         /* NULL: SIMNCCL_IDDIR, else "." */
    double id_timeout_s;        /* how long ranks wait for rank 0's id */
    const char *id_tag;         /* the command: "bench", "probe" */
    int gpu_timer;              /* 1: CUDA events on the stream where device
                                   buffers are used (cp_ncclrt_gpu_mark) */
};

/* The command-line options of the runtime, the same in collprof bench
 * and collprof probe: --memory M, --nccl PATH, --id-dir DIR and
 * --id-timeout T.  A command lists CP_NCCLRT_LONG_OPTIONS in its
 * getopt_long table (the file includes <getopt.h>), passes each of the
 * codes CP_NCCLRT_OPT_* it gets to cp_ncclrt_parse_option, and puts the
 * help lines below in its --help text.  The codes are above any single
 * character and any command's own codes (from 256). */
enum {
    CP_NCCLRT_OPT_MEMORY = 0x1000,
    CP_NCCLRT_OPT_NCCL,
    CP_NCCLRT_OPT_ID_DIR,
    CP_NCCLRT_OPT_ID_TIMEOUT
};

#define CP_NCCLRT_LONG_OPTIONS                                                 \
    {"memory", required_argument, NULL, CP_NCCLRT_OPT_MEMORY},                 \
    {"nccl", required_argument, NULL, CP_NCCLRT_OPT_NCCL},                     \
    {"id-dir", required_argument, NULL, CP_NCCLRT_OPT_ID_DIR},                 \
    {"id-timeout", required_argument, NULL, CP_NCCLRT_OPT_ID_TIMEOUT}

/* --help lines, string literals.  CP_NCCLRT_HELP_MEMORY ends without its
 * newline, so that a command can say more of the buffers. */
#define CP_NCCLRT_HELP_MEMORY                                                  \
    "  --memory M          host, device or auto (default: device buffers\n"   \
    "                      where cudart finds a GPU, outside simrun)"
/* WHO names one process as the command does ("rank" or "task", a string
 * literal of four letters, which the alignment assumes). */
#define CP_NCCLRT_HELP_LOADING(WHO)                                            \
    "  --nccl PATH         the NCCL library (default libnccl.so.2 from the\n"  \
    "                      library path)\n"                                    \
    "  --id-dir DIR        a directory every " WHO " sees, for the NCCL id\n"  \
    "                      (default $SIMNCCL_IDDIR, else the current one;\n"   \
    "                      not needed with NCCL_COMM_ID)\n"                    \
    "  --id-timeout T      how long " WHO "s wait for the id (default 120s)\n"

/* Sets in o the option of code (a CP_NCCLRT_OPT_*) from its value text
 * (getopt_long's optarg, which must outlive o: the paths point into it).
 * 0, or -1 with err filled with a sentence that starts with the option's
 * name ("--memory: host, device or auto, not 'gpu'"). */
int cp_ncclrt_parse_option(struct cp_ncclrt_opts *o, int code,
                           const char *text, struct cp_error *err);

/* One rank's runtime: read the fields, change none. */
struct cp_ncclrt {
    struct cp_ncclrt_nccl nccl;
    struct cp_ncclrt_cuda cuda;
    struct cp_error *err;
    ncclComm_t comm;
    cudaStream_t stream;
    int device;       /* 1: buffers in GPU memory */
    int me, p;        /* this rank, the rank count */
    int nccl_version; /* ncclGetVersion, 0 when it failed */
    char nccl_path[512];
    int gpu_timer;    /* 1: every rank has its two CUDA events */
    char gpu_timer_why[160]; /* how the GPU timer was chosen, or why not */
    /* private */
    void *scratch; /* for the world-wide sums, host or device */
    size_t scratch_bytes;
    char id_path[4200];
    int id_published;
    double id_timeout_s;
    void *events[2]; /* the GPU timer's start and end */
};

/* Who this process is, from the launcher's environment (above).  0, or -1
 * with err filled (a variable that is not a number in range, or a rank
 * without its count). */
int cp_ncclrt_who(struct cp_ncclrt_who *who, struct cp_error *err);

/* Load NCCL (and cudart where device memory may be used), pick the
 * buffers' memory, set this rank's GPU and stream, exchange the unique id
 * and make the communicator over all who->nranks ranks; returns once every
 * rank has joined.  rt is zeroed first.  0, or -1 with err filled (other
 * ranks then fail too or time out); cp_ncclrt_close is needed either way. */
int cp_ncclrt_open(struct cp_ncclrt *rt, const struct cp_ncclrt_opts *o,
                   const struct cp_ncclrt_who *who, struct cp_error *err);

/* Destroy the communicator (abort it when ok is 0 and NCCL can), free the
 * scratch buffer and the stream, remove an id file still there.  NCCL and
 * cudart stay loaded (their threads may outlive the communicator), so
 * buffers of cp_ncclrt_alloc can still be freed after it.  rt may be NULL. */
void cp_ncclrt_close(struct cp_ncclrt *rt, int ok);

/* 0 when r is ncclSuccess, else -1 with err filled ("rank R: WHAT failed:
 * NCCL's text"). */
int cp_ncclrt_nccl_ok(struct cp_ncclrt *rt, ncclResult_t r, const char *what);
/* The same for a cudart result. */
int cp_ncclrt_cuda_ok(struct cp_ncclrt *rt, int r, const char *what);

/* The GPU timer (opts->gpu_timer; rt->gpu_timer says whether it runs):
 * with device buffers, two CUDA events of cudart (dlopen'ed like the rest,
 * cudaEventCreate/Record/ElapsedTime/Destroy), created in cp_ncclrt_open
 * on every rank or on none (the ranks agree, so that every rank's times
 * are of one kind), destroyed by cp_ncclrt_close.  Without device buffers,
 * without those functions, or when one rank cannot create its events,
 * rt->gpu_timer is 0 and gpu_timer_why says why.
 *
 * cp_ncclrt_gpu_mark records the start (end = 0) or end (end = 1) event on
 * this rank's stream; after the end mark and cp_ncclrt_sync,
 * cp_ncclrt_gpu_elapsed gives the device time between the two marks in
 * seconds (cudaEventElapsedTime: about 0.5 us resolution).  0 or -1. */
int cp_ncclrt_gpu_mark(struct cp_ncclrt *rt, int end);
int cp_ncclrt_gpu_elapsed(struct cp_ncclrt *rt, double *seconds);

/* Wait for this rank's stream (nothing with host buffers).  0 or -1. */
int cp_ncclrt_sync(struct cp_ncclrt *rt);

/* n bytes into a buffer of cp_ncclrt_alloc from host memory, and back.
 * 0 or -1. */
int cp_ncclrt_to_buffer(struct cp_ncclrt *rt, void *dst, const void *src,
                        size_t n);
int cp_ncclrt_from_buffer(struct cp_ncclrt *rt, void *dst, const void *src,
                          size_t n);

/* A buffer of bytes on the GPU (on_device) or page-aligned host memory
 * (zeroed); the caller frees it with cp_ncclrt_free (same on_device).
 * 0 or -1. */
int cp_ncclrt_alloc(struct cp_ncclrt *rt, size_t bytes, int on_device,
                    void **out);
void cp_ncclrt_free(struct cp_ncclrt *rt, void *ptr, int on_device);

/* v[0..n) summed over all ranks, in place, every rank the same.  0 or -1. */
int cp_ncclrt_sum(struct cp_ncclrt *rt, double *v, size_t n);
/* *v: its minimum over all ranks.  0 or -1. */
int cp_ncclrt_min_u64(struct cp_ncclrt *rt, uint64_t *v);
/* Returns when every rank has called it.  0 or -1. */
int cp_ncclrt_barrier(struct cp_ncclrt *rt);

/* Every rank's node name: names (p * CP_NCCLRT_NODE_NAME bytes, caller's)
 * receives rank r's at r * CP_NCCLRT_NODE_NAME, NUL-terminated.  0 or -1. */
int cp_ncclrt_gather_names(struct cp_ncclrt *rt, const char *mine,
                           char *names);

/* CLOCK_MONOTONIC in seconds. */
double cp_ncclrt_now_s(void);

#endif
