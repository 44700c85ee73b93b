/* cp_bench_out.h - the machine-readable outputs of collprof bench: one JSON
 * document (schema collprof.bench/1, docs/bench.md) and a CSV file with
 * one row per point.
 *
 * JSON: {"schema", "mode": "run"|"import", "timer" ("host" or
 * "host+cuda_events"; null for an import), "run" (who ran: ranks, nodes,
 * memory, NCCL, timer_reason) or "sources" and "skipped_lines" (import),
 * "series", "points": [{"op", "size_bytes", "count", "ranks", "link",
 * "in_place", "time_s", "median_time_s", "gpu_time_s" (null: not measured),
 * "algbw_Bps", "busbw_Bps", "wrong" (null: not checked), "root",
 * "iters", "series"}], "fit": {"<op>": {"ranks", "latency_floor_s",
 * "alpha_s", "busbw_Bps", "regime_boundary_bytes", ... , "groups": [...]
 * when the op was measured on several rank counts or links}},
 * "calibration": {"links": {"intra": {...}, "inter": {...}}, ...},
 * "wrong_total"}, with "generator" and "created" when the meta has them.
 * Numbers that could not be determined are null.
 *
 * Nothing here prints; the write functions create their file through a
 * temporary name renamed into place.
 */
#ifndef COLLPROF_CP_BENCH_OUT_H
#define COLLPROF_CP_BENCH_OUT_H

#include <jansson.h>

#include "cp_bench.h"
#include "cp_bench_fit.h"
#include "cp_bench_import.h"
#include "cp_bench_run.h"
#include "cp_error.h"

struct cp_bench_meta {
    const struct cp_bench_run_info *run;          /* a run, or NULL */
    const char *const *sources;                   /* import: the files */
    size_t nsources;
    const struct cp_bench_import_report *import;  /* import, or NULL */
    const char *generator; /* "collprof bench 0.1.0", or NULL */
    const char *created;   /* when: "2026-11-30T04:18:22Z", or NULL */
};

/* "host+cuda_events" when the run's calls were also timed by CUDA events,
 * else "host". */
const char *cp_bench_timer_name(const struct cp_bench_run_info *run);

/* "intra", "inter" or "unknown". */
const char *cp_bench_link_name(int link);

/* The document; a new reference (NULL when out of memory). */
json_t *cp_bench_json(const struct cp_bench_set *set,
                      const struct cp_bench_calibration *cal,
                      const struct cp_bench_meta *meta);

int cp_bench_write_json(const struct cp_bench_set *set,
                        const struct cp_bench_calibration *cal,
                        const struct cp_bench_meta *meta, const char *path,
                        struct cp_error *err);

/* Header "op,ranks,link,size_bytes,count,type,redop,root,in_place,time_s,
 * algbw_Bps,busbw_Bps,wrong,iters,median_time_s,gpu_time_s"; wrong is empty
 * when not checked, the last two when not measured. */
int cp_bench_write_csv(const struct cp_bench_set *set, const char *path,
                       struct cp_error *err);

#endif
