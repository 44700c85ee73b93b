/* cp_path.h - small file-system helpers shared by the collprof commands. */
#ifndef COLLPROF_CP_PATH_H
#define COLLPROF_CP_PATH_H

#include <stdio.h>
#include <sys/types.h>

#include "cp_error.h"

/* mkdir -p: create path and its missing parents with mode (existing ones
 * are fine).  Returns 0, or -1 with errno set (ENAMETOOLONG past PATH_MAX). */
int cp_path_mkdir(const char *path, mode_t mode);

/* Finish a file written to tmp and move it to path: a write error on f,
 * its close, or the rename fill err (naming tmp / path) and remove tmp;
 * so does a path that exists and is not a regular file (a device or a
 * fifo is never replaced).
 * f may be NULL when tmp was written and closed by other means; f is
 * closed in every case.  Returns 0 or -1. */
int cp_path_install(FILE *f, const char *tmp, const char *path,
                    struct cp_error *err);

#endif
