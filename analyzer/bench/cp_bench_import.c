/* cp_bench_import.c - nccl-tests' outputs into bench points (see
 * cp_bench_import.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cp_bench_import.h"
#include "cp_path.h"

#define MAX_TOKENS 64
#define MAX_HOSTS 512
#define MAX_IMPORT_BYTES (256L << 20)
#define MAX_RANKS 16777216u

/* ---- issues ---------------------------------------------------------------- */

__attribute__((format(printf, 4, 5))) static int
add_issue(struct cp_bench_import_report *rep, const char *source,
          unsigned line, const char *fmt, ...)
{
    struct cp_bench_import_issue *is;
    va_list ap;

    if (rep->nissues == rep->cap_issues) {
        size_t nc = rep->cap_issues ? rep->cap_issues * 2 : 16;
        struct cp_bench_import_issue *bigger =
            realloc(rep->issues, nc * sizeof *bigger);
        if (!bigger)
            return -1;
        rep->issues = bigger;
        rep->cap_issues = nc;
    }
    is = &rep->issues[rep->nissues++];
    snprintf(is->source, sizeof is->source, "%s", source ? source : "");
    is->line = line;
    va_start(ap, fmt);
    vsnprintf(is->why, sizeof is->why, fmt, ap);
    va_end(ap);
    return 0;
}

void cp_bench_import_report_clear(struct cp_bench_import_report *rep)
{
    if (!rep)
        return;
    free(rep->issues);
    memset(rep, 0, sizeof *rep);
}

/* ---- tokens ---------------------------------------------------------------- */

static int is_uint_token(const char *t)
{
    if (!*t)
        return 0;
    for (; *t; t++)
        if (!isdigit((unsigned char)*t))
            return 0;
    return 1;
}

