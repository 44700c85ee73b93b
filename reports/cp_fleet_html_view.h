/* cp_fleet_html_view.h - a checked, typed view of a collprof.fleet/1 document
 * (fleet.json, written by `collprof fleet export`; docs/fleet-html.md),
 * the only thing fleet.html (cp_fleet_html.c) reads.
 *
 * The view is built once: every key the page uses is checked there, with
 * its type, so that a bad document fails with the key's path ("fleet.json:
 * key 'links[3].verdict' should be one of bad, suspect, ok, no_evidence")
 * before anything is written.  Keys the page does not use are ignored, so
 * the document may gain keys.  This is the one file of fleet.html that
 * sees the JSON: the page reads only these structs.
 *
 * Strings point into the document, which the view keeps (loaded from a
 * file) or which the caller keeps for the view's life (built from an
 * object).  The arrays are sized by what was parsed, never by a count the
 * document claims.  Times are ISO 8601 strings as written, with their
 * seconds since the epoch beside them; missing numbers are NaN.  Never
 * prints.
 */
#ifndef COLLPROF_CP_FLEET_HTML_VIEW_H
#define COLLPROF_CP_FLEET_HTML_VIEW_H

#include <stddef.h>

#include "cp_error.h"

struct json_t; /* jansson's; only cp_fleet_html_view.c looks inside */

/* The page's types and helpers are fh_ (fleet html), as report.html's are
 * rp_ and bench.html's bp_: analyzer/fleet's own cp_fleet_ names (the
 * judged fleet) are linked into the same command. */

/* The bounds of fleet.json read from a file (cp_jsonfile): its size, and
 * the memory its parse is counted to take. */
#define CP_FLEET_HTML_MAX_BYTES ((size_t)64 << 20)
#define CP_FLEET_HTML_MAX_COST ((size_t)640 << 20)

/* A verdict of the fleet on a link, a node or a port, from the best to
 * the worst: the order the page ranks by. */
enum fh_verdict { FH_NO_EVIDENCE = 0, FH_OK, FH_SUSPECT, FH_BAD, FH_NVERDICTS };

/* What one job's measurement of a link was. */
enum fh_mark {
    FH_UNCLEAR = 0,
    FH_MARK_OK,
    FH_MARK_SUSPECT,
    FH_SLOW,
    FH_NMARKS
};

/* The document's name of a verdict ("bad", "no_evidence") or a mark
 * ("slow"); static strings. */
const char *fh_verdict_name(enum fh_verdict v);
const char *fh_mark_name(enum fh_mark m);

/* The moment a step ended, as written and in seconds since the epoch. */
struct fh_time {
    const char *text;
    double t;
};

/* One step's measurement of a link: links[].history[].  Names of a null
 * are "n/a"; a null time is "n/a" at -infinity (never drawn). */
struct fh_link_step {
    const char *job, *step, *user, *source;
    struct fh_time end;
    double bandwidth_Bps, efficiency; /* NaN: null */
    enum fh_mark mark;
};

/* A port a link runs through: links[].ports[]. */
struct fh_link_port {
    const char *node, *device;
    long long port;
    double rate_Gbps;
};

struct fh_link {
    const char *nodes[2];
    enum fh_verdict verdict;
    long long jobs_crossed, jobs_measured, jobs_slow, users;
    double median_efficiency, reference_Bps;
    const char *first_slow, *last_slow; /* NULL: null */
    struct fh_link_port *ports;
    size_t nports;
    struct fh_link_step *history; /* as the document orders it */
    size_t nhistory;
    long long history_total; /* the steps behind it ("history_total"; the
                                history holds the latest), nhistory at least */
};

/* One step's view of a node: nodes[].history[]. */
struct fh_node_step {
    const char *job, *step, *user;
    struct fh_time end;
    int straggler;
    double delay_s;
};

struct fh_node {
    const char *node;
    enum fh_verdict verdict;
    long long jobs, jobs_straggler, users, users_straggler;
    double median_delay_s;
    struct fh_node_step *history;
    size_t nhistory;
    long long history_total; /* as a link's */
};

/* One counter of ports[].counters: its name and value. */
struct fh_counter {
    const char *name;
    double value;
};

struct fh_port {
    const char *node, *device;
    long long port;
    enum fh_verdict verdict;
    long long jobs, jobs_errors, jobs_slow_rate;
    double rate_Gbps, peer_rate_Gbps;
    struct fh_counter *counters;
    size_t ncounters;
};

struct fh_rule {
    const char *name, *text;
};

struct fh_summary {
    long long jobs, steps, users, nodes, pairs;
    long long bad_links, suspect_links, bad_nodes, suspect_nodes, bad_ports;
    long long suspect_ports; /* -1: the document does not say */
};

struct fh_fleet {
    const char *schema, *generated, *db;
    const char *since; /* NULL: the whole database */
    struct fh_summary summary;
    struct fh_rule *rules;
    size_t nrules;
    struct fh_link *links;
    size_t nlinks;
    struct fh_node *nodes;
    size_t nnodes;
    struct fh_port *ports;
    size_t nports;
    struct json_t *owned; /* the document, when the view loaded it */
};

/* The view of doc in *fl: 0, or -1 with err naming the key (led by
 * "FILE: " when file is not NULL) and *fl empty.  doc stays the caller's
 * and must outlive the view. */
int cp_fleet_html_view_from_json(struct json_t *doc, const char *file,
                                 struct fh_fleet *fl, struct cp_error *err);

/* The view of the fleet.json at path (read within CP_FLEET_HTML_MAX_BYTES and
 * CP_FLEET_HTML_MAX_COST, a symbolic link followed only to a file the invoking
 * user owns): 0, or -1 with err naming the file and what is wrong with it.
 * The view keeps the document until cp_fleet_html_view_free. */
int cp_fleet_html_view_load(const char *path, struct fh_fleet *fl,
                            struct cp_error *err);

/* Releases what the view holds (safe on an empty one, and twice). */
void cp_fleet_html_view_free(struct fh_fleet *fl);

/* Seconds since the epoch of an ISO 8601 time: a date, then, after a 'T'
 * or a space, hours, minutes and seconds (a fraction allowed), then Z, an
 * offset or nothing (UTC), as collprof fleet writes and reads them
 * ("2026-12-07T10:00:00Z", "2026-12-07T11:00:00.5+01:00", "2026-12-07"):
 * 0, or -1 when text is not one. */
int fh_time_parse(const char *text, double *t);

#endif
