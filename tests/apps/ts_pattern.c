/* ts_pattern.c - the simulated training steps (see ts_pattern.h). */
#include "ts_pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_coll.h"

/* Tensor sizes at --scale 1, in elements (parameters, activations), small
 * enough that 8 ranks sharing 2 CPU cores run a step in well under a
 * second. */
enum {
    INIT_WEIGHT_ELEMENTS = 64 * 1024,
    INIT_CONFIG_ELEMENTS = 16, /* seeds and hyper-parameters, not scaled */
    FINAL_METRIC_ELEMENTS = 8, /* not scaled */

    DDP_BUCKETS = 3,
    DDP_SMALL_TENSORS = 24, /* norm weights and biases: 1-16 KiB float32 */

    FSDP_LAYERS = 6,
    FSDP_LAYER_ELEMENTS = 64 * 1024, /* a layer's whole flat parameter */

    TP_LAYERS = 4,
    TP_ACTIVATION_ELEMENTS = 16 * 1024, /* sequence x hidden */
    TP_BATCH_TOKENS = 4 * 1024,
    TP_DP_BUCKETS = 2,

    MOE_LAYERS = 4,
    MOE_EXPERTS_PER_RANK = 2,
    MOE_BLOCK_ELEMENTS = 64 * 64, /* capacity tokens x hidden, per peer */

    PP_MICROBATCHES_PER_STAGE = 2,
    PP_ACTIVATION_ELEMENTS = 8 * 1024, /* one micro-batch's activation */

    D3_MICROBATCHES = 2,
    D3_LAYERS_PER_STAGE = 2,
    D3_TP_ACTIVATION_ELEMENTS = 16 * 1024, /* inside a node */
    D3_PP_ACTIVATION_ELEMENTS = 32 * 1024, /* between nodes */
    D3_DP_BUCKETS = 2,
    D3_DP_SMALL_TENSORS = 4, /* norm weights and biases, 1-16 KiB */
};

struct ts_pattern {
    const char *name;
    const char *summary; /* one line of --help (tests/apps/README.md) */
    /* Settle the pattern's own options; NULL when it has none. */
    int (*prepare)(struct ts_pattern_config *config, int nranks, char *err,
                   size_t errlen);
    /* Create the splits; NULL when the pattern uses the world only. */
    void (*setup)(struct ts_run *run, struct ts_comm *world,
                  const struct ts_pattern_config *config,
                  struct ts_pattern_state *state);
    void (*step)(struct ts_run *run, struct ts_comm *world,
                 const struct ts_pattern_config *config,
                 struct ts_pattern_state *state);
};

/* elements at --scale 1, scaled, at least 1. */
static size_t
scaled(const struct ts_pattern_config *config, double elements)
{
    double count = elements * config->scale;
    return count < 1 ? 1 : (size_t)count;
}

/* Elements of a gradient bucket of --bucket-mb, of which this rank holds
 * 1/share (tensor or pipeline parallelism splits the model). */
static size_t
bucket_elements(const struct ts_pattern_config *config, int share)
{
    double bytes = config->bucket_mb * 1024 * 1024 / share;
    return scaled(config, bytes / (double)config->dtype->size);
}

static void
split(struct ts_run *run, struct ts_comm *world,
      struct ts_pattern_state *state, const char *prefix, int color,
      int nranks, int rank)
{
    char name[32];

    snprintf(name, sizeof name, "%s%d", prefix, color);
    ts_comm_split(run, world, color, run->rank, name, nranks, rank,
                  &state->splits[state->nsplits]);
    state->nsplits++;
}

/* ---- ddp: gradient buckets and many small tensors, all-reduced ---- */

static void
ddp_step(struct ts_run *run, struct ts_comm *world,
         const struct ts_pattern_config *config,
         struct ts_pattern_state *state)
{
    const struct ts_dtype *dtype = config->dtype;
    size_t bucket = bucket_elements(config, 1);
    int small = 0;
    char name[64];

