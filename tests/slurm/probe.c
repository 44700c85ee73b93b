/* probe.c - the link probe the plugin runs at step end: its srun command
 * line, its environment, and the verdict line from probe.json
 * (plugin/cp_plugin_probe.c). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_plugin_probe.h"
#include "cp_error.h"
#include "tap.h"

static char tmp[] = "/tmp/cp-probe-XXXXXX";

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

/* argv joined by spaces */
static const char *joined(const struct cp_probe_argv *a)
{
    static char line[8192];
    size_t i, used = 0;

    line[0] = '\0';
    for (i = 0; a->argv[i]; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s",
                                 i ? " " : "", a->argv[i]);
    return line;
}

static int env_has(char **envp, const char *entry)
{
    size_t i;
    for (i = 0; envp && envp[i]; i++)
        if (strcmp(envp[i], entry) == 0)
            return 1;
    return 0;
}

static void test_argv(void)
{
    static struct cp_probe_argv a;
    struct cp_probe_launch l;
    struct cp_error err;

    memset(&l, 0, sizeof l);
    l.srun = "/usr/bin/srun";
    l.collprof = "/opt/cp/bin/collprof";
    l.outdir = "/home/u/collprof-12.0/probe";
    l.id_dir = "/home/u/collprof-12.0";
    l.nodelist = "n[1-4]";
    l.nodes = 4;
    l.timeout_s = 120;
    l.in_allocation = 1;
    l.job_id = 12;
    is_int(cp_probe_argv(&l, &a, &err), 0, "in an allocation");
    is_str(joined(&a),
           "/usr/bin/srun --quiet --job-name=collprof-probe --collprof=off "
           "--export=ALL --jobid=12 --overlap --nodes=4 --nodelist=n[1-4] "
           "--ntasks=4 --ntasks-per-node=1 --time=3 --kill-on-bad-exit=1 "
           "/opt/cp/bin/collprof probe -q -o /home/u/collprof-12.0/probe "
           "--id-dir /home/u/collprof-12.0",
           "a step of the job: --jobid, --overlap, the step's nodes, one "
           "task each, a time limit above the plugin's");

    l.in_allocation = 0;
    l.partition = "gpu";
    l.account = "proj";
    l.qos = "";
    l.reservation = NULL;
    l.timeout_s = 30;
    is_int(cp_probe_argv(&l, &a, &err), 0, "after the job");
    is_str(joined(&a),
           "/usr/bin/srun --quiet --job-name=collprof-probe --collprof=off "
           "--export=ALL --partition=gpu --account=proj --nodes=4 "
           "--nodelist=n[1-4] --ntasks=4 --ntasks-per-node=1 --time=2 "
           "--kill-on-bad-exit=1 /opt/cp/bin/collprof probe -q -o "
           "/home/u/collprof-12.0/probe --id-dir /home/u/collprof-12.0",
           "a job of its own: the ended job's partition and account, no "
           "--jobid, no --overlap; empty settings left out");
    ok(strstr(joined(&a), "--qos") == NULL &&
           strstr(joined(&a), "--reservation") == NULL,
       "no --qos= or --reservation= when the job had none");

    l.nodelist = "";
    cp_probe_argv(&l, &a, &err);
    ok(strstr(joined(&a), "--nodelist") == NULL,
       "without the step's node list: no --nodelist");
    l.nodes = 1;
    is_int(cp_probe_argv(&l, &a, &err), -1, "1 node: refused");
    l.nodes = 2;
    l.srun = "srun";
    is_int(cp_probe_argv(&l, &a, &err), -1, "a relative srun: refused");
    l.srun = "/usr/bin/srun";
    {
        static char longlist[1200];
        memset(longlist, 'n', sizeof longlist - 1);
        l.nodelist = longlist;
        is_int(cp_probe_argv(&l, &a, &err), -1,
               "an over-long node list: refused, not cut");
        ok(strstr(err.text, "too long") != NULL, "says why (%s)", err.text);
    }
}

