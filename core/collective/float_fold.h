/* Internal: the host's fold of float values, with the kernels' arithmetic (accumulate,
 * maximum, minimum, accumulate_f16), so that a host fold gives the bits a device plan
 * gives. Header only: the MPI transport plugin folds with it too. */
#ifndef TDM_CORE_FLOAT_FOLD_H
#define TDM_CORE_FLOAT_FOLD_H

#include <math.h>
#include <stddef.h>

#include "base/half_bits.h"
#include "tandem/strategy.h" /* tdm_reduce_op */
#include "tandem/tensor.h"   /* tdm_dtype */

/* SUM_F16: the values are float16, two to a 32-bit word. */
typedef enum tdm_fold_op { TDM_FOLD_SUM, TDM_FOLD_MAX, TDM_FOLD_MIN, TDM_FOLD_SUM_F16 } tdm_fold_op;

/* MEAN folds as SUM; the caller divides once at the end (tdm_fold_scale). */
static inline tdm_fold_op tdm_fold_op_of(tdm_reduce_op op, tdm_dtype dtype)
{
    return op == TDM_REDUCE_MAX   ? TDM_FOLD_MAX
           : op == TDM_REDUCE_MIN ? TDM_FOLD_MIN
           : dtype == TDM_F16     ? TDM_FOLD_SUM_F16
                                  : TDM_FOLD_SUM;
}

/* The loop after it has no dependence between iterations (inlining loses
 * restrict). */
#if defined(__GNUC__) && !defined(__clang__)
#define TDM_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#else
#define TDM_INDEPENDENT_ITERATIONS
#endif

/* The sums go in blocks of a fixed count, which GCC 12 vectorises at -O2 (its
 * cheapest cost model takes no loop that would need a scalar remainder), then the
 * remainder one by one. */
#define TDM_FOLD_BLOCK 16

/* tdm_f32_from_f16 without branches (a third faster in the fold's loop): normal
 * halves rebiased, subnormal ones through an exact conversion of their integer,
 * infinities and NaN with float's exponent. */
static inline float tdm_fold_half_value(uint16_t h)
{
    uint32_t magnitude = h & 0x7fffu, bits;
    float tiny = (float)magnitude * 0x1p-24f, value;
    memcpy(&bits, &tiny, sizeof bits);
    bits = magnitude < 0x400u    ? bits
           : magnitude < 0x7c00u ? (magnitude << 13) + 0x38000000u
                                 : (magnitude << 13) | 0x7f800000u;
    bits |= (uint32_t)(h & 0x8000u) << 16;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* tdm_f16_from_f32 of a sum of two halves, without branches: below 2^-14 the sum is
 * a multiple of 2^-24 and converts exactly; above, the mantissa is rounded to 10
 * bits, ties to even, and 65520 and beyond are infinity; NaN stays a quiet NaN. */
static inline uint16_t tdm_fold_half_of_sum(float sum)
{
    uint32_t bits;
    memcpy(&bits, &sum, sizeof bits);
    uint32_t a = bits & 0x7fffffffu;
    float below = a < 0x38800000u ? fabsf(sum) : 0.0f;
    uint32_t h = a < 0x38800000u    ? (uint32_t)(below * 0x1p24f)
                 : a < 0x477ff000u  ? ((a + 0xfffu + ((a >> 13) & 1u)) - 0x38000000u) >> 13
                 : a <= 0x7f800000u ? 0x7c00u
                                    : 0x7e00u | ((a >> 13) & 0x3ffu);
    return (uint16_t)(h | ((bits >> 16) & 0x8000u));
}

/* half(a + b), the sum in float. A NaN a gives itself, quieted, whatever b is: the
 * result x86's addition gives for its first operand, made explicit because a compiler
 * may swap the operands of a sum, which changes the payload of NaN + NaN. */
static inline uint16_t tdm_fold_half_sum(uint16_t a, uint16_t b)
{
    if ((a & 0x7fffu) > 0x7c00u)
        return a | 0x200u;
    return tdm_fold_half_of_sum(tdm_fold_half_value(a) + tdm_fold_half_value(b));
}

/* x86's F16C converts eight halves to floats and back in one instruction each, with
 * the same rounding (to nearest, ties to even; subnormals kept), about 30 times the
 * portable loop's speed. It is taken where the processor has it and the system saves
 * the AVX state it runs in, checked once. */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define TDM_FOLD_HAS_F16C_PATH 1

static inline int tdm_fold_detect_f16c(void)
{
    unsigned a, b, c, d, lo, hi;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_F16C) || !(c & bit_AVX) || !(c & bit_OSXSAVE))
        return 0;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0)); /* XCR0: the OS saves XMM and YMM */
    return (lo & 6u) == 6u;
}

static inline int tdm_fold_uses_f16c(void)
{
    static _Atomic int uses = -1;
    if (uses < 0)
        uses = tdm_fold_detect_f16c();
    return uses;
}

__attribute__((target("avx,f16c"))) static inline __m256 tdm_fold_load8(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}