    (void)state;
    /* Backward fills a bucket, which is reduced in place while the next
     * layers' small tensors come ready and are reduced one by one. */
    for (int b = 0; b < DDP_BUCKETS; b++) {
        snprintf(name, sizeof name, "bucket%d", b);
        ts_coll_allreduce(run, world, name, dtype, bucket, ncclSum, true);
        for (int i = 0; i < DDP_SMALL_TENSORS / DDP_BUCKETS; i++, small++) {
            size_t kib = 1 + (size_t)(small * 5) % 16; /* all of 1..16 */
            snprintf(name, sizeof name, "block%d.norm.%s", small / 2,
                     small % 2 ? "bias" : "weight");
            ts_coll_allreduce(run, world, name, dtype,
                              scaled(config, (double)kib * 256), ncclSum,
                              false);
        }
    }
    ts_coll_allreduce(run, world, "loss", &ts_dtype_float32, 1, ncclSum,
                      false);
}

/* ---- fsdp: gather weight shards, reduce-scatter gradients ---- */

static void
fsdp_step(struct ts_run *run, struct ts_comm *world,
          const struct ts_pattern_config *config,
          struct ts_pattern_state *state)
{
    const struct ts_dtype *dtype = config->dtype;
    size_t full = scaled(config, FSDP_LAYER_ELEMENTS);
    /* FSDP pads the flat parameter to a multiple of the world size */
    size_t shard = (full + (size_t)world->nranks - 1) / (size_t)world->nranks;
    char name[64];

    (void)state;
    for (int layer = 0; layer < FSDP_LAYERS; layer++) {
        snprintf(name, sizeof name, "layer%d.weight", layer);
        ts_coll_allgather(run, world, name, dtype, shard, true);
    }
    for (int layer = FSDP_LAYERS - 1; layer >= 0; layer--) {
        snprintf(name, sizeof name, "layer%d.weight", layer);
        ts_coll_allgather(run, world, name, dtype, shard, true);
        snprintf(name, sizeof name, "layer%d.grad", layer);
        ts_coll_reducescatter(run, world, name, dtype, shard, ncclSum,
                              false);
    }
    /* the sharded grad scaler agrees on inf/NaN; the loss, for the log */
    ts_coll_allreduce(run, world, "found_inf", &ts_dtype_float32, 1,
                      ncclMax, false);
    ts_coll_allreduce(run, world, "loss", &ts_dtype_float32, 1, ncclSum,
                      false);
}

/* ---- tp: Megatron-style tensor parallelism plus data parallelism ---- */

static int
tp_prepare(struct ts_pattern_config *config, int nranks, char *err,
           size_t errlen)
{
    if (config->tp_size == 0)
        config->tp_size = nranks % 2 == 0 ? 2 : 1;
    if (nranks % config->tp_size != 0) {
        snprintf(err, errlen, "--tp-size %d does not divide the %d ranks",
                 config->tp_size, nranks);
        return -1;
    }
    return 0;
}

static void
tp_setup(struct ts_run *run, struct ts_comm *world,
         const struct ts_pattern_config *config,
         struct ts_pattern_state *state)
{
    int tp = config->tp_size;

    split(run, world, state, "tp", run->rank / tp, tp, run->rank % tp);
    split(run, world, state, "dp", run->rank % tp, run->nranks / tp,
          run->rank / tp);
}

static void
tp_step(struct ts_run *run, struct ts_comm *world,
        const struct ts_pattern_config *config,
        struct ts_pattern_state *state)
{
    const struct ts_dtype *dtype = config->dtype;
    struct ts_comm *tp = &state->splits[0];
    struct ts_comm *dp = &state->splits[1];
    size_t activation = scaled(config, TP_ACTIVATION_ELEMENTS);
    size_t bucket = bucket_elements(config, config->tp_size);
    char name[64];

    (void)world;
    if (run->step == 0) /* TP rank 0 hands its batch to the group */
        ts_coll_broadcast(run, tp, "batch.tokens", &ts_dtype_int64,
                          scaled(config, TP_BATCH_TOKENS), 0);
    /* row-parallel attention output and MLP output, then their grads */
    for (int layer = 0; layer < TP_LAYERS; layer++) {
        snprintf(name, sizeof name, "layer%d.attn.out", layer);
        ts_coll_allreduce(run, tp, name, dtype, activation, ncclSum, true);
        snprintf(name, sizeof name, "layer%d.mlp.out", layer);
        ts_coll_allreduce(run, tp, name, dtype, activation, ncclSum, true);
    }
    for (int layer = TP_LAYERS - 1; layer >= 0; layer--) {
        snprintf(name, sizeof name, "layer%d.mlp.in.grad", layer);
        ts_coll_allreduce(run, tp, name, dtype, activation, ncclSum, true);
        snprintf(name, sizeof name, "layer%d.attn.in.grad", layer);
        ts_coll_allreduce(run, tp, name, dtype, activation, ncclSum, true);
    }
    for (int b = 0; b < TP_DP_BUCKETS; b++) {
        snprintf(name, sizeof name, "bucket%d", b);
        ts_coll_allreduce(run, dp, name, dtype, bucket, ncclSum, true);
    }
}

