// Exact float32 <-> float16 conversions on bit patterns, so that every device rounds
// alike (GLSL's packHalf2x16 leaves rounding and overflow to the implementation, and
// float arithmetic may flush denormals). float16 buffers are uint[] words holding two
// halves, the lower-addressed element in the low 16 bits, except a float16 twin's
// activations, uint16_t[] (kernel_bindings.glsl), which tdm_half_value and
// tdm_half_bits below convert.
#ifndef TDM_HALF_GLSL
#define TDM_HALF_GLSL

// float32 bits -> float16 bits: round to nearest even, overflow to infinity, NaN
// stays a (quiet) NaN, results below the smallest half denormal round to zero.
uint tdm_float_to_half(uint f)
{
    uint sign = (f >> 16) & 0x8000u;
    uint a = f & 0x7fffffffu;
    if (a > 0x7f800000u)                 // NaN: quiet, keeping the top payload bits
        return sign | 0x7e00u | ((a >> 13) & 0x3ffu);
    if (a >= 0x477ff000u)                // >= 65520 rounds past 65504: infinity
        return sign | 0x7c00u;
    if (a >= 0x38800000u) {              // normal half (>= 2^-14): rebias 127 -> 15
        uint h = a - 0x38000000u;        // exponent - 112, in place
        return sign | ((h + 0xfffu + ((h >> 13) & 1u)) >> 13);
    }
    if (a <= 0x33000000u)                // <= 2^-25: rounds (ties to even) to zero
        return sign;
    // Denormal half: a / 2^-24 = m * 2^(e - 126), rounded to nearest even.
    uint e = a >> 23;
    uint m = (a & 0x7fffffu) | 0x800000u;
    uint shift = 126u - e;               // 14..24
    uint r = m >> shift;
    uint rest = m & ((1u << shift) - 1u);
    uint halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (r & 1u) != 0u))
        r += 1u;
    return sign | r;
}

// float16 bits (low 16 bits of h) -> float32 bits; exact.
uint tdm_half_to_float(uint h)
{
    uint sign = (h & 0x8000u) << 16;
    uint e = (h >> 10) & 0x1fu;
    uint m = h & 0x3ffu;
    if (e == 31u)                        // infinity or NaN
        return sign | 0x7f800000u | (m << 13);
    if (e != 0u)                         // normal: rebias 15 -> 127
        return sign | ((e + 112u) << 23) | (m << 13);
    if (m == 0u)
        return sign;
    // Denormal m * 2^-24: normalise so that the top bit (at b) becomes implicit.
    uint b = uint(findMSB(m));
    return sign | ((b + 103u) << 23) | ((m << (23u - b)) & 0x7fffffu);
}

// A half's value (its bits the low 16 of h; the high ones are ignored), exactly, and
// a float rounded to a half's bits (nearest even).
float tdm_half_value(uint h)
{
    return uintBitsToFloat(tdm_half_to_float(h));
}

vec4 tdm_half_values(uvec4 h)
{
    return vec4(tdm_half_value(h.x), tdm_half_value(h.y), tdm_half_value(h.z),
                tdm_half_value(h.w));
}

uint tdm_half_bits(float v)
{
    return tdm_float_to_half(floatBitsToUint(v));
}

uvec4 tdm_half_bits4(vec4 v)
{
    return uvec4(tdm_half_bits(v.x), tdm_half_bits(v.y), tdm_half_bits(v.z), tdm_half_bits(v.w));
}

#endif
