/* logwrite.c - the rank log writer: growth across chunks, threads, close,
 * the file-size limit, and what a reader sees of it. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_comm.h"
#include "cp_logread.h"
#include "cp_logwrite.h"
#include "tap.h"

static struct cp_log log1;

#define THREADS 4
#define PER_THREAD 20000u

static void *writer(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg, i;
    for (i = 0; i < PER_THREAD; i++) {
        union cp_rec *r = cp_log_slot(&log1, NULL);
        if (!r)
            return (void *)1;
        memset(r, 0, sizeof *r);
        r->call.op = CP_OP_AllReduce;
        r->call.seq = i;
        r->call.stream = t;
        r->call.count = (uint64_t)t * PER_THREAD + i;
        cp_log_commit(r, CP_REC_CALL);
    }
    return NULL;
}

static struct cp_log_ident ident(void)
{
    struct cp_log_ident id;
    memset(&id, 0, sizeof id);
    id.global_rank = 3;
    id.world_size = 4;
    id.node = "../evil/name";
    id.hostname = "h";
    id.timer = CP_TIMER_HOST;
    id.timer_reason = "test";
    id.program = "logwrite.t";
    return id;
}

int main(void)
{
    char dir[] = "/tmp/cp-logwrite-XXXXXX", sub[600];
    struct cp_log_ident id = ident();
    pthread_t th[THREADS];
    struct cp_logfile *lf;
    struct cp_error e, err;
    union cp_rec rec;
    struct stat sb;
    unsigned char *seen;
    uint64_t n = 0, dup = 0;
    int t, failed = 0;
    void *ret;

    if (!mkdtemp(dir))
        return 1;
    snprintf(sub, sizeof sub, "%s/logs", dir);
    is_int(cp_log_open(&log1, sub, &id, &err), 0,
           "open creates the directory and the log");
    ok(strstr(log1.path, "/_._evil_name.") != NULL,
       "node name made safe for a file name: %s", log1.path);
    for (t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, writer, (void *)(uintptr_t)t);
    for (t = 0; t < THREADS; t++) {
        pthread_join(th[t], &ret);
        failed |= ret != NULL;
    }
    ok(!failed, "%u records from %d threads, across chunk boundaries",
       THREADS * PER_THREAD, THREADS);
    cp_log_close(&log1, 0, 5);
    ok(stat(log1.path, &sb) == 0 &&
           (uint64_t)sb.st_size ==
               CP_LOG_HEADER_SIZE + (uint64_t)THREADS * PER_THREAD * 64,
       "close cuts the file to the slots used");
    ok(cp_log_slot(&log1, NULL) == NULL, "no slot after close");

    lf = cp_logfile_open(log1.path, &e);
    ok(lf != NULL, "reader opens it");
    if (!lf)
        return done_testing();
    ok(cp_logfile_header(lf)->flags & CP_HDR_CLOSED, "header says closed");
    is_int(cp_logfile_header(lf)->slots_used, THREADS * PER_THREAD,
           "header: slots used");
    is_int(cp_logfile_header(lf)->records_dropped, 5, "header: dropped count");
    is_int(cp_logfile_header(lf)->global_rank, 3, "header: rank");
    seen = calloc(THREADS * PER_THREAD, 1);
    while (cp_logfile_next(lf, &rec, NULL) == 1) {
        n++;
        if (rec.call.count < THREADS * PER_THREAD && seen[rec.call.count]++)
            dup++;
    }
    is_int(n, THREADS * PER_THREAD, "every record read back");
    is_int(dup, 0, "no record written twice, none lost");
    free(seen);
    cp_logfile_close(lf);

    /* A file-size limit is a full disk, never SIGXFSZ. */
    {
        struct cp_log *log2 = calloc(1, sizeof *log2);
        struct rlimit lim = {CP_LOG_HEADER_SIZE + (1u << 20) + 8192,
                             RLIM_INFINITY};
        uint64_t got = 0;
        getrlimit(RLIMIT_FSIZE, &lim);
        lim.rlim_cur = CP_LOG_HEADER_SIZE + (1u << 20) + 8192;
        setrlimit(RLIMIT_FSIZE, &lim);
        ok(cp_log_open(log2, sub, &id, &err) == 0,
           "a second log of the same pid (after exec) gets its own name");
        ok(strcmp(log2->path, log1.path) != 0 && strstr(log2->path, "-1.cplog"),
           "  named %s", log2->path);
        while (cp_log_slot(log2, NULL) && got < 10 * CP_LOG_CHUNK_SLOTS)
            got++;
        is_int(got, CP_LOG_CHUNK_SLOTS,
               "only the first chunk fits; the next fails cleanly");
        ok(log2->grow_errno == EFBIG, "growth failure is EFBIG");
        cp_log_close(log2, CP_HDR_DISABLED, 0); /* stops the preparer */
        free(log2);
    }
    /* An unusable directory is a clear error. */
    {
        struct cp_log *log3 = calloc(1, sizeof *log3);
        ok(cp_log_open(log3, "/proc/version/x", &id, &err) < 0 &&
               strstr(err.text, "/proc/version/x") != NULL,
           "bad directory: error names it: %s", err.text);
        free(log3);
    }
    /* Communicator table: find, tombstones, handle reuse. */
    {
        int a, b;
        struct cp_comm *c1 = cp_comm_add(&a, 11, 4, 1), *c2;
        ok(c1 && cp_comm_find(&a) == c1 && c1->p2p_size == 8, "comm added");
        ok(cp_comm_find(&b) == NULL, "unknown handle not found");
        cp_comm_remove(&a);
        ok(cp_comm_find(&a) == NULL, "removed comm not found");
        c2 = cp_comm_add(&a, 22, 2, 0);
        ok(c2 && c2 != c1 && cp_comm_find(&a) == c2 && c2->id == 22,
           "a reused handle finds the new communicator");
        ok(cp_hash_mix(1, 2) != cp_hash_mix(2, 1) && cp_hash_mix(0, 0) != 0,
           "id mixing is order-sensitive and never 0");
    }
    return done_testing();
}
