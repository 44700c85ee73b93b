/* run.c - time-bounded children with explicit credentials
 * (plugin/cp_run.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp_run.h"
#include "tap.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(struct cp_run *r, const char *const *argv, unsigned timeout,
               char *out, size_t outlen)
{
    memset(r, 0, sizeof *r);
    r->argv = argv;
    r->timeout_s = timeout;
    r->out = out;
    r->outlen = outlen;
    return cp_run(r);
}

/* fn mode: what the child is, written to descriptor 1 */
static int report_ids(void *arg)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%s %u %u\n", (const char *)arg,
                     (unsigned)getuid(), (unsigned)geteuid());
    ssize_t w = write(1, line, (size_t)n);
    (void)w;
    return 7;
}

static int spin(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return 0;
}

/* fn mode: the limits and umask the child got, on descriptor 1 */
static int report_limits(void *arg)
{
    struct rlimit as, cpu;
    char line[128];
    mode_t m = umask(0);
    int n;

    (void)arg;
    getrlimit(RLIMIT_AS, &as);
    getrlimit(RLIMIT_CPU, &cpu);
    n = snprintf(line, sizeof line, "%llu %llu %03o\n",
                 (unsigned long long)as.rlim_cur,
                 (unsigned long long)cpu.rlim_cur, (unsigned)m);
    if (write(1, line, (size_t)n) != n)
        return 1;
    return 0;
}

/* fn mode: write the child's pid to the file arg, then wait forever */
static int note_pid_and_wait(void *arg)
{
    char line[32];
    int fd = open((const char *)arg, O_WRONLY | O_CREAT | O_TRUNC, 0600),
        n = snprintf(line, sizeof line, "%d\n", (int)getpid());

    if (fd < 0 || write(fd, line, (size_t)n) != n)
        return 1;
    close(fd);
    for (;;)
        pause();
    return 0;
}

/* fn mode: the RLIMIT_CPU the child got, into the file arg */
static int cpu_limit_to_file(void *arg)
{
    struct rlimit cpu;
    char line[64];
    int fd = open((const char *)arg, O_WRONLY | O_CREAT | O_TRUNC, 0600), n;

    getrlimit(RLIMIT_CPU, &cpu);
    n = snprintf(line, sizeof line, "%llu\n", (unsigned long long)cpu.rlim_cur);
    if (fd < 0 || write(fd, line, (size_t)n) != n)
        return 1;
    close(fd);
    return 0;
}

/* The pid in file path, waited for up to 5 s; 0 when none came. */
static pid_t pid_in(const char *path)
{
    int i, pid = 0;

    for (i = 0; i < 250 && pid <= 0; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%d", &pid) != 1)
                pid = 0;
            fclose(f);
        }
        if (pid <= 0)
            usleep(20000);
    }
    return pid;
}

/* Whether process pid has gone within 2 s (a zombie counts as gone: its
 * new parent reaps it when it will). */
static int gone_soon(pid_t pid)
{
    int i;

    for (i = 0; i < 100; i++) {
        char path[64], state = '?';
        FILE *f;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        f = fopen(path, "r");
        if (!f)
            return 1;
        if (fscanf(f, "%*d %*s %c", &state) != 1 || state == 'Z') {
            fclose(f);
            return 1;
        }
        fclose(f);
        usleep(20000);
    }
    return 0;
}

/* cp_run_start and cp_run_stop: a child that lives until told to stop;
 * mark and pidfile: two names in a temporary directory of the test */
static char mark[96], grand_pidfile[96];

