/* cp_watch.c - a running job's rank logs, followed as they grow. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "cp_arrive.h"
#include "cp_kinds.h"
#include "cp_log4src.h"
#include "cp_model.h"
#include "cp_path.h"
#include "cp_watch.h"

#define CHUNK 256           /* slots read at a time */
#define SIG_MAX 65536u      /* (communicator, op) pairs remembered */
#define VERSION_WAIT_S 5    /* a version-3 header this long is one */
#define WARM_LOOKS 5        /* looks with calls before a pace is the run's */
#define SHORT_W 0.5         /* weight of a look in the recent pace */
#define LONG_W 0.02         /* ... and in the run's, once warm */
#define SLOW_FACTOR 2.0     /* a recent pace this much below the run's */
#define STATE_ARRIVALS 64   /* instances per communicator in a node's state */
#define STATE_MAX (4u << 20) /* a node's state read at most */

/* One log followed. */
struct wlog {
    char *path;
    int fd;
    struct cp_log4src *src;
    int skip;               /* not followed (noted once) */
    int pid, rank;
    char node[64], host[64];
    uint64_t inflight_start; /* the oldest call in flight, 0: none */
    uint64_t inflight_comm;
    uint32_t inflight_seq;
    uint8_t inflight_op;
    uint64_t last_end;
    int closed;
    time_t first_seen;      /* when the directory first showed it */
    char job[64], step[64];
    uint64_t calls, bytes, busy_ns; /* its finished calls, since its start */
    /* another node's log (cp_watch_set_node): not followed; its calls in
     * flight, closed and alive from that node's state (r_ns: the state's
     * time, 0: none heard) */
    int other;
    int r_alive;
    uint64_t r_ns;
};

/* A communicator and op: its longest finished call; its calls, bytes and
 * time in NCCL on this node's ranks, since their start and since the last
 * metrics (iv_: bytes x busbw factor, for the interval's busbw). */
struct sigmax {
    uint64_t comm;
    uint8_t op;
    uint32_t nranks;
    uint64_t max_ns;
    uint64_t calls, bytes, busy_ns;
    double iv_busbytes;
    uint64_t iv_ns;
    double bwf;             /* the busbw factor at nranks (NaN: none) */
    double busbw;           /* of the last interval that had calls */
    double lk_busbytes;     /* the last look's iv_ (a node's state) */
    uint64_t lk_ns;
    /* the pace of its calls: busbw of the recent looks (fast average) and
     * of the run so far (slow average, after WARM_LOOKS looks with calls);
     * since when the recent is below the run's by the factor (0: not) */
    double bw_short, bw_long;
    unsigned looks;
    uint64_t low_since;
};

/* A communicator, from its creation records: its name, how many of the
 * logs followed have it, whether they are of more than one node. */
struct commname {
    uint64_t comm;
    char name[CP_COMM_NAME_LEN + 1];
    uint32_t nranks, members;
    char node0[64];
    int nodes_many;
};

/* A node whose state the lead reads: the last look of it taken. */
struct rnode {
    char node[64];
    uint64_t look;
};

struct cp_watch {
    char *dir;
    char node[64]; /* "": every log; else only this node's (set_node) */
    int lead;
    uint64_t looks;
    double stale_s; /* a node's state older than this is not believed */
    /* arrivals: of the logs followed; the judge's (the same table but
     * for a lead, which adds the nodes' states to its own node's) */
    struct cp_arrive *local, *judge;
    struct rnode *rnodes;
    size_t nrnodes, rnodecap;
    struct wlog *logs;
    size_t nlogs, cap;
    struct sigmax *sig;
    size_t nsig, sigcap;
    uint32_t *sig_hash; /* index + 1 into sig, open addressing; 0: free */
    size_t hashcap;     /* a power of 2, at least twice nsig */
    signed char coll_of[256]; /* an op's collective (enum cp_coll), -1 */
    struct commname *names;
    size_t nnames, namecap;
    char host[256];
    union cp_rec buf[CHUNK];
};

struct cp_watch *cp_watch_open(const char *dir, struct cp_error *err)
{
    struct cp_watch *w = calloc(1, sizeof *w);

    if (!w || !(w->dir = strdup(dir)) || !(w->local = cp_arrive_new())) {
        if (w)
            free(w->dir);
        free(w);
        cp_errorf(err, "%s: out of memory", dir);
        return NULL;
    }
    if (gethostname(w->host, sizeof w->host - 1) < 0)
        w->host[0] = '\0';
    w->judge = w->local;
    w->stale_s = 30;
    for (int op = 0; op < 256; op++) {
        enum cp_coll coll;
        w->coll_of[op] = cp_model_coll_from_op((unsigned)op, &coll) == 0
                             ? (signed char)coll
                             : -1;
    }
    return w;
}

int cp_watch_set_node(struct cp_watch *w, const char *node, int lead,
                      double stale_s, struct cp_error *err)
{
    if (!node[0] || strlen(node) >= sizeof w->node || strchr(node, '/'))
        return cp_errorf(err, "--node '%s': not a node name", node);
    snprintf(w->node, sizeof w->node, "%s", node);
    w->stale_s = stale_s;
    if (lead && !w->lead) {
        if (!(w->judge = cp_arrive_new())) {
            w->judge = w->local;
            return cp_errorf(err, "%s: out of memory", w->dir);
        }
        w->lead = 1;
    }
    return 0;
}

