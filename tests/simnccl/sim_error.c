/* sim_error.c - per-thread last error text, optional debug output. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sim_error.h"

static __thread char last_error[512];

/* Read the environment each time: errors are rare, and a test may change
 * the variable between calls. */
static int debug_enabled(void)
{
    const char *s = getenv("SIMNCCL_DEBUG");
    const char *n = getenv("NCCL_DEBUG");

    if (s && *s && strcmp(s, "0") != 0)
        return 1;
    return n && (strcasecmp(n, "WARN") == 0 || strcasecmp(n, "INFO") == 0 ||
                 strcasecmp(n, "TRACE") == 0);
}

ncclResult_t sim_error(ncclResult_t result, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    if (debug_enabled())
        fprintf(stderr, "simnccl: pid %ld: %s\n", (long)getpid(),
                last_error);
    return result;
}

const char *sim_error_last(void)
{
    return last_error;
}