static int parse_u64(const char *t, uint64_t *v)
{
    char *end;
    unsigned long long x;

    if (!is_uint_token(t))
        return -1;
    errno = 0;
    x = strtoull(t, &end, 10);
    if (errno || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_int_token(const char *t, long *v)
{
    char *end;
    long x;

    if (!*t || (!isdigit((unsigned char)*t) && *t != '-'))
        return -1;
    errno = 0;
    x = strtol(t, &end, 10);
    if (errno || *end || end == t)
        return -1;
    *v = x;
    return 0;
}

/* A number as nccl-tests prints it: digits, '.', exponent; never "nan". */
static int parse_number(const char *t, double *v)
{
    char *end;
    const char *c;

    if (!*t)
        return -1;
    for (c = t; *c; c++)
        if (!isdigit((unsigned char)*c) && *c != '.' && *c != 'e' &&
            *c != 'E' && *c != '+' && *c != '-')
            return -1;
    errno = 0;
    *v = strtod(t, &end);
    return errno || *end || !isfinite(*v) ? -1 : 0;
}

/* Half of the last printed digit of t ("12.34" -> 0.005, "12" -> 0.5,
 * "1.5e+06" -> 5e4). */
static double half_unit(const char *t)
{
    const char *dot = strchr(t, '.'), *e = strpbrk(t, "eE");
    int decimals = 0;
    long exponent = 0;

    if (dot)
        for (const char *c = dot + 1; *c && isdigit((unsigned char)*c); c++)
            decimals++;
    if (e)
        exponent = strtol(e + 1, NULL, 10);
    return 0.5 * pow(10, (double)(exponent - decimals));
}

static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    char *save = NULL, *t;

    for (t = strtok_r(s, " \t\r\n", &save); t && n < max;
         t = strtok_r(NULL, " \t\r\n", &save))
        tok[n++] = t;
    return t ? -1 : n; /* -1: more than max tokens */
}

static const char *const reduce_names[] = {"sum", "prod", "max",
                                           "min", "avg", "mulsum",
                                           "premulsum"};

static int is_reduce_name(const char *t)
{
    for (size_t i = 0; i < sizeof reduce_names / sizeof reduce_names[0]; i++)
        if (strcmp(t, reduce_names[i]) == 0)
            return 1;
    return 0;
}

static int is_redop_token(const char *t)
{
    return is_reduce_name(t) || strcmp(t, "none") == 0;
}

/* ---- the parser's state ----------------------------------------------------- */

struct raw_half {
    int have; /* a measurement (time > 0) */
    double time_us, algbw, busbw;
    double dt, da, db; /* half units of the printed digits */
    int64_t wrong;
};

struct raw_line {
    unsigned line;
    uint64_t size, count;
    long root;
    int have_root;
    int blank_redop; /* the redop column left blank (old alltoall) */
    char redop[12];
    char type[16];
    struct raw_half half[2];
    unsigned chain;
};

/* What the header lines said about the next table. */
struct context {
    int coll; /* -1 */
    char coll_from[64];
    unsigned ranks, nodes;
    int link, pair, peers[2];
    int bench_header; /* a "# collprof bench:" line */
    /* nccl-tests' "#  Rank N ... on HOST" lines */
    long max_rank;
    unsigned rank_lines;
    int dup_ranks;
    unsigned char *seen_rank; /* bitmap of the first 65536 ranks */
    char (*hosts)[64];
    unsigned nhosts;
    int hosts_overflow;
    /* the column header */
    int have_header, has_redop, has_root, per_iter, old_error;
};

struct parser {
    const char *name;
    const struct cp_bench_import_opts *opts;
    struct cp_bench_set *set;
    struct cp_bench_import_report *rep;
    struct context ctx;
    struct raw_line *lines;
    size_t nlines, cap_lines;
    int file_coll;
    int failed; /* out of memory */
    /* the input contradicts an option (the message, "" none): an error */
    char contradiction[240];
};

static void reset_context(struct context *c, int keep_coll)
{
    unsigned char *seen = c->seen_rank;
    char(*hosts)[64] = c->hosts;
    int coll = c->coll;
    char from[sizeof c->coll_from];

    memcpy(from, c->coll_from, sizeof from);
    memset(seen, 0, 65536 / 8);
    memset(c, 0, sizeof *c);
    c->seen_rank = seen;
    c->hosts = hosts;
    c->coll = keep_coll ? coll : -1;
    if (keep_coll)
        memcpy(c->coll_from, from, sizeof from);
    c->link = CP_BENCH_LINK_UNKNOWN;
    c->max_rank = -1;
}

static void reset_rank_lines(struct context *c)
{
    memset(c->seen_rank, 0, 65536 / 8);
    c->max_rank = -1;
    c->rank_lines = 0;
    c->dup_ranks = 0;
    c->nhosts = 0;
    c->hosts_overflow = 0;
}

static void issue(struct parser *ps, unsigned line, const char *why)
{
    if (add_issue(ps->rep, ps->name, line, "%s", why) < 0)
        ps->failed = 1;
}

__attribute__((format(printf, 3, 4))) static void
issuef(struct parser *ps, unsigned line, const char *fmt, ...)
{
    char buf[240];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    issue(ps, line, buf);
}

/* ---- finishing a table -------------------------------------------------------- */

static double factor_of(enum cp_coll coll, unsigned ranks)
{
    return cp_model_busbw_factor(coll, ranks);
}

/* The printed busbw of h agrees with f x algbw within the printed digits. */
static int busbw_matches(const struct raw_line *l, const struct raw_half *h,
                         double f)
{
    double t_lo = h->time_us - h->dt, t_hi = h->time_us + h->dt;
    double a_lo = (double)l->size / (t_hi * 1e3);
    double a_hi = t_lo > 0 ? (double)l->size / (t_lo * 1e3) : INFINITY;
    double slack = 1e-9 * (h->busbw + 1);

    /* algbw lies in both its printed interval and size/time's. */
    a_lo = fmax(a_lo, h->algbw - h->da);
    a_hi = fmin(a_hi, h->algbw + h->da);
    if (a_lo > a_hi)
        a_lo = a_hi = h->algbw;
    return h->busbw >= f * a_lo - h->db - slack &&
           h->busbw <= f * a_hi + h->db + slack;
}

static int line_busbw_matches(const struct raw_line *l, double f)
{
    for (int k = 0; k < 2; k++)
        if (l->half[k].have && !busbw_matches(l, &l->half[k], f))
            return 0;
    return 1;
}

/* The candidate collectives of a table from its columns, as a bit mask. */
static unsigned columns_allow(const struct parser *ps, size_t first,
                              size_t n, unsigned *ratio_out)
{
    unsigned mask = (1u << CP_COLL_COUNT) - 1, ratio = 0;
    int ratio_bad = 0;
    size_t i;

    for (i = first; i < first + n; i++) {
        const struct raw_line *l = &ps->lines[i];
        size_t ts = cp_bench_type_size(l->type);
        unsigned m = 0;
        for (unsigned c = 0; c < CP_COLL_COUNT; c++) {
            const struct cp_coll_facts *op = cp_model_coll_facts((enum cp_coll)c);
            if (l->blank_redop && op->reduces)
                continue;
            if (l->redop[0] &&
                (op->reduces ? !is_reduce_name(l->redop)
                             : strcmp(l->redop, "none") != 0))
                continue;
            if (l->have_root && (op->rooted ? l->root < 0 : l->root != -1))
                continue;
            m |= 1u << c;
        }
        mask &= m;
        if (l->count > 0 && ts > 0) {
            uint64_t per = l->count * ts;
            if (l->size % per != 0) {
                ratio_bad = 1;
            } else {
                uint64_t r = l->size / per;
                if (r > MAX_RANKS || (ratio && r != ratio))
                    ratio_bad = 1;
                else
                    ratio = (unsigned)r;
            }
        }
    }
    if (ratio_bad) {
        *ratio_out = 0;
        return 0;
    }
    /* size/count > 1 only for the collectives whose count is per rank;
     * 1 for the others, or for those on one rank, where busbw is 0. */
    {
        unsigned per_rank = 0;
        int moved = 0;
        for (unsigned c = 0; c < CP_COLL_COUNT; c++)
            if (cp_model_coll_facts((enum cp_coll)c)->per_rank_count)
                per_rank |= 1u << c;
        for (i = first; i < first + n; i++)
            for (int k = 0; k < 2; k++)
                moved |= ps->lines[i].half[k].busbw > 0;
        if (ratio > 1)
            mask &= per_rank;
        else if (ratio == 1 && moved)
            mask &= ~per_rank;
    }
    *ratio_out = ratio;
    return mask;
}

/* The rank count that makes every line's busbw = f x algbw, from the
 * busbw/algbw ratio; 0 when it cannot be told. */
static unsigned ranks_from_busbw(const struct parser *ps, size_t first,
                                 size_t n, enum cp_coll coll)
{
    double best_algbw = 0, ratio = NAN, guess;
    int steps = cp_model_coll_facts(coll)->busbw_steps;
    unsigned cand;
    size_t i;

    if (steps == 0)
        return 0; /* the factor is 1 for every rank count */
    for (i = first; i < first + n; i++)
        for (int k = 0; k < 2; k++) {
            const struct raw_half *h = &ps->lines[i].half[k];
            if (h->have && h->algbw > best_algbw && h->busbw > 0) {
                best_algbw = h->algbw;
                ratio = h->busbw / h->algbw;
            }
        }
    if (!(best_algbw >= 0.5) || !isfinite(ratio))
        return 0;
    /* f = steps (p-1)/p: p = steps / (steps - f) */
    guess = ratio < steps ? steps / (steps - ratio) : INFINITY;
    if (!isfinite(guess) || guess < 1.5 || guess > MAX_RANKS)
        return 0;
    cand = (unsigned)lround(guess);
    /* The candidate must fit every line, its neighbours must not. */
    for (i = first; i < first + n; i++)
        if (!line_busbw_matches(&ps->lines[i], factor_of(coll, cand)))
            return 0;
    for (int d = -1; d <= 1; d += 2) {
        unsigned other = (unsigned)((int)cand + d);
        int fits = other >= 2;
        for (i = first; fits && i < first + n; i++)
            if (!line_busbw_matches(&ps->lines[i], factor_of(coll, other)))
                fits = 0;
        if (fits)
            return 0;
    }
    return cand;
}

/* Assign each line to a chain of growing sizes: a line continues the chain
 * whose last size is the largest below its own (size 0 repeats), else it
 * starts one.  Returns the number of chains, 0 when memory ran out. */
static unsigned split_chains(struct parser *ps)
{
    uint64_t *last = calloc(ps->nlines, sizeof *last);
    unsigned nchains = 0;
    size_t i;

    if (!last) {
        ps->failed = 1;
        return 0;
    }
    for (i = 0; i < ps->nlines; i++) {
        struct raw_line *l = &ps->lines[i];
        unsigned best = UINT_MAX;
        for (unsigned k = 0; k < nchains; k++) {
            int fits = last[k] < l->size || (last[k] == 0 && l->size == 0);
            if (fits && (best == UINT_MAX || last[k] > last[best]))
                best = k;
        }
        if (best == UINT_MAX)
            best = nchains++;
        l->chain = best;
        last[best] = l->size;
    }
    free(last);
    return nchains;
}

/* 1 when the chains follow one another (each one's lines all before the
 * next one's) and each has two sizes or more: runs printed one after the
 * other (nccl-tests -N, or outputs concatenated without their headers),
 * not interleaved, nor one stray line. */
static int chains_consecutive(const struct parser *ps)
{
    size_t i, len = 1;

    for (i = 1; i < ps->nlines; i++) {
        if (ps->lines[i].chain == ps->lines[i - 1].chain) {
            len++;
            continue;
        }
        if (ps->lines[i].chain != ps->lines[i - 1].chain + 1 || len < 2)
            return 0;
        len = 1;
    }
    return len >= 2;
}

/* Interleaved runs: the longest chain is the table, the other lines are
 * reported and dropped.  Returns the lines kept (moved to the front). */
static size_t keep_longest_chain(struct parser *ps, unsigned nchains)
{
    unsigned best = 0, best_len = 0;
    size_t i, kept = 0;

    for (unsigned k = 0; k < nchains; k++) {
        unsigned len = 0;
        for (i = 0; i < ps->nlines; i++)
            len += ps->lines[i].chain == k;
        if (len > best_len) {
            best_len = len;
            best = k;
        }
    }
    for (i = 0; i < ps->nlines; i++) {
        struct raw_line *l = &ps->lines[i];
        if (l->chain == best) {
            ps->lines[kept++] = *l;
            continue;
        }
        issuef(ps, l->line,
               "size %llu does not continue the table's sizes: the output "
               "of another run is interleaved here; line skipped",
               (unsigned long long)l->size);
    }
    return kept;
}

/* Which collective the n lines L measure (the option, the header, the
 * file name, or the columns).  -1 after saying why not. */
static int table_coll(struct parser *ps, const struct raw_line *L, size_t n,
                      unsigned *ratio)
{
    const struct context *c = &ps->ctx;
    const char *from = NULL;
    unsigned mask = columns_allow(ps, (size_t)(L - ps->lines), n, ratio);
    int coll = -1;

    if (ps->opts && ps->opts->coll >= 0) {
        coll = ps->opts->coll;
        from = "--op";
    } else if (c->coll >= 0) {
        coll = c->coll;
        from = c->coll_from;
    } else if (ps->file_coll >= 0) {
        coll = ps->file_coll;
        from = "the file name";
    } else if (mask && (mask & (mask - 1)) == 0) {
        for (unsigned k = 0; k < CP_COLL_COUNT; k++)
            if (mask == 1u << k)
                coll = (int)k;
        from = "the columns";
    }
    if (coll < 0) {
        issuef(ps, L[0].line,
               "table of %zu result lines: cannot tell which collective it "
               "measures (give --op); table skipped",
               n);
        return -1;
    }
    if (!(mask & (1u << coll))) {
        issuef(ps, L[0].line,
               "table of %zu result lines: its columns (redop, root, "
               "size/count%s) contradict %s (named by %s); table skipped",
               n, *ratio ? "" : " inconsistent",
               cp_model_coll_facts((enum cp_coll)coll)->name, from);
        return -1;
    }
    return coll;
}

/* How many ranks ran the n lines L of collective coll; *from says who
 * told (NULL: nobody, 0 returned).  -1 after saying why the table is
 * skipped, or with ps->contradiction set. */
static long table_ranks(struct parser *ps, const struct raw_line *L, size_t n,
                        enum cp_coll coll, unsigned ratio, const char **from)
{
    const struct context *c = &ps->ctx;
    size_t first = (size_t)(L - ps->lines), i, match = 0;
    int per_rank = cp_model_coll_facts(coll)->per_rank_count;
    unsigned ranks = 0, implied;

    *from = NULL;
    if (ps->opts && ps->opts->ranks) {
        ranks = ps->opts->ranks;
        *from = "--ranks";
    } else if (c->ranks) {
        ranks = c->ranks;
        *from = "the bench's header";
    } else if (per_rank && ratio >= 1) {
        ranks = ratio;
        *from = "size/count";
    } else if ((ranks = ranks_from_busbw(ps, first, n, coll))) {
        *from = "busbw/algbw";
    } else if (c->rank_lines && !c->dup_ranks && c->max_rank >= 0) {
        ranks = (unsigned)c->max_rank + 1;
        *from = "the rank lines";
    }
    if (ranks && per_rank && ratio && ratio != ranks) {
        issuef(ps, L[0].line,
               "table of %zu result lines: size/count says %u ranks, %s "
               "says %u; table skipped",
               n, ratio, *from, ranks);
        return -1;
    }
    if (!ranks || strcmp(*from, "--ranks") != 0)
        return ranks;
    /* most lines disagreeing with --ranks: the option is wrong, not the
     * lines */
    for (i = 0; i < n; i++)
        match += line_busbw_matches(&L[i], factor_of(coll, ranks)) != 0;
    implied = ranks_from_busbw(ps, first, n, coll);
    if (match * 2 < n && implied && implied != ranks) {
        snprintf(ps->contradiction, sizeof ps->contradiction,
                 "%s:%u: --ranks %u contradicts the table starting on this "
                 "line: %zu of its %zu result lines have a busbw/algbw that "
                 "implies %u ranks",
                 ps->name, L[0].line, ranks, n - match, n, implied);
        return -1;
    }
    return ranks;
}

/* The points of the n lines L (one series). */
static int add_points(struct parser *ps, const struct raw_line *L, size_t n,
                      enum cp_coll coll, unsigned ranks, unsigned series)
{
    size_t i;

    for (i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            const struct raw_half *h = &L[i].half[k];
            struct cp_bench_point p;
            if (!h->have)
                continue;
            memset(&p, 0, sizeof p);
            p.series = series;
            p.coll = coll;
            p.ranks = ranks;
            p.size_bytes = L[i].size;
            p.count = L[i].count;
            p.root = L[i].have_root ? (int)L[i].root : -1;
            p.in_place = k;
            p.time_s = h->time_us * 1e-6;
            p.wrong = h->wrong;
            if (ranks) {
                cp_bench_point_bandwidths(&p);
            } else {
                p.algbw_Bps = cp_model_algbw((double)p.size_bytes, p.time_s);
                p.busbw_Bps = cp_model_coll_facts(coll)->busbw_steps == 0
                                  ? p.algbw_Bps
                                  : h->busbw * 1e9;
            }
            if (cp_bench_set_add_point(ps->set, &p) < 0)
                return -1;
        }
    }
    return 0;
}

