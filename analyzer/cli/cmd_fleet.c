/* cmd_fleet.c - collprof fleet: every job's link, node and port evidence in
 * one database, and the fleet's verdicts from it (docs/fleet.md).  One
 * subcommand per verb: ingest, links, nodes, ports, export, metrics. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cp_cmds.h"
#include "cp_fleet_db.h"
#include "cp_fleet_ingest.h"
#include "cp_fleet_json.h"
#include "cp_fleet_judge.h"
#include "cp_fleet_metrics.h"
#include "cp_fleet_time.h"
#include "cp_fleet_html.h"
#include "cp_fleet_html_view.h"
#include "cp_fleetdrain.h"
#include "cp_path.h"

#define EXIT_USAGE 2

/* Every subcommand's options, each taking those it knows. */
struct opts {
    const char *cmd; /* "fleet links", ... */
    const char *db, *since_text, *output, *spool, *alert;
    struct cp_fleet_identity id;
    int json, drain, quiet;
    double since, wait_s;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet COMMAND [--db DB] [OPTIONS]\n"
            "\n"
            "Keeps every job's link, node and port evidence (its report.json)\n"
            "in one database and judges the fleet from it: a link slow in\n"
            "most jobs that measured it, a node that straggles in different\n"
            "users' jobs, a port whose error counters keep rising.\n"
            "\n"
            "commands:\n"
            "  ingest REPORT.json...  add analysed steps to the database\n"
            "  ingest --spool DIR     ... those slurmstepd spooled (run as root)\n"
            "  links                  node pairs ranked by evidence across jobs\n"
            "  nodes                  nodes by straggler evidence (--drain-commands)\n"
            "  ports                  RDMA ports by error counters and rate\n"
            "  export -o FILE         links, nodes and ports as collprof.fleet/1\n"
            "  metrics [-o FILE]      Prometheus text exposition (textfile collector)\n"
            "  report -o FILE         fleet.html: the node-pair matrix, worst links\n"
            "                         and nodes, efficiency over time\n"
            "\n"
            "  --db DB   an SQLite file, or postgresql://USER@HOST/NAME (default\n"
            "            $COLLPROF_FLEET_DB, else %s)\n"
            "\n"
            "'collprof fleet COMMAND --help' describes one command.\n",
            cp_fleet_db_default());
}

/* ---- options ------------------------------------------------------------ */

enum {
    OPT_DB = 1000, OPT_SINCE, OPT_JSON, OPT_DRAIN, OPT_JOB, OPT_STEP,
    OPT_USER, OPT_CLUSTER, OPT_NODES, OPT_END, OPT_SPOOL, OPT_WAIT, OPT_ALERT
};

static const struct option long_opts[] = {
    {"db", required_argument, 0, OPT_DB},
    {"since", required_argument, 0, OPT_SINCE},
    {"json", no_argument, 0, OPT_JSON},
    {"drain-commands", no_argument, 0, OPT_DRAIN},
    {"job", required_argument, 0, OPT_JOB},
    {"step", required_argument, 0, OPT_STEP},
    {"user", required_argument, 0, OPT_USER},
    {"cluster", required_argument, 0, OPT_CLUSTER},
    {"nodes", required_argument, 0, OPT_NODES},
    {"end", required_argument, 0, OPT_END},
    {"spool", required_argument, 0, OPT_SPOOL},
    {"wait", required_argument, 0, OPT_WAIT},
    {"alert", required_argument, 0, OPT_ALERT},
    {"output", required_argument, 0, 'o'},
    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* The options each subcommand accepts: the rest are usage errors. */
static int allowed(const char *cmd, int c)
{
    static const struct {
        const char *cmd;
        int opts[12];
    } table[] = {
        {"fleet ingest", {OPT_JOB, OPT_STEP, OPT_USER, OPT_CLUSTER, OPT_NODES,
                          OPT_END, 'q', OPT_SPOOL, OPT_WAIT, OPT_ALERT}},
        {"fleet report", {OPT_SINCE, 'o'}},
        {"fleet links", {OPT_SINCE, OPT_JSON}},
        {"fleet nodes", {OPT_SINCE, OPT_JSON, OPT_DRAIN}},
        {"fleet ports", {OPT_SINCE, OPT_JSON}},
        {"fleet export", {OPT_SINCE, 'o'}},
        {"fleet metrics", {OPT_SINCE, 'o'}},
    };
    size_t i, k;

    if (c == OPT_DB)
        return 1;
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].cmd, cmd) == 0)
            for (k = 0; k < 12; k++)
                if (table[i].opts[k] == c)
                    return 1;
    return 0;
}

