/* cp_args.c - plugstack.conf arguments and the --collprof LIST, by tables. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_args.h"
#include "cp_error.h"
#include "cp_path.h"
#include "cp_text.h"

static int parse_yesno(const char *v)
{
    static const struct {
        const char *word;
        int value;
    } words[] = {{"yes", 1}, {"no", 0}, {"on", 1}, {"off", 0},
                 {"1", 1},   {"0", 0},  {"true", 1}, {"false", 0}};
    size_t i;

    for (i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(v, words[i].word) == 0)
            return words[i].value;
    return -1;
}

/* ---- plugstack.conf ----------------------------------------------------- */

/* on_hang=: the words, indexed by CP_ON_HANG_* */
static const char *const on_hang_words[] = {
    [CP_ON_HANG_NONE] = "none",
    [CP_ON_HANG_CANCEL] = "cancel",
    [CP_ON_HANG_REQUEUE] = "requeue",
};

#define NON_HANG_WORDS (sizeof on_hang_words / sizeof on_hang_words[0])

const char *cp_on_hang_name(int on_hang)
{
    if (on_hang < 0 || (size_t)on_hang >= NON_HANG_WORDS)
        return "none";
    return on_hang_words[on_hang];
}

enum site_kind {
    SITE_PATH,    /* absolute path into a char[CP_ARGS_PATH_MAX] */
    SITE_DIR_OF,  /* absolute directory: the path is dir/`file` */
    SITE_BOOL,    /* yes|no into an int */
    SITE_SECONDS, /* 1..86400 into an unsigned */
    SITE_MODE,    /* a step directory mode: octal, 07x0, no write but the
                     owner's, into an unsigned */
    SITE_CAPTURE, /* shim|plugin|both into an int (CP_CAPTURE_* bits) */
    SITE_ON_HANG, /* none|cancel|requeue into an int (CP_ON_HANG_*) */
    SITE_DETAIL,  /* a capture policy's text into a char[CP_ARGS_DETAIL_MAX] */
};

/* One row per plugstack.conf key: where it goes, what it takes (the help
 * that cp_site_keys() lists) and its default (as plugstack.conf text;
 * libdir= and bindir= default to the directories given to
 * cp_site_defaults, the build's). */
static const struct site_key {
    const char *name;
    enum site_kind kind;
    size_t offset;
    const char *file; /* SITE_DIR_OF: the file name appended */
    int allow_empty;  /* SITE_PATH: "" is a valid value (means none) */
    const char *help; /* what the value is: "DIR", "yes|no" */
    const char *def;  /* the default, NULL: none (empty) */
    size_t offset2;    /* SITE_DIR_OF: a second path set from the same
                          directory (0: none) */
    const char *file2; /* its file name */
} site_keys[] = {
    {"basedir", SITE_PATH, offsetof(struct cp_site, basedir), NULL, 1, "DIR",
     NULL, 0, NULL},
    {"default", SITE_BOOL, offsetof(struct cp_site, default_on), NULL, 0,
     "on|off", "off", 0, NULL},
    {"analyze", SITE_BOOL, offsetof(struct cp_site, analyze), NULL, 0,
     "yes|no", "yes", 0, NULL},
    {"alert", SITE_PATH, offsetof(struct cp_site, alert), NULL, 1, "PROGRAM",
     NULL, 0, NULL},
    {"syslog", SITE_BOOL, offsetof(struct cp_site, syslog), NULL, 0, "yes|no",
     "no", 0, NULL},
    {"batch_step", SITE_BOOL, offsetof(struct cp_site, batch_step), NULL, 0,
     "yes|no", "no", 0, NULL},
    {"preload", SITE_PATH, offsetof(struct cp_site, preload), NULL, 0, "PATH",
     NULL, 0, NULL},
    {"libdir", SITE_DIR_OF, offsetof(struct cp_site, preload),
     "libcollprof.so", 0, "DIR", NULL,
     offsetof(struct cp_site, nccl_profiler), "libcollprof-nccl-profiler.so"},
    {"collprof", SITE_PATH, offsetof(struct cp_site, collprof), NULL, 0,
     "PATH", NULL, 0, NULL},
    {"bindir", SITE_DIR_OF, offsetof(struct cp_site, collprof), "collprof", 0,
     "DIR", NULL, 0, NULL},
    {"analyze_timeout", SITE_SECONDS,
     offsetof(struct cp_site, analyze_timeout_s), NULL, 0, "SECONDS", "120", 0,
     NULL},
    {"alert_timeout", SITE_SECONDS, offsetof(struct cp_site, alert_timeout_s),
     NULL, 0, "SECONDS", "30", 0, NULL},
    {"probe_timeout", SITE_SECONDS, offsetof(struct cp_site, probe_timeout_s),
     NULL, 0, "SECONDS", "120", 0, NULL},
    {"mode", SITE_MODE, offsetof(struct cp_site, dir_mode), NULL, 0,
     "0700|0750|0710", "0700", 0, NULL},
    {"nccl_profiler", SITE_PATH, offsetof(struct cp_site, nccl_profiler), NULL,
     0, "PATH", NULL, 0, NULL},
    {"capture", SITE_CAPTURE, offsetof(struct cp_site, capture), NULL, 0,
     "shim|plugin|both", "both", 0, NULL},
    {"next_profiler", SITE_PATH, offsetof(struct cp_site, next_profiler),
     NULL, 1, "PATH", NULL, 0, NULL},
    {"fleet_spool", SITE_PATH, offsetof(struct cp_site, fleet_spool), NULL, 1,
     "DIR", NULL, 0, NULL},
    {"watch", SITE_BOOL, offsetof(struct cp_site, watch), NULL, 0, "yes|no",
     "no", 0, NULL},
    {"watch_interval", SITE_SECONDS,
     offsetof(struct cp_site, watch_interval_s), NULL, 0, "SECONDS", "5", 0,
     NULL},
    {"hang_after", SITE_SECONDS, offsetof(struct cp_site, hang_after_s), NULL,
     0, "SECONDS", "60", 0, NULL},
    {"slow_after", SITE_SECONDS, offsetof(struct cp_site, slow_after_s), NULL,
     0, "SECONDS", "20", 0, NULL},
    {"on_hang", SITE_ON_HANG, offsetof(struct cp_site, on_hang), NULL, 0,
     "none|cancel|requeue", "none", 0, NULL},
    {"metrics_dir", SITE_PATH, offsetof(struct cp_site, metrics_dir), NULL, 1,
     "DIR", NULL, 0, NULL},
    {"detail", SITE_DETAIL, offsetof(struct cp_site, detail), NULL, 1,
     "all|default|KEY=VALUE:...", "default", 0, NULL},
};

