/* cp_error.h - how the analysis library reports what went wrong.
 *
 * The library never prints.  Functions that can fail return 0 / -1 (or NULL)
 * and, when given a non-NULL struct cp_error, fill it with one sentence that
 * names the file, the offset or the key; the caller decides what to print.
 * The one convention of the analyzer, reports and the SPANK plugin (the
 * shim, which includes nothing of the analyzer, fills a char buffer).
 */
#ifndef COLLPROF_CP_ERROR_H
#define COLLPROF_CP_ERROR_H

#include <stdint.h>

#define CP_ERROR_TEXT 512

struct cp_error {
    char text[CP_ERROR_TEXT]; /* one sentence, no trailing newline */
    char source[256];         /* file name or "" */
    int64_t offset;           /* byte offset in source, -1 when not relevant */
};

/* Fill err (if non-NULL).  source may be NULL; offset < 0 means none. */
void cp_error_set(struct cp_error *err, const char *source, int64_t offset,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The same, returning -1, so that an error path that has nothing to clean
 * up is one statement: `return cp_errorf(err, "...", ...);`.  cp_errorf
 * names no source and no offset; cp_errorf_at names them.  A path with
 * cleanup sets the error and goes to its one cleanup label. */
int cp_errorf(struct cp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int cp_errorf_at(struct cp_error *err, const char *source, int64_t offset,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
