/* sim_topo.c - parser of the simnccl topology file (format in sim_topo.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_topo.h"

#define MAX_TOKENS 16

struct unit {
    const char *name;
    double scale;
};

static const struct unit duration_units[] = {
    {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}, {NULL, 0}};

static const struct unit bandwidth_units[] = {
    {"B/s", 1.0},
    {"KB/s", 1e3},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"KiB/s", 1024.0},
    {"MiB/s", 1024.0 * 1024.0},
    {"GiB/s", 1024.0 * 1024.0 * 1024.0},
    {NULL, 0}};

void sim_topo_defaults(struct sim_topo *topo)
{
    memset(topo, 0, sizeof *topo);
    topo->intra.latency_ns = SIM_TOPO_DEFAULT_INTRA_LATENCY_NS;
    topo->intra.bandwidth = SIM_TOPO_DEFAULT_INTRA_BANDWIDTH;
    topo->inter.latency_ns = SIM_TOPO_DEFAULT_INTER_LATENCY_NS;
    topo->inter.bandwidth = SIM_TOPO_DEFAULT_INTER_BANDWIDTH;
}

/* A plain decimal number ("2", "0.5", ".5") followed by exactly one unit
 * of the table.  strtod alone would also take signs, exponents, "inf",
 * "nan" and hex, which no topology means; it must consume exactly the
 * digits and dots. */
static int parse_with_unit(const char *text, const struct unit *units,
                           double *out)
{
    size_t span;
    char *end;
    double v;

    if (!text)
        return -1;
    span = strspn(text, "0123456789.");
    if (span == 0 || strcspn(text, "0123456789") >= span)
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (errno || end != text + span || !isfinite(v) || v < 0)
        return -1;
    for (; units->name; units++) {
        if (strcmp(end, units->name) == 0) {
            *out = v * units->scale;
            return isfinite(*out) ? 0 : -1;
        }
    }
    return -1;
}

int sim_topo_parse_duration(const char *text, int64_t *ns)
{
    double v;

    if (parse_with_unit(text, duration_units, &v) != 0 || v > 9.0e18)
        return -1;
    *ns = (int64_t)llround(v);
    return 0;
}

int sim_topo_parse_bandwidth(const char *text, double *bytes_per_s)
{
    double v;

    if (parse_with_unit(text, bandwidth_units, &v) != 0 || v <= 0)
        return -1;
    *bytes_per_s = v;
    return 0;
}

int sim_topo_parse_signed_duration(const char *text, int64_t *ns)
{
    int64_t v;

    if (!text)
        return -1;
    if (*text == '-' || *text == '+') {
        if (sim_topo_parse_duration(text + 1, &v) != 0)
            return -1;
        *ns = *text == '-' ? -v : v;
        return 0;
    }
    return sim_topo_parse_duration(text, ns);
}

static int parse_rank(const char *text, int *rank)
{
    char *end;
    long v;

    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || *end || v < 0 || v > 0x7fffffff)
        return -1;
    *rank = (int)v;
    return 0;
}

static const char *const coll_names[] = {
    "allreduce", "broadcast", "reduce", "allgather", "reducescatter",
    "alltoall", "gather", "scatter", NULL};

int sim_topo_is_coll_name(const char *name)
{
    int i;

    for (i = 0; coll_names[i]; i++)
        if (strcmp(name, coll_names[i]) == 0)
            return 1;
    return 0;
}

/* "+1", "-2": a signed non-zero integer with its sign. */
static int parse_delta(const char *text, long *delta)
{
    char *end;
    long v;

    if (!text || (text[0] != '+' && text[0] != '-') ||
        !isdigit((unsigned char)text[1]))
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || *end || v == 0 || v > 1000000 || v < -1000000)
        return -1;
    *delta = v;
    return 0;
}

/* ---- one line ---------------------------------------------------------- */

enum key_kind {
    KEY_DURATION,
    KEY_BANDWIDTH,
    KEY_RANK,
    KEY_SIGNED_DURATION,
    KEY_DELTA,
    KEY_OP
};

struct key_spec {
    const char *name;
    enum key_kind kind;
    const char *expect; /* for messages */
};

static const struct key_spec key_latency = {
    "latency", KEY_DURATION, "a number with unit s, ms, us or ns"};
