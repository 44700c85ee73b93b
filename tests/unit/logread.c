/* logread.c - the log reader against good, foreign, damaged and
 * other-byte-order files; every error names the file and the offset. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cp_logread.h"
#include "cp_scan.h"
#include "tap.h"

static char dir[] = "/tmp/cp-logread-XXXXXX";

static void header(struct cp_log_header *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CP_LOG_MAGIC, 8);
    h->endian = CP_LOG_ENDIAN;
    h->version = CP_LOG_VERSION_SLOTS;
    h->header_size = CP_LOG_HEADER_SIZE;
    h->record_size = CP_LOG_RECORD_SIZE;
    h->chunk_records = 16;
    h->global_rank = 2;
    snprintf(h->node, sizeof h->node, "n1");
}

static void call_rec(union cp_rec *r, uint32_t seq)
{
    memset(r, 0, sizeof *r);
    r->call.kind = CP_REC_CALL;
    r->call.op = CP_OP_AllGather;
    r->call.seq = seq;
    r->call.count = 1000 + seq;
    r->call.comm_id = UINT64_C(0x1122334455667788);
    r->call.start_ns = 10;
    r->call.end_ns = 20 + seq;
    r->call.flags = 0x0102;
}

/* Write a file of: header (hbytes of it), then the records, then tail bytes. */
static char *write_file(const char *name, const struct cp_log_header *h,
                        size_t hbytes, const union cp_rec *recs, int n,
                        size_t tail)
{
    static char path[4][256];
    static int k;
    char *p = path[k++ & 3];
    unsigned char page[CP_LOG_HEADER_SIZE];
    FILE *f;

    snprintf(p, 256, "%s/%s", dir, name);
    f = fopen(p, "wb");
    memset(page, 0, sizeof page);
    memcpy(page, h, sizeof *h);
    fwrite(page, 1, hbytes, f);
    fwrite(recs, sizeof *recs, (size_t)n, f);
    while (tail--)
        fputc(0x01, f);
    fclose(f);
    return p;
}

static void swap_all(struct cp_log_header *h, union cp_rec *recs, int n)
{
    int i;
    h->endian = __builtin_bswap32(h->endian);
    h->version = __builtin_bswap32(h->version);
    h->header_size = __builtin_bswap32(h->header_size);
    h->record_size = __builtin_bswap32(h->record_size);
    h->chunk_records = __builtin_bswap32(h->chunk_records);
    h->global_rank = (int32_t)__builtin_bswap32((uint32_t)h->global_rank);
    for (i = 0; i < n; i++) {
        recs[i].call.seq = __builtin_bswap32(recs[i].call.seq);
        recs[i].call.count = __builtin_bswap64(recs[i].call.count);
        recs[i].call.comm_id = __builtin_bswap64(recs[i].call.comm_id);
        recs[i].call.start_ns = __builtin_bswap64(recs[i].call.start_ns);
        recs[i].call.end_ns = __builtin_bswap64(recs[i].call.end_ns);
        recs[i].call.flags = __builtin_bswap16(recs[i].call.flags);
    }
}

static int read_all(const char *path, union cp_rec *out, int max,
                    struct cp_logfile_stats *st, const struct cp_error **prob,
                    struct cp_error *perr)
{
    struct cp_error err;
    struct cp_logfile *lf = cp_logfile_open(path, &err);
    int n = 0;
    if (!lf)
        return -1;
    while (n < max && cp_logfile_next(lf, &out[n], NULL) == 1)
        n++;
    cp_logfile_stats(lf, st);
    *prob = cp_logfile_problem(lf);
    if (*prob) {
        *perr = **prob;
        *prob = perr;
    }
    cp_logfile_close(lf);
    return n;
}

/* Records a reader started from k gives: -1 when it cannot start (err). */
static int reread(const char *path, const struct cp_logfile_known *k,
                  union cp_rec *out, int max, struct cp_error *err)
{
    struct cp_logfile *lf = cp_logfile_reopen(path, k, err);
    int n = 0;

    if (!lf)
        return -1;
    while (n < max && cp_logfile_next(lf, &out[n], NULL) == 1)
        n++;
    cp_logfile_close(lf);
    return n;
}

static int rescan(const char *path, const struct cp_logfile_known *k,
                  struct cp_error *err)
{
    struct cp_scan *s = cp_scan_reopen_sized(path, k, 4096, err);
    int n = 0;

    if (!s)
        return -1;
    while (cp_scan_next(s))
        n++;
    cp_scan_close(s);
    return n;
}

/* One check, several readers: the kept descriptor is shared and always
 * reads the file checked; without it the name is opened again and a file
 * put in its place (another file, a link) is refused, naming the file. */