void cp_watch_close(struct cp_watch *w)
{
    size_t i;

    if (!w)
        return;
    for (i = 0; i < w->nlogs; i++) {
        cp_log4src_close(w->logs[i].src);
        if (w->logs[i].fd >= 0)
            close(w->logs[i].fd);
        free(w->logs[i].path);
    }
    free(w->logs);
    if (w->judge != w->local)
        cp_arrive_free(w->judge);
    cp_arrive_free(w->local);
    free(w->rnodes);
    free(w->sig);
    free(w->sig_hash);
    free(w->names);
    free(w->dir);
    free(w);
}

/* Calls of one collective are one signature whichever of its entry points
 * (ncclBcast, ncclBroadcast) they came through: keyed by the collective,
 * other ops apart. */
static uint8_t sig_key(const struct cp_watch *w, uint8_t op)
{
    return w->coll_of[op] >= 0 ? (uint8_t)w->coll_of[op]
                               : (uint8_t)(128 + op % 128);
}

static size_t sig_slot(const struct cp_watch *w, uint64_t comm, uint8_t key)
{
    uint64_t h = (comm ^ ((uint64_t)key << 56)) * UINT64_C(0x9e3779b97f4a7c15);

    return (size_t)(h >> 32) & (w->hashcap - 1);
}

/* The hash of the signatures, twice as large (0, or -1 out of memory). */
static int sig_rehash(struct cp_watch *w)
{
    size_t cap = w->hashcap ? 2 * w->hashcap : 256, i;
    uint32_t *h = calloc(cap, sizeof *h);

    if (!h)
        return -1;
    free(w->sig_hash);
    w->sig_hash = h;
    w->hashcap = cap;
    for (i = 0; i < w->nsig; i++) {
        size_t k = sig_slot(w, w->sig[i].comm, w->sig[i].op);
        while (h[k])
            k = (k + 1) & (cap - 1);
        h[k] = (uint32_t)i + 1;
    }
    return 0;
}

/* The signature of comm and key (sig_key's), added when add: a hashed
 * lookup, the cost of a call whatever the number of communicators. */
static struct sigmax *sig_find(struct cp_watch *w, uint64_t comm, uint8_t op,
                               int add)
{
    size_t k;

    if (w->hashcap) {
        for (k = sig_slot(w, comm, op); w->sig_hash[k];
             k = (k + 1) & (w->hashcap - 1)) {
            struct sigmax *g = &w->sig[w->sig_hash[k] - 1];
            if (g->comm == comm && g->op == op)
                return g;
        }
    }
    if (!add || w->nsig >= SIG_MAX)
        return NULL;
    if (w->nsig == w->sigcap) {
        size_t cap = w->sigcap ? 2 * w->sigcap : 64;
        struct sigmax *g = realloc(w->sig, cap * sizeof *g);
        if (!g)
            return NULL;
        w->sig = g;
        w->sigcap = cap;
    }
    memset(&w->sig[w->nsig], 0, sizeof w->sig[0]);
    w->sig[w->nsig].comm = comm;
    w->sig[w->nsig].op = op;
    w->sig[w->nsig].bwf = NAN;
    w->nsig++;
    if (2 * w->nsig > w->hashcap) {
        if (sig_rehash(w) < 0) {
            w->nsig--;
            return NULL;
        }
    } else {
        k = sig_slot(w, comm, op);
        while (w->sig_hash[k])
            k = (k + 1) & (w->hashcap - 1);
        w->sig_hash[k] = (uint32_t)w->nsig;
    }
    return &w->sig[w->nsig - 1];
}

static struct sigmax *sig_of(struct cp_watch *w, uint64_t comm, uint8_t op,
                             int add)
{
    return sig_find(w, comm, sig_key(w, op), add);
}

/* A finished call of log l: its log's and its signature's sums, its
 * arrival.  Per call: one hashed lookup, the bytes from the count. */
static void finished(struct cp_watch *w, struct wlog *l,
                     const struct cp_rec_call *c)
{
    struct sigmax *g;
    int coll = w->coll_of[c->op];
    uint64_t dur, bytes = 0;

    if (c->end_ns > l->last_end)
        l->last_end = c->end_ns;
    if (c->end_ns < c->start_ns || (c->flags & CP_CALL_NO_COMM))
        return;
    dur = c->end_ns - c->start_ns;
    if (coll >= 0 && c->nranks > 0) {
        /* the bytes a call moves as NCCL counts them */
        double n = cp_model_bytes_from_count((enum cp_coll)coll, c->count,
                                             cp_dtype_size(c->dtype),
                                             c->nranks);
        bytes = n == n && n > 0 ? (uint64_t)n : 0;
    }
    l->calls++;
    l->bytes += bytes;
    l->busy_ns += dur;
    g = sig_of(w, c->comm_id, c->op, 1);
    if (!g)
        return;
    if (dur > g->max_ns)
        g->max_ns = dur;
    if (coll >= 0 && c->nranks > 0 && (g->nranks != c->nranks || g->bwf != g->bwf))
        g->bwf = cp_model_busbw_factor((enum cp_coll)coll, c->nranks);
    g->nranks = c->nranks;
    g->calls++;
    g->bytes += bytes;
    g->busy_ns += dur;
    if (coll >= 0 && c->nranks > 0) {
        if (g->bwf == g->bwf) /* not NaN */
            g->iv_busbytes += (double)bytes * g->bwf;
        g->iv_ns += dur;
        /* who arrives last: collectives only (a transfer's two ends are
         * not an instance of all ranks) */
        if (coll != CP_COLL_SENDRECV && c->nranks >= 2)
            cp_arrive_add(w->local, c->comm_id, c->nranks, c->seq, l->rank,
                          c->start_ns, c->start_ns);
    }
}

