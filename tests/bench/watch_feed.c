/* watch_feed.c - a job's rank logs growing in real time, and what
 * `collprof watch` costs to follow them (make bench, run-watch.sh).
 *
 * Creates N format-4 rank logs in DIR with the shim's own log writer
 * (cp_log_open, cp_log_slot, cp_log_commit, cp_log_close: the header, node
 * name, ring, log thread and stream the shim produces) and appends NCCL
 * calls to them at a set total rate, paced by the clock, for a set time.
 * Each log is a rank of a job of --world ranks, --ranks-per-node to a
 * node (node names n0000, n0001 ...); log i is global rank --first-rank +
 * i.  A rank's calls repeat a step of a 3-d parallel job: four
 * all-gathers and a reduce-scatter on its node's tensor-parallel
 * communicator ("tp", one per node), a send to the next node and a
 * receive from the one before in a group (the pipeline communicator
 * "pp", one per local rank, with the group's record), and an all-reduce
 * on the world ("world"); sequence numbers grow per communicator (per
 * peer and direction for send/recv).  A call's record is written as the
 * shim writes it: entry (end_ns 0), its kind, then result and end_ns; its
 * start is when the pacing schedules it, its duration 30-90 % of the
 * rank's time between calls (a clock record a second per log, as the
 * shim writes).
 *
 * When --collprof is given, the watcher `collprof watch -q --interval T
 * --metrics FILE --exit-with JOB DIR` is started once the logs exist
 * (JOB: a child of this program standing for the job's launcher, which
 * ends after the check below).  During the run, once a second, the
 * watcher's metrics file is read: the calls it counts (the sum of
 * collprof_calls_total) against the calls written give its backlog.  At
 * the end every log is closed (the job's ranks exit), and the metrics are
 * read until they count every call written (or --settle seconds pass):
 * whether the watcher kept up, and how long after the last call it had
 * read them all.  Then JOB ends, the watcher takes its last look and
 * exits, and its CPU time comes from wait4.
 *
 * --no-log-thread: the logs get no log thread (pthread_create of the
 * linked log writer fails, which the writer handles: the writing thread
 * encodes the ring into the stream when it is full).  One process writing
 * 1,000 logs would otherwise run 1,000 log threads, each of which wakes
 * every 2 ms; a job's ranks have one each, on 125 nodes.  Its ring is
 * then, unless --ring says, the largest power of two (64 to 16384) of at
 * most a second of a log's calls: the stream grows about once a second,
 * as the log thread's flushes it (at least once a second).
 *
 * usage: watch_feed [--logs N] [--world N] [--first-rank G]
 *            [--ranks-per-node R] [--rate CALLS/S] [--duration S]
 *            [--ring CELLS] [--no-log-thread] [--collprof PATH
 *            --interval T --metrics FILE] [--settle S] DIR
 *
 * Prints one line:
 *   logs calls seconds writer_cpu_s writer_late_ms watcher_cpu_s
 *   watcher_calls max_backlog_calls caught_up_s watcher_rc
 * (writer_late_ms: the most the writer was behind its schedule, calls
 * due but not written yet, in ms of the rate; the watcher's fields -1
 * without --collprof; caught_up_s: seconds from the last call written
 * until the metrics counted every call, -1 if they never did; watcher_rc
 * its exit status, 127: it could not be run).  Exit 1 on an error (named
 * on stderr), 2 on bad usage.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cp_logwrite.h"

/* ---- the log thread, or none -------------------------------------------- */

static int no_log_thread;

/* Linked with -Wl,--wrap=pthread_create: the log writer's threads. */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg)
{
    if (no_log_thread)
        return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}

/* ---- clocks ------------------------------------------------------------- */