/* it runs beside the caller; SIGTERM stops it */
static void test_start_runs(void)
{
    char cmd[256];
    struct cp_run r;
    pid_t pid;
    double t0;
    int st;

    {
        /* it runs beside us: start returns before it has done anything */
        const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        snprintf(cmd, sizeof cmd, "sleep 2; echo done >'%s'; sleep 100", mark);
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.timeout_s = 1; /* not used by start: no RLIMIT_CPU, no kill */
        t0 = now();
        pid = cp_run_start(&r);
        ok(pid > 0 && now() - t0 < 1.5, "start: a pid at once (%d, %.2f s)",
           (int)pid, now() - t0);
        ok(access(mark, F_OK) < 0 && kill(pid, 0) == 0,
           "... the child runs, not done yet");
        ok(getpgid(pid) == pid, "... in its own process group");
        for (int i = 0; i < 400 && access(mark, F_OK) < 0; i++)
            usleep(20000);
        usleep(1000000);
        ok(access(mark, F_OK) == 0 && kill(pid, 0) == 0,
           "... it went on while we did, past the 1 s that cp_run would "
           "have given it");
        t0 = now();
        st = cp_run_stop(pid, 10000);
        is_int(st, 128 + SIGTERM, "stop: SIGTERM ends it, status 128+15");
        ok(now() - t0 < 5, "... at once, not after the grace (%.2f s)",
           now() - t0);
        ok(kill(pid, 0) < 0, "... reaped (no zombie left)");
    }
}

/* SIGKILL after the grace; the group's other processes go too */
static void test_stop_group(void)
{
    char cmd[256];
    struct cp_run r;
    pid_t pid, grand;
    double t0;
    int st;

    {
        /* SIGTERM ignored by the child and its group: SIGKILL after grace;
         * the grandchild in its group is killed too */
        const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        snprintf(cmd, sizeof cmd,
                 "trap '' TERM; sleep 100 & echo $! >'%s'; wait", grand_pidfile);
        memset(&r, 0, sizeof r);
        r.argv = argv;
        pid = cp_run_start(&r);
        grand = pid > 0 ? pid_in(grand_pidfile) : 0;
        ok(pid > 0 && grand > 0, "a child that ignores SIGTERM, and its "
                                 "grandchild (%d, %d)", (int)pid, (int)grand);
        t0 = now();
        st = cp_run_stop(pid, 500);
        is_int(st, 128 + SIGKILL, "stop: SIGKILL after the grace, 128+9");
        ok(now() - t0 >= 0.45 && now() - t0 < 8,
           "... after the 0.5 s grace (%.2f s)", now() - t0);
        ok(grand > 0 && gone_soon(grand), "... its grandchild is gone too");
        unlink(grand_pidfile);
    }
    {
        /* the child has exited, its group lives on: stop still kills it */
        const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        snprintf(cmd, sizeof cmd, "trap '' TERM; sleep 100 & echo $! >'%s'",
                 grand_pidfile);
        memset(&r, 0, sizeof r);
        r.argv = argv;
        pid = cp_run_start(&r);
        grand = pid > 0 ? pid_in(grand_pidfile) : 0;
        usleep(200000);
        t0 = now();
        is_int(cp_run_stop(pid, 10000), 0,
               "stop of an exited child: its exit status, 0");
        ok(now() - t0 < 5, "... at once (%.2f s)", now() - t0);
        ok(grand > 0 && gone_soon(grand),
           "... what it left in its group is killed");
        unlink(grand_pidfile);
    }
}

/* a child reaped elsewhere, one that never started */
static void test_stop_gone(void)
{
    struct cp_run r;
    pid_t pid;
    double t0;

    {
        /* reaped by someone else (slurmstepd's wait3): ECHILD is gone */
        const char *argv[] = {"/bin/true", NULL};
        memset(&r, 0, sizeof r);
        r.argv = argv;
        pid = cp_run_start(&r);
        ok(pid > 0 && waitpid(pid, NULL, 0) == pid, "a child reaped by us");
        t0 = now();
        is_int(cp_run_stop(pid, 10000), -1,
               "stop of a child reaped elsewhere: -1 (status unknown)");
        ok(now() - t0 < 5, "... at once (%.2f s)", now() - t0);
        is_int(cp_run_stop(0, 2000), -1, "stop of pid 0: nothing, -1");
    }
    {
        const char *argv[] = {"/nonexistent/prog", NULL};
        memset(&r, 0, sizeof r);
        r.argv = argv;
        ok(cp_run_start(&r) < 0 && r.exec_errno == ENOENT,
           "start of a missing program: -1, exec_errno ENOENT");
    }
}

