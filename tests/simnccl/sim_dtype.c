/* sim_dtype.c - element sizes, conversions and reduction kernels. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "sim_dtype.h"

static const struct {
    const char *name;
    size_t size;
} dtypes[ncclNumTypes] = {
    [ncclInt8] = {"int8", 1},          [ncclUint8] = {"uint8", 1},
    [ncclInt32] = {"int32", 4},        [ncclUint32] = {"uint32", 4},
    [ncclInt64] = {"int64", 8},        [ncclUint64] = {"uint64", 8},
    [ncclFloat16] = {"float16", 2},    [ncclFloat32] = {"float32", 4},
    [ncclFloat64] = {"float64", 8},    [ncclBfloat16] = {"bfloat16", 2},
    [ncclFloat8e4m3] = {"fp8e4m3", 1}, [ncclFloat8e5m2] = {"fp8e5m2", 1},
};

static const char *const redops[ncclNumOps] = {
    [ncclSum] = "sum", [ncclProd] = "prod", [ncclMax] = "max",
    [ncclMin] = "min", [ncclAvg] = "avg"};

size_t sim_dtype_size(int datatype)
{
    if (datatype < 0 || datatype >= ncclNumTypes)
        return 0;
    return dtypes[datatype].size;
}

const char *sim_dtype_name(int datatype)
{
    if (datatype < 0 || datatype >= ncclNumTypes)
        return "?";
    return dtypes[datatype].name;
}

const char *sim_redop_name(int op)
{
    if (op < 0 || op >= ncclNumOps)
        return "?";
    return redops[op];
}

/* ---- conversions ------------------------------------------------------- */

static uint32_t float_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static float bits_float(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

float sim_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    float mag;

    if (exp == 0) {
        mag = ldexpf((float)mant, -24); /* zero or subnormal, exact */
        return sign ? -mag : mag;
    }
    if (exp == 0x1f)
        return bits_float(sign | 0x7f800000u | (mant << 13));
    return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

/* Round-to-nearest-even of the bits shifted out: keep = value >> shift. */
static uint32_t round_shift(uint32_t value, int shift)
{
    uint32_t keep = value >> shift;
    uint32_t rem = value & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);

    if (rem > half || (rem == half && (keep & 1)))
        keep++;
    return keep;
}

uint16_t sim_float_to_half(float f)
{
    uint32_t x = float_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    int e = (int)exp - 127 + 15;

    if (exp == 0xff) /* inf stays inf; NaN stays a quiet NaN */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* Subnormal half: the carry of the rounding may make it the
         * smallest normal, which the bit pattern expresses by itself. */
        if (e < -10)
            return (uint16_t)sign;
        return (uint16_t)(sign | round_shift(mant | 0x800000u, 14 - e));
    }
    /* A carry out of the mantissa bumps the exponent, up to inf: right. */
    return (uint16_t)(sign | round_shift(((uint32_t)e << 23) | mant, 13));
}

float sim_bf16_to_float(uint16_t b)
{
    return bits_float((uint32_t)b << 16);
}

uint16_t sim_float_to_bf16(float f)
{
    uint32_t x = float_bits(f);

    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)round_shift(x, 16);
}

/* The two fp8 formats differ in width and in their special values. */
struct fp8_format {
    int mant_bits;
    int bias;
    double max_finite;
    uint8_t max_code; /* bits of max_finite without the sign */
    uint8_t nan_code;
    int has_inf;
};

static const struct fp8_format e4m3 = {3, 7, 448.0, 0x7e, 0x7f, 0};
static const struct fp8_format e5m2 = {2, 15, 57344.0, 0x7b, 0x7f, 1};