/* One table: the n result lines L (one run's sizes) become a series.
 * Returns -1 when the rest of the input cannot be read (out of memory, an
 * option the input contradicts). */
static int add_table(struct parser *ps, struct raw_line *L, size_t n)
{
    const struct context *c = &ps->ctx;
    const char *ranks_from;
    unsigned ratio = 0, nodes = 0, series;
    int coll, link = CP_BENCH_LINK_UNKNOWN;
    unsigned first_line = L[0].line;
    long ranks;
    size_t i, kept = 0;
    struct cp_bench_series s;

    if ((coll = table_coll(ps, L, n, &ratio)) < 0)
        return 0;
    ranks = table_ranks(ps, L, n, (enum cp_coll)coll, ratio, &ranks_from);
    if (ranks < 0)
        return ps->contradiction[0] ? -1 : 0;
    if (ranks) {
        double f = factor_of((enum cp_coll)coll, (unsigned)ranks);
        for (i = 0; i < n; i++) {
            if (line_busbw_matches(&L[i], f)) {
                L[kept++] = L[i];
                continue;
            }
            issuef(ps, L[i].line,
                   "busbw does not equal algbw x %.4g (%s on %ld ranks): a "
                   "damaged line; skipped",
                   f, cp_model_coll_name((enum cp_coll)coll), ranks);
        }
        n = kept;
    } else if (cp_model_coll_facts((enum cp_coll)coll)->busbw_steps != 0) {
        issuef(ps, first_line,
               "table of %zu result lines: cannot tell the rank count "
               "(give --ranks); busbw is taken as printed and no alpha is "
               "fitted",
               n);
    }
    if (n == 0)
        return 0;

    /* Nodes and link class. */
    if (ps->opts && ps->opts->nodes)
        nodes = ps->opts->nodes;
    else if (c->nodes)
        nodes = c->nodes;
    else if (c->nhosts && !c->hosts_overflow && !c->dup_ranks &&
             (!ranks || c->rank_lines == ranks))
        nodes = c->nhosts;
    if (ps->opts && ps->opts->link != CP_BENCH_LINK_UNKNOWN)
        link = ps->opts->link;
    else if (c->link != CP_BENCH_LINK_UNKNOWN)
        link = c->link;
    else if (nodes)
        link = nodes > 1 ? CP_LINK_INTER : CP_LINK_INTRA;

    memset(&s, 0, sizeof s);
    s.coll = (enum cp_coll)coll;
    s.ranks = (unsigned)ranks;
    s.nodes = nodes;
    s.link = link;
    s.pair = c->pair;
    s.peers[0] = c->peers[0];
    s.peers[1] = c->peers[1];
    snprintf(s.type, sizeof s.type, "%s", L[0].type);
    snprintf(s.source, sizeof s.source, "%s", ps->name);
    s.first_line = first_line;
    if (cp_bench_set_add_series(ps->set, &s, &series) < 0 ||
        add_points(ps, L, n, (enum cp_coll)coll, (unsigned)ranks, series) <
            0) {
        ps->failed = 1;
        return -1;
    }
    ps->rep->tables++;
    ps->rep->used_lines += (unsigned)n;
    return 0;
}

