/* cp_fleet_metrics.c - Prometheus text exposition of the fleet. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cp_fleet_metrics.h"

/* s as a label value: backslash, double quote and newline escaped. */
static void label(FILE *out, const char *name, const char *s)
{
    fprintf(out, "%s=\"", name);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(out, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void family(FILE *out, const char *name, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void value(FILE *out, double v)
{
    fprintf(out, "} %.10g\n", v);
}

/* Link figures: which = 0 jobs crossed, 1 measured, 2 slow, 3 median
 * efficiency, 4 the verdict (1, labelled). */
static void link_family(FILE *out, const struct cp_fleet_view *v, int which,
                        const char *name, const char *help)
{
    const struct cp_fleet_link *l;
    double x;
    size_t i;

    family(out, name, help);
    for (i = 0; i < v->nlinks; i++) {
        l = &v->links[i];
        x = which == 0 ? (double)l->jobs_crossed
            : which == 1 ? (double)l->jobs_measured
            : which == 2 ? (double)l->jobs_slow
            : which == 3 ? l->median_efficiency
                         : 1;
        if (!isfinite(x))
            continue;
        fprintf(out, "%s{", name);
        label(out, "node_a", l->a);
        fputc(',', out);
        label(out, "node_b", l->b);
        if (which == 4) {
            fputc(',', out);
            label(out, "verdict", cp_fleet_verdict_name(l->verdict));
        }
        value(out, x);
    }
}

/* Node figures: 0 jobs, 1 jobs as a straggler, 2 users of those, 3 the
 * verdict. */
static void node_family(FILE *out, const struct cp_fleet_view *v, int which,
                        const char *name, const char *help)
{
    const struct cp_fleet_node *d;
    size_t i;

    family(out, name, help);
    for (i = 0; i < v->nnodes; i++) {
        d = &v->nodes[i];
        fprintf(out, "%s{", name);
        label(out, "node", d->node);
        if (which == 3) {
            fputc(',', out);
            label(out, "verdict", cp_fleet_verdict_name(d->verdict));
        }
        value(out, which == 0   ? (double)d->jobs
                   : which == 1 ? (double)d->jobs_straggler
                   : which == 2 ? (double)d->users_straggler
                                : 1);
    }
}

/* Port figures: 0 jobs with counters risen, 1 jobs below its peers'
 * rate, 2 the verdict. */
static void port_family(FILE *out, const struct cp_fleet_view *v, int which,
                        const char *name, const char *help)
{
    const struct cp_fleet_port *p;
    char num[24];
    size_t i;

    family(out, name, help);
    for (i = 0; i < v->nports; i++) {
        p = &v->ports[i];
        snprintf(num, sizeof num, "%lld", p->port);
        fprintf(out, "%s{", name);
        label(out, "node", p->node);
        fputc(',', out);
        label(out, "device", p->device);
        fputc(',', out);
        label(out, "port", num);
        if (which == 2) {
            fputc(',', out);
            label(out, "verdict", cp_fleet_verdict_name(p->verdict));
        }
        value(out, which == 0   ? (double)p->jobs_errors
                   : which == 1 ? (double)p->jobs_slow_rate
                                : 1);
    }
}

int cp_fleet_metrics_write(const struct cp_fleet_view *v, FILE *out,
                           struct cp_error *err)
{
    family(out, "collprof_fleet_steps", "Steps in the fleet database "
                                        "(within --since).");
    fprintf(out, "collprof_fleet_steps %lld\n", v->summary.steps);
    family(out, "collprof_fleet_jobs", "Jobs in the fleet database.");
    fprintf(out, "collprof_fleet_jobs %lld\n", v->summary.jobs);
    link_family(out, v, 0, "collprof_fleet_link_jobs_crossed",
                "Jobs whose traffic crossed the node pair.");
    link_family(out, v, 1, "collprof_fleet_link_jobs_measured",
                "Jobs that measured the node pair (bandwidth-bound "
                "evidence).");
    link_family(out, v, 2, "collprof_fleet_link_jobs_slow",
                "Jobs that found the node pair slow.");
    link_family(out, v, 3, "collprof_fleet_link_median_efficiency",
                "Median efficiency of the node pair over the jobs that "
                "measured it (1 = as fast as its peers).");
    link_family(out, v, 4, "collprof_fleet_link_verdict",
                "The fleet's verdict of the node pair (1, labelled "
                "bad, suspect, ok or no_evidence).");
    node_family(out, v, 0, "collprof_fleet_node_jobs",
                "Jobs that ran on the node.");
    node_family(out, v, 1, "collprof_fleet_node_jobs_straggler",
                "Jobs in which the node was a straggler.");
    node_family(out, v, 2, "collprof_fleet_node_users_straggler",
                "Distinct users of the jobs in which the node straggled.");
    node_family(out, v, 3, "collprof_fleet_node_verdict",
                "The fleet's verdict of the node (1, labelled).");
    port_family(out, v, 0, "collprof_fleet_port_jobs_errors",
                "Jobs during which the port's error counters rose.");
    port_family(out, v, 1, "collprof_fleet_port_jobs_slow_rate",
                "Jobs in which the port's rate was below its peers'.");
    port_family(out, v, 2, "collprof_fleet_port_verdict",
                "The fleet's verdict of the port (1, labelled).");
    if (ferror(out))
        return cp_errorf(err, "fleet metrics: a write failed");
    return 0;
}
