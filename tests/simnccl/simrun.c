/* simrun.c - start the ranks of a simnccl job on virtual nodes.
 *
 *   simrun -n N [--nodes K] [--topo FILE] [--timeout SEC] [--] PROG ARGS...
 *
 * Ranks are processes of this machine, each in its own process group so
 * that a teardown reaches whatever a rank started.  simrun waits for all of
 * them; when one fails (or is killed) it names that rank, stops the others
 * (SIGTERM, then SIGKILL after a grace period) and exits non-zero.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim_topo.h"

#define MAX_RANKS 4096
#define GRACE_S 3.0
#define EXIT_TIMEOUT 124
#define EXIT_USAGE 2

struct rank_proc {
    pid_t pid;
    int node;  /* 0-based: node name is n<node+1> */
    int local; /* rank within its node */
    int alive;
};

struct job {
    int nranks;
    int nnodes;
    double timeout_s;
    const char *topo_path; /* absolute, or NULL */
    const struct sim_topo *topo; /* parsed topo_path, or NULL */
    char libdir[PATH_MAX];
    char iddir[PATH_MAX];
    char **argv;
    struct rank_proc *ranks;
    int alive;
    long long start_ns; /* CLOCK_MONOTONIC as the ranks start */
    long long start_realtime_ns; /* the same moment on CLOCK_REALTIME */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: simrun -n N [--nodes K] [--topo FILE] [--timeout SEC] "
            "[--] PROG [ARGS...]\n"
            "\n"
            "Start N processes of PROG as the ranks of a simnccl job, spread "
            "in blocks\n"
            "over K virtual nodes n1..nK (8 ranks on 4 nodes: ranks 0,1 on "
            "n1, 2,3 on n2 ...).\n"
            "\n"
            "  -n, --nranks N    number of ranks (1..%d)\n"
            "  --nodes K         virtual nodes (default: the topology's "
            "'nodes', else 1)\n"
            "  --topo FILE       topology file, checked before any rank "
            "starts\n"
            "  --timeout SEC     kill the job after SEC seconds, exit %d\n"
            "  --sysfs DIR       write DIR/nK/class/infiniband/...: each "
            "node's RDMA port\n"
            "                    at the topology's inter-node rate, for "
            "collprof ports\n"
            "                    (COLLPROF_SYSFS_ROOT=DIR/%%n)\n"
            "  -h, --help        this text\n"
            "\n"
            "Each rank gets SIMNCCL_RANK, SIMNCCL_NRANKS, SIMNCCL_LOCAL_RANK, "
            "SIMNCCL_LOCAL_SIZE,\n"
            "SIMNCCL_NODE, SIMNCCL_NNODES, RANK, WORLD_SIZE, LOCAL_RANK, "
            "LOCAL_WORLD_SIZE,\n"
            "COLLPROF_NODE, SIMNCCL_TOPO (with --topo), SIMNCCL_IDDIR (a "
            "private directory\n"
            "shared by the ranks, removed at the end), SIMNCCL_START_NS (the "
            "job's start on\n"
            "CLOCK_MONOTONIC: 'link ... from=T' counts from it; "
            "SIMNCCL_START_REALTIME_NS\nthe same on CLOCK_REALTIME), and "
            "LD_LIBRARY_PATH starting\nwith the directory of simnccl's libnccl.so.2 (<simrun's dir>/lib, or "
            "SIMNCCL_LIBDIR).\n"
            "Ranks of a node with a 'clock NODE offset=T' line also get "
            "SIMNCCL_CLOCK_OFFSET_NS\n"
            "and libsimclock.so (their wall clock T ahead) first in "
            "LD_PRELOAD.\n"
            "Ranks read stdin from /dev/null.\n"
            "\n"
            "If a rank fails, simrun reports it, stops the others (SIGTERM, "
            "then SIGKILL\n"
            "after %.0f s) and exits with that rank's status (128+signal "
            "when killed).\n"
            "SIGINT and SIGTERM are forwarded to the ranks.\n",
            MAX_RANKS, EXIT_TIMEOUT, GRACE_S);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_count(const char *s, int max, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static int find_libdir(struct job *job)
{
    const char *env = getenv("SIMNCCL_LIBDIR");
    char self[PATH_MAX], *slash;
    ssize_t n;

    if (env && *env) {
        snprintf(job->libdir, sizeof job->libdir, "%s", env);
        return 0;
    }
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(job->libdir, sizeof job->libdir, "%s/lib", self) >=
        sizeof job->libdir)
        return -1;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    remove(path);
    return 0;
}

