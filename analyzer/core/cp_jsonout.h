/* cp_jsonout.h - the small helpers every writer of a JSON document shares
 * (report.json, findings, the slowdown windows, port snapshots, probe.json,
 * bench.json, collprof model --json): one definition each, and the one
 * convention of JSON builders below.  The reading side is cp_jsoncheck.
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

/* The one convention of collprof's JSON builders.  Building a document
 * fails only when memory runs out, and Jansson already says so with NULL
 * (json_object(), json_string(), ...).  So a function that builds a value
 * returns it as a new reference, or NULL when memory ran out; it carries no
 * error channel.  Inside it, every set() and add() steals its value
 * whatever happens (none is leaked) and returns -1 on a NULL value or
 * container; the builder ORs their results into one local `int bad` and
 * ends with `return built(o, bad);` (or, where it stops at the first
 * failure, chains them, `if (set(...) < 0 || set(...) < 0)`, and frees
 * what it built), so that a NULL from any builder below reaches the top.  The function that hands a document over (for example
 * cp_analysis_to_json) returns NULL, and the command says "out of memory".
 * A builder that writes into its caller's object (fills it instead of
 * returning a value) returns 0 or -1 the same way. */

/* obj[key] = value (stolen); -1 when value is NULL (out of memory) or the
 * set fails. */
static inline int set(json_t *obj, const char *key, json_t *value)
{
    return value ? json_object_set_new(obj, key, value) : -1;
}

/* The same for appending to an array. */
static inline int add(json_t *arr, json_t *value)
{
    return json_array_append_new(arr, value);
}

/* The end of a builder: o, or NULL (o freed) when bad says that something
 * failed. */
static inline json_t *built(json_t *o, int bad)
{
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A communicator id as 16 hex digits. */
static inline json_t *hex_id(uint64_t id)
{
    char buf[24];

    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)id);
    return json_string(buf);
}

#endif
