/* ts_dtype.c - element types of train_sim (see ts_dtype.h). */
#include "ts_dtype.h"

#include <math.h>
#include <string.h>

const struct ts_dtype ts_dtype_float32 = {
    .name = "float32", .nccl = ncclFloat32, .size = 4,
    .exact_limit = 1u << 24};
static const struct ts_dtype dtype_bfloat16 = {
    .name = "bfloat16", .nccl = ncclBfloat16, .size = 2, .exact_limit = 256};
static const struct ts_dtype dtype_float16 = {
    .name = "float16", .nccl = ncclFloat16, .size = 2, .exact_limit = 2048};
/* Not a --dtype choice: token counts of the MoE pattern. */
const struct ts_dtype ts_dtype_int64 = {
    .name = "int64", .nccl = ncclInt64, .size = 8, .exact_limit = 1u << 30};

static const struct ts_dtype *const choices[] = {
    &ts_dtype_float32, &dtype_bfloat16, &dtype_float16};

const struct ts_dtype *
ts_dtype_find(const char *name)
{
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++)
        if (strcmp(choices[i]->name, name) == 0)
            return choices[i];
    return NULL;
}

const char *
ts_dtype_choices(void)
{
    return "float32|bfloat16|float16";
}

/* IEEE binary16 from a float, round to nearest even; exact for the small
 * integers train_sim stores, correct for any finite normal value. */
static uint16_t
half_from_float(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    int exponent = (int)((bits >> 23) & 0xff) - 127 + 15;
    uint32_t mantissa = bits & 0x7fffffu;

    if (((bits >> 23) & 0xff) == 0xff) /* infinity or NaN */
        return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u : 0));
    if (exponent >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (exponent <= 0) { /* subnormal in half, or zero */
        if (exponent < -10)
            return sign;
        mantissa |= 0x800000u;
        unsigned shift = (unsigned)(14 - exponent);
        uint32_t half = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1);
        uint32_t midpoint = 1u << (shift - 1);
        if (rest > midpoint || (rest == midpoint && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)exponent << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
        half++; /* a carry into the exponent is still the right value */
    return (uint16_t)(sign | half);
}

static float
half_to_float(uint16_t half)
{
    int exponent = (half >> 10) & 0x1f;
    int mantissa = half & 0x3ff;
    float magnitude;

    if (exponent == 0)
        magnitude = ldexpf((float)mantissa, -24);
    else if (exponent == 31)
        magnitude = mantissa ? NAN : INFINITY;
    else
        magnitude = ldexpf((float)(mantissa | 0x400), exponent - 25);
    return (half & 0x8000u) ? -magnitude : magnitude;
}

void
ts_dtype_store(const struct ts_dtype *dtype, void *buf, size_t index,
               uint32_t value)
{
    unsigned char *element = (unsigned char *)buf + index * dtype->size;
    float as_float = (float)value;
    uint32_t bits;

    switch (dtype->nccl) {
    case ncclFloat32:
        memcpy(element, &as_float, 4);
        break;
    case ncclBfloat16: {
        /* value <= 256 has no bits below the top 16 of its float */
        memcpy(&bits, &as_float, 4);
        uint16_t upper = (uint16_t)(bits >> 16);
        memcpy(element, &upper, 2);
        break;
    }
    case ncclFloat16: {
        uint16_t half = half_from_float(as_float);
        memcpy(element, &half, 2);
        break;
    }
    case ncclInt64: {
        int64_t wide = value;
        memcpy(element, &wide, 8);
        break;
    }
    default:
        break; /* no other type is ever constructed */
    }
}

double
ts_dtype_load(const struct ts_dtype *dtype, const void *buf, size_t index)
{
    const unsigned char *element =
        (const unsigned char *)buf + index * dtype->size;
    float as_float;
    uint32_t bits;
    uint16_t half;
    int64_t wide;

    switch (dtype->nccl) {
    case ncclFloat32:
        memcpy(&as_float, element, 4);
        return as_float;
    case ncclBfloat16:
        memcpy(&half, element, 2);
        bits = (uint32_t)half << 16;
        memcpy(&as_float, &bits, 4);
        return as_float;
    case ncclFloat16:
        memcpy(&half, element, 2);
        return half_to_float(half);
    case ncclInt64:
        memcpy(&wide, element, 8);
        return (double)wide;
    default:
        return NAN;
    }
}
