/* cp_ncclview.c - the NCCL profiler plugin's evidence (cp_ncclview.h).
 *
 * Each plugin log is read once more, apart from the join: its communicator
 * records say which rank of which communicator the process is, its kind 6
 * records what NCCL chose per call, its kind 7 records (one proxy
 * operation: a call's transfers to one peer on one channel) or kind 11
 * records (a call's sends to one peer over all its channels, the plugin's
 * default) how long the sends to each peer took.  A send from comm rank r to peer q crosses from r's
 * node to q's node; the plugin logs of all processes together say where
 * every comm rank lives.  A link is judged per step size class (struct
 * link_class) on the 75th percentile over its records (proxy operations,
 * or calls and peers) of each one's fastest step: the sum of its step times also holds every wait a
 * step shared with the rest of the job (a pipelined ring stalls every
 * link behind its slowest, a loaded host delays the proxy, an
 * all-to-all's rounds share each NIC), which make steps slower; an
 * operation's fastest step is its least disturbed sample of the wire, and
 * the upper quantile still resists the odd step reported early.
 * Receives are not used for bandwidth: a receive step also waits for its
 * sender to start.
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
#include "cp_stats.h"

struct member {
    uint64_t comm;
    uint32_t rank;
    unsigned node;
    const struct cp_analysis_input *file; /* the log that said so */
};

struct send_acc {
    uint64_t comm;
    uint32_t rank, peer;
    unsigned cls; /* the step size class: floor(log2(bytes a step)) */
    uint64_t bytes, busy_ns;
    uint64_t ops; /* proxy operations (a kind 11 record: those it merged) */
    double step_bytes; /* sum over records of their bytes a step */
    double *best; /* per record: its fastest step's bandwidth */
    size_t nbest, capbest;
};

/* One record's send evidence, of kind 7 or 11. */
struct send_rec {
    uint64_t comm;
    int32_t peer;
    unsigned dir;
    uint64_t bytes, steps, busy_ns;
    uint32_t min_step_ns;
    unsigned ops;
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
    struct cp_slots send_slots; /* by (comm, rank, peer, class) */
    /* the fastest steps of proxy operations of tiny steps (at most
     * TINY_STEP bytes: the latency as the proxy sees it), the first
     * TINY_MAX of them */
    uint64_t *tiny;
    size_t ntiny;
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
        struct cp_slots by_rank = {0}, by_file = {0};
        /* both new tables before either old one goes: out of memory
         * leaves the view's indexes as they were */
        if (cp_slots_reset(&by_rank, cap) < 0 ||
            cp_slots_reset(&by_file, cap) < 0) {
            cp_slots_free(&by_rank);
            return -1;
        }
        cp_slots_free(&w->by_rank);
        cp_slots_free(&w->by_file);
        w->by_rank = by_rank;
        w->by_file = by_file;
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
    unsigned cls;
};

static int is_send(const void *ctx, size_t i)
{
    const struct send_key *key = ctx;
    const struct send_acc *a = &key->sends[i];
    return a->comm == key->comm && a->rank == key->rank &&
           a->peer == key->peer && a->cls == key->cls;
}

static size_t send_hash(uint64_t comm, uint32_t rank, uint32_t peer,
                        unsigned cls)
{
    return cp_slots_mix2(comm ^ cls, ((uint64_t)rank << 32) | peer);
}

static size_t send_hash_of(const void *ctx, size_t i)
{
    const struct send_acc *a = &((const struct send_acc *)ctx)[i];
    return send_hash(a->comm, a->rank, a->peer, a->cls);
}

#define TINY_STEP 4096
#define TINY_MAX 65536