/* The long name of option c ("output" for -o). */
static const char *name_of(int c)
{
    size_t i;

    for (i = 0; long_opts[i].name; i++)
        if (long_opts[i].val == c)
            return long_opts[i].name;
    return "?";
}

static int take(int c, const char *arg, void *ctx)
{
    struct opts *o = ctx;

    if (!allowed(o->cmd, c)) {
        cp_cli_usage_error(o->cmd, "option '--%s' is not one of this "
                                   "command's", name_of(c));
        return -1;
    }
    switch (c) {
    case OPT_DB: o->db = arg; break;
    case OPT_SINCE: o->since_text = arg; break;
    case OPT_JSON: o->json = 1; break;
    case OPT_DRAIN: o->drain = 1; break;
    case OPT_JOB: o->id.job = arg; break;
    case OPT_STEP: o->id.step = arg; break;
    case OPT_USER: o->id.user = arg; break;
    case OPT_CLUSTER: o->id.cluster = arg; break;
    case OPT_NODES: o->id.nodes = arg; break;
    case OPT_END: o->id.end = arg; break;
    case OPT_SPOOL: o->spool = arg; break;
    case OPT_ALERT:
        if (arg[0] != '/') {
            cp_cli_usage_error(o->cmd, "--alert %s: give an absolute path",
                               arg);
            return -1;
        }
        o->alert = arg;
        break;
    case OPT_WAIT:
        if (cp_cli_positive_time(o->cmd, "--wait", arg, &o->wait_s) != 0)
            return -1;
        break;
    case 'o': o->output = arg; break;
    case 'q': o->quiet = 1; break;
    }
    return 0;
}

/* Parse argv into o; 0 with optind at the operands, 1 after --help, or an
 * exit status (2) after a message. */
static int parse(struct opts *o, const char *cmd, int argc, char **argv,
                 void (*help)(FILE *))
{
    double span;
    int rc;

    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->since = NAN;
    o->wait_s = 900;
    rc = cp_cli_options(cmd, argc, argv, ":o:qh", long_opts, help, take, o);
    if (rc != 0)
        return rc < 0 ? EXIT_USAGE : 1;
    if (!o->db)
        o->db = cp_fleet_db_default();
    if (!o->since_text)
        return 0;
    if (cp_fleet_time_duration(o->since_text, &span) == 0)
        o->since = (double)time(NULL) - span;
    else if (cp_fleet_time_parse(o->since_text, &o->since) < 0)
        return cp_cli_usage_error(cmd, "--since '%s' is neither a duration "
                                       "(7d, 12h, 30m) nor a time (ISO "
                                       "8601 UTC)", o->since_text);
    return 0;
}

/* ---- ingest ------------------------------------------------------------- */

static void usage_ingest(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet ingest [--db DB] [IDENTITY...] REPORT.json...\n"
            "       collprof fleet ingest [--db DB] --spool DIR [--wait T]\n"
            "                             [--cluster NAME] [--alert PROGRAM]\n"
            "\n"
            "Adds each report.json (collprof.report/1) to the fleet database:\n"
            "the step, its node pairs' link evidence, its nodes' straggler\n"
            "evidence, its ports' snapshots and its findings, in one\n"
            "transaction per report.  A report that cannot be read, is\n"
            "damaged or is not a collprof report is refused, naming the file\n"
            "and the key, and writes nothing.  A step already in the database\n"
            "(the same cluster, job and step, or the same report) counts once.\n"
            "\n"
            "Identity, for a caller that knows the step better than its report\n"
            "(the site's own ingest at the step's end); each overrides the\n"
            "report's, and the step's row records where each came from:\n"
            "  --job ID         the job id (default the report's job.job_id)\n"
            "  --step ID        the step id (default the report's job.step_id)\n"
            "  --user NAME      who ran it (default the report file's owner)\n"
            "  --cluster NAME   the cluster (default \"default\")\n"
            "  --nodes A,B,...  the step's nodes (default the report's job.nodes)\n"
            "  --end TIME       when it ended, ISO 8601 UTC or epoch seconds\n"
            "                   (default the report file's modification time)\n"
            "  --db DB          the database (default $COLLPROF_FLEET_DB, else\n"
            "                   %s); created when missing\n"
            "  -q, --quiet      no line per report\n"
            "\n"
            "The site's side of a Slurm cluster (docs/fleet.md, \"The spool\"):\n"
            "  --spool DIR      drain the spool that slurmstepd fills\n"
            "                   (plugstack key fleet_spool=): each step's\n"
            "                   report.json, read from the step's directory\n"
            "                   only when it and the directory belong to the\n"
            "                   step's user, with Slurm's job, step, user and\n"
            "                   end; run it as root (cron, a systemd timer)\n"
            "  --wait T         keep an entry whose report is not there yet\n"
            "                   this long after its step ended (default 15m)\n"
            "  --alert PROGRAM  after ingesting, run PROGRAM once for each link\n"
            "                   or node newly judged bad (COLLPROF_FLEET_KIND,\n"
            "                   _SUBJECT, _VERDICT, _DB in a clean environment;\n"
            "                   killed after 30 s)\n"
            "\n"
            "Exit status: 0 every report ingested (or already there); 1 some\n"
            "report or the database failed (the others are kept); 2 bad usage.\n",
            cp_fleet_db_default());
}

