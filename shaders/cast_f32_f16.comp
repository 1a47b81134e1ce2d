#version 450
// cast_f32_f16: y[i] = half(x[i]), rounded to nearest even, overflow to infinity. One
// item per pair of elements, that is per word of y; with n odd the last word's high
// half belongs to whatever follows the view and is kept.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "half.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, , uint, y);
TDM_BUFFER(1, readonly, uint, x);

void main()
{
    uint n = args.u[0];
    uint pairs = n / 2u + (n & 1u);
    uint y0 = args.off[0] / 2u, x0 = args.off[1];
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += TDM_STRIDE) {
        uint lo = tdm_float_to_half(x[x0 + 2u * p]);
        uint hi = 2u * p + 1u < n ? tdm_float_to_half(x[x0 + 2u * p + 1u])
                                  : y[y0 + p] >> 16;
        y[y0 + p] = lo | (hi << 16);
    }
}
