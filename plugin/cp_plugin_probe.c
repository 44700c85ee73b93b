/* cp_plugin_probe.c - the link probe's command line, environment and
 * verdict. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cp_plugin_probe.h"
#include "cp_jsonfile.h"
#include "cp_text.h"
#include "cp_error.h"

/* ---- the command line --------------------------------------------------- */

struct argv_builder {
    struct cp_probe_argv *a;
    size_t n, texts;
    int overflow;
};

static void add(struct argv_builder *b, const char *arg)
{
    if (b->n + 1 >= CP_PROBE_ARGV_MAX) {
        b->overflow = 1;
        return;
    }
    b->a->argv[b->n++] = arg;
    b->a->argv[b->n] = NULL;
}

/* "--key=value" (or "--key" with a NULL fmt), kept in the builder's text */
static void add_opt(struct argv_builder *b, const char *key, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));

static void add_opt(struct argv_builder *b, const char *key, const char *fmt,
                    ...)
{
    char *slot;
    va_list ap;
    int n;

    if (b->texts >= sizeof b->a->text / sizeof b->a->text[0]) {
        b->overflow = 1;
        return;
    }
    slot = b->a->text[b->texts++];
    n = snprintf(slot, CP_PROBE_ARG_MAX, "--%s%s", key, fmt ? "=" : "");
    if (fmt && n > 0 && n < CP_PROBE_ARG_MAX) {
        va_start(ap, fmt);
        n += vsnprintf(slot + n, CP_PROBE_ARG_MAX - (size_t)n, fmt, ap);
        va_end(ap);
    }
    if (n < 0 || n >= CP_PROBE_ARG_MAX) {
        b->overflow = 1;
        return;
    }
    add(b, slot);
}

static int given(const char *s)
{
    return s && *s;
}

int cp_probe_argv(const struct cp_probe_launch *l, struct cp_probe_argv *a,
                  struct cp_error *err)
{
    struct argv_builder b = {a, 0, 0, 0};
    /* the step's or job's own limit, above the plugin's: the plugin stops
     * srun first, Slurm ends what srun could not */
    unsigned minutes = (l->timeout_s + 59) / 60 + 1;

    memset(a, 0, sizeof *a);
    if (!given(l->srun) || l->srun[0] != '/' || !given(l->collprof) ||
        l->collprof[0] != '/' || !given(l->outdir) || l->nodes < 2) {
        return cp_errorf(err, "the probe needs srun and collprof by absolute "
                              "paths, an output directory and 2 nodes or more");
    }
    add(&b, l->srun);
    add_opt(&b, "quiet", NULL);
    add_opt(&b, "job-name", "collprof-probe");
    /* the probe is not profiled: the option wins over any environment */
    add_opt(&b, "collprof", "off");
    add_opt(&b, "export", "ALL");
    if (l->in_allocation) {
        add_opt(&b, "jobid", "%u", l->job_id);
        /* the ended step's resources may not be released yet, and another
         * step of the job may hold CPUs: share them */
        add_opt(&b, "overlap", NULL);
    } else {
        if (given(l->partition))
            add_opt(&b, "partition", "%s", l->partition);
        if (given(l->account))
            add_opt(&b, "account", "%s", l->account);
        if (given(l->qos))
            add_opt(&b, "qos", "%s", l->qos);
        if (given(l->reservation))
            add_opt(&b, "reservation", "%s", l->reservation);
    }
    add_opt(&b, "nodes", "%u", l->nodes);
    if (given(l->nodelist))
        add_opt(&b, "nodelist", "%s", l->nodelist);
    add_opt(&b, "ntasks", "%u", l->nodes);
    add_opt(&b, "ntasks-per-node", "1");
    add_opt(&b, "time", "%u", minutes);
    /* one task that fails ends the others at once, not at their id
     * timeout */
    add_opt(&b, "kill-on-bad-exit", "1");
    add(&b, l->collprof);
    add(&b, "probe");
    add(&b, "-q");
    add(&b, "-o");
    add(&b, l->outdir);
    if (given(l->id_dir)) {
        add(&b, "--id-dir");
        add(&b, l->id_dir);
    }
    if (b.overflow) {
        return cp_errorf(err, "the probe's command line is too long");
    }
    return 0;
}

/* ---- the environment ---------------------------------------------------- */

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int dropped(const char *entry)
{
    static const char *const prefixes[] = {"SLURM_", "SRUN_", "SPANK_",
                                           "COLLPROF_"};
    size_t i;

    if (has_prefix(entry, "SLURM_CONF="))
        return 0;
    for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (has_prefix(entry, prefixes[i]))
            return 1;
    return 0;
}

char **cp_probe_env(char *const *env)
{
    size_t n = 0, i, o = 0;
    char **out;

    while (env && env[n])
        n++;
    out = calloc(n + 2, sizeof *out);
    if (!out)
        return NULL;
    for (i = 0; i < n; i++) {
        if (!strchr(env[i], '=') || dropped(env[i]))
            continue;
        out[o] = strdup(env[i]);
        if (!out[o])
            goto fail;
        o++;
    }
    out[o] = strdup("COLLPROF_DISABLE=1");
    if (!out[o])
        goto fail;
    return out;
fail:
    cp_probe_env_free(out);
    return NULL;
}

void cp_probe_env_free(char **envp)
{
    size_t i;

    if (!envp)
        return;
    for (i = 0; envp[i]; i++)
        free(envp[i]);
    free(envp);
}