static void test_env(void)
{
    char *env[] = {(char *)"PATH=/usr/bin:/bin",
                   (char *)"LD_LIBRARY_PATH=/opt/nccl/lib",
                   (char *)"SIMNCCL_TOPO=/tmp/slow.topo",
                   (char *)"NCCL_SOCKET_IFNAME=ib0",
                   (char *)"SLURM_CONF=/etc/slurm/slurm.conf",
                   (char *)"SLURM_JOB_ID=12",
                   (char *)"SLURM_NNODES=4",
                   (char *)"SLURM_SPANK__SLURM_SPANK_OPTION_collprof_collprof=probe",
                   (char *)"SRUN_DEBUG=3",
                   (char *)"SPANK_X=1",
                   (char *)"COLLPROF_PROFILE=on",
                   (char *)"COLLPROF_DISABLE=0",
                   (char *)"LD_PRELOAD=/opt/cp/lib/libcollprof.so",
                   (char *)"NOEQUALS",
                   NULL};
    char **out = cp_probe_env(env);
    size_t n = 0;

    ok(out != NULL, "the probe's environment");
    while (out && out[n])
        n++;
    ok(env_has(out, "PATH=/usr/bin:/bin") &&
           env_has(out, "LD_LIBRARY_PATH=/opt/nccl/lib"),
       "PATH and the job's NCCL library path kept");
    ok(env_has(out, "SIMNCCL_TOPO=/tmp/slow.topo") &&
           env_has(out, "NCCL_SOCKET_IFNAME=ib0"),
       "SIMNCCL_* and NCCL_* kept");
    ok(env_has(out, "SLURM_CONF=/etc/slurm/slurm.conf"), "SLURM_CONF kept");
    ok(!env_has(out, "SLURM_JOB_ID=12") && !env_has(out, "SLURM_NNODES=4") &&
           !env_has(out, "SLURM_SPANK__SLURM_SPANK_OPTION_collprof_collprof="
                         "probe"),
       "the ended step's SLURM_* and the passed-on --collprof dropped");
    ok(!env_has(out, "SRUN_DEBUG=3") && !env_has(out, "SPANK_X=1"),
       "SRUN_* and SPANK_* dropped");
    ok(!env_has(out, "COLLPROF_PROFILE=on") &&
           !env_has(out, "COLLPROF_DISABLE=0") &&
           env_has(out, "COLLPROF_DISABLE=1"),
       "COLLPROF_* dropped, COLLPROF_DISABLE=1 added");
    ok(env_has(out, "LD_PRELOAD=/opt/cp/lib/libcollprof.so"),
       "the user's LD_PRELOAD kept (a shim in it passes calls through)");
    is_int((int)n, 7, "7 entries (NOEQUALS dropped)");
    cp_probe_env_free(out);
    cp_probe_env_free(NULL);
}

static const char *verdict_of(int dirfd, const char *name,
                              struct cp_probe_result *res, int *rc)
{
    static char line[1024];
    struct cp_error err;

    line[0] = '\0';
    *rc = cp_probe_read(dirfd, name, res, &err);
    if (*rc == 0)
        cp_probe_verdict(res, line, sizeof line);
    else
        snprintf(line, sizeof line, "error: %s", err.text);
    return line;
}

#define HEAD                                                                   \
    "{\"schema\": \"collprof.probe/1\", \"topology\": {\"nodes\": "           \
    "[\"n1\",\"n2\",\"n3\",\"n4\"], \"reference_Bps\": 24540299.26, "          \
    "\"reference_source\": \"median\", \"thresholds\": {\"slow\": 0.7, "       \
    "\"critical\": 0.25}, \"pairs\": [{}, {}, {}, {}, {}, {}]}, "

#define SLOW(a, b, sev, bw)                                                    \
    "{\"kind\": \"slow_link\", \"severity\": \"" sev "\", \"nodes\": "        \
    "[\"" a "\", \"" b "\"], \"evidence\": {\"bandwidth_Bps\": " bw ", "      \
    "\"peer_bandwidth_Bps\": 24540299.26}}"

