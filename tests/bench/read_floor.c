/* read_floor.c - what reading a job's logs costs before any analysis.
 *
 * collprof analyze reads every log of a directory in turns, each log's
 * next buffer in its turn, with a fixed memory budget for all buffers
 * together (analyzer/analysis/cp_analysis.c: 32 MiB divided among the
 * files, at least 4 KiB and at most 64 KiB a file).  With thousands of
 * logs, the kernel's part of that (an open, an fstat and a read per turn
 * per file, on structures that are cold again at each turn) grows with the
 * number of files whatever the analysis does.  This program does only
 * that: it lists DIR, opens every *.cplog the way the analyzer does
 * (cp_path_open_input_stat: no link followed, O_NOATIME, fstat) and reads
 * all of them to the end in turns with the analyzer's buffer sizes
 * (cp_scan.h's budget); no record is looked at.  tests/bench/run-analyze.sh runs it beside
 * the analyzer at each rank count, so that the cost per record the
 * analysis adds can be told from the cost of reading at all.
 *
 * usage: read_floor DIR
 * Prints one line: cpu_s user_s sys_s files bytes buffer_bytes
 * Exit 1 on an error (named on stderr), 2 on bad usage.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_path.h"
#include "cp_scan.h"

struct input {
    const char *path; /* cp_logdir_list's */
    int fd; /* -1 when closed between turns (not enough descriptors) */
    off_t off;
    int done;
};

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Open a log as the analyzer does; -1 with the reason on stderr. */
static int open_log(const char *path)
{
    struct cp_error err;
    struct stat st;
    int fd = cp_path_open_input_stat(path, CP_PATH_NOFOLLOW, &st, &err);

    if (fd < 0)
        fprintf(stderr, "read_floor: %s\n", err.text);
    return fd;
}

int main(int argc, char **argv)
{
    struct input *in = NULL;
    struct cp_error err;
    char **paths = NULL;
    size_t n = 0, i, buf_size, live;
    struct rlimit rl;
    struct rusage ru;
    char *arena = NULL;
    long long bytes = 0;
    int keep_fds, count, rc = 1;

    if (argc != 2) {
        fprintf(stderr, "usage: read_floor DIR\n");
        return 2;
    }
    /* the logs the analyzer would list */
    count = cp_logdir_list(argv[1], &paths, &err);
    if (count <= 0) {
        fprintf(stderr, "read_floor: %s\n",
                count < 0 ? err.text : "no *.cplog there");
        goto out;
    }
    n = (size_t)count;
    if (!(in = calloc(n, sizeof *in)))
        goto oom;
    for (i = 0; i < n; i++) {
        in[i].path = paths[i];
        in[i].fd = -1;
    }
    /* a file's share of the scans' budget, as cp_analysis.c divides it */
    buf_size = CP_SCAN_BUDGET / n;
    buf_size = buf_size < CP_SCAN_BUFFER_MIN ? CP_SCAN_BUFFER_MIN
               : buf_size > CP_SCAN_BUFFER   ? CP_SCAN_BUFFER
                                             : buf_size - buf_size % CP_LOG_RECORD_SIZE;
    /* a descriptor per file when the limit allows (as the analyzer) */
    keep_fds = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t need = (rlim_t)n + 64;
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need &&
            (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need)) {
            rl.rlim_cur = need;
            (void)setrlimit(RLIMIT_NOFILE, &rl);
        }
        keep_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
                   (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need);
    }
    if (posix_memalign((void **)&arena, (size_t)2 << 20, buf_size * n) != 0)
        goto oom;
#ifdef MADV_HUGEPAGE
    (void)madvise(arena, buf_size * n, MADV_HUGEPAGE); /* as the analyzer */
#endif
    for (i = 0; i < n; i++) {
        int fd = open_log(in[i].path);
        if (fd < 0)
            goto out;
        if (keep_fds)
            in[i].fd = fd;
        else
            close(fd);
    }
    do {
        live = 0;
        for (i = 0; i < n; i++) {
            ssize_t got;
            int fd = in[i].fd;
            if (in[i].done)
                continue;
            if (fd < 0 && (fd = open_log(in[i].path)) < 0)
                goto out;
            got = pread(fd, arena + i * buf_size, buf_size, in[i].off);
            if (got < 0) {
                fprintf(stderr, "read_floor: %s: offset %lld: %s\n",
                        in[i].path, (long long)in[i].off, strerror(errno));
                if (!keep_fds)
                    close(fd);
                goto out;
            }
            in[i].off += got;
            bytes += got;
            if ((size_t)got < buf_size) {
                in[i].done = 1;
                close(fd);
                in[i].fd = -1;
            } else {
                live++;
                if (!keep_fds)
                    close(fd);
            }
        }
    } while (live);
    getrusage(RUSAGE_SELF, &ru);
    printf("%.4f %.4f %.4f %zu %lld %zu\n",
           seconds(ru.ru_utime) + seconds(ru.ru_stime), seconds(ru.ru_utime),
           seconds(ru.ru_stime), n, bytes, buf_size);
    rc = 0;
    goto out;
oom:
    fprintf(stderr, "read_floor: out of memory\n");
out:
    for (i = 0; in && i < n; i++)
        if (in[i].fd >= 0)
            close(in[i].fd);
    free(in);
    if (paths)
        cp_logdir_free(paths);
    free(arena);
    return rc;
}
