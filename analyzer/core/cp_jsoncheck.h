/* cp_jsoncheck.h - the checked reader of collprof's JSON documents.
 *
 * report.json, bench.json and probe.json are read through typed getters
 * that name the key on error ("key 'summary.comm_time_s' should be a
 * number or null, not a string"), so that a bad document fails with the
 * path of what is wrong before anything is written from it.  A reader
 * keeps one struct cp_jsoncheck for the whole document: the first problem
 * goes into its struct cp_error, later ones are dropped, and `bad` tells the
 * reader to stop.  Each getter takes the path of the object it reads from
 * (`where`, "" at the top) and the key; a getter called on a NULL object
 * (a parent that was missing or wrong) returns the missing value without
 * another error.
 *
 * Used by reports/ (every page's view) and analyzer/logs (probe.json read
 * back for the analysis).  Never prints.
 */
#ifndef COLLPROF_CP_JSONCHECK_H
#define COLLPROF_CP_JSONCHECK_H

#include <stddef.h>

#include <jansson.h>

#include "cp_error.h"

struct cp_jsoncheck {
    struct cp_error *err; /* the first problem; may be NULL */
    const char *file;     /* named before each message; NULL: none */
    int digits;           /* significant digits numbers are read at; 0: all */
    int bad;              /* a problem was found */
};

/* A checker that fills err (may be NULL) with messages led by "FILE: "
 * when file is not NULL; numbers read at `digits` significant digits (the
 * precision a document was written with, so that a page from memory and a
 * page from the saved file agree), or as stored when 0. */
void cp_jsoncheck_init(struct cp_jsoncheck *c, struct cp_error *err,
                       const char *file, int digits);

/* Records a problem (the first one only); returns -1. */
__attribute__((format(printf, 2, 3))) int
cp_jsoncheck_fail(struct cp_jsoncheck *c, const char *fmt, ...);

/* "an object", "an array", "a string", "a number", "a boolean" or "null". */
const char *cp_jsoncheck_type_name(const json_t *v);

/* v as a number at the checker's precision; NaN when v is not a number. */
double cp_jsoncheck_number(const struct cp_jsoncheck *c, const json_t *v);

/* obj[key]; a required key that is missing fails ("key 'W.K' is missing"). */
json_t *cp_jsoncheck_member(struct cp_jsoncheck *c, json_t *obj,
                            const char *where, const char *key, int required);

/* Fails with "key 'W.K' should be WANT, not <the type of v>". */
void cp_jsoncheck_wrong_type(struct cp_jsoncheck *c, const char *where,
                             const char *key, const char *want,
                             const json_t *v);

/* A number or null (NaN when null or missing). */
double cp_jsoncheck_num(struct cp_jsoncheck *c, json_t *obj, const char *where,
                        const char *key, int required);

/* An integer, or dflt when missing or null (a number with a fraction, or
 * anything else, fails). */
long long cp_jsoncheck_int(struct cp_jsoncheck *c, json_t *obj,
                           const char *where, const char *key, int required,
                           long long dflt);

/* A string: "" when required and missing or wrong (after the failure);
 * NULL when optional and missing, null or wrong. */
const char *cp_jsoncheck_str(struct cp_jsoncheck *c, json_t *obj,
                             const char *where, const char *key, int required);

/* A value of JSON type `type` (JSON_OBJECT or JSON_ARRAY); NULL when
 * missing, when optional and null, or wrong. */
json_t *cp_jsoncheck_typed(struct cp_jsoncheck *c, json_t *obj,
                           const char *where, const char *key, int required,
                           json_type type);

/* true, false, null or missing (0); anything else fails. */
int cp_jsoncheck_bool(struct cp_jsoncheck *c, json_t *obj, const char *where,
                      const char *key);

/* An array whose elements are all strings (want_int 0) or integers. */
json_t *cp_jsoncheck_list(struct cp_jsoncheck *c, json_t *obj,
                          const char *where, const char *key, int required,
                          int want_int);

/* An array whose elements are all objects. */
json_t *cp_jsoncheck_objects(struct cp_jsoncheck *c, json_t *obj,
                             const char *where, const char *key, int required);

#endif
