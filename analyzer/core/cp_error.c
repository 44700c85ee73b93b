/* cp_error.c - filling struct cp_error. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cp_error.h"

static void fill(struct cp_error *err, const char *source, int64_t offset,
                 const char *fmt, va_list ap)
{
    if (!err)
        return;
    snprintf(err->source, sizeof err->source, "%s", source ? source : "");
    err->offset = offset;
    vsnprintf(err->text, sizeof err->text, fmt, ap);
}

void cp_error_set(struct cp_error *err, const char *source, int64_t offset,
                  const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fill(err, source, offset, fmt, ap);
    va_end(ap);
}

int cp_errorf(struct cp_error *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fill(err, NULL, -1, fmt, ap);
    va_end(ap);
    return -1;
}

int cp_errorf_at(struct cp_error *err, const char *source, int64_t offset,
                 const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fill(err, source, offset, fmt, ap);
    va_end(ap);
    return -1;
}
