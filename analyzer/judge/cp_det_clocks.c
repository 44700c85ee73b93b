/* cp_det_clocks.c - clock_offset: the node whose clock is furthest off, when the
 * order of the calls rules out a shared clock.
 */
#include "config.h"

#include <math.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"
#include "cp_units.h"

int det_clock_offset(struct cp_analysis *an, const struct detect_input *in)
{
    size_t i, worst = SIZE_MAX;
    char b1[CP_UNITS_BUFSIZE], b2[CP_UNITS_BUFSIZE], b3[CP_UNITS_BUFSIZE],
        b4[CP_UNITS_BUFSIZE];
    const struct cp_analysis_node *w;
    double bound, near, far;
    json_t *e;

    for (i = 1; i < an->nnodes; i++)
        if (an->nodes[i].offset_significant &&
            (worst == SIZE_MAX ||
             fabs(an->nodes[i].offset_s) > fabs(an->nodes[worst].offset_s)))
            worst = i;
    if (an->nnodes < 2 || worst == SIZE_MAX)
        return 0;
    w = &an->nodes[worst];
    bound = fmax(w->offset_s - w->offset_low_s, w->offset_high_s - w->offset_s);
    near = fmin(fabs(w->offset_low_s), fabs(w->offset_high_s));
    far = fmax(fabs(w->offset_low_s), fabs(w->offset_high_s));
    cp_units_format_time(fabs(w->offset_s), b1, sizeof b1);
    cp_units_format_time(bound, b2, sizeof b2);
    cp_units_format_time(near, b3, sizeof b3);
    cp_units_format_time(far, b4, sizeof b4);
    if (det_add_finding(an, CP_KIND_CLOCK_OFFSET, CP_SEVERITY_INFO, NULL, 0,
                        (unsigned[]){(unsigned)worst}, 1,
                        "The clock of node %s is %s %s node %s's (+/- %s: "
                        "between %s and %s by the order of the calls); all "
                        "times were corrected before the skew analysis.",
                        w->name, b1, w->offset_s > 0 ? "ahead of" : "behind",
                        an->nodes[an->offset_reference].name, b2, b3, b4) < 0)
        return -1;
    e = det_last_evidence(an);
    if (set(e, "offset_s", jnum(w->offset_s)) < 0 ||
        set(e, "bound_s", jnum(bound)) < 0 ||
        set(e, "low_s", jnum(w->offset_low_s)) < 0 ||
        set(e, "high_s", jnum(w->offset_high_s)) < 0 ||
        set(e, "instances", json_integer((json_int_t)an->offset_instances)) < 0)
        return -1;
    return 0;
}