#define NSITE_KEYS (sizeof site_keys / sizeof site_keys[0])

/* A capture policy's text (docs/capture-policy.md): its words and
 * numbers only; the shim reads its meaning (and warns on a bad one). */
static int check_detail(const char *what, const char *v, struct cp_error *err)
{
    size_t i, n = strlen(v);

    if (n >= CP_ARGS_DETAIL_MAX)
        return cp_errorf(err, "%s is longer than %d characters", what,
                         CP_ARGS_DETAIL_MAX - 1);
    for (i = 0; i < n; i++)
        if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') ||
              v[i] == '=' || v[i] == ':' || v[i] == ','))
            return cp_errorf(err, "%s takes all, default or KEY=VALUE "
                                  "separated by ':' (keys: first, window, "
                                  "every, interval), not '%s'",
                             what, v);
    return 0;
}

static int set_site_key(struct cp_site *site, const struct site_key *k,
                        const char *v, struct cp_error *err)
{
    char *field = (char *)site + k->offset;
    char what[64];
    long n;
    char *end;
    int b;

    snprintf(what, sizeof what, "%s=", k->name);
    if (cp_text_check(what, v, CP_ARGS_PATH_MAX - 32, err) < 0)
        return -1;
    switch (k->kind) {
    case SITE_PATH:
    case SITE_DIR_OF:
        if (*v == '\0' && k->allow_empty) {
            field[0] = '\0';
            return 0;
        }
        if (v[0] != '/') {
            return cp_errorf(err, "%s needs an absolute path, not '%s'", what,
                             v);
        }
        if (cp_path_has_dotdot(v)) {
            return cp_errorf(err, "%s must not have '..' components ('%s')",
                             what, v);
        }
        if (k->kind == SITE_PATH) {
            snprintf(field, CP_ARGS_PATH_MAX, "%s", v);
        } else {
            snprintf(field, CP_ARGS_PATH_MAX, "%s/%s", v, k->file);
            if (k->file2)
                snprintf((char *)site + k->offset2, CP_ARGS_PATH_MAX, "%s/%s",
                         v, k->file2);
        }
        return 0;
    case SITE_BOOL:
        b = parse_yesno(v);
        if (b < 0) {
            return cp_errorf(err, "%s takes yes or no (or on, off), not '%s'",
                             what, v);
        }
        *(int *)(void *)field = b;
        return 0;
    case SITE_SECONDS:
        n = strtol(v, &end, 10);
        if (end == v || *end || n < 1 || n > 86400) {
            return cp_errorf(err, "%s takes seconds from 1 to 86400, not '%s'",
                             what, v);
        }
        *(unsigned *)(void *)field = (unsigned)n;
        return 0;
    case SITE_CAPTURE:
        if (strcmp(v, "shim") == 0)
            b = CP_CAPTURE_SHIM;
        else if (strcmp(v, "plugin") == 0)
            b = CP_CAPTURE_PLUGIN;
        else if (strcmp(v, "both") == 0)
            b = CP_CAPTURE_SHIM | CP_CAPTURE_PLUGIN;
        else
            return cp_errorf(err, "%s takes shim, plugin or both, not '%s'",
                             what, v);
        *(int *)(void *)field = b;
        return 0;
    case SITE_ON_HANG:
        for (size_t i = 0; i < NON_HANG_WORDS; i++)
            if (strcmp(v, on_hang_words[i]) == 0) {
                *(int *)(void *)field = (int)i;
                return 0;
            }
        return cp_errorf(err, "%s takes none, cancel or requeue, not '%s'",
                         what, v);
    case SITE_DETAIL:
        if (check_detail(what, v, err) < 0)
            return -1;
        snprintf(field, CP_ARGS_DETAIL_MAX, "%s",
                 strcmp(v, "default") == 0 ? "" : v);
        return 0;
    case SITE_MODE:
        /* the owner's rwx always; the group may read and enter, others
         * nothing: a step directory is never writable by anyone else */
        n = strtol(v, &end, 8);
        if (end == v || *end || (n & ~0750L) || (n & 0700) != 0700) {
            return cp_errorf(
                err,
                "%s takes an octal mode of the form 07x0 without write "
                "permission for group or others (0700, 0750, 0710), not "
                "'%s'",
                what, v);
        }
        *(unsigned *)(void *)field = (unsigned)n;
        return 0;
    }
    return -1;
}

