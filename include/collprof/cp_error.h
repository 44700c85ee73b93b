/* cp_error.h - how collprof's code reports what went wrong: the one error
 * convention of the shim, NCCL's profiler plugin, the analyzer, reports and
 * the SPANK plugin.
 *
 * Library code never prints.  Functions that can fail return 0 / -1 (or
 * NULL) and, when given a non-NULL struct cp_error, fill it with one
 * sentence that names the file, the offset or the key; the caller decides
 * what to print.  An error path with nothing to clean up is one statement,
 * `return cp_errorf(err, "...", ...);`; a path with cleanup sets the error
 * and goes to its one cleanup label.
 *
 * Header-only (include/collprof may be included by every layer): the shim
 * (preload/) uses it without linking anything of the analyzer.  Filling an
 * error never allocates, never locks and keeps errno.
 */
#ifndef COLLPROF_CP_ERROR_H
#define COLLPROF_CP_ERROR_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define CP_ERROR_TEXT 512

struct cp_error {
    char text[CP_ERROR_TEXT]; /* one sentence, no trailing newline */
    char source[256];         /* file name or "" */
    int64_t offset;           /* byte offset in source, -1 when not relevant */
};

static inline void cp_error_vfill(struct cp_error *err, const char *source,
                                  int64_t offset, const char *fmt, va_list ap)
{
    int saved = errno;

    if (err) {
        snprintf(err->source, sizeof err->source, "%s", source ? source : "");
        err->offset = offset;
        vsnprintf(err->text, sizeof err->text, fmt, ap);
    }
    errno = saved;
}

/* Fill err (if non-NULL).  source may be NULL; offset < 0 means none. */
static inline void cp_error_set(struct cp_error *err, const char *source,
                                int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void cp_error_set(struct cp_error *err, const char *source,
                                int64_t offset, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cp_error_vfill(err, source, offset, fmt, ap);
    va_end(ap);
}

/* The same, returning -1.  cp_errorf names no source and no offset;
 * cp_errorf_at names them. */
static inline int cp_errorf(struct cp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int cp_errorf(struct cp_error *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cp_error_vfill(err, NULL, -1, fmt, ap);
    va_end(ap);
    return -1;
}

static inline int cp_errorf_at(struct cp_error *err, const char *source,
                               int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int cp_errorf_at(struct cp_error *err, const char *source,
                               int64_t offset, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cp_error_vfill(err, source, offset, fmt, ap);
    va_end(ap);
    return -1;
}

#endif
