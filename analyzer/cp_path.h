/* cp_path.h - small file-system helpers shared by the collprof commands. */
#ifndef COLLPROF_CP_PATH_H
#define COLLPROF_CP_PATH_H

#include <sys/types.h>

/* mkdir -p: create path and its missing parents with mode (existing ones
 * are fine).  Returns 0, or -1 with errno set (ENAMETOOLONG past PATH_MAX). */
int cp_path_mkdir(const char *path, mode_t mode);

#endif
