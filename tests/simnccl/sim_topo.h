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
 *   link n2 n3 bandwidth=10MB/s from=1.5s  (slowed 1.5 s after the start)
 *   straggler rank=5 delay=2ms
 *   hang rank=3 after=40             (planted faults: see sim_fault.h and
 *   hang rank=3 in=broadcast          tests/simnccl/README.md)
 *   kill rank=5 after=100
 *   kill rank=5 in=allreduce after=100
 *   mismatch rank=2 seq=10 count=+1
 *   mismatch rank=2 seq=10 op=reducescatter
 *   swap rank=1 seq=12
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
#define SIM_TOPO_MAX_FAULTS 64
#define SIM_TOPO_OP_NAME 16
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
    /* from=T: it applies from T after the job's start (sim_boot_start_ns)
     * on; 0: from the start */
    int64_t from_ns;
};

struct sim_topo_straggler {
    int rank;
    int64_t delay_ns;
};

/* A planted fault.  Collectives are counted per process, 0-based, over all
 * its communicators (send and recv are not collectives). */
enum sim_fault_kind {
    SIM_FAULT_HANG = 1,     /* after=N: stop calling after N collectives;
                               in=OP: the first OP call (after N) never
                               returns */
    SIM_FAULT_KILL = 2,     /* after=N: SIGKILL before collective N (in
                               compute); in=OP: inside the first OP call
                               (after N) */
    SIM_FAULT_MISMATCH = 3, /* collective number `seq` called with count +
                               count_delta, or as op instead */
    SIM_FAULT_SWAP = 4      /* collectives `seq` and `seq`+1 called in the
                               other order */
};

struct sim_topo_fault {
    enum sim_fault_kind kind;
    int rank;                  /* global rank */
    long after;                /* hang, kill: collectives before; 0 */
    long seq;                  /* mismatch, swap */
    long count_delta;          /* mismatch; 0: none */
    char in[SIM_TOPO_OP_NAME]; /* hang, kill: op name, "" for compute */
    char op[SIM_TOPO_OP_NAME]; /* mismatch: op instead, "" none */
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
    int n_faults;
    struct sim_topo_fault faults[SIM_TOPO_MAX_FAULTS];
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

/* Latency and bandwidth between a rank on node a and one on node b at the
 * job's start: a link directive naming the pair (either order) without
 * from=, else intra when a == b, else inter. */
struct sim_link_params sim_topo_pair(const struct sim_topo *topo,
                                     const char *a, const char *b);

/* The same at t_ns after the job's start: the last link directive for the
 * pair whose from= is at or before t_ns. */
struct sim_link_params sim_topo_pair_at(const struct sim_topo *topo,
                                        const char *a, const char *b,
                                        int64_t t_ns);

/* The first from= of a link directive for the pair after t_ns (since the
 * job's start), or INT64_MAX when the pair does not change after t_ns. */
int64_t sim_topo_pair_change(const struct sim_topo *topo, const char *a,
                             const char *b, int64_t t_ns);

/* Delay planted for a global rank at the start of each collective (0 when
 * none; several directives for one rank add up). */
int64_t sim_topo_straggler_delay(const struct sim_topo *topo, int rank);

/* The first fault of a kind planted for a global rank, or NULL. */
const struct sim_topo_fault *sim_topo_fault(const struct sim_topo *topo,
                                            int rank, enum sim_fault_kind kind);

/* Whether name is a collective op name of the fault directives
 * (allreduce broadcast reduce allgather reducescatter alltoall gather
 * scatter). */
int sim_topo_is_coll_name(const char *name);
/* Offset of node's CLOCK_REALTIME planted by 'clock' directives (0 when
 * none; the last directive for a node wins). */
int64_t sim_topo_clock_offset(const struct sim_topo *topo, const char *node);

/* "-1.5ms" -> -1500000: a duration with an optional sign.  Returns 0 or
 * -1. */
int sim_topo_parse_signed_duration(const char *text, int64_t *ns);

#endif
