/* args.c - the SPANK plugin's plugstack.conf arguments and --collprof LIST
 * (plugin/cp_args.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_args.h"
#include "cp_error.h"
#include "cp_path.h"
#include "tap.h"

static struct cp_error err;

static int site(struct cp_site *s, const char *a, const char *b)
{
    char *argv[2] = {(char *)a, (char *)b};
    int argc = b ? 2 : (a ? 1 : 0);

    cp_site_defaults(s, "/lib", "/bin");
    err.text[0] = '\0';
    return cp_site_parse(s, argc, argv, &err);
}

static int req(struct cp_request *r, const char *list)
{
    cp_request_init(r);
    err.text[0] = '\0';
    return cp_request_parse(r, list, &err);
}

static const char *const *fake_env;

static const char *fake_get(const char *name, void *arg)
{
    size_t n = strlen(name);
    const char *const *e;

    (void)arg;
    for (e = fake_env; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static void test_site(void)
{
    struct cp_site s;
    char big[2000];

    is_int(site(&s, NULL, NULL), 0, "no arguments: defaults");
    is_str(s.preload, "/lib/libcollprof.so", "preload defaults to LIBDIR");
    is_str(s.collprof, "/bin/collprof", "collprof defaults to BINDIR");
    ok(!s.default_on && s.analyze && !s.syslog && !s.batch_step &&
           !s.alert[0] && !s.basedir[0],
       "default=off analyze=yes syslog=no batch_step=no, no alert, basedir ''");
    is_int(s.analyze_timeout_s, 120, "analyze_timeout 120 s");
    is_int(s.alert_timeout_s, 30, "alert_timeout 30 s");
    is_int(s.probe_timeout_s, 120, "probe_timeout 120 s");
    is_int(s.dir_mode, 0700, "step directories 0700");
    is_str(s.nccl_profiler, "/lib/libcollprof-nccl-profiler.so",
           "nccl_profiler defaults to LIBDIR");
    is_int(s.capture, CP_CAPTURE_SHIM | CP_CAPTURE_PLUGIN,
           "capture=both by default");
    is_int(site(&s, "capture=plugin", NULL), 0, "capture=plugin");
    is_int(s.capture, CP_CAPTURE_PLUGIN, "... the plugin only");
    is_int(site(&s, "capture=both", "nccl_profiler=/x/libp.so"), 0,
           "capture=both, nccl_profiler=");
    ok(s.capture == (CP_CAPTURE_SHIM | CP_CAPTURE_PLUGIN) &&
           strcmp(s.nccl_profiler, "/x/libp.so") == 0,
       "... both, the plugin's path set");
    is_int(site(&s, "capture=nccl", NULL), -1, "capture=nccl refused");
    ok(strstr(err.text, "capture=") != NULL &&
           strstr(err.text, "shim, plugin or both"),
       "names capture= and what it takes (%s)", err.text);
    is_int(site(&s, "nccl_profiler=lib.so", NULL), -1,
           "relative nccl_profiler refused");
    is_str(s.next_profiler, "", "no next_profiler by default");
    is_int(site(&s, "next_profiler=/opt/inspector/libinspector.so", NULL), 0,
           "next_profiler=");
    is_str(s.next_profiler, "/opt/inspector/libinspector.so",
           "... its path kept");
    is_int(site(&s, "next_profiler=libinspector.so", NULL), -1,
           "relative next_profiler refused");
    ok(strstr(err.text, "next_profiler=") != NULL,
       "... naming the key (%s)", err.text);
    is_int(site(&s, "next_profiler=/a/../etc/x.so", NULL), -1,
           "next_profiler with '..' refused");
    is_str(s.fleet_spool, "", "no fleet_spool by default");
    is_int(site(&s, "fleet_spool=/var/spool/collprof", NULL), 0, "fleet_spool=");
    is_str(s.fleet_spool, "/var/spool/collprof", "... its directory kept");
    is_int(site(&s, "fleet_spool=spool", NULL), -1, "relative fleet_spool refused");
    ok(strstr(err.text, "fleet_spool=") != NULL, "... naming the key (%s)",
       err.text);

    is_int(site(&s, "basedir=/scratch/%u", "default=on"), 0, "basedir, default");
    is_str(s.basedir, "/scratch/%u", "basedir kept unexpanded");
    ok(s.default_on, "default=on");
    is_int(site(&s, "libdir=/opt/cp/lib", "bindir=/opt/cp/bin"), 0,
           "libdir, bindir");
    is_str(s.preload, "/opt/cp/lib/libcollprof.so", "libdir sets preload");
    is_str(s.nccl_profiler, "/opt/cp/lib/libcollprof-nccl-profiler.so",
           "libdir sets nccl_profiler");
    is_str(s.collprof, "/opt/cp/bin/collprof", "bindir sets collprof");
    is_int(site(&s, "preload=/x/libcollprof.so", "collprof=/x/collprof"), 0,
           "preload, collprof");
    is_str(s.preload, "/x/libcollprof.so", "preload=");
    is_int(site(&s, "alert=/usr/local/sbin/cp-alert", "syslog=yes"), 0,
           "alert, syslog");
    is_str(s.alert, "/usr/local/sbin/cp-alert", "alert=");
    ok(s.syslog, "syslog=yes");
    is_int(site(&s, "batch_step=yes", "analyze=no"), 0, "batch_step, analyze");
    ok(s.batch_step && !s.analyze, "batch_step=yes analyze=no");
    is_int(site(&s, "analyze_timeout=5", "alert_timeout=2"), 0, "timeouts");
    ok(s.analyze_timeout_s == 5 && s.alert_timeout_s == 2, "timeouts set");
    is_int(site(&s, "probe_timeout=7", NULL), 0, "probe_timeout");
    is_int(s.probe_timeout_s, 7, "probe_timeout=7 set");
    is_int(site(&s, "probe_timeout=0", NULL), -1, "probe_timeout=0 refused");
    ok(strstr(err.text, "probe_timeout=") != NULL, "names probe_timeout= (%s)",
       err.text);
    is_int(site(&s, "mode=0750", NULL), 0, "mode=0750");
    is_int(s.dir_mode, 0750, "... set");
    is_int(site(&s, "mode=0770", NULL), -1, "mode=0770 (group write) refused");
    ok(strstr(err.text, "mode=") != NULL && strstr(err.text, "0770"),
       "names mode= and the value (%s)", err.text);
    is_int(site(&s, "mode=0755", NULL), -1, "mode=0755 (others) refused");
    is_int(site(&s, "mode=0600", NULL), -1, "mode=0600 (no owner x) refused");
    is_int(site(&s, "probe_timeout=86401", NULL), -1,
           "probe_timeout=86401 refused");
    is_int(site(&s, "probe_timout=5", NULL), -1, "probe_timout (typo) refused");
    ok(strstr(err.text, "unknown key 'probe_timout'") != NULL &&
           strstr(err.text, "probe_timeout=SECONDS") != NULL,
       "names the typo and lists probe_timeout= (%s)", err.text);

    is_int(site(&s, "bogus=1", NULL), -1, "unknown key refused");
    ok(strstr(err.text, "unknown key 'bogus'") != NULL,
       "the message names the key (%s)", err.text);
    is_int(site(&s, "basedir", NULL), -1, "key without value refused");
    ok(strstr(err.text, "basedir") != NULL, "names it (%s)", err.text);
    is_int(site(&s, "alert=relative/prog", NULL), -1, "relative alert refused");
    is_int(site(&s, "preload=/a/../b.so", NULL), -1, ".. in preload refused");
    is_int(site(&s, "default=maybe", NULL), -1, "default=maybe refused");
    ok(strstr(err.text, "default=") != NULL, "names default= (%s)", err.text);
    is_int(site(&s, "analyze_timeout=0", NULL), -1, "timeout 0 refused");
    is_int(site(&s, "analyze_timeout=5x", NULL), -1, "timeout 5x refused");
    is_int(site(&s, "basedir=/x/%q", NULL), -1, "basedir %%q refused");
    is_int(site(&s, "basedir=/x/\xff", NULL), -1, "non-UTF-8 basedir refused");
    memset(big, 'a', sizeof big - 1);
    big[0] = '/';
    big[sizeof big - 1] = '\0';
    {
        char arg[2100];
        snprintf(arg, sizeof arg, "basedir=%s", big);
        is_int(site(&s, arg, NULL), -1, "over-long basedir refused");
    }
    is_int(site(&s, "alert=", NULL), 0, "alert= (empty) means none");
    ok(!s.alert[0], "no alert");
}

/* the live watch's keys (docs/watch.md, "Under Slurm") */
static void test_site_watch(void)
{
    struct cp_site s;

    is_int(site(&s, NULL, NULL), 0, "watch keys: defaults");
    ok(!s.watch, "watch=no by default");
    is_int(s.watch_interval_s, 5, "watch_interval 5 s by default");
    is_int(s.hang_after_s, 60, "hang_after 60 s by default");
    is_int(s.slow_after_s, 20, "slow_after 20 s by default");
    is_int(s.on_hang, CP_ON_HANG_NONE, "on_hang=none by default");
    is_str(s.metrics_dir, "", "no metrics_dir by default");

    is_int(site(&s, "watch=yes", "watch_interval=2"), 0,
           "watch=yes watch_interval=2");
    ok(s.watch && s.watch_interval_s == 2, "... set");
    is_int(site(&s, "hang_after=15", "on_hang=cancel"), 0,
           "hang_after=15 on_hang=cancel");
    ok(s.hang_after_s == 15 && s.on_hang == CP_ON_HANG_CANCEL, "... set");
    is_str(cp_on_hang_name(s.on_hang), "cancel", "... named cancel");
    is_int(site(&s, "on_hang=requeue", "metrics_dir=/var/lib/node_exporter"),
           0, "on_hang=requeue metrics_dir=");
    ok(s.on_hang == CP_ON_HANG_REQUEUE &&
           strcmp(s.metrics_dir, "/var/lib/node_exporter") == 0,
       "... set");
    is_str(cp_on_hang_name(s.on_hang), "requeue", "... named requeue");
    is_int(site(&s, "on_hang=none", "metrics_dir="), 0,
           "on_hang=none, metrics_dir= (empty: none)");
    ok(s.on_hang == CP_ON_HANG_NONE && !s.metrics_dir[0], "... set");
    is_str(cp_on_hang_name(CP_ON_HANG_NONE), "none", "none is named none");

    is_int(site(&s, "watch=often", NULL), -1, "watch=often refused");
    ok(strstr(err.text, "watch=") != NULL && strstr(err.text, "often"),
       "... naming watch= and the value (%s)", err.text);
    is_int(site(&s, "watch_interval=0", NULL), -1, "watch_interval=0 refused");
    ok(strstr(err.text, "watch_interval=") != NULL,
       "... naming watch_interval= (%s)", err.text);
    is_int(site(&s, "watch_interval=5s", NULL), -1,
           "watch_interval=5s refused (seconds as a number)");
    is_int(site(&s, "hang_after=86401", NULL), -1, "hang_after=86401 refused");
    ok(strstr(err.text, "hang_after=") != NULL, "... naming hang_after= (%s)",
       err.text);
    is_int(site(&s, "slow_after=0", NULL), -1, "slow_after=0 refused");
    ok(strstr(err.text, "slow_after=") != NULL, "... naming slow_after= (%s)",
       err.text);
    is_int(site(&s, "slow_after=8", NULL), 0, "slow_after=8");
    is_int(s.slow_after_s, 8, "... set");
    is_int(site(&s, "on_hang=kill", NULL), -1, "on_hang=kill refused");
    ok(strstr(err.text, "on_hang=") != NULL &&
           strstr(err.text, "none, cancel or requeue") != NULL,
       "... naming on_hang= and what it takes (%s)", err.text);
    is_int(site(&s, "metrics_dir=textfile", NULL), -1,
           "relative metrics_dir refused");
    ok(strstr(err.text, "metrics_dir=") != NULL,
       "... naming metrics_dir= (%s)", err.text);
    is_int(site(&s, "metrics_dir=/var/../etc", NULL), -1,
           "metrics_dir with '..' refused");
    ok(strstr(cp_site_keys(), "watch=yes|no") &&
           strstr(cp_site_keys(), "watch_interval=SECONDS") &&
           strstr(cp_site_keys(), "hang_after=SECONDS") &&
           strstr(cp_site_keys(), "on_hang=none|cancel|requeue") &&
           strstr(cp_site_keys(), "metrics_dir=DIR"),
       "the key list has them (%s)", cp_site_keys());
}