static int cmd_ingest(int argc, char **argv)
{
    struct cp_fleet_db *db = NULL;
    struct cp_fleet_ingested res;
    struct cp_error err;
    struct opts o;
    int rc = parse(&o, "fleet ingest", argc, argv, usage_ingest), status = 0;

    if (rc)
        return rc == 1 ? 0 : rc;
    if (optind >= argc && !o.spool)
        return cp_cli_usage_error(o.cmd, "no report.json given");
    if (o.spool && (optind < argc || o.id.job || o.id.step || o.id.user ||
                    o.id.end || o.id.nodes))
        return cp_cli_usage_error(o.cmd, "--spool takes each step's identity "
                                         "from its entry: no report, --job, "
                                         "--step, --user, --nodes or --end");
    if (argc - optind > 1 && (o.id.job || o.id.step))
        return cp_cli_usage_error(o.cmd, "--job and --step name one step: "
                                         "give one report with them");
    if (cp_fleet_db_open(o.db, CP_FLEET_DB_WRITE, &db, &err) < 0) {
        cp_cli_say(stderr, "collprof fleet ingest: %s", err.text);
        return 1;
    }
    for (; optind < argc; optind++) {
        if (cp_fleet_ingest(db, argv[optind], &o.id, &res, &err) < 0) {
            cp_cli_say(stderr, "collprof fleet ingest: %s", err.text);
            status = 1;
            continue;
        }
        if (o.quiet)
            continue;
        if (res.inserted)
            cp_cli_say(stdout,
                       "collprof fleet: %s: step %s.%s of cluster %s (user "
                       "%s): %zu links, %zu nodes, %zu ports, %zu findings",
                       argv[optind], res.job, res.step, res.cluster, res.user,
                       res.links, res.nodes, res.ports, res.findings);
        else
            cp_cli_say(stdout, "collprof fleet: %s: step %s.%s of cluster %s "
                               "is already in the database",
                       argv[optind], res.job, res.step, res.cluster);
    }
    if (o.spool) {
        int d = cp_fleetdrain_spool(db, o.spool, o.wait_s, o.id.cluster,
                                    o.quiet);
        if (d > status)
            status = d;
    }
    if (o.alert && cp_fleetdrain_alert(db, o.alert, o.quiet) && !status)
        status = 1;
    cp_fleet_db_close(db);
    return status;
}

/* ---- judging ------------------------------------------------------------ */

/* Open the database read-only and judge it; 0, or 1 after a message. */
static int judged(const struct opts *o, struct cp_fleet_db **db,
                  struct cp_fleet_view *v)
{
    struct cp_error err;

