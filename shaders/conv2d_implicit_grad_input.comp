#version 450
// conv2d_implicit_grad_input: dx as gemm.glsl's product of the matrix
// dcol[(b, r, s), (p, q, o)] (batch * h * w x kh * kw * oc: dy at the output whose
// window holds (r, s) at (p, q), 0 where none does), read from dy, with the filter as
// B stored transposed (c x kh * kw * oc: B[ch][(p, q, o)] = f[p, q, ch, o]).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_implicit_grad_input
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(dy);
TDM_VIEW_AND_QUADS(f);
#include "conv_implicit.glsl"

#define TDM_GEMM_C dx
#define TDM_U_m (TDM_U_batch * TDM_U_h * TDM_U_w)
#define TDM_U_n TDM_U_c
#define TDM_U_k (TDM_U_kh * TDM_U_kw * TDM_U_oc)
#define TDM_U_trans_a 0u
#define TDM_U_trans_b 1u
#define TDM_F_beta 0.0

// Four columns of a row are four output channels of one output position where oc is
// a multiple of 4: all of dy's, or none.
bool tdm_gemm_quads_a()
{
    return ((TDM_OFF_dy | TDM_U_oc) & 3u) == 0u;
}

vec4 tdm_gemm_quad_a(uint row, uint col)
{
    uint e;
    return tdm_output_element(row, col, e) ? dy4[TDM_QUAD(dy, e)] : vec4(0.0);
}

float tdm_gemm_single_a(uint row, uint col)
{
    uint e;
    return tdm_output_element(row, col, e) ? dy[TDM_OFF_dy + e] : 0.0;
}

// B[ch][(p, q, o)]: f's oc values of (p, q, ch) are contiguous, so four columns are a
// quad of f where oc is a multiple of 4.
uint filter_element(uint ch, uint col)
{
    uint oc = TDM_U_oc;
    return (col / oc * TDM_U_c + ch) * oc + col % oc;
}

bool tdm_gemm_quads_b()
{
    return ((TDM_OFF_f | TDM_U_oc) & 3u) == 0u;
}

vec4 tdm_gemm_quad_b(uint row, uint col)
{
    return f4[TDM_QUAD(f, filter_element(row, col))];
}

float tdm_gemm_single_b(uint row, uint col)
{
    return f[TDM_OFF_f + filter_element(row, col)];
}

#include "gemm.glsl"