static const struct key_spec key_bandwidth = {
    "bandwidth", KEY_BANDWIDTH,
    "a positive number with unit B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s or "
    "GiB/s"};
static const struct key_spec key_delay = {
    "delay", KEY_DURATION, "a number with unit s, ms, us or ns"};
static const struct key_spec key_from = {
    "from", KEY_DURATION,
    "a time after the job's start with unit s, ms, us or ns"};
static const struct key_spec key_offset = {
    "offset", KEY_SIGNED_DURATION,
    "a number with unit s, ms, us or ns, optionally signed"};
static const struct key_spec key_rank = {"rank", KEY_RANK,
                                         "a non-negative integer"};
static const struct key_spec key_after = {"after", KEY_RANK,
                                          "a non-negative integer"};
static const struct key_spec key_seq = {"seq", KEY_RANK,
                                        "a non-negative integer"};
static const struct key_spec key_in = {
    "in", KEY_OP,
    "allreduce, broadcast, reduce, allgather, reducescatter, alltoall, "
    "gather or scatter"};
static const struct key_spec key_count = {
    "count", KEY_DELTA, "a signed non-zero integer such as +1"};
static const struct key_spec key_op = {
    "op", KEY_OP,
    "allreduce, broadcast, reduce, allgather, reducescatter, alltoall, "
    "gather or scatter"};

#define MAX_KEYS 5

/* The values of the key=value tokens of one line. */
struct key_values {
    int seen[MAX_KEYS];
    int64_t duration[MAX_KEYS];
    double bandwidth[MAX_KEYS];
    int rank[MAX_KEYS];
    long delta[MAX_KEYS];
    char op[MAX_KEYS][SIM_TOPO_OP_NAME];
};

struct directive {
    const char *name;
    int positional;                        /* words before the keys */
    const struct key_spec *keys[MAX_KEYS]; /* NULL-terminated */
    const char *usage;
};

enum {
    DIR_NODES,
    DIR_INTRA,
    DIR_INTER,
    DIR_LINK,
    DIR_STRAGGLER,
    DIR_HANG,
    DIR_KILL,
    DIR_MISMATCH,
    DIR_SWAP,
    DIR_CLOCK
};

static const struct directive directives[] = {
    [DIR_NODES] = {"nodes", 1, {NULL}, "nodes COUNT"},
    [DIR_INTRA] = {"intra",
                   0,
                   {&key_latency, &key_bandwidth, NULL},
                   "intra latency=T bandwidth=B"},
    [DIR_INTER] = {"inter",
                   0,
                   {&key_latency, &key_bandwidth, NULL},
                   "inter latency=T bandwidth=B"},
    [DIR_LINK] = {"link",
                  2,
                  {&key_latency, &key_bandwidth, &key_from, NULL},
                  "link NODE NODE [latency=T] [bandwidth=B] [from=T]"},
    [DIR_STRAGGLER] = {"straggler",
                       0,
                       {&key_rank, &key_delay, NULL},
                       "straggler rank=R delay=T"},
    [DIR_HANG] = {"hang",
                  0,
                  {&key_rank, &key_after, &key_in, NULL},
                  "hang rank=R after=N | hang rank=R in=OP [after=N]"},
    [DIR_KILL] = {"kill",
                  0,
                  {&key_rank, &key_after, &key_in, NULL},
                  "kill rank=R after=N | kill rank=R in=OP [after=N]"},
    [DIR_MISMATCH] = {"mismatch",
                      0,
                      {&key_rank, &key_seq, &key_count, &key_op, NULL},
                      "mismatch rank=R seq=S count=+K | mismatch rank=R "
                      "seq=S op=OP"},
    [DIR_SWAP] = {"swap", 0, {&key_rank, &key_seq, NULL},
                  "swap rank=R seq=S"},
    [DIR_CLOCK] = {"clock", 1, {&key_offset, NULL}, "clock NODE offset=T"},
};

#define N_DIRECTIVES (sizeof directives / sizeof directives[0])

