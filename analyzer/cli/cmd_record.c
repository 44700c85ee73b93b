/* cmd_record.c - collprof record: run a command under the shim. */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp_path.h"
#include "cp_cmds.h"
#include "cp_logread.h"
#include "cp_ports.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof record -o DIR [--timer auto|host|event|cupti] "
            "[--] CMD [ARGS...]\n"
            "\n"
            "Runs CMD with libcollprof.so preloaded (in front of any LD_PRELOAD\n"
            "it already has), so that every NCCL call of every process it\n"
            "starts is logged into DIR, one file per process.  DIR is created\n"
            "if missing; one that already holds rank logs is refused (the\n"
            "analyzer would join two runs).  The exit status is CMD's (128+N if killed by signal\n"
            "N).  Read the logs with 'collprof dump DIR'.\n"
            "\n"
            "  -o, --output DIR   where the rank logs go (required)\n"
            "  --timer T          timer for the shim (default auto)\n"
            "  -q, --quiet        no summary line at the end\n"
            "\n"
            "The shim is looked for in $COLLPROF_PRELOAD, next to collprof's\n"
            "install (../lib/libcollprof.so), then in its build tree.\n");
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Where is libcollprof.so?  Fills out (PATH_MAX) or returns -1. */
static int find_shim(char *out)
{
    char exe[PATH_MAX], *slash;
    const char *env = getenv("COLLPROF_PRELOAD");
    const char *rel[] = {"/../lib/libcollprof.so",
                         "/../preload/.libs/libcollprof.so", NULL};
    ssize_t n;
    int i;

    if (env && *env) {
        if (!is_file(env))
            return -1;
        snprintf(out, PATH_MAX, "%s", env);
        return 0;
    }
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        for (i = 0; rel[i]; i++) {
            char candidate[PATH_MAX + 64];
            snprintf(candidate, sizeof candidate, "%s%s", exe, rel[i]);
            if (is_file(candidate) && realpath(candidate, out))
                return 0;
        }
    }
    snprintf(out, PATH_MAX, "%s/libcollprof.so", CP_LIBDIR);
    if (is_file(out))
        return 0;
    snprintf(out, PATH_MAX, "%s/libcollprof.so", CP_BUILD_PRELOAD);
    return is_file(out) ? 0 : -1;
}

/* Count what landed in dir, for the closing line. */
/* How many rank logs DIR already holds (-1: unreadable): a second run
 * recorded beside them would be joined with them by the analyzer. */
static long count_logs(const char *dir)
{
    size_t k = strlen(CP_LOG_SUFFIX);
    struct dirent *de;
    long n = 0;
    DIR *d = opendir(dir);

    if (!d)
        return -1;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > k && strcmp(de->d_name + len - k, CP_LOG_SUFFIX) == 0)
            n++;
    }
    closedir(d);
    return n;
}

static void summarize(const char *dir)
{
    char **paths = NULL;
    int n, i;
    uint64_t calls = 0;
    union cp_rec rec;

    n = cp_logdir_list(dir, &paths, NULL);
    for (i = 0; i < n; i++) {
        struct cp_logfile *lf = cp_logfile_open(paths[i], NULL);
        while (lf && cp_logfile_next(lf, &rec, NULL) == 1)
            calls += rec.kind == CP_REC_CALL;
        cp_logfile_close(lf);
    }
    cp_logdir_free(paths);
    fprintf(stderr, "collprof: %llu NCCL calls from %d process%s in %s\n",
            (unsigned long long)calls, n > 0 ? n : 0, n == 1 ? "" : "es", dir);
    if (n <= 0)
        fprintf(stderr,
                "collprof: no process called NCCL through the shim: the "
                "program may not use NCCL, or may link it statically or load "
                "it in a way LD_PRELOAD does not reach (the shim wraps the "
                "libnccl.so.2 a process loads dynamically; a launcher that "
                "clears LD_PRELOAD also hides it)\n");
}

/* The nodes the job's logs in dir name: how many logs, and *node the one
 * node they all name ("" when none or several; *several set then). */
