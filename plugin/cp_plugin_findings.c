/* cp_plugin_findings.c - the findings of report.json, read with Jansson. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cp_plugin_findings.h"

#define REPORT_MAX (16u << 20)

const char *cp_severity_name(enum cp_severity s)
{
    static const char *const names[] = {
        [CP_SEV_NONE] = "none",
        [CP_SEV_INFO] = "info",
        [CP_SEV_WARNING] = "warning",
        [CP_SEV_CRITICAL] = "critical",
    };
    return s <= CP_SEV_CRITICAL ? names[s] : "none";
}

static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* Copy text into out, printable: control bytes become '?'. */
static void printable(char *out, size_t outlen, const char *text)
{
    snprintf(out, outlen, "%s", text ? text : "");
    sanitize(out);
}

enum cp_severity cp_severity_parse(const char *s)
{
    if (!s)
        return CP_SEV_NONE;
    if (strcmp(s, "critical") == 0)
        return CP_SEV_CRITICAL;
    if (strcmp(s, "warning") == 0)
        return CP_SEV_WARNING;
    if (strcmp(s, "info") == 0)
        return CP_SEV_INFO;
    return CP_SEV_NONE;
}

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
    sanitize(out);
}

int cp_findings_read(int dirfd, const char *name,
                     void (*fn)(const struct cp_finding *f, void *arg),
                     void *arg, struct cp_error *err)
{
    json_error_t jerr;
    json_t *root = NULL, *findings, *item;
    struct stat st;
    size_t i;
    int fd, rc = -1;

    fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return cp_errorf(err, "%s: %s", name, strerror(errno));
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        st.st_size > (off_t)REPORT_MAX) {
        cp_errorf(err, "%s is not a regular file of at most 16 MiB", name);
        goto out;
    }
    root = json_loadfd(fd, 0, &jerr);
    if (!root) {
        cp_errorf(err, "%s: line %d: %s", name, jerr.line, jerr.text);
        goto out;
    }
    findings = json_object_get(root, "findings");
    if (!json_is_array(findings)) {
        rc = 0; /* a report without findings has nothing to say */
        goto out;
    }
    json_array_foreach(findings, i, item) {
        struct cp_finding f;
        memset(&f, 0, sizeof f);
        printable(f.kind, sizeof f.kind,
                  json_string_value(json_object_get(item, "kind")));
        f.severity =
            cp_severity_parse(json_string_value(json_object_get(item, "severity")));
        join_nodes(json_object_get(item, "nodes"), f.nodes, sizeof f.nodes);
        printable(f.message, sizeof f.message,
                  json_string_value(json_object_get(item, "message")));
        fn(&f, arg);
    }
    rc = (int)json_array_size(findings);
out:
    json_decref(root);
    close(fd);
    return rc;
}