struct parser {
    const char *name;
    int line;
    char *err;
    size_t errlen;
    struct sim_topo *topo;
    /* link keys left out take the final inter value, known only at the end */
    unsigned char link_has_latency[SIM_TOPO_MAX_LINKS];
    unsigned char link_has_bandwidth[SIM_TOPO_MAX_LINKS];
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p,
                                                      const char *fmt, ...)
{
    va_list ap;
    size_t used;

    if (!p->err || p->errlen == 0)
        return -1;
    snprintf(p->err, p->errlen, "%s:%d: ", p->name, p->line);
    used = strlen(p->err);
    va_start(ap, fmt);
    vsnprintf(p->err + used, p->errlen - used, fmt, ap);
    va_end(ap);
    return -1;
}

static int key_index(const struct directive *d, const char *name)
{
    int i;

    for (i = 0; d->keys[i]; i++)
        if (strcmp(d->keys[i]->name, name) == 0)
            return i;
    return -1;
}

static void list_keys(const struct directive *d, char *buf, size_t len)
{
    int i;

    buf[0] = '\0';
    for (i = 0; d->keys[i]; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                 d->keys[i]->name);
    }
}

static int parse_keys(struct parser *p, const struct directive *d,
                      char **tokens, int n, struct key_values *kv)
{
    int i;

    memset(kv, 0, sizeof *kv);
    for (i = 0; i < n; i++) {
        char *eq = strchr(tokens[i], '=');
        const struct key_spec *spec;
        int k;

        if (!d->keys[0])
            return fail(p, "'%s' takes no key=value settings, got '%s' "
                           "(usage: %s)",
                        d->name, tokens[i], d->usage);
        if (!eq || eq == tokens[i])
            return fail(p, "expected key=value in '%s', got '%s' (usage: %s)",
                        d->name, tokens[i], d->usage);
        *eq = '\0';
        k = key_index(d, tokens[i]);
        if (k < 0) {
            char known[128];
            list_keys(d, known, sizeof known);
            return fail(p, "unknown key '%s' in '%s' (known keys: %s)",
                        tokens[i], d->name, known);
        }
        spec = d->keys[k];
        if (kv->seen[k])
            return fail(p, "key '%s' given twice in '%s'", spec->name,
                        d->name);
        kv->seen[k] = 1;
        switch (spec->kind) {
        case KEY_DURATION:
            if (sim_topo_parse_duration(eq + 1, &kv->duration[k]) != 0)
                return fail(p, "bad value '%s' for key '%s' (expected %s)",
                            eq + 1, spec->name, spec->expect);
            break;
        case KEY_BANDWIDTH:
            if (sim_topo_parse_bandwidth(eq + 1, &kv->bandwidth[k]) != 0)
                return fail(p, "bad value '%s' for key '%s' (expected %s)",
                            eq + 1, spec->name, spec->expect);
            break;
        case KEY_SIGNED_DURATION:
            if (sim_topo_parse_signed_duration(eq + 1, &kv->duration[k]) != 0)
                return fail(p, "bad value '%s' for key '%s' (expected %s)",
                            eq + 1, spec->name, spec->expect);
            break;
        case KEY_RANK:
            if (parse_rank(eq + 1, &kv->rank[k]) != 0)
                return fail(p, "bad value '%s' for key '%s' (expected %s)",
                            eq + 1, spec->name, spec->expect);
            break;
        case KEY_DELTA:
            if (parse_delta(eq + 1, &kv->delta[k]) != 0)
                return fail(p, "bad value '%s' for key '%s' (expected %s)",
                            eq + 1, spec->name, spec->expect);
            break;
        case KEY_OP:
            if (!sim_topo_is_coll_name(eq + 1))
                return fail(p, "bad value '%s' for key '%s' (expected %s)",
                            eq + 1, spec->name, spec->expect);
            snprintf(kv->op[k], sizeof kv->op[k], "%s", eq + 1);
            break;
        }
    }
    return 0;
}

static int check_node_name(struct parser *p, const char *name)
{
    const char *c;

    if (strlen(name) >= SIM_TOPO_NODE_NAME)
        return fail(p, "node name '%.20s...' longer than %d characters",
                    name, SIM_TOPO_NODE_NAME - 1);
    for (c = name; *c; c++)
        if (*c == '=')
            return fail(p, "'link' takes two node names before its keys, "
                           "got '%s'",
                        name);
    return 0;
}

/* hang, kill, mismatch, swap: keys are in the order of their directive's
 * table row (rank first). */
