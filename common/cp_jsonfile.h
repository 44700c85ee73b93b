/* cp_jsonfile.h - the text of a JSON input read within bounds: its size
 * checked by fstat before a byte is read, then the memory its parse would
 * take counted from the text (containers, values and bytes, in one pass)
 * before the caller builds the document.  A parsed document takes up to
 * about 80 times its text (a 3-byte "{}," is an object with its table),
 * so a size alone does not bound the memory of reading it.
 * docs/security.md, "Port snapshots and probe.json".  The SPANK plugin
 * loads report.json and probe.json from its step directory's descriptor
 * (cp_jsonfile_load_at).  Never prints. */
#ifndef COLLPROF_CP_JSONFILE_H
#define COLLPROF_CP_JSONFILE_H

#include <stddef.h>

#include <jansson.h>

#include "cp_error.h"
#include "cp_path.h"

/* The bytes a parse of text (len bytes) is counted to take: 256 per
 * object or array, 64 per value, and the text's own bytes; more than
 * jansson takes for any shape of document. */
size_t cp_jsonfile_cost(const char *text, size_t len);

/* The whole text of path (opened as cp_path_open_input does, links as
 * given), NUL-terminated, in a buffer the caller frees, its length in
 * *len.  `what` names the kind of file in messages ("port snapshot").  A
 * file of more than max_bytes (by fstat: nothing is read), or whose parse
 * would cost more than max_cost, is refused with errno EFBIG; a NUL byte
 * in it is refused too.  NULL with err naming the file and errno set
 * (EFBIG: too big, which a caller may tell apart). */
char *cp_jsonfile_read(const char *path, enum cp_path_links links,
                       size_t max_bytes, size_t max_cost, const char *what,
                       size_t *len, struct cp_error *err);

/* The document `name` in the directory dirfd, parsed (the caller
 * json_decref's it): opened without following a link and without
 * blocking on a fifo, and only a regular file of at most max_bytes (a
 * whole number of MiB, as messages say) is read.  For the SPANK plugin,
 * which holds its step directory by descriptor.  NULL with one sentence
 * naming the file (and the line of a parse error) in err. */
json_t *cp_jsonfile_load_at(int dirfd, const char *name, size_t max_bytes,
                            struct cp_error *err);

#endif