/* ---- moe: expert parallelism over the world ---- */

static void
moe_step(struct ts_run *run, struct ts_comm *world,
         const struct ts_pattern_config *config,
         struct ts_pattern_state *state)
{
    const struct ts_dtype *dtype = config->dtype;
    size_t block = scaled(config, MOE_BLOCK_ELEMENTS);
    char name[64];

    (void)state;
    for (int layer = 0; layer < MOE_LAYERS; layer++) {
        /* how many tokens each expert gets, then the capacity-padded
         * token blocks there and back */
        snprintf(name, sizeof name, "layer%d.tokens_per_expert", layer);
        ts_coll_alltoall(run, world, name, &ts_dtype_int64,
                         MOE_EXPERTS_PER_RANK);
        snprintf(name, sizeof name, "layer%d.dispatch", layer);
        ts_coll_alltoall(run, world, name, dtype, block);
        snprintf(name, sizeof name, "layer%d.combine", layer);
        ts_coll_alltoall(run, world, name, dtype, block);
    }
    for (int layer = MOE_LAYERS - 1; layer >= 0; layer--) {
        snprintf(name, sizeof name, "layer%d.combine.grad", layer);
        ts_coll_alltoall(run, world, name, dtype, block);
        snprintf(name, sizeof name, "layer%d.dispatch.grad", layer);
        ts_coll_alltoall(run, world, name, dtype, block);
    }
    /* the dense (non-expert) parameters are data-parallel */
    ts_coll_allreduce(run, world, "dense.grad", dtype,
                      bucket_elements(config, 1), ncclSum, true);
}

/* ---- pp: 1F1B pipeline stages plus data parallelism ---- */

static int
pp_prepare(struct ts_pattern_config *config, int nranks, char *err,
           size_t errlen)
{
    if (config->pp_stages == 0) /* the largest of 4, 3, 2, 1 dividing */
        for (config->pp_stages = nranks < 4 ? nranks : 4;
             nranks % config->pp_stages != 0; config->pp_stages--)
            ;
    if (nranks % config->pp_stages != 0) {
        snprintf(err, errlen, "--pp-stages %d does not divide the %d ranks",
                 config->pp_stages, nranks);
        return -1;
    }
    return 0;
}

static void
pp_setup(struct ts_run *run, struct ts_comm *world,
         const struct ts_pattern_config *config,
         struct ts_pattern_state *state)
{
    int stages = config->pp_stages;

    split(run, world, state, "pp", run->rank / stages, stages,
          run->rank % stages);
    split(run, world, state, "dp", run->rank % stages, run->nranks / stages,
          run->rank / stages);
}

struct pipeline {
    struct ts_run *run;
    struct ts_comm *comm; /* the stages of this pipeline */
    const struct ts_dtype *dtype;
    size_t count;
};

/* One ncclGroupStart/End holding a send of kind "act"/"grad" of micro-batch
 * send_batch to send_peer and a receive from recv_peer; a peer of -1 means
 * no such operation, and without either there is no group at all. */
static void
pp_exchange(const struct pipeline *pipe, int send_peer, const char *send_kind,
            int send_batch, int recv_peer, const char *recv_kind,
            int recv_batch)
{
    struct ts_coll_group group;
    char what[64];
    char tensor[64];

    if (send_peer < 0 && recv_peer < 0)
        return;
    if (send_peer >= 0)
        snprintf(what, sizeof what, "%s.mb%d", send_kind, send_batch);
    else
        snprintf(what, sizeof what, "%s.mb%d", recv_kind, recv_batch);
    ts_coll_group_start(pipe->run, &group, what);
    if (send_peer >= 0) {
        snprintf(tensor, sizeof tensor, "%s.mb%d", send_kind, send_batch);
        ts_coll_send(pipe->run, &group, pipe->comm, tensor, pipe->dtype,
                     pipe->count, send_peer);
    }
    if (recv_peer >= 0) {
        snprintf(tensor, sizeof tensor, "%s.mb%d", recv_kind, recv_batch);
        ts_coll_recv(pipe->run, &group, pipe->comm, tensor, pipe->dtype,
                     pipe->count, recv_peer);
    }
    ts_coll_group_end(pipe->run, &group);
}

