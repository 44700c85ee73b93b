/* cp_analysis.c - the small functions of the public interface
 * (cp_analysis.h) that need no run: the names of sources and input
 * states, the default options, --steps parsed, the worst finding, and the
 * result destroyed.  The run itself (cp_analysis_run) is
 * judge/cp_judge.c, above this folder.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_hang.h"
#include "cp_links.h"
#include "cp_ncclview.h"
#include "cp_partial.h"
#include "cp_portview.h"

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

void cp_analysis_destroy(struct cp_analysis *an)
{
    size_t i;
    int saved = errno;

    if (!an)
        return;
    for (i = 0; i < an->ncomms; i++) {
        free(an->comms[i].nodes);
        free(an->comms[i].ranks);
    }
    free(an->comms);
    free(an->nodes);
    free(an->ranks);
    free(an->rows);
    free(an->timeline.windows);
    free(an->long_run.intervals);
    free(an->long_run.lr_comms);
    free(an->long_run.windows);
    free(an->long_run.wcells);
    cp_links_topology_free(&an->topology);
    cp_portview_free(&an->ports);
    cp_ncclview_free(&an->nccl);
    for (i = 0; i < an->nfindings; i++) {
        free(an->findings[i].ranks);
        free(an->findings[i].nodes);
        free(an->findings[i].message);
        json_decref(an->findings[i].evidence);
    }
    free(an->findings);
    cp_hang_destroy(an->hang);
    for (i = 0; i < an->ninputs; i++) {
        free(an->inputs[i].path);
        cp_logfile_known_release(an->inputs[i].log);
    }
    free(an->inputs);
    for (i = 0; i < an->nknown_blocks; i++)
        free(an->known_blocks[i]);
    free(an->known_blocks);
    cp_partial_set_destroy(an->partials); /* after the logs read from it */
    for (i = 0; i < an->nproblems; i++) {
        free(an->problems[i].file);
        free(an->problems[i].message);
    }
    free(an->problems);
    free(an->summary.missing_ranks);
    free(an->slowest_own);
    free(an->slowest_skew);
    free(an);
    errno = saved;
}