static int log_nodes(const char *dir, char *node, size_t len, int *several)
{
    char **paths = NULL;
    int n, i;

    node[0] = '\0';
    *several = 0;
    n = cp_logdir_list(dir, &paths, NULL);
    for (i = 0; i < n; i++) {
        struct cp_logfile *lf = cp_logfile_open(paths[i], NULL);
        const struct cp_log_header *h = lf ? cp_logfile_header(lf) : NULL;
        char name[sizeof h->node + 1];
        if (h) {
            memcpy(name, h->node, sizeof h->node);
            name[sizeof h->node] = '\0';
            if (!*several && !node[0]) {
                size_t k = strnlen(name, len - 1);
                memcpy(node, name, k);
                node[k] = '\0';
            } else if (strncmp(node, name, len - 1) != 0) {
                *several = 1;
            }
        }
        cp_logfile_close(lf);
    }
    cp_logdir_free(paths);
    if (*several)
        node[0] = '\0';
    return n > 0 ? n : 0;
}

/* The port snapshots taken around the program, kept under the name of the
 * node the job's logs give this host (the analysis matches snapshots to
 * the logs' nodes by name); none when no process wrote a log, and under
 * the host's own name when the logs name several nodes (a simulated
 * multi-node job on one machine). */
static void keep_port_snapshots(const char *dir, struct cp_ports_snapshot *start,
                                struct cp_ports_snapshot *end, int quiet)
{
    char node[sizeof start->node];
    struct cp_error err;
    int several, n = log_nodes(dir, node, sizeof node, &several);

    if (n == 0) {
        if (!quiet)
            fprintf(stderr, "collprof: no port snapshot kept: no process "
                            "wrote a log\n");
        return;
    }
    if (node[0]) {
        snprintf(start->node, sizeof start->node, "%s", node);
        snprintf(end->node, sizeof end->node, "%s", node);
    } else if (several && !quiet) {
        fprintf(stderr,
                "collprof: the logs name several nodes, so this host's "
                "network-port counters (read at the run's start and end, for "
                "the port rate the analysis expects and for ports that "
                "degraded or counted errors) are kept under its own name %s, "
                "as ports-%s-start.json and ports-%s-end.json\n",
                start->node, start->node, start->node);
    }
    if (cp_ports_write(start, dir, &err) < 0 || cp_ports_write(end, dir, &err) < 0)
        fprintf(stderr, "collprof record: port snapshot: %s\n", err.text);
}

/* "auto" or a timer's name as the log format spells it (cp_timer_name). */
static int timer_known(const char *name)
{
    unsigned t;

    if (strcmp(name, "auto") == 0)
        return 1;
    for (t = CP_TIMER_HOST; t <= CP_TIMER_CUPTI; t++)
        if (strcmp(name, cp_timer_name(t)) == 0)
            return 1;
    return 0;
}

/* The command line: -o DIR, --timer, -q.  0, 1 when --help was written,
 * -1 after a message (a usage error). */
static int parse_args(int argc, char **argv, const char **dir,
                      const char **timer, int *quiet)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"timer", required_argument, 0, 't'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;

    *dir = *timer = NULL;
    *quiet = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': *dir = optarg; break;
        case 't':
            *timer = optarg;
            if (!timer_known(*timer)) {
                fprintf(stderr, "collprof record: --timer: '%s' is not one "
                                "of auto, host, event, cupti "
                                "(docs/timers.md)\n", *timer);
                return -1;
            }
            break;
        case 'q': *quiet = 1; break;
        case 'h': usage(stdout); return 1;
        default: cp_cli_bad_option("record", argv, c); return -1;
        }
    }
    if (!*dir) {
        fprintf(stderr, "collprof record: -o DIR is required\n");
        return -1;
    }
    if (optind >= argc) {
        fprintf(stderr, "collprof record: no command given (collprof record "
                        "-o DIR -- CMD ARGS...)\n");
        return -1;
    }
    return 0;
}

/* DIR created, its absolute name in absdir, and holding no rank log of an
 * earlier run: 0, or the exit status after a message. */