static int set_int(const char *name, int v)
{
    char buf[32];

    snprintf(buf, sizeof buf, "%d", v);
    return setenv(name, buf, 1);
}

static int clock_environment(const struct job *job, const char *node);

/* In the child, before exec: the rank's environment. */
static int rank_environment(const struct job *job, int r)
{
    const struct rank_proc *p = &job->ranks[r];
    const char *old = getenv("LD_LIBRARY_PATH");
    char node[32], *path;
    int local_size = 0, i, rc = 0;

    for (i = 0; i < job->nranks; i++)
        local_size += job->ranks[i].node == p->node;
    snprintf(node, sizeof node, "n%d", p->node + 1);
    rc |= set_int("SIMNCCL_RANK", r);
    rc |= set_int("SIMNCCL_NRANKS", job->nranks);
    rc |= set_int("SIMNCCL_LOCAL_RANK", p->local);
    rc |= set_int("SIMNCCL_LOCAL_SIZE", local_size);
    rc |= setenv("SIMNCCL_NODE", node, 1);
    rc |= set_int("SIMNCCL_NNODES", job->nnodes);
    rc |= set_int("RANK", r);
    rc |= set_int("WORLD_SIZE", job->nranks);
    rc |= set_int("LOCAL_RANK", p->local);
    rc |= set_int("LOCAL_WORLD_SIZE", local_size);
    rc |= setenv("COLLPROF_NODE", node, 1);
    rc |= setenv("SIMNCCL_IDDIR", job->iddir, 1);
    snprintf(node, sizeof node, "%lld", job->start_ns);
    rc |= setenv("SIMNCCL_START_NS", node, 1);
    snprintf(node, sizeof node, "%lld", job->start_realtime_ns);
    rc |= setenv("SIMNCCL_START_REALTIME_NS", node, 1);
    snprintf(node, sizeof node, "n%d", p->node + 1);
    if (job->topo_path)
        rc |= setenv("SIMNCCL_TOPO", job->topo_path, 1);
    rc |= clock_environment(job, node);
    /* Prepend, never replace: the program may need its own paths too. */
    if (old && *old) {
        path = malloc(strlen(job->libdir) + strlen(old) + 2);
        if (!path)
            return -1;
        sprintf(path, "%s:%s", job->libdir, old);
        rc |= setenv("LD_LIBRARY_PATH", path, 1);
        free(path);
    } else {
        rc |= setenv("LD_LIBRARY_PATH", job->libdir, 1);
    }
    return rc;
}

/* A planted clock offset of the rank's node: the offset in
 * SIMNCCL_CLOCK_OFFSET_NS and libsimclock.so (which shifts that process's
 * CLOCK_REALTIME by it) prepended to LD_PRELOAD, so that whatever reads the
 * time on that node, the collprof shim included, sees the node's clock. */
static int clock_environment(const struct job *job, const char *node)
{
    int64_t off = job->topo ? sim_topo_clock_offset(job->topo, node) : 0;
    const char *old = getenv("LD_PRELOAD");
    char buf[32], *lib = NULL;
    size_t len;
    int rc = 0;

    if (off == 0)
        return 0;
    snprintf(buf, sizeof buf, "%lld", (long long)off);
    len = strlen(job->libdir) + strlen("/libsimclock.so") +
          (old ? strlen(old) : 0) + 2;
    lib = malloc(len);
    if (!lib)
        return -1;
    if (old && *old)
        snprintf(lib, len, "%s/libsimclock.so:%s", job->libdir, old);
    else
        snprintf(lib, len, "%s/libsimclock.so", job->libdir);
    rc |= setenv("SIMNCCL_CLOCK_OFFSET_NS", buf, 1);
    rc |= setenv("LD_PRELOAD", lib, 1);
    free(lib);
    return rc;
}

