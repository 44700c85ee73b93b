/* cmd_dump.c - collprof dump: the recorded calls, one line each. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cp_cmds.h"
#include "cp_log4src.h"
#include "cp_logread.h"
#include "cp_path.h"
#include "cp_text.h"

enum dump_mode { DUMP_TEXT, DUMP_CSV, DUMP_SUMMARY };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof dump [--csv | --summary] [--all] DIR|FILE...\n"
            "\n"
            "Prints every recorded NCCL call of the rank logs (*.cplog) in DIR,\n"
            "or of the given files, one line per call, file by file in name\n"
            "order and call by call in completion order.\n"
            "\n"
            "  --csv       comma-separated, with a header line:\n"
            "              rank,node,pid,comm,seq,op,dtype,count,bytes,redop,\n"
            "              peer,nranks,comm_rank,group,flags,result,start_ns,\n"
            "              end_ns,duration_ns\n"
            "  --summary   per process: rank, node, calls, communicators, and\n"
            "              calls per operation\n"
            "  --all       text mode: also communicator, group, clock and GPU\n"
            "              records, and the NCCL profiler plugin's records:\n"
            "              nccl (algorithm, protocol, channels, graph), proxy\n"
            "              (one per peer and direction), step and link (a\n"
            "              call's sends to one peer over all channels); of a\n"
            "              version-4 log also its structure: the stream's\n"
            "              blocks (offset, first slot, slots, bytes, sum)\n"
            "              and the ring's cells in use (cell, slot, kind)\n"
            "  --follow-symlinks  read logs that are symbolic links to files\n"
            "              of the invoking user (by default refused)\n"
            "\n"
            "bytes = count x element size (the call's own buffer argument);\n"
            "a byte of a node, file or communicator name outside printable\n"
            "ASCII (and a backslash; in CSV a comma or a quote) is shown as\n"
            "\\xHH.\n"
            "seq is empty for calls NCCL refused.  A damaged file is reported\n"
            "on stderr, and everything readable is still printed.\n");
}

/* text (n bytes at most, NUL-terminated or not) escaped by
 * cp_text_shown: a node name or a file name from a log never reaches the
 * terminal as an escape sequence nor splits a CSV row. */
static void shown(char *out, size_t outlen, const char *text, size_t n,
                  int csv)
{
    cp_text_shown(out, outlen, text, n, csv ? CP_TEXT_CSV : 0);
}

static void print_call(enum dump_mode mode, const struct cp_log_header *h,
                       const char *node, const struct cp_rec_call *c)
{
    const char *op = cp_op_name(c->op);
    uint64_t bytes = cp_call_bytes(c->count, c->dtype);
    char seq[16] = "";

    if (c->seq != UINT32_MAX)
        snprintf(seq, sizeof seq, "%u", c->seq);
    if (mode == DUMP_CSV) {
        printf("%d,%s,%d,%016" PRIx64 ",%s,%s,%s,%" PRIu64 ",%" PRIu64
               ",%s,%d,%u,%u,%u,0x%x,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
               h->global_rank, node, h->pid, c->comm_id, seq,
               op ? op : "unknown", cp_dtype_name(c->dtype), c->count, bytes,
               cp_redop_name(c->redop), c->peer, c->nranks, c->rank, c->group,
               c->flags, c->result, c->start_ns, c->end_ns,
               cp_rec_call_in_flight(c) ? 0 : c->end_ns - c->start_ns);
        return;
    }
    if (cp_rec_call_in_flight(c)) {
        printf("rank %d node %s comm %016" PRIx64 " seq %s %s %s x %" PRIu64
               " (%" PRIu64 " B) %s peer %d nranks %u rank %u group %u "
               "flags 0x%x start %" PRIu64 " in flight (never returned)\n",
               h->global_rank, node, c->comm_id, seq[0] ? seq : "-",
               op ? op : "unknown", cp_dtype_name(c->dtype), c->count, bytes,
               cp_redop_name(c->redop), c->peer, c->nranks, c->rank, c->group,
               c->flags, c->start_ns);
        return;
    }
    printf("rank %d node %s comm %016" PRIx64 " seq %s %s %s x %" PRIu64
           " (%" PRIu64 " B) %s peer %d nranks %u rank %u group %u "
           "flags 0x%x result %d start %" PRIu64 " dur %.3f us\n",
           h->global_rank, node, c->comm_id, seq[0] ? seq : "-",
           op ? op : "unknown", cp_dtype_name(c->dtype), c->count, bytes,
           cp_redop_name(c->redop), c->peer, c->nranks, c->rank, c->group,
           c->flags, c->result, c->start_ns,
           (double)(c->end_ns - c->start_ns) / 1e3);
}

