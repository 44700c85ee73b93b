/* cmd_model.c - `collprof model`: what the alpha-beta model predicts for one
 * collective call, as text or as one JSON object.
 *
 * Exit status: 0 on success, 2 on a usage error (the message names the
 * option), 1 when the output cannot be produced (out of memory).
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cp_cmds.h"
#include "cp_jsonout.h"
#include "cp_model.h"
#include "cp_units.h"

#define PROG "collprof model"
#define MAX_RANKS 16777216u /* 2^24: far above any communicator */

static void usage(FILE *f)
{
    fputs(
        "Usage: collprof model --op OP --ranks P --alpha T --bandwidth B "
        "--size S\n"
        "                      [--algo NAME] [--gpus-per-node G --inter-alpha T\n"
        "                      --inter-bandwidth B] [--json]\n"
        "\n"
        "Predict the time of one collective with the alpha-beta model: the time\n"
        "of every algorithm that applies, the best one, the sizes n* at which two\n"
        "algorithms take the same time, and the algbw and busbw that nccl-tests\n"
        "would report (docs/model.md has the formulas).\n"
        "\n"
        "  --op OP             allreduce, broadcast, reduce, reducescatter,\n"
        "                      allgather, alltoall, gather, scatter, sendrecv\n"
        "                      ('all-reduce', 'all_reduce', 'bcast' also work)\n"
        "  --ranks P           number of ranks in the communicator (integer >= 1)\n"
        "  --alpha T           latency per message, with a unit: s, ms, us, ns\n"
        "                      (10us); the intra-node latency with --gpus-per-node\n"
        "  --bandwidth B       link bandwidth per direction, with a unit: B/s, kB/s,\n"
        "                      MB/s, GB/s, TB/s (powers of 1000), KiB/s ... TiB/s,\n"
        "                      or bits: Mbps, Gbps, Gb/s (50GB/s = 400Gbps);\n"
        "                      beta = 1/B.  The intra-node link with --gpus-per-node\n"
        "  --size S            n, the full buffer in bytes, as nccl-tests' size:\n"
        "                      the vector of all-reduce, broadcast, reduce, the\n"
        "                      gathered output of all-gather and gather, the input\n"
        "                      of reduce-scatter, all-to-all and scatter, the\n"
        "                      message of send/recv.  A number of bytes or a number\n"
        "                      with B, kB, MB, GB, TB (powers of 1000) or KiB, MiB,\n"
        "                      GiB, TiB (powers of 1024): 4096, 1.5MB, 64KiB\n"
        "  --algo NAME         report algbw, busbw and the regime of this algorithm\n"
        "                      instead of the best: ring, recursive_doubling,\n"
        "                      rabenseifner, pairwise, bruck, tree,\n"
        "                      double_binary_tree, hierarchical, direct\n"
        "  --gpus-per-node G   GPUs per node; enables the hierarchical all-reduce\n"
        "                      and makes flat algorithms that span nodes run at the\n"
        "                      slower link.  Needs the two options below\n"
        "  --inter-alpha T     latency per message between nodes (a time)\n"
        "  --inter-bandwidth B bandwidth per GPU between nodes (a bandwidth)\n"
        "  --json              print one JSON object instead of text\n"
        "  -h, --help          show this help\n"
        "\n"
        "Examples:\n"
        "  collprof model --op allreduce --ranks 16 --alpha 10us "
        "--bandwidth 50GB/s --size 1MB\n"
        "  collprof model --op allreduce --ranks 32 --alpha 3us "
        "--bandwidth 450GB/s \\\n"
        "      --gpus-per-node 8 --inter-alpha 10us --inter-bandwidth 400Gbps "
        "--size 1GB --json\n",
        f);
}

static int usage_error(const char *option, const char *message)
{
    if (option)
        fprintf(stderr, PROG ": %s: %s\n", option, message);
    else
        fprintf(stderr, PROG ": %s\n", message);
    return 2;
}

enum {
    OPT_OP = 256,
    OPT_RANKS,
    OPT_ALPHA,
    OPT_BANDWIDTH,
    OPT_SIZE,
    OPT_ALGO,
    OPT_GPUS_PER_NODE,
    OPT_INTER_ALPHA,
    OPT_INTER_BANDWIDTH,
    OPT_JSON
};

