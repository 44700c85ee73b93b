/* ops.c - collprof bench's collectives against nccl-tests' conventions, one
 * block per collective: NCCL's count for a size, the size printed back,
 * the algbw byte count, the busbw factor, the redop and root columns, the
 * program name; then nccl-tests' number and line format, and a line of each
 * collective read back by the import (which also recovers the rank count).
 *
 * The expected values are nccl-tests' (anchors.md, seed 000 section 6):
 * algbw = size / time with size = count x type size for all-reduce,
 * broadcast, reduce and send/recv, count x type size x ranks for the
 * others; busbw = algbw x 2(n-1)/n (all-reduce), (n-1)/n (reduce-scatter,
 * all-gather, all-to-all, gather, scatter), 1 (broadcast, reduce,
 * send/recv). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cp_bench.h"
#include "cp_bench_import.h"
#include "tap.h"

struct expect {
    enum cp_coll coll;
    const char *perf_name;
    uint64_t count_1mib_8; /* NCCL count for 1 MiB of float on 8 ranks */
    double factor_8;       /* busbw factor on 8 ranks */
    double factor_2;       /* and on 2 */
    const char *redop;
    int root;
};

static const struct expect table[] = {
    {CP_COLL_ALLREDUCE, "all_reduce_perf", 262144, 1.75, 1.0, "sum", -1},
    {CP_COLL_BROADCAST, "broadcast_perf", 262144, 1.0, 1.0, "none", 0},
    {CP_COLL_REDUCE, "reduce_perf", 262144, 1.0, 1.0, "sum", 0},
    {CP_COLL_REDUCESCATTER, "reduce_scatter_perf", 32768, 0.875, 0.5, "sum",
     -1},
    {CP_COLL_ALLGATHER, "all_gather_perf", 32768, 0.875, 0.5, "none", -1},
    {CP_COLL_ALLTOALL, "alltoall_perf", 32768, 0.875, 0.5, "none", -1},
    {CP_COLL_GATHER, "gather_perf", 32768, 0.875, 0.5, "none", 0},
    {CP_COLL_SCATTER, "scatter_perf", 32768, 0.875, 0.5, "none", 0},
    {CP_COLL_SENDRECV, "sendrecv_perf", 262144, 1.0, 1.0, "none", -1},
};

static void one_collective(const struct expect *e)
{
    const struct cp_coll_facts *op = cp_model_coll_facts(e->coll);
    const char *name = cp_model_coll_name(e->coll);
    struct cp_bench_point p;
    uint64_t count = cp_bench_count(e->coll, 1 << 20, 4, 8);
    char line[256], tok[5][32];
    enum cp_coll found;

    ok(op != NULL && strcmp(op->perf_name, e->perf_name) == 0,
       "%s: nccl-tests' program is %s", name, e->perf_name);
    is_int(count, e->count_1mib_8, "%s: 1 MiB of float on 8 ranks is count %llu",
           name, (unsigned long long)e->count_1mib_8);
    is_int(cp_bench_size(e->coll, count, 4, 8), 1 << 20,
           "%s: that count prints as size 1048576", name);
    is_near(cp_model_busbw_factor(e->coll, 8), e->factor_8, 1e-12,
            "%s: busbw factor on 8 ranks is %g", name, e->factor_8);
    is_near(cp_model_busbw_factor(e->coll, 2), e->factor_2, 1e-12,
            "%s: busbw factor on 2 ranks is %g", name, e->factor_2);

    memset(&p, 0, sizeof p);
    p.coll = e->coll;
    p.ranks = 8;
    p.size_bytes = 1 << 20;
    p.count = count;
    p.root = op->rooted ? 0 : -1;
    p.time_s = 1e-3;
    p.wrong = 0;
    cp_bench_point_bandwidths(&p);
    is_near(p.algbw_Bps, 1048576e3, 1e-12,
            "%s: algbw counts all 1048576 bytes per ms", name);
    is_near(p.busbw_Bps, 1048576e3 * e->factor_8, 1e-12,
            "%s: busbw = algbw x %g", name, e->factor_8);

    cp_bench_format_line(&p, &p, "float", line, sizeof line);
    ok(sscanf(line, "%31s %31s %31s %31s %31s", tok[0], tok[1], tok[2],
              tok[3], tok[4]) == 5 &&
           strcmp(tok[0], "1048576") == 0 && strtoull(tok[1], NULL, 10) ==
                                                  e->count_1mib_8 &&
           strcmp(tok[2], "float") == 0 && strcmp(tok[3], e->redop) == 0 &&
           atoi(tok[4]) == e->root,
       "%s: line starts '1048576 %llu float %s %d'", name,
       (unsigned long long)e->count_1mib_8, e->redop, e->root);
    if (!ok(cp_bench_op_find(e->perf_name, &found) == 0 && found == e->coll,
            "%s: found by its program name", name))
        diag("  line: %s", line);
}

