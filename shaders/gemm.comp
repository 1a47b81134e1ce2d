#version 450
// gemm: C = alpha * op(A) * op(B) + beta * C, all float32 (gemm.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gemm
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(a);
TDM_VIEW_AND_QUADS(b);

bool tdm_gemm_quads_a()
{
    return ((TDM_OFF_a | TDM_U_lda) & 3u) == 0u;
}

vec4 tdm_gemm_quad_a(uint row, uint col)
{
    return a4[TDM_QUAD(a, row * TDM_U_lda + col)];
}

float tdm_gemm_single_a(uint row, uint col)
{
    return a[TDM_OFF_a + row * TDM_U_lda + col];
}

bool tdm_gemm_quads_b()
{
    return ((TDM_OFF_b | TDM_U_ldb) & 3u) == 0u;
}

vec4 tdm_gemm_quad_b(uint row, uint col)
{
    return b4[TDM_QUAD(b, row * TDM_U_ldb + col)];
}

float tdm_gemm_single_b(uint row, uint col)
{
    return b[TDM_OFF_b + row * TDM_U_ldb + col];
}

#include "gemm.glsl"