/* the capture policy (docs/capture-policy.md): passed to the shim as
 * COLLPROF_DETAIL, its text checked here, its meaning by the shim */
static void test_detail(void)
{
    struct cp_site s;
    struct cp_request r;

    is_int(site(&s, NULL, NULL), 0, "detail: defaults");
    is_str(s.detail, "", "detail=default: nothing set (the shim's default)");
    is_int(site(&s, "detail=all", NULL), 0, "detail=all");
    is_str(s.detail, "all", "... set");
    is_int(site(&s, "detail=first=1000:interval=10s", NULL), 0,
           "detail with keys");
    is_str(s.detail, "first=1000:interval=10s", "... set");
    is_int(site(&s, "detail=first=1;rm -rf", NULL), -1,
           "detail with a shell character refused");
    ok(strstr(err.text, "detail=") != NULL, "... naming detail= (%s)",
       err.text);
    is_int(req(&r, "on,detail=window=8:every=64"), 0,
           "--collprof=detail=... (colons inside the comma list)");
    is_str(r.detail, "window=8:every=64", "... set");
    is_int(req(&r, "detail=ALL"), -1, "upper case refused");
    ok(strstr(cp_site_keys(), "detail=") != NULL &&
           strstr(cp_request_keys(), "detail=") != NULL,
       "both key lists name detail=");
}