const char *cp_site_keys(void)
{
    static char text[2048];

    if (!text[0]) {
        size_t used = 0;
        for (size_t k = 0; k < NSITE_KEYS && used < sizeof text; k++)
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "%s%s=%s", k ? ", " : "",
                                     site_keys[k].name, site_keys[k].help);
    }
    return text;
}

void cp_site_defaults(struct cp_site *site, const char *libdir,
                      const char *bindir)
{
    memset(site, 0, sizeof *site);
    for (size_t k = 0; k < NSITE_KEYS; k++) {
        const struct site_key *key = &site_keys[k];
        const char *v = strcmp(key->name, "libdir") == 0   ? libdir
                        : strcmp(key->name, "bindir") == 0 ? bindir
                                                           : key->def;
        if (v)
            (void)set_site_key(site, key, v, NULL);
    }
}

int cp_site_parse(struct cp_site *site, int argc, char *const argv[],
                  struct cp_error *err)
{
    int i;
    size_t k;

    for (i = 0; i < argc; i++) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        const struct site_key *key = NULL;
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);

        for (k = 0; k < NSITE_KEYS; k++)
            if (strlen(site_keys[k].name) == len &&
                strncmp(site_keys[k].name, arg, len) == 0)
                key = &site_keys[k];
        if (!key) {
            char shown[80];
            /* the key may be anything: show it checked and cut */
            if (cp_text_check("key", arg, 64, NULL) < 0)
                snprintf(shown, sizeof shown, "(unprintable)");
            else
                snprintf(shown, sizeof shown, "%.*s", (int)len, arg);
            return cp_errorf(err, "unknown key '%s' (known: %s)", shown,
                             cp_site_keys());
        }
        if (!eq) {
            return cp_errorf(err,
                             "plugstack.conf key '%s' needs a value (%s=...)",
                             key->name, key->name);
        }
        if (set_site_key(site, key, eq + 1, err) < 0)
            return -1;
    }
    {
        char probe[CP_ARGS_PATH_MAX + 64];
        if (cp_expand_basedir(site->basedir, "user", 0, probe, sizeof probe) <
            0) {
            return cp_errorf(
                err, "basedir=%s: unknown %%-sequence (known: %%u, %%U, %%%%)",
                site->basedir);
        }
    }
    return 0;
}

/* ---- --collprof=LIST ---------------------------------------------------- */

