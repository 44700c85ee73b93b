/* findings.c - report.json's findings for syslog and the alert hook
 * (plugin/cp_plugin_findings.c). */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_plugin_findings.h"
#include "cp_error.h"
#include "tap.h"

static char tmp[] = "/tmp/cp-findings-XXXXXX";
static struct cp_finding seen[8];
static int nseen;

static void collect(const struct cp_finding *f, void *arg)
{
    (void)arg;
    if (nseen < 8)
        seen[nseen++] = *f;
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int read_report(int dirfd, const char *name, struct cp_error *err)
{
    nseen = 0;
    memset(seen, 0, sizeof seen);
    return cp_findings_read(dirfd, name, collect, NULL, err);
}

int main(void)
{
    struct cp_error err;
    char path[256];
    int dirfd;

    if (!mkdtemp(tmp))
        skip_all("cannot make a temporary directory");
    dirfd = open(tmp, O_RDONLY | O_DIRECTORY);
    write_file("report.json",
               "{\"schema\": \"collprof.report/1\", \"findings\": ["
               "{\"kind\": \"slow_link\", \"severity\": \"critical\","
               " \"nodes\": [\"n2\", \"n3\"], \"ranks\": [2,3,4,5],"
               " \"message\": \"link n2-n3 at 50 MB/s\\nforged line\"},"
               "{\"kind\": \"latency_bound\", \"severity\": \"warning\","
               " \"nodes\": [], \"message\": \"small buckets\"},"
               "{\"kind\": \"note\", \"severity\": \"info\"}]}");
    is_int(read_report(dirfd, "report.json", &err), 3, "three findings");
    is_str(seen[0].kind, "slow_link", "kind");
    ok(seen[0].severity == CP_SEVERITY_CRITICAL, "critical");
    is_str(seen[0].nodes, "n2,n3", "nodes joined");
    is_str(seen[0].message, "link n2-n3 at 50 MB/s?forged line",
           "a newline in a message cannot forge a log line");
    ok(seen[1].severity == CP_SEVERITY_WARNING && seen[1].nodes[0] == '\0',
       "warning without nodes");
    ok(seen[2].severity == CP_SEVERITY_INFO && seen[2].message[0] == '\0',
       "info without message");
    is_str(cp_severity_name(CP_SEVERITY_CRITICAL), "critical", "severity names");

    write_file("empty.json", "{\"schema\": \"collprof.report/1\"}");
    is_int(read_report(dirfd, "empty.json", &err), 0, "no findings array: 0");
    write_file("bad.json", "{\"findings\": [");
    is_int(read_report(dirfd, "bad.json", &err), -1, "broken JSON: -1");
    ok(strstr(err.text, "bad.json") != NULL, "names the file (%s)", err.text);
    snprintf(path, sizeof path, "%s/report.json", tmp);
    {
        char link[256];
        snprintf(link, sizeof link, "%s/link.json", tmp);
        ok(symlink(path, link) == 0, "a symlinked report");
    }
    is_int(read_report(dirfd, "link.json", &err), -1, "is not followed");
    is_int(read_report(dirfd, "absent.json", &err), -1, "an absent report: -1");
    /* a FIFO in its place is refused at once (alarm: it must not block) */
    snprintf(path, sizeof path, "%s/fifo.json", tmp);
    ok(mkfifo(path, 0600) == 0, "a FIFO named like a report");
    alarm(10);
    is_int(read_report(dirfd, "fifo.json", &err), -1, "is refused without blocking");
    alarm(0);
    ok(strstr(err.text, "fifo.json") && strstr(err.text, "regular file"),
       "the error names it and says why (%s)", err.text);
    close(dirfd);
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            diag("could not remove %s", tmp);
    }
    return done_testing();
}
