/* cp_path.c - small file-system helpers. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "cp_path.h"

int cp_path_mkdir(const char *path, mode_t mode)
{
    char buf[PATH_MAX];
    size_t i, n = strlen(path);

    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return -1;
        buf[i] = path[i];
    }
    return 0;
}

int cp_path_install(FILE *f, const char *tmp, const char *path,
                    struct cp_error *err)
{
    struct stat st;
    int bad = f && ferror(f);

    if (f && fclose(f) != 0)
        bad = 1;
    if (bad) {
        cp_error_set(err, path, -1, "cannot write %s: %s", tmp,
                     strerror(errno ? errno : EIO));
        unlink(tmp);
        return -1;
    }
    /* a device, fifo or socket named as the output is not replaced by a
     * file (as root, -o /dev/null would otherwise lose the device) */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        cp_error_set(err, path, -1,
                     "%s exists and is not a regular file; not replaced "
                     "(give a file name)", path);
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) < 0) {
        cp_error_set(err, path, -1, "cannot rename %s to %s: %s", tmp, path,
                     strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
