/* fuzz_profile.c - libFuzzer target: the site profile parser and the unit
 * parsers under it. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_profile.h"
#include "cp_units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    struct cp_profile profile;
    struct cp_error err;
    double v;
    uint64_t u;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    (void)cp_profile_parse_string(text, "fuzz.profile", &profile, &err);
    (void)cp_units_parse_size(text, &v, &err);
    (void)cp_units_parse_size_u64(text, &u, &err);
    (void)cp_units_parse_time(text, &v, &err);
    (void)cp_units_parse_bandwidth(text, &v, &err);
    free(text);
    return 0;
}
