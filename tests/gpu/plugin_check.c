/* plugin_check.c - what NCCL's profiler plugin and the shim wrote for
 * `nccl_gpu graph N`, for tests/gpu/run.sh.
 *
 *   plugin_check N DIR
 *
 * nccl_gpu graph N makes 10 all-reduces, captures 2 all-reduces into a CUDA
 * graph, launches the graph N times, then makes 5 more all-reduces.  The
 * plugin log (<node>.<pid>.nccl.cplog) must hold 15 + 2N calls, 2N of them
 * launched from the graph (call flag 16, kind 6 flag 1; NCCL 2.27+), each
 * with its kernel interval (kind 5, timer kernel_ch) and NCCL's algorithm;
 * the shim's log (if DIR has one) the 17 API calls, 2 of them captured.
 * Under profiler API v7 (NCCL 2.31.2+) also a tag record (kind 9) per call
 * and kernel phases (kind 10) for each (the initial-sync ones counted).
 * Prints one "check:" line per fact; exit status 1 if any fails.
 */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "cp_grow.h"
#include "cp_logread.h"

static int failed;

static void check(int cond, const char *what, uint64_t got, uint64_t want)
{
    printf("check: %s: %s (%" PRIu64 ", expected %" PRIu64 ")\n",
           cond ? "pass" : "FAIL", what, got, want);
    if (!cond)
        failed = 1;
}

struct counts {
    uint64_t calls, captured, nccl, nccl_graph, nccl_algo, gpu, gpu_graph;
    /* API v7: tag records, calls with a kernel phase record, phases */
    uint64_t tags, variants, phase_calls, phases, phase_sync;
    char variant[CP_TAG_VARIANT_LEN + 1]; /* the first non-empty one */
    unsigned api;
};

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static int read_log(const char *path, struct counts *c)
{
    struct cp_error err;
    struct cp_logfile *lf = cp_logfile_open(path, &err);
    union cp_rec r;
    uint64_t slot, *graph_slots = NULL, *phase_slots = NULL;
    size_t ngraph = 0, cap = 0, nphase = 0, pcap = 0, i;

    if (!lf) {
        printf("%s: %s\n", path, err.text);
        return -1;
    }
    c->api = cp_logfile_header(lf)->plugin_api;
    while (cp_logfile_next(lf, &r, &slot) == 1) {
        if (r.kind == CP_REC_CALL && cp_op_is_collective(r.call.op)) {
            c->calls++;
            if (r.call.flags & CP_CALL_CAPTURED) {
                c->captured++;
                if (cp_grow((void **)&graph_slots, &cap, ngraph,
                            sizeof *graph_slots) < 0)
                    break;
                graph_slots[ngraph++] = slot;
            }
        } else if (r.kind == CP_REC_NCCL) {
            c->nccl++;
            c->nccl_graph += (r.nccl.flags & CP_NCCL_GRAPH) != 0;
            c->nccl_algo += r.nccl.algo != 0;
        } else if (r.kind == CP_REC_TAG) {
            c->tags++;
            if (r.tag.kernel_variant[0]) {
                c->variants++;
                if (!c->variant[0])
                    memcpy(c->variant, r.tag.kernel_variant,
                           sizeof r.tag.kernel_variant);
            }
        } else if (r.kind == CP_REC_PHASE) {
            c->phases++;
            c->phase_sync += r.phase.phase == 0;
            if (cp_grow((void **)&phase_slots, &pcap, nphase,
                        sizeof *phase_slots) < 0)
                break;
            phase_slots[nphase++] = r.phase.slot;
        } else if (r.kind == CP_REC_GPU && r.gpu.timer == CP_TIMER_KERNEL_CH &&
                   r.gpu.end_ns >= r.gpu.start_ns && r.gpu.start_ns > 0) {
            c->gpu++;
            for (i = 0; i < ngraph; i++)
                if (graph_slots[i] == r.gpu.slot) {
                    c->gpu_graph++;
                    break;
                }
        }
    }
    /* the calls with a phase record: distinct slots */
    if (nphase)
        qsort(phase_slots, nphase, sizeof *phase_slots, compare_u64);
    for (i = 0; i < nphase; i++)
        c->phase_calls += i == 0 || phase_slots[i] != phase_slots[i - 1];
    free(phase_slots);
    free(graph_slots);
    cp_logfile_close(lf);
    return 0;
}

int main(int argc, char **argv)
{
    struct counts plugin, shim;
    struct cp_error err;
    char **paths = NULL;
    uint64_t n;
    int i, count, have_plugin = 0, have_shim = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: plugin_check N DIR\n");
        return 2;
    }
    n = strtoull(argv[1], NULL, 10);
    memset(&plugin, 0, sizeof plugin);
    memset(&shim, 0, sizeof shim);
    count = cp_logdir_list(argv[2], &paths, &err);
    if (count < 0) {
        printf("%s\n", err.text);
        return 1;
    }
    for (i = 0; i < count; i++) {
        size_t len = strlen(paths[i]);
        int is_plugin = len > 11 && strcmp(paths[i] + len - 11, ".nccl.cplog") == 0;
        if (read_log(paths[i], is_plugin ? &plugin : &shim) == 0) {
            have_plugin |= is_plugin;
            have_shim |= !is_plugin;
        }
    }
    cp_logdir_free(paths);
    check(have_plugin, "a plugin log", (uint64_t)have_plugin, 1);
    printf("plugin API v%u\n", plugin.api);
    check(plugin.calls == 15 + 2 * n, "plugin: every call, each replay too",
          plugin.calls, 15 + 2 * n);
    check(plugin.nccl == plugin.calls, "plugin: NCCL's choice of each call",
          plugin.nccl, plugin.calls);
    check(plugin.nccl_algo == plugin.calls, "plugin: an algorithm for each",
          plugin.nccl_algo, plugin.calls);
    check(plugin.gpu == plugin.calls, "plugin: a kernel interval for each",
          plugin.gpu, plugin.calls);
    if (plugin.api >= 5) {
        check(plugin.captured == 2 * n, "plugin: the replays flagged as graph "
              "launches", plugin.captured, 2 * n);
        check(plugin.nccl_graph == 2 * n, "plugin: their NCCL records too",
              plugin.nccl_graph, 2 * n);
        check(plugin.gpu_graph == 2 * n,
              "plugin: each replay with its kernel interval", plugin.gpu_graph,
              2 * n);
    }
    if (plugin.api >= 7) {
        /* NCCL 2.31.2+: a tag record per call, kernel phases (initial
         * sync, compute, final sync) per channel; every call's phases */
        printf("plugin v7: %" PRIu64 " tag records, %" PRIu64
               " with a kernel variant (e.g. '%s'), %" PRIu64
               " phase records, %" PRIu64 " of them initial sync\n",
               plugin.tags, plugin.variants, plugin.variant, plugin.phases,
               plugin.phase_sync);
        check(plugin.tags == plugin.calls, "plugin v7: a tag record per call",
              plugin.tags, plugin.calls);
        check(plugin.phase_calls == plugin.calls,
              "plugin v7: kernel phases for each call", plugin.phase_calls,
              plugin.calls);
        /* which phases NCCL emits per channel is its choice: the
         * initial-sync count is printed above, for the skew it measures
         * (docs/nccl-profiler.md), not checked */
    }
    if (have_shim) {
        check(shim.calls == 17, "shim: the API calls (the capture, no replay)",
              shim.calls, 17);
        check(shim.captured == 2, "shim: the 2 captured calls flagged",
              shim.captured, 2);
    }
    return failed;
}
