#version 450
// avg_pool2d_grad: dx[b, r, s, ch] = sum over (p, q) in order of
// dy[b, i, j, ch] / count(i, j) for the outputs (i, j) whose window holds (r, s) at
// (p, q), count(i, j) their positions inside the image (pool_window.glsl). A gather:
// one item per element of dx, no atomics. Tolerance 3 ulps and 2^-16 of the largest
// dy (Vulkan allows each division 2.5 ulps).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_avg_pool2d_grad
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(dy);

#include "pool_window.glsl"

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow;
    uint count = TDM_U_batch * h * w * c;
    for (uint e = gl_GlobalInvocationID.x; e < count; e += TDM_STRIDE) {
        uint ch = e % c, t = e / c, b = t / w / h;
        int r = int(t / w % h), s = int(t % w);
        precise float sum = 0.0;
        for (int p = 0; p < int(TDM_U_kh); p++) {
            int i = tdm_output_pos(r, p, TDM_U_stride_h, TDM_U_pad_top, oh);
            for (int q = 0; i >= 0 && q < int(TDM_U_kw); q++) {
                int j = tdm_output_pos(s, q, TDM_U_stride_w, TDM_U_pad_left, ow);
                if (j < 0)
                    continue;
                uint n = tdm_inside(i * int(TDM_U_stride_h) - int(TDM_U_pad_top), TDM_U_kh, h) *
                         tdm_inside(j * int(TDM_U_stride_w) - int(TDM_U_pad_left), TDM_U_kw, w);
                sum += dy[TDM_OFF_dy + ((b * oh + uint(i)) * ow + uint(j)) * c + ch] / float(n);
            }
        }
        dx[TDM_OFF_dx + e] = sum;
    }
}
