/* cp_phases.c - the last-arrival skew measured by the GPU itself, from the
 * kernels' initial-sync phases (plugin API v7's kind 10 records,
 * phaseId 0; cp_analysis.h, struct cp_analysis_phases;
 * docs/report-schema.md, `nccl_profiler.phases`).
 *
 * A kernel's initial sync is the time it waited for its peers' kernels:
 * the rank that came last waits least, the first waits longest, so the
 * spread of the members' waits is the instance's arrival skew, each wait
 * read on one device's clock (its start and end on the same timer): no
 * clock offset between nodes enters it.  A member's wait is its longest
 * channel's; its arrival on the host clock is its earliest channel's
 * start, on the CLOCK_REALTIME scale the plugin mapped it to, less its
 * node's clock offset.  The two skews of the same instances are reported
 * side by side, with their difference: where they disagree, the host
 * clocks' correction is the one to doubt.
 *
 * It reads only the logs in which an earlier pass met a phase record
 * (has_phases: the main pass for the ranks' logs, the NCCL view for the
 * plugin logs of processes the shim also logged): a job without phases,
 * every shim's and every plugin's below API v7, is not read again.
 *
 * Memory: 32 bytes per initial-sync record read, and 4 more for the
 * longest run of one communicator's records, freed before returning. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_nccl_profiler.h"
#include "cp_analysis_int.h"
#include "cp_grow.h"
#include "cp_stats.h"

/* One channel's initial sync of one member. */
struct sync_rec {
    uint64_t comm;
    uint32_t seq;
    int32_t rank;  /* global rank */
    int64_t start; /* host clock, offset-corrected, ns */
    int64_t wait;  /* device clock, ns */
};

static int compare_rec(const void *a, const void *b)
{
    const struct sync_rec *x = a, *y = b;

    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The node offset of the input's node, ns (0 when its node is unknown). */
static int64_t input_offset_ns(const struct cp_analysis *an,
                               const struct cp_analysis_input *in)
{
    size_t k;

    for (k = 0; k < an->nnodes; k++)
        if (strcmp(an->nodes[k].name, in->node) == 0)
            return isfinite(an->nodes[k].offset_s)
                       ? (int64_t)llround(an->nodes[k].offset_s * 1e9)
                       : 0;
    return 0;
}

/* The initial-sync records of every readable log that holds phases into
 * *v (the plugin writes them; any log that holds one is read alike).  0,
 * or -1 when memory ran out. */
static int read_syncs(struct cp_analysis *an, struct sync_rec **v, size_t *n,
                      size_t *cap, uint64_t *damaged)
{
    size_t i;

    for (i = 0; i < an->ninputs; i++) {
        const struct cp_analysis_input *in = &an->inputs[i];
        struct cp_logfile *lf;
        struct cp_error err;
        union cp_rec rec;
        uint64_t slot;
        int64_t offset;

        if (!in->has_phases || !in->log || in->status > CP_INPUT_DAMAGED ||
            in->global_rank < 0)
            continue;
        lf = an_logfile_reopen(in, &err);
        if (!lf)
            continue;
        offset = input_offset_ns(an, in);
        while (cp_logfile_next(lf, &rec, &slot) == 1) {
            const struct cp_rec_phase *p = &rec.phase;
            struct sync_rec *s;
            if (rec.kind != CP_REC_PHASE ||
                p->phase != CP_NCCL_PHASE_INITIAL_SYNC)
                continue;
            if ((p->flags & CP_PHASE_DAMAGED) || p->start_ns == 0 ||
                p->gpu_end_raw < p->gpu_start_raw) {
                (*damaged)++;
                continue;
            }
            if (cp_grow((void **)v, cap, *n, sizeof **v) < 0) {
                cp_logfile_close(lf);
                return -1;
            }
            s = &(*v)[(*n)++];
            s->comm = p->comm_id;
            s->seq = p->seq;
            s->rank = in->global_rank;
            s->start = (int64_t)p->start_ns - offset;
            s->wait = (int64_t)(p->gpu_end_raw - p->gpu_start_raw);
        }
        cp_logfile_close(lf);
    }
    return 0;
}

/* Nearest-rank quantile q of sorted v[0..n). */
static double quantile(const double *v, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);

    return n ? v[k ? k - 1 : 0] : NAN;
}

