#version 450
// conv2d: y[b, i, j, o] = sum over (p, q, ch), p outermost, of
// x[b, i * stride_h - pad_top + p, j * stride_w - pad_left + q, ch] * f[p, q, ch, o];
// x NHWC, f HWIO, y NHWC with oc channels. Positions outside the image are padding
// and add nothing. One item per element of y, summed in float in the table's order
// (precise: no fused multiply-add), as the reference sums. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);
TDM_VIEW(f);

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow, oc = TDM_U_oc;
    uint count = TDM_U_batch * oh * ow * oc;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += TDM_STRIDE) {
        uint o = i % oc, t = i / oc, b = t / ow / oh;
        int row = int(t / ow % oh), col = int(t % ow);
        precise float sum = 0.0;
        for (int p = 0; p < int(TDM_U_kh); p++) {
            int r = row * int(TDM_U_stride_h) - int(TDM_U_pad_top) + p;
            if (r < 0 || r >= int(h))
                continue;
            for (int q = 0; q < int(TDM_U_kw); q++) {
                int s = col * int(TDM_U_stride_w) - int(TDM_U_pad_left) + q;
                if (s < 0 || s >= int(w))
                    continue;
                uint xs = TDM_OFF_x + ((b * h + uint(r)) * w + uint(s)) * c;
                uint fs = TDM_OFF_f + (uint(p) * TDM_U_kw + uint(q)) * c * oc + o;
                for (uint ch = 0u; ch < c; ch++)
                    sum += x[xs + ch] * f[fs + ch * oc];
            }
        }
        y[TDM_OFF_y + i] = sum;
    }
}