static void checked_once(const struct cp_log_header *h, const union cp_rec *recs)
{
    struct cp_logfile_known k;
    struct cp_error err;
    union cp_rec out[16];
    char other[300], link[300];
    char *p = write_file("checked.cplog", h, CP_LOG_HEADER_SIZE, recs, 7, 0);
    int fd;

    ok(cp_logfile_check(p, 1, &k, &err) == 0 && k.fd >= 0 && !k.partial &&
           k.hdr.global_rank == 2 &&
           k.size == CP_LOG_HEADER_SIZE + 7 * CP_LOG_RECORD_SIZE,
       "checked once: header, size and a kept descriptor");
    fd = k.fd;
    is_int(reread(p, &k, out, 16, &err), 6, "first pass on the kept descriptor");
    is_int(reread(p, &k, out, 16, &err), 6, "second pass: the same records");
    is_int(rescan(p, &k, &err), 6, "a scan shares it too");
    ok(fcntl(fd, F_GETFD) >= 0, "readers did not close the kept descriptor");
    /* another file renamed over the name */
    snprintf(other, sizeof other, "%s/other.cplog", dir);
    {
        FILE *f = fopen(other, "wb");
        unsigned char page[CP_LOG_HEADER_SIZE];
        memset(page, 0, sizeof page);
        memcpy(page, h, sizeof *h);
        fwrite(page, 1, sizeof page, f);
        fwrite(recs, sizeof *recs, 2, f);
        fclose(f);
    }
    ok(rename(other, p) == 0, "another file put in its place");
    is_int(reread(p, &k, out, 16, &err), 6,
           "the kept descriptor still reads the file checked");
    cp_logfile_known_release(&k);
    ok(k.fd == -1 && fcntl(fd, F_GETFD) < 0, "released: closed");
    ok(reread(p, &k, out, 16, &err) < 0 && strstr(err.text, p) &&
           strstr(err.text, "replaced"),
       "opened again by name: refused (%s)", err.text);
    ok(rescan(p, &k, &err) < 0 && strstr(err.text, "replaced"),
       "a scan refuses it too (%s)", err.text);
    /* a link to the checked file's name is not followed */
    p = write_file("checked2.cplog", h, CP_LOG_HEADER_SIZE, recs, 7, 0);
    ok(cp_logfile_check(p, 0, &k, &err) == 0 && k.fd == -1,
       "checked without keeping the descriptor");
    is_int(reread(p, &k, out, 16, &err), 6, "opened again by name: read");
    snprintf(link, sizeof link, "%s/target.cplog", dir);
    ok(rename(p, link) == 0 && symlink(link, p) == 0,
       "the name becomes a link to the same file");
    ok(reread(p, &k, out, 16, &err) < 0 && strstr(err.text, p),
       "a link is not followed (%s)", err.text);
    unlink(p);
    unlink(link);
}

/* Records of a scan in mem (at most max) and the seq of the first. */
static int scan_in(void *mem, int resume, const char *path,
                   const struct cp_logfile_known *k, uint32_t *first, int max)
{
    struct cp_error err;
    struct cp_scan *s = resume ? cp_scan_place_in(mem, path, k, 4096, 0,
                                                  CP_SCAN_RESUME, &err)
                               : cp_scan_reopen_in(mem, path, k, 4096, 0, &err);
    const union cp_rec *r;
    int n = 0;

    if (!s)
        return -1;
    while (n < max && (r = cp_scan_next(s)) != NULL)
        if (n++ == 0)
            *first = r->call.seq;
    cp_scan_close(s);
    return n;
}

/* A scan taken up again in the same memory uses the buffer its file left
 * there (the file is changed in place after the first scan, which read
 * only its first records: the second sees the first's bytes); another
 * file, or memory whose scan went past its first buffer, is read again. */