static const struct option long_options[] = {
    {"op", required_argument, NULL, OPT_OP},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"alpha", required_argument, NULL, OPT_ALPHA},
    {"bandwidth", required_argument, NULL, OPT_BANDWIDTH},
    {"size", required_argument, NULL, OPT_SIZE},
    {"algo", required_argument, NULL, OPT_ALGO},
    {"gpus-per-node", required_argument, NULL, OPT_GPUS_PER_NODE},
    {"inter-alpha", required_argument, NULL, OPT_INTER_ALPHA},
    {"inter-bandwidth", required_argument, NULL, OPT_INTER_BANDWIDTH},
    {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* "--name" of a long option's value. */
static const char *option_name(int val, char *buf, size_t size)
{
    for (const struct option *o = long_options; o->name; o++) {
        if (o->val == val) {
            snprintf(buf, size, "--%s", o->name);
            return buf;
        }
    }
    snprintf(buf, size, "an option");
    return buf;
}

/* What the command was asked. */
struct request {
    enum cp_coll coll;
    unsigned ranks;
    uint64_t size;
    double alpha, bandwidth;
    double inter_alpha, inter_bandwidth;
    unsigned gpus_per_node;
    enum cp_algo algo;
    int have[OPT_JSON - OPT_OP + 1]; /* which options were given */
    int json;
};

#define HAVE(req, opt) ((req)->have[(opt) - OPT_OP])

/* The model's answer for every algorithm of the collective. */
struct row {
    enum cp_algo algo;
    int applies;
    struct cp_model_terms terms;
    double time;
    enum cp_regime regime;
    char reason[CP_ERROR_TEXT];
};

struct answer {
    struct cp_model_params params;
    struct row rows[CP_ALGO_COUNT];
    int nrows;
    enum cp_algo best;
    double best_time;
    const struct row *selected; /* --algo, else the best */
    double algbw, busbw, factor;
    double bound_latency, bound_bandwidth, bound_bytes;
    int have_hier;
    struct cp_model_hier hier;
    double network_bound; /* NaN without a topology */
};

/* Parse one option's value; 0, or the exit status of a usage error. */
static int parse_option(struct request *req, int opt, const char *arg,
                        const char *name)
{
    struct cp_error err = {.offset = -1};
    uint64_t v;

    switch (opt) {
    case OPT_OP:
        if (cp_model_coll_from_name(arg, &req->coll, &err) < 0)
            return usage_error(name, err.text);
        break;
    case OPT_RANKS:
    case OPT_GPUS_PER_NODE:
        if (cp_units_parse_count(arg, UINT64_MAX, &v, NULL) < 0 || v == 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "expected a positive integer, got '%.80s'",
                     arg);
            return usage_error(name, msg);
        }
        if (v > MAX_RANKS) {
            char msg[200];
            snprintf(msg, sizeof msg, "expected at most %u, got '%.80s'",
                     MAX_RANKS, arg);
            return usage_error(name, msg);
        }
        if (opt == OPT_RANKS)
            req->ranks = (unsigned)v;
        else
            req->gpus_per_node = (unsigned)v;
        break;
    case OPT_ALPHA:
    case OPT_INTER_ALPHA:
        if (cp_units_parse_time(arg, opt == OPT_ALPHA ? &req->alpha
                                                      : &req->inter_alpha,
                                &err) < 0)
            return usage_error(name, err.text);
        break;
    case OPT_BANDWIDTH:
    case OPT_INTER_BANDWIDTH: {
        double *bw = opt == OPT_BANDWIDTH ? &req->bandwidth
                                          : &req->inter_bandwidth;
        if (cp_units_parse_bandwidth(arg, bw, &err) < 0)
            return usage_error(name, err.text);
        if (!(*bw > 0)) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "expected a positive bandwidth, got '%.80s'", arg);
            return usage_error(name, msg);
        }
        break;
    }
    case OPT_SIZE:
        if (cp_units_parse_size_u64(arg, &req->size, &err) < 0)
            return usage_error(name, err.text);
        break;
    case OPT_ALGO:
        if (cp_model_algo_from_name(arg, &req->algo, &err) < 0)
            return usage_error(name, err.text);
        break;
    default:
        break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct request *req,
                      int *help)
{
    static const struct {
        int opt;
        const char *name;
    } required[] = {
        {OPT_OP, "--op"},           {OPT_RANKS, "--ranks"},
        {OPT_ALPHA, "--alpha"},     {OPT_BANDWIDTH, "--bandwidth"},
        {OPT_SIZE, "--size"},
    };
    int opt, rc, topo;

    memset(req, 0, sizeof *req);
    *help = 0;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        const char *seen = argv[optind - 1];
        char msg[300];

        switch (opt) {
        case 'h':
            *help = 1;
            return 0;
        case ':':
            snprintf(msg, sizeof msg, "%.80s needs a value (try '" PROG
                                      " --help')",
                     seen);
            return usage_error(NULL, msg);
        case '?':
            if (optopt >= OPT_OP && optopt <= OPT_JSON) {
                char name[40];
                snprintf(msg, sizeof msg, "%s takes no value",
                         option_name(optopt, name, sizeof name));
            }
            else if (optopt > 0 && optopt < 256)
                snprintf(msg, sizeof msg,
                         "unknown option '-%c' (try '" PROG " --help')",
                         (char)optopt);
            else
                snprintf(msg, sizeof msg,
                         "unknown option '%.80s' (try '" PROG " --help')",
                         seen);
            return usage_error(NULL, msg);
        case OPT_JSON:
            req->json = 1;
            break;
        default: {
            char name[40];
            rc = parse_option(req, opt, optarg,
                              option_name(opt, name, sizeof name));
            if (rc)
                return rc;
            break;
        }
        }
        HAVE(req, opt) = 1;
    }
    if (optind < argc) {
        char msg[300];
        snprintf(msg, sizeof msg,
                 "unexpected argument '%.80s' (try '" PROG " --help')",
                 argv[optind]);
        return usage_error(NULL, msg);
    }
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (!HAVE(req, required[i].opt)) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "%s is required (try '" PROG " --help')",
                     required[i].name);
            return usage_error(NULL, msg);
        }
    }
    topo = HAVE(req, OPT_GPUS_PER_NODE) + HAVE(req, OPT_INTER_ALPHA) +
           HAVE(req, OPT_INTER_BANDWIDTH);
    if (topo != 0 && topo != 3)
        return usage_error(NULL, "--gpus-per-node, --inter-alpha and "
                                 "--inter-bandwidth go together: give all "
                                 "three or none");
    return 0;
}

