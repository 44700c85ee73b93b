/* cp_det_inputs.c - what the inputs lack: missing_ranks, incomplete_instances,
 * failed_calls.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"

int det_inputs_findings(struct cp_analysis *an, const struct detect_input *in)
{
    const struct cp_analysis_summary *sm = &an->summary;
    json_t *e;
    size_t i;

    if (sm->nmissing > 0) {
        char list[256] = "";
        for (i = 0; i < sm->nmissing && strlen(list) < 200; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d",
                     i ? ", " : "", sm->missing_ranks[i]);
        if (i < sm->nmissing)
            snprintf(list + strlen(list), sizeof list - strlen(list), " ...");
        if (det_add_finding(
                an, CP_KIND_MISSING_RANKS, CP_SEVERITY_WARNING,
                sm->missing_ranks, sm->nmissing, NULL, 0,
                "%zu of %d ranks left no log (rank%s %s): %llu of "
                "%llu collective instances are incomplete and their "
                "times rest on the ranks present.",
                sm->nmissing, an->world_size, sm->nmissing > 1 ? "s" : "", list,
                (unsigned long long)sm->incomplete_instances,
                (unsigned long long)sm->instances) < 0)
            return -1;
        e = det_last_evidence(an);
        if (set(e, "missing", json_integer((json_int_t)sm->nmissing)) < 0 ||
            set(e, "world_size", json_integer(an->world_size)) < 0 ||
            set(e, "incomplete_instances",
                json_integer((json_int_t)sm->incomplete_instances)) < 0)
            return -1;
    } else if (sm->incomplete_instances > 0) {
        if (det_add_finding(an, CP_KIND_INCOMPLETE_INSTANCES, CP_SEVERITY_INFO,
                            NULL, 0, NULL, 0,
                            "%llu of %llu collective instances missed members "
                            "(records lost or a process killed).",
                            (unsigned long long)sm->incomplete_instances,
                            (unsigned long long)sm->instances) < 0)
            return -1;
        e = det_last_evidence(an);
        if (set(e, "incomplete_instances",
                json_integer((json_int_t)sm->incomplete_instances)) < 0 ||
            set(e, "instances", json_integer((json_int_t)sm->instances)) < 0)
            return -1;
    }
    if (sm->failed_calls > 0) {
        int *ranks = malloc(an->nranks * sizeof *ranks);
        size_t n = 0;
        int rc;
        if (!ranks)
            return -1;
        for (i = 0; i < an->nranks; i++)
            if (an->ranks[i].failed)
                ranks[n++] = an->ranks[i].rank;
        rc = det_add_finding(
            an, CP_KIND_FAILED_CALLS, CP_SEVERITY_WARNING, ranks, n, NULL, 0,
            "%llu NCCL calls returned an error on %zu rank%s; "
            "they are counted but not analyzed.",
            (unsigned long long)sm->failed_calls, n, n == 1 ? "" : "s");
        free(ranks);
        if (rc < 0)
            return -1;
        if (set(det_last_evidence(an), "failed_calls",
                json_integer((json_int_t)sm->failed_calls)) < 0)
            return -1;
    }
    return 0;
}
