/* cmd_report.c - collprof report: the page of a saved document: report.json
 * (collprof analyze), bench.json (collprof bench) or probe.json (collprof
 * probe), told apart by their `schema` key. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cp_cmds.h"
#include "cp_html.h"
#include "cp_html_bench.h"
#include "cp_jsoncheck.h"
#include "cp_path.h"

#define EXIT_UNUSABLE 1
#define EXIT_USAGE 2

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof report REPORT.json [-o OUT.html]\n"
            "\n"
            "Renders a saved collprof document as one self-contained HTML page,\n"
            "the kind told by its schema key:\n"
            "  collprof.report/1  the report.json of collprof analyze: verdict\n"
            "                     and findings, a job summary, plots, tables\n"
            "                     (the page collprof analyze writes as\n"
            "                     OUT/report.html)\n"
            "  collprof.bench/1   the bench.json of collprof bench: time and\n"
            "                     busbw against size per collective, the fit\n"
            "                     (the page of collprof bench --report)\n"
            "  collprof.probe/1   the probe.json of collprof probe: its\n"
            "                     findings, the node-pair heatmap, the pairs\n"
            "The page needs no network and no JavaScript.\n"
            "\n"
            "  -o, --output FILE   the page (default: the input with .json\n"
            "                      replaced by .html; '-' for standard output)\n"
            "  -h, --help          this text\n"
            "\n"
            "Exit status: 0 written; 1 the input cannot be read, is not JSON\n"
            "or not one of those documents (the message names the key), or\n"
            "the page cannot be written; 2 bad usage.\n");
}

/* REPORT.json -> REPORT.html; anything else gets .html appended. */
static void default_output(const char *input, char *buf, size_t size)
{
    size_t n = strlen(input);

    if (n > 5 && strcmp(input + n - 5, ".json") == 0)
        snprintf(buf, size, "%.*s.html", (int)(n - 5), input);
    else
        snprintf(buf, size, "%s.html", input);
}

static json_t *load(const char *path)
{
    json_error_t jerr;
    struct cp_error err;
    json_t *report;
    FILE *in = cp_path_fopen_input(path, CP_PATH_FOLLOW, &err);

    if (!in) {
        if (errno == ELOOP || errno == EINVAL) /* a link, a fifo */
            fprintf(stderr, "collprof report: %s\n", err.text);
        else
            fprintf(stderr, "collprof report: cannot read %s: %s\n", path,
                    strerror(errno));
        return NULL;
    }
    report = json_loadf(in, JSON_DECODE_ANY, &jerr);
    fclose(in);
    if (!report)
        fprintf(stderr,
                "collprof report: %s is not JSON: line %d, column %d: %s\n",
                path, jerr.line, jerr.column, jerr.text);
    return report;
}

typedef int (*page_writer)(json_t *doc, FILE *out, struct cp_error *err);

/* The page of doc by render through a temporary file, so that a reader
 * never sees half of it; "-" writes to standard output. */
static int write_page(page_writer render, json_t *report, const char *input,
                      const char *output, const char *cmd)
{
    struct cp_path_out out;
    struct cp_error err;

    if (strcmp(output, "-") == 0) {
        if (render(report, stdout, &err) < 0) {
            fprintf(stderr, "collprof %s: %s: %s\n", cmd, input, err.text);
            return -1;
        }
        return 0;
    }
    if (cp_path_create(&out, output, CP_PATH_MODE, &err) < 0) {
        fprintf(stderr, "collprof %s: %s\n", cmd, err.text);
        return -1;
    }
    if (render(report, out.f, &err) < 0) {
        fprintf(stderr, "collprof %s: %s: %s\n", cmd,
                ferror(out.f) ? output : input, err.text);
        cp_path_discard(&out);
        return -1;
    }
    if (cp_path_install(&out, &err) < 0) {
        fprintf(stderr, "collprof %s: %s\n", cmd, err.text);
        return -1;
    }
    return 0;
}

/* Also used by collprof analyze (cmd "analyze") for OUT/report.html. */
int cp_report_html(json_t *report, const char *input, const char *output,
                   const char *cmd)
{
    return write_page(cp_html_write_json, report, input, output, cmd);
}

/* The writer for doc's kind, by the prefix of its schema; NULL after
 * saying why (the file and the key looked at). */
static page_writer writer_of(json_t *doc, const char *input)
{
    static const struct {
        const char *prefix;
        page_writer render;
    } kinds[] = {
        {"collprof.report/", cp_html_write_json},
        {"collprof.bench/", cp_html_bench_write},
        {"collprof.probe/", cp_html_probe_write},
    };
    struct cp_jsoncheck check;
    struct cp_error err;
    const char *schema;
    size_t i;

    /* not an object, or no schema: report.html's checks name the problem
     * as they always have */
    if (!json_is_object(doc) || !json_object_get(doc, "schema"))
        return cp_html_write_json;
    cp_jsoncheck_init(&check, &err, input, 0);
    schema = cp_jsoncheck_str(&check, doc, "", "schema", 1);
    if (check.bad) {
        fprintf(stderr, "collprof report: %s\n", err.text);
        return NULL;
    }
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(schema, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
            return kinds[i].render;
    fprintf(stderr,
            "collprof report: %s: key 'schema' is '%.64s', not a collprof "
            "document this command renders (collprof.report/1, "
            "collprof.bench/1 or collprof.probe/1)\n",
            input, schema);
    return NULL;
}

int cp_cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *output = NULL, *input;
    char deflt[4200];
    json_t *report = NULL;
    page_writer render;
    int c, rc = EXIT_USAGE;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            cp_cli_bad_option("report", argv, c);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "collprof report: no report given (try collprof "
                        "report --help)\n");
        return EXIT_USAGE;
    }
    if (argc - optind > 1) {
        fprintf(stderr, "collprof report: one report at a time, got %d "
                        "(try collprof report --help)\n",
                argc - optind);
        return EXIT_USAGE;
    }
    input = argv[optind];
    if (!output) {
        default_output(input, deflt, sizeof deflt);
        output = deflt;
    }
    if (output[0] == '\0') {
        fprintf(stderr, "collprof report: -o: empty file name\n");
        return EXIT_USAGE;
    }
    report = load(input);
    if (!report) {
        rc = EXIT_UNUSABLE;
        goto out;
    }
    render = writer_of(report, input);
    if (!render) {
        rc = EXIT_UNUSABLE;
        goto out;
    }
    rc = write_page(render, report, input, output, "report") < 0
             ? EXIT_UNUSABLE
             : 0;
out:
    json_decref(report);
    return rc;
}
