/* cp_ncjoin.c - the shim's and the plugin's records of one call, joined
 * (cp_ncjoin.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_grow.h"
#include "cp_logread.h"
#include "cp_ncjoin.h"

/* A call of either log, as the join needs it. */
struct jcall {
    uint64_t slot;
    uint64_t comm;
    uint64_t count;
    uint64_t start;   /* raw CLOCK_REALTIME ns */
    uint64_t wend;    /* shim: the end of the window its launch lies in
                         (the call's or its group's end); 0: open */
    int32_t peer;     /* root of rooted collectives, peer of send/recv */
    uint32_t rank;
    uint32_t group;   /* shim: the group id of a grouped call, else 0 */
    uint8_t op;       /* Bcast counted as Broadcast */
    uint8_t skip;     /* plugin: launched from a graph; shim: captured */
    uint8_t algo, proto, nchannels, nflags;
    uint8_t dtype;
    uint32_t nranks, seq;
    uint64_t end;      /* plugin: the call's end (kernel end) */
    uint64_t gpu_start, gpu_end;
    uint16_t tag, variant; /* plugin: cp_ncjoin_entry's, from kind 9 */
};

struct jlog {
    struct jcall *c;
    size_t n, cap;
    struct cp_rec_group *groups; /* shim: by id (ids grow) */
    size_t ngroups, capgroups;
};

/* Send/recv sequences (op, peer) looked at per communicator pair: two per
 * peer of a communicator of up to this many ranks. */
#define P2P_KEYS_MAX 8192

struct jstats {
    uint64_t joined, shim_only, plugin_only, graph, gpu;
};

