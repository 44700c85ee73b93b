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
#include "cp_path.h"
#include "cp_ports.h"
#include "cp_slots.h"

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

/* Where merge finds a port and a snapshot's node: the ports in a table
 * keyed by node, device and port, the nodes sorted by name.  At tens of
 * thousands of nodes, or a snapshot listing its limit of ports, a search
 * of every port per port (or of every node per snapshot) would be
 * billions of string compares. */
struct pv_index {
    struct cp_slots slots; /* indices into an->ports.ports */
    size_t *count;      /* per node: its ports kept */
    size_t cap;         /* room in ports */
    struct pv_node {
        const char *name;
        size_t node;
    } *by_name;         /* the nodes sorted by name */
    size_t nnodes;
};

static int node_name_cmp(const void *a, const void *b)
{
    return strcmp(((const struct pv_node *)a)->name,
                  ((const struct pv_node *)b)->name);
}

static int index_init(struct pv_index *ix, const struct cp_analysis *an)
{
    size_t n = an->nnodes ? an->nnodes : 1, i;

    memset(ix, 0, sizeof *ix);
    ix->nnodes = an->nnodes;
    ix->count = calloc(n, sizeof *ix->count);
    ix->by_name = malloc(n * sizeof *ix->by_name);
    if (!ix->count || !ix->by_name)
        return -1;
    for (i = 0; i < an->nnodes; i++) {
        ix->by_name[i].name = an->nodes[i].name;
        ix->by_name[i].node = i;
    }
    qsort(ix->by_name, an->nnodes, sizeof *ix->by_name, node_name_cmp);
    return 0;
}

static void index_free(struct pv_index *ix)
{
    cp_slots_free(&ix->slots);
    free(ix->count);
    free(ix->by_name);
}

/* The node named name, or nnodes when the job has none of that name. */
static size_t node_named(const struct pv_index *ix, const char *name)
{
    struct pv_node key = {name, 0};
    const struct pv_node *at =
        bsearch(&key, ix->by_name, ix->nnodes, sizeof key, node_name_cmp);

    return at ? at->node : ix->nnodes;
}

static size_t port_hash(unsigned node, const char *device, unsigned port)
{
    return cp_slots_mix2(node, port) ^ cp_slots_name(device);
}

static size_t port_hash_at(const void *ctx, size_t i)
{
    const struct cp_analysis_port *q =
        &((const struct cp_analysis_ports *)ctx)->ports[i];

    return port_hash(q->node, q->device, q->port);
}

/* the key port_of looks for */
struct pv_key {
    const struct cp_analysis_ports *pv;
    unsigned node;
    const struct cp_port *p;
};

static int port_is(const void *ctx, size_t i)
{
    const struct pv_key *k = ctx;
    const struct cp_analysis_port *q = &k->pv->ports[i];

    return q->node == k->node && q->port == k->p->port &&
           strcmp(q->device, k->p->device) == 0;
}

/* The job's port of node for p, added if new.  NULL: out of memory, or
 * (*full set) the node has CP_PORTS_MAX_PORTS ports already. */