/* The result lines read since the last header end a table: one run, runs
 * printed one after another (each its own table and series), or runs
 * interleaved line by line (the longest kept, the others reported). */
static void finish_table(struct parser *ps)
{
    unsigned nchains;
    size_t i, start;

    if (ps->nlines == 0)
        goto reset;
    nchains = split_chains(ps);
    if (nchains == 0)
        goto reset;
    if (nchains > 1 && !chains_consecutive(ps)) {
        size_t kept = keep_longest_chain(ps, nchains);
        if (kept)
            add_table(ps, ps->lines, kept);
        goto reset;
    }
    for (start = 0, i = 1; i <= ps->nlines; i++) {
        if (i < ps->nlines && ps->lines[i].chain == ps->lines[start].chain)
            continue;
        if (add_table(ps, ps->lines + start, i - start) < 0)
            break;
        start = i;
    }
reset:
    ps->nlines = 0;
    reset_context(&ps->ctx, 0);
}

/* ---- lines ------------------------------------------------------------------ */

/* Drop the prefixes launchers put in front of each line.  Returns the rest,
 * or NULL for a line of stderr. */
static char *strip_prefixes(char *s)
{
    for (;;) {
        char *p = s, *q;
        while (*p == ' ' || *p == '\t')
            p++;
        s = p;
        if (*p == '[') {
            /* "[1,0]<stdout>:" (Open MPI) or "[0]" / "[0] " */
            q = p + 1;
            while (isdigit((unsigned char)*q) || *q == ',')
                q++;
            if (q > p + 1 && *q == ']') {
                q++;
                if (strncmp(q, "<stdout>:", 9) == 0) {
                    s = q + 9;
                    continue;
                }
                if (strncmp(q, "<stderr>:", 9) == 0)
                    return NULL;
                if (*q == ':')
                    q++;
                s = q;
                continue;
            }
            return s;
        }
        if (isdigit((unsigned char)*p)) {
            /* "0: " (srun --label): digits, ':', then a blank or '#' */
            q = p;
            while (isdigit((unsigned char)*q))
                q++;
            if (*q == ':' && (q[1] == ' ' || q[1] == '\t' || q[1] == '#' ||
                              q[1] == '\0')) {
                s = q + 1;
                continue;
            }
        }
        return s;
    }
}

/* nccl-tests' "#  Rank N Group ... on HOST device ..." line: the rank (and
 * whether it repeats), and the host among the table's nodes. */
static void rank_line(struct context *c, char **tok, int n)
{
    long r;
    int i;

    if (parse_int_token(tok[1], &r) < 0 || r < 0)
        return;
    if (r < 65536) {
        if (c->seen_rank[r / 8] & (1u << (r % 8)))
            c->dup_ranks = 1;
        c->seen_rank[r / 8] |= (unsigned char)(1u << (r % 8));
    }
    c->rank_lines++;
    if (r > c->max_rank)
        c->max_rank = r;
    for (i = 2; i + 1 < n; i++)
        if (strcmp(tok[i], "on") == 0) {
            unsigned h;
            for (h = 0; h < c->nhosts; h++)
                if (strncmp(c->hosts[h], tok[i + 1], 63) == 0)
                    break;
            if (h == c->nhosts) {
                if (c->nhosts < MAX_HOSTS)
                    snprintf(c->hosts[c->nhosts++], 64, "%s", tok[i + 1]);
                else
                    c->hosts_overflow = 1;
            }
            break;
        }
}

/* "# collprof bench: op allreduce ranks 4 nodes 1 link intra [pair 0 1]"
 * starts a section of the bench's own output. */
static void bench_header(struct parser *ps, char **tok, int n)
{
    struct context *c = &ps->ctx;
    int found = 0, i;

    for (i = 2; i + 1 < n; i++) {
        enum cp_coll coll;
        if (strcmp(tok[i], "op") != 0 || cp_bench_op_find(tok[i + 1], &coll))
            continue;
        found = 1;
        if (ps->nlines)
            finish_table(ps);
        reset_context(c, 0);
        c->coll = (int)coll;
        snprintf(c->coll_from, sizeof c->coll_from, "the bench's header");
        c->bench_header = 1;
    }
    if (!found)
        return;
    for (i = 2; i + 1 < n; i++) {
        uint64_t v;
        if (strcmp(tok[i], "ranks") == 0 && parse_u64(tok[i + 1], &v) == 0 &&
            v <= MAX_RANKS)
            c->ranks = (unsigned)v;
        else if (strcmp(tok[i], "nodes") == 0 &&
                 parse_u64(tok[i + 1], &v) == 0 && v <= MAX_RANKS)
            c->nodes = (unsigned)v;
        else if (strcmp(tok[i], "link") == 0)
            c->link = strcmp(tok[i + 1], "intra") == 0   ? CP_LINK_INTRA
                      : strcmp(tok[i + 1], "inter") == 0 ? CP_LINK_INTER
                                                         : c->link;
        else if (strcmp(tok[i], "pair") == 0 && i + 2 < n) {
            long a, b;
            if (parse_int_token(tok[i + 1], &a) == 0 &&
                parse_int_token(tok[i + 2], &b) == 0) {
                c->pair = 1;
                c->peers[0] = (int)a;
                c->peers[1] = (int)b;
            }
        }
    }
}