static int compare_slot(const void *a, const void *b)
{
    const struct jcall *x = a, *y = b;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

static struct jcall *find_slot(struct jlog *l, uint64_t slot)
{
    size_t lo = 0, hi = l->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->c[mid].slot < slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->c[lo].slot == slot ? &l->c[lo] : NULL;
}

/* The index of tag value v in j's table, added when new: past the
 * table's room, CP_NCJOIN_TAG_OTHER.  0 when memory ran out. */
static uint16_t tag_index(struct cp_ncjoin *j, uint64_t v)
{
    size_t k;

    /* a run has a handful of tags, most calls the last one seen again */
    for (k = j->ntags; k > 0; k--)
        if (j->tags[k - 1] == v)
            return (uint16_t)k;
    if (j->ntags >= CP_NCJOIN_TAGS_MAX) {
        j->tags_over++;
        return CP_NCJOIN_TAG_OTHER;
    }
    if (cp_grow((void **)&j->tags, &j->captags, j->ntags, sizeof *j->tags) < 0)
        return 0;
    j->tags[j->ntags++] = v;
    return (uint16_t)j->ntags;
}

/* The index of kernel variant name (CP_TAG_VARIANT_LEN bytes, NUL-padded)
 * in j's table, added when new; 0 for an empty name, a table full or
 * memory run out. */
static uint16_t variant_index(struct cp_ncjoin *j, const char *name)
{
    size_t k, len = strnlen(name, CP_TAG_VARIANT_LEN);

    if (len == 0)
        return 0;
    for (k = j->nvariants; k > 0; k--)
        if (strncmp(j->variants[k - 1], name, CP_TAG_VARIANT_LEN) == 0 &&
            j->variants[k - 1][len] == '\0')
            return (uint16_t)k;
    if (j->nvariants >= CP_NCJOIN_VARIANTS_MAX ||
        cp_grow((void **)&j->variants, &j->capvariants, j->nvariants,
                sizeof *j->variants) < 0)
        return 0;
    memcpy(j->variants[j->nvariants], name, len);
    j->variants[j->nvariants][len] = '\0';
    return (uint16_t)++j->nvariants;
}

/* Read the calls of one input's log (and, for a plugin log, what it says
 * of each: tags and variants go into j's tables).  0, or -1 when memory
 * ran out; an unreadable log reads as empty. */
static int read_log(const struct cp_analysis_input *in, int plugin,
                    struct jlog *l, struct cp_ncjoin *j)
{
    struct cp_logfile *lf;
    struct cp_error err;
    union cp_rec rec;
    uint64_t slot;
    int rc = -1;

    lf = an_logfile_reopen(in, &err);
    if (!lf)
        return 0;
    while (cp_logfile_next(lf, &rec, &slot) == 1) {
        if (rec.kind == CP_REC_CALL) {
            const struct cp_rec_call *r = &rec.call;
            struct jcall *c;
            if (cp_rec_call_in_flight(r) || r->comm_id == 0 ||
                (r->flags & CP_CALL_NO_COMM) || r->seq == UINT32_MAX ||
                (r->result != 0 && r->result != 7) ||
                !(cp_op_is_collective(r->op) || cp_op_is_p2p(r->op)))
                continue;
            if (cp_grow((void **)&l->c, &l->cap, l->n, sizeof *l->c) < 0)
                goto out;
            c = &l->c[l->n++];
            memset(c, 0, sizeof *c);
            c->slot = slot;
            c->comm = r->comm_id;
            c->count = r->count;
            c->start = r->start_ns;
            c->peer = r->peer;
            c->rank = r->rank;
            c->nranks = r->nranks;
            c->seq = r->seq;
            c->dtype = r->dtype;
            c->end = r->end_ns;
            c->op = (uint8_t)cp_model_wire_op(r->op);
            c->skip = (r->flags & CP_CALL_CAPTURED) != 0;
            if (!plugin) {
                /* a non-blocking call may launch after it returned */
                c->wend = r->result == 7 ? 0 : r->end_ns;
                if ((r->flags & CP_CALL_IN_GROUP) && r->group)
                    c->group = r->group;
            }
        } else if (rec.kind == CP_REC_GROUP && !plugin) {
            if (cp_grow((void **)&l->groups, &l->capgroups, l->ngroups,
                     sizeof *l->groups) < 0)
                goto out;
            l->groups[l->ngroups++] = rec.group;
        } else if (rec.kind == CP_REC_NCCL && plugin) {
            struct jcall *c = find_slot(l, rec.nccl.slot);
            if (c) {
                c->algo = rec.nccl.algo;
                c->proto = rec.nccl.proto;
                c->nchannels = rec.nccl.nchannels;
                c->nflags = (uint8_t)rec.nccl.flags;
                if (rec.nccl.flags & CP_NCCL_GRAPH)
                    c->skip = 1;
            }
        } else if (rec.kind == CP_REC_TAG && plugin) {
            struct jcall *c = find_slot(l, rec.tag.slot);
            if (c && !c->tag) {
                c->tag = tag_index(j, rec.tag.user_tag);
                if (!c->tag)
                    goto out;
                c->variant = variant_index(j, rec.tag.kernel_variant);
                j->tag_records++;
            }
        } else if (rec.kind == CP_REC_GPU && plugin &&
                   rec.gpu.timer == CP_TIMER_KERNEL_CH) {
            struct jcall *c = find_slot(l, rec.gpu.slot);
            if (c && rec.gpu.end_ns >= rec.gpu.start_ns &&
                rec.gpu.start_ns > 0) {
                c->gpu_start = rec.gpu.start_ns;
                c->gpu_end = rec.gpu.end_ns;
            }
        }
    }
    rc = 0;
out:
    cp_logfile_close(lf);
    return rc;
}

/* Grouped shim calls: their window ends with their group. */
static void apply_groups(struct jlog *l)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        struct jcall *c = &l->c[i];
        size_t lo = 0, hi = l->ngroups;
        if (!c->group)
            continue;
        /* group records are in the order of their GroupEnd: ids grow */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (l->groups[mid].group < c->group)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < l->ngroups && l->groups[lo].group == c->group)
            c->wend = l->groups[lo].result == 7 ? 0 : l->groups[lo].end_ns;
        else
            c->wend = 0; /* the group never ended (killed): open */
    }
}

