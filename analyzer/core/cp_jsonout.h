/* cp_jsonout.h - the small helpers every writer of a JSON document shares
 * (report.json, findings, the slowdown windows, port snapshots, probe.json,
 * collprof model --json): one definition each.  The reading side is
 * cp_jsoncheck.
 */
#ifndef COLLPROF_CP_JSONOUT_H
#define COLLPROF_CP_JSONOUT_H

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

/* obj[key] = value (stolen), counting failures: *bad becomes 1 when obj
 * or value is NULL (out of memory) or the set fails; value is never
 * leaked.  One check of *bad at the end covers a whole document. */
static inline void put(json_t *obj, const char *key, json_t *value, int *bad)
{
    if (!obj) {
        json_decref(value);
        *bad = 1;
    } else if (!value || json_object_set_new(obj, key, value) < 0) {
        *bad = 1; /* set_new took the reference even when failing */
    }
}

/* The same for appending to an array. */
static inline void push(json_t *arr, json_t *value, int *bad)
{
    if (!arr) {
        json_decref(value);
        *bad = 1;
    } else if (!value || json_array_append_new(arr, value) < 0) {
        *bad = 1;
    }
}

/* A communicator id as 16 hex digits. */
static inline json_t *hex_id(uint64_t id)
{
    char buf[24];

    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)id);
    return json_string(buf);
}

#endif
