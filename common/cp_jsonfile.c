/* cp_jsonfile.c - JSON inputs read within bounds (see cp_jsonfile.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_jsonfile.h"

#define COST_CONTAINER 256u
#define COST_VALUE 64u

size_t cp_jsonfile_cost(const char *text, size_t len)
{
    uint64_t containers = 0, values = 1;
    size_t i;
    int in_string = 0;

    for (i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++; /* the escaped character is part of the string */
            else if (c == '"')
                in_string = 0;
            continue;
        }
        if (c == '"')
            in_string = 1;
        else if (c == '{' || c == '[')
            containers++;
        else if (c == ',' || c == ':')
            values++;
    }
    if (containers > (SIZE_MAX - len) / (2 * COST_CONTAINER) ||
        values > (SIZE_MAX - len) / (2 * COST_VALUE))
        return SIZE_MAX;
    return (size_t)(containers * COST_CONTAINER + values * COST_VALUE) + len;
}

char *cp_jsonfile_read(const char *path, enum cp_path_links links,
                       size_t max_bytes, size_t max_cost, const char *what,
                       size_t *len, struct cp_error *err)
{
    char *text;
    size_t cost;

    *len = 0;
    text = cp_path_read_text(path, links, max_bytes, what, len, err);
    if (!text)
        return NULL; /* errno EFBIG: over max_bytes */
    cost = cp_jsonfile_cost(text, *len);
    if (cost > max_cost) {
        cp_error_set(err, path, -1, "%s: %zu bytes whose parse would take "
                     "about %zu MiB, more than a %s may (%zu MiB)", path, *len,
                     cost >> 20, what, max_cost >> 20);
        free(text);
        *len = 0;
        errno = EFBIG;
        return NULL;
    }
    return text;
}

json_t *cp_jsonfile_load_at(int dirfd, const char *name, size_t max_bytes,
                            struct cp_error *err)
{
    json_error_t jerr;
    json_t *root = NULL;
    struct stat st;
    int fd;

    fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        cp_errorf(err, "%s: %s", name, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > max_bytes) {
        cp_errorf(err, "%s is not a regular file of at most %zu MiB", name,
                  max_bytes >> 20);
        goto out;
    }
    root = json_loadfd(fd, 0, &jerr);
    if (!root)
        cp_errorf(err, "%s: line %d: %s", name, jerr.line, jerr.text);
out:
    close(fd);
    return root;
}