static int apply_fault(struct parser *p, int which,
                       const struct key_values *kv)
{
    struct sim_topo *t = p->topo;
    const struct directive *d = &directives[which];
    struct sim_topo_fault f;

    memset(&f, 0, sizeof f);
    if (!kv->seen[0])
        return fail(p, "'%s' needs key 'rank' (usage: %s)", d->name,
                    d->usage);
    f.rank = kv->rank[0];
    switch (which) {
    case DIR_HANG:
        if (!kv->seen[1] && !kv->seen[2])
            return fail(p, "'hang' needs key 'after' or 'in' (usage: %s)",
                        d->usage);
        f.kind = SIM_FAULT_HANG;
        f.after = kv->seen[1] ? kv->rank[1] : 0;
        if (kv->seen[2])
            snprintf(f.in, sizeof f.in, "%s", kv->op[2]);
        break;
    case DIR_KILL:
        if (!kv->seen[1] && !kv->seen[2])
            return fail(p, "'kill' needs key 'after' or 'in' (usage: %s)",
                        d->usage);
        f.kind = SIM_FAULT_KILL;
        f.after = kv->seen[1] ? kv->rank[1] : 0;
        if (kv->seen[2])
            snprintf(f.in, sizeof f.in, "%s", kv->op[2]);
        break;
    case DIR_MISMATCH:
        if (!kv->seen[1])
            return fail(p, "'mismatch' needs key 'seq' (usage: %s)", d->usage);
        if (kv->seen[2] == kv->seen[3])
            return fail(p, "'mismatch' needs exactly one of 'count' and 'op' "
                           "(usage: %s)",
                        d->usage);
        f.kind = SIM_FAULT_MISMATCH;
        f.seq = kv->rank[1];
        f.count_delta = kv->seen[2] ? kv->delta[2] : 0;
        if (kv->seen[3])
            snprintf(f.op, sizeof f.op, "%s", kv->op[3]);
        break;
    case DIR_SWAP:
        if (!kv->seen[1])
            return fail(p, "'swap' needs key 'seq' (usage: %s)", d->usage);
        f.kind = SIM_FAULT_SWAP;
        f.seq = kv->rank[1];
        break;
    }
    if (t->n_faults >= SIM_TOPO_MAX_FAULTS)
        return fail(p, "too many fault directives (at most %d)",
                    SIM_TOPO_MAX_FAULTS);
    t->faults[t->n_faults++] = f;
    return 0;
}

const struct sim_topo_fault *sim_topo_fault(const struct sim_topo *topo,
                                            int rank, enum sim_fault_kind kind)
{
    int i;

    for (i = 0; topo && i < topo->n_faults; i++)
        if (topo->faults[i].rank == rank && topo->faults[i].kind == kind)
            return &topo->faults[i];
    return NULL;
}

/* 'clock NODE offset=T': that node's CLOCK_REALTIME runs T ahead. */
static int apply_clock(struct parser *p, char **pos,
                       const struct key_values *kv)
{
    struct sim_topo *t = p->topo;
    struct sim_topo_clock *c;

    if (!kv->seen[0])
        return fail(p, "'clock' needs key 'offset' (usage: %s)",
                    directives[DIR_CLOCK].usage);
    if (check_node_name(p, pos[0]))
        return -1;
    if (kv->duration[0] > INT64_C(86400000000000) ||
        kv->duration[0] < -INT64_C(86400000000000))
        return fail(p, "clock offset of '%s' beyond a day", pos[0]);
    if (t->n_clocks >= SIM_TOPO_MAX_CLOCKS)
        return fail(p, "too many 'clock' directives (at most %d)",
                    SIM_TOPO_MAX_CLOCKS);
    c = &t->clocks[t->n_clocks++];
    snprintf(c->node, sizeof c->node, "%s", pos[0]);
    c->offset_ns = kv->duration[0];
    return 0;
}

int64_t sim_topo_clock_offset(const struct sim_topo *topo, const char *node)
{
    int64_t off = 0;
    int i;

    for (i = 0; i < topo->n_clocks; i++)
        if (strcmp(topo->clocks[i].node, node) == 0)
            off = topo->clocks[i].offset_ns;
    return off;
}

