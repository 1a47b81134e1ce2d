#version 450
// col2im: dx[b, r, s, ch] = sum over (p, q) in order of col[(b, i, j), (p, q, ch)] for
// the outputs (i, j) whose window holds (r, s) at (p, q) (pool_window.glsl): im2col's
// adjoint. A gather, one item per element of dx, summed in float in the table's
// order, no atomics. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_col2im
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(col);

#include "pool_window.glsl"

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow;
    uint row = TDM_U_kh * TDM_U_kw * c, count = TDM_U_batch * h * w * c;
    for (uint e = gl_GlobalInvocationID.x; e < count; e += TDM_STRIDE) {
        uint ch = e % c, t = e / c, b = t / w / h;
        int r = int(t / w % h), s = int(t % w);
        precise float sum = 0.0;
        for (int p = 0; p < int(TDM_U_kh); p++) {
            int i = tdm_output_pos(r, p, TDM_U_stride_h, TDM_U_pad_top, oh);
            for (int q = 0; i >= 0 && q < int(TDM_U_kw); q++) {
                int j = tdm_output_pos(s, q, TDM_U_stride_w, TDM_U_pad_left, ow);
                if (j >= 0)
                    sum += col[TDM_OFF_col + ((b * oh + uint(i)) * ow + uint(j)) * row +
                               (uint(p) * TDM_U_kw + uint(q)) * c + ch];
            }
        }
        dx[TDM_OFF_dx + e] = sum;
    }
}