    memset(v, 0, sizeof *v);
    if (cp_fleet_db_open(o->db, CP_FLEET_DB_READ, db, &err) < 0 ||
        cp_fleet_judge(*db, o->since, (double)time(NULL), v, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        cp_fleet_view_free(v);
        cp_fleet_db_close(*db);
        *db = NULL;
        return 1;
    }
    return 0;
}

/* doc to stdout ("-") or to path through a temporary file. */
static int write_json(const struct opts *o, json_t *doc, const char *path)
{
    struct cp_path_out out;
    struct cp_error err;
    FILE *f = stdout;

    if (strcmp(path, "-") != 0) {
        if (cp_path_create(&out, path, CP_PATH_MODE, &err) < 0) {
            cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
            return 1;
        }
        f = out.f;
    }
    if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) < 0 ||
        fputc('\n', f) == EOF) {
        cp_cli_say(stderr, "collprof %s: cannot write %s", o->cmd, path);
        if (f != stdout)
            cp_path_discard(&out);
        return 1;
    }
    if (f != stdout && cp_path_install(&out, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        return 1;
    }
    return 0;
}

static int print_json(const struct opts *o, const struct cp_fleet_view *v,
                      int lists, const char *path)
{
    struct cp_error err;
    json_t *doc = cp_fleet_to_json(v, lists, &err);
    int rc;

    if (!doc) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        return 1;
    }
    rc = write_json(o, doc, path);
    json_decref(doc);
    return rc;
}

/* x with `digits` decimals, or "-" when unknown. */
static const char *num(double x, int digits, char *buf, size_t size)
{
    if (!isfinite(x))
        return "-";
    snprintf(buf, size, "%.*f", digits, x);
    return buf;
}

static int width_of(size_t n, const char *const *names, int least)
{
    int w = least;
    size_t i;

    for (i = 0; i < n; i++)
        if ((int)strlen(names[i]) > w)
            w = (int)strlen(names[i]);
    return w;
}

/* "n1 mlx5_0/1 200, n2 mlx5_0/1 100" (rates in Gb/s) into buf. */
static void ports_text(const struct cp_fleet_link *l, char *buf, size_t size)
{
    char r[32];
    size_t i, o = 0;

    buf[0] = '\0';
    for (i = 0; i < l->nports && o + 1 < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s%s %s/%lld %s",
                              i ? ", " : "", l->ports[i].node,
                              l->ports[i].device, l->ports[i].port,
                              num(l->ports[i].rate_Gbps, 0, r, sizeof r));
    if (!l->nports)
        snprintf(buf, size, "-");
}

static void print_links(const struct cp_fleet_view *v)
{
    const struct cp_fleet_link *l;
    char pair[600], e[32], ports[2048];
    int w = 9;
    size_t i;

    for (i = 0; i < v->nlinks; i++)
        if ((int)(strlen(v->links[i].a) + strlen(v->links[i].b) + 1) > w)
            w = (int)(strlen(v->links[i].a) + strlen(v->links[i].b) + 1);
    cp_cli_say(stdout, "%-8s %-*s %7s %8s %4s %5s %10s %-20s %s", "verdict",
               w, "node pair", "crossed", "measured", "slow", "users",
               "median eff", "last slow", "ports (Gb/s)");
    for (i = 0; i < v->nlinks; i++) {
        l = &v->links[i];
        if (l->verdict == CP_FLEET_NO_EVIDENCE)
            continue;
        snprintf(pair, sizeof pair, "%s %s", l->a, l->b);
        ports_text(l, ports, sizeof ports);
        cp_cli_say(stdout, "%-8s %-*s %7lld %8lld %4lld %5lld %10s %-20s %s",
                   cp_fleet_verdict_name(l->verdict), w, pair, l->jobs_crossed,
                   l->jobs_measured, l->jobs_slow, l->users,
                   num(l->median_efficiency, 2, e, sizeof e),
                   l->last_slow ? l->last_slow : "-", ports);
    }
    printf("%lld of %lld node pairs had no evidence (crossed, never "
           "measured; --json lists them); %lld bad, %lld suspect.\n",
           v->summary.no_evidence_links, v->summary.pairs,
           v->summary.bad_links, v->summary.suspect_links);
}

static void print_nodes(const struct cp_fleet_view *v)
{
    const struct cp_fleet_node *d;
    const char **names = calloc(v->nnodes + 1, sizeof *names);
    char e[32];
    int w;
    size_t i;

    for (i = 0; names && i < v->nnodes; i++)
        names[i] = v->nodes[i].node;
    w = width_of(names ? v->nnodes : 0, names, 4);
    free(names);
    cp_cli_say(stdout, "%-8s %-*s %5s %9s %5s %15s %14s", "verdict", w,
               "node", "jobs", "straggler", "users", "users straggler",
               "median delay s");
    for (i = 0; i < v->nnodes; i++) {
        d = &v->nodes[i];
        cp_cli_say(stdout, "%-8s %-*s %5lld %9lld %5lld %15lld %14s",
                   cp_fleet_verdict_name(d->verdict), w, d->node, d->jobs,
                   d->jobs_straggler, d->users, d->users_straggler,
                   num(d->median_delay_s, 4, e, sizeof e));
    }
    printf("%lld nodes: %lld bad, %lld suspect.\n", v->summary.nodes,
           v->summary.bad_nodes, v->summary.suspect_nodes);
}