/* ---- probe.json --------------------------------------------------------- */

static double number(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    double d = json_is_number(v) ? json_number_value(v) : 0;

    return d > 0 ? d : 0;
}

static void read_link(json_t *finding, const struct cp_probe_result *res,
                      struct cp_probe_link *link)
{
    json_t *nodes = json_object_get(finding, "nodes"),
           *evidence = json_object_get(finding, "evidence");
    char a[64], b[64];

    cp_text_masked(a, sizeof a, json_string_value(json_array_get(nodes, 0)));
    cp_text_masked(b, sizeof b, json_string_value(json_array_get(nodes, 1)));
    snprintf(link->nodes, sizeof link->nodes, "%s-%s", a[0] ? a : "?",
             b[0] ? b : "?");
    link->severity = cp_severity_named(
        json_string_value(json_object_get(finding, "severity")));
    link->bandwidth_Bps = number(evidence, "bandwidth_Bps");
    link->reference_Bps = number(evidence, "peer_bandwidth_Bps");
    if (link->reference_Bps == 0)
        link->reference_Bps = res->reference_Bps;
}

int cp_probe_read(int dirfd, const char *name, struct cp_probe_result *res,
                  struct cp_error *err)
{
    json_t *root, *topo, *findings, *item, *v;
    size_t i;
    int rc = -1;

    memset(res, 0, sizeof *res);
    root = cp_jsonfile_load_at(dirfd, name, CP_PLUGIN_JSON_MAX, err);
    if (!root)
        return -1;
    v = json_object_get(root, "schema");
    if (!json_is_string(v) ||
        strncmp(json_string_value(v), "collprof.probe/", 15) != 0) {
        cp_errorf(err, "%s is not a collprof probe report", name);
        goto out;
    }
    topo = json_object_get(root, "topology");
    res->nodes = (unsigned)json_array_size(json_object_get(topo, "nodes"));
    res->pairs = (unsigned)json_array_size(json_object_get(topo, "pairs"));
    res->reference_Bps = number(topo, "reference_Bps");
    cp_text_masked(res->reference_source, sizeof res->reference_source,
                   json_string_value(json_object_get(topo, "reference_source")));
    res->slow_below =
        number(json_object_get(topo, "thresholds"), "slow");
    findings = json_object_get(root, "findings");
    json_array_foreach(findings, i, item) {
        enum cp_kind kind;
        if (cp_kind_from_name(json_string_value(json_object_get(item, "kind")),
                              &kind) < 0 ||
            kind != CP_KIND_SLOW_LINK)
            continue;
        if (res->slow < CP_PROBE_SHOWN)
            read_link(item, res, &res->links[res->slow]);
        res->slow++;
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}

/* a bandwidth in 3 significant digits: "6.22 MB/s", "24.5 MB/s" */
static void rate(char *out, size_t outlen, double Bps)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}, {1, "B/s"}};
    size_t i;

    for (i = 0; i < sizeof units / sizeof units[0] - 1; i++)
        if (Bps >= units[i].scale * 0.9995)
            break;
    snprintf(out, outlen, "%.3g %s", Bps / units[i].scale, units[i].unit);
    if (strchr(out, 'e')) /* 1e+03: %.3g of 999.96 */
        snprintf(out, outlen, "%.0f %s", Bps / units[i].scale, units[i].unit);
}

void cp_probe_verdict(const struct cp_probe_result *res, char *out,
                      size_t outlen)
{
    char bw[32], ref[32];
    size_t used;
    unsigned i, shown;
    const char *of = strcmp(res->reference_source, "profile") == 0
                         ? "the site profile's"
                         : "the median";

    rate(ref, sizeof ref, res->reference_Bps);
    if (res->slow == 0) {
        snprintf(out, outlen,
                 "probe: every node pair within %.2gx of %s (%s), %u pair%s "
                 "of %u nodes measured",
                 res->slow_below > 0 ? res->slow_below : 0.7, of, ref,
                 res->pairs, res->pairs == 1 ? "" : "s", res->nodes);
        return;
    }
    if (res->slow == 1) {
        rate(bw, sizeof bw, res->links[0].bandwidth_Bps);
        rate(ref, sizeof ref, res->links[0].reference_Bps);
        if (res->links[0].reference_Bps > 0)
            snprintf(out, outlen, "probe: slow link %s (%s against %s, %.0f%%)",
                     res->links[0].nodes, bw, ref,
                     100 * res->links[0].bandwidth_Bps /
                         res->links[0].reference_Bps);
        else
            snprintf(out, outlen, "probe: slow link %s (%s)",
                     res->links[0].nodes, bw);
        return;
    }
    shown = res->slow < CP_PROBE_SHOWN ? res->slow : CP_PROBE_SHOWN;
    snprintf(out, outlen, "probe: %u slow links:", res->slow);
    for (i = 0; i < shown; i++) {
        used = strlen(out);
        rate(bw, sizeof bw, res->links[i].bandwidth_Bps);
        snprintf(out + used, outlen - used, "%s %s (%s)", i ? "," : "",
                 res->links[i].nodes, bw);
    }
    used = strlen(out);
    if (res->slow > shown)
        snprintf(out + used, outlen - used, " and %u more,",
                 res->slow - shown);
    used = strlen(out);
    snprintf(out + used, outlen - used, " against %s", ref);
}