static void test_read(void)
{
    struct cp_probe_result res;
    int dirfd = open(tmp, O_RDONLY | O_DIRECTORY), rc;
    const char *line;

    write_file("one.json", HEAD "\"findings\": [" SLOW(
                               "n2", "n3", "warning", "6223633.727") "]}");
    line = verdict_of(dirfd, "one.json", &res, &rc);
    is_int(rc, 0, "one slow link: read");
    ok(res.nodes == 4 && res.pairs == 6 && res.slow == 1,
       "4 nodes, 6 pairs, 1 slow (%u, %u, %u)", res.nodes, res.pairs,
       res.slow);
    is_str(line, "probe: slow link n2-n3 (6.22 MB/s against 24.5 MB/s, 25%)",
           "the verdict names the pair and both bandwidths");

    write_file("none.json", HEAD "\"findings\": []}");
    line = verdict_of(dirfd, "none.json", &res, &rc);
    is_str(line,
           "probe: every node pair within 0.7x of the median (24.5 MB/s), 6 "
           "pairs of 4 nodes measured",
           "no slow link: every pair within the threshold");

    write_file("many.json",
               HEAD "\"findings\": [" SLOW("n1", "n2", "critical", "5e6") ","
                    SLOW("n1", "n3", "critical", "5.5e6") ","
                    SLOW("n1", "n4", "warning", "7e6") ","
                    SLOW("n2", "n4", "warning", "1.2e7") ","
                    "{\"kind\": \"note\", \"severity\": \"info\"}]}");
    line = verdict_of(dirfd, "many.json", &res, &rc);
    is_int((int)res.slow, 4, "4 slow links counted, the note not");
    is_str(line,
           "probe: 4 slow links: n1-n2 (5 MB/s), n1-n3 (5.5 MB/s), n1-n4 "
           "(7 MB/s) and 1 more, against 24.5 MB/s",
           "several: the first three named, the rest counted");

    write_file("forged.json",
               HEAD "\"findings\": [" SLOW("n2\\nforged: x", "n3", "warning",
                                           "6e6") "]}");
    line = verdict_of(dirfd, "forged.json", &res, &rc);
    ok(rc == 0 && strchr(line, '\n') == NULL && strstr(line, "n2?forged"),
       "a newline in a node name cannot forge a line (%s)", line);

    write_file("gbps.json",
               "{\"schema\": \"collprof.probe/1\", \"topology\": "
               "{\"reference_Bps\": 2.5e10, \"reference_source\": \"profile\", "
               "\"thresholds\": {\"slow\": 0.5}}, \"findings\": [" SLOW(
                   "a", "b", "warning", "9.9996e5") "]}");
    line = verdict_of(dirfd, "gbps.json", &res, &rc);
    is_str(line, "probe: slow link a-b (1 MB/s against 24.5 MB/s, 4%)",
           "units rounded at their edge (999.96 KB/s is 1 MB/s); the link's own reference");
    write_file("gbps2.json",
               "{\"schema\": \"collprof.probe/1\", \"topology\": "
               "{\"reference_Bps\": 2.5e10, \"reference_source\": \"profile\", "
               "\"thresholds\": {\"slow\": 0.5}, \"pairs\": [{}]}, "
               "\"findings\": []}");
    line = verdict_of(dirfd, "gbps2.json", &res, &rc);
    is_str(line,
           "probe: every node pair within 0.5x of the site profile's (25 "
           "GB/s), 1 pair of 0 nodes measured",
           "against a profile: says so, with its threshold");

    write_file("report.json", "{\"schema\": \"collprof.report/1\"}");
    line = verdict_of(dirfd, "report.json", &res, &rc);
    ok(rc == -1 && strstr(line, "not a collprof probe report"),
       "another report is refused (%s)", line);
    write_file("broken.json", "{\"schema\": ");
    line = verdict_of(dirfd, "broken.json", &res, &rc);
    ok(rc == -1 && strstr(line, "broken.json"), "broken JSON: names the file");
    {
        char target[256], link[256];
        snprintf(target, sizeof target, "%s/one.json", tmp);
        snprintf(link, sizeof link, "%s/link.json", tmp);
        ok(symlink(target, link) == 0, "a symlinked probe.json");
        line = verdict_of(dirfd, "link.json", &res, &rc);
        is_int(rc, -1, "is not followed");
    }
    line = verdict_of(dirfd, "absent.json", &res, &rc);
    is_int(rc, -1, "an absent probe.json: -1");
    close(dirfd);
}

int main(void)
{
    if (!mkdtemp(tmp))
        skip_all("cannot make a temporary directory");
    test_argv();
    test_env();
    test_read();
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            diag("could not remove %s", tmp);
    }
    return done_testing();
}