static void print_ports(const struct cp_fleet_view *v)
{
    const struct cp_fleet_port *p;
    char port[600], r[32], q[32], counters[1024];
    size_t i, k, o;

    cp_cli_say(stdout, "%-8s %-24s %5s %6s %9s %9s %9s %s", "verdict",
               "node device/port", "jobs", "errors", "slow rate", "rate Gb/s",
               "peer Gb/s", "counters risen");
    for (i = 0; i < v->nports; i++) {
        p = &v->ports[i];
        snprintf(port, sizeof port, "%s %s/%lld", p->node, p->device,
                 p->port);
        counters[0] = '\0';
        for (k = 0, o = 0; k < p->ncounters && o + 1 < sizeof counters; k++)
            o += (size_t)snprintf(counters + o, sizeof counters - o,
                                  "%s%s +%.0f", k ? ", " : "",
                                  p->counters[k].name,
                                  p->counters[k].increase);
        cp_cli_say(stdout, "%-8s %-24s %5lld %6lld %9lld %9s %9s %s",
                   cp_fleet_verdict_name(p->verdict), port, p->jobs,
                   p->jobs_errors, p->jobs_slow_rate,
                   num(p->rate_Gbps, 0, r, sizeof r),
                   num(p->peer_rate_Gbps, 0, q, sizeof q),
                   p->ncounters ? counters : "-");
    }
    printf("%zu ports: %lld bad, %lld suspect.\n", v->nports,
           v->summary.bad_ports, v->summary.suspect_ports);
}

/* A name scontrol takes as it is, nothing a shell would read. */
static int plain_name(const char *s)
{
    return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                           "WXYZ0123456789._-") == strlen(s);
}

/* The scontrol line of each bad node; printed, never run. */
static void print_drain(const struct cp_fleet_view *v)
{
    const struct cp_fleet_node *d;
    size_t i;

    for (i = 0; i < v->nnodes; i++) {
        d = &v->nodes[i];
        if (d->verdict != CP_FLEET_BAD)
            continue;
        if (!plain_name(d->node)) {
            cp_cli_say(stderr, "collprof fleet nodes: node '%s' is bad but "
                               "its name is not a plain node name; no "
                               "command printed for it", d->node);
            continue;
        }
        printf("scontrol update nodename=%s state=drain reason=\"collprof: "
               "straggler in %lld of %lld jobs (%lld users)%s%s\"\n",
               d->node, d->jobs_straggler, d->jobs, d->users_straggler,
               v->since[0] ? " since " : "", v->since);
    }
}

static void usage_common(FILE *out)
{
    fprintf(out,
            "  --db DB       the database (default $COLLPROF_FLEET_DB, else\n"
            "                %s)\n"
            "  --since WHEN  only steps that ended since: a duration (7d, 12h,\n"
            "                30m) back from now, or an ISO 8601 UTC time\n",
            cp_fleet_db_default());
}

static void usage_links(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet links [--db DB] [--since 7d] [--json]\n"
            "\n"
            "Each node pair the fleet's jobs crossed, ranked by the evidence\n"
            "across jobs (worst first): jobs that crossed it, jobs that\n"
            "measured it (bandwidth-bound evidence), jobs that found it slow,\n"
            "distinct users, its median efficiency, the last time it was slow\n"
            "and both ends' ports as the port snapshots saw them.  Verdicts:\n"
            "bad (slow in most jobs that measured it, and in at least 2),\n"
            "suspect (slow in some), ok, no evidence (docs/fleet.md).\n"
            "\n");
    usage_common(out);
    fprintf(out, "  --json        the document collprof.fleet/1 (links only)\n");
}