/* Append the join entry of the call in slot `slot` (the shim's call, or
 * the plugin's own when it is analyzed alone) with what the plugin's call
 * p knows.  -1 when memory ran out. */
static int add_entry(struct cp_ncjoin_entry **out, size_t *nout,
                     size_t *capout, uint64_t slot, const struct jcall *p,
                     struct jstats *stats)
{
    struct cp_ncjoin_entry *e;

    if (cp_grow((void **)out, capout, *nout, sizeof **out) < 0)
        return -1;
    e = &(*out)[(*nout)++];
    memset(e, 0, sizeof *e);
    e->slot = slot;
    e->gpu_start = p->gpu_start;
    e->gpu_end = p->gpu_end;
    e->algo = p->algo;
    e->proto = p->proto;
    e->nchannels = p->nchannels;
    e->flags = p->nflags;
    e->tag = p->tag;
    e->variant = p->variant;
    if (stats)
        stats->gpu += p->gpu_end != 0;
    return 0;
}

static int match(const struct jcall *s, const struct jcall *p)
{
    return s->op == p->op && s->count == p->count && s->rank == p->rank &&
           s->peer == p->peer && p->start + CP_NCJOIN_SLACK_NS >= s->start &&
           (s->wend == 0 || p->start <= s->wend + CP_NCJOIN_SLACK_NS);
}

/* Walk one sequence of each log (index lists into the logs' calls).  With
 * out, the joined pairs are appended to it.  Returns the pairs joined, or
 * -1 when memory ran out. */
static long walk(const struct jlog *sh, const size_t *si, size_t n,
                 const struct jlog *pl, const size_t *pi, size_t m,
                 struct cp_ncjoin_entry **out, size_t *nout, size_t *capout,
                 struct jstats *stats)
{
    size_t i = 0, j = 0;
    long joined = 0;

    while (i < n && j < m) {
        const struct jcall *s = &sh->c[si[i]], *p = &pl->c[pi[j]];
        size_t k;
        if (p->start + CP_NCJOIN_SLACK_NS < s->start) {
            j++; /* launched before the shim's call: not one it saw */
            if (stats)
                stats->plugin_only++;
            continue;
        }
        for (k = 0; k < CP_NCJOIN_LOOKAHEAD && j + k < m; k++) {
            const struct jcall *q = &pl->c[pi[j + k]];
            if (s->wend && q->start > s->wend + CP_NCJOIN_SLACK_NS)
                break;
            if (match(s, q))
                break;
        }
        if (k == CP_NCJOIN_LOOKAHEAD || j + k >= m ||
            !match(s, &pl->c[pi[j + k]])) {
            i++; /* the plugin missed it */
            if (stats)
                stats->shim_only++;
            continue;
        }
        if (stats)
            stats->plugin_only += k;
        p = &pl->c[pi[j + k]];
        if (out && add_entry(out, nout, capout, s->slot, p, stats) < 0)
            return -1;
        if (stats)
            stats->joined++;
        joined++;
        i++;
        j += k + 1;
    }
    if (stats) {
        stats->shim_only += n - i;
        stats->plugin_only += m - j;
    }
    return joined;
}

/* The calls of communicator comm that a sequence holds: collectives
 * (op 0), or send/recv of op to peer; at most limit of them. */
static size_t pick(const struct jlog *l, uint64_t comm, unsigned op,
                   int32_t peer, size_t limit, size_t *idx)
{
    size_t i, n = 0;

    for (i = 0; i < l->n && n < limit; i++) {
        const struct jcall *c = &l->c[i];
        if (c->comm != comm || c->skip)
            continue;
        if (op == 0 ? !cp_op_is_collective(c->op)
                    : (c->op != op || c->peer != peer))
            continue;
        idx[n++] = i;
    }
    return n;
}

