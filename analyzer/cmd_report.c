/* cmd_report.c - collprof report: report.html from a saved report.json. */
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
#include "cp_path.h"

#define EXIT_UNUSABLE 1
#define EXIT_USAGE 2

static void usage(FILE *out)
{
    fprintf(out,
            "usage: collprof report REPORT.json [-o OUT.html]\n"
            "\n"
            "Renders a saved analysis (the report.json of collprof analyze,\n"
            "schema collprof.report/1) as one self-contained HTML page: the\n"
            "verdict and findings, a job summary, plots and tables.  The page\n"
            "needs no network and no JavaScript; collprof analyze writes the\n"
            "same page as OUT/report.html.\n"
            "\n"
            "  -o, --output FILE   the page (default: REPORT with .json replaced\n"
            "                      by .html; '-' for standard output)\n"
            "  -h, --help          this text\n"
            "\n"
            "Exit status: 0 written; 1 the report cannot be read, is not JSON\n"
            "or not a collprof report (the message names the key), or the page\n"
            "cannot be written; 2 bad usage.\n");
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
    json_t *report;
    FILE *in = fopen(path, "r");

    if (!in) {
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

/* The page through a temporary file, so that a reader never sees half of
 * it; "-" writes to standard output.  Also used by collprof analyze (cmd
 * "analyze") for OUT/report.html. */
int cp_report_html(json_t *report, const char *input, const char *output,
                   const char *cmd)
{
    struct cp_error err;
    char tmp[4200];
    FILE *out = NULL;
    int rc = -1;

    tmp[0] = '\0';
    if (strcmp(output, "-") == 0) {
        if (cp_html_write_json(report, stdout, &err) < 0) {
            fprintf(stderr, "collprof %s: %s: %s\n", cmd, input, err.text);
            return -1;
        }
        return 0;
    }
    if (strlen(output) > 4096) {
        fprintf(stderr, "collprof %s: %s: file name too long\n", cmd, output);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%.4096s.tmp.%d", output, (int)getpid());
    out = fopen(tmp, "w");
    if (!out) {
        fprintf(stderr, "collprof %s: cannot write %s: %s\n", cmd, output,
                strerror(errno));
        tmp[0] = '\0';
        goto out;
    }
    if (cp_html_write_json(report, out, &err) < 0) {
        fprintf(stderr, "collprof %s: %s: %s\n", cmd,
                ferror(out) ? tmp : input, err.text);
        goto out;
    }
    /* closes out, renames tmp into place, removes it on failure */
    rc = cp_path_install(out, tmp, output, &err);
    out = NULL;
    tmp[0] = '\0';
    if (rc < 0)
        fprintf(stderr, "collprof %s: %s\n", cmd, err.text);
out:
    if (out)
        fclose(out);
    if (tmp[0])
        unlink(tmp);
    return rc;
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
    int c, rc = EXIT_USAGE;

    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
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
    rc = cp_report_html(report, input, output, "report") < 0 ? EXIT_UNUSABLE
                                                             : 0;
out:
    json_decref(report);
    return rc;
}
