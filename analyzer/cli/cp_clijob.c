/* cp_clijob.c - the window and the profile of collprof analyze and trace
 * (see cp_clijob.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_clijob.h"
#include "cp_error.h"
#include "cp_tagnames.h"
#include "cp_units.h"

#ifndef CP_SYSCONFDIR
#define CP_SYSCONFDIR "/etc"
#endif

#define EXIT_UNUSABLE 1
#define EXIT_USAGE 2

void cp_clijob_window_init(struct cp_clijob_window *w)
{
    w->from_ns = INT64_MIN;
    w->to_ns = INT64_MAX;
    w->step_from = w->step_to = -1;
    w->by[0] = '\0';
}

static int parse_time(const char *cmd, const char *option, const char *arg,
                      int64_t *ns)
{
    struct cp_error err;
    double s;

    if (cp_units_parse_time(arg, &s, &err) < 0) {
        fprintf(stderr, "collprof %s: %s: %s\n", cmd, option, err.text);
        return -1;
    }
    if (!(s >= 0) || s > 9e9) {
        fprintf(stderr, "collprof %s: %s: expected a time since the run's "
                        "first call, not negative, got '%s'\n",
                cmd, option, arg);
        return -1;
    }
    *ns = (int64_t)llround(s * 1e9);
    return 0;
}

int cp_clijob_window_option(const char *cmd, const char *option,
                            const char *arg, struct cp_clijob_window *w)
{
    struct cp_error err;
    uint64_t v;

    if (strcmp(option, "--from") == 0)
        return parse_time(cmd, option, arg, &w->from_ns);
    if (strcmp(option, "--to") == 0)
        return parse_time(cmd, option, arg, &w->to_ns);
    if (strcmp(option, "--skip-steps") == 0) {
        if (cp_units_parse_count(arg, UINT32_MAX, &v, &err) < 0) {
            fprintf(stderr, "collprof %s: --skip-steps: %s\n", cmd, err.text);
            return -1;
        }
        w->step_from = (long)v;
        w->step_to = -1;
        snprintf(w->by, sizeof w->by, "--skip-steps %.40s", arg);
        return 0;
    }
    if (cp_analysis_parse_steps(arg, &w->step_from, &w->step_to, &err) < 0) {
        fprintf(stderr, "collprof %s: %s: %s\n", cmd, option, err.text);
        return -1;
    }
    snprintf(w->by, sizeof w->by, "--steps %.40s", arg);
    return 0;
}

int cp_clijob_window_given(const struct cp_clijob_window *w)
{
    return w->from_ns != INT64_MIN || w->to_ns != INT64_MAX ||
           w->step_from >= 0 || w->step_to >= 0;
}

int cp_clijob_window_check(const char *cmd, const struct cp_clijob_window *w)
{
    if ((w->step_from >= 0 || w->step_to >= 0) &&
        (w->from_ns != INT64_MIN || w->to_ns != INT64_MAX)) {
        fprintf(stderr, "collprof %s: give a window by time (--from, --to) "
                        "or by steps (--skip-steps, --steps A:B), not both\n",
                cmd);
        return -1;
    }
    if (w->from_ns != INT64_MIN && w->to_ns != INT64_MAX &&
        w->to_ns <= w->from_ns) {
        fprintf(stderr, "collprof %s: --to must be later than --from\n", cmd);
        return -1;
    }
    return 0;
}

int cp_clijob_window_resolve(const char *cmd, const struct cp_clijob_window *w,
                             const struct cp_analysis *whole, int64_t *from_ns,
                             int64_t *to_ns, unsigned *steps)
{
    struct cp_error err;

    *from_ns = INT64_MIN;
    *to_ns = INT64_MAX;
    *steps = 0;
    if (w->step_from >= 0 || w->step_to >= 0) {
        if (cp_analysis_step_window(whole, w->step_from, w->step_to, from_ns,
                                    to_ns, &err) < 0) {
            fprintf(stderr, "collprof %s: %s: %s\n", cmd, w->by, err.text);
            return -1;
        }
        *steps = (unsigned)((w->step_to >= 0 ? (unsigned long)w->step_to
                                             : whole->summary.steps) -
                            (w->step_from >= 0 ? (unsigned long)w->step_from
                                               : 0));
        return 0;
    }
    if (w->from_ns != INT64_MIN)
        *from_ns = whole->summary.start_ns + w->from_ns;
    if (w->to_ns != INT64_MAX)
        *to_ns = whole->summary.start_ns + w->to_ns;
    return 0;
}

const char *cp_clijob_default_profile(void)
{
    return CP_SYSCONFDIR "/collprof/profile";
}

const char *cp_clijob_profile_help(char *buf, size_t size)
{
    const char *p = cp_clijob_default_profile();

    snprintf(buf, size, "%s (%s)", p,
             access(p, R_OK) == 0 ? "present" : "not present");
    return buf;
}

int cp_clijob_load_profile(const char *cmd, const char *path, int no_default,
                           struct cp_profile *profile,
                           const struct cp_profile **loaded)
{
    const char *p = path;
    struct cp_error err;

    *loaded = NULL;
    if (!p && !no_default && access(cp_clijob_default_profile(), R_OK) == 0)
        p = cp_clijob_default_profile();
    if (!p)
        return 0;
    if (cp_profile_parse_file(p, profile, &err) < 0) {
        fprintf(stderr, "collprof %s: %s%s\n", cmd, err.text,
                path ? "" : " (the default profile; --no-profile leaves it "
                            "out)");
        return path ? EXIT_USAGE : EXIT_UNUSABLE;
    }
    *loaded = profile;
    return 0;
}

int cp_clijob_tag_names(const char *cmd, const char *option,
                        struct cp_tagnames **names)
{
    const char *text = option ? option : getenv("COLLPROF_TAGS");
    struct cp_error err;

    *names = NULL;
    if (!text || !*text)
        return 0;
    *names = cp_tagnames_parse(text, &err);
    if (!*names) {
        fprintf(stderr, "collprof %s: %s: %s\n", cmd,
                option ? "--tags" : "COLLPROF_TAGS", err.text);
        return -1;
    }
    return 0;
}