static void resumed(const struct cp_log_header *h, const union cp_rec *recs)
{
    struct cp_logfile_known k, k2;
    struct cp_error err;
    union cp_rec changed[7];
    void *mem = NULL;
    uint32_t first = 99;
    char *p = write_file("resume.cplog", h, CP_LOG_HEADER_SIZE, recs, 7, 0);
    char *q;
    int fd;

    ok(posix_memalign(&mem, 64, cp_scan_place_size(4096, 0)) == 0 &&
           cp_logfile_check(p, 1, &k, &err) == 0,
       "resume: memory and a checked log");
    is_int(scan_in(mem, 0, p, &k, &first, 3), 3, "resume: first records");
    /* the same file rewritten in place: seq 0 becomes 40 */
    memcpy(changed, recs, sizeof changed);
    changed[0].call.seq = 40;
    fd = open(p, O_WRONLY);
    ok(fd >= 0 && pwrite(fd, changed, sizeof changed[0], CP_LOG_HEADER_SIZE) ==
                      (ssize_t)sizeof changed[0],
       "resume: the first record rewritten in place");
    close(fd);
    first = 99;
    is_int(scan_in(mem, 1, p, &k, &first, 16), 6, "resume: same records");
    is_int((int)first, 0, "resume: the first buffer was not read again");
    first = 99;
    is_int(scan_in(mem, 1, p, &k, &first, 16), 6,
           "resume after a scan to the end: every record");
    is_int((int)first, 40, "resume after a scan to the end: read again");
    first = 99;
    is_int(scan_in(mem, 0, p, &k, &first, 16), 6, "reopen: read again");
    is_int((int)first, 40, "reopen: the file as it is now");
    /* another file in the same memory: read, not taken for the first */
    q = write_file("resume2.cplog", h, CP_LOG_HEADER_SIZE, recs, 5, 0);
    ok(cp_logfile_check(q, 1, &k2, &err) == 0, "resume: a second log");
    first = 99;
    is_int(scan_in(mem, 1, q, &k2, &first, 16), 5,
           "resume on another file: its own records");
    cp_logfile_known_release(&k);
    cp_logfile_known_release(&k2);
    free(mem);
}

static void expect_error(const char *path, const char *what, const char *name)
{
    struct cp_error err;
    struct cp_logfile *lf = cp_logfile_open(path, &err);
    ok(lf == NULL && strstr(err.text, path) && strstr(err.text, what),
       "%s: %s", name, lf ? "opened!" : err.text);
    cp_logfile_close(lf);
}

