/* cp_tags.c - the calls of each application tag (cp_analysis.h, struct
 * cp_analysis_tags; docs/report-schema.md, `nccl_profiler.tags`).
 *
 * The stream gives each collective instance and send/recv pair the tag of
 * its first member with a tag record (cp_ncjoin, kind 9) and sums its calls
 * per tag beside each size bucket's own sums (cp_stream.c, account()).
 * Here the buckets are read once more, with the model terms the rows were
 * judged with: a tag's latency-bound time is the time of its calls in the
 * buckets the rows call latency-bound (an_bucket_latency_bound), and its
 * busbw sums f n over its time as the rows do.  The calls without a tag
 * record are each bucket's calls less its tagged ones. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_ncjoin.h"
#include "cp_tagnames.h"

static void add_sums(struct cp_analysis_tag *t, const struct an_eval *ev,
                     int latency, uint64_t count, double bytes, double time,
                     double duration)
{
    t->calls += count;
    t->bytes += bytes;
    t->time_s += time;
    t->duration_s += duration;
    t->fn += ev->factor * bytes;
    if (ev->have_model) {
        t->modeled_s += time;
        if (latency)
            t->latency_bound_s += time;
    }
}

/* Tag values first, ascending; the other tags last. */
static int compare_tag(const void *a, const void *b)
{
    const struct cp_analysis_tag *x = a, *y = b;

    if (x->other != y->other)
        return x->other - y->other;
    return (x->value > y->value) - (x->value < y->value);
}

int an_tags_build(struct cp_analysis *an, const struct an_state *st,
                  const struct an_eval *ev, size_t nev,
                  const struct cp_tagnames *names)
{
    struct cp_analysis_tags *tags = &an->nccl.tags;
    const struct cp_ncjoin *j = an->nccl.join;
    size_t i, ntab, k;

    memset(tags, 0, sizeof *tags);
    tags->none.none = 1;
    tags->named = cp_tagnames_count(names);
    if (!an->nccl.present) {
        tags->why = "no NCCL profiler plugin log was read: tags come from "
                    "the plugin (API v7, NCCL 2.31 and later)";
        return 0;
    }
    if (!j || j->tag_records == 0) {
        tags->why = "no call has a tag record: NCCL spoke profiler API v6 or "
                    "older to the plugin (tags need v7, NCCL 2.31 and later)";
        return 0;
    }
    tags->present = 1;
    tags->records = j->tag_records;
    /* index k (1..ntags) at k - 1, CP_NCJOIN_TAG_OTHER at ntags */
    ntab = j->ntags + 1;
    tags->v = calloc(ntab, sizeof *tags->v);
    if (!tags->v)
        return -1;
    for (k = 0; k < j->ntags; k++) {
        const char *name = cp_tagnames_name(names, j->tags[k]);
        tags->v[k].value = j->tags[k];
        if (name)
            snprintf(tags->v[k].name, sizeof tags->v[k].name, "%s", name);
    }
    tags->v[j->ntags].other = 1;
    for (i = 0; i < nev; i++) {
        const struct an_slot_table *t = st->comms[ev[i].comm]->slots[ev[i].slot];
        unsigned b;
        if (!t)
            continue;
        for (b = 0; b < AN_NBUCKETS; b++) {
            const struct an_bucket *bk = t->b[b];
            uint64_t count;
            double bytes, time, duration;
            int latency;
            uint32_t s;
            if (!bk || bk->count == 0)
                continue;
            latency = an_bucket_latency_bound(&ev[i], bk);
            count = bk->count;
            bytes = bk->bytes;
            time = bk->time;
            duration = bk->duration;
            for (s = 0; s < bk->ntags; s++) {
                const struct an_tag_sum *ts = &bk->tags[s];
                size_t at = ts->tag == CP_NCJOIN_TAG_OTHER ? j->ntags
                                                           : ts->tag - 1u;
                if (at >= ntab)
                    continue;
                add_sums(&tags->v[at], &ev[i], latency, ts->count, ts->bytes,
                         ts->time, ts->duration);
                count -= ts->count;
                bytes -= ts->bytes;
                time -= ts->time;
                duration -= ts->duration;
            }
            if (count > 0)
                add_sums(&tags->none, &ev[i], latency, count, bytes, time,
                         duration);
        }
    }
    /* keep the tags that have calls in the analysed window */
    for (i = k = 0; i < ntab; i++)
        if (tags->v[i].calls > 0)
            tags->v[k++] = tags->v[i];
    tags->n = k;
    qsort(tags->v, tags->n, sizeof *tags->v, compare_tag);
    return 0;
}
