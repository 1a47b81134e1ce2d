#version 450
// conv2d_implicit_grad_filter: df += the product of im2col's matrix of x, transposed
// (kh * kw * c x batch * oh * ow), with dy (batch * oh * ow x oc), as gemm.glsl
// computes it with beta 1, each element of the matrix read from x where im2col would
// have copied it (0 in the padding).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_implicit_grad_filter
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(x);
TDM_VIEW_AND_QUADS(dy);
#include "conv_implicit.glsl"

#define TDM_GEMM_C df
#define TDM_U_m (TDM_U_kh * TDM_U_kw * TDM_U_c)
#define TDM_U_n TDM_U_oc
#define TDM_U_k (TDM_U_batch * TDM_U_oh * TDM_U_ow)
#define TDM_U_trans_a 1u
#define TDM_U_trans_b 0u
#define TDM_F_beta 1.0

// A as stored is im2col's matrix itself (op(A) its transpose): four columns of a row
// are four channels of one window position where c is a multiple of 4.
bool tdm_gemm_quads_a()
{
    return ((TDM_OFF_x | TDM_U_c) & 3u) == 0u;
}

vec4 tdm_gemm_quad_a(uint row, uint col)
{
    uint e;
    return tdm_window_element(row, col, e) ? x4[TDM_QUAD(x, e)] : vec4(0.0);
}

float tdm_gemm_single_a(uint row, uint col)
{
    uint e;
    return tdm_window_element(row, col, e) ? x[TDM_OFF_x + e] : 0.0;
}

bool tdm_gemm_quads_b()
{
    return ((TDM_OFF_dy | TDM_U_oc) & 3u) == 0u;
}

vec4 tdm_gemm_quad_b(uint row, uint col)
{
    return dy4[TDM_QUAD(dy, row * TDM_U_oc + col)];
}

float tdm_gemm_single_b(uint row, uint col)
{
    return dy[TDM_OFF_dy + row * TDM_U_oc + col];
}

#include "gemm.glsl"
