/* fuzz_ports.c - libFuzzer target: any bytes as a port snapshot file
 * (ports-NODE-WHEN.json), read as the analysis reads it and written back. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cp_ports.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[] = "/tmp/cp-fuzz-ports-XXXXXX";
    static int fd = -1;
    struct cp_ports_snapshot snap;
    struct cp_error err;
    json_t *j;

    /* a file of its own, not a /proc/self/fd link: the reader follows none */
    if (fd < 0) {
        fd = mkstemp(path);
        if (fd < 0)
            return 0;
    }
    if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    if (cp_ports_read(path, &snap, &err) < 0)
        return 0;
    if (snap.nports > CP_PORTS_MAX_PORTS)
        abort();
    j = cp_ports_to_json(&snap);
    json_decref(j);
    cp_ports_clear(&snap);
    return 0;
}
