/* cp_plugin_findings.c - the findings of report.json, read with Jansson. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cp_jsonfile.h"
#include "cp_plugin_findings.h"
#include "cp_text.h"

static void join_nodes(json_t *nodes, char *out, size_t outlen)
{
    size_t i, used = 0;
    json_t *n;

    out[0] = '\0';
    if (!json_is_array(nodes))
        return;
    json_array_foreach(nodes, i, n) {
        const char *name = json_string_value(n);
        int w;
        if (!name)
            continue;
        w = snprintf(out + used, outlen - used, "%s%s", used ? "," : "", name);
        if (w < 0 || (size_t)w >= outlen - used) {
            out[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
    cp_text_mask(out);
}

int cp_findings_read(int dirfd, const char *name,
                     void (*fn)(const struct cp_finding *f, void *arg),
                     void *arg, struct cp_error *err)
{
    json_t *root, *findings, *item;
    size_t i;
    int rc;

    root = cp_jsonfile_load_at(dirfd, name, CP_PLUGIN_JSON_MAX, err);
    if (!root)
        return -1;
    findings = json_object_get(root, "findings");
    if (!json_is_array(findings)) {
        rc = 0; /* a report without findings has nothing to say */
        goto out;
    }
    json_array_foreach(findings, i, item) {
        struct cp_finding f;
        memset(&f, 0, sizeof f);
        cp_text_masked(f.kind, sizeof f.kind,
                       json_string_value(json_object_get(item, "kind")));
        f.severity =
            cp_severity_named(json_string_value(json_object_get(item, "severity")));
        join_nodes(json_object_get(item, "nodes"), f.nodes, sizeof f.nodes);
        cp_text_masked(f.message, sizeof f.message,
                       json_string_value(json_object_get(item, "message")));
        fn(&f, arg);
    }
    rc = (int)json_array_size(findings);
out:
    json_decref(root);
    return rc;
}
