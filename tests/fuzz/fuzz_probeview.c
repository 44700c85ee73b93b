/* fuzz_probeview.c - libFuzzer target: any bytes as a probe.json read
 * back for the analysis (cp_probeview_read). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cp_probeview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[] = "/tmp/cp-fuzz-probe-XXXXXX";
    static int fd = -1;
    struct cp_probeview pv;
    struct cp_error err;
    size_t i;

    if (fd < 0) {
        fd = mkstemp(path);
        if (fd < 0)
            return 0;
    }
    if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    if (cp_probeview_read(path, &pv, &err) != 0)
        return 0;
    /* what the analysis relies on: pairs of two different listed nodes */
    if (pv.nnodes > CP_PROBE_MAX_NODES)
        abort();
    for (i = 0; i < pv.npairs; i++)
        if (pv.pairs[i].a >= pv.nnodes || pv.pairs[i].b >= pv.nnodes ||
            pv.pairs[i].a == pv.pairs[i].b)
            abort();
    cp_probeview_clear(&pv);
    return 0;
}