static void header_line(struct parser *ps, char *text, unsigned lineno)
{
    struct context *c = &ps->ctx;
    char *tok[MAX_TOKENS];
    int n = tokenize(text, tok, MAX_TOKENS), i;

    if (n <= 0)
        return;
    if (n >= 3 && strcmp(tok[0], "Collective") == 0 &&
        strcmp(tok[1], "test") == 0) {
        /* "starting" opens a run's header (a table before it is over),
         * "concluded" ends the run. */
        if (ps->nlines || strcmp(tok[2], "starting:") != 0)
            finish_table(ps);
        if (strcmp(tok[2], "starting:") == 0 && n >= 4 && !c->bench_header) {
            enum cp_coll coll;
            if (cp_bench_op_find(tok[3], &coll) == 0) {
                c->coll = (int)coll;
                snprintf(c->coll_from, sizeof c->coll_from,
                         "'Collective test starting: %.20s'", tok[3]);
            }
        }
        return;
    }
    if (strcmp(tok[0], "nThread") == 0) {
        if (ps->nlines)
            finish_table(ps);
        reset_rank_lines(c);
        c->have_header = 0;
        return;
    }
    if (strcmp(tok[0], "Rank") == 0 && n >= 2) {
        rank_line(c, tok, n);
        return;
    }
    if (strcmp(tok[0], "collprof") == 0 && n >= 2 &&
        strcmp(tok[1], "bench:") == 0) {
        bench_header(ps, tok, n);
        return;
    }
    if (strcmp(tok[0], "Out") == 0 || strcmp(tok[0], "Avg") == 0) {
        if (ps->nlines)
            finish_table(ps);
        return;
    }
    /* The column names: "size count type redop root time algbw busbw
     * #wrong ..." (older: without redop or root, "error" for "#wrong"). */
    {
        int has_size = 0, has_count = 0, has_time = 0;
        for (i = 0; i < n; i++) {
            has_size |= strcmp(tok[i], "size") == 0;
            has_count |= strcmp(tok[i], "count") == 0;
            has_time |= strcmp(tok[i], "time") == 0 ||
                        strcmp(tok[i], "cputime") == 0;
        }
        if (has_size && has_count && has_time) {
            if (ps->nlines)
                finish_table(ps);
            c->have_header = 1;
            c->has_redop = c->has_root = c->per_iter = c->old_error = 0;
            for (i = 0; i < n; i++) {
                c->has_redop |= strcmp(tok[i], "redop") == 0;
                c->has_root |= strcmp(tok[i], "root") == 0;
                c->per_iter |= strcmp(tok[i], "i_min") == 0;
                c->old_error |= strcmp(tok[i], "error") == 0;
            }
        }
    }
    (void)lineno;
}

/* One half (out-of-place or in-place) of a result line into h; -1 with err
 * saying what is wrong with it. */
static int parse_half(char **tok, int old_error, struct raw_half *h,
                      struct cp_error *err)
{
    double w;

    if (parse_number(tok[0], &h->time_us) < 0 ||
        parse_number(tok[1], &h->algbw) < 0 ||
        parse_number(tok[2], &h->busbw) < 0) {
        const char *bad = parse_number(tok[0], &w) < 0   ? tok[0]
                          : parse_number(tok[1], &w) < 0 ? tok[1]
                                                         : tok[2];
        return cp_errorf(err, "'%.40s' is not a number", bad);
    }
    if (h->time_us < 0 || h->algbw < 0 || h->busbw < 0)
        return cp_errorf(err, "a negative time or bandwidth");
    h->dt = half_unit(tok[0]);
    h->da = half_unit(tok[1]);
    h->db = half_unit(tok[2]);
    if (strcmp(tok[3], "N/A") == 0) {
        h->wrong = -1;
    } else if (is_uint_token(tok[3]) && !old_error) {
        uint64_t v;
        if (parse_u64(tok[3], &v) < 0 || v > INT64_MAX)
            return cp_errorf(err,
                             "'%.40s' is not a count of wrong elements",
                             tok[3]);
        h->wrong = (int64_t)v;
    } else if (parse_number(tok[3], &w) == 0) {
        /* the old "error" column: the largest error, not a count */
        h->wrong = w == 0 ? 0 : -1;
    } else {
        return cp_errorf(err, "'%.40s' is not a count of wrong elements",
                         tok[3]);
    }
    h->have = h->time_us > 0;
    return 0;
}

static int is_timestamp(char **tok)
{
    return strchr(tok[0], '-') && strchr(tok[1], ':');
}

/* The columns before the results of a result line (size, count, type,
 * redop, root) into *l.  Returns the index of the first result token, or
 * -1 after saying why the line is skipped. */
static int line_columns(struct parser *ps, char **tok, int n, unsigned lineno,
                        struct raw_line *l)
{
    const struct context *c = &ps->ctx;
    int i, has_root;

    if (parse_u64(tok[0], &l->size) < 0 || parse_u64(tok[1], &l->count) < 0) {
        issuef(ps, lineno, "size or count out of range; line skipped");
        return -1;
    }
    if (n < 3 || cp_bench_type_size(tok[2]) == 0) {
        issuef(ps, lineno,
               "not a result line: '%.30s' is not a data type; line skipped",
               n < 3 ? "" : tok[2]);
        return -1;
    }
    snprintf(l->type, sizeof l->type, "%s", tok[2]);
    i = 3;
    /* nccl-tests' alltoall of 2020-2022 printed its op name as "" under
     * the redop heading: the column is blank, and the line is one token
     * short, its field count the header's without redop (the root when the
     * header has one, then the two halves, and perhaps a timestamp).  Only
     * a collective without a reduction reads so (columns_allow). */
    if (i < n && c->have_header && c->has_redop && !is_redop_token(tok[i])) {
        int halves = 2 * (c->per_iter ? 8 : 4);
        int rest = n - i - (c->has_root ? 1 : 0);
        if ((rest == halves || rest == halves + 2) &&
            (!c->has_root || parse_int_token(tok[i], &l->root) == 0)) {
            l->blank_redop = 1;
            if (!c->has_root)
                return i;
            l->have_root = 1;
            return i + 1;
        }
    }
    if (i < n && (c->have_header ? c->has_redop : is_redop_token(tok[i]))) {
        if (!is_redop_token(tok[i])) {
            issuef(ps, lineno,
                   "'%.30s' is not a reduction operation; line skipped",
                   tok[i]);
            return -1;
        }
        snprintf(l->redop, sizeof l->redop, "%s", tok[i]);
        i++;
    }
    /* Without a header: a root column follows a redop column (current
     * layout) when the token is a whole number. */
    has_root = c->have_header ? c->has_root
                              : (l->redop[0] && i < n && !strchr(tok[i], '.') &&
                                 !strpbrk(tok[i], "eE") &&
                                 parse_int_token(tok[i], &l->root) == 0);
    if (has_root) {
        if (i >= n || parse_int_token(tok[i], &l->root) < 0 || l->root < -1) {
            issuef(ps, lineno, "'%.30s' is not a root rank; line skipped",
                   i < n ? tok[i] : "");
            return -1;
        }
        l->have_root = 1;
        i++;
    }
    return i;
}

/* A result line: its columns, then the out-of-place and in-place results,
 * each checked; kept for finish_table or reported and skipped. */
