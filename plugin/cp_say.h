/* cp_say.h - the plugin modules' one error-text writer.  The modules below
 * the SPANK boundary (cp_args, cp_stepdir, cp_plugin_probe) never print:
 * they put one sentence (no "collprof: " prefix) into the caller's buffer,
 * which the SPANK boundary prints. */
#ifndef COLLPROF_CP_SAY_H
#define COLLPROF_CP_SAY_H

#include <stddef.h>

/* Format into err (errlen bytes, always terminated); nothing when err is
 * NULL or errlen 0. */
void cp_say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