static int set_on(struct cp_request *r, const char *v, struct cp_error *err)
{
    (void)v;
    if (r->on == CP_NO) {
        return cp_errorf(err, "'on' and 'off' both given");
    }
    r->on = CP_YES;
    return 0;
}

static int set_off(struct cp_request *r, const char *v, struct cp_error *err)
{
    (void)v;
    if (r->on == CP_YES) {
        return cp_errorf(err, "'on' and 'off' both given");
    }
    r->on = CP_NO;
    return 0;
}

static int set_dir(struct cp_request *r, const char *v, struct cp_error *err)
{
    if (*v == '\0') {
        return cp_errorf(err, "dir= needs a directory");
    }
    if (cp_text_check("dir=", v, CP_ARGS_PATH_MAX - 64, err) < 0)
        return -1;
    if (cp_path_has_dotdot(v)) {
        return cp_errorf(err, "dir=%s: '..' is not allowed in the directory",
                         v);
    }
    snprintf(r->dir, sizeof r->dir, "%s", v);
    return 0;
}

static int set_timer(struct cp_request *r, const char *v, struct cp_error *err)
{
    static const char *const timers[] = {"auto", "cupti", "event", "host"};
    size_t i;

    for (i = 0; i < sizeof timers / sizeof timers[0]; i++)
        if (strcmp(v, timers[i]) == 0) {
            snprintf(r->timer, sizeof r->timer, "%s", v);
            return 0;
        }
    return cp_errorf(err, "timer= takes auto, cupti, event or host, not '%s'",
                     v);
}

static int set_detail(struct cp_request *r, const char *v,
                      struct cp_error *err)
{
    if (check_detail("detail=", v, err) < 0)
        return -1;
    snprintf(r->detail, sizeof r->detail, "%s", v);
    return 0;
}

static int set_analyze(struct cp_request *r, const char *v,
                       struct cp_error *err)
{
    int b = parse_yesno(v);

    if (b < 0) {
        return cp_errorf(err, "analyze= takes yes or no, not '%s'", v);
    }
    r->analyze = b;
    return 0;
}

static int set_probe(struct cp_request *r, const char *v, struct cp_error *err)
{
    (void)v, (void)err;
    r->probe = 1;
    return 0;
}

static int set_watch(struct cp_request *r, const char *v, struct cp_error *err)
{
    int b = v ? parse_yesno(v) : 1; /* a bare `watch`: yes */

    if (b < 0) {
        return cp_errorf(err, "watch= takes yes or no, not '%s'", v);
    }
    r->watch = b;
    return 0;
}

enum { VALUE_NONE, VALUE_NEEDED, VALUE_OPTIONAL };

/* One row per key of the LIST: what it takes (VALUE_*), its setter, and
 * the help that cp_request_keys() lists. */
static const struct request_key {
    const char *name;
    int takes_value;
    int (*set)(struct cp_request *r, const char *v, struct cp_error *err);
    const char *help; /* "" or "=VALUES", after the name */
} request_keys[] = {
    {"on", VALUE_NONE, set_on, ""},
    {"off", VALUE_NONE, set_off, ""},
    {"dir", VALUE_NEEDED, set_dir, "=PATH"},
    {"timer", VALUE_NEEDED, set_timer, "=auto|cupti|event|host"},
    {"analyze", VALUE_NEEDED, set_analyze, "=yes|no"},
    {"probe", VALUE_NONE, set_probe, ""},
    {"watch", VALUE_OPTIONAL, set_watch, "[=yes|no]"},
    {"detail", VALUE_NEEDED, set_detail, "=all|default|KEY=VALUE:..."},
};

#define NREQUEST_KEYS (sizeof request_keys / sizeof request_keys[0])

const char *cp_request_keys(void)
{
    static char text[512];

    if (!text[0]) {
        size_t used = 0;
        for (size_t k = 0; k < NREQUEST_KEYS && used < sizeof text; k++)
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "%s%s%s", k ? ", " : "",
                                     request_keys[k].name,
                                     request_keys[k].help);
    }
    return text;
}

void cp_request_init(struct cp_request *r)
{
    memset(r, 0, sizeof *r);
    r->on = CP_UNSET;
    r->analyze = CP_UNSET;
    r->watch = CP_UNSET;
}

int cp_request_parse(struct cp_request *r, const char *list,
                     struct cp_error *err)
{
    char buf[CP_ARGS_LIST_MAX];
    char *item, *save = NULL;
    struct cp_request next = *r;