static uint64_t clock_u64(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void nap_ns(uint64_t ns)
{
    struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

    while (nanosleep(&t, &t) < 0 && errno == EINTR)
        ;
}

/* ---- the job ------------------------------------------------------------ */

#define STEP_CALLS 8
#define COMM_WORLD UINT64_C(0x5eed00000000a11d)
#define COMM_TP UINT64_C(0x7e00000000000000)  /* + node */
#define COMM_PP UINT64_C(0x9900000000000000)  /* + local rank */

/* One rank's log and where it is in its steps. */
struct rank {
    struct cp_log *log;
    int global, node, local;
    uint64_t k;                 /* calls written */
    uint32_t seq_world, seq_tp, seq_send, seq_recv;
    uint32_t group;
    uint64_t group_start;
};

struct job {
    int logs, world, rpn, nodes, first;
    double rate;                /* calls/s over the logs */
    uint64_t period_ns;         /* a rank's time between calls */
    uint64_t t0_real;
    uint64_t rng;
    struct rank *r;
};

static uint32_t rnd(struct job *j)
{
    j->rng = j->rng * UINT64_C(6364136223846793005) +
             UINT64_C(1442695040888963407);
    return (uint32_t)(j->rng >> 33);
}

static int put_comm(struct rank *r, uint64_t id, uint32_t nranks,
                    uint32_t rank, const char *name, uint64_t now)
{
    union cp_rec *rec = cp_log_slot(r->log, NULL);

    if (!rec)
        return -1;
    memset(rec, 0, sizeof *rec);
    rec->comm.how = CP_COMM_INIT_RANK_CONFIG;
    rec->comm.cuda_dev = r->local;
    rec->comm.comm_id = id;
    rec->comm.nranks = nranks;
    rec->comm.rank = rank;
    rec->comm.time_ns = now;
    memcpy(rec->comm.name, name, strnlen(name, CP_COMM_NAME_LEN));
    cp_log_commit(rec, CP_REC_COMM);
    return 0;
}

static int put_clock(struct rank *r)
{
    union cp_rec *rec = cp_log_slot(r->log, NULL);

    if (!rec)
        return -1;
    memset(rec, 0, sizeof *rec);
    rec->clock.realtime_ns = clock_u64(CLOCK_REALTIME);
    rec->clock.monotonic_ns = clock_u64(CLOCK_MONOTONIC);
    cp_log_commit(rec, CP_REC_CLOCK);
    return 0;
}

static int put_group(struct rank *r, uint64_t end)
{
    union cp_rec *rec = cp_log_slot(r->log, NULL);

    if (!rec)
        return -1;
    memset(rec, 0, sizeof *rec);
    rec->group.group = r->group;
    rec->group.ncalls = 2;
    rec->group.start_ns = r->group_start;
    rec->group.end_ns = end;
    cp_log_commit(rec, CP_REC_GROUP);
    return 0;
}

/* The next call of rank r, as the shim writes it: entry, then its end. */
static int put_call(struct job *j, struct rank *r)
{
    unsigned i = (unsigned)(r->k % STEP_CALLS);
    uint64_t start = j->t0_real + r->k * j->period_ns;
    /* 30-90 % of the time between calls */
    uint64_t dur = j->period_ns * (30 + rnd(j) % 61) / 100 + 1;
    union cp_rec *rec;
    uint8_t op;
    uint8_t dtype = 9; /* bfloat16 */
    uint8_t redop = 255;
    uint16_t flags = 0;
    uint64_t comm, count;
    uint32_t seq, rank, nranks, group = 0;
    int32_t peer = -1;
    uint32_t pp_prev = (uint32_t)((r->node + j->nodes - 1) % j->nodes);
    uint32_t pp_next = (uint32_t)((r->node + 1) % j->nodes);

    switch (i) {
    case 0: case 1: case 2: case 3:
        op = CP_OP_AllGather;
        comm = COMM_TP + (uint64_t)r->node;
        count = 1u << 18;
        seq = r->seq_tp++;
        rank = (uint32_t)r->local;
        nranks = (uint32_t)j->rpn;
        break;
    case 4: case 5:
        op = i == 4 ? CP_OP_Send : CP_OP_Recv;
        comm = COMM_PP + (uint64_t)r->local;
        count = 1u << 20;
        seq = i == 4 ? r->seq_send++ : r->seq_recv++;
        peer = (int32_t)(i == 4 ? pp_next : pp_prev);
        rank = (uint32_t)r->node;
        nranks = (uint32_t)j->nodes;
        flags = 1; /* in a group */
        if (i == 4) {
            r->group++;
            r->group_start = start;
        }
        group = r->group;
        break;
    case 6:
        op = CP_OP_ReduceScatter;
        comm = COMM_TP + (uint64_t)r->node;
        count = 1u << 18;
        seq = r->seq_tp++;
        rank = (uint32_t)r->local;
        nranks = (uint32_t)j->rpn;
        redop = 0;
        break;
    default:
        op = CP_OP_AllReduce;
        comm = COMM_WORLD;
        count = 1u << 20;
        dtype = 7; /* float32 */
        seq = r->seq_world++;
        rank = (uint32_t)r->global;
        nranks = (uint32_t)j->world;
        redop = 0;
        break;
    }
    if (!(rec = cp_log_slot(r->log, NULL)))
        return -1;
    rec->call.op = op;
    rec->call.dtype = dtype;
    rec->call.redop = redop;
    rec->call.result = 0;
    rec->call.timer = CP_TIMER_HOST;
    rec->call.flags = flags;
    rec->call.comm_id = comm;
    rec->call.count = count;
    rec->call.seq = seq;
    rec->call.peer = peer;
    rec->call.rank = rank;
    rec->call.nranks = nranks;
    rec->call.group = group;
    rec->call.stream = (uint32_t)(0x51ea0000u + (unsigned)r->local);
    rec->call.start_ns = start;
    rec->call.end_ns = 0;
    cp_log_commit(rec, CP_REC_CALL);
    rec->call.result = 0;
    __atomic_store_n(&rec->call.end_ns, start + dur, __ATOMIC_RELEASE);
    r->k++;
    if (i == 5)
        return put_group(r, start + dur);
    return 0;
}

static int open_logs(struct job *j, const char *dir, uint32_t ring)
{
    uint64_t now = clock_u64(CLOCK_REALTIME);
    int i;

    for (i = 0; i < j->logs; i++) {
        struct rank *r = &j->r[i];
        struct cp_log_ident id;
        struct cp_error err;
        char node[32];
        r->global = j->first + i;
        r->node = r->global / j->rpn;
        r->local = r->global % j->rpn;
        snprintf(node, sizeof node, "n%04d", r->node);
        memset(&id, 0, sizeof id);
        id.global_rank = r->global;
        id.world_size = j->world;
        id.local_rank = r->local;
        id.nccl_version = 22809;
        id.node = node;
        id.hostname = node;
        id.job_id = "4242";
        id.step_id = "0";
        id.timer = CP_TIMER_HOST;
        id.timer_reason = "auto: host (watch_feed)";
        id.program = "watch_feed";
        id.format = 4;
        id.ring_slots = ring;
        memset(&err, 0, sizeof err);
        if (!(r->log = calloc(1, sizeof *r->log))) {
            fprintf(stderr, "watch_feed: out of memory\n");
            return -1;
        }
        if (cp_log_open(r->log, dir, &id, &err) < 0) {
            fprintf(stderr, "watch_feed: %s\n", err.text);
            free(r->log);
            r->log = NULL;
            return -1;
        }
        if (put_clock(r) < 0 ||
            put_comm(r, COMM_WORLD, (uint32_t)j->world, (uint32_t)r->global,
                     "world", now) < 0 ||
            put_comm(r, COMM_TP + (uint64_t)r->node, (uint32_t)j->rpn,
                     (uint32_t)r->local, "tp", now) < 0 ||
            put_comm(r, COMM_PP + (uint64_t)r->local, (uint32_t)j->nodes,
                     (uint32_t)r->node, "pp", now) < 0) {
            fprintf(stderr, "watch_feed: %s: the log cannot grow\n",
                    r->log->path);
            return -1;
        }
    }
    return 0;
}

/* ---- the watcher -------------------------------------------------------- */

/* The calls the watcher's metrics count (the sum of collprof_calls_total),
 * -1 when there is no file yet. */
static double metrics_calls(const char *path)
{
    static const char name[] = "collprof_calls_total{";
    FILE *f = fopen(path, "r");
    char line[1024];
    double sum = 0;

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, name, sizeof name - 1) == 0) {
            const char *sp = strrchr(line, ' ');
            if (sp)
                sum += strtod(sp + 1, NULL);
        }
    fclose(f);
    return sum;
}

