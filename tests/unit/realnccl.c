/* realnccl.c - the shim in front of the real libnccl.so.2 (no GPU needed).
 *
 * Without a GPU the real library still answers ncclGetVersion and
 * ncclGetUniqueId, and ncclCommInitRank fails with a CUDA error: the shim
 * must pass all of it through unchanged, and log the failed init.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/cp_nccl.h"
#include "cp_logread.h"
#include "tap.h"

typedef ncclResult_t (*version_fn)(int *);
typedef ncclResult_t (*uid_fn)(ncclUniqueId *);
typedef ncclResult_t (*init_fn)(ncclComm_t *, int, ncclUniqueId, int);
typedef ncclResult_t (*allreduce_fn)(const void *, void *, size_t,
                                     ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                     cudaStream_t);

int main(int argc, char **argv)
{
    const char *cuda = getenv("CUDA_DIR");
    char lib[4096], shim[4096], dir[] = "/tmp/cp-real-XXXXXX";
    void *h;
    int v_shim = 0, v_real = 0, rc_direct, rc_shim;
    ncclUniqueId id;
    ncclComm_t comm = NULL;
    version_fn ver_shim, ver_real;
    init_fn init_shim, init_real;
    allreduce_fn ar_shim;

    (void)argc;
    snprintf(lib, sizeof lib, "%s/lib/libnccl.so.2", cuda ? cuda : "/usr/local/cuda");
    if (access(lib, R_OK) != 0)
        skip_all("no real libnccl.so.2 (CUDA toolkit) on this machine");
    if (!getenv("CP_REAL_TEST_CHILD")) {
        const char *top = getenv("top_builddir");
        snprintf(shim, sizeof shim, "%s/preload/.libs/libcollprof.so",
                 top ? top : ".");
        if (!mkdtemp(dir))
            return 1;
        setenv("LD_PRELOAD", shim, 1);
        setenv("COLLPROF_DIR", dir, 1);
        setenv("CP_REAL_TEST_CHILD", "1", 1);
        execv("/proc/self/exe", argv);
        perror("execv");
        return 1;
    }
    h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (!h)
        skip_all("the real libnccl.so.2 does not load here");
    ver_shim = (version_fn)dlsym(RTLD_DEFAULT, "ncclGetVersion");
    ver_real = (version_fn)dlsym(h, "ncclGetVersion");
    is_int(ver_shim(&v_shim), ncclSuccess, "ncclGetVersion through the shim");
    ver_real(&v_real);
    is_int(v_shim, v_real, "the real version (%d)", v_real);
    ok(v_real >= 20000, "a plausible version code");
    is_int(((uid_fn)dlsym(RTLD_DEFAULT, "ncclGetUniqueId"))(&id), ncclSuccess,
           "ncclGetUniqueId passes through");

    init_shim = (init_fn)dlsym(RTLD_DEFAULT, "ncclCommInitRank");
    init_real = (init_fn)dlsym(h, "ncclCommInitRank");
    ok(init_shim != init_real, "ncclCommInitRank is wrapped");
    rc_shim = init_shim(&comm, 1, id, 0);
    rc_direct = init_real(&comm, 1, id, 0);
    is_int(rc_shim, rc_direct, "init without a GPU: the real error (%d) "
           "returned unchanged", rc_direct);
    ar_shim = (allreduce_fn)dlsym(RTLD_DEFAULT, "ncclAllReduce");
    is_int(ar_shim(NULL, NULL, 1, ncclFloat32, ncclSum, NULL, NULL),
           ((allreduce_fn)dlsym(h, "ncclAllReduce"))(NULL, NULL, 1, ncclFloat32,
                                                       ncclSum, NULL, NULL),
           "allreduce on a NULL comm: the real error, unchanged");
    {
        char **paths;
        struct cp_error err;
        struct cp_logfile *lf;
        union cp_rec rec;
        int seen_init = 0, seen_call = 0;
        if (cp_logdir_list(getenv("COLLPROF_DIR"), &paths, &err) == 1 &&
            (lf = cp_logfile_open(paths[0], &err)) != NULL) {
            is_int(cp_logfile_header(lf)->nccl_version, v_real,
                   "log header has the real version");
            while (cp_logfile_next(lf, &rec, NULL) == 1) {
                if (rec.kind == CP_REC_COMM && rec.comm.how == CP_COMM_INIT_RANK)
                    seen_init = rec.comm.result == rc_direct;
                if (rec.kind == CP_REC_CALL && rec.call.op == CP_OP_AllReduce)
                    seen_call = rec.call.result == rc_direct || rec.call.result != 0;
            }
            cp_logfile_close(lf);
            cp_logdir_free(paths);
        }
        ok(seen_init, "the failed init is logged with its result");
        ok(seen_call, "the failed allreduce is logged with its result");
    }
    return done_testing();
}