/* mkdir -p of path (components created 0755; an existing one is fine). */
static int make_dirs(char *path)
{
    char *p;

    for (p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Write a new file dir/name holding text (refused when it exists). */
static int write_new(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    FILE *f;
    int rc;

    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return -1;
    f = fopen(path, "wx");
    if (!f)
        return -1;
    rc = fputs(text, f) < 0;
    rc |= fclose(f) != 0;
    return rc ? -1 : 0;
}

/* --sysfs DIR: a stand-in of each node's sysfs RDMA tree, as the port
 * snapshot code reads it (COLLPROF_SYSFS_ROOT=DIR/%n): one active
 * InfiniBand port per node whose rate is the topology's inter-node
 * bandwidth, so that a snapshot of a simulated node tells what its NIC
 * promises, as on a real node. */
static int write_sysfs(const struct job *job, const char *dir)
{
    double bw = job->topo ? job->topo->inter.bandwidth
                          : SIM_TOPO_DEFAULT_INTER_BANDWIDTH;
    char port[PATH_MAX], counters[PATH_MAX], rate[64];
    int k;

    snprintf(rate, sizeof rate, "%.6g Gb/sec (1X SIM)\n", bw * 8 / 1e9);
    for (k = 0; k < job->nnodes; k++) {
        if ((size_t)snprintf(port, sizeof port,
                             "%s/n%d/class/infiniband/simnccl0/ports/1", dir,
                             k + 1) >= sizeof port ||
            (size_t)snprintf(counters, sizeof counters, "%s/counters",
                             port) >= sizeof counters ||
            make_dirs(counters) != 0 ||
            write_new(port, "state", "4: ACTIVE\n") != 0 ||
            write_new(port, "phys_state", "5: LinkUp\n") != 0 ||
            write_new(port, "link_layer", "InfiniBand\n") != 0 ||
            write_new(port, "rate", rate) != 0 ||
            write_new(counters, "symbol_error", "0\n") != 0 ||
            write_new(counters, "link_downed", "0\n") != 0) {
            fprintf(stderr, "simrun: --sysfs %s: cannot write node n%d's "
                            "tree: %s\n",
                    dir, k + 1, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void signal_all(struct job *job, int sig)
{
    int r;

    /* The whole group: a rank may be a script with children. */
    for (r = 0; r < job->nranks; r++)
        if (job->ranks[r].pid > 0)
            kill(-job->ranks[r].pid, sig);
}

static const char *describe_exit(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    return buf;
}

static int exit_code_of(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static int launch(struct job *job, const sigset_t *child_mask)
{
    struct timespec now;
    int r, devnull;

    clock_gettime(CLOCK_MONOTONIC, &now);
    job->start_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    clock_gettime(CLOCK_REALTIME, &now);
    job->start_realtime_ns =
        (long long)now.tv_sec * 1000000000LL + now.tv_nsec;

    for (r = 0; r < job->nranks; r++) {
        pid_t pid = fork();

        if (pid < 0) {
            fprintf(stderr, "simrun: cannot start rank %d: %s\n", r,
                    strerror(errno));
            return -1;
        }
        if (pid == 0) {
            setpgid(0, 0);
            signal(SIGCHLD, SIG_DFL);
            sigprocmask(SIG_SETMASK, child_mask, NULL);
            devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0) {
                dup2(devnull, STDIN_FILENO);
                if (devnull != STDIN_FILENO)
                    close(devnull);
            }
            if (rank_environment(job, r) != 0) {
                fprintf(stderr, "simrun: rank %d: cannot set the "
                                "environment\n",
                        r);
                _exit(127);
            }
            execvp(job->argv[0], job->argv);
            fprintf(stderr, "simrun: rank %d: cannot run %s: %s\n", r,
                    job->argv[0], strerror(errno));
            _exit(127);
        }
        /* Also here, so that a signal sent right away finds the group. */
        setpgid(pid, pid);
        job->ranks[r].pid = pid;
        job->ranks[r].alive = 1;
        job->alive++;
    }
    return 0;
}

/* After a teardown: kill what is left in the ranks' process groups and
 * wait (simrun is their subreaper) until they are gone, so that nothing of
 * the job outlives simrun.  Bounded, in case something left the groups. */
static void reap_leftovers(struct job *job)
{
    double give_up = now_s() + GRACE_S;

    signal_all(job, SIGKILL);
    while (now_s() < give_up) {
        pid_t pid = waitpid(-1, NULL, WNOHANG);
        if (pid < 0)
            return; /* ECHILD: no descendant left */
        if (pid == 0)
            usleep(10000);
    }
}

static void on_sigchld(int sig)
{
    (void)sig; /* only to make SIGCHLD deliverable to sigtimedwait */
}

/* Wait for every rank; returns simrun's exit status. */
static int supervise(struct job *job, const sigset_t *waitset)
{
    double deadline = job->timeout_s > 0 ? now_s() + job->timeout_s : 0;
    double kill_at = 0;
    int code = 0, teardown = 0, first_failed = -1, stopped = 0;
    int interrupted = 0, timed_out = 0;

    while (job->alive > 0) {
        struct timespec ts;
        double wait = 1.0, t = now_s();
        siginfo_t info;
        int sig, status, r;
        pid_t pid;

        if (deadline > 0 && !timed_out && t >= deadline) {
            timed_out = 1;
            fprintf(stderr,
                    "simrun: timeout after %g s, killing %d running rank(s)\n",
                    job->timeout_s, job->alive);
            teardown = 1;
            signal_all(job, SIGTERM);
            kill_at = t + GRACE_S;
        }
        if (kill_at > 0 && t >= kill_at) {
            signal_all(job, SIGKILL);
            kill_at = 0;
        }
        if (deadline > 0 && !timed_out && deadline - t < wait)
            wait = deadline - t;
        if (kill_at > 0 && kill_at - t < wait)
            wait = kill_at - t;
        if (wait < 0.001)
            wait = 0.001;
        ts.tv_sec = (time_t)wait;
        ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
        sig = sigtimedwait(waitset, &info, &ts);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
            /* A second signal means "now". */
            signal_all(job, interrupted ? SIGKILL : sig);
            if (!interrupted)
                kill_at = now_s() + GRACE_S;
            interrupted = sig;
            teardown = 1;
        }
        /* Reap on every wake-up: SIGCHLDs coalesce. */
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            char what[96];

            for (r = 0; r < job->nranks; r++)
                if (job->ranks[r].pid == pid && job->ranks[r].alive)
                    break;
            if (r == job->nranks)
                continue;
            job->ranks[r].alive = 0;
            job->alive--;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                continue;
            if (teardown) {
                stopped++;
                continue;
            }
            fprintf(stderr, "simrun: rank %d (node n%d) %s\n", r,
                    job->ranks[r].node + 1,
                    describe_exit(status, what, sizeof what));
            if (first_failed < 0) {
                first_failed = r;
                code = exit_code_of(status);
            }
        }
        if (first_failed >= 0 && !teardown && job->alive > 0) {
            teardown = 1;
            signal_all(job, SIGTERM);
            kill_at = now_s() + GRACE_S;
        }
    }
    if (first_failed >= 0 && stopped > 0)
        fprintf(stderr, "simrun: stopped %d other rank(s) after rank %d "
                        "failed\n",
                stopped, first_failed);
    if (teardown)
        reap_leftovers(job);
    if (timed_out)
        return EXIT_TIMEOUT;
    if (interrupted && first_failed < 0)
        return 128 + interrupted;
    return code;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"nranks", required_argument, NULL, 'n'},
        {"nodes", required_argument, NULL, 'N'},
        {"topo", required_argument, NULL, 'T'},
        {"timeout", required_argument, NULL, 't'},
        {"sysfs", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    struct job job = {0};
    struct sim_topo *topo = NULL;
    char err[512], topo_abs[PATH_MAX], tmpl[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    sigset_t waitset, oldmask;
    struct sigaction sa = {0};
    int opt, r, code = EXIT_USAGE, nodes_given = 0;
    const char *sysfs = NULL;

    while ((opt = getopt_long(argc, argv, "+n:h", options, NULL)) != -1) {
        switch (opt) {
        case 'n':
            if (parse_count(optarg, MAX_RANKS, &job.nranks) != 0) {
                fprintf(stderr, "simrun: -n wants 1..%d, got '%s'\n",
                        MAX_RANKS, optarg);
                goto out;
            }
            break;
        case 'N':
            if (parse_count(optarg, MAX_RANKS, &job.nnodes) != 0) {
                fprintf(stderr, "simrun: --nodes wants a positive count, got "
                                "'%s'\n",
                        optarg);
                goto out;
            }
            nodes_given = 1;
            break;
        case 'T':
            job.topo_path = optarg;
            break;
        case 'S':
            sysfs = optarg;
            break;
        case 't': {
            char *end;
            job.timeout_s = strtod(optarg, &end);
            if (end == optarg || *end || !(job.timeout_s > 0)) {
                fprintf(stderr, "simrun: --timeout wants seconds > 0, got "
                                "'%s'\n",
                        optarg);
                goto out;
            }
            break;
        }
        case 'h':
            usage(stdout);
            code = 0;
            goto out;
        default:
            usage(stderr);
            goto out;
        }
    }
    if (job.nranks == 0 || optind >= argc) {
        fprintf(stderr, "simrun: %s\n",
                job.nranks == 0 ? "-n N is required" : "no program given");
        usage(stderr);
        goto out;
    }
    job.argv = argv + optind;
    if (job.topo_path) {
        topo = malloc(sizeof *topo);
        if (!topo) {
            fprintf(stderr, "simrun: out of memory\n");
            goto out;
        }
        if (sim_topo_parse_file(job.topo_path, topo, err, sizeof err) != 0) {
            fprintf(stderr, "simrun: %s\n", err);
            goto out;
        }
        if (!realpath(job.topo_path, topo_abs)) {
            fprintf(stderr, "simrun: %s: %s\n", job.topo_path,
                    strerror(errno));
            goto out;
        }
        job.topo_path = topo_abs;
        job.topo = topo;
        if (!nodes_given && topo->nodes > 0)
            job.nnodes = topo->nodes;
    }
    if (job.nnodes == 0)
        job.nnodes = 1;
    if (job.nnodes > job.nranks) {
        fprintf(stderr, "simrun: %d nodes for %d ranks: every node needs a "
                        "rank\n",
                job.nnodes, job.nranks);
        goto out;
    }
    if (find_libdir(&job) != 0) {
        fprintf(stderr, "simrun: cannot find my own directory; set "
                        "SIMNCCL_LIBDIR\n");
        goto out;
    }
    if (sysfs && write_sysfs(&job, sysfs) != 0) {
        code = 1;
        goto out;
    }
    snprintf(tmpl, sizeof tmpl, "%s/simrun.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "simrun: cannot create a directory in %s: %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        code = 1;
        goto out;
    }
    snprintf(job.iddir, sizeof job.iddir, "%s", tmpl);
    job.ranks = calloc((size_t)job.nranks, sizeof *job.ranks);
    if (!job.ranks) {
        fprintf(stderr, "simrun: out of memory\n");
        code = 1;
        goto out;
    }
    /* Blocks: rank r on node r*K/N, so nodes differ by at most one rank. */
    for (r = 0; r < job.nranks; r++) {
        job.ranks[r].node = (int)((long long)r * job.nnodes / job.nranks);
        job.ranks[r].local =
            r > 0 && job.ranks[r - 1].node == job.ranks[r].node
                ? job.ranks[r - 1].local + 1
                : 0;
    }

    /* Orphans of the ranks become our children, so that a teardown can
     * wait for them too. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    sa.sa_handler = on_sigchld;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigemptyset(&waitset);
    sigaddset(&waitset, SIGCHLD);
    sigaddset(&waitset, SIGINT);
    sigaddset(&waitset, SIGTERM);
    sigaddset(&waitset, SIGHUP);
    sigprocmask(SIG_BLOCK, &waitset, &oldmask);
    if (launch(&job, &oldmask) != 0) {
        signal_all(&job, SIGKILL);
        while (job.alive > 0 && wait(NULL) > 0)
            job.alive--;
        code = 1;
        goto out;
    }
    code = supervise(&job, &waitset);
out:
    if (job.iddir[0])
        nftw(job.iddir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(job.ranks);
    free(topo);
    return code;
}
