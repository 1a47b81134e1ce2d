/* Internal: IEEE 754 binary16 <-> binary32, bit by bit, round to nearest even, so
 * that no compiler support for _Float16 is needed. Header only: the reference
 * kernels, the host's float16 folds and the MPI transport plugin share it. */
#ifndef TDM_CORE_HALF_BITS_H
#define TDM_CORE_HALF_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint32_t tdm_half_bits_of(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline float tdm_half_float_of(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* Rounds the value m * 2^-shift to nearest, ties to even. */
static inline uint32_t tdm_half_round_shift(uint32_t m, unsigned shift)
{
    if (shift > 31)
        return 0;
    uint32_t kept = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    return kept + (rest > half || (rest == half && (kept & 1)));
}

static inline uint16_t tdm_f16_from_f32(float x)
{
    uint32_t b = tdm_half_bits_of(x), sign = (b >> 16) & 0x8000u, exp = (b >> 23) & 0xFF;
    uint32_t man = b & 0x7FFFFFu;
    if (exp == 0xFF) /* Inf stays Inf; NaN stays a (quiet) NaN */
        return (uint16_t)(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) { /* subnormal half, or zero: the implicit bit joins the mantissa */
        uint32_t m = exp ? man | 0x800000u : man;
        return (uint16_t)(sign | tdm_half_round_shift(m, (unsigned)(14 - e)));
    }
    /* A carry out of the mantissa correctly bumps the exponent, up to Inf. */
    return (uint16_t)(sign | (((uint32_t)e << 10) + tdm_half_round_shift(man, 13)));
}

static inline float tdm_f32_from_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FFu;
    if (exp == 0x1F)
        return tdm_half_float_of(sign | 0x7F800000u | (man << 13));
    if (exp == 0) { /* zero or subnormal: exact as a float */
        float value = (float)man * 0x1p-24f;
        return sign ? -value : value;
    }
    return tdm_half_float_of(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

#endif
