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
#include <stdlib.h>
#include <string.h>

#include "cp_logread.h"
#include "cp_ncclview.h"
#include "cp_ncjoin.h"

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

struct view {
    struct member *members;
    size_t nmembers, capmembers;
    struct send_acc *sends;
    size_t nsends, capsends;
};

static long node_index(const struct cp_analysis *an, const char *name)
{
    size_t i;

    for (i = 0; i < an->nnodes; i++)
        if (strcmp(an->nodes[i].name, name) == 0)
            return (long)i;
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
    size_t i;

    for (i = 0; i < w->nmembers; i++)
        if (w->members[i].comm == comm && w->members[i].rank == rank)
            return 0;
    if (w->nmembers == w->capmembers) {
        size_t cap = w->capmembers ? 2 * w->capmembers : 64;
        struct member *m = realloc(w->members, cap * sizeof *m);
        if (!m)
            return -1;
        w->members = m;
        w->capmembers = cap;
    }
    w->members[w->nmembers++] = (struct member){comm, rank, node, file};
    return 0;
}

static int add_send(struct view *w, const struct cp_rec_proxy *p,
                    uint32_t rank)
{
    double best = (double)p->bytes / p->steps_done / p->min_step_ns * 1e9;
    struct send_acc *s = NULL;
    size_t i;

    for (i = 0; i < w->nsends && !s; i++)
        if (w->sends[i].comm == p->comm_id && w->sends[i].rank == rank &&
            w->sends[i].peer == (uint32_t)p->peer)
            s = &w->sends[i];
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
    if (w->nsends == w->capsends) {
        size_t cap = w->capsends ? 2 * w->capsends : 64;
        struct send_acc *m = realloc(w->sends, cap * sizeof *m);
        if (!m)
            return -1;
        w->sends = m;
        w->capsends = cap;
    }
    s = &w->sends[w->nsends];
    *s = (struct send_acc){p->comm_id, rank, (uint32_t)p->peer, p->bytes,
                           p->busy_ns, 1, malloc(16 * sizeof(double)), 1, 16};
    if (!s->best)
        return -1;
    s->best[0] = best;
    w->nsends++;
    return 0;
}

static long member_node(const struct view *w, uint64_t comm, uint32_t rank)
{
    size_t i;

    for (i = 0; i < w->nmembers; i++)
        if (w->members[i].comm == comm && w->members[i].rank == rank)
            return (long)w->members[i].node;
    return -1;
}

static int read_input(struct cp_analysis *an, struct view *w,
                      const struct cp_analysis_input *in)
{
    struct cp_analysis_nccl *v = &an->nccl;
    struct cp_logfile *lf;
    struct cp_error err;
    union cp_rec rec;
    long node = node_index(an, in->node);
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
                size_t i;
                for (i = 0; i < w->nmembers; i++)
                    if (w->members[i].comm == rec.proxy.comm_id &&
                        w->members[i].node == (unsigned)node &&
                        w->members[i].file == in)
                        break;
                if (i == w->nmembers)
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

/* Sum the sends per (from node, to node); judge the links against their
 * median. */
static int build_links(struct cp_analysis *an, const struct view *w)
{
    struct cp_analysis_nccl *v = &an->nccl;
    double *bw = NULL;
    size_t i, j, n = 0;
    int rc = -1;

    for (i = 0; i < w->nsends; i++) {
        const struct send_acc *s = &w->sends[i];
        long a = member_node(w, s->comm, s->rank);
        long b = member_node(w, s->comm, s->peer);
        struct cp_analysis_net_link *bigger;

        if (a < 0 || b < 0 || a == b)
            continue; /* inside a node, or a peer without a plugin log */
        for (j = 0; j < v->nlinks; j++)
            if (v->links[j].from == (unsigned)a && v->links[j].to == (unsigned)b)
                break;
        if (j == v->nlinks) {
            bigger = realloc(v->links, (v->nlinks + 1) * sizeof *bigger);
            if (!bigger)
                goto out;
            v->links = bigger;
            memset(&v->links[j], 0, sizeof v->links[j]);
            v->links[j].from = (unsigned)a;
            v->links[j].to = (unsigned)b;
            v->nlinks++;
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
    free(bw);
    return rc;
}

int cp_ncclview_build(struct cp_analysis *an)
{
    struct view w;
    size_t i;
    int rc = -1;

    memset(&w, 0, sizeof w);
    for (i = 0; i < an->ninputs; i++) {
        const struct cp_analysis_input *in = &an->inputs[i];
        if (in->status != CP_INPUT_OK || in->source != CP_SOURCE_PLUGIN)
            continue;
        an->nccl.present = 1;
        if (read_input(an, &w, in) < 0)
            goto out;
    }
    if (an->nccl.present && build_links(an, &w) < 0)
        goto out;
    rc = 0;
out:
    free(w.members);
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