/* Evaluate the model; 0, or the exit status of a usage error. */
static int evaluate(const struct request *req, struct answer *ans)
{
    struct cp_error err = {.offset = -1};
    unsigned p = req->ranks;
    double n = (double)req->size;

    memset(ans, 0, sizeof *ans);
    ans->params.alpha = req->alpha;
    ans->params.beta = 1.0 / req->bandwidth;
    if (HAVE(req, OPT_GPUS_PER_NODE)) {
        ans->params.gpus_per_node = req->gpus_per_node;
        ans->params.inter_alpha = req->inter_alpha;
        ans->params.inter_beta = 1.0 / req->inter_bandwidth;
    }
    for (int a = 0; a < CP_ALGO_COUNT; a++) {
        struct row *r;

        if (!cp_model_algo_defined(req->coll, (enum cp_algo)a))
            continue;
        r = &ans->rows[ans->nrows++];
        r->algo = (enum cp_algo)a;
        if (cp_model_terms(req->coll, r->algo, p, &ans->params, &r->terms,
                           &err) < 0) {
            snprintf(r->reason, sizeof r->reason, "%s", err.text);
            continue;
        }
        r->applies = 1;
        r->time = r->terms.latency_s + n * r->terms.sec_per_byte;
        cp_model_regime(req->coll, r->algo, p, n, &ans->params, &r->regime,
                        NULL);
    }
    if (cp_model_best(req->coll, p, n, &ans->params, &ans->best,
                      &ans->best_time, &err) < 0)
        return usage_error(NULL, err.text);

    if (HAVE(req, OPT_ALGO)) {
        for (int i = 0; i < ans->nrows; i++)
            if (ans->rows[i].algo == req->algo)
                ans->selected = &ans->rows[i];
        if (!ans->selected) {
            char msg[CP_ERROR_TEXT + 200];
            int len = snprintf(msg, sizeof msg, "%s is not an algorithm of %s "
                                                "(%s has",
                               cp_model_algo_name(req->algo),
                               cp_model_coll_name(req->coll),
                               cp_model_coll_name(req->coll));
            for (int i = 0; i < ans->nrows && len < (int)sizeof msg; i++)
                len += snprintf(msg + len, sizeof msg - (size_t)len, "%s %s",
                                i ? "," : "",
                                cp_model_algo_name(ans->rows[i].algo));
            if (len < (int)sizeof msg)
                snprintf(msg + len, sizeof msg - (size_t)len, ")");
            return usage_error("--algo", msg);
        }
        if (!ans->selected->applies)
            return usage_error("--algo", ans->selected->reason);
    } else {
        for (int i = 0; i < ans->nrows; i++)
            if (ans->rows[i].algo == ans->best)
                ans->selected = &ans->rows[i];
    }

    ans->factor = cp_model_busbw_factor(req->coll, p);
    ans->algbw = cp_model_algbw(n, ans->selected->time);
    ans->busbw = cp_model_busbw(req->coll, p, n, ans->selected->time);
    cp_model_lower_bounds(req->coll, p, n, &ans->params, &ans->bound_latency,
                          &ans->bound_bandwidth, NULL);
    ans->bound_bytes = cp_model_bytes_lower_bound(req->coll, p, n);
    ans->network_bound = NAN;
    if (req->coll == CP_COLL_ALLREDUCE &&
        cp_model_hierarchical(p, n, &ans->params, &ans->hier, NULL) == 0) {
        ans->have_hier = 1;
        ans->network_bound = cp_model_network_bound(p, n, &ans->params);
    }
    return 0;
}

