/* cp_lrcells.c - a long run's detail windows per communicator (cells):
 * what the findings' tests per window read (struct cp_analysis_wcell,
 * analyzer/judge/cp_det_windows.c; docs/analysis.md, "Findings by
 * window").
 *
 * The policy keeps the same sequence numbers on every member of a
 * communicator, so window k of a communicator is one stretch of time; a
 * communicator called ten times less often reaches window k ten times
 * later.  A cell is one communicator's instances of one window: its span,
 * its arrivals (who came last, by how much) and its own times per
 * (collective, size bucket).  Bounded: at most LRC_MAX cells (about
 * 1.1 KiB each); the instances of cells past it are counted, not kept.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_grow.h"

#ifndef LRC_MAX
#define LRC_MAX (1u << 15)
#endif
#define LRC_BELOW 24 /* bins below a key's first call's: 3 octaves */

_Static_assert(CP_ANALYSIS_WCELL_LAST == AN_WINDOW_LATE,
              "a cell's last ranks are the join's space-saving counters");

struct an_lrcell {
    int64_t start, end;
    struct an_wlate last[AN_WINDOW_LATE];
    struct cp_analysis_wcell pub; /* start_s, end_s, last: at the build */
};

static uint32_t hash_of(uint32_t index, uint32_t comm)
{
    uint64_t x = ((uint64_t)index << 32 | comm) * 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(x >> 29);
}

/* The index grown to twice its size: 0, or -1 (memory). */
static int rehash(struct an_wcells *w)
{
    size_t cap = w->hcap ? 2 * w->hcap : 256, i;
    uint32_t *h = calloc(cap, sizeof *h);

    if (!h)
        return -1;
    for (i = 0; i < w->n; i++) {
        const struct cp_analysis_wcell *c = &w->cells[i].pub;
        size_t j = hash_of(c->index, c->comm) & (cap - 1);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = (uint32_t)i + 1;
    }
    free(w->hash);
    w->hash = h;
    w->hcap = cap;
    return 0;
}

/* The cell of (index, comm), new when not there; NULL past the bound. */
static struct an_lrcell *cell_of(struct an_wcells *w, uint32_t index,
                                 uint32_t comm, const struct an_lr_inst *x)
{
    size_t j;
    struct an_lrcell *c;

    /* at most half full, with the one that may come */
    if (2 * (w->n + 1) > w->hcap && w->n < LRC_MAX && rehash(w) < 0)
        return NULL;
    for (j = hash_of(index, comm) & (w->hcap - 1); w->hash[j];
         j = (j + 1) & (w->hcap - 1)) {
        c = &w->cells[w->hash[j] - 1];
        if (c->pub.index == index && c->pub.comm == comm)
            return c;
    }
    if (w->n >= LRC_MAX)
        return NULL;
    if (cp_grow((void **)&w->cells, &w->cap, w->n, sizeof *w->cells) < 0)
        return NULL;
    c = &w->cells[w->n];
    memset(c, 0, sizeof *c);
    c->start = x->start;
    c->end = x->end;
    c->pub.index = index;
    c->pub.comm = comm;
    w->hash[j] = (uint32_t)++w->n;
    return c;
}

/* 8 x log2 of t ns, floored */
static int32_t bin_of(double own_s)
{
    double t = own_s * 1e9;

    return t >= 1 ? (int32_t)floor(8.0 * log2(t)) : 0;
}

static void add_own(struct cp_analysis_wcell *p, const struct an_lr_inst *x)
{
    unsigned bucket = an_bucket_index(x->n), i;
    struct cp_analysis_wkey *k = NULL;
    int32_t b;

    for (i = 0; i < p->nkeys; i++)
        if (p->keys[i].slot == x->slot && p->keys[i].bucket == bucket)
            k = &p->keys[i];
    if (!k) {
        if (p->nkeys == CP_ANALYSIS_WCELL_KEYS) {
            p->keys_lost++;
            return;
        }
        k = &p->keys[p->nkeys++];
        k->slot = x->slot;
        k->bucket = bucket;
        k->lo = bin_of(x->own_s) - LRC_BELOW;
    }
    b = bin_of(x->own_s) - k->lo;
    if (b < 0)
        b = 0;
    if (b >= CP_ANALYSIS_WCELL_BINS)
        b = CP_ANALYSIS_WCELL_BINS - 1;
    k->bins[b]++;
    k->calls++;
}

void an_wcells_add(struct an_wcells *w, uint32_t index,
                   const struct an_lr_inst *x)
{
    struct an_lrcell *c = cell_of(w, index, x->comm, x);
    struct cp_analysis_wcell *p;

    if (!c) {
        w->left_out++;
        return;
    }
    p = &c->pub;
    if (x->start < c->start)
        c->start = x->start;
    if (x->end > c->end)
        c->end = x->end;
    p->instances++;
    p->time_s += x->time_s;
    if (x->last_file >= 0 && x->members >= 2) {
        p->judged++;
        p->fair += 1.0 / x->members;
        p->late_s += x->late_s;
        an_wlate_add(c->last, x->last_file, 1, x->late_s);
    }
    if (isfinite(x->own_s) && x->own_s > 0)
        add_own(p, x);
}

void an_wcells_free(struct an_wcells *w)
{
    free(w->cells);
    free(w->hash);
    memset(w, 0, sizeof *w);
}

static int wcell_cmp(const void *a, const void *b)
{
    const struct cp_analysis_wcell *x = a, *y = b;

    if (x->start_s != y->start_s)
        return (x->start_s > y->start_s) - (x->start_s < y->start_s);
    return (x->comm > y->comm) - (x->comm < y->comm);
}

int an_wcells_build(const struct an_wcells *w, int64_t origin,
                    struct cp_analysis_long_run *out)
{
    size_t i;
    unsigned k;

    out->wcells_left_out = w->left_out;
    if (!w->n)
        return 0;
    out->wcells = calloc(w->n, sizeof *out->wcells);
    if (!out->wcells)
        return -1;
    for (i = 0; i < w->n; i++) {
        const struct an_lrcell *c = &w->cells[i];
        struct cp_analysis_wcell *o = &out->wcells[i];
        *o = c->pub;
        o->start_s = (double)(c->start - origin) * 1e-9;
        o->end_s = (double)(c->end - origin) * 1e-9;
        for (k = 0; k < CP_ANALYSIS_WCELL_LAST; k++) {
            const struct an_wlate *l = &c->last[k];
            o->last[k].rank = l->count ? l->file : -1;
            o->last[k].count = l->count;
            o->last[k].late_s = l->late;
        }
    }
    out->nwcells = w->n;
    qsort(out->wcells, out->nwcells, sizeof *out->wcells, wcell_cmp);
    return 0;
}

double cp_analysis_wkey_quantile(const struct cp_analysis_wkey *k, double q)
{
    uint64_t want, seen = 0;
    unsigned i;

    if (!k->calls)
        return NAN;
    want = (uint64_t)ceil(q * (double)k->calls);
    if (want < 1)
        want = 1;
    for (i = 0; i < CP_ANALYSIS_WCELL_BINS; i++) {
        seen += k->bins[i];
        if (seen >= want)
            break;
    }
    if (i == CP_ANALYSIS_WCELL_BINS)
        i--;
    return exp2(((double)(k->lo + (int32_t)i) + 0.5) / 8.0) * 1e-9;
}
