/* cp_error.c - filling struct cp_error. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cp_error.h"

void cp_error_set(struct cp_error *err, const char *source, int64_t offset,
                  const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return;
    snprintf(err->source, sizeof err->source, "%s", source ? source : "");
    err->offset = offset;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
}
