/* shim_proc.c - the shim under threads, fork and exec (over the null NCCL).
 *
 *   - two threads calling NCCL on two communicators at once: every call is
 *     recorded once, each communicator's sequence is 0..n-1;
 *   - fork after init: the child's calls go nowhere (the parent's log is
 *     untouched); a child that execs gets a log of its own.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "collprof/cp_nccl.h"
#include "cp_logread.h"
#include "tap.h"

#define PER_THREAD 50000

struct worker {
    ncclComm_t comm;
    int failures;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    float buf[8];
    int i;
    for (i = 0; i < PER_THREAD; i++) {
        if (i % 100 == 0) {
            /* groups are per thread: interleave some */
            ncclGroupStart();
            w->failures += ncclSend(buf, 2, ncclFloat32, 1, w->comm, NULL) != 0;
            w->failures += ncclRecv(buf, 2, ncclFloat32, 1, w->comm, NULL) != 0;
            ncclGroupEnd();
        } else {
            w->failures += ncclAllReduce(buf, buf, 8, ncclFloat32, ncclSum,
                                         w->comm, NULL) != 0;
        }
    }
    return NULL;
}

static void reexec(char **argv, const char *dir)
{
    const char *top = getenv("top_builddir");
    char shim[4096];
    snprintf(shim, sizeof shim, "%s/preload/.libs/libcollprof.so",
             top ? top : ".");
    if (access(shim, R_OK) != 0)
        skip_all("libcollprof.so not built");
    setenv("LD_PRELOAD", shim, 1);
    setenv("COLLPROF_DIR", dir, 1);
    setenv("COLLPROF_NODE", "procnode", 1);
    execv("/proc/self/exe", argv);
    perror("execv");
    exit(1);
}

/* Calls per communicator id in file, and whether sequences are 0..n-1. */
static int scan(const char *path, uint64_t *ids, uint64_t *counts, int *gapless,
                uint64_t *groups)
{
    struct cp_logfile *lf = cp_logfile_open(path, NULL);
    union cp_rec r;
    uint32_t next[2] = {0, 0};
    int n = 0;

    *gapless = 1;
    *groups = 0;
    if (!lf)
        return -1;
    while (cp_logfile_next(lf, &r, NULL) == 1) {
        int k;
        if (r.kind == CP_REC_GROUP)
            (*groups)++;
        if (r.kind != CP_REC_CALL || r.call.op != CP_OP_AllReduce)
            continue;
        for (k = 0; k < 2 && ids[k] && ids[k] != r.call.comm_id; k++)
            ;
        if (k == 2)
            continue;
        ids[k] = r.call.comm_id;
        counts[k]++;
        n++;
        /* threads interleave, but each communicator is used by one thread,
         * whose records keep their order: its sequence must be 0, 1, 2 ... */
        if (r.call.seq != next[k])
            *gapless = 0;
        next[k] = r.call.seq + 1;
    }
    cp_logfile_close(lf);
    return n;
}

int main(int argc, char **argv)
{
    static char dir[] = "/tmp/cp-proc-XXXXXX";
    const char *stage = getenv("CP_PROC_STAGE");
    ncclComm_t a, b;
    ncclUniqueId id;
    struct worker wa, wb;
    pthread_t ta, tb;
    char **paths;
    int n, status;
    pid_t pid;
    float buf[4];

    (void)argc;
    if (!stage) {
        if (!mkdtemp(dir))
            return 1;
        setenv("CP_PROC_STAGE", "parent", 1);
        reexec(argv, dir);
    }
    if (strcmp(stage, "exec-child") == 0) {
        /* the exec'd child: one call, its own log */
        memset(&id, 7, sizeof id);
        ncclCommInitRank(&a, 2, id, 0);
        ncclAllReduce(buf, buf, 4, ncclFloat32, ncclSum, a, NULL);
        ncclCommDestroy(a);
        return 0;
    }

    memset(&id, 1, sizeof id);
    ncclCommInitRank(&a, 2, id, 0);
    memset(&id, 2, sizeof id);
    ncclCommInitRank(&b, 2, id, 0);
    wa.comm = a;
    wb.comm = b;
    wa.failures = wb.failures = 0;
    pthread_create(&ta, NULL, work, &wa);
    pthread_create(&tb, NULL, work, &wb);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    ok(wa.failures + wb.failures == 0, "two threads, two communicators: all "
       "calls succeed");

    /* fork: the child calls NCCL, then execs a program that calls NCCL */
    pid = fork();
    if (pid == 0) {
        int i;
        for (i = 0; i < 1000; i++)
            ncclAllReduce(buf, buf, 4, ncclFloat32, ncclSum, a, NULL);
        setenv("CP_PROC_STAGE", "exec-child", 1);
        execv("/proc/self/exe", argv);
        _exit(1);
    }
    waitpid(pid, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "forked child ran and "
       "exec'd");

    n = cp_logdir_list(getenv("COLLPROF_DIR"), &paths, NULL);
    is_int(n, 2, "two logs: the parent's and the exec'd child's");
    if (n == 2) {
        uint64_t ids[2] = {0, 0}, counts[2] = {0, 0}, groups;
        int gapless, i, mine = -1;
        char want[64];
        snprintf(want, sizeof want, ".%d.cplog", (int)getpid());
        for (i = 0; i < 2; i++)
            if (strstr(paths[i], want))
                mine = i;
        ok(mine >= 0, "the parent's log is named by its pid");
        if (mine >= 0) {
            int calls = scan(paths[mine], ids, counts, &gapless, &groups);
            uint64_t want_ar = PER_THREAD - PER_THREAD / 100;
            is_int(calls, 2 * want_ar,
                   "parent log: the threads' all-reduces exactly, none of the "
                   "forked child's");
            ok(counts[0] == want_ar && counts[1] == want_ar && ids[0] != ids[1],
               "each communicator: its thread's calls (%llu, %llu)",
               (unsigned long long)counts[0], (unsigned long long)counts[1]);
            ok(gapless, "each communicator's sequence is 0..n-1 in log order");
            is_int(groups, 2 * (PER_THREAD / 100), "one group record per "
                   "thread group");
            memset(ids, 0, sizeof ids);
            memset(counts, 0, sizeof counts);
            is_int(scan(paths[1 - mine], ids, counts, &gapless, &groups), 1,
                   "the exec'd child's own log: its one call");
        }
    }
    cp_logdir_free(paths);
    ncclCommDestroy(a);
    ncclCommDestroy(b);
    return done_testing();
}