static int apply(struct parser *p, int which, char **pos,
                 const struct key_values *kv)
{
    struct sim_topo *t = p->topo;

    switch (which) {
    case DIR_NODES: {
        int n;
        if (parse_rank(pos[0], &n) != 0 || n < 1)
            return fail(p, "bad node count '%s' for 'nodes' (expected a "
                           "positive integer)",
                        pos[0]);
        t->nodes = n;
        return 0;
    }
    case DIR_INTRA:
    case DIR_INTER: {
        struct sim_link_params *lp = which == DIR_INTRA ? &t->intra : &t->inter;
        if (!kv->seen[0] && !kv->seen[1])
            return fail(p, "'%s' needs latency= or bandwidth= (usage: %s)",
                        directives[which].name, directives[which].usage);
        if (kv->seen[0])
            lp->latency_ns = kv->duration[0];
        if (kv->seen[1])
            lp->bandwidth = kv->bandwidth[1];
        return 0;
    }
    case DIR_LINK: {
        struct sim_topo_link *l;
        if (t->n_links >= SIM_TOPO_MAX_LINKS)
            return fail(p, "too many 'link' directives (at most %d)",
                        SIM_TOPO_MAX_LINKS);
        if (check_node_name(p, pos[0]) || check_node_name(p, pos[1]))
            return -1;
        l = &t->links[t->n_links];
        snprintf(l->a, sizeof l->a, "%s", pos[0]);
        snprintf(l->b, sizeof l->b, "%s", pos[1]);
        l->params.latency_ns = kv->duration[0];
        l->params.bandwidth = kv->bandwidth[1];
        l->from_ns = kv->seen[2] ? kv->duration[2] : 0;
        p->link_has_latency[t->n_links] = (unsigned char)kv->seen[0];
        p->link_has_bandwidth[t->n_links] = (unsigned char)kv->seen[1];
        t->n_links++;
        return 0;
    }
    case DIR_STRAGGLER:
        if (!kv->seen[0])
            return fail(p, "'straggler' needs key 'rank' (usage: %s)",
                        directives[which].usage);
        if (!kv->seen[1])
            return fail(p, "'straggler' needs key 'delay' (usage: %s)",
                        directives[which].usage);
        if (t->n_stragglers >= SIM_TOPO_MAX_STRAGGLERS)
            return fail(p, "too many 'straggler' directives (at most %d)",
                        SIM_TOPO_MAX_STRAGGLERS);
        t->stragglers[t->n_stragglers].rank = kv->rank[0];
        t->stragglers[t->n_stragglers].delay_ns = kv->duration[1];
        t->n_stragglers++;
        return 0;
    case DIR_HANG:
    case DIR_KILL:
    case DIR_MISMATCH:
    case DIR_SWAP:
        return apply_fault(p, which, kv);
    case DIR_CLOCK:
        return apply_clock(p, pos, kv);
    }
    return fail(p, "internal error: directive %d", which);
}

static int parse_line(struct parser *p, char *line)
{
    char *tokens[MAX_TOKENS];
    char *hash = strchr(line, '#');
    char *save = NULL, *tok;
    const struct directive *d = NULL;
    struct key_values kv;
    int n = 0;
    size_t i;

    if (hash)
        *hash = '\0';
    for (tok = strtok_r(line, " \t\r\v\f", &save); tok;
         tok = strtok_r(NULL, " \t\r\v\f", &save)) {
        if (n == MAX_TOKENS)
            return fail(p, "too many words (at most %d)", MAX_TOKENS);
        tokens[n++] = tok;
    }
    if (n == 0)
        return 0;
    for (i = 0; i < N_DIRECTIVES; i++)
        if (strcmp(tokens[0], directives[i].name) == 0)
            d = &directives[i];
    if (!d)
        return fail(p, "unknown directive '%s' (known: nodes, intra, inter, "
                       "link, straggler, clock, hang, kill, mismatch, swap)",
                    tokens[0]);
    if (n - 1 < d->positional)
        return fail(p, "'%s' needs %d argument%s (usage: %s)", d->name,
                    d->positional, d->positional == 1 ? "" : "s", d->usage);
    if (d->positional && !d->keys[0] && n - 1 > d->positional)
        return fail(p, "'%s' takes %d argument%s, got '%s' too (usage: %s)",
                    d->name, d->positional, d->positional == 1 ? "" : "s",
                    tokens[1 + d->positional], d->usage);
    if (parse_keys(p, d, tokens + 1 + d->positional,
                   n - 1 - d->positional, &kv) != 0)
        return -1;
    return apply(p, (int)(d - directives), tokens + 1, &kv);
}