static float fp8_to_float(uint8_t v, const struct fp8_format *fmt)
{
    int exp_bits = 7 - fmt->mant_bits;
    int exp = (v >> fmt->mant_bits) & ((1 << exp_bits) - 1);
    int mant = v & ((1 << fmt->mant_bits) - 1);
    int top = (1 << exp_bits) - 1;
    double mag;

    if (fmt->has_inf && exp == top)
        mag = mant ? NAN : INFINITY;
    else if (!fmt->has_inf && exp == top && mant == (1 << fmt->mant_bits) - 1)
        mag = NAN;
    else if (exp == 0)
        mag = ldexp(mant, 1 - fmt->bias - fmt->mant_bits);
    else
        mag = ldexp((1 << fmt->mant_bits) + mant,
                    exp - fmt->bias - fmt->mant_bits);
    return (float)((v & 0x80) ? -mag : mag);
}

static uint8_t float_to_fp8(float f, const struct fp8_format *fmt)
{
    uint8_t sign = (float_bits(f) >> 24) & 0x80u;
    int min_exp = 1 - fmt->bias; /* exponent of the smallest normal */
    double a = fabs((double)f), quantum, q, fl, value;
    int e;

    if (isnan(f))
        return (uint8_t)(sign | fmt->nan_code);
    if (a >= fmt->max_finite)
        return (uint8_t)(sign | fmt->max_code);
    if (a == 0)
        return sign;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    e -= 1;
    if (e < min_exp)
        e = min_exp; /* subnormals share the smallest normal's quantum */
    quantum = ldexp(1.0, e - fmt->mant_bits);
    q = a / quantum; /* exact: division by a power of two */
    fl = floor(q);
    if (q - fl > 0.5 || (q - fl == 0.5 && fmod(fl, 2.0) == 1.0))
        fl += 1.0;
    value = fl * quantum;
    if (value >= fmt->max_finite)
        return (uint8_t)(sign | fmt->max_code);
    if (value < ldexp(1.0, min_exp))
        return (uint8_t)(sign | (uint8_t)fl);
    frexp(value, &e);
    e -= 1;
    return (uint8_t)(sign | (uint8_t)((e + fmt->bias) << fmt->mant_bits) |
                     (uint8_t)(value / ldexp(1.0, e - fmt->mant_bits) -
                               (1 << fmt->mant_bits)));
}

float sim_e4m3_to_float(uint8_t v)
{
    return fp8_to_float(v, &e4m3);
}

uint8_t sim_float_to_e4m3(float f)
{
    return float_to_fp8(f, &e4m3);
}

float sim_e5m2_to_float(uint8_t v)
{
    return fp8_to_float(v, &e5m2);
}

uint8_t sim_float_to_e5m2(float f)
{
    return float_to_fp8(f, &e5m2);
}

/* ---- kernels ----------------------------------------------------------- */

/* Native types: W is the unsigned type of the same width, so that sums and
 * products wrap instead of overflowing a signed type. */
#define NATIVE_KERNELS(NAME, T, W)                                             \
    static void reduce_##NAME(void *dv, const void *av, const void *bv,        \
                              size_t n, ncclRedOp_t op)                        \
    {                                                                          \
        T *d = dv;                                                             \
        const T *a = av, *b = bv;                                              \
        size_t i;                                                              \
        switch (op) {                                                          \
        case ncclProd:                                                         \
            for (i = 0; i < n; i++)                                            \
                d[i] = (T)((W)a[i] * (W)b[i]);                                 \
            break;                                                             \
        case ncclMax:                                                          \
            for (i = 0; i < n; i++)                                            \
                d[i] = a[i] > b[i] ? a[i] : b[i];                              \
            break;                                                             \
        case ncclMin:                                                          \
            for (i = 0; i < n; i++)                                            \
                d[i] = a[i] < b[i] ? a[i] : b[i];                              \
            break;                                                             \
        default:                                                               \
            for (i = 0; i < n; i++)                                            \
                d[i] = (T)((W)a[i] + (W)b[i]);                                 \
            break;                                                             \
        }                                                                      \
    }                                                                          \
    static void divide_##NAME(void *bv, size_t n, int divisor)                 \
    {                                                                          \
        T *b = bv;                                                             \
        size_t i;                                                              \
        for (i = 0; i < n; i++)                                                \
            b[i] = (T)(b[i] / divisor);                                        \
    }

