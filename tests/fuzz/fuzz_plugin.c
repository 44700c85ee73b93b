/* fuzz_plugin.c - libFuzzer target: the SPANK plugin's --collprof LIST
 * parser and its plugstack.conf argument parser (one argument a line). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_args.h"
#include "cp_error.h"
#include "cp_path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *argv[64], *p;
    struct cp_error err;
    struct cp_request req;
    struct cp_site site;
    int argc = 0;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cp_request_init(&req);
    if (cp_request_parse(&req, text, &err) == 0)
        (void)cp_path_has_dotdot(req.dir);
    for (p = text; argc < 64 && p && *p; argc++) {
        argv[argc] = p;
        p = strchr(p, '\n');
        if (p)
            *p++ = '\0';
    }
    cp_site_defaults(&site, "/usr/lib", "/usr/bin");
    (void)cp_site_parse(&site, argc, argv, &err);
    free(text);
    return 0;
}