static void usage_nodes(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet nodes [--db DB] [--since 7d] [--json] "
            "[--drain-commands]\n"
            "\n"
            "Each node by straggler evidence across jobs: bad when it\n"
            "straggled in at least 2 jobs of at least 2 users (and a quarter\n"
            "of its jobs); one that straggles only in one user's jobs is that\n"
            "job's issue (suspect).\n"
            "\n");
    usage_common(out);
    fprintf(out,
            "  --json            the document collprof.fleet/1 (nodes only)\n"
            "  --drain-commands  print, for each bad node, the line\n"
            "                    scontrol update nodename=N state=drain "
            "reason=\"collprof: ...\"\n"
            "                    (printed only; collprof never runs it)\n");
}

static void usage_ports(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet ports [--db DB] [--since 7d] [--json]\n"
            "\n"
            "Each RDMA port the jobs' snapshots saw: bad when its error\n"
            "counters rose in at least 2 jobs, or its rate was below its\n"
            "peers' in at least 2; suspect once.\n"
            "\n");
    usage_common(out);
    fprintf(out, "  --json        the document collprof.fleet/1 (ports only)\n");
}

static void usage_export(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet export [--db DB] [--since 7d] -o FILE\n"
            "\n"
            "Writes links, nodes and ports as one collprof.fleet/1 document\n"
            "(docs/fleet.md; '-' for standard output), through a temporary\n"
            "file renamed into place.\n"
            "\n");
    usage_common(out);
    fprintf(out, "  -o, --output FILE  the document (required)\n");
}

static void usage_metrics(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet metrics [--db DB] [--since 7d] [-o FILE]\n"
            "\n"
            "Writes the fleet's figures per node pair, node and port in\n"
            "Prometheus text exposition, as node_exporter's textfile\n"
            "collector reads it (FILE in its directory, ending .prom): written\n"
            "to a temporary file and renamed, so the collector never reads\n"
            "half of it.  Without -o, to standard output.\n"
            "\n");
    usage_common(out);
    fprintf(out, "  -o, --output FILE  the .prom file (default standard "
                 "output)\n");
}

/* links, nodes, ports: the table, or --json, of one list. */
static int cmd_list(int argc, char **argv, const char *cmd, int list,
                    void (*help)(FILE *))
{
    struct cp_fleet_db *db = NULL;
    struct cp_fleet_view v;
    struct opts o;
    int rc = parse(&o, cmd, argc, argv, help);

    if (rc)
        return rc == 1 ? 0 : rc;
    if (optind < argc)
        return cp_cli_usage_error(cmd, "unexpected argument '%s'",
                                  argv[optind]);
    if (judged(&o, &db, &v))
        return 1;
    if (o.json)
        rc = print_json(&o, &v, list, "-");
    else if (o.drain)
        print_drain(&v);
    else if (list == CP_FLEET_JSON_LINKS)
        print_links(&v);
    else if (list == CP_FLEET_JSON_NODES)
        print_nodes(&v);
    else
        print_ports(&v);
    cp_fleet_view_free(&v);
    cp_fleet_db_close(db);
    return rc;
}

static int cmd_links(int argc, char **argv)
{
    return cmd_list(argc, argv, "fleet links", CP_FLEET_JSON_LINKS,
                    usage_links);
}

static int cmd_nodes(int argc, char **argv)
{
    return cmd_list(argc, argv, "fleet nodes", CP_FLEET_JSON_NODES,
                    usage_nodes);
}

static int cmd_ports(int argc, char **argv)
{
    return cmd_list(argc, argv, "fleet ports", CP_FLEET_JSON_PORTS,
                    usage_ports);
}

static int cmd_export(int argc, char **argv)
{
    struct cp_fleet_db *db = NULL;
    struct cp_fleet_view v;
    struct opts o;
    int rc = parse(&o, "fleet export", argc, argv, usage_export);

    if (rc)
        return rc == 1 ? 0 : rc;
    if (optind < argc)
        return cp_cli_usage_error(o.cmd, "unexpected argument '%s'",
                                  argv[optind]);
    if (!o.output)
        return cp_cli_usage_error(o.cmd, "-o FILE is required");
    if (judged(&o, &db, &v))
        return 1;
    rc = print_json(&o, &v, CP_FLEET_JSON_ALL, o.output);
    cp_fleet_view_free(&v);
    cp_fleet_db_close(db);
    return rc;
}

