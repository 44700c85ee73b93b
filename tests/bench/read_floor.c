/* read_floor.c - what reading a job's logs costs before any analysis.
 *
 * collprof analyze reads every log of a directory in turns, each log's
 * next buffer in its turn, with a fixed memory budget for all buffers
 * together (analyzer/analysis/cp_analysis.c: 32 MiB divided among the
 * files, at least 4 KiB and at most 64 KiB a file).  With thousands of
 * logs, the kernel's part of that (an open, an fstat and a read per turn
 * per file, on structures that are cold again at each turn) grows with the
 * number of files whatever the analysis does.  This program does only
 * that: it lists DIR, opens every *.cplog (O_NOATIME, as the analyzer),
 * and reads all of them to the end in turns with the analyzer's buffer
 * sizes; no record is looked at.  tests/bench/run-analyze.sh runs it beside
 * the analyzer at each rank count, so that the cost per record the
 * analysis adds can be told from the cost of reading at all.
 *
 * usage: read_floor DIR
 * Prints one line: cpu_s user_s sys_s files bytes buffer_bytes
 * Exit 1 on an error (named on stderr), 2 on bad usage.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUDGET ((size_t)32 << 20)
#define BUFFER_MIN ((size_t)4096)
#define BUFFER_MAX ((size_t)64 << 10)

struct input {
    char *name;
    int fd; /* -1 when closed between turns (not enough descriptors) */
    off_t off;
    int done;
};

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int is_log(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 6 && strcmp(name + n - 6, ".cplog") == 0;
}

static int open_log(int dir, const char *name)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM)
        fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    return fd;
}

int main(int argc, char **argv)
{
    struct input *in = NULL;
    size_t n = 0, cap = 0, i, buf_size, live;
    struct rlimit rl;
    struct rusage ru;
    struct dirent *e;
    DIR *d;
    char *arena = NULL;
    long long bytes = 0;
    int dir, keep_fds, rc = 1;

    if (argc != 2) {
        fprintf(stderr, "usage: read_floor DIR\n");
        return 2;
    }
    dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || !(d = fdopendir(dup(dir)))) {
        fprintf(stderr, "read_floor: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        if (!is_log(e->d_name))
            continue;
        if (n == cap) {
            struct input *bigger;
            cap = cap ? 2 * cap : 1024;
            bigger = realloc(in, cap * sizeof *in);
            if (!bigger)
                goto oom;
            in = bigger;
        }
        in[n].name = strdup(e->d_name);
        if (!in[n].name)
            goto oom;
        in[n].fd = -1;
        in[n].off = 0;
        in[n].done = 0;
        n++;
    }
    closedir(d);
    if (n == 0) {
        fprintf(stderr, "read_floor: %s: no *.cplog\n", argv[1]);
        goto out;
    }
    buf_size = BUDGET / n;
    buf_size = buf_size < BUFFER_MIN   ? BUFFER_MIN
               : buf_size > BUFFER_MAX ? BUFFER_MAX
                                       : buf_size & ~(BUFFER_MIN - 1);
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
        struct stat st;
        int fd = open_log(dir, in[i].name);
        if (fd < 0 || fstat(fd, &st) < 0) {
            fprintf(stderr, "read_floor: %s/%s: %s\n", argv[1], in[i].name,
                    strerror(errno));
            goto out;
        }
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
            if (fd < 0 && (fd = open_log(dir, in[i].name)) < 0) {
                fprintf(stderr, "read_floor: %s/%s: %s\n", argv[1],
                        in[i].name, strerror(errno));
                goto out;
            }
            got = pread(fd, arena + i * buf_size, buf_size, in[i].off);
            if (got < 0) {
                fprintf(stderr, "read_floor: %s/%s: offset %lld: %s\n",
                        argv[1], in[i].name, (long long)in[i].off,
                        strerror(errno));
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
    for (i = 0; i < n; i++) {
        if (in[i].fd >= 0)
            close(in[i].fd);
        free(in[i].name);
    }
    free(in);
    free(arena);
    close(dir);
    return rc;
}