static void test_request(void)
{
    struct cp_request r;
    struct cp_site s;
    char big[5000];

    cp_site_defaults(&s, "/lib", "/bin");
    is_int(req(&r, ""), 0, "bare --collprof");
    ok(r.given && r.on == CP_UNSET, "given, on unset");
    ok(cp_request_enabled(&r, &s), "bare flag enables under default=off");
    is_int(req(&r, "off"), 0, "off");
    ok(!cp_request_enabled(&r, &s), "off disables");
    s.default_on = 1;
    ok(!cp_request_enabled(&r, &s), "off disables under default=on");
    cp_request_init(&r);
    ok(cp_request_enabled(&r, &s), "no flag under default=on: enabled");
    s.default_on = 0;
    ok(!cp_request_enabled(&r, &s), "no flag under default=off: disabled");

    is_int(req(&r, "on,dir=prof,timer=event,analyze=no,probe"), 0, "full list");
    is_str(r.dir, "prof", "dir=");
    is_str(r.timer, "event", "timer=");
    ok(r.analyze == 0 && r.probe && r.on == CP_YES, "analyze=no probe on");
    ok(!cp_request_analyze(&r, &s), "analyze=no wins over the site");
    is_int(req(&r, "dir=/abs/path,,"), 0, "empty items skipped");
    is_str(r.dir, "/abs/path", "absolute dir");

    is_int(req(&r, "dir=../../etc"), -1, "dir=../../etc refused");
    ok(strstr(err.text, "'..'") != NULL, "says why (%s)", err.text);
    is_int(req(&r, "dir=a/b/../c"), -1, "inner .. refused");
    is_int(req(&r, "dir=a/..b/c"), 0, "..b is a name, accepted");
    is_int(req(&r, "dir="), -1, "empty dir= refused");
    is_int(req(&r, "frobnicate"), -1, "unknown key refused");
    ok(strstr(err.text, "unknown key 'frobnicate'") != NULL, "names it (%s)",
       err.text);
    is_int(req(&r, "timer=gpu"), -1, "bad timer refused");
    is_int(req(&r, "analyze=perhaps"), -1, "bad analyze refused");
    is_int(req(&r, "on,off"), -1, "on and off refused");
    is_int(req(&r, "probe=1"), -1, "probe takes no value");

    /* watch: the site's watch= unless the LIST says */
    is_int(req(&r, ""), 0, "no watch in the list");
    ok(r.watch == CP_UNSET && !cp_request_watch(&r, &s),
       "watch unset: the site's watch=no");
    s.watch = 1;
    ok(cp_request_watch(&r, &s), "watch unset: the site's watch=yes");
    is_int(req(&r, "watch=no"), 0, "watch=no");
    ok(r.watch == CP_NO && !cp_request_watch(&r, &s),
       "... wins over the site's yes");
    s.watch = 0;
    is_int(req(&r, "watch"), 0, "a bare watch");
    ok(r.watch == CP_YES && cp_request_watch(&r, &s),
       "... means yes, over the site's no");
    is_int(req(&r, "on,watch=yes"), 0, "watch=yes");
    ok(r.watch == CP_YES, "... set");
    is_int(req(&r, "watch=sometimes"), -1, "watch=sometimes refused");
    ok(strstr(err.text, "watch=") != NULL && strstr(err.text, "sometimes"),
       "... naming watch= and the value (%s)", err.text);
    is_int(req(&r, "on_hang=cancel"), -1,
           "on_hang is the site's, not a key of the list");
    ok(strstr(err.text, "unknown key 'on_hang'") != NULL, "... (%s)",
       err.text);
    ok(strstr(cp_request_keys(), "watch[=yes|no]") != NULL &&
           strstr(cp_request_keys(), "analyze=yes|no") != NULL,
       "the key list has watch (%s)", cp_request_keys());
    is_int(req(&r, "dir"), -1, "dir without value");
    is_int(req(&r, "dir=x\xff"), -1, "non-UTF-8 refused");
    ok(strstr(err.text, "UTF-8") != NULL, "says UTF-8 (%s)", err.text);
    is_int(req(&r, "dir=x\xc0\xaf"), -1, "overlong UTF-8 refused");
    is_int(req(&r, "dir=x\xed\xa0\x80"), -1, "UTF-8 surrogate refused");
    is_int(req(&r, "dir=caf\xc3\xa9"), 0, "valid UTF-8 accepted");
    is_int(req(&r, "dir=x\ny"), -1, "newline refused");
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "dir=", 4);
    is_int(req(&r, big), -1, "over-long list refused");
    ok(strstr(err.text, "bytes long") != NULL, "says how long (%s)", err.text);
    big[1500] = '\0';
    is_int(req(&r, big), -1, "over-long dir refused");
    {
        struct cp_request keep;
        req(&keep, "dir=good");
        keep.timer[0] = '\0';
        ok(cp_request_parse(&keep, "dir=bad/../x", &err) < 0 &&
               strcmp(keep.dir, "good") == 0,
           "a refused list leaves the request as it was");
    }
}