/* The job's stand-in: a child that waits until its pipe closes. */
static pid_t start_job(int *wfd)
{
    int p[2];
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) < 0) /* the watcher must not hold it */
        return -1;
    pid = fork();
    if (pid == 0) {
        char c;
        close(p[1]);
        while (read(p[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(p[0]);
    if (pid < 0) {
        close(p[1]);
        return -1;
    }
    *wfd = p[1];
    return pid;
}

static pid_t start_watcher(const char *collprof, const char *interval,
                           const char *metrics, pid_t job, const char *dir)
{
    char jobs[32];
    pid_t pid;

    snprintf(jobs, sizeof jobs, "%ld", (long)job);
    pid = fork();
    if (pid == 0) {
        execl(collprof, collprof, "watch", "-q", "--interval", interval,
              "--metrics", metrics, "--exit-with", jobs, dir, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* wait4 with a limit: the child's status and CPU time, killed when it
 * outlives limit_s.  0, or -1. */
static int reap(pid_t pid, double limit_s, int *status, struct rusage *ru)
{
    uint64_t until = clock_u64(CLOCK_MONOTONIC) + (uint64_t)(limit_s * 1e9);

    for (;;) {
        pid_t got = wait4(pid, status, WNOHANG, ru);
        if (got == pid)
            return 0;
        if (got < 0 && errno != EINTR)
            return -1;
        if (clock_u64(CLOCK_MONOTONIC) > until) {
            kill(pid, SIGKILL);
            return wait4(pid, status, 0, ru) == pid ? 0 : -1;
        }
        nap_ns(10000000u);
    }
}

static void usage(void)
{
    fprintf(stderr,
            "usage: watch_feed [--logs N] [--world N] [--first-rank G]\n"
            "           [--ranks-per-node R] [--rate CALLS/S] [--duration S]\n"
            "           [--ring CELLS] [--no-log-thread] [--collprof PATH\n"
            "           --interval T --metrics FILE] [--settle S] DIR\n");
}

int main(int argc, char **argv)
{
    struct job j;
    const char *dir = NULL, *collprof = NULL, *interval = "1s";
    const char *metrics = NULL;
    double duration = 10, settle = 10, backlog_max = 0, seen = -1;
    double caught_up = -1, late_max = 0;
    uint32_t ring = 0;
    uint64_t written = 0, t0, t_end, next_sample, next_clock;
    pid_t job_pid = -1, watcher = -1;
    int job_fd = -1, i, rc = 0, wstatus = 0, wrc = -1;
    struct rusage self, wru;
    double wcpu = -1;

    memset(&j, 0, sizeof j);
    j.logs = 8;
    j.rpn = 8;
    j.rate = 1e6;
    j.rng = 42;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-log-thread") == 0) {
            no_log_thread = 1;
            continue;
        }
        if (a[0] != '-') {
            if (dir) {
                usage();
                return 2;
            }
            dir = a;
            continue;
        }
        if (!v) {
            usage();
            return 2;
        }
        i++;
        if (strcmp(a, "--logs") == 0)
            j.logs = atoi(v);
        else if (strcmp(a, "--world") == 0)
            j.world = atoi(v);
        else if (strcmp(a, "--first-rank") == 0)
            j.first = atoi(v);
        else if (strcmp(a, "--ranks-per-node") == 0)
            j.rpn = atoi(v);
        else if (strcmp(a, "--rate") == 0)
            j.rate = atof(v);
        else if (strcmp(a, "--duration") == 0)
            duration = atof(v);
        else if (strcmp(a, "--ring") == 0)
            ring = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(a, "--collprof") == 0)
            collprof = v;
        else if (strcmp(a, "--interval") == 0)
            interval = v;
        else if (strcmp(a, "--metrics") == 0)
            metrics = v;
        else if (strcmp(a, "--settle") == 0)
            settle = atof(v);
        else {
            usage();
            return 2;
        }
    }
    if (!j.world)
        j.world = j.first + j.logs;
    if (!dir || j.logs <= 0 || j.rpn <= 0 || j.first < 0 ||
        j.world < j.first + j.logs || j.rate <= 0 || duration <= 0 ||
        (collprof && (!metrics || metrics[0] != '/'))) {
        usage();
        return 2;
    }
    j.nodes = (j.world + j.rpn - 1) / j.rpn;
    j.period_ns = (uint64_t)((double)j.logs / j.rate * 1e9);
    if (j.period_ns < 2)
        j.period_ns = 2;
    if (no_log_thread && !ring) {
        /* the writer encodes when the ring is full: a ring of at most a
         * second of a log's calls, as the log thread's flush */
        double per_log = j.rate / j.logs;
        for (ring = 64; ring < 16384 && 2.0 * ring <= per_log; ring *= 2)
            ;
    }
    if (!(j.r = calloc((size_t)j.logs, sizeof *j.r))) {
        fprintf(stderr, "watch_feed: out of memory\n");
        return 1;
    }
    if (open_logs(&j, dir, ring) < 0) {
        rc = 1;
        goto out;
    }
    if (collprof) {
        if ((job_pid = start_job(&job_fd)) < 0 ||
            (watcher = start_watcher(collprof, interval, metrics, job_pid,
                                     dir)) < 0) {
            fprintf(stderr, "watch_feed: fork: %s\n", strerror(errno));
            rc = 1;
            goto out;
        }
    }
    /* pace: the calls due by now, a millisecond at a time, round robin */
    t0 = clock_u64(CLOCK_MONOTONIC);
    j.t0_real = clock_u64(CLOCK_REALTIME);
    t_end = t0 + (uint64_t)(duration * 1e9);
    next_sample = t0 + 1000000000u;
    next_clock = t0 + 1000000000u;
    for (;;) {
        uint64_t now = clock_u64(CLOCK_MONOTONIC), due;
        if (now >= t_end)
            now = t_end;
        due = (uint64_t)((double)(now - t0) / 1e9 * j.rate);
        if (due > written && (double)(due - written) / j.rate > late_max)
            late_max = (double)(due - written) / j.rate;
        while (written < due) {
            struct rank *r = &j.r[written % (uint64_t)j.logs];
            if (put_call(&j, r) < 0) {
                fprintf(stderr, "watch_feed: %s: the log cannot grow\n",
                        r->log->path);
                rc = 1;
                goto out;
            }
            written++;
        }
        if (now >= t_end)
            break;
        if (now >= next_clock) { /* a clock record a second per log */
            for (i = 0; i < j.logs; i++)
                if (put_clock(&j.r[i]) < 0) {
                    rc = 1;
                    goto out;
                }
            next_clock += 1000000000u;
        }
        if (metrics && now >= next_sample) {
            double c = metrics_calls(metrics);
            if (c >= 0 && (double)written - c > backlog_max)
                backlog_max = (double)written - c;
            next_sample += 1000000000u;
        }
        nap_ns(1000000u);
    }
    /* the job's ranks exit: every log closed, every slot in the stream */
    for (i = 0; i < j.logs; i++)
        cp_log_close(j.r[i].log, 0, 0);
    getrusage(RUSAGE_SELF, &self);
    if (collprof) {
        uint64_t closed = clock_u64(CLOCK_MONOTONIC), now = closed;
        while (now - closed < (uint64_t)(settle * 1e9)) {
            seen = metrics_calls(metrics);
            if (seen >= (double)written) {
                caught_up = (double)(now - t_end) / 1e9;
                break;
            }
            nap_ns(20000000u);
            now = clock_u64(CLOCK_MONOTONIC);
        }
        close(job_fd);
        job_fd = -1;
        waitpid(job_pid, NULL, 0);
        job_pid = -1;
        if (reap(watcher, settle + 30, &wstatus, &wru) == 0) {
            wcpu = tv_s(wru.ru_utime) + tv_s(wru.ru_stime);
            wrc = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
                                     : 128 + WTERMSIG(wstatus);
        }
        watcher = -1;
    }
    printf("%d %llu %.3f %.4f %.1f %.4f %.0f %.0f %.3f %d\n", j.logs,
           (unsigned long long)written, duration,
           tv_s(self.ru_utime) + tv_s(self.ru_stime), late_max * 1e3, wcpu,
           seen,
           collprof ? backlog_max : -1, caught_up, wrc);
out:
    if (job_fd >= 0)
        close(job_fd);
    if (watcher > 0) {
        kill(watcher, SIGKILL);
        waitpid(watcher, NULL, 0);
    }
    if (job_pid > 0)
        waitpid(job_pid, NULL, 0);
    for (i = 0; i < j.logs; i++)
        if (j.r[i].log) {
            cp_log_close(j.r[i].log, 0, 0);
            free(j.r[i].log);
        }
    free(j.r);
    return rc;
}