/* Distinct values of the calls' communicators, in order of first use. */
static size_t comms_of(const struct jlog *l, uint64_t *ids)
{
    size_t i, k, n = 0;

    for (i = 0; i < l->n; i++) {
        for (k = 0; k < n && ids[k] != l->c[i].comm; k++)
            ;
        if (k == n)
            ids[n++] = l->c[i].comm;
    }
    return n;
}

/* One send/recv sequence: its op and peer. */
struct p2p_key {
    uint8_t op;
    int32_t peer;
};

/* The distinct (op, peer) of comm's send/recv calls in l, at most max. */
static size_t p2p_keys(const struct jlog *l, uint64_t comm,
                       struct p2p_key *keys, size_t max)
{
    size_t i, k, n = 0;

    for (i = 0; i < l->n; i++) {
        const struct jcall *c = &l->c[i];
        if (c->comm != comm || c->skip || !cp_op_is_p2p(c->op))
            continue;
        for (k = 0; k < n; k++)
            if (keys[k].op == c->op && keys[k].peer == c->peer)
                break;
        if (k == n && n < max)
            keys[n++] = (struct p2p_key){c->op, c->peer};
    }
    return n;
}

/* Join the sequences of shim communicator sc and plugin communicator pc.
 * With out NULL: only the collectives of the first calls are tried, as a
 * score for the mapping.  Returns pairs joined, -1 when memory ran out. */
static long join_comms(const struct jlog *sh, uint64_t sc,
                       const struct jlog *pl, uint64_t pc, size_t *si,
                       size_t *pi, struct cp_ncjoin_entry **out, size_t *nout,
                       size_t *capout, struct jstats *stats,
                       struct p2p_key *keys, size_t nkeys)
{
    size_t limit = out ? SIZE_MAX : 64, n, m, i, nk, ns;
    long total, r;

    n = pick(sh, sc, 0, 0, limit, si);
    m = pick(pl, pc, 0, 0, limit, pi);
    total = walk(sh, si, n, pl, pi, m, out, nout, capout, stats);
    if (total < 0 || !out)
        return total;
    /* send/recv: one sequence per (op, peer) */
    nk = p2p_keys(pl, pc, keys, nkeys);
    for (i = 0; i < nk; i++) {
        n = pick(sh, sc, keys[i].op, keys[i].peer, SIZE_MAX, si);
        m = pick(pl, pc, keys[i].op, keys[i].peer, SIZE_MAX, pi);
        r = walk(sh, si, n, pl, pi, m, out, nout, capout, stats);
        if (r < 0)
            return -1;
        total += r;
    }
    /* shim send/recv sequences the plugin never saw */
    ns = p2p_keys(sh, sc, keys + nk, nkeys - nk);
    for (i = nk; i < nk + ns; i++) {
        size_t k;
        for (k = 0; k < nk; k++)
            if (keys[k].op == keys[i].op && keys[k].peer == keys[i].peer)
                break;
        if (k == nk)
            stats->shim_only += pick(sh, sc, keys[i].op, keys[i].peer,
                                     SIZE_MAX, si);
    }
    return total;
}

static int compare_replay(const void *a, const void *b)
{
    const struct cp_ncjoin_replay *x = a, *y = b;
    return (x->end > y->end) - (x->end < y->end);
}

/* The plugin's calls launched from a CUDA graph, as calls of the plugin's
 * communicator (NCCL's commHash, the same on every member): a collective
 * numbered by its place among the graph launches of that communicator (the
 * same on every member: they replay the same graphs in the same order),
 * send/recv by the plugin's own sequence per (peer, direction).  By end
 * time.  0, or -1 when memory ran out. */
