#version 450
// conv2d_grad_filter: df[p, q, ch, o] += sum over (b, i, j), b outermost, of
// x[b, i * stride_h - pad_top + p, j * stride_w - pad_left + q, ch] * dy[b, i, j, o],
// padding skipped, the sum continuing from df's value (the core launches long sums in
// pieces: lavapipe ends an invocation's loops after 65535 iterations). A gather: one
// item per element of df, no atomics, summed in float in the table's order (precise:
// no fused multiply-add), as the reference sums. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_grad_filter
#include "kernel_bindings.glsl"

TDM_VIEW(df);
TDM_VIEW(x);
TDM_VIEW(dy);

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow, oc = TDM_U_oc;
    uint count = TDM_U_kh * TDM_U_kw * c * oc;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += TDM_STRIDE) {
        uint o = i % oc, t = i / oc, ch = t % c;
        int q = int(t / c % TDM_U_kw), p = int(t / c / TDM_U_kw);
        precise float sum = df[TDM_OFF_df + i]; // the sum continues from df
        for (uint b = 0u; b < TDM_U_batch; b++)
            for (int row = 0; row < int(oh); row++) {
                int r = row * int(TDM_U_stride_h) - int(TDM_U_pad_top) + p;
                if (r < 0 || r >= int(h))
                    continue;
                for (int col = 0; col < int(ow); col++) {
                    int s = col * int(TDM_U_stride_w) - int(TDM_U_pad_left) + q;
                    if (s < 0 || s >= int(w))
                        continue;
                    uint xi = TDM_OFF_x + ((b * h + uint(r)) * w + uint(s)) * c + ch;
                    uint yi = TDM_OFF_dy + ((b * oh + uint(row)) * ow + uint(col)) * oc + o;
                    sum += x[xi] * dy[yi];
                }
            }
        df[TDM_OFF_df + i] = sum;
    }
}
