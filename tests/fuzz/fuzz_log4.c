/* fuzz_log4.c - libFuzzer target: the version-4 decoder (cp_log4src) on
 * any ops.  The input is
 *   [0..3]  the block's slot count (little-endian)
 *   [4]     bit 0: the log of the other byte order; bit 1: stream_end 0
 *           (the block one the writer had not finished); bit 2: a second
 *           block, the same payload again; bit 3: a log with sync
 *           points (CP_HDR_SYNC, every CP_LOG4_SYNC_MIN bytes): zeros
 *           after the blocks up to the first, a block of the same
 *           payload there (a sync op when it starts with 0xc7), and a
 *           source that seeks (cp_log4src_seek) to a time of [5..6];
 *           bit 4: a log with a capture policy (CP_HDR_POLICY: folded
 *           runs, op 0xc8, are allowed; aggregates, kind 12, come raw or
 *           templated: two bytes of fields present)
 *   [5..6]  dict_slots (little-endian, taken modulo 4097)
 *   [7..8]  n: the payload's length (modulo the most a block holds)
 *   then n bytes of payload, and what is left fills the ring (its index,
 *   then its cells) from its start.
 * The header and the block headers are made right (magic, first slot,
 * sum), so that the fuzzer reaches the ops and the ring instead of
 * stopping at a sum; the file is then read by cp_logfile, cp_scan and a
 * bare cp_log4src that reports the parts it meets. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cp_log4src.h"
#include "cp_logread.h"
#include "cp_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RING 64u
#define RING_AT CP_LOG_HEADER_SIZE
#define RING_BYTES (RING * (8u + CP_LOG_RECORD_SIZE))
#define STREAM_AT (RING_AT + RING_BYTES)
#define PAYLOAD_MAX (CP_LOG4_BLOCK_MAX - sizeof(struct cp_log4_block))

static unsigned char file[STREAM_AT + CP_LOG4_SYNC_MIN + CP_LOG4_BLOCK_MAX];

static uint32_t o32(int sw, uint32_t v) { return sw ? __builtin_bswap32(v) : v; }
static uint64_t o64(int sw, uint64_t v) { return sw ? __builtin_bswap64(v) : v; }

static void parts(void *arg, const struct cp_log4_part *p)
{
    *(uint64_t *)arg += p->kind == CP_LOG4_PART_BLOCK ? p->slots : p->slot;
}

static size_t put_block(unsigned char *at, int sw, const uint8_t *payload,
                        size_t n, uint64_t first, uint32_t slots)
{
    struct cp_log4_block b;

    b.magic = o32(sw, CP_LOG4_BLOCK_MAGIC);
    b.bytes = o32(sw, (uint32_t)n);
    b.first_slot = o64(sw, first);
    b.slots = o32(sw, slots);
    b.sum = o32(sw, cp_log4_sum(payload, n));
    memcpy(at, &b, sizeof b);
    memcpy(at + sizeof b, payload, n);
    return sizeof b + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    struct cp_log_header h;
    struct cp_error err;
    struct cp_logfile *lf;
    struct cp_log4src *src;
    struct cp_scan *sc;
    union cp_rec rec;
    unsigned char buf[1024];
    char path[64];
    uint32_t slots;
    size_t n, len, rest;
    uint64_t seen = 0;
    int sw;

    if (size < 9)
        return 0;
    slots = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
            (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
    sw = data[4] & 1;
    n = ((size_t)data[7] | (size_t)data[8] << 8) % (PAYLOAD_MAX + 1);
    if (n > size - 9)
        n = size - 9;
    memset(file, 0, STREAM_AT);
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CP_LOG_MAGIC, 8);
    h.endian = CP_LOG_ENDIAN;
    h.version = 4;
    h.header_size = CP_LOG_HEADER_SIZE;
    h.record_size = CP_LOG_RECORD_SIZE;
    h.start_realtime_ns = UINT64_C(1700000000000000000);
    h.ring_slots = RING;
    h.dict_slots = ((uint32_t)data[5] | (uint32_t)data[6] << 8) %
                   (CP_LOG4_DICT_MAX + 1);
    h.ring_offset = RING_AT;
    h.stream_offset = STREAM_AT;
    rest = size - 9 - n;
    if (rest > RING_BYTES)
        rest = RING_BYTES;
    memcpy(file + RING_AT, data + 9 + n, rest);
    len = STREAM_AT + put_block(file + STREAM_AT, sw, data + 9, n, 0, slots);
    if (data[4] & 4)
        len += put_block(file + len, sw, data + 9, n, slots, slots);
    if (data[4] & 8) {
        uint64_t first = data[4] & 4 ? 2 * (uint64_t)slots : slots;
        memset(file + len, 0, STREAM_AT + CP_LOG4_SYNC_MIN - len);
        len = STREAM_AT + CP_LOG4_SYNC_MIN;
        len += put_block(file + len, sw, data + 9, n, first, slots);
        h.flags |= CP_HDR_SYNC;
        h.sync_bytes = CP_LOG4_SYNC_MIN;
    }
    if (data[4] & 16) {
        h.flags |= CP_HDR_POLICY;
        h.policy_first = CP_POLICY_FIRST_DEFAULT;
        h.policy_window = CP_POLICY_WINDOW_DEFAULT;
        h.policy_every = CP_POLICY_EVERY_DEFAULT;
        h.policy_interval_ms = CP_POLICY_INTERVAL_MS_DEFAULT;
    }
    h.stream_end = data[4] & 2 ? 0 : len - STREAM_AT;
    if (sw)
        cp_log_header_swap(&h);
    memcpy(file, &h, sizeof h);
    if (fd < 0)
        fd = memfd_create("cplog4", 0);
    if (fd < 0 || ftruncate(fd, 0) < 0 ||
        pwrite(fd, file, len, 0) != (ssize_t)len)
        return 0;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    lf = cp_logfile_open(path, &err);
    if (lf) {
        while (cp_logfile_next(lf, &rec, NULL) == 1)
            ;
        (void)cp_logfile_problem(lf);
        cp_logfile_close(lf);
    }
    sc = cp_scan_open_sized(path, CP_SCAN_BUFFER_MIN, &err);
    if (sc) {
        while (cp_scan_next(sc))
            ;
        (void)cp_scan_problem(sc);
        cp_scan_close(sc);
    }
    /* the bare source, reads of odd lengths, its parts reported */
    if (sw)
        cp_log_header_swap(&h);
    src = cp_log4src_open(path, fd, 0, 0, 0, &h, sw, &err);
    if (src) {
        cp_log4src_observe(src, parts, &seen);
        for (;;) {
            (void)cp_log4src_skip_empty(src);
            if (cp_log4src_read(src, buf, 100 + (seen & 511)) <= 0)
                break;
        }
        (void)cp_log4src_problem(src);
        cp_log4src_close(src);
    }
    /* a window's read: from the sync point before a time */
    src = cp_log4src_open(path, fd, 0, 0, 0, &h, sw, &err);
    if (src) {
        uint64_t t = h.start_realtime_ns +
                     ((uint64_t)data[5] << 8 | data[6]) * UINT64_C(1000000);
        if (cp_log4src_seek(src, t, &err) >= 0)
            while (cp_log4src_read(src, buf, sizeof buf) > 0)
                ;
        cp_log4src_close(src);
    }
    return 0;
}
