/* cp_det_longrun.c - a long run's slowdowns over days, from the view of
 * its aggregates (an->long_run; docs/analysis.md, "Long runs"):
 *
 * slowdown (method "long_run"): per communicator, its busbw per interval
 * against its healthy pace (the median of its intervals within LR_FACTOR
 * of their 90th percentile: the run's pace while a tenth of it or more
 * was healthy); the first interval, after LR_RUN of them, from which
 * LR_RUN intervals in a row or more are below the pace / LR_FACTOR names
 * the communicator, the interval (since_s), the factor and, when the
 * arrival skew grew there too, the rank that arrived last.
 *
 * straggler (method "long_run"): per communicator, its mean arrival skew
 * per interval against its healthy skew (the median of its intervals
 * within LR_SKEW_GROWTH of their 10th percentile); the first interval
 * from which LR_RUN intervals in a row or more are above LR_SKEW_GROWTH
 * times it, LR_SKEW_MIN_S, LR_SKEW_JUMP times every skew before and
 * LR_SKEW_OWN of the calls' own time names
 * the rank that arrived last most often in them (a straggler that
 * started later).
 *
 * A healthy long run has neither.  Only what the view holds is read.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"

static json_t *jint(long long v)
{
    return json_integer((json_int_t)v);
}

#define LR_FACTOR 1.5        /* busbw below the pace by this much */
#define LR_RUN 3             /* intervals in a row, and before the first */
#define LR_SKEW_GROWTH 3.0   /* skew above the healthy one by this much */
#define LR_SKEW_MIN_S 1e-4   /* and above this */
#define LR_SKEW_JUMP 1.5     /* and above every skew before by this much */
#define LR_SKEW_OWN 0.1      /* and above this share of the own time */

/* One communicator's intervals. */
struct series {
    size_t n;
    size_t *iv;        /* index into long_run.intervals */
    const struct cp_analysis_lr_comm **c;
    double *v;         /* the figure judged (busbw or skew), NaN none */
};

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q quantile (0..1) of the finite values of v[0..n); NaN none.
 * tmp: room for n. */
static double quantile(const double *v, size_t n, double q, double *tmp)
{
    size_t m = 0, i;

    for (i = 0; i < n; i++)
        if (isfinite(v[i]))
            tmp[m++] = v[i];
    if (!m)
        return NAN;
    qsort(tmp, m, sizeof *tmp, dcmp);
    return tmp[(size_t)(q * (double)(m - 1) + 0.5)];
}

/* The first run from interval `start` on of LR_RUN or more intervals,
 * after LR_RUN judged ones, where the figure is below thr (above it when
 * `above`): [*from, *to); 0 none. */
static int first_run(const struct series *s, double thr, int above,
                     size_t start, size_t *from, size_t *to)
{
    size_t i, j, seen = 0;

    for (i = 0; i < s->n; i++) {
        if (!isfinite(s->v[i]))
            continue;
        if (seen >= LR_RUN && i >= start) {
            for (j = i; j < s->n && isfinite(s->v[j]) &&
                        (above ? s->v[j] > thr : s->v[j] < thr);
                 j++)
                ;
            if (j - i >= LR_RUN) {
                *from = i;
                *to = j;
                return 1;
            }
        }
        if (above ? s->v[i] <= thr : s->v[i] >= thr)
            seen++;
    }
    return 0;
}

static int icmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The rank that arrived last most often in [from, to), -1 none (or no
 * memory): the ranks sorted, the longest run of one. */
static int mode_rank(const struct series *s, size_t from, size_t to)
{
    int *v = malloc((to - from + 1) * sizeof *v), best = -1;
    size_t i, n = 0, most = 0, run = 0;

    if (!v)
        return -1;
    for (i = from; i < to; i++)
        if (s->c[i]->last_rank >= 0)
            v[n++] = s->c[i]->last_rank;
    qsort(v, n, sizeof *v, icmp);
    for (i = 0; i < n; i++) {
        run = i > 0 && v[i] == v[i - 1] ? run + 1 : 1;
        if (run > most) {
            most = run;
            best = v[i];
        }
    }
    free(v);
    return best;
}

static const char *label(const struct cp_analysis *an, unsigned ci,
                         char *buf, size_t size)
{
    if (ci < an->ncomms && an->comms[ci].name[0])
        snprintf(buf, size, "%s", an->comms[ci].name);
    else if (ci < an->ncomms)
        snprintf(buf, size, "%016llx", (unsigned long long)an->comms[ci].id);
    else
        snprintf(buf, size, "?");
    return buf;
}

