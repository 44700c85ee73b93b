/* cp_probeview.c - probe.json read back for the analysis (see
 * cp_probeview.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cp_probeview.h"
#include "cp_path.h"

struct reader {
    const char *file;
    struct cp_error *err;
    int bad;
};

__attribute__((format(printf, 2, 3))) static void fail(struct reader *rd,
                                                       const char *fmt, ...)
{
    char text[CP_ERROR_TEXT];
    va_list ap;

    if (rd->bad)
        return;
    rd->bad = 1;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cp_error_set(rd->err, rd->file, -1, "%s: %s", rd->file, text);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* obj[key] of type want (JSON_REAL: any number; null allowed when
 * nullable, then NULL is returned).  key is the full path for messages. */
static json_t *get(struct reader *rd, json_t *obj, const char *key,
                   const char *path, json_type want, int nullable)
{
    json_t *v = json_object_get(obj, key);
    int okay;

    if (rd->bad)
        return NULL;
    if (!v) {
        fail(rd, "key '%s' is missing", path);
        return NULL;
    }
    if (json_is_null(v) && nullable)
        return NULL;
    okay = want == JSON_REAL ? json_is_number(v) : json_typeof(v) == want;
    if (!okay) {
        fail(rd, "key '%s' should be %s%s, not %s", path,
             want == JSON_REAL     ? "a number"
             : want == JSON_STRING ? "a string"
             : want == JSON_ARRAY  ? "an array"
                                   : "an object",
             nullable ? " or null" : "", type_name(v));
        return NULL;
    }
    return v;
}

static double get_num(struct reader *rd, json_t *obj, const char *key,
                      const char *path)
{
    json_t *v = get(rd, obj, key, path, JSON_REAL, 1);

    return v ? json_number_value(v) : NAN;
}

static long node_index(const struct cp_probeview *pv, const char *name)
{
    size_t i;

    for (i = 0; i < pv->nnodes; i++)
        if (strcmp(pv->nodes[i], name) == 0)
            return (long)i;
    return -1;
}

static void read_pair(struct reader *rd, struct cp_probeview *pv, json_t *o,
                      size_t i)
{
    struct cp_probeview_pair *p = &pv->pairs[pv->npairs];
    char path[96];
    const char *state;
    json_t *two, *v;
    long ends[2];
    size_t k;

    if (!json_is_object(o)) {
        fail(rd, "key 'topology.pairs[%zu]' should be an object, not %s", i,
             type_name(o));
        return;
    }
    snprintf(path, sizeof path, "topology.pairs[%zu].nodes", i);
    two = get(rd, o, "nodes", path, JSON_ARRAY, 0);
    if (!two)
        return;
    if (json_array_size(two) != 2) {
        fail(rd, "key '%s' should name 2 nodes, not %zu", path,
             json_array_size(two));
        return;
    }
    for (k = 0; k < 2; k++) {
        v = json_array_get(two, k);
        if (!json_is_string(v)) {
            fail(rd, "key '%s[%zu]' should be a string, not %s", path, k,
                 type_name(v));
            return;
        }
        ends[k] = node_index(pv, json_string_value(v));
        if (ends[k] < 0) {
            fail(rd, "key '%s[%zu]' names node '%.64s', which is not in "
                     "topology.nodes",
                 path, k, json_string_value(v));
            return;
        }
    }
    if (ends[0] == ends[1]) {
        fail(rd, "key '%s' names node '%.64s' twice", path, pv->nodes[ends[0]]);
        return;
    }
    snprintf(path, sizeof path, "topology.pairs[%zu].state", i);
    v = get(rd, o, "state", path, JSON_STRING, 0);
    if (!v)
        return;
    state = json_string_value(v);
    if (strcmp(state, "ok") != 0 && strcmp(state, "slow") != 0) {
        fail(rd, "key '%s' is '%.32s', not ok or slow", path, state);
        return;
    }
    p->a = (size_t)ends[0];
    p->b = (size_t)ends[1];
    p->slow = strcmp(state, "slow") == 0;
    snprintf(path, sizeof path, "topology.pairs[%zu].bandwidth_Bps", i);
    p->bandwidth_Bps = get_num(rd, o, "bandwidth_Bps", path);
    snprintf(path, sizeof path, "topology.pairs[%zu].efficiency", i);
    p->efficiency = get_num(rd, o, "efficiency", path);
    snprintf(path, sizeof path, "topology.pairs[%zu].latency_s", i);
    p->latency_s = get_num(rd, o, "latency_s", path);
    if (!rd->bad)
        pv->npairs++;
}

int cp_probeview_from_json(json_t *doc, const char *file,
                           struct cp_probeview *pv, struct cp_error *err)
{
    struct reader rd = {file, err, 0};
    json_t *v, *topo, *nodes, *pairs;
    const char *schema, *src;
    size_t i;

    memset(pv, 0, sizeof *pv);
    pv->reference_Bps = pv->median_latency_s = NAN;
    pv->file = strdup(file);
    if (!pv->file) {
        fail(&rd, "out of memory");
        goto out;
    }
    if (!json_is_object(doc)) {
        fail(&rd, "the document is %s, not a JSON object", type_name(doc));
        goto out;
    }
    v = get(&rd, doc, "schema", "schema", JSON_STRING, 0);
    if (!v)
        goto out;
    schema = json_string_value(v);
    if (strcmp(schema, CP_PROBE_SCHEMA) != 0) {
        fail(&rd, "key 'schema' is '%.64s', not a collprof probe report "
                  "(expected " CP_PROBE_SCHEMA ")",
             schema);
        goto out;
    }
    topo = get(&rd, doc, "topology", "topology", JSON_OBJECT, 0);
    nodes = get(&rd, topo, "nodes", "topology.nodes", JSON_ARRAY, 0);
    pairs = get(&rd, topo, "pairs", "topology.pairs", JSON_ARRAY, 0);
    if (rd.bad)
        goto out;
    pv->nodes = calloc(json_array_size(nodes) + 1, sizeof *pv->nodes);
    pv->pairs = calloc(json_array_size(pairs) + 1, sizeof *pv->pairs);
    if (!pv->nodes || !pv->pairs) {
        fail(&rd, "out of memory");
        goto out;
    }
    json_array_foreach(nodes, i, v)
    {
        if (!json_is_string(v)) {
            fail(&rd, "key 'topology.nodes[%zu]' should be a string, not %s",
                 i, type_name(v));
            goto out;
        }
        if (node_index(pv, json_string_value(v)) >= 0) {
            fail(&rd, "key 'topology.nodes[%zu]' repeats node '%.64s'", i,
                 json_string_value(v));
            goto out;
        }
        pv->nodes[i] = strdup(json_string_value(v));
        if (!pv->nodes[i]) {
            fail(&rd, "out of memory");
            goto out;
        }
        pv->nnodes++;
    }
    json_array_foreach(pairs, i, v)
    {
        read_pair(&rd, pv, v, i);
        if (rd.bad)
            goto out;
    }
    pv->reference_Bps =
        get_num(&rd, topo, "reference_Bps", "topology.reference_Bps");
    pv->median_latency_s =
        get_num(&rd, topo, "median_latency_s", "topology.median_latency_s");
    v = get(&rd, topo, "reference_source", "topology.reference_source",
            JSON_STRING, 1);
    src = v ? json_string_value(v) : "";
    snprintf(pv->reference_source, sizeof pv->reference_source, "%s", src);
out:
    if (rd.bad) {
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
