/* cp_plugin_probe.h - the link probe that `--collprof=probe` runs when a
 * step ends: the srun command line that starts `collprof probe` on the step's nodes,
 * the environment it runs with, and the verdict line from its probe.json
 * (docs/probe.md).  No Slurm dependency: the unit test links this file with
 * cp_plugin_findings.c alone.  Functions return 0 or -1 with one sentence
 * (no "collprof: " prefix) in err.
 */
#ifndef COLLPROF_CP_PLUGIN_PROBE_H
#define COLLPROF_CP_PLUGIN_PROBE_H

#include <stddef.h>

#include "cp_plugin_findings.h"

/* What the srun of the probe needs.  Strings are the caller's; NULL or ""
 * leaves an option out. */
struct cp_probe_launch {
    const char *srun;     /* absolute: the srun that loaded the plugin */
    const char *collprof; /* absolute: the site's collprof */
    const char *outdir;   /* collprof probe -o: STEPDIR/probe */
    const char *id_dir;   /* collprof probe --id-dir: STEPDIR */
    const char *nodelist; /* the step's nodes (--nodelist), "" = any */
    unsigned nodes;       /* the step's node count (>= 2) */
    unsigned timeout_s;   /* the step or job gets a time limit above it */
    /* Inside a live allocation (the job's other steps go on; salloc,
     * sbatch): a step of it, with --overlap.  Otherwise the job of the
     * ended step is gone: a job of its own, on the same nodes, in the
     * ended job's partition, account, QOS and reservation. */
    int in_allocation;
    unsigned job_id; /* in_allocation */
    const char *partition, *account, *qos, *reservation;
};

#define CP_PROBE_ARGV_MAX 32
#define CP_PROBE_ARG_MAX 1100

struct cp_probe_argv {
    const char *argv[CP_PROBE_ARGV_MAX]; /* NULL-terminated */
    char text[16][CP_PROBE_ARG_MAX];     /* storage for --key=value items */
};

/* The probe's command line into a (which owns it). */
int cp_probe_argv(const struct cp_probe_launch *l, struct cp_probe_argv *a,
                  struct cp_error *err);

/* The probe's environment: `env` (srun's own, so the job's NCCL library
 * path, NCCL_* and the CPU NCCL's SIMNCCL_* settings come along) without
 * what describes the ended step or would profile the probe: every SLURM_*
 * (SLURM_CONF kept), SRUN_*, SPANK_* and COLLPROF_* variable; plus
 * COLLPROF_DISABLE=1, so that a shim inherited through LD_PRELOAD passes
 * calls through.  A NULL-terminated array that the caller frees with
 * cp_probe_env_free; NULL when out of memory. */
char **cp_probe_env(char *const *env);
void cp_probe_env_free(char **envp);

/* The slow links probe.json names, most severe first (as the file has
 * them). */
#define CP_PROBE_SHOWN 3

struct cp_probe_link {
    char nodes[160];          /* "n2-n4" */
    enum cp_severity severity;
    double bandwidth_Bps;     /* 0 when the file has none */
    double reference_Bps;
};

struct cp_probe_result {
    unsigned nodes, pairs;
    double reference_Bps;
    char reference_source[16]; /* "median", "profile" */
    double slow_below;         /* the threshold, 0.7 by default */
    unsigned slow;             /* slow_link findings in all */
    struct cp_probe_link links[CP_PROBE_SHOWN];
};

/* Read the probe's report `name` in the directory dirfd (no link followed,
 * at most 16 MiB, strings made printable). */
int cp_probe_read(int dirfd, const char *name, struct cp_probe_result *res,
                  struct cp_error *err);

/* The verdict's line, without the "collprof: job J.S: " prefix:
 * "probe: slow link n2-n4 (6.25 MB/s against 25 MB/s, 25%)", or
 * "probe: every node pair within 0.7x of the median (25.0 MB/s), 6 pairs". */
void cp_probe_verdict(const struct cp_probe_result *res, char *out,
                      size_t outlen);

#endif