static void put_quantiles(struct cp_analysis_skew_q *out, double *v, size_t n)
{
    cp_stats_sort(v, n);
    out->p50_s = quantile(v, n, 0.5);
    out->p90_s = quantile(v, n, 0.9);
    out->max_s = n ? v[n - 1] : NAN;
}

/* One member of an instance: the records of v from *i on with its comm,
 * seq and rank; its channels' longest wait and earliest start.  *i moves
 * past them. */
static void member_of(const struct sync_rec *v, size_t n, size_t *i,
                      int64_t *wait, int64_t *start)
{
    size_t k = *i;

    *wait = v[k].wait;
    *start = v[k].start;
    for (; k < n && v[k].comm == v[*i].comm && v[k].seq == v[*i].seq &&
           v[k].rank == v[*i].rank;
         k++) {
        if (v[k].wait > *wait)
            *wait = v[k].wait;
        if (v[k].start < *start)
            *start = v[k].start;
    }
    *i = k;
}

/* Per global rank: the instances it came last to by the phases (it waited
 * least) and by how much (the next-least wait minus its own). */
struct tally {
    uint64_t n;
    double late_s;
};

static int compare_last(const void *a, const void *b)
{
    const struct cp_analysis_phase_rank *x = a, *y = b;

    if (x->last_arrivals != y->last_arrivals)
        return x->last_arrivals > y->last_arrivals ? -1 : 1;
    return x->rank - y->rank;
}

/* The ranks that came last most often, into ph->last. */
static void keep_last(struct cp_analysis_phases *ph, const struct tally *t,
                      size_t nt)
{
    size_t r;

    for (r = 0; r < nt; r++) {
        struct cp_analysis_phase_rank e = {(int)r, t[r].n, t[r].late_s};
        if (!t[r].n)
            continue;
        if (ph->nlast < CP_PHASES_LAST_MAX) {
            ph->last[ph->nlast++] = e;
        } else if (compare_last(&e, &ph->last[ph->nlast - 1]) < 0) {
            ph->last[ph->nlast - 1] = e;
        } else {
            continue;
        }
        qsort(ph->last, ph->nlast, sizeof *ph->last, compare_last);
    }
}

/* A lookup of an->comms by a key: its id, or a hash of its members. */
struct comm_key {
    uint64_t key;
    size_t index;
};

struct comm_index {
    struct comm_key *by_id, *by_members; /* [an->ncomms] each, by key */
    int32_t *ranks; /* scratch: a run's ranks */
    int32_t *comm_ranks; /* scratch: a communicator's */
};

static int compare_key(const void *a, const void *b)
{
    const struct comm_key *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

static int compare_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    return (x > y) - (x < y);
}

