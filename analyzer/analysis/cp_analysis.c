/* cp_analysis.c - the small functions of the public interface
 * (cp_analysis.h) that need no run: the names of sources and input
 * states, the default options, --steps parsed, the worst finding.  The run
 * itself is cp_run.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"

static const char *const source_names[] = {"none", "fit", "profile", "ports"};
static const char *const status_names[] = {"ok", "damaged", "skipped",
                                           "unreadable"};

const char *cp_link_source_name(enum cp_link_source s)
{
    return (unsigned)s <= CP_SOURCE_PORTS ? source_names[s] : NULL;
}

const char *cp_analysis_input_status_name(enum cp_analysis_input_status s)
{
    return (unsigned)s <= CP_INPUT_UNREADABLE ? status_names[s] : NULL;
}

void cp_analysis_opts_init(struct cp_analysis_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->window_from_ns = INT64_MIN;
    opts->window_to_ns = INT64_MAX;
    opts->window_origin_ns = INT64_MIN;
}

int cp_analysis_parse_steps(const char *text, long *from, long *to,
                            struct cp_error *err)
{
    const char *colon = strchr(text, ':');
    char *end;
    long a = -1, b = -1;

    if (!colon)
        goto bad;
    if (colon != text) {
        errno = 0;
        a = strtol(text, &end, 10);
        if (end != colon || a < 0 || errno)
            goto bad;
    }
    if (colon[1]) {
        errno = 0;
        b = strtol(colon + 1, &end, 10);
        if (*end || b < 0 || errno)
            goto bad;
    }
    if ((a < 0 && b < 0) || (a >= 0 && b >= 0 && b <= a))
        goto bad;
    *from = a;
    *to = b;
    return 0;
bad:
    cp_error_set(err, NULL, -1,
                 "expected a range A:B of steps (from 0, B excluded; A: and "
                 ":B open), got '%.40s'", text);
    return -1;
}

int cp_analysis_worst_severity(const struct cp_analysis *an)
{
    size_t i;
    int worst = -1;

    for (i = 0; i < an->nfindings; i++)
        if ((int)an->findings[i].severity > worst)
            worst = (int)an->findings[i].severity;
    return worst;
}

const struct cp_analysis_finding *
cp_analysis_finding_of(const struct cp_analysis *an, enum cp_kind kind)
{
    size_t i;

    for (i = 0; i < an->nfindings; i++)
        if (an->findings[i].kind == kind)
            return &an->findings[i];
    return NULL;
}
