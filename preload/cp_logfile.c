/* cp_logfile.c - the reservation of a log file's bytes (cp_logfile.h). */
#include "config.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cp_logfile.h"

/* Past RLIMIT_FSIZE the kernel sends SIGXFSZ, which would kill the job:
 * treat the limit like a full disk instead (errno EFBIG). */
int cp_log_fits_limit(off_t end)
{
    struct rlimit lim;

    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        (rlim_t)end > lim.rlim_cur) {
        errno = EFBIG;
        return 0;
    }
    return 1;
}

/* Reserve [off, off + len) of the file by writing zeros into it.  Like
 * posix_fallocate, a full disk or quota is an error here (local file systems
 * reserve the blocks of buffered writes at write time), not a SIGBUS at the
 * writer's first store; unlike fallocate's unwritten extents, the pages are
 * then in the page cache, dirty and zeroed, and making them writable in the
 * mapping costs about a third less (measured by make bench: the log
 * thread's CPU per record, 80 ns -> 55 ns on ext4).  Returns 0 or an errno
 * value. */
static int write_zeros(int fd, off_t off, size_t len)
{
    static const char zeros[65536];
    size_t done = 0;

    while (done < len) {
        size_t n = len - done < sizeof zeros ? len - done : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, n, off + (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        done += (size_t)w;
    }
    return 0;
}

int cp_log_reserve(struct cp_log *log, uint64_t off, size_t len)
{
    int rc;

    if (!cp_log_fits_limit((off_t)(off + len)))
        return -1;
    rc = write_zeros(log->fd, (off_t)off, len);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}