/* err_pipe, and no RLIMIT_CPU */
static void test_start_setup(void)
{
    char cmd[256];
    struct cp_run r;
    pid_t pid;

    {
        /* err_pipe: what it said on stderr, and it never waits on a full
         * pipe (what does not fit is lost) */
        const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        char said[256];
        int efd = -1;
        ssize_t n;
        snprintf(cmd, sizeof cmd,
                 "echo oops >&2; head -c 1000000 /dev/zero >&2; "
                 "echo done >'%s'; sleep 100",
                 mark);
        unlink(mark);
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.err_pipe = &efd;
        pid = cp_run_start(&r);
        ok(pid > 0 && efd >= 0, "start with err_pipe: a read end (%d)", efd);
        for (int i = 0; i < 250 && access(mark, F_OK) < 0; i++)
            usleep(20000);
        ok(access(mark, F_OK) == 0,
           "... a child that says 1 MB on stderr goes on (never blocks)");
        cp_run_stop(pid, 2000);
        n = efd >= 0 ? read(efd, said, sizeof said - 1) : -1;
        said[n > 0 ? n : 0] = '\0';
        ok(strncmp(said, "oops\n", 5) == 0, "... its first words read back");
        if (efd >= 0)
            close(efd);
        unlink(mark);
    }
    {
        /* no RLIMIT_CPU for a child as long-lived as the step */
        struct rlimit mine;
        unsigned long long got = 0;
        FILE *f;
        getrlimit(RLIMIT_CPU, &mine);
        memset(&r, 0, sizeof r);
        r.fn = cpu_limit_to_file;
        r.fn_arg = mark;
        r.timeout_s = 10;
        unlink(mark);
        pid = cp_run_start(&r);
        ok(pid > 0, "start, fn mode");
        for (int i = 0; i < 250 && access(mark, F_OK) < 0; i++)
            usleep(20000);
        usleep(50000);
        f = fopen(mark, "r");
        ok(f && fscanf(f, "%llu", &got) == 1 &&
               got == (unsigned long long)mine.rlim_cur,
           "... RLIMIT_CPU left as ours (%llu), whatever timeout_s says", got);
        if (f)
            fclose(f);
        is_int(cp_run_stop(pid, 2000), 0, "... its fn's 0 as the status");
    }
}

static void test_start_stop(void)
{
    char tmpl[] = "/tmp/cp-run-start-XXXXXX";

    if (!mkdtemp(tmpl)) {
        ok(0, "a temporary directory");
        return;
    }
    snprintf(mark, sizeof mark, "%s/mark", tmpl);
    snprintf(grand_pidfile, sizeof grand_pidfile, "%s/pid", tmpl);
    test_start_runs();
    test_stop_group();
    test_stop_gone();
    test_start_setup();
    unlink(mark);
    rmdir(tmpl);
}

static volatile sig_atomic_t give_up;

static void on_alarm(int sig)
{
    (void)sig;
    give_up = 1;
}