/* ---- JSON -------------------------------------------------------------- */

static json_t *json_row(const struct row *r, double n)
{
    int bad = 0;
    json_t *o = json_object();

    bad |= set(o, "name", json_string(cp_model_algo_name(r->algo)));
    if (r->applies) {
        bad |= set(o, "time_s", jnum(r->time));
        bad |= set(o, "latency_s", jnum(r->terms.latency_s));
        bad |= set(o, "bandwidth_s", jnum(n * r->terms.sec_per_byte));
        bad |= set(o, "regime", json_string(cp_model_regime_name(r->regime)));
    } else {
        bad |= set(o, "reason", json_string(r->reason));
    }
    return built(o, bad);
}

static json_t *json_answer(const struct request *req, const struct answer *a)
{
    const struct row *s = a->selected;
    double n = (double)req->size;
    json_t *root = json_object();
    json_t *algos = json_array(), *na = json_array(), *cross = json_array();
    json_t *bounds = json_object();
    int bad = 0;

    for (int i = 0; i < a->nrows; i++)
        bad |= add(a->rows[i].applies ? algos : na, json_row(&a->rows[i], n));
    for (int i = 0; i < a->nrows; i++) {
        for (int j = i + 1; j < a->nrows; j++) {
            struct cp_model_crossover x;
            json_t *o;

            if (!a->rows[i].applies || !a->rows[j].applies ||
                cp_model_crossover(req->coll, a->rows[i].algo, a->rows[j].algo,
                                   req->ranks, &a->params, &x, NULL) < 0)
                continue;
            o = json_object();
            bad |=
                set(o, "a", json_string(cp_model_algo_name(a->rows[i].algo)));
            bad |=
                set(o, "b", json_string(cp_model_algo_name(a->rows[j].algo)));
            bad |=
                set(o, "bytes", x.crosses ? json_real(x.bytes) : json_null());
            bad |= set(o, "faster_below",
                       json_string(cp_model_algo_name(x.small)));
            bad |= set(o, "faster_above",
                       json_string(cp_model_algo_name(x.large)));
            bad |= add(cross, o);
        }
    }

    bad |= set(root, "op", json_string(cp_model_coll_name(req->coll)));
    bad |= set(root, "ranks", json_integer((json_int_t)req->ranks));
    bad |= set(root, "size_bytes",
               req->size <= (uint64_t)INT64_MAX
                   ? json_integer((json_int_t)req->size)
                   : json_real(n));
    bad |= set(root, "alpha_s", jnum(req->alpha));
    bad |= set(root, "bandwidth_Bps", jnum(req->bandwidth));
    bad |= set(root, "beta_s_per_byte", jnum(a->params.beta));
    bad |= set(root, "algorithms", algos);
    bad |= set(root, "not_applicable", na);
    bad |= set(root, "best", json_string(cp_model_algo_name(a->best)));
    bad |= set(root, "best_time_s", jnum(a->best_time));
    bad |= set(root, "algo", json_string(cp_model_algo_name(s->algo)));
    bad |= set(root, "time_s", jnum(s->time));
    bad |= set(root, "latency_s", jnum(s->terms.latency_s));
    bad |= set(root, "bandwidth_s", jnum(n * s->terms.sec_per_byte));
    bad |= set(root, "n_half_bytes",
               jnum(s->terms.sec_per_byte > 0
                        ? s->terms.latency_s / s->terms.sec_per_byte
                        : NAN));
    bad |= set(root, "regime", json_string(cp_model_regime_name(s->regime)));
    bad |= set(root, "algbw_Bps", jnum(a->algbw));
    bad |= set(root, "busbw_Bps", jnum(a->busbw));
    bad |= set(root, "busbw_factor", jnum(a->factor));
    bad |= set(root, "crossovers", cross);
    bad |= set(bounds, "latency_s", jnum(a->bound_latency));
    bad |= set(bounds, "bandwidth_s", jnum(a->bound_bandwidth));
    bad |= set(bounds, "bytes_per_rank", jnum(a->bound_bytes));
    bad |= set(root, "lower_bounds", bounds);

    if (HAVE(req, OPT_GPUS_PER_NODE)) {
        unsigned g = req->gpus_per_node;
        json_t *topo = json_object();

        bad |= set(topo, "gpus_per_node", json_integer((json_int_t)g));
        bad |=
            set(topo, "nodes",
                req->ranks % g == 0 ? json_integer((json_int_t)(req->ranks / g))
                                    : json_null());
        bad |= set(topo, "inter_alpha_s", jnum(req->inter_alpha));
        bad |= set(topo, "inter_bandwidth_Bps", jnum(req->inter_bandwidth));
        bad |= set(topo, "inter_beta_s_per_byte", jnum(a->params.inter_beta));
        bad |= set(topo, "network_bound_s", jnum(a->network_bound));
        bad |= set(root, "topology", topo);
        if (a->have_hier) {
            json_t *h = json_object();

            bad |= set(h, "intra_step_s", jnum(a->hier.intra_step_s));
            bad |= set(h, "intra_reduce_scatter_s", jnum(a->hier.intra_rs_s));
            bad |= set(h, "inter_step_s", jnum(a->hier.inter_step_s));
            bad |= set(h, "inter_allreduce_s", jnum(a->hier.inter_ar_s));
            bad |= set(h, "intra_allgather_s", jnum(a->hier.intra_ag_s));
            bad |= set(h, "total_s", jnum(a->hier.total_s));
            bad |= set(root, "hierarchical", h);
        }
    }
    return built(root, bad);
}