static void
pp_step(struct ts_run *run, struct ts_comm *world,
        const struct ts_pattern_config *config,
        struct ts_pattern_state *state)
{
    struct ts_comm *pp = &state->splits[0];
    struct ts_comm *dp = &state->splits[1];
    struct pipeline pipe = {.run = run, .comm = pp, .dtype = config->dtype,
                            .count = scaled(config, PP_ACTIVATION_ELEMENTS)};
    int stage = pp->rank;
    int stages = pp->nranks;
    int prev = stage > 0 ? stage - 1 : -1;
    int next = stage < stages - 1 ? stage + 1 : -1;
    int batches = PP_MICROBATCHES_PER_STAGE * stages;
    int warmup = stages - stage - 1 < batches ? stages - stage - 1 : batches;
    int steady = batches - warmup;
    int forward = 0;  /* next micro-batch to run forward */
    int backward = 0; /* next micro-batch to run backward */

    /* Megatron's 1F1B schedule without interleaving: warm-up forwards,
     * then one forward and one backward at a time, then the remaining
     * backwards; each transfer is its own group, as batch_isend_irecv. */
    for (int i = 0; i < warmup; i++, forward++) {
        pp_exchange(&pipe, -1, NULL, 0, prev, "act", forward);
        pp_exchange(&pipe, next, "act", forward, -1, NULL, 0);
    }
    if (steady > 0)
        pp_exchange(&pipe, -1, NULL, 0, prev, "act", forward);
    for (int i = 0; i < steady; i++, backward++) {
        pp_exchange(&pipe, next, "act", forward, next, "grad", backward);
        forward++;
        if (i == steady - 1)
            pp_exchange(&pipe, prev, "grad", backward, -1, NULL, 0);
        else
            pp_exchange(&pipe, prev, "grad", backward, prev, "act", forward);
    }
    for (int i = 0; i < warmup; i++, backward++) {
        pp_exchange(&pipe, -1, NULL, 0, next, "grad", backward);
        pp_exchange(&pipe, prev, "grad", backward, -1, NULL, 0);
    }
    ts_coll_allreduce(run, dp, "bucket0", config->dtype,
                      bucket_elements(config, stages), ncclSum, true);
    ts_coll_allreduce(run, world, "loss", &ts_dtype_float32, 1, ncclSum,
                      false);
}

/* ---- 3d: tensor parallelism inside a node, pipeline between nodes, data
 * parallelism across nodes ---- */

/* The ranks per node the launcher reports (simrun, torchrun), else 0. */
static int
ranks_per_node(void)
{
    static const char *const names[] = {"SIMNCCL_LOCAL_SIZE",
                                        "LOCAL_WORLD_SIZE"};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *text = getenv(names[i]);
        char *end;
        long value;

        if (text == NULL || *text == '\0')
            continue;
        value = strtol(text, &end, 10);
        if (*end == '\0' && value > 0 && value <= 1 << 20)
            return (int)value;
    }
    return 0;
}

/* Megatron's rank order tp, dp, pp: rank = t + T (d + D s).  With the
 * launcher's block placement and T ranks per node, node d + D s holds one
 * tensor-parallel group, a data-parallel group spans the D nodes of a
 * stage (one rank per node) and a pipeline runs from node d to node
 * d + D (S - 1), one node per stage. */
static int
d3_prepare(struct ts_pattern_config *config, int nranks, char *err,
           size_t errlen)
{
    int nodes;

    if (config->tp_size == 0) {
        config->tp_size = ranks_per_node();
        if (config->tp_size == 0 || nranks % config->tp_size != 0)
            config->tp_size = nranks % 2 == 0 ? 2 : 1;
    }
    if (nranks % config->tp_size != 0) {
        snprintf(err, errlen, "--tp-size %d does not divide the %d ranks",
                 config->tp_size, nranks);
        return -1;
    }
    nodes = nranks / config->tp_size;
    if (config->pp_stages == 0) /* data parallelism over pairs of nodes */
        config->pp_stages = nodes % 2 == 0 && nodes >= 4 ? nodes / 2 : nodes;
    if (nodes % config->pp_stages != 0) {
        snprintf(err, errlen,
                 "--pp-stages %d does not divide the %d tensor-parallel "
                 "groups",
                 config->pp_stages, nodes);
        return -1;
    }
    config->dp_size = nodes / config->pp_stages;
    return 0;
}