int main(void)
{
    struct cp_run r;
    char out[4096];
    double t0;

    {
        const char *argv[] = {"/bin/echo", "hello", NULL};
        is_int(run(&r, argv, 5, out, sizeof out), 0, "echo runs");
        is_str(out, "hello\n", "its stdout is captured");
        is_int(r.status, 0, "exit 0");
    }
    {
        const char *argv[] = {"/bin/sh", "-c", "exit 3", NULL};
        is_int(run(&r, argv, 5, NULL, 0), 0, "sh runs");
        is_int(r.status, 3, "exit 3 reported");
    }
    {
        const char *argv[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
        run(&r, argv, 5, NULL, 0);
        is_int(r.status, 128 + 9, "a signal is 128+N");
    }
    {
        const char *argv[] = {"/bin/sleep", "100", NULL};
        t0 = now();
        is_int(run(&r, argv, 1, out, sizeof out), -1, "sleep 100 with 1 s: -1");
        ok(r.timed_out, "timed out");
        ok(now() - t0 < 3, "killed at the limit (%.1f s)", now() - t0);
    }
    {
        /* a hook that leaves a grandchild holding stdout */
        const char *argv[] = {"/bin/sh", "-c", "echo hi; sleep 100 & exit 0",
                              NULL};
        t0 = now();
        is_int(run(&r, argv, 10, out, sizeof out), 0,
               "a background grandchild does not keep us");
        ok(now() - t0 < 3, "returned at once (%.1f s)", now() - t0);
        is_str(out, "hi\n", "output read");
    }
    {
        /* a whole process group that hangs */
        const char *argv[] = {"/bin/sh", "-c", "sleep 100 & sleep 100; :",
                              NULL};
        t0 = now();
        is_int(run(&r, argv, 1, NULL, 0), -1, "hanging group");
        ok(r.timed_out && now() - t0 < 3, "killed (%.1f s)", now() - t0);
    }
    {
        /* term_grace_s: SIGTERM to the child first, which cleans up and
         * exits; a process it left in its group is killed after it */
        const char *argv[] = {"/bin/sh", "-c",
                              "sleep 100 & echo $!; "
                              "trap 'echo cleaned; exit 0' TERM; "
                              "while :; do sleep 0.05; done",
                              NULL};
        int left = -1, i;
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.timeout_s = 1;
        r.term_grace_s = 5;
        r.out = out;
        r.outlen = sizeof out;
        t0 = now();
        is_int(cp_run(&r), -1, "term_grace_s: a timed-out child still says -1");
        ok(r.timed_out && now() - t0 < 3,
           "... timed out, and returned once it exited (%.1f s)", now() - t0);
        ok(strstr(out, "cleaned\n") != NULL,
           "... it got SIGTERM and ran its handler");
        if (sscanf(out, "%d", &left) == 1 && left > 1) {
            for (i = 0; i < 100 && kill(left, 0) == 0; i++)
                usleep(20000);
            ok(kill(left, 0) < 0, "... what it left in its group is gone");
        } else {
            ok(0, "... the background pid was printed (%s)", out);
        }
    }
    {
        /* a child that ignores SIGTERM: SIGKILL after the grace period */
        const char *argv[] = {"/bin/sh", "-c", "trap '' TERM; sleep 100", NULL};
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.timeout_s = 1;
        r.term_grace_s = 1;
        t0 = now();
        is_int(cp_run(&r), -1, "SIGTERM ignored: -1");
        ok(r.timed_out && now() - t0 >= 1.8 && now() - t0 < 4,
           "... killed after the 1 s grace (%.1f s)", now() - t0);
    }
    {
        const char *argv[] = {"/nonexistent/prog", NULL};
        is_int(run(&r, argv, 5, NULL, 0), -1, "a missing program: -1");
        is_int(r.exec_errno, ENOENT, "exec_errno ENOENT");
    }
    {
        char *envp[] = {(char *)"ONLY=this", NULL};
        const char *argv[] = {"/usr/bin/env", NULL};
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.envp = envp;
        r.timeout_s = 5;
        r.out = out;
        r.outlen = sizeof out;
        is_int(cp_run(&r), 0, "env runs");
        is_str(out, "ONLY=this\n", "with exactly the given environment");
    }
    {
        /* no descriptor of ours, an empty signal mask */
        int leak = open("/dev/null", O_RDONLY); /* not close-on-exec */
        sigset_t block;
        /* no pipeline: the shell would hold the pipe's two ends while ls
         * reads its descriptor table; and grep reads its own mask after
         * exec, not the shell's, which a waiting shell may block for a
         * moment */
        const char *argv[] = {"/bin/sh", "-c",
                              "ls /proc/$$/fd; exec grep SigBlk /proc/self/status",
                              NULL};
        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGINT);
        sigprocmask(SIG_BLOCK, &block, NULL);
        is_int(run(&r, argv, 5, out, sizeof out), 0, "sh runs");
        ok(strncmp(out, "0\n1\n2\nS", 7) == 0,
           "only 0-2 open in the child (%.*s)", (int)strcspn(out, "S"), out);
        ok(strstr(out, "SigBlk:\t0000000000000000") != NULL,
           "nothing blocked in the child");
        sigprocmask(SIG_UNBLOCK, &block, NULL);
        close(leak);
    }
    {
        /* srun may ignore SIGCHLD: the status must still be seen */
        const char *argv[] = {"/bin/sh", "-c", "exit 4", NULL};
        signal(SIGCHLD, SIG_IGN);
        run(&r, argv, 5, NULL, 0);
        is_int(r.status, 4, "status seen with SIGCHLD ignored");
        signal(SIGCHLD, SIG_DFL);
    }
    {
        char expect[64];
        memset(&r, 0, sizeof r);
        r.fn = report_ids;
        r.fn_arg = (void *)"child";
        r.timeout_s = 5;
        r.out = out;
        r.outlen = sizeof out;
        is_int(cp_run(&r), 0, "fn mode: the function runs in a child");
        snprintf(expect, sizeof expect, "child %u %u\n", (unsigned)getuid(),
                 (unsigned)getuid());
        is_str(out, expect, "fn mode: its descriptor 1 is captured");
        is_int(r.status, 7, "fn mode: its return value is the exit status");
        memset(&r, 0, sizeof r);
        r.fn = spin;
        r.timeout_s = 1;
        t0 = now();
        is_int(cp_run(&r), -1, "fn mode: a function that never returns: -1");
        ok(r.timed_out && now() - t0 < 3, "fn mode: killed at the limit");
        memset(&r, 0, sizeof r);
        r.timeout_s = 1;
        is_int(cp_run(&r), -1, "neither argv nor fn: refused");
    }
    if (geteuid() == 0) {
        gid_t groups[1] = {65534};
        memset(&r, 0, sizeof r);
        r.fn = report_ids;
        r.fn_arg = (void *)"user";
        r.timeout_s = 5;
        r.out = out;
        r.outlen = sizeof out;
        r.as_user = 1;
        r.uid = 65534;
        r.gid = 65534;
        r.groups = groups;
        r.ngroups = 1;
        is_int(cp_run(&r), 0, "fn mode as_user runs");
        is_str(out, "user 65534 65534\n", "fn mode: the function runs as the user");
    } else {
        ok(1, "# SKIP as_user needs root");
    }
    if (geteuid() == 0) {
        gid_t groups[1] = {65534};
        const char *argv[] = {"/bin/sh", "-c", "id -u; id -g; id -G", NULL};
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.timeout_s = 5;
        r.out = out;
        r.outlen = sizeof out;
        r.as_user = 1;
        r.uid = 65534;
        r.gid = 65534;
        r.groups = groups;
        r.ngroups = 1;
        is_int(cp_run(&r), 0, "as_user runs");
        is_str(out, "65534\n65534\n65534\n", "as uid/gid/groups 65534 only");
    } else {
        ok(1, "# SKIP as_user needs root");
    }
    /* every child: RLIMIT_AS, RLIMIT_CPU, and the umask when asked */
    {
        unsigned long long as = 0, cpu = 0;
        unsigned m = 0;
        memset(&r, 0, sizeof r);
        r.fn = report_limits;
        r.timeout_s = 10;
        r.out = out;
        r.outlen = sizeof out;
        r.set_umask = 1;
        r.umask = 077;
        ok(cp_run(&r) == 0 && r.status == 0 &&
               sscanf(out, "%llu %llu %o", &as, &cpu, &m) == 3,
           "limits reported (%s)", out);
        ok(as > 0 && as <= CP_RUN_AS_DEFAULT, "RLIMIT_AS at most the default (%llu)", as);
        is_int((long long)cpu, 25, "RLIMIT_CPU: twice the time limit + 5 s");
        is_int(m, 077, "the umask asked for");
        r.as_limit = 1ull << 30;
        r.set_umask = 0;
        ok(cp_run(&r) == 0 && sscanf(out, "%llu", &as) == 1 &&
               as == (1ull << 30),
           "as_limit: RLIMIT_AS as given");
    }

    /* PR_SET_PDEATHSIG: a child of a SIGKILLed parent dies with it */
    {
        char pidfile[] = "/tmp/cp-run-pdeath-XXXXXX";
        int pfd = mkstemp(pidfile), child_pid = 0, i, gone = 0;
        pid_t mid;
        FILE *f;

        if (pfd >= 0)
            close(pfd);
        unlink(pidfile);
        mid = fork();
        if (mid == 0) {
            struct cp_run rr;
            memset(&rr, 0, sizeof rr);
            rr.fn = note_pid_and_wait;
            rr.fn_arg = pidfile;
            rr.timeout_s = 60;
            cp_run(&rr);
            _exit(0);
        }
        for (i = 0; i < 500 && !child_pid; i++) {
            struct timespec nap = {0, 10000000};
            f = fopen(pidfile, "r");
            if (f) {
                if (fscanf(f, "%d", &child_pid) != 1)
                    child_pid = 0;
                fclose(f);
            }
            nanosleep(&nap, NULL);
        }
        ok(child_pid > 0, "the grandchild started (pid %d)", child_pid);
        kill(mid, SIGKILL);
        waitpid(mid, NULL, 0);
        for (i = 0; i < 500 && child_pid > 0 && !gone; i++) {
            struct timespec nap = {0, 10000000};
            char stat_path[64], state = '?';
            snprintf(stat_path, sizeof stat_path, "/proc/%d/stat", child_pid);
            f = fopen(stat_path, "r");
            if (!f || fscanf(f, "%*d %*s %c", &state) != 1 || state == 'Z')
                gone = 1;
            if (f)
                fclose(f);
            nanosleep(&nap, NULL);
        }
        ok(gone, "... and it died with its SIGKILLed parent (PR_SET_PDEATHSIG)");
        if (!gone && child_pid > 0)
            kill(child_pid, SIGKILL);
        unlink(pidfile);
    }

    /* *abandon: the wait ends at once, the child's group killed */
    {
        const char *argv[] = {"/bin/sleep", "30", NULL};
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, &old);
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.timeout_s = 60;
        r.abandon = &give_up;
        give_up = 0;
        alarm(1);
        t0 = now();
        ok(cp_run(&r) < 0 && r.abandoned && errno == EINTR,
           "abandoned: -1, r.abandoned, EINTR");
        ok(now() - t0 < 20, "... well before the child's 30 s");
        sigaction(SIGALRM, &old, NULL);
    }

    /* in_dir: the child works in the directory of a descriptor, even when
     * that directory's path now names another one */
    {
        char tmpl[] = "/tmp/cp-run-XXXXXX", moved[64], path[96];
        const char *argv[] = {"/bin/sh", "-c", "pwd -P; echo here >mark", NULL};
        int dfd = -1;
        ok(mkdtemp(tmpl) != NULL &&
               (dfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0,
           "a directory opened");
        snprintf(moved, sizeof moved, "%s.moved", tmpl);
        ok(rename(tmpl, moved) == 0 && mkdir(tmpl, 0700) == 0,
           "... then moved, and its name given to a new one");
        memset(&r, 0, sizeof r);
        r.argv = argv;
        r.timeout_s = 10;
        r.out = out;
        r.outlen = sizeof out;
        r.in_dir = 1;
        r.dir_fd = dfd;
        ok(cp_run(&r) == 0 && r.status == 0, "in_dir: runs");
        snprintf(path, sizeof path, "%s\n", moved);
        is_str(out, path, "... in the directory of the descriptor, where it is now");
        snprintf(path, sizeof path, "%s/mark", moved);
        ok(access(path, F_OK) == 0, "... its file is there");
        snprintf(path, sizeof path, "%s/mark", tmpl);
        ok(access(path, F_OK) < 0, "... not in the new directory at the old path");
        if (dfd >= 0)
            close(dfd);
        snprintf(path, sizeof path, "%s/mark", moved);
        unlink(path);
        rmdir(moved);
        rmdir(tmpl);
    }

    test_start_stop();
    return done_testing();
}
