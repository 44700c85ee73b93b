/* ts_expect.c - the --expect CSV (see ts_expect.h). */
#include "ts_expect.h"

#include <errno.h>
#include <string.h>

int
ts_expect_path(const char *template, int rank, char *path, size_t len,
               char *err, size_t errlen)
{
    char rank_text[16];
    size_t out = 0;
    int rank_seen = 0;
    int rc = -1;

    snprintf(rank_text, sizeof rank_text, "%d", rank);
    for (const char *p = template; *p != '\0'; p++) {
        const char *piece = p;
        size_t piece_len = 1;
        if (*p == '%') {
            if (p[1] == '%') {
                p++;
            } else if (p[1] == 'd' && !rank_seen) {
                piece = rank_text;
                piece_len = strlen(rank_text);
                rank_seen = 1;
                p++;
            } else {
                snprintf(err, errlen,
                         "--expect %s: only one %%d (the rank) and %%%% may "
                         "follow a %%",
                         template);
                goto out;
            }
        }
        if (out + piece_len >= len) {
            snprintf(err, errlen, "--expect %s: the file name is too long",
                     template);
            goto out;
        }
        memcpy(path + out, piece, piece_len);
        out += piece_len;
    }
    if (!rank_seen) {
        snprintf(err, errlen,
                 "--expect %s: the name needs a %%d for the rank, so that "
                 "ranks write different files",
                 template);
        goto out;
    }
    path[out] = '\0';
    rc = 0;
out:
    return rc;
}

FILE *
ts_expect_open(const char *template, int rank, char *err, size_t errlen)
{
    char path[4096];
    FILE *stream = NULL;

    if (ts_expect_path(template, rank, path, sizeof path, err, errlen) < 0)
        goto out;
    stream = fopen(path, "w");
    if (stream == NULL) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        goto out;
    }
    fputs("op,count,dtype,peer,comm,seq\n", stream);
out:
    return stream;
}

void
ts_expect_record(FILE *stream, const char *op, size_t count, int dtype,
                 int peer, const char *comm, uint64_t seq)
{
    fprintf(stream, "%s,%zu,%d,%d,%s,%llu\n", op, count, dtype, peer, comm,
            (unsigned long long)seq);
}

int
ts_expect_close(FILE *stream)
{
    int failed = ferror(stream);

    if (fclose(stream) != 0)
        return -1;
    if (failed) {
        errno = EIO; /* the failed write's own errno is long gone */
        return -1;
    }
    return 0;
}