    if (cp_text_check("the list", list, sizeof buf, err) < 0)
        return -1;
    snprintf(buf, sizeof buf, "%s", list);
    for (item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        size_t len = eq ? (size_t)(eq - item) : strlen(item), k;
        const struct request_key *key = NULL;

        for (k = 0; k < NREQUEST_KEYS; k++)
            if (strlen(request_keys[k].name) == len &&
                strncmp(request_keys[k].name, item, len) == 0)
                key = &request_keys[k];
        if (!key) {
            return cp_errorf(err, "unknown key '%.*s' (known: %s)",
                             (int)(len < 64 ? len : 64), item,
                             cp_request_keys());
        }
        if (key->takes_value == VALUE_NEEDED && !eq) {
            return cp_errorf(err, "%s needs a value (%s=...)", key->name,
                             key->name);
        }
        if (key->takes_value == VALUE_NONE && eq) {
            return cp_errorf(err, "%s takes no value", key->name);
        }
        if (key->set(&next, eq ? eq + 1 : NULL, err) < 0)
            return -1;
    }
    next.given = 1;
    *r = next;
    return 0;
}

int cp_request_fallback(struct cp_request *r,
                        const char *(*get)(const char *name, void *arg),
                        void *arg, struct cp_error *warn)
{
    struct cp_error why;
    const char *v;

    if (warn)
        cp_error_set(warn, NULL, -1, "%s", "");
#define WARN_ONCE(...)                                                         \
    do {                                                                       \
        if (warn && !warn->text[0])                                            \
            cp_error_set(warn, NULL, -1, __VA_ARGS__);                         \
    } while (0)
    if (!r->given) {
        v = get("COLLPROF_PROFILE", arg);
        if (v) {
            struct cp_request env;
            cp_request_init(&env);
            if (cp_request_parse(&env, v, &why) == 0)
                *r = env;
            else
                WARN_ONCE("COLLPROF_PROFILE ignored: %s", why.text);
        }
    }
    if (r->on == CP_UNSET && !r->given) {
        v = get("COLLPROF_DISABLE", arg);
        if (v && strcmp(v, "1") == 0)
            r->on = CP_NO;
    }
    if (!r->timer[0]) {
        v = get("COLLPROF_TIMER", arg);
        if (v && *v) {
            struct cp_request env;
            cp_request_init(&env);
            if (cp_text_check("COLLPROF_TIMER", v, 32, &why) < 0 ||
                set_timer(&env, v, &why) < 0)
                WARN_ONCE("COLLPROF_TIMER ignored: %s", why.text);
            else
                memcpy(r->timer, env.timer, sizeof r->timer);
        }
    }
    if (r->analyze == CP_UNSET) {
        v = get("COLLPROF_ANALYZE", arg);
        if (v && *v) {
            int b = parse_yesno(v);
            if (b < 0)
                WARN_ONCE("COLLPROF_ANALYZE ignored: it takes yes or no");
            else
                r->analyze = b;
        }
    }
#undef WARN_ONCE
    return 0;
}

int cp_request_enabled(const struct cp_request *r, const struct cp_site *site)
{
    if (r->on != CP_UNSET)
        return r->on == CP_YES;
    if (r->given)
        return 1; /* --collprof, --collprof=dir=..., etc. */
    return site->default_on;
}

int cp_request_analyze(const struct cp_request *r, const struct cp_site *site)
{
    return r->analyze != CP_UNSET ? r->analyze : site->analyze;
}

int cp_request_watch(const struct cp_request *r, const struct cp_site *site)
{
    return r->watch != CP_UNSET ? r->watch : site->watch;
}

int cp_expand_basedir(const char *basedir, const char *user, unsigned uid,
                      char *out, size_t outlen)
{
    size_t o = 0;
    const char *p;
    char num[16];

    for (p = basedir; *p; p++) {
        const char *add = NULL;
        char one[2] = {*p, '\0'};
        size_t n;

        if (*p == '%' && p[1]) {
            p++;
            if (*p == 'u') {
                /* a user name becomes one path component, nothing more */
                if (!user || !*user || strchr(user, '/') ||
                    strcmp(user, ".") == 0 || strcmp(user, "..") == 0)
                    return -1;
                add = user;
            }
            else if (*p == 'U') {
                snprintf(num, sizeof num, "%u", uid);
                add = num;
            } else if (*p == '%')
                add = "%";
            else
                return -1;
        } else
            add = one;
        n = strlen(add);
        if (o + n >= outlen)
            return -1;
        memcpy(out + o, add, n);
        o += n;
    }
    if (o >= outlen)
        return -1;
    out[o] = '\0';
    return 0;
}
