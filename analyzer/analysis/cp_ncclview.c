/* cp_ncclview.c - the NCCL profiler plugin's evidence (cp_ncclview.h).
 *
 * Each plugin log is read once more, apart from the join: its communicator
 * records say which rank of which communicator the process is, its kind 6
 * records what NCCL chose per call, its kind 7 records how long the sends
 * to each peer took.  A send from comm rank r to peer q crosses from r's
 * node to q's node; the plugin logs of all processes together say where
 * every comm rank lives.  A link is judged on the median over its proxy
 * operations (of at least CP_NET_MIN_STEP bytes a step) of each one's
 * fastest step: the sum of its
 * step times also holds every wait a step shared with the rest of the job
 * (a pipelined ring stalls every link behind its slowest, a loaded host
 * delays the proxy), which make steps slower; an operation's fastest step
 * is its least disturbed sample of the wire, and the median operation
 * resists the odd step reported early.  Receives are not used for bandwidth: a receive
 * step also waits for its sender to start.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_logread.h"
#include "cp_ncclview.h"
#include "cp_ncjoin.h"
#include "cp_slots.h"

struct member {
    uint64_t comm;
    uint32_t rank;
    unsigned node;
    const struct cp_analysis_input *file; /* the log that said so */
};

struct send_acc {
    uint64_t comm;
    uint32_t rank, peer;
    uint64_t bytes, busy_ns, ops;
    double *best; /* per operation: its fastest step's bandwidth */
    size_t nbest, capbest;
};

/* Members are found through two open-addressing hashes of indices + 1
 * into members (0: empty): by (comm, rank), each pair once (the first
 * log that said so), and by (comm, log), the first member a log added to
 * a communicator (whose rank its proxy operations are sent from).  A job
 * of plugin logs only has a member per process and communicator: a list
 * searched per record would cost members squared. */
struct view {
    struct member *members;
    size_t nmembers, capmembers;
    struct cp_slots by_rank, by_file; /* of the same capacity */
    struct send_acc *sends;
    size_t nsends, capsends;
    struct cp_slots send_slots; /* by (comm, rank, peer) */
};

static uint64_t file_key(const struct member *m)
{
    return (uint64_t)(uintptr_t)m->file;
}

/* A member's key, for the probes of by_rank and by_file. */
struct member_key {
    const struct view *w;
    uint64_t comm;
    uint32_t rank;
    const struct cp_analysis_input *file;
};

static int is_rank(const void *ctx, size_t i)
{
    const struct member_key *key = ctx;
    const struct member *m = &key->w->members[i];
    return m->comm == key->comm && m->rank == key->rank;
}

static int is_file(const void *ctx, size_t i)
{
    const struct member_key *key = ctx;
    const struct member *m = &key->w->members[i];
    return m->comm == key->comm && m->file == key->file;
}

/* The member of (comm, rank), or of (comm, log) with by_file; -1. */
static long find_by_rank(const struct view *w, uint64_t comm, uint32_t rank)
{
    struct member_key key = {w, comm, rank, NULL};

    if (!w->by_rank.cap)
        return -1;
    return cp_slots_at(&w->by_rank,
                       cp_slots_probe(&w->by_rank, cp_slots_mix2(comm, rank),
                                      is_rank, &key));
}

static long find_by_file(const struct view *w, uint64_t comm,
                         const struct cp_analysis_input *file)
{
    struct member_key key = {w, comm, 0, file};

    if (!w->by_file.cap)
        return -1;
    return cp_slots_at(&w->by_file,
                       cp_slots_probe(&w->by_file,
                                      cp_slots_mix2(comm, (uintptr_t)file),
                                      is_file, &key));
}

/* Put member i into the hashes (by_file only when its log has none in
 * that communicator yet). */
static void index_member(struct view *w, size_t i)
{
    const struct member *m = &w->members[i];

    cp_slots_put(&w->by_rank, cp_slots_mix2(m->comm, m->rank), i);
    if (find_by_file(w, m->comm, m->file) >= 0)
        return;
    cp_slots_put(&w->by_file, cp_slots_mix2(m->comm, file_key(m)), i);
}

/* Room for one more member: the list and, at half full, the hashes
 * (rebuilt in the members' order, so that the first stays first). */
