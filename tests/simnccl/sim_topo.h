/* sim_topo.h - the topology file of simnccl: virtual nodes, the latency and
 * bandwidth of the links between them, and planted faults (a slow link, a
 * straggler rank).
 *
 * One directive per line, '#' starts a comment:
 *
 *   nodes 4
 *   intra latency=5us bandwidth=2GB/s
 *   inter latency=20us bandwidth=400MB/s
 *   link n2 n3 bandwidth=100MB/s latency=40us
 *   straggler rank=5 delay=2ms
 *   clock n3 offset=2ms
 *
 * The parser never prints: an error fills the caller's buffer with one
 * sentence that starts with "file:line:" and names the offending key.
 */
#ifndef SIMNCCL_SIM_TOPO_H
#define SIMNCCL_SIM_TOPO_H

#include <stddef.h>
#include <stdint.h>

#define SIM_TOPO_NODE_NAME 64
#define SIM_TOPO_MAX_LINKS 256
#define SIM_TOPO_MAX_STRAGGLERS 64
#define SIM_TOPO_MAX_CLOCKS 64

/* Defaults when no file is given (or a directive leaves a key out). */
#define SIM_TOPO_DEFAULT_INTRA_LATENCY_NS 5000
#define SIM_TOPO_DEFAULT_INTRA_BANDWIDTH 2e9
#define SIM_TOPO_DEFAULT_INTER_LATENCY_NS 20000
#define SIM_TOPO_DEFAULT_INTER_BANDWIDTH 400e6

struct sim_link_params {
    int64_t latency_ns;
    double bandwidth; /* bytes per second, > 0 */
};

struct sim_topo_link {
    char a[SIM_TOPO_NODE_NAME];
    char b[SIM_TOPO_NODE_NAME];
    struct sim_link_params params;
};

struct sim_topo_straggler {
    int rank;
    int64_t delay_ns;
};

/* A node whose CLOCK_REALTIME runs offset_ns ahead (negative: behind) of
 * the others' (simrun passes it to that node's ranks, docs in README.md). */
struct sim_topo_clock {
    char node[SIM_TOPO_NODE_NAME];
    int64_t offset_ns;
};

struct sim_topo {
    int nodes; /* from "nodes K"; 0 when the file does not say */
    struct sim_link_params intra;
    struct sim_link_params inter;
    int n_links;
    struct sim_topo_link links[SIM_TOPO_MAX_LINKS];
    int n_stragglers;
    struct sim_topo_straggler stragglers[SIM_TOPO_MAX_STRAGGLERS];
    int n_clocks;
    struct sim_topo_clock clocks[SIM_TOPO_MAX_CLOCKS];
};

/* The topology of a machine without a file: one fabric, default speeds. */
void sim_topo_defaults(struct sim_topo *topo);

/* Parse the file at path into *out (defaults first, then the directives).
 * Returns 0, or -1 with a message in err ("path:line: ..." or the open
 * error).  *out is only meaningful on success. */
int sim_topo_parse_file(const char *path, struct sim_topo *out, char *err,
                        size_t errlen);

/* Same for text already in memory; name is used in messages. */
int sim_topo_parse_string(const char *text, const char *name,
                          struct sim_topo *out, char *err, size_t errlen);

/* "5us" -> 5000 ns.  Units s, ms, us, ns; a unit is required.
 * Returns 0 or -1. */
int sim_topo_parse_duration(const char *text, int64_t *ns);

/* "2GB/s" -> 2e9 bytes/s.  Units B/s, KB/s, MB/s, GB/s (powers of 1000) and
 * KiB/s, MiB/s, GiB/s (powers of 1024).  Returns 0 or -1; zero is rejected. */
int sim_topo_parse_bandwidth(const char *text, double *bytes_per_s);

/* Latency and bandwidth between a rank on node a and one on node b: a link
 * directive naming the pair (either order), else intra when a == b, else
 * inter. */
struct sim_link_params sim_topo_pair(const struct sim_topo *topo,
                                     const char *a, const char *b);

/* Delay planted for a global rank at the start of each collective (0 when
 * none; several directives for one rank add up). */
int64_t sim_topo_straggler_delay(const struct sim_topo *topo, int rank);

/* Offset of node's CLOCK_REALTIME planted by 'clock' directives (0 when
 * none; the last directive for a node wins). */
int64_t sim_topo_clock_offset(const struct sim_topo *topo, const char *node);

/* "-1.5ms" -> -1500000: a duration with an optional sign.  Returns 0 or
 * -1. */
int sim_topo_parse_signed_duration(const char *text, int64_t *ns);

#endif