static struct cp_analysis_port *port_of(struct cp_analysis_ports *pv,
                                        struct pv_index *ix, unsigned node,
                                        const struct cp_port *p, int *full)
{
    struct pv_key key = {pv, node, p};
    struct cp_analysis_port *q;
    size_t slot;
    long at;

    *full = 0;
    if (cp_slots_room(&ix->slots, pv->nports, 64, port_hash_at, pv) < 0)
        return NULL;
    slot = cp_slots_probe(&ix->slots, port_hash(node, p->device, p->port),
                          port_is, &key);
    at = cp_slots_at(&ix->slots, slot);
    if (at >= 0)
        return &pv->ports[at];
    if (ix->count[node] >= CP_PORTS_MAX_PORTS) {
        *full = 1;
        return NULL;
    }
    if (pv->nports == ix->cap) {
        size_t cap = ix->cap ? 2 * ix->cap : 16;
        struct cp_analysis_port *bigger =
            realloc(pv->ports, cap * sizeof *bigger);
        if (!bigger)
            return NULL;
        pv->ports = bigger;
        ix->cap = cap;
    }
    q = &pv->ports[pv->nports];
    memset(q, 0, sizeof *q);
    q->node = node;
    q->port = p->port;
    snprintf(q->device, sizeof q->device, "%s", p->device);
    q->rate_Gbps = q->peer_rate_Gbps = NAN;
    q->rose = json_object();
    if (!q->rose)
        return NULL;
    cp_slots_set(&ix->slots, slot, pv->nports++);
    ix->count[node]++;
    return q;
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

/* Ports ordered by device and port, then by place in their snapshot. */
static int port_key_cmp(const void *a, const void *b)
{
    const struct cp_port *p = *(const struct cp_port *const *)a,
                         *q = *(const struct cp_port *const *)b;
    int c = strcmp(p->device, q->device);

    if (c)
        return c;
    if (p->port != q->port)
        return p->port < q->port ? -1 : 1;
    return p < q ? -1 : p > q;
}

/* The first port of sorted (n, by port_key_cmp) with p's device and port;
 * NULL when none has them. */
static const struct cp_port *same_port(const struct cp_port *const *sorted,
                                       size_t n, const struct cp_port *p)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(sorted[mid]->device, p->device);
        if (c < 0 || (c == 0 && sorted[mid]->port < p->port))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && sorted[lo]->port == p->port &&
        strcmp(sorted[lo]->device, p->device) == 0)
        return sorted[lo];
    return NULL;
}

/* Merge one snapshot, read from path; ends after starts (the caller reads
 * them so).  A port of the end is compared with the start's first port of
 * the same device and number. */
static int merge(struct cp_analysis *an, struct pv_index *ix,
                 const char *path, const struct cp_ports_snapshot *snap,
                 const struct cp_ports_snapshot *start)
{
    const struct cp_port **sorted = NULL;
    size_t i, n = node_named(ix, snap->node), dropped = 0;
    int is_end = strcmp(snap->when, "end") == 0, rc = -1;

    if (n == an->nnodes)
        return 0; /* a node of another job, or collprof record's host */
    if (is_end && start && start->nports) {
        sorted = malloc(start->nports * sizeof *sorted);
        if (!sorted)
            return -1;
        for (i = 0; i < start->nports; i++)
            sorted[i] = &start->ports[i];
        qsort(sorted, start->nports, sizeof *sorted, port_key_cmp);
    }
    for (i = 0; i < snap->nports; i++) {
        const struct cp_port *p = &snap->ports[i], *s;
        int full;
        struct cp_analysis_port *q =
            port_of(&an->ports, ix, (unsigned)n, p, &full);
        size_t c;
        if (!q && full) {
            dropped++;
            continue;
        }
        if (!q)
            goto out;
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
        if (!sorted || !(s = same_port(sorted, start->nports, p)))
            continue;
        for (c = 0; c < p->ncounters; c++) {
            int found;
            uint64_t before;
            if (!cp_ports_error_counter(p->counters[c].name))
                continue;
            before = counter(s, p->counters[c].name, &found);
            if (!found || p->counters[c].value <= before)
                continue;
            if (json_object_set_new(
                    q->rose, p->counters[c].name,
                    json_integer((json_int_t)(p->counters[c].value -
                                              before))) < 0)
                goto out;
        }
    }
    if (dropped) {
        char msg[200];
        snprintf(msg, sizeof msg, "%zu ports of node %.64s not read: the "
                 "analysis keeps at most %u ports of a node", dropped,
                 snap->node, CP_PORTS_MAX_PORTS);
        if (add_port_problem(&an->ports, path, msg) < 0)
            goto out;
    }
    rc = 0;
out:
    free(sorted);
    return rc;
}