/* An aggregate of the capture policy (docs/capture-policy.md): the calls
 * it folded count as finished calls do, their arrivals excepted (an
 * aggregate has none: the straggler suspicion comes from the detail
 * windows).  Their size is the communicator's as its earlier calls said
 * (the first detail window always comes first). */
static void folded(struct cp_watch *w, struct wlog *l,
                   const struct cp_rec_agg *a)
{
    unsigned op = a->op & ~CP_AGG_GROUPED;
    int coll = op < CP_OP_MAX ? w->coll_of[op] : -1;
    uint64_t max = cp_q16_decode(a->dur_q[3]), bytes = 0;
    struct sigmax *g;

    if (!a->calls || op >= CP_OP_MAX)
        return;
    g = sig_of(w, a->comm_id, (uint8_t)op, 1);
    if (g && coll >= 0 && g->nranks > 0) {
        double n = cp_model_bytes_from_count((enum cp_coll)coll, a->count,
                                             cp_dtype_size(a->dtype),
                                             g->nranks);
        bytes = n == n && n > 0 ? (uint64_t)n * a->calls : 0;
    }
    l->calls += a->calls;
    l->bytes += bytes;
    l->busy_ns += a->sum_ns;
    if (!g)
        return;
    if (max > g->max_ns)
        g->max_ns = max;
    g->calls += a->calls;
    g->bytes += bytes;
    g->busy_ns += a->sum_ns;
    if (coll >= 0 && g->nranks > 0) {
        if (g->bwf == g->bwf)
            g->iv_busbytes += (double)bytes * g->bwf;
        g->iv_ns += a->sum_ns;
    }
}

/* A communicator's creation in log l: its name, one member more. */
static void comm_made(struct cp_watch *w, const struct wlog *l,
                      const struct cp_rec_comm *c)
{
    struct commname *n = NULL;
    size_t i;

    for (i = 0; i < w->nnames && !n; i++)
        if (w->names[i].comm == c->comm_id)
            n = &w->names[i];
    if (!n) {
        if (w->nnames == w->namecap) {
            size_t cap = w->namecap ? 2 * w->namecap : 16;
            struct commname *g;
            if (cap > SIG_MAX || !(g = realloc(w->names, cap * sizeof *g)))
                return;
            w->names = g;
            w->namecap = cap;
        }
        n = &w->names[w->nnames++];
        memset(n, 0, sizeof *n);
        n->comm = c->comm_id;
        snprintf(n->node0, sizeof n->node0, "%s", l->node);
    }
    if (!n->name[0] && c->name[0])
        memcpy(n->name, c->name, CP_COMM_NAME_LEN);
    n->nranks = c->nranks;
    n->members++;
    if (strcmp(n->node0, l->node) != 0)
        n->nodes_many = 1;
}

/* ---- opening a log ------------------------------------------------------ */

static int is_shim_log(const char *name)
{
    size_t n = strlen(name);

    return n > 6 && strcmp(name + n - 6, ".cplog") == 0 &&
           !(n > 11 && strcmp(name + n - 11, ".nccl.cplog") == 0) &&
           name[0] != '.';
}

/* Open l's log and its follower.  0: followed; 1: not yet (its header is
 * not written whole yet); -1: never (the reason in note). */
static int open_log(const struct cp_watch *w, struct wlog *l,
                    struct cp_error *note)
{
    struct cp_log_header h;
    struct stat sb;
    ssize_t got;

    if (l->fd < 0 &&
        (l->fd = cp_path_open_input(l->path, cp_path_log_links(), note)) < 0)
        return -1;
    if (fstat(l->fd, &sb) < 0 || !S_ISREG(sb.st_mode))
        return cp_errorf(note, "%s: not a regular file: not watched",
                         l->path);
    got = pread(l->fd, &h, sizeof h, 0);
    if (got < (ssize_t)sizeof h || memcmp(h.magic, CP_LOG_MAGIC, 8) != 0)
        return 1; /* being created */
    if (h.endian != CP_LOG_ENDIAN)
        return cp_errorf(note, "%s: written in the other byte order: not "
                         "watched", l->path);
    /* the shim writes a version-3 header first and makes it version 4
     * when its ring is set up: a moment's version 3 is that */
    if (h.version == CP_LOG_VERSION_SLOTS &&
        time(NULL) - l->first_seen < VERSION_WAIT_S)
        return 1;
    if (h.version != CP_LOG_VERSION || h.record_size != CP_LOG_RECORD_SIZE)
        return cp_errorf(note, "%s: log format version %u: not watched (the "
                         "watch follows version %u, the shim's default)",
                         l->path, h.version, CP_LOG_VERSION);
    if (h.source != CP_SOURCE_SHIM)
        return cp_errorf(note, "%s: not a shim log: not watched", l->path);
    if (cp_log4src_check(l->path, &h, (uint64_t)sb.st_size, note) < 0)
        return -1;
    l->src = cp_log4src_open(l->path, l->fd, 0, (uint64_t)sb.st_dev,
                             (uint64_t)sb.st_ino, &h, 0, note);
    if (!l->src)
        return -1;
    cp_log4src_follow(l->src);
    l->pid = h.pid;
    l->rank = h.global_rank;
    snprintf(l->node, sizeof l->node, "%.*s", (int)sizeof h.node, h.node);
    if (w->node[0] && strcmp(l->node, w->node) != 0) {
        /* another node's: its watcher follows it */
        cp_log4src_close(l->src);
        l->src = NULL;
        close(l->fd);
        l->fd = -1;
        l->other = 1;
    }
    snprintf(l->host, sizeof l->host, "%.*s", (int)sizeof h.hostname,
             h.hostname);
    snprintf(l->job, sizeof l->job, "%.*s", (int)sizeof h.job_id, h.job_id);
    snprintf(l->step, sizeof l->step, "%.*s", (int)sizeof h.step_id,
             h.step_id);
    return 0;
}

