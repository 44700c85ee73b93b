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
#include "cp_path.h"

/* probe.json is read through the checked reader (cp_jsoncheck): every
 * message names the file and the key; numbers as stored. */

static long node_index(const struct cp_probeview *pv, const char *name)
{
    size_t i;

    for (i = 0; i < pv->nnodes; i++)
        if (strcmp(pv->nodes[i], name) == 0)
            return (long)i;
    return -1;
}

/* pairs[i].nodes: two different nodes of topology.nodes, into ends. */
static int pair_ends(struct cp_jsoncheck *c, const struct cp_probeview *pv,
                     json_t *o, const char *where, long *ends)
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
        ends[k] = node_index(pv, json_string_value(v));
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
                      json_t *o, size_t i)
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
    if (pair_ends(c, pv, o, where, ends) < 0)
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

/* topology.nodes, each once, into pv->nodes. */
static void read_nodes(struct cp_jsoncheck *c, struct cp_probeview *pv,
                       json_t *nodes)
{
    json_t *v;
    size_t i;

    json_array_foreach(nodes, i, v)
    {
        if (!json_is_string(v)) {
            cp_jsoncheck_fail(c, "key 'topology.nodes[%zu]' should be a "
                                 "string, not %s",
                              i, cp_jsoncheck_type_name(v));
            return;
        }
        if (node_index(pv, json_string_value(v)) >= 0) {
            cp_jsoncheck_fail(c, "key 'topology.nodes[%zu]' repeats node "
                                 "'%.64s'",
                              i, json_string_value(v));
            return;
        }
        pv->nodes[i] = strdup(json_string_value(v));
        if (!pv->nodes[i]) {
            cp_jsoncheck_fail(c, "out of memory");
            return;
        }
        pv->nnodes++;
    }
}

int cp_probeview_from_json(json_t *doc, const char *file,
                           struct cp_probeview *pv, struct cp_error *err)
{
    struct cp_jsoncheck c;
    json_t *v, *topo, *nodes, *pairs;
    const char *schema, *src;
    size_t i;

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
    pv->nodes = calloc(json_array_size(nodes) + 1, sizeof *pv->nodes);
    pv->pairs = calloc(json_array_size(pairs) + 1, sizeof *pv->pairs);
    if (!pv->nodes || !pv->pairs) {
        cp_jsoncheck_fail(&c, "out of memory");
        goto out;
    }
    read_nodes(&c, pv, nodes);
    json_array_foreach(pairs, i, v)
    {
        if (c.bad)
            goto out;
        read_pair(&c, pv, v, i);
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
    json_t *doc;
    FILE *f;
    int rc;

    memset(pv, 0, sizeof *pv);
    f = cp_path_fopen_input(path, CP_PATH_FOLLOW, NULL);
    if (!f) {
        return cp_errorf_at(err, path, -1, "cannot read %s: %s", path,
                            errno == ELOOP ? "a symbolic link to a file of another user"
                            : errno == EINVAL ? "not a regular file"
                                              : strerror(errno));
    }
    doc = json_loadf(f, JSON_DECODE_ANY, &jerr);
    fclose(f);
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
