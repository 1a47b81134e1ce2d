#version 450
// global_avg_pool_grad: dx[b, r, s, ch] = q = dy[b, ch] / (h * w), +0 where q is a
// zero: bitwise avg_pool2d_grad's sum of the one term over the window of the whole
// image, from +0 (a select, since lavapipe folds 0 + q into q). One item per element
// of dx. Tolerance 3 ulps (Vulkan allows the division 2.5).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_global_avg_pool_grad
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(dy);

void main()
{
    uint c = TDM_U_c, n = TDM_U_h * TDM_U_w;
    uint count = TDM_U_batch * n * c;
    for (uint e = gl_GlobalInvocationID.x; e < count; e += TDM_STRIDE) {
        precise float q = dy[TDM_OFF_dy + e / (n * c) * c + e % c] / float(n);
        dx[TDM_OFF_dx + e] = q == 0.0 ? 0.0 : q;
    }
}