static void usage_report(FILE *out)
{
    fprintf(out,
            "usage: collprof fleet report [--db DB] [--since 7d] -o FILE\n"
            "\n"
            "Writes fleet.html: one self-contained page (inline SVG, nothing\n"
            "from the network) of the fleet's verdicts: the node-pair matrix\n"
            "coloured by verdict, the worst links and nodes with the jobs\n"
            "behind them, each worst link's efficiency over time, the ports\n"
            "(docs/fleet-html.md).  Written through a temporary file renamed\n"
            "into place.\n"
            "\n");
    usage_common(out);
    fprintf(out, "  -o, --output FILE  the page (required)\n");
}

/* The page of v, through collprof.fleet/1 (reports/ reads only the
 * document). */
static int write_report(const struct opts *o, const struct cp_fleet_view *v)
{
    struct cp_path_out out;
    struct cp_error err;
    struct fh_fleet fl;
    json_t *doc = cp_fleet_to_json(v, CP_FLEET_JSON_ALL, &err);
    int rc = 1;

    memset(&fl, 0, sizeof fl);
    if (!doc || cp_fleet_html_view_from_json(doc, "fleet.json", &fl,
                                             &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        goto out;
    }
    if (cp_path_create(&out, o->output, 0644, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        goto out;
    }
    if (cp_fleet_html_render(&fl, out.f, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s: %s", o->cmd, o->output, err.text);
        cp_path_discard(&out);
        goto out;
    }
    if (cp_path_install(&out, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        goto out;
    }
    if (!o->quiet)
        cp_cli_say(stdout, "collprof fleet: wrote %s", o->output);
    rc = 0;
out:
    cp_fleet_html_view_free(&fl);
    json_decref(doc);
    return rc;
}

static int cmd_report(int argc, char **argv)
{
    struct cp_fleet_db *db = NULL;
    struct cp_fleet_view v;
    struct opts o;
    int rc = parse(&o, "fleet report", argc, argv, usage_report);

    if (rc)
        return rc == 1 ? 0 : rc;
    if (optind < argc)
        return cp_cli_usage_error(o.cmd, "unexpected argument '%s'",
                                  argv[optind]);
    if (!o.output)
        return cp_cli_usage_error(o.cmd, "-o FILE is required");
    if (judged(&o, &db, &v))
        return 1;
    rc = write_report(&o, &v);
    cp_fleet_view_free(&v);
    cp_fleet_db_close(db);
    return rc;
}

static int write_metrics(const struct opts *o, const struct cp_fleet_view *v)
{
    struct cp_path_out out;
    struct cp_error err;

    if (!o->output || strcmp(o->output, "-") == 0) {
        if (cp_fleet_metrics_write(v, stdout, &err) < 0 || fflush(stdout)) {
            cp_cli_say(stderr, "collprof %s: cannot write the metrics",
                       o->cmd);
            return 1;
        }
        return 0;
    }
    if (cp_path_create(&out, o->output, 0644, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        return 1;
    }
    if (cp_fleet_metrics_write(v, out.f, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s: %s", o->cmd, o->output, err.text);
        cp_path_discard(&out);
        return 1;
    }
    if (cp_path_install(&out, &err) < 0) {
        cp_cli_say(stderr, "collprof %s: %s", o->cmd, err.text);
        return 1;
    }
    return 0;
}

static int cmd_metrics(int argc, char **argv)
{
    struct cp_fleet_db *db = NULL;
    struct cp_fleet_view v;
    struct opts o;
    int rc = parse(&o, "fleet metrics", argc, argv, usage_metrics);

    if (rc)
        return rc == 1 ? 0 : rc;
    if (optind < argc)
        return cp_cli_usage_error(o.cmd, "unexpected argument '%s'",
                                  argv[optind]);
    if (judged(&o, &db, &v))
        return 1;
    rc = write_metrics(&o, &v);
    cp_fleet_view_free(&v);
    cp_fleet_db_close(db);
    return rc;
}

int cp_cmd_fleet(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } verbs[] = {
        {"ingest", cmd_ingest},   {"links", cmd_links},
        {"nodes", cmd_nodes},     {"ports", cmd_ports},
        {"export", cmd_export},   {"metrics", cmd_metrics},
        {"report", cmd_report},
    };
    size_t i;

    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    for (i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strcmp(argv[1], verbs[i].name) == 0)
            return verbs[i].run(argc - 1, argv + 1);
    cp_cli_say(stderr, "collprof fleet: unknown command '%s' (try collprof "
                       "fleet --help)", argv[1]);
    return EXIT_USAGE;
}
