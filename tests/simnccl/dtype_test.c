/* dtype_test.c - conversions (round to nearest even, saturation, special
 * values) and the reduction kernels of simnccl. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sim_dtype.h"
#include "tap.h"

static void test_half(void)
{
    int bad = 0;
    uint32_t h;

    is_int(sim_float_to_half(1.0f), 0x3c00, "half(1)");
    is_int(sim_float_to_half(-2.0f), 0xc000, "half(-2)");
    is_int(sim_float_to_half(65504.0f), 0x7bff, "half(65504), the largest");
    is_int(sim_float_to_half(65520.0f), 0x7c00, "half(65520) rounds to inf");
    is_int(sim_float_to_half(INFINITY), 0x7c00, "half(inf)");
    is_int(sim_float_to_half(ldexpf(1, -24)), 0x0001, "smallest subnormal");
    is_int(sim_float_to_half(ldexpf(1, -25)), 0x0000,
           "half of it ties to even zero");
    is_int(sim_float_to_half(ldexpf(3, -25)), 0x0002,
           "1.5 subnormal steps tie to even 2");
    is_int(sim_float_to_half(1.0f + ldexpf(1, -11)), 0x3c00,
           "1 + half an ulp ties to even");
    is_int(sim_float_to_half(1.0f + ldexpf(3, -11)), 0x3c02,
           "1 + 1.5 ulp ties to even");
    is_int(sim_float_to_half(1e-9f), 0, "tiny flushes to zero");
    ok((sim_float_to_half(NAN) & 0x7c00) == 0x7c00 &&
           (sim_float_to_half(NAN) & 0x3ff) != 0,
       "NaN stays NaN");
    is_near(sim_half_to_float(0x3555), 0.333251953125, 1e-12, "0x3555");
    is_near(sim_half_to_float(0x0001), ldexp(1, -24), 1e-12, "0x0001");
    ok(isinf(sim_half_to_float(0xfc00)) && sim_half_to_float(0xfc00) < 0,
       "0xfc00 is -inf");
    for (h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue; /* NaN */
        bad += sim_float_to_half(sim_half_to_float((uint16_t)h)) != h;
    }
    is_int(bad, 0, "every half survives a trip through float");
}

static void test_bf16(void)
{
    int bad = 0;
    uint32_t b;

    is_int(sim_float_to_bf16(1.0f), 0x3f80, "bf16(1)");
    is_int(sim_float_to_bf16(1.0f + ldexpf(1, -8)), 0x3f80,
           "half an ulp ties to even");
    is_int(sim_float_to_bf16(1.0f + ldexpf(3, -8)), 0x3f82,
           "1.5 ulp ties to even");
    is_int(sim_float_to_bf16(3.0e38f), 0x7f62, "large value rounds");
    ok(isnan(sim_bf16_to_float(sim_float_to_bf16(NAN))), "NaN stays NaN");
    for (b = 0; b < 0x10000; b++) {
        if ((b & 0x7f80) == 0x7f80 && (b & 0x7f))
            continue;
        bad += sim_float_to_bf16(sim_bf16_to_float((uint16_t)b)) != b;
    }
    is_int(bad, 0, "every bf16 survives a trip through float");
}

static void test_fp8(void)
{
    int bad = 0, v;

    is_int(sim_float_to_e4m3(1.0f), 0x38, "e4m3(1)");
    is_int(sim_float_to_e4m3(448.0f), 0x7e, "e4m3(448), the largest");
    is_int(sim_float_to_e4m3(1000.0f), 0x7e, "e4m3 saturates");
    is_int(sim_float_to_e4m3(-1000.0f), 0xfe, "e4m3 saturates negative");
    is_int(sim_float_to_e4m3(INFINITY), 0x7e, "e4m3 inf saturates");
    is_int(sim_float_to_e4m3(NAN) & 0x7f, 0x7f, "e4m3 NaN");
    is_int(sim_float_to_e4m3(ldexpf(1, -9)), 0x01, "e4m3 smallest subnormal");
    is_int(sim_float_to_e4m3(ldexpf(1, -10)), 0x00, "tie to even zero");
    is_int(sim_float_to_e4m3(17.0f), sim_float_to_e4m3(16.0f),
           "17 ties to even 16");
    is_int(sim_float_to_e4m3(19.0f), sim_float_to_e4m3(20.0f),
           "19 ties to even 20");
    ok(isnan(sim_e4m3_to_float(0x7f)), "0x7f is NaN");
    is_near(sim_e4m3_to_float(0x7e), 448, 0, "0x7e is 448");
    for (v = 0; v < 256; v++) {
        if ((v & 0x7f) == 0x7f)
            continue;
        bad += sim_float_to_e4m3(sim_e4m3_to_float((uint8_t)v)) != v;
    }
    is_int(bad, 0, "every e4m3 survives a trip through float");

    is_int(sim_float_to_e5m2(1.0f), 0x3c, "e5m2(1)");
    is_int(sim_float_to_e5m2(57344.0f), 0x7b, "e5m2(57344), the largest");
    is_int(sim_float_to_e5m2(1e6f), 0x7b, "e5m2 saturates");
    is_int(sim_float_to_e5m2(ldexpf(1, -16)), 0x01, "e5m2 smallest subnormal");
    ok(isinf(sim_e5m2_to_float(0x7c)), "0x7c is inf");
    ok(isnan(sim_e5m2_to_float(0x7d)), "0x7d is NaN");
    for (v = 0, bad = 0; v < 256; v++) {
        if ((v & 0x7c) == 0x7c)
            continue;
        bad += sim_float_to_e5m2(sim_e5m2_to_float((uint8_t)v)) != v;
    }
    is_int(bad, 0, "every finite e5m2 survives a trip through float");
}