/* slot: r's own (a link record names its call by the distance back) */
/* A record of the NCCL profiler plugin's kinds (docs/log-format.md, kinds
 * 6-11), or one of no known kind. */
static void print_plugin_rec(const struct cp_log_header *h, const char *node,
                             const union cp_rec *r, uint64_t slot)
{
    char name[4 * CP_TAG_VARIANT_LEN + 1];

    switch (r->kind) {
    case CP_REC_NCCL:
        printf("rank %d node %s nccl slot %" PRIu64 " comm %016" PRIx64
               " seq %u nccl_seq %" PRId64 " algo %s proto %s channels %u "
               "warps %u api v%u flags 0x%x kernel_channels %u gpu_raw %" PRIu64
               " .. %" PRIu64 "\n",
               h->global_rank, node, r->nccl.slot, r->nccl.comm_id,
               r->nccl.seq, (int64_t)r->nccl.nccl_seq,
               cp_nccl_algo_name(r->nccl.algo),
               cp_nccl_proto_name(r->nccl.proto), r->nccl.nchannels,
               r->nccl.nwarps, r->nccl.api, r->nccl.flags,
               r->nccl.kernel_channels, r->nccl.gpu_start_raw,
               r->nccl.gpu_end_raw);
        break;
    case CP_REC_PROXY:
        printf("rank %d node %s proxy call-slot %" PRId64 " comm %016" PRIx64
               " %s peer %d channel %u steps %u/%u bytes %" PRIu64
               " busy %.3f us min_step %.3f us start %" PRIu64
               " dur %.3f us\n",
               h->global_rank, node, (int64_t)r->proxy.slot,
               r->proxy.comm_id,
               r->proxy.dir == CP_PROXY_SEND ? "send" : "recv", r->proxy.peer,
               r->proxy.channel, r->proxy.steps_done, r->proxy.nsteps,
               r->proxy.bytes, (double)r->proxy.busy_ns / 1e3,
               (double)r->proxy.min_step_ns / 1e3, r->proxy.start_ns,
               (double)(r->proxy.end_ns - r->proxy.start_ns) / 1e3);
        break;
    case CP_REC_LINK:
        printf("rank %d node %s link call-slot %" PRId64 " comm %016" PRIx64
               " %s peer %d channels %u steps %u bytes %" PRIu64
               " busy %.3f us min_step %.3f us max_step %.3f us first %" PRIu64
               " span %.3f us\n",
               h->global_rank, node,
               r->link.back && r->link.back <= slot
                   ? (int64_t)(slot - r->link.back)
                   : (int64_t)-1,
               r->link.comm_id,
               r->link.dir == CP_PROXY_SEND ? "send" : "recv", r->link.peer,
               r->link.channels, r->link.steps, r->link.bytes,
               (double)r->link.busy_ns / 1e3,
               (double)r->link.min_step_ns / 1e3,
               (double)r->link.max_step_ns / 1e3, r->link.first_ns,
               r->link.last_ns >= r->link.first_ns
                   ? (double)(r->link.last_ns - r->link.first_ns) / 1e3
                   : 0.0);
        break;
    case CP_REC_STEP:
        printf("rank %d node %s step proxy-slot %" PRIu64 " %s peer %d "
               "channel %u step %u bytes %" PRIu64 " posted %" PRIu64
               " wait %.3f us net %.3f us\n",
               h->global_rank, node, r->step.proxy_slot,
               r->step.dir == CP_PROXY_SEND ? "send" : "recv", r->step.peer,
               r->step.channel, r->step.step, r->step.bytes,
               r->step.posted_ns,
               (double)(r->step.posted_ns - r->step.start_ns) / 1e3,
               (double)(r->step.done_ns - r->step.posted_ns) / 1e3);
        break;
    case CP_REC_TAG:
        shown(name, sizeof name, r->tag.kernel_variant, CP_TAG_VARIANT_LEN, 0);
        printf("rank %d node %s tag slot %" PRIu64 " seq %u user_tag %" PRIu64
               " flags 0x%x kernel '%s'\n",
               h->global_rank, h->node, r->tag.slot, r->tag.seq,
               r->tag.user_tag, r->tag.flags, name);
        break;
    case CP_REC_PHASE:
        printf("rank %d node %s phase slot %" PRIu64 " comm %016" PRIx64
               " seq %u channel %u phase %u flags 0x%x gpu_raw %" PRIu64
               " .. %" PRIu64 " start %" PRIu64 " dur ",
               h->global_rank, h->node, r->phase.slot, r->phase.comm_id,
               r->phase.seq, r->phase.channel, r->phase.phase,
               r->phase.flags, r->phase.gpu_start_raw, r->phase.gpu_end_raw,
               r->phase.start_ns);
        if (r->phase.flags & CP_PHASE_DAMAGED)
            printf("damaged\n");
        else
            printf("%.3f us\n",
                   (double)(r->phase.gpu_end_raw - r->phase.gpu_start_raw) /
                       1e3);
        break;
    default:
        printf("rank %d node %s record kind %u\n", h->global_rank, node,
               r->kind);
    }
}

