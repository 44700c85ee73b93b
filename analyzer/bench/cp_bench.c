/* cp_bench.c - the collectives of collprof bench and nccl-tests'
 * conventions (see cp_bench.h). */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bench.h"
#include "cp_grow.h"

/* The collective named in one word (a path's last component, lower case,
 * without '-' and '_'): every match that is not part of a longer match
 * must name the same collective.  0 found, -1 none or ambiguous. */
static int find_in_word(const char *word, enum cp_coll *coll)
{
    size_t len = strlen(word), i, k;
    int found = 0;
    enum cp_coll which = CP_COLL_ALLREDUCE;

    for (i = 0; i < len; i++) {
        size_t best_len = 0;
        enum cp_coll best = CP_COLL_ALLREDUCE;
        /* the words: each collective's name and alias */
        for (k = 0; k < 2 * CP_COLL_COUNT; k++) {
            const struct cp_coll_facts *f =
                cp_model_coll_facts((enum cp_coll)(k / 2));
            const char *w = k % 2 ? f->alias : f->name;
            size_t wl = w ? strlen(w) : 0;
            if (wl > best_len && strncmp(word + i, w, wl) == 0) {
                best_len = wl;
                best = f->coll;
            }
        }
        if (best_len == 0)
            continue;
        if (found && which != best)
            return -1;
        found = 1;
        which = best;
        i += best_len - 1; /* a match inside this one is part of it */
    }
    if (!found)
        return -1;
    *coll = which;
    return 0;
}

int cp_bench_op_find(const char *text, enum cp_coll *coll)
{
    char word[512];
    const char *p = text;

    if (!text)
        return -1;
    /* The first whitespace-separated token that names a collective: a
     * command's program, or the file name itself. */
    while (*p) {
        size_t n = 0;
        const char *start, *end, *slash;
        while (*p && isspace((unsigned char)*p))
            p++;
        start = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        end = p;
        slash = NULL;
        for (const char *q = start; q < end; q++)
            if (*q == '/')
                slash = q;
        if (slash)
            start = slash + 1;
        for (const char *q = start; q < end && n + 1 < sizeof word; q++)
            if (*q != '-' && *q != '_')
                word[n++] = (char)tolower((unsigned char)*q);
        word[n] = '\0';
        if (n > 0 && find_in_word(word, coll) == 0)
            return 0;
    }
    return -1;
}

static const struct {
    const char *name;
    size_t size;
} types[] = {
    {"int8", 1},     {"char", 1},     {"uint8", 1},    {"int32", 4},
    {"int", 4},      {"uint32", 4},   {"int64", 8},    {"uint64", 8},
    {"half", 2},     {"float16", 2},  {"float", 4},    {"float32", 4},
    {"double", 8},   {"float64", 8},  {"bfloat16", 2}, {"bf16", 2},
    {"f8e4m3", 1},   {"f8e5m2", 1},   {"fp8_e4m3", 1}, {"fp8_e5m2", 1},
    {"fp8e4m3", 1},  {"fp8e5m2", 1},
};

size_t cp_bench_type_size(const char *name)
{
    size_t i;

    if (!name)
        return 0;
    for (i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(name, types[i].name) == 0)
            return types[i].size;
    return 0;
}

uint64_t cp_bench_count(enum cp_coll coll, uint64_t bytes, size_t type_size,
                        unsigned ranks)
{
    const struct cp_coll_facts *op = cp_model_coll_facts(coll);
    uint64_t count;

    if (!op || type_size == 0 || ranks == 0)
        return 0;
    count = bytes / type_size;
    return op->per_rank_count ? count / ranks : count;
}

uint64_t cp_bench_size(enum cp_coll coll, uint64_t count, size_t type_size,
                       unsigned ranks)
{
    const struct cp_coll_facts *op = cp_model_coll_facts(coll);

    if (!op)
        return 0;
    return count * type_size * (op->per_rank_count ? ranks : 1);
}

/* ---- sets ---------------------------------------------------------------- */

