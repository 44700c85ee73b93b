/* cp_tagnames.h - names for the application's tag values of NCCL calls
 * (ncclCollConfig_t's userProfilerTag, plugin API v7), as given by
 * COLLPROF_TAGS or `--tags`: `1=forward,2=backward,3=optimizer`.
 *
 * Each entry is VALUE=NAME: VALUE an unsigned 64-bit integer (decimal, or
 * hexadecimal after 0x), NAME 1 to CP_TAGNAMES_NAME_MAX printable ASCII
 * characters other than ',' and '='.  Spaces around an entry, its value and
 * its name are ignored; an empty list names nothing.  A value given twice,
 * an entry without '=', a value that is not a number and a name that is
 * empty, too long or not printable are errors that name the entry.  Never
 * prints.
 */
#ifndef COLLPROF_CP_TAGNAMES_H
#define COLLPROF_CP_TAGNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "cp_error.h"

#define CP_TAGNAMES_NAME_MAX 64
#define CP_TAGNAMES_MAX 4096

struct cp_tagnames;

/* The names of `text` (NULL or "": none), in a new table the caller owns
 * (cp_tagnames_destroy).  NULL with err filled ("entry 2 'x=': the name is
 * empty") when text is wrong or memory ran out. */
struct cp_tagnames *cp_tagnames_parse(const char *text, struct cp_error *err);

/* The name of tag value `value`, or NULL (t NULL, or no name given).  The
 * string belongs to t. */
const char *cp_tagnames_name(const struct cp_tagnames *t, uint64_t value);

/* Names given. */
size_t cp_tagnames_count(const struct cp_tagnames *t);

/* Accepts NULL; keeps errno. */
void cp_tagnames_destroy(struct cp_tagnames *t);

#endif
