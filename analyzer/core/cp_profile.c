/* cp_profile.c - the site profile parser. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_profile.h"
#include "cp_units.h"
#include "cp_path.h"

#define MAX_PROFILE_BYTES (1 << 20)

static const char *const link_names[CP_LINK_COUNT] = {"intra", "inter"};

const char *cp_link_class_name(enum cp_link_class link)
{
    return (unsigned)link < CP_LINK_COUNT ? link_names[link] : NULL;
}

/* Directives of the simulator's topology files that a profile ignores. */
static int ignored_directive(const char *word)
{
    return strcmp(word, "nodes") == 0 || strcmp(word, "link") == 0 ||
           strcmp(word, "straggler") == 0;
}

/* One "key=value" of a link line. */
static int parse_key(char *item, const char *name, unsigned line,
                     struct cp_profile_link *pl, struct cp_error *err)
{
    char *eq = strchr(item, '=');
    struct cp_error why;
    int rc = -1;

    if (!eq || eq == item) {
        cp_error_set(err, name, -1,
                     "%s:%u: expected key=value, got '%s'", name, line, item);
        goto out;
    }
    *eq = '\0';
    if (strcmp(item, "alpha") == 0 || strcmp(item, "latency") == 0) {
        if (cp_units_parse_time(eq + 1, &pl->alpha_s, &why) < 0) {
            cp_error_set(err, name, -1, "%s:%u: %s: %s", name, line, item,
                         why.text);
            goto out;
        }
        pl->have_alpha = 1;
    } else if (strcmp(item, "bandwidth") == 0) {
        if (cp_units_parse_bandwidth(eq + 1, &pl->bandwidth_Bps, &why) < 0) {
            cp_error_set(err, name, -1, "%s:%u: %s: %s", name, line, item,
                         why.text);
            goto out;
        }
        if (!(pl->bandwidth_Bps > 0)) {
            cp_error_set(err, name, -1, "%s:%u: bandwidth must be above 0",
                         name, line);
            goto out;
        }
        pl->have_bandwidth = 1;
    } else {
        cp_error_set(err, name, -1,
                     "%s:%u: unknown key '%s' (expected alpha or bandwidth)",
                     name, line, item);
        goto out;
    }
    rc = 0;
out:
    return rc;
}

static int parse_line(char *text, const char *name, unsigned line,
                      struct cp_profile *out, struct cp_error *err)
{
    char *save = NULL, *word, *item;
    struct cp_profile_link *pl;
    int k;

    word = strtok_r(text, " \t\r", &save);
    if (!word)
        return 0;
    if (ignored_directive(word))
        return 0;
    for (k = 0; k < CP_LINK_COUNT; k++)
        if (strcmp(word, link_names[k]) == 0)
            break;
    if (k == CP_LINK_COUNT) {
        return cp_errorf_at(err, name, -1,
                            "%s:%u: unknown directive '%s' (expected intra or inter)",
                            name, line, word);
    }
    pl = &out->link[k];
    if (pl->line) {
        return cp_errorf_at(err, name, -1,
                                   "%s:%u: %s given twice (first on line %u)",
                            name, line, word, pl->line);
    }
    pl->line = line;
    while ((item = strtok_r(NULL, " \t\r", &save)) != NULL)
        if (parse_key(item, name, line, pl, err) < 0)
            return -1;
    return 0;
}

int cp_profile_parse_string(const char *text, const char *name,
                            struct cp_profile *out, struct cp_error *err)
{
    struct cp_profile prof;
    char *copy = NULL, *line, *next;
    unsigned lineno = 0;
    int rc = -1;

    memset(&prof, 0, sizeof prof);
    snprintf(prof.source, sizeof prof.source, "%s", name ? name : "profile");
    copy = strdup(text);
    if (!copy) {
        cp_error_set(err, name, -1, "%s: out of memory", prof.source);
        goto out;
    }
    for (line = copy; line; line = next) {
        char *hash;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (parse_line(line, prof.source, lineno, &prof, err) < 0)
            goto out;
    }
    *out = prof;
    rc = 0;
out:
    free(copy);
    return rc;
}

int cp_profile_parse_file(const char *path, struct cp_profile *out,
                          struct cp_error *err)
{
    size_t len;
    char *text = cp_path_read_text(path, CP_PATH_FOLLOW, MAX_PROFILE_BYTES,
                                   "profile", &len, err);
    int rc;

    if (!text)
        return -1;
    rc = cp_profile_parse_string(text, path, out, err);
    free(text);
    return rc;
}
