/* fuzz_topo.c - libFuzzer target: the CPU NCCL's topology file parser. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[512];
    struct sim_topo topo;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (sim_topo_parse_string(text, "fuzz.topo", &topo, err, sizeof err) == 0)
        (void)sim_topo_pair(&topo, "n1", "n2");
    free(text);
    return 0;
}
