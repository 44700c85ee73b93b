/* maxrss.c - run a command, print its peak resident set size.
 *
 *   maxrss CMD ARGS...   stderr gets "maxrss_kib N" after CMD's own output;
 *                        the exit status is CMD's (128 + signal if killed).
 *
 * getrusage of the waited-for child (wait4), so the figure is that process
 * alone, not this wrapper.
 */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct rusage ru;
    pid_t pid;
    int status;

    if (argc < 2) {
        fprintf(stderr, "usage: maxrss CMD ARGS...\n");
        return 2;
    }
    pid = fork();
    if (pid < 0) {
        perror("maxrss: fork");
        return 1;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("maxrss: exec");
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("maxrss: wait4");
        return 1;
    }
    fprintf(stderr, "maxrss_kib %ld\n", ru.ru_maxrss);
    fprintf(stderr, "cpu_s %.3f\n",
            ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
                (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    fprintf(stderr, "user_s %.3f\n",
            ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