static int common_evidence(const struct cp_analysis *an, json_t *e,
                           const struct series *s, unsigned ci, size_t from,
                           size_t to)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    int bad = 0;

    bad |= set(e, "method", json_string("long_run"));
    bad |= set(e, "comm", ci < an->ncomms ? hex_id(an->comms[ci].id)
                                          : json_null());
    bad |= set(e, "comm_name", json_string(ci < an->ncomms ? an->comms[ci].name
                                                           : ""));
    bad |= set(e, "since_s", jnum(lr->intervals[s->iv[from]].start_s));
    bad |= set(e, "until_s", to < s->n ? jnum(lr->intervals[s->iv[to]].start_s)
                                       : json_null());
    bad |= set(e, "first_interval", jint((long long)s->iv[from]));
    bad |= set(e, "last_interval", jint((long long)s->iv[to - 1]));
    bad |= set(e, "intervals", jint((long long)(to - from)));
    bad |= set(e, "interval_s", jnum(lr->interval_s));
    return bad ? -1 : 0;
}

static int rank_node(const struct cp_analysis *an, int rank, unsigned *node)
{
    size_t i = det_first_of_rank(an, rank);

    if (i >= an->nranks || an->ranks[i].rank != rank)
        return 0;
    *node = an->ranks[i].node;
    return 1;
}

/* The skew run of s (busbw in s->v replaced), its healthy skew and
 * threshold: 1 when there is one. */
static int skew_run(struct series *s, double *tmp, double *base,
                    size_t *from, size_t *to)
{
    size_t i;
    double p10, thr;

    for (i = 0; i < s->n; i++)
        s->v[i] = s->c[i]->skew_s;
    p10 = quantile(s->v, s->n, 0.1, tmp);
    if (!isfinite(p10))
        return 0;
    /* the healthy skews: near the least ones */
    {
        size_t m = 0;
        for (i = 0; i < s->n; i++)
            if (isfinite(s->v[i]) &&
                s->v[i] <= LR_SKEW_GROWTH * (p10 > 1e-9 ? p10 : 1e-9))
                tmp[m++] = s->v[i];
        qsort(tmp, m, sizeof *tmp, dcmp);
        *base = m ? tmp[m / 2] : p10;
    }
    thr = LR_SKEW_GROWTH * *base;
    if (thr < LR_SKEW_MIN_S)
        thr = LR_SKEW_MIN_S;
    /* and above LR_SKEW_JUMP x every skew before it: a skew that only
     * wanders (a communicator of few ranks) is no straggler */
    for (i = 0; first_run(s, thr, 1, i, from, to); i = *to) {
        double before = 0, least = INFINITY, own;
        size_t j;
        for (j = 0; j < *from; j++)
            if (isfinite(s->v[j]) && s->v[j] > before)
                before = s->v[j];
        for (j = *from; j < *to; j++)
            if (s->v[j] < least)
                least = s->v[j];
        /* and a share of the calls' own time worth naming */
        for (own = 0, j = *from; j < *to; j++)
            if (s->c[j]->instances > 0)
                own += s->c[j]->own_s / s->c[j]->instances;
        own /= (double)(*to - *from);
        if (least > LR_SKEW_JUMP * before && least > LR_SKEW_OWN * own)
            return 1;
    }
    return 0;
}

