/* relay.c - cp_watch_relay: the lines collprof watch appends to
 * STEPDIR/watch.log reach srun's stderr while the step runs, once each,
 * whole, with the prefix and without their time; a step directory made
 * after the start is picked up; what came just before the stop is printed
 * by the stop; a watch.log that is a link is never read; control bytes
 * are shown as '?'; the thread blocks every signal. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cp_watch_relay.h"
#include "tap.h"

static void append(const char *dir, const char *text)
{
    char path[4200];
    FILE *f;

    snprintf(path, sizeof path, "%s/watch.log", dir);
    f = fopen(path, "a");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *slurp(FILE *f)
{
    static char buf[8192];
    size_t n;

    fflush(f);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fseek(f, 0, SEEK_END);
    return buf;
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

int main(void)
{
    char base[] = "/tmp/cp-relay-XXXXXX", dir[256], link[300], *got;
    FILE *out = tmpfile();

    if (!mkdtemp(base) || !out)
        return 1;
    snprintf(dir, sizeof dir, "%s/collprof-7.0", base);
    ok(cp_relay_start(dir, getuid(), "collprof: job 7.0: ", out) == 0,
       "started before the step directory exists");
    nap_ms(300);
    mkdir(dir, 0700);
    append(dir, "2026-12-07T10:42:07Z collprof watch: HUNG in allreduce seq 30 "
                "on world: rank 1 (n1) never arrived\n");
    nap_ms(2500);
    got = slurp(out);
    ok(strcmp(got, "collprof: job 7.0: watch: HUNG in allreduce seq 30 on "
                   "world: rank 1 (n1) never arrived\n") == 0,
       "the line on the output within the look's second, without its time "
       "(%zu bytes)", strlen(got));
    append(dir, "2026-12-07T10:43:00Z collprof watch: a \033[31m part");
    nap_ms(1500);
    ok(strcmp(slurp(out), got) == 0, "a line not ended yet: not printed");
    append(dir, " ended\n2026-12-07T10:43:01Z collprof watch: job 7.0: on "
                "hang: done\n");
    cp_relay_stop();
    got = slurp(out);
    ok(strstr(got, "collprof: job 7.0: watch: a ?[31m part ended\n"
                   "collprof: job 7.0: watch: on hang: done\n") != NULL &&
           strstr(got, "HUNG") == strstr(got, "HUNG in") &&
           strstr(strstr(got, "HUNG") + 1, "HUNG") == NULL,
       "the stop prints what came last, once each; the escape byte as '?'; "
       "the step's name not twice");
    cp_relay_stop(); /* again: nothing */

    /* watch.log as a link to a file: never read */
    snprintf(dir, sizeof dir, "%s/collprof-8.0", base);
    mkdir(dir, 0700);
    snprintf(link, sizeof link, "%s/secret", base);
    {
        FILE *s = fopen(link, "w");
        if (s) {
            fputs("2026-12-07T10:42:07Z secret line\n", s);
            fclose(s);
        }
    }
    snprintf(link, sizeof link, "%s/watch.log", dir);
    if (symlink("../secret", link) < 0)
        return 1;
    fflush(out);
    if (ftruncate(fileno(out), 0) < 0)
        return 1;
    rewind(out);
    ok(cp_relay_start(dir, getuid(), "p: ", out) == 0, "started again");
    nap_ms(1500);
    cp_relay_stop();
    got = slurp(out);
    ok(got[0] == '\0', "watch.log a link: nothing read ('%s')", got);
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
        if (system(cmd) != 0)
            diag("could not remove %s", base);
    }
    return done_testing();
}
