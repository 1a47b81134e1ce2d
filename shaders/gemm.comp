#version 450
// gemm: C = alpha * op(A) * op(B) + beta * C, all float32 (gemm.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gemm
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(a);
TDM_VIEW_AND_QUADS(b);

vec4 tdm_gemm_quad_a(uint i)
{
    return a4[TDM_QUAD(a, i)];
}

float tdm_gemm_single_a(uint i)
{
    return a[TDM_OFF_a + i];
}

vec4 tdm_gemm_quad_b(uint i)
{
    return b4[TDM_QUAD(b, i)];
}

float tdm_gemm_single_b(uint i)
{
    return b[TDM_OFF_b + i];
}

#include "gemm.glsl"
