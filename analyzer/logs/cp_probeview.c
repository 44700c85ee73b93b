/* cp_probeview.c - probe.json read back for the analysis (see
 * cp_probeview.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cp_probeview.h"
#include "cp_jsoncheck.h"
#include "cp_jsonfile.h"
#include "cp_path.h"

/* probe.json is read through the checked reader (cp_jsoncheck): every
 * message names the file and the key; numbers as stored. */

/* The nodes sorted by name (then by place), for a search per name: a
 * walk over every node per name would be quadratic in the nodes. */
struct pv_sorted {
    const char *name;
    size_t index;
};

static int sorted_cmp(const void *a, const void *b)
{
    const struct pv_sorted *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int name_cmp(const void *key, const void *b)
{
    return strcmp(key, ((const struct pv_sorted *)b)->name);
}

static long node_index(const struct pv_sorted *by_name, size_t n,
                       const char *name)
{
    const struct pv_sorted *at =
        bsearch(name, by_name, n, sizeof *by_name, name_cmp);

    return at ? (long)at->index : -1;
}

/* pairs[i].nodes: two different nodes of topology.nodes, into ends. */
static int pair_ends(struct cp_jsoncheck *c, const struct cp_probeview *pv,
                     const struct pv_sorted *by_name, json_t *o,
                     const char *where, long *ends)
{
    json_t *two = cp_jsoncheck_typed(c, o, where, "nodes", 1, JSON_ARRAY), *v;
    size_t k;

    if (!two)
        return -1;
    if (json_array_size(two) != 2)
        return cp_jsoncheck_fail(c, "key '%s.nodes' should name 2 nodes, "
                                    "not %zu",
                                 where, json_array_size(two));
    for (k = 0; k < 2; k++) {
        v = json_array_get(two, k);
        if (!json_is_string(v))
            return cp_jsoncheck_fail(c, "key '%s.nodes[%zu]' should be a "
                                        "string, not %s",
                                     where, k, cp_jsoncheck_type_name(v));
        ends[k] = node_index(by_name, pv->nnodes, json_string_value(v));
        if (ends[k] < 0)
            return cp_jsoncheck_fail(c, "key '%s.nodes[%zu]' names node "
                                        "'%.64s', which is not in "
                                        "topology.nodes",
                                     where, k, json_string_value(v));
    }
    if (ends[0] == ends[1])
        return cp_jsoncheck_fail(c, "key '%s.nodes' names node '%.64s' twice",
                                 where, pv->nodes[ends[0]]);
    return 0;
}

static void read_pair(struct cp_jsoncheck *c, struct cp_probeview *pv,
                      const struct pv_sorted *by_name, json_t *o, size_t i)
{
    struct cp_probeview_pair *p = &pv->pairs[pv->npairs];
    char where[64];
    const char *state;
    long ends[2];

    snprintf(where, sizeof where, "topology.pairs[%zu]", i);
    if (!json_is_object(o)) {
        cp_jsoncheck_fail(c, "key '%s' should be an object, not %s", where,
                          cp_jsoncheck_type_name(o));
        return;
    }
    if (pair_ends(c, pv, by_name, o, where, ends) < 0)
        return;
    state = cp_jsoncheck_str(c, o, where, "state", 1);
    if (c->bad)
        return;
    if (strcmp(state, "ok") != 0 && strcmp(state, "slow") != 0) {
        cp_jsoncheck_fail(c, "key '%s.state' is '%.32s', not ok or slow",
                          where, state);
        return;
    }
    p->a = (size_t)ends[0];
    p->b = (size_t)ends[1];
    p->slow = strcmp(state, "slow") == 0;
    p->bandwidth_Bps = cp_jsoncheck_num(c, o, where, "bandwidth_Bps", 1);
    p->efficiency = cp_jsoncheck_num(c, o, where, "efficiency", 1);
    p->latency_s = cp_jsoncheck_num(c, o, where, "latency_s", 1);
    if (!c->bad)
        pv->npairs++;
}

/* topology.nodes, each once, into pv->nodes, and sorted into by_name
 * (room for all).  The first node that is not a string or repeats one
 * before it is the error. */
static void read_nodes(struct cp_jsoncheck *c, struct cp_probeview *pv,
                       json_t *nodes, struct pv_sorted *by_name)
{
    size_t i, repeat = SIZE_MAX;
    json_t *v;

    json_array_foreach(nodes, i, v)
    {
        if (!json_is_string(v))
            break;
        pv->nodes[i] = strdup(json_string_value(v));
        if (!pv->nodes[i]) {
            cp_jsoncheck_fail(c, "out of memory");
            return;
        }
        by_name[i].name = pv->nodes[i];
        by_name[i].index = i;
        pv->nnodes++;
    }
    qsort(by_name, pv->nnodes, sizeof *by_name, sorted_cmp);
    /* a name's second place, the earliest of all names' */
    for (i = 1; i < pv->nnodes; i++)
        if (strcmp(by_name[i].name, by_name[i - 1].name) == 0 &&
            (i < 2 || strcmp(by_name[i - 1].name, by_name[i - 2].name) != 0) &&
            by_name[i].index < repeat)
            repeat = by_name[i].index;
    if (repeat != SIZE_MAX) {
        cp_jsoncheck_fail(c, "key 'topology.nodes[%zu]' repeats node '%.64s'",
                          repeat, pv->nodes[repeat]);
        return;
    }
    if (pv->nnodes < json_array_size(nodes)) {
        v = json_array_get(nodes, pv->nnodes);
        cp_jsoncheck_fail(c, "key 'topology.nodes[%zu]' should be a string, "
                             "not %s",
                          pv->nnodes, cp_jsoncheck_type_name(v));
    }
}

int cp_probeview_from_json(json_t *doc, const char *file,
                           struct cp_probeview *pv, struct cp_error *err)
{
    struct cp_jsoncheck c;
    struct pv_sorted *by_name = NULL;
    json_t *v, *topo, *nodes, *pairs;
    const char *schema, *src;
    size_t i, n;

    cp_jsoncheck_init(&c, err, file, 0);
    memset(pv, 0, sizeof *pv);
    pv->reference_Bps = pv->median_latency_s = NAN;
    pv->file = strdup(file);
    if (!pv->file) {
        cp_jsoncheck_fail(&c, "out of memory");
        goto out;
    }
    if (!json_is_object(doc)) {
        cp_jsoncheck_fail(&c, "the document is %s, not a JSON object",
                          cp_jsoncheck_type_name(doc));
        goto out;
    }
    schema = cp_jsoncheck_str(&c, doc, "", "schema", 1);
    if (c.bad)
        goto out;
    if (strcmp(schema, CP_PROBE_SCHEMA) != 0) {
        cp_jsoncheck_fail(&c, "key 'schema' is '%.64s', not a collprof probe "
                              "report (expected " CP_PROBE_SCHEMA ")",
                          schema);
        goto out;
    }
    topo = cp_jsoncheck_typed(&c, doc, "", "topology", 1, JSON_OBJECT);
    nodes = cp_jsoncheck_typed(&c, topo, "topology", "nodes", 1, JSON_ARRAY);
    pairs = cp_jsoncheck_typed(&c, topo, "topology", "pairs", 1, JSON_ARRAY);
    if (c.bad)
        goto out;
    /* counts the file's bytes back, but bounded all the same */
    n = json_array_size(nodes);
    if (n > CP_PROBE_MAX_NODES) {
        cp_jsoncheck_fail(&c, "key 'topology.nodes' lists %zu nodes, more "
                              "than a probe may have (%u)",
                          n, CP_PROBE_MAX_NODES);
        goto out;
    }
    if (json_array_size(pairs) > n * (n - (n > 0)) / 2) {
        cp_jsoncheck_fail(&c, "key 'topology.pairs' lists %zu pairs, more "
                              "than its %zu nodes make (%zu)",
                          json_array_size(pairs), n, n * (n - (n > 0)) / 2);
        goto out;
    }
    pv->nodes = calloc(n + 1, sizeof *pv->nodes);
    pv->pairs = calloc(json_array_size(pairs) + 1, sizeof *pv->pairs);
    by_name = malloc((n + 1) * sizeof *by_name);
    if (!pv->nodes || !pv->pairs || !by_name) {
        cp_jsoncheck_fail(&c, "out of memory");
        goto out;
    }
    read_nodes(&c, pv, nodes, by_name);
    json_array_foreach(pairs, i, v)
    {
        if (c.bad)
            goto out;
        read_pair(&c, pv, by_name, v, i);
    }
    pv->reference_Bps =
        cp_jsoncheck_num(&c, topo, "topology", "reference_Bps", 1);
    pv->median_latency_s =
        cp_jsoncheck_num(&c, topo, "topology", "median_latency_s", 1);
    v = cp_jsoncheck_member(&c, topo, "topology", "reference_source", 1);
    if (v && !json_is_null(v) && !json_is_string(v))
        cp_jsoncheck_wrong_type(&c, "topology", "reference_source",
                                "a string or null", v);
    src = json_is_string(v) ? json_string_value(v) : "";
    snprintf(pv->reference_source, sizeof pv->reference_source, "%s", src);
out:
    free(by_name);
    if (c.bad) {
        cp_probeview_clear(pv);
        return -1;
    }
    return 0;
}

int cp_probeview_read(const char *path, struct cp_probeview *pv,
                      struct cp_error *err)
{
    json_error_t jerr;
    struct cp_error e;
    json_t *doc;
    char *text;
    size_t len;
    int rc;

    memset(pv, 0, sizeof *pv);
    text = cp_jsonfile_read(path, CP_PATH_FOLLOW, CP_PROBE_MAX_BYTES,
                            CP_PROBE_MAX_COST, "probe.json", &len, &e);
    if (!text && errno == EFBIG) {
        cp_error_set(err, path, -1, "%s", e.text);
        return CP_PROBEVIEW_TOO_BIG;
    }
    if (!text) {
        cp_error_set(err, path, e.offset, "cannot read %s", e.text);
        return -1;
    }
    doc = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
    free(text);
    if (!doc) {
        if (jerr.line < 1)
            cp_error_set(err, path, -1, "cannot read %s: %s", path,
                         jerr.text);
        else
            cp_error_set(err, path, -1,
                         "%s is not JSON: line %d, column %d: %s", path,
                         jerr.line, jerr.column, jerr.text);
        return -1;
    }
    rc = cp_probeview_from_json(doc, path, pv, err);
    json_decref(doc);
    return rc;
}

void cp_probeview_clear(struct cp_probeview *pv)
{
    size_t i;

    if (!pv)
        return;
    for (i = 0; pv->nodes && i < pv->nnodes; i++)
        free(pv->nodes[i]);
    free(pv->nodes);
    free(pv->pairs);
    free(pv->file);
    memset(pv, 0, sizeof *pv);
}

int cp_probeview_find(const char *const *paths, char *buf, size_t size)
{
    static const char *const where[] = {"probe/probe.json", "probe.json"};
    size_t i, k;

    for (i = 0; paths[i]; i++) {
        struct stat st;
        if (stat(paths[i], &st) < 0 || !S_ISDIR(st.st_mode))
            continue;
        for (k = 0; k < sizeof where / sizeof where[0]; k++) {
            int n = snprintf(buf, size, "%s/%s", paths[i], where[k]);
            if (n > 0 && (size_t)n < size && stat(buf, &st) == 0 &&
                S_ISREG(st.st_mode))
                return 1;
        }
    }
    return 0;
}
