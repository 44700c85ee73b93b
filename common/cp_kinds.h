/* cp_kinds.h - the kinds of finding that collprof analyze reports: one
 * table (cp_kinds.c) that the detectors (judge/cp_det_*.c), the
 * report.json writer, report.html (reports/cp_html.c), the probe, the SPANK
 * plugin and the docs' list (docs/analysis.md, "Findings", checked by
 * tests/analyze/kinds.sh) read; the severities beside it.
 *
 * Adding a kind: a value here, its row in cp_kinds.c, the detector that
 * emits it, its row in docs/analysis.md; report.html shows its title and,
 * when the row has one, its what-to-do text.
 */
#ifndef COLLPROF_CP_KINDS_H
#define COLLPROF_CP_KINDS_H

/* In the order of the table (and of the docs' list). */
enum cp_kind {
    CP_KIND_LATENCY_BOUND = 0,
    CP_KIND_LOW_BUSBW,
    CP_KIND_STRAGGLER,
    CP_KIND_MISSING_RANKS,
    CP_KIND_INCOMPLETE_INSTANCES,
    CP_KIND_FAILED_CALLS,
    CP_KIND_CLOCK_OFFSET,
    CP_KIND_SLOW_LINK,
    CP_KIND_SLOW_LINK_CANDIDATES,
    CP_KIND_DEGRADED_PORT,
    CP_KIND_MODEL_UNAVAILABLE,
    CP_KIND_HANG,
    CP_KIND_DEADLOCK,
    CP_KIND_MISMATCH,
    CP_KIND_KILLED,
    CP_KIND_DUPLICATE_RANK,
    CP_KIND_SLOWDOWN,
    CP_KIND_ALGORITHM_CHOICE,
    CP_KIND_LINKS_UNJUDGED,
    CP_KIND_COUNT
};

/* How severe a finding is: report.json's "severity".  CP_SEVERITY_NONE is
 * no finding at all (the worst of none) or a severity this version does
 * not know: the SPANK plugin's, never a finding's. */
enum cp_severity {
    CP_SEVERITY_NONE = -1,
    CP_SEVERITY_INFO = 0,
    CP_SEVERITY_WARNING = 1,
    CP_SEVERITY_CRITICAL = 2,
    CP_SEVERITY_COUNT
};

struct cp_kind_info {
    const char *name;     /* report.json's "kind": "latency_bound" */
    const char *title;    /* report.html's heading of the finding */
    const char *rule;     /* when it is reported (the docs' rule column) */
    const char *severity; /* how severe (the docs' severity column) */
    const char *todo;     /* what to do, the same for every finding of the
                             kind, `code` in backquotes; NULL when
                             report.html writes it from the evidence */
    const char *doc;      /* where the docs explain it: "analysis.md#..." */
};

/* The row of kind (static, never to be freed); NULL out of range. */
const struct cp_kind_info *cp_kind_info(enum cp_kind kind);

/* The name of kind ("latency_bound"); NULL out of range. */
const char *cp_kind_name(enum cp_kind kind);

/* The kind named name; -1 when no row has that name (a report.json from
 * another version may hold kinds this one does not know). */
int cp_kind_from_name(const char *name, enum cp_kind *kind);

/* "info", "warning", "critical", and "none" for CP_SEVERITY_NONE; NULL
 * out of range. */
const char *cp_severity_name(enum cp_severity severity);

/* The severity named name ("info", "warning", "critical": not "none");
 * -1 when unknown or NULL. */
int cp_severity_from_name(const char *name, enum cp_severity *severity);

/* The same, CP_SEVERITY_NONE when name is NULL or unknown (a report's
 * finding as the SPANK plugin passes it on). */
enum cp_severity cp_severity_named(const char *name);

#endif
