/* topo_test.c - the topology parser: units, defaults, lookups, and every
 * error path naming file:line and the key. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_topo.h"
#include "tap.h"

static struct sim_topo topo;
static char err[512];

static void test_durations(void)
{
    static const struct {
        const char *text;
        int64_t ns;
    } good[] = {{"5us", 5000},       {"1.5ms", 1500000}, {"2s", 2000000000},
                {"100ns", 100},      {"0us", 0},         {".5us", 500},
                {"20us", 20000},     {"0.25s", 250000000}};
    static const char *const bad[] = {"5",     "5xs",  "-1us", "us",  "inf",
                                      "nanus", "0x10us", "5US", "",   "5 us",
                                      "1e3us"};
    size_t i;

    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t ns = -1;
        is_int(sim_topo_parse_duration(good[i].text, &ns), 0, "duration '%s'",
               good[i].text);
        is_int(ns, good[i].ns, "duration '%s' in ns", good[i].text);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ns;
        is_int(sim_topo_parse_duration(bad[i], &ns), -1,
               "duration '%s' refused", bad[i]);
    }
}

static void test_bandwidths(void)
{
    static const struct {
        const char *text;
        double bps;
    } good[] = {{"2GB/s", 2e9},
                {"400MB/s", 4e8},
                {"1KB/s", 1e3},
                {"10B/s", 10},
                {"1KiB/s", 1024},
                {"1MiB/s", 1048576},
                {"1GiB/s", 1073741824.0},
                {"0.5GB/s", 5e8},
                {"100MB/s", 1e8}};
    static const char *const bad[] = {"0GB/s", "2Gb/s", "2GB",  "GB/s",
                                      "2",     "-1MB/s", "2gb/s", "2 GB/s",
                                      "2TB/s"};
    size_t i;

    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        double b = -1;
        is_int(sim_topo_parse_bandwidth(good[i].text, &b), 0,
               "bandwidth '%s'", good[i].text);
        is_near(b, good[i].bps, 1e-12, "bandwidth '%s' in B/s", good[i].text);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double b;
        is_int(sim_topo_parse_bandwidth(bad[i], &b), -1,
               "bandwidth '%s' refused", bad[i]);
    }
}

static void test_defaults(void)
{
    struct sim_link_params p;

    is_int(sim_topo_parse_string("", "empty", &topo, err, sizeof err), 0,
           "empty file");
    is_int(topo.nodes, 0, "no node count");
    is_int(topo.intra.latency_ns, 5000, "default intra latency 5us");
    is_near(topo.intra.bandwidth, 2e9, 1e-12, "default intra 2GB/s");
    is_int(topo.inter.latency_ns, 20000, "default inter latency 20us");
    is_near(topo.inter.bandwidth, 400e6, 1e-12, "default inter 400MB/s");
    p = sim_topo_pair(&topo, "n1", "n1");
    is_int(p.latency_ns, 5000, "same node is intra");
    p = sim_topo_pair(&topo, "n1", "n2");
    is_int(p.latency_ns, 20000, "other node is inter");
    is_int(sim_topo_straggler_delay(&topo, 0), 0, "no straggler");
}

static void test_example(void)
{
    const char *text = "# the example of the README\n"
                       "nodes 4\n"
                       "\n"
                       "intra latency=5us bandwidth=2GB/s\n"
                       "inter\tlatency=20us   bandwidth=400MB/s  # fabric\n"
                       "link n2 n3 bandwidth=100MB/s latency=40us\r\n"
                       "straggler rank=5 delay=2ms\n"
                       "straggler rank=5 delay=1ms\n"
                       "   # indented comment\n";
    struct sim_link_params p;

    is_int(sim_topo_parse_string(text, "ex.topo", &topo, err, sizeof err), 0,
           "example parses (%s)", err);
    is_int(topo.nodes, 4, "nodes 4");
    p = sim_topo_pair(&topo, "n2", "n3");
    is_int(p.latency_ns, 40000, "link n2-n3 latency");
    is_near(p.bandwidth, 100e6, 1e-12, "link n2-n3 bandwidth");
    p = sim_topo_pair(&topo, "n3", "n2");
    is_near(p.bandwidth, 100e6, 1e-12, "link applies both ways");
    p = sim_topo_pair(&topo, "n1", "n3");
    is_near(p.bandwidth, 400e6, 1e-12, "other pairs stay inter");
    p = sim_topo_pair(&topo, "n3", "n3");
    is_near(p.bandwidth, 2e9, 1e-12, "same node stays intra");
    is_int(sim_topo_straggler_delay(&topo, 5), 3000000,
           "straggler delays add up");
    is_int(sim_topo_straggler_delay(&topo, 4), 0, "other ranks not delayed");
}

/* A link slowed from a time on, and back again. */
static void test_link_from(void)
{
    const char *text = "link n2 n3 bandwidth=100MB/s\n"
                       "link n2 n3 bandwidth=10MB/s latency=2ms from=1.5s\n"
                       "link n3 n2 bandwidth=100MB/s from=3s\n";
    struct sim_link_params p;

    is_int(sim_topo_parse_string(text, "from.topo", &topo, err, sizeof err),
           0, "link ... from= parses (%s)", err);
    p = sim_topo_pair(&topo, "n2", "n3");
    is_near(p.bandwidth, 100e6, 1e-12, "at the start: the line without from=");
    p = sim_topo_pair_at(&topo, "n3", "n2", 1499999999);
    is_near(p.bandwidth, 100e6, 1e-12, "just before from=1.5s: unchanged");
    p = sim_topo_pair_at(&topo, "n2", "n3", 1500000000);
    is_near(p.bandwidth, 10e6, 1e-12, "from 1.5 s: slowed");
    is_int(p.latency_ns, 2000000, "from 1.5 s: its latency");
    p = sim_topo_pair_at(&topo, "n2", "n3", 3000000000LL);
    is_near(p.bandwidth, 100e6, 1e-12, "from 3 s: back (either order)");
    is_int(p.latency_ns, 20000, "from 3 s: a key left out is inter's");
    is_int(sim_topo_pair_change(&topo, "n2", "n3", 0), 1500000000,
           "the first change after the start");
    is_int(sim_topo_pair_change(&topo, "n2", "n3", 1500000000), 3000000000LL,
           "the next change");
    ok(sim_topo_pair_change(&topo, "n2", "n3", 3000000000LL) == INT64_MAX,
       "no change after the last");
    ok(sim_topo_pair_change(&topo, "n1", "n2", 0) == INT64_MAX,
       "other pairs never change");
    p = sim_topo_pair_at(&topo, "n1", "n2", 2000000000);
    is_near(p.bandwidth, 400e6, 1e-12, "other pairs stay inter");
    ok(sim_topo_parse_string("link n2 n3 bandwidth=1MB/s from=soon\n",
                             "bad.topo", &topo, err, sizeof err) == -1 &&
           strstr(err, "bad.topo:1") && strstr(err, "from"),
       "a bad from= names file, line and key: %s", err);
}