static void
d3_setup(struct ts_run *run, struct ts_comm *world,
         const struct ts_pattern_config *config,
         struct ts_pattern_state *state)
{
    int T = config->tp_size, D = config->dp_size;
    int t = run->rank % T, d = run->rank / T % D, s = run->rank / T / D;

    split(run, world, state, "tp", run->rank / T, T, t);
    split(run, world, state, "dp", t + T * s, D, d);
    split(run, world, state, "pp", t + T * d, config->pp_stages, s);
}

/* One micro-batch through this stage's layers, forward or backward: two
 * row-parallel all-reduces per layer inside the node. */
static void
d3_layers(struct ts_run *run, struct ts_comm *tp,
          const struct ts_pattern_config *config, int batch, bool forward)
{
    size_t activation = scaled(config, D3_TP_ACTIVATION_ELEMENTS);
    char name[64];

    for (int i = 0; i < D3_LAYERS_PER_STAGE; i++) {
        int layer = forward ? i : D3_LAYERS_PER_STAGE - 1 - i;
        snprintf(name, sizeof name, "mb%d.layer%d.%s", batch, layer,
                 forward ? "attn.out" : "mlp.in.grad");
        ts_coll_allreduce(run, tp, name, config->dtype, activation, ncclSum,
                          true);
        snprintf(name, sizeof name, "mb%d.layer%d.%s", batch, layer,
                 forward ? "mlp.out" : "attn.in.grad");
        ts_coll_allreduce(run, tp, name, config->dtype, activation, ncclSum,
                          true);
    }
}

static void
d3_step(struct ts_run *run, struct ts_comm *world,
        const struct ts_pattern_config *config,
        struct ts_pattern_state *state)
{
    struct ts_comm *tp = &state->splits[0];
    struct ts_comm *dp = &state->splits[1];
    struct ts_comm *pp = &state->splits[2];
    size_t activation = scaled(config, D3_PP_ACTIVATION_ELEMENTS);
    size_t bucket =
        bucket_elements(config, config->tp_size * config->pp_stages);
    int stage = pp->rank, last = pp->nranks - 1;
    char name[64];

    /* GPipe: every micro-batch forward, then every one backward; each
     * activation and gradient crosses to the next node with a blocking
     * send and recv */
    for (int m = 0; m < D3_MICROBATCHES; m++) {
        snprintf(name, sizeof name, "act.mb%d", m);
        if (stage > 0)
            ts_coll_recv_alone(run, pp, name, config->dtype, activation,
                               stage - 1);
        d3_layers(run, tp, config, m, true);
        if (stage < last)
            ts_coll_send_alone(run, pp, name, config->dtype, activation,
                               stage + 1);
    }
    for (int m = 0; m < D3_MICROBATCHES; m++) {
        snprintf(name, sizeof name, "grad.mb%d", m);
        if (stage < last)
            ts_coll_recv_alone(run, pp, name, config->dtype, activation,
                               stage + 1);
        d3_layers(run, tp, config, m, false);
        if (stage > 0)
            ts_coll_send_alone(run, pp, name, config->dtype, activation,
                               stage - 1);
    }
    /* the loss (every rank waits for the last stage), then the stage's
     * gradients across its data-parallel replicas, all stages at once:
     * buckets, then the small norm tensors one by one */
    ts_coll_allreduce(run, world, "loss", &ts_dtype_float32, 1, ncclSum,
                      false);
    for (int b = 0; b < D3_DP_BUCKETS; b++) {
        snprintf(name, sizeof name, "bucket%d", b);
        ts_coll_allreduce(run, dp, name, config->dtype, bucket, ncclSum,
                          true);
    }
    for (int i = 0; i < D3_DP_SMALL_TENSORS; i++) {
        static const double kib[D3_DP_SMALL_TENSORS] = {1, 4, 8, 16};
        snprintf(name, sizeof name, "norm%d.grad", i);
        ts_coll_allreduce(run, dp, name, config->dtype,
                          scaled(config, kib[i] * 256), ncclSum, false);
    }
}