int main(void)
{
    struct cp_log_header h;
    union cp_rec recs[8], out[16];
    struct cp_logfile_stats st;
    const struct cp_error *prob;
    struct cp_error perr;
    char *p, **paths;
    int n, i;

    if (!mkdtemp(dir))
        return 1;
    header(&h);
    for (i = 0; i < 5; i++)
        call_rec(&recs[i], (uint32_t)i);
    memset(&recs[5], 0, sizeof recs[5]); /* a never-written slot */
    call_rec(&recs[6], 6);

    p = write_file("good.cplog", &h, CP_LOG_HEADER_SIZE, recs, 7, 0);
    n = read_all(p, out, 16, &st, &prob, &perr);
    is_int(n, 6, "good file: 6 records");
    is_int(st.empty, 1, "one empty slot skipped silently");
    ok(prob == NULL, "no problem reported");
    ok(out[5].call.seq == 6 && out[5].call.count == 1006 &&
           out[5].call.comm_id == UINT64_C(0x1122334455667788),
       "fields read back");

    recs[3].kind = 77;
    p = write_file("badkind.cplog", &h, CP_LOG_HEADER_SIZE, recs, 7, 0);
    n = read_all(p, out, 16, &st, &prob, &perr);
    is_int(n, 5, "unknown kind: skipped, the rest read");
    is_int(st.bad, 1, "counted as bad");
    ok(prob && strstr(prob->text, "offset 4288") && strstr(prob->text, p),
       "problem names file and offset: %s", prob ? prob->text : "none");
    recs[3].kind = CP_REC_CALL;

    p = write_file("partial.cplog", &h, CP_LOG_HEADER_SIZE, recs, 5, 17);
    n = read_all(p, out, 16, &st, &prob, &perr);
    is_int(n, 5, "partial trailing record: whole ones read");
    is_int(st.truncated, 17, "17 trailing bytes noted");
    ok(prob && strstr(prob->text, "partial record"), "and reported: %s",
       prob ? prob->text : "none");

    p = write_file("empty.cplog", &h, 0, recs, 0, 0);
    expect_error(p, "empty file", "empty file");
    {
        struct cp_log_header foreign = h;
        memcpy(foreign.magic, "NOTMINE!", 8);
        p = write_file("foreign.cplog", &foreign, CP_LOG_HEADER_SIZE, recs, 2, 0);
        expect_error(p, "offset 0: not a collprof log", "foreign file");
    }
    p = write_file("shorthdr.cplog", &h, 100, recs, 0, 0);
    expect_error(p, "header truncated", "truncated header");
    {
        struct cp_log_header newer = h;
        newer.version = CP_LOG_VERSION + 1;
        p = write_file("newer.cplog", &newer, CP_LOG_HEADER_SIZE, recs, 1, 0);
        expect_error(p, "offset 12: log format version", "newer version");
    }
    {
        struct cp_log_header odd = h;
        odd.record_size = 48;
        p = write_file("odd.cplog", &odd, CP_LOG_HEADER_SIZE, recs, 1, 0);
        expect_error(p, "bad sizes", "other record size");
    }
    {
        struct cp_log_header bo = h;
        bo.endian = 0x11223344;
        p = write_file("bom.cplog", &bo, CP_LOG_HEADER_SIZE, recs, 1, 0);
        expect_error(p, "byte-order", "unknown byte-order mark");
    }
    expect_error("/nonexistent/x.cplog", "cannot open", "missing file");

    /* The other byte order. */
    {
        struct cp_log_header sh = h;
        union cp_rec srec[3];
        for (i = 0; i < 3; i++)
            call_rec(&srec[i], (uint32_t)i + 40);
        swap_all(&sh, srec, 3);
        p = write_file("swapped.cplog", &sh, CP_LOG_HEADER_SIZE, srec, 3, 0);
        n = read_all(p, out, 16, &st, &prob, &perr);
        is_int(n, 3, "other byte order: all records");
        ok(n == 3 && out[2].call.seq == 42 && out[2].call.count == 1042 &&
               out[2].call.comm_id == UINT64_C(0x1122334455667788) &&
               out[2].call.flags == 0x0102 && out[2].call.end_ns == 62,
           "other byte order: fields swapped back");
    }

    checked_once(&h, recs);
    resumed(&h, recs);
    {
        /* the other byte order, checked once and read again */
        struct cp_logfile_known k;
        {
            struct cp_log_header sh = h;
            union cp_rec srec[3];
            for (i = 0; i < 3; i++)
                call_rec(&srec[i], (uint32_t)i + 40);
            swap_all(&sh, srec, 3);
            p = write_file("swapped.cplog", &sh, CP_LOG_HEADER_SIZE, srec, 3, 0);
        }
        ok(cp_logfile_check(p, 1, &k, &perr) == 0 && k.swapped &&
               k.hdr.global_rank == 2,
           "other byte order: checked, header in host order");
        n = reread(p, &k, out, 16, &perr);
        ok(n == 3 && out[2].call.seq == 42 && out[2].call.end_ns == 62,
           "other byte order: read again, fields swapped back");
        cp_logfile_known_release(&k);
    }

    {
        /* a link record (kind 11) from a machine of the other byte order:
         * every field swapped, twice the record itself */
        union cp_rec l, w;
        memset(&l, 0, sizeof l);
        l.link.kind = CP_REC_LINK;
        l.link.dir = CP_PROXY_SEND;
        l.link.channels = 4;
        l.link.peer = 0x01020304;
        l.link.comm_id = UINT64_C(0x1112131415161718);
        l.link.back = 0x21222324;
        l.link.steps = 0x31323334;
        l.link.bytes = UINT64_C(0x4142434445464748);
        l.link.first_ns = UINT64_C(0x5152535455565758);
        l.link.last_ns = UINT64_C(0x6162636465666768);
        l.link.busy_ns = UINT64_C(0x7172737475767778);
        l.link.min_step_ns = 0x81828384;
        l.link.max_step_ns = 0x91929394;
        w = l;
        cp_rec_swap(&w);
        ok(w.link.kind == CP_REC_LINK && w.link.dir == CP_PROXY_SEND &&
               w.link.channels == 4 && w.link.peer == 0x04030201 &&
               w.link.comm_id == UINT64_C(0x1817161514131211) &&
               w.link.back == 0x24232221 && w.link.steps == 0x34333231 &&
               w.link.bytes == UINT64_C(0x4847464544434241) &&
               w.link.first_ns == UINT64_C(0x5857565554535251) &&
               w.link.last_ns == UINT64_C(0x6867666564636261) &&
               w.link.busy_ns == UINT64_C(0x7877767574737271) &&
               w.link.min_step_ns == 0x84838281 &&
               w.link.max_step_ns == 0x94939291,
           "cp_rec_swap: a link record (kind 11), every field swapped");
        cp_rec_swap(&w);
        ok(memcmp(&w, &l, sizeof l) == 0,
           "cp_rec_swap: a link record swapped twice is itself");
    }

    n = cp_logdir_list(dir, &paths, &perr);
    ok(n >= 10 && strstr(paths[0], "/badkind.cplog"),
       "directory listing: sorted .cplog files (%d)", n);
    cp_logdir_free(paths);
    {
        char empty[] = "/tmp/cp-logread-empty-XXXXXX";
        mkdtemp(empty);
        ok(cp_logdir_list(empty, &paths, &perr) < 0 &&
               strstr(perr.text, "no collprof logs"),
           "empty directory: %s", perr.text);
        rmdir(empty);
    }
    return done_testing();
}