/* A table of one collective in nccl-tests' format, read back. */
static void read_back(const struct expect *e, unsigned ranks)
{
    const struct cp_coll_facts *op = cp_model_coll_facts(e->coll);
    const char *name = cp_model_coll_name(e->coll);
    struct cp_bench_import_opts io = {.coll = -1,
                                      .link = CP_BENCH_LINK_UNKNOWN};
    struct cp_bench_import_report rep;
    struct cp_bench_set set;
    struct cp_error err;
    char text[8192], fname[64], line[256];
    size_t len = 0;
    uint64_t size;
    int rc;

    memset(&rep, 0, sizeof rep);
    memset(&set, 0, sizeof set);
    len += (size_t)snprintf(text + len, sizeof text - len, "%s",
                            cp_bench_table_header());
    for (size = 1024; size <= (64u << 20); size *= 4) {
        struct cp_bench_point p;
        memset(&p, 0, sizeof p);
        p.coll = e->coll;
        p.ranks = ranks;
        p.count = cp_bench_count(e->coll, size, 4, ranks);
        p.size_bytes = cp_bench_size(e->coll, p.count, 4, ranks);
        p.root = op->rooted ? 0 : -1;
        p.time_s = 20e-6 + (double)p.size_bytes / 50e9; /* 20 us + n/50GB/s */
        p.wrong = 0;
        cp_bench_point_bandwidths(&p);
        cp_bench_format_line(&p, &p, "float", line, sizeof line);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s\n", line);
    }
    snprintf(fname, sizeof fname, "x.%s.txt", op->perf_name);
    rc = cp_bench_import_string(text, fname, &io, &set, &rep, &err);
    ok(rc == 0 && set.nseries == 1 && set.npoints == 2 * 9 &&
           rep.nissues == 0,
       "%s on %u ranks: its own table reads back (%zu points, %zu issues)",
       name, ranks, set.npoints, rep.nissues);
    if (set.nseries == 1) {
        unsigned want = e->factor_8 == 1.0 ? 0 : ranks;
        is_int(set.series[0].coll, e->coll, "%s: collective from the file name",
               name);
        is_int(set.series[0].ranks, want,
               "%s on %u ranks: rank count recovered (%u; 0 = cannot be told "
               "when busbw = algbw)",
               name, ranks, want);
        if (set.npoints)
            is_near(set.points[set.npoints - 1].time_s,
                    20e-6 + (double)set.points[set.npoints - 1].size_bytes /
                                50e9,
                    1e-3, "%s: the time reads back", name);
    }
    for (size_t k = 0; k < rep.nissues; k++)
        diag("  %s:%u: %s", rep.issues[k].source, rep.issues[k].line,
             rep.issues[k].why);
    cp_bench_set_clear(&set);
    cp_bench_import_report_clear(&rep);
}

int main(void)
{
    char buf[32];
    enum cp_coll c;
    size_t i;

    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        one_collective(&table[i]);

    /* Sizes the ranks cannot split are rounded down as nccl-tests does. */
    is_int(cp_bench_count(CP_COLL_ALLGATHER, 1 << 20, 4, 3), 87381,
           "all-gather of 1 MiB on 3 ranks: count 87381");
    is_int(cp_bench_size(CP_COLL_ALLGATHER, 87381, 4, 3), 1048572,
           "... which prints as size 1048572");
    is_int(cp_bench_count(CP_COLL_ALLGATHER, 4, 4, 4), 0,
           "all-gather of 4 B on 4 ranks: count 0 (nccl-tests' size 0)");

    /* nccl-tests' number columns. */
    is_str(cp_bench_format_number(12.3456, 7, buf, sizeof buf), "  12.35",
           "time 12.3456 us prints as '  12.35'");
    is_str(cp_bench_format_number(12345.66, 7, buf, sizeof buf), "12345.7",
           "time 12345.66 us prints as '12345.7'");
    is_str(cp_bench_format_number(123456.7, 7, buf, sizeof buf), " 123457",
           "time 123456.7 us prints as ' 123457'");
    is_str(cp_bench_format_number(838.86, 6, buf, sizeof buf), "838.86",
           "busbw 838.86 prints as '838.86'");
    is_str(cp_bench_format_number(1234.5, 6, buf, sizeof buf), "1234.5",
           "busbw 1234.5 prints as '1234.5'");

    /* Names. */
    ok(cp_bench_op_find("./build/reduce_scatter_perf -b 8 -e 128M", &c) == 0 &&
           c == CP_COLL_REDUCESCATTER,
       "a command line names reduce_scatter_perf");
    ok(cp_bench_op_find("h100.all_gather_perf.txt", &c) == 0 &&
           c == CP_COLL_ALLGATHER,
       "a file name names all_gather_perf");
    ok(cp_bench_op_find("gather_perf", &c) == 0 && c == CP_COLL_GATHER,
       "gather_perf is gather, not all-gather");
    ok(cp_bench_op_find("allreduce_vs_allgather.txt", &c) < 0,
       "a name with two collectives names none");
    is_int(cp_bench_type_size("bfloat16"), 2, "bfloat16 is 2 bytes");
    is_int(cp_bench_type_size("float"), 4, "float is 4 bytes");
    is_int(cp_bench_type_size("f8e4m3"), 1, "f8e4m3 is 1 byte");

    for (i = 0; i < sizeof table / sizeof table[0]; i++) {
        read_back(&table[i], 8);
        read_back(&table[i], 3);
    }
    return done_testing();
}
