/* cp_plugin_json.c - bounded, link-refusing reads of the analyzer's JSON. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_plugin_json.h"

json_t *cp_plugin_json_load(int dirfd, const char *name, struct cp_error *err)
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
        st.st_size > (off_t)CP_PLUGIN_JSON_MAX) {
        cp_errorf(err, "%s is not a regular file of at most 16 MiB", name);
        goto out;
    }
    root = json_loadfd(fd, 0, &jerr);
    if (!root)
        cp_errorf(err, "%s: line %d: %s", name, jerr.line, jerr.text);
out:
    close(fd);
    return root;
}

void cp_plugin_sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

void cp_plugin_printable(char *out, size_t outlen, const char *text)
{
    snprintf(out, outlen, "%s", text ? text : "");
    cp_plugin_sanitize(out);
}
