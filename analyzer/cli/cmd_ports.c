/* cmd_ports.c - collprof ports: snapshot this node's RDMA ports. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cp_cmds.h"
#include "cp_ports.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof ports [-o DIR] [--when WORD] [--node NAME] "
            "[--sysfs ROOT]\n"
            "\n"
            "Snapshots this node's RDMA devices and ports (state, link layer,\n"
            "rate, error counters) from sysfs and libibverbs.  With -o, writes\n"
            "DIR/ports-NODE-WHEN.json, as the SPANK plugin and collprof record\n"
            "do at a step's start and end (collprof analyze reads them);\n"
            "without, prints the snapshot as JSON.  A node without RDMA\n"
            "devices gives an empty snapshot.\n"
            "\n"
            "  -o, --output DIR  where the snapshot goes\n"
            "  --when WORD       start, end, ... (default now)\n"
            "  --node NAME       the node's name (default $COLLPROF_NODE,\n"
            "                    $SLURMD_NODENAME, the host name)\n"
            "  --sysfs ROOT      read ROOT/class/infiniband (default\n"
            "                    $COLLPROF_SYSFS_ROOT, where %%n is the node\n"
            "                    name, else /sys)\n");
}

int cp_cmd_ports(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"when", required_argument, 0, 'w'},
                                         {"node", required_argument, 0, 'n'},
                                         {"sysfs", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *dir = NULL, *when = "now", *node = NULL, *root = NULL;
    char name[64];
    struct cp_ports_snapshot snap;
    struct cp_error err;
    int c, rc = 1;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = optarg; break;
        case 'w': when = optarg; break;
        case 'n': node = optarg; break;
        case 's': root = optarg; break;
        case 'h': usage(stdout); return 0;
        default: cp_cli_bad_option("ports", argv, c); return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    if (!node) {
        cp_ports_node_name(name, sizeof name);
        node = name;
    }
    if (cp_ports_take(&snap, node, when, root, &err) < 0) {
        fprintf(stderr, "collprof ports: %s\n", err.text);
        return 1;
    }
    if (dir) {
        if (cp_ports_write(&snap, dir, &err) < 0)
            fprintf(stderr, "collprof ports: %s\n", err.text);
        else
            rc = 0;
    } else {
        json_t *j = cp_ports_to_json(&snap);
        if (!j || json_dumpf(j, stdout, JSON_INDENT(1)) < 0)
            fprintf(stderr, "collprof ports: cannot write the snapshot\n");
        else
            rc = 0;
        putchar('\n');
        json_decref(j);
    }
    cp_ports_clear(&snap);
    return rc;
}
