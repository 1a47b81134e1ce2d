#version 450
// avg_pool2d: y[b, i, j, ch] = (sum of x[b, r, s, ch] over the window's positions
// inside the image, (p, q) in order) / their count: padding is not counted
// (TensorFlow's SAME); 0 for a window with none (pool_window.glsl). One item per
// element of y; the sum in float in the reference's order, then one division.
// Tolerance 3 ulps (Vulkan allows the division 2.5).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_avg_pool2d
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);

#include "pool_window.glsl"

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow;
    uint count = TDM_U_batch * oh * ow * c;
    for (uint o = gl_GlobalInvocationID.x; o < count; o += TDM_STRIDE) {
        uint ch = o % c, t = o / c, b = t / ow / oh;
        int r0 = int(t / ow % oh) * int(TDM_U_stride_h) - int(TDM_U_pad_top);
        int s0 = int(t % ow) * int(TDM_U_stride_w) - int(TDM_U_pad_left);
        uint n = tdm_inside(r0, TDM_U_kh, h) * tdm_inside(s0, TDM_U_kw, w);
        precise float sum = 0.0;
        for (int r = max(r0, 0); r < min(r0 + int(TDM_U_kh), int(h)); r++)
            for (int s = max(s0, 0); s < min(s0 + int(TDM_U_kw), int(w)); s++)
                sum += TDM_LOAD(x, ((b * h + uint(r)) * w + uint(s)) * c + ch);
        TDM_STORE(y, o, n != 0u ? sum / float(n) : 0.0);
    }
}