static int replays_of(const struct jlog *pl, struct cp_ncjoin_replay **out,
                      size_t *nout)
{
    struct {
        uint64_t comm;
        uint32_t next;
    } *seqs = NULL;
    size_t nseqs = 0, capseqs = 0, cap = 0, i, k;
    int rc = -1;

    for (i = 0; i < pl->n; i++) {
        const struct jcall *c = &pl->c[i];
        struct cp_ncjoin_replay *r;
        if (!c->skip || c->nranks == 0 || c->rank >= c->nranks)
            continue;
        if (cp_grow((void **)out, &cap, *nout, sizeof **out) < 0)
            goto done;
        r = &(*out)[(*nout)++];
        memset(r, 0, sizeof *r);
        r->comm = c->comm;
        r->count = c->count;
        r->rank = c->rank;
        r->nranks = c->nranks;
        r->peer = c->peer;
        r->op = c->op;
        r->dtype = c->dtype;
        r->algo = c->algo;
        r->proto = c->proto;
        r->tag = c->tag;
        r->variant = c->variant;
        r->start = c->gpu_end ? c->gpu_start : c->start;
        r->end = c->gpu_end ? c->gpu_end : c->end;
        if (cp_op_is_p2p(c->op)) {
            r->seq = c->seq;
            continue;
        }
        for (k = 0; k < nseqs && seqs[k].comm != c->comm; k++)
            ;
        if (k == nseqs) {
            if (cp_grow((void **)&seqs, &capseqs, nseqs, sizeof *seqs) < 0)
                goto done;
            seqs[nseqs].comm = c->comm;
            seqs[nseqs].next = 0;
            nseqs++;
        }
        r->seq = seqs[k].next++;
    }
    qsort(*out, *nout, sizeof **out, compare_replay);
    rc = 0;
done:
    free(seqs);
    return rc;
}

