/* sim_dtype.h - NCCL data types and reductions on the CPU.
 *
 * Native types (integers, float, double) are reduced in their own width:
 * integer sums and products wrap modulo 2^bits (computed unsigned, so no
 * undefined behaviour), as the GPU does.  float16, bfloat16 and the two fp8
 * formats are widened to float, combined, and rounded back to nearest even;
 * fp8 conversions saturate to the largest finite value (CUDA's satfinite).
 */
#ifndef SIMNCCL_SIM_DTYPE_H
#define SIMNCCL_SIM_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_nccl.h"

/* Bytes per element; 0 for a value outside the enum. */
size_t sim_dtype_size(int datatype);

/* Names for messages ("float16", "sum"); "?" for invalid values.  Static
 * strings. */
const char *sim_dtype_name(int datatype);
const char *sim_redop_name(int op);

/* dst[i] = a[i] op b[i] for i < count.  dst may be a or b (same index);
 * ncclAvg sums (the division comes once, at the end: sim_dtype_divide). */
void sim_dtype_reduce(void *dst, const void *a, const void *b, size_t count,
                      ncclDataType_t datatype, ncclRedOp_t op);

/* buf[i] /= divisor: the last step of ncclAvg.  Integers divide with C's
 * truncation, as NCCL's integer average does. */
void sim_dtype_divide(void *buf, size_t count, ncclDataType_t datatype,
                      int divisor);

/* Conversions, exposed for the tests. */
float sim_half_to_float(uint16_t h);
uint16_t sim_float_to_half(float f);
float sim_bf16_to_float(uint16_t b);
uint16_t sim_float_to_bf16(float f);
float sim_e4m3_to_float(uint8_t v);
uint8_t sim_float_to_e4m3(float f);
float sim_e5m2_to_float(uint8_t v);
uint8_t sim_float_to_e5m2(float f);

#endif
