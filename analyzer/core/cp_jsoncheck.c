/* cp_jsoncheck.c - the checked reader of collprof's JSON documents (see
 * cp_jsoncheck.h). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cp_jsoncheck.h"

#define PATH_LEN 192

void cp_jsoncheck_init(struct cp_jsoncheck *c, struct cp_error *err,
                       const char *file, int digits)
{
    c->err = err;
    c->file = file;
    c->digits = digits;
    c->bad = 0;
}

int cp_jsoncheck_fail(struct cp_jsoncheck *c, const char *fmt, ...)
{
    char text[CP_ERROR_TEXT];
    va_list ap;

    if (c->bad)
        return -1;
    c->bad = 1;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->file)
        cp_error_set(c->err, c->file, -1, "%s: %s", c->file, text);
    else
        cp_error_set(c->err, NULL, -1, "%s", text);
    return -1;
}

const char *cp_jsoncheck_type_name(const json_t *v)
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
    case JSON_NULL:
    default:
        return "null";
    }
}

double cp_jsoncheck_number(const struct cp_jsoncheck *c, const json_t *v)
{
    char text[40];

    if (json_is_integer(v))
        return (double)json_integer_value(v);
    if (!json_is_real(v))
        return NAN;
    if (c->digits <= 0)
        return json_real_value(v);
    /* reading every number at the precision it was written with makes the
     * page of a document in memory the page of its saved file, even where
     * a value sits on a rounding boundary */
    snprintf(text, sizeof text, "%.*g", c->digits, json_real_value(v));
    return strtod(text, NULL);
}

/* "where.key", or "key" at the top. */
static const char *path_of(const char *where, const char *key, char *buf,
                           size_t size)
{
    snprintf(buf, size, "%s%s%s", where, where[0] ? "." : "", key);
    return buf;
}

json_t *cp_jsoncheck_member(struct cp_jsoncheck *c, json_t *obj,
                            const char *where, const char *key, int required)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    char path[PATH_LEN];

    if (!v && required && obj)
        cp_jsoncheck_fail(c, "key '%s' is missing",
                          path_of(where, key, path, sizeof path));
    return v;
}

void cp_jsoncheck_wrong_type(struct cp_jsoncheck *c, const char *where,
                             const char *key, const char *want, const json_t *v)
{
    char path[PATH_LEN];

    cp_jsoncheck_fail(c, "key '%s' should be %s, not %s",
                      path_of(where, key, path, sizeof path), want,
                      cp_jsoncheck_type_name(v));
}

static int is_string(const json_t *v) { return json_is_string(v); }
static int is_number(const json_t *v) { return json_is_number(v); }
static int is_integer(const json_t *v) { return json_is_integer(v); }
static int is_object(const json_t *v) { return json_is_object(v); }

/* obj[key] when it passes is_ok; NULL when missing or null, or (after the
 * failure, "should be WANT") when it does not. */
static json_t *scalar(struct cp_jsoncheck *c, json_t *obj, const char *where,
                      const char *key, int required,
                      int (*is_ok)(const json_t *), const char *want)
{
    json_t *v = cp_jsoncheck_member(c, obj, where, key, required);

    if (!v || json_is_null(v))
        return NULL;
    if (!is_ok(v)) {
        cp_jsoncheck_wrong_type(c, where, key, want, v);
        return NULL;
    }
    return v;
}

double cp_jsoncheck_num(struct cp_jsoncheck *c, json_t *obj, const char *where,
                        const char *key, int required)
{
    json_t *v =
        scalar(c, obj, where, key, required, is_number, "a number or null");

    return v ? cp_jsoncheck_number(c, v) : NAN;
}

long long cp_jsoncheck_int(struct cp_jsoncheck *c, json_t *obj,
                           const char *where, const char *key, int required,
                           long long dflt)
{
    json_t *v =
        scalar(c, obj, where, key, required, is_integer, "an integer or null");

    return v ? (long long)json_integer_value(v) : dflt;
}

const char *cp_jsoncheck_str(struct cp_jsoncheck *c, json_t *obj,
                             const char *where, const char *key, int required)
{
    json_t *v = cp_jsoncheck_member(c, obj, where, key, required);

    if (!v || (!required && json_is_null(v)))
        return required ? "" : NULL;
    if (!json_is_string(v)) {
        cp_jsoncheck_wrong_type(c, where, key, "a string", v);
        return required ? "" : NULL;
    }
    return json_string_value(v);
}

json_t *cp_jsoncheck_typed(struct cp_jsoncheck *c, json_t *obj,
                           const char *where, const char *key, int required,
                           json_type type)
{
    json_t *v = cp_jsoncheck_member(c, obj, where, key, required);

    if (!v || (!required && json_is_null(v)))
        return NULL;
    if (json_typeof(v) != type) {
        cp_jsoncheck_wrong_type(
            c, where, key, type == JSON_OBJECT ? "an object" : "an array", v);
        return NULL;
    }
    return v;
}

int cp_jsoncheck_bool(struct cp_jsoncheck *c, json_t *obj, const char *where,
                      const char *key)
{
    json_t *v = cp_jsoncheck_member(c, obj, where, key, 0);

    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v)) {
        cp_jsoncheck_wrong_type(c, where, key, "a boolean or null", v);
        return 0;
    }
    return json_is_true(v);
}

/* Each element of array `key` must pass is_ok; returns the array. */
static json_t *elements(struct cp_jsoncheck *c, json_t *obj, const char *where,
                        const char *key, int required,
                        int (*is_ok)(const json_t *), const char *want)
{
    json_t *a = cp_jsoncheck_typed(c, obj, where, key, required, JSON_ARRAY);
    json_t *v;
    char path[PATH_LEN];
    size_t i;

    json_array_foreach(a, i, v)
    {
        if (!is_ok(v)) {
            cp_jsoncheck_fail(c, "key '%s[%zu]' should be %s, not %s",
                              path_of(where, key, path, sizeof path), i, want,
                              cp_jsoncheck_type_name(v));
            return NULL;
        }
    }
    return a;
}

json_t *cp_jsoncheck_list(struct cp_jsoncheck *c, json_t *obj,
                          const char *where, const char *key, int required,
                          int want_int)
{
    return elements(c, obj, where, key, required,
                    want_int ? is_integer : is_string,
                    want_int ? "an integer" : "a string");
}

json_t *cp_jsoncheck_objects(struct cp_jsoncheck *c, json_t *obj,
                             const char *where, const char *key, int required)
{
    return elements(c, obj, where, key, required, is_object, "an object");
}
