/* cp_run.h - run a program for the plugin, time-bounded, never a shell;
 * or start one that lives as long as the step (cp_run_start) and stop it
 * (cp_run_stop).
 *
 * The child gets its own process group (killed as a whole, SIGKILL, when the
 * time is up, after an optional SIGTERM and grace period), stdin from /dev/null, default signal dispositions and an
 * empty signal mask (srun and slurmstepd block signals in their threads), no
 * descriptor of the caller but 0-2, and explicit credentials: the caller's
 * real uid and gid with the saved ids dropped, or, when `as_user` is set
 * (slurmstepd, which runs as root), the job user's uid, gid and groups, with
 * a check that root cannot be regained before exec.  Every child also gets
 * PR_SET_PDEATHSIG (SIGKILL: it never outlives the srun or slurmstepd that
 * started it), RLIMIT_CPU (twice the time limit, plus 5 s; none for
 * cp_run_start's, below) and RLIMIT_AS
 * (as_limit, else CP_RUN_AS_DEFAULT), and, when asked, a umask and a
 * working directory given by a descriptor.  No Slurm
 * dependency.
 */
#ifndef COLLPROF_CP_RUN_H
#define COLLPROF_CP_RUN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* The address space every child gets at most (RLIMIT_AS), unless
 * struct cp_run says otherwise: generous for the analyzer of a large job,
 * a bound for a runaway one. */
#define CP_RUN_AS_DEFAULT ((unsigned long long)16 << 30)

struct cp_run {
    const char *const *argv; /* argv[0] is the absolute path run */
    /* Or, when argv is NULL: fn(fn_arg) runs in the child, after the
     * credential change, its return value the exit status (for work done in
     * the user's files as the user, without a program to exec).  fn writes
     * its output to descriptor 1 (write(2), no stdio). */
    int (*fn)(void *fn_arg);
    void *fn_arg;
    char *const *envp;       /* NULL: the caller's environment */
    unsigned timeout_s;
    /* 0: SIGKILL to the child's process group at the time limit.  N: first
     * SIGTERM to the child alone (a program that has to clean up behind
     * it, as srun cancels its job or step), then SIGKILL to the group N
     * seconds later, or as soon as the child has exited. */
    unsigned term_grace_s;
    char *out;     /* stdout captured here (NUL-terminated, cut), or NULL */
    size_t outlen; /* for /dev/null */
    char *errout;  /* stderr likewise */
    size_t errlen;
    int as_user; /* become uid/gid/groups below before exec */
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int ngroups;
    int set_umask;     /* give the child this umask */
    mode_t umask;
    unsigned long long as_limit; /* RLIMIT_AS, bytes; 0: the default */
    /* in_dir: the child's working directory is the directory open at
     * dir_fd (fchdir before anything else), so that it works in the
     * directory the caller checked, by "." and relative names, whatever
     * has happened to that directory's path since. */
    int in_dir;
    int dir_fd;
    /* When *abandon becomes nonzero (a signal handler's flag), the child's
     * group is killed at once and cp_run returns -1 with r->abandoned. */
    volatile sig_atomic_t *abandon;
    /* cp_run_start only: when set, the child's stderr is a pipe whose read
     * end (non-blocking, close-on-exec) is returned here, for the caller
     * to read what the child said; both ends are non-blocking, so that a
     * child that says more than the pipe holds loses it, never waits.
     * The caller closes it.  -1 when none was made. */
    int *err_pipe;
    /* results */
    int status;      /* exit status, 128+signal, or -1 when unknown */
    int timed_out;   /* killed at the time limit */
    int exec_errno;  /* exec (or the credential change) failed: errno */
    int abandoned;   /* stopped through *abandon */
};

/* Run r->argv (or r->fn).  Returns 0 when the program ran and exited (see r->status),
 * -1 when it could not be started, timed out or failed to exec (errno, and
 * r->timed_out / r->exec_errno say which). */
int cp_run(struct cp_run *r);

/* Start r->argv (or r->fn) and return at once, for a program that lives as
 * long as the step (collprof watch): the child is set up as cp_run's is
 * (credentials, its own process group, stdin, stdout and stderr on
 * /dev/null, no other descriptor of the caller, signals, PDEATHSIG,
 * RLIMIT_AS, umask, working directory), but gets no RLIMIT_CPU: its
 * lifetime is the step's, which has no bound known here, and a CPU limit
 * of twice anything would kill a long job's watcher in its middle.  Its
 * bound is cp_run_stop (and PDEATHSIG when the caller dies); r->timeout_s,
 * r->term_grace_s, r->out, r->errout and r->abandon are not used (stderr:
 * r->err_pipe, or /dev/null).  Returns
 * the child's pid (its process group's id), after the exec succeeded, or
 * -1 (errno; r->exec_errno when the exec or the credential change failed,
 * the child then reaped).  The caller owns the child: cp_run_stop ends and
 * reaps it.  SIGCHLD must not be ignored in the caller while it runs (a
 * child reaped by someone else is still stopped: it counts as gone). */
pid_t cp_run_start(struct cp_run *r);

/* End what cp_run_start started: SIGTERM to its process group, then up to
 * grace_ms for the child to exit (WNOHANG polls), then SIGKILL to the
 * group, and the child reaped.  A child already exited, or reaped by
 * someone else (ECHILD: slurmstepd reaps children it does not know), is
 * fine.  Returns its status as r->status would be (exit status, 128+signal)
 * or -1 when unknown (reaped elsewhere); pid <= 0 does nothing (-1). */
int cp_run_stop(pid_t pid, unsigned grace_ms);

#endif