/* The slowdown of communicator ci's busbw, if any, as a finding. */
static int judge_slowdown(struct cp_analysis *an, unsigned ci,
                          struct series *s, double *tmp)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    size_t i, from, to;
    double p90, pace, slow;
    char name[40], tail[80] = "", at[48];
    int have_skew, rank = -1;
    unsigned node;
    json_t *e;

    /* busbw */
    for (i = 0; i < s->n; i++)
        s->v[i] = s->c[i]->busbw_Bps;
    p90 = quantile(s->v, s->n, 0.9, tmp);
    if (isfinite(p90) && p90 > 0) {
        size_t m = 0;
        for (i = 0; i < s->n; i++)
            if (isfinite(s->v[i]) && s->v[i] >= p90 / LR_FACTOR)
                tmp[m++] = s->v[i];
        qsort(tmp, m, sizeof *tmp, dcmp);
        pace = tmp[m / 2];
        if (first_run(s, pace / LR_FACTOR, 0, 0, &from, &to)) {
            double skew_in = 0, skew_before = 0;
            size_t nin = 0, nbefore = 0;
            for (i = from; i < to; i++)
                tmp[i - from] = s->v[i];
            qsort(tmp, to - from, sizeof *tmp, dcmp);
            slow = tmp[(to - from) / 2];
            /* the skew where it began: its first LR_RUN intervals
             * against every interval before */
            for (i = 0; i < to && i < from + LR_RUN; i++) {
                if (!isfinite(s->c[i]->skew_s))
                    continue;
                if (i < from) {
                    skew_before += s->c[i]->skew_s;
                    nbefore++;
                } else {
                    skew_in += s->c[i]->skew_s;
                    nin++;
                }
            }
            have_skew = nin && nbefore &&
                        skew_in / nin > LR_SKEW_GROWTH * (skew_before / nbefore) &&
                        skew_in / nin > LR_SKEW_MIN_S;
            if (have_skew)
                rank = mode_rank(s, from, from + LR_RUN);
            if (rank >= 0)
                snprintf(tail, sizeof tail,
                         "; its arrival skew grew, rank %d arriving last",
                         rank);
            if (det_add_finding(
                    an, CP_KIND_SLOWDOWN, CP_SEVERITY_WARNING,
                    rank >= 0 ? &rank : NULL, rank >= 0,
                    rank >= 0 && rank_node(an, rank, &node) ? &node : NULL,
                    rank >= 0 && rank_node(an, rank, &node),
                    "Communicator %s of the long run slowed down %.1fx from "
                    "%s on (interval %zu of %zu, %zu intervals in a "
                    "row%s): its busbw fell from %.3g to %.3g GB/s%s.",
                    label(an, ci, name, sizeof name), pace / slow,
                    det_when(lr->intervals[s->iv[from]].start_s, at, sizeof at),
                    s->iv[from],
                    lr->nintervals, to - from,
                    to < s->n ? "" : ", to the end of the run", pace / 1e9,
                    slow / 1e9, tail) < 0)
                return -1;
            e = det_last_evidence(an);
            if (common_evidence(an, e, s, ci, from, to) < 0 ||
                set(e, "factor", jnum(pace / slow)) < 0 ||
                set(e, "busbw_Bps", jnum(slow)) < 0 ||
                set(e, "reference_busbw_Bps", jnum(pace)) < 0 ||
                set(e, "skew_s", jnum(nin ? skew_in / nin : NAN)) < 0 ||
                set(e, "reference_skew_s",
                    jnum(nbefore ? skew_before / nbefore : NAN)) < 0 ||
                set(e, "last_rank", rank >= 0 ? jint(rank) : json_null()) < 0)
                return -1;
        }
    }
    return 0;
}

/* A straggler from some interval on in communicator ci's skew, if any:
 * a finding, or its rank's finding's other communicator. */
