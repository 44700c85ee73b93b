/* log4follow.c - following a version-4 log while the shim's writer
 * (preload/cp_logwrite, cp_logring) writes it: the follower's slots, read
 * as the stream grows, are those a reader of the finished log gets, in
 * the same order, byte for byte; a call in flight holds the stream back
 * and is seen in the ring (end_ns 0) with the calls after it, and reaches
 * the stream once it returns; the end of a closed log is known. */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cp_log4src.h"
#include "cp_logwrite.h"
#include "tap.h"

#define CALLS 200000u
#define T0 UINT64_C(1700000000000000000)

static struct cp_log wlog;

static struct cp_log_ident ident(uint32_t ring)
{
    struct cp_log_ident id;
    memset(&id, 0, sizeof id);
    id.global_rank = 1;
    id.world_size = 2;
    id.node = "n1";
    id.hostname = "h";
    id.timer = CP_TIMER_HOST;
    id.timer_reason = "test";
    id.program = "log4follow.t";
    id.format = 4;
    id.ring_slots = ring;
    return id;
}

static void nap_us(long us)
{
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

/* A call of the writer's: two communicators, counts that now and then
 * change, a pause every 2,000 calls so that the follower meets the
 * stream's end many times. */
static void *writer(void *arg)
{
    uint32_t i;

    (void)arg;
    for (i = 0; i < CALLS; i++) {
        union cp_rec *r = cp_log_slot(&wlog, NULL);
        if (!r)
            return (void *)1;
        memset(r, 0, sizeof *r);
        r->call.op = CP_OP_AllReduce;
        r->call.dtype = 7;
        r->call.seq = i / 2;
        r->call.comm_id = 100 + (i & 1);
        r->call.nranks = 2;
        r->call.count = 1024u + (i % 1000 == 0 ? i : 0);
        r->call.start_ns = T0 + (uint64_t)i * 1000;
        r->call.end_ns = r->call.start_ns + 500 + (i % 7);
        cp_log_commit(r, CP_REC_CALL);
        if (i % 2000 == 1999)
            nap_us(300);
    }
    cp_log_close(&wlog, 0, 0);
    return NULL;
}

static struct cp_log4src *open_src(const char *path, int follow, int *fd)
{
    struct cp_log_header h;
    struct cp_error err;
    struct stat sb;
    struct cp_log4src *s;

    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0 || pread(*fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
        fstat(*fd, &sb) < 0 ||
        cp_log4src_check(path, &h, (uint64_t)sb.st_size, &err) < 0)
        return NULL;
    s = cp_log4src_open(path, *fd, 0, (uint64_t)sb.st_dev,
                        (uint64_t)sb.st_ino, &h, 0, &err);
    if (s && follow)
        cp_log4src_follow(s);
    return s;
}

/* Everything a read gives now, appended to out (cap slots); *n slots. */
static int drain(struct cp_log4src *s, unsigned char *out, uint64_t cap,
                 uint64_t *n)
{
    for (;;) {
        ssize_t got;
        if (*n >= cap)
            return -1;
        got = cp_log4src_read(s, out + *n * 64, (size_t)(cap - *n) * 64);
        if (got < 0)
            return -1;
        if (got == 0)
            return 0;
        *n += (uint64_t)got / 64;
    }
}

struct ringseen {
    uint64_t first, n, in_flight, bad;
    uint64_t next;
};

static void on_ring(void *arg, uint64_t slot, const void *rec)
{
    struct ringseen *r = arg;
    const union cp_rec *u = rec;

    if (r->n == 0)
        r->first = slot;
    else if (slot != r->next)
        r->bad++;
    r->next = slot + 1;
    r->n++;
    if (u->kind == CP_REC_CALL && u->call.end_ns == 0)
        r->in_flight++;
}

static void part_stream(const char *dir)
{
    struct cp_log_ident id = ident(1024);
    unsigned char *seen = calloc(CALLS + 16, 64);
    unsigned char *whole = calloc(CALLS + 16, 64);
    uint64_t n = 0, m = 0, rounds = 0, grew = 0, ring_calls = 0;
    struct cp_log4src *s = NULL, *all;
    struct cp_error err;
    pthread_t th;
    void *ret;
    int fd = -1, fd2, done = 0, i;

    is_int(cp_log_open(&wlog, dir, &id, &err), 0, "a format-4 log, ring 1024");
    s = open_src(wlog.path, 1, &fd);
    ok(s != NULL, "followed from its start");
    pthread_create(&th, NULL, writer, NULL);
    for (i = 0; s && !done && i < 200000; i++) {
        uint64_t before = n;
        struct ringseen r = {0, 0, 0, 0, 0};
        int rc = cp_log4src_refresh(s, &err);
        if (rc < 0 || drain(s, seen, CALLS + 16, &n) < 0)
            break;
        if (rc == 1 && cp_log4src_refresh(s, &err) == 1 &&
            drain(s, seen, CALLS + 16, &n) == 0)
            done = 1;
        rounds++;
        grew += n > before;
        if (cp_log4src_ring(s, on_ring, &r) > 0) {
            ring_calls++;
            if (r.first != cp_log4src_next_slot(s) || r.bad)
                ring_calls = UINT64_MAX / 2; /* a gap: fails below */
        }
        nap_us(100);
    }
    pthread_join(th, &ret);
    ok(ret == NULL, "the writer wrote %u calls and closed the log", CALLS);
    ok(done, "the follower saw the log closed and read to its end");
    is_int((long long)n, CALLS, "it read every slot (%llu)",
           (unsigned long long)n);
    ok(grew >= 10, "... as the log grew: %llu of %llu rounds brought slots",
       (unsigned long long)grew, (unsigned long long)rounds);
    ok(ring_calls < UINT64_MAX / 4,
       "the ring, read %llu times, began at the stream's next slot, no gap",
       (unsigned long long)ring_calls);
    all = open_src(wlog.path, 0, &fd2);
    ok(all && drain(all, whole, CALLS + 16, &m) == 0 && m == n &&
           memcmp(seen, whole, (size_t)n * 64) == 0,
       "byte for byte the slots a reader of the finished log gets (%llu)",
       (unsigned long long)n);
    cp_log4src_close(all);
    cp_log4src_close(s);
    close(fd);
    close(fd2);
    free(seen);
    free(whole);
}

static union cp_rec *put_call(uint32_t i, int in_flight)
{
    union cp_rec *r = cp_log_slot(&wlog, NULL);

    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->call.op = CP_OP_AllReduce;
    r->call.dtype = 7;
    r->call.seq = i;
    r->call.comm_id = 100;
    r->call.nranks = 2;
    r->call.count = 1024;
    r->call.start_ns = T0 + (uint64_t)i * 1000;
    r->call.end_ns = in_flight ? 0 : r->call.start_ns + 500;
    cp_log_commit(r, CP_REC_CALL);
    return r;
}

/* Follow s until it has read want slots in all (or ms pass). */
static void follow_to(struct cp_log4src *s, unsigned char *out, uint64_t *n,
                      uint64_t want, int ms)
{
    struct cp_error err;
    int i;

    for (i = 0; i < ms && *n < want; i++) {
        if (cp_log4src_refresh(s, &err) < 0 || drain(s, out, 64, n) < 0)
            return;
        if (*n < want)
            nap_us(1000);
    }
}

static void part_in_flight(const char *dir)
{
    struct cp_log_ident id = ident(64);
    unsigned char out[64 * 64];
    struct ringseen r = {0, 0, 0, 0, 0};
    struct cp_log4src *s;
    struct cp_error err;
    union cp_rec *hung = NULL;
    uint64_t n = 0;
    uint32_t i;
    int fd, rc;

    is_int(cp_log_open(&wlog, dir, &id, &err), 0, "a second log, ring 64");
    for (i = 0; i < 10; i++)
        put_call(i, 0);
    hung = put_call(10, 1);
    for (i = 11; i < 16; i++)
        put_call(i, 0);
    s = open_src(wlog.path, 1, &fd);
    if (!s || !hung) {
        ok(0, "the log and its call in flight");
        return;
    }
    follow_to(s, out, &n, 10, 5000);
    /* the log thread publishes at least once a second: past that, what
     * the stream holds is all it can hold */
    follow_to(s, out, &n, 11, 1500);
    is_int((long long)n, 10, "the stream stops before the call in flight");
    rc = (int)cp_log4src_ring(s, on_ring, &r);
    ok(rc == 6 && r.first == 10 && r.in_flight == 1 && !r.bad,
       "the ring holds it (slot 10, end_ns 0) and the 5 calls after it "
       "(%d from %llu, %llu in flight)", rc, (unsigned long long)r.first,
       (unsigned long long)r.in_flight);
    is_int((long long)cp_log4src_next_slot(s), 10, "... which the ring "
           "read did not consume");
    __atomic_store_n(&hung->call.end_ns, T0 + 10 * 1000 + 700,
                     __ATOMIC_RELEASE);
    follow_to(s, out, &n, 16, 5000);
    ok(n == 16 && ((union cp_rec *)(void *)(out + 10 * 64))->call.end_ns ==
                      T0 + 10700,
       "once it returns, the stream gives it with its end, and the rest");
    memset(&r, 0, sizeof r);
    is_int(cp_log4src_ring(s, on_ring, &r), 0, "the ring holds nothing more");
    is_int(cp_log4src_refresh(s, &err), 0, "not closed yet");
    cp_log_close(&wlog, 0, 0);
    is_int(cp_log4src_refresh(s, &err), 1, "closed, and every slot read");
    cp_log4src_close(s);
    close(fd);
}

int main(void)
{
    char dir[] = "/tmp/cp-log4follow-XXXXXX";

    if (!mkdtemp(dir))
        return 1;
    part_stream(dir);
    part_in_flight(dir);
    if (fork() == 0) {
        execlp("rm", "rm", "-rf", dir, (char *)NULL);
        _exit(127);
    }
    return done_testing();
}
