/* cp_sha256.h - SHA-256 (FIPS 180-4) of a buffer, as 64 lower-case hex
 * digits: the fleet database keys a report by the digest of its bytes, so
 * that the same report ingested twice is known as such.  Never prints,
 * never allocates. */
#ifndef COLLPROF_CP_SHA256_H
#define COLLPROF_CP_SHA256_H

#include <stddef.h>

#define CP_SHA256_HEX 65 /* 64 digits and the NUL */

/* The digest of data (len bytes) into hex (CP_SHA256_HEX bytes). */
void cp_sha256_hex(const void *data, size_t len, char hex[CP_SHA256_HEX]);

#endif
