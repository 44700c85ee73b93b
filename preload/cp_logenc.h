/* cp_logenc.h - the encoder of log format 4's stream (cp_logfmt.h,
 * "version 4"): a record in, the ops that give it back out.
 *
 * Pure: no I/O, no locks, no printing; the log thread (cp_logwrite.c) and
 * the test tools (tests/tools/gen_logs.c) feed it slots in slot order and
 * put what it returns into blocks.  Its state is the stream's: the
 * signatures defined so far (a table searched by hash), each key's last
 * sequence number, the last group and the two previous times.  The
 * decoder (analyzer/logs) keeps the same state from the same ops.
 *
 * Why these ops: a training job's calls repeat (the same communicator,
 * op, datatype, count and peer every step), their sequence numbers grow by
 * one per communicator (per peer and direction for send/recv), and their
 * times grow.  A call is then its signature's index and two times (the
 * start as the distance from the previous start, the duration): one byte
 * and two varints, 6-8 bytes where calls are microseconds to milliseconds
 * apart.  What does not fit the prediction says so in a second byte; a
 * record of the NCCL profiler plugin's kinds or an aggregate of the
 * capture policy is a template (its fields that repeat, defined once)
 * and a varint per field that varies
 * (cp_log4_fields_of); a record of another kind, or one the ops cannot
 * give back bit for bit, is stored whole (CP_LOG4_RAW).
 */
#ifndef COLLPROF_CP_LOGENC_H
#define COLLPROF_CP_LOGENC_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_logfmt.h"

/* The most bytes one record's ops take (a signature's definition and a
 * long call, a literal call, a raw slot, or a template and a record of
 * it: an aggregate's is 65 + 3 + 2 + 47). */
#define CP_LOGENC_MAX 160u
/* Signatures a log defines unless told otherwise: a job's usual few dozen
 * with room to spare; past the table's end a call is written literally. */
#define CP_LOGENC_DICT_DEFAULT 1024u

struct cp_logenc_sig;  /* cp_logenc.c */
struct cp_logenc_tmpl; /* cp_logenc.c */

struct cp_logenc {
    struct cp_logenc_sig *sig; /* defined signatures, by index */
    uint32_t nsig, cap;        /* defined, and the most (dict_slots) */
    uint32_t alloc;            /* allocated */
    uint32_t mru;              /* the last signature found */
    uint32_t *hash;            /* index + 1 per bucket, 0 empty */
    uint32_t *bases;           /* the same for bases (after hash) */
    uint32_t hmask;
    uint64_t t_call;           /* the previous time */
    uint64_t call_start;       /* the latest call record's start_ns */
    uint64_t dev_start, dev_end; /* the latest device interval's */
    uint32_t last_group;
    uint64_t t_latest;         /* the latest call start so far, 0 none */
    /* templates of the plugin's kinds (CP_LOG4_TEMPLATE), as signatures */
    struct cp_logenc_tmpl *tmpl;
    uint32_t ntmpl, tmpl_alloc, tmpl_mru;
    uint32_t *tmpl_hash;       /* index + 1 per bucket, 0 empty */
    uint32_t tmpl_hmask;
    /* what was encoded, by op: for make bench and the tests */
    uint64_t n_short, n_long, n_literal, n_raw, n_define;
    uint64_t n_templated, n_template, n_sync;
};

/* Start a stream: at most dict_slots signatures (<= CP_LOG4_DICT_MAX),
 * times from t0 (the header's start_realtime_ns).  Allocates nothing (the
 * table grows as signatures are defined); returns 0. */
int cp_logenc_init(struct cp_logenc *e, uint32_t dict_slots, uint64_t t0);
void cp_logenc_free(struct cp_logenc *e);

/* The ops of rec (host byte order, kind not 0), the record of slot `slot`,
 * into out (CP_LOGENC_MAX bytes of room): their length. */
size_t cp_logenc_rec(struct cp_logenc *e, const union cp_rec *rec,
                     uint64_t slot, unsigned char *out);

/* A sync point (CP_LOG4_SYNC, cp_logfmt.h): its op into out
 * (CP_LOGENC_MAX bytes of room), the stream's state restated, and the
 * signatures and templates forgotten, so that what follows decodes
 * without what came before.  Its length.  The caller puts it first in a
 * block at a multiple of the header's sync_bytes. */
size_t cp_logenc_sync(struct cp_logenc *e, unsigned char *out);

/* The op for n (>= 1) never-written slots: its length. */
size_t cp_logenc_empty(uint64_t n, unsigned char *out);

/* The op for n (>= 1) slots the capture policy folded into aggregates
 * (CP_LOG4_FOLD; the header's CP_HDR_POLICY): its length. */
size_t cp_logenc_fold(uint64_t n, unsigned char *out);

#endif
