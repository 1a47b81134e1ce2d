// The implicit convolutions (conv2d_implicit and its gradients): gemm.glsl's product
// with one operand a matrix that im2col would write, read from the image instead.
// Included after the shader's views, before the loads it defines for gemm.glsl.
#include "pool_window.glsl"

// Every product of the three: alpha 1; conv2d_implicit_grad_filter adds to df.
#define TDM_F_alpha 1.0
#define TDM_U_ldc TDM_U_n

// Where im2col's matrix of x holds x at (row, col), row (b, i, j) an output position
// and col (p, q, ch) a window's: x's element e, or false for padding.
bool tdm_window_element(uint row, uint col, out uint e)
{
    uint c = TDM_U_c, ow = TDM_U_ow, oh = TDM_U_oh, h = TDM_U_h, w = TDM_U_w;
    uint ch = col % c, pq = col / c, t = row / ow;
    int r = int(t % oh * TDM_U_stride_h + pq / TDM_U_kw) - int(TDM_U_pad_top);
    int s = int(row % ow * TDM_U_stride_w + pq % TDM_U_kw) - int(TDM_U_pad_left);
    e = ((t / oh * h + uint(r)) * w + uint(s)) * c + ch;
    return r >= 0 && s >= 0 && r < int(h) && s < int(w);
}

// Where the input gradient's matrix holds dy at (row, col), row (b, r, s) an input
// position and col (p, q, o): dy's element e at the output whose window holds (r, s)
// at (p, q), or false where none does.
bool tdm_output_element(uint row, uint col, out uint e)
{
    uint oc = TDM_U_oc, w = TDM_U_w, h = TDM_U_h, oh = TDM_U_oh, ow = TDM_U_ow;
    uint o = col % oc, pq = col / oc, t = row / w;
    int i = tdm_output_pos(int(t % h), int(pq / TDM_U_kw), TDM_U_stride_h, TDM_U_pad_top, oh);
    int j = tdm_output_pos(int(row % w), int(pq % TDM_U_kw), TDM_U_stride_w, TDM_U_pad_left, ow);
    e = ((t / h * oh + uint(i)) * ow + uint(j)) * oc + o;
    return i >= 0 && j >= 0;
}
