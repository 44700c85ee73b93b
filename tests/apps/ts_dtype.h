/* ts_dtype.h - train_sim's element types: NCCL enum, size, and how to store
 * and load the small integers every checked buffer holds.
 *
 * All values train_sim puts in a buffer are non-negative integers no larger
 * than exact_limit, and so are all sums it expects from a reduction, so every
 * result is exact in every type (bfloat16 holds integers up to 256 exactly,
 * float16 up to 2048, float32 up to 2^24) whatever order NCCL adds in.
 */
#ifndef TS_DTYPE_H
#define TS_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include <collprof/cp_nccl.h>

struct ts_dtype {
    const char *name;     /* spelling of --dtype, and in messages */
    ncclDataType_t nccl;  /* value passed to NCCL */
    size_t size;          /* bytes per element */
    uint32_t exact_limit; /* every integer in [0, exact_limit] is exact */
};

extern const struct ts_dtype ts_dtype_float32;
extern const struct ts_dtype ts_dtype_int64;

/* The type named name among the --dtype choices (float32, bfloat16,
 * float16), or NULL.  The result is static. */
const struct ts_dtype *ts_dtype_find(const char *name);

/* The --dtype choices as "float32|bfloat16|float16", for usage text. */
const char *ts_dtype_choices(void);

/* Store the integer value at element index of buf. */
void ts_dtype_store(const struct ts_dtype *dtype, void *buf, size_t index,
                    uint32_t value);

/* The element index of buf as a double (NaN and infinities included), so a
 * wrong value can be printed whatever it is. */
double ts_dtype_load(const struct ts_dtype *dtype, const void *buf,
                     size_t index);

#endif
