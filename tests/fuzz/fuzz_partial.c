/* fuzz_partial.c - libFuzzer target: any bytes as a node partial
 * (docs/partial-format.md), listed and every log it holds checked and read
 * by both readers (cp_logread, cp_scan).  The file's size, the sections' and the
 * index's checksums are set right before it is written, so that the
 * fuzzer reaches the decoding instead of stopping at a checksum. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_logread.h"
#include "cp_partial.h"
#include "cp_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void put64(uint8_t *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i + 8 <= n; i += 8)
        h = (h ^ get64(p + i)) * 0x100000001b3ull;
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The sizes and checksums of the partial in d right, where its counts
 * let them be found. */
static void fix_sums(uint8_t *d, size_t size)
{
    uint32_t nlogs, i;

    if (size < 128)
        return;
    put64(d + 32, size);
    nlogs = (uint32_t)d[20] | (uint32_t)d[21] << 8 | (uint32_t)d[22] << 16 |
            (uint32_t)d[23] << 24;
    if (nlogs == 0 || nlogs > (size - 128) / 192)
        return;
    for (i = 0; i < nlogs; i++) {
        uint8_t *e = d + 128 + (size_t)i * 192;
        uint64_t off = get64(e + 128), len = get64(e + 136);
        if (off <= size && len <= size - off)
            put64(e + 152, fnv(d + off, (size_t)len));
    }
    put64(d + 24, fnv(d + 128, (size_t)nlogs * 192));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[] = "/tmp/cp-fuzz-partial-XXXXXX", *made;
    char path[64];
    struct cp_partial_set *set;
    struct cp_partial_listed *logs = NULL;
    struct cp_error err, *notes = NULL;
    size_t nnotes = 0;
    uint8_t *copy;
    FILE *f;
    int n, i;

    if (!made && !(made = mkdtemp(dir)))
        return 0;
    copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    fix_sums(copy, size);
    snprintf(path, sizeof path, "%s/n9.cppart", dir);
    f = fopen(path, "wb");
    if (f) {
        fwrite(copy, 1, size, f);
        fclose(f);
    }
    free(copy);
    set = cp_partial_set_create();
    n = set ? cp_partial_list(set, dir, &logs, &notes, &nnotes, &err) : -1;
    for (i = 0; i < n; i++) {
        struct cp_logfile_known k;
        struct cp_logfile *lf;
        struct cp_scan *sc;
        union cp_rec rec;
        if ((logs[i].held ? cp_logfile_check_held(logs[i].path, logs[i].held,
                                                  &k, &err)
                          : cp_logfile_check(logs[i].path, 0, &k, &err)) < 0)
            continue;
        lf = cp_logfile_reopen(logs[i].path, &k, &err);
        if (lf) {
            while (cp_logfile_next(lf, &rec, NULL) == 1)
                ;
            (void)cp_logfile_problem(lf);
            cp_logfile_close(lf);
        }
        sc = cp_scan_reopen_sized(logs[i].path, &k, CP_SCAN_BUFFER, &err);
        if (sc) {
            while (cp_scan_next(sc))
                ;
            (void)cp_scan_problem(sc);
            cp_scan_close(sc);
        }
    }
    cp_partial_listed_free(logs, n > 0 ? (size_t)n : 0);
    free(notes);
    cp_partial_set_destroy(set);
    unlink(path);
    return 0;
}