static void test_fallback(void)
{
    struct cp_request r;
    struct cp_site s;
    struct cp_error warn;

    cp_site_defaults(&s, "/lib", "/bin");
    {
        static const char *const env[] = {"COLLPROF_PROFILE=on,dir=envdir",
                                          NULL};
        fake_env = env;
        cp_request_init(&r);
        cp_request_fallback(&r, fake_get, NULL, &warn);
        ok(cp_request_enabled(&r, &s), "COLLPROF_PROFILE=on enables");
        is_str(r.dir, "envdir", "and sets dir");
    }
    {
        static const char *const env[] = {"COLLPROF_PROFILE=on,dir=envdir",
                                          NULL};
        fake_env = env;
        req(&r, "dir=optdir");
        cp_request_fallback(&r, fake_get, NULL, &warn);
        is_str(r.dir, "optdir", "the option wins over COLLPROF_PROFILE");
    }
    {
        static const char *const env[] = {"COLLPROF_DISABLE=1", NULL};
        fake_env = env;
        s.default_on = 1;
        cp_request_init(&r);
        cp_request_fallback(&r, fake_get, NULL, &warn);
        ok(!cp_request_enabled(&r, &s), "COLLPROF_DISABLE=1 opts out");
        req(&r, "");
        cp_request_fallback(&r, fake_get, NULL, &warn);
        ok(cp_request_enabled(&r, &s), "but not over --collprof");
        s.default_on = 0;
    }
    {
        static const char *const env[] = {"COLLPROF_TIMER=host",
                                          "COLLPROF_ANALYZE=no", NULL};
        fake_env = env;
        req(&r, "");
        cp_request_fallback(&r, fake_get, NULL, &warn);
        is_str(r.timer, "host", "COLLPROF_TIMER fallback");
        ok(r.analyze == 0, "COLLPROF_ANALYZE fallback");
        req(&r, "timer=event,analyze=yes");
        cp_request_fallback(&r, fake_get, NULL, &warn);
        ok(strcmp(r.timer, "event") == 0 && r.analyze == 1,
           "the option's keys win");
    }
    {
        static const char *const env[] = {"COLLPROF_PROFILE=dir=../x",
                                          "COLLPROF_TIMER=bogus", NULL};
        fake_env = env;
        cp_request_init(&r);
        cp_request_fallback(&r, fake_get, NULL, &warn);
        ok(!r.given && !r.dir[0], "a bad COLLPROF_PROFILE is ignored");
        ok(strstr(warn.text, "COLLPROF_PROFILE ignored") != NULL,
           "with a warning (%s)", warn.text);
        ok(!r.timer[0], "a bad COLLPROF_TIMER is ignored");
    }
    {
        static const char *const env[] = {"COLLPROF_ALERT=/tmp/evil",
                                          "COLLPROF_BASEDIR=/etc", NULL};
        fake_env = env;
        cp_request_init(&r);
        cp_request_fallback(&r, fake_get, NULL, &warn);
        ok(!r.given && !r.dir[0] && !warn.text[0],
           "COLLPROF_ALERT and COLLPROF_BASEDIR mean nothing to the plugin");
    }
}

