/* cp_say.c - the plugin modules' error text (see cp_say.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "cp_say.h"

void cp_say(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
