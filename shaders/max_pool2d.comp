#version 450
// max_pool2d: y[b, i, j, ch] = the largest x[b, r, s, ch] over the window's positions
// inside the image, (p, q) in order, p outermost: the first of equal ones, the first
// NaN if any is NaN; padding never wins; 0 for a window with no position inside the
// image (pool_window.glsl). One item per element of y. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_max_pool2d
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);

#include "pool_window.glsl"

void main()
{
    uint c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow;
    uint count = TDM_U_batch * oh * ow * c;
    for (uint o = gl_GlobalInvocationID.x; o < count; o += TDM_STRIDE) {
        uint t = o / c;
        int at = tdm_window_max(t / ow / oh, int(t / ow % oh), int(t % ow), o % c);
        TDM_STORE(y, o, at < 0 ? 0.0 : TDM_LOAD(x, uint(at)));
    }
}