static void test_link_defaults(void)
{
    const char *text = "link a b latency=1ms\n"
                       "link c d bandwidth=1MB/s\n"
                       "inter latency=7us bandwidth=3GB/s\n"
                       "link a b latency=2ms\n";
    struct sim_link_params p;

    is_int(sim_topo_parse_string(text, "l.topo", &topo, err, sizeof err), 0,
           "links parse (%s)", err);
    p = sim_topo_pair(&topo, "c", "d");
    is_int(p.latency_ns, 7000, "omitted latency is inter's, set later");
    is_near(p.bandwidth, 1e6, 1e-12, "given bandwidth kept");
    p = sim_topo_pair(&topo, "b", "a");
    is_int(p.latency_ns, 2000000, "a later link line wins");
    is_near(p.bandwidth, 3e9, 1e-12, "omitted bandwidth is inter's");
}

/* One bad line at line 3; the message starts "bad.topo:3:" and names the
 * key or word. */
static void expect_error(const char *line, const char *mention)
{
    char text[512];

    snprintf(text, sizeof text, "# comment\nnodes 2\n%s\nintra latency=1us\n",
             line);
    err[0] = '\0';
    is_int(sim_topo_parse_string(text, "bad.topo", &topo, err, sizeof err), -1,
           "'%s' refused", line);
    ok(strncmp(err, "bad.topo:3: ", 12) == 0 && strstr(err, mention) != NULL,
       "message names bad.topo:3 and %s: %s", mention, err);
}

