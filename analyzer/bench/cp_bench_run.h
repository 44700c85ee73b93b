/* cp_bench_run.h - one rank of collprof bench: NCCL loaded at run time, a
 * size sweep of each collective with every result checked, timed the way
 * nccl-tests times it.
 *
 * Who is who, the unique id's exchange, loading NCCL and cudart and the
 * choice of host or device buffers: cp_ncclrt.h (the id file is
 * `.collprof-bench-ncclid`).  ncclAlltoAll, ncclGather and ncclScatter
 * (NCCL 2.28+) are replaced by grouped ncclSend/ncclRecv where missing, as
 * nccl-tests does; with device buffers, results are copied back to check
 * them.  Every rank learns every other's node through an all-gather, which
 * gives the link classes.
 *
 * One point (a size, out-of-place or in-place): inputs filled with small
 * integers that depend on rank and index (sums stay exact in float), the
 * output prefilled with NaN; one call; every output element checked against
 * its closed-form value (wrong elements summed over the ranks: nccl-tests'
 * #wrong; in-place all-to-all and send/recv are not checked, "N/A", as in
 * nccl-tests); then warm-up calls, a barrier, `iters` calls timed together
 * by the host clock around a stream synchronization; the time is the
 * average per call, averaged over the ranks (nccl-tests' time).  Two more
 * times of the same calls, each averaged over the ranks: with host
 * buffers (calls return when done) the median of the single calls' times
 * (median_time_s: what a call costs when a few calls were delayed by
 * something else on the machine, for the calibration); with device buffers and the GPU timer (cp_ncclrt.h:
 * CUDA events recorded on the stream before the first and after the last
 * call) the device time per call (gpu_time_s).  iters is opts->iters, or
 * adapts: the checked call's time t gives iters = point_time / t within
 * [min_iters, max_iters], and warm-up calls are at most as many.  An op's sweep
 * stops after a size whose call took longer than call_limit_s, and sizes
 * are bounded by memory (a quarter of the node's memory shared by its
 * ranks, or a third of the GPU's free memory, for two buffers).
 *
 * With ranks on several nodes (or pairs = 2), the sweep ends with send/recv
 * between two ranks of one node and between rank 0 and a rank of another
 * node (series with pair = 1), which separate the two link classes.
 *
 * Callbacks are called on rank 0 only, as results come in.  Nothing here
 * prints.
 */
#ifndef COLLPROF_CP_BENCH_RUN_H
#define COLLPROF_CP_BENCH_RUN_H

#include <stdint.h>

#include "cp_bench.h"
#include "cp_error.h"
#include "cp_ncclrt.h"

enum cp_bench_memory {
    CP_BENCH_MEMORY_AUTO = CP_NCCLRT_MEMORY_AUTO,
    CP_BENCH_MEMORY_HOST = CP_NCCLRT_MEMORY_HOST,
    CP_BENCH_MEMORY_DEVICE = CP_NCCLRT_MEMORY_DEVICE
};

/* Who ran, and on what; filled by cp_bench_run as soon as it is known. */
struct cp_bench_run_info {
    int rank, nranks, local_rank;
    unsigned nnodes;
    char node[64];
    int device;       /* 1: device buffers */
    int nccl_version; /* ncclGetVersion */
    char nccl_path[512];
    uint64_t max_bytes; /* the sweep's bound after memory */
    int intra_pair[2];  /* -1 when none */
    int inter_pair[2];
    int fallback_p2p;   /* alltoall/gather/scatter made of send/recv */
    int gpu_timer;      /* 1: CUDA events time the calls too */
    char timer_reason[160]; /* how the timer was chosen, or why not */
};

struct cp_bench_run_opts {
    const char *nccl_path;
    enum cp_bench_memory memory;
    uint64_t min_bytes, max_bytes;
    double step_factor;  /* > 1 */
    unsigned ops;        /* bit (1 << enum cp_coll) per collective */
    unsigned iters;      /* 0: adaptive */
    unsigned warmup;
    unsigned max_iters;  /* adaptive cap */
    double point_time_s;
    double call_limit_s;
    uint64_t memory_limit; /* bytes per rank for buffers; 0: automatic */
    int check;
    int pairs;           /* 0 never, 1 when ranks span nodes, 2 always */
    const char *id_dir;  /* NULL: SIMNCCL_IDDIR, else "." */
    double id_timeout_s;
    int corrupt_coll;    /* testing: -1, or the collective whose checked */
    int corrupt_rank;    /* output gets one wrong element on this rank */
    int gpu_timer;       /* 1: CUDA events where device buffers are used */
    unsigned min_iters;  /* adaptive: at least this many timed calls */

    void *ctx;
    void (*on_start)(void *ctx, const struct cp_bench_run_info *info);
    void (*on_section)(void *ctx, const struct cp_bench_series *s);
    void (*on_line)(void *ctx, const struct cp_bench_point *out_of_place,
                    const struct cp_bench_point *in_place);
    void (*on_section_end)(void *ctx, const struct cp_bench_series *s,
                           const char *note);
};

/* Sets the defaults: 4 B .. 1 GiB by x2, every collective, adaptive
 * iterations (at least 3, at most 20, 5 warm-up, 0.2 s per point, 1 s per
 * call), checks on, pairs when ranks span nodes, the GPU timer on. */
void cp_bench_run_defaults(struct cp_bench_run_opts *o);

/* Run this rank's part; every rank ends with the same points in set.
 * Returns 0 (wrong results are in the points), or -1 when NCCL, CUDA, the
 * bootstrap or memory failed (err says which; other ranks then fail too or
 * time out). */
int cp_bench_run(const struct cp_bench_run_opts *o, struct cp_bench_set *set,
                 struct cp_bench_run_info *info, struct cp_error *err);

#endif