int sim_topo_parse_string(const char *text, const char *name,
                          struct sim_topo *out, char *err, size_t errlen)
{
    struct parser *p = NULL;
    char *copy = NULL, *line, *next;
    int rc = -1, i;

    if (err && errlen)
        err[0] = '\0';
    p = calloc(1, sizeof *p);
    copy = strdup(text ? text : "");
    if (!p || !copy) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    p->name = name ? name : "(topology)";
    p->err = err;
    p->errlen = errlen;
    p->topo = out;
    sim_topo_defaults(out);
    for (line = copy; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        p->line++;
        if (parse_line(p, line) != 0)
            goto out;
    }
    for (i = 0; i < out->n_links; i++) {
        if (!p->link_has_latency[i])
            out->links[i].params.latency_ns = out->inter.latency_ns;
        if (!p->link_has_bandwidth[i])
            out->links[i].params.bandwidth = out->inter.bandwidth;
    }
    rc = 0;
out:
    free(copy);
    free(p);
    return rc;
}

int sim_topo_parse_file(const char *path, struct sim_topo *out, char *err,
                        size_t errlen)
{
    FILE *f = NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    int rc = -1;

    f = fopen(path, "r");
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open topology file: %s", path,
                     strerror(errno));
        goto out;
    }
    do {
        if (cap - len < 4096) {
            char *bigger;
            if (cap > (1u << 24)) {
                if (err && errlen)
                    snprintf(err, errlen, "%s: topology file too large",
                             path);
                goto out;
            }
            bigger = realloc(text, cap * 2 + 4096);
            if (!bigger) {
                if (err && errlen)
                    snprintf(err, errlen, "%s: out of memory", path);
                goto out;
            }
            text = bigger;
            cap = cap * 2 + 4096;
        }
        got = fread(text + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    if (ferror(f)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: read error", path);
        goto out;
    }
    text[len] = '\0';
    if (memchr(text, '\0', len)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: not a text file (contains NUL bytes)",
                     path);
        goto out;
    }
    rc = sim_topo_parse_string(text, path, out, err, errlen);
out:
    if (f)
        fclose(f);
    free(text);
    return rc;
}

static int names_pair(const struct sim_topo_link *l, const char *a,
                      const char *b)
{
    return (strcmp(l->a, a) == 0 && strcmp(l->b, b) == 0) ||
           (strcmp(l->a, b) == 0 && strcmp(l->b, a) == 0);
}

struct sim_link_params sim_topo_pair_at(const struct sim_topo *topo,
                                        const char *a, const char *b,
                                        int64_t t_ns)
{
    int i;

    /* The last directive for a pair wins, like a later line overriding an
     * earlier one everywhere else in the file; one with from= only once
     * its time has come. */
    for (i = topo->n_links - 1; i >= 0; i--) {
        const struct sim_topo_link *l = &topo->links[i];
        if (l->from_ns <= t_ns && names_pair(l, a, b))
            return l->params;
    }
    return strcmp(a, b) == 0 ? topo->intra : topo->inter;
}

struct sim_link_params sim_topo_pair(const struct sim_topo *topo,
                                     const char *a, const char *b)
{
    return sim_topo_pair_at(topo, a, b, 0);
}

int64_t sim_topo_pair_change(const struct sim_topo *topo, const char *a,
                             const char *b, int64_t t_ns)
{
    int64_t next = INT64_MAX;
    int i;

    for (i = 0; i < topo->n_links; i++) {
        const struct sim_topo_link *l = &topo->links[i];
        if (l->from_ns > t_ns && l->from_ns < next && names_pair(l, a, b))
            next = l->from_ns;
    }
    return next;
}

int64_t sim_topo_straggler_delay(const struct sim_topo *topo, int rank)
{
    int64_t total = 0;
    int i;

    for (i = 0; i < topo->n_stragglers; i++)
        if (topo->stragglers[i].rank == rank)
            total += topo->stragglers[i].delay_ns;
    return total;
}