__attribute__((target("avx,f16c"))) static inline void tdm_fold_store8(uint16_t *p, __m256 v)
{
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

/* The first n - n % 8 halves of tdm_fold_halves (NaNs as tdm_fold_half_sum's);
 * returns that count. */
__attribute__((target("avx,f16c"))) static inline size_t
tdm_fold_halves_f16c(uint16_t *restrict acc, const uint16_t *restrict x, size_t n, int x_earlier)
{
    size_t i = 0;
    const __m256 quiet = _mm256_castsi256_ps(_mm256_set1_epi32(0x400000));
    for (; i + 8 <= n; i += 8) {
        __m256 a = tdm_fold_load8(acc + i), b = tdm_fold_load8(x + i);
        __m256 earlier = x_earlier ? b : a, sum = _mm256_add_ps(a, b);
        __m256 earlier_nan = _mm256_cmp_ps(earlier, earlier, _CMP_UNORD_Q);
        tdm_fold_store8(acc + i, _mm256_blendv_ps(sum, _mm256_or_ps(earlier, quiet), earlier_nan));
    }
    return i;
}

/* The first n - n % 8 halves of tdm_fold_scale's; returns that count. */
__attribute__((target("avx,f16c"))) static inline size_t tdm_fold_scale_f16c(uint16_t *h, size_t n,
                                                                             float alpha)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        tdm_fold_store8(h + i, _mm256_mul_ps(_mm256_set1_ps(alpha), tdm_fold_load8(h + i)));
    return i;
}
#endif

/* accumulate_f16's step: acc[i] = half(earlier + later), the sum in float. */
static inline void tdm_fold_halves(uint16_t *restrict acc, const uint16_t *restrict x, size_t n,
                                   int x_earlier)
{
    size_t i = 0;
#ifdef TDM_FOLD_HAS_F16C_PATH
    if (tdm_fold_uses_f16c())
        i = tdm_fold_halves_f16c(acc, x, n, x_earlier);
#endif
    for (; i < n; i++)
        acc[i] = x_earlier ? tdm_fold_half_sum(x[i], acc[i]) : tdm_fold_half_sum(acc[i], x[i]);
}

/* acc[i] becomes earlier op later, where the earlier value is x[i] when x_earlier,
 * else acc[i]; NaN wins MAX and MIN. The operands keep their order, so that even a
 * NaN's payload is the kernels'. n counts 32-bit words: SUM_F16 folds 2n halves. */
static inline void tdm_fold_floats(tdm_fold_op op, float *restrict acc, const float *restrict x,
                                   size_t n, int x_earlier)
{
    if (op == TDM_FOLD_SUM_F16) {
        tdm_fold_halves((uint16_t *)(void *)acc, (const uint16_t *)(const void *)x, 2 * n,
                        x_earlier);
    } else if (op == TDM_FOLD_SUM) {
        size_t i = 0;
        for (; i + TDM_FOLD_BLOCK <= n; i += TDM_FOLD_BLOCK) {
            if (x_earlier) {
                TDM_INDEPENDENT_ITERATIONS
                for (size_t j = 0; j < TDM_FOLD_BLOCK; j++)
                    acc[i + j] = x[i + j] + acc[i + j];
            } else {
                TDM_INDEPENDENT_ITERATIONS
                for (size_t j = 0; j < TDM_FOLD_BLOCK; j++)
                    acc[i + j] = acc[i + j] + x[i + j];
            }
        }
        for (; i < n; i++)
            acc[i] = x_earlier ? x[i] + acc[i] : acc[i] + x[i];
    } else {
        for (size_t i = 0; i < n; i++) {
            float e = x_earlier ? x[i] : acc[i], l = x_earlier ? acc[i] : x[i];
            int later_wins = op == TDM_FOLD_MAX ? l > e : l < e;
            acc[i] = isnan(e) || isnan(l) ? NAN : (later_wins ? l : e);
        }
    }
}

/* a[i] = b[i] = a[i] + b[i] (float32): two values summed into both in one pass, as
 * accumulate_pair sums them where each value is its own destination. */
static inline void tdm_fold_sum_into_both(float *restrict a, float *restrict b, size_t n)
{
    size_t i = 0;
    for (; i + TDM_FOLD_BLOCK <= n; i += TDM_FOLD_BLOCK) {
        TDM_INDEPENDENT_ITERATIONS
        for (size_t j = 0; j < TDM_FOLD_BLOCK; j++) {
            float sum = a[i + j] + b[i + j];
            a[i + j] = sum;
            b[i + j] = sum;
        }
    }
    for (; i < n; i++)
        a[i] = b[i] = a[i] + b[i];
}

/* MEAN's division, as coll_finalize: values[i] = alpha * values[i], rounded to the
 * dtype; n counts 32-bit words. */
static inline void tdm_fold_scale(tdm_fold_op op, float *values, size_t n, float alpha)
{
    if (op == TDM_FOLD_SUM_F16) {
        uint16_t *h = (uint16_t *)(void *)values;
        size_t i = 0;
#ifdef TDM_FOLD_HAS_F16C_PATH
        if (tdm_fold_uses_f16c())
            i = tdm_fold_scale_f16c(h, 2 * n, alpha);
#endif
        for (; i < 2 * n; i++)
            h[i] = tdm_f16_from_f32(alpha * tdm_f32_from_f16(h[i]));
    } else {
        for (size_t i = 0; i < n; i++)
            values[i] = alpha * values[i];
    }
}

#endif
