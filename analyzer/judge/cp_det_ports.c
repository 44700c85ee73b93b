/* cp_det_ports.c - degraded_port: a port whose snapshots show it degraded
 * (cp_portview.c).
 */
#include "config.h"

#include <string.h>

#include "cp_analysis_int.h"
#include "cp_detect.h"
#include "cp_jsonout.h"
#include "cp_kinds.h"

int det_degraded_ports(struct cp_analysis *an, const struct detect_input *in)
{
    size_t i;

    for (i = 0; i < an->ports.nports; i++) {
        const struct cp_analysis_port *p = &an->ports.ports[i];
        json_t *e;
        int down = p->state[0] && strcmp(p->state, "ACTIVE") != 0;
        if (!p->why[0])
            continue;
        if (det_add_finding(an, CP_KIND_DEGRADED_PORT,
                            down || json_object_get(p->rose, "link_downed")
                                ? CP_SEVERITY_CRITICAL
                                : CP_SEVERITY_WARNING,
                            NULL, 0, &p->node, 1,
                            "Port %s/%u of node %s is degraded: %s.", p->device,
                            p->port, an->nodes[p->node].name, p->why) < 0)
            return -1;
        e = det_last_evidence(an);
        if (set(e, "node", json_string(an->nodes[p->node].name)) < 0 ||
            set(e, "device", json_string(p->device)) < 0 ||
            set(e, "port", json_integer(p->port)) < 0 ||
            set(e, "rate_Gbps", jnum(p->rate_Gbps)) < 0 ||
            set(e, "peer_rate_Gbps", jnum(p->peer_rate_Gbps)) < 0 ||
            set(e, "state", json_string(p->state)) < 0 ||
            set(e, "counters", json_deep_copy(p->rose)) < 0 ||
            set(e, "why", json_string(p->why)) < 0)
            return -1;
    }
    return 0;
}
