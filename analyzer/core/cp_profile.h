/* cp_profile.h - the site profile: expected latency and bandwidth per link
 * class, when a site knows them better than a fit of the job's own calls.
 *
 * A text file, one directive per line, '#' starts a comment, blank lines
 * are ignored:
 *
 *   intra alpha=5us bandwidth=2GB/s
 *   inter alpha=20us bandwidth=400MB/s
 *
 * `intra` is the link between ranks of one node (a communicator whose
 * members are all on one node), `inter` the network between nodes.  Keys:
 * alpha (or latency, the simulator's name): a time with a unit (cp_units:
 * s, ms, us, ns); bandwidth: a bandwidth with a unit (B/s, MB/s, GB/s,
 * Gbps ...).  Either key may be left out; what is missing is taken from
 * the fit.  The simulator's topology files (tests/simnccl) use the same
 * lines, so one is accepted as a profile: its `nodes`, `link` and
 * `straggler` lines are ignored.
 *
 * Errors name the file and the line: "site.prof:3: unknown key 'bw'
 * (expected alpha or bandwidth)".  Nothing here prints.
 */
#ifndef COLLPROF_CP_PROFILE_H
#define COLLPROF_CP_PROFILE_H

#include "cp_error.h"

/* Where the ranks of a communicator sit. */
enum cp_link_class {
    CP_LINK_INTRA = 0, /* every member on one node */
    CP_LINK_INTER = 1, /* members on two or more nodes */
    CP_LINK_COUNT = 2
};

/* "intra", "inter"; NULL out of range. */
const char *cp_link_class_name(enum cp_link_class link);

struct cp_profile_link {
    int have_alpha;
    int have_bandwidth;
    double alpha_s;       /* seconds, >= 0 */
    double bandwidth_Bps; /* bytes per second, > 0 */
    unsigned line;        /* where it was given, 0 = not given */
};

struct cp_profile {
    struct cp_profile_link link[CP_LINK_COUNT];
    char source[256]; /* the file name, or the name given to parse_string */
};

/* Parse the file at path.  Returns 0, or -1 with err filled (the open error,
 * or "path:line: ..."); *out is only meaningful on success. */
int cp_profile_parse_file(const char *path, struct cp_profile *out,
                          struct cp_error *err);

/* The same for text in memory; name is used in messages. */
int cp_profile_parse_string(const char *text, const char *name,
                            struct cp_profile *out, struct cp_error *err);

#endif