static void result_line(struct parser *ps, char **tok, int n,
                        unsigned lineno)
{
    struct context *c = &ps->ctx;
    struct raw_line l;
    struct cp_error err;
    int i, rest, stride, groups;

    ps->rep->result_lines++;
    memset(&l, 0, sizeof l);
    l.line = lineno;
    l.root = -1;
    if ((i = line_columns(ps, tok, n, lineno, &l)) < 0)
        return;
    stride = c->have_header && c->per_iter ? 8 : 4;
    rest = n - i;
    if (rest >= 2 && (rest - 2) % stride == 0 && (rest - 2) / stride == 2 &&
        is_timestamp(tok + n - 2))
        rest -= 2;
    for (int k = i; k < i + rest; k++) {
        double v;
        if (parse_number(tok[k], &v) == 0 || strcmp(tok[k], "N/A") == 0)
            continue;
        issuef(ps, lineno,
               "'%.40s' among the results: other output mixed into this "
               "line; skipped",
               tok[k]);
        return;
    }
    groups = rest / stride;
    if (rest > 2 * stride) {
        issuef(ps, lineno,
               "%d numbers after the columns, not %d: lines run together; "
               "skipped",
               rest, 2 * stride);
        return;
    }
    if (rest % stride != 0 || groups < 2) {
        issuef(ps, lineno,
               "truncated: %d of the %d numbers of the out-of-place and "
               "in-place results; line skipped",
               rest < 0 ? 0 : rest, 2 * stride);
        return;
    }
    if (groups > 2) {
        issuef(ps, lineno,
               "%d numbers after the columns, not %d: lines run together; "
               "skipped",
               rest, 2 * stride);
        return;
    }
    for (int k = 0; k < 2; k++) {
        struct raw_half *h = &l.half[k];
        if (parse_half(tok + i + k * stride, c->old_error, h, &err) < 0) {
            issuef(ps, lineno, "not a complete result line: %s; skipped",
                   err.text);
            return;
        }
        if (h->have) {
            double t_lo = h->time_us - h->dt, t_hi = h->time_us + h->dt;
            double lo = (double)l.size / (t_hi * 1e3);
            double hi = t_lo > 0 ? (double)l.size / (t_lo * 1e3) : INFINITY;
            double slack = 1e-9 * (h->algbw + 1);
            if (h->algbw < lo - h->da - slack ||
                h->algbw > hi + h->da + slack) {
                issuef(ps, lineno,
                       "%s algbw %g GB/s is not size/time (%.4g GB/s): a "
                       "damaged line; skipped",
                       k ? "in-place" : "out-of-place", h->algbw,
                       (double)l.size / (h->time_us * 1e3));
                return;
            }
        }
    }
    if (ps->nlines == ps->cap_lines) {
        size_t nc = ps->cap_lines ? ps->cap_lines * 2 : 64;
        struct raw_line *bigger = realloc(ps->lines, nc * sizeof *bigger);
        if (!bigger) {
            ps->failed = 1;
            return;
        }
        ps->lines = bigger;
        ps->cap_lines = nc;
    }
    ps->lines[ps->nlines++] = l;
}

static int all_numbers(char **tok, int n)
{
    double v;
    for (int i = 0; i < n; i++)
        if (parse_number(tok[i], &v) < 0 && strcmp(tok[i], "N/A") != 0)
            return 0;
    return n > 0;
}

static void text_line(struct parser *ps, char *raw, unsigned lineno,
                      int unterminated)
{
    char *s = strip_prefixes(raw), *tok[MAX_TOKENS], copy[1024];
    int n;

    ps->rep->lines++;
    if (!s)
        return;
    if (*s == '#') {
        header_line(ps, s + 1, lineno);
        return;
    }
    snprintf(copy, sizeof copy, "%s", s);
    n = tokenize(s, tok, MAX_TOKENS);
    if (n == 0)
        return;
    if (n < 0) {
        if (is_uint_token(tok[0]))
            issuef(ps, lineno, "too many fields for a result line; skipped");
        return;
    }
    if (n >= 2 && is_uint_token(tok[0]) && is_uint_token(tok[1])) {
        if (unterminated) {
            ps->rep->result_lines++;
            issuef(ps, lineno,
                   "the file ends inside this result line (no newline): "
                   "truncated; skipped");
            return;
        }
        result_line(ps, tok, n, lineno);
        return;
    }
    if (all_numbers(tok, n)) {
        ps->rep->result_lines++;
        issuef(ps, lineno,
               "%d numbers without size and count: the rest of a result "
               "line split by other output; skipped",
               n);
        return;
    }
    /* A command line that names an nccl-tests program. */
    if (strstr(copy, "_perf")) {
        enum cp_coll coll;
        if (cp_bench_op_find(copy, &coll) == 0) {
            if (ps->nlines)
                finish_table(ps);
            reset_context(&ps->ctx, 0);
            ps->ctx.coll = (int)coll;
            snprintf(ps->ctx.coll_from, sizeof ps->ctx.coll_from,
                     "the command line");
        }
    }
}

/* ---- JSON ------------------------------------------------------------------- */

static double jnum(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v)) {
        double d;
        if (parse_number(json_string_value(v), &d) == 0)
            return d;
    }
    return NAN;
}

static int add_json_series(struct parser *ps, enum cp_coll coll,
                           unsigned ranks, unsigned nodes, int link,
                           const char *type, unsigned *index)
{
    struct cp_bench_series s;

    memset(&s, 0, sizeof s);
    s.coll = coll;
    s.ranks = ranks;
    s.nodes = nodes;
    if (ps->opts && ps->opts->link != CP_BENCH_LINK_UNKNOWN)
        s.link = ps->opts->link;
    else if (link != CP_BENCH_LINK_UNKNOWN)
        s.link = link;
    else
        s.link = nodes ? (nodes > 1 ? CP_LINK_INTER : CP_LINK_INTRA)
                       : CP_BENCH_LINK_UNKNOWN;
    snprintf(s.type, sizeof s.type, "%s", type ? type : "float");
    snprintf(s.source, sizeof s.source, "%s", ps->name);
    ps->rep->tables++;
    return cp_bench_set_add_series(ps->set, &s, index);
}

/* nccl-tests' JSON: {"args": [program, ...], "config": {"devices": [...]},
 * "results": [{"size", "count", "type", "redop", "root", "out_of_place":
 * {"time", "alg_bw", "bus_bw", "nwrong"}, "in_place": {...}}]}. */
