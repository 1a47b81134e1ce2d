// The body of conv2d_implicit_grad_filter and conv2d_implicit_grad_filter_bias: df +=
// the product of im2col's matrix of x, transposed (kh * kw * c x batch * oh * ow), with
// dy (batch * oh * ow x oc), as gemm.glsl computes it with beta 1, each element of the
// matrix read from x where im2col would have copied it (0 in the padding). With
// TDM_BIAS_ROW the matrix has a last column of ones, whose row of the product is dy's
// column sums, which the including shader stores (TDM_GEMM_STORE_ELSEWHERE). Quads of
// A never hold that column: they load where c is a multiple of 4, in whole quads of
// rows below m. Included after the kernel's bindings.

TDM_VIEW_AND_QUADS(x);
TDM_VIEW_AND_QUADS(dy);
#include "conv_implicit.glsl"

#define TDM_GEMM_C df
#ifdef TDM_BIAS_ROW
#define TDM_U_m (TDM_U_kh * TDM_U_kw * TDM_U_c + 1u)
#else
#define TDM_U_m (TDM_U_kh * TDM_U_kw * TDM_U_c)
#endif
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
#ifdef TDM_BIAS_ROW
    if (col == TDM_U_kh * TDM_U_kw * TDM_U_c)
        return 1.0;
#endif
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
