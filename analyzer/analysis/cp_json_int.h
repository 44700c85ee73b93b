/* cp_json_int.h - the small JSON helpers that the analysis's writers
 * (report.json in cp_report.c, findings in cp_findings.c, the slowdown
 * windows in cp_slowdown.c) share: one definition each.  Internal to
 * analyzer/analysis.
 */
#ifndef COLLPROF_CP_JSON_INT_H
#define COLLPROF_CP_JSON_INT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* A real or null (JSON has no NaN). */
static inline json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* obj[key] = value (stolen); -1 when value is NULL (out of memory) or the
 * set fails. */
static inline int set(json_t *obj, const char *key, json_t *value)
{
    return value ? json_object_set_new(obj, key, value) : -1;
}

/* A communicator id as 16 hex digits. */
static inline json_t *hex_id(uint64_t id)
{
    char buf[24];

    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)id);
    return json_string(buf);
}

#endif