static int import_nccl_tests_json(struct parser *ps, json_t *root)
{
    json_t *results = json_object_get(root, "results");
    json_t *args = json_object_get(root, "args");
    json_t *config = json_object_get(root, "config");
    json_t *devices = json_object_get(config, "devices");
    const char *program = json_string_value(json_array_get(args, 0));
    enum cp_coll coll;
    unsigned ranks = 0, nodes = 0, index;
    size_t i;

    if (!devices)
        devices = json_object_get(root, "devices");
    if (ps->opts && ps->opts->coll >= 0)
        coll = (enum cp_coll)ps->opts->coll;
    else if (!program || cp_bench_op_find(program, &coll) < 0) {
        if (ps->file_coll < 0) {
            issuef(ps, 0,
                   "nccl-tests JSON without a program name in \"args\": "
                   "cannot tell the collective (give --op); file skipped");
            return 0;
        }
        coll = (enum cp_coll)ps->file_coll;
    }
    if (json_is_array(devices)) {
        ranks = (unsigned)json_array_size(devices);
        for (i = 0; i < json_array_size(devices); i++) {
            const char *h = json_string_value(
                json_object_get(json_array_get(devices, i), "hostname"));
            size_t k;
            if (!h)
                continue;
            for (k = 0; k < i; k++) {
                const char *o = json_string_value(json_object_get(
                    json_array_get(devices, k), "hostname"));
                if (o && strcmp(o, h) == 0)
                    break;
            }
            if (k == i)
                nodes++;
        }
    }
    if (ps->opts && ps->opts->ranks)
        ranks = ps->opts->ranks;
    if (ps->opts && ps->opts->nodes)
        nodes = ps->opts->nodes;
    if (add_json_series(ps, coll, ranks, nodes, CP_BENCH_LINK_UNKNOWN,
                        json_string_value(json_object_get(
                            json_array_get(results, 0), "type")),
                        &index) < 0)
        return -1;
    for (i = 0; i < json_array_size(results); i++) {
        json_t *r = json_array_get(results, i);
        double size = jnum(r, "size"), count = jnum(r, "count");
        double root_rank = jnum(r, "root");
        ps->rep->result_lines++;
        if (!(size >= 0) || !(count >= 0)) {
            issuef(ps, 0, "results[%zu]: no size or count; skipped", i);
            continue;
        }
        for (int k = 0; k < 2; k++) {
            json_t *h = json_object_get(r, k ? "in_place" : "out_of_place");
            json_t *nw = json_object_get(h, "nwrong");
            struct cp_bench_point p;
            double t = jnum(h, "time");
            if (!json_is_object(h))
                continue;
            if (!isfinite(t))
                t = jnum(h, "cpu_time");
            if (!(t > 0))
                continue;
            memset(&p, 0, sizeof p);
            p.series = index;
            p.coll = coll;
            p.ranks = ranks;
            p.size_bytes = (uint64_t)size;
            p.count = (uint64_t)count;
            p.root = isfinite(root_rank) ? (int)root_rank : -1;
            p.in_place = k;
            p.time_s = t * 1e-6;
            p.wrong = json_is_number(nw) ? (int64_t)json_number_value(nw) : -1;
            cp_bench_point_bandwidths(&p);
            if (!ranks)
                p.busbw_Bps = jnum(h, "bus_bw") * 1e9;
            if (cp_bench_set_add_point(ps->set, &p) < 0)
                return -1;
        }
        ps->rep->used_lines++;
    }
    return 0;
}

/* collprof bench's own JSON: {"points": [{"op", "size_bytes", "ranks",
 * "time_s", "wrong", "in_place", "count", "root", "link", "nodes"}]}. */
static int import_bench_json(struct parser *ps, json_t *root)
{
    json_t *points = json_object_get(root, "points");
    size_t i, k;
    struct key {
        enum cp_coll coll;
        unsigned ranks, nodes;
        int link;
        unsigned index;
    } *keys = NULL;
    size_t nkeys = 0;
    int rc = -1;

    keys = calloc(json_array_size(points) + 1, sizeof *keys);
    if (!keys)
        return -1;
    for (i = 0; i < json_array_size(points); i++) {
        json_t *o = json_array_get(points, i);
        const char *op = json_string_value(json_object_get(o, "op"));
        const char *lk = json_string_value(json_object_get(o, "link"));
        json_t *w = json_object_get(o, "wrong");
        struct cp_bench_point p;
        enum cp_coll coll;
        double size = jnum(o, "size_bytes"), t = jnum(o, "time_s");
        double ranks = jnum(o, "ranks"), nodes = jnum(o, "nodes");
        int link = lk && strcmp(lk, "intra") == 0   ? CP_LINK_INTRA
                   : lk && strcmp(lk, "inter") == 0 ? CP_LINK_INTER
                                                    : CP_BENCH_LINK_UNKNOWN;

        ps->rep->result_lines++;
        if (!op || cp_model_coll_from_name(op, &coll, NULL) < 0 ||
            !(size >= 0) || !(t > 0) || !(ranks >= 0) || ranks > MAX_RANKS) {
            issuef(ps, 0, "points[%zu]: not a bench point; skipped", i);
            continue;
        }
        if (!isfinite(nodes) || nodes < 0 || nodes > MAX_RANKS)
            nodes = 0;
        for (k = 0; k < nkeys; k++)
            if (keys[k].coll == coll && keys[k].ranks == (unsigned)ranks &&
                keys[k].link == link && keys[k].nodes == (unsigned)nodes)
                break;
        if (k == nkeys) {
            keys[k].coll = coll;
            keys[k].ranks = (unsigned)ranks;
            keys[k].nodes = (unsigned)nodes;
            keys[k].link = link;
            if (add_json_series(ps, coll, (unsigned)ranks, (unsigned)nodes,
                                link, "float", &keys[k].index) < 0)
                goto out;
            nkeys++;
        }
        memset(&p, 0, sizeof p);
        p.series = keys[k].index;
        p.coll = coll;
        p.ranks = (unsigned)ranks;
        p.size_bytes = (uint64_t)size;
        p.count = isfinite(jnum(o, "count")) ? (uint64_t)jnum(o, "count") : 0;
        p.root = isfinite(jnum(o, "root")) ? (int)jnum(o, "root") : -1;
        p.in_place = json_is_true(json_object_get(o, "in_place"));
        p.time_s = t;
        p.median_time_s = jnum(o, "median_time_s"); /* NaN when null or absent */
        p.gpu_time_s = jnum(o, "gpu_time_s");
        p.wrong = json_is_number(w) ? (int64_t)json_number_value(w) : -1;
        cp_bench_point_bandwidths(&p);
        if (cp_bench_set_add_point(ps->set, &p) < 0)
            goto out;
        ps->rep->used_lines++;
    }
    rc = 0;
out:
    free(keys);
    return rc;
}

/* rccl-tests' JSON lines: {"name": "AllReduce", "gpus": 4, "size": 1024,
 * "time": 19.18 (us), "inPlace": 0, "#wrong": "0", ...} per line. */
