/* cp_bench_import.h - read what nccl-tests (or rccl-tests, or collprof
 * bench) printed on some cluster into points (cp_bench.h) that the
 * calibration (cp_bench_fit.h) reads like the bench's own.
 *
 * Accepted inputs:
 *   - nccl-tests' text output (all_reduce_perf and its siblings), current
 *     and older layouts (with or without the redop and root columns, the
 *     old "error" column, per-iteration and timestamp columns, the blank
 *     op column of the 2020-2022 alltoall_perf), several tables per file;
 *   - the same with the prefixes launchers add to each line: Open MPI's
 *     "[1,0]<stdout>:" (stderr-tagged lines are ignored), "[0] " of other
 *     MPIs, srun --label's "0: ", and indentation;
 *   - nccl-tests' JSON file (-J/--output_file: "args", "config.devices",
 *     "results"), rccl-tests' JSON lines, and collprof bench's own JSON
 *     ("points").
 *
 * Which collective a table measures comes from, in order: the caller's
 * coll; collprof bench's "# collprof bench: op ..." line; nccl-tests'
 * "# Collective test starting: all_reduce_perf" line or a command line that
 * names the program; the file name; else the columns (redop, root and
 * size/count), when they leave one candidate.  The rank count: the caller's
 * ranks; the bench's line; nccl-tests' "#  Rank N ... on HOST" lines; the
 * busbw/algbw ratio (all-reduce, reduce-scatter, all-gather, all-to-all,
 * gather, scatter); size/count.  The node count: the caller's, or the
 * distinct hosts of the rank lines; the link class follows from it (one
 * node: intra, more: inter) unless the caller gives it.
 *
 * Every result line is checked before it is used, so that a damaged line is
 * reported, never misread: its numbers must parse completely; both halves
 * (out-of-place, in-place) must be there; the printed algbw must equal
 * size / time and the printed busbw algbw x factor within the rounding of
 * the printed digits; sizes must grow down a table.  A line that fails is
 * skipped and reported with its file, line number and why (a truncated
 * line, text of another process in the middle of a line, a line of an
 * interleaved second run whose sizes start over).  Fragments (numbers
 * without size and count) are reported too.  A table whose collective or
 * rank count cannot be determined, or whose columns contradict the
 * collective named for it, is reported and left out.
 *
 * Nothing here prints.
 */
#ifndef COLLPROF_CP_BENCH_IMPORT_H
#define COLLPROF_CP_BENCH_IMPORT_H

#include "cp_bench.h"
#include "cp_error.h"

struct cp_bench_import_opts {
    int coll;       /* enum cp_coll, or -1: find out */
    unsigned ranks; /* 0: find out */
    unsigned nodes; /* 0: find out */
    int link;       /* enum cp_link_class, or CP_BENCH_LINK_UNKNOWN */
};

/* What was skipped, and why. */
struct cp_bench_import_issue {
    char source[256];
    unsigned line; /* 0: the file as a whole */
    char why[240];
};

struct cp_bench_import_report {
    struct cp_bench_import_issue *issues;
    size_t nissues, cap_issues;
    unsigned lines;        /* lines read */
    unsigned result_lines; /* lines that looked like results */
    unsigned used_lines;   /* of those, the ones that became points */
    unsigned tables;       /* tables kept */
    /* contents of the files read (FNV-1a), so that a file given twice is
     * counted once */
    struct {
        uint64_t hash;
        size_t len;
        char name[128];
    } seen[64];
    unsigned nseen;
};

/* Read the file at path (text or JSON) and append its tables to set as
 * series and points.  Returns 0 (issues, if any, in rep), or -1 when the
 * file cannot be read or memory runs out (err says which). */
int cp_bench_import_file(const char *path,
                         const struct cp_bench_import_opts *opts,
                         struct cp_bench_set *set,
                         struct cp_bench_import_report *rep,
                         struct cp_error *err);

/* The same for text in memory; name is used as the source. */
int cp_bench_import_string(const char *text, const char *name,
                           const struct cp_bench_import_opts *opts,
                           struct cp_bench_set *set,
                           struct cp_bench_import_report *rep,
                           struct cp_error *err);

/* Frees the issues and zeroes rep; NULL is fine. */
void cp_bench_import_report_clear(struct cp_bench_import_report *rep);

#endif
