/* cp_portview.c - the port snapshots next to the logs, joined to the job's
 * nodes: each port's rate against its peers' and the error counters that
 * rose between the start and the end of the step (degraded_port). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cp_analysis_int.h"
#include "cp_portview.h"
#include "cp_ports.h"

static int add_port_problem(struct cp_analysis_ports *pv, const char *file,
                            const char *msg)
{
    struct cp_analysis_problem *bigger =
        realloc(pv->problems, (pv->nproblems + 1) * sizeof *bigger);

    if (!bigger)
        return -1;
    pv->problems = bigger;
    bigger[pv->nproblems].file = strdup(file);
    bigger[pv->nproblems].message = strdup(msg);
    bigger[pv->nproblems].offset = -1;
    if (!bigger[pv->nproblems].file || !bigger[pv->nproblems].message) {
        free(bigger[pv->nproblems].file);
        free(bigger[pv->nproblems].message);
        return -1;
    }
    pv->nproblems++;
    return 0;
}

static struct cp_analysis_port *port_of(struct cp_analysis_ports *pv,
                                        unsigned node, const struct cp_port *p)
{
    struct cp_analysis_port *bigger, *q;
    size_t i;

    for (i = 0; i < pv->nports; i++)
        if (pv->ports[i].node == node && pv->ports[i].port == p->port &&
            strcmp(pv->ports[i].device, p->device) == 0)
            return &pv->ports[i];
    bigger = realloc(pv->ports, (pv->nports + 1) * sizeof *bigger);
    if (!bigger)
        return NULL;
    pv->ports = bigger;
    q = &pv->ports[pv->nports++];
    memset(q, 0, sizeof *q);
    q->node = node;
    q->port = p->port;
    snprintf(q->device, sizeof q->device, "%s", p->device);
    q->rate_Gbps = q->peer_rate_Gbps = NAN;
    q->rose = json_object();
    return q->rose ? q : NULL;
}

static uint64_t counter(const struct cp_port *p, const char *name, int *found)
{
    size_t i;

    for (i = 0; i < p->ncounters; i++)
        if (strcmp(p->counters[i].name, name) == 0) {
            *found = 1;
            return p->counters[i].value;
        }
    *found = 0;
    return 0;
}

/* Merge one snapshot; ends after starts (the caller reads them so). */
static int merge(struct cp_analysis *an, const struct cp_ports_snapshot *snap,
                 const struct cp_ports_snapshot *start)
{
    size_t i, k, n;

    for (n = 0; n < an->nnodes; n++)
        if (strcmp(an->nodes[n].name, snap->node) == 0)
            break;
    if (n == an->nnodes)
        return 0; /* a node of another job, or collprof record's host */
    for (i = 0; i < snap->nports; i++) {
        const struct cp_port *p = &snap->ports[i];
        struct cp_analysis_port *q = port_of(&an->ports, (unsigned)n, p);
        int is_end = strcmp(snap->when, "end") == 0;
        if (!q)
            return -1;
        if (is_end)
            q->have_end = 1;
        else
            q->have_start = 1;
        if (is_end || !q->state[0]) {
            snprintf(q->state, sizeof q->state, "%s", p->state);
            snprintf(q->link_layer, sizeof q->link_layer, "%s", p->link_layer);
            if (isfinite(p->rate_Gbps) || !isfinite(q->rate_Gbps))
                q->rate_Gbps = p->rate_Gbps;
        }
        if (!is_end || !start)
            continue;
        for (k = 0; k < start->nports; k++) {
            const struct cp_port *s = &start->ports[k];
            size_t c;
            if (s->port != p->port || strcmp(s->device, p->device) != 0)
                continue;
            for (c = 0; c < p->ncounters; c++) {
                int found;
                uint64_t before = counter(s, p->counters[c].name, &found);
                if (!found || !cp_ports_error_counter(p->counters[c].name) ||
                    p->counters[c].value <= before)
                    continue;
                if (json_object_set_new(
                        q->rose, p->counters[c].name,
                        json_integer((json_int_t)(p->counters[c].value -
                                                  before))) < 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* Read DIR/ports-*-start.json and their -end.json. */
static int read_dir(struct cp_analysis *an, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int rc = 0;

    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL && rc == 0) {
        size_t len = strlen(de->d_name);
        char path[4096], endpath[4096];
        struct cp_ports_snapshot start, end;
        struct cp_error e;
        int have_start;
        if (len < 17 || strncmp(de->d_name, "ports-", 6) != 0 ||
            strcmp(de->d_name + len - 11, "-start.json") != 0)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >=
                (int)sizeof path ||
            snprintf(endpath, sizeof endpath, "%s/%.*s-end.json", dir,
                     (int)(len - 11), de->d_name) >= (int)sizeof endpath)
            continue;
        have_start = cp_ports_read(path, &start, &e) == 0;
        if (!have_start)
            rc = add_port_problem(&an->ports, path, e.text);
        else
            an->ports.snapshots++;
        if (rc == 0 && cp_ports_read(endpath, &end, &e) == 0) {
            an->ports.snapshots++;
            if (have_start)
                rc = merge(an, &start, NULL);
            if (rc == 0)
                rc = merge(an, &end, have_start ? &start : NULL);
            cp_ports_clear(&end);
        } else if (rc == 0) {
            if (errno != ENOENT)
                rc = add_port_problem(&an->ports, endpath, e.text);
            if (rc == 0 && have_start)
                rc = merge(an, &start, NULL);
        }
        if (have_start)
            cp_ports_clear(&start);
    }
    closedir(d);
    return rc;
}

int cp_portview_build(struct cp_analysis *an, const char *const *paths)
{
    size_t i, k;

    for (i = 0; paths[i]; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode) &&
            read_dir(an, paths[i]) < 0)
            return -1;
    }
    /* peers: the most common rate of the active ports of a link layer */
    for (i = 0; i < an->ports.nports; i++) {
        struct cp_analysis_port *p = &an->ports.ports[i];
        unsigned best = 0;
        for (k = 0; k < an->ports.nports; k++) {
            const struct cp_analysis_port *q = &an->ports.ports[k];
            size_t j;
            unsigned n = 0;
            if (strcmp(q->link_layer, p->link_layer) != 0 ||
                strcmp(q->state, "ACTIVE") != 0 || !isfinite(q->rate_Gbps))
                continue;
            for (j = 0; j < an->ports.nports; j++)
                n += strcmp(an->ports.ports[j].link_layer, p->link_layer) ==
                         0 &&
                     strcmp(an->ports.ports[j].state, "ACTIVE") == 0 &&
                     an->ports.ports[j].rate_Gbps == q->rate_Gbps;
            if (n > best || (n == best && q->rate_Gbps > p->peer_rate_Gbps)) {
                best = n;
                p->peer_rate_Gbps = q->rate_Gbps;
            }
        }
    }
    for (i = 0; i < an->ports.nports; i++) {
        struct cp_analysis_port *p = &an->ports.ports[i];
        size_t n = 0;
        const char *name;
        json_t *v;
        if (p->state[0] && strcmp(p->state, "ACTIVE") != 0)
            n += (size_t)snprintf(p->why, sizeof p->why, "state %s", p->state);
        else if (isfinite(p->rate_Gbps) && isfinite(p->peer_rate_Gbps) &&
                 p->rate_Gbps < 0.99 * p->peer_rate_Gbps)
            n += (size_t)snprintf(p->why, sizeof p->why,
                                  "rate %g Gb/s against %g Gb/s on its peers",
                                  p->rate_Gbps, p->peer_rate_Gbps);
        json_object_foreach(p->rose, name, v) {
            if (n >= sizeof p->why - 1)
                break;
            n += (size_t)snprintf(p->why + n, sizeof p->why - n,
                                  "%s%s rose by %lld", n ? "; " : "", name,
                                  (long long)json_integer_value(v));
        }
    }
    return 0;
}

void cp_portview_free(struct cp_analysis_ports *pv)
{
    size_t i;

    for (i = 0; i < pv->nports; i++)
        json_decref(pv->ports[i].rose);
    free(pv->ports);
    for (i = 0; i < pv->nproblems; i++) {
        free(pv->problems[i].file);
        free(pv->problems[i].message);
    }
    free(pv->problems);
    memset(pv, 0, sizeof *pv);
}