int cp_bench_set_add_series(struct cp_bench_set *set,
                            const struct cp_bench_series *s, unsigned *index)
{
    if (cp_grow((void **)&set->series, &set->cap_series, set->nseries,
             sizeof *set->series) < 0)
        return -1;
    set->series[set->nseries] = *s;
    if (index)
        *index = (unsigned)set->nseries;
    set->nseries++;
    return 0;
}

int cp_bench_set_add_point(struct cp_bench_set *set,
                           const struct cp_bench_point *p)
{
    if (cp_grow((void **)&set->points, &set->cap_points, set->npoints,
             sizeof *set->points) < 0)
        return -1;
    set->points[set->npoints++] = *p;
    return 0;
}

void cp_bench_set_clear(struct cp_bench_set *set)
{
    if (!set)
        return;
    free(set->series);
    free(set->points);
    memset(set, 0, sizeof *set);
}

void cp_bench_point_bandwidths(struct cp_bench_point *p)
{
    p->algbw_Bps = cp_model_algbw((double)p->size_bytes, p->time_s);
    p->busbw_Bps =
        p->ranks ? cp_model_busbw(p->coll, p->ranks, (double)p->size_bytes,
                                  p->time_s)
                 : NAN;
}

/* ---- nccl-tests' text ------------------------------------------------------ */

const char *cp_bench_format_number(double value, int width, char *buf,
                                   size_t size)
{
    int power = 0;
    double v = 1;

    if (!isfinite(value) || value < 0) {
        snprintf(buf, size, "%*s", width, "N/A");
        return buf;
    }
    /* The digits of the integer part (0 for values below 1). */
    while (value >= v && power < 40) {
        power++;
        v *= 10;
    }
    if (power < width - 2)
        snprintf(buf, size, "%*.2f", width, value);
    else if (power < width - 1)
        snprintf(buf, size, "%*.1f", width, value);
    else if (power < width + 1)
        snprintf(buf, size, "%*.0f", width, value);
    else if (width >= 7)
        snprintf(buf, size, "%*.1e", width, value);
    else
        snprintf(buf, size, "%*.0e", width, value);
    return buf;
}

const char *cp_bench_table_header(void)
{
    return "#                                                              "
           "out-of-place                       in-place          \n"
           "#       size         count      type   redop    root     time   "
           "algbw   busbw #wrong     time   algbw   busbw #wrong\n"
           "#        (B)    (elements)                               (us)  "
           "(GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n";
}

/* "  time  algbw  busbw  #wrong" of one point, or blanks. */
static void format_half(const struct cp_bench_point *p, char *out,
                        size_t size)
{
    char t[32], a[32], b[32], w[32];

    if (!p) {
        snprintf(out, size, "%34s", "");
        return;
    }
    cp_bench_format_number(p->time_s * 1e6, 7, t, sizeof t);
    cp_bench_format_number(p->algbw_Bps / 1e9, 6, a, sizeof a);
    cp_bench_format_number(p->busbw_Bps / 1e9, 6, b, sizeof b);
    if (p->wrong < 0)
        snprintf(w, sizeof w, "%6s", "N/A");
    else
        snprintf(w, sizeof w, "%6g", (double)p->wrong);
    snprintf(out, size, "  %7s  %6s  %6s  %6s", t, a, b, w);
}

const char *cp_bench_format_line(const struct cp_bench_point *out_of_place,
                                 const struct cp_bench_point *in_place,
                                 const char *type, char *buf, size_t size)
{
    const struct cp_bench_point *p = out_of_place ? out_of_place : in_place;
    const struct cp_coll_facts *op;
    char first[160], second[160];

    if (!p || !(op = cp_model_coll_facts(p->coll))) {
        snprintf(buf, size, "%s", "");
        return buf;
    }
    format_half(out_of_place, first, sizeof first);
    format_half(in_place, second, sizeof second);
    snprintf(buf, size, "%12llu  %12llu  %8s  %6s  %6d%s%s",
             (unsigned long long)p->size_bytes, (unsigned long long)p->count,
             type ? type : "float", op->reduces ? "sum" : "none",
             op->rooted ? p->root : -1, first, second);
    return buf;
}