static int compare_entry(const void *a, const void *b)
{
    const struct cp_ncjoin_entry *x = a, *y = b;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

/* The free shim communicator (index in scomms) whose first collectives
 * join best those of the plugin's communicator pc; SIZE_MAX: none joins. */
static size_t best_by_collectives(const struct jlog *sh, const uint64_t *scomms,
                                  size_t nsc, const struct jlog *pl,
                                  uint64_t pc, const uint8_t *taken,
                                  size_t *si, size_t *pi,
                                  struct p2p_key *keys, size_t nkeys)
{
    long best = 0, r;
    size_t best_a = SIZE_MAX, a;

    for (a = 0; a < nsc; a++) {
        if (taken[a])
            continue;
        r = join_comms(sh, scomms[a], pl, pc, si, pi, NULL, NULL, NULL, NULL,
                       keys, nkeys);
        if (r > best) {
            best = r;
            best_a = a;
        }
    }
    return best_a;
}

/* Nothing joins by collectives: a communicator of send/recv only is taken
 * by its first call's peer and op (the first free shim communicator with
 * such a call); SIZE_MAX: none. */
static size_t best_by_first_call(const struct jlog *sh, const uint64_t *scomms,
                                 size_t nsc, const struct jlog *pl,
                                 uint64_t pc, const uint8_t *taken)
{
    size_t a, i, k;

    for (a = 0; a < nsc; a++) {
        if (taken[a])
            continue;
        for (i = 0; i < pl->n && pl->c[i].comm != pc; i++)
            ;
        for (k = 0; k < sh->n; k++)
            if (sh->c[k].comm == scomms[a] && !sh->c[k].skip &&
                i < pl->n && cp_op_is_p2p(pl->c[i].op) &&
                match(&sh->c[k], &pl->c[i]))
                break;
        if (k < sh->n)
            return a;
    }
    return SIZE_MAX;
}

/* Join one process: the shim's log (sh_in's) with the plugin's (pl_in's),
 * or (sh_in NULL) the plugin's with itself. */
static int join_process(struct cp_ncjoin *j,
                        const struct cp_analysis_input *sh_in,
                        const struct cp_analysis_input *pl_in,
                        struct cp_ncjoin_entry **out, size_t *nout,
                        struct cp_ncjoin_replay **rout, size_t *nrout,
                        struct jstats *stats)
{
    struct jlog sh, pl;
    uint64_t *scomms = NULL, *pcomms = NULL;
    size_t *si = NULL, *pi = NULL, nsc, npc, a, b, capout = 0;
    struct p2p_key *keys = NULL;
    size_t nkeys = P2P_KEYS_MAX;
    uint8_t *taken = NULL;
    int rc = -1;

    memset(&sh, 0, sizeof sh);
    memset(&pl, 0, sizeof pl);
    *out = NULL;
    *nout = 0;
    if (read_log(pl_in, 1, &pl, j) < 0)
        goto out;
    /* slots grow in the file: already sorted, but a damaged file may not
     * be */
    qsort(pl.c, pl.n, sizeof *pl.c, compare_slot);
    for (a = 0; a < pl.n; a++)
        stats->graph += pl.c[a].skip;
    *rout = NULL;
    *nrout = 0;
    if (sh_in && replays_of(&pl, rout, nrout) < 0)
        goto out;
    if (!sh_in) {
        for (a = 0; a < pl.n; a++)
            if (add_entry(out, nout, &capout, pl.c[a].slot, &pl.c[a], stats) <
                0)
                goto out;
        rc = 0;
        goto out;
    }
    if (read_log(sh_in, 0, &sh, j) < 0)
        goto out;
    apply_groups(&sh);
    scomms = malloc((sh.n + 1) * sizeof *scomms);
    pcomms = malloc((pl.n + 1) * sizeof *pcomms);
    si = malloc((sh.n + 1) * sizeof *si);
    pi = malloc((pl.n + 1) * sizeof *pi);
    if (!scomms || !pcomms || !si || !pi)
        goto out;
    nsc = comms_of(&sh, scomms);
    npc = comms_of(&pl, pcomms);
    taken = calloc(nsc + 1, 1);
    keys = malloc(nkeys * sizeof *keys);
    if (!taken || !keys)
        goto out;
    /* each plugin communicator, in order of first use, takes the free
     * shim communicator whose first collectives join best */
    for (b = 0; b < npc; b++) {
        size_t best_a = best_by_collectives(&sh, scomms, nsc, &pl, pcomms[b],
                                            taken, si, pi, keys, nkeys);
        if (best_a == SIZE_MAX)
            best_a = best_by_first_call(&sh, scomms, nsc, &pl, pcomms[b], taken);
        if (best_a == SIZE_MAX) {
            size_t i;
            for (i = 0; i < pl.n; i++)
                stats->plugin_only += pl.c[i].comm == pcomms[b] && !pl.c[i].skip;
            continue;
        }
        taken[best_a] = 1;
        if (join_comms(&sh, scomms[best_a], &pl, pcomms[b], si, pi, out, nout,
                       &capout, stats, keys, nkeys) < 0)
            goto out;
    }
    for (a = 0; a < nsc; a++) {
        size_t i;
        if (taken[a])
            continue;
        for (i = 0; i < sh.n; i++)
            stats->shim_only += sh.c[i].comm == scomms[a] && !sh.c[i].skip;
    }
    qsort(*out, *nout, sizeof **out, compare_entry);
    rc = 0;
out:
    if (rc < 0) {
        free(*out);
        *out = NULL;
        *nout = 0;
        free(*rout);
        *rout = NULL;
        *nrout = 0;
    }
    free(sh.c);
    free(sh.groups);
    free(pl.c);
    free(scomms);
    free(pcomms);
    free(si);
    free(pi);
    free(taken);
    free(keys);
    return rc;
}

/* A plugin log whose process the shim also logged (build_ranks_and_nodes). */
static int evidence_log(const struct cp_analysis_input *in)
{
    return in->evidence_only;
}

struct cp_ncjoin *cp_ncjoin_build(struct cp_analysis *an, int *none)
{
    struct cp_ncjoin *j = NULL;
    struct jstats stats;
    struct an_proc_index companions = {0, NULL};
    size_t i;
    long k;
    int any = 0;

    *none = 0;
    memset(&stats, 0, sizeof stats);
    for (i = 0; i < an->ninputs; i++)
        if (an->inputs[i].status == CP_INPUT_OK &&
            an->inputs[i].source == CP_SOURCE_PLUGIN)
            any = 1;
    if (!any) {
        *none = 1;
        return NULL;
    }
    j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->ninputs = an->ninputs;
    j->entries = calloc(an->ninputs, sizeof *j->entries);
    j->nentries = calloc(an->ninputs, sizeof *j->nentries);
    j->replays = calloc(an->ninputs, sizeof *j->replays);
    j->nreplays = calloc(an->ninputs, sizeof *j->nreplays);
    if (!j->entries || !j->nentries || !j->replays || !j->nreplays ||
        an_proc_index_build(an, evidence_log, &companions) < 0)
        goto oom;
    /* every analyzed input (a rank): its plugin companion, or itself */
    for (i = 0; i < an->nranks; i++) {
        size_t in = an->ranks[i].input;
        const struct cp_analysis_input *x = &an->inputs[in];
        if (x->status != CP_INPUT_OK)
            continue;
        if (x->source == CP_SOURCE_PLUGIN) {
            if (join_process(j, NULL, x, &j->entries[in], &j->nentries[in],
                             &j->replays[in], &j->nreplays[in], &stats) < 0)
                goto oom;
            an->nccl.join_plugin_only_processes++;
            continue;
        }
        /* the last such log, as a search of all the inputs found it */
        k = an_proc_index_last(&companions, x->pid, x->node);
        if (k < 0)
            continue;
        if (join_process(j, x, &an->inputs[k], &j->entries[in],
                         &j->nentries[in], &j->replays[in], &j->nreplays[in],
                         &stats) < 0)
            goto oom;
        an->nccl.join_processes++;
        an->nccl.join_replays += j->nreplays[in];
    }
    an->nccl.join_calls = stats.joined;
    an->nccl.join_shim_only = stats.shim_only;
    an->nccl.join_plugin_only = stats.plugin_only;
    an->nccl.join_graph_calls = stats.graph;
    an->nccl.join_gpu = stats.gpu;
    an_proc_index_free(&companions);
    return j;
oom:
    an_proc_index_free(&companions);
    cp_ncjoin_destroy(j);
    return NULL;
}

const struct cp_ncjoin_entry *cp_ncjoin_of(const struct cp_ncjoin *j,
                                           size_t input, size_t *n)
{
    *n = 0;
    if (!j || input >= j->ninputs || !j->entries[input])
        return NULL;
    *n = j->nentries[input];
    return j->entries[input];
}

uint64_t cp_ncjoin_tag(const struct cp_ncjoin *j, unsigned tag)
{
    return j && tag >= 1 && tag <= j->ntags ? j->tags[tag - 1] : 0;
}

const char *cp_ncjoin_variant(const struct cp_ncjoin *j, unsigned variant)
{
    return j && variant >= 1 && variant <= j->nvariants
               ? j->variants[variant - 1]
               : NULL;
}

const struct cp_ncjoin_replay *cp_ncjoin_replays(const struct cp_ncjoin *j,
                                                size_t input, size_t *n)
{
    *n = 0;
    if (!j || input >= j->ninputs || !j->replays[input])
        return NULL;
    *n = j->nreplays[input];
    return j->replays[input];
}

void cp_ncjoin_destroy(struct cp_ncjoin *j)
{
    size_t i;

    if (!j)
        return;
    for (i = 0; j->entries && i < j->ninputs; i++)
        free(j->entries[i]);
    for (i = 0; j->replays && i < j->ninputs; i++)
        free(j->replays[i]);
    free(j->entries);
    free(j->nentries);
    free(j->replays);
    free(j->nreplays);
    free(j->tags);
    free(j->variants);
    free(j);
}
