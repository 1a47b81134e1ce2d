#version 450
// gemm_f16: C = alpha * op(A) * op(B) + beta * C with A and B float16, C float32
// (gemm.glsl). Halves are converted exactly from their bits (half.glsl), so no device
// float16 support is needed; their products are exact in float and summed in float.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gemm_f16
#include "kernel_bindings.glsl"
#include "half.glsl"

// Words of two halves, the lower-addressed element in the low 16 bits; a quad is the
// uvec2 of four halves.
TDM_VIEW_AND_QUADS(a);
TDM_VIEW_AND_QUADS(b);

float half_at(uint word, uint element)
{
    return uintBitsToFloat(tdm_half_to_float((element & 1u) != 0u ? word >> 16 : word & 0xffffu));
}

vec4 halves4(uvec2 words)
{
    return vec4(uintBitsToFloat(tdm_half_to_float(words.x & 0xffffu)),
                uintBitsToFloat(tdm_half_to_float(words.x >> 16)),
                uintBitsToFloat(tdm_half_to_float(words.y & 0xffffu)),
                uintBitsToFloat(tdm_half_to_float(words.y >> 16)));
}

bool tdm_gemm_quads_a()
{
    return ((TDM_OFF_a | TDM_U_lda) & 3u) == 0u;
}

vec4 tdm_gemm_quad_a(uint row, uint col)
{
    return halves4(a4[TDM_QUAD(a, row * TDM_U_lda + col)]);
}

// An element may sit in either half of its word: lda and the row may be odd.
float tdm_gemm_single_a(uint row, uint col)
{
    uint e = TDM_OFF_a + row * TDM_U_lda + col;
    return half_at(a[e >> 1], e);
}

bool tdm_gemm_quads_b()
{
    return ((TDM_OFF_b | TDM_U_ldb) & 3u) == 0u;
}

vec4 tdm_gemm_quad_b(uint row, uint col)
{
    return halves4(b4[TDM_QUAD(b, row * TDM_U_ldb + col)]);
}

float tdm_gemm_single_b(uint row, uint col)
{
    uint e = TDM_OFF_b + row * TDM_U_ldb + col;
    return half_at(b[e >> 1], e);
}

#include "gemm.glsl"