/* FNV-1a over n sorted ranks. */
static uint64_t members_hash(const int32_t *r, size_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= (uint32_t)r[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

/* Communicator c's global ranks into r, sorted; 0 when a member has no
 * log (its set is not known). */
static size_t comm_members(const struct cp_analysis_comm *c, int32_t *r)
{
    unsigned k;

    for (k = 0; k < c->nranks; k++)
        if ((r[k] = c->ranks[k]) < 0)
            return 0;
    qsort(r, c->nranks, sizeof *r, compare_i32);
    return c->nranks;
}

/* The lookups of an's communicators (0: none built, no per-communicator
 * skew; -1 no memory).  ranks_max: the longest run of records to hold. */
static int comm_index_build(const struct cp_analysis *an, size_t ranks_max,
                            struct comm_index *x)
{
    size_t i, most = ranks_max;

    memset(x, 0, sizeof *x);
    if (an->ncomms == 0)
        return 0;
    for (i = 0; i < an->ncomms; i++)
        most = an->comms[i].nranks > most ? an->comms[i].nranks : most;
    x->by_id = malloc(an->ncomms * sizeof *x->by_id);
    x->by_members = malloc(an->ncomms * sizeof *x->by_members);
    x->ranks = malloc((most ? most : 1) * sizeof *x->ranks);
    x->comm_ranks = malloc((most ? most : 1) * sizeof *x->comm_ranks);
    if (!x->by_id || !x->by_members || !x->ranks || !x->comm_ranks)
        return -1;
    for (i = 0; i < an->ncomms; i++) {
        size_t n = comm_members(&an->comms[i], x->comm_ranks);
        x->by_id[i].key = an->comms[i].id;
        x->by_id[i].index = i;
        /* a communicator of unknown members gets a key no set has */
        x->by_members[i].key = n ? members_hash(x->comm_ranks, n) : 0;
        x->by_members[i].index = n ? i : SIZE_MAX;
    }
    qsort(x->by_id, an->ncomms, sizeof *x->by_id, compare_key);
    qsort(x->by_members, an->ncomms, sizeof *x->by_members, compare_key);
    return 0;
}

static void comm_index_free(struct comm_index *x)
{
    free(x->by_id);
    free(x->by_members);
    free(x->ranks);
    free(x->comm_ranks);
}

/* The communicator of an whose members are the ranks of v[from, to) (a
 * run of one phase communicator's records): the only one with that set,
 * or -1.  The plugin's communicator id is NCCL's commHash, the shim's its
 * own: where both logged a process, the ids differ and the members tell. */
static long comm_by_members(const struct cp_analysis *an,
                            struct comm_index *x, const struct sync_rec *v,
                            size_t from, size_t to)
{
    struct comm_key want;
    const struct comm_key *k;
    size_t n = 0, i, found;

    for (i = from; i < to; i++)
        x->ranks[n++] = v[i].rank;
    qsort(x->ranks, n, sizeof *x->ranks, compare_i32);
    for (i = 1, found = n ? 1 : 0; i < n; i++)
        if (x->ranks[i] != x->ranks[found - 1])
            x->ranks[found++] = x->ranks[i];
    n = found;
    want.key = members_hash(x->ranks, n);
    k = bsearch(&want, x->by_members, an->ncomms, sizeof *k, compare_key);
    if (!k || k->index == SIZE_MAX)
        return -1;
    /* another communicator with the same key: not one */
    if ((k > x->by_members && k[-1].key == want.key) ||
        (k + 1 < x->by_members + an->ncomms && k[1].key == want.key))
        return -1;
    found = k->index;
    /* the hash matched: the sets must too */
    if (an->comms[found].nranks != n ||
        comm_members(&an->comms[found], x->comm_ranks) != n ||
        memcmp(x->ranks, x->comm_ranks, n * sizeof *x->ranks) != 0)
        return -1;
    return (long)found;
}

/* The kernels' skew of the phase communicator whose records are v[vfrom,
 * vto), from its instances' phase[from, to) (sorted here: v is sorted by
 * communicator first, so a communicator's instances are one run of
 * phase[]): given to the communicator of an with its id, else to the one
 * with its members. */
static void comm_skew(struct cp_analysis *an, struct comm_index *x,
                      const struct sync_rec *v, size_t vfrom, size_t vto,
                      double *phase, size_t from, size_t to)
{
    struct comm_key want = {v[vfrom].comm, 0};
    const struct comm_key *k;
    long ci;

    if (!x->by_id || to == from)
        return;
    k = bsearch(&want, x->by_id, an->ncomms, sizeof *k, compare_key);
    ci = k ? (long)k->index : comm_by_members(an, x, v, vfrom, vto);
    if (ci < 0)
        return;
    an->comms[ci].kernel_instances = to - from;
    put_quantiles(&an->comms[ci].kernel_skew, phase + from, to - from);
}

/* The instances of sorted v: per (comm, seq) with two members or more,
 * the phases' skew, the hosts' and their difference, and who came last;
 * per communicator of an, the phases' skew of its instances. */
static int judge_instances(struct cp_analysis *an,
                           const struct sync_rec *v, size_t n)
{
    struct cp_analysis_phases *ph = &an->nccl.phases;
    struct comm_index x;
    double *phase, *host, *diff;
    struct tally *t;
    size_t i = 0, m = 0, nt = 1, k, comm_from = 0, run = 0, vfrom = 0;
    int rc = -1;

    /* the longest run of one communicator's records bounds the scratch */
    for (k = 0; k < n; k++) {
        if ((size_t)v[k].rank + 1 > nt)
            nt = (size_t)v[k].rank + 1;
        if (k + 1 == n || v[k + 1].comm != v[k].comm) {
            run = k + 1 - vfrom > run ? k + 1 - vfrom : run;
            vfrom = k + 1;
        }
    }
    vfrom = 0;
    phase = malloc((n ? n : 1) * sizeof *phase);
    host = malloc((n ? n : 1) * sizeof *host);
    diff = malloc((n ? n : 1) * sizeof *diff);
    t = calloc(nt, sizeof *t);
    if (comm_index_build(an, run, &x) < 0 || !phase || !host || !diff || !t)
        goto out;
    while (i < n) {
        size_t j = i, members = 0;
        int64_t wmin = INT64_MAX, wnext = INT64_MAX, wmax = INT64_MIN,
                smin = INT64_MAX, smax = INT64_MIN, wait, start;
        int32_t last = -1;
        while (j < n && v[j].comm == v[i].comm && v[j].seq == v[i].seq) {
            int32_t rank = v[j].rank;
            member_of(v, n, &j, &wait, &start);
            if (wait < wmin) {
                wnext = wmin;
                wmin = wait;
                last = rank;
            } else if (wait < wnext) {
                wnext = wait;
            }
            wmax = wait > wmax ? wait : wmax;
            smin = start < smin ? start : smin;
            smax = start > smax ? start : smax;
            members++;
        }
        if (members >= 2) {
            phase[m] = (double)(wmax - wmin) * 1e-9;
            host[m] = (double)(smax - smin) * 1e-9;
            diff[m] = fabs(phase[m] - host[m]);
            m++;
            t[last].n++;
            t[last].late_s += (double)(wnext - wmin) * 1e-9;
        }
        if (j == n || v[j].comm != v[i].comm) {
            /* the communicator's last instance: its run of phase[] is
             * sorted in place (host[] and diff[] are already filled, and
             * phase[] is sorted whole below) */
            comm_skew(an, &x, v, vfrom, j, phase, comm_from, m);
            comm_from = m;
            vfrom = j;
        }
        i = j;
    }
    ph->instances = m;
    put_quantiles(&ph->skew, phase, m);
    put_quantiles(&ph->host_skew, host, m);
    put_quantiles(&ph->difference, diff, m);
    keep_last(ph, t, nt);
    rc = 0;
out:
    free(phase);
    free(host);
    free(diff);
    free(t);
    comm_index_free(&x);
    return rc;
}

int an_phases_build(struct cp_analysis *an)
{
    struct cp_analysis_phases *ph = &an->nccl.phases;
    struct sync_rec *v = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;

    memset(ph, 0, sizeof *ph);
    if (read_syncs(an, &v, &n, &cap, &ph->damaged) < 0)
        goto out;
    ph->records = n;
    if (n > 1)
        qsort(v, n, sizeof *v, compare_rec);
    if (judge_instances(an, v, n) < 0)
        goto out;
    if (ph->records == 0)
        ph->why = "no initial-sync phase was recorded: kernel phases come "
                  "from the NCCL profiler plugin under API v7 (NCCL 2.31 and "
                  "later)";
    else if (ph->instances == 0)
        ph->why = "no collective instance has the initial-sync phase of two "
                  "members or more";
    rc = 0;
out:
    free(v);
    return rc;
}

const struct cp_analysis_phase_rank *
an_phases_clear_last(const struct cp_analysis_phases *ph)
{
    const struct cp_analysis_phase_rank *first = &ph->last[0];

    /* at 10 instances or more, half of them, and twice the next rank's:
     * in communicators of two a rank comes last at half by chance */
    if (ph->nlast == 0 || first->last_arrivals < 10 ||
        2 * first->last_arrivals < ph->instances ||
        (ph->nlast >= 2 && first->last_arrivals < 2 * ph->last[1].last_arrivals))
        return NULL;
    return first;
}
