/* cp_run.c - time-bounded child processes with explicit credentials, and
 * long-lived ones started and stopped. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cp_run.h"

extern char **environ;

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_fail(int fd, int e)
{
    ssize_t w = write(fd, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* Close every descriptor from 3 up but `keep`. */
static void close_all_but(int keep, long max_fd)
{
    int fd;

#ifdef SYS_close_range
    if ((keep == 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
        syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
        return;
#endif
    for (fd = 3; fd < max_fd; fd++)
        if (fd != keep)
            close(fd);
}

/* A descriptor at 3 or above (stdio may be closed in the caller, and the
 * pipes then got 0-2, which the dup2s below would clobber). */
static int above_stdio(int fd, int status_w)
{
    int moved;

    if (fd < 0 || fd > 2)
        return fd;
    moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (moved < 0)
        child_fail(status_w, errno);
    return moved;
}

/* Lower limit `which` to value (never above the present hard limit). */
static int lower_limit(int which, unsigned long long value)
{
    struct rlimit rl;

    if (getrlimit(which, &rl) < 0)
        return -1;
    if (rl.rlim_max != RLIM_INFINITY && value > rl.rlim_max)
        value = rl.rlim_max;
    rl.rlim_cur = rl.rlim_max = (rlim_t)value;
    return setrlimit(which, &rl);
}

static void child(const struct cp_run *r, int out_w, int err_w, int status_w,
                  long max_fd, pid_t parent)
{
    sigset_t none;
    int sig, null_fd;

    setpgid(0, 0);
    /* first: dir_fd may be one of 0-2, which the dup2s below replace */
    if (r->in_dir && fchdir(r->dir_fd) < 0)
        child_fail(status_w, errno);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);

    status_w = above_stdio(status_w, status_w);
    out_w = above_stdio(out_w, status_w);
    err_w = above_stdio(err_w, status_w);
    null_fd = above_stdio(open("/dev/null", O_RDWR | O_CLOEXEC), status_w);
    if (null_fd < 0)
        child_fail(status_w, errno);
    if (dup2(null_fd, 0) < 0 || dup2(out_w >= 0 ? out_w : null_fd, 1) < 0 ||
        dup2(err_w >= 0 ? err_w : null_fd, 2) < 0)
        child_fail(status_w, errno);
    /* status_w stays open, close-on-exec: it reports a failed exec */
    close_all_but(status_w, max_fd);

    if (r->as_user) {
        if (setgroups((size_t)r->ngroups, r->groups) < 0 ||
            setresgid(r->gid, r->gid, r->gid) < 0 ||
            setresuid(r->uid, r->uid, r->uid) < 0)
            child_fail(status_w, errno);
        if (r->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
            child_fail(status_w, EPERM); /* root came back: never exec */
    } else {
        uid_t u = getuid();
        gid_t g = getgid();
        /* the caller's real ids, everywhere: no saved set-user-ID left */
        if (setresgid(g, g, g) < 0 || setresuid(u, u, u) < 0)
            child_fail(status_w, errno);
    }
    /* after the credential change, which clears it: the child dies with
     * its parent (a SIGKILLed srun leaves no analyzer behind) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        child_fail(status_w, errno);
    if (getppid() != parent)
        _exit(127); /* the parent is gone already */
    if (lower_limit(RLIMIT_AS, r->as_limit ? r->as_limit : CP_RUN_AS_DEFAULT) <
            0 ||
        (r->timeout_s &&
         lower_limit(RLIMIT_CPU, 2ull * r->timeout_s + 5) < 0))
        child_fail(status_w, errno);
    if (r->set_umask)
        umask(r->umask & 0777);
    if (!r->argv) {
        /* nothing to exec: the caller's wait for the exec's report (the
         * pipe's end, cp_run_start) ends here */
        close(status_w);
        _exit(r->fn(r->fn_arg) & 0xff);
    }
    execve(r->argv[0], (char *const *)r->argv, r->envp ? r->envp : environ);
    child_fail(status_w, errno);
}

/* Append what fd has to buf (bounded); 0 at EOF or error. */
static int drain(int fd, char *buf, size_t buflen, size_t *used)
{
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (n <= 0)
        return 0;
    if (buf && buflen > 1 && *used < buflen - 1) {
        size_t room = buflen - 1 - *used;
        size_t take = (size_t)n < room ? (size_t)n : room;
        memcpy(buf + *used, chunk, take);
        *used += take;
        buf[*used] = '\0';
    }
    return 1;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Watch the child pid until it is gone: its output drained into r's
 * buffers (out_fd, err_fd: the read ends, closed at their end), the time
 * limit (SIGTERM and grace first when asked, then SIGKILL to its group) and
 * r->abandon applied.  Returns how it was reaped: 1 here, 2 by someone
 * else (no status), 3 killed here; its status in *wstatus. */
static int watch(struct cp_run *r, pid_t pid, int *out_fd, int *err_fd,
                 int *wstatus)
{
    size_t out_used = 0, err_used = 0;
    long long deadline = now_ms() + (long long)r->timeout_s * 1000;
    int reaped = 0, term_sent = 0;

    for (;;) {
        struct pollfd pf[2];
        nfds_t n = 0;
        long long left = deadline - now_ms();
        pid_t w;

        if (!reaped) {
            w = waitpid(pid, wstatus, WNOHANG);
            if (w == pid || (w < 0 && errno == ECHILD))
                reaped = w == pid ? 1 : 2;
        }
        if (!reaped && r->abandon && *r->abandon) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            r->abandoned = 1;
            while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
                ;
            return 3;
        }
        if (left <= 0 && !reaped && r->term_grace_s && !term_sent) {
            kill(pid, SIGTERM);
            term_sent = 1;
            r->timed_out = 1;
            deadline = now_ms() + (long long)r->term_grace_s * 1000;
            continue;
        }
        if (left <= 0 && !reaped) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            r->timed_out = 1;
            while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
                ;
            reaped = 3;
        }
        if (*out_fd >= 0)
            pf[n++] = (struct pollfd){.fd = *out_fd, .events = POLLIN};
        if (*err_fd >= 0)
            pf[n++] = (struct pollfd){.fd = *err_fd, .events = POLLIN};
        if (n == 0) {
            if (reaped)
                return reaped;
            /* nothing to read: wait for the exit in short naps */
            poll(NULL, 0, 20);
            continue;
        }
        /* once the child is gone, only what is already there is read: a
         * grandchild holding the pipe must not keep us here */
        if (poll(pf, n, reaped ? 0 : (left > 100 ? 100 : (int)left)) <= 0) {
            if (reaped)
                return reaped;
            continue;
        }
        for (nfds_t i = 0; i < n; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (pf[i].fd == *out_fd) {
                if (!drain(*out_fd, r->out, r->outlen, &out_used))
                    close_fd(out_fd);
            } else if (!drain(*err_fd, r->errout, r->errlen, &err_used)) {
                close_fd(err_fd);
            }
        }
    }
}

int cp_run(struct cp_run *r)
{
    int out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, st_p[2] = {-1, -1};
    int rc = -1, wstatus = 0, reaped = 0, e;
    long max_fd = sysconf(_SC_OPEN_MAX);
    struct sigaction dfl, old_chld;
    pid_t pid = -1, self = getpid();

    r->status = -1;
    r->timed_out = 0;
    r->exec_errno = 0;
    r->abandoned = 0;
    if (r->out && r->outlen)
        r->out[0] = '\0';
    if (r->errout && r->errlen)
        r->errout[0] = '\0';
    if (max_fd < 0 || max_fd > 65536)
        max_fd = 65536;
    if (!r->argv && !r->fn) {
        errno = EINVAL;
        return -1;
    }

    /* srun may ignore SIGCHLD, which would reap our child behind our back */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &old_chld);

    if ((r->out && pipe2(out_p, O_CLOEXEC) < 0) ||
        (r->errout && pipe2(err_p, O_CLOEXEC) < 0) ||
        pipe2(st_p, O_CLOEXEC) < 0)
        goto out;
    pid = fork();
    if (pid < 0)
        goto out;
    if (pid == 0)
        child(r, out_p[1], err_p[1], st_p[1], max_fd, self);
    setpgid(pid, pid); /* also here: no race with the kill below */
    close_fd(&out_p[1]);
    close_fd(&err_p[1]);
    close_fd(&st_p[1]);

    reaped = watch(r, pid, &out_p[0], &err_p[0], &wstatus);

    /* what the child left behind once told to stop: its group goes too */
    if (r->timed_out || r->abandoned)
        kill(-pid, SIGKILL);

    /* the child's report of a failed exec, if any */
    if (read(st_p[0], &e, sizeof e) == (ssize_t)sizeof e) {
        r->exec_errno = e;
        errno = e;
        goto out;
    }
    if (r->timed_out) {
        errno = ETIMEDOUT;
        goto out;
    }
    if (r->abandoned) {
        errno = EINTR;
        goto out;
    }
    if (reaped == 2)
        r->status = -1;
    else if (WIFEXITED(wstatus))
        r->status = WEXITSTATUS(wstatus);
    else if (WIFSIGNALED(wstatus))
        r->status = 128 + WTERMSIG(wstatus);
    rc = 0;
out:
    e = errno;
    close_fd(&out_p[0]);
    close_fd(&out_p[1]);
    close_fd(&err_p[0]);
    close_fd(&err_p[1]);
    close_fd(&st_p[0]);
    close_fd(&st_p[1]);
    sigaction(SIGCHLD, &old_chld, NULL);
    errno = e;
    return rc;
}