/* ---- the table ---- */

static const struct ts_pattern patterns[] = {
    {.name = "ddp",
     .summary = "world: 3 gradient-bucket all-reduces, each followed by 8 "
                "small norm all-reduces, then the loss",
     .step = ddp_step},
    {.name = "fsdp",
     .summary = "world: per layer all-gather forward; all-gather and "
                "reduce-scatter backward; found_inf (MAX) and the loss",
     .step = fsdp_step},
    {.name = "tp",
     .summary = "tp<g> (--tp-size ranks) activation all-reduces per layer, "
                "dp<g> gradient buckets",
     .prepare = tp_prepare, .setup = tp_setup, .step = tp_step},
    {.name = "moe",
     .summary = "world: per layer all-to-all of token counts, dispatch and "
                "combine, forward and backward; dense all-reduce",
     .step = moe_step},
    {.name = "pp",
     .summary = "pp<p> pipelines of --pp-stages stages (1F1B send/recv in "
                "groups), dp<s> gradient all-reduce, the loss",
     .prepare = pp_prepare, .setup = pp_setup, .step = pp_step},
    {.name = "3d",
     .summary = "tp<n> per node, dp<c> across nodes, pp<c> pipelines with "
                "blocking send/recv: made for locating a slow link",
     .prepare = d3_prepare, .setup = d3_setup, .step = d3_step},
};

void
ts_pattern_describe(FILE *stream)
{
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        fprintf(stream, "  %-5s %s\n", patterns[i].name, patterns[i].summary);
}

const struct ts_pattern *
ts_pattern_find(const char *name)
{
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (strcmp(patterns[i].name, name) == 0)
            return &patterns[i];
    return NULL;
}

const char *
ts_pattern_name(const struct ts_pattern *pattern)
{
    return pattern->name;
}

const char *
ts_pattern_choices(void)
{
    return "ddp|fsdp|tp|moe|pp|3d";
}

int
ts_pattern_prepare(const struct ts_pattern *pattern,
                   struct ts_pattern_config *config, int nranks, char *err,
                   size_t errlen)
{
    if (config->tp_size != 0 && pattern->prepare != tp_prepare &&
        pattern->prepare != d3_prepare) {
        snprintf(err, errlen, "--tp-size applies to --pattern tp and 3d only");
        return -1;
    }
    if (config->pp_stages != 0 && pattern->prepare != pp_prepare &&
        pattern->prepare != d3_prepare) {
        snprintf(err, errlen, "--pp-stages applies to --pattern pp and 3d only");
        return -1;
    }
    return pattern->prepare != NULL
               ? pattern->prepare(config, nranks, err, errlen)
               : 0;
}

void
ts_pattern_setup(const struct ts_pattern *pattern, struct ts_run *run,
                 struct ts_comm *world,
                 const struct ts_pattern_config *config,
                 struct ts_pattern_state *state)
{
    memset(state, 0, sizeof *state);
    if (pattern->setup != NULL)
        pattern->setup(run, world, config, state);
}

void
ts_pattern_begin(struct ts_run *run, struct ts_comm *world,
                 const struct ts_pattern_config *config)
{
    /* initial weights from rank 0, as DDP's constructor does, then the
     * run's seeds and settings */
    ts_coll_broadcast(run, world, "init.weights", config->dtype,
                      scaled(config, INIT_WEIGHT_ELEMENTS), 0);
    ts_coll_bcast(run, world, "init.config", &ts_dtype_int64,
                  INIT_CONFIG_ELEMENTS, 0);
}

void
ts_pattern_step(const struct ts_pattern *pattern, struct ts_run *run,
                struct ts_comm *world,
                const struct ts_pattern_config *config,
                struct ts_pattern_state *state)
{
    pattern->step(run, world, config, state);
}

void
ts_pattern_end(struct ts_run *run, struct ts_comm *world)
{
    ts_coll_reduce(run, world, "final.metrics", &ts_dtype_float32,
                   FINAL_METRIC_ELEMENTS, ncclSum, 0);
}

void
ts_pattern_teardown(struct ts_run *run, struct ts_pattern_state *state)
{
    while (state->nsplits > 0)
        ts_comm_destroy(run, &state->splits[--state->nsplits]);
}