static void test_errors(void)
{
    char longname[200];

    expect_error("foo 1", "'foo'");
    expect_error("Intra latency=5us", "'Intra'");
    expect_error("intra latency=5us speed=1GB/s", "'speed'");
    expect_error("intra latency=5xs", "'latency'");
    expect_error("intra latency=5", "'latency'");
    expect_error("inter bandwidth=0MB/s", "'bandwidth'");
    expect_error("inter bandwidth=2Gb/s", "'bandwidth'");
    expect_error("intra", "'intra'");
    expect_error("intra latency=1us latency=2us", "'latency'");
    expect_error("intra =5us", "'=5us'");
    expect_error("intra latency", "'latency'");
    expect_error("link n1", "'link'");
    expect_error("link n1 n2 n3", "'n3'");
    expect_error("link n1 bandwidth=1GB/s", "'bandwidth=1GB/s'");
    expect_error("link n1 n2 delay=1ms", "'delay'");
    expect_error("straggler rank=1", "'delay'");
    expect_error("straggler delay=1ms", "'rank'");
    expect_error("straggler rank=x delay=1ms", "'rank'");
    expect_error("straggler rank=-1 delay=1ms", "'rank'");
    expect_error("straggler rank=1 delay=soon", "'delay'");
    expect_error("straggler rank=1 delay=1ms latency=1us", "'latency'");
    expect_error("nodes", "'nodes'");
    expect_error("nodes 0", "'nodes'");
    expect_error("nodes four", "'four'");
    expect_error("nodes 4 5", "'5'");
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    {
        char line[300];
        snprintf(line, sizeof line, "link %.150s n2", longname);
        expect_error(line, "longer than");
    }
}

static void test_faults(void)
{
    const char *text = "hang rank=3 after=40\n"
                       "hang rank=4 in=broadcast\n"
                       "hang rank=6 in=allreduce after=7\n"
                       "kill rank=5 after=100\n"
                       "kill rank=7 in=reduce after=2\n"
                       "mismatch rank=2 seq=10 count=+1\n"
                       "mismatch rank=1 seq=3 op=reducescatter\n"
                       "swap rank=0 seq=12\n";
    const struct sim_topo_fault *f;

    is_int(sim_topo_parse_string(text, "faults.topo", &topo, err, sizeof err),
           0, "fault directives parse (%s)", err);
    is_int(topo.n_faults, 8, "eight faults");
    f = sim_topo_fault(&topo, 3, SIM_FAULT_HANG);
    ok(f && f->after == 40 && f->in[0] == '\0', "hang rank=3 after=40");
    f = sim_topo_fault(&topo, 4, SIM_FAULT_HANG);
    ok(f && f->after == 0 && strcmp(f->in, "broadcast") == 0,
       "hang rank=4 in=broadcast");
    f = sim_topo_fault(&topo, 6, SIM_FAULT_HANG);
    ok(f && f->after == 7 && strcmp(f->in, "allreduce") == 0,
       "hang rank=6 in=allreduce after=7");
    f = sim_topo_fault(&topo, 5, SIM_FAULT_KILL);
    ok(f && f->after == 100 && f->in[0] == '\0', "kill rank=5 after=100");
    f = sim_topo_fault(&topo, 7, SIM_FAULT_KILL);
    ok(f && f->after == 2 && strcmp(f->in, "reduce") == 0,
       "kill rank=7 in=reduce after=2");
    f = sim_topo_fault(&topo, 2, SIM_FAULT_MISMATCH);
    ok(f && f->seq == 10 && f->count_delta == 1 && f->op[0] == '\0',
       "mismatch rank=2 seq=10 count=+1");
    f = sim_topo_fault(&topo, 1, SIM_FAULT_MISMATCH);
    ok(f && f->seq == 3 && f->count_delta == 0 &&
           strcmp(f->op, "reducescatter") == 0,
       "mismatch rank=1 seq=3 op=reducescatter");
    f = sim_topo_fault(&topo, 0, SIM_FAULT_SWAP);
    ok(f && f->seq == 12, "swap rank=0 seq=12");
    ok(sim_topo_fault(&topo, 3, SIM_FAULT_KILL) == NULL,
       "no kill planted for rank 3");
    expect_error("hang rank=1", "'after' or 'in'");
    expect_error("hang after=3", "'rank'");
    expect_error("hang rank=1 in=barrier", "'in'");
    expect_error("kill rank=1", "'after' or 'in'");
    expect_error("kill rank=1 after=-2", "'after'");
    expect_error("mismatch rank=1 count=+1", "'seq'");
    expect_error("mismatch rank=1 seq=2", "exactly one of 'count' and 'op'");
    expect_error("mismatch rank=1 seq=2 count=+1 op=allgather",
                 "exactly one of 'count' and 'op'");
    expect_error("mismatch rank=1 seq=2 count=1", "'count'");
    expect_error("mismatch rank=1 seq=2 count=+0", "'count'");
    expect_error("swap rank=1", "'seq'");
    expect_error("swap rank=1 seq=2 after=3", "'after'");
}

