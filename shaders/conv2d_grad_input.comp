#version 450
// conv2d_grad_input: dx[b, r, s, ch] = sum over (p, q, o), p outermost, of
// dy[b, i, j, o] * f[p, q, ch, o] for the outputs (i, j) whose window holds (r, s) at
// (p, q): r = i * stride_h - pad_top + p, s = j * stride_w - pad_left + q. A gather:
// one item per element of dx, no atomics, summed in float in the table's order
// (precise: no fused multiply-add), as the reference sums. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_grad_input
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(dy);
TDM_VIEW(f);

// The output position whose window holds input position r at offset p, or -1.
int output_pos(int r, int p, uint stride, uint pad, uint size)
{
    int num = r + int(pad) - p;
    if (num < 0 || num % int(stride) != 0 || num / int(stride) >= int(size))
        return -1;
    return num / int(stride);
}

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow, oc = TDM_U_oc;
    uint count = TDM_U_batch * h * w * c;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += TDM_STRIDE) {
        uint ch = i % c, t = i / c, b = t / w / h;
        int r = int(t / w % h), s = int(t % w);
        precise float sum = 0.0;
        for (int p = 0; p < int(TDM_U_kh); p++) {
            int row = output_pos(r, p, TDM_U_stride_h, TDM_U_pad_top, oh);
            if (row < 0)
                continue;
            for (int q = 0; q < int(TDM_U_kw); q++) {
                int col = output_pos(s, q, TDM_U_stride_w, TDM_U_pad_left, ow);
                if (col < 0)
                    continue;
                uint dys = TDM_OFF_dy + ((b * oh + uint(row)) * ow + uint(col)) * oc;
                uint fs = TDM_OFF_f + ((uint(p) * TDM_U_kw + uint(q)) * c + ch) * oc;
                for (uint o = 0u; o < oc; o++)
                    sum += dy[dys + o] * f[fs + o];
            }
        }
        dx[TDM_OFF_dx + i] = sum;
    }
}