static void test_kernels(void)
{
    int8_t i8a[2] = {100, -100}, i8b[2] = {100, -100}, i8d[2];
    uint8_t u8a[1] = {16}, u8b[1] = {16};
    int32_t i32a[3] = {-3, 5, 7}, i32b[3] = {0, 9, -7};
    uint64_t u64a[1] = {5}, u64b[1] = {6};
    float fa[2] = {1.5f, -2.0f}, fb[2] = {2.0f, 3.0f};
    uint16_t ha[1] = {0x3c00}, hb[1];
    uint8_t e4a[1], e4b[1];

    sim_dtype_reduce(i8d, i8a, i8b, 2, ncclInt8, ncclSum);
    is_int(i8d[0], -56, "int8 sum wraps");
    is_int(i8d[1], 56, "int8 sum wraps below");
    sim_dtype_reduce(u8a, u8a, u8b, 1, ncclUint8, ncclProd);
    is_int(u8a[0], 0, "uint8 product wraps, in place");
    sim_dtype_reduce(i32b, i32a, i32b, 3, ncclInt32, ncclMax);
    ok(i32b[0] == 0 && i32b[1] == 9 && i32b[2] == 7, "int32 max");
    sim_dtype_reduce(i32b, i32a, i32b, 3, ncclInt32, ncclMin);
    ok(i32b[0] == -3 && i32b[1] == 5 && i32b[2] == 7, "int32 min");
    sim_dtype_divide(i32a, 1, ncclInt32, 2);
    is_int(i32a[0], -1, "int32 average truncates toward zero");
    sim_dtype_reduce(u64a, u64a, u64b, 1, ncclUint64, ncclAvg);
    sim_dtype_divide(u64a, 1, ncclUint64, 2);
    is_int(u64a[0], 5, "uint64 average 11/2");
    sim_dtype_reduce(fa, fa, fb, 2, ncclFloat32, ncclProd);
    ok(fa[0] == 3.0f && fa[1] == -6.0f, "float product");
    hb[0] = sim_float_to_half(ldexpf(1, -11));
    sim_dtype_reduce(ha, ha, hb, 1, ncclFloat16, ncclSum);
    is_int(ha[0], 0x3c00, "half sum rounds to even");
    e4a[0] = sim_float_to_e4m3(16);
    e4b[0] = sim_float_to_e4m3(1);
    sim_dtype_reduce(e4a, e4a, e4b, 1, ncclFloat8e4m3, ncclSum);
    is_near(sim_e4m3_to_float(e4a[0]), 16, 0, "e4m3 16 + 1 rounds to 16");
    ha[0] = sim_float_to_half(1.0f);
    sim_dtype_divide(ha, 1, ncclFloat16, 3);
    is_int(ha[0], 0x3555, "half 1/3");
    is_int(sim_dtype_size(ncclBfloat16), 2, "bf16 size");
    is_int(sim_dtype_size(99), 0, "no size for datatype 99");
    is_str(sim_dtype_name(ncclFloat8e5m2), "fp8e5m2", "name");
    is_str(sim_redop_name(ncclAvg), "avg", "op name");
}

int main(void)
{
    test_half();
    test_bf16();
    test_fp8();
    test_kernels();
    return done_testing();
}