static int import_json_lines(struct parser *ps, const char *text)
{
    const char *p = text;
    unsigned lineno = 0;
    struct {
        enum cp_coll coll;
        unsigned ranks, index;
    } keys[64];
    size_t nkeys = 0;

    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        json_t *o;
        json_error_t je;

        lineno++;
        ps->rep->lines++;
        o = json_loadb(p, len, 0, &je);
        if (!o) {
            const char *q = p;
            while (q < p + len && isspace((unsigned char)*q))
                q++;
            if (q < p + len)
                issuef(ps, lineno, "not a JSON object: %s; skipped", je.text);
        } else {
            const char *name = json_string_value(json_object_get(o, "name"));
            json_t *w = json_object_get(o, "#wrong");
            double size = jnum(o, "size"), t = jnum(o, "time");
            double gpus = jnum(o, "gpus"), wrong = NAN;
            enum cp_coll coll;
            struct cp_bench_point pt;
            size_t k;

            ps->rep->result_lines++;
            if (json_is_number(w))
                wrong = json_number_value(w);
            else if (json_is_string(w))
                parse_number(json_string_value(w), &wrong);
            if (ps->opts && ps->opts->coll >= 0)
                coll = (enum cp_coll)ps->opts->coll;
            else if (!name || cp_bench_op_find(name, &coll) < 0) {
                issuef(ps, lineno, "no collective name; skipped");
                json_decref(o);
                goto next;
            }
            if (!(size >= 0) || !(t > 0) || !(gpus >= 1) || gpus > MAX_RANKS) {
                issuef(ps, lineno, "no size, time or gpus; skipped");
                json_decref(o);
                goto next;
            }
            for (k = 0; k < nkeys; k++)
                if (keys[k].coll == coll && keys[k].ranks == (unsigned)gpus)
                    break;
            if (k == nkeys) {
                if (nkeys == sizeof keys / sizeof keys[0]) {
                    json_decref(o);
                    goto next;
                }
                keys[k].coll = coll;
                keys[k].ranks = (unsigned)gpus;
                if (add_json_series(
                        ps, coll, (unsigned)gpus,
                        ps->opts && ps->opts->nodes ? ps->opts->nodes : 0,
                        CP_BENCH_LINK_UNKNOWN,
                        json_string_value(json_object_get(o, "type")),
                        &keys[k].index) < 0) {
                    json_decref(o);
                    return -1;
                }
                nkeys++;
            }
            memset(&pt, 0, sizeof pt);
            pt.series = keys[k].index;
            pt.coll = coll;
            pt.ranks = (unsigned)gpus;
            pt.size_bytes = (uint64_t)size;
            pt.count = cp_bench_count(
                coll, pt.size_bytes,
                cp_bench_type_size(
                    json_string_value(json_object_get(o, "type"))),
                pt.ranks);
            pt.root = -1;
            pt.in_place = (int)jnum(o, "inPlace") == 1;
            pt.time_s = t * 1e-6;
            pt.wrong = isfinite(wrong) ? (int64_t)wrong : -1;
            cp_bench_point_bandwidths(&pt);
            json_decref(o);
            if (cp_bench_set_add_point(ps->set, &pt) < 0)
                return -1;
            ps->rep->used_lines++;
        }
    next:
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}

static int import_json(struct parser *ps, const char *text)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_DISABLE_EOF_CHECK, &je);
    int (*import)(struct parser *, json_t *) = NULL;
    int rc = 0;

    if (root && json_is_object(root) && json_object_get(root, "results"))
        import = import_nccl_tests_json;
    else if (root && json_is_object(root) && json_object_get(root, "points"))
        import = import_bench_json;
    if (!import) {
        json_decref(root);
        return import_json_lines(ps, text);
    }
    /* one document: anything after it is an error, not more lines */
    json_decref(root);
    root = json_loads(text, 0, &je);
    if (!root) {
        issuef(ps, (unsigned)je.line,
               "not a complete JSON document: %s; file skipped", je.text);
        return 0;
    }
    rc = import(ps, root);
    json_decref(root);
    return rc;
}

/* ---- entry points ----------------------------------------------------------- */

int cp_bench_import_string(const char *text, const char *name,
                           const struct cp_bench_import_opts *opts,
                           struct cp_bench_set *set,
                           struct cp_bench_import_report *rep,
                           struct cp_error *err)
{
    struct parser ps;
    char *copy = NULL, *line, *next;
    const char *c = text;
    unsigned lineno = 0;
    size_t before = set->npoints, first_issue = rep->nissues;
    int rc = -1;

    memset(&ps, 0, sizeof ps);
    ps.name = name ? name : "input";
    ps.opts = opts;
    ps.set = set;
    ps.rep = rep;
    ps.file_coll = -1;
    ps.ctx.seen_rank = calloc(65536 / 8, 1);
    ps.ctx.hosts = calloc(MAX_HOSTS, sizeof *ps.ctx.hosts);
    if (!ps.ctx.seen_rank || !ps.ctx.hosts)
        goto oom;
    reset_context(&ps.ctx, 0);
    {
        enum cp_coll coll;
        const char *base = strrchr(ps.name, '/');
        if (cp_bench_op_find(base ? base + 1 : ps.name, &coll) == 0)
            ps.file_coll = (int)coll;
    }
    while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n')
        c++;
    if (*c == '{') {
        if (import_json(&ps, c) < 0)
            goto oom;
    } else {
        copy = strdup(text);
        if (!copy)
            goto oom;
        for (line = copy; line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = '\0';
            else if (*line == '\0')
                break;
            lineno++;
            text_line(&ps, line, lineno, next == NULL);
            if (ps.failed)
                goto oom;
        }
        finish_table(&ps);
    }
    if (ps.failed)
        goto oom;
    if (ps.contradiction[0]) {
        cp_error_set(err, ps.name, -1, "%s", ps.contradiction);
        goto out;
    }
    if (set->npoints == before)
        add_issue(rep, ps.name, 0, "no usable result in the file");
    /* In line order (tables report their interleaved lines at their end);
     * insertion sort keeps equal lines in the order found. */
    for (size_t a = first_issue + 1; a < rep->nissues; a++) {
        struct cp_bench_import_issue tmp = rep->issues[a];
        size_t b = a;
        while (b > first_issue && rep->issues[b - 1].line > tmp.line) {
            rep->issues[b] = rep->issues[b - 1];
            b--;
        }
        rep->issues[b] = tmp;
    }
    rc = 0;
    goto out;
oom:
    cp_error_set(err, ps.name, -1, "%s: out of memory", ps.name);
out:
    free(copy);
    free(ps.lines);
    free(ps.ctx.seen_rank);
    free(ps.ctx.hosts);
    return rc;
}

int cp_bench_import_file(const char *path,
                         const struct cp_bench_import_opts *opts,
                         struct cp_bench_set *set,
                         struct cp_bench_import_report *rep,
                         struct cp_error *err)
{
    char *text;
    size_t len;
    int rc = -1;

    text = cp_path_read_text(path, CP_PATH_FOLLOW, (size_t)MAX_IMPORT_BYTES,
                             "nccl-tests output", &len, err);
    if (!text)
        goto out;
    {
        uint64_t h = 0xcbf29ce484222325ull;
        unsigned k;
        for (size_t i = 0; i < len; i++)
            h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
        for (k = 0; k < rep->nseen; k++)
            if (rep->seen[k].hash == h && rep->seen[k].len == len) {
                /* the same log twice would count each point twice */
                if (add_issue(rep, path, 0,
                              "the same content as %s: counted once, this "
                              "copy skipped",
                              rep->seen[k].name) < 0) {
                    cp_error_set(err, path, -1, "%s: out of memory", path);
                    goto out;
                }
                rc = 0;
                goto out;
            }
        if (rep->nseen < sizeof rep->seen / sizeof rep->seen[0]) {
            rep->seen[rep->nseen].hash = h;
            rep->seen[rep->nseen].len = len;
            snprintf(rep->seen[rep->nseen].name,
                     sizeof rep->seen[rep->nseen].name, "%s", path);
            rep->nseen++;
        }
    }
    rc = cp_bench_import_string(text, path, opts, set, rep, err);
out:
    free(text);
    return rc;
}
