/* collprof.c - the collprof command: dispatch to a subcommand. */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <time.h>
#include <sys/wait.h>
#include <signal.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cp_cmds.h"
#include "cp_error.h"
#include "cp_path.h"
#include "cp_text.h"
#include "cp_units.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"record", cp_cmd_record, "run a command with NCCL calls recorded"},
    {"dump", cp_cmd_dump, "print the recorded calls of rank logs"},
    {"model", cp_cmd_model, "alpha-beta times of collective algorithms"},
    {"analyze", cp_cmd_analyze, "explain where the communication time went"},
    {"bench", cp_cmd_bench, "measure collectives as nccl-tests does, calibrate"},
    {"probe", cp_cmd_probe, "measure every node pair, name the slow links"},
    {"trace", cp_cmd_trace, "the calls of every rank as a Perfetto timeline"},
    {"report", cp_cmd_report, "render a saved report.json as report.html"},
    {"ports", cp_cmd_ports, "snapshot this node's RDMA ports"},
    {"reduce", cp_cmd_reduce, "one node's logs into its partial, for the merge"},
    {"watch", cp_cmd_watch, "a running job's hang or slowdown named while it runs"},
    {"fleet", cp_cmd_fleet, "every job's link and node evidence, judged across jobs"},
};

void cp_cli_bad_option(const char *cmd, char **argv, int c)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    char shortopt[3] = {'-', (char)optopt, '\0'};

    /* a short option inside a group ("-qx") is named alone */
    if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2) != 0)
        arg = shortopt;
    if (c == ':')
        fprintf(stderr, "collprof %s: option '%s' needs a value (try collprof "
                        "%s --help)\n", cmd, arg, cmd);
    else
        fprintf(stderr, "collprof %s: unknown option '%s' (try collprof %s "
                        "--help)\n", cmd, arg, cmd);
}

int cp_cli_options(const char *cmd, int argc, char **argv,
                   const char *shortopts, const struct option *longopts,
                   void (*usage)(FILE *out),
                   int (*take)(int c, const char *arg, void *ctx), void *ctx)
{
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        if (c == '?' || c == ':') {
            cp_cli_bad_option(cmd, argv, c);
            return -1;
        }
        if (take(c, optarg, ctx) < 0)
            return -1;
    }
    return 0;
}

int cp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "collprof %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (collprof %s --help)\n", cmd);
    return 2;
}

int cp_cli_positive_time(const char *cmd, const char *name, const char *text,
                         double *v)
{
    struct cp_error e;

    if (cp_units_parse_time(text, v, &e) < 0)
        return cp_cli_usage_error(cmd, "%s: %s", name, e.text);
    if (!(*v > 0))
        return cp_cli_usage_error(cmd, "%s: must be above 0", name);
    return 0;
}

void cp_cli_run_hook(const char *cmd, const char *prog,
                     const char *const *env, unsigned timeout_s)
{
    const char *argv[] = {prog, NULL};

    cp_cli_run(cmd, argv, env, timeout_s);
}

int cp_cli_run(const char *cmd, const char *const *argv,
               const char *const *env, unsigned timeout_s)
{
    char *envp[8] = {(char *)"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                             "/usr/bin:/sbin:/bin"};
    const char *prog = argv[0];
    struct timespec tick = {0, 100000000L};
    size_t n = 1;
    unsigned i;
    pid_t pid;
    int status;

    while (env && env[n - 1] && n < sizeof envp / sizeof envp[0] - 1) {
        envp[n] = (char *)env[n - 1];
        n++;
    }
    envp[n] = NULL;
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        setpgid(0, 0);
        execve(prog, (char *const *)argv, envp);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    for (i = 0; i < timeout_s * 10; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status)
                                     : 128 + WTERMSIG(status);
        nanosleep(&tick, NULL);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cp_cli_say(stderr, "collprof %s: %s: killed after %u s", cmd, prog,
               timeout_s);
    return -1;
}

void cp_cli_say(FILE *to, const char *fmt, ...)
{
    char line[8192], shown[CP_TEXT_SHOWN_SIZE(sizeof line)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(to, "%s\n", cp_text_shown(shown, sizeof shown, line, sizeof line,
                                      0));
}

int cp_cli_anchor(const char *cmd, const char *path)
{
    struct cp_error err;

    if (cp_path_anchor(path, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", cmd, err.text);
        return -1;
    }
    return 0;
}

static void usage(FILE *out)
{
    size_t i;

    fprintf(out,
            "usage: collprof COMMAND [ARGS...]\n"
            "\n"
            "collprof times every NCCL call of every rank and explains where\n"
            "the communication time of a job went.\n"
            "\n"
            "commands:\n");
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'collprof COMMAND --help' describes one command.\n"
                 "  collprof record -o DIR -- CMD ARGS...\n"
                 "  collprof analyze DIR -o OUT    (OUT/report.json, "
                 "OUT/report.html)\n"
                 "  collprof dump [--csv | --summary] DIR\n"
                 "On Slurm: srun --collprof ... (the SPANK plugin).\n");
}

/* Under a limit on address space (ulimit -v, as a site may set for jobs
 * and admins for tools run as root), one malloc arena: glibc gives each
 * thread that meets contention an arena of its own, which reserves 64 MiB
 * of address space (128 MiB while it is made) whatever it holds, so that
 * `analyze -j 2` under 256 MiB failed half the time on memory it never
 * used (tests/security/memory.sh). */
static void one_arena_when_limited(void)
{
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    struct rlimit rl;

    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        mallopt(M_ARENA_MAX, 1);
#endif
}

int main(int argc, char **argv)
{
    size_t i;

    one_arena_when_limited();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("collprof %s\n", PACKAGE_VERSION);
#ifdef CP_SLURM_VERSION
        printf("SPANK plugin built for Slurm %s (it loads only under "
               "Slurm %s)\n",
               CP_SLURM_VERSION, CP_SLURM_SERIES);
#else
        printf("SPANK plugin not built (no slurm/spank.h at configure)\n");
#endif
        return 0;
    }
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "collprof: unknown command '%s' (try collprof --help)\n",
            argv[1]);
    return 2;
}
