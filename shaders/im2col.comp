#version 450
// im2col: col[(b, i, j), (p, q, ch)] = x[b, i * stride_h - pad_top + p,
// j * stride_w - pad_left + q, ch], 0 for padding; a row of kh * kw * c per output
// position. One item per element of col: a copy, tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_im2col
#include "kernel_bindings.glsl"

TDM_VIEW(col);
TDM_VIEW(x);

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow, kw = TDM_U_kw;
    uint row = TDM_U_kh * kw * c, count = TDM_U_batch * oh * ow * row;
    for (uint e = gl_GlobalInvocationID.x; e < count; e += TDM_STRIDE) {
        uint within = e % row, t = e / row, b = t / ow / oh;
        uint ch = within % c, pq = within / c;
        int r = int(t / ow % oh) * int(TDM_U_stride_h) - int(TDM_U_pad_top) + int(pq / kw);
        int s = int(t % ow) * int(TDM_U_stride_w) - int(TDM_U_pad_left) + int(pq % kw);
        bool inside = r >= 0 && r < int(h) && s >= 0 && s < int(w);
        TDM_STORE(col, e, inside ? TDM_LOAD(x, ((b * h + uint(r)) * w + uint(s)) * c + ch) : 0.0);
    }
}
