/* ts_pattern.h - the training steps train_sim simulates: ddp, fsdp, tp,
 * moe, pp and 3d, each making the NCCL calls a step of that kind of
 * parallelism makes, with every result checked (ts_coll.h).
 *
 * A run is: setup (the ncclCommSplit communicators of the pattern), begin
 * (the initial broadcasts on the world), the steps, end (a reduce of the
 * metrics to rank 0), teardown (destroy the splits).  The world itself is
 * the caller's.
 */
#ifndef TS_PATTERN_H
#define TS_PATTERN_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "ts_comm.h"
#include "ts_dtype.h"
#include "ts_run.h"

struct ts_pattern;

struct ts_pattern_config {
    const struct ts_dtype *dtype; /* of weights, gradients, activations */
    double scale;                 /* multiplies every tensor size */
    double bucket_mb;             /* gradient bucket, MiB before --scale */
    int tp_size;   /* tensor-parallel group size; 0 = default */
    int pp_stages; /* pipeline stages; 0 = default */
    int dp_size;   /* 3d: data-parallel size, set by prepare */
};

/* Up to three communicators split from the world, in creation order. */
enum { TS_PATTERN_MAX_SPLITS = 3 };

struct ts_pattern_state {
    struct ts_comm splits[TS_PATTERN_MAX_SPLITS];
    int nsplits;
};

/* The pattern called name, or NULL.  Static. */
const struct ts_pattern *ts_pattern_find(const char *name);
const char *ts_pattern_name(const struct ts_pattern *pattern);
/* "ddp|fsdp|tp|moe|pp|3d", for usage text. */
const char *ts_pattern_choices(void);
/* One line per pattern: its name and what a step calls (for --help). */
void ts_pattern_describe(FILE *stream);

/* Settle the defaults of config for a world of nranks and check what the
 * user gave against it.  Returns 0, or -1 with a message in err. */
int ts_pattern_prepare(const struct ts_pattern *pattern,
                       struct ts_pattern_config *config, int nranks,
                       char *err, size_t errlen);

void ts_pattern_setup(const struct ts_pattern *pattern, struct ts_run *run,
                      struct ts_comm *world,
                      const struct ts_pattern_config *config,
                      struct ts_pattern_state *state);
void ts_pattern_begin(struct ts_run *run, struct ts_comm *world,
                      const struct ts_pattern_config *config);
/* One training step; run->step says which. */
void ts_pattern_step(const struct ts_pattern *pattern, struct ts_run *run,
                     struct ts_comm *world,
                     const struct ts_pattern_config *config,
                     struct ts_pattern_state *state);
void ts_pattern_end(struct ts_run *run, struct ts_comm *world);
/* Destroy the splits, last created first. */
void ts_pattern_teardown(struct ts_run *run, struct ts_pattern_state *state);

#endif
