/* cp_logring.h - between the log writer's two files: version 3's chunks
 * (cp_logwrite.c) and version 4's ring (cp_logring.c).  Not for callers:
 * they use cp_logwrite.h. */
#ifndef COLLPROF_CP_LOGRING_H
#define COLLPROF_CP_LOGRING_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_error.h"
#include "cp_logwrite.h"

#ifndef MADV_POPULATE_WRITE
#define CP_MADV_POPULATE_WRITE 23
#else
#define CP_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#endif

/* Reserve [off, off + len) of the log's file by writing zeros (a full
 * disk or RLIMIT_FSIZE is an error here, errno set).  0 or -1. */
int cp_log_reserve(struct cp_log *log, uint64_t off, size_t len);

/* After the header is mapped and filled: the ring of ring_slots cells (a
 * power of two, else the default) after it, the stream after the ring,
 * the header's version-4 fields.  0, or -1 with err filled. */
int cp_log_ring_open(struct cp_log *log, uint32_t ring_slots,
                     uint32_t dict_slots, struct cp_error *err);
/* The log thread; -1 when it cannot be made (writers then encode). */
int cp_log_ring_start(struct cp_log *log);
/* After the log thread stopped: encode and write every finished slot,
 * give the ring's blocks back when nothing is left in it, cut the file
 * at the stream's end.  used: the slots handed out. */
void cp_log_ring_close(struct cp_log *log, uint64_t used);

#endif
