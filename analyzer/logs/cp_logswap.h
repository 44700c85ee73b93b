/* cp_logswap.h - a rank log's header and records in the other byte order
 * (include/collprof/cp_logfmt.h: `endian` says which order a log has).
 *
 * The one place that knows which fields of each record kind and of the
 * header are wider than a byte: every reader (cp_logread, cp_scan, the
 * version-4 decoder cp_log4src) swaps through it.  Nothing allocates or
 * prints.
 */
#ifndef COLLPROF_CP_LOGSWAP_H
#define COLLPROF_CP_LOGSWAP_H

#include <stdint.h>

#include "collprof/cp_logfmt.h"

/* The byte-order mark of a log of the other order. */
#define CP_LOG_ENDIAN_SWAPPED 0x04030201u

/* Byte-swap a record of the other byte order in place (either way: the
 * kind byte decides, and it is a byte).  A kind unknown here is left as
 * it is. */
void cp_rec_swap(union cp_rec *rec);

/* Byte-swap a header of the other byte order in place (magic and the
 * strings stay; every integer field, the version-4 ones included). */
void cp_log_header_swap(struct cp_log_header *h);

#endif
