/* fuzz_logread.c - libFuzzer target: any bytes as a rank log. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cp_logread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    char path[64];
    struct cp_error err;
    struct cp_logfile *lf;
    struct cp_logfile_stats st;
    union cp_rec rec;

    if (fd < 0)
        fd = memfd_create("cplog", 0);
    if (fd < 0 || ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    lf = cp_logfile_open(path, &err);
    if (!lf)
        return 0;
    while (cp_logfile_next(lf, &rec, NULL) == 1) {
        union cp_rec copy = rec;
        cp_rec_swap(&copy);
    }
    cp_logfile_stats(lf, &st);
    (void)cp_logfile_problem(lf);
    cp_logfile_close(lf);
    return 0;
}
