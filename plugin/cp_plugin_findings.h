/* cp_plugin_findings.h - the findings of a report.json, for syslog and the
 * alert.
 *
 * Reads the `findings` array of the analyzer's report (docs/report-schema.md:
 * objects with kind, severity, nodes, ranks, message).  Every string is
 * made printable (control characters become '?') and cut to its field, since
 * node names and messages come from logs the job's user wrote.
 */
#ifndef COLLPROF_CP_PLUGIN_FINDINGS_H
#define COLLPROF_CP_PLUGIN_FINDINGS_H

#include <stddef.h>

#include "cp_error.h"
#include "cp_kinds.h"

/* report.json and probe.json are written by the job's user (the analyzer
 * runs as that user): the plugin reads at most this much of either. */
#define CP_PLUGIN_JSON_MAX (16u << 20)

struct cp_finding {
    char kind[48];
    enum cp_severity severity;
    char nodes[160];   /* "n2,n3" */
    char message[384];
};

/* Call fn for each finding of the report `name` in the directory dirfd
 * (opened without following a link; at most 16 MiB).  Returns the number of
 * findings, or -1 with one sentence in err. */
int cp_findings_read(int dirfd, const char *name,
                     void (*fn)(const struct cp_finding *f, void *arg),
                     void *arg, struct cp_error *err);

#endif