/* floor(log2(x)), x >= 1 */
static unsigned step_class(uint64_t x)
{
    unsigned c = 0;

    while (x >>= 1)
        c++;
    return c;
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

static int add_send(struct view *w, const struct send_rec *p,
                    uint32_t rank)
{
    double step = (double)p->bytes / (double)p->steps;
    double best = step / p->min_step_ns * 1e9;
    unsigned cls = step_class(p->bytes / p->steps);
    struct send_acc *s = NULL;
    struct send_key key = {w->sends, p->comm, rank, (uint32_t)p->peer, cls};

    if (w->send_slots.cap) {
        long at = cp_slots_at(&w->send_slots,
                              cp_slots_probe(&w->send_slots,
                                             send_hash(p->comm, rank,
                                                       (uint32_t)p->peer, cls),
                                             is_send, &key));
        if (at >= 0)
            s = &w->sends[at];
    }
    if (s) {
        s->bytes += p->bytes;
        s->busy_ns += p->busy_ns;
        s->ops += p->ops;
        s->step_bytes += step;
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
    *s = (struct send_acc){p->comm, rank, (uint32_t)p->peer, cls, p->bytes,
                           p->busy_ns, p->ops, step,
                           malloc(16 * sizeof(double)), 1, 16};
    if (!s->best)
        return -1;
    s->best[0] = best;
    cp_slots_put(&w->send_slots, send_hash(s->comm, s->rank, s->peer, cls),
                 w->nsends);
    w->nsends++;
    return 0;
}

static long member_node(const struct view *w, uint64_t comm, uint32_t rank)
{
    long i = find_by_rank(w, comm, rank);

    return i < 0 ? -1 : (long)w->members[i].node;
}

/* A record's steps: the latency of tiny ones, and a send's bandwidth
 * (last_comm, last_rank: the communicator and this log's rank in it, of
 * the record before). */
static int add_sample(struct view *w, const struct cp_analysis_input *in,
                      const struct send_rec *p, uint64_t *last_comm,
                      uint32_t *last_rank)
{
    if (p->steps == 0 || p->min_step_ns == 0)
        return 0;
    if (p->bytes / p->steps <= TINY_STEP && w->ntiny < TINY_MAX) {
        if (!w->tiny) {
            w->tiny = malloc(TINY_MAX * sizeof *w->tiny);
            if (!w->tiny)
                return -1;
        }
        w->tiny[w->ntiny++] = p->min_step_ns;
    }
    /* sends only (a receive also waits for its sender); which are
     * bandwidth-bound is known once every log is read */
    if (p->dir != CP_PROXY_SEND || p->peer < 0 || p->bytes / p->steps == 0)
        return 0;
    /* this process's rank in the communicator: its comm record */
    if (p->comm != *last_comm) {
        /* the first member this log added (its node is the log's) */
        long i = find_by_file(w, p->comm, in);
        if (i < 0)
            return 0;
        *last_comm = p->comm;
        *last_rank = w->members[i].rank;
    }
    return add_send(w, p, *last_rank);
}

static int read_input(struct cp_analysis *an, struct view *w,
                      const unsigned *nodes, struct cp_analysis_input *in)
{
    struct cp_analysis_nccl *v = &an->nccl;
    struct cp_logfile *lf;
    struct cp_error err;
    union cp_rec rec;
    long node = node_index(an, nodes, in->node);
    uint64_t last_comm = 0;
    uint32_t last_rank = 0;
    struct send_rec p;
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
            p = (struct send_rec){rec.proxy.comm_id, rec.proxy.peer,
                                  rec.proxy.dir, rec.proxy.bytes,
                                  rec.proxy.steps_done, rec.proxy.busy_ns,
                                  rec.proxy.min_step_ns, 1};
            if (add_sample(w, in, &p, &last_comm, &last_rank) < 0)
                goto out;
            break;
        case CP_REC_LINK:
            /* a call's sends to one peer: its fastest step over every
             * channel, its bytes a step their mean */
            v->link_records++;
            v->proxy_ops += rec.link.channels;
            p = (struct send_rec){rec.link.comm_id, rec.link.peer,
                                  rec.link.dir, rec.link.bytes,
                                  rec.link.steps, rec.link.busy_ns,
                                  rec.link.min_step_ns,
                                  rec.link.channels ? rec.link.channels : 1u};
            if (add_sample(w, in, &p, &last_comm, &last_rank) < 0)
                goto out;
            break;
        case CP_REC_PHASE:
            /* a plugin log of a process the shim also logged is not read
             * by the main pass: the phases' pass learns of its phases
             * here */
            in->has_phases = 1;
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

/* A step size class of a link: the sends of (from node, to node) whose
 * operations move about the same bytes a step (one power of two).  A
 * link is judged against the others in the same class only: a step's
 * time holds the network's latency besides its bytes, so small steps show
 * less bandwidth on every link, and links that carry different sizes
 * (a ring's neighbours and an all-to-all's other pairs) are compared
 * like with like. */
struct link_class {
    unsigned from, to, cls;
    size_t link;       /* into v->links */
    uint64_t bytes, ops;
    double step_bytes; /* sum over its records of their bytes a step */
    double *best;      /* its records' fastest steps' bandwidths */
    size_t nbest, capbest;
    double figure;     /* the 75th percentile of best: what the link
                          can do */
    double median;     /* the class's median figure, NAN: not judged */
    unsigned judged_in_class; /* the links judged in its class */
    int slow;
};

/* A link's or a link class's key, for the probes of build_links. */
struct link_key {
    const struct cp_analysis_net_link *links;
    const struct link_class *lcs;
    unsigned from, to, cls;
};

static int is_link(const void *ctx, size_t i)
{
    const struct link_key *key = ctx;
    return key->links[i].from == key->from && key->links[i].to == key->to;
}

static int is_link_class(const void *ctx, size_t i)
{
    const struct link_key *key = ctx;
    const struct link_class *c = &key->lcs[i];
    return c->from == key->from && c->to == key->to && c->cls == key->cls;
}

static size_t link_class_hash(unsigned from, unsigned to, unsigned cls)
{
    return cp_slots_mix2(((uint64_t)from << 8) | cls, to);
}

/* The link (from, to), added when new; -1 out of memory. */
static long link_of(struct cp_analysis_nccl *v, struct cp_slots *slots,
                    size_t *caplinks, unsigned from, unsigned to)
{
    struct link_key key = {v->links, NULL, from, to, 0};
    size_t k = cp_slots_probe(slots, cp_slots_mix2(from, to), is_link, &key);
    size_t j;

    if (cp_slots_at(slots, k) >= 0)
        return cp_slots_at(slots, k);
    if (v->nlinks == *caplinks) {
        size_t c2 = *caplinks ? 2 * *caplinks : 16;
        struct cp_analysis_net_link *bigger =
            realloc(v->links, c2 * sizeof *bigger);
        if (!bigger)
            return -1;
        v->links = bigger;
        *caplinks = c2;
    }
    j = v->nlinks++;
    memset(&v->links[j], 0, sizeof v->links[j]);
    v->links[j].from = from;
    v->links[j].to = to;
    v->links[j].median_Bps = NAN;
    cp_slots_set(slots, k, j);
    return (long)j;
}

/* Send s's operations into its link class (added when new, at most one a
 * send: lcs has room); -1 out of memory. */
static int add_to_class(struct link_class *lcs, size_t *nlcs,
                        struct cp_slots *slots, const struct send_acc *s,
                        unsigned from, unsigned to, size_t link)
{
    struct link_key key = {NULL, lcs, from, to, s->cls};
    size_t k = cp_slots_probe(slots, link_class_hash(from, to, s->cls),
                              is_link_class, &key);
    struct link_class *c;

    if (cp_slots_at(slots, k) >= 0) {
        c = &lcs[cp_slots_at(slots, k)];
    } else {
        c = &lcs[*nlcs];
        memset(c, 0, sizeof *c);
        c->from = from;
        c->to = to;
        c->cls = s->cls;
        c->link = link;
        c->median = NAN;
        cp_slots_set(slots, k, *nlcs);
        (*nlcs)++;
    }
    if (c->nbest + s->nbest > c->capbest) {
        size_t cap = c->capbest ? c->capbest : 16;
        double *b;
        while (cap < c->nbest + s->nbest)
            cap *= 2;
        b = realloc(c->best, cap * sizeof *b);
        if (!b)
            return -1;
        c->best = b;
        c->capbest = cap;
    }
    memcpy(c->best + c->nbest, s->best, s->nbest * sizeof *s->best);
    c->nbest += s->nbest;
    c->bytes += s->bytes;
    c->ops += s->ops;
    c->step_bytes += s->step_bytes;
    return 0;
}

static int compare_class_figure(const void *a, const void *b, void *arg)
{
    const struct link_class *lcs = arg;
    const struct link_class *x = &lcs[*(const size_t *)a];
    const struct link_class *y = &lcs[*(const size_t *)b];

    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return (x->figure > y->figure) - (x->figure < y->figure);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The network's latency as the proxy sees it: the median fastest step of
 * the operations of tiny steps (one early report does not move it), 0
 * when fewer than 3 (then every class is taken as bandwidth-bound). */
static uint64_t latency_ns(struct view *w)
{
    if (w->ntiny < 3)
        return 0;
    qsort(w->tiny, w->ntiny, sizeof *w->tiny, compare_u64);
    return w->tiny[w->ntiny / 2];
}

/* Each link class's figure, and per class of at least 3 links that can
 * be judged (enough operations and bytes, bandwidth-bound) their median
 * and which are slow. */
static int judge_classes(struct link_class *lcs, size_t nlcs,
                         uint64_t latency)
{
    size_t i, j, m, n = 0;
    size_t *order = malloc((nlcs ? nlcs : 1) * sizeof *order);
    double *figures = malloc((nlcs ? nlcs : 1) * sizeof *figures);

    if (!order || !figures) {
        free(order);
        free(figures);
        return -1;
    }
    for (i = 0; i < nlcs; i++) {
        struct link_class *c = &lcs[i];
        double step_ns;
        cp_stats_sort(c->best, c->nbest);
        c->figure = c->best[(c->nbest - 1) * 3 / 4];
        step_ns = c->step_bytes / (double)c->nbest /
                  cp_stats_median_sorted(c->best, c->nbest) * 1e9;
        if (c->nbest >= CP_NET_MIN_OPS && (double)c->bytes >= CP_NET_MIN_BYTES &&
            step_ns >= CP_NET_BANDWIDTH_BOUND * (double)latency)
            order[n++] = i;
    }
    qsort_r(order, n, sizeof *order, compare_class_figure, lcs);
    for (i = 0; i < n; i = j) {
        double median;
        for (j = i; j < n && lcs[order[j]].cls == lcs[order[i]].cls; j++)
            figures[j - i] = lcs[order[j]].figure;
        if (j - i < 3) /* a median of two says nothing about which is slow */
            continue;
        median = cp_stats_median_sorted(figures, j - i);
        for (m = i; m < j; m++) {
            struct link_class *c = &lcs[order[m]];
            c->median = median;
            c->judged_in_class = (unsigned)(j - i);
            c->slow = c->figure < CP_NET_SLOW * median;
        }
    }
    free(order);
    free(figures);
    return 0;
}

/* Sum the sends per (from node, to node); judge each link in its step
 * size classes against the other links of the class (struct
 * link_class), and give it the figures of the judged class where it sent
 * the most bytes (else of the class where it sent the most). */
static int build_links(struct cp_analysis *an, const struct view *w,
                       uint64_t latency)
{
    struct cp_analysis_nccl *v = &an->nccl;
    struct cp_slots slots = {NULL, 0}, class_slots = {NULL, 0};
    struct link_class *lcs = NULL;
    size_t i, j, nlcs = 0, cap = 128, caplinks = 0, count[64] = {0};
    long *chosen = NULL; /* per link: the class giving its figures */
    unsigned best_cls = 0;
    int rc = -1;

    while (cap < 2 * w->nsends + 2) /* at most a link per send */
        cap *= 2;
    lcs = calloc(w->nsends ? w->nsends : 1, sizeof *lcs);
    if (!lcs || cp_slots_reset(&slots, cap) < 0 ||
        cp_slots_reset(&class_slots, cap) < 0)
        goto out;
    for (i = 0; i < w->nsends; i++) {
        const struct send_acc *s = &w->sends[i];
        long a = member_node(w, s->comm, s->rank);
        long b = member_node(w, s->comm, s->peer);
        long l;

        if (a < 0 || b < 0 || a == b)
            continue; /* inside a node, or a peer without a plugin log */
        l = link_of(v, &slots, &caplinks, (unsigned)a, (unsigned)b);
        if (l < 0 || add_to_class(lcs, &nlcs, &class_slots, s, (unsigned)a,
                                  (unsigned)b, (size_t)l) < 0)
            goto out;
        v->links[l].bytes += s->bytes;
        v->links[l].ops += s->ops;
        v->links[l].busy_s += (double)s->busy_ns * 1e-9;
    }
    if (judge_classes(lcs, nlcs, latency) < 0)
        goto out;
    /* the class that gives each link its figures: a judged one over one
     * not, then the most bytes */
    chosen = malloc((v->nlinks ? v->nlinks : 1) * sizeof *chosen);
    if (!chosen)
        goto out;
    for (j = 0; j < v->nlinks; j++)
        chosen[j] = -1;
    for (i = 0; i < nlcs; i++) {
        const struct link_class *c = &lcs[i];
        long *at = &chosen[c->link];
        const struct link_class *o = *at >= 0 ? &lcs[*at] : NULL;
        int judged = isfinite(c->median);
        if (!o || judged > isfinite(o->median) ||
            (judged == isfinite(o->median) && c->bytes > o->bytes))
            *at = (long)i;
    }
    for (j = 0; j < v->nlinks; j++) {
        struct cp_analysis_net_link *l = &v->links[j];
        const struct link_class *c = &lcs[chosen[j]]; /* one at least */
        int judged = isfinite(c->median);
        l->bandwidth_Bps = l->busy_s > 0 ? (double)l->bytes / l->busy_s : NAN;
        l->step_bytes = c->step_bytes / (double)c->nbest;
        l->step_bandwidth_Bps = c->figure;
        l->median_Bps = c->median;
        l->judged_with = judged ? c->judged_in_class : 0;
        l->slow = judged && c->slow;
        if (judged)
            count[c->cls]++;
    }
    /* the job's median link: of the class that judges the most links (the
     * larger steps when as many) */
    v->median_Bps = NAN;
    for (i = 0; i < 64; i++)
        if (count[i] > 0 && count[i] >= count[best_cls])
            best_cls = (unsigned)i;
    for (j = 0; j < v->nlinks; j++)
        if (v->links[j].judged_with > 0 && lcs[chosen[j]].cls == best_cls) {
            v->median_Bps = v->links[j].median_Bps;
            break;
        }
    rc = 0;
out:
    for (i = 0; i < nlcs; i++)
        free(lcs[i].best);
    free(lcs);
    free(chosen);
    cp_slots_free(&slots);
    cp_slots_free(&class_slots);
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
        struct cp_analysis_input *in = &an->inputs[i];
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
    if (an->nccl.present && build_links(an, &w, latency_ns(&w)) < 0)
        goto out;
    rc = 0;
out:
    free(nodes);
    free(w.members);
    cp_slots_free(&w.by_rank);
    cp_slots_free(&w.by_file);
    cp_slots_free(&w.send_slots);
    free(w.tiny);
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
    free(v->tags.v);
    memset(v, 0, sizeof *v);
}