NATIVE_KERNELS(int8, int8_t, uint8_t)
NATIVE_KERNELS(uint8, uint8_t, uint8_t)
NATIVE_KERNELS(int32, int32_t, uint32_t)
NATIVE_KERNELS(uint32, uint32_t, uint32_t)
NATIVE_KERNELS(int64, int64_t, uint64_t)
NATIVE_KERNELS(uint64, uint64_t, uint64_t)
NATIVE_KERNELS(float32, float, float)
NATIVE_KERNELS(float64, double, double)

static float combine(float a, float b, ncclRedOp_t op)
{
    switch (op) {
    case ncclProd:
        return a * b;
    case ncclMax:
        return a > b ? a : b;
    case ncclMin:
        return a < b ? a : b;
    default:
        return a + b;
    }
}

/* Narrow floats: S is the storage type, TO/FROM the conversions. */
#define NARROW_KERNELS(NAME, S, TO, FROM)                                      \
    static void reduce_##NAME(void *dv, const void *av, const void *bv,        \
                              size_t n, ncclRedOp_t op)                        \
    {                                                                          \
        S *d = dv;                                                             \
        const S *a = av, *b = bv;                                              \
        size_t i;                                                              \
        for (i = 0; i < n; i++)                                                \
            d[i] = FROM(combine(TO(a[i]), TO(b[i]), op));                      \
    }                                                                          \
    static void divide_##NAME(void *bv, size_t n, int divisor)                 \
    {                                                                          \
        S *b = bv;                                                             \
        size_t i;                                                              \
        for (i = 0; i < n; i++)                                                \
            b[i] = FROM(TO(b[i]) / (float)divisor);                            \
    }

NARROW_KERNELS(float16, uint16_t, sim_half_to_float, sim_float_to_half)
NARROW_KERNELS(bfloat16, uint16_t, sim_bf16_to_float, sim_float_to_bf16)
NARROW_KERNELS(e4m3, uint8_t, sim_e4m3_to_float, sim_float_to_e4m3)
NARROW_KERNELS(e5m2, uint8_t, sim_e5m2_to_float, sim_float_to_e5m2)

static const struct {
    void (*reduce)(void *, const void *, const void *, size_t, ncclRedOp_t);
    void (*divide)(void *, size_t, int);
} kernels[ncclNumTypes] = {
    [ncclInt8] = {reduce_int8, divide_int8},
    [ncclUint8] = {reduce_uint8, divide_uint8},
    [ncclInt32] = {reduce_int32, divide_int32},
    [ncclUint32] = {reduce_uint32, divide_uint32},
    [ncclInt64] = {reduce_int64, divide_int64},
    [ncclUint64] = {reduce_uint64, divide_uint64},
    [ncclFloat16] = {reduce_float16, divide_float16},
    [ncclFloat32] = {reduce_float32, divide_float32},
    [ncclFloat64] = {reduce_float64, divide_float64},
    [ncclBfloat16] = {reduce_bfloat16, divide_bfloat16},
    [ncclFloat8e4m3] = {reduce_e4m3, divide_e4m3},
    [ncclFloat8e5m2] = {reduce_e5m2, divide_e5m2},
};

void sim_dtype_reduce(void *dst, const void *a, const void *b, size_t count,
                      ncclDataType_t datatype, ncclRedOp_t op)
{
    if ((int)datatype < 0 || datatype >= ncclNumTypes || count == 0)
        return;
    kernels[datatype].reduce(dst, a, b, count, op);
}

void sim_dtype_divide(void *buf, size_t count, ncclDataType_t datatype,
                      int divisor)
{
    if ((int)datatype < 0 || datatype >= ncclNumTypes || count == 0 ||
        divisor <= 1)
        return;
    kernels[datatype].divide(buf, count, divisor);
}
