/* cp_ports.h - RDMA port snapshots: every device and port of one node, its
 * state, link layer, rate and error counters, at the start and the end of
 * a step, so the analysis can confirm a slow link with port state and name
 * a degraded port (docs/plugin.md, "Port snapshots", has the file format).
 *
 * Sources: sysfs (ROOT/class/infiniband/DEV/ports/N/{state,phys_state,
 * rate,link_layer} and counters/ every file of it), and libibverbs loaded
 * with dlopen when present (state, active width and speed, link layer) for
 * the real /sys only.  ROOT is /sys, or $COLLPROF_SYSFS_ROOT (a "%n" in it
 * is replaced by the node name, so a test points each node at its own fake
 * tree).  A node without RDMA devices gives an empty snapshot, not an
 * error; a file that cannot be read is noted in the port's problems.
 *
 * Used by the SPANK plugin, collprof record, collprof ports (writers) and
 * the analysis (reader).  Never prints.
 */
#ifndef COLLPROF_CP_PORTS_H
#define COLLPROF_CP_PORTS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cp_error.h"

#define CP_PORTS_SCHEMA "collprof.ports/1"

/* What a snapshot file may hold (docs/security.md, "Port snapshots and
 * probe.json"): a larger file, one whose parse would take more memory
 * (cp_jsonfile_cost), or one that lists more ports, is refused
 * (cp_ports_read) before anything is sized by it.  A node's real snapshot
 * is tens of KB (a port with its counters is about 1.5 KB written); the
 * analysis keeps at most CP_PORTS_MAX_PORTS ports of one node, whatever
 * the number of files naming it. */
#define CP_PORTS_MAX_BYTES ((size_t)1 << 20)
#define CP_PORTS_MAX_COST ((size_t)16 << 20)
#define CP_PORTS_MAX_PORTS 1024u

struct cp_port_counter {
    char name[64];
    uint64_t value;
};

struct cp_port {
    char device[64];
    unsigned port;
    char state[32];      /* "ACTIVE", "DOWN" ... ("" unknown) */
    char phys_state[32]; /* "LinkUp", "Polling" ... */
    char link_layer[32]; /* "InfiniBand", "Ethernet" */
    char rate[64];       /* sysfs text, "200 Gb/sec (4X HDR)" */
    double rate_Gbps;    /* NaN unknown */
    int active_width;    /* lanes (1, 2, 4, 8, 12); 0 unknown */
    double lane_Gbps;    /* per-lane speed; NaN unknown */
    int from_verbs;      /* libibverbs answered for this port */
    int have_counters;   /* a counters folder was read */
    size_t ncounters;
    size_t counters_cap; /* room in counters */
    struct cp_port_counter *counters;
    char problems[256];  /* "; "-separated, "" none */
};

struct cp_ports_snapshot {
    char node[64];
    char when[16];       /* "start", "end" or the caller's word */
    int64_t time_ns;     /* CLOCK_REALTIME */
    char root[512];      /* the sysfs root read */
    int verbs;           /* libibverbs was loaded */
    size_t nports;
    size_t cap;          /* room in ports */
    struct cp_port *ports;
};

/* This node's name: $COLLPROF_NODE, $SLURMD_NODENAME, else the host name
 * up to the first dot.  Into buf (len bytes). */
void cp_ports_node_name(char *buf, size_t len);

/* Take a snapshot of node `node` (its name, for the file and for %n in
 * $COLLPROF_SYSFS_ROOT) labelled `when`.  root NULL: the environment's or
 * /sys.  Fills snap (the caller frees it with cp_ports_clear); returns 0,
 * or -1 with err filled when memory ran out or the root is unusable (a
 * missing class/infiniband is not an error). */
int cp_ports_take(struct cp_ports_snapshot *snap, const char *node,
                  const char *when, const char *root, struct cp_error *err);

/* Free what snap holds; it is empty again. */
void cp_ports_clear(struct cp_ports_snapshot *snap);

/* The snapshot as JSON (new reference; NULL when memory ran out). */
json_t *cp_ports_to_json(const struct cp_ports_snapshot *snap);

/* Parse a snapshot from JSON (as cp_ports_to_json writes it); more than
 * CP_PORTS_MAX_PORTS ports is an error. */
int cp_ports_from_json(const json_t *j, struct cp_ports_snapshot *snap,
                       struct cp_error *err);

/* DIR/ports-NODE-WHEN.json, written to a temporary name and renamed (mode
 * 0644).  Returns 0 or -1 with err. */
int cp_ports_write(const struct cp_ports_snapshot *snap, const char *dir,
                   struct cp_error *err);

/* Take and write in one call (the plugin's and collprof record's):
 * node NULL = cp_ports_node_name.  0 or -1 with err. */
int cp_ports_snapshot_dir(const char *dir, const char *node, const char *when,
                          struct cp_error *err);

/* Read one snapshot file (CP_PORTS_MAX_BYTES at most: a larger one is
 * refused by its size, unread).  0 or -1 with err (names the file) and
 * errno set (ENOENT: no such file; EINVAL: not a snapshot). */
int cp_ports_read(const char *path, struct cp_ports_snapshot *snap,
                  struct cp_error *err);

/* The counters that count errors (a rise during a step is a finding). */
int cp_ports_error_counter(const char *name);

#endif
