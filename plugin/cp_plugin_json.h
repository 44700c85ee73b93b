/* cp_plugin_json.h - the analyzer's JSON documents as the plugin reads them.
 *
 * report.json and probe.json are written by the job's user (the analyzer
 * runs as that user), so the plugin opens them under the step directory's
 * descriptor without following a link, takes only a regular file of at most
 * 16 MiB, and makes every string it passes on printable.
 */
#ifndef COLLPROF_CP_PLUGIN_JSON_H
#define COLLPROF_CP_PLUGIN_JSON_H

#include <stddef.h>

#include <jansson.h>

#include "cp_error.h"

#define CP_PLUGIN_JSON_MAX (16u << 20)

/* The document `name` in the directory dirfd, parsed; NULL with one
 * sentence naming the file (and the line of a parse error) in err. */
json_t *cp_plugin_json_load(int dirfd, const char *name, struct cp_error *err);

/* Control bytes of s (below 0x20, and DEL) become '?'. */
void cp_plugin_sanitize(char *s);

/* text (NULL: "") copied into out, cut to outlen, made printable. */
void cp_plugin_printable(char *out, size_t outlen, const char *text);

#endif
