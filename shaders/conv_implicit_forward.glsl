// The body of conv2d_implicit and conv2d_implicit_bias_relu: conv2d's y as gemm.glsl's
// product of im2col's matrix of x (batch * oh * ow x kh * kw * c) with the filter
// (kh * kw * c x oc), each element of the matrix read from x where im2col would have
// copied it (0 in the padding). Included after the kernel's bindings, and after the
// epilogue (TDM_GEMM_EPILOGUE) where it has one.

TDM_VIEW_AND_QUADS(x);
TDM_VIEW_AND_QUADS(f);
#include "conv_implicit.glsl"

#define TDM_GEMM_C y
#define TDM_U_m (TDM_U_batch * TDM_U_oh * TDM_U_ow)
#define TDM_U_n TDM_U_oc
#define TDM_U_k (TDM_U_kh * TDM_U_kw * TDM_U_c)
#define TDM_U_trans_a 0u
#define TDM_U_trans_b 0u
#define TDM_F_beta 0.0

// Four columns of a row are four channels of one window position where c is a
// multiple of 4: inside the image or padding together.
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
    return ((TDM_OFF_f | TDM_U_oc) & 3u) == 0u;
}

vec4 tdm_gemm_quad_b(uint row, uint col)
{
    return f4[TDM_QUAD(f, row * TDM_U_oc + col)];
}

float tdm_gemm_single_b(uint row, uint col)
{
    return f[TDM_OFF_f + row * TDM_U_oc + col];
}

#include "gemm.glsl"