/* 'clock NODE offset=T': a node's wall clock off, signed. */
static void test_clocks(void)
{
    const char *text = "clock n3 offset=2ms\n"
                       "clock n2 offset=-1.5ms\n"
                       "clock n4 offset=+250us\n"
                       "clock n4 offset=300us\n";
    int64_t v = 0;

    is_int(sim_topo_parse_string(text, "c.topo", &topo, err, sizeof err), 0,
           "clock directives parse (%s)", err);
    is_int(sim_topo_clock_offset(&topo, "n3"), 2000000, "n3 2 ms ahead");
    is_int(sim_topo_clock_offset(&topo, "n2"), -1500000, "n2 1.5 ms behind");
    is_int(sim_topo_clock_offset(&topo, "n4"), 300000,
           "the last clock line of a node wins");
    is_int(sim_topo_clock_offset(&topo, "n1"), 0, "other nodes share the clock");
    is_int(sim_topo_parse_signed_duration("-0.5s", &v), 0, "signed duration");
    is_int(v, -500000000, "-0.5s");
    is_int(sim_topo_parse_signed_duration("--1ms", &v), -1, "two signs refused");
    expect_error("clock n3", "'offset'");
    expect_error("clock offset=1ms", "'clock'");
    expect_error("clock n3 offset=1", "'offset'");
    expect_error("clock n3 offset=-x", "'offset'");
    expect_error("clock n3 offset=2days", "'offset'");
    expect_error("clock n3 offset=90000s", "beyond a day");
    expect_error("clock n3 delay=1ms", "'delay'");
}

static void test_files(void)
{
    char path[] = "/tmp/topo_test.XXXXXX";
    int fd = mkstemp(path);
    const char *text = "nodes 3\ninter latency=1ms bandwidth=50MB/s\n";
    char *bad_path;

    ok(fd >= 0, "temporary file");
    if (fd < 0)
        return;
    ok(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "written");
    close(fd);
    is_int(sim_topo_parse_file(path, &topo, err, sizeof err), 0,
           "file parses (%s)", err);
    is_int(topo.nodes, 3, "nodes from the file");
    is_int(topo.inter.latency_ns, 1000000, "latency from the file");
    fd = open(path, O_WRONLY | O_APPEND);
    ok(fd >= 0 && write(fd, "bogus\n", 6) == 6, "append a bad line");
    if (fd >= 0)
        close(fd);
    is_int(sim_topo_parse_file(path, &topo, err, sizeof err), -1,
           "bad file refused");
    bad_path = malloc(strlen(path) + 16);
    sprintf(bad_path, "%s:3: ", path);
    ok(strncmp(err, bad_path, strlen(bad_path)) == 0 &&
           strstr(err, "'bogus'") != NULL,
       "message names the path and line 3: %s", err);
    free(bad_path);
    unlink(path);
    is_int(sim_topo_parse_file(path, &topo, err, sizeof err), -1,
           "missing file refused");
    ok(strstr(err, path) != NULL && strstr(err, "cannot open") != NULL,
       "message names the missing file: %s", err);
}

int main(void)
{
    test_durations();
    test_bandwidths();
    test_defaults();
    test_example();
    test_link_defaults();
    test_link_from();
    test_errors();
    test_faults();
    test_clocks();
    test_files();
    return done_testing();
}