static void print_other(const struct cp_log_header *h, const char *node,
                        const union cp_rec *r, uint64_t slot)
{
    char name[4 * CP_COMM_NAME_LEN + 1];

    switch (r->kind) {
    case CP_REC_COMM:
        shown(name, sizeof name, r->comm.name, CP_COMM_NAME_LEN, 0);
        printf("rank %d node %s comm-event how %u comm %016" PRIx64
               " parent %016" PRIx64 " nranks %u rank %u color %d key %d "
               "dev %d name '%s' result %d time %" PRIu64 "\n",
               h->global_rank, node, r->comm.how, r->comm.comm_id,
               r->comm.parent_id, r->comm.nranks, r->comm.rank, r->comm.color,
               r->comm.key, r->comm.cuda_dev, name,
               r->comm.result, r->comm.time_ns);
        break;
    case CP_REC_GROUP:
        printf("rank %d node %s group %u calls %u result %d start %" PRIu64
               " dur %.3f us\n",
               h->global_rank, node, r->group.group, r->group.ncalls,
               r->group.result, r->group.start_ns,
               (double)(r->group.end_ns - r->group.start_ns) / 1e3);
        break;
    case CP_REC_CLOCK:
        printf("rank %d node %s clock realtime %" PRIu64 " monotonic %" PRIu64
               "\n",
               h->global_rank, node, r->clock.realtime_ns,
               r->clock.monotonic_ns);
        break;
    case CP_REC_GPU:
        printf("rank %d node %s gpu slot %" PRIu64 " timer %s flags 0x%x "
               "start %" PRIu64 " dur %.3f us\n",
               h->global_rank, node, r->gpu.slot,
               cp_timer_name(r->gpu.timer), r->gpu.flags, r->gpu.start_ns,
               (double)(r->gpu.end_ns - r->gpu.start_ns) / 1e3);
        break;
    case CP_REC_AGG:
        printf("rank %d node %s aggregate comm %016" PRIx64 " %s%s count %"
               PRIu64 " peer %d calls %u seq %u..%u interval %u ms first %"
               PRIu64 " dur min %.3f us median %.3f us p99 %.3f us max %.3f "
               "us sum %.3f us\n",
               h->global_rank, node, r->agg.comm_id,
               cp_op_name(r->agg.op & ~CP_AGG_GROUPED)
                   ? cp_op_name(r->agg.op & ~CP_AGG_GROUPED)
                   : "unknown",
               r->agg.op & CP_AGG_GROUPED ? " grouped" : "",
               r->agg.count, r->agg.peer, r->agg.calls, r->agg.seq_first,
               r->agg.seq_last, r->agg.interval_ms, r->agg.first_ns,
               (double)cp_q16_decode(r->agg.dur_q[0]) / 1e3,
               (double)cp_q16_decode(r->agg.dur_q[1]) / 1e3,
               (double)cp_q16_decode(r->agg.dur_q[2]) / 1e3,
               (double)cp_q16_decode(r->agg.dur_q[3]) / 1e3,
               (double)r->agg.sum_ns / 1e3);
        break;
    default:
        print_plugin_rec(h, node, r, slot);
    }
}

