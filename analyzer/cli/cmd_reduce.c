/* cmd_reduce.c - collprof reduce: one node's logs into its partial. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cp_cmds.h"
#include "cp_partial.h"
#include "cp_path.h"
#include "cp_ports.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof reduce [--node NAME] [-o FILE] [-q] DIR\n"
            "\n"
            "Reduces the rank logs in DIR that this node wrote (their headers\n"
            "name the node) into one node partial, DIR/NODE.cppart: each log's\n"
            "header and records, never-written slots dropped and each record\n"
            "stored as its difference from the one before (docs/partial-format.md).\n"
            "Run it on every node at once (srun -N K --ntasks-per-node=1\n"
            "collprof reduce DIR; the SPANK plugin does it at step end), then\n"
            "collprof analyze DIR reads the partials instead of the logs and\n"
            "writes the same report.  A partial that is missing or damaged is\n"
            "named there, and its node's logs are read instead.\n"
            "\n"
            "  --node NAME       the node whose logs to reduce (default\n"
            "                    $COLLPROF_NODE, $SLURMD_NODENAME, the host\n"
            "                    name up to the first dot, as the shim names it)\n"
            "  -o, --output FILE the partial (default DIR/NODE.cppart)\n"
            "  -q, --quiet       no summary line\n"
            "      --follow-symlinks  read a log that is a symbolic link to a\n"
            "                    file of the invoking user\n"
            "\n"
            "Exit status: 0 written, 1 no log of the node or an I/O error,\n"
            "2 usage.\n");
}

int cp_cmd_reduce(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},
        {"node", required_argument, 0, 'n'},
        {"quiet", no_argument, 0, 'q'},
        {"follow-symlinks", no_argument, 0, 'L'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *dir, *out = NULL, *node = NULL;
    char name[64], file[128], path[4300];
    struct cp_partial_stats st;
    struct cp_error err;
    int c, quiet = 0;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'n': node = optarg; break;
        case 'q': quiet = 1; break;
        case 'L': cp_path_set_log_links(CP_PATH_FOLLOW); break;
        case 'h': usage(stdout); return 0;
        default: cp_cli_bad_option("reduce", argv, c); return 2;
        }
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    dir = argv[optind];
    if (cp_cli_anchor("reduce", dir) < 0)
        return 1;
    if (!node) {
        cp_ports_node_name(name, sizeof name);
        node = name;
    }
    if (!*node) {
        fprintf(stderr, "collprof reduce: --node: empty node name\n");
        return 2;
    }
    if (!out) {
        if (cp_partial_file_name(node, file, sizeof file) < 0 ||
            snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
            fprintf(stderr, "collprof reduce: %s: name too long\n", dir);
            return 2;
        }
        out = path;
    }
    if (cp_partial_reduce(dir, node, out, &st, &err) < 0) {
        cp_cli_say(stderr, "collprof reduce: %s", err.text);
        return 1;
    }
    if (st.damaged)
        cp_cli_say(stderr, "collprof reduce: %u damaged log%s left out of the "
                   "partial (analyze reads %s raw and names the damage); the "
                   "first: %s", st.damaged, st.damaged == 1 ? "" : "s",
                   st.damaged == 1 ? "it" : "them", st.damage.text);
    if (st.logs == 0 && st.damaged) {
        if (!quiet)
            printf("collprof reduce: no partial written: every log of node "
                   "%s is damaged\n", node);
        return 0;
    }
    if (!quiet)
        printf("collprof reduce: %s: %u log%s of node %s, %llu bytes -> "
               "%llu bytes (%.1f%%)%s\n",
               out, st.logs, st.logs == 1 ? "" : "s", node,
               (unsigned long long)st.raw_bytes, (unsigned long long)st.bytes,
               st.raw_bytes ? 100.0 * (double)st.bytes / (double)st.raw_bytes
                            : 0.0,
               st.unreadable ? "; some logs unreadable, left to the merge" : "");
    return 0;
}