static int prepare_dir(const char *dir, char *absdir)
{
    long nlogs;

    if (cp_path_mkdir(dir, 0755) < 0 || !realpath(dir, absdir)) {
        fprintf(stderr, "collprof record: cannot create %s: %s\n", dir,
                strerror(errno));
        return 1;
    }
    nlogs = count_logs(absdir);
    if (nlogs == 0)
        return 0;
    if (nlogs < 0)
        fprintf(stderr, "collprof record: cannot read %s: %s\n", absdir,
                strerror(errno));
    else
        fprintf(stderr,
                "collprof record: %s already holds %ld rank log%s (*%s) "
                "of an earlier run, which the analyzer would join with "
                "this one; give another -o DIR, or move them away\n",
                absdir, nlogs, nlogs == 1 ? "" : "s", CP_LOG_SUFFIX);
    return nlogs < 0 ? 1 : 2;
}

/* The shim prepended to LD_PRELOAD (*preload: what to free), the log
 * directory and the timer in the environment the command inherits: 0, or
 * the exit status after a message. */
static int set_environment(const char *absdir, const char *timer,
                           char **preload)
{
    char shim[PATH_MAX];
    const char *old;

    *preload = NULL;
    if (find_shim(shim) < 0) {
        fprintf(stderr,
                "collprof record: libcollprof.so not found (set "
                "COLLPROF_PRELOAD to its path)\n");
        return 1;
    }
    old = getenv("LD_PRELOAD");
    if (old && *old) {
        size_t len = strlen(shim) + strlen(old) + 2;
        *preload = malloc(len);
        if (!*preload) {
            fprintf(stderr, "collprof record: out of memory\n");
            return 1;
        }
        snprintf(*preload, len, "%s:%s", shim, old);
    }
    if (setenv("LD_PRELOAD", *preload ? *preload : shim, 1) < 0 ||
        setenv("COLLPROF_DIR", absdir, 1) < 0 ||
        (timer && setenv("COLLPROF_TIMER", timer, 1) < 0)) {
        fprintf(stderr, "collprof record: cannot set the environment: %s\n",
                strerror(errno));
        return 2;
    }
    unsetenv("COLLPROF_DISABLE");
    return 0;
}

/* Runs the command and waits for it: its exit status (128 + the signal
 * that ended it), or 1 when it could not be started or waited for. */
static int run_command(char **cmd)
{
    pid_t pid = fork();
    int status;

    if (pid < 0) {
        fprintf(stderr, "collprof record: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        execvp(cmd[0], cmd);
        fprintf(stderr, "collprof record: cannot run %s: %s\n", cmd[0],
                strerror(errno));
        _exit(127);
    }
    /* The child gets the terminal's signals itself; keep waiting for it. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "collprof record: waitpid: %s\n", strerror(errno));
            return 1;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cp_cmd_record(int argc, char **argv)
{
    const char *dir, *timer;
    char absdir[PATH_MAX], *preload = NULL;
    struct cp_error perr;
    struct cp_ports_snapshot snap_start, snap_end;
    char node[64];
    int have_start = 0, quiet, rc;

    rc = parse_args(argc, argv, &dir, &timer, &quiet);
    if (rc != 0) {
        rc = rc > 0 ? 0 : 2;
        goto out;
    }
    rc = prepare_dir(dir, absdir);
    if (rc == 0)
        rc = set_environment(absdir, timer, &preload);
    if (rc != 0)
        goto out;
    /* this node's RDMA ports before and after (docs/plugin.md, "Port
     * snapshots"), written when the logs say which node this is; a failure
     * costs the analysis its port evidence only */
    cp_ports_node_name(node, sizeof node);
    have_start = cp_ports_take(&snap_start, node, "start", NULL, &perr) == 0;
    if (!have_start)
        fprintf(stderr, "collprof record: port snapshot: %s\n", perr.text);
    rc = run_command(argv + optind);
    if (have_start) {
        if (cp_ports_take(&snap_end, node, "end", NULL, &perr) == 0) {
            keep_port_snapshots(absdir, &snap_start, &snap_end, quiet);
            cp_ports_clear(&snap_end);
        } else {
            fprintf(stderr, "collprof record: port snapshot: %s\n",
                    perr.text);
        }
    }
    if (!quiet)
        summarize(absdir);
out:
    if (have_start)
        cp_ports_clear(&snap_start);
    free(preload);
    return rc;
}