/* Read DIR/ports-*-start.json and their -end.json. */
static int read_dir(struct cp_analysis *an, struct pv_index *ix,
                    const char *dir)
{
    DIR *d = cp_path_opendir(dir, NULL); /* by its descriptor, if anchored */
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
                rc = merge(an, ix, path, &start, NULL);
            if (rc == 0)
                rc = merge(an, ix, endpath, &end, have_start ? &start : NULL);
            cp_ports_clear(&end);
        } else if (rc == 0) {
            if (errno != ENOENT)
                rc = add_port_problem(&an->ports, endpath, e.text);
            if (rc == 0 && have_start)
                rc = merge(an, ix, path, &start, NULL);
        }
        if (have_start)
            cp_ports_clear(&start);
    }
    closedir(d);
    return rc;
}

/* Active ports with a known rate, ordered by link layer, then rate. */
static int rate_cmp(const void *a, const void *b)
{
    const struct cp_analysis_port *p = *(const struct cp_analysis_port *const *)a,
                                  *q = *(const struct cp_analysis_port *const *)b;
    int c = strcmp(p->link_layer, q->link_layer);

    if (c)
        return c;
    return p->rate_Gbps < q->rate_Gbps ? -1 : p->rate_Gbps > q->rate_Gbps;
}

/* A link layer's peer rate. */
struct pv_layer {
    const char *name;
    double rate;
};

static int layer_cmp(const void *a, const void *b)
{
    return strcmp(((const struct pv_layer *)a)->name,
                  ((const struct pv_layer *)b)->name);
}

/* Each port's peer rate: the most common rate among the job's active
 * ports of its link layer (the higher of two as common).  One sort of
 * the ports, not a count over every port for each pair of ports, and one
 * search of its link layer per port.  -1: out of memory. */
static int peer_rates(struct cp_analysis_ports *pv)
{
    size_t room = pv->nports ? pv->nports : 1;
    struct cp_analysis_port **v = malloc(room * sizeof *v);
    struct pv_layer *layers = malloc(room * sizeof *layers);
    size_t n = 0, nlayers = 0, i, k, j;

    if (!v || !layers) {
        free(v);
        free(layers);
        return -1;
    }
    for (i = 0; i < pv->nports; i++)
        if (strcmp(pv->ports[i].state, "ACTIVE") == 0 &&
            isfinite(pv->ports[i].rate_Gbps))
            v[n++] = &pv->ports[i];
    qsort(v, n, sizeof *v, rate_cmp);
    /* v[i..k): one link layer; its runs of one rate counted */
    for (i = 0; i < n; i = k) {
        size_t best = 0;
        double rate = NAN;
        for (k = i; k < n && strcmp(v[k]->link_layer, v[i]->link_layer) == 0;
             k = j) {
            for (j = k; j < n && v[j]->rate_Gbps == v[k]->rate_Gbps &&
                        strcmp(v[j]->link_layer, v[i]->link_layer) == 0;
                 j++)
                ;
            if (j - k >= best) { /* ascending: a tie goes to the higher */
                best = j - k;
                rate = v[k]->rate_Gbps;
            }
        }
        layers[nlayers].name = v[i]->link_layer;
        layers[nlayers++].rate = rate;
    }
    /* layers is in v's order: sorted by name */
    for (j = 0; j < pv->nports; j++) {
        struct pv_layer key = {pv->ports[j].link_layer, NAN};
        const struct pv_layer *at =
            bsearch(&key, layers, nlayers, sizeof key, layer_cmp);
        if (at)
            pv->ports[j].peer_rate_Gbps = at->rate;
    }
    free(v);
    free(layers);
    return 0;
}

int cp_portview_build(struct cp_analysis *an, const char *const *paths)
{
    struct pv_index ix;
    size_t i;
    int rc = -1;

    if (index_init(&ix, an) < 0)
        goto out;
    for (i = 0; paths[i]; i++) {
        struct stat sb;
        if (cp_path_stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode) &&
            read_dir(an, &ix, paths[i]) < 0)
            goto out;
    }
    if (peer_rates(&an->ports) < 0)
        goto out;
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
    rc = 0;
out:
    index_free(&ix);
    return rc;
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
