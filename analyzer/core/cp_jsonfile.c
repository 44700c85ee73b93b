/* cp_jsonfile.c - JSON inputs read within bounds (see cp_jsonfile.h). */
#include "config.h"

#include <errno.h>
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
                       size_t *len, int *too_big, struct cp_error *err)
{
    struct stat st;
    char *text = NULL;
    size_t got = 0, cost;
    ssize_t n;
    int fd;

    *too_big = 0;
    *len = 0;
    fd = cp_path_open_input_stat(path, links, &st, err);
    if (fd < 0)
        return NULL;
    if ((uint64_t)st.st_size > max_bytes) {
        *too_big = 1;
        errno = EFBIG;
        cp_error_set(err, path, -1, "%s: %lld bytes, more than a %s may have "
                     "(%zu)", path, (long long)st.st_size, what, max_bytes);
        goto fail;
    }
    text = malloc((size_t)st.st_size + 1);
    if (!text) {
        cp_error_set(err, path, -1, "%s: out of memory", path);
        goto fail;
    }
    /* what fstat said; a file still growing is read as far as that */
    while (got < (size_t)st.st_size) {
        n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cp_error_set(err, path, (int64_t)got, "%s: read error at byte "
                         "%zu: %s", path, got, strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (memchr(text, '\0', got)) {
        errno = EINVAL;
        cp_error_set(err, path, -1, "%s: binary data, not a %s", path, what);
        goto fail;
    }
    text[got] = '\0';
    cost = cp_jsonfile_cost(text, got);
    if (cost > max_cost) {
        *too_big = 1;
        errno = EFBIG;
        cp_error_set(err, path, -1, "%s: %zu bytes whose parse would take "
                     "about %zu MiB, more than a %s may (%zu MiB)", path, got,
                     cost >> 20, what, max_cost >> 20);
        goto fail;
    }
    *len = got;
    close(fd);
    return text;
fail:
    free(text);
    close(fd);
    return NULL;
}
