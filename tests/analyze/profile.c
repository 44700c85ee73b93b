/* profile.c - the site profile parser (analyzer/core/cp_profile.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_profile.h"
#include "tap.h"

static int fails_with(const char *text, const char *want)
{
    struct cp_profile p;
    struct cp_error e;

    memset(&e, 0, sizeof e);
    if (cp_profile_parse_string(text, "site.prof", &p, &e) == 0) {
        diag("accepted: %s", text);
        return 0;
    }
    if (!strstr(e.text, want)) {
        diag("message '%s' lacks '%s'", e.text, want);
        return 0;
    }
    return 1;
}

int main(void)
{
    struct cp_profile p;
    struct cp_error e;
    char path[] = "/tmp/cp-profile-XXXXXX";
    FILE *f;
    int fd;

    ok(cp_profile_parse_string("intra alpha=5us bandwidth=2GB/s\n"
                               "inter alpha=20us bandwidth=400MB/s\n",
                               "p", &p, &e) == 0,
       "two link lines");
    ok(p.link[CP_LINK_INTRA].have_alpha && p.link[CP_LINK_INTRA].have_bandwidth,
       "intra: both keys");
    is_near(p.link[CP_LINK_INTRA].alpha_s, 5e-6, 1e-12, "intra alpha");
    is_near(p.link[CP_LINK_INTRA].bandwidth_Bps, 2e9, 1e-12, "intra bandwidth");
    is_near(p.link[CP_LINK_INTER].alpha_s, 20e-6, 1e-12, "inter alpha");
    is_near(p.link[CP_LINK_INTER].bandwidth_Bps, 400e6, 1e-12,
            "inter bandwidth");
    is_int(p.link[CP_LINK_INTER].line, 2, "line remembered");

    ok(cp_profile_parse_string("# site profile\n\n"
                               "inter bandwidth=100Gbps   # HDR\n",
                               "p", &p, &e) == 0,
       "comments, blank lines, one key");
    ok(!p.link[CP_LINK_INTER].have_alpha && p.link[CP_LINK_INTER].have_bandwidth,
       "alpha left to the fit");
    is_near(p.link[CP_LINK_INTER].bandwidth_Bps, 12.5e9, 1e-12, "Gbps in bytes");
    ok(p.link[CP_LINK_INTRA].line == 0, "intra not given");

    ok(cp_profile_parse_string("nodes 4\nintra latency=5us bandwidth=2GB/s\n"
                               "inter latency=20us bandwidth=400MB/s\n"
                               "link n2 n3 bandwidth=100MB/s latency=40us\n"
                               "straggler rank=5 delay=2ms\n",
                               "topo", &p, &e) == 0,
       "a simnccl topology file is a profile");
    is_near(p.link[CP_LINK_INTER].alpha_s, 20e-6, 1e-12, "latency= is alpha");

    ok(fails_with("intra alpha=5us\nbogus alpha=1us\n",
                  "site.prof:2: unknown directive 'bogus'"),
       "unknown directive names file:line");
    ok(fails_with("inter bw=1GB/s\n", "site.prof:1: unknown key 'bw'"),
       "unknown key");
    ok(fails_with("inter alpha=10\n", "site.prof:1: alpha:"), "time without unit");
    ok(fails_with("inter bandwidth=fast\n", "site.prof:1: bandwidth:"),
       "bad bandwidth");
    ok(fails_with("inter bandwidth=0\n", "above 0"), "zero bandwidth");
    ok(fails_with("inter alpha\n", "expected key=value"), "key without value");
    ok(fails_with("inter alpha=1us\ninter alpha=2us\n",
                  "site.prof:2: inter given twice (first on line 1)"),
       "duplicate line");

    ok(cp_profile_parse_file("/nonexistent/profile", &p, &e) < 0 &&
           strstr(e.text, "/nonexistent/profile: cannot open"),
       "missing file named");
    fd = mkstemp(path);
    f = fdopen(fd, "w");
    fprintf(f, "inter alpha=15us bandwidth=1GB/s\nintra alpha=x\n");
    fclose(f);
    ok(cp_profile_parse_file(path, &p, &e) < 0 && strstr(e.text, path) &&
           strstr(e.text, ":2:"),
       "file errors name path:line (%s)", e.text);
    f = fopen(path, "w");
    fprintf(f, "inter alpha=15us bandwidth=1GB/s\n");
    fclose(f);
    ok(cp_profile_parse_file(path, &p, &e) == 0 &&
           p.link[CP_LINK_INTER].bandwidth_Bps == 1e9,
       "file parsed");
    f = fopen(path, "w");
    fwrite("inter alpha=15us\0bandwidth=1GB/s\n", 1, 33, f);
    fclose(f);
    ok(cp_profile_parse_file(path, &p, &e) < 0 && strstr(e.text, path) &&
           strstr(e.text, "binary data, not a profile"),
       "a NUL byte: refused, named (%s)", e.text);
    f = fopen(path, "w");
    for (int i = 0; i < 20000; i++)
        fprintf(f, "# %-60d\n", i);
    fclose(f);
    ok(cp_profile_parse_file(path, &p, &e) < 0 && strstr(e.text, path) &&
           strstr(e.text, "more than a profile may have"),
       "too large: refused, named (%s)", e.text);
    unlink(path);
    ok(cp_profile_parse_file("/tmp", &p, &e) < 0 && strstr(e.text, "/tmp"),
       "a directory: refused, named (%s)", e.text);
    is_str(cp_link_class_name(CP_LINK_INTER), "inter", "class names");
    ok(cp_link_class_name(CP_LINK_COUNT) == NULL, "out of range: NULL");
    return done_testing();
}