/* ---- text -------------------------------------------------------------- */

#define FMT CP_UNITS_BUFSIZE

static const char *t4(double s, char *buf)
{
    return cp_units_format(s, CP_UNITS_TIME, 4, buf, FMT);
}

static void print_text(const struct request *req, const struct answer *a)
{
    const struct row *s = a->selected;
    double n = (double)req->size;
    char b1[FMT], b2[FMT], b3[FMT], b4[FMT];
    int nna = 0, first = 1;

    printf("%s on %u rank%s, n = %s (%llu bytes)\n",
           cp_model_coll_name(req->coll), req->ranks,
           req->ranks == 1 ? "" : "s",
           cp_units_format(n, CP_UNITS_SIZE_SI, 4, b1, FMT),
           (unsigned long long)req->size);
    if (HAVE(req, OPT_GPUS_PER_NODE))
        printf("intra-node link: alpha %s, %s; inter-node link: alpha %s, %s; "
               "%u GPUs per node\n",
               t4(req->alpha, b1),
               cp_units_format(req->bandwidth, CP_UNITS_BANDWIDTH, 4, b2, FMT),
               t4(req->inter_alpha, b3),
               cp_units_format(req->inter_bandwidth, CP_UNITS_BANDWIDTH, 4, b4,
                               FMT),
               req->gpus_per_node);
    else
        printf("link: alpha %s, %s (beta %.4g s/B)\n", t4(req->alpha, b1),
               cp_units_format(req->bandwidth, CP_UNITS_BANDWIDTH, 4, b2, FMT),
               a->params.beta);

    printf("\n%-20s %10s %14s %14s  %s\n", "algorithm", "time",
           "latency term", "bandwidth term", "regime");
    for (int i = 0; i < a->nrows; i++) {
        const struct row *r = &a->rows[i];
        if (!r->applies) {
            nna++;
            continue;
        }
        printf("%-20s %10s %14s %14s  %s%s\n", cp_model_algo_name(r->algo),
               t4(r->time, b1), t4(r->terms.latency_s, b2),
               t4(n * r->terms.sec_per_byte, b3),
               cp_model_regime_name(r->regime),
               r->algo == a->best ? "  (best)" : "");
    }
    if (nna) {
        printf("not applicable:\n");
        for (int i = 0; i < a->nrows; i++)
            if (!a->rows[i].applies)
                printf("  %s\n", a->rows[i].reason);
    }

    for (int i = 0; i < a->nrows; i++) {
        for (int j = i + 1; j < a->nrows; j++) {
            struct cp_model_crossover x;
            const char *an = cp_model_algo_name(a->rows[i].algo);
            const char *bn = cp_model_algo_name(a->rows[j].algo);

            if (!a->rows[i].applies || !a->rows[j].applies ||
                cp_model_crossover(req->coll, a->rows[i].algo, a->rows[j].algo,
                                   req->ranks, &a->params, &x, NULL) < 0)
                continue;
            if (first)
                printf("\ncrossovers (n* where two algorithms take the same "
                       "time):\n");
            first = 0;
            if (x.crosses)
                printf("  %s / %s: n* = %s (%.0f bytes); %s below, %s above\n",
                       an, bn,
                       cp_units_format(x.bytes, CP_UNITS_SIZE_SI, 4, b1, FMT),
                       x.bytes, cp_model_algo_name(x.small),
                       cp_model_algo_name(x.large));
            else
                printf("  %s / %s: none; %s is never slower\n", an, bn,
                       cp_model_algo_name(x.small));
        }
    }

    printf("\nbest: %s, %s\n", cp_model_algo_name(a->best),
           t4(a->best_time, b1));
    printf("%s%s: algbw %s, busbw %s (factor %.6g), %s\n",
           cp_model_algo_name(s->algo),
           HAVE(req, OPT_ALGO) ? " (--algo)" : "",
           cp_units_format(a->algbw, CP_UNITS_BANDWIDTH, 4, b1, FMT),
           cp_units_format(a->busbw, CP_UNITS_BANDWIDTH, 4, b2, FMT), a->factor,
           s->regime == CP_REGIME_LATENCY     ? "latency-bound"
           : s->regime == CP_REGIME_BANDWIDTH ? "bandwidth-bound"
                                              : "nothing to move");
    printf("lower bounds: latency %s, bandwidth %s (%s through the busiest "
           "rank's port)\n",
           t4(a->bound_latency, b1), t4(a->bound_bandwidth, b2),
           cp_units_format(a->bound_bytes, CP_UNITS_SIZE_SI, 4, b3, FMT));
    if (a->have_hier) {
        printf("hierarchical: reduce-scatter in node %s, all-reduce across "
               "%u nodes %s, all-gather in node %s\n",
               t4(a->hier.intra_rs_s, b1), a->hier.nodes,
               t4(a->hier.inter_ar_s, b2), t4(a->hier.intra_ag_s, b3));
        printf("network lower bound: %s\n", t4(a->network_bound, b1));
    }
}

int cp_cmd_model(int argc, char **argv)
{
    struct request req;
    struct answer ans;
    int help, rc;

    rc = parse_args(argc, argv, &req, &help);
    if (rc)
        return rc;
    if (help) {
        usage(stdout);
        return 0;
    }
    rc = evaluate(&req, &ans);
    if (rc)
        return rc;
    if (req.json) {
        json_t *obj = json_answer(&req, &ans);
        char *text = obj ? json_dumps(obj, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) : NULL;

        json_decref(obj);
        if (!text) {
            fprintf(stderr, PROG ": out of memory\n");
            return 1;
        }
        printf("%s\n", text);
        free(text);
    } else {
        print_text(&req, &ans);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, PROG ": cannot write the output\n");
        return 1;
    }
    return 0;
}