static int judge_straggler(struct cp_analysis *an, unsigned ci,
                           struct series *s, double *tmp)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    size_t i, sfrom, sto;
    double base_skew = NAN;
    char name[40], at[48];
    int rank = -1;
    unsigned node;
    json_t *e, *comm;

    /* skew: a straggler from some interval on */
    if (skew_run(s, tmp, &base_skew, &sfrom, &sto)) {
        double skew = 0;
        for (i = sfrom; i < sto; i++)
            skew += s->v[i];
        skew /= (double)(sto - sfrom);
        rank = mode_rank(s, sfrom, sto);
        comm = json_object();
        if (!comm ||
            set(comm, "comm", ci < an->ncomms ? hex_id(an->comms[ci].id)
                                              : json_null()) < 0 ||
            set(comm, "comm_name",
                json_string(ci < an->ncomms ? an->comms[ci].name : "")) < 0 ||
            set(comm, "since_s",
                jnum(lr->intervals[s->iv[sfrom]].start_s)) < 0 ||
            set(comm, "skew_s", jnum(skew)) < 0 ||
            set(comm, "reference_skew_s", jnum(base_skew)) < 0) {
            json_decref(comm);
            return -1;
        }
        /* one finding per rank: its other communicators join the first */
        if (rank >= 0)
            for (i = 0; i < an->nfindings; i++) {
                struct cp_analysis_finding *f = &an->findings[i];
                json_t *m = json_object_get(f->evidence, "method"),
                       *who = json_object_get(f->evidence, "last_rank");
                if (f->kind != CP_KIND_STRAGGLER || !json_is_string(m) ||
                    strcmp(json_string_value(m), "long_run") ||
                    !json_is_integer(who) || json_integer_value(who) != rank)
                    continue;
                if (json_array_append_new(json_object_get(f->evidence, "comms"),
                                          comm) < 0 ||
                    det_append_message(
                        f, " Also on communicator %s from %s on.",
                        label(an, ci, name, sizeof name),
                        det_when(lr->intervals[s->iv[sfrom]].start_s, at,
                             sizeof at)) < 0)
                    return -1;
                return 0;
            }
        if (det_add_finding(
                an, CP_KIND_STRAGGLER, CP_SEVERITY_WARNING,
                rank >= 0 ? &rank : NULL, rank >= 0,
                rank >= 0 && rank_node(an, rank, &node) ? &node : NULL,
                rank >= 0 && rank_node(an, rank, &node),
                "From %s on (interval %zu of %zu, %zu intervals in a "
                "row) the members of communicator %s of the long run waited "
                "%.3g ms per call for the last arrival, against %.3g ms "
                "before; rank %d arrived last.",
                det_when(lr->intervals[s->iv[sfrom]].start_s, at, sizeof at),
                s->iv[sfrom],
                lr->nintervals, sto - sfrom, label(an, ci, name, sizeof name),
                skew * 1e3, base_skew * 1e3, rank) < 0)
            return -1;
        e = det_last_evidence(an);
        if (common_evidence(an, e, s, ci, sfrom, sto) < 0 ||
            set(e, "kind", json_string("arrival")) < 0 ||
            set(e, "mean_late_s", jnum(skew)) < 0 ||
            set(e, "skew_s", jnum(skew)) < 0 ||
            set(e, "reference_skew_s", jnum(base_skew)) < 0 ||
            set(e, "factor", jnum(base_skew > 0 ? skew / base_skew : NAN)) < 0 ||
            set(e, "last_rank", rank >= 0 ? jint(rank) : json_null()) < 0 ||
            set(e, "comms", json_array()) < 0 ||
            json_array_append_new(json_object_get(e, "comms"), comm) < 0)
            return -1;
    }
    return 0;
}

static int judge_comm(struct cp_analysis *an, unsigned ci, struct series *s,
                      double *tmp)
{
    if (judge_slowdown(an, ci, s, tmp) < 0)
        return -1;
    return judge_straggler(an, ci, s, tmp);
}

int det_long_run(struct cp_analysis *an, const struct detect_input *in)
{
    const struct cp_analysis_long_run *lr = &an->long_run;
    struct series s;
    double *tmp = NULL;
    unsigned char *done = NULL;
    size_t i, j;
    int rc = -1;

    (void)in;
    if (!lr->present || lr->nintervals < 2 * LR_RUN)
        return 0;
    memset(&s, 0, sizeof s);
    s.iv = malloc(lr->nintervals * sizeof *s.iv);
    s.c = malloc(lr->nintervals * sizeof *s.c);
    s.v = malloc(lr->nintervals * sizeof *s.v);
    tmp = malloc(lr->nintervals * sizeof *tmp);
    done = calloc(an->ncomms ? an->ncomms : 1, 1);
    if (!s.iv || !s.c || !s.v || !tmp || !done)
        goto out;
    for (j = 0; j < lr->nlr_comms; j++) {
        unsigned ci = lr->lr_comms[j].comm;
        if (ci >= an->ncomms || done[ci])
            continue;
        done[ci] = 1;
        s.n = 0;
        for (i = 0; i < lr->nintervals; i++) {
            const struct cp_analysis_lr_interval *iv = &lr->intervals[i];
            size_t k;
            for (k = iv->first; k < iv->first + iv->n; k++)
                if (lr->lr_comms[k].comm == ci) {
                    s.iv[s.n] = i;
                    s.c[s.n++] = &lr->lr_comms[k];
                    break;
                }
        }
        if (s.n >= 2 * LR_RUN && judge_comm(an, ci, &s, tmp) < 0)
            goto out;
    }
    rc = 0;
out:
    free(s.iv);
    free(s.c);
    free(s.v);
    free(tmp);
    free(done);
    return rc;
}
