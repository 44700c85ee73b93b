/* cp_watch.c - a running job's rank logs, followed as they grow. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "cp_log4src.h"
#include "cp_path.h"
#include "cp_watch.h"

#define CHUNK 256           /* slots read at a time */
#define SIG_MAX 65536u      /* (communicator, op) pairs remembered */
#define VERSION_WAIT_S 5    /* a version-3 header this long is one */

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
};

/* The longest finished call of a communicator and op. */
struct sigmax {
    uint64_t comm;
    uint8_t op;
    uint64_t max_ns;
};

struct cp_watch {
    char *dir;
    struct wlog *logs;
    size_t nlogs, cap;
    struct sigmax *sig;
    size_t nsig, sigcap;
    char host[256];
    union cp_rec buf[CHUNK];
};

struct cp_watch *cp_watch_open(const char *dir, struct cp_error *err)
{
    struct cp_watch *w = calloc(1, sizeof *w);

    if (!w || !(w->dir = strdup(dir))) {
        free(w);
        cp_errorf(err, "%s: out of memory", dir);
        return NULL;
    }
    if (gethostname(w->host, sizeof w->host - 1) < 0)
        w->host[0] = '\0';
    return w;
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
    free(w->sig);
    free(w->dir);
    free(w);
}

static struct sigmax *sig_of(struct cp_watch *w, uint64_t comm, uint8_t op,
                             int add)
{
    size_t i;

    for (i = 0; i < w->nsig; i++)
        if (w->sig[i].comm == comm && w->sig[i].op == op)
            return &w->sig[i];
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
    w->sig[w->nsig].comm = comm;
    w->sig[w->nsig].op = op;
    w->sig[w->nsig].max_ns = 0;
    return &w->sig[w->nsig++];
}

/* A finished call of log l. */
static void finished(struct cp_watch *w, struct wlog *l,
                     const struct cp_rec_call *c)
{
    struct sigmax *g;

    if (c->end_ns > l->last_end)
        l->last_end = c->end_ns;
    if (c->end_ns < c->start_ns || (c->flags & CP_CALL_NO_COMM))
        return;
    g = sig_of(w, c->comm_id, c->op, 1);
    if (g && c->end_ns - c->start_ns > g->max_ns)
        g->max_ns = c->end_ns - c->start_ns;
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
static int open_log(struct wlog *l, struct cp_error *note)
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
    snprintf(l->host, sizeof l->host, "%.*s", (int)sizeof h.hostname,
             h.hostname);
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
    if (r->call.end_ns != 0) {
        finished(x->w, x->l, &r->call);
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
        if (!l->src && (rc = open_log(l, &e)) == 1)
            continue;
        if (rc < 0 || follow_log(w, l, &e) < 0) {
            l->skip = 1;
            if (!noted++)
                *note = e;
        }
    }
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
        if (l->skip || !l->src || !l->inflight_start ||
            l->inflight_start > now_ns)
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
    if (!l->src || l->pid <= 0 || strcmp(l->host, w->host) != 0)
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

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
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