static int member_room(struct view *w)
{
    if (w->nmembers == w->capmembers) {
        size_t cap = w->capmembers ? 2 * w->capmembers : 64;
        struct member *m = realloc(w->members, cap * sizeof *m);
        if (!m)
            return -1;
        w->members = m;
        w->capmembers = cap;
    }
    if (w->nmembers >= UINT32_MAX - 1)
        return -1;
    if (2 * (w->nmembers + 1) > w->by_rank.cap) {
        size_t cap = w->by_rank.cap ? 2 * w->by_rank.cap : 128, i;
        if (cp_slots_reset(&w->by_rank, cap) < 0 ||
            cp_slots_reset(&w->by_file, cap) < 0)
            return -1;
        for (i = 0; i < w->nmembers; i++)
            index_member(w, i);
    }
    return 0;
}

static int compare_node_names(const void *a, const void *b, void *arg)
{
    const struct cp_analysis *an = arg;
    return strcmp(an->nodes[*(const unsigned *)a].name,
                  an->nodes[*(const unsigned *)b].name);
}

/* The node called name (nodes: an's node indices sorted by name), -1. */
static long node_index(const struct cp_analysis *an, const unsigned *nodes,
                       const char *name)
{
    size_t lo = 0, hi = an->nnodes;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(an->nodes[nodes[mid]].name, name);
        if (c == 0)
            return (long)nodes[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static uint64_t size_class(uint64_t bytes)
{
    uint64_t c = 1;

    if (bytes == 0)
        return 0;
    while (c <= bytes / 2)
        c *= 2;
    return c;
}

static int add_algo(struct cp_analysis_nccl *v, const struct cp_rec_nccl *r)
{
    uint64_t cls = size_class(r->bytes);
    struct cp_analysis_algo_row *bigger;
    size_t i;

    for (i = 0; i < v->nalgo; i++) {
        struct cp_analysis_algo_row *a = &v->algo[i];
        if (a->op == r->op && a->bytes == cls && a->algo == r->algo &&
            a->proto == r->proto) {
            a->calls++;
            return 0;
        }
    }
    bigger = realloc(v->algo, (v->nalgo + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    v->algo = bigger;
    v->algo[v->nalgo] = (struct cp_analysis_algo_row){
        .op = r->op, .bytes = cls, .algo = r->algo, .proto = r->proto,
        .calls = 1};
    v->nalgo++;
    return 0;
}

static int add_member(struct view *w, uint64_t comm, uint32_t rank,
                      unsigned node, const struct cp_analysis_input *file)
{
    if (find_by_rank(w, comm, rank) >= 0)
        return 0;
    if (member_room(w) < 0)
        return -1;
    w->members[w->nmembers] = (struct member){comm, rank, node, file};
    index_member(w, w->nmembers);
    w->nmembers++;
    return 0;
}

/* A send's key, for the probe of send_slots. */
struct send_key {
    const struct send_acc *sends;
    uint64_t comm;
    uint32_t rank, peer;
};

static int is_send(const void *ctx, size_t i)
{
    const struct send_key *key = ctx;
    const struct send_acc *a = &key->sends[i];
    return a->comm == key->comm && a->rank == key->rank &&
           a->peer == key->peer;
}

static size_t send_hash(uint64_t comm, uint32_t rank, uint32_t peer)
{
    return cp_slots_mix2(comm, ((uint64_t)rank << 32) | peer);
}

static size_t send_hash_of(const void *ctx, size_t i)
{
    const struct send_acc *a = &((const struct send_acc *)ctx)[i];
    return send_hash(a->comm, a->rank, a->peer);
}

/* Room for one more send: the list, and the hash at half full. */
static int send_room(struct view *w)
{
    if (w->nsends == w->capsends) {
        size_t cap = w->capsends ? 2 * w->capsends : 64;
        struct send_acc *m = realloc(w->sends, cap * sizeof *m);
        if (!m)
            return -1;
        w->sends = m;
        w->capsends = cap;
    }
    return cp_slots_room(&w->send_slots, w->nsends, 128, send_hash_of,
                         w->sends);
}

static int add_send(struct view *w, const struct cp_rec_proxy *p,
                    uint32_t rank)
{
    double best = (double)p->bytes / p->steps_done / p->min_step_ns * 1e9;
    struct send_acc *s = NULL;
    struct send_key key = {w->sends, p->comm_id, rank, (uint32_t)p->peer};

    if (w->send_slots.cap) {
        long at = cp_slots_at(&w->send_slots,
                              cp_slots_probe(&w->send_slots,
                                             send_hash(p->comm_id, rank,
                                                       (uint32_t)p->peer),
                                             is_send, &key));
        if (at >= 0)
            s = &w->sends[at];
    }
    if (s) {
        s->bytes += p->bytes;
        s->busy_ns += p->busy_ns;
        s->ops++;
        if (s->nbest == s->capbest) {
            size_t cap = s->capbest ? 2 * s->capbest : 16;
            double *b = realloc(s->best, cap * sizeof *b);
            if (!b)
                return -1;
            s->best = b;
            s->capbest = cap;
        }
        s->best[s->nbest++] = best;
        return 0;
    }
    if (send_room(w) < 0)
        return -1;
    s = &w->sends[w->nsends];
    *s = (struct send_acc){p->comm_id, rank, (uint32_t)p->peer, p->bytes,
                           p->busy_ns, 1, malloc(16 * sizeof(double)), 1, 16};
    if (!s->best)
        return -1;
    s->best[0] = best;
    cp_slots_put(&w->send_slots, send_hash(s->comm, s->rank, s->peer),
                 w->nsends);
    w->nsends++;
    return 0;
}

static long member_node(const struct view *w, uint64_t comm, uint32_t rank)
{
    long i = find_by_rank(w, comm, rank);

    return i < 0 ? -1 : (long)w->members[i].node;
}

static int read_input(struct cp_analysis *an, struct view *w,
                      const unsigned *nodes,
                      const struct cp_analysis_input *in)
{
    struct cp_analysis_nccl *v = &an->nccl;
    struct cp_logfile *lf;
    struct cp_error err;
    union cp_rec rec;
    long node = node_index(an, nodes, in->node);
    uint64_t last_comm = 0;
    uint32_t last_rank = 0;
    int rc = -1;

    lf = cp_logfile_reopen(in->path, in->log, &err);
    if (!lf)
        return 0; /* already listed among the problems of the inputs */
    while (cp_logfile_next(lf, &rec, NULL) == 1) {
        switch (rec.kind) {
        case CP_REC_COMM:
            if (node >= 0 && rec.comm.comm_id &&
                add_member(w, rec.comm.comm_id, rec.comm.rank,
                           (unsigned)node, in) < 0)
                goto out;
            break;
        case CP_REC_NCCL:
            if (!(rec.nccl.flags & CP_NCCL_P2P) && add_algo(v, &rec.nccl) < 0)
                goto out;
            break;
        case CP_REC_PROXY:
            v->proxy_ops++;
            /* bandwidth-bound operations only */
            if (rec.proxy.dir != CP_PROXY_SEND || rec.proxy.peer < 0 ||
                rec.proxy.steps_done == 0 || rec.proxy.min_step_ns == 0 ||
                rec.proxy.bytes / rec.proxy.steps_done < CP_NET_MIN_STEP)
                break;
            /* this process's rank in the communicator: its comm record */
            if (rec.proxy.comm_id != last_comm) {
                /* the first member this log added (its node is the
                 * log's) */
                long i = find_by_file(w, rec.proxy.comm_id, in);
                if (i < 0)
                    break;
                last_comm = rec.proxy.comm_id;
                last_rank = w->members[i].rank;
            }
            if (add_send(w, &rec.proxy, last_rank) < 0)
                goto out;
            break;
        default:
            break;
        }
    }
    rc = 0;
out:
    cp_logfile_close(lf);
    return rc;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A link's key, for the probe of build_links' table. */
struct link_key {
    const struct cp_analysis_net_link *links;
    unsigned from, to;
};

static int is_link(const void *ctx, size_t i)
{
    const struct link_key *key = ctx;
    return key->links[i].from == key->from && key->links[i].to == key->to;
}

/* Sum the sends per (from node, to node); judge the links against their
 * median. */
static int build_links(struct cp_analysis *an, const struct view *w)
{
    struct cp_analysis_nccl *v = &an->nccl;
    double *bw = NULL;
    struct cp_slots slots = {NULL, 0}; /* links by (from, to) */
    size_t i, j, n = 0, cap = 128, caplinks = 0;
    int rc = -1;

    while (cap < 2 * w->nsends + 2) /* at most a link per send */
        cap *= 2;
    if (cp_slots_reset(&slots, cap) < 0)
        goto out;
    for (i = 0; i < w->nsends; i++) {
        const struct send_acc *s = &w->sends[i];
        long a = member_node(w, s->comm, s->rank);
        long b = member_node(w, s->comm, s->peer);
        struct link_key key = {v->links, (unsigned)a, (unsigned)b};
        size_t k;

        if (a < 0 || b < 0 || a == b)
            continue; /* inside a node, or a peer without a plugin log */
        k = cp_slots_probe(&slots, cp_slots_mix2((uint64_t)a, (uint64_t)b),
                           is_link, &key);
        if (cp_slots_at(&slots, k) >= 0) {
            j = (size_t)cp_slots_at(&slots, k);
        } else {
            if (v->nlinks == caplinks) {
                size_t c2 = caplinks ? 2 * caplinks : 16;
                struct cp_analysis_net_link *bigger =
                    realloc(v->links, c2 * sizeof *bigger);
                if (!bigger)
                    goto out;
                v->links = bigger;
                caplinks = c2;
            }
            j = v->nlinks++;
            memset(&v->links[j], 0, sizeof v->links[j]);
            v->links[j].from = (unsigned)a;
            v->links[j].to = (unsigned)b;
            cp_slots_set(&slots, k, j);
        }
        v->links[j].bytes += s->bytes;
        v->links[j].ops += s->ops;
        v->links[j].busy_s += (double)s->busy_ns * 1e-9;
        if (s->nbest > 0) {
            /* the median operation's fastest step: a step can be delayed
             * by anything, and rarely reported early; the median of the
             * per-operation bests resists both */
            qsort(s->best, s->nbest, sizeof *s->best, compare_double);
            if (s->best[s->nbest / 2] > v->links[j].step_bandwidth_Bps)
                v->links[j].step_bandwidth_Bps = s->best[s->nbest / 2];
        }
    }
    bw = malloc((v->nlinks + 1) * sizeof *bw);
    if (!bw)
        goto out;
    for (j = 0; j < v->nlinks; j++) {
        struct cp_analysis_net_link *l = &v->links[j];
        l->bandwidth_Bps = l->busy_s > 0 ? (double)l->bytes / l->busy_s : NAN;
        if ((double)l->bytes >= CP_NET_MIN_BYTES &&
            isfinite(l->step_bandwidth_Bps))
            bw[n++] = l->step_bandwidth_Bps;
    }
    v->median_Bps = NAN;
    if (n >= 3) { /* a median of two says nothing about which one is slow */
        qsort(bw, n, sizeof *bw, compare_double);
        v->median_Bps = n % 2 ? bw[n / 2] : (bw[n / 2 - 1] + bw[n / 2]) / 2;
        for (j = 0; j < v->nlinks; j++) {
            struct cp_analysis_net_link *l = &v->links[j];
            l->slow = (double)l->bytes >= CP_NET_MIN_BYTES &&
                      l->step_bandwidth_Bps < CP_NET_SLOW * v->median_Bps;
        }
    }
    rc = 0;
out:
    cp_slots_free(&slots);
    free(bw);
    return rc;
}

int cp_ncclview_build(struct cp_analysis *an)
{
    struct view w;
    unsigned *nodes = NULL;
    size_t i;
    int rc = -1;

    memset(&w, 0, sizeof w);
    for (i = 0; i < an->ninputs; i++) {
        const struct cp_analysis_input *in = &an->inputs[i];
        if (in->status != CP_INPUT_OK || in->source != CP_SOURCE_PLUGIN)
            continue;
        if (!nodes) { /* the nodes by name, for each log's node */
            size_t k;
            nodes = malloc((an->nnodes ? an->nnodes : 1) * sizeof *nodes);
            if (!nodes)
                goto out;
            for (k = 0; k < an->nnodes; k++)
                nodes[k] = (unsigned)k;
            qsort_r(nodes, an->nnodes, sizeof *nodes, compare_node_names, an);
        }
        an->nccl.present = 1;
        if (read_input(an, &w, nodes, in) < 0)
            goto out;
    }
    if (an->nccl.present && build_links(an, &w) < 0)
        goto out;
    rc = 0;
out:
    free(nodes);
    free(w.members);
    cp_slots_free(&w.by_rank);
    cp_slots_free(&w.by_file);
    cp_slots_free(&w.send_slots);
    for (i = 0; i < w.nsends; i++)
        free(w.sends[i].best);
    free(w.sends);
    return rc;
}

void cp_ncclview_free(struct cp_analysis_nccl *v)
{
    cp_ncjoin_destroy(v->join);
    free(v->algo);
    free(v->links);
    memset(v, 0, sizeof *v);
}