static void test_expand(void)
{
    char out[64];

    is_int(cp_expand_basedir("/s/%u/p%U/%%", "alice", 1001, out, sizeof out),
           0, "expand");
    is_str(out, "/s/alice/p1001/%", "%%u %%U %%%%");
    is_int(cp_expand_basedir("/s/%u", "../x", 1, out, sizeof out), -1,
           "a user name with / refused");
    is_int(cp_expand_basedir("/s/%u", "..", 1, out, sizeof out), -1,
           "user .. refused");
    is_int(cp_expand_basedir("/s/%u", NULL, 1, out, sizeof out), -1,
           "unknown user refused");
    is_int(cp_expand_basedir("", "a", 1, out, sizeof out), 0, "empty base");
    is_str(out, "", "stays empty");
    is_int(cp_expand_basedir("/0123456789012345678901234567890123456789"
                             "0123456789012345678901234567890123456789",
                             "a", 1, out, sizeof out),
           -1, "too long for the buffer");
    ok(cp_path_has_dotdot("..") && cp_path_has_dotdot("a/..") &&
           cp_path_has_dotdot("../a") && cp_path_has_dotdot("a//..//b") &&
           !cp_path_has_dotdot("a/...") && !cp_path_has_dotdot(".a/.b"),
       "dotdot detection");
}