static void print_summary(const char *path, const struct cp_log_header *h,
                          const char *node, const uint64_t *per_op,
                          uint64_t calls, uint64_t comms)
{
    unsigned op;

    static const char *const steps[5] = {"", ", every proxy step",
                                         ", proxy steps until the budget",
                                         ", proxy aggregates only",
                                         ", proxy sends per call and peer"};

    printf("%s: rank %d node %s pid %d %s timer %s: %" PRIu64 " calls, %" PRIu64
           " communicators%s",
           path, h->global_rank, node, h->pid,
           h->source == CP_SOURCE_PLUGIN ? "nccl-profiler" : "shim",
           cp_timer_name(h->timer), calls, comms,
           h->flags & CP_HDR_CLOSED ? "" : " (not closed: process killed?)");
    if (h->flags & CP_HDR_DISABLED)
        printf(" (profiling turned off mid-run; %" PRIu64 " calls not logged)",
               h->records_dropped);
    if (h->source == CP_SOURCE_PLUGIN)
        printf(" (plugin api v%u%s; %" PRIu64 " step records over budget, %"
               PRIu64 " events not recorded)",
               h->plugin_api, steps[h->steps < 5 ? h->steps : 0],
               h->steps_dropped, h->records_dropped);
    if (h->flags & CP_HDR_POLICY)
        printf(" (capture policy: first %u, windows of %u every %u instances,"
               " aggregates every %u ms)",
               h->policy_first, h->policy_window, h->policy_every,
               h->policy_interval_ms);
    for (op = 0; op < CP_OP_MAX; op++) {
        const char *name = cp_op_name(op);
        if (per_op[op])
            printf(", %s %" PRIu64, name ? name : "unknown", per_op[op]);
    }
    printf("\n");
}

/* Whom print_part writes for. */
struct part_ctx {
    const struct cp_log_header *h;
    const char *node;
};

static void print_part(void *arg, const struct cp_log4_part *p)
{
    static const char *const state[3] = {"", " torn (unfinished, the end)",
                                         " damaged"};
    const struct part_ctx *x = arg;

    if (p->kind == CP_LOG4_PART_BLOCK)
        printf("rank %d node %s v4-block offset %" PRIu64 " first-slot %" PRIu64
               " slots %u bytes %u sum %s%s\n",
               x->h->global_rank, x->node, p->offset, p->first_slot, p->slots,
               p->bytes, p->sum_ok ? "ok" : "bad",
               state[p->state <= CP_LOG4_BLOCK_DAMAGED ? p->state : 0]);
    else
        printf("rank %d node %s v4-ring cell %u slot %" PRIu64 " kind %u\n",
               x->h->global_rank, x->node, p->cell, p->slot, p->rec_kind);
}

/* --all, a version-4 log read from its file: its structure, the stream's
 * blocks then the ring's cells in use, as the reader meets them (a second
 * reader on lf's descriptor; its problem is lf's, said once). */
