/* cp_tagnames.c - names for user tag values (cp_tagnames.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp_tagnames.h"

struct tagname {
    uint64_t value;
    char name[CP_TAGNAMES_NAME_MAX + 1];
};

struct cp_tagnames {
    size_t n;
    struct tagname *v;
};

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* [*s, *e) without the spaces at either end. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && is_space(**s))
        (*s)++;
    while (*e > *s && is_space((*e)[-1]))
        (*e)--;
}

/* The value of [s, e): decimal, or hexadecimal after 0x.  -1 when it is
 * not such a number or does not fit 64 bits. */
static int parse_value(const char *s, const char *e, uint64_t *out)
{
    unsigned base = 10;
    uint64_t v = 0;

    if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (s == e)
        return -1;
    for (; s < e; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

/* One entry [s, e), the k-th (from 1), into t.  -1 with err filled. */
static int parse_entry(struct cp_tagnames *t, const char *s, const char *e,
                       size_t k, struct cp_error *err)
{
    const char *eq = memchr(s, '=', (size_t)(e - s)), *ns, *ne, *vs, *ve, *p;
    int len = (int)(e - s > 80 ? 80 : e - s);
    struct tagname *x;
    uint64_t value;
    size_t i;

    if (!eq)
        return cp_errorf(err, "entry %zu '%.*s%s': no '=' (want VALUE=NAME, "
                         "e.g. 1=forward)", k, len, s, e - s > 80 ? "..." : "");
    vs = s;
    ve = eq;
    ns = eq + 1;
    ne = e;
    trim(&vs, &ve);
    trim(&ns, &ne);
    if (parse_value(vs, ve, &value) < 0)
        return cp_errorf(err, "entry %zu '%.*s%s': '%.*s' is not a tag value "
                         "(an unsigned 64-bit integer, decimal or 0x hex)",
                         k, len, s, e - s > 80 ? "..." : "",
                         (int)(ve - vs > 40 ? 40 : ve - vs), vs);
    if (ns == ne)
        return cp_errorf(err, "entry %zu '%.*s%s': the name is empty", k, len,
                         s, e - s > 80 ? "..." : "");
    if (ne - ns > CP_TAGNAMES_NAME_MAX)
        return cp_errorf(err, "entry %zu '%.*s%s': the name is over %d "
                         "characters", k, len, s, e - s > 80 ? "..." : "",
                         CP_TAGNAMES_NAME_MAX);
    for (p = ns; p < ne; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '=')
            return cp_errorf(err, "entry %zu '%.*s%s': the name holds a "
                             "character that is not printable ASCII, or '='",
                             k, len, s, e - s > 80 ? "..." : "");
    for (i = 0; i < t->n; i++)
        if (t->v[i].value == value)
            return cp_errorf(err, "entry %zu '%.*s%s': tag %llu is named "
                             "twice", k, len, s, e - s > 80 ? "..." : "",
                             (unsigned long long)value);
    if (t->n >= CP_TAGNAMES_MAX)
        return cp_errorf(err, "entry %zu: over %d names", k, CP_TAGNAMES_MAX);
    x = &t->v[t->n++];
    x->value = value;
    memcpy(x->name, ns, (size_t)(ne - ns));
    x->name[ne - ns] = '\0';
    return 0;
}

struct cp_tagnames *cp_tagnames_parse(const char *text, struct cp_error *err)
{
    struct cp_tagnames *t;
    const char *s, *e;
    size_t k = 0, entries = 1;

    t = calloc(1, sizeof *t);
    if (!t) {
        cp_errorf(err, "out of memory");
        return NULL;
    }
    if (!text)
        return t;
    for (s = text; *s; s++)
        entries += *s == ',';
    t->v = calloc(entries < CP_TAGNAMES_MAX ? entries : CP_TAGNAMES_MAX,
                  sizeof *t->v);
    if (!t->v) {
        cp_errorf(err, "out of memory");
        goto fail;
    }
    for (s = text; *s; s = *e ? e + 1 : e) {
        const char *a, *b;
        e = strchr(s, ',');
        if (!e)
            e = s + strlen(s);
        k++;
        a = s;
        b = e;
        trim(&a, &b);
        if (a == b) {
            if (*e == '\0')
                break; /* a trailing comma, or only spaces */
            cp_errorf(err, "entry %zu is empty", k);
            goto fail;
        }
        if (parse_entry(t, a, b, k, err) < 0)
            goto fail;
    }
    return t;
fail:
    cp_tagnames_destroy(t);
    return NULL;
}

const char *cp_tagnames_name(const struct cp_tagnames *t, uint64_t value)
{
    size_t i;

    for (i = 0; t && i < t->n; i++)
        if (t->v[i].value == value)
            return t->v[i].name;
    return NULL;
}

size_t cp_tagnames_count(const struct cp_tagnames *t)
{
    return t ? t->n : 0;
}

void cp_tagnames_destroy(struct cp_tagnames *t)
{
    int saved = errno;

    if (t) {
        free(t->v);
        free(t);
    }
    errno = saved;
}
