/* fuzz_report.c - libFuzzer target: report.json as `collprof report` reads
 * it, rendered to HTML (every key is checked before anything is written). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "cp_html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    json_error_t jerr;
    struct cp_error err;
    json_t *report;

    if (!sink)
        sink = fopen("/dev/null", "w");
    report = json_loadb((const char *)data, size, 0, &jerr);
    if (!report)
        return 0;
    (void)cp_html_write_json(report, sink, &err);
    json_decref(report);
    return 0;
}
