/* ts_expect.h - the --expect file: every data-moving NCCL call of a rank,
 * in call order, as CSV "op,count,dtype,peer,comm,seq".
 *
 * The file name is a template holding one "%d" (the world rank); "%%" is a
 * literal percent sign, and any other conversion is refused, so the
 * template is never handed to printf.
 */
#ifndef TS_EXPECT_H
#define TS_EXPECT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Expand template for rank into path[len].  Returns 0, or -1 with a
 * message in err[errlen] when the template is not as described above or
 * the result does not fit. */
int ts_expect_path(const char *template, int rank, char *path, size_t len,
                   char *err, size_t errlen);

/* Create the file of rank and write the header.  Returns the stream (the
 * caller closes it with ts_expect_close), or NULL with a message in err. */
FILE *ts_expect_open(const char *template, int rank, char *err,
                     size_t errlen);

/* One line.  Write errors are reported by ts_expect_close. */
void ts_expect_record(FILE *stream, const char *op, size_t count, int dtype,
                      int peer, const char *comm, uint64_t seq);

/* Flush and close.  Returns 0, or -1 (errno set) when any write failed. */
int ts_expect_close(FILE *stream);

#endif
