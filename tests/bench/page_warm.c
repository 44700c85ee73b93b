/* page_warm.c - what a page of new file data costs the kernel, the first
 * time a machine's free memory is used and again once it was.
 *
 * The shim's log grows by pages of a file in the page cache (preload/
 * cp_logwrite.h), so the log thread's cost per record is, at 64 records a
 * page, mostly the kernel's cost of a new page-cache page.  On a virtual
 * machine a guest page never used since the machine booted is backed by the
 * host at its first touch, which costs several microseconds more; once the
 * guest freed it, the next allocation reuses it at the ordinary cost.  A
 * benchmark run on a freshly booted VM therefore measures the hypervisor
 * and not the shim; tests/bench/run.sh runs this first and says what it
 * found.
 *
 * usage: page_warm FILE MIB
 * Writes MIB MiB of zeros into FILE with pwrite (64 KiB at a time),
 * removes it, and does it again.  Prints one line:
 *   first_ns_per_page second_ns_per_page
 * Exit 1 on an error (named on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per 4 KiB page of writing mib MiB of zeros into a new path; < 0 on
 * an error (reported). */
static double one_pass(const char *path, size_t mib)
{
    static const char zeros[65536];
    size_t total = mib << 20, off = 0;
    double t0, t1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);

    if (fd < 0) {
        fprintf(stderr, "page_warm: %s: %s\n", path, strerror(errno));
        return -1;
    }
    t0 = now_ns();
    while (off < total) {
        ssize_t w = pwrite(fd, zeros, sizeof zeros, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "page_warm: %s: write at offset %zu: %s\n", path,
                    off, w < 0 ? strerror(errno) : "nothing written");
            close(fd);
            unlink(path);
            return -1;
        }
        off += (size_t)w;
    }
    t1 = now_ns();
    close(fd);
    unlink(path);
    return (t1 - t0) / (double)(total / 4096);
}

int main(int argc, char **argv)
{
    char *end;
    unsigned long mib;
    double first, second;

    if (argc != 3) {
        fprintf(stderr, "usage: page_warm FILE MIB\n");
        return 2;
    }
    errno = 0;
    mib = strtoul(argv[2], &end, 10);
    if (errno || *end || mib == 0 || mib > 65536) {
        fprintf(stderr, "page_warm: MIB '%s': a whole number 1-65536\n",
                argv[2]);
        return 2;
    }
    first = one_pass(argv[1], mib);
    if (first < 0)
        return 1;
    second = one_pass(argv[1], mib);
    if (second < 0)
        return 1;
    printf("%.0f %.0f\n", first, second);
    return 0;
}