static void print_log4(struct cp_logfile *lf, const char *node)
{
    const struct cp_log_header *h = cp_logfile_header(lf);
    struct part_ctx x = {h, node};
    struct cp_log4src *src;
    struct cp_error err;
    unsigned char buf[4096];

    if (h->version <= CP_LOG_VERSION_SLOTS || cp_logfile_fd(lf) < 0)
        return; /* one slot per record, or held by a node partial */
    src = cp_log4src_open(cp_logfile_path(lf), cp_logfile_fd(lf), 0, 0, 0, h,
                          cp_logfile_swapped(lf), &err);
    if (!src) {
        cp_cli_say(stderr, "collprof: %s", err.text);
        return;
    }
    printf("rank %d node %s v4 ring %u cells at %" PRIu64 ", stream at %" PRIu64
           " (%" PRIu64 " bytes, %" PRIu64 " slots written), %u signatures "
           "at most\n",
           h->global_rank, node, h->ring_slots, h->ring_offset,
           h->stream_offset, h->stream_end, h->stream_slots, h->dict_slots);
    cp_log4src_observe(src, print_part, &x);
    for (;;) {
        (void)cp_log4src_skip_empty(src);
        if (cp_log4src_read(src, buf, sizeof buf) <= 0)
            break;
    }
    cp_log4src_close(src);
}

/* Dump one file; returns 0, or -1 if it could not be read at all. */
static int dump_file(const char *path, enum dump_mode mode, int all)
{
    struct cp_error err;
    struct cp_logfile *lf = cp_logfile_open(path, &err);
    const struct cp_log_header *h;
    const struct cp_error *problem;
    uint64_t per_op[CP_OP_MAX] = {0}, calls = 0, comms = 0;
    char node[4 * CP_HDR_STR + 1], file[4 * 4096 + 1];
    union cp_rec rec;
    uint64_t slot;

    if (!lf) {
        cp_cli_say(stderr, "collprof: %s", err.text);
        return -1;
    }
    h = cp_logfile_header(lf);
    shown(node, sizeof node, h->node, sizeof h->node, mode == DUMP_CSV);
    shown(file, sizeof file, path, strlen(path), 0);
    while (cp_logfile_next(lf, &rec, &slot) == 1) {
        if (rec.kind == CP_REC_CALL) {
            calls++;
            if (rec.call.op < CP_OP_MAX)
                per_op[rec.call.op]++;
            if (mode != DUMP_SUMMARY)
                print_call(mode, h, node, &rec.call);
        } else {
            if (rec.kind == CP_REC_COMM && rec.comm.how <= CP_COMM_SHRINK &&
                rec.comm.result == 0)
                comms++;
            if (all && mode == DUMP_TEXT)
                print_other(h, node, &rec, slot);
        }
    }
    if (all && mode == DUMP_TEXT)
        print_log4(lf, node);
    if (mode == DUMP_SUMMARY)
        print_summary(file, h, node, per_op, calls, comms);
    problem = cp_logfile_problem(lf);
    if (problem)
        cp_cli_say(stderr, "collprof: %s", problem->text);
    cp_logfile_close(lf);
    return 0;
}

int cp_cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {{"csv", no_argument, 0, 'c'},
                                         {"summary", no_argument, 0, 's'},
                                         {"all", no_argument, 0, 'a'},
                                         {"follow-symlinks", no_argument, 0,
                                          'L'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    enum dump_mode mode = DUMP_TEXT;
    int c, all = 0, rc = 0, i, j;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': mode = DUMP_CSV; break;
        case 's': mode = DUMP_SUMMARY; break;
        case 'a': all = 1; break;
        case 'L': cp_path_set_log_links(CP_PATH_FOLLOW); break;
        case 'h': usage(stdout); return 0;
        default: cp_cli_bad_option("dump", argv, c); return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "collprof dump: give a log directory or file "
                        "(collprof dump --help)\n");
        return 2;
    }
    if (mode == DUMP_CSV)
        printf("rank,node,pid,comm,seq,op,dtype,count,bytes,redop,peer,nranks,"
               "comm_rank,group,flags,result,start_ns,end_ns,duration_ns\n");
    for (i = optind; i < argc; i++) {
        struct cp_error err;
        char **paths;
        int n;
        if (cp_cli_anchor("dump", argv[i]) < 0) {
            rc = 1;
            continue;
        }
        n = cp_logdir_list(argv[i], &paths, &err);
        if (n < 0) {
            cp_cli_say(stderr, "collprof: %s", err.text);
            rc = 1;
            continue;
        }
        for (j = 0; j < n; j++)
            if (dump_file(paths[j], mode, all) < 0)
                rc = 1;
        cp_logdir_free(paths);
    }
    return rc;
}