/* r->status's form of a wait status. */
static int status_of(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return -1;
}

pid_t cp_run_start(struct cp_run *r)
{
    int st_p[2] = {-1, -1}, err_p[2] = {-1, -1}, e = 0;
    long max_fd = sysconf(_SC_OPEN_MAX);
    pid_t pid = -1, self = getpid(), rc = -1;
    struct cp_run setup = *r;
    ssize_t n;

    r->status = -1;
    r->timed_out = 0;
    r->exec_errno = 0;
    r->abandoned = 0;
    if (max_fd < 0 || max_fd > 65536)
        max_fd = 65536;
    if (r->err_pipe)
        *r->err_pipe = -1;
    if (!r->argv && !r->fn) {
        errno = EINVAL;
        return -1;
    }
    /* no RLIMIT_CPU (cp_run.h), no captured output */
    setup.timeout_s = 0;
    setup.out = setup.errout = NULL;
    if (pipe2(st_p, O_CLOEXEC) < 0 ||
        (r->err_pipe && pipe2(err_p, O_CLOEXEC | O_NONBLOCK) < 0))
        goto out;
    pid = fork();
    if (pid < 0)
        goto out;
    if (pid == 0)
        child(&setup, -1, err_p[1], st_p[1], max_fd, self);
    setpgid(pid, pid); /* also here: a stop right after sees the group */
    close_fd(&st_p[1]);
    close_fd(&err_p[1]);
    /* the pipe ends at the exec (close-on-exec) or brings its errno */
    do
        n = read(st_p[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof e) {
        r->exec_errno = e;
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        errno = e;
        goto out;
    }
    rc = pid;
    if (r->err_pipe) {
        *r->err_pipe = err_p[0];
        err_p[0] = -1;
    }
out:
    e = errno;
    close_fd(&st_p[0]);
    close_fd(&st_p[1]);
    close_fd(&err_p[0]);
    close_fd(&err_p[1]);
    errno = e;
    return rc;
}

/* waitpid(pid, WNOHANG) until it is reaped, gone, or deadline_ms (on the
 * monotonic clock) has passed: 1 reaped here (*wstatus), 2 reaped by
 * someone else, 0 still running. */
static int wait_until(pid_t pid, long long deadline_ms, int *wstatus)
{
    for (;;) {
        pid_t w = waitpid(pid, wstatus, WNOHANG);

        if (w == pid)
            return 1;
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return 2; /* ECHILD: slurmstepd's wait3 took it */
        if (now_ms() >= deadline_ms)
            return 0;
        poll(NULL, 0, 20);
    }
}

int cp_run_stop(pid_t pid, unsigned grace_ms)
{
    int wstatus = 0, reaped, e = errno;

    if (pid <= 0)
        return -1;
    /* the group: the child and whatever it started (an alert hook) */
    kill(-pid, SIGTERM);
    reaped = wait_until(pid, now_ms() + grace_ms, &wstatus);
    /* what its group still holds goes, whether or not it has exited */
    kill(-pid, SIGKILL);
    if (!reaped) {
        kill(pid, SIGKILL);
        reaped = wait_until(pid, now_ms() + 5000, &wstatus);
    }
    errno = e;
    return reaped == 1 ? status_of(wstatus) : -1;
}
