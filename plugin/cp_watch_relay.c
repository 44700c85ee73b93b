/* cp_watch_relay.c - the live watch's lines on srun's stderr. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cp_stepdir.h"
#include "cp_watch_relay.h"

#define RELAY_MAX (1u << 20) /* bytes of watch.log relayed at most */
#define LINE_MAX_ 2048

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int started, stopping;
    char stepdir[4096];
    uid_t uid;
    char prefix[128];
    FILE *out;
    int dirfd, fd;
    off_t offset;
    char line[LINE_MAX_];
    size_t used;
} relay = {.lock = PTHREAD_MUTEX_INITIALIZER,
           .wake = PTHREAD_COND_INITIALIZER,
           .dirfd = -1,
           .fd = -1};

/* One whole line of watch.log: its UTC time cut, the rest printed. */
static void print_line(char *s, size_t n)
{
    size_t i;

    if (n > 21 && s[10] == 'T' && s[19] == 'Z' && s[20] == ' ') {
        s += 21;
        n -= 21;
    }
    if (strncmp(s, "collprof ", 9) == 0 && n > 9) {
        s += 9; /* "collprof watch: X" -> "watch: X" */
        n -= 9;
    }
    /* "watch: job J.S: X" -> "watch: X": the prefix names the step */
    if (n > 11 && strncmp(s, "watch: job ", 11) == 0) {
        size_t k = 11;
        while (k < n && s[k] != ' ' && s[k] != ':')
            k++;
        if (k + 1 < n && s[k] == ':' && s[k + 1] == ' ') {
            memmove(s + 7, s + k + 2, n - k - 2);
            n -= k + 2 - 7;
        }
    }
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            s[i] = '?';
    fprintf(relay.out, "%s%.*s\n", relay.prefix, (int)n, s);
    fflush(relay.out);
}

/* watch.log opened when it is there: the directory checked first. */
static int open_log(void)
{
    struct cp_error err;
    struct stat sb;
    int fd;

    if (relay.fd >= 0)
        return 0;
    if (relay.dirfd < 0 &&
        (relay.dirfd = cp_stepdir_open(relay.stepdir, relay.uid, &err)) < 0)
        return -1;
    fd = openat(relay.dirfd, "watch.log",
                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        relay.offset = RELAY_MAX; /* not a file: never read */
        return -1;
    }
    relay.fd = fd;
    return 0;
}

/* What watch.log gained: its whole lines printed, a part kept. */
static void look(void)
{
    char buf[4096];
    ssize_t got;

    if (relay.offset >= RELAY_MAX || open_log() < 0)
        return;
    while (relay.offset < RELAY_MAX &&
           (got = pread(relay.fd, buf, sizeof buf, relay.offset)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] == '\n') {
                print_line(relay.line, relay.used);
                relay.used = 0;
            } else if (relay.used < sizeof relay.line) {
                relay.line[relay.used++] = buf[i];
            }
        }
        relay.offset += got;
    }
}

static void *relay_main(void *arg)
{
    struct timespec until;

    (void)arg;
    pthread_mutex_lock(&relay.lock);
    while (!relay.stopping) {
        pthread_mutex_unlock(&relay.lock);
        look();
        pthread_mutex_lock(&relay.lock);
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        while (!relay.stopping &&
               pthread_cond_timedwait(&relay.wake, &relay.lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&relay.lock);
    look(); /* what came last */
    return NULL;
}

int cp_relay_start(const char *stepdir, uid_t uid, const char *prefix,
                   FILE *out)
{
    sigset_t all, old;
    int rc;

    if (relay.started || strlen(stepdir) >= sizeof relay.stepdir)
        return -1;
    snprintf(relay.stepdir, sizeof relay.stepdir, "%s", stepdir);
    snprintf(relay.prefix, sizeof relay.prefix, "%s", prefix);
    relay.uid = uid;
    relay.out = out;
    relay.stopping = 0;
    /* the thread gets no signal: srun's handlers stay srun's */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&relay.thread, NULL, relay_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return -1;
    relay.started = 1;
    return 0;
}

void cp_relay_stop(void)
{
    if (!relay.started)
        return;
    pthread_mutex_lock(&relay.lock);
    relay.stopping = 1;
    pthread_cond_signal(&relay.wake);
    pthread_mutex_unlock(&relay.lock);
    pthread_join(relay.thread, NULL);
    relay.started = 0;
    if (relay.fd >= 0)
        close(relay.fd);
    if (relay.dirfd >= 0)
        close(relay.dirfd);
    relay.fd = relay.dirfd = -1;
}