/* Add the log dir/name unless known. */
static int add_log(struct cp_watch *w, const char *name)
{
    char path[4096];
    size_t i;

    if ((size_t)snprintf(path, sizeof path, "%s/%s", w->dir, name) >=
        sizeof path)
        return 0;
    for (i = 0; i < w->nlogs; i++)
        if (strcmp(w->logs[i].path, path) == 0)
            return 0;
    if (w->nlogs == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 32;
        struct wlog *g = realloc(w->logs, cap * sizeof *g);
        if (!g)
            return -1;
        w->logs = g;
        w->cap = cap;
    }
    memset(&w->logs[w->nlogs], 0, sizeof w->logs[0]);
    w->logs[w->nlogs].fd = -1;
    w->logs[w->nlogs].rank = -1;
    w->logs[w->nlogs].first_seen = time(NULL);
    if (!(w->logs[w->nlogs].path = strdup(path)))
        return -1;
    w->nlogs++;
    return 0;
}

static int scan_dir(struct cp_watch *w, struct cp_error *err)
{
    struct dirent *d;
    DIR *dir = cp_path_opendir(w->dir, err);
    int rc = 0;

    if (!dir)
        return -1;
    while (rc == 0 && (d = readdir(dir)))
        if (is_shim_log(d->d_name))
            rc = add_log(w, d->d_name);
    closedir(dir);
    if (rc < 0)
        return cp_errorf(err, "%s: out of memory", w->dir);
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

static uint64_t now_realtime(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct ring_ctx {
    struct cp_watch *w;
    struct wlog *l;
};

static void on_ring(void *arg, uint64_t slot, const void *rec)
{
    struct ring_ctx *x = arg;
    const union cp_rec *r = rec;

    (void)slot;
    if (r->kind != CP_REC_CALL)
        return;
    if (r->call.end_ns != 0) { /* counted when the stream gives it */
        if (r->call.end_ns > x->l->last_end)
            x->l->last_end = r->call.end_ns;
        return;
    }
    if (!x->l->inflight_start || r->call.start_ns < x->l->inflight_start) {
        x->l->inflight_start = r->call.start_ns;
        x->l->inflight_comm = r->call.comm_id;
        x->l->inflight_seq = r->call.seq;
        x->l->inflight_op = r->call.op;
    }
}

/* What l's log gained; its calls in flight now. */
static int follow_log(struct cp_watch *w, struct wlog *l, struct cp_error *note)
{
    struct ring_ctx x = {w, l};
    ssize_t got;
    int rc = cp_log4src_refresh(l->src, note);

    if (rc < 0)
        return -1;
    while ((got = cp_log4src_read(l->src, w->buf, sizeof w->buf)) > 0) {
        size_t i, n = (size_t)got / sizeof w->buf[0];
        for (i = 0; i < n; i++)
            if (w->buf[i].kind == CP_REC_CALL && w->buf[i].call.end_ns)
                finished(w, l, &w->buf[i].call);
            else if (w->buf[i].kind == CP_REC_COMM)
                comm_made(w, l, &w->buf[i].comm);
            else if (w->buf[i].kind == CP_REC_AGG)
                folded(w, l, &w->buf[i].agg);
    }
    if (got < 0) {
        const struct cp_error *p = cp_log4src_problem(l->src);
        if (p)
            *note = *p;
        else
            cp_errorf(note, "%s: unreadable", l->path);
        return -1;
    }
    l->inflight_start = 0;
    if (cp_log4src_ring(l->src, on_ring, &x) < 0)
        return 0;
    l->closed = rc == 1;
    return 0;
}

/* Each communicator's pace after a look: the look's busbw into the recent
 * and the run's averages, and since when the recent is slow. */
static void update_paces(struct cp_watch *w, uint64_t now_ns, double factor)
{
    size_t i;

    for (i = 0; i < w->nsig; i++) {
        struct sigmax *g = &w->sig[i];
        double bw;
        if (!g->iv_ns || g->nranks < 2) {
            g->lk_busbytes = 0;
            g->lk_ns = 0;
            continue;
        }
        bw = g->iv_busbytes / ((double)g->iv_ns / 1e9);
        g->busbw = bw;
        g->lk_busbytes = g->iv_busbytes;
        g->lk_ns = g->iv_ns;
        g->iv_busbytes = 0;
        g->iv_ns = 0;
        g->looks++;
        g->bw_short = g->looks == 1 ? bw : SHORT_W * bw + (1 - SHORT_W) * g->bw_short;
        if (g->looks <= WARM_LOOKS)
            g->bw_long += (bw - g->bw_long) / g->looks;
        else if (g->bw_short * factor >= g->bw_long)
            g->bw_long = LONG_W * bw + (1 - LONG_W) * g->bw_long;
        if (g->looks > WARM_LOOKS && g->bw_short * factor < g->bw_long) {
            if (!g->low_since)
                g->low_since = now_ns;
        } else {
            g->low_since = 0;
        }
    }
}

static int log_alive(const struct cp_watch *w, const struct wlog *l);

/* ---- the nodes' states (a node's watcher writes, the lead reads) -------- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

static int fresh(const struct cp_watch *w, const struct wlog *l)
{
    return l->r_ns && now_realtime() - l->r_ns < (uint64_t)(w->stale_s * 1e9);
}

/* A name that a state's line can carry: printable, no space. */
static int plain(const char *name)
{
    for (; *name; name++)
        if ((unsigned char)*name <= 0x20 || (unsigned char)*name >= 0x7f)
            return 0;
    return 1;
}

static void write_arrival(void *arg, uint64_t comm, uint32_t nranks,
                          uint32_t seq, int rank, uint64_t first_ns,
                          uint64_t last_ns)
{
    fprintf(arg, "arr %016llx %u %u %d %llu %llu\n", (unsigned long long)comm,
            nranks, seq, rank, (unsigned long long)first_ns,
            (unsigned long long)last_ns);
}

int cp_watch_state_write(struct cp_watch *w, struct cp_error *err)
{
    struct cp_path_out o;
    char path[4200];
    size_t i;

    if (!w->node[0])
        return 0;
    snprintf(path, sizeof path, "%s/watch-%s.state", w->dir, w->node);
    if (cp_path_create(&o, path, CP_PATH_MODE, err) < 0)
        return -1;
    fprintf(o.f, "collprof-watch-state 1\nnode %s\nlook %llu\ntime %llu\n",
            w->node, (unsigned long long)w->looks,
            (unsigned long long)now_realtime());
    for (i = 0; i < w->nlogs; i++) {
        const struct wlog *l = &w->logs[i];
        if (!l->src || !plain(base_name(l->path)))
            continue;
        fprintf(o.f, "log %s %d %d %d %llu %016llx %u %u\n",
                base_name(l->path), l->rank, log_alive(w, l), l->closed,
                (unsigned long long)l->inflight_start,
                (unsigned long long)l->inflight_comm, l->inflight_seq,
                l->inflight_op);
    }
    for (i = 0; i < w->nsig; i++) {
        const struct sigmax *g = &w->sig[i];
        fprintf(o.f, "sig %016llx %u %u %llu %.17g %llu\n",
                (unsigned long long)g->comm, g->op, g->nranks,
                (unsigned long long)g->max_ns, g->lk_busbytes,
                (unsigned long long)g->lk_ns);
    }
    cp_arrive_take(w->local, STATE_ARRIVALS, write_arrival, o.f);
    fputs("end\n", o.f);
    return cp_path_install(&o, err);
}

static struct wlog *other_log(struct cp_watch *w, const char *name)
{
    size_t i;

    for (i = 0; i < w->nlogs; i++)
        if (w->logs[i].other && strcmp(base_name(w->logs[i].path), name) == 0)
            return &w->logs[i];
    return NULL;
}

/* One line of node's state taken at time t; fresh: a look not read
 * before (its paces and arrivals count once).  A line that does not parse
 * is skipped. */
static void state_line(struct cp_watch *w, const char *node, const char *line,
                       uint64_t t, int fresh_look)
{
    char name[256];
    unsigned long long a, b, c, d;
    unsigned u1, u2, u3;
    int rank, alive, closed;
    double bb;
    struct wlog *l;
    struct sigmax *g;

    if (sscanf(line, "log %255s %d %d %d %llu %llx %u %u", name, &rank, &alive,
               &closed, &a, &b, &u1, &u2) == 8) {
        /* a node speaks for its own logs only */
        if (!(l = other_log(w, name)) || strcmp(l->node, node) != 0)
            return;
        l->rank = rank;
        l->r_alive = alive < 0 ? -1 : alive > 0;
        l->closed = closed != 0;
        l->inflight_start = a;
        l->inflight_comm = b;
        l->inflight_seq = u1;
        l->inflight_op = (uint8_t)u2;
        l->r_ns = t;
    } else if (sscanf(line, "sig %llx %u %u %llu %lg %llu", &a, &u1, &u2, &b,
                      &bb, &c) == 6 &&
               u1 < 256 && (g = sig_find(w, a, (uint8_t)u1, 1))) {
        g->nranks = u2;
        if (b > g->max_ns)
            g->max_ns = b;
        if (fresh_look && bb == bb && bb >= 0 && c > 0) {
            g->iv_busbytes += bb;
            g->iv_ns += c;
        }
    } else if (fresh_look &&
               sscanf(line, "arr %llx %u %u %d %llu %llu", &a, &u1, &u3, &rank,
                      &c, &d) == 6) {
        cp_arrive_add(w->judge, a, u1, u3, rank, c, d);
    }
}

/* The node of a state file's name, "watch-NODE.state", or NULL. */
static const char *state_node(const char *name, char *node, size_t len)
{
    size_t n = strlen(name);

    if (n <= 12 || strncmp(name, "watch-", 6) != 0 ||
        strcmp(name + n - 6, ".state") != 0 || n - 12 >= len)
        return NULL;
    memcpy(node, name + 6, n - 12);
    node[n - 12] = '\0';
    return node;
}

static struct rnode *rnode_of(struct cp_watch *w, const char *node)
{
    size_t i;

    for (i = 0; i < w->nrnodes; i++)
        if (strcmp(w->rnodes[i].node, node) == 0)
            return &w->rnodes[i];
    if (w->nrnodes == w->rnodecap) {
        size_t cap = w->rnodecap ? 2 * w->rnodecap : 16;
        struct rnode *g = realloc(w->rnodes, cap * sizeof *g);
        if (!g)
            return NULL;
        w->rnodes = g;
        w->rnodecap = cap;
    }
    memset(&w->rnodes[w->nrnodes], 0, sizeof w->rnodes[0]);
    snprintf(w->rnodes[w->nrnodes].node, sizeof w->rnodes[0].node, "%s", node);
    return &w->rnodes[w->nrnodes++];
}

/* A node's state: its header checked (the node it names is its file's),
 * then its lines.  A damaged or foreign one is skipped: the node's
 * watcher writes it again at its next look. */
static void read_state(struct cp_watch *w, const char *name, const char *node)
{
    char path[4200], who[64];
    unsigned long long look = 0, t = 0;
    struct rnode *r;
    struct cp_error e;
    char *text, *line, *save = NULL;
    size_t len;
    int fresh_look;

    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    text = cp_path_read_text(path, CP_PATH_NOFOLLOW, STATE_MAX, "watch state",
                             &len, &e);
    if (!text)
        return;
    if (sscanf(text, "collprof-watch-state 1\nnode %63s\nlook %llu\ntime %llu",
               who, &look, &t) != 3 ||
        strcmp(who, node) != 0 || len < 4 ||
        strcmp(text + len - 4, "end\n") != 0 || !(r = rnode_of(w, node))) {
        free(text);
        return;
    }
    fresh_look = look != r->look;
    r->look = look;
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        state_line(w, node, line, t, fresh_look);
    free(text);
}

static void read_states(struct cp_watch *w)
{
    struct cp_error e;
    struct dirent *d;
    char node[64];
    DIR *dir = cp_path_opendir(w->dir, &e);

    if (!dir)
        return;
    while ((d = readdir(dir)))
        if (state_node(d->d_name, node, sizeof node) &&
            strcmp(node, w->node) != 0)
            read_state(w, d->d_name, node);
    closedir(dir);
}

static void to_judge(void *arg, uint64_t comm, uint32_t nranks, uint32_t seq,
                     int rank, uint64_t first_ns, uint64_t last_ns)
{
    struct cp_watch *w = arg;

    cp_arrive_add(w->judge, comm, nranks, seq, rank, first_ns, last_ns);
}

int cp_watch_poll(struct cp_watch *w, struct cp_error *note,
                  struct cp_error *err)
{
    size_t i;
    int noted = 0;

    note->text[0] = '\0';
    if (scan_dir(w, err) < 0)
        return -1;
    for (i = 0; i < w->nlogs; i++) {
        struct wlog *l = &w->logs[i];
        struct cp_error e;
        int rc = 0;
        if (l->skip)
            continue;
        if (l->other)
            continue;
        if (!l->src && (rc = open_log(w, l, &e)) == 1)
            continue;
        if (rc < 0 || (!l->other && follow_log(w, l, &e) < 0)) {
            l->skip = 1;
            if (!noted++)
                *note = e;
        }
    }
    w->looks++;
    if (w->lead) {
        read_states(w);
        cp_arrive_take(w->local, CP_ARRIVE_KEEP, to_judge, w);
    }
    update_paces(w, now_realtime(), SLOW_FACTOR);
    return 0;
}

int cp_watch_suspect(const struct cp_watch *w, uint64_t now_ns,
                     uint64_t hang_after_ns, double factor,
                     struct cp_watch_suspect *s)
{
    const struct wlog *best = NULL;
    uint64_t best_limit = 0;
    size_t i;

    for (i = 0; i < w->nlogs; i++) {
        const struct wlog *l = &w->logs[i];
        const struct sigmax *g;
        uint64_t limit = hang_after_ns;
        if (l->skip || !(l->src || (l->other && fresh(w, l))) ||
            !l->inflight_start || l->inflight_start > now_ns)
            continue;
        g = sig_of((struct cp_watch *)w, l->inflight_comm, l->inflight_op, 0);
        if (g && (double)g->max_ns * factor > (double)limit)
            limit = (uint64_t)((double)g->max_ns * factor);
        if (now_ns - l->inflight_start < limit)
            continue;
        if (!best || l->inflight_start < best->inflight_start) {
            best = l;
            best_limit = limit;
        }
    }
    if (!best)
        return 0;
    memset(s, 0, sizeof *s);
    s->global_rank = best->rank;
    snprintf(s->node, sizeof s->node, "%s", best->node);
    snprintf(s->path, sizeof s->path, "%s", best->path);
    s->op = best->inflight_op;
    s->comm_id = best->inflight_comm;
    s->seq = best->inflight_seq;
    s->since_ns = best->inflight_start;
    s->limit_ns = best_limit;
    return 1;
}

/* Whether l's writer, a process of this host, has ended: 1, 0, or -1
 * when this host cannot tell. */
static int log_alive(const struct cp_watch *w, const struct wlog *l)
{
    if (l->other)
        return fresh(w, l) ? l->r_alive : -1;
    if (!l->src || l->pid <= 0 ||
        (w->node[0] ? strcmp(l->node, w->node) : strcmp(l->host, w->host)))
        return -1;
    return kill((pid_t)l->pid, 0) == 0 || errno == EPERM ? 1 : 0;
}

size_t cp_watch_logs(const struct cp_watch *w, size_t *done)
{
    size_t i, n = 0;

    *done = 0;
    for (i = 0; i < w->nlogs; i++) {
        if (!w->logs[i].src)
            continue;
        n++;
        *done += w->logs[i].closed || log_alive(w, &w->logs[i]) == 0;
    }
    return n;
}

int cp_watch_alive(const struct cp_watch *w, const char *path)
{
    const char *name = base_name(path);
    size_t i;

    for (i = 0; i < w->nlogs; i++) {
        const struct wlog *l = &w->logs[i];
        if (strcmp(base_name(l->path), name) == 0)
            return log_alive(w, l);
    }
    return -1;
}

/* ---- metrics ------------------------------------------------------------ */

/* v as a Prometheus label value: backslash, double quote and newline
 * escaped, other control bytes dropped. */
static void label(FILE *out, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fprintf(out, "\\%c", *v);
        else if (*v == '\n')
            fputs("\\n", out);
        else if ((unsigned char)*v >= 0x20 && *v != 0x7f)
            fputc(*v, out);
    }
}

static const char *comm_label(const struct cp_watch *w, uint64_t comm,
                              char *buf, size_t len)
{
    size_t i;

    for (i = 0; i < w->nnames; i++)
        if (w->names[i].comm == comm && w->names[i].name[0])
            return w->names[i].name;
    snprintf(buf, len, "%016llx", (unsigned long long)comm);
    return buf;
}

/* "intra" when every rank of comm is in a log followed, all of one node;
 * "inter" when it spans nodes; "unknown" when its creation was not seen. */
static const char *link_class(const struct cp_watch *w, uint64_t comm)
{
    size_t i;

    for (i = 0; i < w->nnames; i++)
        if (w->names[i].comm == comm)
            return !w->names[i].nodes_many &&
                           w->names[i].members >= w->names[i].nranks
                       ? "intra"
                       : "inter";
    return "unknown";
}

/* job, step and user; with_node: the log's node too. */
static void job_labels(FILE *out, const struct wlog *l, const char *user,
                       int with_node)
{
    fputs("job=\"", out);
    label(out, l->job);
    fputs("\",step=\"", out);
    label(out, l->step);
    fputs("\",user=\"", out);
    label(out, user);
    if (with_node) {
        fputs("\",node=\"", out);
        label(out, l->node);
    }
    fputc('"', out);
}

static void head(FILE *out, const char *name, const char *type,
                 const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Per rank: calls, time in NCCL, bytes (counters) and the oldest call in
 * flight (a gauge). */
static void rank_metrics(const struct cp_watch *w, FILE *out,
                         const char *user, uint64_t now_ns)
{
    static const struct {
        const char *name, *type, *help;
    } m[] = {
        {"collprof_calls_total", "counter", "NCCL calls that returned"},
        {"collprof_nccl_seconds_total", "counter",
         "time inside NCCL calls that returned"},
        {"collprof_bytes_total", "counter",
         "bytes of the calls that returned, as NCCL counts them"},
        {"collprof_inflight_oldest_seconds", "gauge",
         "age of the oldest NCCL call in flight (0: none)"},
    };
    size_t k, i;

    for (k = 0; k < sizeof m / sizeof m[0]; k++) {
        head(out, m[k].name, m[k].type, m[k].help);
        for (i = 0; i < w->nlogs; i++) {
            const struct wlog *l = &w->logs[i];
            double v = k == 0   ? (double)l->calls
                       : k == 1 ? (double)l->busy_ns / 1e9
                       : k == 2 ? (double)l->bytes
                       : l->inflight_start && l->inflight_start < now_ns
                           ? (double)(now_ns - l->inflight_start) / 1e9
                           : 0.0;
            if (!l->src)
                continue;
            fprintf(out, "%s{", m[k].name);
            job_labels(out, l, user, 1);
            fprintf(out, ",rank=\"%d\"} %.9g\n", l->rank, v);
        }
    }
}

/* Per communicator and op, the ranks watched: calls (counter) and the
 * busbw of the last look with calls (time-weighted; a gauge). */
static void comm_metrics(struct cp_watch *w, FILE *out, const char *user)
{
    const struct wlog *l0 = NULL;
    char buf[32];
    size_t i, k;

    for (i = 0; i < w->nlogs && !l0; i++)
        if (w->logs[i].src)
            l0 = &w->logs[i];
    if (!l0)
        return;
    for (k = 0; k < 2; k++) {
        head(out, k ? "collprof_busbw_bytes_per_second"
                    : "collprof_comm_calls_total",
             k ? "gauge" : "counter",
             k ? "bus bandwidth of the calls that returned since the "
                 "refresh before (time-weighted over the ranks watched; "
                 "kept while no call returns)"
               : "NCCL calls that returned, per communicator and op, "
                 "over the ranks watched");
        for (i = 0; i < w->nsig; i++) {
            struct sigmax *g = &w->sig[i];
            if ((k && (g->busbw <= 0 || g->nranks < 2)) || g->op >= 128)
                continue;
            fprintf(out, "%s{", k ? "collprof_busbw_bytes_per_second"
                                  : "collprof_comm_calls_total");
            job_labels(out, l0, user, 0);
            fputs(",communicator=\"", out);
            label(out, comm_label(w, g->comm, buf, sizeof buf));
            fprintf(out,
                    "\",comm_id=\"%016llx\",link=\"%s\",op=\"%s\"} %.9g\n",
                    (unsigned long long)g->comm, link_class(w, g->comm),
                    g->op < 128 ? cp_model_coll_name((enum cp_coll)g->op)
                                : "other",
                    k ? g->busbw : (double)g->calls);
        }
    }
}

int cp_watch_metrics(struct cp_watch *w, FILE *out, const char *user,
                     uint64_t now_ns, const unsigned *named)
{
    const struct wlog *l0 = NULL;
    size_t i;
    int k;

    rank_metrics(w, out, user, now_ns);
    comm_metrics(w, out, user);
    for (i = 0; i < w->nlogs && !l0; i++)
        if (w->logs[i].src)
            l0 = &w->logs[i];
    if (!named || !l0)
        return ferror(out) ? -1 : 0;
    head(out, "collprof_findings_named_total", "counter",
         "causes collprof watch named in this step, by kind");
    for (k = 0; k < CP_KIND_COUNT; k++) {
        /* the kinds a watch names, always (a rate needs the zero) */
        if (!named[k] && k != CP_KIND_HANG && k != CP_KIND_SLOWDOWN &&
            k != CP_KIND_STRAGGLER)
            continue;
        fputs("collprof_findings_named_total{", out);
        job_labels(out, l0, user, 0);
        fprintf(out, ",kind=\"%s\"} %u\n", cp_kind_name((enum cp_kind)k),
                named[k]);
    }
    return ferror(out) ? -1 : 0;
}

int cp_watch_slow(const struct cp_watch *w, uint64_t now_ns,
                  uint64_t slow_after_ns, struct cp_watch_slow *out)
{
    const struct sigmax *best = NULL;
    size_t i;

    for (i = 0; i < w->nsig; i++) {
        const struct sigmax *g = &w->sig[i];
        if (!g->low_since || g->low_since > now_ns ||
            now_ns - g->low_since < slow_after_ns)
            continue;
        if (!best || g->bw_short / g->bw_long < best->bw_short / best->bw_long)
            best = g;
    }
    if (!best)
        return 0;
    memset(out, 0, sizeof *out);
    out->comm_id = best->comm;
    out->coll = best->op;
    out->recent_Bps = best->bw_short;
    out->run_Bps = best->bw_long;
    out->since_ns = best->low_since;
    return 1;
}

/* ---- stragglers and the view of --top ----------------------------------- */

struct lasts {
    struct cp_arrive_last *v;
    size_t n, cap;
};

static void keep_last(void *arg, const struct cp_arrive_last *l)
{
    struct lasts *x = arg;

    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        struct cp_arrive_last *g = realloc(x->v, cap * sizeof *g);
        if (!g)
            return;
        x->v = g;
        x->cap = cap;
    }
    x->v[x->n++] = *l;
}

int cp_watch_straggler(const struct cp_watch *w, size_t window, double share,
                       uint64_t min_spread_ns, struct cp_watch_straggler *out)
{
    struct lasts x = {NULL, 0, 0};
    const struct cp_arrive_last *best = NULL;
    size_t i;

    cp_arrive_lasts(w->judge, window, keep_last, &x);
    for (i = 0; i < x.n; i++) {
        const struct cp_arrive_last *l = &x.v[i];
        if (l->complete < window / 2 || l->spread_ns < min_spread_ns ||
            (double)l->last_of < share * (double)l->complete)
            continue;
        if (!best || l->last_of * best->complete > best->last_of * l->complete)
            best = l;
    }
    if (best) {
        memset(out, 0, sizeof *out);
        out->comm_id = best->comm;
        out->nranks = best->nranks;
        out->global_rank = best->rank;
        out->last_of = best->last_of;
        out->complete = best->complete;
        out->spread_ns = best->spread_ns;
    }
    free(x.v);
    return best != NULL;
}

/* The view of (comm, op) g at now_ns into c. */
static void comm_view(const struct cp_watch *w, const struct sigmax *g,
                      const struct lasts *x, uint64_t now_ns,
                      struct cp_watch_comm *c)
{
    char buf[32];
    size_t i;

    memset(c, 0, sizeof *c);
    c->comm_id = g->comm;
    snprintf(c->name, sizeof c->name, "%s",
             comm_label(w, g->comm, buf, sizeof buf));
    c->coll = g->op;
    c->nranks = g->nranks;
    c->busbw = g->busbw;
    c->last_rank = -1;
    for (i = 0; i < w->nlogs; i++) {
        const struct wlog *l = &w->logs[i];
        if (!(l->src || (l->other && fresh(w, l))) || !l->inflight_start ||
            l->inflight_comm != g->comm || sig_key(w, l->inflight_op) != g->op)
            continue;
        c->inflight++;
        if (l->inflight_start < now_ns &&
            now_ns - l->inflight_start > c->oldest_ns)
            c->oldest_ns = now_ns - l->inflight_start;
    }
    for (i = 0; i < x->n; i++)
        if (x->v[i].comm == g->comm) {
            c->last_rank = x->v[i].rank;
            c->last_of = x->v[i].last_of;
            c->complete = x->v[i].complete;
        }
}

void cp_watch_comms(const struct cp_watch *w, uint64_t now_ns, size_t window,
                    void (*fn)(void *arg, const struct cp_watch_comm *c),
                    void *arg)
{
    struct lasts x = {NULL, 0, 0};
    struct cp_watch_comm c;
    size_t i;

    cp_arrive_lasts(w->judge, window, keep_last, &x);
    for (i = 0; i < w->nsig; i++) {
        if (w->sig[i].op >= 128)
            continue;
        comm_view(w, &w->sig[i], &x, now_ns, &c);
        fn(arg, &c);
    }
    free(x.v);
}