/* FILE of the source tree whole, or NULL (top_srcdir unset, no file). */
static char *read_doc(const char *name)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    char *text = NULL;
    size_t n = 0;
    FILE *f;

    if (!top)
        return NULL;
    snprintf(path, sizeof path, "%s/%s", top, name);
    f = fopen(path, "r");
    if (!f)
        return NULL;
    text = malloc(1 << 20);
    if (text)
        n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    if (text)
        text[n] = '\0';
    return text;
}

/* Whether text has one of the forms in which a key is documented: in the
 * man page ".BI key=", ".BR key=", "\fP key=" (the second of a pair), in
 * plugin.md "`key=" or "`key`" (request keys without a value: ".BR key"). */
static int documented(const char *text, const char *key, int with_value)
{
    static const char *const forms[] = {"\n.BI %s%s", "\n.BR %s%s",
                                        "\\fP %s%s", "`%s%s"};
    char want[96];
    size_t i;

    for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(want, sizeof want, forms[i], key, with_value ? "=" : "");
        if (strstr(text, want))
            return 1;
    }
    return 0;
}

/* Every key of the two tables is in the man page and in plugin.md: the
 * tables are the facts, the pages must follow them. */
static void test_keys_documented(void)
{
    static const char *const docs[] = {"docs/spank_collprof.8",
                                       "docs/plugin.md"};
    size_t d;

    for (d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        char *text = read_doc(docs[d]);
        char keys[4096], missing[1024] = "";
        char *k, *save = NULL;
        int pass;

        if (!text) {
            ok(1, "# SKIP %s not found (top_srcdir unset)", docs[d]);
            ok(1, "# SKIP %s not found (top_srcdir unset)", docs[d]);
            continue;
        }
        for (pass = 0; pass < 2; pass++) {
            snprintf(keys, sizeof keys, "%s",
                     pass == 0 ? cp_site_keys() : cp_request_keys());
            missing[0] = '\0';
            for (k = strtok_r(keys, ", ", &save); k;
                 k = strtok_r(NULL, ", ", &save)) {
                size_t len = strcspn(k, "=[");
                int with_value = k[len] == '=';
                k[len] = '\0';
                if (!documented(text, k, with_value))
                    snprintf(missing + strlen(missing),
                             sizeof missing - strlen(missing), " %s", k);
            }
            ok(!missing[0], "every %s key is in %s (missing:%s)",
               pass == 0 ? "plugstack.conf" : "--collprof LIST", docs[d],
               missing[0] ? missing : " none");
        }
        free(text);
    }
}

int main(void)
{
    test_site();
    test_site_watch();
    test_detail();
    test_request();
    test_fallback();
    test_expand();
    test_keys_documented();
    return done_testing();
}
